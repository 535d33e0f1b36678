/* Shared declarations of the skinframe command: the command table, option helpers, the pthread pool,
 * and the scene/morph/method flags that compare, render and the rest share. */
#ifndef SF_CLI_H
#define SF_CLI_H

#include "skinframe.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Exit statuses: 0 ok, 1 the work failed (bad file, library error), 2 bad usage. */
enum { CLI_EXIT_OK = 0, CLI_EXIT_FAILURE = 1, CLI_EXIT_USAGE = 2 };

/* One subcommand: `skinframe NAME ...`; run gets argv after the command name (argv[0] = NAME). */
typedef struct cli_command {
    const char* name;
    const char* summary;
    int (*run)(int argc, char** argv);
} cli_command;

/* Each subcommand lives in cli/cmd_<name>.c. */
int cmd_scenes(int argc, char** argv);
int cmd_compare(int argc, char** argv);
int cmd_demo(int argc, char** argv);

/* Prints "skinframe: <message>" on one line to stderr and returns code. */
int cli_fail(int code, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The thread pool behind sf_env.threads (cli/pool.c). threads = 0: one per core. */
sf_env cli_env(void);
void cli_env_shutdown(void);

/* Writes data to path atomically (temp file in the same folder, then rename). Returns 0 or -1 with errno. */
int cli_write_file_atomic(const char* path, const void* data, size_t size);

#endif

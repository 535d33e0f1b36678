/* Shared declarations of the skinframe command: the command table, option helpers, the pthread pool,
 * and the scene/morph/method flags that compare, render and the rest share. */
#ifndef SF_CLI_H
#define SF_CLI_H

#include "skinframe.h"
#include "skinframe_eval.h"
#include "skinframe_files.h"
#include "skinframe_gltf.h"
#include "skinframe_render.h"
#include "skinframe_scenes.h"

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
int cmd_render(int argc, char** argv); /* cli/cmd_render.c */
int cmd_plot(int argc, char** argv);   /* cli/cmd_plot.c */
int cmd_info(int argc, char** argv);   /* cli/cmd_info.c (glTF) */
int cmd_eval(int argc, char** argv);   /* cli/cmd_eval.c (glTF) */
int cmd_bake(int argc, char** argv);   /* cli/cmd_bake.c (glTF) */
int cmd_export_gpu(int argc, char** argv); /* cli/cmd_export_gpu.c */
int cmd_fix(int argc, char** argv);        /* cli/cmd_fix.c (glTF) */

/* Prints "skinframe: <message>" on one line to stderr and returns code. */
int cli_fail(int code, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* While text is set (NULL or "" clears it), cli_fail puts "text: " before messages that do not start with it
 * (eval names the asset of each error in a batch). */
void cli_fail_context(const char* text);
/* The last message cli_fail printed (without "skinframe: "), "" before any. */
const char* cli_last_error(void);

/* The thread pool behind sf_env.threads (cli/pool.c). threads = 0: one per core. */
sf_env cli_env(void);
void cli_env_shutdown(void);
/* Starts the pool with `threads` threads (0 = one per core; 1 = serial, no threads started) before
 * cli_env is used. Returns 0, or -1 when threads could not be started (the pool then runs serially). */
int cli_pool_start(size_t threads);
size_t cli_pool_threads(void);   /* threads in use (1 = serial) */
size_t cli_core_count(void);     /* online cores, at least 1 */

/* Files are written by the output rules of cli/outputs.h (cli_output_write and friends). */
/* Creates the folder path and its parents (mkdir -p). Returns CLI_EXIT_OK, CLI_EXIT_USAGE when path is
 * something other than a folder or too long, CLI_EXIT_FAILURE when it cannot be created; flag names the
 * option in the one-line error. */
int cli_make_dir(const char* flag, const char* path);

/* ---------------------------------------------------------------- parsing helpers (cli/util.c) */

/* Parses the whole of text as a finite number. */
bool cli_parse_double(const char* text, double* out);
/* Parses the whole of text as a decimal integer in [min, max]. */
bool cli_parse_size(const char* text, size_t min, size_t max, size_t* out);
/* Case-insensitive suffix test ("out.JSON" ends with ".json"). */
bool cli_ends_with(const char* text, const char* suffix);

/* Matches argv[*i] against `flag` (e.g. "--scene"), written `--scene NAME` or `--scene=NAME`.
 * Returns 1 and sets *value (advancing *i past a separate value), 0 when argv[*i] is not this flag,
 * or -1 after printing a one-line error when the value is missing or empty, or when the flag was given
 * before (every flag once, except --set and --morph, which add up; -o, --out and --output are one flag,
 * as are --all-methods and --stage). */
int cli_flag_value(int argc, char** argv, int* i, const char* flag, const char** value);
/* 1 when argv[i] is exactly `flag` (a switch without value), 0 when not, -1 after a one-line error when
 * the switch was given before. */
int cli_flag_switch(char** argv, int i, const char* flag);
/* Forgets the flags seen, the failure context and the last error (cli_process_reset). */
void cli_flags_reset(void);
/* Forgets what the last command kept for the process (flags seen, inputs, --force, the loader's limits, the
 * failure context), so that another command can run in the same process: for an in-process caller such as the
 * fuzz target (main runs one command per process). cli/reset.c */
void cli_process_reset(void);

/* Times (--time): seconds, a finite number from 0 to CLI_MAX_TIME_S. Returns CLI_EXIT_OK, or
 * CLI_EXIT_USAGE after a one-line error naming flag. Every command parses times with it. */
#define CLI_MAX_TIME_S 1e9
int cli_parse_time(const char* flag, const char* text, double* out);

/* Writes text to f with every byte that does not start a valid UTF-8 sequence replaced by U+FFFD, so
 * that JSON holding names from a file (which may hold anything) is valid UTF-8. */
void cli_write_utf8(FILE* f, const char* text);
/* 1 when arg is -h or --help. */
bool cli_is_help(const char* arg);

/* One name=value pair of a "k=v,k=v" list. */
typedef struct cli_assignment {
    char name[64];
    double value;
} cli_assignment;
/* Parses "k=v[,k=v...]" into out[count..cap). On error prints one line naming `flag` and returns
 * CLI_EXIT_USAGE; else CLI_EXIT_OK. */
int cli_parse_assignments(const char* flag, const char* list, cli_assignment* out, size_t cap, size_t* count);

#endif

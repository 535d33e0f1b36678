/* The names the writers give their temporaries (BASE.tmp.PID.N: a file of atomic_file.c, a folder of
 * staged_dir.c) and the rule by which one is left over. */
#ifndef SF_TEMP_NAMES_H
#define SF_TEMP_NAMES_H

#include <time.h>

/* Reads "PID.N" at tail (the part of a name after "BASE.tmp."): the writer's process id, and *rest past N;
 * 0 when tail is not two dot-separated numbers. */
int sfi_temp_name_tail(const char* tail, unsigned long long* pid, const char** rest);
/* Whether a temporary of process pid, last modified at mtime, is left over: older than SF_FILE_TEMP_MAX_AGE_S,
 * or its process no longer runs. Never this process's own unless old. */
int sfi_temp_left_over(unsigned long long pid, time_t mtime);

#endif

/* The temporaries' names and when one is left over (temp_names.h). */
#define _XOPEN_SOURCE 700 /* kill */
#include "temp_names.h"

#include "skinframe_files.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

/* The number at *p (digits only); 0 when there are none. Advances *p past them. */
static int take_digits(const char** p, unsigned long long* value)
{
    const char* s = *p;
    if (*s < '0' || *s > '9') return 0;
    unsigned long long v = 0;
    while (*s >= '0' && *s <= '9') {
        if (v > (ULLONG_MAX - 9) / 10) return 0;
        v = v * 10 + (unsigned long long)(*s++ - '0');
    }
    *p = s;
    *value = v;
    return 1;
}

int sfi_temp_name_tail(const char* tail, unsigned long long* pid, const char** rest)
{
    unsigned long long n;
    const char* p = tail;
    if (!take_digits(&p, pid) || *p++ != '.' || !take_digits(&p, &n)) return 0;
    *rest = p;
    return 1;
}

int sfi_temp_left_over(unsigned long long pid, time_t mtime)
{
    time_t now = time(NULL);
    if (now != (time_t)-1 && mtime < now && (double)(now - mtime) > SF_FILE_TEMP_MAX_AGE_S) return 1;
#if defined(__wasi__)
    (void)pid;
    return 0; /* no processes to ask about: the age alone decides */
#else
    if (pid == 0 || pid > (unsigned long long)INT_MAX || (pid_t)pid == getpid()) return 0;
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
#endif
}

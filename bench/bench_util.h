/* Timing helpers shared by the benchmarks (bench/bench_*.c). Define _POSIX_C_SOURCE (>= 199309L, for
 * clock_gettime) before including anything. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

#define MAX_RUNS 101

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int compare_doubles(const void* pa, const void* pb)
{
    double a = *(const double*)pa, b = *(const double*)pb;
    return (a > b) - (a < b);
}

typedef struct timing {
    double best, median;
} timing;

/* Best and median of t[0..runs) (sorts t). */
static inline timing summarize(double* t, int runs)
{
    qsort(t, (size_t)runs, sizeof *t, compare_doubles);
    timing r = {t[0], runs % 2 ? t[runs / 2] : 0.5 * (t[runs / 2 - 1] + t[runs / 2])};
    return r;
}

#endif /* BENCH_UTIL_H */

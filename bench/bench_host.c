/* What the host gives a thread count: the yardstick of the thread-scaling targets (docs/benchmarks.md). Two loads,
 * each run by 1, 2, 4, 8 .. T threads at once, every thread doing the same work:
 *   compute: multiply-adds on twelve independent chains, all in registers (no memory), enough to keep a core's
 *            floating-point units busy, as the per-vertex passes' arithmetic does;
 *   stream:  each thread reads one private array and writes another (32 MiB each, swapped between passes), as a
 *            per-vertex pass moves its streams.
 * The speed-up of T threads is T times one thread's time over T threads' time. A compute speed-up below T says the
 * threads share cores (SMT siblings, a virtual machine's vCPUs, a lower all-core clock); a stream speed-up below
 * it, that they share memory bandwidth. No pass of the library can scale past what this host gives these loops.
 *   usage: bench_host [max_threads (every core)] [rounds (5)]
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define COMPUTE_STEPS 60000000L
#define STREAM_FLOATS (8u << 20) /* 32 MiB an array */
#define STREAM_PASSES 16
#define MAX_THREADS 256
#define MAX_ROUNDS 31

typedef struct job {
    int stream; /* 0: compute, 1: stream */
    float *in, *out;
    float sink;
} job;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The factors come from memory the compiler cannot see through, so the loop is not evaluated at compile time. */
static volatile float g_scale = 0.9999999f, g_shift = 1e-7f;

/* Twelve independent chains in named registers (no array a compiler might keep in memory): each step is latency
 * bound per chain, and the twelve together keep a core's multiply and add units busy. */
static float compute(void)
{
    float m = g_scale, c = g_shift;
    float a0 = 1.00f, a1 = 1.01f, a2 = 1.02f, a3 = 1.03f, a4 = 1.04f, a5 = 1.05f;
    float a6 = 1.06f, a7 = 1.07f, a8 = 1.08f, a9 = 1.09f, a10 = 1.10f, a11 = 1.11f;
    for (long i = 0; i < COMPUTE_STEPS; ++i) {
        a0 = a0 * m + c, a1 = a1 * m + c, a2 = a2 * m + c, a3 = a3 * m + c, a4 = a4 * m + c, a5 = a5 * m + c;
        a6 = a6 * m + c, a7 = a7 * m + c, a8 = a8 * m + c, a9 = a9 * m + c, a10 = a10 * m + c, a11 = a11 * m + c;
    }
    return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;
}

/* Each pass reads what the last one wrote (the two arrays swap), so no pass is a dead store. */
static float stream(float* a, float* b)
{
    float m = g_scale;
    for (int p = 0; p < STREAM_PASSES; ++p) {
        for (size_t i = 0; i < STREAM_FLOATS; ++i) b[i] = a[i] * m;
        float* t = a;
        a = b, b = t;
    }
    return a[STREAM_FLOATS - 1];
}

static void* run(void* arg)
{
    job* j = (job*)arg;
    j->sink = j->stream ? stream(j->in, j->out) : compute();
    return NULL;
}

/* One round of `threads` threads at once; its wall seconds (-1: a thread could not start). */
static double round_of(job* jobs, int threads, int which)
{
    pthread_t t[MAX_THREADS];
    double t0 = now_s();
    int started = 0;
    for (; started < threads; ++started) {
        jobs[started].stream = which;
        if (pthread_create(&t[started], NULL, run, &jobs[started]) != 0) break;
    }
    for (int k = 0; k < started; ++k) pthread_join(t[k], NULL);
    return started == threads ? now_s() - t0 : -1.0;
}

static int by_value(const void* a, const void* b)
{
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

int main(int argc, char** argv)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int max_threads = argc > 1 ? atoi(argv[1]) : (int)(cores > 0 ? cores : 1);
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    if (max_threads < 1 || max_threads > MAX_THREADS || rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: bench_host [max_threads 1..%d] [rounds 1..%d]\n", MAX_THREADS, MAX_ROUNDS);
        return 2;
    }
    job* jobs = calloc((size_t)max_threads, sizeof *jobs);
    if (!jobs) return 1;
    for (int k = 0; k < max_threads; ++k) {
        jobs[k].in = malloc(STREAM_FLOATS * sizeof(float));
        jobs[k].out = malloc(STREAM_FLOATS * sizeof(float));
        if (!jobs[k].in || !jobs[k].out) {
            fprintf(stderr, "bench_host: out of memory for %d threads' arrays\n", max_threads);
            return 1;
        }
        for (size_t i = 0; i < STREAM_FLOATS; ++i) jobs[k].in[i] = (float)(i & 1023), jobs[k].out[i] = 0.0f;
    }
    printf("# bench_host: %d rounds, up to %d threads (%ld online)\n", rounds, max_threads, cores);
    printf("%8s %14s %10s %14s %10s %10s\n", "threads", "compute s", "speed-up", "stream s", "GB/s", "speed-up");
    double one[2] = {0.0, 0.0};
    for (int threads = 1;; threads = threads * 2 < max_threads ? threads * 2 : max_threads) {
        double median[2];
        for (int which = 0; which < 2; ++which) {
            double t[MAX_ROUNDS];
            for (int r = 0; r < rounds; ++r) {
                t[r] = round_of(jobs, threads, which);
                if (t[r] < 0.0) {
                    fprintf(stderr, "bench_host: could not start %d threads\n", threads);
                    return 1;
                }
            }
            qsort(t, (size_t)rounds, sizeof t[0], by_value);
            median[which] = t[rounds / 2];
            if (threads == 1) one[which] = median[which];
        }
        double bytes = 2.0 * STREAM_PASSES * STREAM_FLOATS * sizeof(float) * threads;
        printf("%8d %14.4f %10.2f %14.4f %10.1f %10.2f\n", threads, median[0], threads * one[0] / median[0], median[1],
               bytes / median[1] * 1e-9, threads * one[1] / median[1]);
        printf("{\"bench\":\"host\",\"threads\":%d,\"compute_s\":%.6f,\"compute_speedup\":%.3f,\"stream_s\":%.6f,"
               "\"stream_gbps\":%.2f,\"stream_speedup\":%.3f}\n",
               threads, median[0], threads * one[0] / median[0], median[1], bytes / median[1] * 1e-9,
               threads * one[1] / median[1]);
        if (threads == max_threads) break;
    }
    float sink = 0.0f;
    for (int k = 0; k < max_threads; ++k) sink += jobs[k].sink, free(jobs[k].in), free(jobs[k].out);
    free(jobs);
    return sink == sink ? 0 : 1; /* the results are used: the loops are not optimised away */
}

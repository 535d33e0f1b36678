/* The module's C helpers: sf_env.threads.parallel_for over POSIX threads, and the heatmap over an array.
 * Each parallel_for starts its threads and joins them before returning: the library calls it a few times per
 * frame, so starting threads costs little beside the work, and nothing outlives a call (no pool to stop when
 * the interpreter exits). Chunks are taken from a shared counter; the library's chunks write disjoint outputs,
 * so its results are the same for every thread count. */
#include "_pool.h"

#include <skinframe_render.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define SFPY_MAX_THREADS 256

typedef struct sfpy_job {
    size_t count, grain, chunks;
    sf_range_fn* fn;
    void* ctx;
    atomic_size_t next;
} sfpy_job;

static void* sfpy_work(void* arg)
{
    sfpy_job* job = arg;
    for (;;) {
        size_t k = atomic_fetch_add(&job->next, 1);
        if (k >= job->chunks) return NULL;
        size_t begin = k * job->grain;
        size_t end = job->count - begin < job->grain ? job->count : begin + job->grain;
        job->fn(job->ctx, begin, end);
    }
}

static void sfpy_parallel_for(void* user, size_t count, size_t grain, sf_range_fn* fn, void* ctx)
{
    size_t threads = (size_t)(uintptr_t)user;
    if (grain == 0) grain = 1;
    sfpy_job job = {count, grain, count / grain + (count % grain != 0), fn, ctx, 0};
    if (threads > job.chunks) threads = job.chunks;
    pthread_t ids[SFPY_MAX_THREADS];
    size_t started = 0;
    for (size_t i = 1; i < threads && i < SFPY_MAX_THREADS; ++i) {
        if (pthread_create(&ids[started], NULL, sfpy_work, &job) != 0) break; /* fewer threads, same result */
        ++started;
    }
    sfpy_work(&job);
    for (size_t i = 0; i < started; ++i) pthread_join(ids[i], NULL);
}

sf_env sfpy_env(int threads)
{
    sf_env env = {0};
    if (threads > 1) {
        env.threads.parallel_for = sfpy_parallel_for;
        env.threads.user = (void*)(uintptr_t)(threads < SFPY_MAX_THREADS ? threads : SFPY_MAX_THREADS);
    }
    return env;
}

void sfpy_heatmap(const float* angles, size_t count, float* rgba)
{
    for (size_t i = 0; i < count; ++i) {
        sf_heatmap_color(angles[i], rgba + 4 * i);
        rgba[4 * i + 3] = 1.0f;
    }
}

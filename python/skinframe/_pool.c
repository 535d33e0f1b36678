/* The module's C helpers: sf_env.threads.parallel_for over POSIX threads, and the heatmap over an array.
 * Workers start on first use and stay (blocked on a condition variable) for the life of the process; a job wakes
 * as many as it asks for, and the caller works too. Chunks are taken from a shared counter and the library's
 * chunks write disjoint outputs, so its results are the same for every thread count. One job at a time: a call
 * while another Python thread's job runs, or from inside a chunk, runs serially. */
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

static struct {
    pthread_mutex_t lock, submit;
    pthread_cond_t wake, done;
    size_t workers;    /* started; worker i helps with a job when i < helpers */
    size_t generation; /* bumped per job */
    size_t helpers, busy;
    sfpy_job* job;
} g_pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
            0, 0, 0, 0, NULL};

static _Thread_local int tl_in_job;

static void sfpy_work(sfpy_job* job)
{
    for (;;) {
        size_t k = atomic_fetch_add(&job->next, 1);
        if (k >= job->chunks) return;
        size_t begin = k * job->grain;
        size_t end = job->count - begin < job->grain ? job->count : begin + job->grain;
        job->fn(job->ctx, begin, end);
    }
}

/* A worker started during job G has index >= every earlier job's helpers, so it skips those and takes G. */
static void* sfpy_worker(void* arg)
{
    size_t index = (size_t)(uintptr_t)arg, seen = 0;
    tl_in_job = 1;
    pthread_mutex_lock(&g_pool.lock);
    for (;;) {
        while (g_pool.generation == seen) pthread_cond_wait(&g_pool.wake, &g_pool.lock);
        seen = g_pool.generation;
        if (index >= g_pool.helpers) continue;
        sfpy_job* job = g_pool.job;
        pthread_mutex_unlock(&g_pool.lock);
        sfpy_work(job);
        pthread_mutex_lock(&g_pool.lock);
        if (--g_pool.busy == 0) pthread_cond_signal(&g_pool.done);
    }
    return NULL;
}

static void sfpy_parallel_for(void* user, size_t count, size_t grain, sf_range_fn* fn, void* ctx)
{
    size_t threads = (size_t)(uintptr_t)user;
    if (grain == 0) grain = 1;
    sfpy_job job = {count, grain, count / grain + (count % grain != 0), fn, ctx, 0};
    size_t helpers = (threads < job.chunks ? threads : job.chunks) - 1;
    if (helpers == 0 || tl_in_job || pthread_mutex_trylock(&g_pool.submit) != 0) {
        sfpy_work(&job);
        return;
    }
    pthread_mutex_lock(&g_pool.lock);
    while (g_pool.workers < helpers) {
        pthread_t id;
        if (pthread_create(&id, NULL, sfpy_worker, (void*)(uintptr_t)g_pool.workers) != 0) break;
        pthread_detach(id);
        ++g_pool.workers;
    }
    if (helpers > g_pool.workers) helpers = g_pool.workers; /* fewer threads, the same result */
    g_pool.job = &job;
    g_pool.helpers = helpers;
    g_pool.busy = helpers;
    ++g_pool.generation;
    pthread_cond_broadcast(&g_pool.wake);
    pthread_mutex_unlock(&g_pool.lock);
    tl_in_job = 1;
    sfpy_work(&job);
    tl_in_job = 0;
    pthread_mutex_lock(&g_pool.lock);
    while (g_pool.busy) pthread_cond_wait(&g_pool.done, &g_pool.lock);
    g_pool.helpers = 0;
    pthread_mutex_unlock(&g_pool.lock);
    pthread_mutex_unlock(&g_pool.submit);
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

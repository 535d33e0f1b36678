/* A pthread pool behind sf_env.threads.parallel_for. The caller and the workers take chunks
 * [k*grain, min((k+1)*grain, count)) from a shared counter; the chunks are the same for every thread
 * count and each writes its own outputs, so the library's results do not depend on the threads.
 * One pool per process (the command is one process); nested or concurrent calls run serially. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define POOL_MAX_THREADS 256

typedef struct pool_job {
    size_t count, grain, chunks;
    sf_range_fn* fn;
    void* ctx;
} pool_job;

typedef struct pool {
    pthread_mutex_t lock;
    pthread_cond_t wake;  /* workers: a new job (generation changed) or shutdown */
    pthread_cond_t done;  /* caller: every worker left the job */
    pthread_mutex_t submit; /* one job at a time */
    pthread_t workers[POOL_MAX_THREADS];
    size_t worker_count;
    size_t generation;
    size_t busy;          /* workers still inside the current job */
    bool stop;
    pool_job job;
    atomic_size_t next;   /* next chunk to take */
    bool started;
} pool;

/* The process's pool: the command starts it once from main and stops it before exit. */
static pool g_pool = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .wake = PTHREAD_COND_INITIALIZER,
    .done = PTHREAD_COND_INITIALIZER,
    .submit = PTHREAD_MUTEX_INITIALIZER,
};

static _Thread_local bool tl_in_job; /* a chunk calling parallel_for again runs it serially */

static void run_chunks(pool* p, const pool_job* job)
{
    for (;;) {
        size_t k = atomic_fetch_add(&p->next, 1);
        if (k >= job->chunks) return;
        size_t begin = k * job->grain;
        size_t end = job->count - begin < job->grain ? job->count : begin + job->grain;
        job->fn(job->ctx, begin, end);
    }
}

static void* worker_main(void* arg)
{
    pool* p = (pool*)arg;
    size_t seen = 0;
    tl_in_job = true;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stop && p->generation == seen) pthread_cond_wait(&p->wake, &p->lock);
        if (p->stop) break;
        seen = p->generation;
        pool_job job = p->job;
        pthread_mutex_unlock(&p->lock);
        run_chunks(p, &job);
        pthread_mutex_lock(&p->lock);
        if (--p->busy == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static void serial_for(size_t count, size_t grain, sf_range_fn* fn, void* ctx)
{
    for (size_t begin = 0; begin < count; begin += grain) {
        size_t end = count - begin < grain ? count : begin + grain;
        fn(ctx, begin, end);
    }
}

static void pool_parallel_for(void* user, size_t count, size_t grain, sf_range_fn* fn, void* ctx)
{
    pool* p = (pool*)user;
    if (count == 0) return;
    if (grain == 0) grain = 1;
    size_t chunks = count / grain + (count % grain != 0);
    if (chunks < 2 || p->worker_count == 0 || tl_in_job || pthread_mutex_trylock(&p->submit) != 0) {
        serial_for(count, grain, fn, ctx);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->job = (pool_job){count, grain, chunks, fn, ctx};
    atomic_store(&p->next, 0);
    p->busy = p->worker_count;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);

    tl_in_job = true;
    run_chunks(p, &p->job);
    tl_in_job = false;

    pthread_mutex_lock(&p->lock);
    while (p->busy > 0) pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
    pthread_mutex_unlock(&p->submit);
}

size_t cli_core_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (size_t)n : 1;
}

int cli_pool_start(size_t threads)
{
    pool* p = &g_pool;
    if (p->started) cli_env_shutdown();
    if (threads == 0) threads = cli_core_count();
    if (threads > POOL_MAX_THREADS) threads = POOL_MAX_THREADS;
    p->stop = false;
    p->generation = 0;
    p->worker_count = 0;
    p->started = true;
    /* The calling thread works too, so threads - 1 workers. */
    for (size_t i = 0; i + 1 < threads; ++i) {
        if (pthread_create(&p->workers[i], NULL, worker_main, p) != 0) return -1;
        p->worker_count++;
    }
    return 0;
}

size_t cli_pool_threads(void) { return g_pool.worker_count + 1; }

sf_env cli_env(void)
{
    sf_env env;
    memset(&env, 0, sizeof env);
    if (g_pool.worker_count > 0) {
        env.threads.parallel_for = pool_parallel_for;
        env.threads.user = &g_pool;
    }
    return env;
}

void cli_env_shutdown(void)
{
    pool* p = &g_pool;
    if (!p->started) return;
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (size_t i = 0; i < p->worker_count; ++i) pthread_join(p->workers[i], NULL);
    p->worker_count = 0;
    p->started = false;
}

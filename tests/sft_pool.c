/* The tests' parallel loops (sft_pool.h). */
#define _POSIX_C_SOURCE 200809L
#include "sft_pool.h"

#include <string.h>
#ifndef __wasi__
#include <pthread.h>
#endif

typedef struct thread_arg {
    size_t count, grain, first, step;
    sf_range_fn* fn;
    void* ctx;
} thread_arg;

static void* thread_main(void* p)
{
    thread_arg* a = (thread_arg*)p;
    size_t chunks = (a->count + a->grain - 1) / a->grain;
    for (size_t k = a->first; k < chunks; k += a->step) {
        size_t b = k * a->grain;
        a->fn(a->ctx, b, a->count - b < a->grain ? a->count : b + a->grain);
    }
    return NULL;
}

void sft_pool_parallel_for(void* user, size_t count, size_t grain, sf_range_fn* fn, void* ctx)
{
    const sft_pool* fp = (const sft_pool*)user;
    if (fp->mode == 3) grain = grain < 7 ? grain : 7;
    size_t chunks = (count + grain - 1) / grain;
    if (fp->mode == 0 || fp->mode == 3) {
        for (size_t k = chunks; k-- > 0;) fn(ctx, k * grain, count - k * grain < grain ? count : (k + 1) * grain);
    } else if (fp->mode == 1) {
        for (size_t pass = 0; pass < 2; ++pass)
            for (size_t k = 1 - pass; k < chunks; k += 2)
                fn(ctx, k * grain, count - k * grain < grain ? count : (k + 1) * grain);
    } else {
        thread_arg args[8];
        int T = fp->threads < 1 ? 1 : fp->threads > 8 ? 8 : fp->threads;
#ifdef __wasi__
        /* WASI without threads: each thread's chunks in turn, as where a thread cannot be created */
        for (int i = 0; i < T; ++i) {
            args[i] = (thread_arg){count, grain, (size_t)i, (size_t)T, fn, ctx};
            thread_main(&args[i]);
        }
#else
        pthread_t th[8];
        for (int i = 0; i < T; ++i) {
            args[i] = (thread_arg){count, grain, (size_t)i, (size_t)T, fn, ctx};
            if (pthread_create(&th[i], NULL, thread_main, &args[i]) != 0) thread_main(&args[i]), th[i] = 0;
        }
        for (int i = 0; i < T; ++i)
            if (th[i]) pthread_join(th[i], NULL);
#endif
    }
}

sf_env sft_pool_env(const sft_pool* pool)
{
    sf_env env;
    memset(&env, 0, sizeof env);
    env.threads.parallel_for = sft_pool_parallel_for;
    env.threads.user = (void*)pool;
    return env;
}

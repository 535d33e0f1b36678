/* Parallel loops for the tests that check results do not depend on how the work is split (sf_env.threads):
 * chunks in reverse, odd chunks then even, real threads, and ranges smaller than the grain asked for. */
#ifndef SFT_POOL_H
#define SFT_POOL_H

#include "skinframe.h"

typedef struct sft_pool {
    int mode;    /* 0 reverse chunk order, 1 odd chunks then even, 2 real threads, 3 ranges of at most 7 reversed */
    int threads; /* mode 2: 1 to 8 */
} sft_pool;

/* sf_env.threads.parallel_for with user = a const sft_pool*. */
void sft_pool_parallel_for(void* user, size_t count, size_t grain, sf_range_fn* fn, void* ctx);
/* An environment whose parallel loop is pool's (malloc, no log); pool must outlive its use. */
sf_env sft_pool_env(const sft_pool* pool);

#endif

/* The module's own C beside the library (_pool.c), declared for _pool.c and the cffi extension. */
#ifndef SKINFRAME_PY_POOL_H
#define SKINFRAME_PY_POOL_H

#include <skinframe.h>

/* An environment whose parallel_for runs on `threads` POSIX threads (1 or less: serial loops). */
sf_env sfpy_env(int threads);
/* rgba: 4 floats per angle, the heatmap's colour with alpha 1. */
void sfpy_heatmap(const float* angles, size_t count, float* rgba);

#endif

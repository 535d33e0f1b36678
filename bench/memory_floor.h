/* The memory floor of bench_skin: a loop that moves the bytes a per-vertex pass must move and does nothing else,
 * so that a pass's time can be read against this core's bandwidth in the same run. */
#ifndef BENCH_MEMORY_FLOOR_H
#define BENCH_MEMORY_FLOOR_H

#include <stddef.h>

/* Reads in_floats * n floats of `in` once and writes out_floats * n of `out` once (both above 0), in blocks of 16
 * vertices as the fast paths do: each output float is the sum of the block's input floats that fold onto it (where
 * out_floats > in_floats, the one input float it folds onto). n is rounded up to a multiple of 16 (the arrays must
 * hold that many vertices). */
void memory_floor(size_t n, size_t in_floats, const float* in, size_t out_floats, float* out);

#endif

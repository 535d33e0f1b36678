/* The memory floor loop (memory_floor.h). */
#include "memory_floor.h"

#define BLOCK 16

void memory_floor(size_t n, size_t in_floats, const float* in, size_t out_floats, float* out)
{
    size_t I = in_floats * BLOCK, O = out_floats * BLOCK;
    for (size_t b = 0; b < (n + BLOCK - 1) / BLOCK; ++b) {
        const float* a = in + b * I;
        float* o = out + b * O;
        if (O > I) { /* more written than read (quantized inputs): the block's input folds onto every output */
            for (size_t base = 0; base < O; base += I) {
                size_t len = O - base < I ? O - base : I;
                for (size_t k = 0; k < len; ++k) o[base + k] = a[k];
            }
            continue;
        }
        for (size_t k = 0; k < O; ++k) o[k] = a[k];
        for (size_t base = O; base < I; base += O) {
            size_t len = I - base < O ? I - base : O;
            for (size_t k = 0; k < len; ++k) o[k] += a[base + k];
        }
    }
}

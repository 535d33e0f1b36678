// Whether two device buffers hold the same bits per instance: the evaluation reuses the reference's MikkTSpace
// tangents for recompute-fused's row only where its inputs (positions, determinants, normals) are the reference's.
#include "kernels_common.cuh"

namespace {

__global__ void k_bits_differ(size_t per, size_t total, const unsigned* a, const unsigned* b, unsigned* differ,
                              unsigned* any)
{
    for (size_t k = (size_t)blockIdx.x * SFC_THREADS + threadIdx.x; k < total; k += (size_t)gridDim.x * SFC_THREADS)
        if (a[k] != b[k]) {
            differ[k / per] = 1u;
            *any = 1u;
        }
}

} // namespace

sf_result sfc_bits_differ(uint32_t count, size_t floats, const float* a, const float* b, unsigned* differ,
                          unsigned* any, cudaStream_t s, sf_error* err)
{
    size_t total = floats * count, blocks = (total + SFC_THREADS - 1) / SFC_THREADS;
    if (total == 0) return SF_OK;
    k_bits_differ<<<(unsigned)(blocks < 4096 ? blocks : 4096), SFC_THREADS, 0, s>>>(
        floats, total, reinterpret_cast<const unsigned*>(a), reinterpret_cast<const unsigned*>(b), differ, any);
    SFC_LAUNCHED("k_bits_differ", err);
    return SF_OK;
}

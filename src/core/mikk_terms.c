/* The corner terms of MikkTSpace's sums by the scalar kernels, and the choice of instruction set
 * (mikk_terms.h). */
#include "mikk_terms.h"

#include "sf_internal.h"
#include "sf_kernels.h"

void sfi_mikk_term(const sfi_mikk_terms_job* job, size_t corner)
{
    size_t f = corner / 3, c = corner % 3;
    const uint32_t* tri = job->idx + 3 * f;
    const float* P = job->P;
    uint32_t vp = tri[(c + 2) % 3], v = tri[c], vn = tri[(c + 1) % 3];
    sfk_mikk_corner_product(job->N + 3 * (size_t)v, job->face_os + 3 * f, P + 3 * (size_t)vp, P + 3 * (size_t)v,
                            P + 3 * (size_t)vn, job->terms + 3 * corner);
}

void sfi_mikk_terms_scalar(const sfi_mikk_terms_job* job, size_t begin, size_t end)
{
    for (size_t c = begin; c < end; ++c)
        if (!(job->flags[c / 3] & SFK_MIKK_ANY)) sfi_mikk_term(job, c);
}

void sfi_mikk_terms(int level, const sfi_mikk_terms_job* job, size_t begin, size_t end)
{
#if defined(__wasm_simd128__)
    if (level >= SFI_SIMD_WASM128) {
        sfi_mikk_terms_wasm(job, begin, end);
        return;
    }
#else
    if (level >= SFI_SIMD_AVX512) {
        sfi_mikk_terms_avx512(job, begin, end);
        return;
    }
    if (level == SFI_SIMD_AVX2) {
        sfi_mikk_terms_avx2(job, begin, end);
        return;
    }
    if (level == SFI_SIMD_SSE2) {
        sfi_mikk_terms_sse2(job, begin, end);
        return;
    }
#endif
    sfi_mikk_terms_scalar(job, begin, end);
}

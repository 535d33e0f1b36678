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
    const float* nc = job->N + 3 * (size_t)v;
    float os[3], e1[3], e2[3], v1[3], v2[3];
    sfk_mikk_project(nc, job->face_os + 3 * f, os);
    sfk_sub(P + 3 * (size_t)vp, P + 3 * (size_t)v, e1);
    sfk_sub(P + 3 * (size_t)vn, P + 3 * (size_t)v, e2);
    sfk_mikk_project(nc, e1, v1);
    sfk_mikk_project(nc, e2, v2);
    float cosv = sfk_dot(v1, v2);
    cosv = cosv > 1.0f ? 1.0f : (cosv < -1.0f ? -1.0f : cosv);
    float a = sfk_acos_ieee(cosv), *t = job->terms + 3 * corner;
    /* sfk_madd's products, before they are added */
    t[0] = os[0] * a;
    t[1] = os[1] * a;
    t[2] = os[2] * a;
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

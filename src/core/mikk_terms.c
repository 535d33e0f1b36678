/* The corner terms of MikkTSpace's sums by the scalar kernels, the choice of instruction set, and the groups'
 * sums from the terms (mikk_terms.h). */
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

void sfi_mikk_group_tangents_terms(const uint8_t* flags, const float* face_os, const float* face_ot,
                                   const uint32_t* corners, size_t k, const float* n, int orient, uint32_t* members,
                                   float* proj, const float* terms, float* out)
{
    for (size_t i = 0; i < k; ++i) {
        size_t f = corners[i] / 3;
        sfk_mikk_project(n, face_os + 3 * f, proj + 6 * i);
        sfk_mikk_project(n, face_ot + 3 * f, proj + 6 * i + 3);
    }
    float w = orient ? 1.0f : -1.0f;
    int whole_only = sfk_mikk_all_compatible(flags, corners, proj, k);
    float whole[3] = {0.0f, 0.0f, 0.0f};
    int have_whole = 0;
    for (size_t i = 0; i < k; ++i) {
        size_t count = 0;
        if (!whole_only) {
            uint8_t fi = flags[corners[i] / 3];
            for (size_t j = 0; j < k; ++j) {
                int any = ((fi | flags[corners[j] / 3]) & SFK_MIKK_ANY) != 0;
                if (any || i == j || sfk_mikk_compatible(proj + 6 * i, proj + 6 * j)) members[count++] = (uint32_t)j;
            }
        }
        int whole_group = whole_only || count == k;
        float t[3] = {0.0f, 0.0f, 0.0f};
        if (!whole_group || !have_whole) {
            /* sfk_mikk_eval_tangent's sum in its order: the members ascending, usable triangles only */
            size_t m = whole_group ? k : count;
            for (size_t j = 0; j < m; ++j) {
                size_t corner = corners[whole_group ? j : members[j]];
                if (flags[corner / 3] & SFK_MIKK_ANY) continue;
                const float* a = terms + 3 * corner;
                t[0] += a[0];
                t[1] += a[1];
                t[2] += a[2];
            }
            sfk_mikk_normalize(t);
            if (whole_group) whole[0] = t[0], whole[1] = t[1], whole[2] = t[2], have_whole = 1;
        } else {
            t[0] = whole[0], t[1] = whole[1], t[2] = whole[2];
        }
        float* o = out + 4 * (size_t)corners[i];
        o[0] = t[0], o[1] = t[1], o[2] = t[2], o[3] = w;
    }
}

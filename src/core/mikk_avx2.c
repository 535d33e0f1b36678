/* The corner terms of MikkTSpace's sums with AVX2: 8 float lanes, the arc cosine in 4 double lanes
 * (mikk_terms_body.h). Compiled for AVX2 by a target pragma (no build flag) and called only where cpuid reports
 * it (simd.c); contraction is off so that no later target's FMA could change a lane's bits. */
#include "mikk_terms.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#pragma STDC FP_CONTRACT OFF
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#pragma GCC optimize("fp-contract=off")
#endif
#include <immintrin.h>

#define MT_W 8
#define MT_ENTRY sfi_mikk_terms_avx2
typedef __m256 mt_vf;
typedef __m256d mt_vd;
typedef int32_t mt_vi __attribute__((vector_size(32)));
typedef int64_t mt_vl __attribute__((vector_size(32)));
typedef float mt_vh __attribute__((vector_size(16)));
static inline mt_vf mt_sqrtf(mt_vf x) { return _mm256_sqrt_ps(x); }
static inline mt_vd mt_sqrtd(mt_vd x) { return _mm256_sqrt_pd(x); }
#include "mikk_terms_body.h"

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
void sfi_mikk_terms_avx2(const sfi_mikk_terms_job* job, size_t begin, size_t end)
{
    sfi_mikk_terms_scalar(job, begin, end); /* never called: sfi_simd_level_cpu stays below AVX2 here */
}
#endif

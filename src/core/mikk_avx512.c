/* The corner terms of MikkTSpace's sums with AVX-512 (F and DQ): 16 float lanes, the arc cosine in 8 double lanes
 * (mikk_terms_body.h). Compiled for AVX-512 by a target pragma (no build flag) and called only where cpuid reports
 * it (simd.c); AVX-512 implies FMA, so contraction is switched off: each lane stays the scalar's bits. */
#include "mikk_terms.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512dq"))), apply_to = function)
#pragma STDC FP_CONTRACT OFF
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq")
#pragma GCC optimize("fp-contract=off")
#endif
#include <immintrin.h>

#define MT_W 16
#define MT_ENTRY sfi_mikk_terms_avx512
typedef __m512 mt_vf;
typedef __m512d mt_vd;
typedef int32_t mt_vi __attribute__((vector_size(64)));
typedef int64_t mt_vl __attribute__((vector_size(64)));
typedef float mt_vh __attribute__((vector_size(32)));
static inline mt_vf mt_sqrtf(mt_vf x) { return _mm512_sqrt_ps(x); }
static inline mt_vd mt_sqrtd(mt_vd x) { return _mm512_sqrt_pd(x); }
#include "mikk_terms_body.h"

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
void sfi_mikk_terms_avx512(const sfi_mikk_terms_job* job, size_t begin, size_t end)
{
    sfi_mikk_terms_scalar(job, begin, end); /* never called: sfi_simd_level_cpu stays below AVX-512 here */
}
#endif

/* The fast angles with AVX2: 4 vertices per step as one register of 4 doubles, the table read by a gather
 * (angles_body.h). Compiled for AVX2 by a target pragma (no build flag), called only where cpuid reports AVX2
 * (simd.c); without FMA, so nothing is contracted into a fused multiply-add. */
#include "angles_simd.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
#include <immintrin.h>

#define AN_ENTRY sfi_angles_avx2
#define AN_D __m256d

static inline __m256d an_add(__m256d a, __m256d b) { return _mm256_add_pd(a, b); }
static inline __m256d an_sub(__m256d a, __m256d b) { return _mm256_sub_pd(a, b); }
static inline __m256d an_mul(__m256d a, __m256d b) { return _mm256_mul_pd(a, b); }
static inline __m256d an_div(__m256d a, __m256d b) { return _mm256_div_pd(a, b); }
static inline __m256d an_and(__m256d a, __m256d b) { return _mm256_and_pd(a, b); }
static inline __m256d an_andnot(__m256d a, __m256d b) { return _mm256_andnot_pd(a, b); }
static inline __m256d an_or(__m256d a, __m256d b) { return _mm256_or_pd(a, b); }
static inline __m256d an_gt(__m256d a, __m256d b) { return _mm256_cmp_pd(a, b, _CMP_GT_OQ); }
static inline __m256d an_ge(__m256d a, __m256d b) { return _mm256_cmp_pd(a, b, _CMP_GE_OQ); }
static inline __m256d an_lt(__m256d a, __m256d b) { return _mm256_cmp_pd(a, b, _CMP_LT_OQ); }
static inline __m256d an_set1(double d) { return _mm256_set1_pd(d); }
static inline __m256d an_sqrt(__m256d a) { return _mm256_sqrt_pd(a); }
static inline int an_mask(__m256d a) { return _mm256_movemask_pd(a); }
static inline __m256d an_cvt(__m128 f) { return _mm256_cvtps_pd(f); }
static inline __m128 an_to_float(__m256d a) { return _mm256_cvtpd_ps(a); }
static inline void an_store(double* out, __m256d a) { _mm256_storeu_pd(out, a); }
static inline __m256d an_iota(double v) { return _mm256_add_pd(_mm256_set1_pd(v), _mm256_set_pd(3.0, 2.0, 1.0, 0.0)); }

static inline void an_eighths(__m256d x, const double* table, __m256d* k, __m256d* at)
{
    __m128i ki = _mm256_cvttpd_epi32(x);
    *k = _mm256_cvtepi32_pd(ki);
    *at = _mm256_i32gather_pd(table, ki, 8);
}

#include "angles_body.h"

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
size_t sfi_angles_avx2(const sfi_angle_job* job, size_t begin, size_t end, sfi_angle_chunk* c)
{
    (void)job, (void)begin, (void)end, (void)c; /* never called: sfi_simd_level stays below AVX2 here */
    return 0;
}
#endif

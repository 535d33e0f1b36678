/* The corner terms of MikkTSpace's sums with SSE2 (every x86-64 CPU): 4 float lanes, the arc cosine in 2 double
 * lanes (mikk_terms_body.h). SSE2 has no fused multiply-add to contract into. */
#include "mikk_terms.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>

#define MT_W 4
#define MT_ENTRY sfi_mikk_terms_sse2
typedef __m128 mt_vf;
typedef __m128d mt_vd;
typedef int32_t mt_vi __attribute__((vector_size(16)));
typedef int64_t mt_vl __attribute__((vector_size(16)));
typedef float mt_vh __attribute__((vector_size(8)));
static inline mt_vf mt_sqrtf(mt_vf x) { return _mm_sqrt_ps(x); }
static inline mt_vd mt_sqrtd(mt_vd x) { return _mm_sqrt_pd(x); }
#include "mikk_terms_body.h"

#else
void sfi_mikk_terms_sse2(const sfi_mikk_terms_job* job, size_t begin, size_t end)
{
    sfi_mikk_terms_scalar(job, begin, end); /* never called: sfi_simd_level_cpu is scalar here */
}
#endif

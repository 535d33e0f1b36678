/* The fast angles with SSE2 (every x86-64 CPU): 4 vertices per step as two pairs of doubles (angles_body.h). */
#include "angles_simd.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>

#define AN_ENTRY sfi_angles_sse2

typedef struct an_d {
    __m128d lo, hi; /* lanes 0-1, 2-3 */
} an_d;
#define AN_D an_d

#define AN_OP2(name, intrinsic) \
    static inline an_d name(an_d a, an_d b) { return (an_d){intrinsic(a.lo, b.lo), intrinsic(a.hi, b.hi)}; }
AN_OP2(an_add, _mm_add_pd)
AN_OP2(an_sub, _mm_sub_pd)
AN_OP2(an_mul, _mm_mul_pd)
AN_OP2(an_div, _mm_div_pd)
AN_OP2(an_and, _mm_and_pd)
AN_OP2(an_andnot, _mm_andnot_pd)
AN_OP2(an_or, _mm_or_pd)
AN_OP2(an_gt, _mm_cmpgt_pd)
AN_OP2(an_ge, _mm_cmpge_pd)
AN_OP2(an_lt, _mm_cmplt_pd)
#undef AN_OP2

static inline an_d an_set1(double d) { return (an_d){_mm_set1_pd(d), _mm_set1_pd(d)}; }
static inline an_d an_sqrt(an_d a) { return (an_d){_mm_sqrt_pd(a.lo), _mm_sqrt_pd(a.hi)}; }
static inline int an_mask(an_d a) { return _mm_movemask_pd(a.lo) | _mm_movemask_pd(a.hi) << 2; }
static inline an_d an_cvt(__m128 f) { return (an_d){_mm_cvtps_pd(f), _mm_cvtps_pd(_mm_movehl_ps(f, f))}; }
static inline __m128 an_to_float(an_d a) { return _mm_movelh_ps(_mm_cvtpd_ps(a.lo), _mm_cvtpd_ps(a.hi)); }
static inline void an_store(double* out, an_d a) { _mm_storeu_pd(out, a.lo), _mm_storeu_pd(out + 2, a.hi); }
static inline an_d an_iota(double v) { return (an_d){_mm_set_pd(v + 1.0, v), _mm_set_pd(v + 3.0, v + 2.0)}; }

static inline void an_eighths(an_d x, const double* table, an_d* k, an_d* at)
{
    __m128i k01 = _mm_cvttpd_epi32(x.lo), k23 = _mm_cvttpd_epi32(x.hi);
    *k = (an_d){_mm_cvtepi32_pd(k01), _mm_cvtepi32_pd(k23)};
    int i0 = _mm_cvtsi128_si32(k01), i1 = _mm_cvtsi128_si32(_mm_srli_si128(k01, 4));
    int i2 = _mm_cvtsi128_si32(k23), i3 = _mm_cvtsi128_si32(_mm_srli_si128(k23, 4));
    *at = (an_d){_mm_set_pd(table[i1], table[i0]), _mm_set_pd(table[i3], table[i2])};
}

#include "angles_body.h"

#else
size_t sfi_angles_sse2(const sfi_angle_job* job, size_t begin, size_t end, sfi_angle_chunk* c)
{
    (void)job, (void)begin, (void)end, (void)c; /* never called: sfi_simd_level is scalar here */
    return 0;
}
#endif

/* The fused per-vertex pass and the jacobian with SSE2 (every x86-64 CPU): 4 vertices per step (skin_body.h,
 * jacobian_body.h). */
#include "skin_simd.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>

#define SK_W 4
#define SK_V __m128
#define SK_ENTRY sfi_skin_blocks_sse2

static inline __m128 sk_load(const float* p) { return _mm_loadu_ps(p); }
static inline void sk_store(float* p, __m128 v) { _mm_storeu_ps(p, v); }
static inline __m128 sk_set1(float f) { return _mm_set1_ps(f); }
static inline __m128 sk_add(__m128 a, __m128 b) { return _mm_add_ps(a, b); }
static inline __m128 sk_sub(__m128 a, __m128 b) { return _mm_sub_ps(a, b); }
static inline __m128 sk_mul(__m128 a, __m128 b) { return _mm_mul_ps(a, b); }
static inline __m128 sk_div(__m128 a, __m128 b) { return _mm_div_ps(a, b); }
static inline __m128 sk_sqrt(__m128 a) { return _mm_sqrt_ps(a); }
static inline __m128 sk_and(__m128 a, __m128 b) { return _mm_and_ps(a, b); }
static inline __m128 sk_andnot(__m128 a, __m128 b) { return _mm_andnot_ps(a, b); }
static inline __m128 sk_or(__m128 a, __m128 b) { return _mm_or_ps(a, b); }
static inline __m128 sk_lt(__m128 a, __m128 b) { return _mm_cmplt_ps(a, b); }
static inline __m128 sk_ge(__m128 a, __m128 b) { return _mm_cmpge_ps(a, b); }
static inline __m128 sk_gt(__m128 a, __m128 b) { return _mm_cmpgt_ps(a, b); }
static inline __m128 sk_eq(__m128 a, __m128 b) { return _mm_cmpeq_ps(a, b); }
static inline int sk_mask(__m128 a) { return _mm_movemask_ps(a); }
static inline __m128 sk_from_bits(unsigned bits)
{
    const __m128i b = _mm_setr_epi32(1, 2, 4, 8);
    return _mm_castsi128_ps(_mm_cmpeq_epi32(_mm_and_si128(_mm_set1_epi32((int)bits), b), b));
}

/* Four lanes' 3 x 4 floats to 12 rows of 4 lanes. */
static inline void sk_transpose12(__m128 a[4][3], __m128* m)
{
    for (int r = 0; r < 3; ++r) {
        __m128 r0 = a[0][r], r1 = a[1][r], r2 = a[2][r], r3 = a[3][r];
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        m[4 * r] = r0, m[4 * r + 1] = r1, m[4 * r + 2] = r2, m[4 * r + 3] = r3;
    }
}

/* Four lanes' blended matrices (3 rows of 4 floats each per lane), transposed to 12 rows of 4 lanes. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline void sk_blend(const sfi_skin_job* job, size_t block, int sub, uint32_t K, __m128* m)
{
    const uint16_t* J = job->lanes->joints + block * K * SFI_LANES + (size_t)sub * 4;
    const float* W = job->lanes->weights + block * K * SFI_LANES + (size_t)sub * 4;
    __m128 a[4][3];
    for (int l = 0; l < 4; ++l) {
        __m128 a0 = _mm_setzero_ps(), a1 = a0, a2 = a0;
        for (uint32_t i = 0; i < K; ++i) {
            const float* b = job->palette + 16 * (size_t)J[i * SFI_LANES + l];
            __m128 w = _mm_set1_ps(W[i * SFI_LANES + l]);
            a0 = _mm_add_ps(a0, _mm_mul_ps(w, _mm_loadu_ps(b)));
            a1 = _mm_add_ps(a1, _mm_mul_ps(w, _mm_loadu_ps(b + 4)));
            a2 = _mm_add_ps(a2, _mm_mul_ps(w, _mm_loadu_ps(b + 8)));
        }
        a[l][0] = a0, a[l][1] = a1, a[l][2] = a2;
    }
    sk_transpose12(a, m);
}

/* Four lanes' 12-float records (a bone of the palette, a blended matrix) as 12 rows; each record is read whole. */
static inline void sk_gather(const float* const rec[4], __m128* m)
{
    __m128 a[4][3];
    for (int l = 0; l < 4; ++l)
        for (int r = 0; r < 3; ++r) a[l][r] = _mm_loadu_ps(rec[l] + 4 * r);
    sk_transpose12(a, m);
}

/* x y z rows of 4 vertices to x0 y0 z0 x1 | y1 z1 x2 y2 | z2 x3 y3 z3. */
/* 12 rows of 4 lanes to the lanes' 12-float records at out, out + 12, ... (sk_transpose12's inverse). */
#define SK_HAS_STORE12 1
static inline void sk_store12(float* out, const __m128* m)
{
    for (int r = 0; r < 3; ++r) {
        __m128 r0 = m[4 * r], r1 = m[4 * r + 1], r2 = m[4 * r + 2], r3 = m[4 * r + 3];
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        _mm_storeu_ps(out + 4 * r, r0), _mm_storeu_ps(out + 12 + 4 * r, r1);
        _mm_storeu_ps(out + 24 + 4 * r, r2), _mm_storeu_ps(out + 36 + 4 * r, r3);
    }
}

SK_INLINE void sk_store3(float* out, __m128 x, __m128 y, __m128 z)
{
    __m128 xy_lo = _mm_unpacklo_ps(x, y), xy_hi = _mm_unpackhi_ps(x, y); /* x0 y0 x1 y1, x2 y2 x3 y3 */
    __m128 t0 = _mm_shuffle_ps(z, xy_lo, _MM_SHUFFLE(3, 2, 0, 0));          /* z0 z0 x1 y1 */
    __m128 t1 = _mm_shuffle_ps(xy_lo, z, _MM_SHUFFLE(1, 1, 3, 3));          /* y1 y1 z1 z1 */
    __m128 t2 = _mm_shuffle_ps(z, xy_hi, _MM_SHUFFLE(3, 2, 3, 2));          /* z2 z3 x3 y3 */
    _mm_storeu_ps(out, _mm_shuffle_ps(xy_lo, t0, _MM_SHUFFLE(2, 0, 1, 0)));
    _mm_storeu_ps(out + 4, _mm_shuffle_ps(t1, xy_hi, _MM_SHUFFLE(1, 0, 2, 0)));
    _mm_storeu_ps(out + 8, _mm_shuffle_ps(t2, t2, _MM_SHUFFLE(1, 3, 2, 0)));
}

SK_INLINE void sk_store4(float* out, __m128 x, __m128 y, __m128 z, __m128 w)
{
    _MM_TRANSPOSE4_PS(x, y, z, w);
    _mm_storeu_ps(out, x);
    _mm_storeu_ps(out + 4, y);
    _mm_storeu_ps(out + 8, z);
    _mm_storeu_ps(out + 12, w);
}

#include "skin_body.h"
#define SJ_ENTRY sfi_jacobian_range_sse2
#include "jacobian_body.h"
#define SJF_ENTRY sfi_jacobian_fan_range_sse2
#include "jacobian_fan_body.h"
/* quantized streams (quant_body.h): SK_W int32 to float, exact below 2^24 */
static inline __m128 sk_cvt(const int32_t* c) { return _mm_cvtepi32_ps(_mm_loadu_si128((const __m128i*)(const void*)c)); }
/* 4 vertices' 16-bit x y z w at a stride of 8: their even 32-bit words (x y) and odd ones (z w), each split into
 * its two halves */
#define SQ_WIDE 1
static inline __m128 sq_half(__m128i x, int high, int sgn)
{
    __m128i h = high ? (sgn ? _mm_srai_epi32(x, 16) : _mm_srli_epi32(x, 16))
                     : (sgn ? _mm_srai_epi32(_mm_slli_epi32(x, 16), 16) : _mm_and_si128(x, _mm_set1_epi32(0xffff)));
    return _mm_cvtepi32_ps(h);
}

static inline void sq_rows16(const uint8_t* p, int sgn, __m128 r[4])
{
    __m128 a = _mm_castsi128_ps(_mm_loadu_si128((const __m128i*)(const void*)p));
    __m128 b = _mm_castsi128_ps(_mm_loadu_si128((const __m128i*)(const void*)(p + 16)));
    __m128i xy = _mm_castps_si128(_mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
    __m128i zw = _mm_castps_si128(_mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
    r[0] = sq_half(xy, 0, sgn), r[1] = sq_half(xy, 1, sgn), r[2] = sq_half(zw, 0, sgn), r[3] = sq_half(zw, 1, sgn);
}

/* 4 vertices' four unsigned bytes at a stride of 4 */
static inline void sq_rows8(const uint8_t* p, __m128 r[4])
{
    __m128i a = _mm_loadu_si128((const __m128i*)(const void*)p), ff = _mm_set1_epi32(0xff);
    r[0] = _mm_cvtepi32_ps(_mm_and_si128(a, ff));
    r[1] = _mm_cvtepi32_ps(_mm_and_si128(_mm_srli_epi32(a, 8), ff));
    r[2] = _mm_cvtepi32_ps(_mm_and_si128(_mm_srli_epi32(a, 16), ff));
    r[3] = _mm_cvtepi32_ps(_mm_srli_epi32(a, 24));
}
#define SQ_ENTRY sfi_quant_range_sse2
#include "quant_body.h"

#else
void sfi_skin_blocks_sse2(const sfi_skin_job* job, size_t b0, size_t b1, sfi_skin_counts* counts)
{
    (void)job, (void)b0, (void)b1, (void)counts; /* never called: sfi_simd_level is scalar here */
}

void sfi_jacobian_range_sse2(const sfi_jacobian_job* job, size_t begin, size_t end, sfi_skin_counts* counts)
{
    (void)job, (void)begin, (void)end, (void)counts; /* never called, as above */
}

void sfi_jacobian_fan_range_sse2(const sfi_jacobian_job* job, size_t begin, size_t end, sfi_skin_counts* counts)
{
    (void)job, (void)begin, (void)end, (void)counts; /* never called, as above */
}

size_t sfi_quant_range_sse2(const sfi_quant_job* job, size_t begin, size_t end)
{
    (void)job, (void)begin, (void)end; /* never called, as above */
    return SIZE_MAX;
}
#endif

/* The fused per-vertex pass and the jacobian with AVX2: 8 vertices per step (skin_body.h, jacobian_body.h). The
 * file's functions are compiled for AVX2 by a target pragma (no build flag: compiling the core files by hand gives
 * the same library), and called only where cpuid reports AVX2 (simd.c). AVX2 without FMA: nothing can be
 * contracted into a fused multiply-add. */
#include "skin_simd.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
#include <immintrin.h>

#define SK_W 8
#define SK_V __m256
#define SK_ENTRY sfi_skin_blocks_avx2

static inline __m256 sk_load(const float* p) { return _mm256_loadu_ps(p); }
static inline void sk_store(float* p, __m256 v) { _mm256_storeu_ps(p, v); }
static inline __m256 sk_set1(float f) { return _mm256_set1_ps(f); }
static inline __m256 sk_add(__m256 a, __m256 b) { return _mm256_add_ps(a, b); }
static inline __m256 sk_sub(__m256 a, __m256 b) { return _mm256_sub_ps(a, b); }
static inline __m256 sk_mul(__m256 a, __m256 b) { return _mm256_mul_ps(a, b); }
static inline __m256 sk_div(__m256 a, __m256 b) { return _mm256_div_ps(a, b); }
static inline __m256 sk_sqrt(__m256 a) { return _mm256_sqrt_ps(a); }
static inline __m256 sk_and(__m256 a, __m256 b) { return _mm256_and_ps(a, b); }
static inline __m256 sk_andnot(__m256 a, __m256 b) { return _mm256_andnot_ps(a, b); }
static inline __m256 sk_or(__m256 a, __m256 b) { return _mm256_or_ps(a, b); }
static inline __m256 sk_lt(__m256 a, __m256 b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
static inline __m256 sk_ge(__m256 a, __m256 b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
static inline __m256 sk_gt(__m256 a, __m256 b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
static inline __m256 sk_eq(__m256 a, __m256 b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
static inline int sk_mask(__m256 a) { return _mm256_movemask_ps(a); }
static inline __m256 sk_from_bits(unsigned bits)
{
    const __m256i b = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    return _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)bits), b), b));
}

/* Eight lanes' 12 floats (0-7 in lo, 8-11 in hi) to 12 rows of 8 lanes. */
static inline void sk_transpose12(const __m256 lo[8], const __m128 hi[8], __m256* m)
{
    /* 8 x 8 transpose of lo: rows = lanes, to rows = elements 0..7 */
    __m256 t0 = _mm256_unpacklo_ps(lo[0], lo[1]), t1 = _mm256_unpackhi_ps(lo[0], lo[1]);
    __m256 t2 = _mm256_unpacklo_ps(lo[2], lo[3]), t3 = _mm256_unpackhi_ps(lo[2], lo[3]);
    __m256 t4 = _mm256_unpacklo_ps(lo[4], lo[5]), t5 = _mm256_unpackhi_ps(lo[4], lo[5]);
    __m256 t6 = _mm256_unpacklo_ps(lo[6], lo[7]), t7 = _mm256_unpackhi_ps(lo[6], lo[7]);
    __m256 s0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)), s1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 s2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)), s3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 s4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0)), s5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 s6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0)), s7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
    m[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
    m[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
    m[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
    m[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
    m[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
    m[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
    m[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
    m[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
    /* 4 x 8 of hi: two 4 x 4 transposes, lanes 0-3 low, 4-7 high */
    __m128 a0 = hi[0], a1 = hi[1], a2 = hi[2], a3 = hi[3], b0 = hi[4], b1 = hi[5], b2 = hi[6], b3 = hi[7];
    _MM_TRANSPOSE4_PS(a0, a1, a2, a3);
    _MM_TRANSPOSE4_PS(b0, b1, b2, b3);
    m[8] = _mm256_insertf128_ps(_mm256_castps128_ps256(a0), b0, 1);
    m[9] = _mm256_insertf128_ps(_mm256_castps128_ps256(a1), b1, 1);
    m[10] = _mm256_insertf128_ps(_mm256_castps128_ps256(a2), b2, 1);
    m[11] = _mm256_insertf128_ps(_mm256_castps128_ps256(a3), b3, 1);
}

/* Eight lanes' 12-float records (a bone of the palette, a blended matrix) as 12 rows; each record is read whole.
 * Lanes l and l + 4 share a register, 4 floats each, so the transpose is three 4 x 4 ones within the halves
 * (fewer shuffles than sk_transpose12's, whose inputs come whole from registers). */
static inline void sk_gather(const float* const rec[8], __m256* m)
{
    for (int g = 0; g < 3; ++g) {
        __m256 r[4];
        for (int l = 0; l < 4; ++l)
            r[l] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(rec[l] + 4 * g)),
                                        _mm_loadu_ps(rec[l + 4] + 4 * g), 1);
        __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
        __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
        m[4 * g] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
        m[4 * g + 1] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
        m[4 * g + 2] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
        m[4 * g + 3] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    }
}

/* 12 rows of 8 lanes to the lanes' 12-float records at out, out + 12, ... (sk_gather's inverse: three 4 x 4
 * transposes within the halves, lane l in the low half and l + 4 in the high one). */
#define SK_HAS_STORE12 1
static inline void sk_store12(float* out, const __m256* m)
{
    for (int g = 0; g < 3; ++g) {
        __m256 t0 = _mm256_unpacklo_ps(m[4 * g], m[4 * g + 1]), t1 = _mm256_unpackhi_ps(m[4 * g], m[4 * g + 1]);
        __m256 t2 = _mm256_unpacklo_ps(m[4 * g + 2], m[4 * g + 3]), t3 = _mm256_unpackhi_ps(m[4 * g + 2], m[4 * g + 3]);
        __m256 r[4] = {_mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)), _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2)),
                       _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)), _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2))};
        for (int l = 0; l < 4; ++l) {
            _mm_storeu_ps(out + 12 * l + 4 * g, _mm256_castps256_ps128(r[l]));
            _mm_storeu_ps(out + 12 * (l + 4) + 4 * g, _mm256_extractf128_ps(r[l], 1));
        }
    }
}

/* Eight lanes' blended matrices (elements 0-7 in a ymm, 8-11 in an xmm per lane), transposed to 12 rows. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline void sk_blend(const sfi_skin_job* job, size_t block, int sub, uint32_t K, __m256* m)
{
    const uint16_t* J = job->lanes->joints + block * K * SFI_LANES + (size_t)sub * 8;
    const float* W = job->lanes->weights + block * K * SFI_LANES + (size_t)sub * 8;
    __m256 lo[8];
    __m128 hi[8];
    for (int l = 0; l < 8; ++l) {
        __m256 a = _mm256_setzero_ps();
        __m128 h = _mm_setzero_ps();
        for (uint32_t i = 0; i < K; ++i) {
            const float* b = job->palette + 16 * (size_t)J[i * SFI_LANES + l];
            float w = W[i * SFI_LANES + l];
            a = _mm256_add_ps(a, _mm256_mul_ps(_mm256_set1_ps(w), _mm256_loadu_ps(b)));
            h = _mm_add_ps(h, _mm_mul_ps(_mm_set1_ps(w), _mm_loadu_ps(b + 8)));
        }
        lo[l] = a, hi[l] = h;
    }
    sk_transpose12(lo, hi, m);
}

/* 4 vertices of x y z rows to interleaved x0 y0 z0 x1 ... (as skin_sse2.c) */
SK_INLINE void sk_store3_4(float* out, __m128 x, __m128 y, __m128 z)
{
    __m128 xy_lo = _mm_unpacklo_ps(x, y), xy_hi = _mm_unpackhi_ps(x, y);
    __m128 t0 = _mm_shuffle_ps(z, xy_lo, _MM_SHUFFLE(3, 2, 0, 0));
    __m128 t1 = _mm_shuffle_ps(xy_lo, z, _MM_SHUFFLE(1, 1, 3, 3));
    __m128 t2 = _mm_shuffle_ps(z, xy_hi, _MM_SHUFFLE(3, 2, 3, 2));
    _mm_storeu_ps(out, _mm_shuffle_ps(xy_lo, t0, _MM_SHUFFLE(2, 0, 1, 0)));
    _mm_storeu_ps(out + 4, _mm_shuffle_ps(t1, xy_hi, _MM_SHUFFLE(1, 0, 2, 0)));
    _mm_storeu_ps(out + 8, _mm_shuffle_ps(t2, t2, _MM_SHUFFLE(1, 3, 2, 0)));
}

SK_INLINE void sk_store3(float* out, __m256 x, __m256 y, __m256 z)
{
    sk_store3_4(out, _mm256_castps256_ps128(x), _mm256_castps256_ps128(y), _mm256_castps256_ps128(z));
    sk_store3_4(out + 12, _mm256_extractf128_ps(x, 1), _mm256_extractf128_ps(y, 1), _mm256_extractf128_ps(z, 1));
}

SK_INLINE void sk_store4(float* out, __m256 x, __m256 y, __m256 z, __m256 w)
{
    /* x y z w rows of 8 lanes: unpack to (x y) and (z w) pairs, then 128-bit halves per vertex pair */
    __m256 xy_lo = _mm256_unpacklo_ps(x, y), xy_hi = _mm256_unpackhi_ps(x, y); /* x0 y0 x1 y1 | x4 y4 x5 y5 */
    __m256 zw_lo = _mm256_unpacklo_ps(z, w), zw_hi = _mm256_unpackhi_ps(z, w);
    __m256 v04 = _mm256_shuffle_ps(xy_lo, zw_lo, _MM_SHUFFLE(1, 0, 1, 0)); /* v0 | v4 */
    __m256 v15 = _mm256_shuffle_ps(xy_lo, zw_lo, _MM_SHUFFLE(3, 2, 3, 2)); /* v1 | v5 */
    __m256 v26 = _mm256_shuffle_ps(xy_hi, zw_hi, _MM_SHUFFLE(1, 0, 1, 0));
    __m256 v37 = _mm256_shuffle_ps(xy_hi, zw_hi, _MM_SHUFFLE(3, 2, 3, 2));
    _mm256_storeu_ps(out, _mm256_permute2f128_ps(v04, v15, 0x20));      /* v0 v1 */
    _mm256_storeu_ps(out + 8, _mm256_permute2f128_ps(v26, v37, 0x20));  /* v2 v3 */
    _mm256_storeu_ps(out + 16, _mm256_permute2f128_ps(v04, v15, 0x31)); /* v4 v5 */
    _mm256_storeu_ps(out + 24, _mm256_permute2f128_ps(v26, v37, 0x31)); /* v6 v7 */
}

#include "skin_body.h"
#define SJ_ENTRY sfi_jacobian_range_avx2
#include "jacobian_body.h"
#define SJF_ENTRY sfi_jacobian_fan_range_avx2
#include "jacobian_fan_body.h"
/* quantized streams (quant_body.h): SK_W int32 to float, exact below 2^24 */
static inline __m256 sk_cvt(const int32_t* c) { return _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i*)(const void*)c)); }
/* 8 vertices' 16-bit x y z w at a stride of 8: their even 32-bit words (x y) and odd ones (z w) in vertex order,
 * each split into its two halves */
#define SQ_WIDE 1
static inline __m256 sq_half(__m256i x, int high, int sgn)
{
    __m256i h = high ? (sgn ? _mm256_srai_epi32(x, 16) : _mm256_srli_epi32(x, 16))
                     : (sgn ? _mm256_srai_epi32(_mm256_slli_epi32(x, 16), 16) : _mm256_and_si256(x, _mm256_set1_epi32(0xffff)));
    return _mm256_cvtepi32_ps(h);
}

static inline void sq_rows16(const uint8_t* p, int sgn, __m256 r[4])
{
    __m256 a = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i*)(const void*)p));
    __m256 b = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i*)(const void*)(p + 32)));
    /* shuffle_ps gives vertices 0 1 4 5 | 2 3 6 7; the 64-bit permute puts them in order */
    __m256i xy = _mm256_permute4x64_epi64(_mm256_castps_si256(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0))), 0xd8);
    __m256i zw = _mm256_permute4x64_epi64(_mm256_castps_si256(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1))), 0xd8);
    r[0] = sq_half(xy, 0, sgn), r[1] = sq_half(xy, 1, sgn), r[2] = sq_half(zw, 0, sgn), r[3] = sq_half(zw, 1, sgn);
}

/* 8 vertices' four unsigned bytes at a stride of 4 */
static inline void sq_rows8(const uint8_t* p, __m256 r[4])
{
    __m256i a = _mm256_loadu_si256((const __m256i*)(const void*)p), ff = _mm256_set1_epi32(0xff);
    r[0] = _mm256_cvtepi32_ps(_mm256_and_si256(a, ff));
    r[1] = _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(a, 8), ff));
    r[2] = _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(a, 16), ff));
    r[3] = _mm256_cvtepi32_ps(_mm256_srli_epi32(a, 24));
}
#define SQ_ENTRY sfi_quant_range_avx2
#include "quant_body.h"

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
void sfi_skin_blocks_avx2(const sfi_skin_job* job, size_t b0, size_t b1, sfi_skin_counts* counts)
{
    (void)job, (void)b0, (void)b1, (void)counts; /* never called: sfi_simd_level stays below AVX2 here */
}

void sfi_jacobian_range_avx2(const sfi_jacobian_job* job, size_t begin, size_t end, sfi_skin_counts* counts)
{
    (void)job, (void)begin, (void)end, (void)counts; /* never called, as above */
}

void sfi_jacobian_fan_range_avx2(const sfi_jacobian_job* job, size_t begin, size_t end, sfi_skin_counts* counts)
{
    (void)job, (void)begin, (void)end, (void)counts; /* never called, as above */
}

size_t sfi_quant_range_avx2(const sfi_quant_job* job, size_t begin, size_t end)
{
    (void)job, (void)begin, (void)end; /* never called, as above */
    return SIZE_MAX;
}
#endif

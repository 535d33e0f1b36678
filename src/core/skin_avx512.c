/* The fused per-vertex pass and the jacobians with AVX-512 (F and DQ): 16 vertices per step (skin_body.h,
 * jacobian_body.h, jacobian_fan_body.h). As skin_avx2.c, the file's
 * functions are compiled for the instruction set by a target pragma (no build flag) and called only where cpuid
 * reports it and the operating system saves the zmm state (simd.c). AVX-512 implies FMA, so contraction is
 * switched off here explicitly: each lane must stay the scalar reference's bits. A 16-float bone fills one zmm,
 * which halves the per-lane blend of the AVX2 pass (one load, multiply and add per slot instead of two). Compares
 * give AVX-512 masks; they are widened to all-ones lanes (vpmovm2d) so that skin_body.h's vector-mask logic holds. */
#include "skin_simd.h"

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

#define SK_W 16
#define SK_V __m512
#define SK_ENTRY sfi_skin_blocks_avx512

static inline __m512 sk_load(const float* p) { return _mm512_loadu_ps(p); }
static inline void sk_store(float* p, __m512 v) { _mm512_storeu_ps(p, v); }
static inline __m512 sk_set1(float f) { return _mm512_set1_ps(f); }
static inline __m512 sk_add(__m512 a, __m512 b) { return _mm512_add_ps(a, b); }
static inline __m512 sk_sub(__m512 a, __m512 b) { return _mm512_sub_ps(a, b); }
static inline __m512 sk_mul(__m512 a, __m512 b) { return _mm512_mul_ps(a, b); }
static inline __m512 sk_div(__m512 a, __m512 b) { return _mm512_div_ps(a, b); }
static inline __m512 sk_sqrt(__m512 a) { return _mm512_sqrt_ps(a); }
static inline __m512 sk_and(__m512 a, __m512 b) { return _mm512_and_ps(a, b); }
static inline __m512 sk_andnot(__m512 a, __m512 b) { return _mm512_andnot_ps(a, b); }
static inline __m512 sk_or(__m512 a, __m512 b) { return _mm512_or_ps(a, b); }
static inline __m512 sk_lanes(__mmask16 m) { return _mm512_castsi512_ps(_mm512_movm_epi32(m)); }
static inline __m512 sk_lt(__m512 a, __m512 b) { return sk_lanes(_mm512_cmp_ps_mask(a, b, _CMP_LT_OQ)); }
static inline __m512 sk_ge(__m512 a, __m512 b) { return sk_lanes(_mm512_cmp_ps_mask(a, b, _CMP_GE_OQ)); }
static inline __m512 sk_gt(__m512 a, __m512 b) { return sk_lanes(_mm512_cmp_ps_mask(a, b, _CMP_GT_OQ)); }
static inline __m512 sk_eq(__m512 a, __m512 b) { return sk_lanes(_mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ)); }
static inline int sk_mask(__m512 a) { return (int)_mm512_movepi32_mask(_mm512_castps_si512(a)); }
static inline __m512 sk_from_bits(unsigned bits) { return sk_lanes((__mmask16)bits); }

static inline __m512 sk_unpacklo_pd(__m512 a, __m512 b)
{
    return _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
}
static inline __m512 sk_unpackhi_pd(__m512 a, __m512 b)
{
    return _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
}

/* Sixteen lanes' 16-float records (elements 12-15 ignored), r[l] = lane l's, to 12 rows of 16 lanes. */
static inline void sk_transpose12(const __m512 r[16], __m512* m)
{
    /* lane pairs, then quads, within each 128-bit block: u[4g + e] holds, in block q, element e + 4q of lanes
       4g .. 4g + 3 */
    __m512 t[16], u[16];
    for (int i = 0; i < 8; ++i) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int g = 0; g < 4; ++g) {
        u[4 * g] = sk_unpacklo_pd(t[4 * g], t[4 * g + 2]);
        u[4 * g + 1] = sk_unpackhi_pd(t[4 * g], t[4 * g + 2]);
        u[4 * g + 2] = sk_unpacklo_pd(t[4 * g + 1], t[4 * g + 3]);
        u[4 * g + 3] = sk_unpackhi_pd(t[4 * g + 1], t[4 * g + 3]);
    }
    /* row e + 4q = block q of u[e], u[4 + e], u[8 + e], u[12 + e] (rows 12-15 are not built) */
    for (int e = 0; e < 4; ++e) {
        __m512 ab01 = _mm512_shuffle_f32x4(u[e], u[4 + e], _MM_SHUFFLE(1, 0, 1, 0));
        __m512 cd01 = _mm512_shuffle_f32x4(u[8 + e], u[12 + e], _MM_SHUFFLE(1, 0, 1, 0));
        __m512 ab23 = _mm512_shuffle_f32x4(u[e], u[4 + e], _MM_SHUFFLE(3, 2, 3, 2));
        __m512 cd23 = _mm512_shuffle_f32x4(u[8 + e], u[12 + e], _MM_SHUFFLE(3, 2, 3, 2));
        m[e] = _mm512_shuffle_f32x4(ab01, cd01, _MM_SHUFFLE(2, 0, 2, 0));
        m[4 + e] = _mm512_shuffle_f32x4(ab01, cd01, _MM_SHUFFLE(3, 1, 3, 1));
        m[8 + e] = _mm512_shuffle_f32x4(ab23, cd23, _MM_SHUFFLE(2, 0, 2, 0));
    }
}

/* Sixteen lanes' 12-float records (a bone of the palette) as 12 rows; a masked load reads no float past 12. */
static inline void sk_gather(const float* const rec[16], __m512* m)
{
    __m512 r[16];
    for (int l = 0; l < 16; ++l) r[l] = _mm512_maskz_loadu_ps((__mmask16)0x0fff, rec[l]);
    sk_transpose12(r, m);
}

/* Sixteen lanes' blended matrices (the 16 padded floats of each in a zmm), transposed to 12 rows. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline void sk_blend(const sfi_skin_job* job, size_t block, int sub, uint32_t K, __m512* m)
{
    const uint16_t* J = job->lanes->joints + block * K * SFI_LANES + (size_t)sub * 16;
    const float* W = job->lanes->weights + block * K * SFI_LANES + (size_t)sub * 16;
    __m512 r[16];
    for (int l = 0; l < 16; ++l) {
        __m512 a = _mm512_setzero_ps();
        for (uint32_t i = 0; i < K; ++i) {
            const float* b = job->palette + 16 * (size_t)J[i * SFI_LANES + l];
            a = _mm512_add_ps(a, _mm512_mul_ps(_mm512_set1_ps(W[i * SFI_LANES + l]), _mm512_loadu_ps(b)));
        }
        r[l] = a;
    }
    sk_transpose12(r, m);
}

/* x y z rows of 16 vertices to 48 interleaved floats: output vector r, element p is float g = 16 r + p, i.e.
   component g % 3 of vertex g / 3. First x and y are placed (index v for x, 16 + v for y, 0 where z goes), then z
   (16 + v) is merged into the rest (kept at p). */
static const int sk_xy_index[3][16] = {{0, 16, 0, 1, 17, 0, 2, 18, 0, 3, 19, 0, 4, 20, 0, 5},
                                       {21, 0, 6, 22, 0, 7, 23, 0, 8, 24, 0, 9, 25, 0, 10, 26},
                                       {0, 11, 27, 0, 12, 28, 0, 13, 29, 0, 14, 30, 0, 15, 31, 0}};
static const int sk_z_index[3][16] = {{0, 1, 16, 3, 4, 17, 6, 7, 18, 9, 10, 19, 12, 13, 20, 15},
                                      {0, 21, 2, 3, 22, 5, 6, 23, 8, 9, 24, 11, 12, 25, 14, 15},
                                      {26, 1, 2, 27, 4, 5, 28, 7, 8, 29, 10, 11, 30, 13, 14, 31}};

SK_INLINE void sk_store3(float* out, __m512 x, __m512 y, __m512 z)
{
    for (int r = 0; r < 3; ++r) {
        __m512 xy = _mm512_permutex2var_ps(x, _mm512_loadu_si512(sk_xy_index[r]), y);
        _mm512_storeu_ps(out + 16 * r, _mm512_permutex2var_ps(xy, _mm512_loadu_si512(sk_z_index[r]), z));
    }
}

/* x y z w rows of 16 vertices to 64 interleaved floats: per 128-bit block q, a/b/c/d hold vertices 4q .. 4q + 3,
   whose blocks are then gathered four by four. */
SK_INLINE void sk_store4(float* out, __m512 x, __m512 y, __m512 z, __m512 w)
{
    __m512 xy_lo = _mm512_unpacklo_ps(x, y), xy_hi = _mm512_unpackhi_ps(x, y);
    __m512 zw_lo = _mm512_unpacklo_ps(z, w), zw_hi = _mm512_unpackhi_ps(z, w);
    __m512 a = sk_unpacklo_pd(xy_lo, zw_lo), b = sk_unpackhi_pd(xy_lo, zw_lo);
    __m512 c = sk_unpacklo_pd(xy_hi, zw_hi), d = sk_unpackhi_pd(xy_hi, zw_hi);
    __m512 ab02 = _mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(2, 0, 2, 0)), cd02 = _mm512_shuffle_f32x4(c, d, _MM_SHUFFLE(2, 0, 2, 0));
    __m512 ab13 = _mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(3, 1, 3, 1)), cd13 = _mm512_shuffle_f32x4(c, d, _MM_SHUFFLE(3, 1, 3, 1));
    _mm512_storeu_ps(out, _mm512_shuffle_f32x4(ab02, cd02, _MM_SHUFFLE(2, 0, 2, 0)));      /* v0 .. v3 */
    _mm512_storeu_ps(out + 16, _mm512_shuffle_f32x4(ab13, cd13, _MM_SHUFFLE(2, 0, 2, 0))); /* v4 .. v7 */
    _mm512_storeu_ps(out + 32, _mm512_shuffle_f32x4(ab02, cd02, _MM_SHUFFLE(3, 1, 3, 1))); /* v8 .. v11 */
    _mm512_storeu_ps(out + 48, _mm512_shuffle_f32x4(ab13, cd13, _MM_SHUFFLE(3, 1, 3, 1))); /* v12 .. v15 */
}

#include "skin_body.h"
#define SJ_ENTRY sfi_jacobian_range_avx512
#include "jacobian_body.h"
/* A palette of at most 32 records as 12 rows of 32 floats (jacobian_fan_body.h): sixteen lanes' records, the
 * 16-bit indices at J, are 12 two-register permutes of the rows, the values copied exactly */
#define SK_TABLE_RECORDS 32
static inline void sk_table_rows(const float* rows, const uint16_t* J, __m512* m)
{
    __m512i idx = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i*)(const void*)J));
    for (int r = 0; r < 12; ++r)
        m[r] = _mm512_permutex2var_ps(_mm512_loadu_ps(rows + 32 * r), idx, _mm512_loadu_ps(rows + 32 * r + 16));
}
/* sk_table_rows with the indices as a row of exact floats (quant_body.h) */
static inline void sk_table_rows_f(const float* rows, __m512 jf, __m512* m)
{
    __m512i idx = _mm512_cvttps_epi32(jf);
    for (int r = 0; r < 12; ++r)
        m[r] = _mm512_permutex2var_ps(_mm512_loadu_ps(rows + 32 * r), idx, _mm512_loadu_ps(rows + 32 * r + 16));
}
/* A pose of 33 to 64 bones as 12 rows of 64 floats (quant_body.h), the indices a row of exact floats: each row's two
 * halves are two-register permutes, and bit 5 of the index picks the half, the values copied exactly */
#define SK_WIDE_TABLE_RECORDS 64
static inline void sk_wide_table_rows_f(const float* rows, __m512 jf, __m512* m)
{
    __m512i idx = _mm512_cvttps_epi32(jf);
    __mmask16 high = _mm512_test_epi32_mask(idx, _mm512_set1_epi32(32));
    for (int r = 0; r < 12; ++r) {
        const float* row = rows + 64 * r;
        __m512 lo = _mm512_permutex2var_ps(_mm512_loadu_ps(row), idx, _mm512_loadu_ps(row + 16));
        __m512 hi = _mm512_permutex2var_ps(_mm512_loadu_ps(row + 32), idx, _mm512_loadu_ps(row + 48));
        m[r] = _mm512_mask_blend_ps(high, lo, hi);
    }
}
#define SJF_ENTRY sfi_jacobian_fan_range_avx512
#include "jacobian_fan_body.h"
/* quantized streams (quant_body.h): SK_W int32 to float, exact below 2^24 */
static inline __m512 sk_cvt(const int32_t* c) { return _mm512_cvtepi32_ps(_mm512_loadu_si512((const void*)c)); }
/* 16 vertices' 16-bit x y z w at a stride of 8: their even 32-bit words (x y) and odd ones (z w) in vertex order,
 * each split into its two halves */
#define SQ_WIDE 1
static inline __m512 sq_half(__m512i x, int high, int sgn)
{
    __m512i h = high ? (sgn ? _mm512_srai_epi32(x, 16) : _mm512_srli_epi32(x, 16))
                     : (sgn ? _mm512_srai_epi32(_mm512_slli_epi32(x, 16), 16) : _mm512_and_si512(x, _mm512_set1_epi32(0xffff)));
    return _mm512_cvtepi32_ps(h);
}

static inline void sq_rows16(const uint8_t* p, int sgn, __m512 r[4])
{
    __m512i a = _mm512_loadu_si512((const void*)p), b = _mm512_loadu_si512((const void*)(p + 64));
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    __m512i xy = _mm512_permutex2var_epi32(a, even, b), zw = _mm512_permutex2var_epi32(a, odd, b);
    r[0] = sq_half(xy, 0, sgn), r[1] = sq_half(xy, 1, sgn), r[2] = sq_half(zw, 0, sgn), r[3] = sq_half(zw, 1, sgn);
}

/* 16 vertices' four unsigned bytes at a stride of 4 */
static inline void sq_rows8(const uint8_t* p, __m512 r[4])
{
    __m512i a = _mm512_loadu_si512((const void*)p), ff = _mm512_set1_epi32(0xff);
    r[0] = _mm512_cvtepi32_ps(_mm512_and_si512(a, ff));
    r[1] = _mm512_cvtepi32_ps(_mm512_and_si512(_mm512_srli_epi32(a, 8), ff));
    r[2] = _mm512_cvtepi32_ps(_mm512_and_si512(_mm512_srli_epi32(a, 16), ff));
    r[3] = _mm512_cvtepi32_ps(_mm512_srli_epi32(a, 24));
}
#define SQ_ENTRY sfi_quant_range_avx512
#include "quant_body.h"

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
void sfi_skin_blocks_avx512(const sfi_skin_job* job, size_t b0, size_t b1, sfi_skin_counts* counts)
{
    (void)job, (void)b0, (void)b1, (void)counts; /* never called: sfi_simd_level stays below AVX-512 here */
}

void sfi_jacobian_fan_range_avx512(const sfi_jacobian_job* job, size_t begin, size_t end, sfi_skin_counts* counts)
{
    (void)job, (void)begin, (void)end, (void)counts; /* never called, as above */
}

void sfi_jacobian_range_avx512(const sfi_jacobian_job* job, size_t begin, size_t end, sfi_skin_counts* counts)
{
    (void)job, (void)begin, (void)end, (void)counts; /* never called, as above */
}

size_t sfi_quant_range_avx512(const sfi_quant_job* job, size_t begin, size_t end)
{
    (void)job, (void)begin, (void)end; /* never called, as above */
    return SIZE_MAX;
}
#endif

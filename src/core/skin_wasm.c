/* The fused per-vertex pass, the jacobian and jacobian-fan with WebAssembly SIMD (-msimd128): 4 vertices per step
 * (skin_body.h, jacobian_body.h, jacobian_fan_body.h), the lane
 * operations of skin_sse2.c in wasm_simd128.h's terms. WebAssembly's f32x4 add, sub, mul, div and sqrt are IEEE
 * single precision, correctly rounded, and the instruction set has no fused multiply-add to contract into, so
 * each lane is the scalar reference's bits. Built only into a module compiled with -msimd128; elsewhere the
 * entries are stubs that sfi_simd_level never reaches. */
#include "skin_simd.h"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>

#define SK_W 4
#define SK_V v128_t
#define SK_ENTRY sfi_skin_blocks_wasm

static inline v128_t sk_load(const float* p) { return wasm_v128_load(p); }
static inline void sk_store(float* p, v128_t v) { wasm_v128_store(p, v); }
static inline v128_t sk_set1(float f) { return wasm_f32x4_splat(f); }
static inline v128_t sk_add(v128_t a, v128_t b) { return wasm_f32x4_add(a, b); }
static inline v128_t sk_sub(v128_t a, v128_t b) { return wasm_f32x4_sub(a, b); }
static inline v128_t sk_mul(v128_t a, v128_t b) { return wasm_f32x4_mul(a, b); }
static inline v128_t sk_div(v128_t a, v128_t b) { return wasm_f32x4_div(a, b); }
static inline v128_t sk_sqrt(v128_t a) { return wasm_f32x4_sqrt(a); }
static inline v128_t sk_and(v128_t a, v128_t b) { return wasm_v128_and(a, b); }
/* ~a & b, as SSE's andnot (wasm's v128.andnot is a & ~b) */
static inline v128_t sk_andnot(v128_t a, v128_t b) { return wasm_v128_andnot(b, a); }
static inline v128_t sk_or(v128_t a, v128_t b) { return wasm_v128_or(a, b); }
static inline v128_t sk_lt(v128_t a, v128_t b) { return wasm_f32x4_lt(a, b); }
static inline v128_t sk_ge(v128_t a, v128_t b) { return wasm_f32x4_ge(a, b); }
static inline v128_t sk_gt(v128_t a, v128_t b) { return wasm_f32x4_gt(a, b); }
static inline v128_t sk_eq(v128_t a, v128_t b) { return wasm_f32x4_eq(a, b); }
static inline int sk_mask(v128_t a) { return (int)wasm_i32x4_bitmask(a); }
static inline v128_t sk_from_bits(unsigned bits)
{
    const v128_t b = wasm_i32x4_make(1, 2, 4, 8);
    return wasm_i32x4_eq(wasm_v128_and(wasm_i32x4_splat((int32_t)bits), b), b);
}

/* Rows r0..r3 of 4 lanes to their columns, in place. */
static inline void sk_transpose4(v128_t* r0, v128_t* r1, v128_t* r2, v128_t* r3)
{
    v128_t t0 = wasm_i32x4_shuffle(*r0, *r1, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(*r0, *r1, 2, 6, 3, 7);
    v128_t t2 = wasm_i32x4_shuffle(*r2, *r3, 0, 4, 1, 5), t3 = wasm_i32x4_shuffle(*r2, *r3, 2, 6, 3, 7);
    *r0 = wasm_i32x4_shuffle(t0, t2, 0, 1, 4, 5);
    *r1 = wasm_i32x4_shuffle(t0, t2, 2, 3, 6, 7);
    *r2 = wasm_i32x4_shuffle(t1, t3, 0, 1, 4, 5);
    *r3 = wasm_i32x4_shuffle(t1, t3, 2, 3, 6, 7);
}

/* Four lanes' 3 x 4 floats to 12 rows of 4 lanes. */
static inline void sk_transpose12(v128_t a[4][3], v128_t* m)
{
    for (int r = 0; r < 3; ++r) {
        v128_t r0 = a[0][r], r1 = a[1][r], r2 = a[2][r], r3 = a[3][r];
        sk_transpose4(&r0, &r1, &r2, &r3);
        m[4 * r] = r0, m[4 * r + 1] = r1, m[4 * r + 2] = r2, m[4 * r + 3] = r3;
    }
}

/* Four lanes' blended matrices (3 rows of 4 floats each per lane), transposed to 12 rows of 4 lanes. */
SK_INLINE void sk_blend(const sfi_skin_job* job, size_t block, int sub, uint32_t K, v128_t* m)
{
    const uint16_t* J = job->lanes->joints + block * K * SFI_LANES + (size_t)sub * 4;
    const float* W = job->lanes->weights + block * K * SFI_LANES + (size_t)sub * 4;
    v128_t a[4][3];
    for (int l = 0; l < 4; ++l) {
        v128_t a0 = wasm_f32x4_splat(0.0f), a1 = a0, a2 = a0;
        for (uint32_t i = 0; i < K; ++i) {
            const float* b = job->palette + 16 * (size_t)J[i * SFI_LANES + l];
            v128_t w = wasm_f32x4_splat(W[i * SFI_LANES + l]);
            a0 = wasm_f32x4_add(a0, wasm_f32x4_mul(w, wasm_v128_load(b)));
            a1 = wasm_f32x4_add(a1, wasm_f32x4_mul(w, wasm_v128_load(b + 4)));
            a2 = wasm_f32x4_add(a2, wasm_f32x4_mul(w, wasm_v128_load(b + 8)));
        }
        a[l][0] = a0, a[l][1] = a1, a[l][2] = a2;
    }
    sk_transpose12(a, m);
}

/* Four lanes' 12-float records (a bone of the palette, a blended matrix) as 12 rows; each record is read whole. */
static inline void sk_gather(const float* const rec[4], v128_t* m)
{
    v128_t a[4][3];
    for (int l = 0; l < 4; ++l)
        for (int r = 0; r < 3; ++r) a[l][r] = wasm_v128_load(rec[l] + 4 * r);
    sk_transpose12(a, m);
}

/* 12 rows of 4 lanes to the lanes' 12-float records at out, out + 12, ... (sk_transpose12's inverse). */
#define SK_HAS_STORE12 1
static inline void sk_store12(float* out, const v128_t* m)
{
    for (int r = 0; r < 3; ++r) {
        v128_t r0 = m[4 * r], r1 = m[4 * r + 1], r2 = m[4 * r + 2], r3 = m[4 * r + 3];
        sk_transpose4(&r0, &r1, &r2, &r3);
        wasm_v128_store(out + 4 * r, r0), wasm_v128_store(out + 12 + 4 * r, r1);
        wasm_v128_store(out + 24 + 4 * r, r2), wasm_v128_store(out + 36 + 4 * r, r3);
    }
}

/* x y z rows of 4 vertices to x0 y0 z0 x1 | y1 z1 x2 y2 | z2 x3 y3 z3. */
SK_INLINE void sk_store3(float* out, v128_t x, v128_t y, v128_t z)
{
    v128_t xy_lo = wasm_i32x4_shuffle(x, y, 0, 4, 1, 5); /* x0 y0 x1 y1 */
    v128_t xy_hi = wasm_i32x4_shuffle(x, y, 2, 6, 3, 7); /* x2 y2 x3 y3 */
    v128_t yz1 = wasm_i32x4_shuffle(xy_lo, z, 3, 5, 3, 5); /* y1 z1 y1 z1 */
    wasm_v128_store(out, wasm_i32x4_shuffle(xy_lo, z, 0, 1, 4, 2));
    wasm_v128_store(out + 4, wasm_i32x4_shuffle(yz1, xy_hi, 0, 1, 4, 5));
    wasm_v128_store(out + 8, wasm_i32x4_shuffle(z, xy_hi, 2, 6, 7, 3));
}

SK_INLINE void sk_store4(float* out, v128_t x, v128_t y, v128_t z, v128_t w)
{
    sk_transpose4(&x, &y, &z, &w);
    wasm_v128_store(out, x);
    wasm_v128_store(out + 4, y);
    wasm_v128_store(out + 8, z);
    wasm_v128_store(out + 12, w);
}

#include "skin_body.h"
#define SJ_ENTRY sfi_jacobian_range_wasm
#include "jacobian_body.h"
#define SJF_ENTRY sfi_jacobian_fan_range_wasm
#include "jacobian_fan_body.h"
/* quantized streams (quant_body.h): SK_W int32 to float, exact below 2^24 */
static inline v128_t sk_cvt(const int32_t* c) { return wasm_f32x4_convert_i32x4(wasm_v128_load(c)); }
#define SQ_ENTRY sfi_quant_range_wasm
#include "quant_body.h"

#else
void sfi_skin_blocks_wasm(const sfi_skin_job* job, size_t b0, size_t b1, sfi_skin_counts* counts)
{
    (void)job, (void)b0, (void)b1, (void)counts; /* never called: no SIMD128 in this build */
}

void sfi_jacobian_range_wasm(const sfi_jacobian_job* job, size_t begin, size_t end, sfi_skin_counts* counts)
{
    (void)job, (void)begin, (void)end, (void)counts; /* never called, as above */
}

void sfi_jacobian_fan_range_wasm(const sfi_jacobian_job* job, size_t begin, size_t end, sfi_skin_counts* counts)
{
    (void)job, (void)begin, (void)end, (void)counts; /* never called, as above */
}

size_t sfi_quant_range_wasm(const sfi_quant_job* job, size_t begin, size_t end)
{
    (void)job, (void)begin, (void)end; /* never called, as above */
    return SIZE_MAX;
}
#endif

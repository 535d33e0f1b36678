/* The fast angles with WebAssembly SIMD (-msimd128): 4 vertices per step as two pairs of doubles (angles_body.h),
 * angles_sse2.c's operations in wasm_simd128.h's terms, with the float loads and stores of its own. f64x2 add, sub,
 * mul, div and sqrt are IEEE double precision, correctly rounded, as are the float conversions, and the instruction
 * set has no fused multiply-add: every angle is the scalar kernel's bits. Built only into a module compiled with
 * -msimd128; elsewhere the entry is a stub that sfi_simd_level never reaches. */
#include "angles_simd.h"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>

#define AN_ENTRY sfi_angles_wasm

typedef struct an_d {
    v128_t lo, hi; /* lanes 0-1, 2-3 */
} an_d;
#define AN_D an_d

#define AN_OP2(name, op) \
    static inline an_d name(an_d a, an_d b) { return (an_d){op(a.lo, b.lo), op(a.hi, b.hi)}; }
AN_OP2(an_add, wasm_f64x2_add)
AN_OP2(an_sub, wasm_f64x2_sub)
AN_OP2(an_mul, wasm_f64x2_mul)
AN_OP2(an_div, wasm_f64x2_div)
AN_OP2(an_and, wasm_v128_and)
AN_OP2(an_or, wasm_v128_or)
AN_OP2(an_gt, wasm_f64x2_gt)
AN_OP2(an_ge, wasm_f64x2_ge)
AN_OP2(an_lt, wasm_f64x2_lt)
#undef AN_OP2

/* ~a & b, as SSE's andnot (wasm's v128.andnot is a & ~b) */
static inline an_d an_andnot(an_d a, an_d b) { return (an_d){wasm_v128_andnot(b.lo, a.lo), wasm_v128_andnot(b.hi, a.hi)}; }
static inline an_d an_set1(double d) { return (an_d){wasm_f64x2_splat(d), wasm_f64x2_splat(d)}; }
static inline an_d an_sqrt(an_d a) { return (an_d){wasm_f64x2_sqrt(a.lo), wasm_f64x2_sqrt(a.hi)}; }
static inline int an_mask(an_d a) { return (int)(wasm_i64x2_bitmask(a.lo) | wasm_i64x2_bitmask(a.hi) << 2); }
static inline an_d an_cvt(v128_t f)
{
    return (an_d){wasm_f64x2_promote_low_f32x4(f), wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(f, f, 2, 3, 2, 3))};
}
static inline v128_t an_to_float(an_d a)
{
    return wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(a.lo), wasm_f32x4_demote_f64x2_zero(a.hi), 0, 1, 4, 5);
}
static inline void an_store(double* out, an_d a) { wasm_v128_store(out, a.lo), wasm_v128_store(out + 2, a.hi); }
static inline an_d an_iota(double v) { return (an_d){wasm_f64x2_make(v, v + 1.0), wasm_f64x2_make(v + 2.0, v + 3.0)}; }

/* x = 8 t + 0.5 lies in [0.5, 8.5] (t in [0, 1]), so floor is the truncation SSE's cvttpd2dq makes, and k's index
 * is the low bits of k + 2^52's mantissa. (Clang lowers i32x4.trunc_sat_f64x2_zero and f64x2.convert_low_i32x4 here
 * lane by lane, with range checks and branches.) */
static inline void an_eighths(an_d x, const double* table, an_d* k, an_d* at)
{
    *k = (an_d){wasm_f64x2_floor(x.lo), wasm_f64x2_floor(x.hi)};
    v128_t bias = wasm_f64x2_splat(0x1p52);
    v128_t b01 = wasm_f64x2_add(k->lo, bias), b23 = wasm_f64x2_add(k->hi, bias);
    uint32_t i[4] = {(uint32_t)wasm_i64x2_extract_lane(b01, 0), (uint32_t)wasm_i64x2_extract_lane(b01, 1),
                     (uint32_t)wasm_i64x2_extract_lane(b23, 0), (uint32_t)wasm_i64x2_extract_lane(b23, 1)};
    for (int l = 0; l < 4; ++l) i[l] = i[l] < 8u ? i[l] : 8u; /* in bounds whatever x holds */
    *at = (an_d){wasm_f64x2_make(table[i[0]], table[i[1]]), wasm_f64x2_make(table[i[2]], table[i[3]])};
}

#define AN_FLOAT_OPS 1
/* x0 y0 z0 x1 | y1 z1 x2 y2 | z2 x3 y3 z3 to the x, y and z of 4 vertices. */
static inline void an_load3(const float* p, an_d* x, an_d* y, an_d* z)
{
    v128_t a = wasm_v128_load(p), b = wasm_v128_load(p + 4), c = wasm_v128_load(p + 8);
    *x = an_cvt(wasm_i32x4_shuffle(wasm_i32x4_shuffle(a, b, 0, 3, 6, 0), c, 0, 1, 2, 5));
    *y = an_cvt(wasm_i32x4_shuffle(wasm_i32x4_shuffle(a, b, 1, 4, 7, 0), c, 0, 1, 2, 6));
    *z = an_cvt(wasm_i32x4_shuffle(wasm_i32x4_shuffle(a, b, 2, 5, 0, 0), c, 0, 1, 4, 7));
}

/* 4 tangents (xyzw each): x, y, z as doubles; the bits of the w < 0 lanes. */
static inline int an_load4(const float* p, an_d* x, an_d* y, an_d* z)
{
    v128_t r0 = wasm_v128_load(p), r1 = wasm_v128_load(p + 4), r2 = wasm_v128_load(p + 8), r3 = wasm_v128_load(p + 12);
    v128_t t0 = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7);
    v128_t t2 = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5), t3 = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);
    *x = an_cvt(wasm_i32x4_shuffle(t0, t2, 0, 1, 4, 5));
    *y = an_cvt(wasm_i32x4_shuffle(t0, t2, 2, 3, 6, 7));
    *z = an_cvt(wasm_i32x4_shuffle(t1, t3, 0, 1, 4, 5));
    return (int)wasm_i32x4_bitmask(wasm_f32x4_lt(wasm_i32x4_shuffle(t1, t3, 2, 3, 6, 7), wasm_f32x4_splat(0.0f)));
}

/* 4 angles as floats to out. */
static inline void an_put4(float* out, an_d a) { wasm_v128_store(out, an_to_float(a)); }
static inline void an_zero4(float* out) { wasm_v128_store(out, wasm_f32x4_splat(0.0f)); }

#include "angles_body.h"

#else
size_t sfi_angles_wasm(const sfi_angle_job* job, size_t begin, size_t end, sfi_angle_chunk* c)
{
    (void)job, (void)begin, (void)end, (void)c; /* never called: no SIMD128 in this build */
    return 0;
}
#endif

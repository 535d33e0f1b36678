/* The rebuilt frames' face pass and gather with WebAssembly SIMD (-msimd128): rebuild_body.h in wasm_simd128.h's
 * operations, whose f32x4 arithmetic is IEEE single precision, correctly rounded, without fused multiply-add, as
 * SSE2's. Only in a module compiled with -msimd128 (rebuild_sse2.c holds the entries elsewhere). */
#include "sf_internal.h"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>

typedef v128_t R4;

static inline R4 r4_load(const float* p) { return wasm_v128_load(p); }
static inline void r4_store(float* p, R4 v) { wasm_v128_store(p, v); }
static inline R4 r4_make(float a, float b, float c, float d) { return wasm_f32x4_make(a, b, c, d); }
static inline R4 r4_set1(float f) { return wasm_f32x4_splat(f); }
static inline R4 r4_add(R4 a, R4 b) { return wasm_f32x4_add(a, b); }
static inline R4 r4_sub(R4 a, R4 b) { return wasm_f32x4_sub(a, b); }
static inline R4 r4_mul(R4 a, R4 b) { return wasm_f32x4_mul(a, b); }
static inline R4 r4_div(R4 a, R4 b) { return wasm_f32x4_div(a, b); }
static inline R4 r4_sqrt(R4 a) { return wasm_f32x4_sqrt(a); }
static inline R4 r4_and(R4 a, R4 b) { return wasm_v128_and(a, b); }
/* ~a & b, as SSE's andnot (wasm's v128.andnot is a & ~b) */
static inline R4 r4_andnot(R4 a, R4 b) { return wasm_v128_andnot(b, a); }
static inline R4 r4_or(R4 a, R4 b) { return wasm_v128_or(a, b); }
static inline R4 r4_xor(R4 a, R4 b) { return wasm_v128_xor(a, b); }
static inline R4 r4_lt(R4 a, R4 b) { return wasm_f32x4_lt(a, b); }
static inline R4 r4_gt(R4 a, R4 b) { return wasm_f32x4_gt(a, b); }
static inline R4 r4_ge(R4 a, R4 b) { return wasm_f32x4_ge(a, b); }
static inline R4 r4_ne(R4 a, R4 b) { return wasm_f32x4_ne(a, b); }
static inline int r4_mask(R4 a) { return (int)wasm_i32x4_bitmask(a); }

static inline void r4_transpose(R4* r0, R4* r1, R4* r2, R4* r3)
{
    R4 t0 = wasm_i32x4_shuffle(*r0, *r1, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(*r0, *r1, 2, 6, 3, 7);
    R4 t2 = wasm_i32x4_shuffle(*r2, *r3, 0, 4, 1, 5), t3 = wasm_i32x4_shuffle(*r2, *r3, 2, 6, 3, 7);
    *r0 = wasm_i32x4_shuffle(t0, t2, 0, 1, 4, 5);
    *r1 = wasm_i32x4_shuffle(t0, t2, 2, 3, 6, 7);
    *r2 = wasm_i32x4_shuffle(t1, t3, 0, 1, 4, 5);
    *r3 = wasm_i32x4_shuffle(t1, t3, 2, 3, 6, 7);
}

#include "rebuild_body.h"

#else
typedef int sfi_rebuild_wasm_unused; /* nothing here without SIMD128 */
#endif

/* The corner terms of MikkTSpace's sums with WebAssembly SIMD (-msimd128): 4 float lanes, the arc cosine in 2
 * double lanes (mikk_terms_body.h). f32x4 and f64x2 add, sub, mul, div and sqrt are IEEE, correctly rounded, and
 * there is no fused multiply-add, so each lane is the scalar's bits. Elsewhere the entry is a stub that
 * sfi_simd_level_cpu never reaches. */
#include "mikk_terms.h"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>

#define MT_W 4
#define MT_ENTRY sfi_mikk_terms_wasm
typedef float mt_vf __attribute__((vector_size(16)));
typedef double mt_vd __attribute__((vector_size(16)));
typedef int32_t mt_vi __attribute__((vector_size(16)));
typedef int64_t mt_vl __attribute__((vector_size(16)));
typedef float mt_vh __attribute__((vector_size(8)));
static inline mt_vf mt_sqrtf(mt_vf x) { return (mt_vf)wasm_f32x4_sqrt((v128_t)x); }
static inline mt_vd mt_sqrtd(mt_vd x) { return (mt_vd)wasm_f64x2_sqrt((v128_t)x); }
#include "mikk_terms_body.h"

#else
void sfi_mikk_terms_wasm(const sfi_mikk_terms_job* job, size_t begin, size_t end)
{
    sfi_mikk_terms_scalar(job, begin, end); /* never called: no SIMD128 in this build */
}
#endif

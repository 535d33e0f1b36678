/* The rebuilt frames' face pass and gather with SSE2 (every x86-64 CPU): rebuild_body.h in SSE2's operations.
 * Elsewhere, without WebAssembly SIMD128 (rebuild_wasm.c), the entries are stubs that rebuild.c never reaches. */
#include "sf_internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>

typedef __m128 R4;

static inline R4 r4_load(const float* p) { return _mm_loadu_ps(p); }
static inline void r4_store(float* p, R4 v) { _mm_storeu_ps(p, v); }
static inline R4 r4_make(float a, float b, float c, float d) { return _mm_setr_ps(a, b, c, d); }
static inline R4 r4_set1(float f) { return _mm_set1_ps(f); }
static inline R4 r4_add(R4 a, R4 b) { return _mm_add_ps(a, b); }
static inline R4 r4_sub(R4 a, R4 b) { return _mm_sub_ps(a, b); }
static inline R4 r4_mul(R4 a, R4 b) { return _mm_mul_ps(a, b); }
static inline R4 r4_div(R4 a, R4 b) { return _mm_div_ps(a, b); }
static inline R4 r4_sqrt(R4 a) { return _mm_sqrt_ps(a); }
static inline R4 r4_and(R4 a, R4 b) { return _mm_and_ps(a, b); }
static inline R4 r4_andnot(R4 a, R4 b) { return _mm_andnot_ps(a, b); }
static inline R4 r4_or(R4 a, R4 b) { return _mm_or_ps(a, b); }
static inline R4 r4_xor(R4 a, R4 b) { return _mm_xor_ps(a, b); }
static inline R4 r4_lt(R4 a, R4 b) { return _mm_cmplt_ps(a, b); }
static inline R4 r4_gt(R4 a, R4 b) { return _mm_cmpgt_ps(a, b); }
static inline R4 r4_ge(R4 a, R4 b) { return _mm_cmpge_ps(a, b); }
static inline R4 r4_ne(R4 a, R4 b) { return _mm_cmpneq_ps(a, b); }
static inline int r4_mask(R4 a) { return _mm_movemask_ps(a); }
static inline void r4_transpose(R4* a, R4* b, R4* c, R4* d) { _MM_TRANSPOSE4_PS(*a, *b, *c, *d); }

#include "rebuild_body.h"

#elif !defined(__wasm_simd128__)
void sfi_rebuild_faces_4(const sf_topology* topo, const float* positions, const float* det, int weighting,
                         float* records, size_t f0, size_t f1)
{
    (void)topo, (void)positions, (void)det, (void)weighting, (void)records, (void)f0, (void)f1; /* never called */
}
void sfi_rebuild_gather_4(const sf_topology* topo, const sfi_weld* weld, const float* records, int weighting,
                          size_t v0, size_t v1, float* normals, float* tangents)
{
    (void)topo, (void)weld, (void)records, (void)weighting, (void)v0, (void)v1, (void)normals, (void)tangents;
}
void sfi_rebuild_chunk_faces_4(const float* P, const float* det, const uint32_t* tris, size_t face_count,
                               const float* uvs, const uint32_t* verts, int weighting, float* records)
{
    (void)P, (void)det, (void)tris, (void)face_count, (void)uvs, (void)verts, (void)weighting, (void)records;
}
void sfi_rebuild_chunk_gather_4(const sf_topology* topo, int weld, const float* records, int weighting, size_t v0,
                                size_t v1, float* normals, float* tangents)
{
    (void)topo, (void)weld, (void)records, (void)weighting, (void)v0, (void)v1, (void)normals, (void)tangents;
}
#endif

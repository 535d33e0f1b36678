/* The corner terms of MikkTSpace's group sums (mikktspace.c): for each corner of a usable triangle, the
 * triangle's unit dP/du projected onto the corner's normal, times the corner's angle in the tangent plane
 * (sfk_mikk_corner_product). A corner's term depends on the corner alone, never on its group, so a frame
 * computes each once, in SIMD lanes, and sfk_mikk_group_tangents adds them in the scalar order: every sum has
 * the bits of the terms computed in the sum. */
#ifndef SF_MIKK_TERMS_H
#define SF_MIKK_TERMS_H

#include <stddef.h>
#include <stdint.h>

typedef struct sfi_mikk_terms_job {
    const uint8_t* flags;  /* per triangle, the frame's (SFK_MIKK_ANY: no term) */
    const uint32_t* idx;   /* 3 per triangle */
    const float *P, *N;    /* positions and normals, 3 per vertex */
    const float* face_os;  /* unit dP/du, 3 per triangle */
    float* terms;          /* out: 3 per corner (corners of SFK_MIKK_ANY triangles are left as they are) */
} sfi_mikk_terms_job;

/* Corners [begin, end) by the scalar kernels (sfk_mikk.h's operations). */
void sfi_mikk_terms_scalar(const sfi_mikk_terms_job* job, size_t begin, size_t end);
/* One corner by the scalar kernels: the fast paths' lanes that leave the common case. */
void sfi_mikk_term(const sfi_mikk_terms_job* job, size_t corner);
/* The same with the instruction set `level` (sfi_simd_level_cpu), each bit for bit the scalar's. */
void sfi_mikk_terms(int level, const sfi_mikk_terms_job* job, size_t begin, size_t end);
void sfi_mikk_terms_sse2(const sfi_mikk_terms_job* job, size_t begin, size_t end);
void sfi_mikk_terms_avx2(const sfi_mikk_terms_job* job, size_t begin, size_t end);
void sfi_mikk_terms_avx512(const sfi_mikk_terms_job* job, size_t begin, size_t end);
void sfi_mikk_terms_wasm(const sfi_mikk_terms_job* job, size_t begin, size_t end);

#endif

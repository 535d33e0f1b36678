/* The per-vertex angles of sfi_direction_errors on the fast path (error.c drives them; angles_sse2.c and
 * angles_avx2.c instantiate angles_body.h): 4 vertices per step, each lane sfk_angle_deg's operations in double in
 * its order, without fused multiply-adds, so every angle is the scalar kernel's bits. */
#ifndef SF_ANGLES_SIMD_H
#define SF_ANGLES_SIMD_H

#include "sf_internal.h"

typedef struct sfi_angle_job {
    const float *mn, *rn; /* 3n normals, method and reference */
    const float *mt, *rt; /* 4n tangents, or NULL for no tangent frame */
    int same_n, same_t;   /* the method's array is the reference's: 0 (180 when zero) without the arithmetic */
    float *nd, *td;       /* n angles each, may be NULL (td: zeros without a tangent frame) */
    uint8_t* flags;       /* n, may be NULL */
} sfi_angle_job;

/* What one chunk of vertices found: its counts, and its largest angles (double, as the scalar loop compares
 * them) at their first vertex. */
typedef struct sfi_angle_chunk {
    double worst_n, worst_t; /* -1 before any vertex */
    size_t worst_n_vertex, worst_t_vertex;
    size_t degenerate_normals, degenerate_tangents, degenerate, handedness;
} sfi_angle_chunk;

/* Vertices [begin, begin + 4 * floor((end - begin) / 4)) into c (which holds the chunk's earlier vertices);
 * returns how many it did: the caller takes the rest with the scalar loop. */
size_t sfi_angles_sse2(const sfi_angle_job* job, size_t begin, size_t end, sfi_angle_chunk* c);
size_t sfi_angles_avx2(const sfi_angle_job* job, size_t begin, size_t end, sfi_angle_chunk* c);
/* The same with WebAssembly SIMD128 (angles_wasm.c; a stub in a build without -msimd128). */
size_t sfi_angles_wasm(const sfi_angle_job* job, size_t begin, size_t end, sfi_angle_chunk* c);

#endif

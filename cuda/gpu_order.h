/* The CUDA backend's vertex order (gpu_order.c): the device keeps a topology's vertices in the order of its
 * locality blocks, so that a warp's vertices and one-rings fall into few lines of memory whatever order the
 * mesh was authored in. C only, so that the tests check it on the CPU. Triangles keep their order (so corner
 * numbers, and with them every per-corner sum's order, are the caller's). */
#ifndef SF_GPU_ORDER_H
#define SF_GPU_ORDER_H

#include "sf_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* perm[q]: the caller's vertex at device position q; inv[v]: the device position of the caller's vertex v. */
typedef struct sfi_gpu_order {
    uint32_t *perm, *inv;
    size_t n;
} sfi_gpu_order;
/* The Morton order of the rest positions, which every weld mode's blocks are cut along (sfi_gpu_blocks_build_in
 * with morton_inside: each block's owned vertices are then consecutive device vertices, its halo ascending).
 * Allocated with malloc; SF_ERROR_OUT_OF_MEMORY. */
sf_result sfi_gpu_order_build(const sf_topology* topo, sfi_gpu_order* out, sf_error* err);
void sfi_gpu_order_free(sfi_gpu_order* o); /* NULL-safe; zeroes it */

/* How local an order is: the distinct 128-byte lines of packed float3 positions that the one-rings (the
 * vertices of their faces) of 32 consecutive vertices touch, averaged over the warps, with the vertex at place q
 * perm[q] and vertex v at place inv[v] (both NULL: the caller's order). 0 when out of memory. */
double sfi_gpu_order_lines(const sf_topology* topo, const uint32_t* perm, const uint32_t* inv);

/* Row q of dst = row perm[q] of src, n rows of row_bytes each (the caller's data into device order). */
void sfi_gpu_order_rows(size_t n, const uint32_t* perm, const void* src, size_t row_bytes, void* dst);
/* Row perm[q] of dst = row q of src (device order back into the caller's). */
void sfi_gpu_order_rows_back(size_t n, const uint32_t* perm, const void* src, size_t row_bytes, void* dst);
/* A CSR array into device order: vertex perm[q]'s entries src[offsets[v] .. offsets[v + 1]) (elem_bytes each)
 * become device vertex q's, dst_offsets (n + 1) their offsets; the entries of one vertex keep their order.
 * src NULL: the offsets alone (dst unused). */
void sfi_gpu_order_csr(size_t n, const uint32_t* perm, const uint32_t* offsets, const void* src, size_t elem_bytes,
                       uint32_t* dst_offsets, void* dst);

#ifdef __cplusplus
}
#endif

#endif /* SF_GPU_ORDER_H */

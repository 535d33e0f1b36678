/* The CUDA backend's vertex order (gpu_order.c): the device keeps a topology's vertices in the order of its
 * locality blocks, so that a warp's vertices and one-rings fall into few lines of memory whatever order the
 * mesh was authored in, and its triangles in the order of their first device vertex, so that the face passes read
 * them in step. C only, so that the tests check it on the CPU. A vertex's corners keep their order in every
 * corner list (adjacency, weld groups): every sum over them adds in the caller's order. */
#ifndef SF_GPU_ORDER_H
#define SF_GPU_ORDER_H

#include "sf_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* perm[q]: the caller's vertex at device position q; inv[v]: the device position of the caller's vertex v.
 * fperm[g]: the caller's triangle at device position g; finv[f]: the device position of the caller's triangle f
 * (corner 3f + k of the caller is corner 3 finv[f] + k of the device). */
typedef struct sfi_gpu_order {
    uint32_t *perm, *inv, *fperm, *finv;
    size_t n, F;
} sfi_gpu_order;
/* The Morton order of the rest positions, which every weld mode's blocks are cut along (sfi_gpu_blocks_build_in
 * with morton_inside: each block's owned vertices are then consecutive device vertices, its halo ascending), and
 * the triangles by their lowest device vertex (stable). Allocated with malloc; SF_ERROR_OUT_OF_MEMORY. */
sf_result sfi_gpu_order_build(const sf_topology* topo, sfi_gpu_order* out, sf_error* err);
void sfi_gpu_order_free(sfi_gpu_order* o); /* NULL-safe; zeroes it */

/* How local an order is: the distinct 128-byte lines of packed float3 positions that the one-rings (the
 * vertices of their faces) of 32 consecutive vertices touch, averaged over the warps, with the vertex at place q
 * perm[q] and vertex v at place inv[v] (both NULL: the caller's order). 0 when out of memory. */
double sfi_gpu_order_lines(const sf_topology* topo, const uint32_t* perm, const uint32_t* inv);

/* A caller's corner number as the device's. */
static inline uint32_t sfi_gpu_order_corner(const sfi_gpu_order* o, uint32_t c)
{
    return 3u * o->finv[c / 3u] + c % 3u;
}

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

/* The CUDA backend's locality blocks (gpu_blocks.c): built on the host from a topology, C only, so that the
 * tests check them on the CPU. Part of the core only in a build with the CUDA backend. */
#ifndef SF_GPU_BLOCKS_H
#define SF_GPU_BLOCKS_H

#include "sf_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The vertices in Morton order of their rest positions, cut into blocks of at most max_own vertices whose
 * faces (every face of an owned vertex's corners, and of its weld group's with weld >= 0) and their vertices
 * fit max_faces / max_locals. Block k owns order[own_offsets[k] .. own_offsets[k+1]) (ascending inside a block);
 * its local vertices (public indices) are locals[local_offsets[k] ..]: the owned ones first, in order, then its
 * halo (ascending); its faces
 * are face_locals[3 * face_offsets[k] ..], three local indices each. The owned vertex at order position q
 * has corners[corner_offsets[q] .. corner_offsets[q+1]), each 3 * block face + corner (0, 1, 2): its weld
 * group's normal corners then its own corners (in the adjacency's order; without a weld its own corners
 * serve both). Arrays through the topology's env; built on request (the CUDA backend), never per frame. */
typedef struct sfi_gpu_blocks {
    sfi_store store;
    uint32_t block_count, max_locals, max_faces; /* the largest block's local vertices and faces */
    size_t halo_count, face_count;               /* halo vertices and faces over all blocks */
    uint32_t *order, *own_offsets, *local_offsets, *locals, *face_offsets, *corner_offsets;
    uint16_t *face_locals, *corners;
} sfi_gpu_blocks;
/* weld: -1 none, 0 SF_WELD_POSITION, 1 SF_WELD_POSITION_NORMAL. SF_ERROR_UNSUPPORTED naming the vertex and the
 * sizes when one vertex's faces alone exceed the limits (max_locals <= 65535, max_faces <= 21845). */
sf_result sfi_gpu_blocks_build(const sf_topology* topo, int weld, uint32_t max_own, uint32_t max_locals,
                               uint32_t max_faces, sfi_gpu_blocks* out, sf_error* err);
/* The same with morton_inside = 1: inside a block the owned vertices stay in Morton order and the halo is sorted
 * by Morton position (for a device that keeps its vertices in Morton order, sfi_gpu_order: a warp's reads
 * then fall into few rows there); sfi_gpu_blocks_build is morton_inside = 0. */
sf_result sfi_gpu_blocks_build_in(const sf_topology* topo, int weld, uint32_t max_own, uint32_t max_locals,
                                  uint32_t max_faces, int morton_inside, sfi_gpu_blocks* out, sf_error* err);
void sfi_gpu_blocks_free(sfi_gpu_blocks* blocks); /* NULL-safe; zeroes it */
/* order: the vertices sorted by the Morton code of their rest position (stable); key, tmp: n scratch each. */
void sfi_gpu_morton_order(const sf_topology* topo, uint32_t* key, uint32_t* order, uint32_t* tmp);

#ifdef __cplusplus
}
#endif

#endif /* SF_GPU_BLOCKS_H */

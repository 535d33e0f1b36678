/* Internals shared by the glTF files (gltf_parse.c and the loader files of gltf_loader.h reading, anim.c posing,
 * gltf_write.c writing). */
#ifndef SF_GLTF_INTERNAL_H
#define SF_GLTF_INTERNAL_H

#include "sf_common.h"
#include "skinframe_files.h"
#include "skinframe_gltf.h"

/* The largest magnitude of a number the loader takes from the JSON into a float (node transforms, morph
 * weights, ...), compared as the float it becomes; the writer refuses what lies beyond, so every file it
 * writes loads. */
#define SFI_GLTF_MAX_JSON_FLOAT 3.0e38f

/* Every allocation of a loaded sf_gltf is one block of this list, freed together by sf_gltf_destroy. */
typedef struct sfi_gltf_block {
    struct sfi_gltf_block* next;
    size_t size;
} sfi_gltf_block;

struct sfi_gltf_data {
    sf_env env;
    sfi_gltf_block* blocks;
    const size_t* node_order; /* node_count: parents before children */
    uint32_t* zero_joints;    /* max vertex_count: the rigid instances' joint 0 */
    float* one_weights;       /* max vertex_count: the rigid instances' weight 1 */
};

/* Allocates zeroed memory owned by gltf (NULL on overflow or out of memory). */
void* sfi_gltf_alloc(sf_gltf* gltf, size_t count, size_t elem);

/* 4x4 column-major helpers (anim.c). */
void sfi_mat4_from_trs(const float t[3], const float r[4], const float s[3], float out[16]);
void sfi_mat4_mul(const float a[16], const float b[16], float out[16]);
int sfi_mat4_invert(const float m[16], float out[16]); /* 0 when singular */

#endif

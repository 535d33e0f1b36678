/* What the repair files share (skinframe_fix.h): one primitive of the file as floats, read and written
 * through the rewriter's slots. fix_read.c reads, fix_attrs.c repairs NORMAL and TANGENT, fix_weights.c the
 * influences, fix_morph.c the morph deltas, fix_apply.c drives them; fix_measure.c measures. */
#ifndef SF_FIX_INTERNAL_H
#define SF_FIX_INTERNAL_H

#include "eval_internal.h"
#include "skinframe_fix.h"

#define SFI_FIX_MAX_SETS 8 /* JOINTS_n/WEIGHTS_n sets rewritten (more are left as they are) */

/* One accessor read through a slot: count * components floats, and how it was stored. */
typedef struct sfi_fix_attr {
    float* v;                  /* NULL when the slot is empty */
    size_t count, components;
    uint32_t ctype;
    int normalized;
} sfi_fix_attr;

typedef struct sfi_fix_prim {
    sf_gltf_doc* doc;
    size_t mesh, primitive;
    size_t n;                  /* POSITION count */
    sfi_fix_attr pos, nrm, tan, uv;
    uint32_t* tri;             /* 3 * tri_count, triangles of the mode */
    size_t tri_count;
    uint32_t sets;             /* JOINTS_n/WEIGHTS_n pairs */
    sfi_fix_attr joints[SFI_FIX_MAX_SETS], weights[SFI_FIX_MAX_SETS];
    size_t target_count;
    sfi_fix_attr* tpos;        /* target_count each: POSITION, NORMAL, TANGENT deltas (v NULL when absent) */
    sfi_fix_attr* tnrm;
    sfi_fix_attr* ttan;
    uint32_t mode;             /* 4 TRIANGLES, 5 strip, 6 fan */
    float* split_corners;      /* 12 * tri_count: MikkTSpace's corner tangents, when TANGENT needs vertex splits */
} sfi_fix_prim;

/* Reads meshes[mesh].primitives[primitive]; SF_ERROR_UNSUPPORTED (nothing read) for a mode without
 * triangles or a primitive without POSITION. */
sf_result sfi_fix_read(sf_gltf_doc* doc, size_t mesh, size_t primitive, sfi_fix_prim* out, sf_error* err);
void sfi_fix_free(sfi_fix_prim* p);
/* Writes a's values (its count, components and storage) to the slot; counts a changed slot. */
sf_result sfi_fix_write(sfi_fix_prim* p, size_t target, const char* attribute, const sfi_fix_attr* a,
                        sf_fix_counts* counts, sf_error* err);

sf_result sfi_fix_normals(sfi_fix_prim* p, sf_fix_counts* counts, sf_error* err);
sf_result sfi_fix_tangents(sfi_fix_prim* p, sf_fix_counts* counts, sf_error* err);
/* A normal-mapped primitive (its normal map on TEXCOORD_0) without TANGENT gets MikkTSpace's, one per vertex,
 * when every vertex's corners agree; else its corner tangents are kept for sfi_fix_split_tangents. */
sf_result sfi_fix_generate_tangents(sfi_fix_prim* p, sf_fix_counts* counts, sf_error* err);
/* The kept corner tangents written by splitting the vertices whose corners differ (fix_split.c), with the morph
 * targets' TANGENT deltas where morph; last, as it renumbers the primitive's vertices. */
sf_result sfi_fix_split_tangents(sfi_fix_prim* p, int morph, sf_fix_counts* counts, sf_error* err);
sf_result sfi_fix_weights(sfi_fix_prim* p, uint32_t max_influences, sf_fix_counts* counts, sf_error* err);
sf_result sfi_fix_morph(sfi_fix_prim* p, const sf_frames_opts* reference_opts, const sf_env* env,
                        sf_fix_counts* counts, sf_error* err);

#endif

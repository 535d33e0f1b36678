/*
 * skinframe fix: repairs the authored data of a glTF in place of the file's own accessors (through the glTF
 * layer's rewriter, skinframe_gltf.h "rewriting"), and measures what the repair buys. Every repair is on by
 * default and each can be switched off:
 *   morph normals   targets that move the surface get NORMAL (and, where the primitive has TANGENT, TANGENT)
 *                   deltas rebuilt from their own geometry as the reference rebuilds it (sf_frames_compute with
 *                   `recompute` and reference_opts: weighting, weld groups, kept hard edges, MikkTSpace): at a
 *                   vertex the target changes, delta = reference(target at weight 1) - authored rest direction,
 *                   so the `deltas` method gives the reference exactly at the target's full weight at rest;
 *                   elsewhere 0. Targets without NORMAL deltas get them; targets that move nothing are kept.
 *   weights         every JOINTS_n/WEIGHTS_n set read as one list per vertex: duplicate joints merged, zero-weight
 *                   slots cleared (joint 0, weight 0), influences sorted by weight (largest first, in set order),
 *                   the sum made 1 (exactly in the stored integers for normalized weights); vertices whose
 *                   weights sum to zero are counted, never guessed.
 *   normals         NORMAL of length off 1 made unit; zero (or non-finite) ones rebuilt from the faces around.
 *   tangents        TANGENT w snapped to +1 or -1 (0 becomes +1).
 *   max_influences  K > 0: each vertex keeps its K largest weights, renormalised (the sets beyond K slots stay,
 *                   zeroed); the position and normal error this costs is measured (sf_fix_measure).
 * Primitives without NORMAL (flat shaded by every runtime) keep their morph targets as they are.
 * Layer: the evaluation layer (library skinframe_eval), over the core, glTF and files layers.
 */
#ifndef SKINFRAME_FIX_H
#define SKINFRAME_FIX_H

#include "skinframe.h"
#include "skinframe_eval.h"
#include "skinframe_gltf.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sf_fix_opts {
    bool morph_normals, weights, normals, tangents; /* each repair; sf_fix_opts_init turns all on */
    uint32_t max_influences;                        /* 0 = keep every influence */
    sf_frames_opts reference_opts;                  /* how the reference rebuilds directions */
} sf_fix_opts;

/* Every repair on; reference_opts as `eval` uses for assets: area weighting, position-normal weld, MikkTSpace. */
void sf_fix_opts_init(sf_fix_opts* opts);

/* What was repaired, summed over the primitives. Vertices are the file's (POSITION indices). */
typedef struct sf_fix_counts {
    size_t primitives;                 /* triangle primitives looked at */
    size_t morph_normal_targets;       /* (primitive, target) pairs whose NORMAL deltas changed */
    size_t morph_normal_added;         /* ... of them, targets that had no NORMAL deltas */
    size_t morph_tangent_targets;      /* (primitive, target) pairs whose TANGENT deltas changed */
    size_t morph_flat_skipped;         /* primitives with targets but without NORMAL (left as they are) */
    size_t weights_renormalised;       /* vertices whose weight sum was made 1 */
    size_t duplicate_joints_merged;    /* (vertex, joint) pairs that appeared more than once */
    size_t influences_sorted;          /* vertices whose influences were reordered */
    size_t zero_slots_cleared;         /* slots of weight zero whose joint was not 0 */
    size_t zero_weight_vertices;       /* weights summing to zero: reported, left as they are */
    size_t influences_truncated;       /* vertices that lost an influence to max_influences */
    size_t normals_made_unit, normals_rebuilt, tangent_w_snapped;
    size_t tangents_generated;         /* vertices given MikkTSpace's TANGENT: normal-mapped primitives without one
                                          (the split copies below included) */
    size_t tangent_vertices_added;     /* copies of vertices whose corners MikkTSpace gives different tangents,
                                          appended so that each gets its own (as the glTF loader splits them) */
    size_t tangents_need_splits;       /* normal-mapped primitives left without TANGENT: their split would pass
                                          2^24 vertices */
    size_t accessors_written;          /* slots whose bytes changed (in place or as new accessors) */
} sf_fix_counts;

/* Repairs every mesh primitive of doc (TRIANGLES, TRIANGLE_STRIP and TRIANGLE_FAN; others are left). */
sf_result sf_fix_apply(sf_gltf_doc* doc, const sf_fix_opts* opts, const sf_env* env, sf_fix_counts* out,
                       sf_error* err);

/* One measured case: the normal and tangent error of `skinned` with morph deltas against the reference. */
typedef struct sf_fix_case {
    char label[80];          /* "full weights", "half weights", "overlapping", "clip 0 'Walk'", "rest" */
    sf_angle_stats normal, tangent;
} sf_fix_case;

#define SF_FIX_MAX_CASES 64
typedef struct sf_fix_measure_result {
    sf_fix_case cases[SF_FIX_MAX_CASES];
    size_t case_count;
    size_t targets;          /* morph targets over the measured meshes */
} sf_fix_measure_result;

/* Measures the loaded asset g: each target alone at weight 1 and at 0.5, every target at 1 together (at
 * the rest pose of the scene), then every animation (opts->fps frames per second, as `eval`), with
 * reference_opts for the reference. */
sf_result sf_fix_measure(const sf_gltf* g, const sf_frames_opts* reference_opts, double fps, const sf_env* env,
                         sf_fix_measure_result* out, sf_error* err);

/* What keeping max_influences influences costs over the animations (as `eval --max-influences` measures it):
 * positions against the full deformation's (mesh units and the largest posed bounding-box diagonal) and the
 * normal error of `skinned` so deformed against the full reference, over every clip's frames. */
typedef struct sf_fix_truncation {
    size_t truncated;                  /* vertices (per frame, over the instances) that lose an influence */
    double position_mean, position_max, diagonal;
    sf_angle_stats normal;             /* of the clip with the largest position error */
} sf_fix_truncation;
sf_result sf_fix_measure_truncation(const sf_gltf* g, uint32_t max_influences, const sf_frames_opts* reference_opts,
                                    double fps, const sf_env* env, sf_fix_truncation* out, sf_error* err);

#ifdef __cplusplus
}
#endif

#endif /* SKINFRAME_FIX_H */

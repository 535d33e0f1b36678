/* What the eval layer's files share: error messages with the asset's name, the clock, the variants. */
#ifndef SF_EVAL_INTERNAL_H
#define SF_EVAL_INTERNAL_H

#include "sf_common.h"
#include "skinframe_eval.h"

/* err's message set to "prefix: detail" (prefix NULL: the detail alone), keeping err's result. */
sf_result sfi_eval_fail(sf_error* err, sf_result code, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* err's message prefixed with "name: " (name NULL: unchanged); returns err->result. */
sf_result sfi_eval_prefix(sf_error* err, const char* name);
double sfi_eval_now_s(void);

/* The clip's mean and RMS from its frames' sums (clip_sn, ...) in place of the accumulators' own, after
 * sf_method_stats_clip_finish: histograms merged from several threads keep their sums in frame order. */
void sfi_method_stats_clip_sums(sf_method_stats* m);

/* One unit's errors at one pose (sf_evaluation_pose_errors) into the frame being added, as
 * sf_method_stats_add adds its angles (n vertices; the worst vertices tracked). */
void sfi_method_stats_add_pose(sf_method_stats* m, const sf_pose_errors* p, size_t n, bool tangents, size_t unit,
                               size_t frame);

/* ---------------------------------------------------------------- frames on a device (device_clip.c) */

typedef struct sfi_device_clip sfi_device_clip;

/* Frames [0, plan->frames) of animation on units whose statistics stay on the device (every unit's workspace
 * keeps them: sf_evaluation_run_poses), in batches of frames; each frame folded into e->methods in frame order
 * and on_frame called after it; the clip's histograms merged into e->methods at the end. */
sf_result sfi_device_clip_run(sf_asset_eval* e, size_t animation, const sf_clip_plan* plan, sf_asset_frame_fn on_frame,
                          void* user, sf_asset_clip* out, sf_error* err);
/* The rest pose (identity bones, no morph) of every unit the same way, into e->methods' accumulators. */
sf_result sfi_device_clip_rest(sf_asset_eval* e, sf_error* err);
void sfi_device_clip_destroy(sfi_device_clip* d, size_t unit_count);

/* ---------------------------------------------------------------- frames over threads (frames.c) */

/* Per-thread copies of the units' pose buffers, workspaces and evaluations, each evaluating whole frames; the
 * frames' statistics folded in frame order. */
typedef struct sfi_frame_slots sfi_frame_slots;

/* ---------------------------------------------------------------- the asset (clips.c) */

typedef struct sfi_variants sfi_variants;

struct sf_asset_eval {
    sf_asset_eval_opts o;
    sf_method methods_order[SF_METHOD_COUNT];
    const sf_gltf* g;
    sf_gltf_pose* pose;
    sf_asset_unit* units;
    sf_evaluation** evals; /* unit_count: the reference and every method of one unit, allocated once */
    size_t unit_count;
    size_t vertices, tangent_vertices; /* per frame over all units */
    size_t max_n;                      /* the largest unit */
    float* angles;                     /* per method 2 * max_n: one unit's normal, then tangent angles */
    sf_method_stats methods[SF_METHOD_COUNT];
    sfi_variants* variants;            /* engines and truncations against the full deformation */
    sf_env env;
    uint32_t methods_mask;             /* the units' workspaces' methods */
    sfi_frame_slots* slots;            /* frames over threads on the CPU (frames.c); NULL until a clip runs */
    sfi_device_clip* device;           /* frames in batches on a device (device_clip.c); NULL until a clip runs */
};

/* Unit i at its current pose (units[i], evals[i]): the evaluation, then each method's angles into its
 * statistics (track_worst: the worst vertices too). */
/* Unit i evaluated at its pose (set before), its angles added to the methods' statistics; on_unit (may be NULL)
 * points the buffers first (sf_asset_eval_frame_into), and its non-zero return sets *stopped and fails with
 * "stopped" (stopped may be NULL only where on_unit is). */
sf_result sfi_asset_run_unit(sf_asset_eval* e, size_t i, size_t frame, bool track_worst, sf_asset_unit_fn on_unit,
                             void* user, const float* to_world, bool* stopped, sf_error* err);

/* Frames [0, plan->frames) of animation over the slots, each frame's statistics folded into e->methods in
 * frame order and on_frame called after each; then the clip's histograms merged into e->methods. */
sf_result sfi_frame_slots_clip(sf_asset_eval* e, size_t animation, const sf_clip_plan* plan,
                               sf_asset_frame_fn on_frame, void* user, sf_asset_clip* out, sf_error* err);
void sfi_frame_slots_destroy(sfi_frame_slots* s, size_t unit_count);

/* ---------------------------------------------------------------- variants (variants.c) */

/* The deformations measured against the full one (sfi_variants): the truncation options, each engine preset,
 * and the cost of keeping 4 and 8 influences where the asset has more. Each runs, per unit and frame, an
 * evaluation of its own (sf_evaluation_run_against) after the full one. */

/* The variants opts asks for over the units; never NULL on success (maybe with no variant). */
sf_result sfi_variants_create(const sf_asset_eval_opts* opts, const sf_gltf* g, const sf_asset_unit* units,
                              size_t unit_count, const sf_env* env, sfi_variants** out, sf_error* err);
void sfi_variants_destroy(sfi_variants* v);
/* The methods the units' workspaces must hold for the variants that reuse them (bit 1u << m). */
uint32_t sfi_variants_methods_mask(const sf_asset_eval_opts* opts);
void sfi_variants_clip_start(sfi_variants* v);
/* The pose of the variants that sample the animation their own way (rotation keys as given), at time_s. */
sf_result sfi_variants_sample(sfi_variants* v, size_t animation, double time_s, sf_error* err);
/* Unit i at its current pose, after its full evaluation `full` ran. */
sf_result sfi_variants_run_unit(sfi_variants* v, size_t i, const sf_asset_unit* u, const sf_evaluation* full,
                                size_t frame, sf_error* err);
/* After every unit of the frame: each variant's frame closed (sf_method_stats_frame_end). */
void sfi_variants_frame_end(sfi_variants* v, size_t frame);
/* The clip's statistics, mean and RMS from the frames' sums as the methods' (sfi_method_stats_clip_sums). */
sf_result sfi_variants_clip_finish(sfi_variants* v, sf_error* err);
sf_asset_influences sfi_variants_influences(const sfi_variants* v);
size_t sfi_variants_count(const sfi_variants* v);
sf_asset_variant sfi_variants_at(const sfi_variants* v, size_t i);

#endif

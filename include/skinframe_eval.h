/*
 * skinframe eval: the evaluation of a glTF asset over its animations. Every frame of each clip (t = 0, 1/fps,
 * ... and the clip's end) is posed and every method's normals and tangents are measured against the
 * reference, per method over all frames and vertices (streaming statistics: memory does not grow with the
 * frames), beside the error the asset already has at rest; the deformations runtimes apply (engine presets,
 * influence and morph-target truncation) measured against the full one; the data problems summed per cause;
 * the asset files under folders. Everything is returned as structs: printing is the caller's.
 * Layer: depends on the core (skinframe.h), the glTF layer (skinframe_gltf.h) and the files layer.
 * Library skinframe_eval (CMake skinframe::eval).
 */
#ifndef SKINFRAME_EVAL_H
#define SKINFRAME_EVAL_H

#include "skinframe.h"
#include "skinframe_gltf.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- engine presets (src/eval/engines.c) */

/* Where a runtime gets a tangent when the file has no TANGENT attribute. */
typedef enum sf_engine_tangents {
    SF_ENGINE_TANGENTS_MIKKTSPACE = 0, /* generated per vertex at import (MikkTSpace), then skinned */
    SF_ENGINE_TANGENTS_DERIVATIVES     /* none per vertex: the fragment shader's screen-space derivatives
                                          (such primitives' tangents are not measured) */
} sf_engine_tangents;

/* What an engine or runtime does by default to a skinned, morphed mesh (docs/engines.md cites each choice). */
typedef struct sf_engine {
    const char* name;         /* "three.js", "babylon.js", "godot", "bevy", "filament", "unity" */
    const char* title;        /* for tables: "Godot 4" */
    sf_method normals;        /* how normals follow the bones */
    uint32_t max_influences;  /* joints kept per vertex (largest weights, renormalised); 0 = all */
    size_t max_morph_targets; /* active morph targets (largest weights); 0 = all */
    sf_morph_directions morph_directions; /* which morph direction deltas it adds */
    sf_engine_tangents tangents;
    bool first_slots;         /* max_influences are the first slots in file order (JOINTS_0/WEIGHTS_0 for 4), not
                                 the largest weights; renormalised over them, weight 1 on slot 0's joint where
                                 they sum to 0 */
    bool flat_faces;          /* a primitive without NORMAL is shaded with each deformed triangle's own face
                                 normal (its corners measured against it, whatever `normals` says) */
    bool weights_as_given;    /* with first_slots: the kept weights used as stored, not divided by their sum
                                 (SF_WEIGHTS_AS_GIVEN; kept at rest where they sum to 0) */
    sf_gltf_rotation_keys rotation_keys; /* how rotation keys are interpolated: made unit, or as given by the
                                            engine's slerp (sf_gltf_pose_set_rotations_as_given) */
} sf_engine;

size_t sf_engine_count(void);
const sf_engine* sf_engine_at(size_t i); /* NULL past the end */
const sf_engine* sf_engine_find(const char* name); /* NULL when unknown */
/* "three.js, babylon.js, ..." for errors and help. */
const char* sf_engine_names(void);

/* How much a method costs at run time, cheapest first: the core's sf_method_traits cost levels. */
#define SF_COST_LEVELS (SF_COST_GATHER + 1)
sf_method_cost sf_cost_of(sf_method method); /* sf_method_traits_of(method).cost */
const char* sf_cost_name(sf_method_cost level); /* "per vertex (no neighbours)", ... */

/* ---------------------------------------------------------------- frames of a clip (src/eval/plan.c) */

/* The frames of one clip: t = 0, 1/fps, 2/fps, ... below the end, then the end itself (once, also when it
 * falls on a multiple of 1/fps). A clip of length 0 (or the rest pose) is one frame at t = 0. */
typedef struct sf_clip_plan {
    double end_s, fps;
    size_t frames;
    double frames_needed; /* what the clip needs (may be infinite), also when over max_frames */
} sf_clip_plan;

/* Plans the frames: SF_ERROR_TOO_LARGE when the clip needs more than max_frames (out->frames_needed says how
 * many; the caller names its own limit), SF_ERROR_INVALID_ARGUMENT for fps <= 0. */
sf_result sf_clip_plan_make(double end_s, double fps, size_t max_frames, sf_clip_plan* out);
double sf_clip_plan_time(const sf_clip_plan* plan, size_t frame);

/* ---------------------------------------------------------------- streaming statistics (src/eval/stats.c) */

/* One method over the frames of one clip (and its rest-pose error), in memory that does not grow with the
 * frames: two sf_angle_accumulators, the worst frame, the worst vertices, the current frame's sums. */
typedef struct sf_method_stats {
    bool on;                 /* asked for */
    bool skipped;            /* the method cannot run on this asset: reason */
    char reason[256];
    sf_angle_accumulator *normal_acc, *tangent_acc;
    sf_angle_stats normal, tangent, rest_normal, rest_tangent;
    size_t handedness;       /* vertex-frames with a handedness mismatch */
    double worst_frame_mean; /* the frame with the largest normal mean: worst_frame */
    size_t worst_frame;
    double worst_n, worst_t; /* the worst vertices: angle, unit, vertex (of the unit's topology), frame */
    size_t worst_n_unit, worst_n_vertex, worst_n_frame, worst_t_unit, worst_t_vertex, worst_t_frame;
    /* variants: distances of the final positions from the full deformation's */
    double pos_sum, pos_max, pos_diagonal; /* mesh units; the largest posed bounding-box diagonal seen */
    size_t pos_count;
    /* the frame being added */
    double frame_sn, frame_st;
    double frame_sn2, frame_st2; /* sums of squares, as the accumulator's RMS takes them */
    float frame_mn, frame_mt;
    size_t frame_cn, frame_ct;
    /* the clip's sums: each frame's sums added in frame order (the parts of a clip spread over threads), which
     * give the clip's mean and RMS whatever the threads */
    double clip_sn, clip_sn2, clip_st, clip_st2;
} sf_method_stats;

/* stats[SF_METHOD_COUNT], indexed by sf_method: accumulators for each of methods[0..count). */
sf_result sf_method_stats_create(sf_method_stats* stats, const sf_method* methods, size_t count, sf_error* err);
void sf_method_stats_free(sf_method_stats* stats); /* all SF_METHOD_COUNT */
/* Empties the clip statistics (keeps rest_*, skipped); before each clip and the rest pose. */
void sf_method_stats_clip_start(sf_method_stats* m);
void sf_method_stats_frame_start(sf_method_stats* m);
/* One unit's angles at `frame` (tangent_deg NULL without a tangent frame); worst vertices when track_worst. */
sf_result sf_method_stats_add(sf_method_stats* m, const float* normal_deg, const float* tangent_deg, size_t n,
                              size_t unit, size_t frame, bool track_worst, sf_error* err);
/* The same from row k of the evaluation's last run, by its summary and sf_evaluation_accumulate (a run that
 * stayed on the GPU: nothing per vertex). */
sf_result sf_method_stats_add_summary(sf_method_stats* m, const sf_evaluation* ev, size_t k, bool tangents,
                                      size_t unit, size_t frame, bool track_worst, sf_error* err);
/* Closes the frame: the worst frame so far, the frame's sums added to the clip's (the frame_* sums stay until the
 * next frame starts). */
void sf_method_stats_frame_end(sf_method_stats* m, size_t frame);
/* The clip's statistics into normal/tangent, or rest_normal/rest_tangent. */
sf_result sf_method_stats_clip_finish(sf_method_stats* m, bool rest, sf_error* err);

/* The best method (lowest normal mean, then tangent mean) of each cost level among methods[0..count) that
 * ran; SF_METHOD_COUNT where none did. */
void sf_method_stats_best_per_cost(const sf_method_stats* stats, const sf_method* methods, size_t count,
                                   sf_method out[SF_COST_LEVELS]);

/* ---------------------------------------------------------------- units (src/eval/units.c) */

/* One primitive of one scene instance, ready to pose and evaluate. */
typedef struct sf_asset_unit {
    size_t instance, primitive; /* into gltf->instances and gltf->primitives */
    sf_topology* topo;
    sf_workspace* ws;
    size_t n;      /* vertices of the topology (after flat-normal splitting) */
    bool tangents; /* the topology has a tangent frame (UVs) */
    float* bones;  /* 12 * bone_count, set by sf_asset_unit_pose */
    float* morph;  /* target_count morph weights (one spare) */
    sf_pose pose;  /* points at bones and morph */
    size_t owner;  /* the unit whose topology and workspace this one uses: its own index, or an earlier unit
                      drawing the same primitive with the same skinning fields (CPU workspaces only), so that
                      instances of a mesh cost one topology; units sharing them must run one at a time */
} sf_asset_unit;

/* Every (instance, primitive) of the scene in order, with topology and workspace for `methods` (bit 1u << m
 * per sf_method; the reference, recompute, is always included; the jacobian's gradients only when asked),
 * the workspaces on `backend`. On the CPU, units whose meshes are the same (one primitive drawn by several
 * nodes, rigid or with skins of as many joints) share the first one's topology and workspace (owner). None is an error (SF_ERROR_INVALID_ARGUMENT, "nothing to evaluate: " and why).
 * Vertices whose weights sum to zero stay at rest (a data problem, not an error). */
sf_result sf_asset_units_create(const sf_gltf* gltf, uint32_t methods, sf_backend backend, const sf_env* env,
                                sf_asset_unit** out, size_t* count, sf_error* err);
void sf_asset_units_free(sf_asset_unit* units, size_t count);
/* Bones and morph weights of the unit at the pose's moment (to_world: 16 floats or NULL). Does not allocate. */
sf_result sf_asset_unit_pose(const sf_gltf_pose* pose, sf_asset_unit* unit, float* to_world, sf_error* err);
/* sf_pose_validate of the unit's pose (after sf_asset_unit_pose at that moment), its error named as the asset
 * names things, as an asset evaluation's are: "animation 'Run' at t = 0.533 s: node 12 'Arm'
 * (skins[0].joints[1]): its skinning matrix's element 0 is 1e+30, beyond SF_MAX_BONE_SCALE (1e+06)" ("rest
 * pose: ..." where animation is SF_GLTF_NONE). */
sf_result sf_asset_unit_pose_check(const sf_gltf* gltf, const sf_asset_unit* unit, size_t animation, double time_s,
                                   sf_error* err);
/* A topology of the unit's primitive keeping at most max_influences (joint, weight) pairs per vertex (the
 * largest, renormalised: sf_influences_truncate; with first_slots the first ones in file order, as sf_engine's
 * first_slots says, their weights used as stored with weights_as_given), and a CPU workspace of it for methods
 * (the reference added).
 * *truncated: the vertices that lose an influence. When none does (or max_influences is 0), *topo and *ws stay
 * NULL: the unit's own stand for them. */
sf_result sf_asset_unit_truncated(const sf_gltf* gltf, const sf_asset_unit* u, uint32_t max_influences, bool first_slots,
                                  bool weights_as_given, uint32_t methods, const sf_env* env, sf_topology** topo, sf_workspace** ws,
                                  size_t* truncated, sf_error* err);

/* ---------------------------------------------------------------- the asset (src/eval/clips.c, variants.c) */

/* What to measure; zeroed, then the methods and the frames set (sf_asset_eval_opts_init). */
typedef struct sf_asset_eval_opts {
    const sf_method* methods;       /* the methods measured, in this order */
    size_t method_count;
    sf_frames_opts reference_opts;  /* the reference (recompute) and the recompute row */
    sf_frames_opts method_opts;     /* the other methods (morph directions, jacobian cap) */
    sf_backend backend;
    double fps;                     /* default 30 */
    size_t max_frames;              /* per clip (default SF_ASSET_DEFAULT_MAX_FRAMES) */
    /* Variants measured against the full deformation: */
    bool influence_variants;        /* keeping 4 and 8 influences where the asset has more */
    uint32_t max_influences;        /* > 0: every method with at most this many influences ... */
    size_t max_morph_targets;       /* ... and / or this many morph targets (one variant) */
    const sf_engine* engine;        /* one engine preset, or NULL */
    bool all_engines;               /* every engine preset */
    const char* name;               /* the asset, put before the errors that concern the file; NULL: none */
    size_t threads;                 /* frames evaluated at once on the CPU, each with workspaces of its own,
                                       through the env's parallel_for (0 or 1: one at a time; one with variants);
                                       the results are the same bit for bit for any number */
} sf_asset_eval_opts;

#define SF_ASSET_DEFAULT_MAX_FRAMES 100000
void sf_asset_eval_opts_init(sf_asset_eval_opts* opts);

/* One variant of the deformation and its statistics over the last clip. */
typedef struct sf_asset_variant {
    const char* label;            /* "4 influences", "4 infl, 2 morphs", an engine's title */
    const sf_engine* engine;      /* NULL: a truncation */
    uint32_t max_influences;      /* 0 = all */
    size_t max_morph_targets;     /* 0 = all */
    sf_morph_directions morph_directions;
    bool derivatives;             /* no vertex tangent where the file has none: not measured there */
    const sf_method* methods;     /* its methods, in order */
    size_t method_count;
    size_t truncated;             /* vertices (per frame, over the units) that lose an influence */
    const sf_method_stats* stats; /* SF_METHOD_COUNT, indexed by sf_method */
} sf_asset_variant;

/* The asset's influence counts, per frame over the units. */
typedef struct sf_asset_influences {
    size_t vertices, over4, over8; /* with more than 4 / 8 nonzero weights */
    uint32_t max_slots;            /* influence slots per vertex in the file (every JOINTS_n set) */
} sf_asset_influences;

/* One clip's outcome (valid until the next clip or sf_asset_eval_destroy). */
typedef struct sf_asset_clip {
    size_t animation;               /* SF_GLTF_NONE: the rest pose */
    sf_clip_plan plan;
    size_t vertices, tangent_vertices; /* per frame over all units */
    const sf_method_stats* methods; /* SF_METHOD_COUNT, indexed by sf_method (rest_* filled too) */
    double seconds;                 /* the frames' evaluation */
    bool stopped;                   /* a callback's non-zero return ended the clip or moment (not a failure) */
} sf_asset_clip;

/* Called after each frame of a clip (the methods' frame_* sums are that frame's), e.g. for per-frame rows or
 * progress; a non-zero return stops the clip with SF_ERROR_INVALID_ARGUMENT ("stopped") and clip->stopped set. */
typedef int (*sf_asset_frame_fn)(void* user, const sf_asset_clip* clip, size_t frame, double time_s);

typedef struct sf_asset_eval sf_asset_eval;

/* The units, evaluations, statistics and variants of an asset (g must outlive it); env NULL: serial. */
sf_result sf_asset_eval_create(const sf_gltf* g, const sf_asset_eval_opts* opts, const sf_env* env,
                               sf_asset_eval** out, sf_error* err);
void sf_asset_eval_destroy(sf_asset_eval* e);
/* The error every method already has at rest (identity bones, no morph): the methods' rest_* statistics. */
sf_result sf_asset_eval_rest(sf_asset_eval* e, sf_error* err);
/* Every frame of animation `animation` (SF_GLTF_NONE: the rest pose, one frame) measured; *out the outcome.
 * A method that cannot run is marked skipped (and stays so). */
sf_result sf_asset_eval_clip(sf_asset_eval* e, size_t animation, sf_asset_frame_fn on_frame, void* user,
                             sf_asset_clip* out, sf_error* err);
/* One moment of animation `animation` (SF_GLTF_NONE: the rest pose of the nodes) at time_s, every unit posed
 * together, as one frame of sf_asset_eval_clip: the methods' frame_* sums in out->methods are that frame's (the
 * clip statistics are emptied first; variants are not measured). For a page or a tool that follows a moving
 * time; SF_ERROR_UNSUPPORTED where the statistics stay on a device (--backend cuda). */
sf_result sf_asset_eval_frame(sf_asset_eval* e, size_t animation, double time_s, sf_asset_clip* out, sf_error* err);
/* Called by sf_asset_eval_frame_into for each unit, in order, just before the unit is evaluated: to_world is its
 * node's placement in the scene (16 floats, column-major, as sf_gltf_pose_instance gives it); buffers (indexed
 * like the unit's evaluation's rows: rows[k] is opts.methods[k]'s) point the rows' angles at the asset
 * evaluation's own scratch, everything else NULL. The callback may point any array at memory of its own (sizes
 * as sf_eval_buffers says, the unit's n vertices) to keep that unit's final positions (the mesh's space), the
 * reference's frames, a row's frames or angles past the call; the statistics read the angles where it leaves
 * them (a row's tangent_deg only where the unit has a tangent frame; zeros there otherwise). Non-zero stops the
 * moment (SF_ERROR_INVALID_ARGUMENT, "stopped", out->stopped set; a failure leaves it false). */
typedef int (*sf_asset_unit_fn)(void* user, size_t unit, const float* to_world, sf_eval_buffers* buffers);
/* sf_asset_eval_frame, each unit's results kept where on_unit points them (on_unit NULL: sf_asset_eval_frame):
 * one evaluation for a moment's statistics and its per-vertex arrays (a page drawing the whole character). */
sf_result sf_asset_eval_frame_into(sf_asset_eval* e, size_t animation, double time_s, sf_asset_unit_fn on_unit,
                                   void* user, sf_asset_clip* out, sf_error* err);
/* The clip's length and frames (at the opts' fps and max_frames), without evaluating. */
sf_result sf_asset_clip_plan(const sf_gltf* g, size_t animation, double fps, size_t max_frames, sf_clip_plan* out);

const sf_asset_unit* sf_asset_eval_units(const sf_asset_eval* e, size_t* count);
void sf_asset_eval_counts(const sf_asset_eval* e, size_t* vertices, size_t* tangent_vertices);
sf_asset_influences sf_asset_eval_influences(const sf_asset_eval* e);
size_t sf_asset_eval_variant_count(const sf_asset_eval* e);
/* Variant i with its statistics over the last clip. */
sf_asset_variant sf_asset_eval_variant(const sf_asset_eval* e, size_t i);

/* ---------------------------------------------------------------- data problems (src/eval/problems.c) */

/* The data problems of the primitives units use, summed per cause, with the worst instance of each. */
typedef struct sf_asset_problem_total {
    size_t count, primitive, index;
    double worst;
    bool any;
} sf_asset_problem_total;
/* totals[SF_GLTF_PROBLEM_COUNT]; returns the problems in all. */
size_t sf_asset_problems_gather(const sf_gltf* g, const sf_asset_unit* units, size_t unit_count, uint32_t limit,
                                sf_asset_problem_total* totals);

/* ---------------------------------------------------------------- batch over files (src/eval/batch.c) */

/* Every .gltf/.glb under each folder in paths (recursively, sorted by path in byte order; links to folders
 * are not followed; at most SF_ASSET_MAX_DEPTH deep) and every other path as given, in argument order. */
typedef struct sf_asset_paths {
    char** items;
    size_t count, cap;
} sf_asset_paths;
#define SF_ASSET_MAX_DEPTH 64
/* Called for a folder that cannot be read or is too deep (it is left out, the rest are still listed). */
typedef void (*sf_asset_paths_skip_fn)(void* user, const char* folder, const sf_error* why);
/* SF_ERROR_OUT_OF_MEMORY only; out is emptied first and freed by sf_asset_paths_free. */
sf_result sf_asset_paths_collect(const char* const* paths, size_t count, sf_asset_paths_skip_fn on_skip, void* user,
                                 sf_asset_paths* out, sf_error* err);
void sf_asset_paths_free(sf_asset_paths* list);
bool sf_asset_path_is_dir(const char* path);

#ifdef __cplusplus
}
#endif

#endif

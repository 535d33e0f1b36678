/* skinframe eval, one concern per file: cmd_eval.c (flags, one asset or a batch), eval_asset.c (one asset:
 * units, rest pose, every frame of each animation, data problems), eval_stats.c (per-method statistics over
 * frames in fixed memory), eval_frames.c (which frames, progress), eval_report.c (tables and JSON of one
 * asset), eval_batch.c (many assets: the file list, one summary row per clip, JSON lines). */
#ifndef SF_CLI_EVAL_H
#define SF_CLI_EVAL_H

#include "engines.h"
#include "gltf_args.h"
#include "scene_args.h"

#include <cjson/cJSON.h>

#define EVAL_DEFAULT_MAX_FRAMES 100000
/* --max-work: vertex-frames over every clip and instance (about 10 minutes of every method on one core) */
#define EVAL_DEFAULT_MAX_WORK ((size_t)100000000)
/* A frame counts at least this many vertices: posing and sampling cost per frame whatever the mesh. */
#define EVAL_FRAME_MIN_VERTICES 1000

struct eval_opts;
struct eval_clip;
/* Called after each clip of a text batch (the batch's summary row), instead of the asset's table. */
typedef void (*eval_clip_fn)(const struct eval_opts* o, const char* path, const struct eval_clip* clip);

/* What the command line set, the same for every asset. */
typedef struct eval_opts {
    cli_scene_args args;     /* methods, reference and method settings (glTF defaults applied) */
    double fps;
    size_t max_frames;       /* per animation */
    size_t max_work;         /* vertex-frames over all clips and instances (eval_work_check) */
    const char* anim_spec;   /* --animation, NULL = all */
    size_t texcoord, limit;  /* --texcoord, --max-influences (data problems; 4 when not given) */
    uint32_t max_influences; /* --max-influences K: also measured kept to K (0 = not given) */
    size_t max_morph_targets; /* --max-morph-targets K (0 = not given) */
    const cli_engine* engine; /* --engine NAME; NULL: none, or all with all_engines */
    bool all_engines;         /* --engine all */
    bool json, strict, progress;
    bool batch;              /* several assets: summary rows or JSON lines instead of one asset's report */
    FILE* csv;               /* per-frame rows, or NULL */
    const char* csv_file;    /* in a batch: the asset, a first CSV column; NULL for one asset */
    eval_clip_fn on_clip;    /* text batch: one summary row per clip */
} eval_opts;

/* ---------------------------------------------------------------- frames (eval_frames.c) */

/* The frames of one clip: t = 0, 1/fps, 2/fps, ... below the end, then the end itself (once, also when it
 * falls on a multiple of 1/fps). A clip of length 0 (or the rest pose) is one frame at t = 0. */
typedef struct eval_plan {
    double end_s, fps;
    size_t frames;
} eval_plan;

/* Plans the frames; more than max_frames: a one-line error naming --max-frames and the frames needed
 * (`what` names the clip), CLI_EXIT_FAILURE. */
int eval_plan_make(double end_s, double fps, size_t max_frames, const char* what, eval_plan* out);
double eval_plan_time(const eval_plan* plan, size_t frame);
/* frames (over every clip) x vertices (over every instance, at least EVAL_FRAME_MIN_VERTICES) within
 * max_work, else a one-line error naming --max-work (`what` names the asset), CLI_EXIT_FAILURE. */
int eval_work_check(size_t frames, size_t vertices, size_t max_work, const char* what);

/* The progress bar on stderr with the time left (only when on). */
typedef struct eval_progress {
    bool on;
    const char* label;
    size_t total;
    double start_s, shown_s;
} eval_progress;
void eval_progress_start(eval_progress* p, bool on, const char* label, size_t total);
void eval_progress_step(eval_progress* p, size_t done);
void eval_progress_end(eval_progress* p);
double eval_now_s(void);

/* ---------------------------------------------------------------- statistics (eval_stats.c) */

/* One method over the frames of one clip (and its rest-pose error), in memory that does not grow with the
 * frames: two sf_angle_accumulators, the worst frame, the worst vertices, the current frame's sums. */
typedef struct eval_method {
    bool on;                 /* asked for */
    bool skipped;            /* the library cannot run it: reason */
    char reason[256];
    sf_angle_accumulator *normal_acc, *tangent_acc;
    sf_angle_stats normal, tangent, rest_normal, rest_tangent;
    size_t handedness;       /* vertex-frames with a handedness mismatch */
    double worst_frame_mean; /* the frame with the largest normal mean: worst_frame */
    size_t worst_frame;
    double worst_n, worst_t;
    size_t worst_n_unit, worst_n_vertex, worst_n_frame, worst_t_unit, worst_t_vertex, worst_t_frame;
    /* variants (eval_variant.c): distances of the final positions from the full deformation's */
    double pos_sum, pos_max, pos_diagonal; /* mesh units; the largest posed bounding-box diagonal seen */
    size_t pos_count;
    /* the frame being added */
    double frame_sn, frame_st;
    float frame_mn, frame_mt;
    size_t frame_cn, frame_ct;
} eval_method;

/* Accumulators for every method in args; CLI exit status (one-line error when out of memory). */
int eval_methods_create(eval_method* m, const cli_scene_args* args);
void eval_methods_free(eval_method* m);
/* Empties a method's clip statistics (keeps rest_*, skipped); called before each clip and the rest pose. */
void eval_method_clip_start(eval_method* m);
void eval_method_frame_start(eval_method* m);
/* One unit's angles at `frame` (tangent_deg NULL without a tangent frame); worst vertices tracked when
 * track_worst. CLI exit status. */
int eval_method_add(eval_method* m, const float* normal_deg, const float* tangent_deg, size_t n, size_t unit,
                    size_t frame, bool track_worst);
/* The same from row k of the evaluation's last run, by its summary and sf_evaluation_accumulate (a run that
 * stayed on the GPU: nothing per vertex). CLI exit status. */
int eval_method_add_summary(eval_method* m, const sf_evaluation* ev, size_t k, bool tangents, size_t unit,
                            size_t frame, bool track_worst);
/* Closes the frame: the worst frame so far; the frame's means and maxima for the CSV. */
void eval_method_frame_end(eval_method* m, size_t frame);
/* The clip's statistics into normal/tangent, or rest_normal/rest_tangent. CLI exit status. */
int eval_method_clip_finish(eval_method* m, bool rest);

/* ---------------------------------------------------------------- one asset (eval_asset.c) */

/* One clip's outcome, for the batch summary. */
typedef struct eval_clip {
    const char* label;       /* "(rest pose)" or the animation's label */
    const eval_plan* plan;
    size_t vertices, tangent_vertices;
    const eval_method* methods; /* SF_METHOD_COUNT, indexed by sf_method */
} eval_clip;

/* Evaluates the asset at path. Single (o->batch false): prints the asset's report (text or formatted JSON)
 * as the command always has. Batch: calls o->on_clip per clip (text) or prints one compact JSON line.
 * CLI exit status; every failure has printed its one-line error. *done: the report is complete (also when
 * --strict then fails the asset for its data problems). */
int eval_asset(const eval_opts* o, const char* path, bool* done);

/* ---------------------------------------------------------------- variants (eval_variant.c) */

/* The deformations eval measures against the full one (what a runtime does to the asset): the truncation
 * flags, each engine preset, and the cost of keeping 4 and 8 influences where the asset has more. Each runs,
 * per unit and frame, an evaluation of its own (sf_evaluation_run_against) after the full one. */
typedef struct eval_variants eval_variants;

/* The variants o asks for, over the units (whose evaluations are the full deformation); *out NULL when none.
 * Counts the vertices with more than 4 and 8 influences. CLI exit status (one-line error). */
int eval_variants_create(const eval_opts* o, const char* path, const sf_gltf* g, const cli_gltf_unit* units,
                         size_t unit_count, const sf_frames_opts* ref_opts, const sf_frames_opts* method_opts,
                         eval_variants** out);
void eval_variants_destroy(eval_variants* v);
/* The methods the units' workspaces must hold for the variants that reuse them (bit 1u << m). */
uint32_t eval_variants_methods_mask(const eval_opts* o);
void eval_variants_clip_start(eval_variants* v);
/* Unit i at its current pose, after its full evaluation `full` ran. CLI exit status. */
int eval_variants_run_unit(eval_variants* v, size_t i, cli_gltf_unit* u, const sf_evaluation* full, size_t frame);
int eval_variants_clip_finish(eval_variants* v);
/* The asset's influence counts: one text line, or the JSON member "influences" of obj. */
void eval_variants_print_influences(const eval_variants* v);
void eval_variants_influences_json(const eval_variants* v, cJSON* obj);
/* The variant table of the clip (text), and with engines the best method per cost level. best: the full
 * deformation's method statistics. */
void eval_variants_print(const eval_variants* v, const eval_method* best, const cli_scene_args* args);
/* The same as JSON members of obj: "variants" (one object per variant and method) and "best_per_cost". */
void eval_variants_json(const eval_variants* v, const eval_method* best, const cli_scene_args* args, cJSON* obj);

/* ---------------------------------------------------------------- reports (eval_report.c) */

typedef struct eval_asset_view {
    const char* path;
    const sf_gltf* g;
    const cli_gltf_unit* units;
    size_t unit_count;
    const cli_scene_args* args;
    size_t vertices, tangent_vertices;
} eval_asset_view;

void eval_report_table(const eval_asset_view* a, const eval_method* m, const char* title, const eval_plan* plan);
cJSON* eval_report_methods_json(const eval_asset_view* a, const eval_method* m, const eval_plan* plan);
/* The "tangents not measured" line of the text header (nothing when every vertex has a tangent frame). */
void eval_report_tangent_note(FILE* f, size_t vertices, size_t tangent_vertices);

/* Data problems of the used primitives, summed per cause. */
typedef struct eval_problem_total {
    size_t count, primitive, index;
    double worst;
    bool any;
} eval_problem_total;
size_t eval_problems_gather(const eval_asset_view* a, uint32_t limit, eval_problem_total* totals);
void eval_problems_print(const eval_asset_view* a, size_t limit, size_t problems, const eval_problem_total* totals);
cJSON* eval_problems_json(const eval_asset_view* a, const eval_problem_total* totals);

/* ---------------------------------------------------------------- batch (eval_batch.c) */

/* Every .gltf/.glb under each folder in paths (recursively, sorted by path in byte order; links to folders
 * are not followed) and every other path as given, in argument order; copies, freed by eval_paths_free.
 * A folder that cannot be read prints one line and counts in *failed (the rest are still listed).
 * CLI_EXIT_FAILURE only when out of memory. */
typedef struct eval_path_list {
    char** items;
    size_t count, cap;
} eval_path_list;
int eval_paths_collect(char** paths, size_t count, eval_path_list* out, size_t* failed);
void eval_paths_free(eval_path_list* list);
/* True when path names a folder. */
bool eval_path_is_dir(const char* path);

/* Runs every asset of list; returns CLI_EXIT_FAILURE when any failed. */
int eval_batch_run(const eval_opts* o, const eval_path_list* list, size_t failed_before);

#endif

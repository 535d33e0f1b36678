/* skinframe eval, printing and flags over the asset evaluation layer (skinframe_eval.h), one concern per file:
 * cmd_eval.c (flags, one asset or a batch), eval_asset.c (one asset: the layer's clips, printed as tables or
 * JSON, the per-frame CSV), eval_progress.c (progress), eval_report.c (tables and JSON of one asset's methods
 * and data problems), eval_variant.c (the variants' tables and JSON), eval_batch.c (many assets: one summary
 * row per clip, JSON lines). */
#ifndef SF_CLI_EVAL_H
#define SF_CLI_EVAL_H

#include "gltf_args.h"
#include "scene_args.h"

#include <cjson/cJSON.h>

#define EVAL_DEFAULT_MAX_FRAMES SF_ASSET_DEFAULT_MAX_FRAMES
/* --max-work: vertex-frames over every clip and instance (about 10 minutes of every method on one core) */
#define EVAL_DEFAULT_MAX_WORK ((size_t)100000000)
/* A frame counts at least this many vertices: posing and sampling cost per frame whatever the mesh. */
#define EVAL_FRAME_MIN_VERTICES 1000

struct eval_opts;
/* Called after each clip of a text batch (the batch's summary row), instead of the asset's table. */
typedef void (*eval_clip_fn)(const struct eval_opts* o, const char* path, const char* label,
                             const sf_asset_clip* clip);

/* What the command line set, the same for every asset. */
typedef struct eval_opts {
    cli_scene_args args;     /* methods, reference and method settings (glTF defaults applied) */
    double fps;
    size_t max_frames;       /* per animation */
    size_t max_work;         /* vertex-frames over all clips and instances (checked before any work) */
    const char* anim_spec;   /* --animation, NULL = all */
    size_t texcoord, limit;  /* --texcoord, --max-influences (data problems; 4 when not given) */
    uint32_t max_influences; /* --max-influences K: also measured kept to K (0 = not given) */
    size_t max_morph_targets; /* --max-morph-targets K (0 = not given) */
    const sf_engine* engine; /* --engine NAME; NULL: none, or all with all_engines */
    bool all_engines;         /* --engine all */
    bool json, strict, progress;
    bool batch;              /* several assets: summary rows or JSON lines instead of one asset's report */
    FILE* csv;               /* per-frame rows, or NULL */
    const char* csv_file;    /* in a batch: the asset, a first CSV column; NULL for one asset */
    eval_clip_fn on_clip;    /* text batch: one summary row per clip */
} eval_opts;

/* ---------------------------------------------------------------- progress (eval_progress.c) */

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

/* ---------------------------------------------------------------- one asset (eval_asset.c) */

/* Evaluates the asset at path. Single (o->batch false): prints the asset's report (text or formatted JSON)
 * as the command always has. Batch: calls o->on_clip per clip (text) or prints one compact JSON line.
 * CLI exit status; every failure has printed its one-line error. *done: the report is complete (also when
 * --strict then fails the asset for its data problems). */
int eval_asset(const eval_opts* o, const char* path, bool* done);

/* ---------------------------------------------------------------- variants (eval_variant.c) */

/* The asset's influence counts: one text line, or the JSON member "influences" of obj. */
void eval_variants_print_influences(const sf_asset_eval* e);
void eval_variants_influences_json(const sf_asset_eval* e, cJSON* obj);
/* The variant table of the last clip (text), and with engines the best method per cost level. best: the full
 * deformation's method statistics. */
void eval_variants_print(const sf_asset_eval* e, const sf_method_stats* best, const cli_scene_args* args);
/* The same as JSON members of obj: "variants" (one object per variant and method) and "best_per_cost". */
void eval_variants_json(const sf_asset_eval* e, const sf_method_stats* best, const cli_scene_args* args, cJSON* obj);

/* ---------------------------------------------------------------- reports (eval_report.c) */

typedef struct eval_asset_view {
    const char* path;
    const sf_gltf* g;
    const cli_gltf_unit* units;
    size_t unit_count;
    const cli_scene_args* args;
    size_t vertices, tangent_vertices;
} eval_asset_view;

void eval_report_table(const eval_asset_view* a, const sf_method_stats* m, const char* title, const sf_clip_plan* plan);
cJSON* eval_report_methods_json(const eval_asset_view* a, const sf_method_stats* m, const sf_clip_plan* plan);
/* The "tangents not measured" line of the text header (nothing when every vertex has a tangent frame). */
void eval_report_tangent_note(FILE* f, size_t vertices, size_t tangent_vertices);

/* Data problems of the used primitives, summed per cause (sf_asset_problems_gather). */
void eval_problems_print(const eval_asset_view* a, size_t limit, size_t problems, const sf_asset_problem_total* totals);
cJSON* eval_problems_json(const eval_asset_view* a, const sf_asset_problem_total* totals);

/* ---------------------------------------------------------------- batch (eval_batch.c) */

/* The assets of paths (sf_asset_paths_collect): a folder that cannot be read prints one line (and with json
 * its JSON error line) and counts in *failed (the rest are still listed). CLI_EXIT_FAILURE only when out of
 * memory. */
int eval_paths_collect(char** paths, size_t count, bool json, sf_asset_paths* out, size_t* failed);

/* Runs every asset of list; returns CLI_EXIT_FAILURE when any failed. */
int eval_batch_run(const eval_opts* o, const sf_asset_paths* list, size_t failed_before);

#endif

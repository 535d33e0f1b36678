/* One comparison run (scene -> topology -> reference -> every requested method -> error summary), and
 * its text table and JSON. Used by compare, its sweeps and dumps, and demo. */
#ifndef SF_CLI_REPORT_H
#define SF_CLI_REPORT_H

#include "outputs.h"
#include "scene_args.h"

#include <cjson/cJSON.h>

typedef struct cli_method_result {
    sf_method method;
    bool skipped;             /* the library does not support it (SF_ERROR_UNSUPPORTED) */
    char skip_reason[256];
    sf_error_summary summary; /* against the reference */
    sf_frames_report report;  /* the library's counters for this method */
    const float* normals;     /* 3n, only with keep_frames */
    const float* tangents;    /* 4n, only with keep_frames */
    const sf_eval_row* row;   /* the evaluation's row (per-vertex angles with keep_frames) */
} cli_method_result;

typedef struct cli_run {
    const cli_scene_args* args;
    sf_scene* scene;
    sf_topology* topo;
    sf_workspace* ws;
    sf_evaluation* eval;        /* the reference and every method, run once */
    sf_frames_opts method_opts; /* morph directions for the per-vertex methods */
    sf_frames_opts ref_opts;    /* the reference (and the recompute row) */
    bool weighting_from_flag;   /* --weighting given, else the scene's reference weighting */
    size_t vertex_count, triangle_count;
    const float* positions;     /* 3n final positions (in eval) */
    const float* ref_normals;   /* 3n */
    const float* ref_tangents;  /* 4n */
    cli_method_result methods[SF_METHOD_COUNT]; /* in the order asked for */
    size_t method_count;
} cli_run;

/* Builds the scene (args' settings, then `extra`), the topology and workspace, and runs one evaluation:
 * the reference and each requested method, and their error summaries. keep_frames keeps every method's
 * normals, tangents and per-vertex angles (for dumps and pictures). Returns a CLI exit status; prints a one-line error unless CLI_EXIT_OK.
 * cli_run_free is safe after any return. */
int cli_run_compare(const cli_scene_args* args, const sf_env* env, const cli_assignment* extra, size_t extra_count,
                    bool keep_frames, cli_run* run);
void cli_run_free(cli_run* run);

/* Prints "skinframe: note: METHOD skipped: REASON" on stderr once per method per process. */
void cli_run_note_skipped(const cli_run* run);

/* Text: context lines (scene, preset, params, reference settings), then the table. `lead` adds a first
 * column (title lead_title, e.g. a sweep's parameter) to every row; NULL for none. */
void report_print_context(FILE* f, const cli_run* run);
void report_print_table_head(FILE* f, const char* lead_title);
void report_print_table_rows(FILE* f, const cli_run* run, const char* lead);

/* {"scene", "preset", "params", "reference", "methods": [...], ...} (see README: Command line). */
cJSON* report_json(const cli_run* run);
/* Writes the per-vertex data to path: {"scene", "preset", "params", "vertex_count", "triangle_count",
 * "positions", "indices", "uvs", "reference": {settings, "normals", "tangents"}, "methods": {NAME: {...}}}
 * as one line of compact JSON, streamed (memory does not grow with the mesh) and atomically (an old file at
 * path stays whole until the new one is complete). Needs a run made with keep_frames. CLI exit status. */
int report_write_dump(const char* path, const cli_run* run);

/* {"mean", "rms", "p50", "p95", "max", "over_1", "over_5", "over_45", "count"} of one set of angles; JSON null
 * when there were none (count 0: not measured, e.g. tangents without a tangent frame). */
cJSON* report_stats_json(const sf_angle_stats* st);

/* Prints json (formatted or not) to f; returns false when out of memory. */
bool report_print_json(FILE* f, const cJSON* json, bool formatted);
/* Writes json to path by the output rules of `kind` (outputs.h: atomically, never over an input or a file
 * that is not an earlier output of that kind); returns a CLI exit status (one-line error naming flag). */
int report_write_json(const char* flag, const char* path, cli_output_kind kind, const cJSON* json, bool formatted);

/* Helpers that demo shares. */
const cli_method_result* cli_run_method(const cli_run* run, sf_method method); /* NULL when not run */
void report_format_deg(char* out, size_t size, double deg); /* "12.345" */

#endif

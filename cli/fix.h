/* skinframe fix: the flags (cmd_fix.c), one asset and a batch (fix_run.c), the report (fix_report.c). */
#ifndef SF_CLI_FIX_H
#define SF_CLI_FIX_H

#include "cli.h"
#include "skinframe_fix.h"

typedef struct fix_args {
    sf_fix_opts opts;
    const char* out;      /* -o: the output file, or a folder for several inputs */
    bool json, measure;
    double fps;
    bool embed, embed_float; /* --embed jacobian-fan (snorm16; --embed-float: float), docs/embedded.md */
    bool compress;           /* --compress meshopt: EXT_meshopt_compression output */
} fix_args;

/* The outcome of one asset, for printing. */
typedef struct fix_outcome {
    const char* input;
    const char* output;
    sf_fix_counts counts;
    sf_gltf_fan_counts fan; /* --embed */
    size_t inflated_views, inflated_primitives; /* decompressed on reading (meshopt views, Draco primitives) */
    size_t compressed_views;                    /* --compress meshopt */
    bool measured;
    sf_fix_measure_result before, after;
    bool truncation_measured;
    sf_fix_truncation truncation; /* --max-influences: its cost on the input */
} fix_outcome;

/* Fixes in into out (a .glb or .gltf name). CLI exit status (after a one-line error). */
int fix_one(const fix_args* a, const char* in, const char* out, fix_outcome* res);
/* Every asset of paths (files, folders walked) into the folder a->out, one report each. */
int fix_batch(const fix_args* a, char** paths, size_t count);

void fix_print_text(const fix_args* a, const fix_outcome* res);
void fix_print_json(const fix_args* a, const fix_outcome* res);
void fix_print_json_error(const char* input, const char* message);

#endif

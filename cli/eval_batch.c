/* eval over many assets: the file list (skinframe_eval.h: folders walked recursively, sorted), one compact
 * summary row per asset and clip or one JSON line per asset, and failures that name their asset and let the
 * others run. */
#define _POSIX_C_SOURCE 200809L
#include "eval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A failed asset's JSON line: {"file": PATH, "error": MESSAGE}. */
static void print_error_line(const char* path, const char* message)
{
    cJSON* o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", path);
    cJSON_AddStringToObject(o, "error", message);
    char* text = cJSON_PrintUnformatted(o);
    if (text) {
        cli_write_utf8(stdout, text);
        putchar('\n');
    }
    cJSON_free(text);
    cJSON_Delete(o);
}

typedef struct skipped_folders {
    size_t* failed;
    bool json;
} skipped_folders;

/* A folder left out of the list: counted, and named in one line (and a JSON line with --json, as a failed
 * asset gets). */
static void skip_folder(void* user, const char* folder, const sf_error* why)
{
    skipped_folders* s = (skipped_folders*)user;
    ++*s->failed;
    cli_fail(CLI_EXIT_FAILURE, "eval: %s", why->message);
    if (s->json) print_error_line(folder, why->message);
}

int eval_paths_collect(char** paths, size_t count, bool json, sf_asset_paths* out, size_t* failed)
{
    sf_error err;
    skipped_folders s = {failed, json};
    if (sf_asset_paths_collect((const char* const*)paths, count, skip_folder, &s, out, &err) != SF_OK)
        return cli_fail(CLI_EXIT_FAILURE, "%s", err.message);
    return CLI_EXIT_OK;
}

/* ---------------------------------------------------------------- the summary table */

static int g_asset_width = 5; /* the longest path of the list (eval_batch_run); the command runs one batch */

static int method_width(sf_method m)
{
    int w = (int)strlen(sf_method_name(m));
    return w > 13 ? w : 13;
}

static void print_head(const eval_opts* o)
{
    sf_frames_opts ref, methods;
    cli_gltf_frames_opts(&o->args, &ref, &methods);
    printf("reference: recompute (weighting %s, weld %s, tangents %s, directions %s); morph directions: %s\n",
           cli_weighting_name(ref.weighting), cli_weld_name(ref.weld), cli_tangents_name(ref.tangents),
           cli_reference_name(ref.reference), cli_morph_directions_name(o->args.morph_directions));
    printf("per method: mean normal / mean tangent error in degrees over all frames and vertices; "
           "- = not measured (no TEXCOORD)\n");
    printf("%-*s %7s %9s", g_asset_width, "asset", "frames", "vertices");
    for (size_t k = 0; k < o->args.method_count; ++k)
        printf("  %*s", method_width(o->args.method_order[k]), sf_method_name(o->args.method_order[k]));
    printf("  animation\n"); /* last: its width is known only once each asset is loaded */
}

/* One summary row (text batch). */
static void batch_clip(const eval_opts* o, const char* path, const char* label, const sf_asset_clip* clip)
{
    printf("%-*s %7zu %9zu", g_asset_width, path, clip->plan.frames, clip->vertices);
    for (size_t k = 0; k < o->args.method_count; ++k) {
        sf_method m = o->args.method_order[k];
        const sf_method_stats* a = &clip->methods[m];
        char cell[64];
        if (a->skipped)
            snprintf(cell, sizeof cell, "skipped");
        else if (a->tangent.count)
            snprintf(cell, sizeof cell, "%.3f/%.3f", a->normal.mean, a->tangent.mean);
        else
            snprintf(cell, sizeof cell, "%.3f/-", a->normal.mean);
        printf("  %*s", method_width(m), cell);
    }
    printf("  %s\n", label);
    fflush(stdout);
}

/* ---------------------------------------------------------------- running */

static bool copy_rows(FILE* from, FILE* to)
{
    char buf[65536];
    size_t n;
    rewind(from);
    while ((n = fread(buf, 1, sizeof buf, from)) > 0)
        if (fwrite(buf, 1, n, to) != n) return false;
    return !ferror(from);
}


int eval_batch_run(const eval_opts* o, const sf_asset_paths* list, size_t failed)
{
    g_asset_width = 5;
    for (size_t i = 0; i < list->count; ++i) {
        int w = (int)strlen(list->items[i]);
        if (w > g_asset_width) g_asset_width = w;
    }
    if (!o->json) print_head(o);
    size_t ok = 0;
    for (size_t i = 0; i < list->count; ++i) {
        const char* path = list->items[i];
        eval_opts one = *o;
        one.csv_file = path;
        one.on_clip = batch_clip;
        /* An asset's CSV rows join the file only when it passed: no partial rows of a failed asset. */
        FILE* rows = o->csv ? tmpfile() : NULL;
        one.csv = rows;
        cli_fail_context(path);
        bool done = false;
        int code = o->csv && !rows ? cli_fail(CLI_EXIT_FAILURE, "--csv: no temporary file for the rows")
                                   : eval_asset(&one, path, &done);
        if (code == CLI_EXIT_OK && rows && !copy_rows(rows, o->csv))
            code = cli_fail(CLI_EXIT_FAILURE, "--csv: write failed");
        if (code == CLI_EXIT_OK) {
            ++ok;
        } else {
            ++failed;
            if (o->json) print_error_line(path, cli_last_error());
        }
        cli_fail_context(NULL);
        if (rows) fclose(rows);
        fflush(stdout);
    }
    if (!o->json) printf("\n%zu evaluated, %zu failed\n", ok, failed);
    return failed ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}

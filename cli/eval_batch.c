/* eval over many assets: the file list (folders walked recursively, sorted), one compact summary row per
 * asset and clip or one JSON line per asset, and failures that name their asset and let the others run. */
#define _POSIX_C_SOURCE 200809L
#include "eval.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_DEPTH 64

bool eval_path_is_dir(const char* path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int list_push(eval_path_list* l, const char* path)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        char** items = realloc(l->items, cap * sizeof *items);
        if (!items) return cli_fail(CLI_EXIT_FAILURE, "out of memory");
        l->items = items, l->cap = cap;
    }
    size_t n = strlen(path) + 1;
    char* copy = malloc(n);
    if (!copy) return cli_fail(CLI_EXIT_FAILURE, "out of memory");
    memcpy(copy, path, n);
    l->items[l->count++] = copy;
    return CLI_EXIT_OK;
}

static char* join(const char* dir, const char* name)
{
    size_t a = strlen(dir), b = strlen(name);
    bool slash = a > 0 && dir[a - 1] == '/';
    char* p = malloc(a + b + 2);
    if (p) snprintf(p, a + b + 2, "%s%s%s", dir, slash ? "" : "/", name);
    return p;
}

/* Every .gltf/.glb under dir. Folders reached through links are not entered (no cycles); files through links
 * are listed (the loader reads regular files only and says so). */
static int walk(const char* dir, int depth, eval_path_list* l, size_t* failed)
{
    DIR* d = opendir(dir);
    if (!d) { /* counted; the other folders are still searched */
        ++*failed;
        cli_fail(CLI_EXIT_FAILURE, "eval: cannot read folder %s: %s", dir, strerror(errno));
        return CLI_EXIT_OK;
    }
    bool oom = false;
    struct dirent* e;
    while (!oom && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char* p = join(dir, e->d_name);
        if (!p) {
            oom = true;
            cli_fail(CLI_EXIT_FAILURE, "out of memory");
            break;
        }
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (depth + 1 >= MAX_DEPTH) {
                ++*failed;
                cli_fail(CLI_EXIT_FAILURE, "eval: %s: more than %d folders deep, not searched", p, MAX_DEPTH);
            } else {
                oom = walk(p, depth + 1, l, failed) != CLI_EXIT_OK;
            }
        } else if (cli_ends_with(e->d_name, ".gltf") || cli_ends_with(e->d_name, ".glb")) {
            oom = list_push(l, p) != CLI_EXIT_OK;
        }
        free(p);
    }
    closedir(d);
    return oom ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}

static int compare_paths(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

int eval_paths_collect(char** paths, size_t count, eval_path_list* out, size_t* failed)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < count; ++i) {
        if (!eval_path_is_dir(paths[i])) {
            if (list_push(out, paths[i]) != CLI_EXIT_OK) return CLI_EXIT_FAILURE;
            continue;
        }
        size_t first = out->count;
        if (walk(paths[i], 0, out, failed) != CLI_EXIT_OK) return CLI_EXIT_FAILURE;
        if (out->count > first) /* byte order */
            qsort(out->items + first, out->count - first, sizeof *out->items, compare_paths);
    }
    return CLI_EXIT_OK;
}

void eval_paths_free(eval_path_list* list)
{
    for (size_t i = 0; i < list->count; ++i) free(list->items[i]);
    free(list->items);
    memset(list, 0, sizeof *list);
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
static void batch_clip(const eval_opts* o, const char* path, const eval_clip* clip)
{
    printf("%-*s %7zu %9zu", g_asset_width, path, clip->plan->frames, clip->vertices);
    for (size_t k = 0; k < o->args.method_count; ++k) {
        sf_method m = o->args.method_order[k];
        const eval_method* a = &clip->methods[m];
        char cell[64];
        if (a->skipped)
            snprintf(cell, sizeof cell, "skipped");
        else if (a->tangent.count)
            snprintf(cell, sizeof cell, "%.3f/%.3f", a->normal.mean, a->tangent.mean);
        else
            snprintf(cell, sizeof cell, "%.3f/-", a->normal.mean);
        printf("  %*s", method_width(m), cell);
    }
    printf("  %s\n", clip->label);
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

int eval_batch_run(const eval_opts* o, const eval_path_list* list, size_t failed)
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

/* skinframe fix on one asset (open, measure, repair, write, measure the output) and on many (folders walked
 * as eval walks them, each written under its own name in the output folder). */
#define _POSIX_C_SOURCE 200809L
#include "fix.h"
#include "outputs.h"

#include <stdlib.h>
#include <string.h>

static sf_gltf_opts load_opts(void)
{
    sf_gltf_opts o;
    memset(&o, 0, sizeof o);
    o.generated_tangents = SF_TANGENTS_MIKKTSPACE; /* as eval loads assets: the reference's tangents */
    return o;
}

static int measure(const fix_args* a, const sf_gltf* g, const char* path, sf_fix_measure_result* out)
{
    sf_env env = cli_env();
    sf_error err;
    if (sf_fix_measure(g, &a->opts.reference_opts, a->fps, &env, out, &err) != SF_OK)
        return cli_fail(CLI_EXIT_FAILURE, "%s: measuring: %s", path, err.message);
    return CLI_EXIT_OK;
}

/* The output written: loaded again, as a reader will, and measured. */
static int measure_output(const fix_args* a, const char* out, fix_outcome* res)
{
    sf_gltf_opts o = load_opts();
    sf_env env = cli_env();
    sf_gltf* g = NULL;
    sf_error err;
    if (sf_gltf_load_file(out, &o, &env, &g, &err) != SF_OK)
        return cli_fail(CLI_EXIT_FAILURE, "%s: the output does not load: %s", out, err.message);
    int code = measure(a, g, out, &res->after);
    sf_gltf_destroy(g);
    return code;
}

int fix_one(const fix_args* a, const char* in, const char* out, fix_outcome* res)
{
    memset(res, 0, sizeof *res);
    res->input = in;
    res->output = out;
    sf_gltf_opts o = load_opts();
    sf_env env = cli_env();
    sf_gltf_doc* doc = NULL;
    sf_error err;
    if (sf_gltf_doc_open(in, &o, &env, &doc, &err) != SF_OK) return cli_fail(CLI_EXIT_FAILURE, "%s: %s", in, err.message);
    sf_gltf_doc_inflated(doc, &res->inflated_views, &res->inflated_primitives);
    size_t n = 0;
    const char* const* inputs = sf_gltf_doc_inputs(doc, &n);
    int code = cli_outputs_add_inputs(inputs, n);
    if (code == CLI_EXIT_OK)
        code = cli_output_check("-o", out, cli_ends_with(out, ".gltf") ? CLI_OUTPUT_GLTF : CLI_OUTPUT_GLB);
    if (code == CLI_EXIT_OK && a->measure) code = measure(a, sf_gltf_doc_gltf(doc), in, &res->before);
    if (code == CLI_EXIT_OK && a->measure && a->opts.max_influences) {
        if (sf_fix_measure_truncation(sf_gltf_doc_gltf(doc), a->opts.max_influences, &a->opts.reference_opts, a->fps,
                                      &env, &res->truncation, &err) != SF_OK)
            code = cli_fail(CLI_EXIT_FAILURE, "%s: measuring --max-influences: %s", in, err.message);
        res->truncation_measured = code == CLI_EXIT_OK;
    }
    if (code == CLI_EXIT_OK && sf_fix_apply(doc, &a->opts, &env, &res->counts, &err) != SF_OK)
        code = cli_fail(CLI_EXIT_FAILURE, "%s: %s", in, err.message);
    /* after the repairs: the coefficients are built from the repaired accessors */
    if (code == CLI_EXIT_OK && a->embed &&
        sf_gltf_doc_embed_fan(doc, a->embed_float ? SF_FAN_FLOAT32 : SF_FAN_SNORM16, &res->fan, &err) != SF_OK)
        code = cli_fail(CLI_EXIT_FAILURE, "%s: %s", in, err.message);
    if (code == CLI_EXIT_OK && a->compress && sf_gltf_doc_compress_meshopt(doc, &res->compressed_views, &err) != SF_OK)
        code = cli_fail(CLI_EXIT_FAILURE, "%s: --compress meshopt: %s", in, err.message);
    if (code == CLI_EXIT_OK && sf_gltf_doc_save(doc, out, NULL, 0, &err) != SF_OK)
        code = cli_fail(err.result == SF_ERROR_INVALID_ARGUMENT ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE, "-o: %s", err.message);
    sf_gltf_doc_destroy(doc);
    if (code == CLI_EXIT_OK && a->measure) {
        code = measure_output(a, out, res);
        res->measured = code == CLI_EXIT_OK;
    }
    return code;
}

/* DIR/REL for the asset at path: REL its path under the folder argument it was found in (so that assets of
 * one name in different folders stay apart), or its file name for a file argument. Its folder is made. */
static char* output_name(const char* dir, const char* path, char** args, size_t count)
{
    const char* slash = strrchr(path, '/');
    const char* rel = slash ? slash + 1 : path;
    for (size_t k = 0; k < count; ++k) {
        size_t n = strlen(args[k]);
        while (n > 1 && args[k][n - 1] == '/') --n;
        if (sf_asset_path_is_dir(args[k]) && strncmp(path, args[k], n) == 0 && path[n] == '/') {
            rel = path + n + 1;
            break;
        }
    }
    size_t len = strlen(dir) + strlen(rel) + 2;
    char* out = malloc(len);
    if (!out) return NULL;
    snprintf(out, len, "%s/%s", dir, rel);
    char* last = strrchr(out, '/');
    *last = '\0';
    int made = cli_make_dir("-o", out);
    *last = '/';
    if (made != CLI_EXIT_OK) {
        free(out);
        return NULL;
    }
    return out;
}

static void skip_folder(void* user, const char* folder, const sf_error* why)
{
    (void)folder;
    ++*(size_t*)user;
    cli_fail(CLI_EXIT_FAILURE, "fix: %s", why->message);
}

int fix_batch(const fix_args* a, char** paths, size_t count)
{
    int code = cli_output_folder("-o", a->out);
    sf_asset_paths list;
    memset(&list, 0, sizeof list);
    size_t failed = 0;
    sf_error err;
    if (code == CLI_EXIT_OK && sf_asset_paths_collect((const char* const*)paths, count, skip_folder, &failed, &list,
                                                      &err) != SF_OK)
        code = cli_fail(CLI_EXIT_FAILURE, "%s", err.message);
    if (code == CLI_EXIT_OK) code = cli_outputs_add_inputs((const char* const*)list.items, list.count);
    for (size_t i = 0; code == CLI_EXIT_OK && i < list.count; ++i) {
        char* out = output_name(a->out, list.items[i], paths, count);
        fix_outcome res;
        cli_fail_context(list.items[i]);
        int one = out ? fix_one(a, list.items[i], out, &res) : CLI_EXIT_FAILURE;
        cli_fail_context(NULL);
        if (one == CLI_EXIT_OK) a->json ? fix_print_json(a, &res) : fix_print_text(a, &res);
        else if (a->json) fix_print_json_error(list.items[i], cli_last_error());
        failed += one != CLI_EXIT_OK;
        free(out);
    }
    sf_asset_paths_free(&list);
    return code != CLI_EXIT_OK ? code : failed ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}

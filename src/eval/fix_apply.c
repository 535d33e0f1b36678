/* The repairs over every primitive of the file, in the order each needs the previous: NORMAL and TANGENT
 * first (the morph reference starts from them), the influences, then the morph deltas; last the vertex splits
 * that generated tangents need, carrying everything before. */
#include "fix_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sf_fix_opts_init(sf_fix_opts* opts)
{
    memset(opts, 0, sizeof *opts);
    opts->morph_normals = opts->weights = opts->normals = opts->tangents = true;
    opts->reference_opts.weighting = SF_WEIGHTING_AREA;
    opts->reference_opts.weld = SF_WELD_POSITION_NORMAL;
    opts->reference_opts.tangents = SF_TANGENTS_MIKKTSPACE;
}

static sf_result primitive(sf_gltf_doc* doc, size_t m, size_t i, const sf_fix_opts* o, const sf_env* env,
                           sf_fix_counts* c, sf_error* err)
{
    sfi_fix_prim p;
    sf_result r = sfi_fix_read(doc, m, i, &p, err);
    if (r == SF_ERROR_UNSUPPORTED) {
        sfi_fix_free(&p);
        return SF_OK; /* points, lines, or no POSITION: nothing of ours to repair */
    }
    if (r == SF_OK) c->primitives++;
    if (r == SF_OK && o->normals) r = sfi_fix_normals(&p, c, err);
    if (r == SF_OK && o->tangents) r = sfi_fix_tangents(&p, c, err);
    if (r == SF_OK && o->tangents) r = sfi_fix_generate_tangents(&p, c, err);
    if (r == SF_OK && (o->weights || o->max_influences)) r = sfi_fix_weights(&p, o->max_influences, c, err);
    if (r == SF_OK && o->morph_normals) r = sfi_fix_morph(&p, &o->reference_opts, env, c, err);
    if (r == SF_OK) r = sfi_fix_split_tangents(&p, o->morph_normals, c, err);
    sfi_fix_free(&p);
    return r;
}

/* asset.generator says skinframe wrote the file (what `fix` replaces without --force), keeping the old one. */
static sf_result sign(sf_gltf_doc* doc, sf_error* err)
{
    const char* old = sf_gltf_doc_generator(doc);
    if (strncmp(old, "skinframe", 9) == 0) return SF_OK;
    size_t len = strlen(old) + 32;
    char* text = malloc(len);
    if (!text) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    snprintf(text, len, *old ? "skinframe fix (from %s)" : "skinframe fix", old);
    sf_result r = sf_gltf_doc_set_generator(doc, text, err);
    free(text);
    return r;
}

sf_result sf_fix_apply(sf_gltf_doc* doc, const sf_fix_opts* opts, const sf_env* env, sf_fix_counts* out,
                       sf_error* err)
{
    sf_error local;
    if (!err) err = &local;
    if (!doc || !opts || !out) return sfi_eval_fail(err, SF_ERROR_INVALID_ARGUMENT, "sf_fix_apply: doc, opts and out");
    memset(out, 0, sizeof *out);
    sf_result r = SF_OK;
    size_t meshes = sf_gltf_doc_mesh_count(doc);
    for (size_t m = 0; r == SF_OK && m < meshes; ++m) {
        size_t prims = sf_gltf_doc_primitive_count(doc, m);
        for (size_t i = 0; r == SF_OK && i < prims; ++i) r = primitive(doc, m, i, opts, env, out, err);
    }
    return r == SF_OK ? sign(doc, err) : r;
}

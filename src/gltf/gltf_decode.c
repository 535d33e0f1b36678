/* Compressed geometry in the load: the accessors a Draco primitive fills, the decode of the
 * EXT_meshopt_compression views and KHR_draco_mesh_compression primitives once the limits are checked
 * (gltf_limits.c), and the compression each primitive names. The decoders are gltf_meshopt.c and gltf_draco.c. */
#include "gltf_loader.h"

#include <stdio.h>

/* The accessor that primitive p's attributes[name] (or p.indices for name NULL) names, SF_GLTF_NONE if none. */
static size_t primitive_accessor(const loader* L, const cJSON* p, const char* name)
{
    const cJSON* v = name ? jget(jget(p, "attributes"), name) : jget(p, "indices");
    size_t k;
    return v && array_index(v, L->accessor_count, &k) ? k : SF_GLTF_NONE;
}

/* Every Draco target of primitive p, from its accessors' declared layout (count, type, componentType). */
sf_result draco_targets(loader* L, const cJSON* p, const char* base, const sfi_draco_primitive* dp,
                        sfi_draco_target* t, size_t* n)
{
    *n = 0;
    for (size_t k = 0; k <= dp->attribute_count; ++k) {
        const char* name = k < dp->attribute_count ? dp->names[k] : NULL;
        size_t ai = primitive_accessor(L, p, name);
        if (ai == SF_GLTF_NONE) {
            if (!name) continue; /* no indices: the loader draws the points in order */
            return jfail(L, base, "attributes", "%s is compressed by %s but names no accessor", name, SFI_DRACO_EXT);
        }
        const accessor* ac = &L->accessors[ai];
        sfi_draco_target* x = &t[(*n)++];
        x->attribute = name ? dp->ids[k] : SFI_DRACO_INDICES;
        x->accessor = ai;
        x->name = name ? name : "indices";
        x->count = ac->count;
        x->ncomp = ac->ncomp;
        x->ctype = ac->ctype;
        if (ac->rows != ac->ncomp)
            return jfail(L, base, NULL, "%s: %s decodes no matrices (accessors[%zu])", x->name, SFI_DRACO_EXT, ai);
    }
    return SF_OK;
}

/* Every EXT_meshopt_compression bufferView decoded into memory of the load (the accessors then read it as
 * plain bytes), after each accessor on one is checked to lie within what the stream decodes. */
static sf_result decode_meshopt_views(loader* L)
{
    for (size_t a = 0; a < L->accessor_count; ++a) {
        const accessor* ac = &L->accessors[a];
        if (ac->view == SF_GLTF_NONE || !L->views[ac->view].meshopt.present) continue;
        const sfi_meshopt_view* m = &L->views[ac->view].meshopt;
        size_t decoded = m->count * m->stride;
        if (ac->offset > decoded || ac->elem_size > decoded - ac->offset ||
            (ac->count - 1) > (decoded - ac->offset - ac->elem_size) / ac->stride) {
            char base[48];
            snprintf(base, sizeof base, "accessors[%zu]", a);
            return jfail(L, base, "count", "%zu elements of %zu bytes (stride %zu) at offset %zu exceed the %zu "
                         "bytes bufferViews[%zu].extensions.%s decodes to", ac->count, ac->elem_size, ac->stride,
                         ac->offset, decoded, ac->view, SFI_MESHOPT_EXT);
        }
    }
    for (size_t v = 0; v < L->view_count; ++v) {
        view* bv = &L->views[v];
        if (!bv->meshopt.present) continue;
        char base[48];
        snprintf(base, sizeof base, "bufferViews[%zu]", v);
        uint8_t* out = tmp_alloc(L, bv->length, 1);
        if (!out) return oom(L, base);
        const uint8_t* src = L->buffer_data[bv->meshopt.buffer] + bv->meshopt.offset;
        TRY(sfi_meshopt_decode(&bv->meshopt, src, out, base, L->err));
        bv->decoded = out;
    }
    return SF_OK;
}

/* Decodes primitive p's Draco stream into its accessors. An accessor two primitives share must come from
 * the same stream (then it is decoded once). */
static sf_result decode_draco_primitive(loader* L, const cJSON* p, const char* base)
{
    sfi_draco_primitive dp;
    sfi_draco_target t[SFI_DRACO_MAX_ATTRIBUTES + 1];
    size_t n = 0, kept = 0;
    TRY(sfi_draco_parse(p, base, L->view_count, &dp, L->err));
    if (!dp.present) return SF_OK;
    TRY(draco_targets(L, p, base, &dp, t, &n));
    for (size_t k = 0; k < n; ++k) {
        accessor* ac = &L->accessors[t[k].accessor];
        if (ac->decoded_by == dp.view + 1) continue;
        if (ac->decoded_by)
            return jfail(L, base, NULL, "%s: accessors[%zu] is also decoded from another %s stream", t[k].name,
                         t[k].accessor, SFI_DRACO_EXT);
        size_t elem = ac->elem_size < 4 * ac->ncomp ? 4 * ac->ncomp : ac->elem_size; /* indices widen first */
        t[k].out = tmp_alloc(L, ac->count, elem);
        if (!t[k].out) return oom(L, base);
        t[kept++] = t[k];
    }
    if (!kept) return SF_OK;
    const view* bv = &L->views[dp.view];
    TRY(sfi_draco_decode(view_bytes(L, dp.view, 0), bv->length, t, kept, base, L->err));
    for (size_t k = 0; k < kept; ++k) {
        accessor* ac = &L->accessors[t[k].accessor];
        ac->decoded = t[k].out;
        ac->decoded_by = dp.view + 1;
        ac->sparse_count = 0; /* the stream holds the final values */
    }
    return SF_OK;
}

/* Decodes the compressed geometry once the costs have been checked from the declared counts. */
sf_result decode_compressed(loader* L)
{
    TRY(decode_meshopt_views(L));
    const cJSON* meshes = jget(L->root, "meshes");
    size_t mi = 0;
    for (const cJSON* m = cJSON_IsArray(meshes) ? meshes->child : NULL; m; m = m->next, ++mi) {
        const cJSON* prims = jget(m, "primitives");
        size_t pi = 0;
        for (const cJSON* p = cJSON_IsArray(prims) ? prims->child : NULL; p; p = p->next, ++pi) {
            char base[64];
            snprintf(base, sizeof base, "meshes[%zu].primitives[%zu]", mi, pi);
            if (cJSON_IsObject(p) && sfi_draco_built_in()) TRY(decode_draco_primitive(L, p, base));
        }
    }
    return SF_OK;
}

static int meshopt_accessor(const loader* L, const cJSON* v)
{
    size_t k;
    return v && array_index(v, L->accessor_count, &k) && L->accessors[k].view != SF_GLTF_NONE &&
           L->views[L->accessors[k].view].meshopt.present;
}

/* sf_gltf_primitive.compression: Draco for the primitive, meshopt for any of its accessors' views. */
sf_result name_compression(loader* L)
{
    const cJSON* meshes = jget(L->root, "meshes");
    for (size_t p = 0; p < L->g->primitive_count; ++p) {
        sf_gltf_primitive* pr = (sf_gltf_primitive*)&L->g->primitives[p];
        const cJSON* prim = cJSON_GetArrayItem(jget(cJSON_GetArrayItem(meshes, (int)pr->mesh_index), "primitives"),
                                               (int)pr->primitive_index);
        const cJSON* exts = jget(prim, "extensions");
        int meshopt = meshopt_accessor(L, jget(prim, "indices"));
        const cJSON* attrs = jget(prim, "attributes");
        for (const cJSON* a = cJSON_IsObject(attrs) ? attrs->child : NULL; a; a = a->next)
            meshopt |= meshopt_accessor(L, a);
        const cJSON* targets = jget(prim, "targets");
        for (const cJSON* t = cJSON_IsArray(targets) ? targets->child : NULL; t; t = t->next)
            for (const cJSON* a = cJSON_IsObject(t) ? t->child : NULL; a; a = a->next) meshopt |= meshopt_accessor(L, a);
        pr->compression = jget(exts, SFI_DRACO_EXT) ? SFI_DRACO_EXT : meshopt ? SFI_MESHOPT_EXT : "";
    }
    return SF_OK;
}

/* One primitive of the file read as floats through the rewriter's slots, its triangles from the mode, and
 * the writing of a repaired attribute back to its slot. */
#include "fix_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sf_result read_slot(sf_gltf_doc* doc, const sf_gltf_slot* slot, size_t want_count, sfi_fix_attr* out,
                           sf_error* err)
{
    memset(out, 0, sizeof *out);
    size_t a = sf_gltf_doc_accessor(doc, slot);
    if (a == SF_GLTF_NONE) return SF_OK;
    sf_gltf_accessor_info in;
    sf_result r = sf_gltf_doc_accessor_info(doc, a, &in, err);
    if (r != SF_OK) return r;
    if (in.components < 1 || in.components > 4 || (want_count != SIZE_MAX && in.count != want_count))
        return sfi_eval_fail(err, SF_ERROR_GLTF, "meshes[%zu].primitives[%zu] %s: accessors[%zu] has %zu elements "
                             "where %zu are expected", slot->mesh, slot->primitive, slot->attribute ? slot->attribute
                             : "indices", a, in.count, want_count);
    out->v = malloc(in.count * in.components * sizeof(float) + 1);
    if (!out->v) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    out->count = in.count;
    out->components = in.components;
    out->ctype = in.component_type;
    out->normalized = in.normalized;
    return sf_gltf_doc_read(doc, a, out->v, err);
}

/* Triangles of the primitive's mode (4 list, 5 strip, 6 fan) over its indices or 0..n-1. */
static sf_result triangles(sfi_fix_prim* p, uint32_t mode, const sfi_fix_attr* ind, sf_error* err)
{
    size_t m = ind->v ? ind->count : p->n;
    size_t t = mode == 4 ? m / 3 : m >= 3 ? m - 2 : 0;
    p->tri = malloc((3 * t + 1) * sizeof(uint32_t));
    if (!p->tri) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < t; ++i) {
        size_t c[3];
        if (mode == 4) c[0] = 3 * i, c[1] = 3 * i + 1, c[2] = 3 * i + 2;
        else if (mode == 5) c[0] = i, c[1] = i + 1 + (i & 1), c[2] = i + 2 - (i & 1);
        else c[0] = 0, c[1] = i + 1, c[2] = i + 2;
        uint32_t v[3];
        for (int j = 0; j < 3; ++j) v[j] = ind->v ? (uint32_t)ind->v[c[j]] : (uint32_t)c[j];
        if (v[0] >= p->n || v[1] >= p->n || v[2] >= p->n)
            return sfi_eval_fail(err, SF_ERROR_GLTF, "meshes[%zu].primitives[%zu].indices: index out of range",
                                 p->mesh, p->primitive);
        memcpy(p->tri + 3 * k++, v, sizeof v);
    }
    p->tri_count = k;
    return SF_OK;
}

static sf_result read_sets(sfi_fix_prim* p, sf_error* err)
{
    for (uint32_t s = 0; s < SFI_FIX_MAX_SETS; ++s) {
        char jn[24], wn[24];
        snprintf(jn, sizeof jn, "JOINTS_%u", s);
        snprintf(wn, sizeof wn, "WEIGHTS_%u", s);
        sf_gltf_slot js = {p->mesh, p->primitive, SF_GLTF_NONE, jn}, ws = {p->mesh, p->primitive, SF_GLTF_NONE, wn};
        sf_result r = read_slot(p->doc, &js, p->n, &p->joints[s], err);
        if (r == SF_OK) r = read_slot(p->doc, &ws, p->n, &p->weights[s], err);
        if (r != SF_OK) return r;
        if (!p->joints[s].v || !p->weights[s].v || p->joints[s].components != 4 || p->weights[s].components != 4)
            break;
        p->sets = s + 1;
    }
    return SF_OK;
}

static sf_result read_targets(sfi_fix_prim* p, sf_error* err)
{
    p->tpos = calloc(p->target_count + 1, sizeof(sfi_fix_attr));
    p->tnrm = calloc(p->target_count + 1, sizeof(sfi_fix_attr));
    p->ttan = calloc(p->target_count + 1, sizeof(sfi_fix_attr));
    if (!p->tpos || !p->tnrm || !p->ttan) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    sf_result r = SF_OK;
    for (size_t t = 0; r == SF_OK && t < p->target_count; ++t) {
        sf_gltf_slot s = {p->mesh, p->primitive, t, "POSITION"};
        r = read_slot(p->doc, &s, p->n, &p->tpos[t], err);
        s.attribute = "NORMAL";
        if (r == SF_OK) r = read_slot(p->doc, &s, p->n, &p->tnrm[t], err);
        s.attribute = "TANGENT";
        if (r == SF_OK) r = read_slot(p->doc, &s, p->n, &p->ttan[t], err);
    }
    return r;
}

sf_result sfi_fix_read(sf_gltf_doc* doc, size_t mesh, size_t primitive, sfi_fix_prim* p, sf_error* err)
{
    memset(p, 0, sizeof *p);
    p->doc = doc, p->mesh = mesh, p->primitive = primitive;
    uint32_t mode = 4;
    if (!sf_gltf_doc_primitive(doc, mesh, primitive, &mode, &p->target_count) || mode < 4 || mode > 6)
        return SF_ERROR_UNSUPPORTED;
    p->mode = mode;
    sf_gltf_slot s = {mesh, primitive, SF_GLTF_NONE, "POSITION"};
    sf_result r = read_slot(doc, &s, SIZE_MAX, &p->pos, err);
    if (r != SF_OK || !p->pos.v || p->pos.components != 3) return r != SF_OK ? r : SF_ERROR_UNSUPPORTED;
    p->n = p->pos.count;
    s.attribute = "NORMAL";
    r = read_slot(doc, &s, p->n, &p->nrm, err);
    s.attribute = "TANGENT";
    if (r == SF_OK) r = read_slot(doc, &s, p->n, &p->tan, err);
    s.attribute = "TEXCOORD_0";
    if (r == SF_OK) r = read_slot(doc, &s, p->n, &p->uv, err);
    sfi_fix_attr ind = {0};
    s.attribute = NULL;
    if (r == SF_OK) r = read_slot(doc, &s, SIZE_MAX, &ind, err);
    if (r == SF_OK) r = triangles(p, mode, &ind, err);
    free(ind.v);
    if (r == SF_OK) r = read_sets(p, err);
    if (r == SF_OK) r = read_targets(p, err);
    return r;
}

void sfi_fix_free(sfi_fix_prim* p)
{
    free(p->pos.v), free(p->nrm.v), free(p->tan.v), free(p->uv.v), free(p->tri);
    for (uint32_t s = 0; s < SFI_FIX_MAX_SETS; ++s) free(p->joints[s].v), free(p->weights[s].v);
    for (size_t t = 0; t < p->target_count; ++t) {
        if (p->tpos) free(p->tpos[t].v);
        if (p->tnrm) free(p->tnrm[t].v);
        if (p->ttan) free(p->ttan[t].v);
    }
    free(p->tpos), free(p->tnrm), free(p->ttan);
    free(p->split_corners);
    memset(p, 0, sizeof *p);
}

sf_result sfi_fix_write(sfi_fix_prim* p, size_t target, const char* attribute, const sfi_fix_attr* a,
                        sf_fix_counts* counts, sf_error* err)
{
    sf_gltf_slot s = {p->mesh, p->primitive, target, attribute};
    sf_gltf_values v = {a->v, a->count, a->components, a->ctype, a->normalized};
    int changed = 0;
    sf_result r = sf_gltf_doc_set(p->doc, &s, &v, &changed, err);
    if (r == SF_OK && changed) counts->accessors_written++;
    return r;
}

/* jacobian-fan's per-vertex attributes written into a glTF being rewritten (skinframe_gltf.h,
 * sf_gltf_doc_embed_fan; docs/embedded.md): per TRIANGLES primitive with NORMAL, a topology built from the
 * doc's current accessors (the file's own vertices, after any repair), its sf_fan_attributes, and one slot per
 * attribute (`_SKINFRAME_FAN_*`, morph targets' `_SKINFRAME_FAN_DU` / `_DV`). */
#include "skinframe_gltf.h"

#include "sf_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CT_U16 5123u
#define CT_I16 5122u
#define CT_F32 5126u

/* The floats at slot (count * components), NULL when the slot is empty; *count and *components set. */
static float* read_slot(const sf_gltf_doc* doc, const sf_gltf_slot* slot, size_t* count, size_t* components,
                        sf_error* err, sf_result* r)
{
    *r = SF_OK;
    size_t acc = sf_gltf_doc_accessor(doc, slot);
    if (acc == SF_GLTF_NONE) return NULL;
    sf_gltf_accessor_info info;
    if ((*r = sf_gltf_doc_accessor_info(doc, acc, &info, err)) != SF_OK) return NULL;
    float* out = malloc((info.count * info.components + 1) * sizeof(float));
    if (!out) {
        *r = sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "accessor", acc, "%zu values", info.count * info.components);
        return NULL;
    }
    if ((*r = sf_gltf_doc_read(doc, acc, out, err)) != SF_OK) {
        free(out);
        return NULL;
    }
    *count = info.count;
    *components = info.components;
    return out;
}

/* The rest mesh of one primitive as its accessors hold it now. Everything is freed by mesh_free. */
typedef struct raw_mesh {
    sf_mesh_desc d;
    float *pos, *nrm, *weights;
    uint32_t *indices, *joints;
    float** deltas;
    sf_morph_target_desc* targets;
} raw_mesh;

static void mesh_free(raw_mesh* m)
{
    free(m->pos);
    free(m->nrm);
    free(m->weights);
    free(m->indices);
    free(m->joints);
    for (size_t t = 0; m->deltas && t < m->d.target_count; ++t) free(m->deltas[t]);
    free(m->deltas);
    free(m->targets);
    memset(m, 0, sizeof *m);
}

/* JOINTS_k / WEIGHTS_k sets concatenated per vertex. */
static sf_result read_influences(const sf_gltf_doc* doc, size_t mesh, size_t prim, raw_mesh* m, sf_error* err)
{
    size_t n = m->d.vertex_count, sets = 0, c, k;
    char name[32];
    for (;; ++sets) {
        snprintf(name, sizeof name, "WEIGHTS_%zu", sets);
        sf_gltf_slot s = {mesh, prim, SF_GLTF_NONE, name};
        if (sf_gltf_doc_accessor(doc, &s) == SF_GLTF_NONE) break;
    }
    if (!sets) return SF_OK;
    size_t K = 4 * sets, most = 0;
    m->joints = calloc(K * n + 1, sizeof(uint32_t));
    m->weights = calloc(K * n + 1, sizeof(float));
    if (!m->joints || !m->weights) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "weights", SFI_NO_INDEX, "%zu vertices", n);
    for (size_t set = 0; set < sets; ++set) {
        for (int which = 0; which < 2; ++which) {
            snprintf(name, sizeof name, which ? "WEIGHTS_%zu" : "JOINTS_%zu", set);
            sf_gltf_slot s = {mesh, prim, SF_GLTF_NONE, name};
            sf_result r;
            float* v = read_slot(doc, &s, &c, &k, err, &r);
            if (r != SF_OK) return r;
            if (!v) continue; /* weights without joints: joint 0 */
            for (size_t i = 0; i < n && i < c; ++i)
                for (size_t q = 0; q < 4 && q < k; ++q) {
                    if (which) m->weights[K * i + 4 * set + q] = v[k * i + q];
                    else m->joints[K * i + 4 * set + q] = (uint32_t)v[k * i + q];
                }
            free(v);
        }
    }
    for (size_t i = 0; i < K * n; ++i)
        if (m->joints[i] + 1u > most) most = m->joints[i] + 1u;
    m->d.influence_count = (uint32_t)K;
    m->d.joints = m->joints;
    m->d.weights = m->weights;
    m->d.bone_count = most;
    m->d.zero_weight_policy = SF_ZERO_WEIGHTS_REST; /* 65535 slots: the identity, as the attributes say */
    return SF_OK;
}

/* Reads primitive (mesh, prim): 0 with *skip set when it is not a TRIANGLES primitive with NORMAL. */
static sf_result read_mesh(const sf_gltf_doc* doc, size_t mesh, size_t prim, size_t targets, raw_mesh* m,
                           int* skip, sf_error* err)
{
    size_t n = 0, c = 0, k = 0;
    sf_result r;
    sf_gltf_slot s = {mesh, prim, SF_GLTF_NONE, "POSITION"};
    memset(m, 0, sizeof *m);
    m->pos = read_slot(doc, &s, &n, &k, err, &r);
    if (r != SF_OK) return r;
    s.attribute = "NORMAL";
    m->nrm = m->pos ? read_slot(doc, &s, &c, &k, err, &r) : NULL;
    if (r != SF_OK) return r;
    *skip = !m->pos || !m->nrm || c != n;
    if (*skip) return SF_OK;
    s.attribute = NULL;
    float* idx = read_slot(doc, &s, &c, &k, err, &r);
    if (r != SF_OK) return r;
    size_t F = (idx ? c : n) / 3;
    m->indices = malloc((3 * F + 1) * sizeof(uint32_t));
    if (!m->indices) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "indices", SFI_NO_INDEX, "%zu", 3 * F);
    for (size_t i = 0; i < 3 * F; ++i) m->indices[i] = idx ? (uint32_t)idx[i] : (uint32_t)i;
    free(idx);
    m->d.vertex_count = n;
    m->d.triangle_count = F;
    m->d.indices = m->indices;
    m->d.positions.data = m->pos;
    m->d.normals.data = m->nrm;
    if ((r = read_influences(doc, mesh, prim, m, err)) != SF_OK) return r;
    m->deltas = calloc(targets + 1, sizeof(float*));
    m->targets = calloc(targets + 1, sizeof *m->targets);
    if (!m->deltas || !m->targets) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "targets", SFI_NO_INDEX, "%zu", targets);
    m->d.targets = m->targets;
    m->d.target_count = targets;
    for (size_t t = 0; t < targets; ++t) {
        sf_gltf_slot ts = {mesh, prim, t, "POSITION"};
        m->deltas[t] = read_slot(doc, &ts, &c, &k, err, &r);
        if (r != SF_OK) return r;
        if (!m->deltas[t] && !(m->deltas[t] = calloc(3 * n + 1, sizeof(float))))
            return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "targets", t, "%zu vertices", n);
        m->targets[t].position_deltas = m->deltas[t];
    }
    return SF_OK;
}

/* Writes one attribute: count elements of components floats as ctype (normalized for int16). */
static sf_result put(sf_gltf_doc* doc, size_t mesh, size_t prim, size_t target, const char* name, const float* v,
                     size_t count, size_t components, uint32_t ctype, size_t* written, sf_error* err)
{
    sf_gltf_slot s = {mesh, prim, target, name};
    sf_gltf_values val = {v, count, components, ctype, ctype == CT_I16};
    int changed = 0;
    sf_result r = sf_gltf_doc_set(doc, &s, &val, &changed, err);
    *written += changed;
    return r;
}

/* The attributes of one topology into the doc's primitive (mesh, prim). */
static sf_result write_attributes(sf_gltf_doc* doc, size_t mesh, size_t prim, const sf_fan_attributes* a,
                                  sf_gltf_fan_counts* counts, sf_error* err)
{
    size_t n = a->layout.vertex_count, G = a->layout.slot_groups, T = a->layout.target_count;
    int snorm = a->encoding == SF_FAN_SNORM16;
    uint32_t ct = snorm ? CT_I16 : CT_F32;
    float* tmp = malloc((8 * n + 1) * sizeof(float));
    if (!tmp) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "attributes", SFI_NO_INDEX, "%zu vertices", n);
    char name[40];
    size_t* w = &counts->accessors_written;
    sf_result r = put(doc, mesh, prim, SF_GLTF_NONE, "_SKINFRAME_FAN_NORMAL", a->normal, n, 3, CT_F32, w, err);
    for (size_t g = 0; r == SF_OK && g < G; ++g) {
        for (size_t i = 0; i < 4 * n; ++i) tmp[i] = a->joints[g * 4 * n + i];
        snprintf(name, sizeof name, "_SKINFRAME_FAN_JOINTS_%zu", g);
        r = put(doc, mesh, prim, SF_GLTF_NONE, name, tmp, n, 4, CT_U16, w, err);
    }
    for (size_t c = 0; r == SF_OK && c < SF_FAN_COEFS * G; ++c) {
        for (size_t i = 0; i < 4 * n; ++i)
            tmp[i] = snorm ? ((const int16_t*)a->coef)[c * 4 * n + i] / 32767.0f : ((const float*)a->coef)[c * 4 * n + i];
        snprintf(name, sizeof name, "_SKINFRAME_FAN_%zu", c);
        r = put(doc, mesh, prim, SF_GLTF_NONE, name, tmp, n, 4, ct, w, err);
    }
    for (size_t h = 0; r == SF_OK && snorm && h < 2; ++h) {
        for (size_t v = 0; v < n; ++v) memcpy(tmp + 4 * v, a->scale + SF_FAN_SCALES * v + 4 * h, 4 * sizeof(float));
        r = put(doc, mesh, prim, SF_GLTF_NONE, h ? "_SKINFRAME_FAN_SCALE_1" : "_SKINFRAME_FAN_SCALE_0", tmp, n, 4,
                CT_F32, w, err);
    }
    /* morph gradients: VEC3 float, or VEC4 int16 (w 0) so that elements stay 4-byte aligned */
    size_t comps = snorm ? 4 : 3;
    for (size_t t = 0; r == SF_OK && T && t <= T; ++t) /* t == T: the base's zeros */
        for (size_t h = 0; r == SF_OK && h < 2; ++h) {
            memset(tmp, 0, 4 * n * sizeof(float));
            for (size_t v = 0; t < T && v < n; ++v)
                for (size_t q = 0; q < 3; ++q) {
                    size_t at = (2 * t + h) * 3 * n + 3 * v + q;
                    tmp[comps * v + q] = snorm ? ((const int16_t*)a->morph)[at] / 32767.0f : ((const float*)a->morph)[at];
                }
            r = put(doc, mesh, prim, t < T ? t : SF_GLTF_NONE, h ? "_SKINFRAME_FAN_DV" : "_SKINFRAME_FAN_DU", tmp, n,
                    comps, ct, w, err);
        }
    free(tmp);
    if (r == SF_OK && G > counts->slot_groups) counts->slot_groups = G;
    return r;
}

/* One primitive: topology, attributes, slots. */
static sf_result embed_primitive(sf_gltf_doc* doc, size_t mesh, size_t prim, size_t targets, sf_fan_encoding enc,
                                 sf_gltf_fan_counts* counts, sf_error* err)
{
    raw_mesh m;
    int skip = 0;
    sf_topology* topo = NULL;
    sf_fan_attributes a;
    memset(&a, 0, sizeof a);
    sf_result r = read_mesh(doc, mesh, prim, targets, &m, &skip, err);
    if (r == SF_OK && skip) ++counts->skipped;
    if (r == SF_OK && !skip) r = sf_topology_create(&m.d, NULL, NULL, &topo, err);
    if (r == SF_OK && !skip) r = sf_fan_layout_get(topo, &a.layout, err);
    if (r == SF_OK && !skip) {
        size_t n = a.layout.vertex_count, G = a.layout.slot_groups, T = a.layout.target_count;
        size_t elem = enc == SF_FAN_SNORM16 ? 2 : 4;
        a.encoding = enc;
        a.normal = calloc(3 * n + 1, sizeof(float));
        a.joints = calloc(4 * G * n + 1, sizeof(uint16_t));
        a.coef = calloc(24 * G * n + 1, elem);
        a.morph = calloc(6 * T * n + 1, elem);
        a.scale = calloc(SF_FAN_SCALES * n + 1, sizeof(float));
        r = a.normal && a.joints && a.coef && a.morph && a.scale
                ? sf_fan_attributes_export(topo, &a, err)
                : sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "attributes", SFI_NO_INDEX, "%zu vertices", n);
        if (r == SF_OK) r = write_attributes(doc, mesh, prim, &a, counts, err);
        counts->primitives += r == SF_OK;
    }
    free(a.normal);
    free(a.joints);
    free(a.coef);
    free(a.morph);
    free(a.scale);
    sf_topology_destroy(topo);
    mesh_free(&m);
    return r;
}

sf_result sf_gltf_doc_embed_fan(sf_gltf_doc* doc, sf_fan_encoding enc, sf_gltf_fan_counts* out, sf_error* err)
{
    SF_CHECK(doc && out, SF_ERROR_INVALID_ARGUMENT, err, doc ? "out" : "doc", SFI_NO_INDEX, "NULL");
    SF_CHECK(enc == SF_FAN_FLOAT32 || enc == SF_FAN_SNORM16, SF_ERROR_INVALID_ARGUMENT, err, "encoding",
             SFI_NO_INDEX, "%d, need SF_FAN_FLOAT32 or SF_FAN_SNORM16", (int)enc);
    memset(out, 0, sizeof *out);
    for (size_t mesh = 0; mesh < sf_gltf_doc_mesh_count(doc); ++mesh)
        for (size_t prim = 0; prim < sf_gltf_doc_primitive_count(doc, mesh); ++prim) {
            uint32_t mode = 4;
            size_t targets = 0;
            if (!sf_gltf_doc_primitive(doc, mesh, prim, &mode, &targets) || mode != 4) {
                ++out->skipped;
                continue;
            }
            sf_result r = embed_primitive(doc, mesh, prim, targets, enc, out, err);
            if (r != SF_OK) {
                char why[sizeof err->message];
                memcpy(why, err->message, sizeof why);
                return sf_error_set(err, r, "meshes", mesh, "primitive %zu: jacobian-fan attributes: %s", prim, why);
            }
        }
    return SF_OK;
}

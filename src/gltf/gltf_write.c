/* glTF 2.0 writing: one .glb (JSON chunk + BIN chunk) from sf_gltf_write_desc: meshes with any number of
 * JOINTS_n/WEIGHTS_n sets, dense and sparse morph targets, COLOR_0, node hierarchies, skins, animations.
 * Files are written atomically (temporary file in the same folder, then rename). */
#define _POSIX_C_SOURCE 200809L
#include "gltf_internal.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct writer {
    sf_env env;
    sf_error* err;
    uint8_t* bin;
    size_t size, cap;
    cJSON* root;
    cJSON *views, *accessors;
    size_t view_count, accessor_count;
    int oom;
} writer;

static sf_result wfail(writer* w, const char* field, size_t index, const char* detail)
{
    return sf_error_set(w->err, SF_ERROR_INVALID_ARGUMENT, field, index, "%s", detail);
}

/* Appends bytes to the BIN chunk, 4-byte aligned; returns the offset (or SIZE_MAX when out of memory). */
static size_t bin_append(writer* w, const void* data, size_t size)
{
    size_t offset = (w->size + 3) & ~(size_t)3;
    if (size > SIZE_MAX / 2 - offset) {
        w->oom = 1;
        return SIZE_MAX;
    }
    size_t need = offset + size;
    if (need > w->cap) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap < need) cap *= 2;
        uint8_t* bigger = sf_env_alloc(&w->env, cap);
        if (!bigger) {
            w->oom = 1;
            return SIZE_MAX;
        }
        if (w->size) memcpy(bigger, w->bin, w->size);
        sf_env_free(&w->env, w->bin, w->cap);
        w->bin = bigger;
        w->cap = cap;
    }
    memset(w->bin + w->size, 0, offset - w->size);
    if (size) memcpy(w->bin + offset, data, size);
    w->size = need;
    return offset;
}

/* A bufferView over freshly appended bytes; returns its index. */
static size_t add_view(writer* w, const void* data, size_t size, size_t stride)
{
    size_t offset = bin_append(w, data, size);
    if (offset == SIZE_MAX) return 0;
    cJSON* v = cJSON_CreateObject();
    cJSON_AddNumberToObject(v, "buffer", 0);
    cJSON_AddNumberToObject(v, "byteOffset", (double)offset);
    cJSON_AddNumberToObject(v, "byteLength", (double)size);
    if (stride) cJSON_AddNumberToObject(v, "byteStride", (double)stride);
    cJSON_AddItemToArray(w->views, v);
    return w->view_count++;
}

static const char* type_name(size_t ncomp)
{
    switch (ncomp) {
    case 1: return "SCALAR";
    case 2: return "VEC2";
    case 3: return "VEC3";
    case 16: return "MAT4";
    default: return "VEC4";
    }
}

/* A float accessor of count elements of ncomp floats (packed). with_bounds: min/max (POSITION, input). */
static size_t add_float_accessor(writer* w, const float* data, size_t count, size_t ncomp, int with_bounds)
{
    size_t view = add_view(w, data, count * ncomp * sizeof(float), 0);
    cJSON* a = cJSON_CreateObject();
    cJSON_AddNumberToObject(a, "bufferView", (double)view);
    cJSON_AddNumberToObject(a, "componentType", 5126);
    cJSON_AddNumberToObject(a, "count", (double)count);
    cJSON_AddStringToObject(a, "type", type_name(ncomp));
    if (with_bounds && count) {
        double lo[16], hi[16];
        for (size_t k = 0; k < ncomp; ++k) lo[k] = hi[k] = data[k];
        for (size_t i = 1; i < count; ++i)
            for (size_t k = 0; k < ncomp; ++k) {
                double v = data[i * ncomp + k];
                if (v < lo[k]) lo[k] = v;
                if (v > hi[k]) hi[k] = v;
            }
        cJSON* mn = cJSON_AddArrayToObject(a, "min");
        cJSON* mx = cJSON_AddArrayToObject(a, "max");
        for (size_t k = 0; k < ncomp; ++k) {
            cJSON_AddItemToArray(mn, cJSON_CreateNumber(lo[k]));
            cJSON_AddItemToArray(mx, cJSON_CreateNumber(hi[k]));
        }
    }
    cJSON_AddItemToArray(w->accessors, a);
    return w->accessor_count++;
}

/* An accessor of unsigned integers (u16 or u32), ncomp per element. */
static size_t add_uint_accessor(writer* w, const uint32_t* data, size_t count, size_t ncomp, int u16)
{
    size_t n = count * ncomp, view;
    if (u16) {
        uint16_t* tmp = sf_env_alloc(&w->env, n * sizeof(uint16_t) + 2);
        if (!tmp) {
            w->oom = 1;
            return 0;
        }
        for (size_t i = 0; i < n; ++i) tmp[i] = (uint16_t)data[i];
        view = add_view(w, tmp, n * sizeof(uint16_t), 0);
        sf_env_free(&w->env, tmp, 0);
    } else {
        view = add_view(w, data, n * sizeof(uint32_t), 0);
    }
    cJSON* a = cJSON_CreateObject();
    cJSON_AddNumberToObject(a, "bufferView", (double)view);
    cJSON_AddNumberToObject(a, "componentType", u16 ? 5123 : 5125);
    cJSON_AddNumberToObject(a, "count", (double)count);
    cJSON_AddStringToObject(a, "type", type_name(ncomp));
    cJSON_AddItemToArray(w->accessors, a);
    return w->accessor_count++;
}

/* A sparse VEC3 float accessor over zeros: count elements, entries at indices (none: zeros without a
 * sparse object, since glTF's sparse.count is at least 1). POSITION needs min/max. */
static size_t add_sparse_accessor(writer* w, size_t count, const uint32_t* indices, const float* values,
                                  size_t entries, int with_bounds)
{
    cJSON* a = cJSON_CreateObject();
    cJSON_AddNumberToObject(a, "componentType", 5126);
    cJSON_AddNumberToObject(a, "count", (double)count);
    cJSON_AddStringToObject(a, "type", "VEC3");
    if (with_bounds) {
        double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}; /* the zeros between entries count */
        for (size_t i = 0; i < entries; ++i)
            for (int k = 0; k < 3; ++k) {
                double v = values[3 * i + k];
                if (v < lo[k]) lo[k] = v;
                if (v > hi[k]) hi[k] = v;
            }
        cJSON* mn = cJSON_AddArrayToObject(a, "min");
        cJSON* mx = cJSON_AddArrayToObject(a, "max");
        for (int k = 0; k < 3; ++k) {
            cJSON_AddItemToArray(mn, cJSON_CreateNumber(lo[k]));
            cJSON_AddItemToArray(mx, cJSON_CreateNumber(hi[k]));
        }
    }
    if (entries) {
        size_t iview = add_view(w, indices, entries * sizeof(uint32_t), 0);
        size_t vview = add_view(w, values, entries * 3 * sizeof(float), 0);
        cJSON* sp = cJSON_AddObjectToObject(a, "sparse");
        cJSON_AddNumberToObject(sp, "count", (double)entries);
        cJSON* idx = cJSON_AddObjectToObject(sp, "indices");
        cJSON_AddNumberToObject(idx, "bufferView", (double)iview);
        cJSON_AddNumberToObject(idx, "componentType", 5125);
        cJSON* val = cJSON_AddObjectToObject(sp, "values");
        cJSON_AddNumberToObject(val, "bufferView", (double)vview);
    }
    cJSON_AddItemToArray(w->accessors, a);
    return w->accessor_count++;
}

/* Packs a strided stream into floats (ncomp per vertex); NULL when out of memory. */
static float* pack_stream(writer* w, sf_stream s, size_t ncomp, size_t n)
{
    float* out = sf_env_alloc(&w->env, (n ? n : 1) * ncomp * sizeof(float));
    if (!out) {
        w->oom = 1;
        return NULL;
    }
    for (size_t v = 0; v < n; ++v) memcpy(out + ncomp * v, sfi_stream_at(s, ncomp * sizeof(float), v), ncomp * 4);
    return out;
}

static sf_result check_mesh(writer* w, const sf_gltf_write_mesh* wm, size_t mi)
{
    const sf_mesh_desc* m = &wm->mesh;
    char field[64];
    snprintf(field, sizeof field, "meshes[%zu]", mi);
    if (!m->positions.data || m->vertex_count == 0) return wfail(w, field, SFI_NO_INDEX, "positions required");
    if (m->influence_count % 4) return wfail(w, field, SFI_NO_INDEX, "influence_count must be a multiple of 4");
    if (m->influence_count && (!m->joints || !m->weights))
        return wfail(w, field, SFI_NO_INDEX, "joints and weights required");
    for (size_t i = 0; i < (size_t)m->influence_count * m->vertex_count; ++i)
        if (m->joints[i] > 65535) return wfail(w, field, SFI_NO_INDEX, "joint index > 65535");
    if (m->indices) {
        for (size_t i = 0; i < 3 * m->triangle_count; ++i)
            if (m->indices[i] >= m->vertex_count) return wfail(w, field, i, "index >= vertex_count");
    } else if (m->triangle_count * 3 != m->vertex_count) {
        return wfail(w, field, SFI_NO_INDEX, "non-indexed meshes need vertex_count = 3 * triangle_count");
    }
    for (size_t k = 0; k < m->target_count; ++k) {
        const sf_morph_target_desc* t = &m->targets[k];
        if (!t->position_deltas) return wfail(w, field, k, "target without position deltas");
        for (size_t i = 0; t->sparse_indices && i < t->sparse_count; ++i)
            if (t->sparse_indices[i] >= m->vertex_count || (i && t->sparse_indices[i] <= t->sparse_indices[i - 1]))
                return wfail(w, field, k, "sparse indices must increase and stay below vertex_count");
    }
    return SF_OK;
}

static sf_result write_mesh(writer* w, const sf_gltf_write_mesh* wm, cJSON* meshes)
{
    const sf_mesh_desc* m = &wm->mesh;
    size_t n = m->vertex_count;
    cJSON* mesh = cJSON_CreateObject();
    cJSON_AddItemToArray(meshes, mesh);
    if (wm->name) cJSON_AddStringToObject(mesh, "name", wm->name);
    cJSON* prims = cJSON_AddArrayToObject(mesh, "primitives");
    cJSON* prim = cJSON_CreateObject();
    cJSON_AddItemToArray(prims, prim);
    cJSON* attrs = cJSON_AddObjectToObject(prim, "attributes");
    const struct { sf_stream s; size_t ncomp; const char* name; } streams[] = {
        {m->positions, 3, "POSITION"}, {m->normals, 3, "NORMAL"}, {m->tangents, 4, "TANGENT"}, {m->uvs, 2, "TEXCOORD_0"}};
    for (size_t s = 0; s < 4; ++s) {
        if (!streams[s].s.data) continue;
        float* packed = pack_stream(w, streams[s].s, streams[s].ncomp, n);
        if (!packed) return SF_ERROR_OUT_OF_MEMORY;
        size_t a = add_float_accessor(w, packed, n, streams[s].ncomp, s == 0);
        sf_env_free(&w->env, packed, 0);
        cJSON_AddNumberToObject(attrs, streams[s].name, (double)a);
    }
    if (wm->colors) cJSON_AddNumberToObject(attrs, "COLOR_0", (double)add_float_accessor(w, wm->colors, n, 4, 0));
    size_t sets = m->influence_count / 4;
    if (sets) {
        uint32_t* j = sf_env_alloc(&w->env, n * 4 * sizeof(uint32_t));
        float* wt = sf_env_alloc(&w->env, n * 4 * sizeof(float));
        if (!j || !wt) {
            sf_env_free(&w->env, j, 0);
            sf_env_free(&w->env, wt, 0);
            return SF_ERROR_OUT_OF_MEMORY;
        }
        for (size_t s = 0; s < sets; ++s) {
            for (size_t v = 0; v < n; ++v)
                for (int c = 0; c < 4; ++c) {
                    j[4 * v + c] = m->joints[(size_t)m->influence_count * v + 4 * s + c];
                    wt[4 * v + c] = m->weights[(size_t)m->influence_count * v + 4 * s + c];
                }
            char name[32];
            snprintf(name, sizeof name, "JOINTS_%zu", s);
            cJSON_AddNumberToObject(attrs, name, (double)add_uint_accessor(w, j, n, 4, 1));
            snprintf(name, sizeof name, "WEIGHTS_%zu", s);
            cJSON_AddNumberToObject(attrs, name, (double)add_float_accessor(w, wt, n, 4, 0));
        }
        sf_env_free(&w->env, j, 0);
        sf_env_free(&w->env, wt, 0);
    }
    if (m->indices)
        cJSON_AddNumberToObject(prim, "indices",
                                (double)add_uint_accessor(w, m->indices, 3 * m->triangle_count, 1, n <= 65535));
    cJSON_AddNumberToObject(prim, "mode", 4);
    if (m->target_count) {
        cJSON* targets = cJSON_AddArrayToObject(prim, "targets");
        for (size_t k = 0; k < m->target_count; ++k) {
            const sf_morph_target_desc* t = &m->targets[k];
            cJSON* to = cJSON_CreateObject();
            cJSON_AddItemToArray(targets, to);
            const float* d[3] = {t->position_deltas, t->normal_deltas, t->tangent_deltas};
            const char* names[3] = {"POSITION", "NORMAL", "TANGENT"};
            for (int s = 0; s < 3; ++s) {
                if (!d[s]) continue;
                size_t a = t->sparse_indices ? add_sparse_accessor(w, n, t->sparse_indices, d[s], t->sparse_count, s == 0)
                                             : add_float_accessor(w, d[s], n, 3, s == 0);
                cJSON_AddNumberToObject(to, names[s], (double)a);
            }
        }
        if (wm->weights) {
            cJSON* ws = cJSON_AddArrayToObject(mesh, "weights");
            for (size_t k = 0; k < m->target_count; ++k) cJSON_AddItemToArray(ws, cJSON_CreateNumber(wm->weights[k]));
        }
        cJSON* extras = cJSON_AddObjectToObject(mesh, "extras");
        cJSON* names = cJSON_AddArrayToObject(extras, "targetNames");
        for (size_t k = 0; k < m->target_count; ++k) {
            char def[32];
            snprintf(def, sizeof def, "target %zu", k);
            cJSON_AddItemToArray(names, cJSON_CreateString(m->targets[k].name ? m->targets[k].name : def));
        }
    }
    return w->oom ? SF_ERROR_OUT_OF_MEMORY : SF_OK;
}

static cJSON* float_array(const float* v, size_t n)
{
    cJSON* a = cJSON_CreateArray();
    for (size_t i = 0; i < n; ++i) cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
    return a;
}

/* The first non-finite of count elements of per floats (stride bytes apart, 0 = packed): refused naming field
 * and the element. */
static sf_result check_finite(writer* w, const void* data, size_t count, size_t per, size_t stride, const char* field)
{
    if (!data) return SF_OK;
    size_t step = stride ? stride : per * sizeof(float);
    for (size_t i = 0; i < count; ++i) {
        const float* v = (const float*)(const void*)((const uint8_t*)data + i * step);
        for (size_t k = 0; k < per; ++k)
            if (!isfinite(v[k]))
                return sf_error_set(w->err, SF_ERROR_NOT_FINITE, field, i,
                                    "component %zu is %g: glTF holds finite numbers only", k, (double)v[k]);
    }
    return SF_OK;
}

/* A node's numbers within what the loader takes from the JSON (SFI_GLTF_MAX_JSON_FLOAT). */
static sf_result check_json_floats(writer* w, const float* v, size_t n, const char* field)
{
    for (size_t k = 0; k < n; ++k)
        if (!(fabsf(v[k]) <= SFI_GLTF_MAX_JSON_FLOAT))
            return sf_error_set(w->err, SF_ERROR_TOO_LARGE, field, k, "element %zu is %g, beyond %g: no reader would take it",
                                k, (double)v[k], (double)SFI_GLTF_MAX_JSON_FLOAT);
    return SF_OK;
}

/* Every float the file would hold is finite, checked before anything is encoded: JSON has no NaN (cJSON
 * writes null: min/max become invalid) and NaN in the BIN chunk would reach every reader. */
static sf_result check_all_finite(writer* w, const sf_gltf_write_desc* d)
{
    char field[96];
    sf_result r;
#define CHECK_FINITE_(data, count, per, stride, ...)                                     \
    do {                                                                                 \
        snprintf(field, sizeof field, __VA_ARGS__);                                      \
        if ((r = check_finite(w, (data), (count), (per), (stride), field)) != SF_OK) return r; \
    } while (0)
    for (size_t i = 0; i < d->mesh_count; ++i) {
        const sf_gltf_write_mesh* wm = &d->meshes[i];
        const sf_mesh_desc* m = &wm->mesh;
        size_t n = m->vertex_count;
        CHECK_FINITE_(m->positions.data, n, 3, m->positions.stride, "meshes[%zu].mesh.positions", i);
        CHECK_FINITE_(m->normals.data, n, 3, m->normals.stride, "meshes[%zu].mesh.normals", i);
        CHECK_FINITE_(m->tangents.data, n, 4, m->tangents.stride, "meshes[%zu].mesh.tangents", i);
        CHECK_FINITE_(m->uvs.data, n, 2, m->uvs.stride, "meshes[%zu].mesh.uvs", i);
        CHECK_FINITE_(wm->colors, n, 4, 0, "meshes[%zu].colors", i);
        if (m->influence_count) CHECK_FINITE_(m->weights, n, m->influence_count, 0, "meshes[%zu].mesh.weights", i);
        for (size_t k = 0; m->targets && k < m->target_count; ++k) {
            const sf_morph_target_desc* t = &m->targets[k];
            size_t count = t->sparse_indices ? t->sparse_count : n;
            CHECK_FINITE_(t->position_deltas, count, 3, 0, "meshes[%zu].mesh.targets[%zu].position_deltas", i, k);
            CHECK_FINITE_(t->normal_deltas, count, 3, 0, "meshes[%zu].mesh.targets[%zu].normal_deltas", i, k);
            CHECK_FINITE_(t->tangent_deltas, count, 3, 0, "meshes[%zu].mesh.targets[%zu].tangent_deltas", i, k);
        }
        CHECK_FINITE_(wm->weights, m->target_count, 1, 0, "meshes[%zu].weights", i);
    }
    for (size_t i = 0; i < d->node_count; ++i) {
        const sf_gltf_write_node* wn = &d->nodes[i];
        if (wn->matrix) {
            CHECK_FINITE_(wn->matrix, 1, 16, 0, "nodes[%zu].matrix", i);
            if ((r = check_json_floats(w, wn->matrix, 16, field)) != SF_OK) return r;
        } else {
            CHECK_FINITE_(wn->translation, 1, 3, 0, "nodes[%zu].translation", i);
            if ((r = check_json_floats(w, wn->translation, 3, field)) != SF_OK) return r;
            CHECK_FINITE_(wn->rotation, 1, 4, 0, "nodes[%zu].rotation", i);
            CHECK_FINITE_(wn->scale, 1, 3, 0, "nodes[%zu].scale", i);
            if ((r = check_json_floats(w, wn->scale, 3, field)) != SF_OK) return r;
        }
    }
    for (size_t s = 0; s < d->skin_count; ++s)
        CHECK_FINITE_(d->skins[s].inverse_bind_matrices, d->skins[s].joint_count, 16, 0,
                      "skins[%zu].inverse_bind_matrices", s);
    for (size_t a = 0; a < d->animation_count; ++a) {
        const sf_gltf_write_animation* wa = &d->animations[a];
        for (size_t c = 0; wa->channels && c < wa->channel_count; ++c) {
            const sf_gltf_channel* ch = &wa->channels[c];
            size_t per_key = (ch->interpolation == SF_GLTF_CUBICSPLINE ? 3 : 1);
            CHECK_FINITE_(ch->times, ch->key_count, 1, 0, "animations[%zu].channels[%zu].times", a, c);
            if (ch->components)
                CHECK_FINITE_(ch->values, ch->key_count * per_key, ch->components, 0,
                              "animations[%zu].channels[%zu].values", a, c);
        }
    }
#undef CHECK_FINITE_
    return SF_OK;
}

/* The skins (joints, inverse bind matrices as accessors). */
static sf_result write_skins(writer* w, const sf_gltf_write_desc* d)
{
    if (!d->skin_count) return SF_OK;
    cJSON* skins = cJSON_AddArrayToObject(w->root, "skins");
    for (size_t s = 0; s < d->skin_count; ++s) {
        const sf_gltf_write_skin* ws = &d->skins[s];
        cJSON* o = cJSON_CreateObject();
        cJSON_AddItemToArray(skins, o);
        cJSON* j = cJSON_AddArrayToObject(o, "joints");
        for (size_t k = 0; k < ws->joint_count; ++k) {
            if (ws->joints[k] >= d->node_count) return wfail(w, "skins", s, "joint is not a node");
            cJSON_AddItemToArray(j, cJSON_CreateNumber((double)ws->joints[k]));
        }
        if (ws->inverse_bind_matrices)
            cJSON_AddNumberToObject(o, "inverseBindMatrices",
                                    (double)add_float_accessor(w, ws->inverse_bind_matrices, ws->joint_count, 16, 0));
    }
    return SF_OK;
}

/* The animations: a sampler (times and values as accessors) and a channel per sf_gltf_channel. */
static sf_result write_animations(writer* w, const sf_gltf_write_desc* d)
{
    if (!d->animation_count) return SF_OK;
    static const char* const paths[] = {"translation", "rotation", "scale", "weights"};
    static const char* const interps[] = {"LINEAR", "STEP", "CUBICSPLINE"};
    cJSON* anims = cJSON_AddArrayToObject(w->root, "animations");
    for (size_t a = 0; a < d->animation_count; ++a) {
        const sf_gltf_write_animation* wa = &d->animations[a];
        cJSON* o = cJSON_CreateObject();
        cJSON_AddItemToArray(anims, o);
        if (wa->name) cJSON_AddStringToObject(o, "name", wa->name);
        cJSON* channels = cJSON_AddArrayToObject(o, "channels");
        cJSON* samplers = cJSON_AddArrayToObject(o, "samplers");
        for (size_t c = 0; c < wa->channel_count; ++c) {
            const sf_gltf_channel* ch = &wa->channels[c];
            if (ch->node >= d->node_count || (unsigned)ch->path > SF_GLTF_WEIGHTS ||
                (unsigned)ch->interpolation > SF_GLTF_CUBICSPLINE || ch->key_count == 0 || !ch->times ||
                !ch->values || ch->components == 0)
                return wfail(w, "animations", a, "channel node, path, interpolation or keys invalid");
            size_t per_key = (ch->interpolation == SF_GLTF_CUBICSPLINE ? 3 : 1) * ch->components;
            size_t in = add_float_accessor(w, ch->times, ch->key_count, 1, 1);
            size_t out = ch->path == SF_GLTF_WEIGHTS
                             ? add_float_accessor(w, ch->values, ch->key_count * per_key, 1, 0)
                             : add_float_accessor(w, ch->values, ch->key_count * per_key / ch->components,
                                                  ch->components, 0);
            cJSON* s = cJSON_CreateObject();
            cJSON_AddNumberToObject(s, "input", (double)in);
            cJSON_AddNumberToObject(s, "output", (double)out);
            cJSON_AddStringToObject(s, "interpolation", interps[ch->interpolation]);
            cJSON_AddItemToArray(samplers, s);
            cJSON* co = cJSON_CreateObject();
            cJSON_AddNumberToObject(co, "sampler", (double)c);
            cJSON* t = cJSON_AddObjectToObject(co, "target");
            cJSON_AddNumberToObject(t, "node", (double)ch->node);
            cJSON_AddStringToObject(t, "path", paths[ch->path]);
            cJSON_AddItemToArray(channels, co);
        }
    }
    return SF_OK;
}

static sf_result build(writer* w, const sf_gltf_write_desc* d)
{
    sf_result rf = check_all_finite(w, d);
    if (rf != SF_OK) return rf;
    w->root = cJSON_CreateObject();
    cJSON* asset = cJSON_AddObjectToObject(w->root, "asset");
    cJSON_AddStringToObject(asset, "version", "2.0");
    cJSON_AddStringToObject(asset, "generator", d->generator ? d->generator : "skinframe");
    cJSON* meshes = cJSON_CreateArray();
    w->views = cJSON_CreateArray();
    w->accessors = cJSON_CreateArray();
    for (size_t mi = 0; mi < d->mesh_count; ++mi) {
        sf_result r = check_mesh(w, &d->meshes[mi], mi);
        if (r == SF_OK) r = write_mesh(w, &d->meshes[mi], meshes);
        if (r != SF_OK) {
            cJSON_Delete(meshes);
            return r;
        }
    }
    /* Nodes: parents must come first so that children lists are complete. */
    cJSON* nodes = cJSON_CreateArray();
    cJSON* scene_nodes = cJSON_CreateArray();
    cJSON** items = sf_env_calloc(&w->env, d->node_count + 1, sizeof(cJSON*));
    if (!items) w->oom = 1;
    sf_result r = SF_OK;
    for (size_t i = 0; items && i < d->node_count && r == SF_OK; ++i) {
        const sf_gltf_write_node* wn = &d->nodes[i];
        cJSON* o = cJSON_CreateObject();
        items[i] = o;
        cJSON_AddItemToArray(nodes, o);
        if (wn->name) cJSON_AddStringToObject(o, "name", wn->name);
        if (wn->parent == SF_GLTF_NONE) {
            cJSON_AddItemToArray(scene_nodes, cJSON_CreateNumber((double)i));
        } else if (wn->parent >= i) {
            r = wfail(w, "nodes", i, "parent must come before the node");
        } else {
            cJSON* ch = cJSON_GetObjectItemCaseSensitive(items[wn->parent], "children");
            if (!ch) ch = cJSON_AddArrayToObject(items[wn->parent], "children");
            cJSON_AddItemToArray(ch, cJSON_CreateNumber((double)i));
        }
        if (wn->mesh != SF_GLTF_NONE) {
            if (wn->mesh >= d->mesh_count) r = wfail(w, "nodes", i, "mesh out of range");
            cJSON_AddNumberToObject(o, "mesh", (double)wn->mesh);
        }
        if (wn->skin != SF_GLTF_NONE) {
            if (wn->skin >= d->skin_count) r = wfail(w, "nodes", i, "skin out of range");
            cJSON_AddNumberToObject(o, "skin", (double)wn->skin);
        }
        if (wn->matrix) {
            cJSON_AddItemToObject(o, "matrix", float_array(wn->matrix, 16));
        } else {
            float q[4] = {wn->rotation[0], wn->rotation[1], wn->rotation[2], wn->rotation[3]};
            float s[3] = {wn->scale[0], wn->scale[1], wn->scale[2]};
            if (q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0) q[3] = 1.0f;
            if (s[0] == 0 && s[1] == 0 && s[2] == 0) s[0] = s[1] = s[2] = 1.0f;
            cJSON_AddItemToObject(o, "translation", float_array(wn->translation, 3));
            cJSON_AddItemToObject(o, "rotation", float_array(q, 4));
            cJSON_AddItemToObject(o, "scale", float_array(s, 3));
        }
    }
    sf_env_free(&w->env, items, 0);
    cJSON_AddItemToObject(w->root, "scene", cJSON_CreateNumber(0));
    cJSON* scenes = cJSON_AddArrayToObject(w->root, "scenes");
    cJSON* scene = cJSON_CreateObject();
    cJSON_AddItemToArray(scenes, scene);
    cJSON_AddItemToObject(scene, "nodes", scene_nodes);
    cJSON_AddItemToObject(w->root, "nodes", nodes);
    cJSON_AddItemToObject(w->root, "meshes", meshes);
    if (r != SF_OK) return r;
    r = write_skins(w, d);
    if (r == SF_OK) r = write_animations(w, d);
    if (r != SF_OK) return r;
    if (w->size) { /* glTF buffers hold at least one byte; with no data there is no BIN chunk either */
        cJSON* buffers = cJSON_AddArrayToObject(w->root, "buffers");
        cJSON* b = cJSON_CreateObject();
        cJSON_AddNumberToObject(b, "byteLength", (double)((w->size + 3) & ~(size_t)3));
        cJSON_AddItemToArray(buffers, b);
    }
    cJSON_AddItemToObject(w->root, "bufferViews", w->views);
    cJSON_AddItemToObject(w->root, "accessors", w->accessors);
    w->views = w->accessors = NULL;
    return w->oom ? SF_ERROR_OUT_OF_MEMORY : SF_OK;
}

static void put32(uint8_t* p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

sf_result sf_gltf_write_glb(const sf_gltf_write_desc* desc, const sf_env* env, void** out_data, size_t* out_size,
                            sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(desc && out_data && out_size, SF_ERROR_INVALID_ARGUMENT, err, "arguments", SFI_NO_INDEX,
             "desc, out_data and out_size are required");
    *out_data = NULL;
    *out_size = 0;
    writer w;
    memset(&w, 0, sizeof w);
    w.env = sf_env_defaults(env);
    w.err = err;
    sf_result r = build(&w, desc);
    char* json = NULL;
    if (r == SF_OK) {
        json = cJSON_PrintUnformatted(w.root);
        if (!json) r = SF_ERROR_OUT_OF_MEMORY;
    }
    if (r == SF_OK) {
        size_t jlen = strlen(json), jpad = (jlen + 3) & ~(size_t)3, bpad = (w.size + 3) & ~(size_t)3;
        size_t total = 12 + 8 + jpad + (bpad ? 8 + bpad : 0);
        uint8_t* glb = total <= UINT32_MAX ? sf_env_alloc(&w.env, total) : NULL;
        if (!glb) {
            r = SF_ERROR_OUT_OF_MEMORY;
        } else {
            put32(glb, 0x46546C67u);
            put32(glb + 4, 2);
            put32(glb + 8, (uint32_t)total);
            put32(glb + 12, (uint32_t)jpad);
            put32(glb + 16, 0x4E4F534Au);
            memcpy(glb + 20, json, jlen);
            memset(glb + 20 + jlen, ' ', jpad - jlen);
            if (bpad) {
                uint8_t* b = glb + 20 + jpad;
                put32(b, (uint32_t)bpad);
                put32(b + 4, 0x004E4942u);
                memcpy(b + 8, w.bin, w.size);
                memset(b + 8 + w.size, 0, bpad - w.size);
            }
            *out_data = glb;
            *out_size = total;
        }
    }
    if (r == SF_ERROR_OUT_OF_MEMORY) sf_error_set(err, r, "gltf_write", SFI_NO_INDEX, "out of memory");
    cJSON_free(json);
    cJSON_Delete(w.root);
    cJSON_Delete(w.views);
    cJSON_Delete(w.accessors);
    sf_env_free(&w.env, w.bin, w.cap);
    return r;
}

void sf_gltf_free_bytes(const sf_env* env, void* data, size_t size)
{
    sf_env e = sf_env_defaults(env);
    sf_env_free(&e, data, size);
}

sf_result sf_gltf_save_glb(const sf_gltf_write_desc* desc, const char* path, const char* protect_path,
                           const sf_env* env, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(path && *path, SF_ERROR_INVALID_ARGUMENT, err, "path", SFI_NO_INDEX, "is empty");
    if (protect_path && sf_file_same(path, protect_path))
        return sf_error_set(err, SF_ERROR_IO, "path", SFI_NO_INDEX, "%s is the input file; refusing to overwrite it", path);
    void* data;
    size_t size;
    sf_result r = sf_gltf_write_glb(desc, env, &data, &size, err);
    if (r != SF_OK) return r;
    r = sf_file_write_atomic(path, data, size, err);
    sf_gltf_free_bytes(env, data, size);
    return r;
}

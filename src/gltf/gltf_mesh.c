/* glTF meshes: each primitive's triangles and attributes as an sf_mesh_desc. */
#include "gltf_loader.h"

#include <stdio.h>
#include <string.h>

/* Appends "NAME:TYPE/ctype " for the attribute list of a primitive. */
static void describe(loader* L, char* buf, size_t size, const char* name, size_t ai)
{
    const accessor* ac = &L->accessors[ai];
    size_t len = strlen(buf);
    if (len + 1 < size)
        snprintf(buf + len, size - len, "%s%s:%s/%s", len ? " " : "", name, ac->type,
                 component_name(ac->ctype, ac->normalized));
}

static int has_word(const char* list, const char* word)
{
    size_t n = strlen(word);
    for (const char* p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    return 0;
}

/* Triangles of a primitive (strips and fans converted as the glTF spec orders them). */
static sf_result build_triangles(loader* L, const char* base, uint32_t mode, const uint32_t* idx, size_t count,
                                 size_t vertex_count, uint32_t** out, size_t* tri_count)
{
    for (size_t i = 0; i < count; ++i)
        if (idx[i] >= vertex_count)
            return jfail(L, base, "indices", "index %u at position %zu >= vertex count %zu", idx[i], i, vertex_count);
    size_t T;
    if (mode == 4) {
        if (count % 3) return jfail(L, base, "indices", "count %zu is not a multiple of 3", count);
        T = count / 3;
    } else {
        T = count >= 3 ? count - 2 : 0;
    }
    uint32_t* tri = own_alloc(L, T ? T : 1, 3 * sizeof(uint32_t));
    if (!tri) return oom(L, base);
    for (size_t t = 0; t < T; ++t) {
        uint32_t* o = tri + 3 * t;
        if (mode == 4) {
            o[0] = idx[3 * t], o[1] = idx[3 * t + 1], o[2] = idx[3 * t + 2];
        } else if (mode == 5) { /* strip: (i, i + 1 + i%2, i + 2 - i%2) */
            o[0] = idx[t], o[1] = idx[t + 1 + t % 2], o[2] = idx[t + 2 - t % 2];
        } else { /* fan: (i + 1, i + 2, 0) */
            o[0] = idx[t + 1], o[1] = idx[t + 2], o[2] = idx[0];
        }
    }
    *out = tri;
    *tri_count = T;
    return SF_OK;
}

/* A vertex attribute accessor: checks its count against POSITION and reads it as floats. */
static sf_result read_attribute(loader* L, const cJSON* attrs, const char* name, const char* abase, size_t n,
                                size_t ncomp, char* desc, size_t desc_size, float** out)
{
    size_t ai;
    *out = NULL;
    TRY(get_index(L, attrs, name, abase, 0, L->accessor_count, "accessors", &ai));
    if (ai == SF_GLTF_NONE) return SF_OK;
    if (L->accessors[ai].count != n)
        return jfail(L, abase, name, "accessors[%zu].count %zu differs from POSITION's %zu", ai,
                     L->accessors[ai].count, n);
    if (desc) describe(L, desc, desc_size, name, ai);
    TRY(read_floats(L, ai, abase, name, ncomp, 1, out));
    if (strncmp(name, "WEIGHTS_", 8) != 0) /* weights are relative: the core rescales them */
        TRY(check_coords(L, abase, name, ai, *out, NULL, n, ncomp, ncomp == 4 ? 3 : ncomp));
    return SF_OK;
}

/* TEXCOORD_n and COLOR_n sets, counted while contiguous from 0: the set in use (opts.texcoord) is read into
 * *uv, the others are checked. */
static sf_result read_texcoords_colors(loader* L, const cJSON* attrs, const char* abase, size_t n,
                                       sf_gltf_primitive* out, char* desc, size_t desc_size, float** uv)
{
    char key[32];
    for (uint32_t s = 0; s < 64; ++s) {
        snprintf(key, sizeof key, "TEXCOORD_%u", s);
        if (!jget(attrs, key)) break;
        if (s == L->opts.texcoord) {
            TRY(read_attribute(L, attrs, key, abase, n, 2, desc, desc_size, uv));
        } else { /* only the set in use is read; the others are checked */
            size_t tai;
            TRY(get_index(L, attrs, key, abase, 1, L->accessor_count, "accessors", &tai));
            if (L->accessors[tai].count != n)
                return jfail(L, abase, key, "accessors[%zu].count %zu differs from POSITION's %zu", tai,
                             L->accessors[tai].count, n);
            TRY(accessor_expect(L, tai, abase, key, 2, 0));
            describe(L, desc, desc_size, key, tai);
        }
        out->texcoord_sets = s + 1;
    }
    for (uint32_t s = 0; s < 64; ++s) {
        snprintf(key, sizeof key, "COLOR_%u", s);
        size_t cai;
        TRY(get_index(L, attrs, key, abase, 0, L->accessor_count, "accessors", &cai));
        if (cai == SF_GLTF_NONE) break;
        if (L->accessors[cai].count != n)
            return jfail(L, abase, key, "accessors[%zu].count %zu differs from POSITION's %zu", cai,
                         L->accessors[cai].count, n);
        describe(L, desc, desc_size, key, cai);
        out->color_sets = s + 1;
    }
    out->texcoord = L->opts.texcoord;
    return SF_OK;
}

/* JOINTS_n / WEIGHTS_n: every set, concatenated per vertex (4 slots a set) into *joints and *weights; slots
 * without weight point at joint 0. */
static sf_result read_skin(loader* L, const cJSON* attrs, const char* abase, size_t n, sf_gltf_primitive* out,
                           char* desc, size_t desc_size, uint32_t** joints, float** weights)
{
    char key[32];
    uint32_t sets = 0;
    while (sets < 64) {
        snprintf(key, sizeof key, "JOINTS_%u", sets);
        if (!jget(attrs, key)) break;
        sets++;
    }
    if (sets) {
        size_t K = 4 * (size_t)sets;
        *joints = own_alloc(L, n, K * sizeof(uint32_t));
        *weights = own_alloc(L, n, K * sizeof(float));
        if (!*joints || !*weights) return oom(L, abase);
        for (uint32_t s = 0; s < sets; ++s) {
            size_t jai;
            snprintf(key, sizeof key, "JOINTS_%u", s);
            TRY(get_index(L, attrs, key, abase, 1, L->accessor_count, "accessors", &jai));
            if (L->accessors[jai].count != n)
                return jfail(L, abase, key, "accessors[%zu].count %zu differs from POSITION's %zu", jai,
                             L->accessors[jai].count, n);
            describe(L, desc, desc_size, key, jai);
            uint32_t* j;
            TRY(read_uints(L, jai, abase, key, 4, &j));
            snprintf(key, sizeof key, "WEIGHTS_%u", s);
            if (!jget(attrs, key)) return jfail(L, abase, key, "missing (JOINTS_%u is present)", s);
            size_t wai;
            TRY(get_index(L, attrs, key, abase, 1, L->accessor_count, "accessors", &wai));
            if (L->accessors[wai].ctype != 5126 && !L->accessors[wai].normalized)
                return jfail(L, abase, key, "accessors[%zu] holds %s; weights are float or normalized u8/u16", wai,
                             component_name(L->accessors[wai].ctype, 0));
            float* w;
            TRY(read_attribute(L, attrs, key, abase, n, 4, desc, desc_size, &w));
            for (size_t v = 0; v < n; ++v)
                for (int c = 0; c < 4; ++c) {
                    float wv = w[4 * v + c];
                    if (wv < 0.0f) return jfail(L, abase, key, "vertex %zu has negative weight %g", v, (double)wv);
                    /* Slots without weight point at joint 0 so that no stale index is ever used. */
                    (*joints)[K * v + 4 * s + c] = wv > 0.0f ? j[4 * v + c] : 0;
                    (*weights)[K * v + 4 * s + c] = wv;
                    if (wv > 0.0f && j[4 * v + c] > out->max_joint) out->max_joint = j[4 * v + c];
                }
        }
    }
    out->joint_sets = sets;
    return SF_OK;
}

/* The primitive's morph targets as read (*tr, *tc of them; want_dense: the primitive generates flat normals), and
 * the attributes they move in tattrs (64 bytes). */
static sf_result read_targets(loader* L, const cJSON* p, const char* base, size_t n, int want_dense,
                              sf_gltf_primitive* out, target_read** tr_out, size_t* tc_out, char* tattrs)
{
    const cJSON* targets;
    size_t tc;
    TRY(get_array(L, p, "targets", base, 0, &targets, &tc));
    target_read* tr = tmp_alloc(L, tc + 1, sizeof(target_read));
    if (!tr) return oom(L, base);
    size_t k = 0;
    for (const cJSON* t = targets ? targets->child : NULL; t; t = t->next, ++k) {
        char tbase[96];
        snprintf(tbase, sizeof tbase, "%s.targets[%zu]", base, k);
        if (!cJSON_IsObject(t)) return jfail(L, tbase, NULL, "is not an object");
        TRY(read_target(L, t, tbase, n, want_dense, &tr[k]));
        if (jget(t, "POSITION") && !has_word(tattrs, "POSITION")) strcat(tattrs, tattrs[0] ? " POSITION" : "POSITION");
        if (jget(t, "NORMAL") && !has_word(tattrs, "NORMAL")) strcat(tattrs, tattrs[0] ? " NORMAL" : "NORMAL");
        if (jget(t, "TANGENT") && !has_word(tattrs, "TANGENT")) strcat(tattrs, tattrs[0] ? " TANGENT" : "TANGENT");
        if (tr[k].d[1]) out->target_normals = 1;
        if (tr[k].d[2]) out->target_tangents = 1;
    }
    *tr_out = tr;
    *tc_out = tc;
    return SF_OK;
}

/* Flat normals (glTF: "client implementations must calculate flat normals"): one vertex per corner of the T
 * triangles tri (renumbered), every per-vertex stream (K influence slots) and target delta carried to the
 * corners; *source: the vertex each corner came from. */
static sf_result split_flat(loader* L, const char* base, size_t T, uint32_t* tri, size_t K, target_read* tr,
                            size_t tc, float** pos, float** nrm, float** tan, float** uv, uint32_t** joints,
                            float** weights, uint32_t** source)
{
    size_t corners = 3 * T;
    if (T >= UINT32_MAX / 3) return jfail(L, base, "indices", "%zu triangles are too many to split per corner", T);
    *source = own_alloc(L, corners ? corners : 1, sizeof(uint32_t));
    if (!*source) return oom(L, base);
    memcpy(*source, tri, corners * sizeof(uint32_t));
    /* deindex returns NULL for a NULL source too, so out of memory is "had data, now NULL". */
    int lost = 0;
#define DEINDEX_(ptr, elem)                                  \
    do {                                                     \
        void* src_ = (ptr);                                  \
        (ptr) = deindex(L, src_, (elem), tri, corners);      \
        lost |= src_ != NULL && (ptr) == NULL;               \
    } while (0)
    DEINDEX_(*pos, 3 * sizeof(float));
    DEINDEX_(*tan, 4 * sizeof(float));
    DEINDEX_(*uv, 2 * sizeof(float));
    DEINDEX_(*joints, K * sizeof(uint32_t));
    DEINDEX_(*weights, K * sizeof(float));
    for (size_t t = 0; t < tc; ++t)
        for (int s = 0; s < 3; ++s) DEINDEX_(tr[t].d[s], 3 * sizeof(float));
#undef DEINDEX_
    *nrm = own_alloc(L, corners ? corners : 1, 3 * sizeof(float));
    if (lost || !*nrm) return oom(L, base);
    sf_error fe;
    if (sf_normals_flat(T, *pos, *nrm, &fe) != SF_OK) /* POSITION is within SF_MAX_COORD: not in practice */
        return jfail_code(L, fe.result, base, NULL, "generated normals of %s: %s", base, fe.message);
    for (size_t c = 0; c < corners; ++c) tri[c] = (uint32_t)c;
    return SF_OK;
}

static sf_result load_primitive(loader* L, const cJSON* p, size_t mi, size_t pi, sf_gltf_primitive* out,
                                size_t* target_count, int* skipped)
{
    char base[64], abase[80];
    snprintf(base, sizeof base, "meshes[%zu].primitives[%zu]", mi, pi);
    snprintf(abase, sizeof abase, "%s.attributes", base);
    *skipped = 0;
    if (!cJSON_IsObject(p)) return jfail(L, base, NULL, "is not an object");
    size_t mode;
    TRY(get_uint(L, p, "mode", base, 0, 6, 4, &mode));
    if (mode < 4) {
        *skipped = 1;
        return SF_OK;
    }
    const cJSON* attrs = jget(p, "attributes");
    if (!cJSON_IsObject(attrs)) return jfail(L, base, "attributes", "missing");
    memset(out, 0, sizeof *out);
    out->mesh_index = mi;
    out->primitive_index = pi;
    out->mode = (uint32_t)mode;
    char desc[512] = "";
    size_t pos_ai;
    TRY(get_index(L, attrs, "POSITION", abase, 1, L->accessor_count, "accessors", &pos_ai));
    size_t n = L->accessors[pos_ai].count;
    if (n >= UINT32_MAX) return jfail(L, abase, "POSITION", "too many vertices");
    float *pos, *nrm, *tan, *uv = NULL;
    TRY(read_attribute(L, attrs, "POSITION", abase, n, 3, desc, sizeof desc, &pos));
    TRY(read_attribute(L, attrs, "NORMAL", abase, n, 3, desc, sizeof desc, &nrm));
    TRY(read_attribute(L, attrs, "TANGENT", abase, n, 4, desc, sizeof desc, &tan));
    TRY(read_texcoords_colors(L, attrs, abase, n, out, desc, sizeof desc, &uv));
    uint32_t* joints = NULL;
    float* weights = NULL;
    TRY(read_skin(L, attrs, abase, n, out, desc, sizeof desc, &joints, &weights));
    uint32_t sets = out->joint_sets;
    /* Indices. */
    size_t iai;
    TRY(get_index(L, p, "indices", base, 0, L->accessor_count, "accessors", &iai));
    uint32_t* idx = NULL;
    size_t icount = 0;
    if (iai != SF_GLTF_NONE) {
        TRY(read_uints(L, iai, base, "indices", 1, &idx));
        icount = L->accessors[iai].count;
    } else {
        idx = tmp_alloc(L, n, sizeof(uint32_t));
        if (!idx) return oom(L, base);
        for (size_t i = 0; i < n; ++i) idx[i] = (uint32_t)i;
        icount = n;
    }
    uint32_t* tri = NULL;
    size_t T = 0;
    TRY(build_triangles(L, base, out->mode, idx, icount, n, &tri, &T));
    /* Morph targets. */
    size_t tc = 0;
    target_read* tr = NULL;
    char tattrs[64] = "";
    TRY(read_targets(L, p, base, n, nrm == NULL, out, &tr, &tc, tattrs));
    *target_count = tc;
    out->source_vertex_count = n;
    uint32_t* source = NULL;
    if (!nrm) {
        TRY(split_flat(L, base, T, tri, 4 * (size_t)sets, tr, tc, &pos, &nrm, &tan, &uv, &joints, &weights,
                       &source));
        n = 3 * T;
        out->flat_normals = 1;
    } else {
        source = own_alloc(L, n ? n : 1, sizeof(uint32_t));
        if (!source) return oom(L, base);
        for (size_t v = 0; v < n; ++v) source[v] = (uint32_t)v;
    }
    out->source_vertex = source;
    sf_morph_target_desc* td = own_alloc(L, tc + 1, sizeof(sf_morph_target_desc));
    if (!td) return oom(L, base);
    for (size_t t = 0; t < tc; ++t) {
        td[t].position_deltas = tr[t].d[0];
        td[t].normal_deltas = tr[t].d[1];
        td[t].tangent_deltas = tr[t].d[2];
        td[t].sparse_indices = tr[t].sparse;
        td[t].sparse_count = tr[t].sparse_count;
    }
    sf_mesh_desc* m = &out->mesh;
    m->vertex_count = n;
    m->triangle_count = T;
    m->indices = tri;
    m->positions.data = pos;
    m->normals.data = nrm;
    m->tangents.data = tan;
    m->uvs.data = uv;
    m->influence_count = 4 * sets;
    m->joints = joints;
    m->weights = weights;
    m->targets = td;
    m->target_count = tc;
    out->tangents = tan ? SF_GLTF_TANGENTS_SUPPLIED : uv ? SF_GLTF_TANGENTS_GENERATED_UV : SF_GLTF_TANGENTS_NONE;
    if (!tan && uv && L->opts.generated_tangents == SF_TANGENTS_MIKKTSPACE) TRY(generate_mikktspace(L, out, base));
    out->attributes = own_string(L, desc);
    out->target_attributes = own_string(L, tattrs);
    if (!out->attributes || !out->target_attributes) return oom(L, base);
    return SF_OK;
}

sf_result load_meshes(loader* L)
{
    sf_gltf* g = L->g;
    const cJSON* arr;
    TRY(get_array(L, L->root, "meshes", "", 0, &arr, &g->mesh_count));
    size_t total = 0;
    for (const cJSON* m = arr ? arr->child : NULL; m; m = m->next) {
        const cJSON* prims = jget(m, "primitives");
        if (cJSON_IsArray(prims)) total += (size_t)cJSON_GetArraySize(prims);
    }
    sf_gltf_mesh* meshes = own_alloc(L, g->mesh_count + 1, sizeof(sf_gltf_mesh));
    sf_gltf_primitive* prims_out = own_alloc(L, total + 1, sizeof(sf_gltf_primitive));
    if (!meshes || !prims_out) return oom(L, "meshes");
    g->meshes = meshes;
    g->primitives = prims_out;
    size_t mi = 0, np = 0;
    for (const cJSON* m = arr ? arr->child : NULL; m; m = m->next, ++mi) {
        char base[48];
        snprintf(base, sizeof base, "meshes[%zu]", mi);
        if (!cJSON_IsObject(m)) return jfail(L, base, NULL, "is not an object");
        const cJSON* prims;
        size_t pc;
        TRY(get_array(L, m, "primitives", base, 1, &prims, &pc));
        if (pc == 0) return jfail(L, base, "primitives", "is empty");
        sf_gltf_mesh* mesh = &meshes[mi];
        mesh->name = get_name(L, m);
        mesh->first_primitive = np;
        size_t targets = SF_GLTF_NONE, pi = 0;
        for (const cJSON* p = prims->child; p; p = p->next, ++pi) {
            int skipped;
            size_t tc = 0;
            TRY(load_primitive(L, p, mi, pi, &prims_out[np], &tc, &skipped));
            if (skipped) {
                g->skipped_primitives++;
                continue;
            }
            if (targets != SF_GLTF_NONE && tc != targets)
                return jfail(L, base, "primitives", "primitive %zu has %zu morph targets, the ones before it %zu", pi, tc,
                             targets);
            targets = tc;
            np++;
        }
        mesh->primitive_count = np - mesh->first_primitive;
        mesh->target_count = targets == SF_GLTF_NONE ? 0 : targets;
        float* w = own_alloc(L, mesh->target_count + 1, sizeof(float));
        const char** names = own_alloc(L, mesh->target_count + 1, sizeof(char*));
        if (!w || !names) return oom(L, base);
        const cJSON* jw = jget(m, "weights");
        if (jw) {
            if (!cJSON_IsArray(jw) || (size_t)cJSON_GetArraySize(jw) != mesh->target_count)
                return jfail(L, base, "weights", "must hold %zu numbers (one per morph target)", mesh->target_count);
            TRY(get_floats(L, m, "weights", base, mesh->target_count, w));
        }
        const cJSON* tn = jget(jget(m, "extras"), "targetNames");
        size_t t = 0;
        for (const cJSON* e = cJSON_IsArray(tn) ? tn->child : NULL; e && t < mesh->target_count; e = e->next, ++t)
            names[t] = own_string(L, cJSON_IsString(e) ? e->valuestring : "");
        for (; t < mesh->target_count; ++t) names[t] = "";
        mesh->weights = w;
        mesh->target_names = names;
    }
    g->primitive_count = np;
    return SF_OK;
}

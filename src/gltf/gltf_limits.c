/* The decoded size of a file, estimated before anything is decoded (the parsed JSON from its text, then the
 * accessor counts, the nodes' mesh instances and the compressed streams' outputs) and checked against
 * sf_gltf_opts.max_decoded_bytes. */
#include "gltf_loader.h"

#include <stdio.h>
#include <string.h>

static size_t sat_add(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }
static size_t sat_mul(size_t a, size_t b) { return b && a > SIZE_MAX / b ? SIZE_MAX : a * b; }

/* The accessor that obj[key] names, or NULL when absent or invalid (the loader reports those later). */
static const accessor* json_accessor(const loader* L, const cJSON* obj, const char* key)
{
    const cJSON* v = jget(obj, key);
    size_t k;
    return v && array_index(v, L->accessor_count, &k) ? &L->accessors[k] : NULL;
}

typedef struct costs {
    size_t decoded, limit; /* bytes estimated so far; max_decoded_bytes */
    size_t max_vertices;   /* largest vertex count of a primitive (the rigid instances' joints and weights) */
    size_t* mesh_vertices; /* per mesh: its primitives' vertices (what each node drawing it costs) */
    int default_limit;     /* the limit is the default (64 MiB + 64 x input) */
} costs;

/* max_decoded_bytes as given, or its default from the input's bytes read so far (*is_default set). */
static size_t decoded_limit(const loader* L, int* is_default)
{
    *is_default = !L->opts.max_decoded_bytes;
    if (!*is_default) return L->opts.max_decoded_bytes;
    return sat_add(SF_GLTF_DEFAULT_DECODED_BASE, sat_mul(SF_GLTF_DEFAULT_DECODED_FACTOR, L->input_bytes));
}

/* The refusal of an estimate over max_decoded_bytes: `what` needs ~`needed` bytes, the limit, how to raise it. */
static sf_result over_limit(loader* L, const char* base, const char* what, size_t needed, size_t limit,
                            int is_default)
{
    if (is_default)
        return jfail(L, base, NULL, "%s ~%zu decoded bytes > max_decoded_bytes %zu (64 MiB + 64 x %zu input "
                     "bytes); raise sf_gltf_opts.max_decoded_bytes / --max-decoded-bytes", what, needed, limit,
                     L->input_bytes);
    return jfail(L, base, NULL, "%s ~%zu decoded bytes > max_decoded_bytes %zu; raise "
                 "sf_gltf_opts.max_decoded_bytes / --max-decoded-bytes", what, needed, limit);
}

/* Adds bytes to the estimate; fails naming `base` when the total passes max_decoded_bytes. */
static sf_result charge(loader* L, costs* c, const char* base, size_t bytes)
{
    c->decoded = sat_add(c->decoded, bytes);
    if (c->decoded <= c->limit) return SF_OK;
    return over_limit(L, base, "needs", c->decoded, c->limit, c->default_limit);
}

/* What cJSON allocates for a text, bounded from above in one pass without allocating: a node per value (the
 * root, and in every non-empty array or object one per comma plus one), each sizeof(cJSON) plus the
 * allocator's header, and a copy of every string (keys included) of at most its raw length plus one byte and
 * the allocator's rounding; the text's own copy counts too. A text that does not parse costs no more than its
 * prefix, so the bound holds for it as well. */
size_t json_tree_bytes(const char* text, size_t len, size_t* values_out)
{
    const size_t node = sizeof(cJSON) + 16, string_extra = 32;
    size_t values = 1, strings = 0, string_bytes = 0;
    int in_string = 0, just_opened = 0;
    for (size_t i = 0; i < len; ++i) {
        char ch = text[i];
        if (in_string) {
            if (ch == '\\' && i + 1 < len) ++i, string_bytes += 2;
            else if (ch == '"') in_string = 0;
            else string_bytes++;
            continue;
        }
        if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t') continue;
        if (just_opened && ch != ']' && ch != '}') values++; /* a non-empty container's first member */
        just_opened = ch == '[' || ch == '{';
        if (ch == ',') values++;
        else if (ch == '"') in_string = 1, strings++;
    }
    if (values_out) *values_out = values;
    return sat_add(sat_add(len, sat_mul(values, node)), sat_add(string_bytes, sat_mul(strings, string_extra)));
}

sf_result check_json_cost(loader* L, const char* text, size_t len)
{
    int is_default;
    size_t limit = decoded_limit(L, &is_default), values;
    L->json_bytes = json_tree_bytes(text, len, &values);
    char what[96];
    snprintf(what, sizeof what, "%zu bytes of JSON (%zu values) parse into", len, values);
    /* By default the tree is also bounded by its own text, whose cost per byte the input's factor does not
     * bound: a short number is a whole node. */
    size_t json_limit = sat_add(SF_GLTF_DEFAULT_DECODED_BASE, sat_mul(SF_GLTF_DEFAULT_JSON_FACTOR, len));
    if (is_default && json_limit < limit && L->json_bytes > json_limit)
        return jfail(L, "json", NULL, "%s ~%zu bytes > %zu = 64 MiB + %d x the text (the JSON default); raise "
                     "max_decoded_bytes / --max-decoded-bytes", what, L->json_bytes, json_limit,
                     SF_GLTF_DEFAULT_JSON_FACTOR);
    if (L->json_bytes <= limit) return SF_OK;
    return over_limit(L, "json", what, L->json_bytes, limit, is_default);
}

/* What load_primitive will decode for one primitive, from the accessor counts alone: the vertex streams read
 * as 32-bit values, indices and triangles, morph deltas (dense, or the entries of a target kept sparse), the
 * copies made by the flat-normal split (3 vertices per triangle when there is no NORMAL) and generated
 * MikkTSpace tangents. Checks max_vertices and max_morph_elements on the way. */
static sf_result primitive_costs(loader* L, costs* c, const cJSON* p, size_t mi, size_t pi)
{
    char base[64];
    snprintf(base, sizeof base, "meshes[%zu].primitives[%zu]", mi, pi);
    const cJSON* mode = jget(p, "mode");
    if (cJSON_IsNumber(mode) && mode->valuedouble < 4.0) return SF_OK; /* points and lines are skipped */
    int strip_or_fan = cJSON_IsNumber(mode) && mode->valuedouble >= 5.0;
    const cJSON* attrs = jget(p, "attributes");
    const accessor* pos = json_accessor(L, attrs, "POSITION");
    if (!pos) return SF_OK;
    size_t n = pos->count;
    int normals = json_accessor(L, attrs, "NORMAL") != NULL;
    int tangents = json_accessor(L, attrs, "TANGENT") != NULL;
    char key[32];
    snprintf(key, sizeof key, "TEXCOORD_%u", L->opts.texcoord);
    int uvs = json_accessor(L, attrs, key) != NULL;
    size_t sets = 0;
    for (; sets < 64; ++sets) {
        snprintf(key, sizeof key, "JOINTS_%zu", sets);
        if (!jget(attrs, key)) break;
    }
    const accessor* idx = json_accessor(L, p, "indices");
    size_t icount = idx ? idx->count : n;
    size_t T = strip_or_fan ? (icount >= 3 ? icount - 2 : 0) : icount / 3;
    size_t V = normals ? n : sat_mul(3, T);
    if (n > L->opts.max_vertices)
        return jfail(L, base, NULL, "POSITION has %zu vertices > max_vertices %zu; raise sf_gltf_opts.max_vertices / "
                     "--max-vertices", n, L->opts.max_vertices);
    if (V > L->opts.max_vertices)
        return jfail(L, base, NULL, "%zu vertices once split for flat normals (no NORMAL) > max_vertices %zu; raise "
                     "sf_gltf_opts.max_vertices / --max-vertices", V, L->opts.max_vertices);
    if (V > c->max_vertices) c->max_vertices = V;
    if (c->mesh_vertices) c->mesh_vertices[mi] = sat_add(c->mesh_vertices[mi], V);
    /* Per source vertex: POSITION, NORMAL, TANGENT, the TEXCOORD set in use, the source index, and per
     * JOINTS/WEIGHTS set the joints and weights read (16 + 16 bytes) and kept (16 + 16 bytes). */
    size_t per_vertex = 12 + 12 * (size_t)normals + 16 * (size_t)tangents + 8 * (size_t)uvs + 4 + 64 * sets;
    size_t bytes = sat_add(sat_mul(n, per_vertex), sat_add(sat_mul(icount, 4), sat_mul(T, 12)));
    /* Morph targets. */
    const cJSON* targets = jget(p, "targets");
    size_t tc = 0, elements = 0, k = 0;
    static const char* const names[3] = {"POSITION", "NORMAL", "TANGENT"};
    for (const cJSON* t = cJSON_IsArray(targets) ? targets->child : NULL; t; t = t->next, ++k) {
        size_t ai[3], streams = 0;
        int sparse = normals; /* splitting reads every target dense */
        for (int s = 0; s < 3; ++s) {
            const accessor* ac = json_accessor(L, t, names[s]);
            ai[s] = ac ? (size_t)(ac - L->accessors) : SF_GLTF_NONE;
            if (!ac) continue;
            streams++;
            if (ac->view != SF_GLTF_NONE || !ac->sparse_count) sparse = 0;
        }
        if (ai[0] == SF_GLTF_NONE) streams++; /* zero POSITION deltas are allocated */
        tc++;
        const accessor* first = sparse && streams ? same_sparse_indices(L, ai) : NULL;
        if (first) {
            elements = sat_add(elements, first->sparse_count);
            bytes = sat_add(bytes, sat_mul(first->sparse_count, 4 + 12 * streams));
        } else {
            elements = sat_add(elements, V);
            bytes = sat_add(bytes, sat_mul(sat_mul(n, 12), streams));
            if (!normals) bytes = sat_add(bytes, sat_mul(sat_mul(V, 12), streams));
        }
    }
    if (elements > L->opts.max_morph_elements)
        return jfail(L, base, NULL, "%zu morph targets hold %zu (target, vertex) elements > max_morph_elements %zu; "
                     "raise sf_gltf_opts.max_morph_elements / --max-morph-elements", tc, elements,
                     L->opts.max_morph_elements);
    /* The flat-normal split copies every stream per corner and adds the normals and the source indices. */
    if (!normals)
        bytes = sat_add(bytes, sat_mul(V, 12 + 12 + 4 + 16 * (size_t)tangents + 8 * (size_t)uvs + 32 * sets));
    /* MikkTSpace at load: the tangents, the corner tangents and a flag per vertex (the generator's own
     * topology is bounded by max_vertices, not counted here). */
    if (!tangents && uvs && L->opts.generated_tangents == SF_TANGENTS_MIKKTSPACE)
        bytes = sat_add(bytes, sat_add(sat_mul(V, 17), sat_mul(T, 48)));
    return charge(L, c, base, bytes);
}

/* Every node drawing a mesh has results of its own (deformed vertices, frames, what bake writes), so a mesh
 * drawn by a thousand nodes costs a thousand times its vertices: SF_GLTF_INSTANCE_VERTEX_BYTES each. */
static sf_result instance_costs(loader* L, costs* c, size_t mesh_count)
{
    const cJSON* nodes = jget(L->root, "nodes");
    size_t instances = 0, vertices = 0, m;
    for (const cJSON* nd = cJSON_IsArray(nodes) ? nodes->child : NULL; nd; nd = nd->next)
        if (array_index(jget(nd, "mesh"), mesh_count, &m)) {
            instances++;
            vertices = sat_add(vertices, c->mesh_vertices[m]);
        }
    char base[96];
    snprintf(base, sizeof base, "nodes (%zu mesh instances, %zu vertices in all)", instances, vertices);
    return charge(L, c, base, sat_mul(vertices, SF_GLTF_INSTANCE_VERTEX_BYTES));
}

/* The decoded bytes of the compressed views and Draco primitives, from the declared counts: each output
 * (at least 4 bytes a value, indices decode as 32-bit first) and, for Draco, as much again for the
 * decoder's own copy of the attributes. */
static sf_result compressed_costs(loader* L, costs* c)
{
    for (size_t v = 0; v < L->view_count; ++v) {
        const sfi_meshopt_view* m = &L->views[v].meshopt;
        if (!m->present) continue;
        char base[48];
        snprintf(base, sizeof base, "bufferViews[%zu]", v);
        TRY(charge(L, c, base, L->views[v].length));
    }
    const cJSON* meshes = jget(L->root, "meshes");
    size_t mi = 0;
    for (const cJSON* m = cJSON_IsArray(meshes) ? meshes->child : NULL; m; m = m->next, ++mi) {
        const cJSON* prims = jget(m, "primitives");
        size_t pi = 0;
        for (const cJSON* p = cJSON_IsArray(prims) ? prims->child : NULL; p; p = p->next, ++pi) {
            char base[64];
            snprintf(base, sizeof base, "meshes[%zu].primitives[%zu]", mi, pi);
            sfi_draco_primitive dp;
            sfi_draco_target t[SFI_DRACO_MAX_ATTRIBUTES + 1];
            size_t n = 0, bytes = 0;
            if (!sfi_draco_built_in() || !cJSON_IsObject(p)) continue;
            TRY(sfi_draco_parse(p, base, L->view_count, &dp, L->err));
            if (!dp.present) continue;
            TRY(draco_targets(L, p, base, &dp, t, &n));
            for (size_t k = 0; k < n; ++k) bytes = sat_add(bytes, sat_mul(sat_mul(t[k].count, t[k].ncomp), 8));
            TRY(charge(L, c, base, bytes));
        }
    }
    return SF_OK;
}

/* The whole file's decoded bytes, estimated before anything is decoded: every primitive, then the skins
 * (inverse bind matrices read whole, then kept per joint) and the animation channels (each channel reads its
 * sampler's keys and values, so channels sharing a sampler each count). Malformed entries are skipped here;
 * the loader reports them with their own message. */
sf_result check_costs(loader* L)
{
    costs c;
    memset(&c, 0, sizeof c);
    c.limit = decoded_limit(L, &c.default_limit);
    c.decoded = L->json_bytes; /* the parsed JSON lives until the load ends */
    const cJSON* meshes = jget(L->root, "meshes");
    size_t mesh_count = cJSON_IsArray(meshes) ? (size_t)cJSON_GetArraySize(meshes) : 0;
    c.mesh_vertices = tmp_alloc(L, mesh_count + 1, sizeof(size_t));
    if (!c.mesh_vertices) return oom(L, "meshes");
    size_t mi = 0;
    for (const cJSON* m = cJSON_IsArray(meshes) ? meshes->child : NULL; m; m = m->next, ++mi) {
        const cJSON* prims = jget(m, "primitives");
        size_t pi = 0;
        for (const cJSON* p = cJSON_IsArray(prims) ? prims->child : NULL; p; p = p->next, ++pi)
            if (cJSON_IsObject(p)) TRY(primitive_costs(L, &c, p, mi, pi));
    }
    TRY(charge(L, &c, "meshes", sat_mul(c.max_vertices, 8))); /* rigid instances: joint 0, weight 1 */
    TRY(instance_costs(L, &c, mesh_count));
    const cJSON* skins = jget(L->root, "skins");
    size_t si = 0;
    for (const cJSON* s = cJSON_IsArray(skins) ? skins->child : NULL; s; s = s->next, ++si) {
        char base[48];
        snprintf(base, sizeof base, "skins[%zu]", si);
        const cJSON* joints = jget(s, "joints");
        size_t bytes = cJSON_IsArray(joints) ? sat_mul((size_t)cJSON_GetArraySize(joints), 72) : 0;
        const accessor* ibm = json_accessor(L, s, "inverseBindMatrices");
        if (ibm) bytes = sat_add(bytes, sat_mul(ibm->count, 64));
        TRY(charge(L, &c, base, bytes));
    }
    const cJSON* anims = jget(L->root, "animations");
    size_t ai = 0;
    for (const cJSON* a = cJSON_IsArray(anims) ? anims->child : NULL; a; a = a->next, ++ai) {
        const cJSON* channels = jget(a, "channels");
        const cJSON* samplers = jget(a, "samplers");
        size_t sampler_count = cJSON_IsArray(samplers) ? (size_t)cJSON_GetArraySize(samplers) : 0;
        size_t ci = 0;
        for (const cJSON* ch = cJSON_IsArray(channels) ? channels->child : NULL; ch; ch = ch->next, ++ci) {
            size_t k;
            const cJSON* sv = jget(ch, "sampler");
            if (!sv || !array_index(sv, sampler_count, &k)) continue;
            const cJSON* smp = cJSON_GetArrayItem(samplers, (int)k);
            const accessor* in = json_accessor(L, smp, "input");
            const accessor* out = json_accessor(L, smp, "output");
            size_t bytes = sat_add(in ? sat_mul(in->count, 4) : 0,
                                   out ? sat_mul(sat_mul(out->count, out->ncomp), 4) : 0);
            char base[80];
            snprintf(base, sizeof base, "animations[%zu].channels[%zu]", ai, ci);
            TRY(charge(L, &c, base, bytes));
        }
    }
    return compressed_costs(L, &c);
}

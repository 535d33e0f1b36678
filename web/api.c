/* Flat exports of the core and the scenes layer for the page (web/src/skinframe.js): plain integers, doubles
 * and pointers into the module's memory, so that JavaScript passes typed arrays in and out without copying.
 *
 * A view is one mesh under evaluation: a built-in scene (sfw_scene_open) or the caller's arrays
 * (sfw_mesh_create, fill, sfw_mesh_commit); its topology, workspace and evaluation are made once per mesh and
 * options; sfw_view_run evaluates the pose held in the view's bone and morph arrays and never allocates.
 * After a run, sfw_view_table gives one uint32 table of pointers and sfw_view_stats one double table of
 * statistics (layouts in api_layout.h, generated into web/src/generated/layout.js), so a frame reads its results with no call per array.
 * Failures return 0 / NULL and leave a one-line message in sfw_error_message.
 */
#include "api.h"
#include "api_layout.h"
#include "skinframe.h"
#include "skinframe_scenes.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SFW_EXPORT(name) __attribute__((export_name(#name)))

struct sfw_view {
    sf_scene* scene;   /* built-in scene, or NULL */
    sf_mesh_desc mesh; /* a caller's mesh: arrays owned here */
    sf_morph_target_desc* targets;
    float **morph_p, **morph_n, **morph_t;
    size_t target_count;
    sf_topology* topo;
    sf_workspace* ws;
    sf_evaluation* ev;
    sf_eval_desc desc;
    sf_weighting scene_weighting;
    int live;      /* 1: no percentiles per run (the page's frames); mean, rms, max and shares only */
    float* bones;  /* SF_BONE_FLOATS * bone_count, the pose the next run uses */
    float* morph;  /* target_count */
    float* heads;  /* a built-in scene's posed rig, 3 * bone_count each: its joints' heads and tails */
    float* tails;
    size_t bone_count;
    uint32_t table[SFW_TAB_SIZE];
    double stats[SF_METHOD_COUNT * SFW_STAT_STRIDE];
    float frame[4]; /* scene camera hint: center xyz, radius */
    const sf_mesh_desc* source; /* the mesh the topology was made from (the scene's or v->mesh) */
    size_t split_vertices;      /* vertices of a caller's mesh that the MikkTSpace split copied (sfw_mesh_commit) */
    uint32_t gpu_table[SFW_GPU_TABLE_WORDS]; /* sfw_view_gpu_buffers */
};

static sf_error g_err;
static char* g_scratch;
static size_t g_scratch_size;

static void* fail(sf_result r, const sf_error* err, const char* what)
{
    if (err && err != &g_err) g_err = *err;
    if (g_err.message[0] == '\0') snprintf(g_err.message, sizeof g_err.message, "%s: %s", what, sf_result_string(r));
    g_err.result = r;
    return NULL;
}

SFW_EXPORT(sfw_error_message) const char* sfw_error_message(void) { return g_err.message; }

void sfw_set_error(int result, const char* message)
{
    g_err.result = (sf_result)result;
    snprintf(g_err.message, sizeof g_err.message, "%s", message);
}

/* A buffer of at least size bytes for strings passed in; moves (and may grow memory) only when it grows. */
SFW_EXPORT(sfw_scratch) char* sfw_scratch(size_t size)
{
    if (size > g_scratch_size) {
        char* p = realloc(g_scratch, size);
        if (!p) return NULL;
        g_scratch = p;
        g_scratch_size = size;
    }
    return g_scratch;
}

SFW_EXPORT(sfw_alloc) void* sfw_alloc(size_t size) { return calloc(1, size ? size : 1); }
SFW_EXPORT(sfw_free) void sfw_free(void* p) { free(p); }

/* ---------------------------------------------------------------- catalog */

typedef struct text {
    char* data;
    size_t len, cap;
    int failed;
} text;

static void put(text* t, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text* t, const char* fmt, ...)
{
    for (int attempt = 0; attempt < 2 && !t->failed; ++attempt) {
        va_list args;
        va_start(args, fmt);
        int w = vsnprintf(t->data ? t->data + t->len : NULL, t->data ? t->cap - t->len : 0, fmt, args);
        va_end(args);
        if (w < 0) { t->failed = 1; return; }
        if (t->data && t->len + (size_t)w < t->cap) { t->len += (size_t)w; return; }
        size_t cap = (t->cap + (size_t)w + 1) * 2;
        char* p = realloc(t->data, cap);
        if (!p) { t->failed = 1; return; }
        t->data = p;
        t->cap = cap;
    }
}

static void put_string(text* t, const char* s)
{
    put(t, "\"");
    for (; s && *s; ++s) {
        if (*s == '"' || *s == '\\') put(t, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) put(t, "\\u%04x", (unsigned)*s);
        else put(t, "%c", *s);
    }
    put(t, "\"");
}

static const char* const weighting_names[] = {"area", "angle", "uniform"};

/* Every scene (params, presets, morph targets, reference weighting) and every method, as JSON. The text
 * stays valid until the next call. */
SFW_EXPORT(sfw_catalog_json) const char* sfw_catalog_json(void)
{
    static text t;
    t.len = 0;
    t.failed = 0;
    put(&t, "{\"version\":");
    put_string(&t, sf_version_string());
    put(&t, ",\"methods\":[");
    for (int m = 0; m < SF_METHOD_COUNT; ++m) {
        put(&t, "%s{\"name\":", m ? "," : "");
        put_string(&t, sf_method_name((sf_method)m));
        put(&t, ",\"description\":");
        put_string(&t, sf_method_description((sf_method)m));
        put(&t, ",\"default\":%s}", m < SF_METHOD_DEFAULT_COUNT ? "true" : "false");
    }
    put(&t, "],\"scenes\":[");
    for (size_t s = 0; s < sf_scene_count(); ++s) {
        const sf_scene_info* info = sf_scene_info_at(s);
        put(&t, "%s{\"name\":", s ? "," : "");
        put_string(&t, info->name);
        put(&t, ",\"description\":");
        put_string(&t, info->description);
        put(&t, ",\"reference_weighting\":");
        put_string(&t, weighting_names[info->reference_weighting]);
        put(&t, ",\"params\":[");
        for (size_t p = 0; p < info->param_count; ++p) {
            const sf_scene_param_info* pi = &info->params[p];
            put(&t, "%s{\"name\":", p ? "," : "");
            put_string(&t, pi->name);
            put(&t, ",\"default\":%.17g,\"min\":%.17g,\"max\":%.17g,\"unit\":", pi->default_value, pi->min_value,
                pi->max_value);
            put_string(&t, pi->unit);
            put(&t, ",\"description\":");
            put_string(&t, pi->description);
            put(&t, "}");
        }
        put(&t, "],\"presets\":[");
        for (size_t p = 0; p < info->preset_count; ++p) {
            const sf_scene_preset_info* pi = &info->presets[p];
            put(&t, "%s{\"name\":", p ? "," : "");
            put_string(&t, pi->name);
            put(&t, ",\"description\":");
            put_string(&t, pi->description);
            put(&t, ",\"settings\":");
            put_string(&t, pi->settings);
            put(&t, "}");
        }
        put(&t, "],\"targets\":[");
        for (size_t k = 0; k < info->target_count; ++k) {
            put(&t, "%s", k ? "," : "");
            put_string(&t, info->targets[k]);
        }
        put(&t, "]}");
    }
    put(&t, "]}");
    return t.failed ? NULL : t.data;
}

/* ---------------------------------------------------------------- views */

SFW_EXPORT(sfw_view_destroy) void sfw_view_destroy(sfw_view* v)
{
    if (!v) return;
    sf_evaluation_destroy(v->ev);
    sf_workspace_destroy(v->ws);
    sf_topology_destroy(v->topo);
    sf_scene_destroy(v->scene);
    for (size_t k = 0; k < v->target_count; ++k) {
        if (v->morph_p) free(v->morph_p[k]);
        if (v->morph_n) free(v->morph_n[k]);
        if (v->morph_t) free(v->morph_t[k]);
    }
    free(v->morph_p);
    free(v->morph_n);
    free(v->morph_t);
    free(v->targets);
    free((void*)v->mesh.indices);
    free((void*)v->mesh.positions.data);
    free((void*)v->mesh.normals.data);
    free((void*)v->mesh.tangents.data);
    free((void*)v->mesh.uvs.data);
    free((void*)v->mesh.joints);
    free((void*)v->mesh.weights);
    free(v->bones);
    free(v->morph);
    free(v->heads);
    free(v->tails);
    free(v);
}

/* (Re)creates the evaluation for the view's options; the workspace once (its methods do not change). */
static int make_evaluation(sfw_view* v)
{
    sf_error err;
    sf_evaluation* ev = NULL;
    sf_result r = sf_evaluation_create(v->topo, &v->desc, NULL, &ev, &err);
    if (r == SF_ERROR_OUT_OF_MEMORY && v->ev) {
        /* the new evaluation and the old do not fit together (a million-vertex mesh in wasm32's 4 GiB): the old
           goes first, and the caller makes it again should the new one still not fit (restore_evaluation) */
        sf_evaluation_destroy(v->ev);
        v->ev = NULL;
        r = sf_evaluation_create(v->topo, &v->desc, NULL, &ev, &err);
    }
    if (r != SF_OK) {
        fail(err.result, &err, "evaluation");
        return 0;
    }
    sf_evaluation_destroy(v->ev);
    v->ev = ev;
    if (!v->ws) {
        sf_workspace_opts wo = {sf_evaluation_methods_mask(ev), SF_BACKEND_CPU};
        if (sf_workspace_create(v->topo, &wo, &v->ws, &err) != SF_OK) {
            fail(err.result, &err, "workspace");
            return 0;
        }
    }
    for (size_t k = 0; k < SF_METHOD_COUNT * SFW_STAT_STRIDE; ++k) v->stats[k] = 0.0;
    for (int m = 0; m < SF_METHOD_COUNT; ++m) v->stats[m * SFW_STAT_STRIDE + SFW_STAT_STATUS] = -1.0;
    return 1;
}

/* The view's evaluation made again where make_evaluation had to drop it for room; the error that led here is the
 * one kept. */
static void remake_dropped_evaluation(sfw_view* v)
{
    if (v->ev) return;
    sf_error kept = g_err;
    make_evaluation(v);
    g_err = kept;
}

/* After a failed make_evaluation: the view's previous descriptor back, and its evaluation made again where the
 * failed attempt had to drop it. */
static void restore_evaluation(sfw_view* v, const sf_eval_desc* old)
{
    v->desc = *old;
    remake_dropped_evaluation(v);
}

/* The topology and evaluation of mesh (the scene's or v->mesh) with default options (every method, the given
 * reference weighting). Destroys v on failure. */
static sfw_view* finish_view(sfw_view* v, const sf_mesh_desc* mesh, sf_weighting weighting)
{
    sf_error err;
    v->source = mesh;
    if (sf_topology_create(mesh, NULL, NULL, &v->topo, &err) != SF_OK) {
        fail(err.result, &err, "topology");
        sfw_view_destroy(v);
        return NULL;
    }
    /* the default methods (recompute-fused, recompute's bits at several times its cost, only on request:
     * sfw_view_set_all_methods) */
    memset(&v->desc, 0, sizeof v->desc);
    v->desc.flags = SF_EVAL_KEEP_FRAMES | SF_EVAL_KEEP_ANGLES;
    v->scene_weighting = weighting;
    v->desc.reference_opts.weighting = weighting;
    if (!make_evaluation(v)) {
        sfw_view_destroy(v);
        return NULL;
    }
    return v;
}

/* Parses "name=value\nname=value" (settings may be NULL or empty) into at most cap settings; the names point
 * into text, which is modified. Returns the count, or -1 after setting the error. */
static long parse_settings(char* textp, sf_scene_setting* out, size_t cap)
{
    size_t n = 0;
    char* p = textp;
    while (p && *p) {
        char* end = strchr(p, '\n');
        if (end) *end = '\0';
        if (*p) {
            char* eq = strchr(p, '=');
            char* stop = NULL;
            double value = eq ? strtod(eq + 1, &stop) : 0.0;
            if (!eq || stop == eq + 1 || *stop != '\0' || n == cap) {
                sf_error_set(&g_err, SF_ERROR_INVALID_ARGUMENT, "settings", n, "'%s' is not name=value", p);
                return -1;
            }
            *eq = '\0';
            out[n].name = p;
            out[n].value = value;
            ++n;
        }
        p = end ? end + 1 : NULL;
    }
    return (long)n;
}

/* A built scene's pose into the view: bone matrices, morph weights, the posed rig and the camera hint. */
static void take_scene_pose(sfw_view* v, const sf_scene* s)
{
    if (s->pose.bone_matrices) memcpy(v->bones, s->pose.bone_matrices, SF_BONE_FLOATS * v->bone_count * sizeof(float));
    if (s->pose.morph_weights) memcpy(v->morph, s->pose.morph_weights, s->mesh.target_count * sizeof(float));
    else memset(v->morph, 0, s->mesh.target_count * sizeof(float));
    if (s->bone_heads) memcpy(v->heads, s->bone_heads, 3 * v->bone_count * sizeof(float));
    if (s->bone_tails) memcpy(v->tails, s->bone_tails, 3 * v->bone_count * sizeof(float));
    memcpy(v->frame, s->center, sizeof s->center);
    v->frame[3] = s->radius;
}

/* Builds scene `name` with `preset` (NULL or "" = rest) and then the settings "k=v\nk=v" (NULL = none). */
SFW_EXPORT(sfw_scene_open) sfw_view* sfw_scene_open(const char* name, const char* preset, char* settings)
{
    sf_error_clear(&g_err);
    sf_scene_setting list[64];
    long count = parse_settings(settings, list, 64);
    if (count < 0) return NULL;
    sfw_view* v = calloc(1, sizeof *v);
    if (!v) return fail(SF_ERROR_OUT_OF_MEMORY, NULL, "view");
    sf_error err;
    if (sf_scene_create(name, preset && *preset ? preset : NULL, list, (size_t)count, NULL, &v->scene, &err) != SF_OK) {
        free(v);
        return fail(err.result, &err, "scene");
    }
    const sf_scene* s = v->scene;
    v->bone_count = s->pose.bone_count;
    v->target_count = 0;
    v->bones = calloc(SF_BONE_FLOATS * v->bone_count + 1, sizeof(float));
    v->morph = calloc(s->mesh.target_count + 1, sizeof(float));
    v->heads = calloc(3 * v->bone_count + 1, sizeof(float));
    v->tails = calloc(3 * v->bone_count + 1, sizeof(float));
    if (!v->bones || !v->morph || !v->heads || !v->tails) {
        sfw_view_destroy(v);
        return fail(SF_ERROR_OUT_OF_MEMORY, NULL, "view");
    }
    take_scene_pose(v, s);
    return finish_view(v, &s->mesh, s->reference_weighting);
}

/* Two packed arrays of n elements of size bytes: equal when both are absent or both hold the same bytes. */
static int same_array(const void* a, const void* b, size_t n, size_t size)
{
    if (!a || !b) return a == b;
    return memcmp(a, b, n * size) == 0;
}

static int same_stream(sf_stream a, sf_stream b, size_t n, size_t floats)
{
    return a.stride == 0 && b.stride == 0 && same_array(a.data, b.data, n, floats * sizeof(float));
}

/* Whether two scene meshes are the same rest mesh bit for bit: then one topology serves both. */
static int same_mesh(const sf_mesh_desc* a, const sf_mesh_desc* b)
{
    size_t n = a->vertex_count;
    if (n != b->vertex_count || a->triangle_count != b->triangle_count || a->influence_count != b->influence_count ||
        a->bone_count != b->bone_count || a->target_count != b->target_count || a->weight_policy != b->weight_policy ||
        a->zero_weight_policy != b->zero_weight_policy || a->uv_convention != b->uv_convention)
        return 0;
    if (!same_array(a->indices, b->indices, 3 * a->triangle_count, sizeof(uint32_t)) ||
        !same_stream(a->positions, b->positions, n, 3) || !same_stream(a->normals, b->normals, n, 3) ||
        !same_stream(a->tangents, b->tangents, n, 4) || !same_stream(a->uvs, b->uvs, n, 2) ||
        !same_array(a->joints, b->joints, (size_t)a->influence_count * n, sizeof(uint32_t)) ||
        !same_array(a->weights, b->weights, (size_t)a->influence_count * n, sizeof(float)))
        return 0;
    for (size_t k = 0; k < a->target_count; ++k) {
        const sf_morph_target_desc *x = &a->targets[k], *y = &b->targets[k];
        size_t m = x->sparse_indices ? x->sparse_count : n;
        if (x->sparse_count != y->sparse_count || !same_array(x->sparse_indices, y->sparse_indices, m, sizeof(uint32_t)) ||
            !same_array(x->position_deltas, y->position_deltas, m, 3 * sizeof(float)) ||
            !same_array(x->normal_deltas, y->normal_deltas, m, 3 * sizeof(float)) ||
            !same_array(x->tangent_deltas, y->tangent_deltas, m, 3 * sizeof(float)))
            return 0;
    }
    return 1;
}

/* A scene view with other settings (the same scene `name`, `preset`, settings as sfw_scene_open takes them):
 * the scene is built again, and when its rest mesh is the open one's (a pose slider, a morph weight), only the
 * pose (bone matrices, morph weights), the rig and the camera hint change; the open scene, topology, workspace
 * and evaluation stay, which is most of an open's cost. Returns 1 when re-posed (run next), 0 when the settings
 * change the mesh (open the scene instead; the view is unchanged), -1 on bad settings or where memory runs out
 * (the message in sfw_error_message). */
SFW_EXPORT(sfw_scene_repose) int sfw_scene_repose(sfw_view* v, const char* name, const char* preset, char* settings)
{
    sf_error_clear(&g_err);
    if (!v || !v->scene) {
        sf_error_set(&g_err, SF_ERROR_INVALID_ARGUMENT, "view", 0, "not a built-in scene");
        return -1;
    }
    if (strcmp(v->scene->info->name, name ? name : "") != 0) return 0;
    sf_scene_setting list[64];
    long count = parse_settings(settings, list, 64);
    if (count < 0) return -1;
    sf_scene* s = NULL;
    sf_error err;
    const char* chosen = preset && *preset ? preset : NULL;
    sf_result r = sf_scene_create(name, chosen, list, (size_t)count, NULL, &s, &err);
    if (r == SF_ERROR_OUT_OF_MEMORY && v->ev) {
        /* the new scene and the view's evaluation do not fit together (the million-vertex sheet in wasm32's
           4 GiB): the evaluation goes first; it is made again in the same place once the new scene is gone */
        sf_evaluation_destroy(v->ev);
        v->ev = NULL;
        r = sf_scene_create(name, chosen, list, (size_t)count, NULL, &s, &err);
    }
    if (r != SF_OK) {
        fail(err.result, &err, "scene");
        remake_dropped_evaluation(v);
        return -1;
    }
    /* the open scene's mesh is the new one's bit for bit, so only the new pose is kept */
    int reposed = same_mesh(&v->scene->mesh, &s->mesh) && s->pose.bone_count == v->bone_count;
    if (reposed) take_scene_pose(v, s);
    sf_scene_destroy(s);
    return v->ev || make_evaluation(v) ? reposed : -1;
}

/* A caller's mesh: allocates every array (zeroed); fill them through sfw_mesh_array, then sfw_mesh_commit.
 * flags: bit SFW_MESH_HAS_* (web/api_layout.h) for each optional array the mesh has. Without normals (tangents)
 * the topology rebuilds them from the rest triangles. */
SFW_EXPORT(sfw_mesh_create)
sfw_view* sfw_mesh_create(size_t vertex_count, size_t triangle_count, uint32_t influence_count, size_t bone_count,
                          size_t target_count, uint32_t flags)
{
    sf_error_clear(&g_err);
    sfw_view* v = calloc(1, sizeof *v);
    if (!v) return fail(SF_ERROR_OUT_OF_MEMORY, NULL, "view");
    size_t n = vertex_count;
    sf_mesh_desc* m = &v->mesh;
    m->vertex_count = n;
    m->triangle_count = triangle_count;
    m->influence_count = influence_count;
    m->bone_count = bone_count;
    int ok = 1;
#define SFW_ARRAY(ptr, count, type) ok = ok && ((ptr) = calloc((count) + 1, sizeof(type))) != NULL
    uint32_t* indices = NULL;
    float *positions = NULL, *normals = NULL, *tangents = NULL, *uvs = NULL;
    SFW_ARRAY(indices, 3 * triangle_count, uint32_t);
    m->indices = indices;
    SFW_ARRAY(positions, 3 * n, float);
    m->positions.data = positions;
    if (flags & (1u << SFW_MESH_HAS_NORMALS)) SFW_ARRAY(normals, 3 * n, float);
    m->normals.data = normals;
    if (flags & (1u << SFW_MESH_HAS_TANGENTS)) SFW_ARRAY(tangents, 4 * n, float);
    m->tangents.data = tangents;
    if (flags & (1u << SFW_MESH_HAS_UVS)) SFW_ARRAY(uvs, 2 * n, float);
    m->uvs.data = uvs;
    if (influence_count) {
        uint32_t* joints = NULL;
        float* weights = NULL;
        SFW_ARRAY(joints, (size_t)influence_count * n, uint32_t);
        SFW_ARRAY(weights, (size_t)influence_count * n, float);
        m->joints = joints;
        m->weights = weights;
    }
    v->bone_count = bone_count;
    v->target_count = target_count;
    SFW_ARRAY(v->bones, SF_BONE_FLOATS * bone_count, float);
    SFW_ARRAY(v->morph, target_count, float);
    SFW_ARRAY(v->targets, target_count, sf_morph_target_desc);
    SFW_ARRAY(v->morph_p, target_count, float*);
    SFW_ARRAY(v->morph_n, target_count, float*);
    SFW_ARRAY(v->morph_t, target_count, float*);
    for (size_t k = 0; ok && k < target_count; ++k) {
        SFW_ARRAY(v->morph_p[k], 3 * n, float);
        if (flags & (1u << SFW_MESH_HAS_MORPH_NORMALS)) SFW_ARRAY(v->morph_n[k], 3 * n, float);
        if (flags & (1u << SFW_MESH_HAS_MORPH_TANGENTS)) SFW_ARRAY(v->morph_t[k], 3 * n, float);
    }
#undef SFW_ARRAY
    if (!ok) {
        sfw_view_destroy(v);
        return fail(SF_ERROR_OUT_OF_MEMORY, NULL, "mesh arrays");
    }
    for (float* bone = v->bones; bone < v->bones + SF_BONE_FLOATS * bone_count; bone += SF_BONE_FLOATS)
        bone[0] = bone[4] = bone[8] = 1.0f; /* identities until the caller writes the pose */
    return v;
}

/* The array `which` (SFW_MESH_*) of a mesh from sfw_mesh_create; k = morph target for the MORPH arrays.
 * NULL when the mesh has no such array. */
SFW_EXPORT(sfw_mesh_array) void* sfw_mesh_array(sfw_view* v, int which, size_t k)
{
    if (!v || v->topo) return NULL;
    switch (which) {
    case SFW_MESH_POSITIONS: return (void*)v->mesh.positions.data;
    case SFW_MESH_NORMALS: return (void*)v->mesh.normals.data;
    case SFW_MESH_TANGENTS: return (void*)v->mesh.tangents.data;
    case SFW_MESH_UVS: return (void*)v->mesh.uvs.data;
    case SFW_MESH_INDICES: return (void*)v->mesh.indices;
    case SFW_MESH_JOINTS: return (void*)v->mesh.joints;
    case SFW_MESH_WEIGHTS: return (void*)v->mesh.weights;
    case SFW_MESH_MORPH_POSITIONS: return k < v->target_count ? v->morph_p[k] : NULL;
    case SFW_MESH_MORPH_NORMALS: return k < v->target_count ? v->morph_n[k] : NULL;
    case SFW_MESH_MORPH_TANGENTS: return k < v->target_count ? v->morph_t[k] : NULL;
    default: return NULL;
    }
}

/* Replaces *array (`elem` bytes per vertex) by count vertices, vertex k a copy of map[k]. NULL stays NULL.
 * Returns 0 when out of memory (the array is then left as it was). */
static int remap_array(void** array, size_t elem, size_t count, const uint32_t* map)
{
    if (!*array) return 1;
    uint8_t* a = malloc(count * elem + elem);
    if (!a) return 0;
    for (size_t k = 0; k < count; ++k) memcpy(a + k * elem, (const uint8_t*)*array + (size_t)map[k] * elem, elem);
    free(*array);
    *array = a;
    return 1;
}

/* Every per-vertex array of the view's mesh through remap_array. */
static int remap_vertices(sfw_view* v, size_t count, const uint32_t* map)
{
    sf_mesh_desc* m = &v->mesh;
    int ok = remap_array((void**)&m->positions.data, 3 * sizeof(float), count, map) &&
             remap_array((void**)&m->normals.data, 3 * sizeof(float), count, map) &&
             remap_array((void**)&m->tangents.data, 4 * sizeof(float), count, map) &&
             remap_array((void**)&m->uvs.data, 2 * sizeof(float), count, map) &&
             remap_array((void**)&m->joints, m->influence_count * sizeof(uint32_t), count, map) &&
             remap_array((void**)&m->weights, m->influence_count * sizeof(float), count, map);
    for (size_t k = 0; ok && k < v->target_count; ++k)
        ok = remap_array((void**)&v->morph_p[k], 3 * sizeof(float), count, map) &&
             remap_array((void**)&v->morph_n[k], 3 * sizeof(float), count, map) &&
             remap_array((void**)&v->morph_t[k], 3 * sizeof(float), count, map);
    if (ok) m->vertex_count = count;
    return ok;
}

/* Indices all below the vertex count: otherwise the topology names the bad one, and nothing is remapped. */
static int indices_valid(const sf_mesh_desc* m)
{
    for (size_t c = 0; c < 3 * m->triangle_count; ++c)
        if (m->indices[c] >= m->vertex_count) return 0;
    return 1;
}

/* The glTF loader's flat normals for a mesh without normals (glTF: "client implementations must calculate flat
 * normals"): every triangle corner its own vertex, with its face's normal (sf_normals_flat). */
static int flat_normals(sfw_view* v)
{
    sf_mesh_desc* m = &v->mesh;
    if (m->normals.data || !m->triangle_count || !indices_valid(m)) return 1;
    size_t corners = 3 * m->triangle_count;
    uint32_t* indices = (uint32_t*)m->indices;
    float* normals = malloc(3 * corners * sizeof(float));
    if (!normals || !remap_vertices(v, corners, indices)) {
        free(normals);
        fail(SF_ERROR_OUT_OF_MEMORY, NULL, "flat normals");
        return 0;
    }
    sf_error err;
    sf_result r = sf_normals_flat(m->triangle_count, m->positions.data, normals, &err);
    if (r != SF_OK) {
        free(normals);
        fail(r, &err, "flat normals");
        return 0;
    }
    m->normals.data = normals;
    for (size_t c = 0; c < corners; ++c) indices[c] = (uint32_t)c;
    return 1;
}

/* The glTF loader's MikkTSpace tangents for a mesh with UVs and normals and no tangents: one tangent per corner,
 * and a vertex whose corners got different ones split into one vertex per tangent, every array carried (the
 * page's arrays are dense), so the page evaluates the vertices that `skinframe eval` evaluates. */
static int split_for_mikktspace(sfw_view* v)
{
    sf_mesh_desc* m = &v->mesh;
    if (m->tangents.data || !m->uvs.data || !m->normals.data || !m->triangle_count || !indices_valid(m)) return 1;
    size_t n = m->vertex_count, corners = 3 * m->triangle_count;
    sf_tangent_desc d;
    memset(&d, 0, sizeof d);
    d.vertex_count = n;
    d.triangle_count = m->triangle_count;
    d.indices = m->indices;
    d.positions = m->positions;
    d.normals = m->normals;
    d.uvs = m->uvs;
    d.uv_convention = m->uv_convention;
    d.mode = SF_TANGENTS_MIKKTSPACE;
    sf_error err;
    sf_tangent_split split;
    memset(&split, 0, sizeof split);
    float* ct = malloc(4 * corners * sizeof(float));
    size_t bound = SF_TANGENTS_SPLIT_MAX_VERTICES(n, m->triangle_count);
    split.source = malloc(bound * sizeof(uint32_t));
    split.tangents = malloc(4 * bound * sizeof(float));
    split.indices = (uint32_t*)m->indices; /* re-indexed in place: the view owns them */
    int ok = ct && split.source && split.tangents;
    sf_result r = ok ? sf_tangents_generate(&d, NULL, ct, &err) : SF_ERROR_OUT_OF_MEMORY;
    if (r == SF_OK) r = sf_tangents_split(n, m->triangle_count, m->indices, ct, NULL, &split, &err);
    free(ct);
    if (r != SF_OK) {
        free(split.source);
        free(split.tangents);
        fail(r, r == SF_ERROR_OUT_OF_MEMORY ? NULL : &err, "MikkTSpace tangents");
        return 0;
    }
    ok = remap_vertices(v, split.vertex_count, split.source);
    free(split.source);
    if (!ok) {
        free(split.tangents);
        fail(SF_ERROR_OUT_OF_MEMORY, NULL, "MikkTSpace split");
        return 0;
    }
    m->tangents.data = split.tangents;
    v->split_vertices = split.split_vertices;
    return 1;
}

/* Builds the topology and evaluation of a filled mesh. gltf = 1: first as the glTF loader makes a primitive
 * (flat normals without normals, MikkTSpace tangents without tangents); 0: the arrays as they are. On failure
 * the view is destroyed and NULL returned (sfw_error_message says why: the library's message naming the
 * field). */
SFW_EXPORT(sfw_mesh_commit) sfw_view* sfw_mesh_commit(sfw_view* v, int gltf)
{
    sf_error_clear(&g_err);
    if (!v || v->topo) return fail(SF_ERROR_INVALID_ARGUMENT, NULL, "sfw_mesh_commit");
    /* these replace the arrays: the targets point at them after */
    if (gltf && (!flat_normals(v) || !split_for_mikktspace(v))) {
        sfw_view_destroy(v);
        return NULL;
    }
    for (size_t k = 0; k < v->target_count; ++k) {
        v->targets[k].position_deltas = v->morph_p[k];
        v->targets[k].normal_deltas = v->morph_n[k];
        v->targets[k].tangent_deltas = v->morph_t[k];
    }
    v->mesh.targets = v->targets;
    v->mesh.target_count = v->target_count;
    return finish_view(v, &v->mesh, SF_WEIGHTING_AREA);
}

/* Options: morph_directions (0 deltas, 1 none) for every method; for the reference weighting (-1 = the
 * scene's), weld, tangents (0 uv, 1 mikktspace), reference (0 rebuilt, 1 authored). Returns 1, or 0 on a
 * bad value (the view keeps its previous options). */
SFW_EXPORT(sfw_view_set_options)
int sfw_view_set_options(sfw_view* v, int morph_directions, int weighting, int weld, int tangents, int reference,
                         double jacobian_cap)
{
    sf_error_clear(&g_err);
    if (!v) return 0;
    sf_eval_desc old = v->desc;
    v->desc.method_opts.morph_directions = (sf_morph_directions)morph_directions;
    v->desc.method_opts.jacobian_cap = (float)jacobian_cap;
    v->desc.reference_opts.morph_directions = (sf_morph_directions)morph_directions;
    v->desc.reference_opts.weighting = weighting < 0 ? v->scene_weighting : (sf_weighting)weighting;
    v->desc.reference_opts.weld = (sf_weld)weld;
    v->desc.reference_opts.tangents = (sf_tangent_mode)tangents;
    v->desc.reference_opts.reference = (sf_reference)reference;
    v->desc.reference_opts.jacobian_cap = (float)jacobian_cap;
    sf_error err;
    if (sf_eval_desc_validate(v->topo, &v->desc, &err) != SF_OK) {
        v->desc = old;
        fail(err.result, &err, "options");
        return 0;
    }
    if (!make_evaluation(v)) {
        restore_evaluation(v, &old);
        return 0;
    }
    return 1;
}

/* live = 1: runs skip the core's percentile statistics (a selection per row and direction, about 2.5 ms of a
 * 20k-vertex frame in wasm) and fill mean, rms, max and the over-1/5/45 shares from the kept angles, summed in the core's order
 * (the same values); p50 and p95 are NaN. live = 0 (the default): the core's full statistics. Returns 1. */
SFW_EXPORT(sfw_view_set_live) int sfw_view_set_live(sfw_view* v, int live)
{
    sf_error_clear(&g_err);
    if (!v) return 0;
    sf_eval_desc old = v->desc;
    v->desc.flags = live ? old.flags | SF_EVAL_NO_STATISTICS : old.flags & ~(uint32_t)SF_EVAL_NO_STATISTICS;
    if (v->desc.flags == old.flags) return 1;
    if (!make_evaluation(v)) {
        restore_evaluation(v, &old);
        return 0;
    }
    v->live = live != 0;
    return 1;
}

/* all = 1: runs evaluate every method, recompute-fused included; 0 (the default): the default methods
 * (SF_METHOD_DEFAULT_COUNT). Returns 1, or 0 when the evaluation cannot be made. */
SFW_EXPORT(sfw_view_set_all_methods) int sfw_view_set_all_methods(sfw_view* v, int all)
{
    static sf_method every[SF_METHOD_COUNT];
    for (int m = 0; m < SF_METHOD_COUNT; ++m) every[m] = (sf_method)m;
    sf_eval_desc old = v->desc;
    v->desc.methods = all ? every : NULL;
    v->desc.method_count = all ? SF_METHOD_COUNT : 0;
    sf_workspace_destroy(v->ws); /* its scratch follows the methods */
    v->ws = NULL;
    if (make_evaluation(v)) return 1;
    v->desc = old; /* the methods that worked, and the error of the failed attempt kept */
    sf_error kept = g_err;
    if (!make_evaluation(v)) return 0;
    g_err = kept;
    return 0;
}

SFW_EXPORT(sfw_view_vertex_count) size_t sfw_view_vertex_count(const sfw_view* v) { return sf_topology_vertex_count(v->topo); }
SFW_EXPORT(sfw_view_triangle_count) size_t sfw_view_triangle_count(const sfw_view* v) { return sf_topology_triangle_count(v->topo); }
SFW_EXPORT(sfw_view_indices) const uint32_t* sfw_view_indices(const sfw_view* v) { return sf_topology_indices(v->topo); }
SFW_EXPORT(sfw_view_uvs) const float* sfw_view_uvs(const sfw_view* v) { return sf_topology_uvs(v->topo); }
SFW_EXPORT(sfw_view_rest_positions) const float* sfw_view_rest_positions(const sfw_view* v) { return sf_topology_rest_positions(v->topo); }
SFW_EXPORT(sfw_view_rest_normals) const float* sfw_view_rest_normals(const sfw_view* v) { return sf_topology_rest_normals(v->topo); }
SFW_EXPORT(sfw_view_rest_tangents) const float* sfw_view_rest_tangents(const sfw_view* v) { return sf_topology_rest_tangents(v->topo); }
SFW_EXPORT(sfw_view_split_vertices) size_t sfw_view_split_vertices(const sfw_view* v) { return v->split_vertices; }
SFW_EXPORT(sfw_view_has_tangent_frame) int sfw_view_has_tangent_frame(const sfw_view* v) { return sf_topology_has_tangent_frame(v->topo); }
SFW_EXPORT(sfw_view_bone_count) size_t sfw_view_bone_count(const sfw_view* v) { return v->bone_count; }
SFW_EXPORT(sfw_view_target_count) size_t sfw_view_target_count(const sfw_view* v) { return v->scene ? v->scene->mesh.target_count : v->target_count; }
/* The pose of the next run: 12 floats per bone (skinframe.h's convention) and one weight per target. */
SFW_EXPORT(sfw_view_bones) float* sfw_view_bones(sfw_view* v) { return v->bones; }
SFW_EXPORT(sfw_view_morph) float* sfw_view_morph(sfw_view* v) { return v->morph; }
SFW_EXPORT(sfw_view_frame) const float* sfw_view_frame(const sfw_view* v) { return v->frame; }
/* A scene's posed rig: bone_count segments head -> tail (float3 each); NULL for a caller's mesh. */
SFW_EXPORT(sfw_view_bone_heads) const float* sfw_view_bone_heads(const sfw_view* v) { return v->scene ? v->heads : NULL; }
SFW_EXPORT(sfw_view_bone_tails) const float* sfw_view_bone_tails(const sfw_view* v) { return v->scene ? v->tails : NULL; }
/* The mesh as given (before the topology's weight normalisation), for the GPU passes of the page: influences
 * per vertex, joints and weights (influence_count * vertex_count each), and target k's position deltas
 * (3 * vertex_count floats; NULL for a sparse target). */
SFW_EXPORT(sfw_view_influence_count) uint32_t sfw_view_influence_count(const sfw_view* v) { return v->source->influence_count; }
SFW_EXPORT(sfw_view_joints) const uint32_t* sfw_view_joints(const sfw_view* v) { return v->source->joints; }
SFW_EXPORT(sfw_view_weights) const float* sfw_view_weights(const sfw_view* v) { return v->source->weights; }
SFW_EXPORT(sfw_view_target_deltas) const float* sfw_view_target_deltas(const sfw_view* v, size_t k)
{
    const sf_mesh_desc* m = v->source;
    return k < m->target_count && !m->targets[k].sparse_indices ? m->targets[k].position_deltas : NULL;
}
SFW_EXPORT(sfw_view_uv_convention) int sfw_view_uv_convention(const sfw_view* v) { return (int)v->source->uv_convention; }
/* The topology's arrays in the shaders' layout (sf_topology_gpu_buffers, what the page's WebGPU passes read):
 * uint32 count, then SFW_GPU_BUFFER_WORDS per buffer (web/api_layout.h's SFW_GPU_BUFFER), written into table;
 * the pointers are the topology's (valid while it lives). */
const uint32_t* sfw_gpu_table(const sf_topology* topo, uint32_t table[SFW_GPU_TABLE_WORDS])
{
    sf_gpu_buffer bufs[SF_GPU_MAX_BUFFERS];
    size_t count = sf_topology_gpu_buffers(topo, bufs, SF_GPU_MAX_BUFFERS);
    table[0] = (uint32_t)count;
    for (size_t i = 0; i < count; ++i) {
        uint32_t* e = table + 1 + SFW_GPU_BUFFER_WORDS * i;
        e[SFW_GPU_BUFFER_NAME] = (uint32_t)(uintptr_t)bufs[i].name;
        e[SFW_GPU_BUFFER_TYPE] = (uint32_t)bufs[i].type;
        e[SFW_GPU_BUFFER_COUNT] = (uint32_t)bufs[i].count;
        e[SFW_GPU_BUFFER_COMPONENTS] = bufs[i].components;
        e[SFW_GPU_BUFFER_DATA] = (uint32_t)(uintptr_t)bufs[i].data;
    }
    return table;
}
SFW_EXPORT(sfw_view_gpu_buffers) const uint32_t* sfw_view_gpu_buffers(sfw_view* v) { return sfw_gpu_table(v->topo, v->gpu_table); }
SFW_EXPORT(sfw_view_table) const uint32_t* sfw_view_table(const sfw_view* v) { return v->table; }
SFW_EXPORT(sfw_view_stats) const double* sfw_view_stats(const sfw_view* v) { return v->stats; }

/* What sf_angle_stats_compute gives but the percentiles (sum in the same order, so the same doubles); max is
 * the angle at the core's worst vertex. */
static void live_stats(const float* deg, size_t n, size_t worst, sf_angle_stats* out)
{
    double sum = 0.0, sum2 = 0.0;
    size_t over1 = 0, over5 = 0, over45 = 0;
    for (size_t i = 0; i < n; ++i) {
        double a = deg[i];
        sum += a;
        sum2 += a * a;
        over1 += a > 1.0;
        over5 += a > 5.0;
        over45 += a > 45.0;
    }
    out->count = n;
    if (n == 0) return;
    out->mean = sum / (double)n;
    out->rms = sqrt(sum2 / (double)n);
    out->p50 = out->p95 = NAN;
    out->max = deg[worst];
    out->over_1 = (double)over1 / (double)n;
    out->over_5 = (double)over5 / (double)n;
    out->over_45 = (double)over45 / (double)n;
}

static void put_stats(double* s, const sf_angle_stats* a)
{
    s[SFW_ANGLE_MEAN] = a->mean, s[SFW_ANGLE_RMS] = a->rms, s[SFW_ANGLE_P50] = a->p50, s[SFW_ANGLE_P95] = a->p95;
    s[SFW_ANGLE_MAX] = a->max, s[SFW_ANGLE_OVER_1] = a->over_1, s[SFW_ANGLE_OVER_5] = a->over_5;
    s[SFW_ANGLE_OVER_45] = a->over_45;
}

/* Evaluates the view's pose: the reference and every method, their angles and statistics. Never allocates.
 * Returns 1, or 0 with the library's message. */
SFW_EXPORT(sfw_view_run) int sfw_view_run(sfw_view* v)
{
    sf_error err;
    sf_pose pose = {v->bone_count ? v->bones : NULL, v->bone_count, NULL, 0};
    size_t targets = sfw_view_target_count(v);
    if (targets) {
        pose.morph_weights = v->morph;
        pose.morph_weight_count = targets;
    }
    sf_result r = sf_evaluation_run(v->ev, &pose, v->ws, NULL, &err);
    if (r != SF_OK) {
        fail(r, &err, "run");
        return 0;
    }
    const sf_eval_results* res = sf_evaluation_results(v->ev);
    memset(v->table, 0, sizeof v->table);
    v->table[SFW_TAB_POSITIONS] = (uint32_t)(uintptr_t)res->positions;
    v->table[SFW_TAB_REF_NORMALS] = (uint32_t)(uintptr_t)res->reference_normals;
    v->table[SFW_TAB_REF_TANGENTS] = (uint32_t)(uintptr_t)res->reference_tangents;
    for (size_t k = 0; k < res->row_count; ++k) {
        const sf_eval_row* row = &res->rows[k];
        int m = (int)row->method;
        double* s = &v->stats[m * SFW_STAT_STRIDE];
        uint32_t* t = &v->table[SFW_TAB_ROWS + SFW_TAB_PER_METHOD * m];
        s[SFW_STAT_STATUS] = row->status == SF_OK ? 0.0 : 1.0;
        sf_angle_stats normal = row->errors.normal, tangent = row->errors.tangent;
        if (v->live && row->status == SF_OK) {
            memset(&tangent, 0, sizeof tangent);
            live_stats(row->normal_deg, res->vertex_count, row->errors.worst_normal_vertex, &normal);
            if (res->tangent_frame)
                live_stats(row->tangent_deg, res->vertex_count, row->errors.worst_tangent_vertex, &tangent);
        }
        put_stats(s + SFW_STAT_NORMAL, &normal);
        put_stats(s + SFW_STAT_TANGENT, &tangent);
        s[SFW_STAT_HANDEDNESS] = (double)row->errors.handedness_mismatches;
        s[SFW_STAT_DEGENERATE_NORMALS] = (double)row->errors.degenerate_normals;
        s[SFW_STAT_DEGENERATE_TANGENTS] = (double)row->errors.degenerate_tangents;
        s[SFW_STAT_WORST_NORMAL] = (double)row->errors.worst_normal_vertex;
        s[SFW_STAT_WORST_TANGENT] = (double)row->errors.worst_tangent_vertex;
        s[SFW_STAT_TANGENT_COUNT] = (double)row->errors.tangent.count;
        s[SFW_STAT_MIRRORED] = (double)row->report.mirrored_vertices;
        s[SFW_STAT_SINGULAR] = (double)row->report.singular_vertices;
        t[SFW_TAB_ROW_NORMALS] = (uint32_t)(uintptr_t)(row->normals ? row->normals : res->reference_normals);
        t[SFW_TAB_ROW_TANGENTS] = (uint32_t)(uintptr_t)(row->tangents ? row->tangents : res->reference_tangents);
        t[SFW_TAB_ROW_NORMAL_DEG] = (uint32_t)(uintptr_t)row->normal_deg;
        t[SFW_TAB_ROW_TANGENT_DEG] = (uint32_t)(uintptr_t)row->tangent_deg;
    }
    return 1;
}

/* Final positions only (morph then skinning) for the view's pose, into out (3 * vertex_count floats). */
SFW_EXPORT(sfw_view_deform) int sfw_view_deform(sfw_view* v, float* out)
{
    sf_error err;
    size_t targets = sfw_view_target_count(v);
    sf_pose pose = {v->bone_count ? v->bones : NULL, v->bone_count, targets ? v->morph : NULL, targets};
    if (sf_deform_positions(v->topo, &pose, v->ws, out, &err) != SF_OK) {
        fail(err.result, &err, "deform");
        return 0;
    }
    return 1;
}

/* The whole character as the page's views draw it: every unit (mesh instance and primitive) of an sfw_asset
 * posed at one moment as sf_asset_eval_frame poses it (the node pose sampled, each instance's bones and morph
 * weights by sf_gltf_pose_instance), evaluated by the library for the reference and one method on the unit's
 * own topology and workspace (so each vertex's angles are the ones the asset's statistics sum), then taken to
 * the scene by its node (sf_gltf_place_frames): all units in one vertex array and one triangle list, in the
 * units' order, for one draw. The page's per-primitive filter draws a unit on its own elsewhere (web/api.c).
 */
#include "api.h"
#include "asset_api.h"

#include <stdlib.h>
#include <string.h>

#define SFW_EXPORT(name) __attribute__((export_name(#name)))

struct sfw_draw {
    const sf_gltf* g;
    const sf_asset_unit* units;
    size_t unit_count;
    sf_gltf_pose* pose;
    sf_evaluation** evals; /* per unit; units sharing a topology (owner) share the first one's */
    size_t n, triangles;
    int tangent_frame;     /* 1 when some unit has a tangent frame */
    float* arrays;         /* SFW_DRAW_* arrays, one after the other (layout in asset_api.h) */
    uint32_t* indices;     /* 3 * triangles, each unit's offset by its first vertex */
    uint32_t* first;       /* unit_count + 1: each unit's first vertex, then n */
    float *bones, *morph;  /* the largest unit's pose inputs */
};

static sf_error g_draw_err;

SFW_EXPORT(sfw_draw_destroy) void sfw_draw_destroy(sfw_draw* d)
{
    if (!d) return;
    for (size_t i = 0; d->evals && i < d->unit_count; ++i)
        if (d->units[i].owner == i) sf_evaluation_destroy(d->evals[i]);
    free(d->evals);
    sf_gltf_pose_destroy(d->pose);
    free(d->arrays);
    free(d->indices);
    free(d->first);
    free(d->bones);
    free(d->morph);
    free(d);
}

static sfw_draw* draw_fail(sfw_draw* d, int result, const char* message)
{
    sfw_draw_destroy(d);
    sfw_set_error(result, message);
    return NULL;
}

/* method: an sf_method the asset measures. */
SFW_EXPORT(sfw_draw_open) sfw_draw* sfw_draw_open(sfw_asset* a, int method)
{
    sfw_draw* d = calloc(1, sizeof *d);
    if (!d) return draw_fail(d, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    if (method < 0 || method >= SF_METHOD_DEFAULT_COUNT) return draw_fail(d, SF_ERROR_INVALID_ARGUMENT, "no such method");
    d->g = sfw_asset_gltf(a);
    d->units = sf_asset_eval_units(sfw_asset_evaluation(a), &d->unit_count);
    d->evals = calloc(d->unit_count + 1, sizeof *d->evals);
    d->first = calloc(d->unit_count + 1, sizeof *d->first);
    if (!d->evals || !d->first) return draw_fail(d, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    if (sf_gltf_pose_create(d->g, NULL, &d->pose, &g_draw_err) != SF_OK)
        return draw_fail(d, g_draw_err.result, g_draw_err.message);
    sf_method m = (sf_method)method;
    sf_eval_desc desc;
    sfw_asset_eval_desc(a, &desc);
    desc.methods = &m;
    desc.method_count = 1;
    desc.flags = SF_EVAL_NO_STATISTICS;
    size_t bones = 1, targets = 1;
    for (size_t i = 0; i < d->unit_count; ++i) {
        const sf_asset_unit* u = &d->units[i];
        if (u->owner != i) {
            d->evals[i] = d->evals[u->owner];
        } else if (sf_evaluation_create(u->topo, &desc, NULL, &d->evals[i], &g_draw_err) != SF_OK) {
            return draw_fail(d, g_draw_err.result, g_draw_err.message);
        }
        d->first[i] = (uint32_t)d->n;
        d->n += u->n;
        d->triangles += sf_topology_triangle_count(u->topo);
        d->tangent_frame |= u->tangents;
        if (u->pose.bone_count > bones) bones = u->pose.bone_count;
        if (u->pose.morph_weight_count > targets) targets = u->pose.morph_weight_count;
    }
    d->first[d->unit_count] = (uint32_t)d->n;
    d->arrays = calloc(SFW_DRAW_FLOATS * (d->n ? d->n : 1), sizeof *d->arrays);
    d->indices = malloc(3 * (d->triangles ? d->triangles : 1) * sizeof *d->indices);
    d->bones = malloc(12 * bones * sizeof *d->bones);
    d->morph = calloc(targets, sizeof *d->morph);
    if (!d->arrays || !d->indices || !d->bones || !d->morph) return draw_fail(d, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    uint32_t* out = d->indices;
    for (size_t i = 0; i < d->unit_count; ++i) {
        const uint32_t* idx = sf_topology_indices(d->units[i].topo);
        size_t k = 3 * sf_topology_triangle_count(d->units[i].topo);
        for (size_t j = 0; j < k; ++j) out[j] = idx[j] + d->first[i];
        out += k;
    }
    return d;
}

/* Array `which` (SFW_DRAW_POSITIONS ...) of every vertex. */
SFW_EXPORT(sfw_draw_array) float* sfw_draw_array(sfw_draw* d, int which)
{
    static const size_t offset[] = {0, 3, 6, 10, 13, 17, 18}; /* in n floats, asset_api.h's order */
    return which >= 0 && which < SFW_DRAW_ARRAYS ? d->arrays + offset[which] * d->n : NULL;
}
SFW_EXPORT(sfw_draw_indices) const uint32_t* sfw_draw_indices(const sfw_draw* d) { return d->indices; }
SFW_EXPORT(sfw_draw_first) const uint32_t* sfw_draw_first(const sfw_draw* d) { return d->first; }
SFW_EXPORT(sfw_draw_vertex_count) size_t sfw_draw_vertex_count(const sfw_draw* d) { return d->n; }
SFW_EXPORT(sfw_draw_triangle_count) size_t sfw_draw_triangle_count(const sfw_draw* d) { return d->triangles; }
SFW_EXPORT(sfw_draw_tangent_frame) int sfw_draw_tangent_frame(const sfw_draw* d) { return d->tangent_frame; }

/* One unit posed, evaluated and placed at its vertices' slots; 0 with the message set on failure. */
static int draw_unit(sfw_draw* d, size_t i)
{
    const sf_asset_unit* u = &d->units[i];
    size_t n = u->n, at = d->first[i];
    float to_world[16];
    if (sf_gltf_pose_instance(d->pose, u->instance, d->bones, d->morph, to_world, &g_draw_err) != SF_OK) return 0;
    sf_pose pose = {d->bones, u->pose.bone_count, d->morph, u->pose.morph_weight_count};
    if (!u->pose.bone_matrices) pose.bone_matrices = NULL;
    float* p = sfw_draw_array(d, SFW_DRAW_POSITIONS) + 3 * at;
    float* nrm = sfw_draw_array(d, SFW_DRAW_NORMALS) + 3 * at;
    float* tan = sfw_draw_array(d, SFW_DRAW_TANGENTS) + 4 * at;
    float* rn = sfw_draw_array(d, SFW_DRAW_REF_NORMALS) + 3 * at;
    float* rt = sfw_draw_array(d, SFW_DRAW_REF_TANGENTS) + 4 * at;
    sf_eval_buffers b;
    memset(&b, 0, sizeof b);
    b.positions = p;
    b.reference_normals = rn;
    b.reference_tangents = rt;
    b.rows[0].normals = nrm;
    b.rows[0].tangents = tan;
    b.rows[0].normal_deg = sfw_draw_array(d, SFW_DRAW_NORMAL_DEG) + at;
    b.rows[0].tangent_deg = sfw_draw_array(d, SFW_DRAW_TANGENT_DEG) + at;
    if (sf_evaluation_run(d->evals[i], &pose, u->ws, &b, &g_draw_err) != SF_OK) return 0;
    const sf_eval_row* row = &sf_evaluation_results(d->evals[i])->rows[0];
    if (row->status != SF_OK) { /* a method that cannot run here: nothing to colour */
        memset(b.rows[0].normal_deg, 0, n * sizeof(float));
        memset(b.rows[0].tangent_deg, 0, n * sizeof(float));
    }
    if (!u->tangents) memset(b.rows[0].tangent_deg, 0, n * sizeof(float));
    sf_frames_out world = {p, nrm, tan};
    if (sf_gltf_place_frames(to_world, n, p, nrm, tan, &world, &g_draw_err) != SF_OK) return 0;
    sf_frames_out ref = {NULL, rn, rt};
    return sf_gltf_place_frames(to_world, n, p, rn, rt, &ref, &g_draw_err) == SF_OK;
}

/* Every unit at time_s of animation (< 0: the nodes' rest transforms): 1, or 0 with the library's message. */
SFW_EXPORT(sfw_draw_pose) int sfw_draw_pose(sfw_draw* d, int animation, double time_s)
{
    size_t anim = animation < 0 ? SF_GLTF_NONE : (size_t)animation;
    if (sf_gltf_pose_sample(d->pose, anim, time_s, &g_draw_err) != SF_OK) {
        sfw_set_error(g_draw_err.result, g_draw_err.message);
        return 0;
    }
    for (size_t i = 0; i < d->unit_count; ++i) {
        if (!draw_unit(d, i)) {
            sfw_set_error(g_draw_err.result, g_draw_err.message);
            return 0;
        }
    }
    return 1;
}

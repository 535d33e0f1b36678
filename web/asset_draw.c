/* The whole character as the page's views draw it: every unit (mesh instance and primitive) of an sfw_asset at
 * one moment, from the asset's own evaluation of that moment (sf_asset_eval_frame_into through
 * sfw_asset_frame_into): each unit's final positions, the reference's and the drawn method's frames and every
 * method's angles (the inspector reads them all) are kept in our arrays as the asset evaluates it (so each vertex's angles are the ones the
 * table sums, and the moment is evaluated once), then taken to the scene by its node (sf_gltf_place_frames):
 * all units in one vertex array and one triangle list, in the units' order, for one draw. The page's
 * per-primitive filter draws a unit on its own elsewhere (web/api.c).
 */
#include "api.h"
#include "asset_api.h"

#include <stdlib.h>
#include <string.h>

#define SFW_EXPORT(name) __attribute__((export_name(#name)))

struct sfw_draw {
    sfw_asset* asset;
    const sf_asset_unit* units;
    size_t unit_count;
    int method, row;       /* the drawn sf_method and its row in the asset's evaluations */
    size_t n, triangles;
    int tangent_frame;     /* 1 when some unit has a tangent frame */
    float* arrays;         /* SFW_DRAW_* arrays, one after the other (layout in asset_api.h) */
    uint32_t* indices;     /* 3 * triangles, each unit's offset by its first vertex */
    uint32_t* first;       /* unit_count + 1: each unit's first vertex, then n */
    float* to_world;       /* 16 per unit: its node's placement at the moment */
    float* unit_space;     /* SFW_DRAW_UNIT_FLOATS per vertex, once asked for (sfw_draw_unit_space) */
    uint32_t gpu_table[SFW_GPU_TABLE_WORDS]; /* sfw_draw_unit_gpu_buffers */
};

SFW_EXPORT(sfw_draw_destroy) void sfw_draw_destroy(sfw_draw* d)
{
    if (!d) return;
    free(d->arrays);
    free(d->indices);
    free(d->first);
    free(d->to_world);
    free(d->unit_space);
    free(d);
}

static sfw_draw* draw_fail(sfw_draw* d, int result, const char* message)
{
    sfw_draw_destroy(d);
    sfw_set_error(result, message);
    return NULL;
}

/* method: a default sf_method (the asset measures them all). The asset must outlive the drawing. */
SFW_EXPORT(sfw_draw_open) sfw_draw* sfw_draw_open(sfw_asset* a, int method)
{
    sfw_draw* d = calloc(1, sizeof *d);
    if (!d) return draw_fail(d, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    d->asset = a;
    d->method = method;
    d->row = sfw_asset_method_row(a, method);
    if (d->row < 0 || method >= SF_METHOD_DEFAULT_COUNT) return draw_fail(d, SF_ERROR_INVALID_ARGUMENT, "no such method");
    d->units = sf_asset_eval_units(sfw_asset_evaluation(a), &d->unit_count);
    d->first = calloc(d->unit_count + 1, sizeof *d->first);
    d->to_world = calloc(16 * (d->unit_count + 1), sizeof *d->to_world);
    if (!d->first || !d->to_world) return draw_fail(d, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < d->unit_count; ++i) {
        const sf_asset_unit* u = &d->units[i];
        d->first[i] = (uint32_t)d->n;
        d->n += u->n;
        d->triangles += sf_topology_triangle_count(u->topo);
        d->tangent_frame |= u->tangents;
    }
    d->first[d->unit_count] = (uint32_t)d->n;
    d->arrays = calloc(SFW_DRAW_FLOATS * (d->n ? d->n : 1), sizeof *d->arrays);
    d->indices = malloc(3 * (d->triangles ? d->triangles : 1) * sizeof *d->indices);
    if (!d->arrays || !d->indices) return draw_fail(d, SF_ERROR_OUT_OF_MEMORY, "out of memory");
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
    if (which >= SFW_DRAW_NORMAL_DEG && which < SFW_DRAW_ARRAYS) return sfw_draw_angles(d) + (2 * (size_t)d->method + (size_t)(which - SFW_DRAW_NORMAL_DEG)) * d->n;
    return which >= 0 && which < SFW_DRAW_ARRAYS ? d->arrays + offset[which] * d->n : NULL;
}
SFW_EXPORT(sfw_draw_angles) float* sfw_draw_angles(sfw_draw* d) { return d->arrays + 17 * d->n; }
SFW_EXPORT(sfw_draw_indices) const uint32_t* sfw_draw_indices(const sfw_draw* d) { return d->indices; }
SFW_EXPORT(sfw_draw_first) const uint32_t* sfw_draw_first(const sfw_draw* d) { return d->first; }
SFW_EXPORT(sfw_draw_vertex_count) size_t sfw_draw_vertex_count(const sfw_draw* d) { return d->n; }
SFW_EXPORT(sfw_draw_triangle_count) size_t sfw_draw_triangle_count(const sfw_draw* d) { return d->triangles; }
SFW_EXPORT(sfw_draw_tangent_frame) int sfw_draw_tangent_frame(const sfw_draw* d) { return d->tangent_frame; }

/* sf_asset_unit_fn: unit i's results into its vertices' slots of our arrays, its placement kept. */
static int keep_unit(void* user, size_t i, const float* to_world, sf_eval_buffers* b)
{
    sfw_draw* d = user;
    size_t at = d->first[i];
    memcpy(d->to_world + 16 * i, to_world, 16 * sizeof *to_world);
    b->positions = sfw_draw_array(d, SFW_DRAW_POSITIONS) + 3 * at;
    b->reference_normals = sfw_draw_array(d, SFW_DRAW_REF_NORMALS) + 3 * at;
    b->reference_tangents = sfw_draw_array(d, SFW_DRAW_REF_TANGENTS) + 4 * at;
    b->rows[d->row].normals = sfw_draw_array(d, SFW_DRAW_NORMALS) + 3 * at;
    b->rows[d->row].tangents = sfw_draw_array(d, SFW_DRAW_TANGENTS) + 4 * at;
    for (int m = 0; m < SF_METHOD_DEFAULT_COUNT; ++m) {
        int k = sfw_asset_method_row(d->asset, m);
        b->rows[k].normal_deg = sfw_draw_angles(d) + 2 * (size_t)m * d->n + at;
        b->rows[k].tangent_deg = sfw_draw_angles(d) + (2 * (size_t)m + 1) * d->n + at;
    }
    return 0;
}

/* The drawn method's and the reference's frames of vertices [at, at + n) as the unit evaluated them, before
 * they are placed in the scene: what the GPU passes of the units compute and are measured against. */
static void keep_unit_space(sfw_draw* d, size_t at, size_t n)
{
    if (!d->unit_space) return;
    static const int which[] = {SFW_DRAW_NORMALS, SFW_DRAW_TANGENTS, SFW_DRAW_REF_NORMALS, SFW_DRAW_REF_TANGENTS};
    static const size_t width[] = {3, 4, 3, 4};
    float* out = d->unit_space;
    for (int k = 0; k < 4; ++k) {
        memcpy(out + width[k] * at, sfw_draw_array(d, which[k]) + width[k] * at, width[k] * n * sizeof(float));
        out += width[k] * d->n;
    }
}

/* Unit i's kept arrays taken from its mesh's space to the scene's; its angles zeroed where there is nothing to
 * colour (a method that cannot run on the asset, a unit without a tangent frame). */
static int place_unit(sfw_draw* d, size_t i, sf_error* err)
{
    const sf_asset_unit* u = &d->units[i];
    size_t n = u->n, at = d->first[i];
    for (int m = 0; m < SF_METHOD_DEFAULT_COUNT; ++m) {
        float* deg = sfw_draw_angles(d) + 2 * (size_t)m * d->n + at;
        int measured = sfw_asset_method_measured(d->asset, m);
        if (!measured) memset(deg, 0, n * sizeof(float));
        if (!measured || !u->tangents) memset(deg + d->n, 0, n * sizeof(float));
    }
    keep_unit_space(d, at, n);
    float* p = sfw_draw_array(d, SFW_DRAW_POSITIONS) + 3 * at;
    float* nrm = sfw_draw_array(d, SFW_DRAW_NORMALS) + 3 * at;
    float* tan = sfw_draw_array(d, SFW_DRAW_TANGENTS) + 4 * at;
    float* rn = sfw_draw_array(d, SFW_DRAW_REF_NORMALS) + 3 * at;
    float* rt = sfw_draw_array(d, SFW_DRAW_REF_TANGENTS) + 4 * at;
    const float* to_world = d->to_world + 16 * i;
    sf_frames_out world = {p, nrm, tan};
    if (sf_gltf_place_frames(to_world, n, p, nrm, tan, &world, err) != SF_OK) return 0;
    sf_frames_out ref = {NULL, rn, rt};
    return sf_gltf_place_frames(to_world, n, p, rn, rt, &ref, err) == SF_OK;
}

/* Every unit at time_s of animation (< 0: the nodes' rest transforms), evaluated once by the asset: that
 * moment's table (sfw_asset_frame's), the arrays read after it; NULL with the library's message. */
SFW_EXPORT(sfw_draw_pose) const double* sfw_draw_pose(sfw_draw* d, int animation, double time_s)
{
    const double* table = sfw_asset_frame_into(d->asset, animation, time_s, keep_unit, d);
    if (!table) return NULL;
    sf_error err;
    for (size_t i = 0; i < d->unit_count; ++i) {
        if (!place_unit(d, i, &err)) {
            sfw_set_error(err.result, err.message);
            return NULL;
        }
    }
    return table;
}

/* What the GPU passes of the units read (the page's WebGPU path for the whole character). */

/* From the next sfw_draw_pose on, every vertex's drawn method's and reference's frames in its unit's own space
 * (before placement), one array after the other: normals 3n, tangents 4n, reference normals 3n, reference
 * tangents 4n. NULL when out of memory. */
SFW_EXPORT(sfw_draw_unit_space) const float* sfw_draw_unit_space(sfw_draw* d)
{
    if (!d->unit_space) d->unit_space = calloc(SFW_DRAW_UNIT_FLOATS * (d->n ? d->n : 1), sizeof(float));
    if (!d->unit_space) sfw_set_error(SF_ERROR_OUT_OF_MEMORY, "out of memory");
    return d->unit_space;
}
/* Unit i's topology in the shaders' layout (sfw_view_gpu_buffers' table; valid until the next call). */
SFW_EXPORT(sfw_draw_unit_gpu_buffers) const uint32_t* sfw_draw_unit_gpu_buffers(sfw_draw* d, size_t i)
{
    return i < d->unit_count ? sfw_gpu_table(d->units[i].topo, d->gpu_table) : NULL;
}
/* Unit i's pose at the moment of the last sfw_draw_pose: 12 floats per bone, one weight per morph target; and
 * its placement in the scene (16 floats, column-major). */
SFW_EXPORT(sfw_draw_unit_bone_count) size_t sfw_draw_unit_bone_count(const sfw_draw* d, size_t i)
{
    return i < d->unit_count ? d->units[i].pose.bone_count : 0;
}
SFW_EXPORT(sfw_draw_unit_bones) const float* sfw_draw_unit_bones(const sfw_draw* d, size_t i)
{
    return i < d->unit_count ? d->units[i].bones : NULL;
}
SFW_EXPORT(sfw_draw_unit_target_count) size_t sfw_draw_unit_target_count(const sfw_draw* d, size_t i)
{
    return i < d->unit_count ? d->units[i].pose.morph_weight_count : 0;
}
SFW_EXPORT(sfw_draw_unit_morph) const float* sfw_draw_unit_morph(const sfw_draw* d, size_t i)
{
    return i < d->unit_count ? d->units[i].morph : NULL;
}
SFW_EXPORT(sfw_draw_unit_to_world) const float* sfw_draw_unit_to_world(const sfw_draw* d, size_t i)
{
    return i < d->unit_count ? d->to_world + 16 * i : NULL;
}
SFW_EXPORT(sfw_draw_unit_bitangent_sign) float sfw_draw_unit_bitangent_sign(const sfw_draw* d, size_t i)
{
    return i < d->unit_count ? sf_topology_bitangent_sign(d->units[i].topo) : 0.0f;
}

/* A whole glTF for the page, evaluated by the library's asset evaluation (skinframe_eval.h) as `skinframe eval`
 * evaluates it: every mesh instance and primitive posed together, the reference and every default method, the
 * statistics over all of them. The file's bytes come from JavaScript (sfw_alloc, copy, sfw_asset_open); a moment
 * (sfw_asset_frame) or a whole clip at the asset's fps (sfw_asset_clip) fills one double table per method
 * (layout in api_layout.h, generated into web/src/generated/layout.js); web/asset_draw.c keeps the same moment's arrays for the views
 * (sfw_asset_frame_into). Failures return NULL with the library's message in
 * sfw_error_message, the text the command prints after the file's name.
 */
#include "api.h"
#include "api_layout.h"
#include "asset_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SFW_EXPORT(name) __attribute__((export_name(#name)))

struct sfw_asset {
    sf_gltf* g;
    sf_asset_eval* e;
    sf_method methods[SF_METHOD_COUNT];
    double table[SF_METHOD_COUNT * SFW_ASSET_STRIDE];
    uint32_t* unit_info; /* per unit: node, mesh, primitive of the mesh, instance (sfw_asset_units) */
};

static sf_error g_asset_err;

/* The message sfw_error_message shows next: api.c keeps one error for the module. */
static void* asset_fail(const sf_error* err)
{
    sfw_set_error(err->result, err->message);
    return NULL;
}

SFW_EXPORT(sfw_asset_destroy) void sfw_asset_destroy(sfw_asset* a)
{
    if (!a) return;
    sf_asset_eval_destroy(a->e);
    sf_gltf_destroy(a->g);
    free(a->unit_info);
    free(a);
}

/* The reference and method options are the page's selects (sfw_view_set_options' values); the glTF's generated
 * tangents follow `tangents`, as the command's --tangents does. */
SFW_EXPORT(sfw_asset_open)
sfw_asset* sfw_asset_open(const void* data, size_t size, int morph_directions, int weighting, int weld, int tangents,
                          int reference, double jacobian_cap)
{
    sfw_asset* a = calloc(1, sizeof *a);
    if (!a) {
        sfw_set_error(SF_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    sf_gltf_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.generated_tangents = (sf_tangent_mode)tangents;
    if (sf_gltf_load_memory(data, size, NULL, &lo, NULL, &a->g, &g_asset_err) != SF_OK) {
        sfw_asset_destroy(a);
        return asset_fail(&g_asset_err);
    }
    sf_asset_eval_opts o;
    sf_asset_eval_opts_init(&o);
    for (int m = 0; m < SF_METHOD_DEFAULT_COUNT; ++m) a->methods[m] = (sf_method)m;
    o.methods = a->methods;
    o.method_count = SF_METHOD_DEFAULT_COUNT;
    o.reference_opts.morph_directions = (sf_morph_directions)morph_directions;
    o.reference_opts.weighting = (sf_weighting)weighting;
    o.reference_opts.weld = (sf_weld)weld;
    o.reference_opts.tangents = (sf_tangent_mode)tangents;
    o.reference_opts.reference = (sf_reference)reference;
    o.reference_opts.jacobian_cap = (float)jacobian_cap;
    o.method_opts.morph_directions = (sf_morph_directions)morph_directions;
    o.method_opts.jacobian_cap = (float)jacobian_cap;
    if (sf_asset_eval_create(a->g, &o, NULL, &a->e, &g_asset_err) != SF_OK) {
        sfw_asset_destroy(a);
        return asset_fail(&g_asset_err);
    }
    return a;
}

sf_asset_eval* sfw_asset_evaluation(sfw_asset* a) { return a->e; }

SFW_EXPORT(sfw_asset_animation_count) size_t sfw_asset_animation_count(const sfw_asset* a) { return a->g->animation_count; }
SFW_EXPORT(sfw_asset_duration) double sfw_asset_duration(const sfw_asset* a, size_t animation)
{
    return animation < a->g->animation_count ? a->g->animations[animation].end_s : 0.0;
}
SFW_EXPORT(sfw_asset_unit_count) size_t sfw_asset_unit_count(const sfw_asset* a)
{
    size_t n = 0;
    sf_asset_eval_units(a->e, &n);
    return n;
}
/* 4 per unit, in the units' order: its node, mesh and primitive of that mesh (as eval --json names a vertex) and
 * its instance; NULL when out of memory. */
SFW_EXPORT(sfw_asset_units) const uint32_t* sfw_asset_units(sfw_asset* a)
{
    size_t n = 0;
    const sf_asset_unit* u = sf_asset_eval_units(a->e, &n);
    if (!a->unit_info) a->unit_info = malloc(4 * (n ? n : 1) * sizeof *a->unit_info);
    if (!a->unit_info) {
        sfw_set_error(SF_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; ++i) {
        const sf_gltf_primitive* p = &a->g->primitives[u[i].primitive];
        uint32_t* o = a->unit_info + 4 * i;
        o[0] = (uint32_t)a->g->instances[u[i].instance].node;
        o[1] = (uint32_t)p->mesh_index;
        o[2] = (uint32_t)p->primitive_index;
        o[3] = (uint32_t)u[i].instance;
    }
    return a->unit_info;
}
SFW_EXPORT(sfw_asset_vertex_count) size_t sfw_asset_vertex_count(const sfw_asset* a)
{
    size_t n = 0;
    sf_asset_eval_counts(a->e, &n, NULL);
    return n;
}
SFW_EXPORT(sfw_asset_tangent_vertex_count) size_t sfw_asset_tangent_vertex_count(const sfw_asset* a)
{
    size_t n = 0;
    sf_asset_eval_counts(a->e, NULL, &n);
    return n;
}

/* Each method's row of the table from its statistics: the frame's sums (frame) or the clip's. */
static const double* fill(sfw_asset* a, const sf_method_stats* stats, int frame)
{
    memset(a->table, 0, sizeof a->table);
    for (int k = 0; k < SF_METHOD_DEFAULT_COUNT; ++k) {
        const sf_method_stats* s = &stats[a->methods[k]];
        double* row = a->table + (size_t)a->methods[k] * SFW_ASSET_STRIDE;
        if (!s->on) continue;
        row[SFW_ASSET_STATUS] = s->skipped ? 2.0 : 1.0;
        if (s->skipped) continue;
        if (frame) {
            row[SFW_ASSET_NORMAL_MEAN] = s->frame_cn ? s->frame_sn / (double)s->frame_cn : 0.0;
            row[SFW_ASSET_NORMAL_MAX] = s->frame_mn;
            row[SFW_ASSET_TANGENT_MEAN] = s->frame_ct ? s->frame_st / (double)s->frame_ct : 0.0;
            row[SFW_ASSET_TANGENT_MAX] = s->frame_mt;
            row[SFW_ASSET_NORMAL_COUNT] = (double)s->frame_cn;
            row[SFW_ASSET_TANGENT_COUNT] = (double)s->frame_ct;
        } else {
            row[SFW_ASSET_NORMAL_MEAN] = s->normal.mean;
            row[SFW_ASSET_NORMAL_MAX] = s->normal.max;
            row[SFW_ASSET_TANGENT_MEAN] = s->tangent.mean;
            row[SFW_ASSET_TANGENT_MAX] = s->tangent.max;
            row[SFW_ASSET_NORMAL_COUNT] = (double)s->normal.count;
            row[SFW_ASSET_TANGENT_COUNT] = (double)s->tangent.count;
        }
        row[SFW_ASSET_HANDEDNESS] = (double)s->handedness;
    }
    return a->table;
}

/* animation < 0: the nodes' rest transforms (a file without animations). */
SFW_EXPORT(sfw_asset_frame) const double* sfw_asset_frame(sfw_asset* a, int animation, double time_s)
{
    return sfw_asset_frame_into(a, animation, time_s, NULL, NULL);
}

const double* sfw_asset_frame_into(sfw_asset* a, int animation, double time_s, sf_asset_unit_fn on_unit, void* user)
{
    sf_asset_clip clip;
    size_t anim = animation < 0 ? SF_GLTF_NONE : (size_t)animation;
    if (sf_asset_eval_frame_into(a->e, anim, time_s, on_unit, user, &clip, &g_asset_err) != SF_OK)
        return asset_fail(&g_asset_err);
    return fill(a, clip.methods, 1);
}

int sfw_asset_method_row(const sfw_asset* a, int method)
{
    for (int k = 0; k < SF_METHOD_DEFAULT_COUNT; ++k)
        if ((int)a->methods[k] == method) return k;
    return -1;
}

int sfw_asset_method_measured(const sfw_asset* a, int method)
{
    return method >= 0 && method < SF_METHOD_COUNT && a->table[(size_t)method * SFW_ASSET_STRIDE + SFW_ASSET_STATUS] == 1.0;
}

/* Every frame of the clip at 30 fps and its end, as `skinframe eval` plays it; *frames (may be NULL) how many. */
SFW_EXPORT(sfw_asset_clip) const double* sfw_asset_clip(sfw_asset* a, int animation, size_t* frames)
{
    sf_asset_clip clip;
    size_t anim = animation < 0 ? SF_GLTF_NONE : (size_t)animation;
    if (sf_asset_eval_clip(a->e, anim, NULL, NULL, &clip, &g_asset_err) != SF_OK) return asset_fail(&g_asset_err);
    if (frames) *frames = clip.plan.frames;
    return fill(a, clip.methods, 0);
}

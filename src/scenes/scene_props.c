/* The article's small demos: `tip` (one vertex shared by three faces), `ramp` (a slope stretched
 * along the ground), `elbow` (two-bone bend with weights changing across the joint) and `strip`
 * (one bone lifted without rotation over linearly changing weights). y is up in every scene. */
#include "scene_internal.h"
#include "sf_kernels.h"

#include <math.h>
#include <string.h>

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)

/* The rest rig: segments holds head then tail (float3 each) of every bone in order. */
static void set_rest_rig(sfi_scene_ctx* ctx, const float* segments, size_t bone_count)
{
    for (size_t b = 0; b < bone_count; ++b) {
        memcpy(ctx->bone_rest_heads + 3 * b, segments + 6 * b, 3 * sizeof(float));
        memcpy(ctx->bone_rest_tails + 3 * b, segments + 6 * b + 3, 3 * sizeof(float));
    }
}

/* ---------------------------------------------------------------- tip */

enum { TIP_TIP_HEIGHT, TIP_HEIGHT, TIP_PUSH, TIP_COUNT };

static const sf_scene_param_info tip_params[TIP_COUNT] = {
    {"tip-height", 0.25, -1, 1, "units", "rest height of the tip (vertex 0) above the plane of its neighbours"},
    {"height", 0, -2, 2, "units", "bone 1 lifts neighbour 1 (at (0, 0, -1), behind the tip) by this much along +y"},
    {"push", 0, -0.9, 2, "units", "bone 1 moves neighbour 1 this far outward, away from the tip (along -z)"},
};

static const sf_scene_preset_info tip_presets[] = {
    {"move-neighbor", "lift one neighbour: the tip stays in place while its directions change", "height=0.6"},
};

const sf_scene_info sfi_scene_tip_info = {
    .name = "tip",
    .description = "a tip vertex shared by three faces: 4 vertices, the tip raised above three neighbours at "
                   "uneven distances, planar UVs (u = (1 + x)/2, v = (1 + z)/2); the reference averages the "
                   "faces uniformly, as in the article's first demo; bone 1 moves neighbour 1 only",
    .params = tip_params,
    .param_count = TIP_COUNT,
    .presets = tip_presets,
    .preset_count = sizeof tip_presets / sizeof tip_presets[0],
    .targets = NULL,
    .target_count = 0,
    .reference_weighting = SF_WEIGHTING_UNIFORM,
};

/* Rest frames by the reference's own gather with uniform weights (the scene's reference weighting),
 * in the same face order, so the rest directions equal the recomputed ones bit for bit. */
static void uniform_rest_frames(size_t n, size_t F, const uint32_t* I, const float* P, const float* UV, float* N,
                                float* T)
{
    for (size_t v = 0; v < n; ++v) {
        float sn[3] = {0, 0, 0}, st[3] = {0, 0, 0}, sb[3] = {0, 0, 0};
        for (size_t f = 0; f < F; ++f) {
            const uint32_t* tri = I + 3 * f;
            if (tri[0] != v && tri[1] != v && tri[2] != v) continue;
            float fn[3], ft[3], fb[3], u[3];
            sfk_face_frame(P + 3 * tri[0], P + 3 * tri[1], P + 3 * tri[2], UV + 2 * tri[0], UV + 2 * tri[1],
                           UV + 2 * tri[2], fn, ft, fb);
            sfk_safe_unit(fn, u);
            sfk_madd(sn, u, 1.0f);
            sfk_madd(st, ft, 1.0f);
            sfk_madd(sb, fb, 1.0f);
        }
        sfk_finish_frame(sn, st, sb, SF_SCENE_BITANGENT_SIGN, N + 3 * v, T + 4 * v);
    }
}

sf_result sfi_scene_tip_build(sfi_scene_ctx* ctx, sf_error* err)
{
    enum { n = 4, F = 3 };
    float* P = sfi_scene_alloc(ctx, 3 * n, sizeof(float));
    float* N = sfi_scene_alloc(ctx, 3 * n, sizeof(float));
    float* T = sfi_scene_alloc(ctx, 4 * n, sizeof(float));
    float* UV = sfi_scene_alloc(ctx, 2 * n, sizeof(float));
    uint32_t* I = sfi_scene_alloc(ctx, 3 * F, sizeof(uint32_t));
    if (!P || !N || !T || !UV || !I) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "scene", SFI_NO_INDEX, "tip");
    /* Neighbours k = 1..3 at angle -90 - 120 (k - 1) degrees in the xz plane (x = cos, z = sin), at
     * radii 1, 0.8, 1.2 so the three faces differ in shape and area. */
    static const double radius[3] = {1.0, 0.8, 1.2};
    P[1] = (float)ctx->values[TIP_TIP_HEIGHT];
    for (int k = 0; k < 3; ++k) {
        double a = (-90.0 - 120.0 * k) * DEG;
        P[3 * (k + 1) + 0] = (float)(radius[k] * cos(a));
        P[3 * (k + 1) + 2] = (float)(radius[k] * sin(a));
    }
    P[3 * 1 + 0] = 0.0f; /* exactly behind the tip */
    for (int v = 0; v < n; ++v) {
        UV[2 * v + 0] = 0.5f + 0.5f * P[3 * v + 0];
        UV[2 * v + 1] = 0.5f + 0.5f * P[3 * v + 2];
    }
    /* Faces (tip, k, k+1), counter-clockwise seen from above. */
    static const uint32_t tris[3 * F] = {0, 1, 2, 0, 2, 3, 0, 3, 1};
    memcpy(I, tris, sizeof tris);
    uniform_rest_frames(n, F, I, P, UV, N, T);
    sfi_scene_set_mesh(ctx, n, F, I, P, N, T, UV);
    sf_mesh_desc* m = &ctx->pub.mesh;

    sf_result r = sfi_scene_skin_alloc(ctx, 1, 2, err);
    if (r != SF_OK) return r;
    uint32_t* joints = (uint32_t*)(void*)m->joints;
    float* weights = (float*)(void*)m->weights;
    for (int v = 0; v < n; ++v) {
        joints[v] = v == 1 ? 1u : 0u;
        weights[v] = 1.0f;
    }
    /* Bone 1: a translation of neighbour 1, up by `height` and outward (-z) by `push`. */
    float* bones = (float*)(void*)ctx->pub.pose.bone_matrices;
    bones[12 + 10] = (float)ctx->values[TIP_HEIGHT];
    bones[12 + 11] = (float)-ctx->values[TIP_PUSH];
    /* Rig: bone 0 from the centre of the base up to the tip, bone 1 from halfway out to neighbour 1. */
    float rig[12] = {0, 0, 0, 0, P[1], 0, 0.5f * P[3], 0, 0.5f * P[5], P[3], 0, P[5]};
    set_rest_rig(ctx, rig, 2);
    return SF_OK;
}

/* ---------------------------------------------------------------- ramp */

enum { RAMP_RESOLUTION, RAMP_SLOPE, RAMP_STRETCH, RAMP_COUNT };

static const sf_scene_param_info ramp_params[RAMP_COUNT] = {
    {"resolution", 8, 1, 512, "quads", "grid density: r x r quads ((r+1)^2 vertices)"},
    {"slope", 30, 0, 85, "deg", "rest incline of the ramp: it rises along +x, 1 unit of run, height tan(slope)"},
    {"stretch", 1, -4, 4, "x",
     "the bone scales x (along the ground) by this factor and keeps the height: the slope flattens to "
     "atan(tan(slope) / stretch); negative mirrors it, 0 squashes it into a wall (singular matrix)"},
};

static const sf_scene_preset_info ramp_presets[] = {
    {"stretch", "the ramp stretched to twice its width along the ground, same height", "stretch=2"},
};

const sf_scene_info sfi_scene_ramp_info = {
    .name = "ramp",
    .description = "a ramp prop: an inclined UV-mapped grid (run 1 along x, rising by tan(slope), 1 wide along z) "
                   "skinned to one bone that stretches it along the ground; the inverse-transpose normal is "
                   "exact, the skinned normal leans the wrong way",
    .params = ramp_params,
    .param_count = RAMP_COUNT,
    .presets = ramp_presets,
    .preset_count = sizeof ramp_presets / sizeof ramp_presets[0],
    .targets = NULL,
    .target_count = 0,
    .reference_weighting = SF_WEIGHTING_AREA,
};

sf_result sfi_scene_ramp_build(sfi_scene_ctx* ctx, sf_error* err)
{
    size_t r = (size_t)ctx->values[RAMP_RESOLUTION];
    double rise = tan(ctx->values[RAMP_SLOPE] * DEG), k = ctx->values[RAMP_STRETCH];
    sfi_grid g = {r, r, {0, 0, -0.5}, {1, rise, 0}, {0, 0, 1}, {sqrt(1.0 + rise * rise), 1.0}};
    sf_result res = sfi_scene_grid_build(ctx, &g, err);
    if (res != SF_OK) return res;
    if ((res = sfi_scene_skin_alloc(ctx, 1, 1, err)) != SF_OK) return res;
    float* weights = (float*)(void*)ctx->pub.mesh.weights;
    for (size_t v = 0; v < ctx->pub.mesh.vertex_count; ++v) weights[v] = 1.0f;
    float* bone = (float*)(void*)ctx->pub.pose.bone_matrices;
    bone[0] = (float)k;
    float rig[6] = {0, 0, 0, 1, 0, 0};
    set_rest_rig(ctx, rig, 1);
    return SF_OK;
}

/* ---------------------------------------------------------------- elbow */

enum { ELBOW_RESOLUTION, ELBOW_BEND, ELBOW_BLEND_WIDTH, ELBOW_COUNT };

static const sf_scene_param_info elbow_params[ELBOW_COUNT] = {
    {"resolution", 8, 1, 512, "quads",
     "grid density: quads across the 0.4-unit width; the 2-unit length gets 5x as many ((5r+1)(r+1) vertices)"},
    {"bend", 0, -180, 180, "deg", "bone 1 (x > 0) rotates about the z axis through the joint at x = 0; positive lifts it"},
    {"blend-width", 0.5, 0, 2, "units",
     "the weight of bone 1 rises linearly from 0 to 1 over x in [-w/2, w/2] (0 = a hard hinge)"},
};

static const sf_scene_preset_info elbow_presets[] = {
    {"bend", "the forearm bent up by 90 degrees", "bend=90"},
};

const sf_scene_info sfi_scene_elbow_info = {
    .name = "elbow",
    .description = "two-bone bend: a UV-mapped strip along x in [-1, 1], 0.4 wide, normal +y, joint at x = 0; "
                   "weights change linearly across the joint region, so inverse transpose misses how the "
                   "influences change across each triangle",
    .params = elbow_params,
    .param_count = ELBOW_COUNT,
    .presets = elbow_presets,
    .preset_count = sizeof elbow_presets / sizeof elbow_presets[0],
    .targets = NULL,
    .target_count = 0,
    .reference_weighting = SF_WEIGHTING_AREA,
};

/* Weight of bone 1 at x for a linear ramp of width w centred at c (a step at c when w = 0). */
static double linear_ramp(double x, double c, double w)
{
    if (w <= 0.0) return x > c ? 1.0 : (x < c ? 0.0 : 0.5);
    double t = (x - (c - 0.5 * w)) / w;
    return t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
}

/* Two bones, two influences: w1 from linear_ramp, w0 = 1 - w1. */
static sf_result two_bone_strip(sfi_scene_ctx* ctx, const sfi_grid* g, double centre, double width, sf_error* err)
{
    sf_result res = sfi_scene_grid_build(ctx, g, err);
    if (res != SF_OK) return res;
    if ((res = sfi_scene_skin_alloc(ctx, 2, 2, err)) != SF_OK) return res;
    uint32_t* joints = (uint32_t*)(void*)ctx->pub.mesh.joints;
    float* weights = (float*)(void*)ctx->pub.mesh.weights;
    for (size_t j = 0; j <= g->nv; ++j)
        for (size_t i = 0; i <= g->nu; ++i) {
            size_t v = j * (g->nu + 1) + i;
            double p[3];
            sfi_grid_point(g, i, j, p);
            double w1 = linear_ramp(p[0], centre, width);
            joints[2 * v] = 0, joints[2 * v + 1] = 1;
            weights[2 * v] = (float)(1.0 - w1), weights[2 * v + 1] = (float)w1;
        }
    return SF_OK;
}

sf_result sfi_scene_elbow_build(sfi_scene_ctx* ctx, sf_error* err)
{
    size_t r = (size_t)ctx->values[ELBOW_RESOLUTION];
    sfi_grid g = {5 * r, r, {-1, 0, -0.2}, {2, 0, 0}, {0, 0, 0.4}, {2, 0.4}};
    sf_result res = two_bone_strip(ctx, &g, 0.0, ctx->values[ELBOW_BLEND_WIDTH], err);
    if (res != SF_OK) return res;
    double R[9], zero[3] = {0, 0, 0};
    sfi_rot_z(ctx->values[ELBOW_BEND] * DEG, R);
    sfi_bone_matrix(R, zero, zero, (float*)(void*)ctx->pub.pose.bone_matrices + 12);
    float rig[12] = {-1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0};
    set_rest_rig(ctx, rig, 2);
    return SF_OK;
}

/* ---------------------------------------------------------------- strip */

enum { STRIP_RESOLUTION, STRIP_LIFT, STRIP_BLEND_WIDTH, STRIP_COUNT };

static const sf_scene_param_info strip_params[STRIP_COUNT] = {
    {"resolution", 8, 1, 512, "quads",
     "grid density: quads across the 0.4-unit width; the 2-unit length gets 5x as many ((5r+1)(r+1) vertices)"},
    {"lift", 0, -2, 2, "units", "bone 1 moves up (+y) by this much without rotating; bone 0 stays still"},
    {"blend-width", 1, 0.1, 2, "units",
     "the weight of bone 1 rises linearly from 0 to 1 over x in [1 - w/2, 1 + w/2], so there the strip "
     "slopes at atan(lift / w)"},
};

static const sf_scene_preset_info strip_presets[] = {
    {"lift", "one bone translated up by 0.5 without rotation", "lift=0.5"},
};

const sf_scene_info sfi_scene_strip_info = {
    .name = "strip",
    .description = "a UV-mapped strip along x in [0, 2], 0.4 wide, normal +y; bone 0 still, bone 1 translated "
                   "up without rotation; where the weights change linearly the surface slopes although no "
                   "bone rotates, and the inverse transpose (identity) keeps the normal at +y",
    .params = strip_params,
    .param_count = STRIP_COUNT,
    .presets = strip_presets,
    .preset_count = sizeof strip_presets / sizeof strip_presets[0],
    .targets = NULL,
    .target_count = 0,
    .reference_weighting = SF_WEIGHTING_AREA,
};

sf_result sfi_scene_strip_build(sfi_scene_ctx* ctx, sf_error* err)
{
    size_t r = (size_t)ctx->values[STRIP_RESOLUTION];
    sfi_grid g = {5 * r, r, {0, 0, -0.2}, {2, 0, 0}, {0, 0, 0.4}, {2, 0.4}};
    double width = ctx->values[STRIP_BLEND_WIDTH];
    sf_result res = two_bone_strip(ctx, &g, 1.0, width, err);
    if (res != SF_OK) return res;
    float* bone1 = (float*)(void*)ctx->pub.pose.bone_matrices + 12;
    bone1[10] = (float)ctx->values[STRIP_LIFT];
    float a = (float)(1.0 - 0.5 * width), b = (float)(1.0 + 0.5 * width);
    float rig[12] = {0, 0, 0, a, 0, 0, b, 0, 0, 2, 0, 0};
    set_rest_rig(ctx, rig, 2);
    return SF_OK;
}

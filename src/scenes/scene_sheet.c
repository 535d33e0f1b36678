/* The `sheet` scene: the article's towel. A UV-mapped grid 5 long (x in [0, 5]) and 1 wide
 * (z in [-0.5, 0.5]) in the xz plane, normal +y, five bones in a chain along x, four influences per
 * vertex, and four morph targets built from procedural surfaces whose normal and tangent deltas
 * come from numerical derivatives of those surfaces, not from the mesh (the article's section 4). */
#include "scene_internal.h"

#include <math.h>
#include <string.h>

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)

#define SHEET_LENGTH 5.0
#define SHEET_WIDTH 1.0
#define SHEET_BONES 5
#define SHEET_INFLUENCES 4
/* Weight falloff radius (bone lengths are 1): (1 - (d/R)^2)^2 inside R, 0 outside. With R = 1.5 at
 * most four of the five bones reach any vertex, so keeping four loses nothing and stays smooth. */
#define WEIGHT_RADIUS 1.5
/* Central-difference step of the target surfaces (scene units). */
#define DERIV_STEP 1e-4

enum { P_RESOLUTION, P_TWIST, P_BEND, P_COUNT };

static const sf_scene_param_info sheet_params[P_COUNT] = {
    {"resolution", 16, 1, 512, "quads",
     "grid density: quads across the 1-unit width; the 5-unit length gets 5x as many "
     "((5r+1)(r+1) vertices)"},
    {"twist", 0, -720, 720, "deg",
     "twist of the bone chain about the long (x) axis: bones 1..4 each add twist/4 to their parent, "
     "so bone 4 is turned by `twist` against bone 0"},
    {"bend", 0, -360, 360, "deg",
     "upward bend of the bone chain about z: joints 1..4 (at x = 1..4) each add bend/4, so bone 4 is "
     "turned by `bend` against bone 0 (positive lifts the far end)"},
};

static const sf_scene_preset_info sheet_presets[] = {
    {"bone-twist", "each bone twists further about the long axis (90 degrees in all)", "twist=90"},
    {"bone-bend", "the bone chain bends upward about z (90 degrees in all)", "bend=90"},
};

enum { T_TOWEL_TWIST, T_SWIRL, T_MIDDLE_FOLD, T_RIPPLES, T_COUNT };

static const char* const sheet_targets[T_COUNT] = {"towel-twist", "swirl", "middle-fold", "ripples"};

const sf_scene_info sfi_scene_sheet_info = {
    .name = "sheet",
    .description = "UV-mapped 5 x 1 grid in the xz plane (normal +y), 5 bones in a chain along x, 4 influences "
                   "per vertex with smooth weights summing to 1; morph targets towel-twist (180 deg twist about x "
                   "over the length), swirl (in-plane swirl around the centre, up to 90 deg), middle-fold (fold "
                   "along x = 2.5 lifting both ends), ripples (y = 0.1 sin(8 pi x / 5) sin(2 pi z))",
    .params = sheet_params,
    .param_count = P_COUNT,
    .presets = sheet_presets,
    .preset_count = sizeof sheet_presets / sizeof sheet_presets[0],
    .targets = sheet_targets,
    .target_count = T_COUNT,
    .reference_weighting = SF_WEIGHTING_AREA,
};

/* ---------------------------------------------------------------- target surfaces */

/* Target k's surface S(x, z) over the rest coordinates (the rest surface is (x, 0, z)). */
static void target_surface(int k, double x, double z, double S[3])
{
    switch (k) {
    case T_TOWEL_TWIST: {
        /* Cross-sections turned about the x axis by an angle growing from 0 to 180 deg along x. */
        double a = PI * x / SHEET_LENGTH;
        S[0] = x, S[1] = -z * sin(a), S[2] = z * cos(a);
        break;
    }
    case T_SWIRL: {
        /* In-plane rotation about the centre by 90 deg exp(-(r / 0.5)^2): points stay in y = 0. */
        double dx = x - 0.5 * SHEET_LENGTH, r2 = dx * dx + z * z;
        double a = 0.5 * PI * exp(-r2 / 0.25);
        S[0] = 0.5 * SHEET_LENGTH + dx * cos(a) - z * sin(a), S[1] = 0.0, S[2] = dx * sin(a) + z * cos(a);
        break;
    }
    case T_MIDDLE_FOLD: {
        /* y = 0.75 (sqrt(d^2 + 0.25^2) - 0.25), d = x - 2.5: a rounded crease along the middle line,
         * both halves rising at about 37 deg, the ends lifted by about 1.7. */
        double d = x - 0.5 * SHEET_LENGTH;
        S[0] = x, S[1] = 0.75 * (sqrt(d * d + 0.0625) - 0.25), S[2] = z;
        break;
    }
    default: /* T_RIPPLES: four waves along the length, one across the width, amplitude 0.1. */
        S[0] = x, S[1] = 0.1 * sin(8.0 * PI * x / SHEET_LENGTH) * sin(2.0 * PI * z), S[2] = z;
        break;
    }
}

static void unit3(double v[3])
{
    double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (len > 0.0) v[0] /= len, v[1] /= len, v[2] /= len;
}

/* Deltas of target k at rest point (x, 0, z): dP = S - rest, dN = unit(S_z x S_x) - (0, 1, 0),
 * dT = unit(S_x) - (1, 0, 0), with S_x, S_z central differences of the surface. */
static void target_deltas(int k, double x, double z, float dp[3], float dn[3], float dt[3])
{
    double S[3], a[3], b[3], Sx[3], Sz[3], h = DERIV_STEP;
    target_surface(k, x, z, S);
    target_surface(k, x + h, z, a);
    target_surface(k, x - h, z, b);
    for (int i = 0; i < 3; ++i) Sx[i] = (a[i] - b[i]) / (2.0 * h);
    target_surface(k, x, z + h, a);
    target_surface(k, x, z - h, b);
    for (int i = 0; i < 3; ++i) Sz[i] = (a[i] - b[i]) / (2.0 * h);
    double n[3] = {Sz[1] * Sx[2] - Sz[2] * Sx[1], Sz[2] * Sx[0] - Sz[0] * Sx[2], Sz[0] * Sx[1] - Sz[1] * Sx[0]};
    unit3(n);
    unit3(Sx);
    double rest[3] = {x, 0.0, z}, rn[3] = {0, 1, 0}, rt[3] = {1, 0, 0};
    for (int i = 0; i < 3; ++i) {
        dp[i] = (float)(S[i] - rest[i]);
        dn[i] = (float)(n[i] - rn[i]);
        dt[i] = (float)(Sx[i] - rt[i]);
    }
}

/* ---------------------------------------------------------------- weights and pose */

/* Four largest of the five smooth falloffs of the distance to each bone segment, renormalised. */
static void sheet_weights(const double p[3], uint32_t joints[SHEET_INFLUENCES], float weights[SHEET_INFLUENCES])
{
    double f[SHEET_BONES];
    for (int b = 0; b < SHEET_BONES; ++b) {
        double lo = b, hi = b + 1.0;
        double dx = p[0] < lo ? lo - p[0] : (p[0] > hi ? p[0] - hi : 0.0);
        double q = (dx * dx + p[1] * p[1] + p[2] * p[2]) / (WEIGHT_RADIUS * WEIGHT_RADIUS);
        f[b] = q < 1.0 ? (1.0 - q) * (1.0 - q) : 0.0;
    }
    int order[SHEET_BONES] = {0, 1, 2, 3, 4};
    for (int i = 1; i < SHEET_BONES; ++i) /* stable insertion sort, largest first */
        for (int j = i; j > 0 && f[order[j]] > f[order[j - 1]]; --j) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    double sum = 0.0;
    for (int i = 0; i < SHEET_INFLUENCES; ++i) sum += f[order[i]];
    for (int i = 0; i < SHEET_INFLUENCES; ++i) {
        joints[i] = (uint32_t)order[i];
        weights[i] = (float)(f[order[i]] / sum);
    }
}

/* The chain: bone b runs from (b, 0, 0) to (b + 1, 0, 0). Joint b >= 1 turns bone b against its
 * parent by R_z(bend/4) R_x(twist/4) about its head; bone 0 stays put. */
static void sheet_pose(sfi_scene_ctx* ctx)
{
    double twist = ctx->values[P_TWIST] * DEG / 4.0, bend = ctx->values[P_BEND] * DEG / 4.0;
    double Rz[9], Rx[9], local[9], R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, head[3] = {0, 0, 0};
    sfi_rot_z(bend, Rz);
    sfi_rot_x(twist, Rx);
    sfi_mat3_mul(Rz, Rx, local);
    float* bones = (float*)(void*)ctx->pub.pose.bone_matrices;
    for (int b = 0; b < SHEET_BONES; ++b) {
        double rest_head[3] = {b, 0, 0};
        if (b > 0) {
            double step[3], one[3] = {1, 0, 0};
            sfi_mat3_apply(R, one, step); /* the parent's tail is this bone's head */
            for (int k = 0; k < 3; ++k) head[k] += step[k];
            sfi_mat3_mul(R, local, R);
        }
        sfi_bone_matrix(R, rest_head, head, bones + 12 * b);
        float* h = ctx->bone_rest_heads + 3 * b;
        float* t = ctx->bone_rest_tails + 3 * b;
        h[0] = (float)b, h[1] = h[2] = 0.0f;
        t[0] = (float)(b + 1), t[1] = t[2] = 0.0f;
    }
}

sf_result sfi_scene_sheet_build(sfi_scene_ctx* ctx, sf_error* err)
{
    size_t r = (size_t)ctx->values[P_RESOLUTION];
    sfi_grid g = {5 * r, r, {0, 0, -0.5 * SHEET_WIDTH}, {SHEET_LENGTH, 0, 0}, {0, 0, SHEET_WIDTH},
                  {SHEET_LENGTH, SHEET_WIDTH}};
    sf_result res = sfi_scene_grid_build(ctx, &g, err);
    if (res != SF_OK) return res;
    if ((res = sfi_scene_skin_alloc(ctx, SHEET_INFLUENCES, SHEET_BONES, err)) != SF_OK) return res;
    sf_mesh_desc* m = &ctx->pub.mesh;
    uint32_t* joints = (uint32_t*)(void*)m->joints;
    float* weights = (float*)(void*)m->weights;
    for (size_t j = 0; j <= g.nv; ++j)
        for (size_t i = 0; i <= g.nu; ++i) {
            size_t v = j * (g.nu + 1) + i;
            double p[3];
            sfi_grid_point(&g, i, j, p);
            sheet_weights(p, joints + SHEET_INFLUENCES * v, weights + SHEET_INFLUENCES * v);
        }
    sheet_pose(ctx);

    sf_morph_target_desc* targets = sfi_scene_alloc(ctx, T_COUNT, sizeof *targets);
    if (!targets) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "scene", SFI_NO_INDEX, "targets");
    for (int k = 0; k < T_COUNT; ++k) {
        float *dp, *dn, *dt;
        if ((res = sfi_scene_target_alloc(ctx, &targets[k], sheet_targets[k], &dp, &dn, &dt, err)) != SF_OK)
            return res;
        for (size_t j = 0; j <= g.nv; ++j)
            for (size_t i = 0; i <= g.nu; ++i) {
                size_t v = j * (g.nu + 1) + i;
                double p[3];
                sfi_grid_point(&g, i, j, p);
                target_deltas(k, p[0], p[2], dp + 3 * v, dn + 3 * v, dt + 3 * v);
            }
    }
    m->targets = targets;
    m->target_count = T_COUNT;
    return SF_OK;
}

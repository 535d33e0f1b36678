/* Building blocks of the built-in scenes: owned allocations, skinning streams, the flat UV-mapped
 * grid with its exact rest frame, and affine helpers for bind-corrected bone matrices. */
#include "scene_internal.h"
#include "sf_kernels.h"

#include <math.h>
#include <string.h>

void* sfi_scene_alloc(sfi_scene_ctx* ctx, size_t count, size_t elem)
{
    if (ctx->alloc_count >= SFI_SCENE_MAX_ALLOCS) return NULL;
    void* p = sf_env_calloc(&ctx->env, count ? count : 1, elem);
    if (!p) return NULL;
    ctx->allocs[ctx->alloc_count] = p;
    ctx->alloc_sizes[ctx->alloc_count] = (count ? count : 1) * elem;
    ctx->alloc_count++;
    return p;
}

sf_result sfi_scene_skin_alloc(sfi_scene_ctx* ctx, uint32_t influences, size_t bone_count, sf_error* err)
{
    sf_mesh_desc* m = &ctx->pub.mesh;
    size_t n = m->vertex_count;
    uint32_t* joints = sfi_scene_alloc(ctx, (size_t)influences * n, sizeof(uint32_t));
    float* weights = sfi_scene_alloc(ctx, (size_t)influences * n, sizeof(float));
    float* bones = sfi_scene_alloc(ctx, 12 * bone_count, sizeof(float));
    ctx->bone_rest_heads = sfi_scene_alloc(ctx, 3 * bone_count, sizeof(float));
    ctx->bone_rest_tails = sfi_scene_alloc(ctx, 3 * bone_count, sizeof(float));
    if (!joints || !weights || !bones || !ctx->bone_rest_heads || !ctx->bone_rest_tails)
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "scene", SFI_NO_INDEX, "skinning streams for %zu vertices", n);
    for (size_t b = 0; b < bone_count; ++b) bones[12 * b + 0] = bones[12 * b + 4] = bones[12 * b + 8] = 1.0f;
    m->influence_count = influences;
    m->joints = joints;
    m->weights = weights;
    m->bone_count = bone_count;
    ctx->pub.pose.bone_matrices = bones;
    ctx->pub.pose.bone_count = bone_count;
    return SF_OK;
}

sf_result sfi_scene_target_alloc(sfi_scene_ctx* ctx, sf_morph_target_desc* target, const char* name, float** dp,
                                 float** dn, float** dt, sf_error* err)
{
    size_t n = ctx->pub.mesh.vertex_count;
    *dp = sfi_scene_alloc(ctx, 3 * n, sizeof(float));
    *dn = sfi_scene_alloc(ctx, 3 * n, sizeof(float));
    *dt = sfi_scene_alloc(ctx, 3 * n, sizeof(float));
    if (!*dp || !*dn || !*dt)
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "scene", SFI_NO_INDEX, "target %s for %zu vertices", name, n);
    memset(target, 0, sizeof *target);
    target->name = name;
    target->position_deltas = *dp;
    target->normal_deltas = *dn;
    target->tangent_deltas = *dt;
    return SF_OK;
}

/* ---------------------------------------------------------------- grid */

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void cross3(const double a[3], const double b[3], double out[3])
{
    double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

static void unit3(double v[3])
{
    double len = sqrt(dot3(v, v));
    if (len > 0.0) v[0] /= len, v[1] /= len, v[2] /= len;
}

float sfi_scene_handedness(const double n[3], const double t[3], const double dp_dv[3])
{
    /* Ask the reference's own finishing step, so the rest w always follows its rule. */
    float N[3] = {(float)n[0], (float)n[1], (float)n[2]};
    float T[3] = {(float)t[0], (float)t[1], (float)t[2]};
    float B[3] = {(float)dp_dv[0], (float)dp_dv[1], (float)dp_dv[2]};
    float no[3], to[4];
    sfk_finish_frame(N, T, B, SF_SCENE_BITANGENT_SIGN, no, to);
    return to[3];
}

void sfi_grid_point(const sfi_grid* g, size_t i, size_t j, double out[3])
{
    double s = (double)i / (double)g->nu, t = (double)j / (double)g->nv;
    for (int k = 0; k < 3; ++k) out[k] = g->origin[k] + s * g->axis_u[k] + t * g->axis_v[k];
}

sf_result sfi_scene_grid_build(sfi_scene_ctx* ctx, const sfi_grid* g, sf_error* err)
{
    size_t cols = g->nu + 1, rows = g->nv + 1, n = cols * rows, F = 2 * g->nu * g->nv;
    float* P = sfi_scene_alloc(ctx, 3 * n, sizeof(float));
    float* N = sfi_scene_alloc(ctx, 3 * n, sizeof(float));
    float* T = sfi_scene_alloc(ctx, 4 * n, sizeof(float));
    float* UV = sfi_scene_alloc(ctx, 2 * n, sizeof(float));
    uint32_t* I = sfi_scene_alloc(ctx, 3 * F, sizeof(uint32_t));
    if (!P || !N || !T || !UV || !I)
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "scene", SFI_NO_INDEX, "grid of %zu x %zu quads", g->nu, g->nv);
    /* The plane's exact frame: normal axis_v x axis_u (the front side), tangent along +u. */
    double nrm[3], tan[3];
    cross3(g->axis_v, g->axis_u, nrm);
    unit3(nrm);
    double d = dot3(nrm, g->axis_u);
    for (int k = 0; k < 3; ++k) tan[k] = g->axis_u[k] - nrm[k] * d;
    unit3(tan);
    float w = sfi_scene_handedness(nrm, tan, g->axis_v);
    for (size_t j = 0; j < rows; ++j) {
        for (size_t i = 0; i < cols; ++i) {
            size_t v = j * cols + i;
            double p[3];
            sfi_grid_point(g, i, j, p);
            for (int k = 0; k < 3; ++k) {
                P[3 * v + k] = (float)p[k];
                N[3 * v + k] = (float)nrm[k];
                T[4 * v + k] = (float)tan[k];
            }
            T[4 * v + 3] = w;
            UV[2 * v + 0] = (float)(g->uv_size[0] * (double)i / (double)g->nu);
            UV[2 * v + 1] = (float)(g->uv_size[1] * (double)j / (double)g->nv);
        }
    }
    /* Quad a=(i,j) b=(i+1,j) c=(i+1,j+1) d=(i,j+1) as (a,d,c) and (a,c,b): (d-a) x (c-a) is along
     * axis_v x axis_u, so both triangles are counter-clockwise seen from the front. */
    uint32_t* out = I;
    for (size_t j = 0; j < g->nv; ++j) {
        for (size_t i = 0; i < g->nu; ++i) {
            uint32_t a = (uint32_t)(j * cols + i), b = a + 1, c = a + 1 + (uint32_t)cols, dd = a + (uint32_t)cols;
            out[0] = a, out[1] = dd, out[2] = c;
            out[3] = a, out[4] = c, out[5] = b;
            out += 6;
        }
    }
    sfi_scene_set_mesh(ctx, n, F, I, P, N, T, UV);
    return SF_OK;
}

void sfi_scene_set_mesh(sfi_scene_ctx* ctx, size_t n, size_t F, const uint32_t* I, const float* P, const float* N,
                        const float* T, const float* UV)
{
    sf_mesh_desc* m = &ctx->pub.mesh;
    m->vertex_count = n;
    m->triangle_count = F;
    m->indices = I;
    m->positions.data = P;
    m->normals.data = N;
    m->tangents.data = T;
    m->uvs.data = UV;
}

/* ---------------------------------------------------------------- affine helpers */

void sfi_rot_x(double a, double R[9])
{
    double c = cos(a), s = sin(a);
    double m[9] = {1, 0, 0, 0, c, s, 0, -s, c};
    memcpy(R, m, sizeof m);
}

void sfi_rot_z(double a, double R[9])
{
    double c = cos(a), s = sin(a);
    double m[9] = {c, s, 0, -s, c, 0, 0, 0, 1};
    memcpy(R, m, sizeof m);
}

void sfi_mat3_apply(const double A[9], const double v[3], double out[3])
{
    double x = A[0] * v[0] + A[3] * v[1] + A[6] * v[2];
    double y = A[1] * v[0] + A[4] * v[1] + A[7] * v[2];
    double z = A[2] * v[0] + A[5] * v[1] + A[8] * v[2];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

void sfi_mat3_mul(const double A[9], const double B[9], double out[9])
{
    double r[9];
    for (int c = 0; c < 3; ++c) sfi_mat3_apply(A, B + 3 * c, r + 3 * c);
    memcpy(out, r, sizeof r);
}

void sfi_bone_matrix(const double R[9], const double rest_head[3], const double posed_head[3], float out[12])
{
    double Rh[3];
    sfi_mat3_apply(R, rest_head, Rh);
    for (int k = 0; k < 9; ++k) out[k] = (float)R[k];
    for (int k = 0; k < 3; ++k) out[9 + k] = (float)(posed_head[k] - Rh[k]);
}

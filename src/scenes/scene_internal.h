/* Internal declarations of the built-in scenes (src/scene*.c): the build context every scene
 * builder fills, the flat UV-mapped grid shared by the grid scenes, and small affine helpers. */
#ifndef SF_SCENE_INTERNAL_H
#define SF_SCENE_INTERNAL_H

#include "sf_common.h"
#include "skinframe_scenes.h"

#define SFI_SCENE_MAX_ALLOCS 40

/* One scene under construction. The public sf_scene comes first so sf_scene_destroy can recover
 * the whole object from it. Builders read values/morph and fill pub.mesh, pub.pose and the rest
 * rig (bone_rest_heads/tails); scene.c does the rest (names, posed rig, framing). */
typedef struct sfi_scene_ctx {
    sf_scene pub;
    sf_env env;
    const double* values;        /* resolved parameters, in the order of info->params */
    const double* morph;         /* resolved morph weights, in the order of info->targets */
    float* bone_rest_heads;      /* float3 per bone: rest joint segments, posed by the bone matrices */
    float* bone_rest_tails;
    size_t alloc_count;
    void* allocs[SFI_SCENE_MAX_ALLOCS];
    size_t alloc_sizes[SFI_SCENE_MAX_ALLOCS];
} sfi_scene_ctx;

typedef sf_result sfi_scene_build_fn(sfi_scene_ctx* ctx, sf_error* err);

/* The scenes (scene_sheet.c, scene_props.c). */
extern const sf_scene_info sfi_scene_tip_info, sfi_scene_sheet_info, sfi_scene_ramp_info, sfi_scene_elbow_info,
    sfi_scene_strip_info;
sfi_scene_build_fn sfi_scene_tip_build, sfi_scene_sheet_build, sfi_scene_ramp_build, sfi_scene_elbow_build,
    sfi_scene_strip_build;

/* Zeroed, owned by the scene (freed by sf_scene_destroy); NULL when out of memory. */
void* sfi_scene_alloc(sfi_scene_ctx* ctx, size_t count, size_t elem);

/* Allocates the skinning streams: influences per vertex (joints, weights zeroed), bone_count
 * identity matrices, and rest rig segments. */
sf_result sfi_scene_skin_alloc(sfi_scene_ctx* ctx, uint32_t influences, size_t bone_count, sf_error* err);

/* A flat parallelogram grid: p(s, t) = origin + s axis_u + t axis_v for s, t in [0, 1], nu x nv
 * quads, vertex (i, j) at index j (nu + 1) + i. UV = (s uv_size[0], t uv_size[1]): u grows along
 * axis_u, v along axis_v (glTF convention: the image's top row, v = 0, lies at t = 0). The front
 * (counter-clockwise) side faces unit(axis_v x axis_u); rest normals and tangents are the exact
 * directions of the plane, which are also what the reference rebuilds from its triangles. */
typedef struct sfi_grid {
    size_t nu, nv;
    double origin[3], axis_u[3], axis_v[3];
    double uv_size[2];
} sfi_grid;

sf_result sfi_scene_grid_build(sfi_scene_ctx* ctx, const sfi_grid* grid, sf_error* err);
/* Points the scene's mesh at n vertices (packed P, N float3; T float4; UV float2) and F triangles I. */
void sfi_scene_set_mesh(sfi_scene_ctx* ctx, size_t n, size_t F, const uint32_t* I, const float* P, const float* N,
                        const float* T, const float* UV);
/* Rest position of grid vertex (i, j) in double precision. */
void sfi_grid_point(const sfi_grid* grid, size_t i, size_t j, double out[3]);

/* Scenes use glTF UVs (SF_UV_GLTF, the mesh default): the normal map's +Y runs along -dP/dv. */
#define SF_SCENE_BITANGENT_SIGN (-1.0f)

/* Tangent handedness by the reference's rule (sfk_finish_frame). */
float sfi_scene_handedness(const double n[3], const double t[3], const double dp_dv[3]);

/* Affine helpers in double: R is 3x3 column-major (like the 3x4 layout's first 9 floats). */
void sfi_rot_x(double angle_rad, double R[9]);
void sfi_rot_z(double angle_rad, double R[9]);
void sfi_mat3_mul(const double A[9], const double B[9], double out[9]);
void sfi_mat3_apply(const double A[9], const double v[3], double out[3]);
/* Bind-corrected matrix of a bone with rest head h whose posed frame has rotation R and head H:
 * p' = H + R (p - h), stored as the 12-float 3x4 layout. */
void sfi_bone_matrix(const double R[9], const double rest_head[3], const double posed_head[3], float out[12]);

/* Names a dense morph target and allocates its three delta streams (float3 per vertex). */
sf_result sfi_scene_target_alloc(sfi_scene_ctx* ctx, sf_morph_target_desc* target, const char* name, float** dp,
                                 float** dn, float** dt, sf_error* err);

#endif /* SF_SCENE_INTERNAL_H */

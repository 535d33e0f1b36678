/*
 * skinframe — normals and tangents of skinned and morphed meshes, every method and the reference.
 *
 * Overview
 *   A rest mesh (positions, normals, tangents, UVs, triangles, bone influences, morph targets) is
 *   turned once into a read-only sf_topology. Per frame, a pose (bind-corrected bone matrices and
 *   morph weights) deforms it: morph targets first, then linear blend skinning. sf_frames_compute
 *   produces the normals and tangents of one method (see SF_METHODS); the method `recompute` is the
 *   reference, rebuilt from the final triangles. sf_direction_errors and sf_angle_stats_compute
 *   measure a method against the reference.
 *
 * Example
 *   sf_topology* topo; sf_workspace* ws; sf_error err;
 *   if (sf_topology_create(&mesh, NULL, NULL, &topo, &err) != SF_OK) { puts(err.message); return 1; }
 *   sf_workspace_create(topo, &ws, &err);
 *   sf_frames_out out = { positions, normals, tangents };
 *   sf_frames_compute(topo, &pose, SF_METHOD_SKINNED, NULL, ws, &out, &err);
 *   sf_frames_out ref = { NULL, ref_normals, ref_tangents };
 *   sf_frames_compute(topo, &pose, SF_METHOD_RECOMPUTE, NULL, ws, &ref, &err);
 *   sf_direction_errors(topo, &out, &ref, normal_deg, tangent_deg, flags, &summary);
 *
 * Conventions
 *   - Bone matrices are 3x4 affine transforms with column vectors, p' = A p + t, stored as 12 floats
 *     column-major: A's columns (a0 a1 a2) then t, i.e. {A00,A10,A20, A01,A11,A21, A02,A12,A22, tx,ty,tz}.
 *     This is glTF's column-major 4x4 without its last row. They already include the inverse bind matrix.
 *   - float3 = 3 consecutive floats, float4 tangents are (x, y, z, w) with w = +-1 the handedness,
 *     float2 UVs are (u, v) as stored in the mesh (glTF convention: v grows downwards in the image).
 *   - Streams take a byte stride; 0 means tightly packed.
 *   - All functions are reentrant; the library keeps no mutable global state. An sf_topology is
 *     read-only once created and may be shared by threads; an sf_workspace belongs to one thread.
 *   - Memory: the caller owns every buffer passed in or out. Objects are allocated through the
 *     allocator in sf_env (NULL env = malloc/free, serial loops). sf_frames_compute never allocates.
 *
 * The header compiles as C11 and as C++.
 */
#ifndef SKINFRAME_H
#define SKINFRAME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- version */

#define SF_VERSION_MAJOR 0
#define SF_VERSION_MINOR 1
#define SF_VERSION_PATCH 0
#define SF_VERSION (SF_VERSION_MAJOR * 10000 + SF_VERSION_MINOR * 100 + SF_VERSION_PATCH)

/* ---------------------------------------------------------------- results and errors */

/* New codes go at the end: the numbers are printed. */
#define SF_RESULTS(X)                                                       \
    X(SF_OK, "ok")                                                          \
    X(SF_ERROR_INVALID_ARGUMENT, "invalid argument")                        \
    X(SF_ERROR_OUT_OF_MEMORY, "out of memory")                              \
    X(SF_ERROR_NOT_FINITE, "NaN or infinity in input")                      \
    X(SF_ERROR_INDEX_RANGE, "vertex index out of range")                    \
    X(SF_ERROR_JOINT_INDEX, "joint index out of range")                     \
    X(SF_ERROR_COUNT_MISMATCH, "counts do not match")                       \
    X(SF_ERROR_NEGATIVE_WEIGHT, "negative skinning weight")                 \
    X(SF_ERROR_ZERO_WEIGHTS, "skinning weights sum to zero")                \
    X(SF_ERROR_WEIGHT_SUM, "skinning weights do not sum to one")            \
    X(SF_ERROR_STRIDE, "stream stride too small or misaligned")             \
    X(SF_ERROR_MISSING_STREAM, "required stream missing")                   \
    X(SF_ERROR_UNKNOWN_NAME, "unknown name")                                \
    X(SF_ERROR_GLTF, "malformed glTF")                                      \
    X(SF_ERROR_IO, "file input/output failed")                              \
    X(SF_ERROR_UNSUPPORTED, "not supported in this build")

typedef enum sf_result {
#define SF_RESULT_ENUM_(code, text) code,
    SF_RESULTS(SF_RESULT_ENUM_)
#undef SF_RESULT_ENUM_
    SF_RESULT_COUNT
} sf_result;

/* Detail of a failure. Every call that can fail takes an optional sf_error* as its last argument. */
typedef struct sf_error {
    sf_result result;
    char field[64];    /* the offending input, e.g. "mesh.joints" or "accessors[7].count" */
    size_t index;      /* element index within field (vertex, triangle, ...), or SIZE_MAX */
    char message[256]; /* one line, names field and value: "mesh.joints[1234]: joint 97 >= bone_count 64" */
} sf_error;

/* A static description of a result code; never NULL. */
const char* sf_result_string(sf_result result);

/* ---------------------------------------------------------------- environment */

typedef struct sf_allocator {
    void* (*alloc)(void* user, size_t size, size_t align); /* NULL = out of memory */
    void (*free)(void* user, void* ptr, size_t size); /* size: as allocated, or 0 where not tracked */
    void* user;
} sf_allocator; /* all zero = malloc/free; set both functions or neither */

/* Runs fn over disjoint ranges covering [0, count), each at most grain long; returns when all are done. */
typedef void sf_range_fn(void* ctx, size_t begin, size_t end);
typedef struct sf_threads {
    void (*parallel_for)(void* user, size_t count, size_t grain, sf_range_fn* fn, void* ctx); /* NULL = serial */
    void* user;
} sf_threads;

typedef struct sf_env {
    sf_allocator allocator;
    sf_threads threads;
} sf_env; /* NULL env = defaults. Results are bit-identical for any thread count. */

/* ---------------------------------------------------------------- mesh */

typedef struct sf_stream {
    const float* data; /* NULL = absent */
    size_t stride;     /* bytes between elements; 0 = packed */
} sf_stream;

/* One morph target. Dense: deltas hold vertex_count elements. Sparse: sparse_indices holds
 * sparse_count strictly increasing vertex indices and the deltas hold sparse_count elements. */
typedef struct sf_morph_target_desc {
    const char* name;             /* may be NULL */
    const float* position_deltas; /* float3, required */
    const float* normal_deltas;   /* float3, NULL = none */
    const float* tangent_deltas;  /* float3 (xyz only, as glTF), NULL = none */
    const uint32_t* sparse_indices; /* NULL = dense */
    size_t sparse_count;
} sf_morph_target_desc;

/* Which way v runs in the texture image; it decides the sign of the tangent handedness w.
 * The bitangent cross(n, t) * w points along the normal map's +Y (green, "up" in the image). */
typedef enum sf_uv_convention {
    SF_UV_GLTF = 0, /* default: v grows downward in the image (glTF, D3D, Vulkan): +Y runs along -dP/dv */
    SF_UV_V_UP      /* v grows upward (OpenGL texture space; the article's formula as written): +Y along +dP/dv */
} sf_uv_convention;

/* What to do with a vertex whose weights do not sum to one (checked with tolerance 1e-3). */
typedef enum sf_weight_policy {
    SF_WEIGHTS_RENORMALIZE = 0, /* default: divide by the sum (over every influence set), count it */
    SF_WEIGHTS_STRICT           /* reject with SF_ERROR_WEIGHT_SUM naming the vertex */
} sf_weight_policy;

/* What to do with a vertex whose weights sum to zero. */
typedef enum sf_zero_weight_policy {
    SF_ZERO_WEIGHTS_REJECT = 0, /* default: SF_ERROR_ZERO_WEIGHTS naming the vertex */
    SF_ZERO_WEIGHTS_REST        /* the vertex stays where the morph puts it (identity transform), counted */
} sf_zero_weight_policy;

typedef struct sf_mesh_desc {
    size_t vertex_count;
    size_t triangle_count;
    const uint32_t* indices; /* 3 * triangle_count, counter-clockwise front faces */
    sf_stream positions;     /* float3, required */
    sf_stream normals;       /* float3, NULL = area-weighted normals rebuilt from the rest triangles */
    sf_stream tangents;      /* float4, NULL = UV tangents rebuilt from the rest triangles (needs uvs) */
    sf_stream uvs;           /* float2, NULL = no tangent frame: tangent outputs are zero, not measured */
    /* Skinning: influence_count (joint, weight) pairs per vertex, packed (all glTF JOINTS_n/WEIGHTS_n
     * sets concatenated). influence_count = 0 means not skinned (every vertex keeps its morphed rest). */
    uint32_t influence_count;
    const uint32_t* joints; /* influence_count * vertex_count, each < bone_count */
    const float* weights;   /* influence_count * vertex_count, >= 0 */
    size_t bone_count;
    sf_weight_policy weight_policy;
    sf_zero_weight_policy zero_weight_policy;
    const sf_morph_target_desc* targets;
    size_t target_count;
    sf_uv_convention uv_convention; /* default SF_UV_GLTF */
} sf_mesh_desc;

/* Per frame: bone matrices (12 floats each, see Conventions) and morph weights. */
typedef struct sf_pose {
    const float* bone_matrices; /* 12 * bone_count; may be NULL when the mesh is not skinned */
    size_t bone_count;          /* must equal the mesh's bone_count */
    const float* morph_weights; /* target_count; NULL = all zero */
    size_t morph_weight_count;  /* must equal target_count when morph_weights != NULL */
} sf_pose;

/* ---------------------------------------------------------------- topology */

/* Everything that depends only on the rest mesh: packed rest streams, normalised influences,
 * vertex -> face-corner adjacency (CSR), weld groups, gradients. Read-only once built. */
typedef struct sf_topology sf_topology;

typedef struct sf_topology_opts {
    int skip_gradients; /* 1 = do not precompute the `jacobian` gradients (saves memory); default 0 */
    float weld_normal_cos; /* weld groups: rest normals within this cosine count as equal; in [-1, 1], 0 = 0.9999 */
} sf_topology_opts;

/* What topology creation found and fixed in the input (reported, never silent). */
typedef struct sf_topology_stats {
    size_t vertex_count, triangle_count, target_count, bone_count;
    uint32_t influence_count;            /* slots per vertex after merging */
    size_t renormalized_vertices;        /* weight sum differed from 1 by more than 1e-3 */
    size_t zero_weight_vertices;         /* kept at rest under SF_ZERO_WEIGHTS_REST */
    size_t merged_duplicate_joints;      /* (vertex, joint) pairs that appeared twice */
    size_t degenerate_triangles;         /* zero rest area */
    size_t degenerate_uv_triangles;      /* |UV determinant| <= 1e-12 */
    size_t isolated_vertices;            /* in no triangle */
    size_t generated_normals, generated_tangents; /* 1 when the stream was rebuilt, else 0 */
    size_t weld_groups;                  /* groups of more than one vertex sharing a recomputed normal (position+normal) */
    size_t gradient_bytes;               /* memory the jacobian gradients take */
    size_t topology_bytes;               /* total memory held by the topology */
    size_t dropped_gradient_slots;       /* jacobian weight-gradient slots beyond 16 per vertex (smallest dropped) */
    size_t weld_position_groups;         /* groups of more than one vertex under SF_WELD_POSITION */
    size_t nonmanifold_edges;            /* position edges shared by more than two triangles */
    size_t duplicate_triangles;          /* triangles with the same three positions as an earlier one */
} sf_topology_stats;

sf_result sf_topology_create(const sf_mesh_desc* mesh, const sf_topology_opts* opts /* NULL = defaults */,
                             const sf_env* env /* NULL = defaults; copied */, sf_topology** out, sf_error* err);
void sf_topology_destroy(sf_topology* topo);
void sf_topology_get_stats(const sf_topology* topo, sf_topology_stats* out);
size_t sf_topology_vertex_count(const sf_topology* topo);
size_t sf_topology_triangle_count(const sf_topology* topo);
int sf_topology_has_tangent_frame(const sf_topology* topo); /* 1 when UVs exist, tangents are measured */
/* Packed rest streams as the topology holds them (after generation): float3, float3, float4, float2 or NULL. */
const float* sf_topology_rest_positions(const sf_topology* topo);
const float* sf_topology_rest_normals(const sf_topology* topo);
const float* sf_topology_rest_tangents(const sf_topology* topo);
const float* sf_topology_uvs(const sf_topology* topo);
const uint32_t* sf_topology_indices(const sf_topology* topo);

/* Per-thread scratch for sf_deform and sf_frames_compute. */
typedef struct sf_workspace sf_workspace;
sf_result sf_workspace_create(const sf_topology* topo, sf_workspace** out, sf_error* err);
void sf_workspace_destroy(sf_workspace* ws);

/* Checks a pose against the topology (counts, NaN/Inf in matrices or weights). Every entry point calls it. */
sf_result sf_pose_validate(const sf_topology* topo, const sf_pose* pose, sf_error* err);

/* ---------------------------------------------------------------- methods */

/* id, CLI name, one-line description. The order is the order of every table. */
#define SF_METHODS(X)                                                                                  \
    X(SF_METHOD_UNCHANGED, "unchanged", "LBS positions only; rest (or morphed) directions")            \
    X(SF_METHOD_SKINNED, "skinned", "directions skinned with the bone matrices, normalised")           \
    X(SF_METHOD_INVERSE_TRANSPOSE, "inverse-transpose", "normal by the inverse transpose of the blend") \
    X(SF_METHOD_JACOBIAN, "jacobian", "analytic Jacobian with weight and morph gradients")             \
    X(SF_METHOD_RECOMPUTE, "recompute", "rebuilt from the final triangles (the reference)")

typedef enum sf_method {
#define SF_METHOD_ENUM_(id, name, text) id,
    SF_METHODS(SF_METHOD_ENUM_)
#undef SF_METHOD_ENUM_
    SF_METHOD_COUNT
} sf_method;

const char* sf_method_name(sf_method method);        /* "skinned"; "?" when out of range */
const char* sf_method_description(sf_method method); /* one line */
sf_result sf_method_parse(const char* name, sf_method* out);

/* Morph directions (the article's steps 3 and 4). */
typedef enum sf_morph_directions {
    SF_MORPH_DIRECTIONS_DELTAS = 0, /* default: add the targets' normal/tangent deltas before skinning */
    SF_MORPH_DIRECTIONS_NONE        /* position deltas only; directions stay at rest */
} sf_morph_directions;

/* How face contributions are averaged at a vertex by `recompute`. */
typedef enum sf_weighting {
    SF_WEIGHTING_AREA = 0, /* default: unnormalised face normals (the article) */
    SF_WEIGHTING_ANGLE,    /* unit face normal times the corner angle */
    SF_WEIGHTING_UNIFORM   /* unit face normals, equal weights (the article's tip demo) */
} sf_weighting;

/* Which vertices share one recomputed frame. */
typedef enum sf_weld {
    SF_WELD_NONE = 0,        /* default: every vertex index on its own (the article) */
    SF_WELD_POSITION,        /* same rest position */
    SF_WELD_POSITION_NORMAL  /* same rest position and rest normal: UV seams welded, hard edges kept */
} sf_weld;

typedef enum sf_tangent_mode {
    SF_TANGENTS_UV = 0,    /* default: the article's area-weighted UV tangent */
    SF_TANGENTS_MIKKTSPACE /* MikkTSpace-compatible */
} sf_tangent_mode;

/* What `recompute` (the reference) returns. */
typedef enum sf_reference {
    SF_REFERENCE_REBUILT = 0, /* default: directions rebuilt from the final triangles */
    SF_REFERENCE_AUTHORED     /* the mesh's own rest normals/tangents, carried per vertex by the rotation
                                 that takes the rebuilt rest frame to the rebuilt posed frame (both rebuilt
                                 with the weighting/weld/tangents options; without UVs an edge direction
                                 stands in for the tangent). See src/authored.c.
                                 Respects custom normals (toon shading, baked hard-surface normals). */
} sf_reference;

typedef struct sf_frames_opts {
    sf_morph_directions morph_directions;
    sf_weighting weighting; /* recompute only */
    sf_weld weld;           /* recompute only */
    sf_tangent_mode tangents; /* recompute only */
    float jacobian_cap;     /* jacobian only: cap on |correction| relative to |blend| (Tarini et al.); 0 = none */
    sf_reference reference; /* recompute only: rebuilt (default) or authored directions carried along */
} sf_frames_opts; /* zero = defaults */

typedef struct sf_frames_out {
    float* positions; /* float3 * vertex_count final positions, may be NULL */
    float* normals;   /* float3 * vertex_count unit normals (zero where degenerate), may be NULL */
    float* tangents;  /* float4 * vertex_count unit tangent xyz + handedness w, may be NULL */
} sf_frames_out;

/* Deforms the mesh by the pose and computes one method's frames. Does not allocate. */
sf_result sf_frames_compute(const sf_topology* topo, const sf_pose* pose, sf_method method,
                            const sf_frames_opts* opts, sf_workspace* ws, const sf_frames_out* out, sf_error* err);

/* Final positions only (morph, then linear blend skinning). out: float3 * vertex_count. */
sf_result sf_deform_positions(const sf_topology* topo, const sf_pose* pose, sf_workspace* ws, float* out, sf_error* err);

/* What the last sf_frames_compute on this workspace found (counters, not errors). */
typedef struct sf_frames_report {
    size_t mirrored_vertices;   /* blended matrix with negative determinant: handedness flipped */
    size_t singular_vertices;   /* |det| < 1e-12: inverse-transpose returned zero */
    size_t degenerate_normals;  /* zero normal in the output */
    size_t degenerate_tangents; /* zero tangent in the output (with a tangent frame) */
    size_t jacobian_capped;     /* jacobian corrections limited by jacobian_cap */
} sf_frames_report;
void sf_workspace_last_report(const sf_workspace* ws, sf_frames_report* out);

/* ---------------------------------------------------------------- error metrics */

/* Statistics of a set of angles in degrees. Percentiles interpolate linearly between order statistics
 * (position q * (count - 1)). Shares are fractions in [0, 1]. All zero when count == 0. */
typedef struct sf_angle_stats {
    size_t count;
    double mean, rms, p50, p95, max;
    double over_1, over_5, over_45;
} sf_angle_stats;

/* Per-vertex flags written by sf_direction_errors. */
enum {
    SF_VERTEX_DEGENERATE_NORMAL = 1,  /* zero normal on either side (counted as 180 degrees) */
    SF_VERTEX_DEGENERATE_TANGENT = 2, /* zero tangent on either side (counted as 180 degrees) */
    SF_VERTEX_HANDEDNESS = 4          /* tangent w differs */
};

typedef struct sf_error_summary {
    sf_angle_stats normal, tangent;   /* tangent.count = 0 when the mesh has no tangent frame */
    size_t handedness_mismatches;
    size_t degenerate_normals, degenerate_tangents;
    size_t degenerate;                /* vertices with any degenerate direction */
    size_t worst_normal_vertex, worst_tangent_vertex;
} sf_error_summary;

/* Angle in degrees between two directions: acos of the clamped dot of the unit vectors; 180 when either is zero. */
double sf_angle_deg(const float a[3], const float b[3]);

/* Per-vertex angles of `method` against `reference` (float3 normals, float4 tangents as in sf_frames_out).
 * normal_deg/tangent_deg/flags: vertex_count each, may be NULL. summary may be NULL.
 * Allocates scratch for percentiles through the topology's allocator. */
sf_result sf_direction_errors(const sf_topology* topo, const sf_frames_out* method, const sf_frames_out* reference,
                              float* normal_deg, float* tangent_deg, uint8_t* flags, sf_error_summary* summary,
                              sf_error* err);

/* Statistics of angles[count]. scratch: count floats (sorted copy), or NULL to allocate with env. */
sf_result sf_angle_stats_compute(const float* angles_deg, size_t count, float* scratch, const sf_env* env,
                                 sf_angle_stats* out, sf_error* err);

/* Heatmap colour: 0 degrees green, 22.5 yellow, >= 45 red. rgb in [0, 1]. */
void sf_heatmap_color(double angle_deg, float rgb[3]);

/* ---------------------------------------------------------------- built-in scenes */

typedef struct sf_scene_param_info {
    const char* name;
    double default_value, min_value, max_value;
    const char* unit;        /* "deg", "x", "quads", ... */
    const char* description;
} sf_scene_param_info;

typedef struct sf_scene_preset_info {
    const char* name;
    const char* description;
    const char* settings;    /* "twist=90" style list the preset applies, comma separated */
} sf_scene_preset_info;

typedef struct sf_scene_info {
    const char* name;
    const char* description;
    const sf_scene_param_info* params; size_t param_count;
    const sf_scene_preset_info* presets; size_t preset_count;
    const char* const* targets; size_t target_count; /* morph target names */
    sf_weighting reference_weighting; /* the article's reference weighting for this scene */
} sf_scene_info;

size_t sf_scene_count(void);
const sf_scene_info* sf_scene_info_at(size_t index);
const sf_scene_info* sf_scene_info_find(const char* name); /* NULL when unknown */

/* A name = value setting: a parameter or a morph target weight (in [-2, 2]). "resolution" (grid
 * density, a whole number) is listed among the params of every grid scene; the tip has none. */
typedef struct sf_scene_setting {
    const char* name;
    double value;
} sf_scene_setting;

/* A built scene: a mesh, a pose, and drawing hints. Everything is owned by the scene. */
typedef struct sf_scene {
    const sf_scene_info* info;
    sf_mesh_desc mesh;
    sf_pose pose;
    sf_weighting reference_weighting;
    size_t param_count;
    const char* const* param_names; /* param_count, scene params then morph weights, resolved values */
    const double* param_values;
    /* Rig drawing: posed joints as line segments head -> tail (float3 each), bone_count of them. */
    const float* bone_heads;
    const float* bone_tails;
    /* Camera hint: look-at target (float3) and a distance that frames the mesh. */
    float center[3];
    float radius;
} sf_scene;

/* Builds scene `name` with `preset` (NULL or "" = rest) and then the settings, in order.
 * Unknown names give SF_ERROR_UNKNOWN_NAME naming them; values outside [min, max] (or a fractional
 * resolution) SF_ERROR_INVALID_ARGUMENT; NaN or infinity SF_ERROR_NOT_FINITE. err.index is the setting's
 * index. The scene's rest normals and tangents equal the reference's at rest (zero error at rest). */
sf_result sf_scene_create(const char* name, const char* preset, const sf_scene_setting* settings,
                          size_t setting_count, const sf_env* env, sf_scene** out, sf_error* err);
void sf_scene_destroy(sf_scene* scene);

/* ---------------------------------------------------------------- glTF (src/gltf.c, src/anim.c) */
/*
 * Reading. sf_gltf_load_file / sf_gltf_load_memory parse glTF 2.0: .gltf with external .bin files or
 * base64 data: URIs, and .glb. Every index, offset, stride and count is validated with overflow-safe
 * arithmetic before it is used; a malformed file gives SF_ERROR_GLTF with err->field set to the JSON path
 * of the culprit ("accessors[7].count", "meshes[0].primitives[1].indices") and a one-line message.
 * Supported: every component type, normalized integers, byteStride, sparse accessors, KHR_mesh_quantization,
 * TRIANGLES / TRIANGLE_STRIP / TRIANGLE_FAN (strips and fans become triangles; POINTS and LINES primitives
 * are skipped and counted in skipped_primitives), any number of JOINTS_n/WEIGHTS_n sets, morph targets with
 * POSITION/NORMAL/TANGENT deltas, node hierarchies (TRS or matrix), skins, animations, several scenes.
 * Other extensions listed in extensionsRequired that change geometry (Draco, meshopt) are refused.
 * Files: an external URI is percent-decoded and resolved against the glTF's folder. Absolute paths, URIs
 * with a scheme other than data:, and relative paths whose ".." segments leave the folder are refused
 * (SF_ERROR_GLTF naming buffers[i].uri) unless opts.allow_outside_files is set.
 * Missing NORMAL: flat normals, as the glTF spec requires: the primitive's vertices are split per triangle
 * corner and each gets its face normal (flat_normals = 1, source_vertex maps back). Missing TANGENT with
 * UVs: see sf_gltf_opts.generated_tangents (UV tangents by the topology, or MikkTSpace at load).
 * The loaded sf_gltf is read-only; every pointer in it lives until sf_gltf_destroy. Thread-safe to read.
 *
 * Posing. sf_gltf_pose holds every node's local transform, global transform and morph weights. For an
 * instance (a node drawing a mesh) sf_gltf_pose_instance gives the sf_pose inputs:
 *   skinned:  bone_j = inverse(global(mesh node)) * global(joint_j) * inverseBindMatrix_j   (glTF: the
 *             skinned mesh node's own transform does not move the vertices; the result is in mesh-node space,
 *             and to_world = global(mesh node) takes it to the scene, so world = global(joint_j) * IBM_j)
 *   rigid:    one bone = inverse(rest global(node)) * global(node): the node's motion since its rest pose,
 *             in its rest frame (meshes moved by node animation, every vertex weight 1 on bone 0); to_world =
 *             the rest global. The rest pose is the identity, and every method but `unchanged` is exact.
 *   A singular mesh-node transform (scaled to zero) makes either case fall back to world space (to_world =
 *   identity) instead of failing.
 * Morph weights: mesh.weights, overridden by node.weights, overridden by the animation's weights channel.
 */

#define SF_GLTF_NONE ((size_t)-1) /* absent index (no parent, no mesh, no skin, rest pose) */

typedef struct sf_gltf_opts {
    uint32_t texcoord;       /* TEXCOORD_n used for mesh.uvs and tangents; default 0 */
    int allow_outside_files; /* 1 = read URIs outside the glTF's folder (absolute or ".."); default 0 */
    size_t max_file_bytes;   /* refuse larger files (glTF, glb and each .bin); 0 = 1 GiB */
    /* Missing TANGENT with UVs: SF_TANGENTS_UV (default) leaves mesh.tangents NULL so that the topology builds
     * the article's UV tangents; SF_TANGENTS_MIKKTSPACE computes MikkTSpace tangents at load from the
     * positions, the (authored or flat) normals and the UVs, as the glTF spec recommends. */
    sf_tangent_mode generated_tangents;
} sf_gltf_opts;

typedef enum sf_gltf_tangent_source {
    SF_GLTF_TANGENTS_NONE = 0,     /* no UVs: no tangent frame */
    SF_GLTF_TANGENTS_SUPPLIED,     /* the TANGENT attribute */
    SF_GLTF_TANGENTS_GENERATED_UV, /* no TANGENT: mesh.tangents is NULL, the topology builds UV tangents */
    SF_GLTF_TANGENTS_GENERATED_MIKKTSPACE /* no TANGENT: MikkTSpace tangents computed at load (in mesh.tangents) */
} sf_gltf_tangent_source;

typedef struct sf_gltf_primitive {
    /* Ready for sf_topology_create once sf_gltf_instance_mesh has set the skinning fields for an instance.
     * joints/weights: every JOINTS_n/WEIGHTS_n set concatenated per vertex (influence_count = 4 * sets),
     * values as stored (bone_count 0 here). targets: deltas as floats; a sparse accessor without a
     * bufferView stays sparse (sparse_indices), others are dense. */
    sf_mesh_desc mesh;
    size_t mesh_index, primitive_index; /* meshes[mesh_index].primitives[primitive_index] */
    uint32_t mode;                      /* glTF mode as stored: 4 triangles, 5 strip, 6 fan */
    size_t source_vertex_count;         /* the POSITION accessor's count */
    int flat_normals;                   /* 1: no NORMAL, vertices split per corner with the face normal */
    const uint32_t* source_vertex;      /* vertex_count: the POSITION index each vertex came from */
    sf_gltf_tangent_source tangents;
    uint32_t texcoord;                  /* the TEXCOORD_n in mesh.uvs (when texcoord_sets > texcoord) */
    uint32_t texcoord_sets, joint_sets, color_sets;
    int target_normals, target_tangents; /* 1 when some target has NORMAL / TANGENT deltas */
    uint32_t max_joint;                 /* largest joint index with a non-zero weight (0 when none) */
    const char* attributes;             /* "POSITION:VEC3/f32 NORMAL:VEC3/i8n ..." for reports */
    const char* target_attributes;      /* "POSITION NORMAL" (union over targets), "" when none */
} sf_gltf_primitive;

typedef struct sf_gltf_mesh {
    const char* name;                /* "" when unnamed */
    size_t first_primitive, primitive_count; /* into sf_gltf.primitives (skipped points/lines excluded) */
    size_t target_count;             /* morph targets of every primitive */
    const float* weights;            /* target_count default weights: mesh.weights, zeros when absent */
    const char* const* target_names; /* target_count: extras.targetNames, "" when absent */
} sf_gltf_mesh;

typedef struct sf_gltf_node {
    const char* name;      /* "" when unnamed */
    size_t parent;         /* SF_GLTF_NONE for a root */
    size_t mesh, skin;     /* SF_GLTF_NONE when absent */
    int has_matrix;        /* 1: matrix holds the local transform; else T * R * S */
    float matrix[16];      /* column-major local matrix (filled from TRS when has_matrix == 0) */
    float translation[3], rotation[4], scale[3]; /* rotation quaternion x, y, z, w */
    const float* weights;  /* node.weights (weight_count of them) or NULL */
    size_t weight_count;
} sf_gltf_node;

typedef struct sf_gltf_skin {
    const char* name;
    size_t joint_count;
    const size_t* joints;                /* node indices */
    const float* inverse_bind_matrices;  /* 16 * joint_count column-major (identity when absent) */
    size_t skeleton;                     /* SF_GLTF_NONE when absent */
} sf_gltf_skin;

typedef enum sf_gltf_path { SF_GLTF_TRANSLATION = 0, SF_GLTF_ROTATION, SF_GLTF_SCALE, SF_GLTF_WEIGHTS } sf_gltf_path;
typedef enum sf_gltf_interpolation { SF_GLTF_LINEAR = 0, SF_GLTF_STEP, SF_GLTF_CUBICSPLINE } sf_gltf_interpolation;

typedef struct sf_gltf_channel {
    size_t node;
    sf_gltf_path path;
    sf_gltf_interpolation interpolation;
    size_t key_count;
    const float* times;  /* key_count seconds, increasing */
    const float* values; /* key_count * components; CUBICSPLINE: 3 * key_count * components laid out
                            per key as (in-tangent, value, out-tangent), as glTF stores them */
    size_t components;   /* 3 translation/scale, 4 rotation (x y z w), target count for weights */
} sf_gltf_channel;

typedef struct sf_gltf_animation {
    const char* name;                /* "" when unnamed */
    size_t channel_count;
    const sf_gltf_channel* channels;
    double start_s, end_s;           /* first and last key time over every channel */
} sf_gltf_animation;

/* A node that draws a mesh in the active scene (scene, else scenes[0], else every node with a mesh). */
typedef struct sf_gltf_instance {
    size_t node, mesh;
    size_t skin;       /* SF_GLTF_NONE: rigid, one bone (the node's motion since rest, see Posing) */
    size_t bone_count; /* the skin's joint count, or 1 */
} sf_gltf_instance;

typedef struct sf_gltf {
    size_t node_count, mesh_count, primitive_count, skin_count, animation_count, instance_count;
    const sf_gltf_node* nodes;
    const sf_gltf_mesh* meshes;
    const sf_gltf_primitive* primitives;
    const sf_gltf_skin* skins;
    const sf_gltf_animation* animations;
    const sf_gltf_instance* instances;
    size_t scene_count;
    size_t scene;                 /* active scene, SF_GLTF_NONE when there are none */
    size_t skipped_primitives;    /* POINTS / LINES / LINE_* primitives left out (a warning) */
    const char* generator;        /* asset.generator, "" when absent */
    const char* extensions_required; /* space separated, "" when none */
    struct sfi_gltf_data* internal;
} sf_gltf;

/* Loads a .gltf or .glb file (detected by content). External files are resolved against its folder. */
sf_result sf_gltf_load_file(const char* path, const sf_gltf_opts* opts /* NULL = defaults */,
                            const sf_env* env /* NULL = defaults; copied */, sf_gltf** out, sf_error* err);
/* Loads from memory (bytes are copied as needed; the caller keeps them). base_dir: folder for external
 * URIs, NULL = refuse external files (data: URIs and the glb BIN chunk still work). */
sf_result sf_gltf_load_memory(const void* data, size_t size, const char* base_dir, const sf_gltf_opts* opts,
                              const sf_env* env, sf_gltf** out, sf_error* err);
void sf_gltf_destroy(sf_gltf* gltf);

/* The mesh description of one primitive of an instance: the primitive's mesh with the skinning fields set
 * (skinned: its JOINTS/WEIGHTS and bone_count = the skin's joint count; rigid: one influence of weight 1
 * on bone 0, bone_count 1). Pointers stay owned by gltf. Fails when a joint index >= the skin's joints. */
sf_result sf_gltf_instance_mesh(const sf_gltf* gltf, size_t instance, size_t primitive, sf_mesh_desc* out,
                                sf_error* err);

/* Samples one channel at time_s (clamped to the key range). out: channel->components floats; rotations
 * are unit quaternions (LINEAR: shortest-path slerp; CUBICSPLINE: Hermite, then normalised). */
void sf_gltf_channel_sample(const sf_gltf_channel* channel, double time_s, float* out);

/* Per-node transforms and morph weights for one moment of one animation. Allocates only at creation. */
typedef struct sf_gltf_pose sf_gltf_pose;
sf_result sf_gltf_pose_create(const sf_gltf* gltf, const sf_env* env, sf_gltf_pose** out, sf_error* err);
void sf_gltf_pose_destroy(sf_gltf_pose* pose);
/* Resets every node to its rest transform and weights, applies `animation` at time_s (SF_GLTF_NONE: rest
 * only) and updates the global transforms. */
sf_result sf_gltf_pose_sample(sf_gltf_pose* pose, size_t animation, double time_s, sf_error* err);
/* Overrides one node's local transform (rotation x y z w); call sf_gltf_pose_update afterwards. */
sf_result sf_gltf_pose_set_local(sf_gltf_pose* pose, size_t node, const float translation[3],
                                 const float rotation[4], const float scale[3], sf_error* err);
void sf_gltf_pose_update(sf_gltf_pose* pose);
/* Global transform of a node (16 floats, column-major) as of the last sample/update. */
const float* sf_gltf_pose_global(const sf_gltf_pose* pose, size_t node);
/* The sf_pose inputs of an instance (see Posing above). bone_matrices: 12 * bone_count (3x4 layout of this
 * header); morph_weights: the mesh's target_count, may be NULL; to_world: 16 floats or NULL. */
sf_result sf_gltf_pose_instance(const sf_gltf_pose* pose, size_t instance, float* bone_matrices,
                                float* morph_weights, float* to_world, sf_error* err);

/* Data problems of a primitive as authored, reported apart from method error (src/gltf_check.c).
 * id, name, description; counts are vertices, triangles or targets as the description says. */
#define SF_GLTF_PROBLEMS(X)                                                                                        \
    X(SF_GLTF_PROBLEM_WEIGHT_SUM, "weights-not-one", "vertices whose weights do not sum to one (|sum - 1| > 1e-3)") \
    X(SF_GLTF_PROBLEM_ZERO_WEIGHTS, "weights-zero", "vertices whose weights sum to zero")                        \
    X(SF_GLTF_PROBLEM_INFLUENCES, "too-many-influences", "vertices with more non-zero weights than the limit")   \
    X(SF_GLTF_PROBLEM_NORMAL_LENGTH, "non-unit-normal", "authored normals whose length is not 1 (> 1e-3 off)")   \
    X(SF_GLTF_PROBLEM_TANGENT_W, "tangent-w", "authored tangents whose w is not +1 or -1")                        \
    X(SF_GLTF_PROBLEM_TANGENT_ZERO, "zero-tangent", "authored tangents of zero length")                           \
    X(SF_GLTF_PROBLEM_MORPH_ZERO_NORMALS, "morph-normals-zero",                                                   \
      "targets that move vertices but whose NORMAL deltas are all zero")                                          \
    X(SF_GLTF_PROBLEM_MORPH_NORMAL_STILL, "morph-normal-on-still-vertex",                                         \
      "(target, vertex) pairs with a normal delta but no position delta")                                         \
    X(SF_GLTF_PROBLEM_DEGENERATE_TRIANGLE, "degenerate-triangle", "triangles of zero area at rest")               \
    X(SF_GLTF_PROBLEM_DEGENERATE_UV, "zero-uv-area", "triangles of zero UV area (|det| <= 1e-12)")

typedef enum sf_gltf_problem {
#define SF_GLTF_PROBLEM_ENUM_(id, name, text) id,
    SF_GLTF_PROBLEMS(SF_GLTF_PROBLEM_ENUM_)
#undef SF_GLTF_PROBLEM_ENUM_
    SF_GLTF_PROBLEM_COUNT
} sf_gltf_problem;

const char* sf_gltf_problem_name(sf_gltf_problem problem);        /* "weights-zero"; "?" out of range */
const char* sf_gltf_problem_description(sf_gltf_problem problem); /* one line */

typedef struct sf_gltf_problem_stat {
    size_t count;       /* how many (see the description) */
    size_t worst_index; /* the worst example: vertex, triangle or target index (SIZE_MAX when count = 0) */
    double worst_value; /* its measure: |sum - 1|, weight count, |len - 1|, ||w| - 1|, area, ... */
} sf_gltf_problem_stat;

typedef struct sf_gltf_inspection {
    sf_gltf_problem_stat problems[SF_GLTF_PROBLEM_COUNT];
    size_t unique_positions;    /* distinct rest positions (exact) */
    size_t uv_seam_positions;   /* positions shared by vertices with different UVs */
    size_t hard_edge_positions; /* positions shared by vertices with different authored normals (cos < 0.9999);
                                   0 for flat (generated) normals */
    uint32_t max_influences;    /* most non-zero weights on one vertex */
    size_t influence_histogram[17]; /* [k] vertices with k non-zero weights (16 = 16 or more) */
    size_t sparse_targets;      /* targets kept sparse */
} sf_gltf_inspection;

/* Inspects primitive (index into gltf->primitives) for the problems above, UV seams and hard edges.
 * influence_limit: the engine limit for SF_GLTF_PROBLEM_INFLUENCES (0 = 4). Allocates scratch through env. */
sf_result sf_gltf_primitive_inspect(const sf_gltf* gltf, size_t primitive, uint32_t influence_limit,
                                    const sf_env* env, sf_gltf_inspection* out, sf_error* err);

/* Writing: a static or animated glTF as one .glb, general enough for bakes and synthetic test assets. */
typedef struct sf_gltf_write_mesh {
    const char* name;         /* may be NULL */
    sf_mesh_desc mesh;        /* positions required; normals, tangents, uvs, indices optional (indices NULL:
                                 non-indexed, triangle_count * 3 == vertex_count); influence_count must be a
                                 multiple of 4 (JOINTS_n/WEIGHTS_n sets, joints written as u16); targets with
                                 sparse_indices become sparse accessors */
    const float* colors;      /* float4 COLOR_0 per vertex, or NULL */
    const float* weights;     /* target_count default morph weights, or NULL */
} sf_gltf_write_mesh;

typedef struct sf_gltf_write_node {
    const char* name;         /* may be NULL */
    size_t parent;            /* SF_GLTF_NONE = a root of the scene; parents must come before children */
    size_t mesh, skin;        /* SF_GLTF_NONE when absent */
    const float* matrix;      /* 16 column-major, or NULL to use TRS */
    float translation[3], rotation[4], scale[3]; /* used when matrix is NULL; all-zero rotation and scale
                                                    mean identity */
} sf_gltf_write_node;

typedef struct sf_gltf_write_skin {
    size_t joint_count;
    const size_t* joints;                /* node indices */
    const float* inverse_bind_matrices;  /* 16 * joint_count, or NULL (identity) */
} sf_gltf_write_skin;

typedef struct sf_gltf_write_animation {
    const char* name;
    const sf_gltf_channel* channels;     /* node, path, interpolation, keys as in sf_gltf_channel */
    size_t channel_count;
} sf_gltf_write_animation;

typedef struct sf_gltf_write_desc {
    const sf_gltf_write_mesh* meshes; size_t mesh_count;
    const sf_gltf_write_node* nodes; size_t node_count;
    const sf_gltf_write_skin* skins; size_t skin_count;
    const sf_gltf_write_animation* animations; size_t animation_count;
    const char* generator;               /* NULL = "skinframe" */
} sf_gltf_write_desc;

/* Encodes desc as a .glb in memory, allocated with env's allocator: free with sf_gltf_free_bytes. */
sf_result sf_gltf_write_glb(const sf_gltf_write_desc* desc, const sf_env* env, void** out_data, size_t* out_size,
                            sf_error* err);
void sf_gltf_free_bytes(const sf_env* env, void* data, size_t size);
/* Writes desc as a .glb file atomically (temp file in the same folder, then rename). Refuses (SF_ERROR_IO)
 * when path resolves to the same file as protect_path (the input; may be NULL). */
sf_result sf_gltf_save_glb(const sf_gltf_write_desc* desc, const char* path, const char* protect_path,
                           const sf_env* env, sf_error* err);

/* ---------------------------------------------------------------- rendering (src/raster.c) */
/* A small deterministic software renderer for the article's four-view pictures and for plots.
 * Everything is serial and single-threaded: the same input gives the same bytes. Functions take
 * plain caller arrays (not sf_scene), so glTF meshes render the same way as built-in scenes. */

/* An 8-bit RGB image, rows top to bottom, 3 * width bytes per row. */
typedef struct sf_image {
    int width, height;
    uint8_t* rgb;
} sf_image;

/* Allocates width * height pixels (filled black) through env's allocator; free with sf_image_free and the same env. */
sf_result sf_image_alloc(int width, int height, const sf_env* env, sf_image* out, sf_error* err);
void sf_image_free(sf_image* image, const sf_env* env);
/* Fills the rectangle (clipped to the image). */
void sf_image_fill_rect(sf_image* image, int x, int y, int width, int height, const uint8_t rgb[3]);
/* Blends rgb over pixel (x, y) with coverage in [0, 1]; outside the image does nothing. */
void sf_image_blend_pixel(sf_image* image, int x, int y, const uint8_t rgb[3], float coverage);
/* Anti-aliased line of width_px between pixel coordinates (pixel centres at +0.5). */
void sf_image_draw_line(sf_image* image, float x0, float y0, float x1, float y1, float width_px, const uint8_t rgb[3]);
/* Anti-aliased filled disc. */
void sf_image_draw_disc(sf_image* image, float cx, float cy, float radius_px, const uint8_t rgb[3]);
/* Built-in 5x7 bitmap font (ASCII 32..126 and the UTF-8 degree sign), each pixel a scale x scale block,
 * 6 * scale advance per character. (x, y) is the top-left corner. Returns the width drawn. */
int sf_image_draw_text(sf_image* image, int x, int y, int scale, const uint8_t rgb[3], const char* text);
int sf_text_width(const char* text, int scale);  /* 6 * scale per character, less the last gap */
int sf_text_height(int scale);                   /* 7 * scale */
/* Copies src into dst at (x, y), shrunk by an integer factor >= 1 (box filter); clipped to dst. */
void sf_image_blit(sf_image* dst, int x, int y, const sf_image* src, int factor);
/* PNG bytes (stb_image_write, deterministic). *data is allocated with env's allocator: free with
 * sf_png_free(env, *data, *size). */
sf_result sf_image_encode_png(const sf_image* image, const sf_env* env, uint8_t** data, size_t* size, sf_error* err);
void sf_png_free(const sf_env* env, uint8_t* data, size_t size);
/* Writes a PNG atomically (temporary file in the same folder, then rename). */
sf_result sf_image_write_png(const sf_image* image, const char* path, const sf_env* env, sf_error* err);

/* An orbit camera around a target, +Y up. yaw turns around +Y (0 = camera on the +Z side looking
 * towards -Z, 90 = camera on +X), pitch raises it above the XZ plane. */
typedef struct sf_camera {
    float target[3];
    float yaw_deg, pitch_deg;
    float distance;  /* > 0 */
    float fov_y_deg; /* 0 = 35 */
} sf_camera;

/* A camera framing a sphere (center, radius) from yaw -35, pitch 30. */
sf_camera sf_camera_frame(const float center[3], float radius);
/* Keeps yaw, pitch and fov; moves the target to the points' bounding-box centre and sets the distance
 * so every point projects inside `fill` (0 = 0.9) of the view in both directions at this aspect. */
void sf_camera_fit(sf_camera* cam, const float* positions, size_t count, float aspect, float fill);
/* Column-major 4x4 clip_from_world (column vectors, OpenGL clip space: visible x, y, z in [-w, w]). */
void sf_camera_matrix(const sf_camera* cam, float aspect, float clip_from_world[16]);
void sf_camera_position(const sf_camera* cam, float out[3]);
/* The renderer's fixed light for this camera: a unit vector towards a light above, left and behind the viewer. */
void sf_camera_light_dir(const sf_camera* cam, float out[3]);

/* Where a render goes: a rectangle of an image with its own depth buffer. */
typedef struct sf_viewport {
    sf_image* image;
    float* depth;                /* width * height floats, caller scratch; sf_viewport_clear resets it */
    int x, y, width, height;     /* inside image */
    float clip_from_world[16];   /* NDC (-1,-1) is the rectangle's bottom-left corner, (1,1) top-right */
} sf_viewport;

/* Fills the rectangle with rgb and empties the depth buffer. */
void sf_viewport_clear(const sf_viewport* vp, const uint8_t rgb[3]);
/* World point to viewport pixel coordinates (x right, y down, pixel centres at +0.5) and 1/w;
 * returns 0 when the point is behind the near plane. */
int sf_viewport_project(const sf_viewport* vp, const float p[3], float out_xy_invw[3]);

/* How a surface is shaded. */
#define SF_MATERIALS(X)                                                                              \
    X(SF_MATERIAL_LAMBERT, "lambert", "per-pixel Lambert with the interpolated vertex normals")      \
    X(SF_MATERIAL_FLAT, "flat", "Lambert with each triangle's own normal (facets, ignores vertex normals)") \
    X(SF_MATERIAL_NORMAL_MAP, "normal-map", "Lambert with a procedural normal map through the tangent frame") \
    X(SF_MATERIAL_NORMALS, "normals", "the interpolated normal as a colour (0.5 + 0.5 n)")          \
    X(SF_MATERIAL_UNLIT, "unlit", "the vertex colours as they are")

typedef enum sf_material {
#define SF_MATERIAL_ENUM_(id, name, text) id,
    SF_MATERIALS(SF_MATERIAL_ENUM_)
#undef SF_MATERIAL_ENUM_
    SF_MATERIAL_COUNT
} sf_material;

const char* sf_material_name(sf_material material); /* "?" when out of range */
sf_result sf_material_parse(const char* name, sf_material* out);

/* Procedural tangent-space normal maps (src/normalmap.c). */
typedef enum sf_normalmap_kind {
    SF_NORMALMAP_BUMPS = 0, /* default: a grid of round bumps */
    SF_NORMALMAP_BRICKS     /* bricks with bevelled mortar grooves */
} sf_normalmap_kind;

/* Tangent-space normal at uv, unit length, as an image texture in glTF's convention: x along the tangent
 * (+u), y along the bitangent w * cross(n, t) = "up" in the image (towards -v, v grows downward), z along
 * the normal. scale = repeats per UV unit (0 = 8), strength = slope factor (0 = 1). */
void sf_normalmap_sample(sf_normalmap_kind kind, float scale, float strength, float u, float v, float out[3]);

typedef struct sf_raster_mesh {
    size_t vertex_count, triangle_count;
    const uint32_t* indices; /* 3 * triangle_count */
    const float* positions;  /* float3, required */
    const float* normals;    /* float3; required by lambert, normal-map and normals */
    const float* tangents;   /* float4 (w = handedness); required by normal-map */
    const float* uvs;        /* float2; required by normal-map */
    const float* colors;     /* float3 albedo in [0, 1] per vertex; NULL = opts base colour */
} sf_raster_mesh;

typedef struct sf_raster_opts {
    sf_material material;
    float light_dir[3];    /* towards the light, world space; zero = (0, 0, 1) */
    float ambient;         /* 0 = 0.3; share of light that ignores the normal */
    float base_color[3];   /* zero = (0.78, 0.76, 0.72) */
    sf_normalmap_kind normal_map;
    float normal_map_scale, normal_map_strength; /* see sf_normalmap_sample */
} sf_raster_opts; /* zero = defaults */

/* Draws triangles with a z-buffer and perspective-correct interpolation. Triangles facing away are drawn
 * with their normals flipped (two-sided sheets). Zero normals shade as ambient only. Does not allocate.
 * Errors: missing streams, indices out of range. */
sf_result sf_raster_draw_mesh(const sf_viewport* vp, const sf_raster_mesh* mesh, const sf_raster_opts* opts,
                              sf_error* err);

/* Anti-aliased segments (endpoints: float3 pairs, 6 floats per segment) and dots (float3 each).
 * depth_test = 1 hides them behind drawn surfaces (small bias so lines on a surface stay visible). */
void sf_raster_draw_lines(const sf_viewport* vp, const float* endpoints, size_t segment_count, float width_px,
                          const uint8_t rgb[3], int depth_test);
void sf_raster_draw_dots(const sf_viewport* vp, const float* points, size_t count, float radius_px,
                         const uint8_t rgb[3], int depth_test);

/* The article's four views of one method against the reference (src/fourview.c): top-left the method's
 * shading, top-right the reference's (same vertices and camera), bottom-left the normal error heatmap,
 * bottom-right the tangent error heatmap (sf_heatmap_color per vertex, interpolated), with titles, a
 * colour bar with degree ticks and the mean/max error in each heatmap. */
typedef struct sf_fourview_desc {
    size_t vertex_count, triangle_count;
    const uint32_t* indices;
    const float* positions;          /* float3 final positions, shared by the four views */
    const float* uvs;                /* float2, NULL = no tangent frame (normal-map falls back to lambert) */
    const float* method_normals;     /* float3 */
    const float* method_tangents;    /* float4, NULL when no tangent frame */
    const float* reference_normals;  /* float3 */
    const float* reference_tangents; /* float4, NULL when no tangent frame */
    const float* normal_error_deg;   /* per vertex */
    const float* tangent_error_deg;  /* per vertex, NULL = no tangent frame */
    sf_angle_stats normal_stats, tangent_stats; /* printed (mean, max) */
    const char* method_name;         /* NULL = "method" */
    const char* reference_name;      /* NULL = "recompute" */
    const char* caption;             /* optional footer of the top-left view (scene, preset): wrapped onto two
                                        lines when too wide (one line with show_vectors, which takes the second) */
    const char* reference_settings;  /* optional footer line of the top-right view ("weld none, tangents uv") */
    sf_camera camera;
    int fit_camera;                  /* 1 = sf_camera_fit to the positions first (keeps yaw, pitch, fov) */
    sf_raster_opts shading;          /* material etc. of the two top views */
    int show_vectors;                /* normals (gold) and tangents (cyan) at vertices in the top views */
    float vector_length;             /* world units; 0 = camera distance / 30 */
    size_t vector_stride;            /* every n-th vertex; 0 = enough to draw at most about 200 */
    const float* bone_heads;         /* float3 * bone_count, NULL = no rig */
    const float* bone_tails;
    size_t bone_count;
    int supersample;                 /* 0 = 2: render at 2x and shrink (smooth edges); 1 = off */
} sf_fourview_desc;

/* Renders into image (allocated by the caller, at least 64 x 48). Allocates scratch through env. */
sf_result sf_fourview_render(const sf_fourview_desc* desc, const sf_env* env, sf_image* image, sf_error* err);
/* Layout: view 0..3 (method, reference, normal error, tangent error) rectangle {x, y, w, h} and the colour
 * bar of a heatmap view (2 or 3) inside an image of this size, left end 0 degrees, right end 45. */
void sf_fourview_view_rect(int width, int height, int view, int rect[4]);
void sf_fourview_colorbar_rect(int width, int height, int view, int rect[4]);

/* Line chart (src/plot.c). */
typedef struct sf_plot_series {
    const char* name; /* legend entry; NULL = not in the legend */
    const double* x;
    const double* y;
    size_t count;
    uint8_t rgb[3];
    int dashed;
} sf_plot_series;

typedef struct sf_plot_desc {
    const char* title;
    const char* x_label;
    const char* y_label;
    const char* note;          /* optional line under the legend, e.g. "solid: mean, dashed: max" */
    const sf_plot_series* series;
    size_t series_count;
    double y_min, y_max;       /* both 0 = from the data (from 0 when all data >= 0) */
} sf_plot_desc;

/* Draws the chart into the rectangle (x, y, width, height) of image: axes, ticks, labels, legend. */
sf_result sf_plot_render(const sf_plot_desc* desc, sf_image* image, int x, int y, int width, int height,
                         sf_error* err);

/* ---------------------------------------------------------------- CUDA (cuda/, src/cuda_stub.c) */
/* (declared by the GPU issue) */

#ifdef __cplusplus
}
#endif

#endif /* SKINFRAME_H */

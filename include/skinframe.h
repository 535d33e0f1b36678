/*
 * skinframe — normals and tangents of skinned and morphed meshes, every method and the reference.
 *
 * Overview
 *   A rest mesh (positions, normals, tangents, UVs, triangles, bone influences, morph targets) is
 *   turned once into a read-only sf_topology. Per frame, a pose (bind-corrected bone matrices and
 *   morph weights) deforms it: morph targets first, then linear blend skinning. sf_frames_compute
 *   produces the normals and tangents of one method (see SF_METHODS); the method `recompute` is the
 *   reference, rebuilt from the final triangles. sf_direction_errors and sf_angle_stats_compute
 *   measure a method against the reference. An sf_evaluation does all of it for one pose: the
 *   reference once, any set of methods, each one's angles and statistics (section "evaluation").
 *
 * Example
 *   sf_topology* topo; sf_workspace* ws; sf_error err;
 *   if (sf_topology_create(&mesh, NULL, NULL, &topo, &err) != SF_OK) { puts(err.message); return 1; }
 *   sf_workspace_create(topo, NULL, &ws, &err);
 *   sf_frames_out out = { positions, normals, tangents };
 *   sf_frames_compute(topo, &pose, SF_METHOD_SKINNED, NULL, ws, &out, &err);
 *   sf_frames_out ref = { NULL, ref_normals, ref_tangents };
 *   sf_frames_compute(topo, &pose, SF_METHOD_RECOMPUTE, NULL, ws, &ref, &err);
 *   sf_direction_errors(topo, &out, &ref, normal_deg, tangent_deg, flags, &summary);
 *
 * Conventions
 *   - Bone matrices are 3x4 affine transforms with column vectors, p' = A p + t, stored as 12 floats
 *     (SF_BONE_FLOATS) column-major: A's columns (a0 a1 a2) then t,
 *     i.e. {A00,A10,A20, A01,A11,A21, A02,A12,A22, tx,ty,tz}.
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

#include <stdarg.h>
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

/* The version the library was built as (SF_VERSION of its header), and as text "0.1.0". */
uint32_t sf_version(void);
const char* sf_version_string(void);

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
    X(SF_ERROR_UNSUPPORTED, "not supported in this build")                 \
    X(SF_ERROR_TOO_LARGE, "value too large: float would overflow")

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

/* Helpers for code built on the core (the library's own layers use them too). env may be NULL or
 * partly zero everywhere: the missing parts are malloc/free and serial loops. */
sf_env sf_env_defaults(const sf_env* env);           /* a copy with the defaults filled in */
void* sf_env_alloc(const sf_env* env, size_t size);  /* 16-byte aligned; NULL when out of memory */
void* sf_env_calloc(const sf_env* env, size_t count, size_t elem); /* zeroed; NULL on overflow of count * elem */
void sf_env_free(const sf_env* env, void* ptr, size_t size);       /* ptr may be NULL; size as allocated or 0 */
/* Runs fn over [0, count) in ranges of at most grain through env's parallel_for (serially without one). */
void sf_env_parallel_for(const sf_env* env, size_t count, size_t grain, sf_range_fn* fn, void* ctx);

/* Fills err (may be NULL) with code, field and index, and a message "field[index]: " + the printf-style
 * detail; returns code. */
sf_result sf_error_set(sf_error* err, sf_result code, const char* field, size_t index, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
sf_result sf_error_setv(sf_error* err, sf_result code, const char* field, size_t index, const char* fmt,
                        va_list args);
/* Resets err (may be NULL) to SF_OK with no field and index SIZE_MAX. */
void sf_error_clear(sf_error* err);

/* ---------------------------------------------------------------- magnitudes
 *
 * Finite is not enough: float overflows past 3.4e38 and the pipeline multiplies (blends, cross products of
 * edges, face areas times UV tangents, the jacobian's gradients). So the inputs are bounded, each bound
 * checked once per topology or per pose (SF_ERROR_TOO_LARGE naming the array and element), and the few sums
 * no input bound can limit are computed safely (lengths and unit vectors scaled where their squares would
 * overflow; the area-weighted UV tangent sums redone in double where the float sums overflow). On SF_OK every
 * output is finite: positions, normals, tangents, angles, statistics and generated tangents. The bounds:
 *   - SF_MAX_COORD: every coordinate the pipeline sees: rest positions, normals and tangents (xyz), UVs, morph
 *     deltas, bone translations, and, per pose, every morphed value (|rest| + sum_k |weight_k| max|delta_k|)
 *     and every final position a weighted bone makes (sum_j |A_ij| |p_j| + |t_i|). Then an edge is within 2L
 *     per component, a cross product of two edges within 8 L^2, and its squared length within 192 L^4, which
 *     stays below 3.4e38 for L <= 1.15e9: face normals, areas, corner angles and UV tangents never overflow.
 *   - SF_MAX_BONE_SCALE: the linear part of every weighted bone, so det(A) <= 6 S^3 and the inverse transpose
 *     cof(A) n / det(A) <= 6 S^2 L / 1e-12 = 6e33; the jacobian's J u stays within 4.2e37 (a sliver's
 *     gradient reaches 2 sqrt(3) L / 1e-12) and is scaled down before its cross products.
 * Bones no vertex weighs, and morph weights of targets whose deltas are all zero, are only checked for NaN.
 * docs/magnitudes.md derives every bound. Legitimate data is far inside: 1e9 is 1000 km in millimetres, where
 * float steps are 64 mm. */
#define SF_MAX_COORD 1.0e9f
#define SF_MAX_BONE_SCALE 1.0e6f

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
    SF_WEIGHTS_STRICT,          /* reject with SF_ERROR_WEIGHT_SUM naming the vertex */
    SF_WEIGHTS_AS_GIVEN         /* used as given (a sum below 1 pulls the vertex towards the skeleton's origin, as
                                   engines that skin with the stored weights do); counted like a renormalisation */
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
    /* Every value above, and every morph delta, within SF_MAX_COORD (a tangent's w is only a sign). */
    /* Skinning: influence_count (joint, weight) pairs per vertex, packed (all glTF JOINTS_n/WEIGHTS_n
     * sets concatenated). influence_count = 0 means not skinned (every vertex keeps its morphed rest). */
    uint32_t influence_count;
    const uint32_t* joints; /* influence_count * vertex_count, each < bone_count */
    const float* weights;   /* influence_count * vertex_count, >= 0, any finite size (relative) */
    size_t bone_count;
    sf_weight_policy weight_policy;
    sf_zero_weight_policy zero_weight_policy;
    const sf_morph_target_desc* targets;
    size_t target_count;
    sf_uv_convention uv_convention; /* default SF_UV_GLTF */
} sf_mesh_desc;

#define SF_BONE_FLOATS 12 /* one bone matrix (see Conventions) */

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
    int skip_gradients; /* 1 = do not precompute the `jacobian` and `jacobian-fan` data (saves memory); default 0 */
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
    size_t mikktspace_split_vertices;    /* vertices whose corners get different MikkTSpace tangents at rest
                                            (sf_tangents_generate on the rest positions, rest normals and UVs):
                                            the vertices sf_tangents_split splits, as a loader generating
                                            TANGENT must; 0 for a mesh already split that way and without UVs.
                                            Posed frames can split others (sf_eval_results) */
    size_t fan_gradient_bytes;           /* memory the jacobian-fan's precomputed data take */
    size_t dropped_fan_gradient_slots;   /* jacobian-fan weight slots beyond 16 per vertex (smallest dropped) */
} sf_topology_stats;

/* Validates mesh (every field named in err: "mesh.positions" and the vertex, "mesh.targets[2].position_deltas"
 * and the element, ...; values beyond SF_MAX_COORD are SF_ERROR_TOO_LARGE) and builds the topology. A stream
 * the topology generates (normals or tangents left NULL) whose area-weighted sum overflows float is
 * SF_ERROR_TOO_LARGE on "mesh.normals" / "mesh.tangents" with a message starting "generated normals" /
 * "generated tangents" (the mesh has no such array to blame). */
sf_result sf_topology_create(const sf_mesh_desc* mesh, const sf_topology_opts* opts /* NULL = defaults */,
                             const sf_env* env /* NULL = defaults; copied */, sf_topology** out, sf_error* err);
void sf_topology_destroy(sf_topology* topo);
void sf_topology_get_stats(const sf_topology* topo, sf_topology_stats* out);
size_t sf_topology_vertex_count(const sf_topology* topo);
size_t sf_topology_triangle_count(const sf_topology* topo);
int sf_topology_has_tangent_frame(const sf_topology* topo); /* 1 when UVs exist, tangents are measured */
/* The sign the gather gives the UV bitangent for the handedness (sfk_finish_frame): -1 for SF_UV_GLTF, +1 for
 * SF_UV_V_UP. */
float sf_topology_bitangent_sign(const sf_topology* topo);
/* Packed rest streams as the topology holds them (after generation): float3, float3, float4, float2 or NULL. */
const float* sf_topology_rest_positions(const sf_topology* topo);
const float* sf_topology_rest_normals(const sf_topology* topo);
const float* sf_topology_rest_tangents(const sf_topology* topo);
const float* sf_topology_uvs(const sf_topology* topo);
const uint32_t* sf_topology_indices(const sf_topology* topo);

/* Where frames are computed. The CPU backend is always built; the CUDA backend only with SF_WITH_CUDA
 * (elsewhere it reports SF_ERROR_UNSUPPORTED). */
typedef enum sf_backend {
    SF_BACKEND_CPU = 0, /* default: the library's loops, threaded through sf_env.threads */
    SF_BACKEND_CUDA     /* an NVIDIA GPU (cuda/) */
} sf_backend;
const char* sf_backend_name(sf_backend backend); /* "cpu", "cuda"; "?" when out of range */
sf_result sf_backend_parse(const char* name, sf_backend* out);
/* SF_OK when this build has the backend and it can run here; else SF_ERROR_UNSUPPORTED with the reason. */
sf_result sf_backend_check(sf_backend backend, sf_error* err);

/* Per-thread scratch for sf_deform, sf_frames_compute and the evaluation. */
typedef struct sf_workspace sf_workspace;

/* What a workspace will be used for: scratch is allocated only for these. */
typedef struct sf_workspace_opts {
    uint32_t methods;       /* bit (1u << method) for each sf_method that will run; 0 = every method */
    sf_backend backend;     /* default SF_BACKEND_CPU */
} sf_workspace_opts;       /* zero = defaults */

/* opts: NULL = every method on the CPU. Scratch is taken only for opts.methods (the deformation for any
 * method but `recompute-fused`, which needs n floats only; `recompute`, the reference, adds the face arrays, the MikkTSpace scratch when the mesh has UVs and the
 * authored-reference scratch). SF_ERROR_UNSUPPORTED for a backend this build or machine lacks. */
sf_result sf_workspace_create(const sf_topology* topo, const sf_workspace_opts* opts, sf_workspace** out,
                              sf_error* err);
/* Bytes sf_workspace_create allocates for topo and opts (the same rule, without allocating); 0 when topo is
 * NULL or opts is invalid. Host memory only: a SF_BACKEND_CUDA workspace keeps the CPU's scratch on the GPU
 * and holds on the host only the 8n floats (+ MikkTSpace's scratch with UVs) that MikkTSpace tangents, run on
 * the CPU, read back. */
size_t sf_workspace_size(const sf_topology* topo, const sf_workspace_opts* opts);
/* GPU memory in bytes a SF_BACKEND_CUDA workspace for topo takes: the topology's device copy, the statistics
 * and the scratch of `instances` instances (0 = 1: what sf_workspace_create allocates; a batch of m grows it to
 * m, chunked to what the GPU holds). 0 for the CPU backend, an invalid opts or a build without CUDA. No GPU is
 * needed to ask. */
size_t sf_workspace_device_size(const sf_topology* topo, const sf_workspace_opts* opts, size_t instances);
/* Takes now the scratch that batches of up to `instances` poses would grow a device workspace to (the
 * per-instance arrays, chunked to what the GPU holds as a batch is, and each pose's records of a clip), so that
 * sf_frames_compute_batch and sf_evaluation_run_poses with that many poses allocate nothing, and no allocation
 * waits on work other workspaces have queued. A CPU workspace needs none: SF_OK. */
sf_result sf_workspace_reserve(sf_workspace* ws, size_t instances, sf_error* err);
void sf_workspace_destroy(sf_workspace* ws);

/* Checks a pose against the topology: counts, NaN/Inf in matrices or weights (SF_ERROR_NOT_FINITE), and the
 * magnitudes (SF_ERROR_TOO_LARGE): a weighted bone's linear part within SF_MAX_BONE_SCALE, its translation and
 * what it makes of the morphed positions within SF_MAX_COORD ("pose.bone_matrices", the bone), the morphed
 * values within SF_MAX_COORD ("pose.morph_weights", the target contributing most). O(bones + targets). Every
 * entry point calls it. */
sf_result sf_pose_validate(const sf_topology* topo, const sf_pose* pose, sf_error* err);

/* ---------------------------------------------------------------- methods */

/* What a method costs a renderer per frame, the cheapest first (sf_method_traits.cost). */
typedef enum sf_method_cost {
    SF_COST_PER_VERTEX = 0, /* each vertex from its own data and the pose: no neighbours */
    SF_COST_GRADIENTS,      /* per vertex, with gradients precomputed at load */
    SF_COST_GATHER          /* the neighbours every frame (the one-ring's positions gathered) */
} sf_method_cost;

/* sf_method_traits.backends: bit (1u << sf_backend) for each backend that runs the method. */
#define SF_ON_ALL_BACKENDS ((1u << SF_BACKEND_CPU) | (1u << SF_BACKEND_CUDA))

/* id, CLI name, one-line description, then the traits (sf_method_traits): per-vertex (one formula of the
 * vertex's blended matrix, bones and morphed rest frame: the fused per-vertex passes run it), cost
 * (sf_method_cost), in the default set, the backends that have it. The order is the order of every table;
 * the default set comes first. */
#define SF_METHODS(X)                                                                                             \
    X(SF_METHOD_UNCHANGED, "unchanged", "LBS positions only; rest (or morphed) directions", 1, SF_COST_PER_VERTEX, \
      1, SF_ON_ALL_BACKENDS)                                                                                      \
    X(SF_METHOD_SKINNED, "skinned", "directions skinned with the bone matrices, normalised", 1,                  \
      SF_COST_PER_VERTEX, 1, SF_ON_ALL_BACKENDS)                                                                  \
    X(SF_METHOD_INVERSE_TRANSPOSE, "inverse-transpose", "normal by the inverse transpose of the blend", 1,       \
      SF_COST_PER_VERTEX, 1, SF_ON_ALL_BACKENDS)                                                                  \
    X(SF_METHOD_BONE_NORMAL_MATRICES, "bone-normal-matrices", "per-bone cofactor matrices blended", 1,          \
      SF_COST_PER_VERTEX, 1, SF_ON_ALL_BACKENDS)                                                                  \
    X(SF_METHOD_JACOBIAN, "jacobian", "analytic Jacobian with weight and morph gradients", 0, SF_COST_GRADIENTS, \
      1, SF_ON_ALL_BACKENDS)                                                                                      \
    X(SF_METHOD_JACOBIAN_FAN, "jacobian-fan", "secant map of the welded fan, authored frame carried", 0,         \
      SF_COST_GRADIENTS, 1, SF_ON_ALL_BACKENDS)                                                                   \
    X(SF_METHOD_RECOMPUTE, "recompute", "rebuilt from the final triangles (the reference)", 0, SF_COST_GATHER, 1, \
      SF_ON_ALL_BACKENDS)                                                                                         \
    X(SF_METHOD_RECOMPUTE_FUSED, "recompute-fused", "recompute in one per-vertex pass, bit for bit the same", 0,  \
      SF_COST_GATHER, 0, SF_ON_ALL_BACKENDS)

typedef enum sf_method {
#define SF_METHOD_ENUM_(id, name, text, per_vertex, cost, in_default, backends) id,
    SF_METHODS(SF_METHOD_ENUM_)
#undef SF_METHOD_ENUM_
    SF_METHOD_COUNT
} sf_method;

/* `recompute-fused` gives `recompute`'s frames bit for bit (any options, any thread count) by another route:
 * each vertex deforms the corners of its faces itself from the rest data and the pose and gathers them, one
 * per-vertex pass with no position or face buffer (its workspace scratch is n floats, the determinants). It
 * runs with the reference's options wherever `recompute` does (the evaluation's reference_opts). Two cases
 * cannot be one pass and run as the two-pass `recompute` instead, said in sf_frames_report.fused_two_pass:
 * MikkTSpace tangents on a mesh with UVs (the normals stay fused; MikkTSpace then needs every final position
 * and normal) and the authored reference (all of it); both need a workspace with `recompute`'s scratch
 * (SF_ERROR_INVALID_ARGUMENT naming "workspace" otherwise). The default set of methods (no methods named:
 * sf_eval_desc.methods NULL, the command line's default and `all`) is the first SF_METHOD_DEFAULT_COUNT,
 * every method but this one: it is named to run. */
#define SF_METHOD_IN_DEFAULT_(id, name, text, per_vertex, cost, in_default, backends) +(in_default)
#define SF_METHOD_DEFAULT_COUNT ((int)(0 SF_METHODS(SF_METHOD_IN_DEFAULT_)))

/* A method's traits, as SF_METHODS lists them. */
typedef struct sf_method_traits {
    int per_vertex;      /* 1: one formula per vertex from its own blended matrix, bones and rest frame */
    sf_method_cost cost;
    int in_default;      /* 1: in the default set (the first SF_METHOD_DEFAULT_COUNT) */
    uint32_t backends;   /* bit (1u << sf_backend) for each backend that runs it */
} sf_method_traits;
/* All zero when method is out of range. */
sf_method_traits sf_method_traits_of(sf_method method);

const char* sf_method_name(sf_method method);        /* "skinned"; "?" when out of range */
const char* sf_method_description(sf_method method); /* one line */
sf_result sf_method_parse(const char* name, sf_method* out);

/* Morph directions (the article's steps 3 and 4). */
typedef enum sf_morph_directions {
    SF_MORPH_DIRECTIONS_DELTAS = 0, /* default: add the targets' normal/tangent deltas before skinning */
    SF_MORPH_DIRECTIONS_NONE,       /* position deltas only; directions stay at rest */
    SF_MORPH_DIRECTIONS_NORMALS     /* normal deltas only; tangents stay at rest (runtimes that read no
                                       morph TANGENT deltas) */
} sf_morph_directions;

/* How face contributions are averaged at a vertex by `recompute`. */
typedef enum sf_weighting {
    SF_WEIGHTING_AREA = 0, /* default: unnormalised face normals (the article) */
    SF_WEIGHTING_ANGLE,    /* unit face normal times the corner angle */
    SF_WEIGHTING_UNIFORM   /* unit face normals, equal weights (the article's tip demo) */
} sf_weighting;

/* Which vertices share one recomputed frame. A position shared by more than SF_WELD_MAX_VERTICES vertices or
 * SF_WELD_MAX_CORNERS triangle corners is not welded: each of those vertices gathers its own corners (a welded
 * gather walks the whole group per member, so an unbounded group would cost the square of its size; real
 * meshes share a position among a few vertices and a few dozen corners). */
#define SF_WELD_MAX_VERTICES 128
#define SF_WELD_MAX_CORNERS 128
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
                                 stands in for the tangent). See src/core/authored.c.
                                 Respects custom normals (toon shading, baked hard-surface normals). */
} sf_reference;

typedef struct sf_frames_opts {
    sf_morph_directions morph_directions;
    sf_weighting weighting; /* recompute only */
    sf_weld weld;           /* recompute only */
    sf_tangent_mode tangents; /* recompute only */
    float jacobian_cap;     /* jacobian, jacobian-fan: cap on |correction| relative to |blend| (Tarini et al.); 0 = none */
    sf_reference reference; /* recompute only: rebuilt (default) or authored directions carried along */
} sf_frames_opts; /* zero = defaults */

typedef struct sf_frames_out {
    float* positions; /* float3 * vertex_count final positions, may be NULL */
    float* normals;   /* float3 * vertex_count unit normals (zero where degenerate), may be NULL */
    float* tangents;  /* float4 * vertex_count unit tangent xyz + handedness w, may be NULL */
} sf_frames_out;

/* Deforms the mesh by the pose and computes one method's frames. Does not allocate. A method outside the
 * workspace's opts.methods gives SF_ERROR_INVALID_ARGUMENT naming "workspace". On SF_OK every element of every
 * output is finite (see "magnitudes"). */
sf_result sf_frames_compute(const sf_topology* topo, const sf_pose* pose, sf_method method,
                            const sf_frames_opts* opts, sf_workspace* ws, const sf_frames_out* out, sf_error* err);

/* A crowd: count poses of one topology, outs[i] for poses[i] (each sf_frames_out as above). On a CUDA
 * workspace every stage is one launch over all instances (the topology shared, split into as many launches
 * as GPU memory needs); elsewhere it is sf_frames_compute per pose. The workspace's last report sums the
 * instances. A failing pose stops the batch (err names it). */
sf_result sf_frames_compute_batch(const sf_topology* topo, const sf_pose* poses, size_t count, sf_method method,
                                  const sf_frames_opts* opts, sf_workspace* ws, const sf_frames_out* outs,
                                  sf_error* err);

/* Final positions only (morph, then linear blend skinning). out: float3 * vertex_count. */
sf_result sf_deform_positions(const sf_topology* topo, const sf_pose* pose, sf_workspace* ws, float* out, sf_error* err);

/* ---------------------------------------------------------------- quantized skinning */
/* `skinned` read straight from the integer streams KHR_mesh_quantization stores, so that a frame reads about half
 * the bytes of float32 streams. Each value is decoded as glTF decodes it (a normalized type: c / 127, 255, 32767
 * or 65535 in float, the signed ones clamped at -1; an integer type: c itself), then skinned exactly as
 * sf_frames_compute's `skinned` skins float32 streams of those values (the same bits, given a topology whose weights
 * are as given and whose weightless vertices rest): positions by the blended matrix, normals and tangent xyz by its
 * linear part and normalised (zero where degenerate), the handedness w flipped where the blend mirrors. */

typedef enum sf_quant_type {
    SF_QUANT_NONE = 0,
    SF_QUANT_INT8,   /* integer values c */
    SF_QUANT_UINT8,
    SF_QUANT_INT16,
    SF_QUANT_UINT16,
    SF_QUANT_SNORM8, /* normalized: max(c / 127, -1) */
    SF_QUANT_UNORM8, /* c / 255 */
    SF_QUANT_SNORM16, /* max(c / 32767, -1) */
    SF_QUANT_UNORM16  /* c / 65535 */
} sf_quant_type;

typedef struct sf_quant_stream {
    const void* data;   /* NULL = absent */
    size_t stride;      /* bytes between vertices; 0 = packed (the components' size) */
    sf_quant_type type;
} sf_quant_stream;

#define SF_QUANT_MAX_INFLUENCES 8

typedef struct sf_quantized_mesh {
    size_t vertex_count;
    /* 3 components of any type, decoded, then p * position_scale + position_offset per component (the
     * dequantizing node transform of KHR_mesh_quantization, or an accessor's own range); required */
    sf_quant_stream positions;
    float position_scale[3];  /* finite, nonzero; c * scale + offset within SF_MAX_COORD for every c of the type */
    float position_offset[3];
    sf_quant_stream normals;  /* 3 components, SNORM8 or SNORM16; required */
    sf_quant_stream tangents; /* 4 components (xyz, handedness w), SNORM8 or SNORM16; NULL = no tangent output */
    /* influence_count (1 to SF_QUANT_MAX_INFLUENCES) per vertex: joints UINT8 or UINT16, each < bone_count;
     * weights UNORM8 or UNORM16, used as stored (no renormalising); all zero = the vertex keeps its rest place */
    uint32_t influence_count;
    sf_quant_stream joints;
    sf_quant_stream weights;
    size_t bone_count;
} sf_quantized_mesh;

/* Checks the description: types per stream (SF_ERROR_INVALID_ARGUMENT naming the stream and the type given),
 * strides below an element (SF_ERROR_STRIDE), missing streams, scale and offset (NaN, infinite or zero:
 * SF_ERROR_NOT_FINITE / SF_ERROR_INVALID_ARGUMENT; a decoded coordinate beyond SF_MAX_COORD: SF_ERROR_TOO_LARGE),
 * and every joint index (SF_ERROR_JOINT_INDEX naming the vertex). Reads every joint once. */
sf_result sf_quantized_mesh_validate(const sf_quantized_mesh* mesh, sf_error* err);

/* The `skinned` frames of a quantized mesh under pose (its bone_count equal to the mesh's; morph weights are
 * refused: the mesh has no targets). out: positions, normals, tangents as sf_frames_out (each may be NULL;
 * tangents need the tangent stream). Checks the description and the pose as sf_quantized_mesh_validate and
 * sf_pose_validate do, except the joint indices, which the pass itself checks: a joint out of range gives
 * SF_ERROR_JOINT_INDEX naming the first such vertex, and the outputs are then unspecified (never read out of
 * bounds). One thread; SSE2, AVX2, AVX-512 or WebAssembly SIMD128 where the CPU has them, else scalar, all with
 * the same bits. Does not allocate. */
sf_result sf_quantized_skin(const sf_quantized_mesh* mesh, const sf_pose* pose, const sf_frames_out* out,
                            sf_error* err);

/* What the last sf_frames_compute on this workspace found (counters, not errors). */
typedef struct sf_frames_report {
    size_t mirrored_vertices;   /* blended matrix with negative determinant: handedness flipped */
    size_t singular_vertices;   /* |det| < 1e-12: inverse-transpose returned zero */
    size_t degenerate_normals;  /* zero normal in the output */
    size_t degenerate_tangents; /* zero tangent in the output (with a tangent frame) */
    size_t jacobian_capped;     /* jacobian / jacobian-fan corrections limited by jacobian_cap */
    uint32_t fused_two_pass;    /* recompute-fused: what ran as the two-pass recompute, SF_FUSED_TWO_PASS_* */
} sf_frames_report;
/* sf_frames_report.fused_two_pass (0: everything in the fused pass) */
enum {
    SF_FUSED_TWO_PASS_TANGENTS = 1, /* MikkTSpace tangents (mesh with UVs): normals fused, tangents two-pass */
    SF_FUSED_TWO_PASS_ALL = 2       /* the authored reference: the whole frame two-pass */
};
void sf_workspace_last_report(const sf_workspace* ws, sf_frames_report* out);

/* ---------------------------------------------------------------- engine limits */
/* What runtimes do to the data before skinning (docs/engines.md): keep a few influences, cap active morphs. */

/* Keeps the max_influences largest weights of each vertex (ties: the earlier slot) and divides them by their
 * sum, as engines that store 4 or 8 (joint, weight) pairs per vertex do. joints/weights: influence_count per
 * vertex as in sf_mesh_desc (weights >= 0, finite). out_joints/out_weights: min(influence_count,
 * max_influences) per vertex, kept slots in their original order; both NULL = count only. A vertex whose kept
 * weights sum to zero keeps zeros. truncated (may be NULL): vertices with more than max_influences nonzero
 * weights. Errors: max_influences 0, NULL inputs with vertices, one of the outputs NULL, a negative or
 * non-finite weight (naming the vertex). */
sf_result sf_influences_truncate(size_t vertex_count, uint32_t influence_count, const uint32_t* joints,
                                 const float* weights, uint32_t max_influences, uint32_t* out_joints,
                                 float* out_weights, size_t* truncated, sf_error* err);

/* Keeps the max_targets morph weights of largest magnitude (ties: the lower index) and zeroes the others, as a
 * runtime that caps active morph targets does (glTF lets clients limit them). out may be weights (in place);
 * max_targets >= count copies. Returns how many nonzero weights were zeroed. */
size_t sf_morph_weights_truncate(const float* weights, size_t count, size_t max_targets, float* out);

/* ---------------------------------------------------------------- tangent and flat normal generation */

/* Flat normals, as glTF asks of a primitive without NORMAL: triangle f's corners (corner_positions, 9 floats
 * per triangle, its three corners in order) all get the unit normal of cross(p1 - p0, p2 - p0), (0, 0, 0) for a
 * zero-area triangle, into normals (9 floats per triangle). Float arithmetic in a fixed order: every caller
 * (the glTF loader, the viewer) gets the same bits. SF_ERROR_TOO_LARGE (index = the triangle) when a cross
 * product overflows float. */
sf_result sf_normals_flat(size_t triangle_count, const float* corner_positions, float* normals, sf_error* err);

/* A static mesh for sf_tangents_generate: plain arrays, no skinning, no topology needed. */
typedef struct sf_tangent_desc {
    size_t vertex_count, triangle_count;
    const uint32_t* indices; /* 3 * triangle_count; NULL = unindexed (vertex_count == 3 * triangle_count) */
    sf_stream positions;     /* float3, required */
    sf_stream normals;       /* float3 unit normals, required */
    sf_stream uvs;           /* float2, required */
    sf_uv_convention uv_convention; /* the sign of w, as in sf_mesh_desc; default SF_UV_GLTF */
    sf_tangent_mode mode;    /* SF_TANGENTS_UV (default: the reference's area-weighted UV tangent) or
                                SF_TANGENTS_MIKKTSPACE (compatible with MikkTSpace bakes) */
} sf_tangent_desc;

/* Tangents per triangle corner, like MikkTSpace and meshopt_generateTangents: corner_tangents holds
 * 4 * 3 * triangle_count floats (xyz unit, w = +-1), corner c of triangle f at 4 * (3 f + c). Under
 * MikkTSpace every corner is MikkTSpace's own, and the corners of one vertex can differ (mirrored UVs, zero
 * UV areas, triangles on both sides of a sharp turn of the tangent): an integration that stores one tangent
 * per vertex must split those vertices (sf_tangents_split), as the glTF loader does. Under SF_TANGENTS_UV the
 * corners of a vertex are equal (the per-vertex gather). Allocates scratch through env. Errors: missing
 * streams, bad strides, indices out of range, NaN/Inf, values beyond SF_MAX_COORD (SF_ERROR_TOO_LARGE naming
 * desc.positions/normals/uvs), and under SF_TANGENTS_UV an area-weighted tangent sum that overflows float
 * (SF_ERROR_TOO_LARGE, "generated tangents of vertex v"). */
sf_result sf_tangents_generate(const sf_tangent_desc* desc, const sf_env* env, float* corner_tangents, sf_error* err);

/* Output of sf_tangents_split. The arrays are the caller's (each may be NULL); the counts are written. */
typedef struct sf_tangent_split {
    uint32_t* indices;     /* 3 * triangle_count: the triangles re-indexed (may be the input indices, in place) */
    uint32_t* source;      /* one per output vertex: the input vertex it copies (v for v < vertex_count) */
    float* tangents;       /* 4 per output vertex: its tangent; (0, 0, 0, 1) for a vertex in no triangle */
    size_t vertex_count;   /* written: output vertices, vertex_count + the added copies */
    size_t split_vertices; /* written: input vertices whose corners have more than one distinct tangent */
} sf_tangent_split;

/* At most this many output vertices: size source and tangents by it, or call once with NULL arrays first. */
#define SF_TANGENTS_SPLIT_MAX_VERTICES(vertex_count, triangle_count) ((vertex_count) + 3 * (triangle_count))

/* One vertex per distinct (vertex, corner tangent), the re-indexing a MikkTSpace integration needs to store
 * tangents per vertex. Corners are visited in order; a vertex keeps its index for the tangent of its first
 * corner, and each further distinct tangent (all four floats compared exactly) becomes a new vertex appended
 * after the vertex_count inputs, in the order of the corners that first use them. So a mesh whose corners
 * agree comes back unchanged, and every other per-vertex stream is carried by copying source[k] into k.
 * indices: 3 * triangle_count, NULL = unindexed (nothing to split); corner_tangents: 4 per corner as
 * sf_tangents_generate writes them. Allocates scratch (3 uint32 per output vertex bound) through env.
 * Errors: corner_tangents or out NULL, an index >= vertex_count, NaN/Inf in a tangent, counts past 2^32-1. */
sf_result sf_tangents_split(size_t vertex_count, size_t triangle_count, const uint32_t* indices,
                            const float* corner_tangents, const sf_env* env, sf_tangent_split* out, sf_error* err);

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

/* Angle in degrees between two directions, from atan2(|a x b|, a . b) in double (precise near 0 and 180 degrees);
 * 180 when either is zero (squared length under 1e-24) or has a component that is not finite. */
double sf_angle_deg(const float a[3], const float b[3]);

/* Per-vertex angles of `method` against `reference` (float3 normals, float4 tangents as in sf_frames_out).
 * normal_deg/tangent_deg/flags: vertex_count each, may be NULL. summary may be NULL. NaN/Inf in either is
 * SF_ERROR_NOT_FINITE naming "method.normals", "reference.tangents", ... and the vertex.
 * Allocates scratch for percentiles through the topology's allocator. */
sf_result sf_direction_errors(const sf_topology* topo, const sf_frames_out* method, const sf_frames_out* reference,
                              float* normal_deg, float* tangent_deg, uint8_t* flags, sf_error_summary* summary,
                              sf_error* err);

/* Statistics of angles[count]. scratch: count floats (a working copy, left reordered), or NULL to allocate
 * with env. p50 and p95 interpolate between order statistics exactly as in a sorted copy. */
sf_result sf_angle_stats_compute(const float* angles_deg, size_t count, float* scratch, const sf_env* env,
                                 sf_angle_stats* out, sf_error* err);

/* ---------------------------------------------------------------- streaming angle statistics */
/*
 * The statistics of any number of angles (every vertex of every frame of a long clip) in a fixed amount of
 * memory (sf_angle_accumulator_size(), about 1.7 MB, whatever the count):
 *   sf_angle_accumulator* acc;
 *   sf_angle_accumulator_create(NULL, &acc, &err);
 *   per frame: sf_angle_accumulator_add(acc, normal_deg, n, &err);
 *   sf_angle_accumulator_finish(acc, &stats, &err);
 *   sf_angle_accumulator_destroy(acc);
 * count, max and the shares over 1/5/45 degrees are exact. mean and RMS are exact sums in double, taken in the
 * order the angles are added: one add of an array gives sf_angle_stats_compute's mean and RMS bit for bit.
 * p50 and p95 come from a fixed histogram over [0, 180] degrees: one bin for exactly 0, one for (0, 2^-20),
 * 256 bins per octave from 2^-20 up to 0.25 degrees (width <= 1/256 of the value), then bins 2^-10 degrees
 * (0.000977) wide up to 180. Each order statistic is placed evenly inside its bin (clamped to the exact min
 * and max; the lowest and highest are exact), and percentiles interpolate between order statistics as
 * sf_angle_stats_compute's do. Worst-case error of p50 and p95 against the exact (sorted) value: less than
 * one bin, i.e. below 2^-10 degrees (0.000977) everywhere and below value / 256 under 0.25 degrees; dense
 * data does much better (docs/eval.md gives measured differences).
 * Merging accumulators adds their counts exactly and their sums in the order of the merges, so work split
 * into a fixed set of parts (per frame, per mesh: never per thread) and merged in a fixed order gives the
 * same result for any thread count. An accumulator belongs to one thread at a time.
 */
typedef struct sf_angle_accumulator sf_angle_accumulator;

/* Bytes one accumulator takes (allocated whole by create, zeroed). */
size_t sf_angle_accumulator_size(void);
/* An empty accumulator, allocated through env (NULL = malloc; copied). Errors: out NULL, out of memory. */
sf_result sf_angle_accumulator_create(const sf_env* env, sf_angle_accumulator** out, sf_error* err);
void sf_angle_accumulator_destroy(sf_angle_accumulator* acc); /* NULL is ignored */
/* Empties acc (keeps its memory). NULL is ignored. */
void sf_angle_accumulator_reset(sf_angle_accumulator* acc);
/* Adds angles_deg[count] (NULL allowed when count is 0). Every angle must be finite (SF_ERROR_NOT_FINITE)
 * and within [0, 180] (SF_ERROR_INVALID_ARGUMENT); err names the first bad index and nothing is added. */
sf_result sf_angle_accumulator_add(sf_angle_accumulator* acc, const float* angles_deg, size_t count, sf_error* err);
/* Adds everything src holds to dst (src unchanged; not dst itself). */
sf_result sf_angle_accumulator_merge(sf_angle_accumulator* dst, const sf_angle_accumulator* src, sf_error* err);
/* One of `parts` parts of that merge, for merging many accumulators into one over threads: part 0 adds the
 * count, sums, extremes and shares, and every part its share of the histogram's bins. Parts 0 to parts - 1
 * of a src, in any order, add what sf_angle_accumulator_merge adds. Calls on one dst with the same part run
 * one at a time; calls with different parts write different memory and may run at once on different
 * threads. The result is read only after all of them. Errors: as merge; part >= parts. */
sf_result sf_angle_accumulator_merge_part(sf_angle_accumulator* dst, const sf_angle_accumulator* src, size_t part,
                                          size_t parts, sf_error* err);
/* The statistics of what acc holds (all zero when empty). acc is unchanged: more angles may follow. */
sf_result sf_angle_accumulator_finish(const sf_angle_accumulator* acc, sf_angle_stats* out, sf_error* err);

/* ---------------------------------------------------------------- evaluation */
/*
 * One evaluation: for a topology and a pose, the reference (`recompute` with reference_opts) once, then each
 * method asked for, each measured against the reference as sf_direction_errors measures it (bit for bit the
 * same angles and statistics). This is the one path the command line, the benchmarks and the tests take.
 *   sf_evaluation* ev;
 *   sf_eval_desc desc = {0};                       (every method, default options, nothing kept)
 *   sf_evaluation_create(topo, &desc, NULL, &ev, &err);   allocates every array once
 *   sf_evaluation_run(ev, &pose, ws, NULL, &err);         per pose; never allocates
 *   const sf_eval_results* res = sf_evaluation_results(ev);
 *   res->rows[k].errors.normal.mean ...
 *   sf_evaluation_destroy(ev);
 * The row of `recompute` runs with reference_opts (it checks the pipeline: about 0 degrees) and is the
 * reference itself, not computed twice. The row of `recompute-fused` runs with reference_opts too (computed in
 * its own pass: 0 degrees when it equals the reference bit for bit; with per-corner tangents its corners are
 * its own MikkTSpace run's, see sf_frames_report.fused_two_pass). A method the build or backend cannot run (SF_ERROR_UNSUPPORTED)
 * comes back as a row with that status; it does not fail the run. An sf_evaluation belongs to one thread.
 *
 * Tangents per corner. When the reference's tangents are MikkTSpace (reference_opts.tangents =
 * SF_TANGENTS_MIKKTSPACE with the rebuilt reference, on a mesh with UVs and triangles), the reference has a
 * tangent per triangle corner (reference_corner_tangents), and the corners of one vertex can differ. The
 * tangent error is then measured per corner: each method's per-vertex tangent against the reference tangent
 * of every corner of the vertex (xyz angle, and w at each corner):
 *   errors.tangent                statistics over the 3 * triangle_count corners (count = corners);
 *   errors.handedness_mismatches  corners whose w differs;
 *   errors.worst_tangent_vertex   the vertex of the worst corner;
 *   tangent_corner_deg            3 * triangle_count angles, corner c of triangle f at 3 f + c;
 *   tangent_deg, flags            per vertex: the largest angle over its corners, SF_VERTEX_HANDEDNESS or
 *                                 SF_VERTEX_DEGENERATE_TANGENT when any corner has it (a vertex in no
 *                                 triangle keeps the per-vertex comparison there and is in no statistic);
 *   errors.degenerate_tangents    vertices, as the flags count them.
 * The recompute row's corners are the reference's own (0 degrees at every corner). The per-vertex reference
 * (reference_tangents, and every sf_frames_out of recompute) is each vertex's first corner's tangent (first in
 * the order of the triangles); storing a per-vertex MikkTSpace tangent exactly needs the split of
 * sf_tangents_split over reference_corner_tangents (reference_split_vertices counts it).
 * Otherwise (uv tangents, the authored reference, no UVs) the tangent error is per vertex, as
 * sf_direction_errors measures it, and the per-corner fields are NULL / 0.
 *
 * On a CUDA workspace (sf_workspace_opts.backend) with neither SF_EVAL_KEEP_* flags nor buffers nor per-corner
 * tangents, the whole run stays on the GPU and nothing per vertex is copied back: the results' positions,
 * reference frames and row arrays are NULL, the statistics are reduced on the GPU into the histogram of
 * sf_angle_accumulator (p50 / p95 within its resolution of the exact values; mean, max, counts and shares
 * exact up to summation order). Otherwise each stage's frames come back and are measured as on the CPU.
 */
typedef struct sf_evaluation sf_evaluation;

/* sf_eval_desc.flags */
enum {
    SF_EVAL_KEEP_FRAMES = 1, /* keep every row's normals (3n) and tangents (4n) in the evaluation */
    SF_EVAL_KEEP_ANGLES = 2, /* keep every row's normal_deg, tangent_deg (n floats each) and flags (n bytes) */
    SF_EVAL_NO_STATISTICS = 4 /* leave errors.normal / errors.tangent (sf_angle_stats) zero: no sort per row,
                                 for callers that pool the angles of many runs; the counts and worst vertices
                                 are still filled */
};

typedef struct sf_eval_desc {
    const sf_method* methods;      /* method_count methods, the rows in this order, each at most once;
                                      NULL = the first SF_METHOD_DEFAULT_COUNT methods in SF_METHODS order */
    size_t method_count;           /* 1..SF_METHOD_COUNT with methods; 0 when methods is NULL */
    sf_frames_opts method_opts;    /* every method but recompute (morph directions, jacobian cap) */
    sf_frames_opts reference_opts; /* the reference, the recompute and recompute-fused rows (weighting, weld, tangents,
                                      reference, morph directions) */
    uint32_t flags;                /* SF_EVAL_* */
} sf_eval_desc;                    /* zero = every method, default options, nothing kept, statistics on */

/* Caller buffers for one run of one row (each may be NULL). Given, the array is written there instead of
 * in the evaluation; the row's result then points at it. */
typedef struct sf_eval_row_buffers {
    float* normals;     /* 3 * vertex_count */
    float* tangents;    /* 4 * vertex_count */
    float* normal_deg;  /* vertex_count */
    float* tangent_deg; /* vertex_count (zeros without a tangent frame) */
    uint8_t* flags;     /* vertex_count SF_VERTEX_* */
    float* tangent_corner_deg; /* 3 * triangle_count, used with per-corner tangents (see above) */
} sf_eval_row_buffers;

typedef struct sf_eval_buffers {
    float* positions;          /* 3 * vertex_count final positions, or NULL */
    float* reference_normals;  /* 3 * vertex_count, or NULL */
    float* reference_tangents; /* 4 * vertex_count, or NULL */
    sf_eval_row_buffers rows[SF_METHOD_COUNT]; /* indexed like sf_eval_results.rows */
} sf_eval_buffers;

/* Distances in mesh units between a row's final positions and the reference's (sf_evaluation_run_against). */
typedef struct sf_position_error {
    size_t count;         /* vertices measured */
    double mean, rms, max;
    size_t worst_vertex;
    double diagonal;      /* the bounding-box diagonal of the reference's final positions (max / diagonal: share) */
} sf_position_error;

/* One method's row. Arrays point into the evaluation or at the caller's buffers and stay valid until the
 * next run or destroy; NULL when neither kept nor given (recompute's normals/tangents are the reference's). */
typedef struct sf_eval_row {
    sf_method method;
    sf_frames_opts opts;     /* what it ran with: reference_opts for recompute and recompute-fused, method_opts
                                otherwise */
    sf_result status;        /* SF_OK, or SF_ERROR_UNSUPPORTED: detail says why, the rest is zero / NULL */
    sf_error detail;         /* the method's sf_error when unsupported; cleared otherwise */
    sf_error_summary errors; /* against the reference, degrees (see SF_EVAL_NO_STATISTICS) */
    sf_position_error position; /* final positions against the reference's: zero from sf_evaluation_run,
                                   measured by sf_evaluation_run_against */
    sf_frames_report report; /* the method's counters (sf_workspace_last_report) */
    const float* normals;    /* 3n */
    const float* tangents;   /* 4n */
    const float* normal_deg; /* n angles in degrees, as sf_direction_errors writes them */
    const float* tangent_deg; /* n (zeros without a tangent frame; per corner: the worst of the vertex's) */
    const uint8_t* flags;    /* n SF_VERTEX_* */
    const float* tangent_corner_deg; /* 3 * triangle_count with per-corner tangents (kept or given), else NULL */
} sf_eval_row;

/* Which part of a run failed (sf_eval_results.failed). */
typedef enum sf_eval_stage {
    SF_EVAL_STAGE_NONE = 0,  /* the run succeeded (or none ran yet) */
    SF_EVAL_STAGE_INPUT,     /* the pose or the workspace rejected before anything ran */
    SF_EVAL_STAGE_REFERENCE, /* the reference's sf_frames_compute */
    SF_EVAL_STAGE_METHOD     /* a method's sf_frames_compute (failed_method) */
} sf_eval_stage;

typedef struct sf_eval_results {
    size_t vertex_count;
    int tangent_frame;              /* 1 when tangents are measured (the mesh has UVs) */
    sf_frames_opts reference_opts;  /* echoed: weighting, weld, tangents, rebuilt/authored, morph directions */
    sf_frames_opts method_opts;     /* echoed */
    const float* positions;         /* 3n final positions (evaluation's or the caller's) */
    const float* reference_normals; /* 3n */
    const float* reference_tangents; /* 4n */
    sf_frames_report reference_report;
    size_t row_count;
    sf_eval_row rows[SF_METHOD_COUNT]; /* row_count rows in the desc's order */
    size_t runs;                    /* successful runs so far */
    sf_eval_stage failed;           /* of the last run */
    sf_method failed_method;        /* with SF_EVAL_STAGE_METHOD */
    int tangent_corners;            /* 1 when the tangent error of the last run is per corner (see above) */
    const float* reference_corner_tangents; /* 4 * 3 * triangle_count: the reference's MikkTSpace tangent at
                                               every corner, w as in reference_tangents (the mesh's uv
                                               convention, flipped where the vertex's blend mirrors); NULL
                                               unless tangent_corners */
    size_t reference_split_vertices; /* vertices whose corners have more than one distinct reference tangent
                                        (sf_tangents_split), 0 unless tangent_corners */
} sf_eval_results;

/* Checks desc against topo (counts, methods, option ranges); every bad field is named ("desc.methods",
 * index k; "desc.reference_opts.weld"; ...). desc NULL = zero desc. */
sf_result sf_eval_desc_validate(const sf_topology* topo, const sf_eval_desc* desc, sf_error* err);
/* Allocates the evaluation and all of its arrays, once, through env (NULL = the topology's environment;
 * copied). With n = vertex_count: positions and reference frames (10n floats); the rows' frames (7n floats
 * shared, or per row but recompute with SF_EVAL_KEEP_FRAMES); their angles (2n floats shared, or 2n floats
 * + n bytes per row with SF_EVAL_KEEP_ANGLES); the percentile sort (n floats, none with
 * SF_EVAL_NO_STATISTICS). With per-corner tangents (C = 3 * triangle_count corners): the reference's corner
 * tangents (4C floats), the corner angles (C floats shared, or per row with SF_EVAL_KEEP_ANGLES), flags
 * scratch (n bytes), and a sort of max(n, C) floats. sf_evaluation_size gives the total. */
sf_result sf_evaluation_create(const sf_topology* topo, const sf_eval_desc* desc, const sf_env* env,
                               sf_evaluation** out, sf_error* err);
/* Bytes sf_evaluation_create would allocate (the same rule, without allocating); 0 for an invalid desc. */
size_t sf_evaluation_size(const sf_topology* topo, const sf_eval_desc* desc);
void sf_evaluation_destroy(sf_evaluation* ev);
/* Deforms by pose and fills the results: reference, then each row. ws: a workspace of the same topology
 * created for the reference and every method of the desc. buffers: NULL = the evaluation's own arrays.
 * Never allocates. On failure the results say which stage failed and err names the field. */
sf_result sf_evaluation_run(sf_evaluation* ev, const sf_pose* pose, sf_workspace* ws, const sf_eval_buffers* buffers,
                            sf_error* err);
/* Measures a variant of the deformation against the full one: runs ev's rows at pose on ev's topology (the
 * reference's mesh with other influences, such as sf_influences_truncate gives: the same vertex count, triangles
 * and tangent frame) and measures each, as sf_evaluation_run would, against the reference of `reference`'s last
 * successful run (its normals, tangents and per-corner tangents), and its final positions against reference's
 * (row.position). pose may differ from the one reference ran with (fewer morph targets:
 * sf_morph_weights_truncate). recompute is a row like the others here: rebuilt with ev's reference_opts from
 * ev's deformation. results->positions are ev's final positions; reference_normals/tangents and the corner
 * tangents are reference's. ws: a workspace of ev's topology (sf_evaluation_methods_mask(ev)). Errors: reference
 * NULL, without a successful run, of a mesh with another vertex count, triangles or tangent frame, or with
 * another tangent mode (per-corner or per-vertex: reference_opts must agree); as sf_evaluation_run otherwise.
 * Never allocates. */
sf_result sf_evaluation_run_against(sf_evaluation* ev, const sf_evaluation* reference, const sf_pose* pose,
                                    sf_workspace* ws, const sf_eval_buffers* buffers, sf_error* err);
/* The results of the last run (rows with zero summaries before the first). After a failed run only failed,
 * failed_method and runs are meaningful. Never NULL for a valid ev; stays at the same address. */
const sf_eval_results* sf_evaluation_results(const sf_evaluation* ev);
/* Adds the angles of row `row` of the last successful run to the accumulators (either may be NULL; tangents
 * only with a tangent frame); a row the backend could not run adds nothing. After a run on a CUDA workspace
 * that stayed on the GPU (see above) the GPU's histogram is merged and nothing per vertex is copied; otherwise
 * the row's per-vertex angles are added, which the run must have kept (SF_EVAL_KEEP_ANGLES, or buffers for
 * them; else SF_ERROR_INVALID_ARGUMENT naming "row"). Under per-corner tangents the per-vertex (worst corner)
 * tangent angles are added. */
sf_result sf_evaluation_accumulate(const sf_evaluation* ev, size_t row, sf_angle_accumulator* normal_acc,
                                   sf_angle_accumulator* tangent_acc, sf_error* err);
/* One pose's errors of one row in a run of several poses (sf_evaluation_run_poses): the sums of its normal and
 * tangent angles, the largest of each with its vertex (the lowest index among equal ones), and the vertices whose
 * tangent handedness differs from the reference's. Tangents all zero without a tangent frame. */
typedef struct sf_pose_errors {
    double normal_sum, tangent_sum;
    float normal_max, tangent_max;
    size_t worst_normal_vertex, worst_tangent_vertex;
    size_t handedness_mismatches;
} sf_pose_errors;
/* A clip's poses in batches on a device workspace (one whose backend keeps the statistics: SF_BACKEND_CUDA), with
 * neither SF_EVAL_KEEP_* flags nor per-corner tangents: poses[0, count) evaluated at once, each row's statistics
 * added on the device to those of the runs before since the last with first != 0, and each pose's own errors
 * recorded (sf_evaluation_pose_errors). Nothing comes back until asked: sf_evaluation_accumulate then merges the
 * statistics of every pose since `first` (read once per clip). The rows' status is set (a row the backend cannot
 * run: SF_ERROR_UNSUPPORTED); their errors and report stay zero. SF_ERROR_UNSUPPORTED on any other workspace or
 * evaluation. Never allocates once the workspace has run count poses. */
sf_result sf_evaluation_run_poses(sf_evaluation* ev, const sf_pose* poses, size_t count, sf_workspace* ws, int first,
                                  sf_error* err);
/* Adds the statistics of src's runs of poses since its last `first` to dst's, on the device: evaluations of the
 * same rows whose last sf_evaluation_run_poses ran on workspaces of one device (a clip's primitives), so that
 * sf_evaluation_accumulate on dst reads them all at once. dst's worst vertices are then of either mesh: the
 * per-pose ones (sf_evaluation_pose_errors) name them. */
sf_result sf_evaluation_add_poses(sf_evaluation* dst, const sf_evaluation* src, sf_error* err);
/* Row `row`'s errors of each pose of the last sf_evaluation_run_poses into out[0, count) (waits for the device). */
sf_result sf_evaluation_pose_errors(const sf_evaluation* ev, size_t row, sf_pose_errors* out, sf_error* err);
/* The row of `method`, or NULL when the desc did not ask for it. */
const sf_eval_row* sf_evaluation_row(const sf_evaluation* ev, sf_method method);
/* Bit (1u << method) of the reference (recompute) and of every row: sf_workspace_opts.methods for a
 * workspace that can run this evaluation. */
uint32_t sf_evaluation_methods_mask(const sf_evaluation* ev);

/* ---------------------------------------------------------------- GPU data */
/*
 * The topology's arrays as a GPU takes them: what shaders/ (GLSL, HLSL, WGSL) read and `skinframe export-gpu`
 * writes, each a packed little-endian array of 32-bit floats or unsigned integers. This list (its names, order
 * and element layouts, in src/core/gpu_layout.c) is the one description of the layout: shaders/README.md and
 * the export's JSON are written from it. Pointers are the topology's own (valid while it lives).
 */
typedef enum sf_gpu_type { SF_GPU_F32 = 0, SF_GPU_U32 } sf_gpu_type;

typedef struct sf_gpu_buffer {
    const char* name;        /* "rest_positions", "adj_offsets", ... (file stem of the export) */
    const char* description; /* one line: what an element holds */
    sf_gpu_type type;
    size_t count;            /* elements (0: absent, data NULL) */
    uint32_t components;     /* values per element */
    const void* data;        /* count * components values */
} sf_gpu_buffer;

#define SF_GPU_MAX_BUFFERS 32

/* Fills out with up to cap buffers and returns how many the topology has (at most SF_GPU_MAX_BUFFERS), in a
 * fixed order; the gradients of jacobian and jacobian-fan (grad_* and fan_*) are absent (count 0) when the
 * topology skipped them. */
size_t sf_topology_gpu_buffers(const sf_topology* topo, sf_gpu_buffer* out, size_t cap);

/* ---------------------------------------------------------------- jacobian-fan as vertex attributes */
/*
 * The per-vertex coefficients `jacobian-fan` reads (the topology's, built once from the rest mesh) in a fixed
 * width an engine uploads as vertex attributes and evaluates in its vertex shader (docs/embedded.md: the glTF
 * names, the layout per slot and target, the quantization and its measured error, the shader functions).
 * Per vertex: the fan normal (3 floats: its tangent basis is the coefficients' basis), slot_groups groups of 4
 * weight slots (4 joints; 6 coefficient vectors of 4: g.u, g.v, K_uu, K_uv, K_vu, K_vv, one component per
 * slot; unused slots have joint SF_FAN_REST_JOINT and zero coefficients), and per morph target the gradient of
 * its position delta along the basis (D u, D v: 3 values each). Every array is planar, one array per
 * attribute, so each is one glTF accessor or one vertex buffer.
 */
#define SF_FAN_SLOTS_PER_GROUP 4u
#define SF_FAN_COEFS 6u          /* coefficient vectors per slot group: g.u, g.v, K_uu, K_uv, K_vu, K_vv */
#define SF_FAN_MAX_GROUPS 4u     /* 16 slots, the most the topology keeps per vertex */
#define SF_FAN_REST_JOINT 0xFFFFu
#define SF_FAN_SCALES 8u         /* SF_FAN_SNORM16: per vertex, one scale per coefficient, the D's, and 0 */ /* the identity transform (a zero-weight vertex in the fan), and padding */

typedef enum sf_fan_encoding {
    SF_FAN_FLOAT32 = 0, /* coefficients and morph gradients as float (the library's values, bit for bit) */
    SF_FAN_SNORM16 = 1  /* int16 normalised (value = max(q / 32767, -1) * scale), a scale per vertex and kind (each
                           coefficient; the D's): the kind's largest |value| there, so each value is within
                           scale / 65534 */
} sf_fan_encoding;

typedef struct sf_fan_layout {
    size_t vertex_count;
    uint32_t max_slots;    /* the most weight slots a vertex uses */
    uint32_t slot_groups;  /* ceil(max_slots / 4) */
    uint32_t target_count; /* the mesh's morph targets */
} sf_fan_layout;

/* The arrays of one mesh; the caller owns them. n = layout.vertex_count, G = slot_groups, T = target_count. */
typedef struct sf_fan_attributes {
    sf_fan_layout layout;
    sf_fan_encoding encoding;
    float* normal;    /* 3n: the unit rest normal of the vertex's welded fan */
    uint16_t* joints; /* G arrays of 4n: joints[g*4n + 4v + i] is the joint of slot 4g + i */
    void* coef;       /* 6G arrays of 4n: coef[(6g + c)*4n + 4v + i], coefficient c of slot 4g + i; float or
                         int16 by encoding */
    void* morph;      /* 2T arrays of 3n: morph[(2k)*3n + 3v + q] is (D_k u)_q, morph[(2k+1)*3n + ...] (D_k v)_q;
                         float or int16 by encoding */
    float* scale;     /* SF_FAN_SNORM16: 8n, per vertex the scales of g.u, g.v, K_uu, K_uv, K_vu, K_vv, the D's, 0 */
} sf_fan_attributes;

/* The layout the topology's jacobian-fan data need. SF_ERROR_UNSUPPORTED when it was built with
 * skip_gradients. */
sf_result sf_fan_layout_get(const sf_topology* topo, sf_fan_layout* out, sf_error* err);
/* Writes the topology's coefficients into out (out->layout must equal sf_fan_layout_get's; every array
 * the layout needs given). */
sf_result sf_fan_attributes_export(const sf_topology* topo, sf_fan_attributes* out, sf_error* err);
/* The reference evaluation from the arrays alone (what a vertex shader does): per vertex the morphed and
 * skinned position and blended matrix from the topology's rest streams and the pose, then the jacobian-fan
 * frame from attrs' coefficients. With SF_FAN_FLOAT32 arrays of this topology it gives sf_frames_compute's
 * jacobian-fan frames (jacobian_cap 0) bit for bit. normals 3n, tangents 4n (either may be NULL). Allocates
 * 28 T bytes of scratch through the topology's env; serial. */
sf_result sf_fan_attributes_frames(const sf_topology* topo, const sf_fan_attributes* attrs, const sf_pose* pose,
                                   float* normals, float* tangents, sf_error* err);

/* ---------------------------------------------------------------- CUDA (cuda/, src/core/backend_cuda_stub.c) */
/* Reached through sf_backend and sf_workspace_opts.backend above (docs/cuda.md). A CUDA workspace uploads
 * its topology to the GPU once at creation (SF_ERROR_OUT_OF_MEMORY naming the sizes when it does not fit),
 * and every method, the reference and the error statistics run there; MikkTSpace tangents are computed on
 * the CPU from the GPU's positions and normals. A failing CUDA call is SF_ERROR_UNSUPPORTED naming the call.
 * The kernels are built without multiply-add contraction (nvcc --fmad=false), so where no transcendental
 * function is involved (IEEE +, -, *, /, sqrt) they give the CPU backend's bits; elsewhere the results match
 * within float rounding. */

#ifdef __cplusplus
}
#endif

#endif /* SKINFRAME_H */

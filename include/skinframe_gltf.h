/*
 * skinframe glTF: reading and writing glTF 2.0 (.gltf and .glb), animation sampling and posing, the data
 * checks of real assets, and the world placement of mesh instances.
 * Layer: depends on the core (skinframe.h) and the files layer; the only layer that parses JSON (cJSON).
 * Library skinframe_gltf (CMake skinframe::gltf).
 */
#ifndef SKINFRAME_GLTF_H
#define SKINFRAME_GLTF_H

#include "skinframe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- glTF (src/gltf/gltf_parse.c, src/gltf/anim.c) */
/*
 * Reading. sf_gltf_load_file / sf_gltf_load_memory parse glTF 2.0: .gltf with external .bin files or
 * base64 data: URIs, and .glb. Every index, offset, stride and count is validated with overflow-safe
 * arithmetic before it is used; a malformed file gives SF_ERROR_GLTF with err->field set to the JSON path
 * of the culprit ("accessors[7].count", "meshes[0].primitives[1].indices") and a one-line message.
 * Supported: every component type, normalized integers, byteStride, sparse accessors, KHR_mesh_quantization,
 * TRIANGLES / TRIANGLE_STRIP / TRIANGLE_FAN (strips and fans become triangles; POINTS and LINES primitives
 * are skipped and counted in skipped_primitives), any number of JOINTS_n/WEIGHTS_n sets, morph targets with
 * POSITION/NORMAL/TANGENT deltas, node hierarchies (TRS or matrix), skins, animations, several scenes.
 * Compressed geometry: EXT_meshopt_compression (bufferViews decoded with meshoptimizer: ATTRIBUTES,
 * TRIANGLES and INDICES streams, the OCTAHEDRAL, QUATERNION and EXPONENTIAL filters, fallback buffers
 * without data) and KHR_draco_mesh_compression (a primitive's indices and attributes decoded with Draco into
 * the layout its accessors declare), each when the build has its decoder (sf_gltf_decoders); a required one
 * the build lacks is refused with SF_ERROR_UNSUPPORTED saying so. Limits are checked from the declared
 * counts before decoding; a stream that fails to decode or gives another count than declared is refused
 * (SF_ERROR_GLTF naming the bufferView or primitive, the accessor and the extension). Other extensions
 * listed in extensionsRequired that change geometry are refused.
 * Files: the glTF and every external buffer are read with sf_file_read (skinframe_files.h): regular files
 * only (a FIFO, socket, device or folder fails at once with SF_ERROR_IO), at most opts.max_file_bytes each.
 * An external URI is percent-decoded and resolved against the glTF's folder. Absolute paths, URIs with a
 * scheme other than data:, relative paths whose ".." segments leave the folder, and paths that leave it
 * through a symbolic link (a file link, or a folder link such as textures -> /etc) are refused
 * (SF_ERROR_GLTF naming buffers[i].uri) unless opts.allow_outside_files is set. A buffer file may be at most
 * SF_GLTF_BUFFER_SLACK bytes longer than its byteLength (padding); a longer one is refused (SF_ERROR_GLTF
 * naming buffers[i].byteLength) from its size, before it is read, and a shorter one too.
 * Costs: the loader estimates what it will decode before decoding anything (the parsed JSON from its text,
 * before parsing it; then from the accessor counts, the morph targets, the 3x split of primitives without
 * NORMAL, animation keys and skins) and refuses a file that would pass one of the limits in sf_gltf_opts
 * (max_vertices, max_morph_elements, max_decoded_bytes) with SF_ERROR_GLTF naming "json" (or the primitive,
 * skin, animation channel), the limit, the value and how to raise it. So a file of a few bytes that declares millions of vertices without data cannot cost gigabytes.
 * Missing NORMAL: flat normals, as the glTF spec requires: the primitive's vertices are split per triangle
 * corner and each gets its face normal (flat_normals = 1, source_vertex maps back). Missing TANGENT with
 * UVs: see sf_gltf_opts.generated_tangents (UV tangents by the topology, or MikkTSpace at load). MikkTSpace
 * gives a tangent per corner: a vertex whose corners get different tangents is split into one vertex per
 * distinct tangent (sf_tangents_split: the copies appended after the others, the triangles re-indexed, every
 * per-vertex stream copied to them, joints, weights and morph deltas included, source_vertex mapping back to
 * POSITION; mikktspace_split_vertices counts them), so every corner keeps MikkTSpace's own tangent.
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
#define SF_GLTF_BUFFER_SLACK 4    /* bytes an external buffer file may hold beyond its byteLength (padding) */

/* Default limits (sf_gltf_opts, 0 = these). */
#define SF_GLTF_DEFAULT_MAX_VERTICES ((size_t)1 << 24)       /* 16M vertices per primitive */
#define SF_GLTF_DEFAULT_MAX_MORPH_ELEMENTS ((size_t)1 << 26) /* 64M (target, vertex) pairs per primitive */
#define SF_GLTF_DEFAULT_DECODED_BASE ((size_t)64 << 20)      /* max_decoded_bytes: 64 MiB ... */
#define SF_GLTF_DEFAULT_DECODED_FACTOR 64                    /* ... + 64 x the bytes of the input */
#define SF_GLTF_INSTANCE_VERTEX_BYTES 512 /* max_decoded_bytes: charged per vertex of each node drawing a mesh */

typedef struct sf_gltf_opts {
    uint32_t texcoord;       /* TEXCOORD_n used for mesh.uvs and tangents; default 0 */
    int allow_outside_files; /* 1 = read URIs outside the glTF's folder (absolute, "..", symbolic links); default 0 */
    size_t max_file_bytes;   /* refuse larger files (glTF, glb and each .bin); 0 = 1 GiB */
    /* Missing TANGENT with UVs: SF_TANGENTS_UV (default) leaves mesh.tangents NULL so that the topology builds
     * the article's UV tangents; SF_TANGENTS_MIKKTSPACE computes MikkTSpace tangents at load from the
     * positions, the (authored or flat) normals and the UVs, as the glTF spec recommends. */
    sf_tangent_mode generated_tangents;
    /* Limits on what a file may cost, checked before decoding (see Costs above); 0 = the default.
     * max_vertices: vertices of one primitive, the POSITION count and the count after splitting per corner
     *   for flat normals (3 per triangle) or for generated MikkTSpace tangents (checked when it happens);
     *   default SF_GLTF_DEFAULT_MAX_VERTICES (16M).
     * max_morph_elements: morph targets x vertices of one primitive (sparse targets count their entries);
     *   default SF_GLTF_DEFAULT_MAX_MORPH_ELEMENTS (64M, 768 MB of position deltas).
     * max_decoded_bytes: bytes the loader decodes for the whole file: the parsed JSON (estimated from the text
 *   before parsing: a node per value, a copy per string), every accessor read as 32-bit values
     *   each time it is used, the flat-normal split copies, morph deltas, generated tangents, animation keys
     *   and inverse bind matrices, and SF_GLTF_INSTANCE_VERTEX_BYTES per vertex of every node that draws a mesh
     *   (every instance has deformed vertices of its own: a mesh drawn by 1,000 nodes costs 1,000 times). Default 64 MiB + 64 x the input's bytes (the glTF or glb plus its external
     *   buffers): real files decode to a few times their size (4-byte floats from 1- or 2-byte quantized
     *   data, the 3x flat split), while an accessor without a bufferView or one accessor shared by a hundred
     *   targets decodes to data the file does not hold. */
    size_t max_vertices, max_morph_elements, max_decoded_bytes;
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
    const uint32_t* source_vertex;      /* vertex_count: the POSITION index each vertex came from (vertices
                                           split for flat normals or MikkTSpace tangents share theirs) */
    sf_gltf_tangent_source tangents;
    uint32_t texcoord;                  /* the TEXCOORD_n in mesh.uvs (when texcoord_sets > texcoord) */
    uint32_t texcoord_sets, joint_sets, color_sets;
    int target_normals, target_tangents; /* 1 when some target has NORMAL / TANGENT deltas */
    uint32_t max_joint;                 /* largest joint index with a non-zero weight (0 when none) */
    const char* attributes;             /* "POSITION:VEC3/f32 NORMAL:VEC3/i8n ..." for reports */
    const char* target_attributes;      /* "POSITION NORMAL" (union over targets), "" when none */
    size_t mikktspace_split_vertices;   /* vertices split for generated MikkTSpace tangents (see Reading) */
    const char* compression;            /* "KHR_draco_mesh_compression", "EXT_meshopt_compression" (some of
                                           its accessors' bufferViews), or "" for plain data */
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
    /* The files this load read or names, so that a caller never writes over them: absolute paths with every
     * symbolic link resolved (sf_file_resolve, skinframe_files.h), each once, in this order: the .gltf or
     * .glb itself (sf_gltf_load_file only), every external buffer file read, then every image file named by
     * images[].uri (resolved against the glTF's folder, data: URIs left out; images are not read, and are
     * listed whether or not they exist). input_file_count strings; owned by the sf_gltf. A file read from
     * memory without base_dir lists none. */
    const char* const* input_files;
    size_t input_file_count;
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

/* Rewrites err, a core error about the mesh of gltf->primitives[primitive] (sf_topology_create of
 * sf_gltf_instance_mesh's description), to name what the file holds: "mesh.positions" becomes
 * "meshes[M].primitives[P].attributes.POSITION" with the accessor's element (the source vertex of a vertex split
 * for flat normals), likewise NORMAL, TANGENT, TEXCOORD_n and targets[k].POSITION/NORMAL/TANGENT; streams the
 * file does not have, generated by the loader (flat normals) or the topology (UV tangents), become "generated
 * normals of meshes[M].primitives[P] ..." / "generated tangents of ..." (field "meshes[M].primitives[P]").
 * Any other error gets "meshes[M].primitives[P]: " before its message. No effect when gltf, err are NULL or
 * primitive is out of range. */
/* The compressed-geometry decoders built in: "EXT_meshopt_compression (meshoptimizer 0.18),
 * KHR_draco_mesh_compression (draco 1.5.5)", one of them, or "none" (SF_WITH_MESHOPT, SF_WITH_DRACO). */
const char* sf_gltf_decoders(void);

void sf_gltf_primitive_locate_error(const sf_gltf* gltf, size_t primitive, sf_error* err);

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
/* How an animation's rotation keys become node rotations. Every rule but the first takes the keys as given: a key
 * hit, clamped to or held (STEP) is used unnormalised, CUBICSPLINE stays normalised and the node matrix is composed
 * from the quaternion as it is; they differ only in LINEAR's slerp, which normalises nothing outside its lerp
 * branch (the keys' dot product at or above a threshold). */
typedef enum sf_gltf_rotation_keys {
    SF_GLTF_ROTATIONS_UNIT = 0,     /* every rotation made unit (the default) */
    SF_GLTF_ROTATIONS_THREE = 1,    /* three.js's Quaternion.slerpFlat: lerp branch at dot >= 0.9995, normalised */
    SF_GLTF_ROTATIONS_BABYLON = 2,  /* Babylon.js's Quaternion.SlerpToRef: lerp branch at dot > 0.999999, not
                                       normalised */
    SF_GLTF_ROTATIONS_GLAM = 3      /* glam's Quat::slerp (Bevy): lerp branch at dot > 1 - FLT_EPSILON, normalised */
} sf_gltf_rotation_keys;
/* as_given: an sf_gltf_rotation_keys (1, three.js's rule, for any other non-zero value). */
void sf_gltf_pose_set_rotations_as_given(sf_gltf_pose* pose, int as_given);
/* Whether some rotation key of the animation is not unit (|q|^2 off 1 by more than 1e-5). */
int sf_gltf_animation_has_nonunit_rotations(const sf_gltf* gltf, size_t animation);
/* Overrides one node's local transform (rotation x y z w); call sf_gltf_pose_update afterwards. */
sf_result sf_gltf_pose_set_local(sf_gltf_pose* pose, size_t node, const float translation[3],
                                 const float rotation[4], const float scale[3], sf_error* err);
void sf_gltf_pose_update(sf_gltf_pose* pose);
/* Global transform of a node (16 floats, column-major) as of the last sample/update. */
const float* sf_gltf_pose_global(const sf_gltf_pose* pose, size_t node);
/* The sf_pose inputs of an instance (see Posing above). bone_matrices: 12 * bone_count (3x4 layout of this
 * header); morph_weights: the mesh's target_count, may be NULL; to_world: 16 floats or NULL. Every output is
 * finite: a transform whose product overflows float is SF_ERROR_TOO_LARGE naming bone_matrices (the joint)
 * or to_world (the node). Sampled values never overflow (a spline's overshoot saturates at +-FLT_MAX, which
 * the core's magnitude bounds then refuse by name). */
sf_result sf_gltf_pose_instance(const sf_gltf_pose* pose, size_t instance, float* bone_matrices,
                                float* morph_weights, float* to_world, sf_error* err);

/* World placement (src/gltf/placement.c): takes vertex_count mesh-space vertices of an instance posed with
 * sf_gltf_pose_instance (positions float3, normals float3, tangents float4 as in sf_frames_out) to the scene
 * by its to_world matrix (16 floats, column-major; the last row is taken as 0 0 0 1). With M its 3x3 part
 * and t its translation: p' = M p + t; n' = cof(M) n, negated when det(M) < 0 (the inverse transpose up to
 * a positive scale), then unit length; tangent xyz' = M t_xyz, unit length, and w' = -w when det(M) < 0 (a
 * mirror flips handedness). Zero directions stay zero. Each output of
 * world may be NULL (skipped); one that is set needs its input. Outputs may be the inputs (in place).
 * Errors: to_world or world NULL, a missing input (SF_ERROR_MISSING_STREAM), NaN/Inf in to_world, and
 * SF_ERROR_TOO_LARGE for a to_world whose 3x3 part exceeds SF_MAX_BONE_SCALE or translation SF_MAX_COORD, or an
 * input component beyond SF_MAX_COORD (then nothing is written): within them every output is finite. */
sf_result sf_gltf_place_frames(const float to_world[16], size_t vertex_count, const float* positions,
                               const float* normals, const float* tangents, const sf_frames_out* world, sf_error* err);

/* Data problems of a primitive as authored, reported apart from method error (src/gltf/gltf_check.c).
 * id, name, description; counts are vertices, triangles or targets as the description says. Vertices are
 * the file's own (the POSITION accessor's indices, sf_gltf_primitive.source_vertex): a primitive split per
 * corner for flat normals counts each file vertex once, and worst_index is the file's vertex index. */
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
    size_t influence_histogram[17]; /* [k] vertices (the file's) with k non-zero weights (16 = 16 or more) */
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

/* Encodes desc as a .glb in memory, allocated with env's allocator: free with sf_gltf_free_bytes. Every float
 * must be finite: a NaN or infinity anywhere (streams, colors, weights, deltas, morph weights, node transforms,
 * inverse bind matrices, animation keys) is refused before anything is encoded, with SF_ERROR_NOT_FINITE naming
 * the field as in desc ("meshes[0].mesh.positions", "nodes[2].translation",
 * "animations[0].channels[1].values") and the element (vertex, matrix, key). */
sf_result sf_gltf_write_glb(const sf_gltf_write_desc* desc, const sf_env* env, void** out_data, size_t* out_size,
                            sf_error* err);
void sf_gltf_free_bytes(const sf_env* env, void* data, size_t size);
/* Writes desc as a .glb file atomically (temp file in the same folder, then rename). Refuses (SF_ERROR_IO)
 * when path resolves to the same file as protect_path (the input; may be NULL). */
sf_result sf_gltf_save_glb(const sf_gltf_write_desc* desc, const char* path, const char* protect_path,
                           const sf_env* env, sf_error* err);


/* ---------------------------------------------------------------- rewriting (src/gltf/gltf_doc*.c) */
/*
 * A glTF kept as it was read, to be written back with some accessors' data replaced or new attributes added:
 * the JSON tree as parsed (cJSON, every member kept: nodes, materials, animations, extensions, extras, unknown
 * extensions) and every byte of every buffer. What changes is only what the caller sets through slots:
 *   - a slot whose accessor is plain (a bufferView of its own, not sparse, not compressed, no other accessor
 *     or image over its bytes), used by that slot alone, and whose new values have its count, type and
 *     component type, is written over in place (min/max updated when present);
 *   - otherwise the values become a new accessor over a new bufferView appended to buffers[0] (the .glb BIN
 *     chunk, or the .gltf's first buffer; made when there is none), and the slot refers to it; the old
 *     accessor and its bytes stay where they were (other users keep them);
 *   - values that encode to the bytes already there change nothing, so rewriting a rewritten file with the
 *     same values gives the same bytes.
 * Reading: sf_gltf_doc_open reads the .gltf/.glb and its external buffers under the loader's file rules
 * (sf_gltf_opts: confinement, max_file_bytes) and refuses a file whose extensionsRequired names an extension
 * the rewriter does not know (SF_ERROR_UNSUPPORTED naming it). Compressed geometry (EXT_meshopt_compression
 * bufferViews, KHR_draco_mesh_compression primitives) is decompressed on open into plain accessors over new
 * bytes appended to buffers[0]; the meshopt fallback buffers and both extensions' entries in
 * extensionsUsed/Required are dropped, so the file is written uncompressed (sf_gltf_doc_inflated counts it).
 * Writing: sf_gltf_doc_save writes a .glb (by the name's extension) as one file, or a .gltf with its
 * external buffers and images beside it: unchanged buffers and every image copied byte for byte under their
 * uri relative to the new .gltf (nothing is copied when that is the file itself), a changed external buffer
 * under a new name made from the .gltf's ("out.bin", "out_1.bin"), data: URIs re-encoded only when changed.
 * Each file is written atomically (sf_file_write_atomic), the .gltf/.glb last. No file written may be one
 * of the doc's inputs (sf_gltf_doc_inputs) or of protect[] (SF_ERROR_IO naming it, before anything is written).
 * A .gltf output of a file whose buffer or image uris leave its folder is refused (SF_ERROR_UNSUPPORTED).
 */
typedef struct sf_gltf_doc sf_gltf_doc;

/* Where a primitive refers to an accessor. */
typedef struct sf_gltf_slot {
    size_t mesh, primitive; /* meshes[mesh].primitives[primitive], the file's numbering */
    size_t target;          /* SF_GLTF_NONE: the primitive's attributes; else its targets[target] */
    const char* attribute;  /* "NORMAL", "WEIGHTS_1", "_SKINFRAME_FAN_0" (application-specific names start
                               with '_'); NULL: the primitive's indices */
} sf_gltf_slot;

typedef struct sf_gltf_accessor_info {
    size_t count, components;  /* elements; components per element (SCALAR 1, VEC3 3, MAT4 16) */
    uint32_t component_type;   /* 5120 i8, 5121 u8, 5122 i16, 5123 u16, 5125 u32, 5126 f32 */
    int normalized;
    int sparse;                /* 1: a sparse accessor */
    int has_view;              /* 0: no bufferView (zeros, plus sparse values) */
} sf_gltf_accessor_info;

/* New data for a slot: count * components floats, stored as component_type (integers rounded to nearest,
 * normalized ones from [0,1] or [-1,1] and clamped). Every value must be finite. */
typedef struct sf_gltf_values {
    const float* data;
    size_t count, components;
    uint32_t component_type;
    int normalized;
} sf_gltf_values;

sf_result sf_gltf_doc_open(const char* path, const sf_gltf_opts* opts, const sf_env* env, sf_gltf_doc** out,
                           sf_error* err);
void sf_gltf_doc_destroy(sf_gltf_doc* doc); /* NULL is ignored */
/* The JSON tree (a cJSON object, owned by the doc): for members the slots do not cover (asset.generator,
 * extras, extensionsUsed). Edits are written as made; keep indices valid. */
struct cJSON* sf_gltf_doc_json(sf_gltf_doc* doc);
int sf_gltf_doc_is_glb(const sf_gltf_doc* doc);
/* The loaded asset the doc was validated with (the opts given to sf_gltf_doc_open); owned by the doc. */
const sf_gltf* sf_gltf_doc_gltf(const sf_gltf_doc* doc);
/* The file's meshes and primitives as the JSON holds them (POINTS and LINES included, unlike sf_gltf). */
size_t sf_gltf_doc_mesh_count(const sf_gltf_doc* doc);
size_t sf_gltf_doc_primitive_count(const sf_gltf_doc* doc, size_t mesh);
/* meshes[mesh].primitives[primitive]: its mode (4 when absent) and morph target count; 0 when it does not
 * exist. */
int sf_gltf_doc_primitive(const sf_gltf_doc* doc, size_t mesh, size_t primitive, uint32_t* mode, size_t* targets);
/* The name of the k-th attribute of meshes[mesh].primitives[primitive] (target SF_GLTF_NONE) or of its
 * targets[target], copied into out when its size bytes hold it; returns the bytes it needs (with the NUL), 0 when
 * there is no k-th. */
size_t sf_gltf_doc_attribute_name(const sf_gltf_doc* doc, size_t mesh, size_t primitive, size_t target, size_t k,
                               char* out, size_t size);
/* Sets the primitive's mode (4 TRIANGLES is written as the default: no member). */
sf_result sf_gltf_doc_set_mode(sf_gltf_doc* doc, size_t mesh, size_t primitive, uint32_t mode, sf_error* err);
/* The TEXCOORD set of the normal map of meshes[mesh].primitives[primitive]'s material (its normalTexture's
 * texCoord), or -1 when it has none. */
int sf_gltf_doc_normal_map_texcoord(const sf_gltf_doc* doc, size_t mesh, size_t primitive);
/* asset.generator ("" when absent), and a new one (copied). */
const char* sf_gltf_doc_generator(const sf_gltf_doc* doc);
sf_result sf_gltf_doc_set_generator(sf_gltf_doc* doc, const char* generator, sf_error* err);
/* The files read or named (the file, external buffers, images), resolved as sf_gltf.input_files. */
const char* const* sf_gltf_doc_inputs(const sf_gltf_doc* doc, size_t* count);
/* What the open decompressed: EXT_meshopt_compression bufferViews and KHR_draco_mesh_compression primitives. */
void sf_gltf_doc_inflated(const sf_gltf_doc* doc, size_t* views, size_t* primitives);
/* Encodes the bufferViews only vertex attributes use (ATTRIBUTES, byteStride a multiple of 4) and those only
 * indices use (TRIANGLES for triangle lists, else INDICES) with EXT_meshopt_compression, no filters: each view
 * decodes to its bytes exactly (checked before it is kept). The views move onto a new fallback buffer
 * without data; the extension is added to extensionsUsed and extensionsRequired. Call last, before
 * sf_gltf_doc_save. compressed: views encoded. SF_ERROR_UNSUPPORTED in a build without SF_WITH_MESHOPT. */
sf_result sf_gltf_doc_compress_meshopt(sf_gltf_doc* doc, size_t* compressed, sf_error* err);
int sf_gltf_doc_can_compress(void); /* 1 when the build has the meshopt encoder */
/* The accessor at slot, or SF_GLTF_NONE when the slot is empty or does not exist. */
size_t sf_gltf_doc_accessor(const sf_gltf_doc* doc, const sf_gltf_slot* slot);
sf_result sf_gltf_doc_accessor_info(const sf_gltf_doc* doc, size_t accessor, sf_gltf_accessor_info* out,
                                    sf_error* err);
/* The accessor's values as floats (count * components; normalized integers mapped to [0,1] / [-1,1], sparse
 * values applied). Errors: SF_ERROR_INVALID_ARGUMENT (index), SF_ERROR_GLTF (bytes outside their view). */
sf_result sf_gltf_doc_read(const sf_gltf_doc* doc, size_t accessor, float* out, sf_error* err);
/* Sets the slot's data (see above). The slot's primitive (and target) must exist; a missing attribute is
 * added. *changed (may be NULL): 1 when a byte of the output changes. */
sf_result sf_gltf_doc_set(sf_gltf_doc* doc, const sf_gltf_slot* slot, const sf_gltf_values* values, int* changed,
                          sf_error* err);
/* Writes the doc to path (.glb or .gltf, by its extension; anything else is SF_ERROR_INVALID_ARGUMENT). */
sf_result sf_gltf_doc_save(const sf_gltf_doc* doc, const char* path, const char* const* protect, size_t protect_count,
                           sf_error* err);

/* jacobian-fan's per-vertex attributes (docs/embedded.md: `_SKINFRAME_FAN_*`, and `_SKINFRAME_FAN_DU` / `_DV` in
 * every morph target, zeros in the base) added to every TRIANGLES primitive of doc that has NORMAL, in enc
 * (SF_FAN_FLOAT32 or SF_FAN_SNORM16), from a topology of the doc's current POSITION, NORMAL, JOINTS_n /
 * WEIGHTS_n, indices and target POSITION accessors (the file's own vertices, after any repair through
 * sf_gltf_doc_set). Other primitives are counted in skipped and left. */
typedef struct sf_gltf_fan_counts {
    size_t primitives;        /* primitives given the attributes */
    size_t skipped;           /* primitives left: not TRIANGLES, or without NORMAL */
    size_t slot_groups;       /* the most slot groups (_SKINFRAME_FAN_JOINTS_g) of a primitive */
    size_t accessors_written; /* slots whose bytes changed */
} sf_gltf_fan_counts;
sf_result sf_gltf_doc_embed_fan(sf_gltf_doc* doc, sf_fan_encoding enc, sf_gltf_fan_counts* out, sf_error* err);

#ifdef __cplusplus
}
#endif

#endif /* SKINFRAME_GLTF_H */

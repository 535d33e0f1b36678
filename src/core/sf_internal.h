/* Internal declarations shared by the core's source files (prefix sfi_): the topology and workspace
 * structures and the stages of a frame. Not installed; the layers above the core never include it.
 *
 * Dependency order inside the core, lowest first: each file calls functions of, and reads structures
 * filled by, only the files listed before it (sf_kernels.h and sf_common.h come before all of them).
 *
 *   core.c                        results, error detail, env (allocator, parallel-for), method names
 *   limits.c                      engine limits on plain arrays: influences kept, morph targets capped
 *   store.c                       counted allocations (sfi_store) and the workspace's blocks (sfi_blocks)
 *   weld.c gradients.c mikktspace.c
 *                                 builders and algorithms over plain arrays (sfi_mesh_view, sfi_mikk_input),
 *                                 each filling its own struct: weld groups, jacobian gradients, MikkTSpace
 *   tangents.c                    rest frames from plain arrays (the topology's generated normals and
 *                                 tangents); sf_tangents_generate over them and mikktspace.c
 *   lanes.c                       the blocked rest streams and influences of the per-vertex fast paths
 *   jacobian_lanes.c              the jacobians' weight-gradient slots in the same blocks
 *   fused_plan.c                  the chunks of recompute-fused's fast path (their faces and vertices)
 *   topology.c                    sf_topology: validates, copies, calls the builders above, owns their output
 *   backend.c backend_cuda_stub.c (or cuda/backend_cuda.cu)
 *                                 the backend tables (sf_backend.h), their names and availability
 *   workspace.c                   sf_workspace: scratch planned from sf_workspace_opts (size query = create)
 *   simd.c skin_sse2.c skin_avx2.c skin_avx512.c skin_wasm.c angles_sse2.c angles_avx2.c angles_wasm.c
 *                                 the instruction set chosen at run time; the per-vertex fast paths (skin_body.h),
 *                                 the jacobian's (jacobian_body.h) and the angle loops of error.c and stats.c
 *                                 (angles_body.h)
 *   mikk_terms.c mikk_sse2.c mikk_avx2.c mikk_avx512.c mikk_wasm.c
 *                                 MikkTSpace's corner terms (mikk_terms_body.h) and the groups' sums from them
 *   skin.c                        the fused per-vertex pass (deform + unchanged / skinned / inverse-transpose /
 *                                 bone-normal-matrices + report, or the deform's arrays alone) over the lanes,
 *                                 threaded; the scalar loops stay the reference
 *   deform.c                      morph + skin into the workspace; pose validation; the rest arrays as one
 *                                 vertex's deformation reads them (sfi_rest_mesh)
 *   rebuild_body.h                the face pass and gather over 4 lanes of face records (rebuild.c's fast path),
 *                                 for SSE2 (rebuild_sse2.c) and WebAssembly SIMD128 (rebuild_wasm.c)
 *   rebuild.c                     the rebuilt frames (face pass + gather, MikkTSpace tangents) for given
 *                                 positions and determinants
 *   authored.c                    the authored-normals reference (rebuilds at rest and posed, rotates)
 *   recompute.c                   `recompute`: rebuilt or authored reference
 *   jacobian.c                    `jacobian` and `jacobian-fan` frames over the topology's gradients
 *   fused.c                       `recompute-fused`: the rebuilt frames in one per-vertex pass (two-pass
 *                                 through recompute.c where it cannot be one)
 *   frames.c                      sf_frames_compute: the per-vertex methods and the dispatch
 *   backend_cpu.c                 the CPU backend's table (frames.c's passes)
 *   gpu_layout.c                  the topology's arrays as the shaders read them (sf_topology_gpu_buffers)
 *   fan_embed.c                   jacobian-fan's coefficients as vertex attributes and their reference evaluation
 *   error.c                       angle errors and statistics
 *   stats.c                       streaming angle statistics (sf_angle_accumulator)
 *   evaluate.c                    sf_evaluation: the reference once, then each method measured against it
 */
#ifndef SF_INTERNAL_H
#define SF_INTERNAL_H

#include "sf_backend.h"
#include "sf_common.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- storage (store.c) */

/* Zeroed allocations through env, counted in bytes (count * elem each, as the topology reports them). */
typedef struct sfi_store {
    const sf_env* env;
    size_t bytes;
} sfi_store;
void* sfi_store_alloc(sfi_store* store, size_t count, size_t elem); /* NULL on overflow or out of memory */
void sfi_store_free(const sfi_store* store, void* p);               /* p may be NULL */

/* A workspace's scratch, taken block by block in a fixed order twice: first measured (env NULL: nothing is
 * allocated, take returns NULL), then allocated with the same takes. So sf_workspace_size is, by
 * construction, what sf_workspace_create allocates. bytes counts what the allocator is asked for. */
#define SFI_MAX_BLOCKS 64
typedef struct sfi_blocks {
    const sf_env* env; /* NULL = measure only */
    size_t bytes;
    size_t count;
    bool failed; /* out of memory, overflow, or more than SFI_MAX_BLOCKS */
    void* list[SFI_MAX_BLOCKS];
} sfi_blocks;
void* sfi_blocks_take(sfi_blocks* blocks, size_t count, size_t elem); /* zeroed; NULL when measuring or failed */
void sfi_blocks_free(sfi_blocks* blocks);

/* ---------------------------------------------------------------- builders over plain arrays */

/* recompute-fused's fast path in chunks of `chunk` vertices (fused_plan.c): chunk k's local vertices
 * are verts[vert_offsets[k] ..) (its own vertices first, in order, then the others its faces touch) and its
 * local faces tris[3 face_offsets[k] ..) (3 local vertex indices each): every face one of its vertices' gathers
 * reads, own corners or either weld's. The gathers' corner lists are kept in the chunk's numbering (local face
 * * 3 + corner): own_corners beside adj_corners (same offsets), weld_corners[m] per vertex (CSR weld_offsets[m],
 * the group's corners in the weld's order). max_verts / max_faces: the largest chunk's counts.
 * The chunk is a power of two from SFI_FUSED_CHUNK_MIN to SFI_FUSED_CHUNK_MAX vertices, chosen from the vertex
 * order: a chunk's faces reach about one face span (its largest index less its smallest) beyond each end, and
 * those vertices are deformed again, so the chunk is 16 median spans or more, unless that leaves fewer chunks
 * than SFI_FUSED_SLOTS (sfi_fused_chunk_for). */
#define SFI_FUSED_CHUNK_MIN 4096
#define SFI_FUSED_CHUNK_MAX 32768
/* Runs of chunks a frame takes at once with a parallel-for (the workspace holds one slot of scratch for each; a
 * serial frame takes them all in one): its threads. */
#define SFI_FUSED_SLOTS 16
typedef struct sfi_fused_plan {
    size_t chunk; /* vertices per chunk (the last one's fewer) */
    size_t chunk_count;
    size_t *vert_offsets, *face_offsets; /* chunk_count + 1 */
    uint32_t *verts, *tris;
    uint32_t* own_corners;     /* 3F */
    uint32_t* weld_offsets[2]; /* n + 1 */
    uint32_t* weld_corners[2];
    size_t max_verts, max_faces;
} sfi_fused_plan;

/* The rest mesh as packed arrays, as the topology holds them: what the builders read. */
typedef struct sfi_mesh_view {
    size_t vertex_count, triangle_count;
    const float* positions; /* 3n */
    const float* normals;   /* 3n */
    const uint32_t* indices; /* 3F */
    const uint32_t *adj_offsets, *adj_corners; /* vertex -> face corners (face * 3 + corner), CSR */
    uint32_t influence_count;
    const uint32_t* joints; /* influence_count per vertex, normalised weights */
    const float* weights;
    const uint32_t *morph_offsets, *morph_target; /* morph deltas per vertex, CSR */
    const float* morph_dp;                        /* 3 per entry */
} sfi_mesh_view;

/* Weld groups (weld.c): index 0 groups by rest position, 1 by rest position and normal. */
typedef struct sfi_weld {
    uint32_t* group;          /* n: vertex -> group */
    uint32_t* offsets;        /* groups + 1: CSR of group members */
    uint32_t* members;        /* n */
    size_t group_count;
    uint32_t* corner_offsets; /* groups + 1: each group's corners (members' corners, member order) */
    uint32_t* corners;        /* 3F */
} sfi_weld;
/* Fills weld[0] and weld[1]; split_by_normal = 0 makes weld[1] the position groups (generated normals).
 * Counts weld_groups, weld_position_groups, nonmanifold_edges and duplicate_triangles into stats. */
sf_result sfi_weld_build(const sfi_mesh_view* mesh, float normal_cos, bool split_by_normal, sfi_store* store,
                         sfi_weld weld[2], sf_topology_stats* stats, sf_error* err);
void sfi_weld_free(const sfi_store* store, sfi_weld weld[2]);
/* From the indices (3F), the vertex -> corner adjacency and both welds (after sfi_weld_build). */
sf_result sfi_fused_plan_build(size_t n, size_t F, const uint32_t* indices, const uint32_t* adj_offsets,
                               const uint32_t* adj_corners, const sfi_weld weld[2], sfi_store* store,
                               sfi_fused_plan* out, sf_error* err);
void sfi_fused_plan_free(const sfi_store* store, sfi_fused_plan* plan);
/* The chunk (vertices) sfi_fused_plan_build takes for a mesh of n vertices and these F triangles. */
size_t sfi_fused_chunk_for(size_t n, size_t F, const uint32_t* indices);
/* For tests: the plans built from now on take chunks of `vertices` (a power of two, SFI_FUSED_CHUNK_MIN or more),
 * 0 = each mesh's own choice. Set it only while no topology is being created. */
void sfi_fused_chunk_force(size_t vertices);

/* Precomputed data of the `jacobian` and `jacobian-fan` methods (gradients.c), CSR over vertices: vertex v's
 * weight slots are [slot_offsets[v], slot_offsets[v+1]) with slot_joint (or SFK_REST_JOINT) and slot_floats
 * coefficients each in slot_coef (jacobian: 2, g.u and g.v; jacobian-fan: SFK_JACOBIAN_FAN_SLOT_FLOATS), its
 * morph entries [morph_offsets[v], ...) with morph_target and morph_duv (6 floats: grad d u, grad d v), in
 * the basis sfk_rest_basis of the rest normal (jacobian) or of fan_normal + 3v (jacobian-fan). The
 * arguments of sfk_jacobian_vertex / sfk_jacobian_fan_vertex. */
typedef struct sfi_gradients {
    uint32_t *slot_offsets, *slot_joint;
    float* slot_coef;
    uint32_t slot_floats;
    uint32_t *morph_offsets, *morph_target;
    float* morph_duv;
    float* fan_normal; /* jacobian-fan, 3n: unit rest normal of each vertex's fan; NULL for jacobian */
} sfi_gradients;
/* *out = NULL on failure; fan: the weld groups whose faces form each vertex's fan (jacobian-fan), NULL for
 * the jacobian's own faces; dropped: weight slots beyond SFK_JACOBIAN_MAX_SLOTS. */
sf_result sfi_gradients_build(const sfi_mesh_view* mesh, const sfi_weld* fan, sfi_store* store, sfi_gradients** out,
                              size_t* dropped, sf_error* err);
void sfi_gradients_free(const sfi_store* store, sfi_gradients* g);

/* MikkTSpace (mikktspace.c). Static part, per topology: each triangle's UV flags (orientation, zero area). */
sf_result sfi_mikktspace_uv_flags_build(const uint32_t* indices, const float* uvs, size_t triangle_count,
                                        sfi_store* store, uint8_t** out, sf_error* err);
/* Per frame: one mesh's corners over plain arrays (positions and normals 3n, uvs 2n, indices 3F). */
typedef struct sfi_mikk_input {
    size_t vertex_count, triangle_count;
    const uint32_t* indices;
    const float* uvs;
    const uint8_t* uv_flags; /* from sfi_mikktspace_uv_flags_build */
    const float* positions;
    const float* normals;
} sfi_mikk_input;
/* Scratch for one mesh's size, taken from blocks (NULL while measuring). */
struct sfi_mikktspace_scratch* sfi_mikktspace_scratch_take(sfi_blocks* blocks, size_t vertex_count,
                                                           size_t triangle_count);
/* Corner tangents (4 per corner: xyz, w with MikkTSpace's own sign, v up) into the scratch; env for the
 * parallel loops. Returns them. */
const float* sfi_mikktspace_corners(const sfi_mikk_input* in, const sf_env* env, struct sfi_mikktspace_scratch* s);
/* sfi_mikktspace_corners in two steps, so that the groups' sums can run elsewhere (the CUDA backend): the frame's
 * graph (numbering, neighbours, groups) into the scratch, described by out; then the sums of the same input. The
 * groups' arrays are the scratch's, valid until its next frame; epoch changes whenever they are built again. */
typedef struct sfi_mikk_groups {
    size_t group_count;
    const uint32_t* start;   /* group_count + 1: into corners */
    const uint32_t* corners; /* each group's corners (3 f + c), ascending by triangle */
    const uint8_t* orient;   /* group_count: 1 orientation-preserving (w = +1) */
    const uint8_t* flags;    /* triangle_count: this frame's flags after grouping (SFK_MIKK_*) */
    uint32_t epoch;
    int any_degen; /* a degenerate triangle: its corners copy others' after the sums */
} sfi_mikk_groups;
void sfi_mikktspace_groups(const sfi_mikk_input* in, const sf_env* env, struct sfi_mikktspace_scratch* s,
                           sfi_mikk_groups* out);
const float* sfi_mikktspace_corners_grouped(const sfi_mikk_input* in, const sf_env* env,
                                            struct sfi_mikktspace_scratch* s);
/* Which paths the frames on one scratch took: frames, those numbered through the known classes (no sorting),
 * and the neighbours kept because the numbering was unchanged, kept because the classes were (unique pairing),
 * or built (of those, built only because the last lower vertex's edges could pair in another order). */
typedef struct sfi_mikk_stats {
    size_t frames, numbered_known, neighbors_kept_numbering, neighbors_kept_classes, neighbors_built;
    size_t neighbors_built_last_run;
} sfi_mikk_stats;
sfi_mikk_stats sfi_mikktspace_scratch_stats(const struct sfi_mikktspace_scratch* s);
/* The scratch's corner tangents of its last run (NULL before the first) and its normal scratch (3n). */
const float* sfi_mikktspace_scratch_corners(const struct sfi_mikktspace_scratch* s);
float* sfi_mikktspace_scratch_normals(struct sfi_mikktspace_scratch* s);

/* Rest normals and tangents rebuilt from the rest triangles (tangents.c): area-weighted face normals, UV
 * tangents and bitangents weighted by twice the face area, then sfk_finish_frame. normals_in: the normals to
 * finish against (NULL = the rebuilt ones); uvs NULL = no tangent frame. normals_out (3n) / tangents_out
 * (4n) may be NULL. Scratch through env. A sum that overflows float (areas times UV tangents have no bound)
 * fails with SF_ERROR_TOO_LARGE naming "mesh.normals" or "mesh.tangents" and the vertex, the message saying
 * "generated normals" / "generated tangents". */
sf_result sfi_rest_frames(size_t vertex_count, size_t triangle_count, const uint32_t* indices, const float* positions,
                          const float* uvs, const float* normals_in, float bitangent_sign, const sf_env* env,
                          float* normals_out, float* tangents_out, sf_error* err);

/* ---------------------------------------------------------------- blocked layout (lanes.c) */

/* The rest streams and influences regrouped in blocks of SFI_LANES vertices, one component per row (structure of
 * arrays inside a block), for the SIMD fast paths (skin_body.h): 4, 8 or 16 vertices per step load a row at once.
 * Built once with the topology from its packed streams. Lanes past vertex_count are zero. A vertex without
 * weight points its first slot at the identity (joint bone_count, weight 1): the blend then gives the identity
 * bit for bit as sfk_blend_matrix's fallback does. Joints are 16-bit, as engines and the GPU upload store them
 * (a quarter of the pass's input bytes saved against 32-bit: the pass is bound by memory); a mesh of more than
 * SFI_LANES_MAX_BONES bones gets no blocked copy (rest NULL) and takes the scalar loops. */
#define SFI_LANES 16
#define SFI_LANE_ROWS 10 /* px py pz nx ny nz tx ty tz tw */
#define SFI_LANES_MAX_BONES 65535u /* the identity's index, bone_count, must fit 16 bits */
typedef struct sfi_lanes {
    size_t block_count;
    uint32_t influences; /* slots per vertex, at least 1 */
    float* rest;         /* SFI_LANE_ROWS * SFI_LANES per block */
    uint16_t* joints;    /* influences * SFI_LANES per block (slot-major) */
    float* weights;      /* influences * SFI_LANES per block */
    /* The morph deltas of the blocks whose lanes mostly share their targets (a dense target), by block and
     * target: entries morph_offsets[b] .. [b + 1] of block b, each a target, the lanes that have a delta for it
     * (bit l = lane l) and 9 rows of SFI_LANES (position, normal, tangent deltas; 0 where a lane has none). A
     * block that has morph entries but none here (a sparse target's few lanes, or a vertex listing a target
     * twice) takes the per-vertex CSR of the topology. NULL when the mesh has no morph entries. */
    uint32_t* morph_offsets;  /* block_count + 1 */
    uint32_t* morph_target;   /* per entry */
    uint32_t* morph_lanes;    /* per entry: lane bits */
    float* morph_rows;        /* per entry: SFI_MORPH_ROWS * SFI_LANES */
} sfi_lanes;
#define SFI_MORPH_ROWS 9
/* From packed arrays: positions/normals 3n, tangents 4n, K joints/weights per vertex (K = 0: the identity). */
sf_result sfi_lanes_build(size_t vertex_count, const float* positions, const float* normals, const float* tangents,
                          uint32_t influence_count, const uint32_t* joints, const float* weights, size_t bone_count,
                          sfi_store* store, sfi_lanes* out, sf_error* err);
/* The blocked morph (after sfi_lanes_build) from the topology's per-vertex CSR: offsets n + 1, target, 3 floats of
 * position / normal / tangent deltas per entry (entries of a vertex in increasing target order). */
sf_result sfi_lanes_build_morph(size_t vertex_count, size_t target_count, const uint32_t* offsets,
                                const uint32_t* target, const float* dp, const float* dn, const float* dt,
                                sfi_store* store, sfi_lanes* lanes, sf_error* err);
void sfi_lanes_free(const sfi_store* store, sfi_lanes* lanes);

/* The weight-gradient slots of `jacobian` and `jacobian-fan` (the CSR of sfi_gradients, floats coefficients per
 * slot: 2 or SFK_JACOBIAN_FAN_SLOT_FLOATS) in the same blocks of SFI_LANES vertices, for their fast paths
 * (jacobian_body.h, jacobian_fan_body.h): block b's rows row_offsets[b] .. [b + 1], one per slot up to the block's
 * largest slot count, row k holding every lane's slot k: its palette index (16-bit; SFK_REST_JOINT as the palette's
 * identity, bone_count) and its coefficients as `floats` rows of floats. A lane past its own count (or past
 * vertex_count) holds the identity with +0 coefficients: what the step adds for a lane past its count on the CSR
 * path too, which keeps the scalar kernel's bits. A block without slots, or whose padded rows would pass twice its
 * CSR slots (a few lanes with many slots among many with few), has no rows and takes the CSR. jacobian-fan also
 * keeps every block's fan normals (the basis of its coefficients) as 3 rows. All NULL (block_count 0) without
 * gradients or with more than SFI_LANES_MAX_BONES bones; for `jacobian`, also without slots. */
typedef struct sfi_jacobian_lanes {
    size_t block_count;
    uint32_t floats;       /* coefficients per slot */
    uint32_t* row_offsets; /* block_count + 1 */
    uint16_t* joint;       /* per row: SFI_LANES palette indices */
    float* coef;           /* per row: floats * SFI_LANES (the lanes' first coefficient, then their second, ...) */
    float* normal;         /* jacobian-fan: per block 3 * SFI_LANES (x, y, z of the fan normals); NULL otherwise */
} sfi_jacobian_lanes;
sf_result sfi_jacobian_lanes_build(size_t vertex_count, const sfi_gradients* g, size_t bone_count, sfi_store* store,
                                   sfi_jacobian_lanes* out, sf_error* err);
void sfi_jacobian_lanes_free(const sfi_store* store, sfi_jacobian_lanes* jl);

/* ---------------------------------------------------------------- topology */

struct sf_topology {
    sf_env env;
    size_t vertex_count, triangle_count, bone_count, target_count;
    uint32_t influence_count; /* slots per vertex after merging duplicates */
    bool has_uvs;
    int simd_level;       /* sfi_simd_detect at creation */
    float bitangent_sign; /* -1 for SF_UV_GLTF, +1 for SF_UV_V_UP (see sfk_finish_frame) */

    /* Packed rest streams. */
    float* rest_positions; /* 3n */
    float* rest_normals;   /* 3n */
    float* rest_tangents;  /* 4n */
    float* uvs;            /* 2n or NULL */
    uint32_t* indices;     /* 3F */

    /* Normalised influences: influence_count per vertex, weights sum to 1 (or all zero = identity). */
    uint32_t* joints;
    float* weights;

    /* Morph deltas regrouped per vertex (CSR over vertices): entries morph_offsets[v] .. [v+1]. */
    uint32_t* morph_offsets; /* n + 1 */
    uint32_t* morph_target;  /* entry -> target index */
    float* morph_dp;         /* 3 per entry */
    float* morph_dn;         /* 3 per entry (zero when the target has none) */
    float* morph_dt;         /* 3 per entry */

    /* Vertex -> face corners (face * 3 + corner), CSR over vertices. */
    uint32_t* adj_offsets; /* n + 1 */
    uint32_t* adj_corners; /* 3F */

    /* Magnitudes for the pose's bounds (sf_pose_validate): the largest |component| of the rest positions, of
     * the rest normals and tangents (xyz), and per target of its position deltas and of its normal and
     * tangent deltas (2 floats per target); bones that carry weight (bone_count flags). */
    float max_position, max_direction;
    float* target_max;
    uint8_t* bone_used;

    sfi_lanes lanes;          /* the blocked copies of the fast paths */
    sfi_weld weld[2];         /* SF_WELD_POSITION, SF_WELD_POSITION_NORMAL */
    sfi_fused_plan fused;     /* recompute-fused's chunks */
    sfi_gradients* gradients;     /* `jacobian`, NULL when skipped */
    sfi_gradients* fan_gradients; /* `jacobian-fan`, NULL when skipped */
    sfi_jacobian_lanes jacobian_lanes; /* `jacobian`'s slots blocked for the fast path */
    sfi_jacobian_lanes fan_lanes;      /* `jacobian-fan`'s slots and fan normals blocked for the fast path */
    uint8_t* mikk_uv_flags;   /* F, NULL without UVs */

    sf_topology_stats stats;
    size_t bytes; /* everything allocated (the object, the arrays above), for stats */
};

/* The topology's arrays as the builders see them. */
sfi_mesh_view sfi_topology_view(const sf_topology* topo);

/* Read-only view of a jacobian method's precomputed data (for a CUDA upload, tests). Returns 0 (view zeroed)
 * when the topology was built with skip_gradients. */
typedef struct sfi_gradients_view {
    const uint32_t *slot_offsets, *slot_joint;
    const float* slot_coef;
    uint32_t slot_floats;
    const uint32_t *morph_offsets, *morph_target;
    const float* morph_duv;
    const float* fan_normal;
} sfi_gradients_view;
/* method: SF_METHOD_JACOBIAN or SF_METHOD_JACOBIAN_FAN (anything else: 0). */
int sfi_gradients_get(const sf_topology* topo, sf_method method, sfi_gradients_view* out);

/* ---------------------------------------------------------------- workspace */

/* Jacobian scratch: 1 per vertex where the cap fired this frame (counted serially: deterministic). */
typedef struct sfi_jacobian_scratch {
    uint8_t* capped; /* n */
} sfi_jacobian_scratch;

/* Authored-reference scratch (authored.c): the rest "pose" and the rebuilt frames at rest and posed. */
typedef struct sfi_authored_scratch {
    float* rest_pos; /* 3n: copy of the rest positions */
    float* ones;     /* n: determinants of the rest pose */
    float* rest_n;   /* 3n rebuilt rest normals */
    float* rest_t;   /* 4n rebuilt rest tangents */
    float* pose_n;   /* 3n rebuilt posed normals */
    float* pose_t;   /* 4n rebuilt posed tangents */
    int cached;      /* rest_n/rest_t hold the rebuild for the options below */
    sf_weighting weighting;
    sf_weld weld;
    sf_tangent_mode tangents;
} sfi_authored_scratch;

struct sf_workspace {
    const sf_topology* topo;
    uint32_t methods; /* bit (1u << method) for each method this workspace has scratch for */
    const sfi_backend_i* be; /* its backend, chosen at creation (sf_backend.h) */
    /* Deformation (every method but recompute-fused, which needs det only). */
    float* morph_pos; /* 3n morphed rest positions */
    float* morph_nrm; /* 3n morphed rest normals (deltas added when enabled), not normalised */
    float* morph_tan; /* 3n morphed rest tangents */
    float* blend;     /* 12n blended matrices */
    float* det;       /* n determinants of the blended matrices */
    float* final_pos; /* 3n */
    int deformed_dirs; /* the sf_morph_directions of the last sfi_deform into these arrays; -1: none yet (the fast
                          paths write the caller's arrays and leave them as they were) */
    /* `recompute` only (NULL otherwise). */
    float* face_n;    /* 3F: cross(e1, e2) (negated where the corners mirror on balance); unit under the
                         angle and uniform weightings (see sfk_recompute_face) */
    float* face_t;    /* 3F */
    float* face_b;    /* 3F */
    float* corner_w;  /* 3F: each face corner's weight in the recompute gather (0 for a collapsed face) */
    float* faces;     /* the block of the four arrays above (12F), which the fast path (rebuild_sse2.c) uses
                         instead as one record of SFI_FACE_FLOATS per face */
    struct sfi_mikktspace_scratch* mikktspace; /* with UVs */
    sfi_authored_scratch* authored;
    float* host_tangents; /* a device backend with MikkTSpace tangents: 4n, the CPU's before they go up */
    /* `jacobian` only, and only when the topology has gradients. */
    sfi_jacobian_scratch* jacobian;
    /* The fast paths (skin.c): the pose's bones padded to 16 floats each and the identity after them
       ((bone_count + 1) * 16), and one report per chunk of the parallel loop (summed in chunk order). */
    float* palette;
    struct sfi_skin_counts* chunk_counts;
    size_t chunk_count;
    /* recompute-fused's fast path: fused_slots slots of fused_slot_floats, one per run of chunks in flight (each
       a chunk's deformed vertices, 3 floats each and one to spare, their determinants, then its face records;
       fused.c lays them out) */
    float* fused_scratch;
    size_t fused_slots, fused_slot_floats;
    sf_frames_report report;
    sfi_blocks blocks; /* every array above */
    struct sfi_cuda* cuda; /* the CUDA backend's device buffers (cuda/), else NULL */
    void* device;          /* another device backend's state (a test backend's), else NULL */
};

/* ---------------------------------------------------------------- fast paths (simd.c, skin.c) */

/* Instruction sets of the fast paths, chosen at run time (cpuid): none (the scalar reference), SSE2 (every x86-64),
 * AVX2, AVX-512 (F and DQ). sfi_simd_detect: the best this CPU has (the topology keeps it); sfi_simd_level: the topology's, capped by
 * sfi_simd_force (for tests; -1 = no cap; set it only while no frame is running). A WebAssembly module compiled with
 * -msimd128 has SFI_SIMD_WASM128, the 4-lane level's place in that order (skin_wasm.c). */
#define SFI_SIMD_SCALAR 0
#define SFI_SIMD_SSE2 1
#define SFI_SIMD_AVX2 2
#define SFI_SIMD_AVX512 3
#define SFI_SIMD_WASM128 SFI_SIMD_SSE2
/* 1 where the 4-lane level has the face pass and gather of rebuild_body.h (SSE2, or WebAssembly SIMD128), which
 * recompute and recompute-fused's chunks run there; elsewhere those stay scalar at every level. */
#if (defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))) || defined(__wasm_simd128__)
#define SFI_SIMD_REBUILD4 1
#else
#define SFI_SIMD_REBUILD4 0
#endif
int sfi_simd_detect(void);
int sfi_simd_level(const sf_topology* topo);
/* The same for work without a topology (sf_quantized_skin): this CPU's best, capped by sfi_simd_force. */
int sfi_simd_level_cpu(void);
void sfi_simd_force(int level);

/* Vertices per chunk of the fast paths' parallel loop (a multiple of SFI_LANES). */
#define SFI_SKIN_GRAIN 2048
/* What one chunk of the fused pass counted (frames.c's report and finiteness check, per chunk). */
typedef struct sfi_skin_counts {
    size_t mirrored, singular, degenerate_normals, degenerate_tangents;
    size_t first_bad; /* first vertex with a non-finite output, SIZE_MAX when none */
} sfi_skin_counts;
/* sfi_skin_counts for a workspace: chunks of SFI_SKIN_GRAIN over n vertices. */
size_t sfi_skin_chunk_count(size_t vertex_count);

/* The fused per-vertex pass: morph, blend, skin and one of unchanged / skinned / inverse-transpose (method < 0:
 * positions only, and the blended matrices' determinants into det (n) unless NULL) straight into out (each
 * stream may be NULL), with the report. Bit for bit the scalar
 * sfi_deform + sfk_vertex_frame + report of frames.c. Returns 0 when it cannot run (no fast path for this CPU);
 * the caller then takes the scalar loops. On 1, *bad is the first vertex with a non-finite output or SIZE_MAX.
 * Leaves the workspace's deform arrays as they were. */
int sfi_skin_fused(const sf_topology* topo, const sf_pose* pose, int method, sf_morph_directions dirs,
                   sf_workspace* ws, const sf_frames_out* out, float* det, sf_frames_report* report, size_t* bad);
/* The same per-vertex method's normals and tangents from the workspace's deform (sfi_deform's arrays, current for
 * the frame) instead of its own: bit for bit frames.c's scalar loop over them, with the report. 0 when it cannot
 * run (no fast path, or out asks for positions). */
int sfi_skin_frames_deformed(const sf_topology* topo, const sf_pose* pose, int method, sf_workspace* ws,
                             const sf_frames_out* out, sf_frames_report* report, size_t* bad);

/* The rebuilt frames' face pass and gather over 4 lanes (rebuild_body.h: SSE2 or SIMD128), bit for bit rebuild.c's loops: faces
 * [f0, f1) from positions (3n) and determinants (n) into records (SFI_FACE_FLOATS per face: face_n, face_t,
 * face_b, the 3 corner weights, as sfk_recompute_face writes them); vertices [v0, v1) gathered from them
 * (weld: the normal's groups, NULL = none) into normals (3n) / tangents (4n), either may be NULL. */
#define SFI_FACE_FLOATS 12
void sfi_rebuild_faces_4(const sf_topology* topo, const float* positions, const float* det, int weighting,
                         float* records, size_t f0, size_t f1);
void sfi_rebuild_gather_4(const sf_topology* topo, const sfi_weld* weld, const float* records, int weighting,
                          size_t v0, size_t v1, float* normals, float* tangents);
/* The same for one chunk of recompute-fused (topo->fused): its face_count faces tris (local vertex indices) from
 * P (3 floats per local vertex and one more after the last, read but unused) and det (one per local vertex; uvs,
 * 2n or NULL, read through verts: local -> mesh vertex) into records; its vertices [v0, v1) gathered from them
 * over the plan's corner lists (weld: -1 none, else the weld index). */
void sfi_rebuild_chunk_faces_4(const float* P, const float* det, const uint32_t* tris, size_t face_count,
                               const float* uvs, const uint32_t* verts, int weighting, float* records);
void sfi_rebuild_chunk_gather_4(const sf_topology* topo, int weld, const float* records, int weighting, size_t v0,
                                size_t v1, float* normals, float* tangents);

/* sfi_deform's arrays by the fast path, bit for bit; 0 when it cannot run (the caller takes the scalar loop). */
int sfi_skin_deform(const sf_topology* topo, const sf_pose* pose, sf_morph_directions dirs, sf_workspace* ws);

/* ---------------------------------------------------------------- frame stages */

/* Morph, blend and skin into ws (morph_pos/nrm/tan, blend, det, final_pos). */
sf_result sfi_deform(const sf_topology* topo, const sf_pose* pose, sf_morph_directions dirs, sf_workspace* ws);
/* The topology's rest arrays as one vertex's deformation reads them (sfk_rest_mesh of sfk_fused.h): deform.c's
 * positions vertex by vertex and recompute-fused. */
struct sfk_rest_mesh sfi_rest_mesh(const sf_topology* topo);

/* sf_frames_compute after its checks (pose, method, workspace, opts), on ws's backend. */
sf_result sfi_frames_compute(const sf_topology* topo, const sf_pose* pose, sf_method method, const sf_frames_opts* opts,
                             sf_workspace* ws, const sf_frames_out* out, int deformed, sf_error* err);
/* The CPU backend's frames: the deform (skipped when `deformed`: ws already holds this pose deformed with
 * opts->morph_directions), then the method's frames and report. */
sf_result sfi_frames_cpu(const sf_topology* topo, const sf_pose* pose, sf_method method, const sf_frames_opts* opts,
                         sf_workspace* ws, const sf_frames_out* out, int deformed, sf_error* err);
/* Whether sfi_frames_cpu's fast path for the method reads the whole deform where `deformed` (the blended
 * matrices, morphed positions and directions: the per-vertex methods' and the jacobians' steps), not only the
 * final positions and determinants the reference's own fast path writes. */
bool sfi_frames_read_deform(sf_method method);

/* The rebuilt frames (rebuild.c) from positions (3n) with the corners' determinants det (n) into normals
 * (3n) / tangents (4n), either may be NULL; uses ws's face arrays and MikkTSpace scratch. */
sf_result sfi_rebuild(const sf_topology* topo, const sf_frames_opts* opts, sf_workspace* ws, const float* positions,
                      const float* det, float* normals, float* tangents, sf_error* err);
/* MikkTSpace-compatible tangents (rebuild.c over mikktspace.c) from positions and normals; overwrites
 * tangents (4n): each vertex's first corner, w in the mesh's uv convention, flipped where ws->det < 0. */
sf_result sfi_mikktspace_tangents(const sf_topology* topo, const float* positions, const float* normals,
                                  sf_workspace* ws, float* tangents, sf_error* err);
/* sfi_mikktspace_tangents in two steps over the same positions and normals: the graph (sfi_mikktspace_groups;
 * SF_ERROR_UNSUPPORTED for a mesh without UVs, which has no groups), then the sums and the per-vertex output. */
sf_result sfi_mikktspace_prepare(const sf_topology* topo, const float* positions, const float* normals,
                                 sf_workspace* ws, sfi_mikk_groups* out, sf_error* err);
sf_result sfi_mikktspace_tangents_prepared(const sf_topology* topo, const float* positions, const float* normals,
                                           sf_workspace* ws, float* tangents, sf_error* err);
/* Per-corner tangents (4 * 3F: xyz, w) of the last sfi_mikktspace_tangents on ws, with MikkTSpace's own sign
 * (v up, before the uv convention and mirroring); NULL if none. */
const float* sfi_mikktspace_corner_tangents(const sf_workspace* ws);

/* The authored-normals reference (authored.c), from ws->final_pos. */
sf_result sfi_authored_frames(const sf_topology* topo, const sf_frames_opts* opts, sf_workspace* ws, float* normals,
                              float* tangents, sf_error* err);

/* `recompute` (recompute.c) from ws->final_pos: the rebuilt or the authored reference. */
sf_result sfi_recompute(const sf_topology* topo, const sf_frames_opts* opts, sf_workspace* ws, float* normals,
                        float* tangents, sf_error* err);

/* `recompute-fused` (fused.c): positions, normals and tangents into out in one per-vertex pass (ws->det
 * written too), or the two-pass `recompute` where it cannot be one pass (MikkTSpace tangents, the authored
 * reference; ws->report.fused_two_pass says which). deformed as sfi_frames_compute's. */
sf_result sfi_fused_frames(const sf_topology* topo, const sf_pose* pose, const sf_frames_opts* opts, sf_workspace* ws,
                           const sf_frames_out* out, int deformed, sf_error* err);

/* Whether recompute-fused runs in two passes for opts (the CPU's and the GPU's): *two_pass as
 * sf_frames_report.fused_two_pass (tangents: the caller wants tangents), refused when the two-pass part needs `recompute` and ws lacks it, or
 * the weld groups asked for were not built. */
sf_result sfi_fused_two_pass(const sf_topology* topo, const sf_frames_opts* opts, const sf_workspace* ws,
                             bool tangents, uint32_t* two_pass, sf_error* err);

/* Whether `method`'s frames take the jacobian's fast path on ws (jacobian.c): it deforms in its own pass from the
 * topology's lanes, so the frame needs no sfi_deform and leaves ws's deform arrays as they were. */
int sfi_jacobian_folds(const sf_topology* topo, const sf_workspace* ws, sf_method method);
/* jacobian or jacobian-fan frames (method) into out's normals and tangents, jacobian.c: from ws after sfi_deform,
 * or where sfi_jacobian_folds says so in one pass that also writes out->positions and counts the frame's report
 * (frames.c's counts and finiteness test of out's streams) into ws->chunk_counts (*folded = 1); that pass deforms
 * the pose itself, or reads ws's deform where `deformed` (sfi_frames_compute's). */
sf_result sfi_jacobian_frames(const sf_topology* topo, const sf_pose* pose, sf_method method,
                              const sf_frames_opts* opts, sf_workspace* ws, const sf_frames_out* out, int deformed,
                              int* folded, sf_error* err);

/* ---------------------------------------------------------------- statistics */

/* Reorders a[0..n) (k < n) so that a[k] is the value a sorted copy has there, nothing before it larger and
 * nothing after it smaller (deterministic). depth_limit: partitions before heap selection takes over;
 * sfi_select_depth(n) (2 log2 n) keeps it O(n log n) at worst; 0 = heap selection at once. */
void sfi_select_floats(float* a, size_t n, size_t k, size_t depth_limit);
size_t sfi_select_depth(size_t n);

/* sf_direction_errors without its checks and allocations: normal_deg must be given (n floats) when
 * summary is, and tangent_deg when the mesh has a tangent frame; sort_scratch (n floats) gives the
 * summary's sf_angle_stats (NULL: counts and worst vertices only, stats zero). summary may be NULL. */
sf_result sfi_direction_errors(const sf_topology* topo, const sf_frames_out* method, const sf_frames_out* reference,
                               float* normal_deg, float* tangent_deg, uint8_t* flags, float* sort_scratch,
                               sf_error_summary* summary, sf_error* err);

/* The tangent part of the error per corner (skinframe.h, evaluation, "Tangents per corner"): the method's
 * per-vertex tangents (4n), or its own corner tangents when method_corners is given (12F; the recompute
 * row), against the reference's corner tangents (12F). Writes corner_deg (3F), vertex_deg (n: the worst
 * corner; a vertex in no triangle against ref_tangents, 4n), the tangent bits of flags (n, its normal bits
 * kept) and the summary's tangent fields; degenerate is recounted from flags. sort_scratch (3F floats) gives
 * summary->tangent (NULL: zero). */
sf_result sfi_corner_tangent_errors(const sf_topology* topo, const float* method_tangents, const float* method_corners,
                                    const float* ref_tangents, const float* ref_corners, float* corner_deg,
                                    float* vertex_deg, uint8_t* flags, float* sort_scratch, sf_error_summary* summary,
                                    sf_error* err);

/* Angles counted elsewhere (the GPU's histogram) in the accumulator's own bins (sfk_angle_bin,
 * SFK_ANGLE_BIN_COUNT of them), with their exact count, sums, extremes and shares. The bins come whole, or
 * as the nonzero ones only: then bins[k] angles lie in bin index[k], k < entries (any order, each bin once),
 * which is what a histogram of few filled bins costs to hand over. */
typedef struct sfi_angle_bins {
    uint64_t count, over_1, over_5, over_45;
    double sum, sum2, min, max;
    const uint64_t* bins;   /* SFK_ANGLE_BIN_COUNT, or entries where index is given */
    const uint32_t* index;  /* NULL: bins is whole */
    size_t entries;
} sfi_angle_bins;
/* Adds them to acc as sf_angle_accumulator_merge would (the bins must hold count angles). */
sf_result sfi_angle_accumulator_add_bins(sf_angle_accumulator* acc, const sfi_angle_bins* add, sf_error* err);
/* The number of angles in bin b (< SFK_ANGLE_BIN_COUNT), for the tests that count them independently. */
uint64_t sfi_angle_accumulator_bin_count(const sf_angle_accumulator* acc, size_t b);

#endif /* SF_INTERNAL_H */

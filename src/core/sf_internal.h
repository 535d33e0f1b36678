/* Internal declarations shared by the core's source files (prefix sfi_): the topology and workspace
 * structures and the stages of a frame. Not installed; the layers above the core never include it. */
#ifndef SF_INTERNAL_H
#define SF_INTERNAL_H

#include "sf_common.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- topology */

/* Gradients for the `jacobian` method, filled by sfi_gradients_build (src/jacobian.c). */
typedef struct sfi_gradients sfi_gradients;

struct sf_topology {
    sf_env env;
    size_t vertex_count, triangle_count, bone_count, target_count;
    uint32_t influence_count; /* slots per vertex after merging duplicates */
    bool has_uvs;
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

    /* Weld groups for SF_WELD_POSITION / SF_WELD_POSITION_NORMAL: CSR of group members, and each
     * vertex's group. Built by sfi_weld_build (src/weld.c). */
    uint32_t* weld_group[2];          /* n each: vertex -> group */
    uint32_t* weld_offsets[2];        /* groups + 1 */
    uint32_t* weld_members[2];        /* n */
    size_t weld_group_count[2];
    uint32_t* weld_corner_offsets[2]; /* groups + 1: each group's corners (members' corners, member order) */
    uint32_t* weld_corners[2];        /* 3F */

    sfi_gradients* gradients; /* NULL when skipped */
    struct sfi_mikktspace* mikktspace; /* MikkTSpace precomputation (src/mikktspace.c), NULL without UVs */

    sf_topology_stats stats;
    size_t bytes; /* everything allocated, for stats */
};

/* Allocates through the topology's env and adds to topo->bytes. */
void* sfi_topo_alloc(sf_topology* topo, size_t count, size_t elem);

sf_result sfi_weld_build(sf_topology* topo, float normal_cos, sf_error* err);
void sfi_weld_free(sf_topology* topo);

/* MikkTSpace precomputation at topology creation, and its per-workspace scratch (src/mikktspace.c). */
sf_result sfi_mikktspace_build(sf_topology* topo, sf_error* err);
void sfi_mikktspace_free(sf_topology* topo);
sf_result sfi_mikktspace_scratch_create(sf_workspace* ws, sf_error* err);
void sfi_mikktspace_scratch_free(sf_workspace* ws);

/* Hook for the jacobian gradients (src/jacobian.c). */
sf_result sfi_gradients_build(sf_topology* topo, sf_error* err);
void sfi_gradients_free(sf_topology* topo);
/* Read-only view of the jacobian gradients, CSR over vertices (for a CUDA upload, tests): vertex v's
 * weight slots are [slot_offsets[v], slot_offsets[v+1]) with slot_joint (or SFK_REST_JOINT) and
 * slot_guv (2 floats: g.u, g.v), its morph entries [morph_offsets[v], ...) with morph_target and
 * morph_duv (6 floats: grad d u, grad d v), in the basis sfk_rest_basis(rest normal). The arguments of
 * sfk_jacobian_vertex. Returns 0 (view zeroed) when the topology was built with skip_gradients. */
typedef struct sfi_gradients_view {
    const uint32_t *slot_offsets, *slot_joint;
    const float* slot_guv;
    const uint32_t *morph_offsets, *morph_target;
    const float* morph_duv;
} sfi_gradients_view;
int sfi_gradients_get(const sf_topology* topo, sfi_gradients_view* out);

/* ---------------------------------------------------------------- workspace and frame stages */

/* Jacobian scratch (per workspace), owned by src/jacobian.c. */
typedef struct sfi_jacobian_scratch sfi_jacobian_scratch;

struct sf_workspace {
    const sf_topology* topo;
    float* morph_pos; /* 3n morphed rest positions */
    float* morph_nrm; /* 3n morphed rest normals (deltas added when enabled), not normalised */
    float* morph_tan; /* 3n morphed rest tangents */
    float* blend;     /* 12n blended matrices */
    float* det;       /* n determinants of the blended matrices */
    float* final_pos; /* 3n */
    float* face_n;    /* 3F: cross(e1, e2) (negated where the corners mirror on balance); unit under the
                         angle and uniform weightings (see src/recompute.c face_range) */
    float* face_t;    /* 3F */
    float* face_b;    /* 3F */
    float* corner_w;  /* 3F: each face corner's weight in the recompute gather (0 for a collapsed face) */
    sfi_jacobian_scratch* jacobian;
    struct sfi_mikktspace_scratch* mikktspace; /* src/mikktspace.c */
    struct sfi_authored_scratch* authored;     /* src/authored.c */
    sf_frames_report report;
    size_t bytes;
};

/* Morph, blend and skin into ws (morph_pos/nrm/tan, blend, det, final_pos). */
sf_result sfi_deform(const sf_topology* topo, const sf_pose* pose, sf_morph_directions dirs, sf_workspace* ws);

/* Recompute from ws->final_pos into normals (3n) / tangents (4n); either may be NULL. */
sf_result sfi_recompute(const sf_topology* topo, const sf_frames_opts* opts, sf_workspace* ws, float* normals,
                        float* tangents, sf_error* err);

/* MikkTSpace-compatible tangents (src/mikktspace.c) from final positions and the recomputed normals;
 * overwrites tangents (4n). */
sf_result sfi_mikktspace_tangents(const sf_topology* topo, const float* positions, const float* normals,
                                  sf_workspace* ws, float* tangents, sf_error* err);
/* The authored-normals reference (src/authored.c): called by sfi_recompute for SF_REFERENCE_AUTHORED. */
sf_result sfi_authored_frames(const sf_topology* topo, const sf_frames_opts* opts, sf_workspace* ws, float* normals,
                              float* tangents, sf_error* err);
sf_result sfi_authored_scratch_create(sf_workspace* ws, sf_error* err);
void sfi_authored_scratch_free(sf_workspace* ws);
/* Scratch normals (3n) for sfi_recompute when the caller wants tangents but no normals. */
float* sfi_mikktspace_normal_scratch(sf_workspace* ws);
/* Per-corner tangents (4 * 3F: xyz, w) of the last sfi_mikktspace_tangents on ws, with MikkTSpace's own sign
 * (v up, before the uv convention and mirroring); NULL if none. */
const float* sfi_mikktspace_corner_tangents(const sf_workspace* ws);

/* Jacobian frames from ws (after sfi_deform). Implemented in src/jacobian.c. */
sf_result sfi_jacobian_frames(const sf_topology* topo, const sf_pose* pose, const sf_frames_opts* opts,
                              sf_workspace* ws, float* normals, float* tangents, sf_error* err);
sf_result sfi_jacobian_scratch_create(sf_workspace* ws, sf_error* err);
void sfi_jacobian_scratch_free(sf_workspace* ws);

/* ---------------------------------------------------------------- statistics */

/* Sorts a[0..n) ascending (deterministic). */
void sfi_sort_floats(float* a, size_t n);

/* sf_direction_errors without its checks and allocations: normal_deg must be given (n floats) when
 * summary is, and tangent_deg when the mesh has a tangent frame; sort_scratch (n floats) gives the
 * summary's sf_angle_stats (NULL: counts and worst vertices only, stats zero). summary may be NULL. */
sf_result sfi_direction_errors(const sf_topology* topo, const sf_frames_out* method, const sf_frames_out* reference,
                               float* normal_deg, float* tangent_deg, uint8_t* flags, float* sort_scratch,
                               sf_error_summary* summary, sf_error* err);

#endif /* SF_INTERNAL_H */

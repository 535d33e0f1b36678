/* Topology: validates the rest mesh, keeps packed copies of its streams, normalises influences,
 * regroups morph deltas per vertex, builds vertex -> face-corner adjacency, and generates missing
 * rest normals and tangents. Built once per mesh; read-only afterwards. */
#include "sf_internal.h"
#include "sf_kernels.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define WEIGHT_SUM_TOLERANCE 1e-3

static void* topo_alloc(sf_topology* topo, size_t count, size_t elem)
{
    void* p = sf_env_calloc(&topo->env, count, elem);
    if (p) topo->bytes += count * elem;
    return p;
}

static void topo_free(sf_topology* topo, void* p) { sf_env_free(&topo->env, p, 0); }

static sf_result check_stream(sf_stream s, size_t elem_floats, const char* field, sf_error* err)
{
    size_t packed = elem_floats * sizeof(float);
    SF_CHECK(s.stride == 0 || (s.stride >= packed && s.stride % 4 == 0), SF_ERROR_STRIDE, err, field, SFI_NO_INDEX,
             "stride %zu bytes, need 0 or a multiple of 4 >= %zu", s.stride, packed);
    return SF_OK;
}

/* Every component finite; the first `bounded` of each element within SF_MAX_COORD (a tangent's w is only a
 * sign). Raises *max to the largest |bounded component|. */
static sf_result check_values(const float* v, size_t bounded, size_t elem_floats, const char* field, size_t i,
                              float* max, sf_error* err)
{
    for (size_t k = 0; k < elem_floats; ++k) {
        SF_CHECK(isfinite(v[k]), SF_ERROR_NOT_FINITE, err, field, i, "component %zu is %g", k, (double)v[k]);
        if (k >= bounded) continue;
        float a = fabsf(v[k]);
        SF_CHECK(a <= SF_MAX_COORD, SF_ERROR_TOO_LARGE, err, field, i, "component %zu is %g, beyond SF_MAX_COORD (%g)",
                 k, (double)v[k], (double)SF_MAX_COORD);
        if (a > *max) *max = a;
    }
    return SF_OK;
}

static sf_result check_stream_values(sf_stream s, size_t bounded, size_t elem_floats, size_t n, const char* field,
                                     float* max, sf_error* err)
{
    for (size_t i = 0; s.data && i < n; ++i) {
        sf_result r = check_values(sfi_stream_at(s, elem_floats * sizeof(float), i), bounded, elem_floats, field, i,
                                   max, err);
        if (r != SF_OK) return r;
    }
    return SF_OK;
}

/* What validation measured, for the pose's bounds (see sf_topology.max_position). */
typedef struct mesh_magnitudes {
    float position, direction;
    float* target_max; /* 2 per target (+2), allocated through env by validate_mesh; the caller frees it */
} mesh_magnitudes;

static sf_result validate_mesh(const sf_mesh_desc* m, const sf_env* env, mesh_magnitudes* mag, sf_error* err)
{
    sf_result r;
    SF_CHECK(m != NULL, SF_ERROR_INVALID_ARGUMENT, err, "mesh", SFI_NO_INDEX, "is NULL");
    SF_CHECK(m->vertex_count < UINT32_MAX, SF_ERROR_INVALID_ARGUMENT, err, "mesh.vertex_count", SFI_NO_INDEX,
             "%zu exceeds 2^32-1", m->vertex_count);
    SF_CHECK(m->triangle_count <= UINT32_MAX / 3, SF_ERROR_INVALID_ARGUMENT, err, "mesh.triangle_count",
             SFI_NO_INDEX, "%zu too large", m->triangle_count);
    /* Per-element arrays hold up to 32 floats per vertex (16 jacobian weight slots of 2) and 18 per
     * triangle (MikkTSpace scratch): keep every element count within size_t (32-bit builds). */
    SF_CHECK(m->vertex_count <= SIZE_MAX / (32 * sizeof(float)), SF_ERROR_INVALID_ARGUMENT, err, "mesh.vertex_count",
             SFI_NO_INDEX, "%zu too large for this platform", m->vertex_count);
    SF_CHECK(m->triangle_count <= SIZE_MAX / (32 * sizeof(float)), SF_ERROR_INVALID_ARGUMENT, err,
             "mesh.triangle_count", SFI_NO_INDEX, "%zu too large for this platform", m->triangle_count);
    SF_CHECK(m->influence_count == 0 || m->vertex_count <= SIZE_MAX / sizeof(float) / m->influence_count,
             SF_ERROR_INVALID_ARGUMENT, err, "mesh.influence_count", SFI_NO_INDEX,
             "%u influences x %zu vertices too large", m->influence_count, m->vertex_count);
    SF_CHECK(m->vertex_count == 0 || m->positions.data, SF_ERROR_MISSING_STREAM, err, "mesh.positions",
             SFI_NO_INDEX, "required for %zu vertices", m->vertex_count);
    SF_CHECK((unsigned)m->uv_convention <= SF_UV_V_UP, SF_ERROR_INVALID_ARGUMENT, err, "mesh.uv_convention",
             SFI_NO_INDEX, "%d is not a convention", (int)m->uv_convention);
    SF_CHECK(m->triangle_count == 0 || m->indices, SF_ERROR_MISSING_STREAM, err, "mesh.indices", SFI_NO_INDEX,
             "required for %zu triangles", m->triangle_count);
    if ((r = check_stream(m->positions, 3, "mesh.positions", err)) != SF_OK) return r;
    if ((r = check_stream(m->normals, 3, "mesh.normals", err)) != SF_OK) return r;
    if ((r = check_stream(m->tangents, 4, "mesh.tangents", err)) != SF_OK) return r;
    if ((r = check_stream(m->uvs, 2, "mesh.uvs", err)) != SF_OK) return r;
    float uv_max = 0.0f;
    size_t n = m->vertex_count;
    if ((r = check_stream_values(m->positions, 3, 3, n, "mesh.positions", &mag->position, err)) != SF_OK) return r;
    if ((r = check_stream_values(m->normals, 3, 3, n, "mesh.normals", &mag->direction, err)) != SF_OK) return r;
    if ((r = check_stream_values(m->tangents, 3, 4, n, "mesh.tangents", &mag->direction, err)) != SF_OK) return r;
    if ((r = check_stream_values(m->uvs, 2, 2, n, "mesh.uvs", &uv_max, err)) != SF_OK) return r;
    if (!m->normals.data) mag->direction = mag->direction > 1.0f ? mag->direction : 1.0f; /* generated: unit */
    if (!m->tangents.data) mag->direction = mag->direction > 1.0f ? mag->direction : 1.0f;
    for (size_t i = 0; i < 3 * m->triangle_count; ++i)
        SF_CHECK(m->indices[i] < m->vertex_count, SF_ERROR_INDEX_RANGE, err, "mesh.indices", i,
                 "index %u >= vertex_count %zu", m->indices[i], m->vertex_count);
    if (m->influence_count > 0) {
        SF_CHECK(m->joints && m->weights, SF_ERROR_MISSING_STREAM, err, m->joints ? "mesh.weights" : "mesh.joints",
                 SFI_NO_INDEX, "required with influence_count %u", m->influence_count);
        SF_CHECK(m->bone_count > 0, SF_ERROR_COUNT_MISMATCH, err, "mesh.bone_count", SFI_NO_INDEX,
                 "is 0 with influence_count %u", m->influence_count);
        /* the kernels address bone j's matrix as 12u * j in 32 bits */
        SF_CHECK(m->bone_count <= UINT32_MAX / 12, SF_ERROR_INVALID_ARGUMENT, err, "mesh.bone_count", SFI_NO_INDEX,
                 "%zu too large", m->bone_count);
        size_t total = (size_t)m->influence_count * m->vertex_count;
        for (size_t i = 0; i < total; ++i) {
            float w = m->weights[i];
            SF_CHECK(isfinite(w), SF_ERROR_NOT_FINITE, err, "mesh.weights", i, "weight is %g (vertex %zu)", (double)w,
                     i / m->influence_count);
            SF_CHECK(w >= 0.0f, SF_ERROR_NEGATIVE_WEIGHT, err, "mesh.weights", i, "weight %g < 0 (vertex %zu)",
                     (double)w, i / m->influence_count);
            SF_CHECK(m->joints[i] < m->bone_count, SF_ERROR_JOINT_INDEX, err, "mesh.joints", i,
                     "joint %u >= bone_count %zu (vertex %zu)", m->joints[i], m->bone_count, i / m->influence_count);
        }
    }
    SF_CHECK(m->target_count == 0 || m->targets, SF_ERROR_MISSING_STREAM, err, "mesh.targets", SFI_NO_INDEX,
             "required for target_count %zu", m->target_count);
    float* target_max = m->target_count <= SIZE_MAX / 8 - 1 ? sf_env_calloc(env, 2 * m->target_count + 2, sizeof(float))
                                                            : NULL;
    if (!target_max) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "topology", SFI_NO_INDEX, "target magnitudes");
    mag->target_max = target_max;
    for (size_t k = 0; k < m->target_count; ++k) {
        const sf_morph_target_desc* t = &m->targets[k];
        char field[64];
        snprintf(field, sizeof field, "mesh.targets[%zu].position_deltas", k);
        size_t count = t->sparse_indices ? t->sparse_count : m->vertex_count;
        SF_CHECK(t->position_deltas || count == 0, SF_ERROR_MISSING_STREAM, err, field, SFI_NO_INDEX, "required");
        if (t->sparse_indices) {
            snprintf(field, sizeof field, "mesh.targets[%zu].sparse_indices", k);
            for (size_t i = 0; i < t->sparse_count; ++i) {
                SF_CHECK(t->sparse_indices[i] < m->vertex_count, SF_ERROR_INDEX_RANGE, err, field, i,
                         "index %u >= vertex_count %zu", t->sparse_indices[i], m->vertex_count);
                SF_CHECK(i == 0 || t->sparse_indices[i] > t->sparse_indices[i - 1], SF_ERROR_INVALID_ARGUMENT, err,
                         field, i, "indices must increase strictly (%u after %u)", t->sparse_indices[i],
                         t->sparse_indices[i - 1]);
            }
        }
        const float* streams[3] = {t->position_deltas, t->normal_deltas, t->tangent_deltas};
        const char* names[3] = {"position_deltas", "normal_deltas", "tangent_deltas"};
        target_max[2 * k] = target_max[2 * k + 1] = 0.0f;
        for (int s = 0; s < 3; ++s) {
            if (!streams[s]) continue;
            snprintf(field, sizeof field, "mesh.targets[%zu].%s", k, names[s]);
            float* max = &target_max[2 * k + (s ? 1 : 0)];
            for (size_t i = 0; i < count; ++i)
                if ((r = check_values(streams[s] + 3 * i, 3, 3, field, i, max, err)) != SF_OK) return r;
        }
    }
    return SF_OK;
}

/* Merges duplicate joints, renormalises by the sum over every influence set, applies the policies. */
static sf_result normalize_influences(sf_topology* topo, const sf_mesh_desc* m, sf_error* err)
{
    uint32_t K = m->influence_count;
    for (size_t v = 0; v < m->vertex_count; ++v) {
        uint32_t* j = topo->joints + (size_t)K * v;
        float* w = topo->weights + (size_t)K * v;
        memcpy(j, m->joints + (size_t)K * v, K * sizeof *j);
        memcpy(w, m->weights + (size_t)K * v, K * sizeof *w);
        /* Weights are relative: ones whose sum passes float (merging duplicates adds them in float) are divided
         * by it first, which counts as renormalising. */
        double pre = 0.0;
        for (uint32_t a = 0; a < K; ++a) pre += w[a];
        bool prescaled = pre > (double)FLT_MAX;
        if (prescaled)
            for (uint32_t a = 0; a < K; ++a) w[a] = (float)(w[a] / pre);
        for (uint32_t a = 0; a < K; ++a) {
            if (w[a] == 0.0f) continue;
            for (uint32_t b = a + 1; b < K; ++b) {
                if (j[b] == j[a] && w[b] != 0.0f) {
                    w[a] += w[b];
                    w[b] = 0.0f;
                    topo->stats.merged_duplicate_joints++;
                }
            }
        }
        double sum = 0.0;
        for (uint32_t a = 0; a < K; ++a) sum += w[a];
        if (sum == 0.0) {
            SF_CHECK(m->zero_weight_policy == SF_ZERO_WEIGHTS_REST, SF_ERROR_ZERO_WEIGHTS, err, "mesh.weights", v,
                     "vertex %zu has no weight (sum 0); choose SF_ZERO_WEIGHTS_REST to keep it at rest", v);
            topo->stats.zero_weight_vertices++;
            continue;
        }
        if (prescaled || fabs(sum - 1.0) > WEIGHT_SUM_TOLERANCE) {
            SF_CHECK(m->weight_policy != SF_WEIGHTS_STRICT, SF_ERROR_WEIGHT_SUM, err, "mesh.weights", v,
                     "vertex %zu weights sum to %g, not 1", v, prescaled ? pre : sum);
            topo->stats.renormalized_vertices++;
        }
        if (m->weight_policy != SF_WEIGHTS_AS_GIVEN || prescaled)
            for (uint32_t a = 0; a < K; ++a) w[a] = (float)(w[a] / sum);
        for (uint32_t a = 0; a < K; ++a) {
            if (w[a] == 0.0f)
                j[a] = 0; /* unused slots point at bone 0 */
            else
                topo->bone_used[j[a]] = 1;
        }
    }
    return SF_OK;
}

static bool delta_nonzero(const float* d) { return d && (d[0] != 0.0f || d[1] != 0.0f || d[2] != 0.0f); }

/* Regroups every target's deltas per vertex (CSR), dropping all-zero entries of dense targets. */
static sf_result build_morph_csr(sf_topology* topo, const sf_mesh_desc* m, sf_error* err)
{
    size_t n = m->vertex_count;
    topo->morph_offsets = topo_alloc(topo, n + 1, sizeof(uint32_t));
    if (!topo->morph_offsets) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "topology.morph", SFI_NO_INDEX, "offsets");
    /* Pass 1: count entries per vertex; pass 2: fill in target order so entries are deterministic. */
    uint64_t entries = 0;
    for (int pass = 0; pass < 2; ++pass) {
        uint32_t* cursor = NULL;
        if (pass == 1) {
            size_t total = topo->morph_offsets[n];
            topo->morph_target = topo_alloc(topo, total, sizeof(uint32_t));
            topo->morph_dp = topo_alloc(topo, total, 3 * sizeof(float));
            topo->morph_dn = topo_alloc(topo, total, 3 * sizeof(float));
            topo->morph_dt = topo_alloc(topo, total, 3 * sizeof(float));
            cursor = sf_env_calloc(&topo->env, n + 1, sizeof(uint32_t));
            if (!topo->morph_target || !topo->morph_dp || !topo->morph_dn || !topo->morph_dt || !cursor) {
                sf_env_free(&topo->env, cursor, 0);
                return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "topology.morph", SFI_NO_INDEX, "%zu entries", total);
            }
            memcpy(cursor, topo->morph_offsets, (n + 1) * sizeof(uint32_t));
        }
        for (size_t k = 0; k < m->target_count; ++k) {
            const sf_morph_target_desc* t = &m->targets[k];
            size_t count = t->sparse_indices ? t->sparse_count : n;
            for (size_t i = 0; i < count; ++i) {
                size_t v = t->sparse_indices ? t->sparse_indices[i] : i;
                const float* dp = t->position_deltas + 3 * i;
                const float* dn = t->normal_deltas ? t->normal_deltas + 3 * i : NULL;
                const float* dt = t->tangent_deltas ? t->tangent_deltas + 3 * i : NULL;
                if (!t->sparse_indices && !delta_nonzero(dp) && !delta_nonzero(dn) && !delta_nonzero(dt)) continue;
                if (pass == 0) {
                    /* 32-bit offsets: refuse rather than wrap (targets may share one delta array) */
                    SF_CHECK(++entries <= UINT32_MAX, SF_ERROR_INVALID_ARGUMENT, err, "mesh.targets", k,
                             "more than 2^32 - 1 morph delta entries in all");
                    topo->morph_offsets[v + 1]++;
                    continue;
                }
                uint32_t e = cursor[v]++;
                topo->morph_target[e] = (uint32_t)k;
                memcpy(topo->morph_dp + 3 * e, dp, 3 * sizeof(float));
                if (dn) memcpy(topo->morph_dn + 3 * e, dn, 3 * sizeof(float));
                if (dt) memcpy(topo->morph_dt + 3 * e, dt, 3 * sizeof(float));
            }
        }
        if (pass == 0)
            for (size_t v = 0; v < n; ++v) topo->morph_offsets[v + 1] += topo->morph_offsets[v];
        else
            sf_env_free(&topo->env, cursor, 0);
    }
    return SF_OK;
}

static sf_result build_adjacency(sf_topology* topo, sf_error* err)
{
    size_t n = topo->vertex_count, corners = 3 * topo->triangle_count;
    topo->adj_offsets = topo_alloc(topo, n + 1, sizeof(uint32_t));
    topo->adj_corners = topo_alloc(topo, corners, sizeof(uint32_t));
    uint32_t* cursor = sf_env_calloc(&topo->env, n + 1, sizeof(uint32_t));
    if (!topo->adj_offsets || !topo->adj_corners || !cursor) {
        sf_env_free(&topo->env, cursor, 0);
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "topology.adjacency", SFI_NO_INDEX, "%zu corners", corners);
    }
    for (size_t c = 0; c < corners; ++c) topo->adj_offsets[topo->indices[c] + 1]++;
    for (size_t v = 0; v < n; ++v) topo->adj_offsets[v + 1] += topo->adj_offsets[v];
    memcpy(cursor, topo->adj_offsets, (n + 1) * sizeof(uint32_t));
    for (size_t c = 0; c < corners; ++c) topo->adj_corners[cursor[topo->indices[c]]++] = (uint32_t)c;
    sf_env_free(&topo->env, cursor, 0);
    for (size_t v = 0; v < n; ++v)
        if (topo->adj_offsets[v] == topo->adj_offsets[v + 1]) topo->stats.isolated_vertices++;
    return SF_OK;
}

/* Rest-pose statistics of the triangles: zero area and zero UV area. */
static void count_degenerate_triangles(sf_topology* topo)
{
    for (size_t f = 0; f < topo->triangle_count; ++f) {
        const uint32_t* tri = topo->indices + 3 * f;
        const float* uv[3] = {NULL, NULL, NULL};
        if (topo->uvs)
            for (int c = 0; c < 3; ++c) uv[c] = topo->uvs + 2 * tri[c];
        float n[3], t[3], b[3];
        int uv_ok = sfk_face_frame(topo->rest_positions + 3 * tri[0], topo->rest_positions + 3 * tri[1],
                                   topo->rest_positions + 3 * tri[2], uv[0], uv[1], uv[2], n, t, b);
        if (!(sfk_dot(n, n) >= SF_SAFE_UNIT_EPS2)) topo->stats.degenerate_triangles++;
        if (topo->uvs && !uv_ok) topo->stats.degenerate_uv_triangles++;
    }
}

/* Missing rest normals/tangents: the reference gather at the rest pose (area weights). */
static sf_result generate_rest_frames(sf_topology* topo, bool need_normals, bool need_tangents, sf_error* err)
{
    if (!need_normals && !need_tangents) return SF_OK;
    return sfi_rest_frames(topo->vertex_count, topo->triangle_count, topo->indices, topo->rest_positions, topo->uvs,
                           need_normals ? NULL : topo->rest_normals, topo->bitangent_sign, &topo->env,
                           need_normals ? topo->rest_normals : NULL, need_tangents ? topo->rest_tangents : NULL, err);
}

static sf_result copy_streams(sf_topology* topo, const sf_mesh_desc* m, sf_error* err)
{
    size_t n = m->vertex_count, F = m->triangle_count;
    topo->rest_positions = topo_alloc(topo, 3 * n, sizeof(float));
    topo->rest_normals = topo_alloc(topo, 3 * n, sizeof(float));
    topo->rest_tangents = topo_alloc(topo, 4 * n, sizeof(float));
    topo->indices = topo_alloc(topo, 3 * F, sizeof(uint32_t));
    if (m->uvs.data) topo->uvs = topo_alloc(topo, 2 * n, sizeof(float));
    if (m->influence_count) {
        topo->joints = topo_alloc(topo, (size_t)m->influence_count * n, sizeof(uint32_t));
        topo->weights = topo_alloc(topo, (size_t)m->influence_count * n, sizeof(float));
        topo->bone_used = topo_alloc(topo, m->bone_count, 1);
    }
    if (!topo->rest_positions || !topo->rest_normals || !topo->rest_tangents || !topo->indices ||
        (m->uvs.data && !topo->uvs) ||
        (m->influence_count && (!topo->joints || !topo->weights || !topo->bone_used)))
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "topology", SFI_NO_INDEX, "streams for %zu vertices", n);
    if (F) memcpy(topo->indices, m->indices, 3 * F * sizeof(uint32_t));
    for (size_t v = 0; v < n; ++v) {
        memcpy(topo->rest_positions + 3 * v, sfi_stream_at(m->positions, 12, v), 12);
        if (m->normals.data) memcpy(topo->rest_normals + 3 * v, sfi_stream_at(m->normals, 12, v), 12);
        if (m->uvs.data) memcpy(topo->uvs + 2 * v, sfi_stream_at(m->uvs, 8, v), 8);
        if (m->tangents.data) {
            const float* t = sfi_stream_at(m->tangents, 16, v);
            memcpy(topo->rest_tangents + 4 * v, t, 12);
            topo->rest_tangents[4 * v + 3] = t[3] < 0.0f ? -1.0f : 1.0f; /* handedness is a sign */
        } else {
            topo->rest_tangents[4 * v + 3] = 1.0f;
        }
    }
    return SF_OK;
}

sfi_mesh_view sfi_topology_view(const sf_topology* topo)
{
    sfi_mesh_view m;
    memset(&m, 0, sizeof m);
    m.vertex_count = topo->vertex_count;
    m.triangle_count = topo->triangle_count;
    m.positions = topo->rest_positions;
    m.normals = topo->rest_normals;
    m.indices = topo->indices;
    m.adj_offsets = topo->adj_offsets;
    m.adj_corners = topo->adj_corners;
    m.influence_count = topo->influence_count;
    m.joints = topo->joints;
    m.weights = topo->weights;
    m.morph_offsets = topo->morph_offsets;
    m.morph_target = topo->morph_target;
    m.morph_dp = topo->morph_dp;
    return m;
}

/* Weld groups, MikkTSpace's UV flags and the jacobian gradients, built from the topology's own arrays; each
 * builder counts its bytes in a store of its own, added to the topology's. */
static sf_result build_derived(sf_topology* topo, const sf_topology_opts* o, sf_error* err)
{
    sfi_mesh_view view = sfi_topology_view(topo);
    sfi_store store = {&topo->env, 0};
    float normal_cos = o->weld_normal_cos != 0.0f ? o->weld_normal_cos : 0.9999f;
    /* generated normals carry no authored hard edge: position+normal groups are then the position groups */
    sf_result r = sfi_weld_build(&view, normal_cos, !topo->stats.generated_normals, &store, topo->weld, &topo->stats, err);
    topo->bytes += store.bytes;
    if (r != SF_OK) return r;
    store.bytes = 0;
    r = sfi_lanes_build(topo->vertex_count, topo->rest_positions, topo->rest_normals, topo->rest_tangents,
                        topo->influence_count, topo->joints, topo->weights, topo->bone_count, &store, &topo->lanes, err);
    if (r == SF_OK)
        r = sfi_lanes_build_morph(topo->vertex_count, topo->target_count, topo->morph_offsets, topo->morph_target,
                                  topo->morph_dp, topo->morph_dn, topo->morph_dt, &store, &topo->lanes, err);
    topo->bytes += store.bytes;
    if (r != SF_OK) return r;
    store.bytes = 0;
    r = sfi_fused_plan_build(topo->vertex_count, topo->triangle_count, topo->indices, topo->adj_offsets,
                             topo->adj_corners, topo->weld, &store, &topo->fused, err);
    topo->bytes += store.bytes;
    if (r != SF_OK) return r;
    if (topo->uvs) {
        store.bytes = 0;
        r = sfi_mikktspace_uv_flags_build(topo->indices, topo->uvs, topo->triangle_count, &store, &topo->mikk_uv_flags,
                                          err);
        topo->bytes += store.bytes;
        if (r != SF_OK) return r;
    }
    if (!o->skip_gradients) {
        store.bytes = 0;
        r = sfi_gradients_build(&view, NULL, &store, &topo->gradients, &topo->stats.dropped_gradient_slots, err);
        topo->bytes += store.bytes;
        topo->stats.gradient_bytes = store.bytes;
        if (r != SF_OK) return r;
        store.bytes = 0;
        r = sfi_jacobian_lanes_build(topo->vertex_count, topo->gradients, topo->bone_count, &store,
                                     &topo->jacobian_lanes, err);
        topo->bytes += store.bytes;
        if (r != SF_OK) return r;
        store.bytes = 0;
        size_t dropped = 0;
        r = sfi_gradients_build(&view, &topo->weld[1], &store, &topo->fan_gradients, &dropped, err);
        topo->bytes += store.bytes;
        topo->stats.fan_gradient_bytes = store.bytes;
        topo->stats.dropped_fan_gradient_slots = dropped;
        if (r != SF_OK) return r;
        store.bytes = 0;
        r = sfi_jacobian_lanes_build(topo->vertex_count, topo->fan_gradients, topo->bone_count, &store,
                                     &topo->fan_lanes, err);
        topo->bytes += store.bytes;
        if (r != SF_OK) return r;
    }
    return SF_OK;
}

/* The vertices whose corners get different MikkTSpace tangents at rest: what a loader generating TANGENT
 * from these rest streams must split (sf_topology_stats.mikktspace_split_vertices). */
static sf_result count_mikktspace_splits(sf_topology* topo, sf_error* err)
{
    size_t n = topo->vertex_count, F = topo->triangle_count;
    if (!topo->uvs || F == 0) return SF_OK;
    sf_tangent_desc d;
    memset(&d, 0, sizeof d);
    d.vertex_count = n;
    d.triangle_count = F;
    d.indices = topo->indices;
    d.positions.data = topo->rest_positions;
    d.normals.data = topo->rest_normals;
    d.uvs.data = topo->uvs;
    d.uv_convention = topo->bitangent_sign > 0.0f ? SF_UV_V_UP : SF_UV_GLTF;
    d.mode = SF_TANGENTS_MIKKTSPACE;
    float* corners = sf_env_calloc(&topo->env, 12 * F, sizeof(float));
    if (!corners) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "topology.mikktspace", SFI_NO_INDEX, "%zu triangles", F);
    sf_tangent_split split;
    memset(&split, 0, sizeof split);
    sf_result r = sf_tangents_generate(&d, &topo->env, corners, err);
    if (r == SF_OK) r = sf_tangents_split(n, F, topo->indices, corners, &topo->env, &split, err);
    if (r == SF_OK) topo->stats.mikktspace_split_vertices = split.split_vertices;
    sf_env_free(&topo->env, corners, 0);
    return r;
}

sf_result sf_topology_create(const sf_mesh_desc* mesh, const sf_topology_opts* opts, const sf_env* env,
                             sf_topology** out, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(out != NULL, SF_ERROR_INVALID_ARGUMENT, err, "out", SFI_NO_INDEX, "is NULL");
    *out = NULL;
    sf_env e = sf_env_defaults(env);
    mesh_magnitudes mag = {0.0f, 0.0f, NULL};
    sf_result r = validate_mesh(mesh, &e, &mag, err);
    sf_topology_opts o;
    memset(&o, 0, sizeof o);
    if (opts) o = *opts;
    if (r == SF_OK && !(o.weld_normal_cos >= -1.0f && o.weld_normal_cos <= 1.0f))
        r = sf_error_set(err, SF_ERROR_INVALID_ARGUMENT, "opts.weld_normal_cos", SFI_NO_INDEX,
                         "%g, need a cosine in [-1, 1] (0 = 0.9999)", (double)o.weld_normal_cos);
    float* target_max = mag.target_max;
    if (r != SF_OK) {
        sf_env_free(&e, target_max, 0);
        return r;
    }

    sf_topology* topo = sf_env_calloc(&e, 1, sizeof *topo);
    if (!topo) {
        sf_env_free(&e, target_max, 0);
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "topology", SFI_NO_INDEX, "object");
    }
    topo->env = e;
    topo->bytes = sizeof *topo + (2 * mesh->target_count + 2) * sizeof(float);
    topo->target_max = target_max;
    topo->max_position = mag.position;
    topo->max_direction = mag.direction;
    topo->vertex_count = mesh->vertex_count;
    topo->triangle_count = mesh->triangle_count;
    topo->bone_count = mesh->influence_count ? mesh->bone_count : 0;
    topo->target_count = mesh->target_count;
    topo->influence_count = mesh->influence_count;
    topo->has_uvs = mesh->uvs.data != NULL;
    topo->simd_level = sfi_simd_detect();
    topo->bitangent_sign = mesh->uv_convention == SF_UV_V_UP ? 1.0f : -1.0f;

    if ((r = copy_streams(topo, mesh, err)) != SF_OK) goto fail;
    if (mesh->influence_count && (r = normalize_influences(topo, mesh, err)) != SF_OK) goto fail;
    if ((r = build_morph_csr(topo, mesh, err)) != SF_OK) goto fail;
    if ((r = build_adjacency(topo, err)) != SF_OK) goto fail;
    count_degenerate_triangles(topo);
    bool need_normals = mesh->normals.data == NULL;
    bool need_tangents = mesh->tangents.data == NULL && topo->has_uvs;
    if ((r = generate_rest_frames(topo, need_normals, need_tangents, err)) != SF_OK) goto fail;
    topo->stats.generated_normals = need_normals;
    topo->stats.generated_tangents = need_tangents;
    if ((r = build_derived(topo, &o, err)) != SF_OK) goto fail;
    if ((r = count_mikktspace_splits(topo, err)) != SF_OK) goto fail;

    topo->stats.vertex_count = topo->vertex_count;
    topo->stats.triangle_count = topo->triangle_count;
    topo->stats.target_count = topo->target_count;
    topo->stats.bone_count = topo->bone_count;
    topo->stats.influence_count = topo->influence_count;
    topo->stats.topology_bytes = topo->bytes;
    *out = topo;
    return SF_OK;
fail:
    sf_topology_destroy(topo);
    return r;
}

void sf_topology_destroy(sf_topology* topo)
{
    if (!topo) return;
    sfi_store store = {&topo->env, 0};
    sfi_gradients_free(&store, topo->gradients);
    sfi_gradients_free(&store, topo->fan_gradients);
    sfi_jacobian_lanes_free(&store, &topo->jacobian_lanes);
    sfi_jacobian_lanes_free(&store, &topo->fan_lanes);
    sfi_weld_free(&store, topo->weld);
    sfi_lanes_free(&store, &topo->lanes);
    sfi_fused_plan_free(&store, &topo->fused);
    topo_free(topo, topo->mikk_uv_flags);
    void* arrays[] = {topo->rest_positions, topo->rest_normals, topo->rest_tangents, topo->uvs,
                      topo->indices,        topo->joints,       topo->weights,       topo->morph_offsets,
                      topo->morph_target,   topo->morph_dp,     topo->morph_dn,      topo->morph_dt,
                      topo->adj_offsets,    topo->adj_corners,      topo->target_max,    topo->bone_used};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i) topo_free(topo, arrays[i]);
    sf_env e = topo->env;
    sf_env_free(&e, topo, sizeof *topo);
}

void sf_topology_get_stats(const sf_topology* topo, sf_topology_stats* out)
{
    *out = topo->stats;
    out->topology_bytes = topo->bytes;
}

size_t sf_topology_vertex_count(const sf_topology* topo) { return topo->vertex_count; }
size_t sf_topology_triangle_count(const sf_topology* topo) { return topo->triangle_count; }
int sf_topology_has_tangent_frame(const sf_topology* topo) { return topo->has_uvs ? 1 : 0; }
float sf_topology_bitangent_sign(const sf_topology* topo) { return topo->bitangent_sign; }
const float* sf_topology_rest_positions(const sf_topology* topo) { return topo->rest_positions; }
const float* sf_topology_rest_normals(const sf_topology* topo) { return topo->rest_normals; }
const float* sf_topology_rest_tangents(const sf_topology* topo) { return topo->rest_tangents; }
const float* sf_topology_uvs(const sf_topology* topo) { return topo->uvs; }
const uint32_t* sf_topology_indices(const sf_topology* topo) { return topo->indices; }

/* The rebuilt frames (the article's section 5) from given positions and determinants: a face pass
 * followed by a gather over the precomputed vertex -> corner adjacency (no atomics, so the result is the
 * same for any thread count), then MikkTSpace tangents when asked. Options: weighting, welding, tangent
 * mode. `recompute` runs it on the final positions; the authored reference also at rest. */
#include "sf_internal.h"
#include "sf_kernels.h"

#include <string.h>

#define FACE_GRAIN 2048 /* a multiple of 4: the fast path's steps */
#define GATHER_GRAIN 1024

typedef struct rebuild_job {
    const sf_topology* topo;
    const sf_frames_opts* opts;
    sf_workspace* ws;
    const float* positions; /* 3n */
    const float* det;       /* n: determinants of the corners' blended matrices */
    float* normals;
    float* tangents;
    int fast; /* the 4-lane loops over face records (rebuild_body.h) */
} rebuild_job;

_Static_assert(SFK_WEIGHTING_AREA == SF_WEIGHTING_AREA && SFK_WEIGHTING_ANGLE == SF_WEIGHTING_ANGLE &&
                   SFK_WEIGHTING_UNIFORM == SF_WEIGHTING_UNIFORM,
               "the kernels number the weightings as sf_weighting");

/* Per face: cross(e1, e2), UV tangent and bitangent, and each corner's weight (sfk_recompute_face), so the
 * gathers (several vertices per face) read them instead of recomputing lengths and angles. */
static void face_range(void* ctx, size_t begin, size_t end)
{
    const rebuild_job* job = (const rebuild_job*)ctx;
    const sf_topology* topo = job->topo;
    sf_workspace* ws = job->ws;
    const float* P = job->positions;
    const float* det = job->det;
    int weighting = (int)job->opts->weighting;
    if (job->fast) {
        sfi_rebuild_faces_4(topo, P, det, weighting, ws->faces, begin, end);
        return;
    }
    for (size_t f = begin; f < end; ++f) {
        const uint32_t* tri = topo->indices + 3 * f;
        const float* uv[3] = {NULL, NULL, NULL};
        if (topo->uvs)
            for (int c = 0; c < 3; ++c) uv[c] = topo->uvs + 2 * tri[c];
        sfk_recompute_face(P + 3 * tri[0], P + 3 * tri[1], P + 3 * tri[2], uv[0], uv[1], uv[2], det[tri[0]],
                           det[tri[1]], det[tri[2]], weighting, ws->face_n + 3 * f, ws->face_t + 3 * f,
                           ws->face_b + 3 * f, ws->corner_w + 3 * f);
    }
}

/* Per vertex: the gather over the vertex's corners (its weld group's for the normal when welded). */
static void gather_range(void* ctx, size_t begin, size_t end)
{
    const rebuild_job* job = (const rebuild_job*)ctx;
    const sf_topology* topo = job->topo;
    const sf_workspace* ws = job->ws;
    int weld = job->opts->weld == SF_WELD_NONE ? -1 : (job->opts->weld == SF_WELD_POSITION ? 0 : 1);
    int weighting = (int)job->opts->weighting;
    if (job->fast) {
        sfi_rebuild_gather_4(topo, weld >= 0 ? &topo->weld[weld] : NULL, ws->faces, weighting, begin, end,
                                job->normals, job->tangents);
        return;
    }
    for (size_t v = begin; v < end; ++v) {
        /* Welded: the normal gathers over the corners of every member of the vertex's group, listed once
         * per group at topology creation (same order as walking the members). */
        const uint32_t* n_corners = topo->adj_corners;
        uint32_t n_begin = topo->adj_offsets[v], n_end = topo->adj_offsets[v + 1];
        if (weld >= 0) {
            uint32_t g = topo->weld[weld].group[v];
            n_corners = topo->weld[weld].corners;
            n_begin = topo->weld[weld].corner_offsets[g];
            n_end = topo->weld[weld].corner_offsets[g + 1];
        }
        float n[3], t[4];
        sfk_recompute_vertex(ws->face_n, ws->face_t, ws->face_b, ws->corner_w, n_corners, n_begin, n_end,
                             topo->adj_corners, topo->adj_offsets[v], topo->adj_offsets[v + 1], weighting,
                             topo->bitangent_sign, n, t);
        if (job->normals) memcpy(job->normals + 3 * v, n, sizeof n);
        if (job->tangents) memcpy(job->tangents + 4 * v, t, sizeof t);
    }
}

/* No UVs: no tangent frame. */
static void no_tangent_frame(size_t n, float* tangents)
{
    for (size_t v = 0; v < n; ++v) {
        float* t = tangents + 4 * v;
        t[0] = t[1] = t[2] = 0.0f;
        t[3] = 1.0f;
    }
}

/* MikkTSpace tangents per vertex from its corner tangents: its first corner's, w in the mesh's uv convention,
 * flipped where det < 0. */
static void mikktspace_per_vertex(const sf_topology* topo, const float* corners, const float* det, float* tangents)
{
    size_t n = topo->vertex_count;
    for (size_t v = 0; v < n; ++v) {
        float* t = tangents + 4 * v;
        if (topo->adj_offsets[v] == topo->adj_offsets[v + 1]) {
            t[0] = t[1] = t[2] = 0.0f;
            t[3] = 1.0f;
            continue;
        }
        memcpy(t, corners + 4 * (size_t)topo->adj_corners[topo->adj_offsets[v]], 16);
        t[3] = sfk_mikk_vertex_w(t[3], topo->bitangent_sign, det[v]);
    }
}

static sf_result mikktspace_vertex_tangents(const sf_topology* topo, const float* positions, const float* normals,
                                            const float* det, sf_workspace* ws, float* tangents, sf_error* err)
{
    if (!topo->mikk_uv_flags) {
        no_tangent_frame(topo->vertex_count, tangents);
        return SF_OK;
    }
    SF_CHECK(ws->mikktspace && normals, SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX,
             "no MikkTSpace scratch or normals");
    sfi_mikk_input in = {topo->vertex_count, topo->triangle_count, topo->indices, topo->uvs, topo->mikk_uv_flags,
                         positions, normals};
    mikktspace_per_vertex(topo, sfi_mikktspace_corners(&in, &topo->env, ws->mikktspace), det, tangents);
    return SF_OK;
}

sf_result sfi_mikktspace_tangents(const sf_topology* topo, const float* positions, const float* normals,
                                  sf_workspace* ws, float* tangents, sf_error* err)
{
    return mikktspace_vertex_tangents(topo, positions, normals, ws->det, ws, tangents, err);
}

sf_result sfi_mikktspace_prepare(const sf_topology* topo, const float* positions, const float* normals,
                                 sf_workspace* ws, sfi_mikk_groups* out, sf_error* err)
{
    memset(out, 0, sizeof *out);
    SF_CHECK(topo->mikk_uv_flags, SF_ERROR_UNSUPPORTED, err, "mesh.uvs", SFI_NO_INDEX, "no UVs: no MikkTSpace groups");
    SF_CHECK(ws->mikktspace && normals, SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX,
             "no MikkTSpace scratch or normals");
    sfi_mikk_input in = {topo->vertex_count, topo->triangle_count, topo->indices, topo->uvs, topo->mikk_uv_flags,
                         positions, normals};
    sfi_mikktspace_groups(&in, &topo->env, ws->mikktspace, out);
    return SF_OK;
}

sf_result sfi_mikktspace_tangents_prepared(const sf_topology* topo, const float* positions, const float* normals,
                                           sf_workspace* ws, float* tangents, sf_error* err)
{
    SF_CHECK(topo->mikk_uv_flags && ws->mikktspace && normals, SF_ERROR_INVALID_ARGUMENT, err, "workspace",
             SFI_NO_INDEX, "no MikkTSpace groups prepared");
    sfi_mikk_input in = {topo->vertex_count, topo->triangle_count, topo->indices, topo->uvs, topo->mikk_uv_flags,
                         positions, normals};
    mikktspace_per_vertex(topo, sfi_mikktspace_corners_grouped(&in, &topo->env, ws->mikktspace), ws->det, tangents);
    return SF_OK;
}

const float* sfi_mikktspace_corner_tangents(const sf_workspace* ws) { return sfi_mikktspace_scratch_corners(ws->mikktspace); }

sf_result sfi_rebuild(const sf_topology* topo, const sf_frames_opts* opts, sf_workspace* ws, const float* positions,
                      const float* det, float* normals, float* tangents, sf_error* err)
{
    if (opts->weld != SF_WELD_NONE) {
        int k = opts->weld == SF_WELD_POSITION ? 0 : 1;
        SF_CHECK(topo->weld[k].group != NULL, SF_ERROR_UNSUPPORTED, err, "opts.weld", SFI_NO_INDEX,
                 "weld groups were not built for this topology");
    }
    SF_CHECK(ws->face_n != NULL, SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX,
             "was created without the recompute scratch");
    /* MikkTSpace needs the normals even when the caller wants none: workspace scratch then. */
    bool mikk = opts->tangents == SF_TANGENTS_MIKKTSPACE && tangents;
    if (mikk && !normals && topo->has_uvs) normals = sfi_mikktspace_scratch_normals(ws->mikktspace);
    rebuild_job job = {topo, opts, ws, positions, det, normals, tangents, SFI_SIMD_REBUILD4 && sfi_simd_level(topo) >= SFI_SIMD_SSE2};
    sf_env_parallel_for(&topo->env, topo->triangle_count, FACE_GRAIN, face_range, &job);
    sf_env_parallel_for(&topo->env, topo->vertex_count, GATHER_GRAIN, gather_range, &job);
    if (mikk) return mikktspace_vertex_tangents(topo, positions, normals, det, ws, tangents, err);
    return SF_OK;
}

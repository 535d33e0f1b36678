/* The reference: normals and tangents rebuilt from the final triangles (the article's section 5),
 * as a face pass followed by a gather over the precomputed vertex -> corner adjacency (no atomics,
 * so the result is the same for any thread count). Options: weighting, welding, tangent mode. */
#include "sf_internal.h"
#include "sf_kernels.h"

#include <math.h>
#include <string.h>

#define FACE_GRAIN 2048
#define GATHER_GRAIN 1024

typedef struct recompute_job {
    const sf_topology* topo;
    const sf_frames_opts* opts;
    sf_workspace* ws;
    float* normals;
    float* tangents;
} recompute_job;

/* Per face: cross(e1, e2), UV tangent and bitangent, and each corner's weight, so the gathers (normal
 * and tangent, several vertices per face) read them instead of recomputing lengths and angles. A face
 * whose corners' blended matrices mirror on balance is front-facing with clockwise winding (glTF's rule
 * for negative determinants), so its normal is negated to keep pointing outward; tangent and bitangent
 * follow the edges unchanged. Under the angle and uniform weightings face_n is stored as a unit vector
 * (the gather adds unit normal x weight); a collapsed face (|face_n|^2 < 1e-24) weighs 0 everywhere. */
static void face_range(void* ctx, size_t begin, size_t end)
{
    const recompute_job* job = (const recompute_job*)ctx;
    const sf_topology* topo = job->topo;
    sf_workspace* ws = job->ws;
    const float* P = ws->final_pos;
    sf_weighting weighting = job->opts->weighting;
    for (size_t f = begin; f < end; ++f) {
        const uint32_t* tri = topo->indices + 3 * f;
        const float* uv[3] = {NULL, NULL, NULL};
        if (topo->uvs)
            for (int c = 0; c < 3; ++c) uv[c] = topo->uvs + 2 * tri[c];
        float* fn = ws->face_n + 3 * f;
        sfk_face_frame(P + 3 * tri[0], P + 3 * tri[1], P + 3 * tri[2], uv[0], uv[1], uv[2], fn, ws->face_t + 3 * f,
                       ws->face_b + 3 * f);
        int mirrored = (ws->det[tri[0]] < 0.0f) + (ws->det[tri[1]] < 0.0f) + (ws->det[tri[2]] < 0.0f);
        if (mirrored >= 2) {
            fn[0] = -fn[0];
            fn[1] = -fn[1];
            fn[2] = -fn[2];
        }
        float* w = ws->corner_w + 3 * f;
        float len2 = sfk_dot(fn, fn);
        if (!(len2 >= SF_SAFE_UNIT_EPS2)) { /* a collapsed face has no frame */
            w[0] = w[1] = w[2] = 0.0f;
            continue;
        }
        switch (weighting) {
        case SF_WEIGHTING_UNIFORM:
            w[0] = w[1] = w[2] = 1.0f;
            sfk_safe_unit(fn, fn);
            break;
        case SF_WEIGHTING_ANGLE:
            for (int c = 0; c < 3; ++c)
                w[c] = sfk_corner_angle(P + 3 * tri[c], P + 3 * tri[(c + 1) % 3], P + 3 * tri[(c + 2) % 3]);
            sfk_safe_unit(fn, fn);
            break;
        default: /* area: the face normal as it is for N, its length (twice the area) for T and B */
            w[0] = w[1] = w[2] = sqrtf(len2);
            break;
        }
    }
}

/* Adds the normal contributions of corners[begin..end) to N (a vertex's own corners, or its weld group's). */
static void gather_normal(const recompute_job* job, const uint32_t* corners, uint32_t begin, uint32_t end, float N[3])
{
    const sf_workspace* ws = job->ws;
    if (job->opts->weighting == SF_WEIGHTING_AREA) {
        for (uint32_t a = begin; a < end; ++a) sfk_madd(N, ws->face_n + 3 * (corners[a] / 3), 1.0f);
        return;
    }
    for (uint32_t a = begin; a < end; ++a) {
        uint32_t corner = corners[a];
        sfk_madd(N, ws->face_n + 3 * (corner / 3), ws->corner_w[corner]);
    }
}

static void gather_range(void* ctx, size_t begin, size_t end)
{
    const recompute_job* job = (const recompute_job*)ctx;
    const sf_topology* topo = job->topo;
    const sf_workspace* ws = job->ws;
    int weld = job->opts->weld == SF_WELD_NONE ? -1 : (job->opts->weld == SF_WELD_POSITION ? 0 : 1);
    for (size_t v = begin; v < end; ++v) {
        float N[3] = {0, 0, 0}, T[3] = {0, 0, 0}, B[3] = {0, 0, 0};
        if (weld >= 0) {
            /* Welded: the normal gathers over the corners of every member of the vertex's group, listed
             * once per group at topology creation (same order as walking the members). */
            uint32_t g = topo->weld_group[weld][v];
            gather_normal(job, topo->weld_corners[weld], topo->weld_corner_offsets[weld][g],
                          topo->weld_corner_offsets[weld][g + 1], N);
        } else {
            gather_normal(job, topo->adj_corners, topo->adj_offsets[v], topo->adj_offsets[v + 1], N);
        }
        /* Tangents always gather over the vertex's own corners: UV seams legitimately split them. */
        for (uint32_t a = topo->adj_offsets[v]; a < topo->adj_offsets[v + 1]; ++a) {
            uint32_t corner = topo->adj_corners[a];
            size_t f = corner / 3;
            float w = ws->corner_w[corner];
            sfk_madd(T, ws->face_t + 3 * f, w);
            sfk_madd(B, ws->face_b + 3 * f, w);
        }
        float n[3], t[4];
        sfk_finish_frame(N, T, B, topo->bitangent_sign, n, t);
        if (job->normals) memcpy(job->normals + 3 * v, n, sizeof n);
        if (job->tangents) memcpy(job->tangents + 4 * v, t, sizeof t);
    }
}

sf_result sfi_recompute(const sf_topology* topo, const sf_frames_opts* opts, sf_workspace* ws, float* normals,
                        float* tangents, sf_error* err)
{
    if (opts->weld != SF_WELD_NONE) {
        int k = opts->weld == SF_WELD_POSITION ? 0 : 1;
        SF_CHECK(topo->weld_group[k] != NULL, SF_ERROR_UNSUPPORTED, err, "opts.weld", SFI_NO_INDEX,
                 "weld groups were not built for this topology");
    }
    if (opts->reference == SF_REFERENCE_AUTHORED) return sfi_authored_frames(topo, opts, ws, normals, tangents, err);
    /* MikkTSpace needs the normals even when the caller wants none: workspace scratch then. */
    bool mikk = opts->tangents == SF_TANGENTS_MIKKTSPACE && tangents;
    if (mikk && !normals && topo->has_uvs) normals = sfi_mikktspace_normal_scratch(ws);
    recompute_job job = {topo, opts, ws, normals, tangents};
    sf_env_parallel_for(&topo->env, topo->triangle_count, FACE_GRAIN, face_range, &job);
    sf_env_parallel_for(&topo->env, topo->vertex_count, GATHER_GRAIN, gather_range, &job);
    if (mikk) return sfi_mikktspace_tangents(topo, ws->final_pos, normals, ws, tangents, err);
    return SF_OK;
}

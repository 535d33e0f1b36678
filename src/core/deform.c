/* Deformation: morph targets (position deltas, and direction deltas when enabled) on the rest mesh,
 * then linear blend skinning of positions. Also validates poses. */
#include "sf_internal.h"
#include "sf_kernels.h"

#include <math.h>
#include <string.h>

#define DEFORM_GRAIN 1024

/* One numbering of the morph directions from the public enum down to the kernels (and the GPU). */
_Static_assert(SFK_MORPH_DIRS_DELTAS == (int)SF_MORPH_DIRECTIONS_DELTAS, "morph directions: deltas");
_Static_assert(SFK_MORPH_DIRS_NONE == (int)SF_MORPH_DIRECTIONS_NONE, "morph directions: none");
_Static_assert(SFK_MORPH_DIRS_NORMALS == (int)SF_MORPH_DIRECTIONS_NORMALS, "morph directions: normals");

/* The pose's share of the bounds in skinframe.h (derived in docs/magnitudes.md), from what the topology
 * measured: every morphed rest value, |rest| + sum_k |alpha_k| max|delta_k|, and every final position a
 * weighted bone makes of a morphed one, sum_j |A_ij| |p_j| + |t_i| per row, stay within SF_MAX_COORD; a
 * weighted bone's linear part stays within SF_MAX_BONE_SCALE. Then no sum or product of the frame overflows.
 * O(targets + 12 bones) per pose. Bones no vertex weighs are only checked for NaN/Inf. */
static sf_result check_magnitudes(const sf_topology* topo, const sf_pose* pose, sf_error* err)
{
    double lp = topo->max_position, ld = topo->max_direction, worst = 0.0;
    size_t worst_k = SFI_NO_INDEX;
    for (size_t k = 0; pose->morph_weights && k < topo->target_count; ++k) {
        double a = fabs((double)pose->morph_weights[k]);
        double cp = a * topo->target_max[2 * k], cd = a * topo->target_max[2 * k + 1];
        lp += cp;
        ld += cd;
        if (cp > worst || cd > worst) {
            worst = cp > cd ? cp : cd;
            worst_k = k;
        }
    }
    if (lp > SF_MAX_COORD || ld > SF_MAX_COORD)
        return sf_error_set(err, SF_ERROR_TOO_LARGE, "pose.morph_weights", worst_k,
                            "weight %g times deltas up to %g moves morphed vertices up to %g, beyond SF_MAX_COORD (%g)",
                            (double)pose->morph_weights[worst_k],
                            (double)(lp > SF_MAX_COORD ? topo->target_max[2 * worst_k]
                                                       : topo->target_max[2 * worst_k + 1]),
                            lp > ld ? lp : ld, (double)SF_MAX_COORD);
    for (size_t b = 0; b < topo->bone_count; ++b) {
        if (!topo->bone_used[b]) continue;
        const float* m = pose->bone_matrices + 12 * b;
        for (size_t e = 0; e < 9; ++e)
            SF_CHECK(fabsf(m[e]) <= SF_MAX_BONE_SCALE, SF_ERROR_TOO_LARGE, err, "pose.bone_matrices", b,
                     "element %zu is %g, beyond SF_MAX_BONE_SCALE (%g)", e, (double)m[e], (double)SF_MAX_BONE_SCALE);
        for (size_t i = 0; i < 3; ++i) {
            SF_CHECK(fabsf(m[9 + i]) <= SF_MAX_COORD, SF_ERROR_TOO_LARGE, err, "pose.bone_matrices", b,
                     "element %zu (translation) is %g, beyond SF_MAX_COORD (%g)", 9 + i, (double)m[9 + i],
                     (double)SF_MAX_COORD);
            double reach = (fabs((double)m[i]) + fabs((double)m[3 + i]) + fabs((double)m[6 + i])) * lp +
                           fabs((double)m[9 + i]);
            SF_CHECK(reach <= SF_MAX_COORD, SF_ERROR_TOO_LARGE, err, "pose.bone_matrices", b,
                     "moves morphed positions (up to %g) up to %g along axis %zu, beyond SF_MAX_COORD (%g)", lp, reach,
                     i, (double)SF_MAX_COORD);
        }
    }
    return SF_OK;
}

sf_result sf_pose_validate(const sf_topology* topo, const sf_pose* pose, sf_error* err)
{
    SF_CHECK(topo != NULL, SF_ERROR_INVALID_ARGUMENT, err, "topology", SFI_NO_INDEX, "is NULL");
    SF_CHECK(pose != NULL, SF_ERROR_INVALID_ARGUMENT, err, "pose", SFI_NO_INDEX, "is NULL");
    if (topo->bone_count > 0) {
        SF_CHECK(pose->bone_count == topo->bone_count, SF_ERROR_COUNT_MISMATCH, err, "pose.bone_count", SFI_NO_INDEX,
                 "%zu, mesh has %zu bones", pose->bone_count, topo->bone_count);
        SF_CHECK(pose->bone_matrices != NULL, SF_ERROR_MISSING_STREAM, err, "pose.bone_matrices", SFI_NO_INDEX,
                 "required for %zu bones", pose->bone_count);
        for (size_t i = 0; i < 12 * pose->bone_count; ++i)
            SF_CHECK(isfinite(pose->bone_matrices[i]), SF_ERROR_NOT_FINITE, err, "pose.bone_matrices", i / 12,
                     "element %zu is %g", i % 12, (double)pose->bone_matrices[i]);
    }
    if (pose->morph_weights) {
        SF_CHECK(pose->morph_weight_count == topo->target_count, SF_ERROR_COUNT_MISMATCH, err,
                 "pose.morph_weight_count", SFI_NO_INDEX, "%zu, mesh has %zu targets", pose->morph_weight_count,
                 topo->target_count);
        for (size_t k = 0; k < pose->morph_weight_count; ++k)
            SF_CHECK(isfinite(pose->morph_weights[k]), SF_ERROR_NOT_FINITE, err, "pose.morph_weights", k,
                     "weight is %g", (double)pose->morph_weights[k]);
    }
    return check_magnitudes(topo, pose, err);
}

typedef struct deform_job {
    const sf_topology* topo;
    const sf_pose* pose;
    sf_morph_directions dirs;
    sf_workspace* ws;
} deform_job;

static void deform_range(void* ctx, size_t begin, size_t end)
{
    const deform_job* job = (const deform_job*)ctx;
    const sf_topology* topo = job->topo;
    sf_workspace* ws = job->ws;
    const float* alpha = job->pose->morph_weights;
    int with_dirs = (int)job->dirs; /* SFK_MORPH_DIRS_* are the public values (asserted above) */
    size_t K = topo->influence_count;
    for (size_t v = begin; v < end; ++v) {
        uint32_t e0 = topo->morph_offsets[v];
        sfk_deform_vertex(topo->rest_positions + 3 * v, topo->rest_normals + 3 * v, topo->rest_tangents + 4 * v,
                          topo->morph_target + e0, topo->morph_dp + 3 * (size_t)e0, topo->morph_dn + 3 * (size_t)e0,
                          topo->morph_dt + 3 * (size_t)e0, topo->morph_offsets[v + 1] - e0, alpha, with_dirs,
                          K ? job->pose->bone_matrices : NULL, K ? topo->joints + K * v : NULL,
                          K ? topo->weights + K * v : NULL, (uint32_t)K, ws->morph_pos + 3 * v, ws->morph_nrm + 3 * v,
                          ws->morph_tan + 3 * v, ws->blend + 12 * v, ws->det + v, ws->final_pos + 3 * v);
    }
}

sf_result sfi_deform(const sf_topology* topo, const sf_pose* pose, sf_morph_directions dirs, sf_workspace* ws)
{
    if (!sfi_skin_deform(topo, pose, dirs, ws)) {
        deform_job job = {topo, pose, dirs, ws};
        sf_env_parallel_for(&topo->env, topo->vertex_count, DEFORM_GRAIN, deform_range, &job);
    }
    ws->deformed_dirs = (int)dirs;
    return SF_OK;
}

sf_result sf_deform_positions(const sf_topology* topo, const sf_pose* pose, sf_workspace* ws, float* out,
                              sf_error* err)
{
    sf_error_clear(err);
    sf_result r = sf_pose_validate(topo, pose, err);
    if (r != SF_OK) return r;
    SF_CHECK(ws && ws->topo == topo, SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX,
             "was not created for this topology");
    SF_CHECK(out != NULL || topo->vertex_count == 0, SF_ERROR_INVALID_ARGUMENT, err, "out", SFI_NO_INDEX, "is NULL");
    if (!ws->final_pos) return sfi_fused_positions(topo, pose, ws, out); /* a recompute-fused workspace */
    const sf_frames_out fast = {out, NULL, NULL};
    if (sfi_skin_fused(topo, pose, -1, SF_MORPH_DIRECTIONS_NONE, ws, &fast, NULL, NULL, NULL)) return SF_OK;
    sfi_deform(topo, pose, SF_MORPH_DIRECTIONS_NONE, ws);
    if (topo->vertex_count) memcpy(out, ws->final_pos, 3 * topo->vertex_count * sizeof(float));
    return SF_OK;
}

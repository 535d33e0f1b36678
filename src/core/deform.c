/* Deformation: morph targets (position deltas, and direction deltas when enabled) on the rest mesh,
 * then linear blend skinning of positions. Also validates poses. */
#include "sf_internal.h"
#include "sf_kernels.h"

#include <math.h>
#include <string.h>

#define DEFORM_GRAIN 1024

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
    return SF_OK;
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
    bool with_dirs = job->dirs == SF_MORPH_DIRECTIONS_DELTAS;
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
    deform_job job = {topo, pose, dirs, ws};
    sf_env_parallel_for(&topo->env, topo->vertex_count, DEFORM_GRAIN, deform_range, &job);
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
    sfi_deform(topo, pose, SF_MORPH_DIRECTIONS_NONE, ws);
    if (topo->vertex_count) memcpy(out, ws->final_pos, 3 * topo->vertex_count * sizeof(float));
    return SF_OK;
}

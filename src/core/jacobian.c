/* The jacobian methods (docs/methods.md): the per-frame evaluation over the topology's precomputed data
 * (built by gradients.c), one vertex at a time.
 *   jacobian: J = B (I + sum_k alpha_k grad d_k) + sum_j (A_j x + t_j) grad(w_j)^T on the rest tangent plane,
 *     gradients in each vertex's (u, v) basis (sfk_jacobian_vertex);
 *   jacobian-fan: the secant map of the vertex's welded fan, and the authored frame rotated as the fan's
 *     frame turns (sfk_jacobian_fan_vertex). */
#include "sf_internal.h"
#include "sf_kernels.h"

#include <math.h>
#include <string.h>

#define JACOBIAN_GRAIN 1024

int sfi_gradients_get(const sf_topology* topo, sf_method method, sfi_gradients_view* out)
{
    memset(out, 0, sizeof *out);
    const sfi_gradients* g = method == SF_METHOD_JACOBIAN       ? topo->gradients
                             : method == SF_METHOD_JACOBIAN_FAN ? topo->fan_gradients
                                                                : NULL;
    if (!g) return 0;
    out->slot_offsets = g->slot_offsets;
    out->slot_joint = g->slot_joint;
    out->slot_coef = g->slot_coef;
    out->slot_floats = g->slot_floats;
    out->morph_offsets = g->morph_offsets;
    out->morph_target = g->morph_target;
    out->morph_duv = g->morph_duv;
    out->fan_normal = g->fan_normal;
    return 1;
}
typedef struct jacobian_job {
    const sf_topology* topo;
    const sfi_gradients* g;
    const sf_pose* pose;
    float cap;
    sf_workspace* ws;
    float* normals;
    float* tangents;
} jacobian_job;

static void jacobian_range(void* ctx, size_t begin, size_t end)
{
    const jacobian_job* job = (const jacobian_job*)ctx;
    const sf_topology* topo = job->topo;
    const sfi_gradients* g = job->g;
    sf_workspace* ws = job->ws;
    const float* alpha = job->pose->morph_weights;
    for (size_t v = begin; v < end; ++v) {
        uint32_t s0 = g->slot_offsets[v], m0 = g->morph_offsets[v];
        float n[3], t[4];
        int capped;
        if (g->fan_normal)
            capped = sfk_jacobian_fan_vertex(job->pose->bone_matrices, ws->blend + 12 * v, ws->det[v],
                                             ws->morph_pos + 3 * v, ws->final_pos + 3 * v,
                                             topo->rest_normals + 3 * v, topo->rest_tangents + 4 * v,
                                             g->fan_normal + 3 * v, g->slot_joint + s0,
                                             g->slot_coef + SFK_JACOBIAN_FAN_SLOT_FLOATS * s0,
                                             g->slot_offsets[v + 1] - s0, g->morph_target + m0,
                                             g->morph_duv + 6 * m0, g->morph_offsets[v + 1] - m0, alpha, job->cap, n, t);
        else
            capped = sfk_jacobian_vertex(job->pose->bone_matrices, ws->blend + 12 * v, ws->det[v],
                                         ws->morph_pos + 3 * v, ws->final_pos + 3 * v, topo->rest_normals + 3 * v,
                                         topo->rest_tangents + 4 * v, g->slot_joint + s0, g->slot_coef + 2 * s0,
                                         g->slot_offsets[v + 1] - s0, g->morph_target + m0, g->morph_duv + 6 * m0,
                                         g->morph_offsets[v + 1] - m0, alpha, job->cap, n, t);
        ws->jacobian->capped[v] = (uint8_t)capped;
        if (job->normals) memcpy(job->normals + 3 * v, n, sizeof n);
        if (job->tangents) memcpy(job->tangents + 4 * v, t, sizeof t);
    }
}

/* Both use the REST frame with the full J (morph gradients included), so morph normal/tangent deltas are
 * ignored whatever opts->morph_directions says: J already maps rest tangents to morphed ones. */
sf_result sfi_jacobian_frames(const sf_topology* topo, const sf_pose* pose, sf_method method,
                              const sf_frames_opts* opts, sf_workspace* ws, float* normals, float* tangents,
                              sf_error* err)
{
    const sfi_gradients* g = method == SF_METHOD_JACOBIAN_FAN ? topo->fan_gradients : topo->gradients;
    SF_CHECK(g != NULL, SF_ERROR_UNSUPPORTED, err, "topology", SFI_NO_INDEX,
             "built with skip_gradients = 1; the %s method needs its gradients", sf_method_name(method));
    SF_CHECK(ws->jacobian != NULL, SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX,
             "has no jacobian scratch");
    SF_CHECK(isfinite(opts->jacobian_cap) && opts->jacobian_cap >= 0.0f, SF_ERROR_INVALID_ARGUMENT, err,
             "opts.jacobian_cap", SFI_NO_INDEX, "%g, need a finite value >= 0 (0 = off)", (double)opts->jacobian_cap);
    jacobian_job job = {topo, g, pose, opts->jacobian_cap, ws, normals, tangents};
    sf_env_parallel_for(&topo->env, topo->vertex_count, JACOBIAN_GRAIN, jacobian_range, &job);
    size_t capped = 0;
    for (size_t v = 0; v < topo->vertex_count; ++v) capped += ws->jacobian->capped[v];
    ws->report.jacobian_capped = capped;
    return SF_OK;
}

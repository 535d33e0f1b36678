/* The authored-normals reference: keeps the mesh's own rest normals and tangents (custom normals, toon
 * shading, baked hard-surface normals) and carries them through the deformation. At each vertex, the
 * rotation R takes the rebuilt rest frame to the rebuilt posed frame, both rebuilt by the `recompute`
 * gather with the same options (weighting, weld, tangent mode):
 *   - with a tangent frame (UVs) and both rebuilt tangents non-zero: R = [n1 t1 n1xt1] [n0 t0 n0xt0]^T,
 *     so twist about the normal follows the surface too;
 *   - otherwise (no UVs, or a zero rebuilt tangent) the same with an edge direction in place of t: the
 *     edge from the vertex along its first corner, projected into each tangent plane;
 *   - the shortest-arc rotation taking n0 to n1 when that edge degenerates too.
 * Output: n = R n_authored, t = unit(R t_authored orthogonalised against n), w = the authored w, flipped
 * where the rebuilt handedness flips between rest and pose (mirroring). Where the rebuilt posed normal
 * is zero the output normal is zero (degenerate, as in the rebuilt reference); where only the rebuilt
 * rest normal is zero the rebuilt posed frame is used. Morph normal deltas are not added: the rotation
 * already carries the morph's change of the surface.
 * The rebuilt rest frames are cached in the workspace per option set; frames do not allocate. */
#include "sf_internal.h"
#include "sf_kernels.h"

#include <string.h>

typedef struct authored_job {
    const sf_topology* topo;
    const sfi_authored_scratch* a;
    const float* final_pos;
    float* normals;
    float* tangents;
} authored_job;

static void authored_range(void* ctx, size_t begin, size_t end)
{
    const authored_job* job = (const authored_job*)ctx;
    const sf_topology* topo = job->topo;
    const sfi_authored_scratch* a = job->a;
    for (size_t v = begin; v < end; ++v) {
        /* the edge stand-in for the tangent: along the vertex's first corner to the corner's next vertex */
        const float *rest_q = NULL, *pose_q = NULL;
        if (topo->adj_offsets[v] != topo->adj_offsets[v + 1]) {
            uint32_t corner = topo->adj_corners[topo->adj_offsets[v]];
            size_t other = topo->indices[corner - corner % 3 + (corner + 1) % 3];
            rest_q = a->rest_pos + 3 * other;
            pose_q = job->final_pos + 3 * other;
        }
        float n[3], t[4];
        sfk_authored_vertex(a->rest_n + 3 * v, a->rest_t + 4 * v, a->pose_n + 3 * v, a->pose_t + 4 * v,
                            topo->rest_normals + 3 * v, topo->rest_tangents + 4 * v, topo->has_uvs, a->rest_pos + 3 * v,
                            rest_q, job->final_pos + 3 * v, pose_q, n, t);
        if (job->normals) memcpy(job->normals + 3 * v, n, sizeof n);
        if (job->tangents) memcpy(job->tangents + 4 * v, t, sizeof t);
    }
}

sf_result sfi_authored_frames(const sf_topology* topo, const sf_frames_opts* opts, sf_workspace* ws, float* normals,
                              float* tangents, sf_error* err)
{
    sfi_authored_scratch* a = ws->authored;
    SF_CHECK(a != NULL, SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX, "no authored-reference scratch");
    sf_frames_opts o = *opts;
    o.reference = SF_REFERENCE_REBUILT;
    sf_result r;
    if (!a->cached || a->weighting != o.weighting || a->weld != o.weld || a->tangents != o.tangents) {
        /* The rest rebuild runs the same gather on the rest positions with unit determinants. */
        r = sfi_rebuild(topo, &o, ws, a->rest_pos, a->ones, a->rest_n, a->rest_t, err);
        if (r != SF_OK) return r;
        a->cached = 1;
        a->weighting = o.weighting;
        a->weld = o.weld;
        a->tangents = o.tangents;
    }
    if ((r = sfi_rebuild(topo, &o, ws, ws->final_pos, ws->det, a->pose_n, a->pose_t, err)) != SF_OK) return r;
    authored_job job = {topo, a, ws->final_pos, normals, tangents};
    sf_env_parallel_for(&topo->env, topo->vertex_count, 1024, authored_range, &job);
    return SF_OK;
}

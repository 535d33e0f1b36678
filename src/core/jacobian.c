/* The jacobian methods (docs/methods.md): the per-frame evaluation over the topology's precomputed data
 * (built by gradients.c), one vertex at a time.
 *   jacobian: J = B (I + sum_k alpha_k grad d_k) + sum_j (A_j x + t_j) grad(w_j)^T on the rest tangent plane,
 *     gradients in each vertex's (u, v) basis (sfk_jacobian_vertex);
 *   jacobian-fan: the secant map of the vertex's welded fan, and the authored frame rotated as the fan's
 *     frame turns (sfk_jacobian_fan_vertex).
 * Where the CPU has a fast path both run SSE2, AVX2 or AVX-512 steps of 4, 8 or 16 vertices (jacobian_body.h,
 * jacobian_fan_body.h) that deform their vertices themselves, bit for bit sfi_deform, or read the deform already in
 * the workspace (an evaluation's), and then the scalar kernels, which stay the reference. */
#include "sf_kernels.h"
#include "skin_simd.h"

#include <float.h>
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
/* frames.c's report of one vertex from its outputs (count_range's tests); tangents zeroed afterwards without UVs */
static void count_vertex(const sfi_jacobian_job* job, size_t v, float det, const float P[3], const float n[3],
                         const float t[4], sfi_skin_counts* c)
{
    int bad = 0;
    c->mirrored += det < 0.0f;
    if (job->normals) {
        c->degenerate_normals += sfk_dot(n, n) == 0.0f;
        bad |= !sfk_finite3(n);
    }
    if (job->tangents && job->topo->has_uvs) {
        c->degenerate_tangents += sfk_dot(t, t) == 0.0f;
        bad |= !sfk_finite3(t) || !(fabsf(t[3]) <= FLT_MAX);
    }
    if (job->positions) bad |= !sfk_finite3(P);
    if (bad && v < c->first_bad) c->first_bad = v;
}

void sfi_jacobian_vertex_at(const sfi_jacobian_job* job, size_t v, const float* blend, float det,
                            const float* morph_pos, const float* final_pos, sfi_skin_counts* c)
{
    const sf_topology* topo = job->topo;
    const sfi_gradients* g = job->g;
    uint32_t s0 = g->slot_offsets[v], m0 = g->morph_offsets[v];
    float n[3], t[4];
    int capped;
    if (g->fan_normal)
        capped = sfk_jacobian_fan_vertex(job->bones, blend, det, morph_pos, final_pos, topo->rest_normals + 3 * v,
                                         topo->rest_tangents + 4 * v, g->fan_normal + 3 * v, g->slot_joint + s0,
                                         g->slot_coef + SFK_JACOBIAN_FAN_SLOT_FLOATS * s0, g->slot_offsets[v + 1] - s0,
                                         g->morph_target + m0, g->morph_duv + 6 * m0, g->morph_offsets[v + 1] - m0,
                                         job->alpha, job->cap, n, t);
    else
        capped = sfk_jacobian_vertex(job->bones, blend, det, morph_pos, final_pos, topo->rest_normals + 3 * v,
                                     topo->rest_tangents + 4 * v, g->slot_joint + s0, g->slot_coef + 2 * s0,
                                     g->slot_offsets[v + 1] - s0, g->morph_target + m0, g->morph_duv + 6 * m0,
                                     g->morph_offsets[v + 1] - m0, job->alpha, job->cap, n, t);
    job->ws->jacobian->capped[v] = (uint8_t)capped;
    if (job->normals) memcpy(job->normals + 3 * v, n, sizeof n);
    if (job->tangents) memcpy(job->tangents + 4 * v, t, sizeof t);
    if (c) count_vertex(job, v, det, final_pos, n, t, c);
}

void sfi_jacobian_vertex(const sfi_jacobian_job* job, size_t v, sfi_skin_counts* c)
{
    const sf_workspace* ws = job->ws;
    sfi_jacobian_vertex_at(job, v, ws->blend + 12 * v, ws->det[v], ws->morph_pos + 3 * v, ws->final_pos + 3 * v, c);
}

typedef struct jacobian_run {
    const sfi_jacobian_job* job;
    int level; /* the jacobian's fast path (skin_sse2.c / skin_avx2.c / skin_wasm.c), SFI_SIMD_SCALAR for the scalar loop */
} jacobian_run;

static void jacobian_range(void* ctx, size_t begin, size_t end)
{
    const jacobian_run* run = (const jacobian_run*)ctx;
    for (size_t v = begin; v < end; ++v) sfi_jacobian_vertex(run->job, v, NULL);
}

/* The fast path over chunks [k0, k1) of SFI_SKIN_GRAIN vertices, each counting its own report (the skin pass's
 * chunks, so the counts are the same for any split of the loop). */
static void jacobian_chunks(void* ctx, size_t k0, size_t k1)
{
    const jacobian_run* run = (const jacobian_run*)ctx;
    size_t n = run->job->topo->vertex_count;
    for (size_t k = k0; k < k1; ++k) {
        size_t begin = k * SFI_SKIN_GRAIN, end = n - begin < SFI_SKIN_GRAIN ? n : begin + SFI_SKIN_GRAIN;
        sfi_skin_counts* c = &run->job->counts[k];
        *c = (sfi_skin_counts){0, 0, 0, 0, SIZE_MAX};
#if defined(__wasm_simd128__)
        if (run->job->g->fan_normal) sfi_jacobian_fan_range_wasm(run->job, begin, end, c); /* the module's one level */
        else sfi_jacobian_range_wasm(run->job, begin, end, c);
        continue;
#endif
        if (run->job->g->fan_normal) {
            if (run->level >= SFI_SIMD_AVX512) sfi_jacobian_fan_range_avx512(run->job, begin, end, c);
            else if (run->level >= SFI_SIMD_AVX2) sfi_jacobian_fan_range_avx2(run->job, begin, end, c);
            else sfi_jacobian_fan_range_sse2(run->job, begin, end, c);
        } else if (run->level >= SFI_SIMD_AVX512) {
            sfi_jacobian_range_avx512(run->job, begin, end, c);
        } else if (run->level >= SFI_SIMD_AVX2) {
            sfi_jacobian_range_avx2(run->job, begin, end, c);
        } else {
            sfi_jacobian_range_sse2(run->job, begin, end, c);
        }
    }
}

int sfi_jacobian_folds(const sf_topology* topo, const sf_workspace* ws, sf_method method)
{
    /* the deform in the pass needs the lanes; jacobian-fan's steps its blocked fan normals */
    int has = method == SF_METHOD_JACOBIAN       ? topo->gradients != NULL
              : method == SF_METHOD_JACOBIAN_FAN ? topo->fan_gradients && topo->fan_lanes.normal
                                                 : 0;
    return has && topo->lanes.rest && ws->jacobian && ws->palette &&
           ws->chunk_counts && ws->chunk_count == sfi_skin_chunk_count(topo->vertex_count) &&
           sfi_simd_level(topo) != SFI_SIMD_SCALAR;
}

/* Both use the REST frame with the full J (morph gradients included), so morph normal/tangent deltas are
 * ignored whatever opts->morph_directions says: J already maps rest tangents to morphed ones (and the fast path's
 * deform morphs positions only). */
sf_result sfi_jacobian_frames(const sf_topology* topo, const sf_pose* pose, sf_method method,
                              const sf_frames_opts* opts, sf_workspace* ws, const sf_frames_out* out, int deformed,
                              int* folded, sf_error* err)
{
    *folded = 0;
    const sfi_gradients* g = method == SF_METHOD_JACOBIAN_FAN ? topo->fan_gradients : topo->gradients;
    SF_CHECK(g != NULL, SF_ERROR_UNSUPPORTED, err, "topology", SFI_NO_INDEX,
             "built with skip_gradients = 1; the %s method needs its gradients", sf_method_name(method));
    SF_CHECK(ws->jacobian != NULL, SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX,
             "has no jacobian scratch");
    SF_CHECK(isfinite(opts->jacobian_cap) && opts->jacobian_cap >= 0.0f, SF_ERROR_INVALID_ARGUMENT, err,
             "opts.jacobian_cap", SFI_NO_INDEX, "%g, need a finite value >= 0 (0 = off)", (double)opts->jacobian_cap);
    sfi_jacobian_job job = {topo, g, pose->bone_matrices, pose->morph_weights, opts->jacobian_cap, ws, out->normals,
                            out->tangents, NULL, NULL, {0}, 0};
    int level = sfi_jacobian_folds(topo, ws, method) ? sfi_simd_level(topo) : SFI_SIMD_SCALAR;
    jacobian_run run = {&job, level};
    if (level != SFI_SIMD_SCALAR) {
        job.positions = out->positions;
        job.counts = ws->chunk_counts;
        sfi_skin_job_init(topo, pose, SFI_SKIN_POSITIONS_ONLY, SF_MORPH_DIRECTIONS_NONE, ws, NULL, NULL, &job.skin);
        job.deformed = deformed && ws->blend && ws->morph_pos && ws->det && ws->final_pos;
        sf_env_parallel_for(&topo->env, sfi_skin_chunk_count(topo->vertex_count), 1, jacobian_chunks, &run);
        *folded = 1;
    } else {
        sf_env_parallel_for(&topo->env, topo->vertex_count, JACOBIAN_GRAIN, jacobian_range, &run);
    }
    size_t capped = 0;
    for (size_t v = 0; v < topo->vertex_count; ++v) capped += ws->jacobian->capped[v];
    ws->report.jacobian_capped = capped;
    return SF_OK;
}

/* sf_frames_compute: deform, then one method's normals and tangents. The per-vertex methods
 * (unchanged, skinned, inverse-transpose, bone-normal-matrices) live here; jacobian and jacobian-fan in
 * jacobian.c, recompute in recompute.c, recompute-fused in fused.c. */
#include "sf_internal.h"
#include "sf_kernels.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define FRAMES_GRAIN 1024
#define FINISH_GRAIN 16384

typedef struct vertex_job {
    const sf_topology* topo;
    const sf_workspace* ws;
    const float* bones; /* the pose's (bone-normal-matrices reads them per influence) */
    sf_method method;
    float* normals;
    float* tangents;
} vertex_job;

_Static_assert(SFK_METHOD_UNCHANGED == SF_METHOD_UNCHANGED && SFK_METHOD_SKINNED == SF_METHOD_SKINNED &&
                   SFK_METHOD_INVERSE_TRANSPOSE == SF_METHOD_INVERSE_TRANSPOSE &&
                   SFK_METHOD_BONE_NORMAL_MATRICES == SF_METHOD_BONE_NORMAL_MATRICES,
               "the kernels number the per-vertex methods as sf_method");

/* One vertex of the methods that need no neighbours (docs/design.md section 2). */
static void vertex_frame(const vertex_job* job, size_t v)
{
    const sf_workspace* ws = job->ws;
    const sf_topology* topo = job->topo;
    float n[3], t[4];
    if (job->method == SF_METHOD_BONE_NORMAL_MATRICES) {
        size_t K = topo->influence_count;
        sfk_bone_normal_frame(job->bones, K ? topo->joints + K * v : NULL, K ? topo->weights + K * v : NULL,
                              (uint32_t)K, ws->blend + 12 * v, ws->det[v], ws->morph_nrm + 3 * v,
                              ws->morph_tan + 3 * v, topo->rest_tangents[4 * v + 3], n, t);
    } else {
        sfk_vertex_frame((int)job->method, ws->blend + 12 * v, ws->det[v], ws->morph_nrm + 3 * v,
                         ws->morph_tan + 3 * v, topo->rest_tangents[4 * v + 3], n, t);
    }
    if (job->normals) memcpy(job->normals + 3 * v, n, sizeof n);
    if (job->tangents) memcpy(job->tangents + 4 * v, t, sizeof t);
}

static void vertex_range(void* ctx, size_t begin, size_t end)
{
    const vertex_job* job = (const vertex_job*)ctx;
    for (size_t v = begin; v < end; ++v) vertex_frame(job, v);
}

static sf_result not_finite(sf_method method, size_t v, sf_error* err)
{
    return sf_error_set(err, SF_ERROR_TOO_LARGE, "out", v,
                        "`%s` came out non-finite at vertex %zu: a magnitude bound is missing (please report)",
                        sf_method_name(method), v);
}

/* The report's counts over [begin, end) (first_bad: begin when a non-finite output is flagged, else SIZE_MAX): one
 * branch-free loop per stream, which the compiler vectorises. */
typedef struct report_job {
    const float *det, *normals, *tangents, *positions;
    size_t n;
    int singular;
    sfi_skin_counts* counts; /* one per chunk of SFI_SKIN_GRAIN vertices */
} report_job;

static void count_range(const report_job* job, size_t begin, size_t end, sfi_skin_counts* c)
{
    const float *det = job->det, *normals = job->normals, *tangents = job->tangents, *positions = job->positions;
    size_t mirrored = 0, singular = 0, dn = 0, dt = 0;
    unsigned bad = 0;
    for (size_t v = begin; v < end; ++v) mirrored += det[v] < 0.0f;
    if (job->singular)
        for (size_t v = begin; v < end; ++v)
            singular += !(det[v] >= SF_SINGULAR_DET_EPS || det[v] <= -SF_SINGULAR_DET_EPS);
    if (normals)
        for (size_t v = begin; v < end; ++v) {
            const float* x = normals + 3 * v;
            dn += sfk_dot(x, x) == 0.0f;
            bad |= !(fabsf(x[0]) <= FLT_MAX) | !(fabsf(x[1]) <= FLT_MAX) | !(fabsf(x[2]) <= FLT_MAX);
        }
    if (tangents)
        for (size_t v = begin; v < end; ++v) {
            const float* x = tangents + 4 * v;
            dt += sfk_dot(x, x) == 0.0f;
            bad |= !(fabsf(x[0]) <= FLT_MAX) | !(fabsf(x[1]) <= FLT_MAX) | !(fabsf(x[2]) <= FLT_MAX) |
                   !(fabsf(x[3]) <= FLT_MAX);
        }
    if (positions)
        for (size_t v = 3 * begin; v < 3 * end; ++v) bad |= !(fabsf(positions[v]) <= FLT_MAX);
    *c = (sfi_skin_counts){mirrored, singular, dn, dt, bad ? begin : SIZE_MAX};
}

/* Chunks [k0, k1): the parallel loop runs over chunk numbers, so each chunk is counted whole by one call. */
static void report_range(void* ctx, size_t k0, size_t k1)
{
    const report_job* job = (const report_job*)ctx;
    for (size_t k = k0; k < k1; ++k) {
        size_t begin = k * SFI_SKIN_GRAIN, end = job->n - begin < SFI_SKIN_GRAIN ? job->n : begin + SFI_SKIN_GRAIN;
        count_range(job, begin, end, &job->counts[k]);
    }
}

/* Counts the report and checks that every output element is finite: the input bounds make that so
 * (docs/magnitudes.md); a failure here is a missing bound, reported rather than returned as data. The counts run
 * in the workspace's chunks through the parallel loop (summed in chunk order), or in one range without them;
 * counted: the method's pass has counted the chunks already (the jacobian's fast path). */
static sf_result count_report(const sf_topology* topo, sf_workspace* ws, sf_method method, const sf_frames_out* out,
                              int counted, sf_error* err)
{
    const float *normals = out->normals, *tangents = out->tangents, *positions = out->positions;
    sf_frames_report* rep = &ws->report;
    size_t capped = rep->jacobian_capped;
    uint32_t two_pass = rep->fused_two_pass;
    memset(rep, 0, sizeof *rep);
    rep->jacobian_capped = sfi_method_uses_gradients(method) ? capped : 0;
    rep->fused_two_pass = method == SF_METHOD_RECOMPUTE_FUSED ? two_pass : 0;
    size_t n = topo->vertex_count;
    report_job job = {ws->det, normals, tangents, positions, n, method == SF_METHOD_INVERSE_TRANSPOSE, ws->chunk_counts};
    sfi_skin_counts one, total = {0, 0, 0, 0, SIZE_MAX};
    size_t chunks = ws->chunk_counts && ws->chunk_count == sfi_skin_chunk_count(n) ? ws->chunk_count : 0;
    if (!chunks) count_range(&job, 0, n, &one);
    else if (!counted) sf_env_parallel_for(&topo->env, chunks, 1, report_range, &job);
    for (size_t k = 0; k < (chunks ? chunks : 1); ++k) {
        const sfi_skin_counts* c = chunks ? &ws->chunk_counts[k] : &one;
        total.mirrored += c->mirrored, total.singular += c->singular;
        total.degenerate_normals += c->degenerate_normals, total.degenerate_tangents += c->degenerate_tangents;
        if (c->first_bad < total.first_bad) total.first_bad = c->first_bad;
    }
    if (total.first_bad == SIZE_MAX) {
        rep->mirrored_vertices = total.mirrored;
        rep->singular_vertices = total.singular;
        rep->degenerate_normals = total.degenerate_normals;
        rep->degenerate_tangents = topo->has_uvs ? total.degenerate_tangents : 0;
        return SF_OK;
    }
    /* the first bad vertex, by the exact loop from the first flagged chunk */
    for (size_t v = total.first_bad; v < n; ++v) {
        bool finite = (!normals || sfk_finite3(normals + 3 * v)) && (!positions || sfk_finite3(positions + 3 * v)) &&
                      (!tangents || (sfk_finite3(tangents + 4 * v) && fabsf(tangents[4 * v + 3]) <= FLT_MAX));
        if (!finite) return not_finite(method, v, err);
    }
    return SF_OK;
}

/* The final positions into out and, without a tangent frame, tangents zeroed: both through the parallel loop. */
typedef struct finish_job {
    const float* final_pos;
    float *positions, *tangents;
} finish_job;

static void finish_range(void* ctx, size_t begin, size_t end)
{
    const finish_job* job = (const finish_job*)ctx;
    if (job->positions) memcpy(job->positions + 3 * begin, job->final_pos + 3 * begin, 3 * (end - begin) * sizeof(float));
    if (job->tangents)
        for (size_t v = begin; v < end; ++v) job->tangents[4 * v] = job->tangents[4 * v + 1] = job->tangents[4 * v + 2] = 0.0f;
}

sf_result sf_frames_compute(const sf_topology* topo, const sf_pose* pose, sf_method method,
                            const sf_frames_opts* opts, sf_workspace* ws, const sf_frames_out* out, sf_error* err)
{
    sf_error_clear(err);
    sf_result r = sf_pose_validate(topo, pose, err);
    if (r != SF_OK) return r;
    SF_CHECK((unsigned)method < SF_METHOD_COUNT, SF_ERROR_INVALID_ARGUMENT, err, "method", SFI_NO_INDEX,
             "%d is not a method", (int)method);
    SF_CHECK(ws && ws->topo == topo, SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX,
             "was not created for this topology");
    SF_CHECK(ws->methods & (1u << method), SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX,
             "was created without `%s` in sf_workspace_opts.methods", sf_method_name(method));
    SF_CHECK(out != NULL, SF_ERROR_INVALID_ARGUMENT, err, "out", SFI_NO_INDEX, "is NULL");
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    if (opts) o = *opts;
    SF_CHECK((unsigned)o.morph_directions <= SF_MORPH_DIRECTIONS_NORMALS, SF_ERROR_INVALID_ARGUMENT, err,
             "opts.morph_directions", SFI_NO_INDEX, "%d", (int)o.morph_directions);
    SF_CHECK((unsigned)o.weighting <= SF_WEIGHTING_UNIFORM, SF_ERROR_INVALID_ARGUMENT, err, "opts.weighting",
             SFI_NO_INDEX, "%d", (int)o.weighting);
    SF_CHECK((unsigned)o.weld <= SF_WELD_POSITION_NORMAL, SF_ERROR_INVALID_ARGUMENT, err, "opts.weld", SFI_NO_INDEX,
             "%d", (int)o.weld);
    SF_CHECK((unsigned)o.tangents <= SF_TANGENTS_MIKKTSPACE, SF_ERROR_INVALID_ARGUMENT, err, "opts.tangents",
             SFI_NO_INDEX, "%d", (int)o.tangents);
    SF_CHECK((unsigned)o.reference <= SF_REFERENCE_AUTHORED, SF_ERROR_INVALID_ARGUMENT, err, "opts.reference",
             SFI_NO_INDEX, "%d", (int)o.reference);

    return sfi_frames_compute(topo, pose, method, &o, ws, out, 0, err);
}

sf_result sfi_frames_compute(const sf_topology* topo, const sf_pose* pose, sf_method method, const sf_frames_opts* opts,
                             sf_workspace* ws, const sf_frames_out* out, int deformed, sf_error* err)
{
    return ws->be->frames(topo, pose, method, opts, ws, out, deformed, err);
}

bool sfi_frames_read_deform(sf_method method)
{
    return sf_method_traits_of(method).per_vertex || sfi_method_uses_gradients(method);
}

sf_result sfi_frames_cpu(const sf_topology* topo, const sf_pose* pose, sf_method method, const sf_frames_opts* opts,
                         sf_workspace* ws, const sf_frames_out* out, int deformed, sf_error* err)
{
    const sf_frames_opts o = *opts;
    sf_result r = SF_OK;
    int counted = 0; /* the report already in ws->chunk_counts (and the positions in out: the jacobian's fast path) */
    int per_vertex = sf_method_traits_of(method).per_vertex;
    if (per_vertex) {
        /* the per-vertex methods in one fused pass where the CPU has a fast path (skin.c), or from the deform
           already in the workspace */
        size_t bad;
        sf_frames_report rep;
        if (deformed ? sfi_skin_frames_deformed(topo, pose, (int)method, ws, out, &rep, &bad)
                     : sfi_skin_fused(topo, pose, (int)method, o.morph_directions, ws, out, NULL, &rep, &bad)) {
            ws->report = rep;
            return bad == SIZE_MAX ? SF_OK : not_finite(method, bad, err);
        }
    }
    if (method == SF_METHOD_RECOMPUTE_FUSED) {
        r = sfi_fused_frames(topo, pose, &o, ws, out, deformed, err);
    } else if (!deformed && method == SF_METHOD_RECOMPUTE &&
               sfi_skin_fused(topo, pose, -1, o.morph_directions, ws, &(sf_frames_out){ws->final_pos, NULL, NULL},
                              ws->det, NULL, NULL)) {
        /* the reference reads the final positions and determinants only: the fast path's, the other deform
           arrays left stale (so not marked deformed) */
        ws->deformed_dirs = -1;
    } else if (!deformed && !sfi_jacobian_folds(topo, ws, method)) {
        /* (the jacobian's fast path deforms in its own pass, writing none of ws's deform arrays) */
        sfi_deform(topo, pose, o.morph_directions, ws);
    }
    if (method == SF_METHOD_RECOMPUTE_FUSED) {
        /* done above: its pass writes the positions too */
    } else if (method == SF_METHOD_RECOMPUTE) {
        r = sfi_recompute(topo, &o, ws, out->normals, out->tangents, err);
    } else if (sfi_method_uses_gradients(method)) {
        r = sfi_jacobian_frames(topo, pose, method, &o, ws, out, deformed, &counted, err);
    } else {
        vertex_job job = {topo, ws, topo->influence_count ? pose->bone_matrices : NULL, method, out->normals,
                          out->tangents};
        sf_env_parallel_for(&topo->env, topo->vertex_count, FRAMES_GRAIN, vertex_range, &job);
    }
    if (r != SF_OK) return r;
    /* no tangent frame: zero tangents, even from supplied ones or deltas */
    finish_job fin = {ws->final_pos, method != SF_METHOD_RECOMPUTE_FUSED && !counted ? out->positions : NULL,
                      topo->has_uvs ? NULL : out->tangents};
    if (fin.positions || fin.tangents) sf_env_parallel_for(&topo->env, topo->vertex_count, FINISH_GRAIN, finish_range, &fin);
    return count_report(topo, ws, method, out, counted, err);
}

sf_result sf_frames_compute_batch(const sf_topology* topo, const sf_pose* poses, size_t count, sf_method method,
                                  const sf_frames_opts* opts, sf_workspace* ws, const sf_frames_out* outs,
                                  sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(count == 0 || (poses && outs), SF_ERROR_INVALID_ARGUMENT, err, poses ? "outs" : "poses", SFI_NO_INDEX,
             "is NULL");
    if (!ws || !ws->be->frames_batch || count == 0) {
        sf_frames_report total;
        memset(&total, 0, sizeof total);
        for (size_t i = 0; i < count; ++i) {
            sf_result r = sf_frames_compute(topo, &poses[i], method, opts, ws, &outs[i], err);
            if (r != SF_OK) {
                if (err) err->index = err->index == SFI_NO_INDEX ? i : err->index;
                return r;
            }
            total.mirrored_vertices += ws->report.mirrored_vertices;
            total.singular_vertices += ws->report.singular_vertices;
            total.degenerate_normals += ws->report.degenerate_normals;
            total.degenerate_tangents += ws->report.degenerate_tangents;
            total.jacobian_capped += ws->report.jacobian_capped;
        }
        if (ws && count) ws->report = total;
        return SF_OK;
    }
    /* the checks of sf_frames_compute, once per pose; then one launch per stage for every instance */
    for (size_t i = 0; i < count; ++i) {
        sf_result r = sf_pose_validate(topo, &poses[i], err);
        if (r != SF_OK) return r;
    }
    SF_CHECK((unsigned)method < SF_METHOD_COUNT, SF_ERROR_INVALID_ARGUMENT, err, "method", SFI_NO_INDEX,
             "%d is not a method", (int)method);
    SF_CHECK(ws->topo == topo, SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX,
             "was not created for this topology");
    SF_CHECK(ws->methods & (1u << method), SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX,
             "was created without `%s` in sf_workspace_opts.methods", sf_method_name(method));
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    if (opts) o = *opts;
    SF_CHECK((unsigned)o.morph_directions <= SF_MORPH_DIRECTIONS_NONE && (unsigned)o.weighting <= SF_WEIGHTING_UNIFORM &&
                 (unsigned)o.weld <= SF_WELD_POSITION_NORMAL && (unsigned)o.tangents <= SF_TANGENTS_MIKKTSPACE &&
                 (unsigned)o.reference <= SF_REFERENCE_AUTHORED,
             SF_ERROR_INVALID_ARGUMENT, err, "opts", SFI_NO_INDEX, "an option is out of range");
    return ws->be->frames_batch(topo, poses, count, method, &o, ws, outs, err);
}

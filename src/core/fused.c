/* `recompute-fused`: the rebuilt reference in one per-vertex pass (sfk_recompute_fused_vertex). Each vertex
 * deforms the corners of its faces (its weld group's where welded) from the rest data and the pose and
 * gathers them in the gather's order, so the frames are `recompute`'s bit for bit with no final-position or
 * face buffer. MikkTSpace tangents (with UVs) and the authored reference are not per-vertex computations:
 * they run as the two-pass `recompute` (rebuild.c, authored.c), reported in fused_two_pass. */
#include "sf_internal.h"
#include "sf_kernels.h"
#include "skin_simd.h"

#include <stdatomic.h>
#include <string.h>

#define FUSED_GRAIN 512
_Static_assert(SFI_FUSED_CHUNK_MIN % SFI_LANES == 0, "a chunk's own vertices are whole lane blocks");

typedef struct fused_job {
    const sf_topology* topo;
    const sf_pose* pose;
    sfk_rest_mesh mesh;
    int weld;      /* -1 none, else the topology's weld index */
    int weighting;
    int tangents;  /* 0: normals only (MikkTSpace tangents follow) */
    float* det;    /* n, the workspace's */
    float* positions;
    float* normals;
    float* tangents_out;
} fused_job;

static void fused_range(void* ctx, size_t begin, size_t end)
{
    const fused_job* job = (const fused_job*)ctx;
    const sf_topology* topo = job->topo;
    const float* bones = job->pose->bone_matrices;
    const float* alpha = job->pose->morph_weights;
    for (size_t v = begin; v < end; ++v) {
        const uint32_t* corners = topo->adj_corners;
        uint32_t b = topo->adj_offsets[v], e = topo->adj_offsets[v + 1];
        if (job->weld >= 0) {
            const sfi_weld* w = &topo->weld[job->weld];
            uint32_t g = w->group[v];
            corners = w->corners;
            b = w->corner_offsets[g];
            e = w->corner_offsets[g + 1];
        }
        float n[3], t[4], p[3];
        sfk_recompute_fused_vertex(&job->mesh, bones, alpha, (uint32_t)v, corners, b, e, job->weighting,
                                   job->tangents, topo->bitangent_sign, n, t, p, job->det + v);
        if (job->positions) memcpy(job->positions + 3 * v, p, sizeof p);
        if (job->normals) memcpy(job->normals + 3 * v, n, sizeof n);
        if (job->tangents_out) memcpy(job->tangents_out + 4 * v, t, sizeof t);
    }
}

/* The fast path (SSE2 or SIMD128, the topology's chunks, fused_plan.c): a chunk deforms each vertex its faces touch
 * once into its slot (its own vertices, and the whole lane blocks among the others, by the per-vertex fast path,
 * skin_body.h; the rest by the scalar kernel: the same bits), rebuilds those faces once as the face pass's records
 * (rebuild_body.h) and gathers its own vertices from them with the operations of the face pass and gather in their
 * order, so the same bits as `recompute`. Each slot takes the next chunk whenever it finishes one (a fixed share per
 * slot left the whole pass waiting on its slowest thread): a chunk writes its slot's scratch before reading it, so
 * which slot or thread runs it changes nothing. A slot holds, for V = max_verts: positions (3 V + 4 floats),
 * determinants (V), face records (SFI_FACE_FLOATS max_faces). */
typedef struct chunk_job {
    const fused_job* f;
    float* scratch;
    size_t slots, slot_floats;
    const float* palette;
    int level;
    atomic_size_t next; /* the next chunk to take */
} chunk_job;

/* Vertices [v0, v0 + count) by the per-vertex fast path (v0 a multiple of SFI_LANES; skin_body.h, positions
 * and determinants only) into P and det. */
static void deform_lane_blocks(const chunk_job* job, size_t v0, size_t count, float* P, float* det)
{
    const sf_topology* topo = job->f->topo;
    const sfi_lanes* L = &topo->lanes;
    size_t b0 = v0 / SFI_LANES, K = L->influences;
    sfi_lanes view = {count / SFI_LANES + (count % SFI_LANES != 0), L->influences,
                      L->rest + b0 * SFI_LANE_ROWS * SFI_LANES, L->joints + b0 * K * SFI_LANES,
                      L->weights + b0 * K * SFI_LANES};
    sfi_skin_job sj;
    memset(&sj, 0, sizeof sj);
    sj.lanes = &view;
    sj.palette = job->palette;
    sj.vertex_count = count;
    sj.alpha = job->f->pose->morph_weights && topo->target_count ? job->f->pose->morph_weights : NULL;
    sj.morph_offsets = topo->morph_offsets + v0;
    sj.morph_target = topo->morph_target;
    sj.morph_dp = topo->morph_dp, sj.morph_dn = topo->morph_dn, sj.morph_dt = topo->morph_dt;
    sj.method = SFI_SKIN_POSITIONS_ONLY;
    sj.has_uvs = topo->has_uvs;
    sj.positions = P;
    sj.det = det;
    sfi_skin_counts counts;
    memset(&counts, 0, sizeof counts);
    counts.first_bad = SIZE_MAX;
    sfi_skin_blocks(job->level, &sj, 0, view.block_count, &counts);
}

/* Vertices [g0, g1) by the scalar kernel into consecutive slots of P and det (the fast path's bits). */
static void deform_scalar(const fused_job* f, size_t g0, size_t g1, float* P, float* det)
{
    for (size_t g = g0; g < g1; ++g)
        sfk_fused_position(&f->mesh, f->pose->bone_matrices, f->pose->morph_weights, (uint32_t)g, P + 3 * (g - g0),
                           det + (g - g0));
}

/* The chunk's other vertices, listed in mesh order: where a run of consecutive numbers holds whole lane blocks
 * (a row above or below on a grid), those blocks by the fast path, the rest vertex by vertex. */
static void deform_others(const chunk_job* job, const uint32_t* verts, size_t own, size_t nv, float* P, float* det)
{
    for (size_t l = own; l < nv;) {
        size_t run = 1;
        while (l + run < nv && verts[l + run] == verts[l] + run) ++run;
        size_t g0 = verts[l], end = g0 + run;
        size_t first = (g0 + SFI_LANES - 1) / SFI_LANES * SFI_LANES, last = end / SFI_LANES * SFI_LANES;
        if (last < first + SFI_LANES) first = last = end; /* no whole block [first, last) in the run */
        float *p = P + 3 * l, *d = det + l; /* the run's slots */
        deform_scalar(job->f, g0, first, p, d);
        if (last > first) deform_lane_blocks(job, first, last - first, p + 3 * (first - g0), d + (first - g0));
        deform_scalar(job->f, last, end, p + 3 * (last - g0), d + (last - g0));
        l += run;
    }
}

static void chunk_frames(const chunk_job* job, float* slot, size_t k)
{
    const fused_job* f = job->f;
    const sf_topology* topo = f->topo;
    const sfi_fused_plan* plan = &topo->fused;
    const uint32_t* verts = plan->verts + plan->vert_offsets[k];
    size_t nv = plan->vert_offsets[k + 1] - plan->vert_offsets[k];
    size_t v0 = k * plan->chunk, own = topo->vertex_count - v0 < plan->chunk ? topo->vertex_count - v0 : plan->chunk;
    float* P = slot;
    float* det = slot + 3 * plan->max_verts + 4;
    float* records = det + plan->max_verts;
    /* the chunk's own vertices: whole lane blocks from v0 (a multiple of SFI_LANES) */
    deform_lane_blocks(job, v0, own, P, det);
    deform_others(job, verts, own, nv, P, det);
    size_t f0 = plan->face_offsets[k];
    /* the UV part only where tangents are gathered (the normals do not read it) */
    sfi_rebuild_chunk_faces_4(P, det, plan->tris + 3 * f0, plan->face_offsets[k + 1] - f0,
                                 f->tangents ? topo->uvs : NULL, verts, f->weighting, records);
    sfi_rebuild_chunk_gather_4(topo, f->weld, records, f->weighting, v0, v0 + own, f->normals, f->tangents_out);
    if (f->positions) memcpy(f->positions + 3 * v0, P, 3 * own * sizeof(float));
    memcpy(f->det + v0, det, own * sizeof(float));
}

static void slot_range(void* ctx, size_t begin, size_t end)
{
    chunk_job* job = (chunk_job*)ctx;
    size_t K = job->f->topo->fused.chunk_count;
    for (size_t s = begin; s < end; ++s)
        for (size_t k; (k = atomic_fetch_add(&job->next, 1)) < K;)
            chunk_frames(job, job->scratch + s * job->slot_floats, k);
}

/* The per-vertex fast path's palette (as skin.c's): each bone padded to 16 floats, the identity after them. */
static void fill_palette(const sf_topology* topo, const sf_pose* pose, float* palette)
{
    size_t B = topo->bone_count;
    for (size_t b = 0; b < B; ++b) memcpy(palette + 16 * b, pose->bone_matrices + 12 * b, 12 * sizeof(float));
    float* identity = palette + 16 * B;
    memset(identity, 0, 16 * sizeof(float));
    identity[0] = identity[4] = identity[8] = 1.0f;
}

sf_result sfi_fused_two_pass(const sf_topology* topo, const sf_frames_opts* opts, const sf_workspace* ws,
                             bool tangents, uint32_t* two_pass, sf_error* err)
{
    bool authored = opts->reference == SF_REFERENCE_AUTHORED;
    bool mikk = !authored && opts->tangents == SF_TANGENTS_MIKKTSPACE && tangents && topo->mikk_uv_flags;
    *two_pass = authored ? SF_FUSED_TWO_PASS_ALL : mikk ? SF_FUSED_TWO_PASS_TANGENTS : 0;
    SF_CHECK(!*two_pass || (ws->methods & (1u << SF_METHOD_RECOMPUTE)), SF_ERROR_INVALID_ARGUMENT, err, "workspace",
             SFI_NO_INDEX,
             "`recompute-fused` runs %s as the two-pass `recompute`, and this workspace has no `recompute` in "
             "sf_workspace_opts.methods",
             authored ? "the authored reference" : "MikkTSpace tangents");
    if (opts->weld != SF_WELD_NONE) {
        int k = opts->weld == SF_WELD_POSITION ? 0 : 1;
        SF_CHECK(topo->weld[k].group != NULL, SF_ERROR_UNSUPPORTED, err, "opts.weld", SFI_NO_INDEX,
                 "weld groups were not built for this topology");
    }
    return SF_OK;
}

sf_result sfi_fused_frames(const sf_topology* topo, const sf_pose* pose, const sf_frames_opts* opts, sf_workspace* ws,
                           const sf_frames_out* out, int deformed, sf_error* err)
{
    uint32_t two_pass = 0;
    sf_result r = sfi_fused_two_pass(topo, opts, ws, out->tangents != NULL, &two_pass, err);
    if (r != SF_OK) return r;
    bool authored = two_pass == SF_FUSED_TWO_PASS_ALL, mikk = two_pass == SF_FUSED_TWO_PASS_TANGENTS;
    if (authored) {
        if (!deformed) sfi_deform(topo, pose, opts->morph_directions, ws);
        r = sfi_recompute(topo, opts, ws, out->normals, out->tangents, err);
        if (r == SF_OK && out->positions && topo->vertex_count)
            memcpy(out->positions, ws->final_pos, 3 * topo->vertex_count * sizeof(float));
    } else {
        /* MikkTSpace needs the normals even when the caller wants none: its scratch then (as rebuild.c) */
        float* normals = out->normals;
        if (mikk && !normals) normals = sfi_mikktspace_scratch_normals(ws->mikktspace);
        fused_job job = {topo, pose, sfi_rest_mesh(topo), opts->weld == SF_WELD_NONE ? -1 : (opts->weld == SF_WELD_POSITION ? 0 : 1),
                         (int)opts->weighting, !mikk, ws->det, out->positions, normals, mikk ? NULL : out->tangents};
        int level = sfi_simd_level(topo);
        if (SFI_SIMD_REBUILD4 && ws->fused_scratch && ws->palette && level >= SFI_SIMD_SSE2) {
            fill_palette(topo, pose, ws->palette);
            chunk_job cj = {.f = &job, .scratch = ws->fused_scratch, .slots = ws->fused_slots,
                            .slot_floats = ws->fused_slot_floats, .palette = ws->palette, .level = level};
            atomic_init(&cj.next, 0);
            sf_env_parallel_for(&topo->env, ws->fused_slots, 1, slot_range, &cj);
        } else {
            sf_env_parallel_for(&topo->env, topo->vertex_count, FUSED_GRAIN, fused_range, &job);
        }
        if (mikk) {
            /* the final positions again, as the deform writes them, for MikkTSpace's whole-mesh pass */
            if (!deformed) sfi_deform(topo, pose, opts->morph_directions, ws);
            r = sfi_mikktspace_tangents(topo, ws->final_pos, normals, ws, out->tangents, err);
        }
    }
    ws->report.fused_two_pass = two_pass;
    return r;
}

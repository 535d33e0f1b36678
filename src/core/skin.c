/* The fused per-vertex pass (sfi_skin_fused): the deform and a per-vertex method in one pass over the topology's
 * lanes, SSE2, AVX2 or AVX-512 by the CPU (simd.c), threaded through sf_env.threads in chunks of SFI_SKIN_GRAIN
 * vertices. Each chunk counts its own report, summed in chunk order afterwards: the same bits and counts for any thread
 * count. Nothing is allocated: the palette and the chunk reports are the workspace's. */
#include "skin_simd.h"
#include "sf_kernels.h"

#include <stdint.h>
#include <string.h>

_Static_assert(SFI_SKIN_GRAIN % SFI_LANES == 0, "chunks hold whole blocks");

size_t sfi_skin_chunk_count(size_t vertex_count)
{
    return vertex_count / SFI_SKIN_GRAIN + (vertex_count % SFI_SKIN_GRAIN != 0);
}

typedef struct skin_run {
    const sfi_skin_job* job;
    sfi_skin_counts* counts;
    int level;
} skin_run;

void sfi_skin_blocks(int level, const sfi_skin_job* job, size_t b0, size_t b1, sfi_skin_counts* counts)
{
#if defined(__wasm_simd128__)
    (void)level; /* the one level of a SIMD128 module */
    sfi_skin_blocks_wasm(job, b0, b1, counts);
    return;
#endif
    if (level >= SFI_SIMD_AVX512) sfi_skin_blocks_avx512(job, b0, b1, counts);
    else if (level >= SFI_SIMD_AVX2) sfi_skin_blocks_avx2(job, b0, b1, counts);
    else sfi_skin_blocks_sse2(job, b0, b1, counts);
}

/* Chunks [begin, end): the loop runs over chunk numbers, so that each chunk's report is written whole by one
   range whatever ranges the pool hands out. */
static void skin_range(void* ctx, size_t begin, size_t end)
{
    const skin_run* run = (const skin_run*)ctx;
    size_t n = run->job->vertex_count;
    for (size_t k = begin; k < end; ++k) {
        sfi_skin_counts* c = &run->counts[k];
        memset(c, 0, sizeof *c);
        c->first_bad = SIZE_MAX;
        size_t v1 = (k + 1) * SFI_SKIN_GRAIN < n ? (k + 1) * SFI_SKIN_GRAIN : n;
        sfi_skin_blocks(run->level, run->job, k * SFI_SKIN_GRAIN / SFI_LANES,
                        v1 / SFI_LANES + (v1 % SFI_LANES != 0), c);
    }
}

uint32_t sfi_skin_palette(const sf_topology* topo, const sf_pose* pose, sf_workspace* ws)
{
    size_t B = topo->bone_count;
    /* the bones padded to 16 floats (the 4 after the 12 stay zero) and the identity last */
    for (size_t b = 0; b < B; ++b) memcpy(ws->palette + 16 * b, pose->bone_matrices + 12 * b, 12 * sizeof(float));
    float* identity = ws->palette + 16 * B;
    memset(identity, 0, 16 * sizeof(float));
    identity[0] = identity[4] = identity[8] = 1.0f;
    return (uint32_t)B;
}

void sfi_skin_job_init(const sf_topology* topo, const sf_pose* pose, int job_method, sf_morph_directions dirs,
                       sf_workspace* ws, const sf_frames_out* out, float* det, sfi_skin_job* job)
{
    size_t B = sfi_skin_palette(topo, pose, ws);
    int has_morph = pose->morph_weights != NULL && topo->target_count > 0;
    int per_vertex = job_method < SFI_SKIN_POSITIONS_ONLY;
    *job = (sfi_skin_job){&topo->lanes,
                          ws->palette,
                          (uint32_t)B,
                          topo->vertex_count,
                          has_morph ? pose->morph_weights : NULL,
                          dirs == SF_MORPH_DIRECTIONS_DELTAS,
                          topo->morph_offsets,
                          topo->morph_target,
                          topo->morph_dp,
                          topo->morph_dn,
                          topo->morph_dt,
                          job_method,
                          topo->has_uvs,
                          out ? out->positions : NULL,
                          per_vertex && out ? out->normals : NULL,
                          per_vertex && out ? out->tangents : NULL,
                          job_method == SFI_SKIN_POSITIONS_ONLY ? det : NULL,
                          job_method == SFI_SKIN_DEFORM ? ws : NULL,
                          NULL,
                          B ? pose->bone_matrices : NULL,
                          topo->joints,
                          topo->weights,
                          (uint32_t)topo->influence_count};
}

/* One pass of the job's method over every vertex; 0 when this CPU has no fast path or the workspace no palette. */
static int skin_pass(const sf_topology* topo, const sf_pose* pose, int job_method, sf_morph_directions dirs,
                     sf_workspace* ws, const sf_frames_out* out, float* det)
{
    int level = sfi_simd_level(topo);
    if (level == SFI_SIMD_SCALAR || !topo->lanes.rest || !ws->palette || !ws->chunk_counts) return 0;
    /* normal deltas without tangent deltas (three.js's morphs): the scalar loops */
    if (job_method != SFI_SKIN_POSITIONS_ONLY && dirs == SF_MORPH_DIRECTIONS_NORMALS) return 0;
    /* a per-vertex method the fast path has no step for (skin_body.h's SK_METHODS): the scalar loops */
    if (job_method != SFK_METHOD_UNCHANGED && job_method != SFK_METHOD_SKINNED &&
        job_method != SFK_METHOD_INVERSE_TRANSPOSE && job_method != SFK_METHOD_BONE_NORMAL_MATRICES &&
        job_method != SFI_SKIN_POSITIONS_ONLY && job_method != SFI_SKIN_DEFORM)
        return 0;
    sfi_skin_job job;
    sfi_skin_job_init(topo, pose, job_method, dirs, ws, out, det, &job);
    skin_run run = {&job, ws->chunk_counts, level};
    sf_env_parallel_for(&topo->env, sfi_skin_chunk_count(topo->vertex_count), 1, skin_range, &run);
    return 1;
}

int sfi_skin_deform(const sf_topology* topo, const sf_pose* pose, sf_morph_directions dirs, sf_workspace* ws)
{
    if (!ws->morph_pos || !ws->blend || !ws->final_pos) return 0;
    return skin_pass(topo, pose, SFI_SKIN_DEFORM, dirs, ws, NULL, NULL);
}

/* The chunks' counts of the pass just run, summed in chunk order, into *report and *bad (each may be NULL). */
static void sum_counts(const sf_topology* topo, const sf_workspace* ws, sf_frames_report* report, size_t* bad)
{
    size_t n = topo->vertex_count;
    size_t first = SIZE_MAX;
    sf_frames_report r;
    memset(&r, 0, sizeof r);
    for (size_t k = 0; k < sfi_skin_chunk_count(n); ++k) {
        const sfi_skin_counts* c = &ws->chunk_counts[k];
        r.mirrored_vertices += c->mirrored;
        r.singular_vertices += c->singular;
        r.degenerate_normals += c->degenerate_normals;
        r.degenerate_tangents += c->degenerate_tangents;
        if (c->first_bad < first) first = c->first_bad;
    }
    if (report) *report = r;
    if (bad) *bad = first;
}

int sfi_skin_fused(const sf_topology* topo, const sf_pose* pose, int method, sf_morph_directions dirs,
                   sf_workspace* ws, const sf_frames_out* out, float* det, sf_frames_report* report, size_t* bad)
{
    if (!skin_pass(topo, pose, method < 0 ? SFI_SKIN_POSITIONS_ONLY : method, dirs, ws, out, det)) return 0;
    sum_counts(topo, ws, report, bad);
    return 1;
}

int sfi_skin_frames_deformed(const sf_topology* topo, const sf_pose* pose, int method, sf_workspace* ws,
                             const sf_frames_out* out, sf_frames_report* report, size_t* bad)
{
    int level = sfi_simd_level(topo);
    if (level == SFI_SIMD_SCALAR || !topo->lanes.rest || !ws->palette || !ws->chunk_counts || !ws->blend ||
        !ws->morph_nrm || !ws->morph_tan || out->positions)
        return 0;
    if (method != SFK_METHOD_UNCHANGED && method != SFK_METHOD_SKINNED && method != SFK_METHOD_INVERSE_TRANSPOSE &&
        method != SFK_METHOD_BONE_NORMAL_MATRICES)
        return 0;
    sfi_skin_job job;
    /* the palette for bone-normal-matrices; no morph: the deform has it */
    sfi_skin_job_init(topo, pose, method, SF_MORPH_DIRECTIONS_NONE, ws, out, NULL, &job);
    job.alpha = NULL;
    job.deformed = ws;
    skin_run run = {&job, ws->chunk_counts, level};
    sf_env_parallel_for(&topo->env, sfi_skin_chunk_count(topo->vertex_count), 1, skin_range, &run);
    sum_counts(topo, ws, report, bad);
    return 1;
}

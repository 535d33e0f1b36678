/* Per-thread scratch: every per-frame array is allocated here once, so frames never allocate. Only the
 * scratch of the methods asked for in sf_workspace_opts is taken; one function lists the blocks, run once
 * to measure (sf_workspace_size) and once to allocate (sf_workspace_create), so the two always agree. */
#include "sf_internal.h"

#include <string.h>

#define ALL_METHODS ((1u << SF_METHOD_COUNT) - 1u)

static sf_result resolve_opts(const sf_workspace_opts* opts, sf_workspace_opts* out, sf_error* err)
{
    memset(out, 0, sizeof *out);
    if (opts) *out = *opts;
    SF_CHECK((out->methods & ~ALL_METHODS) == 0, SF_ERROR_INVALID_ARGUMENT, err, "opts.methods", SFI_NO_INDEX,
             "0x%x has bits beyond the %d methods", (unsigned)out->methods, (int)SF_METHOD_COUNT);
    SF_CHECK(sfi_backend_of(out->backend) != NULL, SF_ERROR_INVALID_ARGUMENT, err, "opts.backend", SFI_NO_INDEX,
             "%d is not a backend", (int)out->backend);
    if (out->methods == 0) out->methods = ALL_METHODS;
    return SF_OK;
}

#define TAKE(blocks, ptr, count) ((ptr) = sfi_blocks_take((blocks), (count), sizeof *(ptr)))

/* Every block a workspace for these methods holds, in one fixed order. ws receives the pointers (all NULL
 * while measuring). */
static void take_blocks(const sf_topology* topo, uint32_t methods, sfi_host_scratch scratch, sf_workspace* ws,
                        sfi_blocks* b)
{
    size_t n = topo->vertex_count, F = topo->triangle_count;
    if (scratch == SFI_SCRATCH_DEVICE) {
        /* a device keeps everything else (sf_workspace_device_size); the host holds what MikkTSpace tangents,
         * a graph algorithm run on the CPU, read back: positions, determinants, normals (in its scratch) and
         * the tangents before they go back up */
        TAKE(b, ws->det, n);
        TAKE(b, ws->final_pos, 3 * n);
        if ((methods & ((1u << SF_METHOD_RECOMPUTE) | (1u << SF_METHOD_RECOMPUTE_FUSED))) && topo->mikk_uv_flags) {
            ws->mikktspace = sfi_mikktspace_scratch_take(b, n, F);
            TAKE(b, ws->host_tangents, 4 * n);
        }
        return;
    }
    /* the deformation: every method reads it but recompute-fused, which deforms in its own pass and keeps
     * only the determinants (the frames report reads them) */
    if (methods & ~(1u << SF_METHOD_RECOMPUTE_FUSED)) {
        TAKE(b, ws->morph_pos, 3 * n);
        TAKE(b, ws->morph_nrm, 3 * n);
        TAKE(b, ws->morph_tan, 3 * n);
        TAKE(b, ws->blend, 12 * n);
    }
    TAKE(b, ws->det, n);
    if (methods & ~(1u << SF_METHOD_RECOMPUTE_FUSED)) {
        TAKE(b, ws->final_pos, 3 * n);
        /* the fast paths: the padded bones and the identity, one report per chunk */
        TAKE(b, ws->palette, 16 * (topo->bone_count + 1));
        ws->chunk_count = sfi_skin_chunk_count(n);
        TAKE(b, ws->chunk_counts, ws->chunk_count ? ws->chunk_count : 1);
    }
    if ((methods & (1u << SF_METHOD_RECOMPUTE_FUSED)) && SFI_SIMD_REBUILD4 && topo->simd_level >= SFI_SIMD_SSE2 &&
        topo->fused.chunk_count) {
        /* recompute-fused's fast path: a slot per run of chunks in flight, bounded whatever the mesh's size */
        const sfi_fused_plan* p = &topo->fused;
        ws->fused_slots = !topo->env.threads.parallel_for ? 1
                          : p->chunk_count < SFI_FUSED_SLOTS ? p->chunk_count : SFI_FUSED_SLOTS;
        ws->fused_slot_floats = 4 * p->max_verts + 4 + SFI_FACE_FLOATS * p->max_faces;
        TAKE(b, ws->fused_scratch, ws->fused_slots * ws->fused_slot_floats);
        /* it deforms by the per-vertex fast path too */
        if (!(methods & ~(1u << SF_METHOD_RECOMPUTE_FUSED))) TAKE(b, ws->palette, 16 * (topo->bone_count + 1));
    }
    if (methods & (1u << SF_METHOD_RECOMPUTE)) {
        /* one block: four arrays of 3F for the scalar loops, or records of 12 floats for the fast path */
        TAKE(b, ws->faces, 12 * F);
        if (ws->faces) {
            ws->face_n = ws->faces;
            ws->face_t = ws->faces + 3 * F;
            ws->face_b = ws->faces + 6 * F;
            ws->corner_w = ws->faces + 9 * F;
        }
        /* MikkTSpace tangents exist only with UVs */
        if (topo->mikk_uv_flags) ws->mikktspace = sfi_mikktspace_scratch_take(b, n, F);
        /* the authored reference: one block of 3 + 1 + 3 + 4 + 3 + 4 floats per vertex */
        TAKE(b, ws->authored, 1);
        float* block = sfi_blocks_take(b, 18 * n, sizeof(float));
        if (ws->authored && block) {
            sfi_authored_scratch* a = ws->authored;
            a->rest_pos = block;
            a->ones = a->rest_pos + 3 * n;
            a->rest_n = a->ones + n;
            a->rest_t = a->rest_n + 3 * n;
            a->pose_n = a->rest_t + 4 * n;
            a->pose_t = a->pose_n + 3 * n;
        }
    }
    /* without gradients the jacobian method refuses the topology before it needs scratch */
    if (sfi_methods_use_gradients(methods) && topo->gradients) {
        TAKE(b, ws->jacobian, 1);
        uint8_t* capped = sfi_blocks_take(b, n, 1);
        if (ws->jacobian) ws->jacobian->capped = capped;
    }
}

size_t sf_workspace_size(const sf_topology* topo, const sf_workspace_opts* opts)
{
    sf_workspace_opts o;
    if (!topo || resolve_opts(opts, &o, NULL) != SF_OK) return 0;
    sf_workspace dummy;
    memset(&dummy, 0, sizeof dummy);
    sfi_blocks measure;
    memset(&measure, 0, sizeof measure);
    take_blocks(topo, o.methods, sfi_backend_of(o.backend)->scratch, &dummy, &measure);
    if (measure.failed || measure.bytes > SIZE_MAX - sizeof(sf_workspace)) return 0;
    return sizeof(sf_workspace) + measure.bytes;
}

size_t sf_workspace_device_size(const sf_topology* topo, const sf_workspace_opts* opts, size_t instances)
{
    sf_workspace_opts o;
    if (!topo || resolve_opts(opts, &o, NULL) != SF_OK) return 0;
    const sfi_backend_i* be = sfi_backend_of(o.backend);
    return be->device_bytes ? be->device_bytes(topo, instances ? instances : 1) : 0;
}

sf_result sf_workspace_create(const sf_topology* topo, const sf_workspace_opts* opts, sf_workspace** out,
                              sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(topo && out, SF_ERROR_INVALID_ARGUMENT, err, topo ? "out" : "topology", SFI_NO_INDEX, "is NULL");
    *out = NULL;
    sf_workspace_opts o;
    sf_result r = resolve_opts(opts, &o, err);
    if (r != SF_OK) return r;
    return sfi_workspace_create_on(topo, &o, sfi_backend_of(o.backend), out, err);
}

sf_result sfi_workspace_create_on(const sf_topology* topo, const sf_workspace_opts* opts, const sfi_backend_i* be,
                                  sf_workspace** out, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(topo && out, SF_ERROR_INVALID_ARGUMENT, err, topo ? "out" : "topology", SFI_NO_INDEX, "is NULL");
    *out = NULL;
    sf_workspace_opts o;
    sf_result r = resolve_opts(opts, &o, err);
    if (r != SF_OK) return r;
    if ((r = be->check(err)) != SF_OK) return r;
    sf_workspace* ws = sf_env_calloc(&topo->env, 1, sizeof *ws);
    if (!ws) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "workspace", SFI_NO_INDEX, "object");
    ws->topo = topo;
    ws->methods = o.methods;
    ws->be = be;
    ws->deformed_dirs = -1;
    ws->blocks.env = &topo->env;
    take_blocks(topo, o.methods, be->scratch, ws, &ws->blocks);
    if (ws->blocks.failed) {
        sf_workspace_destroy(ws);
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "workspace", SFI_NO_INDEX, "%zu vertices, %zu triangles",
                            topo->vertex_count, topo->triangle_count);
    }
    if (be->workspace_init && (r = be->workspace_init(ws, err)) != SF_OK) {
        sf_workspace_destroy(ws);
        return r;
    }
    if (ws->authored) { /* the authored reference's rest "pose": rest positions, unit determinants */
        size_t n = topo->vertex_count;
        if (n) memcpy(ws->authored->rest_pos, topo->rest_positions, 3 * n * sizeof(float));
        for (size_t v = 0; v < n; ++v) ws->authored->ones[v] = 1.0f;
    }
    *out = ws;
    return SF_OK;
}

sf_result sf_workspace_reserve(sf_workspace* ws, size_t instances, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(ws != NULL, SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX, "is NULL");
    SF_CHECK(instances > 0, SF_ERROR_INVALID_ARGUMENT, err, "instances", SFI_NO_INDEX, "0: reserve for at least 1");
    return ws->be->reserve ? ws->be->reserve(ws, instances, err) : SF_OK;
}

void sf_workspace_destroy(sf_workspace* ws)
{
    if (!ws) return;
    const sf_env* env = &ws->topo->env;
    if (ws->be && ws->be->workspace_free) ws->be->workspace_free(ws);
    sfi_blocks_free(&ws->blocks);
    sf_env_free(env, ws, sizeof *ws);
}

void sf_workspace_last_report(const sf_workspace* ws, sf_frames_report* out) { *out = ws->report; }

/* Per-thread scratch: every per-frame array is allocated here once, so frames never allocate. */
#include "sf_internal.h"

#include <string.h>

static void* ws_alloc(sf_workspace* ws, size_t count, size_t elem)
{
    void* p = sf_env_calloc(&ws->topo->env, count ? count : 1, elem);
    if (p) ws->bytes += count * elem;
    return p;
}

sf_result sf_workspace_create(const sf_topology* topo, const sf_workspace_opts* opts, sf_workspace** out,
                              sf_error* err)
{
    (void)opts; /* every method's scratch, for now */
    sf_error_clear(err);
    SF_CHECK(topo && out, SF_ERROR_INVALID_ARGUMENT, err, topo ? "out" : "topology", SFI_NO_INDEX, "is NULL");
    *out = NULL;
    sf_workspace* ws = sf_env_calloc(&topo->env, 1, sizeof *ws);
    if (!ws) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "workspace", SFI_NO_INDEX, "object");
    ws->topo = topo;
    size_t n = topo->vertex_count, F = topo->triangle_count;
    ws->morph_pos = ws_alloc(ws, 3 * n, sizeof(float));
    ws->morph_nrm = ws_alloc(ws, 3 * n, sizeof(float));
    ws->morph_tan = ws_alloc(ws, 3 * n, sizeof(float));
    ws->blend = ws_alloc(ws, 12 * n, sizeof(float));
    ws->det = ws_alloc(ws, n, sizeof(float));
    ws->final_pos = ws_alloc(ws, 3 * n, sizeof(float));
    ws->face_n = ws_alloc(ws, 3 * F, sizeof(float));
    ws->face_t = ws_alloc(ws, 3 * F, sizeof(float));
    ws->face_b = ws_alloc(ws, 3 * F, sizeof(float));
    ws->corner_w = ws_alloc(ws, 3 * F, sizeof(float));
    if (!ws->morph_pos || !ws->morph_nrm || !ws->morph_tan || !ws->blend || !ws->det || !ws->final_pos ||
        !ws->face_n || !ws->face_t || !ws->face_b || !ws->corner_w) {
        sf_workspace_destroy(ws);
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "workspace", SFI_NO_INDEX, "%zu vertices", n);
    }
    sf_result r = sfi_jacobian_scratch_create(ws, err);
    if (r == SF_OK) r = sfi_mikktspace_scratch_create(ws, err);
    if (r == SF_OK) r = sfi_authored_scratch_create(ws, err);
    if (r != SF_OK) {
        sf_workspace_destroy(ws);
        return r;
    }
    *out = ws;
    return SF_OK;
}

void sf_workspace_destroy(sf_workspace* ws)
{
    if (!ws) return;
    const sf_env* env = &ws->topo->env;
    sfi_jacobian_scratch_free(ws);
    sfi_mikktspace_scratch_free(ws);
    sfi_authored_scratch_free(ws);
    void* arrays[] = {ws->morph_pos, ws->morph_nrm, ws->morph_tan, ws->blend,  ws->det,
                      ws->final_pos, ws->face_n,    ws->face_t,    ws->face_b, ws->corner_w};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i) sf_env_free(env, arrays[i], 0);
    sf_env_free(env, ws, sizeof *ws);
}

void sf_workspace_last_report(const sf_workspace* ws, sf_frames_report* out) { *out = ws->report; }

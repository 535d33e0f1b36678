/* The jacobians' weight-gradient slots in the lanes' blocks (sfi_jacobian_lanes, sf_internal.h): the per-vertex
 * CSR of topo->gradients or topo->fan_gradients regrouped once, slot-major inside a block, so that a fast-path step
 * loads a slot's coefficients with one vector load per row and its lanes' palette indices from one row;
 * jacobian-fan's fan normals likewise, one row per component. */
#include "sf_internal.h"
#include "sf_kernels.h"

#include <string.h>

/* Block b's rows (its largest slot count) and whether it is stored blocked: some slots, and its padded rows at
 * most twice its CSR slots (which bounds the copy's bytes by the CSR's). */
static int slot_block(const uint32_t* offsets, size_t vertex_count, size_t b, uint32_t* rows)
{
    size_t v0 = b * SFI_LANES, v1 = v0 + SFI_LANES < vertex_count ? v0 + SFI_LANES : vertex_count;
    uint32_t most = 0;
    for (size_t v = v0; v < v1; ++v) {
        uint32_t c = offsets[v + 1] - offsets[v];
        most = c > most ? c : most;
    }
    size_t slots = offsets[v1] - offsets[v0];
    *rows = most;
    return slots > 0 && (size_t)most * SFI_LANES <= 2 * slots;
}

sf_result sfi_jacobian_lanes_build(size_t vertex_count, const sfi_gradients* g, size_t bone_count, sfi_store* store,
                                   sfi_jacobian_lanes* out, sf_error* err)
{
    memset(out, 0, sizeof *out);
    /* 16-bit palette indices, the identity (bone_count) included */
    if (!g || bone_count > SFI_LANES_MAX_BONES) return SF_OK;
    const int fan = g->fan_normal != NULL;
    if (!fan && g->slot_offsets[vertex_count] == 0) return SF_OK;
    const uint32_t F = g->slot_floats;
    size_t blocks = vertex_count / SFI_LANES + (vertex_count % SFI_LANES != 0), total = 0;
    for (size_t b = 0; b < blocks; ++b) {
        uint32_t rows;
        if (slot_block(g->slot_offsets, vertex_count, b, &rows)) total += rows;
    }
    out->block_count = blocks;
    out->floats = F;
    out->row_offsets = sfi_store_alloc(store, blocks + 1, sizeof(uint32_t));
    out->joint = sfi_store_alloc(store, total ? total : 1, SFI_LANES * sizeof(uint16_t));
    out->coef = sfi_store_alloc(store, total ? total : 1, F * SFI_LANES * sizeof(float)); /* zeroed: the padding */
    if (fan) out->normal = sfi_store_alloc(store, blocks ? blocks : 1, 3 * SFI_LANES * sizeof(float));
    if (!out->row_offsets || !out->joint || !out->coef || (fan && !out->normal)) {
        sfi_jacobian_lanes_free(store, out);
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "topology", SFI_NO_INDEX,
                            "blocked jacobian slots for %zu vertices", vertex_count);
    }
    for (size_t v = 0; fan && v < vertex_count; ++v)
        for (int k = 0; k < 3; ++k)
            out->normal[(v / SFI_LANES * 3 + (size_t)k) * SFI_LANES + v % SFI_LANES] = g->fan_normal[3 * v + (size_t)k];
    const uint16_t identity = (uint16_t)bone_count;
    size_t at = 0;
    for (size_t b = 0; b < blocks; ++b) {
        out->row_offsets[b] = (uint32_t)at;
        uint32_t rows;
        if (!slot_block(g->slot_offsets, vertex_count, b, &rows)) continue;
        uint16_t* J = out->joint + at * SFI_LANES;
        float* C = out->coef + F * at * SFI_LANES;
        /* lanes past their own count (and past vertex_count): the identity with zero coefficients, as the step
         * pads on the CSR path */
        for (size_t i = 0; i < (size_t)rows * SFI_LANES; ++i) J[i] = identity;
        for (size_t l = 0; l < SFI_LANES && b * SFI_LANES + l < vertex_count; ++l) {
            size_t v = b * SFI_LANES + l;
            for (uint32_t e = g->slot_offsets[v], k = 0; e < g->slot_offsets[v + 1]; ++e, ++k) {
                uint32_t j = g->slot_joint[e]; /* < bone_count (validated) or SFK_REST_JOINT */
                J[k * SFI_LANES + l] = j == SFK_REST_JOINT ? identity : (uint16_t)j;
                for (uint32_t f = 0; f < F; ++f) C[(F * k + f) * SFI_LANES + l] = g->slot_coef[F * (size_t)e + f];
            }
        }
        at += rows;
    }
    out->row_offsets[blocks] = (uint32_t)at;
    return SF_OK;
}

void sfi_jacobian_lanes_free(const sfi_store* store, sfi_jacobian_lanes* jl)
{
    sfi_store_free(store, jl->row_offsets);
    sfi_store_free(store, jl->joint);
    sfi_store_free(store, jl->coef);
    sfi_store_free(store, jl->normal);
    memset(jl, 0, sizeof *jl);
}

/* The blocked layout of the per-vertex fast paths (sfi_lanes, sf_internal.h): the packed rest streams and
 * normalised influences of the topology regrouped once, SFI_LANES vertices per block, one component per row. */
#include "sf_internal.h"

#include <string.h>

sf_result sfi_lanes_build(size_t vertex_count, const float* positions, const float* normals, const float* tangents,
                          uint32_t influence_count, const uint32_t* joints, const float* weights, size_t bone_count,
                          sfi_store* store, sfi_lanes* out, sf_error* err)
{
    memset(out, 0, sizeof *out);
    if (bone_count > SFI_LANES_MAX_BONES) return SF_OK; /* the scalar loops */
    size_t blocks = vertex_count / SFI_LANES + (vertex_count % SFI_LANES != 0);
    uint32_t K = influence_count ? influence_count : 1;
    out->block_count = blocks;
    out->influences = K;
    out->rest = sfi_store_alloc(store, blocks ? blocks : 1, SFI_LANE_ROWS * SFI_LANES * sizeof(float));
    out->joints = sfi_store_alloc(store, blocks ? blocks : 1, (size_t)K * SFI_LANES * sizeof(uint16_t));
    out->weights = sfi_store_alloc(store, blocks ? blocks : 1, (size_t)K * SFI_LANES * sizeof(float));
    if (!out->rest || !out->joints || !out->weights) {
        sfi_lanes_free(store, out);
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "topology", SFI_NO_INDEX, "blocked streams for %zu vertices",
                            vertex_count);
    }
    const uint16_t identity = (uint16_t)bone_count;
    for (size_t b = 0; b < blocks; ++b) {
        float* rest = out->rest + b * SFI_LANE_ROWS * SFI_LANES;
        uint16_t* J = out->joints + b * K * SFI_LANES;
        float* W = out->weights + b * K * SFI_LANES;
        for (size_t l = 0; l < SFI_LANES; ++l) {
            size_t v = b * SFI_LANES + l;
            for (uint32_t i = 0; i < K; ++i) J[i * SFI_LANES + l] = identity; /* padding lanes: weight 0 */
            if (v >= vertex_count) continue;
            for (int k = 0; k < 3; ++k) {
                rest[k * SFI_LANES + l] = positions[3 * v + k];
                rest[(3 + k) * SFI_LANES + l] = normals[3 * v + k];
            }
            for (int k = 0; k < 4; ++k) rest[(6 + k) * SFI_LANES + l] = tangents[4 * v + k];
            float total = 0.0f;
            for (uint32_t i = 0; influence_count && i < K; ++i) {
                J[i * SFI_LANES + l] = (uint16_t)joints[(size_t)K * v + i]; /* < bone_count (validated) */
                W[i * SFI_LANES + l] = weights[(size_t)K * v + i];
                total += weights[(size_t)K * v + i];
            }
            if (total == 0.0f) { /* no weight: the identity, as sfk_blend_matrix */
                for (uint32_t i = 0; i < K; ++i) J[i * SFI_LANES + l] = identity, W[i * SFI_LANES + l] = 0.0f;
                W[l] = 1.0f;
            }
        }
    }
    return SF_OK;
}

/* Block [v0, v1)'s distinct targets into list (increasing), slot_of[target] = its place there, and whether the
 * block goes into the blocked morph: every (lane, target) pair at most once, and at least half of the block's
 * rows (distinct targets x lanes) filled, which bounds the blocked bytes by twice the CSR's. slot_of is
 * UINT32_MAX for every target on entry and again on return; list holds SFI_LANES * target_count. */
static int morph_block(size_t v0, size_t v1, const uint32_t* offsets, const uint32_t* target, uint32_t* slot_of,
                       uint32_t* list, size_t* count)
{
    size_t t = 0;
    int ok = 1;
    for (size_t v = v0; v < v1; ++v)
        for (uint32_t e = offsets[v]; e < offsets[v + 1]; ++e) {
            if (e > offsets[v] && target[e] == target[e - 1]) ok = 0; /* a target listed twice for one vertex */
            if (slot_of[target[e]] == UINT32_MAX) slot_of[target[e]] = 0, list[t++] = target[e];
        }
    for (size_t i = 1; i < t; ++i) /* insertion sort: a block has few targets, and they mostly come in order */
        for (size_t j = i; j > 0 && list[j - 1] > list[j]; --j) {
            uint32_t x = list[j];
            list[j] = list[j - 1], list[j - 1] = x;
        }
    for (size_t i = 0; i < t; ++i) slot_of[list[i]] = (uint32_t)i;
    *count = t;
    size_t entries = offsets[v1] - offsets[v0];
    return ok && entries > 0 && 2 * entries >= t * SFI_LANES;
}

static void morph_block_reset(const uint32_t* list, size_t count, uint32_t* slot_of)
{
    for (size_t i = 0; i < count; ++i) slot_of[list[i]] = UINT32_MAX;
}

sf_result sfi_lanes_build_morph(size_t vertex_count, size_t target_count, const uint32_t* offsets,
                                const uint32_t* target, const float* dp, const float* dn, const float* dt,
                                sfi_store* store, sfi_lanes* lanes, sf_error* err)
{
    if (!lanes->rest || !offsets || offsets[vertex_count] == 0) return SF_OK;
    size_t blocks = lanes->block_count, total = 0, t = 0;
    /* scratch of the build, not the topology's */
    uint32_t* slot_of = sf_env_calloc(store->env, target_count, sizeof(uint32_t));
    uint32_t* list = sf_env_calloc(store->env, target_count, sizeof(uint32_t));
    if (!slot_of || !list) {
        sfi_store_free(store, slot_of), sfi_store_free(store, list);
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "topology", SFI_NO_INDEX, "blocked morph of %zu targets",
                            target_count);
    }
    memset(slot_of, 0xff, target_count * sizeof(uint32_t));
    for (size_t b = 0; b < blocks; ++b) {
        size_t v0 = b * SFI_LANES, v1 = v0 + SFI_LANES < vertex_count ? v0 + SFI_LANES : vertex_count;
        if (morph_block(v0, v1, offsets, target, slot_of, list, &t)) total += t;
        morph_block_reset(list, t, slot_of);
    }
    lanes->morph_offsets = sfi_store_alloc(store, blocks + 1, sizeof(uint32_t));
    lanes->morph_target = sfi_store_alloc(store, total ? total : 1, sizeof(uint32_t));
    lanes->morph_lanes = sfi_store_alloc(store, total ? total : 1, sizeof(uint32_t));
    lanes->morph_rows = sfi_store_alloc(store, total ? total : 1, SFI_MORPH_ROWS * SFI_LANES * sizeof(float));
    if (!lanes->morph_offsets || !lanes->morph_target || !lanes->morph_lanes || !lanes->morph_rows) {
        sfi_store_free(store, slot_of), sfi_store_free(store, list);
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "topology", SFI_NO_INDEX, "blocked morph of %zu entries",
                            total);
    }
    size_t at = 0;
    for (size_t b = 0; b < blocks; ++b) {
        lanes->morph_offsets[b] = (uint32_t)at;
        size_t v0 = b * SFI_LANES, v1 = v0 + SFI_LANES < vertex_count ? v0 + SFI_LANES : vertex_count;
        if (morph_block(v0, v1, offsets, target, slot_of, list, &t)) {
            float* rows = lanes->morph_rows + at * SFI_MORPH_ROWS * SFI_LANES;
            memset(rows, 0, t * SFI_MORPH_ROWS * SFI_LANES * sizeof(float));
            for (size_t k = 0; k < t; ++k) lanes->morph_target[at + k] = list[k], lanes->morph_lanes[at + k] = 0;
            for (size_t v = v0; v < v1; ++v)
                for (uint32_t e = offsets[v]; e < offsets[v + 1]; ++e) {
                    size_t k = slot_of[target[e]], l = v - v0;
                    float* r = rows + k * SFI_MORPH_ROWS * SFI_LANES;
                    lanes->morph_lanes[at + k] |= 1u << l;
                    for (int c = 0; c < 3; ++c) {
                        r[c * SFI_LANES + l] = dp[3 * (size_t)e + c];
                        r[(3 + c) * SFI_LANES + l] = dn[3 * (size_t)e + c];
                        r[(6 + c) * SFI_LANES + l] = dt[3 * (size_t)e + c];
                    }
                }
            at += t;
        }
        morph_block_reset(list, t, slot_of);
    }
    lanes->morph_offsets[blocks] = (uint32_t)at;
    sfi_store_free(store, slot_of), sfi_store_free(store, list);
    return SF_OK;
}

void sfi_lanes_free(const sfi_store* store, sfi_lanes* lanes)
{
    sfi_store_free(store, lanes->morph_offsets);
    sfi_store_free(store, lanes->morph_target);
    sfi_store_free(store, lanes->morph_lanes);
    sfi_store_free(store, lanes->morph_rows);
    sfi_store_free(store, lanes->rest);
    sfi_store_free(store, lanes->joints);
    sfi_store_free(store, lanes->weights);
    lanes->rest = NULL;
    lanes->joints = NULL;
    lanes->weights = NULL;
    lanes->morph_offsets = lanes->morph_target = lanes->morph_lanes = NULL;
    lanes->morph_rows = NULL;
}

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

void sfi_lanes_free(const sfi_store* store, sfi_lanes* lanes)
{
    sfi_store_free(store, lanes->rest);
    sfi_store_free(store, lanes->joints);
    sfi_store_free(store, lanes->weights);
    lanes->rest = NULL;
    lanes->joints = NULL;
    lanes->weights = NULL;
}

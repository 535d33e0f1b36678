/* What runtimes do to a mesh's data before they skin it: keep a few influences per vertex (renormalised),
 * keep a few active morph targets. The evaluation measures what that costs (sf_evaluation_run_against). */
#include "sf_internal.h"

#include <math.h>
#include <string.h>

/* Is slot a of one vertex ranked before slot b: the larger weight, the earlier slot on a tie. */
static bool ranks_before(const float* w, uint32_t a, uint32_t b) { return w[a] > w[b] || (w[a] == w[b] && a < b); }

sf_result sf_influences_truncate(size_t vertex_count, uint32_t influence_count, const uint32_t* joints,
                                 const float* weights, uint32_t max_influences, uint32_t* out_joints,
                                 float* out_weights, size_t* truncated, sf_error* err)
{
    sf_error_clear(err);
    if (truncated) *truncated = 0;
    SF_CHECK(max_influences > 0, SF_ERROR_INVALID_ARGUMENT, err, "max_influences", SFI_NO_INDEX, "is 0, need >= 1");
    bool inputs = vertex_count == 0 || influence_count == 0 || (joints && weights);
    SF_CHECK(inputs, SF_ERROR_INVALID_ARGUMENT, err, joints ? "weights" : "joints", SFI_NO_INDEX,
             "is NULL for %zu vertices", vertex_count);
    SF_CHECK(!out_joints == !out_weights, SF_ERROR_INVALID_ARGUMENT, err, out_joints ? "out_weights" : "out_joints",
             SFI_NO_INDEX, "is NULL while the other output is not (both NULL = count only)");
    uint32_t K = influence_count, M = max_influences < K ? max_influences : K;
    size_t count = 0;
    for (size_t v = 0; v < vertex_count; ++v) {
        const float* w = weights + (size_t)K * v;
        uint32_t nonzero = 0;
        for (uint32_t i = 0; i < K; ++i) {
            SF_CHECK(isfinite(w[i]) && w[i] >= 0.0f, SF_ERROR_INVALID_ARGUMENT, err, "weights", v,
                     "slot %u is %g, need a finite weight >= 0", (unsigned)i, (double)w[i]);
            nonzero += w[i] != 0.0f;
        }
        if (nonzero > max_influences) count++;
        if (!out_joints) continue;
        /* Slot i is kept when fewer than M slots rank before it: the M largest, in slot order. */
        uint32_t* oj = out_joints + (size_t)M * v;
        float* ow = out_weights + (size_t)M * v;
        uint32_t kept = 0;
        double sum = 0.0;
        for (uint32_t i = 0; i < K && kept < M; ++i) {
            uint32_t before = 0;
            for (uint32_t k = 0; k < K && before < M; ++k) before += ranks_before(w, k, i);
            if (before >= M) continue;
            oj[kept] = joints[(size_t)K * v + i];
            ow[kept] = w[i];
            sum += (double)w[i];
            kept++;
        }
        for (uint32_t k = 0; k < kept; ++k) ow[k] = sum > 0.0 ? (float)((double)ow[k] / sum) : 0.0f;
    }
    if (truncated) *truncated = count;
    return SF_OK;
}

size_t sf_morph_weights_truncate(const float* weights, size_t count, size_t max_targets, float* out)
{
    if (!weights || !out) return 0;
    if (out != weights) memmove(out, weights, count * sizeof *out);
    if (max_targets >= count) return 0;
    /* A target is zeroed when max_targets others rank before it (larger magnitude, or equal and earlier);
     * O(count^2), counts are small. In place is safe: the kept ones rank before every zeroed one, so zeroing
     * one changes no decision. */
    size_t zeroed = 0;
    for (size_t i = 0; i < count; ++i) {
        float a = fabsf(out[i]);
        if (a == 0.0f) continue;
        size_t before = 0;
        for (size_t k = 0; k < count && before < max_targets; ++k) {
            float b = fabsf(out[k]);
            before += b > a || (b == a && k < i);
        }
        if (before >= max_targets) {
            out[i] = 0.0f;
            zeroed++;
        }
    }
    return zeroed;
}

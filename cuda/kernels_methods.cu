// The GPU forms of bone-normal-matrices, jacobian-fan and recompute-fused: one thread per vertex of one
// instance (blockIdx.y), calling the per-vertex formulas of src/kernels/sf_kernels.h as the CPU loops do
// (src/core/frames.c, jacobian.c, fused.c).
//   bone-normal-matrices  morph + skin, then each influence's bone cofactor blended (sfk_bone_normal_frame)
//   jacobian-fan          morph + skin, then the secant map of the welded fan (sfk_jacobian_fan_vertex)
//   recompute-fused       each vertex deforms its faces' corners from the pose and gathers them
//                         (sfk_recompute_fused_vertex over the 16-bit joints), no position or face buffer
#include "kernels_common.cuh"

namespace {

enum { BONE_NORMAL = 0, FAN = 1 };

// With counters, the frames report is counted here (report_frame); det may be NULL (not written).
template <int K, int MODE>
__global__ void __launch_bounds__(SFC_THREADS)
    k_method(sfc_topo t, sfc_batch b, int with_dirs, float cap, float* pos, float* det, float* nrm, float* tan,
             unsigned long long* counters)
{
    uint32_t v = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    bool live = v < t.n, capped = false;
    size_t o = (size_t)i * t.n + v;
    float d = 1.0f, fp[3] = {0, 0, 0}, no[3] = {0, 0, 0}, to[4] = {0, 0, 0, 0};
    if (live) {
        const float* bones = b.bones ? b.bones + i * b.bone_stride : NULL;
        const float* alpha = b.alpha ? b.alpha + i * b.alpha_stride : NULL;
        float p[3], n[3], tt[3], m[12], rest_w;
        // the jacobians read the rest frame with J's morph gradients, never the direction deltas
        deform<K>(t, bones, alpha, v, MODE == BONE_NORMAL ? with_dirs : SFK_MORPH_DIRS_NONE, p, n, tt, m, &d, fp, &rest_w);
        if (MODE == BONE_NORMAL) { // the stores after every load (k_vertex says why)
            uint32_t j[K > 0 ? K : 1];
            float w[K > 0 ? K : 1];
            influences<K>::load(t, v, j, w); // zero-weight padding is skipped as sfk_blend_matrix skips it
            sfk_bone_normal_frame(bones, j, w, (uint32_t)K, m, d, n, tt, rest_w, no, to);
        } else {
            uint32_t s0 = t.fan.slot_offsets[v], s1 = t.fan.slot_offsets[v + 1], m0 = 0, m1 = 0;
            if (alpha) {
                m0 = t.fan.morph_offsets[v];
                m1 = t.fan.morph_offsets[v + 1];
            }
            float n0[3], nf[3];
            load3(t.rest_n, v, n0);
            load3(t.fan.fan_normal, v, nf);
            float4 r4 = reinterpret_cast<const float4*>(t.rest_t)[v];
            float t0[4] = {r4.x, r4.y, r4.z, r4.w};
            capped = sfk_jacobian_fan_vertex(bones, m, d, p, fp, n0, t0, nf, t.fan.slot_joint + s0,
                                             t.fan.slot_coef + (size_t)SFK_JACOBIAN_FAN_SLOT_FLOATS * s0, s1 - s0,
                                             t.fan.morph_target + m0, t.fan.morph_duv + 6 * (size_t)m0, m1 - m0,
                                             alpha, cap, no, to) != 0;
        }
        if (pos) store3(pos, o, fp);
        if (det) det[o] = d;
        store3(nrm, o, no);
        store_tan(t, tan, o, to);
    }
    int method = MODE == BONE_NORMAL ? SF_METHOD_BONE_NORMAL_MATRICES : SF_METHOD_JACOBIAN_FAN;
    if (counters) report_frame(counters, method, t.has_uvs, live, o, d, fp, no, to, capped);
}

__global__ void __launch_bounds__(SFC_THREADS)
    k_recompute_fused(sfc_topo t, sfc_batch b, int weld, int weighting, int tangents, float* pos, float* det,
                      float* nrm, float* tan)
{
    uint32_t v = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (v >= t.n) return;
    const float* bones = b.bones ? b.bones + i * b.bone_stride : NULL;
    const float* alpha = b.alpha ? b.alpha + i * b.alpha_stride : NULL;
    // the padded slots carry zero weights, which the blend skips: the CPU's matrices bit for bit
    sfk_rest_mesh mesh = {t.rest_p, t.morph_offsets, t.morph_target, t.morph_dp, NULL,
                          t.joints, t.weights,       t.K,            t.indices,  t.uvs};
    const uint32_t* corners = t.adj_corners;
    uint32_t cb = t.adj_offsets[v], ce = t.adj_offsets[v + 1];
    if (weld >= 0) { // the weld group's corners, as fused.c picks them
        uint32_t g = t.weld[weld].group[v];
        corners = t.weld[weld].corners;
        cb = t.weld[weld].corner_offsets[g];
        ce = t.weld[weld].corner_offsets[g + 1];
    }
    float n[3], tt[4], p[3], d;
    sfk_recompute_fused_vertex(&mesh, bones, alpha, v, corners, cb, ce, weighting, tangents, t.bitangent_sign, n, tt,
                               p, &d);
    size_t o = (size_t)i * t.n + v;
    if (pos) store3(pos, o, p);
    if (det) det[o] = d;
    store3(nrm, o, n);
    store_tan(t, tan, o, tt);
}

} // namespace

sf_result sfc_method_frames(const sfc_topo* t, const sfc_batch* b, int method, int with_dirs, float cap, float* pos,
                            float* det, float* nrm, float* tan, unsigned long long* counters, cudaStream_t s,
                            sf_error* err)
{
    if (method != SF_METHOD_BONE_NORMAL_MATRICES && method != SF_METHOD_JACOBIAN_FAN)
        return sf_error_set(err, SF_ERROR_INVALID_ARGUMENT, "method", SFI_NO_INDEX, "cuda: `%s` is not launched here",
                            sf_method_name((sf_method)method));
    if (method == SF_METHOD_JACOBIAN_FAN && !t->fan.slot_offsets)
        return sf_error_set(err, SF_ERROR_UNSUPPORTED, "topology", SFI_NO_INDEX,
                            "built with skip_gradients = 1; the jacobian-fan method needs its gradients");
    if (t->n == 0) return SF_OK;
    dim3 g = grid(t->n, b->count);
#define SFC_METHOD_K(K)                                                                                                \
    do {                                                                                                               \
        if (method == SF_METHOD_BONE_NORMAL_MATRICES)                                                                  \
            k_method<K, BONE_NORMAL><<<g, SFC_THREADS, 0, s>>>(*t, *b, with_dirs, cap, pos, det, nrm, tan, counters);  \
        else                                                                                                           \
            k_method<K, FAN><<<g, SFC_THREADS, 0, s>>>(*t, *b, with_dirs, cap, pos, det, nrm, tan, counters);          \
    } while (0)
    switch (t->K) {
    case 0: SFC_METHOD_K(0); break;
    case 4: SFC_METHOD_K(4); break;
    case 8: SFC_METHOD_K(8); break;
    default: SFC_METHOD_K(16); break;
    }
#undef SFC_METHOD_K
    SFC_LAUNCHED("k_method", err);
    return SF_OK;
}

sf_result sfc_recompute_fused(const sfc_topo* t, const sfc_batch* b, int weld, int weighting, int tangents,
                              float* pos, float* det, float* nrm, float* tan, cudaStream_t s, sf_error* err)
{
    if (t->n == 0) return SF_OK;
    k_recompute_fused<<<grid(t->n, b->count), SFC_THREADS, 0, s>>>(*t, *b, weld, weighting, tangents, pos, det, nrm,
                                                                   tan);
    SFC_LAUNCHED("k_recompute_fused", err);
    return SF_OK;
}

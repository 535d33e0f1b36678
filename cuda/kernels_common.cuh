// Device helpers the kernel files share (cuda/kernels.cu, kernels_recompute.cu, kernels_stats.cu, kernels_methods.cu,
// kernels_halo.cu): loads and stores of the packed streams, a vertex's influences and its deformation from the device
// topology, warp counters.
#ifndef SF_CUDA_KERNELS_COMMON_CUH
#define SF_CUDA_KERNELS_COMMON_CUH

#include "cuda_internal.h"
#include "sf_kernels.h"

#include <float.h>

#define SFC_THREADS 256

namespace { // each kernel file its own copy (no relocatable device code)

__device__ __forceinline__ void load3(const float* p, size_t i, float out[3])
{
    out[0] = p[3 * i];
    out[1] = p[3 * i + 1];
    out[2] = p[3 * i + 2];
}

__device__ __forceinline__ void store3(float* p, size_t i, const float v[3])
{
    p[3 * i] = v[0];
    p[3 * i + 1] = v[1];
    p[3 * i + 2] = v[2];
}

// Tangent outputs: zero xyz without a tangent frame, as the CPU path writes them.
__device__ __forceinline__ void store_tan(const sfc_topo& t, float* p, size_t i, const float v[4])
{
    float4 o = t.has_uvs ? make_float4(v[0], v[1], v[2], v[3]) : make_float4(0.0f, 0.0f, 0.0f, v[3]);
    reinterpret_cast<float4*>(p)[i] = o;
}

// A vertex's K influence slots: 16-bit joints, float weights (one 8-byte and one 16-byte load for K = 4).
template <int K> struct influences {
    static __device__ __forceinline__ void load(const sfc_topo& t, uint32_t v, uint32_t* j, float* w)
    {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            j[k] = t.joints[(size_t)K * v + k];
            w[k] = t.weights[(size_t)K * v + k];
        }
    }
};
template <> struct influences<4> {
    static __device__ __forceinline__ void load(const sfc_topo& t, uint32_t v, uint32_t* j, float* w)
    {
        ushort4 jj = reinterpret_cast<const ushort4*>(t.joints)[v];
        float4 ww = reinterpret_cast<const float4*>(t.weights)[v];
        j[0] = jj.x, j[1] = jj.y, j[2] = jj.z, j[3] = jj.w;
        w[0] = ww.x, w[1] = ww.y, w[2] = ww.z, w[3] = ww.w;
    }
};

// One vertex's deformation (sfk_deform_vertex) from the device topology; K influence slots (0, 4, 8, 16).
template <int K>
__device__ __forceinline__ void deform(const sfc_topo& t, const float* bones, const float* alpha, uint32_t v,
                                       int with_dirs, float p[3], float n[3], float tt[3], float m[12], float* det,
                                       float fp[3], float* rest_w)
{
    float rp[3], rn[3];
    load3(t.rest_p, v, rp);
    load3(t.rest_n, v, rn);
    float4 r4 = reinterpret_cast<const float4*>(t.rest_t)[v];
    float rt[3] = {r4.x, r4.y, r4.z};
    *rest_w = r4.w;
    uint32_t e0 = 0, e1 = 0;
    if (alpha) {
        e0 = t.morph_offsets[v];
        e1 = t.morph_offsets[v + 1];
    }
    uint32_t j[K > 0 ? K : 1];
    float w[K > 0 ? K : 1];
    influences<K>::load(t, v, j, w);
    sfk_deform_vertex(rp, rn, rt, t.morph_target + e0, t.morph_dp + 3 * (size_t)e0, t.morph_dn + 3 * (size_t)e0,
                      t.morph_dt + 3 * (size_t)e0, e1 - e0, alpha, with_dirs, bones, j, w, (uint32_t)K, p, n, tt, m,
                      det, fp);
}

__device__ __forceinline__ void warp_count(unsigned long long* counter, bool pred)
{
    unsigned ballot = __ballot_sync(0xffffffffu, pred);
    if ((threadIdx.x & 31u) == 0 && ballot) atomicAdd(counter, (unsigned long long)__popc(ballot));
}

// One vertex's part of the frames report (SFC_COUNTERS) from the values its outputs hold: the kernel that makes
// the frame counts it, so the frames need no second pass and the determinant no buffer. Every lane of the warp
// calls this (live or not); t: the tangent as stored (store_tan), or NULL for a kernel without tangents.
__device__ __forceinline__ void report_frame(unsigned long long* counters, int method, int has_uvs, bool live,
                                             size_t o, float d, const float p[3], const float n[3], const float t[4],
                                             bool capped)
{
    bool mirrored = false, singular = false, dn = false, dt = false, bad = false, any = capped;
    if (live) {
        float tt[3] = {0.0f, 0.0f, 0.0f}, tw = 0.0f;
        if (t && has_uvs) tt[0] = t[0], tt[1] = t[1], tt[2] = t[2];
        if (t) tw = t[3];
        mirrored = d < 0.0f;
        singular = method == SFK_METHOD_INVERSE_TRANSPOSE && !(d >= SF_SINGULAR_DET_EPS || d <= -SF_SINGULAR_DET_EPS);
        dn = sfk_dot(n, n) == 0.0f;
        dt = has_uvs && sfk_dot(tt, tt) == 0.0f;
        bad = !(sfk_finite3(n) && sfk_finite3(p) && sfk_finite3(tt) && fabsf(tw) <= FLT_MAX);
        if (bad) atomicMin(counters + SFC_FIRST_BAD, (unsigned long long)o);
        any = any || mirrored || singular || dn || dt || bad;
    }
    if (!__any_sync(0xffffffffu, any)) return; // the usual warp: one vote, not six
    warp_count(counters + SFC_MIRRORED, mirrored);
    warp_count(counters + SFC_SINGULAR, singular);
    warp_count(counters + SFC_DEGENERATE_N, dn);
    warp_count(counters + SFC_DEGENERATE_T, dt);
    warp_count(counters + SFC_NONFINITE, bad);
    warp_count(counters + SFC_CAPPED, capped);
}

// The caller's number (instance * n + vertex) of device vertex o of an instance (sfc_topo.caller).
__device__ __forceinline__ uint32_t caller_index(const sfc_topo& t, uint32_t o)
{
    if (!t.caller) return o;
    uint32_t i = o / t.n;
    return i * t.n + __ldg(t.caller + (o - i * t.n));
}

inline dim3 grid(uint32_t items, uint32_t count) { return dim3((items + SFC_THREADS - 1) / SFC_THREADS, count); }

} // namespace

#endif // SF_CUDA_KERNELS_COMMON_CUH

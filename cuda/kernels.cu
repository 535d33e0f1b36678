// The CUDA kernels: each thread runs the formulas of src/kernels/sf_kernels.h for one vertex or one face of
// one instance (blockIdx.y), so the CPU loops, these kernels and the wasm core share one definition.
//   vertex frames   morph + skin (+ a per-vertex method or the jacobian) fused, one pass over the vertices
//   recompute       (a) face pass + gather over the vertex -> corner adjacency; (a') the gather alone, each
//                   vertex recomputing its faces from the final positions; (b) a per-face scatter into 32-bit
//                   fixed-point accumulators with integer atomics + a normalise pass (a GPU skin cache's
//                   way); (c) the same with float atomics; (d) one pass: each vertex skins its one-ring
//                   itself and gathers, no position buffer
//   errors          angles against the reference, reduced on the GPU into the statistics' histogram
#include "kernels_common.cuh"

#include <float.h>
#include <string.h>

namespace {

// MODE 0: positions and determinants only; 1: a per-vertex method (unchanged, skinned, inverse-transpose);
// 2: the jacobian. With counters, MODE 1 and 2 count the frames report themselves (report_frame); det may be
// NULL (not written).
template <int K, int MODE>
__global__ void __launch_bounds__(SFC_THREADS)
    k_vertex(sfc_topo t, sfc_batch b, int method, int with_dirs, float cap, float* pos, float* det, float* nrm,
             float* tan, unsigned long long* counters)
{
    uint32_t v = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    bool live = v < t.n, capped = false;
    size_t o = (size_t)i * t.n + v;
    float d = 1.0f, fp[3] = {0, 0, 0}, no[3] = {0, 0, 0}, to[4] = {0, 0, 0, 0};
    if (live) {
        const float* bones = b.bones ? b.bones + i * b.bone_stride : NULL;
        const float* alpha = b.alpha ? b.alpha + i * b.alpha_stride : NULL;
        float p[3], n[3], tt[3], m[12], rest_w;
        deform<K>(t, bones, alpha, v, MODE == 1 ? with_dirs : SFK_MORPH_DIRS_NONE, p, n, tt, m, &d, fp, &rest_w);
        // every load before the first store: the outputs could alias the inputs for all the compiler knows, so
        // a load after a store would wait for it
        if (MODE == 1) {
            sfk_vertex_frame(method, m, d, n, tt, rest_w, no, to);
        } else if (MODE == 2) {
            uint32_t s0 = t.slot_offsets[v], s1 = t.slot_offsets[v + 1];
            uint32_t m0 = 0, m1 = 0;
            if (alpha) {
                m0 = t.grad_morph_offsets[v];
                m1 = t.grad_morph_offsets[v + 1];
            }
            float n0[3];
            load3(t.rest_n, v, n0);
            float4 r4 = reinterpret_cast<const float4*>(t.rest_t)[v];
            float t0[4] = {r4.x, r4.y, r4.z, r4.w};
            capped = sfk_jacobian_vertex(bones, m, d, p, fp, n0, t0, t.slot_joint + s0, t.slot_coef + (size_t)t.slot_floats * s0,
                                         s1 - s0, t.grad_morph_target + m0, t.grad_morph_duv + 6 * (size_t)m0, m1 - m0,
                                         alpha, cap, no, to) != 0;
        }
        if (pos) store3(pos, o, fp);
        if (det) det[o] = d;
        if (MODE != 0) {
            store3(nrm, o, no);
            store_tan(t, tan, o, to);
        }
    }
    if (MODE != 0 && counters) report_frame(counters, method, t.has_uvs, live, o, d, fp, no, to, capped);
}

// Per instance: face arrays of 12 F floats: face_n, face_t, face_b (3 F each), corner_w (3 F), as the CPU's.
__global__ void __launch_bounds__(SFC_THREADS)
    k_faces(sfc_topo t, const float* pos, const float* det, int weighting, float* face)
{
    uint32_t f = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (f >= t.F) return;
    const float* P = pos + 3 * (size_t)t.n * i;
    const float* D = det + (size_t)t.n * i;
    uint32_t a = t.indices[3 * f], b = t.indices[3 * f + 1], c = t.indices[3 * f + 2];
    const float* uv0 = t.uvs ? t.uvs + 2 * a : NULL;
    const float* uv1 = t.uvs ? t.uvs + 2 * b : NULL;
    const float* uv2 = t.uvs ? t.uvs + 2 * c : NULL;
    float pa[3], pb[3], pc[3], fn[3], ft[3], fb[3], cw[3];
    load3(P, a, pa);
    load3(P, b, pb);
    load3(P, c, pc);
    sfk_recompute_face(pa, pb, pc, uv0, uv1, uv2, D[a], D[b], D[c], weighting, fn, ft, fb, cw);
    float* base = face + 12 * (size_t)t.F * i;
    store3(base, f, fn);
    store3(base + 3 * (size_t)t.F, f, ft);
    store3(base + 6 * (size_t)t.F, f, fb);
    store3(base + 9 * (size_t)t.F, f, cw);
}

// The corners a vertex's normal gathers over: its own, or its weld group's.
__device__ __forceinline__ void normal_corners(const sfc_topo& t, int weld, uint32_t v, const uint32_t** corners,
                                               uint32_t* begin, uint32_t* end)
{
    if (weld >= 0) {
        uint32_t g = t.weld[weld].group[v];
        *corners = t.weld[weld].corners;
        *begin = t.weld[weld].corner_offsets[g];
        *end = t.weld[weld].corner_offsets[g + 1];
    } else {
        *corners = t.adj_corners;
        *begin = t.adj_offsets[v];
        *end = t.adj_offsets[v + 1];
    }
}

__global__ void __launch_bounds__(SFC_THREADS)
    k_gather(sfc_topo t, const float* face, int weld, int weighting, float* nrm, float* tan)
{
    uint32_t v = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (v >= t.n) return;
    const float* fb = face + 12 * (size_t)t.F * i;
    const uint32_t* nc;
    uint32_t nb, ne;
    normal_corners(t, weld, v, &nc, &nb, &ne);
    float n[3], tt[4];
    sfk_recompute_vertex(fb, fb + 3 * (size_t)t.F, fb + 6 * (size_t)t.F, fb + 9 * (size_t)t.F, nc, nb, ne,
                         t.adj_corners, t.adj_offsets[v], t.adj_offsets[v + 1], weighting, t.bitangent_sign, n, tt);
    size_t o = (size_t)i * t.n + v;
    store3(nrm, o, n);
    store_tan(t, tan, o, tt);
}

// Final positions and determinants from the buffers of a deform pass.
struct from_buffer {
    const float* P;
    const float* D;
    __device__ __forceinline__ void get(uint32_t u, float p[3], float* d) const
    {
        load3(P, u, p);
        *d = D[u];
    }
};

// Final positions and determinants skinned on the spot (the one-pass variant).
template <int K> struct from_skin {
    const sfc_topo* t;
    const float* bones;
    const float* alpha;
    __device__ __forceinline__ void get(uint32_t u, float p[3], float* d) const
    {
        float x[3], n[3], tt[3], m[12], w;
        deform<K>(*t, bones, alpha, u, SFK_MORPH_DIRS_NONE, x, n, tt, m, d, p, &w);
    }
};

// Face terms of one corner (sfk_recompute_face), the positions from src.
template <class Src>
__device__ __forceinline__ void corner_face(const sfc_topo& t, const Src& src, int weighting, uint32_t corner,
                                            float fn[3], float ft[3], float fb[3], float* w)
{
    uint32_t f = corner / 3u, c = corner - 3u * f;
    uint32_t a = t.indices[3 * f], b = t.indices[3 * f + 1], e = t.indices[3 * f + 2];
    float pa[3], pb[3], pc[3], da, db, dc, cw[3];
    src.get(a, pa, &da);
    src.get(b, pb, &db);
    src.get(e, pc, &dc);
    const float* uv0 = t.uvs ? t.uvs + 2 * a : NULL;
    const float* uv1 = t.uvs ? t.uvs + 2 * b : NULL;
    const float* uv2 = t.uvs ? t.uvs + 2 * e : NULL;
    sfk_recompute_face(pa, pb, pc, uv0, uv1, uv2, da, db, dc, weighting, fn, ft, fb, cw);
    *w = cw[c];
}

// sfk_recompute_vertex with each face recomputed where it is needed instead of read from a face pass: the
// same sums in the same order.
template <class Src>
__device__ void gather_vertex(const sfc_topo& t, const Src& src, uint32_t v, int weld, int weighting, float n_out[3],
                              float t_out[4])
{
    float N[3] = {0.0f, 0.0f, 0.0f}, T[3] = {0.0f, 0.0f, 0.0f}, B[3] = {0.0f, 0.0f, 0.0f};
    float fn[3], ft[3], fb[3], w;
    uint32_t tb = t.adj_offsets[v], te = t.adj_offsets[v + 1];
    if (weld < 0) {
        for (uint32_t a = tb; a < te; ++a) {
            corner_face(t, src, weighting, t.adj_corners[a], fn, ft, fb, &w);
            sfk_madd(N, fn, weighting == SFK_WEIGHTING_AREA ? 1.0f : w);
            sfk_madd(T, ft, w);
            sfk_madd(B, fb, w);
        }
    } else {
        const uint32_t* nc;
        uint32_t nb, ne;
        normal_corners(t, weld, v, &nc, &nb, &ne);
        for (uint32_t a = nb; a < ne; ++a) {
            corner_face(t, src, weighting, nc[a], fn, ft, fb, &w);
            sfk_madd(N, fn, weighting == SFK_WEIGHTING_AREA ? 1.0f : w);
        }
        for (uint32_t a = tb; a < te && t.uvs; ++a) {
            corner_face(t, src, weighting, t.adj_corners[a], fn, ft, fb, &w);
            sfk_madd(T, ft, w);
            sfk_madd(B, fb, w);
        }
    }
    if (!(sfk_finite3(T) && sfk_finite3(B))) { // as sfk_tangent_sums_wide: the sums again in double
        double dt[3] = {0.0, 0.0, 0.0}, db[3] = {0.0, 0.0, 0.0};
        for (uint32_t a = tb; a < te; ++a) {
            corner_face(t, src, weighting, t.adj_corners[a], fn, ft, fb, &w);
            for (int k = 0; k < 3; ++k) {
                dt[k] += (double)ft[k] * (double)w;
                db[k] += (double)fb[k] * (double)w;
            }
        }
        sfk_direction_from_double(dt, T);
        sfk_direction_from_double(db, B);
    }
    sfk_finish_frame(N, T, B, t.bitangent_sign, n_out, t_out);
}

__global__ void __launch_bounds__(SFC_THREADS)
    k_gather_direct(sfc_topo t, const float* pos, const float* det, int weld, int weighting, float* nrm, float* tan)
{
    uint32_t v = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (v >= t.n) return;
    from_buffer src = {pos + 3 * (size_t)t.n * i, det + (size_t)t.n * i};
    float n[3], tt[4];
    gather_vertex(t, src, v, weld, weighting, n, tt);
    size_t o = (size_t)i * t.n + v;
    store3(nrm, o, n);
    store_tan(t, tan, o, tt);
}

template <int K>
__global__ void __launch_bounds__(SFC_THREADS)
    k_one_pass(sfc_topo t, sfc_batch b, int weld, int weighting, float* pos, float* det, float* nrm, float* tan)
{
    uint32_t v = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (v >= t.n) return;
    from_skin<K> src = {&t, b.bones ? b.bones + i * b.bone_stride : NULL,
                        b.alpha ? b.alpha + i * b.alpha_stride : NULL};
    size_t o = (size_t)i * t.n + v;
    if (pos || det) {
        float p[3], d;
        src.get(v, p, &d);
        if (pos) store3(pos, o, p);
        if (det) det[o] = d;
    }
    float n[3], tt[4];
    gather_vertex(t, src, v, weld, weighting, n, tt);
    store3(nrm, o, n);
    store_tan(t, tan, o, tt);
}

// Accumulators per instance: N (3 n, per vertex or weld group), T (3 n), B (3 n).
template <bool FIXED> __device__ __forceinline__ void scatter_add(void* acc, size_t i, const float v[3], float scale)
{
    if (FIXED) {
        int* a = static_cast<int*>(acc) + 3 * i;
        for (int k = 0; k < 3; ++k) {
            float q = fminf(fmaxf(v[k] * scale, -1073741824.0f), 1073741824.0f);
            atomicAdd(a + k, __float2int_rn(q));
        }
    } else {
        float* a = static_cast<float*>(acc) + 3 * i;
        for (int k = 0; k < 3; ++k) atomicAdd(a + k, v[k]);
    }
}

template <bool FIXED>
__global__ void __launch_bounds__(SFC_THREADS) k_scatter(sfc_topo t, const float* pos, const float* det, int weld,
                                                         int weighting, float scale_n, float scale_t, void* acc)
{
    uint32_t f = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (f >= t.F) return;
    from_buffer src = {pos + 3 * (size_t)t.n * i, det + (size_t)t.n * i};
    uint32_t tri[3] = {t.indices[3 * f], t.indices[3 * f + 1], t.indices[3 * f + 2]};
    float p[3][3], d[3], fn[3], ft[3], fb[3], cw[3];
    for (int c = 0; c < 3; ++c) src.get(tri[c], p[c], &d[c]);
    const float* uv0 = t.uvs ? t.uvs + 2 * tri[0] : NULL;
    const float* uv1 = t.uvs ? t.uvs + 2 * tri[1] : NULL;
    const float* uv2 = t.uvs ? t.uvs + 2 * tri[2] : NULL;
    sfk_recompute_face(p[0], p[1], p[2], uv0, uv1, uv2, d[0], d[1], d[2], weighting, fn, ft, fb, cw);
    size_t base = 3 * (size_t)t.n * i; // in float3 units: instance i's block of each accumulator
    void* accN = FIXED ? (void*)(static_cast<int*>(acc) + 9 * (size_t)t.n * i)
                       : (void*)(static_cast<float*>(acc) + 9 * (size_t)t.n * i);
    void* accT = FIXED ? (void*)(static_cast<int*>(accN) + 3 * (size_t)t.n)
                       : (void*)(static_cast<float*>(accN) + 3 * (size_t)t.n);
    void* accB = FIXED ? (void*)(static_cast<int*>(accN) + 6 * (size_t)t.n)
                       : (void*)(static_cast<float*>(accN) + 6 * (size_t)t.n);
    (void)base;
    for (int c = 0; c < 3; ++c) {
        uint32_t v = tri[c], g = weld >= 0 ? t.weld[weld].group[v] : v;
        float wn = weighting == SFK_WEIGHTING_AREA ? 1.0f : cw[c];
        float vn[3] = {fn[0] * wn, fn[1] * wn, fn[2] * wn};
        scatter_add<FIXED>(accN, g, vn, scale_n);
        if (t.uvs) {
            float vt[3] = {ft[0] * cw[c], ft[1] * cw[c], ft[2] * cw[c]};
            float vb[3] = {fb[0] * cw[c], fb[1] * cw[c], fb[2] * cw[c]};
            scatter_add<FIXED>(accT, v, vt, scale_t);
            scatter_add<FIXED>(accB, v, vb, scale_t);
        }
    }
}

template <bool FIXED> __device__ __forceinline__ void acc_load(const void* acc, size_t i, float out[3])
{
    for (int k = 0; k < 3; ++k)
        out[k] = FIXED ? (float)static_cast<const int*>(acc)[3 * i + k] : static_cast<const float*>(acc)[3 * i + k];
}

// The normalise pass: only the directions of N and T and the side of B are used, so the fixed-point
// values need no scaling back.
template <bool FIXED>
__global__ void __launch_bounds__(SFC_THREADS)
    k_scatter_finish(sfc_topo t, int weld, const void* acc, float* nrm, float* tan)
{
    uint32_t v = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (v >= t.n) return;
    size_t stride = 9 * (size_t)t.n * i;
    const void* accN = FIXED ? (const void*)(static_cast<const int*>(acc) + stride)
                             : (const void*)(static_cast<const float*>(acc) + stride);
    const void* accT = FIXED ? (const void*)(static_cast<const int*>(accN) + 3 * (size_t)t.n)
                             : (const void*)(static_cast<const float*>(accN) + 3 * (size_t)t.n);
    const void* accB = FIXED ? (const void*)(static_cast<const int*>(accN) + 6 * (size_t)t.n)
                             : (const void*)(static_cast<const float*>(accN) + 6 * (size_t)t.n);
    uint32_t g = weld >= 0 ? t.weld[weld].group[v] : v;
    float N[3], T[3] = {0.0f, 0.0f, 0.0f}, B[3] = {0.0f, 0.0f, 0.0f}, n[3], tt[4];
    acc_load<FIXED>(accN, g, N);
    if (t.uvs) {
        acc_load<FIXED>(accT, v, T);
        acc_load<FIXED>(accB, v, B);
    }
    sfk_finish_frame(N, T, B, t.bitangent_sign, n, tt);
    size_t o = (size_t)i * t.n + v;
    store3(nrm, o, n);
    store_tan(t, tan, o, tt);
}

__global__ void __launch_bounds__(SFC_THREADS)
    k_authored(sfc_topo t, const float* rest_n, const float* rest_t, const float* pose_n, const float* pose_t,
               const float* pos, float* nrm, float* tan)
{
    uint32_t v = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (v >= t.n) return;
    const float* P = pos + 3 * (size_t)t.n * i;
    size_t o = (size_t)i * t.n + v;
    const float *rest_q = NULL, *pose_q = NULL;
    if (t.adj_offsets[v] != t.adj_offsets[v + 1]) { // the edge along the vertex's first corner
        uint32_t corner = t.adj_corners[t.adj_offsets[v]];
        uint32_t other = t.indices[corner - corner % 3 + (corner + 1) % 3];
        rest_q = t.rest_p + 3 * (size_t)other;
        pose_q = P + 3 * (size_t)other;
    }
    float n[3], tt[4];
    sfk_authored_vertex(rest_n + 3 * (size_t)v, rest_t + 4 * (size_t)v, pose_n + 3 * o, pose_t + 4 * o,
                        t.rest_n + 3 * (size_t)v, t.rest_t + 4 * (size_t)v, t.has_uvs, t.rest_p + 3 * (size_t)v, rest_q,
                        P + 3 * (size_t)v, pose_q, n, tt);
    store3(nrm, o, n);
    store_tan(t, tan, o, tt);
}

// The report of frames already written (the kernels that make a frame without counting it: the rebuilt
// reference, the authored one).
__global__ void __launch_bounds__(SFC_THREADS)
    k_report(sfc_topo t, int method, const float* pos, const float* det, const float* nrm, const float* tan,
             unsigned long long* counters)
{
    uint32_t v = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    bool live = v < t.n;
    size_t o = (size_t)i * t.n + v;
    float d = 1.0f, p[3] = {0, 0, 0}, n[3] = {0, 0, 0}, tq[4] = {0, 0, 0, 0};
    if (live) {
        d = det[o];
        load3(nrm, o, n);
        load3(pos, o, p);
        float4 tv = reinterpret_cast<const float4*>(tan)[o];
        tq[0] = tv.x, tq[1] = tv.y, tq[2] = tv.z, tq[3] = tv.w;
    }
    report_frame(counters, method, t.has_uvs, live, o, d, p, n, tq, false);
}

// The histogram's first SFC_SH_BINS bins (every angle below 1.75 degrees, where the good methods' angles
// crowd into few bins) are counted in the block's shared memory first, two 16-bit counts to a word, and
// added to the global bins every SFC_SH_FLUSH rounds and at the end: global atomics on a hot bin serialise
// at its L2 slice, shared ones stay on the SM (a few per cent of the crowd's error pass, docs/benchmarks-log.md). A round adds at most SFC_THREADS to a count, so 255 rounds
// stay below 2^16. The bins above go straight to the global histogram, as a spread of angles does not
// contend.
#define SFC_SH_BINS 6144u
#define SFC_SH_WORDS (SFC_SH_BINS / 2u)
#define SFC_SH_FLUSH 255u
static_assert(SFC_SH_FLUSH * SFC_THREADS < 65536u, "a block's shared count must fit in 16 bits between flushes");

__device__ __forceinline__ void shared_bins_clear(unsigned* w)
{
    for (unsigned k = threadIdx.x; k < SFC_SH_WORDS; k += SFC_THREADS) w[k] = 0;
}

// Every thread of the block calls it, between barriers.
__device__ __forceinline__ void shared_bins_flush(unsigned* w, unsigned long long* bins)
{
    for (unsigned k = threadIdx.x; k < SFC_SH_WORDS; k += SFC_THREADS) {
        unsigned x = w[k];
        if (!x) continue;
        w[k] = 0;
        if (x & 0xffffu) atomicAdd(bins + 2 * k, (unsigned long long)(x & 0xffffu));
        if (x >> 16) atomicAdd(bins + 2 * k + 1, (unsigned long long)(x >> 16));
    }
}

// A kernel's two series (normals, tangents: bins NULL when it has none) in shared memory.
struct shared_series_bins {
    unsigned w[2][SFC_SH_WORDS];
};

__device__ __forceinline__ void shared_bins_clear(shared_series_bins& sh)
{
    shared_bins_clear(sh.w[0]);
    shared_bins_clear(sh.w[1]);
}

__device__ __forceinline__ void shared_bins_flush(shared_series_bins& sh, unsigned long long* bins0,
                                                  unsigned long long* bins1)
{
    shared_bins_flush(sh.w[0], bins0);
    if (bins1) shared_bins_flush(sh.w[1], bins1);
}

// The rounds' periodic flush; uniform across the block (every thread runs the same rounds).
__device__ __forceinline__ void shared_bins_round(size_t round, shared_series_bins& sh, unsigned long long* bins0,
                                                  unsigned long long* bins1)
{
    if ((round + 1) % SFC_SH_FLUSH != 0) return;
    __syncthreads();
    shared_bins_flush(sh, bins0, bins1);
    __syncthreads();
}

// Adds a's bin to the histogram; every lane of the warp calls this. Lanes of a warp that share a bin add once;
// exact zeros (bin 0) are only counted, by the caller.
__device__ __forceinline__ void histogram_add(unsigned* w, unsigned long long* bins, bool live, float a)
{
    bool binned = live && a != 0.0f;
    unsigned active = __ballot_sync(0xffffffffu, binned);
    if (!binned) return;
    uint32_t bin = sfk_angle_bin(a);
    unsigned same = __match_any_sync(active, bin);
    if ((unsigned)(__ffs(same) - 1) != (threadIdx.x & 31u)) return;
    if (bin < SFC_SH_BINS)
        atomicAdd(w + (bin >> 1), (unsigned)__popc(same) << (16u * (bin & 1u)));
    else
        atomicAdd(bins + bin, (unsigned long long)__popc(same));
}

// One thread's part of a series: the histogram is added to as it goes (histogram_add), the rest is reduced
// over the block before one atomic each.
struct series {
    double sum, sum2;
    unsigned count, over1, over5, over45, zeros; // one thread's: at most one per round, and rounds < 2^32
    unsigned long long max_key;
    unsigned min_bits;
};

__device__ __forceinline__ void series_init(series& s)
{
    s.sum = s.sum2 = 0.0;
    s.count = s.over1 = s.over5 = s.over45 = s.zeros = s.max_key = 0;
    s.min_bits = 0xffffffffu;
}

// Every lane of the warp calls this (live or not).
__device__ __forceinline__ void series_add(series& s, unsigned* sh_bins, const sfc_stats& st, bool live, float a,
                                           uint32_t index)
{
    histogram_add(sh_bins, st.bins, live, a);
    if (!live) return;
    s.sum += a;
    s.sum2 += (double)a * a;
    s.count++;
    s.over1 += a > 1.0f;
    s.over5 += a > 5.0f;
    s.over45 += a > 45.0f;
    s.zeros += a == 0.0f;
    unsigned long long key = ((unsigned long long)__float_as_uint(a) << 32) | (0xffffffffu - index);
    if (key > s.max_key) s.max_key = key;
    if (__float_as_uint(a) < s.min_bits) s.min_bits = __float_as_uint(a);
}

typedef unsigned long long u64;

__device__ __forceinline__ unsigned long long warp_sum(unsigned long long v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ double warp_sum(double v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ unsigned long long warp_max(unsigned long long v)
{
    for (int o = 16; o > 0; o >>= 1) {
        unsigned long long w = __shfl_down_sync(0xffffffffu, v, o);
        v = w > v ? w : v;
    }
    return v;
}

__device__ __forceinline__ unsigned warp_min(unsigned v)
{
    for (int o = 16; o > 0; o >>= 1) {
        unsigned w = __shfl_down_sync(0xffffffffu, v, o);
        v = w < v ? w : v;
    }
    return v;
}

#define SFC_WARPS (SFC_THREADS / 32)

// The block's series reduced in a fixed order (deterministic sums), then one atomic per counter and the
// block's sums into partial[2 * block]. Every thread of the block calls it.
__device__ void series_flush(series& s, const sfc_stats& st)
{
    __shared__ double sh_d[2][SFC_WARPS];
    __shared__ unsigned long long sh_u[6][SFC_WARPS];
    __shared__ unsigned sh_min[SFC_WARPS];
    unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    double a = warp_sum(s.sum), b = warp_sum(s.sum2);
    u64 u[6] = {warp_sum((u64)s.count),  warp_sum((u64)s.over1), warp_sum((u64)s.over5),
                warp_sum((u64)s.over45), warp_sum((u64)s.zeros), warp_max(s.max_key)};
    unsigned mn = warp_min(s.min_bits);
    if (lane == 0) {
        sh_d[0][warp] = a, sh_d[1][warp] = b, sh_min[warp] = mn;
        for (int k = 0; k < 6; ++k) sh_u[k][warp] = u[k];
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        double ta = 0.0, tb = 0.0;
        unsigned long long t[6] = {0, 0, 0, 0, 0, 0};
        unsigned tm = 0xffffffffu;
        for (int w = 0; w < SFC_WARPS; ++w) {
            ta += sh_d[0][w], tb += sh_d[1][w];
            for (int k = 0; k < 5; ++k) t[k] += sh_u[k][w];
            t[5] = sh_u[5][w] > t[5] ? sh_u[5][w] : t[5];
            tm = sh_min[w] < tm ? sh_min[w] : tm;
        }
        st.partial[2 * blockIdx.x] = ta;
        st.partial[2 * blockIdx.x + 1] = tb;
        if (t[0]) {
            atomicAdd(st.counts + SFC_COUNT, t[0]);
            if (t[1]) atomicAdd(st.counts + SFC_OVER1, t[1]);
            if (t[2]) atomicAdd(st.counts + SFC_OVER5, t[2]);
            if (t[3]) atomicAdd(st.counts + SFC_OVER45, t[3]);
            if (t[4]) atomicAdd(st.bins, t[4]);
            atomicMax(st.counts + SFC_MAX_KEY, t[5]);
            atomicMin(st.counts + SFC_MIN_BITS, (unsigned long long)tm);
        }
    }
    __syncthreads();
}

// A fixed grid (SFC_ERROR_BLOCKS blocks striding over every vertex of every instance), so that the partial
// sums, and with them the statistics, are the same run to run.
#define SFC_ERROR_BLOCKS 1056u

// One vertex's frames for k_errors: the method's (m) and the reference's (r); no method frame when it is the
// reference itself, no tangents without a tangent frame.
struct error_frames {
    float mn[3], rn[3];
    float4 m4, r4;
};

__device__ __forceinline__ void load_error_frames(const float* nrm, const float* tan, const float* ref_n,
                                                  const float* ref_t, bool self, bool tangents, size_t o,
                                                  error_frames& f)
{
    load3(ref_n, o, f.rn);
    if (!self) load3(nrm, o, f.mn);
    if (tangents) {
        f.r4 = reinterpret_cast<const float4*>(ref_t)[o];
        if (!self) f.m4 = reinterpret_cast<const float4*>(tan)[o];
    }
}

// 3 blocks per SM: the loads of the next round need the registers of the fourth.
__global__ void __launch_bounds__(SFC_THREADS, 3)
    k_errors(sfc_topo t, uint32_t count, const float* nrm, const float* tan, const float* ref_n, const float* ref_t,
             sfc_stats sn, sfc_stats st, unsigned long long* e_counts)
{
    bool tangents = st.bins != NULL;
    // The reference against itself (the recompute row): a x a is exactly zero, so every angle is 0 but where the
    // direction is zero (180, as sfk_angle_deg says); no need to compute them.
    bool self = nrm == ref_n && tan == ref_t;
    __shared__ shared_series_bins sh;
    shared_bins_clear(sh);
    __syncthreads();
    series a, b;
    series_init(a);
    series_init(b);
    unsigned dn_c = 0, dt_c = 0, d_c = 0, hand_c = 0;
    size_t total = (size_t)count * t.n, stride = (size_t)gridDim.x * SFC_THREADS;
    size_t rounds = (total + stride - 1) / stride; // every thread runs as many rounds: the warps stay whole
    // The next round's frames are loaded before this round's angles are worked out, so that each thread keeps
    // loads in flight while it computes: 5 % on the crowd's error pass (docs/benchmarks-log.md).
    size_t first = (size_t)blockIdx.x * SFC_THREADS + threadIdx.x;
    error_frames next = {};
    if (first < total) load_error_frames(nrm, tan, ref_n, ref_t, self, tangents, first, next);
    for (size_t r = 0; r < rounds; ++r) {
        size_t o = r * stride + first;
        bool live = o < total;
        error_frames f = next;
        if (o + stride < total) load_error_frames(nrm, tan, ref_n, ref_t, self, tangents, o + stride, next);
        const float *mn = f.mn, *rn = f.rn;
        const float4 &m4 = f.m4, &r4 = f.r4;
        float an = 0.0f, at = 0.0f;
        bool dn = false, dt = false, hand = false;
        if (live) {
            if (self) {
                dn = sfk_degenerate3(rn);
                an = dn ? 180.0f : 0.0f;
            } else {
                an = (float)sfk_angle_deg(mn, rn);
                dn = sfk_degenerate3(mn) || sfk_degenerate3(rn);
            }
            if (tangents) {
                float rt[3] = {r4.x, r4.y, r4.z};
                if (self) {
                    dt = sfk_degenerate3(rt);
                    at = dt ? 180.0f : 0.0f;
                } else {
                    float mt[3] = {m4.x, m4.y, m4.z};
                    at = (float)sfk_angle_deg(mt, rt);
                    dt = sfk_degenerate3(mt) || sfk_degenerate3(rt);
                    hand = (m4.w < 0.0f) != (r4.w < 0.0f);
                }
            }
        }
        series_add(a, sh.w[0], sn, live, an, (uint32_t)o);
        if (tangents) series_add(b, sh.w[1], st, live, at, (uint32_t)o);
        dn_c += dn, dt_c += dt, d_c += dn || dt, hand_c += hand;
        shared_bins_round(r, sh, sn.bins, st.bins);
    }
    __syncthreads();
    shared_bins_flush(sh, sn.bins, st.bins);
    series_flush(a, sn);
    if (tangents) series_flush(b, st);
    u64 dn = warp_sum((u64)dn_c), dt = warp_sum((u64)dt_c), d = warp_sum((u64)d_c), hand = warp_sum((u64)hand_c);
    if ((threadIdx.x & 31u) == 0) {
        if (dn) atomicAdd(e_counts + SFC_E_DEGEN_N, dn);
        if (dt) atomicAdd(e_counts + SFC_E_DEGEN_T, dt);
        if (d) atomicAdd(e_counts + SFC_E_DEGEN, d);
        if (hand) atomicAdd(e_counts + SFC_E_HANDED, hand);
    }
}

// The rows of an evaluation that need no neighbours (unchanged, skinned, inverse-transpose, jacobian) in one
// pass: each vertex is morphed and skinned once, every row's frame is measured against the reference in
// registers and only the statistics (and the report counts) leave the kernel; no frame is written. A fixed
// grid, as k_errors, so the sums are the same run to run. Counts go through the block's shared counters
// (a ballot per warp), so that each thread keeps only its sums and extremes. One row per launch: four rows in
// one pass needed 194 registers (a quarter of the occupancy) and ran slower than four passes.
struct sfc_rows {
    uint32_t count; // rows in this pass
    int method[4];  // sf_method of each
    sfc_stats normal[4], tangent[4];
    unsigned long long* e_counts[4]; // SFC_E_COUNTS each
    unsigned long long* counters[4]; // SFC_COUNTERS each (NULL = no report)
};

// Per row and side: count, over_1, over_5, over_45, zeros; then per row the summary counts and the report.
enum { SFC_R_SERIES = 5, SFC_R_COUNTS = 2 * SFC_R_SERIES + SFC_E_COUNTS + SFC_FIRST_BAD };

struct extremes {
    double sum, sum2;
    unsigned long long max_key;
    unsigned min_bits;
};

__device__ __forceinline__ void block_count(unsigned* c, bool pred)
{
    unsigned ballot = __ballot_sync(0xffffffffu, pred);
    if ((threadIdx.x & 31u) == 0 && ballot) atomicAdd(c, (unsigned)__popc(ballot));
}

__device__ __forceinline__ void extremes_add(extremes& e, unsigned* counts, unsigned* sh_bins, const sfc_stats& st,
                                             bool live, float a, uint32_t index)
{
    histogram_add(sh_bins, st.bins, live, a);
    block_count(counts + 0, live);
    block_count(counts + 1, live && a > 1.0f);
    block_count(counts + 2, live && a > 5.0f);
    block_count(counts + 3, live && a > 45.0f);
    block_count(counts + 4, live && a == 0.0f);
    if (!live) return;
    e.sum += a;
    e.sum2 += (double)a * a;
    unsigned long long key = ((unsigned long long)__float_as_uint(a) << 32) | (0xffffffffu - index);
    if (key > e.max_key) e.max_key = key;
    if (__float_as_uint(a) < e.min_bits) e.min_bits = __float_as_uint(a);
}

// The block's part of one series: sums in a fixed order into partial[2 * block], one atomic per counter.
__device__ void extremes_flush(extremes& e, const unsigned* counts, const sfc_stats& st)
{
    __shared__ double sh_d[2][SFC_WARPS];
    __shared__ unsigned long long sh_k[SFC_WARPS];
    __shared__ unsigned sh_m[SFC_WARPS];
    unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    double a = warp_sum(e.sum), b = warp_sum(e.sum2);
    unsigned long long k = warp_max(e.max_key);
    unsigned m = warp_min(e.min_bits);
    if (lane == 0) sh_d[0][warp] = a, sh_d[1][warp] = b, sh_k[warp] = k, sh_m[warp] = m;
    __syncthreads();
    if (threadIdx.x == 0) {
        double ta = 0.0, tb = 0.0;
        unsigned long long tk = 0;
        unsigned tm = 0xffffffffu;
        for (int w = 0; w < SFC_WARPS; ++w) {
            ta += sh_d[0][w], tb += sh_d[1][w];
            tk = sh_k[w] > tk ? sh_k[w] : tk;
            tm = sh_m[w] < tm ? sh_m[w] : tm;
        }
        st.partial[2 * blockIdx.x] = ta;
        st.partial[2 * blockIdx.x + 1] = tb;
        if (counts[0]) {
            atomicAdd(st.counts + SFC_COUNT, (unsigned long long)counts[0]);
            if (counts[1]) atomicAdd(st.counts + SFC_OVER1, (unsigned long long)counts[1]);
            if (counts[2]) atomicAdd(st.counts + SFC_OVER5, (unsigned long long)counts[2]);
            if (counts[3]) atomicAdd(st.counts + SFC_OVER45, (unsigned long long)counts[3]);
            if (counts[4]) atomicAdd(st.bins, (unsigned long long)counts[4]);
            atomicMax(st.counts + SFC_MAX_KEY, tk);
            atomicMin(st.counts + SFC_MIN_BITS, (unsigned long long)tm);
        }
    }
    __syncthreads();
}

template <int K>
__global__ void __launch_bounds__(SFC_THREADS, 3)
    k_rows(sfc_topo t, sfc_batch b, int with_dirs, float cap, const float* ref_n, const float* ref_t, sfc_rows rows)
{
    __shared__ unsigned counts[1][SFC_R_COUNTS];
    __shared__ shared_series_bins sh;
    for (unsigned k = threadIdx.x; k < SFC_R_COUNTS; k += SFC_THREADS) (&counts[0][0])[k] = 0;
    shared_bins_clear(sh);
    __syncthreads();
    bool tangents = t.has_uvs != 0;
    extremes en[1], et[1];
    for (int r = 0; r < 1; ++r) {
        en[r].sum = en[r].sum2 = et[r].sum = et[r].sum2 = 0.0;
        en[r].max_key = et[r].max_key = 0;
        en[r].min_bits = et[r].min_bits = 0xffffffffu;
    }
    size_t total = (size_t)b.count * t.n, stride = (size_t)gridDim.x * SFC_THREADS;
    size_t rounds = (total + stride - 1) / stride;
    for (size_t round = 0; round < rounds; ++round) {
        size_t o = round * stride + (size_t)blockIdx.x * SFC_THREADS + threadIdx.x;
        bool live = o < total;
        uint32_t i = live ? (uint32_t)(o / t.n) : 0, v = live ? (uint32_t)(o - (size_t)i * t.n) : 0;
        float p[3], n[3], tt[3], m[12], d = 1.0f, fp[3], rest_w = 1.0f, rn[3] = {0, 0, 0};
        float4 r4 = make_float4(0.0f, 0.0f, 0.0f, 1.0f);
        const float* bones = b.bones ? b.bones + i * b.bone_stride : NULL;
        const float* alpha = b.alpha ? b.alpha + i * b.alpha_stride : NULL;
        if (live) {
            deform<K>(t, bones, alpha, v, with_dirs, p, n, tt, m, &d, fp, &rest_w);
            load3(ref_n, o, rn);
            if (tangents) r4 = reinterpret_cast<const float4*>(ref_t)[o];
        }
        float rt[3] = {r4.x, r4.y, r4.z};
        {
            const uint32_t r = 0;
            float no[3] = {0, 0, 0}, to[4] = {0, 0, 0, 1};
            bool capped = false;
            if (live) {
                if (rows.method[r] == SF_METHOD_JACOBIAN) {
                    uint32_t s0 = t.slot_offsets[v], s1 = t.slot_offsets[v + 1], m0 = 0, m1 = 0;
                    if (alpha) {
                        m0 = t.grad_morph_offsets[v];
                        m1 = t.grad_morph_offsets[v + 1];
                    }
                    float n0[3];
                    load3(t.rest_n, v, n0);
                    float4 q = reinterpret_cast<const float4*>(t.rest_t)[v];
                    float t0[4] = {q.x, q.y, q.z, q.w};
                    capped = sfk_jacobian_vertex(bones, m, d, p, fp, n0, t0, t.slot_joint + s0,
                                                 t.slot_coef + (size_t)t.slot_floats * s0, s1 - s0, t.grad_morph_target + m0,
                                                 t.grad_morph_duv + 6 * (size_t)m0, m1 - m0, alpha, cap, no, to) != 0;
                } else {
                    sfk_vertex_frame(rows.method[r], m, d, n, tt, rest_w, no, to);
                }
                if (!tangents) to[0] = to[1] = to[2] = 0.0f;
            }
            float an = live ? (float)sfk_angle_deg(no, rn) : 0.0f, at = 0.0f;
            bool dn = live && (sfk_degenerate3(no) || sfk_degenerate3(rn)), dt = false, hand = false;
            if (live && tangents) {
                at = (float)sfk_angle_deg(to, rt);
                dt = sfk_degenerate3(to) || sfk_degenerate3(rt);
                hand = (to[3] < 0.0f) != (r4.w < 0.0f);
            }
            unsigned* c = counts[r];
            extremes_add(en[r], c, sh.w[0], rows.normal[r], live, an, (uint32_t)o);
            if (tangents) extremes_add(et[r], c + SFC_R_SERIES, sh.w[1], rows.tangent[r], live, at, (uint32_t)o);
            unsigned* e = c + 2 * SFC_R_SERIES;
            block_count(e + SFC_E_DEGEN_N, dn);
            block_count(e + SFC_E_DEGEN_T, dt);
            block_count(e + SFC_E_DEGEN, dn || dt);
            block_count(e + SFC_E_HANDED, hand);
            if (rows.counters[r]) {
                unsigned* q = e + SFC_E_COUNTS;
                bool bad = live && !(sfk_finite3(no) && sfk_finite3(to) && sfk_finite3(fp));
                block_count(q + SFC_MIRRORED, live && d < 0.0f);
                block_count(q + SFC_SINGULAR, live && rows.method[r] == SF_METHOD_INVERSE_TRANSPOSE &&
                                                  !(d >= SF_SINGULAR_DET_EPS || d <= -SF_SINGULAR_DET_EPS));
                block_count(q + SFC_DEGENERATE_N, live && sfk_dot(no, no) == 0.0f);
                block_count(q + SFC_DEGENERATE_T, live && tangents && sfk_dot(to, to) == 0.0f);
                block_count(q + SFC_CAPPED, capped);
                block_count(q + SFC_NONFINITE, bad);
                if (bad) atomicMin(rows.counters[r] + SFC_FIRST_BAD, (unsigned long long)o);
            }
        }
        shared_bins_round(round, sh, rows.normal[0].bins, tangents ? rows.tangent[0].bins : NULL);
    }
    __syncthreads();
    shared_bins_flush(sh, rows.normal[0].bins, tangents ? rows.tangent[0].bins : NULL);
    {
        const uint32_t r = 0;
        extremes_flush(en[r], counts[r], rows.normal[r]);
        if (tangents) extremes_flush(et[r], counts[r] + SFC_R_SERIES, rows.tangent[r]);
        if (threadIdx.x < SFC_E_COUNTS) {
            unsigned s = counts[r][2 * SFC_R_SERIES + threadIdx.x];
            if (s) atomicAdd(rows.e_counts[r] + threadIdx.x, (unsigned long long)s);
        }
        if (rows.counters[r] && threadIdx.x < SFC_FIRST_BAD) {
            unsigned s = counts[r][2 * SFC_R_SERIES + SFC_E_COUNTS + threadIdx.x];
            if (s) atomicAdd(rows.counters[r] + threadIdx.x, (unsigned long long)s);
        }
    }
}

// The partials of one run added to the running sums, in a fixed order.
__global__ void k_sums(sfc_stats s, size_t blocks)
{
    __shared__ double sa[SFC_THREADS], sb[SFC_THREADS];
    double a = 0.0, b = 0.0;
    for (size_t k = threadIdx.x; k < blocks; k += SFC_THREADS) {
        a += s.partial[2 * k];
        b += s.partial[2 * k + 1];
    }
    sa[threadIdx.x] = a;
    sb[threadIdx.x] = b;
    __syncthreads();
    for (unsigned h = SFC_THREADS / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h) {
            sa[threadIdx.x] += sa[threadIdx.x + h];
            sb[threadIdx.x] += sb[threadIdx.x + h];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        s.sums[0] += sa[0];
        s.sums[1] += sb[0];
    }
}

} // namespace

// The MikkTSpace formulas run on the CPU (cuda/backend_cuda.cu says why); compiled here as device code so
// that nvcc checks the whole kernels header on every CUDA build. Never launched.
__global__ void sfc_header_compile_check(const float* in, float* out)
{
    float fn[3], ft[3];
    uint32_t flags = sfk_mikk_triangle(in, in + 3, in + 6, in + 9, in + 11, in + 13, sfk_mikk_uv_flags(in[15]), fn, ft);
    sfk_mikk_corner_term(in, fn, in + 3, in + 6, in + 9, out);
    out[7] = sfk_mikk_vertex_w((float)flags, -1.0f, in[1]) + (float)sfk_mikk_compatible(in, in + 6);
}

sf_result sfc_vertex_frames(const sfc_topo* t, const sfc_batch* b, int method, int with_dirs, float cap, float* pos,
                            float* det, float* nrm, float* tan, unsigned long long* counters, cudaStream_t s,
                            sf_error* err)
{
    if (t->n == 0) return SF_OK;
    dim3 g = grid(t->n, b->count);
    int mode = method == SF_METHOD_JACOBIAN ? 2 : (nrm ? 1 : 0);
#define SFC_VERTEX_K(K)                                                                                                \
    do {                                                                                                               \
        if (mode == 0)                                                                                                 \
            k_vertex<K, 0><<<g, SFC_THREADS, 0, s>>>(*t, *b, method, with_dirs, cap, pos, det, nrm, tan, counters);    \
        else if (mode == 1)                                                                                            \
            k_vertex<K, 1><<<g, SFC_THREADS, 0, s>>>(*t, *b, method, with_dirs, cap, pos, det, nrm, tan, counters);    \
        else                                                                                                           \
            k_vertex<K, 2><<<g, SFC_THREADS, 0, s>>>(*t, *b, method, with_dirs, cap, pos, det, nrm, tan, counters);    \
    } while (0)
    switch (t->K) {
    case 0: SFC_VERTEX_K(0); break;
    case 4: SFC_VERTEX_K(4); break;
    case 8: SFC_VERTEX_K(8); break;
    default: SFC_VERTEX_K(16); break;
    }
#undef SFC_VERTEX_K
    SFC_LAUNCHED("k_vertex", err);
    return SF_OK;
}

sf_result sfc_faces(const sfc_topo* t, uint32_t count, const float* pos, const float* det, int weighting, float* face,
                    cudaStream_t s, sf_error* err)
{
    if (t->F == 0) return SF_OK;
    k_faces<<<grid(t->F, count), SFC_THREADS, 0, s>>>(*t, pos, det, weighting, face);
    SFC_LAUNCHED("k_faces", err);
    return SF_OK;
}

sf_result sfc_gather(const sfc_topo* t, uint32_t count, const float* face, int weld, int weighting, float* nrm,
                     float* tan, cudaStream_t s, sf_error* err)
{
    if (t->n == 0) return SF_OK;
    k_gather<<<grid(t->n, count), SFC_THREADS, 0, s>>>(*t, face, weld, weighting, nrm, tan);
    SFC_LAUNCHED("k_gather", err);
    return SF_OK;
}

sf_result sfc_gather_direct(const sfc_topo* t, uint32_t count, const float* pos, const float* det, int weld,
                            int weighting, float* nrm, float* tan, cudaStream_t s, sf_error* err)
{
    if (t->n == 0) return SF_OK;
    k_gather_direct<<<grid(t->n, count), SFC_THREADS, 0, s>>>(*t, pos, det, weld, weighting, nrm, tan);
    SFC_LAUNCHED("k_gather_direct", err);
    return SF_OK;
}

// Fixed point: each accumulated term is below bound * pose_scale^e (e = 2 for the area-weighted normal,
// 3 for the area-weighted tangent terms, 0 / 1 under the other weightings), and a vertex adds at most
// max_valence of them, so scaling by 2^30 / (valence * bound) keeps the sums inside 32 bits.
sf_result sfc_scatter(const sfc_topo* t, uint32_t count, const float* pos, const float* det, int weld, int weighting,
                      int fixed, float pose_scale, void* acc, float* nrm, float* tan, cudaStream_t s, sf_error* err)
{
    if (t->n == 0) return SF_OK;
    SFC_CHECK(cudaMemsetAsync(acc, 0, 9 * (size_t)t->n * count * 4, s), err);
    if (t->F) {
        int en = weighting == SFK_WEIGHTING_AREA ? 2 : 0, et = weighting == SFK_WEIGHTING_AREA ? 3 : 1;
        double bn = t->fixed_bound[weighting][0], bt = t->fixed_bound[weighting][1];
        double valence = t->max_valence ? (double)t->max_valence : 1.0;
        double sn = 1073741824.0 / (valence * (bn > 0.0 ? bn : 1.0) * pow((double)pose_scale, en));
        double st = 1073741824.0 / (valence * (bt > 0.0 ? bt : 1.0) * pow((double)pose_scale, et));
        if (!(sn <= FLT_MAX)) sn = FLT_MAX;
        if (!(st <= FLT_MAX)) st = FLT_MAX;
        if (fixed)
            k_scatter<true>
                <<<grid(t->F, count), SFC_THREADS, 0, s>>>(*t, pos, det, weld, weighting, (float)sn, (float)st, acc);
        else
            k_scatter<false><<<grid(t->F, count), SFC_THREADS, 0, s>>>(*t, pos, det, weld, weighting, 1.0f, 1.0f, acc);
        SFC_LAUNCHED("k_scatter", err);
    }
    if (fixed)
        k_scatter_finish<true><<<grid(t->n, count), SFC_THREADS, 0, s>>>(*t, weld, acc, nrm, tan);
    else
        k_scatter_finish<false><<<grid(t->n, count), SFC_THREADS, 0, s>>>(*t, weld, acc, nrm, tan);
    SFC_LAUNCHED("k_scatter_finish", err);
    return SF_OK;
}

sf_result sfc_one_pass(const sfc_topo* t, const sfc_batch* b, int with_dirs, int weld, int weighting, float* pos,
                       float* det, float* nrm, float* tan, cudaStream_t s, sf_error* err)
{
    (void)with_dirs; // positions only: direction deltas play no part in the rebuilt frames
    if (t->n == 0) return SF_OK;
    dim3 g = grid(t->n, b->count);
    switch (t->K) {
    case 0: k_one_pass<0><<<g, SFC_THREADS, 0, s>>>(*t, *b, weld, weighting, pos, det, nrm, tan); break;
    case 4: k_one_pass<4><<<g, SFC_THREADS, 0, s>>>(*t, *b, weld, weighting, pos, det, nrm, tan); break;
    case 8: k_one_pass<8><<<g, SFC_THREADS, 0, s>>>(*t, *b, weld, weighting, pos, det, nrm, tan); break;
    default: k_one_pass<16><<<g, SFC_THREADS, 0, s>>>(*t, *b, weld, weighting, pos, det, nrm, tan); break;
    }
    SFC_LAUNCHED("k_one_pass", err);
    return SF_OK;
}

sf_result sfc_authored(const sfc_topo* t, uint32_t count, const float* rest_n, const float* rest_t, const float* pose_n,
                       const float* pose_t, const float* pos, float* nrm, float* tan, cudaStream_t s, sf_error* err)
{
    if (t->n == 0) return SF_OK;
    k_authored<<<grid(t->n, count), SFC_THREADS, 0, s>>>(*t, rest_n, rest_t, pose_n, pose_t, pos, nrm, tan);
    SFC_LAUNCHED("k_authored", err);
    return SF_OK;
}

sf_result sfc_report(const sfc_topo* t, uint32_t count, int method, const float* pos, const float* det,
                     const float* nrm, const float* tan, unsigned long long* counters, cudaStream_t s, sf_error* err)
{
    if (t->n == 0) return SF_OK;
    k_report<<<grid(t->n, count), SFC_THREADS, 0, s>>>(*t, method, pos, det, nrm, tan, counters);
    SFC_LAUNCHED("k_report", err);
    return SF_OK;
}

size_t sfc_error_blocks(const sfc_topo* t, uint32_t count)
{
    (void)t, (void)count;
    return SFC_ERROR_BLOCKS;
}

sf_result sfc_errors(const sfc_topo* t, uint32_t count, const float* nrm, const float* tan, const float* ref_n,
                     const float* ref_t, const sfc_stats* normal, const sfc_stats* tangent,
                     unsigned long long* e_counts, cudaStream_t s, sf_error* err)
{
    if (t->n == 0) return SF_OK;
    sfc_stats none = {NULL, NULL, NULL, NULL};
    const sfc_stats& st = tangent && t->has_uvs ? *tangent : none;
    k_errors<<<SFC_ERROR_BLOCKS, SFC_THREADS, 0, s>>>(*t, count, nrm, tan, ref_n, ref_t, *normal, st, e_counts);
    SFC_LAUNCHED("k_errors", err);
    size_t blocks = sfc_error_blocks(t, count);
    k_sums<<<1, SFC_THREADS, 0, s>>>(*normal, blocks);
    SFC_LAUNCHED("k_sums", err);
    if (st.bins) {
        k_sums<<<1, SFC_THREADS, 0, s>>>(st, blocks);
        SFC_LAUNCHED("k_sums", err);
    }
    return SF_OK;
}

sf_result sfc_rows_errors(const sfc_topo* t, const sfc_batch* b, const int* methods, size_t count, int with_dirs,
                          float cap, const float* ref_n, const float* ref_t, sfc_stats* const* normal,
                          sfc_stats* const* tangent, unsigned long long* const* e_counts,
                          unsigned long long* const* counters, cudaStream_t s, sf_error* err)
{
    if (t->n == 0 || count == 0) return SF_OK;
    for (size_t r = 0; r < count; ++r) {
        sfc_rows rows;
        memset(&rows, 0, sizeof rows);
        rows.count = 1;
        rows.method[0] = methods[r];
        rows.normal[0] = *normal[r];
        rows.tangent[0] = *tangent[r];
        rows.e_counts[0] = e_counts[r];
        rows.counters[0] = counters ? counters[r] : NULL;
        switch (t->K) {
        case 0: k_rows<0><<<SFC_ERROR_BLOCKS, SFC_THREADS, 0, s>>>(*t, *b, with_dirs, cap, ref_n, ref_t, rows); break;
        case 4: k_rows<4><<<SFC_ERROR_BLOCKS, SFC_THREADS, 0, s>>>(*t, *b, with_dirs, cap, ref_n, ref_t, rows); break;
        case 8: k_rows<8><<<SFC_ERROR_BLOCKS, SFC_THREADS, 0, s>>>(*t, *b, with_dirs, cap, ref_n, ref_t, rows); break;
        default: k_rows<16><<<SFC_ERROR_BLOCKS, SFC_THREADS, 0, s>>>(*t, *b, with_dirs, cap, ref_n, ref_t, rows); break;
        }
        SFC_LAUNCHED("k_rows", err);
        k_sums<<<1, SFC_THREADS, 0, s>>>(*normal[r], SFC_ERROR_BLOCKS);
        if (t->has_uvs) k_sums<<<1, SFC_THREADS, 0, s>>>(*tangent[r], SFC_ERROR_BLOCKS);
        SFC_LAUNCHED("k_sums", err);
    }
    return SF_OK;
}

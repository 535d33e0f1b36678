// The CUDA kernels of `recompute`, each thread one vertex or one face of one instance (blockIdx.y), with the
// formulas of src/kernels/sf_kernels.h: (a) face pass + gather over the vertex -> corner adjacency; (a') the
// gather alone, each vertex recomputing its faces from the final positions; (b) a per-face scatter into 32-bit
// fixed-point accumulators with integer atomics + a normalise pass (a GPU skin cache's way); (c) the same with
// float atomics; (d) one pass: each vertex skins its one-ring itself and gathers, no position buffer.
#include "kernels_common.cuh"

#include <float.h>

namespace {

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

} // namespace

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

// The CUDA kernels of the vertex frames: each thread runs the formulas of src/kernels/sf_kernels.h for one
// vertex of one instance (blockIdx.y), so the CPU loops, these kernels and the wasm core share one definition.
//   vertex frames   morph + skin (+ a per-vertex method or the jacobian) fused, one pass over the vertices;
//                   the authored reference and the report of frames already written
// The rebuilt frames are kernels_recompute.cu's, the angle errors and statistics kernels_stats.cu's.
#include "kernels_common.cuh"

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

// Several per-vertex methods (unchanged, skinned, inverse-transpose) from one morph + skin of each vertex: the
// deform's inputs read once for all of them, each method's frame written and its report counted as k_vertex's
// MODE 1 does, so each is that pass's frame bit for bit.
template <int K>
__global__ void __launch_bounds__(SFC_THREADS)
    k_vertex_rows(sfc_topo t, sfc_batch b, int with_dirs, sfc_vertex_rows rows)
{
    uint32_t v = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    bool live = v < t.n;
    size_t o = (size_t)i * t.n + v;
    float p[3], n[3], tt[3], m[12], rest_w, d = 1.0f, fp[3] = {0, 0, 0};
    if (live) {
        const float* bones = b.bones ? b.bones + i * b.bone_stride : NULL;
        const float* alpha = b.alpha ? b.alpha + i * b.alpha_stride : NULL;
        deform<K>(t, bones, alpha, v, with_dirs, p, n, tt, m, &d, fp, &rest_w);
    }
    for (uint32_t r = 0; r < rows.count; ++r) {
        float no[3] = {0, 0, 0}, to[4] = {0, 0, 0, 0};
        if (live) {
            sfk_vertex_frame(rows.method[r], m, d, n, tt, rest_w, no, to);
            store3(rows.nrm[r], o, no);
            store_tan(t, rows.tan[r], o, to);
        }
        if (rows.counters[r])
            report_frame(rows.counters[r], rows.method[r], t.has_uvs, live, o, d, fp, no, to, false);
    }
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

sf_result sfc_vertex_frames_rows(const sfc_topo* t, const sfc_batch* b, int with_dirs, const sfc_vertex_rows* rows,
                                 cudaStream_t s, sf_error* err)
{
    if (t->n == 0 || rows->count == 0) return SF_OK;
    dim3 g = grid(t->n, b->count);
    switch (t->K) {
    case 0: k_vertex_rows<0><<<g, SFC_THREADS, 0, s>>>(*t, *b, with_dirs, *rows); break;
    case 4: k_vertex_rows<4><<<g, SFC_THREADS, 0, s>>>(*t, *b, with_dirs, *rows); break;
    case 8: k_vertex_rows<8><<<g, SFC_THREADS, 0, s>>>(*t, *b, with_dirs, *rows); break;
    default: k_vertex_rows<16><<<g, SFC_THREADS, 0, s>>>(*t, *b, with_dirs, *rows); break;
    }
    SFC_LAUNCHED("k_vertex_rows", err);
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

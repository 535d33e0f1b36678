// The CUDA kernels of the angle errors: each method's frames against the reference, reduced on the GPU into the
// statistics' histogram and sums in a fixed order, so that the statistics are the same run to run.
#include "kernels_common.cuh"

#include <string.h>

namespace {

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

// Each pose's share of a series, where st.frame records it (a clip's batch): the angles' sum in fixed point
// (integer atomics add to the same bits in any order), the largest angle with its vertex as a key (the lowest
// vertex wins a tie, as the host's first-found), and with `hand` the handedness mismatches. index: instance * n +
// vertex; hand: the vertex's mismatches (its corners' where tangents are measured per corner). Every lane of the
// warp calls it; a warp within one instance adds once.
__device__ __forceinline__ void frame_add(const sfc_stats& st, uint32_t n, bool live, float a, uint32_t index,
                                          unsigned hand)
{
    if (!st.frame) return;
    uint32_t inst = live ? index / n : 0xffffffffu;
    u64 fx = live ? __float2ull_rn(a * st.frame_scale) : 0ull;
    u64 key = live ? ((u64)__float_as_uint(a) << 32) | (0xffffffffu - (index - inst * n)) : 0ull;
    u64 h = live ? (u64)hand : 0ull;
    uint32_t lead = __shfl_sync(0xffffffffu, inst, 0);
    if (__all_sync(0xffffffffu, inst == lead)) {
        fx = warp_sum(fx), key = warp_max(key), h = warp_sum(h);
        if ((threadIdx.x & 31u) != 0 || lead == 0xffffffffu) return;
        inst = lead;
    } else if (!live) {
        return;
    }
    u64* r = st.frame + 3 * (size_t)inst;
    if (fx) atomicAdd(r, fx);
    atomicMax(r + 1, key);
    if (h) atomicAdd(r + 2, h);
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

// A grid fixed by the work (SFC_ERROR_BLOCKS blocks striding over every vertex of every instance, fewer when
// there is less than a vertex per thread: a primitive of a clip's batch), so that the partial sums, and with them
// the statistics, are the same run to run.

// The tangent angle of vertex v of instance i against the reference's corner tangents, as the host's
// sfi_corner_tangent_errors: the largest over the vertex's corners (a NaN never wins), any degenerate corner
// flags it, each corner of the other handedness counts. own: the method's corners are the reference's (its own
// row, or recompute-fused's bit-equal MikkTSpace tangents), so each corner meets itself. The caller compares a
// vertex in no triangle per vertex.
__device__ __forceinline__ float corner_tangent_angle(const sfc_topo& t, const sfc_corners& cn, uint32_t i, uint32_t v,
                                                      bool own, const float mt[4], bool& dt, unsigned& hand)
{
    const float4* rc = reinterpret_cast<const float4*>(cn.ref) + (size_t)i * 3 * t.F;
    float worst = 0.0f;
    for (uint32_t k = t.adj_offsets[v]; k < t.adj_offsets[v + 1]; ++k) {
        float4 q = rc[t.adj_corners[k]];
        float r[3] = {q.x, q.y, q.z}, a;
        bool z;
        if (own) {
            z = sfk_degenerate3(r);
            a = z ? 180.0f : 0.0f;
        } else {
            a = (float)sfk_angle_deg(mt, r);
            z = sfk_degenerate3(mt) || sfk_degenerate3(r);
            hand += (mt[3] < 0.0f) != (q.w < 0.0f);
        }
        dt = dt || z;
        if (a > worst) worst = a;
    }
    return worst;
}

__device__ __forceinline__ bool has_corners(const sfc_topo& t, const sfc_corners& cn, uint32_t v)
{
    return cn.ref && t.adj_offsets[v] != t.adj_offsets[v + 1];
}

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

// 3 blocks per SM: the loads of the next round need the registers of the fourth. PerCorner: the tangents are
// measured against the reference's corners; a kernel of its own, so that the per-vertex form keeps its registers.
template <bool PerCorner>
__global__ void __launch_bounds__(SFC_THREADS, 3)
    k_errors(sfc_topo t, uint32_t count, const float* nrm, const float* tan, const float* ref_n, const float* ref_t,
             sfc_corners cn, sfc_stats sn, sfc_stats st, unsigned long long* e_counts)
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
        bool dn = false, dt = false;
        unsigned hand = 0;
        if (live) {
            if (self) {
                dn = sfk_degenerate3(rn);
                an = dn ? 180.0f : 0.0f;
            } else {
                an = (float)sfk_angle_deg(mn, rn);
                dn = sfk_degenerate3(mn) || sfk_degenerate3(rn);
            }
            if (PerCorner && tangents) { // the division only here, where it is paid for
                uint32_t i = (uint32_t)(o / t.n), v = (uint32_t)(o - (size_t)i * t.n);
                float mt[4] = {m4.x, m4.y, m4.z, m4.w};
                if (has_corners(t, cn, v)) {
                    at = corner_tangent_angle(t, cn, i, v, self || (cn.differ && !cn.differ[i]), mt, dt, hand);
                } else { // in no triangle: per vertex, its handedness flagged but not counted
                    float rt[3] = {r4.x, r4.y, r4.z};
                    dt = sfk_degenerate3(rt) || (!self && sfk_degenerate3(mt));
                    at = self ? (dt ? 180.0f : 0.0f) : (float)sfk_angle_deg(mt, rt);
                }
            } else if (tangents) {
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
        uint32_t oc = live ? caller_index(t, (uint32_t)o) : 0u; // ties go to the caller's lowest vertex
        series_add(a, sh.w[0], sn, live, an, oc);
        frame_add(sn, t.n, live, an, oc, false);
        if (tangents) {
            series_add(b, sh.w[1], st, live, at, oc);
            frame_add(st, t.n, live, at, oc, hand);
        }
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

__device__ __forceinline__ void block_add(unsigned* c, unsigned value)
{
    unsigned sum = __reduce_add_sync(0xffffffffu, value);
    if ((threadIdx.x & 31u) == 0 && sum) atomicAdd(c, sum);
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
    k_rows(sfc_topo t, sfc_batch b, int with_dirs, float cap, const float* ref_n, const float* ref_t, sfc_corners cn,
           sfc_rows rows)
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
            bool dn = live && (sfk_degenerate3(no) || sfk_degenerate3(rn)), dt = false;
            unsigned hand = 0;
            if (live && tangents && has_corners(t, cn, v)) {
                at = corner_tangent_angle(t, cn, i, v, false, to, dt, hand);
            } else if (live && tangents) {
                at = (float)sfk_angle_deg(to, rt);
                dt = sfk_degenerate3(to) || sfk_degenerate3(rt);
                hand = !cn.ref && (to[3] < 0.0f) != (r4.w < 0.0f); // per corner: a vertex in no triangle is not counted
            }
            unsigned* c = counts[r];
            uint32_t oc = live ? i * t.n + (t.caller ? __ldg(t.caller + v) : v) : 0u; // the caller's number
            extremes_add(en[r], c, sh.w[0], rows.normal[r], live, an, oc);
            frame_add(rows.normal[r], t.n, live, an, oc, false);
            if (tangents) {
                extremes_add(et[r], c + SFC_R_SERIES, sh.w[1], rows.tangent[r], live, at, oc);
                frame_add(rows.tangent[r], t.n, live, at, oc, hand);
            }
            unsigned* e = c + 2 * SFC_R_SERIES;
            block_count(e + SFC_E_DEGEN_N, dn);
            block_count(e + SFC_E_DEGEN_T, dt);
            block_count(e + SFC_E_DEGEN, dn || dt);
            block_add(e + SFC_E_HANDED, hand);
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

// One series added to another (a primitive's clip into the asset's): bins, counts and sums; the max key keeps
// the larger angle, whose index then belongs to either series.
__global__ void k_stats_add(sfc_stats dst, sfc_stats src)
{
    for (size_t k = (size_t)blockIdx.x * SFC_THREADS + threadIdx.x; k < SFK_ANGLE_BIN_COUNT;
         k += (size_t)gridDim.x * SFC_THREADS)
        if (src.bins[k]) dst.bins[k] += src.bins[k];
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    for (int k = SFC_COUNT; k <= SFC_OVER45; ++k) dst.counts[k] += src.counts[k];
    if (src.counts[SFC_MAX_KEY] > dst.counts[SFC_MAX_KEY]) dst.counts[SFC_MAX_KEY] = src.counts[SFC_MAX_KEY];
    if (src.counts[SFC_MIN_BITS] < dst.counts[SFC_MIN_BITS]) dst.counts[SFC_MIN_BITS] = src.counts[SFC_MIN_BITS];
    dst.sums[0] += src.sums[0];
    dst.sums[1] += src.sums[1];
}

__global__ void k_counts_add(unsigned long long* dst, const unsigned long long* src, uint32_t count)
{
    if (threadIdx.x < count) dst[threadIdx.x] += src[threadIdx.x];
}

// A warp claims its lanes' slots with one atomic; the pairs land in any order, which the host's sums ignore.
__global__ void k_bins_nonzero(const unsigned long long* bins, uint32_t cap, uint32_t* bin_of,
                               unsigned long long* count_of, unsigned* entries)
{
    unsigned lane = threadIdx.x & 31u;
    for (size_t base = (size_t)blockIdx.x * SFC_THREADS; base < SFK_ANGLE_BIN_COUNT;
         base += (size_t)gridDim.x * SFC_THREADS) {
        size_t k = base + threadIdx.x;
        unsigned long long v = k < SFK_ANGLE_BIN_COUNT ? bins[k] : 0ull;
        unsigned filled = __ballot_sync(0xffffffffu, v != 0ull);
        if (!filled) continue;
        unsigned leader = (unsigned)__ffs((int)filled) - 1u, first = 0;
        if (lane == leader) first = atomicAdd(entries, (unsigned)__popc(filled));
        first = __shfl_sync(0xffffffffu, first, (int)leader);
        unsigned at = first + (unsigned)__popc(filled & ((1u << lane) - 1u));
        if (v && at < cap) bin_of[at] = (uint32_t)k, count_of[at] = v;
    }
}

// differ[i] set where instance i's corner tangents (per floats each) differ from the reference's in any bit.
__global__ void k_corners_differ(size_t per, size_t total, const unsigned* a, const unsigned* b, unsigned* differ)
{
    for (size_t k = (size_t)blockIdx.x * SFC_THREADS + threadIdx.x; k < total; k += (size_t)gridDim.x * SFC_THREADS)
        if (a[k] != b[k]) differ[k / per] = 1u;
}

} // namespace

sf_result sfc_corners_differ(uint32_t count, size_t corners, const float* a, const float* b, unsigned* differ,
                             cudaStream_t s, sf_error* err)
{
    if (count == 0) return SF_OK;
    SFC_CHECK(cudaMemsetAsync(differ, 0, count * sizeof(unsigned), s), err);
    size_t total = 4 * corners * count, blocks = (total + SFC_THREADS - 1) / SFC_THREADS;
    if (total == 0) return SF_OK;
    k_corners_differ<<<(unsigned)(blocks < 4096 ? blocks : 4096), SFC_THREADS, 0, s>>>(
        4 * corners, total, reinterpret_cast<const unsigned*>(a), reinterpret_cast<const unsigned*>(b), differ);
    SFC_LAUNCHED("k_corners_differ", err);
    return SF_OK;
}

sf_result sfc_stats_add(const sfc_stats* dst, const sfc_stats* src, cudaStream_t s, sf_error* err)
{
    k_stats_add<<<(SFK_ANGLE_BIN_COUNT + 4 * SFC_THREADS - 1) / (4 * SFC_THREADS), SFC_THREADS, 0, s>>>(*dst, *src);
    SFC_LAUNCHED("k_stats_add", err);
    return SF_OK;
}

sf_result sfc_bins_nonzero(const sfc_stats* st, uint32_t cap, uint32_t* bin_of, unsigned long long* count_of,
                           unsigned* entries, cudaStream_t s, sf_error* err)
{
    SFC_CHECK(cudaMemsetAsync(entries, 0, sizeof *entries, s), err);
    k_bins_nonzero<<<(SFK_ANGLE_BIN_COUNT + 4 * SFC_THREADS - 1) / (4 * SFC_THREADS), SFC_THREADS, 0, s>>>(
        st->bins, cap, bin_of, count_of, entries);
    SFC_LAUNCHED("k_bins_nonzero", err);
    return SF_OK;
}

sf_result sfc_counts_add(unsigned long long* dst, const unsigned long long* src, uint32_t count, cudaStream_t s,
                         sf_error* err)
{
    if (count == 0) return SF_OK;
    k_counts_add<<<1, 32 * ((count + 31) / 32), 0, s>>>(dst, src, count);
    SFC_LAUNCHED("k_counts_add", err);
    return SF_OK;
}

size_t sfc_error_blocks(const sfc_topo* t, uint32_t count)
{
    size_t items = (size_t)count * t->n, blocks = (items + SFC_THREADS - 1) / SFC_THREADS;
    return blocks < 1 ? 1 : blocks > SFC_ERROR_BLOCKS ? SFC_ERROR_BLOCKS : blocks;
}

sf_result sfc_errors(const sfc_topo* t, uint32_t count, const float* nrm, const float* tan, const float* ref_n,
                     const float* ref_t, const sfc_corners* cn, const sfc_stats* normal, const sfc_stats* tangent,
                     unsigned long long* e_counts, cudaStream_t s, sf_error* err)
{
    if (t->n == 0) return SF_OK;
    sfc_stats none = {NULL, NULL, NULL, NULL, NULL, 0.0f};
    const sfc_stats& st = tangent && t->has_uvs ? *tangent : none;
    size_t blocks = sfc_error_blocks(t, count);
    sfc_corners corners = {NULL, NULL};
    if (cn) corners = *cn;
    if (corners.ref)
        k_errors<true><<<(unsigned)blocks, SFC_THREADS, 0, s>>>(*t, count, nrm, tan, ref_n, ref_t, corners, *normal, st,
                                                                 e_counts);
    else
        k_errors<false><<<(unsigned)blocks, SFC_THREADS, 0, s>>>(*t, count, nrm, tan, ref_n, ref_t, corners, *normal, st,
                                                                  e_counts);
    SFC_LAUNCHED("k_errors", err);
    k_sums<<<1, SFC_THREADS, 0, s>>>(*normal, blocks);
    SFC_LAUNCHED("k_sums", err);
    if (st.bins) {
        k_sums<<<1, SFC_THREADS, 0, s>>>(st, blocks);
        SFC_LAUNCHED("k_sums", err);
    }
    return SF_OK;
}

sf_result sfc_rows_errors(const sfc_topo* t, const sfc_batch* b, const int* methods, size_t count, int with_dirs,
                          float cap, const float* ref_n, const float* ref_t, const sfc_corners* cn,
                          sfc_stats* const* normal, sfc_stats* const* tangent, unsigned long long* const* e_counts,
                          unsigned long long* const* counters, cudaStream_t s, sf_error* err)
{
    if (t->n == 0 || count == 0) return SF_OK;
    sfc_corners corners = {NULL, NULL};
    if (cn) corners = *cn;
    unsigned g = (unsigned)sfc_error_blocks(t, b->count);
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
        case 0: k_rows<0><<<g, SFC_THREADS, 0, s>>>(*t, *b, with_dirs, cap, ref_n, ref_t, corners, rows); break;
        case 4: k_rows<4><<<g, SFC_THREADS, 0, s>>>(*t, *b, with_dirs, cap, ref_n, ref_t, corners, rows); break;
        case 8: k_rows<8><<<g, SFC_THREADS, 0, s>>>(*t, *b, with_dirs, cap, ref_n, ref_t, corners, rows); break;
        default: k_rows<16><<<g, SFC_THREADS, 0, s>>>(*t, *b, with_dirs, cap, ref_n, ref_t, corners, rows); break;
        }
        SFC_LAUNCHED("k_rows", err);
        k_sums<<<1, SFC_THREADS, 0, s>>>(*normal[r], g);
        if (t->has_uvs) k_sums<<<1, SFC_THREADS, 0, s>>>(*tangent[r], g);
        SFC_LAUNCHED("k_sums", err);
    }
    return SF_OK;
}

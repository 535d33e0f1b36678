/* Error metrics: per-vertex angles against the reference, statistics. */
#include "angles_simd.h"
#include "sf_internal.h"
#include "sf_kernels.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The angle from |a x b| and a . b (sfk_angle_deg, shared with the GPU's error pass); a zero or non-finite
 * direction (sfk_degenerate3, the article's SafeUnit threshold) gives 180 degrees and is flagged degenerate. */
static double angle_deg(const float a[3], const float b[3], bool* degenerate)
{
    *degenerate = sfk_degenerate3(a) || sfk_degenerate3(b);
    return sfk_angle_deg(a, b);
}

double sf_angle_deg(const float a[3], const float b[3])
{
    bool degenerate;
    return angle_deg(a, b, &degenerate);
}

/* angle_deg of a direction to itself (the recompute row is the reference itself), without the arithmetic: the
 * same 0, or 180 for a zero vector. */
static double angle_to(const float* a, const float* b, bool* degenerate)
{
    if (a != b) return angle_deg(a, b, degenerate);
    *degenerate = sfk_degenerate3(a);
    return *degenerate ? 180.0 : 0.0;
}

static void swap_floats(float* a, float* b)
{
    float t = *a;
    *a = *b;
    *b = t;
}

static float median3(float a, float b, float c)
{
    if (a > b) {
        float t = a;
        a = b;
        b = t;
    }
    return c <= a ? a : c >= b ? b : c;
}

/* Sifts a[i] down the max-heap a[0..n). */
static void sift_down(float* a, size_t n, size_t i)
{
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) return;
        if (c + 1 < n && a[c + 1] > a[c]) ++c;
        if (!(a[c] > a[i])) return;
        swap_floats(&a[c], &a[i]);
        i = c;
    }
}

/* Heap selection of a[k] in a[0..n): a max-heap of the k+1 smallest seen, O(n log k). */
static void heap_select(float* a, size_t n, size_t k)
{
    size_t h = k + 1;
    for (size_t i = h / 2; i-- > 0;) sift_down(a, h, i);
    for (size_t i = h; i < n; ++i)
        if (a[i] < a[0]) {
            swap_floats(&a[i], &a[0]);
            sift_down(a, h, 0);
        }
    /* Everything after the heap was >= its top when compared, and the top only decreases. */
    swap_floats(&a[0], &a[k]);
}

/* Moves the values of a[0..n) below p (not_above == 0) or not above p (not_above == 1) to the front; returns
 * their count. Branch-free (a swap per value, the front index advanced by the comparison): the unpredictable
 * branch of a classic partition is most of its time. */
static size_t partition_front(float* a, size_t n, float p, int not_above)
{
    size_t f = 0;
    for (size_t i = 0; i < n; ++i) {
        float t = a[i];
        size_t take = not_above ? (size_t)!(t > p) : (size_t)(t < p);
        a[i] = a[f];
        a[f] = t;
        f += take;
    }
    return f;
}

/* Introselect: partitions around a median of three, values below the pivot first, then (when k lies past them)
 * the pivot's ties, so that ties (a row of zero angles) end it at once; heap selection once depth_limit
 * partitions have not finished, so the worst case stays O(n log n). No comparison callback. */
void sfi_select_floats(float* a, size_t n, size_t k, size_t depth_limit)
{
    size_t lo = 0, hi = n;
    while (hi - lo > 1) {
        if (depth_limit-- == 0) {
            heap_select(a + lo, hi - lo, k - lo);
            return;
        }
        float p = median3(a[lo], a[lo + (hi - lo) / 2], a[hi - 1]);
        size_t lt = lo + partition_front(a + lo, hi - lo, p, 0); /* [lo,lt) < p */
        if (k < lt) {
            hi = lt;
            continue;
        }
        size_t le = lt + partition_front(a + lt, hi - lt, p, 1); /* [lt,le) == p, [le,hi) > p */
        if (k < le) return;
        lo = le;
    }
}

size_t sfi_select_depth(size_t n)
{
    size_t d = 0;
    while (n > 1) {
        n >>= 1;
        d += 2;
    }
    return d;
}

static float min_floats(const float* a, size_t n)
{
    float m = a[0];
    for (size_t i = 1; i < n; ++i)
        if (a[i] < m) m = a[i];
    return m;
}

/* Percentile q of s[0..n) as the sorted array's linear interpolation between order statistics lo and lo + 1,
 * from the two values alone: the same doubles as interpolating in a sorted copy. */
static double percentile_of(float at_lo, float next, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    if (lo + 1 >= n) return at_lo;
    double frac = pos - (double)lo;
    return (double)at_lo + ((double)next - (double)at_lo) * frac;
}

static size_t percentile_index(size_t n, double q) { return (size_t)(q * (double)(n - 1)); }

/* p50 and p95 of s[0..n) (n >= 1, reordered): order statistic k50 over the whole array, then k95 among the
 * values after it (k95 >= k50), the smallest of those up to k95 being the one after k50, the smallest after k95
 * the one after k95. About 3.5 n comparisons. */
static void percentiles(float* s, size_t n, double* p50, double* p95)
{
    size_t k50 = percentile_index(n, 0.50), k95 = percentile_index(n, 0.95);
    sfi_select_floats(s, n, k50, sfi_select_depth(n));
    float v50 = s[k50], next50 = v50, v95 = v50, next95 = v50;
    if (k50 + 1 < n) {
        size_t m = n - (k50 + 1);
        if (k95 > k50) sfi_select_floats(s + k50 + 1, m, k95 - (k50 + 1), sfi_select_depth(m));
        next50 = min_floats(s + k50 + 1, k95 > k50 ? k95 - k50 : m);
        v95 = k95 > k50 ? s[k95] : v50;
        next95 = k95 > k50 ? (k95 + 1 < n ? min_floats(s + k95 + 1, n - k95 - 1) : v95) : next50;
    }
    *p50 = percentile_of(v50, next50, n, 0.50);
    *p95 = percentile_of(v95, next95, n, 0.95);
}

/* Order statistics at ranks[0..count) (ascending, each < m) of c[0..m) (reordered) into out: each selected among the
 * values after the one before it; the next rank by the minimum of those. */
static void order_stats(float* c, size_t m, const size_t* ranks, float* out, size_t count)
{
    size_t lo = 0;
    for (size_t i = 0; i < count; ++i) {
        size_t r = ranks[i];
        if (i > 0 && r == ranks[i - 1]) {
            out[i] = out[i - 1];
            continue;
        }
        if (i > 0 && r == ranks[i - 1] + 1) { /* the smallest after the last: moved to its place */
            size_t at = lo;
            for (size_t j = lo + 1; j < m; ++j)
                if (c[j] < c[at]) at = j;
            swap_floats(&c[lo], &c[at]);
        } else {
            sfi_select_floats(c + lo, m - lo, r - lo, sfi_select_depth(m - lo));
        }
        out[i] = c[r];
        lo = r + 1;
    }
}

/* From this many angles, percentiles_binned when every angle has its sign bit clear. */
#define BINNED_MIN 16384
/* The bins of percentiles_binned: a float's top 11 bits (exponent and 3 mantissa bits; the sign is clear), so that
 * the bins follow the values' order. */
#define BINNED_SHIFT 20
#define BINNED_BINS 2048

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* percentiles() of s[0..n) (reordered) with clear sign bits, from their order statistics found in passes over the
 * bins of their top bits: a histogram, then the values of the bins that hold the four ranks moved to the front (a
 * branch-free swap per value, so s stays a permutation) and selected there. The same order statistics, so the same
 * doubles, as selecting in the whole array. */
static void percentiles_binned(float* s, size_t n, double* p50, double* p95)
{
    uint32_t hist[BINNED_BINS];
    memset(hist, 0, sizeof hist);
    for (size_t i = 0; i < n; ++i) hist[float_bits(s[i]) >> BINNED_SHIFT]++;
    size_t k50 = percentile_index(n, 0.50), k95 = percentile_index(n, 0.95);
    size_t ranks[4] = {k50, k50 + 1 < n ? k50 + 1 : k50, k95, k95 + 1 < n ? k95 + 1 : k95};
    size_t bin[4] = {0, 0, 0, 0}, below[4] = {0, 0, 0, 0}; /* each rank's bin, the count of values before it */
    size_t cum = 0, r = 0;
    for (size_t b = 0; b < BINNED_BINS && r < 4; ++b) {
        while (r < 4 && ranks[r] < cum + hist[b]) bin[r] = b, below[r] = cum, ++r;
        cum += hist[b];
    }
    /* one range of bins, or two when the ranks of p95 lie past the bins of p50 */
    size_t groups = bin[2] > bin[1] ? 2 : 1;
    size_t lo_bin[2] = {bin[0], bin[2]}, hi_bin[2] = {groups == 2 ? bin[1] : bin[3], bin[3]};
    size_t base[2] = {below[0], below[2]};
    float v[4];
    size_t front = 0;
    for (size_t g = 0; g < groups; ++g) {
        size_t count = 0;
        for (size_t b = lo_bin[g]; b <= hi_bin[g]; ++b) count += hist[b];
        uint32_t lo = (uint32_t)lo_bin[g], span = (uint32_t)(hi_bin[g] - lo_bin[g]);
        size_t f = front;
        for (size_t i = front; i < n && f < front + count; ++i) {
            float t = s[i];
            size_t take = (float_bits(t) >> BINNED_SHIFT) - lo <= span;
            s[i] = s[f];
            s[f] = t;
            f += take;
        }
        size_t first = groups == 2 ? 2 * g : 0, k = groups == 2 ? 2 : 4;
        size_t local[4];
        for (size_t i = 0; i < k; ++i) local[i] = ranks[first + i] - base[g];
        order_stats(s + front, count, local, v + first, k);
        front += count;
    }
    *p50 = percentile_of(v[0], v[1], n, 0.50);
    *p95 = percentile_of(v[2], v[3], n, 0.95);
}

sf_result sf_angle_stats_compute(const float* angles_deg, size_t count, float* scratch, const sf_env* env,
                                 sf_angle_stats* out, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(out != NULL, SF_ERROR_INVALID_ARGUMENT, err, "out", SFI_NO_INDEX, "is NULL");
    memset(out, 0, sizeof *out);
    if (count == 0) return SF_OK;
    SF_CHECK(angles_deg != NULL, SF_ERROR_INVALID_ARGUMENT, err, "angles_deg", SFI_NO_INDEX, "is NULL");
    /* Branch-free passes: the shares and the finiteness flag (vectorised), the maximum, then the sums alone (one
     * dependency chain each, in the angles' order); the exact loop names a non-finite angle. */
    size_t over1 = 0, over5 = 0, over45 = 0;
    unsigned bad = 0;
    uint32_t signs = 0;
    for (size_t i = 0; i < count; ++i) {
        float a = angles_deg[i];
        bad |= !(fabsf(a) <= FLT_MAX);
        signs |= float_bits(a);
        over1 += a > 1.0f;
        over5 += a > 5.0f;
        over45 += a > 45.0f;
    }
    if (bad)
        for (size_t i = 0; i < count; ++i)
            SF_CHECK(isfinite(angles_deg[i]), SF_ERROR_NOT_FINITE, err, "angles_deg", i, "angle is %g",
                     (double)angles_deg[i]);
    sf_env e = sf_env_defaults(env);
    float* work = scratch ? scratch : sf_env_alloc(&e, count * sizeof(float));
    if (!work) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "scratch", SFI_NO_INDEX, "%zu angles", count);
    float max = angles_deg[0];
    for (size_t i = 1; i < count; ++i)
        if (angles_deg[i] > max) max = angles_deg[i];
    double sum = 0.0, sum2 = 0.0;
    for (size_t i = 0; i < count; ++i) {
        double a = angles_deg[i];
        sum += a;
        sum2 += a * a;
    }
    out->count = count;
    out->mean = sum / (double)count;
    out->rms = sqrt(sum2 / (double)count);
    memcpy(work, angles_deg, count * sizeof(float));
    if (count >= BINNED_MIN && count <= UINT32_MAX && !(signs >> 31)) percentiles_binned(work, count, &out->p50, &out->p95);
    else percentiles(work, count, &out->p50, &out->p95);
    out->max = max;
    out->over_1 = (double)over1 / (double)count;
    out->over_5 = (double)over5 / (double)count;
    out->over_45 = (double)over45 / (double)count;
    if (!scratch) sf_env_free(&e, work, count * sizeof(float));
    return SF_OK;
}

/* One vertex of the scalar reference into its chunk. */
static void angle_vertex(const sfi_angle_job* job, size_t v, sfi_angle_chunk* c)
{
    uint8_t f = 0;
    bool zero;
    double an = angle_to(job->mn + 3 * v, job->rn + 3 * v, &zero);
    if (zero) f |= SF_VERTEX_DEGENERATE_NORMAL;
    if (job->nd) job->nd[v] = (float)an;
    if (an > c->worst_n) c->worst_n = an, c->worst_n_vertex = v;
    if (job->mt) {
        const float* mt = job->mt + 4 * v;
        const float* rt = job->rt + 4 * v;
        double at = angle_to(mt, rt, &zero);
        if (zero) f |= SF_VERTEX_DEGENERATE_TANGENT;
        if ((mt[3] < 0.0f) != (rt[3] < 0.0f)) f |= SF_VERTEX_HANDEDNESS;
        if (job->td) job->td[v] = (float)at;
        if (at > c->worst_t) c->worst_t = at, c->worst_t_vertex = v;
    } else if (job->td) {
        job->td[v] = 0.0f;
    }
    c->degenerate_normals += (f & SF_VERTEX_DEGENERATE_NORMAL) != 0;
    c->degenerate_tangents += (f & SF_VERTEX_DEGENERATE_TANGENT) != 0;
    c->degenerate += (f & (SF_VERTEX_DEGENERATE_NORMAL | SF_VERTEX_DEGENERATE_TANGENT)) != 0;
    c->handedness += (f & SF_VERTEX_HANDEDNESS) != 0;
    if (job->flags) job->flags[v] = f;
}

/* Chunks of the angle pass: at most ANGLE_CHUNKS (their results live on the stack), at least ANGLE_GRAIN
 * vertices, a multiple of 4; the same for any thread count. */
#define ANGLE_CHUNKS 256
#define ANGLE_GRAIN 4096

typedef struct angle_run {
    sfi_angle_job job;
    sfi_angle_chunk* chunks;
    size_t n, grain;
    int level;
} angle_run;

/* Chunks [k0, k1): the parallel loop runs over chunk numbers, so however it splits them each chunk is whole. */
static void angle_range(void* ctx, size_t k0, size_t k1)
{
    const angle_run* run = (const angle_run*)ctx;
    for (size_t k = k0; k < k1; ++k) {
        sfi_angle_chunk* c = &run->chunks[k];
        size_t begin = k * run->grain, end = run->n - begin < run->grain ? run->n : begin + run->grain;
        memset(c, 0, sizeof *c);
        c->worst_n = c->worst_t = -1.0;
        size_t v = begin;
#if defined(__wasm_simd128__)
        if (run->level == SFI_SIMD_WASM128) v += sfi_angles_wasm(&run->job, begin, end, c);
#else
        if (run->level >= SFI_SIMD_AVX2) v += sfi_angles_avx2(&run->job, begin, end, c);
        else if (run->level >= SFI_SIMD_SSE2) v += sfi_angles_sse2(&run->job, begin, end, c);
#endif
        for (; v < end; ++v) angle_vertex(&run->job, v, c);
    }
}

sf_result sfi_direction_errors(const sf_topology* topo, const sf_frames_out* method, const sf_frames_out* reference,
                               float* normal_deg, float* tangent_deg, uint8_t* flags, float* sort_scratch,
                               sf_error_summary* summary, sf_error* err)
{
    bool tangents = topo->has_uvs && method->tangents && reference->tangents;
    size_t n = topo->vertex_count;
    float* nd = normal_deg;
    float* td = tangent_deg;
    sf_error_summary s;
    memset(&s, 0, sizeof s);
    /* The vertices in fixed chunks, each counting its own, combined in chunk order: the scalar loop's counts
     * and first largest angles, for any thread count. */
    angle_run run;
    run.job = (sfi_angle_job){method->normals,
                              reference->normals,
                              tangents ? method->tangents : NULL,
                              tangents ? reference->tangents : NULL,
                              method->normals == reference->normals,
                              tangents && method->tangents == reference->tangents,
                              nd,
                              td,
                              flags};
    size_t grain = (n + ANGLE_CHUNKS - 1) / ANGLE_CHUNKS;
    grain = grain < ANGLE_GRAIN ? ANGLE_GRAIN : (grain + 3) & ~(size_t)3;
    sfi_angle_chunk chunks[ANGLE_CHUNKS];
    run.chunks = chunks;
    run.n = n;
    run.grain = grain;
    run.level = sfi_simd_level(topo);
    size_t chunk_count = (n + grain - 1) / grain;
    sf_env_parallel_for(&topo->env, chunk_count, 1, angle_range, &run);
    double worst_n = -1.0, worst_t = -1.0;
    for (size_t k = 0; k < chunk_count; ++k) {
        const sfi_angle_chunk* c = &chunks[k];
        if (c->worst_n > worst_n) worst_n = c->worst_n, s.worst_normal_vertex = c->worst_n_vertex;
        if (c->worst_t > worst_t) worst_t = c->worst_t, s.worst_tangent_vertex = c->worst_t_vertex;
        s.degenerate_normals += c->degenerate_normals;
        s.degenerate_tangents += c->degenerate_tangents;
        s.degenerate += c->degenerate;
        s.handedness_mismatches += c->handedness;
    }
    if (!summary) return SF_OK;
    sf_result r = SF_OK;
    if (sort_scratch) {
        r = sf_angle_stats_compute(nd, n, sort_scratch, &topo->env, &s.normal, err);
        if (r == SF_OK && tangents) r = sf_angle_stats_compute(td, n, sort_scratch, &topo->env, &s.tangent, err);
    }
    if (r == SF_OK) *summary = s;
    return r;
}

sf_result sf_direction_errors(const sf_topology* topo, const sf_frames_out* method, const sf_frames_out* reference,
                              float* normal_deg, float* tangent_deg, uint8_t* flags, sf_error_summary* summary,
                              sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(topo && method && reference, SF_ERROR_INVALID_ARGUMENT, err, "arguments", SFI_NO_INDEX,
             "topology, method and reference are required");
    SF_CHECK(method->normals && reference->normals, SF_ERROR_MISSING_STREAM, err, "normals", SFI_NO_INDEX,
             "method and reference normals are required");
    size_t n = topo->vertex_count;
    /* Frames from elsewhere than sf_frames_compute may hold NaN or infinity: angles of them would be NaN. */
    const struct {
        const float* data;
        size_t per;
        const char* field;
    } inputs[4] = {{method->normals, 3, "method.normals"},
                   {topo->has_uvs ? method->tangents : NULL, 4, "method.tangents"},
                   {reference->normals, 3, "reference.normals"},
                   {topo->has_uvs ? reference->tangents : NULL, 4, "reference.tangents"}};
    for (int k = 0; k < 4; ++k) {
        const float* x = inputs[k].data;
        size_t count = x ? inputs[k].per * n : 0;
        unsigned bad = 0; /* branch-free (vectorised); the exact loop names the first when one is flagged */
        for (size_t i = 0; i < count; ++i) bad |= !(fabsf(x[i]) <= FLT_MAX);
        for (size_t i = 0; bad && i < count; ++i)
            SF_CHECK(isfinite(x[i]), SF_ERROR_NOT_FINITE, err, inputs[k].field, i / inputs[k].per,
                     "component %zu is %g", i % inputs[k].per, (double)x[i]);
    }
    float* nd = normal_deg;
    float* td = tangent_deg;
    float* owned = NULL;
    if (summary) { /* angles the caller does not keep, and the working copy for percentiles */
        size_t m = n ? n : 1;
        owned = sf_env_alloc(&topo->env, 3 * m * sizeof(float)); /* every element is written before it is read */
        if (!owned) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "scratch", SFI_NO_INDEX, "%zu vertices", n);
        if (!nd) nd = owned + m;
        if (!td) td = owned + 2 * m;
    }
    sf_result r = sfi_direction_errors(topo, method, reference, nd, td, flags, owned, summary, err);
    sf_env_free(&topo->env, owned, 0);
    return r;
}

/* Tangents equal in all four floats (the corners of a vertex usually are): one angle serves both. */
static bool same4(const float* a, const float* b) { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3]; }

sf_result sfi_corner_tangent_errors(const sf_topology* topo, const float* method_tangents, const float* method_corners,
                                    const float* ref_tangents, const float* ref_corners, float* corner_deg,
                                    float* vertex_deg, uint8_t* flags, float* sort_scratch, sf_error_summary* summary,
                                    sf_error* err)
{
    size_t n = topo->vertex_count, C = 3 * topo->triangle_count;
    const uint8_t tangent_bits = SF_VERTEX_DEGENERATE_TANGENT | SF_VERTEX_HANDEDNESS;
    double worst = -1.0;
    size_t worst_corner = SIZE_MAX, handed = 0, degenerate_t = 0, degenerate = 0;
    for (size_t v = 0; v < n; ++v) {
        uint8_t f = (uint8_t)(flags[v] & ~tangent_bits);
        uint32_t begin = topo->adj_offsets[v], end = topo->adj_offsets[v + 1];
        float worst_v = 0.0f;
        if (begin == end) { /* no corner: the per-vertex comparison */
            const float *mt = method_tangents + 4 * v, *rt = ref_tangents + 4 * v;
            bool zero;
            worst_v = (float)angle_to(mt, rt, &zero);
            if (zero) f |= SF_VERTEX_DEGENERATE_TANGENT;
            if ((mt[3] < 0.0f) != (rt[3] < 0.0f)) f |= SF_VERTEX_HANDEDNESS;
        }
        const float *last_m = NULL, *last_r = NULL;
        double a = 0.0;
        for (uint32_t k = begin; k < end; ++k) {
            size_t c = topo->adj_corners[k];
            const float* mt = method_corners ? method_corners + 4 * c : method_tangents + 4 * v;
            const float* rt = ref_corners + 4 * c;
            if (!last_m || !same4(mt, last_m) || !same4(rt, last_r)) {
                bool zero;
                a = angle_to(mt, rt, &zero);
                if (zero) f |= SF_VERTEX_DEGENERATE_TANGENT;
                last_m = mt, last_r = rt;
            }
            corner_deg[c] = (float)a;
            if (a > worst || (a == worst && c < worst_corner)) worst = a, worst_corner = c;
            if ((mt[3] < 0.0f) != (rt[3] < 0.0f)) {
                handed++;
                f |= SF_VERTEX_HANDEDNESS;
            }
            if ((float)a > worst_v) worst_v = (float)a;
        }
        if (vertex_deg) vertex_deg[v] = worst_v;
        flags[v] = f;
        degenerate_t += (f & SF_VERTEX_DEGENERATE_TANGENT) != 0;
        degenerate += (f & (SF_VERTEX_DEGENERATE_NORMAL | SF_VERTEX_DEGENERATE_TANGENT)) != 0;
    }
    summary->worst_tangent_vertex = worst_corner < C ? topo->indices[worst_corner] : 0;
    summary->handedness_mismatches = handed;
    summary->degenerate_tangents = degenerate_t;
    summary->degenerate = degenerate;
    memset(&summary->tangent, 0, sizeof summary->tangent);
    if (sort_scratch) return sf_angle_stats_compute(corner_deg, C, sort_scratch, &topo->env, &summary->tangent, err);
    return SF_OK;
}

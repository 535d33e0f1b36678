// The CUDA backend (SF_WITH_CUDA=ON): a CUDA workspace uploads its topology once, keeps scratch for a batch
// of instances on the device, and runs every method and the reference through cuda/kernels*.cu. Every CUDA
// runtime call is checked, the failing call named in the error. MikkTSpace's graph (shared vertices, neighbours,
// groups over the whole mesh) is built on the CPU from the GPU's positions and normals, copied back for it; the
// groups' sums run on the device for the frames whose groups are the device's copy (kernels_mikk.cu), on the CPU
// for the others.
#include "cuda_internal.h"
#include "gpu_order.h"
#include "sf_kernels.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SFC_MAX_ALLOCS 48
#define SFC_HEADROOM ((size_t)256 << 20) // left free on the device for the runtime and other work
#define SFC_FRAME_RECORDS (2 * SF_METHOD_COUNT * 3) // per instance: 3 per series (sfc_stats.frame)
// The frames of one deform's rows an evaluation keeps at once (nrm / tan and the row buffers, vertex_rows).
#define SFC_ROW_SLOTS 3

// sfi_cuda's host MikkTSpace: floats of pinned staging per round at most (pinning costs about 0.3 ms a MB, once),
// parts of a round at most.
#define SFC_MIKK_ROUND ((size_t)1 << 22)
#define SFC_MIKK_PARTS 16

struct sfi_cuda {
    cudaStream_t stream;
    cudaEvent_t start, stop;
    sfc_topo t;
    void* allocs[SFC_MAX_ALLOCS]; // the topology's device arrays
    size_t alloc_count, topo_bytes;
    sfi_cuda_recompute variant;
    int rows_apart; // each per-vertex row its own deform (sfi_cuda_set_rows 0)
    const sf_topology* topo;
    // The device's vertex order (cuda/gpu_order.c): perm NULL while the device keeps the caller's order
    // (sfi_cuda_set_locality 0); every per-vertex array leaves the device in the caller's order either way.
    sfi_gpu_order order;
    sfi_cuda_order order_mode; // sfi_cuda_set_locality; SFI_CUDA_ORDER_AUTO from the start
    float* h_order; // a copy's rows or corners on their way between the two orders (order_staging)
    size_t h_order_floats;
    sfc_halo halo[3]; // the locality blocks per weld mode (none, position, position + normal), built on first use
    int halo_refused[3]; // a weld mode whose blocks cannot be built: halo variants run as face-gather there
    // per instance, for up to cap instances
    uint32_t cap, count;      // capacity, instances of the last upload
    size_t reserved;          // sf_workspace_reserve's largest batch: MikkTSpace's rounds are sized for it too
    size_t fit;               // the most instances the device memory holds (0 = not measured yet)
    void *instances_base, *h_instances_base; // the per-instance buffers below, one device and one pinned block
    float *bones, *alpha;     // cap * 12 * bones, cap * targets
    float *h_bones, *h_alpha; // pinned staging
    int with_alpha;           // the last upload had morph weights
    float pose_scale;         // bound on the bones' growth of lengths (fixed-point scatter)
    float *pos, *det, *nrm, *tan, *ref_n, *ref_t, *face, *pose_n, *pose_t;
    // the frames of an evaluation's rows from one deform beside nrm / tan (SFC_ROW_SLOTS - 1)
    float *row_nrm[SFC_ROW_SLOTS - 1], *row_tan[SFC_ROW_SLOTS - 1];
    // the reference's MikkTSpace tangents per corner (cap * 12F, w as the per-vertex output's) and, per instance,
    // whether recompute-fused's own corners differ from them; corners: the last evaluation measured per corner
    float* ref_ct;
    unsigned* ct_differ;
    int corners;
    // MikkTSpace on the host: a CPU workspace per part of a batch's instances, and the rounds' staging
    sf_workspace* mikk_ws[SFC_MIKK_PARTS];
    size_t mikk_parts;
    float* h_mikk; // pinned
    size_t h_mikk_floats;
    sfc_mikk* mikk_gpu; // the groups' sums on the device for the frames whose groups are these (kernels_mikk.cu)
    size_t mikk_frames, mikk_on_device; // sfi_cuda_mikk_counts
    void* acc;
    // the authored reference's rest rebuild (one instance), cached per option set
    float *auth_n, *auth_t;
    int auth_cached;
    sf_frames_opts auth_opts;
    unsigned long long* counters; // SFC_COUNTERS
    // device statistics: a normal and a tangent series per row, and the summary counts per row
    sfc_stats stats[2 * SF_METHOD_COUNT];
    unsigned long long* e_counts;     // SFC_E_COUNTS per row
    unsigned long long* row_counters; // SFC_COUNTERS per row, then the reference's
    int with_report;                  // the last evaluation counted the reports
    void* stats_base; // the statistics' device buffers, one allocation (ensure_stats)
    size_t rows;
    sf_method row_method[SF_METHOD_COUNT];
    sf_result row_status[SF_METHOD_COUNT];
    sf_error row_detail[SF_METHOD_COUNT];
    uint32_t row_two_pass[SF_METHOD_COUNT]; // recompute-fused rows: sf_frames_report.fused_two_pass
    unsigned long long* h_bins;     // pinned SFK_ANGLE_BIN_COUNT
    // one series' nonzero bins (sfc_bins_nonzero), read back into h_bins: counts, then the bins' numbers
    unsigned long long* sparse_count; // SFC_SPARSE_BINS
    uint32_t* sparse_bin;             // SFC_SPARSE_BINS
    unsigned* sparse_entries;
    sf_angle_accumulator* read_acc; // one series read back (sfi_cuda_eval_read)
    // a clip's batch (eval_enqueue_clip): each instance's record per series (sfc_stats.frame), on the device for
    // cap instances ([2 * SF_METHOD_COUNT][3 * cap]), read back into pinned memory for the batch's poses
    // ([2 * SF_METHOD_COUNT][3 * clip_count]) after the batch's launches
    unsigned long long *frames, *h_frames;
    size_t h_frames_cap;
    uint32_t clip_count; // poses of the last clip batch (0: none)
    int clip_synced;     // h_frames holds them
};

sf_result sfc_failed(sf_error* err, const char* call, cudaError_t e)
{
    return sf_error_set(err, SF_ERROR_UNSUPPORTED, "backend", SFI_NO_INDEX, "cuda: %s failed: %s (%s)", call,
                        cudaGetErrorName(e), cudaGetErrorString(e));
}

static sf_result cuda_check(sf_error* err)
{
    int count = 0;
    SFC_CHECK(cudaGetDeviceCount(&count), err);
    if (count <= 0)
        return sf_error_set(err, SF_ERROR_UNSUPPORTED, "backend", SFI_NO_INDEX, "cuda: no CUDA device is present");
    return SF_OK;
}

extern "C" const char* sfi_cuda_recompute_name(sfi_cuda_recompute v)
{
    static const char* const names[] = {"halo-gather",   "face-gather", "gather",        "scatter-fixed",
                                        "scatter-float", "one-pass",    "one-pass-naive"};
    static_assert(sizeof names / sizeof names[0] == SFI_CUDA_RECOMPUTE_COUNT, "a name per variant");
    return (unsigned)v < SFI_CUDA_RECOMPUTE_COUNT ? names[v] : "?";
}

extern "C" size_t sfi_cuda_halo_bytes(const sf_topology* topo, int weld) { return sfc_halo_bytes(topo, weld); }

extern "C" void sfi_cuda_set_recompute(sf_workspace* ws, sfi_cuda_recompute v)
{
    if (ws && ws->cuda && (unsigned)v < SFI_CUDA_RECOMPUTE_COUNT) ws->cuda->variant = v;
}

extern "C" void sfi_cuda_set_rows(sf_workspace* ws, int flags)
{
    if (ws && ws->cuda) ws->cuda->rows_apart = !(flags & SFI_CUDA_ROWS_SHARED_DEFORM);
}

extern "C" void sfi_cuda_mikk_counts(const sf_workspace* ws, size_t* frames, size_t* on_device)
{
    *frames = ws && ws->cuda ? ws->cuda->mikk_frames : 0;
    *on_device = ws && ws->cuda ? ws->cuda->mikk_on_device : 0;
}

// ---------------------------------------------------------------- memory

static sf_result too_big(sf_error* err, const char* what, size_t need, size_t free_bytes, size_t n, size_t count)
{
    return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "backend", SFI_NO_INDEX,
                        "cuda: %s of %zu vertices x %zu instances needs %.1f MB of GPU memory, %.1f MB free", what, n,
                        count, (double)need / 1048576.0, (double)free_bytes / 1048576.0);
}

static sf_result topo_alloc(sfi_cuda* c, size_t bytes, void** out, sf_error* err)
{
    *out = NULL;
    if (bytes == 0) return SF_OK;
    if (c->alloc_count == SFC_MAX_ALLOCS)
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "backend", SFI_NO_INDEX, "cuda: too many arrays");
    SFC_CHECK(cudaMalloc(out, bytes), err);
    c->allocs[c->alloc_count++] = *out;
    c->topo_bytes += bytes;
    return SF_OK;
}

template <class T> static sf_result upload(sfi_cuda* c, const T* host, size_t count, const T** out, sf_error* err)
{
    *out = NULL;
    if (!host || count == 0) return SF_OK;
    void* d = NULL;
    sf_result r = topo_alloc(c, count * sizeof(T), &d, err);
    if (r != SF_OK) return r;
    SFC_CHECK(cudaMemcpy(d, host, count * sizeof(T), cudaMemcpyHostToDevice), err);
    *out = static_cast<const T*>(d);
    return SF_OK;
}

// ---------------------------------------------------------------- the device's vertex order

// Per-vertex rows (width elements each) of the caller's numbering, uploaded in the device's order.
template <class T>
static sf_result upload_rows(sfi_cuda* c, const T* host, size_t width, const T** out, sf_error* err)
{
    size_t n = c->t.n;
    if (!c->order.perm || !host || n == 0) return upload(c, host, width * n, out, err);
    *out = NULL;
    T* tmp = (T*)malloc(width * n * sizeof(T));
    if (!tmp) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "backend", SFI_NO_INDEX, "cuda: order staging");
    sfi_gpu_order_rows(n, c->order.perm, host, width * sizeof(T), tmp);
    sf_result r = upload(c, (const T*)tmp, width * n, out, err);
    free(tmp);
    return r;
}

// A CSR array per vertex (width elements per entry) in the device's order; its offsets into *out_offsets unless
// NULL (arrays sharing one set of offsets upload them once).
template <class T>
static sf_result upload_csr(sfi_cuda* c, const uint32_t* offsets, const T* host, size_t width,
                            const uint32_t** out_offsets, const T** out, sf_error* err)
{
    size_t n = c->t.n, entries = offsets ? offsets[n] : 0;
    if (!c->order.perm || !offsets) {
        sf_result r = out_offsets ? upload(c, offsets, n + 1, out_offsets, err) : SF_OK;
        return r == SF_OK ? upload(c, host, width * entries, out, err) : r;
    }
    *out = NULL;
    uint32_t* o = (uint32_t*)malloc((n + 1) * sizeof(uint32_t));
    size_t floats = host ? width * entries : 0;
    T* tmp = (T*)malloc((floats ? floats : 1) * sizeof(T));
    sf_result r = SF_OK;
    if (!o || !tmp) {
        r = sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "backend", SFI_NO_INDEX, "cuda: order staging");
    } else {
        sfi_gpu_order_csr(n, c->order.perm, offsets, host, width * sizeof(T), o, tmp); // host NULL: offsets only
        if (out_offsets) r = upload(c, (const uint32_t*)o, n + 1, out_offsets, err);
        if (r == SF_OK && host) r = upload(c, (const T*)tmp, width * entries, out, err);
    }
    free(o);
    free(tmp);
    return r;
}

// Triangle indices as device vertices.
static sf_result upload_indices(sfi_cuda* c, const uint32_t* idx, size_t count, const uint32_t** out, sf_error* err)
{
    if (!c->order.perm || !idx || count == 0) return upload(c, idx, count, out, err);
    *out = NULL;
    uint32_t* tmp = (uint32_t*)malloc(count * sizeof(uint32_t));
    if (!tmp) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "backend", SFI_NO_INDEX, "cuda: order staging");
    for (size_t g = 0; g < count / 3; ++g) // device triangle g is the caller's fperm[g]
        for (int k = 0; k < 3; ++k) tmp[3 * g + k] = c->order.inv[idx[3 * (size_t)c->order.fperm[g] + k]];
    sf_result r = upload(c, (const uint32_t*)tmp, count, out, err);
    free(tmp);
    return r;
}

// Lists of corner numbers (the adjacency per vertex, rows: 1; a weld's per group, rows: 0) as the device's
// corners, each list in its own order; with rows the lists are moved into the device's vertex order.
static sf_result upload_corner_lists(sfi_cuda* c, size_t lists, const uint32_t* offsets, const uint32_t* corners,
                                     int rows, const uint32_t** out_offsets, const uint32_t** out, sf_error* err)
{
    size_t total = offsets ? offsets[lists] : 0;
    if (!c->order.perm || !offsets || !corners) {
        sf_result r = upload(c, offsets, lists + 1, out_offsets, err);
        return r == SF_OK ? upload(c, corners, total, out, err) : r;
    }
    *out = *out_offsets = NULL;
    uint32_t* o = (uint32_t*)malloc((lists + 1) * sizeof(uint32_t));
    uint32_t* tmp = (uint32_t*)malloc((total ? total : 1) * sizeof(uint32_t));
    sf_result r = SF_OK;
    if (!o || !tmp) {
        r = sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "backend", SFI_NO_INDEX, "cuda: order staging");
    } else {
        if (rows) {
            sfi_gpu_order_csr(lists, c->order.perm, offsets, corners, sizeof(uint32_t), o, tmp);
        } else {
            memcpy(o, offsets, (lists + 1) * sizeof(uint32_t));
            memcpy(tmp, corners, total * sizeof(uint32_t));
        }
        for (size_t i = 0; i < total; ++i) tmp[i] = sfi_gpu_order_corner(&c->order, tmp[i]);
        r = upload(c, (const uint32_t*)o, lists + 1, out_offsets, err);
        if (r == SF_OK) r = upload(c, (const uint32_t*)tmp, total, out, err);
    }
    free(o);
    free(tmp);
    return r;
}

// A device vertex's number in the caller's numbering (results that name a vertex: worst, first non-finite).
static size_t caller_vertex(const sfi_cuda* c, size_t q)
{
    return c->order.perm && q < c->order.n ? c->order.perm[q] : q;
}

// The host staging of the moves below, for rows of 4 floats per vertex and per corner, in `parts` parts (the
// MikkTSpace rounds move their instances in parallel; order_scratch(c, k) is part k's): made on the first copy that
// needs it (frames, MikkTSpace; an evaluation's statistics never do), then kept.
static size_t order_part_floats(const sfi_cuda* c)
{
    size_t n = c->t.n, C = 3 * (size_t)c->t.F;
    return 4 * (n > C ? n : C);
}
static float* order_scratch(const sfi_cuda* c, size_t part) { return c->h_order + part * order_part_floats(c); }
static sf_result order_staging(sfi_cuda* c, size_t parts, sf_error* err)
{
    size_t n = c->t.n, floats = parts * order_part_floats(c);
    if (!c->order.perm || floats <= c->h_order_floats) return SF_OK;
    free(c->h_order);
    c->h_order = (float*)malloc(floats * sizeof(float));
    c->h_order_floats = c->h_order ? floats : 0;
    if (!c->h_order)
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "workspace", SFI_NO_INDEX,
                            "cuda: staging of %zu vertices between the device's order and the caller's", n);
    return SF_OK;
}

// n rows of width floats, downloaded in the device's order into dst, put back into the caller's order in place
// (through scratch, order_scratch's).
static void rows_to_caller(const sfi_cuda* c, float* scratch, float* dst, size_t width)
{
    size_t n = c->t.n;
    if (!c->order.perm || !dst || n == 0) return;
    memcpy(scratch, dst, width * n * sizeof(float));
    sfi_gpu_order_rows_back(n, c->order.perm, scratch, width * sizeof(float), dst);
}

// Per-corner float4s of the caller's corners in place into the device's, before an upload.
static void corners_to_device(const sfi_cuda* c, float* scratch, float* dst)
{
    size_t F = c->order.F;
    if (!c->order.perm || !dst || F == 0) return;
    memcpy(scratch, dst, 12 * F * sizeof(float));
    sfi_gpu_order_rows(F, c->order.fperm, scratch, 12 * sizeof(float), dst); // a triangle's 3 corners at once
}

// The reverse: rows of the caller's order in place into the device's, before an upload.
static void rows_to_device(const sfi_cuda* c, float* scratch, float* dst, size_t width)
{
    size_t n = c->t.n;
    if (!c->order.perm || !dst || n == 0) return;
    memcpy(scratch, dst, width * n * sizeof(float));
    sfi_gpu_order_rows(n, c->order.perm, scratch, width * sizeof(float), dst);
}

static size_t round_slots(uint32_t k) { return k == 0 ? 0 : k <= 4 ? 4 : k <= 8 ? 8 : 16; }

// Bytes the device copy of topo takes (the same arrays upload_topology makes).
static size_t topology_bytes(const sf_topology* topo)
{
    size_t n = topo->vertex_count, F = topo->triangle_count, K = round_slots(topo->influence_count);
    size_t e = n ? topo->morph_offsets[n] : 0;
    size_t b = // the last n: the caller's numbers (the device's own vertex order)
        4 * (3 * n + 3 * n + 4 * n + (topo->uvs ? 2 * n : 0) + 3 * F + (n + 1) + 3 * F + K * n + (n + 1) + e * 10 + n +
             n);
    b += 2 * K * n;
    for (int k = 0; k < 2; ++k)
        if (topo->weld[k].group) b += 4 * (n + topo->weld[k].group_count + 1 + 3 * F);
    static const sf_method jacobians[] = {SF_METHOD_JACOBIAN, SF_METHOD_JACOBIAN_FAN};
    for (int k = 0; k < 2; ++k) {
        sfi_gradients_view g;
        if (!sfi_gradients_get(topo, jacobians[k], &g)) continue;
        size_t s = g.slot_offsets[n], m = g.morph_offsets[n];
        b += 4 * ((n + 1) + s * (1 + g.slot_floats) + (n + 1) + m * 7 + (g.fan_normal ? 3 * n : 0));
    }
    return b;
}

// The jacobians' precomputed data: uploaded here and nowhere else, so a change of its layout (gradients.c,
// sfi_gradients_view) changes this one function.
static sf_result upload_gradients(sfi_cuda* c, const sf_topology* topo, sf_method method, sf_error* err)
{
    sfi_gradients_view g;
    if (!sfi_gradients_get(topo, method, &g)) return SF_OK;
    sfc_topo& t = c->t;
    bool fan = method == SF_METHOD_JACOBIAN_FAN;
    if (!fan) t.slot_floats = g.slot_floats;
    sf_result r = upload_csr(c, g.slot_offsets, g.slot_joint, 1, fan ? &t.fan.slot_offsets : &t.slot_offsets,
                             fan ? &t.fan.slot_joint : &t.slot_joint, err);
    if (r == SF_OK)
        r = upload_csr(c, g.slot_offsets, g.slot_coef, g.slot_floats, NULL, fan ? &t.fan.slot_coef : &t.slot_coef, err);
    if (r == SF_OK)
        r = upload_csr(c, g.morph_offsets, g.morph_target, 1, fan ? &t.fan.morph_offsets : &t.grad_morph_offsets,
                       fan ? &t.fan.morph_target : &t.grad_morph_target, err);
    if (r == SF_OK)
        r = upload_csr(c, g.morph_offsets, g.morph_duv, 6, NULL, fan ? &t.fan.morph_duv : &t.grad_morph_duv, err);
    if (r == SF_OK && fan) r = upload_rows(c, g.fan_normal, 3, &t.fan.fan_normal, err);
    return r;
}

// Bounds of the fixed-point scatter's terms at rest (sfc_scatter): per weighting, the largest component of a
// normal term and of a tangent or bitangent term.
static void fixed_bounds(const sf_topology* topo, sfc_topo* t)
{
    double bn = 0.0, bt = 0.0, btn = 0.0;
    for (size_t f = 0; f < topo->triangle_count; ++f) {
        const uint32_t* tri = topo->indices + 3 * f;
        const float* P = topo->rest_positions;
        float fn[3], ft[3], fb[3];
        const float* uv[3] = {NULL, NULL, NULL};
        if (topo->uvs)
            for (int c = 0; c < 3; ++c) uv[c] = topo->uvs + 2 * tri[c];
        sfk_face_frame(P + 3 * tri[0], P + 3 * tri[1], P + 3 * tri[2], uv[0], uv[1], uv[2], fn, ft, fb);
        double a = sfk_length(fn), mt = fmax(sfk_max_abs3(ft), sfk_max_abs3(fb));
        bn = fmax(bn, sfk_max_abs3(fn));
        bt = fmax(bt, mt);
        btn = fmax(btn, mt * a);
    }
    // 2x headroom for morphs and stretching beyond the bones' bound
    t->fixed_bound[SFK_WEIGHTING_AREA][0] = (float)(2.0 * bn);
    t->fixed_bound[SFK_WEIGHTING_AREA][1] = (float)fmin(2.0 * btn, FLT_MAX);
    t->fixed_bound[SFK_WEIGHTING_ANGLE][0] = (float)(2.0 * M_PI);
    t->fixed_bound[SFK_WEIGHTING_ANGLE][1] = (float)fmin(2.0 * M_PI * bt, FLT_MAX);
    t->fixed_bound[SFK_WEIGHTING_UNIFORM][0] = 2.0f;
    t->fixed_bound[SFK_WEIGHTING_UNIFORM][1] = (float)fmin(2.0 * bt, FLT_MAX);
    uint32_t valence = 0;
    for (size_t v = 0; v < topo->vertex_count; ++v) {
        uint32_t d = topo->adj_offsets[v + 1] - topo->adj_offsets[v];
        if (d > valence) valence = d;
    }
    for (int k = 0; k < 2; ++k)
        for (size_t g = 0; topo->weld[k].group && g < topo->weld[k].group_count; ++g) {
            uint32_t d = topo->weld[k].corner_offsets[g + 1] - topo->weld[k].corner_offsets[g];
            if (d > valence) valence = d;
        }
    t->max_valence = valence;
}

static sf_result upload_topology(sfi_cuda* c, const sf_topology* topo, sf_error* err)
{
    size_t n = topo->vertex_count, F = topo->triangle_count;
    if (n > UINT32_MAX / 16 || F > UINT32_MAX / 3)
        return sf_error_set(err, SF_ERROR_UNSUPPORTED, "backend", SFI_NO_INDEX,
                            "cuda: %zu vertices / %zu triangles are beyond the kernels' 32-bit indices", n, F);
    if (topo->influence_count > 16 || topo->bone_count > 65535)
        return sf_error_set(err, SF_ERROR_UNSUPPORTED, "backend", SFI_NO_INDEX,
                            "cuda: %u influences per vertex over %zu bones; the GPU takes at most 16 over 65535",
                            (unsigned)topo->influence_count, topo->bone_count);
    size_t free_b = 0, total_b = 0, need = topology_bytes(topo);
    SFC_CHECK(cudaMemGetInfo(&free_b, &total_b), err);
    if (need + SFC_HEADROOM > free_b) return too_big(err, "the topology", need, free_b, n, 1);
    sfc_topo& t = c->t;
    t.n = (uint32_t)n, t.F = (uint32_t)F, t.bones = (uint32_t)topo->bone_count,
    t.targets = (uint32_t)topo->target_count;
    t.has_uvs = topo->has_uvs;
    t.bitangent_sign = topo->bitangent_sign;
    sf_result r = upload_rows(c, topo->rest_positions, 3, &t.rest_p, err);
    if (r == SF_OK) r = upload_rows(c, topo->rest_normals, 3, &t.rest_n, err);
    if (r == SF_OK) r = upload_rows(c, topo->rest_tangents, 4, &t.rest_t, err);
    if (r == SF_OK) r = upload_rows(c, topo->uvs, 2, &t.uvs, err);
    if (r == SF_OK) r = upload_indices(c, topo->indices, 3 * F, &t.indices, err);
    if (r == SF_OK)
        r = upload_corner_lists(c, n, topo->adj_offsets, topo->adj_corners, 1, &t.adj_offsets, &t.adj_corners, err);
    if (r == SF_OK)
        r = upload_csr(c, topo->morph_offsets, topo->morph_target, 1, &t.morph_offsets, &t.morph_target, err);
    if (r == SF_OK) r = upload_csr(c, topo->morph_offsets, topo->morph_dp, 3, NULL, &t.morph_dp, err);
    if (r == SF_OK) r = upload_csr(c, topo->morph_offsets, topo->morph_dn, 3, NULL, &t.morph_dn, err);
    if (r == SF_OK) r = upload_csr(c, topo->morph_offsets, topo->morph_dt, 3, NULL, &t.morph_dt, err);
    for (int k = 0; r == SF_OK && k < 2; ++k) {
        const sfi_weld* w = &topo->weld[k];
        if (!w->group) continue;
        r = upload_rows(c, w->group, 1, &t.weld[k].group, err);
        // groups keep their numbers, their corners become the device's
        if (r == SF_OK)
            r = upload_corner_lists(c, w->group_count, w->corner_offsets, w->corners, 0, &t.weld[k].corner_offsets,
                                    &t.weld[k].corners, err);
    }
    if (r == SF_OK) r = upload_gradients(c, topo, SF_METHOD_JACOBIAN, err);
    if (r == SF_OK) r = upload_gradients(c, topo, SF_METHOD_JACOBIAN_FAN, err);
    if (r != SF_OK) return r;
    // influences packed to 16-bit joints, K slots
    size_t K = round_slots(topo->influence_count), k0 = topo->influence_count;
    t.K = (uint32_t)K;
    if (K) {
        uint16_t* j = (uint16_t*)calloc(K * n, sizeof(uint16_t));
        float* w = (float*)calloc(K * n, sizeof(float));
        if (!j || !w) {
            free(j);
            free(w);
            return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "backend", SFI_NO_INDEX, "cuda: influence staging");
        }
        for (size_t v = 0; v < n; ++v)
            for (size_t k = 0; k < k0; ++k) {
                j[K * v + k] = (uint16_t)topo->joints[k0 * v + k];
                w[K * v + k] = topo->weights[k0 * v + k];
            }
        r = upload_rows(c, (const uint16_t*)j, K, &t.joints, err);
        if (r == SF_OK) r = upload_rows(c, (const float*)w, K, &t.weights, err);
        free(j);
        free(w);
        if (r != SF_OK) return r;
    }
    float* ones = (float*)malloc((n ? n : 1) * sizeof(float));
    if (!ones) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "backend", SFI_NO_INDEX, "cuda: staging");
    for (size_t v = 0; v < n; ++v) ones[v] = 1.0f;
    r = upload(c, ones, n, &t.ones, err);
    free(ones);
    if (r == SF_OK && c->order.perm) r = upload(c, (const uint32_t*)c->order.perm, n, &t.caller, err);
    if (r != SF_OK) return r;
    fixed_bounds(topo, &t);
    return SF_OK;
}

static void free_instances(sfi_cuda* c)
{
    cudaFree(c->instances_base);
    cudaFreeHost(c->h_instances_base);
    c->instances_base = c->h_instances_base = NULL;
    c->bones = c->alpha = c->pos = c->det = c->nrm = c->tan = c->ref_n = c->ref_t = c->face = c->ref_ct = NULL;
    c->pose_n = c->pose_t = c->h_bones = c->h_alpha = NULL;
    c->ct_differ = NULL;
    for (int k = 0; k < SFC_ROW_SLOTS - 1; ++k) c->row_nrm[k] = c->row_tan[k] = NULL;
    c->acc = NULL;
    c->frames = NULL;
    c->cap = 0;
}

static size_t instance_bytes(const sfc_topo& t)
{
    size_t n = t.n, F = t.F;
    return 4 * (12 * (size_t)t.bones + t.targets + 3 * n + n + 3 * n + 4 * n + 3 * n + 4 * n + 12 * F + 3 * n + 4 * n +
                9 * n + 12 * F + 1 + (SFC_ROW_SLOTS - 1) * 7 * n) +
           SFC_FRAME_RECORDS * sizeof(unsigned long long);
}

template <class T> static sf_result dev_alloc(T** p, size_t count, sf_error* err)
{
    *p = NULL;
    if (count == 0) return SF_OK;
    SFC_CHECK(cudaMalloc((void**)p, count * sizeof(T)), err);
    return SF_OK;
}

// Carves count elements of T out of a block at *offset (256-byte aligned, as cudaMalloc's own); base NULL only
// measures.
template <class T> static T* carve(char* base, size_t* offset, size_t count)
{
    size_t at = (*offset + 255) & ~(size_t)255;
    *offset = at + count * sizeof(T);
    return base && count ? reinterpret_cast<T*>(base + at) : NULL;
}

// Scratch for count instances (at most fit: the caller chunks): one device block and one pinned staging block,
// since a clip's primitives each make theirs and allocations, not bytes, are what cost there.
static sf_result ensure_instances(sfi_cuda* c, uint32_t count, sf_error* err)
{
    if (count <= c->cap) return SF_OK;
    free_instances(c);
    const sfc_topo& t = c->t;
    size_t n = t.n, F = t.F, m = count;
    for (int pass = 0; pass < 2; ++pass) { // measure, then carve
        char* d = (char*)c->instances_base;
        char* h = (char*)c->h_instances_base;
        size_t at = 0, h_at = 0;
        c->bones = carve<float>(d, &at, m * 12 * t.bones);
        c->alpha = carve<float>(d, &at, m * t.targets);
        c->pos = carve<float>(d, &at, m * 3 * n);
        c->det = carve<float>(d, &at, m * n);
        c->nrm = carve<float>(d, &at, m * 3 * n);
        c->tan = carve<float>(d, &at, m * 4 * n);
        c->ref_n = carve<float>(d, &at, m * 3 * n);
        c->ref_t = carve<float>(d, &at, m * 4 * n);
        c->face = carve<float>(d, &at, m * 12 * F);
        c->pose_n = carve<float>(d, &at, m * 3 * n);
        c->pose_t = carve<float>(d, &at, m * 4 * n);
        c->acc = carve<float>(d, &at, m * 9 * n);
        c->frames = carve<unsigned long long>(d, &at, m * SFC_FRAME_RECORDS);
        c->ref_ct = carve<float>(d, &at, m * 12 * F);
        c->ct_differ = carve<unsigned>(d, &at, m + 1); // a spare word: fused_inputs_same's flag
        for (int k = 0; k < SFC_ROW_SLOTS - 1; ++k) {
            c->row_nrm[k] = carve<float>(d, &at, m * 3 * n);
            c->row_tan[k] = carve<float>(d, &at, m * 4 * n);
        }
        c->h_bones = carve<float>(h, &h_at, m * 12 * t.bones);
        c->h_alpha = carve<float>(h, &h_at, m * t.targets);
        if (pass == 1) break;
        cudaError_t e = cudaMalloc(&c->instances_base, at ? at : 1);
        if (e == cudaSuccess && h_at) e = cudaMallocHost(&c->h_instances_base, h_at);
        if (e != cudaSuccess) {
            free_instances(c);
            return sfc_failed(err, c->instances_base ? "cudaMallocHost" : "cudaMalloc", e);
        }
    }
    c->cap = count;
    return SF_OK;
}

// The most instances one launch may take: what the free device memory holds, and 32-bit indices.
static sf_result instances_fit(sfi_cuda* c, size_t count, size_t* out, sf_error* err)
{
    size_t per = instance_bytes(c->t);
    if (c->fit == 0) {
        size_t free_b = 0, total_b = 0;
        SFC_CHECK(cudaMemGetInfo(&free_b, &total_b), err);
        size_t have = free_b > SFC_HEADROOM ? free_b - SFC_HEADROOM : 0;
        have += (size_t)c->cap * per; // what this workspace already holds can be reused
        c->fit = per ? have / per : SIZE_MAX;
        if (c->fit == 0) return too_big(err, "one instance", per, free_b, c->t.n, 1);
        size_t index_limit = c->t.n ? (size_t)UINT32_MAX / c->t.n : SIZE_MAX;
        if (c->fit > index_limit) c->fit = index_limit;
        if (c->fit > 65535) c->fit = 65535; // gridDim.y
    }
    *out = count < c->fit ? count : c->fit;
    return SF_OK;
}

static void free_stats(sfi_cuda* c)
{
    cudaFree(c->stats_base);
    c->stats_base = NULL;
    for (size_t k = 0; k < 2 * SF_METHOD_COUNT; ++k) memset(&c->stats[k], 0, sizeof c->stats[k]);
    cudaFreeHost(c->h_bins);
    cudaFreeHost(c->h_frames);
    c->h_frames = NULL;
    c->h_frames_cap = 0;
    c->clip_count = 0;
    sf_angle_accumulator_destroy(c->read_acc);
    c->read_acc = NULL;
    c->e_counts = NULL;
    c->row_counters = NULL;
    c->sparse_count = NULL;
    c->sparse_bin = NULL;
    c->sparse_entries = NULL;
    c->h_bins = NULL;
}

// The nonzero bins a series is read back as, where it has no more: half the bins, whose pairs (12 bytes) fit in
// h_bins after the counts; a series with more is read whole.
#define SFC_SPARSE_BINS ((size_t)SFK_ANGLE_BIN_COUNT / 4 * 2)

// The 8-byte words of the statistics' device buffers: per series its bins, counts, sums and the partials of any
// launch (SFC_ERROR_BLOCKS blocks), then the rows' summary counts and report counters, then one series' nonzero
// bins (counts, bin numbers, their number).
static size_t stats_words(void)
{
    return 2 * SF_METHOD_COUNT * (SFK_ANGLE_BIN_COUNT + SFC_STAT_COUNTS + 2 + 2 * (size_t)SFC_ERROR_BLOCKS) +
           SF_METHOD_COUNT * SFC_E_COUNTS + (SF_METHOD_COUNT + 1) * SFC_COUNTERS + SFC_SPARSE_BINS +
           SFC_SPARSE_BINS / 2 + 1;
}

// The statistics' device buffers in one allocation (with the workspace: a clip's primitives each hold theirs).
static sf_result ensure_stats(sfi_cuda* c, sf_error* err)
{
    if (c->stats_base) return SF_OK;
    SFC_CHECK(cudaMalloc(&c->stats_base, stats_words() * sizeof(unsigned long long)), err);
    unsigned long long* w = (unsigned long long*)c->stats_base;
    for (size_t k = 0; k < 2 * SF_METHOD_COUNT; ++k) {
        sfc_stats& st = c->stats[k];
        st.bins = w, w += SFK_ANGLE_BIN_COUNT;
        st.counts = w, w += SFC_STAT_COUNTS;
        st.sums = (double*)w, w += 2;
        st.partial = (double*)w, w += 2 * (size_t)SFC_ERROR_BLOCKS;
    }
    c->e_counts = w, w += SF_METHOD_COUNT * SFC_E_COUNTS;
    c->row_counters = w, w += (SF_METHOD_COUNT + 1) * SFC_COUNTERS;
    c->sparse_count = w, w += SFC_SPARSE_BINS;
    c->sparse_bin = (uint32_t*)w, w += SFC_SPARSE_BINS / 2;
    c->sparse_entries = (unsigned*)w;
    SFC_CHECK(cudaMallocHost((void**)&c->h_bins, SFK_ANGLE_BIN_COUNT * sizeof(unsigned long long)), err);
    return sf_angle_accumulator_create(NULL, &c->read_acc, err);
}

static void cuda_free(sfi_cuda* c)
{
    if (!c) return;
    free_instances(c);
    free_stats(c);
    for (int k = 0; k < 3; ++k) sfc_halo_free(&c->halo[k]);
    sfi_gpu_order_free(&c->order);
    free(c->h_order);
    for (size_t k = 0; k < c->mikk_parts; ++k) sf_workspace_destroy(c->mikk_ws[k]);
    cudaFreeHost(c->h_mikk);
    sfc_mikk_destroy(c->mikk_gpu);
    for (size_t k = 0; k < c->alloc_count; ++k) cudaFree(c->allocs[k]);
    cudaFree(c->counters);
    cudaFree(c->auth_n);
    cudaFree(c->auth_t);
    if (c->start) cudaEventDestroy(c->start);
    if (c->stop) cudaEventDestroy(c->stop);
    if (c->stream) cudaStreamDestroy(c->stream);
    free(c);
}

static void cuda_workspace_free(sf_workspace* ws)
{
    if (!ws) return;
    cuda_free(ws->cuda);
    ws->cuda = NULL;
}

// What cuda_workspace_init allocates (and ensure_instances for more instances), from the same sizes.
static size_t cuda_workspace_bytes(const sf_topology* topo, size_t instances)
{
    sfc_topo t;
    memset(&t, 0, sizeof t);
    t.n = (uint32_t)topo->vertex_count, t.F = (uint32_t)topo->triangle_count;
    t.bones = (uint32_t)topo->bone_count, t.targets = (uint32_t)topo->target_count;
    size_t n = topo->vertex_count, halo = sfi_cuda_halo_bytes(topo, -1);
    for (int w = 0; w < 2; ++w) // the blocks of every weld mode the topology has, as the reference builds them on use
        if (topo->weld[w].group) halo += sfi_cuda_halo_bytes(topo, w);
    return topology_bytes(topo) + SFC_COUNTERS * sizeof(unsigned long long) + 7 * n * sizeof(float) +
           instances * instance_bytes(t) + stats_words() * sizeof(unsigned long long) + halo;
}

extern "C" sf_result sfi_cuda_free_memory(size_t* free_bytes, sf_error* err)
{
    size_t total = 0;
    *free_bytes = 0;
    SFC_CHECK(cudaMemGetInfo(free_bytes, &total), err);
    return SF_OK;
}

// The device's order of c->topo by c->order_mode (the caller's where the Morton order cannot be allocated or, under
// AUTO, is no more local), then the topology uploaded in it.
static sf_result topology_in_order(sfi_cuda* c, sf_error* err)
{
    if (c->order_mode != SFI_CUDA_ORDER_AUTHORED) {
        sf_error ignored;
        if (sfi_gpu_order_build(c->topo, &c->order, &ignored) == SF_OK && c->order_mode == SFI_CUDA_ORDER_AUTO &&
            !(sfi_gpu_order_lines(c->topo, c->order.perm, c->order.inv) < sfi_gpu_order_lines(c->topo, NULL, NULL)))
            sfi_gpu_order_free(&c->order);
    }
    return upload_topology(c, c->topo, err);
}

extern "C" sf_result sfi_cuda_set_locality(sf_workspace* ws, sfi_cuda_order order, sf_error* err)
{
    if (!ws || !ws->cuda || ws->cuda->order_mode == order) return SF_OK;
    sfi_cuda* c = ws->cuda;
    SFC_CHECK(cudaStreamSynchronize(c->stream), err);
    for (size_t k = 0; k < c->alloc_count; ++k) cudaFree(c->allocs[k]);
    c->alloc_count = 0, c->topo_bytes = 0;
    for (int k = 0; k < 3; ++k) sfc_halo_free(&c->halo[k]), c->halo_refused[k] = 0;
    sfi_gpu_order_free(&c->order);
    free(c->h_order);
    c->h_order = NULL, c->h_order_floats = 0;
    c->auth_cached = 0;
    sfc_mikk_destroy(c->mikk_gpu); // its groups are numbered in the old order
    c->mikk_gpu = NULL;
    c->order_mode = order;
    memset(&c->t, 0, sizeof c->t);
    return topology_in_order(c, err);
}

static sf_result cuda_workspace_init(sf_workspace* ws, sf_error* err)
{
    sfi_cuda* c = (sfi_cuda*)calloc(1, sizeof *c);
    if (!c) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "workspace", SFI_NO_INDEX, "cuda state");
    ws->cuda = c;
    c->topo = ws->topo;
    c->order_mode = SFI_CUDA_ORDER_AUTO;
    SFC_CHECK(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking), err);
    SFC_CHECK(cudaEventCreate(&c->start), err);
    SFC_CHECK(cudaEventCreate(&c->stop), err);
    SFC_CHECK(cudaMalloc((void**)&c->counters, SFC_COUNTERS * sizeof(unsigned long long)), err);
    sf_result r = topology_in_order(c, err);
    if (r != SF_OK) return r;
    size_t n = ws->topo->vertex_count;
    r = dev_alloc(&c->auth_n, 3 * n, err);
    if (r == SF_OK) r = dev_alloc(&c->auth_t, 4 * n, err);
    if (r == SF_OK) r = ensure_instances(c, 1, err);
    if (r == SF_OK) r = ensure_stats(c, err); // so that an evaluation's runs allocate nothing
    return r;
}

// ---------------------------------------------------------------- poses and frames

// Bound on how much a pose's bones stretch lengths (the largest row sum of |A|), at least 1.
static float bone_scale(const sf_topology* topo, const float* m)
{
    float s = 1.0f;
    for (size_t b = 0; b < topo->bone_count; ++b) {
        if (!topo->bone_used[b]) continue;
        const float* a = m + 12 * b;
        for (int i = 0; i < 3; ++i) {
            float r = fabsf(a[i]) + fabsf(a[3 + i]) + fabsf(a[6 + i]);
            if (r > s) s = r;
        }
    }
    return s;
}

static sf_result upload_poses(sfi_cuda* c, const sf_topology* topo, const sf_pose* poses, uint32_t count, sf_error* err)
{
    sf_result r = ensure_instances(c, count, err);
    if (r != SF_OK) return r;
    size_t B = topo->bone_count, T = topo->target_count;
    c->with_alpha = 0;
    c->pose_scale = 1.0f;
    for (uint32_t i = 0; i < count; ++i) {
        if (B) {
            memcpy(c->h_bones + 12 * B * i, poses[i].bone_matrices, 12 * B * sizeof(float));
            float s = bone_scale(topo, poses[i].bone_matrices);
            if (s > c->pose_scale) c->pose_scale = s;
        }
        if (T) {
            if (poses[i].morph_weights) {
                memcpy(c->h_alpha + T * i, poses[i].morph_weights, T * sizeof(float));
                c->with_alpha = 1;
            } else {
                memset(c->h_alpha + T * i, 0, T * sizeof(float));
            }
        }
    }
    if (B)
        SFC_CHECK(
            cudaMemcpyAsync(c->bones, c->h_bones, 12 * B * count * sizeof(float), cudaMemcpyHostToDevice, c->stream),
            err);
    if (T && c->with_alpha)
        SFC_CHECK(cudaMemcpyAsync(c->alpha, c->h_alpha, T * count * sizeof(float), cudaMemcpyHostToDevice, c->stream),
                  err);
    c->count = count;
    return SF_OK;
}

static sfc_batch batch_of(const sfi_cuda* c)
{
    sfc_batch b;
    b.count = c->count;
    b.bones = c->t.bones ? c->bones : NULL;
    b.alpha = c->with_alpha ? c->alpha : NULL;
    b.bone_stride = 12 * (size_t)c->t.bones;
    b.alpha_stride = c->t.targets;
    return b;
}

static int weld_index(sf_weld w) { return w == SF_WELD_NONE ? -1 : (w == SF_WELD_POSITION ? 0 : 1); }

static sf_result deform(sfi_cuda* c, sf_error* err)
{
    sfc_batch b = batch_of(c);
    return sfc_vertex_frames(&c->t, &b, SF_METHOD_UNCHANGED, 0, 0.0f, c->pos, c->det, NULL, NULL, NULL, c->stream, err);
}

// The locality blocks of a weld mode, built on first use; *ready is 0, then and after, where a vertex's one-ring is
// over a block's budget (SFI_CUDA_HALO_FACES faces, SFI_CUDA_HALO_LOCALS vertices) or the device's shared memory.
static sf_result halo_ready(sfi_cuda* c, int weld, int* ready, sf_error* err)
{
    sfc_halo* h = &c->halo[weld + 1];
    if (!h->base && !c->halo_refused[weld + 1]) {
        sf_result r = sfc_halo_upload(c->topo, weld, c->order.inv, h, err);
        if (r == SF_ERROR_UNSUPPORTED) {
            c->halo_refused[weld + 1] = 1;
            sf_error_clear(err);
        } else if (r != SF_OK) {
            return r;
        }
    }
    *ready = !c->halo_refused[weld + 1];
    return SF_OK;
}

// The rebuilt frames of the current positions (c->pos, c->det) into nrm / tan by variant; the one-pass
// variant skins the positions itself (writing c->pos and c->det). Where the halo blocks cannot be built, the
// halo variants run as face-gather, the same bits another way (the one pass after its own deform).
static sf_result rebuild(sfi_cuda* c, const sf_frames_opts* o, sfi_cuda_recompute variant, uint32_t count, float* nrm,
                         float* tan, sf_error* err)
{
    const sfc_topo* t = &c->t;
    int weld = weld_index(o->weld), weighting = (int)o->weighting;
    sfc_batch b = batch_of(c);
    b.count = count;
    if (variant == SFI_CUDA_HALO_GATHER || variant == SFI_CUDA_ONE_PASS) {
        int ready = 0;
        sf_result r = halo_ready(c, weld, &ready, err);
        if (r != SF_OK) return r;
        const sfc_halo* h = &c->halo[weld + 1];
        if (ready && variant == SFI_CUDA_HALO_GATHER)
            return sfc_halo_gather(t, h, count, c->pos, c->det, weld, weighting, nrm, tan, c->stream, err);
        if (ready) return sfc_halo_one_pass(t, h, &b, weld, weighting, c->pos, c->det, nrm, tan, c->stream, err);
        if (variant == SFI_CUDA_ONE_PASS && (r = deform(c, err)) != SF_OK) return r;
        variant = SFI_CUDA_FACE_GATHER;
    }
    switch (variant) {
    case SFI_CUDA_GATHER: return sfc_gather_direct(t, count, c->pos, c->det, weld, weighting, nrm, tan, c->stream, err);
    case SFI_CUDA_SCATTER_FIXED:
    case SFI_CUDA_SCATTER_FLOAT:
        return sfc_scatter(t, count, c->pos, c->det, weld, weighting, variant == SFI_CUDA_SCATTER_FIXED,
                           2.0f * c->pose_scale, c->acc, nrm, tan, c->stream, err);
    case SFI_CUDA_ONE_PASS_NAIVE:
        return sfc_one_pass(t, &b, 0, weld, weighting, c->pos, c->det, nrm, tan, c->stream, err);
    default: {
        sf_result r = sfc_faces(t, count, c->pos, c->det, weighting, c->face, c->stream, err);
        return r == SF_OK ? sfc_gather(t, count, c->face, weld, weighting, nrm, tan, c->stream, err) : r;
    }
    }
}

static bool mikk_reference(const sf_topology* topo, sf_method method, const sf_frames_opts* o);

#define SFC_FUSED_ROWS_BELOW 1000000u

// The methods whose kernels count the frames report as they make the frames (and write no determinants).
static bool counts_own_report(sf_method m)
{
    return sf_method_traits_of(m).cost != SF_COST_GATHER; // the per-vertex kernels (k_vertex, k_method)
}

// One method for the uploaded instances into nrm / tan. pos: where the counts_own_report methods write the
// positions (c->pos, or NULL: none); the recompute methods write c->pos and their determinants c->det. report:
// the counters the counts_own_report methods count into (NULL = none); the others are counted afterwards by
// sfc_report.
static sf_result run_method(sfi_cuda* c, const sf_topology* topo, sf_method method, const sf_frames_opts* o,
                            sfi_cuda_recompute variant, float* pos, float* nrm, float* tan,
                            unsigned long long* report, sf_error* err)
{
    const sfc_topo* t = &c->t;
    sfc_batch b = batch_of(c);
    int with_dirs = (int)o->morph_directions; // SFK_MORPH_DIRS_* are the public values
    if (method == SF_METHOD_JACOBIAN) {
        SF_CHECK(topo->gradients != NULL, SF_ERROR_UNSUPPORTED, err, "topology", SFI_NO_INDEX,
                 "built with skip_gradients = 1; the jacobian method needs its gradients");
        SF_CHECK(isfinite(o->jacobian_cap) && o->jacobian_cap >= 0.0f, SF_ERROR_INVALID_ARGUMENT, err,
                 "opts.jacobian_cap", SFI_NO_INDEX, "%g, need a finite value >= 0 (0 = off)", (double)o->jacobian_cap);
        return sfc_vertex_frames(t, &b, method, with_dirs, o->jacobian_cap, pos, NULL, nrm, tan, report, c->stream,
                                 err);
    }
    // the per-vertex formulas of sfk_vertex_frame (bone-normal-matrices reads the bones themselves: k_method)
    if (sf_method_traits_of(method).per_vertex && method != SF_METHOD_BONE_NORMAL_MATRICES)
        return sfc_vertex_frames(t, &b, method, with_dirs, 0.0f, pos, NULL, nrm, tan, report, c->stream, err);
    if (method == SF_METHOD_JACOBIAN_FAN) {
        SF_CHECK(topo->fan_gradients != NULL, SF_ERROR_UNSUPPORTED, err, "topology", SFI_NO_INDEX,
                 "built with skip_gradients = 1; the jacobian-fan method needs its gradients");
        SF_CHECK(isfinite(o->jacobian_cap) && o->jacobian_cap >= 0.0f, SF_ERROR_INVALID_ARGUMENT, err,
                 "opts.jacobian_cap", SFI_NO_INDEX, "%g, need a finite value >= 0 (0 = off)", (double)o->jacobian_cap);
    }
    if (method == SF_METHOD_BONE_NORMAL_MATRICES || method == SF_METHOD_JACOBIAN_FAN)
        return sfc_method_frames(t, &b, method, with_dirs, o->jacobian_cap, pos, NULL, nrm, tan, report, c->stream,
                                 err);
    if (!(sf_method_traits_of(method).backends & (1u << SF_BACKEND_CUDA)) ||
        (method != SF_METHOD_RECOMPUTE && method != SF_METHOD_RECOMPUTE_FUSED)) // not (yet) on the GPU: refused
        return sf_error_set(err, SF_ERROR_UNSUPPORTED, "method", SFI_NO_INDEX, "cuda: `%s` has no GPU form yet",
                            sf_method_name(method));
    int weld = weld_index(o->weld);
    SF_CHECK(weld < 0 || topo->weld[weld].group != NULL, SF_ERROR_UNSUPPORTED, err, "opts.weld", SFI_NO_INDEX,
             "weld groups were not built for this topology");
    // recompute-fused: the halo one pass (each block skins its one-rings once in shared memory, then gathers) is
    // recompute's bits in one launch; where the blocks cannot hold a one-ring, each vertex skins its own ring
    if (method == SF_METHOD_RECOMPUTE_FUSED && o->reference != SF_REFERENCE_AUTHORED) {
        int ready = 0;
        sf_result r = halo_ready(c, weld, &ready, err);
        if (r != SF_OK) return r;
        if (ready) return rebuild(c, o, SFI_CUDA_ONE_PASS, c->count, nrm, tan, err);
        return sfc_recompute_fused(t, &b, weld, (int)o->weighting, !mikk_reference(topo, method, o), c->pos, c->det,
                                   nrm, tan, c->stream, err);
    }
    // recompute, and recompute-fused's authored reference (two-pass, as on the CPU)
    if (o->reference == SF_REFERENCE_AUTHORED) {
        SF_CHECK(o->tangents != SF_TANGENTS_MIKKTSPACE || !topo->has_uvs, SF_ERROR_UNSUPPORTED, err, "opts.tangents",
                 SFI_NO_INDEX, "cuda: the authored reference over MikkTSpace tangents runs on the CPU backend only");
        sf_result r = deform(c, err);
        sf_frames_opts ro = *o;
        ro.reference = SF_REFERENCE_REBUILT;
        if (r == SF_OK && (!c->auth_cached || c->auth_opts.weighting != ro.weighting || c->auth_opts.weld != ro.weld)) {
            // the rest rebuild: rest positions, unit determinants, instance 0's face scratch
            r = sfc_faces(t, 1, t->rest_p, t->ones, (int)ro.weighting, c->face, c->stream, err);
            if (r == SF_OK)
                r = sfc_gather(t, 1, c->face, weld, (int)ro.weighting, c->auth_n, c->auth_t, c->stream, err);
            c->auth_cached = r == SF_OK;
            c->auth_opts = ro;
        }
        if (r == SF_OK) r = rebuild(c, &ro, SFI_CUDA_FACE_GATHER, c->count, c->pose_n, c->pose_t, err);
        if (r == SF_OK)
            r = sfc_authored(t, c->count, c->auth_n, c->auth_t, c->pose_n, c->pose_t, c->pos, nrm, tan, c->stream, err);
        return r;
    }
    sf_result r = variant == SFI_CUDA_ONE_PASS || variant == SFI_CUDA_ONE_PASS_NAIVE ? SF_OK : deform(c, err);
    return r == SF_OK ? rebuild(c, o, variant, c->count, nrm, tan, err) : r;
}

// MikkTSpace on the host for instances [first, first + count) of a round, the parts over the threads, each part on
// its own CPU workspace (the scratch MikkTSpace keeps between frames).
typedef struct mikk_round {
    sfi_cuda* c;
    const sf_topology* topo;
    float *pos, *det, *nrm;       // the round's host copies, in the device's order until mikk_part moves them
    float *tan, *ct;              // its outputs: per-vertex tangents, corner tangents (NULL: none)
    size_t first, count, parts;
    const sf_frames_out* outs; // the caller's outputs by instance, or NULL
    uint8_t* mask;             // where not NULL: 1 for an instance whose groups the device's are (its sums left there)
    sf_result results[SFC_MIKK_PARTS];
    sf_error errors[SFC_MIKK_PARTS];
} mikk_round;

static void mikk_part(void* ctx, size_t begin, size_t end)
{
    mikk_round* j = (mikk_round*)ctx;
    const sf_topology* topo = j->topo;
    size_t n = topo->vertex_count, C = 3 * topo->triangle_count;
    for (size_t k = begin; k < end; ++k) {
        if (!j->c->mikk_ws[k]) { // made in its part, so that the parts' workspaces are made at once
            uint64_t t0 = sfc_profile_start();
            sf_workspace_opts wo = {1u << SF_METHOD_RECOMPUTE, SF_BACKEND_CPU};
            j->results[k] = sf_workspace_create(topo, &wo, &j->c->mikk_ws[k], &j->errors[k]);
            sfc_profile_stop(SFC_PROF_PART_CREATE, t0);
            if (j->results[k] != SF_OK) continue;
        }
        sf_workspace* w = j->c->mikk_ws[k];
        float* scratch = j->c->order.perm ? order_scratch(j->c, k) : NULL;
        sf_result r = SF_OK;
        for (size_t i = j->count * k / j->parts; r == SF_OK && i < j->count * (k + 1) / j->parts; ++i) {
            float *det = j->det + n * i, *pos = j->pos + 3 * n * i, *nrm = j->nrm + 3 * n * i;
            float* tan = j->tan + 4 * n * i;
            uint64_t t0 = sfc_profile_start();
            rows_to_caller(j->c, scratch, pos, 3); // MikkTSpace reads the caller's order
            rows_to_caller(j->c, scratch, det, 1);
            rows_to_caller(j->c, scratch, nrm, 3);
            memcpy(w->det, det, n * sizeof(float));
            sfc_profile_stop(SFC_PROF_PART_ORDER, t0);
            if (j->mask) { // the graph here, the sums on the device where its groups are this frame's
                sfi_mikk_groups g;
                t0 = sfc_profile_start();
                r = sfi_mikktspace_prepare(topo, pos, nrm, w, &g, &j->errors[k]);
                sfc_profile_stop(SFC_PROF_PART_PREPARE, t0);
                t0 = sfc_profile_start();
                j->mask[i] = r == SF_OK && sfc_mikk_covers(j->c->mikk_gpu, k, &g);
                sfc_profile_stop(SFC_PROF_PART_COVERS, t0);
                if (r == SF_OK && j->mask[i]) continue;
                t0 = sfc_profile_start();
                if (r == SF_OK) r = sfi_mikktspace_tangents_prepared(topo, pos, nrm, w, tan, &j->errors[k]);
                sfc_profile_stop(SFC_PROF_PART_SUMS, t0);
            } else {
                t0 = sfc_profile_start();
                r = sfi_mikktspace_tangents(topo, pos, nrm, w, tan, &j->errors[k]);
                sfc_profile_stop(SFC_PROF_PART_SUMS, t0);
            }
            if (r != SF_OK) break;
            const sf_frames_out* o = j->outs ? &j->outs[j->first + i] : NULL;
            if (o && o->tangents) memcpy(o->tangents, tan, 4 * n * sizeof(float));
            const float* corners = j->ct ? sfi_mikktspace_corner_tangents(w) : NULL;
            for (size_t c = 0; corners && c < C; ++c) { // w as the per-vertex output's (evaluate.c's take_corners)
                float* t = j->ct + 4 * (C * i + c);
                memcpy(t, corners + 4 * c, 4 * sizeof(float));
                t[3] = sfk_mikk_vertex_w(t[3], topo->bitangent_sign, det[topo->indices[c]]);
            }
            rows_to_device(j->c, scratch, tan, 4); // the upload's order
            if (j->ct) corners_to_device(j->c, scratch, j->ct + 4 * (C * i));
        }
        j->results[k] = r;
    }
}

// The staging for rounds of `round` instances in `parts` parts and part 0's host workspace (the device's groups
// are built on it); the other parts make theirs in mikk_part.
static sf_result ensure_mikk(sfi_cuda* c, const sf_topology* topo, size_t round, size_t parts, bool corners,
                             sf_error* err)
{
    size_t n = topo->vertex_count, C = 3 * topo->triangle_count;
    size_t floats = round * (11 * n + (corners ? 4 * C : 0));
    if (floats > c->h_mikk_floats) {
        cudaFreeHost(c->h_mikk);
        c->h_mikk = NULL;
        if (cudaMallocHost(&c->h_mikk, floats * sizeof(float)) != cudaSuccess) c->h_mikk = NULL;
        c->h_mikk_floats = c->h_mikk ? floats : 0;
        if (!c->h_mikk)
            return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "workspace", SFI_NO_INDEX,
                                "MikkTSpace staging for %zu instances of %zu vertices", round, n);
    }
    sf_workspace_opts wo = {1u << SF_METHOD_RECOMPUTE, SF_BACKEND_CPU};
    if (!c->mikk_ws[0]) {
        sf_result r = sf_workspace_create(topo, &wo, &c->mikk_ws[0], err);
        if (r != SF_OK) return r;
    }
    if (c->mikk_parts < parts) c->mikk_parts = parts;
    return SF_OK;
}

// The device's MikkTSpace groups, set once from the first frame of a round (the host's graph of its positions and
// normals, on part 0's workspace) when none are set yet; a mesh whose first frame's groups the device cannot take
// (degenerate triangles) stays on the host.
static sf_result mikk_gpu_ready(sfi_cuda* c, const sf_topology* topo, const float* h_pos, const float* h_nrm,
                                size_t round, sf_error* err)
{
    if (c->mikk_gpu || round == 0) return SF_OK;
    sfi_mikk_groups g;
    sf_result r = sfi_mikktspace_prepare(topo, h_pos, h_nrm, c->mikk_ws[0], &g, err);
    return r == SF_OK ? sfc_mikk_set(&c->mikk_gpu, topo, c->order.perm ? &c->order : NULL, &g, c->stream, err) : r;
}

// MikkTSpace tangents on the CPU from the GPU's positions and normals (every instance), then back to the device:
// per vertex into tan and, with ct, per corner into ct. Instances go in rounds (one copy each way), a round's
// instances in parts over the threads. outs: the caller's outputs (NULL = none).
static sf_result mikktspace_on_host(sfi_cuda* c, const sf_topology* topo, const float* nrm, float* tan, float* ct,
                                    const sf_frames_out* outs, sf_error* err)
{
    size_t n = topo->vertex_count, C = 3 * topo->triangle_count, count = c->count;
    size_t per = 11 * n + (ct ? 4 * C : 0); // an instance's staging (ensure_mikk)
    size_t most = SFC_MIKK_ROUND / (per ? per : 1), round = most < 1 ? 1 : most > count ? count : most;
    // the staging and the device's round scratch held for the rounds of a reserved batch, so that its batches
    // allocate nothing
    size_t batch = count > c->reserved ? count : c->reserved, hold = most < 1 ? 1 : most > batch ? batch : most;
    size_t parts = round < SFC_MIKK_PARTS ? round : SFC_MIKK_PARTS;
    uint64_t t_all = sfc_profile_start(), t0 = t_all;
    sf_result r = ensure_mikk(c, topo, hold, parts, ct != NULL, err);
    sfc_profile_stop(SFC_PROF_MIKK_ALLOC, t0);
    if (r != SF_OK) return r;
    float *h_pos = c->h_mikk, *h_det = h_pos + 3 * n * round, *h_nrm = h_det + n * round, *h_tan = h_nrm + 3 * n * round;
    float* h_ct = ct ? h_tan + 4 * n * round : NULL;
    for (size_t first = 0; first < count; first += round) {
        size_t m = count - first < round ? count - first : round;
        t0 = sfc_profile_start();
        if (t0) { // profiled: the device's earlier work apart from the read back
            SFC_CHECK(cudaStreamSynchronize(c->stream), err);
            sfc_profile_stop(SFC_PROF_MIKK_WAIT, t0);
            t0 = sfc_profile_start();
        }
        SFC_CHECK(cudaMemcpyAsync(h_pos, c->pos + 3 * n * first, 3 * n * m * sizeof(float), cudaMemcpyDeviceToHost,
                                  c->stream),
                  err);
        SFC_CHECK(cudaMemcpyAsync(h_det, c->det + n * first, n * m * sizeof(float), cudaMemcpyDeviceToHost, c->stream),
                  err);
        SFC_CHECK(cudaMemcpyAsync(h_nrm, nrm + 3 * n * first, 3 * n * m * sizeof(float), cudaMemcpyDeviceToHost,
                                  c->stream),
                  err);
        SFC_CHECK(cudaStreamSynchronize(c->stream), err);
        sfc_profile_stop(SFC_PROF_MIKK_READ, t0);
        t0 = sfc_profile_start();
        r = order_staging(c, parts, err);
        if (r != SF_OK) return r;
        if (!c->mikk_gpu && m) { // the device's groups come from the first instance, in the caller's order
            rows_to_caller(c, c->h_order, h_pos, 3);
            rows_to_caller(c, c->h_order, h_nrm, 3);
            r = mikk_gpu_ready(c, topo, h_pos, h_nrm, round, err);
            rows_to_device(c, c->h_order, h_pos, 3);
            rows_to_device(c, c->h_order, h_nrm, 3);
        }
        if (r != SF_OK) return r;
        uint8_t* mask = sfc_mikk_valid(c->mikk_gpu) ? sfc_mikk_mask(c->mikk_gpu, (uint32_t)hold, err) : NULL;
        if (sfc_mikk_valid(c->mikk_gpu) && !mask) return err ? err->result : SF_ERROR_OUT_OF_MEMORY;
        sfc_profile_stop(SFC_PROF_MIKK_SETUP, t0);
        t0 = sfc_profile_start();
        mikk_round job;
        job.c = c, job.topo = topo, job.pos = h_pos, job.det = h_det, job.nrm = h_nrm, job.tan = h_tan, job.ct = h_ct;
        job.first = first, job.count = m, job.parts = m < parts ? m : parts, job.outs = outs, job.mask = mask;
        sf_env_parallel_for(&topo->env, job.parts, 1, mikk_part, &job);
        sfc_profile_stop(SFC_PROF_MIKK_HOST, t0);
        t0 = sfc_profile_start();
        for (size_t k = 0; k < job.parts; ++k)
            if (job.results[k] != SF_OK) {
                if (err) *err = job.errors[k];
                return job.results[k];
            }
        // the host's instances up (in the device's order, mikk_part) in runs, then the device's sums for the others
        for (size_t a = 0, b; a < m; a = b) {
            for (b = a + 1; b < m && (mask ? mask[b] : 0) == (mask ? mask[a] : 0);) ++b;
            if (mask && mask[a]) continue;
            SFC_CHECK(cudaMemcpyAsync(tan + 4 * n * (first + a), h_tan + 4 * n * a, 4 * n * (b - a) * sizeof(float),
                                      cudaMemcpyHostToDevice, c->stream),
                      err);
            if (ct)
                SFC_CHECK(cudaMemcpyAsync(ct + 4 * C * (first + a), h_ct + 4 * C * a, 4 * C * (b - a) * sizeof(float),
                                          cudaMemcpyHostToDevice, c->stream),
                          err);
        }
        c->mikk_frames += m;
        for (size_t i = 0; mask && i < m; ++i) c->mikk_on_device += mask[i];
        if (mask) {
            r = sfc_mikk_run(c->mikk_gpu, &c->t, (uint32_t)m, c->pos + 3 * n * first, nrm + 3 * n * first,
                             c->det + n * first, tan + 4 * n * first, ct ? ct + 4 * C * first : NULL, c->stream, err);
            if (r != SF_OK) return r;
        }
        for (size_t i = 0; mask && outs && i < m; ++i) // the caller's tangents of the device's instances
            if (mask[i] && outs[first + i].tangents)
                SFC_CHECK(cudaMemcpyAsync(outs[first + i].tangents, tan + 4 * n * (first + i), 4 * n * sizeof(float),
                                          cudaMemcpyDeviceToHost, c->stream),
                          err);
        sfc_profile_stop(SFC_PROF_MIKK_ENQUEUE, t0);
        t0 = sfc_profile_start();
        SFC_CHECK(cudaStreamSynchronize(c->stream), err); // the staging serves the next round
        sfc_profile_stop(SFC_PROF_MIKK_DEVICE, t0);
        for (size_t i = 0; mask && outs && i < m; ++i)
            if (mask[i]) rows_to_caller(c, c->h_order, outs[first + i].tangents, 4);
    }
    sfc_profile_stop(SFC_PROF_MIKK_ALL, t_all);
    return SF_OK;
}

static bool mikk_reference(const sf_topology* topo, sf_method method, const sf_frames_opts* o)
{
    return (method == SF_METHOD_RECOMPUTE || method == SF_METHOD_RECOMPUTE_FUSED) && o->tangents == SF_TANGENTS_MIKKTSPACE &&
           o->reference == SF_REFERENCE_REBUILT && topo->has_uvs && topo->triangle_count > 0;
}

static sf_result reset_counters(sfi_cuda* c, sf_error* err)
{
    SFC_CHECK(cudaMemsetAsync(c->counters, 0, SFC_COUNTERS * sizeof(unsigned long long), c->stream), err);
    SFC_CHECK(cudaMemsetAsync(c->counters + SFC_FIRST_BAD, 0xff, sizeof(unsigned long long), c->stream), err);
    return SF_OK;
}

static sf_result cuda_frames_batch(const sf_topology* topo, const sf_pose* poses, size_t count, sf_method method,
                                   const sf_frames_opts* opts, sf_workspace* ws, const sf_frames_out* outs,
                                   sf_error* err)
{
    sfi_cuda* c = ws->cuda;
    if (!c) return sf_error_set(err, SF_ERROR_INVALID_ARGUMENT, "workspace", SFI_NO_INDEX, "has no CUDA state");
    size_t n = topo->vertex_count;
    memset(&ws->report, 0, sizeof ws->report);
    unsigned long long total[SFC_COUNTERS];
    memset(total, 0, sizeof total);
    bool want_n = false, want_t = false;
    for (size_t i = 0; i < count; ++i) want_n |= outs[i].normals != NULL, want_t |= outs[i].tangents != NULL;
    uint32_t two_pass = 0;
    if (method == SF_METHOD_RECOMPUTE_FUSED) {
        sf_result r = sfi_fused_two_pass(topo, opts, ws, want_t, &two_pass, err);
        if (r != SF_OK) return r;
    }
    for (size_t start = 0; start < count;) {
        size_t m = 0;
        sf_result r = instances_fit(c, count - start, &m, err);
        if (r == SF_OK) r = upload_poses(c, topo, poses + start, (uint32_t)m, err);
        if (r == SF_OK) r = reset_counters(c, err);
        if (r == SF_OK) r = run_method(c, topo, method, opts, c->variant, c->pos, c->nrm, c->tan, c->counters, err);
        if (r == SF_OK && want_t && mikk_reference(topo, method, opts))
            r = mikktspace_on_host(c, topo, c->nrm, c->tan, NULL, outs + start, err);
        if (r == SF_OK && !counts_own_report(method))
            r = sfc_report(&c->t, (uint32_t)m, method, c->pos, c->det, c->nrm, c->tan, c->counters, c->stream, err);
        if (r != SF_OK) return r;
        unsigned long long got[SFC_COUNTERS];
        SFC_CHECK(cudaMemcpyAsync(got, c->counters, sizeof got, cudaMemcpyDeviceToHost, c->stream), err);
        for (size_t i = 0; i < m; ++i) {
            const sf_frames_out* o = &outs[start + i];
            if (o->positions)
                SFC_CHECK(cudaMemcpyAsync(o->positions, c->pos + 3 * n * i, 3 * n * sizeof(float),
                                          cudaMemcpyDeviceToHost, c->stream),
                          err);
            if (o->normals)
                SFC_CHECK(cudaMemcpyAsync(o->normals, c->nrm + 3 * n * i, 3 * n * sizeof(float), cudaMemcpyDeviceToHost,
                                          c->stream),
                          err);
            if (o->tangents && !mikk_reference(topo, method, opts))
                SFC_CHECK(cudaMemcpyAsync(o->tangents, c->tan + 4 * n * i, 4 * n * sizeof(float),
                                          cudaMemcpyDeviceToHost, c->stream),
                          err);
        }
        SFC_CHECK(cudaStreamSynchronize(c->stream), err);
        r = order_staging(c, 1, err);
        if (r != SF_OK) return r;
        for (size_t i = 0; i < m; ++i) {
            const sf_frames_out* o = &outs[start + i];
            rows_to_caller(c, c->h_order, o->positions, 3);
            rows_to_caller(c, c->h_order, o->normals, 3);
            if (!mikk_reference(topo, method, opts)) rows_to_caller(c, c->h_order, o->tangents, 4);
        }
        if (got[SFC_NONFINITE]) {
            size_t bad = caller_vertex(c, (size_t)(got[SFC_FIRST_BAD] % (n ? n : 1)));
            return sf_error_set(err, SF_ERROR_TOO_LARGE, "out", bad,
                                "`%s` came out non-finite at vertex %zu of instance %llu on the GPU: a magnitude "
                                "bound is missing (please report)",
                                sf_method_name(method), bad, start + got[SFC_FIRST_BAD] / (n ? n : 1));
        }
        for (int k = 0; k < SFC_COUNTERS; ++k) total[k] += got[k];
        start += m;
    }
    ws->report.mirrored_vertices = (size_t)total[SFC_MIRRORED];
    ws->report.singular_vertices = method == SF_METHOD_INVERSE_TRANSPOSE ? (size_t)total[SFC_SINGULAR] : 0;
    ws->report.degenerate_normals = want_n ? (size_t)total[SFC_DEGENERATE_N] : 0;
    ws->report.degenerate_tangents = want_t ? (size_t)total[SFC_DEGENERATE_T] : 0;
    ws->report.jacobian_capped = sfi_method_uses_gradients(method) ? (size_t)total[SFC_CAPPED] : 0;
    ws->report.fused_two_pass = two_pass;
    return SF_OK;
}

// One pose is a batch of one; the device deforms in the same launch, so `deformed` changes nothing.
static sf_result cuda_frames(const sf_topology* topo, const sf_pose* pose, sf_method method, const sf_frames_opts* opts,
                             sf_workspace* ws, const sf_frames_out* out, int deformed, sf_error* err)
{
    (void)deformed;
    return cuda_frames_batch(topo, pose, 1, method, opts, ws, out, err);
}

// ---------------------------------------------------------------- evaluation on the device

// The rows' series are consecutive in the statistics' allocation (ensure_stats): one memset zeroes them, one
// strided memset sets each series' minimum to its largest key, one zeroes the summary counts.
static sf_result reset_stats(sfi_cuda* c, size_t rows, sf_error* err)
{
    if (rows == 0) return SF_OK;
    const sfc_stats& s0 = c->stats[0];
    size_t series_bytes = (size_t)((const char*)c->stats[1].bins - (const char*)s0.bins);
    SFC_CHECK(cudaMemsetAsync(s0.bins, 0, 2 * rows * series_bytes, c->stream), err);
    SFC_CHECK(cudaMemset2DAsync(s0.counts + SFC_MIN_BITS, series_bytes, 0xff, sizeof(unsigned long long), 2 * rows,
                                c->stream),
              err);
    SFC_CHECK(cudaMemsetAsync(c->e_counts, 0, SF_METHOD_COUNT * SFC_E_COUNTS * sizeof(unsigned long long), c->stream),
              err);
    return SF_OK;
}

// One evaluation of the uploaded instances: reference into ref_n/ref_t, each row into nrm/tan, its angles
// into the row's series.
// The report of one method's frames added to slot k of the rows' counters.
static sf_result count_report(sfi_cuda* c, size_t k, sf_method method, const float* n, const float* t, sf_error* err)
{
    if (!counts_own_report(method)) {
        sf_result r = sfc_report(&c->t, c->count, method, c->pos, c->det, n, t, c->counters, c->stream, err);
        if (r != SF_OK) return r;
    }
    SFC_CHECK(cudaMemcpyAsync(c->row_counters + SFC_COUNTERS * k, c->counters,
                              SFC_COUNTERS * sizeof(unsigned long long), cudaMemcpyDeviceToDevice, c->stream),
              err);
    return SF_OK;
}

// An evaluation's frame slots: nrm / tan, then the row buffers.
static float* slot_nrm(sfi_cuda* c, uint32_t slot) { return slot ? c->row_nrm[slot - 1] : c->nrm; }
static float* slot_tan(sfi_cuda* c, uint32_t slot) { return slot ? c->row_tan[slot - 1] : c->tan; }

// Rows ks (up to SFC_ROW_SLOTS of unchanged, skinned, inverse-transpose) from one deform: their frames in the
// slots, their reports into their slots of the rows' counters, then each row's angles into its series.
static sf_result vertex_rows(sfi_cuda* c, const sf_method* methods, const size_t* ks, size_t nv,
                             const sf_frames_opts* mo, int with_report, const sfc_corners* cn, sf_error* err)
{
    sfc_vertex_rows vr;
    memset(&vr, 0, sizeof vr);
    vr.count = (uint32_t)nv;
    for (size_t j = 0; j < nv; ++j) {
        vr.method[j] = (int)methods[ks[j]];
        vr.nrm[j] = slot_nrm(c, (uint32_t)j);
        vr.tan[j] = slot_tan(c, (uint32_t)j);
        if (with_report) {
            unsigned long long* rc = c->row_counters + SFC_COUNTERS * ks[j];
            SFC_CHECK(cudaMemsetAsync(rc, 0, SFC_COUNTERS * sizeof(unsigned long long), c->stream), err);
            SFC_CHECK(cudaMemsetAsync(rc + SFC_FIRST_BAD, 0xff, sizeof(unsigned long long), c->stream), err);
            vr.counters[j] = rc;
        }
    }
    sfc_batch b = batch_of(c);
    sf_result r = sfc_vertex_frames_rows(&c->t, &b, (int)mo->morph_directions, &vr, c->stream, err);
    for (size_t j = 0; r == SF_OK && j < nv; ++j) {
        size_t k = ks[j];
        r = sfc_errors(&c->t, c->count, vr.nrm[j], vr.tan[j], c->ref_n, c->ref_t, cn, &c->stats[2 * k],
                       &c->stats[2 * k + 1], c->e_counts + SFC_E_COUNTS * k, c->stream, err);
    }
    return r;
}

// The reference's MikkTSpace inputs (positions, determinants: the rows after it write theirs over them) kept for
// fused_inputs_same, in the authored reference's pose buffers (unused under the rebuilt reference MikkTSpace needs).
static sf_result keep_reference_inputs(sfi_cuda* c, sf_error* err)
{
    size_t n = c->t.n, count = c->count;
    SFC_CHECK(cudaMemcpyAsync(c->pose_n, c->pos, 3 * n * count * sizeof(float), cudaMemcpyDeviceToDevice, c->stream),
              err);
    SFC_CHECK(cudaMemcpyAsync(c->pose_t, c->det, n * count * sizeof(float), cudaMemcpyDeviceToDevice, c->stream), err);
    return SF_OK;
}

// Whether recompute-fused's MikkTSpace inputs (its positions, determinants and normals) are the reference's bit for
// bit in every instance: then its tangents are the reference's (MikkTSpace is a function of them) and are copied on
// the device, with no second pass on the host. *same is false for any other row, or where one instance differs.
static sf_result fused_inputs_same(sfi_cuda* c, const sf_topology* topo, sf_method m, bool* same, sf_error* err)
{
    *same = false;
    if (m != SF_METHOD_RECOMPUTE_FUSED || !c->corners || c->count == 0) return SF_OK;
    size_t n = topo->vertex_count;
    unsigned *differ = c->ct_differ, *any = c->ct_differ + c->cap; // the spare word after the instances' flags
    SFC_CHECK(cudaMemsetAsync(differ, 0, (c->cap + 1) * sizeof(unsigned), c->stream), err);
    sf_result r = sfc_bits_differ(c->count, 3 * n, c->pos, c->pose_n, differ, any, c->stream, err);
    if (r == SF_OK) r = sfc_bits_differ(c->count, n, c->det, c->pose_t, differ, any, c->stream, err);
    if (r == SF_OK) r = sfc_bits_differ(c->count, 3 * n, c->nrm, c->ref_n, differ, any, c->stream, err);
    if (r != SF_OK) return r;
    unsigned got = 1;
    SFC_CHECK(cudaMemcpyAsync(&got, any, sizeof got, cudaMemcpyDeviceToHost, c->stream), err);
    SFC_CHECK(cudaStreamSynchronize(c->stream), err);
    if (got) return SF_OK;
    SFC_CHECK(cudaMemcpyAsync(c->tan, c->ref_t, 4 * n * c->count * sizeof(float), cudaMemcpyDeviceToDevice, c->stream),
              err);
    *same = true;
    return SF_OK;
}

// A row of its own pass (bone-normal-matrices, jacobian-fan, recompute-fused over the reference's options; the other
// per-vertex methods above SFC_FUSED_ROWS_BELOW but those vertex_rows takes): its frames into c->nrm / c->tan, its
// report into slot k, its angles into the row's series.
static sf_result own_row(sfi_cuda* c, sf_workspace* ws, const sf_topology* topo, size_t k, sf_method m,
                         const sf_frames_opts* mo, const sf_frames_opts* ro, int with_report, sf_error* err)
{
    const sf_frames_opts* o = m == SF_METHOD_RECOMPUTE_FUSED ? ro : mo;
    sf_result r = with_report ? reset_counters(c, err) : SF_OK;
    if (r == SF_OK && m == SF_METHOD_RECOMPUTE_FUSED) r = sfi_fused_two_pass(topo, o, ws, true, &c->row_two_pass[k], err);
    // the reference's positions are already in c->pos; a per-vertex row writes none
    if (r == SF_OK)
        r = run_method(c, topo, m, o, c->variant, counts_own_report(m) ? NULL : c->pos, c->nrm, c->tan,
                       with_report ? c->counters : NULL, err);
    // recompute-fused's own MikkTSpace tangents (two-pass): measured per corner where they are the reference's
    bool own = c->corners && m == SF_METHOD_RECOMPUTE_FUSED && (c->row_two_pass[k] & SF_FUSED_TWO_PASS_TANGENTS);
    bool same = false;
    if (r == SF_OK && mikk_reference(topo, m, o)) {
        r = fused_inputs_same(c, topo, m, &same, err);
        if (r == SF_OK && !same) r = mikktspace_on_host(c, topo, c->nrm, c->tan, own ? c->face : NULL, NULL, err);
    }
    if (r == SF_OK && own && same) // the reference's corners are its own
        SFC_CHECK(cudaMemsetAsync(c->ct_differ, 0, c->count * sizeof(unsigned), c->stream), err);
    else if (r == SF_OK && own)
        r = sfc_corners_differ(c->count, 3 * c->t.F, c->face, c->ref_ct, c->ct_differ, c->stream, err);
    if (r == SF_OK && with_report) r = count_report(c, k, m, c->nrm, c->tan, err);
    sfc_corners cn = {c->corners ? c->ref_ct : NULL, own ? c->ct_differ : NULL};
    if (r == SF_OK)
        r = sfc_errors(&c->t, c->count, c->nrm, c->tan, c->ref_n, c->ref_t, &cn, &c->stats[2 * k],
                       &c->stats[2 * k + 1], c->e_counts + SFC_E_COUNTS * k, c->stream, err);
    return r;
}

static sf_result evaluate(sfi_cuda* c, sf_workspace* ws, const sf_topology* topo, const sf_method* methods, size_t rows,
                          const sf_frames_opts* mo, const sf_frames_opts* ro, int with_report, sf_error* err)
{
    sf_result r = with_report ? reset_counters(c, err) : SF_OK;
    if (r == SF_OK) r = run_method(c, topo, SF_METHOD_RECOMPUTE, ro, c->variant, c->pos, c->ref_n, c->ref_t, NULL, err);
    // MikkTSpace's reference tangents differ between a vertex's corners: the tangents are measured per corner
    c->corners = mikk_reference(topo, SF_METHOD_RECOMPUTE, ro);
    if (r == SF_OK && c->corners) r = mikktspace_on_host(c, topo, c->ref_n, c->ref_t, c->ref_ct, NULL, err);
    if (r == SF_OK && c->corners) r = keep_reference_inputs(c, err);
    sfc_corners cn = {c->corners ? c->ref_ct : NULL, NULL};
    if (r == SF_OK && with_report) r = count_report(c, SF_METHOD_COUNT, SF_METHOD_RECOMPUTE, c->ref_n, c->ref_t, err);
    if (r != SF_OK) return r;
    // The per-vertex rows: below SFC_FUSED_ROWS_BELOW vertices (all instances) each in one fused pass with its
    // angles (no frames written: there the launches weigh); above, each as its own frames pass and then the
    // error kernel, which together keep more warps resident than the fused pass's registers allow
    // (docs/benchmarks-log.md, the rows split above a million vertices). The recompute row is measured against itself.
    bool split = (size_t)c->count * c->t.n >= SFC_FUSED_ROWS_BELOW;
    // There unchanged, skinned and inverse-transpose come from one deform (vertex_rows), its inputs read once.
    bool shared_deform = split && !c->rows_apart;
    size_t vertex_k[SFC_ROW_SLOTS], nv = 0; // the rows of shared_deform
    int fused[4];
    size_t fused_rows[4], nf = 0;
    for (size_t k = 0; k < rows; ++k) {
        c->row_status[k] = SF_OK;
        sf_error_clear(&c->row_detail[k]);
        c->row_two_pass[k] = 0;
        if ((methods[k] == SF_METHOD_JACOBIAN && !topo->gradients) ||
            (methods[k] == SF_METHOD_JACOBIAN_FAN && !topo->fan_gradients)) {
            c->row_status[k] = sf_error_set(&c->row_detail[k], SF_ERROR_UNSUPPORTED, "topology", SFI_NO_INDEX,
                                            "built with skip_gradients = 1; the %s method needs its gradients",
                                            sf_method_name(methods[k]));
            continue;
        }
        if (methods[k] == SF_METHOD_JACOBIAN)
            SF_CHECK(isfinite(mo->jacobian_cap) && mo->jacobian_cap >= 0.0f, SF_ERROR_INVALID_ARGUMENT, err,
                     "opts.jacobian_cap", SFI_NO_INDEX, "%g, need a finite value >= 0 (0 = off)",
                     (double)mo->jacobian_cap);
        if (shared_deform && nv < SFC_ROW_SLOTS &&
            (methods[k] == SF_METHOD_UNCHANGED || methods[k] == SF_METHOD_SKINNED ||
             methods[k] == SF_METHOD_INVERSE_TRANSPOSE)) {
            vertex_k[nv++] = k;
            continue;
        }
        if (methods[k] == SF_METHOD_BONE_NORMAL_MATRICES || methods[k] == SF_METHOD_JACOBIAN_FAN ||
            methods[k] == SF_METHOD_RECOMPUTE_FUSED || (split && counts_own_report(methods[k]))) {
            r = own_row(c, ws, topo, k, methods[k], mo, ro, with_report, err);
            if (r != SF_OK) return r;
            continue;
        }
        if (methods[k] != SF_METHOD_RECOMPUTE && methods[k] != SF_METHOD_JACOBIAN &&
            methods[k] != SF_METHOD_UNCHANGED && methods[k] != SF_METHOD_SKINNED &&
            methods[k] != SF_METHOD_INVERSE_TRANSPOSE) {
            c->row_status[k] = sf_error_set(&c->row_detail[k], SF_ERROR_UNSUPPORTED, "method", SFI_NO_INDEX,
                                            "cuda: `%s` has no GPU form yet", sf_method_name(methods[k]));
            continue;
        }
        if (methods[k] == SF_METHOD_RECOMPUTE) {
            if (with_report)
                SFC_CHECK(cudaMemcpyAsync(
                              c->row_counters + SFC_COUNTERS * k, c->row_counters + SFC_COUNTERS * SF_METHOD_COUNT,
                              SFC_COUNTERS * sizeof(unsigned long long), cudaMemcpyDeviceToDevice, c->stream),
                          err);
            r = sfc_errors(&c->t, c->count, c->ref_n, c->ref_t, c->ref_n, c->ref_t, &cn, &c->stats[2 * k],
                           &c->stats[2 * k + 1], c->e_counts + SFC_E_COUNTS * k, c->stream, err);
            if (r != SF_OK) return r;
            continue;
        }
        fused[nf] = (int)methods[k];
        fused_rows[nf++] = k;
    }
    if (nv) {
        r = vertex_rows(c, methods, vertex_k, nv, mo, with_report, &cn, err);
        if (r != SF_OK) return r;
    }
    if (nf == 0) return SF_OK;
    sfc_stats *sn[4], *st[4];
    unsigned long long *ec[4], *rc[4];
    for (size_t f = 0; f < nf; ++f) {
        size_t k = fused_rows[f];
        sn[f] = &c->stats[2 * k];
        st[f] = &c->stats[2 * k + 1];
        ec[f] = c->e_counts + SFC_E_COUNTS * k;
        rc[f] = c->row_counters + SFC_COUNTERS * k;
        if (with_report) {
            SFC_CHECK(cudaMemsetAsync(rc[f], 0, SFC_COUNTERS * sizeof(unsigned long long), c->stream), err);
            SFC_CHECK(cudaMemsetAsync(rc[f] + SFC_FIRST_BAD, 0xff, sizeof(unsigned long long), c->stream), err);
        }
    }
    sfc_batch b = batch_of(c);
    return sfc_rows_errors(&c->t, &b, fused, nf, (int)mo->morph_directions, mo->jacobian_cap,
                           c->ref_n, c->ref_t, &cn, sn, st, ec, with_report ? rc : NULL, c->stream, err);
}

// The scale of the per-pose sums' fixed point: the largest power of 2 at which n angles of at most 180 degrees
// sum below 2^64 (at most 2^40).
static float frame_scale(uint32_t n)
{
    double limit = 1.8e19 / (181.0 * (n ? n : 1));
    int e = 40;
    while (e > -8 && ldexp(1.0, e) > limit) --e;
    return (float)ldexp(1.0, e);
}

// Pinned room for the records of count poses.
static sf_result ensure_frame_records(sfi_cuda* c, size_t count, sf_error* err)
{
    if (count <= c->h_frames_cap) return SF_OK;
    cudaFreeHost(c->h_frames);
    c->h_frames = NULL;
    c->h_frames_cap = 0;
    SFC_CHECK(cudaMallocHost((void**)&c->h_frames, count * SFC_FRAME_RECORDS * sizeof(unsigned long long)), err);
    c->h_frames_cap = count;
    return SF_OK;
}

// eval_enqueue (first, no per-pose records) and eval_enqueue_clip: the poses in launches of as many instances
// as the device holds; statistics reset only on a clip's first batch.
static sf_result enqueue(sf_workspace* ws, const sf_pose* poses, size_t count, const sf_method* methods,
                         size_t method_count, const sf_frames_opts* method_opts, const sf_frames_opts* reference_opts,
                         int first, int per_pose, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(ws && ws->cuda, SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX, "is not a CUDA workspace");
    SF_CHECK(method_count <= SF_METHOD_COUNT && (methods || !method_count), SF_ERROR_INVALID_ARGUMENT, err, "methods",
             SFI_NO_INDEX, "%zu methods", method_count);
    sfi_cuda* c = ws->cuda;
    const sf_topology* topo = ws->topo;
    c->clip_count = 0;
    uint64_t t0 = sfc_profile_start();
    for (size_t i = 0; i < count; ++i) {
        sf_result r = sf_pose_validate(topo, &poses[i], err);
        if (r != SF_OK) return r;
    }
    sfc_profile_stop(SFC_PROF_ENQ_VALIDATE, t0);
    t0 = sfc_profile_start();
    sf_frames_opts mo, ro;
    memset(&mo, 0, sizeof mo);
    memset(&ro, 0, sizeof ro);
    if (method_opts) mo = *method_opts;
    if (reference_opts) ro = *reference_opts;
    size_t fit = 0;
    sf_result r = instances_fit(c, count, &fit, err);
    if (r == SF_OK) r = ensure_stats(c, err);
    if (r == SF_OK && per_pose) r = ensure_frame_records(c, count, err);
    if (r == SF_OK && first) r = reset_stats(c, method_count, err);
    sfc_profile_stop(SFC_PROF_ENQ_ALLOC, t0);
    if (r != SF_OK) return r;
    c->rows = method_count;
    c->with_report = 0;
    memcpy(c->row_method, methods, method_count * sizeof *methods);
    float scale = frame_scale(c->t.n);
    for (size_t start = 0; r == SF_OK && start < count; start += fit) {
        size_t m = count - start < fit ? count - start : fit;
        t0 = sfc_profile_start();
        r = upload_poses(c, topo, poses + start, (uint32_t)m, err);
        sfc_profile_stop(SFC_PROF_ENQ_UPLOAD, t0);
        if (r != SF_OK) break;
        // the records live in the scratch of the instances: placed after upload_poses grew it
        for (size_t k = 0; k < 2 * SF_METHOD_COUNT; ++k) {
            c->stats[k].frame = per_pose ? c->frames + k * 3 * (size_t)c->cap : NULL;
            c->stats[k].frame_scale = scale;
        }
        if (per_pose)
            SFC_CHECK(cudaMemsetAsync(c->frames, 0, SFC_FRAME_RECORDS * (size_t)c->cap * sizeof(unsigned long long),
                                      c->stream),
                      err);
        t0 = sfc_profile_start();
        r = evaluate(c, ws, topo, methods, method_count, &mo, &ro, count == m, err);
        sfc_profile_stop(SFC_PROF_ENQ_EVALUATE, t0);
        c->with_report = count == m; // reports of a single launch only
        for (size_t k = 0; r == SF_OK && per_pose && k < 2 * method_count; ++k)
            SFC_CHECK(cudaMemcpyAsync(c->h_frames + k * 3 * count + 3 * start, c->stats[k].frame,
                                      3 * m * sizeof(unsigned long long), cudaMemcpyDeviceToHost, c->stream),
                      err);
    }
    for (size_t k = 0; k < 2 * SF_METHOD_COUNT; ++k) c->stats[k].frame = NULL; // other launches record none
    if (r == SF_OK && per_pose) {
        c->clip_count = (uint32_t)count;
        c->clip_synced = 0;
    }
    return r;
}

extern "C" sf_result sfi_cuda_eval_enqueue(sf_workspace* ws, const sf_pose* poses, size_t count,
                                           const sf_method* methods, size_t method_count,
                                           const sf_frames_opts* method_opts, const sf_frames_opts* reference_opts,
                                           sf_error* err)
{
    return enqueue(ws, poses, count, methods, method_count, method_opts, reference_opts, 1, 0, err);
}

static sf_result cuda_eval_enqueue_clip(sf_workspace* ws, const sf_pose* poses, size_t count, const sf_method* methods,
                                        size_t method_count, const sf_frames_opts* method_opts,
                                        const sf_frames_opts* reference_opts, int first, sf_error* err)
{
    return enqueue(ws, poses, count, methods, method_count, method_opts, reference_opts, first, 1, err);
}

static sf_result cuda_eval_add(sf_workspace* dst, sf_workspace* src, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(dst && dst->cuda && src && src->cuda && dst != src, SF_ERROR_INVALID_ARGUMENT, err, "workspace",
             SFI_NO_INDEX, "need two CUDA workspaces");
    sfi_cuda *d = dst->cuda, *c = src->cuda;
    SF_CHECK(d->rows == c->rows && memcmp(d->row_method, c->row_method, d->rows * sizeof *d->row_method) == 0,
             SF_ERROR_INVALID_ARGUMENT, err, "evaluation", SFI_NO_INDEX, "has other rows (%zu and %zu)", d->rows, c->rows);
    SFC_CHECK(cudaStreamSynchronize(c->stream), err); // its launches done before dst's stream reads them
    for (size_t k = 0; k < 2 * c->rows; ++k) {
        if (k % 2 == 1 && !c->t.has_uvs) continue; // no tangent series
        sf_result r = sfc_stats_add(&d->stats[k], &c->stats[k], d->stream, err);
        if (r != SF_OK) return r;
    }
    return sfc_counts_add(d->e_counts, c->e_counts, (uint32_t)(c->rows * SFC_E_COUNTS), d->stream, err);
}

static sf_result cuda_eval_poses(sf_workspace* ws, size_t row, sf_pose_errors* out, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(ws && ws->cuda, SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX, "is not a CUDA workspace");
    sfi_cuda* c = ws->cuda;
    SF_CHECK(row < c->rows && c->clip_count > 0, SF_ERROR_INVALID_ARGUMENT, err, "row", row,
             "of %zu rows of the last clip batch", c->clip_count ? c->rows : 0);
    if (c->row_status[row] != SF_OK) {
        if (err) *err = c->row_detail[row];
        return c->row_status[row];
    }
    if (!out) return SF_OK;
    if (!c->clip_synced) {
        uint64_t t0 = sfc_profile_start();
        SFC_CHECK(cudaStreamSynchronize(c->stream), err);
        sfc_profile_stop(SFC_PROF_POSES_SYNC, t0);
        c->clip_synced = 1;
    }
    size_t count = c->clip_count;
    double scale = (double)frame_scale(c->t.n);
    const unsigned long long* rec[2] = {c->h_frames + 2 * row * 3 * count, c->h_frames + (2 * row + 1) * 3 * count};
    for (size_t i = 0; i < count; ++i) {
        sf_pose_errors e;
        memset(&e, 0, sizeof e);
        for (int side = 0; side < 2; ++side) {
            if (side == 1 && !c->t.has_uvs) break;
            const unsigned long long* q = rec[side] + 3 * i;
            uint32_t bits = (uint32_t)(q[1] >> 32);
            float mx;
            memcpy(&mx, &bits, sizeof mx);
            size_t worst = q[1] ? (size_t)(0xffffffffu - (uint32_t)q[1]) : 0; // the caller's number
            if (side == 0) {
                e.normal_sum = (double)q[0] / scale, e.normal_max = mx, e.worst_normal_vertex = worst;
            } else {
                e.tangent_sum = (double)q[0] / scale, e.tangent_max = mx, e.worst_tangent_vertex = worst;
                e.handedness_mismatches = (size_t)q[2];
            }
        }
        out[i] = e;
    }
    return SF_OK;
}

extern "C" sf_result sfi_cuda_eval_read(sf_workspace* ws, size_t row, sf_error_summary* summary,
                                        sf_frames_report* report, sf_angle_accumulator* normal_acc,
                                        sf_angle_accumulator* tangent_acc, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(ws && ws->cuda, SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX, "is not a CUDA workspace");
    sfi_cuda* c = ws->cuda;
    SF_CHECK(row < c->rows || row == SF_METHOD_COUNT, SF_ERROR_INVALID_ARGUMENT, err, "row", row, "of %zu", c->rows);
    // a row the GPU could not run has no counters: its status first
    if (row != SF_METHOD_COUNT && c->row_status[row] != SF_OK) {
        if (err) *err = c->row_detail[row];
        return c->row_status[row];
    }
    if (report) {
        memset(report, 0, sizeof *report);
        if (c->with_report) {
            unsigned long long k[SFC_COUNTERS];
            SFC_CHECK(
                cudaMemcpyAsync(k, c->row_counters + SFC_COUNTERS * row, sizeof k, cudaMemcpyDeviceToHost, c->stream),
                err);
            SFC_CHECK(cudaStreamSynchronize(c->stream), err);
            sf_method m = row == SF_METHOD_COUNT ? SF_METHOD_RECOMPUTE : c->row_method[row];
            report->mirrored_vertices = (size_t)k[SFC_MIRRORED];
            report->singular_vertices = m == SF_METHOD_INVERSE_TRANSPOSE ? (size_t)k[SFC_SINGULAR] : 0;
            report->degenerate_normals = (size_t)k[SFC_DEGENERATE_N];
            report->degenerate_tangents = (size_t)k[SFC_DEGENERATE_T];
            report->jacobian_capped = sfi_method_uses_gradients(m) ? (size_t)k[SFC_CAPPED] : 0;
            report->fused_two_pass = row == SF_METHOD_COUNT ? 0 : c->row_two_pass[row];
            if (k[SFC_NONFINITE])
                return sf_error_set(err, SF_ERROR_TOO_LARGE, "out",
                                    caller_vertex(c, (size_t)(k[SFC_FIRST_BAD] % (c->t.n ? c->t.n : 1))),
                                    "`%s` came out non-finite on the GPU: a magnitude bound is missing (please report)",
                                    sf_method_name(m));
        }
    }
    if (row == SF_METHOD_COUNT) return SF_OK;
    size_t n = c->t.n ? c->t.n : 1;
    unsigned long long e[SFC_E_COUNTS];
    SFC_CHECK(cudaMemcpyAsync(e, c->e_counts + SFC_E_COUNTS * row, sizeof e, cudaMemcpyDeviceToHost, c->stream), err);
    sf_error_summary s;
    memset(&s, 0, sizeof s);
    for (int side = 0; side < 2; ++side) {
        if (side == 1 && !c->t.has_uvs) break;
        const sfc_stats& st = c->stats[2 * row + side];
        unsigned long long counts[SFC_STAT_COUNTS];
        double sums[2];
        unsigned entries = 0;
        uint64_t t0 = sfc_profile_start();
        sf_result r = sfc_bins_nonzero(&st, (uint32_t)SFC_SPARSE_BINS, c->sparse_bin, c->sparse_count,
                                       c->sparse_entries, c->stream, err);
        if (r != SF_OK) return r;
        SFC_CHECK(cudaMemcpyAsync(counts, st.counts, sizeof counts, cudaMemcpyDeviceToHost, c->stream), err);
        SFC_CHECK(cudaMemcpyAsync(sums, st.sums, sizeof sums, cudaMemcpyDeviceToHost, c->stream), err);
        SFC_CHECK(cudaMemcpyAsync(&entries, c->sparse_entries, sizeof entries, cudaMemcpyDeviceToHost, c->stream),
                  err);
        SFC_CHECK(cudaStreamSynchronize(c->stream), err);
        sfc_profile_stop(SFC_PROF_READ_WAIT, t0);
        t0 = sfc_profile_start();
        // the nonzero bins where they fit (12 bytes each), else the whole histogram (1.5 MB)
        uint32_t* h_bin_of = reinterpret_cast<uint32_t*>(c->h_bins + SFC_SPARSE_BINS);
        bool sparse = entries <= SFC_SPARSE_BINS;
        if (sparse) {
            SFC_CHECK(cudaMemcpyAsync(c->h_bins, c->sparse_count, entries * sizeof(unsigned long long),
                                      cudaMemcpyDeviceToHost, c->stream),
                      err);
            SFC_CHECK(cudaMemcpyAsync(h_bin_of, c->sparse_bin, entries * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                      c->stream),
                      err);
        } else {
            SFC_CHECK(cudaMemcpyAsync(c->h_bins, st.bins, SFK_ANGLE_BIN_COUNT * sizeof(unsigned long long),
                                      cudaMemcpyDeviceToHost, c->stream),
                      err);
        }
        SFC_CHECK(cudaStreamSynchronize(c->stream), err);
        sfc_profile_stop(SFC_PROF_READ_COPY, t0);
        t0 = sfc_profile_start();
        sfi_angle_bins bins;
        bins.count = counts[SFC_COUNT];
        bins.over_1 = counts[SFC_OVER1], bins.over_5 = counts[SFC_OVER5], bins.over_45 = counts[SFC_OVER45];
        bins.sum = sums[0], bins.sum2 = sums[1];
        uint32_t max_bits = (uint32_t)(counts[SFC_MAX_KEY] >> 32), min_bits = (uint32_t)counts[SFC_MIN_BITS];
        float mx, mn;
        memcpy(&mx, &max_bits, 4);
        memcpy(&mn, &min_bits, 4);
        bins.max = bins.count ? mx : 0.0;
        bins.min = bins.count ? mn : 0.0;
        bins.bins = reinterpret_cast<const uint64_t*>(c->h_bins);
        bins.index = sparse ? h_bin_of : NULL;
        bins.entries = entries;
        size_t worst = (size_t)(0xffffffffu - (uint32_t)counts[SFC_MAX_KEY]);
        sf_angle_accumulator* acc = side == 0 ? normal_acc : tangent_acc;
        if (summary) {
            sf_angle_accumulator_reset(c->read_acc);
            r = sfi_angle_accumulator_add_bins(c->read_acc, &bins, err);
            if (r == SF_OK) r = sf_angle_accumulator_finish(c->read_acc, side == 0 ? &s.normal : &s.tangent, err);
            if (r == SF_OK && acc) r = sf_angle_accumulator_merge(acc, c->read_acc, err);
        } else if (acc) {
            r = sfi_angle_accumulator_add_bins(acc, &bins, err); // the same sums, without a copy between
        }
        sfc_profile_stop(SFC_PROF_READ_ADD, t0);
        if (r != SF_OK) return r;
        if (side == 0)
            s.worst_normal_vertex = bins.count ? worst % n : 0; // the caller's number (sfc_topo.caller)
        else
            s.worst_tangent_vertex = bins.count ? worst % n : 0;
    }
    s.degenerate_normals = (size_t)e[SFC_E_DEGEN_N];
    s.degenerate_tangents = (size_t)e[SFC_E_DEGEN_T];
    s.degenerate = (size_t)e[SFC_E_DEGEN];
    s.handedness_mismatches = (size_t)e[SFC_E_HANDED];
    if (summary) *summary = s;
    return SF_OK;
}

// The instances one launch of a batch of `instances` takes (instances_fit) and the batch's pose records; the
// MikkTSpace rounds' staging and device scratch are sized for such a batch on their first use.
static sf_result cuda_reserve(sf_workspace* ws, size_t instances, sf_error* err)
{
    sfi_cuda* c = ws->cuda;
    if (instances > c->reserved) c->reserved = instances;
    size_t fit = 0;
    sf_result r = instances_fit(c, instances, &fit, err);
    if (r == SF_OK) r = ensure_instances(c, (uint32_t)fit, err);
    if (r == SF_OK) r = ensure_frame_records(c, instances, err);
    return r;
}

extern "C" const sfi_backend_i sfi_backend_cuda = {
    "cuda",           cuda_check,           SFI_SCRATCH_DEVICE, cuda_workspace_init, cuda_workspace_free,
    cuda_workspace_bytes, cuda_frames,      cuda_frames_batch,  sfi_cuda_eval_enqueue, sfi_cuda_eval_read,
    cuda_eval_enqueue_clip, cuda_eval_poses, cuda_eval_add, cuda_reserve,
};

// ---------------------------------------------------------------- benchmarks

extern "C" sf_result sfi_cuda_bench_upload(sf_workspace* ws, const sf_pose* poses, size_t count, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(ws && ws->cuda, SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX, "is not a CUDA workspace");
    size_t fit = 0;
    sf_result r = instances_fit(ws->cuda, count, &fit, err);
    if (r != SF_OK) return r;
    if (fit < count)
        return too_big(err, "the batch", count * instance_bytes(ws->cuda->t), fit * instance_bytes(ws->cuda->t),
                       ws->topo->vertex_count, count);
    r = upload_poses(ws->cuda, ws->topo, poses, (uint32_t)count, err);
    if (r == SF_OK) r = ensure_stats(ws->cuda, err);
    if (r == SF_OK) r = deform(ws->cuda, err);
    if (r == SF_OK) SFC_CHECK(cudaStreamSynchronize(ws->cuda->stream), err);
    return r;
}

static sf_result run_stage(sf_workspace* ws, sfi_cuda_stage stage, sf_method method, const sf_frames_opts* o,
                           sfi_cuda_recompute variant, sf_error* err)
{
    sfi_cuda* c = ws->cuda;
    const sf_topology* topo = ws->topo;
    switch (stage) {
    case SFI_STAGE_DEFORM: return deform(c, err);
    case SFI_STAGE_METHOD: return run_method(c, topo, method, o, variant, c->pos, c->nrm, c->tan, c->counters, err);
    case SFI_STAGE_PASS: return run_method(c, topo, method, o, variant, c->pos, c->nrm, c->tan, NULL, err);
    case SFI_STAGE_REBUILD: return rebuild(c, o, variant, c->count, c->ref_n, c->ref_t, err);
    case SFI_STAGE_RECOMPUTE:
        return run_method(c, topo, SF_METHOD_RECOMPUTE, o, variant, c->pos, c->ref_n, c->ref_t, NULL, err);
    case SFI_STAGE_ERRORS:
        return sfc_errors(&c->t, c->count, c->nrm, c->tan, c->ref_n, c->ref_t, NULL, &c->stats[0], &c->stats[1], c->e_counts,
                          c->stream, err);
    case SFI_STAGE_EVAL: { // the reference and the evaluation's default methods (what `eval` runs)
        sf_method all[SF_METHOD_DEFAULT_COUNT];
        for (int m = 0; m < SF_METHOD_DEFAULT_COUNT; ++m) all[m] = (sf_method)m;
        const size_t rows = SF_METHOD_DEFAULT_COUNT;
        sfi_cuda_recompute keep = c->variant;
        c->variant = variant;
        sf_frames_opts mo;
        memset(&mo, 0, sizeof mo);
        c->rows = rows;
        memcpy(c->row_method, all, sizeof all);
        sf_result r = evaluate(c, ws, topo, all, rows, &mo, o, 0, err);
        c->variant = keep;
        return r;
    }
    }
    return sf_error_set(err, SF_ERROR_INVALID_ARGUMENT, "stage", SFI_NO_INDEX, "%d", (int)stage);
}

static int compare_doubles(const void* a, const void* b)
{
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

extern "C" sf_result sfi_cuda_bench_time(sf_workspace* const* wss, size_t k, sfi_cuda_stage stage, sf_method method,
                                         const sf_frames_opts* opts, sfi_cuda_recompute variant, int reps,
                                         double* median_ms, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(wss && k && reps > 0 && median_ms, SF_ERROR_INVALID_ARGUMENT, err, "arguments", SFI_NO_INDEX, "missing");
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    if (opts) o = *opts;
    double* t = (double*)calloc((size_t)reps, sizeof(double));
    if (!t) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "times", SFI_NO_INDEX, "%d", reps);
    sf_result r = SF_OK;
    for (int w = 0; r == SF_OK && w < 2 * (int)k; ++w)
        r = run_stage(wss[w % k], stage, method, &o, variant, err); // warm-up
    for (int i = 0; r == SF_OK && i < reps; ++i) {
        sfi_cuda* c = wss[i % k]->cuda;
        float ms = 0.0f;
        cudaError_t e = cudaEventRecord(c->start, c->stream);
        if (e != cudaSuccess) r = sfc_failed(err, "cudaEventRecord", e);
        if (r == SF_OK) r = run_stage(wss[i % k], stage, method, &o, variant, err);
        if (r == SF_OK && (e = cudaEventRecord(c->stop, c->stream)) != cudaSuccess)
            r = sfc_failed(err, "cudaEventRecord", e);
        if (r == SF_OK && (e = cudaEventSynchronize(c->stop)) != cudaSuccess)
            r = sfc_failed(err, "cudaEventSynchronize", e);
        if (r == SF_OK && (e = cudaEventElapsedTime(&ms, c->start, c->stop)) != cudaSuccess)
            r = sfc_failed(err, "cudaEventElapsedTime", e);
        t[i] = ms;
    }
    if (r == SF_OK) {
        qsort(t, (size_t)reps, sizeof *t, compare_doubles);
        *median_ms = t[reps / 2];
    }
    free(t);
    return r;
}

extern "C" sf_result sfi_cuda_bench_copy(size_t bytes, int reps, double* median_ms, sf_error* err)
{
    sf_error_clear(err);
    void *a = NULL, *b = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double* t = (double*)calloc((size_t)(reps > 0 ? reps : 1), sizeof(double));
    sf_result r = t ? SF_OK : sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "times", SFI_NO_INDEX, "%d", reps);
    cudaError_t e = cudaSuccess;
#define SFC_STEP(call)                                                                                                 \
    do {                                                                                                               \
        if (r == SF_OK && (e = (call)) != cudaSuccess) r = sfc_failed(err, #call, e);                                  \
    } while (0)
    SFC_STEP(cudaMalloc(&a, bytes));
    SFC_STEP(cudaMalloc(&b, bytes));
    SFC_STEP(cudaMemset(a, 0x3f, bytes));
    SFC_STEP(cudaEventCreate(&e0));
    SFC_STEP(cudaEventCreate(&e1));
    SFC_STEP(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
    for (int i = 0; r == SF_OK && i < reps; ++i) {
        float ms = 0.0f;
        SFC_STEP(cudaEventRecord(e0));
        SFC_STEP(cudaMemcpyAsync(i & 1 ? a : b, i & 1 ? b : a, bytes, cudaMemcpyDeviceToDevice));
        SFC_STEP(cudaEventRecord(e1));
        SFC_STEP(cudaEventSynchronize(e1));
        SFC_STEP(cudaEventElapsedTime(&ms, e0, e1));
        t[i] = ms;
    }
#undef SFC_STEP
    if (r == SF_OK) {
        qsort(t, (size_t)reps, sizeof *t, compare_doubles);
        *median_ms = t[reps / 2];
    }
    cudaFree(a);
    cudaFree(b);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    free(t);
    return r;
}

extern "C" sf_result sfi_cuda_describe(char* out, size_t size, sf_error* err)
{
    int dev = 0, driver = 0, runtime = 0;
    cudaDeviceProp p;
    SFC_CHECK(cudaGetDevice(&dev), err);
    SFC_CHECK(cudaGetDeviceProperties(&p, dev), err);
    SFC_CHECK(cudaDriverGetVersion(&driver), err);
    SFC_CHECK(cudaRuntimeGetVersion(&runtime), err);
    snprintf(out, size, "%s, sm_%d%d, %d SMs, %.1f GiB, L2 %.0f MB, driver API %d.%d, runtime %d.%d", p.name, p.major,
             p.minor, p.multiProcessorCount, (double)p.totalGlobalMem / 1073741824.0, (double)p.l2CacheSize / 1e6,
             driver / 1000, (driver % 1000) / 10, runtime / 1000, (runtime % 1000) / 10);
    return SF_OK;
}

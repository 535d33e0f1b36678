/* The test backend (sft_backend.h): a GPU backend's control flow over a CPU workspace. */
#include "sft_backend.h"

#include <stdlib.h>
#include <string.h>

static size_t launch_size = 3;

void sft_backend_set_launch(size_t instances) { launch_size = instances ? instances : 1; }

enum { DEGEN_N, DEGEN_T, DEGEN_ANY, HANDED, COUNTS };

typedef struct sft_device {
    sf_workspace* inner; /* the device's memory and passes */
    size_t launch, launches;
    float *ref, *frame, *normal_deg, *tangent_deg; /* ref: 7n per instance of a launch (3n normals, 4n tangents) */
    uint8_t* flags;
    size_t rows;
    int with_report; /* the last enqueue was one launch: its reports are kept */
    sf_method row_method[SF_METHOD_COUNT];
    sf_result row_status[SF_METHOD_COUNT];
    sf_error row_detail[SF_METHOD_COUNT];
    sf_angle_accumulator* acc[2 * SF_METHOD_COUNT]; /* per row: normals, tangents, merged launch by launch */
    sf_angle_accumulator* part[2];                  /* one row of the launch being reduced */
    size_t counts[SF_METHOD_COUNT][COUNTS];
    double worst[SF_METHOD_COUNT][2];
    size_t worst_v[SF_METHOD_COUNT][2];
    sf_frames_report report[SF_METHOD_COUNT + 1]; /* the last row SF_METHOD_COUNT: the reference's */
} sft_device;

static sft_device* dev(const sf_workspace* ws) { return (sft_device*)ws->device; }

size_t sft_backend_launches(const sf_workspace* ws) { return dev(ws)->launches; }

static sf_result test_check(sf_error* err)
{
    sf_error_clear(err);
    return SF_OK;
}

static void test_free(sf_workspace* ws)
{
    sft_device* d = dev(ws);
    if (!d) return;
    sf_workspace_destroy(d->inner);
    for (size_t k = 0; k < 2 * SF_METHOD_COUNT; ++k) sf_angle_accumulator_destroy(d->acc[k]);
    sf_angle_accumulator_destroy(d->part[0]);
    sf_angle_accumulator_destroy(d->part[1]);
    free(d->ref);
    free(d->frame);
    free(d->normal_deg);
    free(d->tangent_deg);
    free(d->flags);
    free(d);
    ws->device = NULL;
}

static sf_result test_init(sf_workspace* ws, sf_error* err)
{
    sft_device* d = calloc(1, sizeof *d);
    if (!d) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "device", SFI_NO_INDEX, "state");
    ws->device = d;
    size_t n = ws->topo->vertex_count ? ws->topo->vertex_count : 1;
    d->launch = launch_size;
    sf_workspace_opts o = {ws->methods, SF_BACKEND_CPU};
    sf_result r = sf_workspace_create(ws->topo, &o, &d->inner, err);
    if (r != SF_OK) return r;
    d->ref = malloc(7 * n * d->launch * sizeof(float));
    d->frame = malloc(7 * n * sizeof(float));
    d->normal_deg = malloc(n * sizeof(float));
    d->tangent_deg = malloc(n * sizeof(float));
    d->flags = malloc(n);
    int ok = d->ref && d->frame && d->normal_deg && d->tangent_deg && d->flags;
    for (size_t k = 0; ok && k < 2 * SF_METHOD_COUNT; ++k) ok = sf_angle_accumulator_create(NULL, &d->acc[k], NULL) == SF_OK;
    for (int s = 0; ok && s < 2; ++s) ok = sf_angle_accumulator_create(NULL, &d->part[s], NULL) == SF_OK;
    return ok ? SF_OK : sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "device", SFI_NO_INDEX, "%zu vertices", n);
}

static void add_report(sf_frames_report* total, const sf_frames_report* r)
{
    total->mirrored_vertices += r->mirrored_vertices;
    total->singular_vertices += r->singular_vertices;
    total->degenerate_normals += r->degenerate_normals;
    total->degenerate_tangents += r->degenerate_tangents;
    total->jacobian_capped += r->jacobian_capped;
    total->fused_two_pass = r->fused_two_pass;
}

/* Every instance in launches of d->launch, the counters summed over all of them. */
static sf_result test_batch(const sf_topology* topo, const sf_pose* poses, size_t count, sf_method method,
                            const sf_frames_opts* opts, sf_workspace* ws, const sf_frames_out* outs, sf_error* err)
{
    sft_device* d = dev(ws);
    sf_frames_report total;
    memset(&total, 0, sizeof total);
    for (size_t start = 0; start < count; start += d->launch) {
        size_t end = count - start < d->launch ? count : start + d->launch;
        d->launches++;
        for (size_t i = start; i < end; ++i) {
            sf_result r = sfi_frames_cpu(topo, &poses[i], method, opts, d->inner, &outs[i], 0, err);
            if (r != SF_OK) {
                if (err && count > 1) err->index = err->index == SFI_NO_INDEX ? i : err->index;
                return r;
            }
            add_report(&total, &d->inner->report);
        }
    }
    ws->report = total;
    return SF_OK;
}

static sf_result test_frames(const sf_topology* topo, const sf_pose* pose, sf_method method, const sf_frames_opts* opts,
                             sf_workspace* ws, const sf_frames_out* out, int deformed, sf_error* err)
{
    (void)deformed;
    return test_batch(topo, pose, 1, method, opts, ws, out, err);
}

/* One row over the launch's instances [0, m): frames, angles against each instance's reference into the
 * launch's partial statistics, then merged into the row's. */
static sf_result reduce_row(sft_device* d, const sf_topology* topo, const sf_pose* poses, size_t m, size_t k,
                            const sf_frames_opts* opts, sf_error* err)
{
    size_t n = topo->vertex_count;
    sf_angle_accumulator_reset(d->part[0]);
    sf_angle_accumulator_reset(d->part[1]);
    for (size_t i = 0; i < m; ++i) {
        sf_frames_out ref = {NULL, d->ref + 7 * n * i, d->ref + 7 * n * i + 3 * n};
        sf_frames_out out = {NULL, d->frame, d->frame + 3 * n};
        if (d->row_method[k] == SF_METHOD_RECOMPUTE) {
            out = ref; /* the reference itself */
            d->report[k] = d->report[SF_METHOD_COUNT];
        } else {
            sf_result r = sfi_frames_cpu(topo, &poses[i], d->row_method[k], opts, d->inner, &out, 0, err);
            if (r != SF_OK) return r;
            d->report[k] = d->inner->report;
        }
        sf_result r = sf_direction_errors(topo, &out, &ref, d->normal_deg, d->tangent_deg, d->flags, NULL, err);
        if (r == SF_OK) r = sf_angle_accumulator_add(d->part[0], d->normal_deg, n, err);
        if (r == SF_OK && topo->has_uvs) r = sf_angle_accumulator_add(d->part[1], d->tangent_deg, n, err);
        if (r != SF_OK) return r;
        for (size_t v = 0; v < n; ++v) {
            uint8_t f = d->flags[v];
            d->counts[k][DEGEN_N] += (f & SF_VERTEX_DEGENERATE_NORMAL) != 0;
            d->counts[k][DEGEN_T] += (f & SF_VERTEX_DEGENERATE_TANGENT) != 0;
            d->counts[k][DEGEN_ANY] += (f & (SF_VERTEX_DEGENERATE_NORMAL | SF_VERTEX_DEGENERATE_TANGENT)) != 0;
            d->counts[k][HANDED] += (f & SF_VERTEX_HANDEDNESS) != 0;
            for (int s = 0; s < 2; ++s) {
                double a = s ? d->tangent_deg[v] : d->normal_deg[v];
                if (a > d->worst[k][s]) d->worst[k][s] = a, d->worst_v[k][s] = v;
            }
        }
    }
    sf_result r = sf_angle_accumulator_merge(d->acc[2 * k], d->part[0], err);
    return r == SF_OK ? sf_angle_accumulator_merge(d->acc[2 * k + 1], d->part[1], err) : r;
}

static sf_result test_enqueue(sf_workspace* ws, const sf_pose* poses, size_t count, const sf_method* methods,
                              size_t method_count, const sf_frames_opts* method_opts,
                              const sf_frames_opts* reference_opts, sf_error* err)
{
    sf_error_clear(err);
    sft_device* d = dev(ws);
    const sf_topology* topo = ws->topo;
    size_t n = topo->vertex_count;
    for (size_t i = 0; i < count; ++i) {
        sf_result r = sf_pose_validate(topo, &poses[i], err);
        if (r != SF_OK) return r;
    }
    sf_frames_opts mo, ro;
    memset(&mo, 0, sizeof mo);
    memset(&ro, 0, sizeof ro);
    if (method_opts) mo = *method_opts;
    if (reference_opts) ro = *reference_opts;
    d->rows = method_count;
    d->with_report = count <= d->launch;
    memcpy(d->row_method, methods, method_count * sizeof *methods);
    memset(d->counts, 0, sizeof d->counts);
    memset(d->worst_v, 0, sizeof d->worst_v);
    for (size_t k = 0; k < method_count; ++k) {
        d->row_status[k] = SF_OK;
        d->worst[k][0] = d->worst[k][1] = -1.0;
        sf_angle_accumulator_reset(d->acc[2 * k]);
        sf_angle_accumulator_reset(d->acc[2 * k + 1]);
    }
    for (size_t start = 0; start < count; start += d->launch) {
        size_t m = count - start < d->launch ? count - start : d->launch;
        d->launches++;
        for (size_t i = 0; i < m; ++i) {
            sf_frames_out ref = {NULL, d->ref + 7 * n * i, d->ref + 7 * n * i + 3 * n};
            sf_result r = sfi_frames_cpu(topo, &poses[start + i], SF_METHOD_RECOMPUTE, &ro, d->inner, &ref, 0, err);
            if (r != SF_OK) return r;
            d->report[SF_METHOD_COUNT] = d->inner->report;
        }
        for (size_t k = 0; k < method_count; ++k) {
            if (d->row_status[k] != SF_OK) continue;
            /* the recompute rows check the pipeline: the reference's own settings (as the evaluation does) */
            int rebuilt = methods[k] == SF_METHOD_RECOMPUTE || methods[k] == SF_METHOD_RECOMPUTE_FUSED;
            d->row_status[k] = reduce_row(d, topo, poses + start, m, k, rebuilt ? &ro : &mo, &d->row_detail[k]);
        }
    }
    return SF_OK;
}

static sf_result test_read(sf_workspace* ws, size_t row, sf_error_summary* summary, sf_frames_report* report,
                           sf_angle_accumulator* normal_acc, sf_angle_accumulator* tangent_acc, sf_error* err)
{
    sf_error_clear(err);
    sft_device* d = dev(ws);
    SF_CHECK(row < d->rows || row == SF_METHOD_COUNT, SF_ERROR_INVALID_ARGUMENT, err, "row", row, "of %zu", d->rows);
    if (row != SF_METHOD_COUNT && d->row_status[row] != SF_OK) {
        if (err) *err = d->row_detail[row];
        return d->row_status[row];
    }
    if (report) {
        memset(report, 0, sizeof *report);
        if (d->with_report) *report = d->report[row];
    }
    if (row == SF_METHOD_COUNT) return SF_OK;
    sf_error_summary s;
    memset(&s, 0, sizeof s);
    sf_result r = sf_angle_accumulator_finish(d->acc[2 * row], &s.normal, err);
    if (r == SF_OK) r = sf_angle_accumulator_finish(d->acc[2 * row + 1], &s.tangent, err);
    if (r == SF_OK && normal_acc) r = sf_angle_accumulator_merge(normal_acc, d->acc[2 * row], err);
    if (r == SF_OK && tangent_acc) r = sf_angle_accumulator_merge(tangent_acc, d->acc[2 * row + 1], err);
    if (r != SF_OK) return r;
    s.degenerate_normals = d->counts[row][DEGEN_N];
    s.degenerate_tangents = d->counts[row][DEGEN_T];
    s.degenerate = d->counts[row][DEGEN_ANY];
    s.handedness_mismatches = d->counts[row][HANDED];
    s.worst_normal_vertex = d->worst_v[row][0];
    s.worst_tangent_vertex = ws->topo->has_uvs ? d->worst_v[row][1] : 0;
    if (summary) *summary = s;
    return SF_OK;
}

const sfi_backend_i sft_backend_test = {
    "test",    test_check, SFI_SCRATCH_DEVICE, test_init, test_free, NULL, test_frames, test_batch, test_enqueue,
    test_read, NULL,       NULL,        NULL,
};

/* The frames of a clip on a device (units whose statistics stay there: sf_evaluation_run_poses): the frames in
 * batches, each batch one evaluation of all its poses per unit, so that the launches and the uploads do not grow
 * with the frames. Per batch only each pose's sums and largest angles come back, folded on the host in frame
 * order as the CPU's frames are; the histograms stay on the device over the clip and are read once at its end.
 * A batch's poses are sampled over the threads, a glTF pose per part of the batch. */
#include "eval_internal.h"
#include "pose_errors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_FRAMES 512                    /* frames per batch at most */
#define BATCH_VERTICES ((size_t)1 << 24)    /* frames x the units' vertices per batch at most (device scratch) */
#define POSE_PARTS 64                       /* a batch's poses are sampled in this many parts at most */

typedef struct device_unit {
    float *bones, *morph; /* batch poses' bone matrices and morph weights */
    sf_pose* poses;       /* batch */
} device_unit;

struct sfi_device_clip {
    size_t batch;           /* frames per batch */
    device_unit* units;     /* unit_count */
    sf_pose_errors* errors; /* [unit][row][batch] */
    sf_result* results;     /* unit_count: each unit's batch */
    sf_error* unit_errors;  /* unit_count */
    sf_gltf_pose** poses;   /* pose_parts: part 0 is the asset's own */
    size_t pose_parts;
    sf_error* pose_errors;  /* pose_parts */
    size_t* pose_failed;    /* pose_parts: the frame that failed in the part, or SIZE_MAX */
};

void sfi_device_clip_destroy(sfi_device_clip* d, size_t unit_count)
{
    if (!d) return;
    for (size_t i = 0; d->units && i < unit_count; ++i) {
        free(d->units[i].bones);
        free(d->units[i].morph);
        free(d->units[i].poses);
    }
    for (size_t k = 1; d->poses && k < d->pose_parts; ++k) sf_gltf_pose_destroy(d->poses[k]);
    free(d->poses);
    free(d->pose_errors);
    free(d->pose_failed);
    free(d->units);
    free(d->errors);
    free(d->results);
    free(d->unit_errors);
    free(d);
}

static size_t batch_frames(const sf_asset_eval* e)
{
    size_t b = BATCH_VERTICES / (e->vertices ? e->vertices : 1);
    return b < 1 ? 1 : b > BATCH_FRAMES ? BATCH_FRAMES : b;
}

/* The batch buffers, made once per asset. */
static sf_result device_clip_ensure(sf_asset_eval* e, sf_error* err)
{
    if (e->device) return SF_OK;
    sfi_device_clip* d = calloc(1, sizeof *d);
    if (!d) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    e->device = d;
    d->batch = batch_frames(e);
    d->units = calloc(e->unit_count, sizeof *d->units);
    d->errors = calloc(e->unit_count * SF_METHOD_COUNT * d->batch, sizeof *d->errors);
    d->results = calloc(e->unit_count, sizeof *d->results);
    d->unit_errors = calloc(e->unit_count, sizeof *d->unit_errors);
    if (!d->units || !d->errors || !d->results || !d->unit_errors)
        return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    size_t parts = e->o.threads && e->env.threads.parallel_for ? e->o.threads : 1;
    d->pose_parts = parts > POSE_PARTS ? POSE_PARTS : parts > d->batch ? d->batch : parts;
    d->poses = calloc(d->pose_parts, sizeof *d->poses);
    d->pose_errors = calloc(d->pose_parts, sizeof *d->pose_errors);
    d->pose_failed = calloc(d->pose_parts, sizeof *d->pose_failed);
    if (!d->poses || !d->pose_errors || !d->pose_failed)
        return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    d->poses[0] = e->pose;
    for (size_t k = 1; k < d->pose_parts; ++k) {
        sf_result r = sf_gltf_pose_create(e->g, NULL, &d->poses[k], err);
        if (r != SF_OK) return r;
    }
    for (size_t i = 0; i < e->unit_count; ++i) {
        const sf_asset_unit* u = &e->units[i];
        device_unit* du = &d->units[i];
        size_t B = u->pose.bone_count, T = u->pose.morph_weight_count;
        du->bones = calloc(d->batch * 12 * (B ? B : 1), sizeof(float));
        du->morph = calloc(d->batch * T + 1, sizeof(float)); /* one spare, as the units' own */
        du->poses = calloc(d->batch, sizeof *du->poses);
        if (!du->bones || !du->morph || !du->poses) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
        for (size_t j = 0; j < d->batch; ++j) {
            du->poses[j] = u->pose;
            du->poses[j].bone_matrices = du->bones + 12 * B * j;
            du->poses[j].morph_weights = du->morph + T * j;
        }
    }
    /* each unit's device scratch for a whole batch now, so that no batch of the clips allocates (an allocation
     * waits for every stream's queued work) */
    for (size_t i = 0; i < e->unit_count; ++i) {
        sf_result r = sf_workspace_reserve(e->units[i].ws, d->batch, err);
        if (r != SF_OK) return r;
    }
    return SF_OK;
}

typedef struct pose_job {
    sf_asset_eval* e;
    size_t animation, first, count;
    const sf_clip_plan* plan;
} pose_job;

/* Part k of the batch's frames, with the part's own glTF pose: every unit posed at each frame into its batch. */
static void pose_part(void* ctx, size_t begin, size_t end)
{
    const pose_job* job = ctx;
    sf_asset_eval* e = job->e;
    sfi_device_clip* d = e->device;
    for (size_t k = begin; k < end; ++k) {
        sf_gltf_pose* pose = d->poses[k];
        sf_error ee;
        size_t from = job->count * k / d->pose_parts, to = job->count * (k + 1) / d->pose_parts;
        d->pose_failed[k] = SIZE_MAX;
        for (size_t j = from; j < to && d->pose_failed[k] == SIZE_MAX; ++j) {
            sf_result r = sf_gltf_pose_sample(pose, job->animation, sf_clip_plan_time(job->plan, job->first + j), &ee);
            if (r != SF_OK) sfi_eval_fail(&d->pose_errors[k], r, "%s", ee.message);
            for (size_t i = 0; r == SF_OK && i < e->unit_count; ++i) {
                const sf_asset_unit* u = &e->units[i];
                sf_pose* p = &d->units[i].poses[j];
                r = sf_gltf_pose_instance(pose, u->instance, (float*)p->bone_matrices, (float*)p->morph_weights, NULL,
                                          &ee);
                if (r != SF_OK) sfi_eval_fail(&d->pose_errors[k], r, "instance %zu: %s", u->instance, ee.message);
            }
            if (r != SF_OK) d->pose_failed[k] = j;
        }
    }
}

/* Frames [first, first + count): every unit posed at each into its batch, the parts over the threads; an error is
 * the earliest frame's, as a serial loop would stop at. */
static sf_result pose_batch(sf_asset_eval* e, size_t animation, const sf_clip_plan* plan, size_t first, size_t count,
                            sf_error* err)
{
    sfi_device_clip* d = e->device;
    pose_job job = {e, animation, first, count, plan};
    sf_env_parallel_for(&e->env, d->pose_parts, 1, pose_part, &job);
    for (size_t k = 0; k < d->pose_parts; ++k)
        if (d->pose_failed[k] != SIZE_MAX) {
            *err = d->pose_errors[k];
            return err->result;
        }
    return SF_OK;
}

typedef struct batch_job {
    sf_asset_eval* e;
    size_t count;
    int first;
} batch_job;

/* Units [begin, end) of the batch: queued on each unit's device stream, then each row's poses read back (a
 * thread per few units, so that the host's side of the launches overlaps). */
static void batch_range(void* ctx, size_t begin, size_t end)
{
    const batch_job* job = ctx;
    sf_asset_eval* e = job->e;
    sfi_device_clip* d = e->device;
    for (size_t i = begin; i < end; ++i) {
        sf_error* ee = &d->unit_errors[i];
        sf_result r =
            sf_evaluation_run_poses(e->evals[i], d->units[i].poses, job->count, e->units[i].ws, job->first, ee);
        const sf_eval_results* res = sf_evaluation_results(e->evals[i]);
        for (size_t k = 0; r == SF_OK && k < res->row_count; ++k)
            if (res->rows[k].status == SF_OK)
                r = sf_evaluation_pose_errors(e->evals[i], k, d->errors + (i * SF_METHOD_COUNT + k) * d->batch, ee);
        d->results[i] = r;
    }
}

/* Whether a unit's reference tangents are MikkTSpace's: made on the host, over the threads, from each batch. */
static bool host_tangents(const sf_asset_eval* e)
{
    const sf_frames_opts* r = &e->o.reference_opts;
    bool mikk = r->tangents == SF_TANGENTS_MIKKTSPACE && r->reference == SF_REFERENCE_REBUILT;
    for (size_t i = 0; mikk && i < e->unit_count; ++i)
        if (e->units[i].tangents) return true;
    return false;
}

/* The batch on every unit; rows the device cannot run mark their methods skipped. The units go over the threads,
 * unless their host MikkTSpace takes them (a pass nested in another runs on one thread). */
static sf_result run_batch(sf_asset_eval* e, size_t count, int first, sf_error* err)
{
    sfi_device_clip* d = e->device;
    batch_job job = {e, count, first};
    if (host_tangents(e))
        batch_range(&job, 0, e->unit_count);
    else
        sf_env_parallel_for(&e->env, e->unit_count, 1, batch_range, &job);
    for (size_t i = 0; i < e->unit_count; ++i) {
        const sf_eval_results* res = sf_evaluation_results(e->evals[i]);
        const sf_error* ee = &d->unit_errors[i];
        if (d->results[i] != SF_OK) return sfi_unit_fail(e->g, &e->units[i], res, ee, err);
        for (size_t k = 0; k < res->row_count; ++k) {
            const sf_eval_row* row = &res->rows[k];
            sf_method_stats* m = &e->methods[row->method];
            if (m->skipped || row->status != SF_ERROR_UNSUPPORTED) continue;
            m->skipped = true;
            snprintf(m->reason, sizeof m->reason, "%s", row->detail.message);
        }
    }
    return SF_OK;
}

/* Frame f (batch index j) of every unit into the methods' statistics, as the CPU adds a frame. */
static void fold_frame(sf_asset_eval* e, size_t j, size_t f)
{
    const sf_asset_eval_opts* o = &e->o;
    const sfi_device_clip* d = e->device;
    for (size_t k = 0; k < o->method_count; ++k) sf_method_stats_frame_start(&e->methods[o->methods[k]]);
    for (size_t i = 0; i < e->unit_count; ++i) {
        const sf_asset_unit* u = &e->units[i];
        const sf_eval_results* res = sf_evaluation_results(e->evals[i]);
        for (size_t k = 0; k < res->row_count; ++k) {
            sf_method_stats* m = &e->methods[res->rows[k].method];
            if (m->skipped) continue;
            sfi_method_stats_add_pose(m, &d->errors[(i * SF_METHOD_COUNT + k) * d->batch + j], u->n, u->tangents, i,
                                      f);
        }
    }
    for (size_t k = 0; k < o->method_count; ++k) {
        sf_method_stats* m = &e->methods[o->methods[k]];
        if (!m->skipped) sf_method_stats_frame_end(m, f);
    }
}

/* The clip's histograms: every unit's added on the device to one unit's (one with a tangent frame, if any), then
 * read once per row into the methods' accumulators. */
static sf_result clip_histograms(sf_asset_eval* e, sf_error* err)
{
    sf_error ee;
    size_t into = 0;
    while (into + 1 < e->unit_count && !e->units[into].tangents) ++into;
    if (!e->units[into].tangents) into = 0;
    for (size_t i = 0; i < e->unit_count; ++i)
        if (i != into && sf_evaluation_add_poses(e->evals[into], e->evals[i], &ee) != SF_OK)
            return sfi_eval_fail(err, ee.result, "statistics: %s", ee.message);
    const sf_eval_results* res = sf_evaluation_results(e->evals[into]);
    for (size_t k = 0; k < res->row_count; ++k) {
        sf_method_stats* m = &e->methods[res->rows[k].method];
        if (m->skipped) continue;
        if (sf_evaluation_accumulate(e->evals[into], k, m->normal_acc, e->units[into].tangents ? m->tangent_acc : NULL,
                                     &ee) != SF_OK)
            return sfi_eval_fail(err, ee.result, "statistics: %s", ee.message);
    }
    return SF_OK;
}

/* With SF_CUDA_PROFILE=1: the clip's stages in seconds to stderr (the backend prints its own at exit). The
 * WebAssembly build has no environment to read: the page's WASI imports give it none. */
static void print_stages(const double* s)
{
#if defined(__wasi__)
    (void)s;
#else
    const char* v = getenv("SF_CUDA_PROFILE");
    if (!v || !v[0] || strcmp(v, "0") == 0) return;
    fprintf(stderr, "SF_CUDA_PROFILE clip: poses %.4f s, batches evaluated %.4f s, frames folded %.4f s, "
                    "histograms %.4f s\n", s[0], s[1], s[2], s[3]);
#endif
}

sf_result sfi_device_clip_run(sf_asset_eval* e, size_t animation, const sf_clip_plan* plan, sf_asset_frame_fn on_frame,
                          void* user, sf_asset_clip* out, sf_error* err)
{
    sf_result r = device_clip_ensure(e, err);
    size_t batch = e->device ? e->device->batch : 1;
    double stage[4] = {0}, t = sfi_eval_now_s(), now;
#define STAGE(k) (now = sfi_eval_now_s(), stage[k] += now - t, t = now)
    for (size_t first = 0; r == SF_OK && first < plan->frames; first += batch) {
        size_t count = plan->frames - first < batch ? plan->frames - first : batch;
        r = pose_batch(e, animation, plan, first, count, err);
        STAGE(0);
        if (r == SF_OK) r = run_batch(e, count, first == 0, err);
        STAGE(1);
        for (size_t j = 0; r == SF_OK && j < count; ++j) {
            fold_frame(e, j, first + j);
            if (on_frame && on_frame(user, out, first + j, sf_clip_plan_time(plan, first + j)) != 0) {
                out->stopped = true;
                r = sfi_eval_fail(err, SF_ERROR_INVALID_ARGUMENT, "stopped");
            }
        }
        STAGE(2);
    }
    if (r == SF_OK) r = clip_histograms(e, err);
    STAGE(3);
#undef STAGE
    print_stages(stage);
    return r;
}

sf_result sfi_device_clip_rest(sf_asset_eval* e, sf_error* err)
{
    sf_result r = device_clip_ensure(e, err);
    for (size_t i = 0; r == SF_OK && i < e->unit_count; ++i) {
        const sf_pose* p = &e->device->units[i].poses[0];
        float* bones = (float*)p->bone_matrices;
        for (size_t b = 0; b < p->bone_count; ++b) {
            float* m = bones + 12 * b;
            memset(m, 0, 12 * sizeof(float));
            m[0] = m[4] = m[8] = 1.0f;
        }
        memset((float*)p->morph_weights, 0, p->morph_weight_count * sizeof(float));
    }
    if (r == SF_OK) r = run_batch(e, 1, 1, err);
    return r == SF_OK ? clip_histograms(e, err) : r;
}

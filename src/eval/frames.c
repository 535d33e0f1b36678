/* The frames of a clip spread over threads: each slot evaluates whole frames with a pose, unit buffers,
 * workspaces, evaluations and histograms of its own, built by the thread that first takes it in a batch with
 * frames left (while the slots already built run frames), taking the batch's next frame whenever it finishes one;
 * each frame's sums, extremes and worst vertices come back as a part, and the parts are folded in frame order.
 * Histogram counts add exactly in any order and the sums are folded frame by frame, so the statistics are the
 * same bit for bit for any number of threads and whichever slot ran a frame. */
#include "eval_internal.h"
#include "pose_errors.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS_MAX 32                    /* each holds histograms of about 1.7 MB per method and direction */
#define FRAMES_PER_SLOT 32              /* per batch: the fold runs between batches, whose ends leave slots idle */
#define SLOT_VERTICES ((size_t)1 << 22) /* slots x vertices per frame at most (larger meshes thread inside) */

/* One method's share of one frame. */
typedef struct frame_part {
    double sn, st, sn2, st2;
    float mn, mt;
    size_t cn, ct, handedness;
    double worst_n, worst_t;
    size_t wn_unit, wn_vertex, wt_unit, wt_vertex;
    bool unsupported;
    char reason[256];
} frame_part;

typedef struct frame_slot {
    sf_gltf_pose* pose;    /* slot 0: the asset's own */
    sf_asset_unit* units;  /* copies with their own bones, morph and workspace; slot 0: the asset's own */
    sf_evaluation** evals; /* slot 0: the asset's own */
    float* angles;         /* per method 2 * max_n */
    sf_method_stats stats[SF_METHOD_COUNT]; /* histograms over the slot's frames; frame_* per frame */
    bool built;            /* everything above in place */
    bool used;             /* took a frame of this clip */
    sf_result build_result; /* of the last build tried in a batch: SF_OK or why it failed (build_error) */
    sf_error build_error;
} frame_slot;

struct sfi_frame_slots {
    frame_slot* list;
    size_t count;          /* built or not */
    frame_part* parts;     /* batch * method_count */
    sf_result* results;    /* batch: each frame's outcome */
    sf_error* errors;
    size_t batch;
};

static void slot_free(frame_slot* s, size_t index, size_t unit_count)
{
    if (index > 0) {
        for (size_t i = 0; i < unit_count; ++i) {
            bool own = !s->units || s->units[i].owner == i;
            if (s->evals && own) sf_evaluation_destroy(s->evals[i]);
            if (s->units) {
                if (own) sf_workspace_destroy(s->units[i].ws);
                free(s->units[i].bones);
                free(s->units[i].morph);
            }
        }
        free(s->evals);
        free(s->units);
        sf_gltf_pose_destroy(s->pose);
    }
    free(s->angles);
    sf_method_stats_free(s->stats);
}

void sfi_frame_slots_destroy(sfi_frame_slots* fs, size_t unit_count)
{
    if (!fs) return;
    for (size_t k = 0; k < fs->count; ++k) slot_free(&fs->list[k], k, unit_count);
    free(fs->list);
    free(fs->parts);
    free(fs->results);
    free(fs->errors);
    free(fs);
}

/* Slot s > 0's copy of unit i: the same topology, its own pose buffers, and the workspace and evaluation of
 * the slot's copy of its owner (its own when it owns them). */
static sf_result unit_copy(const sf_asset_eval* e, frame_slot* s, size_t i, sf_error* err)
{
    const sf_asset_unit* u = &e->units[i];
    sf_asset_unit* c = &s->units[i];
    *c = *u;
    c->ws = NULL;
    c->owner = i; /* until the buffers are in place: freed as its own */
    c->bones = calloc(12 * (u->pose.bone_count ? u->pose.bone_count : 1), sizeof(float));
    c->morph = calloc(u->pose.morph_weight_count + 1, sizeof(float));
    if (!c->bones || !c->morph) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    c->pose.bone_matrices = c->bones;
    c->pose.morph_weights = c->morph;
    if (u->owner != i) {
        c->owner = u->owner;
        c->ws = s->units[u->owner].ws;
        s->evals[i] = s->evals[u->owner];
        return SF_OK;
    }
    sf_workspace_opts wopts = {e->methods_mask | (1u << SF_METHOD_RECOMPUTE), e->o.backend};
    sf_error ee;
    sf_result r = sf_workspace_create(u->topo, &wopts, &c->ws, &ee);
    if (r != SF_OK) return sfi_eval_fail(err, r, "workspace: %s", ee.message);
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.methods = e->o.methods;
    desc.method_count = e->o.method_count;
    desc.method_opts = e->o.method_opts;
    desc.reference_opts = e->o.reference_opts;
    desc.flags = SF_EVAL_NO_STATISTICS;
    r = sf_evaluation_create(u->topo, &desc, NULL, &s->evals[i], &ee);
    if (r != SF_OK) return sfi_eval_fail(err, r, "evaluation: %s", ee.message);
    return SF_OK;
}

static sf_result slot_init(sf_asset_eval* e, frame_slot* s, size_t index, sf_error* err)
{
    memset(s, 0, sizeof *s);
    s->angles = calloc(2 * SF_METHOD_COUNT * (e->max_n ? e->max_n : 1), sizeof(float));
    if (!s->angles) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory for %zu vertices", e->max_n);
    sf_result r = sf_method_stats_create(s->stats, e->o.methods, e->o.method_count, err);
    if (r != SF_OK) return r;
    if (index == 0) {
        s->pose = e->pose;
        s->units = e->units;
        s->evals = e->evals;
        return SF_OK;
    }
    if ((r = sf_gltf_pose_create(e->g, NULL, &s->pose, err)) != SF_OK) return r;
    s->units = calloc(e->unit_count, sizeof *s->units);
    s->evals = calloc(e->unit_count, sizeof *s->evals);
    if (!s->units || !s->evals) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < e->unit_count; ++i)
        if ((r = unit_copy(e, s, i, err)) != SF_OK) return r;
    return SF_OK;
}

/* How many frames run at once: the threads asked for, one with variants (they keep one evaluation per unit),
 * fewer on large meshes (whose own loops spread over the threads), no more than the clip's frames. */
static size_t slot_count(const sf_asset_eval* e, size_t frames)
{
    size_t n = e->o.threads ? e->o.threads : 1;
    if (!e->env.threads.parallel_for || sfi_variants_count(e->variants) > 0) n = 1;
    if (n > SLOTS_MAX) n = SLOTS_MAX;
    size_t by_size = e->vertices ? SLOT_VERTICES / e->vertices : n;
    if (n > by_size) n = by_size ? by_size : 1;
    if (n > frames) n = frames ? frames : 1;
    return n;
}

/* The slots for a clip of `frames` frames (grown, never shrunk), the new ones empty: batch_range builds each
 * where it first runs, so that the slots' workspaces and evaluations are built over the threads beside the frames
 * of the slots already built, instead of every thread waiting for the slowest build first. */
static sf_result slots_ensure(sf_asset_eval* e, size_t frames, sf_error* err)
{
    size_t want = slot_count(e, frames);
    sfi_frame_slots* fs = e->slots;
    if (!fs) {
        fs = e->slots = calloc(1, sizeof *fs);
        if (!fs) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    if (want <= fs->count && fs->batch) return SF_OK;
    frame_slot* list = realloc(fs->list, want * sizeof *list);
    if (!list) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    fs->list = list;
    if (want > fs->count) {
        memset(fs->list + fs->count, 0, (want - fs->count) * sizeof *fs->list); /* freed as they are, built or not */
        fs->count = want;
    }
    size_t batch = want * FRAMES_PER_SLOT;
    free(fs->parts), free(fs->results), free(fs->errors);
    fs->parts = calloc(batch * (e->o.method_count ? e->o.method_count : 1), sizeof *fs->parts);
    fs->results = calloc(batch, sizeof *fs->results);
    fs->errors = calloc(batch, sizeof *fs->errors);
    fs->batch = fs->parts && fs->results && fs->errors ? batch : 0;
    return fs->batch ? SF_OK : sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
}

/* Row k of unit i's last run in slot s into the slot's statistics of the frame. */
static sf_result slot_row(const sf_asset_eval* e, frame_slot* s, const sf_eval_row* row, const sf_eval_row_buffers* b,
                          const sf_asset_unit* u, size_t i, size_t frame, frame_part* part, sf_error* err)
{
    sf_method_stats* m = &s->stats[row->method];
    if (e->methods[row->method].skipped || part->unsupported) return SF_OK;
    if (row->status == SF_ERROR_UNSUPPORTED) {
        part->unsupported = true;
        snprintf(part->reason, sizeof part->reason, "%s", row->detail.message);
        return SF_OK;
    }
    m->handedness += row->errors.handedness_mismatches;
    return sf_method_stats_add(m, b->normal_deg, b->tangent_deg, u->n, i, frame, true, err);
}

/* Unit i of slot s at its current pose: the evaluation, its rows into the frame's parts, the variants. */
static sf_result slot_unit(sf_asset_eval* e, frame_slot* s, size_t i, size_t frame, frame_part* parts, sf_error* err)
{
    sf_asset_unit* u = &s->units[i];
    const sf_eval_results* res = sf_evaluation_results(s->evals[i]);
    sf_eval_buffers b;
    memset(&b, 0, sizeof b);
    for (size_t k = 0; k < res->row_count; ++k) {
        float* mine = s->angles + 2 * e->max_n * (size_t)res->rows[k].method;
        b.rows[k].normal_deg = mine;
        b.rows[k].tangent_deg = u->tangents ? mine + e->max_n : NULL;
    }
    sf_error ee;
    if (sf_evaluation_run(s->evals[i], &u->pose, u->ws, &b, &ee) != SF_OK) {
        return sfi_unit_fail(e->g, u, res, &ee, err);
    }
    for (size_t k = 0; k < res->row_count && k < e->o.method_count; ++k) {
        sf_result r = slot_row(e, s, &res->rows[k], &b.rows[k], u, i, frame, &parts[k], err);
        if (r != SF_OK) return r;
    }
    /* only with one slot, whose units and evaluations are the asset's own */
    return sfi_variants_run_unit(e->variants, i, u, s->evals[i], frame, err);
}

/* Frame f in slot s: posed, every unit evaluated, the methods' shares of the frame into parts. */
static sf_result slot_frame(sf_asset_eval* e, frame_slot* s, size_t animation, const sf_clip_plan* plan, size_t f,
                            frame_part* parts, sf_error* err)
{
    const sf_asset_eval_opts* o = &e->o;
    sf_error ee;
    if (sf_gltf_pose_sample(s->pose, animation, sf_clip_plan_time(plan, f), &ee) != SF_OK)
        return sfi_eval_fail(err, ee.result, "%s", ee.message);
    sf_result rv = sfi_variants_sample(e->variants, animation, sf_clip_plan_time(plan, f), err);
    if (rv != SF_OK) return rv;
    for (size_t k = 0; k < o->method_count; ++k) {
        sf_method_stats* m = &s->stats[o->methods[k]];
        sf_method_stats_frame_start(m);
        m->worst_n = m->worst_t = -1.0;
        m->handedness = 0;
        parts[k].unsupported = false;
    }
    sf_result r = SF_OK;
    for (size_t i = 0; r == SF_OK && i < e->unit_count; ++i) {
        r = sf_asset_unit_pose(s->pose, &s->units[i], NULL, err);
        /* the rows are in the methods' order: parts[k] is row k's */
        if (r == SF_OK) r = slot_unit(e, s, i, f, parts, err);
    }
    if (r != SF_OK) return sfi_frame_fail(e->g, animation, sf_clip_plan_time(plan, f), err);
    sfi_variants_frame_end(e->variants, f); /* only with one slot, as above */
    for (size_t k = 0; r == SF_OK && k < o->method_count; ++k) {
        const sf_method_stats* m = &s->stats[o->methods[k]];
        frame_part* p = &parts[k];
        p->sn = m->frame_sn, p->st = m->frame_st, p->sn2 = m->frame_sn2, p->st2 = m->frame_st2;
        p->mn = m->frame_mn, p->mt = m->frame_mt, p->cn = m->frame_cn, p->ct = m->frame_ct;
        p->handedness = m->handedness;
        p->worst_n = m->worst_n, p->wn_unit = m->worst_n_unit, p->wn_vertex = m->worst_n_vertex;
        p->worst_t = m->worst_t, p->wt_unit = m->worst_t_unit, p->wt_vertex = m->worst_t_vertex;
    }
    return r;
}

typedef struct batch_job {
    sf_asset_eval* e;
    size_t animation, first, count, slots;
    atomic_size_t next; /* the batch's next frame to take */
    const sf_clip_plan* plan;
} batch_job;

/* Slots [begin, end) of a batch: each takes the batch's next frame until there is none or one of its own
 * fails. Frames are taken in order, so every frame before a failed one was taken: the first failure in frame
 * order is one that ran. */
static void batch_range(void* ctx, size_t begin, size_t end)
{
    batch_job* job = ctx;
    sf_asset_eval* e = job->e;
    sfi_frame_slots* fs = e->slots;
    for (size_t s = begin; s < end; ++s) {
        frame_slot* slot = &fs->list[s];
        if (!slot->built) { /* built only while frames are left for it; a failed build is freed, to be tried again */
            if (atomic_load(&job->next) >= job->count) continue;
            slot->build_result = slot_init(e, slot, s, &slot->build_error);
            if (slot->build_result != SF_OK) {
                slot_free(slot, s, e->unit_count);
                sf_result r = slot->build_result;
                sf_error why = slot->build_error;
                memset(slot, 0, sizeof *slot);
                slot->build_result = r, slot->build_error = why;
                continue;
            }
            slot->built = true;
        }
        if (!slot->used) { /* the clip's first frame in this slot: empty histograms */
            for (size_t k = 0; k < e->o.method_count; ++k) sf_method_stats_clip_start(&slot->stats[e->o.methods[k]]);
            slot->used = true;
        }
        for (size_t j; (j = atomic_fetch_add(&job->next, 1)) < job->count;) {
            frame_part* parts = fs->parts + j * e->o.method_count;
            fs->results[j] = slot_frame(e, slot, job->animation, job->plan, job->first + j, parts, &fs->errors[j]);
            if (fs->results[j] != SF_OK) break;
        }
    }
}

/* One frame's part of method m folded into the clip's statistics (in frame order). */
static void fold_part(sf_method_stats* m, const frame_part* p, size_t f)
{
    if (p->unsupported) {
        m->skipped = true;
        snprintf(m->reason, sizeof m->reason, "%s", p->reason);
        return;
    }
    m->frame_sn = p->sn, m->frame_st = p->st, m->frame_sn2 = p->sn2, m->frame_st2 = p->st2;
    m->frame_mn = p->mn, m->frame_mt = p->mt, m->frame_cn = p->cn, m->frame_ct = p->ct;
    m->handedness += p->handedness;
    if (p->worst_n > m->worst_n)
        m->worst_n = p->worst_n, m->worst_n_unit = p->wn_unit, m->worst_n_vertex = p->wn_vertex, m->worst_n_frame = f;
    if (p->worst_t > m->worst_t)
        m->worst_t = p->worst_t, m->worst_t_unit = p->wt_unit, m->worst_t_vertex = p->wt_vertex, m->worst_t_frame = f;
    sf_method_stats_frame_end(m, f);
}

#define MERGE_PARTS 64 /* per accumulator: the slots' bins are merged over the threads in this many parts */

typedef struct merge_job {
    sf_asset_eval* e;
    size_t first;       /* the first used slot, whose accumulators became the clip's */
    sf_result* results; /* per job */
} merge_job;

/* Accumulator a (method k's normal at 2k, tangent at 2k + 1) of the clip, or of slot s's statistics. */
static sf_angle_accumulator** accumulator(sf_method_stats* m, size_t a)
{
    return a % 2 ? &m->tangent_acc : &m->normal_acc;
}

/* Jobs [begin, end), job i = a * MERGE_PARTS + part: every used slot's part of accumulator a after the first,
 * in slot order. */
static void merge_range(void* ctx, size_t begin, size_t end)
{
    const merge_job* job = ctx;
    sf_asset_eval* e = job->e;
    const sfi_frame_slots* fs = e->slots;
    for (size_t i = begin; i < end; ++i) {
        size_t a = i / MERGE_PARTS;
        sf_method m = e->o.methods[a / 2];
        for (size_t s = job->first + 1; s < fs->count; ++s)
            if (fs->list[s].used && job->results[i] == SF_OK)
                job->results[i] = sf_angle_accumulator_merge_part(*accumulator(&e->methods[m], a),
                                                                  *accumulator(&fs->list[s].stats[m], a),
                                                                  i % MERGE_PARTS, MERGE_PARTS, NULL);
    }
}

/* Jobs [begin, end), job a: the clip's statistics of accumulator a (sf_method_stats_clip_finish's half). */
static void finish_range(void* ctx, size_t begin, size_t end)
{
    const merge_job* job = ctx;
    sf_asset_eval* e = job->e;
    for (size_t a = begin; a < end; ++a) {
        sf_method_stats* m = &e->methods[e->o.methods[a / 2]];
        job->results[a] = sf_angle_accumulator_finish(*accumulator(m, a), a % 2 ? &m->tangent : &m->normal, NULL);
    }
}

/* The slots' histograms into the clip's statistics, then its mean and RMS from the frames' sums. The clip's
 * accumulators are empty here (emptied at the clip's start, only the frames' sums folded since): the first used
 * slot's are swapped in whole instead of added to them, and the empty ones go to that slot, which empties its
 * own at its next clip. One thread's clip merges nothing, and the others add into bins that are already in
 * memory. The rest are merged in parts over the threads: one thread per accumulator would add every slot's
 * bins alone, a share of the clip's time that grows with the slots. */
static sf_result clip_merge(sf_asset_eval* e, sf_error* err)
{
    const sf_asset_eval_opts* o = &e->o;
    sfi_frame_slots* fs = e->slots;
    size_t first = 0;
    while (first < fs->count && !fs->list[first].used) ++first;
    for (size_t a = 0; first < fs->count && a < 2 * o->method_count; ++a) {
        sf_angle_accumulator** mine = accumulator(&e->methods[o->methods[a / 2]], a);
        sf_angle_accumulator** slot = accumulator(&fs->list[first].stats[o->methods[a / 2]], a);
        sf_angle_accumulator* t = *mine;
        *mine = *slot, *slot = t;
    }
    sf_result results[2 * SF_METHOD_COUNT * MERGE_PARTS];
    size_t jobs = 2 * o->method_count * MERGE_PARTS;
    for (size_t i = 0; i < jobs; ++i) results[i] = SF_OK;
    merge_job job = {e, first, results};
    if (first + 1 < fs->count) sf_env_parallel_for(&e->env, jobs, 1, merge_range, &job);
    for (size_t i = 0; i < jobs; ++i)
        if (results[i] != SF_OK) return sfi_eval_fail(err, results[i], "statistics: merging the threads' histograms");
    /* each accumulator's percentiles over the threads: a walk over its bins, 14 of them one after another would
       be a serial share of the clip */
    size_t accs = 2 * o->method_count;
    for (size_t a = 0; a < accs; ++a) results[a] = SF_OK;
    sf_env_parallel_for(&e->env, accs, 1, finish_range, &job);
    for (size_t a = 0; a < accs; ++a)
        if (results[a] != SF_OK) return sfi_eval_fail(err, results[a], "statistics: the clip's percentiles");
    for (size_t k = 0; k < o->method_count; ++k) sfi_method_stats_clip_sums(&e->methods[o->methods[k]]);
    return SF_OK;
}

sf_result sfi_frame_slots_clip(sf_asset_eval* e, size_t animation, const sf_clip_plan* plan,
                               sf_asset_frame_fn on_frame, void* user, sf_asset_clip* out, sf_error* err)
{
    const sf_asset_eval_opts* o = &e->o;
    sf_result r = slots_ensure(e, plan->frames, err);
    if (r != SF_OK) return r;
    sfi_frame_slots* fs = e->slots;
    for (size_t s = 0; s < fs->count; ++s) fs->list[s].used = false;
    size_t slots = slot_count(e, plan->frames);
    size_t batch = slots * FRAMES_PER_SLOT;
    for (size_t first = 0; r == SF_OK && first < plan->frames; first += batch) {
        size_t count = plan->frames - first < batch ? plan->frames - first : batch;
        batch_job job = {.e = e, .animation = animation, .first = first, .count = count, .plan = plan};
        job.slots = count < slots ? count : slots;
        atomic_init(&job.next, 0);
        for (size_t j = 0; j < count; ++j) fs->results[j] = SF_ERROR_INVALID_ARGUMENT; /* not reached */
        for (size_t s = 0; s < job.slots; ++s) fs->list[s].build_result = SF_OK;
        sf_env_parallel_for(&e->env, job.slots, 1, batch_range, &job);
        for (size_t s = 0; s < job.slots; ++s) /* the frames may all have run, but a slot that cannot be built fails */
            if (fs->list[s].build_result != SF_OK) {
                if (err) *err = fs->list[s].build_error;
                return fs->list[s].build_result;
            }
        for (size_t j = 0; r == SF_OK && j < job.count; ++j) {
            size_t f = first + j;
            if (fs->results[j] != SF_OK) {
                if (err) *err = fs->errors[j];
                return fs->results[j];
            }
            for (size_t k = 0; k < o->method_count; ++k) {
                sf_method_stats* m = &e->methods[o->methods[k]];
                sf_method_stats_frame_start(m);
                if (!m->skipped) fold_part(m, &fs->parts[j * o->method_count + k], f);
            }
            if (on_frame && on_frame(user, out, f, sf_clip_plan_time(plan, f)) != 0) {
                out->stopped = true;
                r = sfi_eval_fail(err, SF_ERROR_INVALID_ARGUMENT, "stopped");
            }
        }
    }
    return r == SF_OK ? clip_merge(e, err) : r;
}

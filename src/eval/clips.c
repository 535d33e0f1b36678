/* The evaluation of one asset: every frame of a clip posed and evaluated, every method's normals and tangents
 * measured against the reference (recompute) into streaming statistics, and the variants beside it; the error
 * the asset already has at rest. Memory does not grow with the frames. */
#include "eval_internal.h"
#include "pose_errors.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


void sf_asset_eval_opts_init(sf_asset_eval_opts* opts)
{
    memset(opts, 0, sizeof *opts);
    opts->fps = 30.0;
    opts->max_frames = SF_ASSET_DEFAULT_MAX_FRAMES;
}

void sf_asset_eval_destroy(sf_asset_eval* e)
{
    if (!e) return;
    sfi_frame_slots_destroy(e->slots, e->unit_count);
    sfi_device_clip_destroy(e->device, e->unit_count);
    sfi_variants_destroy(e->variants);
    for (size_t i = 0; e->evals && i < e->unit_count; ++i)
        if (e->units[i].owner == i) sf_evaluation_destroy(e->evals[i]);
    free(e->evals);
    sf_asset_units_free(e->units, e->unit_count);
    free(e->angles);
    sf_method_stats_free(e->methods);
    sf_gltf_pose_destroy(e->pose);
    free(e);
}

/* The units' statistics stay on the GPU (a clip's frames in batches there, device_clip.c): CUDA workspaces and no
 * variant (engines, caps), which measures against the full evaluation's reference frames on the host. Per-corner
 * MikkTSpace reference tangents are made on the host from the GPU's frames and measured there. */
static bool stats_on_gpu(const sf_asset_eval* e)
{
    return e->o.backend == SF_BACKEND_CUDA && sfi_variants_count(e->variants) == 0;
}

/* The units, and an evaluation per unit that writes the angles into our buffers (run_unit). */
static sf_result build_units(sf_asset_eval* e, const sf_env* env, sf_error* err)
{
    const sf_asset_eval_opts* o = &e->o;
    uint32_t mask = sfi_variants_methods_mask(o);
    for (size_t k = 0; k < o->method_count; ++k) mask |= 1u << o->methods[k];
    e->methods_mask = mask;
    sf_result r = sf_asset_units_create(e->g, mask, o->backend, env, &e->units, &e->unit_count, err);
    if (r != SF_OK) return strcmp(err->message, "out of memory") == 0 ? r : sfi_eval_prefix(err, o->name);
    e->evals = calloc(e->unit_count + 1, sizeof *e->evals);
    if (!e->evals) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    r = sfi_variants_create(o, e->g, e->units, e->unit_count, env, &e->variants, err); /* before stats_on_gpu */
    if (r != SF_OK) return r;
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.methods = o->methods;
    desc.method_count = o->method_count;
    desc.method_opts = o->method_opts;
    desc.reference_opts = o->reference_opts;
    for (size_t i = 0; i < e->unit_count; ++i) {
        const sf_asset_unit* u = &e->units[i];
        sf_error ee;
        /* On the GPU the statistics stay there: each run's summary (sum, max, worst vertex) and the histogram
         * merged into the accumulators, no angle copied back. Elsewhere the angles of every frame go into the
         * accumulators (stats.c), so the evaluation skips its per-run statistics. */
        desc.flags = stats_on_gpu(e) ? 0 : SF_EVAL_NO_STATISTICS;
        if (u->owner != i) {
            e->evals[i] = e->evals[u->owner]; /* run one unit at a time, its angles taken before the next */
        } else {
            r = sf_evaluation_create(u->topo, &desc, NULL, &e->evals[i], &ee);
            if (r == SF_ERROR_OUT_OF_MEMORY) return sfi_eval_fail(err, r, "out of memory");
            if (r != SF_OK) return sfi_eval_fail(err, r, "evaluation: %s", ee.message);
        }
        e->vertices += u->n;
        if (u->tangents) e->tangent_vertices += u->n;
        if (u->n > e->max_n) e->max_n = u->n;
    }
    e->angles = calloc(2 * SF_METHOD_COUNT * (e->max_n ? e->max_n : 1), sizeof(float));
    if (!e->angles) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory for %zu vertices", e->max_n);
    return sf_method_stats_create(e->methods, o->methods, o->method_count, err);
}

sf_result sf_asset_eval_create(const sf_gltf* g, const sf_asset_eval_opts* opts, const sf_env* env,
                               sf_asset_eval** out, sf_error* err)
{
    sf_error local;
    if (!err) err = &local;
    *out = NULL;
    if (!g || !opts || opts->method_count > SF_METHOD_COUNT || (opts->method_count && !opts->methods))
        return sfi_eval_fail(err, SF_ERROR_INVALID_ARGUMENT, "sf_asset_eval_create: no asset or bad methods");
    sf_asset_eval* e = calloc(1, sizeof *e);
    if (!e) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    e->o = *opts;
    if (opts->method_count) memcpy(e->methods_order, opts->methods, opts->method_count * sizeof *opts->methods);
    e->o.methods = e->methods_order;
    e->g = g;
    if (env) e->env = *env;
    sf_result r = sf_gltf_pose_create(g, NULL, &e->pose, err);
    if (r == SF_OK) r = build_units(e, env, err);
    if (r != SF_OK) {
        sf_asset_eval_destroy(e);
        return r;
    }
    *out = e;
    return SF_OK;
}

sf_result sfi_asset_run_unit(sf_asset_eval* e, size_t i, size_t frame, bool track_worst, sf_asset_unit_fn on_unit,
                             void* user, const float* to_world, bool* stopped, sf_error* err)
{
    const sf_asset_unit* u = &e->units[i];
    const sf_eval_results* res = sf_evaluation_results(e->evals[i]);
    sf_eval_buffers b;
    memset(&b, 0, sizeof b);
    for (size_t k = 0; k < res->row_count; ++k) {
        float* mine = e->angles + 2 * e->max_n * (size_t)res->rows[k].method;
        b.rows[k].normal_deg = mine;
        b.rows[k].tangent_deg = u->tangents ? mine + e->max_n : NULL;
    }
    if (on_unit && on_unit(user, i, to_world, &b) != 0) {
        *stopped = true;
        return sfi_eval_fail(err, SF_ERROR_INVALID_ARGUMENT, "stopped");
    }
    sf_error ee;
    if (sf_evaluation_run(e->evals[i], &u->pose, u->ws, &b, &ee) != SF_OK) {
        return sfi_unit_fail(e->g, u, res, &ee, err);
    }
    for (size_t k = 0; k < res->row_count; ++k) {
        const sf_eval_row* row = &res->rows[k];
        sf_method_stats* m = &e->methods[row->method];
        if (m->skipped) continue;
        if (row->status == SF_ERROR_UNSUPPORTED) {
            m->skipped = true;
            snprintf(m->reason, sizeof m->reason, "%s", row->detail.message);
            continue;
        }
        m->handedness += row->errors.handedness_mismatches;
        const float* tangent_deg = u->tangents ? b.rows[k].tangent_deg : NULL;
        sf_result r = sf_method_stats_add(m, b.rows[k].normal_deg, tangent_deg, u->n, i, frame, track_worst, err);
        if (r != SF_OK) return r;
    }
    return SF_OK;
}

sf_result sf_asset_eval_rest(sf_asset_eval* e, sf_error* err)
{
    const sf_asset_eval_opts* o = &e->o;
    for (size_t k = 0; k < o->method_count; ++k) sf_method_stats_clip_start(&e->methods[o->methods[k]]);
    sf_result r = SF_OK;
    if (stats_on_gpu(e)) {
        r = sfi_device_clip_rest(e, err);
        for (size_t k = 0; r == SF_OK && k < o->method_count; ++k)
            r = sf_method_stats_clip_finish(&e->methods[o->methods[k]], true, err);
        return r;
    }
    for (size_t i = 0; r == SF_OK && i < e->unit_count; ++i) {
        sf_asset_unit* u = &e->units[i];
        for (size_t b = 0; b < u->pose.bone_count; ++b) {
            float* m = u->bones + 12 * b;
            memset(m, 0, 12 * sizeof(float));
            m[0] = m[4] = m[8] = 1.0f;
        }
        memset(u->morph, 0, (u->pose.morph_weight_count + 1) * sizeof(float));
        r = sfi_asset_run_unit(e, i, 0, false, NULL, NULL, NULL, NULL, err);
    }
    if (r != SF_OK) return sfi_frame_fail(e->g, SF_GLTF_NONE, 0.0, err);
    for (size_t k = 0; r == SF_OK && k < o->method_count; ++k)
        r = sf_method_stats_clip_finish(&e->methods[o->methods[k]], true, err);
    return r;
}

sf_result sf_asset_clip_plan(const sf_gltf* g, size_t animation, double fps, size_t max_frames, sf_clip_plan* out)
{
    double end = animation == SF_GLTF_NONE || animation >= g->animation_count ? 0.0 : g->animations[animation].end_s;
    return sf_clip_plan_make(end, fps, max_frames, out);
}

/* out emptied and told the asset's counts and statistics; false where the animation does not exist. */
static bool clip_out_start(const sf_asset_eval* e, size_t animation, sf_asset_clip* out)
{
    memset(out, 0, sizeof *out);
    out->animation = animation;
    out->vertices = e->vertices;
    out->tangent_vertices = e->tangent_vertices;
    out->methods = e->methods;
    return animation == SF_GLTF_NONE || animation < e->g->animation_count;
}

sf_result sf_asset_eval_clip(sf_asset_eval* e, size_t animation, sf_asset_frame_fn on_frame, void* user,
                             sf_asset_clip* out, sf_error* err)
{
    sf_error local;
    if (!err) err = &local;
    const sf_asset_eval_opts* o = &e->o;
    if (!clip_out_start(e, animation, out))
        return sfi_eval_fail(err, SF_ERROR_INVALID_ARGUMENT, "no animation %zu", animation);
    if (sf_asset_clip_plan(e->g, animation, o->fps, o->max_frames, &out->plan) != SF_OK)
        return sfi_eval_fail(err, SF_ERROR_TOO_LARGE, "%g s at %g fps needs %.15g frames, more than %zu",
                             out->plan.end_s, o->fps, out->plan.frames_needed, o->max_frames);
    for (size_t k = 0; k < o->method_count; ++k) sf_method_stats_clip_start(&e->methods[o->methods[k]]);
    sfi_variants_clip_start(e->variants);
    double t0 = sfi_eval_now_s();
    sf_result r = SF_OK;
    if (!stats_on_gpu(e)) { /* every frame's angles come to the host: frames over threads, a workspace per unit */
        r = sfi_frame_slots_clip(e, animation, &out->plan, on_frame, user, out, err);
        out->seconds = sfi_eval_now_s() - t0;
        if (r == SF_OK) r = sfi_variants_clip_finish(e->variants, err);
        return r;
    }
    r = sfi_device_clip_run(e, animation, &out->plan, on_frame, user, out, err);
    out->seconds = sfi_eval_now_s() - t0;
    for (size_t k = 0; r == SF_OK && k < o->method_count; ++k)
        r = sf_method_stats_clip_finish(&e->methods[o->methods[k]], false, err);
    return r;
}

sf_result sf_asset_eval_frame(sf_asset_eval* e, size_t animation, double time_s, sf_asset_clip* out, sf_error* err)
{
    return sf_asset_eval_frame_into(e, animation, time_s, NULL, NULL, out, err);
}

sf_result sf_asset_eval_frame_into(sf_asset_eval* e, size_t animation, double time_s, sf_asset_unit_fn on_unit,
                                   void* user, sf_asset_clip* out, sf_error* err)
{
    sf_error local;
    if (!err) err = &local;
    const sf_asset_eval_opts* o = &e->o;
    bool known = clip_out_start(e, animation, out);
    if (stats_on_gpu(e))
        return sfi_eval_fail(err, SF_ERROR_UNSUPPORTED, "one frame at a time runs on the CPU backend only");
    if (!known) return sfi_eval_fail(err, SF_ERROR_INVALID_ARGUMENT, "no animation %zu", animation);
    if (!isfinite(time_s)) return sfi_eval_fail(err, SF_ERROR_NOT_FINITE, "time %g s", time_s);
    sf_clip_plan_make(0.0, o->fps, 1, &out->plan);
    for (size_t k = 0; k < o->method_count; ++k) {
        sf_method_stats* m = &e->methods[o->methods[k]];
        sf_method_stats_clip_start(m);
        sf_method_stats_frame_start(m);
    }
    double t0 = sfi_eval_now_s();
    sf_error ee;
    if (sf_gltf_pose_sample(e->pose, animation, time_s, &ee) != SF_OK)
        return sfi_eval_fail(err, ee.result, "%s", ee.message);
    sf_result r = SF_OK;
    for (size_t i = 0; r == SF_OK && i < e->unit_count; ++i) {
        float to_world[16];
        r = sf_asset_unit_pose(e->pose, &e->units[i], to_world, err);
        if (r == SF_OK) r = sfi_asset_run_unit(e, i, 0, true, on_unit, user, to_world, &out->stopped, err);
    }
    /* a stop is the caller's own: its message stays bare, without the moment that a failure is named by */
    if (r != SF_OK) return out->stopped ? r : sfi_frame_fail(e->g, animation, time_s, err);
    for (size_t k = 0; k < o->method_count; ++k) sf_method_stats_frame_end(&e->methods[o->methods[k]], 0);
    out->seconds = sfi_eval_now_s() - t0;
    return SF_OK;
}

const sf_asset_unit* sf_asset_eval_units(const sf_asset_eval* e, size_t* count)
{
    if (count) *count = e->unit_count;
    return e->units;
}

void sf_asset_eval_counts(const sf_asset_eval* e, size_t* vertices, size_t* tangent_vertices)
{
    if (vertices) *vertices = e->vertices;
    if (tangent_vertices) *tangent_vertices = e->tangent_vertices;
}

sf_asset_influences sf_asset_eval_influences(const sf_asset_eval* e) { return sfi_variants_influences(e->variants); }
size_t sf_asset_eval_variant_count(const sf_asset_eval* e) { return sfi_variants_count(e->variants); }
sf_asset_variant sf_asset_eval_variant(const sf_asset_eval* e, size_t i) { return sfi_variants_at(e->variants, i); }

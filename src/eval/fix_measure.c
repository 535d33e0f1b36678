/* What a repair buys, measured on a loaded asset: `skinned` with morph deltas (the method every engine runs)
 * against the reference, with each target alone at full and half weight and every target at once at the
 * scene's rest pose, then over each animation as `eval` measures it. */
#include "fix_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sweep {
    sf_asset_unit* units;
    size_t count;
    sf_evaluation** evals;
    sf_angle_accumulator *nacc, *tacc;
} sweep;

static void sweep_free(sweep* s)
{
    for (size_t i = 0; s->evals && i < s->count; ++i) sf_evaluation_destroy(s->evals[i]);
    free(s->evals);
    sf_asset_units_free(s->units, s->count);
    sf_angle_accumulator_destroy(s->nacc);
    sf_angle_accumulator_destroy(s->tacc);
}

static sf_result sweep_create(const sf_gltf* g, const sf_frames_opts* ref, const sf_env* env, sweep* s,
                              sf_error* err)
{
    static const sf_method skinned = SF_METHOD_SKINNED;
    uint32_t mask = 1u << SF_METHOD_SKINNED | 1u << SF_METHOD_RECOMPUTE;
    sf_result r = sf_asset_units_create(g, mask, SF_BACKEND_CPU, env, &s->units, &s->count, err);
    if (r != SF_OK) return r;
    s->evals = calloc(s->count + 1, sizeof *s->evals);
    if (!s->evals) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    sf_gltf_pose* pose = NULL;
    r = sf_gltf_pose_create(g, env, &pose, err);
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.methods = &skinned;
    desc.method_count = 1;
    desc.reference_opts = *ref;
    desc.flags = SF_EVAL_KEEP_ANGLES;
    for (size_t i = 0; r == SF_OK && i < s->count; ++i) {
        r = sf_asset_unit_pose(pose, &s->units[i], NULL, err);
        if (r == SF_OK) r = sf_evaluation_create(s->units[i].topo, &desc, env, &s->evals[i], err);
    }
    sf_gltf_pose_destroy(pose);
    if (r == SF_OK) r = sf_angle_accumulator_create(env, &s->nacc, err);
    if (r == SF_OK) r = sf_angle_accumulator_create(env, &s->tacc, err);
    return r;
}

/* One case: every unit with targets at weights w(k) (k < its target count), its angles pooled. */
static sf_result sweep_case(sweep* s, const sf_gltf* g, size_t only, float weight, sf_fix_case* out, sf_error* err)
{
    sf_angle_accumulator_reset(s->nacc);
    sf_angle_accumulator_reset(s->tacc);
    sf_result r = SF_OK;
    for (size_t i = 0; r == SF_OK && i < s->count; ++i) {
        sf_asset_unit* u = &s->units[i];
        size_t targets = g->primitives[u->primitive].mesh.target_count;
        if (!targets || (only != SIZE_MAX && only >= targets)) continue;
        for (size_t k = 0; k < targets; ++k) u->morph[k] = only == SIZE_MAX || only == k ? weight : 0.0f;
        r = sf_evaluation_run(s->evals[i], &u->pose, u->ws, NULL, err);
        if (r == SF_OK) r = sf_evaluation_accumulate(s->evals[i], 0, s->nacc, u->tangents ? s->tacc : NULL, err);
    }
    if (r == SF_OK) r = sf_angle_accumulator_finish(s->nacc, &out->normal, err);
    if (r == SF_OK) r = sf_angle_accumulator_finish(s->tacc, &out->tangent, err);
    return r;
}

/* The morph cases: each target alone at 1 and at 0.5 (pooled over targets), then all targets at 1. */
static sf_result morph_cases(const sf_gltf* g, const sf_frames_opts* ref, const sf_env* env,
                             sf_fix_measure_result* out, sf_error* err)
{
    size_t most = 0;
    for (size_t p = 0; p < g->primitive_count; ++p)
        if (g->primitives[p].mesh.target_count > most) most = g->primitives[p].mesh.target_count;
    for (size_t m = 0; m < g->mesh_count; ++m) out->targets += g->meshes[m].target_count;
    if (!most) return SF_OK;
    sweep s;
    memset(&s, 0, sizeof s);
    sf_result r = sweep_create(g, ref, env, &s, err);
    static const char* const labels[2] = {"each target at 1", "each target at 0.5"};
    static const float weights[2] = {1.0f, 0.5f};
    for (int c = 0; r == SF_OK && c < 2; ++c) {
        sf_fix_case* fc = &out->cases[out->case_count];
        sf_angle_accumulator *pooled_n = NULL, *pooled_t = NULL;
        r = sf_angle_accumulator_create(env, &pooled_n, err);
        if (r == SF_OK) r = sf_angle_accumulator_create(env, &pooled_t, err);
        for (size_t k = 0; r == SF_OK && k < most; ++k) {
            r = sweep_case(&s, g, k, weights[c], fc, err);
            if (r == SF_OK) r = sf_angle_accumulator_merge(pooled_n, s.nacc, err);
            if (r == SF_OK) r = sf_angle_accumulator_merge(pooled_t, s.tacc, err);
        }
        if (r == SF_OK) r = sf_angle_accumulator_finish(pooled_n, &fc->normal, err);
        if (r == SF_OK) r = sf_angle_accumulator_finish(pooled_t, &fc->tangent, err);
        snprintf(fc->label, sizeof fc->label, "%s", labels[c]);
        out->case_count += r == SF_OK;
        sf_angle_accumulator_destroy(pooled_n);
        sf_angle_accumulator_destroy(pooled_t);
    }
    if (r == SF_OK && most > 1) {
        sf_fix_case* fc = &out->cases[out->case_count];
        r = sweep_case(&s, g, SIZE_MAX, 1.0f, fc, err);
        snprintf(fc->label, sizeof fc->label, "every target at 1");
        out->case_count += r == SF_OK;
    }
    sweep_free(&s);
    return r;
}

/* Every animation (or the rest pose of a file without), as `eval` measures it. */
static sf_result clip_cases(const sf_gltf* g, const sf_frames_opts* ref, double fps, const sf_env* env,
                            sf_fix_measure_result* out, sf_error* err)
{
    static const sf_method skinned = SF_METHOD_SKINNED;
    sf_asset_eval_opts o;
    sf_asset_eval_opts_init(&o);
    o.methods = &skinned;
    o.method_count = 1;
    o.reference_opts = *ref;
    if (fps > 0) o.fps = fps;
    sf_asset_eval* e = NULL;
    sf_result r = sf_asset_eval_create(g, &o, env, &e, err);
    size_t clips = g->animation_count ? g->animation_count : 1;
    for (size_t a = 0; r == SF_OK && a < clips && out->case_count < SF_FIX_MAX_CASES; ++a) {
        sf_asset_clip clip;
        r = sf_asset_eval_clip(e, g->animation_count ? a : SF_GLTF_NONE, NULL, NULL, &clip, err);
        if (r != SF_OK) break;
        sf_fix_case* fc = &out->cases[out->case_count++];
        if (g->animation_count) snprintf(fc->label, sizeof fc->label, "clip %zu '%.24s'", a, g->animations[a].name);
        else snprintf(fc->label, sizeof fc->label, "rest pose");
        fc->normal = clip.methods[SF_METHOD_SKINNED].normal;
        fc->tangent = clip.methods[SF_METHOD_SKINNED].tangent;
    }
    sf_asset_eval_destroy(e);
    return r;
}

sf_result sf_fix_measure(const sf_gltf* g, const sf_frames_opts* reference_opts, double fps, const sf_env* env,
                         sf_fix_measure_result* out, sf_error* err)
{
    sf_error local;
    if (!err) err = &local;
    if (!g || !reference_opts || !out)
        return sfi_eval_fail(err, SF_ERROR_INVALID_ARGUMENT, "sf_fix_measure: asset, options and out");
    memset(out, 0, sizeof *out);
    sf_result r = morph_cases(g, reference_opts, env, out, err);
    return r == SF_OK ? clip_cases(g, reference_opts, fps, env, out, err) : r;
}

/* Built-in scenes (docs/design.md section 4): the registry, settings (preset, then the caller's
 * name = value list, in order), and the finishing steps every scene shares: resolved parameter
 * list, posed rig segments and camera framing. The scenes themselves are in scene_sheet.c and
 * scene_props.c. */
#include "scene_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct scene_entry {
    const sf_scene_info* info;
    sfi_scene_build_fn* build;
} scene_entry;

/* The table order is the order `skinframe scenes` lists them: the article's order. */
static const scene_entry scene_table[] = {
    {&sfi_scene_tip_info, sfi_scene_tip_build},     {&sfi_scene_sheet_info, sfi_scene_sheet_build},
    {&sfi_scene_ramp_info, sfi_scene_ramp_build},   {&sfi_scene_elbow_info, sfi_scene_elbow_build},
    {&sfi_scene_strip_info, sfi_scene_strip_build},
};
#define SCENE_COUNT (sizeof scene_table / sizeof scene_table[0])

size_t sf_scene_count(void) { return SCENE_COUNT; }

const sf_scene_info* sf_scene_info_at(size_t index) { return index < SCENE_COUNT ? scene_table[index].info : NULL; }

static const scene_entry* find_entry(const char* name)
{
    for (size_t i = 0; name && i < SCENE_COUNT; ++i)
        if (strcmp(scene_table[i].info->name, name) == 0) return &scene_table[i];
    return NULL;
}

const sf_scene_info* sf_scene_info_find(const char* name)
{
    const scene_entry* e = find_entry(name);
    return e ? e->info : NULL;
}

/* ---------------------------------------------------------------- settings */

/* Appends the names of a list to buf as "a, b, c" (for error messages). */
static void list_names(char* buf, size_t size, const sf_scene_info* info, int presets)
{
    size_t used = 0;
    buf[0] = '\0';
    size_t count = presets ? info->preset_count : info->param_count + info->target_count;
    for (size_t i = 0; i < count && used < size; ++i) {
        const char* name = presets ? info->presets[i].name
                           : i < info->param_count ? info->params[i].name
                                                    : info->targets[i - info->param_count];
        int w = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", name);
        if (w < 0) break;
        used += (size_t)w;
    }
}

/* Applies one setting to values (params) or morph (targets). source/index name it in errors. */
static sf_result apply_setting(const sf_scene_info* info, const char* name, double value, double* values,
                               double* morph, const char* source, size_t index, sf_error* err)
{
    char known[200];
    SF_CHECK(name != NULL, SF_ERROR_INVALID_ARGUMENT, err, source, index, "setting name is NULL");
    for (size_t p = 0; p < info->param_count; ++p) {
        const sf_scene_param_info* pi = &info->params[p];
        if (strcmp(pi->name, name) != 0) continue;
        SF_CHECK(isfinite(value), SF_ERROR_NOT_FINITE, err, source, index, "%s = %g is not a number", name, value);
        SF_CHECK(value >= pi->min_value && value <= pi->max_value, SF_ERROR_INVALID_ARGUMENT, err, source, index,
                 "%s = %g outside [%g, %g] %s", name, value, pi->min_value, pi->max_value, pi->unit);
        SF_CHECK(strcmp(name, "resolution") != 0 || value == floor(value), SF_ERROR_INVALID_ARGUMENT, err, source,
                 index, "resolution = %g must be a whole number", value);
        values[p] = value;
        return SF_OK;
    }
    for (size_t k = 0; k < info->target_count; ++k) {
        if (strcmp(info->targets[k], name) != 0) continue;
        SF_CHECK(isfinite(value), SF_ERROR_NOT_FINITE, err, source, index, "%s = %g is not a number", name, value);
        SF_CHECK(value >= -2.0 && value <= 2.0, SF_ERROR_INVALID_ARGUMENT, err, source, index,
                 "morph weight %s = %g outside [-2, 2]", name, value);
        morph[k] = value;
        return SF_OK;
    }
    list_names(known, sizeof known, info, 0);
    return sf_error_set(err, SF_ERROR_UNKNOWN_NAME, source, index, "scene %s has no parameter or morph target '%s' (%s)",
                    info->name, name, known);
}

/* Applies a preset's "name=value,name=value" list. */
static sf_result apply_preset(const sf_scene_info* info, const sf_scene_preset_info* preset, double* values,
                              double* morph, sf_error* err)
{
    const char* s = preset->settings ? preset->settings : "";
    size_t index = 0;
    while (*s) {
        char name[64];
        size_t len = strcspn(s, "=,");
        SF_CHECK(s[len] == '=' && len > 0 && len < sizeof name, SF_ERROR_INVALID_ARGUMENT, err, "preset", index,
                 "%s: malformed setting in '%s'", preset->name, preset->settings);
        memcpy(name, s, len);
        name[len] = '\0';
        char* end = NULL;
        double value = strtod(s + len + 1, &end);
        SF_CHECK(end != s + len + 1 && (*end == ',' || *end == '\0'), SF_ERROR_INVALID_ARGUMENT, err, "preset", index,
                 "%s: malformed value in '%s'", preset->name, preset->settings);
        sf_result r = apply_setting(info, name, value, values, morph, "preset", index, err);
        if (r != SF_OK) return r;
        s = *end == ',' ? end + 1 : end;
        index++;
    }
    return SF_OK;
}

/* ---------------------------------------------------------------- finishing */

/* Posed rig segments: the rest segments through each bone's matrix. */
static sf_result pose_rig(sfi_scene_ctx* ctx, sf_error* err)
{
    size_t B = ctx->pub.pose.bone_count;
    float* heads = sfi_scene_alloc(ctx, 3 * B, sizeof(float));
    float* tails = sfi_scene_alloc(ctx, 3 * B, sizeof(float));
    if (!heads || !tails) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "scene", SFI_NO_INDEX, "rig");
    for (size_t b = 0; b < B; ++b) {
        const float* m = ctx->pub.pose.bone_matrices + 12 * b;
        for (int end = 0; end < 2; ++end) {
            const float* p = (end ? ctx->bone_rest_tails : ctx->bone_rest_heads) + 3 * b;
            float* o = (end ? tails : heads) + 3 * b;
            for (int k = 0; k < 3; ++k) o[k] = m[k] * p[0] + m[3 + k] * p[1] + m[6 + k] * p[2] + m[9 + k];
        }
    }
    ctx->pub.bone_heads = heads;
    ctx->pub.bone_tails = tails;
    return SF_OK;
}

/* Camera hint: the box around the morphed, skinned positions and the posed rig. */
static void frame_scene(sfi_scene_ctx* ctx)
{
    const sf_mesh_desc* m = &ctx->pub.mesh;
    const sf_pose* pose = &ctx->pub.pose;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t v = 0; v < m->vertex_count; ++v) {
        double p[3];
        for (int k = 0; k < 3; ++k) p[k] = m->positions.data[3 * v + k];
        for (size_t t = 0; t < m->target_count; ++t) {
            double a = pose->morph_weights ? pose->morph_weights[t] : 0.0;
            for (int k = 0; k < 3; ++k) p[k] += a * m->targets[t].position_deltas[3 * v + k];
        }
        double q[3] = {0, 0, 0};
        double wsum = 0.0;
        for (uint32_t i = 0; i < m->influence_count; ++i) {
            double w = m->weights[(size_t)m->influence_count * v + i];
            const float* b = pose->bone_matrices + 12 * m->joints[(size_t)m->influence_count * v + i];
            for (int k = 0; k < 3; ++k) q[k] += w * (b[k] * p[0] + b[3 + k] * p[1] + b[6 + k] * p[2] + b[9 + k]);
            wsum += w;
        }
        for (int k = 0; k < 3; ++k) {
            double x = wsum > 0.0 ? q[k] / wsum : p[k];
            if (x < lo[k]) lo[k] = x;
            if (x > hi[k]) hi[k] = x;
        }
    }
    for (size_t b = 0; b < pose->bone_count; ++b) {
        for (int k = 0; k < 3; ++k) {
            double x[2] = {ctx->pub.bone_heads[3 * b + k], ctx->pub.bone_tails[3 * b + k]};
            for (int e = 0; e < 2; ++e) {
                if (x[e] < lo[k]) lo[k] = x[e];
                if (x[e] > hi[k]) hi[k] = x[e];
            }
        }
    }
    double r2 = 0.0;
    for (int k = 0; k < 3; ++k) {
        if (!(lo[k] <= hi[k])) lo[k] = hi[k] = 0.0;
        ctx->pub.center[k] = (float)(0.5 * (lo[k] + hi[k]));
        r2 += 0.25 * (hi[k] - lo[k]) * (hi[k] - lo[k]);
    }
    ctx->pub.radius = (float)(r2 > 0.0 ? sqrt(r2) : 1.0);
}

/* ---------------------------------------------------------------- create / destroy */

sf_result sf_scene_create(const char* name, const char* preset, const sf_scene_setting* settings,
                          size_t setting_count, const sf_env* env, sf_scene** out, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(out != NULL, SF_ERROR_INVALID_ARGUMENT, err, "out", SFI_NO_INDEX, "is NULL");
    *out = NULL;
    SF_CHECK(settings != NULL || setting_count == 0, SF_ERROR_INVALID_ARGUMENT, err, "settings", SFI_NO_INDEX,
             "NULL with setting_count %zu", setting_count);
    const scene_entry* entry = find_entry(name);
    if (!entry) {
        char known[200];
        size_t used = 0;
        known[0] = '\0';
        for (size_t i = 0; i < SCENE_COUNT; ++i) {
            int w = snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", scene_table[i].info->name);
            if (w < 0 || (size_t)w >= sizeof known - used) break;
            used += (size_t)w;
        }
        return sf_error_set(err, SF_ERROR_UNKNOWN_NAME, "scene", SFI_NO_INDEX, "unknown scene '%s' (%s)",
                        name ? name : "(null)", known);
    }
    const sf_scene_info* info = entry->info;
    const sf_scene_preset_info* pre = NULL;
    if (preset && preset[0]) {
        for (size_t i = 0; i < info->preset_count; ++i)
            if (strcmp(info->presets[i].name, preset) == 0) pre = &info->presets[i];
        if (!pre) {
            char known[200];
            list_names(known, sizeof known, info, 1);
            return sf_error_set(err, SF_ERROR_UNKNOWN_NAME, "preset", SFI_NO_INDEX, "scene %s has no preset '%s' (%s)",
                            info->name, preset, known);
        }
    }

    sf_env e = sf_env_defaults(env);
    sfi_scene_ctx* ctx = sf_env_calloc(&e, 1, sizeof *ctx);
    if (!ctx) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "scene", SFI_NO_INDEX, "object");
    ctx->env = e;
    ctx->pub.info = info;
    ctx->pub.reference_weighting = info->reference_weighting;
    sf_scene* scene = &ctx->pub;
    size_t P = info->param_count, K = info->target_count;
    double* values = sfi_scene_alloc(ctx, P + K, sizeof(double));
    const char** names = sfi_scene_alloc(ctx, P + K, sizeof(const char*));
    float* morph_f = sfi_scene_alloc(ctx, K, sizeof(float));
    sf_result r = SF_OK;
    if (!values || !names || !morph_f) {
        r = sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "scene", SFI_NO_INDEX, "parameters");
        goto fail;
    }
    for (size_t p = 0; p < P; ++p) values[p] = info->params[p].default_value;
    if (pre && (r = apply_preset(info, pre, values, values + P, err)) != SF_OK) goto fail;
    for (size_t i = 0; i < setting_count; ++i)
        if ((r = apply_setting(info, settings[i].name, settings[i].value, values, values + P, "settings", i, err)) !=
            SF_OK)
            goto fail;
    for (size_t p = 0; p < P; ++p) names[p] = info->params[p].name;
    for (size_t k = 0; k < K; ++k) {
        names[P + k] = info->targets[k];
        morph_f[k] = (float)values[P + k];
    }
    ctx->values = values;
    ctx->morph = values + P;
    scene->param_count = P + K;
    scene->param_names = names;
    scene->param_values = values;
    if (K) {
        scene->pose.morph_weights = morph_f;
        scene->pose.morph_weight_count = K;
    }

    if ((r = entry->build(ctx, err)) != SF_OK) goto fail;
    if ((r = pose_rig(ctx, err)) != SF_OK) goto fail;
    frame_scene(ctx);
    *out = scene;
    return SF_OK;
fail:
    sf_scene_destroy(scene);
    return r;
}

void sf_scene_destroy(sf_scene* scene)
{
    if (!scene) return;
    sfi_scene_ctx* ctx = (sfi_scene_ctx*)(void*)scene;
    sf_env e = ctx->env;
    for (size_t i = ctx->alloc_count; i-- > 0;) sf_env_free(&e, ctx->allocs[i], ctx->alloc_sizes[i]);
    sf_env_free(&e, ctx, sizeof *ctx);
}

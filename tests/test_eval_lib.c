// LABELS: unit;cli
/* The asset evaluation layer (skinframe_eval.h) driven through its API: frame plans against their closed
 * form, the streaming statistics against the core's one-shot statistics and a direct search of the worst
 * vertex, engine presets and cost levels, the file list of a folder, and whole assets (every method, every
 * clip, the engine and truncation variants) against the numbers `skinframe eval --json` prints. */
#define _POSIX_C_SOURCE 200809L
#include "sf_test.h"
#include "sft_pool.h"
#include "skinframe_eval.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- plans */

static void test_plan_frames(void)
{
    sf_clip_plan p;
    CHECK_OK(sf_clip_plan_make(1.0, 30.0, 1000, &p));
    CHECK(p.frames == 31); /* 0, 1/30, ..., 29/30 and the end, which falls on 30/30: once */
    CHECK(sf_clip_plan_time(&p, 0) == 0.0);
    CHECK_NEAR(sf_clip_plan_time(&p, 7), 7.0 / 30.0, 1e-15);
    CHECK(sf_clip_plan_time(&p, 30) == 1.0);
    CHECK_OK(sf_clip_plan_make(1.01, 30.0, 1000, &p));
    CHECK(p.frames == 32); /* 31 multiples below 1.01 s (0 .. 30/30), then the end */
    CHECK(sf_clip_plan_time(&p, 31) == 1.01);
    CHECK_NEAR(sf_clip_plan_time(&p, 30), 1.0, 1e-15);
    CHECK_OK(sf_clip_plan_make(0.0, 30.0, 1, &p));
    CHECK(p.frames == 1 && sf_clip_plan_time(&p, 0) == 0.0);
    CHECK_RESULT(sf_clip_plan_make(10.0, 30.0, 300, &p), SF_ERROR_TOO_LARGE);
    CHECK(p.frames_needed == 301.0 && p.frames == 0);
    CHECK_RESULT(sf_clip_plan_make(1.0, 0.0, 300, &p), SF_ERROR_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------------- statistics */

/* Two "units" over three frames, added as the evaluation adds them, against the core's statistics of all the
 * angles at once and a plain search for the worst vertex and frame. */
static void test_stats_streaming(void)
{
    enum { FRAMES = 3, N0 = 5, N1 = 4, ALL = FRAMES * (N0 + N1) };
    float normal[ALL], tangent[ALL];
    for (int i = 0; i < ALL; ++i) {
        normal[i] = (float)((i * 37) % 23) * 0.5f;
        tangent[i] = (float)((i * 11) % 17) * 0.25f;
    }
    sf_method_stats stats[SF_METHOD_COUNT];
    const sf_method methods[1] = {SF_METHOD_SKINNED};
    sf_error err;
    CHECK_OK(sf_method_stats_create(stats, methods, 1, &err));
    sf_method_stats* m = &stats[SF_METHOD_SKINNED];
    CHECK(m->on && !stats[SF_METHOD_UNCHANGED].on);
    sf_method_stats_clip_start(m);
    double best_mean = -1.0, worst = -1.0;
    size_t best_frame = 0, worst_frame = 0, worst_unit = 0, worst_vertex = 0;
    for (int f = 0; f < FRAMES; ++f) {
        const float* n = normal + f * (N0 + N1);
        const float* t = tangent + f * (N0 + N1);
        sf_method_stats_frame_start(m);
        CHECK_OK(sf_method_stats_add(m, n, t, N0, 0, (size_t)f, true, &err));
        CHECK_OK(sf_method_stats_add(m, n + N0, t + N0, N1, 1, (size_t)f, true, &err));
        sf_method_stats_frame_end(m, (size_t)f);
        double sum = 0.0;
        for (int v = 0; v < N0 + N1; ++v) {
            sum += n[v];
            if (n[v] > worst) worst = n[v], worst_frame = (size_t)f, worst_unit = v < N0 ? 0 : 1,
                              worst_vertex = (size_t)(v < N0 ? v : v - N0);
        }
        CHECK_NEAR(m->frame_sn, sum, 1e-9);
        CHECK(m->frame_cn == N0 + N1 && m->frame_ct == N0 + N1);
        if (sum / (N0 + N1) > best_mean) best_mean = sum / (N0 + N1), best_frame = (size_t)f;
    }
    CHECK_OK(sf_method_stats_clip_finish(m, false, &err));
    sf_angle_stats n_all, t_all;
    CHECK_OK(sf_angle_stats_compute(normal, ALL, NULL, NULL, &n_all, &err));
    CHECK_OK(sf_angle_stats_compute(tangent, ALL, NULL, NULL, &t_all, &err));
    CHECK(m->normal.count == ALL && m->tangent.count == ALL);
    CHECK_NEAR(m->normal.mean, n_all.mean, 1e-9);
    CHECK_NEAR(m->normal.max, n_all.max, 0.0);
    CHECK_NEAR(m->tangent.mean, t_all.mean, 1e-9);
    CHECK_NEAR(m->normal.p95, n_all.p95, 0.002); /* the accumulator's histogram: within 0.001 degree */
    CHECK(m->worst_frame == best_frame);
    CHECK_NEAR(m->worst_frame_mean, best_mean, 1e-9);
    CHECK(m->worst_n == worst && m->worst_n_frame == worst_frame && m->worst_n_unit == worst_unit &&
          m->worst_n_vertex == worst_vertex);
    sf_method_stats_free(stats);
}

/* The best method per cost level: lowest normal mean, ties broken by the tangent mean; skipped ones never. */
static void test_best_per_cost(void)
{
    sf_method_stats s[SF_METHOD_COUNT];
    memset(s, 0, sizeof s);
    const sf_method methods[4] = {SF_METHOD_SKINNED, SF_METHOD_INVERSE_TRANSPOSE, SF_METHOD_JACOBIAN,
                                  SF_METHOD_RECOMPUTE};
    for (int k = 0; k < 4; ++k) s[methods[k]].normal.count = 10;
    s[SF_METHOD_SKINNED].normal.mean = 2.0, s[SF_METHOD_SKINNED].tangent.mean = 3.0;
    s[SF_METHOD_INVERSE_TRANSPOSE].normal.mean = 2.0, s[SF_METHOD_INVERSE_TRANSPOSE].tangent.mean = 1.0;
    s[SF_METHOD_JACOBIAN].normal.mean = 0.5;
    s[SF_METHOD_RECOMPUTE].skipped = true;
    sf_method best[SF_COST_LEVELS];
    sf_method_stats_best_per_cost(s, methods, 4, best);
    CHECK(best[SF_COST_PER_VERTEX] == SF_METHOD_INVERSE_TRANSPOSE);
    CHECK(best[SF_COST_GRADIENTS] == SF_METHOD_JACOBIAN);
    CHECK(best[SF_COST_GATHER] == SF_METHOD_COUNT);
    CHECK(sf_cost_of(SF_METHOD_RECOMPUTE_FUSED) == SF_COST_GATHER);
    CHECK(strcmp(sf_cost_name(SF_COST_GATHER), "neighbours every frame (gather)") == 0);
}

static void test_engines(void)
{
    CHECK(sf_engine_count() >= 6);
    const char* names = sf_engine_names();
    for (size_t i = 0; i < sf_engine_count(); ++i) {
        const sf_engine* e = sf_engine_at(i);
        CHECK(e && sf_engine_find(e->name) == e);
        CHECK(strstr(names, e->name) != NULL);
        CHECK((unsigned)e->normals < SF_METHOD_COUNT);
    }
    CHECK(sf_engine_at(sf_engine_count()) == NULL);
    CHECK(sf_engine_find("no-such-engine") == NULL);
    const sf_engine* three = sf_engine_find("three.js");
    CHECK(three && three->max_influences == 4 && three->tangents == SF_ENGINE_TANGENTS_DERIVATIVES);
}

/* ---------------------------------------------------------------- batch over files */

static int touch(const char* path)
{
    FILE* f = fopen(path, "w");
    if (!f) return -1;
    fclose(f);
    return 0;
}

static void test_paths(void)
{
    char dir[] = "/tmp/sf_eval_lib_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char p[4][600];
    snprintf(p[0], sizeof p[0], "%s/b.glb", dir);
    snprintf(p[1], sizeof p[1], "%s/sub", dir);
    snprintf(p[2], sizeof p[2], "%s/sub/a.GLTF", dir);
    snprintf(p[3], sizeof p[3], "%s/notes.txt", dir);
    CHECK(touch(p[0]) == 0 && mkdir(p[1], 0700) == 0 && touch(p[2]) == 0 && touch(p[3]) == 0);
    const char* args[2] = {dir, "/tmp/not-a-folder.glb"};
    sf_asset_paths list;
    sf_error err;
    CHECK_OK(sf_asset_paths_collect(args, 2, NULL, NULL, &list, &err));
    CHECK(list.count == 3);
    CHECK(strcmp(list.items[0], p[0]) == 0); /* byte order: "b.glb" < "sub/..." */
    CHECK(strcmp(list.items[1], p[2]) == 0);
    CHECK(strcmp(list.items[2], args[1]) == 0); /* a path that is no folder: as given */
    CHECK(sf_asset_path_is_dir(dir) && !sf_asset_path_is_dir(p[0]));
    sf_asset_paths_free(&list);
    CHECK(list.count == 0 && list.items == NULL);
    remove(p[2]), remove(p[0]), remove(p[3]), rmdir(p[1]), rmdir(dir);
}

/* ---------------------------------------------------------------- an asset against the command */

static const cJSON* member(const cJSON* o, const char* key) { return cJSON_GetObjectItemCaseSensitive(o, key); }
static double number(const cJSON* o, const char* key)
{
    const cJSON* v = member(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* stats against the JSON object {"mean", "p95", "max"} (null when nothing was measured). */
static int stats_match(const sf_angle_stats* s, const cJSON* j)
{
    if (s->count == 0) return cJSON_IsNull(j);
    return fabs(s->mean - number(j, "mean")) <= 1e-9 && fabs(s->p95 - number(j, "p95")) <= 1e-9 &&
           fabs(s->max - number(j, "max")) <= 1e-9;
}

/* The command's reference and method settings for real assets, as the library's options. */
static void command_defaults(sf_asset_eval_opts* o, sf_method* methods)
{
    sf_asset_eval_opts_init(o);
    for (int m = 0; m < SF_METHOD_DEFAULT_COUNT; ++m) methods[m] = (sf_method)m;
    o->methods = methods;
    o->method_count = SF_METHOD_DEFAULT_COUNT;
    o->reference_opts.weld = SF_WELD_POSITION_NORMAL;
    o->reference_opts.tangents = SF_TANGENTS_MIKKTSPACE;
    o->influence_variants = true;
    o->all_engines = true;
}

/* Every clip of the asset through the library beside `eval FILE --json --engine all`: frames, every method's
 * statistics (and rest-pose ones), worst frames, and every variant's normal statistics and position error. */
static void check_asset(const char* rel)
{
    char path[1024];
    if (!sft_asset(rel, path, sizeof path) || !getenv("SF_CLI")) {
        sft_skip("SF_ASSETS or SF_CLI not set");
        return;
    }
    char args[1200];
    snprintf(args, sizeof args, "eval '%s' --json --engine all --threads 1", path);
    sft_cli_out r = sft_run_cli(args);
    cJSON* doc = r.status == 0 ? cJSON_Parse(r.out) : NULL;
    sft_cli_out_free(&r);
    CHECK(doc != NULL);
    sf_gltf_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.generated_tangents = SF_TANGENTS_MIKKTSPACE;
    sf_gltf* g = NULL;
    sf_asset_eval* e = NULL;
    sf_error err;
    sf_asset_eval_opts o;
    sf_method methods[SF_METHOD_COUNT];
    command_defaults(&o, methods);
    int ok = sf_gltf_load_file(path, &lo, NULL, &g, &err) == SF_OK && sf_asset_eval_create(g, &o, NULL, &e, &err) == SF_OK &&
             sf_asset_eval_rest(e, &err) == SF_OK;
    if (!ok) printf("  %s: %s\n", rel, err.message);
    size_t vertices = 0;
    if (ok) sf_asset_eval_counts(e, &vertices, NULL);
    ok = ok && number(doc, "vertices_per_frame") == (double)vertices;
    ok = ok && number(member(doc, "influences"), "over_4") == (double)sf_asset_eval_influences(e).over4;
    const cJSON* anims = member(doc, "animations");
    size_t clips = g && g->animation_count ? g->animation_count : 1;
    ok = ok && cJSON_GetArraySize(anims) == (int)clips;
    for (size_t a = 0; ok && a < clips; ++a) {
        const cJSON* ja = cJSON_GetArrayItem(anims, (int)a);
        sf_asset_clip clip;
        ok = sf_asset_eval_clip(e, g->animation_count ? a : SF_GLTF_NONE, NULL, NULL, &clip, &err) == SF_OK;
        ok = ok && number(ja, "frames") == (double)clip.plan.frames;
        const cJSON* jm = member(ja, "methods");
        for (size_t k = 0; ok && k < o.method_count; ++k) {
            const cJSON* one = cJSON_GetArrayItem(jm, (int)k);
            const sf_method_stats* s = &clip.methods[methods[k]];
            ok = strcmp(cJSON_GetStringValue(member(one, "method")), sf_method_name(methods[k])) == 0;
            if (ok && s->skipped) continue;
            ok = ok && stats_match(&s->normal, member(one, "normal")) && stats_match(&s->tangent, member(one, "tangent")) &&
                 stats_match(&s->rest_normal, member(one, "rest_normal")) &&
                 number(member(one, "worst_frame"), "frame") == (double)s->worst_frame;
            if (!ok) printf("  %s clip %zu: %s differs from the command\n", rel, a, sf_method_name(methods[k]));
        }
        const cJSON* jv = member(ja, "variants");
        int row = 0;
        for (size_t v = 0; ok && v < sf_asset_eval_variant_count(e); ++v) {
            sf_asset_variant var = sf_asset_eval_variant(e, v);
            for (size_t k = 0; ok && k < var.method_count; ++k, ++row) {
                const cJSON* one = cJSON_GetArrayItem(jv, row);
                const sf_method_stats* s = &var.stats[var.methods[k]];
                ok = one && number(one, "truncated_vertices") == (double)var.truncated;
                if (ok && var.engine) ok = strcmp(cJSON_GetStringValue(member(one, "engine")), var.engine->name) == 0;
                if (ok && !s->skipped)
                    ok = stats_match(&s->normal, member(one, "normal")) &&
                         fabs(s->pos_max - number(member(one, "position"), "max")) <= 1e-12;
                if (!ok) printf("  %s clip %zu: variant %s differs from the command\n", rel, a, var.label);
            }
        }
        ok = ok && row == cJSON_GetArraySize(jv);
    }
    sf_asset_eval_destroy(e);
    sf_gltf_destroy(g);
    cJSON_Delete(doc);
    CHECK(ok);
}

static void test_asset_skin(void) { check_asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf"); }
static void test_asset_morph(void) { check_asset("gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb"); }

/* On CUDA the variants (engine presets, caps) measure against the full evaluation's reference frames, which
 * must then stay on the host: every variant's statistics agree with the CPU's. A morphed asset without texture
 * coordinates (per-vertex tangents) is the case whose statistics would otherwise stay on the GPU. Skipped where
 * CUDA is not built in or no GPU is present. */
static void test_cuda_variants(void)
{
    char path[1024];
    if (!sft_asset("gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb", path, sizeof path)) return;
    sf_gltf* g = NULL;
    sf_error err;
    CHECK_OK(sf_gltf_load_file(path, NULL, NULL, &g, &err));
    sf_asset_eval_opts o;
    sf_method methods[SF_METHOD_COUNT];
    command_defaults(&o, methods);
    sf_asset_eval* cpu = NULL;
    sf_asset_eval* gpu = NULL;
    CHECK_OK(sf_asset_eval_create(g, &o, NULL, &cpu, &err));
    o.backend = SF_BACKEND_CUDA;
    sf_result r = sf_asset_eval_create(g, &o, NULL, &gpu, &err);
    if (r == SF_ERROR_UNSUPPORTED) {
        printf("  (skipped: %s)\n", err.message);
    } else {
        CHECK_OK(r);
        sf_asset_clip a, b;
        CHECK_OK(sf_asset_eval_clip(cpu, 0, NULL, NULL, &a, &err));
        CHECK_OK(sf_asset_eval_clip(gpu, 0, NULL, NULL, &b, &err));
        size_t count = sf_asset_eval_variant_count(cpu);
        CHECK(count > 0 && count == sf_asset_eval_variant_count(gpu));
        for (size_t v = 0; v < count; ++v) {
            sf_asset_variant x = sf_asset_eval_variant(cpu, v), y = sf_asset_eval_variant(gpu, v);
            for (size_t k = 0; k < x.method_count; ++k) {
                const sf_method_stats* s = &x.stats[x.methods[k]];
                const sf_method_stats* t = &y.stats[y.methods[k]];
                if (fabs(s->normal.mean - t->normal.mean) > 1e-3 || s->normal.count != t->normal.count)
                    printf("  variant %s: CPU mean %.6f, CUDA %.6f\n", x.label, s->normal.mean, t->normal.mean);
                CHECK(fabs(s->normal.mean - t->normal.mean) <= 1e-3 && s->normal.count == t->normal.count);
            }
        }
    }
    sf_asset_eval_destroy(gpu);
    sf_asset_eval_destroy(cpu);
    sf_gltf_destroy(g);
}

/* The frame callback sees every frame once, in order, at the plan's times, and can stop the clip. */
static int count_frames(void* user, const sf_asset_clip* clip, size_t frame, double t)
{
    size_t* seen = user;
    if (frame != seen[0] || t != sf_clip_plan_time(&clip->plan, frame)) seen[1] = 1;
    seen[0]++;
    return seen[0] == 3 ? 1 : 0; /* stop after the third */
}

static void test_frame_callback(void)
{
    char path[1024];
    if (!sft_asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf", path, sizeof path)) return;
    sf_gltf* g = NULL;
    sf_asset_eval* e = NULL;
    sf_error err;
    sf_asset_eval_opts o;
    sf_method methods[SF_METHOD_COUNT];
    command_defaults(&o, methods);
    o.all_engines = false;
    CHECK_OK(sf_gltf_load_file(path, NULL, NULL, &g, &err));
    CHECK(g->animation_count > 0);
    int ok = sf_asset_eval_create(g, &o, NULL, &e, &err) == SF_OK;
    size_t seen[2] = {0, 0};
    sf_asset_clip clip;
    ok = ok && sf_asset_eval_clip(e, 0, count_frames, seen, &clip, &err) == SF_ERROR_INVALID_ARGUMENT;
    ok = ok && seen[0] == 3 && seen[1] == 0 && clip.plan.frames > 3;
    ok = ok && sf_asset_eval_clip(e, g->animation_count, NULL, NULL, &clip, &err) == SF_ERROR_INVALID_ARGUMENT;
    o.max_frames = 2;
    sf_asset_eval* small = NULL;
    ok = ok && sf_asset_eval_create(g, &o, NULL, &small, &err) == SF_OK &&
         sf_asset_eval_clip(small, 0, NULL, NULL, &clip, &err) == SF_ERROR_TOO_LARGE && clip.plan.frames_needed > 2;
    sf_asset_eval_destroy(small);
    sf_asset_eval_destroy(e);
    sf_gltf_destroy(g);
    CHECK(ok);
}


/* ---------------------------------------------------------------- frames over threads */

/* What a clip's frames report to the callback, in order: the per-frame sums and maxima of every method. */
typedef struct frame_log {
    double values[4096];
    size_t count, frames;
    int out_of_order;
} frame_log;

static int log_frame(void* user, const sf_asset_clip* clip, size_t frame, double t)
{
    frame_log* l = user;
    if (frame != l->frames++ || t != sf_clip_plan_time(&clip->plan, frame)) l->out_of_order = 1;
    for (int m = 0; m < SF_METHOD_DEFAULT_COUNT && l->count + 4 <= sizeof l->values / sizeof l->values[0]; ++m) {
        const sf_method_stats* s = &clip->methods[m];
        l->values[l->count++] = s->frame_sn;
        l->values[l->count++] = s->frame_st;
        l->values[l->count++] = s->frame_mn;
        l->values[l->count++] = (double)s->frame_cn;
    }
    return 0;
}

/* One clip of the asset with `threads` frames at once under env; every method's statistics and the log. With
 * `before` (an animation, or SIZE_MAX for none), that clip runs first on the same evaluation. */
typedef struct clip_run {
    sf_method_stats stats[SF_METHOD_COUNT];
    frame_log log;
    int ok;
} clip_run;

static void run_clip_after(const sf_gltf* g, size_t before, size_t anim, double fps, size_t threads,
                           const sf_env* env, clip_run* out)
{
    sf_asset_eval_opts o;
    sf_method methods[SF_METHOD_COUNT];
    command_defaults(&o, methods);
    o.all_engines = false;
    o.influence_variants = false;
    o.fps = fps;
    o.threads = threads;
    sf_asset_eval* e = NULL;
    sf_error err;
    sf_asset_clip clip;
    memset(out, 0, sizeof *out);
    out->ok = sf_asset_eval_create(g, &o, env, &e, &err) == SF_OK && sf_asset_eval_rest(e, &err) == SF_OK &&
              (before == SIZE_MAX || sf_asset_eval_clip(e, before, NULL, NULL, &clip, &err) == SF_OK) &&
              sf_asset_eval_clip(e, anim, log_frame, &out->log, &clip, &err) == SF_OK;
    if (!out->ok) printf("  %zu threads: %s\n", threads, err.message);
    if (out->ok) memcpy(out->stats, clip.methods, sizeof out->stats);
    sf_asset_eval_destroy(e);
}

static void run_clip(const sf_gltf* g, size_t anim, double fps, size_t threads, const sf_env* env, clip_run* out)
{
    run_clip_after(g, SIZE_MAX, anim, fps, threads, env, out);
}

/* A staged asset loaded as the command loads it (MikkTSpace tangents where it has none), or NULL: skipped without
 * SF_ASSETS, a failed load checked. */
static sf_gltf* load_staged(const char* rel)
{
    char path[1024];
    if (!sft_asset(rel, path, sizeof path)) {
        sft_skip("SF_ASSETS not set");
        return NULL;
    }
    sf_gltf_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.generated_tangents = SF_TANGENTS_MIKKTSPACE;
    sf_gltf* g = NULL;
    sf_error err;
    sf_result r = sf_gltf_load_file(path, &lo, NULL, &g, &err);
    if (r != SF_OK) sft_fail_result(__FILE__, __LINE__, "sf_gltf_load_file", r, SF_OK);
    return g;
}

/* sf_asset_eval_frame at each frame's time gives that frame of sf_asset_eval_clip bit for bit (every unit posed
 * together: InterpolationTest has ten primitives, one clip per interpolation), the worst vertex among them; a
 * bad animation or time is refused. */
static void check_frames_at(const char* rel, size_t anim)
{
    sf_gltf* g = load_staged(rel);
    if (!g) return;
    sf_error err;
    clip_run* run = malloc(sizeof *run);
    run_clip(g, anim, 30.0, 1, NULL, run);
    CHECK(run->ok && run->log.frames > 2);
    sf_asset_eval_opts o;
    sf_method methods[SF_METHOD_COUNT];
    command_defaults(&o, methods);
    o.all_engines = false;
    o.influence_variants = false;
    sf_asset_eval* e = NULL;
    CHECK_OK(sf_asset_eval_create(g, &o, NULL, &e, &err));
    sf_clip_plan plan;
    CHECK_OK(sf_asset_clip_plan(g, anim, 30.0, 1000, &plan));
    size_t units = 0;
    sf_asset_eval_units(e, &units);
    CHECK(units >= 1);
    int same = run->ok && plan.frames == run->log.frames;
    size_t at = 0;
    for (size_t f = 0; same && e && f < plan.frames; ++f) {
        sf_asset_clip one;
        same = sf_asset_eval_frame(e, anim, sf_clip_plan_time(&plan, f), &one, &err) == SF_OK;
        for (int m = 0; same && m < SF_METHOD_DEFAULT_COUNT; ++m) {
            const sf_method_stats* s = &one.methods[m];
            same = s->frame_sn == run->log.values[at] && s->frame_st == run->log.values[at + 1] &&
                   s->frame_mn == run->log.values[at + 2] && (double)s->frame_cn == run->log.values[at + 3];
            at += 4;
        }
        if (!same) printf("  %s: frame %zu differs from the clip's\n", rel, f);
    }
    CHECK(same);
    sf_asset_clip bad;
    if (e) {
        CHECK_RESULT(sf_asset_eval_frame(e, g->animation_count, 0.0, &bad, &err), SF_ERROR_INVALID_ARGUMENT);
        CHECK_RESULT(sf_asset_eval_frame(e, anim, NAN, &bad, &err), SF_ERROR_NOT_FINITE);
    }
    sf_asset_eval_destroy(e);
    sf_gltf_destroy(g);
    free(run);
}

static void test_frame_at(void)
{
    check_frames_at("gltf/InterpolationTest/glTF-Binary/InterpolationTest.glb", 1);
    check_frames_at("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", 0);
}

/* sf_asset_eval_frame_into: each unit's arrays kept in the caller's memory (its positions, reference normals,
 * every row's angles and row 1's normals) beside the statistics. */
typedef struct kept_moment {
    size_t units, rows, n_total, calls;
    size_t* first;                /* units + 1 */
    float *positions, *ref_normals, *normals, *deg; /* 3N, 3N, 3N, 2 * rows * N (normal, tangent) */
    int stop_at;                  /* the unit whose call returns non-zero, or -1 */
    int poison_at;                /* the unit whose first bone the call makes NaN (a real failure), or -1 */
    const sf_asset_unit* u;
    int to_world_finite;
} kept_moment;

static int keep_unit(void* user, size_t unit, const float* to_world, sf_eval_buffers* b)
{
    kept_moment* k = user;
    ++k->calls;
    for (int i = 0; i < 16; ++i) k->to_world_finite &= to_world && isfinite(to_world[i]);
    if ((int)unit == k->stop_at) return 1;
    if ((int)unit == k->poison_at) k->u[unit].bones[0] = NAN;
    size_t at = k->first[unit], N = k->n_total;
    b->positions = k->positions + 3 * at;
    b->reference_normals = k->ref_normals + 3 * at;
    b->rows[1].normals = k->normals + 3 * at;
    for (size_t r = 0; r < k->rows; ++r) {
        b->rows[r].normal_deg = k->deg + 2 * r * N + at;
        b->rows[r].tangent_deg = k->deg + (2 * r + 1) * N + at;
    }
    return 0;
}

/* One moment with sf_asset_eval_frame_into gives sf_asset_eval_frame's statistics bit for bit; the kept angles
 * add up to them (sum, maximum, count in unit order); each unit's kept positions, reference normals and angles
 * equal an evaluation of its own run again at the unit's pose; a non-zero callback stops the moment
 * (clip.stopped), and a unit that fails within it is a failure named by the moment, not a stop. */
static void check_frame_into(const char* rel, size_t anim, double t)
{
    sf_gltf* g = load_staged(rel);
    if (!g) return;
    sf_error err;
    sf_asset_eval_opts o;
    sf_method methods[SF_METHOD_COUNT];
    command_defaults(&o, methods);
    o.all_engines = false;
    o.influence_variants = false;
    sf_asset_eval* e = NULL;
    CHECK_OK(sf_asset_eval_create(g, &o, NULL, &e, &err));
    if (!e) {
        sf_gltf_destroy(g);
        return;
    }
    size_t units = 0;
    const sf_asset_unit* u = sf_asset_eval_units(e, &units);
    kept_moment k;
    memset(&k, 0, sizeof k);
    k.units = units;
    k.rows = o.method_count;
    k.stop_at = -1;
    k.poison_at = -1;
    k.u = u;
    k.to_world_finite = 1;
    k.first = calloc(units + 1, sizeof *k.first);
    for (size_t i = 0; i < units; ++i) k.first[i + 1] = k.first[i] + u[i].n;
    k.n_total = k.first[units];
    k.positions = calloc(3 * k.n_total, sizeof(float));
    k.ref_normals = calloc(3 * k.n_total, sizeof(float));
    k.normals = calloc(3 * k.n_total, sizeof(float));
    k.deg = calloc(2 * k.rows * k.n_total, sizeof(float));

    sf_method_stats plain[SF_METHOD_COUNT];
    sf_asset_clip clip;
    CHECK_OK(sf_asset_eval_frame(e, anim, t, &clip, &err));
    memcpy(plain, clip.methods, sizeof plain);
    CHECK_OK(sf_asset_eval_frame_into(e, anim, t, keep_unit, &k, &clip, &err));
    CHECK(k.calls == units && k.to_world_finite);
    for (size_t r = 0; r < k.rows; ++r) {
        const sf_method_stats* a = &plain[methods[r]];
        const sf_method_stats* b = &clip.methods[methods[r]];
        CHECK(a->frame_sn == b->frame_sn && a->frame_st == b->frame_st && a->frame_mn == b->frame_mn &&
              a->frame_mt == b->frame_mt && a->frame_cn == b->frame_cn && a->frame_ct == b->frame_ct);
        if (b->skipped) continue;
        double sum = 0.0, tsum = 0.0;
        float max = 0.0f;
        size_t tcount = 0;
        for (size_t i = 0; i < units; ++i) {
            for (size_t v = k.first[i]; v < k.first[i + 1]; ++v) {
                sum += k.deg[2 * r * k.n_total + v];
                if (k.deg[2 * r * k.n_total + v] > max) max = k.deg[2 * r * k.n_total + v];
                if (u[i].tangents) tsum += k.deg[(2 * r + 1) * k.n_total + v];
            }
            if (u[i].tangents) tcount += u[i].n;
        }
        CHECK(b->frame_cn == k.n_total && b->frame_ct == tcount && max == b->frame_mn);
        CHECK(fabs(sum - b->frame_sn) <= 1e-9 * (1.0 + b->frame_sn) && fabs(tsum - b->frame_st) <= 1e-9 * (1.0 + b->frame_st));
    }
    /* each unit again, on an evaluation of its own at the pose the moment left it */
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.methods = o.methods;
    desc.method_count = o.method_count;
    desc.method_opts = o.method_opts;
    desc.reference_opts = o.reference_opts;
    desc.flags = SF_EVAL_NO_STATISTICS | SF_EVAL_KEEP_FRAMES | SF_EVAL_KEEP_ANGLES;
    int same = 1;
    for (size_t i = 0; same && i < units; ++i) {
        sf_evaluation* ev = NULL;
        CHECK_OK(sf_evaluation_create(u[i].topo, &desc, NULL, &ev, &err));
        CHECK_OK(sf_evaluation_run(ev, &u[i].pose, u[i].ws, NULL, &err));
        const sf_eval_results* res = sf_evaluation_results(ev);
        size_t n = u[i].n, at = k.first[i];
        same = memcmp(res->positions, k.positions + 3 * at, 3 * n * sizeof(float)) == 0 &&
               memcmp(res->reference_normals, k.ref_normals + 3 * at, 3 * n * sizeof(float)) == 0 &&
               (res->rows[1].status != SF_OK || memcmp(res->rows[1].normals, k.normals + 3 * at, 3 * n * sizeof(float)) == 0);
        for (size_t r = 0; same && r < k.rows; ++r)
            same = res->rows[r].status != SF_OK ||
                   memcmp(res->rows[r].normal_deg, k.deg + 2 * r * k.n_total + at, n * sizeof(float)) == 0;
        if (!same) printf("  %s: unit %zu's kept arrays differ from its own evaluation\n", rel, i);
        sf_evaluation_destroy(ev);
    }
    CHECK(same);
    k.stop_at = (int)(units / 2);
    k.calls = 0;
    CHECK_RESULT(sf_asset_eval_frame_into(e, anim, t, keep_unit, &k, &clip, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.message, "stopped") == 0 && k.calls == units / 2 + 1 && clip.stopped);
    /* a unit's evaluation failing within the moment is a failure, named by the moment, and not a stop */
    k.stop_at = -1;
    for (size_t i = 0; i < units && k.poison_at < 0; ++i)
        if (u[i].pose.bone_count) k.poison_at = (int)i;
    if (k.poison_at >= 0) {
        CHECK_RESULT(sf_asset_eval_frame_into(e, anim, t, keep_unit, &k, &clip, &err), SF_ERROR_NOT_FINITE);
        CHECK(!clip.stopped && strncmp(err.message, "animation ", 10) == 0 && strstr(err.message, "skinning matrix"));
        k.poison_at = -1;
        CHECK_OK(sf_asset_eval_frame_into(e, anim, t, keep_unit, &k, &clip, &err));
        CHECK(!clip.stopped);
    }
    free(k.first);
    free(k.positions);
    free(k.ref_normals);
    free(k.normals);
    free(k.deg);
    sf_asset_eval_destroy(e);
    sf_gltf_destroy(g);
}

static void test_frame_into(void)
{
    check_frame_into("gltf/InterpolationTest/glTF-Binary/InterpolationTest.glb", 1, 0.7);
    check_frame_into("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", 0, 1.1);
    check_frame_into("gltf/MorphStressTest/glTF-Binary/MorphStressTest.glb", 0, 0.4);
}

/* Two runs' statistics, bit for bit (the accumulators' pointers aside). */
static int same_stats(const clip_run* a, const clip_run* b)
{
    for (int m = 0; m < SF_METHOD_DEFAULT_COUNT; ++m) {
        sf_method_stats x = a->stats[m], y = b->stats[m];
        x.normal_acc = y.normal_acc = NULL;
        x.tangent_acc = y.tangent_acc = NULL;
        if (memcmp(&x, &y, sizeof x) != 0) {
            printf("  %s: mean %.17g against %.17g\n", sf_method_name((sf_method)m), x.normal.mean, y.normal.mean);
            return 0;
        }
    }
    return a->log.count == b->log.count && a->log.frames == b->log.frames &&
           memcmp(a->log.values, b->log.values, a->log.count * sizeof(double)) == 0;
}

/* A clip evaluated one frame at a time and with 2, 3, 7 and 16 frames at once, under real threads and under loops
 * that run the slots in other orders: every statistic, worst vertex and per-frame value the same bit for bit,
 * the frames reported once each in order. The clip's mean is the sum of the frames' sums over the count. The
 * same clip after another one on the same evaluation (whose histograms the slots and the clip have traded)
 * and after itself, on 1 and 16 threads, is the clip on a fresh evaluation. */
static void check_threads(const char* rel, size_t anim, double fps)
{
    sf_gltf* g = load_staged(rel);
    if (!g) return;
    clip_run* base = malloc(sizeof *base);
    clip_run* other = malloc(sizeof *other);
    run_clip(g, anim, fps, 1, NULL, base);
    CHECK(base->ok && !base->log.out_of_order && base->log.frames > 8);
    double sum = 0.0;
    size_t count = 0;
    for (size_t k = 0; k + 4 <= base->log.count; k += 4 * SF_METHOD_DEFAULT_COUNT)
        sum += base->log.values[k], count += (size_t)base->log.values[k + 3]; /* the first method's */
    const sf_method_stats* first = &base->stats[0];
    CHECK(count == first->normal.count && count > 0 && sum / (double)count == first->normal.mean);
    const sft_pool pools[] = {{2, 8}, {0, 1}, {1, 1}};
    const size_t threads[] = {2, 3, 7, 16};
    for (size_t p = 0; p < sizeof pools / sizeof pools[0]; ++p) {
        sf_env env = sft_pool_env(&pools[p]);
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; ++t) {
            run_clip(g, anim, fps, threads[t], &env, other);
            int same = other->ok && !other->log.out_of_order && same_stats(base, other);
            if (!same) printf("  %s: pool mode %d, %zu threads differ\n", rel, pools[p].mode, threads[t]);
            CHECK(same);
        }
    }
    sf_env real = sft_pool_env(&pools[0]);
    const size_t befores[] = {anim, (anim + 1) % g->animation_count};
    for (size_t b = 0; b < 2; ++b)
        for (size_t t = 1; t <= 16; t += 15) {
            run_clip_after(g, befores[b], anim, fps, t, t > 1 ? &real : NULL, other);
            int same = other->ok && !other->log.out_of_order && same_stats(base, other);
            if (!same) printf("  %s: after animation %zu, %zu threads differ\n", rel, befores[b], t);
            CHECK(same);
        }
    free(base);
    free(other);
    sf_gltf_destroy(g);
}

static void test_threads(void)
{
    check_threads("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", 0, 12.0);
    check_threads("gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb", 0, 12.0);
    check_threads("gltf/Fox/glTF-Binary/Fox.glb", 2, 24.0);
}

/* ---------------------------------------------------------------- instances */

/* Bytes the library holds through an environment: live now and at most. Each block carries its size. */
typedef struct counting {
    size_t live, peak;
} counting;

static void* count_alloc(void* user, size_t size, size_t align)
{
    counting* c = user;
    size_t head = align > 16 ? align : 16;
    size_t total = (head + size + head - 1) / head * head;
    char* base = aligned_alloc(head, total);
    if (!base) return NULL;
    ((size_t*)(base + head))[-1] = size;
    ((size_t*)(base + head))[-2] = head;
    c->live += size;
    if (c->live > c->peak) c->peak = c->live;
    return base + head;
}

static void count_free(void* user, void* ptr, size_t size)
{
    (void)size;
    if (!ptr) return;
    counting* c = user;
    c->live -= ((size_t*)ptr)[-1];
    free((char*)ptr - ((size_t*)ptr)[-2]);
}

/* dir/grid.gltf: a 12 x 12 grid with a bump and flat authored normals (so every method has an error), one
 * mesh drawn by `nodes` children of a root that one clip of 1 s moves; the buffer in dir/grid.bin. */
static int write_instanced(const char* dir, size_t nodes)
{
    enum { N = 12, V = N * N, T = 2 * (N - 1) * (N - 1) };
    static float pos[3 * V], nrm[3 * V];
    static uint16_t idx[3 * T];
    const float times[2] = {0.0f, 1.0f}, moves[6] = {0, 0, 0, 0, 1, 0};
    for (int y = 0; y < N; ++y)
        for (int x = 0; x < N; ++x) {
            float* p = pos + 3 * (y * N + x);
            p[0] = (float)x, p[1] = (float)y, p[2] = 0.3f * (float)((x * 7 + y * 3) % 5);
            nrm[3 * (y * N + x) + 2] = 1.0f;
        }
    size_t t = 0;
    for (int y = 0; y + 1 < N; ++y)
        for (int x = 0; x + 1 < N; ++x) {
            uint16_t a = (uint16_t)(y * N + x), b = (uint16_t)(a + 1), c = (uint16_t)(a + N), d = (uint16_t)(c + 1);
            const uint16_t tri[6] = {a, b, d, a, d, c};
            memcpy(idx + 6 * t++, tri, sizeof tri);
        }
    char path[512];
    snprintf(path, sizeof path, "%s/grid.bin", dir);
    FILE* f = fopen(path, "wb");
    if (!f) return 0;
    int ok = fwrite(pos, sizeof pos, 1, f) == 1 && fwrite(nrm, sizeof nrm, 1, f) == 1 &&
             fwrite(idx, sizeof idx, 1, f) == 1 && fwrite(times, sizeof times, 1, f) == 1 &&
             fwrite(moves, sizeof moves, 1, f) == 1;
    ok = fclose(f) == 0 && ok;
    size_t cap = 4096 + 64 * nodes, n = 0;
    char* text = malloc(cap);
    if (!ok || !text) return free(text), 0;
    size_t p0 = sizeof pos, p1 = p0 + sizeof nrm, p2 = p1 + sizeof idx, p3 = p2 + sizeof times, len = p3 + sizeof moves;
    n += (size_t)snprintf(text + n, cap - n,
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":%zu,\"uri\":\"grid.bin\"}],\"bufferViews\":["
        "{\"buffer\":0,\"byteLength\":%zu},{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu},"
        "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu},{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":8},"
        "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":24}],\"accessors\":["
        "{\"bufferView\":0,\"componentType\":5126,\"count\":%d,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[%d,%d,1.2]},"
        "{\"bufferView\":1,\"componentType\":5126,\"count\":%d,\"type\":\"VEC3\"},"
        "{\"bufferView\":2,\"componentType\":5123,\"count\":%d,\"type\":\"SCALAR\"},"
        "{\"bufferView\":3,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
        "{\"bufferView\":4,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1},\"indices\":2}]}],\"nodes\":[",
        len, p0, p0, sizeof nrm, p1, sizeof idx, p2, p3, V, N - 1, N - 1, V, 3 * T);
    for (size_t k = 0; k < nodes; ++k)
        n += (size_t)snprintf(text + n, cap - n, "{\"mesh\":0,\"rotation\":[0,0,%.6f,%.6f]},", sin(0.01 * (double)k),
                              cos(0.01 * (double)k));
    n += (size_t)snprintf(text + n, cap - n, "{\"children\":[");
    for (size_t k = 0; k < nodes; ++k) n += (size_t)snprintf(text + n, cap - n, "%s%zu", k ? "," : "", k);
    snprintf(text + n, cap - n, "]}],\"scenes\":[{\"nodes\":[%zu]}],\"scene\":0,\"animations\":[{\"samplers\":"
             "[{\"input\":3,\"output\":4}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":%zu,\"path\":"
             "\"translation\"}}]}]}", nodes, nodes);
    snprintf(path, sizeof path, "%s/grid.gltf", dir);
    f = fopen(path, "wb");
    ok = f && fputs(text, f) >= 0;
    ok = f && fclose(f) == 0 && ok;
    free(text);
    return ok;
}

/* One clip of dir/grid.gltf with every method and engine through a counting environment: the bytes held at
 * most, and the first method's normal statistics. */
static void instanced_peak(const char* dir, sf_angle_stats* normal, size_t* units, size_t* peak)
{
    char path[512];
    snprintf(path, sizeof path, "%s/grid.gltf", dir);
    counting c = {0, 0};
    sf_env env;
    memset(&env, 0, sizeof env);
    env.allocator.alloc = count_alloc;
    env.allocator.free = count_free;
    env.allocator.user = &c;
    sf_gltf* g = NULL;
    sf_asset_eval* e = NULL;
    sf_error err;
    sf_asset_eval_opts o;
    sf_method methods[SF_METHOD_COUNT];
    command_defaults(&o, methods);
    sf_asset_clip clip;
    int ok = sf_gltf_load_file(path, NULL, &env, &g, &err) == SF_OK && sf_asset_eval_create(g, &o, &env, &e, &err) == SF_OK &&
             sf_asset_eval_clip(e, 0, NULL, NULL, &clip, &err) == SF_OK;
    if (!ok) printf("  %s\n", err.message);
    if (ok) *normal = clip.methods[o.methods[1]].normal;
    if (e) sf_asset_eval_units(e, units);
    sf_asset_eval_destroy(e);
    sf_gltf_destroy(g);
    *peak = ok && c.live == 0 ? c.peak : 0; /* 0 fails the caller's checks */
}

/* A mesh drawn by many nodes costs one topology, workspace and evaluation: units of the same primitive share
 * their first one's (owner), the bytes held stay near those of one instance, the statistics count every
 * instance's vertices, and the result is the same for any number of threads. */
static void test_instances_shared(void)
{
    char dir[256];
    const char* base = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/sf-instances-XXXXXX", base && *base ? base : "/tmp");
    CHECK(mkdtemp(dir) != NULL);
    CHECK(write_instanced(dir, 1));
    sf_angle_stats one, many;
    size_t units_one = 0, units_many = 0, peak_one = 0, peak_many = 0;
    memset(&one, 0, sizeof one);
    memset(&many, 0, sizeof many);
    instanced_peak(dir, &one, &units_one, &peak_one);
    CHECK(write_instanced(dir, 40));
    instanced_peak(dir, &many, &units_many, &peak_many);
    printf("  bytes held at most: %zu for 1 instance, %zu for 40\n", peak_one, peak_many);
    CHECK(units_one == 1 && units_many == 40);
    CHECK(peak_one > 100000 && peak_many > peak_one && peak_many < 2 * peak_one);
    CHECK(one.count > 0 && many.count == 40 * one.count && one.mean > 0.0);

    char path[512];
    snprintf(path, sizeof path, "%s/grid.gltf", dir);
    sf_gltf* g = NULL;
    sf_error err;
    CHECK_OK(sf_gltf_load_file(path, NULL, NULL, &g, &err));
    sf_asset_unit* units = NULL;
    size_t count = 0;
    CHECK_OK(sf_asset_units_create(g, 1u << SF_METHOD_SKINNED, SF_BACKEND_CPU, NULL, &units, &count, &err));
    CHECK(count == 40);
    for (size_t i = 0; units && i < count; ++i) {
        CHECK(units[i].owner == 0 && units[i].topo == units[0].topo && units[i].ws == units[0].ws);
        CHECK(units[i].instance == i && (i == 0 || units[i].bones != units[0].bones));
    }
    sf_asset_units_free(units, count);
    clip_run* a = malloc(sizeof *a);
    clip_run* b = malloc(sizeof *b);
    const sft_pool pool = {2, 3};
    sf_env env = sft_pool_env(&pool);
    run_clip(g, 0, 30.0, 1, NULL, a);
    run_clip(g, 0, 30.0, 3, &env, b);
    CHECK(a->ok && b->ok && same_stats(a, b));
    free(a);
    free(b);
    sf_gltf_destroy(g);
    snprintf(path, sizeof path, "%s/grid.gltf", dir);
    remove(path);
    snprintf(path, sizeof path, "%s/grid.bin", dir);
    remove(path);
    rmdir(dir);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"plan_frames", test_plan_frames},       {"stats_streaming", test_stats_streaming},
        {"best_per_cost", test_best_per_cost},   {"engines", test_engines},
        {"paths", test_paths},                   {"asset_skin", test_asset_skin},
        {"asset_morph", test_asset_morph},       {"frame_callback", test_frame_callback},
        {"cuda_variants", test_cuda_variants},   {"threads", test_threads},
        {"instances_shared", test_instances_shared}, {"frame_at", test_frame_at},
        {"frame_into", test_frame_into},
    };
    return SFT_RUN(cases, argc, argv);
}

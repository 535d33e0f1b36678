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
        printf("  (skipped %s: no assets or no command)\n", rel);
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

/* One clip of the asset with `threads` frames at once under env; every method's statistics and the log. */
typedef struct clip_run {
    sf_method_stats stats[SF_METHOD_COUNT];
    frame_log log;
    int ok;
} clip_run;

static void run_clip(const sf_gltf* g, size_t anim, double fps, size_t threads, const sf_env* env, clip_run* out)
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
              sf_asset_eval_clip(e, anim, log_frame, &out->log, &clip, &err) == SF_OK;
    if (!out->ok) printf("  %zu threads: %s\n", threads, err.message);
    if (out->ok) memcpy(out->stats, clip.methods, sizeof out->stats);
    sf_asset_eval_destroy(e);
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

/* A clip evaluated one frame at a time and with 2 and 7 frames at once, under real threads and under loops
 * that run the slots in other orders: every statistic, worst vertex and per-frame value the same bit for bit,
 * the frames reported once each in order. The clip's mean is the sum of the frames' sums over the count. */
static void check_threads(const char* rel, size_t anim, double fps)
{
    char path[1024];
    if (!sft_asset(rel, path, sizeof path)) {
        printf("  (skipped %s: no assets)\n", rel);
        return;
    }
    sf_gltf_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.generated_tangents = SF_TANGENTS_MIKKTSPACE;
    sf_gltf* g = NULL;
    sf_error err;
    CHECK_OK(sf_gltf_load_file(path, &lo, NULL, &g, &err));
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
    const size_t threads[] = {2, 7};
    for (size_t p = 0; p < sizeof pools / sizeof pools[0]; ++p) {
        sf_env env = sft_pool_env(&pools[p]);
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; ++t) {
            run_clip(g, anim, fps, threads[t], &env, other);
            int same = other->ok && !other->log.out_of_order && same_stats(base, other);
            if (!same) printf("  %s: pool mode %d, %zu threads differ\n", rel, pools[p].mode, threads[t]);
            CHECK(same);
        }
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

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"plan_frames", test_plan_frames},       {"stats_streaming", test_stats_streaming},
        {"best_per_cost", test_best_per_cost},   {"engines", test_engines},
        {"paths", test_paths},                   {"asset_skin", test_asset_skin},
        {"asset_morph", test_asset_morph},       {"frame_callback", test_frame_callback},
        {"cuda_variants", test_cuda_variants},   {"threads", test_threads},
    };
    return SFT_RUN(cases, argc, argv);
}

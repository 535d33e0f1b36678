// LABELS: unit
/* The fast angles of sf_direction_errors (src/core/angles_body.h through error.c) against the scalar reference:
 * the same bits for every angle, flag, count, worst vertex and statistic on every scene, every glTF asset, odd
 * counts and tails, zero, tiny, equal, opposite and mirrored directions, shared arrays, no tangent frame, every
 * instruction set the CPU has, and any order of the parallel chunks and thread count; the evaluation's rows
 * likewise. Built for WebAssembly too (the wasm build's fastpath_stats test, run under node): there the level is
 * SIMD128 in a module compiled with -msimd128, and the glTF assets are left out (no glTF layer). */
#define _POSIX_C_SOURCE 200809L
#include "sf_internal.h"
#include "sf_test.h"
#include "sft_pool.h"
#ifndef __wasi__
#include "sft_assets.h"
#include "skinframe_gltf.h"
#endif
#include "skinframe_scenes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int same_stats(const sf_angle_stats* a, const sf_angle_stats* b)
{
    return a->count == b->count && memcmp(&a->mean, &b->mean, sizeof a->mean) == 0 &&
           memcmp(&a->rms, &b->rms, sizeof a->rms) == 0 && memcmp(&a->p50, &b->p50, sizeof a->p50) == 0 &&
           memcmp(&a->p95, &b->p95, sizeof a->p95) == 0 && memcmp(&a->max, &b->max, sizeof a->max) == 0 &&
           memcmp(&a->over_1, &b->over_1, sizeof a->over_1) == 0 &&
           memcmp(&a->over_5, &b->over_5, sizeof a->over_5) == 0 &&
           memcmp(&a->over_45, &b->over_45, sizeof a->over_45) == 0;
}

static int same_summary(const sf_error_summary* a, const sf_error_summary* b)
{
    return same_stats(&a->normal, &b->normal) && same_stats(&a->tangent, &b->tangent) &&
           a->handedness_mismatches == b->handedness_mismatches && a->degenerate_normals == b->degenerate_normals &&
           a->degenerate_tangents == b->degenerate_tangents && a->degenerate == b->degenerate &&
           a->worst_normal_vertex == b->worst_normal_vertex && a->worst_tangent_vertex == b->worst_tangent_vertex;
}

typedef struct errors_out {
    float *nd, *td;
    uint8_t* flags;
    sf_error_summary s;
    sf_result r;
} errors_out;

static void errors_run(const sf_topology* topo, const sf_frames_out* m, const sf_frames_out* ref, errors_out* o)
{
    size_t n = sf_topology_vertex_count(topo);
    o->nd = calloc(n + 1, sizeof(float));
    o->td = calloc(n + 1, sizeof(float));
    o->flags = calloc(n + 1, 1);
    memset(&o->s, 0xab, sizeof o->s);
    o->r = sf_direction_errors(topo, m, ref, o->nd, o->td, o->flags, &o->s, NULL);
}

static void errors_free(errors_out* o) { free(o->nd), free(o->td), free(o->flags); }

/* Every level against the scalar loop; also without the per-vertex outputs. Returns the levels compared. */
static int compare_levels(const sf_topology* topo, const sf_frames_out* m, const sf_frames_out* ref, const char* where)
{
    size_t n = sf_topology_vertex_count(topo);
    errors_out base;
    sfi_simd_force(SFI_SIMD_SCALAR);
    errors_run(topo, m, ref, &base);
    int top = sfi_simd_detect(), compared = 0;
    for (int level = SFI_SIMD_SSE2; level <= top; ++level) {
        sfi_simd_force(level);
        errors_out f;
        errors_run(topo, m, ref, &f);
        if (f.r != base.r || memcmp(f.nd, base.nd, n * sizeof(float)) != 0 ||
            memcmp(f.td, base.td, n * sizeof(float)) != 0 || memcmp(f.flags, base.flags, n) != 0 ||
            (base.r == SF_OK && !same_summary(&f.s, &base.s)))
            sft_failf(__FILE__, __LINE__, "%s: level %d differs from the scalar angles (result %d / %d)", where, level,
                      (int)f.r, (int)base.r);
        sf_error_summary only;
        sf_result r = sf_direction_errors(topo, m, ref, NULL, NULL, NULL, &only, NULL);
        if (r != base.r || (base.r == SF_OK && !same_summary(&only, &base.s)))
            sft_failf(__FILE__, __LINE__, "%s: level %d without per-vertex outputs differs", where, level);
        errors_free(&f);
        compared++;
    }
    sfi_simd_force(-1);
    errors_free(&base);
    return compared;
}

/* ---------------------------------------------------------------- synthetic directions */

static uint64_t g_rng = 987654321;
static float frand(void) /* [-1, 1) */
{
    g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((double)(g_rng >> 40) / (double)(1ull << 24)) * 2.0f - 1.0f;
}

typedef struct dirs {
    sf_mesh_desc d;
    sf_topology* topo;
    float *pos, *rest, *uv, *mn, *mt, *rn, *rt;
} dirs;

/* n vertices, no triangles; method and reference directions of every kind the angle meets. */
static void dirs_make(dirs* s, size_t n, int uvs)
{
    memset(s, 0, sizeof *s);
    s->pos = calloc(3 * n + 3, sizeof(float));
    s->uv = calloc(2 * n + 2, sizeof(float));
    s->rest = calloc(3 * n + 3, sizeof(float)); /* the topology's own normals: +z */
    s->mn = calloc(3 * n + 3, sizeof(float));
    s->rn = calloc(3 * n + 3, sizeof(float));
    s->mt = calloc(4 * n + 4, sizeof(float));
    s->rt = calloc(4 * n + 4, sizeof(float));
    for (size_t v = 0; v < n; ++v) {
        float* a = s->mn + 3 * v;
        float* b = s->rn + 3 * v;
        for (int k = 0; k < 3; ++k) a[k] = frand(), b[k] = frand();
        switch (v % 17) {
        case 1: memcpy(b, a, 3 * sizeof(float)); break;                      /* 0 degrees */
        case 2: for (int k = 0; k < 3; ++k) b[k] = -a[k]; break;             /* 180 */
        case 3: a[0] = a[1] = a[2] = 0.0f; break;                            /* zero */
        case 4: b[0] = 1e-12f, b[1] = b[2] = 0.0f; break;                    /* |b|^2 about the 1e-24 threshold */
        case 5: b[0] = 1.1e-12f, b[1] = b[2] = 0.0f; break;
        case 6: for (int k = 0; k < 3; ++k) b[k] = a[k] * (1.0f + 1e-7f * (float)k); break; /* tiny angles */
        case 7: for (int k = 0; k < 3; ++k) a[k] *= 1e30f; break;           /* large, still finite */
        case 8: b[0] = a[0], b[1] = a[1], b[2] = -a[2]; break;
        default: break;
        }
        float* t = s->mt + 4 * v;
        float* r = s->rt + 4 * v;
        for (int k = 0; k < 3; ++k) t[k] = frand(), r[k] = frand();
        t[3] = v % 3 ? 1.0f : -1.0f;
        r[3] = v % 5 ? 1.0f : -1.0f;
        switch (v % 13) {
        case 1: memcpy(r, t, 3 * sizeof(float)); break;
        case 2: r[0] = r[1] = r[2] = 0.0f; break;
        case 3: for (int k = 0; k < 3; ++k) r[k] = -t[k]; break;
        default: break;
        }
        s->uv[2 * v] = (float)v;
        s->pos[3 * v] = (float)v;
        s->rest[3 * v + 2] = 1.0f;
    }
    s->d.vertex_count = n;
    s->d.positions.data = s->pos;
    s->d.normals.data = s->rest;
    s->d.tangents.data = s->mt;
    s->d.uvs.data = uvs ? s->uv : NULL;
    sf_error err;
    CHECK_OK(sf_topology_create(&s->d, NULL, NULL, &s->topo, &err));
}

static void dirs_free(dirs* s)
{
    sf_topology_destroy(s->topo);
    free(s->pos), free(s->rest), free(s->uv), free(s->mn), free(s->rn), free(s->mt), free(s->rt);
}

static void odd_counts_and_tails(void)
{
    const size_t counts[] = {1, 2, 3, 4, 5, 7, 8, 9, 13, 31, 4095, 4096, 4097, 8193, 50001, 1048579};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; ++i)
        for (int uvs = 1; uvs >= 0; --uvs) {
            dirs s;
            dirs_make(&s, counts[i], uvs);
            if (!s.topo) continue;
            char where[96];
            sf_frames_out m = {NULL, s.mn, s.mt}, ref = {NULL, s.rn, s.rt};
            snprintf(where, sizeof where, "%zu vertices, %s", counts[i], uvs ? "tangents" : "no tangent frame");
            CHECK(compare_levels(s.topo, &m, &ref, where) > 0 || sfi_simd_detect() == SFI_SIMD_SCALAR);
            if (counts[i] > 100000) { /* the chunks past 4,096 vertices: once is enough (slow under sanitizers) */
                dirs_free(&s);
                break;
            }
            /* the arrays shared: the reference against itself */
            snprintf(where, sizeof where, "%zu vertices, shared arrays", counts[i]);
            compare_levels(s.topo, &ref, &ref, where);
            /* normals only */
            sf_frames_out mn = {NULL, s.mn, NULL};
            snprintf(where, sizeof where, "%zu vertices, no method tangents", counts[i]);
            compare_levels(s.topo, &mn, &ref, where);
            dirs_free(&s);
        }
}

/* The synthetic directions reach every branch of the angle: each case is checked to occur. */
static void cases_occur(void)
{
    dirs s;
    dirs_make(&s, 4097, 1);
    if (!s.topo) return;
    sf_frames_out m = {NULL, s.mn, s.mt}, ref = {NULL, s.rn, s.rt};
    errors_out o;
    errors_run(s.topo, &m, &ref, &o);
    CHECK_OK(o.r);
    size_t zero = 0, straight = 0, wide = 0, small = 0, mid = 0;
    for (size_t v = 0; v < 4097; ++v) {
        float a = o.nd[v];
        zero += a == 0.0f;
        straight += a == 180.0f;
        wide += a > 90.0f && a < 180.0f; /* negative dot */
        small += a > 0.0f && a < 1e-3f;
        mid += a > 10.0f && a < 80.0f;
    }
    CHECK(zero > 0 && straight > 0 && wide > 0 && small > 0 && mid > 0);
    CHECK(o.s.degenerate_normals > 0 && o.s.degenerate_tangents > 0 && o.s.handedness_mismatches > 0);
    errors_free(&o);
    dirs_free(&s);
}

/* ---------------------------------------------------------------- percentiles against a sorted copy */

static int cmp_float(const void* a, const void* b)
{
    float x = *(const float*)a, y = *(const float*)b;
    return (x > y) - (x < y);
}

/* sf_angle_stats' percentile from a sorted copy: linear between the order statistics around q * (n - 1). */
static double sorted_percentile(const float* sorted, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    if (lo + 1 >= n) return sorted[lo];
    return (double)sorted[lo] + ((double)sorted[lo + 1] - (double)sorted[lo]) * (pos - (double)lo);
}

/* Large arrays take the binned order statistics (sign bits clear) or the whole-array selection (a negative
 * value, or the ranks' bins holding most values): p50 and p95 the sorted copy's to the bit either way. */
static void percentiles_against_sort(void)
{
    const size_t counts[] = {16383, 16384, 16385, 100003, 262144};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c)
        for (int kind = 0; kind < 7; ++kind) {
            size_t n = counts[c];
            float* a = malloc(n * sizeof(float));
            float* sorted = malloc(n * sizeof(float));
            for (size_t i = 0; i < n; ++i) {
                float u = 0.5f * (frand() + 1.0f); /* [0, 1) */
                switch (kind) {
                case 0: a[i] = 180.0f * u; break;                                  /* uniform */
                case 1: a[i] = i % 10 ? 0.0f : 180.0f * u; break;                  /* mostly exact zeros */
                case 2: a[i] = 1.0f + 0.1f * u; break;                             /* one bin: the fallback */
                case 3: a[i] = i % 2 ? 0.01f * u : 90.0f + u; break;               /* two clusters */
                case 4: a[i] = (float)ldexp(1.0, -(int)(i % 40)) * (1.0f + u); break; /* every octave */
                case 5: a[i] = 42.0f; break;                                       /* all equal */
                default: a[i] = i == n / 3 ? -1.0f : 30.0f * u; break;             /* a negative value */
                }
            }
            memcpy(sorted, a, n * sizeof(float));
            qsort(sorted, n, sizeof(float), cmp_float);
            sf_angle_stats st;
            CHECK_OK(sf_angle_stats_compute(a, n, NULL, NULL, &st, NULL));
            double p50 = sorted_percentile(sorted, n, 0.50), p95 = sorted_percentile(sorted, n, 0.95);
            if (memcmp(&st.p50, &p50, sizeof p50) != 0 || memcmp(&st.p95, &p95, sizeof p95) != 0)
                sft_failf(__FILE__, __LINE__, "%zu angles, kind %d: p50 %.17g p95 %.17g, sorted %.17g %.17g", n, kind,
                          st.p50, st.p95, p50, p95);
            free(a), free(sorted);
        }
}

/* ---------------------------------------------------------------- scenes, assets, the evaluation */

/* The evaluation's rows (angles, flags, statistics) at every level against the scalar run. */
static void compare_evaluation(const sf_topology* topo, const sf_pose* pose, const char* where)
{
    size_t n = sf_topology_vertex_count(topo);
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.flags = SF_EVAL_KEEP_ANGLES;
    sf_workspace_opts wo;
    memset(&wo, 0, sizeof wo);
    sf_evaluation *a = NULL, *b = NULL;
    sf_workspace* ws = NULL;
    sf_error err;
    if (sf_evaluation_create(topo, &desc, NULL, &a, &err) != SF_OK ||
        sf_evaluation_create(topo, &desc, NULL, &b, &err) != SF_OK ||
        sf_workspace_create(topo, NULL, &ws, &err) != SF_OK) {
        sft_failf(__FILE__, __LINE__, "%s: %s", where, err.message);
    } else {
        sfi_simd_force(SFI_SIMD_SCALAR);
        sf_result ra = sf_evaluation_run(a, pose, ws, NULL, &err);
        sfi_simd_force(-1);
        sf_result rb = sf_evaluation_run(b, pose, ws, NULL, &err);
        CHECK(ra == rb);
        const sf_eval_results *x = sf_evaluation_results(a), *y = sf_evaluation_results(b);
        for (size_t k = 0; ra == SF_OK && k < x->row_count; ++k) {
            const sf_eval_row *p = &x->rows[k], *q = &y->rows[k];
            if (p->status != SF_OK || q->status != SF_OK) {
                CHECK(p->status == q->status);
                continue;
            }
            if (!same_summary(&p->errors, &q->errors) || memcmp(p->normal_deg, q->normal_deg, n * sizeof(float)) ||
                memcmp(p->tangent_deg, q->tangent_deg, n * sizeof(float)) || memcmp(p->flags, q->flags, n))
                sft_failf(__FILE__, __LINE__, "%s: evaluation row %s differs from the scalar run", where,
                          sf_method_name(p->method));
        }
    }
    sf_workspace_destroy(ws);
    sf_evaluation_destroy(a);
    sf_evaluation_destroy(b);
}

/* skinned, inverse-transpose and jacobian against recompute, then the evaluation. */
static void compare_mesh(const sf_topology* topo, const sf_pose* pose, const char* where)
{
    size_t n = sf_topology_vertex_count(topo);
    sf_workspace* ws = NULL;
    sf_error err;
    if (sf_workspace_create(topo, NULL, &ws, &err) != SF_OK) {
        sft_failf(__FILE__, __LINE__, "%s: %s", where, err.message);
        return;
    }
    float* rn = calloc(3 * n + 3, sizeof(float));
    float* rt = calloc(4 * n + 4, sizeof(float));
    float* mn = calloc(3 * n + 3, sizeof(float));
    float* mt = calloc(4 * n + 4, sizeof(float));
    sf_frames_out ref = {NULL, rn, rt}, m = {NULL, mn, mt};
    CHECK_OK(sf_frames_compute(topo, pose, SF_METHOD_RECOMPUTE, NULL, ws, &ref, &err));
    const sf_method methods[] = {SF_METHOD_UNCHANGED, SF_METHOD_SKINNED, SF_METHOD_JACOBIAN};
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; ++i) {
        if (sf_frames_compute(topo, pose, methods[i], NULL, ws, &m, &err) != SF_OK) continue;
        char w[512];
        snprintf(w, sizeof w, "%s, %s", where, sf_method_name(methods[i]));
        compare_levels(topo, &m, &ref, w);
    }
    compare_evaluation(topo, pose, where);
    free(rn), free(rt), free(mn), free(mt);
    sf_workspace_destroy(ws);
}

static void every_scene(void)
{
    for (size_t s = 0; s < sf_scene_count(); ++s) {
        const sf_scene_info* info = sf_scene_info_at(s);
        sf_scene_setting set[16];
        size_t k = 0;
        for (size_t t = 0; t < info->target_count && k < 16; ++t) set[k++] = (sf_scene_setting){info->targets[t], 0.6};
        sf_scene* sc = NULL;
        sf_error err;
        CHECK_OK(sf_scene_create(info->name, NULL, set, k, NULL, &sc, &err));
        if (!sc) continue;
        sf_topology* topo = NULL;
        CHECK_OK(sf_topology_create(&sc->mesh, NULL, NULL, &topo, &err));
        if (topo) compare_mesh(topo, &sc->pose, info->name);
        sf_topology_destroy(topo);
        sf_scene_destroy(sc);
    }
}

#ifndef __wasi__
static void asset_primitive(const sf_topology* topo, const sf_pose* pose, const char* where, void* user)
{
    (void)user;
    compare_mesh(topo, pose, where);
}

static void every_asset(void)
{
    if (!sft_each_staged_primitive(asset_primitive, NULL))
        sft_skip("no assets (SF_ASSETS unset)");
}
#endif

/* ---------------------------------------------------------------- threads and chunk order */

static void any_thread_count(void)
{
    const size_t n = 300007;
    dirs s;
    dirs_make(&s, n, 1);
    if (!s.topo) return;
    sf_frames_out m = {NULL, s.mn, s.mt}, ref = {NULL, s.rn, s.rt};
    errors_out base;
    sfi_simd_force(SFI_SIMD_SCALAR);
    errors_run(s.topo, &m, &ref, &base);
    sfi_simd_force(-1);
    CHECK_OK(base.r);
    const sft_pool pools[] = {{0, 1}, {1, 1}, {2, 2}, {2, 3}, {2, 8}, {3, 1}};
    for (size_t p = 0; p < sizeof pools / sizeof pools[0]; ++p) {
        sf_env env = sft_pool_env(&pools[p]);
        sf_topology* topo = NULL;
        sf_error err;
        CHECK_OK(sf_topology_create(&s.d, NULL, &env, &topo, &err));
        for (int level = SFI_SIMD_SCALAR; topo && level <= sfi_simd_detect(); ++level) {
            sfi_simd_force(level);
            errors_out f;
            errors_run(topo, &m, &ref, &f);
            if (f.r != SF_OK || memcmp(f.nd, base.nd, n * sizeof(float)) || memcmp(f.td, base.td, n * sizeof(float)) ||
                memcmp(f.flags, base.flags, n) || !same_summary(&f.s, &base.s))
                sft_failf(__FILE__, __LINE__, "pool mode %d, %d threads, level %d: differs from the serial run",
                          pools[p].mode, pools[p].threads, level);
            errors_free(&f);
        }
        sfi_simd_force(-1);
        sf_topology_destroy(topo);
    }
    errors_free(&base);
    dirs_free(&s);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"cases_occur", cases_occur},
        {"percentiles_against_sort", percentiles_against_sort},
        {"odd_counts_and_tails", odd_counts_and_tails},
        {"every_scene", every_scene},
#ifndef __wasi__
        {"every_asset", every_asset},
#endif
        {"any_thread_count", any_thread_count},
    };
    return SFT_RUN(cases, argc, argv);
}

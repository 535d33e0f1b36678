/* The backend table: the test backend (tests/sft_backend.c), a GPU backend's control flow run on the CPU,
 * gives the CPU backend's frames bit for bit, splits batches into launches, and its device-resident
 * evaluation (statistics reduced per launch, merged in launch order) gives the CPU evaluation's results. */
#include "sf_internal.h"
#include "sft_backend.h"
#include "sf_test.h"

#include <stdlib.h>
#include <string.h>

#define POSES 7

typedef struct fixture {
    sf_scene* scene;
    sf_topology* topo;
    sf_workspace *cpu, *test;
    size_t n;
    float* bones; /* POSES poses: the scene's bones, moved a little more each */
    float* weights;
    sf_pose poses[POSES];
} fixture;

static void fixture_free(fixture* f)
{
    sf_workspace_destroy(f->cpu);
    sf_workspace_destroy(f->test);
    sf_topology_destroy(f->topo);
    sf_scene_destroy(f->scene);
    free(f->bones);
    free(f->weights);
    memset(f, 0, sizeof *f);
}

static int fixture_init(fixture* f, const char* name, const sf_scene_setting* s, size_t count)
{
    memset(f, 0, sizeof *f);
    sf_error err;
    if (sf_scene_create(name, NULL, s, count, NULL, &f->scene, &err) != SF_OK ||
        sf_topology_create(&f->scene->mesh, NULL, NULL, &f->topo, &err) != SF_OK ||
        sf_workspace_create(f->topo, NULL, &f->cpu, &err) != SF_OK ||
        sfi_workspace_create_on(f->topo, NULL, &sft_backend_test, &f->test, &err) != SF_OK) {
        sft_failf(__FILE__, __LINE__, "%s: %s", name, err.message);
        return 0;
    }
    f->n = f->topo->vertex_count;
    const sf_pose* p = &f->scene->pose;
    size_t B = p->bone_count, T = p->morph_weights ? p->morph_weight_count : 0;
    f->bones = calloc(12 * B * POSES + 1, sizeof(float));
    f->weights = calloc(T * POSES + 1, sizeof(float));
    for (size_t i = 0; i < POSES; ++i) {
        float* b = f->bones + 12 * B * i;
        for (size_t k = 0; k < 12 * B; ++k) b[k] = p->bone_matrices[k];
        for (size_t j = 0; j < B; ++j) b[12 * j + 9] += 0.01f * (float)i; /* a translation: positions move */
        for (size_t k = 0; k < T; ++k) f->weights[T * i + k] = p->morph_weights[k] * (float)(i + 1) / POSES;
        f->poses[i] = *p;
        f->poses[i].bone_matrices = B ? b : NULL;
        f->poses[i].morph_weights = T ? f->weights + T * i : NULL;
    }
    return 1;
}

static int same_report(const sf_frames_report* a, const sf_frames_report* b)
{
    return a->mirrored_vertices == b->mirrored_vertices && a->singular_vertices == b->singular_vertices &&
           a->degenerate_normals == b->degenerate_normals && a->degenerate_tangents == b->degenerate_tangents &&
           a->jacobian_capped == b->jacobian_capped;
}

static const sf_scene_setting sheet[] = {{"resolution", 4}, {"twist", 150}, {"bend", 70}, {"ripples", 0.6}};

/* ---------------------------------------------------------------- frames */

static void test_frames_match_cpu(void)
{
    fixture f;
    if (!fixture_init(&f, "sheet", sheet, 4)) return;
    size_t n = f.n;
    float* buf = calloc(20 * n, sizeof(float));
    CHECK(buf != NULL);
    int ok = 1;
    for (int d = 0; d < 3 && ok; ++d) {
        for (int m = 0; m < SF_METHOD_COUNT && ok; ++m) {
            sf_frames_opts o;
            memset(&o, 0, sizeof o);
            o.morph_directions = (sf_morph_directions)d;
            o.weighting = (sf_weighting)(m % 3);
            sf_frames_out a = {buf, buf + 3 * n, buf + 6 * n}, b = {buf + 10 * n, buf + 13 * n, buf + 16 * n};
            sf_frames_report ra, rb;
            sf_result r1 = sf_frames_compute(f.topo, &f.poses[3], (sf_method)m, &o, f.cpu, &a, NULL);
            sf_result r2 = sf_frames_compute(f.topo, &f.poses[3], (sf_method)m, &o, f.test, &b, NULL);
            sf_workspace_last_report(f.cpu, &ra);
            sf_workspace_last_report(f.test, &rb);
            ok = r1 == SF_OK && r2 == SF_OK && memcmp(buf, buf + 10 * n, 10 * n * sizeof(float)) == 0 &&
                 same_report(&ra, &rb) && ra.fused_two_pass == rb.fused_two_pass;
            if (!ok) sft_failf(__FILE__, __LINE__, "%s, morph directions %d", sf_method_name((sf_method)m), d);
        }
    }
    free(buf);
    fixture_free(&f);
}

/* A batch of 7 in launches of 3: three launches, each pose's frames as one CPU call gives them, the counters
 * summed as the CPU's batch sums them. */
static void test_batch_in_launches(void)
{
    sft_backend_set_launch(3);
    fixture f;
    if (!fixture_init(&f, "sheet", sheet, 4)) return;
    size_t n = f.n;
    float* buf = calloc(2 * POSES * 10 * n, sizeof(float));
    CHECK(buf != NULL);
    sf_frames_out a[POSES], b[POSES];
    for (size_t i = 0; i < POSES; ++i) {
        float* p = buf + 10 * n * i;
        float* q = buf + 10 * n * (POSES + i);
        a[i] = (sf_frames_out){p, p + 3 * n, p + 6 * n};
        b[i] = (sf_frames_out){q, q + 3 * n, q + 6 * n};
    }
    int ok = 1;
    for (int m = 0; m < SF_METHOD_COUNT && ok; ++m) {
        size_t before = sft_backend_launches(f.test);
        sf_frames_report ra, rb;
        CHECK_OK(sf_frames_compute_batch(f.topo, f.poses, POSES, (sf_method)m, NULL, f.cpu, a, NULL));
        sf_workspace_last_report(f.cpu, &ra);
        CHECK_OK(sf_frames_compute_batch(f.topo, f.poses, POSES, (sf_method)m, NULL, f.test, b, NULL));
        sf_workspace_last_report(f.test, &rb);
        ok = sft_backend_launches(f.test) - before == 3 &&
             memcmp(buf, buf + 10 * n * POSES, 10 * n * POSES * sizeof(float)) == 0 && same_report(&ra, &rb);
        if (!ok) sft_failf(__FILE__, __LINE__, "%s", sf_method_name((sf_method)m));
    }
    /* a bad pose is named by its index in the batch */
    sf_pose bad[2] = {f.poses[0], f.poses[1]};
    bad[1].bone_count = 0;
    sf_error err;
    CHECK(sf_frames_compute_batch(f.topo, bad, 2, SF_METHOD_SKINNED, NULL, f.test, b, &err) != SF_OK);
    free(buf);
    fixture_free(&f);
}

/* ---------------------------------------------------------------- evaluation */

/* The histogram's bound on p50 / p95 (skinframe.h): below 2^-10 degrees, and value / 256 under 0.25. */
static int percentile_close(double exact, double binned)
{
    double tol = exact < 0.25 ? exact / 256.0 + 1e-12 : 0.0009765625;
    return fabs(exact - binned) <= tol;
}

static int same_stats(const sf_angle_stats* a, const sf_angle_stats* b, int exact_sums)
{
    double rel = exact_sums ? 0.0 : 1e-12;
    return a->count == b->count && a->max == b->max && a->over_1 == b->over_1 && a->over_5 == b->over_5 &&
           a->over_45 == b->over_45 && fabs(a->mean - b->mean) <= rel * fabs(a->mean) &&
           fabs(a->rms - b->rms) <= rel * fabs(a->rms);
}

/* One pose: the evaluation on the test backend takes the device path (nothing per vertex kept) and gives the
 * CPU's statistics: sums and counts exactly, p50 / p95 within the histogram's bound. */
static void test_evaluation_matches_cpu(void)
{
    fixture f;
    if (!fixture_init(&f, "sheet", sheet, 4)) return;
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    sf_method all[SF_METHOD_COUNT];
    for (int m = 0; m < SF_METHOD_COUNT; ++m) all[m] = (sf_method)m;
    desc.methods = all;
    desc.method_count = SF_METHOD_COUNT;
    desc.method_opts.morph_directions = SF_MORPH_DIRECTIONS_NORMALS;
    sf_evaluation *ec = NULL, *et = NULL;
    CHECK_OK(sf_evaluation_create(f.topo, &desc, NULL, &ec, NULL));
    CHECK_OK(sf_evaluation_create(f.topo, &desc, NULL, &et, NULL));
    size_t before = sft_backend_launches(f.test);
    CHECK_OK(sf_evaluation_run(ec, &f.poses[2], f.cpu, NULL, NULL));
    CHECK_OK(sf_evaluation_run(et, &f.poses[2], f.test, NULL, NULL));
    CHECK(sft_backend_launches(f.test) == before + 1); /* the device path, one launch */
    const sf_eval_results *rc = sf_evaluation_results(ec), *rt = sf_evaluation_results(et);
    CHECK(rt->reference_normals == NULL); /* nothing per vertex came back */
    CHECK(same_report(&rc->reference_report, &rt->reference_report));
    int ok = 1;
    for (size_t k = 0; k < rc->row_count && ok; ++k) {
        const sf_eval_row *a = &rc->rows[k], *b = &rt->rows[k];
        const sf_error_summary *sa = &a->errors, *sb = &b->errors;
        ok = a->status == b->status && same_report(&a->report, &b->report) && same_stats(&sa->normal, &sb->normal, 1) &&
             same_stats(&sa->tangent, &sb->tangent, 1) && percentile_close(sa->normal.p50, sb->normal.p50) &&
             percentile_close(sa->normal.p95, sb->normal.p95) && percentile_close(sa->tangent.p95, sb->tangent.p95) &&
             sa->degenerate == sb->degenerate && sa->degenerate_normals == sb->degenerate_normals &&
             sa->degenerate_tangents == sb->degenerate_tangents &&
             sa->handedness_mismatches == sb->handedness_mismatches &&
             sa->worst_normal_vertex == sb->worst_normal_vertex && sa->worst_tangent_vertex == sb->worst_tangent_vertex;
        if (!ok)
            sft_failf(__FILE__, __LINE__, "%s: mean %.17g / %.17g, p50 %.9g / %.9g, worst %zu / %zu",
                      sf_method_name(a->method), sa->normal.mean, sb->normal.mean, sa->normal.p50, sb->normal.p50,
                      sa->worst_normal_vertex, sb->worst_normal_vertex);
    }
    CHECK(ok);
    /* the row's angles added to an accumulator: the CPU's kept angles and the device's histogram agree */
    sf_angle_accumulator *a1 = NULL, *a2 = NULL;
    CHECK_OK(sf_angle_accumulator_create(NULL, &a1, NULL));
    CHECK_OK(sf_angle_accumulator_create(NULL, &a2, NULL));
    sf_eval_desc keep = desc;
    keep.flags = SF_EVAL_KEEP_ANGLES;
    sf_evaluation* ek = NULL;
    CHECK_OK(sf_evaluation_create(f.topo, &keep, NULL, &ek, NULL));
    CHECK_OK(sf_evaluation_run(ek, &f.poses[2], f.cpu, NULL, NULL));
    CHECK_OK(sf_evaluation_accumulate(ek, 1, a1, NULL, NULL));
    CHECK_OK(sf_evaluation_accumulate(et, 1, a2, NULL, NULL));
    sf_angle_stats s1, s2;
    CHECK_OK(sf_angle_accumulator_finish(a1, &s1, NULL));
    CHECK_OK(sf_angle_accumulator_finish(a2, &s2, NULL));
    CHECK(same_stats(&s1, &s2, 1) && s1.p50 == s2.p50 && s1.p95 == s2.p95 && s1.count == f.n);
    sf_angle_accumulator_destroy(a1);
    sf_angle_accumulator_destroy(a2);
    sf_evaluation_destroy(ek);
    sf_evaluation_destroy(ec);
    sf_evaluation_destroy(et);
    fixture_free(&f);
}

/* Seven poses in launches of 3: statistics reduced per launch and merged in launch order equal the CPU's
 * evaluation of each pose added one after the other (sums within rounding: the order differs), and the
 * reports, kept for a single launch only, are zero. */
static void test_evaluation_over_launches(void)
{
    sft_backend_set_launch(3);
    fixture f;
    if (!fixture_init(&f, "sheet", sheet, 4)) return;
    sf_method rows[3] = {SF_METHOD_SKINNED, SF_METHOD_JACOBIAN, SF_METHOD_RECOMPUTE_FUSED};
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.methods = rows;
    desc.method_count = 3;
    desc.flags = SF_EVAL_KEEP_ANGLES;
    sf_evaluation* ev = NULL;
    CHECK_OK(sf_evaluation_create(f.topo, &desc, NULL, &ev, NULL));
    sf_angle_accumulator* acc[6] = {NULL};
    for (int k = 0; k < 6; ++k) CHECK_OK(sf_angle_accumulator_create(NULL, &acc[k], NULL));
    size_t degenerate[3] = {0, 0, 0};
    for (size_t i = 0; i < POSES; ++i) {
        CHECK_OK(sf_evaluation_run(ev, &f.poses[i], f.cpu, NULL, NULL));
        for (size_t k = 0; k < 3; ++k) {
            CHECK_OK(sf_evaluation_accumulate(ev, k, acc[2 * k], acc[2 * k + 1], NULL));
            degenerate[k] += sf_evaluation_results(ev)->rows[k].errors.degenerate;
        }
    }
    size_t before = sft_backend_launches(f.test);
    CHECK_OK(f.test->be->eval_enqueue(f.test, f.poses, POSES, rows, 3, NULL, NULL, NULL));
    CHECK(sft_backend_launches(f.test) == before + 3);
    sf_frames_report rep;
    for (size_t k = 0; k < 3; ++k) {
        sf_error_summary s;
        CHECK_OK(f.test->be->eval_read(f.test, k, &s, &rep, NULL, NULL, NULL));
        CHECK(rep.mirrored_vertices == 0 && rep.degenerate_normals == 0);
        sf_angle_stats cn, ct;
        CHECK_OK(sf_angle_accumulator_finish(acc[2 * k], &cn, NULL));
        CHECK_OK(sf_angle_accumulator_finish(acc[2 * k + 1], &ct, NULL));
        CHECK(cn.count == POSES * f.n);
        CHECK(same_stats(&cn, &s.normal, 0) && cn.p50 == s.normal.p50 && cn.p95 == s.normal.p95);
        CHECK(same_stats(&ct, &s.tangent, 0) && ct.p95 == s.tangent.p95);
        CHECK(s.degenerate == degenerate[k]);
    }
    CHECK(f.test->be->eval_read(f.test, 3, NULL, NULL, NULL, NULL, NULL) == SF_ERROR_INVALID_ARGUMENT);
    for (int k = 0; k < 6; ++k) sf_angle_accumulator_destroy(acc[k]);
    sf_evaluation_destroy(ev);
    fixture_free(&f);
}

/* ---------------------------------------------------------------- the table */

static void test_tables(void)
{
    CHECK(sfi_backend_of(SF_BACKEND_CPU) == &sfi_backend_cpu && sfi_backend_of(SF_BACKEND_CUDA) == &sfi_backend_cuda);
    CHECK(sfi_backend_of((sf_backend)2) == NULL);
    CHECK(strcmp(sf_backend_name(SF_BACKEND_CPU), sfi_backend_cpu.name) == 0);
    /* every backend has the required entries; the CPU's has no device side */
    const sfi_backend_i* all[] = {&sfi_backend_cpu, &sfi_backend_cuda, &sft_backend_test};
    for (size_t b = 0; b < 3; ++b) CHECK(all[b]->name && all[b]->check);
    CHECK(sfi_backend_cpu.frames && !sfi_backend_cpu.workspace_init && !sfi_backend_cpu.eval_enqueue);
    sf_error err;
    if (sf_backend_check(SF_BACKEND_CUDA, &err) == SF_OK) CHECK(sfi_backend_cuda.frames && sfi_backend_cuda.eval_read);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"tables", test_tables},
        {"frames_match_cpu", test_frames_match_cpu},
        {"batch_in_launches", test_batch_in_launches},
        {"evaluation_matches_cpu", test_evaluation_matches_cpu},
        {"evaluation_over_launches", test_evaluation_over_launches},
    };
    return SFT_RUN(cases, argc, argv);
}

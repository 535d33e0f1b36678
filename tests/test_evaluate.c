// LABELS: unit
/* The evaluation API against independent sf_frames_compute + sf_direction_errors calls (bit for bit), its
 * echo of the reference settings, method subsets and order, caller buffers, the recompute row, no
 * allocation per run, validation of the desc; and the glTF world placement against a hand-computed case. */
#include "sf_test.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- fixtures */

typedef struct fixture {
    sf_scene* scene;
    sf_topology* topo;
    sf_workspace* ws;
} fixture;

static int fixture_make(fixture* f, const char* scene, const char* preset, const sf_scene_setting* set, size_t count,
                        const sf_env* env)
{
    memset(f, 0, sizeof *f);
    sf_error err;
    if (sf_scene_create(scene, preset, set, count, NULL, &f->scene, &err) != SF_OK) return 0;
    if (sf_topology_create(&f->scene->mesh, NULL, env, &f->topo, &err) != SF_OK) return 0;
    return sf_workspace_create(f->topo, NULL, &f->ws, &err) == SF_OK;
}

static void fixture_free(fixture* f)
{
    sf_workspace_destroy(f->ws);
    sf_topology_destroy(f->topo);
    sf_scene_destroy(f->scene);
    memset(f, 0, sizeof *f);
}

static const sf_scene_setting combo_settings[] = {
    {"towel-twist", 0.7}, {"swirl", 0.5}, {"ripples", 0.6}, {"twist", 90}};

static int stats_equal(const sf_angle_stats* a, const sf_angle_stats* b)
{
    return a->count == b->count && a->mean == b->mean && a->rms == b->rms && a->p50 == b->p50 && a->p95 == b->p95 &&
           a->max == b->max && a->over_1 == b->over_1 && a->over_5 == b->over_5 && a->over_45 == b->over_45;
}

static int summary_equal(const sf_error_summary* a, const sf_error_summary* b)
{
    return stats_equal(&a->normal, &b->normal) && stats_equal(&a->tangent, &b->tangent) &&
           a->handedness_mismatches == b->handedness_mismatches && a->degenerate_normals == b->degenerate_normals &&
           a->degenerate_tangents == b->degenerate_tangents && a->degenerate == b->degenerate &&
           a->worst_normal_vertex == b->worst_normal_vertex && a->worst_tangent_vertex == b->worst_tangent_vertex;
}

static int report_equal(const sf_frames_report* a, const sf_frames_report* b)
{
    return a->mirrored_vertices == b->mirrored_vertices && a->singular_vertices == b->singular_vertices &&
           a->degenerate_normals == b->degenerate_normals && a->degenerate_tangents == b->degenerate_tangents &&
           a->jacobian_capped == b->jacobian_capped;
}

static int opts_equal(const sf_frames_opts* a, const sf_frames_opts* b)
{
    return a->morph_directions == b->morph_directions && a->weighting == b->weighting && a->weld == b->weld &&
           a->tangents == b->tangents && a->jacobian_cap == b->jacobian_cap && a->reference == b->reference;
}

/* With MikkTSpace reference tangents the evaluation measures tangents at every corner: rewrites the
 * per-vertex expectations (td, flags, s from sf_direction_errors) to the per-corner ones, computed here corner
 * by corner from the reference's corner tangents; checks the row's corner angles. The recompute row's own
 * corners are the reference's. */
static int corner_expectations(const sf_topology* topo, int is_reference, const float* method_t, const float* ref_ct,
                               float* td, uint8_t* flags, sf_error_summary* s, const float* row_corner_deg)
{
    size_t n = sf_topology_vertex_count(topo), C = 3 * sf_topology_triangle_count(topo);
    const uint32_t* idx = sf_topology_indices(topo);
    float* tcd = calloc(C + 1, sizeof(float));
    uint8_t* seen = calloc(n + 1, 1);
    if (!tcd || !seen || !ref_ct || !row_corner_deg) return 0;
    const uint8_t tbits = SF_VERTEX_DEGENERATE_TANGENT | SF_VERTEX_HANDEDNESS;
    double worst = -1.0;
    s->handedness_mismatches = 0;
    for (size_t c = 0; c < C; ++c) {
        uint32_t v = idx[c];
        const float* rt = ref_ct + 4 * c;
        const float* mt = is_reference ? rt : method_t + 4 * (size_t)v;
        double a = sf_angle_deg(mt, rt);
        tcd[c] = (float)a;
        if (a > worst) worst = a, s->worst_tangent_vertex = v;
        int handed = (mt[3] < 0) != (rt[3] < 0);
        s->handedness_mismatches += (size_t)handed;
        if (!seen[v]) td[v] = 0.0f, flags[v] &= (uint8_t)~tbits;
        seen[v] = 1;
        if ((float)a > td[v]) td[v] = (float)a;
        if (handed) flags[v] |= SF_VERTEX_HANDEDNESS;
        if (sf_angle_deg(mt, mt) == 180.0 || sf_angle_deg(rt, rt) == 180.0) flags[v] |= SF_VERTEX_DEGENERATE_TANGENT;
    }
    s->degenerate_tangents = s->degenerate = 0;
    for (size_t v = 0; v < n; ++v) {
        s->degenerate_tangents += (flags[v] & SF_VERTEX_DEGENERATE_TANGENT) != 0;
        s->degenerate += (flags[v] & (SF_VERTEX_DEGENERATE_TANGENT | SF_VERTEX_DEGENERATE_NORMAL)) != 0;
    }
    int ok = sf_angle_stats_compute(tcd, C, NULL, NULL, &s->tangent, NULL) == SF_OK && s->tangent.count == C &&
             memcmp(tcd, row_corner_deg, C * sizeof(float)) == 0;
    free(tcd);
    free(seen);
    return ok;
}

/* Every row of an evaluation (frames and angles kept) against its own sf_frames_compute and
 * sf_direction_errors, bit for bit; reports the first row that differs. */
static void check_against_independent(const char* scene, const char* preset, const sf_scene_setting* set, size_t count,
                                      const sf_frames_opts* method_opts, const sf_frames_opts* ref_opts)
{
    fixture f;
    CHECK(fixture_make(&f, scene, preset, set, count, NULL));
    size_t n = sf_topology_vertex_count(f.topo);
    CHECK(n > 0);
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.method_opts = *method_opts;
    desc.reference_opts = *ref_opts;
    desc.flags = SF_EVAL_KEEP_FRAMES | SF_EVAL_KEEP_ANGLES;
    sf_evaluation* ev = NULL;
    sf_error err;
    CHECK_OK(sf_evaluation_create(f.topo, &desc, NULL, &ev, &err));
    CHECK_OK(sf_evaluation_run(ev, &f.scene->pose, f.ws, NULL, &err));
    const sf_eval_results* res = sf_evaluation_results(ev);
    CHECK(res->row_count == SF_METHOD_DEFAULT_COUNT && res->runs == 1 && res->failed == SF_EVAL_STAGE_NONE);
    CHECK(res->tangent_frame == sf_topology_has_tangent_frame(f.topo));

    float* pos = calloc(3 * n, sizeof(float));
    float* ref_n = calloc(3 * n, sizeof(float));
    float* ref_t = calloc(4 * n, sizeof(float));
    float* out_n = calloc(3 * n, sizeof(float));
    float* out_t = calloc(4 * n, sizeof(float));
    float* nd = calloc(n, sizeof(float));
    float* td = calloc(n, sizeof(float));
    uint8_t* flags = calloc(n, 1);
    int ok = pos && ref_n && ref_t && out_n && out_t && nd && td && flags;
    sf_frames_report ref_report;
    sf_frames_out ref = {pos, ref_n, ref_t};
    ok = ok && sf_frames_compute(f.topo, &f.scene->pose, SF_METHOD_RECOMPUTE, ref_opts, f.ws, &ref, &err) == SF_OK;
    sf_workspace_last_report(f.ws, &ref_report);
    ok = ok && memcmp(pos, res->positions, 3 * n * sizeof(float)) == 0 &&
         memcmp(ref_n, res->reference_normals, 3 * n * sizeof(float)) == 0 &&
         memcmp(ref_t, res->reference_tangents, 4 * n * sizeof(float)) == 0 &&
         report_equal(&ref_report, &res->reference_report);
    sf_frames_out ref_dirs = {NULL, ref_n, ref_t};
    for (int m = 0; ok && m < SF_METHOD_DEFAULT_COUNT; ++m) {
        const sf_eval_row* row = &res->rows[m];
        ok = row->method == (sf_method)m && row->status == SF_OK;
        const sf_frames_opts* opts = m == SF_METHOD_RECOMPUTE ? ref_opts : method_opts;
        sf_frames_out out = {NULL, out_n, out_t};
        sf_frames_report rep;
        sf_error_summary s;
        ok = ok && sf_frames_compute(f.topo, &f.scene->pose, (sf_method)m, opts, f.ws, &out, &err) == SF_OK;
        sf_workspace_last_report(f.ws, &rep);
        ok = ok && sf_direction_errors(f.topo, &out, &ref_dirs, nd, td, flags, &s, &err) == SF_OK;
        if (ok && res->tangent_corners)
            ok = corner_expectations(f.topo, m == SF_METHOD_RECOMPUTE, out_t, res->reference_corner_tangents, td,
                                     flags, &s, row->tangent_corner_deg);
        ok = ok && row->normals && row->tangents && row->normal_deg && row->tangent_deg && row->flags;
        ok = ok && memcmp(out_n, row->normals, 3 * n * sizeof(float)) == 0 &&
             memcmp(out_t, row->tangents, 4 * n * sizeof(float)) == 0 &&
             memcmp(nd, row->normal_deg, n * sizeof(float)) == 0 &&
             memcmp(td, row->tangent_deg, n * sizeof(float)) == 0 && memcmp(flags, row->flags, n) == 0;
        ok = ok && summary_equal(&s, &row->errors) && report_equal(&rep, &row->report);
        if (!ok) sft_failf(__FILE__, __LINE__, "%s %s: row %s differs", scene, preset ? preset : "", sf_method_name((sf_method)m));
    }
    free(pos), free(ref_n), free(ref_t), free(out_n), free(out_t), free(nd), free(td), free(flags);
    sf_evaluation_destroy(ev);
    fixture_free(&f);
    CHECK(ok);
}

static void test_sheet_twist_matches_independent_calls(void)
{
    sf_frames_opts m, r;
    memset(&m, 0, sizeof m);
    memset(&r, 0, sizeof r);
    check_against_independent("sheet", "bone-twist", NULL, 0, &m, &r);
}

static void test_elbow_bend_matches_independent_calls(void)
{
    sf_frames_opts m, r;
    memset(&m, 0, sizeof m);
    memset(&r, 0, sizeof r);
    m.jacobian_cap = 0.5f;
    r.weighting = SF_WEIGHTING_ANGLE;
    check_against_independent("elbow", "bend", NULL, 0, &m, &r);
}

static void test_morph_combo_matches_independent_calls(void)
{
    sf_frames_opts m, r;
    memset(&m, 0, sizeof m);
    memset(&r, 0, sizeof r);
    r.weld = SF_WELD_POSITION_NORMAL;
    r.tangents = SF_TANGENTS_MIKKTSPACE;
    check_against_independent("sheet", NULL, combo_settings, 4, &m, &r);
    m.morph_directions = SF_MORPH_DIRECTIONS_NONE;
    r.reference = SF_REFERENCE_AUTHORED;
    check_against_independent("sheet", NULL, combo_settings, 4, &m, &r);
}

/* ---------------------------------------------------------------- settings, subsets, buffers */

static void test_reference_settings_echoed(void)
{
    fixture f;
    CHECK(fixture_make(&f, "sheet", NULL, combo_settings, 4, NULL));
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.reference_opts.weighting = SF_WEIGHTING_UNIFORM;
    desc.reference_opts.weld = SF_WELD_POSITION;
    desc.reference_opts.tangents = SF_TANGENTS_MIKKTSPACE;
    desc.reference_opts.reference = SF_REFERENCE_AUTHORED;
    desc.reference_opts.morph_directions = SF_MORPH_DIRECTIONS_NONE;
    desc.method_opts.jacobian_cap = 2.0f;
    sf_evaluation* ev = NULL;
    CHECK_OK(sf_evaluation_create(f.topo, &desc, NULL, &ev, NULL));
    const sf_eval_results* res = sf_evaluation_results(ev);
    CHECK(res->runs == 0 && res->vertex_count == sf_topology_vertex_count(f.topo));
    CHECK_OK(sf_evaluation_run(ev, &f.scene->pose, f.ws, NULL, NULL));
    CHECK(opts_equal(&res->reference_opts, &desc.reference_opts));
    CHECK(opts_equal(&res->method_opts, &desc.method_opts));
    for (size_t k = 0; k < res->row_count; ++k) {
        const sf_eval_row* row = &res->rows[k];
        CHECK(opts_equal(&row->opts, row->method == SF_METHOD_RECOMPUTE ? &desc.reference_opts : &desc.method_opts));
    }
    /* The recompute row is the reference: its frames are the reference's. */
    const sf_eval_row* rc = sf_evaluation_row(ev, SF_METHOD_RECOMPUTE);
    CHECK(rc && rc->normals == res->reference_normals && rc->tangents == res->reference_tangents);
    sf_evaluation_destroy(ev);
    fixture_free(&f);
}

static void test_method_subset_and_order(void)
{
    fixture f;
    CHECK(fixture_make(&f, "elbow", "bend", NULL, 0, NULL));
    sf_evaluation *all = NULL, *some = NULL;
    CHECK_OK(sf_evaluation_create(f.topo, NULL, NULL, &all, NULL));
    const sf_method order[3] = {SF_METHOD_JACOBIAN, SF_METHOD_UNCHANGED, SF_METHOD_RECOMPUTE};
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.methods = order;
    desc.method_count = 3;
    CHECK_OK(sf_evaluation_create(f.topo, &desc, NULL, &some, NULL));
    CHECK_OK(sf_evaluation_run(all, &f.scene->pose, f.ws, NULL, NULL));
    CHECK_OK(sf_evaluation_run(some, &f.scene->pose, f.ws, NULL, NULL));
    const sf_eval_results* ra = sf_evaluation_results(all);
    const sf_eval_results* rs = sf_evaluation_results(some);
    CHECK(ra->row_count == SF_METHOD_DEFAULT_COUNT && rs->row_count == 3);
    for (int m = 0; m < SF_METHOD_DEFAULT_COUNT; ++m) CHECK(ra->rows[m].method == (sf_method)m);
    for (size_t k = 0; k < 3; ++k) {
        CHECK(rs->rows[k].method == order[k]);
        CHECK(sf_evaluation_row(some, order[k]) == &rs->rows[k]);
        CHECK(summary_equal(&rs->rows[k].errors, &ra->rows[order[k]].errors));
        CHECK(report_equal(&rs->rows[k].report, &ra->rows[order[k]].report));
    }
    CHECK(sf_evaluation_row(some, SF_METHOD_SKINNED) == NULL);
    CHECK(sf_evaluation_row(some, SF_METHOD_INVERSE_TRANSPOSE) == NULL);
    CHECK(sf_evaluation_methods_mask(some) ==
          ((1u << SF_METHOD_JACOBIAN) | (1u << SF_METHOD_UNCHANGED) | (1u << SF_METHOD_RECOMPUTE)));
    /* The reference is part of every evaluation, asked for or not. */
    const sf_method one = SF_METHOD_SKINNED;
    desc.methods = &one;
    desc.method_count = 1;
    sf_evaluation* skinned = NULL;
    CHECK_OK(sf_evaluation_create(f.topo, &desc, NULL, &skinned, NULL));
    CHECK(sf_evaluation_methods_mask(skinned) == ((1u << SF_METHOD_SKINNED) | (1u << SF_METHOD_RECOMPUTE)));
    sf_evaluation_destroy(skinned);
    /* Nothing kept: no per-vertex arrays in the results. */
    CHECK(ra->rows[SF_METHOD_SKINNED].normals == NULL && ra->rows[SF_METHOD_SKINNED].normal_deg == NULL);
    sf_evaluation_destroy(all);
    sf_evaluation_destroy(some);
    fixture_free(&f);
}

/* The recompute row runs with the reference's settings: about zero degrees, whatever those settings are. */
static void test_recompute_row_is_zero(void)
{
    const sf_weld welds[2] = {SF_WELD_NONE, SF_WELD_POSITION_NORMAL};
    for (int w = 0; w < 2; ++w) {
        fixture f;
        CHECK(fixture_make(&f, "sheet", NULL, combo_settings, 4, NULL));
        sf_eval_desc desc;
        memset(&desc, 0, sizeof desc);
        desc.reference_opts.weld = welds[w];
        desc.reference_opts.weighting = SF_WEIGHTING_ANGLE;
        desc.method_opts.morph_directions = SF_MORPH_DIRECTIONS_NONE; /* must not reach the recompute row */
        sf_evaluation* ev = NULL;
        CHECK_OK(sf_evaluation_create(f.topo, &desc, NULL, &ev, NULL));
        CHECK_OK(sf_evaluation_run(ev, &f.scene->pose, f.ws, NULL, NULL));
        const sf_eval_row* rc = sf_evaluation_row(ev, SF_METHOD_RECOMPUTE);
        CHECK(rc->errors.degenerate == 0 && rc->errors.handedness_mismatches == 0);
        CHECK_NEAR(rc->errors.normal.max, 0.0, 1e-6);
        CHECK_NEAR(rc->errors.tangent.max, 0.0, 1e-6);
        CHECK(rc->errors.normal.count == sf_topology_vertex_count(f.topo));
        /* and the others are not zero on this pose */
        CHECK(sf_evaluation_row(ev, SF_METHOD_UNCHANGED)->errors.normal.max > 1.0);
        sf_evaluation_destroy(ev);
        fixture_free(&f);
    }
}

/* A vertex in no triangle has no corner: the per-corner MikkTSpace reference skips it (the fuzzer found a read
 * past the adjacency when the last vertex was isolated; ASan builds catch a regression). */
static void test_isolated_vertex_mikktspace(void)
{
    const float P[15] = {0, 0, 0, 1, 0, 0, 1, 0, -1, 0, 0, -1, 5, 5, 5};
    const float N[15] = {0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0};
    const float UV[10] = {0, 0, 1, 0, 1, 1, 0, 1, 0.5f, 0.5f};
    const uint32_t I[6] = {0, 1, 2, 0, 2, 3};
    sf_mesh_desc mesh;
    memset(&mesh, 0, sizeof mesh);
    mesh.vertex_count = 5;
    mesh.triangle_count = 2;
    mesh.indices = I;
    mesh.positions.data = P;
    mesh.normals.data = N;
    mesh.uvs.data = UV;
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    sf_evaluation* ev = NULL;
    CHECK_OK(sf_topology_create(&mesh, NULL, NULL, &topo, NULL));
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.reference_opts.tangents = SF_TANGENTS_MIKKTSPACE;
    CHECK_OK(sf_evaluation_create(topo, &desc, NULL, &ev, NULL));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    sf_pose pose;
    memset(&pose, 0, sizeof pose);
    CHECK_OK(sf_evaluation_run(ev, &pose, ws, NULL, NULL));
    const sf_eval_results* res = sf_evaluation_results(ev);
    CHECK(res->tangent_corners && res->reference_split_vertices == 0);
    CHECK(sf_evaluation_row(ev, SF_METHOD_SKINNED)->errors.tangent.count == 6); /* the six corners */
    sf_evaluation_destroy(ev);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
}

/* Caller buffers take the arrays; results point at them and hold what the evaluation's own would. */
static void test_caller_buffers(void)
{
    fixture f;
    CHECK(fixture_make(&f, "sheet", "bone-bend", NULL, 0, NULL));
    size_t n = sf_topology_vertex_count(f.topo);
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.flags = SF_EVAL_KEEP_FRAMES | SF_EVAL_KEEP_ANGLES;
    sf_evaluation *kept = NULL, *given = NULL;
    CHECK_OK(sf_evaluation_create(f.topo, &desc, NULL, &kept, NULL));
    desc.flags = SF_EVAL_NO_STATISTICS;
    CHECK_OK(sf_evaluation_create(f.topo, &desc, NULL, &given, NULL));
    CHECK_OK(sf_evaluation_run(kept, &f.scene->pose, f.ws, NULL, NULL));
    float* mem = calloc(10 * n + SF_METHOD_COUNT * 9 * n, sizeof(float));
    uint8_t* fl = calloc(SF_METHOD_COUNT * n, 1);
    CHECK(mem && fl);
    sf_eval_buffers b;
    memset(&b, 0, sizeof b);
    b.positions = mem;
    b.reference_normals = mem + 3 * n;
    b.reference_tangents = mem + 6 * n;
    for (int k = 0; k < SF_METHOD_COUNT; ++k) {
        float* base = mem + 10 * n + (size_t)k * 9 * n;
        b.rows[k].normals = base;
        b.rows[k].tangents = base + 3 * n;
        b.rows[k].normal_deg = base + 7 * n;
        b.rows[k].tangent_deg = base + 8 * n;
        b.rows[k].flags = fl + (size_t)k * n;
    }
    CHECK_OK(sf_evaluation_run(given, &f.scene->pose, f.ws, &b, NULL));
    const sf_eval_results* rk = sf_evaluation_results(kept);
    const sf_eval_results* rg = sf_evaluation_results(given);
    CHECK(rg->positions == b.positions && rg->reference_normals == b.reference_normals);
    CHECK(memcmp(rg->positions, rk->positions, 3 * n * sizeof(float)) == 0);
    CHECK(memcmp(rg->reference_tangents, rk->reference_tangents, 4 * n * sizeof(float)) == 0);
    for (int k = 0; k < SF_METHOD_DEFAULT_COUNT; ++k) {
        const sf_eval_row* g = &rg->rows[k];
        const sf_eval_row* r = &rk->rows[k];
        CHECK(g->normals == b.rows[k].normals && g->normal_deg == b.rows[k].normal_deg && g->flags == b.rows[k].flags);
        CHECK(memcmp(g->normals, r->normals, 3 * n * sizeof(float)) == 0);
        CHECK(memcmp(g->tangents, r->tangents, 4 * n * sizeof(float)) == 0);
        CHECK(memcmp(g->normal_deg, r->normal_deg, n * sizeof(float)) == 0);
        CHECK(memcmp(g->tangent_deg, r->tangent_deg, n * sizeof(float)) == 0);
        CHECK(memcmp(g->flags, r->flags, n) == 0);
        /* SF_EVAL_NO_STATISTICS: counts and worst vertices, no percentiles */
        CHECK(g->errors.normal.count == 0 && g->errors.normal.max == 0.0);
        CHECK(g->errors.worst_normal_vertex == r->errors.worst_normal_vertex);
        CHECK(g->errors.handedness_mismatches == r->errors.handedness_mismatches);
    }
    free(mem);
    free(fl);
    sf_evaluation_destroy(kept);
    sf_evaluation_destroy(given);
    fixture_free(&f);
}

/* ---------------------------------------------------------------- allocation and threads */

static void test_run_does_not_allocate(void)
{
    sft_alloc_counter a = {0};
    sf_env env = sft_counting_env(&a);
    fixture f;
    CHECK(fixture_make(&f, "sheet", NULL, combo_settings, 4, &env));
    const uint32_t flag_sets[3] = {0, SF_EVAL_KEEP_FRAMES | SF_EVAL_KEEP_ANGLES, SF_EVAL_NO_STATISTICS};
    for (int s = 0; s < 3; ++s) {
        sf_eval_desc desc;
        memset(&desc, 0, sizeof desc);
        desc.flags = flag_sets[s];
        desc.reference_opts.tangents = SF_TANGENTS_MIKKTSPACE;
        desc.reference_opts.weld = SF_WELD_POSITION_NORMAL;
        sf_evaluation* ev = NULL;
        size_t before_create = a.allocations;
        CHECK_OK(sf_evaluation_create(f.topo, &desc, NULL, &ev, NULL)); /* NULL env: the topology's allocator */
        CHECK(a.allocations > before_create);
        size_t before = a.calls;
        for (int i = 0; i < 3; ++i) CHECK_OK(sf_evaluation_run(ev, &f.scene->pose, f.ws, NULL, NULL));
        CHECK(a.calls == before);
        CHECK(sf_evaluation_results(ev)->runs == 3);
        sf_evaluation_destroy(ev);
    }
    fixture_free(&f);
    CHECK(a.allocations == a.frees);
}

/* Fails the n-th allocation of sf_evaluation_create for every n: SF_ERROR_OUT_OF_MEMORY, nothing leaked. */
static void test_create_out_of_memory(void)
{
    fixture f;
    CHECK(fixture_make(&f, "elbow", "bend", NULL, 0, NULL));
    int successes = 0;
    for (size_t fail_at = 1; fail_at <= 10 && successes == 0; ++fail_at) {
        sft_alloc_counter a = {0};
        a.fail_at = fail_at;
        a.fail_rest = 1;
        sf_env env = sft_counting_env(&a);
        sf_evaluation* ev = NULL;
        sf_error err;
        sf_result r = sf_evaluation_create(f.topo, NULL, &env, &ev, &err);
        if (r == SF_OK) {
            successes++;
            CHECK_OK(sf_evaluation_run(ev, &f.scene->pose, f.ws, NULL, &err));
        } else {
            CHECK(r == SF_ERROR_OUT_OF_MEMORY && ev == NULL && strcmp(err.field, "evaluation") == 0);
        }
        sf_evaluation_destroy(ev);
        CHECK(a.allocations == a.frees);
    }
    fixture_free(&f);
    CHECK(successes == 1);
}

/* Ranges in reverse order, grain 7: the evaluation must not change by a bit. */
static void reverse_parallel_for(void* user, size_t count, size_t grain, sf_range_fn* fn, void* ctx)
{
    (void)user;
    (void)grain;
    size_t g = 7, chunks = (count + g - 1) / g;
    for (size_t c = chunks; c-- > 0;) fn(ctx, c * g, c * g + g < count ? c * g + g : count);
}

static void test_thread_order_independent(void)
{
    sf_env threads = {{NULL, NULL, NULL}, {reverse_parallel_for, NULL}};
    fixture serial, reversed;
    CHECK(fixture_make(&serial, "sheet", NULL, combo_settings, 4, NULL));
    CHECK(fixture_make(&reversed, "sheet", NULL, combo_settings, 4, &threads));
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.flags = SF_EVAL_KEEP_ANGLES;
    sf_evaluation *a = NULL, *b = NULL;
    CHECK_OK(sf_evaluation_create(serial.topo, &desc, NULL, &a, NULL));
    CHECK_OK(sf_evaluation_create(reversed.topo, &desc, NULL, &b, NULL));
    CHECK_OK(sf_evaluation_run(a, &serial.scene->pose, serial.ws, NULL, NULL));
    CHECK_OK(sf_evaluation_run(b, &reversed.scene->pose, reversed.ws, NULL, NULL));
    size_t n = sf_topology_vertex_count(serial.topo);
    for (int m = 0; m < SF_METHOD_DEFAULT_COUNT; ++m) {
        const sf_eval_row* ra = &sf_evaluation_results(a)->rows[m];
        const sf_eval_row* rb = &sf_evaluation_results(b)->rows[m];
        CHECK(summary_equal(&ra->errors, &rb->errors));
        CHECK(memcmp(ra->normal_deg, rb->normal_deg, n * sizeof(float)) == 0);
        CHECK(memcmp(ra->tangent_deg, rb->tangent_deg, n * sizeof(float)) == 0);
    }
    sf_evaluation_destroy(a);
    sf_evaluation_destroy(b);
    fixture_free(&serial);
    fixture_free(&reversed);
}

/* ---------------------------------------------------------------- validation */

typedef struct bad_desc {
    const char* what;
    sf_result want;
    const char* field;
    size_t index;
} bad_desc;

static void test_bad_desc_fields(void)
{
    fixture f;
    CHECK(fixture_make(&f, "elbow", "bend", NULL, 0, NULL));
    static const sf_method twice[2] = {SF_METHOD_SKINNED, SF_METHOD_SKINNED};
    static const sf_method out_of_range[2] = {SF_METHOD_UNCHANGED, (sf_method)17};
    static const sf_method fine[1] = {SF_METHOD_JACOBIAN};
    const bad_desc cases[] = {
        {"count 0 with a list", SF_ERROR_INVALID_ARGUMENT, "desc.method_count", SIZE_MAX},
        {"count 6 with a list", SF_ERROR_INVALID_ARGUMENT, "desc.method_count", SIZE_MAX},
        {"count without a list", SF_ERROR_INVALID_ARGUMENT, "desc.method_count", SIZE_MAX},
        {"unknown method", SF_ERROR_INVALID_ARGUMENT, "desc.methods", 1},
        {"method twice", SF_ERROR_INVALID_ARGUMENT, "desc.methods", 1},
        {"method weighting", SF_ERROR_INVALID_ARGUMENT, "desc.method_opts.weighting", SIZE_MAX},
        {"reference weld", SF_ERROR_INVALID_ARGUMENT, "desc.reference_opts.weld", SIZE_MAX},
        {"reference tangents", SF_ERROR_INVALID_ARGUMENT, "desc.reference_opts.tangents", SIZE_MAX},
        {"reference directions", SF_ERROR_INVALID_ARGUMENT, "desc.reference_opts.reference", SIZE_MAX},
        {"morph directions", SF_ERROR_INVALID_ARGUMENT, "desc.reference_opts.morph_directions", SIZE_MAX},
        {"negative cap", SF_ERROR_INVALID_ARGUMENT, "desc.method_opts.jacobian_cap", SIZE_MAX},
        {"NaN cap", SF_ERROR_INVALID_ARGUMENT, "desc.method_opts.jacobian_cap", SIZE_MAX},
        {"unknown flag", SF_ERROR_INVALID_ARGUMENT, "desc.flags", SIZE_MAX},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        sf_eval_desc d;
        memset(&d, 0, sizeof d);
        switch (c) {
        case 0: d.methods = fine; d.method_count = 0; break;
        case 1: d.methods = fine; d.method_count = SF_METHOD_COUNT + 1; break;
        case 2: d.method_count = 3; break;
        case 3: d.methods = out_of_range; d.method_count = 2; break;
        case 4: d.methods = twice; d.method_count = 2; break;
        case 5: d.method_opts.weighting = (sf_weighting)9; break;
        case 6: d.reference_opts.weld = (sf_weld)3; break;
        case 7: d.reference_opts.tangents = (sf_tangent_mode)2; break;
        case 8: d.reference_opts.reference = (sf_reference)5; break;
        case 9: d.reference_opts.morph_directions = (sf_morph_directions)3; break;
        case 10: d.method_opts.jacobian_cap = -1.0f; break;
        case 11: d.method_opts.jacobian_cap = NAN; break;
        default: d.flags = 0x80; break;
        }
        sf_evaluation* ev = NULL;
        sf_error err;
        sf_result r = sf_evaluation_create(f.topo, &d, NULL, &ev, &err);
        if (r != cases[c].want || strcmp(err.field, cases[c].field) != 0 || err.index != cases[c].index) {
            sft_failf(__FILE__, __LINE__, "%s: got %s field '%s' index %zu", cases[c].what, sf_result_string(r),
                      err.field, err.index);
            sf_evaluation_destroy(r == SF_OK ? ev : NULL);
            fixture_free(&f);
            return;
        }
        CHECK(err.result == cases[c].want && err.message[0]);
        CHECK(sf_eval_desc_validate(f.topo, &d, NULL) == cases[c].want);
        CHECK(sf_evaluation_size(f.topo, &d) == 0);
    }
    sf_evaluation* ev = NULL;
    sf_error err;
    CHECK_RESULT(sf_evaluation_create(NULL, NULL, NULL, &ev, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.field, "topology") == 0);
    CHECK_RESULT(sf_evaluation_create(f.topo, NULL, NULL, NULL, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.field, "out") == 0);
    CHECK(sf_evaluation_size(f.topo, NULL) > 10 * sf_topology_vertex_count(f.topo) * sizeof(float));
    fixture_free(&f);
}

static void test_bad_run_inputs(void)
{
    fixture f, other;
    CHECK(fixture_make(&f, "elbow", "bend", NULL, 0, NULL));
    CHECK(fixture_make(&other, "elbow", "bend", NULL, 0, NULL));
    sf_evaluation* ev = NULL;
    sf_error err;
    CHECK_OK(sf_evaluation_create(f.topo, NULL, NULL, &ev, &err));
    const sf_eval_results* res = sf_evaluation_results(ev);

    sf_pose pose = f.scene->pose;
    pose.bone_count += 1;
    CHECK_RESULT(sf_evaluation_run(ev, &pose, f.ws, NULL, &err), SF_ERROR_COUNT_MISMATCH);
    CHECK(strcmp(err.field, "pose.bone_count") == 0 && res->failed == SF_EVAL_STAGE_INPUT);

    float* bones = malloc(12 * f.scene->pose.bone_count * sizeof(float));
    CHECK(bones);
    memcpy(bones, f.scene->pose.bone_matrices, 12 * f.scene->pose.bone_count * sizeof(float));
    bones[12 + 4] = NAN;
    pose = f.scene->pose;
    pose.bone_matrices = bones;
    sf_result r = sf_evaluation_run(ev, &pose, f.ws, NULL, &err);
    free(bones);
    CHECK(r == SF_ERROR_NOT_FINITE && strcmp(err.field, "pose.bone_matrices") == 0 && err.index == 1);

    CHECK_RESULT(sf_evaluation_run(ev, &f.scene->pose, other.ws, NULL, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.field, "workspace") == 0 && res->failed == SF_EVAL_STAGE_INPUT);
    CHECK_RESULT(sf_evaluation_run(ev, &f.scene->pose, NULL, NULL, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK_RESULT(sf_evaluation_run(NULL, &f.scene->pose, f.ws, NULL, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.field, "evaluation") == 0);
    CHECK(res->runs == 0);
    /* runs of several poses need a workspace whose backend keeps the statistics on a device */
    CHECK_RESULT(sf_evaluation_run_poses(ev, &f.scene->pose, 1, f.ws, 1, &err), SF_ERROR_UNSUPPORTED);
    CHECK(strcmp(err.field, "workspace") == 0 && res->runs == 0);
    CHECK_RESULT(sf_evaluation_run_poses(ev, &f.scene->pose, 0, f.ws, 1, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.field, "poses") == 0);
    sf_pose_errors pe;
    CHECK_RESULT(sf_evaluation_pose_errors(ev, 0, &pe, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK_RESULT(sf_evaluation_pose_errors(ev, res->row_count, &pe, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.field, "row") == 0);
    CHECK_RESULT(sf_evaluation_add_poses(ev, ev, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK_RESULT(sf_evaluation_add_poses(ev, NULL, &err), SF_ERROR_INVALID_ARGUMENT);
    /* and a good run afterwards clears the failure */
    CHECK_OK(sf_evaluation_run(ev, &f.scene->pose, f.ws, NULL, &err));
    CHECK(res->failed == SF_EVAL_STAGE_NONE && res->runs == 1);
    /* a host run keeps no per-pose errors */
    CHECK_RESULT(sf_evaluation_pose_errors(ev, 0, &pe, &err), SF_ERROR_INVALID_ARGUMENT);
    sf_evaluation_destroy(ev);
    fixture_free(&f);
    fixture_free(&other);
}

/* ---------------------------------------------------------------- glTF world placement */

/* to_world = Rz(90 deg) * diag(-2, 3, 1), translated by (1, 2, 3): a mirror with non-uniform scale. Worked by
 * hand: M e_x = (0, -2, 0), M e_y = (-3, 0, 0), M e_z = (0, 0, 1), det M = -6.
 *   p = (1, 1, 1):               M p + t = (-3, -2, 1) + (1, 2, 3) = (-2, 0, 4)
 *   n = (1, 1, 0) / sqrt 2:      M^-T n = Rz (-1/2, 1/3, 0) ~ Rz (-3, 2, 0) = (-2, -3, 0) / sqrt 13
 *   t = (0, 1, 1), w = +1:       M t = Rz (0, 3, 1) = (-3, 0, 1) / sqrt 10, w = -1 (mirror) */
static void test_place_frames_mirror_and_scale(void)
{
    const float m[16] = {0, -2, 0, 0, -3, 0, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1};
    const float s2 = 0.70710678f;
    float p[6] = {1, 1, 1, 0, 0, 0};
    float n[6] = {s2, s2, 0, 0, 0, 0}; /* the second vertex: a zero normal stays zero */
    float t[8] = {0, 1, 1, 1, 1, 0, 0, -1};
    float wp[6], wn[6], wt[8];
    sf_frames_out world = {wp, wn, wt};
    sf_error err;
    CHECK_OK(sf_gltf_place_frames(m, 2, p, n, t, &world, &err));
    const double r13 = sqrt(13.0), r10 = sqrt(10.0);
    CHECK_NEAR(wp[0], -2.0, 1e-6);
    CHECK_NEAR(wp[1], 0.0, 1e-6);
    CHECK_NEAR(wp[2], 4.0, 1e-6);
    CHECK_NEAR(wp[3], 1.0, 1e-6); /* the origin goes to the translation */
    CHECK_NEAR(wp[4], 2.0, 1e-6);
    CHECK_NEAR(wp[5], 3.0, 1e-6);
    CHECK_NEAR(wn[0], -2.0 / r13, 1e-6);
    CHECK_NEAR(wn[1], -3.0 / r13, 1e-6);
    CHECK_NEAR(wn[2], 0.0, 1e-6);
    CHECK(wn[3] == 0.0f && wn[4] == 0.0f && wn[5] == 0.0f);
    CHECK_NEAR(wt[0], -3.0 / r10, 1e-6);
    CHECK_NEAR(wt[1], 0.0, 1e-6);
    CHECK_NEAR(wt[2], 1.0 / r10, 1e-6);
    CHECK(wt[3] == -1.0f && wt[7] == 1.0f); /* the mirror flips both handednesses */
    CHECK_NEAR(wt[4], 0.0, 1e-6);           /* M e_x = (0, -2, 0) */
    CHECK_NEAR(wt[5], -1.0, 1e-6);
    /* The placed normal stays perpendicular to the placed tangent plane (it is why the inverse transpose). */
    float e[3] = {1, -1, 0}; /* perpendicular to n */
    float we[3] = {-3 * e[1], -2 * e[0], e[2]};
    CHECK_NEAR(wn[0] * we[0] + wn[1] * we[1] + wn[2] * we[2], 0.0, 1e-6);

    /* In place gives the same bits; NULL outputs are skipped. */
    sf_frames_out in_place = {p, n, t};
    CHECK_OK(sf_gltf_place_frames(m, 2, p, n, t, &in_place, &err));
    CHECK(memcmp(p, wp, sizeof wp) == 0 && memcmp(n, wn, sizeof wn) == 0 && memcmp(t, wt, sizeof wt) == 0);
    sf_frames_out normals_only = {NULL, wn, NULL};
    CHECK_OK(sf_gltf_place_frames(m, 2, NULL, n, NULL, &normals_only, &err));
}

static void test_place_frames_errors(void)
{
    const float id[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    float v[4] = {0, 0, 1, 1}, o[4];
    sf_frames_out out = {NULL, o, NULL};
    sf_error err;
    CHECK_RESULT(sf_gltf_place_frames(NULL, 1, NULL, v, NULL, &out, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.field, "to_world") == 0);
    CHECK_RESULT(sf_gltf_place_frames(id, 1, NULL, v, NULL, NULL, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.field, "world") == 0);
    CHECK_RESULT(sf_gltf_place_frames(id, 1, v, NULL, v, &out, &err), SF_ERROR_MISSING_STREAM);
    CHECK(strcmp(err.field, "normals") == 0);
    float bad[16];
    memcpy(bad, id, sizeof bad);
    bad[13] = INFINITY;
    CHECK_RESULT(sf_gltf_place_frames(bad, 1, NULL, v, NULL, &out, &err), SF_ERROR_NOT_FINITE);
    CHECK(strcmp(err.field, "to_world") == 0 && err.index == 13);
    CHECK_OK(sf_gltf_place_frames(id, 0, NULL, NULL, NULL, &(sf_frames_out){NULL, NULL, NULL}, &err));
}

/* Within the core's magnitude bounds every placed value is finite; beyond them nothing is written. */
static void test_place_frames_bounds(void)
{
    float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    float p[3] = {SF_MAX_COORD, -SF_MAX_COORD, SF_MAX_COORD}, n[3] = {0, 1, 0}, t[4] = {1, 0, 0, 1};
    float op[3] = {7, 7, 7}, on[3], ot[4];
    sf_frames_out out = {op, on, ot};
    sf_error err;
    m[0] = m[5] = m[10] = SF_MAX_BONE_SCALE; /* the largest accepted scale and translation: finite */
    m[4] = -SF_MAX_BONE_SCALE;
    m[12] = m[13] = m[14] = SF_MAX_COORD;
    CHECK_OK(sf_gltf_place_frames(m, 1, p, n, t, &out, &err));
    for (int i = 0; i < 3; ++i) CHECK(isfinite(op[i]) && isfinite(on[i]) && isfinite(ot[i]));
    CHECK_NEAR(on[0] * on[0] + on[1] * on[1] + on[2] * on[2], 1.0, 1e-5);
    m[5] = 1e20f; /* a node scaled past the bound (the fuzzer's find): refused, outputs untouched */
    op[0] = op[1] = op[2] = 7;
    CHECK_RESULT(sf_gltf_place_frames(m, 1, p, n, t, &out, &err), SF_ERROR_TOO_LARGE);
    CHECK(strcmp(err.field, "to_world") == 0 && err.index == 5);
    CHECK(op[0] == 7 && op[1] == 7 && op[2] == 7);
    m[5] = 1;
    p[1] = 1e19f;
    CHECK_RESULT(sf_gltf_place_frames(m, 1, p, n, t, &out, &err), SF_ERROR_TOO_LARGE);
    CHECK(strcmp(err.field, "positions") == 0 && err.index == 0);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"sheet_twist_matches_independent_calls", test_sheet_twist_matches_independent_calls},
        {"elbow_bend_matches_independent_calls", test_elbow_bend_matches_independent_calls},
        {"morph_combo_matches_independent_calls", test_morph_combo_matches_independent_calls},
        {"reference_settings_echoed", test_reference_settings_echoed},
        {"method_subset_and_order", test_method_subset_and_order},
        {"recompute_row_is_zero", test_recompute_row_is_zero},
        {"caller_buffers", test_caller_buffers},
        {"isolated_vertex_mikktspace", test_isolated_vertex_mikktspace},
        {"run_does_not_allocate", test_run_does_not_allocate},
        {"create_out_of_memory", test_create_out_of_memory},
        {"thread_order_independent", test_thread_order_independent},
        {"bad_desc_fields", test_bad_desc_fields},
        {"bad_run_inputs", test_bad_run_inputs},
        {"place_frames_mirror_and_scale", test_place_frames_mirror_and_scale},
        {"place_frames_errors", test_place_frames_errors},
        {"place_frames_bounds", test_place_frames_bounds},
    };
    return SFT_RUN(cases, argc, argv);
}

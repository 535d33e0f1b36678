// LABELS: unit;cli
/* Finite results, always: values too large for float (3e38, 1e30, 1e19, beyond SF_MAX_COORD and
 * SF_MAX_BONE_SCALE) are rejected naming the array and element; within the bounds every output of every
 * method, of the evaluation, of the tangent generator and of the glTF writer is finite (denormals, tiny and
 * sliver triangles, huge mirrored scales, random values over the whole accepted range); generated streams are
 * named as generated; the glTF loader names the accessor; the writer refuses NaN and infinity; and the
 * command exits 1 with one line instead of baking a file with NaN. */
#define _POSIX_C_SOURCE 200809L
#include "sf_test.h"

#include <ctype.h>

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- a test mesh */

#define GN 7                          /* grid side */
#define GV (GN * GN)                  /* 49 vertices */
#define GT (2 * (GN - 1) * (GN - 1))  /* 72 triangles */
#define GK 3                          /* morph targets */
#define GB 3                          /* bones (bone 2 has no weight) */

/* A GN x GN grid in the xz plane, size `scale`, a small bump in y, normals +y, tangents +x, UVs over
 * [0, 1]^2, two influences on bones 0 and 1, three dense targets; a pose with rotations and weights. */
typedef struct fmesh {
    float pos[GV * 3], nrm[GV * 3], tan[GV * 4], uv[GV * 2];
    uint32_t idx[GT * 3];
    uint32_t joints[GV * 2];
    float weights[GV * 2];
    float dp[GK][GV * 3], dn[GK][GV * 3], dt[GK][GV * 3];
    sf_morph_target_desc targets[GK];
    sf_mesh_desc mesh;
    float bones[GB * 12];
    float alpha[GK];
    sf_pose pose;
} fmesh;

static void rot_z(float m[12], float angle, float scale, const float t[3])
{
    memset(m, 0, 12 * sizeof(float));
    float c = cosf(angle) * scale, s = sinf(angle) * scale;
    m[0] = c, m[1] = s, m[3] = -s, m[4] = c, m[8] = scale;
    m[9] = t[0], m[10] = t[1], m[11] = t[2];
}

static fmesh* fmesh_new(float scale)
{
    fmesh* m = calloc(1, sizeof *m);
    for (int z = 0; z < GN; ++z)
        for (int x = 0; x < GN; ++x) {
            int v = z * GN + x;
            float fx = (float)x / (GN - 1), fz = (float)z / (GN - 1);
            m->pos[3 * v + 0] = fx * scale;
            m->pos[3 * v + 1] = 0.1f * sinf(3.0f * fx) * cosf(2.0f * fz) * scale;
            m->pos[3 * v + 2] = fz * scale;
            m->nrm[3 * v + 1] = 1.0f;
            m->tan[4 * v + 0] = 1.0f;
            m->tan[4 * v + 3] = 1.0f;
            m->uv[2 * v + 0] = fx;
            m->uv[2 * v + 1] = fz;
            m->joints[2 * v + 0] = 0;
            m->joints[2 * v + 1] = 1;
            m->weights[2 * v + 0] = 1.0f - fx;
            m->weights[2 * v + 1] = fx;
            for (int k = 0; k < GK; ++k) {
                m->dp[k][3 * v + 1] = 0.05f * scale * sinf((float)(k + 1) * (fx + fz));
                m->dp[k][3 * v + 0] = 0.02f * scale * fz * (float)k;
                m->dn[k][3 * v + 0] = 0.1f * fx;
                m->dt[k][3 * v + 1] = 0.1f * fz;
            }
        }
    int t = 0;
    for (int z = 0; z < GN - 1; ++z)
        for (int x = 0; x < GN - 1; ++x) {
            uint32_t a = (uint32_t)(z * GN + x), b = a + 1, c = a + GN, d = a + GN + 1;
            uint32_t tri[6] = {a, c, b, b, c, d};
            memcpy(m->idx + 6 * t++, tri, sizeof tri);
        }
    for (int k = 0; k < GK; ++k) {
        m->targets[k].position_deltas = m->dp[k];
        m->targets[k].normal_deltas = m->dn[k];
        m->targets[k].tangent_deltas = m->dt[k];
    }
    sf_mesh_desc* d = &m->mesh;
    d->vertex_count = GV;
    d->triangle_count = GT;
    d->indices = m->idx;
    d->positions.data = m->pos;
    d->normals.data = m->nrm;
    d->tangents.data = m->tan;
    d->uvs.data = m->uv;
    d->influence_count = 2;
    d->joints = m->joints;
    d->weights = m->weights;
    d->bone_count = GB;
    d->targets = m->targets;
    d->target_count = GK;
    d->zero_weight_policy = SF_ZERO_WEIGHTS_REST;
    const float t0[3] = {0, 0, 0}, t1[3] = {0.1f * scale, 0.2f * scale, 0};
    rot_z(m->bones, 0.0f, 1.0f, t0);
    rot_z(m->bones + 12, 0.7f, 1.0f, t1);
    rot_z(m->bones + 24, 0.0f, 1.0f, t0);
    m->alpha[0] = 0.5f, m->alpha[1] = 0.3f, m->alpha[2] = 0.2f;
    m->pose.bone_matrices = m->bones;
    m->pose.bone_count = GB;
    m->pose.morph_weights = m->alpha;
    m->pose.morph_weight_count = GK;
    return m;
}

/* ---------------------------------------------------------------- checking every output */

static size_t nonfinite(const float* a, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; a && i < n; ++i) bad += !isfinite(a[i]);
    return bad;
}

static size_t nonfinite_stats(const sf_angle_stats* s)
{
    double v[8] = {s->mean, s->rms, s->p50, s->p95, s->max, s->over_1, s->over_5, s->over_45};
    size_t bad = 0;
    for (int i = 0; i < 8; ++i) bad += !isfinite(v[i]);
    return bad;
}

/* Counts of what all_outputs saw. */
typedef struct outcome {
    size_t calls, rejected, nonfinite, nonunit;
    sf_error first; /* the first rejection */
} outcome;

/* A unit or zero direction (what every method promises). */
static int unit_or_zero(const float* v)
{
    double l = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
    return l == 0.0 || fabs(l - 1.0) < 1e-4;
}

static void note_error(outcome* o, sf_result r, const sf_error* e)
{
    if (r == SF_OK) return;
    if (!o->rejected++) o->first = *e;
}

static void check_frames(outcome* o, size_t n, const float* p, const float* nrm, const float* tan)
{
    o->nonfinite += nonfinite(p, 3 * n) + nonfinite(nrm, 3 * n) + nonfinite(tan, 4 * n);
    for (size_t v = 0; v < n; ++v) {
        if (nrm && !unit_or_zero(nrm + 3 * v)) o->nonunit++;
        if (tan && !unit_or_zero(tan + 4 * v)) o->nonunit++;
        if (tan && isfinite(tan[4 * v + 3]) && fabsf(tan[4 * v + 3]) != 1.0f) o->nonunit++;
    }
}

/* Every method under every option set through sf_frames_compute, then evaluations of every method
 * (default and MikkTSpace / authored references), each output element checked. */
static void all_outputs(const sf_topology* topo, const sf_pose* pose, outcome* o)
{
    size_t n = sf_topology_vertex_count(topo);
    sf_workspace* ws;
    sf_error err;
    if (sf_workspace_create(topo, NULL, &ws, &err) != SF_OK) {
        note_error(o, SF_ERROR_OUT_OF_MEMORY, &err);
        return;
    }
    float* buf = malloc((10 * n + 1) * sizeof(float));
    float *p = buf, *nrm = buf + 3 * n, *tan = buf + 6 * n;
    sf_frames_out out = {p, nrm, tan};
    for (int m = 0; m < SF_METHOD_COUNT; ++m) {
        for (int md = 0; md < 2; ++md) {
            int rebuilt = m == SF_METHOD_RECOMPUTE || m == SF_METHOD_RECOMPUTE_FUSED;
            int variants = rebuilt ? 3 * 3 * 2 * 2 : m == SF_METHOD_JACOBIAN ? 2 : 1;
            for (int k = 0; k < variants; ++k) {
                sf_frames_opts fo;
                memset(&fo, 0, sizeof fo);
                fo.morph_directions = (sf_morph_directions)md;
                if (rebuilt) {
                    fo.weighting = (sf_weighting)(k % 3);
                    fo.weld = (sf_weld)(k / 3 % 3);
                    fo.tangents = (sf_tangent_mode)(k / 9 % 2);
                    fo.reference = (sf_reference)(k / 18);
                }
                if (m == SF_METHOD_JACOBIAN && k == 1) fo.jacobian_cap = 0.5f;
                memset(buf, 0, 10 * n * sizeof(float));
                o->calls++;
                sf_result r = sf_frames_compute(topo, pose, (sf_method)m, &fo, ws, &out, &err);
                if (r != SF_OK && getenv("SFT_VERBOSE") && strcmp(err.field, "out") == 0)
                    fprintf(stderr, "  method %d md %d variant %d: %s\n", m, md, k, err.message);
                note_error(o, r, &err);
                if (r == SF_OK) check_frames(o, n, p, nrm, tan);
            }
        }
    }
    memset(buf, 0, 10 * n * sizeof(float));
    o->calls++;
    sf_result r = sf_deform_positions(topo, pose, ws, p, &err);
    note_error(o, r, &err);
    if (r == SF_OK) o->nonfinite += nonfinite(p, 3 * n);
    for (int variant = 0; variant < 2; ++variant) {
        sf_eval_desc desc;
        memset(&desc, 0, sizeof desc);
        desc.flags = SF_EVAL_KEEP_FRAMES | SF_EVAL_KEEP_ANGLES;
        desc.method_opts.jacobian_cap = variant ? 0.25f : 0.0f;
        desc.reference_opts.tangents = variant ? SF_TANGENTS_MIKKTSPACE : SF_TANGENTS_UV;
        desc.reference_opts.weld = variant ? SF_WELD_POSITION_NORMAL : SF_WELD_NONE;
        desc.reference_opts.reference = variant ? SF_REFERENCE_AUTHORED : SF_REFERENCE_REBUILT;
        sf_evaluation* ev = NULL;
        o->calls++;
        r = sf_evaluation_create(topo, &desc, NULL, &ev, &err);
        if (r == SF_OK) r = sf_evaluation_run(ev, pose, ws, NULL, &err);
        note_error(o, r, &err);
        if (r == SF_OK) {
            const sf_eval_results* res = sf_evaluation_results(ev);
            check_frames(o, n, res->positions, res->reference_normals, res->reference_tangents);
            for (size_t k = 0; k < res->row_count; ++k) {
                const sf_eval_row* row = &res->rows[k];
                if (row->status != SF_OK) continue;
                check_frames(o, n, NULL, row->normals, row->tangents);
                o->nonfinite += nonfinite(row->normal_deg, n) + nonfinite(row->tangent_deg, n);
                o->nonfinite += nonfinite_stats(&row->errors.normal) + nonfinite_stats(&row->errors.tangent);
            }
        }
        sf_evaluation_destroy(ev);
    }
    free(buf);
    sf_workspace_destroy(ws);
}

/* Topology + all_outputs; the topology's rejection is returned in *o too. */
static void run_mesh(const sf_mesh_desc* mesh, const sf_pose* pose, outcome* o)
{
    memset(o, 0, sizeof *o);
    sf_topology* topo;
    sf_error err;
    sf_result r = sf_topology_create(mesh, NULL, NULL, &topo, &err);
    if (r != SF_OK) {
        o->rejected = 1;
        o->first = err;
        return;
    }
    all_outputs(topo, pose, o);
    sf_topology_destroy(topo);
}

/* Every call succeeded and every output was finite, unit (or zero) where it is a direction. */
static int all_finite_ok(const outcome* o)
{
    if (o->rejected) fprintf(stderr, "  rejected: %s\n", o->first.message);
    if (o->nonfinite || o->nonunit)
        fprintf(stderr, "  %zu non-finite, %zu non-unit outputs over %zu calls\n", o->nonfinite, o->nonunit, o->calls);
    return o->rejected == 0 && o->nonfinite == 0 && o->nonunit == 0;
}

/* Rejected (by the topology or the pose) with code and field (prefix) and index; nothing non-finite. */
static int rejected_as(const outcome* o, sf_result code, const char* field, size_t index)
{
    int ok = o->rejected && o->first.result == code && strcmp(o->first.field, field) == 0 &&
             (index == SIZE_MAX || o->first.index == index) && o->nonfinite == 0;
    if (!ok)
        fprintf(stderr, "  want %s %s[%zu], got %s: '%s' (%zu non-finite)\n", sf_result_string(code), field, index,
                o->rejected ? sf_result_string(o->first.result) : "ok", o->rejected ? o->first.message : "",
                o->nonfinite);
    return ok;
}

/* ---------------------------------------------------------------- rejected inputs */

static const float g_huge[] = {3.0e38f, -3.0e38f, 1.0e30f, 1.0e19f, -2.0e9f};

static void test_mesh_values_too_large(void)
{
    for (size_t h = 0; h < sizeof g_huge / sizeof g_huge[0]; ++h) {
        float x = g_huge[h];
        struct {
            const char* field;
            size_t index;
        } cases[] = {{"mesh.positions", 12}, {"mesh.normals", 12}, {"mesh.tangents", 12}, {"mesh.uvs", 12},
                     {"mesh.targets[2].position_deltas", 40}, {"mesh.targets[1].normal_deltas", 40},
                     {"mesh.targets[0].tangent_deltas", 40}};
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
            fmesh* m = fmesh_new(1.0f);
            float* at[] = {m->pos + 3 * 12 + 1, m->nrm + 3 * 12 + 1, m->tan + 4 * 12 + 2, m->uv + 2 * 12 + 1,
                           m->dp[2] + 3 * 40, m->dn[1] + 3 * 40 + 2, m->dt[0] + 3 * 40 + 1};
            *at[c] = x;
            outcome o;
            run_mesh(&m->mesh, &m->pose, &o);
            free(m);
            if (!rejected_as(&o, SF_ERROR_TOO_LARGE, cases[c].field, cases[c].index)) {
                fprintf(stderr, "  value %g in %s\n", (double)x, cases[c].field);
                CHECK(0);
            }
            CHECK(strstr(o.first.message, "SF_MAX_COORD") != NULL);
        }
    }
    /* NaN and infinity stay SF_ERROR_NOT_FINITE */
    const float bad[] = {NAN, INFINITY, -INFINITY};
    for (int b = 0; b < 3; ++b) {
        fmesh* m = fmesh_new(1.0f);
        m->pos[3 * 12] = bad[b];
        outcome o;
        run_mesh(&m->mesh, &m->pose, &o);
        free(m);
        CHECK(rejected_as(&o, SF_ERROR_NOT_FINITE, "mesh.positions", 12));
    }
}

static void test_pose_values_too_large(void)
{
    for (size_t h = 0; h < sizeof g_huge / sizeof g_huge[0]; ++h) {
        float x = g_huge[h];
        outcome o;
        /* a linear entry beyond SF_MAX_BONE_SCALE (all the values here are) */
        fmesh* m = fmesh_new(1.0f);
        m->bones[12 + 3] = x;
        run_mesh(&m->mesh, &m->pose, &o);
        free(m);
        CHECK(rejected_as(&o, SF_ERROR_TOO_LARGE, "pose.bone_matrices", 1));
        CHECK(strstr(o.first.message, "SF_MAX_BONE_SCALE") != NULL);
        /* a translation beyond SF_MAX_COORD */
        m = fmesh_new(1.0f);
        m->bones[12 + 10] = x;
        run_mesh(&m->mesh, &m->pose, &o);
        free(m);
        CHECK(rejected_as(&o, SF_ERROR_TOO_LARGE, "pose.bone_matrices", 1));
        /* a morph weight that moves vertices beyond SF_MAX_COORD (deltas are at most 0.05) */
        if (fabsf(x) < 1.0e19f) continue;
        m = fmesh_new(1.0f);
        m->alpha[2] = x;
        run_mesh(&m->mesh, &m->pose, &o);
        free(m);
        CHECK(rejected_as(&o, SF_ERROR_TOO_LARGE, "pose.morph_weights", 2));
        CHECK(strstr(o.first.message, "SF_MAX_COORD") != NULL);
    }
    /* within both bounds, yet the product leaves SF_MAX_COORD: scale 1e6 on positions of 1e4 */
    fmesh* m = fmesh_new(1.0e4f);
    const float t0[3] = {0, 0, 0};
    rot_z(m->bones + 12, 0.3f, 1.0e6f, t0);
    outcome o;
    run_mesh(&m->mesh, &m->pose, &o);
    free(m);
    CHECK(rejected_as(&o, SF_ERROR_TOO_LARGE, "pose.bone_matrices", 1));
    /* a bone no vertex uses may hold anything finite; huge morph weights on an all-zero target are harmless */
    m = fmesh_new(1.0f);
    for (int k = 0; k < 12; ++k) m->bones[24 + k] = 3.0e38f;
    memset(m->dp[1], 0, sizeof m->dp[1]);
    memset(m->dn[1], 0, sizeof m->dn[1]);
    memset(m->dt[1], 0, sizeof m->dt[1]);
    m->alpha[1] = -3.0e38f;
    run_mesh(&m->mesh, &m->pose, &o);
    free(m);
    CHECK(all_finite_ok(&o));
    /* NaN stays SF_ERROR_NOT_FINITE, on any bone */
    m = fmesh_new(1.0f);
    m->bones[24 + 5] = NAN;
    run_mesh(&m->mesh, &m->pose, &o);
    free(m);
    CHECK(rejected_as(&o, SF_ERROR_NOT_FINITE, "pose.bone_matrices", 2));
}

/* ---------------------------------------------------------------- accepted extremes: every output finite */

static void test_large_but_accepted(void)
{
    /* millimetres of a big scene, and close to the bound; huge weights (relative), huge mirrored scales */
    const float scales[] = {1.0e6f, 4.0e8f};
    for (int s = 0; s < 2; ++s) {
        fmesh* m = fmesh_new(scales[s]);
        outcome o;
        run_mesh(&m->mesh, &m->pose, &o);
        free(m);
        CHECK(all_finite_ok(&o));
    }
    fmesh* m = fmesh_new(1.0f);
    for (int v = 0; v < GV; ++v) {
        m->weights[2 * v] = 3.0e38f; /* the same joint twice: merging must not overflow */
        m->weights[2 * v + 1] = v % 3 ? 3.0e38f : 1.0e-40f;
        m->joints[2 * v + 1] = v % 2 ? 0 : 1;
    }
    outcome o;
    run_mesh(&m->mesh, &m->pose, &o);
    CHECK(all_finite_ok(&o));
    /* scale 1e6 (the bound) with a mirror, on positions of 100 */
    free(m);
    m = fmesh_new(100.0f);
    const float t[3] = {1.0e8f, -1.0e8f, 5.0e8f};
    rot_z(m->bones, 1.0f, 1.0e6f, t);
    rot_z(m->bones + 12, -2.0f, -1.0e6f, t);
    run_mesh(&m->mesh, &m->pose, &o);
    free(m);
    CHECK(all_finite_ok(&o));
}

static void test_denormals_and_tiny_triangles(void)
{
    /* tiny triangles (edges 1e-30): zero normals are fine, NaN is not */
    const float scales[] = {1.0e-30f, 1.0e-38f, 1.0e-44f};
    for (int s = 0; s < 3; ++s) {
        fmesh* m = fmesh_new(scales[s]);
        outcome o;
        run_mesh(&m->mesh, &m->pose, &o);
        CHECK(all_finite_ok(&o));
        /* without authored streams: generated from the tiny triangles */
        m->mesh.normals.data = NULL;
        m->mesh.tangents.data = NULL;
        run_mesh(&m->mesh, &m->pose, &o);
        free(m);
        CHECK(all_finite_ok(&o));
    }
    /* tiny triangles under large UVs: MikkTSpace's per-face tangent is usable, its edges' squares underflow */
    for (int s = 0; s < 2; ++s) {
        fmesh* m = fmesh_new(s ? 1.0e-25f : 1.0e-30f);
        for (int i = 0; i < 2 * GV; ++i) m->uv[i] *= 1.0e9f;
        outcome o;
        run_mesh(&m->mesh, &m->pose, &o);
        free(m);
        CHECK(all_finite_ok(&o));
    }
    /* denormal weights, bone entries, morph weights and deltas */
    fmesh* m = fmesh_new(1.0f);
    for (int v = 0; v < GV; ++v) {
        m->weights[2 * v] = 1.0e-41f;
        m->weights[2 * v + 1] = v % 2 ? 1.0e-44f : 0.0f;
        m->nrm[3 * v + 1] = 1.0e-40f;
        m->tan[4 * v] = 1.0e-42f;
    }
    for (int k = 0; k < 12; ++k) m->bones[12 + k] = k % 4 ? 1.0e-39f : 1.0e-41f;
    for (int k = 0; k < GK; ++k) {
        m->alpha[k] = 1.0e-40f;
        for (int i = 0; i < 3 * GV; ++i) m->dp[k][i] = m->dp[k][i] * 1.0e-39f;
    }
    outcome o;
    run_mesh(&m->mesh, &m->pose, &o);
    free(m);
    CHECK(all_finite_ok(&o));
}

/* xorshift64*: deterministic random numbers for the fuzzed trials */
static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static double rnd(void)
{
    g_rng ^= g_rng >> 12, g_rng ^= g_rng << 25, g_rng ^= g_rng >> 27;
    return (double)((g_rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

/* A value of either sign with a log-uniform magnitude in [1e-45, max], sometimes exactly 0 or +-max. */
static float rnd_value(double max)
{
    double u = rnd();
    if (u < 0.05) return 0.0f;
    double sign = rnd() < 0.5 ? -1.0 : 1.0;
    if (u < 0.12) return (float)(sign * max);
    double e = -45.0 + rnd() * (log10(max) + 45.0);
    float f = (float)(sign * pow(10.0, e));
    return fabsf(f) <= (float)max ? f : (float)(sign * max);
}

static void test_fuzzed_within_bounds(void)
{
    size_t accepted = 0, trials = 300;
    for (size_t trial = 0; trial < trials; ++trial) {
        double scale = pow(10.0, -40.0 + 48.5 * rnd()); /* up to ~3e8: the grid, bumps and deltas stay inside */
        fmesh* m = fmesh_new((float)scale);
        double p = rnd() * 0.3; /* share of values replaced by random ones */
        for (int i = 0; i < 3 * GV; ++i) {
            if (rnd() < p) m->pos[i] = rnd_value(SF_MAX_COORD / 2.0);
            if (rnd() < p) m->nrm[i] = rnd_value(SF_MAX_COORD / 4.0);
            for (int k = 0; k < GK; ++k) {
                if (rnd() < p) m->dp[k][i] = rnd_value(SF_MAX_COORD / 16.0);
                if (rnd() < p) m->dn[k][i] = rnd_value(SF_MAX_COORD / 16.0);
                if (rnd() < p) m->dt[k][i] = rnd_value(SF_MAX_COORD / 16.0);
            }
        }
        for (int v = 0; v < GV; ++v) {
            for (int c = 0; c < 3; ++c)
                if (rnd() < p) m->tan[4 * v + c] = rnd_value(SF_MAX_COORD / 4.0);
            for (int c = 0; c < 2; ++c)
                if (rnd() < p) m->uv[2 * v + c] = rnd() < 0.5 ? m->uv[2 * v + c] + rnd_value(1e-5) : rnd_value(SF_MAX_COORD);
            for (int c = 0; c < 2; ++c)
                if (rnd() < p) m->weights[2 * v + c] = fabsf(rnd_value(FLT_MAX));
            if (rnd() < p) /* a sliver: pulled onto its neighbour's line */
                m->pos[3 * v + 2] = m->pos[3 * (v % GN ? v - 1 : v) + 2] + rnd_value(1e-6 * scale);
        }
        /* bones: within SF_MAX_BONE_SCALE, translations within SF_MAX_COORD; mostly moderate */
        int wild = rnd() < 0.2;
        for (int b = 0; b < GB; ++b)
            for (int k = 0; k < 12; ++k) {
                if (!wild && rnd() > p) continue;
                m->bones[12 * b + k] = k < 9 ? rnd_value(SF_MAX_BONE_SCALE) : rnd_value(SF_MAX_COORD / 4.0);
            }
        for (int k = 0; k < GK; ++k)
            if (rnd() < 0.5) m->alpha[k] = rnd_value(rnd() < 0.9 ? 2.0 : FLT_MAX);
        if (rnd() < 0.3) m->mesh.normals.data = NULL;
        if (rnd() < 0.3) m->mesh.tangents.data = NULL;
        if (rnd() < 0.1) m->mesh.uvs.data = NULL;
        outcome o;
        run_mesh(&m->mesh, &m->pose, &o);
        free(m);
        if (o.nonfinite || o.nonunit) {
            fprintf(stderr, "  trial %zu: %zu non-finite, %zu non-unit outputs\n", trial, o.nonfinite, o.nonunit);
            CHECK(0);
        }
        if (o.rejected) {
            /* only ever for a named value too large */
            if (o.first.result != SF_ERROR_TOO_LARGE || !o.first.field[0]) {
                fprintf(stderr, "  trial %zu: %s\n", trial, o.first.message);
                CHECK(0);
            }
            if (getenv("SFT_VERBOSE")) fprintf(stderr, "  trial %zu: %s\n", trial, o.first.message);
        } else {
            accepted++;
        }
    }
    fprintf(stderr, "  %zu of %zu fuzzed trials accepted, every output finite\n", accepted, trials);
    CHECK(accepted >= trials / 4);
}

/* ---------------------------------------------------------------- sums no input bound limits */

/* One triangle whose area-weighted UV tangent is about 1e42 once scaled by 1e6: UVs of 1e3 against a UV
 * determinant of 2e-12. */
typedef struct sliver_uv {
    float pos[9], nrm[9], tan[12], uv[6], bone[12];
    uint32_t idx[3], joints[3];
    float weights[3];
    sf_mesh_desc mesh;
    sf_pose pose;
} sliver_uv;

static void sliver_uv_init(sliver_uv* s, float size, float bone_scale)
{
    memset(s, 0, sizeof *s);
    const float pos[9] = {0, 0, 0, size, 0, 0, 0, 0, size};
    const float uv[6] = {0, 0, 2.0e-9f, 1.0e3f, 0, 1.0e-3f};
    memcpy(s->pos, pos, sizeof pos);
    memcpy(s->uv, uv, sizeof uv);
    for (int v = 0; v < 3; ++v) {
        s->nrm[3 * v + 1] = -1.0f;
        s->tan[4 * v] = 1.0f;
        s->tan[4 * v + 3] = 1.0f;
        s->idx[v] = (uint32_t)v;
        s->weights[v] = 1.0f;
    }
    const float t0[3] = {0, 0, 0};
    rot_z(s->bone, 0.0f, bone_scale, t0);
    s->mesh.vertex_count = 3;
    s->mesh.triangle_count = 1;
    s->mesh.indices = s->idx;
    s->mesh.positions.data = s->pos;
    s->mesh.normals.data = s->nrm;
    s->mesh.tangents.data = s->tan;
    s->mesh.uvs.data = s->uv;
    s->mesh.influence_count = 1;
    s->mesh.joints = s->joints;
    s->mesh.weights = s->weights;
    s->mesh.bone_count = 1;
    s->pose.bone_matrices = s->bone;
    s->pose.bone_count = 1;
}

static void test_tangent_sum_overflow(void)
{
    /* The reference's tangent at scale 1 and at scale 1e6 (final edges 1e9): a uniform scale changes no
     * direction, so the overflowing sum must give the same unit tangent, not zero or NaN. */
    float t1[12], t2[12], n1[9], n2[9];
    for (int pass = 0; pass < 2; ++pass) {
        sliver_uv s;
        sliver_uv_init(&s, 1.0e3f, pass ? 1.0e6f : 1.0f);
        sf_topology* topo;
        sf_workspace* ws;
        sf_error err;
        CHECK_OK(sf_topology_create(&s.mesh, NULL, NULL, &topo, &err));
        CHECK_OK(sf_workspace_create(topo, NULL, &ws, &err));
        sf_frames_out out = {NULL, pass ? n2 : n1, pass ? t2 : t1};
        CHECK_OK(sf_frames_compute(topo, &s.pose, SF_METHOD_RECOMPUTE, NULL, ws, &out, &err));
        sf_workspace_destroy(ws);
        sf_topology_destroy(topo);
    }
    for (int v = 0; v < 3; ++v) {
        CHECK(nonfinite(t2 + 4 * v, 4) == 0);
        CHECK_NEAR(sqrt((double)t2[4 * v] * t2[4 * v] + (double)t2[4 * v + 1] * t2[4 * v + 1] +
                        (double)t2[4 * v + 2] * t2[4 * v + 2]), 1.0, 1e-5);
        CHECK(sf_angle_deg(t1 + 4 * v, t2 + 4 * v) < 1e-3);
        CHECK(sf_angle_deg(n1 + 3 * v, n2 + 3 * v) < 1e-3);
        CHECK(t1[4 * v + 3] == t2[4 * v + 3]);
    }
    /* the same sum at rest when the topology generates the tangents: named as generated, not mesh.tangents[0] */
    sliver_uv s;
    sliver_uv_init(&s, 1.0e9f, 1.0f);
    s.mesh.tangents.data = NULL;
    sf_topology* topo;
    sf_error err;
    CHECK_RESULT(sf_topology_create(&s.mesh, NULL, NULL, &topo, &err), SF_ERROR_TOO_LARGE);
    CHECK(strcmp(err.field, "mesh.tangents") == 0);
    CHECK(strstr(err.message, "generated tangents") != NULL);
    /* supplied tangents: nothing to generate, accepted, and every frame finite */
    sliver_uv_init(&s, 1.0e9f, 1.0f);
    outcome o;
    run_mesh(&s.mesh, &s.pose, &o);
    CHECK(all_finite_ok(&o));
}

static void test_jacobian_crossed_slivers(void)
{
    /* Two slivers (height 4e-21 under edges of 5e8, |N| = 2e-12) meet at vertex 0, one across y weighing bone
     * 0, one across x weighing bone 1; the bones sit 4e8 apart along z and x. There J u ~ (5e28, 0, 0) and
     * J v ~ (0, 0, -5e28): their cross product overflows float, yet the normal is +y exactly. */
    float pos[15] = {0, 0, 0, 5.0e8f, 0, 0, 5.0e8f, 4.0e-21f, 0, 0, 5.0e8f, 0, -4.0e-21f, 5.0e8f, 0};
    float nrm[15], tan[20], w[5] = {1, 1, 1, 1, 1};
    uint32_t idx[6] = {0, 1, 2, 0, 3, 4}, joints[5] = {2, 0, 2, 1, 2};
    for (int v = 0; v < 5; ++v) {
        nrm[3 * v] = nrm[3 * v + 1] = 0.0f, nrm[3 * v + 2] = 1.0f;
        tan[4 * v] = 1.0f, tan[4 * v + 1] = tan[4 * v + 2] = 0.0f, tan[4 * v + 3] = 1.0f;
    }
    sf_mesh_desc mesh;
    memset(&mesh, 0, sizeof mesh);
    mesh.vertex_count = 5, mesh.triangle_count = 2, mesh.indices = idx;
    float uv[10] = {0, 0, 1, 0, 1, 1, 0, 1, -1, 1};
    mesh.positions.data = pos, mesh.normals.data = nrm, mesh.tangents.data = tan, mesh.uvs.data = uv;
    mesh.influence_count = 1, mesh.joints = joints, mesh.weights = w, mesh.bone_count = 3;
    float bones[36];
    const float ta[3] = {0, 0, 4.0e8f}, tb[3] = {4.0e8f, 0, 0}, tc[3] = {0, 0, 0};
    rot_z(bones, 0.0f, 1.0f, ta);
    rot_z(bones + 12, 0.0f, 1.0f, tb);
    rot_z(bones + 24, 0.0f, 1.0f, tc);
    sf_pose pose = {bones, 3, NULL, 0};
    sf_topology* topo;
    sf_workspace* ws;
    sf_error err;
    CHECK_OK(sf_topology_create(&mesh, NULL, NULL, &topo, &err));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, &err));
    float n[15], t[20];
    sf_frames_out out = {NULL, n, t};
    CHECK_OK(sf_frames_compute(topo, &pose, SF_METHOD_JACOBIAN, NULL, ws, &out, &err));
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    CHECK(nonfinite(n, 15) == 0 && nonfinite(t, 20) == 0);
    CHECK_NEAR(n[1], 1.0, 1e-6);
    CHECK_NEAR(t[0], 1.0, 1e-6);
}

static void test_jacobian_slivers(void)
{
    /* A sliver of height 1e-12 beside edges of 1e9 (weight gradient ~1e21), bones 1e6 apart in scale and
     * 1e9 apart in translation, a morph of 1e9: J u is ~1e37 and its cross product would overflow. */
    fmesh* m = fmesh_new(1.0e8f);
    m->pos[3 * 8 + 0] = 3.0e8f, m->pos[3 * 8 + 1] = 0.0f, m->pos[3 * 8 + 2] = 0.0f;
    m->pos[3 * 9 + 0] = 3.0e8f, m->pos[3 * 9 + 1] = 1.0e-12f, m->pos[3 * 9 + 2] = 0.0f;
    for (int v = 0; v < GV; ++v) m->weights[2 * v] = (float)(v % 2), m->weights[2 * v + 1] = (float)((v + 1) % 2);
    const float ta[3] = {2.0e8f, 0, 0}, tb[3] = {-2.0e8f, 1.0e8f, 0};
    rot_z(m->bones, 0.5f, 1.0f, ta);
    rot_z(m->bones + 12, -0.5f, 1.0f, tb);
    for (int k = 0; k < GK; ++k) m->alpha[k] = 1.0f;
    m->dp[0][3 * 9 + 1] = 1.0e8f;
    outcome o;
    run_mesh(&m->mesh, &m->pose, &o);
    free(m);
    CHECK(all_finite_ok(&o));
}

static void test_direction_errors_nonfinite(void)
{
    /* frames from elsewhere: NaN or infinity is refused, not measured as a NaN angle */
    fmesh* m = fmesh_new(1.0f);
    sf_topology* topo;
    sf_error err;
    sf_result r = sf_topology_create(&m->mesh, NULL, NULL, &topo, &err);
    free(m);
    CHECK_OK(r);
    float a[3 * GV], b[3 * GV], ta[4 * GV], tb[4 * GV], deg[GV];
    for (int v = 0; v < GV; ++v) {
        a[3 * v] = b[3 * v] = 0.0f, a[3 * v + 1] = b[3 * v + 1] = 1.0f, a[3 * v + 2] = b[3 * v + 2] = 0.0f;
        ta[4 * v] = tb[4 * v] = 1.0f, ta[4 * v + 1] = tb[4 * v + 1] = ta[4 * v + 2] = tb[4 * v + 2] = 0.0f;
        ta[4 * v + 3] = tb[4 * v + 3] = 1.0f;
    }
    sf_frames_out fa = {NULL, a, ta}, fb = {NULL, b, tb};
    sf_error_summary sum;
    r = sf_direction_errors(topo, &fa, &fb, deg, NULL, NULL, &sum, &err);
    if (r == SF_OK) {
        a[3 * 5 + 1] = INFINITY;
        r = sf_direction_errors(topo, &fa, &fb, deg, NULL, NULL, &sum, &err) == SF_ERROR_NOT_FINITE &&
                    strcmp(err.field, "method.normals") == 0 && err.index == 5
                ? SF_OK
                : SF_ERROR_INVALID_ARGUMENT;
    }
    if (r == SF_OK) {
        a[3 * 5 + 1] = 1.0f;
        tb[4 * 7 + 2] = NAN;
        r = sf_direction_errors(topo, &fa, &fb, deg, NULL, NULL, &sum, &err) == SF_ERROR_NOT_FINITE &&
                    strcmp(err.field, "reference.tangents") == 0 && err.index == 7
                ? SF_OK
                : SF_ERROR_INVALID_ARGUMENT;
    }
    sf_topology_destroy(topo);
    CHECK_OK(r);
}

/* ---------------------------------------------------------------- the tangent generator */

static void test_tangents_generate(void)
{
    sliver_uv s;
    sliver_uv_init(&s, 1.0e9f, 1.0f);
    sf_tangent_desc d;
    memset(&d, 0, sizeof d);
    d.vertex_count = 3;
    d.triangle_count = 1;
    d.indices = s.idx;
    d.positions.data = s.pos;
    d.normals.data = s.nrm;
    d.uvs.data = s.uv;
    float ct[12];
    sf_error err;
    /* MikkTSpace normalises per face: finite */
    d.mode = SF_TANGENTS_MIKKTSPACE;
    CHECK_OK(sf_tangents_generate(&d, NULL, ct, &err));
    CHECK(nonfinite(ct, 12) == 0);
    /* the area-weighted sum overflows: an error naming the generated tangents, never NaN or a silent zero */
    d.mode = SF_TANGENTS_UV;
    CHECK_RESULT(sf_tangents_generate(&d, NULL, ct, &err), SF_ERROR_TOO_LARGE);
    CHECK(strstr(err.message, "generated tangents") != NULL);
    /* inputs beyond the bound */
    for (size_t h = 0; h < sizeof g_huge / sizeof g_huge[0]; ++h) {
        for (int f = 0; f < 3; ++f) {
            sliver_uv_init(&s, 1.0f, 1.0f);
            float* at[3] = {s.pos + 4, s.nrm + 3, s.uv + 5};
            const char* field[3] = {"desc.positions", "desc.normals", "desc.uvs"};
            *at[f] = g_huge[h];
            for (int mode = 0; mode < 2; ++mode) {
                d.mode = (sf_tangent_mode)mode;
                CHECK_RESULT(sf_tangents_generate(&d, NULL, ct, &err), SF_ERROR_TOO_LARGE);
                CHECK(strcmp(err.field, field[f]) == 0 && err.index == (f == 2 ? 2u : 1u));
            }
        }
    }
}

/* ---------------------------------------------------------------- glTF */

/* The grid as a static glTF mesh (no skin); normals optional. */
static sf_result write_grid_targets(fmesh* m, int with_normals, int with_tangents, int with_targets, void** data,
                                    size_t* size, sf_error* err)
{
    sf_gltf_write_mesh wm;
    memset(&wm, 0, sizeof wm);
    wm.mesh = m->mesh;
    wm.mesh.influence_count = 0;
    wm.mesh.joints = NULL;
    wm.mesh.weights = NULL;
    if (!with_targets) {
        wm.mesh.target_count = 0;
        wm.mesh.targets = NULL;
    }
    if (!with_normals) wm.mesh.normals.data = NULL;
    if (!with_tangents) wm.mesh.tangents.data = NULL;
    sf_gltf_write_node node;
    memset(&node, 0, sizeof node);
    node.parent = SF_GLTF_NONE;
    node.mesh = 0;
    node.skin = SF_GLTF_NONE;
    sf_gltf_write_desc d;
    memset(&d, 0, sizeof d);
    d.meshes = &wm;
    d.mesh_count = 1;
    d.nodes = &node;
    d.node_count = 1;
    return sf_gltf_write_glb(&d, NULL, data, size, err);
}

static sf_result write_grid(fmesh* m, int with_normals, int with_tangents, void** data, size_t* size, sf_error* err)
{
    return write_grid_targets(m, with_normals, with_tangents, 0, data, size, err);
}

static void test_gltf_loader_names_the_accessor(void)
{
    /* a morph delta: the target's accessor */
    fmesh* t = fmesh_new(1.0f);
    t->dp[2][3 * 40 + 2] = -1.0e19f;
    void* tdata;
    size_t tsize;
    sf_error terr;
    CHECK_OK(write_grid_targets(t, 1, 1, 1, &tdata, &tsize, &terr));
    free(t);
    sf_gltf* tg = NULL;
    sf_result tr = sf_gltf_load_memory(tdata, tsize, NULL, NULL, NULL, &tg, &terr);
    sf_gltf_free_bytes(NULL, tdata, tsize);
    sf_gltf_destroy(tg);
    CHECK_RESULT(tr, SF_ERROR_TOO_LARGE);
    CHECK(strcmp(terr.field, "meshes[0].primitives[0].targets[2].POSITION") == 0);
    CHECK(strstr(terr.message, "element 40 component 2") != NULL);
    for (int with_normals = 0; with_normals < 2; ++with_normals) {
        fmesh* m = fmesh_new(1.0f);
        m->pos[3 * 12 + 1] = 3.0e38f;
        void* data;
        size_t size;
        sf_error err;
        CHECK_OK(write_grid(m, with_normals, 1, &data, &size, &err)); /* finite: written */
        free(m);
        sf_gltf* g = NULL;
        sf_result r = sf_gltf_load_memory(data, size, NULL, NULL, NULL, &g, &err);
        sf_gltf_free_bytes(NULL, data, size);
        sf_gltf_destroy(g);
        CHECK_RESULT(r, SF_ERROR_TOO_LARGE);
        CHECK(strcmp(err.field, "meshes[0].primitives[0].attributes.POSITION") == 0);
        CHECK(strstr(err.message, "accessors[0]") != NULL && strstr(err.message, "element 12") != NULL);
    }
}

static void test_gltf_generated_streams_named(void)
{
    /* UV tangents generated by the topology overflow: the glTF layer names the primitive, not mesh.tangents */
    sliver_uv s;
    sliver_uv_init(&s, 1.0e9f, 1.0f);
    fmesh* m = fmesh_new(1.0f);
    m->mesh.vertex_count = 3;
    m->mesh.triangle_count = 1;
    m->mesh.indices = s.idx;
    m->mesh.positions.data = s.pos;
    m->mesh.normals.data = s.nrm;
    m->mesh.uvs.data = s.uv;
    void* data;
    size_t size;
    sf_error err;
    CHECK_OK(write_grid(m, 1, 0, &data, &size, &err));
    free(m);
    sf_gltf_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.generated_tangents = SF_TANGENTS_UV;
    sf_gltf* g;
    sf_result r = sf_gltf_load_memory(data, size, NULL, &opts, NULL, &g, &err);
    sf_gltf_free_bytes(NULL, data, size);
    CHECK_OK(r);
    sf_mesh_desc desc;
    CHECK_OK(sf_gltf_instance_mesh(g, 0, 0, &desc, &err));
    sf_topology* topo;
    r = sf_topology_create(&desc, NULL, NULL, &topo, &err);
    sf_gltf_primitive_locate_error(g, 0, &err);
    sf_gltf_destroy(g);
    CHECK_RESULT(r, SF_ERROR_TOO_LARGE);
    CHECK(strcmp(err.field, "meshes[0].primitives[0]") == 0);
    CHECK(strstr(err.message, "generated tangents of meshes[0].primitives[0]") == err.message);
    CHECK(strstr(err.message, "mesh.tangents") == NULL);

    /* flat normals (no NORMAL): an error on mesh.normals names the generated normals; positions name the
     * POSITION accessor's element (the source vertex of the split one) */
    m = fmesh_new(1.0f);
    CHECK_OK(write_grid(m, 0, 0, &data, &size, &err));
    free(m);
    r = sf_gltf_load_memory(data, size, NULL, NULL, NULL, &g, &err);
    sf_gltf_free_bytes(NULL, data, size);
    CHECK_OK(r);
    const sf_gltf_primitive* pr = &g->primitives[0];
    CHECK(pr->flat_normals == 1);
    sf_error_set(&err, SF_ERROR_TOO_LARGE, "mesh.normals", 7, "component 1 is %g", 1e30);
    sf_gltf_primitive_locate_error(g, 0, &err);
    CHECK(strcmp(err.field, "meshes[0].primitives[0]") == 0);
    CHECK(strstr(err.message, "generated normals of meshes[0].primitives[0]") == err.message);
    CHECK(strstr(err.message, "component 1 is 1e+30") != NULL);
    sf_error_set(&err, SF_ERROR_TOO_LARGE, "mesh.positions", 7, "component 1 is %g", 1e30);
    sf_gltf_primitive_locate_error(g, 0, &err);
    CHECK(strcmp(err.field, "meshes[0].primitives[0].attributes.POSITION") == 0);
    CHECK(err.index == pr->source_vertex[7]);
    char want[128];
    snprintf(want, sizeof want, "meshes[0].primitives[0].attributes.POSITION[%u]: component 1", pr->source_vertex[7]);
    CHECK(strstr(err.message, want) == err.message);
    sf_gltf_destroy(g);
}

static void test_gltf_writer_refuses_nonfinite(void)
{
    const float bad[] = {NAN, INFINITY, -INFINITY};
    for (int b = 0; b < 3; ++b) {
        for (int c = 0; c < 9; ++c) {
            fmesh* m = fmesh_new(1.0f);
            sf_gltf_write_mesh wm;
            memset(&wm, 0, sizeof wm);
            wm.mesh = m->mesh;
            float mw[GK] = {0.5f, 0.5f, 0.5f};
            wm.weights = mw;
            float ibm[GB * 16];
            memset(ibm, 0, sizeof ibm);
            for (int j = 0; j < GB; ++j) ibm[16 * j] = ibm[16 * j + 5] = ibm[16 * j + 10] = ibm[16 * j + 15] = 1.0f;
            size_t joints[GB] = {1, 2, 3};
            sf_gltf_write_skin skin = {GB, joints, ibm};
            sf_gltf_write_node nodes[4];
            memset(nodes, 0, sizeof nodes);
            for (int k = 0; k < 4; ++k) {
                nodes[k].parent = k ? 0 : SF_GLTF_NONE;
                nodes[k].mesh = k ? SF_GLTF_NONE : 0;
                nodes[k].skin = k ? SF_GLTF_NONE : 0;
            }
            float times[2] = {0, 1}, values[6] = {0, 0, 0, 1, 2, 3};
            sf_gltf_channel ch;
            memset(&ch, 0, sizeof ch);
            ch.node = 1, ch.path = SF_GLTF_TRANSLATION, ch.key_count = 2, ch.times = times, ch.values = values;
            ch.components = 3;
            sf_gltf_write_animation anim = {"a", &ch, 1};
            sf_gltf_write_desc d;
            memset(&d, 0, sizeof d);
            d.meshes = &wm, d.mesh_count = 1, d.nodes = nodes, d.node_count = 4, d.skins = &skin, d.skin_count = 1;
            d.animations = &anim, d.animation_count = 1;
            struct {
                float* at;
                const char* field;
                size_t index;
            } cases[9] = {{m->pos + 3 * 12 + 2, "meshes[0].mesh.positions", 12},
                          {m->nrm + 3 * 5, "meshes[0].mesh.normals", 5},
                          {m->tan + 4 * 6 + 3, "meshes[0].mesh.tangents", 6},
                          {m->uv + 2 * 7, "meshes[0].mesh.uvs", 7},
                          {m->weights + 2 * 8 + 1, "meshes[0].mesh.weights", 8},
                          {m->dp[1] + 3 * 40, "meshes[0].mesh.targets[1].position_deltas", 40},
                          {mw + 2, "meshes[0].weights", 2},
                          {ibm + 16 * 2 + 12, "skins[0].inverse_bind_matrices", 2},
                          {values + 4, "animations[0].channels[0].values", 1}};
            *cases[c].at = bad[b];
            void* data = NULL;
            size_t size = 0;
            sf_error err;
            sf_result r = sf_gltf_write_glb(&d, NULL, &data, &size, &err);
            free(m);
            CHECK_RESULT(r, SF_ERROR_NOT_FINITE);
            CHECK(data == NULL);
            if (strcmp(err.field, cases[c].field) != 0 || err.index != cases[c].index) {
                fprintf(stderr, "  want %s[%zu], got '%s'\n", cases[c].field, cases[c].index, err.message);
                CHECK(0);
            }
        }
        /* node transforms */
        sf_gltf_write_node node;
        memset(&node, 0, sizeof node);
        node.parent = SF_GLTF_NONE, node.mesh = SF_GLTF_NONE, node.skin = SF_GLTF_NONE;
        node.translation[1] = bad[b];
        sf_gltf_write_desc d;
        memset(&d, 0, sizeof d);
        d.nodes = &node, d.node_count = 1;
        void* data;
        size_t size;
        sf_error err;
        CHECK_RESULT(sf_gltf_write_glb(&d, NULL, &data, &size, &err), SF_ERROR_NOT_FINITE);
        CHECK(strcmp(err.field, "nodes[0].translation") == 0);
        float mat[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        mat[13] = bad[b];
        node.translation[1] = 0;
        node.matrix = mat;
        CHECK_RESULT(sf_gltf_write_glb(&d, NULL, &data, &size, &err), SF_ERROR_NOT_FINITE);
        CHECK(strcmp(err.field, "nodes[0].matrix") == 0);
    }
}

/* Writer and loader agree on the JSON's bound: a node matrix element at 3e38 (as the float it becomes) is
 * written and loads back equal, one float step beyond is refused by the writer naming the node, and a file
 * that holds it is refused by the loader naming the element. */
static void test_gltf_json_bound_agrees(void)
{
    float mat[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    sf_gltf_write_node node;
    memset(&node, 0, sizeof node);
    node.parent = SF_GLTF_NONE, node.mesh = SF_GLTF_NONE, node.skin = SF_GLTF_NONE;
    node.matrix = mat;
    sf_gltf_write_desc d;
    memset(&d, 0, sizeof d);
    d.nodes = &node, d.node_count = 1;
    const float at = 3.0e38f, beyond = nextafterf(3.0e38f, INFINITY);
    for (int sign = -1; sign <= 1; sign += 2) {
        mat[0] = (float)sign * at;
        void* data = NULL;
        size_t size = 0;
        sf_error err;
        CHECK_OK(sf_gltf_write_glb(&d, NULL, &data, &size, &err));
        sf_gltf* g = NULL;
        CHECK_OK(sf_gltf_load_memory(data, size, NULL, NULL, NULL, &g, &err));
        CHECK(g && g->node_count == 1 && g->nodes[0].matrix[0] == mat[0]);
        sf_gltf_destroy(g);
        sf_gltf_free_bytes(NULL, data, size);
        mat[0] = (float)sign * beyond;
        CHECK_RESULT(sf_gltf_write_glb(&d, NULL, &data, &size, &err), SF_ERROR_TOO_LARGE);
        CHECK(strcmp(err.field, "nodes[0].matrix") == 0);
        char text[512];
        snprintf(text, sizeof text,
                 "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"matrix\":[%.17g,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}]}",
                 (double)mat[0]);
        CHECK_RESULT(sf_gltf_load_memory(text, strlen(text), NULL, NULL, NULL, &g, &err), SF_ERROR_TOO_LARGE);
        CHECK(strstr(err.message, "nodes[0].matrix") && strstr(err.message, "beyond"));
    }
}

/* ---------------------------------------------------------------- the command, end to end */

static char g_tmp[256];

static size_t count_lines(const char* s)
{
    size_t n = 0;
    for (; *s; ++s) n += *s == '\n';
    return n;
}

static size_t count_of(const char* s, const char* what)
{
    size_t n = 0;
    for (const char* p = s; (p = strstr(p, what)) != NULL; p += strlen(what)) n++;
    return n;
}

/* Occurrences of what as a word of its own ("inf", not the start of "influences"). */
static size_t count_word(const char* s, const char* what)
{
    size_t n = 0, len = strlen(what);
    for (const char* p = s; (p = strstr(p, what)) != NULL; p += len) {
        int before = p > s && isalpha((unsigned char)p[-1]), after = isalpha((unsigned char)p[len]);
        n += !before && !after;
    }
    return n;
}

/* JSON or text with a number that is not one: nan, inf, or null where a number goes (an animation's
 * "index" is null for a file without animations). */
static int has_nonnumber(const char* out)
{
    return count_word(out, "nan") || count_word(out, "inf") ||
           count_of(out, "null") != count_of(out, "\"index\":\tnull");
}

static int write_file(const char* path, const void* data, size_t size)
{
    FILE* f = fopen(path, "wb");
    if (!f) return 0;
    int ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

static void test_cli_refuses(void)
{
    if (!getenv("SF_CLI")) {
        sft_skip("SF_CLI not set");
        return;
    }
    char file[400], out[400], args[1200];
    snprintf(g_tmp, sizeof g_tmp, "/tmp/test_finite.XXXXXX");
    CHECK(mkdtemp(g_tmp) != NULL);
    /* positions of 3e38: the loader names the accessor */
    fmesh* m = fmesh_new(1.0f);
    m->pos[3 * 12 + 1] = 3.0e38f;
    void* data;
    size_t size;
    CHECK_OK(write_grid(m, 1, 1, &data, &size, NULL));
    free(m);
    snprintf(file, sizeof file, "%s/huge.glb", g_tmp);
    snprintf(out, sizeof out, "%s/out.glb", g_tmp);
    CHECK(write_file(file, data, size));
    sf_gltf_free_bytes(NULL, data, size);
    const char* cmds[] = {"bake '%s' --time 0 --method skinned -o '%s'", "eval '%s'", "eval '%s' --json"};
    for (int k = 0; k < 3; ++k) {
        snprintf(args, sizeof args, cmds[k], file, out);
        sft_cli_out r = sft_run_cli(args);
        int ok = r.status == 1 && count_lines(r.err) == 1 && strstr(r.err, "attributes.POSITION") &&
                 strstr(r.err, "element 12") && !has_nonnumber(r.out);
        if (!ok) fprintf(stderr, "  %s: status %d, err '%s'\n", args, r.status, r.err);
        sft_cli_out_free(&r);
        CHECK(ok);
        CHECK(access(out, F_OK) != 0); /* nothing written */
    }
    /* generated tangents that overflow: named as generated, for the primitive */
    sliver_uv s;
    sliver_uv_init(&s, 1.0e9f, 1.0f);
    m = fmesh_new(1.0f);
    m->mesh.vertex_count = 3;
    m->mesh.triangle_count = 1;
    m->mesh.indices = s.idx;
    m->mesh.positions.data = s.pos;
    m->mesh.normals.data = s.nrm;
    m->mesh.uvs.data = s.uv;
    CHECK_OK(write_grid(m, 1, 0, &data, &size, NULL));
    free(m);
    snprintf(file, sizeof file, "%s/generated.glb", g_tmp);
    CHECK(write_file(file, data, size));
    sf_gltf_free_bytes(NULL, data, size);
    const char* cmds2[] = {"bake '%s' --time 0 --method skinned --tangents uv -o '%s'", "eval '%s' --tangents uv"};
    for (int k = 0; k < 2; ++k) {
        snprintf(args, sizeof args, cmds2[k], file, out);
        sft_cli_out r = sft_run_cli(args);
        int ok = r.status == 1 && count_lines(r.err) == 1 &&
                 strstr(r.err, "generated tangents of meshes[0].primitives[0]") && !strstr(r.err, "mesh.tangents");
        if (!ok) fprintf(stderr, "  %s: status %d, err '%s'\n", args, r.status, r.err);
        sft_cli_out_free(&r);
        CHECK(ok);
        CHECK(access(out, F_OK) != 0);
    }
    /* a skin whose inverse bind matrix scales by 1e30: the pose is refused naming the bone */
    m = fmesh_new(1.0f);
    uint32_t j4[4 * GV];
    float w4[4 * GV];
    memset(j4, 0, sizeof j4);
    memset(w4, 0, sizeof w4);
    for (int v = 0; v < GV; ++v) w4[4 * v] = 1.0f;
    sf_gltf_write_mesh wm;
    memset(&wm, 0, sizeof wm);
    wm.mesh = m->mesh;
    wm.mesh.target_count = 0, wm.mesh.targets = NULL;
    wm.mesh.influence_count = 4, wm.mesh.joints = j4, wm.mesh.weights = w4;
    float ibm[16] = {1.0e30f, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    size_t joint = 1;
    sf_gltf_write_skin skin = {1, &joint, ibm};
    sf_gltf_write_node nodes[2];
    memset(nodes, 0, sizeof nodes);
    nodes[0].parent = SF_GLTF_NONE, nodes[0].mesh = 0, nodes[0].skin = 0;
    nodes[1].parent = SF_GLTF_NONE, nodes[1].mesh = SF_GLTF_NONE, nodes[1].skin = SF_GLTF_NONE;
    sf_gltf_write_desc wd;
    memset(&wd, 0, sizeof wd);
    wd.meshes = &wm, wd.mesh_count = 1, wd.nodes = nodes, wd.node_count = 2, wd.skins = &skin, wd.skin_count = 1;
    CHECK_OK(sf_gltf_write_glb(&wd, NULL, &data, &size, NULL));
    free(m);
    snprintf(file, sizeof file, "%s/bone.glb", g_tmp);
    CHECK(write_file(file, data, size));
    sf_gltf_free_bytes(NULL, data, size);
    for (int k = 0; k < 2; ++k) {
        snprintf(args, sizeof args, cmds[k], file, out);
        sft_cli_out r = sft_run_cli(args);
        /* both name the moment and the joint's node and path (pose_errors.c) */
        const char* bone = "rest pose: node 1 (skins[0].joints[0])";
        int ok = r.status == 1 && count_lines(r.err) == 1 && strstr(r.err, bone) &&
                 strstr(r.err, "SF_MAX_BONE_SCALE") && !has_nonnumber(r.out);
        if (!ok) fprintf(stderr, "  %s: status %d, err '%s'\n", args, r.status, r.err);
        sft_cli_out_free(&r);
        CHECK(ok);
        CHECK(access(out, F_OK) != 0);
    }
    remove(file);
    snprintf(file, sizeof file, "%s/generated.glb", g_tmp);
    /* MikkTSpace at load (the default) normalises per face: the same file evaluates */
    snprintf(args, sizeof args, "eval '%s' --json", file);
    sft_cli_out r = sft_run_cli(args);
    int ok = r.status == 0 && !has_nonnumber(r.out);
    if (!ok) fprintf(stderr, "  %s: status %d, err '%s'\n", args, r.status, r.err);
    sft_cli_out_free(&r);
    CHECK(ok);
    remove(file);
    snprintf(file, sizeof file, "%s/huge.glb", g_tmp);
    remove(file);
    rmdir(g_tmp);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"mesh_values_too_large", test_mesh_values_too_large},
        {"pose_values_too_large", test_pose_values_too_large},
        {"large_but_accepted", test_large_but_accepted},
        {"denormals_and_tiny_triangles", test_denormals_and_tiny_triangles},
        {"fuzzed_within_bounds", test_fuzzed_within_bounds},
        {"tangent_sum_overflow", test_tangent_sum_overflow},
        {"jacobian_slivers", test_jacobian_slivers},
        {"jacobian_crossed_slivers", test_jacobian_crossed_slivers},
        {"direction_errors_nonfinite", test_direction_errors_nonfinite},
        {"tangents_generate", test_tangents_generate},
        {"gltf_loader_names_the_accessor", test_gltf_loader_names_the_accessor},
        {"gltf_generated_streams_named", test_gltf_generated_streams_named},
        {"gltf_writer_refuses_nonfinite", test_gltf_writer_refuses_nonfinite},
        {"gltf_json_bound_agrees", test_gltf_json_bound_agrees},
        {"cli_refuses", test_cli_refuses},
    };
    return SFT_RUN(cases, argc, argv);
}

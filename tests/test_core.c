// LABELS: unit
/* Core library: validation paths, weight normalisation, the per-vertex methods against closed forms,
 * recompute against an independent double-precision gather, error statistics, allocator failures,
 * and thread-count independence. */
#include "sf_test.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- a small test mesh */

/* A 3x3-vertex grid in the xz plane (8 triangles), normal +y, tangent +x, 2 bones. */
typedef struct grid {
    float positions[9 * 3], normals[9 * 3], tangents[9 * 4], uvs[9 * 2];
    uint32_t indices[8 * 3];
    uint32_t joints[9 * 2];
    float weights[9 * 2];
    sf_mesh_desc mesh;
} grid;

static void grid_init(grid* g)
{
    memset(g, 0, sizeof *g);
    for (int z = 0; z < 3; ++z) {
        for (int x = 0; x < 3; ++x) {
            int v = z * 3 + x;
            g->positions[3 * v + 0] = (float)x;
            g->positions[3 * v + 1] = 0.0f;
            g->positions[3 * v + 2] = (float)z;
            g->normals[3 * v + 1] = 1.0f;
            g->tangents[4 * v + 0] = 1.0f;
            g->tangents[4 * v + 3] = 1.0f;
            /* glTF UVs: u along +x, v along +z (down in the image), so the image's up is -z = cross(n, t): w = +1 */
            g->uvs[2 * v + 0] = (float)x / 2.0f;
            g->uvs[2 * v + 1] = (float)z / 2.0f;
            g->joints[2 * v + 0] = 0;
            g->joints[2 * v + 1] = 1;
            g->weights[2 * v + 0] = 1.0f - (float)x / 2.0f;
            g->weights[2 * v + 1] = (float)x / 2.0f;
        }
    }
    int t = 0;
    for (int z = 0; z < 2; ++z) {
        for (int x = 0; x < 2; ++x) {
            uint32_t a = (uint32_t)(z * 3 + x), b = a + 1, c = a + 3, d = a + 4;
            /* counter-clockwise seen from +y: a, c, b and b, c, d */
            uint32_t tri[6] = {a, c, b, b, c, d};
            memcpy(g->indices + 6 * t, tri, sizeof tri);
            ++t;
        }
    }
    sf_mesh_desc* m = &g->mesh;
    m->vertex_count = 9;
    m->triangle_count = 8;
    m->indices = g->indices;
    m->positions.data = g->positions;
    m->normals.data = g->normals;
    m->tangents.data = g->tangents;
    m->uvs.data = g->uvs;
    m->influence_count = 2;
    m->joints = g->joints;
    m->weights = g->weights;
    m->bone_count = 2;
}

static void identity(float m[12])
{
    memset(m, 0, 12 * sizeof(float));
    m[0] = m[4] = m[8] = 1.0f;
}

/* Rotation about axis (unit) by angle, then translation. */
static void rotation(float m[12], const float axis[3], float angle_rad, const float t[3])
{
    float c = cosf(angle_rad), s = sinf(angle_rad), k = 1.0f - c;
    float x = axis[0], y = axis[1], z = axis[2];
    float r[9] = {c + x * x * k,     y * x * k + z * s, z * x * k - y * s, /* column 0 */
                  x * y * k - z * s, c + y * y * k,     z * y * k + x * s, /* column 1 */
                  x * z * k + y * s, y * z * k - x * s, c + z * z * k};    /* column 2 */
    memcpy(m, r, sizeof r);
    m[9] = t[0];
    m[10] = t[1];
    m[11] = t[2];
}

typedef struct run {
    sf_topology* topo;
    sf_workspace* ws;
    float pos[64 * 3], n[SF_METHOD_COUNT][64 * 3], t[SF_METHOD_COUNT][64 * 4];
} run;

static sf_result run_methods(run* r, const sf_mesh_desc* mesh, const sf_pose* pose, const sf_frames_opts* opts)
{
    sf_error err;
    sf_result res = sf_topology_create(mesh, NULL, NULL, &r->topo, &err);
    if (res != SF_OK) return res;
    res = sf_workspace_create(r->topo, NULL, &r->ws, &err);
    if (res != SF_OK) return res;
    for (int m = 0; m < SF_METHOD_COUNT; ++m) {
        if (m == SF_METHOD_JACOBIAN) continue; /* tested in test_jacobian */
        sf_frames_out out = {r->pos, r->n[m], r->t[m]};
        res = sf_frames_compute(r->topo, pose, (sf_method)m, opts, r->ws, &out, &err);
        if (res != SF_OK) return res;
    }
    return SF_OK;
}

static void run_free(run* r)
{
    sf_workspace_destroy(r->ws);
    sf_topology_destroy(r->topo);
}

static double max_error(const run* r, sf_method m, int tangents)
{
    double worst = 0.0;
    for (size_t v = 0; v < sf_topology_vertex_count(r->topo); ++v) {
        double a = tangents ? sf_angle_deg(r->t[m] + 4 * v, r->t[SF_METHOD_RECOMPUTE] + 4 * v)
                            : sf_angle_deg(r->n[m] + 3 * v, r->n[SF_METHOD_RECOMPUTE] + 3 * v);
        if (a > worst) worst = a;
    }
    return worst;
}

/* ---------------------------------------------------------------- cases */

static void test_result_strings(void)
{
    for (int r = 0; r < SF_RESULT_COUNT; ++r) CHECK(strlen(sf_result_string((sf_result)r)) > 0);
    CHECK(strcmp(sf_result_string(SF_ERROR_JOINT_INDEX), "joint index out of range") == 0);
    sf_method m;
    CHECK_OK(sf_method_parse("inverse-transpose", &m));
    CHECK(m == SF_METHOD_INVERSE_TRANSPOSE);
    CHECK_RESULT(sf_method_parse("inverse_transpose", &m), SF_ERROR_UNKNOWN_NAME);
    CHECK(strcmp(sf_method_name(SF_METHOD_RECOMPUTE), "recompute") == 0);
}

/* One block per bad field, each checking the exact result and the field named (ozz's JobValidity). */
static void test_validation_table(void)
{
    grid g;
    sf_topology* topo = NULL;
    sf_error err;

    grid_init(&g);
    g.indices[5] = 9;
    CHECK_RESULT(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err), SF_ERROR_INDEX_RANGE);
    CHECK(strcmp(err.field, "mesh.indices") == 0 && err.index == 5);
    CHECK(strstr(err.message, "index 9 >= vertex_count 9") != NULL);

    grid_init(&g);
    g.joints[7] = 2;
    CHECK_RESULT(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err), SF_ERROR_JOINT_INDEX);
    CHECK(strcmp(err.field, "mesh.joints") == 0 && err.index == 7);

    grid_init(&g);
    g.positions[4] = NAN;
    CHECK_RESULT(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err), SF_ERROR_NOT_FINITE);
    CHECK(strcmp(err.field, "mesh.positions") == 0 && err.index == 1);

    grid_init(&g);
    g.normals[0] = INFINITY;
    CHECK_RESULT(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err), SF_ERROR_NOT_FINITE);
    CHECK(strcmp(err.field, "mesh.normals") == 0);

    grid_init(&g);
    g.weights[3] = -0.25f;
    CHECK_RESULT(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err), SF_ERROR_NEGATIVE_WEIGHT);
    CHECK(strcmp(err.field, "mesh.weights") == 0 && err.index == 3);

    grid_init(&g);
    g.weights[8] = NAN;
    CHECK_RESULT(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err), SF_ERROR_NOT_FINITE);
    CHECK(strcmp(err.field, "mesh.weights") == 0 && err.index == 8);

    grid_init(&g);
    g.weights[2] = g.weights[3] = 0.0f; /* vertex 1 */
    CHECK_RESULT(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err), SF_ERROR_ZERO_WEIGHTS);
    CHECK(strcmp(err.field, "mesh.weights") == 0 && err.index == 1);

    grid_init(&g);
    g.weights[4] = 0.9f; /* vertex 2 now sums to 1.9 */
    g.mesh.weight_policy = SF_WEIGHTS_STRICT;
    CHECK_RESULT(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err), SF_ERROR_WEIGHT_SUM);
    CHECK(err.index == 2);

    grid_init(&g);
    g.mesh.positions.stride = 8;
    CHECK_RESULT(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err), SF_ERROR_STRIDE);
    CHECK(strcmp(err.field, "mesh.positions") == 0);

    grid_init(&g);
    g.mesh.tangents.stride = 18;
    CHECK_RESULT(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err), SF_ERROR_STRIDE);

    grid_init(&g);
    g.mesh.positions.data = NULL;
    CHECK_RESULT(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err), SF_ERROR_MISSING_STREAM);

    grid_init(&g);
    g.mesh.bone_count = 0;
    CHECK_RESULT(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err), SF_ERROR_COUNT_MISMATCH);

    grid_init(&g);
    g.mesh.joints = NULL;
    CHECK_RESULT(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err), SF_ERROR_MISSING_STREAM);
    CHECK(strcmp(err.field, "mesh.joints") == 0);

    /* Sizes whose products overflow are refused before any stream is read (the arrays here are short:
     * reading them as declared would run far out of bounds). */
    grid_init(&g);
    g.mesh.vertex_count = (size_t)1 << 31;
    g.mesh.triangle_count = 0;
    g.mesh.influence_count = UINT32_MAX;
    CHECK_RESULT(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.field, "mesh.influence_count") == 0);
    CHECK(topo == NULL);

    grid_init(&g);
    g.mesh.bone_count = UINT32_MAX / 12 + 1; /* 12u * joint would wrap in the kernels */
    CHECK_RESULT(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.field, "mesh.bone_count") == 0);

    CHECK_RESULT(sf_topology_create(NULL, NULL, NULL, &topo, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(topo == NULL);
}

static void test_morph_target_validation(void)
{
    grid g;
    grid_init(&g);
    float dp[2 * 3] = {0, 1, 0, 0, 1, 0};
    uint32_t idx[2] = {4, 4};
    sf_morph_target_desc target = {"bump", dp, NULL, NULL, idx, 2};
    g.mesh.targets = &target;
    g.mesh.target_count = 1;
    sf_topology* topo = NULL;
    sf_error err;
    CHECK_RESULT(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.field, "mesh.targets[0].sparse_indices") == 0 && err.index == 1);
    idx[1] = 12;
    CHECK_RESULT(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err), SF_ERROR_INDEX_RANGE);
    idx[1] = 5;
    dp[4] = NAN;
    CHECK_RESULT(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err), SF_ERROR_NOT_FINITE);
    CHECK(strcmp(err.field, "mesh.targets[0].position_deltas") == 0 && err.index == 1);
    dp[4] = 1.0f;
    CHECK_OK(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err));

    /* Pose checks: morph weight count and finiteness, bone count, NaN matrices. */
    sf_workspace* ws = NULL;
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, &err));
    float bones[24];
    identity(bones);
    identity(bones + 12);
    float alpha[2] = {1.0f, 0.0f};
    float pos[27], n[27], t[36];
    sf_frames_out out = {pos, n, t};
    sf_pose pose = {bones, 2, alpha, 2};
    CHECK_RESULT(sf_frames_compute(topo, &pose, SF_METHOD_SKINNED, NULL, ws, &out, &err), SF_ERROR_COUNT_MISMATCH);
    CHECK(strcmp(err.field, "pose.morph_weight_count") == 0);
    pose.morph_weight_count = 1;
    alpha[0] = NAN;
    CHECK_RESULT(sf_frames_compute(topo, &pose, SF_METHOD_SKINNED, NULL, ws, &out, &err), SF_ERROR_NOT_FINITE);
    alpha[0] = 0.5f;
    pose.bone_count = 1;
    CHECK_RESULT(sf_frames_compute(topo, &pose, SF_METHOD_SKINNED, NULL, ws, &out, &err), SF_ERROR_COUNT_MISMATCH);
    CHECK(strcmp(err.field, "pose.bone_count") == 0);
    pose.bone_count = 2;
    bones[13] = INFINITY;
    CHECK_RESULT(sf_frames_compute(topo, &pose, SF_METHOD_SKINNED, NULL, ws, &out, &err), SF_ERROR_NOT_FINITE);
    CHECK(strcmp(err.field, "pose.bone_matrices") == 0 && err.index == 1);
    bones[13] = 0.0f;
    CHECK_OK(sf_frames_compute(topo, &pose, SF_METHOD_SKINNED, NULL, ws, &out, &err));
    /* Sparse target: vertices 4 and 5 rise by 0.5, the others stay. */
    CHECK_NEAR(pos[3 * 4 + 1], 0.5, 1e-6);
    CHECK_NEAR(pos[3 * 5 + 1], 0.5, 1e-6);
    CHECK_NEAR(pos[3 * 3 + 1], 0.0, 1e-6);
    sf_frames_opts bad = {0};
    bad.weighting = (sf_weighting)7;
    CHECK_RESULT(sf_frames_compute(topo, &pose, SF_METHOD_RECOMPUTE, &bad, ws, &out, &err),
                 SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.field, "opts.weighting") == 0);
    CHECK_RESULT(sf_frames_compute(topo, &pose, (sf_method)99, NULL, ws, &out, &err), SF_ERROR_INVALID_ARGUMENT);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
}

/* Weights are renormalised by their sum over every influence slot; duplicates merge; zero-sum falls back on request. */
static void test_weight_normalisation(void)
{
    grid g;
    grid_init(&g);
    /* vertex 0: bone 0 twice (0.3 + 0.3), sums to 0.6 -> renormalised to bone 0 = 1 */
    g.weights[0] = 0.3f;
    g.weights[1] = 0.3f;
    g.joints[1] = 0;
    /* vertex 4: zero weights, kept at rest under SF_ZERO_WEIGHTS_REST */
    g.weights[8] = g.weights[9] = 0.0f;
    g.mesh.zero_weight_policy = SF_ZERO_WEIGHTS_REST;
    sf_topology* topo = NULL;
    sf_error err;
    CHECK_OK(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err));
    sf_topology_stats st;
    sf_topology_get_stats(topo, &st);
    CHECK(st.merged_duplicate_joints == 1);
    CHECK(st.renormalized_vertices == 1);
    CHECK(st.zero_weight_vertices == 1);
    sf_workspace* ws = NULL;
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, &err));
    /* bone 0 translates by (0, 1, 0), bone 1 by (0, 0, 2) */
    float bones[24];
    identity(bones);
    identity(bones + 12);
    bones[10] = 1.0f;
    bones[12 + 11] = 2.0f;
    sf_pose pose = {bones, 2, NULL, 0};
    float pos[27];
    CHECK_OK(sf_deform_positions(topo, &pose, ws, pos, &err));
    CHECK_NEAR(pos[1], 1.0, 1e-6); /* vertex 0 fully bone 0 after merge + renormalise */
    CHECK_NEAR(pos[2], 0.0, 1e-6);
    CHECK_NEAR(pos[3 * 4 + 1], 0.0, 1e-6); /* vertex 4 at rest */
    CHECK_NEAR(pos[3 * 4 + 2], 1.0, 1e-6);
    CHECK_NEAR(pos[3 * 2 + 2], 2.0 + 0.0, 1e-6); /* vertex 2 (x = 2): weight 1 on bone 1, z 0 -> 2 */
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
}

/* One rigid transform for every bone: every method but unchanged equals the reference. */
static void test_rigid_pose_all_methods_agree(void)
{
    grid g;
    grid_init(&g);
    float bones[24];
    const float axis[3] = {0.267261f, 0.534522f, 0.801784f};
    const float t[3] = {0.5f, -2.0f, 3.0f};
    rotation(bones, axis, 1.1f, t);
    memcpy(bones + 12, bones, 12 * sizeof(float));
    sf_pose pose = {bones, 2, NULL, 0};
    run r;
    CHECK_OK(run_methods(&r, &g.mesh, &pose, NULL));
    CHECK(max_error(&r, SF_METHOD_SKINNED, 0) < 1e-3);
    CHECK(max_error(&r, SF_METHOD_INVERSE_TRANSPOSE, 0) < 1e-3);
    CHECK(max_error(&r, SF_METHOD_SKINNED, 1) < 1e-3);
    CHECK(max_error(&r, SF_METHOD_INVERSE_TRANSPOSE, 1) < 1e-3);
    /* unchanged keeps +y; the rotation turns +y by acos(cos a + (1 - cos a) axis_y^2) */
    double turn = acos(cos(1.1) + (1.0 - cos(1.1)) * (double)axis[1] * axis[1]) * 180.0 / SFT_PI;
    CHECK_NEAR(max_error(&r, SF_METHOD_UNCHANGED, 0), turn, 1e-3);
    for (size_t v = 0; v < 9; ++v) CHECK(r.t[SF_METHOD_RECOMPUTE][4 * v + 3] == 1.0f);
    run_free(&r);
}

/* A mirrored bone: handedness flips for skinned, inverse-transpose and the reference, and all agree. */
static void test_mirrored_bone(void)
{
    grid g;
    grid_init(&g);
    float bones[24];
    identity(bones);
    bones[0] = -1.0f; /* mirror x */
    memcpy(bones + 12, bones, 12 * sizeof(float));
    sf_pose pose = {bones, 2, NULL, 0};
    run r;
    CHECK_OK(run_methods(&r, &g.mesh, &pose, NULL));
    const sf_method ms[3] = {SF_METHOD_SKINNED, SF_METHOD_INVERSE_TRANSPOSE, SF_METHOD_RECOMPUTE};
    for (int i = 0; i < 3; ++i) {
        for (size_t v = 0; v < 9; ++v) {
            const float* n = r.n[ms[i]] + 3 * v;
            const float* t = r.t[ms[i]] + 4 * v;
            CHECK_NEAR(n[1], 1.0, 1e-6);  /* outward stays +y */
            CHECK_NEAR(t[0], -1.0, 1e-6); /* tangent mirrored */
            CHECK(t[3] == -1.0f);         /* handedness flipped */
        }
    }
    sf_frames_report rep;
    sf_workspace_last_report(r.ws, &rep);
    CHECK(rep.mirrored_vertices == 9);
    run_free(&r);
}

/* Non-uniform scale: inverse transpose is exact for one bone, skinned misses by the analytic angle. */
static void test_inverse_transpose_scale(void)
{
    grid g;
    grid_init(&g);
    /* tilt the grid: y = 0.5 x, so the rest normal is (-0.5, 1, 0)/|.| */
    for (int v = 0; v < 9; ++v) {
        g.positions[3 * v + 1] = 0.5f * g.positions[3 * v];
        float inv = 1.0f / sqrtf(1.25f);
        g.normals[3 * v + 0] = -0.5f * inv;
        g.normals[3 * v + 1] = 1.0f * inv;
        g.tangents[4 * v + 0] = 1.0f * inv;
        g.tangents[4 * v + 1] = 0.5f * inv;
    }
    float bones[24];
    identity(bones);
    bones[0] = 2.0f; /* stretch x by 2 */
    memcpy(bones + 12, bones, 12 * sizeof(float));
    sf_pose pose = {bones, 2, NULL, 0};
    run r;
    CHECK_OK(run_methods(&r, &g.mesh, &pose, NULL));
    /* Analytic: slope 0.25 after stretching: normal (-0.25, 1, 0); skinned gives (-1, 1, 0). */
    double slope_after = atan(0.25) * 180.0 / SFT_PI, skinned_tilt = 45.0;
    for (size_t v = 0; v < 9; ++v) {
        const float* n = r.n[SF_METHOD_INVERSE_TRANSPOSE] + 3 * v;
        CHECK_NEAR(atan2(-n[0], n[1]) * 180.0 / SFT_PI, slope_after, 1e-4);
        CHECK_NEAR(sf_angle_deg(n, r.n[SF_METHOD_RECOMPUTE] + 3 * v), 0.0, 1e-3);
        CHECK_NEAR(sf_angle_deg(r.n[SF_METHOD_SKINNED] + 3 * v, n), skinned_tilt - slope_after, 1e-3);
    }
    run_free(&r);
}

/* Weights varying across triangles with a pure translation: the surface slopes, inverse transpose does not see it. */
static void test_translation_slope(void)
{
    grid g;
    grid_init(&g);
    float bones[24];
    identity(bones);
    identity(bones + 12);
    bones[12 + 10] = 1.0f; /* bone 1 up by 1: y = x / 2 (weights x/2) */
    sf_pose pose = {bones, 2, NULL, 0};
    run r;
    CHECK_OK(run_methods(&r, &g.mesh, &pose, NULL));
    double slope = atan(0.5) * 180.0 / SFT_PI;
    for (size_t v = 0; v < 9; ++v) {
        const float* ref = r.n[SF_METHOD_RECOMPUTE] + 3 * v;
        CHECK_NEAR(atan2(-ref[0], ref[1]) * 180.0 / SFT_PI, slope, 1e-4);
        CHECK_NEAR(r.n[SF_METHOD_INVERSE_TRANSPOSE][3 * v + 1], 1.0, 1e-7);
        CHECK_NEAR(sf_angle_deg(r.n[SF_METHOD_INVERSE_TRANSPOSE] + 3 * v, ref), slope, 1e-3);
    }
    run_free(&r);
}

/* Singular blended matrix: inverse transpose returns zero and the report counts it. */
static void test_singular_matrix(void)
{
    grid g;
    grid_init(&g);
    float bones[24];
    identity(bones);
    bones[4] = 0.0f; /* collapse y */
    memcpy(bones + 12, bones, 12 * sizeof(float));
    sf_pose pose = {bones, 2, NULL, 0};
    run r;
    CHECK_OK(run_methods(&r, &g.mesh, &pose, NULL));
    for (size_t v = 0; v < 9; ++v) {
        const float* n = r.n[SF_METHOD_INVERSE_TRANSPOSE] + 3 * v;
        CHECK(n[0] == 0.0f && n[1] == 0.0f && n[2] == 0.0f);
    }
    sf_frames_out it = {NULL, r.n[SF_METHOD_INVERSE_TRANSPOSE], r.t[SF_METHOD_INVERSE_TRANSPOSE]};
    sf_frames_out ref = {NULL, r.n[SF_METHOD_RECOMPUTE], r.t[SF_METHOD_RECOMPUTE]};
    sf_error_summary s;
    sf_error err;
    CHECK_OK(sf_direction_errors(r.topo, &it, &ref, NULL, NULL, NULL, &s, &err));
    CHECK(s.degenerate_normals == 9);
    CHECK_NEAR(s.normal.mean, 180.0, 1e-9);
    run_free(&r);
}

/* Independent double-precision gather of the article's section 5 on a random mesh. */
static void reference_gather(const float* P, const float* uv, const uint32_t* idx, size_t nv, size_t nf, double* N,
                             double* T, double* B)
{
    memset(N, 0, 3 * nv * sizeof(double));
    memset(T, 0, 3 * nv * sizeof(double));
    memset(B, 0, 3 * nv * sizeof(double));
    for (size_t f = 0; f < nf; ++f) {
        const uint32_t* i = idx + 3 * f;
        double e1[3], e2[3], fn[3];
        for (int k = 0; k < 3; ++k) {
            e1[k] = (double)P[3 * i[1] + k] - P[3 * i[0] + k];
            e2[k] = (double)P[3 * i[2] + k] - P[3 * i[0] + k];
        }
        fn[0] = e1[1] * e2[2] - e1[2] * e2[1];
        fn[1] = e1[2] * e2[0] - e1[0] * e2[2];
        fn[2] = e1[0] * e2[1] - e1[1] * e2[0];
        double area2 = sqrt(fn[0] * fn[0] + fn[1] * fn[1] + fn[2] * fn[2]);
        double du1 = (double)uv[2 * i[1]] - uv[2 * i[0]], dv1 = (double)uv[2 * i[1] + 1] - uv[2 * i[0] + 1];
        double du2 = (double)uv[2 * i[2]] - uv[2 * i[0]], dv2 = (double)uv[2 * i[2] + 1] - uv[2 * i[0] + 1];
        double det = du1 * dv2 - du2 * dv1;
        for (int c = 0; c < 3; ++c) {
            for (int k = 0; k < 3; ++k) {
                N[3 * i[c] + k] += fn[k];
                if (fabs(det) > 1e-12) {
                    T[3 * i[c] + k] += (e1[k] * dv2 - e2[k] * dv1) / det * area2;
                    B[3 * i[c] + k] += (e2[k] * du1 - e1[k] * du2) / det * area2;
                }
            }
        }
    }
}

static float frand(unsigned* state)
{
    *state = *state * 1664525u + 1013904223u;
    return (float)(*state >> 8) / (float)(1u << 24);
}

static void test_recompute_matches_independent_gather(void)
{
    grid g;
    grid_init(&g);
    unsigned seed = 12345;
    for (int v = 0; v < 9; ++v) {
        g.positions[3 * v + 1] = 0.4f * frand(&seed);
        g.uvs[2 * v] += 0.05f * frand(&seed);
    }
    float bones[24];
    const float axis[3] = {0.0f, 0.0f, 1.0f}, t0[3] = {0, 0, 0};
    identity(bones);
    rotation(bones + 12, axis, 0.7f, t0);
    sf_pose pose = {bones, 2, NULL, 0};
    run r;
    CHECK_OK(run_methods(&r, &g.mesh, &pose, NULL));
    double N[27], T[27], B[27];
    reference_gather(r.pos, g.uvs, g.indices, 9, 8, N, T, B);
    for (size_t v = 0; v < 9; ++v) {
        double ln = sqrt(N[3 * v] * N[3 * v] + N[3 * v + 1] * N[3 * v + 1] + N[3 * v + 2] * N[3 * v + 2]);
        double n[3] = {N[3 * v] / ln, N[3 * v + 1] / ln, N[3 * v + 2] / ln};
        double d = n[0] * T[3 * v] + n[1] * T[3 * v + 1] + n[2] * T[3 * v + 2];
        double t[3] = {T[3 * v] - n[0] * d, T[3 * v + 1] - n[1] * d, T[3 * v + 2] - n[2] * d};
        double lt = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
        double c[3] = {n[1] * t[2] - n[2] * t[1], n[2] * t[0] - n[0] * t[2], n[0] * t[1] - n[1] * t[0]};
        /* glTF convention: the normal map's +Y runs along -dP/dv */
        double w = -(c[0] * B[3 * v] + c[1] * B[3 * v + 1] + c[2] * B[3 * v + 2]) < 0.0 ? -1.0 : 1.0;
        for (int k = 0; k < 3; ++k) {
            CHECK_NEAR(r.n[SF_METHOD_RECOMPUTE][3 * v + k], n[k], 2e-6);
            CHECK_NEAR(r.t[SF_METHOD_RECOMPUTE][4 * v + k], t[k] / lt, 2e-6);
        }
        CHECK(r.t[SF_METHOD_RECOMPUTE][4 * v + 3] == (float)w);
    }
    run_free(&r);
}

/* Mirrored UVs give handedness -1, and the article's v-up convention flips the sign of w. */
static void test_mirrored_uvs(void)
{
    grid g;
    grid_init(&g);
    for (int v = 0; v < 9; ++v) g.uvs[2 * v] = 1.0f - g.uvs[2 * v];
    g.mesh.tangents.data = NULL; /* generated from UVs at rest */
    sf_topology* topo = NULL;
    sf_error err;
    CHECK_OK(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err));
    const float* rt = sf_topology_rest_tangents(topo);
    for (size_t v = 0; v < 9; ++v) {
        CHECK(rt[4 * v + 3] == -1.0f);
        CHECK_NEAR(rt[4 * v + 0], -1.0, 1e-6);
    }
    sf_topology_stats st;
    sf_topology_get_stats(topo, &st);
    CHECK(st.generated_tangents == 1 && st.generated_normals == 0);
    sf_topology_destroy(topo);

    g.mesh.uv_convention = SF_UV_V_UP;
    CHECK_OK(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err));
    rt = sf_topology_rest_tangents(topo);
    for (size_t v = 0; v < 9; ++v) CHECK(rt[4 * v + 3] == 1.0f);
    sf_topology_destroy(topo);
    g.mesh.uv_convention = (sf_uv_convention)5;
    CHECK_RESULT(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.field, "mesh.uv_convention") == 0);
}

/* Corner with three faces of different areas and tilts: uniform, area and angle weighting by hand. */
static void test_uniform_vs_area_weighting(void)
{
    /* tip at origin, three neighbours; faces (0,1,2), (0,2,3), (0,3,1) */
    float P[4 * 3] = {0, 0.5f, 0, 4, 0, 0, -1, 0, 1.7320508f, -1, 0, -1.7320508f};
    float UV[4 * 2] = {0.5f, 0.5f, 1, 0.5f, 0.25f, 0.1f, 0.25f, 0.9f};
    uint32_t idx[9] = {0, 2, 1, 0, 3, 2, 0, 1, 3};
    sf_mesh_desc m = {0};
    m.vertex_count = 4;
    m.triangle_count = 3;
    m.indices = idx;
    m.positions.data = P;
    m.uvs.data = UV;
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    sf_error err;
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, &err));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, &err));
    sf_pose pose = {NULL, 0, NULL, 0};
    float na[12], nu[12], ng[12], t[16];
    sf_frames_opts area = {0}, uniform = {0}, angle = {0};
    uniform.weighting = SF_WEIGHTING_UNIFORM;
    angle.weighting = SF_WEIGHTING_ANGLE;
    sf_frames_out oa = {NULL, na, t}, ou = {NULL, nu, t}, og = {NULL, ng, t};
    CHECK_OK(sf_frames_compute(topo, &pose, SF_METHOD_RECOMPUTE, &area, ws, &oa, &err));
    CHECK_OK(sf_frames_compute(topo, &pose, SF_METHOD_RECOMPUTE, &uniform, ws, &ou, &err));
    CHECK_OK(sf_frames_compute(topo, &pose, SF_METHOD_RECOMPUTE, &angle, ws, &og, &err));
    /* by hand, in double (the tip is corner 0 of every face) */
    double sa[3] = {0, 0, 0}, su[3] = {0, 0, 0}, sg[3] = {0, 0, 0};
    for (int f = 0; f < 3; ++f) {
        const float *a = P + 3 * idx[3 * f], *b = P + 3 * idx[3 * f + 1], *c = P + 3 * idx[3 * f + 2];
        double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        double l1 = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
        double l2 = sqrt(e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2]);
        double corner = acos((e1[0] * e2[0] + e1[1] * e2[1] + e1[2] * e2[2]) / (l1 * l2));
        for (int k = 0; k < 3; ++k) sa[k] += n[k], su[k] += n[k] / l, sg[k] += n[k] / l * corner;
    }
    double la = sqrt(sa[0] * sa[0] + sa[1] * sa[1] + sa[2] * sa[2]);
    double lu = sqrt(su[0] * su[0] + su[1] * su[1] + su[2] * su[2]);
    double lg = sqrt(sg[0] * sg[0] + sg[1] * sg[1] + sg[2] * sg[2]);
    for (int k = 0; k < 3; ++k) {
        CHECK_NEAR(na[k], sa[k] / la, 1e-6);
        CHECK_NEAR(nu[k], su[k] / lu, 1e-6);
        CHECK_NEAR(ng[k], sg[k] / lg, 1e-6);
    }
    CHECK(sf_angle_deg(na, nu) > 1.0); /* the weightings really differ here */
    CHECK(sf_angle_deg(ng, nu) > 0.1 && sf_angle_deg(ng, na) > 0.1);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
}

/* A collapsed triangle contributes nothing; a vertex touched only by it is degenerate. */
static void test_collapsed_triangle(void)
{
    float P[5 * 3] = {0, 0, 0, 1, 0, 0, 0, 0, -1, 5, 0, 0, 5, 0, 0};
    float UV[5 * 2] = {0, 0, 1, 0, 0, 1, 0.5f, 0.5f, 0.5f, 0.5f};
    uint32_t idx[6] = {0, 1, 2, 3, 4, 4};
    sf_mesh_desc m = {0};
    m.vertex_count = 5;
    m.triangle_count = 2;
    m.indices = idx;
    m.positions.data = P;
    m.uvs.data = UV;
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    sf_error err;
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, &err));
    sf_topology_stats st;
    sf_topology_get_stats(topo, &st);
    CHECK(st.degenerate_triangles == 1 && st.degenerate_uv_triangles == 1);
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, &err));
    sf_pose pose = {NULL, 0, NULL, 0};
    float n[15], t[20];
    sf_frames_out out = {NULL, n, t};
    CHECK_OK(sf_frames_compute(topo, &pose, SF_METHOD_RECOMPUTE, NULL, ws, &out, &err));
    CHECK_NEAR(n[1], 1.0, 1e-7);
    for (int k = 0; k < 3; ++k) CHECK(n[9 + k] == 0.0f && n[12 + k] == 0.0f && t[12 + k] == 0.0f);
    sf_frames_report rep;
    sf_workspace_last_report(ws, &rep);
    CHECK(rep.degenerate_normals == 2);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
}

static void test_safe_unit_threshold(void)
{
    float tiny[3] = {1e-13f, 0.0f, 0.0f}, small[3] = {2e-12f, 0.0f, 0.0f};
    float a[3] = {1, 1, 1}, b[3] = {0, 0, 0};
    /* |v|^2 = 1e-26 < 1e-24: zero. |v|^2 = 4e-24: unit. Both through the public angle too. */
    CHECK(sf_angle_deg(tiny, a) == 180.0);
    CHECK(sf_angle_deg(small, small) < 1e-6);
    CHECK(sf_angle_deg(a, b) == 180.0);
    float x[3] = {1, 0, 0}, y[3] = {0, 1, 0}, xy[3] = {1, 1, 0};
    CHECK_NEAR(sf_angle_deg(x, y), 90.0, 1e-9);
    CHECK_NEAR(sf_angle_deg(x, xy), 45.0, 1e-6);
    float nx[3] = {-1, 0, 0};
    CHECK_NEAR(sf_angle_deg(x, nx), 180.0, 1e-9);
}

/* The angle against libm's atan2 of |a x b| and a . b in double (an independent formula): every range, the
 * reduction's breakpoints, tiny angles (relative precision) and angles next to 180 degrees. */
static void test_angle_against_libm(void)
{
    uint32_t seed = 12345;
    double worst = 0.0;
    for (int i = 0; i < 200000; ++i) {
        float a[3], b[3];
        for (int k = 0; k < 3; ++k) {
            seed = seed * 1664525u + 1013904223u;
            a[k] = (float)((seed >> 8) * (1.0 / 16777216.0) - 0.5);
        }
        seed = seed * 1664525u + 1013904223u;
        double r = (seed >> 8) * (1.0 / 16777216.0);
        /* b near a, near -a, or anywhere; scaled so lengths differ */
        double spread = i % 4 == 0 ? 1.0 : i % 4 == 1 ? 1e-3 : i % 4 == 2 ? 1e-6 : 2.0;
        for (int k = 0; k < 3; ++k) {
            seed = seed * 1664525u + 1013904223u;
            double jitter = ((seed >> 8) * (1.0 / 16777216.0) - 0.5) * spread;
            b[k] = (float)((i % 4 == 3 ? -a[k] : a[k]) * (0.25 + 4.0 * r) + jitter);
        }
        double d = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
        double cx = (double)a[1] * b[2] - (double)a[2] * b[1];
        double cy = (double)a[2] * b[0] - (double)a[0] * b[2];
        double cz = (double)a[0] * b[1] - (double)a[1] * b[0];
        double want = atan2(sqrt(cx * cx + cy * cy + cz * cz), d) * (180.0 / 3.14159265358979323846);
        double got = sf_angle_deg(a, b);
        double rel = fabs(got - want) / (want > 1e-300 ? want : 1.0);
        if (rel > worst) worst = rel;
    }
    CHECK(worst < 2e-15);
    /* k / 8 breakpoints of the reduction and the swap at 45 degrees, from exact directions */
    for (int k = 0; k <= 16; ++k) {
        double th = k * (3.14159265358979323846 / 16.0);
        float x[3] = {1, 0, 0}, v[3] = {(float)cos(th), (float)sin(th), 0};
        double want = atan2((double)v[1], (double)v[0]) * (180.0 / 3.14159265358979323846);
        CHECK_NEAR(sf_angle_deg(x, v), want, 1e-12);
    }
    float x[3] = {1, 0, 0}, tiny[3] = {1, 1e-7f, 0}, back[3] = {-1, 1e-7f, 0};
    CHECK_NEAR(sf_angle_deg(x, tiny) / (atan2(1e-7f, 1.0) * (180.0 / 3.14159265358979323846)), 1.0, 1e-14);
    CHECK_NEAR(180.0 - sf_angle_deg(x, back), atan2(1e-7f, 1.0) * (180.0 / 3.14159265358979323846), 1e-12);
}

/* Statistics against hand-computed values. */
static void test_angle_stats(void)
{
    float angles[5] = {0.5f, 10.0f, 2.0f, 50.0f, 0.0f};
    sf_angle_stats s;
    sf_error err;
    CHECK_OK(sf_angle_stats_compute(angles, 5, NULL, NULL, &s, &err));
    CHECK(s.count == 5);
    CHECK_NEAR(s.mean, 62.5 / 5.0, 1e-9);
    CHECK_NEAR(s.rms, sqrt((0.25 + 100.0 + 4.0 + 2500.0) / 5.0), 1e-6);
    CHECK_NEAR(s.p50, 2.0, 1e-9);                       /* sorted 0, 0.5, 2, 10, 50 -> position 2 */
    CHECK_NEAR(s.p95, 10.0 + (50.0 - 10.0) * 0.8, 1e-5); /* position 3.8 */
    CHECK_NEAR(s.max, 50.0, 1e-9);
    CHECK_NEAR(s.over_1, 3.0 / 5.0, 1e-12);
    CHECK_NEAR(s.over_5, 2.0 / 5.0, 1e-12);
    CHECK_NEAR(s.over_45, 1.0 / 5.0, 1e-12);
    CHECK_OK(sf_angle_stats_compute(angles, 0, NULL, NULL, &s, &err));
    CHECK(s.count == 0 && s.mean == 0.0);
    angles[1] = NAN;
    CHECK_RESULT(sf_angle_stats_compute(angles, 5, NULL, NULL, &s, &err), SF_ERROR_NOT_FINITE);
    CHECK(err.index == 1);
}

static void test_heatmap_colors(void)
{
    float c[3];
    sf_heatmap_color(0.0, c);
    CHECK(c[0] == 0.0f && c[1] == 1.0f && c[2] == 0.0f);
    sf_heatmap_color(22.5, c);
    CHECK_NEAR(c[0], 1.0, 1e-6);
    CHECK_NEAR(c[1], 1.0, 1e-6);
    sf_heatmap_color(45.0, c);
    CHECK(c[0] == 1.0f && c[1] == 0.0f);
    sf_heatmap_color(170.0, c);
    CHECK(c[0] == 1.0f && c[1] == 0.0f);
}

/* Handedness mismatches and per-vertex flags. */
static void test_direction_errors_flags(void)
{
    grid g;
    grid_init(&g);
    float bones[24];
    identity(bones);
    identity(bones + 12);
    sf_pose pose = {bones, 2, NULL, 0};
    run r;
    CHECK_OK(run_methods(&r, &g.mesh, &pose, NULL));
    float n[27], t[36];
    memcpy(n, r.n[SF_METHOD_SKINNED], sizeof n);
    memcpy(t, r.t[SF_METHOD_SKINNED], sizeof t);
    t[4 * 3 + 3] = -1.0f;                   /* vertex 3: handedness */
    n[3 * 5] = n[3 * 5 + 1] = n[3 * 5 + 2] = 0.0f; /* vertex 5: degenerate */
    n[3 * 6 + 0] = 1.0f;                    /* vertex 6: (1, 1, 0) -> 45 deg */
    t[4 * 7] = 1e-13f, t[4 * 7 + 1] = t[4 * 7 + 2] = 0.0f; /* vertex 7: below the 1e-24 threshold: 180 and flagged */
    sf_frames_out m = {NULL, n, t}, ref = {NULL, r.n[SF_METHOD_RECOMPUTE], r.t[SF_METHOD_RECOMPUTE]};
    float nd[9], td[9];
    uint8_t flags[9];
    sf_error_summary s;
    sf_error err;
    CHECK_OK(sf_direction_errors(r.topo, &m, &ref, nd, td, flags, &s, &err));
    CHECK(s.handedness_mismatches == 1 && flags[3] == SF_VERTEX_HANDEDNESS);
    CHECK(s.degenerate_normals == 1 && (flags[5] & SF_VERTEX_DEGENERATE_NORMAL));
    CHECK_NEAR(nd[6], 45.0, 1e-4);
    CHECK(s.worst_normal_vertex == 5);
    CHECK_NEAR(s.normal.max, 180.0, 1e-9);
    CHECK_NEAR(s.normal.mean, (180.0 + 45.0) / 9.0, 1e-4);
    CHECK_NEAR(td[7], 180.0, 1e-9);
    CHECK(s.degenerate_tangents == 1 && (flags[7] & SF_VERTEX_DEGENERATE_TANGENT) && s.degenerate == 2);
    run_free(&r);
}

/* ---------------------------------------------------------------- allocator and threads */

/* Fails the n-th allocation for every n: each failure returns SF_ERROR_OUT_OF_MEMORY and leaks nothing. */
static void test_out_of_memory_sweep(void)
{
    grid g;
    grid_init(&g);
    g.mesh.tangents.data = NULL;
    int successes = 0;
    for (size_t fail_at = 1; fail_at <= 200 && successes == 0; ++fail_at) {
        sft_alloc_counter a = {0};
        a.fail_at = fail_at;
        a.fail_rest = 1;
        sf_env env = sft_counting_env(&a);
        sf_topology* topo = NULL;
        sf_workspace* ws = NULL;
        sf_error err;
        sf_result r = sf_topology_create(&g.mesh, NULL, &env, &topo, &err);
        if (r == SF_OK) r = sf_workspace_create(topo, NULL, &ws, &err);
        if (r == SF_OK) {
            successes++;
            /* frames never allocate */
            size_t before = a.calls;
            float bones[24];
            identity(bones);
            identity(bones + 12);
            sf_pose pose = {bones, 2, NULL, 0};
            float n[27], t[36];
            sf_frames_out out = {NULL, n, t};
            CHECK_OK(sf_frames_compute(topo, &pose, SF_METHOD_RECOMPUTE, NULL, ws, &out, &err));
            CHECK_OK(sf_frames_compute(topo, &pose, SF_METHOD_SKINNED, NULL, ws, &out, &err));
            CHECK(a.calls == before);
        } else {
            CHECK(r == SF_ERROR_OUT_OF_MEMORY);
        }
        sf_workspace_destroy(ws);
        sf_topology_destroy(topo);
        CHECK(a.allocations == a.frees);
    }
    CHECK(successes == 1);
}

/* A parallel-for that runs chunks in reverse order with a tiny grain: results must be bit-identical. */
static void reverse_parallel_for(void* user, size_t count, size_t grain, sf_range_fn* fn, void* ctx)
{
    (void)user;
    grain = grain > 3 ? 3 : grain;
    size_t chunks = (count + grain - 1) / grain;
    for (size_t c = chunks; c-- > 0;) {
        size_t begin = c * grain, end = begin + grain < count ? begin + grain : count;
        fn(ctx, begin, end);
    }
}

static void test_thread_independence(void)
{
    grid g;
    grid_init(&g);
    float bones[24];
    const float axis[3] = {0.6f, 0.0f, 0.8f}, t0[3] = {0.1f, 0.2f, 0.3f};
    identity(bones);
    rotation(bones + 12, axis, 0.9f, t0);
    sf_pose pose = {bones, 2, NULL, 0};
    sf_env env = {{NULL, NULL, NULL}, {reverse_parallel_for, NULL}};
    /* Every method; recompute under every weighting, weld, tangent mode and reference as well. */
    for (int k = 0; k < SF_METHOD_COUNT + 36; ++k) {
        sf_method m = k < SF_METHOD_COUNT ? (sf_method)k : SF_METHOD_RECOMPUTE;
        sf_frames_opts opts = {0};
        if (k >= SF_METHOD_COUNT) {
            int c = k - SF_METHOD_COUNT;
            opts.weighting = (sf_weighting)(c % 3);
            opts.weld = (sf_weld)(c / 3 % 3);
            opts.tangents = (sf_tangent_mode)(c / 9 % 2);
            opts.reference = (sf_reference)(c / 18);
        }
        float n1[27], t1[36], n2[27], t2[36];
        sf_topology *ta = NULL, *tb = NULL;
        sf_workspace *wa = NULL, *wb = NULL;
        sf_error err;
        CHECK_OK(sf_topology_create(&g.mesh, NULL, NULL, &ta, &err));
        CHECK_OK(sf_topology_create(&g.mesh, NULL, &env, &tb, &err));
        CHECK_OK(sf_workspace_create(ta, NULL, &wa, &err));
        CHECK_OK(sf_workspace_create(tb, NULL, &wb, &err));
        sf_frames_out o1 = {NULL, n1, t1}, o2 = {NULL, n2, t2};
        CHECK_OK(sf_frames_compute(ta, &pose, m, &opts, wa, &o1, &err));
        CHECK_OK(sf_frames_compute(tb, &pose, m, &opts, wb, &o2, &err));
        if (memcmp(n1, n2, sizeof n1) != 0 || memcmp(t1, t2, sizeof t1) != 0)
            sft_failf(__FILE__, __LINE__, "case %d (method %s, weighting %d, weld %d, tangents %d, reference %d)",
                      k, sf_method_name(m), (int)opts.weighting, (int)opts.weld, (int)opts.tangents,
                      (int)opts.reference);
        sf_workspace_destroy(wa);
        sf_workspace_destroy(wb);
        sf_topology_destroy(ta);
        sf_topology_destroy(tb);
    }
}

/* Without UVs there is no tangent frame: every method's tangents are zero, even when the mesh supplies
 * tangents (skinframe.h: sf_mesh_desc.uvs). */
static void test_no_uvs_zero_tangents(void)
{
    grid g;
    grid_init(&g);
    g.mesh.uvs.data = NULL; /* tangents stay supplied */
    float bones[24];
    const float axis[3] = {0.0f, 0.0f, 1.0f}, t0[3] = {0.0f, 0.5f, 0.0f};
    identity(bones);
    rotation(bones + 12, axis, 0.5f, t0);
    sf_pose pose = {bones, 2, NULL, 0};
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    sf_error err;
    CHECK_OK(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, &err));
    for (int m = 0; m < SF_METHOD_COUNT; ++m) {
        float n[27], t[36];
        sf_frames_out out = {NULL, n, t};
        CHECK_OK(sf_frames_compute(topo, &pose, (sf_method)m, NULL, ws, &out, &err));
        for (size_t v = 0; v < 9; ++v)
            if (t[4 * v] != 0.0f || t[4 * v + 1] != 0.0f || t[4 * v + 2] != 0.0f)
                sft_failf(__FILE__, __LINE__, "method %s vertex %zu: tangent not zero",
                          sf_method_name((sf_method)m), v);
    }
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
}

static void test_empty_mesh(void)
{
    sf_mesh_desc m = {0};
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    sf_error err;
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, &err));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, &err));
    sf_pose pose = {NULL, 0, NULL, 0};
    sf_frames_out out = {NULL, NULL, NULL};
    CHECK_OK(sf_frames_compute(topo, &pose, SF_METHOD_RECOMPUTE, NULL, ws, &out, &err));
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"result_strings", test_result_strings},
        {"validation_table", test_validation_table},
        {"morph_target_validation", test_morph_target_validation},
        {"weight_normalisation", test_weight_normalisation},
        {"rigid_pose_all_methods_agree", test_rigid_pose_all_methods_agree},
        {"mirrored_bone", test_mirrored_bone},
        {"inverse_transpose_scale", test_inverse_transpose_scale},
        {"translation_slope", test_translation_slope},
        {"singular_matrix", test_singular_matrix},
        {"recompute_matches_independent_gather", test_recompute_matches_independent_gather},
        {"mirrored_uvs", test_mirrored_uvs},
        {"uniform_vs_area_weighting", test_uniform_vs_area_weighting},
        {"collapsed_triangle", test_collapsed_triangle},
        {"safe_unit_threshold", test_safe_unit_threshold},
        {"angle_against_libm", test_angle_against_libm},
        {"angle_stats", test_angle_stats},
        {"heatmap_colors", test_heatmap_colors},
        {"direction_errors_flags", test_direction_errors_flags},
        {"out_of_memory_sweep", test_out_of_memory_sweep},
        {"thread_independence", test_thread_independence},
        {"no_uvs_zero_tangents", test_no_uvs_zero_tangents},
        {"empty_mesh", test_empty_mesh},
    };
    return SFT_RUN(cases, argc, argv);
}

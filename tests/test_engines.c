// LABELS: unit
/* What engines do: bone-normal-matrices against closed forms (where it differs from inverse-transpose and where
 * it must not), influence and morph-target truncation, the evaluation of a truncated deformation against the
 * full one. */
#include "sf_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- a triangle with three influences */

/* One triangle in the z = 0 plane whose three vertices carry the same normal n and weights (0.5, 0.3, 0.2) over
 * three bones: every vertex sees the same blend, so each method's normal has a closed form. */
typedef struct tri {
    float positions[9], normals[9], tangents[12], uvs[6];
    uint32_t indices[3];
    uint32_t joints[9];
    float weights[9];
    sf_mesh_desc mesh;
} tri;

static const float TRI_W[3] = {0.5f, 0.3f, 0.2f};

static void tri_init(tri* t, const float n[3])
{
    memset(t, 0, sizeof *t);
    static const float p[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    static const float uv[6] = {0, 0, 1, 0, 0, 1};
    memcpy(t->positions, p, sizeof p);
    memcpy(t->uvs, uv, sizeof uv);
    float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int v = 0; v < 3; ++v) {
        for (int c = 0; c < 3; ++c) t->normals[3 * v + c] = n[c] / len;
        t->tangents[4 * v] = 1.0f;
        t->tangents[4 * v + 3] = 1.0f;
        t->indices[v] = (uint32_t)v;
        for (int i = 0; i < 3; ++i) {
            t->joints[3 * v + i] = (uint32_t)i;
            t->weights[3 * v + i] = TRI_W[i];
        }
    }
    sf_mesh_desc* m = &t->mesh;
    m->vertex_count = 3;
    m->triangle_count = 1;
    m->indices = t->indices;
    m->positions.data = t->positions;
    m->normals.data = t->normals;
    m->tangents.data = t->tangents;
    m->uvs.data = t->uvs;
    m->influence_count = 3;
    m->joints = t->joints;
    m->weights = t->weights;
    m->bone_count = 3;
}

static void diag_bone(float m[12], float a, float b, float c, float tx)
{
    memset(m, 0, 12 * sizeof(float));
    m[0] = a;
    m[4] = b;
    m[8] = c;
    m[9] = tx;
}

/* Rotation by angle about z, then translation tx. */
static void rot_z_bone(float m[12], float angle, float tx)
{
    memset(m, 0, 12 * sizeof(float));
    m[0] = cosf(angle);
    m[1] = sinf(angle);
    m[3] = -sinf(angle);
    m[4] = cosf(angle);
    m[8] = 1.0f;
    m[9] = tx;
}

static void unit3(double v[3])
{
    double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int c = 0; c < 3; ++c) v[c] /= l;
}

/* The normal of vertex 0 under method for bones (3 of them). */
static void method_normal(const tri* t, const float* bones, sf_method method, float out[3])
{
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    sf_error err;
    CHECK_OK(sf_topology_create(&t->mesh, NULL, NULL, &topo, &err));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, &err));
    float normals[9], tangents[12];
    sf_frames_out out_f = {NULL, normals, tangents};
    sf_pose pose = {bones, 3, NULL, 0};
    CHECK_OK(sf_frames_compute(topo, &pose, method, NULL, ws, &out_f, &err));
    memcpy(out, normals, 3 * sizeof(float));
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
}

static double angle_to(const float a[3], const double b[3])
{
    double d = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) /
               sqrt((double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2]);
    if (d > 1.0) d = 1.0;
    return acos(d) * 180.0 / SFT_PI;
}

static void test_bone_normal_matrices_scale_differs(void)
{
    /* Bones scaling differently along different axes: cof(diag(a,b,c)) = diag(bc, ac, ab), so
     * bone-normal-matrices is unit(sum w_i diag(b_i c_i, a_i c_i, a_i b_i) n), while inverse-transpose is
     * unit(diag(1/A, 1/B, 1/C) n) with (A, B, C) the blended scales. */
    const float s[3][3] = {{2, 1, 1}, {1, 3, 1}, {1, 1, 0.5f}};
    float bones[36];
    for (int i = 0; i < 3; ++i) diag_bone(bones + 12 * i, s[i][0], s[i][1], s[i][2], (float)i);
    const float n[3] = {1, 1, 1};
    tri t;
    tri_init(&t, n);
    double want_bnm[3] = {0, 0, 0}, blend[3] = {0, 0, 0};
    for (int i = 0; i < 3; ++i) {
        want_bnm[0] += TRI_W[i] * s[i][1] * s[i][2];
        want_bnm[1] += TRI_W[i] * s[i][0] * s[i][2];
        want_bnm[2] += TRI_W[i] * s[i][0] * s[i][1];
        for (int c = 0; c < 3; ++c) blend[c] += TRI_W[i] * s[i][c];
    }
    double want_it[3] = {1.0 / blend[0], 1.0 / blend[1], 1.0 / blend[2]};
    unit3(want_bnm);
    unit3(want_it);
    float bnm[3], it[3];
    method_normal(&t, bones, SF_METHOD_BONE_NORMAL_MATRICES, bnm);
    method_normal(&t, bones, SF_METHOD_INVERSE_TRANSPOSE, it);
    CHECK(angle_to(bnm, want_bnm) < 1e-3);
    CHECK(angle_to(it, want_it) < 1e-3);
    /* the two closed forms are 4.9 degrees apart here: the test tells the methods apart */
    CHECK(angle_to(bnm, want_it) > 4.0);
}

static void test_bone_normal_matrices_equal_cases(void)
{
    const float n[3] = {0.3f, -0.5f, 1.0f};
    tri t;
    tri_init(&t, n);
    float bones[36], a[3], b[3];
    double want[3];
    /* The same non-uniform scale on every bone (translations differ): the blend of cofactors is the cofactor of
     * the blend, so bone-normal-matrices equals inverse-transpose. */
    for (int i = 0; i < 3; ++i) diag_bone(bones + 12 * i, 2.0f, 0.5f, 3.0f, 1.0f + (float)i);
    method_normal(&t, bones, SF_METHOD_BONE_NORMAL_MATRICES, a);
    method_normal(&t, bones, SF_METHOD_INVERSE_TRANSPOSE, b);
    for (int c = 0; c < 3; ++c) want[c] = b[c];
    CHECK(angle_to(a, want) < 1e-4);
    /* Rigid bones: cof(R) = R, so it is the skinned normal (sum w_i R_i n). */
    for (int i = 0; i < 3; ++i) rot_z_bone(bones + 12 * i, 0.4f * (float)i, (float)i);
    method_normal(&t, bones, SF_METHOD_BONE_NORMAL_MATRICES, a);
    method_normal(&t, bones, SF_METHOD_SKINNED, b);
    for (int c = 0; c < 3; ++c) want[c] = b[c];
    CHECK(angle_to(a, want) < 1e-4);
}

/* ---------------------------------------------------------------- truncation */

static void test_influences_truncate(void)
{
    /* vertex 0: keep slots 1 and 3 (0.4, 0.3), renormalised by 0.7; vertex 1: a tie keeps the earlier slot;
     * vertex 2: two nonzero weights, nothing dropped. */
    const uint32_t joints[12] = {7, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7, 8};
    const float weights[12] = {0.1f, 0.4f, 0.2f, 0.3f, 0.25f, 0.25f, 0.25f, 0.25f, 0.0f, 3.0f, 0.0f, 1.0f};
    uint32_t oj[6];
    float ow[6];
    size_t truncated = 99;
    sf_error err;
    CHECK_OK(sf_influences_truncate(3, 4, joints, weights, 2, oj, ow, &truncated, &err));
    CHECK(truncated == 2);
    CHECK(oj[0] == 8 && oj[1] == 10);
    CHECK_NEAR(ow[0], 0.4 / 0.7, 1e-6);
    CHECK_NEAR(ow[1], 0.3 / 0.7, 1e-6);
    CHECK(oj[2] == 1 && oj[3] == 2);
    CHECK_NEAR(ow[2], 0.5, 1e-6);
    CHECK(oj[4] == 6 && oj[5] == 8);
    CHECK_NEAR(ow[4], 0.75, 1e-6);
    CHECK_NEAR(ow[5], 0.25, 1e-6);
    /* counting only; a limit above the slots copies (normalised) */
    CHECK_OK(sf_influences_truncate(3, 4, joints, weights, 4, NULL, NULL, &truncated, &err));
    CHECK(truncated == 0);
    CHECK_OK(sf_influences_truncate(3, 4, joints, weights, 3, NULL, NULL, &truncated, &err));
    CHECK(truncated == 2);
    /* errors name what is wrong */
    CHECK_RESULT(sf_influences_truncate(3, 4, joints, weights, 0, oj, ow, NULL, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.field, "max_influences") == 0);
    CHECK_RESULT(sf_influences_truncate(3, 4, joints, weights, 2, oj, NULL, NULL, &err), SF_ERROR_INVALID_ARGUMENT);
    float bad[12];
    memcpy(bad, weights, sizeof bad);
    bad[5] = -1.0f;
    CHECK_RESULT(sf_influences_truncate(3, 4, joints, bad, 2, oj, ow, NULL, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.field, "weights") == 0 && err.index == 1);
}

static void test_morph_weights_truncate(void)
{
    float w[5] = {0.2f, -0.9f, 0.5f, 0.5f, 0.0f}, out[5];
    CHECK(sf_morph_weights_truncate(w, 5, 2, out) == 2);
    const float want[5] = {0.0f, -0.9f, 0.5f, 0.0f, 0.0f}; /* magnitude; the tie keeps the lower index */
    CHECK(memcmp(out, want, sizeof want) == 0);
    CHECK(sf_morph_weights_truncate(w, 5, 5, out) == 0 && memcmp(out, w, sizeof w) == 0);
    CHECK(sf_morph_weights_truncate(w, 5, 1, w) == 3); /* in place */
    CHECK(w[1] == -0.9f && w[0] == 0.0f && w[2] == 0.0f && w[3] == 0.0f);
}

/* ---------------------------------------------------------------- a truncated deformation against the full */

static void test_run_against(void)
{
    /* Bones translate only (x by 0, 1, 2): the full position is p + (0.5*0 + 0.3*1 + 0.2*2, 0, 0) = p + 0.7 x;
     * kept to 2 influences (0.5, 0.3 -> 0.625, 0.375) it is p + 0.375 x: 0.325 apart at every vertex. Directions
     * do not change under translations: every per-vertex method's angles are 0 against the full reference. */
    const float n[3] = {0, 0, 1};
    tri t;
    tri_init(&t, n);
    float bones[36];
    for (int i = 0; i < 3; ++i) diag_bone(bones + 12 * i, 1, 1, 1, (float)i);
    sf_error err;
    sf_topology *full = NULL, *cut = NULL;
    CHECK_OK(sf_topology_create(&t.mesh, NULL, NULL, &full, &err));
    uint32_t oj[6];
    float ow[6];
    size_t truncated = 0;
    CHECK_OK(sf_influences_truncate(3, 3, t.joints, t.weights, 2, oj, ow, &truncated, &err));
    CHECK(truncated == 3);
    sf_mesh_desc m2 = t.mesh;
    m2.influence_count = 2;
    m2.joints = oj;
    m2.weights = ow;
    CHECK_OK(sf_topology_create(&m2, NULL, NULL, &cut, &err));
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    sf_evaluation *ef = NULL, *ec = NULL;
    CHECK_OK(sf_evaluation_create(full, &desc, NULL, &ef, &err));
    CHECK_OK(sf_evaluation_create(cut, &desc, NULL, &ec, &err));
    sf_workspace *wf = NULL, *wc = NULL;
    CHECK_OK(sf_workspace_create(full, NULL, &wf, &err));
    CHECK_OK(sf_workspace_create(cut, NULL, &wc, &err));
    sf_pose pose = {bones, 3, NULL, 0};
    /* before the reference has run */
    CHECK_RESULT(sf_evaluation_run_against(ec, ef, &pose, wc, NULL, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK_OK(sf_evaluation_run(ef, &pose, wf, NULL, &err));
    CHECK_OK(sf_evaluation_run_against(ec, ef, &pose, wc, NULL, &err));
    const sf_eval_results* res = sf_evaluation_results(ec);
    CHECK(res->row_count == SF_METHOD_DEFAULT_COUNT);
    for (size_t k = 0; k < res->row_count; ++k) {
        const sf_eval_row* row = &res->rows[k];
        CHECK(row->status == SF_OK);
        CHECK_NEAR(row->position.max, 0.325, 1e-6);
        CHECK_NEAR(row->position.mean, 0.325, 1e-6);
        CHECK(row->position.count == 3);
        CHECK_NEAR(row->position.diagonal, sqrt(2.0), 1e-6);
        if (row->method == SF_METHOD_UNCHANGED) continue;
        CHECK(row->errors.normal.max < 1e-3);
    }
    CHECK_NEAR(res->positions[0], 0.375, 1e-6);
    /* The full evaluation's own rows carry no position error. */
    CHECK(sf_evaluation_row(ef, SF_METHOD_SKINNED)->position.max == 0.0);
    /* Against itself (the same topology, the same pose): the rows equal sf_evaluation_run's, bit for bit. */
    sf_evaluation* e2 = NULL;
    CHECK_OK(sf_evaluation_create(full, &desc, NULL, &e2, &err));
    sf_workspace* w2 = NULL;
    CHECK_OK(sf_workspace_create(full, NULL, &w2, &err));
    CHECK_OK(sf_evaluation_run_against(e2, ef, &pose, w2, NULL, &err));
    for (size_t k = 0; k < SF_METHOD_COUNT; ++k) {
        const sf_eval_row *a = &sf_evaluation_results(e2)->rows[k], *b = &sf_evaluation_results(ef)->rows[k];
        CHECK(a->errors.normal.mean == b->errors.normal.mean && a->errors.tangent.mean == b->errors.tangent.mean);
        CHECK(a->position.max == 0.0);
    }
    /* Another mesh is refused, naming the reference. */
    tri t3;
    tri_init(&t3, n);
    t3.mesh.triangle_count = 0;
    sf_topology* other = NULL;
    sf_evaluation* eo = NULL;
    sf_workspace* wo = NULL;
    CHECK_OK(sf_topology_create(&t3.mesh, NULL, NULL, &other, &err));
    CHECK_OK(sf_evaluation_create(other, &desc, NULL, &eo, &err));
    CHECK_OK(sf_workspace_create(other, NULL, &wo, &err));
    CHECK_RESULT(sf_evaluation_run_against(eo, ef, &pose, wo, NULL, &err), SF_ERROR_COUNT_MISMATCH);
    CHECK(strcmp(err.field, "reference") == 0);
    sf_workspace_destroy(wo);
    sf_evaluation_destroy(eo);
    sf_topology_destroy(other);
    sf_workspace_destroy(w2);
    sf_evaluation_destroy(e2);
    sf_workspace_destroy(wf);
    sf_workspace_destroy(wc);
    sf_evaluation_destroy(ef);
    sf_evaluation_destroy(ec);
    sf_topology_destroy(full);
    sf_topology_destroy(cut);
}

static void test_morph_directions_normals(void)
{
    /* Normal deltas only: the tangent stays at rest, the normal takes its delta (unchanged method: no bones). */
    const float n[3] = {0, 0, 1};
    tri t;
    tri_init(&t, n);
    float dp[9] = {0}, dn[9], dt[9];
    for (int v = 0; v < 3; ++v) {
        dn[3 * v] = 1.0f, dn[3 * v + 1] = 0.0f, dn[3 * v + 2] = 0.0f;
        dt[3 * v] = 0.0f, dt[3 * v + 1] = 1.0f, dt[3 * v + 2] = 0.0f;
    }
    sf_morph_target_desc target = {"m", dp, dn, dt, NULL, 0};
    t.mesh.targets = &target;
    t.mesh.target_count = 1;
    t.mesh.influence_count = 0;
    t.mesh.bone_count = 0;
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    sf_error err;
    CHECK_OK(sf_topology_create(&t.mesh, NULL, NULL, &topo, &err));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, &err));
    float alpha = 1.0f, normals[9], tangents[12];
    sf_pose pose = {NULL, 0, &alpha, 1};
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    o.morph_directions = SF_MORPH_DIRECTIONS_NORMALS;
    sf_frames_out out = {NULL, normals, tangents};
    CHECK_OK(sf_frames_compute(topo, &pose, SF_METHOD_UNCHANGED, &o, ws, &out, &err));
    CHECK_NEAR(normals[0], sqrt(0.5), 1e-6);
    CHECK_NEAR(normals[2], sqrt(0.5), 1e-6);
    CHECK(tangents[0] == 1.0f && tangents[1] == 0.0f);
    o.morph_directions = SF_MORPH_DIRECTIONS_DELTAS;
    CHECK_OK(sf_frames_compute(topo, &pose, SF_METHOD_UNCHANGED, &o, ws, &out, &err));
    CHECK_NEAR(tangents[1], sqrt(0.5), 1e-6);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"bone_normal_matrices_scale_differs", test_bone_normal_matrices_scale_differs},
        {"bone_normal_matrices_equal_cases", test_bone_normal_matrices_equal_cases},
        {"influences_truncate", test_influences_truncate},
        {"morph_weights_truncate", test_morph_weights_truncate},
        {"run_against", test_run_against},
        {"morph_directions_normals", test_morph_directions_normals},
    };
    return SFT_RUN(cases, argc, argv);
}

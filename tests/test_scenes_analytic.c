// LABELS: unit
/* Closed-form checks on the built-in scenes (issue 2): every method at rest, the ramp's analytic
 * normals, the strip's constant slope, one rigid bone, a mirrored bone, morph targets at weight 1;
 * and the core's edge cases: mirrored UVs, SafeUnit, collapsed triangles. */
#include "sf_kernels.h"
#include "sf_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)

/* A scene with its topology, workspace and one frame's outputs per method. */
typedef struct fixture {
    sf_scene* scene;
    sf_topology* topo;
    sf_workspace* ws;
    size_t n;
    float* pos;
    float* nrm[SF_METHOD_COUNT];
    float* tan[SF_METHOD_COUNT];
} fixture;

static void fixture_free(fixture* f)
{
    for (int m = 0; m < SF_METHOD_COUNT; ++m) free(f->nrm[m]), free(f->tan[m]);
    free(f->pos);
    sf_workspace_destroy(f->ws);
    sf_topology_destroy(f->topo);
    sf_scene_destroy(f->scene);
    memset(f, 0, sizeof *f);
}

/* Builds scene/preset with settings and its topology; returns 0 on failure (after reporting). */
static int fixture_make(fixture* f, const char* scene, const char* preset, const sf_scene_setting* s, size_t ns)
{
    memset(f, 0, sizeof *f);
    sf_error err;
    if (sf_scene_create(scene, preset, s, ns, NULL, &f->scene, &err) != SF_OK) {
        sft_failf(__FILE__, __LINE__, "scene %s/%s: %s", scene, preset ? preset : "", err.message);
        return 0;
    }
    if (sf_topology_create(&f->scene->mesh, NULL, NULL, &f->topo, &err) != SF_OK ||
        sf_workspace_create(f->topo, NULL, &f->ws, &err) != SF_OK) {
        sft_failf(__FILE__, __LINE__, "topology of %s/%s: %s", scene, preset ? preset : "", err.message);
        return 0;
    }
    f->n = f->scene->mesh.vertex_count;
    f->pos = calloc(3 * f->n, sizeof(float));
    for (int m = 0; m < SF_METHOD_COUNT; ++m) {
        f->nrm[m] = calloc(3 * f->n, sizeof(float));
        f->tan[m] = calloc(4 * f->n, sizeof(float));
    }
    return 1;
}

/* Computes method m on pose (the scene's pose when NULL) with the scene's reference weighting. */
static sf_result fixture_run(fixture* f, const sf_pose* pose, sf_method m, sf_morph_directions dirs)
{
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    o.weighting = f->scene->reference_weighting;
    o.morph_directions = dirs;
    sf_frames_out out = {f->pos, f->nrm[m], f->tan[m]};
    return sf_frames_compute(f->topo, pose ? pose : &f->scene->pose, m, &o, f->ws, &out, NULL);
}

static sf_error_summary errors_vs_reference(fixture* f, sf_method m)
{
    sf_error_summary s;
    memset(&s, 0, sizeof s);
    sf_frames_out a = {NULL, f->nrm[m], f->tan[m]}, ref = {NULL, f->nrm[SF_METHOD_RECOMPUTE], f->tan[SF_METHOD_RECOMPUTE]};
    sf_direction_errors(f->topo, &a, &ref, NULL, NULL, NULL, &s, NULL);
    return s;
}

static double angle3(const float* a, const double* b)
{
    float bf[3] = {(float)b[0], (float)b[1], (float)b[2]};
    return sf_angle_deg(a, bf);
}

/* ---------------------------------------------------------------- scenes at rest and posed */

static const sf_method per_vertex_methods[] = {SF_METHOD_UNCHANGED, SF_METHOD_SKINNED, SF_METHOD_INVERSE_TRANSPOSE};

static void test_rest_every_method_exact(void)
{
    for (size_t i = 0; i < sf_scene_count(); ++i) {
        const sf_scene_info* info = sf_scene_info_at(i);
        fixture f;
        if (!fixture_make(&f, info->name, NULL, NULL, 0)) return;
        CHECK_OK(fixture_run(&f, NULL, SF_METHOD_RECOMPUTE, SF_MORPH_DIRECTIONS_DELTAS));
        for (size_t k = 0; k < 3; ++k) {
            CHECK_OK(fixture_run(&f, NULL, per_vertex_methods[k], SF_MORPH_DIRECTIONS_DELTAS));
            sf_error_summary s = errors_vs_reference(&f, per_vertex_methods[k]);
            if (!(s.normal.max < 1e-3 && s.tangent.max < 1e-3 && s.handedness_mismatches == 0 && s.degenerate == 0)) {
                sft_failf(__FILE__, __LINE__, "%s at rest, %s: normal max %g, tangent max %g, w %zu, degenerate %zu",
                          info->name, sf_method_name(per_vertex_methods[k]), s.normal.max, s.tangent.max,
                          s.handedness_mismatches, s.degenerate);
                fixture_free(&f);
                return;
            }
            CHECK(s.tangent.count == f.n); /* every scene has a tangent frame */
        }
        fixture_free(&f);
    }
}

static void test_every_preset_builds_and_deforms(void)
{
    for (size_t i = 0; i < sf_scene_count(); ++i) {
        const sf_scene_info* info = sf_scene_info_at(i);
        for (size_t p = 0; p < info->preset_count; ++p) {
            fixture f;
            if (!fixture_make(&f, info->name, info->presets[p].name, NULL, 0)) return;
            CHECK_OK(fixture_run(&f, NULL, SF_METHOD_RECOMPUTE, SF_MORPH_DIRECTIONS_DELTAS));
            sf_frames_report rep;
            sf_workspace_last_report(f.ws, &rep);
            CHECK(rep.degenerate_normals == 0 && rep.degenerate_tangents == 0);
            /* Every preset moves something: unchanged differs from the reference somewhere. */
            CHECK_OK(fixture_run(&f, NULL, SF_METHOD_UNCHANGED, SF_MORPH_DIRECTIONS_DELTAS));
            sf_error_summary s = errors_vs_reference(&f, SF_METHOD_UNCHANGED);
            CHECK(s.normal.max > 5.0);
            fixture_free(&f);
        }
    }
}

/* ---------------------------------------------------------------- ramp */

static void check_ramp(double slope_deg, double stretch)
{
    sf_scene_setting s[2] = {{"slope", slope_deg}, {"stretch", stretch}};
    fixture f;
    if (!fixture_make(&f, "ramp", NULL, s, 2)) return;
    CHECK_OK(fixture_run(&f, NULL, SF_METHOD_RECOMPUTE, SF_MORPH_DIRECTIONS_DELTAS));
    CHECK_OK(fixture_run(&f, NULL, SF_METHOD_SKINNED, SF_MORPH_DIRECTIONS_DELTAS));
    CHECK_OK(fixture_run(&f, NULL, SF_METHOD_INVERSE_TRANSPOSE, SF_MORPH_DIRECTIONS_DELTAS));
    /* Stretched surface y = x tan(s) / k: normal (-tan(s) / k, 1, 0). Skinning n = (-sin s, cos s, 0)
     * with diag(k, 1, 1) gives (-k tan s, 1, 0): the wrong lean, off by the difference of the angles. */
    double ts = tan(slope_deg * DEG);
    double exact[3] = {-ts / stretch, 1.0, 0.0};
    double miss = (atan(stretch * ts) - atan(ts / stretch)) / DEG;
    for (size_t v = 0; v < f.n; ++v) {
        CHECK(angle3(f.nrm[SF_METHOD_INVERSE_TRANSPOSE] + 3 * v, exact) < 1e-4);
        CHECK(angle3(f.nrm[SF_METHOD_RECOMPUTE] + 3 * v, exact) < 1e-3);
        float got = (float)sf_angle_deg(f.nrm[SF_METHOD_SKINNED] + 3 * v, f.nrm[SF_METHOD_RECOMPUTE] + 3 * v);
        CHECK_NEAR(got, fabs(miss), 1e-3);
        /* Tangents transform like edges, so skinned tangents are exact here. */
        CHECK(sf_angle_deg(f.tan[SF_METHOD_SKINNED] + 4 * v, f.tan[SF_METHOD_RECOMPUTE] + 4 * v) < 1e-3);
    }
    fixture_free(&f);
}

static void test_ramp_stretch_analytic(void)
{
    /* The preset: slope 30, stretch 2 -> skinned misses by atan(2 tan 30) - atan(tan 30 / 2) = 33.005 deg. */
    fixture f;
    if (!fixture_make(&f, "ramp", "stretch", NULL, 0)) return;
    CHECK_OK(fixture_run(&f, NULL, SF_METHOD_RECOMPUTE, SF_MORPH_DIRECTIONS_DELTAS));
    CHECK_OK(fixture_run(&f, NULL, SF_METHOD_SKINNED, SF_MORPH_DIRECTIONS_DELTAS));
    sf_error_summary s = errors_vs_reference(&f, SF_METHOD_SKINNED);
    CHECK_NEAR(s.normal.mean, 33.0049, 1e-3);
    fixture_free(&f);
    check_ramp(30, 2);
    check_ramp(45, 3);
    check_ramp(60, 0.5);
}

/* ---------------------------------------------------------------- strip */

static void test_strip_linear_weights_slope(void)
{
    const double lift = 0.5, width = 1.0, a = 1.0 - 0.5 * width, b = 1.0 + 0.5 * width;
    fixture f;
    if (!fixture_make(&f, "strip", "lift", NULL, 0)) return;
    CHECK_OK(fixture_run(&f, NULL, SF_METHOD_RECOMPUTE, SF_MORPH_DIRECTIONS_DELTAS));
    CHECK_OK(fixture_run(&f, NULL, SF_METHOD_INVERSE_TRANSPOSE, SF_MORPH_DIRECTIONS_DELTAS));
    const float* rest = f.scene->mesh.positions.data;
    double slope[3] = {-lift / width, 1.0, 0.0}, up[3] = {0, 1, 0};
    double quad = 2.0 / 40.0; /* default resolution 8: 40 quads along the 2-unit length */
    size_t interior = 0;
    for (size_t v = 0; v < f.n; ++v) {
        double x = rest[3 * v];
        /* Inverse transpose: both matrices are identity (translation aside), so the normal stays +y. */
        CHECK(angle3(f.nrm[SF_METHOD_INVERSE_TRANSPOSE] + 3 * v, up) < 1e-6);
        if (x >= a - 1e-6 && x <= b + 1e-6) /* linear weights: final height is lift (x - a) / w */
            CHECK_NEAR(f.pos[3 * v + 1], lift * (x - a) / width, 1e-5);
        if (x - quad >= a - 1e-6 && x + quad <= b + 1e-6) { /* every adjacent face inside [a, b] */
            CHECK(angle3(f.nrm[SF_METHOD_RECOMPUTE] + 3 * v, slope) < 1e-3);
            interior++;
        }
    }
    CHECK(interior == 19 * 9); /* x = 0.55 ... 1.45: 19 columns of 9 vertices */
    /* So the inverse transpose misses the slope by exactly atan(lift / w) = 26.565 deg there. */
    sf_error_summary s = errors_vs_reference(&f, SF_METHOD_INVERSE_TRANSPOSE);
    CHECK_NEAR(s.normal.max, atan(lift / width) / DEG, 1e-3);
    fixture_free(&f);
}

/* ---------------------------------------------------------------- elbow */

static void test_elbow_rigid_parts(void)
{
    /* Away from the joint region each side is rigid: skinned and inverse transpose are exact there. */
    fixture f;
    if (!fixture_make(&f, "elbow", "bend", NULL, 0)) return;
    CHECK_OK(fixture_run(&f, NULL, SF_METHOD_RECOMPUTE, SF_MORPH_DIRECTIONS_DELTAS));
    CHECK_OK(fixture_run(&f, NULL, SF_METHOD_SKINNED, SF_MORPH_DIRECTIONS_DELTAS));
    CHECK_OK(fixture_run(&f, NULL, SF_METHOD_INVERSE_TRANSPOSE, SF_MORPH_DIRECTIONS_DELTAS));
    const float* rest = f.scene->mesh.positions.data;
    double bent[3] = {-1, 0, 0}; /* R_z(90) applied to +y */
    double up[3] = {0, 1, 0};
    double worst_joint = 0.0;
    for (size_t v = 0; v < f.n; ++v) {
        double x = rest[3 * v];
        float e = (float)sf_angle_deg(f.nrm[SF_METHOD_INVERSE_TRANSPOSE] + 3 * v, f.nrm[SF_METHOD_RECOMPUTE] + 3 * v);
        if (x > 0.3) CHECK(angle3(f.nrm[SF_METHOD_RECOMPUTE] + 3 * v, bent) < 1e-3 && e < 1e-3);
        if (x < -0.3) CHECK(angle3(f.nrm[SF_METHOD_RECOMPUTE] + 3 * v, up) < 1e-3 && e < 1e-3);
        if (fabs(x) < 0.25 && e > worst_joint) worst_joint = e;
    }
    CHECK(worst_joint > 5.0); /* and wrong across the joint, where the weights change */
    fixture_free(&f);
}

/* ---------------------------------------------------------------- one matrix for every bone */

/* Poses every bone of the sheet (with its morph weights) by the same matrix m. */
static void pose_all_bones(const fixture* f, const float m[12], float* bones, sf_pose* pose)
{
    *pose = f->scene->pose;
    for (size_t b = 0; b < pose->bone_count; ++b) memcpy(bones + 12 * b, m, 12 * sizeof(float));
    pose->bone_matrices = bones;
}

static void rotation_matrix(double ax, double ay, double az, double angle, double scale_x, float out[12])
{
    /* Rodrigues rotation about the unit axis, then a scale of x (before the rotation), plus a translation. */
    double len = sqrt(ax * ax + ay * ay + az * az);
    double k[3] = {ax / len, ay / len, az / len}, c = cos(angle), s = sin(angle);
    double R[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) R[i][j] = (i == j ? c : 0.0) + (1.0 - c) * k[i] * k[j];
    R[0][1] -= s * k[2], R[0][2] += s * k[1], R[1][0] += s * k[2];
    R[1][2] -= s * k[0], R[2][0] -= s * k[1], R[2][1] += s * k[0];
    for (int col = 0; col < 3; ++col)
        for (int row = 0; row < 3; ++row) out[3 * col + row] = (float)(R[row][col] * (col == 0 ? scale_x : 1.0));
    out[9] = 0.3f, out[10] = -1.2f, out[11] = 2.0f;
}

static void test_one_rigid_bone(void)
{
    const char* scenes[] = {"sheet", "elbow", "strip", "ramp"};
    for (size_t i = 0; i < 4; ++i) {
        fixture f;
        if (!fixture_make(&f, scenes[i], NULL, NULL, 0)) return;
        float m[12], bones[12 * 8];
        rotation_matrix(1, 2, -0.5, 1.1, 1.0, m);
        sf_pose pose;
        CHECK(f.scene->pose.bone_count <= 8);
        pose_all_bones(&f, m, bones, &pose);
        for (int k = 0; k < SF_METHOD_COUNT; ++k) {
            if (k == SF_METHOD_JACOBIAN) continue;
            CHECK_OK(fixture_run(&f, &pose, (sf_method)k, SF_MORPH_DIRECTIONS_DELTAS));
        }
        sf_error_summary s = errors_vs_reference(&f, SF_METHOD_UNCHANGED);
        CHECK(s.normal.mean > 5.0); /* the rest directions are off after the turn */
        for (int k = SF_METHOD_SKINNED; k <= SF_METHOD_INVERSE_TRANSPOSE; ++k) {
            s = errors_vs_reference(&f, (sf_method)k);
            CHECK(s.normal.max < 1e-3 && s.tangent.max < 1e-3 && s.handedness_mismatches == 0);
        }
        fixture_free(&f);
    }
}

static void test_mirrored_bone(void)
{
    const char* scenes[] = {"sheet", "elbow", "ramp"};
    for (size_t i = 0; i < 3; ++i) {
        fixture f;
        if (!fixture_make(&f, scenes[i], NULL, NULL, 0)) return;
        float m[12], bones[12 * 8];
        rotation_matrix(0.3, 1, 0.2, 0.7, -1.0, m); /* det < 0: x mirrored, then rotated */
        CHECK(sfk_mat_det(m) < 0.0f);
        sf_pose pose;
        pose_all_bones(&f, m, bones, &pose);
        const sf_method ms[3] = {SF_METHOD_SKINNED, SF_METHOD_INVERSE_TRANSPOSE, SF_METHOD_RECOMPUTE};
        for (int k = 0; k < 3; ++k) CHECK_OK(fixture_run(&f, &pose, ms[k], SF_MORPH_DIRECTIONS_DELTAS));
        const float* rest_t = f.scene->mesh.tangents.data;
        const float* rest_n = f.scene->mesh.normals.data;
        for (size_t v = 0; v < f.n; ++v) {
            /* The front keeps facing out: A = R S with S = diag(-1, 1, 1), so A^-T = R S = A and the
             * outward normal is A n. */
            float want[3];
            sfk_mat_dir(m, rest_n + 3 * v, want);
            for (int k = 0; k < 3; ++k) {
                CHECK(sf_angle_deg(f.nrm[ms[k]] + 3 * v, want) < 1e-3);
                CHECK(sf_angle_deg(f.tan[ms[k]] + 4 * v, f.tan[SF_METHOD_RECOMPUTE] + 4 * v) < 1e-3);
                CHECK(f.tan[ms[k]][4 * v + 3] == -rest_t[4 * v + 3]);
            }
        }
        fixture_free(&f);
    }
}

/* ---------------------------------------------------------------- morph targets */

static void test_morph_targets_deltas(void)
{
    const sf_scene_info* info = sf_scene_info_find("sheet");
    CHECK(info && info->target_count == 4);
    for (size_t k = 0; k < info->target_count; ++k) {
        sf_scene_setting s[1] = {{info->targets[k], 1.0}};
        fixture f;
        if (!fixture_make(&f, "sheet", NULL, s, 1)) return;
        double err[2], nrm[2];
        for (int d = 0; d < 2; ++d) {
            sf_morph_directions dirs = d ? SF_MORPH_DIRECTIONS_NONE : SF_MORPH_DIRECTIONS_DELTAS;
            CHECK_OK(fixture_run(&f, NULL, SF_METHOD_RECOMPUTE, dirs));
            CHECK_OK(fixture_run(&f, NULL, SF_METHOD_UNCHANGED, dirs));
            sf_error_summary e = errors_vs_reference(&f, SF_METHOD_UNCHANGED);
            err[d] = e.normal.mean + e.tangent.mean;
            nrm[d] = e.normal.mean;
            if (d == 0) CHECK(e.normal.max < 10.0 && e.tangent.max < 10.0);
        }
        /* Numerical-derivative directions of the surface are not the finite mesh's: small, not zero. */
        if (!(err[0] > 1e-3 && err[0] < 2.0 && err[0] < 0.15 * err[1])) {
            sft_failf(__FILE__, __LINE__, "%s: mean error with deltas %g, without %g", info->targets[k], err[0],
                      err[1]);
            fixture_free(&f);
            return;
        }
        if (k == 1) CHECK(nrm[0] < 1e-3 && nrm[1] < 1e-3); /* swirl stays in the plane: normals stay +y */
        fixture_free(&f);
    }
}

/* ---------------------------------------------------------------- core edge cases */

/* A unit quad in the xy plane (normal +z) as two triangles, UV u = x * su, v = y. */
static void quad_mesh(sf_mesh_desc* m, float* P, float* UV, uint32_t* I, float su)
{
    static const float p[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    static const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    memcpy(P, p, sizeof p);
    memcpy(I, idx, sizeof idx);
    for (int v = 0; v < 4; ++v) UV[2 * v] = su * P[3 * v], UV[2 * v + 1] = P[3 * v + 1];
    memset(m, 0, sizeof *m);
    m->vertex_count = 4;
    m->triangle_count = 2;
    m->indices = I;
    m->positions.data = P;
    m->uvs.data = UV;
}

static void test_mirrored_uvs_handedness(void)
{
    /* The article's rule with v up (SF_UV_V_UP): w = sign(cross(n, t) . dP/dv). With u along +x and v along
     * +y on a +z face, (t, dP/dv, n) is right-handed: w = +1. Mirroring u (u = -x) flips t and gives w = -1. */
    for (int mirrored = 0; mirrored < 2; ++mirrored) {
        float P[12], UV[8];
        uint32_t I[6];
        sf_mesh_desc m;
        quad_mesh(&m, P, UV, I, mirrored ? -1.0f : 1.0f);
        m.uv_convention = SF_UV_V_UP;
        sf_topology* topo;
        sf_workspace* ws;
        CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, NULL));
        CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
        float n[12], t[16];
        sf_pose pose = {NULL, 0, NULL, 0};
        sf_frames_out out = {NULL, n, t};
        CHECK_OK(sf_frames_compute(topo, &pose, SF_METHOD_RECOMPUTE, NULL, ws, &out, NULL));
        const float* rest_t = sf_topology_rest_tangents(topo);
        for (int v = 0; v < 4; ++v) {
            CHECK_NEAR(n[3 * v + 2], 1.0, 1e-6);
            CHECK_NEAR(t[4 * v + 0], mirrored ? -1.0 : 1.0, 1e-6);
            CHECK(t[4 * v + 3] == (mirrored ? -1.0f : 1.0f));
            CHECK(rest_t[4 * v + 3] == (mirrored ? -1.0f : 1.0f)); /* generated rest tangents agree */
        }
        sf_workspace_destroy(ws);
        sf_topology_destroy(topo);
    }
}

static void test_safe_unit_threshold(void)
{
    float out[3] = {1, 1, 1};
    float tiny[3] = {1e-13f, 0, 0}; /* |v|^2 = 1e-26 < 1e-24 */
    CHECK(sfk_safe_unit(tiny, out) == 0);
    CHECK(out[0] == 0.0f && out[1] == 0.0f && out[2] == 0.0f);
    float small[3] = {0, 3e-12f, 0}; /* |v|^2 = 9e-24 >= 1e-24 */
    CHECK(sfk_safe_unit(small, out) == 1);
    CHECK_NEAR(out[1], 1.0, 1e-6);
    float zero[3] = {0, 0, 0};
    CHECK(sfk_safe_unit(zero, out) == 0 && out[1] == 0.0f);
}

static void test_collapsed_triangle(void)
{
    /* Triangle 0 is a proper right triangle on the xy plane; triangle 1 (1, 3, 4) lies on the x axis
     * (zero area) but has usable UVs. Vertex 1 must see triangle 0 only; 3 and 4 see nothing. */
    float P[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 2, 0, 0, 3, 0, 0};
    float UV[10] = {0, 0, 1, 0, 0, 1, 0.5f, 0.5f, 0.2f, 0.9f};
    uint32_t I[6] = {0, 1, 2, 1, 3, 4};
    float N[15] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    sf_mesh_desc m;
    memset(&m, 0, sizeof m);
    m.vertex_count = 5;
    m.triangle_count = 2;
    m.indices = I;
    m.positions.data = P;
    m.normals.data = N;
    m.uvs.data = UV;
    sf_topology* topo;
    sf_workspace* ws;
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, NULL));
    sf_topology_stats st;
    sf_topology_get_stats(topo, &st);
    CHECK(st.degenerate_triangles == 1);
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    for (int weighting = SF_WEIGHTING_AREA; weighting <= SF_WEIGHTING_UNIFORM; ++weighting) {
        float n[15], t[20];
        sf_pose pose = {NULL, 0, NULL, 0};
        sf_frames_opts o;
        memset(&o, 0, sizeof o);
        o.weighting = (sf_weighting)weighting;
        sf_frames_out out = {NULL, n, t};
        CHECK_OK(sf_frames_compute(topo, &pose, SF_METHOD_RECOMPUTE, &o, ws, &out, NULL));
        for (int v = 0; v < 3; ++v) {
            CHECK(n[3 * v] == 0.0f && n[3 * v + 1] == 0.0f && n[3 * v + 2] == 1.0f);
            CHECK_NEAR(t[4 * v], 1.0, 1e-6); /* triangle 0's UV tangent, untouched by triangle 1 */
        }
        for (int v = 3; v < 5; ++v) {
            CHECK(n[3 * v] == 0.0f && n[3 * v + 1] == 0.0f && n[3 * v + 2] == 0.0f);
            CHECK(t[4 * v] == 0.0f && t[4 * v + 1] == 0.0f && t[4 * v + 2] == 0.0f);
        }
        sf_frames_report rep;
        sf_workspace_last_report(ws, &rep);
        CHECK(rep.degenerate_normals == 2 && rep.degenerate_tangents == 2);
        /* The error metrics flag them and count them as 180 degrees. */
        float un[15], ut[20], nd[5];
        uint8_t flags[5];
        sf_frames_out unchanged = {NULL, un, ut};
        CHECK_OK(sf_frames_compute(topo, &pose, SF_METHOD_UNCHANGED, &o, ws, &unchanged, NULL));
        sf_error_summary s;
        CHECK_OK(sf_direction_errors(topo, &unchanged, &out, nd, NULL, flags, &s, NULL));
        CHECK(s.degenerate_normals == 2 && s.degenerate == 2);
        CHECK((flags[3] & SF_VERTEX_DEGENERATE_NORMAL) && (flags[4] & SF_VERTEX_DEGENERATE_NORMAL));
        CHECK(!(flags[1] & SF_VERTEX_DEGENERATE_NORMAL));
        CHECK(nd[3] == 180.0f && nd[1] == 0.0f);
    }
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"rest_every_method_exact", test_rest_every_method_exact},
        {"every_preset_builds_and_deforms", test_every_preset_builds_and_deforms},
        {"ramp_stretch_analytic", test_ramp_stretch_analytic},
        {"strip_linear_weights_slope", test_strip_linear_weights_slope},
        {"elbow_rigid_parts", test_elbow_rigid_parts},
        {"one_rigid_bone", test_one_rigid_bone},
        {"mirrored_bone", test_mirrored_bone},
        {"morph_targets_deltas", test_morph_targets_deltas},
        {"mirrored_uvs_handedness", test_mirrored_uvs_handedness},
        {"safe_unit_threshold", test_safe_unit_threshold},
        {"collapsed_triangle", test_collapsed_triangle},
    };
    return SFT_RUN(cases, argc, argv);
}

// LABELS: unit
/* The `jacobian` method: its kernels against closed forms, the whole method against an independent
 * double-precision evaluation on affine fields, the recompute reference (exactness on linear weights,
 * convergence as the grid is refined), mirroring, caps, dropped slots, and the built-in scenes. */
#include "sf_internal.h"
#include "sf_kernels.h"
#include "sf_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* The method the shared tests run: `jacobian`, or `jacobian-fan` for their fan_ variants (FAN_CASE). */
static sf_method g_jac = SF_METHOD_JACOBIAN;

/* ---------------------------------------------------------------- a grid mesh builder */

typedef struct grid {
    size_t nx, ny, n, F;
    float* pos;   /* 3n */
    float* uv;    /* 2n */
    uint32_t* idx; /* 3F */
    uint32_t* joints;
    float* weights;
    uint32_t K;
    float* dp; /* target position deltas, 3n per target */
    size_t targets;
} grid;

/* (nx+1) x (ny+1) vertices over [0, lx] x [0, ly] in the z = 0 plane, counter-clockwise seen from +z. */
static void grid_make(grid* g, size_t nx, size_t ny, float lx, float ly, uint32_t K, size_t targets)
{
    memset(g, 0, sizeof *g);
    g->nx = nx;
    g->ny = ny;
    g->n = (nx + 1) * (ny + 1);
    g->F = 2 * nx * ny;
    g->K = K;
    g->targets = targets;
    g->pos = calloc(3 * g->n, sizeof(float));
    g->uv = calloc(2 * g->n, sizeof(float));
    g->idx = calloc(3 * g->F, sizeof(uint32_t));
    g->joints = calloc(K * g->n + 1, sizeof(uint32_t));
    g->weights = calloc(K * g->n + 1, sizeof(float));
    g->dp = calloc(3 * g->n * targets + 1, sizeof(float));
    for (size_t j = 0; j <= ny; ++j)
        for (size_t i = 0; i <= nx; ++i) {
            size_t v = j * (nx + 1) + i;
            g->pos[3 * v] = lx * (float)i / (float)nx;
            g->pos[3 * v + 1] = ly * (float)j / (float)ny;
            g->uv[2 * v] = (float)i / (float)nx;
            g->uv[2 * v + 1] = (float)j / (float)ny;
        }
    size_t f = 0;
    for (size_t j = 0; j < ny; ++j)
        for (size_t i = 0; i < nx; ++i) {
            uint32_t a = (uint32_t)(j * (nx + 1) + i), b = a + 1, c = a + (uint32_t)(nx + 1), d = c + 1;
            /* Alternate the diagonal so the mesh has no preferred direction. */
            if ((i + j) % 2) {
                uint32_t t[6] = {a, b, d, a, d, c};
                memcpy(g->idx + 3 * f, t, sizeof t);
            } else {
                uint32_t t[6] = {a, b, c, b, d, c};
                memcpy(g->idx + 3 * f, t, sizeof t);
            }
            f += 2;
        }
}

static void grid_free(grid* g)
{
    free(g->pos);
    free(g->uv);
    free(g->idx);
    free(g->joints);
    free(g->weights);
    free(g->dp);
}

static sf_morph_target_desc g_targets[4];

static sf_mesh_desc grid_desc(const grid* g, size_t bone_count)
{
    sf_mesh_desc m;
    memset(&m, 0, sizeof m);
    m.vertex_count = g->n;
    m.triangle_count = g->F;
    m.indices = g->idx;
    m.positions.data = g->pos;
    m.uvs.data = g->uv;
    m.influence_count = g->K;
    m.joints = g->K ? g->joints : NULL;
    m.weights = g->K ? g->weights : NULL;
    m.bone_count = g->K ? bone_count : 0;
    for (size_t k = 0; k < g->targets && k < 4; ++k) {
        memset(&g_targets[k], 0, sizeof g_targets[k]);
        g_targets[k].position_deltas = g->dp + 3 * g->n * k;
    }
    m.targets = g->targets ? g_targets : NULL;
    m.target_count = g->targets;
    return m;
}

/* 12-float bone: rotation by angle about axis (unit) around pivot c, then translation t. */
static void bone_rot(float out[12], const double axis[3], double angle, const double c[3], const double t[3])
{
    double x = axis[0], y = axis[1], z = axis[2], co = cos(angle), si = sin(angle), ic = 1.0 - co;
    double R[3][3] = {{co + x * x * ic, x * y * ic - z * si, x * z * ic + y * si},
                      {y * x * ic + z * si, co + y * y * ic, y * z * ic - x * si},
                      {z * x * ic - y * si, z * y * ic + x * si, co + z * z * ic}};
    for (int col = 0; col < 3; ++col)
        for (int row = 0; row < 3; ++row) out[3 * col + row] = (float)R[row][col];
    for (int row = 0; row < 3; ++row) {
        double rc = R[row][0] * c[0] + R[row][1] * c[1] + R[row][2] * c[2];
        out[9 + row] = (float)(c[row] - rc + t[row]);
    }
}

static void bone_identity(float out[12])
{
    memset(out, 0, 12 * sizeof(float));
    out[0] = out[4] = out[8] = 1.0f;
}

/* Two bones (K = 2): vertex v follows bone 1 with weight w1, bone 0 with the rest. */
static void two_bone_weight(grid* g, size_t v, float w1)
{
    g->joints[2 * v] = 0;
    g->joints[2 * v + 1] = 1;
    g->weights[2 * v] = 1.0f - w1;
    g->weights[2 * v + 1] = w1;
}

/* The strip pose: bone 0 still, bone 1 translated by h along +z (no rotation). */
static void lift_pose(float bones[24], float h)
{
    bone_identity(bones);
    bone_identity(bones + 12);
    bones[12 + 11] = h;
}

/* Frames of one method; buffers owned by the caller (3n normals, 4n tangents). */
static sf_result frames(const sf_topology* topo, sf_workspace* ws, const sf_pose* pose, sf_method m,
                        const sf_frames_opts* o, float* nrm, float* tan)
{
    sf_frames_out out = {NULL, nrm, tan};
    return sf_frames_compute(topo, pose, m, o, ws, &out, NULL);
}

/* Mean normal and tangent error of `method` against recompute. */
static void method_error(const sf_topology* topo, sf_workspace* ws, const sf_pose* pose, sf_method m,
                         const sf_frames_opts* o, sf_error_summary* s)
{
    size_t n = sf_topology_vertex_count(topo);
    float* a = calloc(7 * n, sizeof(float));
    float* r = calloc(7 * n, sizeof(float));
    memset(s, 0, sizeof *s);
    if (frames(topo, ws, pose, m, o, a, a + 3 * n) == SF_OK &&
        frames(topo, ws, pose, SF_METHOD_RECOMPUTE, o, r, r + 3 * n) == SF_OK) {
        sf_frames_out fa = {NULL, a, a + 3 * n}, fr = {NULL, r, r + 3 * n};
        sf_direction_errors(topo, &fa, &fr, NULL, NULL, NULL, s, NULL);
    } else {
        s->normal.mean = 1e9;
    }
    free(a);
    free(r);
}

/* ---------------------------------------------------------------- kernels */

static void test_tangent_basis(void)
{
    const float ns[6][3] = {{0, 0, 1}, {0, 0, -1}, {1, 0, 0}, {0.6f, 0.0f, -0.8f}, {0.48f, -0.6f, 0.64f},
                            {0.0f, 1.0f, 0.0f}};
    for (int i = 0; i < 6; ++i) {
        float u[3], v[3], c[3];
        sfk_tangent_basis(ns[i], u, v);
        sfk_cross(u, v, c);
        CHECK_NEAR(sfk_dot(u, u), 1.0, 1e-6);
        CHECK_NEAR(sfk_dot(v, v), 1.0, 1e-6);
        CHECK_NEAR(sfk_dot(u, v), 0.0, 1e-6);
        for (int k = 0; k < 3; ++k) CHECK_NEAR(c[k], ns[i][k], 1e-6);
    }
    float zero[3] = {0, 0, 0}, u[3], v[3];
    CHECK(sfk_rest_basis(zero, u, v) == 0);
    float n2[3] = {0, 0, 2};
    CHECK(sfk_rest_basis(n2, u, v) == 1);
    CHECK_NEAR(u[0], 1.0, 1e-7);
    CHECK_NEAR(v[1], 1.0, 1e-7);
}

static void test_face_gradient(void)
{
    const float p0[3] = {0.3f, -0.2f, 0.5f}, p1[3] = {1.4f, 0.1f, 0.2f}, p2[3] = {0.1f, 0.9f, 1.1f};
    const float f[3] = {0.2f, 0.9f, -0.4f};
    float a[3], b[3], g[3], e0[3], e1[3], N[3];
    float area2 = sfk_face_gradient_basis(p0, p1, p2, a, b);
    sfk_sub(p1, p0, e0);
    sfk_sub(p2, p0, e1);
    sfk_cross(e0, e1, N);
    CHECK_NEAR(area2, sfk_length(N), 1e-6);
    for (int k = 0; k < 3; ++k) g[k] = (f[1] - f[0]) * a[k] + (f[2] - f[0]) * b[k];
    CHECK_NEAR(sfk_dot(g, e0), f[1] - f[0], 1e-6);
    CHECK_NEAR(sfk_dot(g, e1), f[2] - f[0], 1e-6);
    CHECK_NEAR(sfk_dot(g, N), 0.0, 1e-6);
    /* Degenerate face: no gradient. */
    CHECK(sfk_face_gradient_basis(p0, p1, p0, a, b) == 0.0f);
    CHECK(a[0] == 0.0f && b[2] == 0.0f);
}

static void test_cap_kernel(void)
{
    float c[3] = {3, 4, 0}, base[3] = {0, 0, 10};
    CHECK(sfk_jacobian_cap(c, base, 0.0f) == 0);
    CHECK(sfk_jacobian_cap(c, base, 1.0f) == 0);
    CHECK(sfk_jacobian_cap(c, base, 0.25f) == 1);
    CHECK_NEAR(sfk_length(c), 2.5, 1e-6);
    CHECK_NEAR(c[0] / c[1], 0.75, 1e-6);
}

/* ---------------------------------------------------------------- strip: the article's demo */

/* Two bones; bone 0 still, bone 1 lifted by h along +z; weights w1 = x / L (linear on the whole strip).
 * The final strip is a plane of slope h / L: every normal is exactly (-h/L, 0, 1), every tangent
 * (1, 0, h/L). Inverse transpose stays at +z (error = the slope angle). */
static void test_strip_linear_exact(void)
{
    grid g;
    const float L = 2.0f, h = 0.7f;
    grid_make(&g, 8, 2, L, 0.5f, 2, 0);
    for (size_t v = 0; v < g.n; ++v) {
        float w1 = g.pos[3 * v] / L;
        two_bone_weight(&g, v, w1);
    }
    sf_mesh_desc m = grid_desc(&g, 2);
    float bones[24];
    lift_pose(bones, h);
    sf_pose pose = {bones, 2, NULL, 0};
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, NULL));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    sf_topology_stats st;
    sf_topology_get_stats(topo, &st);
    CHECK(st.gradient_bytes > 0);
    CHECK(st.dropped_gradient_slots == 0);
    float* nj = calloc(7 * g.n, sizeof(float));
    CHECK_OK(frames(topo, ws, &pose, g_jac, NULL, nj, nj + 3 * g.n));
    double s = h / L, len = sqrt(1.0 + s * s);
    for (size_t v = 0; v < g.n; ++v) {
        CHECK_NEAR(nj[3 * v], -s / len, 1e-6);
        CHECK_NEAR(nj[3 * v + 1], 0.0, 1e-6);
        CHECK_NEAR(nj[3 * v + 2], 1.0 / len, 1e-6);
        const float* t = nj + 3 * g.n + 4 * v;
        CHECK_NEAR(t[0], 1.0 / len, 1e-6);
        CHECK_NEAR(t[2], s / len, 1e-6);
        CHECK(t[3] == sf_topology_rest_tangents(topo)[4 * v + 3]); /* det > 0: rest handedness kept */
    }
    sf_error_summary ej, ei;
    method_error(topo, ws, &pose, g_jac, NULL, &ej);
    method_error(topo, ws, &pose, SF_METHOD_INVERSE_TRANSPOSE, NULL, &ei);
    double slope_deg = atan(s) * 180.0 / PI;
    CHECK(ej.normal.max < 1e-3);
    CHECK(ej.tangent.max < 1e-3);
    CHECK_NEAR(ei.normal.mean, slope_deg, 1e-3);
    CHECK_NEAR(ei.normal.max, slope_deg, 1e-3);
    free(nj);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    grid_free(&g);
}

/* A bone that influences a neighbour but not the vertex itself: w1 = max(0, x - x0) / L. The vertex
 * column at x0 has w1 = 0, yet half of its faces (by area, on this symmetric grid) slope, so its
 * jacobian normal must tilt by atan(h / (2 L)); without the neighbour's slot it would stay flat. */
static void test_neighbour_only_bone(void)
{
    grid g;
    const float L = 1.0f, h = 0.8f;
    const size_t nx = 8, i0 = 4;
    grid_make(&g, nx, 4, 2.0f, 1.0f, 2, 0);
    float dx = 2.0f / (float)nx, x0 = dx * (float)i0;
    for (size_t v = 0; v < g.n; ++v) {
        float x = g.pos[3 * v], w1 = x > x0 ? (x - x0) / L : 0.0f;
        two_bone_weight(&g, v, w1);
    }
    sf_mesh_desc m = grid_desc(&g, 2);
    float bones[24];
    lift_pose(bones, h);
    sf_pose pose = {bones, 2, NULL, 0};
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, NULL));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    float* nj = calloc(7 * g.n, sizeof(float));
    CHECK_OK(frames(topo, ws, &pose, g_jac, NULL, nj, nj + 3 * g.n));
    /* Interior vertex of the x0 column: three faces each side with equal total area. */
    size_t v = 2 * (nx + 1) + i0;
    float up[3] = {0, 0, 1};
    double want = atan(h / (2.0 * L)) * 180.0 / PI;
    CHECK_NEAR(sf_angle_deg(nj + 3 * v, up), want, 1e-3);
    CHECK(nj[3 * v] < 0.0f);
    free(nj);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    grid_free(&g);
}

/* ---------------------------------------------------------------- an independent evaluation */

/* Affine weight fields and affine morph deltas on a flat grid: the area-averaged gradients are exact,
 * so the library must match J = B (I + alpha D) + sum_j (A_j x + t_j) grad(w_j)^T evaluated here in
 * double from the closed-form gradients, at every vertex (boundary included). Three bones, two of them
 * rotating, and two targets (one with zero weight) exercise every term. */
static void test_affine_fields_match_closed_form(void)
{
    grid g;
    grid_make(&g, 6, 5, 1.5f, 1.0f, 3, 2);
    /* w1 = 0.1 + 0.3 x + 0.1 y, w2 = 0.1 + 0.2 y, w0 = 1 - w1 - w2 (all positive on the grid). */
    const double G[3][2] = {{-0.3, -0.3}, {0.3, 0.1}, {0.0, 0.2}};
    /* Target 0: d = D0 s (linear), target 1: d = D1 s. */
    const double D[2][3][2] = {{{0.2, -0.1}, {0.05, 0.3}, {0.4, -0.25}}, {{1.0, 0.0}, {0.0, 1.0}, {0.5, 0.5}}};
    for (size_t v = 0; v < g.n; ++v) {
        double x = g.pos[3 * v], y = g.pos[3 * v + 1];
        double w1 = 0.1 + 0.3 * x + 0.1 * y, w2 = 0.1 + 0.2 * y;
        for (uint32_t j = 0; j < 3; ++j) g.joints[3 * v + j] = j;
        g.weights[3 * v] = (float)(1.0 - w1 - w2);
        g.weights[3 * v + 1] = (float)w1;
        g.weights[3 * v + 2] = (float)w2;
        for (int k = 0; k < 2; ++k)
            for (int c = 0; c < 3; ++c) g.dp[3 * g.n * k + 3 * v + c] = (float)(D[k][c][0] * x + D[k][c][1] * y);
    }
    sf_mesh_desc m = grid_desc(&g, 3);
    float bones[36];
    const double ax1[3] = {0, 1, 0}, ax2[3] = {0.6, 0, 0.8}, c1[3] = {0.5, 0.2, 0}, t1[3] = {0.1, -0.2, 0.3},
                 t2[3] = {-0.3, 0.4, 0.2};
    bone_identity(bones);
    bone_rot(bones + 12, ax1, 0.7, c1, t1);
    bone_rot(bones + 24, ax2, -0.5, c1, t2);
    float alpha[2] = {0.6f, 0.0f};
    sf_pose pose = {bones, 3, alpha, 2};
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, NULL));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    float* nj = calloc(7 * g.n, sizeof(float));
    for (int round = 0; round < 2; ++round) {
        if (round == 1) alpha[1] = -0.4f; /* both targets */
        CHECK_OK(frames(topo, ws, &pose, SF_METHOD_JACOBIAN, NULL, nj, nj + 3 * g.n));
        for (size_t v = 0; v < g.n; ++v) {
            double s[3] = {g.pos[3 * v], g.pos[3 * v + 1], 0.0}, x[3];
            /* Columns of J on e_x, e_y (the rest tangent plane; the normal is +z). */
            double J[2][3];
            for (int c = 0; c < 3; ++c) {
                x[c] = s[c];
                for (int k = 0; k < 2; ++k) x[c] += alpha[k] * (D[k][c][0] * s[0] + D[k][c][1] * s[1]);
            }
            double w[3] = {g.weights[3 * v], g.weights[3 * v + 1], g.weights[3 * v + 2]};
            for (int a = 0; a < 2; ++a) {
                double mx[3]; /* (I + alpha D) e_a */
                for (int c = 0; c < 3; ++c) {
                    mx[c] = (c == a);
                    for (int k = 0; k < 2; ++k) mx[c] += alpha[k] * D[k][c][a];
                }
                for (int r = 0; r < 3; ++r) J[a][r] = 0.0;
                for (int j = 0; j < 3; ++j) {
                    const float* b = bones + 12 * j;
                    for (int r = 0; r < 3; ++r) {
                        double Am = b[r] * mx[0] + b[3 + r] * mx[1] + b[6 + r] * mx[2];
                        double px = b[r] * x[0] + b[3 + r] * x[1] + b[6 + r] * x[2] + b[9 + r];
                        J[a][r] += w[j] * Am + px * G[j][a];
                    }
                }
            }
            double N[3] = {J[0][1] * J[1][2] - J[0][2] * J[1][1], J[0][2] * J[1][0] - J[0][0] * J[1][2],
                           J[0][0] * J[1][1] - J[0][1] * J[1][0]};
            double ln = sqrt(N[0] * N[0] + N[1] * N[1] + N[2] * N[2]);
            for (int c = 0; c < 3; ++c) CHECK_NEAR(nj[3 * v + c], N[c] / ln, 2e-5);
            /* Rest tangent is +x: the tangent is J e_x without its normal part. */
            double T[3] = {J[0][0], J[0][1], J[0][2]}, d = 0.0;
            for (int c = 0; c < 3; ++c) d += T[c] * N[c] / ln;
            double to[3], lt = 0.0;
            for (int c = 0; c < 3; ++c) {
                to[c] = T[c] - d * N[c] / ln;
                lt += to[c] * to[c];
            }
            lt = sqrt(lt);
            for (int c = 0; c < 3; ++c) CHECK_NEAR(nj[3 * g.n + 4 * v + c], to[c] / lt, 2e-5);
        }
    }
    free(nj);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    grid_free(&g);
}

/* Affine weight fields and affine morph deltas on a flat grid: every face's posed triangle is then an exact
 * linear image of its rest triangle, so jacobian-fan must match the rest-area average of those face maps,
 * computed here in double from the posed positions themselves (the definition of skinning, not the
 * method's coefficients), at every vertex (boundary included). This is not the continuous Jacobian at the
 * vertex: a face's posed edges are the Jacobian at the edges' midpoints (the secant). Three bones, two of
 * them rotating, and two targets (one with zero weight) exercise every term. */
static void test_fan_affine_fields_match_face_maps(void)
{
    grid g;
    grid_make(&g, 6, 5, 1.5f, 1.0f, 3, 2);
    /* w1 = 0.1 + 0.3 x + 0.1 y, w2 = 0.1 + 0.2 y, w0 = 1 - w1 - w2 (all positive on the grid). */
    /* Target 0: d = D0 s (linear), target 1: d = D1 s. */
    const double D[2][3][2] = {{{0.2, -0.1}, {0.05, 0.3}, {0.4, -0.25}}, {{1.0, 0.0}, {0.0, 1.0}, {0.5, 0.5}}};
    for (size_t v = 0; v < g.n; ++v) {
        double x = g.pos[3 * v], y = g.pos[3 * v + 1];
        double w1 = 0.1 + 0.3 * x + 0.1 * y, w2 = 0.1 + 0.2 * y;
        for (uint32_t j = 0; j < 3; ++j) g.joints[3 * v + j] = j;
        g.weights[3 * v] = (float)(1.0 - w1 - w2);
        g.weights[3 * v + 1] = (float)w1;
        g.weights[3 * v + 2] = (float)w2;
        for (int k = 0; k < 2; ++k)
            for (int c = 0; c < 3; ++c) g.dp[3 * g.n * k + 3 * v + c] = (float)(D[k][c][0] * x + D[k][c][1] * y);
    }
    sf_mesh_desc m = grid_desc(&g, 3);
    float bones[36];
    const double ax1[3] = {0, 1, 0}, ax2[3] = {0.6, 0, 0.8}, c1[3] = {0.5, 0.2, 0}, t1[3] = {0.1, -0.2, 0.3},
                 t2[3] = {-0.3, 0.4, 0.2};
    bone_identity(bones);
    bone_rot(bones + 12, ax1, 0.7, c1, t1);
    bone_rot(bones + 24, ax2, -0.5, c1, t2);
    float alpha[2] = {0.6f, 0.0f};
    sf_pose pose = {bones, 3, alpha, 2};
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, NULL));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    float* nj = calloc(7 * g.n, sizeof(float));
    double* P = calloc(3 * g.n, sizeof(double));
    for (int round = 0; round < 2; ++round) {
        if (round == 1) alpha[1] = -0.4f; /* both targets */
        CHECK_OK(frames(topo, ws, &pose, SF_METHOD_JACOBIAN_FAN, NULL, nj, nj + 3 * g.n));
        /* The posed mesh in double, straight from the definition: x = s + sum alpha d(s), P = sum w (A x + t). */
        for (size_t v = 0; v < g.n; ++v) {
            double s[2] = {g.pos[3 * v], g.pos[3 * v + 1]}, x[3];
            for (int c = 0; c < 3; ++c) {
                x[c] = c < 2 ? s[c] : 0.0;
                for (int k = 0; k < 2; ++k) x[c] += alpha[k] * (D[k][c][0] * s[0] + D[k][c][1] * s[1]);
            }
            for (int r = 0; r < 3; ++r) {
                P[3 * v + r] = 0.0;
                for (int j = 0; j < 3; ++j) {
                    const float* b = bones + 12 * j;
                    P[3 * v + r] += g.weights[3 * v + j] * (b[r] * x[0] + b[3 + r] * x[1] + b[6 + r] * x[2] + b[9 + r]);
                }
            }
        }
        for (size_t v = 0; v < g.n; ++v) {
            /* Each face around v maps its rest spokes (in the xy plane) exactly onto its posed spokes: J_f from
             * [e1 e2] -> [E1 E2]; the method's J is their average weighted by rest area (columns on e_x, e_y). */
            double J[2][3] = {{0, 0, 0}, {0, 0, 0}}, total = 0.0;
            for (size_t f = 0; f < g.F; ++f) {
                const uint32_t* tri = g.idx + 3 * f;
                int c0 = tri[0] == v ? 0 : tri[1] == v ? 1 : tri[2] == v ? 2 : -1;
                if (c0 < 0) continue;
                uint32_t a = tri[(c0 + 1) % 3], b = tri[(c0 + 2) % 3];
                double e1[2] = {g.pos[3 * a] - g.pos[3 * v], g.pos[3 * a + 1] - g.pos[3 * v + 1]};
                double e2[2] = {g.pos[3 * b] - g.pos[3 * v], g.pos[3 * b + 1] - g.pos[3 * v + 1]};
                double d = e1[0] * e2[1] - e1[1] * e2[0]; /* > 0: counter-clockwise */
                for (int r = 0; r < 3; ++r) {
                    double E1 = P[3 * a + r] - P[3 * v + r], E2 = P[3 * b + r] - P[3 * v + r];
                    J[0][r] += E1 * e2[1] - E2 * e1[1]; /* d J_f e_x */
                    J[1][r] += E2 * e1[0] - E1 * e2[0]; /* d J_f e_y */
                }
                total += d;
            }
            for (int a = 0; a < 2; ++a)
                for (int r = 0; r < 3; ++r) J[a][r] /= total;
            double N[3] = {J[0][1] * J[1][2] - J[0][2] * J[1][1], J[0][2] * J[1][0] - J[0][0] * J[1][2],
                           J[0][0] * J[1][1] - J[0][1] * J[1][0]};
            double ln = sqrt(N[0] * N[0] + N[1] * N[1] + N[2] * N[2]);
            for (int c = 0; c < 3; ++c) CHECK_NEAR(nj[3 * v + c], N[c] / ln, 2e-5);
            /* Rest tangent is +x: the tangent is J e_x without its normal part. */
            double T[3] = {J[0][0], J[0][1], J[0][2]}, d = 0.0;
            for (int c = 0; c < 3; ++c) d += T[c] * N[c] / ln;
            double to[3], lt = 0.0;
            for (int c = 0; c < 3; ++c) {
                to[c] = T[c] - d * N[c] / ln;
                lt += to[c] * to[c];
            }
            lt = sqrt(lt);
            for (int c = 0; c < 3; ++c) CHECK_NEAR(nj[3 * g.n + 4 * v + c], to[c] / lt, 2e-5);
        }
    }
    free(P);
    free(nj);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    grid_free(&g);
}

/* jacobian-fan at rest returns the authored frame bit for bit, also where the authored normals differ from
 * the fan's rest plane (they carry the offset); under a rigid motion it rotates them with the bone. A bumpy
 * grid with authored normals tilted 10 degrees off the geometry. */
static void test_fan_rest_is_authored(void)
{
    grid g;
    grid_make(&g, 10, 8, 1.0f, 0.8f, 1, 0);
    float* nrm = calloc(3 * g.n, sizeof(float));
    for (size_t v = 0; v < g.n; ++v) {
        double x = g.pos[3 * v], y = g.pos[3 * v + 1];
        g.pos[3 * v + 2] = (float)(0.05 * sin(6.0 * x) * cos(5.0 * y));
        g.weights[v] = 1.0f;
        nrm[3 * v] = (float)sin(10.0 * PI / 180.0);
        nrm[3 * v + 2] = (float)cos(10.0 * PI / 180.0);
    }
    sf_mesh_desc m = grid_desc(&g, 1);
    m.normals.data = nrm;
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, NULL));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    float bone[12];
    bone_identity(bone);
    sf_pose pose = {bone, 1, NULL, 0};
    float* a = calloc(7 * g.n, sizeof(float));
    float* s = calloc(7 * g.n, sizeof(float));
    CHECK_OK(frames(topo, ws, &pose, SF_METHOD_JACOBIAN_FAN, NULL, a, a + 3 * g.n));
    CHECK_OK(frames(topo, ws, &pose, SF_METHOD_SKINNED, NULL, s, s + 3 * g.n));
    CHECK(memcmp(a, s, 7 * g.n * sizeof(float)) == 0);
    const double axis[3] = {0.3, 0.4, 0.866}, c[3] = {0.5, 0.4, 0}, t[3] = {0.2, -0.1, 0.3};
    bone_rot(bone, axis, 0.9, c, t);
    CHECK_OK(frames(topo, ws, &pose, SF_METHOD_JACOBIAN_FAN, NULL, a, a + 3 * g.n));
    CHECK_OK(frames(topo, ws, &pose, SF_METHOD_SKINNED, NULL, s, s + 3 * g.n));
    for (size_t v = 0; v < g.n; ++v) {
        CHECK(sf_angle_deg(a + 3 * v, s + 3 * v) < 1e-3);
        CHECK(sf_angle_deg(a + 3 * g.n + 4 * v, s + 3 * g.n + 4 * v) < 1e-3);
    }
    free(a);
    free(s);
    free(nrm);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    grid_free(&g);
}

/* ---------------------------------------------------------------- morph targets alone */

/* No skinning; one target lifting z by c x: the morphed strip is a plane of slope alpha c. The skinned
 * method with no normal deltas keeps +z; the jacobian follows the plane exactly at any weight. */
static void test_morph_only_linear(void)
{
    grid g;
    grid_make(&g, 6, 3, 1.0f, 0.5f, 0, 1);
    for (size_t v = 0; v < g.n; ++v) g.dp[3 * v + 2] = 0.9f * g.pos[3 * v];
    sf_mesh_desc m = grid_desc(&g, 0);
    /* Authored normal/tangent deltas (deliberately off): the jacobian must not use them. */
    float* dn = calloc(3 * g.n, sizeof(float));
    for (size_t v = 0; v < g.n; ++v) dn[3 * v] = 0.5f;
    g_targets[0].normal_deltas = dn;
    g_targets[0].tangent_deltas = dn;
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, NULL));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    float* nj = calloc(7 * g.n, sizeof(float));
    const float weights[3] = {0.0f, 0.5f, 1.0f};
    for (int i = 0; i < 3; ++i) {
        float alpha = weights[i];
        sf_pose pose = {NULL, 0, &alpha, 1};
        CHECK_OK(frames(topo, ws, &pose, g_jac, NULL, nj, nj + 3 * g.n));
        double s = 0.9 * alpha, len = sqrt(1.0 + s * s);
        for (size_t v = 0; v < g.n; ++v) {
            CHECK_NEAR(nj[3 * v], -s / len, 1e-6);
            CHECK_NEAR(nj[3 * v + 2], 1.0 / len, 1e-6);
        }
        sf_error_summary e;
        method_error(topo, ws, &pose, g_jac, NULL, &e);
        CHECK(e.normal.max < 1e-3 && e.tangent.max < 1e-3);
        /* Morph directions none or deltas: the same jacobian frames, bit for bit. */
        float* nn = calloc(7 * g.n, sizeof(float));
        sf_frames_opts none = {SF_MORPH_DIRECTIONS_NONE};
        CHECK_OK(frames(topo, ws, &pose, g_jac, &none, nn, nn + 3 * g.n));
        int same = memcmp(nn, nj, 7 * g.n * sizeof(float)) == 0;
        free(nn);
        CHECK(same);
    }
    free(dn);
    free(nj);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    grid_free(&g);
}

/* A sparse target and the same target given densely (zeros elsewhere) give identical frames, including
 * at vertices just outside the sparse set, whose gradient sees the deltas of their neighbours. */
static void test_sparse_equals_dense(void)
{
    grid g;
    grid_make(&g, 10, 10, 1.0f, 1.0f, 0, 1);
    uint32_t* sidx = calloc(g.n, sizeof(uint32_t));
    float* sdp = calloc(3 * g.n, sizeof(float));
    size_t sc = 0;
    for (size_t v = 0; v < g.n; ++v) {
        double x = g.pos[3 * v] - 0.5, y = g.pos[3 * v + 1] - 0.5, r2 = x * x + y * y;
        if (r2 < 0.09) {
            float dz = (float)(0.3 * (0.09 - r2) / 0.09);
            g.dp[3 * v + 2] = dz;
            sidx[sc] = (uint32_t)v;
            sdp[3 * sc + 2] = dz;
            sc++;
        }
    }
    sf_mesh_desc dense = grid_desc(&g, 0);
    sf_morph_target_desc st;
    memset(&st, 0, sizeof st);
    st.position_deltas = sdp;
    st.sparse_indices = sidx;
    st.sparse_count = sc;
    sf_topology *td = NULL, *ts = NULL;
    sf_workspace *wd = NULL, *wsp = NULL;
    CHECK_OK(sf_topology_create(&dense, NULL, NULL, &td, NULL));
    sf_mesh_desc sparse = grid_desc(&g, 0);
    sparse.targets = &st;
    CHECK_OK(sf_topology_create(&sparse, NULL, NULL, &ts, NULL));
    CHECK_OK(sf_workspace_create(td, NULL, &wd, NULL));
    CHECK_OK(sf_workspace_create(ts, NULL, &wsp, NULL));
    float alpha = 0.8f;
    sf_pose pose = {NULL, 0, &alpha, 1};
    float* a = calloc(7 * g.n, sizeof(float));
    float* b = calloc(7 * g.n, sizeof(float));
    CHECK_OK(frames(td, wd, &pose, g_jac, NULL, a, a + 3 * g.n));
    CHECK_OK(frames(ts, wsp, &pose, g_jac, NULL, b, b + 3 * g.n));
    CHECK(memcmp(a, b, 7 * g.n * sizeof(float)) == 0);
    /* And the bump is followed: better than the morphed-delta-free skinned normals by far. */
    sf_error_summary ej, es;
    sf_frames_opts none = {SF_MORPH_DIRECTIONS_NONE};
    method_error(ts, wsp, &pose, g_jac, NULL, &ej);
    method_error(ts, wsp, &pose, SF_METHOD_SKINNED, &none, &es);
    CHECK(ej.normal.mean * 5.0 < es.normal.mean);
    free(a);
    free(b);
    free(sidx);
    free(sdp);
    sf_workspace_destroy(wd);
    sf_workspace_destroy(wsp);
    sf_topology_destroy(td);
    sf_topology_destroy(ts);
    grid_free(&g);
}

/* ---------------------------------------------------------------- conventions */

/* A bumpy sheet under one rigid bone that mirrors (x -> -x) and rotates: J is that bone's matrix, so the
 * jacobian must equal inverse-transpose and the reference (outward normals), with w flipped everywhere. */
static void test_mirror_matches_recompute(void)
{
    grid g;
    grid_make(&g, 12, 12, 1.0f, 1.0f, 1, 0);
    for (size_t v = 0; v < g.n; ++v) {
        double x = g.pos[3 * v], y = g.pos[3 * v + 1];
        g.pos[3 * v + 2] = (float)(0.1 * sin(5.0 * x) * cos(4.0 * y));
        g.weights[v] = 1.0f;
    }
    sf_mesh_desc m = grid_desc(&g, 1);
    const double axis[3] = {0, 0, 1}, c[3] = {0, 0, 0}, t[3] = {0.2, 0, 0};
    float bone[12];
    bone_rot(bone, axis, 0.4, c, t);
    for (int r = 0; r < 3; ++r) bone[r] = -bone[r]; /* mirror: negate the first column */
    sf_pose pose = {bone, 1, NULL, 0};
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, NULL));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    float* a = calloc(7 * g.n, sizeof(float));
    float* b = calloc(7 * g.n, sizeof(float));
    float* r = calloc(7 * g.n, sizeof(float));
    float* rest = calloc(7 * g.n, sizeof(float));
    sf_pose rest_pose = {NULL, 1, NULL, 0};
    float ident[12];
    bone_identity(ident);
    rest_pose.bone_matrices = ident;
    CHECK_OK(frames(topo, ws, &rest_pose, SF_METHOD_RECOMPUTE, NULL, rest, rest + 3 * g.n));
    CHECK_OK(frames(topo, ws, &pose, g_jac, NULL, a, a + 3 * g.n));
    sf_frames_report rep;
    sf_workspace_last_report(ws, &rep);
    CHECK(rep.mirrored_vertices == g.n);
    CHECK_OK(frames(topo, ws, &pose, SF_METHOD_INVERSE_TRANSPOSE, NULL, b, b + 3 * g.n));
    CHECK_OK(frames(topo, ws, &pose, SF_METHOD_RECOMPUTE, NULL, r, r + 3 * g.n));
    for (size_t v = 0; v < g.n; ++v) {
        CHECK(sf_angle_deg(a + 3 * v, b + 3 * v) < 1e-2);
        CHECK(sf_angle_deg(a + 3 * v, r + 3 * v) < 1e-2);
        CHECK(sf_angle_deg(a + 3 * g.n + 4 * v, r + 3 * g.n + 4 * v) < 1e-2);
        CHECK(a[3 * g.n + 4 * v + 3] == r[3 * g.n + 4 * v + 3]);
        CHECK(a[3 * g.n + 4 * v + 3] == -rest[3 * g.n + 4 * v + 3]);
    }
    free(a);
    free(b);
    free(r);
    free(rest);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    grid_free(&g);
}

/* Mirroring with a weight gradient: both bones of the lifted strip reflected (x -> -x). The final strip
 * is the mirror image of a plane, so the jacobian (sign(det) J u x J v) must equal the reference exactly
 * (outward normals, handedness flipped) at every vertex, not just where the weights are constant. */
static void test_mirror_with_weight_gradient(void)
{
    grid g;
    const float L = 2.0f;
    grid_make(&g, 8, 2, L, 0.5f, 2, 0);
    for (size_t v = 0; v < g.n; ++v) {
        float w1 = g.pos[3 * v] / L;
        two_bone_weight(&g, v, w1);
    }
    sf_mesh_desc m = grid_desc(&g, 2);
    float bones[24];
    lift_pose(bones, 0.7f);
    for (int b = 0; b < 2; ++b) /* reflect: x' = -x (first row negated, translation too) */
        for (int col = 0; col < 4; ++col) bones[12 * b + 3 * col] = -bones[12 * b + 3 * col];
    sf_pose pose = {bones, 2, NULL, 0};
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, NULL));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    float* a = calloc(7 * g.n, sizeof(float));
    float* r = calloc(7 * g.n, sizeof(float));
    CHECK_OK(frames(topo, ws, &pose, g_jac, NULL, a, a + 3 * g.n));
    CHECK_OK(frames(topo, ws, &pose, SF_METHOD_RECOMPUTE, NULL, r, r + 3 * g.n));
    double s = 0.7 / L, len = sqrt(1.0 + s * s);
    for (size_t v = 0; v < g.n; ++v) {
        /* Mirror of the slope normal (-s, 0, 1)/len: (s, 0, 1)/len. */
        CHECK_NEAR(a[3 * v], s / len, 1e-5);
        CHECK_NEAR(a[3 * v + 2], 1.0 / len, 1e-5);
        CHECK(sf_angle_deg(a + 3 * v, r + 3 * v) < 1e-3);
        CHECK(sf_angle_deg(a + 3 * g.n + 4 * v, r + 3 * g.n + 4 * v) < 1e-3);
        CHECK(a[3 * g.n + 4 * v + 3] == r[3 * g.n + 4 * v + 3]);
        CHECK(a[3 * g.n + 4 * v + 3] == -sf_topology_rest_tangents(topo)[4 * v + 3]);
    }
    free(a);
    free(r);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    grid_free(&g);
}

/* Zero-weight vertices (kept at rest) act as an identity bone: the same as an explicit identity bone. */
static void test_zero_weights_as_identity_bone(void)
{
    grid g0, g1;
    grid_make(&g0, 6, 3, 1.0f, 0.5f, 2, 0);
    grid_make(&g1, 6, 3, 1.0f, 0.5f, 2, 0);
    for (size_t v = 0; v < g0.n; ++v) {
        int at_rest = g0.pos[3 * v] < 0.2f;
        float w = g0.pos[3 * v]; /* bone 0 weight grows along x, bone 1 (identity) takes the rest */
        g0.joints[2 * v] = 0;
        g0.weights[2 * v] = at_rest ? 0.0f : 1.0f;
        g1.joints[2 * v] = 0;
        g1.joints[2 * v + 1] = 1;
        g1.weights[2 * v] = at_rest ? 0.0f : 1.0f;
        g1.weights[2 * v + 1] = at_rest ? 1.0f : 0.0f;
        (void)w;
    }
    sf_mesh_desc m0 = grid_desc(&g0, 2), m1 = grid_desc(&g1, 2);
    m0.zero_weight_policy = SF_ZERO_WEIGHTS_REST;
    float bones[24];
    const double axis[3] = {0, 1, 0}, c[3] = {0.2, 0, 0}, t[3] = {0, 0, 0.1};
    bone_rot(bones, axis, -0.6, c, t);
    bone_identity(bones + 12);
    sf_pose pose = {bones, 2, NULL, 0};
    sf_topology *t0 = NULL, *t1 = NULL;
    sf_workspace *w0 = NULL, *w1 = NULL;
    CHECK_OK(sf_topology_create(&m0, NULL, NULL, &t0, NULL));
    CHECK_OK(sf_topology_create(&m1, NULL, NULL, &t1, NULL));
    CHECK_OK(sf_workspace_create(t0, NULL, &w0, NULL));
    CHECK_OK(sf_workspace_create(t1, NULL, &w1, NULL));
    float* a = calloc(7 * g0.n, sizeof(float));
    float* b = calloc(7 * g0.n, sizeof(float));
    CHECK_OK(frames(t0, w0, &pose, g_jac, NULL, a, a + 3 * g0.n));
    CHECK_OK(frames(t1, w1, &pose, g_jac, NULL, b, b + 3 * g0.n));
    for (size_t v = 0; v < g0.n; ++v) CHECK(sf_angle_deg(a + 3 * v, b + 3 * v) < 1e-3);
    /* And the bend is followed at the zero-weight column's neighbours: not the blended +z. */
    size_t v1 = 1 * (g0.nx + 1) + 1;
    float up[3] = {0, 0, 1};
    CHECK(sf_angle_deg(a + 3 * v1, up) > 5.0);
    free(a);
    free(b);
    sf_workspace_destroy(w0);
    sf_workspace_destroy(w1);
    sf_topology_destroy(t0);
    sf_topology_destroy(t1);
    grid_free(&g0);
    grid_free(&g1);
}

/* A fan: centre on bone 0, each of 20 rim vertices on its own bone. The centre's gradient sees 21 bones,
 * 16 are kept and 5 dropped (counted); every rim vertex sees 4 (itself, two rim neighbours, the centre). */
static void test_dropped_slots_counted(void)
{
    enum { RIM = 20 };
    float pos[3 * (RIM + 1)], uv[2 * (RIM + 1)], w[RIM + 1];
    uint32_t idx[3 * RIM], joints[RIM + 1];
    memset(pos, 0, sizeof pos);
    memset(uv, 0, sizeof uv);
    for (int i = 0; i < RIM; ++i) {
        double a = 2.0 * PI * i / RIM;
        pos[3 * (i + 1)] = (float)cos(a);
        pos[3 * (i + 1) + 1] = (float)sin(a);
        uv[2 * (i + 1)] = 0.5f + 0.5f * (float)cos(a);
        uv[2 * (i + 1) + 1] = 0.5f + 0.5f * (float)sin(a);
        idx[3 * i] = 0;
        idx[3 * i + 1] = (uint32_t)(i + 1);
        idx[3 * i + 2] = (uint32_t)((i + 1) % RIM + 1);
    }
    uv[0] = uv[1] = 0.5f;
    pos[0] = 0.3f; /* off centre, so the centre's own bone has a clearly non-zero gradient too */
    pos[1] = 0.1f;
    for (int i = 0; i <= RIM; ++i) {
        joints[i] = (uint32_t)i;
        w[i] = 1.0f;
    }
    sf_mesh_desc m;
    memset(&m, 0, sizeof m);
    m.vertex_count = RIM + 1;
    m.triangle_count = RIM;
    m.indices = idx;
    m.positions.data = pos;
    m.uvs.data = uv;
    m.influence_count = 1;
    m.joints = joints;
    m.weights = w;
    m.bone_count = RIM + 1;
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, NULL));
    sf_topology_stats st;
    sf_topology_get_stats(topo, &st);
    CHECK(st.dropped_gradient_slots == 5);
    /* 22 offsets x 4 bytes, 16 + 20 x 4 slots x 12 bytes, empty morph CSR: at least this much. */
    CHECK(st.gradient_bytes >= 22 * 4 + (16 + RIM * 4) * 12);
    sfi_gradients_view gv;
    CHECK(sfi_gradients_get(topo, g_jac, &gv) == 1);
    CHECK(gv.slot_offsets[1] - gv.slot_offsets[0] == SFK_JACOBIAN_MAX_SLOTS);
    for (uint32_t v = 1; v <= RIM; ++v) {
        /* Rim vertex v: its own bone, both rim neighbours' bones (weight 0 at v) and the centre's. */
        CHECK(gv.slot_offsets[v + 1] - gv.slot_offsets[v] == 4);
        uint32_t want[4] = {0, v == 1 ? RIM : v - 1, v, v == RIM ? 1 : v + 1};
        for (int a = 0; a < 4; ++a) {
            int found = 0;
            for (uint32_t s = gv.slot_offsets[v]; s < gv.slot_offsets[v + 1]; ++s) found |= gv.slot_joint[s] == want[a];
            CHECK(found);
        }
        for (uint32_t s = gv.slot_offsets[v]; s + 1 < gv.slot_offsets[v + 1]; ++s)
            CHECK(gv.slot_joint[s] < gv.slot_joint[s + 1]); /* ordered by joint */
    }
    CHECK(gv.morph_offsets[RIM + 1] == 0);
    sf_topology_destroy(topo);
    sf_topology_opts skip = {1, 0.0f};
    CHECK_OK(sf_topology_create(&m, &skip, NULL, &topo, NULL));
    sf_topology_get_stats(topo, &st);
    CHECK(st.gradient_bytes == 0);
    CHECK(sfi_gradients_get(topo, g_jac, &gv) == 0 && gv.slot_offsets == NULL);
    sf_workspace* ws = NULL;
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    float bones[12 * (RIM + 1)];
    for (int i = 0; i <= RIM; ++i) bone_identity(bones + 12 * i);
    sf_pose pose = {bones, RIM + 1, NULL, 0};
    float nrm[3 * (RIM + 1)];
    sf_frames_out out = {NULL, nrm, NULL};
    sf_error err;
    CHECK_RESULT(sf_frames_compute(topo, &pose, g_jac, NULL, ws, &out, &err), SF_ERROR_UNSUPPORTED);
    CHECK(strcmp(err.field, "topology") == 0);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
}

/* The Tarini-style cap: off by default; a tiny cap fires on every vertex with a weight gradient and pulls
 * the normal back toward the blend; a huge cap never fires and changes nothing. Bad values are rejected. */
static void test_cap_option(void)
{
    grid g;
    grid_make(&g, 8, 2, 2.0f, 0.5f, 2, 0);
    for (size_t v = 0; v < g.n; ++v) {
        float w1 = g.pos[3 * v] / 2.0f;
        two_bone_weight(&g, v, w1);
    }
    sf_mesh_desc m = grid_desc(&g, 2);
    float bones[24];
    lift_pose(bones, 1.0f);
    sf_pose pose = {bones, 2, NULL, 0};
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, NULL));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    float* a = calloc(7 * g.n, sizeof(float));
    float* b = calloc(7 * g.n, sizeof(float));
    sf_frames_report rep;
    CHECK_OK(frames(topo, ws, &pose, g_jac, NULL, a, a + 3 * g.n));
    sf_workspace_last_report(ws, &rep);
    CHECK(rep.jacobian_capped == 0);
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    o.jacobian_cap = 1e6f;
    CHECK_OK(frames(topo, ws, &pose, g_jac, &o, b, b + 3 * g.n));
    sf_workspace_last_report(ws, &rep);
    CHECK(rep.jacobian_capped == 0);
    CHECK(memcmp(a, b, 7 * g.n * sizeof(float)) == 0);
    /* Slope 0.5: the correction is 0.5 |B u|; a cap of 0.1 limits it to slope 0.1 everywhere. */
    o.jacobian_cap = 0.1f;
    CHECK_OK(frames(topo, ws, &pose, g_jac, &o, b, b + 3 * g.n));
    sf_workspace_last_report(ws, &rep);
    CHECK(rep.jacobian_capped == g.n);
    float up[3] = {0, 0, 1};
    for (size_t v = 0; v < g.n; ++v) CHECK_NEAR(sf_angle_deg(b + 3 * v, up), atan(0.1) * 180.0 / PI, 1e-3);
    /* Another method after a capped jacobian reports no caps. */
    CHECK_OK(frames(topo, ws, &pose, SF_METHOD_SKINNED, &o, b, b + 3 * g.n));
    sf_workspace_last_report(ws, &rep);
    CHECK(rep.jacobian_capped == 0);
    sf_error err;
    sf_frames_out out = {NULL, b, NULL};
    o.jacobian_cap = -1.0f;
    CHECK_RESULT(sf_frames_compute(topo, &pose, g_jac, &o, ws, &out, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.field, "opts.jacobian_cap") == 0);
    o.jacobian_cap = NAN;
    CHECK_RESULT(sf_frames_compute(topo, &pose, g_jac, &o, ws, &out, &err), SF_ERROR_INVALID_ARGUMENT);
    free(a);
    free(b);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    grid_free(&g);
}

/* Results are bit-identical whatever order the parallel-for runs its chunks in. */
static void reverse_parallel_for(void* user, size_t count, size_t grain, sf_range_fn* fn, void* ctx)
{
    (void)user;
    grain = 7; /* small, odd chunks */
    size_t chunks = (count + grain - 1) / grain;
    for (size_t c = chunks; c-- > 0;) {
        size_t begin = c * grain, end = begin + grain < count ? begin + grain : count;
        fn(ctx, begin, end);
    }
}

static void test_thread_order_independent(void)
{
    grid g;
    grid_make(&g, 9, 7, 1.0f, 1.0f, 2, 1);
    for (size_t v = 0; v < g.n; ++v) {
        double x = g.pos[3 * v], y = g.pos[3 * v + 1];
        float w1 = (float)(0.5 + 0.5 * sin(3.0 * x + y));
        two_bone_weight(&g, v, w1);
        g.dp[3 * v + 2] = (float)(0.2 * sin(6.0 * x) * y);
    }
    sf_mesh_desc m = grid_desc(&g, 2);
    sf_env env;
    memset(&env, 0, sizeof env);
    env.threads.parallel_for = reverse_parallel_for;
    float bones[24];
    const double axis[3] = {1, 0, 0}, c[3] = {0.5, 0.5, 0}, t[3] = {0, 0.1, 0};
    bone_identity(bones);
    bone_rot(bones + 12, axis, 0.9, c, t);
    float alpha = 0.7f;
    sf_pose pose = {bones, 2, &alpha, 1};
    sf_topology *ta = NULL, *tb = NULL;
    sf_workspace *wa = NULL, *wb = NULL;
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &ta, NULL));
    CHECK_OK(sf_topology_create(&m, NULL, &env, &tb, NULL));
    CHECK_OK(sf_workspace_create(ta, NULL, &wa, NULL));
    CHECK_OK(sf_workspace_create(tb, NULL, &wb, NULL));
    float* a = calloc(7 * g.n, sizeof(float));
    float* b = calloc(7 * g.n, sizeof(float));
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    o.jacobian_cap = 0.3f;
    CHECK_OK(frames(ta, wa, &pose, g_jac, &o, a, a + 3 * g.n));
    CHECK_OK(frames(tb, wb, &pose, g_jac, &o, b, b + 3 * g.n));
    CHECK(memcmp(a, b, 7 * g.n * sizeof(float)) == 0);
    sf_frames_report ra, rb;
    sf_workspace_last_report(wa, &ra);
    sf_workspace_last_report(wb, &rb);
    CHECK(ra.jacobian_capped == rb.jacobian_capped);
    free(a);
    free(b);
    sf_workspace_destroy(wa);
    sf_workspace_destroy(wb);
    sf_topology_destroy(ta);
    sf_topology_destroy(tb);
    grid_free(&g);
}

/* Degenerate input: a zero-area face, an isolated vertex (zero rest normal), an empty mesh. Outputs are
 * finite; a vertex without a tangent plane gets zero directions (counted as degenerate), never NaN. */
static void test_degenerate_input(void)
{
    const float pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 2, 0, 0, 5, 5, 5};
    const float uv[] = {0, 0, 1, 0, 0, 1, 2, 0, 1, 1};
    const uint32_t idx[] = {0, 1, 2, 0, 1, 3}; /* second face: collinear, zero area */
    const uint32_t joints[] = {0, 1, 0, 1, 1, 0, 0, 1, 0, 1};
    const float weights[] = {1, 0, 0.5f, 0.5f, 1, 0, 0.2f, 0.8f, 1, 0};
    sf_mesh_desc m;
    memset(&m, 0, sizeof m);
    m.vertex_count = 5;
    m.triangle_count = 2;
    m.indices = idx;
    m.positions.data = pos;
    m.uvs.data = uv;
    m.influence_count = 2;
    m.joints = joints;
    m.weights = weights;
    m.bone_count = 2;
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, NULL));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    float bones[24];
    lift_pose(bones, 1.0f);
    sf_pose pose = {bones, 2, NULL, 0};
    float out[35];
    CHECK_OK(frames(topo, ws, &pose, g_jac, NULL, out, out + 15));
    for (int i = 0; i < 35; ++i) CHECK(isfinite(out[i]));
    CHECK(out[12] == 0.0f && out[13] == 0.0f && out[14] == 0.0f); /* isolated vertex 4 */
    sf_frames_report rep;
    sf_workspace_last_report(ws, &rep);
    CHECK(rep.degenerate_normals >= 1);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    /* Empty mesh. */
    sf_mesh_desc e;
    memset(&e, 0, sizeof e);
    CHECK_OK(sf_topology_create(&e, NULL, NULL, &topo, NULL));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    sf_pose none = {NULL, 0, NULL, 0};
    sf_frames_out fo = {NULL, NULL, NULL};
    CHECK_OK(sf_frames_compute(topo, &none, g_jac, NULL, ws, &fo, NULL));
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
}

/* A rest tangent along the normal (MikkTSpace's placeholder on zero-area UVs) has no part in the tangent
 * plane: the jacobian carries it like `skinned` instead of returning a zero tangent. */
static void test_tangent_along_normal(void)
{
    const float pos[] = {0, 0, 0, 1, 0, 0, 0, 0, -1};
    const float nrm[] = {0, 1, 0, 0, 1, 0, 0, 1, 0};
    const float tan[] = {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1};
    const float uv[] = {0, 0, 0, 0, 0, 0}; /* zero UV area */
    const uint32_t idx[] = {0, 1, 2};
    sf_mesh_desc m;
    memset(&m, 0, sizeof m);
    m.vertex_count = 3;
    m.triangle_count = 1;
    m.indices = idx;
    m.positions.data = pos;
    m.normals.data = nrm;
    m.tangents.data = tan;
    m.uvs.data = uv;
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, NULL));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    sf_pose pose = {NULL, 0, NULL, 0};
    float jn[9], jt[12], sn[9], st[12];
    CHECK_OK(frames(topo, ws, &pose, g_jac, NULL, jn, jt));
    CHECK_OK(frames(topo, ws, &pose, SF_METHOD_SKINNED, NULL, sn, st));
    for (int v = 0; v < 3; ++v) {
        CHECK_NEAR(jt[4 * v + 1], 1.0, 1e-6); /* not zero: the skinned placeholder */
        for (int k = 0; k < 4; ++k) CHECK_NEAR(jt[4 * v + k], st[4 * v + k], 1e-6);
    }
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
}

/* Out of memory anywhere in topology, gradient or workspace creation: a clean SF_ERROR_OUT_OF_MEMORY,
 * nothing leaked, and once enough memory is there, the jacobian works. */
static void test_out_of_memory(void)
{
    grid g;
    grid_make(&g, 4, 3, 1.0f, 1.0f, 2, 1);
    for (size_t v = 0; v < g.n; ++v) {
        g.joints[2 * v + 1] = 1;
        g.weights[2 * v] = 1.0f - g.pos[3 * v];
        g.weights[2 * v + 1] = g.pos[3 * v];
        g.dp[3 * v + 2] = 0.1f * g.pos[3 * v + 1];
    }
    sf_mesh_desc m = grid_desc(&g, 2);
    float bones[24];
    bone_identity(bones);
    bone_identity(bones + 12);
    float alpha = 1.0f;
    sf_pose pose = {bones, 2, &alpha, 1};
    int succeeded = 0;
    for (size_t limit = 0; limit < 200 && !succeeded; ++limit) {
        sft_alloc_counter fa = {0};
        fa.fail_at = limit + 1;
        fa.fail_rest = 1;
        sf_env env = sft_counting_env(&fa);
        sf_topology* topo = NULL;
        sf_workspace* ws = NULL;
        sf_result r = sf_topology_create(&m, NULL, &env, &topo, NULL);
        if (r == SF_OK) r = sf_workspace_create(topo, NULL, &ws, NULL);
        CHECK(r == SF_OK || r == SF_ERROR_OUT_OF_MEMORY);
        if (r == SF_OK) {
            float nrm[3 * 20];
            sf_frames_out out = {NULL, nrm, NULL};
            CHECK_OK(sf_frames_compute(topo, &pose, g_jac, NULL, ws, &out, NULL));
            succeeded = 1;
        }
        sf_workspace_destroy(ws);
        sf_topology_destroy(topo);
        CHECK(fa.live == 0);
    }
    CHECK(succeeded);
    grid_free(&g);
}

/* ---------------------------------------------------------------- convergence on our own bend */

/* A strip bent about the y axis at its middle; weights a smoothstep across a blend zone. As the grid
 * doubles, the jacobian's mean normal error against the reference must fall (ratio < 0.6) while
 * inverse-transpose's does not (ratio > 0.8): it misses the weight gradient at every resolution. */
static double bend_error(size_t nx, sf_method method, double* tangent_mean)
{
    grid g;
    grid_make(&g, nx, nx / 4, 2.0f, 0.5f, 2, 0);
    for (size_t v = 0; v < g.n; ++v) {
        double x = g.pos[3 * v], s = (x - 0.6) / 0.8;
        s = s < 0 ? 0 : s > 1 ? 1 : s;
        float w1 = (float)(s * s * (3.0 - 2.0 * s));
        two_bone_weight(&g, v, w1);
    }
    sf_mesh_desc m = grid_desc(&g, 2);
    float bones[24];
    const double axis[3] = {0, 1, 0}, c[3] = {1.0, 0, 0}, t[3] = {0, 0, 0};
    bone_identity(bones);
    bone_rot(bones + 12, axis, -1.2, c, t);
    sf_pose pose = {bones, 2, NULL, 0};
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    sf_error_summary e;
    e.normal.mean = 1e9;
    e.tangent.mean = 1e9;
    if (sf_topology_create(&m, NULL, NULL, &topo, NULL) == SF_OK && sf_workspace_create(topo, NULL, &ws, NULL) == SF_OK)
        method_error(topo, ws, &pose, method, NULL, &e);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    grid_free(&g);
    if (tangent_mean) *tangent_mean = e.tangent.mean;
    return e.normal.mean;
}

static void test_convergence_own_bend(void)
{
    double prev_j = 0, prev_i = 0;
    for (size_t nx = 16; nx <= 64; nx *= 2) {
        double tj;
        double ej = bend_error(nx, g_jac, &tj), ei = bend_error(nx, SF_METHOD_INVERSE_TRANSPOSE, NULL);
        printf("  bend nx=%zu: %s %.4f deg (tangent %.4f), inverse-transpose %.4f deg\n", nx, sf_method_name(g_jac), ej,
               tj, ei);
        if (prev_j > 0) {
            CHECK(ej / prev_j < 0.6 || ej < 1e-3); /* second order, or exact to float (jacobian-fan) */
            CHECK(ei / prev_i > 0.8);
        }
        CHECK(ej * 5.0 < ei);
        prev_j = ej;
        prev_i = ei;
    }
}

/* A curved rest surface: a tube (radius 0.3, length 2, UV seam along theta = 0) bent at its middle by
 * two bones with smoothstep weights, a real elbow. Gradients are projected from curved faces onto each
 * vertex's tangent plane, so this checks convergence where the rest mesh is not flat. Measured: nx = 8,
 * 16, 32, 64, 128 give jacobian 2.35, 0.66, 0.17, 0.043, 0.011 deg and inverse-transpose 3.07, 3.58,
 * 4.03, 4.17, 4.21 (at nx = 8 the 0.8-long blend zone spans only 3 quads: both are coarse). */
static double tube_error(size_t nx, sf_method method, double* tangent_mean)
{
    size_t na = 2 * nx; /* around */
    size_t n = (nx + 1) * (na + 1), F = 2 * nx * na;
    float* pos = calloc(3 * n, sizeof(float));
    float* uv = calloc(2 * n, sizeof(float));
    uint32_t* idx = calloc(3 * F, sizeof(uint32_t));
    uint32_t* joints = calloc(2 * n, sizeof(uint32_t));
    float* weights = calloc(2 * n, sizeof(float));
    for (size_t j = 0; j <= na; ++j)
        for (size_t i = 0; i <= nx; ++i) {
            size_t v = j * (nx + 1) + i;
            double x = 2.0 * (double)i / (double)nx, a = 2.0 * PI * (double)j / (double)na;
            pos[3 * v] = (float)x;
            pos[3 * v + 1] = (float)(0.3 * cos(a));
            pos[3 * v + 2] = (float)(0.3 * sin(a));
            uv[2 * v] = (float)i / (float)nx;
            uv[2 * v + 1] = (float)j / (float)na;
            double t = (x - 0.6) / 0.8;
            t = t < 0 ? 0 : t > 1 ? 1 : t;
            float w1 = (float)(t * t * (3.0 - 2.0 * t));
            joints[2 * v + 1] = 1;
            weights[2 * v] = 1.0f - w1;
            weights[2 * v + 1] = w1;
        }
    size_t f = 0;
    for (size_t j = 0; j < na; ++j)
        for (size_t i = 0; i < nx; ++i) {
            uint32_t a = (uint32_t)(j * (nx + 1) + i), b = a + 1, c = a + (uint32_t)(nx + 1), d = c + 1;
            /* Outward normals: (x, theta) with x cross theta-direction pointing out. */
            uint32_t t[6] = {a, b, d, a, d, c};
            memcpy(idx + 3 * f, t, sizeof t);
            f += 2;
        }
    sf_mesh_desc m;
    memset(&m, 0, sizeof m);
    m.vertex_count = n;
    m.triangle_count = F;
    m.indices = idx;
    m.positions.data = pos;
    m.uvs.data = uv;
    m.influence_count = 2;
    m.joints = joints;
    m.weights = weights;
    m.bone_count = 2;
    float bones[24];
    const double axis[3] = {0, 0, 1}, c[3] = {1.0, 0, 0}, t[3] = {0, 0, 0};
    bone_identity(bones);
    bone_rot(bones + 12, axis, 1.3, c, t);
    sf_pose pose = {bones, 2, NULL, 0};
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    sf_error_summary e;
    e.normal.mean = 1e9;
    e.tangent.mean = 1e9;
    if (sf_topology_create(&m, NULL, NULL, &topo, NULL) == SF_OK && sf_workspace_create(topo, NULL, &ws, NULL) == SF_OK)
        method_error(topo, ws, &pose, method, NULL, &e);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    free(pos);
    free(uv);
    free(idx);
    free(joints);
    free(weights);
    if (tangent_mean) *tangent_mean = e.tangent.mean;
    return e.normal.mean;
}

static void test_convergence_tube(void)
{
    double prev_j = 0, prev_i = 0;
    for (size_t nx = 16; nx <= 64; nx *= 2) {
        double tj, ti;
        double ej = tube_error(nx, g_jac, &tj), ei = tube_error(nx, SF_METHOD_INVERSE_TRANSPOSE, &ti);
        printf("  tube nx=%zu: jacobian %.4f deg (tangent %.4f), inverse-transpose %.4f deg (tangent %.4f)\n", nx, ej,
               tj, ei, ti);
        if (prev_j > 0) {
            CHECK(ej / prev_j < 0.6 || ej < 1e-3); /* second order, or exact to float (jacobian-fan) */
            CHECK(ei / prev_i > 0.8);
        }
        if (prev_j > 0) {
            CHECK(ej / prev_j < 0.6 || ej < 1e-3); /* second order, or exact to float (jacobian-fan) */
            CHECK(ei / prev_i > 0.8);
        }
        CHECK(ej * 5.0 < ei);
        prev_j = ej;
        prev_i = ei;
    }
}

/* ---------------------------------------------------------------- the built-in scenes */

/* The method under test, skinned and inverse-transpose: the methods the scene checks compare. */
static const sf_method* compared(void)
{
    static sf_method m[3] = {SF_METHOD_JACOBIAN, SF_METHOD_SKINNED, SF_METHOD_INVERSE_TRANSPOSE};
    m[0] = g_jac;
    return m;
}

/* Error summaries of methods[0..count) (morph directions `dirs`) against the scene's reference, on one
 * topology. Returns 0 on failure. */
static int scene_errors(const char* scene, const char* preset, const sf_scene_setting* set, size_t set_count,
                        const sf_method* methods, size_t count, sf_morph_directions dirs, sf_error_summary* s)
{
    sf_scene* sc = NULL;
    sf_error err;
    memset(s, 0, count * sizeof *s);
    if (sf_scene_create(scene, preset, set, set_count, NULL, &sc, &err) != SF_OK) {
        fprintf(stderr, "  scene %s: %s\n", scene, err.message);
        return 0;
    }
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    int ok = sf_topology_create(&sc->mesh, NULL, NULL, &topo, &err) == SF_OK &&
             sf_workspace_create(topo, NULL, &ws, &err) == SF_OK;
    if (ok) {
        size_t n = sf_topology_vertex_count(topo);
        float* a = calloc(7 * n, sizeof(float));
        float* r = calloc(7 * n, sizeof(float));
        sf_frames_opts o;
        memset(&o, 0, sizeof o);
        o.weighting = sc->reference_weighting;
        sf_frames_out fr = {NULL, r, r + 3 * n}, fa = {NULL, a, a + 3 * n};
        ok = sf_frames_compute(topo, &sc->pose, SF_METHOD_RECOMPUTE, &o, ws, &fr, &err) == SF_OK;
        o.morph_directions = dirs;
        for (size_t m = 0; ok && m < count; ++m) {
            ok = sf_frames_compute(topo, &sc->pose, methods[m], &o, ws, &fa, &err) == SF_OK &&
                 sf_direction_errors(topo, &fa, &fr, NULL, NULL, NULL, &s[m], &err) == SF_OK;
        }
        free(a);
        free(r);
    }
    if (!ok) fprintf(stderr, "  %s: %s\n", scene, err.message);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    sf_scene_destroy(sc);
    return ok;
}

/* jacobian, skinned, inverse-transpose. */


/* strip (one bone lifted without rotation): inverse transpose keeps +y, so its error is the slope angle
 * atan(lift / blend-width) on the ramp; the jacobian is below 1 degree everywhere. */
static void test_scene_strip(void)
{
    sf_error_summary e3[3];
    CHECK(scene_errors("strip", "lift", NULL, 0, compared(), 3, SF_MORPH_DIRECTIONS_DELTAS, e3));
    sf_error_summary ej = e3[0], ei = e3[2];
    CHECK_NEAR(ei.normal.max, atan(0.5 / 1.0) * 180.0 / PI, 1e-3);
    CHECK(ej.normal.max < 1.0);
    CHECK(ej.tangent.max < 1.0);
    CHECK(ej.degenerate == 0 && ej.handedness_mismatches == 0);
}

/* The cases: the jacobian's mean normal error at least 5x below the better of skinned and
 * inverse-transpose (both with morph deltas). */
static void check_ratio(const char* scene, const char* preset, const sf_scene_setting* set, size_t count)
{
    sf_error_summary e3[3];
    CHECK(scene_errors(scene, preset, set, count, compared(), 3, SF_MORPH_DIRECTIONS_DELTAS, e3));
    sf_error_summary ej = e3[0], es = e3[1], ei = e3[2];
    double best = es.normal.mean < ei.normal.mean ? es.normal.mean : ei.normal.mean;
    printf("  %s %s: %s %.4f deg, best other %.4f deg (x%.1f)\n", scene, preset ? preset : "(settings)",
           sf_method_name(g_jac), ej.normal.mean, best, best / ej.normal.mean);
    CHECK(ej.normal.mean * 5.0 <= best);
    CHECK(ej.handedness_mismatches == 0 && ej.degenerate == 0);
}

static void test_scene_ratios(void)
{
    check_ratio("elbow", "bend", NULL, 0);
    if (sft_failed_now) return;
    check_ratio("sheet", "bone-bend", NULL, 0);
    if (sft_failed_now) return;
    check_ratio("sheet", "bone-twist", NULL, 0);
    if (sft_failed_now) return;
    const sf_scene_setting morphs[] = {{"towel-twist", 0.7}, {"swirl", 0.5}, {"ripples", 0.6}};
    check_ratio("sheet", NULL, morphs, 3);
    if (sft_failed_now) return;
    const sf_scene_setting twisted[] = {{"towel-twist", 0.7}, {"swirl", 0.5}, {"ripples", 0.6}, {"twist", 90}};
    check_ratio("sheet", NULL, twisted, 4);
    if (sft_failed_now) return;
    const sf_scene_setting bent[] = {{"towel-twist", 0.7}, {"swirl", 0.5}, {"ripples", 0.6}, {"bend", 90}};
    check_ratio("sheet", NULL, bent, 4);
}

/* Convergence: doubling the resolution, the jacobian's mean error falls (ratio < 0.6) unless it is
 * already at float noise (strip, where it is exact: below 1e-3 degrees at every resolution), while
 * inverse-transpose's does not fall (ratio > 0.9). */
static void check_convergence(const char* scene, const char* preset)
{
    double prev_j = 0.0, prev_i = 0.0;
    for (int r = 4; r <= 32; r *= 2) {
        sf_scene_setting set[] = {{"resolution", r}};
        sf_error_summary e3[3];
        CHECK(scene_errors(scene, preset, set, 1, compared(), 3, SF_MORPH_DIRECTIONS_DELTAS, e3));
        sf_error_summary ej = e3[0], ei = e3[2];
        printf("  %s r=%d: %s %.6f deg, inverse-transpose %.4f deg\n", scene, r, sf_method_name(g_jac), ej.normal.mean,
               ei.normal.mean);
        if (prev_j > 0.0) {
            CHECK(ej.normal.mean < 1e-3 || ej.normal.mean / prev_j < 0.6);
            CHECK(ei.normal.mean / prev_i > 0.9);
        }
        prev_j = ej.normal.mean;
        prev_i = ei.normal.mean;
    }
}

static void test_scene_convergence(void)
{
    check_convergence("strip", "lift");
    if (sft_failed_now) return;
    check_convergence("elbow", "bend");
}

/* Morph weights between 0 and 1: skinned with deltas blends target normals (wrong in between, e.g.
 * ~10 degrees at towel-twist 0.5) while the jacobian stays low at every weight. */
static void test_scene_morph_sweep(void)
{
    const char* names[2] = {"towel-twist", "ripples"};
    double worst_j = 0.0, worst_s = 0.0;
    for (int a = 0; a <= 4; ++a) {
        double w = 0.25 * a;
        sf_scene_setting set[] = {{names[0], w}, {names[1], w}};
        sf_error_summary e3[3];
        CHECK(scene_errors("sheet", NULL, set, 2, compared(), 2, SF_MORPH_DIRECTIONS_DELTAS, e3));
        sf_error_summary ej = e3[0], es = e3[1];
        if (ej.normal.mean > worst_j) worst_j = ej.normal.mean;
        if (es.normal.mean > worst_s) worst_s = es.normal.mean;
    }
    printf("  sweep towel-twist+ripples 0..1: worst mean skinned+deltas %.3f deg, jacobian %.3f deg\n", worst_s,
           worst_j);
    CHECK(worst_j < 0.5);
    CHECK(worst_j * 5.0 < worst_s);
}

/* The shared tests again on jacobian-fan. */
#define FAN_CASE(name)                    \
    static void test_fan_##name(void)     \
    {                                     \
        g_jac = SF_METHOD_JACOBIAN_FAN;   \
        test_##name();                    \
        g_jac = SF_METHOD_JACOBIAN;       \
    }
FAN_CASE(strip_linear_exact)
FAN_CASE(neighbour_only_bone)
FAN_CASE(morph_only_linear)
FAN_CASE(sparse_equals_dense)
FAN_CASE(mirror_matches_recompute)
FAN_CASE(mirror_with_weight_gradient)
FAN_CASE(zero_weights_as_identity_bone)
FAN_CASE(dropped_slots_counted)
FAN_CASE(cap_option)
FAN_CASE(thread_order_independent)
FAN_CASE(degenerate_input)
FAN_CASE(tangent_along_normal)
FAN_CASE(out_of_memory)
FAN_CASE(convergence_own_bend)
FAN_CASE(convergence_tube)
FAN_CASE(scene_strip)
FAN_CASE(scene_ratios)
FAN_CASE(scene_convergence)
FAN_CASE(scene_morph_sweep)

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"tangent_basis", test_tangent_basis},
        {"face_gradient", test_face_gradient},
        {"cap_kernel", test_cap_kernel},
        {"strip_linear_exact", test_strip_linear_exact},
        {"neighbour_only_bone", test_neighbour_only_bone},
        {"affine_fields_match_closed_form", test_affine_fields_match_closed_form},
        {"morph_only_linear", test_morph_only_linear},
        {"sparse_equals_dense", test_sparse_equals_dense},
        {"mirror_matches_recompute", test_mirror_matches_recompute},
        {"mirror_with_weight_gradient", test_mirror_with_weight_gradient},
        {"zero_weights_as_identity_bone", test_zero_weights_as_identity_bone},
        {"dropped_slots_counted", test_dropped_slots_counted},
        {"cap_option", test_cap_option},
        {"thread_order_independent", test_thread_order_independent},
        {"degenerate_input", test_degenerate_input},
        {"tangent_along_normal", test_tangent_along_normal},
        {"out_of_memory", test_out_of_memory},
        {"convergence_own_bend", test_convergence_own_bend},
        {"convergence_tube", test_convergence_tube},
        {"scene_strip", test_scene_strip},
        {"scene_ratios", test_scene_ratios},
        {"scene_convergence", test_scene_convergence},
        {"scene_morph_sweep", test_scene_morph_sweep},
        {"fan_strip_linear_exact", test_fan_strip_linear_exact},
        {"fan_neighbour_only_bone", test_fan_neighbour_only_bone},
        {"fan_morph_only_linear", test_fan_morph_only_linear},
        {"fan_sparse_equals_dense", test_fan_sparse_equals_dense},
        {"fan_mirror_matches_recompute", test_fan_mirror_matches_recompute},
        {"fan_mirror_with_weight_gradient", test_fan_mirror_with_weight_gradient},
        {"fan_zero_weights_as_identity_bone", test_fan_zero_weights_as_identity_bone},
        {"fan_dropped_slots_counted", test_fan_dropped_slots_counted},
        {"fan_cap_option", test_fan_cap_option},
        {"fan_thread_order_independent", test_fan_thread_order_independent},
        {"fan_degenerate_input", test_fan_degenerate_input},
        {"fan_tangent_along_normal", test_fan_tangent_along_normal},
        {"fan_out_of_memory", test_fan_out_of_memory},
        {"fan_convergence_own_bend", test_fan_convergence_own_bend},
        {"fan_convergence_tube", test_fan_convergence_tube},
        {"fan_scene_strip", test_fan_scene_strip},
        {"fan_scene_ratios", test_fan_scene_ratios},
        {"fan_scene_convergence", test_fan_scene_convergence},
        {"fan_scene_morph_sweep", test_fan_scene_morph_sweep},
        {"fan_affine_fields_match_face_maps", test_fan_affine_fields_match_face_maps},
        {"fan_rest_is_authored", test_fan_rest_is_authored},
    };
    return SFT_RUN(cases, argc, argv);
}

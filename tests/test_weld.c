// LABELS: unit
/* Weld groups and weighting of the reference: a cylinder with one UV seam (welded normals continuous,
 * unwelded ones not), a cube with hard edges (kept under position+normal, merged under position),
 * angle/area/uniform weighting against hand-computed normals, the welded gather against an independent
 * double-precision sum, and the robustness counters (zero-area faces and UV triangles, non-manifold
 * edges, isolated vertices, duplicate faces) with finite results under every option. */
#include "sf_internal.h"
#include "sf_kernels.h"
#include "sf_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI_F 3.14159265358979f

static double angle_deg3(const float* a, const float* b) { return sf_angle_deg(a, b); }

/* ---------------------------------------------------------------- a cylinder with one UV seam */

#define CYL_S 16 /* segments around */
#define CYL_R 4  /* rings of quads */
#define CYL_V ((CYL_R + 1) * (CYL_S + 1))
#define CYL_T (2 * CYL_R * CYL_S)

typedef struct cylinder {
    float positions[CYL_V * 3], normals[CYL_V * 3], uvs[CYL_V * 2], weights[CYL_V * 2];
    uint32_t joints[CYL_V * 2], indices[CYL_T * 3];
    sf_mesh_desc mesh;
} cylinder;

static uint32_t cyl_index(int ring, int col) { return (uint32_t)(ring * (CYL_S + 1) + col); }

/* Column CYL_S repeats column 0's positions and normals with u = 1: the seam. Two bones along y. */
static void cylinder_init(cylinder* c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i <= CYL_R; ++i) {
        for (int j = 0; j <= CYL_S; ++j) {
            uint32_t v = cyl_index(i, j);
            float th = 2.0f * PI_F * (float)(j % CYL_S) / (float)CYL_S, y = (float)i / (float)CYL_R * 2.0f;
            float p[3] = {cosf(th), y, sinf(th)};
            memcpy(c->positions + 3 * v, p, sizeof p);
            c->normals[3 * v + 0] = p[0];
            c->normals[3 * v + 2] = p[2];
            c->uvs[2 * v + 0] = (float)j / (float)CYL_S;
            c->uvs[2 * v + 1] = 1.0f - (float)i / (float)CYL_R;
            c->joints[2 * v + 1] = 1;
            c->weights[2 * v + 1] = (float)i / (float)CYL_R;
            c->weights[2 * v + 0] = 1.0f - c->weights[2 * v + 1];
        }
    }
    uint32_t* t = c->indices;
    for (int i = 0; i < CYL_R; ++i) {
        for (int j = 0; j < CYL_S; ++j) {
            uint32_t a = cyl_index(i, j), b = cyl_index(i, j + 1), d = cyl_index(i + 1, j), e = cyl_index(i + 1, j + 1);
            uint32_t tri[6] = {a, d, b, b, d, e}; /* outward: cross(dy, dtheta) is radial */
            memcpy(t, tri, sizeof tri);
            t += 6;
        }
    }
    sf_mesh_desc* m = &c->mesh;
    m->vertex_count = CYL_V;
    m->triangle_count = CYL_T;
    m->indices = c->indices;
    m->positions.data = c->positions;
    m->normals.data = c->normals;
    m->uvs.data = c->uvs;
    m->influence_count = 2;
    m->joints = c->joints;
    m->weights = c->weights;
    m->bone_count = 2;
}

/* Bone 1 rotated about x by angle around the point (0, 1, 0); bone 0 identity. */
static void bend_pose(float bones[24], float angle_rad)
{
    memset(bones, 0, 24 * sizeof(float));
    bones[0] = bones[4] = bones[8] = 1.0f;
    float c = cosf(angle_rad), s = sinf(angle_rad);
    float* m = bones + 12;
    m[0] = 1.0f;
    m[4] = c, m[5] = s;  /* column 1 */
    m[7] = -s, m[8] = c; /* column 2 */
    /* t = pivot - R pivot */
    m[9] = 0.0f;
    m[10] = 1.0f - c;
    m[11] = -s;
}

static sf_result frames(const sf_topology* topo, const sf_pose* pose, const sf_frames_opts* opts, float* n,
                        float* t)
{
    sf_workspace* ws = NULL;
    sf_error err;
    sf_result r = sf_workspace_create(topo, NULL, &ws, &err);
    if (r != SF_OK) return r;
    sf_frames_out out = {NULL, n, t};
    r = sf_frames_compute(topo, pose, SF_METHOD_RECOMPUTE, opts, ws, &out, &err);
    if (r != SF_OK) fprintf(stderr, "  %s\n", err.message);
    sf_workspace_destroy(ws);
    return r;
}

static void test_cylinder_seam(void)
{
    static cylinder c;
    cylinder_init(&c);
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&c.mesh, NULL, NULL, &topo, NULL));
    sf_topology_stats st;
    sf_topology_get_stats(topo, &st);
    CHECK(st.weld_groups == CYL_R + 1);
    CHECK(st.weld_position_groups == CYL_R + 1);
    CHECK(st.nonmanifold_edges == 0 && st.duplicate_triangles == 0);

    float bones[24];
    bend_pose(bones, 0.6f);
    sf_pose pose = {bones, 2, NULL, 0};
    static float n0[CYL_V * 3], n1[CYL_V * 3], n2[CYL_V * 3], t1[CYL_V * 4];
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    CHECK_OK(frames(topo, &pose, &o, n0, NULL));
    o.weld = SF_WELD_POSITION_NORMAL;
    CHECK_OK(frames(topo, &pose, &o, n1, t1));
    o.weld = SF_WELD_POSITION;
    CHECK_OK(frames(topo, &pose, &o, n2, NULL));

    double worst_welded = 0.0, least_unwelded = 180.0;
    for (int i = 0; i <= CYL_R; ++i) {
        uint32_t a = cyl_index(i, 0), b = cyl_index(i, CYL_S);
        double w = angle_deg3(n1 + 3 * a, n1 + 3 * b), u = angle_deg3(n0 + 3 * a, n0 + 3 * b);
        if (w > worst_welded) worst_welded = w;
        if (u < least_unwelded) least_unwelded = u;
        CHECK(angle_deg3(n2 + 3 * a, n1 + 3 * a) < 1e-4); /* no hard edges: both welds agree */
    }
    CHECK(worst_welded < 1e-4);
    CHECK(least_unwelded > 5.0); /* a half-sided gather at the seam tilts by about half a segment */

    /* Away from the seam, welding changes nothing (bit-identical: same corners, same order). */
    for (int i = 0; i <= CYL_R; ++i)
        for (int j = 1; j < CYL_S; ++j) CHECK(memcmp(n0 + 3 * cyl_index(i, j), n1 + 3 * cyl_index(i, j), 12) == 0);

    /* Independent check: the welded normal is the double-precision sum of cross(e1, e2) over every face
     * touching a vertex at the same rest position. */
    float P[CYL_V * 3];
    sf_workspace* ws = NULL;
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    CHECK_OK(sf_deform_positions(topo, &pose, ws, P, NULL));
    sf_workspace_destroy(ws);
    for (int i = 0; i <= CYL_R; ++i) {
        uint32_t a = cyl_index(i, 0);
        double N[3] = {0, 0, 0};
        for (size_t f = 0; f < CYL_T; ++f) {
            int touches = 0;
            for (int k = 0; k < 3; ++k) {
                uint32_t v = c.indices[3 * f + k];
                touches |= v == a || v == cyl_index(i, CYL_S);
            }
            if (!touches) continue;
            const float *p0 = P + 3 * c.indices[3 * f], *p1 = P + 3 * c.indices[3 * f + 1],
                        *p2 = P + 3 * c.indices[3 * f + 2];
            double e1[3], e2[3];
            for (int k = 0; k < 3; ++k) e1[k] = p1[k] - p0[k], e2[k] = p2[k] - p0[k];
            N[0] += e1[1] * e2[2] - e1[2] * e2[1];
            N[1] += e1[2] * e2[0] - e1[0] * e2[2];
            N[2] += e1[0] * e2[1] - e1[1] * e2[0];
        }
        float Nf[3] = {(float)N[0], (float)N[1], (float)N[2]};
        CHECK(angle_deg3(Nf, n1 + 3 * a) < 1e-3);
    }
    /* Without authored normals (generated at rest, half-sided at the seam) the seam still welds. */
    c.mesh.normals.data = NULL;
    sf_topology* gen = NULL;
    CHECK_OK(sf_topology_create(&c.mesh, NULL, NULL, &gen, NULL));
    sf_topology_get_stats(gen, &st);
    CHECK(st.generated_normals == 1 && st.weld_groups == CYL_R + 1);
    o.weld = SF_WELD_POSITION_NORMAL;
    static float ng[CYL_V * 3];
    CHECK_OK(frames(gen, &pose, &o, ng, NULL));
    for (int i = 0; i <= CYL_R; ++i) CHECK(angle_deg3(ng + 3 * cyl_index(i, 0), ng + 3 * cyl_index(i, CYL_S)) < 1e-4);
    sf_topology_destroy(gen);
    c.mesh.normals.data = c.normals;
    /* Tangents stay per vertex (the seam legitimately splits them) and stay finite and unit. */
    for (size_t v = 0; v < CYL_V; ++v) {
        double len = sqrt(t1[4 * v] * t1[4 * v] + t1[4 * v + 1] * t1[4 * v + 1] + t1[4 * v + 2] * t1[4 * v + 2]);
        CHECK_NEAR(len, 1.0, 1e-5);
    }
    sf_topology_destroy(topo);
}

/* ---------------------------------------------------------------- a cube with hard edges */

typedef struct cube {
    float positions[24 * 3], normals[24 * 3], uvs[24 * 2];
    uint32_t indices[12 * 3];
    sf_mesh_desc mesh;
} cube;

/* 6 faces x 4 vertices, each with its face normal; UV per face corner. */
static void cube_init(cube* c)
{
    memset(c, 0, sizeof *c);
    for (int f = 0; f < 6; ++f) {
        int axis = f / 2;
        float s = (f % 2) ? -1.0f : 1.0f;
        float n[3] = {0, 0, 0}, u[3] = {0, 0, 0}, w[3] = {0, 0, 0};
        n[axis] = s;
        u[(axis + 1) % 3] = 1.0f;
        /* w = n x u so (u, w, n) is right-handed and the quad's winding faces outward */
        w[0] = n[1] * u[2] - n[2] * u[1];
        w[1] = n[2] * u[0] - n[0] * u[2];
        w[2] = n[0] * u[1] - n[1] * u[0];
        for (int k = 0; k < 4; ++k) {
            int v = 4 * f + k;
            float a = (k == 1 || k == 2) ? 1.0f : -1.0f, b = (k >= 2) ? 1.0f : -1.0f;
            for (int d = 0; d < 3; ++d) {
                c->positions[3 * v + d] = n[d] + a * u[d] + b * w[d];
                c->normals[3 * v + d] = n[d];
            }
            c->uvs[2 * v] = (a + 1.0f) / 2.0f;
            c->uvs[2 * v + 1] = (1.0f - b) / 2.0f;
        }
        uint32_t q = (uint32_t)(4 * f), tri[6] = {q, q + 1, q + 2, q, q + 2, q + 3};
        memcpy(c->indices + 6 * f, tri, sizeof tri);
    }
    c->mesh.vertex_count = 24;
    c->mesh.triangle_count = 12;
    c->mesh.indices = c->indices;
    c->mesh.positions.data = c->positions;
    c->mesh.normals.data = c->normals;
    c->mesh.uvs.data = c->uvs;
}

static void test_cube_hard_edges(void)
{
    cube c;
    cube_init(&c);
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&c.mesh, NULL, NULL, &topo, NULL));
    sf_topology_stats st;
    sf_topology_get_stats(topo, &st);
    CHECK(st.weld_groups == 0);          /* every corner's normals differ: hard edges kept */
    CHECK(st.weld_position_groups == 8); /* 8 corners of 3 vertices each */
    CHECK(topo->weld[0].group_count == 8 && topo->weld[1].group_count == 24);

    sf_pose pose = {NULL, 0, NULL, 0};
    float n0[72], n1[72], n2[72];
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    CHECK_OK(frames(topo, &pose, &o, n0, NULL));
    o.weld = SF_WELD_POSITION_NORMAL;
    CHECK_OK(frames(topo, &pose, &o, n1, NULL));
    o.weld = SF_WELD_POSITION;
    CHECK_OK(frames(topo, &pose, &o, n2, NULL));
    for (int v = 0; v < 24; ++v) {
        CHECK(angle_deg3(n0 + 3 * v, c.normals + 3 * v) < 1e-4);
        CHECK(angle_deg3(n1 + 3 * v, c.normals + 3 * v) < 1e-4); /* hard edge kept */
        /* position weld: the corner normal. Area weights: each face touching the corner contributes
         * 2 triangles at some vertices but only 1 at others, so compare with the exact sum. */
        float corner[3] = {0, 0, 0};
        for (int f = 0; f < 12; ++f) {
            int touches = 0;
            for (int k = 0; k < 3; ++k)
                touches |= memcmp(c.positions + 3 * c.indices[3 * f + k], c.positions + 3 * v, 12) == 0;
            if (touches)
                for (int d = 0; d < 3; ++d) corner[d] += 4.0f * c.normals[3 * c.indices[3 * f] + d];
        }
        CHECK(angle_deg3(n2 + 3 * v, corner) < 1e-4);
        CHECK(angle_deg3(n2 + 3 * v, c.normals + 3 * v) > 30.0);
    }
    /* A looser normal tolerance merges the faces of each corner. */
    sf_topology_destroy(topo);
    sf_topology_opts to;
    memset(&to, 0, sizeof to);
    to.weld_normal_cos = 1e-7f; /* perpendicular normals have cosine 0: still split */
    CHECK_OK(sf_topology_create(&c.mesh, &to, NULL, &topo, NULL));
    sf_topology_get_stats(topo, &st);
    CHECK(st.weld_groups == 0);
    sf_topology_destroy(topo);
    to.weld_normal_cos = -0.5f; /* a negative cosine is honoured (it used to fall back to 0.9999) */
    CHECK_OK(sf_topology_create(&c.mesh, &to, NULL, &topo, NULL));
    sf_topology_get_stats(topo, &st);
    CHECK(st.weld_groups == 8);
    sf_topology_destroy(topo);
    sf_error err;
    to.weld_normal_cos = NAN; /* not a cosine: refused, not silently replaced */
    CHECK_RESULT(sf_topology_create(&c.mesh, &to, NULL, &topo, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.field, "opts.weld_normal_cos") == 0);
    to.weld_normal_cos = 1.5f;
    CHECK_RESULT(sf_topology_create(&c.mesh, &to, NULL, &topo, &err), SF_ERROR_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------------- weighting against hand computation */

/* Vertex 0 at the origin with three faces:
 *   A (0,1,2): legs (1,0,0), (0,1,0): normal +z, corner angle 90 deg, cross length 1
 *   B (0,3,4): legs (0,0,2), (2,0,2): normal +y, corner angle 45 deg, cross length 4
 *   C (0,2,5): legs (0,1,0), (0,-1,1): normal +x, corner angle 135 deg, cross length 1
 * area:    N = (1, 4, 1)            angle: N = (3pi/4, pi/4, pi/2) ~ (3, 1, 2)       uniform: (1, 1, 1) */
static void test_weighting_hand_computed(void)
{
    float positions[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 2, 0, 2, 0, -1, 1};
    uint32_t indices[] = {0, 1, 2, 0, 3, 4, 0, 2, 5};
    sf_mesh_desc m;
    memset(&m, 0, sizeof m);
    m.vertex_count = 6;
    m.triangle_count = 3;
    m.indices = indices;
    m.positions.data = positions;
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, NULL));
    sf_pose pose = {NULL, 0, NULL, 0};
    float n[18];
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    const float want_area[3] = {1, 4, 1}, want_angle[3] = {3, 1, 2}, want_uniform[3] = {1, 1, 1};
    CHECK_OK(frames(topo, &pose, &o, n, NULL));
    CHECK(angle_deg3(n, want_area) < 1e-4);
    o.weighting = SF_WEIGHTING_ANGLE;
    CHECK_OK(frames(topo, &pose, &o, n, NULL));
    CHECK(angle_deg3(n, want_angle) < 1e-4);
    /* the corner angles themselves: vertex 2 sits in A (angle 45) and C (angle between (0,-1,0) and
     * (0,-2,1): acos(2/sqrt5)); its normal is 45 deg * z + acos(2/sqrt5) * x */
    float a2 = acosf(2.0f / sqrtf(5.0f)), want2[3] = {a2, 0.0f, PI_F / 4.0f};
    CHECK(angle_deg3(n + 6, want2) < 1e-4);
    o.weighting = SF_WEIGHTING_UNIFORM;
    CHECK_OK(frames(topo, &pose, &o, n, NULL));
    CHECK(angle_deg3(n, want_uniform) < 1e-4);
    sf_topology_destroy(topo);
}

/* ---------------------------------------------------------------- robustness */

/* A quad (0 1 2 3) plus: a zero-area triangle (collinear), a zero-UV-area triangle, a non-manifold fin
 * (three triangles on edge 1-2), a duplicate of triangle 0 (reversed winding), an isolated vertex, and a
 * triangle whose vertices coincide in position but not index. */
static void test_robustness(void)
{
    float positions[] = {
        0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, /* 0-3 quad */
        2, 0, 0,                            /* 4 collinear with 0 and 1 */
        1, 0.5f, 1,                         /* 5 fin tip */
        5, 5, 5,                            /* 6 isolated */
        0, 2, 0, 1, 2, 0,                   /* 7, 8 zero UV area triangle with 2 */
        3, 3, 3, 3, 3, 3, 3, 3, 3,          /* 9-11 one position */
    };
    float uvs[] = {0, 0, 1, 0, 0, 1, 1, 1, 2, 0, 0.7f, 0.7f, /* 0-5 */
                   0, 0, 0, 2, 0, 3,                         /* 6-8: 2, 7, 8 on the line u = 0 */
                   0, 0, 1, 0, 0, 1};                        /* 9-11 */
    uint32_t indices[] = {
        0, 1, 2, 2, 1, 3, /* quad */
        0, 4, 1,          /* zero area (collinear; its UVs are collinear too) */
        2, 7, 8,          /* zero UV area */
        1, 2, 5,          /* fin: third triangle on edge 1-2 */
        0, 2, 1,          /* duplicate of triangle 0, reversed */
        9, 10, 11,        /* collapsed to a point */
    };
    sf_mesh_desc m;
    memset(&m, 0, sizeof m);
    m.vertex_count = 12;
    m.triangle_count = 7;
    m.indices = indices;
    m.positions.data = positions;
    m.uvs.data = uvs;
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, NULL));
    sf_topology_stats st;
    sf_topology_get_stats(topo, &st);
    CHECK(st.degenerate_triangles == 2);    /* collinear and point */
    CHECK(st.degenerate_uv_triangles >= 2); /* collinear UVs and the point (all UV equal... no: 9-11 differ) */
    CHECK(st.isolated_vertices == 1);
    CHECK(st.nonmanifold_edges == 2); /* 1-2: quad x2, fin, duplicate; 0-1: quad, collinear, duplicate */
    CHECK(st.duplicate_triangles == 1); /* triangle 5 repeats triangle 0 */
    CHECK(st.weld_position_groups == 1); /* 9, 10, 11 */

    sf_pose pose = {NULL, 0, NULL, 0};
    float n[36], t[48];
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    for (int weld = 0; weld < 3; ++weld) {
        for (int wt = 0; wt < 3; ++wt) {
            for (int tm = 0; tm < 2; ++tm) {
                o.weld = (sf_weld)weld;
                o.weighting = (sf_weighting)wt;
                o.tangents = (sf_tangent_mode)tm;
                sf_result r = frames(topo, &pose, &o, n, t);
                if (r == SF_ERROR_UNSUPPORTED && tm == 1) continue; /* mikktspace not built */
                CHECK_OK(r);
                for (int i = 0; i < 36; ++i) CHECK(isfinite(n[i]));
                for (int i = 0; i < 48; ++i) CHECK(isfinite(t[i]));
                for (int v = 0; v < 12; ++v) CHECK(t[4 * v + 3] == 1.0f || t[4 * v + 3] == -1.0f);
                /* the isolated vertex and the collapsed triangle's vertices have no normal */
                CHECK(n[3 * 6] == 0.0f && n[3 * 6 + 1] == 0.0f && n[3 * 6 + 2] == 0.0f);
                CHECK(n[3 * 9] == 0.0f && n[3 * 9 + 1] == 0.0f && n[3 * 9 + 2] == 0.0f);
            }
        }
    }
    sf_topology_destroy(topo);
}

/* Weld groups are deterministic, cover every vertex once, and list each corner once. */
static void test_group_structure(void)
{
    static cylinder c;
    cylinder_init(&c);
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&c.mesh, NULL, NULL, &topo, NULL));
    for (int k = 0; k < 2; ++k) {
        size_t G = topo->weld[k].group_count;
        CHECK(topo->weld[k].offsets[G] == CYL_V);
        CHECK(topo->weld[k].corner_offsets[G] == 3 * CYL_T);
        static unsigned char seen[3 * CYL_T];
        memset(seen, 0, sizeof seen);
        for (size_t i = 0; i < 3 * CYL_T; ++i) seen[topo->weld[k].corners[i]]++;
        for (size_t i = 0; i < 3 * CYL_T; ++i) CHECK(seen[i] == 1);
        for (size_t v = 0; v < CYL_V; ++v) {
            uint32_t g = topo->weld[k].group[v];
            int found = 0;
            for (uint32_t i = topo->weld[k].offsets[g]; i < topo->weld[k].offsets[g + 1]; ++i)
                found |= topo->weld[k].members[i] == v;
            CHECK(found);
        }
        /* group ids follow the first member: vertex 0 is in group 0 */
        CHECK(topo->weld[k].group[0] == 0);
    }
    sf_topology_destroy(topo);
}

/* ---------------------------------------------------------------- authored-normals reference */

/* Rotation about the unit axis (1,2,2)/3 by 50 degrees (3x4, no translation). */
static void rigid_bone(float m[12])
{
    float x = 1.0f / 3.0f, y = 2.0f / 3.0f, z = 2.0f / 3.0f, a = 50.0f * PI_F / 180.0f;
    float c = cosf(a), s = sinf(a), k = 1.0f - c;
    float r[12] = {c + x * x * k,     y * x * k + z * s, z * x * k - y * s, x * y * k - z * s, c + y * y * k,
                   z * y * k + x * s, x * z * k + y * s, y * z * k - x * s, c + z * z * k,     0.5f, -1.0f, 2.0f};
    memcpy(m, r, sizeof r);
}

static void rotate_dir(const float m[12], const float v[3], float out[3])
{
    for (int k = 0; k < 3; ++k) out[k] = m[k] * v[0] + m[3 + k] * v[1] + m[6 + k] * v[2];
}

/* Custom (tilted) normals survive: at rest the authored reference returns them; under a rigid motion it
 * returns them rotated; with and without UVs (frame rotation and shortest-arc rotation). */
static void test_authored_rigid(void)
{
    static cylinder c;
    cylinder_init(&c);
    for (size_t v = 0; v < CYL_V; ++v) { /* tilt every authored normal upward: a "toon" normal */
        c.normals[3 * v + 1] = 0.7f;
        c.joints[2 * v] = c.joints[2 * v + 1] = 0;
    }
    for (int uv = 1; uv >= 0; --uv) {
        if (!uv) c.mesh.uvs.data = NULL;
        sf_topology* topo = NULL;
        CHECK_OK(sf_topology_create(&c.mesh, NULL, NULL, &topo, NULL));
        float bones[24];
        memset(bones, 0, sizeof bones);
        bones[0] = bones[4] = bones[8] = 1.0f;
        memcpy(bones + 12, bones, 12 * sizeof(float));
        sf_pose pose = {bones, 2, NULL, 0};
        static float n[CYL_V * 3], t[CYL_V * 4];
        sf_frames_opts o;
        memset(&o, 0, sizeof o);
        o.reference = SF_REFERENCE_AUTHORED;
        o.weld = SF_WELD_POSITION_NORMAL;
        CHECK_OK(frames(topo, &pose, &o, n, t));
        const float* rest_t = sf_topology_rest_tangents(topo);
        for (size_t v = 0; v < CYL_V; ++v) {
            CHECK(angle_deg3(n + 3 * v, c.normals + 3 * v) < 1e-3);
            if (uv) CHECK(t[4 * v + 3] == rest_t[4 * v + 3]);
        }
        rigid_bone(bones);
        memcpy(bones + 12, bones, 12 * sizeof(float));
        CHECK_OK(frames(topo, &pose, &o, n, t));
        for (size_t v = 0; v < CYL_V; ++v) {
            float want[3];
            rotate_dir(bones, c.normals + 3 * v, want);
            CHECK(angle_deg3(n + 3 * v, want) < 1e-3);
            if (uv) {
                /* the rest tangent rotated, then orthogonalised against the (rotated) normal: same thing */
                float wt[3], un[3];
                sfk_safe_unit(c.normals + 3 * v, un);
                float d = sfk_dot(un, rest_t + 4 * v);
                float o3[3] = {rest_t[4 * v] - un[0] * d, rest_t[4 * v + 1] - un[1] * d, rest_t[4 * v + 2] - un[2] * d};
                rotate_dir(bones, o3, wt);
                CHECK(angle_deg3(t + 4 * v, wt) < 1e-3);
                CHECK(t[4 * v + 3] == rest_t[4 * v + 3]);
            } else {
                CHECK(t[4 * v] == 0.0f && t[4 * v + 1] == 0.0f && t[4 * v + 2] == 0.0f);
            }
        }
        sf_topology_destroy(topo);
    }
}

/* When the authored normals are the rebuilt rest normals (generated by the topology), the authored
 * reference equals the rebuilt reference at any pose; a mirroring pose flips the authored w. */
static void test_authored_matches_rebuilt(void)
{
    static cylinder c;
    cylinder_init(&c);
    c.mesh.normals.data = NULL; /* generated: the area gather at rest, unwelded */
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&c.mesh, NULL, NULL, &topo, NULL));
    float bones[24];
    bend_pose(bones, 0.8f);
    sf_pose pose = {bones, 2, NULL, 0};
    static float n0[CYL_V * 3], n1[CYL_V * 3], t0[CYL_V * 4], t1[CYL_V * 4];
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    CHECK_OK(frames(topo, &pose, &o, n0, t0));
    o.reference = SF_REFERENCE_AUTHORED;
    CHECK_OK(frames(topo, &pose, &o, n1, t1));
    double worst = 0.0;
    for (size_t v = 0; v < CYL_V; ++v) worst = fmax(worst, angle_deg3(n0 + 3 * v, n1 + 3 * v));
    CHECK(worst < 1e-2);
    /* mirror both bones in x: every rebuilt w flips, so the authored w does too */
    const float* rest_t = sf_topology_rest_tangents(topo);
    memset(bones, 0, sizeof bones);
    bones[0] = -1.0f, bones[4] = bones[8] = 1.0f;
    memcpy(bones + 12, bones, 12 * sizeof(float));
    CHECK_OK(frames(topo, &pose, &o, n1, t1));
    for (size_t v = 0; v < CYL_V; ++v) CHECK(t1[4 * v + 3] == -rest_t[4 * v + 3]);
    o.reference = (sf_reference)7;
    CHECK_RESULT(frames(topo, &pose, &o, n1, t1), SF_ERROR_INVALID_ARGUMENT);
    sf_topology_destroy(topo);
}

/* Chunks in reverse order, small: a stand-in for a thread pool that finishes in any order. */
static void reverse_parallel_for(void* user, size_t count, size_t grain, sf_range_fn* fn, void* ctx)
{
    (void)user;
    (void)grain;
    size_t chunk = 7;
    for (size_t end = count; end > 0;) {
        size_t begin = end > chunk ? end - chunk : 0;
        fn(ctx, begin, end);
        end = begin;
    }
}

/* Welded, angle-weighted, MikkTSpace and authored frames are bit-identical for any chunking. */
static void test_thread_independence(void)
{
    static cylinder c;
    cylinder_init(&c);
    sf_env env;
    memset(&env, 0, sizeof env);
    env.threads.parallel_for = reverse_parallel_for;
    sf_topology *serial = NULL, *chunked = NULL;
    CHECK_OK(sf_topology_create(&c.mesh, NULL, NULL, &serial, NULL));
    CHECK_OK(sf_topology_create(&c.mesh, NULL, &env, &chunked, NULL));
    float bones[24];
    bend_pose(bones, 0.9f);
    sf_pose pose = {bones, 2, NULL, 0};
    static float n0[CYL_V * 3], n1[CYL_V * 3], t0[CYL_V * 4], t1[CYL_V * 4];
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    o.weld = SF_WELD_POSITION_NORMAL;
    o.weighting = SF_WEIGHTING_ANGLE;
    for (int mode = 0; mode < 2; ++mode) {
        o.tangents = SF_TANGENTS_MIKKTSPACE;
        o.reference = mode ? SF_REFERENCE_AUTHORED : SF_REFERENCE_REBUILT;
        CHECK_OK(frames(serial, &pose, &o, n0, t0));
        CHECK_OK(frames(chunked, &pose, &o, n1, t1));
        CHECK(memcmp(n0, n1, sizeof n0) == 0);
        CHECK(memcmp(t0, t1, sizeof t0) == 0);
    }
    sf_topology_destroy(serial);
    sf_topology_destroy(chunked);
}

/* On a real asset with authored normals (CesiumMan), the authored reference returns the authored
 * normals at rest, stays finite and unit through the animation, and differs from the rebuilt one by
 * what the authoring differs at rest (reported). */
static void test_authored_asset(void)
{
    char path[1024];
    if (!sft_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", path, sizeof path)) return;
    sf_gltf* gltf = NULL;
    sf_gltf_pose* gp = NULL;
    CHECK_OK(sf_gltf_load_file(path, NULL, NULL, &gltf, NULL));
    CHECK_OK(sf_gltf_pose_create(gltf, NULL, &gp, NULL));
    const sf_gltf_instance* inst = &gltf->instances[0];
    sf_mesh_desc mesh;
    CHECK_OK(sf_gltf_instance_mesh(gltf, 0, gltf->meshes[inst->mesh].first_primitive, &mesh, NULL));
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&mesh, NULL, NULL, &topo, NULL));
    size_t n = mesh.vertex_count;
    float* bones = calloc(12 * inst->bone_count, sizeof(float));
    float* na = calloc(3 * n, sizeof(float));
    float* nr = calloc(3 * n, sizeof(float));
    float* ta = calloc(4 * n, sizeof(float));
    CHECK(bones && na && nr && ta);
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    o.weld = SF_WELD_POSITION_NORMAL;
    o.reference = SF_REFERENCE_AUTHORED;
    CHECK_OK(sf_gltf_pose_sample(gp, SF_GLTF_NONE, 0.0, NULL));
    CHECK_OK(sf_gltf_pose_instance(gp, 0, bones, NULL, NULL, NULL));
    sf_pose pose = {bones, inst->bone_count, NULL, 0};
    CHECK_OK(frames(topo, &pose, &o, na, ta));
    const float* rest_n = sf_topology_rest_normals(topo);
    double worst_rest = 0.0, worst_pose = 0.0, mean_pose = 0.0;
    for (size_t v = 0; v < n; ++v) worst_rest = fmax(worst_rest, sf_angle_deg(na + 3 * v, rest_n + 3 * v));
    CHECK(worst_rest < 0.05); /* the bind pose is not exactly the rest: bind matrices round */
    double t = 0.5 * (gltf->animations[0].start_s + gltf->animations[0].end_s);
    CHECK_OK(sf_gltf_pose_sample(gp, 0, t, NULL));
    CHECK_OK(sf_gltf_pose_instance(gp, 0, bones, NULL, NULL, NULL));
    CHECK_OK(frames(topo, &pose, &o, na, ta));
    o.reference = SF_REFERENCE_REBUILT;
    CHECK_OK(frames(topo, &pose, &o, nr, NULL));
    for (size_t v = 0; v < n; ++v) {
        double len = sqrt((double)na[3 * v] * na[3 * v] + (double)na[3 * v + 1] * na[3 * v + 1] +
                          (double)na[3 * v + 2] * na[3 * v + 2]);
        CHECK_NEAR(len, 1.0, 1e-4);
        double d = sf_angle_deg(na + 3 * v, nr + 3 * v);
        worst_pose = fmax(worst_pose, d);
        mean_pose += d / (double)n;
    }
    printf("  CesiumMan, authored vs rebuilt reference at t = %.2f s: mean %.2f deg, max %.2f deg "
           "(authored normals at rest: max %.4f deg from the asset's)\n",
           t, mean_pose, worst_pose, worst_rest);
    free(bones);
    free(na);
    free(nr);
    free(ta);
    sf_topology_destroy(topo);
    sf_gltf_pose_destroy(gp);
    sf_gltf_destroy(gltf);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"cylinder_seam", test_cylinder_seam},
        {"cube_hard_edges", test_cube_hard_edges},
        {"weighting_hand_computed", test_weighting_hand_computed},
        {"robustness", test_robustness},
        {"group_structure", test_group_structure},
        {"authored_rigid", test_authored_rigid},
        {"authored_matches_rebuilt", test_authored_matches_rebuilt},
        {"authored_asset", test_authored_asset},
        {"thread_independence", test_thread_independence},
    };
    return SFT_RUN(cases, argc, argv);
}

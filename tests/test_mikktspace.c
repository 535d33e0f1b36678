// LABELS: unit
/* MikkTSpace-compatible tangents: hand-computed cases (flat grid, angle-weighted fan, mirrored UVs,
 * degenerate UV and position triangles), then agreement with the reference implementation, the npm
 * package `mikktspace` (a WebAssembly build of the original algorithm, installed by npm into
 * $SF_BUILD_DIR/mikktspace-reference) run by tests/mikktspace/run.js,
 * on every built-in scene and preset and on every staged glTF asset with UVs, at rest and at an animated
 * frame: tangent xyz within 1e-3 and identical handedness at every triangle corner. Exits 77 (skipped)
 * for the comparison part only when node or npm is missing; the hand-computed cases always run.
 * Also prints, per asset, how many seam vertices welding fixes (welded vs unwelded normal > 0.01 deg). */
#include "sf_internal.h"
#include "sf_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI_F 3.14159265358979f
#define TANGENT_TOL 1e-3

/* ---------------------------------------------------------------- running the method */

typedef struct mikk_run {
    sf_topology* topo;
    sf_workspace* ws;
    float *pos, *nrm, *tan;
} mikk_run;

static void run_free(mikk_run* r)
{
    sf_workspace_destroy(r->ws);
    sf_topology_destroy(r->topo);
    free(r->pos);
    free(r->nrm);
    free(r->tan);
    memset(r, 0, sizeof *r);
}

static sf_result run_frame(mikk_run* r, const sf_pose* pose, sf_weld weld)
{
    size_t n = sf_topology_vertex_count(r->topo);
    if (!r->ws) {
        sf_result res = sf_workspace_create(r->topo, NULL, &r->ws, NULL);
        if (res != SF_OK) return res;
        r->pos = calloc(3 * n + 1, sizeof(float));
        r->nrm = calloc(3 * n + 1, sizeof(float));
        r->tan = calloc(4 * n + 1, sizeof(float));
        if (!r->pos || !r->nrm || !r->tan) return SF_ERROR_OUT_OF_MEMORY;
    }
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    o.weld = weld;
    o.tangents = SF_TANGENTS_MIKKTSPACE;
    sf_frames_out out = {r->pos, r->nrm, r->tan};
    sf_error err;
    sf_result res = sf_frames_compute(r->topo, pose, SF_METHOD_RECOMPUTE, &o, r->ws, &out, &err);
    if (res != SF_OK) fprintf(stderr, "  %s\n", err.message);
    return res;
}

/* A mesh of positions, UVs and triangles only (no normals: generated; not skinned). */
static sf_mesh_desc uv_mesh(const float* positions, const float* uvs, size_t vertex_count, const uint32_t* indices,
                            size_t triangle_count)
{
    sf_mesh_desc m;
    memset(&m, 0, sizeof m);
    m.vertex_count = vertex_count;
    m.triangle_count = triangle_count;
    m.indices = indices;
    m.positions.data = positions;
    m.uvs.data = uvs;
    return m;
}

static sf_result run_mesh(mikk_run* r, const sf_mesh_desc* mesh, const sf_pose* pose, sf_weld weld)
{
    memset(r, 0, sizeof *r);
    sf_result res = sf_topology_create(mesh, NULL, NULL, &r->topo, NULL);
    if (res != SF_OK) return res;
    return run_frame(r, pose, weld);
}

static const float* corner_tangent(const mikk_run* r, size_t corner)
{
    return sfi_mikktspace_corner_tangents(r->ws) + 4 * corner;
}

/* ---------------------------------------------------------------- hand-computed cases */

static void check_tangent(const float* t, float x, float y, float z, float w, int* ok)
{
    if (!(fabsf(t[0] - x) < 1e-5f && fabsf(t[1] - y) < 1e-5f && fabsf(t[2] - z) < 1e-5f && t[3] == w)) {
        fprintf(stderr, "  tangent (%g %g %g %g), want (%g %g %g %g)\n", (double)t[0], (double)t[1], (double)t[2],
                (double)t[3], (double)x, (double)y, (double)z, (double)w);
        *ok = 0;
    }
}

/* Two triangles sharing vertex 0 and edge 0-2 in the xy plane, normal +z:
 *   A (0,1,2) = O, (1,0,0), (0,1,0), UVs (0,0) (1,0) (0,1): dP/du = +x, corner angle 90 deg
 *   B (0,2,3) = O, (0,1,0), (-1,0,0), UVs (0,0) (0,1) (-0.5,0.5): dP/du = unit(1, 0.5, 0), angle 90 deg
 * MikkTSpace at O and at vertex 2: unit((1,0,0) + unit(1,0.5,0)) (equal angles), w = +1 (positive UV
 * area); vertex 1 only in A: +x; vertex 3 only in B. */
static void test_fan_by_hand(void)
{
    float positions[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, -1, 0, 0};
    float uvs[] = {0, 0, 1, 0, 0, 1, -0.5f, 0.5f};
    uint32_t indices[] = {0, 1, 2, 0, 2, 3};
    sf_mesh_desc m = uv_mesh(positions, uvs, 4, indices, 2);
    m.uv_convention = SF_UV_V_UP; /* per-vertex w = MikkTSpace's own sign */
    sf_pose pose = {NULL, 0, NULL, 0};
    mikk_run r;
    CHECK_OK(run_mesh(&r, &m, &pose, SF_WELD_NONE));
    float b = 1.0f / sqrtf(1.25f), sx = 1.0f + b, sy = 0.5f * b, len = sqrtf(sx * sx + sy * sy);
    int ok = 1;
    check_tangent(r.tan + 0, sx / len, sy / len, 0, 1, &ok);
    check_tangent(r.tan + 4, 1, 0, 0, 1, &ok);
    check_tangent(r.tan + 8, sx / len, sy / len, 0, 1, &ok);
    check_tangent(r.tan + 12, b, 0.5f * b, 0, 1, &ok);
    run_free(&r);
    CHECK(ok);
}

/* The same fan with B's UVs mirrored (negative area): A and B fall in different groups at the shared
 * vertices, so the corners of one vertex disagree, and B's corners get w = -1. */
static void test_mirrored_split(void)
{
    float positions[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, -1, 0, 0};
    float uvs[] = {0, 0, 1, 0, 0, 1, 0.5f, 1.5f};
    uint32_t indices[] = {0, 1, 2, 0, 2, 3};
    sf_mesh_desc m = uv_mesh(positions, uvs, 4, indices, 2);
    sf_pose pose = {NULL, 0, NULL, 0};
    mikk_run r;
    CHECK_OK(run_mesh(&r, &m, &pose, SF_WELD_NONE));
    /* B: d1 = (0,1,0), d2 = (-1,0,0), t21 = (0,1), t31 = (0.5,1.5): os = 1.5 d1 - d2 = (1, 1.5, 0), area -0.5,
     * so dP/du = -(1, 1.5, 0) / |.| */
    float l = sqrtf(1.0f + 2.25f);
    int ok = 1;
    check_tangent(corner_tangent(&r, 0), 1, 0, 0, 1, &ok);
    check_tangent(corner_tangent(&r, 3), -1.0f / l, -1.5f / l, 0, -1, &ok);
    check_tangent(corner_tangent(&r, 4), -1.0f / l, -1.5f / l, 0, -1, &ok);
    /* per vertex, in the default glTF convention: w = -(MikkTSpace's sign) */
    check_tangent(r.tan + 12, -1.0f / l, -1.5f / l, 0, 1, &ok); /* vertex 3 only in B */
    check_tangent(r.tan + 0, 1, 0, 0, -1, &ok);                   /* vertex 0: its first corner (A) */
    run_free(&r);
    CHECK(ok);
}

/* A triangle with zero UV area groups with nothing on its own: MikkTSpace's default (1, 0, 0), w = -1.
 * Beside a good triangle it joins that triangle's group and takes its tangent. A triangle with two
 * corners at one position copies the first good corner of the same shared vertex. */
static void test_degenerate(void)
{
    float positions[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 5, 5, 5};
    float uvs[] = {0, 0, 0, 0, 0, 0, 0.5f, 0.5f, 0.2f, 0.2f};
    uint32_t indices[] = {0, 1, 2};
    sf_mesh_desc m = uv_mesh(positions, uvs, 5, indices, 1);
    sf_pose pose = {NULL, 0, NULL, 0};
    mikk_run r;
    CHECK_OK(run_mesh(&r, &m, &pose, SF_WELD_NONE));
    int ok = 1;
    for (int c = 0; c < 3; ++c) check_tangent(corner_tangent(&r, (size_t)c), 1, 0, 0, -1, &ok);
    CHECK(isfinite(r.tan[16]) && r.tan[16] == 0.0f); /* isolated vertex 4: zero tangent */
    run_free(&r);
    CHECK(ok);

    /* Triangle 0 (0,1,2) has zero UV area; triangle 1 (1,3,2) is good, with d1 = (0,1,0), d2 = (-1,1,0),
     * t21 = (0,1), t31 = (-1,1): os = d1 - d2 = (1,0,0), area +1; triangle 2 (2,4,4) repeats a position.
     * Vertex 4 sits on vertex 2 with another UV, so it is a different shared vertex. */
    float positions2[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 1, 0};
    float uvs2[] = {1, 0, 1, 0, 0, 1, 1, 1, 0.2f, 0.2f};
    uint32_t indices2[] = {0, 1, 2, 1, 3, 2, 2, 4, 4};
    m.indices = indices2;
    m.triangle_count = 3;
    m.positions.data = positions2;
    m.uvs.data = uvs2;
    CHECK_OK(run_mesh(&r, &m, &pose, SF_WELD_NONE));
    check_tangent(corner_tangent(&r, 3), 1, 0, 0, 1, &ok);  /* the good triangle */
    check_tangent(corner_tangent(&r, 1), 1, 0, 0, 1, &ok);  /* zero-UV triangle joined the group at 1 ... */
    check_tangent(corner_tangent(&r, 2), 1, 0, 0, 1, &ok);  /* ... and at 2 */
    check_tangent(corner_tangent(&r, 0), 1, 0, 0, -1, &ok); /* no group reaches vertex 0: the default */
    const float* c2 = corner_tangent(&r, 2);
    check_tangent(corner_tangent(&r, 6), c2[0], c2[1], c2[2], c2[3], &ok); /* degenerate: copies vertex 2 */
    check_tangent(corner_tangent(&r, 7), 1, 0, 0, -1, &ok);                 /* vertex 4: nothing to copy */
    for (size_t i = 0; i < 4 * 5; ++i) CHECK(isfinite(r.tan[i]));
    run_free(&r);
    CHECK(ok);
}

/* Flat grid, u along +x and v along +y: every tangent is +x; w = -1 in the default glTF convention (v
 * grows downward, so +Y of the normal map runs along -y), the same as the `uv` tangents; a mirroring
 * bone flips w. */
static void test_grid_and_mirror(void)
{
    enum { G = 4, V = (G + 1) * (G + 1) };
    float positions[V * 3], uvs[V * 2], weights[V];
    uint32_t joints[V], indices[G * G * 6];
    for (int y = 0; y <= G; ++y)
        for (int x = 0; x <= G; ++x) {
            int v = y * (G + 1) + x;
            positions[3 * v] = (float)x, positions[3 * v + 1] = (float)y, positions[3 * v + 2] = 0.0f;
            uvs[2 * v] = (float)x / G, uvs[2 * v + 1] = (float)y / G;
            joints[v] = 0, weights[v] = 1.0f;
        }
    uint32_t* t = indices;
    for (int y = 0; y < G; ++y)
        for (int x = 0; x < G; ++x) {
            uint32_t a = (uint32_t)(y * (G + 1) + x), b = a + 1, c = a + G + 1, d = c + 1;
            uint32_t q[6] = {a, b, d, a, d, c};
            memcpy(t, q, sizeof q);
            t += 6;
        }
    sf_mesh_desc m = uv_mesh(positions, uvs, V, indices, G * G * 2);
    m.influence_count = 1;
    m.joints = joints;
    m.weights = weights;
    m.bone_count = 1;
    float bone[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    sf_pose pose = {bone, 1, NULL, 0};
    mikk_run r;
    CHECK_OK(run_mesh(&r, &m, &pose, SF_WELD_NONE));
    int ok = 1;
    for (int v = 0; v < V; ++v) check_tangent(r.tan + 4 * v, 1, 0, 0, -1, &ok); /* glTF convention: v up is -1 */
    /* the uv mode agrees */
    float uvt[V * 4];
    sf_frames_out out = {NULL, NULL, uvt};
    CHECK_OK(sf_frames_compute(r.topo, &pose, SF_METHOD_RECOMPUTE, NULL, r.ws, &out, NULL));
    for (int v = 0; v < V; ++v) CHECK(uvt[4 * v + 3] == r.tan[4 * v + 3]);
    /* mirror x: tangent -x (it follows the edges), w flips */
    bone[0] = -1.0f;
    CHECK_OK(run_frame(&r, &pose, SF_WELD_NONE));
    for (int v = 0; v < V; ++v) check_tangent(r.tan + 4 * v, -1, 0, 0, 1, &ok);
    CHECK_OK(sf_frames_compute(r.topo, &pose, SF_METHOD_RECOMPUTE, NULL, r.ws, &out, NULL));
    for (int v = 0; v < V; ++v) CHECK(uvt[4 * v + 3] == r.tan[4 * v + 3]);
    /* tangents only (no normals requested) give the same result */
    float only[V * 4];
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    o.tangents = SF_TANGENTS_MIKKTSPACE;
    sf_frames_out out2 = {NULL, NULL, only};
    CHECK_OK(sf_frames_compute(r.topo, &pose, SF_METHOD_RECOMPUTE, &o, r.ws, &out2, NULL));
    CHECK(memcmp(only, r.tan, sizeof only) == 0);
    run_free(&r);
    CHECK(ok);
}

/* ---------------------------------------------------------------- the npm reference */

static int node_state = 0; /* 0 unknown, 1 ready, -1 missing (skip), -2 install failed */

static int node_ready(void)
{
    if (node_state) return node_state;
    const char* src = getenv("SF_SOURCE_DIR");
    const char* build = getenv("SF_BUILD_DIR");
    if (!src || !build || system("command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1") != 0) {
        node_state = -1;
        return node_state;
    }
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd '%s/mikktspace-reference' && { [ -f node_modules/mikktspace/package.json ] || "
             "npm install --no-audit --no-fund --silent >/dev/null 2>&1; } && "
             "[ -f node_modules/mikktspace/package.json ]",
             build);
    node_state = system(cmd) == 0 ? 1 : -2;
    if (node_state == -2) fprintf(stderr, "  npm install of mikktspace failed in %s/mikktspace-reference\n", build);
    return node_state;
}

typedef struct agreement {
    double max_diff;   /* largest |component| difference of tangent xyz */
    size_t corners, handed_mismatch, over_tol;
    size_t vertex_w_mismatch; /* per-vertex w against the npm sign converted to the mesh's uv convention */
    size_t split_vertices;    /* vertices whose corners got different tangents */
    int failed;               /* the reference did not run or its output did not parse */
    size_t reference_errors;  /* meshes the reference itself failed on (it traps when every triangle is
                                 degenerate); ours must then give MikkTSpace's default everywhere */
    size_t non_default;       /* corners of those meshes where ours is not the default (1, 0, 0, -1) */
} agreement;

/* Meshes wait here until one node run handles them all (node starts are the slow part). */
#define MAX_PENDING 512
typedef struct pending {
    char in_path[600], out_path[600];
    size_t corners, vertices;
    float* ours;      /* 4 * corners: our corner tangents, MikkTSpace's own sign */
    float* vertex_w;  /* vertices: our per-vertex w */
    float* w_factor;  /* vertices: npm sign -> per-vertex w (uv convention, mirroring); 0 = no corner */
    uint32_t* first;  /* vertices: first corner */
    agreement* into;
} pending;
static pending pend[MAX_PENDING];
static size_t pend_count;

/* Writes the last frame of r as unindexed corners for the npm package and keeps ours for later. */
static int queue_npm(const mikk_run* r, agreement* into)
{
    if (pend_count == MAX_PENDING) return 0;
    const sf_topology* topo = r->topo;
    size_t F = sf_topology_triangle_count(topo), n = sf_topology_vertex_count(topo);
    const uint32_t* idx = sf_topology_indices(topo);
    const float* uv = sf_topology_uvs(topo);
    const float* ours = sfi_mikktspace_corner_tangents(r->ws);
    const char* dir = getenv("SF_BUILD_DIR");
    pending* p = &pend[pend_count];
    memset(p, 0, sizeof *p);
    snprintf(p->in_path, sizeof p->in_path, "%s/mikk_%zu.in.txt", dir ? dir : "/tmp", pend_count);
    snprintf(p->out_path, sizeof p->out_path, "%s/mikk_%zu.out.txt", dir ? dir : "/tmp", pend_count);
    p->corners = 3 * F;
    p->vertices = n;
    p->into = into;
    p->ours = malloc((4 * 3 * F + 1) * sizeof(float));
    p->vertex_w = malloc((n + 1) * sizeof(float));
    p->w_factor = malloc((n + 1) * sizeof(float));
    p->first = malloc((n + 1) * sizeof(uint32_t));
    FILE* f = fopen(p->in_path, "w");
    if (!ours || !p->ours || !p->vertex_w || !p->w_factor || !p->first || !f) {
        if (f) fclose(f);
        return 0;
    }
    pend_count++;
    memcpy(p->ours, ours, 4 * 3 * F * sizeof(float));
    fprintf(f, "%zu\n", 3 * F);
    for (size_t c = 0; c < 3 * F; ++c) {
        uint32_t v = idx[c];
        const float *q = r->pos + 3 * v, *nn = r->nrm + 3 * v, *t = uv + 2 * v;
        fprintf(f, "%.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", (double)q[0], (double)q[1], (double)q[2],
                (double)nn[0], (double)nn[1], (double)nn[2], (double)t[0], (double)t[1]);
    }
    fclose(f);
    for (size_t v = 0; v < n; ++v) {
        int has = topo->adj_offsets[v] < topo->adj_offsets[v + 1];
        p->first[v] = has ? topo->adj_corners[topo->adj_offsets[v]] : 0;
        p->w_factor[v] = has ? topo->bitangent_sign * (r->ws->det[v] < 0.0f ? -1.0f : 1.0f) : 0.0f;
        p->vertex_w[v] = r->tan[4 * v + 3];
        /* the per-vertex output is the vertex's first corner; count the vertices MikkTSpace splits */
        for (uint32_t k = topo->adj_offsets[v] + 1; k < topo->adj_offsets[v + 1]; ++k) {
            if (memcmp(ours + 4 * topo->adj_corners[topo->adj_offsets[v]], ours + 4 * topo->adj_corners[k], 16)) {
                into->split_vertices++;
                break;
            }
        }
    }
    return 1;
}

/* Runs the npm package once over every queued mesh and compares corner by corner. */
static int flush_npm(void)
{
    const char* src = getenv("SF_SOURCE_DIR");
    const char* build = getenv("SF_BUILD_DIR");
    size_t size = 256 + strlen(src) + strlen(build);
    for (size_t i = 0; i < pend_count; ++i) size += strlen(pend[i].in_path) + strlen(pend[i].out_path) + 8;
    char* cmd = malloc(size);
    if (!cmd) return 0;
    int used = snprintf(cmd, size,
                        "node '%s/tests/mikktspace/run.js' --module '%s/mikktspace-reference/node_modules/mikktspace'",
                        src, build);
    for (size_t i = 0; i < pend_count; ++i)
        used += snprintf(cmd + used, size - (size_t)used, " '%s' '%s'", pend[i].in_path, pend[i].out_path);
    int ran = system(cmd) == 0;
    free(cmd);
    for (size_t i = 0; i < pend_count; ++i) {
        pending* p = &pend[i];
        agreement* a = p->into;
        FILE* f = ran ? fopen(p->out_path, "r") : NULL;
        float* npm_w = calloc(p->corners + 1, sizeof(float));
        int ok = f && npm_w;
        char word[8] = "";
        if (ok && fscanf(f, "%7s", word) == 1 && strcmp(word, "error") == 0) {
            a->reference_errors++;
            for (size_t c = 0; c < p->corners; ++c) {
                const float* t = p->ours + 4 * c;
                a->non_default += !(t[0] == 1.0f && t[1] == 0.0f && t[2] == 0.0f && t[3] == -1.0f);
            }
            ok = 0;
            p->corners = 0;
        } else if (ok) {
            rewind(f);
        }
        for (size_t c = 0; ok && c < p->corners; ++c) {
            double ref[4];
            if (fscanf(f, "%lf %lf %lf %lf", &ref[0], &ref[1], &ref[2], &ref[3]) != 4) {
                ok = 0;
                break;
            }
            double d = 0.0;
            for (int k = 0; k < 3; ++k) d = fmax(d, fabs(ref[k] - (double)p->ours[4 * c + k]));
            if (d > a->max_diff) a->max_diff = d;
            if (d > TANGENT_TOL) a->over_tol++;
            if ((d > TANGENT_TOL || (ref[3] < 0) != (p->ours[4 * c + 3] < 0)) && getenv("SF_MIKK_DEBUG"))
                fprintf(stderr, "  mesh %zu corner %zu: npm (%g %g %g %g) ours (%g %g %g %g)\n", i, c, ref[0], ref[1],
                        ref[2], ref[3], (double)p->ours[4 * c], (double)p->ours[4 * c + 1], (double)p->ours[4 * c + 2],
                        (double)p->ours[4 * c + 3]);
            if ((ref[3] < 0) != (p->ours[4 * c + 3] < 0)) a->handed_mismatch++;
            npm_w[c] = (float)ref[3];
            a->corners++;
        }
        for (size_t v = 0; ok && v < p->vertices; ++v)
            if (p->w_factor[v] != 0.0f && (npm_w[p->first[v]] * p->w_factor[v] < 0) != (p->vertex_w[v] < 0))
                a->vertex_w_mismatch++;
        if (!ok && p->corners) a->failed = 1;
        if (f) fclose(f);
        free(npm_w);
        if (!getenv("SF_MIKK_DEBUG")) {
            remove(p->in_path);
            remove(p->out_path);
        }
        free(p->ours);
        free(p->vertex_w);
        free(p->w_factor);
        free(p->first);
    }
    pend_count = 0;
    return ran;
}

/* Vertices whose welded (position+normal) normal differs from the unwelded one by more than 0.01 deg. */
static size_t seam_vertices_fixed(mikk_run* r, const sf_pose* pose)
{
    size_t n = sf_topology_vertex_count(r->topo), count = 0;
    float* a = calloc(3 * n + 1, sizeof(float));
    float* b = calloc(3 * n + 1, sizeof(float));
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    sf_frames_out out = {NULL, a, NULL};
    if (a && b && sf_frames_compute(r->topo, pose, SF_METHOD_RECOMPUTE, &o, r->ws, &out, NULL) == SF_OK) {
        o.weld = SF_WELD_POSITION_NORMAL;
        out.normals = b;
        if (sf_frames_compute(r->topo, pose, SF_METHOD_RECOMPUTE, &o, r->ws, &out, NULL) == SF_OK)
            for (size_t v = 0; v < n; ++v)
                if (sf_angle_deg(a + 3 * v, b + 3 * v) > 0.01) count++;
    }
    free(a);
    free(b);
    return count;
}

static void test_npm_scenes(void)
{
    if (node_ready() != 1) {
        CHECK(node_state != -2);
        return;
    }
    static agreement agree[64];
    static char labels[64][96];
    size_t lines = 0;
    memset(agree, 0, sizeof agree);
    for (size_t s = 0; s < sf_scene_count(); ++s) {
        const sf_scene_info* info = sf_scene_info_at(s);
        for (size_t p = 0; p <= info->preset_count; ++p) {
            const char* preset = p ? info->presets[p - 1].name : NULL;
            sf_scene* scene = NULL;
            CHECK_OK(sf_scene_create(info->name, preset, NULL, 0, NULL, &scene, NULL));
            if (!scene->mesh.uvs.data) {
                sf_scene_destroy(scene);
                continue;
            }
            mikk_run r;
            for (int weld = 0; weld < 2 && lines < 64; ++weld) {
                CHECK_OK(run_mesh(&r, &scene->mesh, &scene->pose, weld ? SF_WELD_POSITION_NORMAL : SF_WELD_NONE));
                snprintf(labels[lines], sizeof labels[lines], "%-8s %-16s weld %s", info->name,
                         preset ? preset : "(rest)", weld ? "position+normal" : "none");
                CHECK(queue_npm(&r, &agree[lines]));
                lines++;
                run_free(&r);
            }
            sf_scene_destroy(scene);
        }
    }
    CHECK(flush_npm());
    double worst = 0.0;
    size_t total = 0;
    for (size_t i = 0; i < lines; ++i) {
        const agreement* a = &agree[i];
        printf("  scene %s: %6zu corners, max |dt| %.2e, handedness mismatches %zu (per vertex %zu), split %zu\n",
               labels[i], a->corners, a->max_diff, a->handed_mismatch, a->vertex_w_mismatch, a->split_vertices);
        worst = fmax(worst, a->max_diff);
        total += a->corners;
        CHECK(!a->failed && a->corners > 0);
        CHECK(a->over_tol == 0);
        CHECK(a->handed_mismatch == 0 && a->vertex_w_mismatch == 0);
    }
    printf("  scenes: %zu corners, max tangent difference %.2e\n", total, worst);
}

/* Random small meshes on coarse lattices of positions, UVs and normals, so that everything MikkTSpace
 * handles specially happens often: shared vertices across indices, degenerate and collinear triangles,
 * zero UV areas, mirrored UVs, non-manifold edges, duplicate triangles. Corner by corner against the npm
 * package, with the given normals (sfi_mikktspace_tangents called directly at the rest positions). */
static void test_npm_random(void)
{
    if (node_ready() != 1) {
        CHECK(node_state != -2);
        return;
    }
    enum { MESHES = 240, MAX_V = 40, MAX_T = 90 };
    static const float dirs[8][3] = {{1, 0, 0},  {0, 1, 0},  {0, 0, 1},           {-1, 0, 0},
                                     {0, -1, 0}, {0, 0, -1}, {0.6f, 0.8f, 0.0f}, {0.0f, 0.6f, -0.8f}};
    static agreement agree;
    memset(&agree, 0, sizeof agree);
    static mikk_run runs[MESHES];
    uint32_t seed = 12345u;
#define NEXT_RANDOM(mod) ((seed = seed * 1664525u + 1013904223u), (seed >> 8) % (mod))
    size_t corners = 0;
    for (int mesh_i = 0; mesh_i < MESHES; ++mesh_i) {
        const int V = 6 + mesh_i % (MAX_V - 5), T = 4 + (mesh_i * 7) % (MAX_T - 3);
        float positions[MAX_V * 3], uvs[MAX_V * 2];
        uint32_t indices[MAX_T * 3];
        corners += 3 * (size_t)T;
        mikk_run* r = &runs[mesh_i];
        memset(r, 0, sizeof *r);
        r->nrm = malloc((size_t)V * 3 * sizeof(float));
        r->tan = malloc((size_t)V * 4 * sizeof(float));
        r->pos = malloc((size_t)V * 3 * sizeof(float));
        CHECK(r->nrm && r->tan && r->pos);
        for (int v = 0; v < V; ++v) {
            for (int k = 0; k < 3; ++k) positions[3 * v + k] = (float)NEXT_RANDOM(3u);
            for (int k = 0; k < 2; ++k) uvs[2 * v + k] = 0.5f * (float)NEXT_RANDOM(3u);
            memcpy(r->nrm + 3 * v, dirs[NEXT_RANDOM(8u)], 3 * sizeof(float));
        }
        /* some vertices repeat another's position, UV and normal exactly: shared vertices */
        for (int v = V - 3; v < V; ++v) {
            int src = (int)NEXT_RANDOM((uint32_t)(V - 3));
            memcpy(positions + 3 * v, positions + 3 * src, 12);
            memcpy(uvs + 2 * v, uvs + 2 * src, 8);
            memcpy(r->nrm + 3 * v, r->nrm + 3 * src, 12);
        }
        for (int i = 0; i < 3 * T; ++i) indices[i] = NEXT_RANDOM((uint32_t)V);
        sf_mesh_desc m = uv_mesh(positions, uvs, (size_t)V, indices, (size_t)T);
        CHECK_OK(sf_topology_create(&m, NULL, NULL, &r->topo, NULL));
        CHECK_OK(sf_workspace_create(r->topo, NULL, &r->ws, NULL));
        memcpy(r->pos, positions, (size_t)V * 3 * sizeof(float));
        CHECK_OK(sfi_mikktspace_tangents(r->topo, r->pos, r->nrm, r->ws, r->tan, NULL));
        for (int i = 0; i < 4 * V; ++i) CHECK(isfinite(r->tan[i]));
        CHECK(queue_npm(r, &agree));
    }
#undef NEXT_RANDOM
    CHECK(flush_npm());
    for (int mesh_i = 0; mesh_i < MESHES; ++mesh_i) run_free(&runs[mesh_i]);
    printf("  %d random meshes: %zu corners, max |dt| %.2e, handedness mismatches %zu (per vertex %zu), split %zu; "
           "the reference failed on %zu meshes (every triangle degenerate), ours gave the default there\n",
           MESHES, agree.corners, agree.max_diff, agree.handed_mismatch, agree.vertex_w_mismatch, agree.split_vertices,
           agree.reference_errors);
    CHECK(!agree.failed && agree.corners <= corners && agree.corners > corners / 2);
    CHECK(agree.non_default == 0);
    CHECK(agree.over_tol == 0);
    CHECK(agree.handed_mismatch == 0);
}

static const char* const assets[] = {
    "gltf/CesiumMan/glTF-Binary/CesiumMan.glb",
    "gltf/Fox/glTF-Binary/Fox.glb",
    "gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb",
    "gltf/AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf",
    "gltf/MorphStressTest/glTF-Binary/MorphStressTest.glb",
    "gltf/InterpolationTest/glTF-Binary/InterpolationTest.glb",
    "gltf/NormalTangentMirrorTest/glTF-Binary/NormalTangentMirrorTest.glb",
    "gltf/NormalTangentTest/glTF-Binary/NormalTangentTest.glb",
    "gltf/SimpleSkin/glTF/SimpleSkin.gltf",
    "gltf/SimpleMorph/glTF/SimpleMorph.gltf",
    "gltf/SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf",
};

/* Supplied glTF tangents against ours at rest, computed from the asset's own normals (as its exporter
 * did): xyz angle and w (both in the glTF convention). r: after a rest frame (unit determinants). */
static void authored_agreement(const mikk_run* r, const sf_mesh_desc* mesh, double* max_deg, size_t* w_match,
                               size_t* counted)
{
    *max_deg = 0.0;
    *w_match = *counted = 0;
    if (sfi_mikktspace_tangents(r->topo, sf_topology_rest_positions(r->topo), sf_topology_rest_normals(r->topo),
                                r->ws, r->tan, NULL) != SF_OK)
        return;
    for (size_t v = 0; v < mesh->vertex_count; ++v) {
        const float* t = sfi_stream_at(mesh->tangents, 16, v);
        double d = sf_angle_deg(t, r->tan + 4 * v);
        if (d > *max_deg) *max_deg = d;
        *w_match += (t[3] < 0) == (r->tan[4 * v + 3] < 0);
        (*counted)++;
    }
}

static void test_npm_assets(void)
{
    if (node_ready() != 1) {
        CHECK(node_state != -2);
        return;
    }
    enum { ASSETS = sizeof assets / sizeof assets[0] };
    static agreement agree[ASSETS];
    static size_t fixed_of[ASSETS], prims_of[ASSETS], verts_of[ASSETS], auth_w_of[ASSETS], auth_n_of[ASSETS];
    static double auth_deg_of[ASSETS];
    static int present[ASSETS];
    memset(agree, 0, sizeof agree);
    char path[1024];
    for (size_t i = 0; i < ASSETS; ++i) {
        if (!sft_asset(assets[i], path, sizeof path)) continue;
        present[i] = 1;
        sf_gltf* gltf = NULL;
        CHECK_OK(sf_gltf_load_file(path, NULL, NULL, &gltf, NULL));
        sf_gltf_pose* gp = NULL;
        CHECK_OK(sf_gltf_pose_create(gltf, NULL, &gp, NULL));
        size_t fixed = 0, prims = 0, verts = 0;
        double auth_deg = 0.0;
        size_t auth_w = 0, auth_n = 0;
        for (size_t in = 0; in < gltf->instance_count; ++in) {
            const sf_gltf_instance* inst = &gltf->instances[in];
            const sf_gltf_mesh* gm = &gltf->meshes[inst->mesh];
            float* bones = calloc(12 * inst->bone_count, sizeof(float));
            float* morph = calloc(gm->target_count + 1, sizeof(float));
            CHECK(bones && morph);
            for (size_t p = 0; p < gm->primitive_count; ++p) {
                size_t prim = gm->first_primitive + p;
                sf_mesh_desc mesh;
                CHECK_OK(sf_gltf_instance_mesh(gltf, in, prim, &mesh, NULL));
                if (!mesh.uvs.data || mesh.triangle_count == 0) continue;
                mikk_run r;
                memset(&r, 0, sizeof r);
                CHECK_OK(sf_topology_create(&mesh, NULL, NULL, &r.topo, NULL));
                /* rest, then the middle of the first animation */
                for (int frame = 0; frame < 2; ++frame) {
                    size_t anim = frame && gltf->animation_count ? 0 : SF_GLTF_NONE;
                    double t = anim == 0 ? 0.5 * (gltf->animations[0].start_s + gltf->animations[0].end_s) : 0.0;
                    CHECK_OK(sf_gltf_pose_sample(gp, anim, t, NULL));
                    CHECK_OK(sf_gltf_pose_instance(gp, in, bones, morph, NULL, NULL));
                    sf_pose pose = {bones, inst->bone_count, gm->target_count ? morph : NULL, gm->target_count};
                    CHECK_OK(run_frame(&r, &pose, SF_WELD_POSITION_NORMAL));
                    CHECK(queue_npm(&r, &agree[i]));
                    if (frame == 0) {
                        fixed += seam_vertices_fixed(&r, &pose);
                        if (mesh.tangents.data) {
                            double d;
                            size_t w, nn;
                            authored_agreement(&r, &mesh, &d, &w, &nn);
                            auth_deg = fmax(auth_deg, d);
                            auth_w += w;
                            auth_n += nn;
                        }
                    }
                }
                prims++;
                verts += mesh.vertex_count;
                run_free(&r);
            }
            free(bones);
            free(morph);
        }
        fixed_of[i] = fixed, prims_of[i] = prims, verts_of[i] = verts;
        auth_deg_of[i] = auth_deg, auth_w_of[i] = auth_w, auth_n_of[i] = auth_n;
        sf_gltf_pose_destroy(gp);
        sf_gltf_destroy(gltf);
    }
    CHECK(flush_npm());
    size_t tested = 0;
    for (size_t i = 0; i < ASSETS; ++i) {
        if (!present[i]) continue;
        const agreement* a = &agree[i];
        printf("  %-62s %2zu prims %5zu verts: %6zu corners, max |dt| %.2e, handedness %zu/%zu agree (per vertex "
               "%zu mismatches), split %zu, seam vertices fixed by welding %zu",
               assets[i], prims_of[i], verts_of[i], a->corners, a->max_diff, a->corners - a->handed_mismatch, a->corners,
               a->vertex_w_mismatch, a->split_vertices, fixed_of[i]);
        if (auth_n_of[i])
            printf("; supplied TANGENT vs ours (rest, asset normals): max %.3f deg, w agrees at %zu/%zu", auth_deg_of[i],
                   auth_w_of[i], auth_n_of[i]);
        printf("\n");
        CHECK(!a->failed);
        CHECK(a->over_tol == 0);
        CHECK(a->handed_mismatch == 0 && a->vertex_w_mismatch == 0);
        tested += prims_of[i] > 0;
    }
    printf("  %zu assets with UVs compared\n", tested);
    CHECK(tested >= 5 || !getenv("SF_ASSETS"));
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"fan_by_hand", test_fan_by_hand},
        {"mirrored_split", test_mirrored_split},
        {"degenerate", test_degenerate},
        {"grid_and_mirror", test_grid_and_mirror},
        {"npm_random", test_npm_random},
        {"npm_scenes", test_npm_scenes},
        {"npm_assets", test_npm_assets},
    };
    int rc = SFT_RUN(cases, argc, argv);
    if (rc == 0 && node_state == -1) {
        printf("node or npm missing: the comparison with the npm package was skipped\n");
        return 77;
    }
    return rc;
}

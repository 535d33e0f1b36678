// LABELS: unit
/* MikkTSpace-compatible tangents: hand-computed cases (flat grid, angle-weighted fan, mirrored UVs,
 * degenerate UV and position triangles), then agreement with the reference implementation, the npm
 * package `mikktspace` (a WebAssembly build of the original algorithm, installed by npm into
 * $SF_BUILD_DIR/mikktspace-reference) run by tests/mikktspace/run.js,
 * on every built-in scene and preset and on every staged glTF asset with UVs, at rest and at an animated
 * frame: tangent xyz within 1e-3 and identical handedness at every triangle corner. Then the per-vertex
 * outputs at every corner (within 1e-4 degrees, same handedness): the glTF loader's generated TANGENT (split
 * where corners differ), the evaluation's per-corner reference and the split of it (sf_tangents_split) at rest
 * and at posed frames of CesiumMan and Fox, random meshes with mirrored and zero-area UVs, and a bake round
 * trip. Also the split by hand, the topology's split count, the loader carrying every stream to the copies,
 * and the evaluation's per-corner error by hand. Exits 77 (skipped) for the comparison part only when node or
 * npm is missing; the hand-computed cases always run.
 * Also prints, per asset, how many seam vertices welding fixes (welded vs unwelded normal > 0.01 deg).
 * Then frames on one workspace, which reuse the classes, neighbours and groups an earlier frame built, against
 * a fresh workspace per frame, bit for bit: random lattice meshes, every scene and staged asset's clips, random
 * poses of the characters, and a grid made to reach each fallback (non-manifold edge, coincident vertices that
 * split and merge, triangles that collapse), each checking which path its frames took; the same frames through
 * the two-step calls (the graph, then the sums: what the CUDA backend splits) bit for bit on a third workspace. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "sf_internal.h"
#include "sf_kernels.h"
#include "sf_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PI_F 3.14159265358979f
#define TANGENT_TOL 1e-3

/* ---------------------------------------------------------------- the arc cosine */

/* |got - acos(x)| in units of the float ulp at acos(x), acos in double. */
static double acos_ulps(float x)
{
    double ref = acos((double)x);
    int e = 0;
    (void)frexp(ref, &e); /* ref in [2^(e-1), 2^e): float ulp 2^(e-24) */
    double ulp = ldexp(1.0, (e < -125 ? -125 : e) - 24);
    return fabs((double)sfk_acos_ieee(x) - ref) / ulp;
}

/* sfk_acos_ieee (MikkTSpace's corner angle, on the CPU and the GPU) against acos in double: every 61st float of
 * [-1, 1], and every float within 2^16 of -1, -1/2, 0, 1/2 and 1 (where the formula changes branch or the result
 * nears zero). Within half an ulp plus 2^-10 (the double's own error): correctly rounded but near ties.
 * Out of range and NaN give NaN, as acosf. */
static void test_acos_ieee(void)
{
    double worst = 0.0;
    float worst_x = 0.0f;
    size_t count = 0, off_acosf = 0;
    uint32_t one = 0x3f800000u;
    for (int sign = 0; sign < 2; ++sign)
        for (uint32_t b = 0; b <= one; b += (b + 61 > one && b != one) ? one - b : 61) {
            uint32_t bits = b | (sign ? 0x80000000u : 0u);
            float x;
            memcpy(&x, &bits, sizeof x);
            double u = acos_ulps(x);
            if (u > worst) worst = u, worst_x = x;
            off_acosf += sfk_acos_ieee(x) != acosf(x);
            ++count;
        }
    const float centres[] = {-1.0f, -0.5f, 0.0f, 0.5f, 1.0f};
    for (size_t k = 0; k < sizeof centres / sizeof centres[0]; ++k)
        for (int d = -65536; d <= 65536; ++d) {
            float x = centres[k];
            uint32_t bits;
            memcpy(&bits, &x, sizeof bits);
            if (x == 0.0f) { /* both signs of the smallest magnitudes */
                bits = (uint32_t)(d < 0 ? -d : d) | (d < 0 ? 0x80000000u : 0u);
            } else {
                int64_t mag = (int64_t)(bits & 0x7fffffffu) + d;
                if (mag > 0x3f800000) continue;
                bits = (uint32_t)mag | (bits & 0x80000000u);
            }
            memcpy(&x, &bits, sizeof x);
            double u = acos_ulps(x);
            if (u > worst) worst = u, worst_x = x;
            ++count;
        }
    printf("acos_ieee: %zu arguments, largest error %.6f ulp at %.9g; %zu of the sweep's differ from acosf\n", count,
           worst, (double)worst_x, off_acosf);
    CHECK(worst <= 0.5 + 1.0 / 1024.0);
    CHECK(sfk_acos_ieee(1.0f) == 0.0f);
    CHECK(sfk_acos_ieee(-1.0f) == (float)acos(-1.0));
    CHECK(sfk_acos_ieee(0.0f) == (float)acos(0.0));
    CHECK(isnan(sfk_acos_ieee(nextafterf(1.0f, 2.0f))) && isnan(sfk_acos_ieee(-2.0f)) && isnan(sfk_acos_ieee(NAN)));
}

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
    struct npm_job* job; /* instead of into: the npm tangents are kept for the caller */
} pending;
static pending pend[MAX_PENDING];
static size_t pend_count;

/* The next queued mesh's files, named by this process too: the test's default and scalar entries run at once. */
static void pending_paths(pending* p)
{
    const char* dir = getenv("SF_BUILD_DIR");
    snprintf(p->in_path, sizeof p->in_path, "%s/mikk_%ld_%zu.in.txt", dir ? dir : "/tmp", (long)getpid(), pend_count);
    snprintf(p->out_path, sizeof p->out_path, "%s/mikk_%ld_%zu.out.txt", dir ? dir : "/tmp", (long)getpid(), pend_count);
}

/* Writes the last frame of r as unindexed corners for the npm package and keeps ours for later. */
static int queue_npm(const mikk_run* r, agreement* into)
{
    if (pend_count == MAX_PENDING) return 0;
    const sf_topology* topo = r->topo;
    size_t F = sf_topology_triangle_count(topo), n = sf_topology_vertex_count(topo);
    const uint32_t* idx = sf_topology_indices(topo);
    const float* uv = sf_topology_uvs(topo);
    const float* ours = sfi_mikktspace_corner_tangents(r->ws);
    pending* p = &pend[pend_count];
    memset(p, 0, sizeof *p);
    pending_paths(p);
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

/* A mesh given as plain arrays for the npm package; after flush_npm, t holds its tangent at every corner
 * (4 per corner, MikkTSpace's own sign), or ok = 0 when it did not run (error: the package failed on it). */
typedef struct npm_job {
    size_t corners;
    float* t;
    int ok, error;
} npm_job;

/* Queues triangle_count triangles of indices over per-vertex P, N (3 floats) and UV (2 floats). */
static int queue_npm_arrays(const float* P, const float* N, const float* UV, const uint32_t* indices,
                            size_t triangle_count, npm_job* job)
{
    memset(job, 0, sizeof *job);
    if (pend_count == MAX_PENDING) return 0;
    pending* p = &pend[pend_count];
    memset(p, 0, sizeof *p);
    pending_paths(p);
    p->job = job;
    job->corners = p->corners = 3 * triangle_count;
    FILE* f = fopen(p->in_path, "w");
    if (!f) return 0;
    pend_count++;
    fprintf(f, "%zu\n", p->corners);
    for (size_t c = 0; c < p->corners; ++c) {
        uint32_t v = indices ? indices[c] : (uint32_t)c;
        const float *q = P + 3 * (size_t)v, *nn = N + 3 * (size_t)v, *t = UV + 2 * (size_t)v;
        fprintf(f, "%.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", (double)q[0], (double)q[1], (double)q[2],
                (double)nn[0], (double)nn[1], (double)nn[2], (double)t[0], (double)t[1]);
    }
    fclose(f);
    return 1;
}

static void npm_job_read(pending* p, int ran)
{
    npm_job* job = p->job;
    FILE* f = ran ? fopen(p->out_path, "r") : NULL;
    job->t = malloc((4 * p->corners + 1) * sizeof(float));
    job->ok = f && job->t;
    char word[8] = "";
    if (job->ok && fscanf(f, "%7s", word) == 1 && strcmp(word, "error") == 0)
        job->ok = 0, job->error = 1;
    else if (job->ok)
        rewind(f);
    for (size_t k = 0; job->ok && k < 4 * p->corners; ++k) job->ok = fscanf(f, "%f", &job->t[k]) == 1;
    if (f) fclose(f);
    if (!getenv("SF_MIKK_DEBUG")) {
        remove(p->in_path);
        remove(p->out_path);
    }
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
        if (p->job) {
            npm_job_read(p, ran);
            continue;
        }
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

/* ---------------------------------------------------------------- per-vertex outputs at every corner */

#define CORNER_TOL_DEG 1e-4

/* Corners where a per-vertex tangent (vertex_t[4 * idx[c]], w in the mesh's convention) is not the npm
 * package's corner tangent: more than CORNER_TOL_DEG off (or zero on one side only), or the other
 * handedness (npm's sign times w_sign[idx[c]]: the uv convention and mirroring). */
typedef struct corner_count {
    size_t corners, wrong, wrong_handed, wrong_vertices;
    double max_deg;
} corner_count;

static void count_corners(const uint32_t* indices, size_t F, size_t n, const float* vertex_t, const float* w_sign,
                          const float* npm, corner_count* cc)
{
    uint8_t* bad = calloc(n + 1, 1);
    CHECK(bad != NULL);
    if (!bad) return;
    for (size_t c = 0; c < 3 * F; ++c) {
        uint32_t v = indices[c];
        const float* t = vertex_t + 4 * (size_t)v;
        const float* r = npm + 4 * c;
        int zero_t = t[0] == 0.0f && t[1] == 0.0f && t[2] == 0.0f, zero_r = r[0] == 0.0f && r[1] == 0.0f && r[2] == 0.0f;
        double d = zero_t && zero_r ? 0.0 : sf_angle_deg(t, r); /* both zero (normal along the UV tangent): agree */
        int handed = (t[3] < 0) != (npm[4 * c + 3] * w_sign[v] < 0);
        cc->corners++;
        if (d > cc->max_deg) cc->max_deg = d;
        if (d > CORNER_TOL_DEG || handed) {
            cc->wrong++;
            cc->wrong_handed += handed;
            if (getenv("SF_MIKK_DEBUG"))
                fprintf(stderr, "  corner %zu vertex %u: %.3g deg, w %g vs npm %g\n", c, v, d, (double)t[3],
                        (double)(npm[4 * c + 3] * w_sign[v]));
            if (!bad[v]) cc->wrong_vertices++;
            bad[v] = 1;
        }
    }
    free(bad);
}

static void print_count(const char* label, const corner_count* cc)
{
    printf("  %-58s %6zu corners: %4zu wrong (%4zu handedness) at %3zu vertices, max %.3g deg\n", label, cc->corners,
           cc->wrong, cc->wrong_handed, cc->wrong_vertices, cc->max_deg);
}

static sf_gltf* load_with(const char* path, sf_tangent_mode generated)
{
    sf_gltf_opts o;
    memset(&o, 0, sizeof o);
    o.generated_tangents = generated;
    sf_gltf* g = NULL;
    sf_error err;
    if (sf_gltf_load_file(path, &o, NULL, &g, &err) != SF_OK) fprintf(stderr, "  %s: %s\n", path, err.message);
    return g;
}

/* The loader's generated TANGENT (each asset without TANGENT, at rest, from its own normals) at every
 * corner against the npm package run on the same primitive loaded without generated tangents. */
static void test_npm_loaded_tangents(void)
{
    if (node_ready() != 1) {
        CHECK(node_state != -2);
        return;
    }
    enum { ASSETS = sizeof assets / sizeof assets[0], MAX_PRIMS = 64 };
    static npm_job jobs[ASSETS][MAX_PRIMS];
    static sf_gltf *g0[ASSETS], *g1[ASSETS];
    char path[1024];
    for (size_t i = 0; i < ASSETS; ++i) {
        g0[i] = g1[i] = NULL;
        if (!sft_asset(assets[i], path, sizeof path)) continue;
        g0[i] = load_with(path, SF_TANGENTS_UV);
        g1[i] = load_with(path, SF_TANGENTS_MIKKTSPACE);
        CHECK(g0[i] && g1[i] && g0[i]->primitive_count == g1[i]->primitive_count &&
              g0[i]->primitive_count <= MAX_PRIMS);
        if (!g0[i] || !g1[i]) continue;
        for (size_t p = 0; p < g1[i]->primitive_count; ++p) {
            const sf_mesh_desc* m0 = &g0[i]->primitives[p].mesh;
            if (g1[i]->primitives[p].tangents != SF_GLTF_TANGENTS_GENERATED_MIKKTSPACE) continue;
            CHECK(queue_npm_arrays(m0->positions.data, m0->normals.data, m0->uvs.data, m0->indices,
                                   m0->triangle_count, &jobs[i][p]));
        }
    }
    CHECK(flush_npm());
    corner_count all;
    memset(&all, 0, sizeof all);
    for (size_t i = 0; i < ASSETS; ++i) {
        if (!g1[i]) continue;
        corner_count cc;
        memset(&cc, 0, sizeof cc);
        size_t prims = 0;
        for (size_t p = 0; p < g1[i]->primitive_count; ++p) {
            const sf_gltf_primitive* pr1 = &g1[i]->primitives[p];
            if (pr1->tangents != SF_GLTF_TANGENTS_GENERATED_MIKKTSPACE) continue;
            const sf_mesh_desc *m0 = &g0[i]->primitives[p].mesh, *m1 = &pr1->mesh;
            npm_job* job = &jobs[i][p];
            CHECK(job->ok);
            CHECK(m1->triangle_count == m0->triangle_count);
            if (!job->ok || m1->triangle_count != m0->triangle_count) continue;
            prims++;
            float* w_sign = malloc((m1->vertex_count + 1) * sizeof(float));
            CHECK(w_sign != NULL);
            for (size_t v = 0; v < m1->vertex_count; ++v) w_sign[v] = -1.0f; /* glTF: v down */
            count_corners(m1->indices, m1->triangle_count, m1->vertex_count, m1->tangents.data, w_sign, job->t, &cc);
            free(w_sign);
            free(job->t);
        }
        if (!prims) continue;
        print_count(assets[i], &cc);
        all.corners += cc.corners, all.wrong += cc.wrong, all.wrong_handed += cc.wrong_handed;
        all.wrong_vertices += cc.wrong_vertices, all.max_deg = fmax(all.max_deg, cc.max_deg);
    }
    for (size_t i = 0; i < ASSETS; ++i) {
        sf_gltf_destroy(g0[i]);
        sf_gltf_destroy(g1[i]);
    }
    print_count("loaded TANGENT, all assets", &all);
    CHECK(all.corners > 0);
    CHECK(all.wrong == 0);
}

/* One frame of the reference (recompute, weld position+normal, MikkTSpace: eval's defaults) of every unit
 * of an asset, against the npm package at every corner. */
typedef struct ref_unit {
    sf_topology* topo;
    sf_workspace* ws;
    sf_evaluation* ev;
    npm_job job;
    float* w_sign;
} ref_unit;

static void test_npm_reference_corners(void)
{
    if (node_ready() != 1) {
        CHECK(node_state != -2);
        return;
    }
    /* every staged asset at rest; CesiumMan at four times of its animation, Fox at two of each of its three */
    typedef struct frame_spec {
        size_t asset;
        size_t anim;
        double t;
        int unwelded;
    } frame_spec;
    enum { ASSETS = sizeof assets / sizeof assets[0], MAX_FRAMES = 64, MAX_UNITS = 16 };
    frame_spec frames[MAX_FRAMES];
    size_t frame_count = 0;
    /* eval's reference (weld position+normal), then the same frames unwelded */
    for (int weld = 0; weld < 2; ++weld) {
        size_t first = frame_count;
        for (size_t i = 0; i < ASSETS; ++i) frames[frame_count++] = (frame_spec){i, SF_GLTF_NONE, 0.0, weld};
        const double cesium_t[] = {0.4, 0.9, 1.25, 56.0 / 30.0}; /* 56/30 s (eval's frame 56): one vertex splits */
        for (size_t k = 0; k < 4; ++k) frames[frame_count++] = (frame_spec){0, 0, cesium_t[k], weld};
        for (size_t a = 0; a < 3; ++a)
            for (size_t k = 0; k < 2; ++k) frames[frame_count++] = (frame_spec){1, a, k ? 0.6 : 0.25, weld};
        (void)first;
    }
    static ref_unit units[MAX_FRAMES][MAX_UNITS];
    static size_t unit_count[MAX_FRAMES];
    static sf_gltf* gl[ASSETS];
    memset(units, 0, sizeof units);
    char path[1024];
    for (size_t i = 0; i < ASSETS; ++i) gl[i] = sft_asset(assets[i], path, sizeof path) ? load_with(path, SF_TANGENTS_MIKKTSPACE) : NULL;
    sf_method methods[2] = {SF_METHOD_SKINNED, SF_METHOD_RECOMPUTE};
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.methods = methods;
    desc.method_count = 2;
    desc.reference_opts.tangents = SF_TANGENTS_MIKKTSPACE;
    desc.flags = SF_EVAL_KEEP_FRAMES | SF_EVAL_KEEP_ANGLES;
    for (size_t fi = 0; fi < frame_count; ++fi) {
        const frame_spec* fs = &frames[fi];
        desc.reference_opts.weld = fs->unwelded ? SF_WELD_NONE : SF_WELD_POSITION_NORMAL;
        sf_gltf* g = gl[fs->asset];
        unit_count[fi] = 0;
        if (!g || (fs->anim != SF_GLTF_NONE && fs->anim >= g->animation_count)) continue;
        sf_gltf_pose* gp = NULL;
        CHECK_OK(sf_gltf_pose_create(g, NULL, &gp, NULL));
        CHECK_OK(sf_gltf_pose_sample(gp, fs->anim, fs->t, NULL));
        for (size_t in = 0; in < g->instance_count; ++in) {
            const sf_gltf_instance* inst = &g->instances[in];
            const sf_gltf_mesh* gm = &g->meshes[inst->mesh];
            for (size_t p = 0; p < gm->primitive_count && unit_count[fi] < MAX_UNITS; ++p) {
                sf_mesh_desc mesh;
                CHECK_OK(sf_gltf_instance_mesh(g, in, gm->first_primitive + p, &mesh, NULL));
                if (!mesh.uvs.data || mesh.triangle_count == 0) continue;
                ref_unit* u = &units[fi][unit_count[fi]++];
                float* bones = calloc(12 * inst->bone_count, sizeof(float));
                float* morph = calloc(gm->target_count + 1, sizeof(float));
                CHECK(bones && morph);
                CHECK_OK(sf_gltf_pose_instance(gp, in, bones, morph, NULL, NULL));
                sf_pose pose = {bones, inst->bone_count, gm->target_count ? morph : NULL, gm->target_count};
                CHECK_OK(sf_topology_create(&mesh, NULL, NULL, &u->topo, NULL));
                CHECK_OK(sf_workspace_create(u->topo, NULL, &u->ws, NULL));
                CHECK_OK(sf_evaluation_create(u->topo, &desc, NULL, &u->ev, NULL));
                CHECK_OK(sf_evaluation_run(u->ev, &pose, u->ws, NULL, NULL));
                const sf_eval_results* res = sf_evaluation_results(u->ev);
                size_t n = mesh.vertex_count;
                u->w_sign = malloc((n + 1) * sizeof(float));
                CHECK(u->w_sign != NULL);
                for (size_t v = 0; v < n; ++v) u->w_sign[v] = u->topo->bitangent_sign * (u->ws->det[v] < 0.0f ? -1.0f : 1.0f);
                CHECK(queue_npm_arrays(res->positions, res->reference_normals, sf_topology_uvs(u->topo),
                                       sf_topology_indices(u->topo), mesh.triangle_count, &u->job));
                free(bones);
                free(morph);
            }
        }
        sf_gltf_pose_destroy(gp);
    }
    CHECK(flush_npm());
    corner_count rest_all, posed_all, split_all;
    memset(&rest_all, 0, sizeof rest_all);
    memset(&posed_all, 0, sizeof posed_all);
    memset(&split_all, 0, sizeof split_all);
    size_t split_total = 0;
    for (size_t fi = 0; fi < frame_count; ++fi) {
        corner_count vertex_cc, corner_cc, split_cc;
        memset(&vertex_cc, 0, sizeof vertex_cc);
        memset(&corner_cc, 0, sizeof corner_cc);
        memset(&split_cc, 0, sizeof split_cc);
        size_t split_vertices = 0;
        for (size_t k = 0; k < unit_count[fi]; ++k) {
            ref_unit* u = &units[fi][k];
            const sf_eval_results* res = sf_evaluation_results(u->ev);
            size_t n = sf_topology_vertex_count(u->topo), F = sf_topology_triangle_count(u->topo);
            const uint32_t* idx = sf_topology_indices(u->topo);
            CHECK(u->job.ok);
            CHECK(res->tangent_corners == 1 && res->reference_corner_tangents != NULL);
            if (u->job.ok && res->tangent_corners) {
                /* the per-vertex reference (first corners), for the record */
                count_corners(idx, F, n, res->reference_tangents, u->w_sign, u->job.t, &vertex_cc);
                /* the reference's corners, each against its own corner */
                uint32_t* seq = malloc((3 * F + 1) * sizeof(uint32_t));
                float* sign_c = malloc((3 * F + 1) * sizeof(float));
                CHECK(seq && sign_c);
                for (size_t c = 0; c < 3 * F; ++c) seq[c] = (uint32_t)c, sign_c[c] = u->w_sign[idx[c]];
                count_corners(seq, F, 3 * F, res->reference_corner_tangents, sign_c, u->job.t, &corner_cc);
                /* split: the per-vertex tangents of the split mesh at every corner */
                size_t cap = SF_TANGENTS_SPLIT_MAX_VERTICES(n, F);
                uint32_t* sidx = malloc((3 * F + 1) * sizeof(uint32_t));
                uint32_t* src = malloc((cap + 1) * sizeof(uint32_t));
                float* st = malloc((4 * cap + 4) * sizeof(float));
                float* sign_v = malloc((cap + 1) * sizeof(float));
                CHECK(sidx && src && st && sign_v);
                sf_tangent_split sp = {sidx, src, st, 0, 0};
                CHECK_OK(sf_tangents_split(n, F, idx, res->reference_corner_tangents, NULL, &sp, NULL));
                CHECK(sp.split_vertices == res->reference_split_vertices);
                for (size_t v = 0; v < sp.vertex_count; ++v) sign_v[v] = u->w_sign[src[v]];
                count_corners(sidx, F, sp.vertex_count, st, sign_v, u->job.t, &split_cc);
                split_vertices += sp.split_vertices;
                /* the evaluation's per-corner error of `skinned`, against npm here: same count and handedness */
                const sf_eval_row* sk = sf_evaluation_row(u->ev, SF_METHOD_SKINNED);
                const sf_eval_row* rc = sf_evaluation_row(u->ev, SF_METHOD_RECOMPUTE);
                size_t handed = 0;
                for (size_t c = 0; c < 3 * F; ++c)
                    handed += (sk->tangents[4 * (size_t)idx[c] + 3] < 0) != (u->job.t[4 * c + 3] * sign_c[c] < 0);
                CHECK(sk->errors.tangent.count == 3 * F && sk->errors.handedness_mismatches == handed);
                CHECK(rc->errors.tangent.count == 3 * F && rc->errors.tangent.max == 0.0);
                free(seq), free(sign_c), free(sidx), free(src), free(st), free(sign_v);
            }
            free(u->job.t);
            free(u->w_sign);
            sf_evaluation_destroy(u->ev);
            sf_workspace_destroy(u->ws);
            sf_topology_destroy(u->topo);
        }
        if (!unit_count[fi]) continue;
        char label[160];
        const char* name = strrchr(assets[frames[fi].asset], '/') + 1;
        const char* weld = frames[fi].unwelded ? "unwelded" : "welded";
        if (frames[fi].anim == SF_GLTF_NONE)
            snprintf(label, sizeof label, "%s %s rest: first corners", name, weld);
        else
            snprintf(label, sizeof label, "%s %s anim %zu t %.2f: first corners", name, weld, frames[fi].anim,
                     frames[fi].t);
        print_count(label, &vertex_cc);
        printf("  %-58s corners %.3g deg max, split %zu vertices: %zu wrong corners\n", "", corner_cc.max_deg,
               split_vertices, split_cc.wrong);
        CHECK(corner_cc.wrong == 0 && split_cc.wrong == 0);
        corner_count* all = frames[fi].anim == SF_GLTF_NONE ? &rest_all : &posed_all;
        all->corners += vertex_cc.corners, all->wrong += vertex_cc.wrong, all->wrong_handed += vertex_cc.wrong_handed;
        all->wrong_vertices += vertex_cc.wrong_vertices, all->max_deg = fmax(all->max_deg, vertex_cc.max_deg);
        split_all.corners += split_cc.corners, split_all.wrong += split_cc.wrong;
        split_all.max_deg = fmax(split_all.max_deg, split_cc.max_deg);
        split_total += split_vertices;
    }
    for (size_t i = 0; i < ASSETS; ++i) sf_gltf_destroy(gl[i]);
    print_count("per-vertex reference (first corners), every asset at rest", &rest_all);
    print_count("per-vertex reference (first corners), posed frames", &posed_all);
    printf("  after splitting %zu vertices: %zu of %zu corners wrong, max %.3g deg\n", split_total, split_all.wrong,
           split_all.corners, split_all.max_deg);
    CHECK(rest_all.corners > 0 && posed_all.corners > 0);
    CHECK(split_all.corners == rest_all.corners + posed_all.corners && split_all.wrong == 0);
}

/* Random meshes (mirrored and zero-area UVs on a coarse UV lattice, repeated vertices, degenerate
 * triangles) through the public API: sf_tangents_generate at every corner against the npm package, then
 * sf_tangents_split's per-vertex tangents of the split mesh at every corner, and the split's shape: one vertex
 * per distinct (vertex, tangent), counted here by brute force. */
static void test_npm_random_split(void)
{
    if (node_ready() != 1) {
        CHECK(node_state != -2);
        return;
    }
    enum { MESHES = 120, MAX_V = 30, MAX_T = 60 };
    static float P[MESHES][MAX_V * 3], N[MESHES][MAX_V * 3], UV[MESHES][MAX_V * 2];
    static uint32_t I[MESHES][MAX_T * 3];
    static int V_of[MESHES], T_of[MESHES];
    static npm_job jobs[MESHES];
    static const float dirs[4][3] = {{0, 0, 1}, {0, 0, -1}, {0.6f, 0, 0.8f}, {0, 1, 0}};
    uint32_t seed = 777u;
#define NEXT_RANDOM(mod) ((seed = seed * 1664525u + 1013904223u), (seed >> 8) % (mod))
    for (int i = 0; i < MESHES; ++i) {
        int V = 8 + i % (MAX_V - 7), T = 6 + (i * 5) % (MAX_T - 5);
        V_of[i] = V, T_of[i] = T;
        for (int v = 0; v < V; ++v) {
            for (int k = 0; k < 3; ++k) P[i][3 * v + k] = (float)NEXT_RANDOM(3u);
            for (int k = 0; k < 2; ++k) UV[i][2 * v + k] = 0.5f * (float)NEXT_RANDOM(3u);
            memcpy(N[i] + 3 * v, dirs[NEXT_RANDOM(4u)], 12);
        }
        for (int c = 0; c < 3 * T; ++c) I[i][c] = NEXT_RANDOM((uint32_t)V);
        CHECK(queue_npm_arrays(P[i], N[i], UV[i], I[i], (size_t)T, &jobs[i]));
    }
#undef NEXT_RANDOM
    CHECK(flush_npm());
    corner_count gen, split, first;
    memset(&gen, 0, sizeof gen);
    memset(&split, 0, sizeof split);
    memset(&first, 0, sizeof first);
    size_t compared = 0, split_vertices = 0, shape_ok = 1;
    for (int i = 0; i < MESHES; ++i) {
        size_t V = (size_t)V_of[i], T = (size_t)T_of[i], C = 3 * T;
        float ct[4 * 3 * MAX_T], st[4 * (MAX_V + 3 * MAX_T)], sign[MAX_V + 3 * MAX_T];
        uint32_t sidx[3 * MAX_T], src[MAX_V + 3 * MAX_T], seq[3 * MAX_T];
        sf_tangent_desc d;
        memset(&d, 0, sizeof d);
        d.vertex_count = V, d.triangle_count = T, d.indices = I[i];
        d.positions.data = P[i], d.normals.data = N[i], d.uvs.data = UV[i];
        d.mode = SF_TANGENTS_MIKKTSPACE;
        CHECK_OK(sf_tangents_generate(&d, NULL, ct, NULL));
        sf_tangent_split sp = {sidx, src, st, 0, 0};
        CHECK_OK(sf_tangents_split(V, T, I[i], ct, NULL, &sp, NULL));
        /* shape: source maps each corner back; distinct (vertex, tangent) pairs, by brute force */
        size_t pairs = 0;
        for (size_t c = 0; c < C; ++c) {
            shape_ok &= src[sidx[c]] == I[i][c] && memcmp(st + 4 * (size_t)sidx[c], ct + 4 * c, 16) == 0;
            int earlier = 0;
            for (size_t e = 0; e < c && !earlier; ++e)
                earlier = I[i][e] == I[i][c] && memcmp(ct + 4 * e, ct + 4 * c, 16) == 0;
            pairs += !earlier;
        }
        size_t used = 0;
        for (size_t v = 0; v < V; ++v) {
            int in = 0;
            for (size_t c = 0; c < C && !in; ++c) in = I[i][c] == v;
            used += (size_t)in;
        }
        shape_ok &= sp.vertex_count == V + pairs - used;
        split_vertices += sp.split_vertices;
        if (!jobs[i].ok) { /* the package traps when every triangle is degenerate */
            CHECK(jobs[i].error);
            free(jobs[i].t);
            continue;
        }
        compared++;
        /* npm's own sign to the glTF convention: -1 */
        for (size_t c = 0; c < C; ++c) seq[c] = (uint32_t)c, sign[c] = -1.0f;
        count_corners(seq, T, C, ct, sign, jobs[i].t, &gen);
        count_corners(sidx, T, sp.vertex_count, st, sign, jobs[i].t, &split);
        /* what keeping each vertex's first corner gives, for the record */
        float firsts[4 * MAX_V];
        for (size_t c = C; c-- > 0;) memcpy(firsts + 4 * (size_t)I[i][c], ct + 4 * c, 16);
        count_corners(I[i], T, V, firsts, sign, jobs[i].t, &first);
        free(jobs[i].t);
    }
    print_count("random meshes: sf_tangents_generate", &gen);
    print_count("random meshes: split per-vertex tangents", &split);
    print_count("random meshes: first corner per vertex (unsplit)", &first);
    printf("  %zu of %d random meshes compared, %zu vertices split\n", compared, MESHES, split_vertices);
    CHECK(shape_ok);
    CHECK(compared > MESHES / 2 && split_vertices > 0);
    CHECK(gen.wrong == 0 && split.wrong == 0);
}

/* ---------------------------------------------------------------- splitting */

/* A flat G x G grid in z = 0 whose right half has its UVs mirrored (u = 1 - x / G past the middle column):
 * the middle column's vertices are shared by both halves with one UV, so MikkTSpace gives their corners two
 * tangents (opposite handedness). Skinned on two bones, with a dense and a sparse morph target (the sparse
 * one on the middle column and a few others). Written as a .glb in memory; free with sf_gltf_free_bytes. */
enum { MG = 4, MG_V = (MG + 1) * (MG + 1), MG_T = 2 * MG * MG, MG_SPARSE = MG + 4 };
typedef struct mirrored_grid {
    float pos[3 * MG_V], nrm[3 * MG_V], uv[2 * MG_V], weights[8 * MG_V], dense[3 * MG_V], sparse[3 * MG_SPARSE];
    uint32_t joints[8 * MG_V], idx[3 * MG_T], sparse_idx[MG_SPARSE];
    sf_morph_target_desc targets[2];
    sf_mesh_desc mesh;
} mirrored_grid;

static void mirrored_grid_make(mirrored_grid* g, int skinned)
{
    memset(g, 0, sizeof *g);
    for (int y = 0; y <= MG; ++y)
        for (int x = 0; x <= MG; ++x) {
            int v = y * (MG + 1) + x;
            g->pos[3 * v] = (float)x, g->pos[3 * v + 1] = (float)y;
            g->nrm[3 * v + 2] = 1.0f;
            g->uv[2 * v] = (float)(2 * x <= MG ? x : MG - x) / MG, g->uv[2 * v + 1] = (float)y / MG;
            /* two sets of four: bone 0 and 1 blended along x, then one slot of bone 1 again */
            g->joints[8 * v] = 0, g->joints[8 * v + 1] = 1, g->joints[8 * v + 4] = 1;
            g->weights[8 * v] = 1.0f - 0.2f * (float)x, g->weights[8 * v + 1] = 0.1f * (float)x;
            g->weights[8 * v + 4] = 0.1f * (float)x;
            g->dense[3 * v + 2] = 0.01f * (float)(v + 1);
        }
    uint32_t* t = g->idx;
    for (int y = 0; y < MG; ++y)
        for (int x = 0; x < MG; ++x) {
            uint32_t a = (uint32_t)(y * (MG + 1) + x), b = a + 1, c = a + MG + 1, d = c + 1;
            uint32_t q[6] = {a, b, d, a, d, c};
            memcpy(t, q, sizeof q);
            t += 6;
        }
    /* sparse (MG_SPARSE entries): the middle column (x = MG/2) and three vertices of the left column, increasing */
    size_t k = 0;
    for (int y = 0; y <= MG; ++y) {
        if (y < 3) g->sparse_idx[k++] = (uint32_t)(y * (MG + 1));
        g->sparse_idx[k++] = (uint32_t)(y * (MG + 1) + MG / 2);
    }
    for (size_t i = 0; i < MG_SPARSE; ++i) g->sparse[3 * i] = 0.5f + (float)i;
    g->targets[0].position_deltas = g->dense;
    g->targets[1].position_deltas = g->sparse;
    g->targets[1].sparse_indices = g->sparse_idx;
    g->targets[1].sparse_count = MG_SPARSE;
    g->mesh.vertex_count = MG_V;
    g->mesh.triangle_count = MG_T;
    g->mesh.indices = g->idx;
    g->mesh.positions.data = g->pos;
    g->mesh.normals.data = g->nrm;
    g->mesh.uvs.data = g->uv;
    if (skinned) {
        g->mesh.influence_count = 8;
        g->mesh.joints = g->joints;
        g->mesh.weights = g->weights;
        g->mesh.bone_count = 2;
        g->mesh.targets = g->targets;
        g->mesh.target_count = 2;
    }
}

static int mirrored_grid_glb(const mirrored_grid* g, int skinned, void** data, size_t* size)
{
    sf_gltf_write_mesh wm;
    memset(&wm, 0, sizeof wm);
    wm.mesh = g->mesh;
    sf_gltf_write_node nodes[3];
    memset(nodes, 0, sizeof nodes);
    nodes[0].parent = SF_GLTF_NONE, nodes[0].mesh = 0, nodes[0].skin = skinned ? 0 : SF_GLTF_NONE;
    for (int j = 1; j < 3; ++j) nodes[j].parent = SF_GLTF_NONE, nodes[j].mesh = nodes[j].skin = SF_GLTF_NONE;
    const size_t joints[2] = {1, 2};
    sf_gltf_write_skin skin = {2, joints, NULL};
    sf_gltf_write_desc d;
    memset(&d, 0, sizeof d);
    d.meshes = &wm, d.mesh_count = 1;
    d.nodes = nodes, d.node_count = skinned ? 3 : 1;
    d.skins = &skin, d.skin_count = skinned ? 1 : 0;
    sf_error err;
    if (sf_gltf_write_glb(&d, NULL, data, size, &err) != SF_OK) {
        fprintf(stderr, "  write: %s\n", err.message);
        return 0;
    }
    return 1;
}

static sf_gltf* load_memory_with(const void* data, size_t size, sf_tangent_mode generated)
{
    sf_gltf_opts o;
    memset(&o, 0, sizeof o);
    o.generated_tangents = generated;
    sf_gltf* g = NULL;
    sf_error err;
    if (sf_gltf_load_memory(data, size, NULL, &o, NULL, &g, &err) != SF_OK) fprintf(stderr, "  load: %s\n", err.message);
    return g;
}

/* The delta of target t at vertex v (zero when a sparse target does not list it). */
static const float* target_delta(const sf_morph_target_desc* t, size_t v)
{
    static const float zero[3] = {0, 0, 0};
    if (!t->sparse_indices) return t->position_deltas + 3 * v;
    for (size_t i = 0; i < t->sparse_count; ++i)
        if (t->sparse_indices[i] == v) return t->position_deltas + 3 * i;
    return zero;
}

/* sf_tangents_split by hand: the mirrored fan (vertices 0 and 2 shared by a triangle of each orientation)
 * splits into 6 vertices, the copies appended in corner order; equal corners stay; unindexed and isolated
 * vertices; bad input named. */
static void test_split_by_hand(void)
{
    const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    const float A[4] = {1, 0, 0, -1}, B[4] = {0, 1, 0, 1};
    float ct[24];
    const float* per_corner[6] = {A, A, A, B, B, B};
    for (int c = 0; c < 6; ++c) memcpy(ct + 4 * c, per_corner[c], 16);
    uint32_t out_idx[6], source[5 + 6];
    float tangents[4 * 11];
    sf_tangent_split sp = {out_idx, source, tangents, 0, 0};
    CHECK_OK(sf_tangents_split(5, 2, idx, ct, NULL, &sp, NULL)); /* vertex 4 is in no triangle */
    CHECK(sp.vertex_count == 7 && sp.split_vertices == 2);
    const uint32_t want_idx[6] = {0, 1, 2, 5, 6, 3};
    CHECK(memcmp(out_idx, want_idx, sizeof want_idx) == 0);
    const uint32_t want_source[7] = {0, 1, 2, 3, 4, 0, 2};
    CHECK(memcmp(source, want_source, sizeof want_source) == 0);
    CHECK(memcmp(tangents + 4 * 5, B, 16) == 0 && memcmp(tangents + 4 * 0, A, 16) == 0 &&
          memcmp(tangents + 4 * 3, B, 16) == 0);
    CHECK(tangents[16] == 0.0f && tangents[17] == 0.0f && tangents[18] == 0.0f && tangents[19] == 1.0f);
    /* counting only; in place */
    sf_tangent_split count = {NULL, NULL, NULL, 0, 0};
    CHECK_OK(sf_tangents_split(5, 2, idx, ct, NULL, &count, NULL));
    CHECK(count.vertex_count == 7 && count.split_vertices == 2);
    uint32_t inplace[6];
    memcpy(inplace, idx, sizeof inplace);
    sf_tangent_split in = {inplace, NULL, NULL, 0, 0};
    CHECK_OK(sf_tangents_split(5, 2, inplace, ct, NULL, &in, NULL));
    CHECK(memcmp(inplace, want_idx, sizeof want_idx) == 0);
    /* agreeing corners: unchanged */
    for (int c = 0; c < 6; ++c) memcpy(ct + 4 * c, A, 16);
    CHECK_OK(sf_tangents_split(5, 2, idx, ct, NULL, &sp, NULL));
    CHECK(sp.vertex_count == 5 && sp.split_vertices == 0 && memcmp(out_idx, idx, sizeof idx) == 0);
    /* unindexed: one corner per vertex */
    CHECK_OK(sf_tangents_split(6, 2, NULL, ct, NULL, &sp, NULL));
    CHECK(sp.vertex_count == 6 && sp.split_vertices == 0);
    /* errors */
    sf_error err;
    const uint32_t bad[6] = {0, 1, 2, 0, 2, 9};
    CHECK_RESULT(sf_tangents_split(5, 2, bad, ct, NULL, &sp, &err), SF_ERROR_INDEX_RANGE);
    CHECK(strstr(err.message, "indices[5]") != NULL);
    ct[5] = NAN;
    CHECK_RESULT(sf_tangents_split(5, 2, idx, ct, NULL, &sp, &err), SF_ERROR_NOT_FINITE);
    CHECK(strstr(err.message, "corner_tangents[1]") != NULL);
    CHECK_RESULT(sf_tangents_split(5, 2, idx, NULL, NULL, &sp, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK_RESULT(sf_tangents_split(5, 2, idx, ct, NULL, NULL, &err), SF_ERROR_INVALID_ARGUMENT);
}

/* The topology counts the vertices MikkTSpace splits at rest; a mesh split that way counts none. */
static void test_topology_split_stat(void)
{
    float positions[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, -1, 0, 0};
    float uvs[] = {0, 0, 1, 0, 0, 1, 0.5f, 1.5f};
    uint32_t indices[] = {0, 1, 2, 0, 2, 3};
    sf_mesh_desc m = uv_mesh(positions, uvs, 4, indices, 2);
    sf_topology* topo = NULL;
    sf_topology_stats st;
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, NULL));
    sf_topology_get_stats(topo, &st);
    CHECK(st.mikktspace_split_vertices == 2);
    sf_topology_destroy(topo);
    m.uvs.data = NULL; /* no UVs: nothing to split */
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, NULL));
    sf_topology_get_stats(topo, &st);
    CHECK(st.mikktspace_split_vertices == 0);
    sf_topology_destroy(topo);

    mirrored_grid* g = malloc(sizeof *g);
    CHECK(g != NULL);
    mirrored_grid_make(g, 0);
    CHECK_OK(sf_topology_create(&g->mesh, NULL, NULL, &topo, NULL));
    sf_topology_get_stats(topo, &st);
    CHECK(st.mikktspace_split_vertices == MG + 1); /* the middle column */
    sf_topology_destroy(topo);
    void* data;
    size_t size;
    CHECK(mirrored_grid_glb(g, 0, &data, &size));
    sf_gltf* gl = load_memory_with(data, size, SF_TANGENTS_MIKKTSPACE);
    CHECK(gl && gl->primitives[0].mikktspace_split_vertices == MG + 1 &&
          gl->primitives[0].mesh.vertex_count == MG_V + MG + 1);
    sf_mesh_desc split;
    CHECK_OK(sf_gltf_instance_mesh(gl, 0, 0, &split, NULL));
    split.tangents.data = NULL; /* rebuild from the split streams */
    CHECK_OK(sf_topology_create(&split, NULL, NULL, &topo, NULL));
    sf_topology_get_stats(topo, &st);
    CHECK(st.mikktspace_split_vertices == 0);
    sf_topology_destroy(topo);
    sf_gltf_destroy(gl);
    sf_gltf_free_bytes(NULL, data, size);
    free(g);
}

/* The loader's split carries every per-vertex stream: positions, normals, UVs, both JOINTS/WEIGHTS sets,
 * dense and sparse morph deltas and source_vertex, to the copies; the triangles are the same corners. */
static void test_loader_split_streams(void)
{
    mirrored_grid* g = malloc(sizeof *g);
    CHECK(g != NULL);
    mirrored_grid_make(g, 1);
    void* data;
    size_t size;
    CHECK(mirrored_grid_glb(g, 1, &data, &size));
    sf_gltf* g0 = load_memory_with(data, size, SF_TANGENTS_UV);
    sf_gltf* g1 = load_memory_with(data, size, SF_TANGENTS_MIKKTSPACE);
    CHECK(g0 && g1);
    const sf_gltf_primitive *p0 = &g0->primitives[0], *p1 = &g1->primitives[0];
    const sf_mesh_desc *m0 = &p0->mesh, *m1 = &p1->mesh;
    CHECK(m0->vertex_count == MG_V && m1->vertex_count == MG_V + MG + 1 && p1->mikktspace_split_vertices == MG + 1);
    CHECK(p0->mikktspace_split_vertices == 0 && p1->source_vertex_count == MG_V);
    CHECK(m1->target_count == 2 && m1->targets[1].sparse_indices != NULL); /* still sparse */
    CHECK(m1->targets[1].sparse_count == MG_SPARSE + MG + 1);             /* + the middle column's copies */
    for (size_t i = 1; i < m1->targets[1].sparse_count; ++i)
        CHECK(m1->targets[1].sparse_indices[i] > m1->targets[1].sparse_indices[i - 1]);
    /* corner by corner: the split vertex is a copy of the original one */
    int same = m1->triangle_count == m0->triangle_count;
    uint32_t K = m1->influence_count;
    CHECK(K == 8);
    for (size_t c = 0; same && c < 3 * m1->triangle_count; ++c) {
        uint32_t v1 = m1->indices[c], v0 = m0->indices[c];
        same = p1->source_vertex[v1] == v0 && (v1 == v0 || v1 >= MG_V) &&
               memcmp(m1->positions.data + 3 * v1, m0->positions.data + 3 * v0, 12) == 0 &&
               memcmp(m1->normals.data + 3 * v1, m0->normals.data + 3 * v0, 12) == 0 &&
               memcmp(m1->uvs.data + 2 * v1, m0->uvs.data + 2 * v0, 8) == 0 &&
               memcmp(m1->joints + K * v1, m0->joints + K * v0, K * 4) == 0 &&
               memcmp(m1->weights + K * v1, m0->weights + K * v0, K * 4) == 0;
        for (size_t t = 0; same && t < 2; ++t)
            same = memcmp(target_delta(&m1->targets[t], v1), target_delta(&m0->targets[t], v0), 12) == 0;
    }
    CHECK(same);
    /* the split mesh skins and morphs: a topology takes it, and its copies move with their sources */
    sf_mesh_desc im;
    CHECK_OK(sf_gltf_instance_mesh(g1, 0, 0, &im, NULL));
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    CHECK_OK(sf_topology_create(&im, NULL, NULL, &topo, NULL));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    float bones[24] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, 0, 0, 0, 0, 1, 0.5f, 0, 0};
    float w[2] = {0.7f, 0.3f};
    sf_pose pose = {bones, 2, w, 2};
    float* P = malloc(3 * im.vertex_count * sizeof(float));
    CHECK(P != NULL);
    CHECK_OK(sf_deform_positions(topo, &pose, ws, P, NULL));
    for (size_t v = MG_V; v < im.vertex_count; ++v) CHECK(memcmp(P + 3 * v, P + 3 * p1->source_vertex[v], 12) == 0);
    free(P);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    sf_gltf_destroy(g0);
    sf_gltf_destroy(g1);
    sf_gltf_free_bytes(NULL, data, size);
    free(g);
}

/* The mirrored fan through the evaluation: tangents measured at every corner. The mesh's tangents are
 * (1, 0, 0, -1) everywhere (triangle A's, glTF convention); `unchanged` keeps them, so A's corners are
 * exact and B's are 180 - atan(1.5) degrees off with the other handedness. */
static void test_eval_corners_by_hand(void)
{
    float positions[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, -1, 0, 0};
    float uvs[] = {0, 0, 1, 0, 0, 1, 0.5f, 1.5f};
    float tangents[16] = {1, 0, 0, -1, 1, 0, 0, -1, 1, 0, 0, -1, 1, 0, 0, -1};
    uint32_t indices[] = {0, 1, 2, 0, 2, 3};
    sf_mesh_desc m = uv_mesh(positions, uvs, 4, indices, 2);
    m.tangents.data = tangents;
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, NULL));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    sf_method methods[2] = {SF_METHOD_UNCHANGED, SF_METHOD_RECOMPUTE};
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.methods = methods, desc.method_count = 2;
    desc.reference_opts.tangents = SF_TANGENTS_MIKKTSPACE;
    desc.flags = SF_EVAL_KEEP_ANGLES;
    sf_evaluation* ev = NULL;
    CHECK_OK(sf_evaluation_create(topo, &desc, NULL, &ev, NULL));
    sf_pose pose = {NULL, 0, NULL, 0};
    CHECK_OK(sf_evaluation_run(ev, &pose, ws, NULL, NULL));
    const sf_eval_results* res = sf_evaluation_results(ev);
    CHECK(res->tangent_corners == 1 && res->reference_corner_tangents != NULL && res->reference_split_vertices == 2);
    const sf_eval_row* un = sf_evaluation_row(ev, SF_METHOD_UNCHANGED);
    const sf_eval_row* rc = sf_evaluation_row(ev, SF_METHOD_RECOMPUTE);
    double b = 180.0 - atan(1.5) * 180.0 / SFT_PI;
    CHECK(un->errors.tangent.count == 6 && un->errors.handedness_mismatches == 3);
    CHECK_NEAR(un->errors.tangent.max, b, 1e-4);
    CHECK_NEAR(un->errors.tangent.mean, b / 2, 1e-4);
    CHECK(un->tangent_corner_deg && un->tangent_corner_deg[0] < 1e-4f && un->tangent_corner_deg[3] > 100.0f);
    /* per vertex: the worst corner; vertex 1 only in A */
    CHECK_NEAR(un->tangent_deg[0], b, 1e-4);
    CHECK(un->tangent_deg[1] < 1e-4f);
    CHECK((un->flags[0] & SF_VERTEX_HANDEDNESS) && !(un->flags[1] & SF_VERTEX_HANDEDNESS));
    CHECK(un->errors.worst_tangent_vertex == 0);
    /* the reference itself, corner by corner */
    CHECK(rc->errors.tangent.count == 6 && rc->errors.tangent.max == 0.0 && rc->errors.handedness_mismatches == 0);
    /* per-vertex reference: the first corner's */
    CHECK(memcmp(res->reference_tangents, res->reference_corner_tangents, 16) == 0);
    CHECK(memcmp(res->reference_tangents + 8, res->reference_corner_tangents + 8, 16) == 0);
    CHECK(memcmp(res->reference_tangents + 12, res->reference_corner_tangents + 20, 16) == 0);
    sf_evaluation_destroy(ev);
    /* uv tangents: per vertex, as before */
    desc.reference_opts.tangents = SF_TANGENTS_UV;
    CHECK_OK(sf_evaluation_create(topo, &desc, NULL, &ev, NULL));
    CHECK_OK(sf_evaluation_run(ev, &pose, ws, NULL, NULL));
    res = sf_evaluation_results(ev);
    CHECK(res->tangent_corners == 0 && res->reference_corner_tangents == NULL);
    CHECK(sf_evaluation_row(ev, SF_METHOD_UNCHANGED)->errors.tangent.count == 4);
    CHECK(sf_evaluation_row(ev, SF_METHOD_UNCHANGED)->tangent_corner_deg == NULL);
    sf_evaluation_destroy(ev);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
}

/* Bakes with `recompute` (MikkTSpace tangents) and reads the result back: at every corner the baked TANGENT is
 * what the npm package computes from the baked positions, normals and UVs (a consumer regenerating MikkTSpace
 * gets the bake's tangents), and the bake has one vertex per distinct (vertex, tangent). On the synthetic
 * mirrored grid (no TANGENT; flat, so the reference's normals are the authored ones) and on NormalTangentTest. */
static void test_npm_bake_round_trip(void)
{
    if (node_ready() != 1) {
        CHECK(node_state != -2);
        return;
    }
    if (!getenv("SF_CLI")) return;
    char dir[] = "/tmp/sf_mikk_bake_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char grid_path[600], path[1024], out[2][600], args[2400];
    snprintf(grid_path, sizeof grid_path, "%s/mirrored.glb", dir);
    mirrored_grid* g = malloc(sizeof *g);
    CHECK(g != NULL);
    mirrored_grid_make(g, 0);
    void* data;
    size_t size;
    CHECK(mirrored_grid_glb(g, 0, &data, &size));
    FILE* f = fopen(grid_path, "wb");
    CHECK(f && fwrite(data, 1, size, f) == size);
    if (f) fclose(f);
    sf_gltf_free_bytes(NULL, data, size);
    free(g);
    snprintf(args, sizeof args, "info '%s'", grid_path);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 0 && strstr(r.out, "5 vertices split where their corners got different tangents") != NULL);
    sft_cli_out_free(&r);
    const char* inputs[2] = {grid_path, sft_asset("gltf/NormalTangentTest/glTF-Binary/NormalTangentTest.glb", path, sizeof path)};
    sf_gltf* baked[2] = {NULL, NULL};
    npm_job jobs[2];
    memset(jobs, 0, sizeof jobs);
    for (int i = 0; i < 2; ++i) {
        if (!inputs[i]) continue;
        snprintf(out[i], sizeof out[i], "%s/baked%d.glb", dir, i);
        snprintf(args, sizeof args, "bake '%s' --time 0 --method recompute -o '%s'", inputs[i], out[i]);
        r = sft_run_cli(args);
        CHECK(r.status == 0 && strstr(r.out, "vertices split for per-corner MikkTSpace tangents") != NULL);
        if (r.status) fprintf(stderr, "  %s", r.err);
        sft_cli_out_free(&r);
        baked[i] = load_with(out[i], SF_TANGENTS_UV);
        CHECK(baked[i] && baked[i]->primitives[0].tangents == SF_GLTF_TANGENTS_SUPPLIED);
        if (!baked[i]) continue;
        const sf_mesh_desc* m = &baked[i]->primitives[0].mesh;
        CHECK(queue_npm_arrays(m->positions.data, m->normals.data, m->uvs.data, m->indices, m->triangle_count, &jobs[i]));
    }
    CHECK(flush_npm());
    for (int i = 0; i < 2; ++i) {
        if (!baked[i]) continue;
        const sf_mesh_desc* m = &baked[i]->primitives[0].mesh;
        size_t n = m->vertex_count, C = 3 * m->triangle_count;
        CHECK(jobs[i].ok);
        float* sign = malloc((n + 1) * sizeof(float));
        CHECK(sign != NULL);
        for (size_t v = 0; v < n; ++v) sign[v] = -1.0f;
        corner_count cc;
        memset(&cc, 0, sizeof cc);
        if (jobs[i].ok) count_corners(m->indices, m->triangle_count, n, m->tangents.data, sign, jobs[i].t, &cc);
        print_count(i ? "bake of NormalTangentTest, TANGENT per corner" : "bake of the mirrored grid, TANGENT per corner", &cc);
        CHECK(cc.corners == C && cc.wrong == 0);
        /* one vertex per distinct (vertex, tangent): no two baked vertices share all their data */
        size_t dup = 0;
        for (size_t a = 0; i == 0 && a < n; ++a)
            for (size_t b = a + 1; b < n; ++b)
                dup += memcmp(m->positions.data + 3 * a, m->positions.data + 3 * b, 12) == 0 &&
                       memcmp(m->uvs.data + 2 * a, m->uvs.data + 2 * b, 8) == 0 &&
                       memcmp(m->tangents.data + 4 * a, m->tangents.data + 4 * b, 16) == 0;
        CHECK(dup == 0);
        if (i == 0) CHECK(n == MG_V + MG + 1);
        free(sign);
        free(jobs[i].t);
        sf_gltf_destroy(baked[i]);
        remove(out[i]);
    }
    remove(grid_path);
    rmdir(dir);
}

/* ---------------------------------------------------------------- frames reusing the last frame's structure */

typedef struct reuse_stats {
    size_t frames, meshes, differing;
    sfi_mikk_stats paths; /* summed over the reused workspaces */
} reuse_stats;

/* The frames of one mesh computed in turn on one workspace (which reuses what an earlier frame built when
 * the shared vertices, degenerate triangles and flags are unchanged) against each frame on a workspace of
 * its own (numbered from scratch): tangents and per-corner tangents bit for bit, and no allocation on the
 * reused workspace. */
static void reuse_check(const sf_mesh_desc* mesh, const sf_pose* poses, size_t frame_count, sf_weld weld,
                        const char* label, reuse_stats* st)
{
    sft_alloc_counter a = {0};
    sf_env env = sft_counting_env(&a);
    sf_topology* topo = NULL;
    sf_workspace *ws = NULL, *fresh = NULL;
    CHECK_OK(sf_topology_create(mesh, NULL, &env, &topo, NULL));
    if (!topo) return;
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    sf_workspace* split = NULL; /* the two-step calls (graph, then sums) over the same frames, kept across them */
    CHECK_OK(sf_workspace_create(topo, NULL, &split, NULL));
    size_t n = mesh->vertex_count, F = mesh->triangle_count;
    float *pos = malloc((3 * n + 1) * sizeof(float)), *nrm = malloc((3 * n + 1) * sizeof(float));
    float *tan_a = malloc((4 * n + 1) * sizeof(float)), *tan_b = malloc((4 * n + 1) * sizeof(float));
    float* corners_a = malloc((12 * F + 1) * sizeof(float));
    CHECK(pos && nrm && tan_a && tan_b && corners_a);
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    o.weld = weld;
    o.tangents = SF_TANGENTS_MIKKTSPACE;
    int differs = 0;
    for (size_t f = 0; f < frame_count; ++f) {
        sf_frames_out out = {pos, nrm, tan_a};
        size_t calls = a.calls;
        CHECK_OK(sf_frames_compute(topo, &poses[f], SF_METHOD_RECOMPUTE, &o, ws, &out, NULL));
        CHECK(a.calls == calls); /* the workspace owns every scratch array */
        const float* c = sfi_mikktspace_corner_tangents(ws);
        CHECK(c != NULL);
        if (c) memcpy(corners_a, c, 12 * F * sizeof(float));
        if (topo->mikk_uv_flags) {
            if (n) memcpy(split->det, ws->det, n * sizeof(float));
            sfi_mikk_groups g;
            CHECK_OK(sfi_mikktspace_prepare(topo, pos, nrm, split, &g, NULL));
            CHECK(g.start && g.start[g.group_count] <= 3 * F);
            CHECK_OK(sfi_mikktspace_tangents_prepared(topo, pos, nrm, split, tan_b, NULL));
            const float* cs = sfi_mikktspace_corner_tangents(split);
            int two_steps = memcmp(tan_a, tan_b, 4 * n * sizeof(float)) == 0 && cs &&
                            memcmp(corners_a, cs, 12 * F * sizeof(float)) == 0;
            if (!two_steps) printf("  %s: frame %zu in two steps differs\n", label, f);
            CHECK(two_steps);
        }
        CHECK_OK(sf_workspace_create(topo, NULL, &fresh, NULL));
        out.tangents = tan_b;
        CHECK_OK(sf_frames_compute(topo, &poses[f], SF_METHOD_RECOMPUTE, &o, fresh, &out, NULL));
        const float* cb = sfi_mikktspace_corner_tangents(fresh);
        int same = memcmp(tan_a, tan_b, 4 * n * sizeof(float)) == 0 && cb &&
                   memcmp(corners_a, cb, 12 * F * sizeof(float)) == 0;
        if (!same && !differs) printf("  %s: frame %zu differs from a fresh workspace\n", label, f);
        differs |= !same;
        CHECK(same);
        sf_workspace_destroy(fresh);
        fresh = NULL;
        st->frames++;
    }
    sfi_mikk_stats p = sfi_mikktspace_scratch_stats(ws->mikktspace);
    st->paths.frames += p.frames;
    st->paths.numbered_known += p.numbered_known;
    st->paths.neighbors_kept_numbering += p.neighbors_kept_numbering;
    st->paths.neighbors_kept_classes += p.neighbors_kept_classes;
    st->paths.neighbors_built += p.neighbors_built;
    st->paths.neighbors_built_last_run += p.neighbors_built_last_run;
    st->meshes++;
    st->differing += (size_t)differs;
    free(pos), free(nrm), free(tan_a), free(tan_b), free(corners_a);
    sf_workspace_destroy(split);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    CHECK(a.allocations == a.frees);
}

static void print_paths(const char* label, const reuse_stats* st)
{
    const sfi_mikk_stats* p = &st->paths;
    printf("  %s: %zu meshes, %zu frames, %zu differ from fresh workspaces; numbered through known classes %zu, "
           "neighbours kept (same numbering %zu, same classes %zu), built %zu (%zu for the last run's order)\n",
           label, st->meshes, st->frames, st->differing, p->numbered_known, p->neighbors_kept_numbering,
           p->neighbors_kept_classes, p->neighbors_built, p->neighbors_built_last_run);
}

/* Random meshes on coarse lattices (shared vertices across indices, degenerate, non-manifold and duplicate
 * triangles, zero UV areas), half the vertices on a second bone that moves by lattice steps, so that
 * vertices join and separate, triangles collapse and open and edges gain and lose triangles from frame to
 * frame. */
static void test_reuse_random(void)
{
    enum { MESHES = 300, MAX_V = 40, MAX_T = 90, FRAMES = 7 };
    uint32_t seed = 777u;
#define NEXT_RANDOM(mod) ((seed = seed * 1664525u + 1013904223u), (seed >> 8) % (mod))
    float bones[FRAMES][24];
    sf_pose poses[FRAMES];
    static const float moves[FRAMES][3] = {{0, 0, 0}, {1, 0, 0}, {1, 0, 0}, {0, 0, 0}, {0.5f, 0, 0}, {0, 1, 1}, {0, 0, 0}};
    for (int f = 0; f < FRAMES; ++f) {
        memset(bones[f], 0, sizeof bones[f]);
        for (int b = 0; b < 2; ++b) bones[f][12 * b] = bones[f][12 * b + 4] = bones[f][12 * b + 8] = 1.0f;
        memcpy(bones[f] + 12 + 9, moves[f], sizeof moves[f]);
        poses[f] = (sf_pose){bones[f], 2, NULL, 0};
    }
    reuse_stats st = {0};
    for (int mesh_i = 0; mesh_i < MESHES; ++mesh_i) {
        const int V = 6 + mesh_i % (MAX_V - 5), T = 4 + (mesh_i * 7) % (MAX_T - 3);
        float positions[MAX_V * 3], uvs[MAX_V * 2], weights[MAX_V];
        uint32_t indices[MAX_T * 3], joints[MAX_V];
        for (int v = 0; v < V; ++v) {
            for (int k = 0; k < 3; ++k) positions[3 * v + k] = (float)NEXT_RANDOM(3u);
            for (int k = 0; k < 2; ++k) uvs[2 * v + k] = 0.5f * (float)NEXT_RANDOM(3u);
            joints[v] = NEXT_RANDOM(2u);
            weights[v] = 1.0f;
        }
        for (int v = V - 3; v < V; ++v) {
            int src = (int)NEXT_RANDOM((uint32_t)(V - 3));
            memcpy(positions + 3 * v, positions + 3 * src, 12);
            memcpy(uvs + 2 * v, uvs + 2 * src, 8);
        }
        for (int i = 0; i < 3 * T; ++i) indices[i] = NEXT_RANDOM((uint32_t)V);
        sf_mesh_desc m = uv_mesh(positions, uvs, (size_t)V, indices, (size_t)T);
        m.influence_count = 1;
        m.joints = joints;
        m.weights = weights;
        m.bone_count = 2;
        char label[64];
        snprintf(label, sizeof label, "random mesh %d", mesh_i);
        reuse_check(&m, poses, FRAMES, mesh_i % 2 ? SF_WELD_POSITION_NORMAL : SF_WELD_NONE, label, &st);
    }
#undef NEXT_RANDOM
    print_paths("random meshes", &st);
    CHECK(st.differing == 0);
}

/* Every built-in scene and preset (rest, posed, rest, posed) and every staged glTF asset's primitives with
 * UVs (rest, the first 2 s of each animation at 30 frames per second, rest), as reuse_check. */
static void test_reuse_scenes_assets(void)
{
    reuse_stats st = {0};
    for (size_t s = 0; s < sf_scene_count(); ++s) {
        const sf_scene_info* info = sf_scene_info_at(s);
        for (size_t p = 0; p <= info->preset_count; ++p) {
            const char* preset = p ? info->presets[p - 1].name : NULL;
            sf_scene* scene = NULL;
            CHECK_OK(sf_scene_create(info->name, preset, NULL, 0, NULL, &scene, NULL));
            if (!scene) continue;
            if (scene->mesh.uvs.data) {
                size_t B = scene->pose.bone_count;
                float* rest = calloc(12 * B + 1, sizeof(float));
                CHECK(rest != NULL);
                for (size_t b = 0; b < B; ++b) rest[12 * b] = rest[12 * b + 4] = rest[12 * b + 8] = 1.0f;
                sf_pose rp = {B ? rest : NULL, B, NULL, 0};
                sf_pose poses[4] = {rp, scene->pose, rp, scene->pose};
                char label[96];
                snprintf(label, sizeof label, "scene %s %s", info->name, preset ? preset : "(default)");
                reuse_check(&scene->mesh, poses, 4, SF_WELD_POSITION_NORMAL, label, &st);
                free(rest);
            }
            sf_scene_destroy(scene);
        }
    }
    char path[1024];
    for (size_t i = 0; i < sizeof assets / sizeof assets[0]; ++i) {
        if (!sft_asset(assets[i], path, sizeof path)) continue;
        sf_gltf* gltf = NULL;
        CHECK_OK(sf_gltf_load_file(path, NULL, NULL, &gltf, NULL));
        sf_gltf_pose* gp = NULL;
        CHECK_OK(sf_gltf_pose_create(gltf, NULL, &gp, NULL));
        for (size_t in = 0; gltf && gp && in < gltf->instance_count; ++in) {
            const sf_gltf_instance* inst = &gltf->instances[in];
            const sf_gltf_mesh* gm = &gltf->meshes[inst->mesh];
            /* rest, every animation at 30 frames per second (its first 2 s), rest */
            enum { PER_ANIM = 60, MAX_ANIMS = 8 };
            size_t anims = gltf->animation_count < MAX_ANIMS ? gltf->animation_count : MAX_ANIMS;
            size_t FRAMES = 2 + anims * PER_ANIM, B = inst->bone_count, T = gm->target_count;
            float* bones = calloc(FRAMES * 12 * B + 1, sizeof(float));
            float* morph = calloc(FRAMES * T + 1, sizeof(float));
            sf_pose* poses = calloc(FRAMES, sizeof *poses);
            CHECK(bones && morph && poses);
            size_t used = 0;
            for (size_t f = 0; f < FRAMES; ++f) {
                int animated = f > 0 && f < FRAMES - 1;
                size_t anim = animated ? (f - 1) / PER_ANIM : SF_GLTF_NONE;
                double t = animated ? gltf->animations[anim].start_s + (double)((f - 1) % PER_ANIM) / 30.0 : 0.0;
                if (animated && t > gltf->animations[anim].end_s) continue;
                float *fb = bones + used * 12 * B, *fm = morph + used * T;
                CHECK_OK(sf_gltf_pose_sample(gp, anim, t, NULL));
                CHECK_OK(sf_gltf_pose_instance(gp, in, fb, fm, NULL, NULL));
                poses[used++] = (sf_pose){fb, B, T ? fm : NULL, T};
            }
            for (size_t p = 0; p < gm->primitive_count; ++p) {
                sf_mesh_desc mesh;
                CHECK_OK(sf_gltf_instance_mesh(gltf, in, gm->first_primitive + p, &mesh, NULL));
                if (!mesh.uvs.data || mesh.triangle_count == 0) continue;
                char label[1100];
                snprintf(label, sizeof label, "%s instance %zu primitive %zu", assets[i], in, p);
                reuse_check(&mesh, poses, used, SF_WELD_POSITION_NORMAL, label, &st);
            }
            free(bones);
            free(morph);
            free(poses);
        }
        sf_gltf_pose_destroy(gp);
        sf_gltf_destroy(gltf);
    }
    print_paths("scenes and assets", &st);
    CHECK(st.meshes > 0 && st.differing == 0);
    /* the animated assets renumber from frame to frame: most frames keep their classes and neighbours */
    CHECK(st.paths.numbered_known * 10 > st.paths.frames * 9);
    CHECK(st.paths.neighbors_built * 10 < st.paths.frames && st.paths.neighbors_kept_classes > 0);
}

/* Random poses of the staged characters and test meshes: a random time of a random animation, each bone matrix's
 * entries scaled by up to 10 % and its translation moved by up to 5 % of its length, random morph weights in
 * [0, 1]; rest first. As reuse_check. */
static void test_reuse_random_poses(void)
{
    static const char* const posed[] = {
        "gltf/CesiumMan/glTF-Binary/CesiumMan.glb",
        "gltf/Fox/glTF-Binary/Fox.glb",
        "gltf/MorphStressTest/glTF-Binary/MorphStressTest.glb",
        "gltf/NormalTangentMirrorTest/glTF-Binary/NormalTangentMirrorTest.glb",
        "gltf/NormalTangentTest/glTF-Binary/NormalTangentTest.glb",
    };
    enum { FRAMES = 24 };
    uint32_t seed = 2026u;
#define NEXT_UNIT() ((seed = seed * 1664525u + 1013904223u), (float)(seed >> 8) / 16777216.0f)
    reuse_stats st = {0};
    char path[1024];
    for (size_t i = 0; i < sizeof posed / sizeof posed[0]; ++i) {
        if (!sft_asset(posed[i], path, sizeof path)) continue;
        sf_gltf* gltf = NULL;
        CHECK_OK(sf_gltf_load_file(path, NULL, NULL, &gltf, NULL));
        sf_gltf_pose* gp = NULL;
        CHECK_OK(sf_gltf_pose_create(gltf, NULL, &gp, NULL));
        for (size_t in = 0; gltf && gp && in < gltf->instance_count; ++in) {
            const sf_gltf_instance* inst = &gltf->instances[in];
            const sf_gltf_mesh* gm = &gltf->meshes[inst->mesh];
            size_t B = inst->bone_count, T = gm->target_count;
            float* bones = calloc(FRAMES * 12 * B + 1, sizeof(float));
            float* morph = calloc(FRAMES * T + 1, sizeof(float));
            sf_pose* poses = calloc(FRAMES, sizeof *poses);
            CHECK(bones && morph && poses);
            for (size_t f = 0; f < FRAMES && bones && morph && poses; ++f) {
                float *fb = bones + f * 12 * B, *fm = morph + f * T;
                size_t anim = SF_GLTF_NONE;
                double t = 0.0;
                if (f > 0 && gltf->animation_count > 0) {
                    anim = (size_t)(NEXT_UNIT() * (float)gltf->animation_count) % gltf->animation_count;
                    t = gltf->animations[anim].start_s +
                        (double)NEXT_UNIT() * (gltf->animations[anim].end_s - gltf->animations[anim].start_s);
                }
                CHECK_OK(sf_gltf_pose_sample(gp, anim, t, NULL));
                CHECK_OK(sf_gltf_pose_instance(gp, in, fb, fm, NULL, NULL));
                for (size_t b = 0; f > 0 && b < B; ++b) {
                    float* mtx = fb + 12 * b;
                    float len = sqrtf(mtx[9] * mtx[9] + mtx[10] * mtx[10] + mtx[11] * mtx[11]);
                    for (int k = 0; k < 9; ++k) mtx[k] *= 1.0f + 0.2f * (NEXT_UNIT() - 0.5f);
                    for (int k = 9; k < 12; ++k) mtx[k] += 0.1f * len * (NEXT_UNIT() - 0.5f);
                }
                for (size_t k = 0; f > 0 && k < T; ++k) fm[k] = NEXT_UNIT();
                poses[f] = (sf_pose){fb, B, T ? fm : NULL, T};
            }
            for (size_t p = 0; p < gm->primitive_count; ++p) {
                sf_mesh_desc mesh;
                CHECK_OK(sf_gltf_instance_mesh(gltf, in, gm->first_primitive + p, &mesh, NULL));
                if (!mesh.uvs.data || mesh.triangle_count == 0) continue;
                char label[1100];
                snprintf(label, sizeof label, "%s instance %zu primitive %zu", posed[i], in, p);
                reuse_check(&mesh, poses, FRAMES, p % 2 ? SF_WELD_NONE : SF_WELD_POSITION_NORMAL, label, &st);
            }
            free(bones);
            free(morph);
            free(poses);
        }
        sf_gltf_pose_destroy(gp);
        sf_gltf_destroy(gltf);
    }
#undef NEXT_UNIT
    print_paths("random poses of the assets", &st);
    CHECK(st.meshes > 0 && st.differing == 0);
    CHECK(st.paths.neighbors_kept_classes > 0);
}

/* A flat grid of G x G quads in z = 0 (UVs from the positions), the columns right of the middle on bone 1, with
 * variants that reach each fallback of the frames that reuse the last frame's structure:
 *   plain: the poses stretch bone 1's half (the numbering changes, the classes do not): neighbours kept;
 *   fin: a third triangle on an interior edge (non-manifold): the numbering decides the pairing, so every
 *     renumbered frame builds the neighbours;
 *   seam: a vertex on bone 0 duplicated (same position, UV, normal) for the triangles right of it, the copy on
 *     bone 1: one vertex at rest, two when stretched (split), one again at rest (merge): numbered in full;
 *   shift: a pose moves bone 1's half one column left onto bone 0's last column: degenerate triangles appear
 *     and go. */
typedef struct grid_variant {
    float P[(16 + 1) * (16 + 1) * 3 + 6], UV[(16 + 1) * (16 + 1) * 2 + 4];
    uint32_t I[16 * 16 * 6 + 3], J[(16 + 1) * (16 + 1) + 2];
    float W[(16 + 1) * (16 + 1) + 2];
    size_t V, T;
} grid_variant;

static void grid_variant_make(grid_variant* g, int kind)
{
    enum { G = 16 };
    memset(g, 0, sizeof *g);
    for (int y = 0; y <= G; ++y)
        for (int x = 0; x <= G; ++x) {
            size_t v = (size_t)(y * (G + 1) + x);
            g->P[3 * v] = (float)x, g->P[3 * v + 1] = (float)y;
            g->UV[2 * v] = (float)x / G, g->UV[2 * v + 1] = (float)y / G;
            g->J[v] = x > G / 2;
            g->W[v] = 1.0f;
        }
    g->V = (G + 1) * (G + 1);
    for (int y = 0; y < G; ++y)
        for (int x = 0; x < G; ++x) {
            uint32_t a = (uint32_t)(y * (G + 1) + x), b = a + 1, c = a + G + 1, d = c + 1;
            uint32_t* t = g->I + 3 * g->T;
            t[0] = a, t[1] = b, t[2] = d, t[3] = a, t[4] = d, t[5] = c;
            g->T += 2;
        }
    if (kind == 1) { /* a fin on the edge (5,5)-(6,6), to a vertex above the plane */
        size_t v = g->V++;
        g->P[3 * v] = 5.5f, g->P[3 * v + 1] = 5.5f, g->P[3 * v + 2] = 1.0f;
        g->UV[2 * v] = 0.9f, g->UV[2 * v + 1] = 0.1f;
        g->W[v] = 1.0f;
        uint32_t* t = g->I + 3 * g->T++;
        t[0] = 5 * (G + 1) + 5, t[1] = 6 * (G + 1) + 6, t[2] = (uint32_t)v;
    }
    if (kind == 2) { /* vertex (8, 8), on bone 0, copied onto bone 1 for the quad right of it */
        uint32_t src = 8 * (G + 1) + 8;
        size_t v = g->V++;
        memcpy(g->P + 3 * v, g->P + 3 * src, 12);
        memcpy(g->UV + 2 * v, g->UV + 2 * src, 8);
        g->J[v] = 1;
        g->W[v] = 1.0f;
        for (size_t i = 0; i < 3 * g->T; ++i)
            if (g->I[i] == src && (i / 3) / 2 % G == 8 && (i / 3) / 2 / G == 8) g->I[i] = (uint32_t)v;
    }
}

static void test_reuse_fallbacks(void)
{
    enum { FRAMES = 6 };
    /* rest, bone 1 stretched along x, along y, rest, shifted one column left, rest */
    static const float scale[FRAMES][2] = {{1, 1}, {1.5f, 1}, {1, 2.5f}, {1, 1}, {1, 1}, {1, 1}};
    static const float shift[FRAMES] = {0, 0, 0, 0, -1, 0};
    float bones[FRAMES][24];
    sf_pose poses[FRAMES];
    for (int f = 0; f < FRAMES; ++f) {
        memset(bones[f], 0, sizeof bones[f]);
        bones[f][0] = bones[f][4] = bones[f][8] = 1.0f;
        /* bone 1 scales about x = 8 (the middle column), then shifts */
        bones[f][12] = scale[f][0], bones[f][16] = scale[f][1], bones[f][20] = 1.0f;
        bones[f][21] = 8.0f * (1.0f - scale[f][0]) + shift[f];
        poses[f] = (sf_pose){bones[f], 2, NULL, 0};
    }
    static const char* const names[] = {"plain", "fin", "seam"};
    static grid_variant g;
    for (int kind = 0; kind < 3; ++kind) {
        grid_variant_make(&g, kind);
        sf_mesh_desc m = uv_mesh(g.P, g.UV, g.V, g.I, g.T);
        m.influence_count = 1;
        m.joints = g.J;
        m.weights = g.W;
        m.bone_count = 2;
        for (int weld = 0; weld < 2; ++weld) {
            reuse_stats st = {0};
            char label[64];
            snprintf(label, sizeof label, "grid %s, weld %s", names[kind], weld ? "position+normal" : "none");
            reuse_check(&m, poses, FRAMES, weld ? SF_WELD_POSITION_NORMAL : SF_WELD_NONE, label, &st);
            print_paths(label, &st);
            const sfi_mikk_stats* p = &st.paths;
            CHECK(st.differing == 0 && p->frames == FRAMES);
            /* the shift makes triangles degenerate, and the frame after it makes them good again */
            CHECK(p->neighbors_built >= 3);
            if (kind == 0) CHECK(p->numbered_known == FRAMES - 1 && p->neighbors_kept_classes >= 1);
            if (kind == 1) CHECK(p->numbered_known == FRAMES - 1 && p->neighbors_kept_classes == 0);
            /* split at the stretch, merged at rest; the shift splits it again */
            if (kind == 2) CHECK(p->numbered_known <= FRAMES - 4);
        }
    }
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"acos_ieee", test_acos_ieee},
        {"fan_by_hand", test_fan_by_hand},
        {"mirrored_split", test_mirrored_split},
        {"degenerate", test_degenerate},
        {"grid_and_mirror", test_grid_and_mirror},
        {"split_by_hand", test_split_by_hand},
        {"topology_split_stat", test_topology_split_stat},
        {"loader_split_streams", test_loader_split_streams},
        {"eval_corners_by_hand", test_eval_corners_by_hand},
        {"npm_random", test_npm_random},
        {"npm_scenes", test_npm_scenes},
        {"npm_assets", test_npm_assets},
        {"npm_random_split", test_npm_random_split},
        {"npm_loaded_tangents", test_npm_loaded_tangents},
        {"npm_bake_round_trip", test_npm_bake_round_trip},
        {"npm_reference_corners", test_npm_reference_corners},
        {"reuse_random", test_reuse_random},
        {"reuse_scenes_assets", test_reuse_scenes_assets},
        {"reuse_random_poses", test_reuse_random_poses},
        {"reuse_fallbacks", test_reuse_fallbacks},
    };
    int rc = SFT_RUN(cases, argc, argv);
    if (rc == 0 && node_state == -1) {
        printf("node or npm missing: the comparison with the npm package was skipped\n");
        return 77;
    }
    return rc;
}

// LABELS: unit
/* MikkTSpace-compatible tangents: hand-computed cases (flat grid, angle-weighted fan, mirrored UVs,
 * degenerate UV and position triangles), then agreement with the reference implementation, the npm
 * package `mikktspace` (a WebAssembly build of the original algorithm) run by tests/mikktspace/run.js,
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
        sf_result res = sf_workspace_create(r->topo, &r->ws, NULL);
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
    sf_mesh_desc m;
    memset(&m, 0, sizeof m);
    m.vertex_count = 4;
    m.triangle_count = 2;
    m.indices = indices;
    m.positions.data = positions;
    m.uvs.data = uvs;
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
    sf_mesh_desc m;
    memset(&m, 0, sizeof m);
    m.vertex_count = 4;
    m.triangle_count = 2;
    m.indices = indices;
    m.positions.data = positions;
    m.uvs.data = uvs;
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
    check_tangent(r.tan + 12, -1.0f / l, -1.5f / l, 0, -1, &ok); /* vertex 3 only in B */
    check_tangent(r.tan + 0, 1, 0, 0, 1, &ok);                     /* vertex 0: its first corner (A) */
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
    sf_mesh_desc m;
    memset(&m, 0, sizeof m);
    m.vertex_count = 5;
    m.triangle_count = 1;
    m.indices = indices;
    m.positions.data = positions;
    m.uvs.data = uvs;
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

/* Flat grid, u along +x and v along +y: every tangent is +x with w = +1, in the same convention as the
 * `uv` tangents; a mirroring bone flips w. */
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
    sf_mesh_desc m;
    memset(&m, 0, sizeof m);
    m.vertex_count = V;
    m.triangle_count = G * G * 2;
    m.indices = indices;
    m.positions.data = positions;
    m.uvs.data = uvs;
    m.influence_count = 1;
    m.joints = joints;
    m.weights = weights;
    m.bone_count = 1;
    float bone[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    sf_pose pose = {bone, 1, NULL, 0};
    mikk_run r;
    CHECK_OK(run_mesh(&r, &m, &pose, SF_WELD_NONE));
    int ok = 1;
    for (int v = 0; v < V; ++v) check_tangent(r.tan + 4 * v, 1, 0, 0, 1, &ok);
    /* the uv mode agrees */
    float uvt[V * 4];
    sf_frames_out out = {NULL, NULL, uvt};
    CHECK_OK(sf_frames_compute(r.topo, &pose, SF_METHOD_RECOMPUTE, NULL, r.ws, &out, NULL));
    for (int v = 0; v < V; ++v) CHECK(uvt[4 * v + 3] == r.tan[4 * v + 3]);
    /* mirror x: tangent -x (it follows the edges), w flips */
    bone[0] = -1.0f;
    CHECK_OK(run_frame(&r, &pose, SF_WELD_NONE));
    for (int v = 0; v < V; ++v) check_tangent(r.tan + 4 * v, -1, 0, 0, -1, &ok);
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
    if (!src || system("command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1") != 0) {
        node_state = -1;
        return node_state;
    }
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd '%s/tests/mikktspace' && { [ -f node_modules/mikktspace/package.json ] || "
             "npm install --no-audit --no-fund --silent >/dev/null 2>&1; } && "
             "[ -f node_modules/mikktspace/package.json ]",
             src);
    node_state = system(cmd) == 0 ? 1 : -2;
    if (node_state == -2) fprintf(stderr, "  npm install of mikktspace failed in %s/tests/mikktspace\n", src);
    return node_state;
}

typedef struct agreement {
    double max_diff;   /* largest |component| difference of tangent xyz */
    size_t corners, handed_mismatch, over_tol;
    size_t split_vertices; /* vertices whose corners got different tangents */
} agreement;

/* Runs the npm package on the last frame of r (unindexed corners) and compares corner by corner. */
static int compare_with_npm(const mikk_run* r, const char* tag, agreement* a)
{
    const sf_topology* topo = r->topo;
    size_t F = sf_topology_triangle_count(topo);
    const uint32_t* idx = sf_topology_indices(topo);
    const float* uv = sf_topology_uvs(topo);
    const char* dir = getenv("SF_BUILD_DIR");
    char in_path[1024], out_path[1024], cmd[4096];
    snprintf(in_path, sizeof in_path, "%s/mikk_%s.in.txt", dir ? dir : "/tmp", tag);
    snprintf(out_path, sizeof out_path, "%s/mikk_%s.out.txt", dir ? dir : "/tmp", tag);
    FILE* f = fopen(in_path, "w");
    if (!f) return 0;
    fprintf(f, "%zu\n", 3 * F);
    for (size_t c = 0; c < 3 * F; ++c) {
        uint32_t v = idx[c];
        const float *p = r->pos + 3 * v, *n = r->nrm + 3 * v, *t = uv + 2 * v;
        fprintf(f, "%.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", (double)p[0], (double)p[1], (double)p[2],
                (double)n[0], (double)n[1], (double)n[2], (double)t[0], (double)t[1]);
    }
    fclose(f);
    snprintf(cmd, sizeof cmd, "node '%s/tests/mikktspace/run.js' '%s' > '%s'", getenv("SF_SOURCE_DIR"), in_path,
             out_path);
    if (system(cmd) != 0) return 0;
    f = fopen(out_path, "r");
    if (!f) return 0;
    const float* ours = sfi_mikktspace_corner_tangents(r->ws);
    memset(a, 0, sizeof *a);
    int ok = ours != NULL;
    for (size_t c = 0; ok && c < 3 * F; ++c) {
        double ref[4];
        if (fscanf(f, "%lf %lf %lf %lf", &ref[0], &ref[1], &ref[2], &ref[3]) != 4) {
            ok = 0;
            break;
        }
        double d = 0.0;
        for (int k = 0; k < 3; ++k) d = fmax(d, fabs(ref[k] - (double)ours[4 * c + k]));
        if (d > a->max_diff) a->max_diff = d;
        if (d > TANGENT_TOL) a->over_tol++;
        if ((ref[3] < 0) != (ours[4 * c + 3] < 0)) a->handed_mismatch++;
        a->corners++;
    }
    fclose(f);
    remove(in_path);
    remove(out_path);
    /* the per-vertex output is the vertex's first corner; count the vertices MikkTSpace splits */
    size_t n = sf_topology_vertex_count(topo);
    for (size_t v = 0; v < n; ++v) {
        for (uint32_t k = topo->adj_offsets[v] + 1; k < topo->adj_offsets[v + 1]; ++k) {
            if (memcmp(ours + 4 * topo->adj_corners[topo->adj_offsets[v]], ours + 4 * topo->adj_corners[k], 16)) {
                a->split_vertices++;
                break;
            }
        }
    }
    return ok;
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
    double worst = 0.0;
    size_t total = 0;
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
            for (int weld = 0; weld < 2; ++weld) {
                CHECK_OK(run_mesh(&r, &scene->mesh, &scene->pose, weld ? SF_WELD_POSITION_NORMAL : SF_WELD_NONE));
                agreement a;
                char tag[128];
                snprintf(tag, sizeof tag, "%s_%s_%d", info->name, preset ? preset : "rest", weld);
                CHECK(compare_with_npm(&r, tag, &a));
                printf("  scene %-8s %-16s weld %d: %6zu corners, max |dt| %.2e, handedness mismatches %zu, "
                       "split vertices %zu\n",
                       info->name, preset ? preset : "(rest)", weld, a.corners, a.max_diff, a.handed_mismatch,
                       a.split_vertices);
                if (a.max_diff > worst) worst = a.max_diff;
                total += a.corners;
                run_free(&r);
                CHECK(a.over_tol == 0);
                CHECK(a.handed_mismatch == 0);
            }
            sf_scene_destroy(scene);
        }
    }
    printf("  scenes: %zu corners, max tangent difference %.2e\n", total, worst);
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

/* Supplied glTF tangents against ours at rest: xyz angle and w with glTF's sign (w_gltf = -w here). */
static void authored_agreement(const mikk_run* r, const sf_mesh_desc* mesh, double* max_deg, size_t* w_match,
                               size_t* counted)
{
    *max_deg = 0.0;
    *w_match = *counted = 0;
    for (size_t v = 0; v < mesh->vertex_count; ++v) {
        const float* t = sfi_stream_at(mesh->tangents, 16, v);
        double d = sf_angle_deg(t, r->tan + 4 * v);
        if (d > *max_deg) *max_deg = d;
        *w_match += (t[3] < 0) == (-r->tan[4 * v + 3] < 0);
        (*counted)++;
    }
}

static void test_npm_assets(void)
{
    if (node_ready() != 1) {
        CHECK(node_state != -2);
        return;
    }
    char path[1024];
    size_t tested = 0;
    for (size_t i = 0; i < sizeof assets / sizeof assets[0]; ++i) {
        if (!sft_asset(assets[i], path, sizeof path)) continue;
        sf_gltf* gltf = NULL;
        CHECK_OK(sf_gltf_load_file(path, NULL, NULL, &gltf, NULL));
        sf_gltf_pose* gp = NULL;
        CHECK_OK(sf_gltf_pose_create(gltf, NULL, &gp, NULL));
        agreement total;
        memset(&total, 0, sizeof total);
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
                    agreement a;
                    char tag[64];
                    snprintf(tag, sizeof tag, "asset%zu_%zu_%zu_%d", i, in, p, frame);
                    CHECK(compare_with_npm(&r, tag, &a));
                    total.corners += a.corners;
                    total.handed_mismatch += a.handed_mismatch;
                    total.over_tol += a.over_tol;
                    total.split_vertices += frame ? 0 : a.split_vertices;
                    if (a.max_diff > total.max_diff) total.max_diff = a.max_diff;
                    if (frame == 0) {
                        fixed += seam_vertices_fixed(&r, &pose);
                        if (mesh.tangents.data) {
                            double d;
                            size_t w, nn;
                            CHECK_OK(run_frame(&r, &pose, SF_WELD_NONE));
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
        printf("  %-62s %2zu prims %5zu verts: %6zu corners, max |dt| %.2e, handedness %zu/%zu agree, split %zu, "
               "seam vertices fixed by welding %zu",
               assets[i], prims, verts, total.corners, total.max_diff, total.corners - total.handed_mismatch,
               total.corners, total.split_vertices, fixed);
        if (auth_n)
            printf("; authored tangents vs ours: max %.2f deg, glTF w agrees at %zu/%zu", auth_deg, auth_w, auth_n);
        printf("\n");
        CHECK(total.over_tol == 0);
        CHECK(total.handed_mismatch == 0);
        tested++;
        sf_gltf_pose_destroy(gp);
        sf_gltf_destroy(gltf);
    }
    printf("  %zu assets compared\n", tested);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"fan_by_hand", test_fan_by_hand},
        {"mirrored_split", test_mirrored_split},
        {"degenerate", test_degenerate},
        {"grid_and_mirror", test_grid_and_mirror},
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

// LABELS: unit
/* glTF reading and writing: every staged asset loads with the counts of tests/assets/README.md,
 * bind poses reproduce the rest positions, synthetic files (8 influences, sparse targets with TANGENT
 * deltas, strips and fans) read back as written, malformed files fail naming the JSON path, and every
 * prefix of a file fails cleanly. */
#define _POSIX_C_SOURCE 200809L
#include "sf_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- helpers */

static sf_gltf* load_asset(const char* rel)
{
    char buf[1024];
    const char* path = sft_asset(rel, buf, sizeof buf);
    if (!path) {
        fprintf(stderr, "  asset %s not found (SF_ASSETS)\n", rel);
        return NULL;
    }
    sf_gltf* g = NULL;
    sf_error err;
    if (sf_gltf_load_file(path, NULL, NULL, &g, &err) != SF_OK) fprintf(stderr, "  %s: %s\n", rel, err.message);
    return g;
}

static void base64(const uint8_t* data, size_t n, char* out)
{
    static const char* abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t k = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16 | (i + 1 < n ? (uint32_t)data[i + 1] << 8 : 0) | (i + 2 < n ? data[i + 2] : 0);
        out[k++] = abc[v >> 18 & 63];
        out[k++] = abc[v >> 12 & 63];
        out[k++] = i + 1 < n ? abc[v >> 6 & 63] : '=';
        out[k++] = i + 2 < n ? abc[v & 63] : '=';
    }
    out[k] = '\0';
}

/* Replaces the first occurrence of `from` in text by `to` (into a new malloc'd string). */
static char* replace(const char* text, const char* from, const char* to)
{
    const char* at = strstr(text, from);
    if (!at) return NULL;
    size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
    char* out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

/* A minimal .gltf: one triangle (3 positions, 3 u16 indices) in a base64 data URI. */
static char* tiny_gltf(const uint16_t idx[3])
{
    uint8_t bin[44];
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    memcpy(bin, pos, 36);
    memcpy(bin + 36, idx, 6);
    bin[42] = bin[43] = 0;
    char b64[80];
    base64(bin, 44, b64);
    char* text = malloc(2048);
    snprintf(text, 2048,
             "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":44,\"uri\":\"data:application/"
             "octet-stream;base64,%s\"}],\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},"
             "{\"buffer\":0,\"byteOffset\":36,\"byteLength\":6}],\"accessors\":[{\"bufferView\":0,"
             "\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},{\"bufferView\":1,\"componentType\":5123,"
             "\"count\":3,\"type\":\"SCALAR\"},{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],"
             "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}],\"scene\":0}",
             b64);
    return text;
}

static sf_result load_text(const char* text, const char* base_dir, sf_error* err)
{
    sf_gltf* g = NULL;
    sf_result r = sf_gltf_load_memory(text, strlen(text), base_dir, NULL, NULL, &g, err);
    sf_gltf_destroy(g);
    return r;
}

/* Loads text (after replacing from -> to) and checks the error code and field. */
static int expect_field(const char* base, const char* from, const char* to, const char* field)
{
    char* text = replace(base, from, to);
    if (!text) {
        fprintf(stderr, "  pattern %s not in the template\n", from);
        return 0;
    }
    sf_error err;
    sf_result r = load_text(text, "/tmp", &err);
    free(text);
    if (r != SF_ERROR_GLTF || strcmp(err.field, field) != 0) {
        fprintf(stderr, "  %s -> %s: got %d field '%s' (%s), want field '%s'\n", from, to, (int)r, err.field,
                err.message, field);
        return 0;
    }
    return 1;
}

/* 4x4 column-major helpers written here independently of src/gltf/anim.c. */
static void mat_mul(const double* a, const double* b, double* out)
{
    double r[16];
    for (int c = 0; c < 4; ++c)
        for (int k = 0; k < 4; ++k) {
            r[4 * c + k] = 0.0;
            for (int j = 0; j < 4; ++j) r[4 * c + k] += a[4 * j + k] * b[4 * c + j];
        }
    memcpy(out, r, sizeof r);
}

/* Inverse of an affine matrix (last row 0 0 0 1). */
static void affine_inverse(const double* m, double* out)
{
    double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
    double det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
    double inv[9] = {(e * i - f * h) / det, -(b * i - c * h) / det, (b * f - c * e) / det,
                     -(d * i - f * g) / det, (a * i - c * g) / det,  -(a * f - c * d) / det,
                     (d * h - e * g) / det,  -(a * h - b * g) / det, (a * e - b * d) / det};
    /* inv is row-major here */
    memset(out, 0, 16 * sizeof(double));
    for (int r = 0; r < 3; ++r)
        for (int cc = 0; cc < 3; ++cc) out[4 * cc + r] = inv[3 * r + cc];
    for (int r = 0; r < 3; ++r) out[12 + r] = -(out[r] * m[12] + out[4 + r] * m[13] + out[8 + r] * m[14]);
    out[15] = 1.0;
}

static void to_double(const float* f, double* d)
{
    for (int k = 0; k < 16; ++k) d[k] = f[k];
}

/* TRS of an affine matrix without shear. */
static void decompose(const double* m, float t[3], float q[4], float s[3])
{
    double R[3][3]; /* R[col][row] */
    for (int c = 0; c < 3; ++c) {
        s[c] = (float)sqrt(m[4 * c] * m[4 * c] + m[4 * c + 1] * m[4 * c + 1] + m[4 * c + 2] * m[4 * c + 2]);
        for (int r = 0; r < 3; ++r) R[c][r] = m[4 * c + r] / s[c];
    }
    t[0] = (float)m[12], t[1] = (float)m[13], t[2] = (float)m[14];
    double tr = R[0][0] + R[1][1] + R[2][2], x, y, z, w;
    if (tr > 0) {
        double S = sqrt(tr + 1.0) * 2;
        w = 0.25 * S, x = (R[1][2] - R[2][1]) / S, y = (R[2][0] - R[0][2]) / S, z = (R[0][1] - R[1][0]) / S;
    } else if (R[0][0] > R[1][1] && R[0][0] > R[2][2]) {
        double S = sqrt(1.0 + R[0][0] - R[1][1] - R[2][2]) * 2;
        w = (R[1][2] - R[2][1]) / S, x = 0.25 * S, y = (R[1][0] + R[0][1]) / S, z = (R[2][0] + R[0][2]) / S;
    } else if (R[1][1] > R[2][2]) {
        double S = sqrt(1.0 + R[1][1] - R[0][0] - R[2][2]) * 2;
        w = (R[2][0] - R[0][2]) / S, x = (R[1][0] + R[0][1]) / S, y = 0.25 * S, z = (R[2][1] + R[1][2]) / S;
    } else {
        double S = sqrt(1.0 + R[2][2] - R[0][0] - R[1][1]) * 2;
        w = (R[0][1] - R[1][0]) / S, x = (R[2][0] + R[0][2]) / S, y = (R[2][1] + R[1][2]) / S, z = 0.25 * S;
    }
    q[0] = (float)x, q[1] = (float)y, q[2] = (float)z, q[3] = (float)w;
}

/* Deformed positions of (instance, primitive) under the pose's current state. */
static int deform(const sf_gltf* g, const sf_gltf_pose* pose, size_t inst, size_t prim, float* out, float* bones)
{
    sf_mesh_desc m;
    sf_error err;
    float weights[64];
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    int ok = sf_gltf_instance_mesh(g, inst, prim, &m, &err) == SF_OK &&
             sf_gltf_pose_instance(pose, inst, bones, weights, NULL, &err) == SF_OK &&
             sf_topology_create(&m, NULL, NULL, &topo, &err) == SF_OK && sf_workspace_create(topo, NULL, &ws, &err) == SF_OK;
    sf_pose p = {bones, g->instances[inst].bone_count, weights, m.target_count};
    ok = ok && sf_deform_positions(topo, &p, ws, out, &err) == SF_OK;
    if (!ok) fprintf(stderr, "  deform: %s\n", err.message);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    return ok;
}

/* ---------------------------------------------------------------- staged assets */

typedef struct expected {
    const char* path;
    size_t vertices, triangles, primitives, joints, targets, animations;
} expected;

static void test_assets_counts(void)
{
    /* From tests/assets/README.md (vertices = POSITION counts summed over primitives). */
    static const expected table[] = {
        {"gltf/SimpleSkin/glTF/SimpleSkin.gltf", 10, 8, 1, 2, 0, 1},
        {"gltf/CesiumMan/glTF-Binary/CesiumMan.glb", 3273, 4672, 1, 19, 0, 1},
        {"gltf/Fox/glTF-Binary/Fox.glb", 1728, 576, 1, 24, 0, 3},
        {"gltf/SimpleMorph/glTF/SimpleMorph.gltf", 3, 1, 1, 0, 2, 1},
        {"gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb", 24, 12, 1, 0, 2, 1},
        {"gltf/AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf", 24, 12, 1, 0, 2, 1},
        {"gltf/MorphStressTest/glTF-Binary/MorphStressTest.glb", 1528, 2412, 2, 0, 8, 3},
        {"gltf/SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf", 14, 12, 1, 0, 0, 0},
        {"gltf/InterpolationTest/glTF-Binary/InterpolationTest.glb", 220, 110, 10, 0, 0, 9},
        {"gltf/NormalTangentMirrorTest/glTF-Binary/NormalTangentMirrorTest.glb", 2770, 5240, 1, 0, 0, 0},
        {"gltf/NormalTangentTest/glTF-Binary/NormalTangentTest.glb", 3983, 7774, 1, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i) {
        const expected* e = &table[i];
        sf_gltf* g = load_asset(e->path);
        CHECK(g != NULL);
        size_t v = 0, t = 0, targets = 0;
        for (size_t p = 0; p < g->primitive_count; ++p) {
            v += g->primitives[p].source_vertex_count;
            t += g->primitives[p].mesh.triangle_count;
            if (g->primitives[p].mesh.target_count > targets) targets = g->primitives[p].mesh.target_count;
        }
        if (v != e->vertices || t != e->triangles || g->primitive_count != e->primitives || targets != e->targets ||
            g->animation_count != e->animations)
            fprintf(stderr, "  %s: %zu v %zu t %zu prims %zu targets %zu anims\n", e->path, v, t, g->primitive_count,
                    targets, g->animation_count);
        CHECK(v == e->vertices);
        CHECK(t == e->triangles);
        CHECK(g->primitive_count == e->primitives);
        CHECK(targets == e->targets);
        CHECK(g->animation_count == e->animations);
        CHECK(e->joints == 0 ? g->skin_count == 0 : g->skin_count == 1 && g->skins[0].joint_count == e->joints);
        sf_gltf_destroy(g);
    }
}

static void test_asset_details(void)
{
    sf_gltf* g = load_asset("gltf/Fox/glTF-Binary/Fox.glb");
    CHECK(g != NULL);
    static const char* const names[3] = {"Survey", "Walk", "Run"};
    static const double ends[3] = {3.417, 0.708, 1.158};
    for (int a = 0; a < 3; ++a) {
        CHECK(strcmp(g->animations[a].name, names[a]) == 0);
        CHECK_NEAR(g->animations[a].end_s, ends[a], 1e-3);
        CHECK(g->animations[a].channel_count == 21);
    }
    /* No NORMAL: flat normals, one vertex per corner, unit and perpendicular to the face. */
    const sf_gltf_primitive* pr = &g->primitives[0];
    CHECK(pr->flat_normals == 1 && pr->mesh.vertex_count == 3 * 576);
    CHECK(pr->tangents == SF_GLTF_TANGENTS_GENERATED_UV);
    const float* P = pr->mesh.positions.data;
    const float* N = pr->mesh.normals.data;
    for (size_t f = 0; f < 576; ++f) {
        const float* p = P + 9 * f;
        double e1[3], e2[3], c[3];
        for (int k = 0; k < 3; ++k) e1[k] = p[3 + k] - p[k], e2[k] = p[6 + k] - p[k];
        c[0] = e1[1] * e2[2] - e1[2] * e2[1], c[1] = e1[2] * e2[0] - e1[0] * e2[2], c[2] = e1[0] * e2[1] - e1[1] * e2[0];
        double len = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
        for (int corner = 0; corner < 3; ++corner)
            for (int k = 0; k < 3; ++k) CHECK_NEAR(N[9 * f + 3 * corner + k], c[k] / len, 1e-5);
    }
    /* README: the whole mesh is UV-mirrored, so generated tangents all get w = -1. */
    sf_mesh_desc m;
    sf_topology* topo;
    CHECK_OK(sf_gltf_instance_mesh(g, 0, 0, &m, NULL));
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, NULL));
    const float* T = sf_topology_rest_tangents(topo);
    size_t negative = 0;
    for (size_t v = 0; v < m.vertex_count; ++v) negative += T[4 * v + 3] < 0.0f;
    sf_topology_destroy(topo);
    CHECK(negative == m.vertex_count);
    sf_gltf_destroy(g);
    /* The same with MikkTSpace tangents generated at load: unit, w = -1 everywhere (mirrored UVs). */
    sf_gltf_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.generated_tangents = SF_TANGENTS_MIKKTSPACE;
    char fox[1024];
    CHECK(sft_asset("gltf/Fox/glTF-Binary/Fox.glb", fox, sizeof fox));
    CHECK_OK(sf_gltf_load_file(fox, &opts, NULL, &g, NULL));
    pr = &g->primitives[0];
    CHECK(pr->tangents == SF_GLTF_TANGENTS_GENERATED_MIKKTSPACE && pr->mesh.tangents.data != NULL);
    negative = 0;
    for (size_t v = 0; v < pr->mesh.vertex_count; ++v) {
        const float* t = pr->mesh.tangents.data + 4 * v;
        CHECK_NEAR(sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]), 1.0, 1e-5);
        const float* nv = pr->mesh.normals.data + 3 * v;
        CHECK_NEAR(t[0] * nv[0] + t[1] * nv[1] + t[2] * nv[2], 0.0, 1e-5); /* in the surface */
        negative += t[3] == -1.0f;
    }
    CHECK(negative == pr->mesh.vertex_count);
    sf_gltf_inspection ins;
    CHECK_OK(sf_gltf_primitive_inspect(g, 0, 4, NULL, &ins, NULL));
    CHECK(ins.problems[SF_GLTF_PROBLEM_TANGENT_W].count == 0); /* generated tangents are not authored data */
    sf_gltf_destroy(g);

    g = load_asset("gltf/NormalTangentMirrorTest/glTF-Binary/NormalTangentMirrorTest.glb");
    CHECK(g != NULL);
    pr = &g->primitives[0];
    CHECK(pr->tangents == SF_GLTF_TANGENTS_SUPPLIED);
    negative = 0;
    for (size_t v = 0; v < pr->mesh.vertex_count; ++v) negative += pr->mesh.tangents.data[4 * v + 3] < 0.0f;
    CHECK(negative == 80);
    sf_gltf_destroy(g);

    g = load_asset("gltf/SimpleMorph/glTF/SimpleMorph.gltf");
    CHECK(g != NULL);
    CHECK_NEAR(g->meshes[0].weights[0], 0.5, 0);
    CHECK_NEAR(g->meshes[0].weights[1], 0.5, 0);
    CHECK_NEAR(g->animations[0].end_s, 4.0, 1e-6);
    sf_gltf_destroy(g);

    g = load_asset("gltf/InterpolationTest/glTF-Binary/InterpolationTest.glb");
    CHECK(g != NULL);
    size_t by[3] = {0, 0, 0};
    for (size_t a = 0; a < g->animation_count; ++a) by[g->animations[a].channels[0].interpolation]++;
    CHECK(by[SF_GLTF_LINEAR] == 3 && by[SF_GLTF_STEP] == 3 && by[SF_GLTF_CUBICSPLINE] == 3);
    sf_gltf_destroy(g);

    g = load_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb");
    CHECK(g != NULL);
    CHECK(g->animations[0].channel_count == 57);
    CHECK_NEAR(g->animations[0].end_s, 2.0, 1e-3);
    CHECK(g->instance_count == 1 && g->instances[0].skin == 0 && g->instances[0].bone_count == 19);
    sf_gltf_destroy(g);
}

static void test_seams_and_hard_edges(void)
{
    static const struct {
        const char* path;
        size_t prim, positions, seams, hard;
    } table[] = {
        {"gltf/CesiumMan/glTF-Binary/CesiumMan.glb", 0, 2338, 260, 0},
        {"gltf/Fox/glTF-Binary/Fox.glb", 0, 290, 118, 0},
        {"gltf/MorphStressTest/glTF-Binary/MorphStressTest.glb", 1, SIZE_MAX, 256, SIZE_MAX},
        {"gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb", 0, 8, 0, 8},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i) {
        sf_gltf* g = load_asset(table[i].path);
        CHECK(g != NULL);
        sf_gltf_inspection in;
        CHECK_OK(sf_gltf_primitive_inspect(g, table[i].prim, 4, NULL, &in, NULL));
        if (table[i].positions != SIZE_MAX) CHECK(in.unique_positions == table[i].positions);
        CHECK(in.uv_seam_positions == table[i].seams);
        if (table[i].hard != SIZE_MAX) CHECK(in.hard_edge_positions == table[i].hard);
        sf_gltf_destroy(g);
    }
    /* CesiumMan: 4 influences, histogram 458/1678/717/420, weights sum to one. */
    sf_gltf* g = load_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb");
    CHECK(g != NULL);
    sf_gltf_inspection in;
    CHECK_OK(sf_gltf_primitive_inspect(g, 0, 4, NULL, &in, NULL));
    CHECK(in.influence_histogram[1] == 458 && in.influence_histogram[2] == 1678);
    CHECK(in.influence_histogram[3] == 717 && in.influence_histogram[4] == 420);
    CHECK(in.problems[SF_GLTF_PROBLEM_WEIGHT_SUM].count == 0);
    CHECK(in.problems[SF_GLTF_PROBLEM_INFLUENCES].count == 0);
    sf_gltf_destroy(g);
    /* AnimatedMorphCube: target 0 moves 12 vertices with all-zero NORMAL deltas. */
    g = load_asset("gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb");
    CHECK(g != NULL);
    CHECK_OK(sf_gltf_primitive_inspect(g, 0, 4, NULL, &in, NULL));
    CHECK(in.problems[SF_GLTF_PROBLEM_MORPH_ZERO_NORMALS].count == 1);
    CHECK(in.problems[SF_GLTF_PROBLEM_MORPH_ZERO_NORMALS].worst_index == 0);
    CHECK_NEAR(in.problems[SF_GLTF_PROBLEM_MORPH_ZERO_NORMALS].worst_value, 12, 0);
    sf_gltf_destroy(g);
}

static void test_sparse_asset(void)
{
    /* The sparse POSITION accessor replaces 3 vertices; compare with the bytes of the .bin read here. */
    char buf[1024];
    const char* bin_path = sft_asset("gltf/SimpleSparseAccessor/glTF/SimpleSparseAccessor.bin", buf, sizeof buf);
    CHECK(bin_path != NULL);
    FILE* f = fopen(bin_path, "rb");
    CHECK(f != NULL);
    uint8_t bin[284];
    size_t got = fread(bin, 1, sizeof bin, f);
    fclose(f);
    CHECK(got == sizeof bin);
    sf_gltf* g = load_asset("gltf/SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf");
    CHECK(g != NULL);
    const sf_gltf_primitive* pr = &g->primitives[0];
    CHECK(pr->flat_normals); /* no NORMAL: split per corner; source_vertex maps back */
    float base[42], values[9];
    uint16_t idx[3];
    memcpy(base, bin + 72, sizeof base);
    memcpy(idx, bin + 240, sizeof idx);
    memcpy(values, bin + 248, sizeof values);
    for (int k = 0; k < 3; ++k) memcpy(base + 3 * idx[k], values + 3 * k, 3 * sizeof(float));
    CHECK(idx[0] == 8 && idx[1] == 10 && idx[2] == 12);
    for (size_t v = 0; v < pr->mesh.vertex_count; ++v)
        for (int k = 0; k < 3; ++k)
            CHECK_NEAR(pr->mesh.positions.data[3 * v + k], base[3 * pr->source_vertex[v] + k], 0);
    CHECK(base[3 * 8 + 1] != 0.0f); /* the substitution changed something */
    sf_gltf_destroy(g);
}

static void test_quantized_matches_float(void)
{
    /* World-space bounding boxes of the float and the KHR_mesh_quantization cube agree. */
    const char* paths[2] = {"gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb",
                            "gltf/AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf"};
    double box[2][6];
    for (int a = 0; a < 2; ++a) {
        sf_gltf* g = load_asset(paths[a]);
        CHECK(g != NULL);
        if (a == 1) CHECK(strcmp(g->extensions_required, "KHR_mesh_quantization") == 0);
        sf_gltf_pose* pose;
        CHECK_OK(sf_gltf_pose_create(g, NULL, &pose, NULL));
        float bones[12], w[2], world[16];
        CHECK_OK(sf_gltf_pose_instance(pose, 0, bones, w, world, NULL));
        const sf_mesh_desc* m = &g->primitives[0].mesh;
        for (int k = 0; k < 3; ++k) box[a][k] = 1e30, box[a][3 + k] = -1e30;
        for (size_t v = 0; v < m->vertex_count; ++v) {
            const float* p = m->positions.data + 3 * v;
            for (int k = 0; k < 3; ++k) {
                double x = world[k] * p[0] + world[4 + k] * p[1] + world[8 + k] * p[2] + world[12 + k];
                if (x < box[a][k]) box[a][k] = x;
                if (x > box[a][3 + k]) box[a][3 + k] = x;
            }
        }
        /* Quantized normals are i8-normalized: unit within quantization. */
        for (size_t v = 0; v < m->vertex_count; ++v) {
            const float* n = m->normals.data + 3 * v;
            CHECK_NEAR(sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), 1.0, 0.02);
        }
        sf_gltf_pose_destroy(pose);
        sf_gltf_destroy(g);
    }
    double size = box[0][3] - box[0][0];
    CHECK(size > 0.0);
    for (int k = 0; k < 6; ++k) CHECK_NEAR(box[0][k], box[1][k], 1e-3 * size);
}

/* Poses every joint of instance 0's skin at its bind transform (mesh global * inverse(IBM)), through
 * local TRS and the hierarchy, then checks bones ~ identity and positions ~ rest. */
static void check_bind_pose(const char* rel, double tol)
{
    sf_gltf* g = load_asset(rel);
    CHECK(g != NULL);
    const sf_gltf_instance* in = &g->instances[0];
    const sf_gltf_skin* sk = &g->skins[in->skin];
    sf_gltf_pose* pose;
    CHECK_OK(sf_gltf_pose_create(g, NULL, &pose, NULL));
    double M[16];
    to_double(sf_gltf_pose_global(pose, in->node), M);
    for (size_t pass = 0; pass < sk->joint_count; ++pass) {
        for (size_t j = 0; j < sk->joint_count; ++j) {
            double ibm[16], bind[16], parent[16], pinv[16], local[16];
            to_double(sk->inverse_bind_matrices + 16 * j, ibm);
            affine_inverse(ibm, bind);
            mat_mul(M, bind, bind);
            size_t pn = g->nodes[sk->joints[j]].parent;
            if (pn == SF_GLTF_NONE) {
                memset(parent, 0, sizeof parent);
                parent[0] = parent[5] = parent[10] = parent[15] = 1.0;
            } else {
                to_double(sf_gltf_pose_global(pose, pn), parent);
            }
            affine_inverse(parent, pinv);
            mat_mul(pinv, bind, local);
            float t[3], q[4], s[3];
            decompose(local, t, q, s);
            CHECK_OK(sf_gltf_pose_set_local(pose, sk->joints[j], t, q, s, NULL));
        }
        sf_gltf_pose_update(pose);
    }
    const sf_gltf_mesh* mesh = &g->meshes[in->mesh];
    float* bones = malloc(12 * sk->joint_count * sizeof(float));
    const sf_mesh_desc* m = &g->primitives[mesh->first_primitive].mesh;
    float* out = malloc(3 * m->vertex_count * sizeof(float));
    int ok = deform(g, pose, 0, mesh->first_primitive, out, bones);
    CHECK(ok);
    double worst_bone = 0.0, worst_pos = 0.0;
    static const float I[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    for (size_t j = 0; j < sk->joint_count; ++j)
        for (int k = 0; k < 12; ++k) worst_bone = fmax(worst_bone, fabs(bones[12 * j + k] - I[k]));
    for (size_t i = 0; i < 3 * m->vertex_count; ++i) worst_pos = fmax(worst_pos, fabs(out[i] - m->positions.data[i]));
    if (worst_bone > tol || worst_pos > tol) fprintf(stderr, "  %s: bone %g pos %g\n", rel, worst_bone, worst_pos);
    free(bones);
    free(out);
    sf_gltf_pose_destroy(pose);
    sf_gltf_destroy(g);
    CHECK(worst_bone <= tol);
    CHECK(worst_pos <= tol);
}

static void test_bind_pose(void)
{
    /* SimpleSkin: its rest node transforms are the bind pose, bones are exactly the identity. */
    sf_gltf* g = load_asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf");
    CHECK(g != NULL);
    sf_gltf_pose* pose;
    CHECK_OK(sf_gltf_pose_create(g, NULL, &pose, NULL));
    float bones[24], out[3 * 24];
    CHECK(deform(g, pose, 0, 0, out, bones));
    for (size_t i = 0; i < 3 * g->primitives[0].mesh.vertex_count; ++i)
        CHECK_NEAR(out[i], g->primitives[0].mesh.positions.data[i], 1e-6);
    /* Its animation: joint 1 rotates about z; at t = 0 the key is the identity. */
    CHECK_OK(sf_gltf_pose_sample(pose, 0, 0.0, NULL));
    CHECK(deform(g, pose, 0, 0, out, bones));
    for (size_t i = 0; i < 3 * g->primitives[0].mesh.vertex_count; ++i)
        CHECK_NEAR(out[i], g->primitives[0].mesh.positions.data[i], 1e-6);
    sf_gltf_pose_destroy(pose);
    sf_gltf_destroy(g);
    check_bind_pose("gltf/SimpleSkin/glTF/SimpleSkin.gltf", 1e-5);
    check_bind_pose("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", 1e-3);
    check_bind_pose("gltf/Fox/glTF-Binary/Fox.glb", 1e-2 /* Fox is 100 units tall */);
}

/* ---------------------------------------------------------------- synthetic files */

static sf_gltf* roundtrip(const sf_gltf_write_desc* d, void** bytes, size_t* size)
{
    void* data;
    size_t n;
    sf_error err;
    if (sf_gltf_write_glb(d, NULL, &data, &n, &err) != SF_OK) {
        fprintf(stderr, "  write: %s\n", err.message);
        return NULL;
    }
    sf_gltf* g = NULL;
    if (sf_gltf_load_memory(data, n, NULL, NULL, NULL, &g, &err) != SF_OK) fprintf(stderr, "  load: %s\n", err.message);
    if (bytes) {
        *bytes = data;
        *size = n;
    } else {
        sf_gltf_free_bytes(NULL, data, n);
    }
    return g;
}

/* 3 vertices; vertex 0 has 8 influences (weights (k+1)/36 on joints k = 0..7), the others 1 on joint 0.
 * Joint k is a root node at (k, 2k, 0) with an identity inverse bind matrix. */
static void eight_influence_desc(sf_gltf_write_desc* d, sf_gltf_write_mesh* wm, sf_gltf_write_node* nodes,
                                 sf_gltf_write_skin* skin, size_t* skin_joints, float* pos, uint32_t* idx,
                                 uint32_t* joints, float* weights)
{
    const float p[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    memcpy(pos, p, sizeof p);
    idx[0] = 0, idx[1] = 1, idx[2] = 2;
    memset(joints, 0, 24 * sizeof(uint32_t));
    memset(weights, 0, 24 * sizeof(float));
    for (int k = 0; k < 8; ++k) joints[k] = (uint32_t)k, weights[k] = (float)(k + 1) / 36.0f;
    weights[8] = weights[16] = 1.0f;
    memset(wm, 0, sizeof *wm);
    wm->mesh.vertex_count = 3;
    wm->mesh.triangle_count = 1;
    wm->mesh.indices = idx;
    wm->mesh.positions.data = pos;
    wm->mesh.influence_count = 8;
    wm->mesh.joints = joints;
    wm->mesh.weights = weights;
    memset(nodes, 0, 9 * sizeof *nodes);
    nodes[0].parent = SF_GLTF_NONE, nodes[0].mesh = 0, nodes[0].skin = 0;
    for (int k = 0; k < 8; ++k) {
        sf_gltf_write_node* n = &nodes[1 + k];
        n->parent = SF_GLTF_NONE, n->mesh = SF_GLTF_NONE, n->skin = SF_GLTF_NONE;
        n->translation[0] = (float)k, n->translation[1] = 2.0f * (float)k;
        skin_joints[k] = (size_t)(1 + k);
    }
    skin->joint_count = 8;
    skin->joints = skin_joints;
    skin->inverse_bind_matrices = NULL;
    memset(d, 0, sizeof *d);
    d->meshes = wm, d->mesh_count = 1, d->nodes = nodes, d->node_count = 9, d->skins = skin, d->skin_count = 1;
}

static void test_eight_influences(void)
{
    sf_gltf_write_desc d;
    sf_gltf_write_mesh wm;
    sf_gltf_write_node nodes[9];
    sf_gltf_write_skin skin;
    size_t sj[8];
    float pos[9], weights[24];
    uint32_t idx[3], joints[24];
    eight_influence_desc(&d, &wm, nodes, &skin, sj, pos, idx, joints, weights);
    sf_gltf* g = roundtrip(&d, NULL, NULL);
    CHECK(g != NULL);
    const sf_gltf_primitive* pr = &g->primitives[0];
    CHECK(pr->joint_sets == 2 && pr->mesh.influence_count == 8);
    CHECK(strstr(pr->attributes, "JOINTS_1") && strstr(pr->attributes, "WEIGHTS_1"));
    for (int k = 0; k < 8; ++k) {
        CHECK(pr->mesh.joints[k] == (uint32_t)k);
        CHECK_NEAR(pr->mesh.weights[k], (k + 1) / 36.0, 1e-7);
    }
    sf_gltf_inspection in;
    CHECK_OK(sf_gltf_primitive_inspect(g, 0, 4, NULL, &in, NULL));
    CHECK(in.max_influences == 8 && in.problems[SF_GLTF_PROBLEM_INFLUENCES].count == 1);
    CHECK_OK(sf_gltf_primitive_inspect(g, 0, 8, NULL, &in, NULL));
    CHECK(in.problems[SF_GLTF_PROBLEM_INFLUENCES].count == 0);
    /* Vertex 0 moves by sum_k w_k (k, 2k, 0) = (168/36, 336/36, 0); the others stay (joint 0 at origin). */
    sf_gltf_pose* pose;
    CHECK_OK(sf_gltf_pose_create(g, NULL, &pose, NULL));
    float out[9], bones[96];
    CHECK(deform(g, pose, 0, 0, out, bones));
    CHECK_NEAR(out[0], 168.0 / 36.0, 1e-5);
    CHECK_NEAR(out[1], 336.0 / 36.0, 1e-5);
    CHECK_NEAR(out[2], 0.0, 1e-6);
    CHECK_NEAR(out[3], 1.0, 1e-6);
    CHECK_NEAR(out[7], 1.0, 1e-6);
    sf_gltf_pose_destroy(pose);
    sf_gltf_destroy(g);
}

static void test_sparse_targets_tangent_deltas(void)
{
    /* A unit quad with UVs, normals and tangents; target 0 sparse on vertices 1 and 2 with position, normal
     * and tangent deltas; target 1 dense. */
    const float pos[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    const float nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    const float tan[16] = {1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1};
    const float uv[8] = {0, 0, 1, 0, 1, 1, 0, 1};
    const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    const uint32_t sidx[2] = {1, 2};
    const float dp[6] = {0, 0, 0.5f, 0, 0, 0.5f};
    const float dn[6] = {-0.2f, 0, 0, -0.2f, 0, 0};
    const float dt[6] = {0, 0, 0.3f, 0, 0, 0.3f};
    const float dense[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    sf_morph_target_desc targets[2];
    memset(targets, 0, sizeof targets);
    targets[0].position_deltas = dp, targets[0].normal_deltas = dn, targets[0].tangent_deltas = dt;
    targets[0].sparse_indices = sidx, targets[0].sparse_count = 2;
    targets[1].position_deltas = dense;
    const float w[2] = {1.0f, 0.0f};
    sf_gltf_write_mesh wm;
    memset(&wm, 0, sizeof wm);
    wm.mesh.vertex_count = 4, wm.mesh.triangle_count = 2, wm.mesh.indices = idx;
    wm.mesh.positions.data = pos, wm.mesh.normals.data = nrm, wm.mesh.tangents.data = tan, wm.mesh.uvs.data = uv;
    wm.mesh.targets = targets, wm.mesh.target_count = 2;
    wm.weights = w;
    sf_gltf_write_node n;
    memset(&n, 0, sizeof n);
    n.parent = SF_GLTF_NONE, n.mesh = 0, n.skin = SF_GLTF_NONE;
    sf_gltf_write_desc d;
    memset(&d, 0, sizeof d);
    d.meshes = &wm, d.mesh_count = 1, d.nodes = &n, d.node_count = 1;
    sf_gltf* g = roundtrip(&d, NULL, NULL);
    CHECK(g != NULL);
    const sf_gltf_primitive* pr = &g->primitives[0];
    const sf_morph_target_desc* t0 = &pr->mesh.targets[0];
    CHECK(t0->sparse_indices != NULL && t0->sparse_count == 2);
    CHECK(t0->sparse_indices[0] == 1 && t0->sparse_indices[1] == 2);
    CHECK(t0->normal_deltas && t0->tangent_deltas);
    for (int k = 0; k < 6; ++k) {
        CHECK_NEAR(t0->position_deltas[k], dp[k], 0);
        CHECK_NEAR(t0->normal_deltas[k], dn[k], 0);
        CHECK_NEAR(t0->tangent_deltas[k], dt[k], 0);
    }
    CHECK(pr->mesh.targets[1].sparse_indices == NULL);
    CHECK(pr->target_tangents == 1 && pr->target_normals == 1);
    CHECK(strcmp(pr->target_attributes, "POSITION NORMAL TANGENT") == 0);
    /* With weight 1 on target 0 (the mesh default): `unchanged` gives the morphed directions. */
    sf_gltf_pose* pose;
    CHECK_OK(sf_gltf_pose_create(g, NULL, &pose, NULL));
    float bones[12], mw[2];
    CHECK_OK(sf_gltf_pose_instance(pose, 0, bones, mw, NULL, NULL));
    CHECK_NEAR(mw[0], 1.0, 0);
    sf_mesh_desc m;
    CHECK_OK(sf_gltf_instance_mesh(g, 0, 0, &m, NULL));
    sf_topology* topo;
    sf_workspace* ws;
    CHECK_OK(sf_topology_create(&m, NULL, NULL, &topo, NULL));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    float P[12], N[12], T[16];
    sf_frames_out out = {P, N, T};
    sf_pose p = {bones, 1, mw, 2};
    CHECK_OK(sf_frames_compute(topo, &p, SF_METHOD_UNCHANGED, NULL, ws, &out, NULL));
    CHECK_NEAR(P[5], 0.5, 1e-6);
    CHECK_NEAR(P[8], 0.5, 1e-6);
    CHECK_NEAR(P[11], 0.0, 1e-6);
    double ln = sqrt(0.04 + 1.0), lt = sqrt(1.0 + 0.09);
    CHECK_NEAR(N[3], -0.2 / ln, 1e-6);
    CHECK_NEAR(N[5], 1.0 / ln, 1e-6);
    CHECK_NEAR(T[4], 1.0 / lt, 1e-6);
    CHECK_NEAR(T[6], 0.3 / lt, 1e-6);
    CHECK_NEAR(N[2], 1.0, 1e-6); /* vertex 0 is not in the sparse target */
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    sf_gltf_pose_destroy(pose);
    sf_gltf_destroy(g);
}

static void test_strips_fans_points(void)
{
    uint16_t idx[3] = {0, 1, 2};
    char* base = tiny_gltf(idx);
    /* 3 indices as a strip and as a fan are one triangle each, in the spec's corner order. */
    char* strip = replace(base, "\"indices\":1}", "\"indices\":1,\"mode\":5}");
    char* fan = replace(base, "\"indices\":1}", "\"indices\":1,\"mode\":6}");
    char* points = replace(base, "\"indices\":1}", "\"indices\":1,\"mode\":0}");
    sf_gltf* g;
    CHECK_OK(sf_gltf_load_memory(strip, strlen(strip), NULL, NULL, NULL, &g, NULL));
    CHECK(g->primitives[0].mesh.triangle_count == 1 && g->primitives[0].mode == 5);
    /* no NORMAL: corners were split, source_vertex maps them back to the accessor's vertices */
    const uint32_t* sv = g->primitives[0].source_vertex;
    const uint32_t* ix = g->primitives[0].mesh.indices;
    CHECK(sv[ix[0]] == 0 && sv[ix[1]] == 1 && sv[ix[2]] == 2);
    sf_gltf_destroy(g);
    CHECK_OK(sf_gltf_load_memory(fan, strlen(fan), NULL, NULL, NULL, &g, NULL));
    /* fan triangle i = (v[i+1], v[i+2], v[0]) */
    sv = g->primitives[0].source_vertex;
    ix = g->primitives[0].mesh.indices;
    CHECK(sv[ix[0]] == 1 && sv[ix[1]] == 2 && sv[ix[2]] == 0);
    sf_gltf_destroy(g);
    CHECK_OK(sf_gltf_load_memory(points, strlen(points), NULL, NULL, NULL, &g, NULL));
    CHECK(g->primitive_count == 0 && g->skipped_primitives == 1);
    sf_gltf_destroy(g);
    free(strip);
    free(fan);
    free(points);
    free(base);
}


static void test_data_problems(void)
{
    /* One of each authored problem: weights summing to 0.5 (v0) and to 0 (v1), a normal of length 2 (v2),
     * tangent w = 0.5 (v0) and -7 (v3, the worse one) and a zero tangent (v1), a degenerate triangle (1) and a
     * zero-UV-area one (1). */
    const float pos[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 2, 0, 0};
    const float nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 2, 0, 0, 1};
    const float tan[16] = {1, 0, 0, 0.5f, 0, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, -7};
    const float uv[8] = {0, 0, 1, 0, 0, 1, 1, 0};
    const uint32_t idx[6] = {0, 1, 2, 0, 1, 3}; /* 0 1 3 are collinear, and 1 and 3 share a UV */
    const uint32_t joints[16] = {0};
    const float weights[16] = {0.5f, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    sf_gltf_write_mesh wm;
    memset(&wm, 0, sizeof wm);
    wm.mesh.vertex_count = 4, wm.mesh.triangle_count = 2, wm.mesh.indices = idx;
    wm.mesh.positions.data = pos, wm.mesh.normals.data = nrm, wm.mesh.tangents.data = tan, wm.mesh.uvs.data = uv;
    wm.mesh.influence_count = 4, wm.mesh.joints = joints, wm.mesh.weights = weights;
    sf_gltf_write_node nodes[2];
    memset(nodes, 0, sizeof nodes);
    nodes[0].parent = SF_GLTF_NONE, nodes[0].mesh = 0, nodes[0].skin = 0;
    nodes[1].parent = SF_GLTF_NONE, nodes[1].mesh = SF_GLTF_NONE, nodes[1].skin = SF_GLTF_NONE;
    const size_t sj[1] = {1};
    sf_gltf_write_skin skin = {1, sj, NULL};
    sf_gltf_write_desc d;
    memset(&d, 0, sizeof d);
    d.meshes = &wm, d.mesh_count = 1, d.nodes = nodes, d.node_count = 2, d.skins = &skin, d.skin_count = 1;
    sf_gltf* g = roundtrip(&d, NULL, NULL);
    CHECK(g != NULL);
    sf_gltf_inspection in;
    CHECK_OK(sf_gltf_primitive_inspect(g, 0, 4, NULL, &in, NULL));
    const sf_gltf_problem_stat* p = in.problems;
    CHECK(p[SF_GLTF_PROBLEM_WEIGHT_SUM].count == 1 && p[SF_GLTF_PROBLEM_WEIGHT_SUM].worst_index == 0);
    CHECK_NEAR(p[SF_GLTF_PROBLEM_WEIGHT_SUM].worst_value, 0.5, 1e-6);
    CHECK(p[SF_GLTF_PROBLEM_ZERO_WEIGHTS].count == 1 && p[SF_GLTF_PROBLEM_ZERO_WEIGHTS].worst_index == 1);
    CHECK(p[SF_GLTF_PROBLEM_NORMAL_LENGTH].count == 1 && p[SF_GLTF_PROBLEM_NORMAL_LENGTH].worst_index == 2);
    CHECK_NEAR(p[SF_GLTF_PROBLEM_NORMAL_LENGTH].worst_value, 1.0, 1e-6);
    CHECK(p[SF_GLTF_PROBLEM_TANGENT_W].count == 2 && p[SF_GLTF_PROBLEM_TANGENT_W].worst_index == 3);
    CHECK_NEAR(p[SF_GLTF_PROBLEM_TANGENT_W].worst_value, 6.0, 1e-6); /* ||w| - 1|, the largest first */
    CHECK(p[SF_GLTF_PROBLEM_TANGENT_ZERO].count == 1 && p[SF_GLTF_PROBLEM_TANGENT_ZERO].worst_index == 1);
    CHECK(p[SF_GLTF_PROBLEM_DEGENERATE_TRIANGLE].count == 1 && p[SF_GLTF_PROBLEM_DEGENERATE_TRIANGLE].worst_index == 1);
    CHECK(p[SF_GLTF_PROBLEM_DEGENERATE_UV].count == 1 && p[SF_GLTF_PROBLEM_DEGENERATE_UV].worst_index == 1);
    CHECK(p[SF_GLTF_PROBLEM_INFLUENCES].count == 0);
    sf_gltf_destroy(g);
}

/* ---------------------------------------------------------------- bad input */

static void test_malformed(void)
{
    uint16_t idx[3] = {0, 1, 2};
    char* base = tiny_gltf(idx);
    sf_error err;
    CHECK_OK(load_text(base, NULL, &err));
    CHECK(expect_field(base, "\"count\":3,\"type\":\"VEC3\"", "\"count\":4,\"type\":\"VEC3\"", "accessors[0].count"));
    CHECK(expect_field(base, "\"count\":3,\"type\":\"VEC3\"", "\"count\":\"3\",\"type\":\"VEC3\"", "accessors[0].count"));
    CHECK(expect_field(base, "\"componentType\":5126", "\"componentType\":5127", "accessors[0].componentType"));
    CHECK(expect_field(base, "\"type\":\"VEC3\"", "\"type\":\"VEC5\"", "accessors[0].type"));
    CHECK(expect_field(base, "\"buffer\":0,\"byteOffset\":36", "\"buffer\":3,\"byteOffset\":36", "bufferViews[1].buffer"));
    CHECK(expect_field(base, "\"byteOffset\":36,\"byteLength\":6", "\"byteOffset\":40,\"byteLength\":6",
                       "bufferViews[1].byteLength"));
    CHECK(expect_field(base, "\"byteLength\":44,\"uri\"", "\"byteLength\":400,\"uri\"", "buffers[0].byteLength"));
    CHECK(expect_field(base, "\"uri\":\"data:", "\"nouri\":\"data:", "buffers[0].uri"));
    CHECK(expect_field(base, "\"version\":\"2.0\"", "\"version\":\"1.0\"", "asset.version"));
    CHECK(expect_field(base, "{\"asset\"", "{\"extensionsRequired\":[\"EXT_geometry_unknown\"],\"asset\"",
                       "extensionsRequired[0]"));
    CHECK(expect_field(base, "\"POSITION\":0", "\"POSITION\":0,\"NORMAL\":2", "meshes[0].primitives[0].attributes.NORMAL"));
    CHECK(expect_field(base, "\"POSITION\":0", "\"POSITION\":7", "meshes[0].primitives[0].attributes.POSITION"));
    CHECK(expect_field(base, "\"nodes\":[{\"mesh\":0}]", "\"nodes\":[{\"mesh\":0,\"children\":[1]},{\"children\":[0]}]",
                       "nodes[0].children"));
    CHECK(expect_field(base, "\"nodes\":[{\"mesh\":0}]", "\"nodes\":[{\"mesh\":3}]", "nodes[0].mesh"));
    CHECK(expect_field(base, "\"scene\":0}", "\"scene\":0", "json")); /* JSON syntax error */
    /* Files outside the folder, absolute paths and other schemes are refused. */
    CHECK(expect_field(base, "data:application/octet-stream;base64,", "../secret.bin?", "buffers[0].uri"));
    CHECK(expect_field(base, "data:application/octet-stream;base64,", "/etc/passwd?", "buffers[0].uri"));
    CHECK(expect_field(base, "data:application/octet-stream;base64,", "http://example.com/x?", "buffers[0].uri"));
    CHECK(expect_field(base, "data:application/octet-stream;base64,", "a/../../x?", "buffers[0].uri"));
    /* Integer weights must be normalized (glTF): u8 weights of 255 are not weights of 255. */
    char* skinned = replace(base, "\"count\":2,\"type\":\"VEC3\"}]",
                            "\"count\":2,\"type\":\"VEC3\"},{\"bufferView\":0,\"componentType\":5121,\"count\":3,"
                            "\"type\":\"VEC4\"},{\"bufferView\":0,\"componentType\":5121,\"normalized\":true,"
                            "\"count\":3,\"type\":\"VEC4\"}]");
    CHECK(skinned != NULL);
    CHECK(expect_field(skinned, "\"POSITION\":0}", "\"POSITION\":0,\"JOINTS_0\":3,\"WEIGHTS_0\":3}",
                       "meshes[0].primitives[0].attributes.WEIGHTS_0"));
    char* normalized = replace(skinned, "\"POSITION\":0}", "\"POSITION\":0,\"JOINTS_0\":3,\"WEIGHTS_0\":4}");
    CHECK(normalized != NULL);
    CHECK_OK(load_text(normalized, NULL, &err));
    free(normalized);
    free(skinned);
    free(base);
    /* An index out of range. */
    uint16_t bad[3] = {0, 1, 5};
    base = tiny_gltf(bad);
    CHECK_RESULT(load_text(base, NULL, &err), SF_ERROR_GLTF);
    CHECK(strcmp(err.field, "meshes[0].primitives[0].indices") == 0);
    free(base);
}

static void test_glb_header_and_truncation(void)
{
    sf_gltf_write_desc d;
    sf_gltf_write_mesh wm;
    sf_gltf_write_node nodes[9];
    sf_gltf_write_skin skin;
    size_t sj[8];
    float pos[9], weights[24];
    uint32_t idx[3], joints[24];
    eight_influence_desc(&d, &wm, nodes, &skin, sj, pos, idx, joints, weights);
    void* bytes;
    size_t size;
    sf_gltf* g = roundtrip(&d, &bytes, &size);
    CHECK(g != NULL);
    sf_gltf_destroy(g);
    sf_error err;
    uint8_t* copy = malloc(size);
    /* wrong version, wrong magic, a chunk running past the end */
    memcpy(copy, bytes, size);
    copy[4] = 1;
    CHECK_RESULT(sf_gltf_load_memory(copy, size, NULL, NULL, NULL, &g, &err), SF_ERROR_GLTF);
    CHECK(strcmp(err.field, "glb.version") == 0);
    memcpy(copy, bytes, size);
    copy[3] = 'X';
    CHECK_RESULT(sf_gltf_load_memory(copy, size, NULL, NULL, NULL, &g, &err), SF_ERROR_GLTF);
    CHECK(strcmp(err.field, "file") == 0);
    memcpy(copy, bytes, size);
    copy[12] = 0xff, copy[13] = 0xff;
    CHECK_RESULT(sf_gltf_load_memory(copy, size, NULL, NULL, NULL, &g, &err), SF_ERROR_GLTF);
    CHECK(strcmp(err.field, "glb.chunks") == 0);
    free(copy);
    /* Every prefix fails cleanly, each in its own exact-size allocation so that ASan sees any overread. */
    for (size_t n = 0; n < size; ++n) {
        uint8_t* prefix = malloc(n ? n : 1);
        memcpy(prefix, bytes, n);
        g = NULL;
        sf_result r = sf_gltf_load_memory(prefix, n, NULL, NULL, NULL, &g, &err);
        free(prefix);
        if (r == SF_OK) {
            fprintf(stderr, "  prefix of %zu / %zu bytes loaded\n", n, size);
            sf_gltf_destroy(g);
        }
        CHECK(r != SF_OK);
        CHECK(g == NULL);
    }
    sf_gltf_free_bytes(NULL, bytes, size);
    /* The same for a .gltf text. */
    uint16_t tri[3] = {0, 1, 2};
    char* text = tiny_gltf(tri);
    size_t len = strlen(text);
    for (size_t n = 0; n < len; ++n) {
        char* prefix = malloc(n ? n : 1);
        memcpy(prefix, text, n);
        g = NULL;
        sf_result r = sf_gltf_load_memory(prefix, n, NULL, NULL, NULL, &g, &err);
        free(prefix);
        if (r == SF_OK) sf_gltf_destroy(g);
        CHECK(r != SF_OK);
    }
    free(text);
}

static void test_skin_joint_range(void)
{
    sf_gltf_write_desc d;
    sf_gltf_write_mesh wm;
    sf_gltf_write_node nodes[9];
    sf_gltf_write_skin skin;
    size_t sj[8];
    float pos[9], weights[24];
    uint32_t idx[3], joints[24];
    eight_influence_desc(&d, &wm, nodes, &skin, sj, pos, idx, joints, weights);
    skin.joint_count = 4; /* joints 4..7 carry weight but the skin has 4 joints */
    void* bytes;
    size_t size;
    sf_error err;
    CHECK_OK(sf_gltf_write_glb(&d, NULL, &bytes, &size, NULL));
    sf_gltf* g = NULL;
    CHECK_RESULT(sf_gltf_load_memory(bytes, size, NULL, NULL, NULL, &g, &err), SF_ERROR_GLTF);
    CHECK(strcmp(err.field, "meshes[0].primitives[0].attributes.JOINTS_0") == 0);
    sf_gltf_free_bytes(NULL, bytes, size);
}

static void test_save_atomic_and_protected(void)
{
    const char* dir = getenv("SF_BUILD_DIR");
    char path[1024], other[1024];
    snprintf(path, sizeof path, "%s/test_gltf_save_%d.glb", dir ? dir : "/tmp", (int)getpid());
    snprintf(other, sizeof other, "%s/test_gltf_save_%d_in.glb", dir ? dir : "/tmp", (int)getpid());
    sf_gltf_write_desc d;
    sf_gltf_write_mesh wm;
    sf_gltf_write_node nodes[9];
    sf_gltf_write_skin skin;
    size_t sj[8];
    float pos[9], weights[24];
    uint32_t idx[3], joints[24];
    eight_influence_desc(&d, &wm, nodes, &skin, sj, pos, idx, joints, weights);
    CHECK_OK(sf_gltf_save_glb(&d, path, NULL, NULL, NULL));
    sf_gltf* g;
    CHECK_OK(sf_gltf_load_file(path, NULL, NULL, &g, NULL));
    CHECK(g->primitives[0].mesh.influence_count == 8);
    sf_gltf_destroy(g);
    /* Refuses to write over the protected input (same file). */
    sf_error err;
    CHECK_RESULT(sf_gltf_save_glb(&d, path, path, NULL, &err), SF_ERROR_IO);
    /* A different protected file does not matter. */
    CHECK_OK(sf_gltf_save_glb(&d, other, path, NULL, NULL));
    remove(path);
    remove(other);
}


static void test_file_limit_and_empty_glb(void)
{
    const char* dir = getenv("SF_BUILD_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/test_gltf_limit_%d.glb", dir ? dir : "/tmp", (int)getpid());
    sf_gltf_write_desc d;
    sf_gltf_write_mesh wm;
    sf_gltf_write_node nodes[9];
    sf_gltf_write_skin skin;
    size_t sj[8];
    float pos[9], weights[24];
    uint32_t idx[3], joints[24];
    eight_influence_desc(&d, &wm, nodes, &skin, sj, pos, idx, joints, weights);
    CHECK_OK(sf_gltf_save_glb(&d, path, NULL, NULL, NULL));
    /* max_file_bytes holds even when the file fits in the first read. */
    sf_gltf_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.max_file_bytes = 100;
    sf_gltf* g = NULL;
    sf_error err;
    CHECK_RESULT(sf_gltf_load_file(path, &opts, NULL, &g, &err), SF_ERROR_IO);
    CHECK(strstr(err.message, "larger than 100 bytes") != NULL);
    opts.max_file_bytes = 1 << 20;
    CHECK_OK(sf_gltf_load_file(path, &opts, NULL, &g, NULL));
    sf_gltf_destroy(g);
    remove(path);
    /* A file without binary data (one empty node) has no buffer to point at a missing BIN chunk. */
    sf_gltf_write_node empty;
    memset(&empty, 0, sizeof empty);
    empty.parent = empty.mesh = empty.skin = SF_GLTF_NONE;
    memset(&d, 0, sizeof d);
    d.nodes = &empty;
    d.node_count = 1;
    void* data;
    size_t size;
    CHECK_OK(sf_gltf_write_glb(&d, NULL, &data, &size, NULL));
    sf_result r = sf_gltf_load_memory(data, size, NULL, NULL, NULL, &g, &err);
    sf_gltf_free_bytes(NULL, data, size);
    CHECK_OK(r);
    CHECK(g->node_count == 1 && g->instance_count == 0);
    sf_gltf_destroy(g);
    /* A sparse target without entries is written as zeros (glTF's sparse.count is at least 1). */
    const uint32_t none_index[1] = {0};
    const float none_delta[3] = {0, 0, 0};
    sf_morph_target_desc target;
    memset(&target, 0, sizeof target);
    target.position_deltas = none_delta;
    target.sparse_indices = none_index;
    target.sparse_count = 0;
    sf_gltf_write_mesh tm;
    memset(&tm, 0, sizeof tm);
    tm.mesh.vertex_count = 3;
    tm.mesh.triangle_count = 1;
    tm.mesh.positions.data = pos;
    tm.mesh.targets = &target;
    tm.mesh.target_count = 1;
    empty.mesh = 0;
    d.meshes = &tm;
    d.mesh_count = 1;
    CHECK_OK(sf_gltf_write_glb(&d, NULL, &data, &size, NULL));
    r = sf_gltf_load_memory(data, size, NULL, NULL, NULL, &g, &err);
    sf_gltf_free_bytes(NULL, data, size);
    CHECK_OK(r);
    CHECK(g->meshes[0].target_count == 1);
    const sf_morph_target_desc* t = &g->primitives[0].mesh.targets[0];
    CHECK(t->sparse_indices == NULL && t->position_deltas[0] == 0.0f && t->position_deltas[8] == 0.0f);
    sf_gltf_destroy(g);
}

static void test_external_files(void)
{
    /* A .gltf next to "my data.bin", named with a percent escape and a harmless "sub/.." detour. */
    const char* build = getenv("SF_BUILD_DIR");
    char dir[600], bin_path[700], gltf_path[700];
    snprintf(dir, sizeof dir, "%s/test_gltf_external_%d", build ? build : "/tmp", (int)getpid());
    mkdir(dir, 0755);
    snprintf(bin_path, sizeof bin_path, "%s/my data.bin", dir);
    snprintf(gltf_path, sizeof gltf_path, "%s/tri.gltf", dir);
    uint16_t idx[3] = {0, 1, 2};
    char* base = tiny_gltf(idx);
    const char* comma = strstr(base, "base64,") + 7;
    const char* end = strchr(comma, '"');
    /* decode the data URI back to bytes (the tiny buffer is 44 bytes) */
    uint8_t bin[44];
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    memcpy(bin, pos, 36);
    memcpy(bin + 36, idx, 6);
    bin[42] = bin[43] = 0;
    FILE* f = fopen(bin_path, "wb");
    CHECK(f != NULL);
    fwrite(bin, 1, sizeof bin, f);
    fclose(f);
    size_t head = (size_t)(strstr(base, "data:") - base);
    char text[4096];
    snprintf(text, sizeof text, "%.*ssub/../my%%20data.bin%s", (int)head, base, end);
    free(base);
    f = fopen(gltf_path, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
    sf_gltf* g = NULL;
    sf_error err;
    sf_result r = sf_gltf_load_file(gltf_path, NULL, NULL, &g, &err);
    if (r != SF_OK) fprintf(stderr, "  %s\n", err.message);
    CHECK(r == SF_OK);
    CHECK(g->primitives[0].mesh.triangle_count == 1);
    sf_gltf_destroy(g);
    /* From memory without a folder, the external file is refused; a missing file is an I/O error. */
    CHECK_RESULT(load_text(text, NULL, &err), SF_ERROR_GLTF);
    CHECK(strcmp(err.field, "buffers[0].uri") == 0);
    remove(bin_path);
    CHECK_RESULT(sf_gltf_load_file(gltf_path, NULL, NULL, &g, &err), SF_ERROR_IO);
    CHECK(strcmp(err.field, "buffers[0]") == 0);
    remove(gltf_path);
    rmdir(dir);
}


static void test_zero_scale_node(void)
{
    /* A rigid mesh whose node is scaled to zero along x at rest: posing falls back to world space. */
    const float pos[9] = {1, 0, 0, 2, 0, 0, 1, 1, 0};
    const uint32_t idx[3] = {0, 1, 2};
    sf_gltf_write_mesh wm;
    memset(&wm, 0, sizeof wm);
    wm.mesh.vertex_count = 3, wm.mesh.triangle_count = 1, wm.mesh.indices = idx, wm.mesh.positions.data = pos;
    sf_gltf_write_node n;
    memset(&n, 0, sizeof n);
    n.parent = SF_GLTF_NONE, n.mesh = 0, n.skin = SF_GLTF_NONE;
    n.scale[0] = 0.0f, n.scale[1] = 1.0f, n.scale[2] = 1.0f;
    sf_gltf_write_desc d;
    memset(&d, 0, sizeof d);
    d.meshes = &wm, d.mesh_count = 1, d.nodes = &n, d.node_count = 1;
    sf_gltf* g = roundtrip(&d, NULL, NULL);
    CHECK(g != NULL);
    sf_gltf_pose* pose;
    CHECK_OK(sf_gltf_pose_create(g, NULL, &pose, NULL));
    float bones[12], world[16];
    CHECK_OK(sf_gltf_pose_instance(pose, 0, bones, NULL, world, NULL));
    CHECK_NEAR(bones[0], 0.0, 0); /* the node's own (singular) transform */
    CHECK_NEAR(bones[4], 1.0, 0);
    CHECK_NEAR(world[0], 1.0, 0); /* world space: identity */
    CHECK_NEAR(world[5], 1.0, 0);
    sf_gltf_pose_destroy(pose);
    sf_gltf_destroy(g);
}

static void test_out_of_memory_sweep(void)
{
    sf_gltf_write_desc d;
    sf_gltf_write_mesh wm;
    sf_gltf_write_node nodes[9];
    sf_gltf_write_skin skin;
    size_t sj[8];
    float pos[9], weights[24];
    uint32_t idx[3], joints[24];
    eight_influence_desc(&d, &wm, nodes, &skin, sj, pos, idx, joints, weights);
    const float uv[6] = {0, 0, 1, 0, 0, 1};
    wm.mesh.uvs.data = uv; /* no TANGENT: the second pass generates MikkTSpace tangents at load */
    void* bytes;
    size_t size;
    CHECK_OK(sf_gltf_write_glb(&d, NULL, &bytes, &size, NULL));
    /* Passes: UV tangents, MikkTSpace tangents, then UV tangents with a single failing allocation (later
     * ones succeed): a load that reports SF_OK must still hold every stream (the flat-normal split of this
     * file without NORMAL copies each one). */
    for (int pass = 0; pass < 3; ++pass) {
        sf_gltf_opts opts;
        memset(&opts, 0, sizeof opts);
        opts.generated_tangents = pass == 1 ? SF_TANGENTS_MIKKTSPACE : SF_TANGENTS_UV;
        int loaded = 0;
        for (size_t budget = 0; budget < 10000 && !loaded; ++budget) {
            sft_alloc_counter c = {0};
            c.fail_at = budget + 1;
            c.fail_rest = pass != 2;
            sf_env env = sft_counting_env(&c);
            sf_gltf* g = NULL;
            sf_error err;
            sf_result r = sf_gltf_load_memory(bytes, size, NULL, &opts, &env, &g, &err);
            if (r == SF_OK) {
                const sf_mesh_desc* m = &g->primitives[0].mesh;
                CHECK(g->primitives[0].flat_normals && m->joints && m->weights && m->uvs.data && m->normals.data);
                CHECK(g->primitives[0].tangents ==
                      (pass == 1 ? SF_GLTF_TANGENTS_GENERATED_MIKKTSPACE : SF_GLTF_TANGENTS_GENERATED_UV));
                sf_gltf_pose* pose = NULL;
                sf_result rp = sf_gltf_pose_create(g, &env, &pose, &err);
                CHECK(rp == SF_OK || rp == SF_ERROR_OUT_OF_MEMORY);
                if (rp == SF_OK && c.failures == 0) loaded = 1; /* every allocation point has been failed */
                sf_gltf_pose_destroy(pose);
                sf_gltf_destroy(g);
            } else {
                if (r != SF_ERROR_OUT_OF_MEMORY) fprintf(stderr, "  budget %zu: %s\n", budget, err.message);
                CHECK_RESULT(r, SF_ERROR_OUT_OF_MEMORY);
                CHECK(g == NULL);
            }
            CHECK(c.live == 0); /* nothing leaked on any path */
        }
        CHECK(loaded);
    }
    sf_gltf_free_bytes(NULL, bytes, size);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"assets_counts", test_assets_counts},
        {"asset_details", test_asset_details},
        {"seams_and_hard_edges", test_seams_and_hard_edges},
        {"sparse_asset", test_sparse_asset},
        {"quantized_matches_float", test_quantized_matches_float},
        {"bind_pose", test_bind_pose},
        {"eight_influences", test_eight_influences},
        {"sparse_targets_tangent_deltas", test_sparse_targets_tangent_deltas},
        {"strips_fans_points", test_strips_fans_points},
        {"data_problems", test_data_problems},
        {"malformed", test_malformed},
        {"glb_header_and_truncation", test_glb_header_and_truncation},
        {"skin_joint_range", test_skin_joint_range},
        {"save_atomic_and_protected", test_save_atomic_and_protected},
        {"out_of_memory_sweep", test_out_of_memory_sweep},
        {"file_limit_and_empty_glb", test_file_limit_and_empty_glb},
        {"external_files", test_external_files},
        {"zero_scale_node", test_zero_scale_node},
    };
    return SFT_RUN(cases, argc, argv);
}

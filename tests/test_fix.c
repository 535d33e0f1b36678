// LABELS: unit
/* skinframe fix (skinframe_fix.h): every staged asset fixed keeps what is not repaired and is stable under a
 * second fix; all-zero morph normal deltas are rebuilt and make the deltas method exact at full weight on a
 * hard-edged cube; weights over the sets are merged, sorted and renormalised, zero sums reported. */
#define _POSIX_C_SOURCE 200809L
#include "sf_test.h"
#include "skinframe_fix.h"

#include <cjson/cJSON.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char g_dir[256];

static const char* tmp_path(const char* name, char* buf, size_t size)
{
    if (!g_dir[0]) {
        snprintf(g_dir, sizeof g_dir, "%s/sf_fix_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(g_dir)) abort();
    }
    snprintf(buf, size, "%s/%s", g_dir, name);
    return buf;
}

static sf_result fix_file(const char* in, const char* out, const sf_fix_opts* o, sf_fix_counts* c)
{
    sf_gltf_doc* doc = NULL;
    sf_error err;
    sf_result r = sf_gltf_doc_open(in, NULL, NULL, &doc, &err);
    if (r == SF_OK) r = sf_fix_apply(doc, o, NULL, c, &err);
    if (r == SF_OK) r = sf_gltf_doc_save(doc, out, NULL, 0, &err);
    if (r != SF_OK) printf("  %s: %s\n", in, err.message);
    sf_gltf_doc_destroy(doc);
    return r;
}

static cJSON* json_of(const char* path)
{
    size_t size = 0;
    char* data = sft_read_file(path, &size);
    if (!data) return NULL;
    cJSON* root;
    if (size > 20 && memcmp(data, "glTF", 4) == 0) {
        uint32_t len;
        memcpy(&len, data + 12, 4);
        root = cJSON_ParseWithLength(data + 20, len);
    } else {
        root = cJSON_Parse(data);
    }
    free(data);
    return root;
}

static const char* const staged[] = {
    "gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb", "gltf/CesiumMan/glTF-Binary/CesiumMan.glb",
    "gltf/Fox/glTF-Binary/Fox.glb", "gltf/MorphStressTest/glTF-Binary/MorphStressTest.glb",
    "gltf/NormalTangentMirrorTest/glTF-Binary/NormalTangentMirrorTest.glb",
    "gltf/InterpolationTest/glTF-Binary/InterpolationTest.glb", "gltf/SimpleMorph/glTF/SimpleMorph.gltf",
    "gltf/SimpleSkin/glTF/SimpleSkin.gltf", "gltf/SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf",
    "gltf/AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf"};

/* The members fix never touches compare equal, and a second fix writes the same bytes. */
static void staged_assets_kept_and_idempotent(void)
{
    static const char* const kept[] = {"nodes", "scenes", "scene", "skins", "animations", "materials", "textures",
                                       "images", "samplers", "cameras", "extensionsUsed", "extensionsRequired"};
    char buf[1024], out[512], again[512];
    int found = 0;
    for (size_t i = 0; i < sizeof staged / sizeof staged[0]; ++i) {
        const char* in = sft_asset(staged[i], buf, sizeof buf);
        if (!in) continue;
        found++;
        const char* ext = strrchr(in, '.');
        char name[64];
        snprintf(name, sizeof name, "fixed%zu%s", i, ext);
        tmp_path(name, out, sizeof out);
        snprintf(name, sizeof name, "fixed%zu_again%s", i, ext);
        tmp_path(name, again, sizeof again);
        sf_fix_opts o;
        sf_fix_opts_init(&o);
        sf_fix_counts c1, c2;
        CHECK_OK(fix_file(in, out, &o, &c1));
        CHECK_OK(fix_file(out, again, &o, &c2));
        CHECK(c2.accessors_written == 0);
        size_t s1 = 0, s2 = 0;
        char *f1 = sft_read_file(out, &s1), *f2 = sft_read_file(again, &s2);
        CHECK(f1 && f2 && s1 == s2 && memcmp(f1, f2, s1) == 0);
        free(f1);
        free(f2);
        cJSON *a = json_of(in), *b = json_of(out);
        for (size_t k = 0; a && b && k < sizeof kept / sizeof kept[0]; ++k)
            CHECK(cJSON_Compare(cJSON_GetObjectItem(a, kept[k]), cJSON_GetObjectItem(b, kept[k]), 1) ||
                  (!cJSON_GetObjectItem(a, kept[k]) && !cJSON_GetObjectItem(b, kept[k])));
        cJSON_Delete(a);
        cJSON_Delete(b);
    }
    if (!found) sft_skip("SF_ASSETS not set");
}

static float* read_slot(const char* path, size_t target, const char* attr, size_t* count)
{
    sf_gltf_doc* doc = NULL;
    sf_error err;
    float* v = NULL;
    if (sf_gltf_doc_open(path, NULL, NULL, &doc, &err) != SF_OK) return NULL;
    sf_gltf_slot s = {0, 0, target, attr};
    sf_gltf_accessor_info in;
    size_t a = sf_gltf_doc_accessor(doc, &s);
    if (a != SF_GLTF_NONE && sf_gltf_doc_accessor_info(doc, a, &in, &err) == SF_OK) {
        v = calloc(in.count * in.components + 1, sizeof(float));
        *count = in.count * in.components;
        if (sf_gltf_doc_read(doc, a, v, &err) != SF_OK) free(v), v = NULL;
    }
    sf_gltf_doc_destroy(doc);
    return v;
}

static void measure(const char* path, sf_fix_measure_result* out)
{
    sf_fix_measure_result m;
    memset(&m, 0, sizeof m);
    *out = m;
    sf_gltf_opts o;
    memset(&o, 0, sizeof o);
    o.generated_tangents = SF_TANGENTS_MIKKTSPACE;
    sf_gltf* g = NULL;
    sf_error err;
    sf_fix_opts fo;
    sf_fix_opts_init(&fo);
    CHECK_OK(sf_gltf_load_file(path, &o, NULL, &g, &err));
    if (g) CHECK_OK(sf_fix_measure(g, &fo.reference_opts, 30.0, NULL, &m, &err));
    sf_gltf_destroy(g);
    *out = m;
}

/* AnimatedMorphCube with every NORMAL delta zeroed (what exporters write): fix rebuilds them from the geometry
 * alone (the same deltas as fixing the file as shipped), and at each target's full weight `skinned` with
 * deltas then matches the reference on the hard-edged cube. */
static void zero_morph_normals_rebuilt(void)
{
    char buf[1024], broken[512], fixed[512], fixed_orig[512];
    const char* in = sft_asset("gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb", buf, sizeof buf);
    if (!in) {
        sft_skip("SF_ASSETS not set");
        return;
    }
    tmp_path("cube_zero.glb", broken, sizeof broken);
    tmp_path("cube_zero_fixed.glb", fixed, sizeof fixed);
    tmp_path("cube_fixed.glb", fixed_orig, sizeof fixed_orig);
    sf_gltf_doc* doc = NULL;
    sf_error err;
    CHECK_OK(sf_gltf_doc_open(in, NULL, NULL, &doc, &err));
    float zeros[3 * 24] = {0};
    for (size_t t = 0; t < 2; ++t) {
        sf_gltf_slot s = {0, 0, t, "NORMAL"};
        sf_gltf_values v = {zeros, 24, 3, 5126, 0};
        CHECK_OK(sf_gltf_doc_set(doc, &s, &v, NULL, &err));
    }
    CHECK_OK(sf_gltf_doc_save(doc, broken, NULL, 0, &err));
    sf_gltf_doc_destroy(doc);
    sf_fix_opts o;
    sf_fix_opts_init(&o);
    sf_fix_counts c;
    CHECK_OK(fix_file(broken, fixed, &o, &c));
    CHECK(c.morph_normal_targets == 2);
    CHECK_OK(fix_file(in, fixed_orig, &o, &c));
    double largest = 0;
    for (size_t t = 0; t < 2; ++t) {
        size_t n1 = 0, n2 = 0;
        float *a = read_slot(fixed, t, "NORMAL", &n1), *b = read_slot(fixed_orig, t, "NORMAL", &n2);
        CHECK(a && b && n1 == 72 && n1 == n2 && memcmp(a, b, n1 * sizeof(float)) == 0);
        for (size_t i = 0; a && i < n1; ++i) largest = fmax(largest, fabs(a[i]));
        free(a);
        free(b);
    }
    CHECK(largest > 0.05); /* target 1 tilts faces: its rebuilt deltas are not zero */
    static sf_fix_measure_result before, after;
    measure(broken, &before);
    measure(fixed, &after);
    CHECK(before.case_count >= 1 && after.case_count == before.case_count);
    CHECK(strcmp(after.cases[0].label, "each target at 1") == 0);
    CHECK(after.cases[0].normal.max < 0.01);                      /* exact at full weight */
    CHECK(before.cases[0].normal.mean > after.cases[0].normal.mean + 0.1); /* what the repair bought */
}

/* Influences of SimpleSkin rewritten with known faults, then fixed: each fault counted and repaired. */
static void weights_repaired(void)
{
    char buf[1024], broken[512], fixed[512];
    const char* in = sft_asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf", buf, sizeof buf);
    if (!in) {
        sft_skip("SF_ASSETS not set");
        return;
    }
    tmp_path("skin_broken.gltf", broken, sizeof broken);
    tmp_path("skin_fixed.gltf", fixed, sizeof fixed);
    float joints[40] = {1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1}, weights[40] = {0.25f, 0.25f, 0, 0, 0.2f, 0.6f};
    weights[13] = 1.0f; /* v3: joint 1 with weight 1, and a zero-weight slot naming joint 1 */
    for (size_t v = 4; v < 10; ++v) weights[4 * v] = 1.0f;
    sf_gltf_doc* doc = NULL;
    sf_error err;
    CHECK_OK(sf_gltf_doc_open(in, NULL, NULL, &doc, &err));
    sf_gltf_slot js = {0, 0, SF_GLTF_NONE, "JOINTS_0"}, ws = {0, 0, SF_GLTF_NONE, "WEIGHTS_0"};
    sf_gltf_values jv = {joints, 10, 4, 5123, 0}, wv = {weights, 10, 4, 5126, 0};
    CHECK_OK(sf_gltf_doc_set(doc, &js, &jv, NULL, &err));
    CHECK_OK(sf_gltf_doc_set(doc, &ws, &wv, NULL, &err));
    CHECK_OK(sf_gltf_doc_save(doc, broken, NULL, 0, &err));
    sf_gltf_doc_destroy(doc);
    sf_fix_opts o;
    sf_fix_opts_init(&o);
    sf_fix_counts c;
    CHECK_OK(fix_file(broken, fixed, &o, &c));
    CHECK(c.duplicate_joints_merged == 1 && c.zero_weight_vertices == 1 && c.influences_sorted == 1);
    CHECK(c.weights_renormalised == 2 && c.zero_slots_cleared == 1);
    size_t n = 0;
    float *j = read_slot(fixed, SF_GLTF_NONE, "JOINTS_0", &n), *w = read_slot(fixed, SF_GLTF_NONE, "WEIGHTS_0", &n);
    CHECK(j && w && n == 40);
    if (!j || !w) return;
    CHECK(j[0] == 1 && w[0] == 1.0f && w[1] == 0 && j[1] == 0);                  /* merged */
    CHECK(j[4] == 1 && j[5] == 0 && fabsf(w[4] - 0.75f) < 1e-6f && fabsf(w[5] - 0.25f) < 1e-6f); /* sorted, sum 1 */
    CHECK(w[8] == 0 && w[9] == 0 && w[10] == 0 && w[11] == 0);                   /* zero sum left as it was */
    CHECK(j[12] == 1 && w[12] == 1.0f && j[15] == 0);                            /* zero slot cleared */
    free(j);
    free(w);
}

/* The values of one slot of meshes[0].primitives[primitive] (attr NULL: its indices), *count floats. */
static float* read_prim_slot(const char* path, size_t primitive, size_t target, const char* attr, size_t* count)
{
    sf_gltf_doc* doc = NULL;
    sf_error err;
    float* v = NULL;
    if (sf_gltf_doc_open(path, NULL, NULL, &doc, &err) != SF_OK) return NULL;
    sf_gltf_slot s = {0, primitive, target, attr};
    sf_gltf_accessor_info in;
    size_t a = sf_gltf_doc_accessor(doc, &s);
    if (a != SF_GLTF_NONE && sf_gltf_doc_accessor_info(doc, a, &in, &err) == SF_OK) {
        v = calloc(in.count * in.components + 1, sizeof(float));
        *count = in.count * in.components;
        if (sf_gltf_doc_read(doc, a, v, &err) != SF_OK) free(v), v = NULL;
    }
    sf_gltf_doc_destroy(doc);
    return v;
}

static double angle_deg(const float* a, const float* b)
{
    double c[3] = {(double)a[1] * b[2] - (double)a[2] * b[1], (double)a[2] * b[0] - (double)a[0] * b[2],
                   (double)a[0] * b[1] - (double)a[1] * b[0]};
    double d = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
    return atan2(sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]), d) * 57.29577951308232;
}

/* At each morph target's full weight, the angle between the fixed file's tangent (rest TANGENT + the target's
 * TANGENT delta) and MikkTSpace's of the morphed mesh (rest + the file's POSITION and NORMAL deltas, as a loader
 * generating tangents for that mesh computes them: sf_tangents_generate) at every corner of meshes[0].primitives
 * [prim]; rest_mean: the rest TANGENT alone (without deltas). */
typedef struct morph_tangent_stats {
    size_t targets, corners;
    double worst, mean, rest_mean;
    int complete; /* every target has the three deltas */
} morph_tangent_stats;

static morph_tangent_stats morph_tangent_errors(const char* path, size_t prim)
{
    morph_tangent_stats st;
    memset(&st, 0, sizeof st);
    size_t np = 0, nn = 0, nt = 0, nu = 0, ni = 0;
    float *pos = read_prim_slot(path, prim, SF_GLTF_NONE, "POSITION", &np),
          *nrm = read_prim_slot(path, prim, SF_GLTF_NONE, "NORMAL", &nn),
          *tan = read_prim_slot(path, prim, SF_GLTF_NONE, "TANGENT", &nt),
          *uv = read_prim_slot(path, prim, SF_GLTF_NONE, "TEXCOORD_0", &nu),
          *ind = read_prim_slot(path, prim, SF_GLTF_NONE, NULL, &ni);
    size_t n = np / 3, tris = ni / 3;
    uint32_t* tri = malloc(ni * sizeof(uint32_t) + 4);
    float *mp = malloc(3 * n * sizeof(float) + 4), *mn = malloc(3 * n * sizeof(float) + 4),
          *corners = malloc(12 * tris * sizeof(float) + 4);
    double sum = 0.0, rest_sum = 0.0;
    st.complete = pos && nrm && tan && uv && ind && tri && mp && mn && corners && nn == np && nt == 4 * n;
    for (size_t i = 0; st.complete && i < ni; ++i) tri[i] = (uint32_t)ind[i];
    for (size_t t = 0; st.complete; ++t) {
        size_t a = 0, b = 0, d = 0;
        float* dp = read_prim_slot(path, prim, t, "POSITION", &a);
        if (!dp) break; /* past the last target */
        float *dn = read_prim_slot(path, prim, t, "NORMAL", &b), *dt = read_prim_slot(path, prim, t, "TANGENT", &d);
        st.complete = dn && dt && a == 3 * n && b == 3 * n && d == 3 * n;
        st.targets++;
        for (size_t i = 0; st.complete && i < 3 * n; ++i) mp[i] = pos[i] + dp[i], mn[i] = nrm[i] + dn[i];
        sf_tangent_desc td;
        memset(&td, 0, sizeof td);
        td.vertex_count = n;
        td.triangle_count = tris;
        td.indices = tri;
        td.positions.data = mp;
        td.normals.data = mn;
        td.uvs.data = uv;
        td.mode = SF_TANGENTS_MIKKTSPACE;
        if (st.complete) st.complete = sf_tangents_generate(&td, NULL, corners, NULL) == SF_OK;
        for (size_t k = 0; st.complete && k < 3 * tris; ++k) {
            size_t v = tri[k];
            float f[3] = {tan[4 * v] + dt[3 * v], tan[4 * v + 1] + dt[3 * v + 1], tan[4 * v + 2] + dt[3 * v + 2]};
            double e = angle_deg(f, corners + 4 * k);
            st.worst = e > st.worst ? e : st.worst, sum += e, st.corners++;
            rest_sum += angle_deg(tan + 4 * v, corners + 4 * k);
        }
        free(dp), free(dn), free(dt);
    }
    st.mean = st.corners ? sum / (double)st.corners : 0.0;
    st.rest_mean = st.corners ? rest_sum / (double)st.corners : 0.0;
    free(pos), free(nrm), free(tan), free(uv), free(ind), free(tri), free(mp), free(mn), free(corners);
    return st;
}

/* A staged asset (path under SF_ASSETS) saved to the temporary file `name` with a normal texture on each of its
 * materials, which makes fix generate its tangents: its path in `in`, the copy's in `mapped`. False (skipped or
 * failed) without it. */
static bool normal_mapped_copy(const char* asset, const char* name, char* in, char* mapped, size_t size)
{
    if (!sft_asset(asset, in, size)) {
        sft_skip("no assets (SF_ASSETS unset)");
        return false;
    }
    sf_gltf_doc* doc = NULL;
    sf_error err;
    memset(&err, 0, sizeof err);
    if (sf_gltf_doc_open(in, NULL, NULL, &doc, &err) != SF_OK) {
        sft_failf(__FILE__, __LINE__, "%s: %s", in, err.message);
        return false;
    }
    cJSON* material;
    size_t materials = 0;
    cJSON_ArrayForEach(material, cJSON_GetObjectItem(sf_gltf_doc_json(doc), "materials")) {
        cJSON_AddNumberToObject(cJSON_AddObjectToObject(material, "normalTexture"), "index", 0);
        materials++;
    }
    bool ok = materials > 0 && sf_gltf_doc_normal_map_texcoord(doc, 0, 0) == 0 &&
              sf_gltf_doc_save(doc, tmp_path(name, mapped, size), NULL, 0, &err) == SF_OK;
    if (!ok) sft_failf(__FILE__, __LINE__, "%s: %zu materials given a normal map, saved: %s", in, materials, err.message);
    sf_gltf_doc_destroy(doc);
    return ok;
}

/* MorphStressTest given a normal map: fix generates TANGENT for its morphing primitive (no vertex splits) and
 * TANGENT deltas for every target that moves it (the reference's, as for NORMAL); the fixed file's tangents at
 * each target's full weight are MikkTSpace's of the morphed mesh; fixing again changes nothing. */
static void morph_tangents_written(void)
{
    char in[1024], mapped[1024], out[1024], again[1024];
    if (!normal_mapped_copy("gltf/MorphStressTest/glTF-Binary/MorphStressTest.glb", "mst-mapped.glb", in, mapped,
                            sizeof in))
        return;
    sf_fix_opts o;
    sf_fix_opts_init(&o);
    sf_fix_counts c;
    memset(&c, 0, sizeof c);
    CHECK_OK(fix_file(mapped, tmp_path("mst-fixed.glb", out, sizeof out), &o, &c));
    CHECK(c.tangent_vertices_added == 0 && c.morph_tangent_targets > 0);
    morph_tangent_stats st = morph_tangent_errors(out, 1); /* primitive 1 is the morphing one */
    printf("  %zu targets, %zu corners: mean %.3g, max %.3g degrees from MikkTSpace of the morphed mesh (without the "
           "deltas: mean %.3g)\n", st.targets, st.corners, st.mean, st.worst, st.rest_mean);
    CHECK(st.complete && st.targets == 8 && st.corners > 0);
    /* float rounding of the sums (measured 4.6e-6 degrees), far below what the deltas change */
    CHECK(st.worst < 1e-4);
    CHECK(st.rest_mean > 0.1);
    sf_fix_counts c2;
    memset(&c2, 0, sizeof c2);
    CHECK_OK(fix_file(out, tmp_path("mst-fixed2.glb", again, sizeof again), &o, &c2));
    CHECK(c2.accessors_written == 0 && c2.tangents_generated == 0); /* fixing again changes nothing */
}

/* A normal-mapped 3 x 3 grid whose UVs mirror at x = 1 (the middle column's corners get opposite MikkTSpace
 * tangents, so fix splits those vertices) with a target lifting the middle row and tilting one corner: the split
 * primitive's targets get TANGENT deltas too, MikkTSpace's of the morphed split mesh at every corner. */
static void split_morph_tangents_written(void)
{
    float pos[27], nrm[27], uv[18], dp[27];
    uint32_t idx[24];
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x) {
            int v = 3 * y + x;
            pos[3 * v] = (float)x, pos[3 * v + 1] = (float)y, pos[3 * v + 2] = 0.0f;
            nrm[3 * v] = 0.0f, nrm[3 * v + 1] = 0.0f, nrm[3 * v + 2] = 1.0f;
            uv[2 * v] = x <= 1 ? 0.5f * (float)x : 0.5f * (float)(2 - x), uv[2 * v + 1] = 0.5f * (float)y;
            dp[3 * v] = 0.0f, dp[3 * v + 1] = 0.0f, dp[3 * v + 2] = y == 1 ? 0.4f : 0.0f;
        }
    dp[3 * 8 + 2] = 0.7f;
    for (int y = 0, k = 0; y < 2; ++y)
        for (int x = 0; x < 2; ++x) {
            uint32_t a = (uint32_t)(3 * y + x), b = a + 1, c = a + 3, d = a + 4;
            idx[k++] = a, idx[k++] = b, idx[k++] = d, idx[k++] = a, idx[k++] = d, idx[k++] = c;
        }
    sf_morph_target_desc target;
    memset(&target, 0, sizeof target);
    target.position_deltas = dp;
    sf_gltf_write_mesh wm;
    memset(&wm, 0, sizeof wm);
    wm.mesh.vertex_count = 9;
    wm.mesh.triangle_count = 8;
    wm.mesh.indices = idx;
    wm.mesh.positions.data = pos;
    wm.mesh.normals.data = nrm;
    wm.mesh.uvs.data = uv;
    wm.mesh.targets = &target;
    wm.mesh.target_count = 1;
    sf_gltf_write_node node;
    memset(&node, 0, sizeof node);
    node.parent = node.skin = SF_GLTF_NONE;
    node.mesh = 0;
    node.scale[0] = node.scale[1] = node.scale[2] = 1.0f;
    node.rotation[3] = 1.0f;
    sf_gltf_write_desc d;
    memset(&d, 0, sizeof d);
    d.meshes = &wm;
    d.mesh_count = 1;
    d.nodes = &node;
    d.node_count = 1;
    char plain[1024], mapped[1024], out[1024], again[1024];
    sf_error err;
    CHECK_OK(sf_gltf_save_glb(&d, tmp_path("mirror-plain.glb", plain, sizeof plain), NULL, NULL, &err));
    sf_gltf_doc* doc = NULL;
    CHECK_OK(sf_gltf_doc_open(plain, NULL, NULL, &doc, &err));
    if (!doc) return;
    cJSON* root = sf_gltf_doc_json(doc);
    cJSON* material = cJSON_CreateObject();
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(material, "normalTexture"), "index", 0);
    cJSON* materials = cJSON_AddArrayToObject(root, "materials");
    cJSON_AddItemToArray(materials, material);
    cJSON* prim = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "meshes"), 0),
                                                         "primitives"), 0);
    cJSON_AddNumberToObject(prim, "material", 0);
    CHECK(sf_gltf_doc_normal_map_texcoord(doc, 0, 0) == 0);
    CHECK_OK(sf_gltf_doc_save(doc, tmp_path("mirror-mapped.glb", mapped, sizeof mapped), NULL, 0, &err));
    sf_gltf_doc_destroy(doc);
    sf_fix_opts o;
    sf_fix_opts_init(&o);
    sf_fix_counts c;
    memset(&c, 0, sizeof c);
    CHECK_OK(fix_file(mapped, tmp_path("mirror-fixed.glb", out, sizeof out), &o, &c));
    CHECK(c.tangent_vertices_added > 0 && c.morph_tangent_targets == 1);
    morph_tangent_stats st = morph_tangent_errors(out, 0);
    printf("  split: %zu vertices added, %zu corners: mean %.3g, max %.3g degrees from MikkTSpace of the morphed mesh "
           "(without the deltas: mean %.3g)\n", c.tangent_vertices_added, st.corners, st.mean, st.worst, st.rest_mean);
    CHECK(st.complete && st.targets == 1 && st.corners == 24);
    CHECK(st.worst < 1e-4);
    CHECK(st.rest_mean > 1.0);
    sf_fix_counts c2;
    memset(&c2, 0, sizeof c2);
    CHECK_OK(fix_file(out, tmp_path("mirror-fixed2.glb", again, sizeof again), &o, &c2));
    CHECK(c2.accessors_written == 0 && c2.tangents_generated == 0);
}

/* The command: one file, refusals (onto the input, a file not ours, an unknown required extension), a
 * folder with one JSON line per asset. */
/* The tangents (4 per vertex) or positions (3) of instance 0, primitive 0 as the loader gives them, generating
 * MikkTSpace's tangents (and splitting vertices for them) where the file has no TANGENT; NULL when it cannot. */
static float* loaded_stream(const char* path, int tangents, size_t* n)
{
    sf_gltf_opts o;
    memset(&o, 0, sizeof o);
    o.generated_tangents = SF_TANGENTS_MIKKTSPACE;
    sf_gltf* g = NULL;
    sf_mesh_desc d;
    float* out = NULL;
    size_t comps = tangents ? 4 : 3;
    if (sf_gltf_load_file(path, &o, NULL, &g, NULL) == SF_OK && sf_gltf_instance_mesh(g, 0, 0, &d, NULL) == SF_OK) {
        const sf_stream* st = tangents ? &d.tangents : &d.positions;
        if (st->data && (out = malloc(comps * d.vertex_count * sizeof(float))) != NULL) {
            size_t stride = st->stride ? st->stride : comps * sizeof(float);
            for (size_t v = 0; v < d.vertex_count; ++v)
                memcpy(out + comps * v, (const unsigned char*)st->data + v * stride, comps * sizeof(float));
            *n = d.vertex_count;
        }
    }
    sf_gltf_destroy(g);
    return out;
}

static float* loaded_tangents(const char* path, size_t* n) { return loaded_stream(path, 1, n); }

/* A normal-mapped primitive without TANGENT (NormalTangentTest) gets MikkTSpace's tangents written, the same bits
 * the loader generates for the unfixed file, vertex for vertex (the loader's tangents are checked against npm
 * mikktspace in test_mikktspace); fixing again, or without --tangents, writes none. */
static void normal_mapped_tangents_generated(void)
{
    char in[1024], out[1024], again[1024];
    if (!sft_asset("gltf/NormalTangentTest/glTF-Binary/NormalTangentTest.glb", in, sizeof in)) {
        sft_skip("no assets (SF_ASSETS unset)");
        return;
    }
    size_t before = 0;
    float* t0 = read_slot(in, SF_GLTF_NONE, "TANGENT", &before);
    CHECK(t0 == NULL); /* the file has none */
    free(t0);
    sf_fix_opts o;
    sf_fix_opts_init(&o);
    sf_fix_counts c;
    memset(&c, 0, sizeof c);
    CHECK_OK(fix_file(in, tmp_path("ntt.glb", out, sizeof out), &o, &c));
    size_t n = 0, m = 0, written = 0;
    float* want = loaded_tangents(in, &n);
    float* got = read_slot(out, SF_GLTF_NONE, "TANGENT", &written);
    CHECK(want && got && written == 4 * n && c.tangents_generated == n && c.tangents_need_splits == 0);
    size_t differ = 0;
    for (size_t i = 0; want && got && written == 4 * n && i < 4 * n; ++i) differ += want[i] != got[i];
    CHECK(differ == 0);
    float* reloaded = loaded_tangents(out, &m);
    CHECK(reloaded && m == n);
    free(reloaded);
    free(want);
    free(got);
    sf_fix_counts c2;
    memset(&c2, 0, sizeof c2);
    CHECK_OK(fix_file(out, tmp_path("ntt2.glb", again, sizeof again), &o, &c2));
    CHECK(c2.tangents_generated == 0 && c2.accessors_written == 0);
    o.tangents = false;
    memset(&c2, 0, sizeof c2);
    CHECK_OK(fix_file(in, again, &o, &c2));
    CHECK(c2.tangents_generated == 0);
}

/* CesiumMan given a normal map: MikkTSpace gives some of its vertices different tangents at different corners.
 * fix splits them as the loader does for the unfixed file: the same vertices in the same order, the same
 * positions and tangents bit for bit, the copies appended; every other attribute carried, the file's vertices
 * unchanged; fixing again changes nothing. (tests/validator/check_fix.sh validates the same output.) */
static void split_tangents_written(void)
{
    char in[1024], mapped[1024], out[1024], again[1024];
    if (!normal_mapped_copy("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", "cm-mapped.glb", in, mapped, sizeof in)) return;
    sf_fix_opts o;
    sf_fix_opts_init(&o);
    sf_fix_counts c;
    memset(&c, 0, sizeof c);
    CHECK_OK(fix_file(mapped, tmp_path("cm-split.glb", out, sizeof out), &o, &c));
    size_t n0 = 0, n = 0, nw = 0, nx = 0, written = 0;
    float* source = read_slot(mapped, SF_GLTF_NONE, "POSITION", &n0);
    float* want_t = loaded_tangents(mapped, &n);
    float* want_x = loaded_stream(mapped, 0, &nx);
    float* got_t = read_slot(out, SF_GLTF_NONE, "TANGENT", &written);
    float* got_x = read_slot(out, SF_GLTF_NONE, "POSITION", &nw);
    CHECK(source && want_t && want_x && got_t && got_x);
    if (source && want_t && want_x && got_t && got_x) {
        size_t original = n0 / 3, added = n - original;
        CHECK(added > 0 && c.tangent_vertices_added == added && c.tangents_generated == n);
        CHECK(c.tangents_need_splits == 0 && nx == n && written == 4 * n && nw == 3 * n);
        CHECK(memcmp(got_t, want_t, 4 * n * sizeof(float)) == 0);
        CHECK(memcmp(got_x, want_x, 3 * n * sizeof(float)) == 0);
        CHECK(memcmp(got_x, source, 3 * original * sizeof(float)) == 0); /* the file's vertices keep their places */
        /* the other attributes as the same fix without tangents writes them, on the file's vertices */
        char plain[1024];
        sf_fix_opts po = o;
        po.tangents = false;
        sf_fix_counts pc;
        CHECK_OK(fix_file(mapped, tmp_path("cm-plain.glb", plain, sizeof plain), &po, &pc));
        const char* carried[] = {"NORMAL", "TEXCOORD_0", "JOINTS_0", "WEIGHTS_0"};
        for (size_t k = 0; k < 4; ++k) {
            size_t a = 0, b = 0;
            float *x = read_slot(plain, SF_GLTF_NONE, carried[k], &a), *y = read_slot(out, SF_GLTF_NONE, carried[k], &b);
            size_t comps = a / original;
            if (!(x && y && b == comps * n && memcmp(x, y, a * sizeof(float)) == 0)) printf("  %s differs\n", carried[k]);
            CHECK(x && y && b == comps * n && memcmp(x, y, a * sizeof(float)) == 0);
            free(x);
            free(y);
        }
    }
    free(source), free(want_t), free(want_x), free(got_t), free(got_x);
    sf_fix_counts c2;
    memset(&c2, 0, sizeof c2);
    CHECK_OK(fix_file(out, tmp_path("cm-split2.glb", again, sizeof again), &o, &c2));
    CHECK(c2.tangents_generated == 0 && c2.accessors_written == 0);
}

static void cli_rules(void)
{
    char buf[1024], cmd[4096], out[512], req[512];
    const char* in = sft_asset("gltf/MorphStressTest/glTF-Binary/MorphStressTest.glb", buf, sizeof buf);
    sft_cli_out r = sft_run_cli("fix --help");
    if (r.status == -1 || !in) {
        sft_cli_out_free(&r);
        sft_skip("SF_CLI or SF_ASSETS not set");
        return;
    }
    sft_cli_out_free(&r);
    tmp_path("cli.glb", out, sizeof out);
    snprintf(cmd, sizeof cmd, "fix '%s' -o '%s' --json", in, out);
    r = sft_run_cli(cmd);
    CHECK(r.status == 0 && strstr(r.out, "\"morph_normal_targets\":8") && strstr(r.out, "\"every target at 1\""));
    sft_cli_out_free(&r);
    snprintf(cmd, sizeof cmd, "fix '%s' -o '%s'", in, in);
    r = sft_run_cli(cmd);
    CHECK(r.status == 2 && strstr(r.err, "is an input"));
    sft_cli_out_free(&r);
    /* --compress: only meshopt, and only where the build has the encoder (the refusal names the option) */
    snprintf(cmd, sizeof cmd, "fix '%s' -o '%s' --force --no-measure --compress draco", in, out);
    r = sft_run_cli(cmd);
    CHECK(r.status == 2 && strstr(r.err, "only meshopt"));
    sft_cli_out_free(&r);
    snprintf(cmd, sizeof cmd, "fix '%s' -o '%s' --force --no-measure --compress meshopt", in, out);
    r = sft_run_cli(cmd);
    if (strstr(sf_gltf_decoders(), "meshopt")) CHECK(r.status == 0 && strstr(r.out, "EXT_meshopt_compression"));
    else CHECK(r.status == 2 && strstr(r.err, "SF_WITH_MESHOPT"));
    sft_cli_out_free(&r);
    snprintf(cmd, sizeof cmd, "fix '%s' -o '%s' --no-measure", in, tmp_path("notes.txt", req, sizeof req));
    r = sft_run_cli(cmd);
    CHECK(r.status == 2); /* not a .glb/.gltf name */
    sft_cli_out_free(&r);
    FILE* f = fopen(tmp_path("other.glb", req, sizeof req), "wb");
    if (f) fputs("someone's file", f), fclose(f);
    snprintf(cmd, sizeof cmd, "fix '%s' -o '%s' --no-measure", in, req);
    r = sft_run_cli(cmd);
    CHECK(r.status == 2 && strstr(r.err, "--force")); /* not ours */
    sft_cli_out_free(&r);
    f = fopen(tmp_path("req.gltf", req, sizeof req), "wb");
    if (f) fputs("{\"asset\":{\"version\":\"2.0\"},\"extensionsRequired\":[\"EXT_made_up\"]}", f), fclose(f);
    snprintf(cmd, sizeof cmd, "fix '%s' -o '%s/req_out.gltf'", req, g_dir);
    r = sft_run_cli(cmd);
    CHECK(r.status == 1 && strstr(r.err, "EXT_made_up"));
    sft_cli_out_free(&r);
    const char* skin = sft_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", buf, sizeof buf);
    snprintf(cmd, sizeof cmd, "fix '%s' -o '%s/cut.glb' --max-influences 2 --json", skin, g_dir);
    r = sft_run_cli(cmd);
    CHECK(r.status == 0 && strstr(r.out, "\"max_influences_cost\"") && !strstr(r.out, "\"influences_truncated\":0,"));
    sft_cli_out_free(&r);
    const char* dir = sft_asset("gltf/SimpleSkin", buf, sizeof buf);
    snprintf(cmd, sizeof cmd, "fix '%s' -o '%s/batch' --json --no-measure", dir, g_dir);
    r = sft_run_cli(cmd);
    CHECK(r.status == 0 && strstr(r.out, "\"repairs\"") && strchr(r.out, '\n') == strrchr(r.out, '\n'));
    sft_cli_out_free(&r);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"staged_assets_kept_and_idempotent", staged_assets_kept_and_idempotent},
        {"zero_morph_normals_rebuilt", zero_morph_normals_rebuilt},
        {"weights_repaired", weights_repaired},
        {"cli_rules", cli_rules},
        {"normal_mapped_tangents_generated", normal_mapped_tangents_generated},
        {"split_tangents_written", split_tangents_written},
        {"morph_tangents_written", morph_tangents_written},
        {"split_morph_tangents_written", split_morph_tangents_written},
    };
    return SFT_RUN(cases, argc, argv);
}

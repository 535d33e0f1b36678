// LABELS: unit
/* sf_gltf_doc_embed_fan: staged assets rewritten with jacobian-fan's attributes (float and snorm16), saved,
 * read back through the rewriter, and evaluated with sf_fan_attributes_frames on the loader's own topology of
 * the saved file (its vertices mapped to the file's by source_vertex): the frames must be the library's
 * jacobian-fan (float: within 1e-4 degrees, snorm16: within 0.01); a primitive without NORMAL is left. */
#include "sf_test.h"
#include "skinframe_gltf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The saved attribute name of primitive slot as floats (NULL when absent). */
static float* slot_values(const sf_gltf_doc* doc, size_t mesh, size_t prim, size_t target, const char* name,
                          size_t* comps)
{
    sf_gltf_slot s = {mesh, prim, target, name};
    size_t acc = sf_gltf_doc_accessor(doc, &s);
    sf_gltf_accessor_info info;
    sf_error err;
    if (acc == SF_GLTF_NONE || sf_gltf_doc_accessor_info(doc, acc, &info, &err) != SF_OK) return NULL;
    float* v = calloc(info.count * info.components + 1, sizeof(float));
    if (sf_gltf_doc_read(doc, acc, v, &err) != SF_OK) {
        free(v);
        return NULL;
    }
    *comps = info.components;
    return v;
}

/* The attributes of the saved file's first primitive in the loaded vertices' order (float arrays). */
static int attributes_of(const sf_gltf_doc* doc, const sf_gltf_primitive* p, const sf_topology* topo,
                         sf_fan_attributes* a)
{
    sf_error err;
    memset(a, 0, sizeof *a);
    if (sf_fan_layout_get(topo, &a->layout, &err) != SF_OK) return 0;
    size_t n = a->layout.vertex_count, G = a->layout.slot_groups, T = a->layout.target_count, c;
    a->encoding = SF_FAN_FLOAT32;
    a->normal = calloc(3 * n + 1, sizeof(float));
    a->joints = calloc(4 * G * n + 1, sizeof(uint16_t));
    a->coef = calloc(24 * G * n + 1, sizeof(float));
    a->morph = calloc(6 * T * n + 1, sizeof(float));
    size_t mi = p->mesh_index, pi = p->primitive_index;
    float* v = slot_values(doc, mi, pi, SF_GLTF_NONE, "_SKINFRAME_FAN_NORMAL", &c);
    if (!v) return 0;
    float* s0 = slot_values(doc, mi, pi, SF_GLTF_NONE, "_SKINFRAME_FAN_SCALE_0", &c);
    float* s1 = slot_values(doc, mi, pi, SF_GLTF_NONE, "_SKINFRAME_FAN_SCALE_1", &c);
    for (size_t i = 0; i < n; ++i) memcpy(a->normal + 3 * i, v + 3 * p->source_vertex[i], 3 * sizeof(float));
    free(v);
    char name[40];
    int ok = 1;
    for (size_t g = 0; g < G && ok; ++g) {
        snprintf(name, sizeof name, "_SKINFRAME_FAN_JOINTS_%zu", g);
        ok = (v = slot_values(doc, mi, pi, SF_GLTF_NONE, name, &c)) != NULL;
        for (size_t i = 0; ok && i < n; ++i)
            for (int q = 0; q < 4; ++q) a->joints[g * 4 * n + 4 * i + q] = (uint16_t)v[4 * p->source_vertex[i] + q];
        free(v);
    }
    for (size_t k = 0; k < 6 * G && ok; ++k) {
        snprintf(name, sizeof name, "_SKINFRAME_FAN_%zu", k);
        ok = (v = slot_values(doc, mi, pi, SF_GLTF_NONE, name, &c)) != NULL;
        for (size_t i = 0; ok && i < n; ++i)
            for (int q = 0; q < 4; ++q) {
                size_t sv = p->source_vertex[i], kind = k % 6;
                float sc = !s0 ? 1.0f : kind < 4 ? s0[4 * sv + kind] : s1[4 * sv + kind - 4];
                ((float*)a->coef)[k * 4 * n + 4 * i + q] = v[4 * sv + q] * sc;
            }
        free(v);
    }
    for (size_t t = 0; t < T && ok; ++t)
        for (int h = 0; h < 2 && ok; ++h) {
            ok = (v = slot_values(doc, mi, pi, t, h ? "_SKINFRAME_FAN_DV" : "_SKINFRAME_FAN_DU", &c)) != NULL;
            for (size_t i = 0; ok && i < n; ++i)
                for (int q = 0; q < 3; ++q) {
                    size_t sv = p->source_vertex[i];
                    ((float*)a->morph)[(2 * t + h) * 3 * n + 3 * i + q] = v[c * sv + q] * (s1 ? s1[4 * sv + 2] : 1.0f);
                }
            free(v);
        }
    free(s0);
    free(s1);
    return ok;
}

static void embed_case(const char* rel, sf_fan_encoding enc, double tolerance)
{
    const char* assets = getenv("SF_ASSETS");
    if (!assets) {
        sft_skip("SF_ASSETS unset");
        return;
    }
    char in[1024], out[1024];
    snprintf(in, sizeof in, "%s/%s", assets, rel);
    snprintf(out, sizeof out, "%s/sf_fan_embed_%d_%d.glb", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid(),
             (int)enc);
    sf_gltf_doc* doc = NULL;
    sf_error err;
    CHECK_OK(sf_gltf_doc_open(in, NULL, NULL, &doc, &err));
    sf_gltf_fan_counts counts;
    CHECK_OK(sf_gltf_doc_embed_fan(doc, enc, &counts, &err));
    CHECK(counts.primitives >= 1 && counts.accessors_written > 0);
    CHECK_OK(sf_gltf_doc_save(doc, out, NULL, 0, &err));
    sf_gltf_doc_destroy(doc);
    /* the saved file: the loader's topology and pose, the attributes read back */
    sf_gltf_doc* saved = NULL;
    CHECK_OK(sf_gltf_doc_open(out, NULL, NULL, &saved, &err));
    const sf_gltf* g = sf_gltf_doc_gltf(saved);
    sf_gltf_pose* gp = NULL;
    CHECK_OK(sf_gltf_pose_create(g, NULL, &gp, &err));
    double t = g->animation_count ? 0.5 * (g->animations[0].start_s + g->animations[0].end_s) : 0.0;
    CHECK_OK(sf_gltf_pose_sample(gp, g->animation_count ? 0 : SF_GLTF_NONE, t, &err));
    const sf_gltf_primitive* p = &g->primitives[g->meshes[g->instances[0].mesh].first_primitive];
    sf_mesh_desc d;
    sf_topology* topo = NULL;
    CHECK_OK(sf_gltf_instance_mesh(g, 0, g->meshes[g->instances[0].mesh].first_primitive, &d, &err));
    CHECK_OK(sf_topology_create(&d, NULL, NULL, &topo, &err));
    size_t B = g->instances[0].bone_count, n = d.vertex_count;
    float* bones = calloc(12 * B + 1, sizeof(float));
    float* morph = calloc(d.target_count + 1, sizeof(float));
    CHECK_OK(sf_gltf_pose_instance(gp, 0, bones, morph, NULL, &err));
    sf_pose pose = {bones, B, d.target_count ? morph : NULL, d.target_count};
    sf_fan_attributes a;
    CHECK(attributes_of(saved, p, topo, &a));
    float* lib_n = calloc(3 * n + 1, sizeof(float));
    float* emb_n = calloc(3 * n + 1, sizeof(float));
    sf_workspace* ws = NULL;
    sf_workspace_opts wo = {1u << SF_METHOD_JACOBIAN_FAN, SF_BACKEND_CPU};
    sf_frames_out fo = {NULL, lib_n, NULL};
    CHECK_OK(sf_workspace_create(topo, &wo, &ws, &err));
    CHECK_OK(sf_frames_compute(topo, &pose, SF_METHOD_JACOBIAN_FAN, NULL, ws, &fo, &err));
    CHECK_OK(sf_fan_attributes_frames(topo, &a, &pose, emb_n, NULL, &err));
    double worst = 0.0;
    for (size_t v = 0; v < n; ++v) {
        double dd = sf_angle_deg(lib_n + 3 * v, emb_n + 3 * v);
        if (dd > worst) worst = dd;
    }
    printf("  %s %s: %zu primitives, %zu slot groups, largest normal difference %.3g deg\n", rel,
           enc ? "snorm16" : "float", counts.primitives, counts.slot_groups, worst);
    CHECK(worst <= tolerance);
    sf_workspace_destroy(ws);
    free(lib_n);
    free(emb_n);
    free(a.normal);
    free(a.joints);
    free(a.coef);
    free(a.morph);
    free(bones);
    free(morph);
    sf_topology_destroy(topo);
    sf_gltf_pose_destroy(gp);
    sf_gltf_doc_destroy(saved);
    remove(out);
}

static void test_cesiumman(void)
{
    embed_case("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", SF_FAN_FLOAT32, 1e-4);
    embed_case("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", SF_FAN_SNORM16, 0.01);
}

/* Fox has no NORMAL: every runtime flat-shades it, so its primitive is left (counted) and nothing changes. */
static void test_fox_without_normals(void)
{
    const char* assets = getenv("SF_ASSETS");
    if (!assets) {
        sft_skip("SF_ASSETS unset");
        return;
    }
    char in[1024];
    snprintf(in, sizeof in, "%s/gltf/Fox/glTF-Binary/Fox.glb", assets);
    sf_gltf_doc* doc = NULL;
    sf_error err;
    CHECK_OK(sf_gltf_doc_open(in, NULL, NULL, &doc, &err));
    sf_gltf_fan_counts counts;
    CHECK_OK(sf_gltf_doc_embed_fan(doc, SF_FAN_SNORM16, &counts, &err));
    CHECK(counts.primitives == 0 && counts.skipped == 1 && counts.accessors_written == 0);
    CHECK_RESULT(sf_gltf_doc_embed_fan(doc, (sf_fan_encoding)9, &counts, &err), SF_ERROR_INVALID_ARGUMENT);
    sf_gltf_doc_destroy(doc);
}

static void test_morph_cube(void)
{
    embed_case("gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb", SF_FAN_FLOAT32, 1e-4);
    embed_case("gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb", SF_FAN_SNORM16, 0.01);
}

/* `skinframe fix --embed jacobian-fan`: the attributes written after the repairs, reported, idempotent (a
 * second run writes the same bytes); unknown values and --embed-float alone are usage errors. */
static void test_fix_embed_command(void)
{
    const char* assets = getenv("SF_ASSETS");
    if (!getenv("SF_CLI") || !assets) {
        sft_skip("SF_CLI or SF_ASSETS unset");
        return;
    }
    char a[512], b[512], args[2048];
    const char* tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(a, sizeof a, "%s/sf_fix_embed_%d_a.glb", tmp, (int)getpid());
    snprintf(b, sizeof b, "%s/sf_fix_embed_%d_b.glb", tmp, (int)getpid());
    snprintf(args, sizeof args, "fix %s/gltf/CesiumMan/glTF-Binary/CesiumMan.glb -o %s --embed jacobian-fan --no-measure --json",
             assets, a);
    sft_cli_out r = sft_run_cli(args);
    int ok = r.status == 0 && strstr(r.out, "\"embed\":{\"method\":\"jacobian-fan\",\"encoding\":\"snorm16\",\"primitives\":1");
    sft_cli_out_free(&r);
    CHECK(ok);
    snprintf(args, sizeof args, "fix %s -o %s --embed jacobian-fan --no-measure --json", a, b);
    r = sft_run_cli(args);
    ok = r.status == 0 && strstr(r.out, "\"accessors_written\":0}");
    sft_cli_out_free(&r);
    CHECK(ok);
    size_t na = 0, nb = 0;
    char* da = sft_read_file(a, &na);
    char* db = sft_read_file(b, &nb);
    CHECK(da && db && na == nb && memcmp(da, db, na) == 0);
    free(da);
    free(db);
    sf_gltf_doc* doc = NULL;
    sf_error err;
    CHECK_OK(sf_gltf_doc_open(a, NULL, NULL, &doc, &err));
    sf_gltf_slot s = {0, 0, SF_GLTF_NONE, "_SKINFRAME_FAN_11"};
    CHECK(sf_gltf_doc_accessor(doc, &s) != SF_GLTF_NONE);
    sf_gltf_doc_destroy(doc);
    const char* bad[] = {"--embed bogus", "--force --embed-float"};
    for (int k = 0; k < 2; ++k) {
        snprintf(args, sizeof args, "fix %s -o %s %s", a, b, bad[k]);
        r = sft_run_cli(args);
        ok = r.status == 2;
        sft_cli_out_free(&r);
        CHECK(ok);
    }
    remove(a);
    remove(b);
}

int main(int argc, char** argv)
{
    const sft_case cases[] = {
        {"cesiumman", test_cesiumman},
        {"fox_without_normals", test_fox_without_normals},
        {"morph_cube", test_morph_cube},
        {"fix_embed_command", test_fix_embed_command},
    };
    return SFT_RUN(cases, argc, argv);
}

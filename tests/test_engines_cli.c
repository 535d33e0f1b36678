// LABELS: cli
/* eval's engine presets and truncation, run as a program ($SF_CLI): an unknown engine is a usage error listing
 * the known ones; --engine all prints one row per engine and the best method per cost level; keeping fewer
 * influences costs exactly the position the closed form gives; the influence counts. */
#define _POSIX_C_SOURCE 200809L
#include "sf_test.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_dir[512];

/* Weights of each vertex over 8 joints (two JOINTS/WEIGHTS sets); joint j sits at (j, 0, 0) and the inverse
 * binds are the identity, so a vertex moves by sum_j w_j (j, 0, 0). */
static const float W8[8] = {0.3f, 0.2f, 0.15f, 0.1f, 0.1f, 0.08f, 0.05f, 0.02f};

static int write_weights(const char* path, const float w8[8])
{
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const float uv[6] = {0, 0, 1, 0, 0, 1};
    uint32_t joints[24];
    float weights[24];
    for (int v = 0; v < 3; ++v)
        for (int j = 0; j < 8; ++j) {
            joints[8 * v + j] = (uint32_t)j;
            weights[8 * v + j] = w8[j];
        }
    sf_gltf_write_mesh wm;
    memset(&wm, 0, sizeof wm);
    wm.mesh.vertex_count = 3;
    wm.mesh.triangle_count = 1;
    wm.mesh.positions.data = pos;
    wm.mesh.uvs.data = uv;
    wm.mesh.influence_count = 8;
    wm.mesh.joints = joints;
    wm.mesh.weights = weights;
    wm.mesh.bone_count = 8;
    sf_gltf_write_node nodes[9];
    memset(nodes, 0, sizeof nodes);
    size_t joint_nodes[8];
    for (int j = 0; j < 8; ++j) {
        nodes[j].parent = nodes[j].mesh = nodes[j].skin = SF_GLTF_NONE;
        nodes[j].translation[0] = (float)j;
        joint_nodes[j] = (size_t)j;
    }
    nodes[8].parent = SF_GLTF_NONE;
    nodes[8].mesh = 0;
    nodes[8].skin = 0;
    sf_gltf_write_skin skin = {8, joint_nodes, NULL};
    sf_gltf_write_desc d;
    memset(&d, 0, sizeof d);
    d.meshes = &wm;
    d.mesh_count = 1;
    d.nodes = nodes;
    d.node_count = 9;
    d.skins = &skin;
    d.skin_count = 1;
    return sf_gltf_save_glb(&d, path, NULL, NULL, NULL) == SF_OK;
}

static int write_eight_influences(const char* path) { return write_weights(path, W8); }

/* The variant of `engine` in eval --json's first animation, or NULL. */
static cJSON* engine_variant(cJSON* root, const char* engine)
{
    cJSON *v = NULL, *each;
    cJSON_ArrayForEach(each,
                       cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "animations"), 0), "variants"))
    {
        cJSON* e = cJSON_GetObjectItem(each, "engine");
        if (e && cJSON_IsString(e) && strcmp(e->valuestring, engine) == 0) v = each;
    }
    return v;
}

/* three.js, Filament and Bevy read JOINTS_0/WEIGHTS_0 only: their presets keep those slots whatever the second set
 * holds, not the 4 largest weights. Three.js and Filament divide them by their sum (weight 1 on slot 0 where it is
 * 0); Bevy skins with them as stored, so a first set holding a share s of the weight pulls the vertex p (joints are
 * translations by (j, 0, 0)) to s p + f (1, 0, 0), f = sum_{j<4} j w_j, against the full p + F (1, 0, 0). The
 * largest distance is that of the vertex (1, 0, 0): (1 - s) + (F - f), s = 1 and f / s renormalised; a set holding
 * nothing keeps the vertex at rest (joint 0 is at the origin, so (1, 0, 0, 0) does too): F. */
static void test_first_set(void)
{
    static const float second[2][8] = {{0.05f, 0.05f, 0.0f, 0.0f, 0.3f, 0.3f, 0.2f, 0.1f},
                                       {0.0f, 0.0f, 0.0f, 0.0f, 0.4f, 0.3f, 0.2f, 0.1f}};
    static const struct {
        const char* engine;
        int as_stored;
    } engines[] = {{"three.js", 0}, {"filament", 0}, {"bevy", 1}};
    for (int c = 0; c < 2; ++c) {
        char path[700], args[1200];
        snprintf(path, sizeof path, "%s/second_set.glb", g_dir);
        CHECK(write_weights(path, second[c]));
        double full = 0.0, first = 0.0, first_sum = 0.0, largest = 0.0;
        for (int j = 0; j < 8; ++j) full += j * (double)second[c][j];
        for (int j = 0; j < 4; ++j) first += j * (double)second[c][j], first_sum += second[c][j];
        for (int j = 4; j < 8; ++j) largest += j * (double)second[c][j]; /* the 4 largest sum to 1 here */
        for (size_t k = 0; k < sizeof engines / sizeof engines[0]; ++k) {
            double s = 1.0, f = 0.0;
            if (first_sum > 0.0) {
                s = engines[k].as_stored ? first_sum : 1.0;
                f = engines[k].as_stored ? first : first / first_sum;
            }
            double want = (1.0 - s) + (full - f);
            snprintf(args, sizeof args, "eval '%s' --engine %s --json", path, engines[k].engine);
            sft_cli_out r = sft_run_cli(args);
            CHECK(r.status == 0);
            cJSON* root = cJSON_Parse(r.out);
            CHECK(root != NULL);
            cJSON* v = root ? engine_variant(root, engines[k].engine) : NULL;
            CHECK(v != NULL);
            if (v) {
                CHECK(cJSON_GetObjectItem(v, "truncated_vertices")->valuedouble == 3);
                double pmax = cJSON_GetObjectItem(cJSON_GetObjectItem(v, "position"), "max")->valuedouble;
                CHECK_NEAR(pmax, want, 1e-5);
                CHECK(fabs(pmax - fabs(full - largest)) > 0.1); /* not what keeping the largest would cost */
            }
            cJSON_Delete(root);
            sft_cli_out_free(&r);
        }
        remove(path);
    }
}

/* The normal mean of `engine` and of skinned per clip of eval --json (at most 8 clips); *clips: their count. */
static void engine_means(const char* asset, const char* engine, double* means, double* skinned, int* clips_out)
{
    char args[1200];
    *clips_out = 0;
    snprintf(args, sizeof args, "eval '%s' --engine %s --fps 5 --json", asset, engine);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 0);
    cJSON* root = cJSON_Parse(r.out);
    CHECK(root != NULL);
    int clips = 0;
    cJSON* anim;
    cJSON_ArrayForEach(anim, cJSON_GetObjectItem(root, "animations"))
    {
        if (clips == 8) break;
        means[clips] = skinned[clips] = -1.0;
        cJSON *v, *m;
        cJSON_ArrayForEach(v, cJSON_GetObjectItem(anim, "variants"))
        {
            cJSON* e = cJSON_GetObjectItem(v, "engine");
            if (e && cJSON_IsString(e) && strcmp(e->valuestring, engine) == 0)
                means[clips] = cJSON_GetObjectItem(cJSON_GetObjectItem(v, "normal"), "mean")->valuedouble;
        }
        cJSON_ArrayForEach(m, cJSON_GetObjectItem(anim, "methods"))
        {
            if (strcmp(cJSON_GetObjectItem(m, "method")->valuestring, "skinned") == 0)
                skinned[clips] = cJSON_GetObjectItem(cJSON_GetObjectItem(m, "normal"), "mean")->valuedouble;
        }
        clips++;
    }
    cJSON_Delete(root);
    sft_cli_out_free(&r);
    *clips_out = clips;
}

/* Fox has no NORMAL: three.js and Babylon.js shade it flat (each deformed triangle's face normal), so their
 * presets' normal error is not skinned's, and the error is that of the face normals against the reference: below
 * skinned's, whose split corners keep their rest face normals turned by the bones. Fox has 4 influences per vertex
 * and unit rotation keys, so both engines deform it alike: the same face normals, the same error. */
static void test_flat_faces(void)
{
    char a[1024];
    if (!sft_asset("gltf/Fox/glTF-Binary/Fox.glb", a, sizeof a)) {
        sft_skip("Fox not staged");
        return;
    }
    double three[8], babylon[8], skinned[8], skinned2[8];
    int clips = 0, clips2 = 0;
    engine_means(a, "three.js", three, skinned, &clips);
    CHECK(clips == 3);
    engine_means(a, "babylon.js", babylon, skinned2, &clips2);
    CHECK(clips2 == clips);
    for (int c = 0; c < clips; ++c) {
        CHECK(three[c] >= 0.0 && skinned[c] > 0.0);
        CHECK(three[c] < skinned[c]);
        CHECK_NEAR(babylon[c], three[c], 1e-9);
    }
}

static void test_unknown_engine(void)
{
    char a[1024], args[1200];
    CHECK(sft_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", a, sizeof a));
    snprintf(args, sizeof args, "eval '%s' --engine quake", a);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 2);
    CHECK(strstr(r.err, "quake") && strstr(r.err, "three.js") && strstr(r.err, "filament") && strstr(r.err, "bevy"));
    CHECK(strchr(r.err, '\n') == r.err + strlen(r.err) - 1); /* one line */
    CHECK(r.out[0] == '\0');
    sft_cli_out_free(&r);
    snprintf(args, sizeof args, "eval '%s' --max-morph-targets 0", a);
    r = sft_run_cli(args);
    CHECK(r.status == 2 && strstr(r.err, "--max-morph-targets"));
    sft_cli_out_free(&r);
}

static void test_engine_all(void)
{
    char a[1024], args[1200];
    CHECK(sft_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", a, sizeof a));
    snprintf(args, sizeof args, "eval '%s' --engine all --fps 5", a);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 0);
    static const char* const rows[] = {"\n  three.js ", "\n  Babylon.js ", "\n  Godot 4 ", "\n  Bevy ",
                                       "\n  Filament ", "\n  Unity "};
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; ++k) CHECK(strstr(r.out, rows[k]) != NULL);
    const char* bevy = strstr(r.out, "\n  Bevy ");
    const char* bevy_method = bevy ? strstr(bevy, "inverse-transpose") : NULL;
    CHECK(bevy_method && bevy_method - bevy < 40);
    CHECK(strstr(r.out, "best method for this asset per cost level") != NULL);
    /* each level's best among its own methods: jacobian-fan needs its precomputed fan, so it is not "per vertex" */
    CHECK(strstr(r.out, "per vertex (no neighbours)           inverse-transpose") != NULL);
    CHECK(strstr(r.out, "per vertex + precomputed gradients   jacobian-fan") != NULL);
    sft_cli_out_free(&r);
    /* The JSON has the same rows: the engine's normal error equals its method's in the full table (CesiumMan
     * has 4 influences and no morph targets: nothing is truncated). */
    snprintf(args, sizeof args, "eval '%s' --engine bevy --fps 5 --json", a);
    r = sft_run_cli(args);
    CHECK(r.status == 0);
    cJSON* root = cJSON_Parse(r.out);
    CHECK(root != NULL);
    cJSON* anim = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "animations"), 0);
    cJSON* variants = cJSON_GetObjectItem(anim, "variants");
    cJSON* v = cJSON_GetArrayItem(variants, 0);
    CHECK(v && strcmp(cJSON_GetObjectItem(v, "engine")->valuestring, "bevy") == 0);
    CHECK(cJSON_GetArraySize(variants) == 1);
    double engine_mean = cJSON_GetObjectItem(cJSON_GetObjectItem(v, "normal"), "mean")->valuedouble;
    double method_mean = -1;
    cJSON* m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItem(anim, "methods"))
    {
        if (strcmp(cJSON_GetObjectItem(m, "method")->valuestring, "inverse-transpose") == 0)
            method_mean = cJSON_GetObjectItem(cJSON_GetObjectItem(m, "normal"), "mean")->valuedouble;
    }
    CHECK(engine_mean == method_mean);
    CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(v, "position"), "max")->valuedouble == 0.0);
    cJSON_Delete(root);
    sft_cli_out_free(&r);
}

static void test_truncation_cost(void)
{
    char path[700], args[1200];
    snprintf(path, sizeof path, "%s/eight.glb", g_dir);
    CHECK(write_eight_influences(path));
    /* Every vertex has 8 influences: all 3 over 4, none over 8; keeping 4 is measured. */
    snprintf(args, sizeof args, "eval '%s'", path);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "influences: 3 of 3 vertices per frame have more than 4, 0 more than 8") != NULL);
    CHECK(strstr(r.out, "\n  4 influences     recompute") != NULL);
    CHECK(strstr(r.out, "8 influences") == NULL);
    sft_cli_out_free(&r);
    /* Kept to 2: (0.3, 0.2) -> (0.6, 0.4), the vertex moves by 0.4 instead of sum_j j w_j = 2.04. */
    double full = 0.0;
    for (int j = 0; j < 8; ++j) full += j * (double)W8[j];
    snprintf(args, sizeof args, "eval '%s' --max-influences 2 --json", path);
    r = sft_run_cli(args);
    CHECK(r.status == 0);
    cJSON* root = cJSON_Parse(r.out);
    CHECK(root != NULL);
    CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "influences"), "over_4")->valuedouble == 3);
    cJSON* anim = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "animations"), 0);
    cJSON* v;
    int seen = 0;
    cJSON_ArrayForEach(v, cJSON_GetObjectItem(anim, "variants"))
    {
        if (strcmp(cJSON_GetObjectItem(v, "label")->valuestring, "2 infl") != 0) continue;
        seen++;
        CHECK(cJSON_GetObjectItem(v, "truncated_vertices")->valuedouble == 3);
        cJSON* p = cJSON_GetObjectItem(v, "position");
        CHECK_NEAR(cJSON_GetObjectItem(p, "max")->valuedouble, full - 0.4, 1e-5);
        CHECK_NEAR(cJSON_GetObjectItem(p, "mean")->valuedouble, full - 0.4, 1e-5);
        /* a rigid translation turns no direction */
        CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(v, "normal"), "max")->valuedouble < 1e-3);
    }
    CHECK(seen == SF_METHOD_DEFAULT_COUNT); /* every method so deformed */
    cJSON_Delete(root);
    sft_cli_out_free(&r);
    remove(path);
}

int main(int argc, char** argv)
{
    char probe[1024];
    if (!getenv("SF_CLI") || !sft_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", probe, sizeof probe)) {
        fprintf(stderr, "SF_CLI or SF_ASSETS not set: skipped\n");
        return 77;
    }
    const char* build = getenv("SF_BUILD_DIR");
    snprintf(g_dir, sizeof g_dir, "%s/test_engines_cli.XXXXXX", build ? build : "/tmp");
    if (!mkdtemp(g_dir)) return 1;
    static const sft_case cases[] = {
        {"unknown_engine", test_unknown_engine},
        {"engine_all", test_engine_all},
        {"truncation_cost", test_truncation_cost},
        {"first_set", test_first_set},
        {"flat_faces", test_flat_faces},
    };
    int status = SFT_RUN(cases, argc, argv);
    rmdir(g_dir);
    return status;
}

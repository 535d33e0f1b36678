// LABELS: cli
/* The glTF commands run as a program ($SF_CLI): info counts, eval tables/JSON/CSV/--strict, one-line errors
 * naming the JSON path (exit 1) and bad usage (exit 2), and the bake round trip (bake, read back, compare
 * with the library's own frames), which never overwrites its input. */
#define _POSIX_C_SOURCE 200809L
#include "sf_test.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char* g_cli;
static char g_dir[512];

static size_t count_lines(const char* s)
{
    size_t n = 0;
    for (; *s; ++s) n += *s == '\n';
    return n;
}

static const char* asset(const char* rel, char* buf, size_t size) { return sft_asset(rel, buf, size); }

static void test_info(void)
{
    char a[1024], args[1200];
    CHECK(asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", a, sizeof a));
    snprintf(args, sizeof args, "info '%s'", a);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "primitive 0: 3273 vertices, 4672 triangles") != NULL);
    CHECK(strstr(r.out, "19 joints") != NULL);
    CHECK(strstr(r.out, "UV seams: 260 of 2338 positions; hard edges: 0 positions") != NULL);
    CHECK(strstr(r.out, "tangents: generated (mikktspace)") != NULL); /* glTF's recommendation */
    CHECK(strstr(r.out, "1:458 2:1678 3:717 4:420") != NULL);
    CHECK(strstr(r.out, "57 channels: LINEAR 57") != NULL);
    sft_cli_out_free(&r);
    snprintf(args, sizeof args, "info '%s' --tangents uv", a);
    r = sft_run_cli(args);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "tangents: generated (uv)") != NULL);
    sft_cli_out_free(&r);

    CHECK(asset("gltf/Fox/glTF-Binary/Fox.glb", a, sizeof a));
    snprintf(args, sizeof args, "info '%s'", a);
    r = sft_run_cli(args);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "primitive 0: 1728 vertices, 576 triangles") != NULL);
    CHECK(strstr(r.out, "flat normals generated") != NULL);
    CHECK(strstr(r.out, "animation 0 'Survey': 3.417 s") != NULL);
    CHECK(strstr(r.out, "animation 2 'Run': 1.158 s") != NULL);
    CHECK(strstr(r.out, "UV seams: 118 of 290 positions") != NULL);
    sft_cli_out_free(&r);

    CHECK(asset("gltf/AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf", a, sizeof a));
    snprintf(args, sizeof args, "info '%s'", a);
    r = sft_run_cli(args);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "extensions required: KHR_mesh_quantization") != NULL);
    CHECK(strstr(r.out, "NORMAL:VEC3/i8n") != NULL);
    CHECK(strstr(r.out, "morph targets: 2 with POSITION NORMAL deltas") != NULL);
    CHECK(strstr(r.out, "hard edges: 8 positions") != NULL);
    sft_cli_out_free(&r);

    CHECK(asset("gltf/InterpolationTest/glTF-Binary/InterpolationTest.glb", a, sizeof a));
    snprintf(args, sizeof args, "info '%s'", a);
    r = sft_run_cli(args);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "totals: 220 vertices, 110 triangles") != NULL);
    CHECK(strstr(r.out, "CUBICSPLINE 1") != NULL && strstr(r.out, "STEP 1") != NULL);
    sft_cli_out_free(&r);
}

static void test_eval(void)
{
    char a[1024], args[2400], csv[700];
    CHECK(asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", a, sizeof a));
    snprintf(csv, sizeof csv, "%s/frames.csv", g_dir);
    snprintf(args, sizeof args, "eval '%s' --fps 5 --csv '%s'", a, csv);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 0);
    CHECK(r.err[0] == '\0'); /* no progress bar in a pipe */
    CHECK(strstr(r.out, "reference: recompute (weighting area, weld position-normal, tangents mikktspace, directions rebuilt)") != NULL);
    CHECK(strstr(r.out, "11 frames at 5 fps") != NULL);
    CHECK(strstr(r.out, "  unchanged ") != NULL && strstr(r.out, "  skinned ") != NULL);
    CHECK(strstr(r.out, "data problems") != NULL);
    sft_cli_out_free(&r);
    char* rows = sft_read_file(csv, NULL);
    CHECK(rows != NULL);
    CHECK(strncmp(rows, "animation,frame,time_s,method,", 30) == 0);
    size_t skinned_rows = 0;
    for (const char* p = rows; (p = strstr(p, ",skinned,")) != NULL; ++p) skinned_rows++;
    CHECK(skinned_rows == 11); /* one row per frame and method */
    free(rows);

    /* JSON: per method, the recompute row is the reference itself; skinned is exact on a rigid mesh. */
    CHECK(asset("gltf/InterpolationTest/glTF-Binary/InterpolationTest.glb", a, sizeof a));
    snprintf(args, sizeof args, "eval '%s' --animation 'Linear Rotation' --fps 10 --json --weld none", a);
    r = sft_run_cli(args);
    CHECK(r.status == 0);
    cJSON* root = cJSON_Parse(r.out);
    sft_cli_out_free(&r);
    CHECK(root != NULL);
    cJSON* anims = cJSON_GetObjectItem(root, "animations");
    CHECK(cJSON_GetArraySize(anims) == 1);
    cJSON* methods = cJSON_GetObjectItem(cJSON_GetArrayItem(anims, 0), "methods");
    int seen = 0;
    for (cJSON* m = methods ? methods->child : NULL; m; m = m->next) {
        const char* name = cJSON_GetObjectItem(m, "method")->valuestring;
        cJSON* n = cJSON_GetObjectItem(m, "normal");
        if (!n) continue;
        double max = cJSON_GetObjectItem(n, "max")->valuedouble;
        if (strcmp(name, "recompute") == 0 || strcmp(name, "skinned") == 0 || strcmp(name, "inverse-transpose") == 0) {
            CHECK(max < 1e-3);
            seen++;
        }
        if (strcmp(name, "unchanged") == 0) CHECK(max > 10.0); /* the cube turns; its rest normals do not */
    }
    CHECK(seen == 3);
    cJSON* ref = cJSON_GetObjectItem(root, "reference");
    CHECK(ref && strcmp(cJSON_GetObjectItem(ref, "weighting")->valuestring, "area") == 0);
    CHECK(strcmp(cJSON_GetObjectItem(ref, "weld")->valuestring, "none") == 0);          /* as asked */
    CHECK(strcmp(cJSON_GetObjectItem(ref, "tangents")->valuestring, "mikktspace") == 0); /* the default */
    cJSON_Delete(root);

    /* Data problems: AnimatedMorphCube's target 0 moves vertices with all-zero NORMAL deltas. */
    CHECK(asset("gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb", a, sizeof a));
    snprintf(args, sizeof args, "eval '%s' --fps 2", a);
    r = sft_run_cli(args);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "morph-normals-zero") != NULL);
    sft_cli_out_free(&r);
    snprintf(args, sizeof args, "eval '%s' --fps 2 --strict", a);
    r = sft_run_cli(args);
    CHECK(r.status == 1);
    CHECK(strstr(r.err, "--strict") != NULL && count_lines(r.err) == 1);
    sft_cli_out_free(&r);
    CHECK(asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf", a, sizeof a));
    snprintf(args, sizeof args, "eval '%s' --fps 2 --strict", a);
    r = sft_run_cli(args);
    CHECK(r.status == 0);
    sft_cli_out_free(&r);
}

/* A file name with a newline in it still gives one error line: the name is printed without the newline. */
static void test_error_name_one_line(void)
{
    char path[700], args[1600];
    snprintf(path, sizeof path, "%s/bad\nname.glb", g_dir);
    FILE* f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("not a glb", f);
    fclose(f);
    snprintf(args, sizeof args, "info '%s'", path);
    sft_cli_out r = sft_run_cli(args);
    int ok = r.status == 1 && count_lines(r.err) == 1 && strstr(r.err, "name.glb") != NULL;
    if (!ok) sft_failf(__FILE__, __LINE__, "exit %d, stderr '%s'", r.status, r.err);
    sft_cli_out_free(&r);
    remove(path);
    CHECK(ok);
}

static void test_errors(void)
{
    char path[700], args[1600];
    /* A malformed file: one line naming the JSON path, exit 1. */
    snprintf(path, sizeof path, "%s/bad.gltf", g_dir);
    FILE* f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":\"data:;base64,AAAAAA==\"}],"
          "\"bufferViews\":[{\"buffer\":0,\"byteLength\":4}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,"
          "\"count\":7,\"type\":\"VEC3\"}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}]}",
          f);
    fclose(f);
    const char* cmds[] = {"info", "eval", "bake"};
    for (int k = 0; k < 3; ++k) {
        snprintf(args, sizeof args, "%s '%s'%s", cmds[k], path, k == 2 ? " --time 0 --method skinned -o /tmp/x.glb" : "");
        sft_cli_out r = sft_run_cli(args);
        CHECK(r.status == 1);
        CHECK(count_lines(r.err) == 1);
        CHECK(strstr(r.err, "accessors[0].count") != NULL);
        sft_cli_out_free(&r);
    }
    snprintf(args, sizeof args, "eval '%s/does-not-exist.glb'", g_dir);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 1 && count_lines(r.err) == 1);
    sft_cli_out_free(&r);
    /* Bad usage: exit 2. */
    char a[1024];
    CHECK(asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf", a, sizeof a));
    const char* bad[] = {"--fps abc", "--animation nope", "--bogus", "--scene tip", "--method nope"};
    for (int k = 0; k < 5; ++k) {
        snprintf(args, sizeof args, "eval '%s' %s", a, bad[k]);
        r = sft_run_cli(args);
        CHECK(r.status == 2);
        CHECK(count_lines(r.err) == 1);
        sft_cli_out_free(&r);
    }
    r = sft_run_cli("info");
    CHECK(r.status == 2);
    sft_cli_out_free(&r);
    snprintf(args, sizeof args, "bake '%s' --method skinned -o '%s/o.glb'", a, g_dir); /* no --time */
    r = sft_run_cli(args);
    CHECK(r.status == 2);
    sft_cli_out_free(&r);
}


static void test_eval_every_asset(void)
{
    /* Done when eval runs over every staged asset's animations: each one, at a low frame rate. */
    static const char* const files[] = {
        "gltf/SimpleSkin/glTF/SimpleSkin.gltf",
        "gltf/CesiumMan/glTF-Binary/CesiumMan.glb",
        "gltf/Fox/glTF-Binary/Fox.glb",
        "gltf/SimpleMorph/glTF/SimpleMorph.gltf",
        "gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb",
        "gltf/AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf",
        "gltf/MorphStressTest/glTF-Binary/MorphStressTest.glb",
        "gltf/SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf",
        "gltf/InterpolationTest/glTF-Binary/InterpolationTest.glb",
        "gltf/NormalTangentMirrorTest/glTF-Binary/NormalTangentMirrorTest.glb",
        "gltf/NormalTangentTest/glTF-Binary/NormalTangentTest.glb",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) {
        char a[1024], args[1200];
        CHECK(asset(files[i], a, sizeof a));
        snprintf(args, sizeof args, "eval '%s' --fps 2 --json", a);
        sft_cli_out r = sft_run_cli(args);
        if (r.status != 0) fprintf(stderr, "  %s: %s", files[i], r.err);
        CHECK(r.status == 0);
        cJSON* root = cJSON_Parse(r.out);
        sft_cli_out_free(&r);
        CHECK(root != NULL);
        int anims = cJSON_GetArraySize(cJSON_GetObjectItem(root, "animations"));
        cJSON_Delete(root);
        CHECK(anims >= 1);
    }
}

/* The normal mean of the first method row of `eval ... --json`, or -1. */
static double eval_normal_mean(const char* args)
{
    sft_cli_out r = sft_run_cli(args);
    cJSON* root = r.status == 0 ? cJSON_Parse(r.out) : NULL;
    sft_cli_out_free(&r);
    cJSON* anim = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "animations"), 0);
    cJSON* method = cJSON_GetArrayItem(cJSON_GetObjectItem(anim, "methods"), 0);
    cJSON* mean = cJSON_GetObjectItem(cJSON_GetObjectItem(method, "normal"), "mean");
    double v = cJSON_IsNumber(mean) ? mean->valuedouble : -1.0;
    cJSON_Delete(root);
    return v;
}

/* A one-triangle file whose node moves along x from t = 0 to t = end under an animation called name. */
static int write_moving_triangle(const char* path, const char* name, float end)
{
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const float times[2] = {0, end};
    const float values[6] = {0, 0, 0, 1, 0, 0};
    sf_gltf_write_mesh wm;
    memset(&wm, 0, sizeof wm);
    wm.mesh.vertex_count = 3;
    wm.mesh.triangle_count = 1;
    wm.mesh.positions.data = pos;
    sf_gltf_write_node node;
    memset(&node, 0, sizeof node);
    node.parent = node.skin = SF_GLTF_NONE;
    node.mesh = 0;
    sf_gltf_channel ch;
    memset(&ch, 0, sizeof ch);
    ch.path = SF_GLTF_TRANSLATION;
    ch.key_count = 2;
    ch.times = times;
    ch.values = values;
    ch.components = 3;
    sf_gltf_write_animation anim = {name, &ch, 1};
    sf_gltf_write_desc d;
    memset(&d, 0, sizeof d);
    d.meshes = &wm;
    d.mesh_count = 1;
    d.nodes = &node;
    d.node_count = 1;
    d.animations = &anim;
    d.animation_count = 1;
    return sf_gltf_save_glb(&d, path, NULL, NULL, NULL) == SF_OK;
}

static void test_eval_options_and_limits(void)
{
    char a[1024], args[2400], path[700], csv[700];
    /* --jacobian-cap reaches the jacobian row (it was accepted and then dropped). */
    CHECK(asset("gltf/Fox/glTF-Binary/Fox.glb", a, sizeof a));
    snprintf(args, sizeof args, "eval '%s' --animation 0 --fps 5 --method jacobian --json", a);
    double plain = eval_normal_mean(args);
    snprintf(args, sizeof args, "eval '%s' --animation 0 --fps 5 --method jacobian --json --jacobian-cap 0.1", a);
    double capped = eval_normal_mean(args);
    CHECK(plain > 0.0 && capped > 0.0);
    CHECK(fabs(plain - capped) > 1e-3);
    /* ... and bake's. */
    char out1[700], out2[700];
    snprintf(out1, sizeof out1, "%s/jac.glb", g_dir);
    snprintf(out2, sizeof out2, "%s/jac_capped.glb", g_dir);
    snprintf(args, sizeof args, "bake '%s' --time 1.2 --method jacobian -o '%s'", a, out1);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 0);
    sft_cli_out_free(&r);
    snprintf(args, sizeof args, "bake '%s' --time 1.2 --method jacobian --jacobian-cap 0.1 -o '%s'", a, out2);
    r = sft_run_cli(args);
    CHECK(r.status == 0);
    sft_cli_out_free(&r);
    size_t size1, size2;
    char* b1 = sft_read_file(out1, &size1);
    char* b2 = sft_read_file(out2, &size2);
    CHECK(b1 && b2 && size1 == size2);
    CHECK(memcmp(b1, b2, size1) != 0);
    free(b1);
    free(b2);
    remove(out1);
    remove(out2);
    /* An animation name with a quote stays one CSV field. */
    snprintf(path, sizeof path, "%s/quoted.glb", g_dir);
    snprintf(csv, sizeof csv, "%s/quoted.csv", g_dir);
    CHECK(write_moving_triangle(path, "say \"hi\"", 1.0f));
    snprintf(args, sizeof args, "eval '%s' --fps 2 --method skinned --csv '%s'", path, csv);
    r = sft_run_cli(args);
    CHECK(r.status == 0);
    sft_cli_out_free(&r);
    char* rows = sft_read_file(csv, NULL);
    CHECK(rows != NULL && strstr(rows, "\n\"say \"\"hi\"\"\",0,0.000000,skinned,") != NULL);
    free(rows);
    /* An animation too long to play (the frame count is checked before it becomes an integer). */
    CHECK(write_moving_triangle(path, "long", 1e30f));
    snprintf(args, sizeof args, "eval '%s'", path);
    r = sft_run_cli(args);
    CHECK(r.status == 1 && count_lines(r.err) == 1);
    CHECK(strstr(r.err, "frames") != NULL && strstr(r.err, "--max-frames") != NULL); /* names the way out */
    sft_cli_out_free(&r);
    remove(path);
    remove(csv);
}

/* Poses instance 0 of file at (animation 0, t) and computes method's frames with the library. */
static int library_frames(const char* file, double t, sf_method method, float** pos, float** nrm, float** tan,
                          size_t* n)
{
    sf_gltf* g;
    sf_gltf_pose* pose;
    sf_mesh_desc m;
    sf_gltf_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.generated_tangents = SF_TANGENTS_MIKKTSPACE; /* as bake loads it */
    if (sf_gltf_load_file(file, &opts, NULL, &g, NULL) != SF_OK) return 0;
    if (sf_gltf_pose_create(g, NULL, &pose, NULL) != SF_OK) return 0;
    size_t bones_n = g->instances[0].bone_count;
    float* bones = malloc(12 * bones_n * sizeof(float));
    float w[64];
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    int ok = sf_gltf_pose_sample(pose, 0, t, NULL) == SF_OK &&
             sf_gltf_pose_instance(pose, 0, bones, w, NULL, NULL) == SF_OK &&
             sf_gltf_instance_mesh(g, 0, g->meshes[g->instances[0].mesh].first_primitive, &m, NULL) == SF_OK &&
             sf_topology_create(&m, NULL, NULL, &topo, NULL) == SF_OK && sf_workspace_create(topo, NULL, &ws, NULL) == SF_OK;
    if (ok) {
        *n = m.vertex_count;
        *pos = malloc(3 * m.vertex_count * sizeof(float));
        *nrm = malloc(3 * m.vertex_count * sizeof(float));
        *tan = malloc(4 * m.vertex_count * sizeof(float));
        sf_frames_out out = {*pos, *nrm, *tan};
        sf_pose p = {bones, bones_n, w, m.target_count};
        ok = sf_frames_compute(topo, &p, method, NULL, ws, &out, NULL) == SF_OK;
    }
    free(bones);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    sf_gltf_pose_destroy(pose);
    sf_gltf_destroy(g);
    return ok;
}

static void test_bake_roundtrip(void)
{
    char a[1024], out[700], args[2000];
    CHECK(asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", a, sizeof a));
    snprintf(out, sizeof out, "%s/baked.glb", g_dir);
    snprintf(args, sizeof args, "bake '%s' --time 1.25 --method skinned -o '%s' --error-colors", a, out);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 0);
    sft_cli_out_free(&r);
    float *pos = NULL, *nrm = NULL, *tan = NULL;
    size_t n = 0;
    CHECK(library_frames(a, 1.25, SF_METHOD_SKINNED, &pos, &nrm, &tan, &n));
    sf_gltf* g;
    sf_error err;
    sf_result res = sf_gltf_load_file(out, NULL, NULL, &g, &err);
    if (res != SF_OK) fprintf(stderr, "  %s\n", err.message);
    CHECK(res == SF_OK);
    const sf_gltf_primitive* pr = &g->primitives[0];
    CHECK(pr->mesh.vertex_count == n && pr->mesh.triangle_count == 4672);
    CHECK(pr->color_sets == 1 && pr->tangents == SF_GLTF_TANGENTS_SUPPLIED);
    double dp = 0, dn = 0, dt = 0;
    for (size_t i = 0; i < 3 * n; ++i) {
        dp = fmax(dp, fabs(pr->mesh.positions.data[i] - pos[i]));
        dn = fmax(dn, fabs(pr->mesh.normals.data[i] - nrm[i]));
    }
    for (size_t i = 0; i < 4 * n; ++i) dt = fmax(dt, fabs(pr->mesh.tangents.data[i] - tan[i]));
    CHECK(dp == 0.0 && dn == 0.0 && dt == 0.0); /* floats survive the JSON-free binary round trip exactly */
    /* The skinned mesh node's world transform travels on the baked node. */
    CHECK(g->nodes[0].has_matrix == 1);
    sf_gltf_destroy(g);
    free(pos);
    free(nrm);
    free(tan);

    /* Never over the input, even through another name for the same file. */
    char copy[700];
    snprintf(copy, sizeof copy, "%s/input.glb", g_dir);
    size_t size;
    char* bytes = sft_read_file(a, &size);
    CHECK(bytes != NULL);
    FILE* f = fopen(copy, "wb");
    CHECK(f != NULL);
    fwrite(bytes, 1, size, f);
    fclose(f);
    snprintf(args, sizeof args, "bake '%s' --time 0 --method skinned -o '%s/../%s/input.glb'", copy, g_dir,
             strrchr(g_dir, '/') + 1);
    r = sft_run_cli(args);
    CHECK(r.status == 2 && count_lines(r.err) == 1 && strstr(r.err, "is an input of this command"));
    sft_cli_out_free(&r);
    size_t size2;
    char* after = sft_read_file(copy, &size2);
    CHECK(after && size2 == size && memcmp(after, bytes, size) == 0);
    free(after);
    free(bytes);
    remove(copy);
}

/* ---------------------------------------------------------------- one rule for every command */

static bool write_text_file(const char* path, const char* text)
{
    FILE* f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

/* Runs args; true when it exits with `status` and one stderr line holding every non-NULL `want`. */
static bool fails_with(const char* args, int status, const char* want, const char* want2)
{
    sft_cli_out r = sft_run_cli(args);
    bool ok = r.status == status && count_lines(r.err) == 1 && (!want || strstr(r.err, want)) &&
              (!want2 || strstr(r.err, want2));
    if (!ok) fprintf(stderr, "  `skinframe %s`: exit %d, stderr: %s", args, r.status, r.err);
    sft_cli_out_free(&r);
    return ok;
}

static void test_texcoord_must_exist(void)
{
    char a[1024], args[2000];
    CHECK(asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", a, sizeof a));
    snprintf(args, sizeof args, "eval '%s' --fps 2 --texcoord 1", a);
    CHECK(fails_with(args, 1, "meshes[0].primitives[0]", "only TEXCOORD_0"));
    snprintf(args, sizeof args, "bake '%s' --time 0 --method skinned --texcoord 2 -o '%s/t.glb'", a, g_dir);
    CHECK(fails_with(args, 1, "--texcoord 2", "only TEXCOORD_0"));
    CHECK(asset("gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb", a, sizeof a));
    snprintf(args, sizeof args, "info '%s' --texcoord 0", a);
    CHECK(fails_with(args, 1, "meshes[0].primitives[0]", "no TEXCOORD set"));
    /* The set that is there still works when named. */
    CHECK(asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", a, sizeof a));
    snprintf(args, sizeof args, "info '%s' --texcoord 0", a);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 0 && strstr(r.out, "from TEXCOORD_0"));
    sft_cli_out_free(&r);
}

static void test_tangents_without_uvs(void)
{
    char a[1024], args[2000];
    CHECK(asset("gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb", a, sizeof a));
    snprintf(args, sizeof args, "info '%s'", a);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "TANGENT:VEC4") != NULL && strstr(r.out, "from TEXCOORD_0") == NULL); /* it has none */
    CHECK(strstr(r.out, "tangents: supplied (TANGENT), unused: no TEXCOORD_0") != NULL);
    sft_cli_out_free(&r);
    /* bake leaves them out (no UVs, no tangent frame) and says so. */
    char out[800];
    snprintf(out, sizeof out, "%s/cube-posed.glb", g_dir);
    snprintf(args, sizeof args, "bake '%s' --time 0.5 --method skinned -o '%s'", a, out);
    r = sft_run_cli(args);
    CHECK(r.status == 0 && strstr(r.err, "TANGENTs are not baked") && strstr(r.err, "meshes[0].primitives[0]"));
    sft_cli_out_free(&r);
    sf_gltf* g;
    CHECK_OK(sf_gltf_load_file(out, NULL, NULL, &g, NULL));
    bool none = g->primitives[0].tangents == SF_GLTF_TANGENTS_NONE;
    sf_gltf_destroy(g);
    CHECK(none);
    /* A file with UVs gets no such note. */
    CHECK(asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", a, sizeof a));
    snprintf(args, sizeof args, "bake '%s' --time 0.5 --method skinned -o '%s'", a, out);
    r = sft_run_cli(args);
    CHECK(r.status == 0 && r.err[0] == '\0');
    sft_cli_out_free(&r);
}

/* A skinned quad without NORMAL (split per corner for flat normals: 6 vertices from the file's 4) whose file
 * vertices 0, 1 and 2 have weights summing to 0.5; one joint turned by an animation whose name is not
 * valid UTF-8. Written to path; true on success. */
static bool write_split_quad(const char* path)
{
    static const float pos[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    static const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    static const uint32_t joints[16] = {0};
    static const float weights[16] = {0.5f, 0, 0, 0, 0.5f, 0, 0, 0, 0.5f, 0, 0, 0, 1, 0, 0, 0};
    sf_gltf_write_mesh wm;
    memset(&wm, 0, sizeof wm);
    wm.mesh.vertex_count = 4;
    wm.mesh.triangle_count = 2;
    wm.mesh.indices = idx;
    wm.mesh.positions.data = pos;
    wm.mesh.influence_count = 4;
    wm.mesh.joints = joints;
    wm.mesh.weights = weights;
    sf_gltf_write_node nodes[2];
    memset(nodes, 0, sizeof nodes);
    nodes[0].name = "quad";
    nodes[0].parent = SF_GLTF_NONE;
    nodes[0].mesh = 0;
    nodes[0].skin = 0;
    nodes[1].name = "joint";
    nodes[1].parent = SF_GLTF_NONE;
    nodes[1].mesh = SF_GLTF_NONE;
    nodes[1].skin = SF_GLTF_NONE;
    const size_t skin_joints[1] = {1};
    sf_gltf_write_skin skin = {1, skin_joints, NULL};
    static const float times[2] = {0, 1};
    static const float rot[8] = {0, 0, 0, 1, 0, 0, 0.38268343f, 0.92387953f};
    sf_gltf_channel ch;
    memset(&ch, 0, sizeof ch);
    ch.node = 1;
    ch.path = SF_GLTF_ROTATION;
    ch.interpolation = SF_GLTF_LINEAR;
    ch.key_count = 2;
    ch.times = times;
    ch.values = rot;
    ch.components = 4;
    sf_gltf_write_animation anim = {"turn\xff\xc3(", &ch, 1};
    sf_gltf_write_desc d;
    memset(&d, 0, sizeof d);
    d.meshes = &wm;
    d.mesh_count = 1;
    d.nodes = nodes;
    d.node_count = 2;
    d.skins = &skin;
    d.skin_count = 1;
    d.animations = &anim;
    d.animation_count = 1;
    void* data = NULL;
    size_t size = 0;
    sf_error err;
    if (sf_gltf_write_glb(&d, NULL, &data, &size, &err) != SF_OK) {
        fprintf(stderr, "  write: %s\n", err.message);
        return false;
    }
    FILE* f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f) != 0) ok = false;
    sf_gltf_free_bytes(NULL, data, size);
    return ok;
}

static void test_problems_in_file_numbering(void)
{
    char path[800], args[2000];
    snprintf(path, sizeof path, "%s/split-quad.glb", g_dir);
    CHECK(write_split_quad(path));
    snprintf(args, sizeof args, "info '%s'", path);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "6 vertices after splitting per face") != NULL); /* the split is there */
    const char* line = strstr(r.out, "weights-not-one");
    CHECK(line != NULL);
    size_t count = 0, worst = 99;
    CHECK(sscanf(line, "weights-not-one %zu (worst: #%zu", &count, &worst) == 2);
    CHECK(count == 3 && worst <= 2);             /* file vertices 0, 1, 2 (the split has 5 copies of them) */
    CHECK(strstr(r.out, "vertices by count: 1:4\n") != NULL); /* the file's 4 vertices, 1 weight each */
    sft_cli_out_free(&r);
    snprintf(args, sizeof args, "eval '%s' --fps 4 --json", path);
    r = sft_run_cli(args);
    CHECK(r.status == 0);
    cJSON* root = cJSON_Parse(r.out);
    sft_cli_out_free(&r);
    CHECK(root != NULL);
    double n = -1, idx = -1;
    const cJSON* p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(root, "data_problems"))
    {
        if (strcmp(cJSON_GetObjectItem(p, "cause")->valuestring, "weights-not-one") != 0) continue;
        n = cJSON_GetObjectItem(p, "count")->valuedouble;
        idx = cJSON_GetObjectItem(p, "worst_index")->valuedouble;
    }
    cJSON_Delete(root);
    CHECK(n == 3 && idx >= 0 && idx <= 2);
}

/* 1 when s is valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF). */
static bool valid_utf8(const unsigned char* s)
{
    while (*s) {
        unsigned c = *s;
        size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (!n) return false;
        uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
        for (size_t k = 1; k < n; ++k) {
            if ((s[k] & 0xC0) != 0x80) return false;
            cp = cp << 6 | (s[k] & 0x3F);
        }
        static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < least[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        s += n;
    }
    return true;
}

static void test_json_is_valid_utf8(void)
{
    char path[800], args[2000];
    /* Both the animation's name and the file's name hold bytes that are not UTF-8. */
    snprintf(path, sizeof path, "%s/odd-\xfe\xc3.glb", g_dir);
    CHECK(write_split_quad(path));
    snprintf(args, sizeof args, "eval '%s' --fps 4 --json", path);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 0);
    CHECK(valid_utf8((const unsigned char*)r.out));
    cJSON* root = cJSON_Parse(r.out);
    sft_cli_out_free(&r);
    CHECK(root != NULL);
    const cJSON* a = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "animations"), 0);
    const char* name = cJSON_GetStringValue(cJSON_GetObjectItem(a, "name"));
    bool replaced = name && strncmp(name, "turn", 4) == 0 && strstr(name, "\xef\xbf\xbd") && strchr(name, '(');
    cJSON_Delete(root);
    CHECK(replaced); /* each bad byte became U+FFFD; the rest is kept */
    remove(path);
}

static void test_nothing_to_evaluate(void)
{
    char path[800], args[2000];
    static const char* const mesh =
        "\"buffers\":[{\"byteLength\":36,\"uri\":\"data:application/octet-stream;base64,"
        "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,"
        "\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0}]";
    char text[2000];
    /* A scene that draws nothing (its node list is empty) while the file has a mesh. */
    snprintf(path, sizeof path, "%s/empty-scene.gltf", g_dir);
    snprintf(text, sizeof text, "{\"asset\":{\"version\":\"2.0\"},%s,\"scenes\":[{\"nodes\":[]}],\"scene\":0}", mesh);
    CHECK(write_text_file(path, text));
    snprintf(args, sizeof args, "eval '%s' --strict", path);
    CHECK(fails_with(args, 1, "nothing to evaluate", "scenes[0] draws no mesh"));
    snprintf(args, sizeof args, "bake '%s' --time 0 --method skinned -o '%s/empty.glb'", path, g_dir);
    CHECK(fails_with(args, 1, "nothing to evaluate", NULL));
    snprintf(args, sizeof args, "%s/empty.glb", g_dir);
    struct stat st;
    CHECK(stat(args, &st) != 0);
    snprintf(args, sizeof args, "render --gltf '%s' --method skinned -o '%s/empty.png'", path, g_dir);
    CHECK(fails_with(args, 1, "nothing to evaluate", NULL));
    /* A scene that is not an object is malformed, not empty. */
    snprintf(path, sizeof path, "%s/string-scene.gltf", g_dir);
    snprintf(text, sizeof text, "{\"asset\":{\"version\":\"2.0\"},%s,\"scenes\":[\"x\"],\"scene\":0}", mesh);
    CHECK(write_text_file(path, text));
    snprintf(args, sizeof args, "eval '%s' --strict", path);
    CHECK(fails_with(args, 1, "scenes[0]", "not an object"));
    /* The same mesh in a scene that draws it evaluates (the file itself is fine). */
    snprintf(path, sizeof path, "%s/scene.gltf", g_dir);
    snprintf(text, sizeof text, "{\"asset\":{\"version\":\"2.0\"},%s,\"scenes\":[{\"nodes\":[0]}],\"scene\":0}", mesh);
    CHECK(write_text_file(path, text));
    snprintf(args, sizeof args, "eval '%s' --strict", path);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 0);
    sft_cli_out_free(&r);
}

static void test_same_flag_rules(void)
{
    char a[1024], args[2000];
    CHECK(asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf", a, sizeof a));
    /* One time parser: negative or non-finite times are bad usage in bake and render alike. */
    static const char* const times[] = {"-5", "nan", "inf", "1e400", "abc"};
    for (size_t k = 0; k < sizeof times / sizeof times[0]; ++k) {
        snprintf(args, sizeof args, "bake '%s' --time %s --method skinned -o '%s/t.glb'", a, times[k], g_dir);
        CHECK(fails_with(args, 2, "--time", "not a time in seconds"));
        snprintf(args, sizeof args, "render --gltf '%s' --time %s --method skinned -o '%s/t.png'", a, times[k], g_dir);
        CHECK(fails_with(args, 2, "--time", "not a time in seconds"));
    }
    /* An empty output name is bad usage (2), not a failed write. */
    snprintf(args, sizeof args, "bake '%s' --time 0 --method skinned -o ''", a);
    CHECK(fails_with(args, 2, "-o", NULL));
    snprintf(args, sizeof args, "eval '%s' --csv ''", a);
    CHECK(fails_with(args, 2, "--csv", NULL));
    /* --animation: what the message offers is what is accepted. */
    CHECK(asset("gltf/Fox/glTF-Binary/Fox.glb", a, sizeof a));
    snprintf(args, sizeof args, "bake '%s' --time 0 --method skinned --animation Sleep -o '%s/t.glb'", a, g_dir);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 2 && count_lines(r.err) == 1);
    CHECK(strstr(r.err, "Survey") && strstr(r.err, "Run") && !strstr(r.err, "all"));
    sft_cli_out_free(&r);
    snprintf(args, sizeof args, "bake '%s' --time 0 --method skinned --animation all -o '%s/t.glb'", a, g_dir);
    CHECK(fails_with(args, 2, "--animation", "not all"));
    snprintf(args, sizeof args, "bake '%s' --time 0 --method skinned --animation Run -o '%s/t.glb'", a, g_dir);
    r = sft_run_cli(args);
    CHECK(r.status == 0);
    sft_cli_out_free(&r);
    snprintf(args, sizeof args, "eval '%s' --animation Sleep", a);
    r = sft_run_cli(args);
    CHECK(r.status == 2 && strstr(r.err, "or all") != NULL);
    sft_cli_out_free(&r);
    snprintf(args, sizeof args, "eval '%s' --animation all --fps 2 --method skinned", a);
    r = sft_run_cli(args);
    CHECK(r.status == 0);
    sft_cli_out_free(&r);
    /* Repeated flags of the glTF commands. */
    snprintf(args, sizeof args, "eval '%s' --fps 2 --fps 3", a);
    CHECK(fails_with(args, 2, "--fps", "twice"));
    snprintf(args, sizeof args, "bake '%s' --time 0 --time 1 --method skinned -o '%s/t.glb'", a, g_dir);
    CHECK(fails_with(args, 2, "--time", "twice"));
    snprintf(args, sizeof args, "eval '%s' --texcoord 0 --texcoord=0", a);
    CHECK(fails_with(args, 2, "--texcoord", "twice"));
}

static void test_json_nesting_named(void)
{
    char path[800];
    snprintf(path, sizeof path, "%s/deep.gltf", g_dir);
    FILE* f = fopen(path, "wb");
    CHECK(f != NULL);
    fputs("{\"asset\":{\"version\":\"2.0\"},\"extras\":", f);
    for (int k = 0; k < 100000; ++k) fputc('[', f);
    for (int k = 0; k < 100000; ++k) fputc(']', f);
    fputs("}", f);
    fclose(f);
    char args[1200];
    snprintf(args, sizeof args, "info '%s'", path);
    CHECK(fails_with(args, 1, "nested deeper than 1000 levels", NULL));
    /* A plain syntax error is still reported as one. */
    snprintf(path, sizeof path, "%s/broken.gltf", g_dir);
    CHECK(write_text_file(path, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[[[}"));
    snprintf(args, sizeof args, "info '%s'", path);
    CHECK(fails_with(args, 1, "parse error near byte", NULL));
}

int main(int argc, char** argv)
{
    g_cli = getenv("SF_CLI");
    const char* build = getenv("SF_BUILD_DIR");
    char probe[1024];
    if (!g_cli || !sft_asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf", probe, sizeof probe)) {
        fprintf(stderr, "SF_CLI or SF_ASSETS not set: skipped\n");
        return 77;
    }
    snprintf(g_dir, sizeof g_dir, "%s/test_gltf_cli.d", build ? build : "/tmp");
    mkdir(g_dir, 0755);
    static const sft_case cases[] = {
        {"info", test_info},
        {"eval", test_eval},
        {"errors", test_errors},
        {"error_name_one_line", test_error_name_one_line},
        {"eval_every_asset", test_eval_every_asset},
        {"bake_roundtrip", test_bake_roundtrip},
        {"eval_options_and_limits", test_eval_options_and_limits},
        {"texcoord_must_exist", test_texcoord_must_exist},
        {"tangents_without_uvs", test_tangents_without_uvs},
        {"problems_in_file_numbering", test_problems_in_file_numbering},
        {"json_is_valid_utf8", test_json_is_valid_utf8},
        {"nothing_to_evaluate", test_nothing_to_evaluate},
        {"same_flag_rules", test_same_flag_rules},
        {"json_nesting_named", test_json_nesting_named},
    };
    return SFT_RUN(cases, argc, argv);
}

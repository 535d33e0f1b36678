// LABELS: cli
/* eval at scale, run as a program ($SF_CLI): the clip's end is always a frame (once); --max-frames refuses a
 * clip that needs too many frames, naming the flag and the count; memory does not grow with the frames; the
 * same numbers for any thread count; batches over folders and several files (summary rows, JSON lines equal
 * to single-file JSON, failures that name their asset while the others run, exit 1; bad usage exit 2); and
 * "not measured" (no TEXCOORD) is said in text and is null in JSON, never 0. */
#define _POSIX_C_SOURCE 200809L
#include "sf_test.h"
#include "skinframe_eval.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char g_dir[512];

static size_t count_lines(const char* s)
{
    size_t n = 0;
    for (; *s; ++s) n += *s == '\n';
    return n;
}

/* A one-triangle file whose node moves along x from t = 0 to t = end. */
static int write_moving_triangle(const char* path, float end)
{
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const float uv[6] = {0, 0, 1, 0, 0, 1};
    const float times[2] = {0, end};
    const float values[6] = {0, 0, 0, 1, 0, 0};
    sf_gltf_write_mesh wm;
    memset(&wm, 0, sizeof wm);
    wm.mesh.vertex_count = 3;
    wm.mesh.triangle_count = 1;
    wm.mesh.positions.data = pos;
    wm.mesh.uvs.data = uv;
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
    sf_gltf_write_animation anim = {"move", &ch, 1};
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

/* A skinned triangle whose joint, node 1 "Arm" (skins[0].joints[0]), scales to 1e30 in animation "Run" at t = 1. */
static int write_exploding_joint(const char* path)
{
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint32_t joints[12] = {0};
    const float weights[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    const float times[2] = {0, 1};
    const float values[6] = {1, 1, 1, 1e30f, 1e30f, 1e30f};
    sf_gltf_write_mesh wm;
    memset(&wm, 0, sizeof wm);
    wm.mesh.vertex_count = 3;
    wm.mesh.triangle_count = 1;
    wm.mesh.positions.data = pos;
    wm.mesh.influence_count = 4;
    wm.mesh.joints = joints;
    wm.mesh.weights = weights;
    wm.mesh.bone_count = 1;
    sf_gltf_write_node nodes[2];
    memset(nodes, 0, sizeof nodes);
    nodes[0].parent = SF_GLTF_NONE, nodes[0].mesh = 0, nodes[0].skin = 0;
    nodes[1].name = "Arm", nodes[1].parent = SF_GLTF_NONE, nodes[1].mesh = nodes[1].skin = SF_GLTF_NONE;
    size_t joint_nodes[1] = {1};
    sf_gltf_write_skin skin = {1, joint_nodes, NULL};
    sf_gltf_channel ch;
    memset(&ch, 0, sizeof ch);
    ch.node = 1;
    ch.path = SF_GLTF_SCALE;
    ch.key_count = 2;
    ch.times = times;
    ch.values = values;
    ch.components = 3;
    sf_gltf_write_animation anim = {"Run", &ch, 1};
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
    return sf_gltf_save_glb(&d, path, NULL, NULL, NULL) == SF_OK;
}

/* A triangle with a tangent frame whose authored TANGENT has handedness w, moved rigidly over 1 s. */
static int write_handed_triangle(const char* path, float w)
{
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const float nrm[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
    const float tan[12] = {1, 0, 0, w, 1, 0, 0, w, 1, 0, 0, w};
    const float uv[6] = {0, 0, 1, 0, 0, 1};
    const float times[2] = {0, 1};
    const float values[6] = {0, 0, 0, 1, 0, 0};
    sf_gltf_write_mesh wm;
    memset(&wm, 0, sizeof wm);
    wm.mesh.vertex_count = 3;
    wm.mesh.triangle_count = 1;
    wm.mesh.positions.data = pos;
    wm.mesh.normals.data = nrm;
    wm.mesh.tangents.data = tan;
    wm.mesh.uvs.data = uv;
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
    sf_gltf_write_animation anim = {"move", &ch, 1};
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

/* The time column of the last CSV row. */
static double last_csv_time(const char* csv)
{
    char* rows = sft_read_file(csv, NULL);
    if (!rows) return -1.0;
    size_t len = strlen(rows);
    while (len && rows[len - 1] == '\n') rows[--len] = '\0';
    char* line = strrchr(rows, '\n');
    double t = -1.0;
    /* "move",FRAME,TIME,... */
    if (line && sscanf(line + 1, "\"move\",%*u,%lf,", &t) != 1) t = -1.0;
    free(rows);
    return t;
}

static int json_frames(const char* out)
{
    cJSON* root = cJSON_Parse(out);
    cJSON* a = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "animations"), 0);
    cJSON* f = cJSON_GetObjectItem(a, "frames");
    int n = cJSON_IsNumber(f) ? f->valueint : -1;
    cJSON_Delete(root);
    return n;
}

static void test_clip_end(void)
{
    /* Ends between multiples of 1/fps (1.25 s at 2 fps; 7.1999945 s at 30 fps, CesiumMan-like), and on one. */
    static const struct {
        float end;
        double fps;
        int frames; /* t = 0, 1/fps, ... below the end, then the end */
    } cases[] = {{1.25f, 2, 4}, {7.1999945f, 30, 217}, {1.0f, 2, 3}, {2.0f, 30, 61}, {0.01f, 30, 2}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        char path[700], csv[700], args[2000];
        snprintf(path, sizeof path, "%s/end%zu.glb", g_dir, k);
        snprintf(csv, sizeof csv, "%s/end%zu.csv", g_dir, k);
        CHECK(write_moving_triangle(path, cases[k].end));
        snprintf(args, sizeof args, "eval '%s' --fps %g --method skinned --json --csv '%s'", path, cases[k].fps, csv);
        sft_cli_out r = sft_run_cli(args);
        CHECK(r.status == 0);
        int frames = json_frames(r.out);
        sft_cli_out_free(&r);
        if (frames != cases[k].frames) fprintf(stderr, "  end %g at %g fps: %d frames\n", (double)cases[k].end, cases[k].fps, frames);
        CHECK(frames == cases[k].frames);
        char want[32], got[32];
        snprintf(want, sizeof want, "%.6f", (double)cases[k].end); /* the last frame is the end itself */
        snprintf(got, sizeof got, "%.6f", last_csv_time(csv));
        CHECK(strcmp(want, got) == 0);
        remove(path);
        remove(csv);
    }
}

static void test_max_frames(void)
{
    char path[700], args[2000];
    snprintf(path, sizeof path, "%s/far.glb", g_dir);
    /* One far keyframe: 33333 s at 30 fps needs 999991 frames, over the default of 100000. */
    CHECK(write_moving_triangle(path, 33333.0f));
    snprintf(args, sizeof args, "eval '%s'", path);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 1 && count_lines(r.err) == 1);
    CHECK(strstr(r.err, "--max-frames 100000") != NULL && strstr(r.err, "999991 frames") != NULL);
    sft_cli_out_free(&r);
    /* The limit is the flag's: 600 s at 10 fps is 6001 frames. */
    CHECK(write_moving_triangle(path, 600.0f));
    snprintf(args, sizeof args, "eval '%s' --fps 10 --max-frames 6000 --method skinned", path);
    r = sft_run_cli(args);
    CHECK(r.status == 1 && count_lines(r.err) == 1 && strstr(r.err, "6001 frames") != NULL);
    CHECK(r.out[0] == '\0'); /* refused before any work or output */
    sft_cli_out_free(&r);
    snprintf(args, sizeof args, "eval '%s' --fps 10 --max-frames 6001 --method skinned --json", path);
    r = sft_run_cli(args);
    CHECK(r.status == 0);
    CHECK(json_frames(r.out) == 6001);
    sft_cli_out_free(&r);
    const char* bad[] = {"--max-frames 0", "--max-frames abc", "--max-frames -5", "--max-frames"};
    for (int k = 0; k < 4; ++k) {
        snprintf(args, sizeof args, "eval '%s' %s", path, bad[k]);
        r = sft_run_cli(args);
        CHECK(r.status == 2 && count_lines(r.err) == 1);
        sft_cli_out_free(&r);
    }
    remove(path);
}

/* The largest resident size of any child so far, KiB. */
static long children_maxrss(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_CHILDREN, &ru) == 0 ? ru.ru_maxrss : -1;
}

/* Peak RSS (KiB) of `eval FILE --fps F` from a fresh process: the largest child of a forked child counts only
 * the runs it made itself. *out_ok = the run succeeded and printed `expect`. */
static long eval_peak_rss(const char* file, int fps, const char* expect, int* out_ok)
{
    int fd[2];
    if (pipe(fd) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        char args[1400];
        snprintf(args, sizeof args, "eval '%s' --fps %d", file, fps);
        sft_cli_out r = sft_run_cli(args);
        long v[2] = {r.status == 0 && strstr(r.out, expect) != NULL, children_maxrss()};
        sft_cli_out_free(&r);
        ssize_t w = write(fd[1], v, sizeof v);
        _exit(w == (ssize_t)sizeof v ? 0 : 1);
    }
    close(fd[1]);
    long v[2] = {0, -1};
    ssize_t got = pid > 0 ? read(fd[0], v, sizeof v) : -1;
    close(fd[0]);
    int status = 0;
    if (pid > 0) waitpid(pid, &status, 0);
    *out_ok = got == (ssize_t)sizeof v && (int)v[0];
    return v[1];
}

static void test_memory_flat(void)
{
    char a[1024];
    CHECK(sft_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", a, sizeof a));
    /* 21 frames, then 241: every angle kept (8 bytes per vertex per method per frame) would add ~30 MB. */
    int ok_short = 0, ok_long = 0;
    long short_clip = eval_peak_rss(a, 10, "21 frames at 10 fps", &ok_short);
    long long_clip = eval_peak_rss(a, 120, "241 frames at 120 fps", &ok_long);
    fprintf(stderr, "  peak RSS: %ld KiB at 21 frames, %ld KiB at 241 frames\n", short_clip, long_clip);
    CHECK(ok_short && ok_long);
    CHECK(short_clip > 0 && long_clip - short_clip < 8 * 1024);
}

/* The JSON without its run times, printed compactly. */
static char* without_times(cJSON* o)
{
    cJSON_DeleteItemFromObject(o, "seconds");
    cJSON* a = NULL;
    cJSON_ArrayForEach(a, cJSON_GetObjectItem(o, "animations")) cJSON_DeleteItemFromObject(a, "eval_seconds");
    return cJSON_PrintUnformatted(o);
}

static char* eval_json_text(const char* args)
{
    sft_cli_out r = sft_run_cli(args);
    cJSON* o = r.status == 0 ? cJSON_Parse(r.out) : NULL;
    sft_cli_out_free(&r);
    char* text = o ? without_times(o) : NULL;
    cJSON_Delete(o);
    return text;
}

static void test_threads_same(void)
{
    char a[1024], args[1400];
    CHECK(sft_asset("gltf/Fox/glTF-Binary/Fox.glb", a, sizeof a));
    snprintf(args, sizeof args, "eval '%s' --fps 10 --json --threads 1", a);
    char* one = eval_json_text(args);
    snprintf(args, sizeof args, "eval '%s' --fps 10 --json --threads 3", a);
    char* three = eval_json_text(args);
    CHECK(one && three);
    CHECK(strcmp(one, three) == 0); /* bit for bit: every number printed with 17 digits where needed */
    free(one);
    free(three);
}

static int write_text(const char* path, const char* text)
{
    FILE* f = fopen(path, "w");
    if (!f) return 0;
    fputs(text, f);
    return fclose(f) == 0;
}

static void test_batch(void)
{
    char dir[700], sub[760], a[800], c[800], bad[800], skin[1024], args[4000];
    snprintf(dir, sizeof dir, "%s/library", g_dir);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    mkdir(dir, 0755);
    mkdir(sub, 0755);
    snprintf(a, sizeof a, "%s/a.glb", dir);
    snprintf(c, sizeof c, "%s/c.glb", sub);
    snprintf(bad, sizeof bad, "%s/bad.gltf", dir);
    CHECK(write_moving_triangle(a, 1.0f));
    CHECK(write_moving_triangle(c, 2.0f));
    CHECK(write_text(bad, "{\"asset\":{\"version\":\"2.0\"},\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":7}}]}]}"));
    char notes[800];
    snprintf(notes, sizeof notes, "%s/notes.txt", dir);
    CHECK(write_text(notes, "not an asset"));

    /* A folder: every .gltf/.glb under it, sorted; the bad one fails with one line naming it, the rest run. */
    snprintf(args, sizeof args, "eval '%s' --fps 2", dir);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 1);
    CHECK(count_lines(r.err) == 1 && strstr(r.err, bad) != NULL);
    const char* ra = strstr(r.out, a);
    const char* rc = strstr(r.out, c);
    CHECK(ra && rc && ra < rc);
    CHECK(strstr(r.out, "notes.txt") == NULL);
    CHECK(strstr(r.out, "asset") != NULL && strstr(r.out, "skinned") != NULL);
    /* a.glb: 1 s at 2 fps = 3 frames of 3 vertices. */
    char name[800], anim[64];
    unsigned frames = 0, vertices = 0;
    char cells[SF_METHOD_DEFAULT_COUNT][32]; /* one cell per method of the default set */
    _Static_assert(SF_METHOD_DEFAULT_COUNT == 7, "one %31s per method below");
    CHECK(sscanf(ra, "%799s %u %u %31s %31s %31s %31s %31s %31s %31s %63s", name, &frames, &vertices, cells[0],
                 cells[1], cells[2], cells[3], cells[4], cells[5], cells[6], anim) == 11);
    CHECK(strcmp(name, a) == 0 && strcmp(anim, "move") == 0 && frames == 3 && vertices == 3);
    CHECK(strcmp(cells[1], "0.000/0.000") == 0); /* skinned: exact on a rigid move, tangents measured */
    CHECK(strstr(r.out, "2 evaluated, 1 failed") != NULL);
    CHECK(strstr(r.out, "file:") == NULL); /* no per-asset report in a batch */
    sft_cli_out_free(&r);

    /* Several files with --json: one compact object per line, each the object single-file eval prints. */
    snprintf(args, sizeof args, "eval '%s' '%s' --fps 2 --json", a, c);
    r = sft_run_cli(args);
    CHECK(r.status == 0 && r.err[0] == '\0');
    CHECK(count_lines(r.out) == 2);
    char* second = strchr(r.out, '\n') + 1;
    second[-1] = '\0';
    cJSON* first_obj = cJSON_Parse(r.out);
    cJSON* second_obj = cJSON_Parse(second);
    sft_cli_out_free(&r);
    CHECK(first_obj && second_obj);
    char* got_a = without_times(first_obj);
    char* got_c = without_times(second_obj);
    cJSON_Delete(first_obj);
    cJSON_Delete(second_obj);
    snprintf(args, sizeof args, "eval '%s' --fps 2 --json", a);
    char* want_a = eval_json_text(args);
    snprintf(args, sizeof args, "eval '%s' --fps 2 --json", c);
    char* want_c = eval_json_text(args);
    CHECK(got_a && want_a && strcmp(got_a, want_a) == 0);
    CHECK(got_c && want_c && strcmp(got_c, want_c) == 0);
    free(got_a), free(got_c), free(want_a), free(want_c);

    /* A failing asset in JSON lines: its own line {"file", "error"}, exit 1, and the others still print. */
    snprintf(args, sizeof args, "eval '%s' --fps 2 --json", dir);
    r = sft_run_cli(args);
    CHECK(r.status == 1 && count_lines(r.out) == 3);
    CHECK(strstr(r.out, "\"error\":") != NULL && strstr(r.out, "accessors") != NULL);
    sft_cli_out_free(&r);

    /* --csv in a batch: a file column; rows of the assets that passed only. */
    char csv[800];
    snprintf(csv, sizeof csv, "%s/rows.csv", g_dir);
    snprintf(args, sizeof args, "eval '%s' --fps 2 --method skinned --csv '%s'", dir, csv);
    r = sft_run_cli(args);
    CHECK(r.status == 1);
    sft_cli_out_free(&r);
    char* rows = sft_read_file(csv, NULL);
    CHECK(rows != NULL);
    CHECK(strncmp(rows, "file,animation,frame,", 21) == 0);
    CHECK(count_lines(rows) == 1 + 3 + 5); /* a: 3 frames, c: 2 s at 2 fps = 5 frames; bad: none */
    CHECK(strstr(rows, "bad.gltf") == NULL);
    free(rows);
    remove(csv);

    /* A batch mixing a real asset without UVs: its tangent cell is "-" (not measured), never 0. */
    CHECK(sft_asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf", skin, sizeof skin));
    snprintf(args, sizeof args, "eval '%s' '%s' --fps 2 --method skinned", a, skin);
    r = sft_run_cli(args);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "0.000/0.000") != NULL); /* the triangle: both measured */
    CHECK(strstr(r.out, "/-") != NULL);          /* SimpleSkin: normal only */
    sft_cli_out_free(&r);

    /* Bad usage stays exit 2 in a batch; an empty folder is an error. */
    snprintf(args, sizeof args, "eval '%s' --fps abc", dir);
    r = sft_run_cli(args);
    CHECK(r.status == 2 && count_lines(r.err) == 1);
    sft_cli_out_free(&r);
    char empty[800];
    snprintf(empty, sizeof empty, "%s/empty", g_dir);
    mkdir(empty, 0755);
    snprintf(args, sizeof args, "eval '%s'", empty);
    r = sft_run_cli(args);
    CHECK(r.status == 1 && count_lines(r.err) == 1 && strstr(r.err, "no .gltf or .glb") != NULL);
    sft_cli_out_free(&r);
    rmdir(empty);
    remove(a), remove(c), remove(bad), remove(notes);
    rmdir(sub);
    rmdir(dir);
}

/* eval --json's handedness_mismatches counts the vertex-frames whose tangent w differs from the reference's:
 * of two files that differ only in the authored w, one has every tangent vertex-frame mismatched and the other
 * none, for the methods that carry w (unchanged, skinned); the reference itself never mismatches. */
static void test_handedness_counted(void)
{
    double counts[2] = {-1, -1}, tangent_count = -1;
    for (int k = 0; k < 2; ++k) {
        char path[600], args[700];
        snprintf(path, sizeof path, "%s/handed%d.glb", g_dir, k);
        CHECK(write_handed_triangle(path, k ? -1.0f : 1.0f));
        snprintf(args, sizeof args, "eval %s --fps 4 --json", path);
        sft_cli_out r = sft_run_cli(args);
        CHECK(r.status == 0);
        cJSON* root = cJSON_Parse(r.out);
        cJSON* methods = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "animations"), 0), "methods");
        CHECK(cJSON_IsArray(methods));
        double skinned = -1, unchanged = -2, recompute = -1;
        for (cJSON* m = methods ? methods->child : NULL; m; m = m->next) {
            const char* name = cJSON_GetStringValue(cJSON_GetObjectItem(m, "method"));
            cJSON* h = cJSON_GetObjectItem(m, "handedness_mismatches");
            CHECK(cJSON_IsNumber(h));
            if (!name || !cJSON_IsNumber(h)) continue;
            if (strcmp(name, "skinned") == 0) {
                skinned = h->valuedouble;
                tangent_count = cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(m, "tangent"), "count"));
            }
            if (strcmp(name, "unchanged") == 0) unchanged = h->valuedouble;
            if (strcmp(name, "recompute") == 0) recompute = h->valuedouble;
        }
        CHECK(skinned == unchanged);
        CHECK(recompute == 0);
        counts[k] = skinned;
        cJSON_Delete(root);
        sft_cli_out_free(&r);
    }
    CHECK(tangent_count == 15); /* 5 frames (0, 0.25, ..., 1 s) of 3 vertices */
    CHECK((counts[0] == 0 && counts[1] == tangent_count) || (counts[1] == 0 && counts[0] == tangent_count));
}

/* A folder the batch leaves out (here: deeper than SF_ASSET_MAX_DEPTH, which holds as root too, unlike an
 * unreadable one) gets its JSON error line with --json as a failed asset does; the other assets still run and the
 * exit status is 1. */
static void test_batch_skipped_folder_json(void)
{
    char dir[4096], a[4200], args[4400];
    snprintf(dir, sizeof dir, "%s/deep", g_dir);
    CHECK(mkdir(dir, 0755) == 0);
    snprintf(a, sizeof a, "%s/a.glb", dir);
    CHECK(write_moving_triangle(a, 1.0f));
    size_t len = strlen(dir);
    for (int k = 0; k < SF_ASSET_MAX_DEPTH && len + 3 < sizeof dir; ++k) {
        memcpy(dir + len, "/d", 3);
        len += 2;
        CHECK(mkdir(dir, 0755) == 0);
    }
    snprintf(args, sizeof args, "eval '%s/deep' --fps 2 --json", g_dir);
    sft_cli_out r = sft_run_cli(args);
    int lines = 0, errors = 0, results = 0;
    for (char* line = r.out; line && *line;) {
        char* next = strchr(line, '\n');
        if (next) *next++ = '\0';
        cJSON* o = cJSON_Parse(line);
        lines++;
        const cJSON* e = cJSON_GetObjectItem(o, "error");
        errors += cJSON_IsString(e) && strstr(e->valuestring, "folders deep") != NULL;
        results += cJSON_GetObjectItem(o, "animations") != NULL;
        cJSON_Delete(o);
        line = next;
    }
    if (!(r.status == 1 && lines == 2 && errors == 1 && results == 1))
        sft_failf(__FILE__, __LINE__, "exit %d, %d lines (%d errors, %d results): %s", r.status, lines, errors, results,
                  r.out);
    sft_cli_out_free(&r);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s/deep'", g_dir);
    CHECK(system(cmd) == 0);
}

/* A pose the library refuses names the file, the animation and time, and the joint's node and glTF path, in
 * eval and in the commands that pose one moment (bake, render, export-gpu), which write nothing then. */
static void test_pose_error_named(void)
{
    char path[600], args[1600], out[700];
    snprintf(path, sizeof path, "%s/exploding.glb", g_dir);
    snprintf(out, sizeof out, "%s/out", g_dir);
    CHECK(write_exploding_joint(path));
    const char* const commands[] = {"eval %s --fps 4", "bake %s --time 1 --method skinned -o %s.glb",
                                    "render --gltf %s --time 1 --method skinned -o %s.png", "export-gpu %s --time 1 -o %s"};
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; ++k) {
        snprintf(args, sizeof args, commands[k], path, out);
        sft_cli_out r = sft_run_cli(args);
        char want[800];
        snprintf(want, sizeof want, "%s: animation 'Run' at t = %s", path, k ? "1.000 s: " : "");
        int named = r.status == 1 && strstr(r.err, want) &&
                    strstr(r.err, "node 1 'Arm' (skins[0].joints[0]): its skinning matrix") &&
                    strstr(r.err, "SF_MAX_BONE_SCALE") && strchr(r.err, '\n') == r.err + strlen(r.err) - 1;
        if (!named) sft_failf(__FILE__, __LINE__, "%s: exit %d, %s", args, r.status, r.err);
        sft_cli_out_free(&r);
        CHECK(named);
    }
    char written[800];
    const char* const outputs[] = {"%s.glb", "%s.png", "%s"};
    for (size_t k = 0; k < sizeof outputs / sizeof outputs[0]; ++k) {
        snprintf(written, sizeof written, outputs[k], out);
        CHECK(access(written, F_OK) != 0);
    }
    remove(path);
}

static void test_not_measured(void)
{
    char a[1024], args[1400];
    CHECK(sft_asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf", a, sizeof a));
    snprintf(args, sizeof args, "eval '%s' --fps 2", a);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "tangents not measured: no TEXCOORD") != NULL);
    sft_cli_out_free(&r);
    snprintf(args, sizeof args, "eval '%s' --fps 2 --json", a);
    r = sft_run_cli(args);
    CHECK(r.status == 0);
    cJSON* root = cJSON_Parse(r.out);
    sft_cli_out_free(&r);
    CHECK(root != NULL);
    cJSON* methods = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "animations"), 0), "methods");
    int seen = 0;
    cJSON* m = NULL;
    cJSON_ArrayForEach(m, methods)
    {
        if (cJSON_GetObjectItem(m, "skipped")) continue;
        CHECK(cJSON_IsObject(cJSON_GetObjectItem(m, "normal")));
        CHECK(cJSON_IsObject(cJSON_GetObjectItem(m, "rest_normal")));
        CHECK(cJSON_IsNull(cJSON_GetObjectItem(m, "tangent")));
        CHECK(cJSON_IsNull(cJSON_GetObjectItem(m, "rest_tangent")));
        CHECK(cJSON_IsNull(cJSON_GetObjectItem(m, "handedness_mismatches")));
        CHECK(cJSON_IsNull(cJSON_GetObjectItem(m, "worst_tangent_vertex")));
        ++seen;
    }
    cJSON_Delete(root);
    CHECK(seen >= 4);
    /* With UVs everything is measured: numbers and objects, no nulls. */
    CHECK(sft_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", a, sizeof a));
    snprintf(args, sizeof args, "eval '%s' --fps 2 --json --method skinned", a);
    r = sft_run_cli(args);
    CHECK(r.status == 0 && strstr(r.out, "null") == NULL);
    sft_cli_out_free(&r);
    snprintf(args, sizeof args, "eval '%s' --fps 2 --method skinned", a);
    r = sft_run_cli(args);
    CHECK(r.status == 0 && strstr(r.out, "not measured") == NULL);
    sft_cli_out_free(&r);
}

int main(int argc, char** argv)
{
    char probe[1024];
    if (!getenv("SF_CLI") || !sft_asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf", probe, sizeof probe)) {
        fprintf(stderr, "SF_CLI or SF_ASSETS not set: skipped\n");
        return 77;
    }
    const char* build = getenv("SF_BUILD_DIR");
    snprintf(g_dir, sizeof g_dir, "%s/test_eval_cli.XXXXXX", build ? build : "/tmp");
    if (!mkdtemp(g_dir)) return 1;
    static const sft_case cases[] = {
        {"clip_end", test_clip_end},         {"max_frames", test_max_frames}, {"memory_flat", test_memory_flat},
        {"threads_same", test_threads_same}, {"batch", test_batch},           {"not_measured", test_not_measured},
        {"pose_error_named", test_pose_error_named},
        {"batch_skipped_folder_json", test_batch_skipped_folder_json},
        {"handedness_counted", test_handedness_counted},
    };
    int status = SFT_RUN(cases, argc, argv);
    rmdir(g_dir);
    return status;
}

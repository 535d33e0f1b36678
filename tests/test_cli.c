// LABELS: cli
/* The skinframe command, run as a program ($SF_CLI): listings, compare JSON and tables, sweeps, dumps,
 * thread-count independence, usage errors (exit 2, one stderr line) and the demo. */
#define _POSIX_C_SOURCE 200809L
#include "sf_test.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

static const char* g_cli;
static char g_dir[256];

/* ---------------------------------------------------------------- running the command */

static size_t count_lines(const char* s)
{
    size_t n = 0;
    for (; *s; ++s) n += *s == '\n';
    return n;
}

static bool file_exists(const char* path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static double num(const cJSON* o, const char* key)
{
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const cJSON* method_entry(const cJSON* report, const char* name)
{
    const cJSON* m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(report, "methods"))
    {
        const cJSON* n = cJSON_GetObjectItemCaseSensitive(m, "name");
        if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0) return m;
    }
    return NULL;
}

static bool in_string_array(const cJSON* arr, const char* name)
{
    const cJSON* s;
    cJSON_ArrayForEach(s, arr)
    {
        if (cJSON_IsString(s) && strcmp(s->valuestring, name) == 0) return true;
    }
    return false;
}

/* ---------------------------------------------------------------- cases */

static void test_help(void)
{
    sft_cli_out r = sft_run_cli("--help");
    bool ok = r.status == 0 && strstr(r.out, "compare") && strstr(r.out, "scenes") && strstr(r.out, "demo");
    sft_cli_out_free(&r);
    CHECK(ok);
    r = sft_run_cli("help compare");
    ok = r.status == 0 && strstr(r.out, "--sweep") && strstr(r.out, "--dump");
    sft_cli_out_free(&r);
    CHECK(ok);
    const char* subs[] = {"scenes --help", "compare --help", "demo --help", "compare -h"};
    for (size_t k = 0; k < sizeof subs / sizeof subs[0]; ++k) {
        r = sft_run_cli(subs[k]);
        ok = r.status == 0 && strstr(r.out, "Usage: skinframe") != NULL && r.err[0] == '\0';
        sft_cli_out_free(&r);
        CHECK(ok);
    }
}

static void test_scenes_lists_every_scene(void)
{
    CHECK(sf_scene_count() > 0);
    sft_cli_out r = sft_run_cli("scenes");
    CHECK(r.status == 0);
    for (size_t k = 0; k < sf_scene_count(); ++k) {
        const sf_scene_info* s = sf_scene_info_at(k);
        char head[96];
        snprintf(head, sizeof head, "%s:", s->name);
        bool ok = strstr(r.out, head) != NULL;
        for (size_t p = 0; ok && p < s->preset_count; ++p) ok = strstr(r.out, s->presets[p].name) != NULL;
        for (size_t p = 0; ok && p < s->param_count; ++p) ok = strstr(r.out, s->params[p].name) != NULL;
        for (size_t p = 0; ok && p < s->target_count; ++p) ok = strstr(r.out, s->targets[p]) != NULL;
        if (!ok) {
            sft_cli_out_free(&r);
            CHECK(!"scene, preset, parameter or target missing from `skinframe scenes`");
        }
    }
    sft_cli_out_free(&r);

    r = sft_run_cli("scenes --json");
    cJSON* j = cJSON_Parse(r.out);
    sft_cli_out_free(&r);
    CHECK(j != NULL);
    const cJSON* list = cJSON_GetObjectItemCaseSensitive(j, "scenes");
    bool ok = cJSON_GetArraySize(list) == (int)sf_scene_count();
    const cJSON* s;
    size_t k = 0;
    cJSON_ArrayForEach(s, list)
    {
        const sf_scene_info* info = sf_scene_info_at(k++);
        const cJSON* params = cJSON_GetObjectItemCaseSensitive(s, "params");
        ok = ok && strcmp(cJSON_GetObjectItemCaseSensitive(s, "name")->valuestring, info->name) == 0;
        ok = ok && cJSON_GetArraySize(params) == (int)info->param_count;
        ok = ok && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s, "presets")) == (int)info->preset_count;
        ok = ok && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s, "targets")) == (int)info->target_count;
        if (info->param_count)
            ok = ok && num(cJSON_GetArrayItem(params, 0), "default") == info->params[0].default_value;
    }
    cJSON_Delete(j);
    CHECK(ok);
}

static bool stats_complete(const cJSON* st)
{
    static const char* const keys[] = {"mean", "rms", "p50", "p95", "max", "over_1", "over_5", "over_45"};
    if (!cJSON_IsObject(st)) return false;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k) {
        double v = num(st, keys[k]);
        if (!(v >= 0.0) || (k >= 5 && v > 1.0) || (k < 5 && v > 180.0)) return false;
    }
    /* Order statistics: p50 <= p95 <= max, mean <= rms, shares decrease with the threshold. */
    return num(st, "p50") <= num(st, "p95") && num(st, "p95") <= num(st, "max") &&
           num(st, "mean") <= num(st, "rms") + 1e-9 && num(st, "over_1") >= num(st, "over_5") &&
           num(st, "over_5") >= num(st, "over_45");
}

static void test_compare_json(void)
{
    sft_cli_out r = sft_run_cli("compare --scene sheet --preset bone-twist --set twist=90 --json");
    int status = r.status;
    cJSON* j = cJSON_Parse(r.out);
    sft_cli_out_free(&r);
    CHECK(status == 0);
    CHECK(j != NULL);
    bool ok = strcmp(cJSON_GetObjectItemCaseSensitive(j, "scene")->valuestring, "sheet") == 0 &&
              strcmp(cJSON_GetObjectItemCaseSensitive(j, "preset")->valuestring, "bone-twist") == 0 &&
              num(cJSON_GetObjectItemCaseSensitive(j, "params"), "twist") == 90.0 &&
              cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(j, "reference"));
    const sf_scene_info* sheet = sf_scene_info_find("sheet");
    const cJSON* ref = cJSON_GetObjectItemCaseSensitive(j, "reference");
    ok = ok && sheet &&
         strcmp(cJSON_GetObjectItemCaseSensitive(ref, "weighting")->valuestring,
                sheet->reference_weighting == SF_WEIGHTING_AREA      ? "area"
                : sheet->reference_weighting == SF_WEIGHTING_ANGLE   ? "angle"
                                                                     : "uniform") == 0;
    /* Every default method is either a row or listed as skipped (unsupported in this build). */
    const cJSON* skipped = cJSON_GetObjectItemCaseSensitive(j, "skipped");
    for (int m = 0; ok && m < SF_METHOD_DEFAULT_COUNT; ++m) {
        const char* name = sf_method_name((sf_method)m);
        const cJSON* e = method_entry(j, name);
        if (!e) {
            ok = in_string_array(skipped, name) && m != SF_METHOD_RECOMPUTE && m != SF_METHOD_SKINNED;
            continue;
        }
        const cJSON* md = cJSON_GetObjectItemCaseSensitive(e, "morph_directions");
        ok = cJSON_IsString(md) && strcmp(md->valuestring, "deltas") == 0 &&
             stats_complete(cJSON_GetObjectItemCaseSensitive(e, "normal")) &&
             stats_complete(cJSON_GetObjectItemCaseSensitive(e, "tangent")) &&
             num(e, "handedness_mismatches") >= 0.0 && num(e, "degenerate") >= 0.0;
    }
    /* The recompute row is the reference computed again: about 0 error. */
    const cJSON* rec = method_entry(j, "recompute");
    const cJSON* unch = method_entry(j, "unchanged");
    double rec_max = rec ? num(cJSON_GetObjectItemCaseSensitive(rec, "normal"), "max") : NAN;
    double rec_tmax = rec ? num(cJSON_GetObjectItemCaseSensitive(rec, "tangent"), "max") : NAN;
    double unch_mean = unch ? num(cJSON_GetObjectItemCaseSensitive(unch, "normal"), "mean") : NAN;
    double hand = rec ? num(rec, "handedness_mismatches") : NAN;
    cJSON_Delete(j);
    CHECK(ok);
    CHECK_NEAR(rec_max, 0.0, 1e-3);
    CHECK_NEAR(rec_tmax, 0.0, 1e-3);
    CHECK(hand == 0.0);
    /* Rest directions under a 90-degree twist are far off. */
    CHECK(unch_mean > 1.0);
}

static void test_compare_table(void)
{
    sft_cli_out r = sft_run_cli("compare --scene sheet --preset bone-twist --method unchanged,recompute");
    int status = r.status;
    bool ok = strstr(r.out, "unchanged") && strstr(r.out, "recompute") && !strstr(r.out, "skinned ") &&
              strstr(r.out, "reference: recompute, weighting") && strstr(r.out, "mean");
    /* Readable on a 120-column terminal. */
    size_t col = 0, widest = 0;
    for (const char* c = r.out; *c; ++c) {
        col = *c == '\n' ? 0 : col + 1;
        if (col > widest) widest = col;
    }
    sft_cli_out_free(&r);
    CHECK(status == 0);
    CHECK(ok);
    CHECK(widest <= 120);
}

static void test_weighting_flag_sets_reference(void)
{
    const sf_scene_info* tip = sf_scene_info_find("tip");
    CHECK(tip != NULL);
    sft_cli_out r = sft_run_cli("compare --scene tip --json --method recompute");
    cJSON* j = cJSON_Parse(r.out);
    sft_cli_out_free(&r);
    CHECK(j != NULL);
    const cJSON* ref = cJSON_GetObjectItemCaseSensitive(j, "reference");
    bool scene_default = strcmp(cJSON_GetObjectItemCaseSensitive(ref, "weighting_source")->valuestring, "scene") == 0;
    bool uniform = strcmp(cJSON_GetObjectItemCaseSensitive(ref, "weighting")->valuestring, "uniform") == 0;
    cJSON_Delete(j);
    CHECK(scene_default);
    CHECK(uniform == (tip->reference_weighting == SF_WEIGHTING_UNIFORM));
    r = sft_run_cli("compare --scene tip --json --method recompute --weighting angle");
    j = cJSON_Parse(r.out);
    sft_cli_out_free(&r);
    CHECK(j != NULL);
    ref = cJSON_GetObjectItemCaseSensitive(j, "reference");
    bool angle = strcmp(cJSON_GetObjectItemCaseSensitive(ref, "weighting")->valuestring, "angle") == 0;
    bool flag = strcmp(cJSON_GetObjectItemCaseSensitive(ref, "weighting_source")->valuestring, "flag") == 0;
    cJSON_Delete(j);
    CHECK(angle && flag);
}

/* --reference authored and --jacobian-cap reach the library: the reference says so, the cap fires and
 * changes the jacobian's error, and bad values are usage errors. */
static void test_reference_and_cap_flags(void)
{
    sft_cli_out r = sft_run_cli("compare --scene elbow --preset bend --json --method jacobian --reference authored");
    cJSON* plain = cJSON_Parse(r.out);
    sft_cli_out_free(&r);
    r = sft_run_cli("compare --scene elbow --preset bend --json --method jacobian --jacobian-cap 0.05");
    cJSON* capped = cJSON_Parse(r.out);
    sft_cli_out_free(&r);
    CHECK(plain != NULL && capped != NULL);
    const cJSON* ref = cJSON_GetObjectItemCaseSensitive(plain, "reference");
    bool authored = strcmp(cJSON_GetObjectItemCaseSensitive(ref, "directions")->valuestring, "authored") == 0;
    const cJSON* pj = method_entry(plain, "jacobian");
    const cJSON* cj = method_entry(capped, "jacobian");
    double fired = num(cj, "jacobian_capped"), not_fired = num(pj, "jacobian_capped");
    double mean_plain = num(cJSON_GetObjectItemCaseSensitive(pj, "normal"), "mean");
    double mean_capped = num(cJSON_GetObjectItemCaseSensitive(cj, "normal"), "mean");
    cJSON_Delete(plain);
    cJSON_Delete(capped);
    CHECK(authored);
    CHECK(not_fired == 0.0 && fired > 0.0);
    CHECK(mean_capped > mean_plain);
    r = sft_run_cli("compare --scene elbow --jacobian-cap -1");
    int status = r.status;
    sft_cli_out_free(&r);
    CHECK(status == 2);
    r = sft_run_cli("compare --scene elbow --reference painted");
    status = r.status;
    sft_cli_out_free(&r);
    CHECK(status == 2);
}

/* Rows of the text sweep table whose method column is `method` (the normal line of each pair). */
static size_t sweep_rows(const char* text, const char* method)
{
    size_t n = 0;
    char want[64];
    snprintf(want, sizeof want, " %s ", method);
    for (const char* line = text; line && *line;) {
        const char* end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[512];
        if (len < sizeof buf) {
            memcpy(buf, line, len);
            buf[len] = '\0';
            if (strstr(buf, want) && strstr(buf, " normal ")) n++;
        }
        line = end ? end + 1 : NULL;
    }
    return n;
}

static void test_sweep(void)
{
    sft_cli_out r = sft_run_cli("compare --scene sheet --preset bone-twist --method skinned,recompute --sweep twist=0:90:4");
    int status = r.status;
    size_t skinned = sweep_rows(r.out, "skinned"), recompute = sweep_rows(r.out, "recompute");
    sft_cli_out_free(&r);
    CHECK(status == 0);
    CHECK(skinned == 4);
    CHECK(recompute == 4);

    r = sft_run_cli("compare --scene sheet --morph towel-twist=1 --method skinned --sweep ripples=0:1:3 --json");
    cJSON* j = cJSON_Parse(r.out);
    sft_cli_out_free(&r);
    CHECK(cJSON_IsArray(j));
    bool ok = cJSON_GetArraySize(j) == 3;
    const cJSON* e;
    int i = 0;
    cJSON_ArrayForEach(e, j)
    {
        const cJSON* sw = cJSON_GetObjectItemCaseSensitive(e, "sweep");
        ok = ok && fabs(num(sw, "value") - 0.5 * i) < 1e-12 &&
             num(cJSON_GetObjectItemCaseSensitive(e, "params"), "ripples") == 0.5 * i &&
             num(cJSON_GetObjectItemCaseSensitive(e, "params"), "towel-twist") == 1.0 && method_entry(e, "skinned");
        ++i;
    }
    cJSON_Delete(j);
    CHECK(ok);

    /* Resolution sweeps add the ratio of mean normal errors between consecutive resolutions. */
    r = sft_run_cli("compare --scene elbow --preset bend --method skinned --sweep resolution=4:8:2 --json");
    j = cJSON_Parse(r.out);
    sft_cli_out_free(&r);
    CHECK(cJSON_GetArraySize(j) == 2);
    const cJSON* a = method_entry(cJSON_GetArrayItem(j, 0), "skinned");
    const cJSON* b = method_entry(cJSON_GetArrayItem(j, 1), "skinned");
    double ratio = num(b, "mean_normal_ratio");
    double want = num(cJSON_GetObjectItemCaseSensitive(b, "normal"), "mean") /
                  num(cJSON_GetObjectItemCaseSensitive(a, "normal"), "mean");
    double res1 = num(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(j, 1), "params"), "resolution");
    cJSON_Delete(j);
    CHECK_NEAR(ratio, want, 1e-12);
    CHECK(res1 == 8.0);
    r = sft_run_cli("compare --scene elbow --preset bend --method skinned --sweep resolution=4:8:2");
    bool has_ratio = r.status == 0 && strstr(r.out, "ratio") && strstr(r.out, "4->8");
    sft_cli_out_free(&r);
    CHECK(has_ratio);
}

/* Area-weighted vertex normals from the dumped final positions, as the article's gather (double). */
static double max_reference_mismatch_deg(const cJSON* dump)
{
    const cJSON* pos = cJSON_GetObjectItemCaseSensitive(dump, "positions");
    const cJSON* idx = cJSON_GetObjectItemCaseSensitive(dump, "indices");
    const cJSON* ref = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(dump, "reference"), "normals");
    int n = cJSON_GetArraySize(pos), f = cJSON_GetArraySize(idx) / 3;
    double* P = calloc((size_t)n * 3, sizeof(double));
    double* N = calloc((size_t)n * 3, sizeof(double));
    int* I = calloc((size_t)f * 3 + 1, sizeof(int));
    double worst = 0.0;
    const cJSON* e;
    int k = 0;
    cJSON_ArrayForEach(e, pos)
    {
        for (int c = 0; c < 3; ++c) P[3 * k + c] = cJSON_GetArrayItem(e, c)->valuedouble;
        ++k;
    }
    k = 0;
    cJSON_ArrayForEach(e, idx) I[k++] = e->valueint;
    for (int t = 0; t < f; ++t) {
        const double* a = P + 3 * I[3 * t];
        const double* b = P + 3 * I[3 * t + 1];
        const double* c = P + 3 * I[3 * t + 2];
        double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double fn[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        for (int v = 0; v < 3; ++v)
            for (int q = 0; q < 3; ++q) N[3 * I[3 * t + v] + q] += fn[q];
    }
    k = 0;
    cJSON_ArrayForEach(e, ref)
    {
        /* atan2(|r x N|, r . N): acos loses everything near 0 degrees. */
        double r[3], d = 0.0;
        const double* m = N + 3 * k;
        for (int c = 0; c < 3; ++c) r[c] = cJSON_GetArrayItem(e, c)->valuedouble;
        for (int c = 0; c < 3; ++c) d += r[c] * m[c];
        double x = r[1] * m[2] - r[2] * m[1], y = r[2] * m[0] - r[0] * m[2], z = r[0] * m[1] - r[1] * m[0];
        double ang = atan2(sqrt(x * x + y * y + z * z), d) * 57.29577951308232;
        if (!(ang <= worst)) worst = ang;
        ++k;
    }
    free(P);
    free(N);
    free(I);
    return worst;
}

static void test_dump(void)
{
    char path[320], args[512];
    snprintf(path, sizeof path, "%s/dump.json", g_dir);
    snprintf(args, sizeof args, "compare --scene sheet --preset bone-bend --morph ripples=0.5 --dump '%s'", path);
    sft_cli_out r = sft_run_cli(args);
    int status = r.status;
    sft_cli_out_free(&r);
    CHECK(status == 0);
    char* text = sft_read_file(path, NULL);
    CHECK(text != NULL);
    cJSON* d = cJSON_Parse(text);
    free(text);
    CHECK(d != NULL);
    int n = (int)num(d, "vertex_count");
    int f = (int)num(d, "triangle_count");
    const cJSON* ref = cJSON_GetObjectItemCaseSensitive(d, "reference");
    const cJSON* methods = cJSON_GetObjectItemCaseSensitive(d, "methods");
    bool ok = n > 0 && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(d, "positions")) == n &&
              cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(d, "uvs")) == n &&
              cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(d, "indices")) == 3 * f &&
              cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ref, "normals")) == n &&
              cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ref, "tangents")) == n &&
              cJSON_GetArraySize(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(ref, "tangents"), 0)) == 4;
    for (int m = 0; ok && m < SF_METHOD_DEFAULT_COUNT; ++m) {
        const cJSON* e = cJSON_GetObjectItemCaseSensitive(methods, sf_method_name((sf_method)m));
        if (!e && m == SF_METHOD_JACOBIAN) continue; /* may be unsupported in this build */
        ok = e && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(e, "normals")) == n &&
             cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(e, "tangents")) == n;
    }
    /* The dumped reference normals are the area-weighted normals of the dumped triangles. */
    double worst = ok ? max_reference_mismatch_deg(d) : 180.0;
    cJSON_Delete(d);
    CHECK(ok);
    CHECK(worst < 1e-3);
    /* No temporary files left next to it. */
    snprintf(args, sizeof args, "ls '%s' | grep -c tmp >/dev/null", g_dir);
    CHECK(system(args) != 0);
}

static void test_dump_never_clobbers(void)
{
    char path[320], args[512];
    snprintf(path, sizeof path, "%s/input.json", g_dir);
    FILE* f = fopen(path, "wb");
    CHECK(f != NULL);
    fputs("glTF binary, not a dump", f);
    fclose(f);
    snprintf(args, sizeof args, "compare --scene tip --dump '%s'", path);
    sft_cli_out r = sft_run_cli(args);
    int status = r.status;
    size_t lines = count_lines(r.err);
    sft_cli_out_free(&r);
    char* text = sft_read_file(path, NULL);
    bool same = text && strcmp(text, "glTF binary, not a dump") == 0;
    free(text);
    CHECK(status == 2 && lines == 1);
    CHECK(same);
    /* Only .json names; a folder that does not exist fails (exit 1) and leaves nothing. */
    snprintf(path, sizeof path, "%s/out.glb", g_dir);
    snprintf(args, sizeof args, "compare --scene tip --dump '%s'", path);
    r = sft_run_cli(args);
    status = r.status;
    sft_cli_out_free(&r);
    CHECK(status == 2 && !file_exists(path));
    snprintf(path, sizeof path, "%s/missing/out.json", g_dir);
    snprintf(args, sizeof args, "compare --scene tip --dump '%s'", path);
    r = sft_run_cli(args);
    status = r.status;
    lines = count_lines(r.err);
    sft_cli_out_free(&r);
    CHECK(status == 1 && lines == 1 && !file_exists(path));
}

static void test_threads_identical(void)
{
    const char* base = "compare --scene sheet --preset bone-twist --morph towel-twist=0.7,swirl=0.5,ripples=0.6 "
                       "--set resolution=20 --json --threads ";
    char args[512];
    char* first = NULL;
    bool same = true;
    for (int t = 1; t <= 3; ++t) {
        snprintf(args, sizeof args, "%s%d", base, t);
        sft_cli_out r = sft_run_cli(args);
        if (r.status != 0) same = false;
        if (!first)
            first = r.out, r.out = NULL;
        else
            same = same && strcmp(first, r.out) == 0;
        sft_cli_out_free(&r);
    }
    bool nonempty = first && strlen(first) > 100;
    free(first);
    CHECK(nonempty);
    CHECK(same);
}

/* "all" in a method list is every default method, the others named added after them. */
static void test_method_list_all(void)
{
    sft_cli_out r = sft_run_cli("compare --scene tip --method all,recompute-fused --json");
    cJSON* j = r.status == 0 ? cJSON_Parse(r.out) : NULL;
    sft_cli_out_free(&r);
    CHECK(j != NULL);
    bool ok = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "methods")) == SF_METHOD_DEFAULT_COUNT + 1 &&
              method_entry(j, "skinned") && method_entry(j, "recompute-fused");
    cJSON_Delete(j);
    CHECK(ok);
}

/* A camera distance past the bound says which bound (not "is not > 0" for 1e30). */
static void test_camera_distance_range(void)
{
    sft_cli_out r = sft_run_cli("render --scene tip --method skinned --camera 0,0,1e30 -o never.png");
    bool ok = r.status == 2 && strstr(r.err, "--camera: distance 1e+30 is not in (0, 1e6)") != NULL;
    sft_cli_out_free(&r);
    CHECK(ok);
    CHECK(!file_exists("never.png"));
}

static void test_usage_errors(void)
{
    static const char* const bad[] = {
        "",
        "nosuchcommand",
        "compare",
        "compare --scene nosuchscene",
        "compare --scene sheet --preset nosuchpreset",
        "compare --scene sheet --set twist=abc",
        "compare --scene sheet --set twist=",
        "compare --scene sheet --set nosuchparam=1",
        "compare --scene sheet --set twist=100000",
        "compare --scene sheet --morph nosuchtarget=1",
        "compare --scene sheet --morph-directions sideways",
        "compare --scene sheet --method nosuchmethod",
        "compare --scene sheet --method skinned,",
        "compare --scene sheet --weighting heavy",
        "compare --scene sheet --threads 0",
        "compare --scene sheet --threads two",
        "compare --scene sheet --backend gpu",
        "eval --backend CUDA x.glb",
        "compare --scene sheet --no-such-flag",
        "compare --scene sheet stray",
        "compare --scene",
        "compare --scene sheet --sweep twist=0:90",
        "compare --scene sheet --sweep twist=0:90:0",
        "compare --scene sheet --sweep nosuch=0:1:2",
        "compare --scene sheet --sweep twist=0:100000:2",
        "compare --scene sheet --sweep twist=0:90:3 --dump x.json",
        "compare --scene tip --sweep resolution=1:4:2",
        "plot --scene sheet --sweep twist=0:90:1 -o x.png",
        "plot --scene sheet --sweep twist=0:1000:3 -o x.png",
        "plot --scene sheet --sweep nosuch=0:1:3 -o x.png",
        "plot --scene sheet --sweep twist=0:90:3",
        "render --scene sheet --method skinned --size 10x10 -o x.png",
        /* longer than the parser's buffer, valid only when cut: "64x" 57 zeros "100", then junk */
        "render --scene sheet --method skinned --size 64x000000000000000000000000000000000000000000000000000000000100zzz -o x.png",
        "render --gltf x.glb --scene sheet --method skinned -o x.png",
        "scenes --bogus",
        "scenes nosuchscene",
        "demo --bogus",
        "demo --scene nosuchscene",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        sft_cli_out r = sft_run_cli(bad[k]);
        int status = r.status;
        size_t lines = count_lines(r.err);
        bool prefixed = strncmp(r.err, "skinframe: ", 11) == 0;
        if (status != 2 || lines != 1 || !prefixed)
            fprintf(stderr, "  `skinframe %s`: exit %d, stderr:\n%s", bad[k], status, r.err);
        sft_cli_out_free(&r);
        CHECK(status == 2);
        CHECK(lines == 1);
        CHECK(prefixed);
    }
}

/* --backend cuda in a build without CUDA (or on a machine without a GPU) fails the work with one line that
 * says why; --backend cpu is the default's output exactly. */
static void test_backend_flag(void)
{
    sft_cli_out a = sft_run_cli("compare --scene sheet --preset bone-twist --json");
    sft_cli_out b = sft_run_cli("compare --scene sheet --preset bone-twist --json --backend cpu");
    CHECK(a.status == 0 && b.status == 0);
    CHECK(strcmp(a.out, b.out) == 0);
    sft_cli_out_free(&a);
    sft_cli_out_free(&b);
    sf_error err;
    if (sf_backend_check(SF_BACKEND_CUDA, &err) == SF_OK) return; /* tests/test_cuda.c runs it */
    sft_cli_out c = sft_run_cli("compare --scene sheet --backend cuda");
    int status = c.status;
    bool says = strstr(c.err, "cuda") != NULL && count_lines(c.err) == 1;
    if (status != 1 || !says) fprintf(stderr, "  compare --backend cuda: exit %d, stderr:\n%s", status, c.err);
    sft_cli_out_free(&c);
    CHECK(status == 1);
    CHECK(says);
}

/* Every flag once (except --set and --morph, which add up): a repetition is bad usage naming the flag, by
 * any of its spellings; an empty value is bad usage too. */
static void test_flags_once(void)
{
    static const struct {
        const char* args;
        const char* named;
    } bad[] = {
        {"compare --scene sheet --scene tip", "--scene"},
        {"compare --scene sheet --method skinned --method recompute", "--method"},
        {"compare --scene sheet --weld none --weld=position", "--weld"},
        {"compare --scene sheet --json --json", "--json"},
        {"compare --scene sheet --threads 1 --threads 2", "--threads"},
        {"compare --scene sheet --backend cpu --backend cpu", "--backend"},
        {"render --scene tip --method skinned -o a.png --out b.png", "-o"},
        {"render --scene tip --all-methods --stage -o pics", "--all-methods"},
        {"render --scene tip --method skinned --rig --rig -o a.png", "--rig"},
        {"demo --scene tip --scene sheet", "--scene"},
        {"scenes --json --json", "--json"},
        {"plot --scene tip --sweep height=0:1:2 --sweep height=0:1:3 -o p.png", "--sweep"},
        {"compare --scene sheet --method ''", "--method"},
        {"compare --scene ''", "--scene"},
        {"render --scene tip --method skinned -o ''", "-o"},
        {"compare --scene tip --dump ''", "--dump"},
        {"demo --out ''", "--out"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        sft_cli_out r = sft_run_cli(bad[k].args);
        bool ok = r.status == 2 && count_lines(r.err) == 1 && strstr(r.err, bad[k].named) != NULL;
        if (!ok) fprintf(stderr, "  `skinframe %s`: exit %d, stderr: %s", bad[k].args, r.status, r.err);
        sft_cli_out_free(&r);
        CHECK(ok);
    }
    /* --set and --morph add up: the later value of one setting wins, as within one list. */
    sft_cli_out a = sft_run_cli("compare --scene sheet --set twist=10 --set twist=30 --morph ripples=0.5 --morph swirl=1 --json");
    sft_cli_out b = sft_run_cli("compare --scene sheet --set twist=10,twist=30 --morph ripples=0.5,swirl=1 --json");
    bool same = a.status == 0 && b.status == 0 && strcmp(a.out, b.out) == 0;
    cJSON* j = cJSON_Parse(a.out);
    double twist = num(cJSON_GetObjectItemCaseSensitive(j, "params"), "twist");
    cJSON_Delete(j);
    sft_cli_out_free(&a);
    sft_cli_out_free(&b);
    CHECK(same);
    CHECK(twist == 30.0);
}

static void test_demo(void)
{
    /* The whole table (one method, no --out: per-case pictures would make this slow). */
    sft_cli_out r = sft_run_cli("demo --method skinned,recompute");
    int status = r.status;
    bool ok = strstr(r.out, "n.mean") && strstr(r.out, "t.max") && strstr(r.out, "hand");
    for (size_t k = 0; ok && k < sf_scene_count(); ++k) {
        const sf_scene_info* s = sf_scene_info_at(k);
        for (size_t p = 0; ok && p < s->preset_count; ++p) {
            char label[128];
            snprintf(label, sizeof label, "%s/%s", s->name, s->presets[p].name);
            ok = strstr(r.out, label) != NULL;
        }
        for (size_t t = 0; ok && t < s->target_count; ++t) {
            char label[128];
            snprintf(label, sizeof label, "%s %s=1 ", s->name, s->targets[t]);
            ok = strstr(r.out, label) != NULL;
        }
    }
    sft_cli_out_free(&r);
    CHECK(status == 0);
    CHECK(ok);

    /* Morph cases come with both direction settings. */
    r = sft_run_cli("demo --json --method skinned");
    cJSON* j = cJSON_Parse(r.out);
    sft_cli_out_free(&r);
    CHECK(cJSON_IsArray(j));
    int none = 0, deltas = 0;
    const cJSON* e;
    cJSON_ArrayForEach(e, j)
    {
        const cJSON* c = cJSON_GetObjectItemCaseSensitive(e, "case");
        ok = ok && cJSON_IsString(c) && method_entry(e, "skinned") && !method_entry(e, "unchanged");
        if (!ok || !strchr(c->valuestring, '=')) continue;
        const char* d = cJSON_GetObjectItemCaseSensitive(e, "morph_directions")->valuestring;
        none += strcmp(d, "none") == 0;
        deltas += strcmp(d, "deltas") == 0;
    }
    cJSON_Delete(j);
    CHECK(ok);
    CHECK(none > 0 && none == deltas);

    /* --out writes the table and the JSON (one small case). */
    char out[320], args[512], path[400];
    snprintf(out, sizeof out, "%s/demo-out/nested", g_dir);
    snprintf(args, sizeof args, "demo --scene tip --method skinned --out '%s'", out);
    r = sft_run_cli(args);
    status = r.status;
    sft_cli_out_free(&r);
    CHECK(status == 0);
    snprintf(path, sizeof path, "%s/demo.json", out);
    char* text = sft_read_file(path, NULL);
    j = text ? cJSON_Parse(text) : NULL;
    free(text);
    int cases = cJSON_GetArraySize(j);
    cJSON_Delete(j);
    CHECK(cases >= 1);
    snprintf(path, sizeof path, "%s/demo.txt", out);
    text = sft_read_file(path, NULL);
    ok = text && strstr(text, "tip/") && strstr(text, "skinned");
    free(text);
    CHECK(ok);
}

int main(int argc, char** argv)
{
    g_cli = getenv("SF_CLI");
    if (!g_cli || !file_exists(g_cli)) {
        printf("SF_CLI not set or missing: skipped\n");
        return 77;
    }
    const char* tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/sf_test_cli_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    static const sft_case cases[] = {
        {"help", test_help},
        {"method_list_all", test_method_list_all},
        {"camera_distance_range", test_camera_distance_range},
        {"scenes_lists_every_scene", test_scenes_lists_every_scene},
        {"compare_json", test_compare_json},
        {"compare_table", test_compare_table},
        {"weighting_flag_sets_reference", test_weighting_flag_sets_reference},
        {"reference_and_cap_flags", test_reference_and_cap_flags},
        {"sweep", test_sweep},
        {"dump", test_dump},
        {"dump_never_clobbers", test_dump_never_clobbers},
        {"threads_identical", test_threads_identical},
        {"usage_errors", test_usage_errors},
        {"flags_once", test_flags_once},
        {"backend_flag", test_backend_flag},
        {"demo", test_demo},
    };
    int rc = SFT_RUN(cases, argc, argv);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_dir);
    return rc;
}

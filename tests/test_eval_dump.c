// LABELS: cli
/* compare --dump, streamed: the same bytes as the whole-tree writer gave (tests/golden/compare-dump-*.json were
 * written by it), the golden dumps' reference frames against a double-precision rebuild from their own mesh,
 * the same bytes cJSON prints for the parsed dump of a larger case, written atomically (no temporary file left,
 * an earlier dump replaced whole), and memory that does not grow with the dump's size. */
#define _POSIX_C_SOURCE 200809L
#include "sf_test.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static char g_dir[512];

static int files_in(const char* dir)
{
    DIR* d = opendir(dir);
    int n = 0;
    for (struct dirent* e; d && (e = readdir(d)) != NULL;) n += e->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

static void test_golden_bytes(void)
{
    static const struct {
        const char* golden;
        const char* args;
    } cases[] = {
        {"compare-dump-tip.json", "--scene tip --preset move-neighbor"},
        {"compare-dump-sheet.json", "--scene sheet --preset bone-twist --set resolution=2 --morph ripples=0.5"},
    };
    const char* src = getenv("SF_SOURCE_DIR");
    CHECK(src != NULL);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        char golden[1024], out[700], args[2000];
        snprintf(golden, sizeof golden, "%s/tests/golden/%s", src, cases[k].golden);
        snprintf(out, sizeof out, "%s/dump.json", g_dir);
        snprintf(args, sizeof args, "compare %s --dump '%s'", cases[k].args, out);
        sft_cli_out r = sft_run_cli(args);
        CHECK(r.status == 0);
        sft_cli_out_free(&r);
        size_t want_size, got_size;
        char* want = sft_read_file(golden, &want_size);
        char* got = sft_read_file(out, &got_size);
        CHECK(want && got);
        if (got_size != want_size || memcmp(want, got, want_size) != 0)
            fprintf(stderr, "  %s: %zu bytes written, %zu in the golden file\n", cases[k].golden, got_size, want_size);
        CHECK(got_size == want_size && memcmp(want, got, want_size) == 0);
        free(want);
        free(got);
        CHECK(files_in(g_dir) == 1); /* the dump, no temporary file beside it */
        remove(out);
    }
}

/* Component i of row v of a JSON array of arrays, NAN when missing. */
static double row_item(const cJSON* rows, int v, int i)
{
    const cJSON* x = cJSON_GetArrayItem(cJSON_GetArrayItem(rows, v), i);
    return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

/* The golden dumps pin the writer's bytes; this says their numbers are right. The reference frames are
 * computed again here in double precision from the dump's own positions, indices and UVs (the article's
 * section 5: per face cross(e1, e2) and the UV tangent, gathered with the dump's weighting, the tangent made
 * orthogonal to the normal, w from the UV bitangent in glTF's convention); the recompute row equals the reference; every method's
 * normals and tangents are unit vectors with w = +-1. No bone mirrors in these scenes (no face flips). */
static void test_golden_numbers(void)
{
    static const char* const files[] = {"compare-dump-tip.json", "compare-dump-sheet.json"};
    const char* src = getenv("SF_SOURCE_DIR");
    CHECK(src != NULL);
    for (size_t k = 0; k < sizeof files / sizeof files[0]; ++k) {
        char path[1024];
        snprintf(path, sizeof path, "%s/tests/golden/%s", src, files[k]);
        char* text = sft_read_file(path, NULL);
        cJSON* root = text ? cJSON_Parse(text) : NULL;
        free(text);
        CHECK(root != NULL);
        const cJSON* pos = cJSON_GetObjectItem(root, "positions");
        const cJSON* idx = cJSON_GetObjectItem(root, "indices");
        const cJSON* uvs = cJSON_GetObjectItem(root, "uvs");
        const cJSON* ref = cJSON_GetObjectItem(root, "reference");
        const cJSON* weighting = cJSON_GetObjectItem(ref, "weighting");
        const cJSON* weld = cJSON_GetObjectItem(ref, "weld");
        int n = cJSON_GetArraySize(pos), corners = cJSON_GetArraySize(idx);
        int ok = n > 0 && corners > 0 && corners % 3 == 0 && cJSON_GetArraySize(uvs) == n && cJSON_IsString(weighting) &&
                 cJSON_IsString(weld) && strcmp(weld->valuestring, "none") == 0;
        int area = ok && strcmp(weighting->valuestring, "area") == 0;
        ok = ok && (area || strcmp(weighting->valuestring, "uniform") == 0);
        double* sums = ok ? calloc((size_t)n * 9, sizeof(double)) : NULL; /* N, T, B per vertex */
        ok = ok && sums;
        for (int c = 0; ok && c < corners; c += 3) {
            int t[3];
            double p[3][3], uv[3][2];
            for (int j = 0; j < 3; ++j) {
                const cJSON* x = cJSON_GetArrayItem(idx, c + j);
                t[j] = cJSON_IsNumber(x) ? x->valueint : -1;
                if (t[j] < 0 || t[j] >= n) ok = 0;
                for (int i = 0; ok && i < 3; ++i) p[j][i] = row_item(pos, t[j], i);
                for (int i = 0; ok && i < 2; ++i) uv[j][i] = row_item(uvs, t[j], i);
            }
            if (!ok) break;
            double e1[3], e2[3], fn[3], ft[3], fb[3];
            for (int i = 0; i < 3; ++i) e1[i] = p[1][i] - p[0][i], e2[i] = p[2][i] - p[0][i];
            fn[0] = e1[1] * e2[2] - e1[2] * e2[1], fn[1] = e1[2] * e2[0] - e1[0] * e2[2], fn[2] = e1[0] * e2[1] - e1[1] * e2[0];
            double len = sqrt(fn[0] * fn[0] + fn[1] * fn[1] + fn[2] * fn[2]);
            double du1 = uv[1][0] - uv[0][0], dv1 = uv[1][1] - uv[0][1], du2 = uv[2][0] - uv[0][0], dv2 = uv[2][1] - uv[0][1];
            double det = du1 * dv2 - du2 * dv1;
            for (int i = 0; i < 3; ++i) {
                ft[i] = fabs(det) > 1e-12 ? (e1[i] * dv2 - e2[i] * dv1) / det : 0.0;
                fb[i] = fabs(det) > 1e-12 ? (e2[i] * du1 - e1[i] * du2) / det : 0.0;
            }
            double w = area ? len : 1.0; /* the corner weight; the normal adds cross(e1, e2), or its unit */
            for (int j = 0; j < 3; ++j)
                for (int i = 0; i < 3; ++i) {
                    sums[9 * t[j] + i] += area ? fn[i] : fn[i] / len;
                    sums[9 * t[j] + 3 + i] += w * ft[i];
                    sums[9 * t[j] + 6 + i] += w * fb[i];
                }
        }
        const cJSON* rn = cJSON_GetObjectItem(ref, "normals");
        const cJSON* rt = cJSON_GetObjectItem(ref, "tangents");
        double worst = 0.0;
        for (int v = 0; ok && v < n; ++v) {
            const double* N = sums + 9 * v;
            const double* T = N + 3;
            const double* B = N + 6;
            double ln = sqrt(N[0] * N[0] + N[1] * N[1] + N[2] * N[2]), nn[3], tt[3];
            for (int i = 0; i < 3; ++i) nn[i] = N[i] / ln;
            double d = nn[0] * T[0] + nn[1] * T[1] + nn[2] * T[2];
            for (int i = 0; i < 3; ++i) tt[i] = T[i] - d * nn[i];
            double lt = sqrt(tt[0] * tt[0] + tt[1] * tt[1] + tt[2] * tt[2]);
            for (int i = 0; i < 3; ++i) tt[i] /= lt;
            double cx = nn[1] * tt[2] - nn[2] * tt[1], cy = nn[2] * tt[0] - nn[0] * tt[2], cz = nn[0] * tt[1] - nn[1] * tt[0];
            /* glTF's UV convention (the scenes' default): the map's +Y runs along -dP/dv */
            double w = cx * B[0] + cy * B[1] + cz * B[2] > 0.0 ? -1.0 : 1.0;
            for (int i = 0; i < 3; ++i) {
                worst = fmax(worst, fabs(row_item(rn, v, i) - nn[i]));
                worst = fmax(worst, fabs(row_item(rt, v, i) - tt[i]));
            }
            if (!(row_item(rt, v, 3) == w) || !(worst <= 2e-6)) {
                fprintf(stderr, "  %s vertex %d: reference frame off (largest difference %g, w %g, want %g)\n",
                        files[k], v, worst, row_item(rt, v, 3), w);
                ok = 0;
            }
        }
        free(sums);
        /* every method's frames are unit vectors; recompute is the reference itself */
        const cJSON* m = NULL;
        int methods = 0;
        cJSON_ArrayForEach(m, cJSON_GetObjectItem(root, "methods"))
        {
            const cJSON* mn = cJSON_GetObjectItem(m, "normals");
            const cJSON* mt = cJSON_GetObjectItem(m, "tangents");
            methods++;
            for (int v = 0; ok && v < n; ++v) {
                double ln = 0.0, lt = 0.0;
                for (int i = 0; i < 3; ++i) {
                    ln += row_item(mn, v, i) * row_item(mn, v, i);
                    lt += row_item(mt, v, i) * row_item(mt, v, i);
                }
                double w = row_item(mt, v, 3);
                if (!(fabs(ln - 1.0) < 1e-6 && fabs(lt - 1.0) < 1e-6 && (w == 1.0 || w == -1.0))) {
                    fprintf(stderr, "  %s %s vertex %d: not a unit frame\n", files[k], m->string, v);
                    ok = 0;
                }
            }
            if (ok && strcmp(m->string, "recompute") == 0) {
                char* a = cJSON_PrintUnformatted(mn);
                char* b = cJSON_PrintUnformatted(rn);
                ok = a && b && strcmp(a, b) == 0;
                cJSON_free(a);
                cJSON_free(b);
            }
        }
        printf("  %s: %d vertices, reference within %.2g of double precision, %d methods\n", files[k], n, worst, methods);
        cJSON_Delete(root);
        CHECK(ok && methods == SF_METHOD_DEFAULT_COUNT);
    }
}

static void test_reprint(void)
{
    /* Every method, a morph, a larger mesh: parsing the dump and printing it with cJSON gives its bytes. */
    char out[700], args[2000];
    snprintf(out, sizeof out, "%s/big.json", g_dir);
    snprintf(args, sizeof args,
             "compare --scene sheet --morph towel-twist=0.7,swirl=0.5 --set twist=90,resolution=24 --dump '%s'", out);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 0);
    sft_cli_out_free(&r);
    size_t size;
    char* text = sft_read_file(out, &size);
    CHECK(text != NULL && size > 100000);
    cJSON* root = cJSON_Parse(text);
    CHECK(root != NULL);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(root, "positions")) == (5 * 24 + 1) * (24 + 1)); /* (5r+1)(r+1) */
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(root, "methods")) == SF_METHOD_DEFAULT_COUNT);
    char* again = cJSON_PrintUnformatted(root);
    CHECK(again && strlen(again) == size && memcmp(again, text, size) == 0);
    cJSON_free(again);
    cJSON_Delete(root);
    free(text);
    /* A second dump over the first replaces it whole. */
    snprintf(args, sizeof args, "compare --scene tip --dump '%s'", out);
    r = sft_run_cli(args);
    CHECK(r.status == 0);
    sft_cli_out_free(&r);
    text = sft_read_file(out, &size);
    CHECK(text && size < 10000 && text[0] == '{' && text[size - 1] == '}');
    free(text);
    CHECK(files_in(g_dir) == 1);
    remove(out);
}

/* Peak RSS (KiB) of one command run by a forked child (its largest child is that run). */
static long peak_rss(const char* args, int* ok)
{
    int fd[2];
    if (pipe(fd) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        sft_cli_out r = sft_run_cli(args);
        struct rusage ru;
        long v[2] = {r.status == 0, getrusage(RUSAGE_CHILDREN, &ru) == 0 ? ru.ru_maxrss : -1};
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
    *ok = got == (ssize_t)sizeof v && (int)v[0];
    return v[1];
}

static void test_memory(void)
{
    /* resolution 64: a dump of about 8 MB; as one cJSON tree it took about 35 times that. */
    char out[700], args[2000];
    snprintf(out, sizeof out, "%s/mem.json", g_dir);
    int ok1 = 0, ok2 = 0;
    long plain = peak_rss("compare --scene sheet --preset bone-twist --set resolution=64", &ok1);
    snprintf(args, sizeof args, "compare --scene sheet --preset bone-twist --set resolution=64 --dump '%s'", out);
    long dumped = peak_rss(args, &ok2);
    size_t size = 0;
    char* text = sft_read_file(out, &size);
    free(text);
    remove(out);
    fprintf(stderr, "  peak RSS: %ld KiB without the dump, %ld KiB with a %zu-byte dump\n", plain, dumped, size);
    CHECK(ok1 && ok2 && size > 4000000);
    CHECK(dumped - plain < (long)(size / 1024)); /* less than the dump's own size on top */
}

int main(int argc, char** argv)
{
    if (!getenv("SF_CLI")) {
        fprintf(stderr, "SF_CLI not set: skipped\n");
        return 77;
    }
    const char* build = getenv("SF_BUILD_DIR");
    snprintf(g_dir, sizeof g_dir, "%s/test_eval_dump.XXXXXX", build ? build : "/tmp");
    if (!mkdtemp(g_dir)) return 1;
    static const sft_case cases[] = {
        {"golden_bytes", test_golden_bytes},
        {"golden_numbers", test_golden_numbers},
        {"reprint", test_reprint},
        {"memory", test_memory},
    };
    int status = SFT_RUN(cases, argc, argv);
    rmdir(g_dir);
    return status;
}

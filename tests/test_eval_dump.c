// LABELS: cli
/* compare --dump, streamed: the same bytes as the whole-tree writer gave (tests/golden/compare-dump-*.json were
 * written by it), the same bytes cJSON prints for the parsed dump of a larger case, written atomically (no
 * temporary file left, an earlier dump replaced whole), and memory that does not grow with the dump's size. */
#define _POSIX_C_SOURCE 200809L
#include "sf_test.h"

#include <cjson/cJSON.h>
#include <dirent.h>
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
        {"reprint", test_reprint},
        {"memory", test_memory},
    };
    int status = SFT_RUN(cases, argc, argv);
    rmdir(g_dir);
    return status;
}

#define _POSIX_C_SOURCE 200809L
#include "sf_test.h"

#include "sf_internal.h" /* sfi_simd_force */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifndef __wasi__
#include <sys/wait.h>
#endif

int sft_failed_now = 0;

void sft_fail(const char* file, int line, const char* expr)
{
    fprintf(stderr, "  FAIL %s:%d: %s\n", file, line, expr);
    sft_failed_now = 1;
}

void sft_fail_result(const char* file, int line, const char* expr, sf_result got, sf_result want)
{
    fprintf(stderr, "  FAIL %s:%d: %s returned %d (%s), want %d (%s)\n", file, line, expr, (int)got,
            sf_result_string(got), (int)want, sf_result_string(want));
    sft_failed_now = 1;
}

void sft_failf(const char* file, int line, const char* fmt, ...)
{
    fprintf(stderr, "  FAIL %s:%d: ", file, line);
    va_list args;
    va_start(args, fmt);
    vfprintf(stderr, fmt, args);
    va_end(args);
    fputc('\n', stderr);
    sft_failed_now = 1;
}

static const char* skipped_now; /* why the running case skipped itself, or NULL */

void sft_skip(const char* why) { skipped_now = why; }

/* $SFT_SIMD caps the fast paths' instruction set for the whole program: with "scalar" the oracles check the scalar
 * kernels that the CUDA and WebAssembly builds share, which the detected level would otherwise bypass.
 * 0 when unset or applied, -1 (after a message naming it) when the value is not a level. */
static int force_simd_level(void)
{
    static const struct {
        const char* name;
        int level;
    } levels[] = {{"scalar", SFI_SIMD_SCALAR}, {"sse2", SFI_SIMD_SSE2}, {"avx2", SFI_SIMD_AVX2}, {"avx512", SFI_SIMD_AVX512}};
    const char* want = getenv("SFT_SIMD");
    if (!want || !*want) return 0;
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; ++i) {
        if (strcmp(want, levels[i].name) == 0) {
            sfi_simd_force(levels[i].level);
            printf("fast paths capped at %s (SFT_SIMD)\n", want);
            return 0;
        }
    }
    fprintf(stderr, "SFT_SIMD: unknown level '%s' (known: scalar, sse2, avx2, avx512)\n", want);
    return -1;
}

int sft_run(const sft_case* cases, size_t n, int argc, char** argv)
{
    const char* filter = argc > 1 ? argv[1] : NULL;
    if (force_simd_level() != 0) return 2;
    int passed = 0, failed = 0, skipped = 0;
    for (size_t i = 0; i < n; ++i) {
        if (filter && !strstr(cases[i].name, filter)) continue;
        sft_failed_now = 0;
        skipped_now = NULL;
        cases[i].fn();
        if (sft_failed_now) {
            fprintf(stderr, "FAIL %s\n", cases[i].name);
            failed++;
        } else if (skipped_now) {
            printf("skip %s: %s\n", cases[i].name, skipped_now);
            skipped++;
        } else {
            printf("ok   %s\n", cases[i].name);
            passed++;
        }
    }
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    /* a skipped case makes the program a skip (ctest's SKIP_RETURN_CODE), never a pass */
    return failed ? 1 : skipped ? 77 : 0;
}

const char* sft_asset(const char* rel, char* buf, size_t size)
{
    const char* root = getenv("SF_ASSETS");
    if (!root) return NULL;
    snprintf(buf, size, "%s/%s", root, rel);
    FILE* f = fopen(buf, "rb");
    if (!f) return NULL;
    fclose(f);
    return buf;
}

static void* counting_alloc(void* user, size_t size, size_t align)
{
    sft_alloc_counter* c = (sft_alloc_counter*)user;
    (void)align; /* the library asks for 16, which malloc gives */
    c->calls++;
    if (c->fail_at && (c->calls == c->fail_at || (c->fail_rest && c->calls > c->fail_at))) {
        c->failures++;
        return NULL;
    }
    void* p = malloc(size);
    if (p) {
        c->allocations++;
        c->live++;
        c->bytes += size;
    }
    return p;
}

static void counting_free(void* user, void* ptr, size_t size)
{
    sft_alloc_counter* c = (sft_alloc_counter*)user;
    (void)size;
    c->frees++;
    if (ptr) c->live--;
    free(ptr);
}

sf_env sft_counting_env(sft_alloc_counter* c)
{
    sf_env env;
    memset(&env, 0, sizeof env);
    env.allocator.alloc = counting_alloc;
    env.allocator.free = counting_free;
    env.allocator.user = c;
    return env;
}

char* sft_read_file(const char* path, size_t* size)
{
    FILE* f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, len = 0, got;
    char* buf = malloc(cap);
    while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len < 2) {
            char* bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf) buf[len] = '\0';
    if (size) *size = len;
    return buf;
}

#ifndef __wasi__
/* A temporary file name for captured output; the file is removed after reading. */
static int capture_path(char* path, size_t size)
{
    const char* tmp = getenv("TMPDIR");
    snprintf(path, size, "%s/sf_test_out_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    close(fd);
    return 0;
}

static char* take_file(const char* path)
{
    char* text = sft_read_file(path, NULL);
    remove(path);
    return text ? text : calloc(1, 1);
}
#endif

sft_cli_out sft_run_cli(const char* args)
{
    sft_cli_out r = {-1, NULL, NULL};
#ifdef __wasi__
    (void)args; /* WASI runs no other program: as where $SF_CLI is unset */
#else
    const char* cli = getenv("SF_CLI");
    char out_path[512], err_path[512];
    if (cli && capture_path(out_path, sizeof out_path) == 0 && capture_path(err_path, sizeof err_path) == 0) {
        size_t size = strlen(cli) + strlen(args) + sizeof out_path + sizeof err_path + 32;
        char* cmd = malloc(size);
        if (cmd) {
            snprintf(cmd, size, "'%s' %s >'%s' 2>'%s'", cli, args, out_path, err_path);
            int st = system(cmd);
            r.status = st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
            free(cmd);
        }
        r.out = take_file(out_path);
        r.err = take_file(err_path);
    }
#endif
    if (!r.out) r.out = calloc(1, 1);
    if (!r.err) r.err = calloc(1, 1);
    return r;
}

void sft_cli_out_free(sft_cli_out* r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

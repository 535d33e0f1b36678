#include "sf_test.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int sft_run(const sft_case* cases, size_t n, int argc, char** argv)
{
    const char* filter = argc > 1 ? argv[1] : NULL;
    int passed = 0, failed = 0;
    for (size_t i = 0; i < n; ++i) {
        if (filter && !strstr(cases[i].name, filter)) continue;
        sft_failed_now = 0;
        cases[i].fn();
        if (sft_failed_now) {
            fprintf(stderr, "FAIL %s\n", cases[i].name);
            failed++;
        } else {
            printf("ok   %s\n", cases[i].name);
            passed++;
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
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

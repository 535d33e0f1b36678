/* A plain C test runner: CHECK macros and a case table; prints "N passed, N failed". */
#ifndef SF_TEST_H
#define SF_TEST_H

#include "skinframe.h"
#include "skinframe_files.h"
#include "skinframe_gltf.h"
#include "skinframe_render.h"
#include "skinframe_scenes.h"

#include <math.h>

#define SFT_PI 3.14159265358979323846
#include <stddef.h>

void sft_fail(const char* file, int line, const char* expr);
void sft_fail_result(const char* file, int line, const char* expr, sf_result got, sf_result want);
void sft_failf(const char* file, int line, const char* fmt, ...);
extern int sft_failed_now;

#define CHECK(c)                                 \
    do {                                         \
        if (!(c)) {                              \
            sft_fail(__FILE__, __LINE__, #c);    \
            return;                              \
        }                                        \
    } while (0)

#define CHECK_NEAR(a, b, eps)                                                                            \
    do {                                                                                                 \
        double a_ = (double)(a), b_ = (double)(b);                                                       \
        if (!(fabs(a_ - b_) <= (double)(eps))) {                                                         \
            sft_failf(__FILE__, __LINE__, "%s = %.9g, %s = %.9g, |diff| > %g", #a, a_, #b, b_, (double)(eps)); \
            return;                                                                                      \
        }                                                                                                \
    } while (0)

#define CHECK_RESULT(expr, want)                                       \
    do {                                                               \
        sf_result r_ = (expr);                                         \
        if (r_ != (want)) {                                            \
            sft_fail_result(__FILE__, __LINE__, #expr, r_, (want));    \
            return;                                                    \
        }                                                              \
    } while (0)

#define CHECK_OK(expr) CHECK_RESULT(expr, SF_OK)

typedef struct sft_case {
    const char* name;
    void (*fn)(void);
} sft_case;

/* Runs every case (or those whose name contains argv[1]); returns the process exit code. */
int sft_run(const sft_case* cases, size_t n, int argc, char** argv);
/* The running case did not run what it tests (why: a static string); sft_run then exits 77 unless a case failed. */
void sft_skip(const char* why);

#define SFT_RUN(cases, argc, argv) sft_run((cases), sizeof(cases) / sizeof((cases)[0]), (argc), (argv))

/* The whole file as a NUL-terminated string (size without the NUL may be NULL); NULL when unreadable. */
char* sft_read_file(const char* path, size_t* size);

/* Runs `$SF_CLI ARGS` (ARGS pasted into a shell command line) with stdout and stderr captured.
 * status is the exit status, or -1 when $SF_CLI is not set or the command could not run. */
typedef struct sft_cli_out {
    int status;
    char* out; /* never NULL */
    char* err; /* never NULL */
} sft_cli_out;
sft_cli_out sft_run_cli(const char* args);
void sft_cli_out_free(sft_cli_out* r);

/* Path of a shared asset ($SF_ASSETS/rel), or NULL when the assets are not there. */
const char* sft_asset(const char* rel, char* buf, size_t size);

/* An sf_env allocator (malloc/free underneath) that counts and can fail. calls: every alloc call, failed
 * ones included; allocations: the successful ones; frees: every free call; live: blocks held now; bytes:
 * the total size handed out; failures: the calls failed on purpose. fail_at: the 1-based call that fails
 * (0 = none); fail_rest: 1 = that call and every later one fail (a budget of fail_at - 1), 0 = only that one.
 * The fields may be set or reset between calls; the env points at c. */
typedef struct sft_alloc_counter {
    size_t calls, allocations, frees, live, bytes, failures;
    size_t fail_at;
    int fail_rest;
} sft_alloc_counter;
sf_env sft_counting_env(sft_alloc_counter* c);

#endif

// LABELS: unit
/* sf_angle_stats_compute's exact percentiles (selection, not a sort) against a sorted copy made here with
 * qsort: p50, p95 and max the same bits on random data, ties, zeros, sorted, reverse and organ-pipe inputs of
 * every small size and a few large ones; and the selection itself (introselect, and its heap fallback forced
 * by a zero or small depth limit) leaves every k's order statistic in place with the partition around it. */
#include "sf_internal.h"
#include "sf_kernels.h"
#include "sf_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_float(const void* a, const void* b)
{
    float x = *(const float*)a, y = *(const float*)b;
    return (x > y) - (x < y);
}

/* The definition: linear interpolation between the order statistics around q (n - 1) of a sorted copy. */
static double percentile_sorted(const float* s, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    if (lo + 1 >= n) return s[n - 1];
    double frac = pos - (double)lo;
    return (double)s[lo] + ((double)s[lo + 1] - (double)s[lo]) * frac;
}

static uint32_t g_rng = 12345u;
static uint32_t next_random(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 17;
    g_rng ^= g_rng << 5;
    return g_rng;
}

enum { PATTERN_RANDOM, PATTERN_TIES, PATTERN_ZEROS, PATTERN_MOSTLY_ZERO, PATTERN_SORTED, PATTERN_REVERSE,
       PATTERN_ORGAN, PATTERN_SAWTOOTH, PATTERN_SIGNED, PATTERN_COUNT };
static const char* const pattern_names[PATTERN_COUNT] = {"random", "ties", "zeros", "mostly-zero", "sorted",
                                                         "reverse", "organ-pipe", "sawtooth", "signed"};

static void fill(float* a, size_t n, int pattern)
{
    for (size_t i = 0; i < n; ++i) {
        float r = (float)(next_random() % 1000000u) * (180.0f / 1000000.0f);
        switch (pattern) {
        case PATTERN_RANDOM: a[i] = r; break;
        case PATTERN_TIES: a[i] = (float)(next_random() % 4u) * 0.5f; break;
        case PATTERN_ZEROS: a[i] = 0.0f; break;
        case PATTERN_MOSTLY_ZERO: a[i] = next_random() % 10u ? 0.0f : r; break;
        case PATTERN_SORTED: a[i] = (float)i * 0.25f; break;
        case PATTERN_REVERSE: a[i] = (float)(n - i) * 0.25f; break;
        case PATTERN_ORGAN: a[i] = (float)(i < n / 2 ? i : n - i); break;
        case PATTERN_SAWTOOTH: a[i] = (float)(i % 7u); break;
        default: a[i] = r - 90.0f; break; /* the function takes any finite value */
        }
    }
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* One input: the statistics' p50/p95/max against the sorted copy, bit for bit. */
static int check_stats(const float* a, size_t n, const char* what)
{
    float* s = malloc(n * sizeof *s);
    float* scratch = malloc(n * sizeof *scratch);
    if (!s || !scratch) return 0;
    memcpy(s, a, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_float);
    sf_angle_stats st;
    sf_error err;
    int ok = sf_angle_stats_compute(a, n, scratch, NULL, &st, &err) == SF_OK;
    double p50 = percentile_sorted(s, n, 0.50), p95 = percentile_sorted(s, n, 0.95), max = s[n - 1];
    if (ok && !(same_bits(st.p50, p50) && same_bits(st.p95, p95) && same_bits(st.max, max))) {
        fprintf(stderr, "  %s n=%zu: p50 %.17g vs %.17g, p95 %.17g vs %.17g, max %.17g vs %.17g\n", what, n, st.p50,
                p50, st.p95, p95, st.max, max);
        ok = 0;
    }
    /* The working copy holds the same values (only reordered). */
    if (ok) {
        qsort(scratch, n, sizeof *scratch, cmp_float);
        ok = memcmp(scratch, s, n * sizeof *s) == 0;
    }
    free(s);
    free(scratch);
    return ok;
}

static void test_percentiles_match_sort(void)
{
    float* a = malloc(100001 * sizeof *a);
    CHECK(a != NULL);
    static const size_t large[] = {1000, 1001, 4096, 20224, 100001};
    for (int p = 0; p < PATTERN_COUNT; ++p) {
        for (size_t n = 1; n <= 130; ++n) {
            fill(a, n, p);
            if (!check_stats(a, n, pattern_names[p])) {
                free(a);
                CHECK(!"small input");
            }
        }
        for (size_t i = 0; i < sizeof large / sizeof large[0]; ++i) {
            fill(a, large[i], p);
            if (!check_stats(a, large[i], pattern_names[p])) {
                free(a);
                CHECK(!"large input");
            }
        }
    }
    free(a);
}

/* a (n values, sorted copy s) after selecting k: a[k] == s[k], nothing larger before it, nothing smaller after. */
static int selected(const float* a, const float* s, size_t n, size_t k)
{
    if (a[k] != s[k]) return 0;
    for (size_t i = 0; i < k; ++i)
        if (a[i] > a[k]) return 0;
    for (size_t i = k + 1; i < n; ++i)
        if (a[i] < a[k]) return 0;
    return 1;
}

static void test_select_every_k(void)
{
    enum { N = 67 };
    float a[N], s[N], w[N];
    static const size_t depths[] = {0, 1, 2, 1000};
    for (int p = 0; p < PATTERN_COUNT; ++p)
        for (size_t n = 1; n <= N; n += 11)
            for (size_t d = 0; d < sizeof depths / sizeof depths[0]; ++d)
                for (size_t k = 0; k < n; ++k) {
                    fill(a, n, p);
                    memcpy(s, a, n * sizeof *a);
                    qsort(s, n, sizeof *s, cmp_float);
                    memcpy(w, a, n * sizeof *a);
                    sfi_select_floats(w, n, k, depths[d]);
                    if (!selected(w, s, n, k))
                        fprintf(stderr, "  %s n=%zu k=%zu depth=%zu\n", pattern_names[p], n, k, depths[d]);
                    CHECK(selected(w, s, n, k));
                    qsort(w, n, sizeof *w, cmp_float);
                    CHECK(memcmp(w, s, n * sizeof *s) == 0); /* a permutation */
                }
}

static void test_select_depth(void)
{
    CHECK(sfi_select_depth(0) == 0 && sfi_select_depth(1) == 0);
    CHECK(sfi_select_depth(2) == 2 && sfi_select_depth(3) == 2 && sfi_select_depth(4) == 4);
    CHECK(sfi_select_depth(20224) == 28); /* 2 floor(log2 20224) = 2 * 14 */
}

/* sf_angle_deg (its own atan2) against libm's atan2 of the same cross and dot: within 1e-9 degrees on random pairs,
 * pairs a tiny angle apart, near 90 and near 180 degrees, and 0 exactly for equal directions. */
static void test_angle_matches_libm(void)
{
    unsigned long long r = 99;
    double worst = 0.0;
    for (int i = 0; i < 400000; ++i) {
        float a[3], b[3];
        for (int k = 0; k < 3; ++k) {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            a[k] = (float)((double)(r >> 40) / (double)(1ull << 23) - 1.0);
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            b[k] = (float)((double)(r >> 40) / (double)(1ull << 23) - 1.0);
        }
        int mode = i % 4; /* random, a tiny angle, near 90 (b orthogonalised), near 180 */
        if (mode == 1) for (int k = 0; k < 3; ++k) b[k] = a[k] + 1e-6f * b[k];
        if (mode == 3) for (int k = 0; k < 3; ++k) b[k] = -a[k] + 1e-4f * b[k];
        if (mode == 2) {
            double d = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
            double l = (double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2];
            for (int k = 0; k < 3; ++k) b[k] = (float)(b[k] - a[k] * d / l);
        }
        double la = (double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2];
        double lb = (double)b[0] * b[0] + (double)b[1] * b[1] + (double)b[2] * b[2];
        if (!(la >= 1e-24) || !(lb >= 1e-24)) continue;
        double d = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
        double cx = (double)a[1] * b[2] - (double)a[2] * b[1], cy = (double)a[2] * b[0] - (double)a[0] * b[2];
        double cz = (double)a[0] * b[1] - (double)a[1] * b[0];
        double want = atan2(sqrt(cx * cx + cy * cy + cz * cz), d) * (180.0 / 3.14159265358979323846);
        double e = fabs(sf_angle_deg(a, b) - want);
        if (e > worst) worst = e;
        CHECK(sf_angle_deg(a, a) == 0.0);
    }
    CHECK(worst < 1e-9);
    const float x[3] = {1, 0, 0}, y[3] = {0, 2, 0}, mx[3] = {-3, 0, 0}, z[3] = {0, 0, 0};
    CHECK_NEAR(sf_angle_deg(x, y), 90.0, 1e-12);
    CHECK_NEAR(sf_angle_deg(x, mx), 180.0, 1e-12);
    CHECK(sf_angle_deg(x, z) == 180.0);
    /* a direction that is not finite is no direction: 180, as a zero one, whichever side it is on */
    const float inf = (float)INFINITY, nan = (float)NAN;
    const float bad[4][3] = {{inf, 1, 0}, {-inf, inf, 0}, {inf, inf, inf}, {nan, 1, 0}};
    for (int i = 0; i < 4; ++i) {
        CHECK(sf_angle_deg(bad[i], x) == 180.0);
        CHECK(sf_angle_deg(x, bad[i]) == 180.0);
        CHECK(sf_angle_deg(bad[i], bad[i]) == 180.0);
    }
}

/* sfk_angle_bin's linear bins in float arithmetic: every float from 2^-2 to 180 in the bin the double formula
 * gives. */
static void test_bins_float_exact(void)
{
    size_t wrong = 0, seen = 0;
    for (float a = 0.25f; a <= 180.0f; a = nextafterf(a, INFINITY), ++seen) {
        uint32_t k = (uint32_t)(((double)a - SFK_ANGLE_LINEAR_START) * (1 << SFK_ANGLE_LINEAR_BITS));
        uint32_t want = SFK_ANGLE_LINEAR_FIRST + (k < SFK_ANGLE_LINEAR_BINS ? k : SFK_ANGLE_LINEAR_BINS - 1u);
        wrong += (size_t)(sfk_angle_bin(a) != want);
    }
    printf("linear bins: %zu floats, %zu in another bin\n", seen, wrong);
    CHECK(seen > 70000000u);
    CHECK(wrong == 0);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"angle_matches_libm", test_angle_matches_libm},
        {"bins_float_exact", test_bins_float_exact},
        {"percentiles_match_sort", test_percentiles_match_sort},
        {"select_every_k", test_select_every_k},
        {"select_depth", test_select_depth},
    };
    return SFT_RUN(cases, argc, argv);
}

// LABELS: unit
/* The streaming angle statistics (sf_angle_accumulator) against sf_angle_stats_compute's exact ones: count,
 * mean, RMS, max and shares bit for bit; p50/p95 within the documented bound (less than one histogram bin at
 * the exact value) on random data of several shapes and on a real asset's angles over many frames; merges in
 * a fixed order, whole or in parts; every bin's count against a count over the sorted angles, past the narrow counters' carries;
 * rejected input leaves the accumulator as it was; memory through the env allocator. */
#include "sf_internal.h"
#include "sf_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The documented resolution, written independently of src/core/stats.c: the width of the bin holding x. */
static double bin_width(double x)
{
    if (x == 0.0) return 0.0;
    if (x < ldexp(1.0, -20)) return ldexp(1.0, -20);
    if (x < 0.25) {
        int e;
        frexp(x, &e); /* x = f * 2^e, f in [0.5, 1): the octave [2^(e-1), 2^e) */
        return ldexp(1.0, e - 1 - 8);
    }
    return ldexp(1.0, -10);
}

static int cmp_float(const void* a, const void* b)
{
    float x = *(const float*)a, y = *(const float*)b;
    return (x > y) - (x < y);
}

/* The allowed error of percentile q: less than one bin at the exact order statistics it lies between. */
static double allowed(const float* sorted, size_t n, double q)
{
    size_t lo = (size_t)(q * (double)(n - 1));
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    double a = bin_width(sorted[lo]), b = bin_width(sorted[hi]);
    return a > b ? a : b;
}

static double g_worst_diff; /* largest |histogram - exact| percentile difference seen, degrees */

/* Accumulates a[n] in pieces of `piece` angles and checks the result against sf_angle_stats_compute. */
static int check_against_exact(const float* a, size_t n, size_t piece, const char* what)
{
    sf_error err;
    sf_angle_stats exact, got;
    if (sf_angle_stats_compute(a, n, NULL, NULL, &exact, &err) != SF_OK) return 0;
    sf_angle_accumulator* acc = NULL;
    if (sf_angle_accumulator_create(NULL, &acc, &err) != SF_OK) return 0;
    for (size_t i = 0; i < n; i += piece)
        if (sf_angle_accumulator_add(acc, a + i, n - i < piece ? n - i : piece, &err) != SF_OK) return 0;
    int ok = sf_angle_accumulator_finish(acc, &got, &err) == SF_OK;
    sf_angle_accumulator_destroy(acc);
    if (!ok) return 0;
    /* One add runs the sums in the same order as the exact statistics: the same bits. In pieces too,
     * since the running sums carry over from add to add. */
    if (got.count != exact.count || got.mean != exact.mean || got.rms != exact.rms || got.max != exact.max ||
        got.over_1 != exact.over_1 || got.over_5 != exact.over_5 || got.over_45 != exact.over_45) {
        fprintf(stderr, "  %s: exact parts differ (mean %.17g vs %.17g)\n", what, got.mean, exact.mean);
        return 0;
    }
    float* sorted = malloc(n * sizeof *sorted);
    memcpy(sorted, a, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_float);
    double e50 = fabs(got.p50 - exact.p50), e95 = fabs(got.p95 - exact.p95);
    double b50 = allowed(sorted, n, 0.50), b95 = allowed(sorted, n, 0.95);
    free(sorted);
    if (e50 > g_worst_diff) g_worst_diff = e50;
    if (e95 > g_worst_diff) g_worst_diff = e95;
    if (!(e50 < b50 || e50 == 0.0) || !(e95 < b95 || e95 == 0.0)) {
        fprintf(stderr, "  %s: p50 %.9g vs %.9g (bound %g), p95 %.9g vs %.9g (bound %g)\n", what, got.p50,
                exact.p50, b50, got.p95, exact.p95, b95);
        return 0;
    }
    return 1;
}

static uint64_t g_rng = 88172645463325252ull;
static double uniform01(void)
{
    g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
    return (double)(g_rng >> 11) / 9007199254740992.0;
}

static void test_random_shapes(void)
{
    const size_t sizes[] = {1, 2, 3, 5, 20, 1001, 200000};
    float* a = malloc(200000 * sizeof *a);
    CHECK(a != NULL);
    for (int shape = 0; shape < 6; ++shape) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
            size_t n = sizes[s];
            for (size_t i = 0; i < n; ++i) {
                double u = uniform01(), x;
                switch (shape) {
                case 0: x = 180.0 * u; break;                         /* uniform over the whole range */
                case 1: x = -0.2 * log(1.0 - u); break;               /* small errors, a good method */
                case 2: x = pow(10.0, -8.0 + 10.3 * u); break;        /* log-uniform 1e-8 .. 180 */
                case 3: x = u < 0.6 ? 0.0 : 3.0 * u; break;           /* exact zeros (rigid parts) and a tail */
                case 4: x = (double)(int)(u * 4.0) * 0.37; break;     /* a few repeated values */
                default: x = u < 0.98 ? 1e-4 * u : 90.0 + 90.0 * u;  /* near zero, a few flipped */
                }
                if (x > 180.0) x = 180.0;
                a[i] = (float)x;
            }
            char what[64];
            snprintf(what, sizeof what, "shape %d, %zu angles", shape, n);
            CHECK(check_against_exact(a, n, n, what));
            CHECK(check_against_exact(a, n, n > 7 ? n / 7 : 1, what)); /* in pieces: the same sums */
        }
    }
    free(a);
    /* Ends of the range, exactly. */
    const float ends[] = {0.0f, 180.0f, 180.0f, 0.0f, 1e-30f, 0.25f, 0.2499999f};
    CHECK(check_against_exact(ends, 7, 7, "range ends"));
    const float same[] = {1.5f, 1.5f, 1.5f, 1.5f};
    sf_angle_accumulator* acc;
    sf_angle_stats st;
    CHECK_OK(sf_angle_accumulator_create(NULL, &acc, NULL));
    CHECK_OK(sf_angle_accumulator_add(acc, same, 4, NULL));
    CHECK_OK(sf_angle_accumulator_finish(acc, &st, NULL));
    CHECK(st.p50 == 1.5 && st.p95 == 1.5); /* one value: clamped to min = max, exact */
    sf_angle_accumulator_destroy(acc);
    fprintf(stderr, "  random data: largest percentile difference %.3g deg\n", g_worst_diff);
}

/* The documented bins, numbered independently of src/core/stats.c: 0 for exactly 0, 1 for (0, 2^-20), 256 per
 * octave up to 0.25, then 2^-10 wide up to 180 (180 itself in the last). */
#define DOC_LOG_BINS (18u * 256u)
#define DOC_LINEAR_BINS ((unsigned)((180.0 - 0.25) * 1024.0))
#define DOC_BINS (2u + DOC_LOG_BINS + DOC_LINEAR_BINS)
static size_t doc_bin(double x)
{
    if (x == 0.0) return 0;
    if (x < ldexp(1.0, -20)) return 1;
    if (x < 0.25) {
        int e;
        double f = frexp(x, &e); /* x = f * 2^e, f in [0.5, 1): octave e - 1 */
        return 2 + (size_t)(e - 1 + 20) * 256 + (size_t)((2.0 * f - 1.0) * 256.0);
    }
    size_t k = (size_t)((x - 0.25) * 1024.0);
    return 2 + DOC_LOG_BINS + (k < DOC_LINEAR_BINS ? k : DOC_LINEAR_BINS - 1);
}

/* Every bin's count in acc against a count over the sorted angles. */
static int bins_match(const sf_angle_accumulator* acc, const float* a, size_t n, const char* what)
{
    float* sorted = malloc((n ? n : 1) * sizeof *sorted);
    uint64_t* want = calloc(DOC_BINS, sizeof *want);
    if (!sorted || !want) return free(sorted), free(want), 0;
    memcpy(sorted, a, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_float);
    for (size_t i = 0; i < n;) { /* one run of equal angles at a time */
        size_t j = i;
        while (j < n && sorted[j] == sorted[i]) ++j;
        want[doc_bin(sorted[i])] += j - i;
        i = j;
    }
    int ok = 1;
    uint64_t total = 0;
    for (size_t b = 0; b < DOC_BINS && ok; ++b) {
        uint64_t got = sfi_angle_accumulator_bin_count(acc, b);
        total += got;
        if (got != want[b]) {
            fprintf(stderr, "  %s: bin %zu holds %llu angles, %llu expected\n", what, b, (unsigned long long)got,
                    (unsigned long long)want[b]);
            ok = 0;
        }
    }
    if (ok && total != n) {
        fprintf(stderr, "  %s: %llu angles in the bins, %zu added\n", what, (unsigned long long)total, n);
        ok = 0;
    }
    free(sorted), free(want);
    return ok;
}

/* Bins filled past the accumulator's narrow counters (it carries every 256 angles of a bin into a wide
 * total): counts just below, at and above multiples of 256, and 70,000 in one bin, added in pieces, merged,
 * reset and refilled, checked bin by bin against the sorted angles and, for p50 / p95, against the exact
 * statistics. */
static void test_bins_exact(void)
{
    static const size_t runs[] = {1, 255, 256, 257, 511, 512, 513, 767, 768, 1023, 1024, 1025, 70000};
    enum { RUNS = sizeof runs / sizeof runs[0], SPREAD = 5000 };
    size_t n = SPREAD;
    for (size_t r = 0; r < RUNS; ++r) n += runs[r];
    float* a = malloc(n * sizeof *a);
    CHECK(a != NULL);
    for (int round = 0; round < 4; ++round) {
        /* Run r repeats one random angle (a few share a bin: their counts add); SPREAD more are random over
         * every scale; then all shuffled. */
        size_t k = 0;
        for (size_t r = 0; r < RUNS; ++r) {
            double u = uniform01();
            float v = (float)(r % 3 == 0 ? 0.0 : r % 3 == 1 ? pow(10.0, -7.0 + 9.0 * u) : 180.0 * u);
            for (size_t i = 0; i < runs[r]; ++i) a[k++] = v;
        }
        for (; k < n; ++k) a[k] = (float)(uniform01() < 0.1 ? 180.0 : pow(10.0, -8.0 + 10.3 * uniform01()));
        for (size_t i = 0; i < n; ++i) a[i] = a[i] > 180.0f ? 180.0f : a[i];
        for (size_t i = n - 1; round > 0 && i > 0; --i) { /* round 0 keeps the runs in order */
            size_t j = (size_t)(uniform01() * (double)(i + 1));
            float t = a[i];
            a[i] = a[j], a[j] = t;
        }
        char what[64];
        snprintf(what, sizeof what, "round %d", round);
        sf_angle_accumulator *one, *merged, *part;
        CHECK_OK(sf_angle_accumulator_create(NULL, &one, NULL));
        CHECK_OK(sf_angle_accumulator_create(NULL, &merged, NULL));
        CHECK_OK(sf_angle_accumulator_create(NULL, &part, NULL));
        size_t piece = round == 0 ? n : (size_t)(1 + uniform01() * 3000.0);
        for (size_t i = 0; i < n; i += piece)
            CHECK_OK(sf_angle_accumulator_add(one, a + i, n - i < piece ? n - i : piece, NULL));
        CHECK(bins_match(one, a, n, what));
        /* in parts of 600 angles (under and over a carry), each merged in, the part reset for the next */
        for (size_t i = 0; i < n; i += 600) {
            sf_angle_accumulator_reset(part);
            CHECK_OK(sf_angle_accumulator_add(part, a + i, n - i < 600 ? n - i : 600, NULL));
            CHECK_OK(sf_angle_accumulator_merge(merged, part, NULL));
        }
        CHECK(bins_match(merged, a, n, what));
        /* merged into one that already carried: every count doubles */
        CHECK_OK(sf_angle_accumulator_merge(merged, one, NULL));
        sf_angle_stats st;
        CHECK_OK(sf_angle_accumulator_finish(merged, &st, NULL));
        CHECK(st.count == 2 * n);
        for (size_t b = 0; b < DOC_BINS; b += 97) CHECK(sfi_angle_accumulator_bin_count(merged, b) % 2 == 0);
        /* reset after carries: empty, then the same counts from a second fill */
        sf_angle_accumulator_reset(one);
        CHECK(bins_match(one, a, 0, what));
        CHECK_OK(sf_angle_accumulator_add(one, a, n, NULL));
        CHECK(bins_match(one, a, n, what));
        CHECK(check_against_exact(a, n, piece, what));
        sf_angle_accumulator_destroy(one);
        sf_angle_accumulator_destroy(merged);
        sf_angle_accumulator_destroy(part);
    }
    free(a);
}

/* sf_angle_accumulator_merge_part: a merge in 1, 3, 64 or 30,000 parts (more parts than cache lines of bins:
 * some empty), the parts in a shuffled order, gives merge's result bit for bit, bin by bin. */
static void test_merge_parts(void)
{
    enum { N = 40000, SRCS = 3 };
    float* a = malloc(N * sizeof *a);
    CHECK(a != NULL);
    for (size_t i = 0; i < N; ++i) a[i] = (float)(i % 5 == 0 ? 0.0 : pow(10.0, -8.0 + 10.2 * uniform01()));
    sf_angle_accumulator *src[SRCS], *whole, *parted;
    for (int s = 0; s < SRCS; ++s) {
        CHECK_OK(sf_angle_accumulator_create(NULL, &src[s], NULL));
        CHECK_OK(sf_angle_accumulator_add(src[s], a + (size_t)s * N / SRCS, N / SRCS, NULL));
    }
    CHECK_OK(sf_angle_accumulator_create(NULL, &whole, NULL));
    CHECK_OK(sf_angle_accumulator_create(NULL, &parted, NULL));
    for (int s = 0; s < SRCS; ++s) CHECK_OK(sf_angle_accumulator_merge(whole, src[s], NULL));
    sf_angle_stats w, p;
    CHECK_OK(sf_angle_accumulator_finish(whole, &w, NULL));
    static const size_t counts[] = {1, 3, 64, 30000};
    size_t* order = malloc(30000 * sizeof *order);
    CHECK(order != NULL);
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
        size_t parts = counts[c];
        sf_angle_accumulator_reset(parted);
        for (size_t i = 0; i < parts; ++i) order[i] = i;
        for (size_t i = parts - 1; i > 0; --i) {
            size_t j = (size_t)(uniform01() * (double)(i + 1)), t = order[i];
            order[i] = order[j], order[j] = t;
        }
        for (size_t i = 0; i < parts; ++i) /* each part over every source in order, as threads would run them */
            for (int s = 0; s < SRCS; ++s)
                CHECK_OK(sf_angle_accumulator_merge_part(parted, src[s], order[i], parts, NULL));
        CHECK_OK(sf_angle_accumulator_finish(parted, &p, NULL));
        CHECK(memcmp(&w, &p, sizeof w) == 0);
        int same = 1;
        for (size_t b = 0; b < DOC_BINS; ++b)
            same &= sfi_angle_accumulator_bin_count(whole, b) == sfi_angle_accumulator_bin_count(parted, b);
        if (!same) fprintf(stderr, "  %zu parts: the bins differ from one merge's\n", parts);
        CHECK(same);
    }
    sf_error err;
    CHECK_RESULT(sf_angle_accumulator_merge_part(parted, src[0], 3, 3, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK_RESULT(sf_angle_accumulator_merge_part(parted, src[0], 0, 0, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK_RESULT(sf_angle_accumulator_merge_part(parted, parted, 0, 2, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK_RESULT(sf_angle_accumulator_merge_part(NULL, src[0], 0, 2, &err), SF_ERROR_INVALID_ARGUMENT);
    for (int s = 0; s < SRCS; ++s) sf_angle_accumulator_destroy(src[s]);
    sf_angle_accumulator_destroy(whole);
    sf_angle_accumulator_destroy(parted);
    free(order);
    free(a);
}

/* Merges that carry in the destination's narrow counters: 40 sources, each with 200 angles in one bin and 130 in
 * another (their sums pass 256 at different merges), a few with one angle alone (ranges that start and end
 * between groups of 8 bins), others random over every scale; merged whole and in 64 shuffled parts, each bin
 * checked against a count over all the sources' angles, then reset and refilled. */
static void test_merge_carries(void)
{
    enum { SRCS = 40, PER = 1000 };
    float* a = malloc((size_t)SRCS * PER * sizeof *a);
    CHECK(a != NULL);
    sf_angle_accumulator *src, *whole, *parted;
    CHECK_OK(sf_angle_accumulator_create(NULL, &src, NULL));
    CHECK_OK(sf_angle_accumulator_create(NULL, &whole, NULL));
    CHECK_OK(sf_angle_accumulator_create(NULL, &parted, NULL));
    size_t order[64], n = 0;
    for (int round = 0; round < 2; ++round) {
        n = 0;
        for (int s = 0; s < SRCS; ++s) {
            float* mine = a + n;
            size_t k = 0;
            if (s % 7 == 3) {
                mine[k++] = (float)(0.25 + 0.001 * s); /* alone: a range of one bin */
            } else {
                for (int i = 0; i < 200; ++i) mine[k++] = 17.3f;
                for (int i = 0; i < 130; ++i) mine[k++] = 1e-3f;
                for (; k < PER; ++k) mine[k] = (float)(uniform01() < 0.05 ? 0.0 : pow(10.0, -8.0 + 10.2 * uniform01()));
            }
            for (size_t i = 0; i < k; ++i) mine[i] = mine[i] > 180.0f ? 180.0f : mine[i];
            sf_angle_accumulator_reset(src);
            CHECK_OK(sf_angle_accumulator_add(src, mine, k, NULL));
            CHECK_OK(sf_angle_accumulator_merge(whole, src, NULL));
            for (size_t i = 0; i < 64; ++i) order[i] = i;
            for (size_t i = 63; i > 0; --i) {
                size_t j = (size_t)(uniform01() * (double)(i + 1)), t = order[i];
                order[i] = order[j], order[j] = t;
            }
            for (size_t i = 0; i < 64; ++i) CHECK_OK(sf_angle_accumulator_merge_part(parted, src, order[i], 64, NULL));
            n += k;
        }
        CHECK(bins_match(whole, a, n, round ? "merged again after a reset" : "merged"));
        CHECK(bins_match(parted, a, n, round ? "merged in parts after a reset" : "merged in parts"));
        sf_angle_accumulator_reset(whole);
        sf_angle_accumulator_reset(parted);
        CHECK(bins_match(whole, a, 0, "reset") && bins_match(parted, a, 0, "reset"));
    }
    sf_angle_accumulator_destroy(src);
    sf_angle_accumulator_destroy(whole);
    sf_angle_accumulator_destroy(parted);
    free(a);
}

/* Counts made elsewhere (as the GPU's histogram hands them over), added to an accumulator that already holds
 * angles and merged on: every bin against a count over all the angles, the bins counted by the documented
 * resolution (doc_bin), not by the library. */
static void test_add_bins(void)
{
    enum { N = 30000, HERE = 5000 };
    float* a = malloc(N * sizeof *a);
    uint64_t* bins = calloc(DOC_BINS, sizeof *bins);
    CHECK(a && bins);
    for (size_t i = 0; i < N; ++i)
        a[i] = i % 3 == 0 ? 42.5f : (float)(i % 11 == 0 ? 0.0 : fmin(180.0, pow(10.0, -8.0 + 10.3 * uniform01())));
    sfi_angle_bins add;
    memset(&add, 0, sizeof add);
    add.min = 180.0, add.bins = bins;
    for (size_t i = HERE; i < N; ++i) {
        double x = a[i];
        bins[doc_bin(x)]++;
        add.count++, add.sum += x, add.sum2 += x * x;
        add.over_1 += x > 1.0, add.over_5 += x > 5.0, add.over_45 += x > 45.0;
        add.min = fmin(add.min, x), add.max = fmax(add.max, x);
    }
    sf_angle_accumulator *acc, *twice;
    CHECK_OK(sf_angle_accumulator_create(NULL, &acc, NULL));
    CHECK_OK(sf_angle_accumulator_create(NULL, &twice, NULL));
    CHECK_OK(sf_angle_accumulator_add(acc, a, HERE, NULL));
    CHECK_OK(sfi_angle_accumulator_add_bins(acc, &add, NULL));
    CHECK(bins_match(acc, a, N, "angles, then bins"));
    /* the same bins handed over as their nonzero entries, last bin first (the GPU's come in any order) */
    size_t entries = 0;
    for (size_t b = 0; b < DOC_BINS; ++b) entries += bins[b] != 0;
    uint32_t* index = malloc(entries * sizeof *index);
    uint64_t* counts = malloc(entries * sizeof *counts);
    CHECK(index && counts);
    for (size_t b = DOC_BINS, k = 0; b-- > 0;)
        if (bins[b]) index[k] = (uint32_t)b, counts[k++] = bins[b];
    sfi_angle_bins sparse = add;
    sparse.bins = counts, sparse.index = index, sparse.entries = entries;
    sf_angle_accumulator* from_sparse;
    CHECK_OK(sf_angle_accumulator_create(NULL, &from_sparse, NULL));
    CHECK_OK(sf_angle_accumulator_add(from_sparse, a, HERE, NULL));
    CHECK_OK(sfi_angle_accumulator_add_bins(from_sparse, &sparse, NULL));
    CHECK(bins_match(from_sparse, a, N, "angles, then the nonzero bins"));
    sf_angle_stats dense_stats, sparse_stats;
    CHECK_OK(sf_angle_accumulator_finish(acc, &dense_stats, NULL));
    CHECK_OK(sf_angle_accumulator_finish(from_sparse, &sparse_stats, NULL));
    CHECK(memcmp(&dense_stats, &sparse_stats, sizeof dense_stats) == 0);
    /* an entry past the bins, and entries that do not hold the count, are refused by name */
    sf_error e;
    uint32_t last = index[0];
    index[0] = (uint32_t)DOC_BINS;
    CHECK(sfi_angle_accumulator_add_bins(from_sparse, &sparse, &e) == SF_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(e.message, "bins.index") != NULL);
    index[0] = last;
    sparse.entries = entries - 1;
    CHECK(sfi_angle_accumulator_add_bins(from_sparse, &sparse, &e) == SF_ERROR_INVALID_ARGUMENT);
    CHECK(bins_match(from_sparse, a, N, "after refused bins"));
    sf_angle_accumulator_destroy(from_sparse);
    free(index);
    free(counts);
    CHECK_OK(sf_angle_accumulator_merge(twice, acc, NULL));
    CHECK_OK(sf_angle_accumulator_merge_part(twice, acc, 1, 2, NULL));
    CHECK_OK(sf_angle_accumulator_merge_part(twice, acc, 0, 2, NULL));
    for (size_t b = 0; b < DOC_BINS; ++b)
        if (sfi_angle_accumulator_bin_count(twice, b) != 2 * sfi_angle_accumulator_bin_count(acc, b)) {
            fprintf(stderr, "  bin %zu: merged twice holds %llu\n", b,
                    (unsigned long long)sfi_angle_accumulator_bin_count(twice, b));
            CHECK(0);
            break;
        }
    sf_angle_accumulator_reset(acc);
    CHECK(bins_match(acc, a, 0, "reset"));
    sf_angle_accumulator_destroy(acc);
    sf_angle_accumulator_destroy(twice);
    free(bins);
    free(a);
}

static void test_merge_and_reset(void)
{
    enum { N = 30000, PARTS = 7 };
    float* a = malloc(N * sizeof *a);
    CHECK(a != NULL);
    for (size_t i = 0; i < N; ++i) a[i] = (float)(20.0 * uniform01() * uniform01());
    sf_angle_accumulator *whole, *parts[PARTS], *merged, *again;
    CHECK_OK(sf_angle_accumulator_create(NULL, &whole, NULL));
    CHECK_OK(sf_angle_accumulator_create(NULL, &merged, NULL));
    CHECK_OK(sf_angle_accumulator_create(NULL, &again, NULL));
    CHECK_OK(sf_angle_accumulator_add(whole, a, N, NULL));
    for (int p = 0; p < PARTS; ++p) {
        CHECK_OK(sf_angle_accumulator_create(NULL, &parts[p], NULL));
        size_t lo = (size_t)p * N / PARTS, hi = (size_t)(p + 1) * N / PARTS;
        CHECK_OK(sf_angle_accumulator_add(parts[p], a + lo, hi - lo, NULL));
    }
    for (int p = 0; p < PARTS; ++p) CHECK_OK(sf_angle_accumulator_merge(merged, parts[p], NULL));
    for (int p = 0; p < PARTS; ++p) CHECK_OK(sf_angle_accumulator_merge(again, parts[p], NULL));
    sf_angle_stats w, m, g;
    CHECK_OK(sf_angle_accumulator_finish(whole, &w, NULL));
    CHECK_OK(sf_angle_accumulator_finish(merged, &m, NULL));
    CHECK_OK(sf_angle_accumulator_finish(again, &g, NULL));
    /* Counts are exact: the histogram part is the same however the angles were split. */
    CHECK(m.count == N && m.p50 == w.p50 && m.p95 == w.p95 && m.max == w.max && m.over_1 == w.over_1);
    CHECK_NEAR(m.mean, w.mean, 1e-12 * w.mean);
    CHECK_NEAR(m.rms, w.rms, 1e-12 * w.rms);
    /* The same parts merged in the same order: the same bits. */
    CHECK(memcmp(&m, &g, sizeof m) == 0);
    /* Merging an empty one changes nothing; merging into itself is refused. */
    sf_angle_accumulator_reset(again);
    CHECK_OK(sf_angle_accumulator_finish(again, &g, NULL));
    CHECK(g.count == 0 && g.mean == 0.0 && g.max == 0.0 && g.p95 == 0.0);
    CHECK_OK(sf_angle_accumulator_merge(merged, again, NULL));
    CHECK_OK(sf_angle_accumulator_finish(merged, &g, NULL));
    CHECK(memcmp(&m, &g, sizeof m) == 0);
    sf_error err;
    CHECK_RESULT(sf_angle_accumulator_merge(merged, merged, &err), SF_ERROR_INVALID_ARGUMENT);
    /* Merged into an empty one: the same statistics as the part itself. */
    CHECK_OK(sf_angle_accumulator_merge(again, parts[3], NULL));
    sf_angle_stats one, direct;
    CHECK_OK(sf_angle_accumulator_finish(again, &one, NULL));
    CHECK_OK(sf_angle_accumulator_finish(parts[3], &direct, NULL));
    CHECK(memcmp(&one, &direct, sizeof one) == 0);
    for (int p = 0; p < PARTS; ++p) sf_angle_accumulator_destroy(parts[p]);
    sf_angle_accumulator_destroy(whole);
    sf_angle_accumulator_destroy(merged);
    sf_angle_accumulator_destroy(again);
    sf_angle_accumulator_destroy(NULL);
    free(a);
}

static void test_bad_input(void)
{
    sf_angle_accumulator* acc;
    sf_error err;
    CHECK_OK(sf_angle_accumulator_create(NULL, &acc, &err));
    const float good[3] = {1.0f, 2.0f, 3.0f};
    CHECK_OK(sf_angle_accumulator_add(acc, good, 3, &err));
    sf_angle_stats before, after;
    CHECK_OK(sf_angle_accumulator_finish(acc, &before, &err));
    float bad[4] = {1.0f, 2.0f, NAN, 4.0f};
    CHECK_RESULT(sf_angle_accumulator_add(acc, bad, 4, &err), SF_ERROR_NOT_FINITE);
    CHECK(err.index == 2 && strstr(err.message, "angles_deg") != NULL);
    bad[2] = -0.5f;
    CHECK_RESULT(sf_angle_accumulator_add(acc, bad, 4, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(err.index == 2);
    bad[2] = 180.001f;
    CHECK_RESULT(sf_angle_accumulator_add(acc, bad, 4, &err), SF_ERROR_INVALID_ARGUMENT);
    bad[2] = INFINITY;
    CHECK_RESULT(sf_angle_accumulator_add(acc, bad, 4, &err), SF_ERROR_NOT_FINITE);
    CHECK_OK(sf_angle_accumulator_finish(acc, &after, &err));
    CHECK(memcmp(&before, &after, sizeof before) == 0); /* nothing of a rejected call was added */
    CHECK_OK(sf_angle_accumulator_add(acc, NULL, 0, &err));
    CHECK_RESULT(sf_angle_accumulator_add(acc, NULL, 2, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK_RESULT(sf_angle_accumulator_add(NULL, good, 3, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK_RESULT(sf_angle_accumulator_finish(acc, NULL, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK_RESULT(sf_angle_accumulator_finish(NULL, &after, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK_RESULT(sf_angle_accumulator_create(NULL, NULL, &err), SF_ERROR_INVALID_ARGUMENT);
    sf_angle_accumulator_destroy(acc);
}

/* Counting allocator: create takes one block of sf_angle_accumulator_size() bytes, destroy gives it back. */
static size_t g_allocs, g_frees, g_bytes;
static void* count_alloc(void* user, size_t size, size_t align)
{
    (void)user, (void)align;
    g_allocs++;
    g_bytes += size;
    return malloc(size);
}
static void count_free(void* user, void* p, size_t size)
{
    (void)user, (void)size;
    if (p) g_frees++;
    free(p);
}

static void test_allocator(void)
{
    sf_env env;
    memset(&env, 0, sizeof env);
    env.allocator.alloc = count_alloc;
    env.allocator.free = count_free;
    sf_angle_accumulator* acc;
    CHECK_OK(sf_angle_accumulator_create(&env, &acc, NULL));
    CHECK(g_allocs == 1 && g_bytes == sf_angle_accumulator_size());
    CHECK(sf_angle_accumulator_size() < 2u << 20); /* fixed, whatever the count: about 1.7 MB */
    float many[4096];
    for (size_t i = 0; i < 4096; ++i) many[i] = (float)(i % 181);
    for (int k = 0; k < 100; ++k) CHECK_OK(sf_angle_accumulator_add(acc, many, 4096, NULL));
    CHECK(g_allocs == 1); /* adding never allocates */
    sf_angle_accumulator_destroy(acc);
    CHECK(g_frees == 1);
}

/* A real asset: CesiumMan's angles over 25 frames of its walk, pooled, against the exact statistics. */
static void test_real_asset(void)
{
    char path[1024];
    if (!sft_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", path, sizeof path)) {
        sft_skip("no assets (SF_ASSETS unset)");
        return;
    }
    sf_gltf* g;
    sf_gltf_pose* pose;
    sf_gltf_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.generated_tangents = SF_TANGENTS_MIKKTSPACE;
    CHECK_OK(sf_gltf_load_file(path, &opts, NULL, &g, NULL));
    CHECK_OK(sf_gltf_pose_create(g, NULL, &pose, NULL));
    sf_mesh_desc mesh;
    CHECK_OK(sf_gltf_instance_mesh(g, 0, g->meshes[g->instances[0].mesh].first_primitive, &mesh, NULL));
    sf_topology* topo;
    sf_workspace* ws;
    CHECK_OK(sf_topology_create(&mesh, NULL, NULL, &topo, NULL));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.flags = SF_EVAL_KEEP_ANGLES | SF_EVAL_NO_STATISTICS;
    sf_evaluation* ev;
    CHECK_OK(sf_evaluation_create(topo, &desc, NULL, &ev, NULL));
    size_t n = sf_topology_vertex_count(topo), bone_n = g->instances[0].bone_count, frames = 25;
    const sf_eval_results* res = sf_evaluation_results(ev);
    size_t rows = res->row_count;
    float* pooled = malloc(2 * rows * frames * n * sizeof(float)); /* [row][normal|tangent][frame][vertex] */
    float* bones = malloc(12 * bone_n * sizeof(float));
    float w[64];
    CHECK(pooled && bones);
    for (size_t f = 0; f < frames; ++f) {
        CHECK_OK(sf_gltf_pose_sample(pose, 0, 2.0 * (double)f / (double)(frames - 1), NULL));
        CHECK_OK(sf_gltf_pose_instance(pose, 0, bones, w, NULL, NULL));
        sf_pose p = {bones, bone_n, w, mesh.target_count};
        CHECK_OK(sf_evaluation_run(ev, &p, ws, NULL, NULL));
        for (size_t k = 0; k < rows; ++k) {
            memcpy(pooled + ((2 * k) * frames + f) * n, res->rows[k].normal_deg, n * sizeof(float));
            memcpy(pooled + ((2 * k + 1) * frames + f) * n, res->rows[k].tangent_deg, n * sizeof(float));
        }
    }
    double before = g_worst_diff;
    g_worst_diff = 0.0;
    for (size_t s = 0; s < 2 * rows; ++s) {
        char what[96];
        snprintf(what, sizeof what, "CesiumMan %s %s", sf_method_name(res->rows[s / 2].method),
                 s % 2 ? "tangent" : "normal");
        CHECK(check_against_exact(pooled + s * frames * n, frames * n, n, what)); /* one add per frame */
    }
    fprintf(stderr, "  CesiumMan, %zu frames x %zu vertices: largest percentile difference %.3g deg\n", frames, n,
            g_worst_diff);
    if (before > g_worst_diff) g_worst_diff = before;
    free(pooled);
    free(bones);
    sf_evaluation_destroy(ev);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    sf_gltf_pose_destroy(pose);
    sf_gltf_destroy(g);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"random_shapes", test_random_shapes},
        {"bins_exact", test_bins_exact},
        {"merge_parts", test_merge_parts},
        {"merge_carries", test_merge_carries},
        {"add_bins", test_add_bins},
        {"merge_and_reset", test_merge_and_reset},
        {"bad_input", test_bad_input},
        {"allocator", test_allocator},
        {"real_asset", test_real_asset},
    };
    return SFT_RUN(cases, argc, argv);
}

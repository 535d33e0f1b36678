/* Streaming angle statistics: sf_angle_accumulator, a fixed-size histogram over [0, 180] degrees beside exact
 * count, sums, extremes and shares, so that any number of frames costs the same memory. */
#include "sf_internal.h"
#include "sf_kernels.h"

#include <math.h>
#include <string.h>

/* The bins are sf_kernels.h's (sfk_angle_bin), which the GPU histogram fills too. The log bins of the last
 * octave below 2^LINEAR_EXP are narrower than the linear bins, so the width never grows with the value below
 * 180 degrees. */
#define LOG_MIN_EXP SFK_ANGLE_LOG_MIN_EXP
#define LOG_BITS SFK_ANGLE_LOG_BITS
#define LINEAR_BITS SFK_ANGLE_LINEAR_BITS
#define LINEAR_FIRST ((size_t)SFK_ANGLE_LINEAR_FIRST)
#define LINEAR_START SFK_ANGLE_LINEAR_START
#define BIN_COUNT ((size_t)SFK_ANGLE_BIN_COUNT)

/* A bin's count is recent[b] + bins[b]. add increments only the 8-bit recent counter and moves 256 into bins
 * when it wraps: a clip's random increments land in 0.19 MB instead of 1.5 MB (a thread's accumulators stay
 * in its caches), and bins, touched once per 256 angles of a bin, stays exact at any count. bins is nonzero
 * only in the pages of WIDE_PAGE bins (4 KB) that `wide` marks, so its pages are read, cleared or faulted in
 * only where a count passed 255: a bin of an unmarked page is never read, not even as zero. */
typedef uint8_t recent_count;
#define RECENT_WRAP ((uint64_t)1 << 8)
#define WIDE_PAGE ((size_t)512)
#define WIDE_PAGES ((BIN_COUNT + WIDE_PAGE - 1) / WIDE_PAGE)

struct sf_angle_accumulator {
    sf_env env;
    uint64_t count, over_1, over_5, over_45;
    double sum, sum2, min, max;
    uint8_t wide[WIDE_PAGES]; /* 1 where bins' page may be nonzero */
    recent_count recent[BIN_COUNT];
    uint64_t bins[BIN_COUNT];
};

static size_t bin_of(float a) { return sfk_angle_bin(a); }

/* The bins an accumulator can have filled: bin_of is monotonic, so every angle's bin lies between its min's
 * and its max's, and the rest stay zero. Resets, merges and percentiles touch only these: the 1.7 MB of counters
 * would otherwise be cleared and read in full for every accumulator of every thread and clip. */
static size_t first_bin(const sf_angle_accumulator* acc) { return acc->count ? bin_of((float)acc->min) : 0; }
static size_t end_bin(const sf_angle_accumulator* acc) { return acc->count ? bin_of((float)acc->max) + 1 : 0; }

static uint64_t bin_count(const sf_angle_accumulator* acc, size_t b)
{
    return acc->recent[b] + (acc->wide[b / WIDE_PAGE] ? acc->bins[b] : 0);
}

uint64_t sfi_angle_accumulator_bin_count(const sf_angle_accumulator* acc, size_t b)
{
    return acc && b < BIN_COUNT ? bin_count(acc, b) : 0;
}

/* bin b about to be written */
static void widen(sf_angle_accumulator* acc, size_t b) { acc->wide[b / WIDE_PAGE] = 1; }

/* [lo, hi) of bin b in degrees. */
static void bin_range(size_t b, double* lo, double* hi)
{
    if (b == 0) {
        *lo = *hi = 0.0;
    } else if (b == 1) {
        *lo = 0.0, *hi = ldexp(1.0, LOG_MIN_EXP);
    } else if (b < LINEAR_FIRST) {
        size_t k = b - 2;
        int e = (int)(k >> LOG_BITS) + LOG_MIN_EXP;
        double m = (double)(k & ((1u << LOG_BITS) - 1u));
        *lo = ldexp(1.0 + m / (1 << LOG_BITS), e);
        *hi = ldexp(1.0 + (m + 1.0) / (1 << LOG_BITS), e);
    } else {
        double k = (double)(b - LINEAR_FIRST);
        *lo = LINEAR_START + k / (1 << LINEAR_BITS);
        *hi = b + 1 == BIN_COUNT ? 180.0 : LINEAR_START + (k + 1.0) / (1 << LINEAR_BITS);
    }
}

size_t sf_angle_accumulator_size(void) { return sizeof(sf_angle_accumulator); }

sf_result sf_angle_accumulator_create(const sf_env* env, sf_angle_accumulator** out, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(out != NULL, SF_ERROR_INVALID_ARGUMENT, err, "out", SFI_NO_INDEX, "is NULL");
    *out = NULL;
    sf_env e = sf_env_defaults(env);
    sf_angle_accumulator* acc = sf_env_calloc(&e, 1, sizeof *acc);
    if (!acc) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "accumulator", SFI_NO_INDEX, "%zu bytes", sizeof *acc);
    acc->env = e;
    *out = acc;
    return SF_OK;
}

void sf_angle_accumulator_destroy(sf_angle_accumulator* acc)
{
    if (!acc) return;
    sf_env e = acc->env;
    sf_env_free(&e, acc, sizeof *acc);
}

void sf_angle_accumulator_reset(sf_angle_accumulator* acc)
{
    if (!acc) return;
    size_t b0 = first_bin(acc), b1 = end_bin(acc);
    if (b1 > b0) memset(acc->recent + b0, 0, (b1 - b0) * sizeof acc->recent[0]);
    for (size_t k = 0; k < WIDE_PAGES; ++k)
        if (acc->wide[k]) {
            size_t n = k + 1 < WIDE_PAGES ? WIDE_PAGE : BIN_COUNT - k * WIDE_PAGE;
            memset(acc->bins + k * WIDE_PAGE, 0, n * sizeof acc->bins[0]);
            acc->wide[k] = 0;
        }
    acc->count = acc->over_1 = acc->over_5 = acc->over_45 = 0;
    acc->sum = acc->sum2 = acc->min = acc->max = 0.0;
}

sf_result sf_angle_accumulator_add(sf_angle_accumulator* acc, const float* angles_deg, size_t count, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(acc != NULL, SF_ERROR_INVALID_ARGUMENT, err, "acc", SFI_NO_INDEX, "is NULL");
    if (count == 0) return SF_OK;
    SF_CHECK(angles_deg != NULL, SF_ERROR_INVALID_ARGUMENT, err, "angles_deg", SFI_NO_INDEX, "is NULL");
    /* Checked first, so a rejected call leaves the accumulator as it was. */
    for (size_t i = 0; i < count; ++i) {
        SF_CHECK(isfinite(angles_deg[i]), SF_ERROR_NOT_FINITE, err, "angles_deg", i, "angle is %g",
                 (double)angles_deg[i]);
        SF_CHECK(angles_deg[i] >= 0.0f && angles_deg[i] <= 180.0f, SF_ERROR_INVALID_ARGUMENT, err, "angles_deg", i,
                 "angle %g is outside [0, 180] degrees", (double)angles_deg[i]);
    }
    /* The sums run in the order of the angles, as sf_angle_stats_compute's do: one add of an array gives
     * the same mean and RMS, bit for bit. */
    double sum = acc->sum, sum2 = acc->sum2;
    double lo = acc->count ? acc->min : 180.0, hi = acc->count ? acc->max : 0.0;
    uint64_t over1 = 0, over5 = 0, over45 = 0;
    /* A chunk's bins first, beside the sums' chain of adds; then their increments, with the counters a few
     * angles ahead prefetched, so that the random increments' misses overlap instead of queueing behind it. */
    enum { CHUNK = 256, AHEAD = 16 };
    uint32_t chunk[CHUNK];
    for (size_t i0 = 0; i0 < count; i0 += CHUNK) {
        size_t m = count - i0 < CHUNK ? count - i0 : CHUNK;
        for (size_t j = 0; j < m; ++j) {
            double a = angles_deg[i0 + j];
            sum += a;
            sum2 += a * a;
            over1 += a > 1.0;
            over5 += a > 5.0;
            over45 += a > 45.0;
            if (a < lo) lo = a;
            if (a > hi) hi = a;
            chunk[j] = (uint32_t)bin_of(angles_deg[i0 + j]);
        }
        for (size_t j = 0; j < m; ++j) {
            if (j + AHEAD < m) __builtin_prefetch(&acc->recent[chunk[j + AHEAD]], 1);
            size_t b = chunk[j];
            if (++acc->recent[b] == 0) {
                widen(acc, b);
                acc->bins[b] += RECENT_WRAP;
            }
        }
    }
    acc->sum = sum, acc->sum2 = sum2, acc->min = lo, acc->max = hi;
    acc->count += count;
    acc->over_1 += over1, acc->over_5 += over5, acc->over_45 += over45;
    return SF_OK;
}

/* src's narrow counters of bins [b0, b1) into dst's, as add counts: a sum that passes 255 keeps its low 8 bits
 * and carries 256 into dst's wide total. A merge so writes dst's 8-bit counters (0.19 MB, mostly in cache and
 * already faulted in) and its 64-bit bins only at a carry, instead of a 64-bit bin for every bin in range (its
 * 1.5 MB of pages faulted in on a fresh accumulator). Eight counters at a time, added bytewise without carries
 * between them; runs of eight empty counters, common in a thread's share of a clip, are skipped. */
static void merge_recent(sf_angle_accumulator* dst, const sf_angle_accumulator* src, size_t b0, size_t b1)
{
    const uint64_t high = 0x8080808080808080ull, low = ~high;
    size_t b = b0;
    for (; b < b1 && b % 8; ++b) {
        unsigned t = (unsigned)dst->recent[b] + src->recent[b];
        dst->recent[b] = (recent_count)t;
        if (t >= RECENT_WRAP) widen(dst, b), dst->bins[b] += RECENT_WRAP;
    }
    for (; b + 8 <= b1; b += 8) {
        uint64_t x, y;
        memcpy(&y, src->recent + b, 8);
        if (y == 0) continue;
        memcpy(&x, dst->recent + b, 8);
        uint64_t sum = ((x & low) + (y & low)) ^ ((x ^ y) & high);
        uint64_t carry = ((x & y) | ((x | y) & ~sum)) & high; /* each byte's carry out of its top bit */
        memcpy(dst->recent + b, &sum, 8);
        if (carry) {
            uint8_t c[8]; /* byte k of the word is counter b + k, whatever the byte order */
            memcpy(c, &carry, 8);
            for (int k = 0; k < 8; ++k)
                if (c[k]) widen(dst, b + (size_t)k), dst->bins[b + (size_t)k] += RECENT_WRAP;
        }
    }
    for (; b < b1; ++b) {
        unsigned t = (unsigned)dst->recent[b] + src->recent[b];
        dst->recent[b] = (recent_count)t;
        if (t >= RECENT_WRAP) widen(dst, b), dst->bins[b] += RECENT_WRAP;
    }
}

sf_result sf_angle_accumulator_merge_part(sf_angle_accumulator* dst, const sf_angle_accumulator* src, size_t part,
                                          size_t parts, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(dst && src, SF_ERROR_INVALID_ARGUMENT, err, dst ? "src" : "dst", SFI_NO_INDEX, "is NULL");
    SF_CHECK(dst != src, SF_ERROR_INVALID_ARGUMENT, err, "src", SFI_NO_INDEX, "is dst itself");
    SF_CHECK(part < parts, SF_ERROR_INVALID_ARGUMENT, err, "part", SFI_NO_INDEX, "%zu of %zu parts", part, parts);
    if (src->count == 0) return SF_OK;
    size_t b0 = first_bin(src), b1 = end_bin(src);
    if (part == 0) {
        if (dst->count == 0 || src->min < dst->min) dst->min = src->min;
        if (dst->count == 0 || src->max > dst->max) dst->max = src->max;
        dst->count += src->count;
        dst->sum += src->sum, dst->sum2 += src->sum2;
        dst->over_1 += src->over_1, dst->over_5 += src->over_5, dst->over_45 += src->over_45;
    }
    /* the part's bins: whole pages of `wide`, so that parts on different threads share no byte of dst's (nor a
     * cache line) */
    size_t p0 = part * WIDE_PAGES / parts * WIDE_PAGE, p1 = (part + 1) * WIDE_PAGES / parts * WIDE_PAGE;
    if (b0 < p0) b0 = p0;
    if (b1 > p1) b1 = p1;
    if (b0 >= b1) return SF_OK;
    merge_recent(dst, src, b0, b1);
    /* src's marked pages only, and only its nonzero totals written: dst's other pages stay unfaulted */
    for (size_t k = b0 / WIDE_PAGE; k * WIDE_PAGE < b1; ++k) {
        if (!src->wide[k]) continue;
        size_t w0 = k * WIDE_PAGE > b0 ? k * WIDE_PAGE : b0, w1 = (k + 1) * WIDE_PAGE < b1 ? (k + 1) * WIDE_PAGE : b1;
        for (size_t b = w0; b < w1; ++b)
            if (src->bins[b]) widen(dst, b), dst->bins[b] += src->bins[b];
    }
    return SF_OK;
}

sf_result sf_angle_accumulator_merge(sf_angle_accumulator* dst, const sf_angle_accumulator* src, sf_error* err)
{
    return sf_angle_accumulator_merge_part(dst, src, 0, 1, err);
}

/* c more angles in bin b: into its 8-bit counter, and only what passes 255 into the wide bins, so that a bin
 * counted a few times faults in no page of them (a fresh page costs microseconds, and a clip's bins are spread
 * over hundreds of pages). */
static void add_count(sf_angle_accumulator* acc, size_t b, uint64_t c)
{
    if (c == 0) return;
    uint64_t t = acc->recent[b] + c;
    acc->recent[b] = (recent_count)(t % RECENT_WRAP);
    if (t >= RECENT_WRAP) widen(acc, b), acc->bins[b] += t - t % RECENT_WRAP;
}

sf_result sfi_angle_accumulator_add_bins(sf_angle_accumulator* acc, const sfi_angle_bins* add, sf_error* err)
{
    SF_CHECK(acc && add, SF_ERROR_INVALID_ARGUMENT, err, acc ? "bins" : "acc", SFI_NO_INDEX, "is NULL");
    if (add->count == 0) return SF_OK;
    SF_CHECK(add->min >= 0.0 && add->max <= 180.0 && add->min <= add->max, SF_ERROR_INVALID_ARGUMENT, err, "bins",
             SFI_NO_INDEX, "range [%g, %g]", add->min, add->max);
    /* every angle in a bin between its min's and its max's, as the accumulator keeps them */
    size_t b0 = bin_of((float)add->min), b1 = bin_of((float)add->max) + 1;
    uint64_t total = 0, inside = 0;
    if (add->index) {
        for (size_t k = 0; k < add->entries; ++k) {
            SF_CHECK(add->index[k] < BIN_COUNT, SF_ERROR_INVALID_ARGUMENT, err, "bins.index", k, "bin %lu of %zu",
                     (unsigned long)add->index[k], BIN_COUNT);
            total += add->bins[k];
            if (add->index[k] >= b0 && add->index[k] < b1) inside += add->bins[k];
        }
    } else {
        for (size_t b = 0; b < BIN_COUNT; ++b) total += add->bins[b];
        for (size_t b = b0; b < b1; ++b) inside += add->bins[b];
    }
    SF_CHECK(total == add->count && inside == total, SF_ERROR_INVALID_ARGUMENT, err, "bins", SFI_NO_INDEX,
             "%llu angles in the bins, %llu of them in the range [%g, %g], %llu counted", (unsigned long long)total,
             (unsigned long long)inside, add->min, add->max, (unsigned long long)add->count);
    if (acc->count == 0 || add->min < acc->min) acc->min = add->min;
    if (acc->count == 0 || add->max > acc->max) acc->max = add->max;
    acc->count += add->count;
    acc->sum += add->sum, acc->sum2 += add->sum2;
    acc->over_1 += add->over_1, acc->over_5 += add->over_5, acc->over_45 += add->over_45;
    if (add->index) {
        for (size_t k = 0; k < add->entries; ++k) add_count(acc, add->index[k], add->bins[k]);
    } else {
        for (size_t b = b0; b < b1; ++b) add_count(acc, b, add->bins[b]);
    }
    return SF_OK;
}

/* The order statistic of rank r (0-based) from bin b, which holds ranks [first, first + bins[b]): spread
 * evenly over the part of the bin inside [min, max]. */
static double rank_value(const sf_angle_accumulator* acc, size_t b, uint64_t first, uint64_t r)
{
    if (r == 0) return acc->min;
    if (r + 1 == acc->count) return acc->max;
    double lo, hi;
    bin_range(b, &lo, &hi);
    if (lo < acc->min) lo = acc->min;
    if (hi > acc->max) hi = acc->max;
    if (hi <= lo) return lo;
    double k = (double)bin_count(acc, b);
    return lo + (hi - lo) * ((double)(r - first) + 0.5) / k;
}

/* Values at ranks[0..n) (ascending), one pass over the bins. */
static void rank_values(const sf_angle_accumulator* acc, const uint64_t* ranks, double* values, size_t n)
{
    uint64_t first = 0;
    size_t j = 0;
    for (size_t b = first_bin(acc); b < end_bin(acc) && j < n; ++b) {
        uint64_t c = bin_count(acc, b);
        while (j < n && ranks[j] < first + c) {
            values[j] = rank_value(acc, b, first, ranks[j]);
            ++j;
        }
        first += c;
    }
    for (; j < n; ++j) values[j] = acc->max; /* not reached: the bins hold count angles */
}

sf_result sf_angle_accumulator_finish(const sf_angle_accumulator* acc, sf_angle_stats* out, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(acc && out, SF_ERROR_INVALID_ARGUMENT, err, acc ? "out" : "acc", SFI_NO_INDEX, "is NULL");
    memset(out, 0, sizeof *out);
    if (acc->count == 0) return SF_OK;
    double n = (double)acc->count;
    out->count = (size_t)acc->count;
    out->mean = acc->sum / n;
    out->rms = sqrt(acc->sum2 / n);
    out->max = acc->max;
    out->over_1 = (double)acc->over_1 / n;
    out->over_5 = (double)acc->over_5 / n;
    out->over_45 = (double)acc->over_45 / n;
    /* As sf_angle_stats_compute: linear between the order statistics around q * (count - 1). The four ranks
     * (p50's two and p95's, which can overlap on few angles) are found in one pass over the bins. */
    static const double q[2] = {0.50, 0.95};
    double pos[2], pct[2], v[4];
    uint64_t want[4], sorted[4];
    for (int k = 0; k < 2; ++k) {
        pos[k] = q[k] * (double)(acc->count - 1);
        uint64_t lo = (uint64_t)pos[k];
        want[2 * k] = lo;
        want[2 * k + 1] = lo + 1 < acc->count ? lo + 1 : lo;
    }
    for (int i = 0; i < 4; ++i) { /* ascending, as rank_values takes them */
        int j = i;
        for (; j > 0 && sorted[j - 1] > want[i]; --j) sorted[j] = sorted[j - 1];
        sorted[j] = want[i];
    }
    rank_values(acc, sorted, v, 4);
    double at[4] = {0.0, 0.0, 0.0, 0.0};
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            if (sorted[j] == want[i]) at[i] = v[j];
    for (int k = 0; k < 2; ++k) pct[k] = at[2 * k] + (at[2 * k + 1] - at[2 * k]) * (pos[k] - (double)want[2 * k]);
    out->p50 = pct[0];
    out->p95 = pct[1];
    return SF_OK;
}

/* The influences of each vertex over every JOINTS_n/WEIGHTS_n set: duplicates merged, zero slots cleared,
 * sorted by weight, at most max_influences kept, the sum made 1 (in the stored integers when quantized). */
#include "fix_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SLOTS (4 * SFI_FIX_MAX_SETS)

typedef struct influence {
    float joint;
    double weight;
    size_t order; /* first slot it came from: ties keep the file's order */
} influence;

static int by_weight(const void* a, const void* b)
{
    const influence *x = a, *y = b;
    if (x->weight != y->weight) return x->weight > y->weight ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* The stored step of a weight: 1/255, 1/65535, or 0 for floats. */
static double quantum(const sfi_fix_attr* w)
{
    return !w->normalized ? 0.0 : w->ctype == 5121 ? 255.0 : w->ctype == 5123 ? 65535.0 : 0.0;
}

/* Weights in units of 1/q summing to exactly q (largest remainders); entries that round to 0 are dropped. */
static size_t quantize(influence* in, size_t k, double q)
{
    double sum = 0, frac[MAX_SLOTS];
    long total = 0, units[MAX_SLOTS];
    for (size_t i = 0; i < k; ++i) sum += in[i].weight;
    for (size_t i = 0; i < k; ++i) {
        double x = in[i].weight / sum * q;
        units[i] = (long)floor(x);
        frac[i] = x - (double)units[i];
        total += units[i];
    }
    for (long left = (long)q - total; left > 0; --left) {
        size_t best = 0;
        for (size_t i = 1; i < k; ++i)
            if (frac[i] > frac[best]) best = i;
        units[best]++;
        frac[best] = -1;
    }
    size_t m = 0;
    for (size_t i = 0; i < k; ++i)
        if (units[i] > 0) in[m] = in[i], in[m++].weight = (double)units[i] / q;
    qsort(in, m, sizeof *in, by_weight);
    return m;
}

/* One vertex: slots read from every set, repaired, written back. */
static void vertex(sfi_fix_prim* p, size_t v, uint32_t max_influences, sf_fix_counts* c)
{
    size_t slots = 4 * p->sets, k = 0;
    influence in[MAX_SLOTS];
    double q = quantum(&p->weights[0]), sum = 0;
    for (size_t s = 0; s < slots; ++s) {
        float j = p->joints[s / 4].v[4 * v + s % 4];
        double w = p->weights[s / 4].v[4 * v + s % 4];
        if (!(w > 0)) continue;
        size_t d = 0;
        while (d < k && in[d].joint != j) d++;
        if (d < k) c->duplicate_joints_merged++, in[d].weight += w;
        else in[k++] = (influence){j, w, s};
        sum += w;
    }
    if (!(sum > 0)) {
        c->zero_weight_vertices++;
        return; /* nothing to scale: left as the file has it */
    }
    int unsorted = 0;
    for (size_t i = 1; i < k; ++i) unsorted |= in[i].weight > in[i - 1].weight;
    qsort(in, k, sizeof *in, by_weight);
    if (max_influences && k > max_influences) k = max_influences, c->influences_truncated++;
    double kept = 0;
    for (size_t i = 0; i < k; ++i) kept += in[i].weight;
    if (q > 0) {
        double units = 0;
        for (size_t i = 0; i < k; ++i) units += floor(in[i].weight * q + 0.5);
        if (units != q) c->weights_renormalised++, k = quantize(in, k, q);
    } else if (fabs(kept - 1.0) > 1e-6) {
        for (size_t i = 0; i < k; ++i) in[i].weight /= kept;
        c->weights_renormalised++;
    }
    c->influences_sorted += unsorted;
    for (size_t s = 0; s < slots; ++s) {
        float* jp = &p->joints[s / 4].v[4 * v + s % 4];
        float* wp = &p->weights[s / 4].v[4 * v + s % 4];
        if (s >= k && *wp == 0 && *jp != 0) c->zero_slots_cleared++;
        *jp = s < k ? in[s].joint : 0.0f;
        *wp = s < k ? (float)in[s].weight : 0.0f;
    }
}

sf_result sfi_fix_weights(sfi_fix_prim* p, uint32_t max_influences, sf_fix_counts* counts, sf_error* err)
{
    if (!p->sets) return SF_OK;
    for (uint32_t s = 1; s < p->sets; ++s) /* one storage for every set, or each is kept as it is */
        if (p->weights[s].ctype != p->weights[0].ctype || p->weights[s].normalized != p->weights[0].normalized)
            return SF_OK;
    for (size_t v = 0; v < p->n; ++v) vertex(p, v, max_influences, counts);
    sf_result r = SF_OK;
    for (uint32_t s = 0; r == SF_OK && s < p->sets; ++s) {
        char jn[24], wn[24];
        snprintf(jn, sizeof jn, "JOINTS_%u", s);
        snprintf(wn, sizeof wn, "WEIGHTS_%u", s);
        r = sfi_fix_write(p, SF_GLTF_NONE, jn, &p->joints[s], counts, err);
        if (r == SF_OK) r = sfi_fix_write(p, SF_GLTF_NONE, wn, &p->weights[s], counts, err);
    }
    return r;
}

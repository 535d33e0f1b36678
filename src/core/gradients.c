/* Weight and morph-delta gradients for the `jacobian` method (docs/methods.md), built once from the rest
 * mesh's plain arrays: per vertex, the area-weighted average of the face gradients of each weight field and
 * each morph-delta field, stored in the vertex's (u, v) basis (sfk_rest_basis): two floats per weight slot,
 * six per morph target, both sparse (CSR over vertices, exact zeros left out). */
#include "sf_internal.h"
#include "sf_kernels.h"

#include <string.h>

/* ---------------------------------------------------------------- build */

/* One accumulator row: a key (joint or target) and area-weighted sums in the (u, v) basis. */
typedef struct grad_acc {
    uint32_t key;
    double g[6];
} grad_acc;

/* One face's field: a key and its values at the three corners (1 component for weights, 3 for deltas). */
typedef struct face_field {
    uint32_t key;
    float f[3][3];
} face_field;

typedef struct grad_build {
    const sfi_mesh_view* m;
    grad_acc* acc;      /* scratch rows for one vertex, capacity cap */
    face_field* field;  /* scratch fields for one face, capacity cap */
    size_t cap;
    size_t count;
} grad_build;

static grad_acc* acc_find(grad_build* b, uint32_t key)
{
    for (size_t i = 0; i < b->count; ++i)
        if (b->acc[i].key == key) return &b->acc[i];
    grad_acc* a = &b->acc[b->count++]; /* capacity is an upper bound computed beforehand */
    a->key = key;
    memset(a->g, 0, sizeof a->g);
    return a;
}

/* The field row for key in fields[0..*count), appended (zeroed) when new. */
static face_field* field_find(face_field* fields, size_t* count, uint32_t key)
{
    for (size_t i = 0; i < *count; ++i)
        if (fields[i].key == key) return &fields[i];
    face_field* f = &fields[(*count)++];
    memset(f, 0, sizeof *f);
    f->key = key;
    return f;
}

/* The face's weight fields (what = 0: every joint weighted at a corner; zero-weight corners weigh the
 * identity SFK_REST_JOINT) or delta fields (what = 1: every target with an entry at a corner). */
static size_t face_fields(const grad_build* b, const uint32_t tri[3], int what)
{
    const sfi_mesh_view* m = b->m;
    size_t count = 0;
    for (int c = 0; c < 3; ++c) {
        uint32_t vc = tri[c];
        if (what == 0) {
            size_t K = m->influence_count;
            int any = 0;
            for (size_t i = 0; i < K; ++i) {
                float w = m->weights[K * vc + i];
                if (w == 0.0f) continue;
                field_find(b->field, &count, m->joints[K * vc + i])->f[c][0] = w;
                any = 1;
            }
            if (!any) field_find(b->field, &count, SFK_REST_JOINT)->f[c][0] = 1.0f;
        } else {
            for (uint32_t e = m->morph_offsets[vc]; e < m->morph_offsets[vc + 1]; ++e)
                memcpy(field_find(b->field, &count, m->morph_target[e])->f[c], m->morph_dp + 3 * e,
                       3 * sizeof(float));
        }
    }
    return count;
}

/* Accumulates vertex v's weight gradients (what = 0) or morph gradients (what = 1) into b->acc, as
 * area-weighted face gradients projected on (u, w); returns the total weight (sum of |N|). */
static double accumulate_vertex(grad_build* b, uint32_t v, int what, const float u[3], const float w[3])
{
    const sfi_mesh_view* m = b->m;
    const float* X = m->positions;
    double total = 0.0;
    b->count = 0;
    int comps = what == 0 ? 1 : 3;
    for (uint32_t a = m->adj_offsets[v]; a < m->adj_offsets[v + 1]; ++a) {
        const uint32_t* tri = m->indices + 3 * (m->adj_corners[a] / 3);
        float ga[3], gb[3];
        float area2 = sfk_face_gradient_basis(X + 3 * tri[0], X + 3 * tri[1], X + 3 * tri[2], ga, gb);
        if (area2 == 0.0f) continue;
        total += area2;
        /* g.u = (f1 - f0)(a.u) + (f2 - f0)(b.u), likewise for w (the second basis vector). */
        double au = sfk_dot(ga, u), aw = sfk_dot(ga, w), bu = sfk_dot(gb, u), bw = sfk_dot(gb, w);
        size_t nf = face_fields(b, tri, what);
        for (size_t i = 0; i < nf; ++i) {
            const face_field* f = &b->field[i];
            grad_acc* r = acc_find(b, f->key);
            for (int q = 0; q < comps; ++q) {
                double d1 = (double)f->f[1][q] - f->f[0][q], d2 = (double)f->f[2][q] - f->f[0][q];
                r->g[q] += area2 * (d1 * au + d2 * bu);
                r->g[comps + q] += area2 * (d1 * aw + d2 * bw);
            }
        }
    }
    return total;
}

static int acc_nonzero(const grad_acc* a, int len)
{
    for (int i = 0; i < len; ++i)
        if ((float)a->g[i] != 0.0f) return 1;
    return 0;
}

/* Row order: a before b? By magnitude (largest first) when by_magnitude, then by key (deterministic). */
static int row_before(const grad_acc* a, const grad_acc* b, int by_magnitude)
{
    if (by_magnitude) {
        double ma = a->g[0] * a->g[0] + a->g[1] * a->g[1], mb = b->g[0] * b->g[0] + b->g[1] * b->g[1];
        if (ma != mb) return ma > mb;
    }
    return a->key < b->key;
}

/* Insertion sort: the rows of one vertex are few. */
static void sort_rows(grad_acc* rows, size_t count, int by_magnitude)
{
    for (size_t i = 1; i < count; ++i) {
        grad_acc x = rows[i];
        size_t j = i;
        for (; j > 0 && row_before(&x, &rows[j - 1], by_magnitude); --j) rows[j] = rows[j - 1];
        rows[j] = x;
    }
}

/* Finishes vertex v's rows: divides by the area, drops exact zeros, keeps the largest `limit` (counting
 * the rest in *dropped), orders by key. Returns the number kept (rows 0 .. kept-1 of b->acc). */
static size_t finish_rows(grad_build* b, double total, int len, size_t limit, size_t* dropped)
{
    size_t kept = 0;
    for (size_t i = 0; i < b->count; ++i) {
        grad_acc* a = &b->acc[i];
        for (int q = 0; q < len; ++q) a->g[q] = total > 0.0 ? a->g[q] / total : 0.0;
        if (acc_nonzero(a, len)) b->acc[kept++] = *a;
    }
    if (kept > limit) {
        sort_rows(b->acc, kept, 1);
        *dropped += kept - limit;
        kept = limit;
    }
    sort_rows(b->acc, kept, 0);
    return kept;
}

/* Upper bound of accumulator rows any vertex needs: keys over its adjacent faces' corners. */
static size_t rows_bound(const sfi_mesh_view* m)
{
    size_t best = 1;
    for (size_t v = 0; v < m->vertex_count; ++v) {
        size_t rows_w = 0, rows_m = 0;
        for (uint32_t a = m->adj_offsets[v]; a < m->adj_offsets[v + 1]; ++a) {
            const uint32_t* tri = m->indices + 3 * (m->adj_corners[a] / 3);
            for (int c = 0; c < 3; ++c) {
                rows_w += m->influence_count;
                rows_m += m->morph_offsets[tri[c] + 1] - m->morph_offsets[tri[c]];
            }
        }
        if (rows_w + 1 > best) best = rows_w + 1;
        if (rows_m + 1 > best) best = rows_m + 1;
    }
    return best;
}

void sfi_gradients_free(const sfi_store* store, sfi_gradients* g)
{
    if (!g) return;
    void* arrays[] = {g->slot_offsets, g->slot_joint, g->slot_guv, g->morph_offsets, g->morph_target, g->morph_duv};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i) sfi_store_free(store, arrays[i]);
    sf_env_free(store->env, g, sizeof *g);
}

/* Two passes over the vertices: count the kept rows, then allocate exactly and fill. */
sf_result sfi_gradients_build(const sfi_mesh_view* m, sfi_store* store, sfi_gradients** out, size_t* dropped_out,
                              sf_error* err)
{
    size_t n = m->vertex_count;
    const sf_env* env = store->env;
    *out = NULL;
    sfi_gradients* g = sf_env_calloc(env, 1, sizeof *g);
    if (!g) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "topology.gradients", SFI_NO_INDEX, "object");
    store->bytes += sizeof *g;
    grad_build b = {m, NULL, NULL, rows_bound(m), 0};
    b.acc = sf_env_calloc(env, b.cap, sizeof *b.acc);
    b.field = sf_env_calloc(env, b.cap, sizeof *b.field);
    g->slot_offsets = sfi_store_alloc(store, n + 1, sizeof(uint32_t));
    g->morph_offsets = sfi_store_alloc(store, n + 1, sizeof(uint32_t));
    if (!b.acc || !b.field || !g->slot_offsets || !g->morph_offsets) goto oom;
    size_t dropped = 0;
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 1) {
            size_t slots = g->slot_offsets[n], entries = g->morph_offsets[n];
            g->slot_joint = sfi_store_alloc(store, slots ? slots : 1, sizeof(uint32_t));
            g->slot_guv = sfi_store_alloc(store, slots ? slots : 1, 2 * sizeof(float));
            g->morph_target = sfi_store_alloc(store, entries ? entries : 1, sizeof(uint32_t));
            g->morph_duv = sfi_store_alloc(store, entries ? entries : 1, 6 * sizeof(float));
            if (!g->slot_joint || !g->slot_guv || !g->morph_target || !g->morph_duv) goto oom;
        }
        for (uint32_t v = 0; v < n; ++v) {
            float u[3], w[3];
            if (!sfk_rest_basis(m->normals + 3 * v, u, w)) {
                if (pass == 0) g->slot_offsets[v + 1] = g->morph_offsets[v + 1] = 0;
                continue; /* no tangent plane: the frame is zero anyway */
            }
            for (int what = 0; what < 2; ++what) {
                if (what == 0 && !m->influence_count) continue;
                double total = accumulate_vertex(&b, v, what, u, w);
                int len = what == 0 ? 2 : 6;
                size_t ignored = 0; /* counted in pass 0 only */
                size_t kept = finish_rows(&b, total, len, what == 0 ? SFK_JACOBIAN_MAX_SLOTS : SIZE_MAX,
                                          pass == 0 ? &dropped : &ignored);
                uint32_t* offsets = what == 0 ? g->slot_offsets : g->morph_offsets;
                if (pass == 0) {
                    offsets[v + 1] = (uint32_t)kept;
                    continue;
                }
                for (size_t i = 0; i < kept; ++i) {
                    size_t s = offsets[v] + i;
                    if (what == 0) {
                        g->slot_joint[s] = b.acc[i].key;
                        for (int q = 0; q < 2; ++q) g->slot_guv[2 * s + q] = (float)b.acc[i].g[q];
                    } else {
                        g->morph_target[s] = b.acc[i].key;
                        for (int q = 0; q < 6; ++q) g->morph_duv[6 * s + q] = (float)b.acc[i].g[q];
                    }
                }
            }
        }
        if (pass == 0) {
            /* 32-bit offsets: refuse (clearly) rather than wrap on meshes beyond 2^32 - 1 entries. */
            uint64_t slots = 0, entries = 0;
            for (size_t v = 0; v < n; ++v) {
                slots += g->slot_offsets[v + 1];
                entries += g->morph_offsets[v + 1];
                if (slots > UINT32_MAX || entries > UINT32_MAX) {
                    sf_env_free(env, b.acc, 0);
                    sf_env_free(env, b.field, 0);
                    sfi_gradients_free(store, g);
                    return sf_error_set(err, SF_ERROR_INVALID_ARGUMENT, "topology.gradients", v,
                                        "more than 2^32 - 1 gradient entries; use skip_gradients");
                }
                g->slot_offsets[v + 1] = (uint32_t)slots;
                g->morph_offsets[v + 1] = (uint32_t)entries;
            }
        }
    }
    sf_env_free(env, b.acc, 0);
    sf_env_free(env, b.field, 0);
    *dropped_out = dropped;
    *out = g;
    return SF_OK;
oom:
    sf_env_free(env, b.acc, 0);
    sf_env_free(env, b.field, 0);
    sfi_gradients_free(store, g);
    return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "topology.gradients", SFI_NO_INDEX, "%zu vertices", n);
}

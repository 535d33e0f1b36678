/* The precomputed per-vertex data of the `jacobian` and `jacobian-fan` methods (docs/methods.md), built once
 * from the rest mesh's plain arrays, sparse (CSR over vertices, exact zeros left out).
 *   jacobian: the area-weighted average of each weight field's and morph-delta field's gradients over the
 *     vertex's own faces, in the (u, v) basis of its authored rest normal: 2 floats per weight slot, 6 per
 *     morph target.
 *   jacobian-fan: the vertex's fan is its weld group's faces (position + normal groups: the faces the rebuilt
 *     normal averages); its plane is the fan's area-weighted rest normal, and each fan face, flattened into
 *     that plane, contributes its exact (secant) map (sfk_jacobian_fan_face_terms), weighted by its flattened
 *     area: 6 floats per weight slot (gradient and secant terms), 6 per morph target, and the fan normal
 *     (3 floats per vertex). */
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
    const sfi_weld* fan; /* jacobian-fan: the weld groups whose faces form each vertex's fan; NULL: jacobian */
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

/* `jacobian`: accumulates vertex v's weight gradients (what = 0) or morph gradients (what = 1) into b->acc, as
 * area-weighted gradients of its own faces projected on (u, w); returns the total weight (sum of |N|). */
static double accumulate_own(grad_build* b, uint32_t v, int what, const float u[3], const float w[3])
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

/* The faces around vertex v: its weld group's corners (every member's corners) for `jacobian-fan`, its own
 * for `jacobian` (fan NULL). */
static void fan_corners(const grad_build* b, uint32_t v, const uint32_t** corners, uint32_t* begin, uint32_t* end)
{
    const sfi_mesh_view* m = b->m;
    if (b->fan) {
        uint32_t g = b->fan->group[v];
        *corners = b->fan->corners;
        *begin = b->fan->corner_offsets[g];
        *end = b->fan->corner_offsets[g + 1];
    } else {
        *corners = m->adj_corners;
        *begin = m->adj_offsets[v];
        *end = m->adj_offsets[v + 1];
    }
}

/* The fan's area-weighted rest normal (sum of cross(e1, e2) over its faces), in double. */
static void fan_normal(const grad_build* b, uint32_t v, double out[3])
{
    const sfi_mesh_view* m = b->m;
    const float* X = m->positions;
    const uint32_t* corners;
    uint32_t begin, end;
    fan_corners(b, v, &corners, &begin, &end);
    out[0] = out[1] = out[2] = 0.0;
    for (uint32_t a = begin; a < end; ++a) {
        const uint32_t* tri = m->indices + 3 * (corners[a] / 3);
        float e1[3], e2[3], c[3];
        sfk_sub(X + 3 * tri[1], X + 3 * tri[0], e1);
        sfk_sub(X + 3 * tri[2], X + 3 * tri[0], e2);
        sfk_cross(e1, e2, c);
        for (int k = 0; k < 3; ++k) out[k] += c[k];
    }
}

/* `jacobian-fan`: accumulates vertex v's weight coefficients (what = 0: g.u, g.v, K_uu, K_uv, K_vu, K_vv) or
 * morph gradients (what = 1: D u, D v) into b->acc over its fan, each face flattened into (u, w) (the fan plane's basis) and
 * weighted by its flattened area; returns the total weight. */
static double accumulate_fan(grad_build* b, uint32_t v, int what, const float u[3], const float w[3])
{
    const sfi_mesh_view* m = b->m;
    const float* X = m->positions;
    double total = 0.0;
    b->count = 0;
    const uint32_t* corners;
    uint32_t begin, end;
    fan_corners(b, v, &corners, &begin, &end);
    for (uint32_t a = begin; a < end; ++a) {
        uint32_t corner = corners[a], c0 = corner % 3, c1 = (c0 + 1) % 3, c2 = (c0 + 2) % 3;
        const uint32_t* tri = m->indices + 3 * (corner / 3);
        float ga[3], gb[3];
        if (sfk_face_gradient_basis(X + 3 * tri[0], X + 3 * tri[1], X + 3 * tri[2], ga, gb) == 0.0f) continue;
        float e1[3], e2[3];
        sfk_sub(X + 3 * tri[c1], X + 3 * tri[c0], e1);
        sfk_sub(X + 3 * tri[c2], X + 3 * tri[c0], e2);
        float ab1[2] = {sfk_dot(e1, u), sfk_dot(e1, w)}, ab2[2] = {sfk_dot(e2, u), sfk_dot(e2, w)};
        float gu[2], gv[2];
        float area = sfk_jacobian_fan_face_terms(ab1, ab2, gu, gv);
        if (area == 0.0f) continue;
        total += area;
        size_t nf = face_fields(b, tri, what);
        for (size_t i = 0; i < nf; ++i) {
            const face_field* f = &b->field[i];
            grad_acc* r = acc_find(b, f->key);
            if (what == 0) {
                double d1 = (double)f->f[c1][0] - f->f[c0][0], d2 = (double)f->f[c2][0] - f->f[c0][0];
                r->g[0] += gu[0] * d1 + gu[1] * d2;
                r->g[1] += gv[0] * d1 + gv[1] * d2;
                r->g[2] += gu[0] * d1 * ab1[0] + gu[1] * d2 * ab2[0];
                r->g[3] += gu[0] * d1 * ab1[1] + gu[1] * d2 * ab2[1];
                r->g[4] += gv[0] * d1 * ab1[0] + gv[1] * d2 * ab2[0];
                r->g[5] += gv[0] * d1 * ab1[1] + gv[1] * d2 * ab2[1];
            } else {
                for (int q = 0; q < 3; ++q) {
                    double d1 = (double)f->f[c1][q] - f->f[c0][q], d2 = (double)f->f[c2][q] - f->f[c0][q];
                    r->g[q] += gu[0] * d1 + gu[1] * d2;
                    r->g[3 + q] += gv[0] * d1 + gv[1] * d2;
                }
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

/* Upper bound of accumulator rows any vertex needs: keys over its fan faces' corners. */
static size_t rows_bound(const grad_build* b)
{
    const sfi_mesh_view* m = b->m;
    size_t best = 1;
    for (uint32_t v = 0; v < m->vertex_count; ++v) {
        size_t rows_w = 0, rows_m = 0;
        const uint32_t* corners;
        uint32_t begin, end;
        fan_corners(b, v, &corners, &begin, &end);
        for (uint32_t a = begin; a < end; ++a) {
            const uint32_t* tri = m->indices + 3 * (corners[a] / 3);
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
    void* arrays[] = {g->slot_offsets, g->slot_joint, g->slot_coef, g->morph_offsets, g->morph_target, g->morph_duv,
                      g->fan_normal};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i) sfi_store_free(store, arrays[i]);
    sf_env_free(store->env, g, sizeof *g);
}

/* Two passes over the vertices: count the kept rows, then allocate exactly and fill. */
sf_result sfi_gradients_build(const sfi_mesh_view* m, const sfi_weld* fan, sfi_store* store, sfi_gradients** out,
                              size_t* dropped_out, sf_error* err)
{
    size_t n = m->vertex_count;
    const sf_env* env = store->env;
    *out = NULL;
    sfi_gradients* g = sf_env_calloc(env, 1, sizeof *g);
    if (!g) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "topology.gradients", SFI_NO_INDEX, "object");
    store->bytes += sizeof *g;
    grad_build b = {m, fan, NULL, NULL, 0, 0};
    b.cap = rows_bound(&b);
    b.acc = sf_env_calloc(env, b.cap, sizeof *b.acc);
    b.field = sf_env_calloc(env, b.cap, sizeof *b.field);
    g->slot_offsets = sfi_store_alloc(store, n + 1, sizeof(uint32_t));
    g->morph_offsets = sfi_store_alloc(store, n + 1, sizeof(uint32_t));
    g->slot_floats = fan ? SFK_JACOBIAN_FAN_SLOT_FLOATS : 2u;
    if (fan) g->fan_normal = sfi_store_alloc(store, n ? n : 1, 3 * sizeof(float));
    if (!b.acc || !b.field || !g->slot_offsets || !g->morph_offsets || (fan && !g->fan_normal)) goto oom;
    size_t dropped = 0;
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 1) {
            size_t slots = g->slot_offsets[n], entries = g->morph_offsets[n];
            g->slot_joint = sfi_store_alloc(store, slots ? slots : 1, sizeof(uint32_t));
            g->slot_coef = sfi_store_alloc(store, slots ? slots : 1, g->slot_floats * sizeof(float));
            g->morph_target = sfi_store_alloc(store, entries ? entries : 1, sizeof(uint32_t));
            g->morph_duv = sfi_store_alloc(store, entries ? entries : 1, 6 * sizeof(float));
            if (!g->slot_joint || !g->slot_coef || !g->morph_target || !g->morph_duv) goto oom;
        }
        for (uint32_t v = 0; v < n; ++v) {
            float u[3], w[3];
            const float* nf = m->normals + 3 * v;
            if (fan && pass == 0) {
                /* The fan's plane; the authored normal where the fan has none or faces away from it. */
                double fd[3];
                float* fnv = g->fan_normal + 3 * v;
                fan_normal(&b, v, fd);
                sfk_direction_from_double(fd, fnv);
                if (!sfk_safe_unit(fnv, fnv) || !(sfk_dot(fnv, nf) > 0.0f)) sfk_safe_unit(nf, fnv);
            }
            if (fan) nf = g->fan_normal + 3 * v;
            if (!sfk_rest_basis(nf, u, w)) {
                if (pass == 0) g->slot_offsets[v + 1] = g->morph_offsets[v + 1] = 0;
                continue; /* no tangent plane: the frame is zero anyway */
            }
            for (int what = 0; what < 2; ++what) {
                if (what == 0 && !m->influence_count) continue;
                double total = fan ? accumulate_fan(&b, v, what, u, w) : accumulate_own(&b, v, what, u, w);
                int len = what == 0 ? (int)g->slot_floats : 6;
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
                        for (int q = 0; q < len; ++q) g->slot_coef[len * s + q] = (float)b.acc[i].g[q];
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

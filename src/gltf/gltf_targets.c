/* glTF morph targets: dense and sparse deltas, and their split into per-corner vertices. */
#include "gltf_loader.h"

#include <math.h>
#include <string.h>

/* The first of the target's accessors ai[3] (SF_GLTF_NONE = absent) when all present ones have the same
 * sparse indices, else NULL. Callers have checked that each is sparse. */
const accessor* same_sparse_indices(const loader* L, const size_t ai[3])
{
    const accessor* first = NULL;
    for (int s = 0; s < 3; ++s) {
        if (ai[s] == SF_GLTF_NONE) continue;
        const accessor* ac = &L->accessors[ai[s]];
        if (!first) {
            first = ac;
            continue;
        }
        if (ac->sparse_count != first->sparse_count) return NULL;
        for (size_t i = 0; i < ac->sparse_count; ++i) {
            size_t a = (size_t)read_component(view_bytes(L, ac->sp_index_view, ac->sp_index_offset) +
                                                  i * component_size(ac->sp_index_ctype), ac->sp_index_ctype, 0);
            size_t b = (size_t)read_component(view_bytes(L, first->sp_index_view, first->sp_index_offset) +
                                                  i * component_size(first->sp_index_ctype),
                                              first->sp_index_ctype, 0);
            if (a != b) return NULL;
        }
    }
    return first;
}

/* Sparse accessors without a bufferView keep only their entries when every attribute of the target is
 * such an accessor with the same indices; otherwise the target is read dense. */
sf_result read_target(loader* L, const cJSON* tobj, const char* tbase, size_t n, int want_dense,
                      target_read* out)
{
    static const char* const names[3] = {"POSITION", "NORMAL", "TANGENT"};
    size_t ai[3];
    int sparse_ok = !want_dense, any = 0;
    memset(out, 0, sizeof *out);
    for (int s = 0; s < 3; ++s) {
        TRY(get_index(L, tobj, names[s], tbase, 0, L->accessor_count, "accessors", &ai[s]));
        if (ai[s] == SF_GLTF_NONE) continue;
        const accessor* ac = &L->accessors[ai[s]];
        if (ac->count != n)
            return jfail(L, tbase, names[s], "accessors[%zu].count %zu differs from POSITION's %zu", ai[s], ac->count, n);
        TRY(accessor_expect(L, ai[s], tbase, names[s], 3, 0));
        if (ac->view != SF_GLTF_NONE || !ac->sparse_count) sparse_ok = 0;
        any = 1;
    }
    if (sparse_ok && any) {
        const accessor* first = same_sparse_indices(L, ai);
        if (first) {
            size_t m = first->sparse_count;
            out->sparse = own_alloc(L, m, sizeof(uint32_t));
            if (!out->sparse) return oom(L, tbase);
            for (size_t i = 0; i < m; ++i) {
                size_t v = (size_t)read_component(view_bytes(L, first->sp_index_view, first->sp_index_offset) +
                                                      i * component_size(first->sp_index_ctype),
                                                  first->sp_index_ctype, 0);
                if (v >= n) return jfail(L, tbase, NULL, "sparse index %zu >= count %zu", v, n);
                if (i > 0 && v <= out->sparse[i - 1])
                    return jfail(L, tbase, NULL, "sparse indices[%zu] = %zu does not increase", i, v);
                out->sparse[i] = (uint32_t)v;
            }
            out->sparse_count = m;
            for (int s = 0; s < 3; ++s) {
                if (ai[s] == SF_GLTF_NONE) continue;
                const accessor* ac = &L->accessors[ai[s]];
                float* d = own_alloc(L, m, 3 * sizeof(float));
                if (!d) return oom(L, tbase);
                double v[16];
                for (size_t i = 0; i < m; ++i) {
                    read_element(ac, view_bytes(L, ac->sp_value_view, ac->sp_value_offset) + i * ac->elem_size, v);
                    for (int k = 0; k < 3; ++k) {
                        d[3 * i + k] = (float)v[k];
                        if (!isfinite(d[3 * i + k])) return jfail(L, tbase, names[s], "value %zu is not finite", i);
                    }
                    TRY(check_coords(L, tbase, names[s], ai[s], d + 3 * i, out->sparse + i, 1, 3, 3));
                }
                out->d[s] = d;
            }
            if (!out->d[0]) {
                out->d[0] = own_alloc(L, m, 3 * sizeof(float));
                if (!out->d[0]) return oom(L, tbase);
            }
            return SF_OK;
        }
    }
    for (int s = 0; s < 3; ++s) {
        if (ai[s] == SF_GLTF_NONE) continue;
        TRY(read_floats(L, ai[s], tbase, names[s], 3, 1, &out->d[s]));
        TRY(check_coords(L, tbase, names[s], ai[s], out->d[s], NULL, n, 3, 3));
    }
    if (!out->d[0]) {
        out->d[0] = own_alloc(L, n ? n : 1, 3 * sizeof(float));
        if (!out->d[0]) return oom(L, tbase);
    }
    return SF_OK;
}

/* Splits every triangle corner into its own vertex (for flat normals): remaps a per-vertex array. */
void* deindex(loader* L, const void* src, size_t elem, const uint32_t* tri, size_t corners)
{
    if (!src) return NULL;
    uint8_t* dst = own_alloc(L, corners ? corners : 1, elem);
    if (!dst) return NULL;
    for (size_t c = 0; c < corners; ++c) memcpy(dst + c * elem, (const uint8_t*)src + tri[c] * elem, elem);
    return dst;
}

/* Sparse target entries for the copies [n, N) of a MikkTSpace split: a copy of a listed vertex is listed
 * too, with its source's deltas. Copies are numbered upwards, so the list stays increasing. */
sf_result split_sparse_target(loader* L, sf_morph_target_desc* t, const uint32_t* source, size_t n, size_t N,
                              const char* base)
{
    size_t m = t->sparse_count, extra = 0;
    const uint32_t* S = t->sparse_indices;
    /* position of v in S, or m when it is not listed */
#define SPARSE_FIND_(v, out)                                      \
    do {                                                          \
        size_t lo_ = 0, hi_ = m;                                  \
        while (lo_ < hi_) {                                       \
            size_t mid_ = lo_ + (hi_ - lo_) / 2;                  \
            if (S[mid_] < (v)) lo_ = mid_ + 1; else hi_ = mid_;   \
        }                                                         \
        (out) = lo_ < m && S[lo_] == (v) ? lo_ : m;               \
    } while (0)
    for (size_t k = n; k < N; ++k) {
        size_t j;
        SPARSE_FIND_(source[k], j);
        extra += j < m;
    }
    if (!extra) return SF_OK;
    uint32_t* idx = own_alloc(L, m + extra, sizeof(uint32_t));
    float* d[3] = {NULL, NULL, NULL};
    const float* old[3] = {t->position_deltas, t->normal_deltas, t->tangent_deltas};
    for (int s = 0; s < 3; ++s)
        if (old[s] && !(d[s] = own_alloc(L, m + extra, 3 * sizeof(float)))) return oom(L, base);
    if (!idx) return oom(L, base);
    memcpy(idx, S, m * sizeof(uint32_t));
    for (int s = 0; s < 3; ++s)
        if (d[s]) memcpy(d[s], old[s], 3 * m * sizeof(float));
    size_t e = m;
    for (size_t k = n; k < N; ++k) {
        size_t j;
        SPARSE_FIND_(source[k], j);
        if (j == m) continue;
        idx[e] = (uint32_t)k;
        for (int s = 0; s < 3; ++s)
            if (d[s]) memcpy(d[s] + 3 * e, old[s] + 3 * j, 3 * sizeof(float));
        e++;
    }
#undef SPARSE_FIND_
    t->sparse_indices = idx;
    t->sparse_count = m + extra;
    t->position_deltas = d[0];
    t->normal_deltas = d[1];
    t->tangent_deltas = d[2];
    return SF_OK;
}

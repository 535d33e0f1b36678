/* Weld groups: vertices that share one recomputed normal. Index 0 groups by exact rest position,
 * index 1 additionally by rest normal (cosine >= weld_normal_cos), so UV seams weld and authored
 * hard edges stay split (generated rest normals have no hard edges: index 1 is then index 0).
 * Each group also gets its list of face corners (the members' corners in member order), so the
 * welded gather walks one contiguous list, exactly as long as the unwelded one for a vertex alone
 * in its group. Built once per topology; deterministic (sorts with index ties). A position shared by more
 * than SF_WELD_MAX_VERTICES vertices or SF_WELD_MAX_CORNERS corners is not welded (linear cost for any file).
 * The same position sort gives the robustness counters: non-manifold edges and duplicate triangles.
 * Works on the rest mesh's plain arrays (sfi_mesh_view) and fills its own sfi_weld structs. */
#include "sf_internal.h"
#include "sf_kernels.h"

#include <string.h>

/* ---------------------------------------------------------------- a stable merge sort with context */

typedef int less_fn(const void* ctx, uint32_t a, uint32_t b);

/* Sorts a[0..n) by less (ties keep their order); tmp holds n. Bottom-up, no recursion. */
static void merge_sort(uint32_t* a, uint32_t* tmp, size_t n, less_fn* less, const void* ctx)
{
    uint32_t *src = a, *dst = tmp;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) dst[k++] = less(ctx, src[j], src[i]) ? src[j++] : src[i++];
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
        }
        uint32_t* t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, n * sizeof *a);
}

/* Exact position order (-0 equals +0, as == says). */
static int position_less(const void* ctx, uint32_t a, uint32_t b)
{
    const float* p = (const float*)ctx;
    for (int k = 0; k < 3; ++k) {
        float x = p[3 * (size_t)a + k], y = p[3 * (size_t)b + k];
        if (x < y) return 1;
        if (y < x) return 0;
    }
    return 0;
}

static int same_position(const float* p, uint32_t a, uint32_t b)
{
    return p[3 * (size_t)a] == p[3 * (size_t)b] && p[3 * (size_t)a + 1] == p[3 * (size_t)b + 1] &&
           p[3 * (size_t)a + 2] == p[3 * (size_t)b + 2];
}

/* Keys of 3 uint32 (sorted triangle or edge + face), compared lexicographically. */
static int key3_less(const void* ctx, uint32_t a, uint32_t b)
{
    const uint32_t* k = (const uint32_t*)ctx;
    for (int i = 0; i < 3; ++i) {
        uint32_t x = k[3 * (size_t)a + i], y = k[3 * (size_t)b + i];
        if (x != y) return x < y;
    }
    return 0;
}

static void sort3(uint32_t* k)
{
    uint32_t t;
    if (k[0] > k[1]) t = k[0], k[0] = k[1], k[1] = t;
    if (k[1] > k[2]) t = k[1], k[1] = k[2], k[2] = t;
    if (k[0] > k[1]) t = k[0], k[0] = k[1], k[1] = t;
}

/* ---------------------------------------------------------------- building */

/* Members CSR and per-group corner lists from a vertex -> group map (group ids in order of first vertex). */
static sf_result build_lists(const sfi_mesh_view* m, sfi_store* store, sfi_weld* w, size_t groups, sf_error* err)
{
    size_t n = m->vertex_count;
    const uint32_t* group = w->group;
    uint32_t* off = sfi_store_alloc(store, groups + 1, sizeof(uint32_t));
    uint32_t* mem = sfi_store_alloc(store, n ? n : 1, sizeof(uint32_t));
    uint32_t* coff = sfi_store_alloc(store, groups + 1, sizeof(uint32_t));
    uint32_t* cor = sfi_store_alloc(store, 3 * m->triangle_count + 1, sizeof(uint32_t));
    w->offsets = off;
    w->members = mem;
    w->corner_offsets = coff;
    w->corners = cor;
    w->group_count = groups;
    if (!off || !mem || !coff || !cor)
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "topology.weld", SFI_NO_INDEX, "%zu groups", groups);
    for (size_t v = 0; v < n; ++v) {
        off[group[v] + 1]++;
        coff[group[v] + 1] += m->adj_offsets[v + 1] - m->adj_offsets[v];
    }
    for (size_t g = 0; g < groups; ++g) {
        off[g + 1] += off[g];
        coff[g + 1] += coff[g];
    }
    /* Fill in vertex order: members ascend, corners follow their members (the gather's summation order). */
    uint32_t* cur = sf_env_calloc(store->env, 2 * (groups + 1), sizeof(uint32_t));
    if (!cur) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "topology.weld", SFI_NO_INDEX, "cursors");
    uint32_t* ccur = cur + groups + 1;
    memcpy(cur, off, groups * sizeof(uint32_t));
    memcpy(ccur, coff, groups * sizeof(uint32_t));
    for (size_t v = 0; v < n; ++v) {
        uint32_t g = group[v];
        mem[cur[g]++] = (uint32_t)v;
        for (uint32_t a = m->adj_offsets[v]; a < m->adj_offsets[v + 1]; ++a) cor[ccur[g]++] = m->adj_corners[a];
    }
    sf_env_free(store->env, cur, 0);
    return SF_OK;
}

/* Splits one position group (members ascending) by rest normal: a member joins the first earlier
 * cluster whose first member's unit normal is within normal_cos, else starts a cluster. label[] gets
 * the cluster's first member. Zero normals never match (they stay alone). */
static void split_by_normal(const float* normals, const uint32_t* members, size_t count, float normal_cos,
                            uint32_t* firsts, uint32_t* label)
{
    size_t clusters = 0;
    for (size_t i = 0; i < count; ++i) {
        uint32_t v = members[i];
        float nv[3];
        int ok = sfk_safe_unit(normals + 3 * (size_t)v, nv);
        size_t c = clusters;
        if (ok) {
            for (c = 0; c < clusters; ++c) {
                float nf[3];
                if (sfk_safe_unit(normals + 3 * (size_t)firsts[c], nf) && sfk_dot(nv, nf) >= normal_cos) break;
            }
        }
        if (c == clusters) firsts[clusters++] = v;
        label[v] = firsts[c];
    }
}

/* Non-manifold edges (more than two triangles on one position edge) and duplicate triangles (same three
 * positions as an earlier triangle, either winding), over non-degenerate position triples. */
static sf_result count_edges_and_duplicates(const sfi_mesh_view* m, const sf_env* env, const uint32_t* pos_group,
                                            sf_topology_stats* stats, sf_error* err)
{
    size_t F = m->triangle_count;
    if (F == 0) return SF_OK;
    uint32_t* keys = sf_env_calloc(env, 9 * F, sizeof(uint32_t));
    uint32_t* order = sf_env_calloc(env, 6 * F, sizeof(uint32_t));
    if (!keys || !order) {
        sf_env_free(env, keys, 0);
        sf_env_free(env, order, 0);
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "topology.weld", SFI_NO_INDEX, "edge keys for %zu triangles", F);
    }
    uint32_t* tmp = order + 3 * F;
    /* Edges: (low group, high group, face); triangles with a repeated position are skipped. */
    size_t e = 0;
    for (size_t f = 0; f < F; ++f) {
        uint32_t g[3];
        for (int c = 0; c < 3; ++c) g[c] = pos_group[m->indices[3 * f + c]];
        if (g[0] == g[1] || g[1] == g[2] || g[0] == g[2]) continue;
        for (int c = 0; c < 3; ++c) {
            uint32_t a = g[c], b = g[(c + 1) % 3];
            keys[3 * e + 0] = a < b ? a : b;
            keys[3 * e + 1] = a < b ? b : a;
            keys[3 * e + 2] = (uint32_t)f;
            order[e] = (uint32_t)e;
            ++e;
        }
    }
    merge_sort(order, tmp, e, key3_less, keys);
    for (size_t i = 0; i < e;) {
        size_t j = i + 1;
        while (j < e && keys[3 * order[j]] == keys[3 * order[i]] && keys[3 * order[j] + 1] == keys[3 * order[i] + 1])
            ++j;
        if (j - i > 2) stats->nonmanifold_edges++;
        i = j;
    }
    /* Triangles: sorted position triples. */
    size_t t = 0;
    for (size_t f = 0; f < F; ++f) {
        uint32_t* k = keys + 3 * t;
        for (int c = 0; c < 3; ++c) k[c] = pos_group[m->indices[3 * f + c]];
        sort3(k);
        if (k[0] == k[1] || k[1] == k[2]) continue;
        order[t] = (uint32_t)t;
        ++t;
    }
    merge_sort(order, tmp, t, key3_less, keys);
    for (size_t i = 1; i < t; ++i)
        if (!key3_less(keys, order[i - 1], order[i])) stats->duplicate_triangles++;
    sf_env_free(env, keys, 0);
    sf_env_free(env, order, 0);
    return SF_OK;
}

sf_result sfi_weld_build(const sfi_mesh_view* m, float normal_cos, bool split_normals, sfi_store* store,
                         sfi_weld weld[2], sf_topology_stats* stats, sf_error* err)
{
    size_t n = m->vertex_count;
    sf_result r = SF_OK;
    memset(weld, 0, 2 * sizeof *weld);
    weld[0].group = sfi_store_alloc(store, n ? n : 1, sizeof(uint32_t));
    weld[1].group = sfi_store_alloc(store, n ? n : 1, sizeof(uint32_t));
    uint32_t* order = sf_env_calloc(store->env, 3 * (n ? n : 1), sizeof(uint32_t));
    if (!weld[0].group || !weld[1].group || !order) {
        sf_env_free(store->env, order, 0);
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "topology.weld", SFI_NO_INDEX, "%zu vertices", n);
    }
    uint32_t *tmp = order + n, *label = order + 2 * n;
    for (size_t v = 0; v < n; ++v) order[v] = (uint32_t)v;
    merge_sort(order, tmp, n, position_less, m->positions);

    /* label[v] = the smallest vertex with v's position (first of its sorted run: ties keep index order). A run
     * beyond SF_WELD_MAX_VERTICES vertices or SF_WELD_MAX_CORNERS corners stays unwelded: every gather walks
     * its group's corners once per member, so one huge group (a file of coincident vertices) would cost the
     * square of its size. */
    for (size_t i = 0; i < n;) {
        size_t j = i + 1, corners = m->adj_offsets[order[i] + 1] - m->adj_offsets[order[i]];
        for (; j < n && same_position(m->positions, order[i], order[j]); ++j)
            corners += m->adj_offsets[order[j] + 1] - m->adj_offsets[order[j]];
        bool weld_run = j - i <= SF_WELD_MAX_VERTICES && corners <= SF_WELD_MAX_CORNERS;
        for (size_t k = i; k < j; ++k) label[order[k]] = weld_run ? order[i] : order[k];
        i = j;
    }
    /* Group ids in order of each group's first vertex. */
    size_t groups = 0;
    for (size_t v = 0; v < n; ++v) weld[0].group[v] = label[v] == v ? (uint32_t)groups++ : weld[0].group[label[v]];
    if ((r = build_lists(m, store, &weld[0], groups, err)) != SF_OK) goto done;

    /* Position + normal: split each position group; tmp holds the cluster firsts. Normals the topology
     * generated carry no authored hard edge (and differ across UV seams, where each side saw only its own
     * faces), so then position+normal groups are the position groups. */
    for (size_t g = 0; g < groups && split_normals; ++g) {
        const uint32_t* members = weld[0].members + weld[0].offsets[g];
        split_by_normal(m->normals, members, weld[0].offsets[g + 1] - weld[0].offsets[g], normal_cos, tmp, label);
    }
    size_t groups1 = 0;
    for (size_t v = 0; v < n; ++v) weld[1].group[v] = label[v] == v ? (uint32_t)groups1++ : weld[1].group[label[v]];
    if ((r = build_lists(m, store, &weld[1], groups1, err)) != SF_OK) goto done;
    for (size_t g = 0; g < groups1; ++g)
        if (weld[1].offsets[g + 1] - weld[1].offsets[g] > 1) stats->weld_groups++;
    for (size_t g = 0; g < groups; ++g)
        if (weld[0].offsets[g + 1] - weld[0].offsets[g] > 1) stats->weld_position_groups++;
    r = count_edges_and_duplicates(m, store->env, weld[0].group, stats, err);
done:
    sf_env_free(store->env, order, 0);
    return r;
}

void sfi_weld_free(const sfi_store* store, sfi_weld weld[2])
{
    for (int k = 0; k < 2; ++k) {
        sfi_weld* w = &weld[k];
        void* arrays[] = {w->group, w->offsets, w->members, w->corner_offsets, w->corners};
        for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i) sfi_store_free(store, arrays[i]);
        memset(w, 0, sizeof *w);
    }
}

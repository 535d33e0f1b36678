/* The chunks of recompute-fused's fast path (sfi_fused_plan, sf_internal.h): per run of `chunk` vertices, the
 * faces its gathers read (own corners and both weld groups' corners) and the vertices of those faces, each listed
 * once, so a frame deforms and rebuilds them once per chunk instead of once per corner. */
#include "sf_internal.h"

#include <stdlib.h>
#include <string.h>

static int by_value(const void* a, const void* b)
{
    uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return (x > y) - (x < y);
}

static size_t g_forced_chunk; /* sfi_fused_chunk_force */

void sfi_fused_chunk_force(size_t vertices) { g_forced_chunk = vertices; }

/* The chunk for this vertex order: 16 times the power of two above the median face span (a face's largest index
 * less its smallest), within [SFI_FUSED_CHUNK_MIN, SFI_FUSED_CHUNK_MAX], and no larger than leaves SFI_FUSED_SLOTS
 * chunks (where the mesh has that many of the smallest), so that each of 16 threads has one of a frame. A chunk
 * deforms its own vertices and those its faces reach beyond its ends, about a span on each side: about an eighth
 * more at 16 spans. On a row-major grid the span is a row. Larger chunks cost each slot of scratch more (about
 * 120 bytes a vertex). The median is taken from a histogram of the spans' powers of two. */
size_t sfi_fused_chunk_for(size_t n, size_t F, const uint32_t* indices)
{
    if (g_forced_chunk) return g_forced_chunk;
    size_t bins[33] = {0}; /* bin b: spans in [2^(b-1), 2^b), bin 0 the span 0 */
    for (size_t f = 0; f < F; ++f) {
        uint32_t a = indices[3 * f], b = indices[3 * f + 1], c = indices[3 * f + 2];
        uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
        lo = c < lo ? c : lo, hi = c > hi ? c : hi;
        uint32_t span = hi - lo;
        size_t bin = 0;
        while (span) ++bin, span >>= 1;
        ++bins[bin];
    }
    size_t bin = 0;
    for (size_t seen = 0; bin < 32 && (seen += bins[bin]) < (F + 1) / 2;) ++bin;
    size_t chunk = SFI_FUSED_CHUNK_MIN;
    while (chunk < SFI_FUSED_CHUNK_MAX && (uint64_t)chunk < ((uint64_t)16 << bin) &&
           2 * chunk * SFI_FUSED_SLOTS <= n)
        chunk <<= 1;
    return chunk;
}

typedef struct plan_build {
    size_t n, F;
    const uint32_t* indices;
    const uint32_t *adj_offsets, *adj_corners;
    const sfi_weld* weld; /* 2 */
    uint32_t* face_stamp; /* F: chunk + 1 that listed the face */
    uint32_t* face_local; /* F: its local index there */
    uint32_t* vert_stamp; /* n */
    uint32_t* vert_local; /* n */
    uint32_t* list;       /* scratch: a chunk's faces, then its extra vertices */
} plan_build;

static void mark_faces(plan_build* b, uint32_t stamp, const uint32_t* corners, uint32_t c0, uint32_t c1, size_t* count)
{
    for (uint32_t a = c0; a < c1; ++a) {
        uint32_t f = corners[a] / 3u;
        if (b->face_stamp[f] == stamp) continue;
        b->face_stamp[f] = stamp;
        b->list[(*count)++] = f;
    }
}

/* Chunk k's faces and vertices: counted (p->tris NULL) or written at the offsets already set. */
static void plan_chunk(plan_build* b, sfi_fused_plan* p, size_t k)
{
    size_t v0 = k * p->chunk, v1 = v0 + p->chunk < b->n ? v0 + p->chunk : b->n;
    uint32_t stamp = (uint32_t)k + 1u;
    size_t faces = 0;
    for (size_t v = v0; v < v1; ++v) {
        mark_faces(b, stamp, b->adj_corners, b->adj_offsets[v], b->adj_offsets[v + 1], &faces);
        for (int m = 0; m < 2; ++m) {
            const sfi_weld* w = &b->weld[m];
            uint32_t g = w->group[v];
            mark_faces(b, stamp, w->corners, w->corner_offsets[g], w->corner_offsets[g + 1], &faces);
        }
    }
    qsort(b->list, faces, sizeof *b->list, by_value); /* in mesh order: neighbouring faces share lines */
    for (size_t i = 0; i < faces; ++i) b->face_local[b->list[i]] = (uint32_t)i;
    /* the chunk's own vertices first (local index v - v0), then the others its faces touch */
    for (size_t v = v0; v < v1; ++v) b->vert_stamp[v] = stamp, b->vert_local[v] = (uint32_t)(v - v0);
    uint32_t* extra = b->list + faces;
    size_t extras = 0;
    for (size_t i = 0; i < faces; ++i)
        for (int c = 0; c < 3; ++c) {
            uint32_t u = b->indices[3 * (size_t)b->list[i] + c];
            if (b->vert_stamp[u] == stamp) continue;
            b->vert_stamp[u] = stamp;
            extra[extras++] = u;
        }
    qsort(extra, extras, sizeof *extra, by_value);
    size_t own = v1 - v0;
    for (size_t i = 0; i < extras; ++i) b->vert_local[extra[i]] = (uint32_t)(own + i);
    if (!p->tris) {
        p->vert_offsets[k + 1] = own + extras;
        p->face_offsets[k + 1] = faces;
        return;
    }
    uint32_t* verts = p->verts + p->vert_offsets[k];
    for (size_t v = v0; v < v1; ++v) verts[v - v0] = (uint32_t)v;
    memcpy(verts + own, extra, extras * sizeof *extra);
    uint32_t* tris = p->tris + 3 * p->face_offsets[k];
    for (size_t i = 0; i < faces; ++i)
        for (int c = 0; c < 3; ++c) tris[3 * i + c] = b->vert_local[b->indices[3 * (size_t)b->list[i] + c]];
    /* the gathers' corner lists in the chunk's numbering, in their own order */
    for (size_t v = v0; v < v1; ++v) {
        for (uint32_t a = b->adj_offsets[v]; a < b->adj_offsets[v + 1]; ++a) {
            uint32_t c = b->adj_corners[a];
            p->own_corners[a] = 3u * b->face_local[c / 3u] + c % 3u;
        }
        for (int m = 0; m < 2; ++m) {
            const sfi_weld* w = &b->weld[m];
            uint32_t g = w->group[v], o = p->weld_offsets[m][v];
            for (uint32_t a = w->corner_offsets[g]; a < w->corner_offsets[g + 1]; ++a) {
                uint32_t c = w->corners[a];
                p->weld_corners[m][o++] = 3u * b->face_local[c / 3u] + c % 3u;
            }
        }
    }
}

sf_result sfi_fused_plan_build(size_t n, size_t F, const uint32_t* indices, const uint32_t* adj_offsets,
                               const uint32_t* adj_corners, const sfi_weld weld[2], sfi_store* store,
                               sfi_fused_plan* out, sf_error* err)
{
    memset(out, 0, sizeof *out);
    size_t C = sfi_fused_chunk_for(n, F, indices), chunks = n / C + (n % C != 0);
    if (chunks == 0) return SF_OK;
    plan_build b = {n, F, indices, adj_offsets, adj_corners, weld, NULL, NULL, NULL, NULL, NULL};
    sfi_store tmp = {store->env, 0};
    /* a chunk lists at most its corners' faces and their vertices: 3 weld-or-own lists of its corners */
    size_t list_max = 0;
    for (size_t k = 0; k < chunks; ++k) {
        size_t v0 = k * C, v1 = v0 + C < n ? v0 + C : n;
        size_t c = adj_offsets[v1] - adj_offsets[v0];
        for (int m = 0; m < 2; ++m)
            for (size_t v = v0; v < v1; ++v) {
                uint32_t g = weld[m].group[v];
                c += weld[m].corner_offsets[g + 1] - weld[m].corner_offsets[g];
            }
        if (4 * c > list_max) list_max = 4 * c; /* faces, then up to 3 vertices each */
    }
    b.face_stamp = sfi_store_alloc(&tmp, F ? F : 1, sizeof(uint32_t));
    b.face_local = sfi_store_alloc(&tmp, F ? F : 1, sizeof(uint32_t));
    b.vert_stamp = sfi_store_alloc(&tmp, n, sizeof(uint32_t));
    b.vert_local = sfi_store_alloc(&tmp, n, sizeof(uint32_t));
    b.list = sfi_store_alloc(&tmp, list_max ? list_max : 1, sizeof(uint32_t));
    out->chunk = C;
    out->chunk_count = chunks;
    out->vert_offsets = sfi_store_alloc(store, chunks + 1, sizeof(size_t));
    out->face_offsets = sfi_store_alloc(store, chunks + 1, sizeof(size_t));
    out->own_corners = sfi_store_alloc(store, F ? 3 * F : 1, sizeof(uint32_t));
    for (int m = 0; m < 2; ++m) out->weld_offsets[m] = sfi_store_alloc(store, n + 1, sizeof(uint32_t));
    sf_result r = SF_OK;
    if (!b.face_stamp || !b.face_local || !b.vert_stamp || !b.vert_local || !b.list || !out->vert_offsets ||
        !out->face_offsets || !out->own_corners || !out->weld_offsets[0] || !out->weld_offsets[1])
        goto oom;
    /* each vertex's weld corners listed once per vertex (a group's members each carry a copy) */
    for (int m = 0; m < 2; ++m) {
        size_t total = 0;
        for (size_t v = 0; v < n; ++v) {
            uint32_t g = weld[m].group[v];
            out->weld_offsets[m][v] = (uint32_t)total;
            total += weld[m].corner_offsets[g + 1] - weld[m].corner_offsets[g];
            if (total > UINT32_MAX) goto oom;
        }
        out->weld_offsets[m][n] = (uint32_t)total;
        out->weld_corners[m] = sfi_store_alloc(store, total ? total : 1, sizeof(uint32_t));
        if (!out->weld_corners[m]) goto oom;
    }
    for (size_t k = 0; k < chunks; ++k) plan_chunk(&b, out, k);
    for (size_t k = 0; k < chunks; ++k) {
        size_t nv = out->vert_offsets[k + 1], nf = out->face_offsets[k + 1];
        if (nv > out->max_verts) out->max_verts = nv;
        if (nf > out->max_faces) out->max_faces = nf;
        out->vert_offsets[k + 1] += out->vert_offsets[k];
        out->face_offsets[k + 1] += out->face_offsets[k];
    }
    out->verts = sfi_store_alloc(store, out->vert_offsets[chunks], sizeof(uint32_t));
    out->tris = sfi_store_alloc(store, 3 * out->face_offsets[chunks] + 1, sizeof(uint32_t));
    if (!out->verts || !out->tris) goto oom;
    memset(b.face_stamp, 0, F * sizeof(uint32_t));
    memset(b.vert_stamp, 0, n * sizeof(uint32_t));
    for (size_t k = 0; k < chunks; ++k) plan_chunk(&b, out, k);
    goto done;
oom:
    r = sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "topology", SFI_NO_INDEX,
                     "recompute-fused's chunks for %zu vertices", n);
    sfi_fused_plan_free(store, out);
done:
    sfi_store_free(&tmp, b.face_stamp);
    sfi_store_free(&tmp, b.face_local);
    sfi_store_free(&tmp, b.vert_stamp);
    sfi_store_free(&tmp, b.vert_local);
    sfi_store_free(&tmp, b.list);
    return r;
}

void sfi_fused_plan_free(const sfi_store* store, sfi_fused_plan* plan)
{
    sfi_store_free(store, plan->vert_offsets);
    sfi_store_free(store, plan->face_offsets);
    sfi_store_free(store, plan->verts);
    sfi_store_free(store, plan->tris);
    sfi_store_free(store, plan->own_corners);
    for (int m = 0; m < 2; ++m) {
        sfi_store_free(store, plan->weld_offsets[m]);
        sfi_store_free(store, plan->weld_corners[m]);
    }
    memset(plan, 0, sizeof *plan);
}

/* The GPU's locality blocks (sfi_gpu_blocks): the vertices in Morton order of their rest positions, cut
 * greedily into blocks of at most max_own vertices whose faces and one-ring fit the limits (inside a block the
 * vertices are then taken in public order), each block with
 * its halo (the corners' vertices it does not own) and its faces and corners in block-local indices. A GPU
 * thread block then reads or skins its vertices and halo once into shared memory and gathers from there.
 * Built on request of the CUDA backend only (never per frame); the vertices' public order is unchanged. */
#include "gpu_blocks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MORTON_BITS 10 /* per axis: 2^30 cells, ties kept in index order */

static uint32_t spread10(uint32_t x) /* bit i of x to bit 3i */
{
    x &= 0x3ffu;
    x = (x | (x << 16)) & 0x030000ffu;
    x = (x | (x << 8)) & 0x0300f00fu;
    x = (x | (x << 4)) & 0x030c30c3u;
    x = (x | (x << 2)) & 0x09249249u;
    return x;
}

/* order: the vertices sorted by the Morton code of their rest position in the bounding cube (stable). */
static void morton_order(const sf_topology* topo, uint32_t* key, uint32_t* order, uint32_t* tmp)
{
    size_t n = topo->vertex_count;
    const float* p = topo->rest_positions;
    double lo[3] = {0.0, 0.0, 0.0}, hi[3] = {0.0, 0.0, 0.0};
    for (size_t v = 0; v < n; ++v)
        for (int k = 0; k < 3; ++k) {
            double x = p[3 * v + k];
            if (v == 0 || x < lo[k]) lo[k] = x;
            if (v == 0 || x > hi[k]) hi[k] = x;
        }
    double ext = 0.0;
    for (int k = 0; k < 3; ++k) ext = hi[k] - lo[k] > ext ? hi[k] - lo[k] : ext;
    double scale = ext > 0.0 && isfinite(ext) ? (double)((1u << MORTON_BITS) - 1) / ext : 0.0;
    for (size_t v = 0; v < n; ++v) {
        uint32_t c[3];
        for (int k = 0; k < 3; ++k) {
            double q = ((double)p[3 * v + k] - lo[k]) * scale;
            c[k] = q > 0.0 ? (uint32_t)(q + 0.5) : 0u;
            if (c[k] > (1u << MORTON_BITS) - 1) c[k] = (1u << MORTON_BITS) - 1;
        }
        key[v] = spread10(c[0]) | spread10(c[1]) << 1 | spread10(c[2]) << 2;
        order[v] = (uint32_t)v;
    }
    for (int pass = 0; pass < 4; ++pass) { /* LSD radix sort, 8 bits a pass */
        size_t count[257] = {0};
        int sh = 8 * pass;
        for (size_t i = 0; i < n; ++i) count[((key[order[i]] >> sh) & 255u) + 1]++;
        for (int d = 0; d < 256; ++d) count[d + 1] += count[d];
        for (size_t i = 0; i < n; ++i) tmp[count[(key[order[i]] >> sh) & 255u]++] = order[i];
        memcpy(order, tmp, n * sizeof *order);
    }
}

static int compare_u32(const void* a, const void* b)
{
    uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return (x > y) - (x < y);
}

/* Vertex v's corner lists: the normal's (its weld group's; none without a weld), then its own. */
typedef struct lists {
    const uint32_t *a, *b;
    uint32_t na, nb;
} lists;

static lists lists_of(const sf_topology* topo, int weld, uint32_t v)
{
    lists l;
    l.b = topo->adj_corners + topo->adj_offsets[v];
    l.nb = topo->adj_offsets[v + 1] - topo->adj_offsets[v];
    l.a = NULL, l.na = 0;
    if (weld >= 0) {
        const sfi_weld* w = &topo->weld[weld];
        uint32_t g = w->group[v];
        l.a = w->corners + w->corner_offsets[g];
        l.na = w->corner_offsets[g + 1] - w->corner_offsets[g];
    }
    return l;
}

typedef struct build {
    const sf_topology* topo;
    int weld;
    uint32_t* rank; /* each vertex's Morton position: the order inside a block (NULL: public order) */
    uint32_t *vstamp, *fstamp, *tf, *tv; /* stamps (0: in no block being built), tentative lists */
    uint32_t* morton;                    /* with rank: the Morton order itself */
} build;

/* Marks v's faces and their vertices (and v) with stamp s; the new ones go to b->tf / b->tv. */
static void mark(build* b, uint32_t v, uint32_t s, uint32_t* nf, uint32_t* nv)
{
    lists l = lists_of(b->topo, b->weld, v);
    const uint32_t* idx = b->topo->indices;
    *nf = *nv = 0;
    if (b->vstamp[v] != s) b->vstamp[v] = s, b->tv[(*nv)++] = v;
    for (int part = 0; part < 2; ++part) {
        const uint32_t* c = part ? l.b : l.a;
        uint32_t m = part ? l.nb : l.na;
        for (uint32_t k = 0; k < m; ++k) {
            uint32_t f = c[k] / 3u;
            if (b->fstamp[f] == s) continue;
            b->fstamp[f] = s, b->tf[(*nf)++] = f;
            for (int q = 0; q < 3; ++q) {
                uint32_t u = idx[3 * f + q];
                if (b->vstamp[u] != s) b->vstamp[u] = s, b->tv[(*nv)++] = u;
            }
        }
    }
}

void sfi_gpu_blocks_free(sfi_gpu_blocks* g)
{
    if (!g) return;
    void* arrays[] = {g->order, g->own_offsets, g->local_offsets, g->locals, g->face_offsets, g->face_locals,
                      g->corner_offsets, g->corners};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k) sfi_store_free(&g->store, arrays[k]);
    memset(g, 0, sizeof *g);
}

/* The cut: greedy along the Morton order, a vertex joining the block while its vertices and faces fit. Writes
 * own_offsets[1 ..] and the largest block's sizes; blocks, local_total and face_total are the sums. */
static sf_result cut_blocks(build* b, sfi_gpu_blocks* out, uint32_t max_own, uint32_t max_locals, uint32_t max_faces,
                            size_t* blocks, size_t* local_total, size_t* face_total, sf_error* err)
{
    size_t n = b->topo->vertex_count;
    uint32_t s = 1, own = 0, L = 0, NF = 0;
    for (size_t q = 0; q < n; ++q) {
        uint32_t v = out->order[q], nf, nv;
        mark(b, v, s, &nf, &nv);
        if (own > 0 && (own + 1 > max_own || L + nv > max_locals || NF + nf > max_faces)) {
            for (uint32_t i = 0; i < nf; ++i) b->fstamp[b->tf[i]] = 0;
            for (uint32_t i = 0; i < nv; ++i) b->vstamp[b->tv[i]] = 0;
            out->own_offsets[++*blocks] = (uint32_t)q;
            if (L > out->max_locals) out->max_locals = L;
            if (NF > out->max_faces) out->max_faces = NF;
            *local_total += L, *face_total += NF;
            ++s, own = L = NF = 0;
            mark(b, v, s, &nf, &nv);
        }
        if (nv > max_locals || nf > max_faces) // a block of its own would not hold it either
            return sf_error_set(err, SF_ERROR_UNSUPPORTED, "gpu blocks", v,
                                "vertex %u's faces need %u faces and %u vertices; a GPU block holds at most %u faces "
                                "and %u vertices in shared memory",
                                v, nf, nv, max_faces, max_locals);
        own++, L += nv, NF += nf;
    }
    if (own) {
        out->own_offsets[++*blocks] = (uint32_t)n;
        if (L > out->max_locals) out->max_locals = L;
        if (NF > out->max_faces) out->max_faces = NF;
        *local_total += L, *face_total += NF;
    }
    return SF_OK;
}

/* Block k written out with stamp s: owned vertices first, then the halo, each in public order (so that a warp's
 * reads and writes fall into few rows of memory), then the faces as the corners reach them. L0 / F0 / C0: the
 * locals, faces and corners written so far. vlocal / flocal: scratch, a vertex's and a face's block-local index. */
static void write_block(build* b, sfi_gpu_blocks* out, size_t k, uint32_t s, uint32_t* vlocal, uint32_t* flocal,
                        size_t* L0, size_t* F0, size_t* C0)
{
    const sf_topology* topo = b->topo;
    const uint32_t* idx = topo->indices;
    uint32_t L = 0, NF = 0;
    out->local_offsets[k] = (uint32_t)*L0, out->face_offsets[k] = (uint32_t)*F0;
    uint32_t q0 = out->own_offsets[k], q1 = out->own_offsets[k + 1];
    if (!b->rank) qsort(out->order + q0, q1 - q0, sizeof *out->order, compare_u32); /* else left in Morton order */
    for (uint32_t q = q0; q < q1; ++q) {
        uint32_t u = out->order[q];
        b->vstamp[u] = s, out->locals[*L0 + L++] = u;
    }
    for (uint32_t q = q0; q < q1; ++q) {
        lists l = lists_of(topo, b->weld, out->order[q]);
        for (int part = 0; part < 2; ++part) {
            const uint32_t* c = part ? l.b : l.a;
            uint32_t m = part ? l.nb : l.na;
            for (uint32_t i = 0; i < m; ++i)
                for (int e = 0; e < 3; ++e) {
                    uint32_t u = idx[c[i] - c[i] % 3u + (uint32_t)e];
                    if (b->vstamp[u] != s) b->vstamp[u] = s, out->locals[*L0 + L++] = u;
                }
        }
    }
    uint32_t* halo = out->locals + *L0 + (q1 - q0);
    if (b->rank) /* by Morton position: ranks sorted, then the vertices at those positions */
        for (uint32_t i = 0; i < L - (q1 - q0); ++i) halo[i] = b->rank[halo[i]];
    qsort(halo, L - (q1 - q0), sizeof *halo, compare_u32);
    if (b->rank)
        for (uint32_t i = 0; i < L - (q1 - q0); ++i) halo[i] = b->morton[halo[i]];
    for (uint32_t i = 0; i < L; ++i) vlocal[out->locals[*L0 + i]] = i;
    for (uint32_t q = q0; q < q1; ++q) {
        lists l = lists_of(topo, b->weld, out->order[q]);
        out->corner_offsets[q] = (uint32_t)*C0;
        for (int part = 0; part < 2; ++part) {
            const uint32_t* c = part ? l.b : l.a;
            uint32_t m = part ? l.nb : l.na;
            for (uint32_t i = 0; i < m; ++i) {
                uint32_t f = c[i] / 3u;
                if (b->fstamp[f] != s) {
                    b->fstamp[f] = s, flocal[f] = NF;
                    for (int e = 0; e < 3; ++e)
                        out->face_locals[3 * (*F0 + NF) + e] = (uint16_t)vlocal[idx[3 * f + e]];
                    NF++;
                }
                out->corners[(*C0)++] = (uint16_t)(3u * flocal[f] + (c[i] - 3u * f));
            }
        }
    }
    *L0 += L, *F0 += NF;
}

sf_result sfi_gpu_blocks_build(const sf_topology* topo, int weld, uint32_t max_own, uint32_t max_locals,
                               uint32_t max_faces, sfi_gpu_blocks* out, sf_error* err)
{
    return sfi_gpu_blocks_build_in(topo, weld, max_own, max_locals, max_faces, 0, out, err);
}

void sfi_gpu_morton_order(const sf_topology* topo, uint32_t* key, uint32_t* order, uint32_t* tmp)
{
    morton_order(topo, key, order, tmp);
}

sf_result sfi_gpu_blocks_build_in(const sf_topology* topo, int weld, uint32_t max_own, uint32_t max_locals,
                                  uint32_t max_faces, int morton_inside, sfi_gpu_blocks* out, sf_error* err)
{
    memset(out, 0, sizeof *out);
    SF_CHECK(topo != NULL, SF_ERROR_INVALID_ARGUMENT, err, "topology", SFI_NO_INDEX, "NULL");
    SF_CHECK(weld < 0 || (weld < 2 && topo->weld[weld].group), SF_ERROR_UNSUPPORTED, err, "opts.weld", SFI_NO_INDEX,
             "weld groups were not built for this topology");
    SF_CHECK(max_own > 0 && max_locals >= max_own && max_locals <= 65535u && max_faces > 0 && max_faces <= 21845u,
             SF_ERROR_INVALID_ARGUMENT, err, "gpu blocks", SFI_NO_INDEX,
             "limits %u own / %u local vertices / %u faces: need 0 < own <= locals <= 65535, 0 < faces <= 21845",
             max_own, max_locals, max_faces);
    size_t n = topo->vertex_count, F = topo->triangle_count;
    out->store.env = &topo->env;
    sfi_store* st = &out->store;
    build b = {topo, weld, NULL, NULL, NULL, NULL, NULL, NULL};
    uint32_t max_list = 0;
    size_t corner_total = 0;
    for (size_t v = 0; v < n; ++v) {
        lists l = lists_of(topo, weld, (uint32_t)v);
        if (l.na + l.nb > max_list) max_list = l.na + l.nb;
        corner_total += l.na + l.nb;
    }
    uint32_t* key = sfi_store_alloc(st, n ? n : 1, sizeof *key);
    uint32_t* tmp = sfi_store_alloc(st, n ? n : 1, sizeof *tmp);
    uint32_t* vlocal = sfi_store_alloc(st, n ? n : 1, sizeof *vlocal);
    uint32_t* flocal = sfi_store_alloc(st, F ? F : 1, sizeof *flocal);
    b.vstamp = sfi_store_alloc(st, n ? n : 1, sizeof *b.vstamp);
    b.fstamp = sfi_store_alloc(st, F ? F : 1, sizeof *b.fstamp);
    b.tf = sfi_store_alloc(st, (size_t)max_list + 1, sizeof *b.tf);
    b.tv = sfi_store_alloc(st, 3 * (size_t)max_list + 1, sizeof *b.tv);
    out->order = sfi_store_alloc(st, n ? n : 1, sizeof *out->order);
    out->own_offsets = sfi_store_alloc(st, n + 1, sizeof *out->own_offsets);
    out->corner_offsets = sfi_store_alloc(st, n + 1, sizeof *out->corner_offsets);
    out->corners = sfi_store_alloc(st, corner_total ? corner_total : 1, sizeof *out->corners);
    sf_result r = SF_OK;
    if (!key || !tmp || !vlocal || !flocal || !b.vstamp || !b.fstamp || !b.tf || !b.tv || !out->order ||
        !out->own_offsets || !out->corner_offsets || !out->corners) {
        r = sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "gpu blocks", SFI_NO_INDEX, "%zu vertices", n);
        goto done;
    }
    morton_order(topo, key, out->order, tmp);
    size_t blocks = 0, local_total = 0, face_total = 0;
    r = cut_blocks(&b, out, max_own, max_locals, max_faces, &blocks, &local_total, &face_total, err);
    if (r != SF_OK) goto done;
    if (morton_inside) { /* key's codes are spent: it holds the ranks now */
        for (size_t q = 0; q < n; ++q) key[out->order[q]] = (uint32_t)q;
        b.rank = key, b.morton = out->order;
    }
    out->block_count = (uint32_t)blocks;
    out->local_offsets = sfi_store_alloc(st, blocks + 1, sizeof *out->local_offsets);
    out->face_offsets = sfi_store_alloc(st, blocks + 1, sizeof *out->face_offsets);
    out->locals = sfi_store_alloc(st, local_total ? local_total : 1, sizeof *out->locals);
    out->face_locals = sfi_store_alloc(st, 3 * (face_total ? face_total : 1), sizeof *out->face_locals);
    if (!out->local_offsets || !out->face_offsets || !out->locals || !out->face_locals) {
        r = sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "gpu blocks", SFI_NO_INDEX, "%zu blocks", blocks);
        goto done;
    }
    /* the blocks written out with fresh stamps (past the cut's 1 .. blocks) */
    size_t L0 = 0, F0 = 0, C0 = 0;
    for (size_t k = 0; k < blocks; ++k)
        write_block(&b, out, k, (uint32_t)(blocks + 1 + k), vlocal, flocal, &L0, &F0, &C0);
    out->local_offsets[blocks] = (uint32_t)L0, out->face_offsets[blocks] = (uint32_t)F0;
    out->corner_offsets[n] = (uint32_t)C0;
    out->halo_count = L0 - n;
    out->face_count = F0;
done:
    sfi_store_free(st, key), sfi_store_free(st, tmp), sfi_store_free(st, vlocal), sfi_store_free(st, flocal);
    sfi_store_free(st, b.vstamp), sfi_store_free(st, b.fstamp), sfi_store_free(st, b.tf), sfi_store_free(st, b.tv);
    if (r != SF_OK) sfi_gpu_blocks_free(out);
    return r;
}

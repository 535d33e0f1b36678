// MikkTSpace's groups' sums on the device. The graph (shared vertices, neighbours, groups) is built on the host
// (src/core/mikktspace.c), which keeps it from frame to frame where it provably holds; a copy of one frame's groups
// lives here, and the instances whose own graph is that copy (the host checks each frame, sfc_mikk_covers) get
// their corner tangents from these kernels: the triangles' UV tangents (sfk_mikk_triangle), each group's sums
// (sfk_mikk_group_tangents, the host's operations, IEEE and without contraction: --fmad=false) and the per-vertex
// output, bit for bit the host's. Frames with a degenerate triangle (whose corners copy others') stay on the host.
#include "gpu_order.h"
#include "kernels_common.cuh"

#include <stdlib.h>
#include <string.h>

#define SFC_MIKK_PARTS 16     // as backend_cuda.cu's parts of a round

struct sfc_mikk {
    // the groups on the device: start (G + 1), corners (start[G]), orient and the first corner's vertex (G),
    // the triangles' flags after grouping (F), one allocation
    void* base;
    uint32_t *start, *corners, *normal_of;
    uint8_t *orient, *flags, *uv_flags;
    uint32_t groups, F;
    int valid;
    // the host's copy, to compare frames' graphs with
    uint32_t *h_start, *h_corners;
    uint8_t *h_orient, *h_flags;
    // per part of a round: the groups epoch last compared and whether it matched
    uint32_t part_epoch[SFC_MIKK_PARTS];
    int part_state[SFC_MIKK_PARTS]; // -1 not compared, 0 differs, 1 the same
    // per instance: the triangles' unit dP/du and dP/dv (6F), corner tangents when no ct is wanted (12F), the groups'
    // projections (6 per corner, at each group's offset, as the host's scratch) and sub-group members (3F), the mask
    float *face, *corner_scratch, *proj;
    uint32_t* members;
    uint8_t *mask, *h_mask;
    uint32_t cap;
};

namespace {

// Each triangle of each masked instance: its oriented unit dP/du, dP/dv, and the default tangent of its corners.
__global__ void k_mikk_triangles(sfc_topo t, uint32_t count, const uint8_t* mask, const uint8_t* uv_flags,
                                 const float* pos, float* face, float* corners)
{
    size_t total = (size_t)count * t.F;
    for (size_t k = (size_t)blockIdx.x * SFC_THREADS + threadIdx.x; k < total; k += (size_t)gridDim.x * SFC_THREADS) {
        size_t i = k / t.F, f = k % t.F;
        if (!mask[i]) continue;
        const float* P = pos + 3 * (size_t)t.n * i;
        const uint32_t* tri = t.indices + 3 * f;
        float* fo = face + 6 * (size_t)t.F * i;
        (void)sfk_mikk_triangle(P + 3 * tri[0], P + 3 * tri[1], P + 3 * tri[2], t.uvs + 2 * tri[0], t.uvs + 2 * tri[1],
                                t.uvs + 2 * tri[2], uv_flags[f], fo + 3 * f, fo + 3 * ((size_t)t.F + f));
        float* c = corners + 12 * (size_t)t.F * i + 12 * f;
        for (int j = 0; j < 3; ++j, c += 4) c[0] = 1.0f, c[1] = c[2] = 0.0f, c[3] = -1.0f;
    }
}

// One group of one masked instance: its corners' tangents, as the host sums them.
__global__ void k_mikk_groups(sfc_topo t, uint32_t count, const uint8_t* mask, const uint32_t* start,
                              const uint32_t* gcorners, const uint8_t* orient, const uint32_t* normal_of,
                              const uint8_t* flags, uint32_t groups, const float* pos, const float* nrm,
                              const float* face, float* proj, uint32_t* members, float* corners)
{
    size_t total = (size_t)count * groups;
    for (size_t k = (size_t)blockIdx.x * SFC_THREADS + threadIdx.x; k < total; k += (size_t)gridDim.x * SFC_THREADS) {
        size_t i = k / groups, g = k % groups;
        if (!mask[i]) continue;
        const float *P = pos + 3 * (size_t)t.n * i, *N = nrm + 3 * (size_t)t.n * i;
        const float* fo = face + 6 * (size_t)t.F * i;
        sfk_mikk_group_tangents(flags, t.indices, P, N, fo, fo + 3 * (size_t)t.F, gcorners + start[g],
                                start[g + 1] - start[g], N + 3 * (size_t)normal_of[g], orient[g],
                                members + 3 * (size_t)t.F * i + start[g], proj + 18 * (size_t)t.F * i + 6 * (size_t)start[g],
                                NULL, corners + 12 * (size_t)t.F * i);
    }
}

// Each vertex of each masked instance: its first corner's tangent, w in the mesh's uv convention, mirrored where
// det < 0 (rebuild.c's per-vertex output).
__global__ void k_mikk_vertices(sfc_topo t, uint32_t count, const uint8_t* mask, const float* corners,
                                const float* det, float* tan)
{
    size_t total = (size_t)count * t.n;
    for (size_t k = (size_t)blockIdx.x * SFC_THREADS + threadIdx.x; k < total; k += (size_t)gridDim.x * SFC_THREADS) {
        size_t i = k / t.n, v = k % t.n;
        if (!mask[i]) continue;
        float* o = tan + 4 * k;
        if (t.adj_offsets[v] == t.adj_offsets[v + 1]) {
            o[0] = o[1] = o[2] = 0.0f;
            o[3] = 1.0f;
            continue;
        }
        const float* c = corners + 12 * (size_t)t.F * i + 4 * (size_t)t.adj_corners[t.adj_offsets[v]];
        o[0] = c[0], o[1] = c[1], o[2] = c[2];
        o[3] = sfk_mikk_vertex_w(c[3], t.bitangent_sign, det[k]);
    }
}

// Each corner's w of each masked instance, as the per-vertex output's (the evaluation's per-corner reference).
__global__ void k_mikk_corner_w(sfc_topo t, uint32_t count, const uint8_t* mask, const float* det, float* corners)
{
    size_t C = 3 * (size_t)t.F, total = (size_t)count * C;
    for (size_t k = (size_t)blockIdx.x * SFC_THREADS + threadIdx.x; k < total; k += (size_t)gridDim.x * SFC_THREADS) {
        size_t i = k / C, c = k % C;
        if (!mask[i]) continue;
        float* w = corners + 4 * k + 3;
        *w = sfk_mikk_vertex_w(*w, t.bitangent_sign, det[(size_t)t.n * i + t.indices[c]]);
    }
}

unsigned grid_of(size_t total)
{
    size_t b = (total + SFC_THREADS - 1) / SFC_THREADS;
    return (unsigned)(b < 1 ? 1 : b > 8192 ? 8192 : b);
}

} // namespace

void sfc_mikk_destroy(sfc_mikk* m)
{
    if (!m) return;
    cudaFree(m->base);
    cudaFree(m->face);
    cudaFree(m->corner_scratch);
    cudaFree(m->proj);
    cudaFree(m->members);
    cudaFree(m->mask);
    cudaFreeHost(m->h_mask);
    free(m->h_start);
    free(m->h_corners);
    free(m->h_orient);
    free(m->h_flags);
    free(m);
}

int sfc_mikk_valid(const sfc_mikk* m) { return m && m->valid; }

sf_result sfc_mikk_set(sfc_mikk** pm, const sf_topology* topo, const sfi_gpu_order* order, const sfi_mikk_groups* g,
                       cudaStream_t s, sf_error* err)
{
    if (!*pm) {
        *pm = (sfc_mikk*)calloc(1, sizeof(sfc_mikk));
        if (!*pm)
            return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "workspace", SFI_NO_INDEX, "MikkTSpace groups on the GPU");
    }
    sfc_mikk* m = *pm;
    m->valid = 0;
    for (int k = 0; k < SFC_MIKK_PARTS; ++k) m->part_state[k] = -1;
    size_t G = g->group_count, F = topo->triangle_count, C = g->start[G];
    if (g->any_degen || G == 0) return SF_OK; // the host keeps these
    cudaFree(m->base);
    m->base = NULL;
    free(m->h_start), free(m->h_corners), free(m->h_orient), free(m->h_flags);
    m->h_start = (uint32_t*)malloc((G + 1) * sizeof(uint32_t));
    m->h_corners = (uint32_t*)malloc((C ? C : 1) * sizeof(uint32_t));
    m->h_orient = (uint8_t*)malloc(G);
    m->h_flags = (uint8_t*)malloc(F ? F : 1);
    // the device's copy in the device's numbering (corners, vertices and triangles through order), each group's
    // corners in their own order, so that every sum adds as the host's
    uint32_t* normal_of = (uint32_t*)malloc(G * sizeof(uint32_t));
    uint32_t* d_corners = (uint32_t*)malloc((C ? C : 1) * sizeof(uint32_t));
    uint8_t* d_flags = (uint8_t*)malloc(2 * (F ? F : 1));
    if (!m->h_start || !m->h_corners || !m->h_orient || !m->h_flags || !normal_of || !d_corners || !d_flags) {
        free(normal_of), free(d_corners), free(d_flags);
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "workspace", SFI_NO_INDEX, "MikkTSpace groups on the GPU");
    }
    memcpy(m->h_start, g->start, (G + 1) * sizeof(uint32_t));
    memcpy(m->h_corners, g->corners, C * sizeof(uint32_t));
    memcpy(m->h_orient, g->orient, G);
    memcpy(m->h_flags, g->flags, F);
    // the group's normal: its first corner's (a group's corners are one shared vertex, bit-identical data)
    for (size_t k = 0; k < G; ++k) normal_of[k] = topo->indices[g->corners[g->start[k]]];
    uint8_t* d_uv_flags = d_flags + F;
    for (size_t k = 0; k < C; ++k) d_corners[k] = order ? sfi_gpu_order_corner(order, g->corners[k]) : g->corners[k];
    for (size_t k = 0; order && k < G; ++k) normal_of[k] = order->inv[normal_of[k]];
    for (size_t q = 0; q < F; ++q) {
        size_t f = order ? order->fperm[q] : q;
        d_flags[q] = g->flags[f], d_uv_flags[q] = topo->mikk_uv_flags[f];
    }
    size_t bytes = 4 * ((G + 1) + C + G) + G + 2 * F + 64;
    cudaError_t e = cudaMalloc(&m->base, bytes);
    if (e != cudaSuccess) {
        free(normal_of), free(d_corners), free(d_flags);
        return sfc_failed(err, "cudaMalloc(MikkTSpace groups)", e);
    }
    char* p = (char*)m->base;
    m->start = (uint32_t*)p, p += 4 * (G + 1);
    m->corners = (uint32_t*)p, p += 4 * C;
    m->normal_of = (uint32_t*)p, p += 4 * G;
    m->orient = (uint8_t*)p, p += G;
    m->flags = (uint8_t*)p, p += F;
    m->uv_flags = (uint8_t*)p;
    m->groups = (uint32_t)G, m->F = (uint32_t)F;
    // synchronous copies: the structure changes rarely, and the host buffers are freed below
    e = cudaMemcpyAsync(m->start, g->start, 4 * (G + 1), cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess) e = cudaMemcpyAsync(m->corners, d_corners, 4 * C, cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess) e = cudaMemcpyAsync(m->normal_of, normal_of, 4 * G, cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess) e = cudaMemcpyAsync(m->orient, g->orient, G, cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess) e = cudaMemcpyAsync(m->flags, d_flags, F, cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess) e = cudaMemcpyAsync(m->uv_flags, d_uv_flags, F, cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    free(normal_of), free(d_corners), free(d_flags);
    if (e != cudaSuccess) return sfc_failed(err, "cudaMemcpyAsync(MikkTSpace groups)", e);
    m->valid = 1;
    return SF_OK;
}

int sfc_mikk_covers(sfc_mikk* m, size_t part, const sfi_mikk_groups* g)
{
    if (!m || !m->valid || g->any_degen || g->group_count != m->groups || part >= SFC_MIKK_PARTS) return 0;
    if (m->part_state[part] >= 0 && m->part_epoch[part] == g->epoch) return m->part_state[part];
    size_t G = m->groups;
    int same = memcmp(g->start, m->h_start, (G + 1) * sizeof(uint32_t)) == 0 &&
               memcmp(g->corners, m->h_corners, (size_t)m->h_start[G] * sizeof(uint32_t)) == 0 &&
               memcmp(g->orient, m->h_orient, G) == 0 && memcmp(g->flags, m->h_flags, m->F) == 0;
    // the flags after grouping are those of the groups' build: one epoch, one answer
    m->part_epoch[part] = g->epoch;
    m->part_state[part] = same;
    return same;
}

uint8_t* sfc_mikk_mask(sfc_mikk* m, uint32_t cap, sf_error* err)
{
    if (!m) return NULL;
    if (cap > m->cap) {
        cudaFree(m->face), cudaFree(m->corner_scratch), cudaFree(m->proj), cudaFree(m->members);
        cudaFree(m->mask), cudaFreeHost(m->h_mask);
        m->face = m->corner_scratch = m->proj = NULL, m->members = NULL, m->mask = m->h_mask = NULL, m->cap = 0;
        size_t F = m->F;
        if (cudaMalloc(&m->face, 6 * F * cap * sizeof(float)) != cudaSuccess ||
            cudaMalloc(&m->corner_scratch, 12 * F * cap * sizeof(float)) != cudaSuccess ||
            cudaMalloc(&m->proj, 18 * F * cap * sizeof(float)) != cudaSuccess ||
            cudaMalloc(&m->members, 3 * F * cap * sizeof(uint32_t)) != cudaSuccess ||
            cudaMalloc(&m->mask, cap) != cudaSuccess || cudaMallocHost(&m->h_mask, cap) != cudaSuccess) {
            sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "workspace", SFI_NO_INDEX,
                         "MikkTSpace on the GPU: scratch for %u instances", cap);
            return NULL;
        }
        m->cap = cap;
    }
    return m->h_mask;
}

sf_result sfc_mikk_run(sfc_mikk* m, const sfc_topo* t, uint32_t count, const float* pos, const float* nrm,
                       const float* det, float* tan, float* ct, cudaStream_t s, sf_error* err)
{
    if (count == 0) return SF_OK;
    float* corners = ct ? ct : m->corner_scratch;
    SFC_CHECK(cudaMemcpyAsync(m->mask, m->h_mask, count, cudaMemcpyHostToDevice, s), err);
    k_mikk_triangles<<<grid_of((size_t)count * t->F), SFC_THREADS, 0, s>>>(*t, count, m->mask, m->uv_flags, pos,
                                                                            m->face, corners);
    SFC_LAUNCHED("k_mikk_triangles", err);
    k_mikk_groups<<<grid_of((size_t)count * m->groups), SFC_THREADS, 0, s>>>(
        *t, count, m->mask, m->start, m->corners, m->orient, m->normal_of, m->flags, m->groups, pos, nrm, m->face,
        m->proj, m->members, corners);
    SFC_LAUNCHED("k_mikk_groups", err);
    k_mikk_vertices<<<grid_of((size_t)count * t->n), SFC_THREADS, 0, s>>>(*t, count, m->mask, corners, det, tan);
    SFC_LAUNCHED("k_mikk_vertices", err);
    if (ct) {
        k_mikk_corner_w<<<grid_of((size_t)count * 3 * t->F), SFC_THREADS, 0, s>>>(*t, count, m->mask, det, ct);
        SFC_LAUNCHED("k_mikk_corner_w", err);
    }
    return SF_OK;
}

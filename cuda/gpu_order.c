/* The CUDA backend's vertex order (sfi_gpu_order): the Morton order that the locality blocks are cut along, and
 * the moves of per-vertex and CSR arrays into it and back. Built once per topology on the host, never per
 * frame. */
#include "gpu_order.h"

#include "gpu_blocks.h"

#include <stdlib.h>
#include <string.h>

void sfi_gpu_order_free(sfi_gpu_order* o)
{
    if (!o) return;
    free(o->perm);
    free(o->inv);
    free(o->fperm);
    free(o->finv);
    memset(o, 0, sizeof *o);
}

static uint32_t face_key(const sf_topology* topo, const uint32_t* inv, size_t f)
{
    const uint32_t* t = topo->indices + 3 * f;
    uint32_t a = inv[t[0]], b = inv[t[1]], c = inv[t[2]];
    return a < b ? (a < c ? a : c) : (b < c ? b : c);
}

sf_result sfi_gpu_order_build(const sf_topology* topo, sfi_gpu_order* out, sf_error* err)
{
    memset(out, 0, sizeof *out);
    SF_CHECK(topo != NULL, SF_ERROR_INVALID_ARGUMENT, err, "topology", SFI_NO_INDEX, "NULL");
    size_t n = topo->vertex_count;
    size_t F = topo->triangle_count;
    out->perm = (uint32_t*)malloc((n ? n : 1) * sizeof *out->perm);
    out->inv = (uint32_t*)malloc((n ? n : 1) * sizeof *out->inv);
    out->fperm = (uint32_t*)malloc((F ? F : 1) * sizeof *out->fperm);
    out->finv = (uint32_t*)malloc((F ? F : 1) * sizeof *out->finv);
    uint32_t* tmp = (uint32_t*)malloc((n + 1) * sizeof *tmp);
    if (!out->perm || !out->inv || !out->fperm || !out->finv || !tmp) {
        free(tmp);
        sfi_gpu_order_free(out);
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "gpu order", SFI_NO_INDEX, "%zu vertices", n);
    }
    sfi_gpu_morton_order(topo, out->inv, out->perm, tmp); /* inv as the codes' scratch, then filled */
    for (size_t q = 0; q < n; ++q) out->inv[out->perm[q]] = (uint32_t)q;
    /* triangles by their lowest device vertex: a counting sort, stable */
    memset(tmp, 0, (n + 1) * sizeof *tmp);
    for (size_t f = 0; f < F; ++f) tmp[face_key(topo, out->inv, f) + 1]++;
    for (size_t q = 0; q < n; ++q) tmp[q + 1] += tmp[q];
    for (size_t f = 0; f < F; ++f) {
        uint32_t g = tmp[face_key(topo, out->inv, f)]++;
        out->fperm[g] = (uint32_t)f, out->finv[f] = g;
    }
    free(tmp);
    out->n = n, out->F = F;
    return SF_OK;
}

double sfi_gpu_order_lines(const sf_topology* topo, const uint32_t* perm, const uint32_t* inv)
{
    size_t n = topo->vertex_count, warps = 0, total = 0;
    size_t lines = (12 * n + 127) / 128;
    uint32_t* seen = (uint32_t*)calloc(lines ? lines : 1, sizeof *seen);
    if (!seen) return 0.0;
    for (size_t w0 = 0; w0 < n; w0 += 32, ++warps) {
        uint32_t stamp = (uint32_t)(w0 / 32 + 1);
        for (size_t q = w0; q < w0 + 32 && q < n; ++q) {
            uint32_t v = perm ? perm[q] : (uint32_t)q;
            for (uint32_t a = topo->adj_offsets[v]; a < topo->adj_offsets[v + 1]; ++a) {
                uint32_t f = topo->adj_corners[a] / 3u;
                for (int e = 0; e < 3; ++e) {
                    uint32_t u = topo->indices[3 * f + e];
                    size_t line = 12 * (size_t)(inv ? inv[u] : u) / 128;
                    if (seen[line] != stamp) seen[line] = stamp, total++;
                }
            }
        }
    }
    free(seen);
    return warps ? (double)total / (double)warps : 0.0;
}

void sfi_gpu_order_rows(size_t n, const uint32_t* perm, const void* src, size_t row_bytes, void* dst)
{
    const char* s = (const char*)src;
    char* d = (char*)dst;
    for (size_t q = 0; q < n; ++q) memcpy(d + q * row_bytes, s + (size_t)perm[q] * row_bytes, row_bytes);
}

void sfi_gpu_order_rows_back(size_t n, const uint32_t* perm, const void* src, size_t row_bytes, void* dst)
{
    const char* s = (const char*)src;
    char* d = (char*)dst;
    for (size_t q = 0; q < n; ++q) memcpy(d + (size_t)perm[q] * row_bytes, s + q * row_bytes, row_bytes);
}

void sfi_gpu_order_csr(size_t n, const uint32_t* perm, const uint32_t* offsets, const void* src, size_t elem_bytes,
                       uint32_t* dst_offsets, void* dst)
{
    const char* s = (const char*)src;
    char* d = (char*)dst;
    uint32_t at = 0;
    for (size_t q = 0; q < n; ++q) {
        uint32_t v = perm[q], m = offsets[v + 1] - offsets[v];
        dst_offsets[q] = at;
        if (s && m) memcpy(d + (size_t)at * elem_bytes, s + (size_t)offsets[v] * elem_bytes, (size_t)m * elem_bytes);
        at += m;
    }
    dst_offsets[n] = at;
}

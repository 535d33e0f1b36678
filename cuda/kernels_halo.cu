// The reference over the locality blocks (sfi_gpu_blocks, cuda/gpu_blocks.c): one CUDA block per block
// of vertices (and instance, blockIdx.y). Its local vertices (owned ones, then the halo) are read from the
// position buffer (halo-gather) or skinned from the pose (one-pass) once into shared memory; each block face
// is rebuilt once there (sfk_recompute_face, as the face pass); each owned vertex then sums its corners from
// shared memory in the gather's order (sfk_recompute_vertex's sums) and writes its frame at its public index.
// The same formulas in the same order as the face pass + gather: the same bits, no atomics.
#include "kernels_common.cuh"

#include <stdlib.h>
#include <string.h>

#define SFC_HALO_THREADS SFI_CUDA_HALO_OWN // a thread per owned vertex
#define SFC_HALO_SLOTS ((SFI_CUDA_HALO_LOCALS + SFC_HALO_THREADS - 1) / SFC_HALO_THREADS) // local vertices a thread loads

namespace {

// Shared memory of one block, structure of arrays: ML local vertices (x, y, z, det), MF faces (normal, UV
// tangent, bitangent, corner weights: 3 each); a warp's face f..f+31 hit 32 banks. The UVs enter through the
// faces' UV terms, fixed per topology (sfc_halo.uv_terms).
// Face component k (0-2 normal, 3-5 tangent, 6-8 bitangent, 9-11 corner weights) of face f: fs[k * MF + f].
struct halo_smem {
    float *px, *py, *pz, *d, *fs;
    uint32_t MF;
    __device__ halo_smem(float* s, uint32_t ML, uint32_t mf)
    {
        px = s, py = s + ML, pz = s + 2 * ML, d = s + 3 * ML, fs = s + 4 * ML;
        MF = mf;
    }
    __device__ __forceinline__ float& f(uint32_t k, uint32_t face) const { return fs[k * MF + face]; }
};

// Vertex u's final position and determinant, as the deform pass gives them (sfk_deform_position).
template <int K> __device__ __forceinline__ void skin(const sfc_topo& t, const float* bones, const float* alpha,
                                                      uint32_t u, float fp[3], float* det)
{
    uint32_t j[K > 0 ? K : 1] = {0};
    float w[K > 0 ? K : 1] = {0.0f};
    influences<K>::load(t, u, j, w);
    uint32_t e0 = 0, e1 = 0;
    if (alpha) {
        e0 = t.morph_offsets[u];
        e1 = t.morph_offsets[u + 1];
    }
    float rp[3] = {t.rest_p[3 * (size_t)u], t.rest_p[3 * (size_t)u + 1], t.rest_p[3 * (size_t)u + 2]}, p[3], m[12];
    sfk_deform_position(rp, t.morph_target + e0, t.morph_dp + 3 * (size_t)e0, e1 - e0, alpha, bones, j, w, (uint32_t)K,
                        p, m, det, fp);
}

// SKIN: the local vertices skinned from the pose (writing the owned ones' positions and determinants when
// pos / det are given); else read from pos / det.
template <int K, bool SKIN>
__global__ void __launch_bounds__(SFC_HALO_THREADS, 4)
    k_halo(sfc_topo t, sfc_halo h, sfc_batch b, const float* in_pos, const float* in_det, int weld, int weighting,
           float* pos, float* det, float* nrm, float* tan)
{
    extern __shared__ float smem[];
    halo_smem s(smem, h.max_locals, h.max_faces);
    uint32_t k = blockIdx.x, i = blockIdx.y;
    uint32_t L0 = h.local_offsets[k], L = h.local_offsets[k + 1] - L0;
    uint32_t F0 = h.face_offsets[k], NF = h.face_offsets[k + 1] - F0;
    uint32_t q0 = h.own_offsets[k], own = h.own_offsets[k + 1] - q0;
    size_t base = (size_t)i * t.n;
    const float* bones = SKIN && b.bones ? b.bones + i * b.bone_stride : NULL;
    const float* alpha = SKIN && b.alpha ? b.alpha + i * b.alpha_stride : NULL;
    // every load of a thread's local vertices issued before the first store (no dependence between them)
    float p[SFC_HALO_SLOTS][3], d[SFC_HALO_SLOTS];
#pragma unroll
    for (int r = 0; r < SFC_HALO_SLOTS; ++r) {
        uint32_t l = threadIdx.x + r * SFC_HALO_THREADS;
        if (l >= L) continue;
        uint32_t u = __ldg(h.locals + L0 + l);
        if (SKIN) {
            skin<K>(t, bones, alpha, u, p[r], &d[r]);
        } else {
            const float* P = in_pos + 3 * (base + u);
            p[r][0] = __ldg(P), p[r][1] = __ldg(P + 1), p[r][2] = __ldg(P + 2);
            d[r] = __ldg(in_det + base + u);
        }
    }
#pragma unroll
    for (int r = 0; r < SFC_HALO_SLOTS; ++r) {
        uint32_t l = threadIdx.x + r * SFC_HALO_THREADS;
        if (l >= L) continue;
        s.px[l] = p[r][0], s.py[l] = p[r][1], s.pz[l] = p[r][2], s.d[l] = d[r];
    }
    if (SKIN && threadIdx.x < own) { // the owned vertices are the first: slot 0
        size_t o = base + h.locals[L0 + threadIdx.x];
        if (pos) pos[3 * o] = p[0][0], pos[3 * o + 1] = p[0][1], pos[3 * o + 2] = p[0][2];
        if (det) det[o] = d[0];
    }
    __syncthreads();
    for (uint32_t f = threadIdx.x; f < NF; f += SFC_HALO_THREADS) {
        const uint16_t* c = h.face_locals + 3 * (size_t)(F0 + f);
        uint32_t a = c[0], bb = c[1], e = c[2];
        float pa[3] = {s.px[a], s.py[a], s.pz[a]}, pb[3] = {s.px[bb], s.py[bb], s.pz[bb]};
        float pc[3] = {s.px[e], s.py[e], s.pz[e]};
        float ut[5];
        if (h.uv_terms)
            for (int k = 0; k < 5; ++k) ut[k] = __ldg(h.uv_terms + (size_t)k * h.faces + F0 + f);
        float fn[3], ft[3], fb[3], cw[3];
        sfk_recompute_face_terms(pa, pb, pc, h.uv_terms ? ut : NULL, s.d[a], s.d[bb], s.d[e], weighting, fn, ft,
                                 fb, cw);
        for (int q = 0; q < 3; ++q) {
            s.f(q, f) = fn[q];
            s.f(3 + q, f) = ft[q];
            s.f(6 + q, f) = fb[q];
            s.f(9 + q, f) = cw[q];
        }
    }
    __syncthreads();
    if (threadIdx.x >= own) return;
    uint32_t q = q0 + threadIdx.x, v = h.locals[L0 + threadIdx.x];
    uint32_t c0 = h.corner_offsets[q], c1 = h.corner_offsets[q + 1], nb = c0, ne = c1, tb = c0, te = c1;
    if (weld >= 0) { // the weld group's normal corners, then the vertex's own
        ne = tb = c1 - (t.adj_offsets[v + 1] - t.adj_offsets[v]);
        if (!t.uvs) tb = te;
    }
    float N[3] = {0.0f, 0.0f, 0.0f}, T[3] = {0.0f, 0.0f, 0.0f}, B[3] = {0.0f, 0.0f, 0.0f};
    for (uint32_t a = nb; a < ne; ++a) {
        uint32_t e = h.corners[a], f = e / 3u;
        float w = weighting == SFK_WEIGHTING_AREA ? 1.0f : s.f(9 + (e - 3u * f), f);
        float fn[3] = {s.f(0, f), s.f(1, f), s.f(2, f)};
        sfk_madd(N, fn, w);
    }
    for (uint32_t a = tb; a < te; ++a) {
        uint32_t e = h.corners[a], f = e / 3u;
        float w = s.f(9 + (e - 3u * f), f);
        float ft[3] = {s.f(3, f), s.f(4, f), s.f(5, f)}, fb[3] = {s.f(6, f), s.f(7, f), s.f(8, f)};
        sfk_madd(T, ft, w);
        sfk_madd(B, fb, w);
    }
    if (!(sfk_finite3(T) && sfk_finite3(B))) { // as sfk_tangent_sums_wide: the sums again in double
        double dt[3] = {0.0, 0.0, 0.0}, db[3] = {0.0, 0.0, 0.0};
        for (uint32_t a = tb; a < te; ++a) {
            uint32_t e = h.corners[a], f = e / 3u;
            float ft[3] = {s.f(3, f), s.f(4, f), s.f(5, f)}, fb[3] = {s.f(6, f), s.f(7, f), s.f(8, f)};
            sfk_tangent_term_wide(dt, db, ft, fb, s.f(9 + (e - 3u * f), f));
        }
        sfk_direction_from_double(dt, T);
        sfk_direction_from_double(db, B);
    }
    float n[3], tt[4];
    sfk_finish_frame(N, T, B, t.bitangent_sign, n, tt);
    size_t o = base + v;
    nrm[3 * o] = n[0], nrm[3 * o + 1] = n[1], nrm[3 * o + 2] = n[2];
    float4 to = t.has_uvs ? make_float4(tt[0], tt[1], tt[2], tt[3]) : make_float4(0.0f, 0.0f, 0.0f, tt[3]);
    reinterpret_cast<float4*>(tan)[o] = to;
}

size_t smem_bytes(uint32_t ML, uint32_t MF)
{
    return 4 * (4 * (size_t)ML + 12 * (size_t)MF);
}

// Launches one instantiation with its dynamic shared memory (beyond 48 KB once allowed per kernel).
template <int K, bool SKIN>
sf_result launch(const sfc_topo* t, const sfc_halo* h, const sfc_batch* b, uint32_t count, const float* in_pos,
                 const float* in_det, int weld, int weighting, float* pos, float* det, float* nrm, float* tan,
                 cudaStream_t s, sf_error* err)
{
    size_t smem = smem_bytes(h->max_locals, h->max_faces);
    if (smem > 48 * 1024)
        SFC_CHECK(cudaFuncSetAttribute(k_halo<K, SKIN>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem), err);
    k_halo<K, SKIN><<<dim3(h->blocks, count), SFC_HALO_THREADS, smem, s>>>(*t, *h, *b, in_pos, in_det, weld, weighting,
                                                                         pos, det, nrm, tan);
    SFC_LAUNCHED("k_halo", err);
    return SF_OK;
}

// The device allocation of one weld mode's blocks: its arrays, each at a 256-byte boundary (at: their offsets);
// returns the allocation's size.
struct halo_part {
    const void* host;
    size_t bytes;
};
enum { HALO_PARTS = 8 };
// uv_terms: the host's sfk_face_uv_terms of every block face (NULL while only sizing).
size_t halo_parts(const sf_topology* topo, const sfi_gpu_blocks& g, const float* uv_terms, halo_part parts[HALO_PARTS],
                  size_t at[HALO_PARTS])
{
    size_t n = topo->vertex_count, B = g.block_count, C = g.corner_offsets[n];
    size_t Lt = g.local_offsets[B], Ft = g.face_offsets[B];
    const halo_part all[HALO_PARTS] = {{g.own_offsets, 4 * (B + 1)},    {g.local_offsets, 4 * (B + 1)},
                                       {g.locals, 4 * Lt},              {g.face_offsets, 4 * (B + 1)},
                                       {g.corner_offsets, 4 * (n + 1)}, {g.face_locals, 2 * 3 * Ft},
                                       {g.corners, 2 * C},              {uv_terms, topo->uvs ? 4 * 5 * Ft : 0}};
    size_t total = 0;
    for (size_t k = 0; k < HALO_PARTS; ++k) parts[k] = all[k], at[k] = total, total += (all[k].bytes + 255) & ~(size_t)255;
    return total;
}

// The UV terms of every block face (g's locals still in topo's numbering), term k of face f at k * Ft + f: the
// CPU's own sfk_face_uv_terms, so the device's tangents use the reference's determinants. NULL: out of memory.
float* face_uv_terms(const sf_topology* topo, const sfi_gpu_blocks& g, size_t Ft)
{
    float* out = (float*)malloc(5 * Ft * sizeof(float) + 1);
    if (!out) return NULL;
    for (uint32_t k = 0; k < g.block_count; ++k)
        for (uint32_t f = g.face_offsets[k]; f < g.face_offsets[k + 1]; ++f) {
            float tm[5];
            const float* uv[3];
            for (int c = 0; c < 3; ++c) uv[c] = topo->uvs + 2 * (size_t)g.locals[g.local_offsets[k] + g.face_locals[3 * (size_t)f + c]];
            sfk_face_uv_terms(uv[0], uv[1], uv[2], tm);
            for (int q = 0; q < 5; ++q) out[(size_t)q * Ft + f] = tm[q];
        }
    return out;
}

} // namespace

size_t sfc_halo_bytes(const sf_topology* topo, int weld)
{
    sfi_gpu_blocks g;
    sf_error err;
    if (sfi_gpu_blocks_build(topo, weld, SFI_CUDA_HALO_OWN, SFI_CUDA_HALO_LOCALS, SFI_CUDA_HALO_FACES, &g, &err) != SF_OK)
        return 0;
    halo_part parts[HALO_PARTS];
    size_t at[HALO_PARTS], total = halo_parts(topo, g, NULL, parts, at);
    sfi_gpu_blocks_free(&g);
    return total;
}

// The layout of one weld mode built on the host (gpu_blocks.c) and copied into one device allocation.
sf_result sfc_halo_upload(const sf_topology* topo, int weld, const uint32_t* inv, sfc_halo* out, sf_error* err)
{
    memset(out, 0, sizeof *out);
    int dev = 0, optin = 0;
    SFC_CHECK(cudaGetDevice(&dev), err);
    SFC_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), err);
    sfi_gpu_blocks g;
    sf_result r = sfi_gpu_blocks_build_in(topo, weld, SFI_CUDA_HALO_OWN, SFI_CUDA_HALO_LOCALS, SFI_CUDA_HALO_FACES,
                                          inv != NULL, &g, err);
    if (r != SF_OK) return r;
    size_t smem = smem_bytes(g.max_locals, g.max_faces);
    if (smem > (size_t)optin) {
        sfi_gpu_blocks_free(&g);
        return sf_error_set(err, SF_ERROR_UNSUPPORTED, "backend", SFI_NO_INDEX,
                            "cuda: a halo block of %u vertices and %u faces needs %zu B of shared memory, the device "
                            "gives a block %d B",
                            g.max_locals, g.max_faces, smem, optin);
    }
    size_t Ft = g.face_offsets[g.block_count];
    float* uvt = topo->uvs ? face_uv_terms(topo, g, Ft) : NULL;
    if (topo->uvs && !uvt && Ft) {
        sfi_gpu_blocks_free(&g);
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "backend", SFI_NO_INDEX,
                            "cuda: no host memory for the UV terms of %zu halo block faces", Ft);
    }
    if (inv)
        for (size_t l = 0; l < g.local_offsets[g.block_count]; ++l) g.locals[l] = inv[g.locals[l]];
    halo_part parts[HALO_PARTS];
    size_t at[HALO_PARTS], total = halo_parts(topo, g, uvt, parts, at);
    char* d = NULL;
    cudaError_t e = cudaMalloc((void**)&d, total ? total : 1);
    if (e != cudaSuccess) {
        free(uvt);
        sfi_gpu_blocks_free(&g);
        return sfc_failed(err, "cudaMalloc(halo blocks)", e);
    }
    for (size_t k = 0; k < HALO_PARTS && e == cudaSuccess; ++k)
        if (parts[k].bytes) e = cudaMemcpy(d + at[k], parts[k].host, parts[k].bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaDeviceSynchronize(); // copied before the workspace's own stream reads it
    out->base = d;
    out->blocks = g.block_count, out->max_locals = g.max_locals, out->max_faces = g.max_faces;
    out->own_offsets = (const uint32_t*)(d + at[0]);
    out->local_offsets = (const uint32_t*)(d + at[1]);
    out->locals = (const uint32_t*)(d + at[2]);
    out->face_offsets = (const uint32_t*)(d + at[3]);
    out->corner_offsets = (const uint32_t*)(d + at[4]);
    out->face_locals = (const uint16_t*)(d + at[5]);
    out->corners = (const uint16_t*)(d + at[6]);
    out->faces = (uint32_t)Ft;
    out->uv_terms = topo->uvs ? (const float*)(d + at[7]) : NULL;
    free(uvt);
    sfi_gpu_blocks_free(&g);
    if (e != cudaSuccess) {
        sfc_halo_free(out);
        return sfc_failed(err, "cudaMemcpy(halo blocks)", e);
    }
    return SF_OK;
}

void sfc_halo_free(sfc_halo* h)
{
    if (h && h->base) cudaFree(h->base);
    if (h) memset(h, 0, sizeof *h);
}

sf_result sfc_halo_gather(const sfc_topo* t, const sfc_halo* h, uint32_t count, const float* pos, const float* det,
                          int weld, int weighting, float* nrm, float* tan, cudaStream_t s, sf_error* err)
{
    if (t->n == 0 || h->blocks == 0) return SF_OK;
    sfc_batch none;
    memset(&none, 0, sizeof none);
    return launch<0, false>(t, h, &none, count, pos, det, weld, weighting, NULL, NULL, nrm, tan, s, err);
}

sf_result sfc_halo_one_pass(const sfc_topo* t, const sfc_halo* h, const sfc_batch* b, int weld, int weighting,
                            float* pos, float* det, float* nrm, float* tan, cudaStream_t s, sf_error* err)
{
    if (t->n == 0 || h->blocks == 0) return SF_OK;
    switch (t->K) {
    case 0: return launch<0, true>(t, h, b, b->count, NULL, NULL, weld, weighting, pos, det, nrm, tan, s, err);
    case 4: return launch<4, true>(t, h, b, b->count, NULL, NULL, weld, weighting, pos, det, nrm, tan, s, err);
    case 8: return launch<8, true>(t, h, b, b->count, NULL, NULL, weld, weighting, pos, det, nrm, tan, s, err);
    default: return launch<16, true>(t, h, b, b->count, NULL, NULL, weld, weighting, pos, det, nrm, tan, s, err);
    }
}

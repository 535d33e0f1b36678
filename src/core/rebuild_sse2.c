/* The rebuilt frames' face pass and gather with SSE2 (every x86-64 CPU), bit for bit rebuild.c's scalar loops:
 *   - the face pass takes 4 faces per step with the operations of sfk_recompute_face in their order (no fused
 *     multiply-add) and writes each face as one record of 12 floats (SFI_FACE_FLOATS: face_n, face_t, face_b,
 *     the 3 corner weights), so the gather reads one line per corner instead of four arrays; the angle
 *     weighting (atan2f per corner) and lanes whose normal's square passes FLT_MAX take the scalar kernel;
 *   - the gather adds a record's 12 floats as 3 vectors, each lane one component's scalar sum in the same
 *     corner order, then finishes 4 vertices at once (sfk_finish_frame's operations; a lane whose square
 *     passes FLT_MAX, or whose tangent sums overflow, is redone by the scalar kernels). */
#include "sf_internal.h"
#include "sf_kernels.h"

#include <float.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>

/* one face's record: n (3), t (3), b (3), corner weights (3) */
_Static_assert(SFI_FACE_FLOATS == 12, "the record is 3 vectors");

static void face_scalar(const sf_topology* topo, const float* P, const float* det, int weighting, size_t f, float* rec)
{
    const uint32_t* tri = topo->indices + 3 * f;
    const float* uv[3] = {NULL, NULL, NULL};
    if (topo->uvs)
        for (int c = 0; c < 3; ++c) uv[c] = topo->uvs + 2 * tri[c];
    sfk_recompute_face(P + 3 * tri[0], P + 3 * tri[1], P + 3 * tri[2], uv[0], uv[1], uv[2], det[tri[0]], det[tri[1]],
                       det[tri[2]], weighting, rec, rec + 3, rec + 6, rec + 9);
}

/* Vertex i's position as x y z (w unused); the last vertex is read without going past the array. */
static inline __m128 load_point(const float* P, uint32_t i, size_t n)
{
    const float* p = P + 3 * (size_t)i;
    return (size_t)i + 1 < n ? _mm_loadu_ps(p) : _mm_setr_ps(p[0], p[1], p[2], 0.0f);
}

static inline __m128 dot3(__m128 ax, __m128 ay, __m128 az, __m128 bx, __m128 by, __m128 bz)
{
    return _mm_add_ps(_mm_add_ps(_mm_mul_ps(ax, bx), _mm_mul_ps(ay, by)), _mm_mul_ps(az, bz));
}

/* 4 faces from their corners' coordinates x y z, determinants d and UVs u v (uv 0: none) into the 4 records
 * at o; returns the lanes to redo in scalar (a normal's square past FLT_MAX, uniform weighting). */
static inline unsigned face_core(const __m128 x[3], const __m128 y[3], const __m128 z[3], const __m128 d[3],
                                 const __m128 u[3], const __m128 v[3], int uv, int weighting, float* o)
{
    __m128 e1x = _mm_sub_ps(x[1], x[0]), e1y = _mm_sub_ps(y[1], y[0]), e1z = _mm_sub_ps(z[1], z[0]);
    __m128 e2x = _mm_sub_ps(x[2], x[0]), e2y = _mm_sub_ps(y[2], y[0]), e2z = _mm_sub_ps(z[2], z[0]);
    __m128 nx = _mm_sub_ps(_mm_mul_ps(e1y, e2z), _mm_mul_ps(e1z, e2y));
    __m128 ny = _mm_sub_ps(_mm_mul_ps(e1z, e2x), _mm_mul_ps(e1x, e2z));
    __m128 nz = _mm_sub_ps(_mm_mul_ps(e1x, e2y), _mm_mul_ps(e1y, e2x));
    __m128 zero = _mm_setzero_ps(), sign = _mm_set1_ps(-0.0f);
    __m128 tx = zero, ty = zero, tz = zero, bx = zero, by = zero, bz = zero;
    if (uv) {
        __m128 du1 = _mm_sub_ps(u[1], u[0]), dv1 = _mm_sub_ps(v[1], v[0]);
        __m128 du2 = _mm_sub_ps(u[2], u[0]), dv2 = _mm_sub_ps(v[2], v[0]);
        __m128 uvdet = _mm_sub_ps(_mm_mul_ps(du1, dv2), _mm_mul_ps(du2, dv1));
        __m128 usable = _mm_cmpgt_ps(_mm_andnot_ps(sign, uvdet), _mm_set1_ps(SF_UV_DET_EPS));
        if (_mm_movemask_ps(usable)) {
            __m128 inv = _mm_div_ps(_mm_set1_ps(1.0f), uvdet);
#define SF_TB(e1, e2, t, b)                                                                                  \
    t = _mm_and_ps(usable, _mm_mul_ps(_mm_sub_ps(_mm_mul_ps(e1, dv2), _mm_mul_ps(e2, dv1)), inv));           \
    b = _mm_and_ps(usable, _mm_mul_ps(_mm_sub_ps(_mm_mul_ps(e2, du1), _mm_mul_ps(e1, du2)), inv));
            SF_TB(e1x, e2x, tx, bx)
            SF_TB(e1y, e2y, ty, by)
            SF_TB(e1z, e2z, tz, bz)
#undef SF_TB
        }
    }
    /* two or three mirrored corners: the normal turned (a sign flip, as the scalar negation) */
    __m128i m0 = _mm_castps_si128(_mm_cmplt_ps(d[0], zero)), m1 = _mm_castps_si128(_mm_cmplt_ps(d[1], zero)),
            m2 = _mm_castps_si128(_mm_cmplt_ps(d[2], zero));
    __m128i two = _mm_or_si128(_mm_or_si128(_mm_and_si128(m0, m1), _mm_and_si128(m0, m2)), _mm_and_si128(m1, m2));
    __m128 flip = _mm_and_ps(_mm_castsi128_ps(two), sign);
    nx = _mm_xor_ps(nx, flip), ny = _mm_xor_ps(ny, flip), nz = _mm_xor_ps(nz, flip);
    __m128 len2 = dot3(nx, ny, nz, nx, ny, nz);
    __m128 ok = _mm_cmpge_ps(len2, _mm_set1_ps(SF_SAFE_UNIT_EPS2));
    __m128 w;
    unsigned big = 0;
    if (weighting == SFK_WEIGHTING_AREA) {
        w = _mm_and_ps(ok, _mm_sqrt_ps(len2));
    } else { /* uniform: the unit normal (sfk_safe_unit; the counted faces' len2 >= its threshold) */
        big = (unsigned)_mm_movemask_ps(_mm_cmpgt_ps(len2, _mm_set1_ps(FLT_MAX)));
        __m128 inv = _mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(len2));
        nx = _mm_or_ps(_mm_and_ps(ok, _mm_mul_ps(nx, inv)), _mm_andnot_ps(ok, nx));
        ny = _mm_or_ps(_mm_and_ps(ok, _mm_mul_ps(ny, inv)), _mm_andnot_ps(ok, ny));
        nz = _mm_or_ps(_mm_and_ps(ok, _mm_mul_ps(nz, inv)), _mm_andnot_ps(ok, nz));
        w = _mm_and_ps(ok, _mm_set1_ps(1.0f));
    }
    /* rows to records: lanes' (nx ny nz tx), (ty tz bx by), (bz w w w) */
    __m128 r0 = nx, r1 = ny, r2 = nz, r3 = tx;
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    __m128 s0 = ty, s1 = tz, s2 = bx, s3 = by;
    _MM_TRANSPOSE4_PS(s0, s1, s2, s3);
    __m128 q0 = bz, q1 = w, q2 = w, q3 = w;
    _MM_TRANSPOSE4_PS(q0, q1, q2, q3);
    _mm_storeu_ps(o, r0), _mm_storeu_ps(o + 4, s0), _mm_storeu_ps(o + 8, q0);
    _mm_storeu_ps(o + 12, r1), _mm_storeu_ps(o + 16, s1), _mm_storeu_ps(o + 20, q1);
    _mm_storeu_ps(o + 24, r2), _mm_storeu_ps(o + 28, s2), _mm_storeu_ps(o + 32, q2);
    _mm_storeu_ps(o + 36, r3), _mm_storeu_ps(o + 40, s3), _mm_storeu_ps(o + 44, q3);
    return big;
}

/* Faces f .. f+3 (all valid). */
static void face_step(const sf_topology* topo, const float* P, const float* det, int weighting, size_t f, float* rec)
{
    size_t n = topo->vertex_count;
    const uint32_t* I = topo->indices + 3 * f;
    __m128 x[3], y[3], z[3], d[3], u[3], v[3];
    for (int c = 0; c < 3; ++c) {
        __m128 a = load_point(P, I[c], n), b = load_point(P, I[3 + c], n), e = load_point(P, I[6 + c], n),
               g = load_point(P, I[9 + c], n);
        _MM_TRANSPOSE4_PS(a, b, e, g);
        x[c] = a, y[c] = b, z[c] = e;
        d[c] = _mm_setr_ps(det[I[c]], det[I[3 + c]], det[I[6 + c]], det[I[9 + c]]);
    }
    const float* U = topo->uvs;
    for (int c = 0; U && c < 3; ++c) {
        u[c] = _mm_setr_ps(U[2 * I[c]], U[2 * I[3 + c]], U[2 * I[6 + c]], U[2 * I[9 + c]]);
        v[c] = _mm_setr_ps(U[2 * I[c] + 1], U[2 * I[3 + c] + 1], U[2 * I[6 + c] + 1], U[2 * I[9 + c] + 1]);
    }
    unsigned big = face_core(x, y, z, d, u, v, U != NULL, weighting, rec + SFI_FACE_FLOATS * f);
    for (int l = 0; l < 4; ++l)
        if (big >> l & 1u) face_scalar(topo, P, det, weighting, f + (size_t)l, rec + SFI_FACE_FLOATS * (f + (size_t)l));
}

void sfi_rebuild_faces_sse2(const sf_topology* topo, const float* positions, const float* det, int weighting,
                            float* records, size_t f0, size_t f1)
{
    size_t f = f0;
    if (weighting != SFK_WEIGHTING_ANGLE)
        for (; f + 4 <= f1; f += 4) face_step(topo, positions, det, weighting, f, records);
    for (; f < f1; ++f) face_scalar(topo, positions, det, weighting, f, records + SFI_FACE_FLOATS * f);
}

/* One face of a chunk (sfi_rebuild_chunk_faces_sse2) by the scalar kernel. */
static void chunk_face_scalar(const float* P, const float* det, const uint32_t* tri, const float* uvs,
                              const uint32_t* verts, int weighting, float* rec)
{
    const float* uv[3] = {NULL, NULL, NULL};
    if (uvs)
        for (int c = 0; c < 3; ++c) uv[c] = uvs + 2 * (size_t)verts[tri[c]];
    sfk_recompute_face(P + 3 * (size_t)tri[0], P + 3 * (size_t)tri[1], P + 3 * (size_t)tri[2], uv[0], uv[1], uv[2],
                       det[tri[0]], det[tri[1]], det[tri[2]], weighting, rec, rec + 3, rec + 6, rec + 9);
}

void sfi_rebuild_chunk_faces_sse2(const float* P, const float* det, const uint32_t* tris, size_t face_count,
                                  const float* uvs, const uint32_t* verts, int weighting, float* records)
{
    size_t f = 0;
    if (weighting != SFK_WEIGHTING_ANGLE)
        for (; f + 4 <= face_count; f += 4) {
            const uint32_t* I = tris + 3 * f;
            __m128 x[3], y[3], z[3], d[3], u[3], v[3];
            for (int c = 0; c < 3; ++c) { /* P has a float to spare after its last vertex */
                __m128 a = _mm_loadu_ps(P + 3 * (size_t)I[c]), b = _mm_loadu_ps(P + 3 * (size_t)I[3 + c]),
                       e = _mm_loadu_ps(P + 3 * (size_t)I[6 + c]), g = _mm_loadu_ps(P + 3 * (size_t)I[9 + c]);
                _MM_TRANSPOSE4_PS(a, b, e, g);
                x[c] = a, y[c] = b, z[c] = e;
                d[c] = _mm_setr_ps(det[I[c]], det[I[3 + c]], det[I[6 + c]], det[I[9 + c]]);
            }
            for (int c = 0; uvs && c < 3; ++c) {
                const float *a = uvs + 2 * (size_t)verts[I[c]], *b = uvs + 2 * (size_t)verts[I[3 + c]],
                            *e = uvs + 2 * (size_t)verts[I[6 + c]], *g = uvs + 2 * (size_t)verts[I[9 + c]];
                u[c] = _mm_setr_ps(a[0], b[0], e[0], g[0]);
                v[c] = _mm_setr_ps(a[1], b[1], e[1], g[1]);
            }
            unsigned big = face_core(x, y, z, d, u, v, uvs != NULL, weighting, records + SFI_FACE_FLOATS * f);
            for (int l = 0; l < 4; ++l)
                if (big >> l & 1u)
                    chunk_face_scalar(P, det, I + 3 * l, uvs, verts, weighting,
                                      records + SFI_FACE_FLOATS * (f + (size_t)l));
        }
    for (; f < face_count; ++f)
        chunk_face_scalar(P, det, tris + 3 * f, uvs, verts, weighting, records + SFI_FACE_FLOATS * f);
}

/* The tangent sums again in double over the records (sfk_tangent_sums_wide's terms, same order). */
static void tangent_sums_wide(const float* records, const uint32_t* corners, uint32_t b, uint32_t e, float T[3],
                              float B[3])
{
    double t[3] = {0.0, 0.0, 0.0}, bb[3] = {0.0, 0.0, 0.0};
    for (uint32_t a = b; a < e; ++a) {
        const float* r = records + SFI_FACE_FLOATS * (size_t)(corners[a] / 3u);
        sfk_tangent_term_wide(t, bb, r + 3, r + 6, r[9 + corners[a] % 3u]);
    }
    sfk_direction_from_double(t, T);
    sfk_direction_from_double(bb, B);
}

/* sfk_safe_unit on 4 lanes; *big gets the lanes past FLT_MAX (redone in scalar). */
static inline void safe_unit4(__m128* x, __m128* y, __m128* z, __m128* big)
{
    __m128 len2 = dot3(*x, *y, *z, *x, *y, *z);
    __m128 ok = _mm_cmpge_ps(len2, _mm_set1_ps(SF_SAFE_UNIT_EPS2));
    *big = _mm_or_ps(*big, _mm_cmpgt_ps(len2, _mm_set1_ps(FLT_MAX)));
    __m128 inv = _mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(len2));
    *x = _mm_and_ps(ok, _mm_mul_ps(*x, inv));
    *y = _mm_and_ps(ok, _mm_mul_ps(*y, inv));
    *z = _mm_and_ps(ok, _mm_mul_ps(*z, inv));
}

/* Lanes where x * 0 is not 0: infinite or NaN. */
static inline int not_finite_mask(__m128 x)
{
    return _mm_movemask_ps(_mm_cmpneq_ps(_mm_mul_ps(x, _mm_setzero_ps()), _mm_setzero_ps()));
}

/* One corner's record added: lanes 0-2 of a0 the normal times m (1 under the area weighting, else w), the
 * rest the tangent and bitangent times w. */
#define SF_CORNER(c, a0, a1, a2)                                                   \
    do {                                                                                     \
        const float* r_ = records + SFI_FACE_FLOATS * (size_t)((c) / 3u);                    \
        __m128 w_ = _mm_set1_ps(r_[9 + (c) % 3u]);                                           \
        a0 = _mm_add_ps(a0, _mm_mul_ps(_mm_loadu_ps(r_), _mm_or_ps(_mm_andnot_ps(keep_one, w_), one_kept))); \
        a1 = _mm_add_ps(a1, _mm_mul_ps(_mm_loadu_ps(r_ + 4), w_));                           \
        a2 = _mm_add_ps(a2, _mm_mul_ps(_mm_loadu_ps(r_ + 8), w_));                           \
    } while (0)

/* The gather's corner lists: vertex v's tangent corners t_corners[t_offsets[v] ..), its normal corners
 * n_corners[n_offsets[i] ..) with i = n_group[v] (n_group NULL: i = v; n_offsets NULL: the tangent corners, in
 * one walk). Corners index the records (record corner / 3). */
typedef struct gather_lists {
    const uint32_t *t_offsets, *t_corners;
    const uint32_t *n_group, *n_offsets, *n_corners;
} gather_lists;

static void gather(const gather_lists* L, const float* records, int weighting, float bitangent_sign, size_t v0,
                   size_t v1, float* normals, float* tangents)
{
    const uint32_t *adj = L->t_corners, *off = L->t_offsets;
    /* the lanes of a0 that add the normal unweighted: 0-2 under the area weighting, none otherwise */
    __m128 keep_one = weighting == SFK_WEIGHTING_AREA ? _mm_castsi128_ps(_mm_setr_epi32(-1, -1, -1, 0))
                                                      : _mm_setzero_ps();
    __m128 one = _mm_set1_ps(1.0f), zero = _mm_setzero_ps();
    __m128 one_kept = _mm_and_ps(keep_one, one);
    for (size_t v = v0; v < v1; v += 4) {
        size_t count = v1 - v < 4 ? v1 - v : 4;
        __m128 AN[4], A0[4], A1[4], A2[4];
        for (size_t l = 0; l < 4; ++l) {
            __m128 a0 = zero, a1 = zero, a2 = zero, an = zero;
            if (l < count) {
                uint32_t b = off[v + l], e = off[v + l + 1];
                if (!L->n_offsets) { /* one walk: the normal in lanes 0-2 of a0, tangent and bitangent in the rest */
                    for (uint32_t a = b; a < e; ++a) SF_CORNER(adj[a], a0, a1, a2);
                    an = a0;
                } else { /* the normal over the weld group's corners, the tangents over the vertex's own */
                    size_t g = L->n_group ? L->n_group[v + l] : v + l;
                    for (uint32_t a = L->n_offsets[g]; a < L->n_offsets[g + 1]; ++a) {
                        uint32_t c = L->n_corners[a];
                        const float* r = records + SFI_FACE_FLOATS * (size_t)(c / 3u);
                        __m128 wc = _mm_set1_ps(r[9 + c % 3u]);
                        an = _mm_add_ps(an, _mm_mul_ps(_mm_loadu_ps(r), _mm_or_ps(_mm_andnot_ps(keep_one, wc), one_kept)));
                    }
                    for (uint32_t a = b; a < e; ++a) SF_CORNER(adj[a], a0, a1, a2) /* lanes 0-2 unused */;
                }
                if ((not_finite_mask(a0) & 8) | not_finite_mask(a1) | (not_finite_mask(a2) & 1)) {
                    float f0[4], f1[4], f2[4], T[3], B[3];
                    _mm_storeu_ps(f0, a0), _mm_storeu_ps(f1, a1), _mm_storeu_ps(f2, a2);
                    tangent_sums_wide(records, adj, b, e, T, B);
                    f0[3] = T[0], f1[0] = T[1], f1[1] = T[2], f1[2] = B[0], f1[3] = B[1], f2[0] = B[2];
                    a0 = _mm_loadu_ps(f0), a1 = _mm_loadu_ps(f1), a2 = _mm_loadu_ps(f2);
                }
            }
            AN[l] = an, A0[l] = a0, A1[l] = a1, A2[l] = a2;
        }
        /* to rows: N x y z; T = (a0.3, a1.0, a1.1), B = (a1.2, a1.3, a2.0) */
        _MM_TRANSPOSE4_PS(AN[0], AN[1], AN[2], AN[3]);
        _MM_TRANSPOSE4_PS(A0[0], A0[1], A0[2], A0[3]);
        _MM_TRANSPOSE4_PS(A1[0], A1[1], A1[2], A1[3]);
        _MM_TRANSPOSE4_PS(A2[0], A2[1], A2[2], A2[3]);
        __m128 Nx = AN[0], Ny = AN[1], Nz = AN[2], Tx = A0[3], Ty = A1[0], Tz = A1[1], Bx = A1[2], By = A1[3],
               Bz = A2[0];
        /* sfk_finish_frame on 4 lanes */
        __m128 N0x = Nx, N0y = Ny, N0z = Nz, big = zero;
        safe_unit4(&Nx, &Ny, &Nz, &big);
        __m128 d = dot3(Nx, Ny, Nz, Tx, Ty, Tz);
        __m128 ox = _mm_sub_ps(Tx, _mm_mul_ps(Nx, d)), oy = _mm_sub_ps(Ty, _mm_mul_ps(Ny, d)),
               oz = _mm_sub_ps(Tz, _mm_mul_ps(Nz, d));
        safe_unit4(&ox, &oy, &oz, &big);
        __m128 cx = _mm_sub_ps(_mm_mul_ps(Ny, oz), _mm_mul_ps(Nz, oy));
        __m128 cy = _mm_sub_ps(_mm_mul_ps(Nz, ox), _mm_mul_ps(Nx, oz));
        __m128 cz = _mm_sub_ps(_mm_mul_ps(Nx, oy), _mm_mul_ps(Ny, ox));
        __m128 side = _mm_mul_ps(dot3(cx, cy, cz, Bx, By, Bz), _mm_set1_ps(bitangent_sign));
        __m128 w = _mm_or_ps(_mm_and_ps(_mm_cmplt_ps(side, zero), _mm_set1_ps(-0.0f)), one);
        unsigned redo = (unsigned)_mm_movemask_ps(big);
        float n4[4][4], t4[4][4];
        __m128 n0 = Nx, n1 = Ny, n2 = Nz, n3 = zero;
        _MM_TRANSPOSE4_PS(n0, n1, n2, n3);
        _MM_TRANSPOSE4_PS(ox, oy, oz, w);
        _mm_storeu_ps(n4[0], n0), _mm_storeu_ps(n4[1], n1), _mm_storeu_ps(n4[2], n2), _mm_storeu_ps(n4[3], n3);
        _mm_storeu_ps(t4[0], ox), _mm_storeu_ps(t4[1], oy), _mm_storeu_ps(t4[2], oz), _mm_storeu_ps(t4[3], w);
        if (redo) { /* those lanes by the scalar kernel from their sums */
            float R[9][4];
            __m128 rows[9] = {N0x, N0y, N0z, Tx, Ty, Tz, Bx, By, Bz};
            for (int k = 0; k < 9; ++k) _mm_storeu_ps(R[k], rows[k]);
            for (size_t l = 0; l < count; ++l) {
                if (!(redo >> l & 1u)) continue;
                float N[3] = {R[0][l], R[1][l], R[2][l]}, T[3] = {R[3][l], R[4][l], R[5][l]},
                      B[3] = {R[6][l], R[7][l], R[8][l]};
                sfk_finish_frame(N, T, B, bitangent_sign, n4[l], t4[l]);
            }
        }
        for (size_t l = 0; l < count; ++l) {
            if (normals) memcpy(normals + 3 * (v + l), n4[l], 12);
            if (tangents) memcpy(tangents + 4 * (v + l), t4[l], 16);
        }
    }
}

void sfi_rebuild_gather_sse2(const sf_topology* topo, const sfi_weld* weld, const float* records, int weighting,
                             size_t v0, size_t v1, float* normals, float* tangents)
{
    gather_lists L = {topo->adj_offsets, topo->adj_corners, weld ? weld->group : NULL,
                      weld ? weld->corner_offsets : NULL, weld ? weld->corners : NULL};
    gather(&L, records, weighting, topo->bitangent_sign, v0, v1, normals, tangents);
}

void sfi_rebuild_chunk_gather_sse2(const sf_topology* topo, int weld, const float* records, int weighting, size_t v0,
                                   size_t v1, float* normals, float* tangents)
{
    const sfi_fused_plan* p = &topo->fused;
    gather_lists L = {topo->adj_offsets, p->own_corners, NULL, weld >= 0 ? p->weld_offsets[weld] : NULL,
                      weld >= 0 ? p->weld_corners[weld] : NULL};
    gather(&L, records, weighting, topo->bitangent_sign, v0, v1, normals, tangents);
}

#else
void sfi_rebuild_faces_sse2(const sf_topology* topo, const float* positions, const float* det, int weighting,
                            float* records, size_t f0, size_t f1)
{
    (void)topo, (void)positions, (void)det, (void)weighting, (void)records, (void)f0, (void)f1; /* never called */
}
void sfi_rebuild_gather_sse2(const sf_topology* topo, const sfi_weld* weld, const float* records, int weighting,
                             size_t v0, size_t v1, float* normals, float* tangents)
{
    (void)topo, (void)weld, (void)records, (void)weighting, (void)v0, (void)v1, (void)normals, (void)tangents;
}
void sfi_rebuild_chunk_faces_sse2(const float* P, const float* det, const uint32_t* tris, size_t face_count,
                                  const float* uvs, const uint32_t* verts, int weighting, float* records)
{
    (void)P, (void)det, (void)tris, (void)face_count, (void)uvs, (void)verts, (void)weighting, (void)records;
}
void sfi_rebuild_chunk_gather_sse2(const sf_topology* topo, int weld, const float* records, int weighting, size_t v0,
                                   size_t v1, float* normals, float* tangents)
{
    (void)topo, (void)weld, (void)records, (void)weighting, (void)v0, (void)v1, (void)normals, (void)tangents;
}
#endif

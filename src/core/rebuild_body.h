/* The rebuilt frames' face pass and gather over 4 lanes, written once for SSE2 (rebuild_sse2.c) and WebAssembly
 * SIMD128 (rebuild_wasm.c), bit for bit rebuild.c's scalar loops:
 *   - the face pass takes 4 faces per step with the operations of sfk_recompute_face in their order (no fused
 *     multiply-add) and writes each face as one record of 12 floats (SFI_FACE_FLOATS: face_n, face_t, face_b,
 *     the 3 corner weights), so the gather reads one line per corner instead of four arrays; the angle
 *     weighting (atan2f per corner) and lanes whose normal's square passes FLT_MAX take the scalar kernel;
 *   - the gather adds a record's 12 floats as 3 vectors, each lane one component's scalar sum in the same
 *     corner order, then finishes 4 vertices at once (sfk_finish_frame's operations; a lane whose square
 *     passes FLT_MAX, or whose tangent sums overflow, is redone by the scalar kernels).
 * The includer defines the vector type R4 and static inline r4_load / r4_store (4 floats, unaligned), r4_make
 * (4 floats, lane 0 first), r4_set1, r4_add, r4_sub, r4_mul, r4_div, r4_sqrt (IEEE single precision, correctly
 * rounded), r4_and, r4_andnot (~a & b), r4_or, r4_xor, r4_lt, r4_gt, r4_ge, r4_ne (compares giving all-ones
 * lanes; ne true on NaN), r4_mask (one bit per lane, lane 0 lowest) and r4_transpose (4 rows to 4 columns, in
 * place). */
#include "sf_internal.h"
#include "sf_kernels.h"

#include <float.h>
#include <string.h>

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
static inline R4 load_point(const float* P, uint32_t i, size_t n)
{
    const float* p = P + 3 * (size_t)i;
    return (size_t)i + 1 < n ? r4_load(p) : r4_make(p[0], p[1], p[2], 0.0f);
}

static inline R4 dot3(R4 ax, R4 ay, R4 az, R4 bx, R4 by, R4 bz)
{
    return r4_add(r4_add(r4_mul(ax, bx), r4_mul(ay, by)), r4_mul(az, bz));
}

/* 4 faces from their corners' coordinates x y z, determinants d and UVs u v (uv 0: none) into the 4 records
 * at o; returns the lanes to redo in scalar (a normal's square past FLT_MAX, uniform weighting). */
static inline unsigned face_core(const R4 x[3], const R4 y[3], const R4 z[3], const R4 d[3],
                                 const R4 u[3], const R4 v[3], int uv, int weighting, float* o)
{
    R4 e1x = r4_sub(x[1], x[0]), e1y = r4_sub(y[1], y[0]), e1z = r4_sub(z[1], z[0]);
    R4 e2x = r4_sub(x[2], x[0]), e2y = r4_sub(y[2], y[0]), e2z = r4_sub(z[2], z[0]);
    R4 nx = r4_sub(r4_mul(e1y, e2z), r4_mul(e1z, e2y));
    R4 ny = r4_sub(r4_mul(e1z, e2x), r4_mul(e1x, e2z));
    R4 nz = r4_sub(r4_mul(e1x, e2y), r4_mul(e1y, e2x));
    R4 zero = r4_set1(0.0f), sign = r4_set1(-0.0f);
    R4 tx = zero, ty = zero, tz = zero, bx = zero, by = zero, bz = zero;
    if (uv) {
        R4 du1 = r4_sub(u[1], u[0]), dv1 = r4_sub(v[1], v[0]);
        R4 du2 = r4_sub(u[2], u[0]), dv2 = r4_sub(v[2], v[0]);
        R4 uvdet = r4_sub(r4_mul(du1, dv2), r4_mul(du2, dv1));
        R4 usable = r4_gt(r4_andnot(sign, uvdet), r4_set1(SF_UV_DET_EPS));
        if (r4_mask(usable)) {
            R4 inv = r4_div(r4_set1(1.0f), uvdet);
#define SF_TB(e1, e2, t, b)                                                                                  \
    t = r4_and(usable, r4_mul(r4_sub(r4_mul(e1, dv2), r4_mul(e2, dv1)), inv));           \
    b = r4_and(usable, r4_mul(r4_sub(r4_mul(e2, du1), r4_mul(e1, du2)), inv));
            SF_TB(e1x, e2x, tx, bx)
            SF_TB(e1y, e2y, ty, by)
            SF_TB(e1z, e2z, tz, bz)
#undef SF_TB
        }
    }
    /* two or three mirrored corners: the normal turned (a sign flip, as the scalar negation) */
    R4 m0 = r4_lt(d[0], zero), m1 = r4_lt(d[1], zero), m2 = r4_lt(d[2], zero);
    R4 two = r4_or(r4_or(r4_and(m0, m1), r4_and(m0, m2)), r4_and(m1, m2));
    R4 flip = r4_and(two, sign);
    nx = r4_xor(nx, flip), ny = r4_xor(ny, flip), nz = r4_xor(nz, flip);
    R4 len2 = dot3(nx, ny, nz, nx, ny, nz);
    R4 ok = r4_ge(len2, r4_set1(SF_SAFE_UNIT_EPS2));
    R4 w;
    unsigned big = 0;
    if (weighting == SFK_WEIGHTING_AREA) {
        w = r4_and(ok, r4_sqrt(len2));
    } else { /* uniform: the unit normal (sfk_safe_unit; the counted faces' len2 >= its threshold) */
        big = (unsigned)r4_mask(r4_gt(len2, r4_set1(FLT_MAX)));
        R4 inv = r4_div(r4_set1(1.0f), r4_sqrt(len2));
        nx = r4_or(r4_and(ok, r4_mul(nx, inv)), r4_andnot(ok, nx));
        ny = r4_or(r4_and(ok, r4_mul(ny, inv)), r4_andnot(ok, ny));
        nz = r4_or(r4_and(ok, r4_mul(nz, inv)), r4_andnot(ok, nz));
        w = r4_and(ok, r4_set1(1.0f));
    }
    /* rows to records: lanes' (nx ny nz tx), (ty tz bx by), (bz w w w) */
    R4 r0 = nx, r1 = ny, r2 = nz, r3 = tx;
    r4_transpose(&r0, &r1, &r2, &r3);
    R4 s0 = ty, s1 = tz, s2 = bx, s3 = by;
    r4_transpose(&s0, &s1, &s2, &s3);
    R4 q0 = bz, q1 = w, q2 = w, q3 = w;
    r4_transpose(&q0, &q1, &q2, &q3);
    r4_store(o, r0), r4_store(o + 4, s0), r4_store(o + 8, q0);
    r4_store(o + 12, r1), r4_store(o + 16, s1), r4_store(o + 20, q1);
    r4_store(o + 24, r2), r4_store(o + 28, s2), r4_store(o + 32, q2);
    r4_store(o + 36, r3), r4_store(o + 40, s3), r4_store(o + 44, q3);
    return big;
}

/* Faces f .. f+3 (all valid). */
static void face_step(const sf_topology* topo, const float* P, const float* det, int weighting, size_t f, float* rec)
{
    size_t n = topo->vertex_count;
    const uint32_t* I = topo->indices + 3 * f;
    R4 x[3], y[3], z[3], d[3], u[3], v[3];
    for (int c = 0; c < 3; ++c) {
        R4 a = load_point(P, I[c], n), b = load_point(P, I[3 + c], n), e = load_point(P, I[6 + c], n),
               g = load_point(P, I[9 + c], n);
        r4_transpose(&a, &b, &e, &g);
        x[c] = a, y[c] = b, z[c] = e;
        d[c] = r4_make(det[I[c]], det[I[3 + c]], det[I[6 + c]], det[I[9 + c]]);
    }
    const float* U = topo->uvs;
    for (int c = 0; U && c < 3; ++c) {
        u[c] = r4_make(U[2 * I[c]], U[2 * I[3 + c]], U[2 * I[6 + c]], U[2 * I[9 + c]]);
        v[c] = r4_make(U[2 * I[c] + 1], U[2 * I[3 + c] + 1], U[2 * I[6 + c] + 1], U[2 * I[9 + c] + 1]);
    }
    unsigned big = face_core(x, y, z, d, u, v, U != NULL, weighting, rec + SFI_FACE_FLOATS * f);
    for (int l = 0; l < 4; ++l)
        if (big >> l & 1u) face_scalar(topo, P, det, weighting, f + (size_t)l, rec + SFI_FACE_FLOATS * (f + (size_t)l));
}

void sfi_rebuild_faces_4(const sf_topology* topo, const float* positions, const float* det, int weighting,
                            float* records, size_t f0, size_t f1)
{
    size_t f = f0;
    if (weighting != SFK_WEIGHTING_ANGLE)
        for (; f + 4 <= f1; f += 4) face_step(topo, positions, det, weighting, f, records);
    for (; f < f1; ++f) face_scalar(topo, positions, det, weighting, f, records + SFI_FACE_FLOATS * f);
}

/* One face of a chunk (sfi_rebuild_chunk_faces_4) by the scalar kernel. */
static void chunk_face_scalar(const float* P, const float* det, const uint32_t* tri, const float* uvs,
                              const uint32_t* verts, int weighting, float* rec)
{
    const float* uv[3] = {NULL, NULL, NULL};
    if (uvs)
        for (int c = 0; c < 3; ++c) uv[c] = uvs + 2 * (size_t)verts[tri[c]];
    sfk_recompute_face(P + 3 * (size_t)tri[0], P + 3 * (size_t)tri[1], P + 3 * (size_t)tri[2], uv[0], uv[1], uv[2],
                       det[tri[0]], det[tri[1]], det[tri[2]], weighting, rec, rec + 3, rec + 6, rec + 9);
}

void sfi_rebuild_chunk_faces_4(const float* P, const float* det, const uint32_t* tris, size_t face_count,
                                  const float* uvs, const uint32_t* verts, int weighting, float* records)
{
    size_t f = 0;
    if (weighting != SFK_WEIGHTING_ANGLE)
        for (; f + 4 <= face_count; f += 4) {
            const uint32_t* I = tris + 3 * f;
            R4 x[3], y[3], z[3], d[3], u[3], v[3];
            for (int c = 0; c < 3; ++c) { /* P has a float to spare after its last vertex */
                R4 a = r4_load(P + 3 * (size_t)I[c]), b = r4_load(P + 3 * (size_t)I[3 + c]),
                       e = r4_load(P + 3 * (size_t)I[6 + c]), g = r4_load(P + 3 * (size_t)I[9 + c]);
                r4_transpose(&a, &b, &e, &g);
                x[c] = a, y[c] = b, z[c] = e;
                d[c] = r4_make(det[I[c]], det[I[3 + c]], det[I[6 + c]], det[I[9 + c]]);
            }
            for (int c = 0; uvs && c < 3; ++c) {
                const float *a = uvs + 2 * (size_t)verts[I[c]], *b = uvs + 2 * (size_t)verts[I[3 + c]],
                            *e = uvs + 2 * (size_t)verts[I[6 + c]], *g = uvs + 2 * (size_t)verts[I[9 + c]];
                u[c] = r4_make(a[0], b[0], e[0], g[0]);
                v[c] = r4_make(a[1], b[1], e[1], g[1]);
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
static inline void safe_unit4(R4* x, R4* y, R4* z, R4* big)
{
    R4 len2 = dot3(*x, *y, *z, *x, *y, *z);
    R4 ok = r4_ge(len2, r4_set1(SF_SAFE_UNIT_EPS2));
    *big = r4_or(*big, r4_gt(len2, r4_set1(FLT_MAX)));
    R4 inv = r4_div(r4_set1(1.0f), r4_sqrt(len2));
    *x = r4_and(ok, r4_mul(*x, inv));
    *y = r4_and(ok, r4_mul(*y, inv));
    *z = r4_and(ok, r4_mul(*z, inv));
}

/* Lanes where x * 0 is not 0: infinite or NaN. */
static inline int not_finite_mask(R4 x)
{
    return r4_mask(r4_ne(r4_mul(x, r4_set1(0.0f)), r4_set1(0.0f)));
}

/* One corner's record added: lanes 0-2 of a0 the normal times m (1 under the area weighting, else w), the
 * rest the tangent and bitangent times w. */
#define SF_CORNER(c, a0, a1, a2)                                                   \
    do {                                                                                     \
        const float* r_ = records + SFI_FACE_FLOATS * (size_t)((c) / 3u);                    \
        R4 w_ = r4_set1(r_[9 + (c) % 3u]);                                           \
        a0 = r4_add(a0, r4_mul(r4_load(r_), r4_or(r4_andnot(keep_one, w_), one_kept))); \
        a1 = r4_add(a1, r4_mul(r4_load(r_ + 4), w_));                           \
        a2 = r4_add(a2, r4_mul(r4_load(r_ + 8), w_));                           \
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
    R4 keep_one = weighting == SFK_WEIGHTING_AREA ? r4_lt(r4_make(0.0f, 0.0f, 0.0f, 1.0f), r4_set1(0.5f))
                                                  : r4_set1(0.0f);
    R4 one = r4_set1(1.0f), zero = r4_set1(0.0f);
    R4 one_kept = r4_and(keep_one, one);
    for (size_t v = v0; v < v1; v += 4) {
        size_t count = v1 - v < 4 ? v1 - v : 4;
        R4 AN[4], A0[4], A1[4], A2[4];
        for (size_t l = 0; l < 4; ++l) {
            R4 a0 = zero, a1 = zero, a2 = zero, an = zero;
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
                        R4 wc = r4_set1(r[9 + c % 3u]);
                        an = r4_add(an, r4_mul(r4_load(r), r4_or(r4_andnot(keep_one, wc), one_kept)));
                    }
                    for (uint32_t a = b; a < e; ++a) SF_CORNER(adj[a], a0, a1, a2) /* lanes 0-2 unused */;
                }
                if ((not_finite_mask(a0) & 8) | not_finite_mask(a1) | (not_finite_mask(a2) & 1)) {
                    float f0[4], f1[4], f2[4], T[3], B[3];
                    r4_store(f0, a0), r4_store(f1, a1), r4_store(f2, a2);
                    tangent_sums_wide(records, adj, b, e, T, B);
                    f0[3] = T[0], f1[0] = T[1], f1[1] = T[2], f1[2] = B[0], f1[3] = B[1], f2[0] = B[2];
                    a0 = r4_load(f0), a1 = r4_load(f1), a2 = r4_load(f2);
                }
            }
            AN[l] = an, A0[l] = a0, A1[l] = a1, A2[l] = a2;
        }
        /* to rows: N x y z; T = (a0.3, a1.0, a1.1), B = (a1.2, a1.3, a2.0) */
        r4_transpose(&AN[0], &AN[1], &AN[2], &AN[3]);
        r4_transpose(&A0[0], &A0[1], &A0[2], &A0[3]);
        r4_transpose(&A1[0], &A1[1], &A1[2], &A1[3]);
        r4_transpose(&A2[0], &A2[1], &A2[2], &A2[3]);
        R4 Nx = AN[0], Ny = AN[1], Nz = AN[2], Tx = A0[3], Ty = A1[0], Tz = A1[1], Bx = A1[2], By = A1[3],
               Bz = A2[0];
        /* sfk_finish_frame on 4 lanes */
        R4 N0x = Nx, N0y = Ny, N0z = Nz, big = zero;
        safe_unit4(&Nx, &Ny, &Nz, &big);
        R4 d = dot3(Nx, Ny, Nz, Tx, Ty, Tz);
        R4 ox = r4_sub(Tx, r4_mul(Nx, d)), oy = r4_sub(Ty, r4_mul(Ny, d)),
               oz = r4_sub(Tz, r4_mul(Nz, d));
        safe_unit4(&ox, &oy, &oz, &big);
        R4 cx = r4_sub(r4_mul(Ny, oz), r4_mul(Nz, oy));
        R4 cy = r4_sub(r4_mul(Nz, ox), r4_mul(Nx, oz));
        R4 cz = r4_sub(r4_mul(Nx, oy), r4_mul(Ny, ox));
        R4 side = r4_mul(dot3(cx, cy, cz, Bx, By, Bz), r4_set1(bitangent_sign));
        R4 w = r4_or(r4_and(r4_lt(side, zero), r4_set1(-0.0f)), one);
        unsigned redo = (unsigned)r4_mask(big);
        float n4[4][4], t4[4][4];
        R4 n0 = Nx, n1 = Ny, n2 = Nz, n3 = zero;
        r4_transpose(&n0, &n1, &n2, &n3);
        r4_transpose(&ox, &oy, &oz, &w);
        r4_store(n4[0], n0), r4_store(n4[1], n1), r4_store(n4[2], n2), r4_store(n4[3], n3);
        r4_store(t4[0], ox), r4_store(t4[1], oy), r4_store(t4[2], oz), r4_store(t4[3], w);
        if (redo) { /* those lanes by the scalar kernel from their sums */
            float R[9][4];
            R4 rows[9] = {N0x, N0y, N0z, Tx, Ty, Tz, Bx, By, Bz};
            for (int k = 0; k < 9; ++k) r4_store(R[k], rows[k]);
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

void sfi_rebuild_gather_4(const sf_topology* topo, const sfi_weld* weld, const float* records, int weighting,
                             size_t v0, size_t v1, float* normals, float* tangents)
{
    gather_lists L = {topo->adj_offsets, topo->adj_corners, weld ? weld->group : NULL,
                      weld ? weld->corner_offsets : NULL, weld ? weld->corners : NULL};
    gather(&L, records, weighting, topo->bitangent_sign, v0, v1, normals, tangents);
}

void sfi_rebuild_chunk_gather_4(const sf_topology* topo, int weld, const float* records, int weighting, size_t v0,
                                   size_t v1, float* normals, float* tangents)
{
    const sfi_fused_plan* p = &topo->fused;
    gather_lists L = {topo->adj_offsets, p->own_corners, NULL, weld >= 0 ? p->weld_offsets[weld] : NULL,
                      weld >= 0 ? p->weld_corners[weld] : NULL};
    gather(&L, records, weighting, topo->bitangent_sign, v0, v1, normals, tangents);
}


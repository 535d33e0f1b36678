/* The fused per-vertex pass over SK_W vertices per step, written once for every instruction set: skin_sse2.c and
 * skin_avx2.c define the vector type and operations below, then include this file. Every value is computed with
 * the operations of the scalar reference in its order (sfk_deform_vertex, sfk_vertex_frame, frames.c's report),
 * without fused multiply-add, so each lane is bit for bit the scalar result:
 *   - the blend starts from +0 and adds w * bone per slot; a zero weight adds +-0 to a sum that is never -0,
 *     which is the scalar loop's skip of that slot; a vertex without weight blends the identity (lanes.c);
 *   - sqrt and division are correctly rounded in SIMD as in scalar;
 *   - where a direction's squared length passes FLT_MAX (sfk_safe_unit's rescaled branch) the lane is redone
 *     by the scalar kernel.
 * The includer defines: SK_W (lanes per step, dividing SFI_LANES), SK_V (vector type), SK_ENTRY (the entry
 * point's name) and static inline functions sk_load/sk_store (SK_W floats, unaligned), sk_set1, sk_add, sk_sub,
 * sk_mul, sk_div, sk_sqrt, sk_and, sk_andnot (~a & b), sk_or, sk_lt, sk_ge, sk_gt, sk_eq (ordered compares giving
 * all-ones lanes), sk_mask (one bit per lane), sk_from_bits (its inverse), sk_blend (the blended matrices of one step as 12 rows) and
 * sk_store3 / sk_store4 (SK_W vertices of 3 / 4 rows to interleaved memory); optionally sk_store12 (12 rows to
 * SK_W 12-float records) with SK_HAS_STORE12 defined. */
#include "sf_kernels.h"

#include <float.h>
#include <stdint.h>
#include <string.h>

#define SK_STEPS (SFI_LANES / SK_W)

static inline SK_V sk_select(SK_V mask, SK_V a, SK_V b) { return sk_or(sk_and(mask, a), sk_andnot(mask, b)); }

/* (a0 b0 + a1 b1) + a2 b2 */
static inline SK_V sk_dot3(SK_V a0, SK_V a1, SK_V a2, SK_V b0, SK_V b1, SK_V b2)
{
    return sk_add(sk_add(sk_mul(a0, b0), sk_mul(a1, b1)), sk_mul(a2, b2));
}

/* sfk_safe_unit in place; *big gets the lanes whose squared length passes FLT_MAX (to redo in scalar). Returns the
 * lanes left nonzero: a kept direction has a component of at least 1/sqrt(3) in size, so its squared length is not
 * 0 (the report's degenerate test), and a zeroed one is 0. */
static inline SK_V sk_safe_unit(SK_V* x, SK_V* y, SK_V* z, SK_V* big)
{
    SK_V len2 = sk_dot3(*x, *y, *z, *x, *y, *z);
    SK_V ok = sk_ge(len2, sk_set1(SF_SAFE_UNIT_EPS2));
    *big = sk_or(*big, sk_gt(len2, sk_set1(FLT_MAX)));
    SK_V inv = sk_div(sk_set1(1.0f), sk_sqrt(len2));
    *x = sk_and(ok, sk_mul(*x, inv));
    *y = sk_and(ok, sk_mul(*y, inv));
    *z = sk_and(ok, sk_mul(*z, inv));
    return ok;
}

/* Lanes where x * 0 is not 0: infinite or NaN. */
static inline SK_V sk_not_finite(SK_V x) { return sk_andnot(sk_eq(sk_mul(x, sk_set1(0.0f)), sk_set1(0.0f)), sk_set1(-0.0f)); }

/* Bits set in a lane mask (at most 16 bits), branch-free. */
static inline int sk_popcount(unsigned m)
{
    m = m - ((m >> 1) & 0x5555u);
    m = (m & 0x3333u) + ((m >> 2) & 0x3333u);
    m = (m + (m >> 4)) & 0x0f0fu;
    return (int)((m + (m >> 8)) & 0x1fu);
}

/* Morph of one step's lanes in scalar (sfk_deform_vertex's loop): rows p, n, t are updated in place. */
static inline void sk_morph(const sfi_skin_job* job, size_t v0, size_t valid, SK_V* p, SK_V* n, SK_V* t)
{
    float P[3][SK_W], N[3][SK_W], T[3][SK_W];
    for (int k = 0; k < 3; ++k) {
        sk_store(P[k], p[k]);
        sk_store(N[k], n[k]);
        sk_store(T[k], t[k]);
    }
    for (size_t l = 0; l < valid; ++l) {
        size_t v = v0 + l;
        for (uint32_t e = job->morph_offsets[v]; e < job->morph_offsets[v + 1]; ++e) {
            float a = job->alpha[job->morph_target[e]];
            if (a == 0.0f) continue;
            for (int k = 0; k < 3; ++k) P[k][l] += job->morph_dp[3 * (size_t)e + k] * a;
            if (job->with_dirs)
                for (int k = 0; k < 3; ++k) {
                    N[k][l] += job->morph_dn[3 * (size_t)e + k] * a;
                    T[k][l] += job->morph_dt[3 * (size_t)e + k] * a;
                }
        }
    }
    for (int k = 0; k < 3; ++k) {
        p[k] = sk_load(P[k]);
        n[k] = sk_load(N[k]);
        t[k] = sk_load(T[k]);
    }
}

/* Morph of one step from the block's blocked deltas (lanes.c), a row per component: the scalar loop's p + d * a
 * per entry in the same target order; lanes without a delta for a target are left as they are (a select, not
 * an added zero, which would turn -0 into +0). */
static inline void sk_morph_blocked(const sfi_skin_job* job, size_t block, int sub, SK_V* p, SK_V* n, SK_V* t)
{
    const sfi_lanes* L = job->lanes;
    const unsigned all = (1u << SK_W) - 1u;
    for (uint32_t e = L->morph_offsets[block]; e < L->morph_offsets[block + 1]; ++e) {
        float a = job->alpha[L->morph_target[e]];
        unsigned bits = (L->morph_lanes[e] >> (sub * SK_W)) & all;
        if (a == 0.0f || !bits) continue;
        const float* r = L->morph_rows + (size_t)e * SFI_MORPH_ROWS * SFI_LANES + (size_t)sub * SK_W;
        SK_V av = sk_set1(a), keep = sk_from_bits(bits);
        int rows = job->with_dirs ? 3 : 1;
        SK_V* dst[3] = {p, n, t};
        for (int g = 0; g < rows; ++g)
            for (int k = 0; k < 3; ++k) {
                SK_V v = sk_add(dst[g][k], sk_mul(sk_load(r + (3 * g + k) * SFI_LANES), av));
                dst[g][k] = bits == all ? v : sk_select(keep, v, dst[g][k]);
            }
    }
}

/* The morph of one step (positions, and the directions with job->with_dirs): the block's blocked deltas where it
 * has them, else the CSR (valid: the step's real lanes). */
SK_INLINE void sk_morph_step(const sfi_skin_job* job, size_t block, int sub, size_t v0, size_t valid, SK_V* p,
                                 SK_V* n, SK_V* t)
{
    if (!job->alpha) return;
    const uint32_t* mo = job->lanes->morph_offsets;
    if (mo && mo[block + 1] > mo[block]) sk_morph_blocked(job, block, sub, p, n, t);
    else if (job->morph_offsets[v0 + valid] > job->morph_offsets[v0]) sk_morph(job, v0, valid, p, n, t);
}

/* sfk_mat_det of the rows m: m0 . (m3 x m6) */
SK_INLINE SK_V sk_det(const SK_V* m)
{
    return sk_dot3(m[0], m[1], m[2], sk_sub(sk_mul(m[4], m[8]), sk_mul(m[5], m[7])),
                   sk_sub(sk_mul(m[5], m[6]), sk_mul(m[3], m[8])), sk_sub(sk_mul(m[3], m[7]), sk_mul(m[4], m[6])));
}

/* sfk_mat_point of the rows m: (m0 x + m3 y) + m6 z, then + m9 */
SK_INLINE void sk_point(const SK_V* m, const SK_V* p, SK_V* out)
{
    for (int k = 0; k < 3; ++k) out[k] = sk_add(sk_dot3(m[k], m[3 + k], m[6 + k], p[0], p[1], p[2]), m[9 + k]);
}

/* cof(A) v = [a1 x a2, a2 x a0, a0 x a1] v (sfk_mat_cofactor_dir) of the rows m (only the 9 linear ones read). */
static inline void sk_cofactor_dir(const SK_V* m, const SK_V* v, SK_V* out)
{
    SK_V r0[3] = {sk_sub(sk_mul(m[4], m[8]), sk_mul(m[5], m[7])), sk_sub(sk_mul(m[5], m[6]), sk_mul(m[3], m[8])),
                  sk_sub(sk_mul(m[3], m[7]), sk_mul(m[4], m[6]))};
    SK_V r1[3] = {sk_sub(sk_mul(m[7], m[2]), sk_mul(m[8], m[1])), sk_sub(sk_mul(m[8], m[0]), sk_mul(m[6], m[2])),
                  sk_sub(sk_mul(m[6], m[1]), sk_mul(m[7], m[0]))};
    SK_V r2[3] = {sk_sub(sk_mul(m[1], m[5]), sk_mul(m[2], m[4])), sk_sub(sk_mul(m[2], m[3]), sk_mul(m[0], m[5])),
                  sk_sub(sk_mul(m[0], m[4]), sk_mul(m[1], m[3]))};
    for (int k = 0; k < 3; ++k) out[k] = sk_dot3(r0[k], r1[k], r2[k], v[0], v[1], v[2]);
}

/* The lanes in `big` redone by the scalar kernel from the step's blended matrices and morphed directions
 * (bone-normal-matrices: from the pose's bones and vertex v0 + lane's influences). */
static inline void sk_redo(const sfi_skin_job* job, size_t v0, int method, unsigned big, const SK_V* m, SK_V det,
                           const SK_V* mn, const SK_V* mt, SK_V rw, SK_V* n, SK_V* t)
{
    float M[12][SK_W], D[SK_W], MN[3][SK_W], MT[3][SK_W], RW[SK_W], NO[3][SK_W], TO[4][SK_W];
    for (int k = 0; k < 12; ++k) sk_store(M[k], m[k]);
    for (int k = 0; k < 3; ++k) {
        sk_store(MN[k], mn[k]);
        sk_store(MT[k], mt[k]);
        sk_store(NO[k], n[k]);
        sk_store(TO[k], t[k]);
    }
    sk_store(D, det);
    sk_store(RW, rw);
    sk_store(TO[3], t[3]);
    for (int l = 0; l < SK_W; ++l) {
        if (!(big >> l & 1u)) continue;
        float ml[12], mnl[3] = {MN[0][l], MN[1][l], MN[2][l]}, mtl[3] = {MT[0][l], MT[1][l], MT[2][l]}, no[3], to[4];
        for (int k = 0; k < 12; ++k) ml[k] = M[k][l];
        if (method == SFK_METHOD_BONE_NORMAL_MATRICES) {
            size_t K = job->influence_count, v = v0 + (size_t)l;
            sfk_bone_normal_frame(job->bones, K ? job->joints + K * v : NULL, K ? job->weights + K * v : NULL,
                                  (uint32_t)K, ml, D[l], mnl, mtl, RW[l], no, to);
        } else {
            sfk_vertex_frame(method, ml, D[l], mnl, mtl, RW[l], no, to);
        }
        for (int k = 0; k < 3; ++k) NO[k][l] = no[k];
        for (int k = 0; k < 4; ++k) TO[k][l] = to[k];
    }
    for (int k = 0; k < 3; ++k) n[k] = sk_load(NO[k]);
    for (int k = 0; k < 4; ++k) t[k] = sk_load(TO[k]);
}

/* Rows x y z of a step's vertices into dst (3 floats each): a whole step directly, a partial one's valid vertices
 * through a scratch copy. sk_put4 and sk_put1 the same for 4 rows and 1. */
SK_INLINE void sk_put3(float* dst, size_t valid, SK_V x, SK_V y, SK_V z)
{
    if (valid == SK_W) {
        sk_store3(dst, x, y, z);
    } else {
        float tmp[4 * SK_W];
        sk_store3(tmp, x, y, z);
        memcpy(dst, tmp, 3 * valid * sizeof(float));
    }
}

SK_INLINE void sk_put4(float* dst, size_t valid, SK_V x, SK_V y, SK_V z, SK_V w)
{
    if (valid == SK_W) {
        sk_store4(dst, x, y, z, w);
    } else {
        float tmp[4 * SK_W];
        sk_store4(tmp, x, y, z, w);
        memcpy(dst, tmp, 4 * valid * sizeof(float));
    }
}

SK_INLINE void sk_put1(float* dst, size_t valid, SK_V x)
{
    if (valid == SK_W) {
        sk_store(dst, x);
    } else {
        float tmp[4 * SK_W];
        sk_store(tmp, x);
        memcpy(dst, tmp, valid * sizeof(float));
    }
}

/* The first vertex from v0 among the lanes badm (values that are not finite) into c->first_bad. */
SK_INLINE void sk_note_bad(sfi_skin_counts* c, size_t v0, unsigned badm)
{
    if (!badm) return;
    size_t first = v0;
    while (!(badm & 1u)) badm >>= 1, ++first;
    if (first < c->first_bad) c->first_bad = first;
}

/* SFI_SKIN_DEFORM: one step's blended matrices, final positions, morphed rest positions and directions and
 * determinants into the deform's arrays (job->deform). */
SK_INLINE void sk_step_deform(const sfi_skin_job* job, size_t v0, size_t valid, const SK_V* m, const SK_V* fp,
                              const SK_V* p, const SK_V* mn, const SK_V* mt)
{
    sf_workspace* ws = job->deform;
    SK_V d = sk_det(m);
#ifdef SK_HAS_STORE12
    if (valid == SK_W) {
        sk_store12(ws->blend + 12 * v0, m);
    } else
#endif
    {
        float M[12][SK_W];
        for (int k = 0; k < 12; ++k) sk_store(M[k], m[k]);
        for (size_t l = 0; l < valid; ++l)
            for (int k = 0; k < 12; ++k) ws->blend[12 * (v0 + l) + (size_t)k] = M[k][l];
    }
    float* dst[4] = {ws->final_pos, ws->morph_pos, ws->morph_nrm, ws->morph_tan};
    const SK_V* src[4] = {fp, p, mn, mt};
    for (int a = 0; a < 4; ++a) sk_put3(dst[a] + 3 * v0, valid, src[a][0], src[a][1], src[a][2]);
    sk_put1(ws->det + v0, valid, d);
}

/* bone-normal-matrices' normals of one step: sum_i w_i cof(A_i) n from +0: a zero weight adds +-0, the scalar's
 * skip of that slot; a weightless vertex (the identity in slot 0, lanes.c) takes n itself, as the scalar does. */
SK_INLINE void sk_bone_normals(const sfi_skin_job* job, size_t block, int sub, uint32_t K, const SK_V* mn, SK_V* n)
{
    const uint16_t* J = job->lanes->joints + block * K * SFI_LANES + (size_t)sub * SK_W;
    const float* W = job->lanes->weights + block * K * SFI_LANES + (size_t)sub * SK_W;
    const uint32_t identity = job->identity;
    for (int k = 0; k < 3; ++k) n[k] = sk_set1(0.0f);
    for (uint32_t i = 0; i < K; ++i) {
        const float* rec[SK_W];
        for (int l = 0; l < SK_W; ++l) rec[l] = job->palette + 16 * (size_t)J[i * SFI_LANES + l];
        SK_V a[12], cn[3];
        sk_gather(rec, a);
        sk_cofactor_dir(a, mn, cn);
        SK_V w = sk_load(W + i * SFI_LANES);
        for (int k = 0; k < 3; ++k) n[k] = sk_add(n[k], sk_mul(cn[k], w));
    }
    float rest[SK_W];
    for (int l = 0; l < SK_W; ++l) rest[l] = J[l] == identity ? 1.0f : 0.0f;
    SK_V weightless = sk_eq(sk_load(rest), sk_set1(1.0f));
    for (int k = 0; k < 3; ++k) n[k] = sk_select(weightless, mn[k], n[k]);
}

/* inverse-transpose's normals of one step: cof(m) mn / det where |det| >= eps, else zero (r0: cof(m)'s first
 * column, from the determinant); the singular lanes among live counted in c. */
SK_INLINE void sk_inverse_transpose_normals(const SK_V* m, SK_V det, const SK_V* r0, const SK_V* mn, unsigned live,
                                            SK_V* n, sfi_skin_counts* c)
{
    SK_V r1[3] = {sk_sub(sk_mul(m[7], m[2]), sk_mul(m[8], m[1])), sk_sub(sk_mul(m[8], m[0]), sk_mul(m[6], m[2])),
                  sk_sub(sk_mul(m[6], m[1]), sk_mul(m[7], m[0]))};
    SK_V r2[3] = {sk_sub(sk_mul(m[1], m[5]), sk_mul(m[2], m[4])), sk_sub(sk_mul(m[2], m[3]), sk_mul(m[0], m[5])),
                  sk_sub(sk_mul(m[0], m[4]), sk_mul(m[1], m[3]))};
    SK_V abs_det = sk_andnot(sk_set1(-0.0f), det);
    SK_V usable = sk_ge(abs_det, sk_set1(SF_SINGULAR_DET_EPS)); /* !(|det| < eps) */
    SK_V inv = sk_div(sk_set1(1.0f), det);
    for (int k = 0; k < 3; ++k)
        n[k] = sk_and(usable, sk_mul(sk_dot3(r0[k], r1[k], r2[k], mn[0], mn[1], mn[2]), inv));
    /* singular (report): !(d >= eps || d <= -eps) */
    SK_V sing = sk_andnot(sk_or(sk_ge(det, sk_set1(SF_SINGULAR_DET_EPS)), sk_ge(sk_set1(-SF_SINGULAR_DET_EPS), det)),
                          sk_set1(-0.0f));
    c->singular += (size_t)sk_popcount((unsigned)sk_mask(sing) & live);
}

/* Normals and tangents of one step, after normalising; the report's counts in c. */
SK_INLINE void sk_step_frames(const sfi_skin_job* job, size_t block, int sub, uint32_t K, int method, size_t v0,
                              size_t valid, const SK_V* m, const SK_V* mn, const SK_V* mt, SK_V rw, SK_V* n, SK_V* t,
                              sfi_skin_counts* c)
{
    /* det = m0 . (m3 x m6) (sfk_mat_det); r0 = m3 x m6 is also the cofactor's first column */
    SK_V r0[3] = {sk_sub(sk_mul(m[4], m[8]), sk_mul(m[5], m[7])), sk_sub(sk_mul(m[5], m[6]), sk_mul(m[3], m[8])),
                  sk_sub(sk_mul(m[3], m[7]), sk_mul(m[4], m[6]))};
    SK_V det = sk_dot3(m[0], m[1], m[2], r0[0], r0[1], r0[2]);
    SK_V zero = sk_set1(0.0f);
    SK_V mirrored = sk_lt(det, zero);
    SK_V big = zero;
    int want_n = job->normals != NULL, want_t = job->tangents != NULL;
    unsigned live = (1u << valid) - 1u;
    if (method == SFK_METHOD_UNCHANGED) {
        for (int k = 0; k < 3; ++k) n[k] = mn[k], t[k] = mt[k];
        t[3] = rw;
    } else {
        for (int k = 0; k < 3; ++k) t[k] = sk_dot3(m[k], m[3 + k], m[6 + k], mt[0], mt[1], mt[2]);
        /* w flips where the blend mirrors: -rest_w there (sfk_mirror_handedness) */
        t[3] = sk_select(mirrored, sk_mul(rw, sk_set1(-1.0f)), rw);
        if (method == SFK_METHOD_SKINNED) {
            for (int k = 0; k < 3; ++k) n[k] = sk_dot3(m[k], m[3 + k], m[6 + k], mn[0], mn[1], mn[2]);
        } else if (method == SFK_METHOD_BONE_NORMAL_MATRICES) {
            sk_bone_normals(job, block, sub, K, mn, n);
        } else {
            sk_inverse_transpose_normals(m, det, r0, mn, live, n, c);
        }
    }
    SK_V n_ok = zero, t_ok = zero;
    if (want_n) n_ok = sk_safe_unit(&n[0], &n[1], &n[2], &big);
    if (want_t) t_ok = sk_safe_unit(&t[0], &t[1], &t[2], &big);
    unsigned bigm = (unsigned)sk_mask(big) & live;
    if (bigm) { /* redone lanes: their degenerate tests on the values themselves */
        sk_redo(job, v0, method, bigm, m, det, mn, mt, rw, n, t);
        n_ok = sk_andnot(sk_eq(sk_dot3(n[0], n[1], n[2], n[0], n[1], n[2]), zero), sk_set1(-0.0f));
        t_ok = sk_andnot(sk_eq(sk_dot3(t[0], t[1], t[2], t[0], t[1], t[2]), zero), sk_set1(-0.0f));
    }
    c->mirrored += (size_t)sk_popcount((unsigned)sk_mask(mirrored) & live);
    if (want_n) c->degenerate_normals += (size_t)sk_popcount(~(unsigned)sk_mask(n_ok) & live);
    if (want_t) {
        if (!job->has_uvs) {
            t[0] = t[1] = t[2] = zero;
        } else {
            c->degenerate_tangents += (size_t)sk_popcount(~(unsigned)sk_mask(t_ok) & live);
        }
    }
}

/* A per-vertex method's normals and tangents of one step from its blended matrices m, morphed directions mn mt and
 * rest tangent w rw, written with the report's counts; fp: the final positions written before (NULL: none), their
 * non-finite lanes in bad. */
SK_INLINE void sk_step_out(const sfi_skin_job* job, size_t block, int sub, uint32_t K, int method, size_t v0,
                           size_t valid, const SK_V* m, const SK_V* mn, const SK_V* mt, SK_V rw, const SK_V* fp,
                           SK_V bad, sfi_skin_counts* c)
{
    SK_V zero = sk_set1(0.0f);
    SK_V n[3], t[4];
    int want_n = job->normals != NULL, want_t = job->tangents != NULL;
    unsigned live = (1u << valid) - 1u;
    sk_step_frames(job, block, sub, K, method, v0, valid, m, mn, mt, rw, n, t, c);
    /* one finiteness test for the step: a sum of the outputs is finite when every one is (a sum that overflows
       sends the step to the exact test per lane) */
    SK_V sum = fp ? sk_add(sk_add(fp[0], fp[1]), fp[2]) : zero;
    if (want_n) {
        sum = sk_add(sum, sk_add(sk_add(n[0], n[1]), n[2]));
        sk_put3(job->normals + 3 * v0, valid, n[0], n[1], n[2]);
    }
    if (want_t) {
        sum = sk_add(sum, sk_add(sk_add(t[0], t[1]), sk_add(t[2], t[3])));
        sk_put4(job->tangents + 4 * v0, valid, t[0], t[1], t[2], t[3]);
    }
    if ((unsigned)sk_mask(sk_not_finite(sum)) & live) {
        for (int k = 0; fp && k < 3; ++k) bad = sk_or(bad, sk_not_finite(fp[k]));
        for (int k = 0; want_n && k < 3; ++k) bad = sk_or(bad, sk_not_finite(n[k]));
        for (int k = 0; want_t && k < 4; ++k) bad = sk_or(bad, sk_not_finite(t[k]));
        sk_note_bad(c, v0, (unsigned)sk_mask(bad) & live);
    }
}

/* One step: SK_W vertices from v0 (valid of them real; the rest are padding whose results are dropped). */
SK_INLINE void sk_step(const sfi_skin_job* job, size_t block, int sub, uint32_t K, int method,
                           sfi_skin_counts* c)
{
    size_t v0 = block * SFI_LANES + (size_t)sub * SK_W;
    size_t valid = job->vertex_count - v0 < SK_W ? job->vertex_count - v0 : SK_W;
    const float* R = job->lanes->rest + block * SFI_LANE_ROWS * SFI_LANES + (size_t)sub * SK_W;
    SK_V p[3], mn[3], mt[3];
    for (int k = 0; k < 3; ++k) {
        p[k] = sk_load(R + k * SFI_LANES);
        mn[k] = sk_load(R + (3 + k) * SFI_LANES);
        mt[k] = sk_load(R + (6 + k) * SFI_LANES);
    }
    sk_morph_step(job, block, sub, v0, valid, p, mn, mt);
    SK_V m[12];
    sk_blend(job, block, sub, K, m);
    SK_V fp[3];
    sk_point(m, p, fp);
    SK_V bad = sk_set1(0.0f);
    if (method == SFI_SKIN_DEFORM) {
        sk_step_deform(job, v0, valid, m, fp, p, mn, mt);
        return;
    }
    if (job->positions) {
        if (method == SFI_SKIN_POSITIONS_ONLY)
            for (int k = 0; k < 3; ++k) bad = sk_or(bad, sk_not_finite(fp[k]));
        sk_put3(job->positions + 3 * v0, valid, fp[0], fp[1], fp[2]);
    }
    if (method == SFI_SKIN_POSITIONS_ONLY) {
        if (job->det) sk_put1(job->det + v0, valid, sk_det(m));
        sk_note_bad(c, v0, (unsigned)sk_mask(bad) & ((1u << valid) - 1u));
        return;
    }
    sk_step_out(job, block, sub, K, method, v0, valid, m, mn, mt, sk_load(R + 9 * SFI_LANES),
                job->positions ? fp : NULL, bad, c);
}

/* A step's lanes read from an evaluation's shared deform (sfi_deform's arrays in ws, the same function's values as
 * a step's own deform): the blended matrices into m, the rows of two per-vertex arrays of 3 floats (src) into
 * rows, and the determinants into det where it is not NULL. The padding lanes of the last, partial step repeat its
 * first vertex. */
SK_INLINE void sk_deform_lanes(const sf_workspace* ws, size_t v0, size_t valid, const float* const src[2],
                               SK_V rows[2][3], SK_V* m, SK_V* det)
{
    const float* rec[SK_W];
    float R[2][3][SK_W], D[SK_W];
    for (int l = 0; l < SK_W; ++l) {
        size_t v = v0 + ((size_t)l < valid ? (size_t)l : 0);
        rec[l] = ws->blend + 12 * v;
        if (det) D[l] = ws->det[v];
        for (int a = 0; a < 2; ++a)
            for (int k = 0; k < 3; ++k) R[a][k][l] = src[a][3 * v + k];
    }
    sk_gather(rec, m);
    for (int a = 0; a < 2; ++a)
        for (int k = 0; k < 3; ++k) rows[a][k] = sk_load(R[a][k]);
    if (det) *det = sk_load(D);
}

/* One step of a per-vertex method from the deform in job->deformed (frames.c's scalar loop's inputs: the blended
 * matrices, the morphed directions) instead of its own. */
SK_INLINE void sk_step_deformed(const sfi_skin_job* job, size_t block, int sub, uint32_t K, int method,
                                sfi_skin_counts* c)
{
    const sf_workspace* ws = job->deformed;
    size_t v0 = block * SFI_LANES + (size_t)sub * SK_W;
    size_t valid = job->vertex_count - v0 < SK_W ? job->vertex_count - v0 : SK_W;
    const float* R = job->lanes->rest + block * SFI_LANE_ROWS * SFI_LANES + (size_t)sub * SK_W;
    const float* const src[2] = {ws->morph_nrm, ws->morph_tan};
    SK_V m[12], morphed[2][3];
    sk_deform_lanes(ws, v0, valid, src, morphed, m, NULL);
    sk_step_out(job, block, sub, K, method, v0, valid, m, morphed[0], morphed[1], sk_load(R + 9 * SFI_LANES), NULL,
                sk_set1(0.0f), c);
}

/* One step's function: sk_step (its own deform) or sk_step_deformed (job->deformed's). */
typedef void (*sk_step_fn)(const sfi_skin_job* job, size_t block, int sub, uint32_t K, int method,
                           sfi_skin_counts* c);

/* Blocks [b0, b1) with the step, the slot count and the method fixed (each call below passes constants, so the
 * inlined loop calls its step directly, specialised). */
SK_INLINE void sk_blocks(sk_step_fn step, const sfi_skin_job* job, size_t b0, size_t b1, uint32_t K, int method,
                         sfi_skin_counts* c)
{
    for (size_t b = b0; b < b1; ++b)
        for (int s = 0; s < SK_STEPS; ++s) {
            if (b * SFI_LANES + (size_t)s * SK_W >= job->vertex_count) break;
            step(job, b, s, K, method, c);
        }
}

#define SK_METHODS(K)                                                                              \
    switch (job->method) {                                                                         \
    case SFK_METHOD_UNCHANGED: sk_blocks(sk_step, job, b0, b1, K, SFK_METHOD_UNCHANGED, c); break; \
    case SFK_METHOD_SKINNED: sk_blocks(sk_step, job, b0, b1, K, SFK_METHOD_SKINNED, c); break;     \
    case SFK_METHOD_BONE_NORMAL_MATRICES:                                                          \
        sk_blocks(sk_step, job, b0, b1, K, SFK_METHOD_BONE_NORMAL_MATRICES, c);                    \
        break;                                                                                     \
    case SFK_METHOD_INVERSE_TRANSPOSE:                                                             \
        sk_blocks(sk_step, job, b0, b1, K, SFK_METHOD_INVERSE_TRANSPOSE, c);                       \
        break;                                                                                     \
    case SFI_SKIN_DEFORM: sk_blocks(sk_step, job, b0, b1, K, SFI_SKIN_DEFORM, c); break;           \
    default: sk_blocks(sk_step, job, b0, b1, K, SFI_SKIN_POSITIONS_ONLY, c); break;                \
    }

/* The function table of ozz's SkinningJob as a switch: loops specialised for 1 to 4 slots, a generic one above;
 * from a deform, one loop per method (only bone-normal-matrices reads the slots). */
void SK_ENTRY(const sfi_skin_job* job, size_t b0, size_t b1, sfi_skin_counts* c)
{
    if (job->deformed) {
        switch (job->method) {
        case SFK_METHOD_UNCHANGED: sk_blocks(sk_step_deformed, job, b0, b1, 0u, SFK_METHOD_UNCHANGED, c); break;
        case SFK_METHOD_SKINNED: sk_blocks(sk_step_deformed, job, b0, b1, 0u, SFK_METHOD_SKINNED, c); break;
        case SFK_METHOD_INVERSE_TRANSPOSE:
            sk_blocks(sk_step_deformed, job, b0, b1, 0u, SFK_METHOD_INVERSE_TRANSPOSE, c);
            break;
        default:
            sk_blocks(sk_step_deformed, job, b0, b1, job->lanes->influences, SFK_METHOD_BONE_NORMAL_MATRICES, c);
            break;
        }
        return;
    }
    switch (job->lanes->influences) {
    case 1: SK_METHODS(1u) break;
    case 2: SK_METHODS(2u) break;
    case 3: SK_METHODS(3u) break;
    case 4: SK_METHODS(4u) break;
    default: SK_METHODS(job->lanes->influences) break;
    }
}

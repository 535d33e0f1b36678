/* The body of the fast angles (angles_simd.h), included by angles_sse2.c and angles_avx2.c after they define
 * AN_D (4 doubles) and its operations: an_set1, an_add, an_sub, an_mul, an_div, an_sqrt, an_and, an_andnot, an_or,
 * an_gt, an_ge, an_lt, an_mask (4 bits), an_cvt (4 floats to AN_D), an_to_float, an_store, an_iota (v, v+1, v+2,
 * v+3) and an_eighths (truncate to int k, give k and table[k]). The float loads and stores below are SSE, shared by
 * both; an includer without SSE (angles_wasm.c) defines AN_FLOAT_OPS and its own an_load3, an_load4, an_put4 and
 * an_zero4. */

#include "sf_kernels.h"

/* The angle's helpers inlined into the loop: a call would pass the lanes through memory (in wasm, structs of
 * vectors go by pointer to the stack in linear memory). */
#if defined(__GNUC__) || defined(__clang__)
#define AN_INLINE static inline __attribute__((always_inline))
#else
#define AN_INLINE static inline
#endif

#define AN_FN2(a, b) a##_##b
#define AN_FN(a, b) AN_FN2(a, b)

static inline AN_D AN_FN(an_select, AN_ENTRY)(AN_D mask, AN_D a, AN_D b) { return an_or(an_and(mask, a), an_andnot(mask, b)); }
#define an_select AN_FN(an_select, AN_ENTRY)

#ifndef AN_FLOAT_OPS
/* x0 y0 z0 x1 | y1 z1 x2 y2 | z2 x3 y3 z3 to the x, y and z of 4 vertices. */
static inline void AN_FN(an_load3, AN_ENTRY)(const float* p, AN_D* x, AN_D* y, AN_D* z)
{
    __m128 a = _mm_loadu_ps(p), b = _mm_loadu_ps(p + 4), c = _mm_loadu_ps(p + 8);
    __m128 px = _mm_shuffle_ps(a, a, _MM_SHUFFLE(3, 3, 0, 0)), qx = _mm_shuffle_ps(b, c, _MM_SHUFFLE(1, 1, 2, 2));
    __m128 py = _mm_shuffle_ps(a, b, _MM_SHUFFLE(0, 0, 1, 1)), qy = _mm_shuffle_ps(b, c, _MM_SHUFFLE(2, 2, 3, 3));
    __m128 pz = _mm_shuffle_ps(a, b, _MM_SHUFFLE(1, 1, 2, 2)), qz = _mm_shuffle_ps(c, c, _MM_SHUFFLE(3, 3, 0, 0));
    *x = an_cvt(_mm_shuffle_ps(px, qx, _MM_SHUFFLE(2, 0, 2, 0)));
    *y = an_cvt(_mm_shuffle_ps(py, qy, _MM_SHUFFLE(2, 0, 2, 0)));
    *z = an_cvt(_mm_shuffle_ps(pz, qz, _MM_SHUFFLE(2, 0, 2, 0)));
}
#define an_load3 AN_FN(an_load3, AN_ENTRY)

/* 4 tangents (xyzw each): x, y, z as doubles; the bits of the w < 0 lanes. */
static inline int AN_FN(an_load4, AN_ENTRY)(const float* p, AN_D* x, AN_D* y, AN_D* z)
{
    __m128 r0 = _mm_loadu_ps(p), r1 = _mm_loadu_ps(p + 4), r2 = _mm_loadu_ps(p + 8), r3 = _mm_loadu_ps(p + 12);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    *x = an_cvt(r0), *y = an_cvt(r1), *z = an_cvt(r2);
    return _mm_movemask_ps(_mm_cmplt_ps(r3, _mm_setzero_ps()));
}
#define an_load4 AN_FN(an_load4, AN_ENTRY)

/* 4 angles as floats to out. */
static inline void AN_FN(an_put4, AN_ENTRY)(float* out, AN_D a) { _mm_storeu_ps(out, an_to_float(a)); }
#define an_put4 AN_FN(an_put4, AN_ENTRY)
static inline void AN_FN(an_zero4, AN_ENTRY)(float* out) { _mm_storeu_ps(out, _mm_setzero_ps()); }
#define an_zero4 AN_FN(an_zero4, AN_ENTRY)
#endif

/* !(|v|^2 >= 1e-24) of 4 vectors as a lane mask (sfk_degenerate3 of each: the evaluation refuses non-finite
 * inputs before it measures, so these directions are finite). */
static inline AN_D AN_FN(an_nonzero, AN_ENTRY)(AN_D x, AN_D y, AN_D z)
{
    AN_D l = an_add(an_add(an_mul(x, x), an_mul(y, y)), an_mul(z, z));
    return an_ge(l, an_set1(1e-24));
}
#define an_nonzero AN_FN(an_nonzero, AN_ENTRY)

/* sfk_atan2_nonneg, lane by lane. */
AN_INLINE AN_D AN_FN(an_atan2_nonneg, AN_ENTRY)(AN_D y, AN_D x)
{
    const double atan_eighths[9] = SFK_ATAN_EIGHTHS;
    AN_D zero = an_set1(0.0);
    AN_D ax = an_andnot(an_set1(-0.0), x);
    AN_D swap = an_gt(y, ax);
    AN_D num = an_select(swap, ax, y), den = an_select(swap, y, ax);
    AN_D t = an_and(an_gt(den, zero), an_div(num, den)); /* 0 where den is 0 (the quotient's NaN masked off) */
    AN_D kd, ck;
    an_eighths(an_add(an_mul(t, an_set1(8.0)), an_set1(0.5)), atan_eighths, &kd, &ck);
    AN_D c = an_mul(an_set1(0.125), kd);
    AN_D u = an_div(an_sub(t, c), an_add(an_set1(1.0), an_mul(t, c)));
    AN_D u2 = an_mul(u, u);
    AN_D p = an_set1(-1.0 / 15.0);
    p = an_add(an_mul(p, u2), an_set1(1.0 / 13.0));
    p = an_sub(an_mul(p, u2), an_set1(1.0 / 11.0));
    p = an_add(an_mul(p, u2), an_set1(1.0 / 9.0));
    p = an_sub(an_mul(p, u2), an_set1(1.0 / 7.0));
    p = an_add(an_mul(p, u2), an_set1(1.0 / 5.0));
    p = an_sub(an_mul(p, u2), an_set1(1.0 / 3.0));
    AN_D r = an_add(ck, an_add(u, an_mul(an_mul(u, u2), p)));
    r = an_select(swap, an_sub(an_set1(1.5707963267948966), r), r);
    return an_select(an_lt(x, zero), an_sub(an_set1(3.141592653589793), r), r);
}
#define an_atan2_nonneg AN_FN(an_atan2_nonneg, AN_ENTRY)

/* sfk_angle_deg of 4 pairs; *zero: the lanes where either is zero (180 degrees). same: a is b (0 or 180). */
AN_INLINE AN_D AN_FN(an_angle, AN_ENTRY)(AN_D ax, AN_D ay, AN_D az, AN_D bx, AN_D by, AN_D bz, int same, int* zero)
{
    AN_D ok = an_nonzero(ax, ay, az);
    if (same) {
        *zero = ~an_mask(ok) & 15;
        return an_andnot(ok, an_set1(180.0));
    }
    ok = an_and(ok, an_nonzero(bx, by, bz));
    *zero = ~an_mask(ok) & 15;
    AN_D d = an_add(an_add(an_mul(ax, bx), an_mul(ay, by)), an_mul(az, bz));
    AN_D cx = an_sub(an_mul(ay, bz), an_mul(az, by));
    AN_D cy = an_sub(an_mul(az, bx), an_mul(ax, bz));
    AN_D cz = an_sub(an_mul(ax, by), an_mul(ay, bx));
    AN_D s = an_sqrt(an_add(an_add(an_mul(cx, cx), an_mul(cy, cy)), an_mul(cz, cz)));
    AN_D deg = an_mul(an_atan2_nonneg(s, d), an_set1(57.29577951308232));
    return an_select(ok, deg, an_set1(180.0));
}
#define an_angle AN_FN(an_angle, AN_ENTRY)

/* The lanes' largest angles (each at its first vertex) into the chunk's: the largest, at the smallest vertex of
 * those equal to it. The chunk holds only vertices before the lanes', so ties keep its own. */
static inline void AN_FN(an_worst, AN_ENTRY)(AN_D w, AN_D wi, double* worst, size_t* vertex)
{
    double m[4], i[4];
    an_store(m, w), an_store(i, wi);
    double best = *worst;
    size_t at = *vertex;
    for (int l = 0; l < 4; ++l)
        if (m[l] > best || (m[l] == best && m[l] > *worst && (size_t)i[l] < at)) best = m[l], at = (size_t)i[l];
    *worst = best, *vertex = at;
}
#define an_worst AN_FN(an_worst, AN_ENTRY)

/* Bits set in a 4-lane mask (no __builtin_popcount: without POPCNT it calls a helper outside libc). */
#define AN_BITS4(m) ((size_t)((0x4332322132212110ull >> (4 * (unsigned)(m))) & 15u))

size_t AN_ENTRY(const sfi_angle_job* job, size_t begin, size_t end, sfi_angle_chunk* c)
{
    size_t v = begin;
    AN_D wn = an_set1(-1.0), wt = wn, wni = an_set1(0.0), wti = wni;
    size_t dn = 0, dt = 0, dg = 0, hd = 0;
    const int tangents = job->mt != NULL;
    for (; end - v >= 4; v += 4) {
        AN_D ax, ay, az, bx, by, bz;
        an_load3(job->mn + 3 * v, &ax, &ay, &az);
        if (!job->same_n) an_load3(job->rn + 3 * v, &bx, &by, &bz);
        else bx = ax, by = ay, bz = az;
        int zn, zt = 0, hand = 0;
        AN_D an = an_angle(ax, ay, az, bx, by, bz, job->same_n, &zn);
        AN_D idx = an_iota((double)v);
        AN_D up = an_gt(an, wn);
        wn = an_select(up, an, wn), wni = an_select(up, idx, wni);
        if (job->nd) an_put4(job->nd + v, an);
        if (tangents) {
            int mw = an_load4(job->mt + 4 * v, &ax, &ay, &az), rw = mw;
            if (!job->same_t) rw = an_load4(job->rt + 4 * v, &bx, &by, &bz);
            else bx = ax, by = ay, bz = az;
            hand = mw ^ rw;
            AN_D at = an_angle(ax, ay, az, bx, by, bz, job->same_t, &zt);
            up = an_gt(at, wt);
            wt = an_select(up, at, wt), wti = an_select(up, idx, wti);
            if (job->td) an_put4(job->td + v, at);
        } else if (job->td) {
            an_zero4(job->td + v);
        }
        dn += AN_BITS4(zn);
        dt += AN_BITS4(zt);
        dg += AN_BITS4(zn | zt);
        hd += AN_BITS4(hand);
        if (job->flags)
            for (int l = 0; l < 4; ++l)
                job->flags[v + (size_t)l] = (uint8_t)(((zn >> l) & 1) * SF_VERTEX_DEGENERATE_NORMAL |
                                                      ((zt >> l) & 1) * SF_VERTEX_DEGENERATE_TANGENT |
                                                      ((hand >> l) & 1) * SF_VERTEX_HANDEDNESS);
    }
    an_worst(wn, wni, &c->worst_n, &c->worst_n_vertex);
    if (tangents) an_worst(wt, wti, &c->worst_t, &c->worst_t_vertex);
    c->degenerate_normals += dn, c->degenerate_tangents += dt, c->degenerate += dg, c->handedness += hd;
    return v - begin;
}

/* The corner terms of MikkTSpace's sums (mikk_terms.h) over MT_W corners per step, written once for every
 * instruction set with the compilers' vector extensions: mikk_sse2.c, mikk_avx2.c, mikk_avx512.c and
 * mikk_wasm.c define the types and square roots below, then include this file. Each value takes the scalar
 * kernels' operations in their order (sfk_mikk_project, sfk_dot, the clamp, sfk_acos_ieee in double, then the
 * product), one IEEE operation at a time and without fused multiply-add, so each lane is the scalar's bits. A
 * lane where a normalisation leaves the common case (squared length outside [FLT_MIN, FLT_MAX], NaN included:
 * sfk_mikk_normalize's kept zero or rescaled branch) is redone by the scalar kernels.
 * The includer defines MT_W (float lanes), MT_ENTRY (the entry's name), the types mt_vf (MT_W floats), mt_vi
 * (MT_W int32, a float compare's result), mt_vd (MT_W / 2 doubles), mt_vl (MT_W / 2 int64, a double compare's
 * result), mt_vh (MT_W / 2 floats), and mt_sqrtf / mt_sqrtd. */
#include "mikk_terms.h"
#include "sf_kernels.h"

#include <float.h>
#include <string.h>

#define MT_H (MT_W / 2)

static inline mt_vf mt_self(mt_vi m, mt_vf a, mt_vf b) { return (mt_vf)((m & (mt_vi)a) | (~m & (mt_vi)b)); }
static inline mt_vd mt_seld(mt_vl m, mt_vd a, mt_vd b) { return (mt_vd)((m & (mt_vl)a) | (~m & (mt_vl)b)); }

static inline mt_vf mt_dot(const mt_vf a[3], const mt_vf b[3])
{
    mt_vf x = a[0] * b[0];
    mt_vf y = a[1] * b[1];
    mt_vf z = a[2] * b[2];
    x = x + y;
    return x + z;
}

/* sfk_mikk_project's common case; *odd gets the lanes outside it. */
static inline void mt_project(const mt_vf n[3], const mt_vf v[3], mt_vf out[3], mt_vi* odd)
{
    mt_vf d = mt_dot(n, v);
    for (int k = 0; k < 3; ++k) {
        mt_vf p = n[k] * d;
        out[k] = v[k] - p;
    }
    mt_vf len2 = mt_dot(out, out);
    *odd |= ~((mt_vi)(len2 >= FLT_MIN) & (mt_vi)(len2 <= FLT_MAX));
    mt_vf inv = 1.0f / mt_sqrtf(len2);
    for (int k = 0; k < 3; ++k) out[k] = out[k] * inv;
}

/* sfk_asin_small with the series' coefficients a. */
static inline mt_vd mt_asin_small(mt_vd s, const double a[SFK_ACOS_TERMS])
{
    mt_vd z = s * s;
    mt_vd r = {0};
    for (int k = SFK_ACOS_TERMS - 1; k >= 0; --k) {
        r = r * z;
        r = r + a[k];
    }
    mt_vd t = s * z;
    t = t * r;
    return s + t;
}

/* sfk_acos_ieee over MT_H lanes, both of its branches computed and the lane's one kept. */
static inline mt_vd mt_acos(mt_vd x, const double a[SFK_ACOS_TERMS])
{
    const double half_pi = 1.5707963267948966192, pi = 3.1415926535897932385;
    mt_vd ax = mt_seld((mt_vl)(x < 0.0), -x, x);
    mt_vd near = half_pi - mt_asin_small(x, a);
    mt_vd h = 1.0 - ax;
    h = h * 0.5;
    mt_vd s = mt_sqrtd(h);
    mt_vd b = mt_asin_small(s, a);
    b = b + b;
    mt_vd far = mt_seld((mt_vl)(x > 0.0), b, pi - b);
    return mt_seld((mt_vl)(ax <= 0.5), near, far);
}

void MT_ENTRY(const sfi_mikk_terms_job* job, size_t begin, size_t end)
{
    /* sfk_asin_series' coefficients C(2k, k) / (4^k (2k + 1)): exact integers in double, so each division
     * rounds as the constant's does */
    double a[SFK_ACOS_TERMS], binom = 1.0, four = 1.0;
    for (int k = 1; k <= SFK_ACOS_TERMS; ++k) {
        binom = binom * (double)(2 * k) * (double)(2 * k - 1) / ((double)k * (double)k);
        four = four * 4.0;
        a[k - 1] = binom / (four * (double)(2 * k + 1));
    }
    size_t c = begin;
    while (c < end) {
        float in[15][MT_W]; /* n, os, p_prev - p, p_next - p, then spare */
        size_t lane_corner[MT_W];
        int lanes = 0;
        for (; c < end && lanes < MT_W; ++c) {
            size_t f = c / 3, cc = c % 3;
            if (job->flags[f] & SFK_MIKK_ANY) continue;
            const uint32_t* tri = job->idx + 3 * f;
            const float *p = job->P + 3 * (size_t)tri[cc], *pp = job->P + 3 * (size_t)tri[(cc + 2) % 3];
            const float *pn = job->P + 3 * (size_t)tri[(cc + 1) % 3], *n = job->N + 3 * (size_t)tri[cc];
            const float* os = job->face_os + 3 * f;
            for (int k = 0; k < 3; ++k) {
                in[k][lanes] = n[k];
                in[3 + k][lanes] = os[k];
                in[6 + k][lanes] = pp[k] - p[k];
                in[9 + k][lanes] = pn[k] - p[k];
            }
            lane_corner[lanes++] = c;
        }
        if (!lanes) break;
        for (int l = lanes; l < MT_W; ++l) /* spare lanes: a right angle, never stored */
            for (int k = 0; k < 12; ++k) in[k][l] = (k == 2 || k == 3 || k == 6 || k == 10) ? 1.0f : 0.0f;
        mt_vf v[12];
        for (int k = 0; k < 12; ++k) memcpy(&v[k], in[k], sizeof v[k]);
        mt_vi odd = {0};
        mt_vf zero = {0}, one = zero + 1.0f;
        mt_vf os[3], v1[3], v2[3];
        mt_project(v, v + 3, os, &odd);
        mt_project(v, v + 6, v1, &odd);
        mt_project(v, v + 9, v2, &odd);
        mt_vf cosv = mt_dot(v1, v2);
        cosv = mt_self((mt_vi)(cosv > 1.0f), one, mt_self((mt_vi)(cosv < -1.0f), -one, cosv));
        float cf[MT_W], af[MT_W];
        memcpy(cf, &cosv, sizeof cf);
        for (int h = 0; h < MT_W; h += MT_H) {
            mt_vh x, r;
            memcpy(&x, cf + h, sizeof x);
            r = __builtin_convertvector(mt_acos(__builtin_convertvector(x, mt_vd), a), mt_vh);
            memcpy(af + h, &r, sizeof r);
        }
        mt_vf ang;
        memcpy(&ang, af, sizeof ang);
        float out[3][MT_W];
        int oddl[MT_W];
        for (int k = 0; k < 3; ++k) {
            mt_vf t = os[k] * ang;
            memcpy(out[k], &t, sizeof t);
        }
        memcpy(oddl, &odd, sizeof oddl);
        for (int l = 0; l < lanes; ++l) {
            if (oddl[l]) {
                sfi_mikk_term(job, lane_corner[l]);
                continue;
            }
            float* t = job->terms + 3 * lane_corner[l];
            t[0] = out[0][l], t[1] = out[1][l], t[2] = out[2][l];
        }
    }
}

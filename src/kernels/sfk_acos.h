/* An arc cosine made only of IEEE correctly rounded operations (+, -, *, /, sqrt in double), so that the CPU
 * and the CUDA kernels compute the same bits (a libm's acosf and CUDA's differ in their last bits). MikkTSpace
 * weights each corner by an angle: with this one its group sums are bit for bit the same on both sides.
 *
 * acos(x) = pi/2 - asin(x) for |x| <= 1/2, and from asin(s), s = sqrt((1 - |x|) / 2) <= 1/2, beyond:
 * acos(x) = 2 asin(s) for x > 1/2, pi - 2 asin(s) for x < -1/2. asin(s) = s + s z P(z), z = s^2, with P the
 * Taylor series of asin, a_k = C(2k, k) / (4^k (2k + 1)) for k = 1..SFK_ACOS_TERMS (each an exact integer
 * ratio in double, so the constants are correctly rounded). At z <= 1/4 the terms shrink by about 4 per step:
 * the first one left out is below 2^-50 relative, so the double result rounds to the float nearest acos(x)
 * except within about 2^-21 ulp of a tie (tests/test_mikktspace.c, acos_ieee, sweeps [-1, 1]).
 * Each operation is its own statement, so no compiler contracts two into a fused multiply-add (CUDA's units
 * are also built with --fmad=false). NaN and |x| > 1 give NaN, as acosf. */
#ifndef SFK_ACOS_H
#define SFK_ACOS_H

#include "sfk_vec.h"

#define SFK_ACOS_TERMS 20

/* P(z) = sum over k = 1..20 of a_k z^(k-1), by Horner from the last term; a_k = C(2k, k) / (4^k (2k + 1)). */
SF_HD double sfk_asin_series(double z)
{
    const double a[SFK_ACOS_TERMS] = {
        2.0 / 12.0, 6.0 / 80.0,
        20.0 / 448.0, 70.0 / 2304.0,
        252.0 / 11264.0, 924.0 / 53248.0,
        3432.0 / 245760.0, 12870.0 / 1114112.0,
        48620.0 / 4980736.0, 184756.0 / 22020096.0,
        705432.0 / 96468992.0, 2704156.0 / 419430400.0,
        10400600.0 / 1811939328.0, 40116600.0 / 7784628224.0,
        155117520.0 / 33285996544.0, 601080390.0 / 141733920768.0,
        2333606220.0 / 601295421440.0, 9075135300.0 / 2542620639232.0,
        35345263800.0 / 10720238370816.0, 137846528820.0 / 45079976738816.0,
    };
    double r = 0.0;
    for (int k = SFK_ACOS_TERMS - 1; k >= 0; --k) {
        r = r * z;
        r = r + a[k];
    }
    return r;
}

/* asin(s) for |s| <= 1/2. */
SF_HD double sfk_asin_small(double s)
{
    double z = s * s;
    double p = sfk_asin_series(z);
    double t = s * z;
    t = t * p;
    return s + t;
}

SF_HD float sfk_acos_ieee(float xf)
{
    const double half_pi = 1.5707963267948966192, pi = 3.1415926535897932385;
    double x = (double)xf;
    double ax = x < 0.0 ? -x : x;
    if (ax <= 0.5) {
        double a = sfk_asin_small(x);
        return (float)(half_pi - a);
    }
    double h = 1.0 - ax; /* exact: ax is a float in (1/2, 1] */
    h = h * 0.5;
    double s = sqrt(h);
    double a = sfk_asin_small(s);
    a = a + a;
    return (float)(x > 0.0 ? a : pi - a);
}

#endif /* SFK_ACOS_H */

/* Angle error metrics and the streaming statistics' histogram bins (src/core/error.c, stats.c). */
#ifndef SFK_ANGLES_H
#define SFK_ANGLES_H

#include "sfk_vec.h"

/* atan(k / 8) for k = 0..8, the centres of the reduction, as an initialiser (a file-scope array would not be
 * visible to CUDA device code); the SIMD angle loops (src/core/angles_body.h) use the same. */
#define SFK_ATAN_EIGHTHS                                                                                        \
    {0.0, 0.12435499454676144, 0.24497866312686414, 0.35877067027057225, 0.46364760900080609,                   \
     0.55859931534356244, 0.64350110879328437, 0.71882999962162453, 0.78539816339744828}

/* atan2(y, x) for y >= 0, in [0, pi], within 5e-16 relative of libm's: the ratio t in [0, 1] of the smaller to
 * the larger magnitude is moved next to the nearest k / 8 (atan t = atan(k/8) + atan u, |u| <= 1/16), where
 * seven odd Taylor terms are exact to double precision. Cheaper than libm's general atan2, which was most of
 * the cost of measuring a frame in wasm. */
SF_HD double sfk_atan2_nonneg(double y, double x)
{
    const double atan_eighths[9] = SFK_ATAN_EIGHTHS;
    double ax = fabs(x);
    int swap = y > ax;
    double num = swap ? ax : y, den = swap ? y : ax;
    double t = den > 0.0 ? num / den : 0.0;
    int k = (int)(t * 8.0 + 0.5);
    double c = 0.125 * k;
    double u = (t - c) / (1.0 + t * c); /* exactly t when k = 0: small angles keep their relative precision */
    double u2 = u * u;
    double p = -1.0 / 15.0;
    p = p * u2 + 1.0 / 13.0;
    p = p * u2 - 1.0 / 11.0;
    p = p * u2 + 1.0 / 9.0;
    p = p * u2 - 1.0 / 7.0;
    p = p * u2 + 1.0 / 5.0;
    p = p * u2 - 1.0 / 3.0;
#ifdef __CUDA_ARCH__
    /* selected with constant indices, so that the table stays in registers rather than in each thread's local
     * memory (a store of the table per call) */
    double base = atan_eighths[0];
#pragma unroll
    for (int i = 1; i < 9; ++i) base = k == i ? atan_eighths[i] : base;
#else
    double base = atan_eighths[k];
#endif
    double r = base + (u + u * u2 * p);
    if (swap) r = 1.5707963267948966 - r;
    if (x < 0.0) r = 3.141592653589793 - r;
    return r;
}

/* Angle in degrees between two directions (sf_angle_deg, and the GPU's error pass): from |a x b| and a . b,
 * no normalisation (atan2 takes their ratio) and no acos, which loses precision near 0 degrees. Products of
 * floats are exact in double: a direction's cross product with itself is exactly 0. 180 when either is zero
 * as SafeUnit sees it (|v|^2 < 1e-24) or not finite (a squared length of finite floats cannot overflow a double,
 * so an infinite one means an infinite component; atan2's reduction would take inf / inf as its table index). */
SF_HD double sfk_angle_deg(const float a[3], const float b[3])
{
    double la = (double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2];
    double lb = (double)b[0] * b[0] + (double)b[1] * b[1] + (double)b[2] * b[2];
    if (!(la >= 1e-24 && la <= DBL_MAX) || !(lb >= 1e-24 && lb <= DBL_MAX)) return 180.0;
    double d = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
    double cx = (double)a[1] * b[2] - (double)a[2] * b[1];
    double cy = (double)a[2] * b[0] - (double)a[0] * b[2];
    double cz = (double)a[0] * b[1] - (double)a[1] * b[0];
    return sfk_atan2_nonneg(sqrt(cx * cx + cy * cy + cz * cz), d) * 57.29577951308232;
}

/* Zero (or not finite) as sfk_angle_deg sees it: the vertex is flagged degenerate. */
SF_HD int sfk_degenerate3(const float v[3])
{
    double l = (double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2];
    return !(l >= 1e-24 && l <= DBL_MAX);
}

/* The streaming statistics' histogram (sf_angle_accumulator; skinframe.h documents the resolution):
 *   bin 0        exactly 0
 *   bin 1        (0, 2^SFK_ANGLE_LOG_MIN_EXP)
 *   log bins     [2^e, 2^(e+1)) for e in [LOG_MIN_EXP, LINEAR_EXP), each split into 2^LOG_BITS bins (the float's
 *                exponent and top mantissa bits, so width / value <= 2^-LOG_BITS)
 *   linear bins  [2^LINEAR_EXP, 180] in steps of 2^-LINEAR_BITS degrees
 * The CPU accumulator and the GPU histogram fill the same bins. */
#define SFK_ANGLE_LOG_MIN_EXP (-20)
#define SFK_ANGLE_LINEAR_EXP (-2)
#define SFK_ANGLE_LOG_BITS 8
#define SFK_ANGLE_LINEAR_BITS 10
#define SFK_ANGLE_LOG_BINS (((uint32_t)(SFK_ANGLE_LINEAR_EXP - SFK_ANGLE_LOG_MIN_EXP)) << SFK_ANGLE_LOG_BITS)
#define SFK_ANGLE_LINEAR_FIRST (2u + SFK_ANGLE_LOG_BINS)
#define SFK_ANGLE_LINEAR_START 0.25 /* 2^LINEAR_EXP */
#define SFK_ANGLE_LINEAR_BINS \
    (((uint32_t)180 << SFK_ANGLE_LINEAR_BITS) - ((uint32_t)1 << (SFK_ANGLE_LINEAR_BITS + SFK_ANGLE_LINEAR_EXP)))
#define SFK_ANGLE_BIN_COUNT (SFK_ANGLE_LINEAR_FIRST + SFK_ANGLE_LINEAR_BINS)

/* The bin of a finite angle in [0, 180]. */
SF_HD uint32_t sfk_angle_bin(float a)
{
    if (a == 0.0f) return 0;
    if (a < (float)SFK_ANGLE_LINEAR_START) {
        if (a < 0x1p-20f) return 1; /* 2^LOG_MIN_EXP */
        union {
            float f;
            uint32_t u;
        } bits;
        bits.f = a;
        int e = (int)((bits.u >> 23) & 0xffu) - 127;
        uint32_t mantissa = (bits.u >> (23 - SFK_ANGLE_LOG_BITS)) & ((1u << SFK_ANGLE_LOG_BITS) - 1u);
        return 2u + ((uint32_t)(e - SFK_ANGLE_LOG_MIN_EXP) << SFK_ANGLE_LOG_BITS) + mantissa;
    }
    /* exact in float: a >= 2^LINEAR_EXP is a multiple of its own ulp, which divides 2^LINEAR_EXP, so the
     * difference is a float; the scale is a power of two */
    uint32_t k = (uint32_t)((a - (float)SFK_ANGLE_LINEAR_START) * (float)(1 << SFK_ANGLE_LINEAR_BITS));
    return SFK_ANGLE_LINEAR_FIRST + (k < SFK_ANGLE_LINEAR_BINS ? k : SFK_ANGLE_LINEAR_BINS - 1u); /* 180: the last */
}

#endif /* SFK_ANGLES_H */

/* Vector and 3x4 matrix arithmetic, the article's SafeUnit and its thresholds, and the bone loads every
 * formula family shares. SF_HD marks a function for both host and CUDA device code. */
#ifndef SFK_VEC_H
#define SFK_VEC_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define SF_HD __host__ __device__ static inline
#else
#define SF_HD static inline
#endif

/* The article's SafeUnit threshold on |v|^2. */
#define SF_SAFE_UNIT_EPS2 1e-24f
/* The article's UV determinant threshold. */
#define SF_UV_DET_EPS 1e-12f
/* The article's singular-matrix threshold for the inverse transpose. */
#define SF_SINGULAR_DET_EPS 1e-12f

SF_HD float sfk_dot(const float a[3], const float b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

SF_HD void sfk_cross(const float a[3], const float b[3], float out[3])
{
    float x = a[1] * b[2] - a[2] * b[1];
    float y = a[2] * b[0] - a[0] * b[2];
    float z = a[0] * b[1] - a[1] * b[0];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

SF_HD void sfk_sub(const float a[3], const float b[3], float out[3])
{
    out[0] = a[0] - b[0];
    out[1] = a[1] - b[1];
    out[2] = a[2] - b[2];
}

SF_HD void sfk_madd(float acc[3], const float v[3], float s)
{
    acc[0] += v[0] * s;
    acc[1] += v[1] * s;
    acc[2] += v[2] * s;
}

/* The largest |component| (0 for NaN components). */
SF_HD float sfk_max_abs3(const float v[3])
{
    float a = fabsf(v[0]), b = fabsf(v[1]), c = fabsf(v[2]);
    float m = a > b ? a : b;
    return m > c ? m : c;
}

/* |v|. Where the squares overflow (|v| beyond ~1.8e19) v is first divided by its largest component; below
 * that the result is sqrtf(v.v) bit for bit. */
SF_HD float sfk_length(const float v[3])
{
    float len2 = sfk_dot(v, v);
    if (len2 <= FLT_MAX) return sqrtf(len2);
    float m = sfk_max_abs3(v);
    if (!(m <= FLT_MAX)) return m;
    float s[3] = {v[0] / m, v[1] / m, v[2] / m};
    return m * sqrtf(sfk_dot(s, s));
}

/* The article's SafeUnit: zero when |v|^2 < 1e-24. Returns 0 when zero, 1 otherwise. Where |v|^2 overflows
 * the direction comes from v divided by its largest component (a component that is itself infinite gives
 * zero, never NaN); below that the result is bit for bit the article's. */
SF_HD int sfk_safe_unit(const float v[3], float out[3])
{
    float len2 = sfk_dot(v, v);
    if (!(len2 >= SF_SAFE_UNIT_EPS2)) {
        out[0] = out[1] = out[2] = 0.0f;
        return 0;
    }
    if (len2 > FLT_MAX) {
        float m = sfk_max_abs3(v);
        if (!(m <= FLT_MAX)) {
            out[0] = out[1] = out[2] = 0.0f;
            return 0;
        }
        float s[3] = {v[0] / m, v[1] / m, v[2] / m};
        float inv_s = 1.0f / sqrtf(sfk_dot(s, s));
        out[0] = s[0] * inv_s;
        out[1] = s[1] * inv_s;
        out[2] = s[2] * inv_s;
        return 1;
    }
    float inv = 1.0f / sqrtf(len2);
    out[0] = v[0] * inv;
    out[1] = v[1] * inv;
    out[2] = v[2] * inv;
    return 1;
}

/* m (3x4) applied to a direction: A v. */
SF_HD void sfk_mat_dir(const float m[12], const float v[3], float out[3])
{
    float x = m[0] * v[0] + m[3] * v[1] + m[6] * v[2];
    float y = m[1] * v[0] + m[4] * v[1] + m[7] * v[2];
    float z = m[2] * v[0] + m[5] * v[1] + m[8] * v[2];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

/* m (3x4) applied to a point: A p + t. */
SF_HD void sfk_mat_point(const float m[12], const float p[3], float out[3])
{
    sfk_mat_dir(m, p, out);
    out[0] += m[9];
    out[1] += m[10];
    out[2] += m[11];
}

SF_HD float sfk_mat_det(const float m[12])
{
    /* det [a0 a1 a2] = a0 . (a1 x a2) */
    float c[3];
    sfk_cross(m + 3, m + 6, c);
    return sfk_dot(m, c);
}

/* Cofactor matrix of A applied to v: cof(A) v = det(A) A^-T v = [a1 x a2, a2 x a0, a0 x a1] v
 * (the columns of det(A) A^-T, i.e. the rows of det(A) A^-1, are the cross products of A's columns). */
SF_HD void sfk_mat_cofactor_dir(const float m[12], const float v[3], float out[3])
{
    float r0[3], r1[3], r2[3];
    sfk_cross(m + 3, m + 6, r0);
    sfk_cross(m + 6, m + 0, r1);
    sfk_cross(m + 0, m + 3, r2);
    /* cof(A) = [r0 r1 r2] as columns: cof(A) v = r0 v0 + r1 v1 + r2 v2. */
    out[0] = r0[0] * v[0] + r1[0] * v[1] + r2[0] * v[2];
    out[1] = r0[1] * v[0] + r1[1] * v[1] + r2[1] * v[2];
    out[2] = r0[2] * v[0] + r1[2] * v[1] + r2[2] * v[2];
}

/* Bone j's matrix out of the pose (12 floats per bone). On the GPU a pose buffer starts 16-byte aligned and
 * 12 floats keep every bone so, so its three 16-byte loads replace twelve 4-byte ones (a quarter of the load
 * instructions of a blend); the same values either way. */
SF_HD void sfk_bone_load(const float* bones, uint32_t j, float out[12])
{
#ifdef __CUDA_ARCH__
    const float4* q = reinterpret_cast<const float4*>(bones + 12u * j);
    float4 a = __ldg(q), b = __ldg(q + 1), c = __ldg(q + 2);
    out[0] = a.x, out[1] = a.y, out[2] = a.z, out[3] = a.w;
    out[4] = b.x, out[5] = b.y, out[6] = b.z, out[7] = b.w;
    out[8] = c.x, out[9] = c.y, out[10] = c.z, out[11] = c.w;
#else
    int k;
    for (k = 0; k < 12; ++k) out[k] = bones[12u * j + k];
#endif
}

/* count (even) floats from p into out. On the GPU p is 8-byte aligned where the jacobian reads its
 * gradients (per slot (g.u, g.v), per target (D u, D v): even records in arrays that start aligned), so
 * count / 2 8-byte loads; the same values either way. */
SF_HD void sfk_load_pairs(const float* p, uint32_t count, float* out)
{
    uint32_t k;
#ifdef __CUDA_ARCH__
    for (k = 0; k < count; k += 2) {
        float2 v = __ldg(reinterpret_cast<const float2*>(p + k));
        out[k] = v.x, out[k + 1] = v.y;
    }
#else
    for (k = 0; k < count; ++k) out[k] = p[k];
#endif
}

#endif /* SFK_VEC_H */

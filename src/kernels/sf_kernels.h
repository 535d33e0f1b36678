/* Per-vertex and per-face formulas, written once and shared by the CPU loops (src/) and the CUDA
 * kernels (cuda/). Valid C11 and C++: no compound literals, no void* conversions, sqrtf/fabsf only.
 * Vectors are plain float arrays; matrices are the 12-float 3x4 column-major layout of skinframe.h. */
#ifndef SF_KERNELS_H
#define SF_KERNELS_H

#include <math.h>
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

SF_HD float sfk_length(const float v[3]) { return sqrtf(sfk_dot(v, v)); }

/* The article's SafeUnit: zero when |v|^2 < 1e-24. Returns 0 when zero, 1 otherwise. */
SF_HD int sfk_safe_unit(const float v[3], float out[3])
{
    float len2 = sfk_dot(v, v);
    if (!(len2 >= SF_SAFE_UNIT_EPS2)) {
        out[0] = out[1] = out[2] = 0.0f;
        return 0;
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

/* Blended matrix sum_i w_i M_{j_i} over one vertex's influences. With no influence (count 0, or all
 * weights zero under the rest fallback) the result is the identity. */
SF_HD void sfk_blend_matrix(const float* bones, const uint32_t* joints, const float* weights, uint32_t count,
                            float out[12])
{
    int k;
    for (k = 0; k < 12; ++k) out[k] = 0.0f;
    float total = 0.0f;
    uint32_t i;
    for (i = 0; i < count; ++i) {
        float w = weights[i];
        if (w == 0.0f) continue;
        const float* b = bones + 12u * joints[i];
        for (k = 0; k < 12; ++k) out[k] += w * b[k];
        total += w;
    }
    if (total == 0.0f) {
        out[0] = out[4] = out[8] = 1.0f;
    }
}

/* Direction skinned by the blended matrix (the article's section 2). Returns 0 when degenerate. */
SF_HD int sfk_skin_direction(const float m[12], const float v[3], float out[3])
{
    float s[3];
    sfk_mat_dir(m, v, s);
    return sfk_safe_unit(s, out);
}

/* The article's InverseTransposeNormal on the blended matrix, with the sign of the determinant kept
 * so the normal stays on the side the faces' winding makes front (see docs/methods.md). */
SF_HD int sfk_inverse_transpose_normal(const float m[12], const float n[3], float out[3])
{
    float det = sfk_mat_det(m);
    if (fabsf(det) < SF_SINGULAR_DET_EPS) {
        out[0] = out[1] = out[2] = 0.0f;
        return 0;
    }
    float c[3];
    sfk_mat_cofactor_dir(m, n, c);
    float inv = 1.0f / det;
    c[0] *= inv;
    c[1] *= inv;
    c[2] *= inv;
    return sfk_safe_unit(c, out);
}

/* Handedness after a transform: w flips where the blended matrix mirrors (det < 0). */
SF_HD float sfk_mirror_handedness(float rest_w, float det) { return det < 0.0f ? -rest_w : rest_w; }

/* One face's contributions to the recompute gather (the article's section 5), from final positions
 * p0 p1 p2 and UVs. weight_mode: 0 area, 1 angle (per corner, see sfk_corner_angle), 2 uniform.
 * face_n: cross(e1, e2) (unnormalised; length = twice the area); t_out/b_out: the UV tangent and
 * bitangent ((e1 uv2.y - e2 uv1.y)/det, (e2 uv1.x - e1 uv2.x)/det), zero when |det| <= 1e-12.
 * Returns 1 when the UV determinant is usable. */
SF_HD int sfk_face_frame(const float p0[3], const float p1[3], const float p2[3], const float* uv0, const float* uv1,
                         const float* uv2, float face_n[3], float t_out[3], float b_out[3])
{
    float e1[3], e2[3];
    sfk_sub(p1, p0, e1);
    sfk_sub(p2, p0, e2);
    sfk_cross(e1, e2, face_n);
    t_out[0] = t_out[1] = t_out[2] = 0.0f;
    b_out[0] = b_out[1] = b_out[2] = 0.0f;
    if (!uv0) return 0;
    float du1 = uv1[0] - uv0[0], dv1 = uv1[1] - uv0[1];
    float du2 = uv2[0] - uv0[0], dv2 = uv2[1] - uv0[1];
    float det = du1 * dv2 - du2 * dv1;
    if (!(fabsf(det) > SF_UV_DET_EPS)) return 0;
    float inv = 1.0f / det;
    int k;
    for (k = 0; k < 3; ++k) {
        t_out[k] = (e1[k] * dv2 - e2[k] * dv1) * inv;
        b_out[k] = (e2[k] * du1 - e1[k] * du2) * inv;
    }
    return 1;
}

/* Interior angle (radians) at corner p0 of triangle p0 p1 p2; 0 for a degenerate corner. */
SF_HD float sfk_corner_angle(const float p0[3], const float p1[3], const float p2[3])
{
    float a[3], b[3], c[3];
    sfk_sub(p1, p0, a);
    sfk_sub(p2, p0, b);
    sfk_cross(a, b, c);
    float s = sfk_length(c), d = sfk_dot(a, b);
    if (s == 0.0f && d == 0.0f) return 0.0f;
    return atan2f(s, d);
}

/* Final step of the gather: n = unit(N), t = unit(T - n (n.T)), w from the UV bitangent B = dP/dv.
 * bitangent_sign says which way the normal map's +Y runs: +1 along +dP/dv (v up, the article's formula),
 * -1 along -dP/dv (glTF: v grows downward in the image). See sf_uv_convention. */
SF_HD void sfk_finish_frame(const float N[3], const float T[3], const float B[3], float bitangent_sign, float n_out[3],
                            float t_out[4])
{
    sfk_safe_unit(N, n_out);
    float d = sfk_dot(n_out, T);
    float to[3] = {T[0] - n_out[0] * d, T[1] - n_out[1] * d, T[2] - n_out[2] * d};
    sfk_safe_unit(to, t_out);
    float c[3];
    sfk_cross(n_out, t_out, c);
    t_out[3] = sfk_dot(c, B) * bitangent_sign < 0.0f ? -1.0f : 1.0f;
}

/* ================================================================ jacobian (issue 4; docs/methods.md)
 * J = B (I + sum_k alpha_k grad d_k) + sum_j (A_j x + t_j) grad(w_j)^T, applied to the rest tangent
 * plane only: gradients are stored as (g.u, g.v) in the basis of sfk_tangent_basis(rest normal). */

/* At most this many weight-gradient slots per vertex (the largest kept; the rest counted in
 * sf_topology_stats.dropped_gradient_slots): bounds the per-vertex loop on every path. */
#define SFK_JACOBIAN_MAX_SLOTS 16u

/* Gradient slot joint meaning "the identity transform": the implicit bone of zero-weight vertices. */
#define SFK_REST_JOINT 0xFFFFFFFFu

/* Orthonormal (u, v) perpendicular to the unit vector n with u x v = n (Duff et al. 2017, branchless
 * apart from the sign): the same n gives the same basis on every path, so gradients built once match. */
SF_HD void sfk_tangent_basis(const float n[3], float u[3], float v[3])
{
    float s = n[2] >= 0.0f ? 1.0f : -1.0f;
    float a = -1.0f / (s + n[2]);
    float b = n[0] * n[1] * a;
    u[0] = 1.0f + s * n[0] * n[0] * a;
    u[1] = s * b;
    u[2] = -s * n[0];
    v[0] = b;
    v[1] = s + n[1] * n[1] * a;
    v[2] = -n[1];
}

/* The (u, v) basis of a vertex from its stored rest normal (any length): both the gradient build and
 * every frame call this, so they agree bit for bit. Returns 0 (and zero vectors) for a zero normal. */
SF_HD int sfk_rest_basis(const float rest_n[3], float u[3], float v[3])
{
    float n[3];
    if (!sfk_safe_unit(rest_n, n)) {
        u[0] = u[1] = u[2] = v[0] = v[1] = v[2] = 0.0f;
        return 0;
    }
    sfk_tangent_basis(n, u, v);
    return 1;
}

/* Per-face gradient of a piecewise-linear field f on triangle p0 p1 p2: g = (f1 - f0) a + (f2 - f0) b
 * solves g.e0 = f1 - f0, g.e1 = f2 - f0, g.n_face = 0 (e0 = p1 - p0, e1 = p2 - p0, N = e0 x e1:
 * a = (e1 x N) / |N|^2, b = (N x e0) / |N|^2). Returns |N| (twice the area); 0 and a = b = 0 when the
 * face is degenerate. */
SF_HD float sfk_face_gradient_basis(const float p0[3], const float p1[3], const float p2[3], float a[3], float b[3])
{
    float e0[3], e1[3], N[3];
    sfk_sub(p1, p0, e0);
    sfk_sub(p2, p0, e1);
    sfk_cross(e0, e1, N);
    float nn = sfk_dot(N, N);
    if (!(nn >= SF_SAFE_UNIT_EPS2)) {
        a[0] = a[1] = a[2] = b[0] = b[1] = b[2] = 0.0f;
        return 0.0f;
    }
    float inv = 1.0f / nn;
    sfk_cross(e1, N, a);
    sfk_cross(N, e0, b);
    int k;
    for (k = 0; k < 3; ++k) {
        a[k] *= inv;
        b[k] *= inv;
    }
    return sqrtf(nn);
}

/* Limits a correction vector c to cap * |base| (Tarini et al. 2014). Returns 1 when it fired. */
SF_HD int sfk_jacobian_cap(float c[3], const float base[3], float cap)
{
    if (!(cap > 0.0f)) return 0;
    float lc2 = sfk_dot(c, c), lim = cap * sfk_length(base);
    if (!(lc2 > lim * lim)) return 0;
    float s = lim / sqrtf(lc2);
    c[0] *= s;
    c[1] *= s;
    c[2] *= s;
    return 1;
}

/* One vertex of the jacobian method.
 *   bones: 12 floats per bone (the pose; may be NULL when slot_count is 0); blend: the vertex's blended
 *   matrix B and det its determinant; x: morphed rest position; P = B x + t_B, the final position;
 *   n0: rest normal (any length; zero = no frame, zero outputs); t0: rest tangent xyz + w.
 *   slots: slot_count joints (or SFK_REST_JOINT) with (g.u, g.v) of the weight gradient, 2 floats each.
 *   morph: morph_count targets with (D u, D v) of the delta gradient, 6 floats each; alpha: morph weights.
 *   cap: Tarini-style cap on |correction| / |B u'| (0 = off).
 * Writes a unit normal (zero when degenerate) and a unit tangent with handedness; returns 1 when the cap
 * fired. Mirroring (det < 0) follows the recompute convention: normal sign(det) cross(Ju, Jv), w flipped. */
SF_HD int sfk_jacobian_vertex(const float* bones, const float blend[12], float det, const float x[3],
                              const float P[3], const float n0[3], const float t0[4], const uint32_t* slot_joint,
                              const float* slot_guv, uint32_t slot_count, const uint32_t* morph_target,
                              const float* morph_duv, uint32_t morph_count, const float* alpha, float cap,
                              float n_out[3], float t_out[4])
{
    float u[3], v[3];
    if (!sfk_rest_basis(n0, u, v)) {
        n_out[0] = n_out[1] = n_out[2] = 0.0f;
        t_out[0] = t_out[1] = t_out[2] = 0.0f;
        t_out[3] = sfk_mirror_handedness(t0[3], det);
        return 0;
    }
    /* Rest tangent plane -> morphed tangent vectors: u' = (I + sum alpha_k grad d_k) u. */
    float mu[3] = {u[0], u[1], u[2]}, mv[3] = {v[0], v[1], v[2]};
    uint32_t i;
    if (alpha) {
        for (i = 0; i < morph_count; ++i) {
            float a = alpha[morph_target[i]];
            if (a == 0.0f) continue;
            sfk_madd(mu, morph_duv + 6 * i, a);
            sfk_madd(mv, morph_duv + 6 * i + 3, a);
        }
    }
    float ju[3], jv[3];
    sfk_mat_dir(blend, mu, ju);
    sfk_mat_dir(blend, mv, jv);
    /* Weight-gradient term, relative to P: sum_j grad w_j = 0 where weights sum to one, and the
     * subtraction keeps large bone translations from cancelling in float. */
    float cu[3] = {0.0f, 0.0f, 0.0f}, cv[3] = {0.0f, 0.0f, 0.0f};
    for (i = 0; i < slot_count; ++i) {
        uint32_t j = slot_joint[i];
        float pj[3];
        if (j == SFK_REST_JOINT) {
            pj[0] = x[0];
            pj[1] = x[1];
            pj[2] = x[2];
        } else {
            sfk_mat_point(bones + 12u * j, x, pj);
        }
        sfk_sub(pj, P, pj);
        sfk_madd(cu, pj, slot_guv[2 * i]);
        sfk_madd(cv, pj, slot_guv[2 * i + 1]);
    }
    int capped = sfk_jacobian_cap(cu, ju, cap);
    capped |= sfk_jacobian_cap(cv, jv, cap);
    sfk_madd(ju, cu, 1.0f);
    sfk_madd(jv, cv, 1.0f);
    float N[3];
    sfk_cross(ju, jv, N);
    if (det < 0.0f) {
        N[0] = -N[0];
        N[1] = -N[1];
        N[2] = -N[2];
    }
    sfk_safe_unit(N, n_out);
    /* Tangent: J t0 with t0 taken in the rest tangent plane, then Gram-Schmidt against the normal. */
    float tu = sfk_dot(t0, u), tv = sfk_dot(t0, v);
    float T[3] = {ju[0] * tu + jv[0] * tv, ju[1] * tu + jv[1] * tv, ju[2] * tu + jv[2] * tv};
    float d = sfk_dot(n_out, T);
    float to[3] = {T[0] - n_out[0] * d, T[1] - n_out[1] * d, T[2] - n_out[2] * d};
    if (!sfk_safe_unit(to, t_out)) {
        /* t0 has no part in the rest tangent plane (a placeholder along the normal, such as MikkTSpace's
         * default on zero-area UVs): carry it as `skinned` does instead of returning zero. */
        sfk_skin_direction(blend, t0, t_out);
    }
    t_out[3] = sfk_mirror_handedness(t0[3], det);
    return capped;
}

#endif /* SF_KERNELS_H */

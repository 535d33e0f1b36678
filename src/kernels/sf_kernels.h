/* Per-vertex and per-face formulas, written once and shared by the CPU loops (src/) and the CUDA
 * kernels (cuda/). Valid C11 and C++: no compound literals, no void* conversions, sqrtf/fabsf only.
 * Vectors are plain float arrays; matrices are the 12-float 3x4 column-major layout of skinframe.h. */
#ifndef SF_KERNELS_H
#define SF_KERNELS_H

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
        float b[12];
        sfk_bone_load(bones, joints[i], b);
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

/* ================================================================ deformation and per-vertex methods */

/* Which morph direction deltas the deformation adds (sfk_deform_vertex's with_dirs): the values of the public
 * sf_morph_directions (include/skinframe.h; src/core/deform.c asserts they agree), so no caller maps them. */
#define SFK_MORPH_DIRS_DELTAS 0  /* normal and tangent deltas */
#define SFK_MORPH_DIRS_NONE 1    /* position deltas only */
#define SFK_MORPH_DIRS_NORMALS 2 /* normal deltas only */

/* The position part of the deformation: the morphed rest position p (position deltas only), the blended
 * matrix m, its determinant and the final position. sfk_deform_vertex calls it, and so does every path that
 * needs a final position without the deform's buffers (sfk_fused_position), so all agree bit for bit. */
SF_HD void sfk_deform_position(const float rest_p[3], const uint32_t* morph_target, const float* dp,
                               uint32_t morph_count, const float* alpha, const float* bones, const uint32_t* joints,
                               const float* weights, uint32_t influences, float p[3], float m[12], float* det,
                               float final_p[3])
{
    p[0] = rest_p[0];
    p[1] = rest_p[1];
    p[2] = rest_p[2];
    if (alpha) {
        uint32_t e;
        for (e = 0; e < morph_count; ++e) {
            float a = alpha[morph_target[e]];
            if (a == 0.0f) continue;
            sfk_madd(p, dp + 3u * e, a);
        }
    }
    sfk_blend_matrix(bones, joints, weights, influences, m);
    *det = sfk_mat_det(m);
    sfk_mat_point(m, p, final_p);
}

/* One vertex of the deformation: morph (position deltas, and direction deltas when with_dirs), blend, skin.
 *   rest_p/rest_n/rest_t: rest position, normal, tangent xyz; morph_count entries of (target, dp, dn, dt),
 *   3 floats per delta; alpha: morph weights (NULL = none); with_dirs: SFK_MORPH_DIRS_* (normal and tangent
 *   deltas, none, normal deltas only). influences (joint, weight) pairs over bones
 *   (12 floats each; 0 influences = the identity).
 * Writes the morphed rest p, n, t (directions not normalised), the blended matrix m, its determinant and
 * the final position. */
SF_HD void sfk_deform_vertex(const float rest_p[3], const float rest_n[3], const float rest_t[3],
                             const uint32_t* morph_target, const float* dp, const float* dn, const float* dt,
                             uint32_t morph_count, const float* alpha, int with_dirs, const float* bones,
                             const uint32_t* joints, const float* weights, uint32_t influences, float p[3],
                             float n[3], float t[3], float m[12], float* det, float final_p[3])
{
    int k;
    for (k = 0; k < 3; ++k) {
        n[k] = rest_n[k];
        t[k] = rest_t[k];
    }
    if (alpha && with_dirs != SFK_MORPH_DIRS_NONE) {
        uint32_t e;
        for (e = 0; e < morph_count; ++e) {
            float a = alpha[morph_target[e]];
            if (a == 0.0f) continue;
            sfk_madd(n, dn + 3u * e, a);
            if (with_dirs == SFK_MORPH_DIRS_DELTAS) sfk_madd(t, dt + 3u * e, a);
        }
    }
    sfk_deform_position(rest_p, morph_target, dp, morph_count, alpha, bones, joints, weights, influences, p, m, det,
                        final_p);
}

/* The methods that need no neighbours, numbered as sf_method (src/core/frames.c checks it). */
#define SFK_METHOD_UNCHANGED 0
#define SFK_METHOD_SKINNED 1
#define SFK_METHOD_INVERSE_TRANSPOSE 2
#define SFK_METHOD_BONE_NORMAL_MATRICES 3

/* bone-normal-matrices: each bone's normal matrix cof(A_j) (= det(A_j) A_j^-T, what an engine computes per
 * joint and uploads beside the skinning matrices) blended with the skin weights, applied to n and normalised:
 *     n' = unit( sum_i w_i cof(A_{j_i}) n )
 * It equals inverse-transpose (cof of the blend) when every weighted bone has the same linear part, and
 * differs from it where bones scale differently: the cofactor of a blend is not the blend of the cofactors.
 * A bone that mirrors (det < 0) contributes its normal turned inward, as an engine's per-joint cofactor
 * does. No influence (count 0, or all weights zero) is the identity. Returns 0 when degenerate. */
SF_HD int sfk_bone_normal_matrices_normal(const float* bones, const uint32_t* joints, const float* weights,
                                          uint32_t count, const float n[3], float out[3])
{
    float acc[3] = {0.0f, 0.0f, 0.0f};
    float total = 0.0f;
    uint32_t i;
    for (i = 0; i < count; ++i) {
        float w = weights[i];
        if (w == 0.0f) continue;
        float b[12], c[3];
        sfk_bone_load(bones, joints[i], b);
        sfk_mat_cofactor_dir(b, n, c);
        sfk_madd(acc, c, w);
        total += w;
    }
    if (total == 0.0f) return sfk_safe_unit(n, out);
    return sfk_safe_unit(acc, out);
}

/* One vertex of unchanged / skinned / inverse-transpose (DESIGN.md section 2) from its blended matrix m,
 * det(m), the morphed rest normal mn and tangent mt (any length) and the rest handedness rest_w. Any other
 * method value is treated as inverse-transpose. */
SF_HD void sfk_vertex_frame(int method, const float m[12], float det, const float mn[3], const float mt[3],
                            float rest_w, float n_out[3], float t_out[4])
{
    float w = rest_w;
    if (method == SFK_METHOD_UNCHANGED) {
        sfk_safe_unit(mn, n_out);
        sfk_safe_unit(mt, t_out);
    } else if (method == SFK_METHOD_SKINNED) {
        sfk_skin_direction(m, mn, n_out);
        sfk_skin_direction(m, mt, t_out);
        w = sfk_mirror_handedness(rest_w, det);
    } else {
        sfk_inverse_transpose_normal(m, mn, n_out);
        sfk_skin_direction(m, mt, t_out);
        w = sfk_mirror_handedness(rest_w, det);
    }
    t_out[3] = w;
}

/* One vertex of bone-normal-matrices: the normal as sfk_bone_normal_matrices_normal (from the bones and the
 * vertex's influences), the tangent and handedness as inverse-transpose's (the blended matrix m). */
SF_HD void sfk_bone_normal_frame(const float* bones, const uint32_t* joints, const float* weights, uint32_t count,
                                 const float m[12], float det, const float mn[3], const float mt[3], float rest_w,
                                 float n_out[3], float t_out[4])
{
    sfk_bone_normal_matrices_normal(bones, joints, weights, count, mn, n_out);
    sfk_skin_direction(m, mt, t_out);
    t_out[3] = sfk_mirror_handedness(rest_w, det);
}

/* ================================================================ recompute (the reference) */

/* Face weightings, numbered as sf_weighting (src/core/rebuild.c checks it). */
#define SFK_WEIGHTING_AREA 0
#define SFK_WEIGHTING_ANGLE 1
#define SFK_WEIGHTING_UNIFORM 2

/* One face of the recompute face pass, from final positions p0 p1 p2, UVs (NULL = none) and the
 * determinants of the corners' blended matrices. face_n = cross(e1, e2); face_t/face_b as sfk_face_frame.
 * A face whose corners mirror on balance (two or three det < 0) is front-facing with clockwise winding
 * (glTF's rule for negative determinants), so face_n is negated to keep pointing outward; tangent and
 * bitangent follow the edges unchanged. Under the angle and uniform weightings face_n is stored as a unit
 * vector (the gather adds unit normal times weight). face_n does not depend on the UVs. Returns |face_n|^2
 * before that normalisation when the face counts, 0 for a collapsed face (|face_n|^2 < 1e-24): the argument
 * of sfk_recompute_corner_weight. */
SF_HD float sfk_recompute_face_frame(const float p0[3], const float p1[3], const float p2[3], const float* uv0,
                                     const float* uv1, const float* uv2, float det0, float det1, float det2,
                                     int weighting, float face_n[3], float face_t[3], float face_b[3])
{
    sfk_face_frame(p0, p1, p2, uv0, uv1, uv2, face_n, face_t, face_b);
    int mirrored = (det0 < 0.0f) + (det1 < 0.0f) + (det2 < 0.0f);
    if (mirrored >= 2) {
        face_n[0] = -face_n[0];
        face_n[1] = -face_n[1];
        face_n[2] = -face_n[2];
    }
    float len2 = sfk_dot(face_n, face_n);
    if (!(len2 >= SF_SAFE_UNIT_EPS2)) return 0.0f;
    if (weighting == SFK_WEIGHTING_UNIFORM || weighting == SFK_WEIGHTING_ANGLE) sfk_safe_unit(face_n, face_n);
    return len2;
}

/* Corner c's weight in the recompute gather (area: |face_n|, twice the area; angle: the corner angle;
 * uniform: 1; 0 for a collapsed face) from len2, sfk_recompute_face_frame's result. */
SF_HD float sfk_recompute_corner_weight(const float p0[3], const float p1[3], const float p2[3], int c,
                                        int weighting, float len2)
{
    if (len2 == 0.0f) return 0.0f;
    if (weighting == SFK_WEIGHTING_UNIFORM) return 1.0f;
    if (weighting == SFK_WEIGHTING_ANGLE) {
        const float* p[3] = {p0, p1, p2};
        return sfk_corner_angle(p[c], p[(c + 1) % 3], p[(c + 2) % 3]);
    }
    return sqrtf(len2);
}

/* One face of the recompute face pass: sfk_recompute_face_frame, and corner_w, each corner's weight. */
SF_HD void sfk_recompute_face(const float p0[3], const float p1[3], const float p2[3], const float* uv0,
                              const float* uv1, const float* uv2, float det0, float det1, float det2, int weighting,
                              float face_n[3], float face_t[3], float face_b[3], float corner_w[3])
{
    float len2 = sfk_recompute_face_frame(p0, p1, p2, uv0, uv1, uv2, det0, det1, det2, weighting, face_n, face_t,
                                          face_b);
    int c;
    for (c = 0; c < 3; ++c) corner_w[c] = sfk_recompute_corner_weight(p0, p1, p2, c, weighting, len2);
}

SF_HD int sfk_finite3(const float v[3])
{
    return fabsf(v[0]) <= FLT_MAX && fabsf(v[1]) <= FLT_MAX && fabsf(v[2]) <= FLT_MAX;
}

/* d scaled down to float by its largest |component|: the same direction (zero stays zero). */
SF_HD void sfk_direction_from_double(const double d[3], float out[3])
{
    double m = 0.0;
    int k;
    for (k = 0; k < 3; ++k) {
        double a = d[k] < 0.0 ? -d[k] : d[k];
        if (a > m) m = a;
    }
    for (k = 0; k < 3; ++k) out[k] = m > 0.0 ? (float)(d[k] / m) : 0.0f;
}

/* One corner's term of sfk_tangent_sums_wide. */
SF_HD void sfk_tangent_term_wide(double t[3], double b[3], const float face_t[3], const float face_b[3], float w)
{
    double dw = (double)w;
    int k;
    for (k = 0; k < 3; ++k) {
        t[k] += (double)face_t[k] * dw;
        b[k] += (double)face_b[k] * dw;
    }
}

/* The gather's tangent and bitangent sums again in double, for a vertex whose float sums overflowed: face
 * areas (~L^2) times UV tangents (~L / det_uv) have no bound a coordinate limit could give. Every term is a
 * product of two finite floats (< 1.2e77) and at most 2^32 of them are added, so the double sums are finite;
 * they come back scaled to float, since only their directions (and B's side) are used. */
SF_HD void sfk_tangent_sums_wide(const float* face_t, const float* face_b, const float* corner_w,
                                 const uint32_t* t_corners, uint32_t t_begin, uint32_t t_end, float T[3], float B[3])
{
    double t[3] = {0.0, 0.0, 0.0}, b[3] = {0.0, 0.0, 0.0};
    uint32_t a;
    for (a = t_begin; a < t_end; ++a) {
        uint32_t corner = t_corners[a];
        uint32_t f = corner / 3u;
        sfk_tangent_term_wide(t, b, face_t + 3u * f, face_b + 3u * f, corner_w[corner]);
    }
    sfk_direction_from_double(t, T);
    sfk_direction_from_double(b, B);
}

/* One vertex of the recompute gather over the face pass's arrays (3 floats per face; corner_w per corner
 * = face * 3 + corner). The normal sums over n_corners[n_begin..n_end) (the vertex's own corners, or its
 * weld group's), face_n times corner_w (times 1 under the area weighting, where face_n is unnormalised);
 * tangent and bitangent over t_corners[t_begin..t_end) (the vertex's own corners: UV seams split them),
 * weighted by corner_w. Then sfk_finish_frame. */
SF_HD void sfk_recompute_vertex(const float* face_n, const float* face_t, const float* face_b, const float* corner_w,
                                const uint32_t* n_corners, uint32_t n_begin, uint32_t n_end,
                                const uint32_t* t_corners, uint32_t t_begin, uint32_t t_end, int weighting,
                                float bitangent_sign, float n_out[3], float t_out[4])
{
    float N[3] = {0.0f, 0.0f, 0.0f}, T[3] = {0.0f, 0.0f, 0.0f}, B[3] = {0.0f, 0.0f, 0.0f};
    uint32_t a;
    if (weighting == SFK_WEIGHTING_AREA) {
        for (a = n_begin; a < n_end; ++a) sfk_madd(N, face_n + 3u * (n_corners[a] / 3u), 1.0f);
    } else {
        for (a = n_begin; a < n_end; ++a) {
            uint32_t corner = n_corners[a];
            sfk_madd(N, face_n + 3u * (corner / 3u), corner_w[corner]);
        }
    }
    for (a = t_begin; a < t_end; ++a) {
        uint32_t corner = t_corners[a];
        uint32_t f = corner / 3u;
        float w = corner_w[corner];
        sfk_madd(T, face_t + 3u * f, w);
        sfk_madd(B, face_b + 3u * f, w);
    }
    if (!(sfk_finite3(T) && sfk_finite3(B)))
        sfk_tangent_sums_wide(face_t, face_b, corner_w, t_corners, t_begin, t_end, T, B);
    sfk_finish_frame(N, T, B, bitangent_sign, n_out, t_out);
}

/* ================================================================ recompute-fused (src/core/fused.c)
 * `recompute` in one per-vertex pass: each vertex deforms the corners of its faces itself, from the rest
 * data and the pose (sfk_deform_position, as the deform does), rebuilds those faces (sfk_recompute_face_frame
 * and sfk_recompute_corner_weight, as the face pass does) and gathers them in the gather's order, so the
 * frames equal `recompute`'s bit for bit with no position or face buffer. */

/* The rest data one vertex's deformation reads (the topology's arrays; device pointers on a GPU). */
typedef struct sfk_rest_mesh {
    const float* positions;        /* 3n rest positions */
    const uint32_t* morph_offsets; /* n + 1: vertex v's morph entries are [morph_offsets[v], morph_offsets[v+1]) */
    const uint32_t* morph_target;  /* entry -> target */
    const float* morph_dp;         /* 3 per entry */
    const uint32_t* joints;        /* influence_count per vertex (NULL when joints16 holds them) */
    const uint16_t* joints16;      /* or 16-bit joints (the GPU's upload), influence_count <= SFK_JOINTS16_MAX */
    const float* weights;          /* influence_count per vertex */
    uint32_t influence_count;
    const uint32_t* indices; /* 3F */
    const float* uvs;        /* 2n or NULL */
} sfk_rest_mesh;

/* Vertex v's final position and its blended matrix's determinant, as sfk_deform_vertex gives them. bones:
 * the pose's matrices (unused without influences); alpha: morph weights (NULL = none). */
#define SFK_JOINTS16_MAX 16u
SF_HD void sfk_fused_position(const sfk_rest_mesh* mesh, const float* bones, const float* alpha, uint32_t v,
                              float final_p[3], float* det)
{
    uint32_t e0 = mesh->morph_offsets[v], K = mesh->influence_count;
    float p[3], m[12];
    uint32_t wide[SFK_JOINTS16_MAX];
    const uint32_t* joints = K ? mesh->joints + K * v : NULL;
    if (K && mesh->joints16) { /* widened for sfk_blend_matrix; the same joints, so the same bits */
        uint32_t k;
        for (k = 0; k < K && k < SFK_JOINTS16_MAX; ++k) wide[k] = mesh->joints16[K * v + k];
        joints = wide;
        if (K > SFK_JOINTS16_MAX) K = SFK_JOINTS16_MAX;
    }
    sfk_deform_position(mesh->positions + 3u * v, mesh->morph_target + e0, mesh->morph_dp + 3u * e0,
                        mesh->morph_offsets[v + 1] - e0, alpha, K ? bones : NULL, joints,
                        K ? mesh->weights + mesh->influence_count * v : NULL, K, p, m, det, final_p);
}

/* Final positions already deformed in one vertex's pass (each face's other corners recur around a fan): a
 * small round-robin table, only a shortcut; a miss deforms again and gives the same bits. */
#ifndef SFK_FUSED_CACHE
#define SFK_FUSED_CACHE 16
#endif
typedef struct sfk_fused_cache {
    uint32_t vertex[SFK_FUSED_CACHE];
    float p[SFK_FUSED_CACHE][3];
    float det[SFK_FUSED_CACHE];
    uint32_t count, next;
} sfk_fused_cache;

/* Vertex v's final position and determinant into p/det, from the cache or deformed (and cached) on a miss.
 * Copied out: a later miss may reuse the slot. */
SF_HD void sfk_fused_lookup(sfk_fused_cache* cache, const sfk_rest_mesh* mesh, const float* bones, const float* alpha,
                            uint32_t v, float p[3], float* det)
{
    uint32_t i;
    for (i = 0; i < cache->count; ++i)
        if (cache->vertex[i] == v) break;
    if (i == cache->count) {
        i = cache->next;
        cache->next = (cache->next + 1u) % (uint32_t)SFK_FUSED_CACHE;
        if (cache->count < (uint32_t)SFK_FUSED_CACHE) cache->count++;
        cache->vertex[i] = v;
        sfk_fused_position(mesh, bones, alpha, v, cache->p[i], &cache->det[i]);
    }
    p[0] = cache->p[i][0];
    p[1] = cache->p[i][1];
    p[2] = cache->p[i][2];
    *det = cache->det[i];
}

/* Face f rebuilt from its corners' final positions: face_n/face_t/face_b as the face pass stores them
 * (the UV part only when uvs), and the weight of corner c. */
SF_HD float sfk_fused_face(sfk_fused_cache* cache, const sfk_rest_mesh* mesh, const float* bones,
                           const float* alpha, uint32_t f, uint32_t c, int uvs, int weighting, float face_n[3],
                           float face_t[3], float face_b[3])
{
    const uint32_t* tri = mesh->indices + 3u * f;
    float p0[3], p1[3], p2[3], d0, d1, d2;
    sfk_fused_lookup(cache, mesh, bones, alpha, tri[0], p0, &d0);
    sfk_fused_lookup(cache, mesh, bones, alpha, tri[1], p1, &d1);
    sfk_fused_lookup(cache, mesh, bones, alpha, tri[2], p2, &d2);
    const float *uv0 = NULL, *uv1 = NULL, *uv2 = NULL;
    if (uvs && mesh->uvs) {
        uv0 = mesh->uvs + 2u * tri[0];
        uv1 = mesh->uvs + 2u * tri[1];
        uv2 = mesh->uvs + 2u * tri[2];
    }
    float len2 = sfk_recompute_face_frame(p0, p1, p2, uv0, uv1, uv2, d0, d1, d2, weighting, face_n, face_t, face_b);
    return sfk_recompute_corner_weight(p0, p1, p2, (int)c, weighting, len2);
}

/* One vertex of recompute-fused: sfk_recompute_vertex's result for vertex v, without the face pass.
 * n_corners[n_begin..n_end): the corners the normal gathers (v's own, adj_corners, or its weld group's,
 * which list each member's corners in adjacency order); v's own corners among them (indices[corner] == v)
 * are its tangent corners, in the same order. tangents 0: the UV tangent is skipped (t_out zero, w 1).
 * Writes v's final position and determinant too (final_p/det may be NULL). */
SF_HD void sfk_recompute_fused_vertex(const sfk_rest_mesh* mesh, const float* bones, const float* alpha, uint32_t v,
                                      const uint32_t* n_corners, uint32_t n_begin, uint32_t n_end, int weighting,
                                      int tangents, float bitangent_sign, float n_out[3], float t_out[4],
                                      float* final_p, float* det)
{
    sfk_fused_cache cache;
    cache.count = cache.next = 0u;
    float self_p[3], self_det;
    sfk_fused_lookup(&cache, mesh, bones, alpha, v, self_p, &self_det);
    if (final_p) {
        final_p[0] = self_p[0];
        final_p[1] = self_p[1];
        final_p[2] = self_p[2];
    }
    if (det) *det = self_det;
    float N[3] = {0.0f, 0.0f, 0.0f}, T[3] = {0.0f, 0.0f, 0.0f}, B[3] = {0.0f, 0.0f, 0.0f};
    float fn[3], ft[3], fb[3];
    uint32_t a;
    for (a = n_begin; a < n_end; ++a) {
        uint32_t corner = n_corners[a];
        int own = tangents && mesh->indices[corner] == v;
        float w = sfk_fused_face(&cache, mesh, bones, alpha, corner / 3u, corner % 3u, own, weighting, fn, ft, fb);
        sfk_madd(N, fn, weighting == SFK_WEIGHTING_AREA ? 1.0f : w);
        if (own) {
            sfk_madd(T, ft, w);
            sfk_madd(B, fb, w);
        }
    }
    if (!(sfk_finite3(T) && sfk_finite3(B))) { /* as sfk_tangent_sums_wide, the faces rebuilt again */
        double tw[3] = {0.0, 0.0, 0.0}, bw[3] = {0.0, 0.0, 0.0};
        for (a = n_begin; a < n_end; ++a) {
            uint32_t corner = n_corners[a];
            if (mesh->indices[corner] != v) continue;
            float w = sfk_fused_face(&cache, mesh, bones, alpha, corner / 3u, corner % 3u, 1, weighting, fn, ft, fb);
            sfk_tangent_term_wide(tw, bw, ft, fb, w);
        }
        sfk_direction_from_double(tw, T);
        sfk_direction_from_double(bw, B);
    }
    sfk_finish_frame(N, T, B, bitangent_sign, n_out, t_out);
}

/* ================================================================ authored reference (src/core/authored.c) */

/* R v for the frame rotation (n0, t0) -> (n1, t1); all unit, t orthogonal to n. */
SF_HD void sfk_frame_rotate(const float n0[3], const float t0[3], const float n1[3], const float t1[3],
                            const float v[3], float out[3])
{
    float b0[3], b1[3];
    sfk_cross(n0, t0, b0);
    sfk_cross(n1, t1, b1);
    float a = sfk_dot(n0, v), b = sfk_dot(t0, v), c = sfk_dot(b0, v);
    int k;
    for (k = 0; k < 3; ++k) out[k] = n1[k] * a + t1[k] * b + b1[k] * c;
}

/* R v for the shortest-arc rotation taking unit a to unit b (Rodrigues); half turn about an axis
 * perpendicular to a when they are opposite. */
SF_HD void sfk_arc_rotate(const float a[3], const float b[3], const float v[3], float out[3])
{
    float k[3], c = sfk_dot(a, b);
    int i;
    sfk_cross(a, b, k);
    if (c > -0.9999f) {
        float kv[3];
        sfk_cross(k, v, kv);
        float s = sfk_dot(k, v) / (1.0f + c);
        for (i = 0; i < 3; ++i) out[i] = v[i] * c + kv[i] + k[i] * s;
        return;
    }
    /* axis: a crossed with the coordinate axis it is least aligned with */
    float e[3] = {0.0f, 0.0f, 0.0f};
    int m = fabsf(a[0]) < fabsf(a[1]) ? (fabsf(a[0]) < fabsf(a[2]) ? 0 : 2) : (fabsf(a[1]) < fabsf(a[2]) ? 1 : 2);
    e[m] = 1.0f;
    float axis[3];
    sfk_cross(a, e, axis);
    sfk_safe_unit(axis, axis);
    float d = 2.0f * sfk_dot(axis, v); /* half turn: v -> 2 (u.v) u - v */
    for (i = 0; i < 3; ++i) out[i] = axis[i] * d - v[i];
}

/* Makes t unit and orthogonal to unit n; returns 0 (t zero) when that is impossible. */
SF_HD int sfk_orthonormal_tangent(const float n[3], float t[3])
{
    float d = sfk_dot(n, t);
    float o[3] = {t[0] - n[0] * d, t[1] - n[1] * d, t[2] - n[2] * d};
    return sfk_safe_unit(o, t);
}

/* One vertex of the authored reference: the authored rest normal an and tangent at (xyz, w) carried by
 * the rotation from the rebuilt rest frame (n0, t0) to the rebuilt posed frame (n1, t1) (see
 * src/core/authored.c for the rules). Edge stand-in for the tangent: from rest_p to rest_q at rest and
 * pose_p to pose_q posed (the vertex and the next vertex of its first corner); rest_q NULL when the
 * vertex is in no triangle. has_uvs: the mesh has a tangent frame (else the tangent output is zero). */
SF_HD void sfk_authored_vertex(const float n0[3], const float t0[4], const float n1[3], const float t1[4],
                               const float an[3], const float at[4], int has_uvs, const float* rest_p,
                               const float* rest_q, const float* pose_p, const float* pose_q, float n_out[3],
                               float t_out[4])
{
    float n[3] = {0.0f, 0.0f, 0.0f}, t[4] = {0.0f, 0.0f, 0.0f, at[3]};
    int posed = sfk_dot(n1, n1) > 0.0f, rest = sfk_dot(n0, n0) > 0.0f;
    int frame = has_uvs && sfk_dot(t0, t0) > 0.0f && sfk_dot(t1, t1) > 0.0f;
    float e0[3] = {0.0f, 0.0f, 0.0f}, e1[3] = {0.0f, 0.0f, 0.0f};
    int edges = 0;
    if (!frame && rest && posed && rest_q) {
        sfk_sub(rest_q, rest_p, e0);
        if (sfk_orthonormal_tangent(n0, e0)) {
            sfk_sub(pose_q, pose_p, e1);
            edges = sfk_orthonormal_tangent(n1, e1);
        }
    }
    int k;
    if (posed && !rest) {
        /* nothing to rotate from: the rebuilt posed frame */
        for (k = 0; k < 3; ++k) n[k] = n1[k];
        for (k = 0; k < 4; ++k) t[k] = t1[k];
    } else if (posed) {
        float un[3], ut[3] = {at[0], at[1], at[2]};
        sfk_safe_unit(an, un);
        if (frame) {
            float b0[3], b1[3], ft0[3], ft1[3];
            /* re-orthonormalise the rebuilt tangents (MikkTSpace's are orthogonal only to rounding) */
            sfk_cross(n0, t0, b0);
            sfk_cross(n1, t1, b1);
            sfk_safe_unit(b0, b0);
            sfk_safe_unit(b1, b1);
            sfk_cross(b0, n0, ft0);
            sfk_cross(b1, n1, ft1);
            sfk_frame_rotate(n0, ft0, n1, ft1, un, n);
            sfk_frame_rotate(n0, ft0, n1, ft1, ut, t);
            if (t0[3] != t1[3]) t[3] = -t[3]; /* rebuilt handedness flipped: mirrored */
        } else if (edges) {
            sfk_frame_rotate(n0, e0, n1, e1, un, n);
            sfk_frame_rotate(n0, e0, n1, e1, ut, t);
        } else {
            sfk_arc_rotate(n0, n1, un, n);
            sfk_arc_rotate(n0, n1, ut, t);
        }
        sfk_safe_unit(n, n);
        if (has_uvs) {
            if (!sfk_orthonormal_tangent(n, t)) t[0] = t[1] = t[2] = 0.0f;
        } else {
            t[0] = t[1] = t[2] = 0.0f;
        }
    }
    for (k = 0; k < 3; ++k) n_out[k] = n[k];
    for (k = 0; k < 4; ++k) t_out[k] = t[k];
}

/* ================================================================ MikkTSpace (src/core/mikktspace.c)
 * The per-triangle and per-corner arithmetic; the shared-vertex numbering, neighbours and groups (graph
 * building) stay in mikktspace.c. */

#define SFK_MIKK_ORIENT 1u /* signed UV area > 0 */
#define SFK_MIKK_ANY 2u    /* group with any: no usable UV tangent */
#define SFK_MIKK_DEGEN 4u  /* two corners at one position */

/* MikkTSpace's "not zero": larger in magnitude than the smallest normal float. */
SF_HD int sfk_mikk_not_zero(float x) { return fabsf(x) > FLT_MIN; }

SF_HD int sfk_same3(const float a[3], const float b[3]) { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2]; }

/* Normalises v unless every component is (MikkTSpace's) zero, in which case v is kept. Where v.v underflows
 * (components near FLT_MIN: 1 / sqrt would be infinite) or overflows, v is first divided by its largest
 * component; otherwise the result is MikkTSpace's bit for bit. */
SF_HD void sfk_mikk_normalize(float v[3])
{
    if (!(sfk_mikk_not_zero(v[0]) || sfk_mikk_not_zero(v[1]) || sfk_mikk_not_zero(v[2]))) return;
    float len2 = sfk_dot(v, v);
    if (!(len2 >= FLT_MIN && len2 <= FLT_MAX)) {
        float m = sfk_max_abs3(v);
        v[0] /= m;
        v[1] /= m;
        v[2] /= m;
        len2 = sfk_dot(v, v);
    }
    float inv = 1.0f / sqrtf(len2);
    v[0] *= inv;
    v[1] *= inv;
    v[2] *= inv;
}

/* v - n (n . v), normalised as sfk_mikk_normalize. */
SF_HD void sfk_mikk_project(const float n[3], const float v[3], float out[3])
{
    float d = sfk_dot(n, v);
    out[0] = v[0] - n[0] * d;
    out[1] = v[1] - n[1] * d;
    out[2] = v[2] - n[2] * d;
    sfk_mikk_normalize(out);
}

/* Twice the signed UV area of the triangle (MikkTSpace's orientation test); t21, t31 the UV edges. */
SF_HD float sfk_mikk_uv_area2(const float uv1[2], const float uv2[2], const float uv3[2], float t21[2], float t31[2])
{
    t21[0] = uv2[0] - uv1[0];
    t21[1] = uv2[1] - uv1[1];
    t31[0] = uv3[0] - uv1[0];
    t31[1] = uv3[1] - uv1[1];
    return t21[0] * t31[1] - t21[1] * t31[0];
}

/* The static flags of a triangle from its UV area: orientation, and group-with-any for a zero area. */
SF_HD uint32_t sfk_mikk_uv_flags(float area2)
{
    return (area2 > 0.0f ? SFK_MIKK_ORIENT : 0u) | (sfk_mikk_not_zero(area2) ? 0u : SFK_MIKK_ANY);
}

/* One triangle of a frame: positions p1 p2 p3, UVs, and its static uv_flags. Writes the oriented unit
 * os = dP/du and ot = dP/dv (zero where unusable) and returns this frame's flags: uv_flags | DEGEN for two
 * corners at one position, | ANY when the UV area or either magnitude is (MikkTSpace's) zero. */
SF_HD uint32_t sfk_mikk_triangle(const float p1[3], const float p2[3], const float p3[3], const float uv1[2],
                                 const float uv2[2], const float uv3[2], uint32_t uv_flags, float os[3], float ot[3])
{
    os[0] = os[1] = os[2] = ot[0] = ot[1] = ot[2] = 0.0f;
    if (sfk_same3(p1, p2) || sfk_same3(p1, p3) || sfk_same3(p2, p3)) return uv_flags | SFK_MIKK_DEGEN;
    float t21[2], t31[2], area = sfk_mikk_uv_area2(uv1, uv2, uv3, t21, t31);
    if (!sfk_mikk_not_zero(area)) return uv_flags | SFK_MIKK_ANY;
    float d1[3], d2[3], vos[3], vot[3];
    sfk_sub(p2, p1, d1);
    sfk_sub(p3, p1, d2);
    int k;
    for (k = 0; k < 3; ++k) {
        vos[k] = t31[1] * d1[k] - t21[1] * d2[k];
        vot[k] = -t31[0] * d1[k] + t21[0] * d2[k];
    }
    float sign = (uv_flags & SFK_MIKK_ORIENT) ? 1.0f : -1.0f, abs_area = fabsf(area);
    float len_os = sfk_length(vos), len_ot = sfk_length(vot);
    if (sfk_mikk_not_zero(len_os))
        for (k = 0; k < 3; ++k) os[k] = sign / len_os * vos[k];
    if (sfk_mikk_not_zero(len_ot))
        for (k = 0; k < 3; ++k) ot[k] = sign / len_ot * vot[k];
    if (sfk_mikk_not_zero(len_os / abs_area) && sfk_mikk_not_zero(len_ot / abs_area)) return uv_flags;
    return uv_flags | SFK_MIKK_ANY;
}

/* MikkTSpace's default angular threshold for sub-groups: cos(180 deg). */
#define SFK_MIKK_THRESHOLD_COS (-1.0f)

/* Whether two group triangles' projected tangents (os xyz, ot xyz) share a sub-group: neither pair opposite. */
SF_HD int sfk_mikk_compatible(const float proj_a[6], const float proj_b[6])
{
    return sfk_dot(proj_a, proj_b) > SFK_MIKK_THRESHOLD_COS && sfk_dot(proj_a + 3, proj_b + 3) > SFK_MIKK_THRESHOLD_COS;
}

/* acc += os times the angle between the projected edges v1 and v2 (the end of sfk_mikk_corner_term). */
SF_HD void sfk_mikk_angle_term(const float os[3], const float v1[3], const float v2[3], float acc[3])
{
    float cosv = sfk_dot(v1, v2);
    cosv = cosv > 1.0f ? 1.0f : (cosv < -1.0f ? -1.0f : cosv);
    sfk_madd(acc, os, acosf(cosv));
}

/* One corner's term of a group tangent: the face's os projected onto the corner normal n, times the corner
 * angle measured in the tangent plane (p the corner, p_prev and p_next its neighbours in winding order). */
SF_HD void sfk_mikk_corner_term(const float n[3], const float face_os[3], const float p_prev[3], const float p[3],
                                const float p_next[3], float acc[3])
{
    float os[3], v1[3], v2[3], e1[3], e2[3];
    sfk_mikk_project(n, face_os, os);
    sfk_sub(p_prev, p, e1);
    sfk_sub(p_next, p, e2);
    sfk_mikk_project(n, e1, v1);
    sfk_mikk_project(n, e2, v2);
    sfk_mikk_angle_term(os, v1, v2, acc);
}

/* A vertex's handedness from MikkTSpace's own sign (v up): the mesh's uv convention, then mirroring. */
SF_HD float sfk_mikk_vertex_w(float mikk_w, float bitangent_sign, float det)
{
    return sfk_mirror_handedness(mikk_w * bitangent_sign, det);
}

/* ================================================================ jacobian (docs/methods.md)
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
    float s;
    if (lc2 <= FLT_MAX && lim * lim <= FLT_MAX) {
        if (!(lc2 > lim * lim)) return 0;
        s = lim / sqrtf(lc2);
    } else { /* squares beyond float: compare the lengths */
        float lc = sfk_length(c);
        if (!(lc > lim)) return 0;
        s = lim / lc;
    }
    c[0] *= s;
    c[1] *= s;
    c[2] *= s;
    return 1;
}

/* J u and J v are scaled down past this (2^60): cross products stay below 2^121 and J t0 (|t0| <= 1.8e9 by
 * SF_MAX_COORD) below 2^92. */
#define SFK_JACOBIAN_SCALE_ABOVE 1.152921504606846976e18f

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
            float duv[6];
            sfk_load_pairs(morph_duv + 6 * i, 6, duv);
            sfk_madd(mu, duv, a);
            sfk_madd(mv, duv + 3, a);
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
            float M[12];
            sfk_bone_load(bones, j, M);
            sfk_mat_point(M, x, pj);
        }
        sfk_sub(pj, P, pj);
        float g[2];
        sfk_load_pairs(slot_guv + 2 * i, 2, g);
        sfk_madd(cu, pj, g[0]);
        sfk_madd(cv, pj, g[1]);
    }
    int capped = sfk_jacobian_cap(cu, ju, cap);
    capped |= sfk_jacobian_cap(cv, jv, cap);
    sfk_madd(ju, cu, 1.0f);
    sfk_madd(jv, cv, 1.0f);
    /* Only the directions of J u and J v are used (the normal, and the tangent from them): both are
     * divided by their largest component where J u x J v or J t0 could overflow. A sliver's weight gradient
     * reaches |e| / 1e-12 (docs/magnitudes.md), so J u can reach ~4e37 within the input bounds. */
    float big = sfk_max_abs3(ju) > sfk_max_abs3(jv) ? sfk_max_abs3(ju) : sfk_max_abs3(jv);
    if (big > SFK_JACOBIAN_SCALE_ABOVE) {
        float s = 1.0f / big;
        for (i = 0; i < 3; ++i) {
            ju[i] *= s;
            jv[i] *= s;
        }
    }
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

/* ================================================================ jacobian-fan (docs/methods.md)
 * A per-vertex map J from the rest plane of the vertex's fan (its weld group's faces) to the posed surface:
 * the average of its fan faces' exact (secant) maps, weighted by their areas flattened into that plane,
 *   J u = B u' + sum_j [ (A_j x + t_j - P) g_j.u + (A_j - B) (K_j,uu u' + K_j,uv v') ],
 *   u' = u + sum_k alpha_k D_k u   (likewise v),
 * in the basis (u, v) of the rest fan normal. Each vertex stores, per weight slot j, 6 floats (g.u, g.v,
 * K_uu, K_uv, K_vu, K_vv) and per morph target k 6 floats (D_k u, D_k v); the normal and tangent come from
 * rotating the authored rest frame by the rotation that takes the fan's rest frame to J's. */

/* Floats per weight slot of jacobian-fan: g.u, g.v, K_uu, K_uv, K_vu, K_vv (see sfk_jacobian_fan_face_terms). */
#define SFK_JACOBIAN_FAN_SLOT_FLOATS 6u

/* One fan face's part of a vertex's J, from its two spokes flattened into the vertex's (u, v) plane: ab1, ab2
 * the (u, v) coordinates of (corner - vertex) for the face's next and previous corner. The face's exact map
 * takes ab_c to the posed spoke E_c, so J_f = [E1 E2] [ab1 ab2]^-1; weighted by the flattened area |d|
 * (d = ab1 x ab2), |d| J_f u = gu[0] E1 + gu[1] E2 and |d| J_f v = gv[0] E1 + gv[1] E2. Returns |d| (0 when
 * the flattened face is degenerate, gu = gv = 0). A field with values f_c - f_vertex = df_c then adds
 *   g.u += gu . df, g.v += gv . df  (its gradient), and for a weight, whose posed spoke gains
 *   df_c A_j (ab_c u' + ...) (the secant term), K_uu += sum_c gu_c df_c ab_c.u, K_uv += sum_c gu_c df_c ab_c.v,
 *   K_vu, K_vv likewise with gv; every sum is divided by the fan's total |d| at the end. */
SF_HD float sfk_jacobian_fan_face_terms(const float ab1[2], const float ab2[2], float gu[2], float gv[2])
{
    float d = ab1[0] * ab2[1] - ab1[1] * ab2[0];
    if (!(fabsf(d) > 0.0f)) {
        gu[0] = gu[1] = gv[0] = gv[1] = 0.0f;
        return 0.0f;
    }
    float s = d > 0.0f ? 1.0f : -1.0f;
    gu[0] = s * ab2[1];
    gu[1] = -s * ab1[1];
    gv[0] = -s * ab2[0];
    gv[1] = s * ab1[0];
    return fabsf(d);
}

/* One vertex of the jacobian-fan method.
 *   bones: 12 floats per bone (the pose; may be NULL when slot_count is 0); blend: the vertex's blended
 *   matrix B and det its determinant; x: morphed rest position; P = B x + t_B, the final position;
 *   n0: authored rest normal (any length; zero = no frame, zero outputs); t0: authored rest tangent xyz + w;
 *   nf: the rest fan normal the coefficients were built in (any length; zero = no frame).
 *   slots: slot_count joints (or SFK_REST_JOINT) with SFK_JACOBIAN_FAN_SLOT_FLOATS coefficients each.
 *   morph: morph_count targets with (D u, D v) of the delta gradient, 6 floats each; alpha: morph weights.
 *   cap: Tarini-style cap on |correction| / |B u'| (0 = off).
 * Writes a unit normal (zero when degenerate) and a unit tangent with handedness; returns 1 when the cap
 * fired. The posed fan frame is (unit(sign(det) J u x J v), J t orthogonalised), t the authored tangent in
 * the fan plane (u where it has none); the output is the authored (n0, t0) rotated by the rotation taking
 * (nf, t) to it, as the authored reference rotates by the rebuilt frames. Mirroring (det < 0) follows the
 * recompute convention: the normal stays outward, w flips. */
SF_HD int sfk_jacobian_fan_vertex(const float* bones, const float blend[12], float det, const float x[3],
                                  const float P[3], const float n0[3], const float t0[4], const float nf[3],
                                  const uint32_t* slot_joint, const float* slot_coef, uint32_t slot_count,
                                  const uint32_t* morph_target, const float* morph_duv, uint32_t morph_count,
                                  const float* alpha, float cap, float n_out[3], float t_out[4])
{
    float u[3], v[3], na[3];
    t_out[3] = sfk_mirror_handedness(t0[3], det);
    if (!sfk_safe_unit(n0, na) || !sfk_rest_basis(nf, u, v)) {
        n_out[0] = n_out[1] = n_out[2] = 0.0f;
        t_out[0] = t_out[1] = t_out[2] = 0.0f;
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
    /* Weight terms, relative to P and to B u', B v': the gradients and the secant coefficients of all slots
     * sum to zero where weights sum to one, so subtracting changes nothing mathematically, but large bone
     * translations do not cancel in float and a rigid pose (every A_j = B) adds exactly nothing. The secant
     * terms (A_j - B)(K u' ...) carry the change of the blended matrix along the fan's edges. */
    float cu[3] = {0.0f, 0.0f, 0.0f}, cv[3] = {0.0f, 0.0f, 0.0f};
    for (i = 0; i < slot_count; ++i) {
        uint32_t j = slot_joint[i];
        /* 4-byte loads: paired (sfk_load_pairs) the six took 95 registers on the GPU and 15 % longer */
        const float* c = slot_coef + SFK_JACOBIAN_FAN_SLOT_FLOATS * i;
        float pj[3], au[3], av[3];
        if (j == SFK_REST_JOINT) {
            int k;
            for (k = 0; k < 3; ++k) {
                pj[k] = x[k];
                au[k] = mu[k];
                av[k] = mv[k];
            }
        } else {
            float M[12];
            sfk_bone_load(bones, j, M);
            sfk_mat_point(M, x, pj);
            sfk_mat_dir(M, mu, au);
            sfk_mat_dir(M, mv, av);
        }
        sfk_sub(pj, P, pj);
        sfk_sub(au, ju, au);
        sfk_sub(av, jv, av);
        sfk_madd(cu, pj, c[0]);
        sfk_madd(cv, pj, c[1]);
        sfk_madd(cu, au, c[2]);
        sfk_madd(cu, av, c[3]);
        sfk_madd(cv, au, c[4]);
        sfk_madd(cv, av, c[5]);
    }
    int capped = sfk_jacobian_cap(cu, ju, cap);
    capped |= sfk_jacobian_cap(cv, jv, cap);
    sfk_madd(ju, cu, 1.0f);
    sfk_madd(jv, cv, 1.0f);
    /* Only the directions of J u and J v are used: both are divided by their largest component where
     * J u x J v or J t could overflow. A sliver's weight gradient reaches |e| / 1e-12 (docs/magnitudes.md),
     * so J u can reach ~4e37 within the input bounds. */
    float big = sfk_max_abs3(ju) > sfk_max_abs3(jv) ? sfk_max_abs3(ju) : sfk_max_abs3(jv);
    if (big > SFK_JACOBIAN_SCALE_ABOVE) {
        float s = 1.0f / big;
        for (i = 0; i < 3; ++i) {
            ju[i] *= s;
            jv[i] *= s;
        }
    }
    if (ju[0] == u[0] && ju[1] == u[1] && ju[2] == u[2] && jv[0] == v[0] && jv[1] == v[1] && jv[2] == v[2]) {
        /* The fan plane does not move (the rest pose, or a translation): the authored frame exactly. */
        sfk_safe_unit(n0, n_out);
        sfk_safe_unit(t0, t_out);
        return capped;
    }
    float N[3], n1[3];
    sfk_cross(ju, jv, N);
    if (det < 0.0f) {
        N[0] = -N[0];
        N[1] = -N[1];
        N[2] = -N[2];
    }
    if (!sfk_safe_unit(N, n1)) {
        n_out[0] = n_out[1] = n_out[2] = 0.0f;
        sfk_skin_direction(blend, t0, t_out);
        return capped;
    }
    /* The fan's rest frame (nf, tr) and its posed frame (n1, J tr orthogonalised); tr is the authored tangent
     * in the fan plane, or u where there is none (no UVs, or a tangent along the normal). */
    float nr[3], tr[3] = {t0[0], t0[1], t0[2]};
    sfk_cross(u, v, nr);
    if (!sfk_orthonormal_tangent(nr, tr)) {
        tr[0] = u[0];
        tr[1] = u[1];
        tr[2] = u[2];
    }
    float tu = sfk_dot(tr, u), tv = sfk_dot(tr, v);
    float t1[3] = {ju[0] * tu + jv[0] * tv, ju[1] * tu + jv[1] * tv, ju[2] * tu + jv[2] * tv};
    float n[3], t[3];
    if (sfk_orthonormal_tangent(n1, t1)) {
        sfk_frame_rotate(nr, tr, n1, t1, na, n);
        sfk_frame_rotate(nr, tr, n1, t1, t0, t);
    } else { /* J squashes the tangent: the shortest arc from the rest to the posed normal */
        sfk_arc_rotate(nr, n1, na, n);
        sfk_arc_rotate(nr, n1, t0, t);
    }
    sfk_safe_unit(n, n_out);
    if (!sfk_orthonormal_tangent(n_out, t)) {
        /* t0 has no part off the normal (a placeholder along it, such as MikkTSpace's default on zero-area
         * UVs): carry it as `skinned` does instead of returning zero. */
        sfk_skin_direction(blend, t0, t);
    }
    t_out[0] = t[0];
    t_out[1] = t[1];
    t_out[2] = t[2];
    return capped;
}

/* ================================================================ error metrics (src/core/error.c, stats.c) */

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
 * as SafeUnit sees it (|v|^2 < 1e-24). */
SF_HD double sfk_angle_deg(const float a[3], const float b[3])
{
    double la = (double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2];
    double lb = (double)b[0] * b[0] + (double)b[1] * b[1] + (double)b[2] * b[2];
    if (!(la >= 1e-24) || !(lb >= 1e-24)) return 180.0;
    double d = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
    double cx = (double)a[1] * b[2] - (double)a[2] * b[1];
    double cy = (double)a[2] * b[0] - (double)a[0] * b[2];
    double cz = (double)a[0] * b[1] - (double)a[1] * b[0];
    return sfk_atan2_nonneg(sqrt(cx * cx + cy * cy + cz * cz), d) * 57.29577951308232;
}

/* Zero as sfk_angle_deg sees it: the vertex is flagged degenerate. */
SF_HD int sfk_degenerate3(const float v[3])
{
    return !((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2] >= 1e-24);
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
    /* exact: a power-of-two scale */
    uint32_t k = (uint32_t)(((double)a - SFK_ANGLE_LINEAR_START) * (1 << SFK_ANGLE_LINEAR_BITS));
    return SFK_ANGLE_LINEAR_FIRST + (k < SFK_ANGLE_LINEAR_BINS ? k : SFK_ANGLE_LINEAR_BINS - 1u); /* 180: the last */
}

#endif /* SF_KERNELS_H */

/* recompute (the reference): the face pass and the per-vertex gather (src/core/rebuild.c). */
#ifndef SFK_RECOMPUTE_H
#define SFK_RECOMPUTE_H

#include "sfk_vec.h"

/* The UV-only part of a face's tangent frame, fixed for a topology: terms = du1, dv1, du2, dv2 (uv1 - uv0,
 * uv2 - uv0) and 1/det, det = du1 dv2 - du2 dv1; 1/det is NaN when |det| <= 1e-12 (no usable tangent; 1/det of
 * a usable det is never NaN). Returns 1 when the determinant is usable. */
SF_HD int sfk_face_uv_terms(const float uv0[2], const float uv1[2], const float uv2[2], float terms[5])
{
    float du1 = uv1[0] - uv0[0], dv1 = uv1[1] - uv0[1];
    float du2 = uv2[0] - uv0[0], dv2 = uv2[1] - uv0[1];
    float det = du1 * dv2 - du2 * dv1;
    terms[0] = du1, terms[1] = dv1, terms[2] = du2, terms[3] = dv2;
    int ok = fabsf(det) > SF_UV_DET_EPS;
    terms[4] = ok ? 1.0f / det : NAN;
    return ok;
}

/* sfk_face_frame from sfk_face_uv_terms' terms (NULL: no UVs): the same operations, the same bits. */
SF_HD int sfk_face_frame_terms(const float p0[3], const float p1[3], const float p2[3], const float* terms,
                               float face_n[3], float t_out[3], float b_out[3])
{
    float e1[3], e2[3];
    sfk_sub(p1, p0, e1);
    sfk_sub(p2, p0, e2);
    sfk_cross(e1, e2, face_n);
    t_out[0] = t_out[1] = t_out[2] = 0.0f;
    b_out[0] = b_out[1] = b_out[2] = 0.0f;
    if (!terms || terms[4] != terms[4]) return 0;
    float du1 = terms[0], dv1 = terms[1], du2 = terms[2], dv2 = terms[3], inv = terms[4];
    int k;
    for (k = 0; k < 3; ++k) {
        t_out[k] = (e1[k] * dv2 - e2[k] * dv1) * inv;
        b_out[k] = (e2[k] * du1 - e1[k] * du2) * inv;
    }
    return 1;
}

/* One face's contributions to the recompute gather (the article's section 5), from final positions
 * p0 p1 p2 and UVs. weight_mode: 0 area, 1 angle (per corner, see sfk_corner_angle), 2 uniform.
 * face_n: cross(e1, e2) (unnormalised; length = twice the area); t_out/b_out: the UV tangent and
 * bitangent ((e1 uv2.y - e2 uv1.y)/det, (e2 uv1.x - e1 uv2.x)/det), zero when |det| <= 1e-12.
 * Returns 1 when the UV determinant is usable. */
SF_HD int sfk_face_frame(const float p0[3], const float p1[3], const float p2[3], const float* uv0, const float* uv1,
                         const float* uv2, float face_n[3], float t_out[3], float b_out[3])
{
    float terms[5];
    if (uv0) sfk_face_uv_terms(uv0, uv1, uv2, terms);
    return sfk_face_frame_terms(p0, p1, p2, uv0 ? terms : NULL, face_n, t_out, b_out);
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
SF_HD float sfk_recompute_face_frame_terms(const float p0[3], const float p1[3], const float p2[3],
                                           const float* terms, float det0, float det1, float det2, int weighting,
                                           float face_n[3], float face_t[3], float face_b[3])
{
    sfk_face_frame_terms(p0, p1, p2, terms, face_n, face_t, face_b);
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

SF_HD float sfk_recompute_face_frame(const float p0[3], const float p1[3], const float p2[3], const float* uv0,
                                     const float* uv1, const float* uv2, float det0, float det1, float det2,
                                     int weighting, float face_n[3], float face_t[3], float face_b[3])
{
    float terms[5];
    if (uv0) sfk_face_uv_terms(uv0, uv1, uv2, terms);
    return sfk_recompute_face_frame_terms(p0, p1, p2, uv0 ? terms : NULL, det0, det1, det2, weighting, face_n,
                                          face_t, face_b);
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

/* One face of the recompute face pass from the face's sfk_face_uv_terms (NULL: no UVs), computed once per
 * topology: sfk_recompute_face_frame_terms, and corner_w, each corner's weight. */
SF_HD void sfk_recompute_face_terms(const float p0[3], const float p1[3], const float p2[3], const float* terms,
                                    float det0, float det1, float det2, int weighting, float face_n[3],
                                    float face_t[3], float face_b[3], float corner_w[3])
{
    float len2 = sfk_recompute_face_frame_terms(p0, p1, p2, terms, det0, det1, det2, weighting, face_n, face_t,
                                                face_b);
    int c;
    for (c = 0; c < 3; ++c) corner_w[c] = sfk_recompute_corner_weight(p0, p1, p2, c, weighting, len2);
}

/* The same from the UVs (NULL = none): their terms, then sfk_recompute_face_terms. */
SF_HD void sfk_recompute_face(const float p0[3], const float p1[3], const float p2[3], const float* uv0,
                              const float* uv1, const float* uv2, float det0, float det1, float det2, int weighting,
                              float face_n[3], float face_t[3], float face_b[3], float corner_w[3])
{
    float terms[5];
    if (uv0) sfk_face_uv_terms(uv0, uv1, uv2, terms);
    sfk_recompute_face_terms(p0, p1, p2, uv0 ? terms : NULL, det0, det1, det2, weighting, face_n, face_t, face_b,
                             corner_w);
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

#endif /* SFK_RECOMPUTE_H */

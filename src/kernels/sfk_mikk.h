/* MikkTSpace (src/core/mikktspace.c)
 * The per-triangle and per-corner arithmetic; the shared-vertex numbering, neighbours and groups (graph
 * building) stay in mikktspace.c. */
#ifndef SFK_MIKK_H
#define SFK_MIKK_H

#include "sfk_acos.h"
#include "sfk_methods.h"

#include <string.h>

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

/* The angle between the projected edges v1 and v2: acos of their dot product, clamped to [-1, 1]. */
SF_HD float sfk_mikk_angle(const float v1[3], const float v2[3])
{
    float cosv = sfk_dot(v1, v2);
    cosv = cosv > 1.0f ? 1.0f : (cosv < -1.0f ? -1.0f : cosv);
    return sfk_acos_ieee(cosv);
}

/* acc += os times the angle between the projected edges v1 and v2 (sfk_mikk_corner_term's sum). */
SF_HD void sfk_mikk_angle_term(const float os[3], const float v1[3], const float v2[3], float acc[3])
{
    sfk_madd(acc, os, sfk_mikk_angle(v1, v2));
}

/* One corner's term of a group tangent into term: the face's os projected onto the corner normal n, times the
 * corner angle measured in the tangent plane (p the corner, p_prev and p_next its neighbours in winding order). */
SF_HD void sfk_mikk_corner_product(const float n[3], const float face_os[3], const float p_prev[3], const float p[3],
                                   const float p_next[3], float term[3])
{
    float os[3], v1[3], v2[3], e1[3], e2[3];
    sfk_mikk_project(n, face_os, os);
    sfk_sub(p_prev, p, e1);
    sfk_sub(p_next, p, e2);
    sfk_mikk_project(n, e1, v1);
    sfk_mikk_project(n, e2, v2);
    float a = sfk_mikk_angle(v1, v2);
    term[0] = os[0] * a;
    term[1] = os[1] * a;
    term[2] = os[2] * a;
}

/* acc += the corner's term (sfk_mikk_corner_product): sfk_madd's product and sum, one rounding each. */
SF_HD void sfk_mikk_corner_term(const float n[3], const float face_os[3], const float p_prev[3], const float p[3],
                                const float p_next[3], float acc[3])
{
    float t[3];
    sfk_mikk_corner_product(n, face_os, p_prev, p, p_next, t);
    acc[0] += t[0];
    acc[1] += t[1];
    acc[2] += t[2];
}

/* Whether two float triples hold the same bits. */
SF_HD int sfk_same_bits3(const float a[3], const float b[3])
{
    uint32_t x[3], y[3];
    memcpy(x, a, sizeof x);
    memcpy(y, b, sizeof y);
    return x[0] == y[0] && x[1] == y[1] && x[2] == y[2];
}

/* Step 6 of MikkTSpace (src/core/mikktspace.c), over one group found by the graph building: its k corners
 * (3 f + c, ascending by triangle) at one shared vertex whose normal is n, the frame's triangle flags, unit
 * dP/du (face_os) and dP/dv (face_ot), indices, positions P and normals N. */

/* The angle-weighted tangent of a sub-group (members: indices into the group's corners, ascending; NULL: all
 * count corners). proj: the group's projected os, ot per corner. Each corner's term projects onto the corner's
 * own normal: where its bits are n's, the group's projections serve (sfk_mikk_corner_term's operations,
 * shared). terms: where not NULL, each corner's sfk_mikk_corner_product computed beforehand (3 per corner),
 * added in the same order, so the sum has the same bits; idx, P and N are then unused. */
SF_HD void sfk_mikk_eval_tangent(const uint8_t* flags, const uint32_t* idx, const float* P, const float* N,
                                 const float* face_os, const uint32_t* corners, const uint32_t* members, size_t count,
                                 const float* n, const float* proj, const float* terms, float out[3])
{
    out[0] = out[1] = out[2] = 0.0f;
    if (terms) {
        for (size_t i = 0; i < count; ++i) {
            size_t corner = corners[members ? members[i] : i];
            if (flags[corner / 3] & SFK_MIKK_ANY) continue;
            const float* a = terms + 3 * corner;
            out[0] += a[0];
            out[1] += a[1];
            out[2] += a[2];
        }
        sfk_mikk_normalize(out);
        return;
    }
    for (size_t i = 0; i < count; ++i) {
        size_t m = members ? members[i] : i, corner = corners[m], f = corner / 3, c = corner % 3;
        if (flags[f] & SFK_MIKK_ANY) continue;
        uint32_t vp = idx[3 * f + (c + 2) % 3], v = idx[corner], vn = idx[3 * f + (c + 1) % 3];
        const float* nc = N + 3 * (size_t)v;
        if (nc == n || sfk_same_bits3(nc, n)) {
            float e1[3], e2[3], v1[3], v2[3];
            sfk_sub(P + 3 * (size_t)vp, P + 3 * (size_t)v, e1);
            sfk_sub(P + 3 * (size_t)vn, P + 3 * (size_t)v, e2);
            sfk_mikk_project(n, e1, v1);
            sfk_mikk_project(n, e2, v2);
            sfk_mikk_angle_term(proj + 6 * m, v1, v2, out);
        } else {
            sfk_mikk_corner_term(nc, face_os + 3 * f, P + 3 * (size_t)vp, P + 3 * (size_t)v, P + 3 * (size_t)vn, out);
        }
    }
    sfk_mikk_normalize(out);
}

/* Whether every two corners of a group share a sub-group (then it is the whole group, the usual case).
 * First a sufficient test in one pass: the projections are unit vectors (or, where MikkTSpace's normalising
 * keeps them, smaller than FLT_MIN in every component); when each is within 83 degrees of the first usable
 * corner's (dot >= 0.125), any two are within 167 degrees, so their dot product is above -0.97 and
 * sfk_mikk_compatible holds (NaN fails the test). Else every pair (the test is symmetric). */
SF_HD int sfk_mikk_all_compatible(const uint8_t* flags, const uint32_t* corners, const float* proj, size_t k)
{
    size_t r = 0;
    while (r < k && (flags[corners[r] / 3] & SFK_MIKK_ANY)) ++r;
    if (r == k) return 1;
    const float *ro = proj + 6 * r, *rt = ro + 3;
    int quick = sfk_dot(ro, ro) >= 0.5f && sfk_dot(rt, rt) >= 0.5f;
    for (size_t i = r + 1; i < k && quick; ++i) {
        if (flags[corners[i] / 3] & SFK_MIKK_ANY) continue;
        const float *o = proj + 6 * i, *t = o + 3;
        quick = (sfk_dot(o, o) < 0.5f || sfk_dot(o, ro) >= 0.125f) && (sfk_dot(t, t) < 0.5f || sfk_dot(t, rt) >= 0.125f);
    }
    if (quick) return 1;
    for (size_t i = 0; i < k; ++i) {
        uint8_t fi = flags[corners[i] / 3];
        for (size_t j = i + 1; j < k; ++j)
            if (!((fi | flags[corners[j] / 3]) & SFK_MIKK_ANY) && !sfk_mikk_compatible(proj + 6 * i, proj + 6 * j))
                return 0;
    }
    return 1;
}

/* Tangents of every corner of one group into out (4 per corner, indexed by corner: xyz, w = +1 for an
 * orientation-preserving group, -1 otherwise): the sub-group rule, with the whole group computed once.
 * members (k) and proj (6 k) are scratch; terms: NULL, or the frame's corner terms (sfk_mikk_eval_tangent). */
SF_HD void sfk_mikk_group_tangents(const uint8_t* flags, const uint32_t* idx, const float* P, const float* N,
                                   const float* face_os, const float* face_ot, const uint32_t* corners, size_t k,
                                   const float* n, int orient, uint32_t* members, float* proj, const float* terms,
                                   float* out)
{
    for (size_t i = 0; i < k; ++i) {
        size_t f = corners[i] / 3;
        sfk_mikk_project(n, face_os + 3 * f, proj + 6 * i);
        sfk_mikk_project(n, face_ot + 3 * f, proj + 6 * i + 3);
    }
    float w = orient ? 1.0f : -1.0f;
    int whole_only = sfk_mikk_all_compatible(flags, corners, proj, k);
    float whole[3] = {0.0f, 0.0f, 0.0f};
    int have_whole = 0;
    for (size_t i = 0; i < k; ++i) {
        size_t count = 0;
        if (whole_only) {
            count = k;
        } else {
            uint8_t fi = flags[corners[i] / 3];
            for (size_t j = 0; j < k; ++j) {
                int any = ((fi | flags[corners[j] / 3]) & SFK_MIKK_ANY) != 0;
                if (any || i == j || sfk_mikk_compatible(proj + 6 * i, proj + 6 * j)) members[count++] = (uint32_t)j;
            }
        }
        float t[3];
        if (count == k) {
            if (!have_whole) sfk_mikk_eval_tangent(flags, idx, P, N, face_os, corners, NULL, k, n, proj, terms, whole);
            have_whole = 1;
            t[0] = whole[0], t[1] = whole[1], t[2] = whole[2];
        } else {
            sfk_mikk_eval_tangent(flags, idx, P, N, face_os, corners, members, count, n, proj, terms, t);
        }
        float* o = out + 4 * (size_t)corners[i];
        o[0] = t[0], o[1] = t[1], o[2] = t[2], o[3] = w;
    }
}

/* A vertex's handedness from MikkTSpace's own sign (v up): the mesh's uv convention, then mirroring. */
SF_HD float sfk_mikk_vertex_w(float mikk_w, float bitangent_sign, float det)
{
    return sfk_mirror_handedness(mikk_w * bitangent_sign, det);
}

#endif /* SFK_MIKK_H */

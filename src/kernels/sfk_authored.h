/* authored reference (src/core/authored.c) */
#ifndef SFK_AUTHORED_H
#define SFK_AUTHORED_H

#include "sfk_vec.h"

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

#endif /* SFK_AUTHORED_H */

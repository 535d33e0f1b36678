/* jacobian (docs/methods.md)
 * J = B (I + sum_k alpha_k grad d_k) + sum_j (A_j x + t_j) grad(w_j)^T, applied to the rest tangent
 * plane only: gradients are stored as (g.u, g.v) in the basis of sfk_tangent_basis(rest normal). */
#ifndef SFK_JACOBIAN_H
#define SFK_JACOBIAN_H

#include "sfk_methods.h"

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

#endif /* SFK_JACOBIAN_H */

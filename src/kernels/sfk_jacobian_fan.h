/* jacobian-fan (docs/methods.md)
 * A per-vertex map J from the rest plane of the vertex's fan (its weld group's faces) to the posed surface:
 * the average of its fan faces' exact (secant) maps, weighted by their areas flattened into that plane,
 *   J u = B u' + sum_j [ (A_j x + t_j - P) g_j.u + (A_j - B) (K_j,uu u' + K_j,uv v') ],
 *   u' = u + sum_k alpha_k D_k u   (likewise v),
 * in the basis (u, v) of the rest fan normal. Each vertex stores, per weight slot j, 6 floats (g.u, g.v,
 * K_uu, K_uv, K_vu, K_vv) and per morph target k 6 floats (D_k u, D_k v); the normal and tangent come from
 * rotating the authored rest frame by the rotation that takes the fan's rest frame to J's. */
#ifndef SFK_JACOBIAN_FAN_H
#define SFK_JACOBIAN_FAN_H

#include "sfk_authored.h"
#include "sfk_jacobian.h"

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

#endif /* SFK_JACOBIAN_FAN_H */

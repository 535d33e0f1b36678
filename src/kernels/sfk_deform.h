/* The deformation: morph, blend the bone matrices, skin the position (src/core/deform.c, cuda/, shaders/). */
#ifndef SFK_DEFORM_H
#define SFK_DEFORM_H

#include "sfk_vec.h"

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

#endif /* SFK_DEFORM_H */

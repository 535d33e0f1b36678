/* The per-vertex methods that need no neighbours: unchanged, skinned, inverse-transpose and
 * bone-normal-matrices (src/core/frames.c). */
#ifndef SFK_METHODS_H
#define SFK_METHODS_H

#include "sfk_vec.h"

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

/* One vertex of unchanged / skinned / inverse-transpose (docs/design.md section 2) from its blended matrix m,
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

#endif /* SFK_METHODS_H */

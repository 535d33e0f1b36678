// Checks that the public header and the shared kernels compile as C++ and link.
#include "skinframe.h"
#include "skinframe_eval.h"
#include "skinframe_files.h"
#include "skinframe_gltf.h"
#include "skinframe_render.h"
#include "skinframe_scenes.h"
#include "sf_kernels.h"

int main()
{
    float n[3] = {0.0f, 3.0f, 4.0f}, u[3];
    sfk_safe_unit(n, u);
    // Each family of kernels once, so C++ compiles their bodies: per-vertex methods, recompute face and
    // gather, the authored rotation, MikkTSpace's triangle and corner math.
    const float m[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    const float p0[3] = {0, 0, 0}, p1[3] = {1, 0, 0}, p2[3] = {0, 0, -1}, uv0[2] = {0, 0}, uv1[2] = {1, 0},
                uv2[2] = {0, 1}, t0[4] = {1, 0, 0, 1};
    float vn[3], vt[4], fn[3], ft[3], fb[3], w[3], an[3], at[4], os[3], ot[3], acc[3] = {0, 0, 0};
    sfk_vertex_frame(SFK_METHOD_SKINNED, m, 1.0f, n, t0, 1.0f, vn, vt);
    sfk_recompute_face(p0, p1, p2, uv0, uv1, uv2, 1.0f, 1.0f, 1.0f, SFK_WEIGHTING_ANGLE, fn, ft, fb, w);
    const uint32_t corners[1] = {0};
    sfk_recompute_vertex(fn, ft, fb, w, corners, 0, 1, corners, 0, 1, SFK_WEIGHTING_ANGLE, 1.0f, vn, vt);
    sfk_authored_vertex(vn, vt, vn, vt, u, t0, 1, p0, p1, p0, p1, an, at);
    const uint32_t flags = sfk_mikk_triangle(p0, p1, p2, uv0, uv1, uv2, sfk_mikk_uv_flags(1.0f), os, ot);
    sfk_mikk_corner_term(vn, os, p2, p0, p1, acc);
    const bool ok = sf_result_string(SF_OK)[0] == 'o' && u[2] > 0.79f && u[2] < 0.81f &&
                    sf_method_name(SF_METHOD_RECOMPUTE)[0] == 'r' && vn[1] == 1.0f && vt[0] == 1.0f &&
                    vt[3] == 1.0f && an[2] > 0.79f && flags == SFK_MIKK_ORIENT && acc[0] > 1.5f;
    return ok ? 0 : 1;
}

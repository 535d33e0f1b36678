// jacobian-fan from the embedded attributes (docs/embedded.md), as a function for a VERTEX shader: no bindings of
// its own, no neighbour data. Include it after common.glsl, with
//   SF_FAN_GROUPS           the slot groups the mesh's attributes carry (default 4, the most)
//   mat4x3 sf_fan_bone(uint j)  bone j's matrix (columns A's three, then t; inverse bind included)
// defined before. Written from src/kernels/sfk_jacobian_fan.h (sfk_jacobian_fan_vertex, cap off), as
// shaders/jacobian_fan.comp is; fan_embedded.vert runs it, generated/fan_embedded.hlsl is its HLSL.
#ifndef SF_FAN_GROUPS
#define SF_FAN_GROUPS 4
#endif
const uint SF_FAN_REST_JOINT = 65535u;

// x: morphed rest position; P: final position (B x + t_B); a0 a1 a2: the blended matrix's columns, det its
// determinant; n0, t0: the authored rest NORMAL and TANGENT; fan_normal: _SKINFRAME_FAN_NORMAL; du, dv: the
// morph of _SKINFRAME_FAN_DU / _DV (sum of alpha_k D_k u, D_k v); joints: _SKINFRAME_FAN_JOINTS_g; coef: the
// coefficient vectors _SKINFRAME_FAN_(6g + c), already times their scales. Writes the unit normal and tangent
// (zero where the frame is degenerate), w flipped under mirroring.
void sf_fan_frame(vec3 x, vec3 P, vec3 a0, vec3 a1, vec3 a2, float det, vec3 n0, vec4 t0, vec3 fan_normal,
                  vec3 du, vec3 dv, uvec4 joints[SF_FAN_GROUPS], vec4 coef[6 * SF_FAN_GROUPS], out vec3 n_out,
                  out vec4 t_out)
{
    float w = det < 0.0 ? -t0.w : t0.w;
    vec3 na = safe_unit(n0);
    vec3 nf = safe_unit(fan_normal);
    vec3 n = vec3(0.0), t = vec3(0.0);
    if (nonzero(na) && nonzero(nf)) {
        vec3 u, vv;
        tangent_basis(nf, u, vv);
        precise vec3 mu = u + du, mv = vv + dv;
        precise vec3 ju = a0 * mu.x + a1 * mu.y + a2 * mu.z;
        precise vec3 jv = a0 * mv.x + a1 * mv.y + a2 * mv.z;
        // the slots' terms relative to P, B u', B v' (they sum to zero where the weights sum to one)
        precise vec3 cu = vec3(0.0), cv = vec3(0.0);
        for (int g = 0; g < SF_FAN_GROUPS; ++g) {
            for (int i = 0; i < 4; ++i) {
                uint j = joints[g][i];
                precise vec3 pj = x, au = mu, av = mv;
                if (j != SF_FAN_REST_JOINT) {
                    mat4x3 b = sf_fan_bone(j);
                    pj = b[0] * x.x + b[1] * x.y + b[2] * x.z + b[3];
                    au = b[0] * mu.x + b[1] * mu.y + b[2] * mu.z;
                    av = b[0] * mv.x + b[1] * mv.y + b[2] * mv.z;
                }
                pj -= P;
                au -= ju;
                av -= jv;
                cu += pj * coef[6 * g][i];
                cv += pj * coef[6 * g + 1][i];
                cu += au * coef[6 * g + 2][i];
                cu += av * coef[6 * g + 3][i];
                cv += au * coef[6 * g + 4][i];
                cv += av * coef[6 * g + 5][i];
            }
        }
        ju += cu;
        jv += cv;
        vec3 t0n = t0.xyz;
        if (ju == u && jv == vv) {
            // the fan plane does not move (the rest pose, a translation): the authored frame exactly
            n = na;
            t = safe_unit(t0n);
        } else {
            precise vec3 N = cross(ju, jv);
            if (det < 0.0) N = -N;
            vec3 n1 = safe_unit(N);
            if (!nonzero(n1)) {
                t = safe_unit(a0 * t0n.x + a1 * t0n.y + a2 * t0n.z);
            } else {
                // the fan's rest frame (nr, tr) and its posed frame (n1, J tr orthogonalised)
                vec3 nr = cross(u, vv);
                vec3 tr = orthonormal(nr, t0n);
                if (!nonzero(tr)) tr = u;
                vec3 t1 = orthonormal(n1, ju * dot(tr, u) + jv * dot(tr, vv));
                if (nonzero(t1)) {
                    n = frame_rotate(nr, tr, n1, t1, na);
                    t = frame_rotate(nr, tr, n1, t1, t0n);
                } else {
                    n = arc_rotate(nr, n1, na);
                    t = arc_rotate(nr, n1, t0n);
                }
                n = safe_unit(n);
                t = orthonormal(n, t);
                if (!nonzero(t)) t = safe_unit(a0 * t0n.x + a1 * t0n.y + a2 * t0n.z);
            }
        }
    }
    n_out = n;
    t_out = vec4(t, w);
}

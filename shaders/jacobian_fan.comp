#version 450
#extension GL_GOOGLE_include_directive : require
// The jacobian-fan method (the recommended per-vertex method, docs/methods.md), one thread per vertex, after
// deform.comp, over the fan data (fan_slot_* with 6 coefficients per slot g.u, g.v, K_uu, K_uv, K_vu, K_vv;
// fan_morph_*; fan_normal). fan_slot_* and fan_morph_* are bound at 20..25, where jacobian.comp reads grad_* (one
// descriptor layout of 27 bindings for every pass). Written from src/kernels/sf_kernels.h:
// sfk_jacobian_fan_vertex, sfk_rest_basis, sfk_tangent_basis, sfk_jacobian_cap, sfk_frame_rotate,
// sfk_arc_rotate, sfk_orthonormal_tangent (without the scaling of huge J u, J v: inputs within SF_MAX_COORD and
// ordinary scales do not reach it). The rest-pose test (J u == u exactly) needs J's products unfused (precise).
#include "generated/layout.glsl"
layout(local_size_x = SF_PASS_WORKGROUP) in;
SF_BUFFER_rest_normals(readonly);
SF_BUFFER_rest_tangents(readonly);
SF_BUFFER_bones(readonly);
SF_BUFFER_morph_weights(readonly);
SF_BUFFER_state(readonly);
SF_BUFFER_normals(writeonly);
SF_BUFFER_tangents(writeonly);
SF_BUFFER_fan_slot_offsets(readonly);
SF_BUFFER_fan_slot_joint(readonly);
SF_BUFFER_fan_slot_coef(readonly);
SF_BUFFER_fan_morph_offsets(readonly);
SF_BUFFER_fan_morph_target(readonly);
SF_BUFFER_fan_morph_duv(readonly);
SF_BUFFER_fan_normal(readonly);
#include "common.glsl"

vec3 state3(uint o) { return vec3(state[o], state[o + 1u], state[o + 2u]); }
vec3 bone_col(uint j, uint c) { return vec3(bones[SF_BONE_FLOATS * j + 3u * c], bones[SF_BONE_FLOATS * j + 3u * c + 1u], bones[SF_BONE_FLOATS * j + 3u * c + 2u]); }

void main()
{
    uint v = gl_GlobalInvocationID.x;
    if (v >= P.vertex_count) return;
    uint o = SF_GPU_STATE_STRIDE * v;
    vec3 Pf = state3(o + SF_STATE_POSITION);
    float det = state[o + SF_STATE_DET];
    vec3 x = state3(o + SF_STATE_MORPHED_POSITION);
    vec3 a0 = state3(o + SF_STATE_BLEND), a1 = state3(o + SF_STATE_BLEND + 3u), a2 = state3(o + SF_STATE_BLEND + 6u);
    vec4 t0 = vec4(rest_tangents[4u * v], rest_tangents[4u * v + 1u], rest_tangents[4u * v + 2u], rest_tangents[4u * v + 3u]);
    float w = det < 0.0 ? -t0.w : t0.w;
    vec3 na = safe_unit(vec3(rest_normals[3u * v], rest_normals[3u * v + 1u], rest_normals[3u * v + 2u]));
    vec3 nf = safe_unit(vec3(fan_normal[3u * v], fan_normal[3u * v + 1u], fan_normal[3u * v + 2u]));
    vec3 n = vec3(0.0), t = vec3(0.0);
    if (nonzero(na) && nonzero(nf)) {
        vec3 u, vv;
        tangent_basis(nf, u, vv);
        precise vec3 mu = u, mv = vv;
        for (uint e = fan_morph_offsets[v]; e < fan_morph_offsets[v + 1u]; ++e) {
            float al = morph_weights[fan_morph_target[e]];
            if (al == 0.0) continue;
            mu += vec3(fan_morph_duv[6u * e], fan_morph_duv[6u * e + 1u], fan_morph_duv[6u * e + 2u]) * al;
            mv += vec3(fan_morph_duv[6u * e + 3u], fan_morph_duv[6u * e + 4u], fan_morph_duv[6u * e + 5u]) * al;
        }
        precise vec3 ju = a0 * mu.x + a1 * mu.y + a2 * mu.z;
        precise vec3 jv = a0 * mv.x + a1 * mv.y + a2 * mv.z;
        // weight terms relative to P and to B u', B v' (they sum to zero where the weights sum to one)
        precise vec3 cu = vec3(0.0), cv = vec3(0.0);
        for (uint k = fan_slot_offsets[v]; k < fan_slot_offsets[v + 1u]; ++k) {
            uint j = fan_slot_joint[k];
            uint c = 6u * k;
            precise vec3 pj = x, au = mu, av = mv;
            if (j != SF_REST_JOINT) {
                vec3 b0 = bone_col(j, 0u), b1 = bone_col(j, 1u), b2 = bone_col(j, 2u);
                pj = b0 * x.x + b1 * x.y + b2 * x.z + bone_col(j, 3u);
                au = b0 * mu.x + b1 * mu.y + b2 * mu.z;
                av = b0 * mv.x + b1 * mv.y + b2 * mv.z;
            }
            pj -= Pf;
            au -= ju;
            av -= jv;
            cu += pj * fan_slot_coef[c];
            cv += pj * fan_slot_coef[c + 1u];
            cu += au * fan_slot_coef[c + 2u];
            cu += av * fan_slot_coef[c + 3u];
            cv += au * fan_slot_coef[c + 4u];
            cv += av * fan_slot_coef[c + 5u];
        }
        ju += capped(cu, ju, P.jacobian_cap);
        jv += capped(cv, jv, P.jacobian_cap);
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
    if (P.has_uv == 0u) t = vec3(0.0);
    normals[3u * v] = n.x; normals[3u * v + 1u] = n.y; normals[3u * v + 2u] = n.z;
    tangents[4u * v] = t.x; tangents[4u * v + 1u] = t.y; tangents[4u * v + 2u] = t.z; tangents[4u * v + 3u] = w;
}

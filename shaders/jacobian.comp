#version 450
#extension GL_GOOGLE_include_directive : require
// The jacobian method, one thread per vertex, after deform.comp, over the precomputed gradients (grad_slot_* and
// grad_morph_*, bound at 20..25). Written from src/kernels/sf_kernels.h: sfk_jacobian_vertex, sfk_rest_basis,
// sfk_tangent_basis, sfk_jacobian_cap.
#include "generated/layout.glsl"
layout(local_size_x = SF_PASS_WORKGROUP) in;
SF_BUFFER_rest_normals(readonly);
SF_BUFFER_rest_tangents(readonly);
SF_BUFFER_bones(readonly);
SF_BUFFER_morph_weights(readonly);
SF_BUFFER_state(readonly);
SF_BUFFER_normals(writeonly);
SF_BUFFER_tangents(writeonly);
SF_BUFFER_grad_slot_offsets(readonly);
SF_BUFFER_grad_slot_joint(readonly);
SF_BUFFER_grad_slot_guv(readonly);
SF_BUFFER_grad_morph_offsets(readonly);
SF_BUFFER_grad_morph_target(readonly);
SF_BUFFER_grad_morph_duv(readonly);
#include "common.glsl"

vec3 state3(uint o) { return vec3(state[o], state[o + 1u], state[o + 2u]); }

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
    vec3 n0 = safe_unit(vec3(rest_normals[3u * v], rest_normals[3u * v + 1u], rest_normals[3u * v + 2u]));
    vec3 nrm = vec3(0.0), tan = vec3(0.0);
    if (nonzero(n0)) {
        vec3 u, vv;
        tangent_basis(n0, u, vv);
        vec3 mu = u, mv = vv;
        for (uint e = grad_morph_offsets[v]; e < grad_morph_offsets[v + 1u]; ++e) {
            float al = morph_weights[grad_morph_target[e]];
            if (al == 0.0) continue;
            mu += al * vec3(grad_morph_duv[6u * e], grad_morph_duv[6u * e + 1u], grad_morph_duv[6u * e + 2u]);
            mv += al * vec3(grad_morph_duv[6u * e + 3u], grad_morph_duv[6u * e + 4u], grad_morph_duv[6u * e + 5u]);
        }
        precise vec3 ju = a0 * mu.x + a1 * mu.y + a2 * mu.z;
        precise vec3 jv = a0 * mv.x + a1 * mv.y + a2 * mv.z;
        precise vec3 cu = vec3(0.0), cv = vec3(0.0);
        for (uint k = grad_slot_offsets[v]; k < grad_slot_offsets[v + 1u]; ++k) {
            uint j = grad_slot_joint[k];
            vec3 pj = x;
            if (j != SF_REST_JOINT) {
                uint bb = SF_BONE_FLOATS * j;
                pj = vec3(bones[bb], bones[bb + 1u], bones[bb + 2u]) * x.x +
                     vec3(bones[bb + 3u], bones[bb + 4u], bones[bb + 5u]) * x.y +
                     vec3(bones[bb + 6u], bones[bb + 7u], bones[bb + 8u]) * x.z +
                     vec3(bones[bb + 9u], bones[bb + 10u], bones[bb + 11u]);
            }
            pj -= Pf;
            cu += pj * grad_slot_guv[2u * k];
            cv += pj * grad_slot_guv[2u * k + 1u];
        }
        ju += capped(cu, ju, P.jacobian_cap);
        jv += capped(cv, jv, P.jacobian_cap);
        precise vec3 N = cross(ju, jv);
        if (det < 0.0) N = -N;
        nrm = safe_unit(N);
        float tu = dot(t0.xyz, u), tv = dot(t0.xyz, vv);
        vec3 T = ju * tu + jv * tv;
        tan = orthonormal(nrm, T);
        if (!nonzero(tan)) tan = safe_unit(a0 * t0.x + a1 * t0.y + a2 * t0.z);
    }
    if (P.has_uv == 0u) tan = vec3(0.0);
    normals[3u * v] = nrm.x; normals[3u * v + 1u] = nrm.y; normals[3u * v + 2u] = nrm.z;
    tangents[4u * v] = tan.x; tangents[4u * v + 1u] = tan.y; tangents[4u * v + 2u] = tan.z; tangents[4u * v + 3u] = w;
}

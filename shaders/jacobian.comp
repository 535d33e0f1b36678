#version 450
// The jacobian method, one thread per vertex, after deform.comp, over the precomputed gradients in the layout
// sf_topology_gpu_buffers gives (src/core/gpu_layout.c: grad_slot_* and grad_morph_*; follow it when it changes).
// Written from src/kernels/sf_kernels.h: sfk_jacobian_vertex, sfk_rest_basis, sfk_tangent_basis, sfk_jacobian_cap.
// `precise` (SPIR-V NoContraction) keeps the compiler from fusing multiply-adds here: the C library rounds
// each product, and a vertex whose face normals nearly cancel would amplify the difference.
layout(local_size_x = 64) in;
layout(push_constant) uniform Params {
    uint vertex_count, influences, morph_dirs, method;
    uint face_count, weighting, has_uv, pad;
    float bitangent_sign, jacobian_cap, pad1, pad2;
} P;
layout(std430, binding = 1) readonly buffer RestN { float rest_n[]; };
layout(std430, binding = 2) readonly buffer RestT { float rest_t[]; };
layout(std430, binding = 10) readonly buffer Bones { float bones[]; };
layout(std430, binding = 11) readonly buffer MorphWeights { float morph_weights[]; };
layout(std430, binding = 12) readonly buffer State { float state[]; };
layout(std430, binding = 13) writeonly buffer Normals { float normals[]; };
layout(std430, binding = 14) writeonly buffer Tangents { float tangents[]; };
layout(std430, binding = 20) readonly buffer SlotOffsets { uint slot_offsets[]; };
layout(std430, binding = 21) readonly buffer SlotJoint { uint slot_joint[]; };
layout(std430, binding = 22) readonly buffer SlotGuv { float slot_guv[]; };
layout(std430, binding = 23) readonly buffer GMorphOffsets { uint gmorph_offsets[]; };
layout(std430, binding = 24) readonly buffer GMorphTarget { uint gmorph_target[]; };
layout(std430, binding = 25) readonly buffer GMorphDuv { float gmorph_duv[]; };

const uint REST_JOINT = 0xFFFFFFFFu;

vec3 safe_unit(vec3 v)
{
    float len2 = dot(v, v);
    if (!(len2 >= 1e-24)) return vec3(0.0);
    return v * (1.0 / sqrt(len2));
}

// Limits c to cap |base| (Tarini et al.); cap 0 = off.
vec3 capped(vec3 c, vec3 base, float cap)
{
    if (!(cap > 0.0)) return c;
    float lim = cap * length(base), lc = length(c);
    return lc > lim ? c * (lim / lc) : c;
}

void main()
{
    uint v = gl_GlobalInvocationID.x;
    if (v >= P.vertex_count) return;
    uint o = 32u * v;
    vec3 Pf = vec3(state[o], state[o + 1u], state[o + 2u]);
    float det = state[o + 3u];
    vec3 x = vec3(state[o + 4u], state[o + 5u], state[o + 6u]);
    vec3 a0 = vec3(state[o + 13u], state[o + 14u], state[o + 15u]);
    vec3 a1 = vec3(state[o + 16u], state[o + 17u], state[o + 18u]);
    vec3 a2 = vec3(state[o + 19u], state[o + 20u], state[o + 21u]);
    vec4 t0 = vec4(rest_t[4u * v], rest_t[4u * v + 1u], rest_t[4u * v + 2u], rest_t[4u * v + 3u]);
    float w = det < 0.0 ? -t0.w : t0.w;
    vec3 n0 = safe_unit(vec3(rest_n[3u * v], rest_n[3u * v + 1u], rest_n[3u * v + 2u]));
    vec3 nrm = vec3(0.0), tan = vec3(0.0);
    if (dot(n0, n0) > 0.0) {
        // (u, v) with u x v = n0 (Duff et al. 2017), as sfk_tangent_basis.
        float s = n0.z >= 0.0 ? 1.0 : -1.0;
        float a = -1.0 / (s + n0.z);
        float b = n0.x * n0.y * a;
        vec3 u = vec3(1.0 + s * n0.x * n0.x * a, s * b, -s * n0.x);
        vec3 vv = vec3(b, s + n0.y * n0.y * a, -n0.y);
        vec3 mu = u, mv = vv;
        for (uint e = gmorph_offsets[v]; e < gmorph_offsets[v + 1u]; ++e) {
            float al = morph_weights[gmorph_target[e]];
            if (al == 0.0) continue;
            mu += al * vec3(gmorph_duv[6u * e], gmorph_duv[6u * e + 1u], gmorph_duv[6u * e + 2u]);
            mv += al * vec3(gmorph_duv[6u * e + 3u], gmorph_duv[6u * e + 4u], gmorph_duv[6u * e + 5u]);
        }
        precise vec3 ju = a0 * mu.x + a1 * mu.y + a2 * mu.z;
        precise vec3 jv = a0 * mv.x + a1 * mv.y + a2 * mv.z;
        precise vec3 cu = vec3(0.0), cv = vec3(0.0);
        for (uint k = slot_offsets[v]; k < slot_offsets[v + 1u]; ++k) {
            uint j = slot_joint[k];
            vec3 pj = x;
            if (j != REST_JOINT) {
                uint bb = 12u * j;
                pj = vec3(bones[bb], bones[bb + 1u], bones[bb + 2u]) * x.x +
                     vec3(bones[bb + 3u], bones[bb + 4u], bones[bb + 5u]) * x.y +
                     vec3(bones[bb + 6u], bones[bb + 7u], bones[bb + 8u]) * x.z +
                     vec3(bones[bb + 9u], bones[bb + 10u], bones[bb + 11u]);
            }
            pj -= Pf;
            cu += pj * slot_guv[2u * k];
            cv += pj * slot_guv[2u * k + 1u];
        }
        ju += capped(cu, ju, P.jacobian_cap);
        jv += capped(cv, jv, P.jacobian_cap);
        precise vec3 N = cross(ju, jv);
        if (det < 0.0) N = -N;
        nrm = safe_unit(N);
        float tu = dot(t0.xyz, u), tv = dot(t0.xyz, vv);
        vec3 T = ju * tu + jv * tv;
        tan = safe_unit(T - nrm * dot(nrm, T));
        if (dot(tan, tan) == 0.0) tan = safe_unit(a0 * t0.x + a1 * t0.y + a2 * t0.z);
    }
    if (P.has_uv == 0u) tan = vec3(0.0);
    normals[3u * v] = nrm.x; normals[3u * v + 1u] = nrm.y; normals[3u * v + 2u] = nrm.z;
    tangents[4u * v] = tan.x; tangents[4u * v + 1u] = tan.y; tangents[4u * v + 2u] = tan.z; tangents[4u * v + 3u] = w;
}

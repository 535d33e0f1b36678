#version 450
// Deformation, one thread per vertex: morph (position deltas, and the normal/tangent deltas by morph_dirs), blend
// the bone matrices, skin the position. Written from src/kernels/sf_kernels.h: sfk_deform_vertex,
// sfk_blend_matrix, sfk_mat_det, sfk_mat_point. Buffers as `skinframe export-gpu` writes them (shaders/README.md).
// state: 32 floats per vertex, read by the other passes:
//   [0..2] final position  [3] det(blend)  [4..6] morphed rest position  [7..9] morphed normal (not normalised)
//   [10..12] morphed tangent xyz  [13..24] blended matrix (12, column-major 3x4)
// `precise` (SPIR-V NoContraction): no fused multiply-adds, each product rounded as the C library rounds it, so
// the positions the recompute passes build faces from match it to the last bit on slivers too.
layout(local_size_x = 64) in;
layout(push_constant) uniform Params {
    uint vertex_count, influences, morph_dirs, method; // morph_dirs: 0 none, 1 normals and tangents, 2 normals
    uint face_count, weighting, has_uv, pad;
    float bitangent_sign, jacobian_cap, pad1, pad2;
} P;
layout(std430, binding = 0) readonly buffer RestP { float rest_p[]; };
layout(std430, binding = 1) readonly buffer RestN { float rest_n[]; };
layout(std430, binding = 2) readonly buffer RestT { float rest_t[]; };
layout(std430, binding = 3) readonly buffer Joints { uint joints[]; };
layout(std430, binding = 4) readonly buffer Weights { float weights[]; };
layout(std430, binding = 5) readonly buffer MorphOffsets { uint morph_offsets[]; };
layout(std430, binding = 6) readonly buffer MorphTarget { uint morph_target[]; };
layout(std430, binding = 7) readonly buffer MorphDp { float morph_dp[]; };
layout(std430, binding = 8) readonly buffer MorphDn { float morph_dn[]; };
layout(std430, binding = 9) readonly buffer MorphDt { float morph_dt[]; };
layout(std430, binding = 10) readonly buffer Bones { float bones[]; };
layout(std430, binding = 11) readonly buffer MorphWeights { float morph_weights[]; };
layout(std430, binding = 12) writeonly buffer State { float state[]; };

vec3 load3(uint i, uint which)
{
    if (which == 0u) return vec3(rest_p[3u * i], rest_p[3u * i + 1u], rest_p[3u * i + 2u]);
    if (which == 1u) return vec3(rest_n[3u * i], rest_n[3u * i + 1u], rest_n[3u * i + 2u]);
    return vec3(rest_t[4u * i], rest_t[4u * i + 1u], rest_t[4u * i + 2u]);
}

void main()
{
    uint v = gl_GlobalInvocationID.x;
    if (v >= P.vertex_count) return;
    precise vec3 p = load3(v, 0u), n = load3(v, 1u), t = load3(v, 2u);
    for (uint e = morph_offsets[v]; e < morph_offsets[v + 1u]; ++e) {
        float a = morph_weights[morph_target[e]];
        if (a == 0.0) continue;
        p += a * vec3(morph_dp[3u * e], morph_dp[3u * e + 1u], morph_dp[3u * e + 2u]);
        if (P.morph_dirs != 0u) n += a * vec3(morph_dn[3u * e], morph_dn[3u * e + 1u], morph_dn[3u * e + 2u]);
        if (P.morph_dirs == 1u) t += a * vec3(morph_dt[3u * e], morph_dt[3u * e + 1u], morph_dt[3u * e + 2u]);
    }
    precise float m[12];
    for (uint c = 0u; c < 12u; ++c) m[c] = 0.0;
    float total = 0.0;
    for (uint i = 0u; i < P.influences; ++i) {
        float w = weights[P.influences * v + i];
        if (w == 0.0) continue;
        uint b = 12u * joints[P.influences * v + i];
        for (uint c = 0u; c < 12u; ++c) m[c] += w * bones[b + c];
        total += w;
    }
    if (total == 0.0) { m[0] = 1.0; m[4] = 1.0; m[8] = 1.0; }
    vec3 a0 = vec3(m[0], m[1], m[2]), a1 = vec3(m[3], m[4], m[5]), a2 = vec3(m[6], m[7], m[8]);
    precise vec3 q = a0 * p.x + a1 * p.y + a2 * p.z + vec3(m[9], m[10], m[11]);
    uint o = 32u * v;
    state[o] = q.x; state[o + 1u] = q.y; state[o + 2u] = q.z;
    state[o + 3u] = dot(a0, cross(a1, a2));
    state[o + 4u] = p.x; state[o + 5u] = p.y; state[o + 6u] = p.z;
    state[o + 7u] = n.x; state[o + 8u] = n.y; state[o + 9u] = n.z;
    state[o + 10u] = t.x; state[o + 11u] = t.y; state[o + 12u] = t.z;
    for (uint c = 0u; c < 12u; ++c) state[o + 13u + c] = m[c];
}

// Deformation, one thread per vertex (the HLSL twin of deform.comp; the same bindings and state layout): morph,
// blend the bone matrices, skin the position. From src/kernels/sf_kernels.h: sfk_deform_vertex, sfk_blend_matrix.
// `precise`: no fused multiply-adds, as the C library rounds (see deform.comp).
#include "params.hlsli"
[[vk::binding(0)]] StructuredBuffer<float> rest_p : register(t0);
[[vk::binding(1)]] StructuredBuffer<float> rest_n : register(t1);
[[vk::binding(2)]] StructuredBuffer<float> rest_t : register(t2);
[[vk::binding(3)]] StructuredBuffer<uint> joints : register(t3);
[[vk::binding(4)]] StructuredBuffer<float> weights : register(t4);
[[vk::binding(5)]] StructuredBuffer<uint> morph_offsets : register(t5);
[[vk::binding(6)]] StructuredBuffer<uint> morph_target : register(t6);
[[vk::binding(7)]] StructuredBuffer<float> morph_dp : register(t7);
[[vk::binding(8)]] StructuredBuffer<float> morph_dn : register(t8);
[[vk::binding(9)]] StructuredBuffer<float> morph_dt : register(t9);
[[vk::binding(10)]] StructuredBuffer<float> bones : register(t10);
[[vk::binding(11)]] StructuredBuffer<float> morph_weights : register(t11);
[[vk::binding(12)]] RWStructuredBuffer<float> state : register(u12);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint v = id.x;
    if (v >= P.vertex_count) return;
    precise float3 p = float3(rest_p[3 * v], rest_p[3 * v + 1], rest_p[3 * v + 2]);
    precise float3 n = float3(rest_n[3 * v], rest_n[3 * v + 1], rest_n[3 * v + 2]);
    precise float3 t = float3(rest_t[4 * v], rest_t[4 * v + 1], rest_t[4 * v + 2]);
    for (uint e = morph_offsets[v]; e < morph_offsets[v + 1]; ++e) {
        float a = morph_weights[morph_target[e]];
        if (a == 0.0) continue;
        p += a * float3(morph_dp[3 * e], morph_dp[3 * e + 1], morph_dp[3 * e + 2]);
        if (P.morph_dirs != 0) n += a * float3(morph_dn[3 * e], morph_dn[3 * e + 1], morph_dn[3 * e + 2]);
        if (P.morph_dirs == 1) t += a * float3(morph_dt[3 * e], morph_dt[3 * e + 1], morph_dt[3 * e + 2]);
    }
    precise float m[12];
    for (uint c = 0; c < 12; ++c) m[c] = 0.0;
    float total = 0.0;
    for (uint i = 0; i < P.influences; ++i) {
        float w = weights[P.influences * v + i];
        if (w == 0.0) continue;
        uint b = 12 * joints[P.influences * v + i];
        for (uint k = 0; k < 12; ++k) m[k] += w * bones[b + k];
        total += w;
    }
    if (total == 0.0) { m[0] = 1.0; m[4] = 1.0; m[8] = 1.0; }
    float3 a0 = float3(m[0], m[1], m[2]), a1 = float3(m[3], m[4], m[5]), a2 = float3(m[6], m[7], m[8]);
    precise float3 q = a0 * p.x + a1 * p.y + a2 * p.z + float3(m[9], m[10], m[11]);
    uint o = 32 * v;
    state[o] = q.x; state[o + 1] = q.y; state[o + 2] = q.z;
    state[o + 3] = dot(a0, cross(a1, a2));
    state[o + 4] = p.x; state[o + 5] = p.y; state[o + 6] = p.z;
    state[o + 7] = n.x; state[o + 8] = n.y; state[o + 9] = n.z;
    state[o + 10] = t.x; state[o + 11] = t.y; state[o + 12] = t.z;
    for (uint j = 0; j < 12; ++j) state[o + 13 + j] = m[j];
}

// recompute-fused, the reference in one pass from the rest data and the pose (the HLSL twin of
// recompute_fused.comp; the same bindings): sfk_recompute_fused_vertex without weld groups.
// `precise` keeps multiply-adds unfused where the C library rounds each product (see the GLSL twin).
#include "params.hlsli"
[[vk::binding(0)]] StructuredBuffer<float> rest_p : register(t0);
[[vk::binding(3)]] StructuredBuffer<uint> joints : register(t3);
[[vk::binding(4)]] StructuredBuffer<float> weights : register(t4);
[[vk::binding(5)]] StructuredBuffer<uint> morph_offsets : register(t5);
[[vk::binding(6)]] StructuredBuffer<uint> morph_target : register(t6);
[[vk::binding(7)]] StructuredBuffer<float> morph_dp : register(t7);
[[vk::binding(10)]] StructuredBuffer<float> bones : register(t10);
[[vk::binding(11)]] StructuredBuffer<float> morph_weights : register(t11);
[[vk::binding(13)]] RWStructuredBuffer<float> normals : register(u13);
[[vk::binding(14)]] RWStructuredBuffer<float> tangents : register(u14);
[[vk::binding(16)]] StructuredBuffer<uint> adj_offsets : register(t16);
[[vk::binding(17)]] StructuredBuffer<uint> adj_corners : register(t17);
[[vk::binding(18)]] StructuredBuffer<float> uvs : register(t18);
[[vk::binding(19)]] StructuredBuffer<uint> indices : register(t19);


// Vertex i's final position (xyz) and the determinant of its blended matrix (w), as deform.comp gives them.
float4 deformed(uint i)
{
    precise float3 p = float3(rest_p[3u * i], rest_p[3u * i + 1u], rest_p[3u * i + 2u]);
    for (uint e = morph_offsets[i]; e < morph_offsets[i + 1u]; ++e) {
        float a = morph_weights[morph_target[e]];
        if (a == 0.0) continue;
        p += a * float3(morph_dp[3u * e], morph_dp[3u * e + 1u], morph_dp[3u * e + 2u]);
    }
    precise float m[12];
    for (uint c = 0u; c < 12u; ++c) m[c] = 0.0;
    float total = 0.0;
    for (uint k = 0u; k < P.influences; ++k) {
        float w = weights[P.influences * i + k];
        if (w == 0.0) continue;
        uint b = 12u * joints[P.influences * i + k];
        for (uint c = 0u; c < 12u; ++c) m[c] += w * bones[b + c];
        total += w;
    }
    if (total == 0.0) { m[0] = 1.0; m[4] = 1.0; m[8] = 1.0; }
    float3 a0 = float3(m[0], m[1], m[2]), a1 = float3(m[3], m[4], m[5]), a2 = float3(m[6], m[7], m[8]);
    precise float3 q = a0 * p.x + a1 * p.y + a2 * p.z + float3(m[9], m[10], m[11]);
    return float4(q, dot(a0, cross(a1, a2)));
}

float2 uv(uint i) { return float2(uvs[2u * i], uvs[2u * i + 1u]); }

float corner_angle(float3 p0, float3 p1, float3 p2)
{
    float3 a = p1 - p0, b = p2 - p0;
    float s = length(cross(a, b)), d = dot(a, b);
    if (s == 0.0 && d == 0.0) return 0.0;
    return atan2(s, d);
}

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint v = id.x;
    if (v >= P.vertex_count) return;
    precise float3 N = float3(0.0, 0.0, 0.0), T = float3(0.0, 0.0, 0.0), B = float3(0.0, 0.0, 0.0);
    for (uint a = adj_offsets[v]; a < adj_offsets[v + 1u]; ++a) {
        uint corner = adj_corners[a];
        uint f = corner / 3u, c = corner % 3u;
        uint i0 = indices[3u * f], i1 = indices[3u * f + 1u], i2 = indices[3u * f + 2u];
        float4 q0 = deformed(i0), q1 = deformed(i1), q2 = deformed(i2);
        float3 p[3] = {q0.xyz, q1.xyz, q2.xyz};
        precise float3 e1 = p[1] - p[0], e2 = p[2] - p[0];
        precise float3 fn = cross(e1, e2);
        precise float3 ft = float3(0.0, 0.0, 0.0), fb = float3(0.0, 0.0, 0.0);
        if (P.has_uv == 1u) {
            float2 d1 = uv(i1) - uv(i0), d2 = uv(i2) - uv(i0);
            precise float det = d1.x * d2.y - d2.x * d1.y;
            if (abs(det) > 1e-12) {
                float inv = 1.0 / det;
                ft = (e1 * d2.y - e2 * d1.y) * inv;
                fb = (e2 * d1.x - e1 * d2.x) * inv;
            }
        }
        if (uint(q0.w < 0.0) + uint(q1.w < 0.0) + uint(q2.w < 0.0) >= 2u) fn = -fn;
        precise float len2 = dot(fn, fn);
        float w = 0.0;
        if (len2 >= 1e-24) {
            if (P.weighting == 2u) {
                w = 1.0;
                fn *= 1.0 / sqrt(len2);
            } else if (P.weighting == 1u) {
                w = corner_angle(p[c], p[(c + 1u) % 3u], p[(c + 2u) % 3u]);
                fn *= 1.0 / sqrt(len2);
            } else {
                w = sqrt(len2);
            }
        }
        N += P.weighting == 0u ? fn : fn * w;
        T += ft * w;
        B += fb * w;
    }
    float3 n = safe_unit(N);
    precise float3 to = T - n * dot(n, T);
    float3 t = safe_unit(to);
    float hand = dot(cross(n, t), B) * P.bitangent_sign < 0.0 ? -1.0 : 1.0;
    normals[3u * v] = n.x; normals[3u * v + 1u] = n.y; normals[3u * v + 2u] = n.z;
    tangents[4u * v] = t.x; tangents[4u * v + 1u] = t.y; tangents[4u * v + 2u] = t.z; tangents[4u * v + 3u] = hand;
}

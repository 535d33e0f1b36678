// The reference's gather over the vertex -> corner adjacency (the HLSL twin of recompute_gather.comp and
// recompute_gather.wgsl): sfk_recompute_vertex, sfk_finish_frame, without weld groups.
// `precise` keeps multiply-adds unfused where the C library rounds each product (see the GLSL twin).
#include "params.hlsli"
[[vk::binding(13)]] RWStructuredBuffer<float> normals : register(u13);
[[vk::binding(14)]] RWStructuredBuffer<float> tangents : register(u14);
[[vk::binding(15)]] StructuredBuffer<float> face : register(t15);
[[vk::binding(16)]] StructuredBuffer<uint> adj_offsets : register(t16);
[[vk::binding(17)]] StructuredBuffer<uint> adj_corners : register(t17);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint v = id.x;
    if (v >= P.vertex_count) return;
    precise float3 N = float3(0.0, 0.0, 0.0), T = N, B = N;
    for (uint a = adj_offsets[v]; a < adj_offsets[v + 1]; ++a) {
        uint corner = adj_corners[a];
        uint o = 12 * (corner / 3);
        float w = face[o + 9 + corner % 3];
        float3 fn = float3(face[o], face[o + 1], face[o + 2]);
        N += P.weighting == 0 ? fn : fn * w;
        T += float3(face[o + 3], face[o + 4], face[o + 5]) * w;
        B += float3(face[o + 6], face[o + 7], face[o + 8]) * w;
    }
    float3 n = safe_unit(N);
    precise float3 to = T - n * dot(n, T);
    float3 t = safe_unit(to);
    float hand = dot(cross(n, t), B) * P.bitangent_sign < 0.0 ? -1.0 : 1.0;
    normals[3 * v] = n.x; normals[3 * v + 1] = n.y; normals[3 * v + 2] = n.z;
    tangents[4 * v] = t.x; tangents[4 * v + 1] = t.y; tangents[4 * v + 2] = t.z; tangents[4 * v + 3] = hand;
}

// The methods that need no neighbours (the HLSL twin of frames_vertex.comp): unchanged (0), skinned (1),
// inverse-transpose (2), bone-normal-matrices (3). From src/kernels/sf_kernels.h: sfk_vertex_frame,
// sfk_inverse_transpose_normal, sfk_bone_normal_matrices_normal, sfk_bone_normal_frame.
#include "params.hlsli"
[[vk::binding(2)]] StructuredBuffer<float> rest_t : register(t2);
[[vk::binding(3)]] StructuredBuffer<uint> joints : register(t3);
[[vk::binding(4)]] StructuredBuffer<float> weights : register(t4);
[[vk::binding(10)]] StructuredBuffer<float> bones : register(t10);
[[vk::binding(12)]] StructuredBuffer<float> state : register(t12);
[[vk::binding(13)]] RWStructuredBuffer<float> normals : register(u13);
[[vk::binding(14)]] RWStructuredBuffer<float> tangents : register(u14);

float3 cofactor_dir(float3 a0, float3 a1, float3 a2, float3 v)
{
    return cross(a1, a2) * v.x + cross(a2, a0) * v.y + cross(a0, a1) * v.z;
}
float3 bone_col(uint b, uint c) { return float3(bones[12 * b + 3 * c], bones[12 * b + 3 * c + 1], bones[12 * b + 3 * c + 2]); }

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint v = id.x;
    if (v >= P.vertex_count) return;
    uint o = 32 * v;
    float det = state[o + 3];
    float3 mn = float3(state[o + 7], state[o + 8], state[o + 9]);
    float3 mt = float3(state[o + 10], state[o + 11], state[o + 12]);
    float3 a0 = float3(state[o + 13], state[o + 14], state[o + 15]);
    float3 a1 = float3(state[o + 16], state[o + 17], state[o + 18]);
    float3 a2 = float3(state[o + 19], state[o + 20], state[o + 21]);
    float rest_w = rest_t[4 * v + 3];
    float3 n, t;
    float w = rest_w;
    if (P.method == 0) {
        n = safe_unit(mn);
        t = safe_unit(mt);
    } else {
        t = safe_unit(a0 * mt.x + a1 * mt.y + a2 * mt.z);
        w = det < 0.0 ? -rest_w : rest_w;
        if (P.method == 1) {
            n = safe_unit(a0 * mn.x + a1 * mn.y + a2 * mn.z);
        } else if (P.method == 2) {
            n = abs(det) < 1e-12 ? float3(0.0, 0.0, 0.0) : safe_unit(cofactor_dir(a0, a1, a2, mn) * (1.0 / det));
        } else {
            float3 acc = float3(0.0, 0.0, 0.0);
            float total = 0.0;
            for (uint i = 0; i < P.influences; ++i) {
                float wi = weights[P.influences * v + i];
                if (wi == 0.0) continue;
                uint b = joints[P.influences * v + i];
                acc += wi * cofactor_dir(bone_col(b, 0), bone_col(b, 1), bone_col(b, 2), mn);
                total += wi;
            }
            n = safe_unit(total == 0.0 ? mn : acc);
        }
    }
    if (P.has_uv == 0) t = float3(0.0, 0.0, 0.0);
    normals[3 * v] = n.x; normals[3 * v + 1] = n.y; normals[3 * v + 2] = n.z;
    tangents[4 * v] = t.x; tangents[4 * v + 1] = t.y; tangents[4 * v + 2] = t.z; tangents[4 * v + 3] = w;
}

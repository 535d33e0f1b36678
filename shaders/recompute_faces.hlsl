// The reference's face pass (the HLSL twin of recompute_faces.comp and recompute_faces.wgsl): sfk_recompute_face,
// sfk_face_frame. 12 floats per triangle: face_n, UV tangent, UV bitangent, corner weights.
// `precise` keeps multiply-adds unfused where the C library rounds each product (see the GLSL twin).
#include "params.hlsli"
[[vk::binding(12)]] StructuredBuffer<float> state : register(t12);
[[vk::binding(15)]] RWStructuredBuffer<float> face : register(u15);
[[vk::binding(18)]] StructuredBuffer<float> uvs : register(t18);
[[vk::binding(19)]] StructuredBuffer<uint> indices : register(t19);

float3 pos(uint v) { return float3(state[32 * v], state[32 * v + 1], state[32 * v + 2]); }
float2 uv(uint v) { return float2(uvs[2 * v], uvs[2 * v + 1]); }
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
    uint f = id.x;
    if (f >= P.face_count) return;
    uint i0 = indices[3 * f], i1 = indices[3 * f + 1], i2 = indices[3 * f + 2];
    float3 p0 = pos(i0), p1 = pos(i1), p2 = pos(i2);
    precise float3 e1 = p1 - p0, e2 = p2 - p0;
    precise float3 fn = cross(e1, e2);
    precise float3 t = float3(0.0, 0.0, 0.0), b = float3(0.0, 0.0, 0.0);
    if (P.has_uv == 1) {
        float2 d1 = uv(i1) - uv(i0), d2 = uv(i2) - uv(i0);
        precise float det = d1.x * d2.y - d2.x * d1.y;
        if (abs(det) > 1e-12) {
            float inv = 1.0 / det;
            t = (e1 * d2.y - e2 * d1.y) * inv;
            b = (e2 * d1.x - e1 * d2.x) * inv;
        }
    }
    uint mirrored = (state[32 * i0 + 3] < 0.0 ? 1 : 0) + (state[32 * i1 + 3] < 0.0 ? 1 : 0) + (state[32 * i2 + 3] < 0.0 ? 1 : 0);
    if (mirrored >= 2) fn = -fn;
    precise float len2 = dot(fn, fn);
    float3 w = float3(0.0, 0.0, 0.0);
    if (len2 >= 1e-24) {
        if (P.weighting == 2) {
            w = float3(1.0, 1.0, 1.0);
            fn *= 1.0 / sqrt(len2);
        } else if (P.weighting == 1) {
            w = float3(corner_angle(p0, p1, p2), corner_angle(p1, p2, p0), corner_angle(p2, p0, p1));
            fn *= 1.0 / sqrt(len2);
        } else {
            w = sqrt(len2).xxx;
        }
    }
    uint o = 12 * f;
    face[o] = fn.x; face[o + 1] = fn.y; face[o + 2] = fn.z;
    face[o + 3] = t.x; face[o + 4] = t.y; face[o + 5] = t.z;
    face[o + 6] = b.x; face[o + 7] = b.y; face[o + 8] = b.z;
    face[o + 9] = w.x; face[o + 10] = w.y; face[o + 11] = w.z;
}

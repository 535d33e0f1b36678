// The jacobian method (the HLSL twin of jacobian.comp; the same bindings): sfk_jacobian_vertex over the gradients
// in sf_topology_gpu_buffers' layout (src/core/gpu_layout.c).
// `precise` keeps multiply-adds unfused where the C library rounds each product (see the GLSL twin).
#include "params.hlsli"
[[vk::binding(1)]] StructuredBuffer<float> rest_n : register(t1);
[[vk::binding(2)]] StructuredBuffer<float> rest_t : register(t2);
[[vk::binding(10)]] StructuredBuffer<float> bones : register(t10);
[[vk::binding(11)]] StructuredBuffer<float> morph_weights : register(t11);
[[vk::binding(12)]] StructuredBuffer<float> state : register(t12);
[[vk::binding(13)]] RWStructuredBuffer<float> normals : register(u13);
[[vk::binding(14)]] RWStructuredBuffer<float> tangents : register(u14);
[[vk::binding(20)]] StructuredBuffer<uint> slot_offsets : register(t20);
[[vk::binding(21)]] StructuredBuffer<uint> slot_joint : register(t21);
[[vk::binding(22)]] StructuredBuffer<float> slot_guv : register(t22);
[[vk::binding(23)]] StructuredBuffer<uint> gmorph_offsets : register(t23);
[[vk::binding(24)]] StructuredBuffer<uint> gmorph_target : register(t24);
[[vk::binding(25)]] StructuredBuffer<float> gmorph_duv : register(t25);

static const uint REST_JOINT = 0xFFFFFFFF;

float3 capped(float3 c, float3 base, float cap)
{
    if (!(cap > 0.0)) return c;
    float lim = cap * length(base), lc = length(c);
    return lc > lim ? c * (lim / lc) : c;
}

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint v = id.x;
    if (v >= P.vertex_count) return;
    uint o = 32 * v;
    float3 Pf = float3(state[o], state[o + 1], state[o + 2]);
    float det = state[o + 3];
    float3 x = float3(state[o + 4], state[o + 5], state[o + 6]);
    float3 a0 = float3(state[o + 13], state[o + 14], state[o + 15]);
    float3 a1 = float3(state[o + 16], state[o + 17], state[o + 18]);
    float3 a2 = float3(state[o + 19], state[o + 20], state[o + 21]);
    float4 t0 = float4(rest_t[4 * v], rest_t[4 * v + 1], rest_t[4 * v + 2], rest_t[4 * v + 3]);
    float w = det < 0.0 ? -t0.w : t0.w;
    float3 n0 = safe_unit(float3(rest_n[3 * v], rest_n[3 * v + 1], rest_n[3 * v + 2]));
    float3 nrm = float3(0.0, 0.0, 0.0), tan = nrm;
    if (dot(n0, n0) > 0.0) {
        float s = n0.z >= 0.0 ? 1.0 : -1.0;
        float a = -1.0 / (s + n0.z);
        float b = n0.x * n0.y * a;
        float3 u = float3(1.0 + s * n0.x * n0.x * a, s * b, -s * n0.x);
        float3 vv = float3(b, s + n0.y * n0.y * a, -n0.y);
        float3 mu = u, mv = vv;
        for (uint e = gmorph_offsets[v]; e < gmorph_offsets[v + 1]; ++e) {
            float al = morph_weights[gmorph_target[e]];
            if (al == 0.0) continue;
            mu += al * float3(gmorph_duv[6 * e], gmorph_duv[6 * e + 1], gmorph_duv[6 * e + 2]);
            mv += al * float3(gmorph_duv[6 * e + 3], gmorph_duv[6 * e + 4], gmorph_duv[6 * e + 5]);
        }
        precise float3 ju = a0 * mu.x + a1 * mu.y + a2 * mu.z;
        precise float3 jv = a0 * mv.x + a1 * mv.y + a2 * mv.z;
        precise float3 cu = float3(0.0, 0.0, 0.0), cv = cu;
        for (uint k = slot_offsets[v]; k < slot_offsets[v + 1]; ++k) {
            uint j = slot_joint[k];
            float3 pj = x;
            if (j != REST_JOINT) {
                uint bb = 12 * j;
                pj = float3(bones[bb], bones[bb + 1], bones[bb + 2]) * x.x +
                     float3(bones[bb + 3], bones[bb + 4], bones[bb + 5]) * x.y +
                     float3(bones[bb + 6], bones[bb + 7], bones[bb + 8]) * x.z +
                     float3(bones[bb + 9], bones[bb + 10], bones[bb + 11]);
            }
            pj -= Pf;
            cu += pj * slot_guv[2 * k];
            cv += pj * slot_guv[2 * k + 1];
        }
        ju += capped(cu, ju, P.jacobian_cap);
        jv += capped(cv, jv, P.jacobian_cap);
        precise float3 N = cross(ju, jv);
        if (det < 0.0) N = -N;
        nrm = safe_unit(N);
        float tu = dot(t0.xyz, u), tv = dot(t0.xyz, vv);
        float3 T = ju * tu + jv * tv;
        tan = safe_unit(T - nrm * dot(nrm, T));
        if (dot(tan, tan) == 0.0) tan = safe_unit(a0 * t0.x + a1 * t0.y + a2 * t0.z);
    }
    if (P.has_uv == 0) tan = float3(0.0, 0.0, 0.0);
    normals[3 * v] = nrm.x; normals[3 * v + 1] = nrm.y; normals[3 * v + 2] = nrm.z;
    tangents[4 * v] = tan.x; tangents[4 * v + 1] = tan.y; tangents[4 * v + 2] = tan.z; tangents[4 * v + 3] = w;
}

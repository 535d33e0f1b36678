// The jacobian-fan method (the HLSL twin of jacobian_fan.comp; the same bindings): sfk_jacobian_fan_vertex over
// the fan data in sf_topology_gpu_buffers' layout (src/core/gpu_layout.c: fan_slot_*, fan_morph_*, fan_normal).
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
[[vk::binding(22)]] StructuredBuffer<float> slot_coef : register(t22);
[[vk::binding(23)]] StructuredBuffer<uint> fmorph_offsets : register(t23);
[[vk::binding(24)]] StructuredBuffer<uint> fmorph_target : register(t24);
[[vk::binding(25)]] StructuredBuffer<float> fmorph_duv : register(t25);
[[vk::binding(26)]] StructuredBuffer<float> fan_normal : register(t26);

static const uint REST_JOINT = 0xFFFFFFFF;

bool nonzero(float3 v) { return dot(v, v) > 0.0; }

// t made unit and orthogonal to unit n, zero when impossible (sfk_orthonormal_tangent).
float3 orthonormal(float3 n, float3 t) { return safe_unit(t - n * dot(n, t)); }

float3 capped(float3 c, float3 base, float cap)
{
    if (!(cap > 0.0)) return c;
    float lim = cap * length(base), lc = length(c);
    return lc > lim ? c * (lim / lc) : c;
}

// R d for the rotation taking the frame (n0, t0) to (n1, t1), all unit (sfk_frame_rotate).
float3 frame_rotate(float3 n0, float3 t0, float3 n1, float3 t1, float3 d)
{
    return n1 * dot(n0, d) + t1 * dot(t0, d) + cross(n1, t1) * dot(cross(n0, t0), d);
}

// R d for the shortest arc from unit a to unit b; a half turn where they are opposite (sfk_arc_rotate).
float3 arc_rotate(float3 a, float3 b, float3 d)
{
    float3 k = cross(a, b);
    float c = dot(a, b);
    if (c > -0.9999) return d * c + cross(k, d) + k * (dot(k, d) / (1.0 + c));
    float3 q = abs(a);
    float3 e = q.x < q.y ? (q.x < q.z ? float3(1.0, 0.0, 0.0) : float3(0.0, 0.0, 1.0))
                       : (q.y < q.z ? float3(0.0, 1.0, 0.0) : float3(0.0, 0.0, 1.0));
    float3 axis = safe_unit(cross(a, e));
    return axis * (2.0 * dot(axis, d)) - d;
}

float3 bone_col(uint j, uint c) { return float3(bones[12u * j + 3u * c], bones[12u * j + 3u * c + 1u], bones[12u * j + 3u * c + 2u]); }

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint v = id.x;
    if (v >= P.vertex_count) return;
    uint o = 32u * v;
    float3 Pf = float3(state[o], state[o + 1u], state[o + 2u]);
    float det = state[o + 3u];
    float3 x = float3(state[o + 4u], state[o + 5u], state[o + 6u]);
    float3 a0 = float3(state[o + 13u], state[o + 14u], state[o + 15u]);
    float3 a1 = float3(state[o + 16u], state[o + 17u], state[o + 18u]);
    float3 a2 = float3(state[o + 19u], state[o + 20u], state[o + 21u]);
    float4 t0 = float4(rest_t[4u * v], rest_t[4u * v + 1u], rest_t[4u * v + 2u], rest_t[4u * v + 3u]);
    float w = det < 0.0 ? -t0.w : t0.w;
    float3 na = safe_unit(float3(rest_n[3u * v], rest_n[3u * v + 1u], rest_n[3u * v + 2u]));
    float3 nf = safe_unit(float3(fan_normal[3u * v], fan_normal[3u * v + 1u], fan_normal[3u * v + 2u]));
    float3 n = float3(0.0, 0.0, 0.0), t = float3(0.0, 0.0, 0.0);
    if (nonzero(na) && nonzero(nf)) {
        // (u, v) with u x v = nf (Duff et al. 2017), as sfk_tangent_basis.
        float s = nf.z >= 0.0 ? 1.0 : -1.0;
        float a = -1.0 / (s + nf.z);
        float b = nf.x * nf.y * a;
        float3 u = float3(1.0 + s * nf.x * nf.x * a, s * b, -s * nf.x);
        float3 vv = float3(b, s + nf.y * nf.y * a, -nf.y);
        precise float3 mu = u, mv = vv;
        for (uint e = fmorph_offsets[v]; e < fmorph_offsets[v + 1u]; ++e) {
            float al = morph_weights[fmorph_target[e]];
            if (al == 0.0) continue;
            mu += float3(fmorph_duv[6u * e], fmorph_duv[6u * e + 1u], fmorph_duv[6u * e + 2u]) * al;
            mv += float3(fmorph_duv[6u * e + 3u], fmorph_duv[6u * e + 4u], fmorph_duv[6u * e + 5u]) * al;
        }
        precise float3 ju = a0 * mu.x + a1 * mu.y + a2 * mu.z;
        precise float3 jv = a0 * mv.x + a1 * mv.y + a2 * mv.z;
        // weight terms relative to P and to B u', B v' (they sum to zero where the weights sum to one)
        precise float3 cu = float3(0.0, 0.0, 0.0), cv = float3(0.0, 0.0, 0.0);
        for (uint k = slot_offsets[v]; k < slot_offsets[v + 1u]; ++k) {
            uint j = slot_joint[k];
            uint c = 6u * k;
            precise float3 pj = x, au = mu, av = mv;
            if (j != REST_JOINT) {
                float3 b0 = bone_col(j, 0u), b1 = bone_col(j, 1u), b2 = bone_col(j, 2u);
                pj = b0 * x.x + b1 * x.y + b2 * x.z + bone_col(j, 3u);
                au = b0 * mu.x + b1 * mu.y + b2 * mu.z;
                av = b0 * mv.x + b1 * mv.y + b2 * mv.z;
            }
            pj -= Pf;
            au -= ju;
            av -= jv;
            cu += pj * slot_coef[c];
            cv += pj * slot_coef[c + 1u];
            cu += au * slot_coef[c + 2u];
            cu += av * slot_coef[c + 3u];
            cv += au * slot_coef[c + 4u];
            cv += av * slot_coef[c + 5u];
        }
        ju += capped(cu, ju, P.jacobian_cap);
        jv += capped(cv, jv, P.jacobian_cap);
        float3 t0n = t0.xyz;
        if (all(ju == u) && all(jv == vv)) {
            // the fan plane does not move (the rest pose, a translation): the authored frame exactly
            n = na;
            t = safe_unit(t0n);
        } else {
            precise float3 N = cross(ju, jv);
            if (det < 0.0) N = -N;
            float3 n1 = safe_unit(N);
            if (!nonzero(n1)) {
                t = safe_unit(a0 * t0n.x + a1 * t0n.y + a2 * t0n.z);
            } else {
                // the fan's rest frame (nr, tr) and its posed frame (n1, J tr orthogonalised)
                float3 nr = cross(u, vv);
                float3 tr = orthonormal(nr, t0n);
                if (!nonzero(tr)) tr = u;
                float3 t1 = orthonormal(n1, ju * dot(tr, u) + jv * dot(tr, vv));
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
    if (P.has_uv == 0u) t = float3(0.0, 0.0, 0.0);
    normals[3u * v] = n.x; normals[3u * v + 1u] = n.y; normals[3u * v + 2u] = n.z;
    tangents[4u * v] = t.x; tangents[4u * v + 1u] = t.y; tangents[4u * v + 2u] = t.z; tangents[4u * v + 3u] = w;
}

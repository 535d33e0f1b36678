#version 450
// The jacobian-fan method (the recommended per-vertex method, docs/methods.md), one thread per vertex, after
// deform.comp, over the fan data in the layout sf_topology_gpu_buffers gives (src/core/gpu_layout.c: fan_slot_*
// with 6 coefficients per slot g.u, g.v, K_uu, K_uv, K_vu, K_vv; fan_morph_*; fan_normal; follow it when it
// changes). fan_slot_* and fan_morph_* are bound at 20..25, where jacobian.comp reads grad_* (one descriptor
// layout of 27 bindings for every pass, within the 32 storage buffers per stage some devices allow). Written from src/kernels/sf_kernels.h: sfk_jacobian_fan_vertex, sfk_rest_basis, sfk_tangent_basis,
// sfk_jacobian_cap, sfk_frame_rotate, sfk_arc_rotate, sfk_orthonormal_tangent (without the scaling of huge J u,
// J v: inputs within SF_MAX_COORD and ordinary scales do not reach it).
// `precise` (SPIR-V NoContraction) keeps the compiler from fusing multiply-adds in J: the C library rounds each
// product, and the rest-pose test (J u == u exactly) depends on it.
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
layout(std430, binding = 20) readonly buffer FanSlotOffsets { uint slot_offsets[]; };
layout(std430, binding = 21) readonly buffer FanSlotJoint { uint slot_joint[]; };
layout(std430, binding = 22) readonly buffer FanSlotCoef { float slot_coef[]; };
layout(std430, binding = 23) readonly buffer FanMorphOffsets { uint fmorph_offsets[]; };
layout(std430, binding = 24) readonly buffer FanMorphTarget { uint fmorph_target[]; };
layout(std430, binding = 25) readonly buffer FanMorphDuv { float fmorph_duv[]; };
layout(std430, binding = 26) readonly buffer FanNormal { float fan_normal[]; };

const uint REST_JOINT = 0xFFFFFFFFu;

vec3 safe_unit(vec3 v)
{
    float len2 = dot(v, v);
    if (!(len2 >= 1e-24)) return vec3(0.0);
    return v * (1.0 / sqrt(len2));
}

bool nonzero(vec3 v) { return dot(v, v) > 0.0; }

// t made unit and orthogonal to unit n, zero when impossible (sfk_orthonormal_tangent).
vec3 orthonormal(vec3 n, vec3 t) { return safe_unit(t - n * dot(n, t)); }

vec3 capped(vec3 c, vec3 base, float cap)
{
    if (!(cap > 0.0)) return c;
    float lim = cap * length(base), lc = length(c);
    return lc > lim ? c * (lim / lc) : c;
}

// R d for the rotation taking the frame (n0, t0) to (n1, t1), all unit (sfk_frame_rotate).
vec3 frame_rotate(vec3 n0, vec3 t0, vec3 n1, vec3 t1, vec3 d)
{
    return n1 * dot(n0, d) + t1 * dot(t0, d) + cross(n1, t1) * dot(cross(n0, t0), d);
}

// R d for the shortest arc from unit a to unit b; a half turn where they are opposite (sfk_arc_rotate).
vec3 arc_rotate(vec3 a, vec3 b, vec3 d)
{
    vec3 k = cross(a, b);
    float c = dot(a, b);
    if (c > -0.9999) return d * c + cross(k, d) + k * (dot(k, d) / (1.0 + c));
    vec3 q = abs(a);
    vec3 e = q.x < q.y ? (q.x < q.z ? vec3(1.0, 0.0, 0.0) : vec3(0.0, 0.0, 1.0))
                       : (q.y < q.z ? vec3(0.0, 1.0, 0.0) : vec3(0.0, 0.0, 1.0));
    vec3 axis = safe_unit(cross(a, e));
    return axis * (2.0 * dot(axis, d)) - d;
}

vec3 bone_col(uint j, uint c) { return vec3(bones[12u * j + 3u * c], bones[12u * j + 3u * c + 1u], bones[12u * j + 3u * c + 2u]); }

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
    vec3 na = safe_unit(vec3(rest_n[3u * v], rest_n[3u * v + 1u], rest_n[3u * v + 2u]));
    vec3 nf = safe_unit(vec3(fan_normal[3u * v], fan_normal[3u * v + 1u], fan_normal[3u * v + 2u]));
    vec3 n = vec3(0.0), t = vec3(0.0);
    if (nonzero(na) && nonzero(nf)) {
        // (u, v) with u x v = nf (Duff et al. 2017), as sfk_tangent_basis.
        float s = nf.z >= 0.0 ? 1.0 : -1.0;
        float a = -1.0 / (s + nf.z);
        float b = nf.x * nf.y * a;
        vec3 u = vec3(1.0 + s * nf.x * nf.x * a, s * b, -s * nf.x);
        vec3 vv = vec3(b, s + nf.y * nf.y * a, -nf.y);
        precise vec3 mu = u, mv = vv;
        for (uint e = fmorph_offsets[v]; e < fmorph_offsets[v + 1u]; ++e) {
            float al = morph_weights[fmorph_target[e]];
            if (al == 0.0) continue;
            mu += vec3(fmorph_duv[6u * e], fmorph_duv[6u * e + 1u], fmorph_duv[6u * e + 2u]) * al;
            mv += vec3(fmorph_duv[6u * e + 3u], fmorph_duv[6u * e + 4u], fmorph_duv[6u * e + 5u]) * al;
        }
        precise vec3 ju = a0 * mu.x + a1 * mu.y + a2 * mu.z;
        precise vec3 jv = a0 * mv.x + a1 * mv.y + a2 * mv.z;
        // weight terms relative to P and to B u', B v' (they sum to zero where the weights sum to one)
        precise vec3 cu = vec3(0.0), cv = vec3(0.0);
        for (uint k = slot_offsets[v]; k < slot_offsets[v + 1u]; ++k) {
            uint j = slot_joint[k];
            uint c = 6u * k;
            precise vec3 pj = x, au = mu, av = mv;
            if (j != REST_JOINT) {
                vec3 b0 = bone_col(j, 0u), b1 = bone_col(j, 1u), b2 = bone_col(j, 2u);
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
        vec3 t0n = t0.xyz;
        if (ju == u && jv == vv) {
            // the fan plane does not move (the rest pose, a translation): the authored frame exactly
            n = na;
            t = safe_unit(t0n);
        } else {
            precise vec3 N = cross(ju, jv);
            if (det < 0.0) N = -N;
            vec3 n1 = safe_unit(N);
            if (!nonzero(n1)) {
                t = safe_unit(a0 * t0n.x + a1 * t0n.y + a2 * t0n.z);
            } else {
                // the fan's rest frame (nr, tr) and its posed frame (n1, J tr orthogonalised)
                vec3 nr = cross(u, vv);
                vec3 tr = orthonormal(nr, t0n);
                if (!nonzero(tr)) tr = u;
                vec3 t1 = orthonormal(n1, ju * dot(tr, u) + jv * dot(tr, vv));
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
    if (P.has_uv == 0u) t = vec3(0.0);
    normals[3u * v] = n.x; normals[3u * v + 1u] = n.y; normals[3u * v + 2u] = n.z;
    tangents[4u * v] = t.x; tangents[4u * v + 1u] = t.y; tangents[4u * v + 2u] = t.z; tangents[4u * v + 3u] = w;
}

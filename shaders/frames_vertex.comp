#version 450
// The methods that need no neighbours, one thread per vertex, after deform.comp: unchanged (0), skinned (1),
// inverse-transpose (2), bone-normal-matrices (3), numbered as sf_method. Written from src/kernels/sf_kernels.h:
// sfk_vertex_frame, sfk_inverse_transpose_normal, sfk_bone_normal_matrices_normal, sfk_bone_normal_frame,
// sfk_safe_unit (without its overflow path: inputs within SF_MAX_COORD and ordinary scales).
layout(local_size_x = 64) in;
layout(push_constant) uniform Params {
    uint vertex_count, influences, morph_dirs, method;
    uint face_count, weighting, has_uv, pad;
    float bitangent_sign, jacobian_cap, pad1, pad2;
} P;
layout(std430, binding = 2) readonly buffer RestT { float rest_t[]; };
layout(std430, binding = 3) readonly buffer Joints { uint joints[]; };
layout(std430, binding = 4) readonly buffer Weights { float weights[]; };
layout(std430, binding = 10) readonly buffer Bones { float bones[]; };
layout(std430, binding = 12) readonly buffer State { float state[]; };
layout(std430, binding = 13) writeonly buffer Normals { float normals[]; };   // 3n
layout(std430, binding = 14) writeonly buffer Tangents { float tangents[]; }; // 4n

vec3 safe_unit(vec3 v)
{
    float len2 = dot(v, v);
    if (!(len2 >= 1e-24)) return vec3(0.0);
    return v * (1.0 / sqrt(len2));
}

// cof(A) v = [a1 x a2, a2 x a0, a0 x a1] v (columns), A's columns a0 a1 a2.
vec3 cofactor_dir(vec3 a0, vec3 a1, vec3 a2, vec3 v)
{
    return cross(a1, a2) * v.x + cross(a2, a0) * v.y + cross(a0, a1) * v.z;
}

vec3 bone_col(uint b, uint c) { return vec3(bones[12u * b + 3u * c], bones[12u * b + 3u * c + 1u], bones[12u * b + 3u * c + 2u]); }

void main()
{
    uint v = gl_GlobalInvocationID.x;
    if (v >= P.vertex_count) return;
    uint o = 32u * v;
    float det = state[o + 3u];
    vec3 mn = vec3(state[o + 7u], state[o + 8u], state[o + 9u]);
    vec3 mt = vec3(state[o + 10u], state[o + 11u], state[o + 12u]);
    vec3 a0 = vec3(state[o + 13u], state[o + 14u], state[o + 15u]);
    vec3 a1 = vec3(state[o + 16u], state[o + 17u], state[o + 18u]);
    vec3 a2 = vec3(state[o + 19u], state[o + 20u], state[o + 21u]);
    float rest_w = rest_t[4u * v + 3u];
    vec3 n, t;
    float w = rest_w;
    if (P.method == 0u) {
        n = safe_unit(mn);
        t = safe_unit(mt);
    } else {
        t = safe_unit(a0 * mt.x + a1 * mt.y + a2 * mt.z);
        w = det < 0.0 ? -rest_w : rest_w;
        if (P.method == 1u) {
            n = safe_unit(a0 * mn.x + a1 * mn.y + a2 * mn.z);
        } else if (P.method == 2u) {
            n = abs(det) < 1e-12 ? vec3(0.0) : safe_unit(cofactor_dir(a0, a1, a2, mn) * (1.0 / det));
        } else {
            vec3 acc = vec3(0.0);
            float total = 0.0;
            for (uint i = 0u; i < P.influences; ++i) {
                float wi = weights[P.influences * v + i];
                if (wi == 0.0) continue;
                uint b = joints[P.influences * v + i];
                acc += wi * cofactor_dir(bone_col(b, 0u), bone_col(b, 1u), bone_col(b, 2u), mn);
                total += wi;
            }
            n = safe_unit(total == 0.0 ? mn : acc);
        }
    }
    if (P.has_uv == 0u) t = vec3(0.0);
    normals[3u * v] = n.x; normals[3u * v + 1u] = n.y; normals[3u * v + 2u] = n.z;
    tangents[4u * v] = t.x; tangents[4u * v + 1u] = t.y; tangents[4u * v + 2u] = t.z; tangents[4u * v + 3u] = w;
}

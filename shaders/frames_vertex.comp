#version 450
#extension GL_GOOGLE_include_directive : require
// The methods that need no neighbours, one thread per vertex, after deform.comp: P.method is SF_METHOD_UNCHANGED,
// _SKINNED, _INVERSE_TRANSPOSE or _BONE_NORMAL_MATRICES. Written from src/kernels/sf_kernels.h: sfk_vertex_frame,
// sfk_inverse_transpose_normal, sfk_bone_normal_matrices_normal, sfk_bone_normal_frame.
#include "generated/layout.glsl"
layout(local_size_x = SF_PASS_WORKGROUP) in;
SF_BUFFER_rest_tangents(readonly);
SF_BUFFER_joints(readonly);
SF_BUFFER_weights(readonly);
SF_BUFFER_bones(readonly);
SF_BUFFER_state(readonly);
SF_BUFFER_normals(writeonly);
SF_BUFFER_tangents(writeonly);
#include "common.glsl"

vec3 bone_col(uint b, uint c) { return vec3(bones[SF_BONE_FLOATS * b + 3u * c], bones[SF_BONE_FLOATS * b + 3u * c + 1u], bones[SF_BONE_FLOATS * b + 3u * c + 2u]); }
vec3 state3(uint o) { return vec3(state[o], state[o + 1u], state[o + 2u]); }

void main()
{
    uint v = gl_GlobalInvocationID.x;
    if (v >= P.vertex_count) return;
    uint o = SF_GPU_STATE_STRIDE * v;
    float det = state[o + SF_STATE_DET];
    vec3 mn = state3(o + SF_STATE_MORPHED_NORMAL), mt = state3(o + SF_STATE_MORPHED_TANGENT);
    vec3 a0 = state3(o + SF_STATE_BLEND), a1 = state3(o + SF_STATE_BLEND + 3u), a2 = state3(o + SF_STATE_BLEND + 6u);
    float rest_w = rest_tangents[4u * v + 3u];
    vec3 n, t;
    float w = rest_w;
    if (P.method == SF_METHOD_UNCHANGED) {
        n = safe_unit(mn);
        t = safe_unit(mt);
    } else {
        t = safe_unit(a0 * mt.x + a1 * mt.y + a2 * mt.z);
        w = det < 0.0 ? -rest_w : rest_w;
        if (P.method == SF_METHOD_SKINNED) {
            n = safe_unit(a0 * mn.x + a1 * mn.y + a2 * mn.z);
        } else if (P.method == SF_METHOD_INVERSE_TRANSPOSE) {
            n = abs(det) < SF_SINGULAR_DET_EPS ? vec3(0.0) : safe_unit(cofactor_dir(a0, a1, a2, mn) * (1.0 / det));
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

#version 450
#extension GL_GOOGLE_include_directive : require
// Deformation, one thread per vertex: morph (position deltas, and the normal/tangent deltas by morph_dirs), blend
// the bone matrices, skin the position. Written from src/kernels/sf_kernels.h: sfk_deform_vertex,
// sfk_blend_matrix, sfk_mat_det, sfk_mat_point. Writes `state`, SF_GPU_STATE_STRIDE floats per vertex at the
// SF_STATE_* offsets (generated/layout.glsl), which the other passes read.
#include "generated/layout.glsl"
layout(local_size_x = SF_PASS_WORKGROUP) in;
SF_BUFFER_rest_positions(readonly);
SF_BUFFER_rest_normals(readonly);
SF_BUFFER_rest_tangents(readonly);
SF_BUFFER_joints(readonly);
SF_BUFFER_weights(readonly);
SF_BUFFER_morph_offsets(readonly);
SF_BUFFER_morph_target(readonly);
SF_BUFFER_morph_dp(readonly);
SF_BUFFER_morph_dn(readonly);
SF_BUFFER_morph_dt(readonly);
SF_BUFFER_bones(readonly);
SF_BUFFER_morph_weights(readonly);
SF_BUFFER_state(writeonly);
#define SF_DEFORM_BUFFERS
#include "common.glsl"

void put3(uint o, vec3 x) { state[o] = x.x; state[o + 1u] = x.y; state[o + 2u] = x.z; }

void main()
{
    uint v = gl_GlobalInvocationID.x;
    if (v >= P.vertex_count) return;
    precise vec3 n = vec3(rest_normals[3u * v], rest_normals[3u * v + 1u], rest_normals[3u * v + 2u]);
    precise vec3 t = vec3(rest_tangents[4u * v], rest_tangents[4u * v + 1u], rest_tangents[4u * v + 2u]);
    if (P.morph_dirs != SF_MORPH_DIRECTIONS_NONE) {
        for (uint e = morph_offsets[v]; e < morph_offsets[v + 1u]; ++e) {
            float a = morph_weights[morph_target[e]];
            if (a == 0.0) continue;
            n += a * vec3(morph_dn[3u * e], morph_dn[3u * e + 1u], morph_dn[3u * e + 2u]);
            if (P.morph_dirs == SF_MORPH_DIRECTIONS_DELTAS)
                t += a * vec3(morph_dt[3u * e], morph_dt[3u * e + 1u], morph_dt[3u * e + 2u]);
        }
    }
    vec3 p = morph_position(v);
    mat4x3 m = blend_matrix(v);
    uint o = SF_GPU_STATE_STRIDE * v;
    put3(o + SF_STATE_POSITION, mat_point(m, p));
    state[o + SF_STATE_DET] = dot(m[0], cross(m[1], m[2]));
    put3(o + SF_STATE_MORPHED_POSITION, p);
    put3(o + SF_STATE_MORPHED_NORMAL, n);
    put3(o + SF_STATE_MORPHED_TANGENT, t);
    for (int c = 0; c < 4; ++c) put3(o + SF_STATE_BLEND + 3u * uint(c), m[c]);
}

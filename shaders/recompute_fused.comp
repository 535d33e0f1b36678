#version 450
#extension GL_GOOGLE_include_directive : require
// recompute-fused: the reference in one pass, one thread per vertex, straight from the rest data and the pose (no
// deform.comp, no face buffer). Each vertex deforms the corners of its own faces, rebuilds those faces and gathers
// them in the adjacency's order, giving recompute_faces.comp + recompute_gather.comp's numbers through the same
// functions of common.glsl. Written from src/kernels/sf_kernels.h: sfk_recompute_fused_vertex, sfk_fused_face,
// sfk_fused_position; without weld groups, and without the C kernel's small cache of deformed corners (a corner
// is deformed again instead: the same numbers).
#include "generated/layout.glsl"
layout(local_size_x = SF_PASS_WORKGROUP) in;
SF_BUFFER_rest_positions(readonly);
SF_BUFFER_joints(readonly);
SF_BUFFER_weights(readonly);
SF_BUFFER_morph_offsets(readonly);
SF_BUFFER_morph_target(readonly);
SF_BUFFER_morph_dp(readonly);
SF_BUFFER_bones(readonly);
SF_BUFFER_morph_weights(readonly);
SF_BUFFER_normals(writeonly);
SF_BUFFER_tangents(writeonly);
SF_BUFFER_adj_offsets(readonly);
SF_BUFFER_adj_corners(readonly);
SF_BUFFER_uvs(readonly);
SF_BUFFER_indices(readonly);
#define SF_DEFORM_BUFFERS
#include "common.glsl"

// Vertex i's final position (xyz) and the determinant of its blended matrix (w), as deform.comp gives them.
vec4 deformed(uint i)
{
    mat4x3 m = blend_matrix(i);
    return vec4(mat_point(m, morph_position(i)), dot(m[0], cross(m[1], m[2])));
}

vec2 uv(uint i) { return P.has_uv == 1u ? vec2(uvs[2u * i], uvs[2u * i + 1u]) : vec2(0.0); }

void main()
{
    uint v = gl_GlobalInvocationID.x;
    if (v >= P.vertex_count) return;
    precise vec3 N = vec3(0.0), T = vec3(0.0), B = vec3(0.0);
    for (uint a = adj_offsets[v]; a < adj_offsets[v + 1u]; ++a) {
        uint corner = adj_corners[a];
        uint f = corner / 3u, c = corner % 3u;
        uint i0 = indices[3u * f], i1 = indices[3u * f + 1u], i2 = indices[3u * f + 2u];
        vec4 q0 = deformed(i0), q1 = deformed(i1), q2 = deformed(i2);
        uint mirrored = uint(q0.w < 0.0) + uint(q1.w < 0.0) + uint(q2.w < 0.0);
        vec3 fn, ft, fb;
        vec3 w = face_frame(q0.xyz, q1.xyz, q2.xyz, uv(i0), uv(i1), uv(i2), mirrored, fn, ft, fb);
        gather_add(N, T, B, fn, ft, fb, w[c]);
    }
    vec3 n;
    vec4 t = finish_frame(N, T, B, n);
    normals[3u * v] = n.x; normals[3u * v + 1u] = n.y; normals[3u * v + 2u] = n.z;
    tangents[4u * v] = t.x; tangents[4u * v + 1u] = t.y; tangents[4u * v + 2u] = t.z; tangents[4u * v + 3u] = t.w;
}

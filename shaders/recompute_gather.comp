#version 450
#extension GL_GOOGLE_include_directive : require
// The reference's gather, one thread per vertex over the vertex -> corner adjacency (CSR, no atomics), after
// recompute_faces.comp (the GLSL twin of recompute_gather.wgsl): gather_add and finish_frame of common.glsl
// (sfk_recompute_vertex and sfk_finish_frame of src/kernels/sf_kernels.h), without weld groups.
#include "generated/layout.glsl"
layout(local_size_x = SF_PASS_WORKGROUP) in;
SF_BUFFER_normals(writeonly);
SF_BUFFER_tangents(writeonly);
SF_BUFFER_face(readonly);
SF_BUFFER_adj_offsets(readonly);
SF_BUFFER_adj_corners(readonly);
#include "common.glsl"

vec3 face3(uint o) { return vec3(face[o], face[o + 1u], face[o + 2u]); }

void main()
{
    uint v = gl_GlobalInvocationID.x;
    if (v >= P.vertex_count) return;
    precise vec3 N = vec3(0.0), T = vec3(0.0), B = vec3(0.0);
    for (uint a = adj_offsets[v]; a < adj_offsets[v + 1u]; ++a) {
        uint corner = adj_corners[a];
        uint o = SF_FACE_FLOATS * (corner / 3u);
        gather_add(N, T, B, face3(o), face3(o + 3u), face3(o + 6u), face[o + 9u + corner % 3u]);
    }
    vec3 n;
    vec4 t = finish_frame(N, T, B, n);
    normals[3u * v] = n.x; normals[3u * v + 1u] = n.y; normals[3u * v + 2u] = n.z;
    tangents[4u * v] = t.x; tangents[4u * v + 1u] = t.y; tangents[4u * v + 2u] = t.z; tangents[4u * v + 3u] = t.w;
}

#version 450
#extension GL_GOOGLE_include_directive : require
// The reference's face pass, one thread per triangle, after deform.comp (the GLSL twin of recompute_faces.wgsl):
// face_frame of common.glsl (sfk_recompute_face and sfk_face_frame of src/kernels/sf_kernels.h). face: 12 floats
// per triangle, face normal xyz, UV tangent xyz, UV bitangent xyz, corner weights w0 w1 w2.
#include "generated/layout.glsl"
layout(local_size_x = SF_PASS_WORKGROUP) in;
SF_BUFFER_state(readonly);
SF_BUFFER_face(writeonly);
SF_BUFFER_uvs(readonly);
SF_BUFFER_indices(readonly);
#include "common.glsl"

vec3 pos(uint v) { uint o = SF_GPU_STATE_STRIDE * v + SF_STATE_POSITION; return vec3(state[o], state[o + 1u], state[o + 2u]); }
bool mirrors(uint v) { return state[SF_GPU_STATE_STRIDE * v + SF_STATE_DET] < 0.0; }
vec2 uv(uint v) { return P.has_uv == 1u ? vec2(uvs[2u * v], uvs[2u * v + 1u]) : vec2(0.0); }

void main()
{
    uint f = gl_GlobalInvocationID.x;
    if (f >= P.face_count) return;
    uint i0 = indices[3u * f], i1 = indices[3u * f + 1u], i2 = indices[3u * f + 2u];
    uint mirrored = uint(mirrors(i0)) + uint(mirrors(i1)) + uint(mirrors(i2));
    vec3 fn, t, b;
    vec3 w = face_frame(pos(i0), pos(i1), pos(i2), uv(i0), uv(i1), uv(i2), mirrored, fn, t, b);
    uint o = SF_FACE_FLOATS * f;
    face[o] = fn.x; face[o + 1u] = fn.y; face[o + 2u] = fn.z;
    face[o + 3u] = t.x; face[o + 4u] = t.y; face[o + 5u] = t.z;
    face[o + 6u] = b.x; face[o + 7u] = b.y; face[o + 8u] = b.z;
    face[o + 9u] = w.x; face[o + 10u] = w.y; face[o + 11u] = w.z;
}

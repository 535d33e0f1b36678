#version 450
#extension GL_GOOGLE_include_directive : require
// jacobian-fan in a VERTEX shader from the embedded attributes (docs/embedded.md): what an engine's skinning
// shader adds. The engine's part (morph, blend, skin) reads the topology's buffers as deform.comp does; the
// frame comes from sf_fan_frame (fan_embedded.glsl) over the _SKINFRAME_FAN_* vertex attributes. No rasterised
// output: each vertex writes its normal and tangent to `normals` / `tangents` (tests/vulkan/vk_fan_embed.c draws
// the mesh as points with rasterisation discarded and compares them with the library).
#include "generated/layout.glsl"
SF_BUFFER_rest_positions(readonly);
SF_BUFFER_rest_normals(readonly);
SF_BUFFER_rest_tangents(readonly);
SF_BUFFER_joints(readonly);
SF_BUFFER_weights(readonly);
SF_BUFFER_morph_offsets(readonly);
SF_BUFFER_morph_target(readonly);
SF_BUFFER_morph_dp(readonly);
SF_BUFFER_bones(readonly);
SF_BUFFER_morph_weights(readonly);
SF_BUFFER_normals(writeonly);
SF_BUFFER_tangents(writeonly);
// The engine's morph of _SKINFRAME_FAN_DU / _DV: the target count, then per target k D_k u (3n floats) and D_k v
// (3n), at the binding jacobian_fan.comp reads fan_slot_offsets from (this shader has no CSR data). The count is
// spelled out: HLSL's GetDimensions of a ByteAddressBuffer does not survive every compiler as a length.
layout(std430, binding = 20) readonly buffer SfFanMorph { uint fan_target_count; float fan_morph[]; };
#define SF_DEFORM_BUFFERS
#include "common.glsl"

mat4x3 sf_fan_bone(uint j)
{
    uint b = 12u * j;
    return mat4x3(bones[b], bones[b + 1u], bones[b + 2u], bones[b + 3u], bones[b + 4u], bones[b + 5u],
                  bones[b + 6u], bones[b + 7u], bones[b + 8u], bones[b + 9u], bones[b + 10u], bones[b + 11u]);
}
#include "fan_embedded.glsl"

layout(location = 0) in vec3 fan_normal;                    // _SKINFRAME_FAN_NORMAL
layout(location = 1) in uvec4 fan_joints[SF_FAN_GROUPS];    // _SKINFRAME_FAN_JOINTS_g
layout(location = 5) in vec4 fan_coef[6 * SF_FAN_GROUPS];   // _SKINFRAME_FAN_(6g + c), snorm or float
layout(location = 29) in vec4 fan_scale0;                   // _SKINFRAME_FAN_SCALE_0 (1 for float data)
layout(location = 30) in vec4 fan_scale1;                   // _SKINFRAME_FAN_SCALE_1

void main()
{
    uint v = uint(gl_VertexIndex);
    vec3 x = morph_position(v);
    mat4x3 m = blend_matrix(v);
    vec3 pos = mat_point(m, x);
    float det = dot(m[0], cross(m[1], m[2]));
    uint n = P.vertex_count, T = fan_target_count;
    precise vec3 du = vec3(0.0), dv = vec3(0.0);
    for (uint k = 0u; k < T; ++k) {
        float a = morph_weights[k];
        if (a == 0.0) continue;
        uint o = 6u * n * k + 3u * v;
        du += vec3(fan_morph[o], fan_morph[o + 1u], fan_morph[o + 2u]) * a;
        dv += vec3(fan_morph[o + 3u * n], fan_morph[o + 3u * n + 1u], fan_morph[o + 3u * n + 2u]) * a;
    }
    float scale[6] = float[6](fan_scale0.x, fan_scale0.y, fan_scale0.z, fan_scale0.w, fan_scale1.x, fan_scale1.y);
    vec4 coef[6 * SF_FAN_GROUPS];
    for (int c = 0; c < 6 * SF_FAN_GROUPS; ++c) coef[c] = fan_coef[c] * scale[c % 6];
    vec3 n0 = vec3(rest_normals[3u * v], rest_normals[3u * v + 1u], rest_normals[3u * v + 2u]);
    vec4 t0 = vec4(rest_tangents[4u * v], rest_tangents[4u * v + 1u], rest_tangents[4u * v + 2u], rest_tangents[4u * v + 3u]);
    vec3 nrm;
    vec4 tan;
    sf_fan_frame(x, pos, m[0], m[1], m[2], det, n0, t0, fan_normal, du, dv, fan_joints, coef, nrm, tan);
    normals[3u * v] = nrm.x; normals[3u * v + 1u] = nrm.y; normals[3u * v + 2u] = nrm.z;
    tangents[4u * v] = tan.x; tangents[4u * v + 1u] = tan.y; tangents[4u * v + 2u] = tan.z; tangents[4u * v + 3u] = tan.w;
    gl_Position = vec4(0.0, 0.0, 0.0, 1.0);
}

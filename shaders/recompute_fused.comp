#version 450
// recompute-fused: the reference in one pass, one thread per vertex, straight from the rest data and the pose (no
// deform.comp, no face buffer). Each vertex deforms the corners of its own faces, rebuilds those faces and gathers
// them in the adjacency's order, giving recompute_faces.comp + recompute_gather.comp's numbers. Written from
// src/kernels/sf_kernels.h: sfk_recompute_fused_vertex, sfk_fused_face, sfk_fused_position (sfk_deform_position),
// sfk_recompute_face_frame, sfk_recompute_corner_weight, sfk_finish_frame; without weld groups, and without the C
// kernel's small cache of deformed corners (a corner is deformed again instead: the same numbers).
// `precise` (SPIR-V NoContraction): no fused multiply-adds, each product rounded as the C library rounds it.
layout(local_size_x = 64) in;
layout(push_constant) uniform Params {
    uint vertex_count, influences, morph_dirs, method;
    uint face_count, weighting, has_uv, pad;
    float bitangent_sign, jacobian_cap, pad1, pad2;
} P;
layout(std430, binding = 0) readonly buffer RestP { float rest_p[]; };
layout(std430, binding = 3) readonly buffer Joints { uint joints[]; };
layout(std430, binding = 4) readonly buffer Weights { float weights[]; };
layout(std430, binding = 5) readonly buffer MorphOffsets { uint morph_offsets[]; };
layout(std430, binding = 6) readonly buffer MorphTarget { uint morph_target[]; };
layout(std430, binding = 7) readonly buffer MorphDp { float morph_dp[]; };
layout(std430, binding = 10) readonly buffer Bones { float bones[]; };
layout(std430, binding = 11) readonly buffer MorphWeights { float morph_weights[]; };
layout(std430, binding = 13) writeonly buffer Normals { float normals[]; };
layout(std430, binding = 14) writeonly buffer Tangents { float tangents[]; };
layout(std430, binding = 16) readonly buffer AdjOffsets { uint adj_offsets[]; };
layout(std430, binding = 17) readonly buffer AdjCorners { uint adj_corners[]; };
layout(std430, binding = 18) readonly buffer Uvs { float uvs[]; };
layout(std430, binding = 19) readonly buffer Indices { uint indices[]; };

vec3 safe_unit(vec3 v)
{
    float len2 = dot(v, v);
    if (!(len2 >= 1e-24)) return vec3(0.0);
    return v * (1.0 / sqrt(len2));
}

// Vertex i's final position (xyz) and the determinant of its blended matrix (w), as deform.comp gives them.
vec4 deformed(uint i)
{
    precise vec3 p = vec3(rest_p[3u * i], rest_p[3u * i + 1u], rest_p[3u * i + 2u]);
    for (uint e = morph_offsets[i]; e < morph_offsets[i + 1u]; ++e) {
        float a = morph_weights[morph_target[e]];
        if (a == 0.0) continue;
        p += a * vec3(morph_dp[3u * e], morph_dp[3u * e + 1u], morph_dp[3u * e + 2u]);
    }
    precise float m[12];
    for (uint c = 0u; c < 12u; ++c) m[c] = 0.0;
    float total = 0.0;
    for (uint k = 0u; k < P.influences; ++k) {
        float w = weights[P.influences * i + k];
        if (w == 0.0) continue;
        uint b = 12u * joints[P.influences * i + k];
        for (uint c = 0u; c < 12u; ++c) m[c] += w * bones[b + c];
        total += w;
    }
    if (total == 0.0) { m[0] = 1.0; m[4] = 1.0; m[8] = 1.0; }
    vec3 a0 = vec3(m[0], m[1], m[2]), a1 = vec3(m[3], m[4], m[5]), a2 = vec3(m[6], m[7], m[8]);
    precise vec3 q = a0 * p.x + a1 * p.y + a2 * p.z + vec3(m[9], m[10], m[11]);
    return vec4(q, dot(a0, cross(a1, a2)));
}

vec2 uv(uint i) { return vec2(uvs[2u * i], uvs[2u * i + 1u]); }

float corner_angle(vec3 p0, vec3 p1, vec3 p2)
{
    vec3 a = p1 - p0, b = p2 - p0;
    float s = length(cross(a, b)), d = dot(a, b);
    if (s == 0.0 && d == 0.0) return 0.0;
    return atan(s, d);
}

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
        vec3 p[3] = vec3[3](q0.xyz, q1.xyz, q2.xyz);
        precise vec3 e1 = p[1] - p[0], e2 = p[2] - p[0];
        precise vec3 fn = cross(e1, e2);
        precise vec3 ft = vec3(0.0), fb = vec3(0.0);
        if (P.has_uv == 1u) {
            vec2 d1 = uv(i1) - uv(i0), d2 = uv(i2) - uv(i0);
            precise float det = d1.x * d2.y - d2.x * d1.y;
            if (abs(det) > 1e-12) {
                float inv = 1.0 / det;
                ft = (e1 * d2.y - e2 * d1.y) * inv;
                fb = (e2 * d1.x - e1 * d2.x) * inv;
            }
        }
        if (uint(q0.w < 0.0) + uint(q1.w < 0.0) + uint(q2.w < 0.0) >= 2u) fn = -fn;
        precise float len2 = dot(fn, fn);
        float w = 0.0;
        if (len2 >= 1e-24) {
            if (P.weighting == 2u) {
                w = 1.0;
                fn *= 1.0 / sqrt(len2);
            } else if (P.weighting == 1u) {
                w = corner_angle(p[c], p[(c + 1u) % 3u], p[(c + 2u) % 3u]);
                fn *= 1.0 / sqrt(len2);
            } else {
                w = sqrt(len2);
            }
        }
        N += P.weighting == 0u ? fn : fn * w;
        T += ft * w;
        B += fb * w;
    }
    vec3 n = safe_unit(N);
    precise vec3 to = T - n * dot(n, T);
    vec3 t = safe_unit(to);
    float hand = dot(cross(n, t), B) * P.bitangent_sign < 0.0 ? -1.0 : 1.0;
    normals[3u * v] = n.x; normals[3u * v + 1u] = n.y; normals[3u * v + 2u] = n.z;
    tangents[4u * v] = t.x; tangents[4u * v + 1u] = t.y; tangents[4u * v + 2u] = t.z; tangents[4u * v + 3u] = hand;
}

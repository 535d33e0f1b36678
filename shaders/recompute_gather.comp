#version 450
// The reference's gather, one thread per vertex over the vertex -> corner adjacency (CSR, no atomics), after
// recompute_faces.comp (the GLSL twin of recompute_gather.wgsl): sfk_recompute_vertex and sfk_finish_frame of
// src/kernels/sf_kernels.h, without weld groups. n = SafeUnit(N), t = SafeUnit(T - n (n.T)),
// w = sign(dot(cross(n, t), B) * bitangent_sign).
// `precise` (SPIR-V NoContraction) keeps the compiler from fusing multiply-adds here: the C library rounds
// each product, and a vertex whose face normals nearly cancel would amplify the difference.
layout(local_size_x = 64) in;
layout(push_constant) uniform Params {
    uint vertex_count, influences, morph_dirs, method;
    uint face_count, weighting, has_uv, pad;
    float bitangent_sign, jacobian_cap, pad1, pad2;
} P;
layout(std430, binding = 13) writeonly buffer Normals { float normals[]; };
layout(std430, binding = 14) writeonly buffer Tangents { float tangents[]; };
layout(std430, binding = 15) readonly buffer Face { float face[]; };
layout(std430, binding = 16) readonly buffer AdjOffsets { uint adj_offsets[]; };
layout(std430, binding = 17) readonly buffer AdjCorners { uint adj_corners[]; };

vec3 safe_unit(vec3 v)
{
    float len2 = dot(v, v);
    if (!(len2 >= 1e-24)) return vec3(0.0);
    return v * (1.0 / sqrt(len2));
}

void main()
{
    uint v = gl_GlobalInvocationID.x;
    if (v >= P.vertex_count) return;
    precise vec3 N = vec3(0.0), T = vec3(0.0), B = vec3(0.0);
    for (uint a = adj_offsets[v]; a < adj_offsets[v + 1u]; ++a) {
        uint corner = adj_corners[a];
        uint o = 12u * (corner / 3u);
        float w = face[o + 9u + corner % 3u];
        vec3 fn = vec3(face[o], face[o + 1u], face[o + 2u]);
        N += P.weighting == 0u ? fn : fn * w;
        T += vec3(face[o + 3u], face[o + 4u], face[o + 5u]) * w;
        B += vec3(face[o + 6u], face[o + 7u], face[o + 8u]) * w;
    }
    vec3 n = safe_unit(N);
    precise vec3 to = T - n * dot(n, T);
    vec3 t = safe_unit(to);
    float hand = dot(cross(n, t), B) * P.bitangent_sign < 0.0 ? -1.0 : 1.0;
    normals[3u * v] = n.x; normals[3u * v + 1u] = n.y; normals[3u * v + 2u] = n.z;
    tangents[4u * v] = t.x; tangents[4u * v + 1u] = t.y; tangents[4u * v + 2u] = t.z; tangents[4u * v + 3u] = hand;
}

#version 450
// The reference's face pass, one thread per triangle, after deform.comp (the GLSL twin of recompute_faces.wgsl):
// sfk_recompute_face and sfk_face_frame of src/kernels/sf_kernels.h. face: 12 floats per triangle, face_n xyz
// (negated when two or more corners mirror), UV tangent xyz, UV bitangent xyz, corner weights w0 w1 w2 (area:
// |face_n| with face_n unnormalised; angle: corner angles, face_n unit; uniform: 1, face_n unit; all zero for a
// collapsed face, |face_n|^2 < 1e-24).
// `precise` (SPIR-V NoContraction) keeps the compiler from fusing multiply-adds here: the C library rounds
// each product, and a vertex whose face normals nearly cancel would amplify the difference.
layout(local_size_x = 64) in;
layout(push_constant) uniform Params {
    uint vertex_count, influences, morph_dirs, method;
    uint face_count, weighting, has_uv, pad;
    float bitangent_sign, jacobian_cap, pad1, pad2;
} P;
layout(std430, binding = 12) readonly buffer State { float state[]; };
layout(std430, binding = 15) writeonly buffer Face { float face[]; };
layout(std430, binding = 18) readonly buffer Uvs { float uvs[]; };
layout(std430, binding = 19) readonly buffer Indices { uint indices[]; };

vec3 pos(uint v) { return vec3(state[32u * v], state[32u * v + 1u], state[32u * v + 2u]); }
vec2 uv(uint v) { return vec2(uvs[2u * v], uvs[2u * v + 1u]); }
float corner_angle(vec3 p0, vec3 p1, vec3 p2)
{
    vec3 a = p1 - p0, b = p2 - p0;
    float s = length(cross(a, b)), d = dot(a, b);
    if (s == 0.0 && d == 0.0) return 0.0;
    return atan(s, d);
}

void main()
{
    uint f = gl_GlobalInvocationID.x;
    if (f >= P.face_count) return;
    uint i0 = indices[3u * f], i1 = indices[3u * f + 1u], i2 = indices[3u * f + 2u];
    vec3 p0 = pos(i0), p1 = pos(i1), p2 = pos(i2);
    precise vec3 e1 = p1 - p0, e2 = p2 - p0;
    precise vec3 fn = cross(e1, e2);
    precise vec3 t = vec3(0.0), b = vec3(0.0);
    if (P.has_uv == 1u) {
        vec2 d1 = uv(i1) - uv(i0), d2 = uv(i2) - uv(i0);
        precise float det = d1.x * d2.y - d2.x * d1.y;
        if (abs(det) > 1e-12) {
            float inv = 1.0 / det;
            t = (e1 * d2.y - e2 * d1.y) * inv;
            b = (e2 * d1.x - e1 * d2.x) * inv;
        }
    }
    uint mirrored = uint(state[32u * i0 + 3u] < 0.0) + uint(state[32u * i1 + 3u] < 0.0) + uint(state[32u * i2 + 3u] < 0.0);
    if (mirrored >= 2u) fn = -fn;
    precise float len2 = dot(fn, fn);
    vec3 w = vec3(0.0);
    if (len2 >= 1e-24) {
        if (P.weighting == 2u) {
            w = vec3(1.0);
            fn *= 1.0 / sqrt(len2);
        } else if (P.weighting == 1u) {
            w = vec3(corner_angle(p0, p1, p2), corner_angle(p1, p2, p0), corner_angle(p2, p0, p1));
            fn *= 1.0 / sqrt(len2);
        } else {
            w = vec3(sqrt(len2));
        }
    }
    uint o = 12u * f;
    face[o] = fn.x; face[o + 1u] = fn.y; face[o + 2u] = fn.z;
    face[o + 3u] = t.x; face[o + 4u] = t.y; face[o + 5u] = t.z;
    face[o + 6u] = b.x; face[o + 7u] = b.y; face[o + 8u] = b.z;
    face[o + 9u] = w.x; face[o + 10u] = w.y; face[o + 11u] = w.z;
}

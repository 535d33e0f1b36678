// Shared by the HLSL compute shaders: the push constants (the same 48 bytes as the GLSL Params block).
struct Params {
    uint vertex_count, influences, morph_dirs, method;
    uint face_count, weighting, has_uv, pad;
    float bitangent_sign, jacobian_cap, pad1, pad2;
};
[[vk::push_constant]] ConstantBuffer<Params> P;

float3 safe_unit(float3 v)
{
    float len2 = dot(v, v);
    if (!(len2 >= 1e-24)) return float3(0.0, 0.0, 0.0);
    return v * (1.0 / sqrt(len2));
}

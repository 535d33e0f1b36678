// Generated from shaders/deform.comp by glslangValidator and spirv-cross --hlsl --shader-model 60
// (tests/shaders_hlsl.cmake, shaders/README.md): do not edit.
static const uint3 gl_WorkGroupSize = uint3(64u, 1u, 1u);

ByteAddressBuffer _35 : register(t0, space0);
ByteAddressBuffer _61 : register(t5, space0);
ByteAddressBuffer _83 : register(t11, space0);
ByteAddressBuffer _87 : register(t6, space0);
ByteAddressBuffer _103 : register(t7, space0);
ByteAddressBuffer _164 : register(t4, space0);
ByteAddressBuffer _182 : register(t3, space0);
ByteAddressBuffer _205 : register(t10, space0);
RWByteAddressBuffer _299 : register(u12, space0);
ByteAddressBuffer _332 : register(t1, space0);
ByteAddressBuffer _352 : register(t2, space0);
ByteAddressBuffer _404 : register(t8, space0);
ByteAddressBuffer _432 : register(t9, space0);
[[vk::push_constant]] cbuffer Params
{
    uint P_vertex_count : packoffset(c0);
    uint P_influences : packoffset(c0.y);
    uint P_morph_dirs : packoffset(c0.z);
    uint P_method : packoffset(c0.w);
    uint P_face_count : packoffset(c1);
    uint P_weighting : packoffset(c1.y);
    uint P_has_uv : packoffset(c1.z);
    uint P_out_base : packoffset(c1.w);
    float P_bitangent_sign : packoffset(c2);
    float P_jacobian_cap : packoffset(c2.y);
    uint P_morph_base : packoffset(c2.z);
    uint P_pad0 : packoffset(c2.w);
};


static uint3 gl_GlobalInvocationID;
struct SPIRV_Cross_Input
{
    uint3 gl_GlobalInvocationID : SV_DispatchThreadID;
};

float3 morph_position(uint i)
{
    float3 p = float3(asfloat(_35.Load((3u * i) * 4 + 0)), asfloat(_35.Load(((3u * i) + 1u) * 4 + 0)), asfloat(_35.Load(((3u * i) + 2u) * 4 + 0)));
    for (uint e = _61.Load(i * 4 + 0); e < _61.Load((i + 1u) * 4 + 0); e++)
    {
        float a = asfloat(_83.Load(_87.Load(e * 4 + 0) * 4 + 0));
        if (a == 0.0f)
        {
            continue;
        }
        precise float3 _119 = float3(asfloat(_103.Load((3u * e) * 4 + 0)), asfloat(_103.Load(((3u * e) + 1u) * 4 + 0)), asfloat(_103.Load(((3u * e) + 2u) * 4 + 0))) * a;
        precise float3 _121 = p + _119;
        p = _121;
    }
    return p;
}

float4x3 blend_matrix(uint i)
{
    float m[12];
    for (uint c = 0u; c < 12u; c++)
    {
        m[c] = 0.0f;
    }
    float total = 0.0f;
    for (uint k = 0u; k < P_influences; k++)
    {
        float w = asfloat(_164.Load(((P_influences * i) + k) * 4 + 0));
        if (w == 0.0f)
        {
            continue;
        }
        uint b = 12u * _182.Load(((P_influences * i) + k) * 4 + 0);
        for (uint c_1 = 0u; c_1 < 12u; c_1++)
        {
            precise float _211 = w * asfloat(_205.Load((b + c_1) * 4 + 0));
            precise float _214 = m[c_1] + _211;
            m[c_1] = _214;
        }
        total += w;
    }
    if (total == 0.0f)
    {
        m[0] = 1.0f;
        m[4] = 1.0f;
        m[8] = 1.0f;
    }
    return float4x3(float3(m[0], m[1], m[2]), float3(m[3], m[4], m[5]), float3(m[6], m[7], m[8]), float3(m[9], m[10], m[11]));
}

float3 mat_point(float4x3 m, float3 p)
{
    precise float3 _277 = m[0] * p.x;
    precise float3 _282 = m[1] * p.y;
    precise float3 _283 = _277 + _282;
    precise float3 _288 = m[2] * p.z;
    precise float3 _289 = _283 + _288;
    precise float3 _292 = _289 + m[3];
    float3 q = _292;
    return q;
}

void put3(uint o, float3 x)
{
    _299.Store(o * 4 + 0, asuint(x.x));
    _299.Store((o + 1u) * 4 + 0, asuint(x.y));
    _299.Store((o + 2u) * 4 + 0, asuint(x.z));
}

void comp_main()
{
    uint v = gl_GlobalInvocationID.x;
    if (v >= P_vertex_count)
    {
        return;
    }
    float3 n = float3(asfloat(_332.Load((3u * v) * 4 + 0)), asfloat(_332.Load(((3u * v) + 1u) * 4 + 0)), asfloat(_332.Load(((3u * v) + 2u) * 4 + 0)));
    float3 t = float3(asfloat(_352.Load((4u * v) * 4 + 0)), asfloat(_352.Load(((4u * v) + 1u) * 4 + 0)), asfloat(_352.Load(((4u * v) + 2u) * 4 + 0)));
    if (P_morph_dirs != 1u)
    {
        for (uint e = _61.Load(v * 4 + 0); e < _61.Load((v + 1u) * 4 + 0); e++)
        {
            float a = asfloat(_83.Load(_87.Load(e * 4 + 0) * 4 + 0));
            if (a == 0.0f)
            {
                continue;
            }
            precise float3 _420 = float3(asfloat(_404.Load((3u * e) * 4 + 0)), asfloat(_404.Load(((3u * e) + 1u) * 4 + 0)), asfloat(_404.Load(((3u * e) + 2u) * 4 + 0))) * a;
            precise float3 _422 = n + _420;
            n = _422;
            if (P_morph_dirs == 0u)
            {
                precise float3 _448 = float3(asfloat(_432.Load((3u * e) * 4 + 0)), asfloat(_432.Load(((3u * e) + 1u) * 4 + 0)), asfloat(_432.Load(((3u * e) + 2u) * 4 + 0))) * a;
                precise float3 _450 = t + _448;
                t = _450;
            }
        }
    }
    uint param = v;
    float3 p = morph_position(param);
    uint param_1 = v;
    float4x3 m = blend_matrix(param_1);
    uint o = 32u * v;
    float4x3 param_2 = m;
    float3 param_3 = p;
    uint param_4 = o + 0u;
    float3 param_5 = mat_point(param_2, param_3);
    put3(param_4, param_5);
    _299.Store((o + 3u) * 4 + 0, asuint(dot(m[0], cross(m[1], m[2]))));
    uint param_6 = o + 4u;
    float3 param_7 = p;
    put3(param_6, param_7);
    uint param_8 = o + 7u;
    float3 param_9 = n;
    put3(param_8, param_9);
    uint param_10 = o + 10u;
    float3 param_11 = t;
    put3(param_10, param_11);
    for (int c = 0; c < 4; c++)
    {
        uint param_12 = (o + 13u) + (3u * uint(c));
        float3 param_13 = m[c];
        put3(param_12, param_13);
    }
}

[numthreads(64, 1, 1)]
void main(SPIRV_Cross_Input stage_input)
{
    gl_GlobalInvocationID = stage_input.gl_GlobalInvocationID;
    comp_main();
}

// Generated from shaders/recompute_gather.comp by glslangValidator and spirv-cross --hlsl --shader-model 60
// (tests/shaders_hlsl.cmake, shaders/README.md): do not edit.
static const uint3 gl_WorkGroupSize = uint3(64u, 1u, 1u);

ByteAddressBuffer _129 : register(t15, space0);
ByteAddressBuffer _169 : register(t16, space0);
ByteAddressBuffer _189 : register(t17, space0);
RWByteAddressBuffer _251 : register(u13, space0);
RWByteAddressBuffer _272 : register(u14, space0);
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

float3 face3(uint o)
{
    return float3(asfloat(_129.Load(o * 4 + 0)), asfloat(_129.Load((o + 1u) * 4 + 0)), asfloat(_129.Load((o + 2u) * 4 + 0)));
}

void gather_add(inout float3 N, inout float3 T, inout float3 B, float3 fn, float3 ft, float3 fb, float w)
{
    float3 _70;
    if (P_weighting == 0u)
    {
        _70 = fn;
    }
    else
    {
        precise float3 _77 = fn * w;
        _70 = _77;
    }
    precise float3 _80 = N + _70;
    N = _80;
    precise float3 _83 = ft * w;
    precise float3 _85 = T + _83;
    T = _85;
    precise float3 _88 = fb * w;
    precise float3 _90 = B + _88;
    B = _90;
}

float3 safe_unit(float3 v)
{
    float len2 = dot(v, v);
    if (!(len2 >= 1.0000000195414813782625560981111e-24f))
    {
        return 0.0f.xxx;
    }
    return v * (1.0f / sqrt(len2));
}

float4 finish_frame(float3 N, float3 T, float3 B, inout float3 n)
{
    float3 param = N;
    n = safe_unit(param);
    precise float3 _100 = n * dot(n, T);
    precise float3 _101 = T - _100;
    float3 to = _101;
    float3 param_1 = to;
    float3 t = safe_unit(param_1);
    return float4(t, ((dot(cross(n, t), B) * P_bitangent_sign) < 0.0f) ? (-1.0f) : 1.0f);
}

void comp_main()
{
    uint v = gl_GlobalInvocationID.x;
    if (v >= P_vertex_count)
    {
        return;
    }
    float3 N = 0.0f.xxx;
    float3 T = 0.0f.xxx;
    float3 B = 0.0f.xxx;
    for (uint a = _169.Load(v * 4 + 0); a < _169.Load((v + 1u) * 4 + 0); a++)
    {
        uint corner = _189.Load(a * 4 + 0);
        uint o = 12u * (corner / 3u);
        uint param = o;
        uint param_1 = o + 3u;
        uint param_2 = o + 6u;
        float3 param_3 = N;
        float3 param_4 = T;
        float3 param_5 = B;
        float3 param_6 = face3(param);
        float3 param_7 = face3(param_1);
        float3 param_8 = face3(param_2);
        float param_9 = asfloat(_129.Load(((o + 9u) + (corner % 3u)) * 4 + 0));
        gather_add(param_3, param_4, param_5, param_6, param_7, param_8, param_9);
        N = param_3;
        T = param_4;
        B = param_5;
    }
    float3 param_10 = N;
    float3 param_11 = T;
    float3 param_12 = B;
    float3 param_13;
    float4 _246 = finish_frame(param_10, param_11, param_12, param_13);
    float3 n = param_13;
    float4 t = _246;
    _251.Store((3u * v) * 4 + 0, asuint(n.x));
    _251.Store(((3u * v) + 1u) * 4 + 0, asuint(n.y));
    _251.Store(((3u * v) + 2u) * 4 + 0, asuint(n.z));
    _272.Store((4u * v) * 4 + 0, asuint(t.x));
    _272.Store(((4u * v) + 1u) * 4 + 0, asuint(t.y));
    _272.Store(((4u * v) + 2u) * 4 + 0, asuint(t.z));
    _272.Store(((4u * v) + 3u) * 4 + 0, asuint(t.w));
}

[numthreads(64, 1, 1)]
void main(SPIRV_Cross_Input stage_input)
{
    gl_GlobalInvocationID = stage_input.gl_GlobalInvocationID;
    comp_main();
}

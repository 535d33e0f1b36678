// Generated from shaders/frames_vertex.comp by glslangValidator and spirv-cross --hlsl --shader-model 60
// (tests/shaders_hlsl.cmake, shaders/README.md): do not edit.
static const uint3 gl_WorkGroupSize = uint3(64u, 1u, 1u);

ByteAddressBuffer _82 : register(t10, space0);
ByteAddressBuffer _117 : register(t12, space0);
ByteAddressBuffer _194 : register(t2, space0);
ByteAddressBuffer _312 : register(t4, space0);
ByteAddressBuffer _330 : register(t3, space0);
RWByteAddressBuffer _385 : register(u13, space0);
RWByteAddressBuffer _406 : register(u14, space0);
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

float3 state3(uint o)
{
    return float3(asfloat(_117.Load(o * 4 + 0)), asfloat(_117.Load((o + 1u) * 4 + 0)), asfloat(_117.Load((o + 2u) * 4 + 0)));
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

float3 cofactor_dir(float3 a0, float3 a1, float3 a2, float3 v)
{
    return ((cross(a1, a2) * v.x) + (cross(a2, a0) * v.y)) + (cross(a0, a1) * v.z);
}

float3 bone_col(uint b, uint c)
{
    return float3(asfloat(_82.Load(((12u * b) + (3u * c)) * 4 + 0)), asfloat(_82.Load((((12u * b) + (3u * c)) + 1u) * 4 + 0)), asfloat(_82.Load((((12u * b) + (3u * c)) + 2u) * 4 + 0)));
}

void comp_main()
{
    uint v = gl_GlobalInvocationID.x;
    if (v >= P_vertex_count)
    {
        return;
    }
    uint o = 32u * v;
    float det = asfloat(_117.Load((o + 3u) * 4 + 0));
    uint param = o + 7u;
    float3 mn = state3(param);
    uint param_1 = o + 10u;
    float3 mt = state3(param_1);
    uint param_2 = o + 13u;
    float3 a0 = state3(param_2);
    uint param_3 = (o + 13u) + 3u;
    float3 a1 = state3(param_3);
    uint param_4 = (o + 13u) + 6u;
    float3 a2 = state3(param_4);
    float rest_w = asfloat(_194.Load(((4u * v) + 3u) * 4 + 0));
    float w = rest_w;
    float3 n;
    float3 t;
    if (P_method == 0u)
    {
        float3 param_5 = mn;
        n = safe_unit(param_5);
        float3 param_6 = mt;
        t = safe_unit(param_6);
    }
    else
    {
        float3 param_7 = ((a0 * mt.x) + (a1 * mt.y)) + (a2 * mt.z);
        t = safe_unit(param_7);
        float _236;
        if (det < 0.0f)
        {
            _236 = -rest_w;
        }
        else
        {
            _236 = rest_w;
        }
        w = _236;
        if (P_method == 1u)
        {
            float3 param_8 = ((a0 * mn.x) + (a1 * mn.y)) + (a2 * mn.z);
            n = safe_unit(param_8);
        }
        else
        {
            if (P_method == 2u)
            {
                float3 _275;
                if (abs(det) < 9.9999999600419720025001879548654e-13f)
                {
                    _275 = 0.0f.xxx;
                }
                else
                {
                    float3 param_9 = a0;
                    float3 param_10 = a1;
                    float3 param_11 = a2;
                    float3 param_12 = mn;
                    float3 param_13 = cofactor_dir(param_9, param_10, param_11, param_12) * (1.0f / det);
                    _275 = safe_unit(param_13);
                }
                n = _275;
            }
            else
            {
                float3 acc = 0.0f.xxx;
                float total = 0.0f;
                for (uint i = 0u; i < P_influences; i++)
                {
                    float wi = asfloat(_312.Load(((P_influences * v) + i) * 4 + 0));
                    if (wi == 0.0f)
                    {
                        continue;
                    }
                    uint b = _330.Load(((P_influences * v) + i) * 4 + 0);
                    uint param_14 = b;
                    uint param_15 = 0u;
                    uint param_16 = b;
                    uint param_17 = 1u;
                    uint param_18 = b;
                    uint param_19 = 2u;
                    float3 param_20 = bone_col(param_14, param_15);
                    float3 param_21 = bone_col(param_16, param_17);
                    float3 param_22 = bone_col(param_18, param_19);
                    float3 param_23 = mn;
                    acc += (cofactor_dir(param_20, param_21, param_22, param_23) * wi);
                    total += wi;
                }
                bool3 _372 = (total == 0.0f).xxx;
                float3 param_24 = float3(_372.x ? mn.x : acc.x, _372.y ? mn.y : acc.y, _372.z ? mn.z : acc.z);
                n = safe_unit(param_24);
            }
        }
    }
    if (P_has_uv == 0u)
    {
        t = 0.0f.xxx;
    }
    _385.Store((3u * v) * 4 + 0, asuint(n.x));
    _385.Store(((3u * v) + 1u) * 4 + 0, asuint(n.y));
    _385.Store(((3u * v) + 2u) * 4 + 0, asuint(n.z));
    _406.Store((4u * v) * 4 + 0, asuint(t.x));
    _406.Store(((4u * v) + 1u) * 4 + 0, asuint(t.y));
    _406.Store(((4u * v) + 2u) * 4 + 0, asuint(t.z));
    _406.Store(((4u * v) + 3u) * 4 + 0, asuint(w));
}

[numthreads(64, 1, 1)]
void main(SPIRV_Cross_Input stage_input)
{
    gl_GlobalInvocationID = stage_input.gl_GlobalInvocationID;
    comp_main();
}

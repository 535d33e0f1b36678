// Generated from shaders/recompute_faces.comp by glslangValidator and spirv-cross --hlsl --shader-model 60
// (tests/shaders_hlsl.cmake, shaders/README.md): do not edit.
static const uint3 gl_WorkGroupSize = uint3(64u, 1u, 1u);

ByteAddressBuffer _237 : register(t12, space0);
ByteAddressBuffer _272 : register(t18, space0);
ByteAddressBuffer _307 : register(t19, space0);
RWByteAddressBuffer _384 : register(u15, space0);
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

bool mirrors(uint v)
{
    return asfloat(_237.Load(((32u * v) + 3u) * 4 + 0)) < 0.0f;
}

float3 pos(uint v)
{
    uint o = (32u * v) + 0u;
    return float3(asfloat(_237.Load(o * 4 + 0)), asfloat(_237.Load((o + 1u) * 4 + 0)), asfloat(_237.Load((o + 2u) * 4 + 0)));
}

float2 uv(uint v)
{
    float2 _266;
    if (P_has_uv == 1u)
    {
        _266 = float2(asfloat(_272.Load((2u * v) * 4 + 0)), asfloat(_272.Load(((2u * v) + 1u) * 4 + 0)));
    }
    else
    {
        _266 = 0.0f.xx;
    }
    return _266;
}

float corner_angle(float3 p0, float3 p1, float3 p2)
{
    float3 a = p1 - p0;
    float3 b = p2 - p0;
    float s = length(cross(a, b));
    float d = dot(a, b);
    if ((s == 0.0f) && (d == 0.0f))
    {
        return 0.0f;
    }
    return atan2(s, d);
}

float3 face_frame(float3 p0, float3 p1, float3 p2, float2 uv0, float2 uv1, float2 uv2, uint mirrored, out float3 fn_out, out float3 ft_out, out float3 fb_out)
{
    precise float3 _80 = p1 - p0;
    float3 e1 = _80;
    precise float3 _84 = p2 - p0;
    float3 e2 = _84;
    float3 fn = cross(e1, e2);
    float3 ft = 0.0f.xxx;
    float3 fb = 0.0f.xxx;
    if (P_has_uv == 1u)
    {
        precise float2 _107 = uv1 - uv0;
        float2 d1 = _107;
        precise float2 _111 = uv2 - uv0;
        float2 d2 = _111;
        precise float _118 = d1.x * d2.y;
        precise float _123 = d2.x * d1.y;
        precise float _124 = _118 - _123;
        float det = _124;
        if (abs(det) > 9.9999999600419720025001879548654e-13f)
        {
            precise float _134 = 1.0f / det;
            float inv = _134;
            precise float3 _138 = e1 * d2.y;
            precise float3 _142 = e2 * d1.y;
            precise float3 _143 = _138 - _142;
            precise float3 _145 = _143 * inv;
            ft = _145;
            precise float3 _149 = e2 * d1.x;
            precise float3 _153 = e1 * d2.x;
            precise float3 _154 = _149 - _153;
            precise float3 _156 = _154 * inv;
            fb = _156;
        }
    }
    if (mirrored >= 2u)
    {
        fn = -fn;
    }
    float len2 = dot(fn, fn);
    float3 w = 0.0f.xxx;
    if (len2 >= 1.0000000195414813782625560981111e-24f)
    {
        if (P_weighting == 2u)
        {
            w = 1.0f.xxx;
            precise float _183 = 1.0f / sqrt(len2);
            precise float3 _185 = fn * _183;
            fn = _185;
        }
        else
        {
            if (P_weighting == 1u)
            {
                float3 param = p0;
                float3 param_1 = p1;
                float3 param_2 = p2;
                float3 param_3 = p1;
                float3 param_4 = p2;
                float3 param_5 = p0;
                float3 param_6 = p2;
                float3 param_7 = p0;
                float3 param_8 = p1;
                w = float3(corner_angle(param, param_1, param_2), corner_angle(param_3, param_4, param_5), corner_angle(param_6, param_7, param_8));
                precise float _216 = 1.0f / sqrt(len2);
                precise float3 _218 = fn * _216;
                fn = _218;
            }
            else
            {
                w = sqrt(len2).xxx;
            }
        }
    }
    fn_out = fn;
    ft_out = ft;
    fb_out = fb;
    return w;
}

void comp_main()
{
    uint f = gl_GlobalInvocationID.x;
    if (f >= P_face_count)
    {
        return;
    }
    uint i0 = _307.Load((3u * f) * 4 + 0);
    uint i1 = _307.Load(((3u * f) + 1u) * 4 + 0);
    uint i2 = _307.Load(((3u * f) + 2u) * 4 + 0);
    uint param = i0;
    uint param_1 = i1;
    uint param_2 = i2;
    uint mirrored = (uint(mirrors(param)) + uint(mirrors(param_1))) + uint(mirrors(param_2));
    uint param_3 = i0;
    uint param_4 = i1;
    uint param_5 = i2;
    uint param_6 = i0;
    uint param_7 = i1;
    uint param_8 = i2;
    float3 param_9 = pos(param_3);
    float3 param_10 = pos(param_4);
    float3 param_11 = pos(param_5);
    float2 param_12 = uv(param_6);
    float2 param_13 = uv(param_7);
    float2 param_14 = uv(param_8);
    uint param_15 = mirrored;
    float3 param_16;
    float3 param_17;
    float3 param_18;
    float3 _373 = face_frame(param_9, param_10, param_11, param_12, param_13, param_14, param_15, param_16, param_17, param_18);
    float3 fn = param_16;
    float3 t = param_17;
    float3 b = param_18;
    float3 w = _373;
    uint o = 12u * f;
    _384.Store(o * 4 + 0, asuint(fn.x));
    _384.Store((o + 1u) * 4 + 0, asuint(fn.y));
    _384.Store((o + 2u) * 4 + 0, asuint(fn.z));
    _384.Store((o + 3u) * 4 + 0, asuint(t.x));
    _384.Store((o + 4u) * 4 + 0, asuint(t.y));
    _384.Store((o + 5u) * 4 + 0, asuint(t.z));
    _384.Store((o + 6u) * 4 + 0, asuint(b.x));
    _384.Store((o + 7u) * 4 + 0, asuint(b.y));
    _384.Store((o + 8u) * 4 + 0, asuint(b.z));
    _384.Store((o + 9u) * 4 + 0, asuint(w.x));
    _384.Store((o + 10u) * 4 + 0, asuint(w.y));
    _384.Store((o + 11u) * 4 + 0, asuint(w.z));
}

[numthreads(64, 1, 1)]
void main(SPIRV_Cross_Input stage_input)
{
    gl_GlobalInvocationID = stage_input.gl_GlobalInvocationID;
    comp_main();
}

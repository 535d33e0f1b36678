// Generated from shaders/recompute_fused.comp by glslangValidator and spirv-cross --hlsl --shader-model 60
// (tests/shaders_hlsl.cmake, shaders/README.md): do not edit.
static const uint3 gl_WorkGroupSize = uint3(64u, 1u, 1u);

ByteAddressBuffer _342 : register(t0, space0);
ByteAddressBuffer _365 : register(t5, space0);
ByteAddressBuffer _385 : register(t11, space0);
ByteAddressBuffer _389 : register(t6, space0);
ByteAddressBuffer _404 : register(t7, space0);
ByteAddressBuffer _460 : register(t4, space0);
ByteAddressBuffer _478 : register(t3, space0);
ByteAddressBuffer _501 : register(t10, space0);
ByteAddressBuffer _622 : register(t18, space0);
ByteAddressBuffer _659 : register(t16, space0);
ByteAddressBuffer _678 : register(t17, space0);
ByteAddressBuffer _692 : register(t19, space0);
RWByteAddressBuffer _807 : register(u13, space0);
RWByteAddressBuffer _828 : register(u14, space0);
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
        float w = asfloat(_460.Load(((P_influences * i) + k) * 4 + 0));
        if (w == 0.0f)
        {
            continue;
        }
        uint b = 12u * _478.Load(((P_influences * i) + k) * 4 + 0);
        for (uint c_1 = 0u; c_1 < 12u; c_1++)
        {
            precise float _507 = w * asfloat(_501.Load((b + c_1) * 4 + 0));
            precise float _510 = m[c_1] + _507;
            m[c_1] = _510;
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

float3 morph_position(uint i)
{
    float3 p = float3(asfloat(_342.Load((3u * i) * 4 + 0)), asfloat(_342.Load(((3u * i) + 1u) * 4 + 0)), asfloat(_342.Load(((3u * i) + 2u) * 4 + 0)));
    for (uint e = _365.Load(i * 4 + 0); e < _365.Load((i + 1u) * 4 + 0); e++)
    {
        float a = asfloat(_385.Load(_389.Load(e * 4 + 0) * 4 + 0));
        if (a == 0.0f)
        {
            continue;
        }
        precise float3 _420 = float3(asfloat(_404.Load((3u * e) * 4 + 0)), asfloat(_404.Load(((3u * e) + 1u) * 4 + 0)), asfloat(_404.Load(((3u * e) + 2u) * 4 + 0))) * a;
        precise float3 _422 = p + _420;
        p = _422;
    }
    return p;
}

float3 mat_point(float4x3 m, float3 p)
{
    precise float3 _569 = m[0] * p.x;
    precise float3 _574 = m[1] * p.y;
    precise float3 _575 = _569 + _574;
    precise float3 _580 = m[2] * p.z;
    precise float3 _581 = _575 + _580;
    precise float3 _584 = _581 + m[3];
    float3 q = _584;
    return q;
}

float4 deformed(uint i)
{
    uint param = i;
    float4x3 m = blend_matrix(param);
    uint param_1 = i;
    float4x3 param_2 = m;
    float3 param_3 = morph_position(param_1);
    return float4(mat_point(param_2, param_3), dot(m[0], cross(m[1], m[2])));
}

float2 uv(uint i)
{
    float2 _616;
    if (P_has_uv == 1u)
    {
        _616 = float2(asfloat(_622.Load((2u * i) * 4 + 0)), asfloat(_622.Load(((2u * i) + 1u) * 4 + 0)));
    }
    else
    {
        _616 = 0.0f.xx;
    }
    return _616;
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
    precise float3 _133 = p1 - p0;
    float3 e1 = _133;
    precise float3 _137 = p2 - p0;
    float3 e2 = _137;
    float3 fn = cross(e1, e2);
    float3 ft = 0.0f.xxx;
    float3 fb = 0.0f.xxx;
    if (P_has_uv == 1u)
    {
        precise float2 _159 = uv1 - uv0;
        float2 d1 = _159;
        precise float2 _163 = uv2 - uv0;
        float2 d2 = _163;
        precise float _170 = d1.x * d2.y;
        precise float _175 = d2.x * d1.y;
        precise float _176 = _170 - _175;
        float det = _176;
        if (abs(det) > 9.9999999600419720025001879548654e-13f)
        {
            precise float _185 = 1.0f / det;
            float inv = _185;
            precise float3 _189 = e1 * d2.y;
            precise float3 _193 = e2 * d1.y;
            precise float3 _194 = _189 - _193;
            precise float3 _196 = _194 * inv;
            ft = _196;
            precise float3 _200 = e2 * d1.x;
            precise float3 _204 = e1 * d2.x;
            precise float3 _205 = _200 - _204;
            precise float3 _207 = _205 * inv;
            fb = _207;
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
            precise float _233 = 1.0f / sqrt(len2);
            precise float3 _235 = fn * _233;
            fn = _235;
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
                precise float _266 = 1.0f / sqrt(len2);
                precise float3 _268 = fn * _266;
                fn = _268;
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

void gather_add(inout float3 N, inout float3 T, inout float3 B, float3 fn, float3 ft, float3 fb, float w)
{
    float3 _282;
    if (P_weighting == 0u)
    {
        _282 = fn;
    }
    else
    {
        precise float3 _289 = fn * w;
        _282 = _289;
    }
    precise float3 _292 = N + _282;
    N = _292;
    precise float3 _295 = ft * w;
    precise float3 _297 = T + _295;
    T = _297;
    precise float3 _300 = fb * w;
    precise float3 _302 = B + _300;
    B = _302;
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
    precise float3 _312 = n * dot(n, T);
    precise float3 _313 = T - _312;
    float3 to = _313;
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
    float3 param_13;
    float3 param_14;
    float3 param_15;
    for (uint a = _659.Load(v * 4 + 0); a < _659.Load((v + 1u) * 4 + 0); a++)
    {
        uint corner = _678.Load(a * 4 + 0);
        uint f = corner / 3u;
        uint c = corner % 3u;
        uint i0 = _692.Load((3u * f) * 4 + 0);
        uint i1 = _692.Load(((3u * f) + 1u) * 4 + 0);
        uint i2 = _692.Load(((3u * f) + 2u) * 4 + 0);
        uint param = i0;
        float4 q0 = deformed(param);
        uint param_1 = i1;
        float4 q1 = deformed(param_1);
        uint param_2 = i2;
        float4 q2 = deformed(param_2);
        uint mirrored = (uint(q0.w < 0.0f) + uint(q1.w < 0.0f)) + uint(q2.w < 0.0f);
        uint param_3 = i0;
        uint param_4 = i1;
        uint param_5 = i2;
        float3 param_6 = q0.xyz;
        float3 param_7 = q1.xyz;
        float3 param_8 = q2.xyz;
        float2 param_9 = uv(param_3);
        float2 param_10 = uv(param_4);
        float2 param_11 = uv(param_5);
        uint param_12 = mirrored;
        float3 _767 = face_frame(param_6, param_7, param_8, param_9, param_10, param_11, param_12, param_13, param_14, param_15);
        float3 fn = param_13;
        float3 ft = param_14;
        float3 fb = param_15;
        float3 w = _767;
        float3 param_16 = N;
        float3 param_17 = T;
        float3 param_18 = B;
        float3 param_19 = fn;
        float3 param_20 = ft;
        float3 param_21 = fb;
        float param_22 = w[c];
        gather_add(param_16, param_17, param_18, param_19, param_20, param_21, param_22);
        N = param_16;
        T = param_17;
        B = param_18;
    }
    float3 param_23 = N;
    float3 param_24 = T;
    float3 param_25 = B;
    float3 param_26;
    float4 _802 = finish_frame(param_23, param_24, param_25, param_26);
    float3 n = param_26;
    float4 t = _802;
    _807.Store((3u * v) * 4 + 0, asuint(n.x));
    _807.Store(((3u * v) + 1u) * 4 + 0, asuint(n.y));
    _807.Store(((3u * v) + 2u) * 4 + 0, asuint(n.z));
    _828.Store((4u * v) * 4 + 0, asuint(t.x));
    _828.Store(((4u * v) + 1u) * 4 + 0, asuint(t.y));
    _828.Store(((4u * v) + 2u) * 4 + 0, asuint(t.z));
    _828.Store(((4u * v) + 3u) * 4 + 0, asuint(t.w));
}

[numthreads(64, 1, 1)]
void main(SPIRV_Cross_Input stage_input)
{
    gl_GlobalInvocationID = stage_input.gl_GlobalInvocationID;
    comp_main();
}

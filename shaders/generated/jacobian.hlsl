// Generated from shaders/jacobian.comp by glslangValidator and spirv-cross --hlsl --shader-model 60
// (tests/shaders_hlsl.cmake, shaders/README.md): do not edit.
static const uint3 gl_WorkGroupSize = uint3(64u, 1u, 1u);

ByteAddressBuffer _170 : register(t12, space0);
ByteAddressBuffer _252 : register(t2, space0);
ByteAddressBuffer _290 : register(t1, space0);
ByteAddressBuffer _332 : register(t23, space0);
ByteAddressBuffer _352 : register(t11, space0);
ByteAddressBuffer _356 : register(t24, space0);
ByteAddressBuffer _371 : register(t25, space0);
ByteAddressBuffer _450 : register(t20, space0);
ByteAddressBuffer _469 : register(t21, space0);
ByteAddressBuffer _487 : register(t10, space0);
ByteAddressBuffer _563 : register(t22, space0);
RWByteAddressBuffer _671 : register(u13, space0);
RWByteAddressBuffer _692 : register(u14, space0);
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
    return float3(asfloat(_170.Load(o * 4 + 0)), asfloat(_170.Load((o + 1u) * 4 + 0)), asfloat(_170.Load((o + 2u) * 4 + 0)));
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

bool nonzero(float3 v)
{
    return dot(v, v) > 0.0f;
}

void tangent_basis(float3 n, out float3 u, out float3 v)
{
    float s = (n.z >= 0.0f) ? 1.0f : (-1.0f);
    float a = (-1.0f) / (s + n.z);
    float b = (n.x * n.y) * a;
    u = float3(1.0f + (((s * n.x) * n.x) * a), s * b, (-s) * n.x);
    v = float3(b, s + ((n.y * n.y) * a), -n.y);
}

float3 capped(float3 c, float3 base, float cap)
{
    if (!(cap > 0.0f))
    {
        return c;
    }
    float lim = cap * length(base);
    float lc = length(c);
    float3 _98;
    if (lc > lim)
    {
        _98 = c * (lim / lc);
    }
    else
    {
        _98 = c;
    }
    return _98;
}

float3 orthonormal(float3 n, float3 t)
{
    float3 param = t - (n * dot(n, t));
    return safe_unit(param);
}

void comp_main()
{
    uint v = gl_GlobalInvocationID.x;
    if (v >= P_vertex_count)
    {
        return;
    }
    uint o = 32u * v;
    uint param = o + 0u;
    float3 Pf = state3(param);
    float det = asfloat(_170.Load((o + 3u) * 4 + 0));
    uint param_1 = o + 4u;
    float3 x = state3(param_1);
    uint param_2 = o + 13u;
    float3 a0 = state3(param_2);
    uint param_3 = (o + 13u) + 3u;
    float3 a1 = state3(param_3);
    uint param_4 = (o + 13u) + 6u;
    float3 a2 = state3(param_4);
    float4 t0 = float4(asfloat(_252.Load((4u * v) * 4 + 0)), asfloat(_252.Load(((4u * v) + 1u) * 4 + 0)), asfloat(_252.Load(((4u * v) + 2u) * 4 + 0)), asfloat(_252.Load(((4u * v) + 3u) * 4 + 0)));
    float _276;
    if (det < 0.0f)
    {
        _276 = -t0.w;
    }
    else
    {
        _276 = t0.w;
    }
    float w = _276;
    float3 param_5 = float3(asfloat(_290.Load((3u * v) * 4 + 0)), asfloat(_290.Load(((3u * v) + 1u) * 4 + 0)), asfloat(_290.Load(((3u * v) + 2u) * 4 + 0)));
    float3 n0 = safe_unit(param_5);
    float3 nrm = 0.0f.xxx;
    float3 _tan = 0.0f.xxx;
    float3 param_6 = n0;
    if (nonzero(param_6))
    {
        float3 param_7 = n0;
        float3 param_8;
        float3 param_9;
        tangent_basis(param_7, param_8, param_9);
        float3 u = param_8;
        float3 vv = param_9;
        float3 mu = u;
        float3 mv = vv;
        for (uint e = _332.Load(v * 4 + 0); e < _332.Load((v + 1u) * 4 + 0); e++)
        {
            float al = asfloat(_352.Load(_356.Load(e * 4 + 0) * 4 + 0));
            if (al == 0.0f)
            {
                continue;
            }
            precise float3 _387 = float3(asfloat(_371.Load((6u * e) * 4 + 0)), asfloat(_371.Load(((6u * e) + 1u) * 4 + 0)), asfloat(_371.Load(((6u * e) + 2u) * 4 + 0))) * al;
            precise float3 _389 = mu + _387;
            mu = _389;
            precise float3 _408 = float3(asfloat(_371.Load(((6u * e) + 3u) * 4 + 0)), asfloat(_371.Load(((6u * e) + 4u) * 4 + 0)), asfloat(_371.Load(((6u * e) + 5u) * 4 + 0))) * al;
            precise float3 _410 = mv + _408;
            mv = _410;
        }
        precise float3 _418 = a0 * mu.x;
        precise float3 _422 = a1 * mu.y;
        precise float3 _423 = _418 + _422;
        precise float3 _427 = a2 * mu.z;
        precise float3 _428 = _423 + _427;
        float3 ju = _428;
        precise float3 _433 = a0 * mv.x;
        precise float3 _437 = a1 * mv.y;
        precise float3 _438 = _433 + _437;
        precise float3 _442 = a2 * mv.z;
        precise float3 _443 = _438 + _442;
        float3 jv = _443;
        float3 cu = 0.0f.xxx;
        float3 cv = 0.0f.xxx;
        for (uint k = _450.Load(v * 4 + 0); k < _450.Load((v + 1u) * 4 + 0); k++)
        {
            uint j = _469.Load(k * 4 + 0);
            float3 pj = x;
            if (j != 4294967295u)
            {
                uint bb = 12u * j;
                precise float3 _502 = float3(asfloat(_487.Load(bb * 4 + 0)), asfloat(_487.Load((bb + 1u) * 4 + 0)), asfloat(_487.Load((bb + 2u) * 4 + 0))) * x.x;
                precise float3 _518 = float3(asfloat(_487.Load((bb + 3u) * 4 + 0)), asfloat(_487.Load((bb + 4u) * 4 + 0)), asfloat(_487.Load((bb + 5u) * 4 + 0))) * x.y;
                precise float3 _519 = _502 + _518;
                precise float3 _537 = float3(asfloat(_487.Load((bb + 6u) * 4 + 0)), asfloat(_487.Load((bb + 7u) * 4 + 0)), asfloat(_487.Load((bb + 8u) * 4 + 0))) * x.z;
                precise float3 _538 = _519 + _537;
                precise float3 _555 = _538 + float3(asfloat(_487.Load((bb + 9u) * 4 + 0)), asfloat(_487.Load((bb + 10u) * 4 + 0)), asfloat(_487.Load((bb + 11u) * 4 + 0)));
                pj = _555;
            }
            precise float3 _558 = pj - Pf;
            pj = _558;
            precise float3 _568 = pj * asfloat(_563.Load((2u * k) * 4 + 0));
            precise float3 _570 = cu + _568;
            cu = _570;
            precise float3 _577 = pj * asfloat(_563.Load(((2u * k) + 1u) * 4 + 0));
            precise float3 _579 = cv + _577;
            cv = _579;
        }
        float3 param_10 = cu;
        float3 param_11 = ju;
        float param_12 = P_jacobian_cap;
        precise float3 _593 = ju + capped(param_10, param_11, param_12);
        ju = _593;
        float3 param_13 = cv;
        float3 param_14 = jv;
        float param_15 = P_jacobian_cap;
        precise float3 _603 = jv + capped(param_13, param_14, param_15);
        jv = _603;
        float3 N = cross(ju, jv);
        if (det < 0.0f)
        {
            N = -N;
        }
        float3 param_16 = N;
        nrm = safe_unit(param_16);
        float tu = dot(t0.xyz, u);
        float tv = dot(t0.xyz, vv);
        float3 T = (ju * tu) + (jv * tv);
        float3 param_17 = nrm;
        float3 param_18 = T;
        _tan = orthonormal(param_17, param_18);
        float3 param_19 = _tan;
        if (!nonzero(param_19))
        {
            float3 param_20 = ((a0 * t0.x) + (a1 * t0.y)) + (a2 * t0.z);
            _tan = safe_unit(param_20);
        }
    }
    if (P_has_uv == 0u)
    {
        _tan = 0.0f.xxx;
    }
    _671.Store((3u * v) * 4 + 0, asuint(nrm.x));
    _671.Store(((3u * v) + 1u) * 4 + 0, asuint(nrm.y));
    _671.Store(((3u * v) + 2u) * 4 + 0, asuint(nrm.z));
    _692.Store((4u * v) * 4 + 0, asuint(_tan.x));
    _692.Store(((4u * v) + 1u) * 4 + 0, asuint(_tan.y));
    _692.Store(((4u * v) + 2u) * 4 + 0, asuint(_tan.z));
    _692.Store(((4u * v) + 3u) * 4 + 0, asuint(w));
}

[numthreads(64, 1, 1)]
void main(SPIRV_Cross_Input stage_input)
{
    gl_GlobalInvocationID = stage_input.gl_GlobalInvocationID;
    comp_main();
}

// Generated from shaders/jacobian_fan.comp by glslangValidator and spirv-cross --hlsl --shader-model 60
// (tests/shaders_hlsl.cmake, shaders/README.md): do not edit.
static const uint3 gl_WorkGroupSize = uint3(64u, 1u, 1u);

ByteAddressBuffer _291 : register(t12, space0);
ByteAddressBuffer _312 : register(t10, space0);
ByteAddressBuffer _404 : register(t2, space0);
ByteAddressBuffer _442 : register(t1, space0);
ByteAddressBuffer _464 : register(t26, space0);
ByteAddressBuffer _512 : register(t23, space0);
ByteAddressBuffer _532 : register(t11, space0);
ByteAddressBuffer _536 : register(t24, space0);
ByteAddressBuffer _550 : register(t25, space0);
ByteAddressBuffer _630 : register(t20, space0);
ByteAddressBuffer _649 : register(t21, space0);
ByteAddressBuffer _742 : register(t22, space0);
RWByteAddressBuffer _983 : register(u13, space0);
RWByteAddressBuffer _1004 : register(u14, space0);
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
    return float3(asfloat(_291.Load(o * 4 + 0)), asfloat(_291.Load((o + 1u) * 4 + 0)), asfloat(_291.Load((o + 2u) * 4 + 0)));
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

float3 bone_col(uint j, uint c)
{
    return float3(asfloat(_312.Load(((12u * j) + (3u * c)) * 4 + 0)), asfloat(_312.Load((((12u * j) + (3u * c)) + 1u) * 4 + 0)), asfloat(_312.Load((((12u * j) + (3u * c)) + 2u) * 4 + 0)));
}

float3 capped(float3 c, float3 base, float cap)
{
    if (!(cap > 0.0f))
    {
        return c;
    }
    float lim = cap * length(base);
    float lc = length(c);
    float3 _117;
    if (lc > lim)
    {
        _117 = c * (lim / lc);
    }
    else
    {
        _117 = c;
    }
    return _117;
}

float3 orthonormal(float3 n, float3 t)
{
    float3 param = t - (n * dot(n, t));
    return safe_unit(param);
}

float3 frame_rotate(float3 n0, float3 t0, float3 n1, float3 t1, float3 d)
{
    return ((n1 * dot(n0, d)) + (t1 * dot(t0, d))) + (cross(n1, t1) * dot(cross(n0, t0), d));
}

float3 arc_rotate(float3 a, float3 b, float3 d)
{
    float3 k = cross(a, b);
    float c = dot(a, b);
    if (c > (-0.99989998340606689453125f))
    {
        return ((d * c) + cross(k, d)) + (k * (dot(k, d) / (1.0f + c)));
    }
    float3 q = abs(a);
    float3 _248;
    if (q.x < q.y)
    {
        bool3 _259 = (q.x < q.z).xxx;
        _248 = float3(_259.x ? float3(1.0f, 0.0f, 0.0f).x : float3(0.0f, 0.0f, 1.0f).x, _259.y ? float3(1.0f, 0.0f, 0.0f).y : float3(0.0f, 0.0f, 1.0f).y, _259.z ? float3(1.0f, 0.0f, 0.0f).z : float3(0.0f, 0.0f, 1.0f).z);
    }
    else
    {
        bool3 _268 = (q.y < q.z).xxx;
        _248 = float3(_268.x ? float3(0.0f, 1.0f, 0.0f).x : float3(0.0f, 0.0f, 1.0f).x, _268.y ? float3(0.0f, 1.0f, 0.0f).y : float3(0.0f, 0.0f, 1.0f).y, _268.z ? float3(0.0f, 1.0f, 0.0f).z : float3(0.0f, 0.0f, 1.0f).z);
    }
    float3 e = _248;
    float3 param = cross(a, e);
    float3 axis = safe_unit(param);
    return (axis * (2.0f * dot(axis, d))) - d;
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
    float det = asfloat(_291.Load((o + 3u) * 4 + 0));
    uint param_1 = o + 4u;
    float3 x = state3(param_1);
    uint param_2 = o + 13u;
    float3 a0 = state3(param_2);
    uint param_3 = (o + 13u) + 3u;
    float3 a1 = state3(param_3);
    uint param_4 = (o + 13u) + 6u;
    float3 a2 = state3(param_4);
    float4 t0 = float4(asfloat(_404.Load((4u * v) * 4 + 0)), asfloat(_404.Load(((4u * v) + 1u) * 4 + 0)), asfloat(_404.Load(((4u * v) + 2u) * 4 + 0)), asfloat(_404.Load(((4u * v) + 3u) * 4 + 0)));
    float _428;
    if (det < 0.0f)
    {
        _428 = -t0.w;
    }
    else
    {
        _428 = t0.w;
    }
    float w = _428;
    float3 param_5 = float3(asfloat(_442.Load((3u * v) * 4 + 0)), asfloat(_442.Load(((3u * v) + 1u) * 4 + 0)), asfloat(_442.Load(((3u * v) + 2u) * 4 + 0)));
    float3 na = safe_unit(param_5);
    float3 param_6 = float3(asfloat(_464.Load((3u * v) * 4 + 0)), asfloat(_464.Load(((3u * v) + 1u) * 4 + 0)), asfloat(_464.Load(((3u * v) + 2u) * 4 + 0)));
    float3 nf = safe_unit(param_6);
    float3 n = 0.0f.xxx;
    float3 t = 0.0f.xxx;
    float3 param_7 = na;
    bool _486 = nonzero(param_7);
    bool _492;
    if (_486)
    {
        float3 param_8 = nf;
        _492 = nonzero(param_8);
    }
    else
    {
        _492 = _486;
    }
    if (_492)
    {
        float3 param_9 = nf;
        float3 param_10;
        float3 param_11;
        tangent_basis(param_9, param_10, param_11);
        float3 u = param_10;
        float3 vv = param_11;
        float3 mu = u;
        float3 mv = vv;
        for (uint e = _512.Load(v * 4 + 0); e < _512.Load((v + 1u) * 4 + 0); e++)
        {
            float al = asfloat(_532.Load(_536.Load(e * 4 + 0) * 4 + 0));
            if (al == 0.0f)
            {
                continue;
            }
            precise float3 _567 = float3(asfloat(_550.Load((6u * e) * 4 + 0)), asfloat(_550.Load(((6u * e) + 1u) * 4 + 0)), asfloat(_550.Load(((6u * e) + 2u) * 4 + 0))) * al;
            precise float3 _569 = mu + _567;
            mu = _569;
            precise float3 _588 = float3(asfloat(_550.Load(((6u * e) + 3u) * 4 + 0)), asfloat(_550.Load(((6u * e) + 4u) * 4 + 0)), asfloat(_550.Load(((6u * e) + 5u) * 4 + 0))) * al;
            precise float3 _590 = mv + _588;
            mv = _590;
        }
        precise float3 _598 = a0 * mu.x;
        precise float3 _602 = a1 * mu.y;
        precise float3 _603 = _598 + _602;
        precise float3 _607 = a2 * mu.z;
        precise float3 _608 = _603 + _607;
        float3 ju = _608;
        precise float3 _613 = a0 * mv.x;
        precise float3 _617 = a1 * mv.y;
        precise float3 _618 = _613 + _617;
        precise float3 _622 = a2 * mv.z;
        precise float3 _623 = _618 + _622;
        float3 jv = _623;
        float3 cu = 0.0f.xxx;
        float3 cv = 0.0f.xxx;
        for (uint k = _630.Load(v * 4 + 0); k < _630.Load((v + 1u) * 4 + 0); k++)
        {
            uint j = _649.Load(k * 4 + 0);
            uint c = 6u * k;
            float3 pj = x;
            float3 au = mu;
            float3 av = mv;
            if (j != 4294967295u)
            {
                uint param_12 = j;
                uint param_13 = 0u;
                float3 b0 = bone_col(param_12, param_13);
                uint param_14 = j;
                uint param_15 = 1u;
                float3 b1 = bone_col(param_14, param_15);
                uint param_16 = j;
                uint param_17 = 2u;
                float3 b2 = bone_col(param_16, param_17);
                precise float3 _685 = b0 * x.x;
                precise float3 _689 = b1 * x.y;
                precise float3 _690 = _685 + _689;
                precise float3 _694 = b2 * x.z;
                precise float3 _695 = _690 + _694;
                uint param_18 = j;
                uint param_19 = 3u;
                precise float3 _700 = _695 + bone_col(param_18, param_19);
                pj = _700;
                precise float3 _704 = b0 * mu.x;
                precise float3 _708 = b1 * mu.y;
                precise float3 _709 = _704 + _708;
                precise float3 _713 = b2 * mu.z;
                precise float3 _714 = _709 + _713;
                au = _714;
                precise float3 _718 = b0 * mv.x;
                precise float3 _722 = b1 * mv.y;
                precise float3 _723 = _718 + _722;
                precise float3 _727 = b2 * mv.z;
                precise float3 _728 = _723 + _727;
                av = _728;
            }
            precise float3 _731 = pj - Pf;
            pj = _731;
            precise float3 _734 = au - ju;
            au = _734;
            precise float3 _737 = av - jv;
            av = _737;
            precise float3 _746 = pj * asfloat(_742.Load(c * 4 + 0));
            precise float3 _748 = cu + _746;
            cu = _748;
            precise float3 _754 = pj * asfloat(_742.Load((c + 1u) * 4 + 0));
            precise float3 _756 = cv + _754;
            cv = _756;
            precise float3 _762 = au * asfloat(_742.Load((c + 2u) * 4 + 0));
            precise float3 _764 = cu + _762;
            cu = _764;
            precise float3 _770 = av * asfloat(_742.Load((c + 3u) * 4 + 0));
            precise float3 _772 = cu + _770;
            cu = _772;
            precise float3 _778 = au * asfloat(_742.Load((c + 4u) * 4 + 0));
            precise float3 _780 = cv + _778;
            cv = _780;
            precise float3 _786 = av * asfloat(_742.Load((c + 5u) * 4 + 0));
            precise float3 _788 = cv + _786;
            cv = _788;
        }
        float3 param_20 = cu;
        float3 param_21 = ju;
        float param_22 = P_jacobian_cap;
        precise float3 _802 = ju + capped(param_20, param_21, param_22);
        ju = _802;
        float3 param_23 = cv;
        float3 param_24 = jv;
        float param_25 = P_jacobian_cap;
        precise float3 _812 = jv + capped(param_23, param_24, param_25);
        jv = _812;
        float3 t0n = t0.xyz;
        if (all(bool3(ju.x == u.x, ju.y == u.y, ju.z == u.z)) && all(bool3(jv.x == vv.x, jv.y == vv.y, jv.z == vv.z)))
        {
            n = na;
            float3 param_26 = t0n;
            t = safe_unit(param_26);
        }
        else
        {
            float3 N = cross(ju, jv);
            if (det < 0.0f)
            {
                N = -N;
            }
            float3 param_27 = N;
            float3 n1 = safe_unit(param_27);
            float3 param_28 = n1;
            if (!nonzero(param_28))
            {
                float3 param_29 = ((a0 * t0n.x) + (a1 * t0n.y)) + (a2 * t0n.z);
                t = safe_unit(param_29);
            }
            else
            {
                float3 nr = cross(u, vv);
                float3 param_30 = nr;
                float3 param_31 = t0n;
                float3 tr = orthonormal(param_30, param_31);
                float3 param_32 = tr;
                if (!nonzero(param_32))
                {
                    tr = u;
                }
                float3 param_33 = n1;
                float3 param_34 = (ju * dot(tr, u)) + (jv * dot(tr, vv));
                float3 t1 = orthonormal(param_33, param_34);
                float3 param_35 = t1;
                if (nonzero(param_35))
                {
                    float3 param_36 = nr;
                    float3 param_37 = tr;
                    float3 param_38 = n1;
                    float3 param_39 = t1;
                    float3 param_40 = na;
                    n = frame_rotate(param_36, param_37, param_38, param_39, param_40);
                    float3 param_41 = nr;
                    float3 param_42 = tr;
                    float3 param_43 = n1;
                    float3 param_44 = t1;
                    float3 param_45 = t0n;
                    t = frame_rotate(param_41, param_42, param_43, param_44, param_45);
                }
                else
                {
                    float3 param_46 = nr;
                    float3 param_47 = n1;
                    float3 param_48 = na;
                    n = arc_rotate(param_46, param_47, param_48);
                    float3 param_49 = nr;
                    float3 param_50 = n1;
                    float3 param_51 = t0n;
                    t = arc_rotate(param_49, param_50, param_51);
                }
                float3 param_52 = n;
                n = safe_unit(param_52);
                float3 param_53 = n;
                float3 param_54 = t;
                t = orthonormal(param_53, param_54);
                float3 param_55 = t;
                if (!nonzero(param_55))
                {
                    float3 param_56 = ((a0 * t0n.x) + (a1 * t0n.y)) + (a2 * t0n.z);
                    t = safe_unit(param_56);
                }
            }
        }
    }
    if (P_has_uv == 0u)
    {
        t = 0.0f.xxx;
    }
    _983.Store((3u * v) * 4 + 0, asuint(n.x));
    _983.Store(((3u * v) + 1u) * 4 + 0, asuint(n.y));
    _983.Store(((3u * v) + 2u) * 4 + 0, asuint(n.z));
    _1004.Store((4u * v) * 4 + 0, asuint(t.x));
    _1004.Store(((4u * v) + 1u) * 4 + 0, asuint(t.y));
    _1004.Store(((4u * v) + 2u) * 4 + 0, asuint(t.z));
    _1004.Store(((4u * v) + 3u) * 4 + 0, asuint(w));
}

[numthreads(64, 1, 1)]
void main(SPIRV_Cross_Input stage_input)
{
    gl_GlobalInvocationID = stage_input.gl_GlobalInvocationID;
    comp_main();
}

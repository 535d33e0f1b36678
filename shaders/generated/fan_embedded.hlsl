// Generated from shaders/fan_embedded.vert by glslangValidator and spirv-cross --hlsl --shader-model 60
// (tests/shaders_hlsl.cmake, shaders/README.md): do not edit.
ByteAddressBuffer _291 : register(t0, space0);
ByteAddressBuffer _315 : register(t5, space0);
ByteAddressBuffer _335 : register(t11, space0);
ByteAddressBuffer _339 : register(t6, space0);
ByteAddressBuffer _354 : register(t7, space0);
ByteAddressBuffer _414 : register(t4, space0);
ByteAddressBuffer _432 : register(t3, space0);
ByteAddressBuffer _455 : register(t10, space0);
ByteAddressBuffer _1064 : register(t20, space0);
ByteAddressBuffer _1186 : register(t1, space0);
ByteAddressBuffer _1206 : register(t2, space0);
RWByteAddressBuffer _1270 : register(u13, space0);
RWByteAddressBuffer _1291 : register(u14, space0);
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


static float4 gl_Position;
static int gl_VertexIndex;
static float4 fan_scale0;
static float4 fan_scale1;
static float4 fan_coef[24];
static float3 fan_normal;
static uint4 fan_joints[4];

struct SPIRV_Cross_Input
{
    float3 fan_normal : TEXCOORD0;
    uint4 fan_joints[4] : TEXCOORD1;
    float4 fan_coef[24] : TEXCOORD5;
    float4 fan_scale0 : TEXCOORD29;
    float4 fan_scale1 : TEXCOORD30;
    uint gl_VertexIndex : SV_VertexID;
};

struct SPIRV_Cross_Output
{
    float4 gl_Position : SV_Position;
};

float3 morph_position(uint i)
{
    float3 p = float3(asfloat(_291.Load((3u * i) * 4 + 0)), asfloat(_291.Load(((3u * i) + 1u) * 4 + 0)), asfloat(_291.Load(((3u * i) + 2u) * 4 + 0)));
    for (uint e = _315.Load(i * 4 + 0); e < _315.Load((i + 1u) * 4 + 0); e++)
    {
        float a = asfloat(_335.Load(_339.Load(e * 4 + 0) * 4 + 0));
        if (a == 0.0f)
        {
            continue;
        }
        precise float3 _370 = float3(asfloat(_354.Load((3u * e) * 4 + 0)), asfloat(_354.Load(((3u * e) + 1u) * 4 + 0)), asfloat(_354.Load(((3u * e) + 2u) * 4 + 0))) * a;
        precise float3 _372 = p + _370;
        p = _372;
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
        float w = asfloat(_414.Load(((P_influences * i) + k) * 4 + 0));
        if (w == 0.0f)
        {
            continue;
        }
        uint b = 12u * _432.Load(((P_influences * i) + k) * 4 + 0);
        for (uint c_1 = 0u; c_1 < 12u; c_1++)
        {
            precise float _461 = w * asfloat(_455.Load((b + c_1) * 4 + 0));
            precise float _464 = m[c_1] + _461;
            m[c_1] = _464;
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
    precise float3 _526 = m[0] * p.x;
    precise float3 _531 = m[1] * p.y;
    precise float3 _532 = _526 + _531;
    precise float3 _537 = m[2] * p.z;
    precise float3 _538 = _532 + _537;
    precise float3 _541 = _538 + m[3];
    float3 q = _541;
    return q;
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

float4x3 sf_fan_bone(uint j)
{
    uint b = 12u * j;
    return float4x3(float3(asfloat(_455.Load(b * 4 + 0)), asfloat(_455.Load((b + 1u) * 4 + 0)), asfloat(_455.Load((b + 2u) * 4 + 0))), float3(asfloat(_455.Load((b + 3u) * 4 + 0)), asfloat(_455.Load((b + 4u) * 4 + 0)), asfloat(_455.Load((b + 5u) * 4 + 0))), float3(asfloat(_455.Load((b + 6u) * 4 + 0)), asfloat(_455.Load((b + 7u) * 4 + 0)), asfloat(_455.Load((b + 8u) * 4 + 0))), float3(asfloat(_455.Load((b + 9u) * 4 + 0)), asfloat(_455.Load((b + 10u) * 4 + 0)), asfloat(_455.Load((b + 11u) * 4 + 0))));
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
    float3 _247;
    if (q.x < q.y)
    {
        bool3 _258 = (q.x < q.z).xxx;
        _247 = float3(_258.x ? float3(1.0f, 0.0f, 0.0f).x : float3(0.0f, 0.0f, 1.0f).x, _258.y ? float3(1.0f, 0.0f, 0.0f).y : float3(0.0f, 0.0f, 1.0f).y, _258.z ? float3(1.0f, 0.0f, 0.0f).z : float3(0.0f, 0.0f, 1.0f).z);
    }
    else
    {
        bool3 _267 = (q.y < q.z).xxx;
        _247 = float3(_267.x ? float3(0.0f, 1.0f, 0.0f).x : float3(0.0f, 0.0f, 1.0f).x, _267.y ? float3(0.0f, 1.0f, 0.0f).y : float3(0.0f, 0.0f, 1.0f).y, _267.z ? float3(0.0f, 1.0f, 0.0f).z : float3(0.0f, 0.0f, 1.0f).z);
    }
    float3 e = _247;
    float3 param = cross(a, e);
    float3 axis = safe_unit(param);
    return (axis * (2.0f * dot(axis, d))) - d;
}

void sf_fan_frame(float3 x, float3 P_1, float3 a0, float3 a1, float3 a2, float det, float3 n0, float4 t0, float3 fan_normal_1, float3 du, float3 dv, uint4 joints[4], float4 coef[24], inout float3 n_out, inout float4 t_out)
{
    float _612;
    if (det < 0.0f)
    {
        _612 = -t0.w;
    }
    else
    {
        _612 = t0.w;
    }
    float w = _612;
    float3 param = n0;
    float3 na = safe_unit(param);
    float3 param_1 = fan_normal_1;
    float3 nf = safe_unit(param_1);
    float3 n = 0.0f.xxx;
    float3 t = 0.0f.xxx;
    float3 param_2 = na;
    bool _634 = nonzero(param_2);
    bool _640;
    if (_634)
    {
        float3 param_3 = nf;
        _640 = nonzero(param_3);
    }
    else
    {
        _640 = _634;
    }
    if (_640)
    {
        float3 param_4 = nf;
        float3 param_5;
        float3 param_6;
        tangent_basis(param_4, param_5, param_6);
        float3 u = param_5;
        float3 vv = param_6;
        precise float3 _655 = u + du;
        float3 mu = _655;
        precise float3 _659 = vv + dv;
        float3 mv = _659;
        precise float3 _664 = a0 * mu.x;
        precise float3 _668 = a1 * mu.y;
        precise float3 _669 = _664 + _668;
        precise float3 _673 = a2 * mu.z;
        precise float3 _674 = _669 + _673;
        float3 ju = _674;
        precise float3 _679 = a0 * mv.x;
        precise float3 _683 = a1 * mv.y;
        precise float3 _684 = _679 + _683;
        precise float3 _688 = a2 * mv.z;
        precise float3 _689 = _684 + _688;
        float3 jv = _689;
        float3 cu = 0.0f.xxx;
        float3 cv = 0.0f.xxx;
        for (int g = 0; g < 4; g++)
        {
            for (int i = 0; i < 4; i++)
            {
                uint j = joints[g][i];
                float3 pj = x;
                float3 au = mu;
                float3 av = mv;
                if (j != 65535u)
                {
                    uint param_7 = j;
                    float4x3 b = sf_fan_bone(param_7);
                    precise float3 _733 = b[0] * x.x;
                    precise float3 _738 = b[1] * x.y;
                    precise float3 _739 = _733 + _738;
                    precise float3 _744 = b[2] * x.z;
                    precise float3 _745 = _739 + _744;
                    precise float3 _748 = _745 + b[3];
                    pj = _748;
                    precise float3 _753 = b[0] * mu.x;
                    precise float3 _758 = b[1] * mu.y;
                    precise float3 _759 = _753 + _758;
                    precise float3 _764 = b[2] * mu.z;
                    precise float3 _765 = _759 + _764;
                    au = _765;
                    precise float3 _770 = b[0] * mv.x;
                    precise float3 _775 = b[1] * mv.y;
                    precise float3 _776 = _770 + _775;
                    precise float3 _781 = b[2] * mv.z;
                    precise float3 _782 = _776 + _781;
                    av = _782;
                }
                precise float3 _785 = pj - P_1;
                pj = _785;
                precise float3 _788 = au - ju;
                au = _788;
                precise float3 _791 = av - jv;
                av = _791;
                precise float3 _798 = pj * coef[6 * g][i];
                precise float3 _800 = cu + _798;
                cu = _800;
                precise float3 _808 = pj * coef[(6 * g) + 1][i];
                precise float3 _810 = cv + _808;
                cv = _810;
                precise float3 _818 = au * coef[(6 * g) + 2][i];
                precise float3 _820 = cu + _818;
                cu = _820;
                precise float3 _828 = av * coef[(6 * g) + 3][i];
                precise float3 _830 = cu + _828;
                cu = _830;
                precise float3 _838 = au * coef[(6 * g) + 4][i];
                precise float3 _840 = cv + _838;
                cv = _840;
                precise float3 _848 = av * coef[(6 * g) + 5][i];
                precise float3 _850 = cv + _848;
                cv = _850;
            }
        }
        precise float3 _857 = ju + cu;
        ju = _857;
        precise float3 _860 = jv + cv;
        jv = _860;
        float3 t0n = t0.xyz;
        if (all(bool3(ju.x == u.x, ju.y == u.y, ju.z == u.z)) && all(bool3(jv.x == vv.x, jv.y == vv.y, jv.z == vv.z)))
        {
            n = na;
            float3 param_8 = t0n;
            t = safe_unit(param_8);
        }
        else
        {
            float3 N = cross(ju, jv);
            if (det < 0.0f)
            {
                N = -N;
            }
            float3 param_9 = N;
            float3 n1 = safe_unit(param_9);
            float3 param_10 = n1;
            if (!nonzero(param_10))
            {
                float3 param_11 = ((a0 * t0n.x) + (a1 * t0n.y)) + (a2 * t0n.z);
                t = safe_unit(param_11);
            }
            else
            {
                float3 nr = cross(u, vv);
                float3 param_12 = nr;
                float3 param_13 = t0n;
                float3 tr = orthonormal(param_12, param_13);
                float3 param_14 = tr;
                if (!nonzero(param_14))
                {
                    tr = u;
                }
                float3 param_15 = n1;
                float3 param_16 = (ju * dot(tr, u)) + (jv * dot(tr, vv));
                float3 t1 = orthonormal(param_15, param_16);
                float3 param_17 = t1;
                if (nonzero(param_17))
                {
                    float3 param_18 = nr;
                    float3 param_19 = tr;
                    float3 param_20 = n1;
                    float3 param_21 = t1;
                    float3 param_22 = na;
                    n = frame_rotate(param_18, param_19, param_20, param_21, param_22);
                    float3 param_23 = nr;
                    float3 param_24 = tr;
                    float3 param_25 = n1;
                    float3 param_26 = t1;
                    float3 param_27 = t0n;
                    t = frame_rotate(param_23, param_24, param_25, param_26, param_27);
                }
                else
                {
                    float3 param_28 = nr;
                    float3 param_29 = n1;
                    float3 param_30 = na;
                    n = arc_rotate(param_28, param_29, param_30);
                    float3 param_31 = nr;
                    float3 param_32 = n1;
                    float3 param_33 = t0n;
                    t = arc_rotate(param_31, param_32, param_33);
                }
                float3 param_34 = n;
                n = safe_unit(param_34);
                float3 param_35 = n;
                float3 param_36 = t;
                t = orthonormal(param_35, param_36);
                float3 param_37 = t;
                if (!nonzero(param_37))
                {
                    float3 param_38 = ((a0 * t0n.x) + (a1 * t0n.y)) + (a2 * t0n.z);
                    t = safe_unit(param_38);
                }
            }
        }
    }
    n_out = n;
    t_out = float4(t, w);
}

void vert_main()
{
    uint v = uint(gl_VertexIndex);
    uint param = v;
    float3 x = morph_position(param);
    uint param_1 = v;
    float4x3 m = blend_matrix(param_1);
    float4x3 param_2 = m;
    float3 param_3 = x;
    float3 pos = mat_point(param_2, param_3);
    float det = dot(m[0], cross(m[1], m[2]));
    uint n = P_vertex_count;
    uint T = _1064.Load(0);
    float3 du = 0.0f.xxx;
    float3 dv = 0.0f.xxx;
    for (uint k = 0u; k < T; k++)
    {
        float a = asfloat(_335.Load(k * 4 + 0));
        if (a == 0.0f)
        {
            continue;
        }
        uint o = ((6u * n) * k) + (3u * v);
        precise float3 _1108 = float3(asfloat(_1064.Load(o * 4 + 4)), asfloat(_1064.Load((o + 1u) * 4 + 4)), asfloat(_1064.Load((o + 2u) * 4 + 4))) * a;
        precise float3 _1110 = du + _1108;
        du = _1110;
        precise float3 _1133 = float3(asfloat(_1064.Load((o + (3u * n)) * 4 + 4)), asfloat(_1064.Load(((o + (3u * n)) + 1u) * 4 + 4)), asfloat(_1064.Load(((o + (3u * n)) + 2u) * 4 + 4))) * a;
        precise float3 _1135 = dv + _1133;
        dv = _1135;
    }
    float _1157[6] = { fan_scale0.x, fan_scale0.y, fan_scale0.z, fan_scale0.w, fan_scale1.x, fan_scale1.y };
    float scale[6] = _1157;
    float4 coef[24];
    for (int c = 0; c < 24; c++)
    {
        coef[c] = fan_coef[c] * scale[c % 6];
    }
    float3 n0 = float3(asfloat(_1186.Load((3u * v) * 4 + 0)), asfloat(_1186.Load(((3u * v) + 1u) * 4 + 0)), asfloat(_1186.Load(((3u * v) + 2u) * 4 + 0)));
    float4 t0 = float4(asfloat(_1206.Load((4u * v) * 4 + 0)), asfloat(_1206.Load(((4u * v) + 1u) * 4 + 0)), asfloat(_1206.Load(((4u * v) + 2u) * 4 + 0)), asfloat(_1206.Load(((4u * v) + 3u) * 4 + 0)));
    float3 param_4 = x;
    float3 param_5 = pos;
    float3 param_6 = m[0];
    float3 param_7 = m[1];
    float3 param_8 = m[2];
    float param_9 = det;
    float3 param_10 = n0;
    float4 param_11 = t0;
    float3 param_12 = fan_normal;
    float3 param_13 = du;
    float3 param_14 = dv;
    uint4 param_15[4] = fan_joints;
    float4 param_16[24] = coef;
    float3 param_17;
    float4 param_18;
    sf_fan_frame(param_4, param_5, param_6, param_7, param_8, param_9, param_10, param_11, param_12, param_13, param_14, param_15, param_16, param_17, param_18);
    float3 nrm = param_17;
    float4 _tan = param_18;
    _1270.Store((3u * v) * 4 + 0, asuint(nrm.x));
    _1270.Store(((3u * v) + 1u) * 4 + 0, asuint(nrm.y));
    _1270.Store(((3u * v) + 2u) * 4 + 0, asuint(nrm.z));
    _1291.Store((4u * v) * 4 + 0, asuint(_tan.x));
    _1291.Store(((4u * v) + 1u) * 4 + 0, asuint(_tan.y));
    _1291.Store(((4u * v) + 2u) * 4 + 0, asuint(_tan.z));
    _1291.Store(((4u * v) + 3u) * 4 + 0, asuint(_tan.w));
    gl_Position = float4(0.0f, 0.0f, 0.0f, 1.0f);
}

SPIRV_Cross_Output main(SPIRV_Cross_Input stage_input)
{
    gl_VertexIndex = int(stage_input.gl_VertexIndex);
    fan_scale0 = stage_input.fan_scale0;
    fan_scale1 = stage_input.fan_scale1;
    fan_coef = stage_input.fan_coef;
    fan_normal = stage_input.fan_normal;
    fan_joints = stage_input.fan_joints;
    vert_main();
    SPIRV_Cross_Output stage_output;
    stage_output.gl_Position = gl_Position;
    return stage_output;
}

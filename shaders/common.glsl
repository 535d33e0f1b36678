// The formulas every GLSL pass shares, written from src/kernels/sf_kernels.h (each names its C twin), without
// the C kernels' overflow paths: inputs within SF_MAX_COORD and ordinary bone scales do not reach them. Included
// after generated/layout.glsl (the push constants P and the ids). `precise` (SPIR-V NoContraction) keeps the
// compiler from fusing multiply-adds: the C library rounds each product, and a vertex whose face normals nearly
// cancel would amplify the difference.

// The article's SafeUnit: zero when |v|^2 < 1e-24 (sfk_safe_unit).
vec3 safe_unit(vec3 v)
{
    float len2 = dot(v, v);
    if (!(len2 >= SF_SAFE_UNIT_EPS2)) return vec3(0.0);
    return v * (1.0 / sqrt(len2));
}

bool nonzero(vec3 v) { return dot(v, v) > 0.0; }

// t made unit and orthogonal to unit n, zero when impossible (sfk_orthonormal_tangent).
vec3 orthonormal(vec3 n, vec3 t) { return safe_unit(t - n * dot(n, t)); }

// cof(A) v = [a1 x a2, a2 x a0, a0 x a1] v for A's columns a0 a1 a2 (sfk_mat_cofactor_dir).
vec3 cofactor_dir(vec3 a0, vec3 a1, vec3 a2, vec3 v)
{
    return cross(a1, a2) * v.x + cross(a2, a0) * v.y + cross(a0, a1) * v.z;
}

// Tarini's cap: c limited to cap |base|; cap 0 = off (sfk_jacobian_cap).
vec3 capped(vec3 c, vec3 base, float cap)
{
    if (!(cap > 0.0)) return c;
    float lim = cap * length(base), lc = length(c);
    return lc > lim ? c * (lim / lc) : c;
}

// (u, v) with u x v = n for a unit n (Duff et al. 2017, sfk_tangent_basis).
void tangent_basis(vec3 n, out vec3 u, out vec3 v)
{
    float s = n.z >= 0.0 ? 1.0 : -1.0;
    float a = -1.0 / (s + n.z);
    float b = n.x * n.y * a;
    u = vec3(1.0 + s * n.x * n.x * a, s * b, -s * n.x);
    v = vec3(b, s + n.y * n.y * a, -n.y);
}

// R d for the rotation taking the frame (n0, t0) to (n1, t1), all unit (sfk_frame_rotate).
vec3 frame_rotate(vec3 n0, vec3 t0, vec3 n1, vec3 t1, vec3 d)
{
    return n1 * dot(n0, d) + t1 * dot(t0, d) + cross(n1, t1) * dot(cross(n0, t0), d);
}

// R d for the shortest arc from unit a to unit b; a half turn where they are opposite (sfk_arc_rotate).
vec3 arc_rotate(vec3 a, vec3 b, vec3 d)
{
    vec3 k = cross(a, b);
    float c = dot(a, b);
    if (c > -0.9999) return d * c + cross(k, d) + k * (dot(k, d) / (1.0 + c));
    vec3 q = abs(a);
    vec3 e = q.x < q.y ? (q.x < q.z ? vec3(1.0, 0.0, 0.0) : vec3(0.0, 0.0, 1.0))
                       : (q.y < q.z ? vec3(0.0, 1.0, 0.0) : vec3(0.0, 0.0, 1.0));
    vec3 axis = safe_unit(cross(a, e));
    return axis * (2.0 * dot(axis, d)) - d;
}

// Interior angle at p0 of the triangle p0 p1 p2, 0 for a degenerate corner (sfk_corner_angle).
float corner_angle(vec3 p0, vec3 p1, vec3 p2)
{
    vec3 a = p1 - p0, b = p2 - p0;
    float s = length(cross(a, b)), d = dot(a, b);
    if (s == 0.0 && d == 0.0) return 0.0;
    return atan(s, d);
}

// One face of the reference (sfk_recompute_face, sfk_recompute_face_frame, sfk_recompute_corner_weight): from
// its final corners, their UVs and how many corners mirror, the face normal fn (negated when two or more mirror;
// unit for angle and uniform weighting), UV tangent ft and bitangent fb, and the three corner weights (area:
// |fn|; angle: corner angles; uniform: 1; all zero for a collapsed face).
vec3 face_frame(vec3 p0, vec3 p1, vec3 p2, vec2 uv0, vec2 uv1, vec2 uv2, uint mirrored, out vec3 fn_out,
                out vec3 ft_out, out vec3 fb_out)
{
    precise vec3 e1 = p1 - p0, e2 = p2 - p0;
    precise vec3 fn = cross(e1, e2);
    precise vec3 ft = vec3(0.0), fb = vec3(0.0);
    if (P.has_uv == 1u) {
        vec2 d1 = uv1 - uv0, d2 = uv2 - uv0;
        precise float det = d1.x * d2.y - d2.x * d1.y;
        if (abs(det) > SF_UV_DET_EPS) {
            float inv = 1.0 / det;
            ft = (e1 * d2.y - e2 * d1.y) * inv;
            fb = (e2 * d1.x - e1 * d2.x) * inv;
        }
    }
    if (mirrored >= 2u) fn = -fn;
    precise float len2 = dot(fn, fn);
    vec3 w = vec3(0.0);
    if (len2 >= SF_SAFE_UNIT_EPS2) {
        if (P.weighting == SF_WEIGHTING_UNIFORM) {
            w = vec3(1.0);
            fn *= 1.0 / sqrt(len2);
        } else if (P.weighting == SF_WEIGHTING_ANGLE) {
            w = vec3(corner_angle(p0, p1, p2), corner_angle(p1, p2, p0), corner_angle(p2, p0, p1));
            fn *= 1.0 / sqrt(len2);
        } else {
            w = vec3(sqrt(len2));
        }
    }
    fn_out = fn;
    ft_out = ft;
    fb_out = fb;
    return w;
}

// The gather's step: a face's frame at one of its corners, weight w, added to the vertex's sums
// (sfk_recompute_vertex; area weighting adds the unnormalised face normal itself).
void gather_add(inout precise vec3 N, inout precise vec3 T, inout precise vec3 B, vec3 fn, vec3 ft, vec3 fb, float w)
{
    N += P.weighting == SF_WEIGHTING_AREA ? fn : fn * w;
    T += ft * w;
    B += fb * w;
}

// n = SafeUnit(N), t = SafeUnit(T - n (n.T)), w = sign(dot(cross(n, t), B) * bitangent_sign) (sfk_finish_frame).
vec4 finish_frame(vec3 N, vec3 T, vec3 B, out vec3 n)
{
    n = safe_unit(N);
    precise vec3 to = T - n * dot(n, T);
    vec3 t = safe_unit(to);
    return vec4(t, dot(cross(n, t), B) * P.bitangent_sign < 0.0 ? -1.0 : 1.0);
}

#ifdef SF_DEFORM_BUFFERS
// After the pass declares rest_positions, joints, weights, morph_offsets, morph_target, morph_dp, bones and
// morph_weights.

// Vertex i's rest position plus its weighted morph position deltas (sfk_deform_position).
vec3 morph_position(uint i)
{
    precise vec3 p = vec3(rest_positions[3u * i], rest_positions[3u * i + 1u], rest_positions[3u * i + 2u]);
    for (uint e = morph_offsets[i]; e < morph_offsets[i + 1u]; ++e) {
        float a = morph_weights[morph_target[e]];
        if (a == 0.0) continue;
        p += a * vec3(morph_dp[3u * e], morph_dp[3u * e + 1u], morph_dp[3u * e + 2u]);
    }
    return p;
}

// Vertex i's blended bone matrix, columns a0 a1 a2 and the translation; the identity without influences
// (sfk_blend_matrix).
mat4x3 blend_matrix(uint i)
{
    precise float m[SF_BONE_FLOATS];
    for (uint c = 0u; c < SF_BONE_FLOATS; ++c) m[c] = 0.0;
    float total = 0.0;
    for (uint k = 0u; k < P.influences; ++k) {
        float w = weights[P.influences * i + k];
        if (w == 0.0) continue;
        uint b = SF_BONE_FLOATS * joints[P.influences * i + k];
        for (uint c = 0u; c < SF_BONE_FLOATS; ++c) m[c] += w * bones[b + c];
        total += w;
    }
    if (total == 0.0) { m[0] = 1.0; m[4] = 1.0; m[8] = 1.0; }
    return mat4x3(m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9], m[10], m[11]);
}

// A p + t for a blended matrix (sfk_mat_point), each product rounded.
vec3 mat_point(mat4x3 m, vec3 p)
{
    precise vec3 q = m[0] * p.x + m[1] * p.y + m[2] * p.z + m[3];
    return q;
}
#endif

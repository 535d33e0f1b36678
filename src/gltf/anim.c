/* Animation: sampling glTF channels (LINEAR with slerp, STEP, CUBICSPLINE), node hierarchies and the
 * per-instance pose (bone matrices, morph weights) that sf_frames_compute takes. */
#include "gltf_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- 4x4 column-major matrices */

void sfi_mat4_from_trs(const float t[3], const float r[4], const float s[3], float out[16])
{
    double x = r[0], y = r[1], z = r[2], w = r[3];
    double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                   2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                   2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    for (int c = 0; c < 3; ++c) {
        for (int k = 0; k < 3; ++k) out[4 * c + k] = (float)(R[3 * c + k] * s[c]);
        out[4 * c + 3] = 0.0f;
    }
    out[12] = t[0], out[13] = t[1], out[14] = t[2], out[15] = 1.0f;
}

void sfi_mat4_mul(const float a[16], const float b[16], float out[16])
{
    float r[16];
    for (int c = 0; c < 4; ++c)
        for (int k = 0; k < 4; ++k) {
            double v = 0.0;
            for (int j = 0; j < 4; ++j) v += (double)a[4 * j + k] * b[4 * c + j];
            r[4 * c + k] = (float)v;
        }
    memcpy(out, r, sizeof r);
}

int sfi_mat4_invert(const float m[16], float out[16])
{
    double a[16], inv[16];
    for (int i = 0; i < 16; ++i) a[i] = m[i];
    inv[0] = a[5] * a[10] * a[15] - a[5] * a[11] * a[14] - a[9] * a[6] * a[15] + a[9] * a[7] * a[14] +
             a[13] * a[6] * a[11] - a[13] * a[7] * a[10];
    inv[4] = -a[4] * a[10] * a[15] + a[4] * a[11] * a[14] + a[8] * a[6] * a[15] - a[8] * a[7] * a[14] -
             a[12] * a[6] * a[11] + a[12] * a[7] * a[10];
    inv[8] = a[4] * a[9] * a[15] - a[4] * a[11] * a[13] - a[8] * a[5] * a[15] + a[8] * a[7] * a[13] +
             a[12] * a[5] * a[11] - a[12] * a[7] * a[9];
    inv[12] = -a[4] * a[9] * a[14] + a[4] * a[10] * a[13] + a[8] * a[5] * a[14] - a[8] * a[6] * a[13] -
              a[12] * a[5] * a[10] + a[12] * a[6] * a[9];
    inv[1] = -a[1] * a[10] * a[15] + a[1] * a[11] * a[14] + a[9] * a[2] * a[15] - a[9] * a[3] * a[14] -
             a[13] * a[2] * a[11] + a[13] * a[3] * a[10];
    inv[5] = a[0] * a[10] * a[15] - a[0] * a[11] * a[14] - a[8] * a[2] * a[15] + a[8] * a[3] * a[14] +
             a[12] * a[2] * a[11] - a[12] * a[3] * a[10];
    inv[9] = -a[0] * a[9] * a[15] + a[0] * a[11] * a[13] + a[8] * a[1] * a[15] - a[8] * a[3] * a[13] -
             a[12] * a[1] * a[11] + a[12] * a[3] * a[9];
    inv[13] = a[0] * a[9] * a[14] - a[0] * a[10] * a[13] - a[8] * a[1] * a[14] + a[8] * a[2] * a[13] +
              a[12] * a[1] * a[10] - a[12] * a[2] * a[9];
    inv[2] = a[1] * a[6] * a[15] - a[1] * a[7] * a[14] - a[5] * a[2] * a[15] + a[5] * a[3] * a[14] +
             a[13] * a[2] * a[7] - a[13] * a[3] * a[6];
    inv[6] = -a[0] * a[6] * a[15] + a[0] * a[7] * a[14] + a[4] * a[2] * a[15] - a[4] * a[3] * a[14] -
             a[12] * a[2] * a[7] + a[12] * a[3] * a[6];
    inv[10] = a[0] * a[5] * a[15] - a[0] * a[7] * a[13] - a[4] * a[1] * a[15] + a[4] * a[3] * a[13] +
              a[12] * a[1] * a[7] - a[12] * a[3] * a[5];
    inv[14] = -a[0] * a[5] * a[14] + a[0] * a[6] * a[13] + a[4] * a[1] * a[14] - a[4] * a[2] * a[13] -
              a[12] * a[1] * a[6] + a[12] * a[2] * a[5];
    inv[3] = -a[1] * a[6] * a[11] + a[1] * a[7] * a[10] + a[5] * a[2] * a[11] - a[5] * a[3] * a[10] -
             a[9] * a[2] * a[7] + a[9] * a[3] * a[6];
    inv[7] = a[0] * a[6] * a[11] - a[0] * a[7] * a[10] - a[4] * a[2] * a[11] + a[4] * a[3] * a[10] +
             a[8] * a[2] * a[7] - a[8] * a[3] * a[6];
    inv[11] = -a[0] * a[5] * a[11] + a[0] * a[7] * a[9] + a[4] * a[1] * a[11] - a[4] * a[3] * a[9] -
              a[8] * a[1] * a[7] + a[8] * a[3] * a[5];
    inv[15] = a[0] * a[5] * a[10] - a[0] * a[6] * a[9] - a[4] * a[1] * a[10] + a[4] * a[2] * a[9] +
              a[8] * a[1] * a[6] - a[8] * a[2] * a[5];
    double det = a[0] * inv[0] + a[1] * inv[4] + a[2] * inv[8] + a[3] * inv[12];
    if (det == 0.0 || !isfinite(det)) return 0;
    for (int i = 0; i < 16; ++i) out[i] = (float)(inv[i] / det);
    return 1;
}

/* TRS of a matrix without shear (used only when a matrix node is animated, which glTF forbids). */
static void mat4_to_trs(const float m[16], float t[3], float r[4], float s[3])
{
    t[0] = m[12], t[1] = m[13], t[2] = m[14];
    double c[3][3];
    for (int k = 0; k < 3; ++k) {
        double len = sqrt((double)m[4 * k] * m[4 * k] + (double)m[4 * k + 1] * m[4 * k + 1] +
                          (double)m[4 * k + 2] * m[4 * k + 2]);
        s[k] = (float)len;
        for (int j = 0; j < 3; ++j) c[k][j] = len > 0.0 ? m[4 * k + j] / len : (k == j);
    }
    double det = c[0][0] * (c[1][1] * c[2][2] - c[2][1] * c[1][2]) - c[1][0] * (c[0][1] * c[2][2] - c[2][1] * c[0][2]) +
                 c[2][0] * (c[0][1] * c[1][2] - c[1][1] * c[0][2]);
    if (det < 0.0) {
        s[0] = -s[0];
        for (int j = 0; j < 3; ++j) c[0][j] = -c[0][j];
    }
    /* Rotation matrix (columns c[k]) to quaternion. */
    double tr = c[0][0] + c[1][1] + c[2][2], x, y, z, w;
    if (tr > 0.0) {
        double q = sqrt(tr + 1.0) * 2.0;
        w = 0.25 * q, x = (c[1][2] - c[2][1]) / q, y = (c[2][0] - c[0][2]) / q, z = (c[0][1] - c[1][0]) / q;
    } else if (c[0][0] > c[1][1] && c[0][0] > c[2][2]) {
        double q = sqrt(1.0 + c[0][0] - c[1][1] - c[2][2]) * 2.0;
        w = (c[1][2] - c[2][1]) / q, x = 0.25 * q, y = (c[1][0] + c[0][1]) / q, z = (c[2][0] + c[0][2]) / q;
    } else if (c[1][1] > c[2][2]) {
        double q = sqrt(1.0 + c[1][1] - c[0][0] - c[2][2]) * 2.0;
        w = (c[2][0] - c[0][2]) / q, x = (c[1][0] + c[0][1]) / q, y = 0.25 * q, z = (c[2][1] + c[1][2]) / q;
    } else {
        double q = sqrt(1.0 + c[2][2] - c[0][0] - c[1][1]) * 2.0;
        w = (c[0][1] - c[1][0]) / q, x = (c[2][0] + c[0][2]) / q, y = (c[2][1] + c[1][2]) / q, z = 0.25 * q;
    }
    double n = sqrt(x * x + y * y + z * z + w * w);
    r[0] = (float)(x / n), r[1] = (float)(y / n), r[2] = (float)(z / n), r[3] = (float)(w / n);
}

/* ---------------------------------------------------------------- channel sampling */

static void normalize_quat(float* q)
{
    double n = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
    if (n > 0.0)
        for (int k = 0; k < 4; ++k) q[k] = (float)(q[k] / n);
    else
        q[0] = q[1] = q[2] = 0.0f, q[3] = 1.0f;
}

/* Shortest-path spherical interpolation, u in [0, 1]. */
static void slerp(const float* a, const float* b, double u, float* out)
{
    double d = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3];
    double sb = 1.0;
    if (d < 0.0) d = -d, sb = -1.0;
    double s0, s1;
    if (d > 0.9995) { /* nearly parallel: lerp, then normalise */
        s0 = 1.0 - u, s1 = u;
    } else {
        double theta = acos(d), st = sin(theta);
        s0 = sin((1.0 - u) * theta) / st, s1 = sin(u * theta) / st;
    }
    for (int k = 0; k < 4; ++k) out[k] = (float)(s0 * a[k] + sb * s1 * b[k]);
    normalize_quat(out);
}

/* A double result as float, saturated at +-FLT_MAX: a cubic spline through finite keys can overshoot the
 * float range, and a huge value is refused downstream (the core's magnitude bounds) where an infinity
 * would spread. */
static float saturate(double x) { return x > FLT_MAX ? FLT_MAX : x < -FLT_MAX ? -FLT_MAX : (float)x; }

/* LINEAR between two keys taken as given, at u in (0, 1), by the engine's slerp (sf_gltf_rotation_keys): the
 * shortest path, the slerp weights outside the lerp branch (nothing normalised there), the lerp branch
 * normalised or not as the engine does. Three.js alone returns a key unchanged when both keys are equal. */
static void slerp_as_given(const float* a, const float* b, double u, int rule, float* out)
{
    double x0 = a[0], y0 = a[1], z0 = a[2], w0 = a[3], x1 = b[0], y1 = b[1], z1 = b[2], w1 = b[3];
    if (rule != SF_GLTF_ROTATIONS_THREE || x0 != x1 || y0 != y1 || z0 != z1 || w0 != w1) {
        double dot = x0 * x1 + y0 * y1 + z0 * z1 + w0 * w1;
        if (dot < 0.0) x1 = -x1, y1 = -y1, z1 = -z1, w1 = -w1, dot = -dot;
        bool lerp = rule == SF_GLTF_ROTATIONS_BABYLON ? dot > 0.999999
                  : rule == SF_GLTF_ROTATIONS_GLAM    ? dot > 1.0 - (double)FLT_EPSILON
                                                      : !(dot < 0.9995);
        double s = 1.0 - u, t = u;
        if (!lerp) {
            double theta = acos(dot), st = sin(theta);
            s = sin(s * theta) / st, t = sin(t * theta) / st;
        }
        x0 = x0 * s + x1 * t, y0 = y0 * s + y1 * t, z0 = z0 * s + z1 * t, w0 = w0 * s + w1 * t;
        if (lerp && rule != SF_GLTF_ROTATIONS_BABYLON) {
            double f = 1.0 / sqrt(x0 * x0 + y0 * y0 + z0 * z0 + w0 * w0);
            x0 *= f, y0 *= f, z0 *= f, w0 *= f;
        }
    }
    out[0] = (float)x0, out[1] = (float)y0, out[2] = (float)z0, out[3] = (float)w0;
}

static void channel_sample(const sf_gltf_channel* ch, double t, float* out, int as_given);

void sf_gltf_channel_sample(const sf_gltf_channel* ch, double t, float* out) { channel_sample(ch, t, out, 0); }

static void channel_sample(const sf_gltf_channel* ch, double t, float* out, int as_given)
{
    if (ch->path != SF_GLTF_ROTATION) as_given = SF_GLTF_ROTATIONS_UNIT;
    size_t C = ch->components, n = ch->key_count;
    int cubic = ch->interpolation == SF_GLTF_CUBICSPLINE;
    size_t key_stride = cubic ? 3 * C : C, value_at = cubic ? C : 0;
    if (n == 0 || C == 0) return;
    const float* times = ch->times;
    size_t k;
    if (n == 1 || !(t > times[0])) {
        k = 0;
        t = times[0];
    } else if (t >= times[n - 1]) {
        k = n - 1;
    } else {
        size_t lo = 0, hi = n - 1; /* times[lo] <= t < times[hi] */
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (times[mid] <= t)
                lo = mid;
            else
                hi = mid;
        }
        k = lo;
    }
    const float* v0 = ch->values + k * key_stride + value_at;
    if (k == n - 1 || ch->interpolation == SF_GLTF_STEP || !(times[k + 1] > times[k])) {
        memcpy(out, v0, C * sizeof(float));
        if (ch->path == SF_GLTF_ROTATION && !as_given) normalize_quat(out);
        return;
    }
    const float* v1 = ch->values + (k + 1) * key_stride + value_at;
    double td = (double)times[k + 1] - times[k];
    double u = (t - times[k]) / td;
    if (ch->interpolation == SF_GLTF_LINEAR) {
        if (as_given) {
            if (u <= 0.0 || u >= 1.0)
                memcpy(out, u <= 0.0 ? v0 : v1, C * sizeof(float));
            else
                slerp_as_given(v0, v1, u, as_given, out);
            return;
        }
        if (ch->path == SF_GLTF_ROTATION) {
            slerp(v0, v1, u, out);
            return;
        }
        for (size_t c = 0; c < C; ++c) out[c] = saturate((1.0 - u) * v0[c] + u * v1[c]);
        return;
    }
    /* CUBICSPLINE (glTF appendix C): tangents scaled by the key interval. */
    const float* out_tan0 = ch->values + k * key_stride + 2 * C;
    const float* in_tan1 = ch->values + (k + 1) * key_stride;
    double u2 = u * u, u3 = u2 * u;
    double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
    for (size_t c = 0; c < C; ++c)
        out[c] = saturate(h00 * v0[c] + h10 * td * out_tan0[c] + h01 * v1[c] + h11 * td * in_tan1[c]);
    if (ch->path == SF_GLTF_ROTATION) normalize_quat(out);
}

/* ---------------------------------------------------------------- pose */

struct sf_gltf_pose {
    const sf_gltf* gltf;
    sf_env env;
    float* trs;            /* 10 per node: translation, rotation xyzw, scale */
    float* rest_trs;       /* 10 per node: the file's TRS (decomposed once for matrix nodes) */
    uint8_t* use_trs;      /* 1 when the local matrix comes from trs */
    float* global;         /* 16 per node */
    float* rest_global;    /* 16 per node: the rest global transform (rigid instances' to_world) */
    float* rest_inverse;   /* 16 per node: its inverse */
    uint8_t* rest_singular; /* 1 when that inverse does not exist */
    float* weights;        /* morph weights of nodes with meshes, at weight_offset[node] */
    size_t* weight_offset; /* per node */
    size_t bytes;
    int rotations_as_given; /* an sf_gltf_rotation_keys (sf_gltf_pose_set_rotations_as_given) */
};

sf_result sf_gltf_pose_create(const sf_gltf* gltf, const sf_env* env, sf_gltf_pose** out, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(gltf && out, SF_ERROR_INVALID_ARGUMENT, err, "arguments", SFI_NO_INDEX, "gltf and out are required");
    *out = NULL;
    sf_env e = sf_env_defaults(env);
    sf_gltf_pose* p = sf_env_calloc(&e, 1, sizeof *p);
    if (!p) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "pose", SFI_NO_INDEX, "object");
    p->gltf = gltf;
    p->env = e;
    size_t n = gltf->node_count, wtotal = 0;
    p->weight_offset = sf_env_calloc(&e, n + 1, sizeof(size_t));
    if (p->weight_offset)
        for (size_t i = 0; i < n; ++i) {
            p->weight_offset[i] = wtotal;
            if (gltf->nodes[i].mesh != SF_GLTF_NONE) wtotal += gltf->meshes[gltf->nodes[i].mesh].target_count;
        }
    p->trs = sf_env_calloc(&e, 10 * n + 1, sizeof(float));
    p->rest_trs = sf_env_calloc(&e, 10 * n + 1, sizeof(float));
    p->use_trs = sf_env_calloc(&e, n + 1, 1);
    p->global = sf_env_calloc(&e, 16 * n + 1, sizeof(float));
    p->rest_global = sf_env_calloc(&e, 16 * n + 1, sizeof(float));
    p->rest_inverse = sf_env_calloc(&e, 16 * n + 1, sizeof(float));
    p->rest_singular = sf_env_calloc(&e, n + 1, 1);
    p->weights = sf_env_calloc(&e, wtotal + 1, sizeof(float));
    if (!p->weight_offset || !p->trs || !p->rest_trs || !p->use_trs || !p->global || !p->weights ||
        !p->rest_global || !p->rest_inverse || !p->rest_singular) {
        sf_gltf_pose_destroy(p);
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "pose", SFI_NO_INDEX, "%zu nodes", n);
    }
    for (size_t i = 0; i < n; ++i) {
        const sf_gltf_node* nd = &gltf->nodes[i];
        float* trs = p->rest_trs + 10 * i;
        if (nd->has_matrix) { /* only used if the matrix node is animated, which glTF forbids */
            mat4_to_trs(nd->matrix, trs, trs + 3, trs + 7);
        } else {
            memcpy(trs, nd->translation, 3 * sizeof(float));
            memcpy(trs + 3, nd->rotation, 4 * sizeof(float));
            memcpy(trs + 7, nd->scale, 3 * sizeof(float));
        }
    }
    *out = p;
    sf_result r = sf_gltf_pose_sample(p, SF_GLTF_NONE, 0.0, err);
    if (r == SF_OK) memcpy(p->rest_global, p->global, 16 * n * sizeof(float));
    for (size_t i = 0; r == SF_OK && i < n; ++i)
        p->rest_singular[i] = !sfi_mat4_invert(p->global + 16 * i, p->rest_inverse + 16 * i);
    return r;
}

void sf_gltf_pose_destroy(sf_gltf_pose* pose)
{
    if (!pose) return;
    sf_env e = pose->env;
    sf_env_free(&e, pose->trs, 0);
    sf_env_free(&e, pose->rest_trs, 0);
    sf_env_free(&e, pose->use_trs, 0);
    sf_env_free(&e, pose->global, 0);
    sf_env_free(&e, pose->rest_global, 0);
    sf_env_free(&e, pose->rest_inverse, 0);
    sf_env_free(&e, pose->rest_singular, 0);
    sf_env_free(&e, pose->weights, 0);
    sf_env_free(&e, pose->weight_offset, 0);
    sf_env_free(&e, pose, sizeof *pose);
}

void sf_gltf_pose_update(sf_gltf_pose* pose)
{
    const sf_gltf* g = pose->gltf;
    const size_t* order = g->internal->node_order;
    for (size_t q = 0; q < g->node_count; ++q) {
        size_t i = order[q];
        const sf_gltf_node* nd = &g->nodes[i];
        float local[16];
        if (pose->use_trs[i])
            sfi_mat4_from_trs(pose->trs + 10 * i, pose->trs + 10 * i + 3, pose->trs + 10 * i + 7, local);
        else
            memcpy(local, nd->matrix, sizeof local);
        if (nd->parent == SF_GLTF_NONE)
            memcpy(pose->global + 16 * i, local, sizeof local);
        else
            sfi_mat4_mul(pose->global + 16 * nd->parent, local, pose->global + 16 * i);
    }
}

void sf_gltf_pose_set_rotations_as_given(sf_gltf_pose* pose, int as_given)
{
    if (pose)
        pose->rotations_as_given = as_given >= SF_GLTF_ROTATIONS_UNIT && as_given <= SF_GLTF_ROTATIONS_GLAM
                                       ? as_given
                                       : SF_GLTF_ROTATIONS_THREE;
}

int sf_gltf_animation_has_nonunit_rotations(const sf_gltf* g, size_t animation)
{
    if (!g || animation >= g->animation_count) return false;
    const sf_gltf_animation* a = &g->animations[animation];
    for (size_t c = 0; c < a->channel_count; ++c) {
        const sf_gltf_channel* ch = &a->channels[c];
        if (ch->path != SF_GLTF_ROTATION || ch->components != 4) continue;
        size_t stride = ch->interpolation == SF_GLTF_CUBICSPLINE ? 12 : 4, at = stride == 12 ? 4 : 0;
        for (size_t k = 0; k < ch->key_count; ++k) {
            const float* q = ch->values + k * stride + at;
            double n2 = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3];
            if (fabs(n2 - 1.0) > 1e-5) return true;
        }
    }
    return false;
}

sf_result sf_gltf_pose_sample(sf_gltf_pose* pose, size_t animation, double time_s, sf_error* err)
{
    SF_CHECK(pose != NULL, SF_ERROR_INVALID_ARGUMENT, err, "pose", SFI_NO_INDEX, "is NULL");
    const sf_gltf* g = pose->gltf;
    SF_CHECK(animation == SF_GLTF_NONE || animation < g->animation_count, SF_ERROR_INVALID_ARGUMENT, err, "animation",
             animation, "out of range (%zu animations)", g->animation_count);
    SF_CHECK(isfinite(time_s), SF_ERROR_NOT_FINITE, err, "time_s", SFI_NO_INDEX, "is %g", time_s);
    memcpy(pose->trs, pose->rest_trs, 10 * g->node_count * sizeof(float));
    for (size_t i = 0; i < g->node_count; ++i) {
        const sf_gltf_node* nd = &g->nodes[i];
        pose->use_trs[i] = !nd->has_matrix;
        if (nd->mesh != SF_GLTF_NONE) {
            const sf_gltf_mesh* m = &g->meshes[nd->mesh];
            const float* w = nd->weights ? nd->weights : m->weights;
            if (m->target_count) memcpy(pose->weights + pose->weight_offset[i], w, m->target_count * sizeof(float));
        }
    }
    if (animation != SF_GLTF_NONE) {
        const sf_gltf_animation* a = &g->animations[animation];
        for (size_t c = 0; c < a->channel_count; ++c) {
            const sf_gltf_channel* ch = &a->channels[c];
            float* trs = pose->trs + 10 * ch->node;
            switch (ch->path) {
            case SF_GLTF_TRANSLATION: sf_gltf_channel_sample(ch, time_s, trs); break;
            case SF_GLTF_ROTATION: channel_sample(ch, time_s, trs + 3, pose->rotations_as_given); break;
            case SF_GLTF_SCALE: sf_gltf_channel_sample(ch, time_s, trs + 7); break;
            default: sf_gltf_channel_sample(ch, time_s, pose->weights + pose->weight_offset[ch->node]); break;
            }
            if (ch->path != SF_GLTF_WEIGHTS) pose->use_trs[ch->node] = 1;
        }
    }
    sf_gltf_pose_update(pose);
    return SF_OK;
}

sf_result sf_gltf_pose_set_local(sf_gltf_pose* pose, size_t node, const float translation[3], const float rotation[4],
                                 const float scale[3], sf_error* err)
{
    SF_CHECK(pose && translation && rotation && scale, SF_ERROR_INVALID_ARGUMENT, err, "arguments", SFI_NO_INDEX,
             "pose, translation, rotation and scale are required");
    SF_CHECK(node < pose->gltf->node_count, SF_ERROR_INVALID_ARGUMENT, err, "node", node, "out of range (%zu nodes)",
             pose->gltf->node_count);
    float* trs = pose->trs + 10 * node;
    memcpy(trs, translation, 3 * sizeof(float));
    memcpy(trs + 3, rotation, 4 * sizeof(float));
    memcpy(trs + 7, scale, 3 * sizeof(float));
    for (int k = 0; k < 10; ++k)
        SF_CHECK(isfinite(trs[k]), SF_ERROR_NOT_FINITE, err, "transform", node, "component %d is not finite", k);
    normalize_quat(trs + 3);
    pose->use_trs[node] = 1;
    return SF_OK;
}

const float* sf_gltf_pose_global(const sf_gltf_pose* pose, size_t node)
{
    return node < pose->gltf->node_count ? pose->global + 16 * node : NULL;
}

static void mat4_to_3x4(const float m[16], float* out)
{
    for (int c = 0; c < 4; ++c)
        for (int k = 0; k < 3; ++k) out[3 * c + k] = m[4 * c + k];
}

sf_result sf_gltf_pose_instance(const sf_gltf_pose* pose, size_t instance, float* bone_matrices, float* morph_weights,
                                float* to_world, sf_error* err)
{
    SF_CHECK(pose != NULL, SF_ERROR_INVALID_ARGUMENT, err, "pose", SFI_NO_INDEX, "is NULL");
    const sf_gltf* g = pose->gltf;
    SF_CHECK(instance < g->instance_count, SF_ERROR_INVALID_ARGUMENT, err, "instance", instance,
             "out of range (%zu instances)", g->instance_count);
    const sf_gltf_instance* in = &g->instances[instance];
    const float* node_global = pose->global + 16 * in->node;
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    if (in->skin == SF_GLTF_NONE) {
        /* Rigid: the motion of the node since rest, in the node's rest frame, so that the rest pose is the
         * identity (bone = inverse(rest global) * global); to_world = the rest global. A node whose rest
         * transform is singular (scaled to zero at rest) falls back to world space: bone = global. */
        int singular = pose->rest_singular[in->node];
        if (bone_matrices) {
            float m[16];
            if (singular)
                memcpy(m, node_global, sizeof m);
            else
                sfi_mat4_mul(pose->rest_inverse + 16 * in->node, node_global, m);
            mat4_to_3x4(m, bone_matrices);
        }
        if (to_world) memcpy(to_world, singular ? identity : pose->rest_global + 16 * in->node, 16 * sizeof(float));
    } else {
        /* Skinned: bone_j = inverse(global(mesh node)) * global(joint_j) * IBM_j. A singular mesh node
         * transform falls back to world space (bone_j = global(joint_j) * IBM_j, to_world = identity). */
        const sf_gltf_skin* sk = &g->skins[in->skin];
        float inv[16];
        int singular = !sfi_mat4_invert(node_global, inv);
        if (singular) memcpy(inv, identity, sizeof inv);
        if (bone_matrices)
            for (size_t j = 0; j < sk->joint_count; ++j) {
                float m[16];
                sfi_mat4_mul(pose->global + 16 * sk->joints[j], sk->inverse_bind_matrices + 16 * j, m);
                sfi_mat4_mul(inv, m, m);
                mat4_to_3x4(m, bone_matrices + 12 * j);
            }
        if (to_world) memcpy(to_world, singular ? identity : node_global, 16 * sizeof(float));
    }
    if (morph_weights) {
        size_t tc = g->meshes[in->mesh].target_count;
        if (tc) memcpy(morph_weights, pose->weights + pose->weight_offset[in->node], tc * sizeof(float));
    }
    /* Products of huge (finite) node transforms can overflow: say so rather than hand out an infinity. */
    size_t bones = in->skin == SF_GLTF_NONE ? 1 : g->skins[in->skin].joint_count;
    for (size_t k = 0; bone_matrices && k < 12 * bones; ++k)
        SF_CHECK(isfinite(bone_matrices[k]), SF_ERROR_TOO_LARGE, err, "bone_matrices", k / 12,
                 "the transform of %s overflows float (node transforms or animation values too large)",
                 in->skin == SF_GLTF_NONE ? "the mesh node" : "this joint");
    for (size_t k = 0; to_world && k < 16; ++k)
        SF_CHECK(isfinite(to_world[k]), SF_ERROR_TOO_LARGE, err, "to_world", in->node,
                 "the world transform of node %zu overflows float", in->node);
    return SF_OK;
}

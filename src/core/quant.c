/* Quantized skinning (sf_quantized_skin): `skinned` read straight from KHR_mesh_quantization's integer streams.
 * The description and the pose are checked per call (O(bones)); the joint indices by the pass itself, so that a
 * frame reads each stream once. The scalar reference is below; the SIMD levels share quant_body.h. */
#include "skin_simd.h"
#include "sf_kernels.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static const char* type_name(sf_quant_type t)
{
    switch (t) {
    case SF_QUANT_NONE: return "none";
    case SF_QUANT_INT8: return "INT8";
    case SF_QUANT_UINT8: return "UINT8";
    case SF_QUANT_INT16: return "INT16";
    case SF_QUANT_UINT16: return "UINT16";
    case SF_QUANT_SNORM8: return "SNORM8";
    case SF_QUANT_UNORM8: return "UNORM8";
    case SF_QUANT_SNORM16: return "SNORM16";
    case SF_QUANT_UNORM16: return "UNORM16";
    }
    return "unknown";
}

static size_t type_size(sf_quant_type t)
{
    return t == SF_QUANT_INT16 || t == SF_QUANT_UINT16 || t == SF_QUANT_SNORM16 || t == SF_QUANT_UNORM16 ? 2 : 1;
}

/* The largest magnitude a component of type t decodes to. */
static double type_reach(sf_quant_type t)
{
    switch (t) {
    case SF_QUANT_INT8: return 128.0;
    case SF_QUANT_UINT8: return 255.0;
    case SF_QUANT_INT16: return 32768.0;
    case SF_QUANT_UINT16: return 65535.0;
    default: return 1.0;
    }
}

/* One component at p decoded as type t: the division in float (correctly rounded), as glTF decodes. */
static float decode(const uint8_t* p, sf_quant_type t)
{
    switch (t) {
    case SF_QUANT_INT8: return (float)(int8_t)p[0];
    case SF_QUANT_UINT8: return (float)p[0];
    case SF_QUANT_SNORM8: {
        float x = (float)(int8_t)p[0] / 127.0f;
        return x < -1.0f ? -1.0f : x;
    }
    case SF_QUANT_UNORM8: return (float)p[0] / 255.0f;
    case SF_QUANT_INT16: {
        int16_t c;
        memcpy(&c, p, 2);
        return (float)c;
    }
    case SF_QUANT_SNORM16: {
        int16_t c;
        memcpy(&c, p, 2);
        float x = (float)c / 32767.0f;
        return x < -1.0f ? -1.0f : x;
    }
    case SF_QUANT_UNORM16: {
        uint16_t c;
        memcpy(&c, p, 2);
        return (float)c / 65535.0f;
    }
    default: {
        uint16_t c;
        memcpy(&c, p, 2);
        return (float)c;
    }
    }
}

static uint32_t joint_at(const sf_quant_stream* s, size_t v, uint32_t i)
{
    const uint8_t* p = (const uint8_t*)s->data + v * s->stride;
    if (s->type == SF_QUANT_UINT8) return p[i];
    uint16_t j;
    memcpy(&j, p + 2 * i, 2);
    return j;
}

int sfi_quant_vertex(const sfi_quant_job* job, size_t v)
{
    const sf_quantized_mesh* q = job->mesh;
    uint32_t K = q->influence_count, J[SF_QUANT_MAX_INFLUENCES];
    float W[SF_QUANT_MAX_INFLUENCES];
    const uint8_t* wp = (const uint8_t*)q->weights.data + v * q->weights.stride;
    for (uint32_t i = 0; i < K; ++i) {
        J[i] = joint_at(&q->joints, v, i);
        if (J[i] >= q->bone_count) return 0;
        W[i] = decode(wp + i * type_size(q->weights.type), q->weights.type);
    }
    float m[12];
    sfk_blend_matrix(job->bones, J, W, K, m);
    if (job->positions) {
        const uint8_t* pp = (const uint8_t*)q->positions.data + v * q->positions.stride;
        size_t cs = type_size(q->positions.type);
        float p[3];
        for (int k = 0; k < 3; ++k)
            p[k] = decode(pp + (size_t)k * cs, q->positions.type) * q->position_scale[k] + q->position_offset[k];
        sfk_mat_point(m, p, job->positions + 3 * v);
    }
    float n[3] = {0.0f, 0.0f, 0.0f}, t[4] = {0.0f, 0.0f, 0.0f, 1.0f}, no[3], to[4];
    if (job->normals) {
        const uint8_t* np = (const uint8_t*)q->normals.data + v * q->normals.stride;
        for (int k = 0; k < 3; ++k) n[k] = decode(np + (size_t)k * type_size(q->normals.type), q->normals.type);
    }
    if (job->tangents) {
        const uint8_t* tp = (const uint8_t*)q->tangents.data + v * q->tangents.stride;
        for (int k = 0; k < 4; ++k) t[k] = decode(tp + (size_t)k * type_size(q->tangents.type), q->tangents.type);
    }
    sfk_vertex_frame(SFK_METHOD_SKINNED, m, sfk_mat_det(m), n, t, t[3], no, to);
    if (job->normals) memcpy(job->normals + 3 * v, no, sizeof no);
    if (job->tangents) memcpy(job->tangents + 4 * v, to, sizeof to);
    return 1;
}

/* A stream's type among `allowed` (a mask of 1 << type), its stride resolved into *out. */
static sf_result check_stream(const sf_quant_stream* s, const char* field, uint32_t comps, unsigned allowed,
                              const char* allowed_names, sf_quant_stream* out, sf_error* err)
{
    SF_CHECK(s->data != NULL, SF_ERROR_MISSING_STREAM, err, field, SFI_NO_INDEX, "required");
    SF_CHECK((unsigned)s->type <= SF_QUANT_UNORM16 && (allowed >> s->type & 1u), SF_ERROR_INVALID_ARGUMENT, err,
             field, SFI_NO_INDEX, "component type %s (%d); it takes %s", type_name(s->type), (int)s->type,
             allowed_names);
    size_t elem = comps * type_size(s->type);
    SF_CHECK(s->stride == 0 || s->stride >= elem, SF_ERROR_STRIDE, err, field, SFI_NO_INDEX,
             "stride %zu is below one vertex's %zu bytes", s->stride, elem);
    *out = *s;
    if (out->stride == 0) out->stride = elem;
    return SF_OK;
}

#define BIT(t) (1u << (t))

/* Everything but the joint indices; *r gets the mesh with its strides resolved. */
static sf_result check_desc(const sf_quantized_mesh* q, sf_quantized_mesh* r, sf_error* err)
{
    SF_CHECK(q != NULL, SF_ERROR_INVALID_ARGUMENT, err, "mesh", SFI_NO_INDEX, "is NULL");
    *r = *q;
    if (q->vertex_count == 0) return SF_OK;
    const unsigned any = BIT(SF_QUANT_INT8) | BIT(SF_QUANT_UINT8) | BIT(SF_QUANT_INT16) | BIT(SF_QUANT_UINT16) |
                         BIT(SF_QUANT_SNORM8) | BIT(SF_QUANT_UNORM8) | BIT(SF_QUANT_SNORM16) | BIT(SF_QUANT_UNORM16);
    const unsigned snorm = BIT(SF_QUANT_SNORM8) | BIT(SF_QUANT_SNORM16);
    sf_result e;
    if ((e = check_stream(&q->positions, "mesh.positions", 3, any, "an 8- or 16-bit type", &r->positions, err)))
        return e;
    if ((e = check_stream(&q->normals, "mesh.normals", 3, snorm, "SNORM8 or SNORM16", &r->normals, err))) return e;
    if (q->tangents.data &&
        (e = check_stream(&q->tangents, "mesh.tangents", 4, snorm, "SNORM8 or SNORM16", &r->tangents, err)))
        return e;
    SF_CHECK(q->influence_count >= 1 && q->influence_count <= SF_QUANT_MAX_INFLUENCES, SF_ERROR_INVALID_ARGUMENT,
             err, "mesh.influence_count", SFI_NO_INDEX, "%u; it takes 1 to %d", q->influence_count,
             SF_QUANT_MAX_INFLUENCES);
    if ((e = check_stream(&q->joints, "mesh.joints", q->influence_count, BIT(SF_QUANT_UINT8) | BIT(SF_QUANT_UINT16),
                          "UINT8 or UINT16", &r->joints, err)))
        return e;
    if ((e = check_stream(&q->weights, "mesh.weights", q->influence_count,
                          BIT(SF_QUANT_UNORM8) | BIT(SF_QUANT_UNORM16), "UNORM8 or UNORM16", &r->weights, err)))
        return e;
    SF_CHECK(q->bone_count >= 1 && q->bone_count <= UINT32_MAX, SF_ERROR_INVALID_ARGUMENT, err, "mesh.bone_count",
             SFI_NO_INDEX, "%zu; a skinned mesh has 1 to 2^32 - 1 bones", q->bone_count);
    double reach = type_reach(q->positions.type);
    for (size_t k = 0; k < 3; ++k) {
        float s = q->position_scale[k], o = q->position_offset[k];
        SF_CHECK(isfinite(s), SF_ERROR_NOT_FINITE, err, "mesh.position_scale", k, "component %zu is %g", k, (double)s);
        SF_CHECK(s != 0.0f, SF_ERROR_INVALID_ARGUMENT, err, "mesh.position_scale", k,
                 "component %zu is 0: every position would collapse onto the offset", k);
        SF_CHECK(isfinite(o), SF_ERROR_NOT_FINITE, err, "mesh.position_offset", k, "component %zu is %g", k,
                 (double)o);
        double most = fabs((double)s) * reach + fabs((double)o);
        SF_CHECK(most <= SF_MAX_COORD, SF_ERROR_TOO_LARGE, err, "mesh.position_scale", k,
                 "component %zu decodes to coordinates up to %g, beyond SF_MAX_COORD (%g)", k, most,
                 (double)SF_MAX_COORD);
    }
    return SF_OK;
}

sf_result sf_quantized_mesh_validate(const sf_quantized_mesh* mesh, sf_error* err)
{
    sf_quantized_mesh r;
    sf_result e = check_desc(mesh, &r, err);
    if (e) return e;
    for (size_t v = 0; v < r.vertex_count; ++v)
        for (uint32_t i = 0; i < r.influence_count; ++i) {
            uint32_t j = joint_at(&r.joints, v, i);
            SF_CHECK(j < r.bone_count, SF_ERROR_JOINT_INDEX, err, "mesh.joints", v,
                     "vertex %zu slot %u names joint %u; the mesh has %zu bones", v, i, j, r.bone_count);
        }
    sf_error_clear(err);
    return SF_OK;
}

/* The pose's bounds (deform.c's, for every bone: the mesh does not say which are weighted): finite, linear part
 * within SF_MAX_BONE_SCALE, every decoded position moved within SF_MAX_COORD. */
static sf_result check_pose(const sf_quantized_mesh* q, const sf_pose* pose, sf_error* err)
{
    SF_CHECK(pose != NULL, SF_ERROR_INVALID_ARGUMENT, err, "pose", SFI_NO_INDEX, "is NULL");
    SF_CHECK(pose->bone_count == q->bone_count, SF_ERROR_COUNT_MISMATCH, err, "pose.bone_count", SFI_NO_INDEX,
             "%zu, mesh has %zu bones", pose->bone_count, q->bone_count);
    SF_CHECK(pose->bone_matrices != NULL, SF_ERROR_MISSING_STREAM, err, "pose.bone_matrices", SFI_NO_INDEX,
             "required for %zu bones", pose->bone_count);
    SF_CHECK(pose->morph_weights == NULL, SF_ERROR_INVALID_ARGUMENT, err, "pose.morph_weights", SFI_NO_INDEX,
             "given, but a quantized mesh has no morph targets");
    double lp = 0.0, reach = type_reach(q->positions.type);
    for (int k = 0; k < 3; ++k) {
        double c = fabs((double)q->position_scale[k]) * reach + fabs((double)q->position_offset[k]);
        lp = c > lp ? c : lp;
    }
    for (size_t b = 0; b < pose->bone_count; ++b) {
        const float* m = pose->bone_matrices + 12 * b;
        for (size_t e = 0; e < 12; ++e)
            SF_CHECK(isfinite(m[e]), SF_ERROR_NOT_FINITE, err, "pose.bone_matrices", b, "element %zu is %g", e,
                     (double)m[e]);
        for (size_t e = 0; e < 9; ++e)
            SF_CHECK(fabsf(m[e]) <= SF_MAX_BONE_SCALE, SF_ERROR_TOO_LARGE, err, "pose.bone_matrices", b,
                     "element %zu is %g, beyond SF_MAX_BONE_SCALE (%g)", e, (double)m[e], (double)SF_MAX_BONE_SCALE);
        for (size_t i = 0; i < 3; ++i) {
            double r = (fabs((double)m[i]) + fabs((double)m[3 + i]) + fabs((double)m[6 + i])) * lp + fabs((double)m[9 + i]);
            SF_CHECK(r <= SF_MAX_COORD, SF_ERROR_TOO_LARGE, err, "pose.bone_matrices", b,
                     "moves positions (up to %g) up to %g along axis %zu, beyond SF_MAX_COORD (%g)", lp, r, i,
                     (double)SF_MAX_COORD);
        }
    }
    return SF_OK;
}

/* The best level of this CPU, capped by sfi_simd_force (simd.c). */
static size_t quant_range(int level, const sfi_quant_job* job, size_t n)
{
#if defined(__wasm_simd128__)
    if (level > SFI_SIMD_SCALAR) return sfi_quant_range_wasm(job, 0, n);
#else
    if (level >= SFI_SIMD_AVX512) return sfi_quant_range_avx512(job, 0, n);
    if (level >= SFI_SIMD_AVX2) return sfi_quant_range_avx2(job, 0, n);
    if (level >= SFI_SIMD_SSE2) return sfi_quant_range_sse2(job, 0, n);
#endif
    for (size_t v = 0; v < n; ++v)
        if (!sfi_quant_vertex(job, v)) return v;
    return SIZE_MAX;
}

sf_result sf_quantized_skin(const sf_quantized_mesh* mesh, const sf_pose* pose, const sf_frames_out* out,
                            sf_error* err)
{
    sf_quantized_mesh q;
    sf_result e = check_desc(mesh, &q, err);
    if (e) return e;
    SF_CHECK(out != NULL, SF_ERROR_INVALID_ARGUMENT, err, "out", SFI_NO_INDEX, "is NULL");
    if (q.vertex_count == 0) {
        sf_error_clear(err);
        return SF_OK;
    }
    SF_CHECK(!out->tangents || q.tangents.data, SF_ERROR_MISSING_STREAM, err, "mesh.tangents", SFI_NO_INDEX,
             "required for the tangent output");
    if ((e = check_pose(&q, pose, err))) return e;
    sfi_quant_job job = {&q, pose->bone_matrices, out->positions, out->normals, out->tangents, NULL};
    size_t bad = quant_range(sfi_simd_level_cpu(), &job, q.vertex_count);
    if (bad != SIZE_MAX) {
        uint32_t i = 0, j = 0;
        for (; i < q.influence_count; ++i)
            if ((j = joint_at(&q.joints, bad, i)) >= q.bone_count) break;
        return sf_error_set(err, SF_ERROR_JOINT_INDEX, "mesh.joints", bad,
                            "vertex %zu slot %u names joint %u; the mesh has %zu bones", bad, i, j, q.bone_count);
    }
    sf_error_clear(err);
    return SF_OK;
}

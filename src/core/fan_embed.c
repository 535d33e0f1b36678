/* jacobian-fan's coefficients as fixed-width vertex attributes (skinframe.h, docs/embedded.md): the
 * topology's CSR rows (gradients.c) padded to groups of 4 weight slots and to every morph target, float or
 * snorm16 with scales per vertex, and the reference evaluation from those arrays alone (the vertex shader's
 * arithmetic through the same kernels: morph + skin by sfk_deform_position, the frame by
 * sfk_jacobian_fan_vertex). */
#include "sf_internal.h"
#include "sf_kernels.h"

#include <math.h>
#include <string.h>

static int16_t snorm_from(float f, float scale)
{
    if (scale == 0.0f) return 0;
    float q = roundf(f * (32767.0f / scale));
    return (int16_t)(q > 32767.0f ? 32767.0f : q < -32767.0f ? -32767.0f : q);
}

/* What a GPU gives for a normalised int16 attribute, times the scale. */
static float snorm_to(int16_t q, float scale)
{
    float f = (float)q / 32767.0f;
    return (f < -1.0f ? -1.0f : f) * scale;
}

sf_result sf_fan_layout_get(const sf_topology* topo, sf_fan_layout* out, sf_error* err)
{
    SF_CHECK(topo && out, SF_ERROR_INVALID_ARGUMENT, err, topo ? "out" : "topo", SFI_NO_INDEX, "NULL");
    memset(out, 0, sizeof *out);
    const sfi_gradients* g = topo->fan_gradients;
    SF_CHECK(g != NULL, SF_ERROR_UNSUPPORTED, err, "topology", SFI_NO_INDEX,
             "built with skip_gradients = 1; jacobian-fan's attributes need its coefficients");
    size_t n = topo->vertex_count;
    uint32_t most = 0;
    for (size_t v = 0; v < n; ++v) {
        uint32_t c = g->slot_offsets[v + 1] - g->slot_offsets[v];
        if (c > most) most = c;
    }
    out->vertex_count = n;
    out->max_slots = most;
    out->slot_groups = (most + SF_FAN_SLOTS_PER_GROUP - 1) / SF_FAN_SLOTS_PER_GROUP;
    out->target_count = (uint32_t)topo->target_count;
    return SF_OK;
}

static sf_result check_attributes(const sf_topology* topo, const sf_fan_attributes* a, sf_error* err)
{
    sf_fan_layout want;
    sf_result r = sf_fan_layout_get(topo, &want, err);
    if (r != SF_OK) return r;
    SF_CHECK(a != NULL, SF_ERROR_INVALID_ARGUMENT, err, "attributes", SFI_NO_INDEX, "NULL");
    SF_CHECK(a->layout.vertex_count == want.vertex_count && a->layout.slot_groups == want.slot_groups &&
                 a->layout.target_count == want.target_count,
             SF_ERROR_INVALID_ARGUMENT, err, "attributes.layout", SFI_NO_INDEX,
             "%zu vertices, %u slot groups, %u targets; the topology needs %zu, %u, %u", a->layout.vertex_count,
             a->layout.slot_groups, a->layout.target_count, want.vertex_count, want.slot_groups, want.target_count);
    SF_CHECK(a->encoding == SF_FAN_FLOAT32 || a->encoding == SF_FAN_SNORM16, SF_ERROR_INVALID_ARGUMENT, err,
             "attributes.encoding", SFI_NO_INDEX, "%d, need SF_FAN_FLOAT32 or SF_FAN_SNORM16", (int)a->encoding);
    SF_CHECK(a->encoding == SF_FAN_FLOAT32 || a->scale, SF_ERROR_INVALID_ARGUMENT, err, "attributes.scale",
             SFI_NO_INDEX, "NULL with SF_FAN_SNORM16");
    SF_CHECK(a->normal != NULL, SF_ERROR_INVALID_ARGUMENT, err, "attributes.normal", SFI_NO_INDEX, "NULL");
    SF_CHECK(!want.slot_groups || (a->joints && a->coef), SF_ERROR_INVALID_ARGUMENT, err,
             a->joints ? "attributes.coef" : "attributes.joints", SFI_NO_INDEX, "NULL with %u slot groups",
             want.slot_groups);
    SF_CHECK(!want.target_count || a->morph, SF_ERROR_INVALID_ARGUMENT, err, "attributes.morph", SFI_NO_INDEX,
             "NULL with %u targets", want.target_count);
    return SF_OK;
}

/* Element i of a float or int16 array (scale: the int16 form's). */
static float value_get(const void* base, sf_fan_encoding enc, size_t i, float scale)
{
    return enc == SF_FAN_SNORM16 ? snorm_to(((const int16_t*)base)[i], scale) : ((const float*)base)[i];
}

static void value_put(void* base, sf_fan_encoding enc, size_t i, float f, float scale)
{
    if (enc == SF_FAN_SNORM16) ((int16_t*)base)[i] = snorm_from(f, scale);
    else ((float*)base)[i] = f;
}

/* Vertex v's scales of the int16 form: the largest |value| of each coefficient over the slots, of the D's over
 * the targets, 0 (from the topology's rows, so the largest maps to +-32767). */
static void vertex_scales(const sfi_gradients* g, size_t v, float out[SF_FAN_SCALES])
{
    float most[SF_FAN_SCALES] = {0.0f};
    for (uint32_t s = g->slot_offsets[v]; s < g->slot_offsets[v + 1]; ++s)
        for (size_t c = 0; c < SF_FAN_COEFS; ++c) {
            float f = fabsf(g->slot_coef[SFK_JACOBIAN_FAN_SLOT_FLOATS * s + c]);
            if (f > most[c]) most[c] = f;
        }
    for (uint32_t e = g->morph_offsets[v]; e < g->morph_offsets[v + 1]; ++e)
        for (size_t q = 0; q < 6; ++q)
            if (fabsf(g->morph_duv[6 * e + q]) > most[SF_FAN_COEFS]) most[SF_FAN_COEFS] = fabsf(g->morph_duv[6 * e + q]);
    memcpy(out, most, sizeof most);
}

/* Vertex v's padded rows into the arrays. */
static void export_vertex(const sfi_gradients* g, sf_fan_attributes* out, size_t v)
{
    size_t n = out->layout.vertex_count, G = out->layout.slot_groups, T = out->layout.target_count;
    sf_fan_encoding enc = out->encoding;
    float sc[SF_FAN_SCALES] = {1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f};
    if (enc == SF_FAN_SNORM16) {
        vertex_scales(g, v, sc);
        memcpy(out->scale + SF_FAN_SCALES * v, sc, sizeof sc);
    }
    uint32_t s0 = g->slot_offsets[v], count = g->slot_offsets[v + 1] - s0;
    for (size_t s = 0; s < SF_FAN_SLOTS_PER_GROUP * G; ++s) {
        size_t grp = s / SF_FAN_SLOTS_PER_GROUP, lane = 4 * v + s % SF_FAN_SLOTS_PER_GROUP;
        uint32_t j = s < count ? g->slot_joint[s0 + s] : SFK_REST_JOINT;
        out->joints[grp * 4 * n + lane] = j == SFK_REST_JOINT ? SF_FAN_REST_JOINT : (uint16_t)j;
        for (size_t c = 0; c < SF_FAN_COEFS; ++c) {
            float f = s < count ? g->slot_coef[SFK_JACOBIAN_FAN_SLOT_FLOATS * (s0 + s) + c] : 0.0f;
            value_put(out->coef, enc, (SF_FAN_COEFS * grp + c) * 4 * n + lane, f, sc[c]);
        }
    }
    for (size_t k = 0; k < 2 * T; ++k)
        for (size_t q = 0; q < 3; ++q) value_put(out->morph, enc, k * 3 * n + 3 * v + q, 0.0f, sc[SF_FAN_COEFS]);
    for (uint32_t e = g->morph_offsets[v]; e < g->morph_offsets[v + 1]; ++e)
        for (size_t q = 0; q < 6; ++q)
            value_put(out->morph, enc, (2 * (size_t)g->morph_target[e] + q / 3) * 3 * n + 3 * v + q % 3,
                      g->morph_duv[6 * e + q], sc[SF_FAN_COEFS]);
}

sf_result sf_fan_attributes_export(const sf_topology* topo, sf_fan_attributes* out, sf_error* err)
{
    sf_result r = check_attributes(topo, out, err);
    if (r != SF_OK) return r;
    /* a joint index must fit 16 bits and stay clear of SF_FAN_REST_JOINT */
    SF_CHECK(topo->bone_count < SF_FAN_REST_JOINT, SF_ERROR_TOO_LARGE, err, "topology", SFI_NO_INDEX,
             "%zu bones; the attributes hold joints below %u", topo->bone_count, SF_FAN_REST_JOINT);
    const sfi_gradients* g = topo->fan_gradients;
    memcpy(out->normal, g->fan_normal, 3 * topo->vertex_count * sizeof(float));
    for (size_t v = 0; v < topo->vertex_count; ++v) export_vertex(g, out, v);
    return SF_OK;
}

/* Vertex v's slots and morph gradients unpacked from the attributes into the kernel's arguments. */
static void unpack_vertex(const sf_fan_attributes* a, size_t v, uint32_t* joint, float* coef, float* duv)
{
    size_t n = a->layout.vertex_count, G = a->layout.slot_groups, T = a->layout.target_count;
    static const float ones[SF_FAN_SCALES] = {1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f};
    const float* sc = a->encoding == SF_FAN_SNORM16 ? a->scale + SF_FAN_SCALES * v : ones;
    for (size_t s = 0; s < SF_FAN_SLOTS_PER_GROUP * G; ++s) {
        size_t grp = s / SF_FAN_SLOTS_PER_GROUP, lane = 4 * v + s % SF_FAN_SLOTS_PER_GROUP;
        uint16_t j = a->joints[grp * 4 * n + lane];
        joint[s] = j == SF_FAN_REST_JOINT ? SFK_REST_JOINT : j;
        for (size_t c = 0; c < SF_FAN_COEFS; ++c)
            coef[SFK_JACOBIAN_FAN_SLOT_FLOATS * s + c] =
                value_get(a->coef, a->encoding, (SF_FAN_COEFS * grp + c) * 4 * n + lane, sc[c]);
    }
    for (size_t k = 0; k < T; ++k)
        for (size_t q = 0; q < 6; ++q)
            duv[6 * k + q] = value_get(a->morph, a->encoding, (2 * k + q / 3) * 3 * n + 3 * v + q % 3, sc[SF_FAN_COEFS]);
}

sf_result sf_fan_attributes_frames(const sf_topology* topo, const sf_fan_attributes* attrs, const sf_pose* pose,
                                   float* normals, float* tangents, sf_error* err)
{
    sf_result r = check_attributes(topo, attrs, err);
    if (r != SF_OK) return r;
    r = sf_pose_validate(topo, pose, err);
    if (r != SF_OK) return r;
    size_t n = topo->vertex_count, T = attrs->layout.target_count, K = topo->influence_count;
    size_t S = SF_FAN_SLOTS_PER_GROUP * attrs->layout.slot_groups;
    uint32_t joint[SF_FAN_SLOTS_PER_GROUP * SF_FAN_MAX_GROUPS];
    float coef[SFK_JACOBIAN_FAN_SLOT_FLOATS * SF_FAN_SLOTS_PER_GROUP * SF_FAN_MAX_GROUPS];
    size_t scratch = T * (6 * sizeof(float) + sizeof(uint32_t));
    float* duv = T ? sf_env_alloc(&topo->env, scratch) : NULL;
    SF_CHECK(!T || duv, SF_ERROR_OUT_OF_MEMORY, err, "scratch", SFI_NO_INDEX, "%zu bytes", scratch);
    uint32_t* targets = T ? (uint32_t*)(void*)(duv + 6 * T) : NULL;
    for (size_t k = 0; k < T; ++k) targets[k] = (uint32_t)k;
    const float* alpha = pose->morph_weights;
    for (size_t v = 0; v < n; ++v) {
        float x[3], B[12], det, P[3], nv[3], tv[4];
        uint32_t e0 = topo->morph_offsets[v];
        sfk_deform_position(topo->rest_positions + 3 * v, topo->morph_target + e0, topo->morph_dp + 3 * (size_t)e0,
                            topo->morph_offsets[v + 1] - e0, alpha, K ? pose->bone_matrices : NULL,
                            K ? topo->joints + K * v : NULL, K ? topo->weights + K * v : NULL, (uint32_t)K, x, B,
                            &det, P);
        unpack_vertex(attrs, v, joint, coef, duv);
        sfk_jacobian_fan_vertex(pose->bone_matrices, B, det, x, P, topo->rest_normals + 3 * v,
                                topo->rest_tangents + 4 * v, attrs->normal + 3 * v, joint, coef, (uint32_t)S,
                                targets, duv, (uint32_t)T, alpha, 0.0f, nv, tv);
        if (normals) memcpy(normals + 3 * v, nv, sizeof nv);
        if (tangents) memcpy(tangents + 4 * v, tv, sizeof tv);
    }
    sf_env_free(&topo->env, duv, scratch);
    return SF_OK;
}

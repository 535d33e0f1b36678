/* Rest frames from plain arrays, and sf_tangents_generate. sfi_rest_frames is the area-weighted gather the
 * topology runs for missing rest normals and tangents; sf_tangents_generate runs it (or MikkTSpace,
 * mikktspace.c) on packed copies of the streams, without a topology or a workspace, so a generated tangent
 * is exactly what the topology generates and `recompute` returns at rest for the same triangles. */
#include "sf_internal.h"
#include "sf_kernels.h"

#include <math.h>
#include <string.h>

static sf_result check_stream(sf_stream s, size_t elem_floats, size_t n, const char* field, sf_error* err)
{
    size_t packed = elem_floats * sizeof(float);
    SF_CHECK(s.stride == 0 || (s.stride >= packed && s.stride % 4 == 0), SF_ERROR_STRIDE, err, field, SFI_NO_INDEX,
             "stride %zu bytes, need 0 or a multiple of 4 >= %zu", s.stride, packed);
    for (size_t i = 0; i < n; ++i) {
        const float* v = sfi_stream_at(s, packed, i);
        for (size_t k = 0; k < elem_floats; ++k) {
            SF_CHECK(isfinite(v[k]), SF_ERROR_NOT_FINITE, err, field, i, "component %zu is %g", k, (double)v[k]);
            SF_CHECK(fabsf(v[k]) <= SF_MAX_COORD, SF_ERROR_TOO_LARGE, err, field, i,
                     "component %zu is %g, beyond SF_MAX_COORD (%g)", k, (double)v[k], (double)SF_MAX_COORD);
        }
    }
    return SF_OK;
}

static sf_result validate(const sf_tangent_desc* desc, const float* corner_tangents, sf_error* err)
{
    SF_CHECK(desc != NULL, SF_ERROR_INVALID_ARGUMENT, err, "desc", SFI_NO_INDEX, "is NULL");
    SF_CHECK(corner_tangents || desc->triangle_count == 0, SF_ERROR_INVALID_ARGUMENT, err, "corner_tangents",
             SFI_NO_INDEX, "is NULL");
    SF_CHECK(desc->normals.data != NULL, SF_ERROR_MISSING_STREAM, err, "desc.normals", SFI_NO_INDEX, "required");
    SF_CHECK(desc->uvs.data != NULL, SF_ERROR_MISSING_STREAM, err, "desc.uvs", SFI_NO_INDEX, "required");
    SF_CHECK((unsigned)desc->mode <= SF_TANGENTS_MIKKTSPACE, SF_ERROR_INVALID_ARGUMENT, err, "desc.mode",
             SFI_NO_INDEX, "%d", (int)desc->mode);
    SF_CHECK((unsigned)desc->uv_convention <= SF_UV_V_UP, SF_ERROR_INVALID_ARGUMENT, err, "desc.uv_convention",
             SFI_NO_INDEX, "%d is not a convention", (int)desc->uv_convention);
    size_t n = desc->vertex_count, F = desc->triangle_count;
    SF_CHECK(desc->indices || n == 3 * F, SF_ERROR_COUNT_MISMATCH, err, "desc.vertex_count", SFI_NO_INDEX,
             "%zu vertices for %zu unindexed triangles", n, F);
    SF_CHECK(n < UINT32_MAX, SF_ERROR_INVALID_ARGUMENT, err, "desc.vertex_count", SFI_NO_INDEX, "%zu exceeds 2^32-1",
             n);
    SF_CHECK(F <= UINT32_MAX / 3, SF_ERROR_INVALID_ARGUMENT, err, "desc.triangle_count", SFI_NO_INDEX,
             "%zu too large", F);
    SF_CHECK(n == 0 || desc->positions.data, SF_ERROR_MISSING_STREAM, err, "desc.positions", SFI_NO_INDEX,
             "required for %zu vertices", n);
    sf_result r;
    if ((r = check_stream(desc->positions, 3, n, "desc.positions", err)) != SF_OK) return r;
    if ((r = check_stream(desc->normals, 3, n, "desc.normals", err)) != SF_OK) return r;
    if ((r = check_stream(desc->uvs, 2, n, "desc.uvs", err)) != SF_OK) return r;
    for (size_t i = 0; desc->indices && i < 3 * F; ++i)
        SF_CHECK(desc->indices[i] < n, SF_ERROR_INDEX_RANGE, err, "desc.indices", i, "index %u >= vertex_count %zu",
                 desc->indices[i], n);
    return SF_OK;
}

sf_result sfi_rest_frames(size_t n, size_t F, const uint32_t* indices, const float* positions, const float* uvs,
                          const float* normals_in, float bitangent_sign, const sf_env* env, float* normals_out,
                          float* tangents_out, sf_error* err)
{
    if (!normals_out && !tangents_out) return SF_OK;
    float* sums = sf_env_calloc(env, 9 * (n ? n : 1), sizeof(float));
    if (!sums) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "rest_frames", SFI_NO_INDEX, "%zu vertices", n);
    float *N = sums, *T = sums + 3 * n, *B = sums + 6 * n;
    /* faces in order, corners in order: each vertex sums in the order of the topology's adjacency */
    for (size_t f = 0; f < F; ++f) {
        const uint32_t* tri = indices + 3 * f;
        float fn[3], ft[3], fb[3];
        sfk_face_frame(positions + 3 * tri[0], positions + 3 * tri[1], positions + 3 * tri[2],
                       uvs ? uvs + 2 * tri[0] : NULL, uvs ? uvs + 2 * tri[1] : NULL, uvs ? uvs + 2 * tri[2] : NULL, fn,
                       ft, fb);
        float area2 = sfk_length(fn);
        for (int c = 0; c < 3; ++c) {
            size_t v = tri[c];
            sfk_madd(N + 3 * v, fn, 1.0f);
            sfk_madd(T + 3 * v, ft, area2);
            sfk_madd(B + 3 * v, fb, area2);
        }
    }
    for (size_t v = 0; v < n; ++v) {
        bool normals_ok = !normals_out || sfk_finite3(N + 3 * v);
        if (!normals_ok || (tangents_out && uvs && !(sfk_finite3(T + 3 * v) && sfk_finite3(B + 3 * v)))) {
            sf_env_free(env, sums, 0);
            return sf_error_set(err, SF_ERROR_TOO_LARGE, normals_ok ? "mesh.tangents" : "mesh.normals", v,
                                "generated %s: the area-weighted sum over the vertex's triangles overflows float "
                                "(%s); supply them or scale the mesh down",
                                normals_ok ? "tangents" : "normals",
                                normals_ok ? "large triangles over tiny UV areas" : "face areas");
        }
        float nn[3], tt[4];
        sfk_finish_frame(normals_in ? normals_in + 3 * v : N + 3 * v, T + 3 * v, B + 3 * v, bitangent_sign, nn, tt);
        if (normals_out) memcpy(normals_out + 3 * v, nn, sizeof nn);
        if (tangents_out) memcpy(tangents_out + 4 * v, tt, sizeof tt);
    }
    sf_env_free(env, sums, 0);
    return SF_OK;
}

sf_result sf_normals_flat(size_t triangle_count, const float* corner_positions, float* normals, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(triangle_count == 0 || (corner_positions && normals), SF_ERROR_INVALID_ARGUMENT, err, "arguments",
             SFI_NO_INDEX, "corner_positions and normals are required");
    for (size_t f = 0; f < triangle_count; ++f) {
        float e1[3], e2[3], c[3];
        const float* p0 = corner_positions + 9 * f;
        for (int a = 0; a < 3; ++a) e1[a] = p0[3 + a] - p0[a], e2[a] = p0[6 + a] - p0[a];
        c[0] = e1[1] * e2[2] - e1[2] * e2[1];
        c[1] = e1[2] * e2[0] - e1[0] * e2[2];
        c[2] = e1[0] * e2[1] - e1[1] * e2[0];
        double len = sqrt((double)c[0] * c[0] + (double)c[1] * c[1] + (double)c[2] * c[2]);
        SF_CHECK(isfinite(len), SF_ERROR_TOO_LARGE, err, "corner_positions", f,
                 "triangle %zu's face normal overflows float", f);
        for (int corner = 0; corner < 3; ++corner)
            for (int a = 0; a < 3; ++a) normals[9 * f + 3 * corner + a] = len > 0.0 ? (float)(c[a] / len) : 0.0f;
    }
    return SF_OK;
}

sf_result sf_tangents_generate(const sf_tangent_desc* desc, const sf_env* env, float* corner_tangents, sf_error* err)
{
    sf_error_clear(err);
    sf_result r = validate(desc, corner_tangents, err);
    if (r != SF_OK) return r;
    size_t n = desc->vertex_count, F = desc->triangle_count;
    sf_env e = sf_env_defaults(env);
    float bitangent_sign = desc->uv_convention == SF_UV_V_UP ? 1.0f : -1.0f;
    bool mikk = desc->mode == SF_TANGENTS_MIKKTSPACE;

    /* packed copies; MikkTSpace sees the positions as the identity pose deforms them (-0 becomes +0), as it
     * does inside `recompute`, the UV tangents the rest positions as they are, as the topology does */
    sfi_blocks b;
    memset(&b, 0, sizeof b);
    b.env = &e;
    float* P = sfi_blocks_take(&b, 3 * n, sizeof(float));
    float* N = sfi_blocks_take(&b, 3 * n, sizeof(float));
    float* UV = sfi_blocks_take(&b, 2 * n, sizeof(float));
    uint32_t* sequential = desc->indices ? NULL : sfi_blocks_take(&b, 3 * F, sizeof(uint32_t));
    float* per_vertex = mikk ? NULL : sfi_blocks_take(&b, 4 * n, sizeof(float));
    struct sfi_mikktspace_scratch* s = mikk ? sfi_mikktspace_scratch_take(&b, 0, F) : NULL;
    uint8_t* uv_flags = NULL;
    sfi_store store = {&e, 0};
    if (b.failed) {
        r = sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "tangents", SFI_NO_INDEX, "%zu vertices, %zu triangles", n, F);
        goto done;
    }
    const float identity[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    for (size_t v = 0; v < n; ++v) {
        if (mikk)
            sfk_mat_point(identity, sfi_stream_at(desc->positions, 12, v), P + 3 * v);
        else
            memcpy(P + 3 * v, sfi_stream_at(desc->positions, 12, v), 12);
        memcpy(N + 3 * v, sfi_stream_at(desc->normals, 12, v), 12);
        memcpy(UV + 2 * v, sfi_stream_at(desc->uvs, 8, v), 8);
    }
    for (size_t c = 0; sequential && c < 3 * F; ++c) sequential[c] = (uint32_t)c;
    const uint32_t* indices = desc->indices ? desc->indices : sequential;
    if (mikk && (r = sfi_mikktspace_uv_flags_build(indices, UV, F, &store, &uv_flags, err)) != SF_OK) goto done;
    sfi_mikk_input in = {n, F, indices, UV, uv_flags, P, N};
    if (mikk) {
        /* MikkTSpace's own sign is v-up; the mesh's uv convention decides w (as for the per-vertex output) */
        const float* corners = sfi_mikktspace_corners(&in, &e, s);
        for (size_t c = 0; c < 3 * F; ++c) {
            memcpy(corner_tangents + 4 * c, corners + 4 * c, 3 * sizeof(float));
            corner_tangents[4 * c + 3] = corners[4 * c + 3] * bitangent_sign;
        }
    } else if ((r = sfi_rest_frames(n, F, indices, P, UV, N, bitangent_sign, &e, NULL, per_vertex, err)) == SF_OK) {
        for (size_t c = 0; c < 3 * F; ++c) memcpy(corner_tangents + 4 * c, per_vertex + 4 * (size_t)indices[c], 16);
    } else if (r == SF_ERROR_TOO_LARGE) {
        size_t v = err ? err->index : SFI_NO_INDEX;
        r = sf_error_set(err, r, "corner_tangents", SFI_NO_INDEX,
                         "generated tangents of vertex %zu: the area-weighted UV tangent sum overflows float (large "
                         "triangles over tiny UV areas); scale the mesh down or use SF_TANGENTS_MIKKTSPACE", v);
    }
done:
    sfi_store_free(&store, uv_flags);
    sfi_blocks_free(&b);
    return r;
}

#define SPLIT_NONE UINT32_MAX

sf_result sf_tangents_split(size_t vertex_count, size_t triangle_count, const uint32_t* indices,
                            const float* corner_tangents, const sf_env* env, sf_tangent_split* out, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(out != NULL, SF_ERROR_INVALID_ARGUMENT, err, "out", SFI_NO_INDEX, "is NULL");
    size_t n = vertex_count, F = triangle_count;
    SF_CHECK(F <= UINT32_MAX / 3 && n < UINT32_MAX - 3 * F, SF_ERROR_INVALID_ARGUMENT, err, "triangle_count",
             SFI_NO_INDEX, "%zu vertices and %zu triangles: the split could pass 2^32-1 vertices", n, F);
    SF_CHECK(corner_tangents || F == 0, SF_ERROR_INVALID_ARGUMENT, err, "corner_tangents", SFI_NO_INDEX, "is NULL");
    SF_CHECK(indices || n == 3 * F, SF_ERROR_COUNT_MISMATCH, err, "vertex_count", SFI_NO_INDEX,
             "%zu vertices for %zu unindexed triangles", n, F);
    size_t C = 3 * F, cap = n + C;
    for (size_t c = 0; c < C; ++c) {
        SF_CHECK(!indices || indices[c] < n, SF_ERROR_INDEX_RANGE, err, "indices", c, "index %u >= vertex_count %zu",
                 indices ? indices[c] : 0u, n);
        for (int k = 0; k < 4; ++k)
            SF_CHECK(isfinite(corner_tangents[4 * c + (size_t)k]), SF_ERROR_NOT_FINITE, err, "corner_tangents", c,
                     "component %d is %g", k, (double)corner_tangents[4 * c + (size_t)k]);
    }
    /* first[k]: the corner whose tangent output vertex k carries; next[k]: the next copy of the same input */
    uint32_t* scratch = sf_env_calloc(env, 2 * (cap ? cap : 1), sizeof(uint32_t));
    if (!scratch) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "tangents_split", SFI_NO_INDEX, "%zu corners", C);
    uint32_t *first = scratch, *next = scratch + cap;
    for (size_t v = 0; v < n; ++v) first[v] = next[v] = SPLIT_NONE;
    size_t m = n, split = 0;
    for (size_t c = 0; c < C; ++c) {
        uint32_t v = indices ? indices[c] : (uint32_t)c;
        const float* t = corner_tangents + 4 * c;
        uint32_t k = v;
        if (first[v] == SPLIT_NONE) {
            first[v] = (uint32_t)c;
        } else {
            uint32_t last = v;
            for (; k != SPLIT_NONE; last = k, k = next[k]) {
                const float* o = corner_tangents + 4 * (size_t)first[k];
                if (o[0] == t[0] && o[1] == t[1] && o[2] == t[2] && o[3] == t[3]) break;
            }
            if (k == SPLIT_NONE) {
                split += next[v] == SPLIT_NONE; /* v's first copy */
                k = (uint32_t)m++;
                first[k] = (uint32_t)c;
                next[k] = SPLIT_NONE;
                next[last] = k;
                if (out->source) out->source[k] = v;
            }
        }
        if (out->indices) out->indices[c] = k;
    }
    for (size_t v = 0; out->source && v < n; ++v) out->source[v] = (uint32_t)v;
    for (size_t k = 0; out->tangents && k < m; ++k) {
        float* t = out->tangents + 4 * k;
        if (first[k] == SPLIT_NONE) {
            t[0] = t[1] = t[2] = 0.0f;
            t[3] = 1.0f;
        } else {
            memcpy(t, corner_tangents + 4 * (size_t)first[k], 4 * sizeof(float));
        }
    }
    out->vertex_count = m;
    out->split_vertices = split;
    sf_env_free(env, scratch, 0);
    return SF_OK;
}

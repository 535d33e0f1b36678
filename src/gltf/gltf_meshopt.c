/* EXT_meshopt_compression: a bufferView whose bytes are a meshoptimizer stream (vertex attributes, triangle
 * or index lists) plus an optional filter (octahedral unit vectors, quaternions, exponent + mantissa floats),
 * decoded with the decoders of libmeshoptimizer. Without SF_WITH_MESHOPT the parse still checks the object
 * and decoding reports the build. */
#include "gltf_compressed.h"

#include <cjson/cJSON.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#if defined(SF_WITH_MESHOPT)
#include <meshoptimizer.h>
#endif

#define CHECK(expr)                   \
    do {                              \
        sf_result r_ = (expr);        \
        if (r_ != SF_OK) return r_;   \
    } while (0)

int sfi_meshopt_built_in(void)
{
#if defined(SF_WITH_MESHOPT)
    return 1;
#else
    return 0;
#endif
}

static const cJSON* ext_object(const cJSON* obj, const char* name)
{
    const cJSON* exts = cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, "extensions") : NULL;
    const cJSON* e = cJSON_IsObject(exts) ? cJSON_GetObjectItemCaseSensitive(exts, name) : NULL;
    return cJSON_IsObject(e) ? e : NULL;
}

int sfi_meshopt_is_fallback(const cJSON* buffer)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ext_object(buffer, SFI_MESHOPT_EXT), "fallback"));
}

static sf_result fail(sf_error* err, const char* base, const char* key, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static sf_result fail(sf_error* err, const char* base, const char* key, const char* fmt, ...)
{
    char field[128], detail[200];
    snprintf(field, sizeof field, "%s.extensions.%s%s%s", base, SFI_MESHOPT_EXT, key ? "." : "", key ? key : "");
    va_list args;
    va_start(args, fmt);
    vsnprintf(detail, sizeof detail, fmt, args);
    va_end(args);
    return sf_error_set(err, SF_ERROR_GLTF, field, SFI_NO_INDEX, "%s", detail);
}

/* A non-negative integer member no larger than max; absent gives def when not required. */
static sf_result get_size(const cJSON* obj, const char* key, int required, size_t def, size_t max, const char* base,
                          size_t* out, sf_error* err)
{
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (required) return fail(err, base, key, "missing");
        *out = def;
        return SF_OK;
    }
    double d = cJSON_IsNumber(v) ? v->valuedouble : -1.0;
    if (!(d >= 0.0) || d != (double)(size_t)d || d > (double)max)
        return fail(err, base, key, "is not an integer in [0, %zu]", max);
    *out = (size_t)d;
    return SF_OK;
}

static int pick(const cJSON* v, const char* const* names, int n, int def)
{
    if (!v) return def;
    if (!cJSON_IsString(v)) return -1;
    for (int k = 0; k < n; ++k)
        if (strcmp(v->valuestring, names[k]) == 0) return k;
    return -1;
}

/* The spec's combinations of mode, filter and byteStride. */
static sf_result check_layout(const sfi_meshopt_view* m, const char* base, sf_error* err)
{
    switch (m->mode) {
    case SFI_MESHOPT_ATTRIBUTES:
        if (m->stride == 0 || m->stride % 4 || m->stride > 256)
            return fail(err, base, "byteStride", "%zu: ATTRIBUTES need a multiple of 4 in [4, 256]", m->stride);
        break;
    case SFI_MESHOPT_TRIANGLES:
        if (m->count % 3) return fail(err, base, "count", "%zu: TRIANGLES need a multiple of 3", m->count);
        /* fall through */
    case SFI_MESHOPT_INDICES:
        if (m->stride != 2 && m->stride != 4)
            return fail(err, base, "byteStride", "%zu: index streams are 2 or 4 bytes", m->stride);
        if (m->filter != SFI_MESHOPT_NONE) return fail(err, base, "filter", "only ATTRIBUTES take a filter");
        break;
    }
    if (m->filter == SFI_MESHOPT_OCTAHEDRAL && m->stride != 4 && m->stride != 8)
        return fail(err, base, "byteStride", "%zu: OCTAHEDRAL needs 4 or 8", m->stride);
    if (m->filter == SFI_MESHOPT_QUATERNION && m->stride != 8)
        return fail(err, base, "byteStride", "%zu: QUATERNION needs 8", m->stride);
    return SF_OK;
}

sf_result sfi_meshopt_parse(const cJSON* view, const char* base, size_t buffer_count, const size_t* buffer_length,
                            const uint8_t* has_data, size_t view_length, sfi_meshopt_view* out, sf_error* err)
{
    static const char* const modes[] = {"ATTRIBUTES", "TRIANGLES", "INDICES"};
    static const char* const filters[] = {"NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL"};
    memset(out, 0, sizeof *out);
    const cJSON* e = ext_object(view, SFI_MESHOPT_EXT);
    if (!e) return SF_OK;
    out->present = 1;
    size_t limit = SIZE_MAX / 4;
    CHECK(get_size(e, "buffer", 1, 0, buffer_count ? buffer_count - 1 : 0, base, &out->buffer, err));
    if (out->buffer >= buffer_count) return fail(err, base, "buffer", "names no buffer (there are none)");
    CHECK(get_size(e, "byteOffset", 0, 0, limit, base, &out->offset, err));
    CHECK(get_size(e, "byteLength", 1, 0, limit, base, &out->length, err));
    CHECK(get_size(e, "byteStride", 1, 0, 256, base, &out->stride, err));
    CHECK(get_size(e, "count", 1, 0, limit, base, &out->count, err));
    int mode = pick(cJSON_GetObjectItemCaseSensitive(e, "mode"), modes, 3, -2);
    if (mode == -2) return fail(err, base, "mode", "missing");
    if (mode < 0) return fail(err, base, "mode", "is not ATTRIBUTES, TRIANGLES or INDICES");
    int filter = pick(cJSON_GetObjectItemCaseSensitive(e, "filter"), filters, 4, 0);
    if (filter < 0) return fail(err, base, "filter", "is not NONE, OCTAHEDRAL, QUATERNION or EXPONENTIAL");
    out->mode = (sfi_meshopt_mode)mode;
    out->filter = (sfi_meshopt_filter)filter;
    CHECK(check_layout(out, base, err));
    size_t blen = buffer_length[out->buffer];
    if (!has_data[out->buffer])
        return fail(err, base, "buffer", "buffers[%zu] is a fallback buffer without data", out->buffer);
    if (out->offset > blen || out->length > blen - out->offset)
        return fail(err, base, "byteLength", "offset %zu + length %zu exceeds buffers[%zu].byteLength %zu",
                    out->offset, out->length, out->buffer, blen);
    if (out->count > view_length / out->stride)
        return fail(err, base, "count", "%zu elements of %zu bytes exceed the bufferView's byteLength %zu", out->count,
                    out->stride, view_length);
    return SF_OK;
}

#if defined(SF_WITH_MESHOPT)
static const char* decode_error(int rc)
{
    return rc == -1 ? "a codec version this meshoptimizer does not decode" : "malformed, or holds another count";
}
#endif

sf_result sfi_meshopt_decode(const sfi_meshopt_view* mv, const uint8_t* src, void* dst, const char* base,
                             sf_error* err)
{
#if defined(SF_WITH_MESHOPT)
    int rc;
    if (mv->mode == SFI_MESHOPT_ATTRIBUTES)
        rc = meshopt_decodeVertexBuffer(dst, mv->count, mv->stride, src, mv->length);
    else if (mv->mode == SFI_MESHOPT_TRIANGLES)
        rc = meshopt_decodeIndexBuffer(dst, mv->count, mv->stride, src, mv->length);
    else
        rc = meshopt_decodeIndexSequence(dst, mv->count, mv->stride, src, mv->length);
    if (rc != 0)
        return fail(err, base, NULL, "the %zu-byte stream does not decode to %zu elements of %zu bytes (%s)",
                    mv->length, mv->count, mv->stride, decode_error(rc));
    if (mv->filter == SFI_MESHOPT_OCTAHEDRAL) meshopt_decodeFilterOct(dst, mv->count, mv->stride);
    if (mv->filter == SFI_MESHOPT_QUATERNION) meshopt_decodeFilterQuat(dst, mv->count, mv->stride);
    if (mv->filter == SFI_MESHOPT_EXPONENTIAL) meshopt_decodeFilterExp(dst, mv->count, mv->stride);
    return SF_OK;
#else
    (void)src;
    (void)dst;
    (void)mv;
    return sf_error_set(err, SF_ERROR_UNSUPPORTED, base, SFI_NO_INDEX,
                        "%s: this build has no meshopt decoder (configure with SF_WITH_MESHOPT=ON and Debian's "
                        "libmeshoptimizer-dev)", SFI_MESHOPT_EXT);
#endif
}

/* KHR_draco_mesh_compression: a primitive whose indices and attributes come from one Draco stream. The
 * extension maps glTF attribute names to Draco unique ids; the primitive's accessors keep their glTF metadata
 * (count, componentType, type, normalized, min/max) and the decoded values are written in that layout, so
 * the loader reads them as it reads plain accessors. Decoding goes through gltf_draco.cpp. */
#include "gltf_compressed.h"

#include <cjson/cJSON.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int sfi_draco_built_in(void)
{
#if defined(SF_WITH_DRACO)
    return 1;
#else
    return 0;
#endif
}

static sf_result fail(sf_error* err, const char* base, const char* key, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static sf_result fail(sf_error* err, const char* base, const char* key, const char* fmt, ...)
{
    char field[160], detail[200];
    snprintf(field, sizeof field, "%s.extensions.%s%s%s", base, SFI_DRACO_EXT, key ? "." : "", key ? key : "");
    va_list args;
    va_start(args, fmt);
    vsnprintf(detail, sizeof detail, fmt, args);
    va_end(args);
    return sf_error_set(err, SF_ERROR_GLTF, field, SFI_NO_INDEX, "%s", detail);
}

static int whole(const cJSON* v, double max)
{
    return cJSON_IsNumber(v) && v->valuedouble >= 0.0 && v->valuedouble <= max &&
           v->valuedouble == (double)(uint32_t)v->valuedouble;
}

sf_result sfi_draco_parse(const cJSON* primitive, const char* base, size_t view_count, sfi_draco_primitive* out,
                          sf_error* err)
{
    memset(out, 0, sizeof *out);
    const cJSON* exts = cJSON_GetObjectItemCaseSensitive(primitive, "extensions");
    const cJSON* e = cJSON_IsObject(exts) ? cJSON_GetObjectItemCaseSensitive(exts, SFI_DRACO_EXT) : NULL;
    if (!e) return SF_OK;
    if (!cJSON_IsObject(e)) return fail(err, base, NULL, "is not an object");
    out->present = 1;
    const cJSON* view = cJSON_GetObjectItemCaseSensitive(e, "bufferView");
    if (!view) return fail(err, base, "bufferView", "missing");
    if (!whole(view, 4294967295.0) || (size_t)view->valuedouble >= view_count)
        return fail(err, base, "bufferView", "names no bufferView (there are %zu)", view_count);
    out->view = (size_t)view->valuedouble;
    const cJSON* attrs = cJSON_GetObjectItemCaseSensitive(e, "attributes");
    if (!cJSON_IsObject(attrs)) return fail(err, base, "attributes", "missing");
    for (const cJSON* a = attrs->child; a; a = a->next) {
        if (out->attribute_count == SFI_DRACO_MAX_ATTRIBUTES)
            return fail(err, base, "attributes", "more than %d", SFI_DRACO_MAX_ATTRIBUTES);
        if (!whole(a, 4294967294.0))
            return fail(err, base, "attributes", "\"%.40s\" is not a Draco attribute id", a->string);
        out->names[out->attribute_count] = a->string;
        out->ids[out->attribute_count++] = (uint32_t)a->valuedouble;
    }
    return SF_OK;
}

#if defined(SF_WITH_DRACO)
/* The decoded corner indices in the accessor's type, each a point of the stream. A stream that decodes no points
 * carries only the connectivity (the extension names no attribute: glTF-Transform leaves a sparse POSITION plain),
 * so its corners name the primitive's plain vertices, range-checked with every other index where the mesh is built. */
static sf_result store_indices(const sfi_draco_mesh* m, const sfi_draco_target* t, const char* base, sf_error* err)
{
    size_t points = sfi_draco_mesh_points(m);
    uint32_t max = t->ctype == 5121 ? 0xFFu : t->ctype == 5123 ? 0xFFFFu : 0xFFFFFFFFu;
    if (t->ncomp != 1 || (t->ctype != 5121 && t->ctype != 5123 && t->ctype != 5125))
        return fail(err, base, NULL, "indices: accessors[%zu] is not an unsigned integer SCALAR", t->accessor);
    uint32_t* idx = (uint32_t*)t->out; /* widened in place from the end when narrower */
    sfi_draco_mesh_indices(m, idx);
    for (size_t i = 0; i < t->count; ++i)
        if ((points && idx[i] >= points) || idx[i] > max)
            return fail(err, base, NULL, "indices: corner %zu names point %u of %zu (accessors[%zu])", i, idx[i],
                        points, t->accessor);
    if (t->ctype == 5125) return SF_OK;
    for (size_t i = 0; i < t->count; ++i) {
        if (t->ctype == 5123) {
            uint16_t v = (uint16_t)idx[i];
            memcpy((uint8_t*)t->out + 2 * i, &v, 2);
        } else {
            ((uint8_t*)t->out)[i] = (uint8_t)idx[i];
        }
    }
    return SF_OK;
}

static sf_result store(const sfi_draco_mesh* m, const sfi_draco_target* t, const char* base, sf_error* err)
{
    size_t points = sfi_draco_mesh_points(m), faces = sfi_draco_mesh_faces(m);
    if (t->attribute == SFI_DRACO_INDICES) {
        if (faces > SIZE_MAX / 3 || t->count != 3 * faces)
            return fail(err, base, NULL, "indices: accessors[%zu] declares %zu indices, the stream decodes %zu "
                        "triangles (%zu indices)", t->accessor, t->count, faces, 3 * faces);
        return store_indices(m, t, base, err);
    }
    if (t->count != points)
        return fail(err, base, NULL, "%s: accessors[%zu] declares %zu elements, the stream decodes %zu points",
                    t->name, t->accessor, t->count, points);
    int rc = sfi_draco_mesh_attribute(m, t->attribute, t->ncomp, t->ctype, t->out);
    if (rc == -1) return fail(err, base, NULL, "%s: the stream has no attribute with id %u", t->name, t->attribute);
    if (rc == -2)
        return fail(err, base, NULL, "%s: Draco attribute %u has another component count than accessors[%zu] "
                    "(%zu)", t->name, t->attribute, t->accessor, t->ncomp);
    if (rc != 0)
        return fail(err, base, NULL, "%s: Draco attribute %u holds values accessors[%zu]'s type cannot hold",
                    t->name, t->attribute, t->accessor);
    return SF_OK;
}
#endif

sf_result sfi_draco_decode(const uint8_t* data, size_t size, const sfi_draco_target* targets, size_t target_count,
                           const char* base, sf_error* err)
{
#if defined(SF_WITH_DRACO)
    sfi_draco_mesh* m = NULL;
    char msg[160] = "";
    if (sfi_draco_mesh_decode(data, size, &m, msg, sizeof msg) != 0)
        return fail(err, base, NULL, "the %zu-byte stream does not decode: %s", size, msg);
    sf_result r = SF_OK;
    for (size_t k = 0; k < target_count && r == SF_OK; ++k) r = store(m, &targets[k], base, err);
    sfi_draco_mesh_free(m);
    return r;
#else
    (void)data;
    (void)size;
    (void)targets;
    (void)target_count;
    return sf_error_set(err, SF_ERROR_UNSUPPORTED, base, SFI_NO_INDEX,
                        "%s: this build has no Draco decoder (configure with SF_WITH_DRACO=ON and Debian's "
                        "libdraco-dev)", SFI_DRACO_EXT);
#endif
}

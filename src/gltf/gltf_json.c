/* The loader's one error path (errors name the JSON path) and its checked JSON getters: every number taken
 * from the file is checked before it is used. */
#include "gltf_loader.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The one error path: field = "base.key" (or base), message = the formatted detail. */
static sf_result jfailv(loader* L, sf_result code, const char* base, const char* key, const char* fmt, va_list args)
{
    char field[96], detail[200];
    if (key && *key)
        snprintf(field, sizeof field, "%s%s%s", base ? base : "", base && *base ? "." : "", key);
    else
        snprintf(field, sizeof field, "%s", base ? base : "");
    vsnprintf(detail, sizeof detail, fmt, args);
    return sf_error_set(L->err, code, field, SFI_NO_INDEX, "%s", detail);
}

sf_result jfail(loader* L, const char* base, const char* key, const char* fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    sf_result r = jfailv(L, SF_ERROR_GLTF, base, key, fmt, args);
    va_end(args);
    return r;
}

/* jfail with another code (SF_ERROR_TOO_LARGE: valid glTF, values beyond the library's bounds). */
sf_result jfail_code(loader* L, sf_result code, const char* base, const char* key, const char* fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    sf_result r = jfailv(L, code, base, key, fmt, args);
    va_end(args);
    return r;
}

sf_result oom(loader* L, const char* what)
{
    return sf_error_set(L->err, SF_ERROR_OUT_OF_MEMORY, what, SFI_NO_INDEX, "out of memory");
}

const cJSON* jget(const cJSON* obj, const char* key)
{
    return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

/* An array element that is an index below count (nodes in children, skin joints, scene roots). */
int array_index(const cJSON* e, size_t count, size_t* out)
{
    if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0.0) || e->valuedouble >= (double)count ||
        e->valuedouble != floor(e->valuedouble))
        return 0;
    *out = (size_t)e->valuedouble;
    return 1;
}

/* An unsigned integer member: absent -> def (or an error when required), must be integral in [0, max]. */
sf_result get_uint(loader* L, const cJSON* obj, const char* key, const char* base, int required, size_t max,
                   size_t def, size_t* out)
{
    const cJSON* v = jget(obj, key);
    if (!v) {
        if (required) return jfail(L, base, key, "missing");
        *out = def;
        return SF_OK;
    }
    if (!cJSON_IsNumber(v)) return jfail(L, base, key, "is not a number");
    double d = v->valuedouble;
    if (!(d >= 0.0) || d != floor(d) || d > (double)max || d > 9007199254740992.0)
        return jfail(L, base, key, "%.17g is not an integer in [0, %zu]", d, max);
    *out = (size_t)d;
    return SF_OK;
}

/* An index into an array of `count` elements named `what`. */
sf_result get_index(loader* L, const cJSON* obj, const char* key, const char* base, int required,
                    size_t count, const char* what, size_t* out)
{
    const cJSON* v = jget(obj, key);
    if (!v) {
        if (required) return jfail(L, base, key, "missing");
        *out = SF_GLTF_NONE;
        return SF_OK;
    }
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0.0) || v->valuedouble != floor(v->valuedouble))
        return jfail(L, base, key, "is not a non-negative integer");
    if (v->valuedouble >= (double)count)
        return jfail(L, base, key, "%.0f is out of range: the file has %zu %s", v->valuedouble, count, what);
    *out = (size_t)v->valuedouble;
    return SF_OK;
}

sf_result get_floats(loader* L, const cJSON* obj, const char* key, const char* base, size_t n, float* out)
{
    const cJSON* v = jget(obj, key);
    if (!v) return SF_OK;
    if (!cJSON_IsArray(v) || (size_t)cJSON_GetArraySize(v) != n)
        return jfail(L, base, key, "must be an array of %zu numbers", n);
    size_t i = 0;
    for (const cJSON* e = v->child; e; e = e->next, ++i) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble))
            return jfail(L, base, key, "element %zu is not a finite number", i);
        float f = fabs(e->valuedouble) > 1e39 ? INFINITY : (float)e->valuedouble; /* no undefined conversion */
        if (!(fabsf(f) <= SFI_GLTF_MAX_JSON_FLOAT))
            return jfail_code(L, SF_ERROR_TOO_LARGE, base, key, "element %zu is %g, beyond %g", i, e->valuedouble,
                              (double)SFI_GLTF_MAX_JSON_FLOAT);
        out[i] = f;
    }
    return SF_OK;
}

/* A JSON array member (absent -> NULL and count 0). */
sf_result get_array(loader* L, const cJSON* obj, const char* key, const char* base, int required,
                    const cJSON** out, size_t* count)
{
    const cJSON* v = jget(obj, key);
    *out = NULL;
    *count = 0;
    if (!v) return required ? jfail(L, base, key, "missing") : SF_OK;
    if (!cJSON_IsArray(v)) return jfail(L, base, key, "is not an array");
    *out = v;
    *count = (size_t)cJSON_GetArraySize(v);
    return SF_OK;
}

const char* own_string(loader* L, const char* s)
{
    if (!s) s = "";
    size_t n = strlen(s);
    char* p = own_alloc(L, n + 1, 1);
    if (p) memcpy(p, s, n + 1);
    return p;
}

const char* get_name(loader* L, const cJSON* obj)
{
    const cJSON* v = jget(obj, "name");
    return own_string(L, cJSON_IsString(v) ? v->valuestring : "");
}

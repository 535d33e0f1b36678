/* Result strings, error detail, environment defaults (allocator, serial parallel-for). */
#include "sf_internal.h"

#include <stdarg.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SF_STRINGIFY_(x) #x
#define SF_STRINGIFY(x) SF_STRINGIFY_(x)

uint32_t sf_version(void) { return SF_VERSION; }

const char* sf_version_string(void)
{
    return SF_STRINGIFY(SF_VERSION_MAJOR) "." SF_STRINGIFY(SF_VERSION_MINOR) "." SF_STRINGIFY(SF_VERSION_PATCH);
}

const char* sf_result_string(sf_result result)
{
    switch (result) {
#define SF_RESULT_CASE_(code, text) \
    case code:                      \
        return text;
        SF_RESULTS(SF_RESULT_CASE_)
#undef SF_RESULT_CASE_
    default:
        return "unknown result code";
    }
}

void sf_error_clear(sf_error* err)
{
    if (!err) return;
    memset(err, 0, sizeof *err);
    err->index = SFI_NO_INDEX;
}

sf_result sf_error_set(sf_error* err, sf_result code, const char* field, size_t index, const char* fmt, ...)
{
    if (!err) return code;
    va_list args;
    va_start(args, fmt);
    sf_error_setv(err, code, field, index, fmt, args);
    va_end(args);
    return code;
}

sf_result sf_error_setv(sf_error* err, sf_result code, const char* field, size_t index, const char* fmt, va_list args)
{
    if (!err) return code;
    err->result = code;
    err->index = index;
    snprintf(err->field, sizeof err->field, "%s", field ? field : "");
    char detail[sizeof err->message];
    detail[0] = '\0';
    if (fmt) vsnprintf(detail, sizeof detail, fmt, args);
    /* err->field is at most 63 characters; the detail is cut so the message always fits. */
    if (field && index != SFI_NO_INDEX)
        snprintf(err->message, sizeof err->message, "%s[%zu]: %.160s", err->field, index, detail);
    else if (field)
        snprintf(err->message, sizeof err->message, "%s: %.180s", err->field, detail);
    else
        snprintf(err->message, sizeof err->message, "%.200s", detail);
    return code;
}

/* ---------------------------------------------------------------- allocator */

static void* default_alloc(void* user, size_t size, size_t align)
{
    (void)user;
    (void)align; /* malloc aligns to max_align_t (16 on the platforms we build for) */
    return malloc(size);
}

static void default_free(void* user, void* ptr, size_t size)
{
    (void)user;
    (void)size;
    free(ptr);
}

sf_env sf_env_defaults(const sf_env* env)
{
    sf_env out;
    memset(&out, 0, sizeof out);
    if (env) out = *env;
    if (!out.allocator.alloc || !out.allocator.free) {
        out.allocator.alloc = default_alloc;
        out.allocator.free = default_free;
        out.allocator.user = NULL;
    }
    return out;
}

static bool has_allocator(const sf_env* env) { return env && env->allocator.alloc && env->allocator.free; }

void* sf_env_alloc(const sf_env* env, size_t size)
{
    if (size == 0) size = 1;
    if (!has_allocator(env)) return default_alloc(NULL, size, 16);
    return env->allocator.alloc(env->allocator.user, size, 16);
}

void* sf_env_calloc(const sf_env* env, size_t count, size_t elem)
{
    if (elem && count > SIZE_MAX / elem) return NULL;
    size_t size = count * elem;
    /* the C library's calloc hands large blocks out as fresh zero pages, touched only where written: a
     * histogram of 1.7 MB per accumulator costs what it holds, not its size */
    if (!has_allocator(env) || env->allocator.alloc == default_alloc) return calloc(size ? size : 1, 1);
    void* p = sf_env_alloc(env, size);
    if (p) memset(p, 0, size ? size : 1);
    return p;
}

void sf_env_free(const sf_env* env, void* ptr, size_t size)
{
    if (!ptr) return;
    if (!has_allocator(env)) default_free(NULL, ptr, size);
    else env->allocator.free(env->allocator.user, ptr, size); /* 0 = size not tracked (skinframe.h) */
}

void sf_env_parallel_for(const sf_env* env, size_t count, size_t grain, sf_range_fn* fn, void* ctx)
{
    if (count == 0) return;
    if (grain == 0) grain = 1;
    if (env && env->threads.parallel_for) {
        env->threads.parallel_for(env->threads.user, count, grain, fn, ctx);
        return;
    }
    for (size_t begin = 0; begin < count; begin += grain) {
        size_t end = count - begin < grain ? count : begin + grain;
        fn(ctx, begin, end);
    }
}

/* ---------------------------------------------------------------- methods */

static const char* const method_names[SF_METHOD_COUNT] = {
#define SF_METHOD_NAME_(id, name, text, per_vertex, cost, in_default, backends) name,
    SF_METHODS(SF_METHOD_NAME_)
#undef SF_METHOD_NAME_
};

static const char* const method_texts[SF_METHOD_COUNT] = {
#define SF_METHOD_TEXT_(id, name, text, per_vertex, cost, in_default, backends) text,
    SF_METHODS(SF_METHOD_TEXT_)
#undef SF_METHOD_TEXT_
};

static const sf_method_traits method_traits[SF_METHOD_COUNT] = {
#define SF_METHOD_TRAITS_(id, name, text, per_vertex, cost, in_default, backends) {per_vertex, cost, in_default, backends},
    SF_METHODS(SF_METHOD_TRAITS_)
#undef SF_METHOD_TRAITS_
};

/* The default set is a prefix of SF_METHODS (sf_eval_desc.methods NULL takes the first SF_METHOD_DEFAULT_COUNT). */
enum { DEFAULT_COUNT = SF_METHOD_DEFAULT_COUNT };
#define SF_METHOD_DEFAULT_PREFIX_(id, name, text, per_vertex, cost, in_default, backends)                      \
    _Static_assert((in_default) == ((int)(id) < DEFAULT_COUNT), "the default set comes first: " name);
SF_METHODS(SF_METHOD_DEFAULT_PREFIX_)
#undef SF_METHOD_DEFAULT_PREFIX_

sf_method_traits sf_method_traits_of(sf_method method)
{
    sf_method_traits none = {0, SF_COST_PER_VERTEX, 0, 0};
    return (unsigned)method < SF_METHOD_COUNT ? method_traits[method] : none;
}

const char* sf_method_name(sf_method method)
{
    return (unsigned)method < SF_METHOD_COUNT ? method_names[method] : "?";
}

const char* sf_method_description(sf_method method)
{
    return (unsigned)method < SF_METHOD_COUNT ? method_texts[method] : "?";
}

sf_result sf_method_parse(const char* name, sf_method* out)
{
    for (int m = 0; m < SF_METHOD_COUNT; ++m) {
        if (name && strcmp(name, method_names[m]) == 0) {
            *out = (sf_method)m;
            return SF_OK;
        }
    }
    return SF_ERROR_UNKNOWN_NAME;
}

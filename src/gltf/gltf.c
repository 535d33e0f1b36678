/* glTF 2.0 reading: .gltf / .glb containers, buffers, accessors (every component type, normalized,
 * strided, sparse), meshes and their primitives as sf_mesh_desc, nodes, skins, animations, scenes.
 * Every number taken from the file is checked before it is used; errors name the JSON path. */
#include "gltf_compressed.h"
#include "gltf_internal.h"

#include <cjson/cJSON.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#define GLB_MAGIC 0x46546C67u      /* "glTF" */
#define GLB_CHUNK_JSON 0x4E4F534Au /* "JSON" */
#define GLB_CHUNK_BIN 0x004E4942u  /* "BIN\0" */
#define DEFAULT_MAX_FILE_BYTES ((size_t)1 << 30)
/* Accessors without a bufferView are zeros (plus sparse values): bound them, since no bytes back them. */
#define MAX_VIEWLESS_ELEMENTS ((size_t)1 << 24)

/* ---------------------------------------------------------------- memory owned by the sf_gltf */

static void* block_alloc(const sf_env* env, sfi_gltf_block** list, size_t count, size_t elem)
{
    if (elem && count > (SIZE_MAX - 64) / elem) return NULL;
    size_t size = count * elem + sizeof(sfi_gltf_block) + 16;
    sfi_gltf_block* b = sf_env_alloc(env, size);
    if (!b) return NULL;
    memset(b, 0, size);
    b->next = *list;
    b->size = size;
    *list = b;
    return (char*)b + ((sizeof(sfi_gltf_block) + 15) & ~(size_t)15);
}

static void blocks_free(const sf_env* env, sfi_gltf_block* list)
{
    while (list) {
        sfi_gltf_block* next = list->next;
        sf_env_free(env, list, list->size);
        list = next;
    }
}

void* sfi_gltf_alloc(sf_gltf* gltf, size_t count, size_t elem)
{
    return block_alloc(&gltf->internal->env, &gltf->internal->blocks, count, elem);
}

/* ---------------------------------------------------------------- loader state */

typedef struct view {
    size_t buffer, offset, length, stride; /* stride 0 = tightly packed */
    sfi_meshopt_view meshopt;              /* EXT_meshopt_compression (present 0: plain bytes) */
    const uint8_t* decoded;                /* the decoded bytes of a compressed view (length of them) */
} view;

typedef struct accessor {
    size_t view; /* SF_GLTF_NONE = zeros */
    size_t offset, count, ncomp, rows, csize, col_stride, elem_size, stride;
    uint32_t ctype;
    int normalized;
    const char* type;
    size_t sparse_count; /* 0 = not sparse */
    size_t sp_index_view, sp_index_offset, sp_value_view, sp_value_offset;
    uint32_t sp_index_ctype;
    const uint8_t* decoded; /* KHR_draco_mesh_compression: count tightly packed elements */
    size_t decoded_by;      /* the bufferView + 1 whose Draco stream filled it */
} accessor;

typedef struct loader {
    sf_gltf* g;
    sf_error* err;
    sf_gltf_opts opts;
    sf_env env;
    sfi_gltf_block* tmp; /* freed when loading ends */
    const cJSON* root;
    const char* base_dir;
    const uint8_t* bin;
    size_t bin_size;
    int is_glb;
    size_t buffer_count, view_count, accessor_count;
    const uint8_t** buffer_data;
    size_t* buffer_length;
    uint8_t* buffer_has_data; /* 0: an EXT_meshopt_compression fallback buffer left unread */
    void** files;       /* buffer_count: external buffer files (sf_file_read), freed when loading ends */
    size_t input_bytes; /* the glTF or glb and its external buffers: the base of max_decoded_bytes */
    const char** inputs; /* resolved paths of the files read or named (sf_gltf.input_files) */
    size_t input_count, input_cap;
    view* views;
    accessor* accessors;
} loader;

/* Options with defaults filled in; the file limit stays far enough below SIZE_MAX for sizes to add. */
static void loader_opts(loader* L, const sf_gltf_opts* opts)
{
    if (opts) L->opts = *opts;
    if (!L->opts.max_file_bytes) L->opts.max_file_bytes = DEFAULT_MAX_FILE_BYTES;
    if (L->opts.max_file_bytes > SIZE_MAX / 4) L->opts.max_file_bytes = SIZE_MAX / 4;
    if (!L->opts.max_vertices) L->opts.max_vertices = SF_GLTF_DEFAULT_MAX_VERTICES;
    if (!L->opts.max_morph_elements) L->opts.max_morph_elements = SF_GLTF_DEFAULT_MAX_MORPH_ELEMENTS;
    /* max_decoded_bytes 0 stays 0 here: its default depends on the input's size (check_costs). */
}

static void* tmp_alloc(loader* L, size_t count, size_t elem) { return block_alloc(&L->env, &L->tmp, count, elem); }
static void* own_alloc(loader* L, size_t count, size_t elem) { return sfi_gltf_alloc(L->g, count, elem); }

/* The one error path: field = "base.key" (or base), message = the formatted detail. */
static sf_result jfail(loader* L, const char* base, const char* key, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
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

static sf_result jfail(loader* L, const char* base, const char* key, const char* fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    sf_result r = jfailv(L, SF_ERROR_GLTF, base, key, fmt, args);
    va_end(args);
    return r;
}

/* jfail with another code (SF_ERROR_TOO_LARGE: valid glTF, values beyond the library's bounds). */
static sf_result jfail_code(loader* L, sf_result code, const char* base, const char* key, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
static sf_result jfail_code(loader* L, sf_result code, const char* base, const char* key, const char* fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    sf_result r = jfailv(L, code, base, key, fmt, args);
    va_end(args);
    return r;
}

static sf_result oom(loader* L, const char* what)
{
    return sf_error_set(L->err, SF_ERROR_OUT_OF_MEMORY, what, SFI_NO_INDEX, "out of memory");
}

/* Adds the resolved form of path to the files the load read or names (sf_gltf.input_files), once. Best
 * effort: a path that cannot be resolved is kept as given. */
static sf_result record_input(loader* L, const char* path)
{
    char resolved[4096];
    if (sf_file_resolve(path, resolved, sizeof resolved, NULL) != SF_OK) snprintf(resolved, sizeof resolved, "%s", path);
    for (size_t i = 0; i < L->input_count; ++i)
        if (strcmp(L->inputs[i], resolved) == 0) return SF_OK;
    if (L->input_count == L->input_cap) {
        size_t cap = L->input_cap ? 2 * L->input_cap : 8;
        const char** grown = own_alloc(L, cap, sizeof(char*)); /* the old array stays in the block list */
        if (!grown) return oom(L, "input_files");
        if (L->input_count) memcpy(grown, L->inputs, L->input_count * sizeof(char*));
        L->inputs = grown;
        L->input_cap = cap;
    }
    size_t n = strlen(resolved);
    char* copy = own_alloc(L, n + 1, 1);
    if (!copy) return oom(L, "input_files");
    memcpy(copy, resolved, n + 1);
    L->inputs[L->input_count++] = copy;
    L->g->input_files = L->inputs;
    L->g->input_file_count = L->input_count;
    return SF_OK;
}

#define TRY(expr)                            \
    do {                                     \
        sf_result r_ = (expr);               \
        if (r_ != SF_OK) return r_;          \
    } while (0)

/* ---------------------------------------------------------------- JSON helpers */

static const cJSON* jget(const cJSON* obj, const char* key)
{
    return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

/* An array element that is an index below count (nodes in children, skin joints, scene roots). */
static int array_index(const cJSON* e, size_t count, size_t* out)
{
    if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0.0) || e->valuedouble >= (double)count ||
        e->valuedouble != floor(e->valuedouble))
        return 0;
    *out = (size_t)e->valuedouble;
    return 1;
}

/* An unsigned integer member: absent -> def (or an error when required), must be integral in [0, max]. */
static sf_result get_uint(loader* L, const cJSON* obj, const char* key, const char* base, int required, size_t max,
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
static sf_result get_index(loader* L, const cJSON* obj, const char* key, const char* base, int required,
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

static sf_result get_floats(loader* L, const cJSON* obj, const char* key, const char* base, size_t n, float* out)
{
    const cJSON* v = jget(obj, key);
    if (!v) return SF_OK;
    if (!cJSON_IsArray(v) || (size_t)cJSON_GetArraySize(v) != n)
        return jfail(L, base, key, "must be an array of %zu numbers", n);
    size_t i = 0;
    for (const cJSON* e = v->child; e; e = e->next, ++i) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || fabs(e->valuedouble) > 3.0e38)
            return jfail(L, base, key, "element %zu is not a finite number", i);
        out[i] = (float)e->valuedouble;
    }
    return SF_OK;
}

/* A JSON array member (absent -> NULL and count 0). */
static sf_result get_array(loader* L, const cJSON* obj, const char* key, const char* base, int required,
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

static const char* own_string(loader* L, const char* s)
{
    if (!s) s = "";
    size_t n = strlen(s);
    char* p = own_alloc(L, n + 1, 1);
    if (p) memcpy(p, s, n + 1);
    return p;
}

static const char* get_name(loader* L, const cJSON* obj)
{
    const cJSON* v = jget(obj, "name");
    return own_string(L, cJSON_IsString(v) ? v->valuestring : "");
}

/* ---------------------------------------------------------------- buffers */

static int b64_value(int c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
}

static sf_result decode_data_uri(loader* L, const char* uri, const char* base, const uint8_t** data, size_t* size)
{
    const char* comma = strchr(uri, ',');
    if (!comma) return jfail(L, base, "uri", "data URI without a comma");
    const char* b64 = strstr(uri, ";base64,");
    if (!b64 || b64 + 7 != comma) return jfail(L, base, "uri", "data URI is not base64");
    const char* s = comma + 1;
    size_t len = strlen(s);
    while (len > 0 && s[len - 1] == '=') len--;
    uint8_t* out = tmp_alloc(L, len / 4 * 3 + 3, 1);
    if (!out) return oom(L, base);
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; ++i) {
        int v = b64_value((unsigned char)s[i]);
        if (v < 0) return jfail(L, base, "uri", "invalid base64 character at %zu", i);
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (uint8_t)(acc >> bits);
        }
    }
    *data = out;
    *size = n;
    return SF_OK;
}

static int hex_value(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decodes %XX escapes and checks the folder rule (see skinframe.h). */
static sf_result resolve_uri(loader* L, const char* uri, const char* base, char* path, size_t path_size)
{
    size_t n = strlen(uri);
    char* dec = tmp_alloc(L, n + 1, 1);
    if (!dec) return oom(L, base);
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
        if (uri[i] == '%' && i + 2 < n && hex_value((unsigned char)uri[i + 1]) >= 0 &&
            hex_value((unsigned char)uri[i + 2]) >= 0) {
            dec[k++] = (char)(hex_value((unsigned char)uri[i + 1]) * 16 + hex_value((unsigned char)uri[i + 2]));
            i += 2;
        } else {
            dec[k++] = uri[i];
        }
    }
    dec[k] = '\0';
    if (k == 0 || strlen(dec) != k) return jfail(L, base, "uri", "empty or contains a NUL byte");
    const char* colon = strchr(dec, ':');
    const char* slash = strchr(dec, '/');
    if (colon && (!slash || colon < slash))
        return jfail(L, base, "uri", "\"%.60s\": only relative file paths and data: URIs are read", uri);
    if (!L->base_dir) return jfail(L, base, "uri", "\"%.60s\" is an external file but no folder was given", uri);
    int absolute = dec[0] == '/' || dec[0] == '\\';
    if (absolute && !L->opts.allow_outside_files)
        return jfail(L, base, "uri", "\"%.60s\" is an absolute path (outside the glTF's folder)", uri);
    /* Remove dot segments lexically (RFC 3986 5.2.4), so "sub/../x.bin" works whether or not sub exists. */
    char* norm = tmp_alloc(L, k + 2, 1);
    if (!norm) return oom(L, base);
    size_t nlen = 0, kept = 0; /* kept: named segments in norm that a ".." may remove */
    const char* seg = dec + absolute;
    while (*seg) {
        const char* e = seg;
        while (*e && *e != '/' && *e != '\\') e++;
        size_t len = (size_t)(e - seg);
        if (len == 2 && seg[0] == '.' && seg[1] == '.') {
            if (kept) {
                while (nlen > 0 && norm[nlen - 1] != '/') nlen--; /* drop the last named segment */
                if (nlen > 0) nlen--;
                kept--;
            } else if (!L->opts.allow_outside_files) {
                return jfail(L, base, "uri", "\"%.60s\" leaves the glTF's folder", uri);
            } else {
                if (nlen) norm[nlen++] = '/';
                norm[nlen++] = '.', norm[nlen++] = '.';
            }
        } else if (len > 0 && !(len == 1 && seg[0] == '.')) {
            if (nlen) norm[nlen++] = '/';
            memcpy(norm + nlen, seg, len);
            nlen += len;
            kept++;
        }
        seg = *e ? e + 1 : e;
    }
    norm[nlen] = '\0';
    if (nlen == 0) return jfail(L, base, "uri", "\"%.60s\" names no file", uri);
    if (absolute) {
        int w = snprintf(path, path_size, "/%s", norm);
        if (w < 0 || (size_t)w >= path_size) return jfail(L, base, "uri", "path too long");
        return SF_OK;
    }
    dec = norm;
    int w = snprintf(path, path_size, "%s/%s", L->base_dir, dec);
    if (w < 0 || (size_t)w >= path_size) return jfail(L, base, "uri", "path too long");
    return SF_OK;
}

/* The message of a files-layer error without its "field: " prefix. */
static const char* error_detail(const sf_error* e)
{
    size_t n = strlen(e->field);
    if (n && strncmp(e->message, e->field, n) == 0 && e->message[n] == ':' && e->message[n + 1] == ' ')
        return e->message + n + 2;
    return e->message;
}

/* Reads an external buffer file: a regular file, confined to the glTF's folder (links resolved) unless
 * allow_outside_files, and at most byteLength + SF_GLTF_BUFFER_SLACK bytes, checked from its size first. */
static sf_result read_buffer_file(loader* L, size_t i, const char* path, const char* uri, const char* base,
                                  const uint8_t** data, size_t* size)
{
    size_t declared = L->buffer_length[i]; /* <= SIZE_MAX / 2 */
    size_t by_length = declared + SF_GLTF_BUFFER_SLACK;
    sf_file_read_opts fo;
    memset(&fo, 0, sizeof fo);
    fo.confine_dir = L->opts.allow_outside_files ? NULL : L->base_dir;
    fo.max_bytes = by_length < L->opts.max_file_bytes ? by_length : L->opts.max_file_bytes;
    sf_error fe;
    void* bytes = NULL;
    size_t n = 0;
    sf_result r = sf_file_read(path, &fo, &L->env, &bytes, &n, &fe);
    if (r == SF_ERROR_OUT_OF_MEMORY) return oom(L, base);
    if (r == SF_ERROR_IO && strcmp(fe.field, "confine_dir") == 0)
        return jfail(L, base, "uri", "\"%.60s\" leaves the glTF's folder through a symbolic link "
                     "(allow_outside_files reads it)", uri);
    if (r == SF_ERROR_IO && strcmp(fe.field, "max_bytes") == 0 && fo.max_bytes == by_length) {
        if (fe.index != SFI_NO_INDEX)
            return jfail(L, base, "byteLength", "%zu, but \"%.60s\" holds %zu bytes (at most %d more are padding)",
                         declared, uri, fe.index, SF_GLTF_BUFFER_SLACK);
        return jfail(L, base, "byteLength", "%zu, but \"%.60s\" holds more than %zu bytes", declared, uri, by_length);
    }
    if (r != SF_OK) return sf_error_set(L->err, SF_ERROR_IO, base, SFI_NO_INDEX, "%s", error_detail(&fe));
    L->files[i] = bytes;
    if (record_input(L, path) != SF_OK) return SF_ERROR_OUT_OF_MEMORY;
    L->input_bytes = L->input_bytes > SIZE_MAX - n ? SIZE_MAX : L->input_bytes + n;
    *data = bytes;
    *size = n;
    return SF_OK;
}

static sf_result load_buffers(loader* L)
{
    const cJSON* arr;
    TRY(get_array(L, L->root, "buffers", "", 0, &arr, &L->buffer_count));
    L->buffer_data = tmp_alloc(L, L->buffer_count + 1, sizeof(*L->buffer_data));
    L->buffer_length = tmp_alloc(L, L->buffer_count + 1, sizeof(size_t));
    L->files = tmp_alloc(L, L->buffer_count + 1, sizeof(void*));
    L->buffer_has_data = tmp_alloc(L, L->buffer_count + 1, 1);
    if (!L->buffer_data || !L->buffer_length || !L->files || !L->buffer_has_data) return oom(L, "buffers");
    size_t i = 0;
    for (const cJSON* b = arr ? arr->child : NULL; b; b = b->next, ++i) {
        char base[48];
        snprintf(base, sizeof base, "buffers[%zu]", i);
        if (!cJSON_IsObject(b)) return jfail(L, base, NULL, "is not an object");
        TRY(get_uint(L, b, "byteLength", base, 1, SIZE_MAX / 2, 0, &L->buffer_length[i]));
        const cJSON* uri = jget(b, "uri");
        const uint8_t* data = NULL;
        size_t size = 0;
        if (sfi_meshopt_built_in() && sfi_meshopt_is_fallback(b)) {
            continue; /* only compressed views refer to it, and they are decoded */
        } else if (!uri) {
            if (!L->is_glb || i != 0) return jfail(L, base, "uri", "missing (only a .glb's first buffer may omit it)");
            if (!L->bin) return jfail(L, base, NULL, "refers to the glb BIN chunk, but the file has none");
            data = L->bin;
            size = L->bin_size;
        } else if (!cJSON_IsString(uri)) {
            return jfail(L, base, "uri", "is not a string");
        } else if (strncmp(uri->valuestring, "data:", 5) == 0) {
            TRY(decode_data_uri(L, uri->valuestring, base, &data, &size));
        } else {
            char path[4096];
            TRY(resolve_uri(L, uri->valuestring, base, path, sizeof path));
            TRY(read_buffer_file(L, i, path, uri->valuestring, base, &data, &size));
        }
        if (size < L->buffer_length[i])
            return jfail(L, base, "byteLength", "%zu, but only %zu bytes are there", L->buffer_length[i], size);
        L->buffer_data[i] = data;
        L->buffer_has_data[i] = 1;
    }
    return SF_OK;
}

/* The image files named by images[].uri, recorded in input_files though never read: a texture of the
 * input is not a place for an output either. Anything unusual (no folder, a scheme, not a string) is
 * skipped; images never make a load fail. */
static sf_result record_images(loader* L)
{
    const cJSON* arr = jget(L->root, "images");
    if (!L->base_dir || !cJSON_IsArray(arr)) return SF_OK;
    for (const cJSON* im = arr->child; im; im = im->next) {
        const cJSON* uri = cJSON_IsObject(im) ? jget(im, "uri") : NULL;
        if (!cJSON_IsString(uri) || strncmp(uri->valuestring, "data:", 5) == 0) continue;
        const char* u = uri->valuestring;
        char dec[2048];
        size_t k = 0;
        for (size_t i = 0; u[i] && k + 1 < sizeof dec; ++i) {
            if (u[i] == '%' && hex_value((unsigned char)u[i + 1]) >= 0 && hex_value((unsigned char)u[i + 2]) >= 0) {
                dec[k++] = (char)(hex_value((unsigned char)u[i + 1]) * 16 + hex_value((unsigned char)u[i + 2]));
                i += 2;
            } else {
                dec[k++] = u[i];
            }
        }
        dec[k] = '\0';
        const char* colon = strchr(dec, ':');
        const char* slash = strchr(dec, '/');
        if (k == 0 || strlen(dec) != k || (colon && (!slash || colon < slash))) continue;
        char path[4096];
        if (snprintf(path, sizeof path, "%s%s%s", dec[0] == '/' ? "" : L->base_dir, dec[0] == '/' ? "" : "/", dec) >=
            (int)sizeof path)
            continue;
        TRY(record_input(L, path));
    }
    return SF_OK;
}

static sf_result load_views(loader* L)
{
    const cJSON* arr;
    TRY(get_array(L, L->root, "bufferViews", "", 0, &arr, &L->view_count));
    L->views = tmp_alloc(L, L->view_count + 1, sizeof(view));
    if (!L->views) return oom(L, "bufferViews");
    size_t i = 0;
    for (const cJSON* v = arr ? arr->child : NULL; v; v = v->next, ++i) {
        char base[48];
        snprintf(base, sizeof base, "bufferViews[%zu]", i);
        view* bv = &L->views[i];
        if (!cJSON_IsObject(v)) return jfail(L, base, NULL, "is not an object");
        TRY(get_index(L, v, "buffer", base, 1, L->buffer_count, "buffers", &bv->buffer));
        TRY(get_uint(L, v, "byteOffset", base, 0, SIZE_MAX / 2, 0, &bv->offset));
        TRY(get_uint(L, v, "byteLength", base, 1, SIZE_MAX / 2, 0, &bv->length));
        TRY(get_uint(L, v, "byteStride", base, 0, 252, 0, &bv->stride));
        if (jget(v, "byteStride") && (bv->stride < 4 || bv->stride % 4))
            return jfail(L, base, "byteStride", "%zu is not a multiple of 4 in [4, 252]", bv->stride);
        size_t blen = L->buffer_length[bv->buffer];
        if (bv->offset > blen || bv->length > blen - bv->offset)
            return jfail(L, base, "byteLength", "offset %zu + length %zu exceeds buffers[%zu].byteLength %zu",
                         bv->offset, bv->length, bv->buffer, blen);
        if (sfi_meshopt_built_in())
            TRY(sfi_meshopt_parse(v, base, L->buffer_count, L->buffer_length, L->buffer_has_data, bv->length,
                                  &bv->meshopt, L->err));
        if (!bv->meshopt.present && !L->buffer_has_data[bv->buffer])
            return jfail(L, base, "buffer", "buffers[%zu] is an %s fallback buffer without data, and this view is "
                         "not compressed", bv->buffer, SFI_MESHOPT_EXT);
    }
    return SF_OK;
}

/* ---------------------------------------------------------------- accessors */

static size_t component_size(uint32_t ctype)
{
    switch (ctype) {
    case 5120: case 5121: return 1;
    case 5122: case 5123: return 2;
    case 5125: case 5126: return 4;
    default: return 0;
    }
}

static const char* component_name(uint32_t ctype, int normalized)
{
    switch (ctype) {
    case 5120: return normalized ? "i8n" : "i8";
    case 5121: return normalized ? "u8n" : "u8";
    case 5122: return normalized ? "i16n" : "i16";
    case 5123: return normalized ? "u16n" : "u16";
    case 5125: return "u32";
    default: return "f32";
    }
}

static sf_result load_accessors(loader* L)
{
    static const struct { const char* name; size_t ncomp, rows; } types[] = {
        {"SCALAR", 1, 1}, {"VEC2", 2, 2}, {"VEC3", 3, 3}, {"VEC4", 4, 4}, {"MAT2", 4, 2}, {"MAT3", 9, 3}, {"MAT4", 16, 4}};
    const cJSON* arr;
    TRY(get_array(L, L->root, "accessors", "", 0, &arr, &L->accessor_count));
    L->accessors = tmp_alloc(L, L->accessor_count + 1, sizeof(accessor));
    if (!L->accessors) return oom(L, "accessors");
    size_t i = 0;
    for (const cJSON* a = arr ? arr->child : NULL; a; a = a->next, ++i) {
        char base[48];
        snprintf(base, sizeof base, "accessors[%zu]", i);
        accessor* ac = &L->accessors[i];
        if (!cJSON_IsObject(a)) return jfail(L, base, NULL, "is not an object");
        size_t ctype;
        TRY(get_uint(L, a, "componentType", base, 1, 100000, 0, &ctype));
        ac->ctype = (uint32_t)ctype;
        ac->csize = component_size(ac->ctype);
        if (!ac->csize) return jfail(L, base, "componentType", "%zu is not a glTF component type", ctype);
        const cJSON* type = jget(a, "type");
        if (!cJSON_IsString(type)) return jfail(L, base, "type", "missing");
        ac->ncomp = 0;
        for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t)
            if (strcmp(type->valuestring, types[t].name) == 0) {
                ac->ncomp = types[t].ncomp;
                ac->rows = types[t].rows;
                ac->type = types[t].name;
            }
        if (!ac->ncomp) return jfail(L, base, "type", "\"%.20s\" is not a glTF accessor type", type->valuestring);
        const cJSON* norm = jget(a, "normalized");
        ac->normalized = cJSON_IsTrue(norm);
        if (ac->normalized && (ac->ctype == 5125 || ac->ctype == 5126))
            return jfail(L, base, "normalized", "is only allowed for 8- and 16-bit integers");
        TRY(get_uint(L, a, "count", base, 1, SIZE_MAX / 64, 0, &ac->count));
        if (ac->count == 0) return jfail(L, base, "count", "must be at least 1");
        /* Matrix columns start on 4-byte boundaries (glTF data alignment). */
        size_t cols = ac->ncomp / ac->rows;
        ac->col_stride = ac->rows * ac->csize;
        if (cols > 1) ac->col_stride = (ac->col_stride + 3) & ~(size_t)3;
        ac->elem_size = cols * ac->col_stride;
        TRY(get_index(L, a, "bufferView", base, 0, L->view_count, "bufferViews", &ac->view));
        TRY(get_uint(L, a, "byteOffset", base, 0, SIZE_MAX / 2, 0, &ac->offset));
        if (ac->view != SF_GLTF_NONE) {
            const view* bv = &L->views[ac->view];
            ac->stride = bv->stride ? bv->stride : ac->elem_size;
            if (ac->stride < ac->elem_size)
                return jfail(L, base, "bufferView", "bufferViews[%zu].byteStride %zu < element size %zu", ac->view,
                             bv->stride, ac->elem_size);
            /* offset + stride * (count - 1) + elem_size <= view length, without overflow */
            if (ac->offset > bv->length || ac->elem_size > bv->length - ac->offset ||
                (ac->count - 1) > (bv->length - ac->offset - ac->elem_size) / ac->stride)
                return jfail(L, base, "count", "%zu elements of %zu bytes (stride %zu) at offset %zu exceed "
                             "bufferViews[%zu].byteLength %zu", ac->count, ac->elem_size, ac->stride, ac->offset,
                             ac->view, bv->length);
        } else if (ac->count > MAX_VIEWLESS_ELEMENTS) {
            return jfail(L, base, "count", "%zu elements without a bufferView (limit %zu)", ac->count,
                         MAX_VIEWLESS_ELEMENTS);
        }
        const cJSON* sp = jget(a, "sparse");
        if (sp) {
            char sbase[64];
            snprintf(sbase, sizeof sbase, "%s.sparse", base);
            TRY(get_uint(L, sp, "count", sbase, 1, ac->count, 0, &ac->sparse_count));
            if (ac->sparse_count == 0) return jfail(L, sbase, "count", "must be at least 1");
            const cJSON* idx = jget(sp, "indices");
            const cJSON* val = jget(sp, "values");
            char ibase[80], vbase[80];
            snprintf(ibase, sizeof ibase, "%s.indices", sbase);
            snprintf(vbase, sizeof vbase, "%s.values", sbase);
            if (!cJSON_IsObject(idx)) return jfail(L, ibase, NULL, "missing");
            if (!cJSON_IsObject(val)) return jfail(L, vbase, NULL, "missing");
            size_t ict;
            TRY(get_index(L, idx, "bufferView", ibase, 1, L->view_count, "bufferViews", &ac->sp_index_view));
            TRY(get_uint(L, idx, "byteOffset", ibase, 0, SIZE_MAX / 2, 0, &ac->sp_index_offset));
            TRY(get_uint(L, idx, "componentType", ibase, 1, 100000, 0, &ict));
            if (ict != 5121 && ict != 5123 && ict != 5125)
                return jfail(L, ibase, "componentType", "%zu is not an unsigned integer type", ict);
            ac->sp_index_ctype = (uint32_t)ict;
            TRY(get_index(L, val, "bufferView", vbase, 1, L->view_count, "bufferViews", &ac->sp_value_view));
            TRY(get_uint(L, val, "byteOffset", vbase, 0, SIZE_MAX / 2, 0, &ac->sp_value_offset));
            const view* iv = &L->views[ac->sp_index_view];
            const view* vv = &L->views[ac->sp_value_view];
            size_t isz = component_size(ac->sp_index_ctype);
            if (ac->sp_index_offset > iv->length || ac->sparse_count > (iv->length - ac->sp_index_offset) / isz)
                return jfail(L, ibase, "byteOffset", "%zu indices at offset %zu exceed bufferViews[%zu].byteLength %zu",
                             ac->sparse_count, ac->sp_index_offset, ac->sp_index_view, iv->length);
            if (ac->sp_value_offset > vv->length ||
                ac->sparse_count > (vv->length - ac->sp_value_offset) / ac->elem_size)
                return jfail(L, vbase, "byteOffset", "%zu values at offset %zu exceed bufferViews[%zu].byteLength %zu",
                             ac->sparse_count, ac->sp_value_offset, ac->sp_value_view, vv->length);
        }
    }
    return SF_OK;
}

static const uint8_t* view_bytes(const loader* L, size_t v, size_t offset)
{
    const view* bv = &L->views[v];
    if (bv->decoded) return bv->decoded + offset;
    return L->buffer_data[bv->buffer] + bv->offset + offset;
}

static double read_component(const uint8_t* p, uint32_t ctype, int normalized)
{
    switch (ctype) {
    case 5120: {
        int8_t v;
        memcpy(&v, p, 1);
        return normalized ? fmax(v / 127.0, -1.0) : v;
    }
    case 5121: return normalized ? p[0] / 255.0 : p[0];
    case 5122: {
        int16_t v;
        memcpy(&v, p, 2);
        return normalized ? fmax(v / 32767.0, -1.0) : v;
    }
    case 5123: {
        uint16_t v;
        memcpy(&v, p, 2);
        return normalized ? v / 65535.0 : v;
    }
    case 5125: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    default: {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    }
}

/* Reads one element (ncomp values) at p with the accessor's layout. */
static void read_element(const accessor* ac, const uint8_t* p, double* out)
{
    for (size_t k = 0; k < ac->ncomp; ++k) {
        size_t col = k / ac->rows, row = k % ac->rows;
        out[k] = read_component(p + col * ac->col_stride + row * ac->csize, ac->ctype, ac->normalized);
    }
}

/* Calls fn for every element of accessor ai in order (after sparse substitution).
 * `base` names the user of the accessor for error messages. */
typedef sf_result element_fn(loader* L, void* ctx, size_t i, const double* v);

static sf_result accessor_each(loader* L, size_t ai, const char* base, element_fn* fn, void* ctx)
{
    const accessor* ac = &L->accessors[ai];
    double v[16];
    const uint8_t* sp_idx = NULL;
    const uint8_t* sp_val = NULL;
    size_t next_sparse = 0, next_index = SIZE_MAX;
    if (ac->sparse_count) {
        sp_idx = view_bytes(L, ac->sp_index_view, ac->sp_index_offset);
        sp_val = view_bytes(L, ac->sp_value_view, ac->sp_value_offset);
        next_index = (size_t)read_component(sp_idx, ac->sp_index_ctype, 0);
    }
    size_t isz = component_size(ac->sp_index_ctype ? ac->sp_index_ctype : 5121);
    for (size_t i = 0; i < ac->count; ++i) {
        if (i == next_index) {
            read_element(ac, sp_val + next_sparse * ac->elem_size, v);
            next_sparse++;
            if (next_sparse < ac->sparse_count) {
                size_t ni = (size_t)read_component(sp_idx + next_sparse * isz, ac->sp_index_ctype, 0);
                if (ni <= next_index)
                    return jfail(L, base, NULL, "accessors[%zu].sparse.indices[%zu] = %zu does not increase", ai,
                                 next_sparse, ni);
                next_index = ni;
            } else {
                next_index = SIZE_MAX;
            }
        } else if (ac->decoded) {
            read_element(ac, ac->decoded + i * ac->elem_size, v);
        } else if (ac->view != SF_GLTF_NONE) {
            read_element(ac, view_bytes(L, ac->view, ac->offset + i * ac->stride), v);
        } else {
            memset(v, 0, sizeof v);
        }
        TRY(fn(L, ctx, i, v));
    }
    if (next_sparse < ac->sparse_count)
        return jfail(L, base, NULL, "accessors[%zu].sparse.indices[%zu] = %zu >= count %zu", ai, next_sparse,
                     next_index, ac->count);
    return SF_OK;
}

typedef struct float_sink {
    float* out;
    size_t ncomp;
} float_sink;

static sf_result sink_floats(loader* L, void* ctx, size_t i, const double* v)
{
    (void)L;
    float_sink* s = (float_sink*)ctx;
    for (size_t k = 0; k < s->ncomp; ++k) s->out[i * s->ncomp + k] = (float)v[k];
    return SF_OK;
}

typedef struct uint_sink {
    uint32_t* out;
    size_t ncomp;
} uint_sink;

static sf_result sink_uints(loader* L, void* ctx, size_t i, const double* v)
{
    (void)L;
    uint_sink* s = (uint_sink*)ctx;
    for (size_t k = 0; k < s->ncomp; ++k) s->out[i * s->ncomp + k] = (uint32_t)v[k];
    return SF_OK;
}

/* Checks that accessor ai has one of the types in `ncomps` (0-terminated) and, when integer_only, an
 * integer component type that is not normalized. */
static sf_result accessor_expect(loader* L, size_t ai, const char* base, const char* key, size_t ncomp,
                                 int integer_only)
{
    const accessor* ac = &L->accessors[ai];
    if (ac->ncomp != ncomp || (ncomp == 4 && strcmp(ac->type, "VEC4") != 0))
        return jfail(L, base, key, "accessors[%zu] is %s, expected %zu components", ai, ac->type, ncomp);
    if (integer_only && (ac->ctype == 5126 || ac->normalized || ac->ctype == 5120 || ac->ctype == 5122))
        return jfail(L, base, key, "accessors[%zu] must hold unsigned integers, not %s", ai,
                     component_name(ac->ctype, ac->normalized));
    return SF_OK;
}

/* Reads accessor ai as floats (ncomp per element) into owned memory. */
static sf_result read_floats(loader* L, size_t ai, const char* base, const char* key, size_t ncomp, int owned,
                             float** out)
{
    char field[128];
    snprintf(field, sizeof field, "%s%s%s", base, key ? "." : "", key ? key : "");
    TRY(accessor_expect(L, ai, base, key, ncomp, 0));
    const accessor* ac = &L->accessors[ai];
    float* data = owned ? own_alloc(L, ac->count, ncomp * sizeof(float)) : tmp_alloc(L, ac->count, ncomp * sizeof(float));
    if (!data) return oom(L, field);
    float_sink s = {data, ncomp};
    TRY(accessor_each(L, ai, field, sink_floats, &s));
    for (size_t i = 0; i < ac->count * ncomp; ++i)
        if (!isfinite(data[i]))
            return jfail(L, base, key, "accessors[%zu] element %zu is not finite", ai, i / ncomp);
    *out = data;
    return SF_OK;
}

/* Vertex coordinates the core bounds (positions, normals, tangents xyz, UVs, morph deltas): within
 * SF_MAX_COORD, named by accessor and element here since the core sees split (flat-normal) vertices. The
 * first `bounded` of every ncomp components are checked; element i is the accessor's element elements[i]
 * (NULL: i). */
static sf_result check_coords(loader* L, const char* base, const char* key, size_t ai, const float* data,
                              const uint32_t* elements, size_t count, size_t ncomp, size_t bounded)
{
    for (size_t i = 0; i < count; ++i)
        for (size_t k = 0; k < bounded; ++k)
            if (!(fabsf(data[i * ncomp + k]) <= SF_MAX_COORD))
                return jfail_code(L, SF_ERROR_TOO_LARGE, base, key,
                                  "accessors[%zu] element %zu component %zu is %g, beyond SF_MAX_COORD (%g)", ai,
                                  elements ? (size_t)elements[i] : i, k, (double)data[i * ncomp + k],
                                  (double)SF_MAX_COORD);
    return SF_OK;
}

static sf_result read_uints(loader* L, size_t ai, const char* base, const char* key, size_t ncomp, uint32_t** out)
{
    char field[128];
    snprintf(field, sizeof field, "%s%s%s", base, key ? "." : "", key ? key : "");
    TRY(accessor_expect(L, ai, base, key, ncomp, 1));
    const accessor* ac = &L->accessors[ai];
    uint32_t* data = tmp_alloc(L, ac->count, ncomp * sizeof(uint32_t));
    if (!data) return oom(L, field);
    uint_sink s = {data, ncomp};
    TRY(accessor_each(L, ai, field, sink_uints, &s));
    *out = data;
    return SF_OK;
}

/* ---------------------------------------------------------------- meshes */

/* Appends "NAME:TYPE/ctype " for the attribute list of a primitive. */
static void describe(loader* L, char* buf, size_t size, const char* name, size_t ai)
{
    const accessor* ac = &L->accessors[ai];
    size_t len = strlen(buf);
    if (len + 1 < size)
        snprintf(buf + len, size - len, "%s%s:%s/%s", len ? " " : "", name, ac->type,
                 component_name(ac->ctype, ac->normalized));
}

static int has_word(const char* list, const char* word)
{
    size_t n = strlen(word);
    for (const char* p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    return 0;
}

/* Triangles of a primitive (strips and fans converted as the glTF spec orders them). */
static sf_result build_triangles(loader* L, const char* base, uint32_t mode, const uint32_t* idx, size_t count,
                                 size_t vertex_count, uint32_t** out, size_t* tri_count)
{
    for (size_t i = 0; i < count; ++i)
        if (idx[i] >= vertex_count)
            return jfail(L, base, "indices", "index %u at position %zu >= vertex count %zu", idx[i], i, vertex_count);
    size_t T;
    if (mode == 4) {
        if (count % 3) return jfail(L, base, "indices", "count %zu is not a multiple of 3", count);
        T = count / 3;
    } else {
        T = count >= 3 ? count - 2 : 0;
    }
    uint32_t* tri = own_alloc(L, T ? T : 1, 3 * sizeof(uint32_t));
    if (!tri) return oom(L, base);
    for (size_t t = 0; t < T; ++t) {
        uint32_t* o = tri + 3 * t;
        if (mode == 4) {
            o[0] = idx[3 * t], o[1] = idx[3 * t + 1], o[2] = idx[3 * t + 2];
        } else if (mode == 5) { /* strip: (i, i + 1 + i%2, i + 2 - i%2) */
            o[0] = idx[t], o[1] = idx[t + 1 + t % 2], o[2] = idx[t + 2 - t % 2];
        } else { /* fan: (i + 1, i + 2, 0) */
            o[0] = idx[t + 1], o[1] = idx[t + 2], o[2] = idx[0];
        }
    }
    *out = tri;
    *tri_count = T;
    return SF_OK;
}

/* A vertex attribute accessor: checks its count against POSITION and reads it as floats. */
static sf_result read_attribute(loader* L, const cJSON* attrs, const char* name, const char* abase, size_t n,
                                size_t ncomp, char* desc, size_t desc_size, float** out)
{
    size_t ai;
    *out = NULL;
    TRY(get_index(L, attrs, name, abase, 0, L->accessor_count, "accessors", &ai));
    if (ai == SF_GLTF_NONE) return SF_OK;
    if (L->accessors[ai].count != n)
        return jfail(L, abase, name, "accessors[%zu].count %zu differs from POSITION's %zu", ai,
                     L->accessors[ai].count, n);
    if (desc) describe(L, desc, desc_size, name, ai);
    TRY(read_floats(L, ai, abase, name, ncomp, 1, out));
    if (strncmp(name, "WEIGHTS_", 8) != 0) /* weights are relative: the core rescales them */
        TRY(check_coords(L, abase, name, ai, *out, NULL, n, ncomp, ncomp == 4 ? 3 : ncomp));
    return SF_OK;
}

/* One morph target as read (dense arrays or a shared sparse index list). */
typedef struct target_read {
    float* d[3]; /* POSITION, NORMAL, TANGENT deltas (dense n*3) or sparse_count*3 */
    uint32_t* sparse; /* NULL = dense */
    size_t sparse_count;
} target_read;

/* The first of the target's accessors ai[3] (SF_GLTF_NONE = absent) when all present ones have the same
 * sparse indices, else NULL. Callers have checked that each is sparse. */
static const accessor* same_sparse_indices(const loader* L, const size_t ai[3])
{
    const accessor* first = NULL;
    for (int s = 0; s < 3; ++s) {
        if (ai[s] == SF_GLTF_NONE) continue;
        const accessor* ac = &L->accessors[ai[s]];
        if (!first) {
            first = ac;
            continue;
        }
        if (ac->sparse_count != first->sparse_count) return NULL;
        for (size_t i = 0; i < ac->sparse_count; ++i) {
            size_t a = (size_t)read_component(view_bytes(L, ac->sp_index_view, ac->sp_index_offset) +
                                                  i * component_size(ac->sp_index_ctype), ac->sp_index_ctype, 0);
            size_t b = (size_t)read_component(view_bytes(L, first->sp_index_view, first->sp_index_offset) +
                                                  i * component_size(first->sp_index_ctype),
                                              first->sp_index_ctype, 0);
            if (a != b) return NULL;
        }
    }
    return first;
}

/* Sparse accessors without a bufferView keep only their entries when every attribute of the target is
 * such an accessor with the same indices; otherwise the target is read dense. */
static sf_result read_target(loader* L, const cJSON* tobj, const char* tbase, size_t n, int want_dense,
                             target_read* out)
{
    static const char* const names[3] = {"POSITION", "NORMAL", "TANGENT"};
    size_t ai[3];
    int sparse_ok = !want_dense, any = 0;
    memset(out, 0, sizeof *out);
    for (int s = 0; s < 3; ++s) {
        TRY(get_index(L, tobj, names[s], tbase, 0, L->accessor_count, "accessors", &ai[s]));
        if (ai[s] == SF_GLTF_NONE) continue;
        const accessor* ac = &L->accessors[ai[s]];
        if (ac->count != n)
            return jfail(L, tbase, names[s], "accessors[%zu].count %zu differs from POSITION's %zu", ai[s], ac->count, n);
        TRY(accessor_expect(L, ai[s], tbase, names[s], 3, 0));
        if (ac->view != SF_GLTF_NONE || !ac->sparse_count) sparse_ok = 0;
        any = 1;
    }
    if (sparse_ok && any) {
        const accessor* first = same_sparse_indices(L, ai);
        if (first) {
            size_t m = first->sparse_count;
            out->sparse = own_alloc(L, m, sizeof(uint32_t));
            if (!out->sparse) return oom(L, tbase);
            for (size_t i = 0; i < m; ++i) {
                size_t v = (size_t)read_component(view_bytes(L, first->sp_index_view, first->sp_index_offset) +
                                                      i * component_size(first->sp_index_ctype),
                                                  first->sp_index_ctype, 0);
                if (v >= n) return jfail(L, tbase, NULL, "sparse index %zu >= count %zu", v, n);
                if (i > 0 && v <= out->sparse[i - 1])
                    return jfail(L, tbase, NULL, "sparse indices[%zu] = %zu does not increase", i, v);
                out->sparse[i] = (uint32_t)v;
            }
            out->sparse_count = m;
            for (int s = 0; s < 3; ++s) {
                if (ai[s] == SF_GLTF_NONE) continue;
                const accessor* ac = &L->accessors[ai[s]];
                float* d = own_alloc(L, m, 3 * sizeof(float));
                if (!d) return oom(L, tbase);
                double v[16];
                for (size_t i = 0; i < m; ++i) {
                    read_element(ac, view_bytes(L, ac->sp_value_view, ac->sp_value_offset) + i * ac->elem_size, v);
                    for (int k = 0; k < 3; ++k) {
                        d[3 * i + k] = (float)v[k];
                        if (!isfinite(d[3 * i + k])) return jfail(L, tbase, names[s], "value %zu is not finite", i);
                    }
                    TRY(check_coords(L, tbase, names[s], ai[s], d + 3 * i, out->sparse + i, 1, 3, 3));
                }
                out->d[s] = d;
            }
            if (!out->d[0]) {
                out->d[0] = own_alloc(L, m, 3 * sizeof(float));
                if (!out->d[0]) return oom(L, tbase);
            }
            return SF_OK;
        }
    }
    for (int s = 0; s < 3; ++s) {
        if (ai[s] == SF_GLTF_NONE) continue;
        TRY(read_floats(L, ai[s], tbase, names[s], 3, 1, &out->d[s]));
        TRY(check_coords(L, tbase, names[s], ai[s], out->d[s], NULL, n, 3, 3));
    }
    if (!out->d[0]) {
        out->d[0] = own_alloc(L, n ? n : 1, 3 * sizeof(float));
        if (!out->d[0]) return oom(L, tbase);
    }
    return SF_OK;
}

/* Splits every triangle corner into its own vertex (for flat normals): remaps a per-vertex array. */
static void* deindex(loader* L, const void* src, size_t elem, const uint32_t* tri, size_t corners)
{
    if (!src) return NULL;
    uint8_t* dst = own_alloc(L, corners ? corners : 1, elem);
    if (!dst) return NULL;
    for (size_t c = 0; c < corners; ++c) memcpy(dst + c * elem, (const uint8_t*)src + tri[c] * elem, elem);
    return dst;
}

/* Sparse target entries for the copies [n, N) of a MikkTSpace split: a copy of a listed vertex is listed
 * too, with its source's deltas. Copies are numbered upwards, so the list stays increasing. */
static sf_result split_sparse_target(loader* L, sf_morph_target_desc* t, const uint32_t* source, size_t n, size_t N,
                                     const char* base)
{
    size_t m = t->sparse_count, extra = 0;
    const uint32_t* S = t->sparse_indices;
    /* position of v in S, or m when it is not listed */
#define SPARSE_FIND_(v, out)                                      \
    do {                                                          \
        size_t lo_ = 0, hi_ = m;                                  \
        while (lo_ < hi_) {                                       \
            size_t mid_ = lo_ + (hi_ - lo_) / 2;                  \
            if (S[mid_] < (v)) lo_ = mid_ + 1; else hi_ = mid_;   \
        }                                                         \
        (out) = lo_ < m && S[lo_] == (v) ? lo_ : m;               \
    } while (0)
    for (size_t k = n; k < N; ++k) {
        size_t j;
        SPARSE_FIND_(source[k], j);
        extra += j < m;
    }
    if (!extra) return SF_OK;
    uint32_t* idx = own_alloc(L, m + extra, sizeof(uint32_t));
    float* d[3] = {NULL, NULL, NULL};
    const float* old[3] = {t->position_deltas, t->normal_deltas, t->tangent_deltas};
    for (int s = 0; s < 3; ++s)
        if (old[s] && !(d[s] = own_alloc(L, m + extra, 3 * sizeof(float)))) return oom(L, base);
    if (!idx) return oom(L, base);
    memcpy(idx, S, m * sizeof(uint32_t));
    for (int s = 0; s < 3; ++s)
        if (d[s]) memcpy(d[s], old[s], 3 * m * sizeof(float));
    size_t e = m;
    for (size_t k = n; k < N; ++k) {
        size_t j;
        SPARSE_FIND_(source[k], j);
        if (j == m) continue;
        idx[e] = (uint32_t)k;
        for (int s = 0; s < 3; ++s)
            if (d[s]) memcpy(d[s] + 3 * e, old[s] + 3 * j, 3 * sizeof(float));
        e++;
    }
#undef SPARSE_FIND_
    t->sparse_indices = idx;
    t->sparse_count = m + extra;
    t->position_deltas = d[0];
    t->normal_deltas = d[1];
    t->tangent_deltas = d[2];
    return SF_OK;
}

/* Carries every per-vertex stream of the primitive to the N vertices of a MikkTSpace split (vertex k copies
 * source[k]; the first vertex_count keep their own), source_vertex included. */
static sf_result split_streams(loader* L, sf_gltf_primitive* out, const uint32_t* source, size_t N, const char* base)
{
    sf_mesh_desc* m = &out->mesh;
    size_t n = m->vertex_count, K = m->influence_count;
    if (N > L->opts.max_vertices)
        return jfail(L, base, NULL, "%zu vertices once split for MikkTSpace tangents > max_vertices %zu; raise "
                     "sf_gltf_opts.max_vertices / --max-vertices", N, L->opts.max_vertices);
    size_t elements = 0;
    for (size_t t = 0; t < m->target_count; ++t)
        elements += m->targets[t].sparse_indices ? m->targets[t].sparse_count + (N - n) : N;
    if (elements > L->opts.max_morph_elements)
        return jfail(L, base, NULL, "%zu morph targets hold up to %zu (target, vertex) elements once split for "
                     "MikkTSpace tangents > max_morph_elements %zu; raise sf_gltf_opts.max_morph_elements / "
                     "--max-morph-elements", m->target_count, elements, L->opts.max_morph_elements);
    int lost = 0;
#define SPLIT_(dst, src, elem)                                          \
    do {                                                                \
        const void* src_ = (src);                                       \
        (dst) = deindex(L, src_, (elem), source, N);                    \
        lost |= src_ != NULL && (dst) == NULL;                          \
    } while (0)
    float *pos, *nrm, *uv, *weights;
    uint32_t *joints, *src_vertex;
    SPLIT_(pos, m->positions.data, 3 * sizeof(float));
    SPLIT_(nrm, m->normals.data, 3 * sizeof(float));
    SPLIT_(uv, m->uvs.data, 2 * sizeof(float));
    SPLIT_(joints, m->joints, K * sizeof(uint32_t));
    SPLIT_(weights, m->weights, K * sizeof(float));
    SPLIT_(src_vertex, out->source_vertex, sizeof(uint32_t));
    if (lost) return oom(L, base);
    m->positions.data = pos;
    m->normals.data = nrm;
    m->uvs.data = uv;
    m->joints = joints;
    m->weights = weights;
    out->source_vertex = src_vertex;
    sf_morph_target_desc* targets = (sf_morph_target_desc*)m->targets; /* the loader's own array */
    for (size_t t = 0; t < m->target_count; ++t) {
        sf_morph_target_desc* td = &targets[t];
        if (td->sparse_indices) {
            TRY(split_sparse_target(L, td, source, n, N, base));
            continue;
        }
        float* d[3];
        SPLIT_(d[0], td->position_deltas, 3 * sizeof(float));
        SPLIT_(d[1], td->normal_deltas, 3 * sizeof(float));
        SPLIT_(d[2], td->tangent_deltas, 3 * sizeof(float));
        if (lost) return oom(L, base);
        td->position_deltas = d[0];
        td->normal_deltas = d[1];
        td->tangent_deltas = d[2];
    }
#undef SPLIT_
    m->vertex_count = N;
    return SF_OK;
}

/* MikkTSpace tangents of a primitive without TANGENT (glTF's recommendation), from its rest positions,
 * normals and UVs. The generator gives one tangent per corner; a vertex whose corners got different ones is
 * split into one vertex per distinct tangent (sf_tangents_split: copies appended, triangles re-indexed, every
 * per-vertex stream carried), so each corner keeps MikkTSpace's own tangent. */
static sf_result generate_mikktspace(loader* L, sf_gltf_primitive* out, const char* base)
{
    sf_mesh_desc* m = &out->mesh;
    sf_tangent_desc d;
    memset(&d, 0, sizeof d);
    d.vertex_count = m->vertex_count;
    d.triangle_count = m->triangle_count;
    d.indices = m->indices;
    d.positions = m->positions;
    d.normals = m->normals;
    d.uvs = m->uvs;
    d.uv_convention = m->uv_convention;
    d.mode = SF_TANGENTS_MIKKTSPACE;
    size_t corners = 3 * m->triangle_count;
    float* ct = sf_env_calloc(&L->env, 4 * corners + 4, sizeof(float));
    sf_error e;
    sf_tangent_split split;
    memset(&split, 0, sizeof split);
    sf_result r = ct ? sf_tangents_generate(&d, &L->env, ct, &e) : SF_ERROR_OUT_OF_MEMORY;
    /* once to count, then into arrays of the exact size */
    if (r == SF_OK) r = sf_tangents_split(m->vertex_count, m->triangle_count, m->indices, ct, &L->env, &split, &e);
    if (r == SF_OK) {
        size_t N = split.vertex_count;
        split.indices = own_alloc(L, corners ? corners : 1, sizeof(uint32_t));
        split.source = own_alloc(L, N ? N : 1, sizeof(uint32_t));
        split.tangents = own_alloc(L, N ? N : 1, 4 * sizeof(float));
        r = split.indices && split.source && split.tangents
                ? sf_tangents_split(m->vertex_count, m->triangle_count, m->indices, ct, &L->env, &split, &e)
                : SF_ERROR_OUT_OF_MEMORY;
    }
    sf_env_free(&L->env, ct, 0);
    if (r == SF_ERROR_OUT_OF_MEMORY) return oom(L, base);
    if (r != SF_OK) return jfail(L, base, "attributes", "MikkTSpace tangents: %s", e.message);
    if (split.vertex_count > m->vertex_count) TRY(split_streams(L, out, split.source, split.vertex_count, base));
    m->indices = split.indices;
    m->tangents.data = split.tangents;
    out->tangents = SF_GLTF_TANGENTS_GENERATED_MIKKTSPACE;
    out->mikktspace_split_vertices = split.split_vertices;
    return SF_OK;
}

static sf_result load_primitive(loader* L, const cJSON* p, size_t mi, size_t pi, sf_gltf_primitive* out,
                                size_t* target_count, int* skipped)
{
    char base[64], abase[80];
    snprintf(base, sizeof base, "meshes[%zu].primitives[%zu]", mi, pi);
    snprintf(abase, sizeof abase, "%s.attributes", base);
    *skipped = 0;
    if (!cJSON_IsObject(p)) return jfail(L, base, NULL, "is not an object");
    size_t mode;
    TRY(get_uint(L, p, "mode", base, 0, 6, 4, &mode));
    if (mode < 4) {
        *skipped = 1;
        return SF_OK;
    }
    const cJSON* attrs = jget(p, "attributes");
    if (!cJSON_IsObject(attrs)) return jfail(L, base, "attributes", "missing");
    memset(out, 0, sizeof *out);
    out->mesh_index = mi;
    out->primitive_index = pi;
    out->mode = (uint32_t)mode;
    char desc[512] = "";
    size_t pos_ai;
    TRY(get_index(L, attrs, "POSITION", abase, 1, L->accessor_count, "accessors", &pos_ai));
    size_t n = L->accessors[pos_ai].count;
    if (n >= UINT32_MAX) return jfail(L, abase, "POSITION", "too many vertices");
    float *pos, *nrm, *tan, *uv = NULL;
    TRY(read_attribute(L, attrs, "POSITION", abase, n, 3, desc, sizeof desc, &pos));
    TRY(read_attribute(L, attrs, "NORMAL", abase, n, 3, desc, sizeof desc, &nrm));
    TRY(read_attribute(L, attrs, "TANGENT", abase, n, 4, desc, sizeof desc, &tan));
    char key[32];
    /* TEXCOORD_n and COLOR_n sets: counted while contiguous from 0. */
    for (uint32_t s = 0; s < 64; ++s) {
        snprintf(key, sizeof key, "TEXCOORD_%u", s);
        if (!jget(attrs, key)) break;
        if (s == L->opts.texcoord) {
            TRY(read_attribute(L, attrs, key, abase, n, 2, desc, sizeof desc, &uv));
        } else { /* only the set in use is read; the others are checked */
            size_t tai;
            TRY(get_index(L, attrs, key, abase, 1, L->accessor_count, "accessors", &tai));
            if (L->accessors[tai].count != n)
                return jfail(L, abase, key, "accessors[%zu].count %zu differs from POSITION's %zu", tai,
                             L->accessors[tai].count, n);
            TRY(accessor_expect(L, tai, abase, key, 2, 0));
            describe(L, desc, sizeof desc, key, tai);
        }
        out->texcoord_sets = s + 1;
    }
    for (uint32_t s = 0; s < 64; ++s) {
        snprintf(key, sizeof key, "COLOR_%u", s);
        size_t cai;
        TRY(get_index(L, attrs, key, abase, 0, L->accessor_count, "accessors", &cai));
        if (cai == SF_GLTF_NONE) break;
        if (L->accessors[cai].count != n)
            return jfail(L, abase, key, "accessors[%zu].count %zu differs from POSITION's %zu", cai,
                         L->accessors[cai].count, n);
        describe(L, desc, sizeof desc, key, cai);
        out->color_sets = s + 1;
    }
    out->texcoord = L->opts.texcoord;
    /* JOINTS_n / WEIGHTS_n: every set, concatenated per vertex. */
    uint32_t sets = 0;
    while (sets < 64) {
        snprintf(key, sizeof key, "JOINTS_%u", sets);
        if (!jget(attrs, key)) break;
        sets++;
    }
    uint32_t* joints = NULL;
    float* weights = NULL;
    if (sets) {
        size_t K = 4 * (size_t)sets;
        joints = own_alloc(L, n, K * sizeof(uint32_t));
        weights = own_alloc(L, n, K * sizeof(float));
        if (!joints || !weights) return oom(L, abase);
        for (uint32_t s = 0; s < sets; ++s) {
            size_t jai;
            snprintf(key, sizeof key, "JOINTS_%u", s);
            TRY(get_index(L, attrs, key, abase, 1, L->accessor_count, "accessors", &jai));
            if (L->accessors[jai].count != n)
                return jfail(L, abase, key, "accessors[%zu].count %zu differs from POSITION's %zu", jai,
                             L->accessors[jai].count, n);
            describe(L, desc, sizeof desc, key, jai);
            uint32_t* j;
            TRY(read_uints(L, jai, abase, key, 4, &j));
            snprintf(key, sizeof key, "WEIGHTS_%u", s);
            if (!jget(attrs, key)) return jfail(L, abase, key, "missing (JOINTS_%u is present)", s);
            size_t wai;
            TRY(get_index(L, attrs, key, abase, 1, L->accessor_count, "accessors", &wai));
            if (L->accessors[wai].ctype != 5126 && !L->accessors[wai].normalized)
                return jfail(L, abase, key, "accessors[%zu] holds %s; weights are float or normalized u8/u16", wai,
                             component_name(L->accessors[wai].ctype, 0));
            float* w;
            TRY(read_attribute(L, attrs, key, abase, n, 4, desc, sizeof desc, &w));
            for (size_t v = 0; v < n; ++v)
                for (int c = 0; c < 4; ++c) {
                    float wv = w[4 * v + c];
                    if (wv < 0.0f) return jfail(L, abase, key, "vertex %zu has negative weight %g", v, (double)wv);
                    /* Slots without weight point at joint 0 so that no stale index is ever used. */
                    joints[K * v + 4 * s + c] = wv > 0.0f ? j[4 * v + c] : 0;
                    weights[K * v + 4 * s + c] = wv;
                    if (wv > 0.0f && j[4 * v + c] > out->max_joint) out->max_joint = j[4 * v + c];
                }
        }
    }
    out->joint_sets = sets;
    /* Indices. */
    size_t iai;
    TRY(get_index(L, p, "indices", base, 0, L->accessor_count, "accessors", &iai));
    uint32_t* idx = NULL;
    size_t icount = 0;
    if (iai != SF_GLTF_NONE) {
        TRY(read_uints(L, iai, base, "indices", 1, &idx));
        icount = L->accessors[iai].count;
    } else {
        idx = tmp_alloc(L, n, sizeof(uint32_t));
        if (!idx) return oom(L, base);
        for (size_t i = 0; i < n; ++i) idx[i] = (uint32_t)i;
        icount = n;
    }
    uint32_t* tri = NULL;
    size_t T = 0;
    TRY(build_triangles(L, base, out->mode, idx, icount, n, &tri, &T));
    /* Morph targets. */
    const cJSON* targets;
    size_t tc;
    TRY(get_array(L, p, "targets", base, 0, &targets, &tc));
    *target_count = tc;
    target_read* tr = tmp_alloc(L, tc + 1, sizeof(target_read));
    if (!tr) return oom(L, base);
    char tattrs[64] = "";
    size_t k = 0;
    for (const cJSON* t = targets ? targets->child : NULL; t; t = t->next, ++k) {
        char tbase[96];
        snprintf(tbase, sizeof tbase, "%s.targets[%zu]", base, k);
        if (!cJSON_IsObject(t)) return jfail(L, tbase, NULL, "is not an object");
        TRY(read_target(L, t, tbase, n, nrm == NULL, &tr[k]));
        if (jget(t, "POSITION") && !has_word(tattrs, "POSITION")) strcat(tattrs, tattrs[0] ? " POSITION" : "POSITION");
        if (jget(t, "NORMAL") && !has_word(tattrs, "NORMAL")) strcat(tattrs, tattrs[0] ? " NORMAL" : "NORMAL");
        if (jget(t, "TANGENT") && !has_word(tattrs, "TANGENT")) strcat(tattrs, tattrs[0] ? " TANGENT" : "TANGENT");
        if (tr[k].d[1]) out->target_normals = 1;
        if (tr[k].d[2]) out->target_tangents = 1;
    }
    out->source_vertex_count = n;
    uint32_t* source = NULL;
    if (!nrm) {
        /* Flat normals (glTF: "client implementations must calculate flat normals"): one vertex per corner. */
        size_t corners = 3 * T;
        size_t K = 4 * (size_t)sets;
        if (T >= UINT32_MAX / 3) return jfail(L, base, "indices", "%zu triangles are too many to split per corner", T);
        source = own_alloc(L, corners ? corners : 1, sizeof(uint32_t));
        if (!source) return oom(L, base);
        memcpy(source, tri, corners * sizeof(uint32_t));
        /* deindex returns NULL for a NULL source too, so out of memory is "had data, now NULL". */
        int lost = 0;
#define DEINDEX_(ptr, elem)                                  \
    do {                                                     \
        void* src_ = (ptr);                                  \
        (ptr) = deindex(L, src_, (elem), tri, corners);      \
        lost |= src_ != NULL && (ptr) == NULL;               \
    } while (0)
        DEINDEX_(pos, 3 * sizeof(float));
        DEINDEX_(tan, 4 * sizeof(float));
        DEINDEX_(uv, 2 * sizeof(float));
        DEINDEX_(joints, K * sizeof(uint32_t));
        DEINDEX_(weights, K * sizeof(float));
        for (size_t t = 0; t < tc; ++t)
            for (int s = 0; s < 3; ++s) DEINDEX_(tr[t].d[s], 3 * sizeof(float));
#undef DEINDEX_
        nrm = own_alloc(L, corners ? corners : 1, 3 * sizeof(float));
        if (lost || !nrm) return oom(L, base);
        sf_error fe;
        if (sf_normals_flat(T, pos, nrm, &fe) != SF_OK) /* POSITION is within SF_MAX_COORD: not in practice */
            return jfail_code(L, fe.result, base, NULL, "generated normals of %s: %s", base, fe.message);
        for (size_t c = 0; c < corners; ++c) tri[c] = (uint32_t)c;
        n = corners;
        out->flat_normals = 1;
    } else {
        source = own_alloc(L, n ? n : 1, sizeof(uint32_t));
        if (!source) return oom(L, base);
        for (size_t v = 0; v < n; ++v) source[v] = (uint32_t)v;
    }
    out->source_vertex = source;
    sf_morph_target_desc* td = own_alloc(L, tc + 1, sizeof(sf_morph_target_desc));
    if (!td) return oom(L, base);
    for (size_t t = 0; t < tc; ++t) {
        td[t].position_deltas = tr[t].d[0];
        td[t].normal_deltas = tr[t].d[1];
        td[t].tangent_deltas = tr[t].d[2];
        td[t].sparse_indices = tr[t].sparse;
        td[t].sparse_count = tr[t].sparse_count;
    }
    sf_mesh_desc* m = &out->mesh;
    m->vertex_count = n;
    m->triangle_count = T;
    m->indices = tri;
    m->positions.data = pos;
    m->normals.data = nrm;
    m->tangents.data = tan;
    m->uvs.data = uv;
    m->influence_count = 4 * sets;
    m->joints = joints;
    m->weights = weights;
    m->targets = td;
    m->target_count = tc;
    out->tangents = tan ? SF_GLTF_TANGENTS_SUPPLIED : uv ? SF_GLTF_TANGENTS_GENERATED_UV : SF_GLTF_TANGENTS_NONE;
    if (!tan && uv && L->opts.generated_tangents == SF_TANGENTS_MIKKTSPACE) TRY(generate_mikktspace(L, out, base));
    out->attributes = own_string(L, desc);
    out->target_attributes = own_string(L, tattrs);
    if (!out->attributes || !out->target_attributes) return oom(L, base);
    return SF_OK;
}

/* ---------------------------------------------------------------- costs, before decoding */

static size_t sat_add(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }
static size_t sat_mul(size_t a, size_t b) { return b && a > SIZE_MAX / b ? SIZE_MAX : a * b; }

/* The accessor that obj[key] names, or NULL when absent or invalid (the loader reports those later). */
static const accessor* json_accessor(const loader* L, const cJSON* obj, const char* key)
{
    const cJSON* v = jget(obj, key);
    size_t k;
    return v && array_index(v, L->accessor_count, &k) ? &L->accessors[k] : NULL;
}

typedef struct costs {
    size_t decoded, limit; /* bytes estimated so far; max_decoded_bytes */
    size_t max_vertices;   /* largest vertex count of a primitive (the rigid instances' joints and weights) */
    size_t* mesh_vertices; /* per mesh: its primitives' vertices (what each node drawing it costs) */
    int default_limit;     /* the limit is the default (64 MiB + 64 x input) */
} costs;

/* Adds bytes to the estimate; fails naming `base` when the total passes max_decoded_bytes. */
static sf_result charge(loader* L, costs* c, const char* base, size_t bytes)
{
    c->decoded = sat_add(c->decoded, bytes);
    if (c->decoded <= c->limit) return SF_OK;
    if (c->default_limit)
        return jfail(L, base, NULL, "needs ~%zu decoded bytes > max_decoded_bytes %zu (64 MiB + 64 x %zu input "
                     "bytes); raise sf_gltf_opts.max_decoded_bytes / --max-decoded-bytes", c->decoded, c->limit,
                     L->input_bytes);
    return jfail(L, base, NULL, "needs ~%zu decoded bytes > max_decoded_bytes %zu; raise "
                 "sf_gltf_opts.max_decoded_bytes / --max-decoded-bytes", c->decoded, c->limit);
}

/* What load_primitive will decode for one primitive, from the accessor counts alone: the vertex streams read
 * as 32-bit values, indices and triangles, morph deltas (dense, or the entries of a target kept sparse), the
 * copies made by the flat-normal split (3 vertices per triangle when there is no NORMAL) and generated
 * MikkTSpace tangents. Checks max_vertices and max_morph_elements on the way. */
static sf_result primitive_costs(loader* L, costs* c, const cJSON* p, size_t mi, size_t pi)
{
    char base[64];
    snprintf(base, sizeof base, "meshes[%zu].primitives[%zu]", mi, pi);
    const cJSON* mode = jget(p, "mode");
    if (cJSON_IsNumber(mode) && mode->valuedouble < 4.0) return SF_OK; /* points and lines are skipped */
    int strip_or_fan = cJSON_IsNumber(mode) && mode->valuedouble >= 5.0;
    const cJSON* attrs = jget(p, "attributes");
    const accessor* pos = json_accessor(L, attrs, "POSITION");
    if (!pos) return SF_OK;
    size_t n = pos->count;
    int normals = json_accessor(L, attrs, "NORMAL") != NULL;
    int tangents = json_accessor(L, attrs, "TANGENT") != NULL;
    char key[32];
    snprintf(key, sizeof key, "TEXCOORD_%u", L->opts.texcoord);
    int uvs = json_accessor(L, attrs, key) != NULL;
    size_t sets = 0;
    for (; sets < 64; ++sets) {
        snprintf(key, sizeof key, "JOINTS_%zu", sets);
        if (!jget(attrs, key)) break;
    }
    const accessor* idx = json_accessor(L, p, "indices");
    size_t icount = idx ? idx->count : n;
    size_t T = strip_or_fan ? (icount >= 3 ? icount - 2 : 0) : icount / 3;
    size_t V = normals ? n : sat_mul(3, T);
    if (n > L->opts.max_vertices)
        return jfail(L, base, NULL, "POSITION has %zu vertices > max_vertices %zu; raise sf_gltf_opts.max_vertices / "
                     "--max-vertices", n, L->opts.max_vertices);
    if (V > L->opts.max_vertices)
        return jfail(L, base, NULL, "%zu vertices once split for flat normals (no NORMAL) > max_vertices %zu; raise "
                     "sf_gltf_opts.max_vertices / --max-vertices", V, L->opts.max_vertices);
    if (V > c->max_vertices) c->max_vertices = V;
    if (c->mesh_vertices) c->mesh_vertices[mi] = sat_add(c->mesh_vertices[mi], V);
    /* Per source vertex: POSITION, NORMAL, TANGENT, the TEXCOORD set in use, the source index, and per
     * JOINTS/WEIGHTS set the joints and weights read (16 + 16 bytes) and kept (16 + 16 bytes). */
    size_t per_vertex = 12 + 12 * (size_t)normals + 16 * (size_t)tangents + 8 * (size_t)uvs + 4 + 64 * sets;
    size_t bytes = sat_add(sat_mul(n, per_vertex), sat_add(sat_mul(icount, 4), sat_mul(T, 12)));
    /* Morph targets. */
    const cJSON* targets = jget(p, "targets");
    size_t tc = 0, elements = 0, k = 0;
    static const char* const names[3] = {"POSITION", "NORMAL", "TANGENT"};
    for (const cJSON* t = cJSON_IsArray(targets) ? targets->child : NULL; t; t = t->next, ++k) {
        size_t ai[3], streams = 0;
        int sparse = normals; /* splitting reads every target dense */
        for (int s = 0; s < 3; ++s) {
            const accessor* ac = json_accessor(L, t, names[s]);
            ai[s] = ac ? (size_t)(ac - L->accessors) : SF_GLTF_NONE;
            if (!ac) continue;
            streams++;
            if (ac->view != SF_GLTF_NONE || !ac->sparse_count) sparse = 0;
        }
        if (ai[0] == SF_GLTF_NONE) streams++; /* zero POSITION deltas are allocated */
        tc++;
        const accessor* first = sparse && streams ? same_sparse_indices(L, ai) : NULL;
        if (first) {
            elements = sat_add(elements, first->sparse_count);
            bytes = sat_add(bytes, sat_mul(first->sparse_count, 4 + 12 * streams));
        } else {
            elements = sat_add(elements, V);
            bytes = sat_add(bytes, sat_mul(sat_mul(n, 12), streams));
            if (!normals) bytes = sat_add(bytes, sat_mul(sat_mul(V, 12), streams));
        }
    }
    if (elements > L->opts.max_morph_elements)
        return jfail(L, base, NULL, "%zu morph targets hold %zu (target, vertex) elements > max_morph_elements %zu; "
                     "raise sf_gltf_opts.max_morph_elements / --max-morph-elements", tc, elements,
                     L->opts.max_morph_elements);
    /* The flat-normal split copies every stream per corner and adds the normals and the source indices. */
    if (!normals)
        bytes = sat_add(bytes, sat_mul(V, 12 + 12 + 4 + 16 * (size_t)tangents + 8 * (size_t)uvs + 32 * sets));
    /* MikkTSpace at load: the tangents, the corner tangents and a flag per vertex (the generator's own
     * topology is bounded by max_vertices, not counted here). */
    if (!tangents && uvs && L->opts.generated_tangents == SF_TANGENTS_MIKKTSPACE)
        bytes = sat_add(bytes, sat_add(sat_mul(V, 17), sat_mul(T, 48)));
    return charge(L, c, base, bytes);
}

/* Every node drawing a mesh is evaluated on its own (a topology, frames and results per instance), so a mesh
 * drawn by a thousand nodes costs a thousand times its vertices: SF_GLTF_INSTANCE_VERTEX_BYTES each. */
static sf_result instance_costs(loader* L, costs* c, size_t mesh_count)
{
    const cJSON* nodes = jget(L->root, "nodes");
    size_t instances = 0, vertices = 0, m;
    for (const cJSON* nd = cJSON_IsArray(nodes) ? nodes->child : NULL; nd; nd = nd->next)
        if (array_index(jget(nd, "mesh"), mesh_count, &m)) {
            instances++;
            vertices = sat_add(vertices, c->mesh_vertices[m]);
        }
    char base[96];
    snprintf(base, sizeof base, "nodes (%zu mesh instances, %zu vertices in all)", instances, vertices);
    return charge(L, c, base, sat_mul(vertices, SF_GLTF_INSTANCE_VERTEX_BYTES));
}

/* ---------------------------------------------------------------- compressed geometry */

/* The accessor that primitive p's attributes[name] (or p.indices for name NULL) names, SF_GLTF_NONE if none. */
static size_t primitive_accessor(const loader* L, const cJSON* p, const char* name)
{
    const cJSON* v = name ? jget(jget(p, "attributes"), name) : jget(p, "indices");
    size_t k;
    return v && array_index(v, L->accessor_count, &k) ? k : SF_GLTF_NONE;
}

/* Every Draco target of primitive p, from its accessors' declared layout (count, type, componentType). */
static sf_result draco_targets(loader* L, const cJSON* p, const char* base, const sfi_draco_primitive* dp,
                               sfi_draco_target* t, size_t* n)
{
    *n = 0;
    for (size_t k = 0; k <= dp->attribute_count; ++k) {
        const char* name = k < dp->attribute_count ? dp->names[k] : NULL;
        size_t ai = primitive_accessor(L, p, name);
        if (ai == SF_GLTF_NONE) {
            if (!name) continue; /* no indices: the loader draws the points in order */
            return jfail(L, base, "attributes", "%s is compressed by %s but names no accessor", name, SFI_DRACO_EXT);
        }
        const accessor* ac = &L->accessors[ai];
        sfi_draco_target* x = &t[(*n)++];
        x->attribute = name ? dp->ids[k] : SFI_DRACO_INDICES;
        x->accessor = ai;
        x->name = name ? name : "indices";
        x->count = ac->count;
        x->ncomp = ac->ncomp;
        x->ctype = ac->ctype;
        if (ac->rows != ac->ncomp)
            return jfail(L, base, NULL, "%s: %s decodes no matrices (accessors[%zu])", x->name, SFI_DRACO_EXT, ai);
    }
    return SF_OK;
}

/* The decoded bytes of the compressed views and Draco primitives, from the declared counts: each output
 * (at least 4 bytes a value, indices decode as 32-bit first) and, for Draco, as much again for the
 * decoder's own copy of the attributes. */
static sf_result compressed_costs(loader* L, costs* c)
{
    for (size_t v = 0; v < L->view_count; ++v) {
        const sfi_meshopt_view* m = &L->views[v].meshopt;
        if (!m->present) continue;
        char base[48];
        snprintf(base, sizeof base, "bufferViews[%zu]", v);
        TRY(charge(L, c, base, L->views[v].length));
    }
    const cJSON* meshes = jget(L->root, "meshes");
    size_t mi = 0;
    for (const cJSON* m = cJSON_IsArray(meshes) ? meshes->child : NULL; m; m = m->next, ++mi) {
        const cJSON* prims = jget(m, "primitives");
        size_t pi = 0;
        for (const cJSON* p = cJSON_IsArray(prims) ? prims->child : NULL; p; p = p->next, ++pi) {
            char base[64];
            snprintf(base, sizeof base, "meshes[%zu].primitives[%zu]", mi, pi);
            sfi_draco_primitive dp;
            sfi_draco_target t[SFI_DRACO_MAX_ATTRIBUTES + 1];
            size_t n = 0, bytes = 0;
            if (!sfi_draco_built_in() || !cJSON_IsObject(p)) continue;
            TRY(sfi_draco_parse(p, base, L->view_count, &dp, L->err));
            if (!dp.present) continue;
            TRY(draco_targets(L, p, base, &dp, t, &n));
            for (size_t k = 0; k < n; ++k) bytes = sat_add(bytes, sat_mul(sat_mul(t[k].count, t[k].ncomp), 8));
            TRY(charge(L, c, base, bytes));
        }
    }
    return SF_OK;
}

/* The whole file's decoded bytes, estimated before anything is decoded: every primitive, then the skins
 * (inverse bind matrices read whole, then kept per joint) and the animation channels (each channel reads its
 * sampler's keys and values, so channels sharing a sampler each count). Malformed entries are skipped here;
 * the loader reports them with their own message. */
static sf_result check_costs(loader* L)
{
    costs c;
    memset(&c, 0, sizeof c);
    c.limit = L->opts.max_decoded_bytes;
    if (!c.limit) {
        c.default_limit = 1;
        c.limit = sat_add(SF_GLTF_DEFAULT_DECODED_BASE, sat_mul(SF_GLTF_DEFAULT_DECODED_FACTOR, L->input_bytes));
    }
    const cJSON* meshes = jget(L->root, "meshes");
    size_t mesh_count = cJSON_IsArray(meshes) ? (size_t)cJSON_GetArraySize(meshes) : 0;
    c.mesh_vertices = tmp_alloc(L, mesh_count + 1, sizeof(size_t));
    if (!c.mesh_vertices) return oom(L, "meshes");
    size_t mi = 0;
    for (const cJSON* m = cJSON_IsArray(meshes) ? meshes->child : NULL; m; m = m->next, ++mi) {
        const cJSON* prims = jget(m, "primitives");
        size_t pi = 0;
        for (const cJSON* p = cJSON_IsArray(prims) ? prims->child : NULL; p; p = p->next, ++pi)
            if (cJSON_IsObject(p)) TRY(primitive_costs(L, &c, p, mi, pi));
    }
    TRY(charge(L, &c, "meshes", sat_mul(c.max_vertices, 8))); /* rigid instances: joint 0, weight 1 */
    TRY(instance_costs(L, &c, mesh_count));
    const cJSON* skins = jget(L->root, "skins");
    size_t si = 0;
    for (const cJSON* s = cJSON_IsArray(skins) ? skins->child : NULL; s; s = s->next, ++si) {
        char base[48];
        snprintf(base, sizeof base, "skins[%zu]", si);
        const cJSON* joints = jget(s, "joints");
        size_t bytes = cJSON_IsArray(joints) ? sat_mul((size_t)cJSON_GetArraySize(joints), 72) : 0;
        const accessor* ibm = json_accessor(L, s, "inverseBindMatrices");
        if (ibm) bytes = sat_add(bytes, sat_mul(ibm->count, 64));
        TRY(charge(L, &c, base, bytes));
    }
    const cJSON* anims = jget(L->root, "animations");
    size_t ai = 0;
    for (const cJSON* a = cJSON_IsArray(anims) ? anims->child : NULL; a; a = a->next, ++ai) {
        const cJSON* channels = jget(a, "channels");
        const cJSON* samplers = jget(a, "samplers");
        size_t sampler_count = cJSON_IsArray(samplers) ? (size_t)cJSON_GetArraySize(samplers) : 0;
        size_t ci = 0;
        for (const cJSON* ch = cJSON_IsArray(channels) ? channels->child : NULL; ch; ch = ch->next, ++ci) {
            size_t k;
            const cJSON* sv = jget(ch, "sampler");
            if (!sv || !array_index(sv, sampler_count, &k)) continue;
            const cJSON* smp = cJSON_GetArrayItem(samplers, (int)k);
            const accessor* in = json_accessor(L, smp, "input");
            const accessor* out = json_accessor(L, smp, "output");
            size_t bytes = sat_add(in ? sat_mul(in->count, 4) : 0,
                                   out ? sat_mul(sat_mul(out->count, out->ncomp), 4) : 0);
            char base[80];
            snprintf(base, sizeof base, "animations[%zu].channels[%zu]", ai, ci);
            TRY(charge(L, &c, base, bytes));
        }
    }
    return compressed_costs(L, &c);
}

/* Every EXT_meshopt_compression bufferView decoded into memory of the load (the accessors then read it as
 * plain bytes), after each accessor on one is checked to lie within what the stream decodes. */
static sf_result decode_meshopt_views(loader* L)
{
    for (size_t a = 0; a < L->accessor_count; ++a) {
        const accessor* ac = &L->accessors[a];
        if (ac->view == SF_GLTF_NONE || !L->views[ac->view].meshopt.present) continue;
        const sfi_meshopt_view* m = &L->views[ac->view].meshopt;
        size_t decoded = m->count * m->stride;
        if (ac->offset > decoded || ac->elem_size > decoded - ac->offset ||
            (ac->count - 1) > (decoded - ac->offset - ac->elem_size) / ac->stride) {
            char base[48];
            snprintf(base, sizeof base, "accessors[%zu]", a);
            return jfail(L, base, "count", "%zu elements of %zu bytes (stride %zu) at offset %zu exceed the %zu "
                         "bytes bufferViews[%zu].extensions.%s decodes to", ac->count, ac->elem_size, ac->stride,
                         ac->offset, decoded, ac->view, SFI_MESHOPT_EXT);
        }
    }
    for (size_t v = 0; v < L->view_count; ++v) {
        view* bv = &L->views[v];
        if (!bv->meshopt.present) continue;
        char base[48];
        snprintf(base, sizeof base, "bufferViews[%zu]", v);
        uint8_t* out = tmp_alloc(L, bv->length, 1);
        if (!out) return oom(L, base);
        const uint8_t* src = L->buffer_data[bv->meshopt.buffer] + bv->meshopt.offset;
        TRY(sfi_meshopt_decode(&bv->meshopt, src, out, base, L->err));
        bv->decoded = out;
    }
    return SF_OK;
}

/* Decodes primitive p's Draco stream into its accessors. An accessor two primitives share must come from
 * the same stream (then it is decoded once). */
static sf_result decode_draco_primitive(loader* L, const cJSON* p, const char* base)
{
    sfi_draco_primitive dp;
    sfi_draco_target t[SFI_DRACO_MAX_ATTRIBUTES + 1];
    size_t n = 0, kept = 0;
    TRY(sfi_draco_parse(p, base, L->view_count, &dp, L->err));
    if (!dp.present) return SF_OK;
    TRY(draco_targets(L, p, base, &dp, t, &n));
    for (size_t k = 0; k < n; ++k) {
        accessor* ac = &L->accessors[t[k].accessor];
        if (ac->decoded_by == dp.view + 1) continue;
        if (ac->decoded_by)
            return jfail(L, base, NULL, "%s: accessors[%zu] is also decoded from another %s stream", t[k].name,
                         t[k].accessor, SFI_DRACO_EXT);
        size_t elem = ac->elem_size < 4 * ac->ncomp ? 4 * ac->ncomp : ac->elem_size; /* indices widen first */
        t[k].out = tmp_alloc(L, ac->count, elem);
        if (!t[k].out) return oom(L, base);
        t[kept++] = t[k];
    }
    if (!kept) return SF_OK;
    const view* bv = &L->views[dp.view];
    TRY(sfi_draco_decode(view_bytes(L, dp.view, 0), bv->length, t, kept, base, L->err));
    for (size_t k = 0; k < kept; ++k) {
        accessor* ac = &L->accessors[t[k].accessor];
        ac->decoded = t[k].out;
        ac->decoded_by = dp.view + 1;
        ac->sparse_count = 0; /* the stream holds the final values */
    }
    return SF_OK;
}

/* Decodes the compressed geometry once the costs have been checked from the declared counts. */
static sf_result decode_compressed(loader* L)
{
    TRY(decode_meshopt_views(L));
    const cJSON* meshes = jget(L->root, "meshes");
    size_t mi = 0;
    for (const cJSON* m = cJSON_IsArray(meshes) ? meshes->child : NULL; m; m = m->next, ++mi) {
        const cJSON* prims = jget(m, "primitives");
        size_t pi = 0;
        for (const cJSON* p = cJSON_IsArray(prims) ? prims->child : NULL; p; p = p->next, ++pi) {
            char base[64];
            snprintf(base, sizeof base, "meshes[%zu].primitives[%zu]", mi, pi);
            if (cJSON_IsObject(p) && sfi_draco_built_in()) TRY(decode_draco_primitive(L, p, base));
        }
    }
    return SF_OK;
}

static int meshopt_accessor(const loader* L, const cJSON* v)
{
    size_t k;
    return v && array_index(v, L->accessor_count, &k) && L->accessors[k].view != SF_GLTF_NONE &&
           L->views[L->accessors[k].view].meshopt.present;
}

/* sf_gltf_primitive.compression: Draco for the primitive, meshopt for any of its accessors' views. */
static sf_result name_compression(loader* L)
{
    const cJSON* meshes = jget(L->root, "meshes");
    for (size_t p = 0; p < L->g->primitive_count; ++p) {
        sf_gltf_primitive* pr = (sf_gltf_primitive*)&L->g->primitives[p];
        const cJSON* prim = cJSON_GetArrayItem(jget(cJSON_GetArrayItem(meshes, (int)pr->mesh_index), "primitives"),
                                               (int)pr->primitive_index);
        const cJSON* exts = jget(prim, "extensions");
        int meshopt = meshopt_accessor(L, jget(prim, "indices"));
        const cJSON* attrs = jget(prim, "attributes");
        for (const cJSON* a = cJSON_IsObject(attrs) ? attrs->child : NULL; a; a = a->next)
            meshopt |= meshopt_accessor(L, a);
        const cJSON* targets = jget(prim, "targets");
        for (const cJSON* t = cJSON_IsArray(targets) ? targets->child : NULL; t; t = t->next)
            for (const cJSON* a = cJSON_IsObject(t) ? t->child : NULL; a; a = a->next) meshopt |= meshopt_accessor(L, a);
        pr->compression = jget(exts, SFI_DRACO_EXT) ? SFI_DRACO_EXT : meshopt ? SFI_MESHOPT_EXT : "";
    }
    return SF_OK;
}

static sf_result load_meshes(loader* L)
{
    sf_gltf* g = L->g;
    const cJSON* arr;
    TRY(get_array(L, L->root, "meshes", "", 0, &arr, &g->mesh_count));
    size_t total = 0;
    for (const cJSON* m = arr ? arr->child : NULL; m; m = m->next) {
        const cJSON* prims = jget(m, "primitives");
        if (cJSON_IsArray(prims)) total += (size_t)cJSON_GetArraySize(prims);
    }
    sf_gltf_mesh* meshes = own_alloc(L, g->mesh_count + 1, sizeof(sf_gltf_mesh));
    sf_gltf_primitive* prims_out = own_alloc(L, total + 1, sizeof(sf_gltf_primitive));
    if (!meshes || !prims_out) return oom(L, "meshes");
    g->meshes = meshes;
    g->primitives = prims_out;
    size_t mi = 0, np = 0;
    for (const cJSON* m = arr ? arr->child : NULL; m; m = m->next, ++mi) {
        char base[48];
        snprintf(base, sizeof base, "meshes[%zu]", mi);
        if (!cJSON_IsObject(m)) return jfail(L, base, NULL, "is not an object");
        const cJSON* prims;
        size_t pc;
        TRY(get_array(L, m, "primitives", base, 1, &prims, &pc));
        if (pc == 0) return jfail(L, base, "primitives", "is empty");
        sf_gltf_mesh* mesh = &meshes[mi];
        mesh->name = get_name(L, m);
        mesh->first_primitive = np;
        size_t targets = SF_GLTF_NONE, pi = 0;
        for (const cJSON* p = prims->child; p; p = p->next, ++pi) {
            int skipped;
            size_t tc = 0;
            TRY(load_primitive(L, p, mi, pi, &prims_out[np], &tc, &skipped));
            if (skipped) {
                g->skipped_primitives++;
                continue;
            }
            if (targets != SF_GLTF_NONE && tc != targets)
                return jfail(L, base, "primitives", "primitive %zu has %zu morph targets, the ones before it %zu", pi, tc,
                             targets);
            targets = tc;
            np++;
        }
        mesh->primitive_count = np - mesh->first_primitive;
        mesh->target_count = targets == SF_GLTF_NONE ? 0 : targets;
        float* w = own_alloc(L, mesh->target_count + 1, sizeof(float));
        const char** names = own_alloc(L, mesh->target_count + 1, sizeof(char*));
        if (!w || !names) return oom(L, base);
        const cJSON* jw = jget(m, "weights");
        if (jw) {
            if (!cJSON_IsArray(jw) || (size_t)cJSON_GetArraySize(jw) != mesh->target_count)
                return jfail(L, base, "weights", "must hold %zu numbers (one per morph target)", mesh->target_count);
            TRY(get_floats(L, m, "weights", base, mesh->target_count, w));
        }
        const cJSON* tn = jget(jget(m, "extras"), "targetNames");
        size_t t = 0;
        for (const cJSON* e = cJSON_IsArray(tn) ? tn->child : NULL; e && t < mesh->target_count; e = e->next, ++t)
            names[t] = own_string(L, cJSON_IsString(e) ? e->valuestring : "");
        for (; t < mesh->target_count; ++t) names[t] = "";
        mesh->weights = w;
        mesh->target_names = names;
    }
    g->primitive_count = np;
    return SF_OK;
}

/* ---------------------------------------------------------------- nodes, skins, scenes */

static sf_result load_nodes(loader* L)
{
    sf_gltf* g = L->g;
    const cJSON* arr;
    TRY(get_array(L, L->root, "nodes", "", 0, &arr, &g->node_count));
    sf_gltf_node* nodes = own_alloc(L, g->node_count + 1, sizeof(sf_gltf_node));
    size_t* order = own_alloc(L, g->node_count + 1, sizeof(size_t));
    size_t* stack = tmp_alloc(L, g->node_count + 1, sizeof(size_t));
    if (!nodes || !order || !stack) return oom(L, "nodes");
    g->nodes = nodes;
    L->g->internal->node_order = order;
    size_t skin_count = 0;
    const cJSON* skins = jget(L->root, "skins");
    if (cJSON_IsArray(skins)) skin_count = (size_t)cJSON_GetArraySize(skins);
    for (size_t i = 0; i < g->node_count; ++i) nodes[i].parent = SF_GLTF_NONE;
    size_t i = 0;
    for (const cJSON* nj = arr ? arr->child : NULL; nj; nj = nj->next, ++i) {
        char base[48];
        snprintf(base, sizeof base, "nodes[%zu]", i);
        if (!cJSON_IsObject(nj)) return jfail(L, base, NULL, "is not an object");
        sf_gltf_node* nd = &nodes[i];
        nd->name = get_name(L, nj);
        TRY(get_index(L, nj, "mesh", base, 0, g->mesh_count, "meshes", &nd->mesh));
        TRY(get_index(L, nj, "skin", base, 0, skin_count, "skins", &nd->skin));
        nd->rotation[3] = 1.0f;
        nd->scale[0] = nd->scale[1] = nd->scale[2] = 1.0f;
        TRY(get_floats(L, nj, "translation", base, 3, nd->translation));
        TRY(get_floats(L, nj, "rotation", base, 4, nd->rotation));
        TRY(get_floats(L, nj, "scale", base, 3, nd->scale));
        if (jget(nj, "matrix")) {
            if (jget(nj, "translation") || jget(nj, "rotation") || jget(nj, "scale"))
                return jfail(L, base, "matrix", "given together with translation/rotation/scale");
            TRY(get_floats(L, nj, "matrix", base, 16, nd->matrix));
            nd->has_matrix = 1;
        } else {
            double q = 0.0;
            for (int k = 0; k < 4; ++k) q += (double)nd->rotation[k] * nd->rotation[k];
            if (!(q > 1e-12)) return jfail(L, base, "rotation", "is a zero quaternion");
            for (int k = 0; k < 4; ++k) nd->rotation[k] = (float)(nd->rotation[k] / sqrt(q));
            sfi_mat4_from_trs(nd->translation, nd->rotation, nd->scale, nd->matrix);
        }
        const cJSON* w = jget(nj, "weights");
        if (w) {
            size_t wc = cJSON_IsArray(w) ? (size_t)cJSON_GetArraySize(w) : 0;
            if (nd->mesh == SF_GLTF_NONE) return jfail(L, base, "weights", "given on a node without a mesh");
            if (!cJSON_IsArray(w) || wc != g->meshes[nd->mesh].target_count)
                return jfail(L, base, "weights", "must hold %zu numbers (meshes[%zu] morph targets)",
                             g->meshes[nd->mesh].target_count, nd->mesh);
            float* wf = own_alloc(L, wc + 1, sizeof(float));
            if (!wf) return oom(L, base);
            TRY(get_floats(L, nj, "weights", base, wc, wf));
            nd->weights = wf;
            nd->weight_count = wc;
        }
    }
    i = 0;
    for (const cJSON* nj = arr ? arr->child : NULL; nj; nj = nj->next, ++i) {
        char base[48];
        snprintf(base, sizeof base, "nodes[%zu]", i);
        const cJSON* ch;
        size_t cc;
        TRY(get_array(L, nj, "children", base, 0, &ch, &cc));
        for (const cJSON* c = ch ? ch->child : NULL; c; c = c->next) {
            size_t k;
            if (!array_index(c, g->node_count, &k)) return jfail(L, base, "children", "holds an index that is not a node");
            if (k == i || nodes[k].parent != SF_GLTF_NONE)
                return jfail(L, base, "children", "node %zu already has a parent (or is the node itself)", k);
            nodes[k].parent = i;
        }
    }
    /* Parents before children (breadth-first from the roots); a node never reached sits on a cycle. */
    {
        size_t count = 0, head = 0;
        uint8_t* placed = tmp_alloc(L, g->node_count + 1, 1);
        size_t* first = tmp_alloc(L, g->node_count + 1, sizeof(size_t));
        size_t* kids = tmp_alloc(L, g->node_count + 1, sizeof(size_t));
        if (!placed || !first || !kids) return oom(L, "nodes");
        for (size_t v = 0; v < g->node_count; ++v)
            if (nodes[v].parent == SF_GLTF_NONE) order[count++] = v, placed[v] = 1;
        /* Children lists from the parent array (CSR). */
        for (size_t v = 0; v < g->node_count; ++v)
            if (nodes[v].parent != SF_GLTF_NONE) first[nodes[v].parent + 1]++;
        for (size_t v = 0; v < g->node_count; ++v) first[v + 1] += first[v];
        memcpy(stack, first, g->node_count * sizeof(size_t));
        for (size_t v = 0; v < g->node_count; ++v)
            if (nodes[v].parent != SF_GLTF_NONE) kids[stack[nodes[v].parent]++] = v;
        while (head < count) {
            size_t v = order[head++];
            for (size_t c = first[v]; c < first[v + 1]; ++c) {
                size_t k = kids[c];
                if (!placed[k]) {
                    placed[k] = 1;
                    order[count++] = k;
                }
            }
        }
        for (size_t v = 0; v < g->node_count; ++v)
            if (!placed[v]) {
                char base[48];
                snprintf(base, sizeof base, "nodes[%zu]", v);
                return jfail(L, base, "children", "the node hierarchy has a cycle through this node");
            }
    }
    return SF_OK;
}

static sf_result load_skins(loader* L)
{
    sf_gltf* g = L->g;
    const cJSON* arr;
    TRY(get_array(L, L->root, "skins", "", 0, &arr, &g->skin_count));
    sf_gltf_skin* skins = own_alloc(L, g->skin_count + 1, sizeof(sf_gltf_skin));
    if (!skins) return oom(L, "skins");
    g->skins = skins;
    size_t i = 0;
    for (const cJSON* s = arr ? arr->child : NULL; s; s = s->next, ++i) {
        char base[48];
        snprintf(base, sizeof base, "skins[%zu]", i);
        if (!cJSON_IsObject(s)) return jfail(L, base, NULL, "is not an object");
        sf_gltf_skin* sk = &skins[i];
        sk->name = get_name(L, s);
        const cJSON* joints;
        TRY(get_array(L, s, "joints", base, 1, &joints, &sk->joint_count));
        if (sk->joint_count == 0) return jfail(L, base, "joints", "is empty");
        size_t* j = own_alloc(L, sk->joint_count, sizeof(size_t));
        float* ibm = own_alloc(L, sk->joint_count, 16 * sizeof(float));
        if (!j || !ibm) return oom(L, base);
        size_t k = 0;
        for (const cJSON* e = joints->child; e; e = e->next, ++k) {
            if (!array_index(e, g->node_count, &j[k])) return jfail(L, base, "joints", "element %zu is not a node index", k);
        }
        TRY(get_index(L, s, "skeleton", base, 0, g->node_count, "nodes", &sk->skeleton));
        size_t ai;
        TRY(get_index(L, s, "inverseBindMatrices", base, 0, L->accessor_count, "accessors", &ai));
        if (ai != SF_GLTF_NONE) {
            if (L->accessors[ai].count < sk->joint_count)
                return jfail(L, base, "inverseBindMatrices", "accessors[%zu].count %zu < %zu joints", ai,
                             L->accessors[ai].count, sk->joint_count);
            if (strcmp(L->accessors[ai].type, "MAT4") != 0)
                return jfail(L, base, "inverseBindMatrices", "accessors[%zu] is %s, expected MAT4", ai,
                             L->accessors[ai].type);
            float* m;
            TRY(read_floats(L, ai, base, "inverseBindMatrices", 16, 0, &m));
            memcpy(ibm, m, sk->joint_count * 16 * sizeof(float));
        } else {
            for (size_t q = 0; q < sk->joint_count; ++q)
                ibm[16 * q] = ibm[16 * q + 5] = ibm[16 * q + 10] = ibm[16 * q + 15] = 1.0f;
        }
        sk->joints = j;
        sk->inverse_bind_matrices = ibm;
    }
    return SF_OK;
}

static sf_result load_scenes(loader* L)
{
    sf_gltf* g = L->g;
    const cJSON* arr;
    TRY(get_array(L, L->root, "scenes", "", 0, &arr, &g->scene_count));
    TRY(get_index(L, L->root, "scene", "", 0, g->scene_count, "scenes", &g->scene));
    if (g->scene == SF_GLTF_NONE && g->scene_count) g->scene = 0;
    uint8_t* in_scene = tmp_alloc(L, g->node_count + 1, 1);
    if (!in_scene) return oom(L, "scenes");
    size_t si = 0;
    for (const cJSON* s = arr ? arr->child : NULL; s; s = s->next, ++si) {
        char base[48];
        snprintf(base, sizeof base, "scenes[%zu]", si);
        if (!cJSON_IsObject(s)) return jfail(L, base, NULL, "is not an object");
        const cJSON* roots;
        size_t rc;
        TRY(get_array(L, s, "nodes", base, 0, &roots, &rc));
        for (const cJSON* r = roots ? roots->child : NULL; r; r = r->next) {
            size_t k;
            if (!array_index(r, g->node_count, &k)) return jfail(L, base, "nodes", "holds an index that is not a node");
            if (g->nodes[k].parent != SF_GLTF_NONE)
                return jfail(L, base, "nodes", "node %zu is not a root (it has a parent)", k);
            if (si == g->scene) in_scene[k] = 1;
        }
    }
    /* Mark descendants (order has parents first). */
    const size_t* order = g->internal->node_order;
    size_t count = 0;
    for (size_t q = 0; q < g->node_count; ++q) {
        size_t v = order[q];
        if (g->scene == SF_GLTF_NONE)
            in_scene[v] = 1;
        else if (g->nodes[v].parent != SF_GLTF_NONE && in_scene[g->nodes[v].parent])
            in_scene[v] = 1;
        if (in_scene[v] && g->nodes[v].mesh != SF_GLTF_NONE) count++;
    }
    sf_gltf_instance* inst = own_alloc(L, count + 1, sizeof(sf_gltf_instance));
    if (!inst) return oom(L, "instances");
    size_t k = 0, max_vertices = 1;
    for (size_t v = 0; v < g->node_count; ++v) {
        if (!in_scene[v] || g->nodes[v].mesh == SF_GLTF_NONE) continue;
        sf_gltf_instance* in = &inst[k++];
        in->node = v;
        in->mesh = g->nodes[v].mesh;
        in->skin = g->nodes[v].skin;
        in->bone_count = in->skin == SF_GLTF_NONE ? 1 : g->skins[in->skin].joint_count;
        const sf_gltf_mesh* m = &g->meshes[in->mesh];
        for (size_t p = m->first_primitive; p < m->first_primitive + m->primitive_count; ++p) {
            const sf_gltf_primitive* pr = &g->primitives[p];
            if (pr->mesh.vertex_count > max_vertices) max_vertices = pr->mesh.vertex_count;
            if (in->skin == SF_GLTF_NONE) continue;
            char base[96];
            snprintf(base, sizeof base, "meshes[%zu].primitives[%zu].attributes", pr->mesh_index, pr->primitive_index);
            if (!pr->joint_sets)
                return jfail(L, base, "JOINTS_0", "missing, but nodes[%zu] skins this mesh with skins[%zu]", v,
                             in->skin);
            if (pr->max_joint >= in->bone_count)
                return jfail(L, base, "JOINTS_0", "joint %u >= skins[%zu] joint count %zu (nodes[%zu])", pr->max_joint,
                             in->skin, in->bone_count, v);
        }
    }
    g->instances = inst;
    g->instance_count = count;
    g->internal->zero_joints = own_alloc(L, max_vertices, sizeof(uint32_t));
    g->internal->one_weights = own_alloc(L, max_vertices, sizeof(float));
    if (!g->internal->zero_joints || !g->internal->one_weights) return oom(L, "instances");
    for (size_t v = 0; v < max_vertices; ++v) g->internal->one_weights[v] = 1.0f;
    return SF_OK;
}

/* ---------------------------------------------------------------- animations */

static sf_result load_animations(loader* L)
{
    sf_gltf* g = L->g;
    const cJSON* arr;
    TRY(get_array(L, L->root, "animations", "", 0, &arr, &g->animation_count));
    sf_gltf_animation* anims = own_alloc(L, g->animation_count + 1, sizeof(sf_gltf_animation));
    if (!anims) return oom(L, "animations");
    g->animations = anims;
    size_t ai = 0;
    for (const cJSON* a = arr ? arr->child : NULL; a; a = a->next, ++ai) {
        char base[48];
        snprintf(base, sizeof base, "animations[%zu]", ai);
        if (!cJSON_IsObject(a)) return jfail(L, base, NULL, "is not an object");
        sf_gltf_animation* an = &anims[ai];
        an->name = get_name(L, a);
        const cJSON *channels, *samplers;
        size_t cc, sc;
        TRY(get_array(L, a, "channels", base, 1, &channels, &cc));
        TRY(get_array(L, a, "samplers", base, 1, &samplers, &sc));
        sf_gltf_channel* ch = own_alloc(L, cc + 1, sizeof(sf_gltf_channel));
        if (!ch) return oom(L, base);
        an->channels = ch;
        an->start_s = HUGE_VAL;
        an->end_s = -HUGE_VAL;
        size_t ci = 0, used = 0;
        for (const cJSON* c = channels->child; c; c = c->next, ++ci) {
            char cbase[80], tbase[96];
            snprintf(cbase, sizeof cbase, "%s.channels[%zu]", base, ci);
            snprintf(tbase, sizeof tbase, "%s.target", cbase);
            if (!cJSON_IsObject(c)) return jfail(L, cbase, NULL, "is not an object");
            size_t si;
            TRY(get_index(L, c, "sampler", cbase, 1, sc, "samplers in this animation", &si));
            const cJSON* target = jget(c, "target");
            if (!cJSON_IsObject(target)) return jfail(L, cbase, "target", "missing");
            size_t node;
            TRY(get_index(L, target, "node", tbase, 0, g->node_count, "nodes", &node));
            const cJSON* path = jget(target, "path");
            if (!cJSON_IsString(path)) return jfail(L, tbase, "path", "missing");
            sf_gltf_path pth;
            size_t comps;
            if (strcmp(path->valuestring, "translation") == 0)
                pth = SF_GLTF_TRANSLATION, comps = 3;
            else if (strcmp(path->valuestring, "rotation") == 0)
                pth = SF_GLTF_ROTATION, comps = 4;
            else if (strcmp(path->valuestring, "scale") == 0)
                pth = SF_GLTF_SCALE, comps = 3;
            else if (strcmp(path->valuestring, "weights") == 0)
                pth = SF_GLTF_WEIGHTS, comps = 0;
            else
                continue; /* other paths (KHR_animation_pointer) do not move geometry */
            if (node == SF_GLTF_NONE) continue; /* the spec: channels without a node are ignored */
            if (pth == SF_GLTF_WEIGHTS) {
                if (g->nodes[node].mesh == SF_GLTF_NONE)
                    return jfail(L, tbase, "node", "animates weights of nodes[%zu], which has no mesh", node);
                comps = g->meshes[g->nodes[node].mesh].target_count;
                if (comps == 0)
                    return jfail(L, tbase, "node", "animates weights of nodes[%zu], whose mesh has no targets", node);
            }
            char sbase[80];
            snprintf(sbase, sizeof sbase, "%s.samplers[%zu]", base, si);
            const cJSON* s = cJSON_GetArrayItem(samplers, (int)si);
            if (!cJSON_IsObject(s)) return jfail(L, sbase, NULL, "is not an object");
            size_t in, outa;
            TRY(get_index(L, s, "input", sbase, 1, L->accessor_count, "accessors", &in));
            TRY(get_index(L, s, "output", sbase, 1, L->accessor_count, "accessors", &outa));
            const cJSON* interp = jget(s, "interpolation");
            sf_gltf_interpolation ip = SF_GLTF_LINEAR;
            if (interp) {
                if (!cJSON_IsString(interp)) return jfail(L, sbase, "interpolation", "is not a string");
                if (strcmp(interp->valuestring, "LINEAR") == 0)
                    ip = SF_GLTF_LINEAR;
                else if (strcmp(interp->valuestring, "STEP") == 0)
                    ip = SF_GLTF_STEP;
                else if (strcmp(interp->valuestring, "CUBICSPLINE") == 0)
                    ip = SF_GLTF_CUBICSPLINE;
                else
                    return jfail(L, sbase, "interpolation", "\"%.20s\" is not LINEAR, STEP or CUBICSPLINE",
                                 interp->valuestring);
            }
            size_t keys = L->accessors[in].count;
            float* times;
            TRY(read_floats(L, in, sbase, "input", 1, 1, &times));
            if (times[0] < 0.0f)
                return jfail(L, sbase, "input", "accessors[%zu] starts at %g s; glTF times are >= 0", in,
                             (double)times[0]);
            for (size_t k = 1; k < keys; ++k)
                if (times[k] < times[k - 1])
                    return jfail(L, sbase, "input", "accessors[%zu] times decrease at key %zu", in, k);
            size_t per_key = (ip == SF_GLTF_CUBICSPLINE ? 3 : 1) * comps;
            const accessor* oac = &L->accessors[outa];
            size_t ocomp = pth == SF_GLTF_WEIGHTS ? 1 : comps;
            if (oac->count / (per_key / ocomp) != keys || oac->count % (per_key / ocomp))
                return jfail(L, sbase, "output", "accessors[%zu].count %zu, expected %zu (%zu keys, %s%s)", outa,
                             oac->count, keys * (per_key / ocomp), keys,
                             ip == SF_GLTF_CUBICSPLINE ? "3 per key for CUBICSPLINE" : "1 per key",
                             pth == SF_GLTF_WEIGHTS ? ", times the morph target count" : "");
            float* values;
            TRY(read_floats(L, outa, sbase, "output", ocomp, 1, &values));
            sf_gltf_channel* o = &ch[used++];
            o->node = node;
            o->path = pth;
            o->interpolation = ip;
            o->key_count = keys;
            o->times = times;
            o->values = values;
            o->components = comps;
            if (times[0] < an->start_s) an->start_s = times[0];
            if (times[keys - 1] > an->end_s) an->end_s = times[keys - 1];
        }
        an->channel_count = used;
        if (!used) an->start_s = an->end_s = 0.0;
    }
    return SF_OK;
}

/* ---------------------------------------------------------------- top level */

static sf_result check_asset(loader* L)
{
    const cJSON* asset = jget(L->root, "asset");
    if (!cJSON_IsObject(asset)) return jfail(L, "asset", NULL, "missing");
    const cJSON* version = jget(asset, "version");
    if (!cJSON_IsString(version)) return jfail(L, "asset", "version", "missing");
    if (strncmp(version->valuestring, "2.", 2) != 0)
        return jfail(L, "asset", "version", "\"%.20s\" is not glTF 2.x", version->valuestring);
    const cJSON* minv = jget(asset, "minVersion");
    if (minv && (!cJSON_IsString(minv) || strcmp(minv->valuestring, "2.0") != 0))
        return jfail(L, "asset", "minVersion", "requires a glTF version newer than 2.0");
    const cJSON* gen = jget(asset, "generator");
    L->g->generator = own_string(L, cJSON_IsString(gen) ? gen->valuestring : "");
    /* Required extensions: those that change geometry must be understood. */
    static const char* const known[] = {"KHR_mesh_quantization", "KHR_texture_transform", "KHR_texture_basisu",
                                        "EXT_texture_webp",      "KHR_lights_punctual",   "KHR_materials_"};
    const cJSON* req;
    size_t rc;
    TRY(get_array(L, L->root, "extensionsRequired", "", 0, &req, &rc));
    char list[256] = "";
    size_t i = 0;
    for (const cJSON* e = req ? req->child : NULL; e; e = e->next, ++i) {
        char base[48];
        snprintf(base, sizeof base, "extensionsRequired[%zu]", i);
        if (!cJSON_IsString(e)) return jfail(L, base, NULL, "is not a string");
        int ok = 0;
        for (size_t k = 0; k < sizeof known / sizeof known[0]; ++k) {
            size_t n = strlen(known[k]);
            if (known[k][n - 1] == '_' ? strncmp(e->valuestring, known[k], n) == 0 : strcmp(e->valuestring, known[k]) == 0)
                ok = 1;
        }
        if (strcmp(e->valuestring, SFI_MESHOPT_EXT) == 0 || strcmp(e->valuestring, SFI_DRACO_EXT) == 0) {
            int meshopt = e->valuestring[0] == 'E';
            if (meshopt ? sfi_meshopt_built_in() : sfi_draco_built_in()) {
                ok = 1;
            } else {
                return jfail_code(L, SF_ERROR_UNSUPPORTED, base, NULL, "required extension \"%s\" needs a decoder "
                                  "this build leaves out (%s=OFF; Debian's %s)", e->valuestring,
                                  meshopt ? "SF_WITH_MESHOPT" : "SF_WITH_DRACO",
                                  meshopt ? "libmeshoptimizer-dev" : "libdraco-dev");
            }
        }
        if (!ok) return jfail(L, base, NULL, "required extension \"%.60s\" is not supported", e->valuestring);
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s%s", len ? " " : "", e->valuestring);
    }
    L->g->extensions_required = own_string(L, list);
    return SF_OK;
}

static uint32_t le32(const uint8_t* p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* Splits a .glb into its JSON and BIN chunks (bounds checked). */
static sf_result parse_glb(loader* L, const uint8_t* data, size_t size, const uint8_t** json, size_t* json_size)
{
    if (size < 12) return jfail(L, "glb", "header", "file of %zu bytes is shorter than the 12-byte header", size);
    uint32_t version = le32(data + 4), length = le32(data + 8);
    if (version != 2) return jfail(L, "glb", "version", "%u is not 2", version);
    if (length > size) return jfail(L, "glb", "length", "header says %u bytes, the file has %zu", length, size);
    if (length < 20) return jfail(L, "glb", "length", "%u bytes leave no room for the JSON chunk", length);
    size_t pos = 12, chunk = 0;
    *json = NULL;
    while (pos + 8 <= length) {
        uint32_t clen = le32(data + pos), ctype = le32(data + pos + 4);
        if (clen > length - pos - 8)
            return jfail(L, "glb", "chunks", "chunk %zu of %u bytes at offset %zu runs past the end (%u)", chunk, clen,
                         pos, length);
        const uint8_t* cdata = data + pos + 8;
        if (chunk == 0) {
            if (ctype != GLB_CHUNK_JSON) return jfail(L, "glb", "chunks", "the first chunk is not JSON");
            *json = cdata;
            *json_size = clen;
        } else if (chunk == 1 && ctype == GLB_CHUNK_BIN) {
            L->bin = cdata;
            L->bin_size = clen;
        }
        pos += 8 + (size_t)clen;
        chunk++;
    }
    if (!*json) return jfail(L, "glb", "chunks", "no JSON chunk");
    return SF_OK;
}

/* How many arrays and objects are open at byte off of text (strings skipped): cJSON stops at
 * CJSON_NESTING_LIMIT levels with a plain parse error, so the loader names that cause itself. */
static size_t nesting_at(const char* text, size_t off)
{
    size_t depth = 0;
    int in_string = 0;
    for (size_t i = 0; i < off && text[i]; ++i) {
        char c = text[i];
        if (in_string) {
            if (c == '\\' && text[i + 1]) ++i;
            else if (c == '"') in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (c == '[' || c == '{') {
            ++depth;
        } else if ((c == ']' || c == '}') && depth) {
            --depth;
        }
    }
    return depth;
}

static sf_result load_all(loader* L, const uint8_t* data, size_t size)
{
    const uint8_t* json = data;
    size_t json_size = size;
    if (size >= 4 && le32(data) == GLB_MAGIC) {
        L->is_glb = 1;
        TRY(parse_glb(L, data, size, &json, &json_size));
    } else if (size >= 4 && (memcmp(data, "glTF", 4) == 0)) {
        return jfail(L, "glb", "magic", "bad magic");
    } else {
        size_t k = 0;
        while (k < size && (data[k] == ' ' || data[k] == '\n' || data[k] == '\r' || data[k] == '\t')) k++;
        if (k < size && data[k] == 0xEF) k += 3; /* UTF-8 byte order mark */
        if (k >= size || data[k] != '{')
            return jfail(L, "file", NULL, "neither a .glb (magic \"glTF\") nor JSON starting with '{'");
    }
    char* text = tmp_alloc(L, json_size + 1, 1);
    if (!text) return oom(L, "json");
    memcpy(text, json, json_size);
    text[json_size] = '\0';
    const char* start = text;
    if (json_size >= 3 && (uint8_t)text[0] == 0xEF && (uint8_t)text[1] == 0xBB && (uint8_t)text[2] == 0xBF) start += 3;
    cJSON* root = cJSON_ParseWithLength(start, strlen(start));
    if (!root) {
        const char* at = cJSON_GetErrorPtr();
        size_t off = at && at >= start && at <= start + strlen(start) ? (size_t)(at - start) : 0;
        size_t depth = nesting_at(start, off);
        if (depth >= CJSON_NESTING_LIMIT)
            return jfail(L, "json", NULL, "nested deeper than %d levels (at byte %zu)", CJSON_NESTING_LIMIT, off);
        return jfail(L, "json", NULL, "parse error near byte %zu", off);
    }
    L->root = root;
    sf_result r = cJSON_IsObject(root) ? SF_OK : jfail(L, "json", NULL, "the top level is not an object");
    if (r == SF_OK) r = check_asset(L);
    if (r == SF_OK) r = load_buffers(L);
    if (r == SF_OK) r = record_images(L);
    if (r == SF_OK) r = load_views(L);
    if (r == SF_OK) r = load_accessors(L);
    if (r == SF_OK) r = check_costs(L);
    if (r == SF_OK) r = decode_compressed(L);
    if (r == SF_OK) r = load_meshes(L);
    if (r == SF_OK) r = name_compression(L);
    if (r == SF_OK) r = load_nodes(L);
    if (r == SF_OK) r = load_skins(L);
    if (r == SF_OK) r = load_scenes(L);
    if (r == SF_OK) r = load_animations(L);
    cJSON_Delete(root);
    L->root = NULL;
    return r;
}

static sf_result load(const uint8_t* data, size_t size, const char* base_dir, const char* self_path,
                      const sf_gltf_opts* opts, const sf_env* env, sf_gltf** out, sf_error* err, loader* L)
{
    memset(L, 0, sizeof *L);
    L->err = err;
    L->env = sf_env_defaults(env);
    loader_opts(L, opts);
    L->base_dir = base_dir;
    sfi_gltf_block* blocks = NULL;
    sf_gltf* g = block_alloc(&L->env, &blocks, 1, sizeof(sf_gltf));
    struct sfi_gltf_data* in = block_alloc(&L->env, &blocks, 1, sizeof(struct sfi_gltf_data));
    if (!g || !in) {
        blocks_free(&L->env, blocks);
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "gltf", SFI_NO_INDEX, "out of memory");
    }
    in->env = L->env;
    in->blocks = blocks;
    g->internal = in;
    g->scene = SF_GLTF_NONE;
    L->g = g;
    L->input_bytes = size;
    sf_result r = self_path ? record_input(L, self_path) : SF_OK;
    if (r == SF_OK) r = load_all(L, data, size);
    for (size_t i = 0; L->files && i < L->buffer_count; ++i) sf_file_free(&L->env, L->files[i]);
    blocks_free(&L->env, L->tmp);
    L->tmp = NULL;
    if (r != SF_OK) {
        sf_gltf_destroy(g);
        return r;
    }
    *out = g;
    return SF_OK;
}

sf_result sf_gltf_load_memory(const void* data, size_t size, const char* base_dir, const sf_gltf_opts* opts,
                              const sf_env* env, sf_gltf** out, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(out != NULL, SF_ERROR_INVALID_ARGUMENT, err, "out", SFI_NO_INDEX, "is NULL");
    *out = NULL;
    SF_CHECK(data != NULL || size == 0, SF_ERROR_INVALID_ARGUMENT, err, "data", SFI_NO_INDEX, "is NULL");
    loader L;
    return load((const uint8_t*)data, size, base_dir, NULL, opts, env, out, err, &L);
}

sf_result sf_gltf_load_file(const char* path, const sf_gltf_opts* opts, const sf_env* env, sf_gltf** out,
                            sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(out != NULL, SF_ERROR_INVALID_ARGUMENT, err, "out", SFI_NO_INDEX, "is NULL");
    *out = NULL;
    SF_CHECK(path != NULL, SF_ERROR_INVALID_ARGUMENT, err, "path", SFI_NO_INDEX, "is NULL");
    /* The file is read with the files layer (regular files only, at most max_file_bytes), then parsed. */
    loader R;
    memset(&R, 0, sizeof R);
    R.err = err;
    R.env = sf_env_defaults(env);
    loader_opts(&R, opts);
    sf_file_read_opts fo;
    memset(&fo, 0, sizeof fo);
    fo.max_bytes = R.opts.max_file_bytes;
    void* data = NULL;
    size_t size = 0;
    sf_error fe;
    sf_result r = sf_file_read(path, &fo, &R.env, &data, &size, &fe);
    if (r == SF_ERROR_OUT_OF_MEMORY)
        r = sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "file", SFI_NO_INDEX, "out of memory");
    else if (r != SF_OK)
        r = sf_error_set(err, SF_ERROR_IO, "file", SFI_NO_INDEX, "%s", error_detail(&fe));
    if (r == SF_OK) {
        size_t len = strlen(path);
        char* dir = block_alloc(&R.env, &R.tmp, len + 2, 1);
        if (!dir) {
            r = sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "file", SFI_NO_INDEX, "out of memory");
        } else {
            memcpy(dir, path, len + 1);
            char* slash = strrchr(dir, '/');
            if (slash)
                slash == dir ? (void)(slash[1] = '\0') : (void)(*slash = '\0');
            else
                strcpy(dir, ".");
            loader L;
            r = load(data, size, dir, path, opts, env, out, err, &L);
        }
    }
    sf_file_free(&R.env, data);
    blocks_free(&R.env, R.tmp);
    return r;
}

void sf_gltf_destroy(sf_gltf* gltf)
{
    if (!gltf) return;
    sf_env env = gltf->internal->env;
    blocks_free(&env, gltf->internal->blocks);
}

sf_result sf_gltf_instance_mesh(const sf_gltf* gltf, size_t instance, size_t primitive, sf_mesh_desc* out,
                                sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(gltf && out, SF_ERROR_INVALID_ARGUMENT, err, "arguments", SFI_NO_INDEX, "gltf and out are required");
    SF_CHECK(instance < gltf->instance_count, SF_ERROR_INVALID_ARGUMENT, err, "instance", instance,
             "out of range (%zu instances)", gltf->instance_count);
    const sf_gltf_instance* in = &gltf->instances[instance];
    const sf_gltf_mesh* m = &gltf->meshes[in->mesh];
    SF_CHECK(primitive >= m->first_primitive && primitive < m->first_primitive + m->primitive_count,
             SF_ERROR_INVALID_ARGUMENT, err, "primitive", primitive, "is not a primitive of meshes[%zu]", in->mesh);
    const sf_gltf_primitive* p = &gltf->primitives[primitive];
    *out = p->mesh;
    if (in->skin != SF_GLTF_NONE) {
        out->bone_count = in->bone_count;
    } else {
        out->influence_count = 1;
        out->joints = gltf->internal->zero_joints;
        out->weights = gltf->internal->one_weights;
        out->bone_count = 1;
    }
    return SF_OK;
}

/* The detail of err: its message without the "field[index]: " prefix sf_error_set puts there. */
static const char* error_detail_of(const sf_error* err)
{
    const char* m = err->message;
    size_t n = strlen(err->field);
    if (n && strncmp(m, err->field, n) == 0) {
        const char* p = m + n;
        if (*p == '[') {
            const char* q = p + 1;
            while (*q >= '0' && *q <= '9') ++q;
            if (*q == ']') p = q + 1;
        }
        if (p[0] == ':' && p[1] == ' ') return p + 2;
    }
    return m;
}

/* snprintf that may cut the text (messages are one line of at most sizeof sf_error.message). */
static void put_text(char* dst, size_t size, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void put_text(char* dst, size_t size, const char* fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(dst, size, fmt, args);
    va_end(args);
}

void sf_gltf_primitive_locate_error(const sf_gltf* gltf, size_t primitive, sf_error* err)
{
    if (!gltf || !err || primitive >= gltf->primitive_count) return;
    const sf_gltf_primitive* p = &gltf->primitives[primitive];
    char base[64], field[sizeof err->field], detail[sizeof err->message];
    put_text(base, sizeof base, "meshes[%zu].primitives[%zu]", p->mesh_index, p->primitive_index);
    put_text(detail, sizeof detail, "%s", error_detail_of(err));
    const char* f = err->field;
    const char* attr = NULL;      /* the attribute the core's stream came from */
    const char* generated = NULL; /* or what the glTF layer or the core generated in its place */
    char texcoord[32], target[64];
    size_t k = 0;
    const sf_morph_target_desc* td = NULL;
    int per_vertex = 1;
    if (strcmp(f, "mesh.positions") == 0) {
        attr = "attributes.POSITION";
    } else if (strcmp(f, "mesh.normals") == 0) {
        if (p->flat_normals) generated = "normals";
        else attr = "attributes.NORMAL";
    } else if (strcmp(f, "mesh.tangents") == 0) {
        if (p->tangents == SF_GLTF_TANGENTS_SUPPLIED) attr = "attributes.TANGENT";
        else generated = "tangents";
    } else if (strcmp(f, "mesh.uvs") == 0) {
        put_text(texcoord, sizeof texcoord, "attributes.TEXCOORD_%u", p->texcoord);
        attr = texcoord;
    } else if (sscanf(f, "mesh.targets[%zu].", &k) == 1 && k < p->mesh.target_count) {
        const char* dot = strchr(f + strlen("mesh.targets["), '.');
        static const char* const names[3][2] = {
            {"position_deltas", "POSITION"}, {"normal_deltas", "NORMAL"}, {"tangent_deltas", "TANGENT"}};
        for (int s = 0; dot && s < 3; ++s)
            if (strcmp(dot + 1, names[s][0]) == 0) {
                put_text(target, sizeof target, "targets[%zu].%s", k, names[s][1]);
                attr = target;
            }
        td = &p->mesh.targets[k];
        per_vertex = td->sparse_indices == NULL; /* sparse: the index is the accessor's sparse entry */
    }
    size_t index = err->index;
    if ((attr || generated) && per_vertex && index < p->mesh.vertex_count && p->source_vertex)
        index = p->source_vertex[index];
    if (attr) {
        put_text(field, sizeof field, "%s.%s", base, attr);
        put_text(err->field, sizeof err->field, "%s", field);
        err->index = index;
        if (index == SFI_NO_INDEX)
            put_text(err->message, sizeof err->message, "%s: %s", field, detail);
        else
            put_text(err->message, sizeof err->message, "%s[%zu]: %s", field, index, detail);
    } else if (generated) {
        /* the core's detail starts "generated normals: ..." when it generated them itself */
        char prefix[32];
        put_text(prefix, sizeof prefix, "generated %s: ", generated);
        const char* d = strncmp(detail, prefix, strlen(prefix)) == 0 ? detail + strlen(prefix) : detail;
        char where[96] = "";
        if (err->index != SFI_NO_INDEX && p->flat_normals)
            put_text(where, sizeof where, " (triangle %zu, POSITION element %zu)", err->index / 3, index);
        else if (err->index != SFI_NO_INDEX)
            put_text(where, sizeof where, " (POSITION element %zu)", index);
        put_text(err->field, sizeof err->field, "%s", base);
        err->index = index;
        put_text(err->message, sizeof err->message, "generated %s of %s%s: %s", generated, base, where, d);
    } else {
        char message[sizeof err->message];
        put_text(message, sizeof message, "%s: %s", base, err->message);
        put_text(err->message, sizeof err->message, "%s", message);
    }
}

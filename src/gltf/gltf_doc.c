/* The rewriter's open: the file validated by the loader, then read again for its JSON tree and the bytes of
 * every buffer (the .glb BIN chunk, data: URIs, external files), kept as they are; compressed geometry is
 * then made plain (gltf_doc_inflate.c). */
#define _POSIX_C_SOURCE 200809L
#include "gltf_doc.h"

#include <stdio.h>
#include <string.h>

static uint32_t le32(const uint8_t* p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

static int b64(int c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
}

static int hexv(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

sf_result sfi_doc_reserve(sf_gltf_doc* doc, sfi_doc_buffer* b, size_t len, sf_error* err)
{
    if (len <= b->cap) return SF_OK;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < len) {
        if (cap > SIZE_MAX / 4) return sf_error_set(err, SF_ERROR_TOO_LARGE, "buffers", SFI_NO_INDEX, "too large");
        cap *= 2;
    }
    uint8_t* bigger = sf_env_alloc(&doc->env, cap);
    if (!bigger) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "buffers", SFI_NO_INDEX, "out of memory");
    memset(bigger, 0, cap);
    if (b->len) memcpy(bigger, b->data, b->len);
    sf_env_free(&doc->env, b->data, b->cap);
    b->data = bigger;
    b->cap = cap;
    return SF_OK;
}

/* Copies n bytes (the buffer's byteLength) into buffer b. */
static sf_result keep_bytes(sf_gltf_doc* doc, sfi_doc_buffer* b, const uint8_t* data, size_t n, sf_error* err)
{
    sf_result r = sfi_doc_reserve(doc, b, n ? n : 1, err);
    if (r != SF_OK) return r;
    if (n) memcpy(b->data, data, n);
    b->len = n;
    return SF_OK;
}

static sf_result data_uri(sf_gltf_doc* doc, sfi_doc_buffer* b, const char* uri, size_t n, sf_error* err)
{
    const char* s = strchr(uri, ',') + 1; /* the loader checked the form */
    size_t len = strlen(s), k = 0;
    sf_result r = sfi_doc_reserve(doc, b, len / 4 * 3 + 4, err);
    if (r != SF_OK) return r;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len && s[i] != '='; ++i) {
        int v = b64((unsigned char)s[i]);
        if (v < 0) continue;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            b->data[k++] = (uint8_t)(acc >> bits);
        }
    }
    b->len = k < n ? k : n;
    return SF_OK;
}

int sfi_doc_uri_path(const char* dir, const char* uri, char* out, size_t size)
{
    char dec[4096];
    size_t k = 0;
    for (size_t j = 0; uri[j] && k + 1 < sizeof dec; ++j) {
        if (uri[j] == '%' && hexv((unsigned char)uri[j + 1]) >= 0 && hexv((unsigned char)uri[j + 2]) >= 0) {
            dec[k++] = (char)(hexv((unsigned char)uri[j + 1]) * 16 + hexv((unsigned char)uri[j + 2]));
            j += 2;
        } else {
            dec[k++] = uri[j];
        }
    }
    dec[k] = '\0';
    const char* colon = strchr(dec, ':');
    const char* slash = strchr(dec, '/');
    int ok = k > 0 && dec[0] != '/' && !(colon && (!slash || colon < slash)) && strcmp(dec, "..") != 0 &&
             strncmp(dec, "../", 3) != 0 && !strstr(dec, "/../") && !(k >= 3 && strcmp(dec + k - 3, "/..") == 0);
    int w = snprintf(out, size, "%s%s%s", dec[0] == '/' ? "" : dir, dec[0] == '/' ? "" : "/", dec);
    return ok && w > 0 && (size_t)w < size;
}

static sf_result external(sf_gltf_doc* doc, sfi_doc_buffer* b, size_t i, const char* uri, size_t n,
                          const sf_gltf_opts* opts, sf_error* err)
{
    char path[8192], resolved[4096];
    (void)sfi_doc_uri_path(doc->dir, uri, path, sizeof path); /* the loader applied the folder rule */
    sf_file_read_opts fo = {opts && opts->allow_outside_files ? NULL : doc->dir, n + SF_GLTF_BUFFER_SLACK};
    void* data = NULL;
    size_t size = 0;
    sf_error fe;
    if (sf_file_read(path, &fo, &doc->env, &data, &size, &fe) != SF_OK || size < n) {
        sf_file_free(&doc->env, data);
        return sf_error_set(err, SF_ERROR_IO, "buffers", i, "buffers[%zu]: %s changed while it was read", i, path);
    }
    sf_result r = keep_bytes(doc, b, data, n, err);
    sf_file_free(&doc->env, data);
    if (r != SF_OK) return r;
    if (sf_file_resolve(path, resolved, sizeof resolved, NULL) != SF_OK) snprintf(resolved, sizeof resolved, "%.4000s", path);
    size_t rl = strlen(resolved) + 1;
    b->source = sf_env_alloc(&doc->env, rl);
    if (!b->source) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "buffers", i, "out of memory");
    memcpy(b->source, resolved, rl);
    return SF_OK;
}

static sf_result read_buffers(sf_gltf_doc* doc, const uint8_t* bin, size_t bin_size, const sf_gltf_opts* opts,
                              sf_error* err)
{
    cJSON* arr = cJSON_GetObjectItemCaseSensitive(doc->root, "buffers");
    doc->buffer_count = cJSON_IsArray(arr) ? (size_t)cJSON_GetArraySize(arr) : 0;
    doc->buffers = sf_env_alloc(&doc->env, (doc->buffer_count + 1) * sizeof(sfi_doc_buffer));
    if (!doc->buffers) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "buffers", SFI_NO_INDEX, "out of memory");
    memset(doc->buffers, 0, (doc->buffer_count + 1) * sizeof(sfi_doc_buffer));
    size_t i = 0;
    for (cJSON* b = arr ? arr->child : NULL; b; b = b->next, ++i) {
        size_t n = sfi_doc_uint(b, "byteLength", 0);
        const cJSON* uri = cJSON_GetObjectItemCaseSensitive(b, "uri");
        sf_result r;
        if (!cJSON_IsString(uri))
            r = keep_bytes(doc, &doc->buffers[i], bin, n <= bin_size ? n : bin_size, err);
        else if (strncmp(uri->valuestring, "data:", 5) == 0)
            r = data_uri(doc, &doc->buffers[i], uri->valuestring, n, err);
        else
            r = external(doc, &doc->buffers[i], i, uri->valuestring, n, opts, err);
        if (r != SF_OK) return r;
    }
    return SF_OK;
}

/* The JSON tree (and BIN chunk) of the file's bytes. */
static sf_result parse(sf_gltf_doc* doc, const uint8_t* data, size_t size, const uint8_t** bin, size_t* bin_size,
                       sf_error* err)
{
    const uint8_t* json = data;
    size_t json_size = size;
    *bin = NULL;
    *bin_size = 0;
    if (size >= 20 && le32(data) == 0x46546C67u) { /* the loader checked the chunks */
        doc->is_glb = 1;
        json_size = le32(data + 12);
        json = data + 20;
        size_t pos = 20 + json_size;
        if (pos + 8 <= size && le32(data + pos + 4) == 0x004E4942u) {
            *bin = data + pos + 8;
            *bin_size = le32(data + pos);
        }
    }
    if (json_size >= 3 && json[0] == 0xEF && json[1] == 0xBB && json[2] == 0xBF) json += 3, json_size -= 3;
    doc->root = cJSON_ParseWithLength((const char*)json, json_size);
    if (!doc->root) return sf_error_set(err, SF_ERROR_GLTF, "json", SFI_NO_INDEX, "json: parse error");
    return SF_OK;
}

static sf_result open_doc(sf_gltf_doc* doc, const char* path, const sf_gltf_opts* opts, sf_error* err)
{
    sf_result r = sf_gltf_load_file(path, opts, &doc->env, &doc->gltf, err);
    if (r != SF_OK) return r;
    size_t len = strlen(path);
    doc->dir = sf_env_alloc(&doc->env, len + 2);
    if (!doc->dir) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "path", SFI_NO_INDEX, "out of memory");
    memcpy(doc->dir, path, len + 1);
    char* slash = strrchr(doc->dir, '/');
    if (slash) slash == doc->dir ? (void)(slash[1] = '\0') : (void)(*slash = '\0');
    else strcpy(doc->dir, ".");
    sf_file_read_opts fo = {NULL, opts && opts->max_file_bytes ? opts->max_file_bytes : ((size_t)1 << 30)};
    void* data = NULL;
    size_t size = 0;
    r = sf_file_read(path, &fo, &doc->env, &data, &size, err);
    const uint8_t* bin = NULL;
    size_t bin_size = 0;
    if (r == SF_OK) r = parse(doc, data, size, &bin, &bin_size, err);
    if (r == SF_OK) r = read_buffers(doc, bin, bin_size, opts, err);
    sf_file_free(&doc->env, data);
    if (r == SF_OK) r = sfi_doc_inflate(doc, err);
    return r;
}

sf_result sf_gltf_doc_open(const char* path, const sf_gltf_opts* opts, const sf_env* env, sf_gltf_doc** out,
                           sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(path && *path && out, SF_ERROR_INVALID_ARGUMENT, err, "arguments", SFI_NO_INDEX,
             "path and out are required");
    *out = NULL;
    sf_env e = sf_env_defaults(env);
    sf_gltf_doc* doc = sf_env_alloc(&e, sizeof *doc);
    if (!doc) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "doc", SFI_NO_INDEX, "out of memory");
    memset(doc, 0, sizeof *doc);
    doc->env = e;
    sf_result r = open_doc(doc, path, opts, err);
    if (r != SF_OK) {
        sf_gltf_doc_destroy(doc);
        return r;
    }
    *out = doc;
    return SF_OK;
}

void sf_gltf_doc_destroy(sf_gltf_doc* doc)
{
    if (!doc) return;
    sf_env e = doc->env;
    for (size_t i = 0; doc->buffers && i < doc->buffer_count; ++i) {
        sf_env_free(&e, doc->buffers[i].data, doc->buffers[i].cap);
        sf_env_free(&e, doc->buffers[i].source, 0);
    }
    sf_env_free(&e, doc->buffers, 0);
    sf_env_free(&e, doc->dir, 0);
    cJSON_Delete(doc->root);
    sf_gltf_destroy(doc->gltf);
    sf_env_free(&e, doc, sizeof *doc);
}

struct cJSON* sf_gltf_doc_json(sf_gltf_doc* doc) { return doc ? doc->root : NULL; }
int sf_gltf_doc_is_glb(const sf_gltf_doc* doc) { return doc ? doc->is_glb : 0; }

const char* const* sf_gltf_doc_inputs(const sf_gltf_doc* doc, size_t* count)
{
    *count = doc ? doc->gltf->input_file_count : 0;
    return doc ? doc->gltf->input_files : NULL;
}

void sf_gltf_doc_inflated(const sf_gltf_doc* doc, size_t* views, size_t* primitives)
{
    if (views) *views = doc ? doc->inflated_views : 0;
    if (primitives) *primitives = doc ? doc->inflated_primitives : 0;
}

/* glTF buffers (data URIs, external files, the .glb BIN chunk), images as input files, and buffer views
 * (their EXT_meshopt_compression objects read, decoded later by gltf_decode.c). */
#include "gltf_loader.h"

#include <stdio.h>
#include <string.h>

/* Adds the resolved form of path to the files the load read or names (sf_gltf.input_files), once. Best
 * effort: a path that cannot be resolved is kept as given. */
sf_result record_input(loader* L, const char* path)
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
const char* error_detail(const sf_error* e)
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

sf_result load_buffers(loader* L)
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
sf_result record_images(loader* L)
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

sf_result load_views(loader* L)
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

/* The rewriter's output: a .glb (JSON chunk + buffers[0] as the BIN chunk) or a .gltf with its external
 * buffers and images beside it; every file checked against the inputs before the first is written, each
 * written atomically, the .gltf/.glb last. */
#define _POSIX_C_SOURCE 200809L
#include "gltf_compressed.h"
#include "gltf_doc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

typedef struct out_file {
    char path[4096];
    const uint8_t* data; /* not owned, or owned when `owned` */
    size_t size;
    void* owned;
} out_file;

typedef struct saver {
    const sf_gltf_doc* doc;
    sf_error* err;
    cJSON* root;            /* a copy of the doc's tree, adjusted for the output */
    char dir[4096], stem[1024];
    out_file* files;        /* the outputs beside the main file */
    size_t count, cap;
} saver;

static sf_result add_file(saver* s, const char* path, const uint8_t* data, size_t size, void* owned)
{
    if (s->count == s->cap) {
        sf_file_free(&s->doc->env, owned);
        return sf_error_set(s->err, SF_ERROR_TOO_LARGE, "path", SFI_NO_INDEX, "more than %zu files", s->cap);
    }
    size_t len = strlen(path);
    if (len >= sizeof s->files[0].path) {
        sf_file_free(&s->doc->env, owned);
        return sf_error_set(s->err, SF_ERROR_IO, "path", SFI_NO_INDEX, "%.80s...: path too long", path);
    }
    out_file* f = &s->files[s->count++];
    memcpy(f->path, path, len + 1);
    f->data = data, f->size = size, f->owned = owned;
    return SF_OK;
}

static char* base64(const sf_env* env, const uint8_t* p, size_t n)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    static const char head[] = "data:application/octet-stream;base64,";
    char* out = sf_env_alloc(env, sizeof head + (n + 2) / 3 * 4 + 1);
    if (!out) return NULL;
    char* o = out + sizeof head - 1;
    memcpy(out, head, sizeof head - 1);
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        *o++ = t[v >> 18 & 63], *o++ = t[v >> 12 & 63];
        *o++ = i + 1 < n ? t[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? t[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

/* A buffer written under a name of the output's own: "out.bin", "out_1.bin". */
static sf_result own_name(saver* s, cJSON* jb, size_t i)
{
    char uri[1100], path[5200];
    if (i == 0) snprintf(uri, sizeof uri, "%s.bin", s->stem);
    else snprintf(uri, sizeof uri, "%s_%zu.bin", s->stem, i);
    snprintf(path, sizeof path, "%s/%s", s->dir, uri);
    /* cJSON's replace neither adds a missing member nor frees the item it was given then (a .glb's BIN buffer
     * has no uri). */
    cJSON* item = cJSON_CreateString(uri);
    if (!item) return sf_error_set(s->err, SF_ERROR_OUT_OF_MEMORY, "buffers", i, "out of memory");
    if (cJSON_GetObjectItemCaseSensitive(jb, "uri"))
        cJSON_ReplaceItemInObjectCaseSensitive(jb, "uri", item);
    else if (!cJSON_AddItemToObject(jb, "uri", item)) {
        cJSON_Delete(item);
        return sf_error_set(s->err, SF_ERROR_OUT_OF_MEMORY, "buffers", i, "out of memory");
    }
    return add_file(s, path, s->doc->buffers[i].data, s->doc->buffers[i].len, NULL);
}

static sf_result plan_buffer(saver* s, cJSON* jb, size_t i, int glb)
{
    const sfi_doc_buffer* b = &s->doc->buffers[i];
    const cJSON* uri = cJSON_GetObjectItemCaseSensitive(jb, "uri");
    if (glb && i == 0) {
        cJSON_DeleteItemFromObjectCaseSensitive(jb, "uri");
        return SF_OK;
    }
    if (!b->len && !cJSON_GetObjectItemCaseSensitive(jb, "uri") && sfi_meshopt_is_fallback(jb))
        return SF_OK; /* an EXT_meshopt_compression fallback buffer has no bytes */
    if (cJSON_IsString(uri) && strncmp(uri->valuestring, "data:", 5) == 0) {
        if (!b->changed) return SF_OK;
        char* text = base64(&s->doc->env, b->data, b->len);
        if (!text) return sf_error_set(s->err, SF_ERROR_OUT_OF_MEMORY, "buffers", i, "out of memory");
        cJSON_ReplaceItemInObjectCaseSensitive(jb, "uri", cJSON_CreateString(text));
        sf_env_free(&s->doc->env, text, 0);
        return SF_OK;
    }
    if (!cJSON_IsString(uri) || b->changed) return own_name(s, jb, i);
    char path[8192];
    if (!sfi_doc_uri_path(s->dir, uri->valuestring, path, sizeof path))
        return sf_error_set(s->err, SF_ERROR_UNSUPPORTED, "buffers", i, "buffers[%zu].uri \"%.60s\" leaves the "
                            "glTF's folder: it cannot be placed beside the output", i, uri->valuestring);
    if (b->source && sf_file_same(path, b->source)) return SF_OK; /* already there, byte for byte */
    return add_file(s, path, b->data, b->len, NULL);
}

static sf_result plan_images(saver* s)
{
    const cJSON* images = cJSON_GetObjectItemCaseSensitive(s->root, "images");
    size_t i = 0;
    for (const cJSON* im = cJSON_IsArray(images) ? images->child : NULL; im; im = im->next, ++i) {
        const cJSON* uri = cJSON_GetObjectItemCaseSensitive(im, "uri");
        if (!cJSON_IsString(uri) || strncmp(uri->valuestring, "data:", 5) == 0) continue;
        char src[8192], dst[8192];
        if (!sfi_doc_uri_path(s->doc->dir, uri->valuestring, src, sizeof src) ||
            !sfi_doc_uri_path(s->dir, uri->valuestring, dst, sizeof dst))
            return sf_error_set(s->err, SF_ERROR_UNSUPPORTED, "images", i, "images[%zu].uri \"%.60s\" leaves the "
                                "glTF's folder: it cannot be placed beside the output", i, uri->valuestring);
        if (sf_file_same(src, dst)) continue;
        sf_file_read_opts fo = {s->doc->dir, (size_t)1 << 30};
        void* data = NULL;
        size_t size = 0;
        sf_error fe;
        if (sf_file_read(src, &fo, &s->doc->env, &data, &size, &fe) != SF_OK)
            return sf_error_set(s->err, SF_ERROR_IO, "images", i, "images[%zu].uri: %s", i, fe.message);
        sf_result r = add_file(s, dst, data, size, data);
        if (r != SF_OK) return r;
    }
    return SF_OK;
}

/* Rule: no output is an input (by the file itself or its resolved path). */
static sf_result check_not_input(saver* s, const char* path, const char* const* protect, size_t pc)
{
    size_t n = 0;
    const char* const* in = sf_gltf_doc_inputs(s->doc, &n);
    char a[4096], b[4096];
    int ra = sf_file_resolve(path, a, sizeof a, NULL) == SF_OK;
    for (size_t k = 0; k < n + pc; ++k) {
        const char* p = k < n ? in[k] : protect[k - n];
        if (!p) continue;
        if (sf_file_same(path, p) || (ra && sf_file_resolve(p, b, sizeof b, NULL) == SF_OK && strcmp(a, b) == 0))
            return sf_error_set(s->err, SF_ERROR_IO, "path", SFI_NO_INDEX, "%s is an input (%s); refusing to "
                                "overwrite it", path, p);
    }
    return SF_OK;
}

static sf_result make_parents(const char* path, sf_error* err)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    for (char* p = dir + 1; *p; ++p) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            return sf_error_set(err, SF_ERROR_IO, "path", SFI_NO_INDEX, "%s: cannot create: %s", dir, strerror(errno));
        *p = '/';
    }
    return SF_OK;
}

static void put32(uint8_t* p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

/* The main file's bytes: a .glb of the tree and buffers[0], or the .gltf's text. */
static sf_result encode_main(saver* s, int glb, uint8_t** out, size_t* size)
{
    char* json = glb ? cJSON_PrintUnformatted(s->root) : cJSON_Print(s->root);
    if (!json) return sf_error_set(s->err, SF_ERROR_OUT_OF_MEMORY, "json", SFI_NO_INDEX, "out of memory");
    size_t jlen = strlen(json), blen = glb && s->doc->buffer_count ? s->doc->buffers[0].len : 0;
    size_t jpad = glb ? (jlen + 3) & ~(size_t)3 : jlen + 1, bpad = (blen + 3) & ~(size_t)3;
    size_t total = glb ? 20 + jpad + (bpad ? 8 + bpad : 0) : jpad;
    uint8_t* p = total <= UINT32_MAX ? sf_env_alloc(&s->doc->env, total) : NULL;
    if (!p) {
        cJSON_free(json);
        return sf_error_set(s->err, SF_ERROR_OUT_OF_MEMORY, "glb", SFI_NO_INDEX, "out of memory (or over 4 GiB)");
    }
    if (!glb) {
        memcpy(p, json, jlen);
        p[jlen] = '\n';
    } else {
        put32(p, 0x46546C67u), put32(p + 4, 2), put32(p + 8, (uint32_t)total);
        put32(p + 12, (uint32_t)jpad), put32(p + 16, 0x4E4F534Au);
        memcpy(p + 20, json, jlen);
        memset(p + 20 + jlen, ' ', jpad - jlen);
        if (bpad) {
            uint8_t* b = p + 20 + jpad;
            put32(b, (uint32_t)bpad), put32(b + 4, 0x004E4942u);
            memcpy(b + 8, s->doc->buffers[0].data, blen);
            memset(b + 8 + blen, 0, bpad - blen);
        }
    }
    cJSON_free(json);
    *out = p;
    *size = total;
    return SF_OK;
}

/* The output's folder and its name without the extension; 1 for .glb, 0 for .gltf, -1 for another name. */
static int split_path(saver* s, const char* path)
{
    const char* slash = strrchr(path, '/');
    const char* name = slash ? slash + 1 : path;
    if (slash) snprintf(s->dir, sizeof s->dir, "%.*s", (int)(slash == path ? 1 : slash - path), path);
    else snprintf(s->dir, sizeof s->dir, ".");
    const char* dot = strrchr(name, '.');
    if (!dot || dot == name || (strcasecmp(dot, ".glb") != 0 && strcasecmp(dot, ".gltf") != 0)) return -1;
    snprintf(s->stem, sizeof s->stem, "%.*s", (int)(dot - name), name);
    return strcasecmp(dot, ".glb") == 0;
}

static sf_result plan(saver* s, int glb)
{
    cJSON* buffers = cJSON_GetObjectItemCaseSensitive(s->root, "buffers");
    size_t i = 0;
    sf_result r = SF_OK;
    for (cJSON* jb = cJSON_IsArray(buffers) ? buffers->child : NULL; jb && r == SF_OK; jb = jb->next, ++i)
        r = plan_buffer(s, jb, i, glb);
    return r == SF_OK ? plan_images(s) : r;
}

static sf_result write_all(saver* s, const char* path, int glb, const char* const* protect, size_t pc)
{
    sf_result r = check_not_input(s, path, protect, pc);
    for (size_t k = 0; r == SF_OK && k < s->count; ++k) r = check_not_input(s, s->files[k].path, protect, pc);
    for (size_t k = 0; r == SF_OK && k < s->count; ++k) {
        r = make_parents(s->files[k].path, s->err);
        if (r == SF_OK) r = sf_file_write_atomic(s->files[k].path, s->files[k].data, s->files[k].size, s->err);
    }
    uint8_t* main_bytes = NULL;
    size_t size = 0;
    if (r == SF_OK) r = encode_main(s, glb, &main_bytes, &size);
    if (r == SF_OK) r = sf_file_write_atomic(path, main_bytes, size, s->err);
    sf_env_free(&s->doc->env, main_bytes, size);
    return r;
}

sf_result sf_gltf_doc_save(const sf_gltf_doc* doc, const char* path, const char* const* protect, size_t protect_count,
                           sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(doc && path && *path, SF_ERROR_INVALID_ARGUMENT, err, "path", SFI_NO_INDEX, "doc and path are required");
    saver s;
    memset(&s, 0, sizeof s);
    s.doc = doc;
    s.err = err;
    int glb = split_path(&s, path);
    SF_CHECK(glb >= 0, SF_ERROR_INVALID_ARGUMENT, err, "path", SFI_NO_INDEX, "%s: the name must end in .glb or .gltf", path);
    const cJSON* images = cJSON_GetObjectItemCaseSensitive(doc->root, "images");
    s.cap = doc->buffer_count + (cJSON_IsArray(images) ? (size_t)cJSON_GetArraySize(images) : 0) + 1;
    s.files = sf_env_alloc(&doc->env, s.cap * sizeof(out_file));
    s.root = cJSON_Duplicate(doc->root, 1);
    sf_result r = s.files && s.root ? SF_OK : sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "doc", SFI_NO_INDEX, "out of memory");
    if (r == SF_OK) r = plan(&s, glb);
    if (r == SF_OK) r = write_all(&s, path, glb, protect, protect_count);
    for (size_t k = 0; k < s.count; ++k) sf_file_free(&doc->env, s.files[k].owned);
    sf_env_free(&doc->env, s.files, 0);
    cJSON_Delete(s.root);
    return r;
}

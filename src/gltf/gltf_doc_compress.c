/* The rewriter's EXT_meshopt_compression output: the bufferViews of vertex attributes (ATTRIBUTES) and of
 * indices (TRIANGLES for triangle lists, else INDICES) encoded with libmeshoptimizer's encoders into
 * buffers[0], each view moved onto a fallback buffer without data (the extension's layout), no filters, so
 * decoding gives the uncompressed bytes exactly. Other views (animation, images, skins) stay plain. */
#include "gltf_compressed.h"
#include "gltf_doc.h"

#include <stdlib.h>
#include <string.h>

#if defined(SF_WITH_MESHOPT)
#include <meshoptimizer.h>
#endif

int sf_gltf_doc_can_compress(void) { return sfi_meshopt_built_in(); }

#if defined(SF_WITH_MESHOPT)

enum { ROLE_NONE = 0, ROLE_VERTEX = 1, ROLE_INDEX = 2, ROLE_TRIANGLES = 4, ROLE_OTHER = 8 };

static void mark(const cJSON* root, uint8_t* role, size_t views, size_t accessor, int r)
{
    const cJSON* acc = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "accessors"), (int)accessor);
    size_t v = sfi_doc_uint(acc, "bufferView", SIZE_MAX);
    if (acc && v < views) role[v] |= (uint8_t)(cJSON_GetObjectItemCaseSensitive(acc, "sparse") ? ROLE_OTHER : r);
}

/* Each view's users: vertex attributes, indices (of triangle lists), anything else. */
static void roles(const cJSON* root, uint8_t* role, size_t views)
{
    const cJSON* meshes = cJSON_GetObjectItemCaseSensitive(root, "meshes");
    for (const cJSON* m = meshes ? meshes->child : NULL; m; m = m->next) {
        const cJSON* prims = cJSON_GetObjectItemCaseSensitive(m, "primitives");
        for (const cJSON* p = prims ? prims->child : NULL; p; p = p->next) {
            const cJSON* attrs = cJSON_GetObjectItemCaseSensitive(p, "attributes");
            for (const cJSON* a = attrs ? attrs->child : NULL; a; a = a->next)
                mark(root, role, views, sfi_doc_uint(attrs, a->string, SIZE_MAX), ROLE_VERTEX);
            const cJSON* targets = cJSON_GetObjectItemCaseSensitive(p, "targets");
            for (const cJSON* t = targets ? targets->child : NULL; t; t = t->next)
                for (const cJSON* a = t->child; a; a = a->next) mark(root, role, views, sfi_doc_uint(t, a->string, SIZE_MAX), ROLE_VERTEX);
            if (cJSON_GetObjectItemCaseSensitive(p, "indices"))
                mark(root, role, views, sfi_doc_uint(p, "indices", SIZE_MAX),
                     ROLE_INDEX | (sfi_doc_uint(p, "mode", 4) == 4 ? ROLE_TRIANGLES : 0));
        }
    }
    /* views also read by something else (skins, animations, images, sparse parts) are left plain */
    size_t i = 0;
    const cJSON* accs = cJSON_GetObjectItemCaseSensitive(root, "accessors");
    for (const cJSON* a = accs ? accs->child : NULL; a; a = a->next, ++i) {
        size_t v = sfi_doc_uint(a, "bufferView", SIZE_MAX);
        const cJSON* sp = cJSON_GetObjectItemCaseSensitive(a, "sparse");
        size_t si = sfi_doc_uint(cJSON_GetObjectItemCaseSensitive(sp, "indices"), "bufferView", SIZE_MAX);
        size_t sv = sfi_doc_uint(cJSON_GetObjectItemCaseSensitive(sp, "values"), "bufferView", SIZE_MAX);
        if (si < views) role[si] |= ROLE_OTHER;
        if (sv < views) role[sv] |= ROLE_OTHER;
        if (v < views && !role[v]) role[v] = ROLE_OTHER;
    }
    const cJSON* images = cJSON_GetObjectItemCaseSensitive(root, "images");
    for (const cJSON* im = images ? images->child : NULL; im; im = im->next) {
        size_t v = sfi_doc_uint(im, "bufferView", SIZE_MAX);
        if (v < views) role[v] |= ROLE_OTHER;
    }
}

/* The element size of view v's accessors when they all share one (tightly packed views). */
static size_t element_size(const cJSON* root, size_t v)
{
    size_t size = 0;
    const cJSON* accs = cJSON_GetObjectItemCaseSensitive(root, "accessors");
    for (const cJSON* a = accs ? accs->child : NULL; a; a = a->next) {
        if (sfi_doc_uint(a, "bufferView", SIZE_MAX) != v) continue;
        const cJSON* type = cJSON_GetObjectItemCaseSensitive(a, "type");
        size_t e = sfi_doc_component_size((uint32_t)sfi_doc_uint(a, "componentType", 0)) *
                   sfi_doc_type_components(cJSON_IsString(type) ? type->valuestring : NULL);
        if (size && e != size) return 0;
        size = e;
    }
    return size;
}

static void set_number(cJSON* obj, const char* key, double v)
{
    if (cJSON_GetObjectItemCaseSensitive(obj, key)) cJSON_ReplaceItemInObjectCaseSensitive(obj, key, cJSON_CreateNumber(v));
    else cJSON_AddNumberToObject(obj, key, v);
}

static void add_used(cJSON* root, const char* key)
{
    cJSON* arr = sfi_doc_array(root, key);
    for (const cJSON* e = arr ? arr->child : NULL; e; e = e->next)
        if (cJSON_IsString(e) && strcmp(e->valuestring, SFI_MESHOPT_EXT) == 0) return;
    if (arr) cJSON_AddItemToArray(arr, cJSON_CreateString(SFI_MESHOPT_EXT));
}

/* Encodes view bytes src (count elements of stride bytes) in mode into dst (cap bytes); 0 on failure. */
static size_t encode(const uint8_t* src, size_t count, size_t stride, int mode, uint8_t* dst, size_t cap)
{
    if (mode == SFI_MESHOPT_ATTRIBUTES) return meshopt_encodeVertexBuffer(dst, cap, src, count, stride);
    unsigned int* idx = malloc((count ? count : 1) * sizeof *idx);
    if (!idx) return 0;
    for (size_t i = 0; i < count; ++i) {
        uint16_t s16;
        uint32_t s32;
        if (stride == 2) memcpy(&s16, src + 2 * i, 2), idx[i] = s16;
        else memcpy(&s32, src + 4 * i, 4), idx[i] = s32;
    }
    size_t n = mode == SFI_MESHOPT_TRIANGLES ? meshopt_encodeIndexBuffer(dst, cap, idx, count)
                                             : meshopt_encodeIndexSequence(dst, cap, idx, count);
    free(idx);
    return n;
}

sf_result sf_gltf_doc_compress_meshopt(sf_gltf_doc* doc, size_t* compressed, sf_error* err)
{
    sf_error_clear(err);
    if (compressed) *compressed = 0;
    SF_CHECK(doc && doc->buffer_count >= 1, SF_ERROR_INVALID_ARGUMENT, err, "doc", SFI_NO_INDEX, "no buffers to compress");
    cJSON* views = cJSON_GetObjectItemCaseSensitive(doc->root, "bufferViews");
    size_t nv = views ? (size_t)cJSON_GetArraySize(views) : 0;
    uint8_t* role = calloc(nv + 1, 1);
    if (!role) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "bufferViews", SFI_NO_INDEX, "out of memory");
    roles(doc->root, role, nv);
    cJSON* buffers = cJSON_GetObjectItemCaseSensitive(doc->root, "buffers");
    size_t fallback = doc->buffer_count, fallback_len = 0, done = 0;
    sf_result r = SF_OK;
    size_t i = 0;
    for (cJSON* v = views ? views->child : NULL; r == SF_OK && v; v = v->next, ++i) {
        if (cJSON_GetObjectItemCaseSensitive(v, "extensions") || sfi_doc_uint(v, "buffer", SIZE_MAX) >= doc->buffer_count)
            continue;
        int mode;
        size_t stride = sfi_doc_uint(v, "byteStride", 0), len = sfi_doc_uint(v, "byteLength", 0);
        if (role[i] == ROLE_VERTEX) {
            if (!stride) stride = element_size(doc->root, i);
            mode = SFI_MESHOPT_ATTRIBUTES;
            if (!stride || stride % 4 || stride > 256 || len % stride) continue;
        } else if ((role[i] & ~ROLE_TRIANGLES) == ROLE_INDEX) {
            stride = element_size(doc->root, i);
            if ((stride != 2 && stride != 4) || len % stride) continue;
            mode = (role[i] & ROLE_TRIANGLES) && (len / stride) % 3 == 0 ? SFI_MESHOPT_TRIANGLES : SFI_MESHOPT_INDICES;
        } else {
            continue;
        }
        size_t count = len / stride;
        const sfi_doc_buffer* src = &doc->buffers[sfi_doc_uint(v, "buffer", 0)];
        size_t off = sfi_doc_uint(v, "byteOffset", 0);
        if (off > src->len || len > src->len - off) continue;
        size_t cap = mode == SFI_MESHOPT_ATTRIBUTES ? meshopt_encodeVertexBufferBound(count, stride)
                                                   : meshopt_encodeIndexBufferBound(count, count) + count * 5 + 64;
        uint8_t* tmp = malloc(cap ? cap : 1);
        uint8_t* copy = malloc(len ? len : 1);
        if (!tmp || !copy) {
            free(tmp);
            free(copy);
            r = sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "bufferViews", i, "out of memory");
            break;
        }
        memcpy(copy, src->data + off, len);
        size_t n = encode(copy, count, stride, mode, tmp, cap);
        /* a stream that decodes back differently (or does not encode) leaves the view plain */
        uint8_t* check = n ? malloc(len ? len : 1) : NULL;
        int same = 0;
        if (check) {
            sfi_meshopt_view mv = {1, 0, 0, n, count, stride, (sfi_meshopt_mode)mode, SFI_MESHOPT_NONE};
            sf_error e2;
            same = sfi_meshopt_decode(&mv, tmp, check, "bufferViews", &e2) == SF_OK && memcmp(check, copy, len) == 0;
        }
        free(check);
        free(copy);
        if (!same) {
            free(tmp);
            continue;
        }
        sfi_doc_buffer* b = &doc->buffers[0];
        size_t at = (b->len + 3) & ~(size_t)3;
        r = sfi_doc_reserve(doc, b, at + n, err);
        if (r == SF_OK) {
            memset(b->data + b->len, 0, at - b->len);
            memcpy(b->data + at, tmp, n);
            b->len = at + n;
            b->changed = 1;
            size_t fat = (fallback_len + 3) & ~(size_t)3;
            fallback_len = fat + len;
            cJSON* ext = cJSON_CreateObject();
            cJSON_AddNumberToObject(ext, "buffer", 0);
            cJSON_AddNumberToObject(ext, "byteOffset", (double)at);
            cJSON_AddNumberToObject(ext, "byteLength", (double)n);
            cJSON_AddNumberToObject(ext, "byteStride", (double)stride);
            cJSON_AddNumberToObject(ext, "count", (double)count);
            cJSON_AddStringToObject(ext, "mode", mode == SFI_MESHOPT_ATTRIBUTES ? "ATTRIBUTES" : mode == SFI_MESHOPT_TRIANGLES ? "TRIANGLES" : "INDICES");
            cJSON* exts = cJSON_GetObjectItemCaseSensitive(v, "extensions");
            if (!exts) exts = cJSON_AddObjectToObject(v, "extensions");
            cJSON_AddItemToObject(exts, SFI_MESHOPT_EXT, ext);
            set_number(v, "buffer", (double)fallback);
            set_number(v, "byteOffset", (double)fat);
            ++done;
        }
        free(tmp);
    }
    free(role);
    if (r != SF_OK || !done) {
        if (compressed) *compressed = done;
        return r;
    }
    /* the fallback buffer: the views' uncompressed layout, no bytes (the output requires the extension) */
    cJSON* fb = cJSON_CreateObject();
    cJSON_AddNumberToObject(fb, "byteLength", (double)(fallback_len ? fallback_len : 1));
    cJSON* fe = cJSON_AddObjectToObject(cJSON_AddObjectToObject(fb, "extensions"), SFI_MESHOPT_EXT);
    cJSON_AddTrueToObject(fe, "fallback");
    cJSON_AddItemToArray(buffers, fb);
    sfi_doc_buffer* grown = sf_env_alloc(&doc->env, (doc->buffer_count + 2) * sizeof *grown);
    if (!grown) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "buffers", SFI_NO_INDEX, "out of memory");
    memset(grown, 0, (doc->buffer_count + 2) * sizeof *grown);
    memcpy(grown, doc->buffers, doc->buffer_count * sizeof *grown);
    sf_env_free(&doc->env, doc->buffers, 0);
    doc->buffers = grown;
    ++doc->buffer_count;
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetArrayItem(buffers, 0), "byteLength",
                                           cJSON_CreateNumber((double)doc->buffers[0].len));
    add_used(doc->root, "extensionsUsed");
    add_used(doc->root, "extensionsRequired");
    if (compressed) *compressed = done;
    return sfi_doc_compact(doc, err); /* the plain bytes of the compressed views are not written */
}

#else

sf_result sf_gltf_doc_compress_meshopt(sf_gltf_doc* doc, size_t* compressed, sf_error* err)
{
    (void)doc;
    if (compressed) *compressed = 0;
    return sf_error_set(err, SF_ERROR_UNSUPPORTED, "compress", SFI_NO_INDEX,
                        "%s: this build has no meshopt encoder (configure with SF_WITH_MESHOPT=ON and Debian's "
                        "libmeshoptimizer-dev)", SFI_MESHOPT_EXT);
}

#endif

/* The rewriter's reading of compressed geometry: EXT_meshopt_compression bufferViews and
 * KHR_draco_mesh_compression primitives become plain bytes appended to buffers[0], the extension objects and
 * the meshopt fallback buffers are dropped, and the extensions leave extensionsUsed/Required, so the repaired
 * file is written uncompressed. Everything else is kept as read. */
#include "gltf_compressed.h"
#include "gltf_doc.h"

#include <math.h>
#include <string.h>

static cJSON* item_at(const cJSON* root, const char* key, size_t i)
{
    const cJSON* a = cJSON_GetObjectItemCaseSensitive(root, key);
    return cJSON_IsArray(a) && i < (size_t)cJSON_GetArraySize(a) ? cJSON_GetArrayItem(a, (int)i) : NULL;
}

static void drop_extension(cJSON* obj, const char* name)
{
    cJSON* exts = cJSON_GetObjectItemCaseSensitive(obj, "extensions");
    cJSON_DeleteItemFromObjectCaseSensitive(exts, name);
    if (exts && !exts->child) cJSON_DeleteItemFromObjectCaseSensitive(obj, "extensions");
}

static int has_extension(const cJSON* obj, const char* name)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(obj, "extensions"), name) != NULL;
}

/* Appends n bytes (or n zero bytes when data is NULL) to buffers[0] at a 4-byte aligned offset. */
static sf_result append(sf_gltf_doc* doc, const void* data, size_t n, size_t* offset, sf_error* err)
{
    cJSON* jb = item_at(doc->root, "buffers", 0);
    if (!jb || (doc->is_glb && cJSON_GetObjectItemCaseSensitive(jb, "uri")))
        return sf_error_set(err, SF_ERROR_UNSUPPORTED, "buffers", 0, "buffers[0]: no place for the decompressed "
                            "data (a .glb whose buffers[0] is not the BIN chunk)");
    sfi_doc_buffer* b = &doc->buffers[0];
    size_t off = (b->len + 3) & ~(size_t)3;
    if (n > SIZE_MAX / 4 - off) return sf_error_set(err, SF_ERROR_TOO_LARGE, "buffers", 0, "too large");
    sf_result r = sfi_doc_reserve(doc, b, off + n ? off + n : 1, err);
    if (r != SF_OK) return r;
    memset(b->data + b->len, 0, off - b->len);
    if (data) memcpy(b->data + off, data, n);
    else memset(b->data + off, 0, n);
    b->len = off + n;
    b->changed = 1;
    cJSON_ReplaceItemInObjectCaseSensitive(jb, "byteLength", cJSON_CreateNumber((double)b->len));
    *offset = off;
    return SF_OK;
}

static void set_number(cJSON* obj, const char* key, double v)
{
    if (cJSON_GetObjectItemCaseSensitive(obj, key)) cJSON_ReplaceItemInObjectCaseSensitive(obj, key, cJSON_CreateNumber(v));
    else cJSON_AddNumberToObject(obj, key, v);
}

/* Each compressed bufferView decoded into buffers[0], then the fallback buffers removed. */
static sf_result inflate_meshopt(sf_gltf_doc* doc, size_t* views, sf_error* err)
{
    size_t nb = doc->buffer_count;
    size_t* lengths = sf_env_alloc(&doc->env, (nb + 1) * sizeof *lengths);
    uint8_t* has = sf_env_alloc(&doc->env, nb + 1);
    sf_result r = lengths && has ? SF_OK : sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "bufferViews", SFI_NO_INDEX, "out of memory");
    for (size_t b = 0; r == SF_OK && b < nb; ++b) {
        const cJSON* jb = item_at(doc->root, "buffers", b);
        lengths[b] = doc->buffers[b].len;
        has[b] = !sfi_meshopt_is_fallback(jb);
    }
    const cJSON* arr = cJSON_GetObjectItemCaseSensitive(doc->root, "bufferViews");
    size_t i = 0;
    for (cJSON* v = arr ? arr->child : NULL; r == SF_OK && v; v = v->next, ++i) {
        char base[48];
        snprintf(base, sizeof base, "bufferViews[%zu]", i);
        sfi_meshopt_view mv;
        size_t vlen = sfi_doc_uint(v, "byteLength", 0);
        r = sfi_meshopt_parse(v, base, nb, lengths, has, vlen, &mv, err);
        if (r != SF_OK || !mv.present) continue;
        size_t off = 0;
        r = append(doc, NULL, vlen, &off, err); /* the decoded elements, then zeros to the view's length */
        if (r != SF_OK) break;
        /* buffers[0] may have moved: the compressed bytes are read after the append */
        r = sfi_meshopt_decode(&mv, doc->buffers[mv.buffer].data + mv.offset, doc->buffers[0].data + off, base, err);
        if (r != SF_OK) break;
        set_number(v, "buffer", 0);
        set_number(v, "byteOffset", (double)off);
        drop_extension(v, SFI_MESHOPT_EXT);
        ++*views;
    }
    /* The fallback buffers have no user left: removed, the later buffers renumbered. */
    for (size_t b = nb; r == SF_OK && b-- > 0;) {
        if (has[b]) continue;
        for (cJSON* v = arr ? arr->child : NULL; v; v = v->next) {
            size_t vb = sfi_doc_uint(v, "buffer", 0);
            if (vb > b) set_number(v, "buffer", (double)(vb - 1));
        }
        cJSON_DeleteItemFromArray(cJSON_GetObjectItemCaseSensitive(doc->root, "buffers"), (int)b);
        sf_env_free(&doc->env, doc->buffers[b].data, doc->buffers[b].cap);
        sf_env_free(&doc->env, doc->buffers[b].source, 0);
        memmove(&doc->buffers[b], &doc->buffers[b + 1], (doc->buffer_count - b) * sizeof *doc->buffers);
        --doc->buffer_count;
    }
    sf_env_free(&doc->env, lengths, 0);
    sf_env_free(&doc->env, has, 0);
    return r;
}

/* The bytes of bufferView v (checked by the loader). */
static const uint8_t* view_bytes(const sf_gltf_doc* doc, size_t v, size_t* len)
{
    const cJSON* bv = item_at(doc->root, "bufferViews", v);
    size_t buf = sfi_doc_uint(bv, "buffer", SIZE_MAX), off = sfi_doc_uint(bv, "byteOffset", 0);
    *len = sfi_doc_uint(bv, "byteLength", 0);
    if (!bv || buf >= doc->buffer_count || off > doc->buffers[buf].len || *len > doc->buffers[buf].len - off) return NULL;
    return doc->buffers[buf].data + off;
}

/* An accessor's min/max (where declared) made those of the decoded values: the encoder quantized them. */
static void rebound(cJSON* acc, const sfi_draco_target* t)
{
    if (!cJSON_GetObjectItemCaseSensitive(acc, "min") && !cJSON_GetObjectItemCaseSensitive(acc, "max")) return;
    if (t->ncomp > 16 || !t->count) return;
    int normalized = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(acc, "normalized"));
    size_t cs = sfi_doc_component_size(t->ctype);
    double lo[16], hi[16];
    for (size_t c = 0; c < t->ncomp; ++c) lo[c] = INFINITY, hi[c] = -INFINITY;
    for (size_t i = 0; i < t->count; ++i)
        for (size_t c = 0; c < t->ncomp; ++c) {
            double x = sfi_doc_decode((const uint8_t*)t->out + (i * t->ncomp + c) * cs, t->ctype, normalized);
            lo[c] = x < lo[c] ? x : lo[c];
            hi[c] = x > hi[c] ? x : hi[c];
        }
    const char* keys[2] = {"min", "max"};
    const double* vals[2] = {lo, hi};
    for (int k = 0; k < 2; ++k) {
        if (!cJSON_GetObjectItemCaseSensitive(acc, keys[k])) continue;
        cJSON* arr = cJSON_CreateDoubleArray(vals[k], (int)t->ncomp);
        if (arr) cJSON_ReplaceItemInObjectCaseSensitive(acc, keys[k], arr);
    }
}

/* One target's decoded elements as a new bufferView (vertex elements padded to 4 bytes) under its accessor. */
static sf_result place(sf_gltf_doc* doc, const sfi_draco_target* t, int indices, sf_error* err)
{
    cJSON* acc = item_at(doc->root, "accessors", t->accessor);
    if (!acc || cJSON_GetObjectItemCaseSensitive(acc, "bufferView")) return SF_OK; /* placed by another primitive */
    size_t elem = sfi_doc_component_size(t->ctype) * t->ncomp;
    size_t stride = indices ? elem : (elem + 3) & ~(size_t)3;
    size_t off = 0;
    sf_result r = append(doc, NULL, stride * t->count, &off, err);
    if (r != SF_OK) return r;
    for (size_t i = 0; i < t->count; ++i)
        memcpy(doc->buffers[0].data + off + i * stride, (const uint8_t*)t->out + i * elem, elem);
    cJSON* views = sfi_doc_array(doc->root, "bufferViews");
    cJSON* bv = cJSON_CreateObject();
    if (!views || !bv) {
        cJSON_Delete(bv);
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "bufferViews", SFI_NO_INDEX, "out of memory");
    }
    cJSON_AddNumberToObject(bv, "buffer", 0);
    cJSON_AddNumberToObject(bv, "byteOffset", (double)off);
    cJSON_AddNumberToObject(bv, "byteLength", (double)(stride * t->count));
    if (stride != elem) cJSON_AddNumberToObject(bv, "byteStride", (double)stride);
    cJSON_AddNumberToObject(bv, "target", indices ? 34963 : 34962);
    cJSON_AddItemToArray(views, bv);
    set_number(acc, "bufferView", (double)(cJSON_GetArraySize(views) - 1));
    rebound(acc, t);
    return SF_OK;
}

static sf_result inflate_draco_primitive(sf_gltf_doc* doc, cJSON* prim, const char* base, sf_error* err)
{
    const cJSON* views = cJSON_GetObjectItemCaseSensitive(doc->root, "bufferViews");
    sfi_draco_primitive dp;
    sf_result r = sfi_draco_parse(prim, base, views ? (size_t)cJSON_GetArraySize(views) : 0, &dp, err);
    if (r != SF_OK || !dp.present) return r;
    sfi_draco_target t[SFI_DRACO_MAX_ATTRIBUTES + 1];
    size_t n = 0;
    const cJSON* attrs = cJSON_GetObjectItemCaseSensitive(prim, "attributes");
    for (size_t k = 0; k <= dp.attribute_count; ++k) {
        int ind = k == dp.attribute_count;
        size_t a = ind ? sfi_doc_uint(prim, "indices", SIZE_MAX) : sfi_doc_uint(attrs, dp.names[k], SIZE_MAX);
        sf_gltf_accessor_info info;
        if (a == SIZE_MAX || sf_gltf_doc_accessor_info(doc, a, &info, NULL) != SF_OK) continue;
        t[n] = (sfi_draco_target){ind ? SFI_DRACO_INDICES : dp.ids[k], a, ind ? "indices" : dp.names[k], info.count,
                                  info.components, info.component_type, NULL};
        size_t csize = sfi_doc_component_size(info.component_type);
        size_t bytes = info.count * info.components * (csize < 4 ? 4 : csize); /* the decoder widens first */
        t[n].out = sf_env_alloc(&doc->env, bytes ? bytes : 1);
        if (!t[n].out) {
            r = sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, base, SFI_NO_INDEX, "out of memory");
            break;
        }
        ++n;
    }
    size_t len = 0;
    const uint8_t* data = r == SF_OK ? view_bytes(doc, dp.view, &len) : NULL;
    if (r == SF_OK && !data) r = sf_error_set(err, SF_ERROR_GLTF, base, SFI_NO_INDEX, "%s: the stream's bufferView is "
                                              "out of range", SFI_DRACO_EXT);
    if (r == SF_OK) r = sfi_draco_decode(data, len, t, n, base, err);
    for (size_t k = 0; r == SF_OK && k < n; ++k) r = place(doc, &t[k], t[k].attribute == SFI_DRACO_INDICES, err);
    for (size_t k = 0; k < n; ++k) sf_env_free(&doc->env, t[k].out, 0);
    if (r == SF_OK) drop_extension(prim, SFI_DRACO_EXT);
    return r;
}

static sf_result inflate_draco(sf_gltf_doc* doc, size_t* primitives, sf_error* err)
{
    const cJSON* meshes = cJSON_GetObjectItemCaseSensitive(doc->root, "meshes");
    size_t m = 0;
    for (const cJSON* mesh = meshes ? meshes->child : NULL; mesh; mesh = mesh->next, ++m) {
        const cJSON* prims = cJSON_GetObjectItemCaseSensitive(mesh, "primitives");
        size_t p = 0;
        for (cJSON* prim = prims ? prims->child : NULL; prim; prim = prim->next, ++p) {
            if (!has_extension(prim, SFI_DRACO_EXT)) continue;
            char base[64];
            snprintf(base, sizeof base, "meshes[%zu].primitives[%zu]", m, p);
            sf_result r = inflate_draco_primitive(doc, prim, base, err);
            if (r != SF_OK) return r;
            ++*primitives;
        }
    }
    return SF_OK;
}

static void drop_used(cJSON* root, const char* key, const char* name)
{
    cJSON* arr = cJSON_GetObjectItemCaseSensitive(root, key);
    int i = 0;
    for (cJSON* e = cJSON_IsArray(arr) ? arr->child : NULL; e; e = e->next, ++i)
        if (cJSON_IsString(e) && strcmp(e->valuestring, name) == 0) {
            cJSON_DeleteItemFromArray(arr, i);
            break;
        }
    if (arr && !arr->child) cJSON_DeleteItemFromObjectCaseSensitive(root, key);
}

sf_result sfi_doc_inflate(sf_gltf_doc* doc, sf_error* err)
{
    sf_result r = inflate_meshopt(doc, &doc->inflated_views, err);
    if (r == SF_OK) r = inflate_draco(doc, &doc->inflated_primitives, err);
    if (r != SF_OK) return r;
    static const char* const names[] = {SFI_MESHOPT_EXT, SFI_DRACO_EXT};
    for (size_t k = 0; k < 2; ++k) {
        drop_used(doc->root, "extensionsRequired", names[k]);
        drop_used(doc->root, "extensionsUsed", names[k]);
    }
    return SF_OK;
}

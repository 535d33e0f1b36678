/* The rewriter's reading of compressed geometry: EXT_meshopt_compression bufferViews and
 * KHR_draco_mesh_compression primitives become plain bytes appended to buffers[0], the extension objects and
 * the meshopt fallback buffers are dropped, and the extensions leave extensionsUsed/Required, so the repaired
 * file is written uncompressed. Everything else is kept as read. */
#include "gltf_compressed.h"
#include "gltf_doc.h"

#include <math.h>
#include <stdlib.h>
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
    /* The fallback buffers no view uses any more: removed, the later buffers renumbered. */
    for (size_t b = nb; r == SF_OK && b-- > 0;) {
        int used = 0;
        for (const cJSON* v = arr ? arr->child : NULL; v; v = v->next) used |= sfi_doc_uint(v, "buffer", SIZE_MAX) == b;
        if (has[b] || used) continue;
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

/* Lowers every reference to a bufferView above v by one (v itself has none left). */
static void renumber_views(cJSON* root, size_t v)
{
    cJSON* slots[3] = {NULL, NULL, NULL};
    const char* owners[2] = {"accessors", "images"};
    for (int o = 0; o < 2; ++o) {
        cJSON* arr = cJSON_GetObjectItemCaseSensitive(root, owners[o]);
        for (cJSON* x = cJSON_IsArray(arr) ? arr->child : NULL; x; x = x->next) {
            cJSON* sp = cJSON_GetObjectItemCaseSensitive(x, "sparse");
            slots[0] = x;
            slots[1] = cJSON_GetObjectItemCaseSensitive(sp, "indices");
            slots[2] = cJSON_GetObjectItemCaseSensitive(sp, "values");
            for (int k = 0; k < 3; ++k) {
                size_t w = sfi_doc_uint(slots[k], "bufferView", SIZE_MAX);
                if (w != SIZE_MAX && w > v) set_number(slots[k], "bufferView", (double)(w - 1));
            }
        }
    }
}

/* 1 when an accessor, sparse part or image refers to bufferView v. */
static int view_used(const cJSON* root, size_t v)
{
    const char* owners[2] = {"accessors", "images"};
    for (int o = 0; o < 2; ++o) {
        const cJSON* arr = cJSON_GetObjectItemCaseSensitive(root, owners[o]);
        for (const cJSON* x = cJSON_IsArray(arr) ? arr->child : NULL; x; x = x->next) {
            const cJSON* sp = cJSON_GetObjectItemCaseSensitive(x, "sparse");
            if (sfi_doc_uint(x, "bufferView", SIZE_MAX) == v ||
                sfi_doc_uint(cJSON_GetObjectItemCaseSensitive(sp, "indices"), "bufferView", SIZE_MAX) == v ||
                sfi_doc_uint(cJSON_GetObjectItemCaseSensitive(sp, "values"), "bufferView", SIZE_MAX) == v)
                return 1;
        }
    }
    return 0;
}

/* The Draco streams' bufferViews, now unused, removed (from the last, so the numbers still hold). */
static void drop_streams(sf_gltf_doc* doc, const uint8_t* stream, size_t view_count)
{
    cJSON* views = cJSON_GetObjectItemCaseSensitive(doc->root, "bufferViews");
    for (size_t v = view_count; v-- > 0;) {
        if (!stream[v] || view_used(doc->root, v)) continue;
        renumber_views(doc->root, v);
        cJSON_DeleteItemFromArray(views, (int)v);
    }
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

/* The Draco stream views of the primitives still compressed, marked in stream (view_count entries). */
static void mark_streams(const cJSON* root, uint8_t* stream, size_t view_count)
{
    const cJSON* meshes = cJSON_GetObjectItemCaseSensitive(root, "meshes");
    for (const cJSON* mesh = meshes ? meshes->child : NULL; mesh; mesh = mesh->next) {
        const cJSON* prims = cJSON_GetObjectItemCaseSensitive(mesh, "primitives");
        for (const cJSON* prim = prims ? prims->child : NULL; prim; prim = prim->next) {
            const cJSON* e = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(prim, "extensions"), SFI_DRACO_EXT);
            size_t v = sfi_doc_uint(e, "bufferView", SIZE_MAX);
            if (v < view_count) stream[v] = 1;
        }
    }
}

typedef struct span {
    size_t lo, hi;
    cJSON* owner; /* the view, or its EXT_meshopt_compression object: its byteOffset moves */
} span;

static int by_offset(const void* a, const void* b)
{
    const span* x = a;
    const span* y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo ? 1 : 0;
}

sf_result sfi_doc_compact(sf_gltf_doc* doc, sf_error* err)
{
    cJSON* views = cJSON_GetObjectItemCaseSensitive(doc->root, "bufferViews");
    size_t n = 0, count = views ? (size_t)cJSON_GetArraySize(views) : 0;
    if (!doc->buffer_count || !count) return SF_OK;
    span* sp = sf_env_alloc(&doc->env, 2 * count * sizeof *sp);
    if (!sp) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "bufferViews", SFI_NO_INDEX, "out of memory");
    for (cJSON* v = views->child; v; v = v->next) {
        cJSON* owners[2] = {v, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v, "extensions"), SFI_MESHOPT_EXT)};
        for (int k = 0; k < 2; ++k) {
            if (!owners[k] || sfi_doc_uint(owners[k], "buffer", SIZE_MAX) != 0) continue;
            size_t lo = sfi_doc_uint(owners[k], "byteOffset", 0), len = sfi_doc_uint(owners[k], "byteLength", 0);
            if (lo > doc->buffers[0].len || len > doc->buffers[0].len - lo) continue; /* the loader checked */
            sp[n++] = (span){lo, lo + len, owners[k]};
        }
    }
    qsort(sp, n, sizeof *sp, by_offset);
    sfi_doc_buffer nb = {0};
    sf_result r = sfi_doc_reserve(doc, &nb, doc->buffers[0].len ? doc->buffers[0].len : 1, err);
    size_t k = 0;
    while (r == SF_OK && k < n) {
        size_t lo = sp[k].lo, hi = sp[k].hi, end = k + 1;
        for (; end < n && sp[end].lo < hi; ++end) hi = sp[end].hi > hi ? sp[end].hi : hi;
        size_t at = nb.len + ((lo - nb.len) & 3); /* <= lo: the runs only move down */
        memcpy(nb.data + at, doc->buffers[0].data + lo, hi - lo);
        nb.len = at + (hi - lo);
        for (size_t j = k; j < end; ++j)
            set_number(sp[j].owner, "byteOffset", (double)(at + sp[j].lo - lo));
        k = end;
    }
    sf_env_free(&doc->env, sp, 0);
    if (r != SF_OK) return r;
    sf_env_free(&doc->env, doc->buffers[0].data, doc->buffers[0].cap);
    doc->buffers[0].data = nb.data;
    doc->buffers[0].cap = nb.cap;
    doc->buffers[0].len = nb.len;
    doc->buffers[0].changed = 1;
    cJSON_ReplaceItemInObjectCaseSensitive(item_at(doc->root, "buffers", 0), "byteLength", cJSON_CreateNumber((double)nb.len));
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
    const cJSON* views = cJSON_GetObjectItemCaseSensitive(doc->root, "bufferViews");
    size_t view_count = views ? (size_t)cJSON_GetArraySize(views) : 0;
    uint8_t* stream = sf_env_alloc(&doc->env, view_count + 1);
    if (!stream) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "bufferViews", SFI_NO_INDEX, "out of memory");
    memset(stream, 0, view_count + 1);
    mark_streams(doc->root, stream, view_count);
    sf_result r = inflate_meshopt(doc, &doc->inflated_views, err);
    if (r == SF_OK) r = inflate_draco(doc, &doc->inflated_primitives, err);
    if (r == SF_OK && doc->inflated_primitives) drop_streams(doc, stream, view_count);
    sf_env_free(&doc->env, stream, 0);
    if (r == SF_OK && (doc->inflated_views || doc->inflated_primitives)) r = sfi_doc_compact(doc, err);
    if (r != SF_OK) return r;
    static const char* const names[] = {SFI_MESHOPT_EXT, SFI_DRACO_EXT};
    for (size_t k = 0; k < 2; ++k) {
        drop_used(doc->root, "extensionsRequired", names[k]);
        drop_used(doc->root, "extensionsUsed", names[k]);
    }
    return SF_OK;
}

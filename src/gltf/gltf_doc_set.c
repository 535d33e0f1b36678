/* The rewriter's writing of a slot: values equal to the stored ones change nothing; an accessor that is the
 * slot's alone over bytes of its own is written in place; anything else becomes a new accessor over a new
 * bufferView appended to buffers[0]. */
#include "gltf_doc.h"

#include <math.h>
#include <string.h>

static cJSON* item_at(const cJSON* root, const char* key, size_t i)
{
    const cJSON* a = cJSON_GetObjectItemCaseSensitive(root, key);
    return cJSON_IsArray(a) && i < (size_t)cJSON_GetArraySize(a) ? cJSON_GetArrayItem(a, (int)i) : NULL;
}

static size_t count_in(const cJSON* obj, size_t a)
{
    size_t n = 0;
    for (const cJSON* v = obj ? obj->child : NULL; v; v = v->next) n += cJSON_IsNumber(v) && v->valuedouble == (double)a;
    return n;
}

/* How many places refer to accessor a (primitives, targets, skins, animation samplers, GPU instancing). */
static size_t accessor_users(const cJSON* root, size_t a)
{
    size_t n = 0;
    const cJSON* meshes = cJSON_GetObjectItemCaseSensitive(root, "meshes");
    for (const cJSON* m = cJSON_IsArray(meshes) ? meshes->child : NULL; m; m = m->next) {
        const cJSON* prims = cJSON_GetObjectItemCaseSensitive(m, "primitives");
        for (const cJSON* p = cJSON_IsArray(prims) ? prims->child : NULL; p; p = p->next) {
            n += count_in(cJSON_GetObjectItemCaseSensitive(p, "attributes"), a);
            const cJSON* ind = cJSON_GetObjectItemCaseSensitive(p, "indices");
            n += cJSON_IsNumber(ind) && ind->valuedouble == (double)a;
            const cJSON* targets = cJSON_GetObjectItemCaseSensitive(p, "targets");
            for (const cJSON* t = cJSON_IsArray(targets) ? targets->child : NULL; t; t = t->next) n += count_in(t, a);
        }
    }
    const cJSON* skins = cJSON_GetObjectItemCaseSensitive(root, "skins");
    for (const cJSON* s = cJSON_IsArray(skins) ? skins->child : NULL; s; s = s->next)
        n += sfi_doc_uint(s, "inverseBindMatrices", SIZE_MAX) == a;
    const cJSON* anims = cJSON_GetObjectItemCaseSensitive(root, "animations");
    for (const cJSON* an = cJSON_IsArray(anims) ? anims->child : NULL; an; an = an->next) {
        const cJSON* samplers = cJSON_GetObjectItemCaseSensitive(an, "samplers");
        for (const cJSON* s = cJSON_IsArray(samplers) ? samplers->child : NULL; s; s = s->next)
            n += (sfi_doc_uint(s, "input", SIZE_MAX) == a) + (sfi_doc_uint(s, "output", SIZE_MAX) == a);
    }
    const cJSON* nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
    for (const cJSON* nd = cJSON_IsArray(nodes) ? nodes->child : NULL; nd; nd = nd->next) {
        const cJSON* ext = cJSON_GetObjectItemCaseSensitive(nd, "extensions");
        const cJSON* inst = cJSON_GetObjectItemCaseSensitive(ext, "EXT_mesh_gpu_instancing");
        n += count_in(cJSON_GetObjectItemCaseSensitive(inst, "attributes"), a);
    }
    return n;
}

/* 1 when bufferView v holds only accessor a's bytes: no other accessor, sparse part or image uses it, no
 * other view overlaps it, and it has no extension (a compressed view has no plain bytes). */
static int view_is_own(const cJSON* root, size_t v, size_t a)
{
    const cJSON* bv = item_at(root, "bufferViews", v);
    if (!bv || cJSON_GetObjectItemCaseSensitive(bv, "extensions")) return 0;
    size_t i = 0;
    const cJSON* accs = cJSON_GetObjectItemCaseSensitive(root, "accessors");
    for (const cJSON* x = accs ? accs->child : NULL; x; x = x->next, ++i) {
        const cJSON* sp = cJSON_GetObjectItemCaseSensitive(x, "sparse");
        if ((i != a && sfi_doc_uint(x, "bufferView", SIZE_MAX) == v) ||
            sfi_doc_uint(cJSON_GetObjectItemCaseSensitive(sp, "indices"), "bufferView", SIZE_MAX) == v ||
            sfi_doc_uint(cJSON_GetObjectItemCaseSensitive(sp, "values"), "bufferView", SIZE_MAX) == v)
            return 0;
    }
    const cJSON* images = cJSON_GetObjectItemCaseSensitive(root, "images");
    for (const cJSON* im = images ? images->child : NULL; im; im = im->next)
        if (sfi_doc_uint(im, "bufferView", SIZE_MAX) == v) return 0;
    size_t buf = sfi_doc_uint(bv, "buffer", 0), lo = sfi_doc_uint(bv, "byteOffset", 0);
    size_t hi = lo + sfi_doc_uint(bv, "byteLength", 0);
    i = 0;
    const cJSON* views = cJSON_GetObjectItemCaseSensitive(root, "bufferViews");
    for (const cJSON* w = views->child; w; w = w->next, ++i) {
        if (i == v || sfi_doc_uint(w, "buffer", 0) != buf) continue;
        size_t wlo = sfi_doc_uint(w, "byteOffset", 0), whi = wlo + sfi_doc_uint(w, "byteLength", 0);
        if (wlo < hi && lo < whi) return 0;
    }
    return 1;
}

static cJSON* numbers(const double* v, size_t n)
{
    cJSON* a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; ++i) cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
    return a;
}

/* min and max of the encoded values (as the component type stores them, decoded). */
static void set_bounds(cJSON* acc, const uint8_t* packed, const sf_gltf_values* v)
{
    double lo[4], hi[4];
    size_t cs = sfi_doc_component_size(v->component_type);
    for (size_t c = 0; c < v->components; ++c) lo[c] = INFINITY, hi[c] = -INFINITY;
    for (size_t i = 0; i < v->count; ++i)
        for (size_t c = 0; c < v->components; ++c) {
            double x = sfi_doc_decode(packed + (i * v->components + c) * cs, v->component_type, v->normalized);
            lo[c] = x < lo[c] ? x : lo[c];
            hi[c] = x > hi[c] ? x : hi[c];
        }
    const char* keys[2] = {"min", "max"};
    for (int k = 0; k < 2; ++k) { /* in place where there (the member order kept), else added */
        cJSON* value = numbers(k ? hi : lo, v->components);
        if (cJSON_GetObjectItemCaseSensitive(acc, keys[k])) cJSON_ReplaceItemInObjectCaseSensitive(acc, keys[k], value);
        else cJSON_AddItemToObject(acc, keys[k], value);
    }
}

static sf_result check_values(const sf_gltf_values* v, sf_error* err)
{
    size_t cs = sfi_doc_component_size(v->component_type);
    SF_CHECK(v->data && v->count && v->components >= 1 && v->components <= 4 && cs, SF_ERROR_INVALID_ARGUMENT, err,
             "values", SFI_NO_INDEX, "data, count, components 1..4 and a glTF component type are required");
    SF_CHECK(!v->normalized || cs < 4, SF_ERROR_INVALID_ARGUMENT, err, "values.normalized", SFI_NO_INDEX,
             "only 8- and 16-bit integers are normalized");
    for (size_t i = 0; i < v->count * v->components; ++i)
        SF_CHECK(isfinite(v->data[i]), SF_ERROR_NOT_FINITE, err, "values.data", i / v->components, "is not finite");
    return SF_OK;
}

/* The JSON object holding the slot's key (attributes, a target, or the primitive for indices). */
static cJSON* slot_holder(sf_gltf_doc* doc, const sf_gltf_slot* s)
{
    cJSON* prim = item_at(item_at(doc->root, "meshes", s->mesh), "primitives", s->primitive);
    if (!prim) return NULL;
    if (s->target != SF_GLTF_NONE) return item_at(prim, "targets", s->target);
    if (!s->attribute) return prim;
    cJSON* attrs = cJSON_GetObjectItemCaseSensitive(prim, "attributes");
    return cJSON_IsObject(attrs) ? attrs : NULL;
}

/* Writes packed over accessor a's elements when it is the slot's alone; 1 when done. */
static int write_in_place(sf_gltf_doc* doc, size_t a, const sf_gltf_values* v, const uint8_t* packed, int* changed)
{
    cJSON* acc = item_at(doc->root, "accessors", a);
    sf_gltf_accessor_info in;
    if (sf_gltf_doc_accessor_info(doc, a, &in, NULL) != SF_OK || in.count != v->count ||
        in.components != v->components || in.component_type != v->component_type || in.normalized != v->normalized)
        return 0;
    size_t view = sfi_doc_uint(acc, "bufferView", SIZE_MAX);
    int bounded = cJSON_GetObjectItemCaseSensitive(acc, "min") || cJSON_GetObjectItemCaseSensitive(acc, "max");
    if (view == SIZE_MAX || cJSON_GetObjectItemCaseSensitive(acc, "sparse") || (bounded && v->normalized) ||
        accessor_users(doc->root, a) != 1 || !view_is_own(doc->root, view, a))
        return 0;
    const cJSON* bv = item_at(doc->root, "bufferViews", view);
    size_t elem = sfi_doc_component_size(v->component_type) * v->components;
    size_t stride = sfi_doc_uint(bv, "byteStride", 0);
    if (!stride) stride = elem;
    sfi_doc_buffer* b = &doc->buffers[sfi_doc_uint(bv, "buffer", 0)];
    uint8_t* p = b->data + sfi_doc_uint(bv, "byteOffset", 0) + sfi_doc_uint(acc, "byteOffset", 0);
    for (size_t i = 0; i < v->count; ++i) {
        if (memcmp(p + i * stride, packed + i * elem, elem) == 0) continue;
        memcpy(p + i * stride, packed + i * elem, elem);
        b->changed = *changed = 1;
    }
    if (bounded && *changed) set_bounds(acc, packed, v);
    return 1;
}

/* Buffer 0 ready for appending (made when the file has none). */
static sf_result first_buffer(sf_gltf_doc* doc, sf_error* err)
{
    cJSON* buffers = sfi_doc_array(doc->root, "buffers");
    if (!buffers) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "buffers", SFI_NO_INDEX, "out of memory");
    if (doc->buffer_count == 0) {
        cJSON* b = cJSON_CreateObject();
        cJSON_AddNumberToObject(b, "byteLength", 0);
        cJSON_AddItemToArray(buffers, b);
        doc->buffer_count = 1; /* doc->buffers holds one spare entry */
        doc->buffers[0].changed = 1;
    }
    const cJSON* uri = cJSON_GetObjectItemCaseSensitive(buffers->child, "uri");
    if (doc->is_glb && uri)
        return sf_error_set(err, SF_ERROR_UNSUPPORTED, "buffers", 0, "buffers[0] of this .glb is an external file "
                            "(%.60s), not the BIN chunk: new data has no place", cJSON_IsString(uri) ? uri->valuestring : "?");
    return SF_OK;
}

/* A new bufferView and accessor over packed, appended to buffers[0]; returns the accessor's index. */
static sf_result append(sf_gltf_doc* doc, const sf_gltf_slot* s, const sf_gltf_values* v, const uint8_t* packed,
                        size_t* out, sf_error* err)
{
    sf_result r = first_buffer(doc, err);
    if (r != SF_OK) return r;
    size_t elem = sfi_doc_component_size(v->component_type) * v->components;
    int indices = s->attribute == NULL;
    size_t stride = indices ? elem : (elem + 3) & ~(size_t)3; /* vertex attributes: 4-byte aligned elements */
    sfi_doc_buffer* b = &doc->buffers[0];
    size_t offset = (b->len + 3) & ~(size_t)3;
    if (v->count > (SIZE_MAX / 4 - offset) / stride)
        return sf_error_set(err, SF_ERROR_TOO_LARGE, "values", SFI_NO_INDEX, "too large");
    size_t length = stride * v->count;
    r = sfi_doc_reserve(doc, b, offset + length, err);
    if (r != SF_OK) return r;
    memset(b->data + b->len, 0, offset + length - b->len);
    for (size_t i = 0; i < v->count; ++i) memcpy(b->data + offset + i * stride, packed + i * elem, elem);
    b->len = offset + length;
    b->changed = 1;
    cJSON* buffers = cJSON_GetObjectItemCaseSensitive(doc->root, "buffers");
    cJSON_ReplaceItemInObjectCaseSensitive(buffers->child, "byteLength", cJSON_CreateNumber((double)b->len));
    cJSON* views = sfi_doc_array(doc->root, "bufferViews");
    cJSON* accs = sfi_doc_array(doc->root, "accessors");
    cJSON* bv = cJSON_CreateObject();
    cJSON* acc = cJSON_CreateObject();
    if (!views || !accs || !bv || !acc) {
        cJSON_Delete(bv);
        cJSON_Delete(acc);
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "bufferViews", SFI_NO_INDEX, "out of memory");
    }
    cJSON_AddNumberToObject(bv, "buffer", 0);
    cJSON_AddNumberToObject(bv, "byteOffset", (double)offset);
    cJSON_AddNumberToObject(bv, "byteLength", (double)length);
    if (stride != elem) cJSON_AddNumberToObject(bv, "byteStride", (double)stride);
    if (s->target == SF_GLTF_NONE) cJSON_AddNumberToObject(bv, "target", indices ? 34963 : 34962);
    cJSON_AddNumberToObject(acc, "bufferView", (double)cJSON_GetArraySize(views));
    cJSON_AddItemToArray(views, bv);
    cJSON_AddNumberToObject(acc, "componentType", v->component_type);
    if (v->normalized) cJSON_AddTrueToObject(acc, "normalized");
    cJSON_AddNumberToObject(acc, "count", (double)v->count);
    cJSON_AddStringToObject(acc, "type", sfi_doc_type_name(v->components));
    if (s->attribute && strcmp(s->attribute, "POSITION") == 0) set_bounds(acc, packed, v);
    *out = (size_t)cJSON_GetArraySize(accs);
    cJSON_AddItemToArray(accs, acc);
    return SF_OK;
}

/* 1 when accessor a already holds exactly the encoded values. */
static int holds(const sf_gltf_doc* doc, size_t a, const sf_gltf_values* v, const uint8_t* packed, float* scratch)
{
    sf_gltf_accessor_info in;
    if (sf_gltf_doc_accessor_info(doc, a, &in, NULL) != SF_OK || in.count != v->count ||
        in.components != v->components || in.component_type != v->component_type || in.normalized != v->normalized ||
        sf_gltf_doc_read(doc, a, scratch, NULL) != SF_OK)
        return 0;
    size_t cs = sfi_doc_component_size(v->component_type);
    uint8_t enc[4];
    for (size_t i = 0; i < v->count * v->components; ++i) {
        sfi_doc_encode(scratch[i], v->component_type, v->normalized, enc);
        if (memcmp(enc, packed + i * cs, cs) != 0) return 0;
    }
    return 1;
}

sf_result sf_gltf_doc_set_mode(sf_gltf_doc* doc, size_t mesh, size_t primitive, uint32_t mode, sf_error* err)
{
    cJSON* p = doc ? item_at(item_at(doc->root, "meshes", mesh), "primitives", primitive) : NULL;
    SF_CHECK(p && mode <= 6, SF_ERROR_INVALID_ARGUMENT, err, "mode", mesh, "meshes[%zu].primitives[%zu] mode %u", mesh,
             primitive, mode);
    cJSON_DeleteItemFromObjectCaseSensitive(p, "mode");
    if (mode != 4 && !cJSON_AddNumberToObject(p, "mode", mode))
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "mode", SFI_NO_INDEX, "out of memory");
    return SF_OK;
}

sf_result sf_gltf_doc_set(sf_gltf_doc* doc, const sf_gltf_slot* slot, const sf_gltf_values* values, int* changed,
                          sf_error* err)
{
    sf_error_clear(err);
    int ch = 0;
    if (changed) *changed = 0;
    SF_CHECK(doc && slot && values, SF_ERROR_INVALID_ARGUMENT, err, "arguments", SFI_NO_INDEX, "doc, slot and values are required");
    sf_result r = check_values(values, err);
    if (r != SF_OK) return r;
    cJSON* holder = slot_holder(doc, slot);
    SF_CHECK(holder, SF_ERROR_INVALID_ARGUMENT, err, "slot", slot->mesh, "meshes[%zu].primitives[%zu]%s does not exist",
             slot->mesh, slot->primitive, slot->target != SF_GLTF_NONE ? " (or its target)" : "");
    size_t cs = sfi_doc_component_size(values->component_type), n = values->count * values->components;
    uint8_t* packed = sf_env_alloc(&doc->env, n * cs);
    float* scratch = sf_env_alloc(&doc->env, n * sizeof(float));
    if (!packed || !scratch) r = sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "values", SFI_NO_INDEX, "out of memory");
    for (size_t i = 0; r == SF_OK && i < n; ++i)
        sfi_doc_encode(values->data[i], values->component_type, values->normalized, packed + i * cs);
    size_t a = sf_gltf_doc_accessor(doc, slot);
    if (r == SF_OK && !(a != SF_GLTF_NONE && holds(doc, a, values, packed, scratch)) &&
        !(a != SF_GLTF_NONE && write_in_place(doc, a, values, packed, &ch))) {
        size_t added = 0;
        r = append(doc, slot, values, packed, &added, err);
        if (r == SF_OK) {
            const char* key = slot->attribute ? slot->attribute : "indices";
            cJSON* num = cJSON_CreateNumber((double)added);
            if (cJSON_GetObjectItemCaseSensitive(holder, key)) cJSON_ReplaceItemInObjectCaseSensitive(holder, key, num);
            else cJSON_AddItemToObject(holder, key, num);
            ch = 1;
        }
    }
    sf_env_free(&doc->env, packed, n * cs);
    sf_env_free(&doc->env, scratch, n * sizeof(float));
    if (changed) *changed = ch;
    return r;
}

/* The rewriter's reading side: JSON helpers, slots to accessors, accessor values as floats (strided,
 * normalized, sparse) and the encoding of one value in a component type. */
#include "gltf_doc.h"

#include <math.h>
#include <string.h>

size_t sfi_doc_uint(const cJSON* obj, const char* key, size_t def)
{
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) && v->valuedouble >= 0 ? (size_t)v->valuedouble : def;
}

cJSON* sfi_doc_array(cJSON* root, const char* key)
{
    cJSON* a = cJSON_GetObjectItemCaseSensitive(root, key);
    if (cJSON_IsArray(a)) return a;
    a = cJSON_CreateArray();
    if (a && !cJSON_AddItemToObject(root, key, a)) {
        cJSON_Delete(a);
        return NULL;
    }
    return a;
}

size_t sfi_doc_component_size(uint32_t ctype)
{
    return ctype == 5120 || ctype == 5121 ? 1 : ctype == 5122 || ctype == 5123 ? 2 : ctype == 5125 || ctype == 5126 ? 4 : 0;
}

static const char* const type_names[] = {"SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"};
static const size_t type_counts[] = {1, 2, 3, 4, 4, 9, 16};

size_t sfi_doc_type_components(const char* type)
{
    for (size_t t = 0; type && t < 7; ++t)
        if (strcmp(type, type_names[t]) == 0) return type_counts[t];
    return 0;
}

const char* sfi_doc_type_name(size_t components)
{
    return components >= 1 && components <= 4 ? type_names[components - 1] : components == 9 ? "MAT3" : "MAT4";
}

float sfi_doc_decode(const uint8_t* p, uint32_t ctype, int normalized)
{
    switch (ctype) {
    case 5120: { int8_t v; memcpy(&v, p, 1); return normalized ? fmaxf((float)v / 127.0f, -1.0f) : (float)v; }
    case 5121: return normalized ? (float)p[0] / 255.0f : (float)p[0];
    case 5122: { int16_t v; memcpy(&v, p, 2); return normalized ? fmaxf((float)v / 32767.0f, -1.0f) : (float)v; }
    case 5123: { uint16_t v; memcpy(&v, p, 2); return normalized ? (float)v / 65535.0f : (float)v; }
    case 5125: { uint32_t v; memcpy(&v, p, 4); return (float)v; }
    default: { float v; memcpy(&v, p, 4); return v; }
    }
}

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

void sfi_doc_encode(float v, uint32_t ctype, int normalized, uint8_t* p)
{
    double d = v;
    switch (ctype) {
    case 5120: { int8_t x = (int8_t)lrint(clampd(normalized ? d * 127.0 : d, -128, 127)); memcpy(p, &x, 1); break; }
    case 5121: p[0] = (uint8_t)lrint(clampd(normalized ? d * 255.0 : d, 0, 255)); break;
    case 5122: { int16_t x = (int16_t)lrint(clampd(normalized ? d * 32767.0 : d, -32768, 32767)); memcpy(p, &x, 2); break; }
    case 5123: { uint16_t x = (uint16_t)lrint(clampd(normalized ? d * 65535.0 : d, 0, 65535)); memcpy(p, &x, 2); break; }
    case 5125: { uint32_t x = (uint32_t)llrint(clampd(d, 0, 4294967295.0)); memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, 4); break;
    }
}

static cJSON* item_at(const cJSON* root, const char* key, size_t i)
{
    const cJSON* a = cJSON_GetObjectItemCaseSensitive(root, key);
    return cJSON_IsArray(a) && i < (size_t)cJSON_GetArraySize(a) ? cJSON_GetArrayItem(a, (int)i) : NULL;
}

size_t sf_gltf_doc_accessor(const sf_gltf_doc* doc, const sf_gltf_slot* slot)
{
    if (!doc || !slot) return SF_GLTF_NONE;
    const cJSON* prim = item_at(item_at(doc->root, "meshes", slot->mesh), "primitives", slot->primitive);
    if (slot->target != SF_GLTF_NONE) prim = item_at(prim, "targets", slot->target);
    else if (prim && slot->attribute) prim = cJSON_GetObjectItemCaseSensitive(prim, "attributes");
    if (!prim) return SF_GLTF_NONE;
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(prim, slot->attribute ? slot->attribute : "indices");
    return cJSON_IsNumber(v) && v->valuedouble >= 0 ? (size_t)v->valuedouble : SF_GLTF_NONE;
}

sf_result sf_gltf_doc_accessor_info(const sf_gltf_doc* doc, size_t accessor, sf_gltf_accessor_info* out,
                                    sf_error* err)
{
    sf_error_clear(err);
    const cJSON* a = doc ? item_at(doc->root, "accessors", accessor) : NULL;
    SF_CHECK(a && out, SF_ERROR_INVALID_ARGUMENT, err, "accessor", accessor, "no such accessor");
    memset(out, 0, sizeof *out);
    out->count = sfi_doc_uint(a, "count", 0);
    const cJSON* type = cJSON_GetObjectItemCaseSensitive(a, "type");
    out->components = sfi_doc_type_components(cJSON_IsString(type) ? type->valuestring : NULL);
    out->component_type = (uint32_t)sfi_doc_uint(a, "componentType", 5126);
    out->normalized = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "normalized"));
    out->sparse = cJSON_GetObjectItemCaseSensitive(a, "sparse") != NULL;
    out->has_view = cJSON_GetObjectItemCaseSensitive(a, "bufferView") != NULL;
    return SF_OK;
}

/* The bytes of bufferView v from offset, with at least need bytes there (else NULL). */
static const uint8_t* view_at(const sf_gltf_doc* doc, size_t v, size_t offset, size_t need, size_t* stride)
{
    const cJSON* bv = item_at(doc->root, "bufferViews", v);
    size_t buf = sfi_doc_uint(bv, "buffer", SIZE_MAX), off = sfi_doc_uint(bv, "byteOffset", 0);
    size_t len = sfi_doc_uint(bv, "byteLength", 0);
    if (stride) *stride = sfi_doc_uint(bv, "byteStride", 0);
    if (!bv || buf >= doc->buffer_count || offset > len || need > len - offset) return NULL;
    const sfi_doc_buffer* b = &doc->buffers[buf];
    if (off > b->len || len > b->len - off) return NULL;
    return b->data + off + offset;
}

static sf_result read_sparse(const sf_gltf_doc* doc, const cJSON* sp, const sf_gltf_accessor_info* in, size_t elem,
                             float* out, size_t accessor, sf_error* err)
{
    size_t n = sfi_doc_uint(sp, "count", 0);
    const cJSON* idx = cJSON_GetObjectItemCaseSensitive(sp, "indices");
    const cJSON* val = cJSON_GetObjectItemCaseSensitive(sp, "values");
    uint32_t ictype = (uint32_t)sfi_doc_uint(idx, "componentType", 5125);
    size_t isz = sfi_doc_component_size(ictype);
    const uint8_t* ip = view_at(doc, sfi_doc_uint(idx, "bufferView", SIZE_MAX), sfi_doc_uint(idx, "byteOffset", 0), n * isz, NULL);
    const uint8_t* vp = view_at(doc, sfi_doc_uint(val, "bufferView", SIZE_MAX), sfi_doc_uint(val, "byteOffset", 0), n * elem, NULL);
    if (!ip || !vp || !isz) return sf_error_set(err, SF_ERROR_GLTF, "accessors", accessor, "sparse data out of range");
    size_t csize = sfi_doc_component_size(in->component_type);
    for (size_t s = 0; s < n; ++s) {
        size_t row = (size_t)sfi_doc_decode(ip + s * isz, ictype, 0);
        if (row >= in->count) return sf_error_set(err, SF_ERROR_GLTF, "accessors", accessor, "sparse index out of range");
        for (size_t c = 0; c < in->components; ++c)
            out[row * in->components + c] = sfi_doc_decode(vp + s * elem + c * csize, in->component_type, in->normalized);
    }
    return SF_OK;
}

sf_result sf_gltf_doc_read(const sf_gltf_doc* doc, size_t accessor, float* out, sf_error* err)
{
    sf_gltf_accessor_info in;
    sf_result r = sf_gltf_doc_accessor_info(doc, accessor, &in, err);
    if (r != SF_OK) return r;
    SF_CHECK(out && in.components && in.components <= 4, SF_ERROR_INVALID_ARGUMENT, err, "accessor", accessor,
             "only SCALAR and VEC2..VEC4 accessors are read");
    const cJSON* a = item_at(doc->root, "accessors", accessor);
    size_t csize = sfi_doc_component_size(in.component_type), elem = csize * in.components;
    memset(out, 0, in.count * in.components * sizeof(float));
    if (in.has_view) {
        size_t stride = 0;
        const uint8_t* p = view_at(doc, sfi_doc_uint(a, "bufferView", SIZE_MAX), sfi_doc_uint(a, "byteOffset", 0), elem, &stride);
        if (!stride) stride = elem;
        if (!p || !view_at(doc, sfi_doc_uint(a, "bufferView", SIZE_MAX), sfi_doc_uint(a, "byteOffset", 0),
                           stride * (in.count - 1) + elem, NULL))
            return sf_error_set(err, SF_ERROR_GLTF, "accessors", accessor, "accessors[%zu]: data out of range", accessor);
        for (size_t i = 0; i < in.count; ++i)
            for (size_t c = 0; c < in.components; ++c)
                out[i * in.components + c] = sfi_doc_decode(p + i * stride + c * csize, in.component_type, in.normalized);
    }
    const cJSON* sp = cJSON_GetObjectItemCaseSensitive(a, "sparse");
    return sp ? read_sparse(doc, sp, &in, elem, out, accessor, err) : SF_OK;
}

const sf_gltf* sf_gltf_doc_gltf(const sf_gltf_doc* doc) { return doc ? doc->gltf : NULL; }

size_t sf_gltf_doc_mesh_count(const sf_gltf_doc* doc)
{
    const cJSON* a = doc ? cJSON_GetObjectItemCaseSensitive(doc->root, "meshes") : NULL;
    return cJSON_IsArray(a) ? (size_t)cJSON_GetArraySize(a) : 0;
}

size_t sf_gltf_doc_primitive_count(const sf_gltf_doc* doc, size_t mesh)
{
    const cJSON* a = doc ? cJSON_GetObjectItemCaseSensitive(item_at(doc->root, "meshes", mesh), "primitives") : NULL;
    return cJSON_IsArray(a) ? (size_t)cJSON_GetArraySize(a) : 0;
}

int sf_gltf_doc_primitive(const sf_gltf_doc* doc, size_t mesh, size_t primitive, uint32_t* mode, size_t* targets)
{
    const cJSON* p = doc ? item_at(item_at(doc->root, "meshes", mesh), "primitives", primitive) : NULL;
    if (!p) return 0;
    const cJSON* t = cJSON_GetObjectItemCaseSensitive(p, "targets");
    if (mode) *mode = (uint32_t)sfi_doc_uint(p, "mode", 4);
    if (targets) *targets = cJSON_IsArray(t) ? (size_t)cJSON_GetArraySize(t) : 0;
    return 1;
}

size_t sf_gltf_doc_attribute_name(const sf_gltf_doc* doc, size_t mesh, size_t primitive, size_t target, size_t k,
                               char* out, size_t size)
{
    const cJSON* p = doc ? item_at(item_at(doc->root, "meshes", mesh), "primitives", primitive) : NULL;
    const cJSON* holder = target == SF_GLTF_NONE ? cJSON_GetObjectItemCaseSensitive(p, "attributes")
                                                 : item_at(p, "targets", target);
    const cJSON* a = cJSON_IsObject(holder) ? holder->child : NULL;
    for (size_t i = 0; a && i < k; ++i) a = a->next;
    if (!a || !a->string) return 0;
    size_t need = strlen(a->string) + 1;
    if (need <= size) memcpy(out, a->string, need);
    return need;
}

int sf_gltf_doc_normal_map_texcoord(const sf_gltf_doc* doc, size_t mesh, size_t primitive)
{
    const cJSON* p = doc ? item_at(item_at(doc->root, "meshes", mesh), "primitives", primitive) : NULL;
    const cJSON* m = cJSON_GetObjectItemCaseSensitive(p, "material");
    if (!cJSON_IsNumber(m) || !(m->valuedouble >= 0 && m->valuedouble < 1e9)) return -1;
    const cJSON* nt = cJSON_GetObjectItemCaseSensitive(item_at(doc->root, "materials", (size_t)m->valuedouble),
                                                       "normalTexture");
    if (!cJSON_IsObject(nt)) return -1;
    size_t set = sfi_doc_uint(nt, "texCoord", 0);
    return set < 64 ? (int)set : -1;
}

const char* sf_gltf_doc_generator(const sf_gltf_doc* doc)
{
    const cJSON* g = doc ? cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc->root, "asset"),
                                                           "generator") : NULL;
    return cJSON_IsString(g) ? g->valuestring : "";
}

sf_result sf_gltf_doc_set_generator(sf_gltf_doc* doc, const char* generator, sf_error* err)
{
    sf_error_clear(err);
    cJSON* asset = doc ? cJSON_GetObjectItemCaseSensitive(doc->root, "asset") : NULL;
    SF_CHECK(asset && generator, SF_ERROR_INVALID_ARGUMENT, err, "generator", SFI_NO_INDEX, "no asset or generator");
    cJSON* s = cJSON_CreateString(generator);
    if (!s) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "generator", SFI_NO_INDEX, "out of memory");
    if (cJSON_GetObjectItemCaseSensitive(asset, "generator")) cJSON_ReplaceItemInObjectCaseSensitive(asset, "generator", s);
    else cJSON_AddItemToObject(asset, "generator", s);
    return SF_OK;
}

/* glTF accessors: every component type, normalized, strided, sparse; read into float and integer arrays. */
#include "gltf_loader.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

size_t component_size(uint32_t ctype)
{
    switch (ctype) {
    case 5120: case 5121: return 1;
    case 5122: case 5123: return 2;
    case 5125: case 5126: return 4;
    default: return 0;
    }
}

const char* component_name(uint32_t ctype, int normalized)
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

sf_result load_accessors(loader* L)
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

const uint8_t* view_bytes(const loader* L, size_t v, size_t offset)
{
    const view* bv = &L->views[v];
    if (bv->decoded) return bv->decoded + offset;
    return L->buffer_data[bv->buffer] + bv->offset + offset;
}

double read_component(const uint8_t* p, uint32_t ctype, int normalized)
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
void read_element(const accessor* ac, const uint8_t* p, double* out)
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
sf_result accessor_expect(loader* L, size_t ai, const char* base, const char* key, size_t ncomp,
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
sf_result read_floats(loader* L, size_t ai, const char* base, const char* key, size_t ncomp, int owned,
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
sf_result check_coords(loader* L, const char* base, const char* key, size_t ai, const float* data,
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

sf_result read_uints(loader* L, size_t ai, const char* base, const char* key, size_t ncomp, uint32_t** out)
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

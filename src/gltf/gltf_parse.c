/* glTF 2.0 reading, the top level: the sf_gltf's memory, the loader's options, .glb containers, the JSON
 * parse, the order of the load's steps (each in its own file, see gltf_loader.h) and the public entry points. */
#include "gltf_loader.h"

#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- memory owned by the sf_gltf */

void* block_alloc(const sf_env* env, sfi_gltf_block** list, size_t count, size_t elem)
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

void blocks_free(const sf_env* env, sfi_gltf_block* list)
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

void* tmp_alloc(loader* L, size_t count, size_t elem) { return block_alloc(&L->env, &L->tmp, count, elem); }
void* own_alloc(loader* L, size_t count, size_t elem) { return sfi_gltf_alloc(L->g, count, elem); }

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
    size_t skip = json_size >= 3 && json[0] == 0xEF && json[1] == 0xBB && json[2] == 0xBF ? 3 : 0;
    TRY(check_json_cost(L, (const char*)json + skip, json_size - skip));
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

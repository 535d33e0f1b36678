/* The glTF loader's private state and the helpers its files share. gltf_parse.c drives a load: JSON and
 * errors (gltf_json.c), buffers and views (gltf_buffers.c), accessors (gltf_accessors.c), the decoded-size
 * limit (gltf_limits.c), compressed geometry (gltf_decode.c), meshes (gltf_mesh.c, gltf_targets.c,
 * gltf_tangents.c), nodes, skins and scenes (gltf_scene.c), animations (gltf_anim_load.c); gltf_locate.c maps
 * core errors back to the file. The helpers keep their short names inside src/gltf; their symbols carry the
 * sfi_gltf_ prefix (the #defines below), so a program linking the static library meets no bare names. */
#ifndef SF_GLTF_LOADER_H
#define SF_GLTF_LOADER_H

#include "gltf_compressed.h"
#include "gltf_internal.h"

#include <cjson/cJSON.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define GLB_MAGIC 0x46546C67u      /* "glTF" */
#define GLB_CHUNK_JSON 0x4E4F534Au /* "JSON" */
#define GLB_CHUNK_BIN 0x004E4942u  /* "BIN\0" */
#define DEFAULT_MAX_FILE_BYTES ((size_t)1 << 30)
/* Accessors without a bufferView are zeros (plus sparse values): bound them, since no bytes back them. */
#define MAX_VIEWLESS_ELEMENTS ((size_t)1 << 24)

typedef struct view {
    size_t buffer, offset, length, stride; /* stride 0 = tightly packed */
    sfi_meshopt_view meshopt;              /* EXT_meshopt_compression (present 0: plain bytes) */
    const uint8_t* decoded;                /* the decoded bytes of a compressed view (length of them) */
} view;

typedef struct accessor {
    size_t view; /* SF_GLTF_NONE = zeros */
    size_t offset, count, ncomp, rows, csize, col_stride, elem_size, stride;
    uint32_t ctype;
    int normalized;
    const char* type;
    size_t sparse_count; /* 0 = not sparse */
    size_t sp_index_view, sp_index_offset, sp_value_view, sp_value_offset;
    uint32_t sp_index_ctype;
    const uint8_t* decoded; /* KHR_draco_mesh_compression: count tightly packed elements */
    size_t decoded_by;      /* the bufferView + 1 whose Draco stream filled it */
} accessor;

typedef struct loader {
    sf_gltf* g;
    sf_error* err;
    sf_gltf_opts opts;
    sf_env env;
    sfi_gltf_block* tmp; /* freed when loading ends */
    const cJSON* root;
    const char* base_dir;
    const uint8_t* bin;
    size_t bin_size;
    int is_glb;
    size_t buffer_count, view_count, accessor_count;
    const uint8_t** buffer_data;
    size_t* buffer_length;
    uint8_t* buffer_has_data; /* 0: an EXT_meshopt_compression fallback buffer left unread */
    void** files;       /* buffer_count: external buffer files (sf_file_read), freed when loading ends */
    size_t input_bytes; /* the glTF or glb and its external buffers: the base of max_decoded_bytes */
    size_t json_bytes;  /* the parsed JSON's estimated bytes, the first part of the decoded estimate */
    const char** inputs; /* resolved paths of the files read or named (sf_gltf.input_files) */
    size_t input_count, input_cap;
    view* views;
    accessor* accessors;
} loader;

#define TRY(expr)                            \
    do {                                     \
        sf_result r_ = (expr);               \
        if (r_ != SF_OK) return r_;          \
    } while (0)

/* One morph target as read (dense arrays or a shared sparse index list). */
typedef struct target_read {
    float* d[3]; /* POSITION, NORMAL, TANGENT deltas (dense n*3) or sparse_count*3 */
    uint32_t* sparse; /* NULL = dense */
    size_t sparse_count;
} target_read;

/* ---------------------------------------------------------------- symbol names */

#define block_alloc         sfi_gltf_block_alloc
#define blocks_free         sfi_gltf_blocks_free
#define tmp_alloc           sfi_gltf_tmp_alloc
#define own_alloc           sfi_gltf_own_alloc
#define jfail               sfi_gltf_jfail
#define jfail_code          sfi_gltf_jfail_code
#define oom                 sfi_gltf_oom
#define jget                sfi_gltf_jget
#define array_index         sfi_gltf_array_index
#define get_uint            sfi_gltf_get_uint
#define get_index           sfi_gltf_get_index
#define get_floats          sfi_gltf_get_floats
#define get_array           sfi_gltf_get_array
#define own_string          sfi_gltf_own_string
#define get_name            sfi_gltf_get_name
#define record_input        sfi_gltf_record_input
#define error_detail        sfi_gltf_error_detail
#define load_buffers        sfi_gltf_load_buffers
#define record_images       sfi_gltf_record_images
#define load_views          sfi_gltf_load_views
#define component_size      sfi_gltf_component_size
#define component_name      sfi_gltf_component_name
#define load_accessors      sfi_gltf_load_accessors
#define view_bytes          sfi_gltf_view_bytes
#define read_component      sfi_gltf_read_component
#define read_element        sfi_gltf_read_element
#define accessor_expect     sfi_gltf_accessor_expect
#define read_floats         sfi_gltf_read_floats
#define check_coords        sfi_gltf_check_coords
#define read_uints          sfi_gltf_read_uints
#define load_meshes         sfi_gltf_load_meshes
#define same_sparse_indices sfi_gltf_same_sparse_indices
#define read_target         sfi_gltf_read_target
#define deindex             sfi_gltf_deindex
#define split_sparse_target sfi_gltf_split_sparse_target
#define generate_mikktspace sfi_gltf_generate_mikktspace
#define check_costs         sfi_gltf_check_costs
#define json_tree_bytes     sfi_gltf_json_tree_bytes
#define check_json_cost     sfi_gltf_check_json_cost
#define draco_targets       sfi_gltf_draco_targets
#define decode_compressed   sfi_gltf_decode_compressed
#define name_compression    sfi_gltf_name_compression
#define load_nodes          sfi_gltf_load_nodes
#define load_skins          sfi_gltf_load_skins
#define load_scenes         sfi_gltf_load_scenes
#define load_animations     sfi_gltf_load_animations

/* ---------------------------------------------------------------- gltf_parse.c */

void* block_alloc(const sf_env* env, sfi_gltf_block** list, size_t count, size_t elem);
void blocks_free(const sf_env* env, sfi_gltf_block* list);
void* tmp_alloc(loader* L, size_t count, size_t elem);
void* own_alloc(loader* L, size_t count, size_t elem);

/* ---------------------------------------------------------------- gltf_json.c */

sf_result jfail(loader* L, const char* base, const char* key, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
sf_result jfail_code(loader* L, sf_result code, const char* base, const char* key, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
sf_result oom(loader* L, const char* what);
const cJSON* jget(const cJSON* obj, const char* key);
int array_index(const cJSON* e, size_t count, size_t* out);
sf_result get_uint(loader* L, const cJSON* obj, const char* key, const char* base, int required, size_t max,
                   size_t def, size_t* out);
sf_result get_index(loader* L, const cJSON* obj, const char* key, const char* base, int required,
                    size_t count, const char* what, size_t* out);
sf_result get_floats(loader* L, const cJSON* obj, const char* key, const char* base, size_t n, float* out);
sf_result get_array(loader* L, const cJSON* obj, const char* key, const char* base, int required,
                    const cJSON** out, size_t* count);
const char* own_string(loader* L, const char* s);
const char* get_name(loader* L, const cJSON* obj);

/* ---------------------------------------------------------------- gltf_buffers.c */

sf_result record_input(loader* L, const char* path);
const char* error_detail(const sf_error* e);
sf_result load_buffers(loader* L);
sf_result record_images(loader* L);
sf_result load_views(loader* L);

/* ---------------------------------------------------------------- gltf_accessors.c */

size_t component_size(uint32_t ctype);
const char* component_name(uint32_t ctype, int normalized);
sf_result load_accessors(loader* L);
const uint8_t* view_bytes(const loader* L, size_t v, size_t offset);
double read_component(const uint8_t* p, uint32_t ctype, int normalized);
void read_element(const accessor* ac, const uint8_t* p, double* out);
sf_result accessor_expect(loader* L, size_t ai, const char* base, const char* key, size_t ncomp,
                          int integer_only);
sf_result read_floats(loader* L, size_t ai, const char* base, const char* key, size_t ncomp, int owned,
                      float** out);
sf_result check_coords(loader* L, const char* base, const char* key, size_t ai, const float* data,
                       const uint32_t* elements, size_t count, size_t ncomp, size_t bounded);
sf_result read_uints(loader* L, size_t ai, const char* base, const char* key, size_t ncomp, uint32_t** out);

/* ---------------------------------------------------------------- gltf_mesh.c */

sf_result load_meshes(loader* L);

/* ---------------------------------------------------------------- gltf_targets.c */

const accessor* same_sparse_indices(const loader* L, const size_t ai[3]);
sf_result read_target(loader* L, const cJSON* tobj, const char* tbase, size_t n, int want_dense,
                      target_read* out);
void* deindex(loader* L, const void* src, size_t elem, const uint32_t* tri, size_t corners);
sf_result split_sparse_target(loader* L, sf_morph_target_desc* t, const uint32_t* source, size_t n, size_t N,
                              const char* base);

/* ---------------------------------------------------------------- gltf_tangents.c */

sf_result generate_mikktspace(loader* L, sf_gltf_primitive* out, const char* base);

/* ---------------------------------------------------------------- gltf_limits.c */

sf_result check_costs(loader* L);
/* An upper bound on the bytes cJSON allocates to parse text[0..len) (its copy included); *values (optional)
 * the values counted. */
size_t json_tree_bytes(const char* text, size_t len, size_t* values);
/* Refuses a JSON text whose parse would pass max_decoded_bytes (SF_ERROR_GLTF naming "json", the limit and
 * the flag), before it is parsed; records the bytes as the start of the decoded estimate. */
sf_result check_json_cost(loader* L, const char* text, size_t len);

/* ---------------------------------------------------------------- gltf_decode.c */

sf_result draco_targets(loader* L, const cJSON* p, const char* base, const sfi_draco_primitive* dp,
                        sfi_draco_target* t, size_t* n);
sf_result decode_compressed(loader* L);
sf_result name_compression(loader* L);

/* ---------------------------------------------------------------- gltf_scene.c */

sf_result load_nodes(loader* L);
sf_result load_skins(loader* L);
sf_result load_scenes(loader* L);

/* ---------------------------------------------------------------- gltf_anim_load.c */

sf_result load_animations(loader* L);

#endif

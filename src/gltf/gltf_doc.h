/* The rewriter's private state (skinframe_gltf.h, "rewriting"): the JSON tree, every buffer's bytes, and
 * the loaded sf_gltf that validated them. gltf_doc.c opens, gltf_doc_access.c reads accessors and encodes
 * values, gltf_doc_set.c replaces or adds accessors, gltf_doc_save.c writes .glb and .gltf. */
#ifndef SF_GLTF_DOC_H
#define SF_GLTF_DOC_H

#include "gltf_internal.h"

#include <cjson/cJSON.h>

typedef struct sfi_doc_buffer {
    uint8_t* data;      /* len bytes (cap allocated) */
    size_t len, cap;
    int changed;        /* a byte was written or appended */
    char* source;       /* the external file it was read from (resolved), NULL for BIN / data: */
} sfi_doc_buffer;

struct sf_gltf_doc {
    sf_env env;
    cJSON* root;
    int is_glb;
    char* dir;          /* the input's folder */
    sfi_doc_buffer* buffers;
    size_t buffer_count;
    sf_gltf* gltf;      /* the validated load: input_files */
    size_t inflated_views, inflated_primitives; /* compressed geometry made plain (gltf_doc_inflate.c) */
};

/* Typed JSON helpers (the tree was validated by the loader). */
size_t sfi_doc_uint(const cJSON* obj, const char* key, size_t def);
cJSON* sfi_doc_array(cJSON* root, const char* key); /* made when missing */
size_t sfi_doc_component_size(uint32_t ctype);
size_t sfi_doc_type_components(const char* type);
const char* sfi_doc_type_name(size_t components);
/* Encodes one value as ctype (rounded and clamped integers) at p. */
void sfi_doc_encode(float v, uint32_t ctype, int normalized, uint8_t* p);
float sfi_doc_decode(const uint8_t* p, uint32_t ctype, int normalized);
/* The file a relative uri names under dir (percent-decoded) in out; 0 when the uri is absolute, has a
 * scheme, or leaves dir through "..". */
int sfi_doc_uri_path(const char* dir, const char* uri, char* out, size_t size);
/* Decompresses EXT_meshopt_compression bufferViews and KHR_draco_mesh_compression primitives into plain
 * accessors over buffers[0] and drops the extensions (gltf_doc_inflate.c). */
sf_result sfi_doc_inflate(sf_gltf_doc* doc, sf_error* err);
/* buffers[0] rebuilt from the bytes its bufferViews (and their EXT_meshopt_compression streams) cover:
 * overlapping ranges kept together, each run at its old offset modulo 4; unreferenced bytes dropped. */
sf_result sfi_doc_compact(sf_gltf_doc* doc, sf_error* err);
/* Grows buffer b to hold len bytes. */
sf_result sfi_doc_reserve(sf_gltf_doc* doc, sfi_doc_buffer* b, size_t len, sf_error* err);

#endif

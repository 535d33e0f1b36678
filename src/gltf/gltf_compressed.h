/* Compressed glTF geometry: EXT_meshopt_compression (bufferViews, gltf_meshopt.c) and
 * KHR_draco_mesh_compression (primitives, gltf_draco.c over the C++ wrapper gltf_draco.cpp). The loader
 * resolves indices and owns the memory; these files parse the extension objects and decode. Errors name the
 * JSON path and the extension, as the loader's own do. */
#ifndef SF_GLTF_COMPRESSED_H
#define SF_GLTF_COMPRESSED_H

#include "gltf_draco_mesh.h"
#include "sf_common.h"

#include <stddef.h>
#include <stdint.h>

struct cJSON;

#define SFI_MESHOPT_EXT "EXT_meshopt_compression"
#define SFI_DRACO_EXT "KHR_draco_mesh_compression"

int sfi_meshopt_built_in(void);
int sfi_draco_built_in(void);

/* ---------------------------------------------------------------- EXT_meshopt_compression */

typedef enum { SFI_MESHOPT_ATTRIBUTES, SFI_MESHOPT_TRIANGLES, SFI_MESHOPT_INDICES } sfi_meshopt_mode;
typedef enum { SFI_MESHOPT_NONE, SFI_MESHOPT_OCTAHEDRAL, SFI_MESHOPT_QUATERNION, SFI_MESHOPT_EXPONENTIAL } sfi_meshopt_filter;

typedef struct sfi_meshopt_view {
    int present;                  /* 0: the bufferView is not compressed */
    size_t buffer, offset, length; /* where the compressed bytes are */
    size_t count, stride;         /* what they decode to: count elements of stride bytes */
    sfi_meshopt_mode mode;
    sfi_meshopt_filter filter;
} sfi_meshopt_view;

/* 1 when buffer (a buffers[] entry) is a fallback buffer: extensions.EXT_meshopt_compression.fallback true. */
int sfi_meshopt_is_fallback(const struct cJSON* buffer);

/* Reads view's extensions.EXT_meshopt_compression into out (out->present 0 when absent) and checks it against
 * the spec and the buffers: buffer_length[b] bytes each, has_data[b] 0 for a fallback buffer without bytes.
 * view_length is the bufferView's byteLength, which the decoded elements must fit. base: "bufferViews[i]". */
sf_result sfi_meshopt_parse(const struct cJSON* view, const char* base, size_t buffer_count,
                            const size_t* buffer_length, const uint8_t* has_data, size_t view_length,
                            sfi_meshopt_view* out, sf_error* err);

/* Decodes the compressed bytes src (mv->length of them) into dst (mv->count * mv->stride bytes, 4-byte
 * aligned), then applies the filter. Refuses a stream that does not decode to exactly count elements. */
sf_result sfi_meshopt_decode(const sfi_meshopt_view* mv, const uint8_t* src, void* dst, const char* base,
                             sf_error* err);

/* ---------------------------------------------------------------- KHR_draco_mesh_compression */

#define SFI_DRACO_MAX_ATTRIBUTES 32

typedef struct sfi_draco_primitive {
    int present;  /* 0: the primitive is not compressed */
    size_t view;  /* bufferViews[] holding the Draco stream */
    size_t attribute_count;
    const char* names[SFI_DRACO_MAX_ATTRIBUTES]; /* glTF attribute names (pointing into the JSON) */
    uint32_t ids[SFI_DRACO_MAX_ATTRIBUTES];      /* their Draco unique ids */
} sfi_draco_primitive;

/* Reads primitive's extensions.KHR_draco_mesh_compression (out->present 0 when absent). base names the
 * primitive ("meshes[m].primitives[p]"). */
sf_result sfi_draco_parse(const struct cJSON* primitive, const char* base, size_t view_count,
                          sfi_draco_primitive* out, sf_error* err);

/* One accessor the Draco stream fills: count elements of ncomp components of the glTF componentType ctype,
 * written tightly packed to out. attribute: the Draco unique id, or SFI_DRACO_INDICES for the indices. */
#define SFI_DRACO_INDICES UINT32_MAX
typedef struct sfi_draco_target {
    uint32_t attribute;
    size_t accessor;  /* for messages */
    const char* name; /* "POSITION", "indices", ... for messages */
    size_t count, ncomp;
    uint32_t ctype;
    void* out;
} sfi_draco_target;

/* Decodes the stream (size bytes) and fills every target; the point count must equal each attribute
 * target's count and 3 x the face count the indices' count. base names the primitive. */
sf_result sfi_draco_decode(const uint8_t* data, size_t size, const sfi_draco_target* targets, size_t target_count,
                           const char* base, sf_error* err);

#endif

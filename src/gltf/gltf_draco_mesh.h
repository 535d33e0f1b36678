/* The C interface of gltf_draco.cpp, the wrapper over libdraco: only C types cross it and nothing throws
 * through it. */
#ifndef SF_GLTF_DRACO_MESH_H
#define SF_GLTF_DRACO_MESH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sfi_draco_mesh sfi_draco_mesh;
/* 0 and *out on success; otherwise a message in msg. */
int sfi_draco_mesh_decode(const uint8_t* data, size_t size, sfi_draco_mesh** out, char* msg, size_t msg_size);
size_t sfi_draco_mesh_points(const sfi_draco_mesh* m);
size_t sfi_draco_mesh_faces(const sfi_draco_mesh* m);
/* faces x 3 corner indices as 32-bit values. */
void sfi_draco_mesh_indices(const sfi_draco_mesh* m, uint32_t* out);
/* Attribute with unique id `id`, points x ncomp values converted to ctype (glTF componentType); 0 on success,
 * -1 no such attribute, -2 a component count other than ncomp, -3 a value the type cannot hold. */
int sfi_draco_mesh_attribute(const sfi_draco_mesh* m, uint32_t id, size_t ncomp, uint32_t ctype, void* out);
void sfi_draco_mesh_free(sfi_draco_mesh* m);

#ifdef __cplusplus
}
#endif

#endif

/* The page's WebAssembly exports (web/api.c): flat functions over integers, doubles and pointers into the
 * module's memory. Layouts of sfw_view_stats and sfw_view_table are in web/api.c and web/src/skinframe.js. */
#ifndef SKINFRAME_WEB_API_H
#define SKINFRAME_WEB_API_H

#include "api_layout.h"
#include "skinframe.h"

#include <stddef.h>
#include <stdint.h>

typedef struct sfw_view sfw_view;

const char* sfw_error_message(void);
char* sfw_scratch(size_t size);
void* sfw_alloc(size_t size);
void sfw_free(void* p);
const char* sfw_catalog_json(void);
void sfw_view_destroy(sfw_view* v);
sfw_view* sfw_scene_open(const char* name, const char* preset, char* settings);
int sfw_scene_repose(sfw_view* v, const char* name, const char* preset, char* settings);
sfw_view* sfw_mesh_create(size_t vertex_count, size_t triangle_count, uint32_t influence_count, size_t bone_count, size_t target_count, uint32_t flags);
void* sfw_mesh_array(sfw_view* v, int which, size_t k);
sfw_view* sfw_mesh_commit(sfw_view* v, int gltf);
int sfw_view_set_options(sfw_view* v, int morph_directions, int weighting, int weld, int tangents, int reference, double jacobian_cap);
int sfw_view_set_live(sfw_view* v, int live);
int sfw_view_set_all_methods(sfw_view* v, int all);
size_t sfw_view_vertex_count(const sfw_view* v);
size_t sfw_view_triangle_count(const sfw_view* v);
const uint32_t* sfw_view_indices(const sfw_view* v);
const float* sfw_view_uvs(const sfw_view* v);
const float* sfw_view_rest_positions(const sfw_view* v);
const float* sfw_view_rest_normals(const sfw_view* v);
const float* sfw_view_rest_tangents(const sfw_view* v);
int sfw_view_has_tangent_frame(const sfw_view* v);
/* Vertices of a caller's mesh that sfw_mesh_commit's MikkTSpace split copied (UVs and normals, no tangents). */
size_t sfw_view_split_vertices(const sfw_view* v);
size_t sfw_view_bone_count(const sfw_view* v);
size_t sfw_view_target_count(const sfw_view* v);
float* sfw_view_bones(sfw_view* v);
float* sfw_view_morph(sfw_view* v);
const float* sfw_view_frame(const sfw_view* v);
const float* sfw_view_bone_heads(const sfw_view* v);
const float* sfw_view_bone_tails(const sfw_view* v);
uint32_t sfw_view_influence_count(const sfw_view* v);
const uint32_t* sfw_view_joints(const sfw_view* v);
const float* sfw_view_weights(const sfw_view* v);
const float* sfw_view_target_deltas(const sfw_view* v, size_t k);
int sfw_view_uv_convention(const sfw_view* v);
const uint32_t* sfw_view_table(const sfw_view* v);
const uint32_t* sfw_view_gpu_buffers(sfw_view* v);
/* sfw_view_gpu_buffers' table of any topology (web/asset_draw.c's units too). */
#define SFW_GPU_TABLE_WORDS (1 + SFW_GPU_BUFFER_WORDS * SF_GPU_MAX_BUFFERS)
const uint32_t* sfw_gpu_table(const sf_topology* topo, uint32_t table[SFW_GPU_TABLE_WORDS]);
const double* sfw_view_stats(const sfw_view* v);
int sfw_view_run(sfw_view* v);
int sfw_view_deform(sfw_view* v, float* out);

/* web/asset_api.c: a whole glTF through the asset evaluation layer. */
typedef struct sfw_asset sfw_asset;
/* The module's one error (sfw_error_message) set from another file's failure. */
void sfw_set_error(int result, const char* message);
void sfw_asset_destroy(sfw_asset* a);
sfw_asset* sfw_asset_open(const void* data, size_t size, int morph_directions, int weighting, int weld, int tangents,
                          int reference, double jacobian_cap);
size_t sfw_asset_animation_count(const sfw_asset* a);
double sfw_asset_duration(const sfw_asset* a, size_t animation);
size_t sfw_asset_unit_count(const sfw_asset* a);
const uint32_t* sfw_asset_units(sfw_asset* a);
size_t sfw_asset_vertex_count(const sfw_asset* a);
size_t sfw_asset_tangent_vertex_count(const sfw_asset* a);
const double* sfw_asset_frame(sfw_asset* a, int animation, double time_s);
const double* sfw_asset_clip(sfw_asset* a, int animation, size_t* frames);

#endif

/* What web/asset_draw.c reads of an open sfw_asset (web/asset_api.c), and the drawn arrays' layout (mirrored in
 * web/src/asset_eval.js). */
#ifndef SKINFRAME_WEB_ASSET_API_H
#define SKINFRAME_WEB_ASSET_API_H

#include "api.h"
#include "skinframe_eval.h"

/* sfw_draw_array: per vertex, one array after the other. */
enum {
    SFW_DRAW_POSITIONS = 0,    /* 3 floats, the scene's space */
    SFW_DRAW_NORMALS = 1,      /* 3: the drawn method's */
    SFW_DRAW_TANGENTS = 2,     /* 4 */
    SFW_DRAW_REF_NORMALS = 3,  /* 3: the reference's */
    SFW_DRAW_REF_TANGENTS = 4, /* 4 */
    SFW_DRAW_NORMAL_DEG = 5,   /* 1: the method's normal against the reference's, degrees */
    SFW_DRAW_TANGENT_DEG = 6,  /* 1: 0 where the unit has no tangent frame */
    SFW_DRAW_ARRAYS = 7,
    /* after the frames, every default method's angles (the inspector's), by sf_method: method m's normal angles
     * at (17 + 2m) n floats, its tangent angles at (18 + 2m) n; the drawn method's two are the arrays above */
    SFW_DRAW_FLOATS = 17 + 2 * SF_METHOD_DEFAULT_COUNT,
    /* sfw_draw_unit_space: the method's and the reference's normals and tangents in each unit's own space */
    SFW_DRAW_UNIT_FLOATS = 3 + 4 + 3 + 4
};

typedef struct sfw_draw sfw_draw;

sf_asset_eval* sfw_asset_evaluation(sfw_asset* a);
/* sfw_asset_frame, each unit's arrays kept where on_unit points them (sf_asset_eval_frame_into): the table of that
 * moment, or NULL with the library's message. */
const double* sfw_asset_frame_into(sfw_asset* a, int animation, double time_s, sf_asset_unit_fn on_unit, void* user);
/* The row of the asset's evaluations that measures sf_method `method` (-1: none); whether the last table has it
 * measured (not skipped as unable to run on this asset). */
int sfw_asset_method_row(const sfw_asset* a, int method);
int sfw_asset_method_measured(const sfw_asset* a, int method);

/* web/asset_draw.c: every unit posed together for the views (sfw_draw_pose), arrays read after it. */
sfw_draw* sfw_draw_open(sfw_asset* a, int method);
void sfw_draw_destroy(sfw_draw* d);
/* The table of the moment sfw_draw_pose evaluated (sfw_asset_frame's layout). */
const double* sfw_draw_pose(sfw_draw* d, int animation, double time_s);
float* sfw_draw_array(sfw_draw* d, int which);
float* sfw_draw_angles(sfw_draw* d); /* 2 * SF_METHOD_DEFAULT_COUNT * n: every default method's, as above */
const uint32_t* sfw_draw_indices(const sfw_draw* d);
const uint32_t* sfw_draw_first(const sfw_draw* d);
size_t sfw_draw_vertex_count(const sfw_draw* d);
size_t sfw_draw_triangle_count(const sfw_draw* d);
int sfw_draw_tangent_frame(const sfw_draw* d);
const float* sfw_draw_unit_space(sfw_draw* d);
const uint32_t* sfw_draw_unit_gpu_buffers(sfw_draw* d, size_t i);
size_t sfw_draw_unit_bone_count(const sfw_draw* d, size_t i);
const float* sfw_draw_unit_bones(const sfw_draw* d, size_t i);
size_t sfw_draw_unit_target_count(const sfw_draw* d, size_t i);
const float* sfw_draw_unit_morph(const sfw_draw* d, size_t i);
const float* sfw_draw_unit_to_world(const sfw_draw* d, size_t i);
float sfw_draw_unit_bitangent_sign(const sfw_draw* d, size_t i);

#endif

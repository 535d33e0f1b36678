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
    SFW_DRAW_FLOATS = 19
};

typedef struct sfw_draw sfw_draw;

const sf_gltf* sfw_asset_gltf(const sfw_asset* a);
sf_asset_eval* sfw_asset_evaluation(sfw_asset* a);
/* The asset's reference and method options as an evaluation's (its methods left to the caller). */
void sfw_asset_eval_desc(const sfw_asset* a, sf_eval_desc* desc);

/* web/asset_draw.c: every unit posed together for the views (sfw_draw_pose), arrays read after it. */
sfw_draw* sfw_draw_open(sfw_asset* a, int method);
void sfw_draw_destroy(sfw_draw* d);
int sfw_draw_pose(sfw_draw* d, int animation, double time_s);
float* sfw_draw_array(sfw_draw* d, int which);
const uint32_t* sfw_draw_indices(const sfw_draw* d);
const uint32_t* sfw_draw_first(const sfw_draw* d);
size_t sfw_draw_vertex_count(const sfw_draw* d);
size_t sfw_draw_triangle_count(const sfw_draw* d);
int sfw_draw_tangent_frame(const sfw_draw* d);

#endif

/*
 * skinframe scenes: the article's built-in demo meshes (tip, sheet, ramp, elbow, strip), their parameters,
 * presets and morph targets, each built as an sf_mesh_desc and an sf_pose for the core.
 * Layer: depends on the core (skinframe.h) only. Library skinframe_scenes (CMake skinframe::scenes).
 */
#ifndef SKINFRAME_SCENES_H
#define SKINFRAME_SCENES_H

#include "skinframe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- built-in scenes */

typedef struct sf_scene_param_info {
    const char* name;
    double default_value, min_value, max_value;
    const char* unit;        /* "deg", "x", "quads", ... */
    const char* description;
} sf_scene_param_info;

typedef struct sf_scene_preset_info {
    const char* name;
    const char* description;
    const char* settings;    /* "twist=90" style list the preset applies, comma separated */
} sf_scene_preset_info;

typedef struct sf_scene_info {
    const char* name;
    const char* description;
    const sf_scene_param_info* params; size_t param_count;
    const sf_scene_preset_info* presets; size_t preset_count;
    const char* const* targets; size_t target_count; /* morph target names */
    sf_weighting reference_weighting; /* the article's reference weighting for this scene */
} sf_scene_info;

size_t sf_scene_count(void);
const sf_scene_info* sf_scene_info_at(size_t index);
const sf_scene_info* sf_scene_info_find(const char* name); /* NULL when unknown */

/* A name = value setting: a parameter or a morph target weight (in [-2, 2]). "resolution" (grid
 * density, a whole number) is listed among the params of every grid scene; the tip has none. */
typedef struct sf_scene_setting {
    const char* name;
    double value;
} sf_scene_setting;

/* A built scene: a mesh, a pose, and drawing hints. Everything is owned by the scene. */
typedef struct sf_scene {
    const sf_scene_info* info;
    sf_mesh_desc mesh;
    sf_pose pose;
    sf_weighting reference_weighting;
    size_t param_count;
    const char* const* param_names; /* param_count, scene params then morph weights, resolved values */
    const double* param_values;
    /* Rig drawing: posed joints as line segments head -> tail (float3 each), bone_count of them. */
    const float* bone_heads;
    const float* bone_tails;
    /* Camera hint: look-at target (float3) and a distance that frames the mesh. */
    float center[3];
    float radius;
} sf_scene;

/* Builds scene `name` with `preset` (NULL or "" = rest) and then the settings, in order.
 * Unknown names give SF_ERROR_UNKNOWN_NAME naming them; values outside [min, max] (or a fractional
 * resolution) SF_ERROR_INVALID_ARGUMENT; NaN or infinity SF_ERROR_NOT_FINITE. err.index is the setting's
 * index. The scene's rest normals and tangents equal the reference's at rest (zero error at rest). */
sf_result sf_scene_create(const char* name, const char* preset, const sf_scene_setting* settings,
                          size_t setting_count, const sf_env* env, sf_scene** out, sf_error* err);
void sf_scene_destroy(sf_scene* scene);

#ifdef __cplusplus
}
#endif

#endif /* SKINFRAME_SCENES_H */

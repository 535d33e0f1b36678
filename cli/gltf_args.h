/* Helpers shared by the glTF commands (info, eval, bake): loading with a one-line error, picking an
 * animation by name or index, names of interpolations and paths. */
#ifndef SF_CLI_GLTF_ARGS_H
#define SF_CLI_GLTF_ARGS_H

#include "cli.h"

/* Loads path; on failure prints "skinframe: PATH: JSON.path: message" and returns CLI_EXIT_FAILURE.
 * Tangents missing from the file are MikkTSpace tangents (as glTF recommends). */
int cli_gltf_load(const char* path, const sf_env* env, uint32_t texcoord, sf_gltf** out);
/* The same with the generation of missing tangents chosen (SF_TANGENTS_UV: the topology's UV tangents). */
int cli_gltf_load_tangents(const char* path, const sf_env* env, uint32_t texcoord, sf_tangent_mode generated,
                           sf_gltf** out);

/* "all" (or NULL) -> SF_GLTF_NONE; a name; or an index. Unknown: one-line error, CLI_EXIT_USAGE. */
int cli_gltf_pick_animation(const sf_gltf* gltf, const char* spec, size_t* out);

const char* cli_gltf_interpolation_name(sf_gltf_interpolation i);
const char* cli_gltf_path_name(sf_gltf_path p);

/* An animation's display name: its name, or "#INDEX" when unnamed (buf holds at least 32 bytes). */
const char* cli_gltf_animation_label(const sf_gltf* gltf, size_t index, char* buf, size_t size);

#endif

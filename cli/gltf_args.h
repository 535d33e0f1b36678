/* Helpers shared by the glTF commands (info, eval, bake): loading with a one-line error, picking an
 * animation by name or index, names of interpolations and paths. */
#ifndef SF_CLI_GLTF_ARGS_H
#define SF_CLI_GLTF_ARGS_H

#include "cli.h"
#include "scene_args.h"

/* Loads path; on failure prints "skinframe: PATH: JSON.path: message" and returns CLI_EXIT_FAILURE.
 * Tangents missing from the file are MikkTSpace tangents (as glTF recommends). */
int cli_gltf_load(const char* path, const sf_env* env, uint32_t texcoord, sf_gltf** out);
/* The same with the generation of missing tangents chosen (SF_TANGENTS_UV: the topology's UV tangents). */
int cli_gltf_load_tangents(const char* path, const sf_env* env, uint32_t texcoord, sf_tangent_mode generated,
                           sf_gltf** out);

/* "all" (or NULL) -> SF_GLTF_NONE; a name; or an index. Unknown: one-line error, CLI_EXIT_USAGE. */
int cli_gltf_pick_animation(const sf_gltf* gltf, const char* spec, size_t* out);

/* The shared method/reference flags of a glTF command (scene_args.h), remembering which reference
 * settings were given so cli_gltf_reference_defaults can fill the rest. */
typedef struct cli_gltf_flags {
    bool weld_given, tangents_given;
} cli_gltf_flags;

/* Tries argv[*i] as a shared flag; scene flags (--scene, --preset, --set, --morph) are refused with a
 * one-line error naming `command`. Returns 1 when consumed, 0 when not a shared flag, -1 after an error. */
int cli_gltf_parse_shared(cli_gltf_flags* flags, cli_scene_args* args, int argc, char** argv, int* i,
                          const char* command);
/* Real assets: the reference welds UV seams (position+normal) and uses MikkTSpace tangents unless the
 * command line said otherwise (DESIGN.md section 2). */
void cli_gltf_reference_defaults(const cli_gltf_flags* flags, cli_scene_args* args);

const char* cli_gltf_interpolation_name(sf_gltf_interpolation i);
const char* cli_gltf_path_name(sf_gltf_path p);

/* An animation's display name: its name, or "#INDEX" when unnamed (buf holds at least 32 bytes). */
const char* cli_gltf_animation_label(const sf_gltf* gltf, size_t index, char* buf, size_t size);

#endif

/* Helpers shared by the glTF commands (see gltf_args.h). */
#include "gltf_args.h"

#include <stdio.h>
#include <string.h>

int cli_gltf_load(const char* path, const sf_env* env, uint32_t texcoord, sf_gltf** out)
{
    return cli_gltf_load_tangents(path, env, texcoord, SF_TANGENTS_MIKKTSPACE, out);
}

int cli_gltf_load_tangents(const char* path, const sf_env* env, uint32_t texcoord, sf_tangent_mode generated,
                           sf_gltf** out)
{
    sf_gltf_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.texcoord = texcoord;
    opts.generated_tangents = generated;
    sf_error err;
    if (sf_gltf_load_file(path, &opts, env, out, &err) != SF_OK) return cli_fail(CLI_EXIT_FAILURE, "%s: %s", path, err.message);
    return CLI_EXIT_OK;
}

int cli_gltf_pick_animation(const sf_gltf* gltf, const char* spec, size_t* out)
{
    *out = SF_GLTF_NONE;
    if (!spec || strcmp(spec, "all") == 0) return CLI_EXIT_OK;
    for (size_t a = 0; a < gltf->animation_count; ++a)
        if (strcmp(gltf->animations[a].name, spec) == 0) {
            *out = a;
            return CLI_EXIT_OK;
        }
    size_t index;
    if (cli_parse_size(spec, 0, gltf->animation_count ? gltf->animation_count - 1 : 0, &index) &&
        gltf->animation_count) {
        *out = index;
        return CLI_EXIT_OK;
    }
    return cli_fail(CLI_EXIT_USAGE, "--animation: no animation '%s' (the file has %zu; give a name, an index or all)",
                    spec, gltf->animation_count);
}

const char* cli_gltf_interpolation_name(sf_gltf_interpolation i)
{
    return i == SF_GLTF_STEP ? "STEP" : i == SF_GLTF_CUBICSPLINE ? "CUBICSPLINE" : "LINEAR";
}

const char* cli_gltf_path_name(sf_gltf_path p)
{
    static const char* const names[] = {"translation", "rotation", "scale", "weights"};
    return (unsigned)p <= SF_GLTF_WEIGHTS ? names[p] : "?";
}

const char* cli_gltf_animation_label(const sf_gltf* gltf, size_t index, char* buf, size_t size)
{
    if (index < gltf->animation_count && gltf->animations[index].name[0])
        snprintf(buf, size, "%s", gltf->animations[index].name);
    else
        snprintf(buf, size, "#%zu", index);
    return buf;
}

int cli_gltf_parse_shared(cli_gltf_flags* flags, cli_scene_args* args, int argc, char** argv, int* i,
                          const char* command)
{
    const char* flag = argv[*i];
    bool weld = strncmp(flag, "--weld", 6) == 0, tangents = strncmp(flag, "--tangents", 10) == 0;
    int r = cli_scene_args_parse(args, argc, argv, i);
    if (r <= 0) return r;
    if (args->scene || args->preset || args->setting_count) {
        cli_fail(CLI_EXIT_USAGE, "%s: %s is for built-in scenes, not glTF files", command, flag);
        return -1;
    }
    flags->weld_given |= weld;
    flags->tangents_given |= tangents;
    return 1;
}

void cli_gltf_reference_defaults(const cli_gltf_flags* flags, cli_scene_args* args)
{
    if (!flags->weld_given) args->weld = SF_WELD_POSITION_NORMAL;
    if (!flags->tangents_given) args->tangents = SF_TANGENTS_MIKKTSPACE;
}

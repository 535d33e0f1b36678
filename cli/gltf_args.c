/* Helpers shared by the glTF commands (see gltf_args.h). */
#include "gltf_args.h"
#include "outputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The cost limits given on the command line (0 = the library's defaults); one command runs per process. */
static size_t g_max_vertices, g_max_morph_elements, g_max_decoded_bytes;
static bool g_texcoord_given; /* --texcoord N was given: the set must exist */

void cli_gltf_args_reset(void)
{
    g_max_vertices = g_max_morph_elements = g_max_decoded_bytes = 0;
    g_texcoord_given = false;
}

/* "TEXCOORD_0..TEXCOORD_2" or "no TEXCOORD set". */
static void texcoord_sets_text(uint32_t sets, char* buf, size_t size)
{
    if (sets == 0)
        snprintf(buf, size, "no TEXCOORD set");
    else if (sets == 1)
        snprintf(buf, size, "only TEXCOORD_0");
    else
        snprintf(buf, size, "TEXCOORD_0..TEXCOORD_%u", sets - 1);
}

int cli_gltf_load(const char* path, const sf_env* env, uint32_t texcoord, sf_tangent_mode generated,
                           sf_gltf** out)
{
    sf_gltf_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.texcoord = texcoord;
    opts.generated_tangents = generated;
    opts.max_vertices = g_max_vertices;
    opts.max_morph_elements = g_max_morph_elements;
    opts.max_decoded_bytes = g_max_decoded_bytes;
    sf_error err;
    if (sf_gltf_load_file(path, &opts, env, out, &err) != SF_OK) return cli_fail(CLI_EXIT_FAILURE, "%s: %s", path, err.message);
    const sf_gltf* g = *out;
    int code = cli_outputs_add_inputs(g->input_files, g->input_file_count); /* no output may replace them */
    for (size_t p = 0; code == CLI_EXIT_OK && g_texcoord_given && p < g->primitive_count; ++p) {
        const sf_gltf_primitive* pr = &g->primitives[p];
        if (pr->texcoord_sets > texcoord) continue;
        char sets[64];
        texcoord_sets_text(pr->texcoord_sets, sets, sizeof sets);
        code = cli_fail(CLI_EXIT_FAILURE, "%s: --texcoord %u: meshes[%zu].primitives[%zu] has %s", path, texcoord,
                        pr->mesh_index, pr->primitive_index, sets);
    }
    if (code != CLI_EXIT_OK) {
        sf_gltf_destroy(*out);
        *out = NULL;
    }
    return code;
}

int cli_gltf_pick_animation(const sf_gltf* gltf, const char* spec, bool allow_all, size_t* out)
{
    *out = SF_GLTF_NONE;
    if (!spec || (allow_all && strcmp(spec, "all") == 0)) return CLI_EXIT_OK;
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
    char names[256] = "";
    for (size_t a = 0; a < gltf->animation_count && strlen(names) + 8 < sizeof names; ++a) {
        char label[64];
        cli_gltf_animation_label(gltf, a, label, sizeof label);
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", a ? ", " : ": ", label);
    }
    char range[48] = "";
    if (gltf->animation_count) snprintf(range, sizeof range, ", an index 0..%zu", gltf->animation_count - 1);
    return cli_fail(CLI_EXIT_USAGE, "--animation: no animation '%s' (the file has %zu%s; give a name%s%s)", spec,
                    gltf->animation_count, names, range, allow_all ? " or all" : "");
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

int cli_gltf_parse_limits(int argc, char** argv, int* i)
{
    static const struct {
        const char* flag;
        size_t* value;
    } limits[] = {{"--max-vertices", &g_max_vertices},
                  {"--max-morph-elements", &g_max_morph_elements},
                  {"--max-decoded-bytes", &g_max_decoded_bytes}};
    for (size_t k = 0; k < sizeof limits / sizeof limits[0]; ++k) {
        const char* v;
        int r = cli_flag_value(argc, argv, i, limits[k].flag, &v);
        if (r == 0) continue;
        if (r < 0) return -1;
        if (cli_parse_size(v, 1, SIZE_MAX, limits[k].value)) return 1;
        cli_fail(CLI_EXIT_USAGE, "%s: '%s' is not a whole number >= 1", limits[k].flag, v);
        return -1;
    }
    return 0;
}

int cli_gltf_parse_counts(int argc, char** argv, int* i, size_t* texcoord, size_t* max_influences)
{
    const char* v;
    int r = cli_gltf_parse_limits(argc, argv, i);
    if (r != 0) return r;
    if ((r = cli_flag_value(argc, argv, i, "--texcoord", &v)) != 0) {
        if (r < 0) return -1;
        if (cli_parse_size(v, 0, 63, texcoord)) return g_texcoord_given = true, 1;
        cli_fail(CLI_EXIT_USAGE, "--texcoord: '%s' is not 0..63", v);
        return -1;
    }
    if (max_influences && (r = cli_flag_value(argc, argv, i, "--max-influences", &v)) != 0) {
        if (r < 0) return -1;
        if (cli_parse_size(v, 1, 1024, max_influences)) return 1;
        cli_fail(CLI_EXIT_USAGE, "--max-influences: '%s' is not 1..1024", v);
        return -1;
    }
    return 0;
}

void cli_gltf_frames_opts(const cli_scene_args* args, sf_frames_opts* reference, sf_frames_opts* methods)
{
    *reference = cli_scene_args_frames_opts(args, NULL);
    memset(methods, 0, sizeof *methods);
    methods->morph_directions = args->morph_directions;
    methods->jacobian_cap = args->jacobian_cap;
}

void cli_gltf_units_free(cli_gltf_unit* units, size_t count) { sf_asset_units_free(units, count); }

int cli_gltf_units_create(const char* path, const sf_gltf* gltf, uint32_t methods, sf_backend backend,
                          const sf_env* env, cli_gltf_unit** out, size_t* count)
{
    sf_error err;
    if (sf_asset_units_create(gltf, methods, backend, env, out, count, &err) == SF_OK) return CLI_EXIT_OK;
    if (strcmp(err.message, "out of memory") == 0) return cli_fail(CLI_EXIT_FAILURE, "out of memory");
    return cli_fail(CLI_EXIT_FAILURE, "%s: %s", path, err.message);
}

int cli_gltf_unit_pose(const sf_gltf_pose* pose, cli_gltf_unit* u, float* to_world)
{
    sf_error err;
    if (sf_asset_unit_pose(pose, u, to_world, &err) != SF_OK) return cli_fail(CLI_EXIT_FAILURE, "%s", err.message);
    return CLI_EXIT_OK;
}

int cli_gltf_unit_check(const char* path, const sf_gltf* gltf, const cli_gltf_unit* u, size_t animation, double time_s)
{
    sf_error err;
    if (sf_asset_unit_pose_check(gltf, u, animation, time_s, &err) != SF_OK)
        return cli_fail(CLI_EXIT_FAILURE, "%s: %s", path, err.message);
    return CLI_EXIT_OK;
}

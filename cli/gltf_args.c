/* Helpers shared by the glTF commands (see gltf_args.h). */
#include "gltf_args.h"
#include "outputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The cost limits given on the command line (0 = the library's defaults); one command runs per process. */
static size_t g_max_vertices, g_max_morph_elements, g_max_decoded_bytes;
static bool g_texcoord_given; /* --texcoord N was given: the set must exist */

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

void cli_gltf_units_free(cli_gltf_unit* units, size_t count)
{
    for (size_t i = 0; units && i < count; ++i) {
        sf_workspace_destroy(units[i].ws);
        sf_topology_destroy(units[i].topo);
        free(units[i].bones);
        free(units[i].morph);
    }
    free(units);
}

static int unit_create(const char* path, const sf_gltf* g, size_t instance, size_t primitive, uint32_t methods,
                       sf_backend backend, const sf_env* env, cli_gltf_unit* u)
{
    const sf_gltf_instance* in = &g->instances[instance];
    size_t targets = g->meshes[in->mesh].target_count;
    u->instance = instance;
    u->primitive = primitive;
    sf_mesh_desc desc;
    sf_error err;
    sf_topology_opts topts;
    memset(&topts, 0, sizeof topts);
    /* only the jacobian methods need them */
    topts.skip_gradients = !(methods & ((1u << SF_METHOD_JACOBIAN) | (1u << SF_METHOD_JACOBIAN_FAN)));
    sf_workspace_opts wopts = {methods | (1u << SF_METHOD_RECOMPUTE), backend}; /* the reference runs too */
    if (sf_gltf_instance_mesh(g, instance, primitive, &desc, &err) == SF_OK) {
        desc.zero_weight_policy = SF_ZERO_WEIGHTS_REST; /* counted as a data problem instead */
        if (sf_topology_create(&desc, &topts, env, &u->topo, &err) == SF_OK) sf_workspace_create(u->topo, &wopts, &u->ws, &err);
    }
    if (!u->ws) {
        sf_gltf_primitive_locate_error(g, primitive, &err); /* names the file's arrays, or generated ones */
        return cli_fail(CLI_EXIT_FAILURE, "%s: %s", path, err.message);
    }
    u->n = sf_topology_vertex_count(u->topo);
    u->tangents = sf_topology_has_tangent_frame(u->topo) != 0;
    u->bones = calloc(12 * in->bone_count, sizeof(float));
    u->morph = calloc(targets + 1, sizeof(float));
    if (!u->bones || !u->morph) return cli_fail(CLI_EXIT_FAILURE, "out of memory");
    u->pose.bone_matrices = u->bones;
    u->pose.bone_count = in->bone_count;
    u->pose.morph_weights = u->morph;
    u->pose.morph_weight_count = targets;
    return CLI_EXIT_OK;
}

int cli_gltf_units_create(const char* path, const sf_gltf* gltf, uint32_t methods, sf_backend backend,
                          const sf_env* env, cli_gltf_unit** out, size_t* count)
{
    *out = NULL;
    *count = 0;
    size_t total = 0;
    for (size_t i = 0; i < gltf->instance_count; ++i) total += gltf->meshes[gltf->instances[i].mesh].primitive_count;
    if (total == 0) {
        /* Nothing to evaluate is an error, not an empty result: say why. */
        char why[160];
        if (gltf->mesh_count == 0)
            snprintf(why, sizeof why, "the file has no meshes");
        else if (gltf->primitive_count == 0)
            snprintf(why, sizeof why, "its meshes have no triangle primitives (%zu POINTS/LINES skipped)",
                     gltf->skipped_primitives);
        else if (gltf->scene != SF_GLTF_NONE)
            snprintf(why, sizeof why, "scenes[%zu] draws no mesh (no node of it has one)", gltf->scene);
        else
            snprintf(why, sizeof why, "no node draws a mesh");
        return cli_fail(CLI_EXIT_FAILURE, "%s: nothing to evaluate: %s", path, why);
    }
    cli_gltf_unit* units = calloc(total, sizeof(cli_gltf_unit));
    if (!units) return cli_fail(CLI_EXIT_FAILURE, "out of memory");
    size_t k = 0;
    int code = CLI_EXIT_OK;
    for (size_t i = 0; code == CLI_EXIT_OK && i < gltf->instance_count; ++i) {
        const sf_gltf_mesh* m = &gltf->meshes[gltf->instances[i].mesh];
        for (size_t p = m->first_primitive; code == CLI_EXIT_OK && p < m->first_primitive + m->primitive_count; ++p)
            code = unit_create(path, gltf, i, p, methods, backend, env, &units[k++]);
    }
    if (code != CLI_EXIT_OK) {
        cli_gltf_units_free(units, k);
        return code;
    }
    *out = units;
    *count = k;
    return CLI_EXIT_OK;
}

int cli_gltf_unit_pose(const sf_gltf_pose* pose, cli_gltf_unit* u, float* to_world)
{
    sf_error err;
    if (sf_gltf_pose_instance(pose, u->instance, u->bones, u->morph, to_world, &err) != SF_OK)
        return cli_fail(CLI_EXIT_FAILURE, "instance %zu: %s", u->instance, err.message);
    return CLI_EXIT_OK;
}

int cli_gltf_unit_truncated(const char* path, const sf_gltf* g, const cli_gltf_unit* u, uint32_t max_influences,
                            uint32_t methods, const sf_env* env, sf_topology** topo, sf_workspace** ws,
                            size_t* truncated)
{
    *topo = NULL;
    *ws = NULL;
    *truncated = 0;
    if (max_influences == 0) return CLI_EXIT_OK;
    sf_mesh_desc desc;
    sf_error err;
    if (sf_gltf_instance_mesh(g, u->instance, u->primitive, &desc, &err) != SF_OK)
        return cli_fail(CLI_EXIT_FAILURE, "%s: %s", path, err.message);
    if (sf_influences_truncate(desc.vertex_count, desc.influence_count, desc.joints, desc.weights, max_influences,
                               NULL, NULL, truncated, &err) != SF_OK)
        return cli_fail(CLI_EXIT_FAILURE, "%s: primitive %zu: %s", path, u->primitive, err.message);
    if (*truncated == 0) return CLI_EXIT_OK;
    uint32_t kept = max_influences < desc.influence_count ? max_influences : desc.influence_count;
    uint32_t* joints = malloc((size_t)kept * desc.vertex_count * sizeof *joints);
    float* weights = malloc((size_t)kept * desc.vertex_count * sizeof *weights);
    int code = CLI_EXIT_OK;
    if (!joints || !weights) code = cli_fail(CLI_EXIT_FAILURE, "out of memory");
    if (code == CLI_EXIT_OK)
        sf_influences_truncate(desc.vertex_count, desc.influence_count, desc.joints, desc.weights, max_influences,
                               joints, weights, NULL, &err);
    if (code == CLI_EXIT_OK) {
        desc.influence_count = kept;
        desc.joints = joints;
        desc.weights = weights;
        desc.zero_weight_policy = SF_ZERO_WEIGHTS_REST;
        sf_topology_opts topts;
        memset(&topts, 0, sizeof topts);
        topts.skip_gradients = !(methods & (1u << SF_METHOD_JACOBIAN));
        sf_workspace_opts wopts = {methods | (1u << SF_METHOD_RECOMPUTE), SF_BACKEND_CPU};
        if (sf_topology_create(&desc, &topts, env, topo, &err) != SF_OK ||
            sf_workspace_create(*topo, &wopts, ws, &err) != SF_OK) {
            sf_topology_destroy(*topo);
            *topo = NULL;
            code = cli_fail(CLI_EXIT_FAILURE, "%s: primitive %zu kept to %u influences: %s", path, u->primitive,
                            (unsigned)max_influences, err.message);
        }
    }
    free(joints); /* the topology keeps its own copy */
    free(weights);
    return code;
}

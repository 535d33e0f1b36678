/* The skinframe command: a table of subcommands, `help`, and dispatch. Each subcommand lives in
 * cli/cmd_<name>.c and is declared in cli.h; add one line to the table below to register it. */
#include "cli.h"
#include "skinframe_gltf.h"

#include <string.h>

static const cli_command commands[] = {
    {"scenes", "list the built-in scenes, their parameters, presets and morph targets", cmd_scenes},
    {"compare", "every method's normal/tangent error against the reference on a scene", cmd_compare},
    {"demo", "compare over every scene, preset and morph target; one summary table", cmd_demo},
    {"render", "the article's four views (method, reference, error heatmaps) as PNG", cmd_render},
    {"plot", "error against a swept scene setting for every method, as a PNG line chart", cmd_plot},
    {"info", "what a glTF file holds: meshes, counts, attributes, skins, morph targets, animations, seams", cmd_info},
    {"eval", "every frame of a glTF's animations: each method's error against the reference", cmd_eval},
    {"bake", "a glTF posed at one time with one method's normals and tangents, as a static .glb", cmd_bake},
    {"fix", "a glTF with its authored data repaired (morph normals, weights, normals), with the error it buys", cmd_fix},
    {"export-gpu", "one mesh and pose in the shaders' buffer layout, with the library's results", cmd_export_gpu},
};

#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

static void usage(FILE* f)
{
    fprintf(f,
            "skinframe %d.%d.%d: normals and tangents of skinned and morphed meshes, every method against the\n"
            "reference rebuilt from the final triangles.\n\n"
            "Usage: skinframe COMMAND [FLAGS]     (skinframe COMMAND --help for its flags)\n\n"
            "Commands:\n",
            SF_VERSION_MAJOR, SF_VERSION_MINOR, SF_VERSION_PATCH);
    for (size_t k = 0; k < COMMAND_COUNT; ++k) fprintf(f, "  %-10s %s\n", commands[k].name, commands[k].summary);
    fprintf(f, "  %-10s %s\n", "help", "this text, or `help COMMAND` for a command's flags");
    fprintf(f, "\nExit status: 0 ok, 1 the work failed, 2 bad usage.\n");
}

static const cli_command* find_command(const char* name)
{
    for (size_t k = 0; k < COMMAND_COUNT; ++k)
        if (strcmp(commands[k].name, name) == 0) return &commands[k];
    return NULL;
}

static int unknown_command(const char* name)
{
    return cli_fail(CLI_EXIT_USAGE, "unknown command '%s' (see skinframe --help)", name);
}

int main(int argc, char** argv)
{
    if (argc < 2) return cli_fail(CLI_EXIT_USAGE, "missing command (see skinframe --help)");
    const char* name = argv[1];
    if (cli_is_help(name) || strcmp(name, "help") == 0) {
        if (strcmp(name, "help") == 0 && argc > 2) {
            const cli_command* c = find_command(argv[2]);
            if (!c) return unknown_command(argv[2]);
            char* help_argv[] = {(char*)c->name, (char*)"--help", NULL};
            return c->run(2, help_argv);
        }
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0) {
        printf("skinframe %d.%d.%d\n", SF_VERSION_MAJOR, SF_VERSION_MINOR, SF_VERSION_PATCH);
        printf("glTF decoders: %s\n", sf_gltf_decoders());
        return CLI_EXIT_OK;
    }
    const cli_command* c = find_command(name);
    if (!c) return unknown_command(name);
    int code = c->run(argc - 1, argv + 1);
    cli_env_shutdown();
    fflush(stdout);
    return code;
}

/* `skinframe render`: the article's four views (method shading, reference shading, normal and tangent
 * error heatmaps) of a built-in scene or a glTF file as PNG; --all-methods writes one per method plus a
 * contact sheet. `render --plot` is `skinframe plot`. */
#define _POSIX_C_SOURCE 200809L
#include "gltf_args.h"
#include "render.h"

#include <stdlib.h>
#include <string.h>

static void usage(FILE* f)
{
    fputs("Usage: skinframe render --scene NAME [--preset NAME] [--set k=v,...] [--morph target=w,...]\n"
          "                        --method NAME -o OUT.png [--size WxH] [--camera YAW,PITCH[,DISTANCE]]\n"
          "                        [--material lambert|flat|normal-map|normals] [--normal-map bumps|bricks]\n"
          "                        [--vectors] [--rig]\n"
          "       skinframe render ... --all-methods -o DIR      (one image per method and DIR/<case>_contact.png)\n"
          "       skinframe render --gltf FILE [--animation NAME|INDEX] [--time SECONDS] --method NAME -o OUT.png ...\n"
          "       skinframe render --plot ...                    (the same as skinframe plot)\n"
          "Draws the article's four views of one method against the reference (recompute): top-left the\n"
          "method's shading, top-right the reference's (same vertices and camera), bottom-left the normal\n"
          "error heatmap, bottom-right the tangent error heatmap (0 degrees green, 22.5 yellow, 45+ red),\n"
          "with a colour bar and the mean/max error.\n\n",
          f);
    cli_scene_args_usage(f);
    fputs("\nPicture flags:\n"
          "  -o, --out PATH                the PNG (one method: a .png name) or a folder (--all-methods, several\n"
          "                                methods: not a .png name); never a file that --gltf FILE reads or\n"
          "                                names; an existing file is replaced only when it is a PNG\n"
          "  --force                       replace an existing OUT.png that is not a PNG\n"
          "  --all-methods, --stage        every method (the article's Deformation stage control); with\n"
          "                                --morph the files are named <scene>_<preset>_<none|deltas>_...\n"
          "  --size WxH                    image size (default 1024x768)\n"
          "  --camera YAW,PITCH[,DIST]     orbit camera in degrees (default -35,30); without DIST the camera\n"
          "                                aims at the deformed mesh and backs off until it fits; +Y is up\n"
          "  --material NAME               lambert (default), flat (facets), normal-map (procedural map through\n"
          "                                the tangent frame: tangent errors show), normals (normal as colour)\n"
          "  --normal-map bumps|bricks     the procedural map of --material normal-map (default bumps)\n"
          "  --vectors                     normals (gold) and tangents (cyan) at vertices in the top views\n"
          "  --rig                         bones as lines with joint dots in the top views\n"
          "  --gltf FILE                   a glTF 2.0 file (.gltf/.glb) instead of a scene: every instance and\n"
          "                                primitive, posed, in world space; the reference uses --weighting/--weld/\n"
          "                                --tangents (default area, none, uv)\n"
          "  --animation NAME|INDEX        the animation to pose (default the first; all = rest pose)\n"
          "  --time SECONDS                time in the animation, >= 0 (default 0; clamped to its keys)\n"
          "  --max-vertices N, --max-morph-elements N, --max-decoded-bytes N\n"
          "                                raise the glTF loader's cost limits (see skinframe info --help)\n"
          "\nExample: skinframe render --scene sheet --preset bone-twist --method unchanged -o twist.png\n",
          f);
}


/* ---------------------------------------------------------------- the command */

/* render --plot ... is plot ...: drop the flag and hand over. *handled when argv holds --plot. */
static int plot_instead(int argc, char** argv, bool* handled)
{
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "--plot") == 0) {
            *handled = true;
            char** rest = malloc(sizeof(char*) * (size_t)argc);
            if (!rest) return cli_fail(CLI_EXIT_FAILURE, "out of memory");
            int n = 0;
            rest[n++] = (char*)"plot";
            for (int k = 1; k < argc; ++k)
                if (k != i) rest[n++] = argv[k];
            int code = cmd_plot(n, rest);
            free(rest);
            return code;
        }
    return CLI_EXIT_OK;
}

/* A built-in scene: one method's PNG, or with many every method's and the contact sheet in the folder out. */
static int render_scene(const cli_scene_args* args, const render_settings* rs, const char* out, bool many)
{
    sf_env env = cli_env();
    cli_run run;
    int code = cli_run_compare(args, &env, NULL, 0, true, &run);
    if (code == CLI_EXIT_OK) {
        cli_run_note_skipped(&run);
        char caption[256];
        render_caption(args, caption, sizeof caption);
        if (many) {
            char stem[160];
            bool morphs = false;
            for (size_t k = 0; k < args->setting_count; ++k) morphs |= args->setting_is_morph[k];
            /* With morphs the stage includes the morph directions: both runs can share a folder. */
            snprintf(stem, sizeof stem, "%s_%s%s%s", args->scene, args->preset ? args->preset : "rest",
                     morphs ? "_" : "", morphs ? cli_morph_directions_name(args->morph_directions) : "");
            size_t written = 0;
            code = render_run_images("-o", &run, rs, caption, out, stem, true, &written);
            if (code == CLI_EXIT_OK)
                printf("wrote %zu images: %s/%s_<method>.png and %s/%s_contact.png\n", written, out, stem, out, stem);
        } else {
            const cli_method_result* m = &run.methods[0];
            if (m->skipped) {
                code = cli_fail(CLI_EXIT_FAILURE, "render: %s: %s", sf_method_name(m->method), m->skip_reason);
            } else {
                sf_image img;
                sf_error_summary s;
                code = render_run_method(&run, m, rs, caption, &img, &s);
                if (code == CLI_EXIT_OK) {
                    code = render_write_png("-o", &img, out);
                    sf_image_free(&img, NULL);
                }
                if (code == CLI_EXIT_OK)
                    printf("wrote %s (%s: normal mean %.3f max %.3f deg)\n", out, sf_method_name(m->method),
                           s.normal.mean, s.normal.max);
            }
        }
    }
    cli_run_free(&run);
    return code;
}

int cmd_render(int argc, char** argv)
{
    bool plot = false;
    int plot_code = plot_instead(argc, argv, &plot);
    if (plot) return plot_code;
    cli_scene_args args;
    cli_scene_args_init(&args);
    render_settings rs;
    render_settings_init(&rs);
    const char* out = NULL;
    const char* gltf = NULL;
    const char* animation = NULL;
    double time_s = 0.0;
    bool all = false;
    cli_gltf_flags gltf_flags = {false, false};
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = NULL;
        int r;
        if (cli_is_help(a)) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        if ((r = cli_flag_switch(argv, i, "--all-methods")) != 0 || (r = cli_flag_switch(argv, i, "--stage")) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            all = true;
            continue;
        }
        if ((r = cli_outputs_parse_force(argv, i)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "-o", &v)) != 0 || (r = cli_flag_value(argc, argv, &i, "--out", &v)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            out = v;
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--gltf", &v)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            gltf = v;
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--animation", &v)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            animation = v;
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--time", &v)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            if (cli_parse_time("--time", v, &time_s) != CLI_EXIT_OK) return CLI_EXIT_USAGE;
            continue;
        }
        if ((r = cli_gltf_parse_limits(argc, argv, &i)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            continue;
        }
        r = render_settings_parse(&rs, argc, argv, &i);
        if (r < 0) return CLI_EXIT_USAGE;
        if (r > 0) continue;
        /* Scene flags and --gltf are checked against each other after the loop. */
        const char* flag = argv[i];
        r = cli_scene_args_parse(&args, argc, argv, &i);
        if (r < 0) return CLI_EXIT_USAGE;
        if (r > 0) {
            gltf_flags.weld_given |= strncmp(flag, "--weld", 6) == 0;
            gltf_flags.tangents_given |= strncmp(flag, "--tangents", 10) == 0;
            continue;
        }
        if (a[0] == '-') return cli_fail(CLI_EXIT_USAGE, "render: unknown flag '%s' (see skinframe render --help)", a);
        return cli_fail(CLI_EXIT_USAGE, "render: unexpected argument '%s'", a);
    }
    if (gltf && (args.scene || args.preset || args.setting_count))
        return cli_fail(CLI_EXIT_USAGE, "render: --gltf and --scene/--preset/--set/--morph do not mix");
    if (!gltf && !args.scene)
        return cli_fail(CLI_EXIT_USAGE, "render: --scene NAME or --gltf FILE is required (list: skinframe scenes)");
    if (!out) return cli_fail(CLI_EXIT_USAGE, "render: -o OUT.png (or a folder with --all-methods) is required");
    if (!all && !args.methods_given)
        return cli_fail(CLI_EXIT_USAGE, "render: --method NAME or --all-methods is required");
    /* One method: a .png file; several: a folder, which a .png name is not (outputs.h). */
    bool many = all || args.method_count > 1;
    if (!many && cli_output_name("-o", out, CLI_OUTPUT_PNG) != CLI_EXIT_OK) return CLI_EXIT_USAGE;
    if (many && !gltf && cli_output_folder("-o", out) != CLI_EXIT_OK) return CLI_EXIT_USAGE;
    if (!many && !gltf && cli_output_check("-o", out, CLI_OUTPUT_PNG) != CLI_EXIT_OK) return CLI_EXIT_USAGE;
    int code = gltf ? (cli_pool_start(args.threads) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAILURE) : cli_scene_args_finish(&args);
    if (code != CLI_EXIT_OK) return code;
    if (all) {
        args.method_count = 0;
        for (int m = 0; m < SF_METHOD_DEFAULT_COUNT; ++m) {
            args.method_on[m] = true;
            args.method_order[args.method_count++] = (sf_method)m;
        }
    }
    if (gltf) {
        cli_gltf_reference_defaults(&gltf_flags, &args);
        return render_gltf(gltf, animation, time_s, &args, &rs, out, many);
    }
    return render_scene(&args, &rs, out, many);
}

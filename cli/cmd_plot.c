/* `skinframe plot`: a parameter sweep as a PNG line chart: mean (solid) and max (dashed) normal and
 * tangent error against one scene setting, one colour per method. */
#define _POSIX_C_SOURCE 200809L
#include "render.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PLOT_MAX_STEPS 200

static void usage(FILE* f)
{
    fputs("Usage: skinframe plot --scene NAME [--preset NAME] [--set k=v,...] [--morph target=w,...]\n"
          "                      --sweep NAME=FROM:TO:STEPS -o OUT.png [--size WxH] [--method all|NAME,...]\n"
          "Runs every method at STEPS values of one setting (a scene parameter, a morph target weight or\n"
          "resolution) and draws the mean (solid) and max (dashed) angle to the reference against it: normals\n"
          "on the left, tangents on the right. Also prints the numbers as a table.\n\n",
          f);
    cli_scene_args_usage(f);
    fputs("\nPlot flags:\n"
          "  --sweep NAME=FROM:TO:STEPS    the setting and its range (STEPS 2..200 values)\n"
          "  -o, --out OUT.png             the chart (a .png name; an existing file is replaced only when it is\n"
          "                                a PNG)\n"
          "  --force                       replace an existing OUT.png that is not a PNG\n"
          "  --size WxH                    image size (default 1280x560)\n"
          "\nExample: skinframe plot --scene sheet --preset bone-twist --sweep twist=0:180:19 -o twist.png\n",
          f);
}

static void method_color(sf_method m, uint8_t rgb[3])
{
    static const uint8_t colors[SF_METHOD_COUNT][3] = {
        {110, 110, 118}, /* unchanged */
        {31, 119, 180},  /* skinned */
        {255, 127, 14},  /* inverse-transpose */
        {148, 103, 189}, /* jacobian */
        {44, 160, 44},   /* recompute */
        {23, 190, 207},  /* recompute-fused */
    };
    memcpy(rgb, colors[(int)m % SF_METHOD_COUNT], 3);
}

/* The numbers of a sweep: xs[step], ys[method][n.mean, n.max, t.mean, t.max][step]. */
typedef struct plot_data {
    const double *xs, *ys;
    size_t steps;
    bool frame; /* tangents measured: a second panel */
    const bool* skipped; /* per sf_method */
} plot_data;

/* The chart (normals, and tangents beside them) written as the PNG out. */
static int draw_chart(const cli_scene_args* args, const cli_sweep* sw, const char* unit, const plot_data* pd,
                      int width, int height, const char* out)
{
    const double *xs = pd->xs, *ys = pd->ys;
    size_t steps = pd->steps, mc = args->method_count;
    sf_image img;
    sf_error err;
    memset(&err, 0, sizeof err);
    if (sf_image_alloc(width, height, NULL, &img, &err) != SF_OK) return cli_fail(CLI_EXIT_FAILURE, "plot: %s", err.message);
    int code = CLI_EXIT_OK;
    int panels = pd->frame ? 2 : 1;
    for (int p = 0; p < panels && code == CLI_EXIT_OK; ++p) {
        sf_plot_series series[2 * SF_METHOD_COUNT];
        size_t ns = 0;
        for (size_t m = 0; m < mc; ++m) {
            sf_method id = args->method_order[m];
            if (pd->skipped[id]) continue;
            for (int q = 0; q < 2; ++q) {
                sf_plot_series* se = &series[ns++];
                memset(se, 0, sizeof *se);
                se->name = q == 0 ? sf_method_name(id) : NULL;
                se->x = xs;
                se->y = ys + (m * 4 + (size_t)(2 * p + q)) * steps;
                se->count = steps;
                se->dashed = q == 1;
                method_color(id, se->rgb);
            }
        }
        char title[160], xlabel[96];
        snprintf(title, sizeof title, "%s error: %s / %s", p == 0 ? "normal" : "tangent", args->scene,
                 args->preset ? args->preset : "rest");
        snprintf(xlabel, sizeof xlabel, "%s%s%s%s", sw->name, unit[0] ? " (" : "", unit, unit[0] ? ")" : "");
        sf_plot_desc d;
        memset(&d, 0, sizeof d);
        d.title = title;
        d.x_label = xlabel;
        d.y_label = "angle to the reference (deg)";
        d.note = "solid: mean, dashed: max";
        d.series = series;
        d.series_count = ns;
        int x0 = p * (width / panels), w = p + 1 == panels ? width - x0 : width / panels;
        if (sf_plot_render(&d, &img, x0, 0, w, height, &err) != SF_OK)
            code = cli_fail(CLI_EXIT_FAILURE, "plot: %s", err.message);
    }
    if (code == CLI_EXIT_OK) code = render_write_png("-o", &img, out);
    if (code == CLI_EXIT_OK) printf("wrote %s\n", out);
    sf_image_free(&img, NULL);
    return code;
}

int cmd_plot(int argc, char** argv)
{
    cli_scene_args args;
    cli_scene_args_init(&args);
    const char* out = NULL;
    cli_sweep sw;
    bool have_sweep = false;
    int width = 1280, height = 560;
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = NULL;
        int r;
        if (cli_is_help(a)) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        if ((r = cli_flag_value(argc, argv, &i, "-o", &v)) != 0 || (r = cli_flag_value(argc, argv, &i, "--out", &v)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            out = v;
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--sweep", &v)) != 0) {
            if (r < 0 || cli_sweep_parse(v, 2, PLOT_MAX_STEPS, &sw) != CLI_EXIT_OK) return CLI_EXIT_USAGE;
            have_sweep = true;
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--size", &v)) != 0) {
            if (r < 0 || render_parse_size(v, &width, &height) != CLI_EXIT_OK) return CLI_EXIT_USAGE;
            if (width < 320 || height < 200) return cli_fail(CLI_EXIT_USAGE, "--size: a plot needs at least 320x200");
            continue;
        }
        if ((r = cli_outputs_parse_force(argv, i)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            continue;
        }
        r = cli_scene_args_parse(&args, argc, argv, &i);
        if (r < 0) return CLI_EXIT_USAGE;
        if (r > 0) continue;
        if (a[0] == '-') return cli_fail(CLI_EXIT_USAGE, "plot: unknown flag '%s' (see skinframe plot --help)", a);
        return cli_fail(CLI_EXIT_USAGE, "plot: unexpected argument '%s'", a);
    }
    if (!args.scene) return cli_fail(CLI_EXIT_USAGE, "plot: --scene NAME is required (list: skinframe scenes)");
    if (!have_sweep) return cli_fail(CLI_EXIT_USAGE, "plot: --sweep NAME=FROM:TO:STEPS is required");
    if (!out) return cli_fail(CLI_EXIT_USAGE, "plot: -o OUT.png is required");
    if (cli_output_check("-o", out, CLI_OUTPUT_PNG) != CLI_EXIT_OK) return CLI_EXIT_USAGE;
    int code = cli_scene_args_finish(&args);
    if (code != CLI_EXIT_OK) return code;
    const char* unit = "";
    code = cli_sweep_check(&sw, sf_scene_info_find(args.scene), &unit);
    if (code != CLI_EXIT_OK) return code;

    size_t mc = args.method_count;
    size_t steps = sw.steps;
    double* xs = calloc(steps, sizeof(double));
    double* ys = calloc(4 * mc * steps, sizeof(double)); /* [method][n.mean, n.max, t.mean, t.max][step] */
    if (!xs || !ys) {
        free(xs);
        free(ys);
        return cli_fail(CLI_EXIT_FAILURE, "out of memory");
    }
    for (size_t k = 0; k < 4 * mc * steps; ++k) ys[k] = NAN;
    sf_env env = cli_env();
    bool frame = true, skipped[SF_METHOD_COUNT] = {false};
    printf("%-14s%-21s%9s%9s%9s%9s\n", sw.name, "method", "n.mean", "n.max", "t.mean", "t.max");
    for (size_t s = 0; s < steps && code == CLI_EXIT_OK; ++s) {
        double v = cli_sweep_value(&sw, s);
        xs[s] = v;
        cli_assignment extra;
        memset(&extra, 0, sizeof extra);
        snprintf(extra.name, sizeof extra.name, "%s", sw.name);
        extra.value = v;
        cli_run run;
        code = cli_run_compare(&args, &env, &extra, 1, false, &run);
        if (code == CLI_EXIT_OK) {
            cli_run_note_skipped(&run);
            frame = sf_topology_has_tangent_frame(run.topo) != 0;
            for (size_t m = 0; m < run.method_count; ++m) {
                const cli_method_result* r = &run.methods[m];
                if (r->skipped) {
                    skipped[r->method] = true;
                    continue;
                }
                double vals[4] = {r->summary.normal.mean, r->summary.normal.max, r->summary.tangent.mean,
                                  r->summary.tangent.max};
                for (int q = 0; q < 4; ++q) ys[(m * 4 + (size_t)q) * steps + s] = vals[q];
                printf("%-14g%-21s%9.3f%9.3f", v, sf_method_name(r->method), vals[0], vals[1]);
                if (frame)
                    printf("%9.3f%9.3f\n", vals[2], vals[3]);
                else
                    printf("%9s%9s\n", "-", "-");
            }
        }
        cli_run_free(&run);
    }
    if (code == CLI_EXIT_OK) {
        plot_data data = {xs, ys, steps, frame, skipped};
        code = draw_chart(&args, &sw, unit, &data, width, height, out);
    }
    free(xs);
    free(ys);
    return code;
}

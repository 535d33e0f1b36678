/* `skinframe compare`: every method against the reference on a built-in scene, as a table or JSON;
 * --sweep repeats it over a range of one setting, --dump writes the per-vertex data. */
#define _POSIX_C_SOURCE 200809L
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SWEEP_STEPS 1000

static void usage(FILE* f)
{
    fputs("Usage: skinframe compare --scene NAME [--preset NAME] [--set k=v,...] [--morph target=w,...]\n"
          "                         [--method all|NAME,...] [--json] [--sweep NAME=FROM:TO:STEPS] [--dump FILE.json]\n"
          "                         [--force]\n"
          "Computes each method's normals and tangents and their angles to the reference (recompute, with the\n"
          "scene's reference weighting unless --weighting is given). One row pair per method: normal and tangent\n"
          "mean, rms, p50, p95, max (degrees), % of vertices over 1/5/45 degrees, handedness mismatches, degenerate.\n\n",
          f);
    cli_scene_args_usage(f);
    fputs("\nOutput flags:\n"
          "  --json                        print JSON instead of the table\n"
          "  --sweep NAME=FROM:TO:STEPS    repeat for STEPS values of a parameter, a morph weight or resolution\n"
          "                                (resolution sweeps also print the mean normal error ratio per step)\n"
          "  --dump FILE.json              write per-vertex positions, indices, uvs, reference and method frames\n"
          "                                (atomically; replaces only an earlier dump unless --force)\n"
          "  --force                       replace an existing FILE.json that is not a dump\n"
          "\nExample: skinframe compare --scene sheet --preset bone-twist --set twist=90 --morph ripples=0.5\n",
          f);
}

static int run_single(const cli_scene_args* args, const sf_env* env, bool json, const char* dump)
{
    cli_run run;
    int code = cli_run_compare(args, env, NULL, 0, dump != NULL, &run);
    if (code == CLI_EXIT_OK) {
        cli_run_note_skipped(&run);
        if (json) {
            cJSON* o = report_json(&run);
            if (!report_print_json(stdout, o, true)) code = cli_fail(CLI_EXIT_FAILURE, "out of memory printing JSON");
            cJSON_Delete(o);
        } else {
            report_print_context(stdout, &run);
            report_print_table_head(stdout, NULL);
            report_print_table_rows(stdout, &run, NULL);
        }
        if (code == CLI_EXIT_OK && dump) {
            code = report_write_dump(dump, &run);
            if (code == CLI_EXIT_OK && !json) printf("wrote %s\n", dump);
        }
    }
    cli_run_free(&run);
    return code;
}

/* Resolution sweeps: mean normal error of step i over step i-1, per method (convergence order). */
static void print_ratios(FILE* f, const cli_sweep* sw, const cli_scene_args* args, const double* means)
{
    fprintf(f, "\nmean normal error ratio between consecutive resolutions (error at r_i / error at r_i-1):\n");
    fprintf(f, "%-14s", "resolution");
    for (size_t k = 0; k < args->method_count; ++k) fprintf(f, "%18s", sf_method_name(args->method_order[k]));
    fputc('\n', f);
    for (size_t i = 1; i < sw->steps; ++i) {
        char label[32];
        snprintf(label, sizeof label, "%g->%g", cli_sweep_value(sw, i - 1), cli_sweep_value(sw, i));
        fprintf(f, "%-14s", label);
        for (size_t k = 0; k < args->method_count; ++k) {
            double a = means[(i - 1) * SF_METHOD_COUNT + k], b = means[i * SF_METHOD_COUNT + k];
            if (isnan(a) || isnan(b) || a <= 0.0)
                fprintf(f, "%18s", "-");
            else
                fprintf(f, "%18.3f", b / a);
        }
        fputc('\n', f);
    }
}

static int run_sweep(const cli_scene_args* args, const sf_env* env, bool json, const cli_sweep* sw)
{
    bool resolution = strcmp(sw->name, "resolution") == 0;
    double* means = malloc(sw->steps * SF_METHOD_COUNT * sizeof(double));
    if (!means) return cli_fail(CLI_EXIT_FAILURE, "out of memory");
    cJSON* arr = json ? cJSON_CreateArray() : NULL;
    int code = CLI_EXIT_OK;
    for (size_t i = 0; i < sw->steps && code == CLI_EXIT_OK; ++i) {
        cli_assignment extra;
        snprintf(extra.name, sizeof extra.name, "%s", sw->name);
        extra.value = cli_sweep_value(sw, i);
        cli_run run;
        code = cli_run_compare(args, env, &extra, 1, false, &run);
        if (code == CLI_EXIT_OK) {
            cli_run_note_skipped(&run);
            for (size_t k = 0; k < args->method_count; ++k) {
                const cli_method_result* m = k < run.method_count ? &run.methods[k] : NULL;
                means[i * SF_METHOD_COUNT + k] = m && !m->skipped ? m->summary.normal.mean : NAN;
            }
            if (json) {
                cJSON* o = report_json(&run);
                cJSON* s = cJSON_AddObjectToObject(o, "sweep");
                cJSON_AddStringToObject(s, "name", sw->name);
                cJSON_AddNumberToObject(s, "value", extra.value);
                cJSON_AddNumberToObject(s, "index", (double)i);
                if (resolution && i > 0) {
                    /* methods[] lists the run (non-skipped) methods in order. */
                    cJSON* e = NULL;
                    size_t k = 0;
                    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(o, "methods"))
                    {
                        while (k < run.method_count && run.methods[k].skipped) ++k;
                        double a = means[(i - 1) * SF_METHOD_COUNT + k], b = means[i * SF_METHOD_COUNT + k];
                        if (!isnan(a) && !isnan(b) && a > 0.0)
                            cJSON_AddNumberToObject(e, "mean_normal_ratio", b / a);
                        else
                            cJSON_AddNullToObject(e, "mean_normal_ratio");
                        ++k;
                    }
                }
                cJSON_AddItemToArray(arr, o);
            } else {
                if (i == 0) {
                    report_print_context(stdout, &run);
                    printf("sweep: %s from %g to %g in %zu steps (params above: the first step)\n", sw->name, sw->from,
                           sw->to, sw->steps);
                    report_print_table_head(stdout, sw->name);
                }
                char lead[32];
                snprintf(lead, sizeof lead, "%g", extra.value);
                report_print_table_rows(stdout, &run, lead);
            }
        }
        cli_run_free(&run);
    }
    if (code == CLI_EXIT_OK) {
        if (json && !report_print_json(stdout, arr, true)) code = cli_fail(CLI_EXIT_FAILURE, "out of memory printing JSON");
        if (!json && resolution) print_ratios(stdout, sw, args, means);
    }
    cJSON_Delete(arr);
    free(means);
    return code;
}

int cmd_compare(int argc, char** argv)
{
    cli_scene_args args;
    cli_scene_args_init(&args);
    bool json = false;
    const char* dump = NULL;
    cli_sweep sweep;
    bool sweep_on = false;
    for (int i = 1; i < argc; ++i) {
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        int r = cli_scene_args_parse(&args, argc, argv, &i);
        if (r < 0) return CLI_EXIT_USAGE;
        if (r > 0) continue;
        const char* v = NULL;
        if ((r = cli_flag_switch(argv, i, "--json")) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            json = true;
        } else if ((r = cli_outputs_parse_force(argv, i)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
        } else if ((r = cli_flag_value(argc, argv, &i, "--sweep", &v)) != 0) {
            if (r < 0 || cli_sweep_parse(v, 1, MAX_SWEEP_STEPS, &sweep) != CLI_EXIT_OK) return CLI_EXIT_USAGE;
            sweep_on = true;
        } else if ((r = cli_flag_value(argc, argv, &i, "--dump", &v)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            dump = v;
        } else if (argv[i][0] == '-') {
            return cli_fail(CLI_EXIT_USAGE, "compare: unknown flag '%s' (see skinframe compare --help)", argv[i]);
        } else {
            return cli_fail(CLI_EXIT_USAGE, "compare: unexpected argument '%s'", argv[i]);
        }
    }
    if (sweep_on && dump) return cli_fail(CLI_EXIT_USAGE, "--dump cannot be combined with --sweep");
    if (dump && cli_output_check("--dump", dump, CLI_OUTPUT_DUMP_JSON) != CLI_EXIT_OK) return CLI_EXIT_USAGE;
    if (!args.scene) return cli_fail(CLI_EXIT_USAGE, "compare: --scene is required (see skinframe scenes)");
    int code = cli_scene_args_finish(&args);
    if (code != CLI_EXIT_OK) return code;
    if (sweep_on && (code = cli_sweep_check(&sweep, sf_scene_info_find(args.scene), NULL)) != CLI_EXIT_OK)
        return code;
    sf_env env = cli_env();
    return sweep_on ? run_sweep(&args, &env, json, &sweep) : run_single(&args, &env, json, dump);
}

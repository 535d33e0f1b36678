/* skinframe eval FILE|DIR...: the flags, then one asset's report (eval_asset.c) or, for several assets or a
 * folder, one summary row or JSON line per asset (eval_batch.c). */
#define _POSIX_C_SOURCE 200809L
#include "eval.h"
#include "outputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE* f)
{
    fprintf(f,
            "Usage: skinframe eval FILE|DIR... [--animation NAME|INDEX|all] [--fps 30] [--max-frames 100000]\n"
            "                      [--max-work 100000000]\n"
            "                      [--method all|NAME[,NAME]] [--morph-directions deltas|none|normals]\n"
            "                      [--weighting area|angle|uniform] [--weld none|position|position-normal]\n"
            "                      [--tangents uv|mikktspace] [--reference rebuilt|authored] [--jacobian-cap X]\n"
            "                      [--json] [--csv FILE.csv] [--force] [--strict] [--threads N] [--texcoord N]\n"
            "                      [--backend cpu|cuda]\n"
            "                      [--max-influences K] [--max-morph-targets K] [--engine NAME|all]\n"
            "                      [--max-vertices N] [--max-morph-elements N] [--max-decoded-bytes N]\n"
            "  Evaluates every frame (t = 0, 1/fps, 2/fps, ... and the animation's end) of each animation, for every\n"
            "  mesh instance of the scene (skinned meshes by their skin, others by their node transform), and prints\n"
            "  per method the normal and tangent error against the reference (recompute with the --weighting/--weld/\n"
            "  --tangents settings; for real assets the defaults are area, position-normal (UV seams welded, hard\n"
            "  edges kept) and mikktspace) over all frames and vertices: mean, p95, max, the rest-pose error beside it\n"
            "  (identity bones, no morph), the worst frame and the worst vertex. Data problems are listed apart;\n"
            "  --strict makes any of them exit with status 1. --csv writes per-frame rows (atomically; a .csv name,\n"
            "  never one of the files eval reads, replacing only a CSV that eval wrote unless --force); --json\n"
            "  prints JSON. --texcoord N must name a TEXCOORD set that every primitive has.\n"
            "  A file without animations is evaluated at its rest pose (the scene's node transforms).\n"
            "  Influences: the report counts the vertices with more than 4 and 8 influences and, where there are\n"
            "  some, what keeping 4 or 8 costs (positions, and the reference rebuilt from the kept deformation,\n"
            "  against the full one). --max-influences K keeps each vertex's K largest weights (renormalised; also\n"
            "  the limit of the data problems, 4 by default), --max-morph-targets K the K largest morph weights, and\n"
            "  measures every method so deformed against the full deformation: directions, and the position error\n"
            "  in mesh units and as a share of the posed bounding-box diagonal. --engine NAME measures what that\n"
            "  engine does by default (normal method, influences, morph targets, morph normals and tangents, where\n"
            "  tangents come from; docs/engines.md cites each); --engine all one row per engine, then the best method\n"
            "  for the asset at each cost level. Engines: %s. In a batch each asset's row is followed by its table.\n"
            "  Percentiles come from a histogram (within 0.001 degree; docs/eval.md); memory does not grow with the\n"
            "  frames. --max-frames N refuses an animation that needs more than N frames (default 100000);\n"
            "  --max-work N an asset whose frames over all its clips times the vertices of all its instances (at\n"
            "  least 1000 a frame) pass N vertex-frames (default 100000000), before any work.\n"
            "  Several FILEs or a DIR (every .gltf/.glb under it, sorted): one row per asset and animation with the\n"
            "  mean normal/tangent error per method, or with --json one compact JSON object per asset and line; an\n"
            "  asset that fails prints its error and the rest still run (exit status 1 if any failed).\n"
            "  --max-vertices N, --max-morph-elements N and --max-decoded-bytes N raise the loader's limits on what\n"
            "  the file may cost, checked before anything is decoded (defaults: 16777216 vertices per primitive,\n"
            "  67108864 morph target x vertex elements per primitive, 64 MiB + 64 x the input's size decoded, of\n"
            "  which the parsed JSON at most 64 MiB + 16 x its text).\n"
            "  --backend cuda runs the frames on an NVIDIA GPU (a build with -DSF_WITH_CUDA=ON; docs/cuda.md).\n",
            sf_engine_names());
}

/* "FILE" for one asset; "DIR" or several arguments make a batch. */
static bool is_batch(char** paths, size_t count) { return count > 1 || (count == 1 && sf_asset_path_is_dir(paths[0])); }

/* The flags into o and flags, every FILE or DIR into paths. CLI exit status; *help when --help was printed. */
static int parse_flags(int argc, char** argv, eval_opts* o, cli_gltf_flags* flags, char** paths, size_t* path_count,
                       const char** csv_path, bool* help)
{
    int code = CLI_EXIT_OK;
    for (int i = 1; i < argc && code == CLI_EXIT_OK; ++i) {
        const char* v = NULL;
        int r;
        if (cli_is_help(argv[i])) {
            usage(stdout);
            *help = true;
            return CLI_EXIT_OK;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--animation", &v)) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
            o->anim_spec = v;
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--fps", &v)) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
            else if (!cli_parse_double(v, &o->fps) || !(o->fps > 0.0) || o->fps > 10000.0)
                code = cli_fail(CLI_EXIT_USAGE, "--fps: '%s' is not a number in (0, 10000]", v);
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--max-frames", &v)) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
            else if (!cli_parse_size(v, 1, (size_t)1 << 40, &o->max_frames))
                code = cli_fail(CLI_EXIT_USAGE, "--max-frames: '%s' is not a whole number in [1, 2^40]", v);
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--max-work", &v)) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
            else if (!cli_parse_size(v, 1, SIZE_MAX, &o->max_work))
                code = cli_fail(CLI_EXIT_USAGE, "--max-work: '%s' is not a whole number >= 1", v);
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--csv", &v)) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
            *csv_path = v;
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--max-influences", &v)) != 0) {
            size_t k = 0;
            if (r < 0) code = CLI_EXIT_USAGE;
            else if (!cli_parse_size(v, 1, 1024, &k))
                code = cli_fail(CLI_EXIT_USAGE, "--max-influences: '%s' is not 1..1024", v);
            o->limit = k;
            o->max_influences = (uint32_t)k;
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--max-morph-targets", &v)) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
            else if (!cli_parse_size(v, 1, (size_t)1 << 20, &o->max_morph_targets))
                code = cli_fail(CLI_EXIT_USAGE, "--max-morph-targets: '%s' is not 1..1048576", v);
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--engine", &v)) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
            else if (strcmp(v, "all") == 0) o->all_engines = true;
            else if (!(o->engine = sf_engine_find(v)))
                code = cli_fail(CLI_EXIT_USAGE, "--engine: unknown engine '%s' (known: %s, or all)", v,
                                sf_engine_names());
            continue;
        }
        if ((r = cli_gltf_parse_counts(argc, argv, &i, &o->texcoord, &o->limit)) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
            continue;
        }
        if ((r = cli_flag_switch(argv, i, "--json")) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
            o->json = true;
            continue;
        }
        if ((r = cli_flag_switch(argv, i, "--strict")) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
            o->strict = true;
            continue;
        }
        if ((r = cli_outputs_parse_force(argv, i)) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
            continue;
        }
        r = cli_gltf_parse_shared(flags, &o->args, argc, argv, &i, "eval");
        if (r < 0) code = CLI_EXIT_USAGE;
        if (r != 0) continue;
        if (argv[i][0] == '-' && argv[i][1])
            code = cli_fail(CLI_EXIT_USAGE, "eval: unknown flag %s", argv[i]);
        else
            paths[(*path_count)++] = argv[i];
    }
    return code;
}

int cmd_eval(int argc, char** argv)
{
    eval_opts o;
    memset(&o, 0, sizeof o);
    cli_scene_args_init(&o.args);
    cli_gltf_flags flags = {false, false};
    o.fps = 30.0;
    o.max_frames = EVAL_DEFAULT_MAX_FRAMES;
    o.max_work = EVAL_DEFAULT_MAX_WORK;
    o.limit = 4;
    const char* csv_path = NULL;
    char** paths = calloc((size_t)argc + 1, sizeof *paths);
    size_t path_count = 0;
    if (!paths) return cli_fail(CLI_EXIT_FAILURE, "out of memory");
    bool help = false;
    int code = parse_flags(argc, argv, &o, &flags, paths, &path_count, &csv_path, &help);
    if (help) {
        free(paths);
        return CLI_EXIT_OK;
    }
    if (code == CLI_EXIT_OK && path_count == 0)
        code = cli_fail(CLI_EXIT_USAGE, "eval: missing FILE or DIR (see skinframe eval --help)");
    if (code == CLI_EXIT_OK && csv_path) code = cli_output_name("--csv", csv_path, CLI_OUTPUT_EVAL_CSV);
    if (code != CLI_EXIT_OK) {
        free(paths);
        return code;
    }
    cli_gltf_reference_defaults(&flags, &o.args);
    o.batch = is_batch(paths, path_count);
    o.progress = !o.json && isatty(fileno(stderr));
    sf_asset_paths list;
    memset(&list, 0, sizeof list);
    size_t failed = 0;
    if (o.batch) {
        code = eval_paths_collect(paths, path_count, o.json, &list, &failed);
        if (code == CLI_EXIT_OK && list.count == 0 && failed == 0)
            code = cli_fail(CLI_EXIT_FAILURE, "eval: no .gltf or .glb files in %s%s", paths[0], path_count > 1 ? " ..." : "");
        if (code == CLI_EXIT_FAILURE && failed) code = CLI_EXIT_OK; /* counted: the others still run */
    }
    if (code == CLI_EXIT_OK && cli_pool_start(o.args.threads) != 0)
        code = cli_fail(CLI_EXIT_FAILURE, "eval: cannot start threads");
    /* Rows go to a temporary file that replaces csv_path only when the work is done: an old CSV is never left
     * half-overwritten by a run that fails. The assets named are inputs from the start; the buffers they name
     * are known once loaded, so the check runs again before the CSV replaces anything. */
    sf_file_writer* csv = NULL;
    if (code == CLI_EXIT_OK && csv_path) {
        code = o.batch ? cli_outputs_add_inputs((const char* const*)list.items, list.count)
                       : cli_outputs_add_inputs((const char* const*)paths, path_count);
        if (code == CLI_EXIT_OK) code = cli_output_open("--csv", csv_path, CLI_OUTPUT_EVAL_CSV, &csv);
        o.csv = sf_file_writer_stream(csv);
        if (o.csv) fprintf(o.csv, "%s%s\n", o.batch ? "file," : "", CLI_EVAL_CSV_HEADER);
    }
    bool done = false; /* the report is complete (also when --strict then fails) */
    if (code == CLI_EXIT_OK) {
        if (o.batch) {
            code = eval_batch_run(&o, &list, failed);
            done = true;
        } else {
            code = eval_asset(&o, paths[0], &done);
        }
    }
    int csv_code = csv && done ? cli_output_check("--csv", csv_path, CLI_OUTPUT_EVAL_CSV) : CLI_EXIT_FAILURE;
    if (csv_code == CLI_EXIT_OK) {
        csv_code = cli_output_commit("--csv", csv);
        if (code == CLI_EXIT_OK) code = csv_code;
    } else {
        if (csv && done && code == CLI_EXIT_OK) code = csv_code;
        sf_file_writer_abort(csv);
    }
    sf_asset_paths_free(&list);
    free(paths);
    return code;
}

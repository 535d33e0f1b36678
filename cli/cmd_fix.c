/* skinframe fix: flags and the choice between one asset and a batch; the work is the library's
 * (skinframe_fix.h), the printing fix_report.c's. */
#include "fix.h"
#include "outputs.h"

#include <stdlib.h>
#include <string.h>

static void usage(FILE* f)
{
    fprintf(f,
            "Usage: skinframe fix IN.glb|IN.gltf -o OUT.glb|OUT.gltf [--force] [--json]\n"
            "       skinframe fix FILE|DIR... -o DIR [...]\n"
            "                     [--no-morph-normals] [--no-weights] [--no-normals] [--no-tangents]\n"
            "                     [--max-influences K] [--no-measure] [--fps 30] [--embed jacobian-fan [--embed-float]]\n"
            "                     [--compress meshopt]\n"
            "  Writes the asset with its authored data repaired and everything else kept (nodes, materials,\n"
            "  images, animations, extensions, extras; accessors not repaired byte for byte). Repairs, each on by\n"
            "  default: morph target NORMAL/TANGENT deltas rebuilt from each target's geometry as the reference\n"
            "  rebuilds it (exact at the target's full weight; targets without normal deltas get them); skinning\n"
            "  weights over every set renormalised, duplicate joints merged, influences sorted, zero-weight slots\n"
            "  cleared (vertices whose weights sum to zero are reported, not guessed); NORMAL made unit (zero ones\n"
            "  rebuilt from the faces); TANGENT w snapped to +-1, and a normal-mapped primitive without TANGENT\n"
            "  given MikkTSpace's (when no vertex needs splitting). --max-influences K keeps each vertex's K largest\n"
            "  weights. The report counts each repair and gives, before and after, the mean and p95 normal and\n"
            "  tangent error of `skinned` with morph deltas against the reference (area, position-normal weld,\n"
            "  MikkTSpace) with each target at 1 and at 0.5, every target at 1, and over each animation (--fps).\n"
            "  Fixing a fixed file changes nothing. Outputs follow docs/cli.md: atomic, never an input, an existing\n"
            "  file replaced only when skinframe wrote it (or --force); a .gltf output gets its buffers and images\n"
            "  beside it. Several inputs or a folder need -o DIR: each asset is written there under its own name\n"
            "  (one JSON line per asset with --json; exit status 1 if any failed). docs/fix.md says what is repaired.\n"
            "  --embed jacobian-fan adds, after the repairs, the per-vertex coefficients of jacobian-fan as attributes\n"
            "  (_SKINFRAME_FAN_*, snorm16 with scales; --embed-float: float) to every triangle primitive with NORMAL,\n"
            "  for the vertex-shader functions of shaders/ and web/three/ (docs/embedded.md).\n"
            "  Meshopt- or Draco-compressed input is decompressed and written uncompressed; --compress meshopt writes\n"
            "  the vertex and index bufferViews with EXT_meshopt_compression instead (no filters: they decode to the\n"
            "  uncompressed bytes; needs a build with SF_WITH_MESHOPT).\n");
}

/* A switch that turns a repair off: 1 matched, 0 not, -1 error. */
static int repair_switch(char** argv, int i, fix_args* a)
{
    static const char* const names[] = {"--no-morph-normals", "--no-weights", "--no-normals", "--no-tangents",
                                        "--no-measure"};
    bool* fields[] = {&a->opts.morph_normals, &a->opts.weights, &a->opts.normals, &a->opts.tangents, &a->measure};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
        int r = cli_flag_switch(argv, i, names[k]);
        if (r > 0) *fields[k] = false;
        if (r != 0) return r;
    }
    return 0;
}

static int parse(int argc, char** argv, fix_args* a, char** paths, size_t* count, bool* help)
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
        if ((r = cli_flag_value(argc, argv, &i, "-o", &v)) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
            a->out = v;
        } else if ((r = cli_flag_value(argc, argv, &i, "--max-influences", &v)) != 0) {
            size_t k = 0;
            if (r < 0) code = CLI_EXIT_USAGE;
            else if (!cli_parse_size(v, 1, 1024, &k)) code = cli_fail(CLI_EXIT_USAGE, "--max-influences: '%s' is not 1..1024", v);
            a->opts.max_influences = (uint32_t)k;
        } else if ((r = cli_flag_value(argc, argv, &i, "--fps", &v)) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
            else if (!cli_parse_double(v, &a->fps) || !(a->fps > 0.0) || a->fps > 10000.0)
                code = cli_fail(CLI_EXIT_USAGE, "--fps: '%s' is not a number in (0, 10000]", v);
        } else if ((r = cli_flag_value(argc, argv, &i, "--embed", &v)) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
            else if (strcmp(v, "jacobian-fan") != 0) code = cli_fail(CLI_EXIT_USAGE, "--embed: '%s', only jacobian-fan", v);
            a->embed = true;
        } else if ((r = cli_flag_value(argc, argv, &i, "--compress", &v)) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
            else if (strcmp(v, "meshopt") != 0) code = cli_fail(CLI_EXIT_USAGE, "--compress: '%s', only meshopt", v);
            else if (!sf_gltf_doc_can_compress())
                code = cli_fail(CLI_EXIT_USAGE, "--compress meshopt: this build has no meshopt encoder (configure with "
                                "SF_WITH_MESHOPT=ON and Debian's libmeshoptimizer-dev)");
            a->compress = true;
        } else if ((r = cli_flag_switch(argv, i, "--embed-float")) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
            a->embed_float = true;
        } else if ((r = cli_flag_switch(argv, i, "--json")) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
            a->json = true;
        } else if ((r = repair_switch(argv, i, a)) != 0 || (r = cli_outputs_parse_force(argv, i)) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            code = cli_fail(CLI_EXIT_USAGE, "fix: unknown flag %s", argv[i]);
        } else {
            paths[(*count)++] = argv[i];
        }
    }
    return code;
}

int cmd_fix(int argc, char** argv)
{
    fix_args a;
    memset(&a, 0, sizeof a);
    sf_fix_opts_init(&a.opts);
    a.measure = true;
    a.fps = 30.0;
    char** paths = calloc((size_t)argc + 1, sizeof *paths);
    size_t count = 0;
    if (!paths) return cli_fail(CLI_EXIT_FAILURE, "out of memory");
    bool help = false;
    int code = parse(argc, argv, &a, paths, &count, &help);
    if (code == CLI_EXIT_OK && !help && count == 0)
        code = cli_fail(CLI_EXIT_USAGE, "fix: missing IN (see skinframe fix --help)");
    if (code == CLI_EXIT_OK && !help && !a.out) code = cli_fail(CLI_EXIT_USAGE, "fix: missing -o OUT");
    if (code == CLI_EXIT_OK && !help && a.embed_float && !a.embed)
        code = cli_fail(CLI_EXIT_USAGE, "fix: --embed-float without --embed jacobian-fan");
    bool batch = count > 1 || (count == 1 && sf_asset_path_is_dir(paths[0]));
    if (code == CLI_EXIT_OK && !help && !batch) {
        bool gltf = cli_ends_with(a.out, ".gltf");
        code = cli_output_name("-o", a.out, gltf ? CLI_OUTPUT_GLTF : CLI_OUTPUT_GLB);
        fix_outcome res;
        if (code == CLI_EXIT_OK) code = fix_one(&a, paths[0], a.out, &res);
        if (code == CLI_EXIT_OK) a.json ? fix_print_json(&a, &res) : fix_print_text(&a, &res);
    } else if (code == CLI_EXIT_OK && !help) {
        code = fix_batch(&a, paths, count);
    }
    free(paths);
    return code;
}

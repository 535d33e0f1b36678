/* skinframe export-gpu: a mesh's topology in the layout the shaders read (sf_topology_gpu_buffers), one pose
 * (bones, morph weights), and what the library computes at that pose for every method, as raw little-endian
 * buffers plus layout.json describing them. What shaders/ and the Vulkan check (tests/vulkan) read. */
#define _POSIX_C_SOURCE 200809L
#include "gltf_args.h"
#include "outputs.h"
#include "scene_args.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXPORT_FORMAT "skinframe-gpu 1"

static void usage(FILE* f)
{
    fprintf(f, "Usage: skinframe export-gpu FILE -o DIR [--animation NAME|INDEX] [--time T] [--unit N] [--force]\n"
               "                        [--max-vertices N] [--max-morph-elements N] [--max-decoded-bytes N]\n"
               "       skinframe export-gpu --scene NAME [--preset P] [--set k=v] [--morph t=w] -o DIR [--force]\n"
               "  Writes the topology of one mesh (a glTF's primitive instance N, default 0, posed at T seconds of the\n"
               "  animation, default its first at 0; or a built-in scene) as the shaders in shaders/ read it: one .bin\n"
               "  per buffer (packed little-endian f32 or u32: positions, normals, tangents, UVs, indices, joints,\n"
               "  weights, morph deltas per vertex, vertex -> corner adjacency, the gradients of jacobian and\n"
               "  jacobian-fan), the pose (bones.bin: 12 floats per bone, column-major 3x4; morph_weights.bin),\n"
               "  params.bin (u32 counts for programs: see layout.json), and the library's results at that pose\n"
               "  (expected_<method>_normals.bin, _tangents.bin, expected_positions.bin; recompute with area\n"
               "  weighting, no weld, UV tangents: what the gather shader computes). layout.json describes every\n"
               "  file. DIR is created; it must be empty or hold an earlier export (or --force); no file in it that the\n"
               "  command reads is replaced, even with --force. The files are written into a new folder that takes\n"
               "  DIR's place only when all are written (other files in DIR are kept).\n"
               "  --max-vertices N, --max-morph-elements N and --max-decoded-bytes N raise the loader's limits on what\n"
               "  the file may cost, as for info, eval and bake.\n");
}

typedef struct export_ctx {
    const char* dir;   /* where the files are written: the stage */
    const char* final; /* -o DIR, which the stage becomes when every file is written */
    cJSON* files;      /* name -> description */
    int code;
} export_ctx;

/* DIR/name may not be an input (by the file itself or its resolved path), even with --force. */
static int check_not_input(export_ctx* x, const char* name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", x->final, name);
    return cli_output_not_input("-o", path);
}

static void write_buffer(export_ctx* x, const char* name, const char* what, const char* type, size_t count,
                         uint32_t components, const void* data)
{
    if (x->code != CLI_EXIT_OK) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.bin", x->dir, name);
    if ((x->code = check_not_input(x, strrchr(path, '/') + 1)) != CLI_EXIT_OK) return;
    size_t bytes = count * components * 4;
    sf_error err;
    if (sf_file_write_atomic(path, bytes ? data : "", bytes, &err) != SF_OK) {
        x->code = cli_fail(CLI_EXIT_FAILURE, "export-gpu: %s", err.message);
        return;
    }
    cJSON* o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", strrchr(path, '/') + 1);
    cJSON_AddStringToObject(o, "type", type);
    cJSON_AddNumberToObject(o, "count", (double)count);
    cJSON_AddNumberToObject(o, "components", components);
    cJSON_AddNumberToObject(o, "bytes", (double)bytes);
    cJSON_AddStringToObject(o, "description", what);
    cJSON_AddItemToObject(x->files, name, o);
}

/* DIR empty, absent, or an earlier export (its layout.json says so). */
static int check_dir(const char* dir, bool force)
{
    DIR* d = opendir(dir);
    if (!d) return cli_output_folder("-o", dir); /* not a file name, not an input; created */
    size_t entries = 0;
    struct dirent* e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) entries++;
    closedir(d);
    if (entries == 0 || force) return CLI_EXIT_OK;
    char path[4096];
    snprintf(path, sizeof path, "%s/layout.json", dir);
    size_t size = 0;
    void* text = NULL;
    sf_error err;
    sf_file_read_opts ro = {NULL, 1 << 24};
    bool ours = sf_file_read(path, &ro, NULL, &text, &size, &err) == SF_OK &&
                strstr((const char*)text, "\"" EXPORT_FORMAT "\"") != NULL;
    sf_file_free(NULL, text);
    if (!ours)
        return cli_fail(CLI_EXIT_FAILURE, "-o: %s is not empty and holds no earlier export (--force to write there)",
                        dir);
    return CLI_EXIT_OK;
}

/* The library's frames at pose for every method. */
static void write_expected(export_ctx* x, const sf_topology* topo, const sf_pose* pose, cJSON* root)
{
    if (x->code != CLI_EXIT_OK) return;
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.flags = SF_EVAL_KEEP_FRAMES; /* reference: area weighting, no weld, UV tangents, rebuilt (the zeros) */
    sf_evaluation* ev = NULL;
    sf_workspace* ws = NULL;
    sf_error err;
    if (sf_evaluation_create(topo, &desc, NULL, &ev, &err) != SF_OK || sf_workspace_create(topo, NULL, &ws, &err) != SF_OK ||
        sf_evaluation_run(ev, pose, ws, NULL, &err) != SF_OK) {
        x->code = cli_fail(CLI_EXIT_FAILURE, "export-gpu: %s", err.message);
    } else {
        const sf_eval_results* res = sf_evaluation_results(ev);
        size_t n = res->vertex_count;
        write_buffer(x, "expected_positions", "the library's final positions xyz", "f32", n, 3, res->positions);
        cJSON* exp = cJSON_AddObjectToObject(root, "expected");
        for (size_t k = 0; k < res->row_count; ++k) {
            const sf_eval_row* row = &res->rows[k];
            if (row->status != SF_OK) continue;
            char stem[96], name[128];
            snprintf(stem, sizeof stem, "expected_%s", sf_method_name(row->method));
            for (char* p = stem; *p; ++p)
                if (*p == '-') *p = '_';
            snprintf(name, sizeof name, "%s_normals", stem);
            write_buffer(x, name, "the library's unit normal xyz (zero where degenerate)", "f32", n, 3, row->normals);
            snprintf(name, sizeof name, "%s_tangents", stem);
            write_buffer(x, name, "the library's unit tangent xyz and handedness w", "f32", n, 4, row->tangents);
            cJSON_AddStringToObject(exp, sf_method_name(row->method), stem);
        }
    }
    sf_workspace_destroy(ws);
    sf_evaluation_destroy(ev);
}

static int export_topology(export_ctx* x, const sf_topology* topo, const sf_pose* pose, const char* source)
{
    cJSON* root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", EXPORT_FORMAT);
    cJSON_AddStringToObject(root, "source", source);
    x->files = cJSON_AddObjectToObject(root, "files");
    sf_topology_stats st;
    sf_topology_get_stats(topo, &st);
    sf_gpu_buffer bufs[SF_GPU_MAX_BUFFERS];
    size_t count = sf_topology_gpu_buffers(topo, bufs, SF_GPU_MAX_BUFFERS);
    size_t E = 0, S = 0, M = 0;
    for (size_t i = 0; i < count; ++i) {
        const sf_gpu_buffer* b = &bufs[i];
        if (!strcmp(b->name, "morph_target")) E = b->count;
        if (!strcmp(b->name, "grad_slot_joint")) S = b->count;
        if (!strcmp(b->name, "grad_morph_target")) M = b->count;
        write_buffer(x, b->name, b->description, b->type == SF_GPU_F32 ? "f32" : "u32", b->count, b->components,
                     b->data);
    }
    write_buffer(x, "bones", "the pose: bone matrix, 12 floats column-major 3x4 (p' = A p + t)", "f32",
                 pose->bone_count, 12, pose->bone_matrices);
    write_buffer(x, "morph_weights", "the pose: one weight per morph target", "f32",
                 pose->morph_weights ? pose->morph_weight_count : 0, 1, pose->morph_weights);
    /* params.bin: what a program needs before it reads the others (the JSON says the same). */
    float sign = sf_topology_bitangent_sign(topo);
    uint32_t params[12] = {1,
                           (uint32_t)st.vertex_count,
                           (uint32_t)st.triangle_count,
                           st.influence_count,
                           (uint32_t)pose->bone_count,
                           (uint32_t)(pose->morph_weights ? pose->morph_weight_count : 0),
                           (uint32_t)E,
                           (uint32_t)S,
                           (uint32_t)M,
                           (uint32_t)sf_topology_has_tangent_frame(topo),
                           0,
                           0};
    memcpy(&params[10], &sign, sizeof sign);
    write_buffer(x, "params", "u32: version 1, vertices, triangles, influences per vertex, bones, morph targets, "
                 "morph entries, gradient slots, gradient morph entries, has UVs, bitangent sign (f32 bits), 0",
                 "u32", 12, 1, params);
    cJSON* c = cJSON_AddObjectToObject(root, "counts");
    cJSON_AddNumberToObject(c, "vertices", (double)st.vertex_count);
    cJSON_AddNumberToObject(c, "triangles", (double)st.triangle_count);
    cJSON_AddNumberToObject(c, "influences_per_vertex", st.influence_count);
    cJSON_AddNumberToObject(c, "bones", (double)pose->bone_count);
    cJSON_AddNumberToObject(c, "morph_targets", (double)params[5]);
    cJSON* k = cJSON_AddObjectToObject(root, "constants");
    cJSON_AddNumberToObject(k, "bitangent_sign", sign);
    cJSON_AddNumberToObject(k, "safe_unit_eps2", 1e-24);
    cJSON_AddNumberToObject(k, "singular_det_eps", 1e-12);
    cJSON_AddNumberToObject(k, "uv_det_eps", 1e-12);
    cJSON_AddNumberToObject(k, "rest_joint", 4294967295.0);
    write_expected(x, topo, pose, root);
    if (x->code == CLI_EXIT_OK) {
        char* text = cJSON_Print(root);
        char path[4096];
        snprintf(path, sizeof path, "%s/layout.json", x->dir);
        sf_error err;
        if (!text)
            x->code = cli_fail(CLI_EXIT_FAILURE, "out of memory printing JSON");
        else if ((x->code = check_not_input(x, "layout.json")) != CLI_EXIT_OK)
            ;
        else if (sf_file_write_atomic(path, text, strlen(text), &err) != SF_OK)
            x->code = cli_fail(CLI_EXIT_FAILURE, "export-gpu: %s", err.message);
        cJSON_free(text);
    }
    cJSON_Delete(root);
    if (x->code == CLI_EXIT_OK)
        printf("export-gpu: %s: %zu vertices, %zu triangles -> %s/layout.json\n", source, st.vertex_count,
               st.triangle_count, x->final);
    return x->code;
}

static int export_scene(export_ctx* x, const cli_scene_args* args)
{
    sf_env env = cli_env();
    sf_scene* scene = NULL;
    int code = cli_scene_args_build(args, &env, NULL, 0, &scene);
    sf_topology* topo = NULL;
    sf_error err;
    if (code == CLI_EXIT_OK && sf_topology_create(&scene->mesh, NULL, &env, &topo, &err) != SF_OK)
        code = cli_fail(CLI_EXIT_FAILURE, "scene %s: %s", args->scene, err.message);
    char source[256];
    snprintf(source, sizeof source, "scene %s%s%s", args->scene, args->preset ? " preset " : "",
             args->preset ? args->preset : "");
    if (code == CLI_EXIT_OK) code = export_topology(x, topo, &scene->pose, source);
    sf_topology_destroy(topo);
    sf_scene_destroy(scene);
    return code;
}

static int export_gltf(export_ctx* x, const char* path, const char* anim_spec, double t, size_t unit)
{
    sf_env env = cli_env();
    sf_gltf* g = NULL;
    sf_gltf_pose* pose = NULL;
    cli_gltf_unit* units = NULL;
    size_t unit_count = 0, anim = SF_GLTF_NONE;
    sf_error err;
    int code = cli_gltf_load(path, NULL, 0, SF_TANGENTS_MIKKTSPACE, &g);
    if (code == CLI_EXIT_OK) code = cli_gltf_pick_animation(g, anim_spec, false, &anim);
    if (code == CLI_EXIT_OK && sf_gltf_pose_create(g, NULL, &pose, &err) != SF_OK)
        code = cli_fail(CLI_EXIT_FAILURE, "%s", err.message);
    if (code == CLI_EXIT_OK && anim == SF_GLTF_NONE && g->animation_count) anim = 0;
    if (code == CLI_EXIT_OK && anim != SF_GLTF_NONE && sf_gltf_pose_sample(pose, anim, t, &err) != SF_OK)
        code = cli_fail(CLI_EXIT_FAILURE, "%s", err.message);
    if (code == CLI_EXIT_OK)
        code = cli_gltf_units_create(path, g, (1u << SF_METHOD_COUNT) - 1u, SF_BACKEND_CPU, &env, &units, &unit_count);
    if (code == CLI_EXIT_OK && unit >= unit_count)
        code = cli_fail(CLI_EXIT_USAGE, "--unit: %zu, the file has %zu primitive instance(s)", unit, unit_count);
    if (code == CLI_EXIT_OK) code = cli_gltf_unit_pose(pose, &units[unit], NULL);
    if (code == CLI_EXIT_OK) code = cli_gltf_unit_check(path, g, &units[unit], anim, t);
    char source[4200];
    snprintf(source, sizeof source, "%s unit %zu at %.6g s", path, unit, t);
    if (code == CLI_EXIT_OK) code = export_topology(x, units[unit].topo, &units[unit].pose, source);
    cli_gltf_units_free(units, unit_count);
    sf_gltf_pose_destroy(pose);
    sf_gltf_destroy(g);
    return code;
}

int cmd_export_gpu(int argc, char** argv)
{
    cli_scene_args args;
    cli_scene_args_init(&args);
    const char *out = NULL, *file = NULL, *anim = NULL;
    double t = 0.0;
    size_t unit = 0;
    bool force = false;
    int code = CLI_EXIT_OK;
    for (int i = 1; i < argc && code == CLI_EXIT_OK; ++i) {
        const char* v = NULL;
        int r;
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        if ((r = cli_flag_value(argc, argv, &i, "-o", &v)) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
            out = v;
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--animation", &v)) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
            anim = v;
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--time", &v)) != 0) {
            code = r < 0 ? CLI_EXIT_USAGE : cli_parse_time("--time", v, &t);
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--unit", &v)) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
            else if (!cli_parse_size(v, 0, (size_t)1 << 30, &unit))
                code = cli_fail(CLI_EXIT_USAGE, "--unit: '%s' is not a whole number >= 0", v);
            continue;
        }
        if ((r = cli_flag_switch(argv, i, "--force")) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
            force = true;
            continue;
        }
        if ((r = cli_gltf_parse_limits(argc, argv, &i)) != 0) {
            if (r < 0) code = CLI_EXIT_USAGE;
            continue;
        }
        r = cli_scene_args_parse(&args, argc, argv, &i);
        if (r < 0) code = CLI_EXIT_USAGE;
        if (r != 0) continue;
        if (argv[i][0] == '-' && argv[i][1])
            code = cli_fail(CLI_EXIT_USAGE, "export-gpu: unknown flag %s", argv[i]);
        else if (file)
            code = cli_fail(CLI_EXIT_USAGE, "export-gpu: one FILE (got %s and %s)", file, argv[i]);
        else
            file = argv[i];
    }
    if (code != CLI_EXIT_OK) return code;
    if (!out) return cli_fail(CLI_EXIT_USAGE, "export-gpu: missing -o DIR (see skinframe export-gpu --help)");
    if (!file == !args.scene)
        return cli_fail(CLI_EXIT_USAGE, "export-gpu: give a FILE or --scene NAME (one of them)");
    if (args.scene && (code = cli_scene_args_finish(&args)) != CLI_EXIT_OK) return code;
    if (file) {
        if (sf_file_same(file, out) == 1)
            return cli_fail(CLI_EXIT_USAGE, "-o: %s is the input", out);
    }
    struct stat before;
    bool existed = stat(out, &before) == 0;
    code = check_dir(out, force);
    if (code != CLI_EXIT_OK) return code;
    /* every file into a new folder next to DIR, which replaces DIR only when all are written */
    sf_dir_stage* stage = NULL;
    sf_error err;
    if (sf_dir_stage_open(out, &stage, &err) != SF_OK) code = cli_fail(CLI_EXIT_FAILURE, "-o: %s", err.message);
    export_ctx x = {sf_dir_stage_path(stage), out, NULL, CLI_EXIT_OK};
    if (code == CLI_EXIT_OK) code = file ? export_gltf(&x, file, anim, t, unit) : export_scene(&x, &args);
    if (code != CLI_EXIT_OK) {
        sf_dir_stage_abort(stage);
    } else if (sf_dir_stage_commit(stage, &err) != SF_OK) {
        code = cli_fail(CLI_EXIT_FAILURE, "-o: %s", err.message);
    }
    /* a failed export leaves no trace: the empty folder check_dir made for it goes too */
    if (code != CLI_EXIT_OK && !existed) rmdir(out);
    return code;
}

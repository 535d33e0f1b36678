/* skinframe bake FILE --time T --method M -o OUT.glb: the scene's meshes posed at time T (morph, skin or
 * node transform) with that method's normals and tangents, written as a static .glb; --error-colors adds
 * the normal error against the reference as COLOR_0 (green 0 degrees -> red 45 and above). */
#define _POSIX_C_SOURCE 200809L
#include "gltf_args.h"
#include "outputs.h"
#include "scene_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE* f)
{
    fprintf(f, "Usage: skinframe bake FILE --time T [--animation NAME|INDEX] --method M -o OUT.glb [--error-colors]\n"
               "                      [--force]\n"
               "                      [--morph-directions deltas|none|normals] [--weighting ...] [--weld ...] [--tangents ...]\n"
               "                      [--reference rebuilt|authored] [--jacobian-cap X]\n"
               "                      [--texcoord N] [--threads N]\n"
               "                      [--max-vertices N] [--max-morph-elements N] [--max-decoded-bytes N]\n"
               "  Poses every mesh instance of the scene at time T of the animation (default: the first; a file without\n"
               "  animations is baked at rest), computes method M's normals and tangents (tangents only with UVs) and\n"
               "  writes one static .glb: one node per primitive, carrying the mesh node's world transform for skinned\n"
               "  meshes. --error-colors writes the normal error against the reference (recompute; default weld\n"
               "  position-normal, tangents mikktspace, as eval) as COLOR_0. The recompute method uses the same settings.\n"
               "  The output is written atomically; it must end in .glb and is never one of the files FILE reads (its\n"
               "  buffers) or names (its images). An existing OUT.glb is replaced only when skinframe wrote it (its\n"
               "  asset.generator); --force replaces another .glb. T is seconds >= 0 (clamped to the animation).\n"
               "  --max-vertices N, --max-morph-elements N and --max-decoded-bytes N raise the loader's limits on what\n"
               "  the file may cost, checked before anything is decoded (defaults: 16777216 vertices per primitive,\n"
               "  67108864 morph target x vertex elements per primitive, 64 MiB + 64 x the input's size decoded, of\n"
               "  which the parsed JSON at most 64 MiB + 16 x its text).\n");
}

/* The posed arrays of one unit (one primitive of one instance); idx and uv only once split. */
typedef struct baked {
    float *pos, *nrm, *tan, *col, *ref_n, *uv;
    uint32_t* idx;
    size_t n;
    float to_world[16];
} baked;

static void baked_free(baked* b)
{
    free(b->pos);
    free(b->nrm);
    free(b->tan);
    free(b->col);
    free(b->ref_n);
    free(b->uv);
    free(b->idx);
}

/* Copies k = 0..count-1 of elem bytes from src[source[k]] (the loader's streams are packed); NULL when out of
 * memory. */
static void* gather(const void* src, size_t elem, const uint32_t* source, size_t count)
{
    uint8_t* dst = malloc(count ? count * elem : 1);
    for (size_t k = 0; dst && k < count; ++k) memcpy(dst + k * elem, (const uint8_t*)src + source[k] * elem, elem);
    return dst;
}

/* MikkTSpace tangents are per corner: one vertex per distinct (vertex, tangent), the triangles re-indexed
 * (sf_tangents_split), the other streams copied. Returns the vertices split, or SIZE_MAX out of memory. */
static size_t split_corners(baked* b, const sf_mesh_desc* mesh, const float* corner_tangents)
{
    size_t F = mesh->triangle_count, cap = SF_TANGENTS_SPLIT_MAX_VERTICES(b->n, F);
    sf_tangent_split sp;
    memset(&sp, 0, sizeof sp);
    sp.indices = malloc(3 * F * sizeof(uint32_t) + 4);
    sp.source = malloc(cap * sizeof(uint32_t) + 4);
    sp.tangents = malloc(4 * cap * sizeof(float) + 16);
    int ok = sp.indices && sp.source && sp.tangents &&
             sf_tangents_split(b->n, F, mesh->indices, corner_tangents, NULL, &sp, NULL) == SF_OK;
    float *pos = NULL, *nrm = NULL, *uv = NULL, *col = NULL;
    if (ok) {
        pos = gather(b->pos, 3 * sizeof(float), sp.source, sp.vertex_count);
        nrm = gather(b->nrm, 3 * sizeof(float), sp.source, sp.vertex_count);
        uv = gather(mesh->uvs.data, 2 * sizeof(float), sp.source, sp.vertex_count);
        col = b->col ? gather(b->col, 4 * sizeof(float), sp.source, sp.vertex_count) : NULL;
        ok = pos && nrm && uv && (col || !b->col);
    }
    free(sp.source);
    if (!ok) {
        free(sp.indices), free(sp.tangents), free(pos), free(nrm), free(uv), free(col);
        return SIZE_MAX;
    }
    free(b->pos), free(b->nrm), free(b->tan), free(b->col);
    b->pos = pos, b->nrm = nrm, b->uv = uv, b->col = col, b->tan = sp.tangents, b->idx = sp.indices;
    b->n = sp.vertex_count;
    return sp.split_vertices;
}

/* What the command line asks for. */
typedef struct bake_opts {
    cli_scene_args args;
    const char *path, *out_path, *anim_spec;
    sf_method method;
    double time_s;
    bool colors;
    size_t texcoord;
} bake_opts;

/* The flags into o. CLI exit status; *help when --help was printed (then nothing else to do). */
static int parse_args(int argc, char** argv, bake_opts* o, bool* help)
{
    cli_scene_args_init(&o->args);
    cli_gltf_flags flags = {false, false};
    const char* method_name = NULL;
    bool have_time = false;
    for (int i = 1; i < argc; ++i) {
        const char* v;
        int r;
        if (cli_is_help(argv[i])) {
            usage(stdout);
            *help = true;
            return CLI_EXIT_OK;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--time", &v)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            if (cli_parse_time("--time", v, &o->time_s) != CLI_EXIT_OK) return CLI_EXIT_USAGE;
            have_time = true;
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--animation", &v)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            o->anim_spec = v;
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--method", &v)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            method_name = v;
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "-o", &v)) != 0 || (r = cli_flag_value(argc, argv, &i, "--output", &v)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            o->out_path = v;
            continue;
        }
        if ((r = cli_gltf_parse_counts(argc, argv, &i, &o->texcoord, NULL)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            continue;
        }
        if ((r = cli_flag_switch(argv, i, "--error-colors")) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            o->colors = true;
            continue;
        }
        if ((r = cli_outputs_parse_force(argv, i)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            continue;
        }
        r = cli_gltf_parse_shared(&flags, &o->args, argc, argv, &i, "bake");
        if (r < 0) return CLI_EXIT_USAGE;
        if (r > 0) continue;
        if (argv[i][0] == '-' && argv[i][1]) return cli_fail(CLI_EXIT_USAGE, "bake: unknown flag %s", argv[i]);
        if (o->path) return cli_fail(CLI_EXIT_USAGE, "bake: one FILE only (got %s and %s)", o->path, argv[i]);
        o->path = argv[i];
    }
    if (!o->path) return cli_fail(CLI_EXIT_USAGE, "bake: missing FILE (see skinframe bake --help)");
    if (!o->out_path) return cli_fail(CLI_EXIT_USAGE, "bake: missing -o OUT.glb");
    if (cli_output_name("-o", o->out_path, CLI_OUTPUT_GLB) != CLI_EXIT_OK) return CLI_EXIT_USAGE;
    if (!have_time) return cli_fail(CLI_EXIT_USAGE, "bake: missing --time T (seconds)");
    if (!method_name) return cli_fail(CLI_EXIT_USAGE, "bake: missing --method M (one of the methods of `compare`)");
    if (sf_method_parse(method_name, &o->method) != SF_OK)
        return cli_fail(CLI_EXIT_USAGE, "--method: unknown method '%s' (one method, e.g. skinned)", method_name);
    if (o->anim_spec && strcmp(o->anim_spec, "all") == 0)
        return cli_fail(CLI_EXIT_USAGE, "--animation: bake takes one animation (a name or an index), not all");
    cli_gltf_reference_defaults(&flags, &o->args);
    return CLI_EXIT_OK;
}

/* Everything one bake holds, freed by bake_free. */
typedef struct bake_ctx {
    const bake_opts* o;
    sf_gltf* g;
    size_t anim;
    sf_gltf_pose* pose;
    cli_gltf_unit* units;
    size_t count;
    baked* bk;
    sf_gltf_write_mesh* meshes;
    sf_gltf_write_node* nodes;
    sf_eval_desc desc; /* the method, and the reference for the error colours */
    size_t degenerate, split_vertices;
    bool split_any;
} bake_ctx;

static void bake_free(bake_ctx* c)
{
    for (size_t i = 0; c->bk && i < c->count; ++i) baked_free(&c->bk[i]);
    free(c->bk);
    cli_gltf_units_free(c->units, c->count);
    free(c->meshes);
    free(c->nodes);
    sf_gltf_pose_destroy(c->pose);
    sf_gltf_destroy(c->g);
}

/* The pose at the asked time, the units and the output arrays (the file already loaded). */
static int bake_prepare(bake_ctx* c, const sf_env* env)
{
    const bake_opts* o = c->o;
    const sf_gltf* g = c->g;
    int code = cli_output_check("-o", o->out_path, CLI_OUTPUT_GLB);
    c->anim = SF_GLTF_NONE;
    if (code == CLI_EXIT_OK && o->anim_spec) code = cli_gltf_pick_animation(g, o->anim_spec, false, &c->anim);
    else if (g->animation_count) c->anim = 0;
    sf_error err;
    if (code == CLI_EXIT_OK && (sf_gltf_pose_create(g, NULL, &c->pose, &err) != SF_OK ||
                                sf_gltf_pose_sample(c->pose, c->anim, o->time_s, &err) != SF_OK))
        code = cli_fail(CLI_EXIT_FAILURE, "%s", err.message);
    if (code == CLI_EXIT_OK)
        code = cli_gltf_units_create(o->path, g, 1u << o->method, o->args.backend, env, &c->units, &c->count);
    c->bk = calloc(c->count + 1, sizeof(baked));
    c->meshes = calloc(c->count + 1, sizeof(sf_gltf_write_mesh));
    c->nodes = calloc(c->count + 1, sizeof(sf_gltf_write_node));
    if (code == CLI_EXIT_OK && (!c->bk || !c->meshes || !c->nodes)) code = cli_fail(CLI_EXIT_FAILURE, "out of memory");
    memset(&c->desc, 0, sizeof c->desc);
    c->desc.methods = &o->method;
    c->desc.method_count = 1;
    cli_gltf_frames_opts(&o->args, &c->desc.reference_opts, &c->desc.method_opts);
    c->desc.flags = SF_EVAL_NO_STATISTICS;
    return code;
}

/* Unit k posed and evaluated: its arrays (split per corner where needed) and its mesh and node. */
static int bake_unit(bake_ctx* c, size_t k)
{
    const bake_opts* o = c->o;
    const sf_gltf* g = c->g;
    cli_gltf_unit* u = &c->units[k];
    baked* b = &c->bk[k];
    const sf_gltf_instance* in = &g->instances[u->instance];
    const sf_gltf_primitive* pr = &g->primitives[u->primitive];
    size_t n = u->n ? u->n : 1;
    b->n = u->n;
    b->pos = calloc(3 * n, sizeof(float));
    b->nrm = calloc(3 * n, sizeof(float));
    b->tan = calloc(4 * n, sizeof(float));
    b->ref_n = calloc(3 * n, sizeof(float));
    b->col = o->colors ? calloc(4 * n, sizeof(float)) : NULL;
    if (!b->pos || !b->nrm || !b->tan || !b->ref_n || (o->colors && !b->col))
        return cli_fail(CLI_EXIT_FAILURE, "out of memory");
    int code = cli_gltf_unit_pose(c->pose, u, b->to_world);
    if (code == CLI_EXIT_OK) code = cli_gltf_unit_check(o->path, g, u, c->anim, o->time_s);
    if (code != CLI_EXIT_OK) return code;
    sf_eval_buffers eb;
    memset(&eb, 0, sizeof eb);
    eb.positions = b->pos;
    eb.rows[0].normals = b->nrm;
    eb.rows[0].tangents = b->tan;
    eb.reference_normals = b->ref_n;
    sf_evaluation* ev = NULL;
    sf_error err;
    sf_result r = sf_evaluation_create(u->topo, &c->desc, NULL, &ev, &err);
    if (r == SF_OK) r = sf_evaluation_run(ev, &u->pose, u->ws, &eb, &err);
    const sf_eval_row* row = r == SF_OK ? &sf_evaluation_results(ev)->rows[0] : NULL;
    if (row && row->status != SF_OK) r = row->status, err = row->detail;
    if (r == SF_OK) c->degenerate += row->report.degenerate_normals;
    /* The evaluation's per-vertex angles are floats; the colours take the angle in double, as they always
     * have, so a baked COLOR_0 keeps its bits. Per vertex: before the split, copied with their vertex. */
    for (size_t v = 0; r == SF_OK && o->colors && v < u->n; ++v) {
        sf_heatmap_color(sf_angle_deg(b->nrm + 3 * v, b->ref_n + 3 * v), b->col + 4 * v);
        b->col[4 * v + 3] = 1.0f;
    }
    /* recompute (fused or not) with MikkTSpace: its tangents are the reference's, one per corner */
    const sf_eval_results* res = r == SF_OK ? sf_evaluation_results(ev) : NULL;
    size_t split = 0;
    if (res && cli_method_is_rebuilt(o->method) && res->tangent_corners && u->tangents) {
        split = split_corners(b, &pr->mesh, res->reference_corner_tangents);
        c->split_any = true;
    }
    sf_evaluation_destroy(ev);
    if (split == SIZE_MAX) return cli_fail(CLI_EXIT_FAILURE, "out of memory");
    c->split_vertices += split;
    if (r != SF_OK)
        return cli_fail(CLI_EXIT_FAILURE, "%s: meshes[%zu].primitives[%zu]: %s", sf_method_name(o->method),
                        pr->mesh_index, pr->primitive_index, err.message);
    sf_gltf_write_mesh* wm = &c->meshes[k];
    wm->name = g->meshes[in->mesh].name;
    wm->mesh.vertex_count = b->n;
    wm->mesh.triangle_count = pr->mesh.triangle_count;
    wm->mesh.indices = b->idx ? b->idx : pr->mesh.indices;
    wm->mesh.positions.data = b->pos;
    wm->mesh.normals.data = b->nrm;
    wm->mesh.tangents.data = u->tangents ? b->tan : NULL;
    wm->mesh.uvs = pr->mesh.uvs;
    if (b->uv) wm->mesh.uvs.data = b->uv, wm->mesh.uvs.stride = 0;
    wm->colors = b->col;
    sf_gltf_write_node* wn = &c->nodes[k];
    wn->name = g->nodes[in->node].name;
    wn->parent = SF_GLTF_NONE;
    wn->mesh = k;
    wn->skin = SF_GLTF_NONE;
    wn->matrix = b->to_world;
    return CLI_EXIT_OK;
}

/* The .glb written, then its one-line summary. */
static int bake_write(const bake_ctx* c)
{
    const bake_opts* o = c->o;
    char gen[96];
    snprintf(gen, sizeof gen, "skinframe bake (%s)", sf_method_name(o->method));
    sf_gltf_write_desc d;
    memset(&d, 0, sizeof d);
    d.meshes = c->meshes;
    d.mesh_count = c->count;
    d.nodes = c->nodes;
    d.node_count = c->count;
    d.generator = gen;
    void* glb = NULL;
    size_t glb_size = 0;
    sf_error err;
    int code;
    if (sf_gltf_write_glb(&d, NULL, &glb, &glb_size, &err) != SF_OK)
        code = cli_fail(CLI_EXIT_FAILURE, "%s", err.message);
    else
        code = cli_output_write("-o", o->out_path, CLI_OUTPUT_GLB, glb, glb_size);
    sf_gltf_free_bytes(NULL, glb, glb_size);
    if (code != CLI_EXIT_OK) return code;
    char label[64] = "rest pose";
    if (c->anim != SF_GLTF_NONE) cli_gltf_animation_label(c->g, c->anim, label, sizeof label);
    printf("wrote %s: %zu primitive(s), method %s, animation %s at t = %g s%s", o->out_path, c->count,
           sf_method_name(o->method), label, o->time_s, o->colors ? ", normal error as COLOR_0" : "");
    if (c->split_any) printf(", %zu vertices split for per-corner MikkTSpace tangents", c->split_vertices);
    printf("\n");
    if (c->degenerate) printf("note: %zu vertices have a zero (degenerate) normal\n", c->degenerate);
    /* after the file, so that a failed bake prints its error alone */
    for (size_t k = 0; k < c->count; ++k) {
        const sf_gltf_primitive* pr = &c->g->primitives[c->units[k].primitive];
        if (pr->tangents == SF_GLTF_TANGENTS_SUPPLIED && !c->units[k].tangents)
            fprintf(stderr, "skinframe: note: meshes[%zu].primitives[%zu]: its TANGENTs are not baked: it has no "
                    "TEXCOORD_%u, and tangents need UVs\n", pr->mesh_index, pr->primitive_index, pr->texcoord);
    }
    return CLI_EXIT_OK;
}

int cmd_bake(int argc, char** argv)
{
    bake_opts o;
    memset(&o, 0, sizeof o);
    bool help = false;
    int code = parse_args(argc, argv, &o, &help);
    if (code != CLI_EXIT_OK || help) return code;
    if (cli_pool_start(o.args.threads) != 0) return cli_fail(CLI_EXIT_FAILURE, "bake: cannot start threads");
    sf_env env = cli_env();
    bake_ctx c;
    memset(&c, 0, sizeof c);
    c.o = &o;
    code = cli_gltf_load(o.path, NULL, (uint32_t)o.texcoord, o.args.tangents, &c.g);
    if (code != CLI_EXIT_OK) return code;
    code = bake_prepare(&c, &env);
    for (size_t k = 0; code == CLI_EXIT_OK && k < c.count; ++k) code = bake_unit(&c, k);
    if (code == CLI_EXIT_OK) code = bake_write(&c);
    bake_free(&c);
    return code;
}

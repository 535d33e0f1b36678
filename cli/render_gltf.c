/* `skinframe render --gltf FILE`: every instance and primitive of a glTF file, posed at one moment and
 * placed in world space, evaluated per unit and drawn as the four views of each method (render.h). */
#define _POSIX_C_SOURCE 200809L
#include "gltf_args.h"
#include "render.h"

#include <stdlib.h>
#include <string.h>

/* Where a unit (cli_gltf_unit, gltf_args.h) lies: its node's world matrix and its first vertex in the
 * combined arrays, and its evaluation (the reference and every method, kept for placement). */
typedef struct gltf_place {
    float to_world[16];
    size_t first_vertex;
    sf_evaluation* eval;
} gltf_place;

/* The combined world-space arrays of every unit, for the reference and one method. */
typedef struct gltf_combined {
    size_t n, f;
    bool frame; /* every unit has a tangent frame */
    uint32_t* idx;
    float *pos, *uv, *rn, *rt, *mn, *mt, *nd, *td;
} gltf_combined;

static void combined_free(gltf_combined* c)
{
    free(c->idx), free(c->pos), free(c->uv), free(c->rn), free(c->rt), free(c->mn), free(c->mt), free(c->nd),
        free(c->td);
    memset(c, 0, sizeof *c);
}

/* Evaluates every unit at its pose (the reference and every method asked for) and places the reference in
 * the combined arrays. The statistics are taken over all units together, by the caller. */
static int gltf_evaluate(const cli_gltf_unit* units, gltf_place* places, size_t count, const cli_scene_args* args,
                         const sf_frames_opts* ref_opts, const sf_frames_opts* method_opts, gltf_combined* c)
{
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.methods = args->method_order;
    desc.method_count = args->method_count;
    desc.method_opts = *method_opts;
    desc.reference_opts = *ref_opts;
    desc.flags = SF_EVAL_KEEP_FRAMES | SF_EVAL_KEEP_ANGLES | SF_EVAL_NO_STATISTICS;
    sf_error err;
    memset(&err, 0, sizeof err);
    for (size_t u = 0; u < count; ++u) {
        const cli_gltf_unit* un = &units[u];
        size_t o = places[u].first_vertex;
        sf_result r = sf_evaluation_create(un->topo, &desc, NULL, &places[u].eval, &err);
        if (r == SF_OK) r = sf_evaluation_run(places[u].eval, &un->pose, un->ws, NULL, &err);
        if (r != SF_OK) {
            const sf_eval_results* res = sf_evaluation_results(places[u].eval);
            if (res && res->failed == SF_EVAL_STAGE_METHOD)
                return cli_fail(CLI_EXIT_FAILURE, "%s: %s", sf_method_name(res->failed_method), err.message);
            return cli_fail(CLI_EXIT_FAILURE, "reference: %s", err.message);
        }
        const sf_eval_results* res = sf_evaluation_results(places[u].eval);
        sf_frames_out world = {c->pos + 3 * o, c->rn + 3 * o, c->rt + 4 * o};
        if (sf_gltf_place_frames(places[u].to_world, un->n, res->positions, res->reference_normals,
                                 res->reference_tangents, &world, &err) != SF_OK)
            return cli_fail(CLI_EXIT_FAILURE, "reference: %s", err.message);
    }
    return CLI_EXIT_OK;
}

/* Row k of every unit in the combined arrays: world-space frames and the angles (measured in mesh space).
 * *skipped when a unit cannot run the method (reason: the first such unit's). */
static int gltf_method(const cli_gltf_unit* units, const gltf_place* places, size_t count, size_t k,
                       gltf_combined* c, bool* skipped, char* reason, size_t reason_size)
{
    sf_error err;
    memset(&err, 0, sizeof err);
    for (size_t u = 0; u < count; ++u) {
        const sf_eval_row* row = &sf_evaluation_results(places[u].eval)->rows[k];
        if (row->status != SF_OK) {
            *skipped = true;
            snprintf(reason, reason_size, "%s", row->detail.message);
            return CLI_EXIT_OK;
        }
        size_t n = units[u].n, o = places[u].first_vertex;
        sf_frames_out world = {NULL, c->mn + 3 * o, c->mt + 4 * o};
        if (sf_gltf_place_frames(places[u].to_world, n, NULL, row->normals, row->tangents, &world, &err) != SF_OK)
            return cli_fail(CLI_EXIT_FAILURE, "%s: %s", sf_method_name(row->method), err.message);
        if (n) memcpy(c->nd + o, row->normal_deg, n * sizeof(float));
        if (n) memcpy(c->td + o, row->tangent_deg, n * sizeof(float));
    }
    return CLI_EXIT_OK;
}

/* Poses every unit at gp's moment and lays the units out one after another in the combined arrays. */
static int gltf_place_units(const sf_gltf_pose* gp, cli_gltf_unit* units, size_t count, gltf_place* places,
                            gltf_combined* c)
{
    for (size_t u = 0; u < count; ++u) {
        int code = cli_gltf_unit_pose(gp, &units[u], places[u].to_world);
        if (code != CLI_EXIT_OK) return code;
        places[u].first_vertex = c->n;
        c->n += units[u].n;
        c->f += sf_topology_triangle_count(units[u].topo);
    }
    return CLI_EXIT_OK;
}

/* Bones: a segment from each skin joint to its parent when the parent is a joint of the same skin. */
static size_t gltf_bones(const sf_gltf* g, const sf_gltf_pose* gp, float* heads, float* tails, size_t cap)
{
    size_t n = 0;
    for (size_t s = 0; s < g->skin_count; ++s) {
        const sf_gltf_skin* sk = &g->skins[s];
        for (size_t j = 0; j < sk->joint_count && n < cap; ++j) {
            size_t node = sk->joints[j], parent = g->nodes[node].parent;
            bool in_skin = false;
            for (size_t k = 0; k < sk->joint_count && parent != SF_GLTF_NONE; ++k) in_skin |= sk->joints[k] == parent;
            if (!in_skin) continue;
            memcpy(heads + 3 * n, sf_gltf_pose_global(gp, parent) + 12, 3 * sizeof(float));
            memcpy(tails + 3 * n, sf_gltf_pose_global(gp, node) + 12, 3 * sizeof(float));
            n++;
        }
    }
    return n;
}

/* The combined arrays for the placed units: the triangles re-indexed, the UVs, room for the frames. */
static int combined_fill(const cli_gltf_unit* units, const gltf_place* places, size_t unit_count, gltf_combined* c)
{
    c->idx = calloc(3 * c->f + 1, sizeof(uint32_t));
    c->pos = calloc(3 * c->n + 1, sizeof(float));
    c->uv = calloc(2 * c->n + 1, sizeof(float));
    c->rn = calloc(3 * c->n + 1, sizeof(float));
    c->rt = calloc(4 * c->n + 1, sizeof(float));
    c->mn = calloc(3 * c->n + 1, sizeof(float));
    c->mt = calloc(4 * c->n + 1, sizeof(float));
    c->nd = calloc(c->n + 1, sizeof(float));
    c->td = calloc(c->n + 1, sizeof(float));
    if (!c->idx || !c->pos || !c->uv || !c->rn || !c->rt || !c->mn || !c->mt || !c->nd || !c->td)
        return cli_fail(CLI_EXIT_FAILURE, "out of memory for %zu vertices", c->n);
    c->frame = true;
    size_t fo = 0;
    for (size_t u = 0; u < unit_count; ++u) {
        const cli_gltf_unit* un = &units[u];
        size_t first = places[u].first_vertex, f = sf_topology_triangle_count(un->topo);
        c->frame &= un->tangents;
        const uint32_t* idx = sf_topology_indices(un->topo);
        for (size_t k = 0; k < 3 * f; ++k) c->idx[3 * fo + k] = idx[k] + (uint32_t)first;
        fo += f;
        const float* uv = sf_topology_uvs(un->topo);
        if (uv) memcpy(c->uv + 2 * first, uv, 2 * un->n * sizeof(float));
    }
    return CLI_EXIT_OK;
}

/* What every method's picture shares: names, caption, bones and where it goes. */
typedef struct gltf_picture {
    const render_settings* rs;
    const char *out, *stem, *caption, *ref_name, *ref_settings;
    bool many;
    const float *bone_heads, *bone_tails;
    size_t bone_count;
} gltf_picture;

/* Method m's four views from the combined arrays, written as a PNG (-o, or OUT/STEM_<method>.png), and its
 * contact-sheet label; *drawn once *image holds a picture (also when writing it fails). */
static int gltf_draw(const gltf_picture* p, const gltf_combined* c, sf_method m, sf_image* image, char* label,
                     size_t label_size, bool* drawn)
{
    render_input in;
    memset(&in, 0, sizeof in);
    in.view.vertex_count = c->n;
    in.view.triangle_count = c->f;
    in.view.indices = c->idx;
    in.view.positions = c->pos;
    in.view.uvs = c->frame ? c->uv : NULL;
    in.view.method_normals = c->mn;
    in.view.method_tangents = c->frame ? c->mt : NULL;
    in.view.reference_normals = c->rn;
    in.view.reference_tangents = c->frame ? c->rt : NULL;
    in.view.normal_error_deg = c->nd;
    in.view.tangent_error_deg = c->frame ? c->td : NULL;
    sf_error err;
    memset(&err, 0, sizeof err);
    if (sf_angle_stats_compute(c->nd, c->n, NULL, NULL, &in.errors.normal, &err) != SF_OK ||
        (c->frame && sf_angle_stats_compute(c->td, c->n, NULL, NULL, &in.errors.tangent, &err) != SF_OK))
        return cli_fail(CLI_EXIT_FAILURE, "statistics: %s", err.message);
    in.view.method_name = sf_method_name(m);
    in.view.reference_name = p->ref_name;
    in.view.reference_settings = p->ref_settings;
    in.view.caption = p->caption;
    in.radius = 1.0f;
    in.view.bone_heads = p->bone_heads;
    in.view.bone_tails = p->bone_tails;
    in.view.bone_count = p->bone_count;
    sf_error_summary s;
    int code = render_fourview(&in, p->rs, image, &s);
    if (code != CLI_EXIT_OK) return code;
    *drawn = true;
    char file[4400]; /* as in render_run_images: never cut */
    if (p->many) snprintf(file, sizeof file, "%s/%s_%s.png", p->out, p->stem, sf_method_name(m));
    const char* target = p->many ? file : p->out; /* -o as given, whatever its length */
    code = render_write_png("-o", image, target);
    if (code == CLI_EXIT_OK)
        printf("wrote %s (%s: normal mean %.3f max %.3f deg)\n", target, sf_method_name(m), s.normal.mean, s.normal.max);
    snprintf(label, label_size, "%s: normal %.2f / %.2f (mean / max deg)", sf_method_name(m), s.normal.mean,
             s.normal.max);
    return code;
}

int render_gltf(const char* path, const char* animation, double time_s, const cli_scene_args* args,
                const render_settings* rs, const char* out, bool many)
{
    sf_gltf* g = NULL;
    sf_gltf_pose* gp = NULL;
    int code = cli_gltf_load(path, NULL, 0, args->tangents, &g);
    if (code != CLI_EXIT_OK) return code;
    /* The outputs against the files just read, before any work (outputs.h). */
    code = many ? cli_output_folder("-o", out) : cli_output_check("-o", out, CLI_OUTPUT_PNG);
    size_t anim = SF_GLTF_NONE;
    if (code == CLI_EXIT_OK && animation)
        code = cli_gltf_pick_animation(g, animation, true, &anim);
    else if (code == CLI_EXIT_OK && g->animation_count)
        anim = 0; /* the first animation by default */
    sf_error err;
    memset(&err, 0, sizeof err);
    if (code == CLI_EXIT_OK && (sf_gltf_pose_create(g, NULL, &gp, &err) != SF_OK ||
                                sf_gltf_pose_sample(gp, anim, time_s, &err) != SF_OK))
        code = cli_fail(CLI_EXIT_FAILURE, "%s: %s", path, err.message);
    enum { MAX_BONES = 512 };
    cli_gltf_unit* units = NULL;
    gltf_place* places = NULL;
    size_t unit_count = 0;
    gltf_combined c;
    memset(&c, 0, sizeof c);
    if (code == CLI_EXIT_OK)
        code = cli_gltf_units_create(path, g, cli_scene_args_methods_mask(args), args->backend, NULL, &units,
                                     &unit_count);
    if (code == CLI_EXIT_OK && !(places = calloc(unit_count + 1, sizeof *places)))
        code = cli_fail(CLI_EXIT_FAILURE, "out of memory");
    if (code == CLI_EXIT_OK) code = gltf_place_units(gp, units, unit_count, places, &c);
    for (size_t u = 0; code == CLI_EXIT_OK && u < unit_count; ++u)
        code = cli_gltf_unit_check(path, g, &units[u], anim, time_s);
    if (code == CLI_EXIT_OK && c.n == 0) code = cli_fail(CLI_EXIT_FAILURE, "%s: no triangles to draw", path);
    float* bone_heads = calloc(3 * MAX_BONES, sizeof(float));
    float* bone_tails = calloc(3 * MAX_BONES, sizeof(float));
    if (code == CLI_EXIT_OK) code = combined_fill(units, places, unit_count, &c);
    if (code == CLI_EXIT_OK && (!bone_heads || !bone_tails))
        code = cli_fail(CLI_EXIT_FAILURE, "out of memory for %zu vertices", c.n);
    sf_frames_opts ref_opts, method_opts; /* with --reference and --jacobian-cap, as eval and bake */
    cli_gltf_frames_opts(args, &ref_opts, &method_opts);
    char reason[256] = "";
    if (code == CLI_EXIT_OK) code = gltf_evaluate(units, places, unit_count, args, &ref_opts, &method_opts, &c);
    size_t bone_count = code == CLI_EXIT_OK && gp ? gltf_bones(g, gp, bone_heads, bone_tails, MAX_BONES) : 0;

    const char* base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char stem[160], caption[256];
    snprintf(stem, sizeof stem, "%.*s_t%g", (int)(strcspn(base, ".")), base, time_s);
    char anim_label[64] = "rest";
    if (anim != SF_GLTF_NONE) cli_gltf_animation_label(g, anim, anim_label, sizeof anim_label);
    snprintf(caption, sizeof caption, "%s  animation %s at %g s  morph dirs: %s", base, anim_label, time_s,
             cli_morph_directions_name(args->morph_directions));
    sf_image images[SF_METHOD_COUNT];
    char labels[SF_METHOD_COUNT][128];
    const char* label_ptrs[SF_METHOD_COUNT];
    size_t done = 0;
    char ref_name[64], ref_settings[96];
    snprintf(ref_name, sizeof ref_name, "recompute (%s)", cli_weighting_name(ref_opts.weighting));
    cli_reference_settings_text(&ref_opts, ref_settings, sizeof ref_settings);
    gltf_picture pic = {rs, out, stem, caption, ref_name, ref_settings, many, bone_heads, bone_tails, bone_count};
    for (size_t k = 0; k < args->method_count && code == CLI_EXIT_OK; ++k) {
        sf_method m = args->method_order[k];
        bool skipped = false;
        code = gltf_method(units, places, unit_count, k, &c, &skipped, reason, sizeof reason);
        if (code != CLI_EXIT_OK) break;
        if (skipped) {
            fprintf(stderr, "skinframe: note: %s skipped: %s\n", sf_method_name(m), reason);
            if (!many) code = cli_fail(CLI_EXIT_FAILURE, "render: %s: %s", sf_method_name(m), reason);
            continue;
        }
        bool drawn = false;
        code = gltf_draw(&pic, &c, m, &images[done], labels[done], sizeof labels[done], &drawn);
        if (!drawn) break;
        label_ptrs[done] = labels[done];
        done++;
    }
    if (code == CLI_EXIT_OK && many && done > 1) {
        char file[4400];
        snprintf(file, sizeof file, "%s/%s_contact.png", out, stem);
        code = render_write_contact_sheet("-o", images, label_ptrs, done, caption, file);
        if (code == CLI_EXIT_OK) printf("wrote %s\n", file);
    }
    for (size_t k = 0; k < done; ++k) sf_image_free(&images[k], NULL);
    for (size_t u = 0; places && u < unit_count; ++u) sf_evaluation_destroy(places[u].eval);
    cli_gltf_units_free(units, unit_count);
    free(places);
    combined_free(&c);
    free(bone_heads), free(bone_tails);
    sf_gltf_pose_destroy(gp);
    sf_gltf_destroy(g);
    return code;
}

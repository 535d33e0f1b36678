/* eval of one asset: the evaluation layer (skinframe_eval.h) plays every frame of its animations and measures
 * every method against the reference; here its clips are printed as tables or JSON, with the per-frame CSV
 * rows, the progress bar and the data problems grouped by cause. */
#include "eval.h"

#include <stdlib.h>
#include <string.h>

typedef struct asset_ctx {
    const eval_opts* o;
    const char* path;
    sf_gltf* g;
    sf_env env;
    sf_asset_eval* eval;
    sf_frames_opts ref_opts, method_opts; /* the reference (and recompute row); the other methods */
    size_t vertices, tangent_vertices;    /* per frame over all units */
    eval_asset_view view;
} asset_ctx;

/* What each frame of a clip prints: CSV rows, progress. */
typedef struct frame_sink {
    const asset_ctx* c;
    const char* csv_label; /* the animation label quoted for CSV */
    eval_progress progress;
} frame_sink;

/* One per-frame CSV row of method m (the animation label already quoted for CSV). */
static void csv_row(const asset_ctx* c, const sf_method_stats* a, const char* csv_label, size_t f, double t,
                    sf_method method)
{
    FILE* csv = c->o->csv;
    if (c->o->csv_file) {
        fputc('"', csv);
        for (const char* p = c->o->csv_file; *p; ++p) {
            if (*p == '"') fputc('"', csv);
            fputc(*p, csv);
        }
        fputs("\",", csv);
    }
    double mean = a->frame_cn ? a->frame_sn / (double)a->frame_cn : 0.0;
    fprintf(csv, "\"%s\",%zu,%.6f,%s,%.6f,%.6f,", csv_label, f, t, sf_method_name(method), mean, (double)a->frame_mn);
    if (a->frame_ct)
        fprintf(csv, "%.6f,%.6f\n", a->frame_st / (double)a->frame_ct, (double)a->frame_mt);
    else
        fprintf(csv, ",\n");
}

static int on_frame(void* user, const sf_asset_clip* clip, size_t f, double t)
{
    frame_sink* s = user;
    const cli_scene_args* args = &s->c->o->args;
    for (size_t k = 0; s->c->o->csv && k < args->method_count; ++k) {
        sf_method m = args->method_order[k];
        if (!clip->methods[m].skipped) csv_row(s->c, &clip->methods[m], s->csv_label, f, t, m);
    }
    eval_progress_step(&s->progress, f + 1);
    return 0;
}

/* The frames of clip anim (SF_GLTF_NONE: the rest pose) and its label; a one-line error over --max-frames. */
static int plan_clip(const asset_ctx* c, size_t anim, sf_clip_plan* plan, char* label, size_t size)
{
    if (anim == SF_GLTF_NONE)
        snprintf(label, size, "(rest pose)");
    else
        cli_gltf_animation_label(c->g, anim, label, size);
    if (sf_asset_clip_plan(c->g, anim, c->o->fps, c->o->max_frames, plan) == SF_OK) return CLI_EXIT_OK;
    double end = anim == SF_GLTF_NONE ? 0.0 : c->g->animations[anim].end_s;
    return cli_fail(CLI_EXIT_FAILURE, "animation %zu '%s': %g s at %g fps needs %.15g frames, more than --max-frames %zu",
                    anim, label, end, c->o->fps, plan->frames_needed, c->o->max_frames);
}

/* One clip's JSON object in json_anims. */
static void clip_json(const asset_ctx* c, const sf_asset_clip* clip, cJSON* json_anims)
{
    size_t anim = clip->animation;
    cJSON* a = cJSON_CreateObject();
    cJSON_AddItemToArray(json_anims, a);
    if (anim == SF_GLTF_NONE)
        cJSON_AddNullToObject(a, "index");
    else
        cJSON_AddNumberToObject(a, "index", (double)anim);
    cJSON_AddStringToObject(a, "name", anim == SF_GLTF_NONE ? "" : c->g->animations[anim].name);
    cJSON_AddNumberToObject(a, "duration_s", anim == SF_GLTF_NONE ? 0.0 : c->g->animations[anim].end_s);
    cJSON_AddNumberToObject(a, "frames", (double)clip->plan.frames);
    cJSON_AddNumberToObject(a, "fps", c->o->fps);
    cJSON_AddNumberToObject(a, "vertices_per_frame", (double)c->vertices);
    cJSON_AddNumberToObject(a, "eval_seconds", clip->seconds);
    cJSON_AddItemToObject(a, "methods", eval_report_methods_json(&c->view, clip->methods, &clip->plan));
    eval_variants_json(c->eval, clip->methods, &c->o->args, a);
}

static void clip_text(const asset_ctx* c, const sf_asset_clip* clip, const char* label)
{
    size_t anim = clip->animation;
    char title[256];
    if (anim == SF_GLTF_NONE)
        snprintf(title, sizeof title, "rest pose (no animation): 1 frame, %zu vertices; %.3f s", c->vertices,
                 clip->seconds);
    else
        snprintf(title, sizeof title, "animation %zu '%s': %.3f s, %zu frames at %g fps, %zu vertices per frame; "
                 "evaluated in %.3f s", anim, label, c->g->animations[anim].end_s, clip->plan.frames, c->o->fps,
                 c->vertices, clip->seconds);
    eval_report_table(&c->view, clip->methods, title, &clip->plan);
    eval_variants_print(c->eval, clip->methods, &c->o->args);
}

static int eval_animation(asset_ctx* c, size_t anim, cJSON* json_anims)
{
    const eval_opts* o = c->o;
    char label[96];
    sf_clip_plan plan;
    int code = plan_clip(c, anim, &plan, label, sizeof label);
    if (code != CLI_EXIT_OK) return code;
    char csv_label[2 * sizeof label]; /* quoted field: '"' doubled (names come from the file) */
    size_t csv_len = 0;
    for (const char* p = label; *p; ++p) {
        if (*p == '"') csv_label[csv_len++] = '"';
        csv_label[csv_len++] = *p;
    }
    csv_label[csv_len] = '\0';
    frame_sink sink = {c, csv_label, {0}};
    eval_progress_start(&sink.progress, o->progress, label, plan.frames);
    sf_asset_clip clip;
    sf_error err;
    sf_result r = sf_asset_eval_clip(c->eval, anim, on_frame, &sink, &clip, &err);
    eval_progress_end(&sink.progress);
    if (r != SF_OK) return cli_fail(CLI_EXIT_FAILURE, "%s: %s", c->path, err.message);
    if (o->json) {
        clip_json(c, &clip, json_anims);
    } else if (o->batch) {
        if (o->on_clip) o->on_clip(o, c->path, label, &clip);
        eval_variants_print(c->eval, clip.methods, &o->args);
    } else {
        clip_text(c, &clip, label);
    }
    return CLI_EXIT_OK;
}

static void print_header(const asset_ctx* c)
{
    size_t units = 0;
    sf_asset_eval_units(c->eval, &units);
    printf("file: %s\n", c->path);
    printf("reference: recompute (weighting %s, weld %s, tangents %s, directions %s)\nmorph directions: %s\n",
           cli_weighting_name(c->ref_opts.weighting), cli_weld_name(c->ref_opts.weld),
           cli_tangents_name(c->ref_opts.tangents), cli_reference_name(c->ref_opts.reference),
           cli_morph_directions_name(c->o->args.morph_directions));
    printf("instances: %zu, primitives evaluated: %zu, vertices per frame: %zu (%zu with a tangent frame)\n",
           c->g->instance_count, units, c->vertices, c->tangent_vertices);
    eval_report_tangent_note(stdout, c->vertices, c->tangent_vertices);
    eval_variants_print_influences(c->eval);
    printf("errors in degrees against the reference over all frames and vertices; rest = identity bones, no morph\n\n");
}

static cJSON* json_header(const asset_ctx* c)
{
    cJSON* root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "file", c->path);
    cJSON* ref = cJSON_AddObjectToObject(root, "reference");
    cJSON_AddStringToObject(ref, "method", "recompute");
    cJSON_AddStringToObject(ref, "weighting", cli_weighting_name(c->ref_opts.weighting));
    cJSON_AddStringToObject(ref, "weld", cli_weld_name(c->ref_opts.weld));
    cJSON_AddStringToObject(ref, "tangents", cli_tangents_name(c->ref_opts.tangents));
    cJSON_AddStringToObject(ref, "directions", cli_reference_name(c->ref_opts.reference));
    cJSON_AddStringToObject(root, "morph_directions", cli_morph_directions_name(c->o->args.morph_directions));
    cJSON_AddNumberToObject(root, "vertices_per_frame", (double)c->vertices);
    eval_variants_influences_json(c->eval, root);
    return root;
}

/* The vertices of every primitive of every instance: what one frame evaluates. */
static size_t instance_vertices(const sf_gltf* g)
{
    size_t n = 0;
    for (size_t i = 0; i < g->instance_count; ++i) {
        const sf_gltf_mesh* m = &g->meshes[g->instances[i].mesh];
        for (size_t p = m->first_primitive; p < m->first_primitive + m->primitive_count; ++p)
            n += g->primitives[p].mesh.vertex_count;
    }
    return n;
}

/* frames (over every clip) x vertices (over every instance, at least EVAL_FRAME_MIN_VERTICES) within
 * max_work, else a one-line error naming --max-work (`what` names the asset), CLI_EXIT_FAILURE. */
static int work_check(size_t frames, size_t vertices, size_t max_work, const char* what)
{
    size_t per_frame = vertices > EVAL_FRAME_MIN_VERTICES ? vertices : EVAL_FRAME_MIN_VERTICES;
    double work = (double)frames * (double)per_frame; /* no overflow: compared as a double */
    if (work <= (double)max_work) return CLI_EXIT_OK;
    return cli_fail(CLI_EXIT_FAILURE,
                    "%s: %zu frames over its clips x %zu vertices per frame (at least %d) is %.15g vertex-frames, "
                    "more than --max-work %zu",
                    what, frames, vertices, EVAL_FRAME_MIN_VERTICES, work, max_work);
}

/* Loads the asset, checks every clip's frames and their total work before any work or output. */
static int asset_open(asset_ctx* c, size_t* anim)
{
    const eval_opts* o = c->o;
    int code = cli_gltf_load(c->path, NULL, (uint32_t)o->texcoord, o->args.tangents, &c->g);
    *anim = SF_GLTF_NONE;
    if (code == CLI_EXIT_OK) code = cli_gltf_pick_animation(c->g, o->anim_spec, true, anim);
    size_t first = *anim != SF_GLTF_NONE ? *anim : 0;
    size_t last = *anim != SF_GLTF_NONE ? *anim + 1 : c->g && c->g->animation_count ? c->g->animation_count : 1;
    size_t frames = 0;
    for (size_t a = first; code == CLI_EXIT_OK && a < last; ++a) {
        sf_clip_plan plan;
        char label[96];
        code = plan_clip(c, c->g->animation_count ? a : SF_GLTF_NONE, &plan, label, sizeof label);
        frames = code == CLI_EXIT_OK && plan.frames <= SIZE_MAX - frames ? frames + plan.frames : SIZE_MAX;
    }
    if (code == CLI_EXIT_OK) code = work_check(frames, instance_vertices(c->g), o->max_work, c->path);
    return code;
}

static int asset_build(asset_ctx* c)
{
    const eval_opts* o = c->o;
    sf_asset_eval_opts ao;
    sf_asset_eval_opts_init(&ao);
    ao.methods = o->args.method_order;
    ao.method_count = o->args.method_count;
    ao.reference_opts = c->ref_opts;
    ao.method_opts = c->method_opts;
    ao.backend = o->args.backend;
    ao.fps = o->fps;
    ao.max_frames = o->max_frames;
    ao.influence_variants = !o->batch; /* a batch: only what was asked for */
    ao.max_influences = o->max_influences;
    ao.max_morph_targets = o->max_morph_targets;
    ao.engine = o->engine;
    ao.all_engines = o->all_engines;
    ao.name = c->path;
    ao.threads = cli_pool_threads();
    sf_error err;
    if (sf_asset_eval_create(c->g, &ao, &c->env, &c->eval, &err) != SF_OK)
        return cli_fail(CLI_EXIT_FAILURE, "%s", err.message);
    size_t unit_count = 0;
    const cli_gltf_unit* units = sf_asset_eval_units(c->eval, &unit_count);
    sf_asset_eval_counts(c->eval, &c->vertices, &c->tangent_vertices);
    eval_asset_view view = {c->path, c->g, units, unit_count, &o->args, c->vertices, c->tangent_vertices};
    c->view = view;
    return CLI_EXIT_OK;
}

/* The rest-pose errors, then the clip asked for or every clip. */
static int eval_clips(asset_ctx* c, size_t anim, cJSON* janims)
{
    const eval_opts* o = c->o;
    sf_error err;
    if (sf_asset_eval_rest(c->eval, &err) != SF_OK) return cli_fail(CLI_EXIT_FAILURE, "%s: %s", c->path, err.message);
    if (c->g->animation_count == 0) return eval_animation(c, SF_GLTF_NONE, janims);
    if (anim != SF_GLTF_NONE) return eval_animation(c, anim, janims);
    int code = CLI_EXIT_OK;
    for (size_t a = 0; code == CLI_EXIT_OK && a < c->g->animation_count; ++a) {
        code = eval_animation(c, a, janims);
        if (!o->json && !o->batch && a + 1 < c->g->animation_count) printf("\n");
    }
    return code;
}

/* The JSON document (formatted, or one line in a batch) with its timings. */
static int print_json(cJSON* root, bool batch, double load_s, double topology_s, double total_s)
{
    cJSON* t = cJSON_AddObjectToObject(root, "seconds");
    cJSON_AddNumberToObject(t, "load", load_s);
    cJSON_AddNumberToObject(t, "topology", topology_s);
    cJSON_AddNumberToObject(t, "total", total_s);
    char* text = batch ? cJSON_PrintUnformatted(root) : cJSON_Print(root);
    if (!text) return cli_fail(CLI_EXIT_FAILURE, "out of memory printing JSON");
    cli_write_utf8(stdout, text); /* names from the file may hold invalid UTF-8 */
    putchar('\n');
    cJSON_free(text);
    return CLI_EXIT_OK;
}

int eval_asset(const eval_opts* o, const char* path, bool* done)
{
    asset_ctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.path = path;
    c.env = cli_env();
    double t_start = eval_now_s();
    size_t anim = SF_GLTF_NONE;
    int code = asset_open(&c, &anim);
    double t_loaded = eval_now_s();
    cli_gltf_frames_opts(&o->args, &c.ref_opts, &c.method_opts);
    if (code == CLI_EXIT_OK) code = asset_build(&c);
    double t_topo = eval_now_s();
    cJSON* root = NULL;
    cJSON* janims = NULL;
    if (code == CLI_EXIT_OK && o->json) {
        root = json_header(&c);
        janims = cJSON_AddArrayToObject(root, "animations");
    } else if (code == CLI_EXIT_OK && !o->batch) {
        print_header(&c);
    }
    if (code == CLI_EXIT_OK) code = eval_clips(&c, anim, janims);
    size_t problems = 0;
    if (code == CLI_EXIT_OK) {
        sf_asset_problem_total totals[SF_GLTF_PROBLEM_COUNT];
        problems = sf_asset_problems_gather(c.g, c.view.units, c.view.unit_count, (uint32_t)o->limit, totals);
        if (root)
            cJSON_AddItemToObject(root, "data_problems", eval_problems_json(&c.view, totals));
        else if (!o->batch)
            eval_problems_print(&c.view, o->limit, problems, totals);
    }
    double t_end = eval_now_s();
    bool strict_failed = code == CLI_EXIT_OK && o->strict && problems;
    /* One asset prints its report even under --strict (the problems are in it); a batch line stands for an
     * asset that passed. */
    if (code == CLI_EXIT_OK && !(o->batch && strict_failed)) {
        if (root) {
            code = print_json(root, o->batch, t_loaded - t_start, t_topo - t_loaded, t_end - t_start);
            if (code != CLI_EXIT_OK) strict_failed = false;
        } else if (!o->batch) {
            printf("\ntime: %.3f s total (load %.3f s, topology %.3f s), %zu thread(s)\n", t_end - t_start,
                   t_loaded - t_start, t_topo - t_loaded, cli_pool_threads());
        }
    }
    if (code == CLI_EXIT_OK && strict_failed)
        code = cli_fail(CLI_EXIT_FAILURE, "--strict: %zu data problem(s) in %s", problems, path);
    *done = code == CLI_EXIT_OK || strict_failed;
    cJSON_Delete(root);
    sf_asset_eval_destroy(c.eval);
    sf_gltf_destroy(c.g);
    return code;
}

/* eval of one asset: plays every frame of its animations and measures every method's normals and tangents
 * against the reference (recompute), per method over all frames and vertices, beside the error the asset
 * already has at rest; data problems apart, grouped by cause. Memory does not grow with the frames. */
#include "eval.h"

#include <stdlib.h>
#include <string.h>

typedef struct asset_ctx {
    const eval_opts* o;
    const char* path;
    sf_gltf* g;
    sf_gltf_pose* pose;
    sf_env env;
    cli_gltf_unit* units;
    sf_evaluation** evals; /* unit_count: the reference and every method of one unit, allocated once */
    size_t unit_count;
    sf_frames_opts ref_opts, method_opts; /* the reference (and recompute row); the other methods */
    size_t vertices, tangent_vertices;    /* per frame over all units */
    size_t max_n;                          /* the largest unit */
    float* angles;                         /* per method 2 * max_n: one unit's normal, then tangent angles */
    eval_method methods[SF_METHOD_COUNT];
    eval_variants* variants;               /* engines and truncations against the full deformation */
    eval_asset_view view;
} asset_ctx;

static void asset_free(asset_ctx* c)
{
    eval_variants_destroy(c->variants);
    for (size_t i = 0; c->evals && i < c->unit_count; ++i) sf_evaluation_destroy(c->evals[i]);
    free(c->evals);
    cli_gltf_units_free(c->units, c->unit_count);
    free(c->angles);
    eval_methods_free(c->methods);
    sf_gltf_pose_destroy(c->pose);
    sf_gltf_destroy(c->g);
}

/* The unit's statistics stay on the GPU (sf_evaluation_run without buffers, then sf_evaluation_accumulate):
 * a CUDA workspace, and tangents measured per vertex (per-corner MikkTSpace tangents are compared on the CPU). */
static bool stats_on_gpu(const asset_ctx* c, const cli_gltf_unit* u)
{
    bool corners = u->tangents && c->ref_opts.tangents == SF_TANGENTS_MIKKTSPACE &&
                   c->ref_opts.reference == SF_REFERENCE_REBUILT;
    return c->o->args.backend == SF_BACKEND_CUDA && !corners;
}

static int build_units(asset_ctx* c)
{
    const cli_scene_args* args = &c->o->args;
    uint32_t mask = cli_scene_args_methods_mask(args) | eval_variants_methods_mask(c->o);
    int code = cli_gltf_units_create(c->path, c->g, mask, args->backend, &c->env, &c->units, &c->unit_count);
    if (code != CLI_EXIT_OK) return code;
    c->evals = calloc(c->unit_count + 1, sizeof *c->evals);
    if (!c->evals) return cli_fail(CLI_EXIT_FAILURE, "out of memory");
    /* The angles of every frame go into per-method accumulators (eval_stats.c), so the evaluation skips its
     * per-run statistics and writes the angles into our buffers (run_unit). */
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.methods = args->method_order;
    desc.method_count = args->method_count;
    desc.method_opts = c->method_opts;
    desc.reference_opts = c->ref_opts;
    for (size_t i = 0; i < c->unit_count; ++i) {
        const cli_gltf_unit* u = &c->units[i];
        sf_error err;
        /* On the GPU the statistics stay there: each run's summary (sum, max, worst vertex) and the histogram
         * merged into the accumulators, no angle copied back. */
        desc.flags = stats_on_gpu(c, u) ? 0 : SF_EVAL_NO_STATISTICS;
        sf_result r = sf_evaluation_create(u->topo, &desc, NULL, &c->evals[i], &err);
        if (r == SF_ERROR_OUT_OF_MEMORY) return cli_fail(CLI_EXIT_FAILURE, "out of memory");
        if (r != SF_OK) return cli_fail(CLI_EXIT_FAILURE, "evaluation: %s", err.message);
        c->vertices += u->n;
        if (u->tangents) c->tangent_vertices += u->n;
        if (u->n > c->max_n) c->max_n = u->n;
    }
    c->angles = calloc(2 * SF_METHOD_COUNT * (c->max_n ? c->max_n : 1), sizeof(float));
    if (!c->angles) return cli_fail(CLI_EXIT_FAILURE, "out of memory for %zu vertices", c->max_n);
    code = eval_variants_create(c->o, c->path, c->g, c->units, c->unit_count, &c->ref_opts, &c->method_opts,
                                &c->variants);
    if (code != CLI_EXIT_OK) return code;
    return eval_methods_create(c->methods, args);
}

/* Unit i at its current pose: the evaluation, then each method's angles into its statistics. */
static int run_unit(asset_ctx* c, size_t i, size_t frame, bool track_worst)
{
    const cli_gltf_unit* u = &c->units[i];
    const sf_eval_results* res = sf_evaluation_results(c->evals[i]);
    sf_eval_buffers b;
    memset(&b, 0, sizeof b);
    for (size_t k = 0; k < res->row_count; ++k) {
        float* mine = c->angles + 2 * c->max_n * (size_t)res->rows[k].method;
        b.rows[k].normal_deg = mine;
        b.rows[k].tangent_deg = u->tangents ? mine + c->max_n : NULL;
    }
    sf_error err;
    bool gpu = stats_on_gpu(c, u);
    if (sf_evaluation_run(c->evals[i], &u->pose, u->ws, gpu ? NULL : &b, &err) != SF_OK) {
        if (res->failed == SF_EVAL_STAGE_METHOD)
            return cli_fail(CLI_EXIT_FAILURE, "%s: %s", sf_method_name(res->failed_method), err.message);
        return cli_fail(CLI_EXIT_FAILURE, "reference (recompute): %s", err.message);
    }
    for (size_t k = 0; k < res->row_count; ++k) {
        const sf_eval_row* row = &res->rows[k];
        eval_method* m = &c->methods[row->method];
        if (m->skipped) continue;
        if (row->status == SF_ERROR_UNSUPPORTED) {
            m->skipped = true;
            snprintf(m->reason, sizeof m->reason, "%s", row->detail.message);
            continue;
        }
        m->handedness += row->errors.handedness_mismatches;
        int code = gpu ? eval_method_add_summary(m, c->evals[i], k, u->tangents, i, frame, track_worst)
                       : eval_method_add(m, b.rows[k].normal_deg, b.rows[k].tangent_deg, u->n, i, frame, track_worst);
        if (code != CLI_EXIT_OK) return code;
    }
    return CLI_EXIT_OK;
}

/* The error every method already has at rest: identity bones, no morph. */
static int rest_errors(asset_ctx* c)
{
    const cli_scene_args* args = &c->o->args;
    for (size_t k = 0; k < args->method_count; ++k) eval_method_clip_start(&c->methods[args->method_order[k]]);
    int code = CLI_EXIT_OK;
    for (size_t i = 0; code == CLI_EXIT_OK && i < c->unit_count; ++i) {
        cli_gltf_unit* u = &c->units[i];
        for (size_t b = 0; b < u->pose.bone_count; ++b) {
            float* m = u->bones + 12 * b;
            memset(m, 0, 12 * sizeof(float));
            m[0] = m[4] = m[8] = 1.0f;
        }
        memset(u->morph, 0, (u->pose.morph_weight_count + 1) * sizeof(float));
        code = run_unit(c, i, 0, false);
    }
    for (size_t k = 0; code == CLI_EXIT_OK && k < args->method_count; ++k)
        code = eval_method_clip_finish(&c->methods[args->method_order[k]], true);
    return code;
}

/* One per-frame CSV row of method m (the animation label already quoted for CSV). */
static void csv_row(const asset_ctx* c, const char* csv_label, size_t f, double t, sf_method method)
{
    const eval_method* a = &c->methods[method];
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

/* The frames of clip anim (SF_GLTF_NONE: the rest pose) and its label; a one-line error over --max-frames. */
static int plan_clip(const asset_ctx* c, size_t anim, eval_plan* plan, char* label, size_t size)
{
    if (anim == SF_GLTF_NONE)
        snprintf(label, size, "(rest pose)");
    else
        cli_gltf_animation_label(c->g, anim, label, size);
    char what[160];
    snprintf(what, sizeof what, "animation %zu '%s'", anim, label);
    double end = anim == SF_GLTF_NONE ? 0.0 : c->g->animations[anim].end_s;
    return eval_plan_make(end, c->o->fps, c->o->max_frames, what, plan);
}

static int eval_animation(asset_ctx* c, size_t anim, cJSON* json_anims)
{
    const eval_opts* o = c->o;
    const cli_scene_args* args = &o->args;
    double end = anim == SF_GLTF_NONE ? 0.0 : c->g->animations[anim].end_s;
    char label[96];
    eval_plan plan;
    int code = plan_clip(c, anim, &plan, label, sizeof label);
    if (code != CLI_EXIT_OK) return code;
    char csv_label[2 * sizeof label]; /* quoted field: '"' doubled (names come from the file) */
    size_t csv_len = 0;
    for (const char* p = label; *p; ++p) {
        if (*p == '"') csv_label[csv_len++] = '"';
        csv_label[csv_len++] = *p;
    }
    csv_label[csv_len] = '\0';
    for (size_t k = 0; k < args->method_count; ++k) eval_method_clip_start(&c->methods[args->method_order[k]]);
    eval_variants_clip_start(c->variants);
    eval_progress progress;
    eval_progress_start(&progress, o->progress, label, plan.frames);
    double t0 = eval_now_s();
    for (size_t f = 0; code == CLI_EXIT_OK && f < plan.frames; ++f) {
        double t = eval_plan_time(&plan, f);
        sf_error err;
        if (sf_gltf_pose_sample(c->pose, anim, t, &err) != SF_OK) {
            code = cli_fail(CLI_EXIT_FAILURE, "%s", err.message);
            break;
        }
        for (size_t k = 0; k < args->method_count; ++k) eval_method_frame_start(&c->methods[args->method_order[k]]);
        for (size_t i = 0; code == CLI_EXIT_OK && i < c->unit_count; ++i) {
            code = cli_gltf_unit_pose(c->pose, &c->units[i], NULL);
            if (code == CLI_EXIT_OK) code = run_unit(c, i, f, true);
            if (code == CLI_EXIT_OK) code = eval_variants_run_unit(c->variants, i, &c->units[i], c->evals[i], f);
        }
        for (size_t k = 0; code == CLI_EXIT_OK && k < args->method_count; ++k) {
            sf_method m = args->method_order[k];
            if (c->methods[m].skipped) continue;
            eval_method_frame_end(&c->methods[m], f);
            if (o->csv) csv_row(c, csv_label, f, t, m);
        }
        eval_progress_step(&progress, f + 1);
    }
    eval_progress_end(&progress);
    double seconds = eval_now_s() - t0;
    for (size_t k = 0; code == CLI_EXIT_OK && k < args->method_count; ++k)
        code = eval_method_clip_finish(&c->methods[args->method_order[k]], false);
    if (code == CLI_EXIT_OK) code = eval_variants_clip_finish(c->variants);
    if (code != CLI_EXIT_OK) return code;
    if (o->json) {
        cJSON* a = cJSON_CreateObject();
        cJSON_AddItemToArray(json_anims, a);
        if (anim == SF_GLTF_NONE)
            cJSON_AddNullToObject(a, "index");
        else
            cJSON_AddNumberToObject(a, "index", (double)anim);
        cJSON_AddStringToObject(a, "name", anim == SF_GLTF_NONE ? "" : c->g->animations[anim].name);
        cJSON_AddNumberToObject(a, "duration_s", end);
        cJSON_AddNumberToObject(a, "frames", (double)plan.frames);
        cJSON_AddNumberToObject(a, "fps", o->fps);
        cJSON_AddNumberToObject(a, "vertices_per_frame", (double)c->vertices);
        cJSON_AddNumberToObject(a, "eval_seconds", seconds);
        cJSON_AddItemToObject(a, "methods", eval_report_methods_json(&c->view, c->methods, &plan));
        eval_variants_json(c->variants, c->methods, args, a);
    } else if (o->batch) {
        eval_clip clip = {label, &plan, c->vertices, c->tangent_vertices, c->methods};
        if (o->on_clip) o->on_clip(o, c->path, &clip);
        eval_variants_print(c->variants, c->methods, args);
    } else {
        char title[256];
        if (anim == SF_GLTF_NONE)
            snprintf(title, sizeof title, "rest pose (no animation): 1 frame, %zu vertices; %.3f s", c->vertices,
                     seconds);
        else
            snprintf(title, sizeof title, "animation %zu '%s': %.3f s, %zu frames at %g fps, %zu vertices per frame; "
                     "evaluated in %.3f s", anim, label, end, plan.frames, o->fps, c->vertices, seconds);
        eval_report_table(&c->view, c->methods, title, &plan);
        eval_variants_print(c->variants, c->methods, args);
    }
    return CLI_EXIT_OK;
}

static void print_header(const asset_ctx* c)
{
    printf("file: %s\n", c->path);
    printf("reference: recompute (weighting %s, weld %s, tangents %s, directions %s)\nmorph directions: %s\n",
           cli_weighting_name(c->ref_opts.weighting), cli_weld_name(c->ref_opts.weld),
           cli_tangents_name(c->ref_opts.tangents), cli_reference_name(c->ref_opts.reference),
           cli_morph_directions_name(c->o->args.morph_directions));
    printf("instances: %zu, primitives evaluated: %zu, vertices per frame: %zu (%zu with a tangent frame)\n",
           c->g->instance_count, c->unit_count, c->vertices, c->tangent_vertices);
    eval_report_tangent_note(stdout, c->vertices, c->tangent_vertices);
    eval_variants_print_influences(c->variants);
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
    eval_variants_influences_json(c->variants, root);
    return root;
}

int eval_asset(const eval_opts* o, const char* path, bool* done)
{
    asset_ctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.path = path;
    c.env = cli_env();
    double t_start = eval_now_s();
    int code = cli_gltf_load(path, NULL, (uint32_t)o->texcoord, o->args.tangents, &c.g);
    size_t anim = SF_GLTF_NONE;
    if (code == CLI_EXIT_OK) code = cli_gltf_pick_animation(c.g, o->anim_spec, true, &anim);
    sf_error err;
    if (code == CLI_EXIT_OK && sf_gltf_pose_create(c.g, NULL, &c.pose, &err) != SF_OK)
        code = cli_fail(CLI_EXIT_FAILURE, "%s", err.message);
    /* Every clip's frames, and their total work, are checked before any work or output. */
    size_t first = anim != SF_GLTF_NONE ? anim : 0;
    size_t last = anim != SF_GLTF_NONE ? anim + 1 : c.g && c.g->animation_count ? c.g->animation_count : 1;
    size_t frames = 0;
    for (size_t a = first; code == CLI_EXIT_OK && a < last; ++a) {
        eval_plan plan;
        char label[96];
        code = plan_clip(&c, c.g->animation_count ? a : SF_GLTF_NONE, &plan, label, sizeof label);
        frames = code == CLI_EXIT_OK && plan.frames <= SIZE_MAX - frames ? frames + plan.frames : SIZE_MAX;
    }
    if (code == CLI_EXIT_OK) code = eval_work_check(frames, instance_vertices(c.g), o->max_work, path);
    double t_loaded = eval_now_s();
    cli_gltf_frames_opts(&o->args, &c.ref_opts, &c.method_opts);
    if (code == CLI_EXIT_OK) code = build_units(&c);
    double t_topo = eval_now_s();
    eval_asset_view view = {path, c.g, c.units, c.unit_count, &o->args, c.vertices, c.tangent_vertices};
    c.view = view;
    cJSON* root = NULL;
    cJSON* janims = NULL;
    if (code == CLI_EXIT_OK && o->json) {
        root = json_header(&c);
        janims = cJSON_AddArrayToObject(root, "animations");
    } else if (code == CLI_EXIT_OK && !o->batch) {
        print_header(&c);
    }
    if (code == CLI_EXIT_OK) code = rest_errors(&c);
    if (code == CLI_EXIT_OK) {
        if (c.g->animation_count == 0)
            code = eval_animation(&c, SF_GLTF_NONE, janims);
        else if (anim != SF_GLTF_NONE)
            code = eval_animation(&c, anim, janims);
        else
            for (size_t a = 0; code == CLI_EXIT_OK && a < c.g->animation_count; ++a) {
                code = eval_animation(&c, a, janims);
                if (!o->json && !o->batch && a + 1 < c.g->animation_count) printf("\n");
            }
    }
    size_t problems = 0;
    if (code == CLI_EXIT_OK) {
        eval_problem_total totals[SF_GLTF_PROBLEM_COUNT];
        problems = eval_problems_gather(&c.view, (uint32_t)o->limit, totals);
        if (root)
            cJSON_AddItemToObject(root, "data_problems", eval_problems_json(&c.view, totals));
        else if (!o->batch)
            eval_problems_print(&c.view, o->limit, problems, totals);
    }
    double t_end = eval_now_s();
    bool strict_failed = code == CLI_EXIT_OK && o->strict && problems;
    /* One asset prints its report even under --strict (the problems are in it); a batch line stands for an
     * asset that passed. */
    bool print = code == CLI_EXIT_OK && !(o->batch && strict_failed);
    if (print) {
        if (root) {
            cJSON* t = cJSON_AddObjectToObject(root, "seconds");
            cJSON_AddNumberToObject(t, "load", t_loaded - t_start);
            cJSON_AddNumberToObject(t, "topology", t_topo - t_loaded);
            cJSON_AddNumberToObject(t, "total", t_end - t_start);
            char* text = o->batch ? cJSON_PrintUnformatted(root) : cJSON_Print(root);
            if (text) {
                cli_write_utf8(stdout, text); /* names from the file may hold invalid UTF-8 */
                putchar('\n');
                cJSON_free(text);
            } else {
                code = cli_fail(CLI_EXIT_FAILURE, "out of memory printing JSON");
                strict_failed = false;
            }
        } else if (!o->batch) {
            printf("\ntime: %.3f s total (load %.3f s, topology %.3f s), %zu thread(s)\n", t_end - t_start,
                   t_loaded - t_start, t_topo - t_loaded, cli_pool_threads());
        }
    }
    if (code == CLI_EXIT_OK && strict_failed)
        code = cli_fail(CLI_EXIT_FAILURE, "--strict: %zu data problem(s) in %s", problems, path);
    *done = code == CLI_EXIT_OK || strict_failed;
    cJSON_Delete(root);
    asset_free(&c);
    return code;
}

/* skinframe eval FILE: plays every frame of a glTF's animations and measures every method's normals and
 * tangents against the reference (recompute), per method over all frames and vertices, beside the error
 * the asset already has at rest; reports data problems apart, grouped by cause. */
#define _POSIX_C_SOURCE 200809L
#include "gltf_args.h"
#include "outputs.h"
#include "report.h"
#include "scene_args.h"

#include <cjson/cJSON.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE* f)
{
    fprintf(f,
            "Usage: skinframe eval FILE [--animation NAME|INDEX|all] [--fps 30] [--method all|NAME[,NAME]]\n"
            "                      [--morph-directions deltas|none] [--weighting area|angle|uniform]\n"
            "                      [--weld none|position|position-normal] [--tangents uv|mikktspace]\n"
            "                      [--reference rebuilt|authored] [--jacobian-cap X]\n"
            "                      [--json] [--csv FILE.csv] [--force] [--strict] [--threads N] [--texcoord N]\n"
            "                      [--max-influences N]\n"
            "                      [--max-vertices N] [--max-morph-elements N] [--max-decoded-bytes N]\n"
            "  Evaluates every frame (t = 0, 1/fps, ... up to the animation's last key) of each animation, for every\n"
            "  mesh instance of the scene (skinned meshes by their skin, others by their node transform), and prints\n"
            "  per method the normal and tangent error against the reference (recompute with the --weighting/--weld/\n"
            "  --tangents settings; for real assets the defaults are area, position-normal (UV seams welded, hard\n"
            "  edges kept) and mikktspace) over all frames and vertices: mean, p95, max, the rest-pose error beside it\n"
            "  (identity bones, no morph), the worst frame and the worst vertex. Data problems are listed apart;\n"
            "  --strict makes any of them exit with status 1. --csv writes per-frame rows (atomically; a .csv name,\n"
            "  never one of the files FILE reads, replacing only a CSV that eval wrote unless --force); --json\n"
            "  prints JSON. --texcoord N must name a TEXCOORD set that every primitive has.\n"
            "  A file without animations is evaluated at its rest pose (the scene's node transforms).\n"
            "  --max-vertices N, --max-morph-elements N and --max-decoded-bytes N raise the loader's limits on what\n"
            "  the file may cost, checked before anything is decoded (defaults: 16777216 vertices per primitive,\n"
            "  67108864 morph target x vertex elements per primitive, 64 MiB + 64 x the input's size decoded).\n");
}

typedef struct method_acc {
    bool skipped;
    char reason[256];
    float *nrm, *tan; /* angles over frames x vertices */
    size_t nrm_count, tan_count;
    sf_angle_stats normal, tangent, rest_normal, rest_tangent;
    size_t handedness;
    double worst_frame_mean;
    size_t worst_frame;
    double worst_n, worst_t;
    size_t worst_n_unit, worst_n_vertex, worst_n_frame, worst_t_unit, worst_t_vertex, worst_t_frame;
} method_acc;

typedef struct eval_ctx {
    const char* path;
    sf_gltf* g;
    sf_gltf_pose* pose;
    sf_env env;
    cli_gltf_unit* units;
    sf_evaluation** evals; /* unit_count: the reference and every method of one unit, allocated once */
    size_t unit_count;
    cli_scene_args args;
    sf_frames_opts ref_opts, method_opts; /* the reference (and recompute row); the other methods */
    double fps;
    bool json, progress;
    FILE* csv;
    size_t vertices, tangent_vertices; /* per frame over all units */
} eval_ctx;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void units_free(eval_ctx* c)
{
    for (size_t i = 0; c->evals && i < c->unit_count; ++i) sf_evaluation_destroy(c->evals[i]);
    free(c->evals);
    cli_gltf_units_free(c->units, c->unit_count);
}

static int build_units(eval_ctx* c)
{
    int code = cli_gltf_units_create(c->path, c->g, cli_scene_args_methods_mask(&c->args), &c->env, &c->units,
                                     &c->unit_count);
    if (code != CLI_EXIT_OK) return code;
    c->evals = calloc(c->unit_count + 1, sizeof *c->evals);
    if (!c->evals) return cli_fail(CLI_EXIT_FAILURE, "out of memory");
    /* The angles of every frame are pooled per method (exact percentiles over frames and vertices), so the
     * evaluation skips its per-run statistics; the angles go straight into the pools (eval_unit). */
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.methods = c->args.method_order;
    desc.method_count = c->args.method_count;
    desc.method_opts = c->method_opts;
    desc.reference_opts = c->ref_opts;
    desc.flags = SF_EVAL_NO_STATISTICS;
    for (size_t i = 0; i < c->unit_count; ++i) {
        const cli_gltf_unit* u = &c->units[i];
        sf_error err;
        sf_result r = sf_evaluation_create(u->topo, &desc, NULL, &c->evals[i], &err);
        if (r == SF_ERROR_OUT_OF_MEMORY) return cli_fail(CLI_EXIT_FAILURE, "out of memory");
        if (r != SF_OK) return cli_fail(CLI_EXIT_FAILURE, "evaluation: %s", err.message);
        c->vertices += u->n;
        if (u->tangents) c->tangent_vertices += u->n;
    }
    return CLI_EXIT_OK;
}

/* One method's angles of unit i, already written at the end of its pools (eval_unit). */
typedef void method_sink(eval_ctx* c, method_acc* acc, size_t i, size_t frame);

/* The evaluation of unit i at its current pose, the angles of each method appended to its pools. */
static int eval_unit(eval_ctx* c, size_t i, method_acc* accs, size_t frame, method_sink* sink)
{
    const cli_gltf_unit* u = &c->units[i];
    const sf_eval_results* res = sf_evaluation_results(c->evals[i]);
    sf_eval_buffers b;
    memset(&b, 0, sizeof b);
    for (size_t k = 0; k < res->row_count; ++k) {
        method_acc* acc = &accs[res->rows[k].method];
        if (acc->skipped) continue;
        b.rows[k].normal_deg = acc->nrm + acc->nrm_count;
        b.rows[k].tangent_deg = u->tangents ? acc->tan + acc->tan_count : NULL;
    }
    sf_error err;
    if (sf_evaluation_run(c->evals[i], &u->pose, u->ws, &b, &err) != SF_OK) {
        if (res->failed == SF_EVAL_STAGE_METHOD)
            return cli_fail(CLI_EXIT_FAILURE, "%s: %s", sf_method_name(res->failed_method), err.message);
        return cli_fail(CLI_EXIT_FAILURE, "reference (recompute): %s", err.message);
    }
    for (size_t k = 0; k < res->row_count; ++k) {
        const sf_eval_row* row = &res->rows[k];
        method_acc* acc = &accs[row->method];
        if (acc->skipped) continue;
        if (row->status == SF_ERROR_UNSUPPORTED) {
            acc->skipped = true;
            snprintf(acc->reason, sizeof acc->reason, "%s", row->detail.message);
            continue;
        }
        acc->handedness += row->errors.handedness_mismatches;
        sink(c, acc, i, frame);
    }
    return CLI_EXIT_OK;
}

/* ---------------------------------------------------------------- sinks */

static void collect(eval_ctx* c, method_acc* acc, size_t i, size_t frame)
{
    const cli_gltf_unit* u = &c->units[i];
    for (size_t v = 0; v < u->n; ++v) {
        float a = acc->nrm[acc->nrm_count++];
        if (a > acc->worst_n) {
            acc->worst_n = a;
            acc->worst_n_unit = i;
            acc->worst_n_vertex = v;
            acc->worst_n_frame = frame;
        }
        if (u->tangents) {
            float t = acc->tan[acc->tan_count++];
            if (t > acc->worst_t) {
                acc->worst_t = t;
                acc->worst_t_unit = i;
                acc->worst_t_vertex = v;
                acc->worst_t_frame = frame;
            }
        }
    }
}

static void collect_rest(eval_ctx* c, method_acc* acc, size_t i, size_t frame)
{
    (void)frame;
    const cli_gltf_unit* u = &c->units[i];
    acc->nrm_count += u->n;
    if (u->tangents) acc->tan_count += u->n;
}

/* ---------------------------------------------------------------- output */

static void fmt_deg(char* buf, size_t size, const sf_angle_stats* s, double v, bool have)
{
    if (!have || s->count == 0)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.3f", v);
}

static void where(const eval_ctx* c, size_t unit_index, size_t vertex, char* buf, size_t size)
{
    const cli_gltf_unit* u = &c->units[unit_index];
    const sf_gltf_primitive* pr = &c->g->primitives[u->primitive];
    const sf_gltf_instance* in = &c->g->instances[u->instance];
    snprintf(buf, size, "node %zu mesh %zu primitive %zu vertex %u%s", in->node, pr->mesh_index, pr->primitive_index,
             pr->source_vertex[vertex], pr->flat_normals ? " (flat-split)" : "");
}

static void print_table(const eval_ctx* c, const method_acc* accs, const char* title, size_t frames,
                        const double* times)
{
    printf("%s\n", title);
    printf("  %-17s%24s |%24s |%32s | %s\n", "", "normal error, deg", "tangent error, deg", "rest-pose error, deg",
           "worst");
    printf("  %-17s%8s%8s%8s |%8s%8s%8s |%8s%8s%8s%8s | %s\n", "method", "mean", "p95", "max", "mean", "p95", "max",
           "N mean", "N max", "T mean", "T max", "frame @ t");
    for (size_t k = 0; k < c->args.method_count; ++k) {
        sf_method m = c->args.method_order[k];
        const method_acc* a = &accs[m];
        if (a->skipped) {
            printf("  %-17s skipped: %s\n", sf_method_name(m), a->reason);
            continue;
        }
        char b[11][32];
        bool tan = c->tangent_vertices > 0;
        fmt_deg(b[0], 32, &a->normal, a->normal.mean, true);
        fmt_deg(b[1], 32, &a->normal, a->normal.p95, true);
        fmt_deg(b[2], 32, &a->normal, a->normal.max, true);
        fmt_deg(b[3], 32, &a->tangent, a->tangent.mean, tan);
        fmt_deg(b[4], 32, &a->tangent, a->tangent.p95, tan);
        fmt_deg(b[5], 32, &a->tangent, a->tangent.max, tan);
        fmt_deg(b[6], 32, &a->rest_normal, a->rest_normal.mean, true);
        fmt_deg(b[7], 32, &a->rest_normal, a->rest_normal.max, true);
        fmt_deg(b[8], 32, &a->rest_tangent, a->rest_tangent.mean, tan);
        fmt_deg(b[9], 32, &a->rest_tangent, a->rest_tangent.max, tan);
        printf("  %-17s%8s%8s%8s |%8s%8s%8s |%8s%8s%8s%8s | %zu @ %.3fs\n", sf_method_name(m), b[0], b[1], b[2],
               b[3], b[4], b[5], b[6], b[7], b[8], b[9], a->worst_frame,
               a->worst_frame < frames ? times[a->worst_frame] : 0.0);
    }
    for (size_t k = 0; k < c->args.method_count; ++k) {
        sf_method m = c->args.method_order[k];
        const method_acc* a = &accs[m];
        if (a->skipped || a->normal.count == 0) continue;
        char w[160];
        where(c, a->worst_n_unit, a->worst_n_vertex, w, sizeof w);
        if (a->normal.max == 0.0 && a->tangent.max == 0.0) continue; /* nothing to point at */
        printf("  worst %s: frame %zu @ %.3fs (normal mean %.3f)", sf_method_name(m), a->worst_frame,
               a->worst_frame < frames ? times[a->worst_frame] : 0.0, a->worst_frame_mean);
        if (a->handedness) printf(", handedness mismatches %zu (vertex-frames)", a->handedness);
        printf("\n    normal %.3f deg at frame %zu (t %.3f s), %s\n", a->worst_n, a->worst_n_frame,
               a->worst_n_frame < frames ? times[a->worst_n_frame] : 0.0, w);
        if (a->tangent.count) {
            where(c, a->worst_t_unit, a->worst_t_vertex, w, sizeof w);
            printf("    tangent %.3f deg at frame %zu (t %.3f s), %s\n", a->worst_t, a->worst_t_frame,
                   a->worst_t_frame < frames ? times[a->worst_t_frame] : 0.0, w);
        }
    }
}

/* {"angle_deg", "frame", "node", "mesh", "primitive", "vertex" (as in the file)} under key. */
static void worst_vertex_json(const eval_ctx* c, cJSON* o, const char* key, double angle, size_t frame, size_t unit,
                              size_t vertex)
{
    const cli_gltf_unit* u = &c->units[unit];
    const sf_gltf_primitive* pr = &c->g->primitives[u->primitive];
    cJSON* wv = cJSON_AddObjectToObject(o, key);
    cJSON_AddNumberToObject(wv, "angle_deg", angle);
    cJSON_AddNumberToObject(wv, "frame", (double)frame);
    cJSON_AddNumberToObject(wv, "node", (double)c->g->instances[u->instance].node);
    cJSON_AddNumberToObject(wv, "mesh", (double)pr->mesh_index);
    cJSON_AddNumberToObject(wv, "primitive", (double)pr->primitive_index);
    cJSON_AddNumberToObject(wv, "vertex", (double)pr->source_vertex[vertex]);
}

static cJSON* table_json(const eval_ctx* c, const method_acc* accs, size_t frames, const double* times)
{
    cJSON* arr = cJSON_CreateArray();
    for (size_t k = 0; k < c->args.method_count; ++k) {
        sf_method m = c->args.method_order[k];
        const method_acc* a = &accs[m];
        cJSON* o = cJSON_CreateObject();
        cJSON_AddItemToArray(arr, o);
        cJSON_AddStringToObject(o, "method", sf_method_name(m));
        if (a->skipped) {
            cJSON_AddBoolToObject(o, "skipped", 1);
            cJSON_AddStringToObject(o, "reason", a->reason);
            continue;
        }
        cJSON_AddItemToObject(o, "normal", report_stats_json(&a->normal));
        cJSON_AddItemToObject(o, "tangent", report_stats_json(&a->tangent));
        cJSON_AddItemToObject(o, "rest_normal", report_stats_json(&a->rest_normal));
        cJSON_AddItemToObject(o, "rest_tangent", report_stats_json(&a->rest_tangent));
        cJSON_AddNumberToObject(o, "handedness_mismatches", (double)a->handedness);
        cJSON* wf = cJSON_AddObjectToObject(o, "worst_frame");
        cJSON_AddNumberToObject(wf, "frame", (double)a->worst_frame);
        cJSON_AddNumberToObject(wf, "time_s", a->worst_frame < frames ? times[a->worst_frame] : 0.0);
        cJSON_AddNumberToObject(wf, "normal_mean", a->worst_frame_mean);
        if (a->normal.count)
            worst_vertex_json(c, o, "worst_normal_vertex", a->worst_n, a->worst_n_frame, a->worst_n_unit,
                              a->worst_n_vertex);
        if (a->tangent.count)
            worst_vertex_json(c, o, "worst_tangent_vertex", a->worst_t, a->worst_t_frame, a->worst_t_unit,
                              a->worst_t_vertex);
    }
    return arr;
}

/* ---------------------------------------------------------------- one animation */

static void accs_free(method_acc* accs)
{
    for (int m = 0; m < SF_METHOD_COUNT; ++m) {
        free(accs[m].nrm);
        free(accs[m].tan);
        accs[m].nrm = accs[m].tan = NULL;
    }
}

/* Angle arrays of `frames` frames for the methods asked for (every vertex of every frame is kept, for the
 * exact percentiles). */
static int accs_alloc(const eval_ctx* c, method_acc* accs, size_t frames)
{
    size_t nrm = c->vertices, tan = c->tangent_vertices;
    if (nrm && frames > SIZE_MAX / sizeof(float) / nrm)
        return cli_fail(CLI_EXIT_FAILURE, "%zu frames of %zu vertices do not fit in memory", frames, nrm);
    nrm *= frames, tan *= frames;
    for (size_t k = 0; k < c->args.method_count; ++k) {
        method_acc* a = &accs[c->args.method_order[k]];
        a->nrm = malloc((nrm ? nrm : 1) * sizeof(float));
        a->tan = malloc((tan ? tan : 1) * sizeof(float));
        a->nrm_count = a->tan_count = 0;
        if (!a->nrm || !a->tan)
            return cli_fail(CLI_EXIT_FAILURE, "out of memory for %zu angles per method", nrm + tan);
    }
    return CLI_EXIT_OK;
}

/* Statistics of what the methods asked for collected (normal and tangent, into *normal and *tangent). */
static int accs_stats(const eval_ctx* c, method_acc* accs, bool rest)
{
    for (size_t k = 0; k < c->args.method_count; ++k) {
        method_acc* a = &accs[c->args.method_order[k]];
        sf_error err;
        if (sf_angle_stats_compute(a->nrm, a->nrm_count, NULL, NULL, rest ? &a->rest_normal : &a->normal, &err) !=
                SF_OK ||
            sf_angle_stats_compute(a->tan, a->tan_count, NULL, NULL, rest ? &a->rest_tangent : &a->tangent, &err) !=
                SF_OK)
            return cli_fail(CLI_EXIT_FAILURE, "statistics: %s", err.message);
    }
    return CLI_EXIT_OK;
}

static int rest_errors(eval_ctx* c, method_acc* accs)
{
    int code = accs_alloc(c, accs, 1);
    for (size_t i = 0; code == CLI_EXIT_OK && i < c->unit_count; ++i) {
        cli_gltf_unit* u = &c->units[i];
        for (size_t b = 0; b < u->pose.bone_count; ++b) {
            float* m = u->bones + 12 * b;
            memset(m, 0, 12 * sizeof(float));
            m[0] = m[4] = m[8] = 1.0f;
        }
        memset(u->morph, 0, (u->pose.morph_weight_count + 1) * sizeof(float));
        code = eval_unit(c, i, accs, 0, collect_rest);
    }
    if (code == CLI_EXIT_OK) code = accs_stats(c, accs, true);
    accs_free(accs);
    return code;
}

static int eval_animation(eval_ctx* c, size_t anim, method_acc* rest, cJSON* json_anims)
{
    double end = anim == SF_GLTF_NONE ? 0.0 : c->g->animations[anim].end_s;
    double last = floor(end * c->fps + 1e-6); /* checked before the conversion: the file sets end */
    if (!(last >= 0.0) || last >= 1000000.0)
        return cli_fail(CLI_EXIT_FAILURE, "animation %zu: %g s at %g fps is not 1..1000000 frames", anim, end, c->fps);
    size_t frames = (size_t)last + 1;
    double* times = malloc(frames * sizeof(double));
    method_acc accs[SF_METHOD_COUNT];
    memset(accs, 0, sizeof accs);
    if (!times) return cli_fail(CLI_EXIT_FAILURE, "out of memory");
    for (size_t f = 0; f < frames; ++f) times[f] = (double)f / c->fps;
    int code = accs_alloc(c, accs, frames);
    for (int m = 0; m < SF_METHOD_COUNT; ++m) {
        accs[m].rest_normal = rest[m].rest_normal;
        accs[m].rest_tangent = rest[m].rest_tangent;
        accs[m].skipped = rest[m].skipped;
        memcpy(accs[m].reason, rest[m].reason, sizeof accs[m].reason);
        accs[m].worst_n = accs[m].worst_t = -1.0;
        accs[m].worst_frame_mean = -1.0;
    }
    char label[96];
    if (anim == SF_GLTF_NONE)
        snprintf(label, sizeof label, "(rest pose)");
    else
        cli_gltf_animation_label(c->g, anim, label, sizeof label);
    char csv_label[2 * sizeof label]; /* quoted field: '"' doubled (names come from the file) */
    size_t csv_len = 0;
    for (const char* p = label; *p; ++p) {
        if (*p == '"') csv_label[csv_len++] = '"';
        csv_label[csv_len++] = *p;
    }
    csv_label[csv_len] = '\0';
    double t0 = now_s();
    for (size_t f = 0; code == CLI_EXIT_OK && f < frames; ++f) {
        sf_error err;
        if (sf_gltf_pose_sample(c->pose, anim, times[f], &err) != SF_OK) {
            code = cli_fail(CLI_EXIT_FAILURE, "%s", err.message);
            break;
        }
        size_t before[SF_METHOD_COUNT];
        for (int m = 0; m < SF_METHOD_COUNT; ++m) before[m] = accs[m].nrm_count;
        size_t tbefore[SF_METHOD_COUNT];
        for (int m = 0; m < SF_METHOD_COUNT; ++m) tbefore[m] = accs[m].tan_count;
        for (size_t i = 0; code == CLI_EXIT_OK && i < c->unit_count; ++i) {
            code = cli_gltf_unit_pose(c->pose, &c->units[i], NULL);
            if (code == CLI_EXIT_OK) code = eval_unit(c, i, accs, f, collect);
        }
        for (size_t k = 0; code == CLI_EXIT_OK && k < c->args.method_count; ++k) {
            sf_method m = c->args.method_order[k];
            method_acc* a = &accs[m];
            if (a->skipped) continue;
            double sn = 0.0, st = 0.0;
            float mn = 0.0f, mt = 0.0f;
            for (size_t q = before[m]; q < a->nrm_count; ++q) sn += a->nrm[q], mn = a->nrm[q] > mn ? a->nrm[q] : mn;
            for (size_t q = tbefore[m]; q < a->tan_count; ++q) st += a->tan[q], mt = a->tan[q] > mt ? a->tan[q] : mt;
            size_t cn = a->nrm_count - before[m], ct = a->tan_count - tbefore[m];
            double mean = cn ? sn / (double)cn : 0.0;
            if (mean > a->worst_frame_mean) a->worst_frame_mean = mean, a->worst_frame = f;
            if (c->csv) {
                fprintf(c->csv, "\"%s\",%zu,%.6f,%s,%.6f,%.6f,", csv_label, f, times[f], sf_method_name(m), mean,
                        (double)mn);
                if (ct)
                    fprintf(c->csv, "%.6f,%.6f\n", st / (double)ct, (double)mt);
                else
                    fprintf(c->csv, ",\n");
            }
        }
        if (c->progress) {
            int width = 30, done = (int)((f + 1) * (size_t)width / frames);
            fprintf(stderr, "\r%-24.24s [%.*s%*s] %zu/%zu", label, done, "##############################",
                    width - done, "", f + 1, frames);
            fflush(stderr);
        }
    }
    if (c->progress) fprintf(stderr, "\r%*s\r", 80, "");
    double seconds = now_s() - t0;
    if (code == CLI_EXIT_OK) code = accs_stats(c, accs, false);
    for (int m = 0; code == CLI_EXIT_OK && m < SF_METHOD_COUNT; ++m)
        if (accs[m].skipped) rest[m].skipped = true, memcpy(rest[m].reason, accs[m].reason, sizeof accs[m].reason);
    if (code == CLI_EXIT_OK) {
        char title[256];
        if (anim == SF_GLTF_NONE)
            snprintf(title, sizeof title, "rest pose (no animation): 1 frame, %zu vertices; %.3f s", c->vertices,
                     seconds);
        else
            snprintf(title, sizeof title, "animation %zu '%s': %.3f s, %zu frames at %g fps, %zu vertices per frame; "
                     "evaluated in %.3f s", anim, label, end, frames, c->fps, c->vertices, seconds);
        if (c->json) {
            cJSON* o = cJSON_CreateObject();
            cJSON_AddItemToArray(json_anims, o);
            if (anim == SF_GLTF_NONE)
                cJSON_AddNullToObject(o, "index");
            else
                cJSON_AddNumberToObject(o, "index", (double)anim);
            cJSON_AddStringToObject(o, "name", anim == SF_GLTF_NONE ? "" : c->g->animations[anim].name);
            cJSON_AddNumberToObject(o, "duration_s", end);
            cJSON_AddNumberToObject(o, "frames", (double)frames);
            cJSON_AddNumberToObject(o, "fps", c->fps);
            cJSON_AddNumberToObject(o, "vertices_per_frame", (double)c->vertices);
            cJSON_AddNumberToObject(o, "eval_seconds", seconds);
            cJSON_AddItemToObject(o, "methods", table_json(c, accs, frames, times));
        } else {
            print_table(c, accs, title, frames, times);
        }
    }
    accs_free(accs);
    free(times);
    return code;
}

/* ---------------------------------------------------------------- data problems */

typedef struct problem_total {
    size_t count, primitive, index;
    double worst;
    bool any;
} problem_total;

static size_t gather_problems(eval_ctx* c, uint32_t limit, problem_total* totals)
{
    memset(totals, 0, SF_GLTF_PROBLEM_COUNT * sizeof *totals);
    size_t all = 0;
    for (size_t p = 0; p < c->g->primitive_count; ++p) {
        bool used = false;
        for (size_t i = 0; i < c->unit_count; ++i) used |= c->units[i].primitive == p;
        if (!used) continue;
        sf_gltf_inspection in;
        if (sf_gltf_primitive_inspect(c->g, p, limit, NULL, &in, NULL) != SF_OK) continue;
        for (int k = 0; k < SF_GLTF_PROBLEM_COUNT; ++k) {
            const sf_gltf_problem_stat* s = &in.problems[k];
            if (!s->count) continue;
            problem_total* t = &totals[k];
            if (!t->any || s->worst_value > t->worst) t->worst = s->worst_value, t->primitive = p, t->index = s->worst_index;
            t->any = true;
            t->count += s->count;
            all += s->count;
        }
    }
    return all;
}

static const char* problem_unit(sf_gltf_problem k)
{
    switch (k) {
    case SF_GLTF_PROBLEM_MORPH_ZERO_NORMALS: return "target";
    case SF_GLTF_PROBLEM_DEGENERATE_TRIANGLE:
    case SF_GLTF_PROBLEM_DEGENERATE_UV: return "triangle";
    default: return "vertex";
    }
}

/* ---------------------------------------------------------------- command */

int cmd_eval(int argc, char** argv)
{
    eval_ctx c;
    memset(&c, 0, sizeof c);
    cli_scene_args_init(&c.args);
    cli_gltf_flags flags = {false, false};
    c.fps = 30.0;
    const char* anim_spec = NULL;
    const char* csv_path = NULL;
    sf_file_writer* csv_writer = NULL;
    bool strict = false;
    size_t texcoord = 0, limit = 4;
    for (int i = 1; i < argc; ++i) {
        const char* v;
        int r;
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--animation", &v)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            anim_spec = v;
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--fps", &v)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            if (!cli_parse_double(v, &c.fps) || !(c.fps > 0.0) || c.fps > 10000.0)
                return cli_fail(CLI_EXIT_USAGE, "--fps: '%s' is not a number in (0, 10000]", v);
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--csv", &v)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            csv_path = v;
            continue;
        }
        if ((r = cli_gltf_parse_counts(argc, argv, &i, &texcoord, &limit)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            continue;
        }
        if ((r = cli_flag_switch(argv, i, "--json")) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            c.json = true;
            continue;
        }
        if ((r = cli_flag_switch(argv, i, "--strict")) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            strict = true;
            continue;
        }
        if ((r = cli_outputs_parse_force(argv, i)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            continue;
        }
        r = cli_gltf_parse_shared(&flags, &c.args, argc, argv, &i, "eval");
        if (r < 0) return CLI_EXIT_USAGE;
        if (r > 0) continue;
        if (argv[i][0] == '-' && argv[i][1]) return cli_fail(CLI_EXIT_USAGE, "eval: unknown flag %s", argv[i]);
        if (c.path) return cli_fail(CLI_EXIT_USAGE, "eval: one FILE only (got %s and %s)", c.path, argv[i]);
        c.path = argv[i];
    }
    if (!c.path) return cli_fail(CLI_EXIT_USAGE, "eval: missing FILE (see skinframe eval --help)");
    if (csv_path && cli_output_name("--csv", csv_path, CLI_OUTPUT_EVAL_CSV) != CLI_EXIT_OK) return CLI_EXIT_USAGE;
    cli_gltf_reference_defaults(&flags, &c.args);
    if (cli_pool_start(c.args.threads) != 0) return cli_fail(CLI_EXIT_FAILURE, "eval: cannot start threads");
    c.env = cli_env();
    double t_start = now_s();
    int code = cli_gltf_load(c.path, NULL, (uint32_t)texcoord, c.args.tangents, &c.g);
    if (code != CLI_EXIT_OK) return code;
    size_t anim;
    code = csv_path ? cli_output_check("--csv", csv_path, CLI_OUTPUT_EVAL_CSV) : CLI_EXIT_OK; /* before the work */
    if (code == CLI_EXIT_OK) code = cli_gltf_pick_animation(c.g, anim_spec, true, &anim);
    sf_error err;
    if (code == CLI_EXIT_OK && sf_gltf_pose_create(c.g, NULL, &c.pose, &err) != SF_OK)
        code = cli_fail(CLI_EXIT_FAILURE, "%s", err.message);
    double t_loaded = now_s();
    cli_gltf_frames_opts(&c.args, &c.ref_opts, &c.method_opts);
    if (code == CLI_EXIT_OK) code = build_units(&c);
    double t_topo = now_s();
    c.progress = !c.json && isatty(fileno(stderr));
    if (code == CLI_EXIT_OK && csv_path) {
        code = cli_output_open("--csv", csv_path, CLI_OUTPUT_EVAL_CSV, &csv_writer);
        c.csv = sf_file_writer_stream(csv_writer);
        if (c.csv) fprintf(c.csv, "%s\n", CLI_EVAL_CSV_HEADER);
    }
    cJSON* root = c.json ? cJSON_CreateObject() : NULL;
    cJSON* janims = NULL;
    if (code == CLI_EXIT_OK && !c.json) {
        printf("file: %s\n", c.path);
        printf("reference: recompute (weighting %s, weld %s, tangents %s, directions %s)\nmorph directions: %s\n",
               cli_weighting_name(c.ref_opts.weighting), cli_weld_name(c.ref_opts.weld), cli_tangents_name(c.ref_opts.tangents),
               cli_reference_name(c.ref_opts.reference), cli_morph_directions_name(c.args.morph_directions));
        printf("instances: %zu, primitives evaluated: %zu, vertices per frame: %zu (%zu with a tangent frame)\n",
               c.g->instance_count, c.unit_count, c.vertices, c.tangent_vertices);
        printf("errors in degrees against the reference over all frames and vertices; rest = identity bones, no morph\n\n");
    }
    if (root) {
        cJSON_AddStringToObject(root, "file", c.path);
        cJSON* ref = cJSON_AddObjectToObject(root, "reference");
        cJSON_AddStringToObject(ref, "method", "recompute");
        cJSON_AddStringToObject(ref, "weighting", cli_weighting_name(c.ref_opts.weighting));
        cJSON_AddStringToObject(ref, "weld", cli_weld_name(c.ref_opts.weld));
        cJSON_AddStringToObject(ref, "tangents", cli_tangents_name(c.ref_opts.tangents));
        cJSON_AddStringToObject(ref, "directions", cli_reference_name(c.ref_opts.reference));
        cJSON_AddStringToObject(root, "morph_directions", cli_morph_directions_name(c.args.morph_directions));
        cJSON_AddNumberToObject(root, "vertices_per_frame", (double)c.vertices);
        janims = cJSON_AddArrayToObject(root, "animations");
    }
    method_acc rest[SF_METHOD_COUNT];
    memset(rest, 0, sizeof rest);
    if (code == CLI_EXIT_OK) code = rest_errors(&c, rest);
    if (code == CLI_EXIT_OK) {
        if (c.g->animation_count == 0)
            code = eval_animation(&c, SF_GLTF_NONE, rest, janims);
        else if (anim != SF_GLTF_NONE)
            code = eval_animation(&c, anim, rest, janims);
        else
            for (size_t a = 0; code == CLI_EXIT_OK && a < c.g->animation_count; ++a) {
                code = eval_animation(&c, a, rest, janims);
                if (!c.json && a + 1 < c.g->animation_count) printf("\n");
            }
    }
    size_t problems = 0;
    if (code == CLI_EXIT_OK) {
        problem_total totals[SF_GLTF_PROBLEM_COUNT];
        problems = gather_problems(&c, (uint32_t)limit, totals);
        if (root) {
            cJSON* jp = cJSON_AddArrayToObject(root, "data_problems");
            for (int k = 0; k < SF_GLTF_PROBLEM_COUNT; ++k) {
                if (!totals[k].count) continue;
                cJSON* o = cJSON_CreateObject();
                cJSON_AddItemToArray(jp, o);
                cJSON_AddStringToObject(o, "cause", sf_gltf_problem_name((sf_gltf_problem)k));
                cJSON_AddStringToObject(o, "description", sf_gltf_problem_description((sf_gltf_problem)k));
                cJSON_AddNumberToObject(o, "count", (double)totals[k].count);
                cJSON_AddNumberToObject(o, "worst_mesh", (double)c.g->primitives[totals[k].primitive].mesh_index);
                cJSON_AddNumberToObject(o, "worst_primitive",
                                        (double)c.g->primitives[totals[k].primitive].primitive_index);
                cJSON_AddStringToObject(o, "worst_kind", problem_unit((sf_gltf_problem)k));
                cJSON_AddNumberToObject(o, "worst_index", (double)totals[k].index);
                cJSON_AddNumberToObject(o, "worst_value", totals[k].worst);
            }
        } else {
            printf("\ndata problems (authored data, apart from method error; limit %zu influences):%s\n", limit,
                   problems ? "" : " none");
            for (int k = 0; k < SF_GLTF_PROBLEM_COUNT; ++k) {
                if (!totals[k].count) continue;
                const sf_gltf_primitive* pr = &c.g->primitives[totals[k].primitive];
                printf("  %-28s %6zu  worst: mesh %zu primitive %zu %s %zu (%g)\n      %s\n",
                       sf_gltf_problem_name((sf_gltf_problem)k), totals[k].count, pr->mesh_index, pr->primitive_index,
                       problem_unit((sf_gltf_problem)k), totals[k].index, totals[k].worst,
                       sf_gltf_problem_description((sf_gltf_problem)k));
            }
        }
    }
    double t_end = now_s();
    if (code == CLI_EXIT_OK) {
        if (root) {
            cJSON* t = cJSON_AddObjectToObject(root, "seconds");
            cJSON_AddNumberToObject(t, "load", t_loaded - t_start);
            cJSON_AddNumberToObject(t, "topology", t_topo - t_loaded);
            cJSON_AddNumberToObject(t, "total", t_end - t_start);
            char* text = cJSON_Print(root);
            if (text) {
                cli_write_utf8(stdout, text); /* names from the file may hold invalid UTF-8 */
                putchar('\n');
                cJSON_free(text);
            }
        } else {
            printf("\ntime: %.3f s total (load %.3f s, topology %.3f s), %zu thread(s)\n", t_end - t_start,
                   t_loaded - t_start, t_topo - t_loaded, cli_pool_threads());
        }
    }
    cJSON_Delete(root);
    if (csv_writer && code == CLI_EXIT_OK)
        code = cli_output_commit("--csv", csv_writer); /* renamed into place only when complete */
    else
        sf_file_writer_abort(csv_writer);
    units_free(&c);
    sf_gltf_pose_destroy(c.pose);
    sf_gltf_destroy(c.g);
    if (code == CLI_EXIT_OK && strict && problems)
        code = cli_fail(CLI_EXIT_FAILURE, "--strict: %zu data problem(s) in %s", problems, c.path);
    return code;
}

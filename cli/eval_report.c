/* One asset's eval report: the per-method table (text) or objects (JSON) of a clip, the worst frame and
 * vertices, and the data problems, grouped by cause. */
#include "eval.h"
#include "report.h"

#include <string.h>

static void fmt_deg(char* buf, size_t size, const sf_angle_stats* s, double v, bool have)
{
    if (!have || s->count == 0)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.3f", v);
}

static void where(const eval_asset_view* a, size_t unit_index, size_t vertex, char* buf, size_t size)
{
    const cli_gltf_unit* u = &a->units[unit_index];
    const sf_gltf_primitive* pr = &a->g->primitives[u->primitive];
    const sf_gltf_instance* in = &a->g->instances[u->instance];
    snprintf(buf, size, "node %zu mesh %zu primitive %zu vertex %u%s", in->node, pr->mesh_index, pr->primitive_index,
             pr->source_vertex[vertex], pr->flat_normals ? " (flat-split)" : "");
}

void eval_report_tangent_note(FILE* f, size_t vertices, size_t tangent_vertices)
{
    if (tangent_vertices == 0)
        fprintf(f, "tangents not measured: no TEXCOORD\n");
    else if (tangent_vertices < vertices)
        fprintf(f, "tangents not measured on %zu of %zu vertices per frame: no TEXCOORD in their primitives\n",
                vertices - tangent_vertices, vertices);
}

void eval_report_table(const eval_asset_view* c, const sf_method_stats* accs, const char* title, const sf_clip_plan* plan)
{
    printf("%s\n", title);
    printf("  %-20s%24s |%24s |%32s | %s\n", "", "normal error, deg", "tangent error, deg", "rest-pose error, deg",
           "worst");
    printf("  %-20s%8s%8s%8s |%8s%8s%8s |%8s%8s%8s%8s | %s\n", "method", "mean", "p95", "max", "mean", "p95", "max",
           "N mean", "N max", "T mean", "T max", "frame @ t");
    for (size_t k = 0; k < c->args->method_count; ++k) {
        sf_method m = c->args->method_order[k];
        const sf_method_stats* a = &accs[m];
        if (a->skipped) {
            printf("  %-20s skipped: %s\n", sf_method_name(m), a->reason);
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
        printf("  %-20s%8s%8s%8s |%8s%8s%8s |%8s%8s%8s%8s | %zu @ %.3fs\n", sf_method_name(m), b[0], b[1], b[2],
               b[3], b[4], b[5], b[6], b[7], b[8], b[9], a->worst_frame, sf_clip_plan_time(plan, a->worst_frame));
    }
    for (size_t k = 0; k < c->args->method_count; ++k) {
        sf_method m = c->args->method_order[k];
        const sf_method_stats* a = &accs[m];
        if (a->skipped || a->normal.count == 0) continue;
        char w[160];
        where(c, a->worst_n_unit, a->worst_n_vertex, w, sizeof w);
        if (a->normal.max == 0.0 && a->tangent.max == 0.0) continue; /* nothing to point at */
        printf("  worst %s: frame %zu @ %.3fs (normal mean %.3f)", sf_method_name(m), a->worst_frame,
               sf_clip_plan_time(plan, a->worst_frame), a->worst_frame_mean);
        if (a->handedness) printf(", handedness mismatches %zu (vertex-frames)", a->handedness);
        printf("\n    normal %.3f deg at frame %zu (t %.3f s), %s\n", a->worst_n, a->worst_n_frame,
               sf_clip_plan_time(plan, a->worst_n_frame), w);
        if (a->tangent.count) {
            where(c, a->worst_t_unit, a->worst_t_vertex, w, sizeof w);
            printf("    tangent %.3f deg at frame %zu (t %.3f s), %s\n", a->worst_t, a->worst_t_frame,
                   sf_clip_plan_time(plan, a->worst_t_frame), w);
        }
    }
}

/* {"angle_deg", "frame", "node", "mesh", "primitive", "vertex" (as in the file)} under key. */
static void worst_vertex_json(const eval_asset_view* c, cJSON* o, const char* key, double angle, size_t frame,
                              size_t unit, size_t vertex)
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

cJSON* eval_report_methods_json(const eval_asset_view* c, const sf_method_stats* accs, const sf_clip_plan* plan)
{
    cJSON* arr = cJSON_CreateArray();
    for (size_t k = 0; k < c->args->method_count; ++k) {
        sf_method m = c->args->method_order[k];
        const sf_method_stats* a = &accs[m];
        cJSON* o = cJSON_CreateObject();
        cJSON_AddItemToArray(arr, o);
        cJSON_AddStringToObject(o, "method", sf_method_name(m));
        if (a->skipped) {
            cJSON_AddBoolToObject(o, "skipped", 1);
            cJSON_AddStringToObject(o, "reason", a->reason);
            continue;
        }
        /* Statistics not measured (no tangent frame anywhere) are null, never 0 (report_stats_json). */
        bool tan = a->tangent.count > 0;
        cJSON_AddItemToObject(o, "normal", report_stats_json(&a->normal));
        cJSON_AddItemToObject(o, "tangent", report_stats_json(&a->tangent));
        cJSON_AddItemToObject(o, "rest_normal", report_stats_json(&a->rest_normal));
        cJSON_AddItemToObject(o, "rest_tangent", report_stats_json(&a->rest_tangent));
        if (tan)
            cJSON_AddNumberToObject(o, "handedness_mismatches", (double)a->handedness);
        else
            cJSON_AddNullToObject(o, "handedness_mismatches");
        cJSON* wf = cJSON_AddObjectToObject(o, "worst_frame");
        cJSON_AddNumberToObject(wf, "frame", (double)a->worst_frame);
        cJSON_AddNumberToObject(wf, "time_s", sf_clip_plan_time(plan, a->worst_frame));
        cJSON_AddNumberToObject(wf, "normal_mean", a->worst_frame_mean);
        if (a->normal.count)
            worst_vertex_json(c, o, "worst_normal_vertex", a->worst_n, a->worst_n_frame, a->worst_n_unit,
                              a->worst_n_vertex);
        if (tan)
            worst_vertex_json(c, o, "worst_tangent_vertex", a->worst_t, a->worst_t_frame, a->worst_t_unit,
                              a->worst_t_vertex);
        else
            cJSON_AddNullToObject(o, "worst_tangent_vertex");
    }
    return arr;
}

/* ---------------------------------------------------------------- data problems */

static const char* problem_unit(sf_gltf_problem k)
{
    switch (k) {
    case SF_GLTF_PROBLEM_MORPH_ZERO_NORMALS: return "target";
    case SF_GLTF_PROBLEM_DEGENERATE_TRIANGLE:
    case SF_GLTF_PROBLEM_DEGENERATE_UV: return "triangle";
    default: return "vertex";
    }
}

cJSON* eval_problems_json(const eval_asset_view* c, const sf_asset_problem_total* totals)
{
    cJSON* jp = cJSON_CreateArray();
    for (int k = 0; k < SF_GLTF_PROBLEM_COUNT; ++k) {
        if (!totals[k].count) continue;
        cJSON* o = cJSON_CreateObject();
        cJSON_AddItemToArray(jp, o);
        cJSON_AddStringToObject(o, "cause", sf_gltf_problem_name((sf_gltf_problem)k));
        cJSON_AddStringToObject(o, "description", sf_gltf_problem_description((sf_gltf_problem)k));
        cJSON_AddNumberToObject(o, "count", (double)totals[k].count);
        cJSON_AddNumberToObject(o, "worst_mesh", (double)c->g->primitives[totals[k].primitive].mesh_index);
        cJSON_AddNumberToObject(o, "worst_primitive", (double)c->g->primitives[totals[k].primitive].primitive_index);
        cJSON_AddStringToObject(o, "worst_kind", problem_unit((sf_gltf_problem)k));
        cJSON_AddNumberToObject(o, "worst_index", (double)totals[k].index);
        cJSON_AddNumberToObject(o, "worst_value", totals[k].worst);
    }
    return jp;
}

void eval_problems_print(const eval_asset_view* c, size_t limit, size_t problems, const sf_asset_problem_total* totals)
{
    printf("\ndata problems (authored data, apart from method error; limit %zu influences):%s\n", limit,
           problems ? "" : " none");
    for (int k = 0; k < SF_GLTF_PROBLEM_COUNT; ++k) {
        if (!totals[k].count) continue;
        const sf_gltf_primitive* pr = &c->g->primitives[totals[k].primitive];
        printf("  %-28s %6zu  worst: mesh %zu primitive %zu %s %zu (%g)\n      %s\n",
               sf_gltf_problem_name((sf_gltf_problem)k), totals[k].count, pr->mesh_index, pr->primitive_index,
               problem_unit((sf_gltf_problem)k), totals[k].index, totals[k].worst,
               sf_gltf_problem_description((sf_gltf_problem)k));
    }
}

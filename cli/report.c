/* Running one comparison and printing it as a table or JSON (see report.h). */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- running */

static int lib_fail(const char* what, sf_result r, const sf_error* err)
{
    return cli_fail(CLI_EXIT_FAILURE, "%s: %s", what, err->message[0] ? err->message : sf_result_string(r));
}

int cli_run_compare(const cli_scene_args* args, const sf_env* env, const cli_assignment* extra, size_t extra_count,
                    bool keep_frames, cli_run* run)
{
    memset(run, 0, sizeof *run);
    run->args = args;
    int code = cli_scene_args_build(args, env, extra, extra_count, &run->scene);
    if (code != CLI_EXIT_OK) return code;

    sf_error err;
    memset(&err, 0, sizeof err);
    sf_topology_opts topo_opts;
    memset(&topo_opts, 0, sizeof topo_opts);
    /* only the jacobian methods need them */
    topo_opts.skip_gradients = !args->method_on[SF_METHOD_JACOBIAN] && !args->method_on[SF_METHOD_JACOBIAN_FAN];
    sf_result r = sf_topology_create(&run->scene->mesh, &topo_opts, env, &run->topo, &err);
    if (r != SF_OK) return lib_fail("topology", r, &err);

    run->vertex_count = sf_topology_vertex_count(run->topo);
    run->triangle_count = sf_topology_triangle_count(run->topo);
    run->weighting_from_flag = args->weighting_given;
    run->ref_opts = cli_scene_args_frames_opts(args, run->scene->info);
    if (!args->weighting_given) run->ref_opts.weighting = run->scene->reference_weighting;
    memset(&run->method_opts, 0, sizeof run->method_opts);
    run->method_opts.morph_directions = args->morph_directions;
    run->method_opts.jacobian_cap = args->jacobian_cap;

    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.methods = args->method_order;
    desc.method_count = args->method_count;
    desc.method_opts = run->method_opts;
    desc.reference_opts = run->ref_opts;
    desc.flags = keep_frames ? SF_EVAL_KEEP_FRAMES | SF_EVAL_KEEP_ANGLES : 0;
    r = sf_evaluation_create(run->topo, &desc, env, &run->eval, &err);
    if (r == SF_ERROR_OUT_OF_MEMORY) return cli_fail(CLI_EXIT_FAILURE, "out of memory for %zu vertices", run->vertex_count);
    if (r != SF_OK) return lib_fail("evaluation", r, &err);
    sf_workspace_opts ws_opts = {sf_evaluation_methods_mask(run->eval), args->backend}; /* scratch for these only */
    r = sf_workspace_create(run->topo, &ws_opts, &run->ws, &err);
    if (r != SF_OK) return lib_fail("workspace", r, &err);
    r = sf_evaluation_run(run->eval, &run->scene->pose, run->ws, NULL, &err);
    const sf_eval_results* res = sf_evaluation_results(run->eval);
    if (r != SF_OK && res->failed == SF_EVAL_STAGE_METHOD) return lib_fail(sf_method_name(res->failed_method), r, &err);
    if (r != SF_OK) return lib_fail("reference (recompute)", r, &err);
    run->positions = res->positions;
    run->ref_normals = res->reference_normals;
    run->ref_tangents = res->reference_tangents;
    for (size_t k = 0; k < res->row_count; ++k) {
        const sf_eval_row* row = &res->rows[k];
        cli_method_result* m = &run->methods[run->method_count++];
        m->method = row->method;
        m->row = row;
        if (row->status == SF_ERROR_UNSUPPORTED) {
            m->skipped = true;
            snprintf(m->skip_reason, sizeof m->skip_reason, "%s",
                     row->detail.message[0] ? row->detail.message : sf_result_string(row->status));
            continue;
        }
        m->summary = row->errors;
        m->report = row->report;
        m->normals = row->normals;
        m->tangents = row->tangents;
    }
    return CLI_EXIT_OK;
}

void cli_run_free(cli_run* run)
{
    sf_evaluation_destroy(run->eval);
    sf_workspace_destroy(run->ws);
    sf_topology_destroy(run->topo);
    sf_scene_destroy(run->scene);
    memset(run, 0, sizeof *run);
}

void cli_run_note_skipped(const cli_run* run)
{
    /* Once per method per process: sweeps and the demo run the same methods many times. The command
     * is single-threaded at this level, so a static set of flags is enough. */
    static bool noted[SF_METHOD_COUNT];
    for (size_t k = 0; k < run->method_count; ++k) {
        const cli_method_result* m = &run->methods[k];
        if (!m->skipped || noted[m->method]) continue;
        noted[m->method] = true;
        fprintf(stderr, "skinframe: note: %s skipped: %s\n", sf_method_name(m->method), m->skip_reason);
    }
}

const cli_method_result* cli_run_method(const cli_run* run, sf_method method)
{
    for (size_t k = 0; k < run->method_count; ++k)
        if (run->methods[k].method == method) return &run->methods[k];
    return NULL;
}

/* ---------------------------------------------------------------- text */

void report_format_deg(char* out, size_t size, double deg) { snprintf(out, size, "%.3f", deg); }

void report_print_context(FILE* f, const cli_run* run)
{
    const sf_scene* s = run->scene;
    const cli_scene_args* a = run->args;
    fprintf(f, "scene %s, preset %s, %zu vertices, %zu triangles\n", s->info->name,
            a->preset && *a->preset ? a->preset : "(rest)", run->vertex_count, run->triangle_count);
    fprintf(f, "params:");
    int col = 7;
    for (size_t k = 0; k < s->param_count; ++k) {
        char item[96];
        int len = snprintf(item, sizeof item, " %s=%g", s->param_names[k], s->param_values[k]);
        if (col + len > 110) {
            fprintf(f, "\n       ");
            col = 7;
        }
        fputs(item, f);
        col += len;
    }
    fputc('\n', f);
    fprintf(f, "reference: recompute, weighting %s (%s), weld %s, tangents %s, directions %s\n",
            cli_weighting_name(run->ref_opts.weighting), run->weighting_from_flag ? "--weighting" : "scene default",
            cli_weld_name(run->ref_opts.weld), cli_tangents_name(run->ref_opts.tangents),
            cli_reference_name(run->ref_opts.reference));
    fprintf(f, "methods: morph directions %s", cli_morph_directions_name(run->method_opts.morph_directions));
    if (run->method_opts.jacobian_cap > 0.0f) fprintf(f, ", jacobian cap %g", (double)run->method_opts.jacobian_cap);
    fputc('\n', f);
    fprintf(f, "angles in degrees against the reference; over N = %% of vertices more than N degrees off\n");
}

#define LEAD_WIDTH 12

void report_print_table_head(FILE* f, const char* lead_title)
{
    if (lead_title) fprintf(f, "%-*s", LEAD_WIDTH, lead_title);
    fprintf(f, "%-21s%-8s%8s%8s%8s%8s%8s%8s%8s%8s%7s%7s\n", "method", "dir", "mean", "rms", "p50", "p95", "max",
            "over 1", "over 5", "over45", "hand", "degen");
}

static void print_stats_line(FILE* f, const char* lead, const char* method, const char* dir, const sf_angle_stats* st,
                             const char* hand, size_t degen)
{
    if (lead) fprintf(f, "%-*s", LEAD_WIDTH, lead);
    fprintf(f, "%-21s%-8s%8.3f%8.3f%8.3f%8.3f%8.3f%7.1f%%%7.1f%%%7.1f%%%7s%7zu\n", method, dir, st->mean, st->rms,
            st->p50, st->p95, st->max, 100.0 * st->over_1, 100.0 * st->over_5, 100.0 * st->over_45, hand, degen);
}

void report_print_table_rows(FILE* f, const cli_run* run, const char* lead)
{
    bool frame = sf_topology_has_tangent_frame(run->topo) != 0;
    for (size_t k = 0; k < run->method_count; ++k) {
        const cli_method_result* m = &run->methods[k];
        const char* name = sf_method_name(m->method);
        if (m->skipped) {
            if (lead) fprintf(f, "%-*s", LEAD_WIDTH, lead);
            fprintf(f, "%-21s(skipped: %s)\n", name, sf_result_string(SF_ERROR_UNSUPPORTED));
            continue;
        }
        const sf_error_summary* s = &m->summary;
        print_stats_line(f, lead, name, "normal", &s->normal, "", s->degenerate_normals);
        if (frame) {
            char hand[32];
            snprintf(hand, sizeof hand, "%zu", s->handedness_mismatches);
            print_stats_line(f, lead ? "" : NULL, "", "tangent", &s->tangent, hand, s->degenerate_tangents);
        } else {
            if (lead) fprintf(f, "%-*s", LEAD_WIDTH, "");
            fprintf(f, "%-21s%-8s(tangents not measured: no TEXCOORD)\n", "", "tangent");
        }
    }
}

/* ---------------------------------------------------------------- JSON */

cJSON* report_stats_json(const sf_angle_stats* st)
{
    if (st->count == 0) return cJSON_CreateNull(); /* not measured, which is not 0 degrees */
    cJSON* o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "mean", st->mean);
    cJSON_AddNumberToObject(o, "rms", st->rms);
    cJSON_AddNumberToObject(o, "p50", st->p50);
    cJSON_AddNumberToObject(o, "p95", st->p95);
    cJSON_AddNumberToObject(o, "max", st->max);
    cJSON_AddNumberToObject(o, "over_1", st->over_1);
    cJSON_AddNumberToObject(o, "over_5", st->over_5);
    cJSON_AddNumberToObject(o, "over_45", st->over_45);
    cJSON_AddNumberToObject(o, "count", (double)st->count);
    return o;
}

/* A count that exists only when measured: the number, or null. */
static void add_count_json(cJSON* o, const char* key, size_t value, bool measured)
{
    if (measured)
        cJSON_AddNumberToObject(o, key, (double)value);
    else
        cJSON_AddNullToObject(o, key);
}

static cJSON* params_json(const sf_scene* s)
{
    cJSON* o = cJSON_CreateObject();
    for (size_t k = 0; k < s->param_count; ++k) cJSON_AddNumberToObject(o, s->param_names[k], s->param_values[k]);
    return o;
}

static cJSON* reference_json(const cli_run* run)
{
    cJSON* o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "method", "recompute");
    cJSON_AddStringToObject(o, "weighting", cli_weighting_name(run->ref_opts.weighting));
    cJSON_AddStringToObject(o, "weighting_source", run->weighting_from_flag ? "flag" : "scene");
    cJSON_AddStringToObject(o, "weld", cli_weld_name(run->ref_opts.weld));
    cJSON_AddStringToObject(o, "tangent_mode", cli_tangents_name(run->ref_opts.tangents));
    cJSON_AddStringToObject(o, "directions", cli_reference_name(run->ref_opts.reference));
    return o;
}

cJSON* report_json(const cli_run* run)
{
    const cli_scene_args* a = run->args;
    cJSON* o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "scene", run->scene->info->name);
    if (a->preset && *a->preset)
        cJSON_AddStringToObject(o, "preset", a->preset);
    else
        cJSON_AddNullToObject(o, "preset");
    cJSON_AddItemToObject(o, "params", params_json(run->scene));
    cJSON_AddItemToObject(o, "reference", reference_json(run));
    cJSON_AddStringToObject(o, "morph_directions", cli_morph_directions_name(run->method_opts.morph_directions));
    cJSON_AddNumberToObject(o, "vertex_count", (double)run->vertex_count);
    cJSON_AddNumberToObject(o, "triangle_count", (double)run->triangle_count);
    cJSON_AddBoolToObject(o, "tangent_frame", sf_topology_has_tangent_frame(run->topo) != 0);
    sf_topology_stats st;
    sf_topology_get_stats(run->topo, &st);
    cJSON* topo = cJSON_AddObjectToObject(o, "topology");
    cJSON_AddNumberToObject(topo, "bytes", (double)st.topology_bytes);
    cJSON_AddNumberToObject(topo, "gradient_bytes", (double)st.gradient_bytes);
    cJSON_AddNumberToObject(topo, "dropped_gradient_slots", (double)st.dropped_gradient_slots);
    cJSON_AddNumberToObject(topo, "weld_groups", (double)st.weld_groups);
    cJSON_AddNumberToObject(topo, "degenerate_triangles", (double)st.degenerate_triangles);
    cJSON_AddNumberToObject(topo, "nonmanifold_edges", (double)st.nonmanifold_edges);
    bool frame = sf_topology_has_tangent_frame(run->topo) != 0; /* else tangent numbers are null */
    cJSON* methods = cJSON_AddArrayToObject(o, "methods");
    cJSON* skipped = cJSON_AddArrayToObject(o, "skipped");
    for (size_t k = 0; k < run->method_count; ++k) {
        const cli_method_result* m = &run->methods[k];
        if (m->skipped) {
            cJSON_AddItemToArray(skipped, cJSON_CreateString(sf_method_name(m->method)));
            continue;
        }
        const sf_error_summary* s = &m->summary;
        cJSON* e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", sf_method_name(m->method));
        const sf_frames_opts* opts = cli_method_is_rebuilt(m->method) ? &run->ref_opts : &run->method_opts;
        cJSON_AddStringToObject(e, "morph_directions", cli_morph_directions_name(opts->morph_directions));
        cJSON_AddItemToObject(e, "normal", report_stats_json(&s->normal));
        cJSON_AddItemToObject(e, "tangent", report_stats_json(&s->tangent));
        add_count_json(e, "handedness_mismatches", s->handedness_mismatches, frame);
        cJSON_AddNumberToObject(e, "degenerate", (double)s->degenerate);
        cJSON_AddNumberToObject(e, "degenerate_normals", (double)s->degenerate_normals);
        add_count_json(e, "degenerate_tangents", s->degenerate_tangents, frame);
        cJSON_AddNumberToObject(e, "worst_normal_vertex", (double)s->worst_normal_vertex);
        add_count_json(e, "worst_tangent_vertex", s->worst_tangent_vertex, frame);
        cJSON_AddNumberToObject(e, "mirrored_vertices", (double)m->report.mirrored_vertices);
        cJSON_AddNumberToObject(e, "singular_vertices", (double)m->report.singular_vertices);
        if (m->method == SF_METHOD_JACOBIAN || m->method == SF_METHOD_JACOBIAN_FAN)
            cJSON_AddNumberToObject(e, "jacobian_capped", (double)m->report.jacobian_capped);
        cJSON_AddItemToArray(methods, e);
    }
    return o;
}

/* A float as the shortest decimal that reads back as the same float, so dumps stay small and exact. */
static double float_value(float x)
{
    char text[32];
    for (int digits = 6; digits <= 9; ++digits) {
        snprintf(text, sizeof text, "%.*g", digits, (double)x);
        if ((float)strtod(text, NULL) == x) break;
    }
    return strtod(text, NULL);
}

/* The dump is streamed (a resolution-512 sheet is hundreds of MB of text): the small parts are cJSON objects
 * printed unformatted without their closing brace, the per-vertex arrays are written number by number through
 * one reused cJSON number, so the bytes are exactly those cJSON_PrintUnformatted gives for the whole tree. */
typedef struct dump_stream {
    FILE* f;
    cJSON* number; /* reused: cJSON's own number formatting, no allocation per value */
    bool ok;
    size_t len;    /* of buf, written out when nearly full: one fwrite per 64 KiB, not per character */
    char buf[1 << 16];
} dump_stream;

static void dump_flush(dump_stream* d)
{
    if (d->len && fwrite(d->buf, 1, d->len, d->f) != d->len) d->ok = false;
    d->len = 0;
}

static void dump_write(dump_stream* d, const char* text, size_t len)
{
    if (d->len + len > sizeof d->buf) dump_flush(d);
    if (len > sizeof d->buf) {
        if (fwrite(text, 1, len, d->f) != len) d->ok = false;
        return;
    }
    memcpy(d->buf + d->len, text, len);
    d->len += len;
}

static void dump_puts(dump_stream* d, const char* text) { dump_write(d, text, strlen(text)); }

static void dump_number(dump_stream* d, double v)
{
    char text[64];
    cJSON_SetNumberValue(d->number, v);
    if (!cJSON_PrintPreallocated(d->number, text, (int)sizeof text, 0)) {
        d->ok = false;
        return;
    }
    dump_puts(d, text);
}

/* An object's text without its closing brace, so that more members can follow. */
static void dump_open_object(dump_stream* d, cJSON* o)
{
    char* text = o ? cJSON_PrintUnformatted(o) : NULL;
    size_t len = text ? strlen(text) : 0;
    if (len < 2 || text[len - 1] != '}')
        d->ok = false;
    else
        dump_write(d, text, len - 1);
    cJSON_free(text);
    cJSON_Delete(o);
}

/* ,"key": (keys here are fixed names or method names: nothing to escape, but cJSON decides anyway). */
static void dump_key(dump_stream* d, const char* key, bool first)
{
    cJSON* s = cJSON_CreateString(key);
    char* text = s ? cJSON_PrintUnformatted(s) : NULL;
    if (!text) {
        d->ok = false;
    } else {
        if (!first) dump_puts(d, ",");
        dump_puts(d, text);
        dump_puts(d, ":");
    }
    cJSON_free(text);
    cJSON_Delete(s);
}

/* [[a,b,c],...] of count tuples of `width` floats ([] when data is NULL). */
static void dump_tuples(dump_stream* d, const float* data, size_t count, int width)
{
    dump_puts(d, "[");
    for (size_t i = 0; data && i < count; ++i) {
        dump_puts(d, i ? ",[" : "[");
        for (int c = 0; c < width; ++c) {
            if (c) dump_puts(d, ",");
            dump_number(d, float_value(data[i * width + c]));
        }
        dump_puts(d, "]");
    }
    dump_puts(d, "]");
}

static void dump_body(dump_stream* d, const cli_run* run)
{
    size_t n = run->vertex_count;
    cJSON* o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "scene", run->scene->info->name);
    if (run->args->preset && *run->args->preset)
        cJSON_AddStringToObject(o, "preset", run->args->preset);
    else
        cJSON_AddNullToObject(o, "preset");
    cJSON_AddItemToObject(o, "params", params_json(run->scene));
    cJSON_AddNumberToObject(o, "vertex_count", (double)n);
    cJSON_AddNumberToObject(o, "triangle_count", (double)run->triangle_count);
    dump_open_object(d, o);
    dump_key(d, "positions", false);
    dump_tuples(d, run->positions, n, 3);
    const uint32_t* idx = sf_topology_indices(run->topo);
    dump_key(d, "indices", false);
    dump_puts(d, "[");
    for (size_t i = 0; idx && i < 3 * run->triangle_count; ++i) {
        if (i) dump_puts(d, ",");
        dump_number(d, (double)idx[i]);
    }
    dump_puts(d, "]");
    dump_key(d, "uvs", false);
    dump_tuples(d, sf_topology_uvs(run->topo), n, 2);
    dump_key(d, "reference", false);
    dump_open_object(d, reference_json(run));
    dump_key(d, "normals", false);
    dump_tuples(d, run->ref_normals, n, 3);
    dump_key(d, "tangents", false);
    dump_tuples(d, run->ref_tangents, n, 4);
    dump_puts(d, "}");
    dump_key(d, "methods", false);
    dump_puts(d, "{");
    bool first = true;
    for (size_t k = 0; k < run->method_count; ++k) {
        const cli_method_result* m = &run->methods[k];
        if (m->skipped) continue;
        const sf_frames_opts* opts = cli_method_is_rebuilt(m->method) ? &run->ref_opts : &run->method_opts;
        dump_key(d, sf_method_name(m->method), first);
        first = false;
        cJSON* e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "morph_directions", cli_morph_directions_name(opts->morph_directions));
        dump_open_object(d, e);
        dump_key(d, "normals", false);
        dump_tuples(d, m->normals, n, 3);
        dump_key(d, "tangents", false);
        dump_tuples(d, m->tangents, n, 4);
        dump_puts(d, "}");
    }
    dump_puts(d, "}}");
}

int report_write_dump(const char* path, const cli_run* run)
{
    dump_stream* d = calloc(1, sizeof *d);
    if (!d) return cli_fail(CLI_EXIT_FAILURE, "%s: out of memory writing JSON", path);
    sf_file_writer* w;
    int code = cli_output_open("--dump", path, CLI_OUTPUT_DUMP_JSON, &w);
    if (code != CLI_EXIT_OK) {
        free(d);
        return code;
    }
    d->f = sf_file_writer_stream(w);
    d->number = cJSON_CreateNumber(0.0);
    d->ok = d->number != NULL;
    if (d->ok) dump_body(d, run);
    dump_flush(d);
    bool ok = d->ok;
    cJSON_Delete(d->number);
    free(d);
    if (!ok) {
        sf_file_writer_abort(w); /* nothing half-written replaces anything */
        return cli_fail(CLI_EXIT_FAILURE, "%s: out of memory or write error writing JSON", path);
    }
    return cli_output_commit("--dump", w);
}

bool report_print_json(FILE* f, const cJSON* json, bool formatted)
{
    char* text = formatted ? cJSON_Print(json) : cJSON_PrintUnformatted(json);
    if (!text) return false;
    fputs(text, f);
    fputc('\n', f);
    cJSON_free(text);
    return true;
}

int report_write_json(const char* flag, const char* path, cli_output_kind kind, const cJSON* json, bool formatted)
{
    char* text = formatted ? cJSON_Print(json) : cJSON_PrintUnformatted(json);
    if (!text) return cli_fail(CLI_EXIT_FAILURE, "%s: out of memory printing JSON", path);
    size_t len = strlen(text);
    int code = cli_output_write(flag, path, kind, text, len);
    cJSON_free(text);
    return code;
}

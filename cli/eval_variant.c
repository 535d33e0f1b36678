/* eval's variants: the asset deformed as a runtime would (an engine preset, --max-influences, --max-morph-targets,
 * 4 or 8 influences where the asset has more), each measured every frame against the full deformation: its
 * reference (directions) and its final positions (sf_evaluation_run_against). */
#include "eval.h"

#include <stdlib.h>
#include <string.h>

typedef struct variant {
    char label[64];
    const cli_engine* engine; /* NULL: a truncation */
    uint32_t max_influences;  /* 0 = all */
    size_t max_morph_targets; /* 0 = all */
    bool derivatives;         /* no vertex tangent where the file has none: not measured there */
    cli_scene_args args;      /* its methods (method_order, method_count, method_on) */
    sf_frames_opts method_opts;
    sf_topology** topos; /* per unit; NULL: the unit's own (nothing truncated) */
    sf_workspace** ws;
    sf_evaluation** evals;
    float** morph; /* per unit: the kept morph weights */
    size_t truncated; /* vertices (per frame, over the units) that lose an influence */
    eval_method stats[SF_METHOD_COUNT];
} variant;

struct eval_variants {
    const sf_gltf* g;
    const cli_gltf_unit* units;
    size_t unit_count, max_n;
    size_t vertices, over4, over8; /* vertices per frame; with more than 4 / 8 nonzero weights */
    uint32_t max_slots;            /* influence slots per vertex in the file (every JOINTS_n set) */
    variant* list;
    size_t count;
    float* angles; /* per method 2 * max_n */
};

static void variant_free(variant* v, size_t units)
{
    for (size_t i = 0; i < units; ++i) {
        if (v->evals) sf_evaluation_destroy(v->evals[i]);
        if (v->ws) sf_workspace_destroy(v->ws[i]);
        if (v->topos) sf_topology_destroy(v->topos[i]);
        if (v->morph) free(v->morph[i]);
    }
    free(v->evals);
    free(v->ws);
    free(v->topos);
    free(v->morph);
    eval_methods_free(v->stats);
}

void eval_variants_destroy(eval_variants* vs)
{
    if (!vs) return;
    for (size_t k = 0; k < vs->count; ++k) variant_free(&vs->list[k], vs->unit_count);
    free(vs->list);
    free(vs->angles);
    free(vs);
}

uint32_t eval_variants_methods_mask(const eval_opts* o)
{
    uint32_t mask = 0;
    for (size_t i = 0; i < cli_engine_count(); ++i) {
        const cli_engine* e = cli_engine_at(i);
        if (o->all_engines || o->engine == e) mask |= 1u << e->normals;
    }
    return mask;
}

/* One variant's per-unit topologies, workspaces, evaluations and morph buffers. */
static int variant_build(eval_variants* vs, variant* v, const char* path, const sf_frames_opts* ref_opts)
{
    size_t n = vs->unit_count;
    v->topos = calloc(n, sizeof *v->topos);
    v->ws = calloc(n, sizeof *v->ws);
    v->evals = calloc(n, sizeof *v->evals);
    v->morph = calloc(n, sizeof *v->morph);
    if (!v->topos || !v->ws || !v->evals || !v->morph) return cli_fail(CLI_EXIT_FAILURE, "out of memory");
    uint32_t mask = cli_scene_args_methods_mask(&v->args);
    sf_env env = cli_env();
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.methods = v->args.method_order;
    desc.method_count = v->args.method_count;
    desc.method_opts = v->method_opts;
    desc.reference_opts = *ref_opts; /* the full evaluation's: the same tangent mode */
    desc.flags = SF_EVAL_NO_STATISTICS;
    for (size_t i = 0; i < n; ++i) {
        const cli_gltf_unit* u = &vs->units[i];
        size_t cut = 0;
        int code = cli_gltf_unit_truncated(path, vs->g, u, v->max_influences, mask, &env, &v->topos[i], &v->ws[i], &cut);
        if (code != CLI_EXIT_OK) return code;
        v->truncated += cut;
        sf_error err;
        sf_result r = sf_evaluation_create(v->topos[i] ? v->topos[i] : u->topo, &desc, NULL, &v->evals[i], &err);
        if (r != SF_OK) return cli_fail(CLI_EXIT_FAILURE, "evaluation: %s", err.message);
        v->morph[i] = calloc(u->pose.morph_weight_count + 1, sizeof(float));
        if (!v->morph[i]) return cli_fail(CLI_EXIT_FAILURE, "out of memory");
    }
    return eval_methods_create(v->stats, &v->args);
}

static variant* variant_add(eval_variants* vs, const char* label, const cli_scene_args* methods_from,
                            const sf_frames_opts* method_opts)
{
    variant* list = realloc(vs->list, (vs->count + 1) * sizeof *list);
    if (!list) return NULL;
    vs->list = list;
    variant* v = &list[vs->count++];
    memset(v, 0, sizeof *v);
    snprintf(v->label, sizeof v->label, "%s", label);
    cli_scene_args_init(&v->args);
    if (methods_from) {
        memcpy(v->args.method_on, methods_from->method_on, sizeof v->args.method_on);
        memcpy(v->args.method_order, methods_from->method_order, sizeof v->args.method_order);
        v->args.method_count = methods_from->method_count;
    }
    v->method_opts = *method_opts;
    return v;
}

static void only_method(variant* v, sf_method m)
{
    memset(v->args.method_on, 0, sizeof v->args.method_on);
    v->args.method_on[m] = true;
    v->args.method_order[0] = m;
    v->args.method_count = 1;
}

/* Vertices of every unit with more than 4 and 8 nonzero weights. */
static int count_influences(eval_variants* vs, const char* path)
{
    for (size_t i = 0; i < vs->unit_count; ++i) {
        const cli_gltf_unit* u = &vs->units[i];
        sf_mesh_desc desc;
        sf_error err;
        size_t c4 = 0, c8 = 0;
        if (sf_gltf_instance_mesh(vs->g, u->instance, u->primitive, &desc, &err) != SF_OK ||
            sf_influences_truncate(desc.vertex_count, desc.influence_count, desc.joints, desc.weights, 4, NULL, NULL,
                                   &c4, &err) != SF_OK ||
            sf_influences_truncate(desc.vertex_count, desc.influence_count, desc.joints, desc.weights, 8, NULL, NULL,
                                   &c8, &err) != SF_OK)
            return cli_fail(CLI_EXIT_FAILURE, "%s: %s", path, err.message);
        vs->over4 += c4;
        vs->over8 += c8;
        vs->vertices += u->n;
        if (desc.influence_count > vs->max_slots) vs->max_slots = desc.influence_count;
        if (u->n > vs->max_n) vs->max_n = u->n;
    }
    return CLI_EXIT_OK;
}

int eval_variants_create(const eval_opts* o, const char* path, const sf_gltf* g, const cli_gltf_unit* units,
                         size_t unit_count, const sf_frames_opts* ref_opts, const sf_frames_opts* method_opts,
                         eval_variants** out)
{
    *out = NULL;
    eval_variants* vs = calloc(1, sizeof *vs);
    if (!vs) return cli_fail(CLI_EXIT_FAILURE, "out of memory");
    vs->g = g;
    vs->units = units;
    vs->unit_count = unit_count;
    int code = count_influences(vs, path);
    bool oom = false;
    /* What keeping 4 and 8 influences costs, where the asset has more: the reference rebuilt from the kept
     * deformation against the full one (the geometry's share, whatever the normal method). */
    static const uint32_t limits[2] = {4, 8};
    for (int k = 0; code == CLI_EXIT_OK && !o->batch && k < 2; ++k) { /* a batch: only what was asked for */
        if ((k == 0 ? vs->over4 : vs->over8) == 0) continue;
        char label[64];
        snprintf(label, sizeof label, "%u influences", (unsigned)limits[k]);
        variant* v = variant_add(vs, label, NULL, method_opts);
        if (!(oom = !v)) {
            only_method(v, SF_METHOD_RECOMPUTE);
            v->max_influences = limits[k];
        }
    }
    if (code == CLI_EXIT_OK && !oom && (o->max_influences || o->max_morph_targets)) {
        char label[64] = "", part[32];
        if (o->max_influences) snprintf(label, sizeof label, "%u infl", (unsigned)o->max_influences);
        if (o->max_morph_targets) {
            snprintf(part, sizeof part, "%s%zu morphs", label[0] ? ", " : "", o->max_morph_targets);
            strncat(label, part, sizeof label - strlen(label) - 1);
        }
        variant* v = variant_add(vs, label, &o->args, method_opts);
        if (!(oom = !v)) {
            v->max_influences = o->max_influences;
            v->max_morph_targets = o->max_morph_targets;
        }
    }
    for (size_t i = 0; code == CLI_EXIT_OK && !oom && i < cli_engine_count(); ++i) {
        const cli_engine* e = cli_engine_at(i);
        if (!o->all_engines && o->engine != e) continue;
        sf_frames_opts mo = *method_opts;
        mo.morph_directions = e->morph_directions;
        variant* v = variant_add(vs, e->title, NULL, &mo);
        if ((oom = !v)) break;
        only_method(v, e->normals);
        v->engine = e;
        v->max_influences = e->max_influences;
        v->max_morph_targets = e->max_morph_targets;
        v->derivatives = e->tangents == CLI_ENGINE_TANGENTS_DERIVATIVES;
    }
    if (oom) code = cli_fail(CLI_EXIT_FAILURE, "out of memory");
    for (size_t k = 0; code == CLI_EXIT_OK && k < vs->count; ++k) code = variant_build(vs, &vs->list[k], path, ref_opts);
    if (code == CLI_EXIT_OK && vs->count) {
        vs->angles = calloc(2 * SF_METHOD_COUNT * (vs->max_n ? vs->max_n : 1), sizeof(float));
        if (!vs->angles) code = cli_fail(CLI_EXIT_FAILURE, "out of memory for %zu vertices", vs->max_n);
    }
    if (code != CLI_EXIT_OK) {
        eval_variants_destroy(vs);
        return code;
    }
    *out = vs;
    return CLI_EXIT_OK;
}

void eval_variants_clip_start(eval_variants* vs)
{
    for (size_t k = 0; vs && k < vs->count; ++k)
        for (size_t m = 0; m < vs->list[k].args.method_count; ++m)
            eval_method_clip_start(&vs->list[k].stats[vs->list[k].args.method_order[m]]);
}

int eval_variants_run_unit(eval_variants* vs, size_t i, cli_gltf_unit* u, const sf_evaluation* full, size_t frame)
{
    for (size_t k = 0; vs && k < vs->count; ++k) {
        variant* v = &vs->list[k];
        if (i == 0)
            for (size_t m = 0; m < v->args.method_count; ++m) eval_method_frame_start(&v->stats[v->args.method_order[m]]);
        sf_pose pose = u->pose;
        if (v->max_morph_targets && pose.morph_weights) {
            sf_morph_weights_truncate(pose.morph_weights, pose.morph_weight_count, v->max_morph_targets, v->morph[i]);
            pose.morph_weights = v->morph[i];
        }
        const sf_eval_results* res = sf_evaluation_results(v->evals[i]);
        bool tangents = u->tangents &&
                        !(v->derivatives && vs->g->primitives[u->primitive].tangents != SF_GLTF_TANGENTS_SUPPLIED);
        sf_eval_buffers b;
        memset(&b, 0, sizeof b);
        for (size_t r = 0; r < res->row_count; ++r) {
            float* mine = vs->angles + 2 * vs->max_n * (size_t)res->rows[r].method;
            b.rows[r].normal_deg = mine;
            b.rows[r].tangent_deg = u->tangents ? mine + vs->max_n : NULL;
        }
        sf_error err;
        if (sf_evaluation_run_against(v->evals[i], full, &pose, v->ws[i] ? v->ws[i] : u->ws, &b, &err) != SF_OK)
            return cli_fail(CLI_EXIT_FAILURE, "%s: %s", v->label, err.message);
        for (size_t r = 0; r < res->row_count; ++r) {
            const sf_eval_row* row = &res->rows[r];
            eval_method* m = &v->stats[row->method];
            if (m->skipped) continue;
            if (row->status == SF_ERROR_UNSUPPORTED) {
                m->skipped = true;
                snprintf(m->reason, sizeof m->reason, "%s", row->detail.message);
                continue;
            }
            int code = eval_method_add(m, b.rows[r].normal_deg, tangents ? b.rows[r].tangent_deg : NULL, u->n, i,
                                       frame, true);
            if (code != CLI_EXIT_OK) return code;
            m->pos_sum += row->position.mean * (double)row->position.count;
            m->pos_count += row->position.count;
            if (row->position.max > m->pos_max) m->pos_max = row->position.max;
            if (row->position.diagonal > m->pos_diagonal) m->pos_diagonal = row->position.diagonal;
        }
    }
    return CLI_EXIT_OK;
}

int eval_variants_clip_finish(eval_variants* vs)
{
    for (size_t k = 0; vs && k < vs->count; ++k)
        for (size_t m = 0; m < vs->list[k].args.method_count; ++m) {
            int code = eval_method_clip_finish(&vs->list[k].stats[vs->list[k].args.method_order[m]], false);
            if (code != CLI_EXIT_OK) return code;
        }
    return CLI_EXIT_OK;
}

/* ---------------------------------------------------------------- reports */

static const char* dirs_short(sf_morph_directions d)
{
    return d == SF_MORPH_DIRECTIONS_NONE ? "none" : d == SF_MORPH_DIRECTIONS_NORMALS ? "normals" : "n+t";
}

static void cell(char* buf, size_t size, const sf_angle_stats* s, double v)
{
    if (s->count == 0)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.3f", v);
}

static double pos_mean(const eval_method* m) { return m->pos_count ? m->pos_sum / (double)m->pos_count : 0.0; }
static double pos_share(const eval_method* m) { return m->pos_diagonal > 0.0 ? m->pos_max / m->pos_diagonal : 0.0; }

static void text_row(const variant* v, sf_method method)
{
    const eval_method* a = &v->stats[method];
    char infl[24], morphs[24];
    if (v->max_influences)
        snprintf(infl, sizeof infl, "%u", (unsigned)v->max_influences);
    else
        snprintf(infl, sizeof infl, "all");
    if (v->max_morph_targets)
        snprintf(morphs, sizeof morphs, "%zu", v->max_morph_targets);
    else
        snprintf(morphs, sizeof morphs, "all");
    const char* tangents = v->engine ? (v->derivatives ? "derivatives" : "mikktspace") : "-";
    if (a->skipped) {
        printf("  %-16s %-21s skipped: %s\n", v->label, sf_method_name(method), a->reason);
        return;
    }
    char b[6][32];
    cell(b[0], 32, &a->normal, a->normal.mean);
    cell(b[1], 32, &a->normal, a->normal.p95);
    cell(b[2], 32, &a->normal, a->normal.max);
    cell(b[3], 32, &a->tangent, a->tangent.mean);
    cell(b[4], 32, &a->tangent, a->tangent.p95);
    cell(b[5], 32, &a->tangent, a->tangent.max);
    printf("  %-16s %-21s %4s %6s %-7s %-11s |%8s%8s%8s |%8s%8s%8s |%11.4g%11.4g%9.3f%%\n", v->label,
           sf_method_name(method), infl, morphs, dirs_short(v->method_opts.morph_directions), tangents, b[0], b[1],
           b[2], b[3], b[4], b[5], pos_mean(a), a->pos_max, 100.0 * pos_share(a));
}

/* The best method (lowest normal mean, then tangent mean) of each cost level among those that ran. */
static void best_per_level(const eval_method* best, const cli_scene_args* args, sf_method out[CLI_COST_LEVELS])
{
    for (int l = 0; l < CLI_COST_LEVELS; ++l) out[l] = SF_METHOD_COUNT;
    for (size_t k = 0; k < args->method_count; ++k) {
        sf_method m = args->method_order[k];
        const eval_method* a = &best[m];
        if (a->skipped || a->normal.count == 0) continue;
        cli_cost_level l = cli_method_cost(m);
        sf_method cur = out[l];
        if (cur == SF_METHOD_COUNT || a->normal.mean < best[cur].normal.mean ||
            (a->normal.mean == best[cur].normal.mean && a->tangent.mean < best[cur].tangent.mean))
            out[l] = m;
    }
}

void eval_variants_print_influences(const eval_variants* vs)
{
    if (!vs) return;
    printf("influences: %zu of %zu vertices per frame have more than 4, %zu more than 8 (%u slots per vertex in "
           "the file)\n", vs->over4, vs->vertices, vs->over8, (unsigned)vs->max_slots);
}

void eval_variants_print(const eval_variants* vs, const eval_method* best, const cli_scene_args* args)
{
    if (!vs || vs->count == 0) return;
    printf("\n  against the full deformation (its reference and final positions), all frames and vertices; engines "
           "as by default (docs/engines.md)\n");
    printf("  %-16s %-21s %4s %6s %-7s %-11s |%24s |%24s |%31s\n", "", "", "", "", "morph", "", "normal error, deg",
           "tangent error, deg", "position error, mesh units");
    printf("  %-16s %-21s %4s %6s %-7s %-11s |%8s%8s%8s |%8s%8s%8s |%11s%11s%10s\n", "deformation", "normals",
           "infl", "morphs", "dirs", "tangents", "mean", "p95", "max", "mean", "p95", "max", "mean", "max",
           "max/diag");
    bool engines = false;
    for (size_t k = 0; k < vs->count; ++k) {
        const variant* v = &vs->list[k];
        engines |= v->engine != NULL;
        for (size_t m = 0; m < v->args.method_count; ++m) text_row(v, v->args.method_order[m]);
    }
    for (size_t k = 0; k < vs->count; ++k)
        if (vs->list[k].derivatives) {
            printf("  tangents '-' with derivatives: the engine builds no vertex tangent where the file has no "
                   "TANGENT (screen-space derivatives instead)\n");
            break;
        }
    for (size_t k = 0; k < vs->count; ++k)
        if (vs->list[k].truncated && !vs->list[k].engine)
            printf("  %s: %zu vertices per frame lose an influence\n", vs->list[k].label, vs->list[k].truncated);
    if (!engines || !best) return;
    sf_method b[CLI_COST_LEVELS];
    best_per_level(best, args, b);
    printf("  best method for this asset per cost level (full deformation, normal mean over all frames):\n");
    for (int l = 0; l < CLI_COST_LEVELS; ++l) {
        if (b[l] == SF_METHOD_COUNT) continue;
        const eval_method* a = &best[b[l]];
        char t[32];
        cell(t, sizeof t, &a->tangent, a->tangent.mean);
        printf("    %-36s %-21s normal %.3f, tangent %s%s\n", cli_cost_name((cli_cost_level)l), sf_method_name(b[l]),
               a->normal.mean, t, b[l] == SF_METHOD_RECOMPUTE ? " (the reference itself)" : "");
    }
}

static cJSON* stats_json(const sf_angle_stats* s)
{
    if (s->count == 0) return cJSON_CreateNull();
    cJSON* o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "mean", s->mean);
    cJSON_AddNumberToObject(o, "p95", s->p95);
    cJSON_AddNumberToObject(o, "max", s->max);
    return o;
}

void eval_variants_influences_json(const eval_variants* vs, cJSON* obj)
{
    if (!vs) return;
    cJSON* o = cJSON_AddObjectToObject(obj, "influences");
    cJSON_AddNumberToObject(o, "vertices", (double)vs->vertices);
    cJSON_AddNumberToObject(o, "over_4", (double)vs->over4);
    cJSON_AddNumberToObject(o, "over_8", (double)vs->over8);
    cJSON_AddNumberToObject(o, "slots", (double)vs->max_slots);
}

void eval_variants_json(const eval_variants* vs, const eval_method* best, const cli_scene_args* args, cJSON* obj)
{
    if (!vs || vs->count == 0) return;
    cJSON* arr = cJSON_AddArrayToObject(obj, "variants");
    bool engines = false;
    for (size_t k = 0; k < vs->count; ++k) {
        const variant* v = &vs->list[k];
        engines |= v->engine != NULL;
        for (size_t m = 0; m < v->args.method_count; ++m) {
            sf_method method = v->args.method_order[m];
            const eval_method* a = &v->stats[method];
            cJSON* o = cJSON_CreateObject();
            cJSON_AddItemToArray(arr, o);
            if (v->engine)
                cJSON_AddStringToObject(o, "engine", v->engine->name);
            else
                cJSON_AddStringToObject(o, "label", v->label);
            cJSON_AddStringToObject(o, "normals", sf_method_name(method));
            cJSON_AddNumberToObject(o, "max_influences", (double)v->max_influences);
            cJSON_AddNumberToObject(o, "max_morph_targets", (double)v->max_morph_targets);
            cJSON_AddStringToObject(o, "morph_directions", cli_morph_directions_name(v->method_opts.morph_directions));
            if (v->engine) cJSON_AddStringToObject(o, "tangents", v->derivatives ? "derivatives" : "mikktspace");
            cJSON_AddNumberToObject(o, "truncated_vertices", (double)v->truncated);
            if (a->skipped) {
                cJSON_AddStringToObject(o, "skipped", a->reason);
                continue;
            }
            cJSON_AddItemToObject(o, "normal", stats_json(&a->normal));
            cJSON_AddItemToObject(o, "tangent", stats_json(&a->tangent));
            cJSON* p = cJSON_AddObjectToObject(o, "position");
            cJSON_AddNumberToObject(p, "mean", pos_mean(a));
            cJSON_AddNumberToObject(p, "max", a->pos_max);
            cJSON_AddNumberToObject(p, "max_over_diagonal", pos_share(a));
        }
    }
    if (!engines || !best) return;
    sf_method b[CLI_COST_LEVELS];
    best_per_level(best, args, b);
    cJSON* levels = cJSON_AddArrayToObject(obj, "best_per_cost");
    for (int l = 0; l < CLI_COST_LEVELS; ++l) {
        if (b[l] == SF_METHOD_COUNT) continue;
        cJSON* o = cJSON_CreateObject();
        cJSON_AddItemToArray(levels, o);
        cJSON_AddStringToObject(o, "cost", cli_cost_name((cli_cost_level)l));
        cJSON_AddStringToObject(o, "method", sf_method_name(b[l]));
        cJSON_AddNumberToObject(o, "normal_mean", best[b[l]].normal.mean);
    }
}

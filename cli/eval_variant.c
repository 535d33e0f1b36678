/* eval's variants as tables and JSON: the asset deformed as a runtime would (an engine preset,
 * --max-influences, --max-morph-targets, 4 or 8 influences where the asset has more), each measured by the
 * evaluation layer against the full deformation (skinframe_eval.h). */
#include "eval.h"

#include <string.h>


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

static double pos_mean(const sf_method_stats* m) { return m->pos_count ? m->pos_sum / (double)m->pos_count : 0.0; }
static double pos_share(const sf_method_stats* m) { return m->pos_diagonal > 0.0 ? m->pos_max / m->pos_diagonal : 0.0; }

static void text_row(const sf_asset_variant* v, sf_method method)
{
    const sf_method_stats* a = &v->stats[method];
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
           sf_method_name(method), infl, morphs, dirs_short(v->morph_directions), tangents, b[0], b[1],
           b[2], b[3], b[4], b[5], pos_mean(a), a->pos_max, 100.0 * pos_share(a));
}

void eval_variants_print_influences(const sf_asset_eval* e)
{
    sf_asset_influences in = sf_asset_eval_influences(e);
    printf("influences: %zu of %zu vertices per frame have more than 4, %zu more than 8 (%u slots per vertex in "
           "the file)\n", in.over4, in.vertices, in.over8, (unsigned)in.max_slots);
}

void eval_variants_print(const sf_asset_eval* e, const sf_method_stats* best, const cli_scene_args* args)
{
    size_t count = sf_asset_eval_variant_count(e);
    if (count == 0) return;
    printf("\n  against the full deformation (its reference and final positions), all frames and vertices; engines "
           "as by default (docs/engines.md)\n");
    printf("  %-16s %-21s %4s %6s %-7s %-11s |%24s |%24s |%31s\n", "", "", "", "", "morph", "", "normal error, deg",
           "tangent error, deg", "position error, mesh units");
    printf("  %-16s %-21s %4s %6s %-7s %-11s |%8s%8s%8s |%8s%8s%8s |%11s%11s%10s\n", "deformation", "normals",
           "infl", "morphs", "dirs", "tangents", "mean", "p95", "max", "mean", "p95", "max", "mean", "max",
           "max/diag");
    bool engines = false;
    for (size_t k = 0; k < count; ++k) {
        sf_asset_variant vv = sf_asset_eval_variant(e, k);
        const sf_asset_variant* v = &vv;
        engines |= v->engine != NULL;
        for (size_t m = 0; m < v->method_count; ++m) text_row(v, v->methods[m]);
    }
    for (size_t k = 0; k < count; ++k)
        if (sf_asset_eval_variant(e, k).derivatives) {
            printf("  tangents '-' with derivatives: the engine builds no vertex tangent where the file has no "
                   "TANGENT (screen-space derivatives instead)\n");
            break;
        }
    for (size_t k = 0; k < count; ++k) {
        sf_asset_variant v = sf_asset_eval_variant(e, k);
        if (v.truncated && !v.engine) printf("  %s: %zu vertices per frame lose an influence\n", v.label, v.truncated);
    }
    if (!engines || !best) return;
    sf_method b[SF_COST_LEVELS];
    sf_method_stats_best_per_cost(best, args->method_order, args->method_count, b);
    printf("  best method for this asset per cost level (full deformation, normal mean over all frames):\n");
    for (int l = 0; l < SF_COST_LEVELS; ++l) {
        if (b[l] == SF_METHOD_COUNT) continue;
        const sf_method_stats* a = &best[b[l]];
        char t[32];
        cell(t, sizeof t, &a->tangent, a->tangent.mean);
        printf("    %-36s %-21s normal %.3f, tangent %s%s\n", sf_cost_name((sf_method_cost)l), sf_method_name(b[l]),
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

void eval_variants_influences_json(const sf_asset_eval* e, cJSON* obj)
{
    sf_asset_influences in = sf_asset_eval_influences(e);
    cJSON* o = cJSON_AddObjectToObject(obj, "influences");
    cJSON_AddNumberToObject(o, "vertices", (double)in.vertices);
    cJSON_AddNumberToObject(o, "over_4", (double)in.over4);
    cJSON_AddNumberToObject(o, "over_8", (double)in.over8);
    cJSON_AddNumberToObject(o, "slots", (double)in.max_slots);
}

void eval_variants_json(const sf_asset_eval* e, const sf_method_stats* best, const cli_scene_args* args, cJSON* obj)
{
    size_t count = sf_asset_eval_variant_count(e);
    if (count == 0) return;
    cJSON* arr = cJSON_AddArrayToObject(obj, "variants");
    bool engines = false;
    for (size_t k = 0; k < count; ++k) {
        sf_asset_variant vv = sf_asset_eval_variant(e, k);
        const sf_asset_variant* v = &vv;
        engines |= v->engine != NULL;
        for (size_t m = 0; m < v->method_count; ++m) {
            sf_method method = v->methods[m];
            const sf_method_stats* a = &v->stats[method];
            cJSON* o = cJSON_CreateObject();
            cJSON_AddItemToArray(arr, o);
            if (v->engine)
                cJSON_AddStringToObject(o, "engine", v->engine->name);
            else
                cJSON_AddStringToObject(o, "label", v->label);
            cJSON_AddStringToObject(o, "normals", sf_method_name(method));
            cJSON_AddNumberToObject(o, "max_influences", (double)v->max_influences);
            cJSON_AddNumberToObject(o, "max_morph_targets", (double)v->max_morph_targets);
            cJSON_AddStringToObject(o, "morph_directions", cli_morph_directions_name(v->morph_directions));
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
    sf_method b[SF_COST_LEVELS];
    sf_method_stats_best_per_cost(best, args->method_order, args->method_count, b);
    cJSON* levels = cJSON_AddArrayToObject(obj, "best_per_cost");
    for (int l = 0; l < SF_COST_LEVELS; ++l) {
        if (b[l] == SF_METHOD_COUNT) continue;
        cJSON* o = cJSON_CreateObject();
        cJSON_AddItemToArray(levels, o);
        cJSON_AddStringToObject(o, "cost", sf_cost_name((sf_method_cost)l));
        cJSON_AddStringToObject(o, "method", sf_method_name(b[l]));
        cJSON_AddNumberToObject(o, "normal_mean", best[b[l]].normal.mean);
    }
}

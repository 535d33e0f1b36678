/* skinframe fix's report: the repairs counted, then before and after, per measured case, the mean and p95
 * normal and tangent error of `skinned` with morph deltas; as text or one JSON object per asset. */
#include "fix.h"

#include <cjson/cJSON.h>

#include <stdio.h>

#define COUNT_FIELDS(X)                                                                             \
    X(morph_normal_targets, "morph targets whose NORMAL deltas were rebuilt")                       \
    X(morph_normal_added, "... of them without NORMAL deltas before")                              \
    X(morph_tangent_targets, "morph targets whose TANGENT deltas were rebuilt")                     \
    X(morph_flat_skipped, "primitives with targets but no NORMAL (flat shaded: kept)")             \
    X(weights_renormalised, "vertices whose weights now sum to 1")                                  \
    X(duplicate_joints_merged, "duplicate joints merged")                                           \
    X(influences_sorted, "vertices whose influences were sorted by weight")                         \
    X(zero_slots_cleared, "zero-weight slots cleared")                                              \
    X(zero_weight_vertices, "vertices whose weights sum to zero (reported, left as they are)")     \
    X(influences_truncated, "vertices that lost influences to --max-influences")                   \
    X(normals_made_unit, "normals made unit")                                                       \
    X(normals_rebuilt, "zero normals rebuilt from the faces")                                       \
    X(tangent_w_snapped, "tangent w snapped to +-1")                                                \
    X(tangents_generated, "vertices given MikkTSpace tangents (normal-mapped, no TANGENT)")         \
    X(tangent_vertices_added, "vertices added by splitting for MikkTSpace's per-corner tangents")      \
    X(tangents_need_splits, "normal-mapped primitives left without TANGENT: split past 2^24 vertices") \
    X(accessors_written, "accessors written")

static void stat_cell(const sf_angle_stats* s, char* buf, size_t size)
{
    if (s->count) snprintf(buf, size, "%7.3f %7.3f", s->mean, s->p95);
    else snprintf(buf, size, "%7s %7s", "-", "-");
}

void fix_print_text(const fix_args* a, const fix_outcome* r)
{
    printf("%s -> %s (%zu primitives)\n", r->input, r->output, r->counts.primitives);
#define PRINT_COUNT_(field, text) \
    if (r->counts.field) printf("  %8zu  %s\n", r->counts.field, text);
    COUNT_FIELDS(PRINT_COUNT_)
#undef PRINT_COUNT_
    if (r->inflated_views || r->inflated_primitives)
        printf("  decompressed, written uncompressed: %zu EXT_meshopt_compression bufferViews, %zu "
               "KHR_draco_mesh_compression primitives\n", r->inflated_views, r->inflated_primitives);
    if (a->compress)
        printf("  written with EXT_meshopt_compression: %zu bufferViews (no filters: they decode to the "
               "uncompressed bytes)\n", r->compressed_views);
    if (!r->counts.accessors_written) printf("  nothing to repair: the data is written as it was\n");
    if (a->embed)
        printf("  jacobian-fan attributes (%s): %zu primitives, %zu slot groups at most, %zu left (not triangles or "
               "no NORMAL)\n", a->embed_float ? "float" : "snorm16", r->fan.primitives, r->fan.slot_groups,
               r->fan.skipped);
    if (r->truncation_measured) {
        const sf_fix_truncation* t = &r->truncation;
        printf("  --max-influences %u costs over the animations: positions mean %.3g, max %.3g (%.3g%% of the "
               "diagonal); skinned normals %.3f mean, %.3f p95 against the full deformation's reference\n",
               a->opts.max_influences, t->position_mean, t->position_max,
               t->diagonal > 0 ? 100.0 * t->position_max / t->diagonal : 0.0, t->normal.mean, t->normal.p95);
    }
    if (!a->measure || !r->measured) return;
    printf("  skinned with morph deltas against the reference, degrees (mean p95):\n");
    printf("  %-28s %15s %15s   %15s %15s\n", "case", "normal before", "normal after", "tangent before",
           "tangent after");
    for (size_t k = 0; k < r->before.case_count && k < r->after.case_count; ++k) {
        char nb[40], na[40], tb[40], ta[40];
        stat_cell(&r->before.cases[k].normal, nb, sizeof nb);
        stat_cell(&r->after.cases[k].normal, na, sizeof na);
        stat_cell(&r->before.cases[k].tangent, tb, sizeof tb);
        stat_cell(&r->after.cases[k].tangent, ta, sizeof ta);
        printf("  %-28s %15s %15s   %15s %15s\n", r->before.cases[k].label, nb, na, tb, ta);
    }
}

static cJSON* stats_json(const sf_angle_stats* s)
{
    cJSON* o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "count", (double)s->count);
    cJSON_AddNumberToObject(o, "mean", s->mean);
    cJSON_AddNumberToObject(o, "p95", s->p95);
    cJSON_AddNumberToObject(o, "max", s->max);
    return o;
}

static cJSON* case_json(const sf_fix_case* c)
{
    cJSON* o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "normal", stats_json(&c->normal));
    cJSON_AddItemToObject(o, "tangent", stats_json(&c->tangent));
    return o;
}

static void print_line(cJSON* o)
{
    char* text = cJSON_PrintUnformatted(o);
    if (text) {
        cli_write_utf8(stdout, text);
        putchar('\n');
        fflush(stdout);
    }
    cJSON_free(text);
    cJSON_Delete(o);
}

void fix_print_json(const fix_args* a, const fix_outcome* r)
{
    cJSON* o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", r->input);
    cJSON_AddStringToObject(o, "output", r->output);
    cJSON* c = cJSON_AddObjectToObject(o, "repairs");
    cJSON_AddNumberToObject(c, "primitives", (double)r->counts.primitives);
#define JSON_COUNT_(field, text) cJSON_AddNumberToObject(c, #field, (double)r->counts.field);
    COUNT_FIELDS(JSON_COUNT_)
#undef JSON_COUNT_
    cJSON* d = cJSON_AddObjectToObject(o, "decompressed");
    cJSON_AddNumberToObject(d, "meshopt_views", (double)r->inflated_views);
    cJSON_AddNumberToObject(d, "draco_primitives", (double)r->inflated_primitives);
    if (a->compress) cJSON_AddNumberToObject(o, "meshopt_compressed_views", (double)r->compressed_views);
    if (a->embed) {
        cJSON* e = cJSON_AddObjectToObject(o, "embed");
        cJSON_AddStringToObject(e, "method", "jacobian-fan");
        cJSON_AddStringToObject(e, "encoding", a->embed_float ? "float" : "snorm16");
        cJSON_AddNumberToObject(e, "primitives", (double)r->fan.primitives);
        cJSON_AddNumberToObject(e, "slot_groups", (double)r->fan.slot_groups);
        cJSON_AddNumberToObject(e, "skipped", (double)r->fan.skipped);
        cJSON_AddNumberToObject(e, "accessors_written", (double)r->fan.accessors_written);
    }
    if (r->truncation_measured) {
        cJSON* t = cJSON_AddObjectToObject(o, "max_influences_cost");
        cJSON_AddNumberToObject(t, "max_influences", a->opts.max_influences);
        cJSON_AddNumberToObject(t, "truncated_vertices", (double)r->truncation.truncated);
        cJSON_AddNumberToObject(t, "position_mean", r->truncation.position_mean);
        cJSON_AddNumberToObject(t, "position_max", r->truncation.position_max);
        cJSON_AddNumberToObject(t, "diagonal", r->truncation.diagonal);
        cJSON_AddItemToObject(t, "normal", stats_json(&r->truncation.normal));
    }
    if (a->measure && r->measured) {
        cJSON* cases = cJSON_AddArrayToObject(o, "cases");
        for (size_t k = 0; k < r->before.case_count && k < r->after.case_count; ++k) {
            cJSON* e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "case", r->before.cases[k].label);
            cJSON_AddItemToObject(e, "before", case_json(&r->before.cases[k]));
            cJSON_AddItemToObject(e, "after", case_json(&r->after.cases[k]));
            cJSON_AddItemToArray(cases, e);
        }
    }
    print_line(o);
}

void fix_print_json_error(const char* input, const char* message)
{
    cJSON* o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", input);
    cJSON_AddStringToObject(o, "error", message);
    print_line(o);
}

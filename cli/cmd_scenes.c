/* `skinframe scenes`: the built-in scenes with their parameters, presets and morph targets. */
#include "report.h"

#include <string.h>

static void usage(FILE* f)
{
    fputs("Usage: skinframe scenes [NAME] [--json]\n"
          "Lists the built-in scenes: parameters (default, range, unit), presets (the settings they apply),\n"
          "morph targets (weight 0 unless set) and the reference weighting of each.\n"
          "  NAME      only this scene\n"
          "  --json    print JSON: {\"scenes\": [{\"name\", \"description\", \"reference_weighting\",\n"
          "            \"params\": [{\"name\", \"default\", \"min\", \"max\", \"unit\", \"description\"}],\n"
          "            \"presets\": [{\"name\", \"description\", \"settings\"}], \"targets\": [...]}]}\n",
          f);
}

static const char* text_or_empty(const char* s) { return s ? s : ""; }

#define SCENES_WIDTH 118

/* Prints text word-wrapped: the cursor is at column `col`; continuation lines start at `indent`. */
static void print_wrapped(FILE* f, const char* text, int col, int indent)
{
    const char* p = text;
    while (*p) {
        while (*p == ' ') ++p;
        size_t word = strcspn(p, " ");
        if (!word) break;
        if (col > indent && col + 1 + (int)word > SCENES_WIDTH) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (col != indent) {
            fputc(' ', f);
            col++;
        }
        fwrite(p, 1, word, f);
        col += (int)word;
        p += word;
    }
    fputc('\n', f);
}

static void print_scene(FILE* f, const sf_scene_info* s)
{
    int col = fprintf(f, "%s:", s->name);
    print_wrapped(f, text_or_empty(s->description), col, 2);
    fprintf(f, "  reference weighting: %s\n", cli_weighting_name(s->reference_weighting));
    fprintf(f, "  parameters:\n");
    if (!s->param_count) fprintf(f, "    (none)\n");
    for (size_t k = 0; k < s->param_count; ++k) {
        const sf_scene_param_info* p = &s->params[k];
        char range[64];
        snprintf(range, sizeof range, "[%g, %g]", p->min_value, p->max_value);
        int c = fprintf(f, "    %-16s default %-8g %-18s %-6s", p->name, p->default_value, range, text_or_empty(p->unit));
        print_wrapped(f, text_or_empty(p->description), c, c + 1);
    }
    fprintf(f, "  presets:\n");
    if (!s->preset_count) fprintf(f, "    (none)\n");
    for (size_t k = 0; k < s->preset_count; ++k) {
        const sf_scene_preset_info* p = &s->presets[k];
        int c = fprintf(f, "    %-16s %-24s", p->name, text_or_empty(p->settings));
        print_wrapped(f, text_or_empty(p->description), c, c + 1);
    }
    fprintf(f, "  morph targets (weight 0 unless --morph sets it):");
    if (!s->target_count) fprintf(f, " (none)");
    for (size_t k = 0; k < s->target_count; ++k) fprintf(f, "%s %s", k ? "," : "", s->targets[k]);
    fprintf(f, "\n");
}

static cJSON* scene_json(const sf_scene_info* s)
{
    cJSON* o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", s->name);
    cJSON_AddStringToObject(o, "description", text_or_empty(s->description));
    cJSON_AddStringToObject(o, "reference_weighting", cli_weighting_name(s->reference_weighting));
    cJSON* params = cJSON_AddArrayToObject(o, "params");
    for (size_t k = 0; k < s->param_count; ++k) {
        const sf_scene_param_info* p = &s->params[k];
        cJSON* e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", p->name);
        cJSON_AddNumberToObject(e, "default", p->default_value);
        cJSON_AddNumberToObject(e, "min", p->min_value);
        cJSON_AddNumberToObject(e, "max", p->max_value);
        cJSON_AddStringToObject(e, "unit", text_or_empty(p->unit));
        cJSON_AddStringToObject(e, "description", text_or_empty(p->description));
        cJSON_AddItemToArray(params, e);
    }
    cJSON* presets = cJSON_AddArrayToObject(o, "presets");
    for (size_t k = 0; k < s->preset_count; ++k) {
        const sf_scene_preset_info* p = &s->presets[k];
        cJSON* e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", p->name);
        cJSON_AddStringToObject(e, "description", text_or_empty(p->description));
        cJSON_AddStringToObject(e, "settings", text_or_empty(p->settings));
        cJSON_AddItemToArray(presets, e);
    }
    cJSON* targets = cJSON_AddArrayToObject(o, "targets");
    for (size_t k = 0; k < s->target_count; ++k) cJSON_AddItemToArray(targets, cJSON_CreateString(s->targets[k]));
    return o;
}

int cmd_scenes(int argc, char** argv)
{
    bool json = false;
    const char* only = NULL;
    for (int i = 1; i < argc; ++i) {
        int r;
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return CLI_EXIT_OK;
        } else if ((r = cli_flag_switch(argv, i, "--json")) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            json = true;
        } else if (argv[i][0] == '-') {
            return cli_fail(CLI_EXIT_USAGE, "scenes: unknown flag '%s' (see skinframe scenes --help)", argv[i]);
        } else if (!only) {
            only = argv[i];
        } else {
            return cli_fail(CLI_EXIT_USAGE, "scenes: unexpected argument '%s'", argv[i]);
        }
    }
    if (only && !sf_scene_info_find(only)) {
        char known[512] = "";
        for (size_t k = 0; k < sf_scene_count(); ++k) {
            if (k) strncat(known, ", ", sizeof known - strlen(known) - 1);
            strncat(known, sf_scene_info_at(k)->name, sizeof known - strlen(known) - 1);
        }
        return cli_fail(CLI_EXIT_USAGE, "unknown scene '%s' (known: %s)", only, known[0] ? known : "none");
    }
    cJSON* root = json ? cJSON_CreateObject() : NULL;
    cJSON* list = json ? cJSON_AddArrayToObject(root, "scenes") : NULL;
    for (size_t k = 0; k < sf_scene_count(); ++k) {
        const sf_scene_info* s = sf_scene_info_at(k);
        if (only && strcmp(only, s->name) != 0) continue;
        if (json) {
            cJSON_AddItemToArray(list, scene_json(s));
        } else {
            if (k && !only) fputc('\n', stdout);
            print_scene(stdout, s);
        }
    }
    int code = CLI_EXIT_OK;
    if (json) {
        if (!report_print_json(stdout, root, true)) code = cli_fail(CLI_EXIT_FAILURE, "out of memory printing JSON");
        cJSON_Delete(root);
    }
    return code;
}

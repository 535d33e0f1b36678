/* `skinframe demo`: compare over every scene and preset, and the morph targets (each at weight 1, and
 * one combination) with morph directions none and deltas; one summary table. With --out DIR it also
 * writes DIR/demo.txt, DIR/demo.json and whatever demo_case_outputs adds per case. */
#define _POSIX_C_SOURCE 200809L
#include "report.h"
#include "render.h" /* four-view images per case */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEMO_MAX_MORPHS 8

typedef struct demo_case {
    const sf_scene_info* scene;
    const char* preset; /* NULL = rest pose */
    cli_assignment morphs[DEMO_MAX_MORPHS];
    size_t morph_count;
    sf_morph_directions dirs;
    char label[96]; /* "sheet/bone-twist", "sheet towel-twist=1" */
    char stem[96];  /* file-name stem: "sheet_bone-twist", "sheet_towel-twist-1_deltas" */
} demo_case;

static void usage(FILE* f)
{
    fputs("Usage: skinframe demo [--out DIR] [--force] [--json] [--scene NAME] [--method all|NAME,...] [--threads N]\n"
          "Runs compare over every scene and preset, and over the morph targets (each at weight 1 and one\n"
          "combination) with morph directions none and deltas, and prints one summary table: normal and\n"
          "tangent mean/max error (degrees) and handedness mismatches per case and method.\n"
          "  --out DIR       also write DIR/demo.txt and DIR/demo.json (and per-case outputs); replaces only\n"
          "                  files an earlier demo wrote there\n"
          "  --force         replace such files even when they are not\n"
          "  --json          print the cases as a JSON array of compare objects (with \"case\")\n"
          "  --scene NAME    only this scene\n"
          "  --method LIST   methods to run (default all)\n"
          "  --threads N     worker threads (default: one per core)\n",
          f);
}

/* ---------------------------------------------------------------- the cases */

static void finish_case(demo_case* c)
{
    char morphs[64] = "";
    /* each item written at the end of what is there, cut where the buffer ends */
    size_t used = 0;
    for (size_t k = 0; k < c->morph_count && used + 1 < sizeof morphs; ++k) {
        int w = snprintf(morphs + used, sizeof morphs - used, "%s%s=%g", k ? "," : "", c->morphs[k].name,
                         c->morphs[k].value);
        if (w < 0) break;
        used += (size_t)w < sizeof morphs - used ? (size_t)w : sizeof morphs - used - 1;
    }
    if (c->morph_count) {
        snprintf(c->label, sizeof c->label, "%s %s", c->scene->name, morphs);
        for (char* p = morphs; *p; ++p)
            if (*p == '=' || *p == ',') *p = *p == '=' ? '-' : '+';
        snprintf(c->stem, sizeof c->stem, "%s_%s_%s", c->scene->name, morphs, cli_morph_directions_name(c->dirs));
    } else {
        snprintf(c->label, sizeof c->label, "%s/%s", c->scene->name, c->preset ? c->preset : "rest");
        snprintf(c->stem, sizeof c->stem, "%s_%s", c->scene->name, c->preset ? c->preset : "rest");
    }
}

static bool has_target(const sf_scene_info* s, const char* name)
{
    for (size_t k = 0; k < s->target_count; ++k)
        if (strcmp(s->targets[k], name) == 0) return true;
    return false;
}

/* The combination: the article's towel twist with swirl and ripples where the scene has them,
 * else every target at 0.5. */
static size_t combination(const sf_scene_info* s, cli_assignment* out)
{
    static const cli_assignment mix[] = {{"towel-twist", 0.7}, {"swirl", 0.5}, {"ripples", 0.6}};
    size_t n = 0;
    bool all = true;
    for (size_t k = 0; k < sizeof mix / sizeof mix[0]; ++k) all &= has_target(s, mix[k].name);
    if (all) {
        for (size_t k = 0; k < sizeof mix / sizeof mix[0]; ++k) out[n++] = mix[k];
        return n;
    }
    for (size_t k = 0; k < s->target_count && n < DEMO_MAX_MORPHS; ++k) {
        snprintf(out[n].name, sizeof out[n].name, "%s", s->targets[k]);
        out[n++].value = 0.5;
    }
    return n;
}

/* Fills cases (capacity cap) for one scene; returns how many. */
static size_t scene_cases(const sf_scene_info* s, demo_case* cases, size_t cap)
{
    size_t n = 0;
    demo_case c;
    if (s->preset_count == 0 && n < cap) {
        memset(&c, 0, sizeof c);
        c.scene = s;
        finish_case(&c);
        cases[n++] = c;
    }
    for (size_t p = 0; p < s->preset_count && n < cap; ++p) {
        memset(&c, 0, sizeof c);
        c.scene = s;
        c.preset = s->presets[p].name;
        finish_case(&c);
        cases[n++] = c;
    }
    for (size_t t = 0; t <= s->target_count && s->target_count > 0; ++t) {
        for (int d = 0; d < 2 && n < cap; ++d) {
            memset(&c, 0, sizeof c);
            c.scene = s;
            c.dirs = d == 0 ? SF_MORPH_DIRECTIONS_NONE : SF_MORPH_DIRECTIONS_DELTAS;
            if (t < s->target_count) {
                snprintf(c.morphs[0].name, sizeof c.morphs[0].name, "%s", s->targets[t]);
                c.morphs[0].value = 1.0;
                c.morph_count = 1;
            } else {
                c.morph_count = combination(s, c.morphs);
            }
            finish_case(&c);
            cases[n++] = c;
        }
    }
    return n;
}

/* ---------------------------------------------------------------- per-case outputs (hook) */

/* Called once per case after its comparison, only with --out. `run` holds the scene, the topology, the
 * final positions, the reference and every method's normals and tangents (keep_frames). Writes the
 * four-view images (cli/cmd_render.c): DIR/<stem>_<method>.png and DIR/<stem>_contact.png. */
/* out_dir: where the images are written (the stage); shown: the folder named in the message (--out DIR). */
static int demo_case_outputs(const demo_case* c, const cli_run* run, const char* out_dir, const char* shown)
{
    render_settings rs;
    render_settings_init(&rs);
    rs.rig = true;
    rs.vectors = run->vertex_count <= 600; /* the article's gold normals where they stay readable */
    char caption[160];
    snprintf(caption, sizeof caption, "%s%s%s", c->label, c->morph_count ? "  morph dirs: " : "",
             c->morph_count ? cli_morph_directions_name(c->dirs) : "");
    size_t written = 0;
    int code = render_run_images("--out", run, &rs, caption, out_dir, c->stem, true, &written);
    if (code == CLI_EXIT_OK)
        fprintf(stderr, "skinframe: wrote %zu images %s/%s_{<method>,contact}.png\n", written, shown, c->stem);
    return code;
}

/* ---------------------------------------------------------------- the table */

static void print_head(FILE* f)
{
    fprintf(f, "%-44s%-8s%-21s%9s%9s%9s%9s%7s\n", "case", "morph", "method", "n.mean", "n.max", "t.mean", "t.max",
            "hand");
}

static void print_case(FILE* f, const demo_case* c, const cli_run* run)
{
    bool frame = sf_topology_has_tangent_frame(run->topo) != 0;
    bool first = true;
    for (size_t k = 0; k < run->method_count; ++k) {
        const cli_method_result* m = &run->methods[k];
        if (m->skipped) continue;
        const sf_error_summary* s = &m->summary;
        fprintf(f, "%-44s%-8s%-21s%9.3f%9.3f", first ? c->label : "",
                first ? (c->morph_count ? cli_morph_directions_name(c->dirs) : "-") : "", sf_method_name(m->method),
                s->normal.mean, s->normal.max);
        if (frame)
            fprintf(f, "%9.3f%9.3f%7zu\n", s->tangent.mean, s->tangent.max, s->handedness_mismatches);
        else
            fprintf(f, "%9s%9s%7s\n", "-", "-", "-");
        first = false;
    }
}

static int parse_flags(int argc, char** argv, cli_scene_args* args, const char** out_dir, bool* json)
{
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = NULL;
        int r;
        if (cli_is_help(a)) {
            usage(stdout);
            return -1;
        }
        if ((r = cli_flag_switch(argv, i, "--json")) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            *json = true;
            continue;
        }
        if ((r = cli_outputs_parse_force(argv, i)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--out", &v)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            *out_dir = v;
            continue;
        }
        /* Of the shared flags the demo takes only these; the cases set the rest. */
        if (strncmp(a, "--scene", 7) == 0 || strncmp(a, "--method", 8) == 0 || strncmp(a, "--threads", 9) == 0) {
            r = cli_scene_args_parse(args, argc, argv, &i);
            if (r < 0) return CLI_EXIT_USAGE;
            if (r > 0) continue;
        }
        if (a[0] == '-') return cli_fail(CLI_EXIT_USAGE, "demo: unknown flag '%s' (see skinframe demo --help)", a);
        return cli_fail(CLI_EXIT_USAGE, "demo: unexpected argument '%s'", a);
    }
    return CLI_EXIT_OK;
}

/* The cases and their table; with out_dir (already made), its files, all or nothing. */
static int demo_run(cli_scene_args base, const char* out_dir, bool json)
{
    int code = CLI_EXIT_OK;
    char path[4200];
    if (out_dir) { /* the two summary files, before any case runs */
        snprintf(path, sizeof path, "%s/demo.txt", out_dir);
        if ((code = cli_output_check("--out", path, CLI_OUTPUT_DEMO_TEXT)) != CLI_EXIT_OK) return code;
        snprintf(path, sizeof path, "%s/demo.json", out_dir);
        if ((code = cli_output_check("--out", path, CLI_OUTPUT_DEMO_JSON)) != CLI_EXIT_OK) return code;
    }
    /* every file into a new folder next to DIR, which replaces DIR only when all are written */
    sf_dir_stage* stage = NULL;
    const char* final_dir = out_dir;
    sf_error err;
    if (out_dir && sf_dir_stage_open(out_dir, &stage, &err) != SF_OK)
        return cli_fail(CLI_EXIT_FAILURE, "--out: %s", err.message);
    if (stage) out_dir = sf_dir_stage_path(stage);
    if (cli_pool_start(base.threads) != 0) {
        sf_dir_stage_abort(stage);
        return cli_fail(CLI_EXIT_FAILURE, "could not start threads");
    }
    sf_env env = cli_env();

    /* The table goes to stdout and, with --out, to DIR/demo.txt. */
    char* table = NULL;
    size_t table_len = 0;
    FILE* t = open_memstream(&table, &table_len);
    if (!t) {
        sf_dir_stage_abort(stage);
        return cli_fail(CLI_EXIT_FAILURE, "out of memory");
    }
    cJSON* all = cJSON_CreateArray();
    print_head(t);
    size_t failed = 0, total = 0;
    bool write_failed = false; /* the first failed write stops the demo: the folder is all or nothing */
    bool skipped[SF_METHOD_COUNT] = {false};
    for (size_t si = 0; si < sf_scene_count() && !write_failed; ++si) {
        const sf_scene_info* s = sf_scene_info_at(si);
        if (base.scene && strcmp(base.scene, s->name) != 0) continue;
        demo_case cases[64];
        size_t n = scene_cases(s, cases, sizeof cases / sizeof cases[0]);
        if (total) fputc('\n', t);
        for (size_t k = 0; k < n && !write_failed; ++k) {
            const demo_case* c = &cases[k];
            cli_scene_args args = base;
            args.scene = s->name;
            args.preset = c->preset;
            args.setting_count = c->morph_count;
            for (size_t m = 0; m < c->morph_count; ++m) {
                args.settings[m] = c->morphs[m];
                args.setting_is_morph[m] = true;
            }
            args.morph_directions = c->dirs;
            cli_run run;
            int rc = cli_run_compare(&args, &env, NULL, 0, out_dir != NULL, &run);
            total++;
            if (rc == CLI_EXIT_OK) {
                cli_run_note_skipped(&run);
                for (size_t m = 0; m < run.method_count; ++m) skipped[run.methods[m].method] |= run.methods[m].skipped;
                print_case(t, c, &run);
                cJSON* o = report_json(&run);
                cJSON_AddStringToObject(o, "case", c->label);
                cJSON_AddStringToObject(o, "case_id", c->stem);
                cJSON_AddItemToArray(all, o);
                if (out_dir) write_failed = (rc = demo_case_outputs(c, &run, out_dir, final_dir)) != CLI_EXIT_OK;
            }
            if (rc != CLI_EXIT_OK) {
                failed++;
                fprintf(t, "%-44s(failed, see the error above)\n", c->label);
            }
            cli_run_free(&run);
        }
    }
    for (int m = 0; m < SF_METHOD_COUNT; ++m)
        if (skipped[m]) fprintf(t, "(%s skipped: %s)\n", sf_method_name((sf_method)m), sf_result_string(SF_ERROR_UNSUPPORTED));
    fprintf(t, "%zu cases; angles in degrees against the reference (recompute, the scene's reference weighting)\n",
            total);
    fclose(t);

    if (json) {
        if (!report_print_json(stdout, all, true)) code = cli_fail(CLI_EXIT_FAILURE, "out of memory printing JSON");
    } else {
        fwrite(table, 1, table_len, stdout);
    }
    if (out_dir && code == CLI_EXIT_OK && !failed) {
        snprintf(path, sizeof path, "%s/demo.txt", out_dir);
        code = cli_output_write("--out", path, CLI_OUTPUT_DEMO_TEXT, table, table_len);
        snprintf(path, sizeof path, "%s/demo.json", out_dir);
        if (code == CLI_EXIT_OK) code = report_write_json("--out", path, CLI_OUTPUT_DEMO_JSON, all, true);
        if (code == CLI_EXIT_OK && sf_dir_stage_commit(stage, &err) != SF_OK)
            code = cli_fail(CLI_EXIT_FAILURE, "--out: %s", err.message);
        else if (code != CLI_EXIT_OK)
            sf_dir_stage_abort(stage);
        stage = NULL;
        if (code == CLI_EXIT_OK && !json) printf("wrote %s/demo.txt and %s/demo.json\n", final_dir, final_dir);
    }
    sf_dir_stage_abort(stage); /* a failed case: nothing replaces DIR */
    free(table);
    cJSON_Delete(all);
    if (code == CLI_EXIT_OK && failed)
        code = cli_fail(CLI_EXIT_FAILURE, "demo: %zu of %zu cases failed", failed, total);
    return code;
}

int cmd_demo(int argc, char** argv)
{
    cli_scene_args base;
    cli_scene_args_init(&base);
    const char* out_dir = NULL;
    bool json = false;
    int code = parse_flags(argc, argv, &base, &out_dir, &json);
    if (code < 0) return CLI_EXIT_OK; /* --help */
    if (code != CLI_EXIT_OK) return code;
    if (base.scene && !sf_scene_info_find(base.scene)) {
        base.preset = NULL;
        return cli_scene_args_finish(&base); /* prints the unknown-scene error */
    }
    if (sf_scene_count() == 0) return cli_fail(CLI_EXIT_FAILURE, "demo: the library has no built-in scenes");
    struct stat st;
    bool made = out_dir && stat(out_dir, &st) != 0; /* a folder this run makes */
    if (out_dir && (code = cli_output_folder("--out", out_dir)) != CLI_EXIT_OK) return code;
    code = demo_run(base, out_dir, json);
    if (code != CLI_EXIT_OK && made) rmdir(out_dir); /* left empty by the failure: not left behind */
    return code;
}

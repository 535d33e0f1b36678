/* The shared scene / method flags (see scene_args.h). */
#include "scene_args.h"

#include <math.h>
#include <string.h>

void cli_scene_args_init(cli_scene_args* args)
{
    memset(args, 0, sizeof *args);
    args->morph_directions = SF_MORPH_DIRECTIONS_DELTAS;
    args->weighting = SF_WEIGHTING_AREA;
    args->weld = SF_WELD_NONE;
    args->tangents = SF_TANGENTS_UV;
    for (int m = 0; m < SF_METHOD_DEFAULT_COUNT; ++m) {
        args->method_on[m] = true;
        args->method_order[m] = (sf_method)m;
    }
    args->method_count = SF_METHOD_DEFAULT_COUNT;
}

/* ---------------------------------------------------------------- names */

static const char* const weighting_names[] = {"area", "angle", "uniform"};
static const char* const weld_names[] = {"none", "position", "position-normal"};
static const char* const tangents_names[] = {"uv", "mikktspace"};
static const char* const reference_names[] = {"rebuilt", "authored"};
static const char* const dirs_names[] = {"deltas", "none", "normals"};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char* name_at(const char* const* names, size_t n, int i)
{
    return i >= 0 && (size_t)i < n ? names[i] : "?";
}

const char* cli_weighting_name(sf_weighting w) { return name_at(weighting_names, COUNT_OF(weighting_names), (int)w); }
const char* cli_weld_name(sf_weld w) { return name_at(weld_names, COUNT_OF(weld_names), (int)w); }
const char* cli_tangents_name(sf_tangent_mode t) { return name_at(tangents_names, COUNT_OF(tangents_names), (int)t); }
const char* cli_reference_name(sf_reference r) { return name_at(reference_names, COUNT_OF(reference_names), (int)r); }
const char* cli_morph_directions_name(sf_morph_directions d)
{
    return name_at(dirs_names, COUNT_OF(dirs_names), (int)d);
}

/* Index of value in names, or -1 after a one-line error listing the choices. */
static int pick(const char* flag, const char* value, const char* const* names, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        if (strcmp(value, names[i]) == 0) return (int)i;
    char choices[256] = "";
    for (size_t i = 0; i < n; ++i) {
        strncat(choices, names[i], sizeof choices - strlen(choices) - 1);
        if (i + 1 < n) strncat(choices, "|", sizeof choices - strlen(choices) - 1);
    }
    cli_fail(CLI_EXIT_USAGE, "%s: unknown value '%s' (expected %s)", flag, value, choices);
    return -1;
}

static int parse_methods(cli_scene_args* args, const char* list)
{
    memset(args->method_on, 0, sizeof args->method_on);
    args->method_count = 0;
    args->methods_given = true;
    if (strcmp(list, "all") == 0) {
        for (int m = 0; m < SF_METHOD_DEFAULT_COUNT; ++m) {
            args->method_on[m] = true;
            args->method_order[args->method_count++] = (sf_method)m;
        }
        return 1;
    }
    const char* p = list;
    while (*p) {
        const char* comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char name[64];
        if (len == 0 || len >= sizeof name) {
            cli_fail(CLI_EXIT_USAGE, "--method: bad list '%s' (expected all or NAME[,NAME...])", list);
            return -1;
        }
        memcpy(name, p, len);
        name[len] = '\0';
        sf_method m;
        if (strcmp(name, "all") == 0) { /* in a list too: every default method, then the others named */
            for (int k = 0; k < SF_METHOD_DEFAULT_COUNT; ++k)
                if (!args->method_on[k]) {
                    args->method_on[k] = true;
                    args->method_order[args->method_count++] = (sf_method)k;
                }
        } else if (sf_method_parse(name, &m) != SF_OK) {
            char known[256] = "";
            for (int k = 0; k < SF_METHOD_COUNT; ++k) {
                strncat(known, sf_method_name((sf_method)k), sizeof known - strlen(known) - 1);
                strncat(known, k + 1 < SF_METHOD_COUNT ? ", " : "", sizeof known - strlen(known) - 1);
            }
            cli_fail(CLI_EXIT_USAGE, "--method: unknown method '%s' (known: all, %s)", name, known);
            return -1;
        } else if (!args->method_on[m]) {
            args->method_on[m] = true;
            args->method_order[args->method_count++] = m;
        }
        p = comma ? comma + 1 : p + len;
        if (comma && !*p) {
            cli_fail(CLI_EXIT_USAGE, "--method: trailing comma in '%s'", list);
            return -1;
        }
    }
    return 1;
}

static int add_settings(cli_scene_args* args, const char* flag, const char* list, bool morph)
{
    size_t before = args->setting_count;
    if (cli_parse_assignments(flag, list, args->settings, CLI_MAX_SETTINGS, &args->setting_count) != CLI_EXIT_OK)
        return -1;
    for (size_t k = before; k < args->setting_count; ++k) args->setting_is_morph[k] = morph;
    return 1;
}

int cli_scene_args_parse(cli_scene_args* args, int argc, char** argv, int* i)
{
    const char* v = NULL;
    int r;
    if ((r = cli_flag_value(argc, argv, i, "--scene", &v)) != 0) {
        if (r > 0) args->scene = v;
        return r;
    }
    if ((r = cli_flag_value(argc, argv, i, "--preset", &v)) != 0) {
        if (r > 0) args->preset = v;
        return r;
    }
    if ((r = cli_flag_value(argc, argv, i, "--set", &v)) != 0) return r > 0 ? add_settings(args, "--set", v, false) : r;
    if ((r = cli_flag_value(argc, argv, i, "--morph", &v)) != 0)
        return r > 0 ? add_settings(args, "--morph", v, true) : r;
    if ((r = cli_flag_value(argc, argv, i, "--morph-directions", &v)) != 0) {
        if (r < 0) return r;
        int k = pick("--morph-directions", v, dirs_names, COUNT_OF(dirs_names));
        if (k < 0) return -1;
        args->morph_directions = (sf_morph_directions)k;
        return 1;
    }
    if ((r = cli_flag_value(argc, argv, i, "--method", &v)) != 0) return r > 0 ? parse_methods(args, v) : r;
    if ((r = cli_flag_value(argc, argv, i, "--weighting", &v)) != 0) {
        if (r < 0) return r;
        int k = pick("--weighting", v, weighting_names, COUNT_OF(weighting_names));
        if (k < 0) return -1;
        args->weighting = (sf_weighting)k;
        args->weighting_given = true;
        return 1;
    }
    if ((r = cli_flag_value(argc, argv, i, "--weld", &v)) != 0) {
        if (r < 0) return r;
        int k = pick("--weld", v, weld_names, COUNT_OF(weld_names));
        if (k < 0) return -1;
        args->weld = (sf_weld)k;
        return 1;
    }
    if ((r = cli_flag_value(argc, argv, i, "--tangents", &v)) != 0) {
        if (r < 0) return r;
        int k = pick("--tangents", v, tangents_names, COUNT_OF(tangents_names));
        if (k < 0) return -1;
        args->tangents = (sf_tangent_mode)k;
        return 1;
    }
    if ((r = cli_flag_value(argc, argv, i, "--reference", &v)) != 0) {
        if (r < 0) return r;
        int k = pick("--reference", v, reference_names, COUNT_OF(reference_names));
        if (k < 0) return -1;
        args->reference = (sf_reference)k;
        return 1;
    }
    if ((r = cli_flag_value(argc, argv, i, "--jacobian-cap", &v)) != 0) {
        if (r < 0) return r;
        double cap;
        if (!cli_parse_double(v, &cap) || !(cap >= 0.0) || cap > 1e6) {
            cli_fail(CLI_EXIT_USAGE, "--jacobian-cap: '%s' is not a number >= 0", v);
            return -1;
        }
        args->jacobian_cap = (float)cap;
        return 1;
    }
    if ((r = cli_flag_value(argc, argv, i, "--backend", &v)) != 0) {
        if (r < 0) return r;
        if (sf_backend_parse(v, &args->backend) != SF_OK) {
            cli_fail(CLI_EXIT_USAGE, "--backend: '%s' is not a backend (cpu, cuda)", v);
            return -1;
        }
        return 1;
    }
    if ((r = cli_flag_value(argc, argv, i, "--threads", &v)) != 0) {
        if (r < 0) return r;
        if (!cli_parse_size(v, 1, 1024, &args->threads)) {
            cli_fail(CLI_EXIT_USAGE, "--threads: '%s' is not a whole number from 1 to 1024", v);
            return -1;
        }
        return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- checks against the scene */

/* What kind of setting `name` is for this scene: 'p' parameter (resolution included, where the scene
 * has one), 'm' morph target, 0 unknown. */
static char setting_kind(const sf_scene_info* info, const char* name)
{
    for (size_t k = 0; k < info->param_count; ++k)
        if (strcmp(info->params[k].name, name) == 0) return 'p';
    for (size_t k = 0; k < info->target_count; ++k)
        if (strcmp(info->targets[k], name) == 0) return 'm';
    return 0;
}

int cli_sweep_parse(const char* text, size_t min_steps, size_t max_steps, cli_sweep* out)
{
    const char* eq = strchr(text, '=');
    if (!eq || eq == text || (size_t)(eq - text) >= sizeof out->name)
        return cli_fail(CLI_EXIT_USAGE, "--sweep: '%s' is not NAME=FROM:TO:STEPS", text);
    memcpy(out->name, text, (size_t)(eq - text));
    out->name[eq - text] = '\0';
    char parts[3][64];
    const char* p = eq + 1;
    for (int k = 0; k < 3; ++k) {
        const char* colon = k < 2 ? strchr(p, ':') : p + strlen(p);
        if (!colon || (size_t)(colon - p) >= sizeof parts[k])
            return cli_fail(CLI_EXIT_USAGE, "--sweep: '%s' is not NAME=FROM:TO:STEPS", text);
        memcpy(parts[k], p, (size_t)(colon - p));
        parts[k][colon - p] = '\0';
        p = colon + (k < 2);
    }
    if (!cli_parse_double(parts[0], &out->from))
        return cli_fail(CLI_EXIT_USAGE, "--sweep: FROM '%s' is not a number", parts[0]);
    if (!cli_parse_double(parts[1], &out->to))
        return cli_fail(CLI_EXIT_USAGE, "--sweep: TO '%s' is not a number", parts[1]);
    if (!cli_parse_size(parts[2], min_steps, max_steps, &out->steps))
        return cli_fail(CLI_EXIT_USAGE, "--sweep: STEPS '%s' is not a whole number from %zu to %zu", parts[2],
                        min_steps, max_steps);
    return CLI_EXIT_OK;
}

int cli_sweep_check(const cli_sweep* sw, const sf_scene_info* info, const char** unit)
{
    char kind = setting_kind(info, sw->name);
    if (!kind)
        return cli_fail(CLI_EXIT_USAGE, "--sweep: scene %s has no parameter or morph target named '%s'", info->name,
                        sw->name);
    const char* u = kind == 'm' ? "weight" : "";
    for (size_t k = 0; kind == 'p' && k < info->param_count; ++k) {
        const sf_scene_param_info* p = &info->params[k];
        if (strcmp(p->name, sw->name) != 0) continue;
        u = p->unit ? p->unit : "";
        double lo = sw->from < sw->to ? sw->from : sw->to, hi = sw->from < sw->to ? sw->to : sw->from;
        if (lo < p->min_value || hi > p->max_value)
            return cli_fail(CLI_EXIT_USAGE, "--sweep: %s from %g to %g leaves [%g, %g]%s%s", sw->name, sw->from,
                            sw->to, p->min_value, p->max_value, *u ? " " : "", u);
    }
    if (unit) *unit = u;
    return CLI_EXIT_OK;
}

double cli_sweep_value(const cli_sweep* sw, size_t i)
{
    double v = sw->steps < 2 ? sw->from : sw->from + (sw->to - sw->from) * (double)i / (double)(sw->steps - 1);
    if (strcmp(sw->name, "resolution") == 0) v = floor(v + 0.5); /* a quad count */
    return v;
}

/* "a, b, c" of the scene's presets ('s'), parameters ('p') or morph targets ('m'). */
static void join_names(char* out, size_t size, const sf_scene_info* info, char what)
{
    out[0] = '\0';
    size_t n = what == 's' ? info->preset_count : what == 'p' ? info->param_count : info->target_count;
    for (size_t k = 0; k < n; ++k) {
        const char* name = what == 's' ? info->presets[k].name : what == 'p' ? info->params[k].name : info->targets[k];
        if (out[0]) strncat(out, ", ", size - strlen(out) - 1);
        strncat(out, name, size - strlen(out) - 1);
    }
    if (!out[0]) strncat(out, "none", size - strlen(out) - 1);
}

static const sf_scene_info* find_scene(const char* name)
{
    const sf_scene_info* info = sf_scene_info_find(name);
    if (info) return info;
    char known[512] = "";
    for (size_t k = 0; k < sf_scene_count(); ++k) {
        if (k) strncat(known, ", ", sizeof known - strlen(known) - 1);
        strncat(known, sf_scene_info_at(k)->name, sizeof known - strlen(known) - 1);
    }
    cli_fail(CLI_EXIT_USAGE, "unknown scene '%s' (known: %s)", name, known[0] ? known : "none");
    return NULL;
}

int cli_scene_args_finish(cli_scene_args* args)
{
    if (!args->scene) return cli_fail(CLI_EXIT_USAGE, "--scene is required (see `skinframe scenes`)");
    const sf_scene_info* info = find_scene(args->scene);
    if (!info) return CLI_EXIT_USAGE;
    if (args->preset && *args->preset) {
        bool found = false;
        for (size_t k = 0; k < info->preset_count; ++k) found |= strcmp(info->presets[k].name, args->preset) == 0;
        if (!found) {
            char known[512];
            join_names(known, sizeof known, info, 's');
            return cli_fail(CLI_EXIT_USAGE, "unknown preset '%s' for scene %s (known: %s)", args->preset, info->name,
                            known);
        }
    }
    for (size_t s = 0; s < args->setting_count; ++s) {
        const cli_assignment* a = &args->settings[s];
        char kind = setting_kind(info, a->name);
        if (args->setting_is_morph[s] && kind != 'm') {
            char known[512];
            join_names(known, sizeof known, info, 'm');
            return cli_fail(CLI_EXIT_USAGE, "--morph: scene %s has no morph target '%s' (targets: %s)", info->name,
                            a->name, known);
        }
        if (!kind) {
            char known[512];
            join_names(known, sizeof known, info, 'p');
            return cli_fail(CLI_EXIT_USAGE, "--set: scene %s has no parameter '%s' (parameters: %s)", info->name,
                            a->name, known);
        }
        if (kind == 'p') {
            for (size_t k = 0; k < info->param_count; ++k) {
                const sf_scene_param_info* p = &info->params[k];
                if (strcmp(p->name, a->name) != 0) continue;
                if (a->value < p->min_value || a->value > p->max_value)
                    return cli_fail(CLI_EXIT_USAGE, "--set: %s=%g is outside [%g, %g]%s%s", a->name, a->value,
                                    p->min_value, p->max_value, p->unit && *p->unit ? " " : "",
                                    p->unit ? p->unit : "");
            }
        }
    }
    if (cli_pool_start(args->threads) != 0) return cli_fail(CLI_EXIT_FAILURE, "could not start threads");
    return CLI_EXIT_OK;
}

int cli_scene_args_build(const cli_scene_args* args, const sf_env* env, const cli_assignment* extra,
                         size_t extra_count, sf_scene** out)
{
    sf_scene_setting settings[CLI_MAX_SETTINGS + 4];
    size_t n = 0;
    for (size_t s = 0; s < args->setting_count; ++s)
        settings[n++] = (sf_scene_setting){args->settings[s].name, args->settings[s].value};
    for (size_t s = 0; s < extra_count && n < COUNT_OF(settings); ++s)
        settings[n++] = (sf_scene_setting){extra[s].name, extra[s].value};
    sf_error err;
    memset(&err, 0, sizeof err);
    *out = NULL;
    sf_result r = sf_scene_create(args->scene, args->preset, settings, n, env, out, &err);
    if (r == SF_OK) return CLI_EXIT_OK;
    const char* why = err.message[0] ? err.message : sf_result_string(r);
    if (r == SF_ERROR_UNKNOWN_NAME || r == SF_ERROR_INVALID_ARGUMENT)
        return cli_fail(CLI_EXIT_USAGE, "scene %s: %s", args->scene, why);
    return cli_fail(CLI_EXIT_FAILURE, "scene %s: %s", args->scene, why);
}

sf_frames_opts cli_scene_args_frames_opts(const cli_scene_args* args, const sf_scene_info* info)
{
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    o.morph_directions = args->morph_directions;
    o.weighting = args->weighting_given ? args->weighting : info ? info->reference_weighting : SF_WEIGHTING_AREA;
    o.weld = args->weld;
    o.tangents = args->tangents;
    o.reference = args->reference;
    o.jacobian_cap = args->jacobian_cap;
    return o;
}

void cli_scene_args_usage(FILE* f)
{
    fputs("Scene and method flags:\n"
          "  --scene NAME                  built-in scene (list: skinframe scenes)\n"
          "  --preset NAME                 a preset of the scene (default: rest pose)\n"
          "  --set NAME=VALUE[,...]        scene parameters (or morph weights, resolution), after the preset;\n"
          "                                may be repeated (the settings add up, later ones win)\n"
          "  --morph TARGET=WEIGHT[,...]   morph target weights, e.g. towel-twist=1,ripples=0.5; may be repeated\n"
          "  --morph-directions none|deltas|normals  add the targets' normal and tangent deltas (default\n"
          "                                deltas), none, or the normal deltas alone\n"
          "  --method all|NAME[,NAME...]   methods to run (default all): unchanged, skinned,\n"
          "                                inverse-transpose, bone-normal-matrices, jacobian, jacobian-fan,\n"
          "                                recompute; recompute-fused (recompute in one pass, the same\n"
          "                                frames) runs only when named\n"
          "  --weighting area|angle|uniform  reference weighting (default: the scene's)\n"
          "  --weld none|position|position-normal  reference welding (default none)\n"
          "  --tangents uv|mikktspace      reference tangents (default uv)\n"
          "  --reference rebuilt|authored  rebuilt directions (default), or the mesh's authored rest\n"
          "                                directions carried by the rebuilt frame's rotation\n"
          "  --jacobian-cap X              cap the jacobian's weight-gradient correction at X times the\n"
          "                                blended matrix (Tarini et al. 2014; default 0 = off)\n"
          "  --threads N                   worker threads (default: one per core)\n"
          "  --backend cpu|cuda            where frames are computed (default cpu; cuda needs a build with\n"
          "                                -DSF_WITH_CUDA=ON and an NVIDIA GPU)\n",
          f);
}

void cli_reference_settings_text(const sf_frames_opts* ref, char* out, size_t size)
{
    static const char* const weld_short[] = {"no weld", "weld position", "weld pos+normal"};
    snprintf(out, size, "%s, %s%s", name_at(weld_short, COUNT_OF(weld_short), (int)ref->weld),
             cli_tangents_name(ref->tangents), ref->reference == SF_REFERENCE_AUTHORED ? ", authored" : "");
}

bool cli_method_is_rebuilt(sf_method m) { return m == SF_METHOD_RECOMPUTE || m == SF_METHOD_RECOMPUTE_FUSED; }

uint32_t cli_scene_args_methods_mask(const cli_scene_args* args)
{
    uint32_t mask = 0;
    for (int m = 0; m < SF_METHOD_COUNT; ++m)
        if (args->method_on[m]) mask |= 1u << m;
    return mask;
}

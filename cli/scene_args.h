/* The flags every command that builds a scene and computes frames shares (compare, render, ...):
 *   --scene NAME  --preset NAME  --set k=v[,k=v]  --morph target=w[,target=w]
 *   --morph-directions none|deltas|normals  --method all|NAME[,NAME]  --weighting area|angle|uniform
 *   --weld none|position|position-normal  --tangents uv|mikktspace  --reference rebuilt|authored
 *   --jacobian-cap X  --threads N  --backend cpu|cuda
 * Parse them with cli_scene_args_parse in the command's flag loop, then cli_scene_args_finish. */
#ifndef SF_CLI_SCENE_ARGS_H
#define SF_CLI_SCENE_ARGS_H

#include "cli.h"

#define CLI_MAX_SETTINGS 64

typedef struct cli_scene_args {
    const char* scene;  /* NULL until --scene (commands choose a default or require it) */
    const char* preset; /* NULL = the scene's rest pose */
    /* --set and --morph in the order given; applied after the preset. */
    cli_assignment settings[CLI_MAX_SETTINGS];
    bool setting_is_morph[CLI_MAX_SETTINGS]; /* came from --morph */
    size_t setting_count;
    sf_morph_directions morph_directions; /* default deltas */
    bool methods_given;
    bool method_on[SF_METHOD_COUNT]; /* --method; all when not given */
    sf_method method_order[SF_METHOD_COUNT]; /* in the order asked for */
    size_t method_count;
    bool weighting_given;
    sf_weighting weighting;
    sf_weld weld;
    sf_tangent_mode tangents;
    sf_reference reference; /* --reference rebuilt|authored */
    float jacobian_cap;     /* --jacobian-cap X (0 = off) */
    size_t threads; /* 0 = one per core */
    sf_backend backend; /* --backend cpu|cuda (default cpu) */
} cli_scene_args;

/* Defaults: no scene, all methods, deltas, area (unless the scene says otherwise), no weld, uv tangents. */
void cli_scene_args_init(cli_scene_args* args);

/* Tries argv[*i] as one of the shared flags. Returns 1 when consumed (advancing *i past its value),
 * 0 when it is not a shared flag, or -1 after printing a one-line error (exit with CLI_EXIT_USAGE). */
int cli_scene_args_parse(cli_scene_args* args, int argc, char** argv, int* i);

/* After parsing: checks scene, preset, setting names and ranges against the scene's info (one-line
 * error, returns CLI_EXIT_USAGE) and starts the thread pool. Returns CLI_EXIT_OK. */
int cli_scene_args_finish(cli_scene_args* args);

/* Builds the scene with the preset, the settings, then `extra` (e.g. a sweep value; may be NULL).
 * Returns CLI_EXIT_OK, CLI_EXIT_USAGE for unknown names / out-of-range values, else CLI_EXIT_FAILURE. */
int cli_scene_args_build(const cli_scene_args* args, const sf_env* env, const cli_assignment* extra,
                         size_t extra_count, sf_scene** out);

/* The --method selection as a mask (bit 1u << m per sf_method), for sf_workspace_opts. */
uint32_t cli_scene_args_methods_mask(const cli_scene_args* args);
/* recompute and recompute-fused: they run with the reference's options (the evaluation's rule). */
bool cli_method_is_rebuilt(sf_method m);

/* Frames options for the reference (and the recompute row): the scene's reference weighting unless
 * --weighting was given. */
sf_frames_opts cli_scene_args_frames_opts(const cli_scene_args* args, const sf_scene_info* info);


/* --sweep NAME=FROM:TO:STEPS of compare and plot: one setting over STEPS evenly spaced values. */
typedef struct cli_sweep {
    char name[64];
    double from, to;
    size_t steps;
} cli_sweep;
/* Parses text with STEPS in [min_steps, max_steps]. Returns CLI_EXIT_OK, or CLI_EXIT_USAGE after a one-line error. */
int cli_sweep_parse(const char* text, size_t min_steps, size_t max_steps, cli_sweep* out);
/* Checks the name against the scene and, for a parameter, the whole range before any step runs. Sets
 * *unit (the parameter's unit, "weight" or "quads") when not NULL. Returns CLI_EXIT_OK, or CLI_EXIT_USAGE
 * after a one-line error. */
int cli_sweep_check(const cli_sweep* sw, const sf_scene_info* info, const char** unit);
/* The value of step i; resolution is rounded to whole quads. */
double cli_sweep_value(const cli_sweep* sw, size_t i);

/* Names for printing. */
const char* cli_weighting_name(sf_weighting w);
const char* cli_weld_name(sf_weld w);
const char* cli_tangents_name(sf_tangent_mode t);
const char* cli_reference_name(sf_reference r);
const char* cli_morph_directions_name(sf_morph_directions d);

/* A short "weld pos+normal, mikktspace" (", authored" when so) for picture captions. */
void cli_reference_settings_text(const sf_frames_opts* ref, char* out, size_t size);

/* The help lines of the shared flags (for a command's --help). */
void cli_scene_args_usage(FILE* f);

#endif

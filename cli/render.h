/* Pictures for the command, shared by render, plot and demo (cli/pictures.c), and render --gltf
 * (cli/render_gltf.c). */
#ifndef SF_CLI_RENDER_H
#define SF_CLI_RENDER_H

#include "report.h"

/* Picture flags: --size, --camera, --material, --normal-map, --vectors, --rig. */
typedef struct render_settings {
    int width, height;        /* default 1024x768 */
    bool camera_given;
    float yaw, pitch, distance; /* distance 0 = frame the scene */
    sf_material material;
    sf_normalmap_kind normal_map;
    bool vectors, rig;
} render_settings;

void render_settings_init(render_settings* rs);
/* Tries argv[*i] as a picture flag: 1 consumed, 0 not one, -CLI_EXIT_USAGE after a one-line error. */
int render_settings_parse(render_settings* rs, int argc, char** argv, int* i);
/* --size WIDTHxHEIGHT (64..8192 x 48..8192): CLI_EXIT_OK, or CLI_EXIT_USAGE after a one-line error. */
int render_parse_size(const char* text, int* w, int* h);
sf_camera render_camera(const render_settings* rs, const float center[3], float radius);

/* One method against the reference, as caller arrays (built-in scenes and glTF alike). */
typedef struct render_input {
    /* The mesh, both sets of directions, the per-vertex angles of an evaluation, names, caption and rig
     * (as sf_fourview_desc documents them); render_fourview fills in the stats, the camera and the shading. */
    sf_fourview_desc view;
    sf_error_summary errors;  /* the stats printed (the evaluation's, or pooled over glTF units) */
    float center[3];          /* the camera's aim and framing radius before fitting */
    float radius;
} render_input;

/* Renders the four views into *out (allocated here; sf_image_free(out, NULL)); summary may be NULL. */
int render_fourview(const render_input* in, const render_settings* rs, sf_image* out, sf_error_summary* summary);
/* PNG, written by the output rules (outputs.h: a .png name, never an input, replacing only a PNG unless
 * --force, atomically); flag names the option in errors. */
int render_write_png(const char* flag, const sf_image* image, const char* path);
/* The images shrunk by 2 in a grid of three columns, each under its label, written as the PNG path. */
int render_write_contact_sheet(const char* flag, const sf_image* images, const char* const* labels, size_t count,
                               const char* caption, const char* path);
/* render --gltf FILE: every instance and primitive of the file, posed at --time, in world space. */
int render_gltf(const char* path, const char* animation, double time_s, const cli_scene_args* args,
                const render_settings* rs, const char* out, bool many);
/* "sheet / bone-twist twist=90  morph dirs: deltas" */
void render_caption(const cli_scene_args* args, char* out, size_t size);
/* The four views of one method of a run made with keep_frames, into *out (sf_image_free(out, NULL)). */
int render_run_method(const cli_run* run, const cli_method_result* m, const render_settings* rs, const char* caption,
                      sf_image* out, sf_error_summary* summary);
/* Writes OUT_DIR/STEM_<method>.png for every method of a run made with keep_frames (and, with contact,
 * OUT_DIR/STEM_contact.png); counts the files in *written. */
int render_run_images(const char* flag, const cli_run* run, const render_settings* rs, const char* caption,
                      const char* out_dir, const char* stem, bool contact, size_t* written);

#endif

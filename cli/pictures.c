/* The command's pictures, shared by render, plot and demo: picture flags, the four views of one evaluated
 * method, PNG files and contact sheets, and the images of a scene run (render.h). */
#define _POSIX_C_SOURCE 200809L
#include "render.h"

#include <stdlib.h>
#include <string.h>

void render_settings_init(render_settings* rs)
{
    memset(rs, 0, sizeof *rs);
    rs->width = 1024;
    rs->height = 768;
    rs->material = SF_MATERIAL_LAMBERT;
    rs->normal_map = SF_NORMALMAP_BUMPS;
}

int render_parse_size(const char* text, int* w, int* h)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", text);
    char* x = strchr(buf, 'x');
    if (!x) x = strchr(buf, 'X');
    size_t a = 0, b = 0;
    if (x) *x = '\0';
    if (!x || strlen(text) >= sizeof buf || !cli_parse_size(buf, 64, 8192, &a) || !cli_parse_size(x + 1, 48, 8192, &b))
        return cli_fail(CLI_EXIT_USAGE, "--size: '%s' is not WIDTHxHEIGHT with 64..8192 x 48..8192", text);
    *w = (int)a;
    *h = (int)b;
    return CLI_EXIT_OK;
}

static int parse_camera(const char* text, render_settings* rs)
{
    char buf[128];
    if (strlen(text) >= sizeof buf)
        return cli_fail(CLI_EXIT_USAGE, "--camera: '%s' is not YAW,PITCH[,DISTANCE] in degrees", text);
    snprintf(buf, sizeof buf, "%s", text);
    double v[3] = {0, 0, 0};
    int n = 0;
    char* save = NULL;
    for (char* tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == 3 || !cli_parse_double(tok, &v[n]))
            return cli_fail(CLI_EXIT_USAGE, "--camera: '%s' is not YAW,PITCH[,DISTANCE] in degrees", text);
        n++;
    }
    if (n < 2) return cli_fail(CLI_EXIT_USAGE, "--camera: '%s' is not YAW,PITCH[,DISTANCE] in degrees", text);
    if (v[1] < -89.0 || v[1] > 89.0) return cli_fail(CLI_EXIT_USAGE, "--camera: pitch %g is outside -89..89", v[1]);
    if (n == 3 && !(v[2] > 0.0 && v[2] < 1e6))
        return cli_fail(CLI_EXIT_USAGE, "--camera: distance %g is not in (0, 1e6)", v[2]);
    rs->camera_given = true;
    rs->yaw = (float)v[0];
    rs->pitch = (float)v[1];
    rs->distance = n == 3 ? (float)v[2] : 0.0f;
    return CLI_EXIT_OK;
}

int render_settings_parse(render_settings* rs, int argc, char** argv, int* i)
{
    const char* v = NULL;
    int r;
    if ((r = cli_flag_switch(argv, *i, "--vectors")) != 0) return r < 0 ? -CLI_EXIT_USAGE : (rs->vectors = true, 1);
    if ((r = cli_flag_switch(argv, *i, "--rig")) != 0) return r < 0 ? -CLI_EXIT_USAGE : (rs->rig = true, 1);
    if ((r = cli_flag_value(argc, argv, i, "--size", &v)) != 0)
        return r < 0 ? -CLI_EXIT_USAGE : render_parse_size(v, &rs->width, &rs->height) == CLI_EXIT_OK ? 1 : -CLI_EXIT_USAGE;
    if ((r = cli_flag_value(argc, argv, i, "--camera", &v)) != 0)
        return r < 0 ? -CLI_EXIT_USAGE : parse_camera(v, rs) == CLI_EXIT_OK ? 1 : -CLI_EXIT_USAGE;
    if ((r = cli_flag_value(argc, argv, i, "--material", &v)) != 0) {
        if (r < 0) return -CLI_EXIT_USAGE;
        if (sf_material_parse(v, &rs->material) != SF_OK || rs->material == SF_MATERIAL_UNLIT) {
            cli_fail(CLI_EXIT_USAGE, "--material: '%s' is not lambert, flat, normal-map or normals", v);
            return -CLI_EXIT_USAGE;
        }
        return 1;
    }
    if ((r = cli_flag_value(argc, argv, i, "--normal-map", &v)) != 0) {
        if (r < 0) return -CLI_EXIT_USAGE;
        if (strcmp(v, "bumps") == 0)
            rs->normal_map = SF_NORMALMAP_BUMPS;
        else if (strcmp(v, "bricks") == 0)
            rs->normal_map = SF_NORMALMAP_BRICKS;
        else {
            cli_fail(CLI_EXIT_USAGE, "--normal-map: '%s' is not bumps or bricks", v);
            return -CLI_EXIT_USAGE;
        }
        return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- drawing */

sf_camera render_camera(const render_settings* rs, const float center[3], float radius)
{
    sf_camera cam = sf_camera_frame(center, radius);
    if (rs->camera_given) {
        cam.yaw_deg = rs->yaw;
        cam.pitch_deg = rs->pitch;
        if (rs->distance > 0.0f) cam.distance = rs->distance;
    }
    return cam;
}

int render_fourview(const render_input* in, const render_settings* rs, sf_image* out, sf_error_summary* summary)
{
    sf_fourview_desc d = in->view;
    bool frame = d.uvs && d.method_tangents && d.reference_tangents && d.tangent_error_deg;
    if (!frame) d.uvs = NULL, d.method_tangents = d.reference_tangents = NULL, d.tangent_error_deg = NULL;
    d.normal_stats = in->errors.normal;
    d.tangent_stats = in->errors.tangent;
    d.camera = render_camera(rs, in->center, in->radius);
    d.fit_camera = !(rs->camera_given && rs->distance > 0.0f); /* frame the deformed mesh tightly */
    d.shading.material = rs->material;
    d.shading.normal_map = rs->normal_map;
    d.show_vectors = rs->vectors;
    if (!rs->rig) d.bone_heads = d.bone_tails = NULL, d.bone_count = 0;
    sf_error err;
    memset(&err, 0, sizeof err);
    sf_result r = sf_image_alloc(rs->width, rs->height, NULL, out, &err);
    if (r == SF_OK) r = sf_fourview_render(&d, NULL, out, &err);
    if (r != SF_OK) {
        sf_image_free(out, NULL);
        return cli_fail(CLI_EXIT_FAILURE, "render: %s", err.message[0] ? err.message : sf_result_string(r));
    }
    if (summary) *summary = in->errors;
    return CLI_EXIT_OK;
}

int render_write_png(const char* flag, const sf_image* image, const char* path)
{
    uint8_t* data = NULL;
    size_t size = 0;
    sf_error err;
    memset(&err, 0, sizeof err);
    sf_result r = sf_image_encode_png(image, NULL, &data, &size, &err);
    if (r != SF_OK) return cli_fail(CLI_EXIT_FAILURE, "%s: %s", path, err.message);
    int code = cli_output_write(flag, path, CLI_OUTPUT_PNG, data, size);
    sf_png_free(NULL, data, size);
    return code;
}

int render_write_contact_sheet(const char* flag, const sf_image* images, const char* const* labels, size_t count,
                               const char* caption, const char* path)
{
    static const uint8_t paper[3] = {18, 20, 26}, ink[3] = {232, 232, 232};
    if (count == 0) return cli_fail(CLI_EXIT_FAILURE, "contact sheet: no images");
    int cw = images[0].width / 2, ch = images[0].height / 2;
    /* Text at scale 2 on wide cells when every label fits its cell; labels too wide even at scale 1 are
     * cut (they are ASCII) so that they never run into the next column. */
    int ts = cw >= 700 ? 2 : 1;
    for (size_t k = 0; k < count && ts > 1; ++k)
        if (sf_text_width(labels[k], ts) > cw - 8 * ts) ts = 1;
    int band = sf_text_height(ts) + 8 * ts;
    int cols = count < 3 ? (int)count : 3;
    int rows = (int)((count + (size_t)cols - 1) / (size_t)cols);
    sf_error err;
    memset(&err, 0, sizeof err);
    sf_image sheet;
    sf_image* out = &sheet;
    if (sf_image_alloc(cols * cw, band + rows * (ch + band), NULL, out, &err) != SF_OK)
        return cli_fail(CLI_EXIT_FAILURE, "contact sheet: %s", err.message);
    sf_image_fill_rect(out, 0, 0, out->width, out->height, paper);
    if (caption) sf_image_draw_text(out, 4 * ts, 4 * ts, ts, ink, caption);
    for (size_t k = 0; k < count; ++k) {
        int x = (int)(k % (size_t)cols) * cw, y = band + (int)(k / (size_t)cols) * (ch + band);
        char label[256];
        snprintf(label, sizeof label, "%s", labels[k]);
        for (size_t len = strlen(label); len > 0 && sf_text_width(label, ts) > cw - 8 * ts;) label[--len] = '\0';
        sf_image_draw_text(out, x + 4 * ts, y + 4 * ts, ts, ink, label);
        sf_image_blit(out, x, y + band, &images[k], 2);
    }
    int code = render_write_png(flag, out, path);
    sf_image_free(out, NULL);
    return code;
}

/* ---------------------------------------------------------------- scenes */

void render_caption(const cli_scene_args* args, char* out, size_t size)
{
    int len = snprintf(out, size, "%s / %s", args->scene ? args->scene : "?", args->preset ? args->preset : "rest");
    for (size_t k = 0; k < args->setting_count && len > 0 && (size_t)len < size; ++k)
        len += snprintf(out + len, size - (size_t)len, " %s=%g", args->settings[k].name, args->settings[k].value);
    bool morphs = false;
    for (size_t k = 0; k < args->setting_count; ++k) morphs |= args->setting_is_morph[k];
    if (morphs && len > 0 && (size_t)len < size)
        snprintf(out + len, size - (size_t)len, "  morph dirs: %s", cli_morph_directions_name(args->morph_directions));
}

/* The render input of one method of a run. */
int render_run_method(const cli_run* run, const cli_method_result* m, const render_settings* rs, const char* caption,
                      sf_image* out, sf_error_summary* summary)
{
    char ref_name[64], ref_settings[96];
    size_t ref_size = sizeof ref_name, settings_size = sizeof ref_settings;
    render_input in;
    memset(&in, 0, sizeof in);
    in.view.vertex_count = run->vertex_count;
    in.view.triangle_count = run->triangle_count;
    in.view.indices = sf_topology_indices(run->topo);
    in.view.positions = run->positions;
    in.view.uvs = sf_topology_has_tangent_frame(run->topo) ? sf_topology_uvs(run->topo) : NULL;
    in.view.method_normals = m->normals;
    in.view.method_tangents = m->tangents;
    in.view.reference_normals = run->ref_normals;
    in.view.reference_tangents = run->ref_tangents;
    in.view.normal_error_deg = m->row->normal_deg;
    in.view.tangent_error_deg = m->row->tangent_deg;
    in.errors = m->summary;
    in.view.method_name = sf_method_name(m->method);
    snprintf(ref_name, ref_size, "recompute (%s)", cli_weighting_name(run->ref_opts.weighting));
    in.view.reference_name = ref_name;
    cli_reference_settings_text(&run->ref_opts, ref_settings, settings_size);
    in.view.reference_settings = ref_settings;
    in.view.caption = caption;
    memcpy(in.center, run->scene->center, sizeof in.center);
    in.radius = run->scene->radius;
    in.view.bone_heads = run->scene->bone_heads;
    in.view.bone_tails = run->scene->bone_tails;
    in.view.bone_count = run->scene->mesh.bone_count;
    return render_fourview(&in, rs, out, summary);
}

int render_run_images(const char* flag, const cli_run* run, const render_settings* rs, const char* caption,
                      const char* out_dir, const char* stem, bool contact, size_t* written)
{
    sf_image images[SF_METHOD_COUNT];
    char labels[SF_METHOD_COUNT][128];
    const char* label_ptrs[SF_METHOD_COUNT];
    size_t count = 0;
    int code = CLI_EXIT_OK;
    char path[4400]; /* out_dir < 4096 (cli_make_dir), stem < 160, method name, suffix: never cut */
    for (size_t k = 0; k < run->method_count && code == CLI_EXIT_OK; ++k) {
        const cli_method_result* m = &run->methods[k];
        if (m->skipped || !m->normals) continue;
        sf_error_summary s;
        code = render_run_method(run, m, rs, caption, &images[count], &s);
        if (code != CLI_EXIT_OK) break;
        snprintf(path, sizeof path, "%s/%s_%s.png", out_dir, stem, sf_method_name(m->method));
        code = render_write_png(flag, &images[count], path);
        if (code == CLI_EXIT_OK && written) ++*written;
        if (sf_topology_has_tangent_frame(run->topo))
            snprintf(labels[count], sizeof labels[count], "%s: normal %.2f / %.2f, tangent %.2f / %.2f (mean / max deg)",
                     sf_method_name(m->method), s.normal.mean, s.normal.max, s.tangent.mean, s.tangent.max);
        else
            snprintf(labels[count], sizeof labels[count], "%s: normal %.2f / %.2f (mean / max deg)",
                     sf_method_name(m->method), s.normal.mean, s.normal.max);
        label_ptrs[count] = labels[count];
        count++;
    }
    if (code == CLI_EXIT_OK && contact && count > 1) {
        snprintf(path, sizeof path, "%s/%s_contact.png", out_dir, stem);
        code = render_write_contact_sheet(flag, images, label_ptrs, count, caption, path);
        if (code == CLI_EXIT_OK && written) ++*written;
    }
    for (size_t k = 0; k < count; ++k) sf_image_free(&images[k], NULL);
    return code;
}


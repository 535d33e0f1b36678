/* `skinframe render`: the article's four views (method shading, reference shading, normal and tangent
 * error heatmaps) of a built-in scene as PNG; --all-methods writes one per method plus a contact sheet.
 * render_run_images is also demo's per-case hook. `render --plot` is `skinframe plot`. */
#define _POSIX_C_SOURCE 200809L
#include "render.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE* f)
{
    fputs("Usage: skinframe render --scene NAME [--preset NAME] [--set k=v,...] [--morph target=w,...]\n"
          "                        --method NAME -o OUT.png [--size WxH] [--camera YAW,PITCH[,DISTANCE]]\n"
          "                        [--material lambert|flat|normal-map|normals] [--normal-map bumps|bricks]\n"
          "                        [--vectors] [--rig]\n"
          "       skinframe render ... --all-methods -o DIR      (one image per method and DIR/<case>_contact.png)\n"
          "       skinframe render --plot ...                    (the same as skinframe plot)\n"
          "Draws the article's four views of one method against the reference (recompute): top-left the\n"
          "method's shading, top-right the reference's (same vertices and camera), bottom-left the normal\n"
          "error heatmap, bottom-right the tangent error heatmap (0 degrees green, 22.5 yellow, 45+ red),\n"
          "with a colour bar and the mean/max error.\n\n",
          f);
    cli_scene_args_usage(f);
    fputs("\nPicture flags:\n"
          "  -o, --out PATH                the PNG (one method) or a folder (--all-methods, several methods)\n"
          "  --all-methods                 every method (the article's Deformation stage control)\n"
          "  --size WxH                    image size (default 1024x768)\n"
          "  --camera YAW,PITCH[,DIST]     orbit camera in degrees (default -35,30); without DIST the camera\n"
          "                                aims at the deformed mesh and backs off until it fits; +Y is up\n"
          "  --material NAME               lambert (default), flat (facets), normal-map (procedural map through\n"
          "                                the tangent frame: tangent errors show), normals (normal as colour)\n"
          "  --normal-map bumps|bricks     the procedural map of --material normal-map (default bumps)\n"
          "  --vectors                     normals (gold) and tangents (cyan) at vertices in the top views\n"
          "  --rig                         bones as lines with joint dots in the top views\n"
          "\nExample: skinframe render --scene sheet --preset bone-twist --method unchanged -o twist.png\n",
          f);
}

void render_settings_init(render_settings* rs)
{
    memset(rs, 0, sizeof *rs);
    rs->width = 1024;
    rs->height = 768;
    rs->material = SF_MATERIAL_LAMBERT;
    rs->normal_map = SF_NORMALMAP_BUMPS;
}

static int parse_size(const char* text, int* w, int* h)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", text);
    char* x = strchr(buf, 'x');
    if (!x) x = strchr(buf, 'X');
    size_t a = 0, b = 0;
    if (x) *x = '\0';
    if (!x || !cli_parse_size(buf, 64, 8192, &a) || !cli_parse_size(x + 1, 48, 8192, &b))
        return cli_fail(CLI_EXIT_USAGE, "--size: '%s' is not WIDTHxHEIGHT with 64..8192 x 48..8192", text);
    *w = (int)a;
    *h = (int)b;
    return CLI_EXIT_OK;
}

static int parse_camera(const char* text, render_settings* rs)
{
    char buf[128];
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
        return cli_fail(CLI_EXIT_USAGE, "--camera: distance %g is not > 0", v[2]);
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
    if (cli_flag_switch(argv, *i, "--vectors")) return rs->vectors = true, 1;
    if (cli_flag_switch(argv, *i, "--rig")) return rs->rig = true, 1;
    if ((r = cli_flag_value(argc, argv, i, "--size", &v)) != 0)
        return r < 0 ? -CLI_EXIT_USAGE : parse_size(v, &rs->width, &rs->height) == CLI_EXIT_OK ? 1 : -CLI_EXIT_USAGE;
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
    size_t n = in->vertex_count;
    float* ndeg = calloc(n ? n : 1, sizeof(float));
    float* tdeg = calloc(n ? n : 1, sizeof(float));
    if (!ndeg || !tdeg) {
        free(ndeg);
        free(tdeg);
        return cli_fail(CLI_EXIT_FAILURE, "out of memory for %zu vertices", n);
    }
    bool frame = in->uvs && in->method_tangents && in->reference_tangents;
    sf_frames_out method = {NULL, (float*)in->method_normals, frame ? (float*)in->method_tangents : NULL};
    sf_frames_out ref = {NULL, (float*)in->reference_normals, frame ? (float*)in->reference_tangents : NULL};
    sf_error_summary s;
    sf_error err;
    memset(&err, 0, sizeof err);
    sf_result r = sf_direction_errors(in->topo, &method, &ref, ndeg, frame ? tdeg : NULL, NULL, &s, &err);
    if (r == SF_OK) {
        sf_fourview_desc d;
        memset(&d, 0, sizeof d);
        d.vertex_count = n;
        d.triangle_count = in->triangle_count;
        d.indices = in->indices;
        d.positions = in->positions;
        d.uvs = frame ? in->uvs : NULL;
        d.method_normals = in->method_normals;
        d.method_tangents = frame ? in->method_tangents : NULL;
        d.reference_normals = in->reference_normals;
        d.reference_tangents = frame ? in->reference_tangents : NULL;
        d.normal_error_deg = ndeg;
        d.tangent_error_deg = frame ? tdeg : NULL;
        d.normal_stats = s.normal;
        d.tangent_stats = s.tangent;
        d.method_name = in->method_name;
        d.reference_name = in->reference_name;
        d.caption = in->caption;
        d.camera = render_camera(rs, in->center, in->radius);
        d.fit_camera = !(rs->camera_given && rs->distance > 0.0f); /* frame the deformed mesh tightly */
        d.shading.material = rs->material;
        d.shading.normal_map = rs->normal_map;
        d.show_vectors = rs->vectors;
        if (rs->rig) {
            d.bone_heads = in->bone_heads;
            d.bone_tails = in->bone_tails;
            d.bone_count = in->bone_count;
        }
        r = sf_image_alloc(rs->width, rs->height, NULL, out, &err);
        if (r == SF_OK) r = sf_fourview_render(&d, NULL, out, &err);
        if (r != SF_OK) sf_image_free(out, NULL);
    }
    free(ndeg);
    free(tdeg);
    if (r != SF_OK) return cli_fail(CLI_EXIT_FAILURE, "render: %s", err.message[0] ? err.message : sf_result_string(r));
    if (summary) *summary = s;
    return CLI_EXIT_OK;
}

int render_write_png(const sf_image* image, const char* path)
{
    uint8_t* data = NULL;
    size_t size = 0;
    sf_error err;
    memset(&err, 0, sizeof err);
    sf_result r = sf_image_encode_png(image, NULL, &data, &size, &err);
    if (r != SF_OK) return cli_fail(CLI_EXIT_FAILURE, "%s: %s", path, err.message);
    int rc = cli_write_file_atomic(path, data, size);
    int e = errno;
    sf_png_free(NULL, data, size);
    if (rc != 0) return cli_fail(CLI_EXIT_FAILURE, "%s: cannot write: %s", path, strerror(e));
    return CLI_EXIT_OK;
}

int render_contact_sheet(const sf_image* images, const char* const* labels, size_t count, const char* caption,
                         sf_image* out)
{
    static const uint8_t paper[3] = {26, 28, 33}, ink[3] = {232, 232, 232};
    if (count == 0) return cli_fail(CLI_EXIT_FAILURE, "contact sheet: no images");
    int cw = images[0].width / 2, ch = images[0].height / 2;
    int ts = ch >= 300 ? 2 : 1;
    int band = sf_text_height(ts) + 8 * ts;
    int cols = count < 3 ? (int)count : 3;
    int rows = (int)((count + (size_t)cols - 1) / (size_t)cols);
    sf_error err;
    memset(&err, 0, sizeof err);
    if (sf_image_alloc(cols * cw, band + rows * (ch + band), NULL, out, &err) != SF_OK)
        return cli_fail(CLI_EXIT_FAILURE, "contact sheet: %s", err.message);
    sf_image_fill_rect(out, 0, 0, out->width, out->height, paper);
    if (caption) sf_image_draw_text(out, 4 * ts, 4 * ts, ts, ink, caption);
    for (size_t k = 0; k < count; ++k) {
        int x = (int)(k % (size_t)cols) * cw, y = band + (int)(k / (size_t)cols) * (ch + band);
        sf_image_draw_text(out, x + 4 * ts, y + 4 * ts, ts, ink, labels[k]);
        sf_image_blit(out, x, y + band, &images[k], 2);
    }
    return CLI_EXIT_OK;
}

/* ---------------------------------------------------------------- scenes */

void render_caption(const cli_scene_args* args, char* out, size_t size)
{
    int len = snprintf(out, size, "%s / %s", args->scene ? args->scene : "?", args->preset ? args->preset : "rest");
    for (size_t k = 0; k < args->setting_count && len > 0 && (size_t)len < size; ++k)
        len += snprintf(out + len, size - (size_t)len, " %s=%g", args->settings[k].name, args->settings[k].value);
    if (len > 0 && (size_t)len < size)
        snprintf(out + len, size - (size_t)len, "  morph dirs: %s", cli_morph_directions_name(args->morph_directions));
}

/* The render input of one method of a run. */
static render_input run_input(const cli_run* run, const cli_method_result* m, const char* caption, char* ref_name,
                              size_t ref_size)
{
    render_input in;
    memset(&in, 0, sizeof in);
    in.topo = run->topo;
    in.vertex_count = run->vertex_count;
    in.triangle_count = run->triangle_count;
    in.indices = sf_topology_indices(run->topo);
    in.positions = run->positions;
    in.uvs = sf_topology_has_tangent_frame(run->topo) ? sf_topology_uvs(run->topo) : NULL;
    in.method_normals = m->normals;
    in.method_tangents = m->tangents;
    in.reference_normals = run->ref_normals;
    in.reference_tangents = run->ref_tangents;
    in.method_name = sf_method_name(m->method);
    snprintf(ref_name, ref_size, "recompute (%s)", cli_weighting_name(run->ref_opts.weighting));
    in.reference_name = ref_name;
    in.caption = caption;
    memcpy(in.center, run->scene->center, sizeof in.center);
    in.radius = run->scene->radius;
    in.bone_heads = run->scene->bone_heads;
    in.bone_tails = run->scene->bone_tails;
    in.bone_count = run->scene->mesh.bone_count;
    return in;
}

int render_run_images(const cli_run* run, const render_settings* rs, const char* caption, const char* out_dir,
                      const char* stem, bool contact, size_t* written)
{
    sf_image images[SF_METHOD_COUNT];
    char labels[SF_METHOD_COUNT][128];
    const char* label_ptrs[SF_METHOD_COUNT];
    size_t count = 0;
    int code = CLI_EXIT_OK;
    char path[4200];
    for (size_t k = 0; k < run->method_count && code == CLI_EXIT_OK; ++k) {
        const cli_method_result* m = &run->methods[k];
        if (m->skipped || !m->normals) continue;
        char ref_name[64];
        render_input in = run_input(run, m, caption, ref_name, sizeof ref_name);
        sf_error_summary s;
        code = render_fourview(&in, rs, &images[count], &s);
        if (code != CLI_EXIT_OK) break;
        snprintf(path, sizeof path, "%s/%s_%s.png", out_dir, stem, sf_method_name(m->method));
        code = render_write_png(&images[count], path);
        if (code == CLI_EXIT_OK && written) ++*written;
        if (sf_topology_has_tangent_frame(run->topo))
            snprintf(labels[count], sizeof labels[count], "%s: normal mean %.2f max %.2f, tangent mean %.2f max %.2f",
                     sf_method_name(m->method), s.normal.mean, s.normal.max, s.tangent.mean, s.tangent.max);
        else
            snprintf(labels[count], sizeof labels[count], "%s: normal mean %.2f max %.2f", sf_method_name(m->method),
                     s.normal.mean, s.normal.max);
        label_ptrs[count] = labels[count];
        count++;
    }
    if (code == CLI_EXIT_OK && contact && count > 1) {
        sf_image sheet;
        code = render_contact_sheet(images, label_ptrs, count, caption, &sheet);
        if (code == CLI_EXIT_OK) {
            snprintf(path, sizeof path, "%s/%s_contact.png", out_dir, stem);
            code = render_write_png(&sheet, path);
            if (code == CLI_EXIT_OK && written) ++*written;
            sf_image_free(&sheet, NULL);
        }
    }
    for (size_t k = 0; k < count; ++k) sf_image_free(&images[k], NULL);
    return code;
}

/* ---------------------------------------------------------------- the command */

static int ensure_dir(const char* path)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) return cli_fail(CLI_EXIT_USAGE, "-o: %s exists and is not a folder", path);
        return CLI_EXIT_OK;
    }
    if (mkdir(path, 0777) != 0) return cli_fail(CLI_EXIT_FAILURE, "-o: cannot create %s: %s", path, strerror(errno));
    return CLI_EXIT_OK;
}

int cmd_render(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "--plot") == 0) {
            /* render --plot ... is plot ...: drop the flag and hand over. */
            char** rest = malloc(sizeof(char*) * (size_t)argc);
            if (!rest) return cli_fail(CLI_EXIT_FAILURE, "out of memory");
            int n = 0;
            rest[n++] = (char*)"plot";
            for (int k = 1; k < argc; ++k)
                if (k != i) rest[n++] = argv[k];
            int code = cmd_plot(n, rest);
            free(rest);
            return code;
        }
    cli_scene_args args;
    cli_scene_args_init(&args);
    render_settings rs;
    render_settings_init(&rs);
    const char* out = NULL;
    bool all = false;
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = NULL;
        int r;
        if (cli_is_help(a)) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        if (cli_flag_switch(argv, i, "--all-methods")) {
            all = true;
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "-o", &v)) != 0 || (r = cli_flag_value(argc, argv, &i, "--out", &v)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            out = v;
            continue;
        }
        r = render_settings_parse(&rs, argc, argv, &i);
        if (r < 0) return CLI_EXIT_USAGE;
        if (r > 0) continue;
        r = cli_scene_args_parse(&args, argc, argv, &i);
        if (r < 0) return CLI_EXIT_USAGE;
        if (r > 0) continue;
        if (a[0] == '-') return cli_fail(CLI_EXIT_USAGE, "render: unknown flag '%s' (see skinframe render --help)", a);
        return cli_fail(CLI_EXIT_USAGE, "render: unexpected argument '%s'", a);
    }
    if (!args.scene) return cli_fail(CLI_EXIT_USAGE, "render: --scene NAME is required (list: skinframe scenes)");
    if (!out) return cli_fail(CLI_EXIT_USAGE, "render: -o OUT.png (or a folder with --all-methods) is required");
    if (!all && !args.methods_given)
        return cli_fail(CLI_EXIT_USAGE, "render: --method NAME or --all-methods is required");
    int code = cli_scene_args_finish(&args);
    if (code != CLI_EXIT_OK) return code;
    if (all) {
        args.method_count = 0;
        for (int m = 0; m < SF_METHOD_COUNT; ++m) {
            args.method_on[m] = true;
            args.method_order[args.method_count++] = (sf_method)m;
        }
    }
    bool many = args.method_count > 1;
    if (many && (code = ensure_dir(out)) != CLI_EXIT_OK) return code;
    sf_env env = cli_env();
    cli_run run;
    code = cli_run_compare(&args, &env, NULL, 0, true, &run);
    if (code == CLI_EXIT_OK) {
        cli_run_note_skipped(&run);
        char caption[256];
        render_caption(&args, caption, sizeof caption);
        if (many) {
            char stem[160];
            snprintf(stem, sizeof stem, "%s_%s", args.scene, args.preset ? args.preset : "rest");
            size_t written = 0;
            code = render_run_images(&run, &rs, caption, out, stem, true, &written);
            if (code == CLI_EXIT_OK)
                printf("wrote %zu images: %s/%s_<method>.png and %s/%s_contact.png\n", written, out, stem, out, stem);
        } else {
            const cli_method_result* m = &run.methods[0];
            if (m->skipped) {
                code = cli_fail(CLI_EXIT_FAILURE, "render: %s: %s", sf_method_name(m->method), m->skip_reason);
            } else {
                char ref_name[64];
                render_input in = run_input(&run, m, caption, ref_name, sizeof ref_name);
                sf_image img;
                sf_error_summary s;
                code = render_fourview(&in, &rs, &img, &s);
                if (code == CLI_EXIT_OK) {
                    code = render_write_png(&img, out);
                    sf_image_free(&img, NULL);
                }
                if (code == CLI_EXIT_OK)
                    printf("wrote %s (%s: normal mean %.3f max %.3f deg)\n", out, sf_method_name(m->method),
                           s.normal.mean, s.normal.max);
            }
        }
    }
    cli_run_free(&run);
    return code;
}

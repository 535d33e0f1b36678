/* `skinframe render`: the article's four views (method shading, reference shading, normal and tangent
 * error heatmaps) of a built-in scene as PNG; --all-methods writes one per method plus a contact sheet.
 * render_run_images is also demo's per-case hook. `render --plot` is `skinframe plot`. */
#define _POSIX_C_SOURCE 200809L
#include "render.h"
#include "gltf_args.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE* f)
{
    fputs("Usage: skinframe render --scene NAME [--preset NAME] [--set k=v,...] [--morph target=w,...]\n"
          "                        --method NAME -o OUT.png [--size WxH] [--camera YAW,PITCH[,DISTANCE]]\n"
          "                        [--material lambert|flat|normal-map|normals] [--normal-map bumps|bricks]\n"
          "                        [--vectors] [--rig]\n"
          "       skinframe render ... --all-methods -o DIR      (one image per method and DIR/<case>_contact.png)\n"
          "       skinframe render --gltf FILE [--animation NAME|INDEX] [--time SECONDS] --method NAME -o OUT.png ...\n"
          "       skinframe render --plot ...                    (the same as skinframe plot)\n"
          "Draws the article's four views of one method against the reference (recompute): top-left the\n"
          "method's shading, top-right the reference's (same vertices and camera), bottom-left the normal\n"
          "error heatmap, bottom-right the tangent error heatmap (0 degrees green, 22.5 yellow, 45+ red),\n"
          "with a colour bar and the mean/max error.\n\n",
          f);
    cli_scene_args_usage(f);
    fputs("\nPicture flags:\n"
          "  -o, --out PATH                the PNG (one method) or a folder (--all-methods, several methods)\n"
          "  --all-methods, --stage        every method (the article's Deformation stage control); with\n"
          "                                --morph the files are named <scene>_<preset>_<none|deltas>_...\n"
          "  --size WxH                    image size (default 1024x768)\n"
          "  --camera YAW,PITCH[,DIST]     orbit camera in degrees (default -35,30); without DIST the camera\n"
          "                                aims at the deformed mesh and backs off until it fits; +Y is up\n"
          "  --material NAME               lambert (default), flat (facets), normal-map (procedural map through\n"
          "                                the tangent frame: tangent errors show), normals (normal as colour)\n"
          "  --normal-map bumps|bricks     the procedural map of --material normal-map (default bumps)\n"
          "  --vectors                     normals (gold) and tangents (cyan) at vertices in the top views\n"
          "  --rig                         bones as lines with joint dots in the top views\n"
          "  --gltf FILE                   a glTF 2.0 file (.gltf/.glb) instead of a scene: every instance and\n"
          "                                primitive, posed, in world space; the reference uses --weighting/--weld/\n"
          "                                --tangents (default area, none, uv)\n"
          "  --animation NAME|INDEX        the animation to pose (default the first; all = rest pose)\n"
          "  --time SECONDS                time in the animation (default 0)\n"
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
    size_t n = in->view.vertex_count;
    float* ndeg = NULL;
    float* tdeg = NULL;
    if (in->topo) {
        ndeg = calloc(n ? n : 1, sizeof(float));
        tdeg = calloc(n ? n : 1, sizeof(float));
        if (!ndeg || !tdeg) {
            free(ndeg);
            free(tdeg);
            return cli_fail(CLI_EXIT_FAILURE, "out of memory for %zu vertices", n);
        }
    }
    sf_fourview_desc d = in->view;
    bool frame = d.uvs && d.method_tangents && d.reference_tangents && (in->topo || d.tangent_error_deg);
    if (!frame) d.uvs = NULL, d.method_tangents = d.reference_tangents = NULL, d.tangent_error_deg = NULL;
    sf_frames_out method = {NULL, (float*)d.method_normals, (float*)d.method_tangents};
    sf_frames_out ref = {NULL, (float*)d.reference_normals, (float*)d.reference_tangents};
    sf_error_summary s = in->errors;
    sf_error err;
    memset(&err, 0, sizeof err);
    sf_result r = SF_OK;
    if (in->topo) {
        r = sf_direction_errors(in->topo, &method, &ref, ndeg, frame ? tdeg : NULL, NULL, &s, &err);
        d.normal_error_deg = ndeg;
        d.tangent_error_deg = frame ? tdeg : NULL;
    }
    if (r == SF_OK) {
        d.normal_stats = s.normal;
        d.tangent_stats = s.tangent;
        d.camera = render_camera(rs, in->center, in->radius);
        d.fit_camera = !(rs->camera_given && rs->distance > 0.0f); /* frame the deformed mesh tightly */
        d.shading.material = rs->material;
        d.shading.normal_map = rs->normal_map;
        d.show_vectors = rs->vectors;
        if (!rs->rig) d.bone_heads = d.bone_tails = NULL, d.bone_count = 0;
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
    int code = cli_write_file_atomic(path, data, size);
    sf_png_free(NULL, data, size);
    return code;
}

int render_write_contact_sheet(const sf_image* images, const char* const* labels, size_t count, const char* caption,
                               const char* path)
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
    int code = render_write_png(out, path);
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
static render_input run_input(const cli_run* run, const cli_method_result* m, const char* caption, char* ref_name,
                              size_t ref_size, char* ref_settings, size_t settings_size)
{
    render_input in;
    memset(&in, 0, sizeof in);
    in.topo = run->topo;
    in.view.vertex_count = run->vertex_count;
    in.view.triangle_count = run->triangle_count;
    in.view.indices = sf_topology_indices(run->topo);
    in.view.positions = run->positions;
    in.view.uvs = sf_topology_has_tangent_frame(run->topo) ? sf_topology_uvs(run->topo) : NULL;
    in.view.method_normals = m->normals;
    in.view.method_tangents = m->tangents;
    in.view.reference_normals = run->ref_normals;
    in.view.reference_tangents = run->ref_tangents;
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
    char path[4400]; /* out_dir < 4096 (cli_make_dir), stem < 160, method name, suffix: never cut */
    for (size_t k = 0; k < run->method_count && code == CLI_EXIT_OK; ++k) {
        const cli_method_result* m = &run->methods[k];
        if (m->skipped || !m->normals) continue;
        char ref_name[64], ref_settings[96];
        render_input in = run_input(run, m, caption, ref_name, sizeof ref_name, ref_settings, sizeof ref_settings);
        sf_error_summary s;
        code = render_fourview(&in, rs, &images[count], &s);
        if (code != CLI_EXIT_OK) break;
        snprintf(path, sizeof path, "%s/%s_%s.png", out_dir, stem, sf_method_name(m->method));
        code = render_write_png(&images[count], path);
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
        code = render_write_contact_sheet(images, label_ptrs, count, caption, path);
        if (code == CLI_EXIT_OK && written) ++*written;
    }
    for (size_t k = 0; k < count; ++k) sf_image_free(&images[k], NULL);
    return code;
}

/* ---------------------------------------------------------------- glTF */

/* Where a unit (cli_gltf_unit, gltf_args.h) lies: its node's world matrix and its first vertex in the
 * combined arrays. */
typedef struct gltf_place {
    float to_world[16];
    size_t first_vertex;
} gltf_place;

/* The combined world-space arrays of every unit, for the reference and one method. */
typedef struct gltf_combined {
    size_t n, f;
    bool frame; /* every unit has a tangent frame */
    uint32_t* idx;
    float *pos, *uv, *rn, *rt, *mn, *mt, *nd, *td;
} gltf_combined;

static void combined_free(gltf_combined* c)
{
    free(c->idx), free(c->pos), free(c->uv), free(c->rn), free(c->rt), free(c->mn), free(c->mt), free(c->nd),
        free(c->td);
    memset(c, 0, sizeof *c);
}

/* p' = M p; n' = cofactor(M) n (the inverse transpose up to scale); t' = M t, w flipped by a mirror. */
static void to_world(const float m[16], const float* p, const float* nrm, const float* tan, float* po, float* no,
                     float* to)
{
    for (int r = 0; r < 3; ++r) po[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
    const float* c0 = m;
    const float* c1 = m + 4;
    const float* c2 = m + 8;
    float cof[3][3]; /* columns: c1 x c2, c2 x c0, c0 x c1 */
    const float* cols[3][2] = {{c1, c2}, {c2, c0}, {c0, c1}};
    for (int k = 0; k < 3; ++k) {
        const float* a = cols[k][0];
        const float* b = cols[k][1];
        cof[k][0] = a[1] * b[2] - a[2] * b[1];
        cof[k][1] = a[2] * b[0] - a[0] * b[2];
        cof[k][2] = a[0] * b[1] - a[1] * b[0];
    }
    float det = c0[0] * cof[0][0] + c0[1] * cof[0][1] + c0[2] * cof[0][2];
    /* cof rows are the rows of det * inverse(M): n' = sum_k n_k * cof[k] */
    float nn[3];
    for (int r = 0; r < 3; ++r) nn[r] = cof[0][r] * nrm[0] + cof[1][r] * nrm[1] + cof[2][r] * nrm[2];
    if (det < 0.0f) nn[0] = -nn[0], nn[1] = -nn[1], nn[2] = -nn[2];
    float len = sqrtf(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
    for (int r = 0; r < 3; ++r) no[r] = len > 0.0f ? nn[r] / len : 0.0f;
    if (tan && to) {
        float tt[3];
        for (int r = 0; r < 3; ++r) tt[r] = m[r] * tan[0] + m[4 + r] * tan[1] + m[8 + r] * tan[2];
        len = sqrtf(tt[0] * tt[0] + tt[1] * tt[1] + tt[2] * tt[2]);
        for (int r = 0; r < 3; ++r) to[r] = len > 0.0f ? tt[r] / len : 0.0f;
        to[3] = det < 0.0f ? -tan[3] : tan[3];
    }
}

/* Frames of `method` for every unit, errors against the reference, into the combined arrays. The
 * reference (rn/rt/pos) is computed on the first call (reference = true). */
static int gltf_frames(const cli_gltf_unit* units, const gltf_place* places, size_t count, const sf_frames_opts* opts,
                       sf_method method, bool reference,
                       gltf_combined* c, float* scratch_n, float* scratch_t, float* ref_n, float* ref_t,
                       float* scratch_p, bool* skipped, char* reason, size_t reason_size)
{
    sf_error err;
    memset(&err, 0, sizeof err);
    for (size_t u = 0; u < count; ++u) {
        const cli_gltf_unit* un = &units[u];
        const float* world = places[u].to_world;
        size_t o = places[u].first_vertex;
        float* rn = ref_n + 3 * o;
        float* rt = ref_t + 4 * o;
        if (reference) {
            sf_frames_out out = {scratch_p, rn, rt};
            sf_result r = sf_frames_compute(un->topo, &un->pose, SF_METHOD_RECOMPUTE, opts, un->ws, &out, &err);
            if (r != SF_OK) return cli_fail(CLI_EXIT_FAILURE, "reference: %s", err.message);
            for (size_t v = 0; v < un->n; ++v)
                to_world(world, scratch_p + 3 * v, rn + 3 * v, rt + 4 * v, c->pos + 3 * (o + v),
                         c->rn + 3 * (o + v), c->rt + 4 * (o + v));
            continue;
        }
        sf_frames_out out = {NULL, scratch_n, scratch_t};
        sf_result r = sf_frames_compute(un->topo, &un->pose, method, opts, un->ws, &out, &err);
        if (r == SF_ERROR_UNSUPPORTED) {
            *skipped = true;
            snprintf(reason, reason_size, "%s", err.message);
            return CLI_EXIT_OK;
        }
        if (r != SF_OK) return cli_fail(CLI_EXIT_FAILURE, "%s: %s", sf_method_name(method), err.message);
        sf_frames_out ref = {NULL, rn, rt};
        r = sf_direction_errors(un->topo, &out, &ref, c->nd + o, c->td + o, NULL, NULL, &err);
        if (r != SF_OK) return cli_fail(CLI_EXIT_FAILURE, "%s: %s", sf_method_name(method), err.message);
        for (size_t v = 0; v < un->n; ++v) {
            float dummy[3];
            to_world(world, scratch_p + 3 * v, scratch_n + 3 * v, scratch_t + 4 * v, dummy,
                     c->mn + 3 * (o + v), c->mt + 4 * (o + v));
        }
    }
    return CLI_EXIT_OK;
}

/* Poses every unit at gp's moment and lays the units out one after another in the combined arrays. */
static int gltf_place_units(const sf_gltf_pose* gp, cli_gltf_unit* units, size_t count, gltf_place* places,
                            gltf_combined* c)
{
    for (size_t u = 0; u < count; ++u) {
        int code = cli_gltf_unit_pose(gp, &units[u], places[u].to_world);
        if (code != CLI_EXIT_OK) return code;
        places[u].first_vertex = c->n;
        c->n += units[u].n;
        c->f += sf_topology_triangle_count(units[u].topo);
    }
    return CLI_EXIT_OK;
}

/* Bones: a segment from each skin joint to its parent when the parent is a joint of the same skin. */
static size_t gltf_bones(const sf_gltf* g, const sf_gltf_pose* gp, float* heads, float* tails, size_t cap)
{
    size_t n = 0;
    for (size_t s = 0; s < g->skin_count; ++s) {
        const sf_gltf_skin* sk = &g->skins[s];
        for (size_t j = 0; j < sk->joint_count && n < cap; ++j) {
            size_t node = sk->joints[j], parent = g->nodes[node].parent;
            bool in_skin = false;
            for (size_t k = 0; k < sk->joint_count && parent != SF_GLTF_NONE; ++k) in_skin |= sk->joints[k] == parent;
            if (!in_skin) continue;
            memcpy(heads + 3 * n, sf_gltf_pose_global(gp, parent) + 12, 3 * sizeof(float));
            memcpy(tails + 3 * n, sf_gltf_pose_global(gp, node) + 12, 3 * sizeof(float));
            n++;
        }
    }
    return n;
}

int render_gltf(const char* path, const char* animation, double time_s, const cli_scene_args* args,
                const render_settings* rs, const char* out, bool many)
{
    sf_gltf* g = NULL;
    sf_gltf_pose* gp = NULL;
    int code = cli_gltf_load(path, NULL, 0, args->tangents, &g);
    if (code != CLI_EXIT_OK) return code;
    size_t anim = SF_GLTF_NONE;
    if (animation)
        code = cli_gltf_pick_animation(g, animation, &anim);
    else if (g->animation_count)
        anim = 0; /* the first animation by default */
    sf_error err;
    memset(&err, 0, sizeof err);
    if (code == CLI_EXIT_OK && (sf_gltf_pose_create(g, NULL, &gp, &err) != SF_OK ||
                                sf_gltf_pose_sample(gp, anim, time_s, &err) != SF_OK))
        code = cli_fail(CLI_EXIT_FAILURE, "%s: %s", path, err.message);
    enum { MAX_BONES = 512 };
    cli_gltf_unit* units = NULL;
    gltf_place* places = NULL;
    size_t unit_count = 0;
    gltf_combined c;
    memset(&c, 0, sizeof c);
    if (code == CLI_EXIT_OK)
        code = cli_gltf_units_create(path, g, args->method_on[SF_METHOD_JACOBIAN], NULL, &units, &unit_count);
    if (code == CLI_EXIT_OK && !(places = calloc(unit_count + 1, sizeof *places)))
        code = cli_fail(CLI_EXIT_FAILURE, "out of memory");
    if (code == CLI_EXIT_OK) code = gltf_place_units(gp, units, unit_count, places, &c);
    if (code == CLI_EXIT_OK && c.n == 0) code = cli_fail(CLI_EXIT_FAILURE, "%s: no triangles to draw", path);
    size_t max_n = 0;
    for (size_t u = 0; u < unit_count; ++u) max_n = units[u].n > max_n ? units[u].n : max_n;
    float* scratch_p = calloc(3 * max_n + 1, sizeof(float));
    float* scratch_n = calloc(3 * max_n + 1, sizeof(float));
    float* scratch_t = calloc(4 * max_n + 1, sizeof(float));
    float* ref_n = calloc(3 * c.n + 1, sizeof(float));
    float* ref_t = calloc(4 * c.n + 1, sizeof(float));
    float* bone_heads = calloc(3 * MAX_BONES, sizeof(float));
    float* bone_tails = calloc(3 * MAX_BONES, sizeof(float));
    if (code == CLI_EXIT_OK) {
        c.idx = calloc(3 * c.f + 1, sizeof(uint32_t));
        c.pos = calloc(3 * c.n + 1, sizeof(float));
        c.uv = calloc(2 * c.n + 1, sizeof(float));
        c.rn = calloc(3 * c.n + 1, sizeof(float));
        c.rt = calloc(4 * c.n + 1, sizeof(float));
        c.mn = calloc(3 * c.n + 1, sizeof(float));
        c.mt = calloc(4 * c.n + 1, sizeof(float));
        c.nd = calloc(c.n + 1, sizeof(float));
        c.td = calloc(c.n + 1, sizeof(float));
        if (!c.idx || !c.pos || !c.uv || !c.rn || !c.rt || !c.mn || !c.mt || !c.nd || !c.td || !scratch_p ||
            !scratch_n || !scratch_t || !ref_n || !ref_t || !bone_heads || !bone_tails)
            code = cli_fail(CLI_EXIT_FAILURE, "out of memory for %zu vertices", c.n);
    }
    if (code == CLI_EXIT_OK) {
        c.frame = true;
        size_t fo = 0;
        for (size_t u = 0; u < unit_count; ++u) {
            const cli_gltf_unit* un = &units[u];
            size_t first = places[u].first_vertex, f = sf_topology_triangle_count(un->topo);
            c.frame &= un->tangents;
            const uint32_t* idx = sf_topology_indices(un->topo);
            for (size_t k = 0; k < 3 * f; ++k) c.idx[3 * fo + k] = idx[k] + (uint32_t)first;
            fo += f;
            const float* uv = sf_topology_uvs(un->topo);
            if (uv) memcpy(c.uv + 2 * first, uv, 2 * un->n * sizeof(float));
        }
    }
    sf_frames_opts ref_opts, method_opts; /* with --reference and --jacobian-cap, as eval and bake */
    cli_gltf_frames_opts(args, &ref_opts, &method_opts);
    bool dummy_skip = false;
    char reason[256] = "";
    if (code == CLI_EXIT_OK)
        code = gltf_frames(units, places, unit_count, &ref_opts, SF_METHOD_RECOMPUTE, true, &c, scratch_n, scratch_t, ref_n,
                           ref_t, scratch_p, &dummy_skip, reason, sizeof reason);
    size_t bone_count = code == CLI_EXIT_OK && gp ? gltf_bones(g, gp, bone_heads, bone_tails, MAX_BONES) : 0;

    const char* base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char stem[160], caption[256];
    snprintf(stem, sizeof stem, "%.*s_t%g", (int)(strcspn(base, ".")), base, time_s);
    char anim_label[64] = "rest";
    if (anim != SF_GLTF_NONE) cli_gltf_animation_label(g, anim, anim_label, sizeof anim_label);
    snprintf(caption, sizeof caption, "%s  animation %s at %g s  morph dirs: %s", base, anim_label, time_s,
             cli_morph_directions_name(args->morph_directions));
    sf_image images[SF_METHOD_COUNT];
    char labels[SF_METHOD_COUNT][128];
    const char* label_ptrs[SF_METHOD_COUNT];
    size_t done = 0;
    char file[4400], ref_name[64]; /* as in render_run_images: never cut */
    snprintf(ref_name, sizeof ref_name, "recompute (%s)", cli_weighting_name(ref_opts.weighting));
    char ref_settings[96];
    cli_reference_settings_text(&ref_opts, ref_settings, sizeof ref_settings);
    for (size_t k = 0; k < args->method_count && code == CLI_EXIT_OK; ++k) {
        sf_method m = args->method_order[k];
        bool skipped = false;
        code = gltf_frames(units, places, unit_count, m == SF_METHOD_RECOMPUTE ? &ref_opts : &method_opts, m, false, &c,
                           scratch_n, scratch_t, ref_n, ref_t, scratch_p, &skipped, reason, sizeof reason);
        if (code != CLI_EXIT_OK) break;
        if (skipped) {
            fprintf(stderr, "skinframe: note: %s skipped: %s\n", sf_method_name(m), reason);
            if (!many) code = cli_fail(CLI_EXIT_FAILURE, "render: %s: %s", sf_method_name(m), reason);
            continue;
        }
        render_input in;
        memset(&in, 0, sizeof in);
        in.view.vertex_count = c.n;
        in.view.triangle_count = c.f;
        in.view.indices = c.idx;
        in.view.positions = c.pos;
        in.view.uvs = c.frame ? c.uv : NULL;
        in.view.method_normals = c.mn;
        in.view.method_tangents = c.frame ? c.mt : NULL;
        in.view.reference_normals = c.rn;
        in.view.reference_tangents = c.frame ? c.rt : NULL;
        in.view.normal_error_deg = c.nd;
        in.view.tangent_error_deg = c.frame ? c.td : NULL;
        if (sf_angle_stats_compute(c.nd, c.n, NULL, NULL, &in.errors.normal, &err) != SF_OK ||
            (c.frame && sf_angle_stats_compute(c.td, c.n, NULL, NULL, &in.errors.tangent, &err) != SF_OK)) {
            code = cli_fail(CLI_EXIT_FAILURE, "statistics: %s", err.message);
            break;
        }
        in.view.method_name = sf_method_name(m);
        in.view.reference_name = ref_name;
        in.view.reference_settings = ref_settings;
        in.view.caption = caption;
        in.radius = 1.0f;
        in.view.bone_heads = bone_heads;
        in.view.bone_tails = bone_tails;
        in.view.bone_count = bone_count;
        sf_error_summary s;
        code = render_fourview(&in, rs, &images[done], &s);
        if (code != CLI_EXIT_OK) break;
        if (many) snprintf(file, sizeof file, "%s/%s_%s.png", out, stem, sf_method_name(m));
        const char* target = many ? file : out; /* -o as given, whatever its length */
        code = render_write_png(&images[done], target);
        if (code == CLI_EXIT_OK)
            printf("wrote %s (%s: normal mean %.3f max %.3f deg)\n", target, sf_method_name(m), s.normal.mean, s.normal.max);
        snprintf(labels[done], sizeof labels[done], "%s: normal %.2f / %.2f (mean / max deg)", sf_method_name(m),
                 s.normal.mean, s.normal.max);
        label_ptrs[done] = labels[done];
        done++;
    }
    if (code == CLI_EXIT_OK && many && done > 1) {
        snprintf(file, sizeof file, "%s/%s_contact.png", out, stem);
        code = render_write_contact_sheet(images, label_ptrs, done, caption, file);
        if (code == CLI_EXIT_OK) printf("wrote %s\n", file);
    }
    for (size_t k = 0; k < done; ++k) sf_image_free(&images[k], NULL);
    cli_gltf_units_free(units, unit_count);
    free(places);
    combined_free(&c);
    free(scratch_p), free(scratch_n), free(scratch_t), free(ref_n), free(ref_t), free(bone_heads), free(bone_tails);
    sf_gltf_pose_destroy(gp);
    sf_gltf_destroy(g);
    return code;
}

/* ---------------------------------------------------------------- the command */

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
    const char* gltf = NULL;
    const char* animation = NULL;
    double time_s = 0.0;
    bool all = false;
    cli_gltf_flags gltf_flags = {false, false};
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = NULL;
        int r;
        if (cli_is_help(a)) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        if (cli_flag_switch(argv, i, "--all-methods") || cli_flag_switch(argv, i, "--stage")) {
            all = true;
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "-o", &v)) != 0 || (r = cli_flag_value(argc, argv, &i, "--out", &v)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            out = v;
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--gltf", &v)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            gltf = v;
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--animation", &v)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            animation = v;
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--time", &v)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            if (!cli_parse_double(v, &time_s) || time_s < 0.0)
                return cli_fail(CLI_EXIT_USAGE, "--time: '%s' is not a time in seconds >= 0", v);
            continue;
        }
        r = render_settings_parse(&rs, argc, argv, &i);
        if (r < 0) return CLI_EXIT_USAGE;
        if (r > 0) continue;
        /* Scene flags and --gltf are checked against each other after the loop. */
        const char* flag = argv[i];
        r = cli_scene_args_parse(&args, argc, argv, &i);
        if (r < 0) return CLI_EXIT_USAGE;
        if (r > 0) {
            gltf_flags.weld_given |= strncmp(flag, "--weld", 6) == 0;
            gltf_flags.tangents_given |= strncmp(flag, "--tangents", 10) == 0;
            continue;
        }
        if (a[0] == '-') return cli_fail(CLI_EXIT_USAGE, "render: unknown flag '%s' (see skinframe render --help)", a);
        return cli_fail(CLI_EXIT_USAGE, "render: unexpected argument '%s'", a);
    }
    if (gltf && (args.scene || args.preset || args.setting_count))
        return cli_fail(CLI_EXIT_USAGE, "render: --gltf and --scene/--preset/--set/--morph do not mix");
    if (!gltf && !args.scene)
        return cli_fail(CLI_EXIT_USAGE, "render: --scene NAME or --gltf FILE is required (list: skinframe scenes)");
    if (!out) return cli_fail(CLI_EXIT_USAGE, "render: -o OUT.png (or a folder with --all-methods) is required");
    if (!all && !args.methods_given)
        return cli_fail(CLI_EXIT_USAGE, "render: --method NAME or --all-methods is required");
    if (gltf && (strcmp(gltf, out) == 0 || sf_file_same(gltf, out)))
        return cli_fail(CLI_EXIT_USAGE, "render: -o must not be the input file");
    int code = gltf ? (cli_pool_start(args.threads) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAILURE) : cli_scene_args_finish(&args);
    if (code != CLI_EXIT_OK) return code;
    if (all) {
        args.method_count = 0;
        for (int m = 0; m < SF_METHOD_COUNT; ++m) {
            args.method_on[m] = true;
            args.method_order[args.method_count++] = (sf_method)m;
        }
    }
    bool many = args.method_count > 1;
    if (many && (code = cli_make_dir("-o", out)) != CLI_EXIT_OK) return code;
    if (gltf) {
        cli_gltf_reference_defaults(&gltf_flags, &args);
        return render_gltf(gltf, animation, time_s, &args, &rs, out, many);
    }
    sf_env env = cli_env();
    cli_run run;
    code = cli_run_compare(&args, &env, NULL, 0, true, &run);
    if (code == CLI_EXIT_OK) {
        cli_run_note_skipped(&run);
        char caption[256];
        render_caption(&args, caption, sizeof caption);
        if (many) {
            char stem[160];
            bool morphs = false;
            for (size_t k = 0; k < args.setting_count; ++k) morphs |= args.setting_is_morph[k];
            /* With morphs the stage includes the morph directions: both runs can share a folder. */
            snprintf(stem, sizeof stem, "%s_%s%s%s", args.scene, args.preset ? args.preset : "rest", morphs ? "_" : "",
                     morphs ? cli_morph_directions_name(args.morph_directions) : "");
            size_t written = 0;
            code = render_run_images(&run, &rs, caption, out, stem, true, &written);
            if (code == CLI_EXIT_OK)
                printf("wrote %zu images: %s/%s_<method>.png and %s/%s_contact.png\n", written, out, stem, out, stem);
        } else {
            const cli_method_result* m = &run.methods[0];
            if (m->skipped) {
                code = cli_fail(CLI_EXIT_FAILURE, "render: %s: %s", sf_method_name(m->method), m->skip_reason);
            } else {
                char ref_name[64], ref_settings[96];
                render_input in = run_input(&run, m, caption, ref_name, sizeof ref_name, ref_settings,
                                            sizeof ref_settings);
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

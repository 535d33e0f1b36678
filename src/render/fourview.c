/* The article's four synchronized views of one method against the reference, as one image:
 * method shading | reference shading
 * normal error   | tangent error      (heatmaps with a colour bar and mean/max). */
#include "sf_common.h"
#include "skinframe_render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const uint8_t COLOR_BACKGROUND[3] = {30, 34, 48}; /* bluish: unlit surfaces stay distinct from it */
static const uint8_t COLOR_BAND[3] = {18, 20, 26};
static const uint8_t COLOR_TEXT[3] = {232, 232, 232};
static const uint8_t COLOR_DIM_TEXT[3] = {160, 164, 172};
static const uint8_t COLOR_SHADOW[3] = {0, 0, 0};
static const uint8_t COLOR_SEPARATOR[3] = {90, 94, 102};
static const uint8_t COLOR_NORMAL[3] = {255, 196, 40};  /* the article's gold normals */
static const uint8_t COLOR_TANGENT[3] = {80, 190, 255};
static const uint8_t COLOR_BONE[3] = {236, 236, 244};
static const uint8_t COLOR_BONE_EDGE[3] = {20, 20, 28};
static const uint8_t COLOR_JOINT[3] = {255, 90, 200};

/* Text scale for an image height: 1 up to about 575 pixels, 2 for 768, ... */
static int text_scale(int height)
{
    int s = (height + 192) / 384;
    return s < 1 ? 1 : s;
}

/* Heights of the title band above and the colour-bar band below each view's 3D area. */
static int title_band(int ts) { return 13 * ts; }
static int bottom_band(int ts) { return 24 * ts; }

void sf_fourview_view_rect(int width, int height, int view, int rect[4])
{
    int hw = width / 2, hh = height / 2;
    int col = view & 1, row = (view >> 1) & 1;
    rect[0] = col ? hw : 0;
    rect[1] = row ? hh : 0;
    rect[2] = col ? width - hw : hw;
    rect[3] = row ? height - hh : hh;
}

void sf_fourview_scene_rect(int width, int height, int view, int rect[4])
{
    int ts = text_scale(height);
    sf_fourview_view_rect(width, height, view, rect);
    rect[1] += title_band(ts);
    rect[3] -= title_band(ts) + bottom_band(ts);
    if (rect[3] < 1) rect[3] = 1;
}

void sf_fourview_colorbar_rect(int width, int height, int view, int rect[4])
{
    int ts = text_scale(height);
    int q[4];
    sf_fourview_view_rect(width, height, view, q);
    rect[0] = q[0] + q[2] / 5;
    rect[2] = q[2] - 2 * (q[2] / 5);
    rect[1] = q[1] + q[3] - bottom_band(ts) + 3 * ts;
    rect[3] = 6 * ts;
}

/* Bytes of text (whole UTF-8 characters, at most size - 1) whose width fits in max_w pixels, copied to buf. */
static size_t fit_prefix(const char* text, int ts, int max_w, char* buf, size_t size)
{
    snprintf(buf, size, "%s", text);
    size_t len = strlen(buf);
    while (len > 0 && sf_text_width(buf, ts) > max_w) {
        len--;
        while (len > 0 && ((unsigned char)buf[len] & 0xC0) == 0x80) len--; /* whole UTF-8 characters */
        buf[len] = '\0';
    }
    return len;
}

/* Text cut to the characters that fit in max_w pixels (the views must not spill into each other). */
static void draw_text_fit(sf_image* image, int x, int y, int ts, const uint8_t rgb[3], const char* text, int max_w)
{
    char buf[256];
    fit_prefix(text, ts, max_w, buf, sizeof buf);
    sf_image_draw_text(image, x, y, ts, rgb, buf);
}

/* Text on up to max_lines lines (10 ts apart) of max_w pixels, each broken at the last space or after the
 * last comma that fits (mid-word when there is none); whatever is left after the last line is cut. */
static void draw_text_wrap(sf_image* image, int x, int y, int ts, const uint8_t rgb[3], const char* text, int max_w,
                           int max_lines)
{
    for (int line = 0; line < max_lines && *text; ++line) {
        char buf[256];
        size_t len = fit_prefix(text, ts, max_w, buf, sizeof buf);
        if (text[len] != '\0' && text[len] != ' ' && line + 1 < max_lines) {
            size_t k = len;
            while (k > 1 && buf[k - 1] != ' ' && buf[k - 1] != ',') --k;
            if (k > 1) len = buf[k - 1] == ' ' ? k - 1 : k;
            buf[len] = '\0';
        }
        if (len == 0) return;
        sf_image_draw_text(image, x, y + 10 * ts * line, ts, rgb, buf);
        text += len;
        while (*text == ' ') ++text;
    }
}

static void draw_shadowed_text(sf_image* image, int x, int y, int ts, const uint8_t rgb[3], const char* text)
{
    sf_image_draw_text(image, x + ts, y + ts, ts, COLOR_SHADOW, text);
    sf_image_draw_text(image, x, y, ts, rgb, text);
}

static void draw_colorbar(sf_image* image, int view)
{
    int ts = text_scale(image->height);
    int r[4];
    sf_fourview_colorbar_rect(image->width, image->height, view, r);
    if (r[2] < 2) return;
    for (int i = 0; i < r[2]; ++i) {
        float c[3];
        sf_heatmap_color(45.0 * ((double)i + 0.5) / (double)r[2], c);
        uint8_t rgb[3] = {(uint8_t)(c[0] * 255.0f + 0.5f), (uint8_t)(c[1] * 255.0f + 0.5f), (uint8_t)(c[2] * 255.0f + 0.5f)};
        sf_image_fill_rect(image, r[0] + i, r[1], 1, r[3], rgb);
    }
    static const int ticks[4] = {0, 15, 30, 45};
    static const char* const labels[4] = {"0\xC2\xB0", "15\xC2\xB0", "30\xC2\xB0", "45\xC2\xB0+"};
    for (int k = 0; k < 4; ++k) {
        int x = r[0] + (int)((double)ticks[k] / 45.0 * (double)(r[2] - 1) + 0.5);
        sf_image_fill_rect(image, x, r[1] + r[3], ts, 3 * ts, COLOR_TEXT);
        int w = sf_text_width(labels[k], ts);
        int lx = k == 3 ? x - sf_text_width("45", ts) / 2 : x - w / 2;
        sf_image_draw_text(image, lx, r[1] + r[3] + 4 * ts, ts, COLOR_TEXT, labels[k]);
    }
}

static void format_stats(char* buf, size_t size, const sf_angle_stats* s)
{
    snprintf(buf, size, "mean %.2f\xC2\xB0  max %.2f\xC2\xB0", s->mean, s->max);
}

typedef struct fourview_scratch {
    sf_image image;  /* supersampled 3D area */
    float* depth;
    float* colors;   /* 3n heat colours */
} fourview_scratch;

static void fill_heat(const float* deg, size_t n, float* colors)
{
    for (size_t i = 0; i < n; ++i) sf_heatmap_color(deg[i], colors + 3 * i);
}

/* Normal and tangent lines at every stride-th vertex, then the rig, over the top views. */
static void draw_overlays(const sf_fourview_desc* d, const sf_viewport* vp, const float* normals, const float* tangents,
                          int ss)
{
    if (d->show_vectors) {
        float len = d->vector_length > 0.0f ? d->vector_length : d->camera.distance / 30.0f;
        size_t stride = d->vector_stride ? d->vector_stride : (d->vertex_count + 199) / 200;
        if (stride < 1) stride = 1;
        for (size_t i = 0; i < d->vertex_count; i += stride) {
            const float* p = d->positions + 3 * i;
            float seg[6];
            memcpy(seg, p, 3 * sizeof(float));
            if (tangents) {
                for (int k = 0; k < 3; ++k) seg[3 + k] = p[k] + len * tangents[4 * i + (size_t)k];
                sf_raster_draw_lines(vp, seg, 1, 1.5f * (float)ss, COLOR_TANGENT, 1);
            }
            for (int k = 0; k < 3; ++k) seg[3 + k] = p[k] + len * normals[3 * i + (size_t)k];
            sf_raster_draw_lines(vp, seg, 1, 1.5f * (float)ss, COLOR_NORMAL, 1);
        }
    }
    if (d->bone_heads && d->bone_tails) {
        for (size_t b = 0; b < d->bone_count; ++b) {
            float seg[6];
            memcpy(seg, d->bone_heads + 3 * b, 3 * sizeof(float));
            memcpy(seg + 3, d->bone_tails + 3 * b, 3 * sizeof(float));
            sf_raster_draw_lines(vp, seg, 1, 5.0f * (float)ss, COLOR_BONE_EDGE, 0);
            sf_raster_draw_lines(vp, seg, 1, 3.0f * (float)ss, COLOR_BONE, 0);
        }
        sf_raster_draw_dots(vp, d->bone_heads, d->bone_count, 4.0f * (float)ss, COLOR_BONE_EDGE, 0);
        sf_raster_draw_dots(vp, d->bone_heads, d->bone_count, 3.0f * (float)ss, COLOR_JOINT, 0);
        sf_raster_draw_dots(vp, d->bone_tails, d->bone_count, 2.5f * (float)ss, COLOR_JOINT, 0);
    }
}

static sf_result render_views(const sf_fourview_desc* d, sf_image* image, fourview_scratch* s, int ss, sf_error* err)
{
    int ts = text_scale(image->height);
    int has_tangents = d->uvs && d->method_tangents && d->reference_tangents;
    for (int view = 0; view < 4; ++view) {
        int r[4];
        sf_fourview_scene_rect(image->width, image->height, view, r);
        /* The scratch image is sized for the largest view; reuse its buffer at this view's size. */
        sf_image area = s->image;
        area.width = r[2] * ss;
        area.height = r[3] * ss;
        sf_viewport vp;
        memset(&vp, 0, sizeof vp);
        vp.image = &area;
        vp.depth = s->depth;
        vp.width = r[2] * ss;
        vp.height = r[3] * ss;
        sf_camera_matrix(&d->camera, (float)r[2] / (float)r[3], vp.clip_from_world);
        sf_viewport_clear(&vp, COLOR_BACKGROUND);

        sf_raster_mesh mesh;
        memset(&mesh, 0, sizeof mesh);
        mesh.vertex_count = d->vertex_count;
        mesh.triangle_count = d->triangle_count;
        mesh.indices = d->indices;
        mesh.positions = d->positions;
        mesh.uvs = d->uvs;
        sf_raster_opts o = d->shading;
        sf_camera_light_dir(&d->camera, o.light_dir);
        const float* normals = view == 0 ? d->method_normals : d->reference_normals;
        const float* tangents = view == 0 ? d->method_tangents : d->reference_tangents;
        if (view >= 2) {
            const float* deg = view == 2 ? d->normal_error_deg : d->tangent_error_deg;
            memset(&o, 0, sizeof o);
            sf_camera_light_dir(&d->camera, o.light_dir);
            o.material = SF_MATERIAL_LAMBERT;
            o.ambient = 0.6f; /* keep the heat colours readable, with enough light to see the shape */
            if (deg && (view == 2 || has_tangents)) {
                fill_heat(deg, d->vertex_count, s->colors);
                mesh.colors = s->colors;
            } else {
                o.base_color[0] = o.base_color[1] = o.base_color[2] = 0.45f;
            }
            normals = d->reference_normals;
            tangents = NULL;
        } else if (o.material == SF_MATERIAL_NORMAL_MAP && !(d->uvs && tangents)) {
            o.material = SF_MATERIAL_LAMBERT; /* no tangent frame to map through */
        }
        mesh.normals = normals;
        mesh.tangents = tangents;
        sf_result res = sf_raster_draw_mesh(&vp, &mesh, &o, err);
        if (res != SF_OK) return res;
        if (view < 2) draw_overlays(d, &vp, normals, tangents, ss);
        sf_image_blit(image, r[0], r[1], &area, ss);

        /* Labels. */
        int q[4];
        sf_fourview_view_rect(image->width, image->height, view, q);
        char line[160];
        if (view == 0)
            snprintf(line, sizeof line, "method: %s", d->method_name ? d->method_name : "method");
        else if (view == 1)
            snprintf(line, sizeof line, "reference: %s", d->reference_name ? d->reference_name : "recompute");
        else
            snprintf(line, sizeof line, "%s error", view == 2 ? "normal" : "tangent");
        int fit = q[2] - 6 * ts;
        draw_text_fit(image, q[0] + 4 * ts, q[1] + 3 * ts, ts, COLOR_TEXT, line, fit);
        int by = q[1] + q[3] - bottom_band(ts) + 4 * ts;
        /* The caption may take both footer lines, unless the vector legend needs the second. */
        if (view == 0 && d->caption)
            draw_text_wrap(image, q[0] + 4 * ts, by, ts, COLOR_DIM_TEXT, d->caption, fit, d->show_vectors ? 1 : 2);
        if (view == 0 && d->show_vectors) {
            sf_image_draw_text(image, q[0] + 4 * ts, by + 10 * ts, ts, COLOR_NORMAL, "normals");
            sf_image_draw_text(image, q[0] + 4 * ts + sf_text_width("normals  ", ts), by + 10 * ts, ts,
                               COLOR_TANGENT, "tangents");
        }
        if (view == 1) {
            snprintf(line, sizeof line, "material: %s", sf_material_name(o.material));
            draw_text_fit(image, q[0] + 4 * ts, by, ts, COLOR_DIM_TEXT, line, fit);
            if (d->reference_settings)
                draw_text_fit(image, q[0] + 4 * ts, by + 10 * ts, ts, COLOR_DIM_TEXT, d->reference_settings, fit);
        }
        if (view >= 2) {
            const float* deg = view == 2 ? d->normal_error_deg : d->tangent_error_deg;
            if (deg && (view == 2 || has_tangents)) {
                format_stats(line, sizeof line, view == 2 ? &d->normal_stats : &d->tangent_stats);
                draw_colorbar(image, view);
            } else {
                snprintf(line, sizeof line, "no tangent frame (no UVs)");
            }
            draw_shadowed_text(image, r[0] + 4 * ts, r[1] + 3 * ts, ts, COLOR_TEXT, line);
        }
    }
    return SF_OK;
}

sf_result sf_fourview_render(const sf_fourview_desc* d, const sf_env* env, sf_image* image, sf_error* err)
{
    SF_CHECK(d, SF_ERROR_INVALID_ARGUMENT, err, "desc", SFI_NO_INDEX, "NULL");
    SF_CHECK(image && image->rgb && image->width >= 64 && image->height >= 48, SF_ERROR_INVALID_ARGUMENT, err, "image",
             SFI_NO_INDEX, "needs an allocated image of at least 64x48");
    SF_CHECK(d->positions, SF_ERROR_MISSING_STREAM, err, "desc.positions", SFI_NO_INDEX, "required");
    SF_CHECK(d->method_normals, SF_ERROR_MISSING_STREAM, err, "desc.method_normals", SFI_NO_INDEX, "required");
    SF_CHECK(d->reference_normals, SF_ERROR_MISSING_STREAM, err, "desc.reference_normals", SFI_NO_INDEX, "required");
    SF_CHECK(d->normal_error_deg, SF_ERROR_MISSING_STREAM, err, "desc.normal_error_deg", SFI_NO_INDEX, "required");
    SF_CHECK(d->fit_camera || (d->camera.distance > 0.0f && isfinite(d->camera.distance)), SF_ERROR_INVALID_ARGUMENT,
             err, "desc.camera.distance", SFI_NO_INDEX, "%g is not > 0", (double)d->camera.distance);
    int ss = d->supersample > 0 ? d->supersample : 2;
    SF_CHECK(ss <= 4, SF_ERROR_INVALID_ARGUMENT, err, "desc.supersample", SFI_NO_INDEX, "%d is not in 0..4", ss);

    sf_env e = sf_env_defaults(env);
    /* The largest 3D area is the bottom-right one (it gets the odd pixels). */
    int r[4];
    sf_fourview_scene_rect(image->width, image->height, 3, r);
    sf_fourview_desc fitted = *d;
    if (d->fit_camera) sf_camera_fit(&fitted.camera, d->positions, d->vertex_count, (float)r[2] / (float)r[3], 0.9f);
    d = &fitted;
    fourview_scratch s;
    memset(&s, 0, sizeof s);
    size_t pixels = (size_t)r[2] * ss * (size_t)r[3] * ss;
    sf_result res = sf_image_alloc(r[2] * ss, r[3] * ss, &e, &s.image, err);
    if (res != SF_OK) return res;
    s.depth = (float*)sf_env_alloc(&e, pixels * sizeof(float));
    s.colors = (float*)sf_env_calloc(&e, d->vertex_count ? d->vertex_count : 1, 3 * sizeof(float));
    if (!s.depth || !s.colors) {
        res = sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "fourview", SFI_NO_INDEX, "%zu pixels", pixels);
    } else {
        sf_image_fill_rect(image, 0, 0, image->width, image->height, COLOR_BAND);
        res = render_views(d, image, &s, ss, err);
        int hw = image->width / 2, hh = image->height / 2;
        sf_image_fill_rect(image, hw - 1, 0, 1, image->height, COLOR_SEPARATOR);
        sf_image_fill_rect(image, 0, hh - 1, image->width, 1, COLOR_SEPARATOR);
    }
    sf_env_free(&e, s.colors, (d->vertex_count ? d->vertex_count : 1) * 3 * sizeof(float));
    sf_env_free(&e, s.depth, pixels * sizeof(float));
    sf_image_free(&s.image, &e);
    return res;
}

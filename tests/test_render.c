// LABELS: golden
/* Four-view pictures of built-in scenes: golden images (per-pixel tolerance and a count of differing
 * pixels, not a hash), each golden's pixels against the numbers it was drawn from, what the heatmaps must
 * show, and the render/plot commands.
 * SF_UPDATE_GOLDEN=1 rewrites the PNGs in tests/golden instead of comparing (make golden). */
#define _POSIX_C_SOURCE 200809L
#include "sf_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sft_stb_image.h"

#define GOLDEN_W 320
#define GOLDEN_H 240
/* A pixel differs when a channel is off by more than this (compilers and optimisation levels may round
 * differently); the image fails when more than MAX_DIFF_SHARE of its pixels differ. */
#define CHANNEL_TOLERANCE 24
#define MAX_DIFF_SHARE 0.01

typedef struct golden_case {
    const char* file;
    const char* scene;
    const char* preset;
    sf_method method;
    sf_material material;
    int vectors, rig;
} golden_case;

static const golden_case golden_cases[] = {
    {"sheet_bone-twist_unchanged.png", "sheet", "bone-twist", SF_METHOD_UNCHANGED, SF_MATERIAL_LAMBERT, 0, 1},
    {"elbow_bend_inverse-transpose.png", "elbow", "bend", SF_METHOD_INVERSE_TRANSPOSE, SF_MATERIAL_NORMAL_MAP, 1, 0},
};

/* What a four-view picture was drawn from, kept for checking the picture's pixels against it. */
typedef struct case_data {
    size_t n, triangles, bones;
    uint32_t* indices;
    float *pos, *uvs, *mn, *mt, *rn, *rt, *ndeg, *tdeg, *heads, *tails;
    int frame;
    sf_camera camera; /* before sf_fourview_render fits it */
} case_data;

static void case_data_free(case_data* c)
{
    free(c->indices), free(c->pos), free(c->uvs), free(c->mn), free(c->mt), free(c->rn), free(c->rt);
    free(c->ndeg), free(c->tdeg), free(c->heads), free(c->tails);
    memset(c, 0, sizeof *c);
}

static void* copy_of(const void* p, size_t bytes)
{
    void* q = p ? malloc(bytes + 1) : NULL;
    if (q) memcpy(q, p, bytes);
    return q;
}

/* Renders scene/preset with `method` against the reference into *img (GOLDEN_W x GOLDEN_H); keep (may be NULL)
 * gets what it was drawn from. */
static sf_result render_case(const char* scene_name, const char* preset, sf_method method, sf_material material,
                             int vectors, int rig, sf_image* img, sf_error_summary* summary, case_data* keep)
{
    sf_scene* scene = NULL;
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    sf_error err;
    sf_result r = sf_scene_create(scene_name, preset, NULL, 0, NULL, &scene, &err);
    if (r == SF_OK) r = sf_topology_create(&scene->mesh, NULL, NULL, &topo, &err);
    if (r == SF_OK) r = sf_workspace_create(topo, NULL, &ws, &err);
    size_t n = r == SF_OK ? sf_topology_vertex_count(topo) : 0;
    float* pos = calloc(3 * n + 1, sizeof(float));
    float* mn = calloc(3 * n + 1, sizeof(float));
    float* mt = calloc(4 * n + 1, sizeof(float));
    float* rn = calloc(3 * n + 1, sizeof(float));
    float* rt = calloc(4 * n + 1, sizeof(float));
    float* ndeg = calloc(n + 1, sizeof(float));
    float* tdeg = calloc(n + 1, sizeof(float));
    if (r == SF_OK && (!pos || !mn || !mt || !rn || !rt || !ndeg || !tdeg)) r = SF_ERROR_OUT_OF_MEMORY;
    sf_error_summary s;
    memset(&s, 0, sizeof s);
    int frame = r == SF_OK && sf_topology_has_tangent_frame(topo);
    if (r == SF_OK) {
        sf_frames_opts ref_opts;
        memset(&ref_opts, 0, sizeof ref_opts);
        ref_opts.weighting = scene->reference_weighting;
        sf_frames_out ref = {pos, rn, rt};
        r = sf_frames_compute(topo, &scene->pose, SF_METHOD_RECOMPUTE, &ref_opts, ws, &ref, &err);
        sf_frames_out out = {NULL, mn, mt};
        if (r == SF_OK)
            r = sf_frames_compute(topo, &scene->pose, method, method == SF_METHOD_RECOMPUTE ? &ref_opts : NULL, ws, &out,
                                  &err);
        sf_frames_out ref_dirs = {NULL, rn, rt};
        if (r == SF_OK) r = sf_direction_errors(topo, &out, &ref_dirs, ndeg, tdeg, NULL, &s, &err);
    }
    if (r == SF_OK) r = sf_image_alloc(GOLDEN_W, GOLDEN_H, NULL, img, &err);
    if (r == SF_OK) {
        sf_fourview_desc d;
        memset(&d, 0, sizeof d);
        d.vertex_count = n;
        d.triangle_count = sf_topology_triangle_count(topo);
        d.indices = sf_topology_indices(topo);
        d.positions = pos;
        d.uvs = frame ? sf_topology_uvs(topo) : NULL;
        d.method_normals = mn;
        d.method_tangents = frame ? mt : NULL;
        d.reference_normals = rn;
        d.reference_tangents = frame ? rt : NULL;
        d.normal_error_deg = ndeg;
        d.tangent_error_deg = frame ? tdeg : NULL;
        d.normal_stats = s.normal;
        d.tangent_stats = s.tangent;
        d.method_name = sf_method_name(method);
        d.caption = scene_name;
        d.camera = sf_camera_frame(scene->center, scene->radius);
        d.fit_camera = 1;
        d.shading.material = material;
        d.show_vectors = vectors;
        if (rig) {
            d.bone_heads = scene->bone_heads;
            d.bone_tails = scene->bone_tails;
            d.bone_count = scene->mesh.bone_count;
        }
        r = sf_fourview_render(&d, NULL, img, &err);
        if (r != SF_OK) sf_image_free(img, NULL);
        if (r == SF_OK && keep) {
            size_t F = d.triangle_count, B = scene->mesh.bone_count;
            keep->n = n, keep->triangles = F, keep->bones = rig ? B : 0, keep->frame = frame, keep->camera = d.camera;
            keep->indices = copy_of(d.indices, 3 * F * sizeof(uint32_t));
            keep->uvs = copy_of(d.uvs, 2 * n * sizeof(float));
            keep->heads = rig ? copy_of(scene->bone_heads, 3 * B * sizeof(float)) : NULL;
            keep->tails = rig ? copy_of(scene->bone_tails, 3 * B * sizeof(float)) : NULL;
            keep->pos = pos, keep->mn = mn, keep->mt = mt, keep->rn = rn, keep->rt = rt, keep->ndeg = ndeg;
            keep->tdeg = tdeg;
            pos = mn = mt = rn = rt = ndeg = tdeg = NULL;
        }
    }
    if (r != SF_OK) fprintf(stderr, "  render %s/%s: %s\n", scene_name, preset ? preset : "", err.message);
    if (summary) *summary = s;
    free(pos), free(mn), free(mt), free(rn), free(rt), free(ndeg), free(tdeg);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    sf_scene_destroy(scene);
    return r;
}

static const char* golden_path(const char* file, char* buf, size_t size)
{
    const char* root = getenv("SF_SOURCE_DIR");
    if (!root) return NULL;
    snprintf(buf, size, "%s/tests/golden/%s", root, file);
    return buf;
}

/* Pixels whose channels differ by more than the tolerance. */
static size_t count_differing(const uint8_t* a, const uint8_t* b, size_t pixels)
{
    size_t n = 0;
    for (size_t i = 0; i < pixels; ++i) {
        int worst = 0;
        for (int c = 0; c < 3; ++c) {
            int d = abs((int)a[3 * i + c] - (int)b[3 * i + c]);
            if (d > worst) worst = d;
        }
        n += worst > CHANNEL_TOLERANCE;
    }
    return n;
}

static void test_golden_images(void)
{
    int update = getenv("SF_UPDATE_GOLDEN") && strcmp(getenv("SF_UPDATE_GOLDEN"), "1") == 0;
    for (size_t k = 0; k < sizeof golden_cases / sizeof golden_cases[0]; ++k) {
        const golden_case* g = &golden_cases[k];
        char path[4096];
        CHECK(golden_path(g->file, path, sizeof path));
        sf_image img;
        CHECK_OK(render_case(g->scene, g->preset, g->method, g->material, g->vectors, g->rig, &img, NULL, NULL));
        if (update) {
            sf_result r = sf_image_write_png(&img, path, NULL, NULL);
            sf_image_free(&img, NULL);
            CHECK_OK(r);
            printf("wrote %s\n", path);
            continue;
        }
        int w = 0, h = 0, comp = 0;
        unsigned char* want = stbi_load(path, &w, &h, &comp, 3);
        if (!want) {
            sf_image_free(&img, NULL);
            sft_failf(__FILE__, __LINE__, "%s: missing or unreadable (make golden writes it)", path);
            return;
        }
        size_t pixels = (size_t)GOLDEN_W * GOLDEN_H;
        size_t diff = w == GOLDEN_W && h == GOLDEN_H ? count_differing(img.rgb, want, pixels) : pixels;
        stbi_image_free(want);
        printf("  %s: %zu of %zu pixels differ by more than %d\n", g->file, diff, pixels, CHANNEL_TOLERANCE);
        if ((double)diff > MAX_DIFF_SHARE * (double)pixels) {
            /* Leave the new image next to the build for a look. */
            char got[4200];
            const char* bdir = getenv("SF_BUILD_DIR");
            snprintf(got, sizeof got, "%s/%s", bdir ? bdir : ".", g->file);
            sf_image_write_png(&img, got, NULL, NULL);
            sf_image_free(&img, NULL);
            sft_failf(__FILE__, __LINE__, "%s: %zu of %zu pixels differ by more than %d (limit %.0f); new image: %s",
                      g->file, diff, pixels, CHANNEL_TOLERANCE, MAX_DIFF_SHARE * (double)pixels, got);
            return;
        }
        sf_image_free(&img, NULL);
    }
}

/* The comparison can fail: the same scene with another method differs from the golden image. */
static void test_golden_comparison_is_sensitive(void)
{
    if (getenv("SF_UPDATE_GOLDEN")) return;
    const golden_case* g = &golden_cases[0];
    char path[4096];
    CHECK(golden_path(g->file, path, sizeof path));
    int w = 0, h = 0, comp = 0;
    unsigned char* want = stbi_load(path, &w, &h, &comp, 3);
    CHECK(want && w == GOLDEN_W && h == GOLDEN_H);
    sf_image img;
    CHECK_OK(render_case(g->scene, g->preset, SF_METHOD_SKINNED, g->material, g->vectors, g->rig, &img, NULL, NULL));
    size_t pixels = (size_t)GOLDEN_W * GOLDEN_H;
    size_t diff = count_differing(img.rgb, want, pixels);
    stbi_image_free(want);
    sf_image_free(&img, NULL);
    CHECK((double)diff > MAX_DIFF_SHARE * (double)pixels);
}

/* Heat pixels in the normal error view (view 2's 3D area, above the colour bar). */
static void count_heat(const sf_image* img, int view, size_t* red, size_t* green)
{
    int q[4], bar[4];
    sf_fourview_view_rect(img->width, img->height, view, q);
    sf_fourview_colorbar_rect(img->width, img->height, view, bar);
    *red = *green = 0;
    for (int y = q[1] + 30; y < bar[1] - 4; ++y)
        for (int x = q[0]; x < q[0] + q[2]; ++x) {
            const uint8_t* p = img->rgb + ((size_t)y * img->width + x) * 3;
            if (p[2] > 40) continue; /* background and text are grey */
            *red += p[0] > 120 && p[1] < 60;
            *green += p[1] > 120 && p[0] < p[1] / 2; /* green through yellow-green: under about 11 degrees */
        }
}

/* The check by eye, as numbers: recompute is all green, unchanged under bone-twist turns red
 * where the sheet turns. */
static void test_heatmaps_show_the_error(void)
{
    sf_image img;
    sf_error_summary s;
    size_t red, green;
    CHECK_OK(render_case("sheet", "bone-twist", SF_METHOD_RECOMPUTE, SF_MATERIAL_LAMBERT, 0, 0, &img, &s, NULL));
    count_heat(&img, 2, &red, &green);
    CHECK(s.normal.max < 1e-3);
    CHECK(red == 0 && green > 2000);
    count_heat(&img, 3, &red, &green);
    CHECK(red == 0 && green > 2000);
    sf_image_free(&img, NULL);

    CHECK_OK(render_case("sheet", "bone-twist", SF_METHOD_UNCHANGED, SF_MATERIAL_LAMBERT, 0, 0, &img, &s, NULL));
    count_heat(&img, 2, &red, &green);
    CHECK(s.normal.max > 45.0);
    printf("  unchanged: %zu red, %zu green heat pixels\n", red, green);
    CHECK(red > 1000 && green > 100); /* the turned part red, the root still green */
    sf_image_free(&img, NULL);
}

/* ---------------------------------------------------------------- the pictures against their numbers */
/* A golden image pins the renderer's output; these checks say that what it shows is right. At every vertex a
 * view shows plainly (inside the mesh, its triangles all facing one way, nothing nearer over it, clear of the
 * labels and the rig), the picture's pixel must be the colour computed here from that vertex's own numbers:
 * in the heatmaps sf_heatmap_color of its measured angle, lit by the reference normal with the heatmaps'
 * ambient 0.6; in a Lambert top view the default base colour lit by the method's (left) or the reference's
 * (right) normal with ambient 0.3. The light is sf_camera_light_dir of the camera sf_camera_fit gives. */

#define PIXEL_TOLERANCE 6 /* 8-bit levels, for compilers that round differently from the one that wrote the golden */
#define SS 2               /* sf_fourview_desc.supersample's default */

typedef struct view_check {
    size_t checked, off; /* vertices compared, and those further than PIXEL_TOLERANCE outside their colours */
    int worst;
} view_check;

static int cmp_edge(const void* a, const void* b)
{
    const uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
    return x < y ? -1 : x > y;
}

/* 1 for the vertices on an edge used by one triangle only (the mesh's border). */
static unsigned char* border_vertices(const case_data* c)
{
    size_t E = 3 * c->triangles;
    uint64_t* e = malloc((E + 1) * sizeof *e);
    unsigned char* border = calloc(c->n + 1, 1);
    if (!e || !border) {
        free(e);
        free(border);
        return NULL;
    }
    for (size_t f = 0; f < c->triangles; ++f)
        for (int k = 0; k < 3; ++k) {
            uint64_t a = c->indices[3 * f + (size_t)k], b = c->indices[3 * f + (size_t)(k + 1) % 3];
            e[3 * f + (size_t)k] = a < b ? a << 32 | b : b << 32 | a;
        }
    qsort(e, E, sizeof *e, cmp_edge);
    for (size_t i = 0; i < E;) {
        size_t j = i;
        while (j < E && e[j] == e[i]) ++j;
        if (j - i == 1) border[e[i] >> 32] = border[e[i] & 0xffffffffu] = 1;
        i = j;
    }
    free(e);
    return border;
}

static float dot3(const float* a, const float* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Distance in pixels from point p to segment a-b. */
static float segment_distance(const float p[2], const float a[2], const float b[2])
{
    float dx = b[0] - a[0], dy = b[1] - a[1], l2 = dx * dx + dy * dy;
    float t = l2 > 0.0f ? ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / l2 : 0.0f;
    t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    float ex = a[0] + t * dx - p[0], ey = a[1] + t * dy - p[1];
    return sqrtf(ex * ex + ey * ey);
}

/* The colour the vertex's numbers give in `view`; wrong = 1 gives a deliberately wrong one (the heat of
 * 45 degrees minus the angle, or the top view lit from the surface's other side), which the picture must not
 * match. */
static void expected_color(const case_data* c, int view, size_t v, int back, const float light[3], int wrong,
                           float rgb[3])
{
    if (view >= 2) {
        double deg = view == 2 ? c->ndeg[v] : c->tdeg[v];
        if (wrong) deg = 45.0 - (deg < 45.0 ? deg : 45.0);
        sf_heatmap_color(deg, rgb);
    } else {
        rgb[0] = 0.78f, rgb[1] = 0.76f, rgb[2] = 0.72f;
    }
    const float* normals = view == 0 ? c->mn : c->rn;
    if (wrong && view < 2) back = !back;
    float n[3], len = sqrtf(dot3(normals + 3 * v, normals + 3 * v));
    for (int k = 0; k < 3; ++k) n[k] = (back ? -1.0f : 1.0f) * normals[3 * v + (size_t)k] / len;
    float d = dot3(n, light), ambient = view >= 2 ? 0.6f : 0.3f;
    float shade = ambient + (1.0f - ambient) * (d > 0.0f ? d : 0.0f);
    for (int k = 0; k < 3; ++k) rgb[k] *= shade;
}

/* Compares the picture's view with the colours of the vertices it shows plainly. */
static view_check check_view(const unsigned char* rgb, int width, int height, const case_data* c, int view, int wrong)
{
    view_check out = {0, 0, 0};
    int r[4];
    sf_fourview_scene_rect(width, height, view, r);
    int r3[4];
    sf_fourview_scene_rect(width, height, 3, r3);
    sf_camera cam = c->camera;
    sf_camera_fit(&cam, c->pos, c->n, (float)r3[2] / (float)r3[3], 0.9f); /* as sf_fourview_render fits it */
    sf_viewport vp;
    memset(&vp, 0, sizeof vp);
    vp.width = r[2] * SS;
    vp.height = r[3] * SS;
    sf_camera_matrix(&cam, (float)r[2] / (float)r[3], vp.clip_from_world);
    float light[3], eye[3];
    sf_camera_light_dir(&cam, light);
    sf_camera_position(&cam, eye);
    float* screen = malloc((3 * c->n + 1) * sizeof(float)); /* x, y in samples, 1/w */
    unsigned char* border = border_vertices(c);
    signed char* facing = calloc(c->n + 1, 1); /* 1 front, -1 back, 2 both */
    if (!screen || !border || !facing) goto done;
    for (size_t v = 0; v < c->n; ++v)
        if (!sf_viewport_project(&vp, c->pos + 3 * v, screen + 3 * v)) border[v] = 1;
    for (size_t f = 0; f < c->triangles; ++f) {
        const uint32_t* t = c->indices + 3 * f;
        const float *p0 = c->pos + 3 * t[0], *p1 = c->pos + 3 * t[1], *p2 = c->pos + 3 * t[2];
        float e1[3], e2[3], fn[3], to_eye[3];
        for (int k = 0; k < 3; ++k) e1[k] = p1[k] - p0[k], e2[k] = p2[k] - p0[k], to_eye[k] = eye[k] - p0[k];
        fn[0] = e1[1] * e2[2] - e1[2] * e2[1], fn[1] = e1[2] * e2[0] - e1[0] * e2[2], fn[2] = e1[0] * e2[1] - e1[1] * e2[0];
        signed char side = dot3(fn, to_eye) >= 0.0f ? 1 : -1;
        for (int k = 0; k < 3; ++k) facing[t[k]] = facing[t[k]] == 0 || facing[t[k]] == side ? side : 2;
    }
    for (size_t v = 0; v < c->n; ++v) {
        if (border[v] || facing[v] == 0 || facing[v] == 2) continue;
        const float* q = screen + 3 * v;
        int fx = r[0] + (int)floorf(q[0] / SS), fy = r[1] + (int)floorf(q[1] / SS);
        if (fx < r[0] + 1 || fx >= r[0] + r[2] - 1 || fy < r[1] + 12 || fy >= r[1] + r[3] - 1) continue;
        /* nothing nearer within 2 samples of the vertex */
        int hidden = 0;
        for (size_t f = 0; f < c->triangles && !hidden; ++f) {
            const uint32_t* t = c->indices + 3 * f;
            if (t[0] == v || t[1] == v || t[2] == v) continue;
            const float *a = screen + 3 * t[0], *b = screen + 3 * t[1], *d = screen + 3 * t[2];
            float area = (b[0] - a[0]) * (d[1] - a[1]) - (b[1] - a[1]) * (d[0] - a[0]);
            if (fabsf(area) < 1e-12f) continue;
            const float* P[3] = {a, b, d};
            float bary[3];
            int inside = 1;
            for (int k = 0; k < 3; ++k) {
                const float *e0 = P[(k + 1) % 3], *e1 = P[(k + 2) % 3];
                float ex = e1[0] - e0[0], ey = e1[1] - e0[1], len = sqrtf(ex * ex + ey * ey);
                float cross = ex * (q[1] - e0[1]) - ey * (q[0] - e0[0]);
                bary[k] = cross / area;
                if (len > 0.0f && (area > 0.0f ? cross : -cross) / len < -2.0f) inside = 0;
            }
            float invw = bary[0] * a[2] + bary[1] * b[2] + bary[2] * d[2];
            hidden = inside && invw > q[2];
        }
        if (hidden) continue;
        if (view < 2 && c->bones) {
            float px[2] = {q[0] / SS, q[1] / SS};
            float nearest = 1e30f;
            for (size_t j = 0; j < c->bones; ++j) {
                float h[3], t[3];
                if (!sf_viewport_project(&vp, c->heads + 3 * j, h) || !sf_viewport_project(&vp, c->tails + 3 * j, t)) {
                    nearest = 0.0f;
                    break;
                }
                float hh[2] = {h[0] / SS, h[1] / SS}, tt[2] = {t[0] / SS, t[1] / SS};
                float dd = segment_distance(px, hh, tt);
                if (dd < nearest) nearest = dd;
            }
            if (nearest < 7.0f) continue;
        }
        /* The pixel averages samples from the triangles around the vertex: its colour lies between the
         * colours of the vertex and its neighbours (the same where they agree). */
        float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
        for (size_t f = 0; f < c->triangles; ++f) {
            const uint32_t* t = c->indices + 3 * f;
            if (t[0] != v && t[1] != v && t[2] != v) continue;
            for (int j = 0; j < 3; ++j) {
                float want[3];
                expected_color(c, view, t[j], facing[v] < 0, light, wrong, want);
                for (int k = 0; k < 3; ++k) lo[k] = fminf(lo[k], want[k]), hi[k] = fmaxf(hi[k], want[k]);
            }
        }
        const unsigned char* got = rgb + ((size_t)fy * (size_t)width + (size_t)fx) * 3;
        int worst = 0;
        for (int k = 0; k < 3; ++k) {
            int below = (int)(lo[k] * 255.0f + 0.5f) - (int)got[k], above = (int)got[k] - (int)(hi[k] * 255.0f + 0.5f);
            int d = below > above ? below : above;
            if (d > worst) worst = d;
        }
        out.checked++;
        out.off += worst > PIXEL_TOLERANCE;
        if (worst > out.worst) out.worst = worst;
    }
done:
    free(screen);
    free(border);
    free(facing);
    return out;
}

/* Each golden image, as committed, against the numbers it was drawn from: every view that shows a colour
 * this file can compute (the heatmaps always, the top views where they are Lambert without overlaid vectors). */
static void test_golden_images_show_their_numbers(void)
{
    for (size_t k = 0; k < sizeof golden_cases / sizeof golden_cases[0]; ++k) {
        const golden_case* g = &golden_cases[k];
        char path[4096];
        CHECK(golden_path(g->file, path, sizeof path));
        int w = 0, h = 0, comp = 0;
        unsigned char* png = stbi_load(path, &w, &h, &comp, 3);
        CHECK(png && w == GOLDEN_W && h == GOLDEN_H);
        sf_image img;
        case_data c;
        memset(&c, 0, sizeof c);
        sf_result r = render_case(g->scene, g->preset, g->method, g->material, g->vectors, g->rig, &img, NULL, &c);
        if (r == SF_OK) sf_image_free(&img, NULL);
        int ok = r == SF_OK && c.pos != NULL;
        for (int view = 0; ok && view < 4; ++view) {
            if (view < 2 && (g->material != SF_MATERIAL_LAMBERT || g->vectors)) continue;
            if (view == 3 && !c.frame) continue;
            view_check right = check_view(png, w, h, &c, view, 0), wrong = check_view(png, w, h, &c, view, 1);
            printf("  %s view %d: %zu vertices, %zu off by more than %d (worst %d); a wrong colour: %zu off\n", g->file,
                   view, right.checked, right.off, PIXEL_TOLERANCE, right.worst, wrong.off);
            if (!(right.checked >= 50 && right.off == 0 && wrong.off >= right.checked / 4)) {
                sft_failf(__FILE__, __LINE__, "%s view %d: %zu of %zu shown vertices off (wrong colours: %zu off)",
                          g->file, view, right.off, right.checked, wrong.off);
                ok = 0;
            }
        }
        stbi_image_free(png);
        case_data_free(&c);
        CHECK(ok);
    }
}

/* Exit status of `skinframe ARGS`, -1 when it could not run. */
static int run_cli(const char* args)
{
    sft_cli_out r = sft_run_cli(args);
    int status = r.status;
    sft_cli_out_free(&r);
    return status;
}

static long file_size(const char* path)
{
    FILE* f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

static void test_render_command(void)
{
    if (!getenv("SF_CLI")) {
        sft_skip("SF_CLI not set");
        return;
    }
    const char* bdir = getenv("SF_BUILD_DIR");
    char dir[4096], args[8192], path[4300];
    snprintf(dir, sizeof dir, "%s/render_test", bdir ? bdir : ".");
    snprintf(args, sizeof args, "render --scene strip --preset lift --method skinned --size 200x150 --vectors --rig -o %s.png",
             dir);
    CHECK(run_cli(args) == 0);
    snprintf(path, sizeof path, "%s.png", dir);
    int w = 0, h = 0, comp = 0;
    unsigned char* px = stbi_load(path, &w, &h, &comp, 3);
    CHECK(px && w == 200 && h == 150);
    stbi_image_free(px);
    /* Same input, same bytes. */
    long first = file_size(path);
    CHECK(run_cli(args) == 0);
    CHECK(file_size(path) == first);

    snprintf(args, sizeof args, "render --scene tip --all-methods --size 160x120 -o %s", dir);
    CHECK(run_cli(args) == 0);
    snprintf(path, sizeof path, "%s/tip_rest_contact.png", dir);
    CHECK(file_size(path) > 0);
    snprintf(path, sizeof path, "%s/tip_rest_jacobian.png", dir);
    CHECK(file_size(path) > 0);
    /* The folder and its parents are created, as demo --out does (the same cli_make_dir). */
    snprintf(args, sizeof args, "render --scene tip --all-methods --size 160x120 -o %s/nested/deeper", dir);
    CHECK(run_cli(args) == 0);
    snprintf(path, sizeof path, "%s/nested/deeper/tip_rest_contact.png", dir);
    CHECK(file_size(path) > 0);

    snprintf(args, sizeof args, "plot --scene strip --sweep lift=0:1:3 --size 480x240 -o %s/plot.png", dir);
    CHECK(run_cli(args) == 0);
    snprintf(path, sizeof path, "%s/plot.png", dir);
    CHECK(file_size(path) > 0);

    /* Bad usage: exit 2, nothing written. */
    snprintf(args, sizeof args, "render --scene sheet --method skinned --size 10x10 -o %s/bad.png", dir);
    CHECK(run_cli(args) == 2);
    snprintf(args, sizeof args, "render --scene sheet --method skinned --material chrome -o %s/bad.png", dir);
    CHECK(run_cli(args) == 2);
    snprintf(args, sizeof args, "render --scene sheet --method skinned --camera 1,2,x -o %s/bad.png", dir);
    CHECK(run_cli(args) == 2);
    CHECK(run_cli("render --scene sheet --method skinned") == 2);
    snprintf(path, sizeof path, "%s/bad.png", dir);
    CHECK(file_size(path) < 0);

    /* -o naming a folder is bad usage (one method writes a .png file); a write that fails (a folder that is
     * not there) exits 1 and leaves no temporary file behind. */
    snprintf(args, sizeof args, "render --scene tip --method skinned --size 160x120 -o %s", dir);
    CHECK(run_cli(args) == 2);
    snprintf(args, sizeof args, "render --scene tip --method skinned --size 160x120 -o %s/missing/x.png", dir);
    CHECK(run_cli(args) == 1);
    snprintf(args, sizeof args, "ls -R '%s'* | grep -q '\\.tmp\\.'", dir);
    CHECK(system(args) != 0);
}

/* render --gltf on a shared asset (skipped when the assets are not there). */
static void test_render_gltf(void)
{
    char asset[4096];
    if (!getenv("SF_CLI") || !sft_asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf", asset, sizeof asset)) {
        sft_skip("SF_CLI or SF_ASSETS not set");
        return;
    }
    const char* bdir = getenv("SF_BUILD_DIR");
    char out[4200], args[8700];
    snprintf(out, sizeof out, "%s/render_gltf.png", bdir ? bdir : ".");
    snprintf(args, sizeof args, "render --gltf \"%s\" --time 1.5 --method skinned --rig --size 240x180 -o %s", asset, out);
    CHECK(run_cli(args) == 0);
    int w = 0, h = 0, comp = 0;
    unsigned char* px = stbi_load(out, &w, &h, &comp, 3);
    CHECK(px && w == 240 && h == 180);
    stbi_image_free(px);
    snprintf(args, sizeof args, "render --gltf \"%s\" --scene sheet --method skinned -o %s", asset, out);
    CHECK(run_cli(args) == 2);
    snprintf(args, sizeof args, "render --gltf \"%s\" --animation nope --method skinned -o %s", asset, out);
    CHECK(run_cli(args) == 2);

    /* -o naming the input under another spelling is refused (exit 2) and leaves the input alone. */
    char dir[4200], input[4300];
    snprintf(dir, sizeof dir, "%s/render_gltf_input", bdir ? bdir : ".");
    const char* slash = strrchr(asset, '/');
    char cmd[16400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' && cp '%.*s'/* '%s'/", dir, dir, (int)(slash - asset), asset,
             dir);
    CHECK(system(cmd) == 0);
    snprintf(input, sizeof input, "%s/SimpleSkin.gltf", dir);
    char* before = sft_read_file(input, NULL);
    CHECK(before != NULL);
    snprintf(cmd, sizeof cmd, "render --gltf '%s' --method skinned --size 160x120 -o '%s/./SimpleSkin.gltf'", input, dir);
    int status = run_cli(cmd);
    char* after = sft_read_file(input, NULL);
    bool same = after && strcmp(before, after) == 0;
    free(before);
    free(after);
    CHECK(status == 2);
    CHECK(same);

    /* --reference authored reaches render's reference (it used to be dropped): other numbers on the Fox. */
    char fox[4096];
    if (!sft_asset("gltf/Fox/glTF-Binary/Fox.glb", fox, sizeof fox)) return;
    char line[2][256];
    for (int k = 0; k < 2; ++k) {
        snprintf(cmd, sizeof cmd, "render --gltf '%s' --time 0.5 --method skinned --size 160x120 -o %s%s", fox, out,
                 k ? " --reference authored" : "");
        sft_cli_out r = sft_run_cli(cmd);
        snprintf(line[k], sizeof line[k], "%s", r.status == 0 && r.out ? r.out : "failed");
        sft_cli_out_free(&r);
    }
    printf("  %s  %s", line[0], line[1]);
    CHECK(strcmp(line[0], "failed") != 0 && strcmp(line[0], line[1]) != 0);
}

/* Text that does not fit reads whole: a long caption wraps onto the second footer line of the top-left
 * view, and the contact sheet's labels stay inside their own cells. */
static void test_text_fits(void)
{
    if (!getenv("SF_CLI")) {
        sft_skip("SF_CLI not set");
        return;
    }
    const char* bdir = getenv("SF_BUILD_DIR");
    char dir[4096], args[8192], path[4300];
    snprintf(dir, sizeof dir, "%s/render_text", bdir ? bdir : ".");
    snprintf(args, sizeof args,
             "render --scene sheet --morph towel-twist=0.7,swirl=0.5,ripples=0.6 --method skinned --set resolution=4 "
             "--size 1024x768 -o %s.png",
             dir);
    CHECK(run_cli(args) == 0);
    snprintf(path, sizeof path, "%s.png", dir);
    int w = 0, h = 0, comp = 0;
    unsigned char* px = stbi_load(path, &w, &h, &comp, 3);
    CHECK(px && w == 1024 && h == 768);
    /* Text scale 2: the footer band is the last 48 rows of the view (384 high); its second line starts 28 rows in. */
    size_t dim = 0;
    for (int y = 384 - 48 + 4 + 20; y < 384 - 48 + 4 + 34; ++y)
        for (int x = 0; x < 512; ++x) {
            const unsigned char* p = px + ((size_t)y * 1024 + (size_t)x) * 3;
            dim += p[0] == 160 && p[1] == 164 && p[2] == 172;
        }
    stbi_image_free(px);
    CHECK(dim > 50);

    /* 1400x1050: cells 700 wide, where the labels would be drawn at scale 2 and no longer fit. */
    snprintf(args, sizeof args,
             "render --scene tip --preset move-neighbor --all-methods --size 1400x1050 -o %s", dir);
    CHECK(run_cli(args) == 0);
    snprintf(path, sizeof path, "%s/tip_move-neighbor_contact.png", dir);
    px = stbi_load(path, &w, &h, &comp, 3);
    CHECK(px && w == 3 * 700);
    /* No ink in the label band from 8 pixels before a cell's end to its next label's start. */
    size_t ink = 0;
    for (int y = 0; y < 60; ++y)
        for (int cell = 1; cell < 3; ++cell)
            for (int x = cell * 700 - 8; x < cell * 700 + 4; ++x) {
                const unsigned char* p = px + ((size_t)y * (size_t)w + (size_t)x) * 3;
                ink += p[0] > 200 && p[1] > 200 && p[2] > 200;
            }
    stbi_image_free(px);
    CHECK(ink == 0);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"golden_images", test_golden_images},
        {"golden_comparison_is_sensitive", test_golden_comparison_is_sensitive},
        {"golden_images_show_their_numbers", test_golden_images_show_their_numbers},
        {"heatmaps_show_the_error", test_heatmaps_show_the_error},
        {"render_command", test_render_command},
        {"render_gltf", test_render_gltf},
        {"text_fits", test_text_fits},
    };
    return SFT_RUN(cases, argc, argv);
}

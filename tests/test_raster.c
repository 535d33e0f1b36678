// LABELS: unit
/* The software rasterizer, images, text, heatmap colours, the four-view layout and PNG output. */
#include "sf_test.h"

#include <stdlib.h>
#include <string.h>

#include "sft_stb_image.h"

#define W 16
#define H 16

/* A viewport whose matrix maps world (x, y) straight to NDC with w = 1, so pixel positions are exact. */
typedef struct fixture {
    sf_image image;
    float depth[W * H];
    sf_viewport vp;
} fixture;

static int fixture_init(fixture* f)
{
    memset(f, 0, sizeof *f);
    if (sf_image_alloc(W, H, NULL, &f->image, NULL) != SF_OK) return 0;
    f->vp.image = &f->image;
    f->vp.depth = f->depth;
    f->vp.width = W;
    f->vp.height = H;
    float* m = f->vp.clip_from_world;
    m[0] = m[5] = m[10] = m[15] = 1.0f;
    m[10] = 0.0f; /* z stays 0: inside the near plane */
    const uint8_t black[3] = {0, 0, 0};
    sf_viewport_clear(&f->vp, black);
    return 1;
}

/* Pixel coordinates (x right, y down) to world for the fixture's matrix. */
static void pixel_to_world(float px, float py, float out[3])
{
    out[0] = 2.0f * px / W - 1.0f;
    out[1] = 1.0f - 2.0f * py / H;
    out[2] = 0.0f;
}

static const uint8_t* pixel(const sf_image* img, int x, int y) { return img->rgb + ((size_t)y * img->width + x) * 3; }

static void draw_unlit(fixture* f, const float* pos, size_t nv, const uint32_t* idx, size_t nt, const float* colors)
{
    sf_raster_mesh mesh;
    memset(&mesh, 0, sizeof mesh);
    mesh.vertex_count = nv;
    mesh.triangle_count = nt;
    mesh.indices = idx;
    mesh.positions = pos;
    mesh.colors = colors;
    sf_raster_opts o;
    memset(&o, 0, sizeof o);
    o.material = SF_MATERIAL_UNLIT;
    sf_raster_draw_mesh(&f->vp, &mesh, &o, NULL);
}

static void test_heatmap_colors(void)
{
    float c[3];
    sf_heatmap_color(0.0, c);
    CHECK_NEAR(c[0], 0.0, 1e-6);
    CHECK_NEAR(c[1], 1.0, 1e-6);
    CHECK_NEAR(c[2], 0.0, 1e-6);
    sf_heatmap_color(22.5, c);
    CHECK_NEAR(c[0], 1.0, 1e-6);
    CHECK_NEAR(c[1], 1.0, 1e-6);
    sf_heatmap_color(45.0, c);
    CHECK_NEAR(c[0], 1.0, 1e-6);
    CHECK_NEAR(c[1], 0.0, 1e-6);
    sf_heatmap_color(120.0, c);
    CHECK_NEAR(c[0], 1.0, 1e-6);
    CHECK_NEAR(c[1], 0.0, 1e-6);
    sf_heatmap_color(11.25, c); /* half way to yellow */
    CHECK_NEAR(c[0], 0.5, 1e-6);
    CHECK_NEAR(c[1], 1.0, 1e-6);
}

/* Triangle with corners at pixel positions (2.25, 2.25), (12.25, 2.25), (2.25, 12.25): pixel centres
 * (i + 0.5, j + 0.5) inside are i >= 2, j >= 2, i + j <= 13: 55 pixels, none on an edge. */
static void test_triangle_covers_known_pixels(void)
{
    fixture f;
    CHECK(fixture_init(&f));
    float pos[9];
    pixel_to_world(2.25f, 2.25f, pos);
    pixel_to_world(12.25f, 2.25f, pos + 3);
    pixel_to_world(2.25f, 12.25f, pos + 6);
    const uint32_t idx[3] = {0, 2, 1}; /* either winding draws */
    const float white[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    draw_unlit(&f, pos, 3, idx, 1, white);
    int count = 0, wrong = 0;
    for (int j = 0; j < H; ++j)
        for (int i = 0; i < W; ++i) {
            int drawn = pixel(&f.image, i, j)[0] == 255;
            int inside = i >= 2 && j >= 2 && i + j <= 13;
            count += drawn;
            wrong += drawn != inside;
        }
    CHECK(count == 55);
    CHECK(wrong == 0);
    sf_image_free(&f.image, NULL);
}

/* Two triangles sharing the diagonal of the square [2, 10]^2 (pixel centres on the diagonal): together
 * they cover its 64 pixels exactly once (top-left rule). */
static void test_shared_edge_drawn_once(void)
{
    fixture a, b;
    CHECK(fixture_init(&a));
    CHECK(fixture_init(&b));
    float pos[12];
    pixel_to_world(2, 2, pos);
    pixel_to_world(10, 2, pos + 3);
    pixel_to_world(10, 10, pos + 6);
    pixel_to_world(2, 10, pos + 9);
    const uint32_t t0[3] = {0, 1, 2}, t1[3] = {0, 2, 3};
    const float white[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    draw_unlit(&a, pos, 4, t0, 1, white);
    draw_unlit(&b, pos, 4, t1, 1, white);
    int both = 0, either = 0, outside = 0;
    for (int j = 0; j < H; ++j)
        for (int i = 0; i < W; ++i) {
            int da = pixel(&a.image, i, j)[0] == 255, db = pixel(&b.image, i, j)[0] == 255;
            both += da && db;
            either += da || db;
            outside += (da || db) && !(i >= 2 && i < 10 && j >= 2 && j < 10);
        }
    CHECK(both == 0);
    CHECK(either == 64);
    CHECK(outside == 0);
    sf_image_free(&a.image, NULL);
    sf_image_free(&b.image, NULL);
}

/* A perspective camera looking at two overlapping squares at different depths: the nearer one wins
 * whichever is drawn first. */
static void test_depth_order(void)
{
    for (int order = 0; order < 2; ++order) {
        sf_image img;
        CHECK_OK(sf_image_alloc(32, 32, NULL, &img, NULL));
        float depth[32 * 32];
        sf_viewport vp;
        memset(&vp, 0, sizeof vp);
        vp.image = &img;
        vp.depth = depth;
        vp.width = vp.height = 32;
        sf_camera cam;
        memset(&cam, 0, sizeof cam);
        cam.distance = 5.0f; /* on +Z looking at the origin */
        sf_camera_matrix(&cam, 1.0f, vp.clip_from_world);
        const uint8_t black[3] = {0, 0, 0};
        sf_viewport_clear(&vp, black);
        /* near square at z = +1 (red), far square at z = -1 (blue), both spanning [-1, 1]^2 */
        const float pos[24] = {-1, -1, 1, 1, -1, 1, 1, 1, 1, -1, 1, 1, -1, -1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1};
        float col[24];
        for (int v = 0; v < 8; ++v) {
            col[3 * v + 0] = v < 4 ? 1.0f : 0.0f;
            col[3 * v + 1] = 0.0f;
            col[3 * v + 2] = v < 4 ? 0.0f : 1.0f;
        }
        const uint32_t near_idx[6] = {0, 1, 2, 0, 2, 3}, far_idx[6] = {4, 5, 6, 4, 6, 7};
        uint32_t idx[12];
        memcpy(idx, order ? far_idx : near_idx, sizeof near_idx);
        memcpy(idx + 6, order ? near_idx : far_idx, sizeof near_idx);
        sf_raster_mesh mesh;
        memset(&mesh, 0, sizeof mesh);
        mesh.vertex_count = 8;
        mesh.triangle_count = 4;
        mesh.indices = idx;
        mesh.positions = pos;
        mesh.colors = col;
        sf_raster_opts o;
        memset(&o, 0, sizeof o);
        o.material = SF_MATERIAL_UNLIT;
        CHECK_OK(sf_raster_draw_mesh(&vp, &mesh, &o, NULL));
        const uint8_t* c = pixel(&img, 16, 16);
        CHECK(c[0] == 255 && c[2] == 0);
        /* The far square is smaller on screen: a pixel near the corner of the near square is red too,
         * and one outside both stays black. */
        float s[3];
        const float corner[3] = {0.9f, 0.9f, 1.0f};
        CHECK(sf_viewport_project(&vp, corner, s));
        c = pixel(&img, (int)s[0], (int)s[1]);
        CHECK(c[0] == 255);
        CHECK(pixel(&img, 0, 0)[0] == 0 && pixel(&img, 0, 0)[2] == 0);
        sf_image_free(&img, NULL);
    }
}

/* A floor quad receding from the camera, coloured by its world z (linear in the world, not on screen).
 * Each pixel must show the value at the floor point its centre ray hits, found analytically from the
 * matrix. The values are far from affine in screen space, so affine interpolation would fail. */
static void test_perspective_correct_interpolation(void)
{
    enum { S = 64 };
    sf_image img;
    CHECK_OK(sf_image_alloc(S, S, NULL, &img, NULL));
    float* depth = (float*)malloc(sizeof(float) * S * S);
    CHECK(depth);
    sf_viewport vp;
    memset(&vp, 0, sizeof vp);
    vp.image = &img;
    vp.depth = depth;
    vp.width = vp.height = S;
    sf_camera cam;
    memset(&cam, 0, sizeof cam);
    cam.target[2] = -6.0f;
    cam.pitch_deg = 30.0f;
    cam.distance = 8.0f;
    cam.fov_y_deg = 60.0f;
    sf_camera_matrix(&cam, 1.0f, vp.clip_from_world);
    const uint8_t black[3] = {0, 0, 0};
    sf_viewport_clear(&vp, black);
    const float pos[12] = {-20, 0, 2, 20, 0, 2, 20, 0, -18, -20, 0, -18};
    float col[12];
    for (int v = 0; v < 4; ++v) {
        float a = (2.0f - pos[3 * v + 2]) / 20.0f; /* 0 at z = 2, 1 at z = -18 */
        col[3 * v] = col[3 * v + 1] = col[3 * v + 2] = a;
    }
    const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    sf_raster_mesh mesh;
    memset(&mesh, 0, sizeof mesh);
    mesh.vertex_count = 4;
    mesh.triangle_count = 2;
    mesh.indices = idx;
    mesh.positions = pos;
    mesh.colors = col;
    sf_raster_opts o;
    memset(&o, 0, sizeof o);
    o.material = SF_MATERIAL_UNLIT;
    CHECK_OK(sf_raster_draw_mesh(&vp, &mesh, &o, NULL));

    const float* m = vp.clip_from_world;
    int tested = 0;
    float worst = 0.0f;
    for (int py = 0; py < S; py += 3)
        for (int px = 0; px < S; px += 5) {
            float nx = 2.0f * ((float)px + 0.5f) / S - 1.0f, ny = 1.0f - 2.0f * ((float)py + 0.5f) / S;
            /* Solve (row_x - nx row_w) . (X, 0, Z, 1) = 0 and the same for y. */
            double a11 = m[0] - nx * m[3], a12 = m[8] - nx * m[11], b1 = -(m[12] - nx * m[15]);
            double a21 = m[1] - ny * m[3], a22 = m[9] - ny * m[11], b2 = -(m[13] - ny * m[15]);
            double det = a11 * a22 - a12 * a21;
            if (fabs(det) < 1e-12) continue;
            double X = (b1 * a22 - a12 * b2) / det, Z = (a11 * b2 - a21 * b1) / det;
            double wclip = m[3] * X + m[11] * Z + m[15];
            if (!(wclip > 0.0) || X < -19.0 || X > 19.0 || Z > 1.5 || Z < -17.0) continue;
            float want = (float)((2.0 - Z) / 20.0);
            float got = pixel(&img, px, py)[0] / 255.0f;
            float diff = fabsf(got - want);
            if (diff > worst) worst = diff;
            tested++;
        }
    CHECK(tested > 50);
    CHECK(worst <= 1.5f / 255.0f);
    /* Sensitivity: along the image's vertical centre line, world z is not linear in screen y, so the
     * midpoint's value differs from the mean of two pixels equally above and below it. */
    float top = pixel(&img, S / 2, 16)[0] / 255.0f, mid = pixel(&img, S / 2, 30)[0] / 255.0f,
          bot = pixel(&img, S / 2, 44)[0] / 255.0f;
    CHECK(fabsf(mid - 0.5f * (top + bot)) > 0.05f);
    free(depth);
    sf_image_free(&img, NULL);
}

/* Two-sided lighting: a triangle seen from behind shades with its normal flipped. */
static void test_back_face_flips_normal(void)
{
    sf_camera cam;
    memset(&cam, 0, sizeof cam);
    cam.distance = 4.0f;
    for (int back = 0; back < 2; ++back) {
        sf_image img;
        CHECK_OK(sf_image_alloc(16, 16, NULL, &img, NULL));
        float depth[256];
        sf_viewport vp;
        memset(&vp, 0, sizeof vp);
        vp.image = &img;
        vp.depth = depth;
        vp.width = vp.height = 16;
        sf_camera_matrix(&cam, 1.0f, vp.clip_from_world);
        const uint8_t black[3] = {0, 0, 0};
        sf_viewport_clear(&vp, black);
        const float pos[9] = {-2, -2, 0, 2, -2, 0, 0, 2, 0};
        /* Front: counter-clockwise seen from +Z, normals +Z. Back: clockwise, normals -Z (consistent). */
        const float nz = back ? -1.0f : 1.0f;
        const float nrm[9] = {0, 0, nz, 0, 0, nz, 0, 0, nz};
        const uint32_t idx_front[3] = {0, 1, 2}, idx_back[3] = {0, 2, 1};
        sf_raster_mesh mesh;
        memset(&mesh, 0, sizeof mesh);
        mesh.vertex_count = 3;
        mesh.triangle_count = 1;
        mesh.indices = back ? idx_back : idx_front;
        mesh.positions = pos;
        mesh.normals = nrm;
        sf_raster_opts o;
        memset(&o, 0, sizeof o);
        o.light_dir[2] = 1.0f; /* towards the camera */
        o.base_color[0] = o.base_color[1] = o.base_color[2] = 1.0f;
        CHECK_OK(sf_raster_draw_mesh(&vp, &mesh, &o, NULL));
        CHECK(pixel(&img, 8, 8)[0] == 255); /* fully lit either way; unflipped the back would be ambient */
        sf_image_free(&img, NULL);
    }
}

static void test_bad_input(void)
{
    fixture f;
    CHECK(fixture_init(&f));
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint32_t idx[3] = {0, 1, 3};
    sf_raster_mesh mesh;
    memset(&mesh, 0, sizeof mesh);
    mesh.vertex_count = 3;
    mesh.triangle_count = 1;
    mesh.indices = idx;
    mesh.positions = pos;
    sf_raster_opts o;
    memset(&o, 0, sizeof o);
    o.material = SF_MATERIAL_FLAT;
    sf_error err;
    CHECK_RESULT(sf_raster_draw_mesh(&f.vp, &mesh, &o, &err), SF_ERROR_INDEX_RANGE);
    CHECK(strcmp(err.field, "mesh.indices") == 0 && err.index == 2);
    const uint32_t ok_idx[3] = {0, 1, 2};
    mesh.indices = ok_idx;
    o.material = SF_MATERIAL_NORMAL_MAP;
    const float nrm[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
    mesh.normals = nrm;
    CHECK_RESULT(sf_raster_draw_mesh(&f.vp, &mesh, &o, &err), SF_ERROR_MISSING_STREAM);
    CHECK(strcmp(err.field, "mesh.tangents") == 0);
    sf_viewport bad = f.vp;
    bad.width = W + 1;
    CHECK_RESULT(sf_raster_draw_mesh(&bad, &mesh, &o, &err), SF_ERROR_INVALID_ARGUMENT);
    sf_material mat;
    CHECK_OK(sf_material_parse("normal-map", &mat));
    CHECK(mat == SF_MATERIAL_NORMAL_MAP);
    CHECK_RESULT(sf_material_parse("shiny", &mat), SF_ERROR_UNKNOWN_NAME);
    sf_image_free(&f.image, NULL);
}

static void test_text_and_lines(void)
{
    fixture f;
    CHECK(fixture_init(&f));
    const uint8_t white[3] = {255, 255, 255};
    CHECK(sf_image_draw_text(&f.image, 1, 1, 1, white, "A") == 5);
    int lit = 0;
    for (int i = 0; i < W * H; ++i) lit += f.image.rgb[3 * i] == 255;
    CHECK(lit == 18); /* the glyph's set bits: 3 + 2 + 2 + 2 + 5 + 2 + 2 */
    CHECK(sf_text_width("ab", 2) == 22);
    CHECK(sf_text_width("45\xC2\xB0", 1) == 17); /* the degree sign is one glyph */
    /* Anti-aliased horizontal line through pixel centres of row 10, 1 px wide: row 10 full, row 9 and 11 untouched. */
    sf_image_draw_line(&f.image, 2.5f, 10.5f, 12.5f, 10.5f, 1.0f, white);
    CHECK(pixel(&f.image, 7, 10)[0] == 255);
    CHECK(pixel(&f.image, 7, 9)[0] == 0 && pixel(&f.image, 7, 11)[0] == 0);
    /* Half-covered: a 1 px line along a pixel border gives both neighbours half intensity. */
    sf_image_draw_line(&f.image, 2.5f, 14.0f, 12.5f, 14.0f, 1.0f, white);
    CHECK(abs((int)pixel(&f.image, 7, 13)[0] - 128) <= 1);
    CHECK(abs((int)pixel(&f.image, 7, 14)[0] - 128) <= 1);
    sf_image_free(&f.image, NULL);
}

/* A line behind a surface is hidden by the depth test, one in front is drawn. */
static void test_line_depth(void)
{
    fixture f;
    CHECK(fixture_init(&f));
    /* A surface with 1/w = 0.5 everywhere: use w = 2 by scaling the matrix row. */
    float pos[12];
    pixel_to_world(0, 0, pos);
    pixel_to_world(16, 0, pos + 3);
    pixel_to_world(16, 16, pos + 6);
    pixel_to_world(0, 16, pos + 9);
    const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    const float grey[12] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
    draw_unlit(&f, pos, 4, idx, 2, grey);
    /* The fixture has w = 1 for all points: lines at w = 1 are level with the surface (drawn). Move the
     * matrix so a line is farther (w = 2 -> 1/w = 0.5 < 1): hidden. */
    const uint8_t white[3] = {255, 255, 255};
    float seg[6];
    pixel_to_world(2, 8.5f, seg);
    pixel_to_world(14, 8.5f, seg + 3);
    sf_raster_draw_lines(&f.vp, seg, 1, 1.0f, white, 1);
    CHECK(pixel(&f.image, 8, 8)[0] == 255);
    sf_viewport far = f.vp;
    for (int i = 0; i < 4; ++i) far.clip_from_world[4 * i + 0] *= 2.0f, far.clip_from_world[4 * i + 1] *= 2.0f,
                                far.clip_from_world[4 * i + 3] *= 2.0f; /* same screen position, w = 2 */
    pixel_to_world(2, 4.5f, seg);
    pixel_to_world(14, 4.5f, seg + 3);
    sf_raster_draw_lines(&far, seg, 1, 1.0f, white, 1);
    CHECK(pixel(&f.image, 8, 4)[0] == 128);
    sf_raster_draw_lines(&far, seg, 1, 1.0f, white, 0);
    CHECK(pixel(&f.image, 8, 4)[0] == 255);
    sf_image_free(&f.image, NULL);
}

/* A small synthetic four-view: the colour bar is present (green, yellow, red along it), zero error
 * shades green, output is deterministic and survives a PNG round trip. */
static void test_fourview_colorbar(void)
{
    /* A 2x2-quad patch in y = 0, normals up, tangents along x. */
    float pos[27], nrm[27], tan4[36], uv[18];
    uint32_t idx[24];
    for (int j = 0, v = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i, ++v) {
            pos[3 * v] = (float)i - 1.0f, pos[3 * v + 1] = 0.0f, pos[3 * v + 2] = (float)j - 1.0f;
            nrm[3 * v] = 0.0f, nrm[3 * v + 1] = 1.0f, nrm[3 * v + 2] = 0.0f;
            tan4[4 * v] = 1.0f, tan4[4 * v + 1] = 0.0f, tan4[4 * v + 2] = 0.0f, tan4[4 * v + 3] = 1.0f;
            uv[2 * v] = (float)i * 0.5f, uv[2 * v + 1] = (float)j * 0.5f;
        }
    for (int j = 0, t = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i, ++t) {
            uint32_t a = (uint32_t)(j * 3 + i), b = a + 1, c = a + 3, d = a + 4;
            uint32_t q[6] = {a, c, b, b, c, d}; /* counter-clockwise seen from +y */
            memcpy(idx + 6 * t, q, sizeof q);
        }
    float zero[9] = {0}, tan_err[9];
    for (int v = 0; v < 9; ++v) tan_err[v] = 60.0f;
    sf_fourview_desc d;
    memset(&d, 0, sizeof d);
    d.vertex_count = 9;
    d.triangle_count = 8;
    d.indices = idx;
    d.positions = pos;
    d.uvs = uv;
    d.method_normals = d.reference_normals = nrm;
    d.method_tangents = d.reference_tangents = tan4;
    d.normal_error_deg = zero;
    d.tangent_error_deg = tan_err;
    d.tangent_stats.mean = d.tangent_stats.max = 60.0;
    d.method_name = "test";
    const float center[3] = {0, 0, 0};
    d.camera = sf_camera_frame(center, 1.5f);
    d.camera.pitch_deg = 60.0f;
    d.shading.material = SF_MATERIAL_NORMAL_MAP;
    d.show_vectors = 1;
    sf_image img, again;
    CHECK_OK(sf_image_alloc(320, 240, NULL, &img, NULL));
    CHECK_OK(sf_image_alloc(320, 240, NULL, &again, NULL));
    CHECK_OK(sf_fourview_render(&d, NULL, &img, NULL));
    CHECK_OK(sf_fourview_render(&d, NULL, &again, NULL));
    CHECK(memcmp(img.rgb, again.rgb, 320 * 240 * 3) == 0);
    for (int view = 2; view < 4; ++view) {
        int r[4];
        sf_fourview_colorbar_rect(320, 240, view, r);
        int cy = r[1] + r[3] / 2;
        const uint8_t* left = pixel(&img, r[0] + 1, cy);
        const uint8_t* mid = pixel(&img, r[0] + r[2] / 2, cy);
        const uint8_t* right = pixel(&img, r[0] + r[2] - 2, cy);
        CHECK(left[0] < 30 && left[1] > 240 && left[2] < 10);
        CHECK(mid[0] > 240 && mid[1] > 240 && mid[2] < 10);
        CHECK(right[0] > 240 && right[1] < 30 && right[2] < 10);
    }
    /* Centre of the normal-error view: the patch, zero error, green; of the tangent view: red. */
    int v2[4], v3[4];
    sf_fourview_view_rect(320, 240, 2, v2);
    sf_fourview_view_rect(320, 240, 3, v3);
    const uint8_t* g = pixel(&img, v2[0] + v2[2] / 2, v2[1] + v2[3] / 2);
    CHECK(g[1] > 140 && g[0] < 20 && g[2] < 20);
    const uint8_t* rr = pixel(&img, v3[0] + v3[2] / 2, v3[1] + v3[3] / 2);
    CHECK(rr[0] > 140 && rr[1] < 20 && rr[2] < 20);

    uint8_t* png = NULL;
    size_t size = 0;
    CHECK_OK(sf_image_encode_png(&img, NULL, &png, &size, NULL));
    CHECK(size > 8 && memcmp(png, "\x89PNG", 4) == 0);
    int w = 0, h = 0, comp = 0;
    unsigned char* back = stbi_load_from_memory(png, (int)size, &w, &h, &comp, 3);
    CHECK(back && w == 320 && h == 240);
    CHECK(memcmp(back, img.rgb, 320 * 240 * 3) == 0);
    stbi_image_free(back);
    sf_png_free(NULL, png, size);
    sf_image_free(&img, NULL);
    sf_image_free(&again, NULL);
}

static void test_plot(void)
{
    sf_image img;
    CHECK_OK(sf_image_alloc(480, 320, NULL, &img, NULL));
    const double x[4] = {0, 60, 120, 180}, y1[4] = {0, 10, 20, 30}, y2[4] = {0, 5, 30, 45};
    sf_plot_series s[2];
    memset(s, 0, sizeof s);
    s[0].name = "first";
    s[0].x = x, s[0].y = y1, s[0].count = 4;
    s[0].rgb[0] = 200;
    s[1].name = "second";
    s[1].x = x, s[1].y = y2, s[1].count = 4, s[1].dashed = 1;
    s[1].rgb[2] = 200;
    sf_plot_desc d;
    memset(&d, 0, sizeof d);
    d.title = "title";
    d.x_label = "twist (deg)";
    d.y_label = "error (deg)";
    d.series = s;
    d.series_count = 2;
    CHECK_OK(sf_plot_render(&d, &img, 0, 0, 480, 320, NULL));
    int red = 0, blue = 0;
    for (int i = 0; i < 480 * 320; ++i) {
        const uint8_t* p = img.rgb + 3 * i;
        red += p[0] > 150 && p[1] < 100 && p[2] < 100;
        blue += p[2] > 150 && p[0] < 100 && p[1] < 100;
    }
    CHECK(red > 100 && blue > 50);
    CHECK_RESULT(sf_plot_render(&d, &img, 0, 0, 100, 50, NULL), SF_ERROR_INVALID_ARGUMENT);

    /* Values whose magnitude swallows the tick step (a flat series at -1e20, one x at 1e20) used to make the
     * tick loops spin for ever; an empty fixed y range is refused. */
    const double far_x[2] = {1e20, 1e20}, far_y[2] = {-1e20, -1e20};
    sf_plot_series flat;
    memset(&flat, 0, sizeof flat);
    flat.x = far_x, flat.y = far_y, flat.count = 2;
    d.series = &flat;
    d.series_count = 1;
    CHECK_OK(sf_plot_render(&d, &img, 0, 0, 480, 320, NULL));
    d.y_min = d.y_max = 5.0;
    CHECK_RESULT(sf_plot_render(&d, &img, 0, 0, 480, 320, NULL), SF_ERROR_INVALID_ARGUMENT);
    d.y_min = 0.0, d.y_max = 1e-300;
    CHECK_OK(sf_plot_render(&d, &img, 0, 0, 480, 320, NULL));
    sf_image_free(&img, NULL);
}

static void test_normalmap(void)
{
    float n[3];
    sf_normalmap_sample(SF_NORMALMAP_BUMPS, 1.0f, 1.0f, 0.5f, 0.5f, n); /* bump top: flat */
    CHECK_NEAR(n[2], 1.0, 1e-6);
    sf_normalmap_sample(SF_NORMALMAP_BUMPS, 1.0f, 1.0f, 0.7f, 0.5f, n); /* right flank leans to +u */
    CHECK(n[0] > 0.1f && fabsf(n[1]) < 1e-6f);
    CHECK_NEAR(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1.0, 1e-5);
    sf_normalmap_sample(SF_NORMALMAP_BUMPS, 1.0f, 1.0f, 0.5f, 0.7f, n); /* lower flank (larger v) faces down: -Y */
    CHECK(n[1] < -0.1f && fabsf(n[0]) < 1e-6f);
    sf_normalmap_sample(SF_NORMALMAP_BRICKS, 1.0f, 1.0f, 0.5f, 0.25f, n); /* brick face: flat */
    CHECK_NEAR(n[2], 1.0, 1e-6);
    sf_normalmap_sample(SF_NORMALMAP_BRICKS, 1.0f, 1.0f, 0.06f, 0.25f, n); /* left bevel faces -u */
    CHECK(n[0] < -0.1f);
}

/* The camera fit: every point inside the asked share of the view, and tight (one point near the edge). */
static void test_camera_fit(void)
{
    float pts[3 * 64];
    uint32_t seed = 12345u;
    for (int i = 0; i < 3 * 64; ++i) {
        seed = seed * 1664525u + 1013904223u;
        pts[i] = (float)(seed >> 8) / 16777216.0f * 4.0f - 2.0f + (i % 3 == 0 ? 10.0f : 0.0f);
    }
    sf_camera cam;
    memset(&cam, 0, sizeof cam);
    cam.yaw_deg = 40.0f;
    cam.pitch_deg = 20.0f;
    sf_camera_fit(&cam, pts, 64, 1.5f, 0.8f);
    CHECK(cam.distance > 0.0f);
    CHECK(cam.target[0] > 8.0f && cam.target[0] < 12.0f); /* the bounding-box centre */
    float m[16], worst = 0.0f;
    sf_camera_matrix(&cam, 1.5f, m);
    for (int i = 0; i < 64; ++i) {
        const float* p = pts + 3 * i;
        float c[4];
        for (int k = 0; k < 4; ++k) c[k] = m[k] * p[0] + m[4 + k] * p[1] + m[8 + k] * p[2] + m[12 + k];
        CHECK(c[3] > 0.0f);
        worst = fmaxf(worst, fmaxf(fabsf(c[0]), fabsf(c[1])) / c[3]);
    }
    CHECK(worst <= 0.8f + 1e-4f);
    CHECK(worst >= 0.79f);
}

/* Blit shrinks by box filtering; PNG round trip of noise and long runs through the run-length deflate. */
static void test_blit_and_png(void)
{
    sf_image src, dst;
    CHECK_OK(sf_image_alloc(4, 2, NULL, &src, NULL));
    CHECK_OK(sf_image_alloc(3, 2, NULL, &dst, NULL));
    const uint8_t a[3] = {0, 100, 200}, b[3] = {100, 200, 0};
    sf_image_fill_rect(&src, 0, 0, 2, 2, a);
    sf_image_fill_rect(&src, 1, 0, 1, 1, b); /* one of the four pixels of the first block differs */
    sf_image_blit(&dst, 1, 0, &src, 2);
    const uint8_t* p = pixel(&dst, 1, 0);
    CHECK(p[0] == 25 && p[1] == 125 && p[2] == 150);
    CHECK(pixel(&dst, 0, 0)[0] == 0 && pixel(&dst, 0, 1)[0] == 0); /* untouched */
    sf_image_free(&src, NULL);
    sf_image_free(&dst, NULL);

    sf_image img;
    CHECK_OK(sf_image_alloc(300, 40, NULL, &img, NULL));
    uint32_t seed = 7u;
    for (size_t i = 0; i < 300 * 20 * 3; ++i) {
        seed = seed * 1103515245u + 12345u;
        img.rgb[i] = (uint8_t)(seed >> 16); /* noise: every literal code length */
    }
    const uint8_t grey[3] = {77, 77, 77};
    sf_image_fill_rect(&img, 0, 20, 300, 20, grey); /* runs longer than 258 bytes */
    uint8_t* png = NULL;
    size_t size = 0;
    CHECK_OK(sf_image_encode_png(&img, NULL, &png, &size, NULL));
    int w = 0, h = 0, comp = 0;
    unsigned char* back = stbi_load_from_memory(png, (int)size, &w, &h, &comp, 3);
    CHECK(back && w == 300 && h == 40);
    CHECK(memcmp(back, img.rgb, 300 * 40 * 3) == 0);
    stbi_image_free(back);
    sf_png_free(NULL, png, size);
    sf_image_free(&img, NULL);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"heatmap_colors", test_heatmap_colors},
        {"triangle_covers_known_pixels", test_triangle_covers_known_pixels},
        {"shared_edge_drawn_once", test_shared_edge_drawn_once},
        {"depth_order", test_depth_order},
        {"perspective_correct_interpolation", test_perspective_correct_interpolation},
        {"back_face_flips_normal", test_back_face_flips_normal},
        {"bad_input", test_bad_input},
        {"text_and_lines", test_text_and_lines},
        {"line_depth", test_line_depth},
        {"fourview_colorbar", test_fourview_colorbar},
        {"plot", test_plot},
        {"normalmap", test_normalmap},
        {"camera_fit", test_camera_fit},
        {"blit_and_png", test_blit_and_png},
    };
    return SFT_RUN(cases, argc, argv);
}

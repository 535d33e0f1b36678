/*
 * skinframe pictures: a small deterministic software rasterizer, the article's four views (method,
 * reference, normal-error and tangent-error heatmaps), line charts, a bitmap font and PNG output.
 * Layer: depends on the core (skinframe.h) and the files layer; the only layer that encodes PNG (stb, zlib).
 * Library skinframe_render (CMake skinframe::render).
 */
#ifndef SKINFRAME_RENDER_H
#define SKINFRAME_RENDER_H

#include "skinframe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- rendering */
/* A small deterministic software renderer for the article's four-view pictures and for plots.
 * Everything is serial and single-threaded: the same input gives the same bytes. Functions take
 * plain caller arrays (not sf_scene), so glTF meshes render the same way as built-in scenes. */

/* An 8-bit RGB image, rows top to bottom, 3 * width bytes per row. */
typedef struct sf_image {
    int width, height;
    uint8_t* rgb;
} sf_image;

/* Allocates width * height pixels (filled black) through env's allocator; free with sf_image_free and the same env. */
sf_result sf_image_alloc(int width, int height, const sf_env* env, sf_image* out, sf_error* err);
void sf_image_free(sf_image* image, const sf_env* env);
/* Fills the rectangle (clipped to the image). */
void sf_image_fill_rect(sf_image* image, int x, int y, int width, int height, const uint8_t rgb[3]);
/* Blends rgb over pixel (x, y) with coverage in [0, 1]; outside the image does nothing. */
void sf_image_blend_pixel(sf_image* image, int x, int y, const uint8_t rgb[3], float coverage);
/* Anti-aliased line of width_px between pixel coordinates (pixel centres at +0.5). */
void sf_image_draw_line(sf_image* image, float x0, float y0, float x1, float y1, float width_px, const uint8_t rgb[3]);
/* Anti-aliased filled disc. */
void sf_image_draw_disc(sf_image* image, float cx, float cy, float radius_px, const uint8_t rgb[3]);
/* Built-in 5x7 bitmap font (ASCII 32..126 and the UTF-8 degree sign), each pixel a scale x scale block,
 * 6 * scale advance per character. (x, y) is the top-left corner. Returns the width drawn. */
int sf_image_draw_text(sf_image* image, int x, int y, int scale, const uint8_t rgb[3], const char* text);
int sf_text_width(const char* text, int scale);  /* 6 * scale per character, less the last gap */
int sf_text_height(int scale);                   /* 7 * scale */
/* Copies src into dst at (x, y), shrunk by an integer factor >= 1 (box filter); clipped to dst. */
void sf_image_blit(sf_image* dst, int x, int y, const sf_image* src, int factor);
/* PNG bytes (stb_image_write, deterministic). *data is allocated with env's allocator: free with
 * sf_png_free(env, *data, *size). */
sf_result sf_image_encode_png(const sf_image* image, const sf_env* env, uint8_t** data, size_t* size, sf_error* err);
void sf_png_free(const sf_env* env, uint8_t* data, size_t size);
/* Writes a PNG atomically (temporary file in the same folder, then rename). */
sf_result sf_image_write_png(const sf_image* image, const char* path, const sf_env* env, sf_error* err);

/* An orbit camera around a target, +Y up. yaw turns around +Y (0 = camera on the +Z side looking
 * towards -Z, 90 = camera on +X), pitch raises it above the XZ plane. */
typedef struct sf_camera {
    float target[3];
    float yaw_deg, pitch_deg;
    float distance;  /* > 0 */
    float fov_y_deg; /* 0 = 35 */
} sf_camera;

/* A camera framing a sphere (center, radius) from yaw -35, pitch 30. */
sf_camera sf_camera_frame(const float center[3], float radius);
/* Keeps yaw, pitch and fov; moves the target to the points' bounding-box centre and sets the distance
 * so every point projects inside `fill` (0 = 0.9) of the view in both directions at this aspect. */
void sf_camera_fit(sf_camera* cam, const float* positions, size_t count, float aspect, float fill);
/* Column-major 4x4 clip_from_world (column vectors, OpenGL clip space: visible x, y, z in [-w, w]). */
void sf_camera_matrix(const sf_camera* cam, float aspect, float clip_from_world[16]);
void sf_camera_position(const sf_camera* cam, float out[3]);
/* The renderer's fixed light for this camera: a unit vector towards a light above, left and behind the viewer. */
void sf_camera_light_dir(const sf_camera* cam, float out[3]);

/* Where a render goes: a rectangle of an image with its own depth buffer. */
typedef struct sf_viewport {
    sf_image* image;
    float* depth;                /* width * height floats, caller scratch; sf_viewport_clear resets it */
    int x, y, width, height;     /* inside image */
    float clip_from_world[16];   /* NDC (-1,-1) is the rectangle's bottom-left corner, (1,1) top-right */
} sf_viewport;

/* Fills the rectangle with rgb and empties the depth buffer. */
void sf_viewport_clear(const sf_viewport* vp, const uint8_t rgb[3]);
/* World point to viewport pixel coordinates (x right, y down, pixel centres at +0.5) and 1/w;
 * returns 0 when the point is behind the near plane. */
int sf_viewport_project(const sf_viewport* vp, const float p[3], float out_xy_invw[3]);

/* How a surface is shaded. */
#define SF_MATERIALS(X)                                                                              \
    X(SF_MATERIAL_LAMBERT, "lambert", "per-pixel Lambert with the interpolated vertex normals")      \
    X(SF_MATERIAL_FLAT, "flat", "Lambert with each triangle's own normal (facets, ignores vertex normals)") \
    X(SF_MATERIAL_NORMAL_MAP, "normal-map", "Lambert with a procedural normal map through the tangent frame") \
    X(SF_MATERIAL_NORMALS, "normals", "the interpolated normal as a colour (0.5 + 0.5 n)")          \
    X(SF_MATERIAL_UNLIT, "unlit", "the vertex colours as they are")

typedef enum sf_material {
#define SF_MATERIAL_ENUM_(id, name, text) id,
    SF_MATERIALS(SF_MATERIAL_ENUM_)
#undef SF_MATERIAL_ENUM_
    SF_MATERIAL_COUNT
} sf_material;

const char* sf_material_name(sf_material material); /* "?" when out of range */
sf_result sf_material_parse(const char* name, sf_material* out);

/* Procedural tangent-space normal maps (src/render/normalmap.c). */
typedef enum sf_normalmap_kind {
    SF_NORMALMAP_BUMPS = 0, /* default: a grid of round bumps */
    SF_NORMALMAP_BRICKS     /* bricks with bevelled mortar grooves */
} sf_normalmap_kind;

/* Tangent-space normal at uv, unit length, as an image texture in glTF's convention: x along the tangent
 * (+u), y along the bitangent w * cross(n, t) = "up" in the image (towards -v, v grows downward), z along
 * the normal. scale = repeats per UV unit (0 = 8), strength = slope factor (0 = 1). */
void sf_normalmap_sample(sf_normalmap_kind kind, float scale, float strength, float u, float v, float out[3]);

typedef struct sf_raster_mesh {
    size_t vertex_count, triangle_count;
    const uint32_t* indices; /* 3 * triangle_count */
    const float* positions;  /* float3, required */
    const float* normals;    /* float3; required by lambert, normal-map and normals */
    const float* tangents;   /* float4 (w = handedness); required by normal-map */
    const float* uvs;        /* float2; required by normal-map */
    const float* colors;     /* float3 albedo in [0, 1] per vertex; NULL = opts base colour */
} sf_raster_mesh;

typedef struct sf_raster_opts {
    sf_material material;
    float light_dir[3];    /* towards the light, world space; zero = (0, 0, 1) */
    float ambient;         /* 0 = 0.3; share of light that ignores the normal */
    float base_color[3];   /* zero = (0.78, 0.76, 0.72) */
    sf_normalmap_kind normal_map;
    float normal_map_scale, normal_map_strength; /* see sf_normalmap_sample */
} sf_raster_opts; /* zero = defaults */

/* Draws triangles with a z-buffer and perspective-correct interpolation. Triangles facing away are drawn
 * with their normals flipped (two-sided sheets). Zero normals shade as ambient only. Does not allocate.
 * Errors: missing streams, indices out of range. */
sf_result sf_raster_draw_mesh(const sf_viewport* vp, const sf_raster_mesh* mesh, const sf_raster_opts* opts,
                              sf_error* err);

/* Anti-aliased segments (endpoints: float3 pairs, 6 floats per segment) and dots (float3 each).
 * depth_test = 1 hides them behind drawn surfaces (small bias so lines on a surface stay visible). */
void sf_raster_draw_lines(const sf_viewport* vp, const float* endpoints, size_t segment_count, float width_px,
                          const uint8_t rgb[3], int depth_test);
void sf_raster_draw_dots(const sf_viewport* vp, const float* points, size_t count, float radius_px,
                         const uint8_t rgb[3], int depth_test);

/* The article's four views of one method against the reference (src/render/fourview.c): top-left the method's
 * shading, top-right the reference's (same vertices and camera), bottom-left the normal error heatmap,
 * bottom-right the tangent error heatmap (sf_heatmap_color per vertex, interpolated), with titles, a
 * colour bar with degree ticks and the mean/max error in each heatmap. */
typedef struct sf_fourview_desc {
    size_t vertex_count, triangle_count;
    const uint32_t* indices;
    const float* positions;          /* float3 final positions, shared by the four views */
    const float* uvs;                /* float2, NULL = no tangent frame (normal-map falls back to lambert) */
    const float* method_normals;     /* float3 */
    const float* method_tangents;    /* float4, NULL when no tangent frame */
    const float* reference_normals;  /* float3 */
    const float* reference_tangents; /* float4, NULL when no tangent frame */
    const float* normal_error_deg;   /* per vertex */
    const float* tangent_error_deg;  /* per vertex, NULL = no tangent frame */
    sf_angle_stats normal_stats, tangent_stats; /* printed (mean, max) */
    const char* method_name;         /* NULL = "method" */
    const char* reference_name;      /* NULL = "recompute" */
    const char* caption;             /* optional footer of the top-left view (scene, preset): wrapped onto two
                                        lines when too wide (one line with show_vectors, which takes the second) */
    const char* reference_settings;  /* optional footer line of the top-right view ("weld none, tangents uv") */
    sf_camera camera;
    int fit_camera;                  /* 1 = sf_camera_fit to the positions first (keeps yaw, pitch, fov) */
    sf_raster_opts shading;          /* material etc. of the two top views */
    int show_vectors;                /* normals (gold) and tangents (cyan) at vertices in the top views */
    float vector_length;             /* world units; 0 = camera distance / 30 */
    size_t vector_stride;            /* every n-th vertex; 0 = enough to draw at most about 200 */
    const float* bone_heads;         /* float3 * bone_count, NULL = no rig */
    const float* bone_tails;
    size_t bone_count;
    int supersample;                 /* 0 = 2: render at 2x and shrink (smooth edges); 1 = off */
} sf_fourview_desc;

/* Renders into image (allocated by the caller, at least 64 x 48). Allocates scratch through env. */
sf_result sf_fourview_render(const sf_fourview_desc* desc, const sf_env* env, sf_image* image, sf_error* err);
/* Layout: view 0..3 (method, reference, normal error, tangent error) rectangle {x, y, w, h} and the colour
 * bar of a heatmap view (2 or 3) inside an image of this size, left end 0 degrees, right end 45. */
void sf_fourview_view_rect(int width, int height, int view, int rect[4]);
void sf_fourview_colorbar_rect(int width, int height, int view, int rect[4]);
/* The 3D area of a view (the view without its title and colour-bar bands): the mesh is drawn there through
 * sf_camera_matrix of the fitted camera at this rectangle's aspect, supersampled and shrunk into it. */
void sf_fourview_scene_rect(int width, int height, int view, int rect[4]);

/* Line chart (src/render/plot.c). */
typedef struct sf_plot_series {
    const char* name; /* legend entry; NULL = not in the legend */
    const double* x;
    const double* y;
    size_t count;
    uint8_t rgb[3];
    int dashed;
} sf_plot_series;

typedef struct sf_plot_desc {
    const char* title;
    const char* x_label;
    const char* y_label;
    const char* note;          /* optional line under the legend, e.g. "solid: mean, dashed: max" */
    const sf_plot_series* series;
    size_t series_count;
    double y_min, y_max;       /* both 0 = from the data (from 0 when all data >= 0) */
} sf_plot_desc;

/* Draws the chart into the rectangle (x, y, width, height) of image: axes, ticks, labels, legend. */
sf_result sf_plot_render(const sf_plot_desc* desc, sf_image* image, int x, int y, int width, int height,
                         sf_error* err);

/* Heatmap colour: 0 degrees green, 22.5 yellow, >= 45 red. rgb in [0, 1]. */
void sf_heatmap_color(double angle_deg, float rgb[3]);

#ifdef __cplusplus
}
#endif

#endif /* SKINFRAME_RENDER_H */

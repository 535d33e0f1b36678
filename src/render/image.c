/* RGB images: allocation, rectangles, anti-aliased lines and discs, shrinking blits. */
#include "sf_common.h"
#include "skinframe_render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- images */

sf_result sf_image_alloc(int width, int height, const sf_env* env, sf_image* out, sf_error* err)
{
    SF_CHECK(out, SF_ERROR_INVALID_ARGUMENT, err, "image", SFI_NO_INDEX, "NULL output");
    memset(out, 0, sizeof *out);
    SF_CHECK(width > 0 && height > 0 && width <= 16384 && height <= 16384, SF_ERROR_INVALID_ARGUMENT, err,
             "image.size", SFI_NO_INDEX, "%dx%d is outside 1x1 .. 16384x16384", width, height);
    sf_env e = sf_env_defaults(env);
    uint8_t* rgb = (uint8_t*)sf_env_calloc(&e, (size_t)width * (size_t)height, 3);
    SF_CHECK(rgb, SF_ERROR_OUT_OF_MEMORY, err, "image", SFI_NO_INDEX, "%dx%d pixels", width, height);
    out->width = width;
    out->height = height;
    out->rgb = rgb;
    return SF_OK;
}

void sf_image_free(sf_image* image, const sf_env* env)
{
    if (!image || !image->rgb) return;
    sf_env e = sf_env_defaults(env);
    sf_env_free(&e, image->rgb, (size_t)image->width * (size_t)image->height * 3);
    image->rgb = NULL;
    image->width = image->height = 0;
}

void sf_image_fill_rect(sf_image* image, int x, int y, int width, int height, const uint8_t rgb[3])
{
    if (!image || !image->rgb) return;
    int x0 = x < 0 ? 0 : x, y0 = y < 0 ? 0 : y;
    int x1 = x + width > image->width ? image->width : x + width;
    int y1 = y + height > image->height ? image->height : y + height;
    for (int j = y0; j < y1; ++j) {
        uint8_t* row = image->rgb + ((size_t)j * (size_t)image->width + (size_t)x0) * 3;
        for (int i = x0; i < x1; ++i, row += 3) {
            row[0] = rgb[0];
            row[1] = rgb[1];
            row[2] = rgb[2];
        }
    }
}

void sf_image_blend_pixel(sf_image* image, int x, int y, const uint8_t rgb[3], float coverage)
{
    if (!image || !image->rgb || x < 0 || y < 0 || x >= image->width || y >= image->height) return;
    if (!(coverage > 0.0f)) return;
    if (coverage > 1.0f) coverage = 1.0f;
    uint8_t* p = image->rgb + ((size_t)y * (size_t)image->width + (size_t)x) * 3;
    for (int c = 0; c < 3; ++c) {
        float v = (float)p[c] + ((float)rgb[c] - (float)p[c]) * coverage;
        p[c] = (uint8_t)(v + 0.5f);
    }
}

/* Distance from (px, py) to the segment (x0, y0)-(x1, y1). */
static float segment_distance(float px, float py, float x0, float y0, float x1, float y1)
{
    float dx = x1 - x0, dy = y1 - y0;
    float len2 = dx * dx + dy * dy;
    float t = len2 > 0.0f ? ((px - x0) * dx + (py - y0) * dy) / len2 : 0.0f;
    if (t < 0.0f) t = 0.0f;
    if (t > 1.0f) t = 1.0f;
    float ex = px - (x0 + t * dx), ey = py - (y0 + t * dy);
    return sqrtf(ex * ex + ey * ey);
}

void sf_image_draw_line(sf_image* image, float x0, float y0, float x1, float y1, float width_px, const uint8_t rgb[3])
{
    if (!image || !image->rgb) return;
    if (!isfinite(x0) || !isfinite(y0) || !isfinite(x1) || !isfinite(y1) || !(width_px > 0.0f)) return;
    float half = 0.5f * width_px;
    float pad = half + 1.0f;
    float fx0 = fminf(x0, x1) - pad, fx1 = fmaxf(x0, x1) + pad;
    float fy0 = fminf(y0, y1) - pad, fy1 = fmaxf(y0, y1) + pad;
    if (fx1 < 0.0f || fy1 < 0.0f || fx0 > (float)image->width || fy0 > (float)image->height) return;
    int ix0 = fx0 < 0.0f ? 0 : (int)fx0, iy0 = fy0 < 0.0f ? 0 : (int)fy0;
    int ix1 = fx1 >= (float)image->width ? image->width - 1 : (int)fx1;
    int iy1 = fy1 >= (float)image->height ? image->height - 1 : (int)fy1;
    for (int y = iy0; y <= iy1; ++y)
        for (int x = ix0; x <= ix1; ++x) {
            /* Coverage falls off linearly over one pixel around the line's edge. */
            float d = segment_distance((float)x + 0.5f, (float)y + 0.5f, x0, y0, x1, y1);
            float cov = half + 0.5f - d;
            if (width_px < 1.0f) cov *= width_px; /* thin lines fade instead of vanishing */
            sf_image_blend_pixel(image, x, y, rgb, cov);
        }
}

void sf_image_draw_disc(sf_image* image, float cx, float cy, float radius_px, const uint8_t rgb[3])
{
    sf_image_draw_line(image, cx, cy, cx, cy, 2.0f * radius_px, rgb);
}

void sf_image_blit(sf_image* dst, int x, int y, const sf_image* src, int factor)
{
    if (!dst || !dst->rgb || !src || !src->rgb || factor < 1) return;
    int w = src->width / factor, h = src->height / factor;
    int area = factor * factor;
    for (int j = 0; j < h; ++j) {
        int ty = y + j;
        if (ty < 0 || ty >= dst->height) continue;
        for (int i = 0; i < w; ++i) {
            int tx = x + i;
            if (tx < 0 || tx >= dst->width) continue;
            unsigned sum[3] = {0, 0, 0};
            for (int sy = 0; sy < factor; ++sy) {
                const uint8_t* s = src->rgb + ((size_t)(j * factor + sy) * (size_t)src->width + (size_t)(i * factor)) * 3;
                for (int sx = 0; sx < factor; ++sx, s += 3) {
                    sum[0] += s[0];
                    sum[1] += s[1];
                    sum[2] += s[2];
                }
            }
            uint8_t* d = dst->rgb + ((size_t)ty * (size_t)dst->width + (size_t)tx) * 3;
            for (int c = 0; c < 3; ++c) d[c] = (uint8_t)((sum[c] + (unsigned)area / 2) / (unsigned)area);
        }
    }
}

/* RGB images: rectangles, anti-aliased lines and discs, a built-in 5x7 bitmap font, PNG output. */
#define _POSIX_C_SOURCE 200809L
#include "sf_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* ---------------------------------------------------------------- deflate for the PNG writer */

/* stb_image_write's own zlib searches long hash chains, which dominates the time of a picture (and of the
 * tests under the sanitizers). zlib (Debian's zlib1g-dev) at its fastest level is several times quicker at
 * a similar size, and deterministic for the same input and library version. */
static unsigned char* png_deflate(unsigned char* data, int data_len, int* out_len, int quality)
{
    (void)quality;
    uLong bound = compressBound((uLong)data_len);
    unsigned char* out = (unsigned char*)malloc(bound); /* stb frees it with free() (STBIW_FREE) */
    if (!out) return NULL;
    uLongf len = bound;
    if (compress2(out, &len, data, (uLong)data_len, Z_BEST_SPEED) != Z_OK) {
        free(out);
        return NULL;
    }
    *out_len = (int)len;
    return out;
}

/* stb_image_write is Debian's libstb-dev; static so its symbols stay private to this file. */
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBIW_ZLIB_COMPRESS png_deflate
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#include <stb/stb_image_write.h>
#pragma GCC diagnostic pop

/* ---------------------------------------------------------------- images */

sf_result sf_image_alloc(int width, int height, const sf_env* env, sf_image* out, sf_error* err)
{
    SF_CHECK(out, SF_ERROR_INVALID_ARGUMENT, err, "image", SFI_NO_INDEX, "NULL output");
    memset(out, 0, sizeof *out);
    SF_CHECK(width > 0 && height > 0 && width <= 16384 && height <= 16384, SF_ERROR_INVALID_ARGUMENT, err,
             "image.size", SFI_NO_INDEX, "%dx%d is outside 1x1 .. 16384x16384", width, height);
    sf_env e = sfi_env_resolve(env);
    uint8_t* rgb = (uint8_t*)sfi_calloc(&e, (size_t)width * (size_t)height, 3);
    SF_CHECK(rgb, SF_ERROR_OUT_OF_MEMORY, err, "image", SFI_NO_INDEX, "%dx%d pixels", width, height);
    out->width = width;
    out->height = height;
    out->rgb = rgb;
    return SF_OK;
}

void sf_image_free(sf_image* image, const sf_env* env)
{
    if (!image || !image->rgb) return;
    sf_env e = sfi_env_resolve(env);
    sfi_free(&e, image->rgb, (size_t)image->width * (size_t)image->height * 3);
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

/* ---------------------------------------------------------------- font */

/* 5x7 glyphs for ASCII 32..126, then the degree sign (index 95). One byte per row, top row first;
 * bit 4 is the leftmost column. g, p, q and y are drawn two rows lower (descenders below the cell). */
#define FONT_FIRST 32
#define FONT_DEGREE 95
static const uint8_t font5x7[96][7] = {
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, /* space */
    {0x04, 0x04, 0x04, 0x04, 0x04, 0x00, 0x04}, /* ! */
    {0x0A, 0x0A, 0x0A, 0x00, 0x00, 0x00, 0x00}, /* " */
    {0x0A, 0x0A, 0x1F, 0x0A, 0x1F, 0x0A, 0x0A}, /* # */
    {0x04, 0x0F, 0x14, 0x0E, 0x05, 0x1E, 0x04}, /* $ */
    {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03}, /* % */
    {0x0C, 0x12, 0x14, 0x08, 0x15, 0x12, 0x0D}, /* & */
    {0x0C, 0x04, 0x08, 0x00, 0x00, 0x00, 0x00}, /* ' */
    {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02}, /* ( */
    {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08}, /* ) */
    {0x00, 0x04, 0x15, 0x0E, 0x15, 0x04, 0x00}, /* * */
    {0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00}, /* + */
    {0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08}, /* , */
    {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00}, /* - */
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C}, /* . */
    {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00}, /* / */
    {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}, /* 0 */
    {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}, /* 1 */
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}, /* 2 */
    {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}, /* 3 */
    {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}, /* 4 */
    {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}, /* 5 */
    {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}, /* 6 */
    {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}, /* 7 */
    {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}, /* 8 */
    {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}, /* 9 */
    {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00}, /* : */
    {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x04, 0x08}, /* ; */
    {0x02, 0x04, 0x08, 0x10, 0x08, 0x04, 0x02}, /* < */
    {0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00}, /* = */
    {0x08, 0x04, 0x02, 0x01, 0x02, 0x04, 0x08}, /* > */
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04}, /* ? */
    {0x0E, 0x11, 0x01, 0x0D, 0x15, 0x15, 0x0E}, /* @ */
    {0x0E, 0x11, 0x11, 0x11, 0x1F, 0x11, 0x11}, /* A */
    {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E}, /* B */
    {0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E}, /* C */
    {0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C}, /* D */
    {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F}, /* E */
    {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10}, /* F */
    {0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F}, /* G */
    {0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}, /* H */
    {0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E}, /* I */
    {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C}, /* J */
    {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11}, /* K */
    {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F}, /* L */
    {0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11}, /* M */
    {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11}, /* N */
    {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}, /* O */
    {0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10}, /* P */
    {0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D}, /* Q */
    {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11}, /* R */
    {0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E}, /* S */
    {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}, /* T */
    {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}, /* U */
    {0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04}, /* V */
    {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A}, /* W */
    {0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11}, /* X */
    {0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04}, /* Y */
    {0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F}, /* Z */
    {0x0E, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0E}, /* [ */
    {0x00, 0x10, 0x08, 0x04, 0x02, 0x01, 0x00}, /* backslash */
    {0x0E, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0E}, /* ] */
    {0x04, 0x0A, 0x11, 0x00, 0x00, 0x00, 0x00}, /* ^ */
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F}, /* _ */
    {0x08, 0x04, 0x02, 0x00, 0x00, 0x00, 0x00}, /* ` */
    {0x00, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F}, /* a */
    {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x1E}, /* b */
    {0x00, 0x00, 0x0E, 0x10, 0x10, 0x11, 0x0E}, /* c */
    {0x01, 0x01, 0x0D, 0x13, 0x11, 0x11, 0x0F}, /* d */
    {0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E}, /* e */
    {0x06, 0x09, 0x08, 0x1C, 0x08, 0x08, 0x08}, /* f */
    {0x0F, 0x11, 0x11, 0x11, 0x0F, 0x01, 0x0E}, /* g (descender) */
    {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11}, /* h */
    {0x04, 0x00, 0x0C, 0x04, 0x04, 0x04, 0x0E}, /* i */
    {0x02, 0x00, 0x06, 0x02, 0x02, 0x12, 0x0C}, /* j */
    {0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12}, /* k */
    {0x0C, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E}, /* l */
    {0x00, 0x00, 0x1A, 0x15, 0x15, 0x11, 0x11}, /* m */
    {0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11}, /* n */
    {0x00, 0x00, 0x0E, 0x11, 0x11, 0x11, 0x0E}, /* o */
    {0x1E, 0x11, 0x11, 0x11, 0x1E, 0x10, 0x10}, /* p (descender) */
    {0x0F, 0x11, 0x11, 0x11, 0x0F, 0x01, 0x01}, /* q (descender) */
    {0x00, 0x00, 0x16, 0x19, 0x10, 0x10, 0x10}, /* r */
    {0x00, 0x00, 0x0E, 0x10, 0x0E, 0x01, 0x1E}, /* s */
    {0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06}, /* t */
    {0x00, 0x00, 0x11, 0x11, 0x11, 0x13, 0x0D}, /* u */
    {0x00, 0x00, 0x11, 0x11, 0x11, 0x0A, 0x04}, /* v */
    {0x00, 0x00, 0x11, 0x11, 0x15, 0x15, 0x0A}, /* w */
    {0x00, 0x00, 0x11, 0x0A, 0x04, 0x0A, 0x11}, /* x */
    {0x11, 0x11, 0x11, 0x11, 0x0F, 0x01, 0x0E}, /* y (descender) */
    {0x00, 0x00, 0x1F, 0x02, 0x04, 0x08, 0x1F}, /* z */
    {0x02, 0x04, 0x04, 0x08, 0x04, 0x04, 0x02}, /* { */
    {0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}, /* | */
    {0x08, 0x04, 0x04, 0x02, 0x04, 0x04, 0x08}, /* } */
    {0x00, 0x00, 0x08, 0x15, 0x02, 0x00, 0x00}, /* ~ */
    {0x0C, 0x12, 0x12, 0x0C, 0x00, 0x00, 0x00}, /* degree sign */
};

/* Next glyph index of a UTF-8 string (advancing *s); unknown characters draw as '?'. */
static int next_glyph(const char** s)
{
    const unsigned char* p = (const unsigned char*)*s;
    if (p[0] == 0xC2 && p[1] == 0xB0) {
        *s += 2;
        return FONT_DEGREE;
    }
    *s += 1;
    if (p[0] >= FONT_FIRST && p[0] < FONT_FIRST + FONT_DEGREE) return p[0] - FONT_FIRST;
    if (p[0] >= 0x80) /* skip the continuation bytes of other UTF-8 characters */
        while (((unsigned char)**s & 0xC0) == 0x80) *s += 1;
    return '?' - FONT_FIRST;
}

int sf_text_width(const char* text, int scale)
{
    if (!text || scale < 1) return 0;
    int n = 0;
    while (*text) {
        next_glyph(&text);
        n++;
    }
    return n ? (6 * n - 1) * scale : 0;
}

int sf_text_height(int scale) { return 7 * (scale < 1 ? 1 : scale); }

int sf_image_draw_text(sf_image* image, int x, int y, int scale, const uint8_t rgb[3], const char* text)
{
    if (!image || !image->rgb || !text) return 0;
    if (scale < 1) scale = 1;
    int pen = x;
    while (*text) {
        int index = next_glyph(&text);
        const uint8_t* g = font5x7[index];
        char c = (char)(index + FONT_FIRST);
        int drop = (c == 'g' || c == 'p' || c == 'q' || c == 'y') ? 2 * scale : 0;
        for (int row = 0; row < 7; ++row)
            for (int col = 0; col < 5; ++col)
                if (g[row] & (0x10 >> col))
                    sf_image_fill_rect(image, pen + col * scale, y + drop + row * scale, scale, scale, rgb);
        pen += 6 * scale;
    }
    return pen > x ? pen - x - scale : 0;
}

/* ---------------------------------------------------------------- PNG */

typedef struct png_buffer {
    sf_env env;
    uint8_t* data;
    size_t size, capacity;
    int failed;
} png_buffer;

static void png_write(void* context, void* data, int size)
{
    png_buffer* b = (png_buffer*)context;
    if (b->failed || size <= 0) return;
    size_t need = b->size + (size_t)size;
    if (need > b->capacity) {
        size_t cap = b->capacity ? b->capacity : 4096;
        while (cap < need) cap *= 2;
        uint8_t* grown = (uint8_t*)sfi_alloc(&b->env, cap);
        if (!grown) {
            b->failed = 1;
            return;
        }
        if (b->size) memcpy(grown, b->data, b->size);
        sfi_free(&b->env, b->data, b->capacity);
        b->data = grown;
        b->capacity = cap;
    }
    memcpy(b->data + b->size, data, (size_t)size);
    b->size = need;
}

sf_result sf_image_encode_png(const sf_image* image, const sf_env* env, uint8_t** data, size_t* size, sf_error* err)
{
    SF_CHECK(data && size, SF_ERROR_INVALID_ARGUMENT, err, "png", SFI_NO_INDEX, "NULL output");
    *data = NULL;
    *size = 0;
    SF_CHECK(image && image->rgb && image->width > 0 && image->height > 0, SF_ERROR_INVALID_ARGUMENT, err, "image",
             SFI_NO_INDEX, "empty image");
    png_buffer b;
    memset(&b, 0, sizeof b);
    b.env = sfi_env_resolve(env);
    int ok = stbi_write_png_to_func(png_write, &b, image->width, image->height, 3, image->rgb, image->width * 3);
    if (!ok || b.failed) {
        sfi_free(&b.env, b.data, b.capacity);
        return sfi_fail(err, SF_ERROR_OUT_OF_MEMORY, "png", SFI_NO_INDEX, "PNG encoding of %dx%d failed",
                        image->width, image->height);
    }
    /* Callers free with the exact size, so hand back a buffer of exactly b.size bytes. */
    uint8_t* exact = (uint8_t*)sfi_alloc(&b.env, b.size);
    if (!exact) {
        sfi_free(&b.env, b.data, b.capacity);
        return sfi_fail(err, SF_ERROR_OUT_OF_MEMORY, "png", SFI_NO_INDEX, "%zu bytes", b.size);
    }
    memcpy(exact, b.data, b.size);
    sfi_free(&b.env, b.data, b.capacity);
    *data = exact;
    *size = b.size;
    return SF_OK;
}

void sf_png_free(const sf_env* env, uint8_t* data, size_t size)
{
    if (!data) return;
    sf_env e = sfi_env_resolve(env);
    sfi_free(&e, data, size);
}

/* Temporary file next to path, then rename: readers never see half a file. */
int sfi_write_file_atomic(const char* path, const void* data, size_t size)
{
    if (!path || !*path || (!data && size)) return EINVAL;
    size_t len = strlen(path);
    char* tmp = (char*)malloc(len + 16);
    if (!tmp) return ENOMEM;
    snprintf(tmp, len + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return e;
    }
    const uint8_t* bytes = (const uint8_t*)data;
    int e = 0;
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(fd, bytes + done, size - done);
        if (w < 0) {
            if (errno == EINTR) continue;
            e = errno;
            break;
        }
        done += (size_t)w;
    }
    if (!e && fsync(fd) != 0) e = errno;
    if (!e) { /* mkstemp creates 0600; give the file the permissions a plain fopen would */
        mode_t mask = umask(0);
        umask(mask);
        if (fchmod(fd, 0666 & ~mask) != 0) e = errno;
    }
    if (close(fd) != 0 && !e) e = errno;
    if (!e && rename(tmp, path) != 0) e = errno;
    if (e) unlink(tmp);
    free(tmp);
    return e;
}

sf_result sf_image_write_png(const sf_image* image, const char* path, const sf_env* env, sf_error* err)
{
    SF_CHECK(path && *path, SF_ERROR_INVALID_ARGUMENT, err, "path", SFI_NO_INDEX, "empty path");
    uint8_t* data = NULL;
    size_t size = 0;
    sf_result r = sf_image_encode_png(image, env, &data, &size, err);
    if (r != SF_OK) return r;
    int e = sfi_write_file_atomic(path, data, size);
    sf_png_free(env, data, size);
    SF_CHECK(e == 0, SF_ERROR_IO, err, "path", SFI_NO_INDEX, "%s: %s", path, strerror(e));
    return SF_OK;
}

/* PNG encoding (Debian's stb_image_write, deflate through zlib) and atomic PNG files: the only file of the
 * library that uses stb and zlib. */
#include "sf_common.h"
#include "skinframe_files.h"
#include "skinframe_render.h"

#include <stdlib.h>
#include <string.h>
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
        uint8_t* grown = (uint8_t*)sf_env_alloc(&b->env, cap);
        if (!grown) {
            b->failed = 1;
            return;
        }
        if (b->size) memcpy(grown, b->data, b->size);
        sf_env_free(&b->env, b->data, b->capacity);
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
    b.env = sf_env_defaults(env);
    int ok = stbi_write_png_to_func(png_write, &b, image->width, image->height, 3, image->rgb, image->width * 3);
    if (!ok || b.failed) {
        sf_env_free(&b.env, b.data, b.capacity);
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "png", SFI_NO_INDEX, "PNG encoding of %dx%d failed",
                        image->width, image->height);
    }
    /* Callers free with the exact size, so hand back a buffer of exactly b.size bytes. */
    uint8_t* exact = (uint8_t*)sf_env_alloc(&b.env, b.size);
    if (!exact) {
        sf_env_free(&b.env, b.data, b.capacity);
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "png", SFI_NO_INDEX, "%zu bytes", b.size);
    }
    memcpy(exact, b.data, b.size);
    sf_env_free(&b.env, b.data, b.capacity);
    *data = exact;
    *size = b.size;
    return SF_OK;
}

void sf_png_free(const sf_env* env, uint8_t* data, size_t size)
{
    if (!data) return;
    sf_env e = sf_env_defaults(env);
    sf_env_free(&e, data, size);
}

sf_result sf_image_write_png(const sf_image* image, const char* path, const sf_env* env, sf_error* err)
{
    SF_CHECK(path && *path, SF_ERROR_INVALID_ARGUMENT, err, "path", SFI_NO_INDEX, "empty path");
    uint8_t* data = NULL;
    size_t size = 0;
    sf_result r = sf_image_encode_png(image, env, &data, &size, err);
    if (r != SF_OK) return r;
    r = sf_file_write_atomic(path, data, size, err);
    sf_png_free(env, data, size);
    return r;
}

/* Procedural tangent-space normal maps: the gradient of an analytic height field over UV.
 * The renderer maps the result through a vertex's tangent frame, so a wrong tangent shows as
 * bumps lit from the wrong side, as the article's Material control shows. */
#include "sf_common.h"
#include "skinframe_render.h"

#include <math.h>

#define PI_F 3.14159265358979f

/* Height gradient of round bumps, one per cell, in cell units. */
static void bumps_gradient(float x, float y, float* gx, float* gy)
{
    const float radius = 0.4f, amplitude = 0.2f;
    float fx = x - floorf(x) - 0.5f, fy = y - floorf(y) - 0.5f;
    float r = sqrtf(fx * fx + fy * fy);
    *gx = *gy = 0.0f;
    if (r >= radius || r < 1e-6f) return;
    /* h(r) = amplitude * 0.5 * (1 + cos(pi r / R)) */
    float dh = -amplitude * 0.5f * (PI_F / radius) * sinf(PI_F * r / radius);
    *gx = dh * fx / r;
    *gy = dh * fy / r;
}

/* Height gradient of a running-bond brick wall: bricks 1 x 0.5 cells, bevelled mortar grooves. */
static void bricks_gradient(float x, float y, float* gx, float* gy)
{
    const float mortar = 0.03f, bevel = 0.06f, amplitude = 0.06f;
    float row = floorf(2.0f * y);
    float xs = x + (fmodf(row, 2.0f) != 0.0f ? 0.5f : 0.0f);
    float fx = xs - floorf(xs);
    float fy = 0.5f * (2.0f * y - row);
    float dx = fx < 0.5f ? fx : 1.0f - fx;
    float dy = fy < 0.25f ? fy : 0.5f - fy;
    *gx = *gy = 0.0f;
    float d = dx < dy ? dx : dy;
    if (d <= mortar || d >= mortar + bevel) return; /* flat groove bottom or flat brick face */
    float slope = amplitude / bevel;
    if (dx < dy)
        *gx = fx < 0.5f ? slope : -slope;
    else
        *gy = fy < 0.25f ? slope : -slope;
}

void sf_normalmap_sample(sf_normalmap_kind kind, float scale, float strength, float u, float v, float out[3])
{
    if (!(scale > 0.0f)) scale = 8.0f;
    if (!(strength > 0.0f)) strength = 1.0f;
    float gx = 0.0f, gy = 0.0f;
    if (isfinite(u) && isfinite(v)) {
        if (kind == SF_NORMALMAP_BRICKS)
            bricks_gradient(u * scale, v * scale, &gx, &gy);
        else
            bumps_gradient(u * scale, v * scale, &gx, &gy);
    }
    /* Surface (u, v, h(u, v)) has normal (-dh/du, -dh/dv, 1) in (u, v, up). The map's +Y is "up" in the
     * image, towards -v (glTF: v grows downward), so its y component is +dh/dv. */
    float nx = -strength * gx, ny = strength * gy;
    float inv = 1.0f / sqrtf(nx * nx + ny * ny + 1.0f);
    out[0] = nx * inv;
    out[1] = ny * inv;
    out[2] = inv;
}

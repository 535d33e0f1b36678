/* Line charts for parameter sweeps: axes with round-number ticks, grid, labels, legend, dashed series. */
#include "sf_common.h"
#include "skinframe_render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const uint8_t COLOR_PAPER[3] = {255, 255, 255};
static const uint8_t COLOR_INK[3] = {30, 30, 34};
static const uint8_t COLOR_GRID[3] = {226, 228, 232};
static const uint8_t COLOR_NOTE[3] = {100, 104, 112};

#define MAX_TICKS 40 /* per axis; nice_step aims at about 6 */

/* A round step (1, 2 or 5 times a power of ten) giving about `count` intervals over range. */
static double nice_step(double range, int count)
{
    if (!(range > 0.0)) return 1.0;
    double raw = range / count;
    double mag = pow(10.0, floor(log10(raw)));
    double norm = raw / mag;
    double step = norm < 1.5 ? 1.0 : norm < 3.0 ? 2.0 : norm < 7.0 ? 5.0 : 10.0;
    return step * mag;
}

static void format_tick(char* buf, size_t size, double v, double step)
{
    if (fabs(v) < step * 1e-6) v = 0.0; /* no "-0" */
    int decimals = step >= 1.0 ? 0 : (int)ceil(-log10(step) - 1e-9);
    snprintf(buf, size, "%.*f", decimals, v);
}

typedef struct plot_frame {
    int x0, y0, x1, y1; /* plot area in pixels, y1 at the bottom */
    double xmin, xmax, ymin, ymax;
} plot_frame;

static float map_x(const plot_frame* f, double x)
{
    return (float)f->x0 + (float)((x - f->xmin) / (f->xmax - f->xmin)) * (float)(f->x1 - f->x0);
}

static float map_y(const plot_frame* f, double y)
{
    return (float)f->y1 - (float)((y - f->ymin) / (f->ymax - f->ymin)) * (float)(f->y1 - f->y0);
}

/* A polyline, dashed when dash > 0 (dash on, gap off, in pixels; the phase runs along the line). */
static void draw_polyline(sf_image* image, const float* px, const float* py, size_t n, float width, float dash,
                          float gap, const uint8_t rgb[3])
{
    float phase = 0.0f;
    for (size_t i = 0; i + 1 < n; ++i) {
        float ax = px[i], ay = py[i], bx = px[i + 1], by = py[i + 1];
        if (dash <= 0.0f) {
            sf_image_draw_line(image, ax, ay, bx, by, width, rgb);
            continue;
        }
        float len = sqrtf((bx - ax) * (bx - ax) + (by - ay) * (by - ay));
        float pos = 0.0f;
        while (pos < len) {
            float period = dash + gap;
            float in = fmodf(phase, period);
            float left = in < dash ? dash - in : period - in;
            float end = pos + left < len ? pos + left : len;
            if (in < dash && len > 0.0f)
                sf_image_draw_line(image, ax + (bx - ax) * pos / len, ay + (by - ay) * pos / len,
                                   ax + (bx - ax) * end / len, ay + (by - ay) * end / len, width, rgb);
            phase += end - pos;
            pos = end;
        }
    }
}

/* The legend's height below the x label: entries (line sample + name) in rows that wrap at the width, then
 * the note (draw_legend draws them). */
static int legend_height(const sf_plot_desc* desc, int width, int ts, int th)
{
    int entry_gap = 14 * ts, sample_w = 18 * ts;
    int legend_rows = 0, row_w = 0;
    for (size_t s = 0; s < desc->series_count; ++s) {
        if (!desc->series[s].name) continue;
        int w = sample_w + 4 * ts + sf_text_width(desc->series[s].name, ts);
        if (legend_rows == 0 || 8 * ts + row_w + entry_gap + w > width - 8 * ts) { /* as drawn below */
            legend_rows++;
            row_w = w;
        } else {
            row_w += entry_gap + w;
        }
    }
    if (desc->note) legend_rows++;
    return legend_rows * (th + 6 * ts);
}

/* Grid lines, ticks with their labels, and the axes of the plot area f. */
static void draw_grid(sf_image* image, const plot_frame* f, int ts, int th, double xstep, double ystep)
{
    char buf[64];
    for (int k = 0; k <= MAX_TICKS; ++k) {
        double v = f->ymin + k * ystep;
        if (!(v <= f->ymax + ystep * 1e-6)) break;
        int py = (int)lround(map_y(f, v));
        sf_image_fill_rect(image, f->x0, py, f->x1 - f->x0, 1, COLOR_GRID);
        sf_image_fill_rect(image, f->x0 - 4 * ts, py, 4 * ts, 1, COLOR_INK);
        format_tick(buf, sizeof buf, v, ystep);
        sf_image_draw_text(image, f->x0 - 6 * ts - sf_text_width(buf, ts), py - th / 2, ts, COLOR_INK, buf);
    }
    double xfirst = ceil(f->xmin / xstep - 1e-9) * xstep;
    for (int k = 0; k <= MAX_TICKS; ++k) {
        double v = xfirst + k * xstep;
        if (!(v <= f->xmax + xstep * 1e-6)) break;
        int px = (int)lround(map_x(f, v));
        sf_image_fill_rect(image, px, f->y0, 1, f->y1 - f->y0, COLOR_GRID);
        sf_image_fill_rect(image, px, f->y1, 1, 4 * ts, COLOR_INK);
        format_tick(buf, sizeof buf, v, xstep);
        sf_image_draw_text(image, px - sf_text_width(buf, ts) / 2, f->y1 + 6 * ts, ts, COLOR_INK, buf);
    }
    sf_image_fill_rect(image, f->x0, f->y0, ts, f->y1 - f->y0 + ts, COLOR_INK); /* y axis */
    sf_image_fill_rect(image, f->x0, f->y1, f->x1 - f->x0, ts, COLOR_INK);      /* x axis */
}

/* The series in the plot area f, clipped by clamping (values outside fixed y limits stay on the border). */
static void draw_series(sf_image* image, const sf_plot_desc* desc, const plot_frame* f, int ts)
{
    for (size_t s = 0; s < desc->series_count; ++s) {
        const sf_plot_series* se = &desc->series[s];
        float px[512], py[512];
        size_t n = 0;
        for (size_t i = 0; i < se->count && n < 512; ++i) {
            if (!isfinite(se->x[i]) || !isfinite(se->y[i])) continue;
            double vy = se->y[i] < f->ymin ? f->ymin : se->y[i] > f->ymax ? f->ymax : se->y[i];
            px[n] = map_x(f, se->x[i]);
            py[n] = map_y(f, vy);
            n++;
        }
        /* Earlier series are drawn wider, so a later one lying on top of it leaves its edges visible. */
        float share = desc->series_count > 1 ? (float)(desc->series_count - 1 - s) / (float)(desc->series_count - 1) : 0.0f;
        float lw = (float)ts * (1.5f + 3.5f * share);
        draw_polyline(image, px, py, n, lw, se->dashed ? 7.0f * (float)ts : 0.0f, 5.0f * (float)ts, se->rgb);
        for (size_t i = 0; i < n; ++i)
            if (!se->dashed) sf_image_draw_disc(image, px[i], py[i], 2.5f * (float)ts, se->rgb);
    }
}

/* The legend rows from ly (under the x label), as legend_height counts them. */
static void draw_legend(sf_image* image, const sf_plot_desc* desc, int x, int width, int ly, int ts, int th)
{
    int entry_gap = 14 * ts, sample_w = 18 * ts;
    int lx0 = x + 8 * ts, lx = lx0;
    for (size_t s = 0; s < desc->series_count; ++s) {
        const sf_plot_series* se = &desc->series[s];
        if (!se->name) continue;
        int w = sample_w + 4 * ts + sf_text_width(se->name, ts);
        if (lx > lx0 && lx + w > x + width - 8 * ts) {
            lx = lx0;
            ly += th + 6 * ts;
        }
        float sx[2] = {(float)lx, (float)(lx + sample_w)};
        float sy[2] = {(float)ly + (float)th * 0.5f, (float)ly + (float)th * 0.5f};
        draw_polyline(image, sx, sy, 2, 2.0f * (float)ts, se->dashed ? 5.0f * (float)ts : 0.0f, 3.0f * (float)ts, se->rgb);
        sf_image_draw_text(image, lx + sample_w + 4 * ts, ly, ts, COLOR_INK, se->name);
        lx += w + entry_gap;
    }
    if (desc->note) sf_image_draw_text(image, lx0, lx > lx0 ? ly + th + 6 * ts : ly, ts, COLOR_NOTE, desc->note);
}

sf_result sf_plot_render(const sf_plot_desc* desc, sf_image* image, int x, int y, int width, int height, sf_error* err)
{
    SF_CHECK(desc, SF_ERROR_INVALID_ARGUMENT, err, "desc", SFI_NO_INDEX, "NULL");
    SF_CHECK(image && image->rgb, SF_ERROR_INVALID_ARGUMENT, err, "image", SFI_NO_INDEX, "not allocated");
    SF_CHECK(width >= 160 && height >= 120, SF_ERROR_INVALID_ARGUMENT, err, "plot.size", SFI_NO_INDEX,
             "%dx%d is smaller than 160x120", width, height);
    SF_CHECK(desc->series || desc->series_count == 0, SF_ERROR_MISSING_STREAM, err, "desc.series", SFI_NO_INDEX,
             "NULL with series_count %zu", desc->series_count);
    int fixed_y = desc->y_min != 0.0 || desc->y_max != 0.0;
    SF_CHECK(!fixed_y || (isfinite(desc->y_min) && isfinite(desc->y_max) && desc->y_max > desc->y_min),
             SF_ERROR_INVALID_ARGUMENT, err, "desc.y_max", SFI_NO_INDEX, "y range %g..%g is empty or not finite",
             desc->y_min, desc->y_max);

    /* Data range. */
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (size_t s = 0; s < desc->series_count; ++s) {
        const sf_plot_series* se = &desc->series[s];
        SF_CHECK(se->count == 0 || (se->x && se->y), SF_ERROR_MISSING_STREAM, err, "desc.series", s,
                 "x or y is NULL");
        for (size_t i = 0; i < se->count; ++i) {
            if (!isfinite(se->x[i]) || !isfinite(se->y[i])) continue;
            xmin = fmin(xmin, se->x[i]);
            xmax = fmax(xmax, se->x[i]);
            ymin = fmin(ymin, se->y[i]);
            ymax = fmax(ymax, se->y[i]);
        }
    }
    if (!(xmin <= xmax)) xmin = 0.0, xmax = 1.0;
    if (!(ymin <= ymax)) ymin = 0.0, ymax = 1.0;
    /* A single value gets a range around it, wide enough to survive rounding at its magnitude. */
    if (xmax - xmin <= 0.0) xmin -= fmax(0.5, 1e-6 * fabs(xmin)), xmax += fmax(0.5, 1e-6 * fabs(xmax));
    if (fixed_y) {
        ymin = desc->y_min;
        ymax = desc->y_max;
    } else {
        if (ymin >= 0.0) ymin = 0.0;
        if (ymax - ymin <= 0.0) ymax += fmax(1.0, 1e-6 * fabs(ymax));
    }
    double ystep = nice_step(ymax - ymin, 6);
    if (!fixed_y) {
        ymin = floor(ymin / ystep + 1e-9) * ystep;
        ymax = ceil(ymax / ystep - 1e-9) * ystep;
        if (ymax <= ymin) ymax = ymin + ystep;
    }
    double xstep = nice_step(xmax - xmin, 6);

    int ts = height >= 480 ? 2 : 1;
    int th = sf_text_height(ts);
    sf_image_fill_rect(image, x, y, width, height, COLOR_PAPER);

    int legend_h = legend_height(desc, width, ts, th);

    /* Widest y tick label. Ticks are counted, not accumulated: a step too small for the values' magnitude
     * could otherwise loop for ever. */
    int ylabel_w = 0;
    char buf[64];
    for (int k = 0; k <= MAX_TICKS; ++k) {
        double v = ymin + k * ystep;
        if (!(v <= ymax + ystep * 1e-6)) break;
        format_tick(buf, sizeof buf, v, ystep);
        int w = sf_text_width(buf, ts);
        if (w > ylabel_w) ylabel_w = w;
    }

    plot_frame f;
    f.x0 = x + ylabel_w + 10 * ts;
    f.x1 = x + width - 16 * ts;
    f.y0 = y + (desc->title ? th + 8 * ts : 4 * ts) + (desc->y_label ? th + 6 * ts : 0);
    f.y1 = y + height - (th + 8 * ts) - (desc->x_label ? th + 6 * ts : 0) - legend_h - 4 * ts;
    f.xmin = xmin;
    f.xmax = xmax;
    f.ymin = ymin;
    f.ymax = ymax;
    SF_CHECK(f.x1 - f.x0 >= 40 && f.y1 - f.y0 >= 30, SF_ERROR_INVALID_ARGUMENT, err, "plot.size", SFI_NO_INDEX,
             "%dx%d leaves no room for the plot area", width, height);

    if (desc->title)
        sf_image_draw_text(image, x + (width - sf_text_width(desc->title, ts)) / 2, y + 4 * ts, ts, COLOR_INK, desc->title);
    if (desc->y_label) sf_image_draw_text(image, x + 4 * ts, f.y0 - th - 6 * ts, ts, COLOR_INK, desc->y_label);
    if (desc->x_label)
        sf_image_draw_text(image, (f.x0 + f.x1 - sf_text_width(desc->x_label, ts)) / 2, f.y1 + th + 10 * ts, ts,
                           COLOR_INK, desc->x_label);

    draw_grid(image, &f, ts, th, xstep, ystep);

    draw_series(image, desc, &f, ts);

    draw_legend(image, desc, x, width, f.y1 + th + 10 * ts + (desc->x_label ? th + 8 * ts : 0), ts, th);
    return SF_OK;
}

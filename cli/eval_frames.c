/* Which frames eval plays (every 1/fps and the clip's end), and the progress bar with the time left. */
#define _POSIX_C_SOURCE 200809L
#include "eval.h"

#include <math.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* A multiple of 1/fps within this many frames of the end is the end (no second frame a hair apart). */
#define END_TOLERANCE_FRAMES 1e-6

int eval_plan_make(double end_s, double fps, size_t max_frames, const char* what, eval_plan* out)
{
    out->end_s = end_s > 0.0 ? end_s : 0.0;
    out->fps = fps;
    double x = out->end_s * fps; /* checked before any conversion: the file sets the end */
    double needed = 1.0;
    if (!isfinite(x))
        needed = INFINITY;
    else if (x > END_TOLERANCE_FRAMES)
        needed = ceil(x - END_TOLERANCE_FRAMES) + 1.0; /* the multiples below the end, and the end */
    if (!(needed <= (double)max_frames))
        return cli_fail(CLI_EXIT_FAILURE, "%s: %g s at %g fps needs %.15g frames, more than --max-frames %zu",
                        what, end_s, fps, needed, max_frames);
    out->frames = (size_t)needed;
    return CLI_EXIT_OK;
}

int eval_work_check(size_t frames, size_t vertices, size_t max_work, const char* what)
{
    size_t per_frame = vertices > EVAL_FRAME_MIN_VERTICES ? vertices : EVAL_FRAME_MIN_VERTICES;
    double work = (double)frames * (double)per_frame; /* no overflow: compared as a double */
    if (work <= (double)max_work) return CLI_EXIT_OK;
    return cli_fail(CLI_EXIT_FAILURE,
                    "%s: %zu frames over its clips x %zu vertices per frame (at least %d) is %.15g vertex-frames, "
                    "more than --max-work %zu",
                    what, frames, vertices, EVAL_FRAME_MIN_VERTICES, work, max_work);
}

double eval_plan_time(const eval_plan* plan, size_t frame)
{
    if (plan->frames <= 1) return 0.0;
    return frame + 1 >= plan->frames ? plan->end_s : (double)frame / plan->fps;
}

double eval_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void eval_progress_start(eval_progress* p, bool on, const char* label, size_t total)
{
    p->on = on && total > 0;
    p->label = label;
    p->total = total;
    p->start_s = eval_now_s();
    p->shown_s = -1.0;
}

static void format_left(char* buf, size_t size, double s)
{
    if (!(s >= 0.0) || s > 359999.0)
        snprintf(buf, size, "?");
    else if (s < 60.0)
        snprintf(buf, size, "%.0fs", ceil(s));
    else if (s < 3600.0)
        snprintf(buf, size, "%dm%02ds", (int)(s / 60.0), (int)fmod(s, 60.0));
    else
        snprintf(buf, size, "%dh%02dm", (int)(s / 3600.0), (int)fmod(s / 60.0, 60.0));
}

void eval_progress_step(eval_progress* p, size_t done)
{
    if (!p->on) return;
    double now = eval_now_s();
    if (done < p->total && p->shown_s >= 0.0 && now - p->shown_s < 0.1) return; /* a few updates a second */
    p->shown_s = now;
    int width = 30, bar = (int)(done * (size_t)width / p->total);
    char left[32];
    format_left(left, sizeof left, done ? (now - p->start_s) / (double)done * (double)(p->total - done) : -1.0);
    fprintf(stderr, "\r%-24.24s [%.*s%*s] %zu/%zu, %s left ", p->label, bar, "##############################",
            width - bar, "", done, p->total, left);
    fflush(stderr);
}

void eval_progress_end(eval_progress* p)
{
    if (p->on) fprintf(stderr, "\r%*s\r", 100, "");
}

/* eval's progress bar with the time left. */
#define _POSIX_C_SOURCE 200809L
#include "eval.h"

#include <math.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

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

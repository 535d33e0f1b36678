/* Which frames a clip plays: every 1/fps and the clip's end. */
#include "skinframe_eval.h"

#include <math.h>

/* A multiple of 1/fps within this many frames of the end is the end (no second frame a hair apart). */
#define END_TOLERANCE_FRAMES 1e-6

sf_result sf_clip_plan_make(double end_s, double fps, size_t max_frames, sf_clip_plan* out)
{
    out->end_s = end_s > 0.0 ? end_s : 0.0;
    out->fps = fps;
    out->frames = 0;
    if (!(fps > 0.0)) return SF_ERROR_INVALID_ARGUMENT;
    double x = out->end_s * fps; /* checked before any conversion: the file sets the end */
    double needed = 1.0;
    if (!isfinite(x))
        needed = INFINITY;
    else if (x > END_TOLERANCE_FRAMES)
        needed = ceil(x - END_TOLERANCE_FRAMES) + 1.0; /* the multiples below the end, and the end */
    out->frames_needed = needed;
    if (!(needed <= (double)max_frames)) return SF_ERROR_TOO_LARGE;
    out->frames = (size_t)needed;
    return SF_OK;
}

double sf_clip_plan_time(const sf_clip_plan* plan, size_t frame)
{
    if (plan->frames <= 1) return 0.0;
    return frame + 1 >= plan->frames ? plan->end_s : (double)frame / plan->fps;
}

/* The error heatmap's colour scale, shared by the four views, their colour bar and baked error colours. */
#include "skinframe_render.h"

void sf_heatmap_color(double angle_deg, float rgb[3])
{
    double t = angle_deg / 45.0;
    if (!(t > 0.0)) t = 0.0; /* also NaN */
    if (t > 1.0) t = 1.0;
    /* green (0,1,0) -> yellow (1,1,0) at 22.5 degrees -> red (1,0,0) at 45 */
    rgb[0] = (float)(t < 0.5 ? 2.0 * t : 1.0);
    rgb[1] = (float)(t < 0.5 ? 1.0 : 2.0 - 2.0 * t);
    rgb[2] = 0.0f;
}

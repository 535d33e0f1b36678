/* The yardstick loop (yardstick.h): what a plain engine skinning loop does per vertex. */
#include "yardstick.h"

void yardstick_skin4(size_t vertex_count, const float* bones, const uint16_t* joints, const float* weights,
                     const float* positions, const float* normals, const float* tangents, float* out_positions,
                     float* out_normals, float* out_tangents)
{
    for (size_t v = 0; v < vertex_count; ++v) {
        float m[12] = {0};
        for (int i = 0; i < 4; ++i) {
            const float* b = bones + 12 * (size_t)joints[4 * v + i];
            float w = weights[4 * v + i];
            for (int k = 0; k < 12; ++k) m[k] += w * b[k];
        }
        const float* p = positions + 3 * v;
        const float* n = normals + 3 * v;
        const float* t = tangents + 4 * v;
        float* op = out_positions + 3 * v;
        float* on = out_normals + 3 * v;
        float* ot = out_tangents + 4 * v;
        for (int r = 0; r < 3; ++r) {
            op[r] = m[r] * p[0] + m[3 + r] * p[1] + m[6 + r] * p[2] + m[9 + r];
            on[r] = m[r] * n[0] + m[3 + r] * n[1] + m[6 + r] * n[2];
            ot[r] = m[r] * t[0] + m[3 + r] * t[1] + m[6 + r] * t[2];
        }
        ot[3] = t[3];
    }
}

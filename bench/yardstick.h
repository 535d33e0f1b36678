/* The in-process yardstick of bench_skin: a plain scalar loop doing the work of ozz-animation's SkinningJob
 * (positions, normals and tangents by the blended matrix of 4 influences; no normalisation, no determinant,
 * no report). Compiled -O2 in its own translation unit (yardstick.c) so that it is timed as an engine's
 * plain C loop would be. */
#ifndef BENCH_YARDSTICK_H
#define BENCH_YARDSTICK_H

#include <stddef.h>
#include <stdint.h>

/* bones: 12 floats each (skinframe.h's 3x4 column-major); joints, weights: 4 per vertex; positions, normals:
 * 3 floats per vertex, tangents 4 (w copied); outputs the same sizes. */
void yardstick_skin4(size_t vertex_count, const float* bones, const uint16_t* joints, const float* weights,
                     const float* positions, const float* normals, const float* tangents, float* out_positions,
                     float* out_normals, float* out_tangents);

#endif

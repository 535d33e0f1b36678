/* Per-vertex and per-face formulas, written once and shared by the CPU loops (src/) and the CUDA
 * kernels (cuda/). Valid C11 and C++: no compound literals, no void* conversions, sqrtf/fabsf only.
 * Vectors are plain float arrays; matrices are the 12-float 3x4 column-major layout of skinframe.h.
 * One header per formula family (each includes what it uses); this one includes them all. */
#ifndef SF_KERNELS_H
#define SF_KERNELS_H

#include "sfk_vec.h"
#include "sfk_deform.h"
#include "sfk_methods.h"
#include "sfk_recompute.h"
#include "sfk_fused.h"
#include "sfk_authored.h"
#include "sfk_acos.h"
#include "sfk_mikk.h"
#include "sfk_jacobian.h"
#include "sfk_jacobian_fan.h"
#include "sfk_angles.h"

#endif /* SF_KERNELS_H */

/* Errors of an asset's frames named as the asset names things (pose_errors.c). */
#ifndef SF_EVAL_POSE_ERRORS_H
#define SF_EVAL_POSE_ERRORS_H

#include "eval_internal.h"

/* ee, from posing or evaluating unit u (res: its evaluation's results, or NULL), into err: a bone matrix's
 * error names the joint's node and its path ("node 2 'Arm' (skins[0].joints[1]): its skinning matrix's
 * element 0 is ..."), a morph weight's the mesh's weights; else the stage that failed. Returns the result. */
sf_result sfi_unit_fail(const sf_gltf* g, const sf_asset_unit* u, const sf_eval_results* res, const sf_error* ee,
                        sf_error* err);

/* err prefixed with the frame: "animation 'Run' at t = 0.533 s: " ("rest pose: " without an animation). */
sf_result sfi_frame_fail(const sf_gltf* g, size_t animation, double t, sf_error* err);

#endif

/* The analytic Jacobian method (its own issue): gradients and per-frame evaluation. Not built yet. */
#include "sf_internal.h"

sf_result sfi_gradients_build(sf_topology* topo, sf_error* err)
{
    (void)err;
    topo->gradients = NULL;
    return SF_OK;
}

void sfi_gradients_free(sf_topology* topo) { (void)topo; }

sf_result sfi_jacobian_scratch_create(sf_workspace* ws, sf_error* err)
{
    (void)err;
    ws->jacobian = NULL;
    return SF_OK;
}

void sfi_jacobian_scratch_free(sf_workspace* ws) { (void)ws; }

sf_result sfi_jacobian_frames(const sf_topology* topo, const sf_pose* pose, const sf_frames_opts* opts,
                              sf_workspace* ws, float* normals, float* tangents, sf_error* err)
{
    (void)topo;
    (void)pose;
    (void)opts;
    (void)ws;
    (void)normals;
    (void)tangents;
    return sfi_fail(err, SF_ERROR_UNSUPPORTED, "method", SFI_NO_INDEX, "jacobian is not implemented yet");
}

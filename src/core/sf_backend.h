/* The backends' internal entry points, shared by the C core and cuda/ (C and C++ linkage alike). */
#ifndef SF_BACKEND_H
#define SF_BACKEND_H

#include "skinframe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The CUDA backend's availability: SF_OK, or SF_ERROR_UNSUPPORTED with the reason. */
sf_result sfi_cuda_check(sf_error* err);
/* sf_frames_compute on a workspace created for SF_BACKEND_CUDA (options already validated). */
sf_result sfi_cuda_frames(const sf_topology* topo, const sf_pose* pose, sf_method method, const sf_frames_opts* opts,
                          sf_workspace* ws, const sf_frames_out* out, sf_error* err);

#ifdef __cplusplus
}
#endif

#endif /* SF_BACKEND_H */

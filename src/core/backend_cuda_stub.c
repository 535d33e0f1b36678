/* The CUDA entry points of a build without CUDA (SF_WITH_CUDA=OFF): every request is refused with
 * SF_ERROR_UNSUPPORTED and says how to get it, so callers need no #ifdef. */
#include "sf_internal.h"

static sf_result no_cuda(sf_error* err)
{
    return sf_error_set(err, SF_ERROR_UNSUPPORTED, "backend", SFI_NO_INDEX,
                        "cuda: this build has no CUDA backend (configure with -DSF_WITH_CUDA=ON)");
}

sf_result sfi_cuda_check(sf_error* err) { return no_cuda(err); }

sf_result sfi_cuda_frames(const sf_topology* topo, const sf_pose* pose, sf_method method, const sf_frames_opts* opts,
                          sf_workspace* ws, const sf_frames_out* out, sf_error* err)
{
    (void)topo, (void)pose, (void)method, (void)opts, (void)ws, (void)out;
    return no_cuda(err);
}

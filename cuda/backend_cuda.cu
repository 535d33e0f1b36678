// The CUDA backend (SF_WITH_CUDA=ON). For now it only reports whether a device can be used; frame
// computation on the GPU is not implemented yet and says so. Every CUDA runtime call is checked, and a
// failing one is named in the error message.
#include "sf_backend.h"
#include "sf_kernels.h"

#include <cuda_runtime.h>
#include <stdint.h>

// The formulas of the CPU loops, compiled here as device code so nvcc checks the kernels header on every
// CUDA build. Never launched.
__global__ void sfk_device_compile_check(const float* in, float* out)
{
    float m[12], det, p[3], n[3], t[4], fn[3], ft[3], fb[3], w[3];
    uint32_t joint = 0, corners[3] = {0u, 1u, 2u};
    float weight = 1.0f;
    sfk_deform_vertex(in, in + 3, in + 6, &joint, in, in, in, 0u, in, 1, in, &joint, &weight, 1u, p, n, t, m, &det,
                      out);
    sfk_vertex_frame(SFK_METHOD_INVERSE_TRANSPOSE, m, det, n, t, 1.0f, out, out + 3);
    sfk_recompute_face(in, in + 3, in + 6, in + 9, in + 11, in + 13, 1.0f, -1.0f, 1.0f, SFK_WEIGHTING_ANGLE, fn, ft,
                       fb, w);
    sfk_recompute_vertex(fn, ft, fb, w, corners, 0u, 1u, corners, 0u, 1u, SFK_WEIGHTING_AREA, -1.0f, out, out + 3);
    sfk_authored_vertex(in, in + 3, in + 7, in + 10, in + 14, in + 17, 1, in, in + 3, in + 6, in + 9, out, out + 3);
    uint32_t flags = sfk_mikk_triangle(in, in + 3, in + 6, in + 9, in + 11, in + 13, sfk_mikk_uv_flags(in[15]), fn, ft);
    sfk_mikk_corner_term(in, fn, in + 3, in + 6, in + 9, out);
    out[7] = sfk_mikk_vertex_w((float)flags, -1.0f, det) + (float)sfk_mikk_compatible(in, in + 6);
    sfk_jacobian_vertex(in, m, det, p, out, n, t, &joint, in, 1u, &joint, in, 1u, in, 0.5f, out + 8, out + 11);
    sfk_jacobian_fan_vertex(in, m, det, p, out, n, t, in + 3, &joint, in, 1u, &joint, in, 1u, in, 0.5f, out + 8,
                            out + 11);
}

static sf_result cuda_failed(sf_error* err, const char* call, cudaError_t e)
{
    return sf_error_set(err, SF_ERROR_UNSUPPORTED, "backend", SIZE_MAX, "cuda: %s failed: %s (%s)", call,
                        cudaGetErrorName(e), cudaGetErrorString(e));
}

extern "C" sf_result sfi_cuda_check(sf_error* err)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) return cuda_failed(err, "cudaGetDeviceCount", e);
    if (count <= 0)
        return sf_error_set(err, SF_ERROR_UNSUPPORTED, "backend", SIZE_MAX, "cuda: no CUDA device is present");
    return SF_OK;
}

extern "C" sf_result sfi_cuda_frames(const sf_topology* topo, const sf_pose* pose, sf_method method,
                                     const sf_frames_opts* opts, sf_workspace* ws, const sf_frames_out* out,
                                     sf_error* err)
{
    (void)topo, (void)pose, (void)opts, (void)ws, (void)out;
    return sf_error_set(err, SF_ERROR_UNSUPPORTED, "backend", SIZE_MAX,
                        "cuda: frame computation on the GPU is not implemented yet (method %s); use SF_BACKEND_CPU",
                        sf_method_name(method));
}

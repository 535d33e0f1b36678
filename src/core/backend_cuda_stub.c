/* The CUDA backend of a build without CUDA (SF_WITH_CUDA=OFF): its table and every entry point refuse with
 * SF_ERROR_UNSUPPORTED and say how to get it, so callers need no #ifdef. */
#include "sf_internal.h"

static sf_result no_cuda(sf_error* err)
{
    return sf_error_set(err, SF_ERROR_UNSUPPORTED, "backend", SFI_NO_INDEX,
                        "cuda: this build has no CUDA backend (configure with -DSF_WITH_CUDA=ON)");
}

/* Never chosen: sf_workspace_create asks check first. */
const sfi_backend_i sfi_backend_cuda = {
    "cuda", no_cuda, SFI_SCRATCH_DEVICE, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};

sf_result sfi_cuda_free_memory(size_t* free_bytes, sf_error* err)
{
    *free_bytes = 0;
    return no_cuda(err);
}

const char* sfi_cuda_recompute_name(sfi_cuda_recompute variant)
{
    (void)variant;
    return "?";
}

size_t sfi_cuda_halo_bytes(const sf_topology* topo, int weld)
{
    (void)topo, (void)weld;
    return 0;
}

void sfi_cuda_set_recompute(sf_workspace* ws, sfi_cuda_recompute variant) { (void)ws, (void)variant; }
void sfi_cuda_set_rows(sf_workspace* ws, int flags) { (void)ws, (void)flags; }
void sfi_cuda_mikk_counts(const sf_workspace* ws, size_t* frames, size_t* on_device)
{
    (void)ws;
    *frames = *on_device = 0;
}
sf_result sfi_cuda_set_locality(sf_workspace* ws, sfi_cuda_order order, sf_error* err)
{
    (void)ws, (void)order, (void)err;
    return SF_OK;
}

sf_result sfi_cuda_eval_enqueue(sf_workspace* ws, const sf_pose* poses, size_t count, const sf_method* methods,
                                size_t method_count, const sf_frames_opts* method_opts,
                                const sf_frames_opts* reference_opts, sf_error* err)
{
    (void)ws, (void)poses, (void)count, (void)methods, (void)method_count, (void)method_opts, (void)reference_opts;
    return no_cuda(err);
}

sf_result sfi_cuda_eval_read(sf_workspace* ws, size_t row, sf_error_summary* summary, sf_frames_report* report, sf_angle_accumulator* normal_acc,
                             sf_angle_accumulator* tangent_acc, sf_error* err)
{
    (void)ws, (void)row, (void)summary, (void)report, (void)normal_acc, (void)tangent_acc;
    return no_cuda(err);
}

sf_result sfi_cuda_bench_upload(sf_workspace* ws, const sf_pose* poses, size_t count, sf_error* err)
{
    (void)ws, (void)poses, (void)count;
    return no_cuda(err);
}

sf_result sfi_cuda_bench_time(sf_workspace* const* wss, size_t k, sfi_cuda_stage stage, sf_method method,
                              const sf_frames_opts* opts, sfi_cuda_recompute variant, int reps, double* median_ms,
                              sf_error* err)
{
    (void)wss, (void)k, (void)stage, (void)method, (void)opts, (void)variant, (void)reps, (void)median_ms;
    return no_cuda(err);
}

sf_result sfi_cuda_bench_copy(size_t bytes, int reps, double* median_ms, sf_error* err)
{
    (void)bytes, (void)reps, (void)median_ms;
    return no_cuda(err);
}

sf_result sfi_cuda_describe(char* out, size_t size, sf_error* err)
{
    if (out && size) out[0] = 0;
    return no_cuda(err);
}

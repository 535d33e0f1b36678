/* The backends' internal entry points, shared by the C core and cuda/ (C and C++ linkage alike). */
#ifndef SF_BACKEND_H
#define SF_BACKEND_H

#include "skinframe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- the backend table */

/* Which host scratch a workspace of the backend takes (src/core/workspace.c lists the blocks). */
typedef enum sfi_host_scratch {
    SFI_SCRATCH_HOST = 0, /* every array the host's passes use */
    SFI_SCRATCH_DEVICE    /* the frames live on a device: only what comes back to the host (MikkTSpace's inputs) */
} sfi_host_scratch;

/* One backend: the entry points a workspace calls, chosen when it is created (sfi_backend_of) and kept in it.
 * NULL entries: the backend has no such path and the generic one runs (no device side, one frames call per
 * pose, no device-resident evaluation). A new backend fills one of these in its own folder. */
typedef struct sfi_backend_i {
    const char* name;
    /* Availability: SF_OK, or SF_ERROR_UNSUPPORTED with the reason. */
    sf_result (*check)(sf_error* err);
    sfi_host_scratch scratch;
    /* The device side of a new workspace (ws->be already set), fails with SF_ERROR_OUT_OF_MEMORY naming the
     * sizes when the device cannot hold it; free: also after a failed init. */
    sf_result (*workspace_init)(sf_workspace* ws, sf_error* err);
    void (*workspace_free)(sf_workspace* ws);
    /* Device bytes workspace_init allocates for topo with its per-instance scratch grown to instances. */
    size_t (*device_bytes)(const sf_topology* topo, size_t instances);
    /* sf_frames_compute on a workspace of this backend (options validated). deformed: ws's deform arrays hold
     * this pose already (the host's evaluation sets it; a device backend may ignore it). */
    sf_result (*frames)(const sf_topology* topo, const sf_pose* pose, sf_method method, const sf_frames_opts* opts,
                        sf_workspace* ws, const sf_frames_out* out, int deformed, sf_error* err);
    /* sf_frames_compute_batch (poses, method and options validated): every instance at once. */
    sf_result (*frames_batch)(const sf_topology* topo, const sf_pose* poses, size_t count, sf_method method,
                              const sf_frames_opts* opts, sf_workspace* ws, const sf_frames_out* outs, sf_error* err);
    /* Device-resident evaluation of count instances: the reference and each method on the device, their angles
     * reduced there into statistics; nothing per vertex comes back. enqueue only queues the work; read waits and
     * gives row k's summary (p50 / p95 from the histogram, as sf_angle_accumulator computes them) and its report
     * (row SF_METHOD_COUNT: the reference's); normal_acc / tangent_acc (may be NULL) receive the row's angles. */
    sf_result (*eval_enqueue)(sf_workspace* ws, const sf_pose* poses, size_t count, const sf_method* methods,
                              size_t method_count, const sf_frames_opts* method_opts,
                              const sf_frames_opts* reference_opts, sf_error* err);
    sf_result (*eval_read)(sf_workspace* ws, size_t row, sf_error_summary* summary, sf_frames_report* report,
                           sf_angle_accumulator* normal_acc, sf_angle_accumulator* tangent_acc, sf_error* err);
    /* A clip's poses in batches: as eval_enqueue, but the statistics are added to those of the calls before since
     * the last one with first != 0 (eval_read then reads the clip's), and each pose's own errors are recorded for
     * eval_poses. */
    sf_result (*eval_enqueue_clip)(sf_workspace* ws, const sf_pose* poses, size_t count, const sf_method* methods,
                                   size_t method_count, const sf_frames_opts* method_opts,
                                   const sf_frames_opts* reference_opts, int first, sf_error* err);
    /* Row k's errors of each pose of the last eval_enqueue_clip into out[0, count) (waits for them); out NULL: only
     * the row's status (a row the backend cannot run: SF_ERROR_UNSUPPORTED with the reason). */
    sf_result (*eval_poses)(sf_workspace* ws, size_t row, sf_pose_errors* out, sf_error* err);
    /* src's statistics (every row) added to dst's on the device: both workspaces of this backend, last run with the
     * same rows; eval_read of dst then reads both. */
    sf_result (*eval_add)(sf_workspace* dst, sf_workspace* src, sf_error* err);
    /* sf_workspace_reserve: the scratch of batches of up to `instances` poses taken now (as much of it as the
     * device holds), so that such batches allocate nothing. NULL: the backend's batches need none. */
    sf_result (*reserve)(sf_workspace* ws, size_t instances, sf_error* err);
} sfi_backend_i;

extern const sfi_backend_i sfi_backend_cpu;  /* backend_cpu.c */
extern const sfi_backend_i sfi_backend_cuda; /* cuda/backend_cuda.cu, or backend_cuda_stub.c (refuses) */
/* The table of a public backend id; NULL when it is none. */
const sfi_backend_i* sfi_backend_of(sf_backend backend);
/* sf_workspace_create with the backend given as a table (tests bring their own); opts->backend is ignored. */
sf_result sfi_workspace_create_on(const sf_topology* topo, const sf_workspace_opts* opts, const sfi_backend_i* be,
                                  sf_workspace** out, sf_error* err);

/* ---------------------------------------------------------------- the CUDA backend's own entry points */

/* The device's free memory now (cudaMemGetInfo), for tests of the workspace's device size. */
sf_result sfi_cuda_free_memory(size_t* free_bytes, sf_error* err);
/* The device-resident evaluation of a CUDA workspace (sfi_backend_cuda.eval_enqueue / eval_read). */
sf_result sfi_cuda_eval_enqueue(sf_workspace* ws, const sf_pose* poses, size_t count, const sf_method* methods,
                                size_t method_count, const sf_frames_opts* method_opts,
                                const sf_frames_opts* reference_opts, sf_error* err);
sf_result sfi_cuda_eval_read(sf_workspace* ws, size_t row, sf_error_summary* summary, sf_frames_report* report,
                             sf_angle_accumulator* normal_acc, sf_angle_accumulator* tangent_acc, sf_error* err);

/* The GPU's ways to rebuild the reference (`recompute`); all give the CPU's frames within rounding, the
 * gathers bit-identical run to run. */
typedef enum sfi_cuda_recompute {
    SFI_CUDA_HALO_GATHER = 0, /* default (the fastest): the gather over locality blocks: each block's vertices + halo
                               * read once into shared memory, its faces rebuilt once there (cuda/gpu_blocks.c,
                               * cuda/kernels_halo.cu); face-gather's bits. Where a topology's blocks cannot be
                               * built (a vertex whose faces exceed a block), face-gather runs in its place */
    SFI_CUDA_FACE_GATHER,     /* a face pass, then a per-vertex gather over the adjacency */
    SFI_CUDA_GATHER,          /* the gather alone, each vertex recomputing its faces from the final positions */
    SFI_CUDA_SCATTER_FIXED,   /* per-face scatter into 32-bit fixed point (integer atomics), then normalise */
    SFI_CUDA_SCATTER_FLOAT,   /* per-face scatter with float atomics, then normalise (order varies) */
    SFI_CUDA_ONE_PASS,        /* one launch: each block skins its vertices + halo once into shared memory, gathers */
    SFI_CUDA_ONE_PASS_NAIVE,  /* one launch: each vertex skins its one-ring itself and gathers */
    SFI_CUDA_RECOMPUTE_COUNT
} sfi_cuda_recompute;
const char* sfi_cuda_recompute_name(sfi_cuda_recompute variant);
/* The device bytes of the locality blocks halo-gather builds for topo and weld (-1 none, 0 position, 1 position +
 * normal) on its first use, counted in sf_workspace_device_size; 0 where they cannot be built or without CUDA. */
size_t sfi_cuda_halo_bytes(const sf_topology* topo, int weld);
/* The limits halo-gather and one-pass cut the locality blocks to (sfi_gpu_blocks_build): owned vertices (one
 * per GPU thread), local vertices and faces of a block (24 B and 48 B of shared memory each: 64 KB at most). */
#define SFI_CUDA_HALO_OWN 256
#define SFI_CUDA_HALO_LOCALS 640
#define SFI_CUDA_HALO_FACES 1024
/* Selects the variant of later recompute frames on ws (a CUDA workspace; ignored otherwise). */
void sfi_cuda_set_recompute(sf_workspace* ws, sfi_cuda_recompute variant);
/* How later evaluations on ws run their rows where the instances hold SFC_FUSED_ROWS_BELOW vertices or more
 * (backend_cuda.cu), as flags: SHARED_DEFORM, unchanged / skinned / inverse-transpose from one deform (the
 * default); 0, each row its own deform. Both give the same frames and statistics bit for bit; the tests and the
 * benchmark compare them. */
enum { SFI_CUDA_ROWS_SHARED_DEFORM = 1 };
void sfi_cuda_set_rows(sf_workspace* ws, int flags);
/* MikkTSpace frames on ws (a CUDA workspace) since its creation: every instance, and those whose groups' sums ran
 * on the device (the rest ran on the host); 0 otherwise. */
void sfi_cuda_mikk_counts(const sf_workspace* ws, size_t* frames, size_t* on_device);
/* The device's vertex order (cuda/gpu_order.c); every per-vertex result and vertex number stays in the caller's.
 * AUTO (the default): the Morton order where a warp's one-rings touch fewer lines of memory in it than in the
 * caller's order (sfi_gpu_order_lines), else the caller's; AUTHORED: the caller's; MORTON: the Morton order.
 * The topology is uploaded again on a change; the tests and the benchmark compare them. */
typedef enum sfi_cuda_order { SFI_CUDA_ORDER_AUTHORED, SFI_CUDA_ORDER_AUTO, SFI_CUDA_ORDER_MORTON } sfi_cuda_order;
sf_result sfi_cuda_set_locality(sf_workspace* ws, sfi_cuda_order order, sf_error* err);

/* Benchmark stages on a CUDA workspace, over the poses of the last sfi_cuda_bench_upload. */
typedef enum sfi_cuda_stage {
    SFI_STAGE_DEFORM = 0, /* morph + skin: positions and determinants */
    SFI_STAGE_METHOD,     /* one per-vertex method (or the jacobian), fused with morph + skin, as a frames call
                             runs it: its report counted in the same pass */
    SFI_STAGE_PASS,       /* the same pass without the report: what an engine's skinning pass does */
    SFI_STAGE_REBUILD,    /* the reference from the last deform's positions (one-pass: from the pose) */
    SFI_STAGE_RECOMPUTE,  /* deform + rebuild: the reference from the pose */
    SFI_STAGE_ERRORS,     /* angles of the last method against the last reference, into statistics */
    SFI_STAGE_EVAL        /* the reference, the default methods (SF_METHOD_DEFAULT_COUNT), each one's errors */
} sfi_cuda_stage;
sf_result sfi_cuda_bench_upload(sf_workspace* ws, const sf_pose* poses, size_t count, sf_error* err);
/* Median GPU time (CUDA events) of reps runs of stage, rotating over the k workspaces (inputs and outputs
 * apart, so that small sizes are not timed out of the L2 cache). */
sf_result sfi_cuda_bench_time(sf_workspace* const* wss, size_t k, sfi_cuda_stage stage, sf_method method,
                              const sf_frames_opts* opts, sfi_cuda_recompute variant, int reps, double* median_ms,
                              sf_error* err);
/* Median time of a device-to-device copy of bytes (read + write = 2 bytes moved per byte). */
sf_result sfi_cuda_bench_copy(size_t bytes, int reps, double* median_ms, sf_error* err);
/* The device's name, driver and runtime versions, memory and L2 size, as one line. */
sf_result sfi_cuda_describe(char* out, size_t size, sf_error* err);

#ifdef __cplusplus
}
#endif

#endif /* SF_BACKEND_H */

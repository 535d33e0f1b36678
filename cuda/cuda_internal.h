// The CUDA backend's private declarations: the device copy of a topology, a workspace's device buffers,
// and the launchers of cuda/kernels*.cu. Only cuda/*.cu include this.
#ifndef SF_CUDA_INTERNAL_H
#define SF_CUDA_INTERNAL_H

#include <cuda_runtime.h>
#include <stdbool.h>
#include <stdint.h>

extern "C" {
#include "sf_internal.h" // C declarations
}
#include "gpu_blocks.h"

// Every CUDA call goes through this: a failure is returned as SF_ERROR_UNSUPPORTED naming the call.
sf_result sfc_failed(sf_error* err, const char* call, cudaError_t e);
#define SFC_CHECK(call, err)                                                                                           \
    do {                                                                                                               \
        cudaError_t sfc_e_ = (call);                                                                                   \
        if (sfc_e_ != cudaSuccess) return sfc_failed((err), #call, sfc_e_);                                            \
    } while (0)
// After a launch: the launch error (bad configuration) named by the kernel.
#define SFC_LAUNCHED(name, err)                                                                                        \
    do {                                                                                                               \
        cudaError_t sfc_e_ = cudaGetLastError();                                                                       \
        if (sfc_e_ != cudaSuccess) return sfc_failed((err), "launch " name, sfc_e_);                                   \
    } while (0)

// Stage timers (profile.cu): sfc_profile_start returns 0 unless SF_CUDA_PROFILE is set (then sfc_profile_stop does
// nothing); with it, each stage's seconds are printed to stderr at exit.
enum sfc_profile_stage {
    SFC_PROF_ENQ_VALIDATE,
    SFC_PROF_ENQ_ALLOC,
    SFC_PROF_ENQ_UPLOAD,
    SFC_PROF_ENQ_EVALUATE,
    SFC_PROF_POSES_SYNC,
    SFC_PROF_MIKK_ALL,
    SFC_PROF_MIKK_ALLOC,
    SFC_PROF_MIKK_WAIT,
    SFC_PROF_MIKK_READ,
    SFC_PROF_MIKK_SETUP,
    SFC_PROF_MIKK_HOST,
    SFC_PROF_MIKK_ENQUEUE,
    SFC_PROF_MIKK_DEVICE,
    SFC_PROF_PART_CREATE,
    SFC_PROF_PART_ORDER,
    SFC_PROF_PART_PREPARE,
    SFC_PROF_PART_COVERS,
    SFC_PROF_PART_SUMS,
    SFC_PROF_READ_WAIT,
    SFC_PROF_READ_COPY,
    SFC_PROF_READ_ADD,
    SFC_PROFILE_STAGES
};
uint64_t sfc_profile_start(void);
void sfc_profile_stop(sfc_profile_stage stage, uint64_t start);

// Weld groups on the device: the normal's corners per group (sfi_weld).
struct sfc_weld {
    const uint32_t *group, *corner_offsets, *corners;
};

// The topology as the kernels read it (device pointers). Joints are packed to 16 bits and padded with zero
// weights to K = 0, 4, 8 or 16 slots (sfk_blend_matrix skips zero weights, so the padding changes nothing).
struct sfc_topo {
    uint32_t n, F, K, bones, targets;
    int has_uvs;
    float bitangent_sign;
    const float *rest_p, *rest_n, *rest_t, *uvs; // 3n, 3n, 4n, 2n (NULL without UVs)
    const uint32_t *indices, *adj_offsets, *adj_corners;
    const uint16_t* joints; // K n
    const float* weights;   // K n
    const uint32_t *morph_offsets, *morph_target;
    const float *morph_dp, *morph_dn, *morph_dt;
    sfc_weld weld[2]; // SF_WELD_POSITION, SF_WELD_POSITION_NORMAL (NULL where not built)
    // jacobian gradients (sfi_gradients_view), NULL when skipped
    const uint32_t *slot_offsets, *slot_joint;
    const float* slot_coef; // slot_floats per slot
    uint32_t slot_floats;
    const uint32_t *grad_morph_offsets, *grad_morph_target;
    const float* grad_morph_duv;
    // jacobian-fan's (sfi_gradients_view of SF_METHOD_JACOBIAN_FAN), slot_offsets NULL when skipped
    struct {
        const uint32_t *slot_offsets, *slot_joint;
        const float* slot_coef; // SFK_JACOBIAN_FAN_SLOT_FLOATS per slot
        const uint32_t *morph_offsets, *morph_target;
        const float *morph_duv, *fan_normal; // 6 per entry; 3n
    } fan;
    const float* ones; // n determinants of the rest pose (the authored reference's rest rebuild)
    // n: the caller's number of each device vertex, where the device keeps its own (Morton) order
    // (cuda/gpu_order.c); NULL: the caller's order. The statistics name vertices by it.
    const uint32_t* caller;
    // fixed-point scatter: bounds of the accumulated terms at rest (see kernels_recompute.cu)
    float fixed_bound[3][2]; // [weighting][0 normal term, 1 tangent/bitangent term]
    uint32_t max_valence;    // corners of the largest vertex or weld group
};

// Device counters of one batch (sf_frames_report, and the first non-finite output).
enum {
    SFC_MIRRORED,
    SFC_SINGULAR,
    SFC_DEGENERATE_N,
    SFC_DEGENERATE_T,
    SFC_CAPPED,
    SFC_NONFINITE,
    SFC_FIRST_BAD,
    SFC_COUNTERS
};

// The running statistics of one series of angles on the device: what sf_angle_accumulator holds.
struct sfc_stats {
    unsigned long long* bins;   // SFK_ANGLE_BIN_COUNT
    unsigned long long* counts; // count, over_1, over_5, over_45, max key (bits << 32 | ~index), min bits
    double* sums;               // sum, sum2 (running, added in a fixed order)
    double* partial;            // 2 per block of the last run
    // Per instance of the launch, where not NULL (a clip's batch): the angles' sum in fixed point (frame_scale),
    // the largest angle's key as max key above, the handedness mismatches (tangents): 3 each.
    unsigned long long* frame;
    float frame_scale;
};
enum { SFC_COUNT, SFC_OVER1, SFC_OVER5, SFC_OVER45, SFC_MAX_KEY, SFC_MIN_BITS, SFC_STAT_COUNTS };

// The per-vertex summary counts of a row on the device (sf_error_summary's).
enum { SFC_E_DEGEN_N, SFC_E_DEGEN_T, SFC_E_DEGEN, SFC_E_HANDED, SFC_E_COUNTS };

// A frame's launch parameters: which instances, which outputs.
struct sfc_batch {
    uint32_t count;     // instances in this launch
    const float* bones; // count * 12 * bones
    const float* alpha; // count * targets, or NULL (no morph)
    size_t bone_stride, alpha_stride;
};

// Launchers (kernels.cu, kernels_recompute.cu, kernels_stats.cu); each returns the launch's error. Outputs are per instance: 3n / n / 3n / 4n floats;
// det may be NULL (not written). sfc_vertex_frames with a method and counters counts the frames report
// (SFC_COUNTERS) as it makes the frames; sfc_report counts it from frames already written.
sf_result sfc_vertex_frames(const sfc_topo* t, const sfc_batch* b, int method, int with_dirs, float cap, float* pos,
                            float* det, float* nrm, float* tan, unsigned long long* counters, cudaStream_t s,
                            sf_error* err);
// Up to 3 per-vertex methods (unchanged, skinned, inverse-transpose) in one pass over one deform: each method's
// frames into its nrm / tan, with counters its frames report (sfc_vertex_frames' frames and counts for each).
struct sfc_vertex_rows {
    uint32_t count;
    int method[3];
    float *nrm[3], *tan[3];
    unsigned long long* counters[3]; // SFC_COUNTERS each, or NULL
};
sf_result sfc_vertex_frames_rows(const sfc_topo* t, const sfc_batch* b, int with_dirs, const sfc_vertex_rows* rows,
                                 cudaStream_t s, sf_error* err);
sf_result sfc_faces(const sfc_topo* t, uint32_t count, const float* pos, const float* det, int weighting, float* face,
                    cudaStream_t s, sf_error* err);
sf_result sfc_gather(const sfc_topo* t, uint32_t count, const float* face, int weld, int weighting, float* nrm,
                     float* tan, cudaStream_t s, sf_error* err);
sf_result sfc_gather_direct(const sfc_topo* t, uint32_t count, const float* pos, const float* det, int weld,
                            int weighting, float* nrm, float* tan, cudaStream_t s, sf_error* err);
sf_result sfc_scatter(const sfc_topo* t, uint32_t count, const float* pos, const float* det, int weld, int weighting,
                      int fixed, float pose_scale, void* acc, float* nrm, float* tan, cudaStream_t s, sf_error* err);
sf_result sfc_one_pass(const sfc_topo* t, const sfc_batch* b, int with_dirs, int weld, int weighting, float* pos,
                       float* det, float* nrm, float* tan, cudaStream_t s, sf_error* err);
sf_result sfc_authored(const sfc_topo* t, uint32_t count, const float* rest_n, const float* rest_t, const float* pose_n,
                       const float* pose_t, const float* pos, float* nrm, float* tan, cudaStream_t s, sf_error* err);
sf_result sfc_report(const sfc_topo* t, uint32_t count, int method, const float* pos, const float* det,
                     const float* nrm, const float* tan, unsigned long long* counters, cudaStream_t s, sf_error* err);
// src's series added to dst's on the device (in stream order), and count counters.
sf_result sfc_stats_add(const sfc_stats* dst, const sfc_stats* src, cudaStream_t s, sf_error* err);
sf_result sfc_counts_add(unsigned long long* dst, const unsigned long long* src, uint32_t count, cudaStream_t s,
                         sf_error* err);
// A series' nonzero bins as (bin, count) pairs in no particular order, the first cap of them into bin_of and
// count_of; *entries (device) counts them all, so a count over cap tells the reader to copy the whole histogram.
// A clip's series fills well under half of its SFK_ANGLE_BIN_COUNT bins (at most 98,740 on the staged assets): the
// pairs are what is worth reading back.
sf_result sfc_bins_nonzero(const sfc_stats* st, uint32_t cap, uint32_t* bin_of, unsigned long long* count_of,
                           unsigned* entries, cudaStream_t s, sf_error* err);
// Angles of (nrm, tan) against (ref_n, ref_t) over count instances into the two series; e_counts: SFC_E_COUNTS.
// The reference's tangents per corner (MikkTSpace gives a vertex's corners their own), for the tangent errors:
// ref holds 4 floats per corner and instance (NULL: tangents measured per vertex); where differ is given and
// differ[i] is 0, the method's own corners are the reference's, bit for bit (recompute-fused's MikkTSpace tangents),
// so each corner meets itself.
struct sfc_corners {
    const float* ref;
    const unsigned* differ;
};
// differ[i] = whether instance i's corner tangents a differ from b in any bit (corners per instance, 4 floats each).
sf_result sfc_corners_differ(uint32_t count, size_t corners, const float* a, const float* b, unsigned* differ,
                             cudaStream_t s, sf_error* err);
// differ[i] and *any set where instance i's floats of a (floats per instance) differ from b's in any bit; neither
// is cleared, so that several buffers add into one flag (cuda/kernels_same.cu).
sf_result sfc_bits_differ(uint32_t count, size_t floats, const float* a, const float* b, unsigned* differ,
                          unsigned* any, cudaStream_t s, sf_error* err);
sf_result sfc_errors(const sfc_topo* t, uint32_t count, const float* nrm, const float* tan, const float* ref_n,
                     const float* ref_t, const sfc_corners* cn, const sfc_stats* normal, const sfc_stats* tangent,
                     unsigned long long* e_counts, cudaStream_t s, sf_error* err);
__global__ void sfc_header_compile_check(const float* in, float* out);
// cuda/kernels_methods.cu: bone-normal-matrices and jacobian-fan fused with morph + skin (method one of the
// two; counters: the frames report as sfc_vertex_frames counts it, may be NULL), and recompute-fused (the reference per vertex
// from the pose, sfk_recompute_fused_vertex; tangents 0: normals only, as for MikkTSpace).
sf_result sfc_method_frames(const sfc_topo* t, const sfc_batch* b, int method, int with_dirs, float cap, float* pos,
                            float* det, float* nrm, float* tan, unsigned long long* counters, cudaStream_t s,
                            sf_error* err);
sf_result sfc_recompute_fused(const sfc_topo* t, const sfc_batch* b, int weld, int weighting, int tangents,
                              float* pos, float* det, float* nrm, float* tan, cudaStream_t s, sf_error* err);
// The per-vertex rows (at most 4 of unchanged, skinned, inverse-transpose, jacobian) of an evaluation in one
// pass from the pose: each row's angles against ref_n / ref_t into its series, its summary counts, and with
// counters its report; no frame is written.
sf_result sfc_rows_errors(const sfc_topo* t, const sfc_batch* b, const int* methods, size_t count, int with_dirs,
                          float cap, const float* ref_n, const float* ref_t, const sfc_corners* cn,
                          sfc_stats* const* normal, sfc_stats* const* tangent, unsigned long long* const* e_counts,
                          unsigned long long* const* counters, cudaStream_t s, sf_error* err);
// The locality blocks of one weld mode on the device (sfi_gpu_blocks, cuda/gpu_blocks.c), in one
// allocation (base); the kernels of cuda/kernels_halo.cu read them.
struct sfc_halo {
    void* base;
    uint32_t blocks, max_locals, max_faces;
    const uint32_t *own_offsets, *local_offsets, *locals, *face_offsets, *corner_offsets;
    const uint16_t *face_locals, *corners;
    uint32_t faces; // block faces in all (a face of several blocks counts once per block)
    const float* uv_terms; // sfk_face_uv_terms of every block face, term k of face f at k * faces + f; NULL: no UVs
};
// Builds topo's blocks for weld (-1, 0, 1) and uploads them, their vertices as device vertices (inv: the
// device's number of each of topo's vertices, NULL: the same); a block that the device's shared memory cannot
// hold is SF_ERROR_UNSUPPORTED naming the sizes. free: NULL-safe, zeroes it.
sf_result sfc_halo_upload(const sf_topology* topo, int weld, const uint32_t* inv, sfc_halo* out, sf_error* err);
// What sfc_halo_upload allocates for topo and weld (the blocks built on the host and freed); 0 where they cannot be
// built (the workspace then rebuilds with face-gather).
size_t sfc_halo_bytes(const sf_topology* topo, int weld);
void sfc_halo_free(sfc_halo* h);
// The rebuilt frames over the blocks: from the position buffers (halo-gather), or skinned in the same launch
// (one-pass, writing pos / det where given). h must be the layout of weld.
sf_result sfc_halo_gather(const sfc_topo* t, const sfc_halo* h, uint32_t count, const float* pos, const float* det,
                          int weld, int weighting, float* nrm, float* tan, cudaStream_t s, sf_error* err);
sf_result sfc_halo_one_pass(const sfc_topo* t, const sfc_halo* h, const sfc_batch* b, int weld, int weighting,
                            float* pos, float* det, float* nrm, float* tan, cudaStream_t s, sf_error* err);
// Blocks sfc_errors launches for count instances, at most SFC_ERROR_BLOCKS (sfc_stats.partial holds 2 doubles
// for each of those).
#define SFC_ERROR_BLOCKS 1056u
size_t sfc_error_blocks(const sfc_topo* t, uint32_t count);

// cuda/kernels_mikk.cu: MikkTSpace's groups' sums on the device, over one frame's groups (sfi_mikk_groups) kept
// here. sfc_mikk_set replaces them, numbered in the device's order (order: NULL for the caller's), left unset where
// the host must keep them (degenerate triangles); sfc_mikk_covers: whether a frame's groups, prepared on the host by part `part` of a round, are these (its
// answer kept per groups epoch); sfc_mikk_mask: the pinned per-instance mask (1: the device computes it) for up to
// cap instances; sfc_mikk_run: the masked instances' per-vertex tangents into tan and, with ct, their corner
// tangents (w as the per-vertex output's) into ct.
struct sfc_mikk;
void sfc_mikk_destroy(sfc_mikk* m);
int sfc_mikk_valid(const sfc_mikk* m);
struct sfi_gpu_order;
sf_result sfc_mikk_set(sfc_mikk** m, const sf_topology* topo, const struct sfi_gpu_order* order,
                       const sfi_mikk_groups* g, cudaStream_t s, sf_error* err);
int sfc_mikk_covers(sfc_mikk* m, size_t part, const sfi_mikk_groups* g);
uint8_t* sfc_mikk_mask(sfc_mikk* m, uint32_t cap, sf_error* err);
sf_result sfc_mikk_run(sfc_mikk* m, const sfc_topo* t, uint32_t count, const float* pos, const float* nrm,
                       const float* det, float* tan, float* ct, cudaStream_t s, sf_error* err);

#endif // SF_CUDA_INTERNAL_H

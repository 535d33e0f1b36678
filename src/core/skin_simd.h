/* The fast paths shared by skin.c, jacobian.c and the instruction-set files (skin_sse2.c, skin_avx2.c,
 * skin_avx512.c, skin_wasm.c, each instantiating skin_body.h, jacobian_body.h and jacobian_fan_body.h): the fused pass's job over blocks of the topology's lanes, and
 * the jacobian's over vertex ranges. */
#ifndef SF_SKIN_SIMD_H
#define SF_SKIN_SIMD_H

#include "sf_internal.h"

/* The steps, loops and row helpers of the fast paths inlined into each (slot count, method) case of their
 * switches, where those are constants, and into every call site (the includers' helpers too). */
#if defined(__GNUC__) || defined(__clang__)
#define SK_INLINE static inline __attribute__((always_inline))
#else
#define SK_INLINE static inline
#endif

/* method values of a job beside the kernels' SFK_METHOD_* (0 to 3 for the per-vertex methods) */
#define SFI_SKIN_POSITIONS_ONLY 16
/* sfi_deform's arrays (morph_pos, morph_nrm, morph_tan, blend, det, final_pos into `deform`), nothing counted */
#define SFI_SKIN_DEFORM 17

typedef struct sfi_skin_job {
    const sfi_lanes* lanes;
    const float* palette; /* 16 floats per bone (12 used), then the identity */
    uint32_t identity;    /* the identity's index in the palette (the bone count) */
    size_t vertex_count;
    /* morph (alpha NULL = none): the topology's CSR */
    const float* alpha;
    int with_dirs;
    const uint32_t *morph_offsets, *morph_target;
    const float *morph_dp, *morph_dn, *morph_dt;
    int method;             /* SFK_METHOD_UNCHANGED / SKINNED / INVERSE_TRANSPOSE / BONE_NORMAL_MATRICES or
                               SFI_SKIN_POSITIONS_ONLY / SFI_SKIN_DEFORM */
    int has_uvs;            /* 0: tangent xyz written as zero and not counted */
    float *positions, *normals, *tangents; /* 3n, 3n, 4n; each may be NULL */
    float* det;             /* n determinants of the blended matrices, positions only; may be NULL */
    sf_workspace* deform;   /* SFI_SKIN_DEFORM: the workspace whose deform arrays are written */
    const sf_workspace* deformed; /* a per-vertex method read from this workspace's deform arrays (blend,
                                     morph_nrm, morph_tan) instead of deforming; NULL: deform in the pass */
    /* bone-normal-matrices' scalar redo: the pose's bones (12 floats each) and the topology's influences */
    const float* bones;
    const uint32_t* joints;
    const float* weights;
    uint32_t influence_count;
} sfi_skin_job;

/* The job of a pass of job_method over the topology's lanes (skin.c): the pose's bones into ws's palette, morph
 * directions by dirs, the outputs out (NULL: none) and det as sfi_skin_fused takes them. */
void sfi_skin_job_init(const sf_topology* topo, const sf_pose* pose, int job_method, sf_morph_directions dirs,
                       sf_workspace* ws, const sf_frames_out* out, float* det, sfi_skin_job* job);

/* The jacobian method over vertices (jacobian.c, jacobian_body.h): the arguments of sfk_jacobian_vertex /
 * sfk_jacobian_fan_vertex from the topology's gradients and the workspace's deform arrays (the scalar loop) or
 * the deform of the fast path's own pass. */
typedef struct sfi_jacobian_job {
    const sf_topology* topo;
    const sfi_gradients* g;
    const float* bones; /* the pose's, 12 floats each */
    const float* alpha; /* the pose's morph weights, NULL = none */
    float cap;
    sf_workspace* ws;   /* capped is written here; the scalar loop reads its deform arrays */
    float *normals, *tangents; /* 3n, 4n; each may be NULL */
    float* positions;   /* the fast path writes the final positions here, NULL = none; the report's finiteness
                           test covers them */
    sfi_skin_counts* counts; /* the fast path: the report of each chunk of SFI_SKIN_GRAIN vertices */
    sfi_skin_job skin;       /* the fast path: the deform's job (positions only, the palette with the identity) */
    int deformed;            /* the fast path: read the deform in ws (sfi_deform's, this pose's) instead of its own */
} sfi_jacobian_job;

/* One vertex by the scalar kernel (jacobian.c) from its deform: the blended matrix (12 floats), determinant,
 * morphed and final positions; outputs and capped[v]; with c, the vertex's report added to it as frames.c counts it
 * from the outputs (first_bad: v where an output is not finite). sfi_jacobian_vertex reads them from ws. */
void sfi_jacobian_vertex_at(const sfi_jacobian_job* job, size_t v, const float* blend, float det,
                            const float* morph_pos, const float* final_pos, sfi_skin_counts* c);
void sfi_jacobian_vertex(const sfi_jacobian_job* job, size_t v, sfi_skin_counts* c);
/* Vertices [begin, end) of the jacobian (not jacobian-fan) with SSE2 / AVX2 / AVX-512, deformed in the pass from
 * the lanes (begin a multiple of SFI_LANES), their report into *counts. */
void sfi_jacobian_range_sse2(const sfi_jacobian_job* job, size_t begin, size_t end, sfi_skin_counts* counts);
void sfi_jacobian_range_avx2(const sfi_jacobian_job* job, size_t begin, size_t end, sfi_skin_counts* counts);
void sfi_jacobian_range_avx512(const sfi_jacobian_job* job, size_t begin, size_t end, sfi_skin_counts* counts);
/* The same for jacobian-fan (jacobian_fan_body.h) with SSE2 / AVX2 / AVX-512. */
void sfi_jacobian_fan_range_sse2(const sfi_jacobian_job* job, size_t begin, size_t end, sfi_skin_counts* counts);
void sfi_jacobian_fan_range_avx2(const sfi_jacobian_job* job, size_t begin, size_t end, sfi_skin_counts* counts);
void sfi_jacobian_fan_range_avx512(const sfi_jacobian_job* job, size_t begin, size_t end, sfi_skin_counts* counts);
/* Both with WebAssembly SIMD128 (skin_wasm.c; stubs in a build without -msimd128). */
void sfi_jacobian_range_wasm(const sfi_jacobian_job* job, size_t begin, size_t end, sfi_skin_counts* counts);
void sfi_jacobian_fan_range_wasm(const sfi_jacobian_job* job, size_t begin, size_t end, sfi_skin_counts* counts);

/* The pose's bones into the workspace's palette (16 floats each, the identity last); returns the identity's index. */
uint32_t sfi_skin_palette(const sf_topology* topo, const sf_pose* pose, sf_workspace* ws);

/* Blocks [b0, b1) of the job; adds to *counts (first_bad: the smallest). */
void sfi_skin_blocks_sse2(const sfi_skin_job* job, size_t b0, size_t b1, sfi_skin_counts* counts);
/* The entry of the instruction set `level` (SFI_SIMD_SSE2 and up). */
void sfi_skin_blocks(int level, const sfi_skin_job* job, size_t b0, size_t b1, sfi_skin_counts* counts);
void sfi_skin_blocks_avx2(const sfi_skin_job* job, size_t b0, size_t b1, sfi_skin_counts* counts);
void sfi_skin_blocks_avx512(const sfi_skin_job* job, size_t b0, size_t b1, sfi_skin_counts* counts);
/* The same with WebAssembly SIMD128 (skin_wasm.c; a stub in a build without -msimd128). */
void sfi_skin_blocks_wasm(const sfi_skin_job* job, size_t b0, size_t b1, sfi_skin_counts* counts);

/* sf_quantized_skin's pass (quant.c, quant_body.h): the mesh's integer streams decoded and skinned. */
typedef struct sfi_quant_job {
    const sf_quantized_mesh* mesh;
    const float* bones; /* the pose's, 12 floats each */
    float *positions, *normals, *tangents; /* 3n, 3n, 4n; each may be NULL */
    const float* bone_rows; /* set by the pass where a level permutes the bones from rows (quant_body.h), else NULL */
} sfi_quant_job;

/* One vertex by the scalar reference (quant.c): the streams decoded as the public header says, then the float
 * kernels of `skinned` (sfk_blend_matrix, sfk_mat_point, sfk_vertex_frame). Returns 0 (and writes nothing) where
 * a joint index is out of range. */
int sfi_quant_vertex(const sfi_quant_job* job, size_t v);
/* Vertices [begin, end) with SSE2 / AVX2 / AVX-512 / SIMD128 (quant_body.h); returns the first vertex with a joint
 * out of range, SIZE_MAX if none. */
size_t sfi_quant_range_sse2(const sfi_quant_job* job, size_t begin, size_t end);
size_t sfi_quant_range_avx2(const sfi_quant_job* job, size_t begin, size_t end);
size_t sfi_quant_range_avx512(const sfi_quant_job* job, size_t begin, size_t end);
size_t sfi_quant_range_wasm(const sfi_quant_job* job, size_t begin, size_t end);

#endif

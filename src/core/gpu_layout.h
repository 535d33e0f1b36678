/* What the GPU shaders (shaders/) share besides the topology's arrays (sf_topology_gpu_buffers,
 * gpu_layout.c): the parameter block, the per-vertex `state` a deformation pass leaves for the others, and the
 * Vulkan bindings. tools/gen_shader_layout.c writes GLSL, HLSL, WGSL and JavaScript from these tables and from
 * sf_topology_gpu_buffers, SF_METHODS and the public enums; nothing else spells them out. */
#ifndef SF_GPU_LAYOUT_H
#define SF_GPU_LAYOUT_H

/* The parameter block: 12 words, push constants in Vulkan (48 bytes), the first words of WGSL's uniform.
 * X(type: u32 or f32, name, what it holds). */
#define SF_GPU_PARAMS(X)                                                                              \
    X(u32, vertex_count, "vertices")                                                                  \
    X(u32, influences, "influences per vertex (joints and weights per vertex)")                       \
    X(u32, morph_dirs, "sf_morph_directions: SF_MORPH_DIRECTIONS_DELTAS, _NONE or _NORMALS")          \
    X(u32, method, "sf_method of a pass that computes several (frames_vertex: SF_METHOD_UNCHANGED..)") \
    X(u32, face_count, "triangles")                                                                   \
    X(u32, weighting, "sf_weighting of the reference: SF_WEIGHTING_AREA, _ANGLE or _UNIFORM")          \
    X(u32, has_uv, "1 when the mesh has UVs (a tangent frame), else 0")                               \
    X(u32, out_base, "WGSL: word offset of this pass's frames in `frames` (Vulkan: 0)")               \
    X(f32, bitangent_sign, "-1 for glTF UVs (v down), +1 for v up")                                   \
    X(f32, jacobian_cap, "Tarini's cap of the jacobians (0: off)")                                    \
    X(u32, morph_base, "WGSL: where the morph weights start in `pose` (Vulkan: 0)")                   \
    X(u32, pad0, "zero")

/* Threads per workgroup of every pass over vertices or triangles (the .comp and .wgsl files of shaders/ and the
 * HLSL made from them); a dispatch is ceil(threads / SF_GPU_PASS_WORKGROUP) workgroups in one dimension. */
#define SF_GPU_PASS_WORKGROUP 64

/* The per-vertex state the deformation pass writes: X(name, first float, floats). */
#define SF_GPU_STATE_STRIDE 32
#define SF_GPU_STATE(X)                                                         \
    X(POSITION, 0, 3)         /* final (skinned) position */                    \
    X(DET, 3, 1)              /* det of the blended matrix */                   \
    X(MORPHED_POSITION, 4, 3) /* morphed rest position */                       \
    X(MORPHED_NORMAL, 7, 3)   /* morphed rest normal, not normalised */         \
    X(MORPHED_TANGENT, 10, 3) /* morphed rest tangent xyz, not normalised */    \
    X(BLEND, 13, 12)          /* the blended bone matrix, column-major 3x4 */

/* The pose: SF_GPU_BONE_FLOATS floats per bone, a column-major 3x4 (skinframe.h's Conventions; the state's BLEND
 * is one). The triangles' scratch `face`: SF_GPU_FACE_FLOATS floats per triangle (its binding says which). */
#define SF_GPU_BONE_FLOATS SF_BONE_FLOATS
#define SF_GPU_FACE_FLOATS 12

/* Vulkan bindings (descriptor set 0, storage buffers; 27 stay within lavapipe's 32 per stage):
 * X(binding, name, type: u32 or f32, what). A name of sf_topology_gpu_buffers is that array; the others are the
 * pose and the passes' scratch. Bindings 20..25 hold the gradients of the method that runs: jacobian's (grad_*)
 * or jacobian-fan's (fan_*, the ALT list), the same CSR types. */
#define SF_GPU_BINDINGS(X)                                                               \
    X(0, rest_positions, f32, "")                                                        \
    X(1, rest_normals, f32, "")                                                          \
    X(2, rest_tangents, f32, "")                                                         \
    X(3, joints, u32, "")                                                                \
    X(4, weights, f32, "")                                                               \
    X(5, morph_offsets, u32, "")                                                         \
    X(6, morph_target, u32, "")                                                          \
    X(7, morph_dp, f32, "")                                                              \
    X(8, morph_dn, f32, "")                                                              \
    X(9, morph_dt, f32, "")                                                              \
    X(10, bones, f32, "the pose: SF_BONE_FLOATS per bone, column-major 3x4 (p' = A p + t)") \
    X(11, morph_weights, f32, "the pose: one weight per morph target")                   \
    X(12, state, f32, "SF_GPU_STATE_STRIDE floats per vertex (SF_GPU_STATE)")            \
    X(13, normals, f32, "output: 3 floats per vertex")                                   \
    X(14, tangents, f32, "output: 4 floats per vertex, w = handedness")                  \
    X(15, face, f32, "SF_FACE_FLOATS per triangle: face normal, UV tangent, UV bitangent, 3 corner weights") \
    X(16, adj_offsets, u32, "")                                                          \
    X(17, adj_corners, u32, "")                                                          \
    X(18, uvs, f32, "")                                                                  \
    X(19, indices, u32, "")                                                              \
    X(20, grad_slot_offsets, u32, "")                                                    \
    X(21, grad_slot_joint, u32, "")                                                      \
    X(22, grad_slot_guv, f32, "")                                                        \
    X(23, grad_morph_offsets, u32, "")                                                   \
    X(24, grad_morph_target, u32, "")                                                    \
    X(25, grad_morph_duv, f32, "")                                                       \
    X(26, fan_normal, f32, "")
#define SF_GPU_BINDINGS_ALT(X)             \
    X(20, fan_slot_offsets, u32, "")       \
    X(21, fan_slot_joint, u32, "")         \
    X(22, fan_slot_coef, f32, "")          \
    X(23, fan_morph_offsets, u32, "")      \
    X(24, fan_morph_target, u32, "")       \
    X(25, fan_morph_duv, f32, "")
#define SF_GPU_BINDING_COUNT 27

/* The output frames of the passes: one slot per sf_method, SF_GPU_FRAME_FLOATS floats per vertex in each, the
 * slot's n normals (3 floats each) first, then its n tangents (4 floats each, w = handedness). */
#define SF_GPU_FRAME_FLOATS 7
#define SF_GPU_FRAME_NORMAL_FLOATS 3

/* The browser's uniform blocks besides Params: X(type: u32, f32, vec4f or mat4x4f, name, what) in order, each at
 * a multiple of its alignment (WGSL's uniform rules: 16 bytes for vec4f and mat4x4f); the generator pads each
 * block to 16 bytes. The statistics (web/src/gpu_stats.wgsl) and the cross-check (web/src/gpu_compare.wgsl)
 * reduce each slot's vertices in workgroups of SF_GPU_REDUCE_WORKGROUP (web/src/reduce.wgsl). */
#define SF_GPU_REDUCE_WORKGROUP 256
#define SF_GPU_STATS_PARAMS(X)                                                       \
    X(u32, n, "vertices")                                                            \
    X(u32, ref_slot, "the frames' slot (sf_method) every slot is measured against")  \
    X(u32, groups, "workgroups per slot of the first pass")                          \
    X(u32, tangents, "1: the tangents are measured too, else 0")
#define SF_GPU_COMPARE_PARAMS(X)                                                     \
    X(u32, n, "vertices")                                                            \
    X(u32, groups, "workgroups per slot of the first pass")                          \
    X(u32, tangents, "1: the tangents are compared too, else 0")
/* What each slot's reduction leaves: one vec4, its lanes X(name, lane); the page reads back
 * SF_GPU_REDUCE_OUT_FLOATS floats per slot. The statistics: the angles' means and maxima against the reference
 * slot (the tangent pair 0 without a tangent frame). The cross-check: the largest angles between the GPU's frames
 * and the core's, and the count of tangent handedness signs that differ. */
#define SF_GPU_REDUCE_OUT_FLOATS 4
#define SF_GPU_STATS_OUT(X) \
    X(NORMAL_MEAN, 0)       \
    X(NORMAL_MAX, 1)        \
    X(TANGENT_MEAN, 2)      \
    X(TANGENT_MAX, 3)
#define SF_GPU_COMPARE_OUT(X) \
    X(NORMAL_MAX, 0)          \
    X(TANGENT_MAX, 1)         \
    X(HANDEDNESS, 2)
/* The four views drawn from the passes' buffers (web/src/gpu_views.{js,wgsl}); the page's three.js views
 * (web/src/views.js) shade with the same light. */
#define SF_GPU_VIEW_LIGHT {0.4f, 1.0f, 0.7f} /* direction towards the light, not normalised */
/* Both views' shading: the error heat map runs from HEAT_LOW at 0 degrees through HEAT_MID at half of
 * HEAT_FULL_DEG to HEAT_HIGH there and beyond, NOT_MEASURED where no angle is measured, lit by
 * ambient + (1 - ambient) |n.l|; the other lit views' SURFACE by ambient + (1 - ambient) max(n.l, 0). */
#define SF_GPU_VIEW_HEAT_FULL_DEG 45.0f
#define SF_GPU_VIEW_HEAT_LOW {0.13f, 0.72f, 0.26f} /* green */
#define SF_GPU_VIEW_HEAT_MID {0.95f, 0.85f, 0.2f}  /* yellow */
#define SF_GPU_VIEW_HEAT_HIGH {0.9f, 0.12f, 0.1f}  /* red */
#define SF_GPU_VIEW_NOT_MEASURED {0.32f, 0.34f, 0.38f} /* grey */
#define SF_GPU_VIEW_HEAT_AMBIENT 0.6f
#define SF_GPU_VIEW_SURFACE {0.78f, 0.8f, 0.84f}
#define SF_GPU_VIEW_SURFACE_AMBIENT 0.18f
/* The normal-mapped view's bump map in the tangent frame: height BUMP_HEIGHT sin(2 pi BUMP_CYCLES u)
 * sin(2 pi BUMP_CYCLES v), its slopes scaled by BUMP_SLOPE into the tangent-space normal (+Y along -v, as glTF's
 * normal maps), so that a tangent's error shows as a shifted pattern. */
#define SF_GPU_VIEW_BUMP_CYCLES 8.0f
#define SF_GPU_VIEW_BUMP_HEIGHT 0.5f
#define SF_GPU_VIEW_BUMP_SLOPE 0.06f
#define SF_GPU_VIEW_PARAMS(X)                                                                   \
    X(mat4x4f, view_proj, "projection times view times model (WebGL's clip space, z in -w..w)") \
    X(mat4x4f, model, "the mesh's positions to the scene: its 3x3 turns the shaded normals")   \
    X(u32, n, "vertices")                                                                       \
    X(u32, shade_slot, "the frames' slot (sf_method) the mesh is shaded with")                  \
    X(u32, method_slot, "the error views: the slot measured")                                   \
    X(u32, ref_slot, "the error views: the reference slot")                                     \
    X(u32, mode, "SF_VIEW_MODE_*")                                                              \
    X(u32, error, "SF_VIEW_ERROR_*: the angle the heat map shows")                              \
    X(u32, indices, "word offset of the triangles' vertex indices in `topo`")                  \
    X(u32, uvs, "word offset of the UVs in `topo`")                                             \
    X(u32, has_uv, "1 when the mesh has UVs, else 0")

/* What a view draws: X(name, value). */
#define SF_GPU_VIEW_MODES(X)   \
    X(NORMAL_COLOURS, 0)       \
    X(LAMBERT, 1)              \
    X(NORMAL_MAPPED, 2)        \
    X(ERROR_HEAT, 3)
/* The angle an error heat map shows: X(name, value); NOT_MEASURED draws grey, OFF measures nothing (views that
 * are not heat maps). */
#define SF_GPU_VIEW_ERRORS(X) \
    X(NORMAL_ANGLE, 0)        \
    X(TANGENT_ANGLE, 1)       \
    X(NOT_MEASURED, 2)        \
    X(OFF, 3)

#endif

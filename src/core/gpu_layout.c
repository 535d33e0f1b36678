/* The topology's arrays in the layout the shaders read (skinframe.h, "GPU data"): the one place that names
 * them. The shaders' declarations are generated from this table and gpu_layout.h (tools/gen_shader_layout.c;
 * a new array also needs its binding there; regenerate as shaders/README.md says). */
#include "sf_internal.h"
#include "sf_kernels.h"

#include <string.h>

size_t sf_topology_gpu_buffers(const sf_topology* topo, sf_gpu_buffer* out, size_t cap)
{
    if (!topo) return 0;
    size_t n = topo->vertex_count, F = topo->triangle_count, K = topo->influence_count;
    size_t E = topo->morph_offsets ? topo->morph_offsets[n] : 0;
    sfi_gradients_view g;
    int has_g = sfi_gradients_get(topo, SF_METHOD_JACOBIAN, &g); /* (g.u, g.v): 2 floats per slot */
    size_t S = has_g ? g.slot_offsets[n] : 0, M = has_g ? g.morph_offsets[n] : 0;
    sfi_gradients_view f; /* jacobian-fan: SFK_JACOBIAN_FAN_SLOT_FLOATS per slot, in the basis of fan_normal */
    int has_f = sfi_gradients_get(topo, SF_METHOD_JACOBIAN_FAN, &f);
    size_t FS = has_f ? f.slot_offsets[n] : 0, FM = has_f ? f.morph_offsets[n] : 0;
    const sf_gpu_buffer list[] = {
        {"rest_positions", "rest position xyz", SF_GPU_F32, n, 3, topo->rest_positions},
        {"rest_normals", "rest normal xyz (unit, or rebuilt)", SF_GPU_F32, n, 3, topo->rest_normals},
        {"rest_tangents", "rest tangent xyz, handedness w", SF_GPU_F32, n, 4, topo->rest_tangents},
        {"uvs", "texture coordinate uv (absent: no tangent frame)", SF_GPU_F32, topo->has_uvs ? n : 0, 2, topo->uvs},
        {"indices", "triangle: three vertex indices, counter-clockwise", SF_GPU_U32, F, 3, topo->indices},
        {"joints", "influence_count joint indices per vertex", SF_GPU_U32, K ? n : 0, (uint32_t)K, topo->joints},
        {"weights", "influence_count weights per vertex, summing to 1 (all 0: identity)", SF_GPU_F32, K ? n : 0,
         (uint32_t)K, topo->weights},
        {"morph_offsets", "vertex v's morph entries are [morph_offsets[v], morph_offsets[v+1])", SF_GPU_U32, n + 1, 1,
         topo->morph_offsets},
        {"morph_target", "morph entry: its target index", SF_GPU_U32, E, 1, topo->morph_target},
        {"morph_dp", "morph entry: position delta xyz", SF_GPU_F32, E, 3, topo->morph_dp},
        {"morph_dn", "morph entry: normal delta xyz", SF_GPU_F32, E, 3, topo->morph_dn},
        {"morph_dt", "morph entry: tangent delta xyz", SF_GPU_F32, E, 3, topo->morph_dt},
        {"adj_offsets", "vertex v's corners are adj_corners[adj_offsets[v] .. adj_offsets[v+1])", SF_GPU_U32, n + 1,
         1, topo->adj_offsets},
        {"adj_corners", "corner = 3 * triangle + (0, 1, 2), grouped by vertex", SF_GPU_U32, 3 * F, 1,
         topo->adj_corners},
        {"grad_slot_offsets", "jacobian: vertex v's weight-gradient slots [grad_slot_offsets[v], [v+1])",
         SF_GPU_U32, has_g ? n + 1 : 0, 1, has_g ? g.slot_offsets : NULL},
        {"grad_slot_joint", "jacobian slot: its joint, 0xFFFFFFFF = the identity (rest) transform", SF_GPU_U32, S, 1,
         has_g ? g.slot_joint : NULL},
        {"grad_slot_guv", "jacobian slot: weight gradient (g.u, g.v) in the vertex's basis of its rest normal",
         SF_GPU_F32, S, 2, has_g ? g.slot_coef : NULL},
        {"grad_morph_offsets", "jacobian: vertex v's morph-gradient entries [grad_morph_offsets[v], [v+1])",
         SF_GPU_U32, has_g ? n + 1 : 0, 1, has_g ? g.morph_offsets : NULL},
        {"grad_morph_target", "jacobian morph entry: its target index", SF_GPU_U32, M, 1,
         has_g ? g.morph_target : NULL},
        {"grad_morph_duv", "jacobian morph entry: (grad d) u xyz, (grad d) v xyz", SF_GPU_F32, M, 6,
         has_g ? g.morph_duv : NULL},
        {"fan_slot_offsets", "jacobian-fan: vertex v's weight slots [fan_slot_offsets[v], [v+1])", SF_GPU_U32,
         has_f ? n + 1 : 0, 1, has_f ? f.slot_offsets : NULL},
        {"fan_slot_joint", "jacobian-fan slot: its joint, 0xFFFFFFFF = the identity (rest) transform", SF_GPU_U32, FS,
         1, has_f ? f.slot_joint : NULL},
        {"fan_slot_coef", "jacobian-fan slot: g.u, g.v, K_uu, K_uv, K_vu, K_vv in the basis of the vertex's fan normal",
         SF_GPU_F32, FS, 6, has_f ? f.slot_coef : NULL},
        {"fan_morph_offsets", "jacobian-fan: vertex v's morph-gradient entries [fan_morph_offsets[v], [v+1])",
         SF_GPU_U32, has_f ? n + 1 : 0, 1, has_f ? f.morph_offsets : NULL},
        {"fan_morph_target", "jacobian-fan morph entry: its target index", SF_GPU_U32, FM, 1,
         has_f ? f.morph_target : NULL},
        {"fan_morph_duv", "jacobian-fan morph entry: (grad d) u xyz, (grad d) v xyz in the fan normal's basis",
         SF_GPU_F32, FM, 6, has_f ? f.morph_duv : NULL},
        {"fan_normal", "jacobian-fan: the rest normal of the vertex's welded fan (the basis of its coefficients)",
         SF_GPU_F32, has_f ? n : 0, 3, has_f ? f.fan_normal : NULL},
    };
    size_t count = sizeof list / sizeof list[0];
    _Static_assert(sizeof list / sizeof list[0] <= SF_GPU_MAX_BUFFERS, "SF_GPU_MAX_BUFFERS");
    _Static_assert(SFK_JACOBIAN_FAN_SLOT_FLOATS == 6, "fan_slot_coef's components");
    for (size_t i = 0; out && i < count && i < cap; ++i) {
        out[i] = list[i];
        if (out[i].count == 0) out[i].data = NULL;
    }
    return count;
}

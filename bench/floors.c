/* The byte floors of the benchmarks (floors.h). */
#include "floors.h"

#include "sf_internal.h"

floors floors_of(const sf_topology* topo)
{
    size_t n = topo->vertex_count, e = topo->morph_offsets[n];
    floors f;
    f.skin_in = n * (12.0 + 8.0 + 16.0);            /* rest position, 4 x u16 joints, 4 x f32 weights */
    f.dir_in = n * (12.0 + 16.0);                   /* rest normal, rest tangent */
    f.morph_pos = 4.0 * (n + 1) + e * (4.0 + 12.0); /* CSR offsets, (target, position delta) per entry */
    f.morph_dirs = e * 24.0;                        /* normal and tangent deltas */
    sfi_gradients_view g;
    f.grads = f.fan_grads = 0.0;
    if (sfi_gradients_get(topo, SF_METHOD_JACOBIAN, &g))
        f.grads = 4.0 * (n + 1) * 2 + g.slot_offsets[n] * (4.0 + 4.0 * g.slot_floats) + g.morph_offsets[n] * 28.0;
    /* jacobian-fan's own: its slots (joint + 6 coefficients), morph gradients and each vertex's fan normal */
    if (sfi_gradients_get(topo, SF_METHOD_JACOBIAN_FAN, &g))
        f.fan_grads = 4.0 * (n + 1) * 2 + g.slot_offsets[n] * (4.0 + 4.0 * g.slot_floats) + g.morph_offsets[n] * 28.0 +
                      n * 12.0;
    f.faces = topo->triangle_count * 12.0 + 4.0 * (n + 1) + topo->triangle_count * 12.0 +
              n * 8.0; /* indices, adjacency, uvs */
    f.out_pos = n * 12.0;
    f.out_frame = n * 28.0; /* float3 normal + float4 tangent */
    return f;
}

double floors_method_in(const floors* f, sf_method m)
{
    double in = f->skin_in + f->morph_pos;
    switch (m) {
    case SF_METHOD_JACOBIAN: in += f->dir_in + f->grads; break;
    case SF_METHOD_JACOBIAN_FAN: in += f->dir_in + f->fan_grads; break;
    case SF_METHOD_RECOMPUTE:
    case SF_METHOD_RECOMPUTE_FUSED: in += f->faces; break;
    default: in += f->dir_in + f->morph_dirs; break;
    }
    return in;
}

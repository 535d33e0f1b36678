/* The byte floors of the benchmarks (floors.h). */
#include "floors.h"

#include "sf_internal.h"

/* A jacobian method's gradients: its two CSR offset arrays, its weight slots (joint + slot_floats coefficients)
 * and its morph gradients; 0 where the topology has none for the method. */
static double gradient_bytes(const sf_topology* topo, sf_method m)
{
    size_t n = topo->vertex_count;
    sfi_gradients_view g;
    if (!sfi_gradients_get(topo, m, &g)) return 0.0;
    return 4.0 * (n + 1) * 2 + g.slot_offsets[n] * (4.0 + 4.0 * g.slot_floats) + g.morph_offsets[n] * 28.0;
}

floors floors_of(const sf_topology* topo)
{
    size_t n = topo->vertex_count, e = topo->morph_offsets[n];
    floors f;
    f.skin_in = n * (12.0 + 8.0 + 16.0);            /* rest position, 4 x u16 joints, 4 x f32 weights */
    f.dir_in = n * (12.0 + 16.0);                   /* rest normal, rest tangent */
    f.morph_pos = 4.0 * (n + 1) + e * (4.0 + 12.0); /* CSR offsets, (target, position delta) per entry */
    f.morph_dirs = e * 24.0;                        /* normal and tangent deltas */
    f.grads = gradient_bytes(topo, SF_METHOD_JACOBIAN);
    /* jacobian-fan's own gradients (slots of a joint + 6 coefficients) and each vertex's fan normal */
    f.fan_grads = gradient_bytes(topo, SF_METHOD_JACOBIAN_FAN);
    if (f.fan_grads > 0.0) f.fan_grads += n * 12.0;
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

/* The byte floors of the benchmarks: what each pass must read and write once, per instance, in skinframe's packed
 * layout (docs/benchmarks.md lists the terms). bench_cuda times its stages against them, bench_skin its cases. */
#ifndef BENCH_FLOORS_H
#define BENCH_FLOORS_H

#include "skinframe.h"

typedef struct floors {
    double skin_in, dir_in, morph_pos, morph_dirs, grads, fan_grads, faces, out_pos, out_frame;
} floors;

floors floors_of(const sf_topology* topo);

/* What a method's frames from the pose read: the skinning inputs and the morph, with the rest directions (and their
 * morph deltas, or the jacobians' gradients), or for the rebuilt reference and recompute-fused the topology. The
 * outputs are out_pos + out_frame per instance. */
double floors_method_in(const floors* f, sf_method m);

#endif

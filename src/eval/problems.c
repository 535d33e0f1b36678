/* The data problems of the primitives an evaluation uses, summed per cause. */
#include "eval_internal.h"

#include <string.h>

size_t sf_asset_problems_gather(const sf_gltf* g, const sf_asset_unit* units, size_t unit_count, uint32_t limit,
                                sf_asset_problem_total* totals)
{
    memset(totals, 0, SF_GLTF_PROBLEM_COUNT * sizeof *totals);
    size_t all = 0;
    for (size_t p = 0; p < g->primitive_count; ++p) {
        bool used = false;
        for (size_t i = 0; i < unit_count; ++i) used |= units[i].primitive == p;
        if (!used) continue;
        sf_gltf_inspection in;
        if (sf_gltf_primitive_inspect(g, p, limit, NULL, &in, NULL) != SF_OK) continue;
        for (int k = 0; k < SF_GLTF_PROBLEM_COUNT; ++k) {
            const sf_gltf_problem_stat* s = &in.problems[k];
            if (!s->count) continue;
            sf_asset_problem_total* t = &totals[k];
            if (!t->any || s->worst_value > t->worst) t->worst = s->worst_value, t->primitive = p, t->index = s->worst_index;
            t->any = true;
            t->count += s->count;
            all += s->count;
        }
    }
    return all;
}

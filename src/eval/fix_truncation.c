/* The cost of --max-influences, measured as eval measures truncation: the variant keeping K influences
 * against the full deformation, over every clip. */
#include "fix_internal.h"

#include <string.h>

sf_result sf_fix_measure_truncation(const sf_gltf* g, uint32_t max_influences, const sf_frames_opts* reference_opts,
                                    double fps, const sf_env* env, sf_fix_truncation* out, sf_error* err)
{
    static const sf_method skinned = SF_METHOD_SKINNED;
    sf_error local;
    if (!err) err = &local;
    if (!g || !reference_opts || !out || !max_influences)
        return sfi_eval_fail(err, SF_ERROR_INVALID_ARGUMENT, "sf_fix_measure_truncation: asset, K > 0, options, out");
    memset(out, 0, sizeof *out);
    sf_asset_eval_opts o;
    sf_asset_eval_opts_init(&o);
    o.methods = &skinned;
    o.method_count = 1;
    o.reference_opts = *reference_opts;
    o.max_influences = max_influences;
    if (fps > 0) o.fps = fps;
    sf_asset_eval* e = NULL;
    sf_result r = sf_asset_eval_create(g, &o, env, &e, err);
    size_t clips = g->animation_count ? g->animation_count : 1, count = 0;
    double sum = 0;
    for (size_t a = 0; r == SF_OK && a < clips; ++a) {
        sf_asset_clip clip;
        r = sf_asset_eval_clip(e, g->animation_count ? a : SF_GLTF_NONE, NULL, NULL, &clip, err);
        if (r != SF_OK || sf_asset_eval_variant_count(e) == 0) continue;
        sf_asset_variant v = sf_asset_eval_variant(e, 0);
        const sf_method_stats* m = &v.stats[SF_METHOD_SKINNED];
        out->truncated = v.truncated; /* per frame: the same in every clip */
        sum += m->pos_sum;
        count += m->pos_count;
        if (m->pos_diagonal > out->diagonal) out->diagonal = m->pos_diagonal;
        if (m->pos_max >= out->position_max) out->position_max = m->pos_max, out->normal = m->normal;
    }
    out->position_mean = count ? sum / (double)count : 0.0;
    sf_asset_eval_destroy(e);
    return r;
}

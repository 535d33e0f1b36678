/* What the eval layer's files share: error messages with the asset's name, the clock, the variants. */
#ifndef SF_EVAL_INTERNAL_H
#define SF_EVAL_INTERNAL_H

#include "sf_common.h"
#include "skinframe_eval.h"

/* err's message set to "prefix: detail" (prefix NULL: the detail alone), keeping err's result. */
sf_result sfi_eval_fail(sf_error* err, sf_result code, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* err's message prefixed with "name: " (name NULL: unchanged); returns err->result. */
sf_result sfi_eval_prefix(sf_error* err, const char* name);
double sfi_eval_now_s(void);

/* ---------------------------------------------------------------- variants (variants.c) */

/* The deformations measured against the full one: the truncation options, each engine preset, and the cost
 * of keeping 4 and 8 influences where the asset has more. Each runs, per unit and frame, an evaluation of its
 * own (sf_evaluation_run_against) after the full one. */
typedef struct sfi_variants sfi_variants;

/* The variants opts asks for over the units; never NULL on success (maybe with no variant). */
sf_result sfi_variants_create(const sf_asset_eval_opts* opts, const sf_gltf* g, const sf_asset_unit* units,
                              size_t unit_count, const sf_env* env, sfi_variants** out, sf_error* err);
void sfi_variants_destroy(sfi_variants* v);
/* The methods the units' workspaces must hold for the variants that reuse them (bit 1u << m). */
uint32_t sfi_variants_methods_mask(const sf_asset_eval_opts* opts);
void sfi_variants_clip_start(sfi_variants* v);
/* Unit i at its current pose, after its full evaluation `full` ran. */
sf_result sfi_variants_run_unit(sfi_variants* v, size_t i, const sf_asset_unit* u, const sf_evaluation* full,
                                size_t frame, sf_error* err);
sf_result sfi_variants_clip_finish(sfi_variants* v, sf_error* err);
sf_asset_influences sfi_variants_influences(const sfi_variants* v);
size_t sfi_variants_count(const sfi_variants* v);
sf_asset_variant sfi_variants_at(const sfi_variants* v, size_t i);

#endif

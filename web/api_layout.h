/* The tables the page's exports hand to JavaScript (web/api.c, web/asset_api.c), described once: the C code
 * indexes them through the enums below, and tools/gen_shader_layout.c writes the same lists into
 * web/src/generated/layout.js for web/src/skinframe.js and web/src/asset_eval.js.
 * Each list is X(NAME, index, what); the JavaScript names drop the C prefix. */
#ifndef SKINFRAME_WEB_API_LAYOUT_H
#define SKINFRAME_WEB_API_LAYOUT_H

#include "skinframe.h"

/* sfw_view_stats: SFW_STAT_STRIDE doubles per method, indexed by sf_method. */
#define SFW_STATS(X)                                                                \
    X(STATUS, 0, "0 ok, 1 unsupported, -1 not run")                                 \
    X(NORMAL, 1, "normal angle: mean, rms, p50, p95, max, over_1, over_5, over_45") \
    X(TANGENT, 9, "tangent angle: the same eight")                                  \
    X(HANDEDNESS, 17, "handedness mismatches")                                      \
    X(DEGENERATE_NORMALS, 18, "degenerate normals")                                 \
    X(DEGENERATE_TANGENTS, 19, "degenerate tangents")                               \
    X(WORST_NORMAL, 20, "vertex of the largest normal error")                       \
    X(WORST_TANGENT, 21, "vertex of the largest tangent error")                     \
    X(TANGENT_COUNT, 22, "tangents measured")                                       \
    X(MIRRORED, 23, "mirrored vertices")                                            \
    X(SINGULAR, 24, "singular vertices")
/* NORMAL and TANGENT each span these, in this order (sf_angle_stats' fields). */
#define SFW_STAT_ANGLES(X)               \
    X(MEAN, 0, "degrees")                \
    X(RMS, 1, "degrees")                 \
    X(P50, 2, "degrees")                 \
    X(P95, 3, "degrees")                 \
    X(MAX, 4, "degrees")                 \
    X(OVER_1, 5, "share over 1 degree")  \
    X(OVER_5, 6, "share over 5 degrees") \
    X(OVER_45, 7, "share over 45 degrees")
#define SFW_STAT_STRIDE 25 /* the last statistic's end: no slot unused */

/* sfw_view_table: uint32 pointers; per method m from ROWS on, SFW_TAB_PER_METHOD of them (its ROW_* order). */
#define SFW_TABLE(X)                               \
    X(POSITIONS, 0, "final positions")             \
    X(REF_NORMALS, 1, "the reference's normals")   \
    X(REF_TANGENTS, 2, "the reference's tangents") \
    X(ROWS, 3, "the first method's four pointers")
#define SFW_TABLE_ROW(X)                                 \
    X(NORMALS, 0, "the method's normals")                \
    X(TANGENTS, 1, "the method's tangents")              \
    X(NORMAL_DEG, 2, "per-vertex normal error, degrees") \
    X(TANGENT_DEG, 3, "per-vertex tangent error, degrees")
#define SFW_TAB_PER_METHOD 4
#define SFW_TAB_SIZE (SFW_TAB_ROWS + SFW_TAB_PER_METHOD * SF_METHOD_COUNT)

/* sfw_mesh_array's `which`: the arrays of a caller's mesh. */
#define SFW_MESH_ARRAYS(X)                              \
    X(POSITIONS, 0, "xyz per vertex")                   \
    X(NORMALS, 1, "xyz per vertex")                     \
    X(TANGENTS, 2, "xyzw per vertex")                   \
    X(UVS, 3, "uv per vertex")                          \
    X(INDICES, 4, "three per triangle")                 \
    X(JOINTS, 5, "influences per vertex")               \
    X(WEIGHTS, 6, "influences per vertex")              \
    X(MORPH_POSITIONS, 7, "target k's position deltas") \
    X(MORPH_NORMALS, 8, "target k's normal deltas")     \
    X(MORPH_TANGENTS, 9, "target k's tangent deltas")

/* sfw_mesh_create's flags: bit k set where the caller's mesh has the array. */
#define SFW_MESH_FLAGS(X)                                     \
    X(NORMALS, 0, "rest normals")                             \
    X(TANGENTS, 1, "rest tangents")                           \
    X(UVS, 2, "texture coordinates")                          \
    X(MORPH_NORMALS, 3, "the morph targets' normal deltas")   \
    X(MORPH_TANGENTS, 4, "the morph targets' tangent deltas")

/* sfw_view_gpu_buffers: a count, then SFW_GPU_BUFFER_WORDS uint32 per buffer (sf_gpu_buffer's fields). */
#define SFW_GPU_BUFFER(X)                                 \
    X(NAME, 0, "address of its name, a C string")         \
    X(TYPE, 1, "sf_gpu_type (GPU_TYPES)")                 \
    X(COUNT, 2, "elements; 0 when the topology has none") \
    X(COMPONENTS, 3, "values per element")                \
    X(DATA, 4, "address of the values")
#define SFW_GPU_BUFFER_WORDS 5

/* sfw_asset_frame / sfw_asset_clip: SFW_ASSET_STRIDE doubles per method, indexed by sf_method. */
#define SFW_ASSET_TABLE(X)                                                      \
    X(STATUS, 0, "0 not evaluated, 1 measured, 2 cannot run on this asset")     \
    X(NORMAL_MEAN, 1, "")                                                       \
    X(NORMAL_MAX, 2, "")                                                        \
    X(TANGENT_MEAN, 3, "")                                                      \
    X(TANGENT_MAX, 4, "")                                                       \
    X(NORMAL_COUNT, 5, "vertex-frames measured")                                \
    X(TANGENT_COUNT, 6, "0: no tangent frame anywhere (tangents not measured)") \
    X(HANDEDNESS, 7, "")
#define SFW_ASSET_STRIDE 8

#define SFW_LAYOUT_STAT_(name, at, what) SFW_STAT_##name = at,
#define SFW_LAYOUT_ANGLE_(name, at, what) SFW_ANGLE_##name = at,
#define SFW_LAYOUT_TAB_(name, at, what) SFW_TAB_##name = at,
#define SFW_LAYOUT_ROW_(name, at, what) SFW_TAB_ROW_##name = at,
#define SFW_LAYOUT_MESH_(name, at, what) SFW_MESH_##name = at,
#define SFW_LAYOUT_FLAG_(name, at, what) SFW_MESH_HAS_##name = at,
#define SFW_LAYOUT_ASSET_(name, at, what) SFW_ASSET_##name = at,
#define SFW_LAYOUT_GPU_(name, at, what) SFW_GPU_BUFFER_##name = at,
enum { SFW_STATS(SFW_LAYOUT_STAT_) };
enum { SFW_STAT_ANGLES(SFW_LAYOUT_ANGLE_) };
#define SFW_LAYOUT_COUNT_(name, at, what) +1
enum { SFW_STAT_ANGLE_COUNT = 0 SFW_STAT_ANGLES(SFW_LAYOUT_COUNT_) };
enum { SFW_TABLE(SFW_LAYOUT_TAB_) };
enum { SFW_TABLE_ROW(SFW_LAYOUT_ROW_) };
enum { SFW_MESH_ARRAYS(SFW_LAYOUT_MESH_) };
enum { SFW_MESH_FLAGS(SFW_LAYOUT_FLAG_) };
enum { SFW_ASSET_TABLE(SFW_LAYOUT_ASSET_) };
enum { SFW_GPU_BUFFER(SFW_LAYOUT_GPU_) };
#undef SFW_LAYOUT_STAT_
#undef SFW_LAYOUT_ANGLE_
#undef SFW_LAYOUT_COUNT_
#undef SFW_LAYOUT_TAB_
#undef SFW_LAYOUT_ROW_
#undef SFW_LAYOUT_MESH_
#undef SFW_LAYOUT_FLAG_
#undef SFW_LAYOUT_ASSET_
#undef SFW_LAYOUT_GPU_

_Static_assert(SFW_STAT_TANGENT == SFW_STAT_NORMAL + SFW_STAT_ANGLE_COUNT, "NORMAL's angles end where TANGENT starts");
_Static_assert(SFW_STAT_HANDEDNESS == SFW_STAT_TANGENT + SFW_STAT_ANGLE_COUNT, "TANGENT's angles end at HANDEDNESS");
_Static_assert(SFW_STAT_SINGULAR + 1 == SFW_STAT_STRIDE, "the stride is the last statistic's end");
_Static_assert(SFW_ASSET_HANDEDNESS < SFW_ASSET_STRIDE, "an asset statistic past the stride");
_Static_assert(SFW_GPU_BUFFER_DATA + 1 == SFW_GPU_BUFFER_WORDS, "a GPU buffer's record ends at its data");

#endif

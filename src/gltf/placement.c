/* World placement of a posed mesh instance: its mesh-space positions, normals and tangents taken to the
 * scene by the instance's to_world matrix (skinframe_gltf.h). */
#include "sf_common.h"
#include "sf_kernels.h"
#include "skinframe_gltf.h"

#include <math.h>

/* v / |v|, zero for a zero vector. A division rather than sfk_safe_unit's reciprocal: placed pictures and
 * bakes keep the bits they have always had. */
static void unit_or_zero(const float v[3], float out[3])
{
    float len = sfk_length(v);
    for (int r = 0; r < 3; ++r) out[r] = len > 0.0f ? v[r] / len : 0.0f;
}

sf_result sf_gltf_place_frames(const float to_world[16], size_t vertex_count, const float* positions,
                               const float* normals, const float* tangents, const sf_frames_out* world, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(to_world != NULL, SF_ERROR_INVALID_ARGUMENT, err, "to_world", SFI_NO_INDEX, "is NULL");
    SF_CHECK(world != NULL, SF_ERROR_INVALID_ARGUMENT, err, "world", SFI_NO_INDEX, "is NULL");
    SF_CHECK(!world->positions || positions, SF_ERROR_MISSING_STREAM, err, "positions", SFI_NO_INDEX,
             "required for world.positions");
    SF_CHECK(!world->normals || normals, SF_ERROR_MISSING_STREAM, err, "normals", SFI_NO_INDEX,
             "required for world.normals");
    SF_CHECK(!world->tangents || tangents, SF_ERROR_MISSING_STREAM, err, "tangents", SFI_NO_INDEX,
             "required for world.tangents");
    for (int i = 0; i < 16; ++i)
        SF_CHECK(isfinite(to_world[i]), SF_ERROR_NOT_FINITE, err, "to_world", (size_t)i, "element is %g",
                 (double)to_world[i]);
    /* The 3x4 of skinframe.h: glTF's column-major 4x4 without its last row. */
    float m[12];
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 3; ++r) m[3 * c + r] = to_world[4 * c + r];
    /* The core's magnitude bounds (docs/magnitudes.md) keep every placed value finite: |M| <= SF_MAX_BONE_SCALE,
     * |t| and the inputs <= SF_MAX_COORD give |p'| < 4e15 and cofactors < 1e13. Checked before anything is
     * written, so an in-place call that fails leaves its arrays as they were. */
    for (int i = 0; i < 12; ++i) {
        float limit = i < 9 ? SF_MAX_BONE_SCALE : SF_MAX_COORD;
        SF_CHECK(fabsf(m[i]) <= limit, SF_ERROR_TOO_LARGE, err, "to_world", (size_t)(4 * (i / 3) + i % 3),
                 "element is %g, beyond %s (%g)", (double)m[i], i < 9 ? "SF_MAX_BONE_SCALE" : "SF_MAX_COORD",
                 (double)limit);
    }
    const float* inputs[3] = {world->positions ? positions : NULL, world->normals ? normals : NULL,
                              world->tangents ? tangents : NULL};
    static const char* const names[3] = {"positions", "normals", "tangents"};
    for (int k = 0; k < 3; ++k) {
        size_t stride = k == 2 ? 4 : 3;
        for (size_t v = 0; inputs[k] && v < vertex_count; ++v)
            for (int r = 0; r < 3; ++r)
                SF_CHECK(fabsf(inputs[k][stride * v + (size_t)r]) <= SF_MAX_COORD, SF_ERROR_TOO_LARGE, err, names[k], v,
                         "component %d is %g, beyond SF_MAX_COORD (%g)", r, (double)inputs[k][stride * v + (size_t)r],
                         (double)SF_MAX_COORD);
    }
    float det = sfk_mat_det(m);
    for (size_t v = 0; v < vertex_count; ++v) {
        if (world->positions) {
            float p[3];
            sfk_mat_point(m, positions + 3 * v, p);
            for (int r = 0; r < 3; ++r) world->positions[3 * v + r] = p[r];
        }
        if (world->normals) {
            /* The inverse transpose up to a positive scale: the cofactor, negated under a mirror. */
            float c[3];
            sfk_mat_cofactor_dir(m, normals + 3 * v, c);
            if (det < 0.0f) c[0] = -c[0], c[1] = -c[1], c[2] = -c[2];
            unit_or_zero(c, world->normals + 3 * v);
        }
        if (world->tangents) {
            float t[3];
            float w = sfk_mirror_handedness(tangents[4 * v + 3], det);
            sfk_mat_dir(m, tangents + 4 * v, t);
            unit_or_zero(t, world->tangents + 4 * v);
            world->tangents[4 * v + 3] = w;
        }
    }
    return SF_OK;
}

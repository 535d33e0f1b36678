/* A program against the installed core only (skinframe.h, skinframe::skinframe): a unit quad in z = 0 skinned
 * to one bone that shears x by z / 2. The triangles stay where they are, so the reference normal stays +z,
 * while `skinned` turns the normal by the shear itself: atan(1/2) = 26.565 degrees off. Prints each method's
 * largest normal error and exits 1 unless skinned is that and inverse-transpose 0. Also the wasm smoke test
 * (scripts/wasm-smoke.sh: the wasm build must print the same, to the last bit). */
#include <math.h>
#include <stdio.h>
#include <skinframe.h>

int main(void)
{
    const float pos[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}, uv[] = {0, 0, 1, 0, 1, 1, 0, 1}, weight[] = {1, 1, 1, 1};
    const uint32_t idx[] = {0, 1, 2, 0, 2, 3}, joint[] = {0, 0, 0, 0};
    const float shear[12] = {1, 0, 0, 0, 1, 0, 0.5f, 0, 1, 0, 0, 0}; /* column-major: x' = x + z / 2 */
    sf_mesh_desc mesh = {.vertex_count = 4, .triangle_count = 2, .indices = idx, .positions = {pos, 0},
                         .uvs = {uv, 0}, .influence_count = 1, .joints = joint, .weights = weight, .bone_count = 1};
    sf_pose pose = {.bone_matrices = shear, .bone_count = 1};
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    sf_error err;
    if (sf_topology_create(&mesh, NULL, NULL, &topo, &err) != SF_OK || sf_workspace_create(topo, NULL, &ws, &err) != SF_OK) {
        fprintf(stderr, "core_check: %s\n", err.message);
        return 1;
    }
    float n[SF_METHOD_DEFAULT_COUNT][12], t[SF_METHOD_DEFAULT_COUNT][16], worst[SF_METHOD_DEFAULT_COUNT];
    for (int m = SF_METHOD_DEFAULT_COUNT - 1; m >= 0; --m) { /* the reference (recompute, last) first */
        sf_frames_out out = {NULL, n[m], t[m]}, ref = {NULL, n[SF_METHOD_RECOMPUTE], t[SF_METHOD_RECOMPUTE]};
        sf_error_summary summary;
        if (sf_frames_compute(topo, &pose, (sf_method)m, NULL, ws, &out, &err) != SF_OK ||
            sf_direction_errors(topo, &out, &ref, NULL, NULL, NULL, &summary, &err) != SF_OK) {
            fprintf(stderr, "core_check: %s\n", err.message);
            return 1;
        }
        worst[m] = (float)summary.normal.max;
    }
    for (int m = 0; m < SF_METHOD_DEFAULT_COUNT; ++m) printf("%s %.6f\n", sf_method_name((sf_method)m), worst[m]);
    printf("skinned exactly %a\n", worst[SF_METHOD_SKINNED]); /* the wasm smoke test compares every bit */
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    const float expected = 26.56505118f; /* atan(0.5) in degrees */
    return fabsf(worst[SF_METHOD_SKINNED] - expected) < 1e-3f && worst[SF_METHOD_INVERSE_TRANSPOSE] < 1e-3f ? 0 : 1;
}

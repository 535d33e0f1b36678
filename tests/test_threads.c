// LABELS: unit
/* sf_frames_compute of every method under parallel loops that split the work differently (chunks in reverse, odd
 * then even, real threads, ranges smaller than the grain): the same positions, normals, tangents and report, bit
 * for bit, as the serial run; with and without a tangent frame, at every instruction set the CPU has. */
#define _POSIX_C_SOURCE 200809L
#include "sf_internal.h"
#include "sf_test.h"
#include "sft_pool.h"
#include "skinframe_scenes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct frames {
    float *p, *n, *t;
    sf_frames_report rep;
    sf_result r;
} frames;

static void frames_run(const sf_topology* topo, const sf_pose* pose, sf_workspace* ws, sf_method m, frames* f)
{
    size_t n = sf_topology_vertex_count(topo);
    f->p = calloc(3 * n + 3, sizeof(float));
    f->n = calloc(3 * n + 3, sizeof(float));
    f->t = calloc(4 * n + 4, sizeof(float));
    sf_frames_out out = {f->p, f->n, f->t};
    sf_error err;
    f->r = sf_frames_compute(topo, pose, m, NULL, ws, &out, &err);
    memset(&f->rep, 0, sizeof f->rep);
    if (f->r == SF_OK) sf_workspace_last_report(ws, &f->rep);
}

static void frames_free(frames* f) { free(f->p), free(f->n), free(f->t); }

/* The sheet with every term on (morphs on every vertex), with or without its UVs; some bones mirrored, so
 * that the report counts something. */
static void compare_pools(int uvs)
{
    const sf_scene_setting set[] = {{"resolution", 70}, {"twist", 90}, {"towel-twist", 0.7}, {"swirl", 0.5},
                                    {"ripples", 0.6}};
    sf_scene* sc = NULL;
    sf_error err;
    CHECK_OK(sf_scene_create("sheet", NULL, set, sizeof set / sizeof set[0], NULL, &sc, &err));
    if (!sc) return;
    sf_mesh_desc d = sc->mesh;
    if (!uvs) d.uvs.data = NULL;
    size_t B = sc->pose.bone_count;
    float* bones = malloc(12 * B * sizeof(float));
    memcpy(bones, sc->pose.bone_matrices, 12 * B * sizeof(float));
    for (size_t b = 0; b + 2 < B; ++b)
        for (int k = 0; k < 3; ++k) bones[12 * b + k] *= -1.0f; /* all but the last two mirror */
    sf_pose pose = sc->pose;
    pose.bone_matrices = bones;
    enum { POOLS = 6 };
    const sft_pool pools[POOLS] = {{0, 1}, {1, 1}, {2, 2}, {2, 3}, {2, 8}, {3, 1}};
    sf_topology* topo[POOLS + 1] = {NULL};
    sf_workspace* ws[POOLS + 1] = {NULL};
    sf_env env[POOLS];
    int ok = 1;
    for (size_t p = 0; p <= POOLS; ++p) {
        if (p < POOLS) {
            memset(&env[p], 0, sizeof env[p]);
            env[p].threads.parallel_for = sft_pool_parallel_for;
            env[p].threads.user = (void*)&pools[p];
        }
        ok &= sf_topology_create(&d, NULL, p < POOLS ? &env[p] : NULL, &topo[p], &err) == SF_OK &&
              sf_workspace_create(topo[p], NULL, &ws[p], &err) == SF_OK;
    }
    CHECK(ok);
    size_t n = ok ? sf_topology_vertex_count(topo[POOLS]) : 0;
    sf_frames_report any;
    memset(&any, 0, sizeof any);
    for (int level = SFI_SIMD_SCALAR; ok && level <= sfi_simd_detect(); ++level)
        for (int m = 0; m < SF_METHOD_COUNT; ++m) {
            sfi_simd_force(level);
            frames serial;
            frames_run(topo[POOLS], &pose, ws[POOLS], (sf_method)m, &serial);
            any.mirrored_vertices += serial.rep.mirrored_vertices;
            any.singular_vertices += serial.rep.singular_vertices;
            any.degenerate_normals += serial.rep.degenerate_normals;
            for (size_t p = 0; p < POOLS; ++p) {
                frames f;
                frames_run(topo[p], &pose, ws[p], (sf_method)m, &f);
                if (f.r != serial.r || memcmp(f.p, serial.p, 3 * n * sizeof(float)) ||
                    memcmp(f.n, serial.n, 3 * n * sizeof(float)) || memcmp(f.t, serial.t, 4 * n * sizeof(float)) ||
                    memcmp(&f.rep, &serial.rep, sizeof f.rep))
                    sft_failf(__FILE__, __LINE__,
                              "%s, %s, level %d, pool mode %d with %d threads: differs from serial (mirrored %zu / %zu)",
                              sf_method_name((sf_method)m), uvs ? "UVs" : "no UVs", level, pools[p].mode,
                              pools[p].threads, f.rep.mirrored_vertices, serial.rep.mirrored_vertices);
                frames_free(&f);
            }
            frames_free(&serial);
        }
    sfi_simd_force(-1);
    CHECK(any.mirrored_vertices > 0);
    for (size_t p = 0; p <= POOLS; ++p) sf_workspace_destroy(ws[p]), sf_topology_destroy(topo[p]);
    free(bones);
    sf_scene_destroy(sc);
}

static void every_method_with_uvs(void) { compare_pools(1); }
static void every_method_without_uvs(void) { compare_pools(0); }

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"every_method_with_uvs", every_method_with_uvs},
        {"every_method_without_uvs", every_method_without_uvs},
    };
    return SFT_RUN(cases, argc, argv);
}

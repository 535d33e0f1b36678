/* Instruction-count harness (not a test, not timed): one case twice on the `sheet` scene with every term on (bones
 * twisted 90 degrees, towel-twist 0.7, swirl 0.5, ripples 0.6) at resolution R, on one thread, for callgrind:
 *
 *   valgrind --tool=callgrind --toggle-collect=sf_frames_compute bench_count 60 recompute
 *   callgrind_annotate --inclusive=yes callgrind.out.*    # sf_frames_compute against sf_env_parallel_for
 *
 * CASE: a method name (sf_frames_compute), `positions` (sf_deform_positions) or `error` (sf_direction_errors with
 * statistics, skinned against recompute, both computed first). Without a parallel loop sf_env_parallel_for runs its
 * ranges in place, so what the collected functions execute outside it is what would run on one thread of a pool
 * (docs/benchmarks-log.md, "serial work per method"). Prints the vertex count. */
#include "skinframe.h"
#include "skinframe_scenes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv)
{
    if (argc != 3 || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: bench_count RESOLUTION METHOD|positions|error\n");
        return 2;
    }
    const sf_scene_setting set[] = {{"resolution", atoi(argv[1])}, {"twist", 90}, {"towel-twist", 0.7},
                                    {"swirl", 0.5}, {"ripples", 0.6}};
    const char* what = argv[2];
    int method = -1;
    for (int k = 0; k < SF_METHOD_COUNT; ++k)
        if (strcmp(sf_method_name((sf_method)k), what) == 0) method = k;
    if (method < 0 && strcmp(what, "positions") != 0 && strcmp(what, "error") != 0) {
        fprintf(stderr, "bench_count: unknown case `%s`\n", what);
        return 2;
    }
    sf_scene* sc = NULL;
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    sf_error err;
    if (sf_scene_create("sheet", NULL, set, sizeof set / sizeof set[0], NULL, &sc, &err) != SF_OK ||
        sf_topology_create(&sc->mesh, NULL, NULL, &topo, &err) != SF_OK ||
        sf_workspace_create(topo, NULL, &ws, &err) != SF_OK) {
        fprintf(stderr, "bench_count: %s\n", err.message);
        return 1;
    }
    size_t n = sf_topology_vertex_count(topo);
    float *p = malloc(3 * n * sizeof(float)), *nrm = malloc(3 * n * sizeof(float)), *tan = malloc(4 * n * sizeof(float));
    float *rn = malloc(3 * n * sizeof(float)), *rt = malloc(4 * n * sizeof(float)), *ang = malloc(2 * n * sizeof(float));
    int rc = !p || !nrm || !tan || !rn || !rt || !ang;
    sf_frames_out out = {p, nrm, tan}, ref = {NULL, rn, rt};
    for (int i = 0; i < 2 && !rc; ++i) {
        sf_result r;
        if (strcmp(what, "error") == 0) {
            sf_error_summary s;
            r = i ? SF_OK : sf_frames_compute(topo, &sc->pose, SF_METHOD_RECOMPUTE, NULL, ws, &ref, &err);
            if (r == SF_OK && !i) r = sf_frames_compute(topo, &sc->pose, SF_METHOD_SKINNED, NULL, ws, &out, &err);
            if (r == SF_OK) r = sf_direction_errors(topo, &out, &ref, ang, ang + n, NULL, &s, &err);
        } else if (method < 0) {
            r = sf_deform_positions(topo, &sc->pose, ws, p, &err);
        } else {
            r = sf_frames_compute(topo, &sc->pose, (sf_method)method, NULL, ws, &out, &err);
        }
        if (r != SF_OK) {
            fprintf(stderr, "bench_count: %s: %s\n", what, err.message);
            rc = 1;
        }
    }
    printf("%zu vertices\n", n);
    free(p), free(nrm), free(tan), free(rn), free(rt), free(ang);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    sf_scene_destroy(sc);
    return rc;
}

/* Each method's frame in the wasm core, per vertex: the page's mesh (the sheet at resolution 63, 20224 vertices,
 * 5 bones, 4 influences, 4 morph targets; web/bench/frame.mjs's first pose), sf_frames_compute with positions,
 * normals and tangents, then the statistics of one method against the reference (sf_direction_errors). Built in
 * the wasm builds (build-wasm, and build-wasm-simd with SIMD128) as sf_wasm_methods.wasm; one run is one round:
 *   node tests/wasm/wasi-run.mjs build-wasm-simd/sf_wasm_methods.wasm [FRAMES]
 * prints one JSON line: the median over FRAMES frames (default 15, after 3 warm-up frames) of each method's
 * ns per vertex, the statistics', and the deform's alone ("deform": sf_deform_positions, the part of each
 * method's figure that a frame could share). web/bench/simd.mjs runs the two builds' programs in interleaved rounds. */
#define _POSIX_C_SOURCE 200809L
#include "bench_util.h"
#include "skinframe.h"
#include "skinframe_scenes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 101

static int fail(const char* what, const sf_error* err)
{
    fprintf(stderr, "wasm_methods: %s: %s\n", what, err->message);
    return 1;
}

int main(int argc, char** argv)
{
    int frames = argc > 1 ? atoi(argv[1]) : 15;
    if (frames < 1 || frames > MAX_FRAMES) {
        fprintf(stderr, "wasm_methods: FRAMES %s: need 1 to %d\n", argv[1], MAX_FRAMES);
        return 2;
    }
    const sf_scene_setting set[] = {{"resolution", 63}, {"twist", 60}, {"bend", 20}, {"towel-twist", 0.5},
                                    {"ripples", 0.3}};
    sf_scene* sc = NULL;
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    sf_error err;
    if (sf_scene_create("sheet", NULL, set, sizeof set / sizeof set[0], NULL, &sc, &err) != SF_OK) return fail("scene", &err);
    if (sf_topology_create(&sc->mesh, NULL, NULL, &topo, &err) != SF_OK) return fail("topology", &err);
    if (sf_workspace_create(topo, NULL, &ws, &err) != SF_OK) return fail("workspace", &err);
    size_t n = sf_topology_vertex_count(topo);
    float* arrays = malloc((3 + 3 + 4) * 2 * n * sizeof(float));
    float* deg = malloc(2 * n * sizeof(float));
    if (!arrays || !deg) return 1;
    sf_frames_out out = {arrays, arrays + 3 * n, arrays + 6 * n};
    sf_frames_out ref = {arrays + 10 * n, arrays + 13 * n, arrays + 16 * n};
    sf_frames_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.weighting = sc->reference_weighting;
    double t[MAX_FRAMES];
    printf("{\"vertices\":%zu,\"ns_per_vertex\":{", n);
    /* every method, then the statistics of skinned against recompute (the reference), then the deform */
    for (int m = 0; m <= SF_METHOD_COUNT + 1; ++m) {
        int stats = m == SF_METHOD_COUNT, deform = m == SF_METHOD_COUNT + 1;
        const char* name = stats ? "statistics" : deform ? "deform" : sf_method_name((sf_method)m);
        if (stats && (sf_frames_compute(topo, &sc->pose, SF_METHOD_SKINNED, &opts, ws, &out, &err) != SF_OK ||
                      sf_frames_compute(topo, &sc->pose, SF_METHOD_RECOMPUTE, &opts, ws, &ref, &err) != SF_OK))
            return fail("reference", &err);
        for (int f = -3; f < frames; ++f) {
            sf_error_summary summary;
            double t0 = now_s();
            sf_result r = stats    ? sf_direction_errors(topo, &out, &ref, deg, deg + n, NULL, &summary, &err)
                          : deform ? sf_deform_positions(topo, &sc->pose, ws, out.positions, &err)
                                   : sf_frames_compute(topo, &sc->pose, (sf_method)m, &opts, ws, &out, &err);
            double t1 = now_s();
            if (r != SF_OK) return fail(name, &err);
            if (f >= 0) t[f] = t1 - t0;
        }
        timing tm = summarize(t, frames);
        printf("%s\"%s\":%.2f", m ? "," : "", name, 1e9 * tm.median / (double)n);
    }
    printf("}}\n");
    free(arrays);
    free(deg);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    sf_scene_destroy(sc);
    return 0;
}

/* CPU benchmark (not a test): times each stage on the `sheet` scene at about 10k, 100k and 1M vertices:
 * topology creation (with and without the jacobian gradients), deform, frames for every method
 * (each includes its deform, as sf_frames_compute does), the error metrics, and one whole evaluation (the
 * reference, every method and its statistics, as the command line runs it). Best and median of N
 * runs, one JSON line per result; then, per size, the jacobian's memory per vertex and its frame cost
 * relative to `skinned` (medians from this run). Serial (NULL env): one core.
 *
 * usage: bench_cpu [runs=7] [max_vertices=1100000] */
#define _POSIX_C_SOURCE 199309L
#include "skinframe.h"
#include "skinframe_scenes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

static void print_line(int res, size_t n, const char* stage, const char* method, int runs, timing tm)
{
    printf("{\"bench\":\"cpu\",\"scene\":\"sheet\",\"resolution\":%d,\"vertices\":%zu,\"stage\":\"%s\","
           "\"method\":\"%s\",\"runs\":%d,\"best_ms\":%.4f,\"median_ms\":%.4f,\"best_ns_per_vertex\":%.3f,"
           "\"median_ns_per_vertex\":%.3f,\"median_mvert_per_s\":%.2f}\n",
           res, n, stage, method, runs, 1e3 * tm.best, 1e3 * tm.median, 1e9 * tm.best / (double)n,
           1e9 * tm.median / (double)n, (double)n / tm.median * 1e-6);
    fflush(stdout);
}

static int bench_size(int res, int runs)
{
    /* Bones twisted and three targets on: every term of every method does work. */
    const sf_scene_setting set[] = {{"resolution", res}, {"twist", 90}, {"towel-twist", 0.7}, {"swirl", 0.5},
                                    {"ripples", 0.6}};
    sf_scene* sc = NULL;
    sf_error err;
    if (sf_scene_create("sheet", NULL, set, sizeof set / sizeof set[0], NULL, &sc, &err) != SF_OK) {
        fprintf(stderr, "bench_cpu: %s\n", err.message);
        return 1;
    }
    size_t n = sc->mesh.vertex_count;
    double t[MAX_RUNS];
    sf_topology* topo = NULL;
    sf_topology_opts skip;
    memset(&skip, 0, sizeof skip);
    skip.skip_gradients = 1;
    for (int pass = 0; pass < 2; ++pass) {
        for (int i = 0; i < runs; ++i) {
            double t0 = now_s();
            if (sf_topology_create(&sc->mesh, pass ? NULL : &skip, NULL, &topo, &err) != SF_OK) {
                fprintf(stderr, "bench_cpu: %s\n", err.message);
                sf_scene_destroy(sc);
                return 1;
            }
            t[i] = now_s() - t0;
            if (pass == 0 || i + 1 < runs) sf_topology_destroy(topo);
        }
        print_line(res, n, pass ? "topology" : "topology-no-gradients", "", runs, summarize(t, runs));
    }
    sf_topology_stats st;
    sf_topology_get_stats(topo, &st);
    sf_workspace* ws = NULL;
    float* buf = malloc(sizeof(float) * 17 * n);
    float* ang = malloc(sizeof(float) * 2 * n);
    if (!buf || !ang || sf_workspace_create(topo, NULL, &ws, &err) != SF_OK) {
        fprintf(stderr, "bench_cpu: out of memory\n");
        free(buf);
        free(ang);
        sf_topology_destroy(topo);
        sf_scene_destroy(sc);
        return 1;
    }
    sf_frames_out out = {buf, buf + 3 * n, buf + 6 * n};
    sf_frames_out ref = {NULL, buf + 10 * n, buf + 13 * n};
    for (int i = 0; i < runs; ++i) {
        double t0 = now_s();
        sf_deform_positions(topo, &sc->pose, ws, buf, NULL);
        t[i] = now_s() - t0;
    }
    print_line(res, n, "deform", "", runs, summarize(t, runs));
    timing per_method[SF_METHOD_COUNT];
    for (int m = 0; m < SF_METHOD_COUNT; ++m) {
        for (int i = 0; i < runs; ++i) {
            double t0 = now_s();
            sf_frames_compute(topo, &sc->pose, (sf_method)m, NULL, ws, m == SF_METHOD_RECOMPUTE ? &ref : &out, NULL);
            t[i] = now_s() - t0;
        }
        per_method[m] = summarize(t, runs);
        print_line(res, n, "frames", sf_method_name((sf_method)m), runs, per_method[m]);
    }
    sf_frames_compute(topo, &sc->pose, SF_METHOD_JACOBIAN, NULL, ws, &out, NULL);
    sf_error_summary sum;
    for (int i = 0; i < runs; ++i) {
        double t0 = now_s();
        sf_direction_errors(topo, &out, &ref, ang, ang + n, NULL, &sum, NULL);
        t[i] = now_s() - t0;
    }
    print_line(res, n, "error", "jacobian", runs, summarize(t, runs));
    sf_evaluation* ev = NULL;
    if (sf_evaluation_create(topo, NULL, NULL, &ev, &err) != SF_OK) {
        fprintf(stderr, "bench_cpu: %s\n", err.message);
        free(buf);
        free(ang);
        sf_workspace_destroy(ws);
        sf_topology_destroy(topo);
        sf_scene_destroy(sc);
        return 1;
    }
    for (int i = 0; i < runs; ++i) {
        double t0 = now_s();
        sf_evaluation_run(ev, &sc->pose, ws, NULL, NULL);
        t[i] = now_s() - t0;
    }
    print_line(res, n, "evaluation", "all", runs, summarize(t, runs));
    const sf_eval_row* jac = sf_evaluation_row(ev, SF_METHOD_JACOBIAN);
    const sf_eval_row* fan = sf_evaluation_row(ev, SF_METHOD_JACOBIAN_FAN);
    printf("{\"bench\":\"cpu\",\"scene\":\"sheet\",\"resolution\":%d,\"vertices\":%zu,\"stage\":\"summary\","
           "\"gradient_bytes\":%zu,\"gradient_bytes_per_vertex\":%.2f,\"fan_gradient_bytes_per_vertex\":%.2f,"
           "\"topology_bytes_per_vertex\":%.2f,"
           "\"dropped_gradient_slots\":%zu,\"jacobian_over_skinned\":%.3f,\"jacobian_fan_over_skinned\":%.3f,"
           "\"inverse_transpose_over_skinned\":%.3f,"
           "\"recompute_over_skinned\":%.3f,\"jacobian_over_recompute\":%.3f,\"jacobian_normal_mean_deg\":%.4f,"
           "\"jacobian_fan_normal_mean_deg\":%.4f}\n",
           res, n, st.gradient_bytes, (double)st.gradient_bytes / (double)n, (double)st.fan_gradient_bytes / (double)n,
           (double)st.topology_bytes / (double)n, st.dropped_gradient_slots,
           per_method[SF_METHOD_JACOBIAN].median / per_method[SF_METHOD_SKINNED].median,
           per_method[SF_METHOD_JACOBIAN_FAN].median / per_method[SF_METHOD_SKINNED].median,
           per_method[SF_METHOD_INVERSE_TRANSPOSE].median / per_method[SF_METHOD_SKINNED].median,
           per_method[SF_METHOD_RECOMPUTE].median / per_method[SF_METHOD_SKINNED].median,
           per_method[SF_METHOD_JACOBIAN].median / per_method[SF_METHOD_RECOMPUTE].median, jac->errors.normal.mean,
           fan->errors.normal.mean);
    /* recompute-fused: the same frames in one pass; its workspace against recompute's */
    sf_workspace_opts fused_only = {1u << SF_METHOD_RECOMPUTE_FUSED, SF_BACKEND_CPU};
    sf_workspace_opts rec_only = {1u << SF_METHOD_RECOMPUTE, SF_BACKEND_CPU};
    printf("{\"bench\":\"cpu\",\"scene\":\"sheet\",\"resolution\":%d,\"vertices\":%zu,\"stage\":\"fused\","
           "\"fused_over_recompute\":%.3f,\"fused_workspace_bytes_per_vertex\":%.2f,"
           "\"recompute_workspace_bytes_per_vertex\":%.2f}\n",
           res, n, per_method[SF_METHOD_RECOMPUTE_FUSED].median / per_method[SF_METHOD_RECOMPUTE].median,
           (double)sf_workspace_size(topo, &fused_only) / (double)n, (double)sf_workspace_size(topo, &rec_only) / (double)n);
    sf_evaluation_destroy(ev);
    free(buf);
    free(ang);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    sf_scene_destroy(sc);
    return 0;
}

int main(int argc, char** argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 7;
    long max_vertices = argc > 2 ? atol(argv[2]) : 1100000;
    if (runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "usage: bench_cpu [runs 1..%d] [max_vertices]\n", MAX_RUNS);
        return 2;
    }
    /* Sheet resolution r gives (5r + 1)(r + 1) vertices: 44 -> 9,945; 141 -> 100,252; 447 -> 1,001,728. */
    const int sizes[3] = {44, 141, 447};
    for (int i = 0; i < 3; ++i) {
        long n = (5L * sizes[i] + 1) * (sizes[i] + 1);
        if (n > max_vertices) break;
        if (bench_size(sizes[i], runs)) return 1;
    }
    return 0;
}

/* Weld benchmark (not a test): the per-frame cost of the reference gather with welding against the
 * unwelded gather, on a large heightfield grid cut into UV islands (a seam every 16 columns, each seam
 * vertex duplicated with the same position and normal). Times, best and median of N runs, serial:
 *   gather       sfi_recompute alone (face pass + gather) on the deformed positions, per weld mode;
 *   gather-old   the previous welded gather (walk each group member's own corner list) for comparison;
 *   frame        sf_frames_compute(recompute) including the deform, per weld mode;
 *   mikktspace   sf_frames_compute(recompute, tangents = mikktspace) against uv tangents.
 * One JSON line per result, then the ratios welded / unwelded.
 *
 * usage: bench_weld [runs=9] [quads_per_side=700] [case=all]
 * case: run only case k (0..9, in the order printed) or none (-1), e.g. for instruction and cycle counts
 * that do not depend on machine load: perf stat -e cycles:u,instructions:u bench_weld 20 700 k, minus
 * the same with -1 (the set-up). */
#define _POSIX_C_SOURCE 199309L
#include "sf_internal.h"
#include "sf_kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#define ISLAND 16

static void print_line(size_t n, const char* stage, const char* mode, int runs, timing tm)
{
    printf("{\"bench\":\"weld\",\"vertices\":%zu,\"stage\":\"%s\",\"mode\":\"%s\",\"runs\":%d,\"best_ms\":%.4f,"
           "\"median_ms\":%.4f,\"median_ns_per_vertex\":%.3f}\n",
           n, stage, mode, runs, 1e3 * tm.best, 1e3 * tm.median, 1e9 * tm.median / (double)n);
    fflush(stdout);
}

/* The grid: Q x Q quads of a heightfield, columns split into islands of ISLAND quads; the first column
 * of each island after the first repeats the previous island's last column (same position and normal,
 * u restarts at 0). Two bones along x, weights varying smoothly. */
typedef struct grid {
    float *positions, *normals, *uvs, *weights;
    uint32_t *joints, *indices;
    size_t cols, rows, seam_vertices;
    sf_mesh_desc mesh;
} grid;

static float height(float x, float z) { return 0.1f * sinf(6.0f * x) * cosf(4.0f * z); }

static int grid_build(grid* g, int Q)
{
    memset(g, 0, sizeof *g);
    int islands = (Q + ISLAND - 1) / ISLAND;
    g->cols = (size_t)Q + 1 + (size_t)(islands - 1); /* one extra column per interior seam */
    g->rows = (size_t)Q + 1;
    size_t n = g->cols * g->rows, F = 2 * (size_t)Q * (size_t)Q;
    g->positions = malloc(3 * n * sizeof(float));
    g->normals = malloc(3 * n * sizeof(float));
    g->uvs = malloc(2 * n * sizeof(float));
    g->weights = malloc(2 * n * sizeof(float));
    g->joints = malloc(2 * n * sizeof(uint32_t));
    g->indices = malloc(3 * F * sizeof(uint32_t));
    if (!g->positions || !g->normals || !g->uvs || !g->weights || !g->joints || !g->indices) return 0;
    /* column c of the vertex array -> grid column x and island-local u */
    for (size_t r = 0; r < g->rows; ++r) {
        for (size_t c = 0; c < g->cols; ++c) {
            size_t island = c / (ISLAND + 1), local = c % (ISLAND + 1);
            size_t x = island * ISLAND + local;
            size_t v = r * g->cols + c;
            float fx = (float)x / (float)Q, fz = (float)r / (float)Q;
            float h = height(fx, fz), hx = 0.6f * cosf(6.0f * fx) * cosf(4.0f * fz),
                  hz = -0.4f * sinf(6.0f * fx) * sinf(4.0f * fz);
            float p[3] = {fx, h, fz}, nrm[3] = {-hx, 1.0f, -hz};
            sfk_safe_unit(nrm, nrm);
            memcpy(g->positions + 3 * v, p, sizeof p);
            memcpy(g->normals + 3 * v, nrm, sizeof nrm);
            g->uvs[2 * v] = (float)local / ISLAND;
            g->uvs[2 * v + 1] = 1.0f - fz;
            g->joints[2 * v] = 0, g->joints[2 * v + 1] = 1;
            g->weights[2 * v + 1] = fx, g->weights[2 * v] = 1.0f - fx;
            if (local == 0 && island > 0) g->seam_vertices += 2;
        }
    }
    uint32_t* t = g->indices;
    for (size_t r = 0; r < (size_t)Q; ++r) {
        for (size_t c = 0; c + 1 < g->cols; ++c) {
            if (c % (ISLAND + 1) == ISLAND) continue; /* the seam gap between islands */
            uint32_t a = (uint32_t)(r * g->cols + c), b = a + 1, d = a + (uint32_t)g->cols, e = d + 1;
            uint32_t q[6] = {a, d, b, b, d, e};
            memcpy(t, q, sizeof q);
            t += 6;
        }
    }
    sf_mesh_desc* m = &g->mesh;
    m->vertex_count = n;
    m->triangle_count = (size_t)(t - g->indices) / 3;
    m->indices = g->indices;
    m->positions.data = g->positions;
    m->normals.data = g->normals;
    m->uvs.data = g->uvs;
    m->influence_count = 2;
    m->joints = g->joints;
    m->weights = g->weights;
    m->bone_count = 2;
    return 1;
}

static void grid_free(grid* g)
{
    free(g->positions);
    free(g->normals);
    free(g->uvs);
    free(g->weights);
    free(g->joints);
    free(g->indices);
}

/* The previous welded gather (normals only, area weights): each group member's own corners. */
static void old_welded_gather(const sf_topology* topo, const sf_workspace* ws, float* normals)
{
    for (size_t v = 0; v < topo->vertex_count; ++v) {
        float N[3] = {0, 0, 0};
        uint32_t g = topo->weld[1].group[v];
        for (uint32_t i = topo->weld[1].offsets[g]; i < topo->weld[1].offsets[g + 1]; ++i) {
            uint32_t m = topo->weld[1].members[i];
            for (uint32_t a = topo->adj_offsets[m]; a < topo->adj_offsets[m + 1]; ++a)
                sfk_madd(N, ws->face_n + 3 * (topo->adj_corners[a] / 3), 1.0f);
        }
        sfk_safe_unit(N, normals + 3 * v);
    }
}

/* The same, unwelded, as its baseline. */
static void old_unwelded_gather(const sf_topology* topo, const sf_workspace* ws, float* normals)
{
    for (size_t v = 0; v < topo->vertex_count; ++v) {
        float N[3] = {0, 0, 0};
        for (uint32_t a = topo->adj_offsets[v]; a < topo->adj_offsets[v + 1]; ++a)
            sfk_madd(N, ws->face_n + 3 * (topo->adj_corners[a] / 3), 1.0f);
        sfk_safe_unit(N, normals + 3 * v);
    }
}

int main(int argc, char** argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 9;
    int Q = argc > 2 ? atoi(argv[2]) : 700;
    int only = argc > 3 ? atoi(argv[3]) : -2; /* -2: every case */
    if (runs < 1 || runs > MAX_RUNS || Q < 2) {
        fprintf(stderr, "usage: bench_weld [runs=9 (1..%d)] [quads_per_side=700]\n", MAX_RUNS);
        return 2;
    }
    grid g;
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    sf_error err;
    if (!grid_build(&g, Q) || sf_topology_create(&g.mesh, NULL, NULL, &topo, &err) != SF_OK ||
        sf_workspace_create(topo, NULL, &ws, &err) != SF_OK) {
        fprintf(stderr, "bench_weld: %s\n", err.message);
        return 1;
    }
    size_t n = g.mesh.vertex_count;
    sf_topology_stats st;
    sf_topology_get_stats(topo, &st);
    fprintf(stderr, "grid %dx%d quads: %zu vertices, %zu triangles, %zu seam vertices, %zu weld groups\n", Q, Q, n,
            g.mesh.triangle_count, g.seam_vertices, st.weld_groups);

    float bones[24] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    float c = cosf(0.7f), s = sinf(0.7f); /* bone 1 twisted about x */
    float twist[12] = {1, 0, 0, 0, c, s, 0, -s, c, 0, 0, 0};
    memcpy(bones + 12, twist, sizeof twist);
    sf_pose pose = {bones, 2, NULL, 0};
    float* normals = malloc(3 * n * sizeof(float));
    float* tangents = malloc(4 * n * sizeof(float));
    /* Every case runs once per round, round after round, so load changes hit all cases alike. */
    enum { GATHER = 0, OLD = 3, FRAME = 5, TANGENTS = 8, CASES = 10 };
    static const char* const stage[CASES] = {"gather", "gather", "gather", "gather-normals-old", "gather-normals-old",
                                             "frame", "frame", "frame", "frame-tangents", "frame-tangents"};
    static const char* const mode[CASES] = {"none", "position", "position+normal", "none", "position+normal",
                                            "none", "position", "position+normal", "uv", "mikktspace"};
    static double t[CASES][MAX_RUNS];
    timing tm[CASES];
    sf_frames_out out = {NULL, normals, tangents};
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    if (sf_frames_compute(topo, &pose, SF_METHOD_RECOMPUTE, &o, ws, &out, &err) != SF_OK) {
        fprintf(stderr, "bench_weld: %s\n", err.message);
        return 1;
    }
    for (int i = 0; i < runs; ++i) {
        for (int k = 0; k < CASES; ++k) {
            if (only != -2 && k != only) continue;
            memset(&o, 0, sizeof o);
            if (k < OLD) o.weld = (sf_weld)(k - GATHER);
            if (k >= FRAME && k < TANGENTS) o.weld = (sf_weld)(k - FRAME);
            if (k >= TANGENTS) {
                o.weld = SF_WELD_POSITION_NORMAL;
                o.tangents = (sf_tangent_mode)(k - TANGENTS);
            }
            if (k < OLD) /* gather alone: deform positions from the last frame */
                sfi_deform(topo, &pose, SF_MORPH_DIRECTIONS_DELTAS, ws);
            double t0 = now_s();
            if (k < OLD)
                sfi_recompute(topo, &o, ws, normals, tangents, NULL);
            else if (k == OLD)
                old_unwelded_gather(topo, ws, normals);
            else if (k == OLD + 1)
                old_welded_gather(topo, ws, normals);
            else
                sf_frames_compute(topo, &pose, SF_METHOD_RECOMPUTE, &o, ws, &out, NULL);
            t[k][i] = now_s() - t0;
        }
    }
    if (only != -2) {
        if (only >= 0 && only < CASES) print_line(n, stage[only], mode[only], runs, summarize(t[only], runs));
        return 0;
    }
    for (int k = 0; k < CASES; ++k) {
        tm[k] = summarize(t[k], runs);
        print_line(n, stage[k], mode[k], runs, tm[k]);
    }
    printf("{\"bench\":\"weld\",\"vertices\":%zu,\"seam_vertices\":%zu,\"best_ratio_gather_position_normal\":%.3f,"
           "\"best_ratio_gather_position\":%.3f,\"best_ratio_frame_position_normal\":%.3f,"
           "\"best_ratio_old_gather_normals\":%.3f,\"best_ratio_mikktspace_over_uv_frame\":%.3f,"
           "\"median_ratio_gather_position_normal\":%.3f,\"median_ratio_frame_position_normal\":%.3f}\n",
           n, g.seam_vertices, tm[2].best / tm[0].best, tm[1].best / tm[0].best, tm[FRAME + 2].best / tm[FRAME].best,
           tm[OLD + 1].best / tm[OLD].best, tm[TANGENTS + 1].best / tm[TANGENTS].best, tm[2].median / tm[0].median,
           tm[FRAME + 2].median / tm[FRAME].median);
    free(normals);
    free(tangents);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    grid_free(&g);
    return 0;
}

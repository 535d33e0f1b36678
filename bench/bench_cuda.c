/* GPU benchmark (not a test; needs the CUDA backend and a GPU): every stage of the CUDA backend on grid
 * meshes of about 100k, 1M and 10M vertices (4 influences over 16 bones, UVs, a dense and a sparse morph
 * target), on a crowd of 1000 instances of a 20k-vertex grid, and on the staged character (CesiumMan: its
 * authored normals, 4 influences over 19 joints) replicated to the grids' sizes. Per stage: the median GPU
 * time (CUDA events, after warm-up, inputs and outputs rotated over several workspaces while a set fits in L2), the
 * fewest bytes it must move (each input read once, each output written once, packed: float3 positions and
 * normals, float4 tangents, 4 x u16 joints, 4 x f32 weights, plus the stage's own data: morph entries,
 * gradients, indices, adjacency), the achieved GB/s over those bytes, and the ratio of the time to the time
 * those bytes take at the device-to-device copy bandwidth measured in the same run. One JSON line per
 * result, then a table.
 *
 * The device picks each mesh's vertex order (sfi_cuda_set_locality: the Morton order where it is more local than
 * the authored one); with SF_BENCH_ORDERS=1 each character is measured in the authored order too (scene name +
 * "-authored"), and with SF_BENCH_ORDERS=2 each grid and character in both orders (+ "-authored", "-morton").
 * SF_BENCH_ONLY=character skips the grids and the crowd.
 *
 * usage: bench_cuda [max_vertices=11000000] [reps=30] [crowd=1000] */
#define _POSIX_C_SOURCE 200809L
#include "gpu_blocks.h"
#include "sf_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "floors.h"
#include "staged.h"

/* ---------------------------------------------------------------- threads for the CPU-side topology build */

typedef struct pool_job {
    sf_range_fn* fn;
    void* ctx;
    size_t count, grain, next;
    pthread_mutex_t lock;
} pool_job;

static void* pool_worker(void* arg)
{
    pool_job* j = (pool_job*)arg;
    for (;;) {
        pthread_mutex_lock(&j->lock);
        size_t b = j->next;
        j->next = b + j->grain < j->count ? b + j->grain : j->count;
        pthread_mutex_unlock(&j->lock);
        if (b >= j->count) return NULL;
        j->fn(j->ctx, b, b + j->grain < j->count ? b + j->grain : j->count);
    }
}

/* Ranges are disjoint and each result depends only on its range, so the order of the threads is free. */
static void pool_for(void* user, size_t count, size_t grain, sf_range_fn* fn, void* ctx)
{
    (void)user;
    pool_job j = {fn, ctx, count, grain ? grain : 1, 0, PTHREAD_MUTEX_INITIALIZER};
    pthread_t t[16];
    int k = 0;
    for (; k < 16 && count > grain; ++k)
        if (pthread_create(&t[k], NULL, pool_worker, &j) != 0) break;
    pool_worker(&j);
    for (int i = 0; i < k; ++i) pthread_join(t[i], NULL);
}

/* ---------------------------------------------------------------- the mesh */

typedef struct grid {
    size_t r, n, F;
    float *pos, *uv, *w, *dp, *dn, *dt, *sdp, *bones, *morph;
    uint32_t *idx, *j, *sidx;
    sf_morph_target_desc targets[2];
    sf_mesh_desc mesh;
    sf_pose pose;
} grid;

#define BONES 16

static void grid_free(grid* g)
{
    free(g->pos), free(g->uv), free(g->w), free(g->dp), free(g->dn), free(g->dt), free(g->sdp), free(g->bones);
    free(g->morph), free(g->idx), free(g->j), free(g->sidx);
}

/* r x r quads over [0,1]^2 with a wave, 4 influences each from the 4 nearest of 16 bones along x, a dense
 * target (every vertex: position, normal, tangent deltas) and a sparse one (every 10th vertex). */
static int grid_make(grid* g, size_t r)
{
    memset(g, 0, sizeof *g);
    size_t n = (r + 1) * (r + 1), F = 2 * r * r, s = (n + 9) / 10;
    g->r = r, g->n = n, g->F = F;
    g->pos = malloc(12 * n), g->uv = malloc(8 * n), g->w = malloc(16 * n), g->j = malloc(16 * n);
    g->dp = malloc(12 * n), g->dn = malloc(12 * n), g->dt = malloc(12 * n), g->idx = malloc(12 * F);
    g->sdp = malloc(12 * s), g->sidx = malloc(4 * s), g->bones = malloc(48 * BONES), g->morph = malloc(8);
    if (!g->pos || !g->uv || !g->w || !g->j || !g->dp || !g->dn || !g->dt || !g->idx || !g->sdp || !g->sidx) return 1;
    for (size_t y = 0; y <= r; ++y)
        for (size_t x = 0; x <= r; ++x) {
            size_t v = y * (r + 1) + x;
            float u = (float)x / (float)r, t = (float)y / (float)r;
            g->pos[3 * v] = u, g->pos[3 * v + 1] = t, g->pos[3 * v + 2] = 0.02f * sinf(12.0f * u) * cosf(9.0f * t);
            g->uv[2 * v] = u, g->uv[2 * v + 1] = t;
            float b = u * (BONES - 1);
            int b0 = (int)b - 1;
            if (b0 < 0) b0 = 0;
            if (b0 > BONES - 4) b0 = BONES - 4;
            float sum = 0.0f, w[4];
            for (int k = 0; k < 4; ++k) {
                float d = fabsf(b - (float)(b0 + k));
                w[k] = d < 2.0f ? (2.0f - d) * (2.0f - d) : 0.0f;
                w[k] += 1e-3f;
                sum += w[k];
            }
            for (int k = 0; k < 4; ++k) g->j[4 * v + k] = (uint32_t)(b0 + k), g->w[4 * v + k] = w[k] / sum;
            g->dp[3 * v] = 0.0f, g->dp[3 * v + 1] = 0.0f, g->dp[3 * v + 2] = 0.05f * sinf(20.0f * u + 7.0f * t);
            g->dn[3 * v] = -0.1f * cosf(20.0f * u), g->dn[3 * v + 1] = 0.0f, g->dn[3 * v + 2] = 0.0f;
            g->dt[3 * v] = 0.0f, g->dt[3 * v + 1] = 0.0f, g->dt[3 * v + 2] = 0.1f * cosf(20.0f * u);
        }
    for (size_t k = 0; k < s; ++k) {
        g->sidx[k] = (uint32_t)(10 * k);
        g->sdp[3 * k] = 0.01f, g->sdp[3 * k + 1] = -0.01f, g->sdp[3 * k + 2] = 0.02f;
    }
    for (size_t y = 0; y < r; ++y)
        for (size_t x = 0; x < r; ++x) {
            uint32_t a = (uint32_t)(y * (r + 1) + x), b = a + 1, c = a + (uint32_t)(r + 1), d = c + 1;
            uint32_t* q = g->idx + 6 * (y * r + x);
            q[0] = a, q[1] = b, q[2] = d, q[3] = a, q[4] = d, q[5] = c;
        }
    g->targets[0] = (sf_morph_target_desc){"dense", g->dp, g->dn, g->dt, NULL, 0};
    g->targets[1] = (sf_morph_target_desc){"sparse", g->sdp, NULL, NULL, g->sidx, s};
    sf_mesh_desc* m = &g->mesh;
    memset(m, 0, sizeof *m);
    m->vertex_count = n, m->triangle_count = F, m->indices = g->idx;
    m->positions.data = g->pos, m->uvs.data = g->uv;
    m->influence_count = 4, m->joints = g->j, m->weights = g->w, m->bone_count = BONES;
    m->targets = g->targets, m->target_count = 2;
    return 0;
}

static void pose_make(float phase, sf_pose* out, float* bones, float* morph)
{
    for (int b = 0; b < BONES; ++b) {
        float a = phase * (float)b / BONES, c = cosf(a), s = sinf(a), sc = 1.0f + 0.05f * sinf(phase + (float)b);
        float cx = (float)b / (BONES - 1); /* rotate about the bone's x position's axis through (cx, 0.5, 0) */
        float* m = bones + 12 * b;
        float A[9] = {sc, 0, 0, 0, c * sc, s * sc, 0, -s * sc, c * sc};
        memcpy(m, A, sizeof A);
        float p[3] = {cx, 0.5f, 0.0f};
        for (int i = 0; i < 3; ++i) m[9 + i] = p[i] - (A[i] * p[0] + A[3 + i] * p[1] + A[6 + i] * p[2]);
    }
    morph[0] = 0.5f + 0.4f * sinf(phase), morph[1] = 0.7f;
    *out = (sf_pose){bones, BONES, morph, 2};
}

/* ---------------------------------------------------------------- results */

static double copy_gbps; /* this run's device-to-device copy, bytes read + written per second / 1e9 */

typedef struct row {
    char scene[16], name[64];
    size_t n, instances;
    double ms, floor_mb;
} row;
#define MAX_ROWS 512
static row rows[MAX_ROWS];
static size_t row_count;

static void report(const char* scene, size_t n, size_t inst, const char* stage, const char* variant, double ms,
                   double floor_bytes)
{
    double gbps = floor_bytes / (ms * 1e-3) / 1e9, floor_ms = floor_bytes / (copy_gbps * 1e9) * 1e3;
    printf(
        "{\"bench\":\"cuda\",\"scene\":\"%s\",\"vertices\":%zu,\"instances\":%zu,\"stage\":\"%s\",\"variant\":\"%s\","
        "\"median_ms\":%.4f,\"floor_mb\":%.2f,\"floor_gbps\":%.1f,\"copy_gbps\":%.1f,\"x_floor\":%.3f}\n",
        scene, n, inst, stage, variant, ms, floor_bytes / 1e6, gbps, copy_gbps, ms / floor_ms);
    fflush(stdout);
    if (row_count < MAX_ROWS) {
        row* r = &rows[row_count++];
        snprintf(r->scene, sizeof r->scene, "%s", scene);
        snprintf(r->name, sizeof r->name, "%s %s", stage, variant);
        r->n = n, r->instances = inst, r->ms = ms, r->floor_mb = floor_bytes / 1e6;
    }
}

static int both_orders; /* SF_BENCH_ORDERS: 1, each character in the authored order too; 2, also the grids,
                           * and both in the Morton order */

static int fail(const char* what, const sf_error* err)
{
    fprintf(stderr, "bench_cuda: %s: %s\n", what, err->message);
    return 1;
}

/* SF_BENCH_STAGES: a comma-separated list of "stage variant" names as the table prints them (e.g. "skin+method
 * jacobian,skin+method jacobian-fan"): only those are timed, and the statistics are left out; unset: every stage. */
static int stage_wanted(const char* stage, const char* variant)
{
    const char* list = getenv("SF_BENCH_STAGES");
    if (!list || !*list) return 1;
    char name[96];
    snprintf(name, sizeof name, "%s %s", stage, variant);
    size_t len = strlen(name);
    for (const char* p = list; *p;) {
        const char* end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && strncmp(p, name, n) == 0) return 1;
        p += n + (end != NULL);
    }
    return 0;
}

/* Every stage on k workspaces of one topology with inst instances each, posed by poses[0..inst); with
 * statistics, the evaluation's error statistics per method are printed after the times. */
static int bench_topology(const char* scene, sf_topology* topo, size_t inst, const sf_pose* poses, int reps,
                          int statistics, sfi_cuda_order order)
{
    size_t n = topo->vertex_count;
    floors fl = floors_of(topo);
    double set_bytes = (fl.skin_in + fl.dir_in + fl.morph_pos + fl.morph_dirs + fl.grads + fl.fan_grads + fl.faces) +
                       inst * (fl.out_pos + 2 * fl.out_frame + 12.0 * topo->triangle_count * 4);
    size_t k = set_bytes > 200e6 ? 1 : (size_t)ceil(200e6 / set_bytes); /* rotate until 200 MB (> 60 MB L2) */
    if (k > 8) k = 8;
    sf_workspace* ws[8] = {NULL};
    sf_workspace_opts wo = {0, SF_BACKEND_CUDA};
    sf_error err;
    int code = 0;
    for (size_t w = 0; w < k && !code; ++w) {
        if (sf_workspace_create(topo, &wo, &ws[w], &err) != SF_OK ||
            sfi_cuda_set_locality(ws[w], order, &err) != SF_OK ||
            sfi_cuda_bench_upload(ws[w], poses, inst, &err) != SF_OK)
            code = fail("workspace", &err);
    }
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    double ms = 0.0;
    double I = (double)inst;
#define TIME(stage, method, variant, label, vname, bytes)                                                              \
    do {                                                                                                               \
        if (!code && stage_wanted(label, vname)) {                                                                     \
            if (sfi_cuda_bench_time(ws, k, stage, method, &o, variant, reps, &ms, &err) != SF_OK)                      \
                code = fail(label, &err);                                                                              \
            else                                                                                                       \
                report(scene, n, inst, label, vname, ms, bytes);                                                       \
        }                                                                                                              \
    } while (0)
    /* the reference first, so that the error stage has one to compare against */
    TIME(SFI_STAGE_DEFORM, SF_METHOD_UNCHANGED, 0, "deform", "",
         (fl.skin_in + fl.morph_pos) + I * (fl.out_pos + 4.0 * n));
    /* every method but the reference, from the pose; recompute-fused reads what the reference reads */
    for (int q = 0; q < SF_METHOD_COUNT; ++q) {
        sf_method m = (sf_method)q;
        if (m == SF_METHOD_RECOMPUTE) continue;
        double in = floors_method_in(&fl, m);
        TIME(SFI_STAGE_METHOD, m, 0, "skin+method", sf_method_name(m), in + I * (fl.out_pos + fl.out_frame));
        if (m != SF_METHOD_RECOMPUTE_FUSED) /* the same pass without the frames report */
            TIME(SFI_STAGE_PASS, m, 0, "skin+pass", sf_method_name(m), in + I * (fl.out_pos + fl.out_frame));
    }
    double rebuild_in = I * (fl.out_pos + 4.0 * n) + fl.faces, rebuild_out = I * fl.out_frame;
    for (int v = 0; v < SFI_CUDA_RECOMPUTE_COUNT; ++v) {
        int one = v == SFI_CUDA_ONE_PASS || v == SFI_CUDA_ONE_PASS_NAIVE; /* skins too: skin+reference's bytes */
        double in = one ? fl.skin_in + fl.morph_pos + fl.faces : rebuild_in;
        TIME(SFI_STAGE_REBUILD, SF_METHOD_RECOMPUTE, (sfi_cuda_recompute)v, "rebuild",
             sfi_cuda_recompute_name((sfi_cuda_recompute)v), in + rebuild_out + (one ? I * fl.out_pos : 0.0));
    }
    for (int v = 0; v < SFI_CUDA_RECOMPUTE_COUNT; ++v)
        TIME(SFI_STAGE_RECOMPUTE, SF_METHOD_RECOMPUTE, (sfi_cuda_recompute)v, "skin+reference",
             sfi_cuda_recompute_name((sfi_cuda_recompute)v),
             fl.skin_in + fl.morph_pos + fl.faces + I * (fl.out_pos + fl.out_frame));
    /* errors: a method's frames and the reference's read once */
    if (!code && stage_wanted("errors", "") &&
        sfi_cuda_bench_time(ws, k, SFI_STAGE_METHOD, SF_METHOD_SKINNED, &o, 0, 1, &ms, &err) != SF_OK)
        code = fail("skinned", &err);
    TIME(SFI_STAGE_ERRORS, SF_METHOD_SKINNED, 0, "errors", "", I * 2 * fl.out_frame);
    double all_in = fl.skin_in + fl.dir_in + fl.morph_pos + fl.morph_dirs + fl.grads + fl.fan_grads + fl.faces;
    /* the evaluation keeps the positions and the reference's frames; the methods' frames go straight into the
     * statistics, so they are no output */
    TIME(SFI_STAGE_EVAL, SF_METHOD_RECOMPUTE, SFI_CUDA_FACE_GATHER, "pipeline", "face-gather",
         all_in + I * (fl.out_pos + fl.out_frame));
    TIME(SFI_STAGE_EVAL, SF_METHOD_RECOMPUTE, SFI_CUDA_GATHER, "pipeline", "gather",
         all_in + I * (fl.out_pos + fl.out_frame));
    TIME(SFI_STAGE_EVAL, SF_METHOD_RECOMPUTE, SFI_CUDA_HALO_GATHER, "pipeline", "halo-gather",
         all_in + I * (fl.out_pos + fl.out_frame));
    /* the same with each per-vertex row its own deform (sfi_cuda_set_rows) */
    for (size_t w = 0; w < k; ++w) sfi_cuda_set_rows(ws[w], 0);
    TIME(SFI_STAGE_EVAL, SF_METHOD_RECOMPUTE, SFI_CUDA_HALO_GATHER, "pipeline", "halo-gather rows apart",
         all_in + I * (fl.out_pos + fl.out_frame));
    for (size_t w = 0; w < k; ++w) sfi_cuda_set_rows(ws[w], SFI_CUDA_ROWS_SHARED_DEFORM);
#undef TIME
    const char* chosen = getenv("SF_BENCH_STAGES");
    if (!code && statistics && !(chosen && *chosen)) { /* as a check that the statistics are sane */
        sf_error_summary s;
        sf_method all[SF_METHOD_COUNT];
        for (int m = 0; m < SF_METHOD_COUNT; ++m) all[m] = (sf_method)m;
        const int nrows = SF_METHOD_COUNT;
        if (sfi_cuda_eval_enqueue(ws[0], poses, inst, all, (size_t)nrows, NULL, NULL, &err) != SF_OK)
            code = fail("evaluation", &err);
        for (int m = 0; !code && m < nrows; ++m) {
            if (sfi_cuda_eval_read(ws[0], (size_t)m, &s, NULL, NULL, NULL, &err) != SF_OK) {
                code = fail("statistics", &err);
                break;
            }
            printf("%s %s: %zu normals, mean %.4f p50 %.4f p95 %.4f max %.3f deg; tangents mean %.4f max %.3f\n",
                   inst > 1 ? "crowd" : scene, sf_method_name(all[m]), s.normal.count, s.normal.mean, s.normal.p50,
                   s.normal.p95, s.normal.max, s.tangent.mean, s.tangent.max);
        }
    }
    for (size_t w = 0; w < k; ++w) sf_workspace_destroy(ws[w]);
    return code;
}

/* The topology of desc (timed) and its locality blocks (measured on the host), or NULL after printing why. */
static sf_topology* topology_make(const sf_mesh_desc* desc, const sf_env* env)
{
    sf_topology* topo = NULL;
    sf_error err;
    double t0 = now_s();
    if (sf_topology_create(desc, NULL, env, &topo, &err) != SF_OK) {
        fail("topology", &err);
        return NULL;
    }
    size_t n = desc->vertex_count, F = desc->triangle_count;
    fprintf(stderr, "bench_cuda: %zu vertices, topology in %.1f s\n", n, now_s() - t0);
    t0 = now_s();
    sfi_gpu_blocks hb; /* the locality blocks of halo-gather / one-pass, measured on the host */
    if (sfi_gpu_blocks_build(topo, -1, SFI_CUDA_HALO_OWN, SFI_CUDA_HALO_LOCALS, SFI_CUDA_HALO_FACES, &hb, &err) ==
        SF_OK) {
        printf("halo blocks, %zu vertices: %u blocks, halo ratio %.3f (halo vertices per vertex), %.3f faces per "
               "triangle, largest block %u vertices / %u faces, built in %.2f s\n",
               n, hb.block_count, (double)hb.halo_count / (double)n, (double)hb.face_count / (double)F,
               hb.max_locals, hb.max_faces, now_s() - t0);
        sfi_gpu_blocks_free(&hb);
    }
    return topo;
}

/* A pose per instance: the bones rotated about x by angles growing along the sheet, scaled a little. */
static int bench_grid(size_t r, size_t inst, int reps, const sf_env* env)
{
    grid g;
    sf_pose* poses = calloc(inst, sizeof *poses);
    float* bones = calloc(inst * 12 * BONES, sizeof(float));
    float* morph = calloc(inst * 2, sizeof(float));
    if (grid_make(&g, r) || !poses || !bones || !morph) {
        grid_free(&g);
        free(poses), free(bones), free(morph);
        fprintf(stderr, "bench_cuda: out of memory for r = %zu\n", r);
        return 1;
    }
    for (size_t i = 0; i < inst; ++i)
        pose_make(1.0f + 0.37f * (float)i, &poses[i], bones + 12 * BONES * i, morph + 2 * i);
    sf_topology* topo = topology_make(&g.mesh, env);
    int code = topo ? bench_topology(inst > 1 ? "crowd-grid" : "grid", topo, inst, poses, reps, inst > 1,
                                     SFI_CUDA_ORDER_AUTO)
                    : 1;
    if (!code && inst == 1 && both_orders > 1)
        code = bench_topology("grid-authored", topo, inst, poses, reps, 0, SFI_CUDA_ORDER_AUTHORED);
    if (!code && inst == 1 && both_orders > 1)
        code = bench_topology("grid-morton", topo, inst, poses, reps, 0, SFI_CUDA_ORDER_MORTON);
    sf_topology_destroy(topo);
    grid_free(&g);
    free(poses), free(bones), free(morph);
    return code;
}

/* The staged character replicated to at least min_vertices (a skeleton per copy), every copy in the pose it
 * was loaded with. */
static int bench_character(const staged_character* c, size_t min_vertices, int reps, const sf_env* env)
{
    replicated_mesh rm;
    if (replicated_mesh_make(&rm, &c->desc, min_vertices, "bench_cuda")) return 1;
    fprintf(stderr, "bench_cuda: the staged character, %zu copies of %zu vertices\n", rm.copies, c->desc.vertex_count);
    float* bones = malloc(12 * sizeof(float) * (rm.desc.bone_count ? rm.desc.bone_count : 1));
    if (!bones) fprintf(stderr, "bench_cuda: out of memory for %zu bones\n", rm.desc.bone_count);
    sf_topology* topo = bones ? topology_make(&rm.desc, env) : NULL;
    int code = 1;
    if (topo) {
        sf_pose pose;
        replicated_pose(&rm, &c->pose, bones, &pose);
        code = bench_topology("character", topo, 1, &pose, reps, 1, SFI_CUDA_ORDER_AUTO);
        if (!code && both_orders)
            code = bench_topology("character-authored", topo, 1, &pose, reps, 0, SFI_CUDA_ORDER_AUTHORED);
        if (!code && both_orders > 1)
            code = bench_topology("character-morton", topo, 1, &pose, reps, 0, SFI_CUDA_ORDER_MORTON);
    }
    sf_topology_destroy(topo);
    replicated_mesh_free(&rm);
    free(bones);
    return code;
}

int main(int argc, char** argv)
{
    size_t max_n = argc > 1 ? strtoull(argv[1], NULL, 10) : 11000000;
    int reps = argc > 2 ? atoi(argv[2]) : 30;
    size_t crowd = argc > 3 ? strtoull(argv[3], NULL, 10) : 1000;
    if (reps < 1) reps = 1;
    const char* ao = getenv("SF_BENCH_ORDERS");
    both_orders = ao ? atoi(ao) : 0;
    setvbuf(stdout, NULL, _IOLBF, 0); /* each result out at once: a run stopped early keeps what it measured */
    sf_error err;
    char desc[256];
    if (sf_backend_check(SF_BACKEND_CUDA, &err) != SF_OK || sfi_cuda_describe(desc, sizeof desc, &err) != SF_OK) {
        fprintf(stderr, "bench_cuda: %s\n", err.message);
        return 77;
    }
    double copy_ms = 0.0;
    size_t copy_bytes = (size_t)1 << 30;
    if (sfi_cuda_bench_copy(copy_bytes, 20, &copy_ms, &err) != SF_OK) return fail("copy", &err);
    copy_gbps = 2.0 * (double)copy_bytes / (copy_ms * 1e-3) / 1e9;
    printf("{\"bench\":\"cuda\",\"device\":\"%s\",\"copy_gbps\":%.1f}\n", desc, copy_gbps);
    sf_env env;
    memset(&env, 0, sizeof env);
    env.threads.parallel_for = pool_for;
    static const size_t sizes[] = {315, 999, 3161}; /* (r+1)^2: 99856, 1000000, 9998244 vertices */
    const char* only = getenv("SF_BENCH_ONLY"); /* "character": the staged character alone */
    int grids = !(only && strcmp(only, "character") == 0);
    for (size_t s = 0; s < 3 && grids; ++s) {
        if ((sizes[s] + 1) * (sizes[s] + 1) > max_n) break;
        if (bench_grid(sizes[s], 1, reps, &env)) return 1;
    }
    if (crowd && grids && bench_grid(140, crowd, reps, &env)) return 1; /* 141^2 = 19881 vertices each */
    staged_character c; /* CesiumMan at 1 s of its walk, replicated to the grids' sizes */
    if (staged_character_load(&c, SF_SOURCE_DIR, 1.0, "bench_cuda") == 0) {
        int code = 0;
        for (size_t s = 0; s < 3 && !code; ++s) {
            size_t want = (sizes[s] + 1) * (sizes[s] + 1);
            if (want > max_n) break;
            code = bench_character(&c, want, reps, &env);
        }
        staged_character_free(&c);
        if (code) return 1;
    }
    printf("\n%-10s %-28s %10s %9s %9s %10s %8s %8s\n", "scene", "stage", "vertices", "instances", "ms", "floor MB",
           "GB/s", "x floor");
    for (size_t k = 0; k < row_count; ++k) {
        const row* r = &rows[k];
        double floor_ms = r->floor_mb * 1e6 / (copy_gbps * 1e9) * 1e3;
        printf("%-10s %-28s %10zu %9zu %9.4f %10.1f %8.0f %8.2f\n", r->scene, r->name, r->n, r->instances, r->ms,
               r->floor_mb, r->floor_mb * 1e6 / (r->ms * 1e-3) / 1e9, r->ms / floor_ms);
    }
    printf("device: %s; device-to-device copy %.0f GB/s (read + write)\n", desc, copy_gbps);
    return 0;
}

/* Skinning speed benchmark (not a test): per stage and method, the median ns per vertex over R interleaved
 * rounds (every case once per round, so load and clock drift hit every case alike), on one thread and on every
 * thread of the command's pool (cli/pool.c behind sf_env.threads), beside the yardstick: a plain scalar loop
 * doing ozz-animation's SkinningJob work (yardstick.c, -O2).
 *
 * Meshes:
 *   grid     262,144 vertices: a 512 x 512 grid (triangulated, UVs along the grid), 64 random rigid joints,
 *            4 distinct random joints per vertex with positive weights summing to one, random unit normals
 *            and tangents, no morph targets;
 *   sheet    the `sheet` scene at resolution 447 (1,001,728 vertices, 5 bones twisted, 3 dense targets on);
 *   cesium   tests/assets/gltf/CesiumMan posed at 1 s of its animation (needs the glTF layer).
 * Stages: `positions` (sf_deform_positions), `frames` per method (sf_frames_compute, every method of the core:
 * unchanged to recompute-fused, which includes the deform and the report), `frames recompute-mikktspace`
 * (recompute with MikkTSpace tangents), `error` (sf_direction_errors with statistics, skinned against recompute),
 * `yardstick` (4 influences only), `quantized skinned` (sf_quantized_skin on the rest streams quantized as
 * KHR_mesh_quantization stores them: positions INT16 with a scale and offset, normals and tangents SNORM16, 4 UINT8
 * joints (UINT16 above 256 bones) and UNORM8 weights; no morph, as the yardstick), `memory floor` (memory_floor.c:
 * the bytes `positions`, `skinned` and `quantized skinned` move, and nothing else: the bound of this core's
 * bandwidth).
 *
 * usage: bench_skin [--runs R (21)] [--threads T (0 = every core)] [--mesh grid|sheet|cesium|all] [--source DIR]
 *                   [--skip WORD[,WORD...]] (leave out the cases whose label contains a word, e.g. mikktspace)
 * Prints one JSON line per result, then a table and the ratios of the medians. */
#define _POSIX_C_SOURCE 199309L
#include "skinframe.h"
#include "skinframe_scenes.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "floors.h"
#include "memory_floor.h"
#include "staged.h"
#include "yardstick.h"

/* cli/pool.c (linked in): the command's thread pool. */
sf_env cli_env(void);
void cli_env_shutdown(void);
int cli_pool_start(size_t threads);
size_t cli_pool_threads(void);

/* ---------------------------------------------------------------- threads on and off */

static int g_parallel; /* 0: the hook runs serially, 1: through the pool */
static sf_env g_pool_env;

static void bench_parallel_for(void* user, size_t count, size_t grain, sf_range_fn* fn, void* ctx)
{
    (void)user;
    if (g_parallel && g_pool_env.threads.parallel_for) {
        g_pool_env.threads.parallel_for(g_pool_env.threads.user, count, grain, fn, ctx);
        return;
    }
    for (size_t b = 0; b < count; b += grain) fn(ctx, b, count - b < grain ? count : b + grain);
}

/* ---------------------------------------------------------------- meshes */

typedef struct bench_mesh {
    const char* name;
    sf_mesh_desc desc;
    sf_pose pose;
    /* owned storage (grid), or the scene / glTF that owns it */
    float *positions, *normals, *tangents, *uvs, *weights, *bones, *morph;
    uint32_t *indices, *joints;
    sf_scene* scene;
    staged_character staged;
} bench_mesh;

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static double rnd(void) /* [0, 1) */
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (double)(g_rng >> 11) * (1.0 / 9007199254740992.0);
}

static void random_unit(float* v)
{
    for (;;) {
        double x = 2 * rnd() - 1, y = 2 * rnd() - 1, z = 2 * rnd() - 1, l = sqrt(x * x + y * y + z * z);
        if (l > 0.1 && l <= 1.0) {
            v[0] = (float)(x / l), v[1] = (float)(y / l), v[2] = (float)(z / l);
            return;
        }
    }
}

/* A random rotation (unit quaternion) and translation as a 3x4 column-major matrix. */
static void random_rigid(float* m)
{
    double q[4], l = 0;
    for (int i = 0; i < 4; ++i) q[i] = 2 * rnd() - 1, l += q[i] * q[i];
    l = sqrt(l);
    double x = q[0] / l, y = q[1] / l, z = q[2] / l, w = q[3] / l;
    double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                   2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                   2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    for (int i = 0; i < 9; ++i) m[i] = (float)r[i];
    for (int i = 9; i < 12; ++i) m[i] = (float)(2 * rnd() - 1);
}

static int make_grid(bench_mesh* bm)
{
    const size_t side = 512, n = side * side, F = 2 * (side - 1) * (side - 1), bones = 64;
    bm->name = "grid";
    bm->positions = malloc(3 * n * sizeof(float));
    bm->normals = malloc(3 * n * sizeof(float));
    bm->tangents = malloc(4 * n * sizeof(float));
    bm->uvs = malloc(2 * n * sizeof(float));
    bm->joints = malloc(4 * n * sizeof(uint32_t));
    bm->weights = malloc(4 * n * sizeof(float));
    bm->indices = malloc(3 * F * sizeof(uint32_t));
    bm->bones = malloc(12 * bones * sizeof(float));
    if (!bm->positions || !bm->normals || !bm->tangents || !bm->uvs || !bm->joints || !bm->weights || !bm->indices ||
        !bm->bones)
        return 1;
    for (size_t y = 0; y < side; ++y)
        for (size_t x = 0; x < side; ++x) {
            size_t v = y * side + x;
            bm->positions[3 * v] = (float)x / (float)(side - 1);
            bm->positions[3 * v + 1] = (float)y / (float)(side - 1);
            bm->positions[3 * v + 2] = (float)(0.1 * sin(0.05 * (double)(x + 2 * y)));
            bm->uvs[2 * v] = bm->positions[3 * v];
            bm->uvs[2 * v + 1] = bm->positions[3 * v + 1];
            random_unit(bm->normals + 3 * v);
            random_unit(bm->tangents + 4 * v);
            bm->tangents[4 * v + 3] = rnd() < 0.5 ? -1.0f : 1.0f;
            double w[4], s = 0;
            for (int i = 0; i < 4; ++i) {
                uint32_t j;
                int again;
                do { /* distinct joints */
                    j = (uint32_t)(rnd() * (double)bones);
                    again = 0;
                    for (int k = 0; k < i; ++k) again |= bm->joints[4 * v + k] == j;
                } while (again);
                bm->joints[4 * v + i] = j;
                w[i] = 0.05 + rnd();
                s += w[i];
            }
            for (int i = 0; i < 4; ++i) bm->weights[4 * v + i] = (float)(w[i] / s);
        }
    size_t t = 0;
    for (size_t y = 0; y + 1 < side; ++y)
        for (size_t x = 0; x + 1 < side; ++x) {
            uint32_t a = (uint32_t)(y * side + x), b = a + 1, c = a + (uint32_t)side, d = c + 1;
            uint32_t tri[6] = {a, b, d, a, d, c};
            memcpy(bm->indices + 3 * t, tri, sizeof tri);
            t += 2;
        }
    for (size_t b = 0; b < bones; ++b) random_rigid(bm->bones + 12 * b);
    sf_mesh_desc* d = &bm->desc;
    memset(d, 0, sizeof *d);
    d->vertex_count = n;
    d->triangle_count = F;
    d->indices = bm->indices;
    d->positions.data = bm->positions;
    d->normals.data = bm->normals;
    d->tangents.data = bm->tangents;
    d->uvs.data = bm->uvs;
    d->influence_count = 4;
    d->joints = bm->joints;
    d->weights = bm->weights;
    d->bone_count = bones;
    bm->pose.bone_matrices = bm->bones;
    bm->pose.bone_count = bones;
    return 0;
}

static int make_sheet(bench_mesh* bm)
{
    const sf_scene_setting set[] = {{"resolution", 447}, {"twist", 90}, {"towel-twist", 0.7}, {"swirl", 0.5},
                                    {"ripples", 0.6}};
    sf_error err;
    bm->name = "sheet";
    if (sf_scene_create("sheet", NULL, set, sizeof set / sizeof set[0], NULL, &bm->scene, &err) != SF_OK) {
        fprintf(stderr, "bench_skin: sheet: %s\n", err.message);
        return 1;
    }
    bm->desc = bm->scene->mesh;
    bm->pose = bm->scene->pose;
    return 0;
}

static int make_cesium(bench_mesh* bm, const char* source_dir)
{
    bm->name = "cesium";
    if (staged_character_load(&bm->staged, source_dir, 1.0, "bench_skin")) return 1;
    bm->desc = bm->staged.desc;
    bm->pose = bm->staged.pose;
    return 0;
}

static void free_mesh(bench_mesh* bm)
{
    free(bm->positions), free(bm->normals), free(bm->tangents), free(bm->uvs), free(bm->weights), free(bm->bones);
    free(bm->morph), free(bm->indices), free(bm->joints);
    sf_scene_destroy(bm->scene);
    staged_character_free(&bm->staged);
}

/* ---------------------------------------------------------------- cases */

enum { KIND_POSITIONS, KIND_FRAMES, KIND_MIKK, KIND_ERROR, KIND_YARDSTICK, KIND_FLOOR, KIND_QUANT, KIND_QUANT_FLOOR };

/* The bytes per vertex the fast passes must move, counted in floats (the topology's blocked rest rows, 4 16-bit
 * joints = 2 floats' bytes and 4 weights in; the caller's packed outputs): `skinned` reads 10 + 2 + 4 and writes
 * 3 + 3 + 4, `positions` reads 3 + 2 + 4 and writes 3. */
#define FLOOR_SKINNED_IN 16
#define FLOOR_SKINNED_OUT 10
#define FLOOR_POSITIONS_IN 9
#define FLOOR_POSITIONS_OUT 3
/* `quantized skinned` reads 8 bytes of position (3 INT16, padded as KHR_mesh_quantization aligns them), 8 of normal,
 * 8 of tangent, 4 of joints and 4 of weights (8 floats' bytes; 10 above 256 bones) and writes what `skinned` does. */
#define FLOOR_QUANT_IN 8
#define FLOOR_QUANT_IN_WIDE 10

typedef struct bench_case {
    int kind;
    sf_method method; /* KIND_FRAMES; KIND_FLOOR: SF_METHOD_SKINNED or (positions) SF_METHOD_UNCHANGED */
    char label[64];
    double t[MAX_RUNS];
    timing tm;
    double bytes; /* the floor's bytes per vertex (case_bytes), 0 = not counted */
} bench_case;

typedef struct bench_state {
    const bench_mesh* bm;
    sf_topology* topo;
    sf_workspace* ws;
    float *pos, *nrm, *tan, *ref_n, *ref_t, *ang;
    /* the yardstick's inputs (the topology's normalised influences, uint16 joints as ozz stores them) */
    uint16_t* y_joints;
    const float *y_weights, *y_pos, *y_nrm, *y_tan;
    float *floor_in, *floor_out; /* the memory floor's streams, FLOOR_SKINNED_IN / _OUT floats per vertex */
    /* the quantized streams (NULL: not 4 influences) and the pose without morph weights */
    sf_quantized_mesh q;
    int16_t *q_pos, *q_nrm, *q_tan;
    void *q_joints;
    uint8_t* q_weights;
    sf_pose q_pose;
} bench_state;

static int run_case(bench_state* s, const bench_case* c)
{
    size_t n = s->bm->desc.vertex_count;
    sf_error err;
    sf_result r = SF_OK;
    sf_frames_out out = {s->pos, s->nrm, s->tan};
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    switch (c->kind) {
    case KIND_POSITIONS:
        r = sf_deform_positions(s->topo, &s->bm->pose, s->ws, s->pos, &err);
        break;
    case KIND_MIKK:
        o.tangents = SF_TANGENTS_MIKKTSPACE;
        r = sf_frames_compute(s->topo, &s->bm->pose, SF_METHOD_RECOMPUTE, &o, s->ws, &out, &err);
        break;
    case KIND_FRAMES:
        r = sf_frames_compute(s->topo, &s->bm->pose, c->method, NULL, s->ws, &out, &err);
        break;
    case KIND_ERROR: {
        sf_frames_out m = {NULL, s->nrm, s->tan}, ref = {NULL, s->ref_n, s->ref_t};
        sf_error_summary sum;
        r = sf_direction_errors(s->topo, &m, &ref, s->ang, s->ang + n, NULL, &sum, &err);
        break;
    }
    case KIND_FLOOR:
        if (c->method == SF_METHOD_SKINNED)
            memory_floor(n, FLOOR_SKINNED_IN, s->floor_in, FLOOR_SKINNED_OUT, s->floor_out);
        else
            memory_floor(n, FLOOR_POSITIONS_IN, s->floor_in, FLOOR_POSITIONS_OUT, s->floor_out);
        break;
    case KIND_QUANT: {
        sf_frames_out qo = {s->pos, s->nrm, s->tan};
        r = sf_quantized_skin(&s->q, &s->q_pose, &qo, &err);
        break;
    }
    case KIND_QUANT_FLOOR:
        memory_floor(n, s->q.joints.type == SF_QUANT_UINT8 ? FLOOR_QUANT_IN : FLOOR_QUANT_IN_WIDE, s->floor_in,
                     FLOOR_SKINNED_OUT, s->floor_out);
        break;
    case KIND_YARDSTICK:
        yardstick_skin4(n, s->bm->pose.bone_matrices, s->y_joints, s->y_weights, s->y_pos, s->y_nrm, s->y_tan, s->pos,
                        s->nrm, s->tan);
        break;
    }
    if (r != SF_OK) {
        fprintf(stderr, "bench_skin: %s %s: %s\n", s->bm->name, c->label, err.message);
        return 1;
    }
    return 0;
}

static const bench_case* find_case(const bench_case* cases, int count, const char* label)
{
    for (int i = 0; i < count; ++i)
        if (strcmp(cases[i].label, label) == 0) return &cases[i];
    return NULL;
}

static double ratio(const bench_case* cases, int count, const char* a, const char* b)
{
    const bench_case *ca = find_case(cases, count, a), *cb = find_case(cases, count, b);
    return ca && cb && cb->tm.median > 0 ? ca->tm.median / cb->tm.median : NAN;
}

#define MAX_CASES 26

static const char* g_skip = ""; /* --skip: comma-separated words */

static int skipped(const char* label)
{
    const char* w = g_skip;
    while (*w) {
        const char* end = strchr(w, ',');
        size_t len = end ? (size_t)(end - w) : strlen(w);
        for (const char* l = label; len && *l; ++l)
            if (strncmp(l, w, len) == 0) return 1;
        if (!end) break;
        w = end + 1;
    }
    return 0;
}

/* The bytes a case must move per vertex, each input read once and each output written once (floors.h; the memory
 * floors' and the quantized pass's own streams); 0 for the yardstick, whose work is ozz's job, not a method. */
static double case_bytes(const bench_state* s, const floors* f, const bench_case* c)
{
    double n = (double)s->bm->desc.vertex_count, frame_out = f->out_pos + f->out_frame;
    double quant_in = s->q_pos && s->q.joints.type == SF_QUANT_UINT8 ? FLOOR_QUANT_IN : FLOOR_QUANT_IN_WIDE;
    if (n == 0.0) return 0.0;
    switch (c->kind) {
    case KIND_POSITIONS: return (f->skin_in + f->morph_pos + f->out_pos) / n;
    case KIND_FRAMES: return (floors_method_in(f, c->method) + frame_out) / n;
    case KIND_MIKK: return (floors_method_in(f, SF_METHOD_RECOMPUTE) + frame_out) / n;
    case KIND_ERROR: return 2.0 * f->out_frame / n + 8.0; /* two frames read, two angles written */
    case KIND_FLOOR:
        return 4.0 * (c->method == SF_METHOD_SKINNED ? FLOOR_SKINNED_IN + FLOOR_SKINNED_OUT
                                                     : FLOOR_POSITIONS_IN + FLOOR_POSITIONS_OUT);
    case KIND_QUANT:
    case KIND_QUANT_FLOOR: return 4.0 * (quant_in + FLOOR_SKINNED_OUT);
    default: return 0.0;
    }
}

/* Every case of one mesh on one thread setting, interleaved over `runs` rounds. */
static int bench_mesh_threads(bench_state* s, int runs, int parallel, size_t threads)
{
    bench_case cases[MAX_CASES];
    int count = 0;
    memset(cases, 0, sizeof cases);
    cases[count].kind = KIND_POSITIONS;
    snprintf(cases[count++].label, sizeof cases[0].label, "positions");
    for (int m = 0; m < SF_METHOD_COUNT && count < MAX_CASES - 3; ++m) {
        cases[count].kind = KIND_FRAMES;
        cases[count].method = (sf_method)m;
        snprintf(cases[count++].label, sizeof cases[0].label, "frames %s", sf_method_name((sf_method)m));
    }
    if (sf_topology_has_tangent_frame(s->topo)) {
        cases[count].kind = KIND_MIKK;
        snprintf(cases[count++].label, sizeof cases[0].label, "frames recompute-mikktspace");
    }
    cases[count].kind = KIND_ERROR;
    snprintf(cases[count++].label, sizeof cases[0].label, "error skinned-vs-recompute");
    if (s->y_joints && !parallel) {
        cases[count].kind = KIND_YARDSTICK;
        snprintf(cases[count++].label, sizeof cases[0].label, "yardstick");
    }
    if (s->q_pos && !parallel) {
        cases[count].kind = KIND_QUANT;
        snprintf(cases[count++].label, sizeof cases[0].label, "quantized skinned");
        cases[count].kind = KIND_QUANT_FLOOR;
        snprintf(cases[count++].label, sizeof cases[0].label, "memory floor quantized skinned");
    }
    if (!parallel) {
        cases[count].kind = KIND_FLOOR;
        cases[count].method = SF_METHOD_UNCHANGED;
        snprintf(cases[count++].label, sizeof cases[0].label, "memory floor positions");
        cases[count].kind = KIND_FLOOR;
        cases[count].method = SF_METHOD_SKINNED;
        snprintf(cases[count++].label, sizeof cases[0].label, "memory floor skinned");
    }
    int kept = 0;
    for (int c = 0; c < count; ++c)
        if (!skipped(cases[c].label)) cases[kept++] = cases[c];
    count = kept;
    g_parallel = parallel;
    /* the error case compares `skinned` against the reference: both computed once up front */
    size_t n = s->bm->desc.vertex_count;
    sf_frames_out ref = {NULL, s->ref_n, s->ref_t}, sk = {NULL, s->nrm, s->tan};
    sf_error err;
    if (sf_frames_compute(s->topo, &s->bm->pose, SF_METHOD_RECOMPUTE, NULL, s->ws, &ref, &err) != SF_OK ||
        sf_frames_compute(s->topo, &s->bm->pose, SF_METHOD_SKINNED, NULL, s->ws, &sk, &err) != SF_OK) {
        fprintf(stderr, "bench_skin: %s: %s\n", s->bm->name, err.message);
        return 1;
    }
    for (int c = 0; c < count; ++c) /* warm-up */
        if (run_case(s, &cases[c])) return 1;
    for (int round = 0; round < runs; ++round)
        for (int c = 0; c < count; ++c) {
            /* error reads `skinned` frames: recompute them when a case before it overwrote the buffers */
            if (cases[c].kind == KIND_ERROR &&
                sf_frames_compute(s->topo, &s->bm->pose, SF_METHOD_SKINNED, NULL, s->ws, &sk, &err) != SF_OK)
                return 1;
            double t0 = now_s();
            if (run_case(s, &cases[c])) return 1;
            cases[c].t[round] = now_s() - t0;
        }
    /* this core's bandwidth from the memory floor of `skinned` in the same run (one thread only) */
    double floor_gbps = 0.0;
    floors fl = floors_of(s->topo);
    for (int c = 0; c < count; ++c) {
        cases[c].tm = summarize(cases[c].t, runs);
        cases[c].bytes = case_bytes(s, &fl, &cases[c]);
        if (cases[c].kind == KIND_FLOOR && cases[c].method == SF_METHOD_SKINNED && cases[c].tm.median > 0.0)
            floor_gbps = cases[c].bytes * (double)n / cases[c].tm.median * 1e-9;
    }
    for (int c = 0; c < count; ++c)
        printf("{\"bench\":\"skin\",\"mesh\":\"%s\",\"vertices\":%zu,\"case\":\"%s\",\"threads\":%zu,\"runs\":%d,"
               "\"best_ns_per_vertex\":%.3f,\"median_ns_per_vertex\":%.3f,\"floor_bytes_per_vertex\":%.1f}\n",
               s->bm->name, n, cases[c].label, threads, runs, 1e9 * cases[c].tm.best / (double)n,
               1e9 * cases[c].tm.median / (double)n, cases[c].bytes);
    printf("\n%-8s %-30s %7s %12s %12s %10s %8s\n", "mesh", "case", "threads", "median ns/v", "best ns/v", "floor B/v",
           "x floor");
    for (int c = 0; c < count; ++c) {
        double ns = 1e9 * cases[c].tm.median / (double)n;
        printf("%-8s %-30s %7zu %12.2f %12.2f", s->bm->name, cases[c].label, threads, ns,
               1e9 * cases[c].tm.best / (double)n);
        if (cases[c].bytes > 0.0) printf(" %10.0f", cases[c].bytes);
        else printf(" %10s", "-");
        if (cases[c].bytes > 0.0 && floor_gbps > 0.0) printf(" %8.2f\n", ns * floor_gbps / cases[c].bytes);
        else printf(" %8s\n", "-");
    }
    if (floor_gbps > 0.0)
        printf("x floor: the median against moving the case's bytes at this core's %.1f GB/s (the memory floor of "
               "`skinned` in this run)\n", floor_gbps);
    printf("ratios of medians (%s, %zu thread%s): skinned/yardstick %.2f  positions/yardstick %.2f  "
           "skinned/memory-floor %.2f  positions/memory-floor %.2f  "
           "inverse-transpose/skinned %.2f  bone-normal-matrices/skinned %.2f  jacobian/skinned %.2f  "
           "jacobian-fan/skinned %.2f  recompute/skinned %.2f  recompute-fused/skinned %.2f  "
           "recompute-fused/recompute %.2f  mikktspace/recompute %.2f  "
           "quantized-skinned/yardstick %.2f  quantized-skinned/skinned %.2f  quantized-skinned/memory-floor %.2f\n\n",
           s->bm->name, threads, threads == 1 ? "" : "s", ratio(cases, count, "frames skinned", "yardstick"),
           ratio(cases, count, "positions", "yardstick"),
           ratio(cases, count, "frames skinned", "memory floor skinned"),
           ratio(cases, count, "positions", "memory floor positions"),
           ratio(cases, count, "frames inverse-transpose", "frames skinned"),
           ratio(cases, count, "frames bone-normal-matrices", "frames skinned"),
           ratio(cases, count, "frames jacobian", "frames skinned"),
           ratio(cases, count, "frames jacobian-fan", "frames skinned"),
           ratio(cases, count, "frames recompute", "frames skinned"),
           ratio(cases, count, "frames recompute-fused", "frames skinned"),
           ratio(cases, count, "frames recompute-fused", "frames recompute"),
           ratio(cases, count, "frames recompute-mikktspace", "frames recompute"),
           ratio(cases, count, "quantized skinned", "yardstick"),
           ratio(cases, count, "quantized skinned", "frames skinned"),
           ratio(cases, count, "quantized skinned", "memory floor quantized skinned"));
    fflush(stdout);
    return 0;
}

static int16_t snorm16(float x)
{
    double c = nearbyint((double)x * 32767.0);
    return (int16_t)(c < -32767.0 ? -32767.0 : c > 32767.0 ? 32767.0 : c);
}

/* The yardstick's streams quantized (the case `quantized skinned`): positions to INT16 over their box, directions
 * to SNORM16, weights to UNORM8 summing to 255 (the rounding's excess taken from the largest). Returns 1 when out
 * of memory or the description is refused. */
static int quantize(bench_state* s, const bench_mesh* bm)
{
    size_t n = bm->desc.vertex_count;
    int wide = bm->desc.bone_count > 256;
    s->q_pos = malloc(4 * n * sizeof(int16_t));
    s->q_nrm = malloc(4 * n * sizeof(int16_t));
    s->q_tan = malloc(4 * n * sizeof(int16_t));
    s->q_joints = malloc(4 * n * (wide ? 2 : 1));
    s->q_weights = malloc(4 * n);
    if (!s->q_pos || !s->q_nrm || !s->q_tan || !s->q_joints || !s->q_weights) return 1;
    sf_quantized_mesh* q = &s->q;
    memset(q, 0, sizeof *q);
    for (int k = 0; k < 3; ++k) {
        float lo = s->y_pos[k], hi = lo;
        for (size_t v = 0; v < n; ++v) {
            float x = s->y_pos[3 * v + k];
            lo = x < lo ? x : lo, hi = x > hi ? x : hi;
        }
        q->position_scale[k] = hi > lo ? (hi - lo) / 65534.0f : 1.0f;
        q->position_offset[k] = 0.5f * (lo + hi);
    }
    for (size_t v = 0; v < n; ++v) {
        for (int k = 0; k < 3; ++k) {
            double c = nearbyint((double)(s->y_pos[3 * v + k] - q->position_offset[k]) / q->position_scale[k]);
            s->q_pos[4 * v + k] = (int16_t)(c < -32767.0 ? -32767.0 : c > 32767.0 ? 32767.0 : c);
            s->q_nrm[4 * v + k] = snorm16(s->y_nrm[3 * v + k]);
            s->q_tan[4 * v + k] = snorm16(s->y_tan[4 * v + k]);
        }
        s->q_pos[4 * v + 3] = s->q_nrm[4 * v + 3] = 0;
        s->q_tan[4 * v + 3] = s->y_tan[4 * v + 3] < 0.0f ? -32767 : 32767;
        int sum = 0, big = 0;
        for (int i = 0; i < 4; ++i) {
            int c = (int)nearbyint((double)s->y_weights[4 * v + i] * 255.0);
            c = c < 0 ? 0 : c > 255 ? 255 : c;
            s->q_weights[4 * v + i] = (uint8_t)c;
            sum += c;
            if (c > s->q_weights[4 * v + big]) big = i;
            uint32_t j = bm->desc.joints[4 * v + i];
            if (wide) ((uint16_t*)s->q_joints)[4 * v + i] = (uint16_t)j;
            else ((uint8_t*)s->q_joints)[4 * v + i] = (uint8_t)j;
        }
        s->q_weights[4 * v + big] = (uint8_t)(s->q_weights[4 * v + big] + (255 - sum));
    }
    q->vertex_count = n;
    q->positions = (sf_quant_stream){s->q_pos, 8, SF_QUANT_INT16};
    q->normals = (sf_quant_stream){s->q_nrm, 8, SF_QUANT_SNORM16};
    q->tangents = (sf_quant_stream){s->q_tan, 8, SF_QUANT_SNORM16};
    q->influence_count = 4;
    q->joints = (sf_quant_stream){s->q_joints, 0, wide ? SF_QUANT_UINT16 : SF_QUANT_UINT8};
    q->weights = (sf_quant_stream){s->q_weights, 0, SF_QUANT_UNORM8};
    q->bone_count = bm->desc.bone_count;
    s->q_pose = (sf_pose){bm->pose.bone_matrices, bm->pose.bone_count, NULL, 0};
    sf_error err;
    if (sf_quantized_mesh_validate(q, &err) != SF_OK) {
        fprintf(stderr, "bench_skin: %s: quantized: %s\n", bm->name, err.message);
        return 1;
    }
    return 0;
}

static int bench_one(bench_mesh* bm, int runs, size_t threads)
{
    bench_state s;
    memset(&s, 0, sizeof s);
    s.bm = bm;
    size_t n = bm->desc.vertex_count;
    sf_env env;
    memset(&env, 0, sizeof env);
    env.threads.parallel_for = bench_parallel_for;
    sf_error err;
    int rc = 1;
    g_parallel = 1; /* the topology is built with every thread */
    if (sf_topology_create(&bm->desc, NULL, &env, &s.topo, &err) != SF_OK ||
        sf_workspace_create(s.topo, NULL, &s.ws, &err) != SF_OK) {
        fprintf(stderr, "bench_skin: %s: %s\n", bm->name, err.message);
        goto done;
    }
    s.pos = malloc(3 * n * sizeof(float));
    s.nrm = malloc(3 * n * sizeof(float));
    s.tan = malloc(4 * n * sizeof(float));
    s.ref_n = malloc(3 * n * sizeof(float));
    s.ref_t = malloc(4 * n * sizeof(float));
    s.ang = malloc(2 * n * sizeof(float));
    if (!s.pos || !s.nrm || !s.tan || !s.ref_n || !s.ref_t || !s.ang) goto done;
    size_t padded = (n + 15) / 16 * 16;
    s.floor_in = malloc(FLOOR_SKINNED_IN * padded * sizeof(float));
    s.floor_out = malloc(FLOOR_SKINNED_OUT * padded * sizeof(float));
    if (!s.floor_in || !s.floor_out) goto done;
    for (size_t i = 0; i < FLOOR_SKINNED_IN * padded; ++i) s.floor_in[i] = (float)rnd();
    if (bm->desc.influence_count == 4 && bm->desc.bone_count <= 65536) {
        s.y_joints = malloc(4 * n * sizeof(uint16_t));
        if (!s.y_joints) goto done;
        for (size_t i = 0; i < 4 * n; ++i) s.y_joints[i] = (uint16_t)bm->desc.joints[i];
        s.y_weights = bm->desc.weights; /* the grid's sum to one; the others' nearly */
        s.y_pos = sf_topology_rest_positions(s.topo);
        s.y_nrm = sf_topology_rest_normals(s.topo);
        s.y_tan = sf_topology_rest_tangents(s.topo);
        if (quantize(&s, bm)) goto done;
    }
    printf("# %s: %zu vertices, %zu triangles, %u influences, %zu bones, %zu targets\n", bm->name, n,
           bm->desc.triangle_count, bm->desc.influence_count, bm->desc.bone_count, bm->desc.target_count);
    if (bench_mesh_threads(&s, runs, 0, 1)) goto done;
    if (threads > 1 && bench_mesh_threads(&s, runs, 1, threads)) goto done;
    rc = 0;
done:
    free(s.pos), free(s.nrm), free(s.tan), free(s.ref_n), free(s.ref_t), free(s.ang), free(s.y_joints);
    free(s.floor_in), free(s.floor_out);
    free(s.q_pos), free(s.q_nrm), free(s.q_tan), free(s.q_joints), free(s.q_weights);
    sf_workspace_destroy(s.ws);
    sf_topology_destroy(s.topo);
    return rc;
}

int main(int argc, char** argv)
{
    int runs = 21;
    size_t threads = 0;
    const char* which = "all";
    const char* source = SF_SOURCE_DIR;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) threads = (size_t)atol(argv[++i]);
        else if (strcmp(argv[i], "--mesh") == 0 && i + 1 < argc) which = argv[++i];
        else if (strcmp(argv[i], "--source") == 0 && i + 1 < argc) source = argv[++i];
        else if (strcmp(argv[i], "--skip") == 0 && i + 1 < argc) g_skip = argv[++i];
        else {
            fprintf(stderr, "usage: bench_skin [--runs 1..%d] [--threads T] [--mesh grid|sheet|cesium|all] "
                            "[--source DIR] [--skip WORD,...]\n", MAX_RUNS);
            return 2;
        }
    }
    if (runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "bench_skin: --runs %d, need 1..%d\n", runs, MAX_RUNS);
        return 2;
    }
    if (cli_pool_start(threads) != 0) fprintf(stderr, "bench_skin: could not start every thread\n");
    g_pool_env = cli_env();
    threads = cli_pool_threads();
    printf("# bench_skin: %d rounds, threads 1 and %zu\n", runs, threads);
    int rc = 0;
    const char* names[3] = {"grid", "sheet", "cesium"};
    for (int k = 0; k < 3 && rc == 0; ++k) {
        if (strcmp(which, "all") != 0 && strcmp(which, names[k]) != 0) continue;
        bench_mesh bm;
        memset(&bm, 0, sizeof bm);
        int bad = k == 0 ? make_grid(&bm) : k == 1 ? make_sheet(&bm) : make_cesium(&bm, source);
        if (bad) {
            free_mesh(&bm);
            if (k == 2 && strcmp(which, "all") == 0) continue; /* no glTF layer or no asset: skip it */
            rc = 1;
            break;
        }
        rc = bench_one(&bm, runs, threads);
        free_mesh(&bm);
    }
    cli_env_shutdown();
    return rc;
}

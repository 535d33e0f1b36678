// LABELS: unit;cuda
/* The CUDA backend against the CPU backend: every method and reference option set, every built-in scene and
 * staged glTF asset, fresh random poses each run; directions within 1e-3 degrees, positions within 1e-5 of
 * the mesh's size. Where the answer itself is ill-conditioned (a sum of face normals that nearly cancels, a
 * near-collapsed face under the uniform weighting), rounding alone moves it: there the CPU is run a second
 * time on a pose changed by about one float step, and the GPU may differ by 20 times what that moved. Outputs are
 * poisoned (NaN) before each GPU run, so an element the GPU leaves unwritten fails. The deterministic variants of the
 * reference (the gathers, the one pass, fixed-point atomics) are bit-identical run to run. Also: crowds (one launch for
 * many poses) against per-pose CPU frames, and the evaluation's statistics reduced on the GPU against the CPU's.
 * Without a GPU (or a CUDA build) it skips with code 77. */
#include "sf_test.h"
#include "sft_assets.h"

#include "sf_internal.h"
#include "sf_backend.h"
#include "staged.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL_DEG 1e-3
#define TOL_POS 1e-5
/* Fixed point quantises each face term to 2^-30 of the mesh's largest: small faces lose digits. */
#define TOL_FIXED_DEG 0.05
/* A vertex whose CPU answer moves this far under a float-step nudge has no answer to compare. */
#define UNDEFINED_DEG 1.0

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static size_t compared, worst_case_count, ill_conditioned, bit_identical, vertices_compared, within_tol;
static double raw_worst, raw_worst_conditioned; /* before any allowance: all vertices, well-conditioned ones */

static double rnd(void) /* [0, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* A random pose near `base`: each bone's linear part and translation perturbed, morph weights in [0, 1]. */
typedef struct posed {
    float* bones;
    float* morph;
    sf_pose pose;
} posed;

static void random_pose(const sf_pose* base, size_t targets, float extent, posed* out)
{
    size_t B = base->bone_count;
    out->bones = calloc(12 * (B ? B : 1), sizeof(float));
    out->morph = calloc(targets ? targets : 1, sizeof(float));
    for (size_t b = 0; b < B; ++b)
        for (int k = 0; k < 12; ++k) {
            float v = base->bone_matrices ? base->bone_matrices[12 * b + k] : (k == 0 || k == 4 || k == 8);
            out->bones[12 * b + k] = v + (float)((rnd() - 0.5) * (k < 9 ? 0.1 : 0.05 * extent));
        }
    for (size_t t = 0; t < targets; ++t) out->morph[t] = (float)rnd();
    out->pose = *base;
    out->pose.bone_matrices = B ? out->bones : NULL;
    out->pose.morph_weights = targets ? out->morph : NULL;
    out->pose.morph_weight_count = targets;
}

static void posed_free(posed* p)
{
    free(p->bones);
    free(p->morph);
}

typedef struct frames {
    float *p, *n, *t;
} frames;

static frames frames_alloc(size_t n)
{
    frames f = {malloc(3 * n * sizeof(float) + 4), malloc(3 * n * sizeof(float) + 4),
                malloc(4 * n * sizeof(float) + 4)};
    return f;
}

static void frames_free(frames* f) { free(f->p), free(f->n), free(f->t); }

static void poison(frames* f, size_t n)
{
    float nan = nanf("");
    for (size_t i = 0; i < 3 * n; ++i) f->p[i] = f->n[i] = nan;
    for (size_t i = 0; i < 4 * n; ++i) f->t[i] = nan;
}

static int is_zero3(const float* v) { return v[0] == 0.0f && v[1] == 0.0f && v[2] == 0.0f; }

/* Per vertex, how far the CPU's own directions move (degrees) between pose and the pose nudged by about a
 * float step (every element of every bone's linear part and every morph weight times 1 +- 2^-22, the signs
 * at random): the answer's sensitivity to rounding. */
static void sensitivity(const sf_topology* topo, const sf_pose* pose, sf_method method, const sf_frames_opts* opts,
                        sf_workspace* cpu, const frames* fc, frames* scratch, double* sens)
{
    size_t n = sf_topology_vertex_count(topo), B = pose->bone_count,
           T = pose->morph_weights ? pose->morph_weight_count : 0;
    float* bones = calloc(12 * B + 1, sizeof(float));
    float* morph = calloc(T + 1, sizeof(float));
    if (B) memcpy(bones, pose->bone_matrices, 12 * B * sizeof(float));
    if (T) memcpy(morph, pose->morph_weights, T * sizeof(float));
    for (size_t b = 0; b < B; ++b)
        for (int k = 0; k < 9; ++k) bones[12 * b + k] *= 1.0f + (rnd() < 0.5 ? -0x1p-22f : 0x1p-22f);
    for (size_t t = 0; t < T; ++t) morph[t] *= 1.0f + (rnd() < 0.5 ? -0x1p-22f : 0x1p-22f);
    sf_pose p = *pose;
    p.bone_matrices = B ? bones : NULL;
    p.morph_weights = T ? morph : NULL;
    sf_frames_out o = {scratch->p, scratch->n, scratch->t};
    int uvs = sf_topology_has_tangent_frame(topo);
    if (sf_frames_compute(topo, &p, method, opts, cpu, &o, NULL) != SF_OK) {
        for (size_t v = 0; v < n; ++v) sens[v] = 180.0;
    } else {
        for (size_t v = 0; v < n; ++v) {
            double a = is_zero3(fc->n + 3 * v) && is_zero3(scratch->n + 3 * v)
                           ? 0.0
                           : sf_angle_deg(fc->n + 3 * v, scratch->n + 3 * v);
            if (uvs && !(is_zero3(fc->t + 4 * v) && is_zero3(scratch->t + 4 * v))) {
                double at = sf_angle_deg(fc->t + 4 * v, scratch->t + 4 * v);
                if (fc->t[4 * v + 3] != scratch->t[4 * v + 3]) at = 180.0;
                if (at > a) a = at;
            }
            sens[v] = a;
        }
    }
    free(bones);
    free(morph);
}

/* Worst direction angle (degrees) of the GPU against the CPU, less what the vertex's sensitivity allows
 * (tol + 20 sens: the result <= tol passes), and the position error; -1 on a NaN (an unwritten element). */
static double frames_diff(const sf_topology* topo, const frames* gpu, const frames* cpu, const double* sens, double tol,
                          double* pos_err, size_t* worst_vertex, size_t* ill)
{
    size_t n = sf_topology_vertex_count(topo);
    int uvs = sf_topology_has_tangent_frame(topo);
    double worst = 0.0, extent = 1.0, perr = 0.0;
    for (size_t i = 0; i < 3 * n; ++i) extent = fmax(extent, fabs(cpu->p[i]));
    *worst_vertex = 0;
    for (size_t v = 0; v < n; ++v) {
        for (int k = 0; k < 3; ++k) {
            if (isnan(gpu->p[3 * v + k]) || isnan(gpu->n[3 * v + k]) || isnan(gpu->t[4 * v + k])) return -1.0;
            perr = fmax(perr, fabs(gpu->p[3 * v + k] - cpu->p[3 * v + k]) / extent);
        }
        if (isnan(gpu->t[4 * v + 3])) return -1.0;
        double a = 0.0;
        if (!(is_zero3(gpu->n + 3 * v) && is_zero3(cpu->n + 3 * v))) a = sf_angle_deg(gpu->n + 3 * v, cpu->n + 3 * v);
        if (uvs && !(is_zero3(gpu->t + 4 * v) && is_zero3(cpu->t + 4 * v))) {
            double at = sf_angle_deg(gpu->t + 4 * v, cpu->t + 4 * v);
            if (gpu->t[4 * v + 3] != cpu->t[4 * v + 3]) at = 180.0;
            if (at > a) a = at;
        }
        if (tol <= TOL_DEG && a > raw_worst) raw_worst = a; /* the fixed-point scatter apart */
        if (tol <= TOL_DEG && sens[v] * 20.0 <= tol && a > raw_worst_conditioned) raw_worst_conditioned = a;
        within_tol += a <= tol;
        if (sens[v] >= UNDEFINED_DEG) { /* rounding decides the answer: nothing to compare */
            (*ill)++;
            a = 0.0;
        } else if (sens[v] * 20.0 > tol) {
            (*ill)++;
            a = a - 20.0 * sens[v] > 0.0 ? tol + (a - 20.0 * sens[v]) : 0.0;
        }
        if (memcmp(gpu->n + 3 * v, cpu->n + 3 * v, 12) == 0 && memcmp(gpu->t + 4 * v, cpu->t + 4 * v, 16) == 0)
            bit_identical++;
        if (a > worst) worst = a, *worst_vertex = v;
    }
    *pos_err = perr;
    vertices_compared += n;
    return worst;
}

typedef struct option_set {
    const char* name;
    sf_method method;
    sf_frames_opts opts;
} option_set;

/* Every method with defaults, then the reference's options: each weighting, each weld, MikkTSpace tangents,
 * the authored reference, morph directions off. */
static size_t option_sets(option_set* out)
{
    size_t k = 0;
    for (int m = 0; m < SF_METHOD_COUNT; ++m) {
        memset(&out[k], 0, sizeof out[k]);
        out[k].name = sf_method_name((sf_method)m);
        out[k++].method = (sf_method)m;
    }
    /* weighting, weld, tangents, reference, morph directions, jacobian cap */
    static const struct {
        const char* name;
        sf_method method;
        sf_frames_opts opts;
    } sets[] = {
        {"recompute angle", SF_METHOD_RECOMPUTE, {.weighting = SF_WEIGHTING_ANGLE}},
        {"recompute uniform", SF_METHOD_RECOMPUTE, {.weighting = SF_WEIGHTING_UNIFORM}},
        {"recompute weld position", SF_METHOD_RECOMPUTE, {.weld = SF_WELD_POSITION}},
        {"recompute weld position+normal", SF_METHOD_RECOMPUTE, {.weld = SF_WELD_POSITION_NORMAL}},
        {"recompute mikktspace", SF_METHOD_RECOMPUTE, {.tangents = SF_TANGENTS_MIKKTSPACE}},
        {"recompute authored", SF_METHOD_RECOMPUTE, {.reference = SF_REFERENCE_AUTHORED}},
        {"recompute authored angle weld",
         SF_METHOD_RECOMPUTE,
         {.weighting = SF_WEIGHTING_ANGLE, .weld = SF_WELD_POSITION_NORMAL, .reference = SF_REFERENCE_AUTHORED}},
        {"skinned no morph dirs", SF_METHOD_SKINNED, {.morph_directions = SF_MORPH_DIRECTIONS_NONE}},
        {"jacobian cap 0.5", SF_METHOD_JACOBIAN, {.jacobian_cap = 0.5f}},
        {"recompute-fused angle", SF_METHOD_RECOMPUTE_FUSED, {.weighting = SF_WEIGHTING_ANGLE}},
        {"recompute-fused uniform weld position",
         SF_METHOD_RECOMPUTE_FUSED,
         {.weighting = SF_WEIGHTING_UNIFORM, .weld = SF_WELD_POSITION}},
        {"recompute-fused weld position+normal", SF_METHOD_RECOMPUTE_FUSED, {.weld = SF_WELD_POSITION_NORMAL}},
        {"recompute-fused mikktspace", SF_METHOD_RECOMPUTE_FUSED, {.tangents = SF_TANGENTS_MIKKTSPACE}},
        {"recompute-fused authored", SF_METHOD_RECOMPUTE_FUSED, {.reference = SF_REFERENCE_AUTHORED}},
        {"recompute-fused authored angle weld",
         SF_METHOD_RECOMPUTE_FUSED,
         {.weighting = SF_WEIGHTING_ANGLE, .weld = SF_WELD_POSITION_NORMAL, .reference = SF_REFERENCE_AUTHORED}},
        {"jacobian-fan cap 0.5", SF_METHOD_JACOBIAN_FAN, {.jacobian_cap = 0.5f}},
        {"bone-normal-matrices no morph dirs",
         SF_METHOD_BONE_NORMAL_MATRICES,
         {.morph_directions = SF_MORPH_DIRECTIONS_NONE}},
        {"skinned morph normals", SF_METHOD_SKINNED, {.morph_directions = SF_MORPH_DIRECTIONS_NORMALS}},
        {"inverse-transpose morph normals",
         SF_METHOD_INVERSE_TRANSPOSE,
         {.morph_directions = SF_MORPH_DIRECTIONS_NORMALS}},
        {"bone-normal-matrices morph normals",
         SF_METHOD_BONE_NORMAL_MATRICES,
         {.morph_directions = SF_MORPH_DIRECTIONS_NORMALS}},
    };
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; ++s) {
        out[k].name = sets[s].name;
        out[k].method = sets[s].method;
        out[k++].opts = sets[s].opts;
    }
    return k;
}

static int gpu_ready(void)
{
#ifdef SF_TEST_WITH_CUDA
    sf_error err;
    if (sf_backend_check(SF_BACKEND_CUDA, &err) == SF_OK) return 1;
    printf("skipped: %s\n", err.message);
#else
    printf("skipped: built without the CUDA backend (-DSF_WITH_CUDA=ON)\n");
#endif
    return 0;
}

static double worst_seen[SFI_CUDA_RECOMPUTE_COUNT + 1];

/* One mesh: every option set, a fresh random pose each; every recompute variant; run-to-run identity. */
static void check_mesh(const char* label, const sf_mesh_desc* mesh, const sf_pose* base)
{
    sf_topology* topo = NULL;
    sf_error err;
    sf_result r = sf_topology_create(mesh, NULL, NULL, &topo, &err);
    if (r != SF_OK) {
        sft_failf(__FILE__, __LINE__, "%s: no topology (%s)", label, err.message);
        return;
    }
    size_t n = sf_topology_vertex_count(topo);
    float extent = 1.0f;
    const float* rp = sf_topology_rest_positions(topo);
    for (size_t i = 0; i < 3 * n; ++i) extent = fmaxf(extent, fabsf(rp[i]));
    sf_workspace *cpu = NULL, *gpu = NULL;
    sf_workspace_opts wo = {0, SF_BACKEND_CUDA};
    CHECK_OK(sf_workspace_create(topo, NULL, &cpu, &err));
    r = sf_workspace_create(topo, &wo, &gpu, &err);
    if (r != SF_OK) printf("%s: %s\n", label, err.message);
    CHECK_OK(r);
    frames fc = frames_alloc(n), fg = frames_alloc(n), f2 = frames_alloc(n);
    double* sens = calloc(n + 1, sizeof(double));
    option_set sets[SF_METHOD_COUNT + 32];
    size_t set_count = option_sets(sets);
    for (size_t s = 0; s < set_count; ++s) {
        for (int variant = 0;
             variant <
             (sets[s].method == SF_METHOD_RECOMPUTE && s < SF_METHOD_COUNT + 4 ? SFI_CUDA_RECOMPUTE_COUNT : 1);
             ++variant) {
            posed p;
            random_pose(base, mesh->target_count, extent, &p);
            sfi_cuda_set_recompute(gpu, (sfi_cuda_recompute)variant);
            sf_frames_out oc = {fc.p, fc.n, fc.t}, og = {fg.p, fg.n, fg.t};
            sf_error ec, eg;
            sf_result rc = sf_frames_compute(topo, &p.pose, sets[s].method, &sets[s].opts, cpu, &oc, &ec);
            poison(&fg, n);
            sf_result rg = sf_frames_compute(topo, &p.pose, sets[s].method, &sets[s].opts, gpu, &og, &eg);
            if (rc != rg)
                printf("%s, %s: cpu %s (%s), gpu %s (%s)\n", label, sets[s].name, sf_result_string(rc), ec.message,
                       sf_result_string(rg), eg.message);
            /* every method runs on the GPU; refused there by name: the authored reference over MikkTSpace */
            CHECK(rc == rg || (rg == SF_ERROR_UNSUPPORTED && sets[s].opts.reference == SF_REFERENCE_AUTHORED &&
                               sets[s].opts.tangents == SF_TANGENTS_MIKKTSPACE));
            CHECK(rg != SF_ERROR_UNSUPPORTED || strstr(eg.message, "no GPU form") == NULL);
            if (rc != SF_OK || rg != SF_OK) {
                posed_free(&p);
                continue;
            }
            sf_frames_report rep_c, rep_g;
            sf_workspace_last_report(cpu, &rep_c);
            sf_workspace_last_report(gpu, &rep_g);
            double perr = 0.0;
            size_t wv = 0, ill = 0;
            double tol = variant == SFI_CUDA_SCATTER_FIXED ? TOL_FIXED_DEG : TOL_DEG;
            sensitivity(topo, &p.pose, sets[s].method, &sets[s].opts, cpu, &fc, &f2, sens);
            double a = frames_diff(topo, &fg, &fc, sens, tol, &perr, &wv, &ill);
            ill_conditioned += ill;
            if (!(a >= 0.0 && a <= tol && perr <= TOL_POS))
                sft_failf(__FILE__, __LINE__,
                          "%s, %s, %s: worst %.6g deg at vertex %zu (gpu n %g %g %g, cpu %g %g %g; "
                          "sensitivity %.3g), position %.3g",
                          label, sets[s].name, sfi_cuda_recompute_name((sfi_cuda_recompute)variant), a, wv,
                          (double)fg.n[3 * wv], (double)fg.n[3 * wv + 1], (double)fg.n[3 * wv + 2],
                          (double)fc.n[3 * wv], (double)fc.n[3 * wv + 1], (double)fc.n[3 * wv + 2], sens[wv], perr);
            /* counters agree; degenerate counts may differ where rounding decides a zero */
            CHECK(rep_c.mirrored_vertices == rep_g.mirrored_vertices);
            CHECK(rep_c.fused_two_pass == rep_g.fused_two_pass);
            if (sets[s].method == SF_METHOD_JACOBIAN_FAN && rep_c.jacobian_capped != rep_g.jacobian_capped)
                printf("%s, %s: capped cpu %zu, gpu %zu\n", label, sets[s].name, rep_c.jacobian_capped,
                       rep_g.jacobian_capped); /* rounding may decide a cap at its edge */
            if (sets[s].method == SF_METHOD_RECOMPUTE_FUSED) {
                /* the fused pass is the GPU's own recompute bit for bit, as on the CPU */
                sf_frames_out o2 = {f2.p, f2.n, f2.t};
                poison(&f2, n);
                CHECK_OK(sf_frames_compute(topo, &p.pose, SF_METHOD_RECOMPUTE, &sets[s].opts, gpu, &o2, &eg));
                if (memcmp(f2.n, fg.n, 3 * n * sizeof(float)) || memcmp(f2.t, fg.t, 4 * n * sizeof(float)) ||
                    memcmp(f2.p, fg.p, 3 * n * sizeof(float)))
                    sft_failf(__FILE__, __LINE__, "%s, %s: differs from the GPU's recompute", label, sets[s].name);
            }
            int idx = sets[s].method == SF_METHOD_RECOMPUTE ? variant : SFI_CUDA_RECOMPUTE_COUNT;
            if (a > worst_seen[idx]) worst_seen[idx] = a;
            compared++;
            if (variant != SFI_CUDA_SCATTER_FLOAT) { /* the deterministic ones: bit for bit again */
                sf_frames_out o2 = {f2.p, f2.n, f2.t};
                poison(&f2, n);
                CHECK_OK(sf_frames_compute(topo, &p.pose, sets[s].method, &sets[s].opts, gpu, &o2, &eg));
                if (memcmp(f2.n, fg.n, 3 * n * sizeof(float)) || memcmp(f2.t, fg.t, 4 * n * sizeof(float)) ||
                    memcmp(f2.p, fg.p, 3 * n * sizeof(float)))
                    sft_failf(__FILE__, __LINE__, "%s, %s, %s: two runs differ", label, sets[s].name,
                              sfi_cuda_recompute_name((sfi_cuda_recompute)variant));
            }
            posed_free(&p);
        }
    }
    frames_free(&fc), frames_free(&fg), frames_free(&f2);
    free(sens);
    sf_workspace_destroy(cpu);
    sf_workspace_destroy(gpu);
    sf_topology_destroy(topo);
    worst_case_count++;
}

static void test_scenes(void)
{
    if (!gpu_ready()) return;
    for (size_t i = 0; i < sf_scene_count(); ++i) {
        const sf_scene_info* info = sf_scene_info_at(i);
        for (size_t pr = 0; pr <= info->preset_count && pr < 3; ++pr) {
            const char* preset = pr ? info->presets[pr - 1].name : NULL;
            sf_scene* sc = NULL;
            sf_error err;
            CHECK_OK(sf_scene_create(info->name, preset, NULL, 0, NULL, &sc, &err));
            char label[128];
            snprintf(label, sizeof label, "scene %s/%s", info->name, preset ? preset : "rest");
            check_mesh(label, &sc->mesh, &sc->pose);
            sf_scene_destroy(sc);
            if (sft_failed_now) return;
        }
    }
}

/* A vertex whose one-ring is over the halo blocks' face budget (a fan of FAN_FACES triangles round it, on a wavy
 * cone, two bones and a morph target): no blocks are built for any weld mode, the halo variants run another way,
 * and every method and variant still matches the CPU (check_mesh: recompute-fused the GPU's recompute bit for bit). */
#define FAN_FACES (SFI_CUDA_HALO_FACES + 76)
static void test_dense_fan(void)
{
    if (!gpu_ready()) return;
    enum { N = FAN_FACES + 1 };
    float* pos = calloc(3 * N, sizeof(float));
    float* uv = calloc(2 * N, sizeof(float));
    float* delta = calloc(3 * N, sizeof(float));
    uint32_t* joints = calloc(2 * N, sizeof(uint32_t));
    float* weights = calloc(2 * N, sizeof(float));
    uint32_t* idx = calloc(3 * FAN_FACES, sizeof(uint32_t));
    pos[2] = 0.3f, uv[0] = uv[1] = 0.5f, weights[0] = weights[1] = 0.5f, joints[1] = 1;
    for (uint32_t k = 0; k < FAN_FACES; ++k) {
        double a = 2.0 * 3.14159265358979 * k / FAN_FACES;
        uint32_t v = k + 1;
        pos[3 * v] = (float)cos(a), pos[3 * v + 1] = (float)sin(a), pos[3 * v + 2] = (float)(0.2 * sin(3.0 * a));
        uv[2 * v] = 0.5f + 0.5f * pos[3 * v], uv[2 * v + 1] = 0.5f + 0.5f * pos[3 * v + 1];
        delta[3 * v + 2] = (float)(0.1 * cos(5.0 * a));
        joints[2 * v + 1] = 1;
        weights[2 * v] = (float)(0.5 + 0.5 * cos(a)), weights[2 * v + 1] = 1.0f - weights[2 * v];
        idx[3 * k] = 0, idx[3 * k + 1] = v, idx[3 * k + 2] = k + 1 < FAN_FACES ? v + 1 : 1;
    }
    sf_morph_target_desc target = {"wave", delta, NULL, NULL, NULL, 0};
    sf_mesh_desc mesh = {0};
    mesh.vertex_count = N, mesh.triangle_count = FAN_FACES, mesh.indices = idx;
    mesh.positions.data = pos, mesh.uvs.data = uv;
    mesh.influence_count = 2, mesh.joints = joints, mesh.weights = weights, mesh.bone_count = 2;
    mesh.targets = &target, mesh.target_count = 1;
    sf_topology* topo = NULL;
    sf_error err;
    CHECK_OK(sf_topology_create(&mesh, NULL, NULL, &topo, &err));
    for (int w = -1; topo && w < 2; ++w) CHECK(sfi_cuda_halo_bytes(topo, w) == 0);
    sf_topology_destroy(topo);
    sf_pose base = {NULL, 2, NULL, 0};
    check_mesh("dense fan", &mesh, &base);
    free(pos), free(uv), free(delta), free(joints), free(weights), free(idx);
}

static const char* const assets[] = {"gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb",
                                     "gltf/AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf",
                                     "gltf/CesiumMan/glTF-Binary/CesiumMan.glb",
                                     "gltf/Fox/glTF-Binary/Fox.glb",
                                     "gltf/InterpolationTest/glTF-Binary/InterpolationTest.glb",
                                     "gltf/MorphStressTest/glTF-Binary/MorphStressTest.glb",
                                     "gltf/NormalTangentMirrorTest/glTF-Binary/NormalTangentMirrorTest.glb",
                                     "gltf/NormalTangentTest/glTF-Binary/NormalTangentTest.glb",
                                     "gltf/SimpleMorph/glTF/SimpleMorph.gltf",
                                     "gltf/SimpleSkin/glTF/SimpleSkin.gltf",
                                     "gltf/SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf"};

static void test_assets(void)
{
    if (!gpu_ready()) return;
    for (size_t a = 0; a < sizeof assets / sizeof assets[0]; ++a) {
        sf_gltf* g = NULL;
        sf_gltf_pose* gp = NULL;
        if (!sft_load_staged(assets[a], "staged assets not found (SF_ASSETS)", &g, &gp)) return;
        sf_error err;
        for (size_t i = 0; i < g->instance_count; ++i) {
            const sf_gltf_instance* in = &g->instances[i];
            const sf_gltf_mesh* m = &g->meshes[in->mesh];
            for (size_t p = m->first_primitive; p < m->first_primitive + m->primitive_count; ++p) {
                sf_mesh_desc desc;
                if (sf_gltf_instance_mesh(g, i, p, &desc, &err) != SF_OK) {
                    sft_failf(__FILE__, __LINE__, "%s instance %zu primitive %zu: %s", assets[a], i, p, err.message);
                    continue;
                }
                desc.zero_weight_policy = SF_ZERO_WEIGHTS_REST;
                size_t anim = g->animation_count ? (size_t)(rnd() * (double)g->animation_count) : SIZE_MAX;
                CHECK_OK(sf_gltf_pose_sample(gp, anim, rnd() * 2.0, &err));
                float* bones = calloc(12 * in->bone_count, sizeof(float));
                float* morph = calloc(desc.target_count + 1, sizeof(float));
                CHECK_OK(sf_gltf_pose_instance(gp, i, bones, morph, NULL, &err));
                sf_pose base = {bones, in->bone_count, desc.target_count ? morph : NULL, desc.target_count};
                char label[1100];
                snprintf(label, sizeof label, "%s instance %zu primitive %zu", assets[a], i, p);
                check_mesh(label, &desc, &base);
                free(bones);
                free(morph);
                if (sft_failed_now) break;
            }
        }
        sf_gltf_pose_destroy(gp);
        sf_gltf_destroy(g);
        if (sft_failed_now) return;
    }
    printf("compared %zu frame sets on %zu meshes; worst angle: ", compared, worst_case_count);
    for (int v = 0; v < SFI_CUDA_RECOMPUTE_COUNT; ++v)
        printf("%s %.3g, ", sfi_cuda_recompute_name((sfi_cuda_recompute)v), worst_seen[v]);
    printf(
        "per-vertex methods %.3g deg (beyond the rounding allowance); %zu of %zu vertex results ill-conditioned, "
        "%zu bit-identical to the CPU, %zu within the tolerance as they are; before allowances the worst is %.3g deg, "
        "%.3g deg where well-conditioned (fixed point apart)\n",
        worst_seen[SFI_CUDA_RECOMPUTE_COUNT], ill_conditioned, vertices_compared, bit_identical, within_tol, raw_worst,
        raw_worst_conditioned);
}

/* MikkTSpace's tangents of a batch of poses on the GPU (groups' sums on the device wherever a frame's groups are
 * the device's copy) against the CPU's MikkTSpace of the same positions and normals (the GPU's, read back), bit for
 * bit: every primitive with a tangent frame of the staged assets, MIKK_POSES random poses near an animation's
 * sample in one batch. Some must have had their sums on the device (each mesh's count is printed). */
#define MIKK_POSES 12
static void test_mikk_bits(void)
{
    if (!gpu_ready()) return;
    size_t meshes = 0, poses_total = 0, device_total = 0, differing = 0;
    for (size_t a = 0; a < sizeof assets / sizeof assets[0]; ++a) {
        sf_gltf* g = NULL;
        sf_gltf_pose* gp = NULL;
        if (!sft_load_staged(assets[a], "staged assets not found (SF_ASSETS)", &g, &gp)) return;
        sf_error err;
        for (size_t i = 0; i < g->instance_count; ++i) {
            const sf_gltf_instance* in = &g->instances[i];
            const sf_gltf_mesh* m = &g->meshes[in->mesh];
            for (size_t p = m->first_primitive; p < m->first_primitive + m->primitive_count; ++p) {
                sf_mesh_desc desc;
                CHECK_OK(sf_gltf_instance_mesh(g, i, p, &desc, &err));
                desc.zero_weight_policy = SF_ZERO_WEIGHTS_REST;
                sf_topology* topo = NULL;
                CHECK_OK(sf_topology_create(&desc, NULL, NULL, &topo, &err));
                if (!sf_topology_has_tangent_frame(topo)) {
                    sf_topology_destroy(topo);
                    continue;
                }
                size_t anim = g->animation_count ? (size_t)(rnd() * (double)g->animation_count) : SIZE_MAX;
                CHECK_OK(sf_gltf_pose_sample(gp, anim, rnd() * 2.0, &err));
                float* bones = calloc(12 * in->bone_count + 1, sizeof(float));
                float* morph = calloc(desc.target_count + 1, sizeof(float));
                CHECK_OK(sf_gltf_pose_instance(gp, i, bones, morph, NULL, &err));
                sf_pose base = {bones, in->bone_count, desc.target_count ? morph : NULL, desc.target_count};
                size_t n = sf_topology_vertex_count(topo);
                posed ps[MIKK_POSES];
                sf_pose poses[MIKK_POSES];
                sf_frames_out outs[MIKK_POSES];
                float* buf_g = malloc(MIKK_POSES * 10 * n * sizeof(float));
                float* cpu_t = malloc(4 * n * sizeof(float));
                for (int k = 0; k < MIKK_POSES; ++k) {
                    random_pose(&base, desc.target_count, 0.2f, &ps[k]);
                    poses[k] = ps[k].pose;
                    outs[k].positions = buf_g + 10 * n * k;
                    outs[k].normals = outs[k].positions + 3 * n;
                    outs[k].tangents = outs[k].normals + 3 * n;
                }
                sf_frames_opts o;
                memset(&o, 0, sizeof o);
                o.tangents = SF_TANGENTS_MIKKTSPACE;
                sf_workspace *cpu = NULL, *gpu = NULL;
                sf_workspace_opts wo = {0, SF_BACKEND_CUDA};
                CHECK_OK(sf_workspace_create(topo, NULL, &cpu, &err));
                CHECK_OK(sf_workspace_create(topo, &wo, &gpu, &err));
                CHECK_OK(sf_frames_compute_batch(topo, poses, MIKK_POSES, SF_METHOD_RECOMPUTE, &o, gpu, outs, &err));
                size_t ran = 0, on_device = 0, differ = 0;
                sfi_cuda_mikk_counts(gpu, &ran, &on_device);
                for (int k = 0; k < MIKK_POSES; ++k) {
                    /* the CPU's determinants of this pose (their signs mirror w), then its MikkTSpace of the GPU's
                     * positions and normals */
                    float* scratch = malloc(10 * n * sizeof(float));
                    sf_frames_out co = {scratch, scratch + 3 * n, scratch + 6 * n};
                    CHECK_OK(sf_frames_compute(topo, &poses[k], SF_METHOD_RECOMPUTE, &o, cpu, &co, &err));
                    free(scratch);
                    CHECK_OK(sfi_mikktspace_tangents(topo, outs[k].positions, outs[k].normals, cpu, cpu_t, &err));
                    if (memcmp(cpu_t, outs[k].tangents, 4 * n * sizeof(float)) != 0) ++differ;
                }
                printf("%s instance %zu primitive %zu: %zu vertices, %zu of %zu poses' sums on the device, %zu "
                       "differ\n",
                       assets[a], i, p, n, on_device, ran, differ);
                CHECK(ran == MIKK_POSES);
                CHECK(differ == 0);
                ++meshes, poses_total += ran, device_total += on_device, differing += differ;
                for (int k = 0; k < MIKK_POSES; ++k) posed_free(&ps[k]);
                free(buf_g), free(cpu_t), free(bones), free(morph);
                sf_workspace_destroy(cpu), sf_workspace_destroy(gpu);
                sf_topology_destroy(topo);
            }
        }
        sf_gltf_pose_destroy(gp);
        sf_gltf_destroy(g);
    }
    printf("MikkTSpace on the GPU: %zu meshes, %zu poses, %zu with their sums on the device, %zu differ from the "
           "CPU\n",
           meshes, poses_total, device_total, differing);
    CHECK(meshes > 0 && device_total > 0);
}

/* A crowd of 9 poses in one call against the CPU pose by pose. */
static void test_crowd(void)
{
    if (!gpu_ready()) return;
    const sf_scene_setting set[] = {{"resolution", 40}, {"twist", 60}, {"ripples", 0.5}};
    sf_scene* sc = NULL;
    sf_error err;
    CHECK_OK(sf_scene_create("sheet", NULL, set, 3, NULL, &sc, &err));
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&sc->mesh, NULL, NULL, &topo, &err));
    size_t n = sf_topology_vertex_count(topo);
    sf_workspace *cpu = NULL, *gpu = NULL;
    sf_workspace_opts wo = {0, SF_BACKEND_CUDA};
    CHECK_OK(sf_workspace_create(topo, NULL, &cpu, &err));
    CHECK_OK(sf_workspace_create(topo, &wo, &gpu, &err));
    enum { I = 9 };
    posed p[I];
    sf_pose poses[I];
    frames fc[I], fg[I], fs = frames_alloc(n);
    double* sens = calloc(n + 1, sizeof(double));
    sf_frames_out oc[I], og[I];
    for (int i = 0; i < I; ++i) {
        random_pose(&sc->pose, sc->mesh.target_count, 1.0f, &p[i]);
        poses[i] = p[i].pose;
        fc[i] = frames_alloc(n), fg[i] = frames_alloc(n);
        poison(&fg[i], n);
        oc[i] = (sf_frames_out){fc[i].p, fc[i].n, fc[i].t};
        og[i] = (sf_frames_out){fg[i].p, fg[i].n, fg[i].t};
    }
    for (int m = 0; m < SF_METHOD_COUNT && !sft_failed_now; ++m) {
        CHECK_OK(sf_frames_compute_batch(topo, poses, I, (sf_method)m, NULL, cpu, oc, &err));
        sf_result r = sf_frames_compute_batch(topo, poses, I, (sf_method)m, NULL, gpu, og, &err);
        if (r != SF_OK) printf("crowd %s: %s\n", sf_method_name((sf_method)m), err.message);
        CHECK_OK(r);
        for (int i = 0; i < I; ++i) {
            double perr;
            size_t wv, ill = 0;
            sensitivity(topo, &poses[i], (sf_method)m, NULL, cpu, &fc[i], &fs, sens);
            double a = frames_diff(topo, &fg[i], &fc[i], sens, TOL_DEG, &perr, &wv, &ill);
            if (!(a >= 0.0 && a <= TOL_DEG && perr <= TOL_POS))
                sft_failf(__FILE__, __LINE__, "crowd %s instance %d: %.6g deg, position %.3g",
                          sf_method_name((sf_method)m), i, a, perr);
            poison(&fg[i], n);
        }
    }
    for (int i = 0; i < I; ++i) posed_free(&p[i]), frames_free(&fc[i]), frames_free(&fg[i]);
    frames_free(&fs);
    free(sens);
    sf_workspace_destroy(cpu);
    sf_workspace_destroy(gpu);
    sf_topology_destroy(topo);
    sf_scene_destroy(sc);
}

/* The evaluation on a CUDA workspace (statistics reduced on the GPU) against the CPU's. */
static void test_evaluation(void)
{
    if (!gpu_ready()) return;
    const char* names[] = {"sheet", "elbow"};
    for (int s = 0; s < 2; ++s) {
        sf_scene* sc = NULL;
        sf_error err;
        if (sf_scene_create(names[s], NULL, NULL, 0, NULL, &sc, &err) != SF_OK) {
            sft_failf(__FILE__, __LINE__, "scene %s: %s", names[s], err.message);
            continue;
        }
        sf_topology* topo = NULL;
        CHECK_OK(sf_topology_create(&sc->mesh, NULL, NULL, &topo, &err));
        sf_workspace *cpu = NULL, *gpu = NULL;
        sf_workspace_opts wo = {0, SF_BACKEND_CUDA};
        CHECK_OK(sf_workspace_create(topo, NULL, &cpu, &err));
        CHECK_OK(sf_workspace_create(topo, &wo, &gpu, &err));
        sf_evaluation *ec = NULL, *eg = NULL;
        sf_method every[SF_METHOD_COUNT];
        for (int m = 0; m < SF_METHOD_COUNT; ++m) every[m] = (sf_method)m;
        sf_eval_desc desc;
        memset(&desc, 0, sizeof desc);
        desc.methods = every, desc.method_count = SF_METHOD_COUNT; /* recompute-fused too */
        CHECK_OK(sf_evaluation_create(topo, &desc, NULL, &ec, &err));
        CHECK_OK(sf_evaluation_create(topo, &desc, NULL, &eg, &err));
        posed p;
        random_pose(&sc->pose, sc->mesh.target_count, 1.0f, &p);
        CHECK_OK(sf_evaluation_run(ec, &p.pose, cpu, NULL, &err));
        sf_result r = sf_evaluation_run(eg, &p.pose, gpu, NULL, &err);
        if (r != SF_OK) printf("%s\n", err.message);
        CHECK_OK(r);
        const sf_eval_results *rc = sf_evaluation_results(ec), *rg = sf_evaluation_results(eg);
        CHECK(rg->positions == NULL); /* nothing per vertex came back */
        CHECK(rc->reference_report.mirrored_vertices == rg->reference_report.mirrored_vertices);
        CHECK(rc->row_count == SF_METHOD_COUNT && rg->row_count == SF_METHOD_COUNT);
        for (size_t k = 0; k < rc->row_count; ++k) {
            CHECK_OK(rg->rows[k].status); /* every method has a GPU form */
            CHECK(rc->rows[k].report.fused_two_pass == rg->rows[k].report.fused_two_pass);
            const sf_error_summary *a = &rc->rows[k].errors, *b = &rg->rows[k].errors;
            const char* m = sf_method_name(rc->rows[k].method);
            printf("%s %s: cpu mean %.6f p50 %.6f p95 %.6f max %.6f; gpu mean %.6f p50 %.6f p95 %.6f max %.6f\n",
                   names[s], m, a->normal.mean, a->normal.p50, a->normal.p95, a->normal.max, b->normal.mean,
                   b->normal.p50, b->normal.p95, b->normal.max);
            CHECK(a->normal.count == b->normal.count && a->tangent.count == b->tangent.count);
            CHECK_NEAR(a->normal.mean, b->normal.mean, TOL_DEG);
            CHECK_NEAR(a->normal.max, b->normal.max, TOL_DEG);
            CHECK_NEAR(a->normal.p50, b->normal.p50, TOL_DEG + 0.000977);
            CHECK_NEAR(a->normal.p95, b->normal.p95, TOL_DEG + 0.000977);
            CHECK_NEAR(a->tangent.mean, b->tangent.mean, TOL_DEG);
            CHECK_NEAR(a->tangent.max, b->tangent.max, TOL_DEG);
            CHECK_NEAR(a->normal.over_1, b->normal.over_1, 0.01);
            CHECK(rc->rows[k].report.mirrored_vertices == rg->rows[k].report.mirrored_vertices);
        }
        posed_free(&p);
        sf_evaluation_destroy(ec);
        sf_evaluation_destroy(eg);
        sf_workspace_destroy(cpu);
        sf_workspace_destroy(gpu);
        sf_topology_destroy(topo);
        sf_scene_destroy(sc);
    }
}

/* A clip's poses in batches (sf_evaluation_run_poses): each pose's sum, largest angle, its vertex and the
 * handedness mismatches against the CPU's evaluation of that pose alone (kept angles); the statistics of two
 * batches, and of a second evaluation's batch added on the device (sf_evaluation_add_poses), against the
 * CPU's angles of every pose merged. With MikkTSpace reference tangents each vertex's tangent meets the
 * reference's at each of its corners (made on the host from the device's frames): its largest angle, and
 * every corner of the other handedness counted, as on the CPU. */
static void poses_case(sf_tangent_mode reference_tangents)
{
    sf_scene* sc = NULL;
    sf_error err;
    CHECK_OK(sf_scene_create("elbow", NULL, NULL, 0, NULL, &sc, &err));
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&sc->mesh, NULL, NULL, &topo, &err));
    size_t n = sf_topology_vertex_count(topo);
    int tangents = sf_topology_has_tangent_frame(topo);
    sf_workspace *cpu = NULL, *g1 = NULL, *g2 = NULL;
    sf_workspace_opts wo = {0, SF_BACKEND_CUDA};
    CHECK_OK(sf_workspace_create(topo, NULL, &cpu, &err));
    CHECK_OK(sf_workspace_create(topo, &wo, &g1, &err));
    CHECK_OK(sf_workspace_create(topo, &wo, &g2, &err));
    const sf_method methods[] = {SF_METHOD_SKINNED, SF_METHOD_JACOBIAN, SF_METHOD_RECOMPUTE_FUSED};
    enum { ROWS = 3, P = 7 };
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.methods = methods, desc.method_count = ROWS;
    desc.reference_opts.tangents = reference_tangents;
    sf_evaluation *ec = NULL, *e1 = NULL, *e2 = NULL;
    desc.flags = SF_EVAL_KEEP_ANGLES;
    CHECK_OK(sf_evaluation_create(topo, &desc, NULL, &ec, &err));
    desc.flags = 0;
    CHECK_OK(sf_evaluation_create(topo, &desc, NULL, &e1, &err));
    CHECK_OK(sf_evaluation_create(topo, &desc, NULL, &e2, &err));
    CHECK(sf_evaluation_run_poses(ec, &sc->pose, 1, g1, 1, &err) == SF_ERROR_UNSUPPORTED); /* keeps angles */
    posed p[P];
    sf_pose poses[P];
    for (int i = 0; i < P; ++i) {
        random_pose(&sc->pose, sc->mesh.target_count, 1.0f, &p[i]);
        poses[i] = p[i].pose;
    }
    sf_angle_accumulator *want[2 * ROWS], *got[2 * ROWS];
    for (int k = 0; k < 2 * ROWS; ++k) {
        CHECK_OK(sf_angle_accumulator_create(NULL, &want[k], &err));
        CHECK_OK(sf_angle_accumulator_create(NULL, &got[k], &err));
    }
    /* poses 0-2 and 3-4 on e1 (two batches of one clip), 5-6 on e2, added to e1's */
    CHECK_OK(sf_evaluation_run_poses(e1, poses, 3, g1, 1, &err));
    sf_pose_errors pe[ROWS][P];
    for (int k = 0; k < ROWS; ++k) CHECK_OK(sf_evaluation_pose_errors(e1, (size_t)k, pe[k], &err));
    CHECK_OK(sf_evaluation_run_poses(e1, poses + 3, 2, g1, 0, &err));
    for (int k = 0; k < ROWS; ++k) CHECK_OK(sf_evaluation_pose_errors(e1, (size_t)k, pe[k] + 3, &err));
    CHECK_OK(sf_evaluation_run_poses(e2, poses + 5, 2, g2, 1, &err));
    for (int k = 0; k < ROWS; ++k) CHECK_OK(sf_evaluation_pose_errors(e2, (size_t)k, pe[k] + 5, &err));
    CHECK_OK(sf_evaluation_add_poses(e1, e2, &err));
    for (int k = 0; k < ROWS; ++k)
        CHECK_OK(sf_evaluation_accumulate(e1, (size_t)k, got[2 * k], tangents ? got[2 * k + 1] : NULL, &err));
    for (int i = 0; i < P; ++i) {
        CHECK_OK(sf_evaluation_run(ec, &poses[i], cpu, NULL, &err));
        const sf_eval_results* rc = sf_evaluation_results(ec);
        for (int k = 0; k < ROWS; ++k) {
            const sf_eval_row* row = &rc->rows[k];
            const sf_pose_errors* g = &pe[k][i];
            CHECK_OK(sf_evaluation_accumulate(ec, (size_t)k, want[2 * k], tangents ? want[2 * k + 1] : NULL, &err));
            double sum = 0.0, tsum = 0.0;
            float mx = 0.0f;
            for (size_t v = 0; v < n; ++v) {
                sum += row->normal_deg[v];
                if (tangents) tsum += row->tangent_deg[v];
                if (row->normal_deg[v] > mx) mx = row->normal_deg[v];
            }
            CHECK_NEAR(g->normal_sum / (double)n, sum / (double)n, TOL_DEG);
            CHECK_NEAR(g->normal_max, mx, TOL_DEG);
            /* the vertex of the largest angle: the CPU's, unless another is within the tolerance */
            CHECK(g->worst_normal_vertex < n && row->normal_deg[g->worst_normal_vertex] >= mx - TOL_DEG);
            if (tangents) {
                CHECK_NEAR(g->tangent_sum / (double)n, tsum / (double)n, TOL_DEG);
                CHECK(g->handedness_mismatches == row->errors.handedness_mismatches);
            }
        }
    }
    for (int k = 0; k < 2 * ROWS; ++k) {
        sf_angle_stats a, b;
        CHECK_OK(sf_angle_accumulator_finish(want[k], &a, &err));
        CHECK_OK(sf_angle_accumulator_finish(got[k], &b, &err));
        CHECK(a.count == b.count && a.count == (k % 2 && !tangents ? 0 : P * n));
        CHECK_NEAR(a.mean, b.mean, TOL_DEG);
        CHECK_NEAR(a.max, b.max, TOL_DEG);
        CHECK_NEAR(a.p95, b.p95, TOL_DEG + 0.000977);
        sf_angle_accumulator_destroy(want[k]);
        sf_angle_accumulator_destroy(got[k]);
    }
    for (int i = 0; i < P; ++i) posed_free(&p[i]);
    sf_evaluation_destroy(ec), sf_evaluation_destroy(e1), sf_evaluation_destroy(e2);
    sf_workspace_destroy(cpu), sf_workspace_destroy(g1), sf_workspace_destroy(g2);
    sf_topology_destroy(topo);
    sf_scene_destroy(sc);
}

static void test_poses(void)
{
    if (!gpu_ready()) return;
    poses_case(SF_TANGENTS_UV);
    poses_case(SF_TANGENTS_MIKKTSPACE);
}

/* Every number after `"key":` in a JSON text, in order (at most max). */
static size_t json_numbers(const char* text, const char* key, double* out, size_t max)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    size_t k = 0;
    for (const char* p = strstr(text, pat); p && k < max; p = strstr(p + 1, pat)) {
        const char* v = p + strlen(pat);
        while (*v == ' ' || *v == '\t') ++v;
        out[k++] = strtod(v, NULL);
    }
    return k;
}

/* The command line with --backend cuda: compare and eval print what the CPU prints, within rounding (the
 * percentiles within the histogram's resolution). eval with UV tangents keeps the statistics on the GPU over
 * the clip (batches of frames per primitive, each pose's sums read back): CesiumMan at 300 fps takes two
 * batches, MorphStressTest (morph targets) and InterpolationTest (ten primitives moved by their nodes) several
 * primitives; the worst frame's mean is the CPU's too. */
static void test_cli_backend(void)
{
    if (!gpu_ready()) return;
    char paths[3][1024];
    const char* assets_used[3] = {sft_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", paths[0], sizeof paths[0]),
                                  sft_asset("gltf/MorphStressTest/glTF-Binary/MorphStressTest.glb", paths[1],
                                            sizeof paths[1]),
                                  sft_asset("gltf/InterpolationTest/glTF-Binary/InterpolationTest.glb", paths[2],
                                            sizeof paths[2])};
    /* every method */
#define GPU_METHODS                                                                                                    \
    " --method unchanged,skinned,inverse-transpose,bone-normal-matrices,jacobian,jacobian-fan,recompute,recompute-fused"
    static const struct {
        const char* line;
        int asset; /* -1: none */
    } commands[] = {{"compare --scene sheet --preset bone-twist --json" GPU_METHODS, -1},
                    {"compare --scene elbow --weld position --json" GPU_METHODS, -1},
                    {"eval %s --json --tangents uv" GPU_METHODS, 0},
                    {"eval %s --json --tangents uv --fps 300" GPU_METHODS, 0},
                    {"eval %s --json --tangents uv --animation all" GPU_METHODS, 1},
                    {"eval %s --json --tangents uv --animation all" GPU_METHODS, 2},
                    {"eval %s --json" GPU_METHODS, 0}};
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; ++c) {
        const char* asset = commands[c].asset >= 0 ? assets_used[commands[c].asset] : "";
        if (!asset) continue;
        char cmd[1400], gpu_cmd[1500];
        snprintf(cmd, sizeof cmd, commands[c].line, asset);
        snprintf(gpu_cmd, sizeof gpu_cmd, "%s --backend cuda", cmd);
        sft_cli_out a = sft_run_cli(cmd), b = sft_run_cli(gpu_cmd);
        if (a.status == -1) {
            sft_skip("SF_CLI not set");
            sft_cli_out_free(&a), sft_cli_out_free(&b);
            return;
        }
        if (b.status != 0) printf("`%s`: exit %d: %s\n", gpu_cmd, b.status, b.err);
        CHECK(a.status == 0 && b.status == 0);
        static const char* const keys[] = {"mean", "max", "p50", "p95", "normal_mean"};
        for (int k = 0; k < 5; ++k) {
            double x[256], y[256];
            size_t nx = json_numbers(a.out, keys[k], x, 256), ny = json_numbers(b.out, keys[k], y, 256);
            CHECK(nx == ny && (nx > 0 || (k == 4 && commands[c].asset < 0))); /* compare has no worst frame */
            for (size_t i = 0; i < nx; ++i)
                if (!(fabs(x[i] - y[i]) <= (k == 0 || k == 4 ? 2e-3 : 1e-2)))
                    sft_failf(__FILE__, __LINE__, "`%s`: %s #%zu: cpu %.6f, gpu %.6f", gpu_cmd, keys[k], i, x[i], y[i]);
        }
        sft_cli_out_free(&a), sft_cli_out_free(&b);
    }
}

/* The sheet at a resolution with SHEET_POSES random poses (extent 1) and their normals' outputs: what the device
 * memory tests batch. */
enum { SHEET_POSES = 8 };
typedef struct sheet_poses {
    sf_scene* sc;
    sf_topology* topo;
    size_t n;
    posed p[SHEET_POSES];
    sf_pose poses[SHEET_POSES];
    sf_frames_out outs[SHEET_POSES];
    float* nrm;
} sheet_poses;

static void sheet_poses_open(double resolution, sheet_poses* f)
{
    const sf_scene_setting set[] = {{"resolution", resolution}};
    sf_error err;
    memset(f, 0, sizeof *f);
    CHECK_OK(sf_scene_create("sheet", NULL, set, 1, NULL, &f->sc, &err));
    CHECK_OK(sf_topology_create(&f->sc->mesh, NULL, NULL, &f->topo, &err));
    f->n = sf_topology_vertex_count(f->topo);
    f->nrm = malloc(3 * f->n * SHEET_POSES * sizeof(float));
    for (int i = 0; i < SHEET_POSES; ++i) {
        random_pose(&f->sc->pose, f->sc->mesh.target_count, 1.0f, &f->p[i]);
        f->poses[i] = f->p[i].pose;
        f->outs[i] = (sf_frames_out){NULL, f->nrm + 3 * f->n * i, NULL};
    }
}

static void sheet_poses_close(sheet_poses* f)
{
    for (int i = 0; i < SHEET_POSES; ++i) posed_free(&f->p[i]);
    free(f->nrm);
    sf_topology_destroy(f->topo);
    sf_scene_destroy(f->sc);
}

/* sf_workspace_device_size against the device's free memory: what creating a workspace takes, what a
 * batch of 8 adds (cudaMalloc rounds arrays up to its pages: the topology's many arrays loosely, the
 * instances' few large ones within 2%), and what the reference's locality blocks add in every weld mode the
 * topology has (one allocation each: within 2% and a page each). */
static void test_device_size(void)
{
    if (!gpu_ready()) return;
    sheet_poses f;
    sheet_poses_open(512, &f);
    sf_topology* topo = f.topo;
    size_t n = f.n;
    sf_error err;
    sf_workspace_opts wo = {0, SF_BACKEND_CUDA};
    sf_workspace* ws = NULL;
    size_t f0 = 0, f1 = 0, f2 = 0;
    CHECK_OK(sf_workspace_create(topo, &wo, &ws, &err)); /* the context and kernels loaded first */
    sf_workspace_destroy(ws);
    CHECK_OK(sfi_cuda_free_memory(&f0, &err));
    CHECK_OK(sf_workspace_create(topo, &wo, &ws, &err));
    CHECK_OK(sfi_cuda_free_memory(&f1, &err));
    enum { I = SHEET_POSES };
    CHECK_OK(sf_frames_compute_batch(topo, f.poses, I, SF_METHOD_SKINNED, NULL, ws, f.outs, &err));
    CHECK_OK(sfi_cuda_free_memory(&f2, &err));
    double want1 = (double)sf_workspace_device_size(topo, &wo, 1), want8 = (double)sf_workspace_device_size(topo, &wo, I);
    double got1 = (double)f0 - (double)f1, grow = (double)f1 - (double)f2, MiB = 1048576.0;
    printf("device size: %zu vertices, predicted %.1f MB (+ %.1f MB for %d instances), took %.1f MB (+ %.1f MB)\n",
           n, want1 / MiB, (want8 - want1) / MiB, I, got1 / MiB, grow / MiB);
    /* the prediction counts the reference's blocks, which the first reference builds: not there yet */
    double all_blocks = 0.0; /* a weld mode the topology was built without has none */
    for (int w = -1; w < 2; ++w) all_blocks += (double)sfi_cuda_halo_bytes(topo, w);
    CHECK(want1 > 0.0 && want8 > want1);
    CHECK(got1 >= want1 - all_blocks - 2.0 * MiB && got1 <= 1.25 * want1 + 64.0 * MiB);
    CHECK(fabs(grow - (want8 - want1)) <= 0.02 * (want8 - want1) + 24.0 * MiB);
    /* the reference in each weld mode: its blocks built on first use */
    double halo = 0.0;
    int modes = 0;
    for (int w = -1; w < 2; ++w) {
        sf_frames_opts ro = {0};
        ro.weld = w < 0 ? SF_WELD_NONE : (w == 0 ? SF_WELD_POSITION : SF_WELD_POSITION_NORMAL);
        ro.tangents = SF_TANGENTS_UV; /* MikkTSpace would add its per-corner arrays */
        size_t h = sfi_cuda_halo_bytes(topo, w);
        sf_result rr = sf_frames_compute_batch(topo, f.poses, I, SF_METHOD_RECOMPUTE, &ro, ws, f.outs, &err);
        if (rr == SF_ERROR_UNSUPPORTED && w >= 0) { /* a weld mode the topology was built without: no blocks */
            CHECK(h == 0);
            continue;
        }
        CHECK_OK(rr);
        halo += (double)h;
        modes++;
    }
    size_t f3 = 0;
    CHECK_OK(sfi_cuda_free_memory(&f3, &err));
    double blocks = (double)f2 - (double)f3;
    printf("device size: the reference's blocks in %d weld modes, predicted %.1f MB, took %.1f MB\n", modes, halo / MiB,
           blocks / MiB);
    CHECK(halo > 0.0);
    CHECK(fabs(blocks - halo) <= 0.02 * halo + 2.0 * MiB * modes);
    CHECK((double)f0 - (double)f3 >= want8 - 2.0 * MiB); /* the prediction counts them */
    sf_workspace_destroy(ws);
    sheet_poses_close(&f);
}

/* sf_workspace_reserve takes a batch's scratch up front: what it takes is what a batch of that many poses grows
 * the workspace by (sf_workspace_device_size), and such a batch, and an evaluation of a clip's batch of that many,
 * then take no device memory; a smaller reservation changes nothing. */
static void test_reserve(void)
{
    if (!gpu_ready()) return;
    sheet_poses f;
    sheet_poses_open(256, &f);
    sf_topology* topo = f.topo;
    sf_pose* poses = f.poses;
    sf_error err;
    sf_workspace_opts wo = {0, SF_BACKEND_CUDA};
    sf_workspace* ws = NULL;
    CHECK_OK(sf_workspace_create(topo, &wo, &ws, &err));
    enum { I = SHEET_POSES };
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.reference_opts.tangents = SF_TANGENTS_UV; /* MikkTSpace's rounds keep device scratch of their own */
    sf_evaluation* ev = NULL;
    CHECK_OK(sf_evaluation_create(topo, &desc, NULL, &ev, &err));
    /* every kernel the batches below run loaded once (loading takes device memory) */
    CHECK_OK(sf_frames_compute_batch(topo, poses, 1, SF_METHOD_SKINNED, NULL, ws, f.outs, &err));
    CHECK_OK(sf_evaluation_run_poses(ev, poses, 1, ws, 1, &err));
    size_t f0 = 0, f1 = 0, f2 = 0, f3 = 0;
    CHECK_OK(sfi_cuda_free_memory(&f0, &err));
    CHECK_OK(sf_workspace_reserve(ws, I, &err));
    CHECK_OK(sfi_cuda_free_memory(&f1, &err));
    CHECK_OK(sf_frames_compute_batch(topo, poses, I, SF_METHOD_SKINNED, NULL, ws, f.outs, &err));
    CHECK_OK(sf_evaluation_run_poses(ev, poses, I, ws, 1, &err));
    CHECK_OK(sfi_cuda_free_memory(&f2, &err));
    CHECK_OK(sf_workspace_reserve(ws, 2, &err));
    CHECK_OK(sfi_cuda_free_memory(&f3, &err));
    double want = (double)sf_workspace_device_size(topo, &wo, I) - (double)sf_workspace_device_size(topo, &wo, 1);
    double took = (double)f0 - (double)f1, MiB = 1048576.0;
    printf("reserve: %zu vertices, %d instances: predicted %.1f MB, took %.1f MB; the batches then took %.1f MB\n", f.n, I,
           want / MiB, took / MiB, ((double)f1 - (double)f2) / MiB);
    CHECK(want > 0.0 && fabs(took - want) <= 0.02 * want + 24.0 * MiB);
    CHECK(f2 == f1 && f3 == f2);
    CHECK_RESULT(sf_workspace_reserve(ws, 0, &err), SF_ERROR_INVALID_ARGUMENT);
    /* MikkTSpace's reference: its rounds' staging and device scratch are held for the reserved batch from the
     * first run (one pose) on, so the batch after it takes nothing either */
    desc.reference_opts.tangents = SF_TANGENTS_MIKKTSPACE;
    sf_workspace* wm = NULL;
    sf_evaluation* em = NULL;
    CHECK_OK(sf_workspace_create(topo, &wo, &wm, &err));
    CHECK_OK(sf_evaluation_create(topo, &desc, NULL, &em, &err));
    CHECK_OK(sf_workspace_reserve(wm, I, &err));
    CHECK_OK(sf_evaluation_run_poses(em, poses, 1, wm, 1, &err));
    size_t f4 = 0, f5 = 0, ran = 0, on_device = 0;
    CHECK_OK(sfi_cuda_free_memory(&f4, &err));
    CHECK_OK(sf_evaluation_run_poses(em, poses, I, wm, 1, &err));
    CHECK_OK(sfi_cuda_free_memory(&f5, &err));
    sfi_cuda_mikk_counts(wm, &ran, &on_device);
    printf("reserve: MikkTSpace's reference, %zu frames (%zu summed on the device): the batch took %.1f MB\n", ran,
           on_device, ((double)f4 - (double)f5) / MiB);
    CHECK(ran >= 1 + I && on_device > 0);
    CHECK(f5 == f4);
    sf_evaluation_destroy(em);
    sf_workspace_destroy(wm);
    sf_evaluation_destroy(ev);
    sf_workspace_destroy(ws);
    sheet_poses_close(&f);
}

/* The GPU statistics of one launch long enough that each block's shared histogram counts are added to the global
 * bins during the launch (about 300 rounds of the fixed error grid; kernels.cu) equal those of the same poses
 * in two launches too short for that: the histogram, and with it every percentile, exactly. Every instance has
 * the scene's pose, so the statistics are also the CPU's of that one pose (within the GPU tolerance and the
 * histogram's resolution): a crowd this large takes each per-vertex row as a frames pass + the error kernel
 * (backend_cuda.cu, SFC_FUSED_ROWS_BELOW), which the smaller evaluations of test_evaluation do not. */
static void stats_read(sf_workspace* ws, size_t rows, sf_angle_accumulator** acc, sf_error* err)
{
    for (size_t k = 0; k < rows; ++k) CHECK_OK(sfi_cuda_eval_read(ws, k, NULL, NULL, acc[2 * k], acc[2 * k + 1], err));
}

static void test_statistics_long_launch(void)
{
    if (!gpu_ready()) return;
    const sf_scene_setting set[] = {{"resolution", 140}, {"twist", 20}}; /* most angles below 1 degree */
    sf_scene* sc = NULL;
    sf_error err;
    CHECK_OK(sf_scene_create("sheet", NULL, set, 2, NULL, &sc, &err));
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&sc->mesh, NULL, NULL, &topo, &err));
    size_t n = sf_topology_vertex_count(topo);
    size_t I = (size_t)(300.0 * 1056 * 256 / (double)n) + 1; /* 300 rounds of the error grid */
    sf_workspace* gpu = NULL;
    sf_workspace_opts wo = {0, SF_BACKEND_CUDA};
    CHECK_OK(sf_workspace_create(topo, &wo, &gpu, &err));
    sf_pose* poses = calloc(I, sizeof *poses); /* one pose: each bin of a block gets many counts */
    for (size_t i = 0; i < I; ++i) poses[i] = sc->pose;
    const sf_method methods[] = {SF_METHOD_SKINNED, SF_METHOD_BONE_NORMAL_MATRICES};
    enum { ROWS = 2 };
    sf_angle_accumulator *one[2 * ROWS], *two[2 * ROWS];
    for (int k = 0; k < 2 * ROWS; ++k) {
        CHECK_OK(sf_angle_accumulator_create(NULL, &one[k], &err));
        CHECK_OK(sf_angle_accumulator_create(NULL, &two[k], &err));
    }
    sf_result r = sfi_cuda_eval_enqueue(gpu, poses, I, methods, ROWS, NULL, NULL, &err);
    if (r != SF_OK) printf("long launch: %s\n", err.message);
    CHECK_OK(r);
    stats_read(gpu, ROWS, one, &err);
    size_t half = I / 2;
    CHECK_OK(sfi_cuda_eval_enqueue(gpu, poses, half, methods, ROWS, NULL, NULL, &err));
    stats_read(gpu, ROWS, two, &err);
    CHECK_OK(sfi_cuda_eval_enqueue(gpu, poses + half, I - half, methods, ROWS, NULL, NULL, &err));
    stats_read(gpu, ROWS, two, &err);
    sf_workspace* cpu = NULL;
    CHECK_OK(sf_workspace_create(topo, NULL, &cpu, &err));
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.methods = methods, desc.method_count = ROWS;
    sf_evaluation* ec = NULL;
    CHECK_OK(sf_evaluation_create(topo, &desc, NULL, &ec, &err));
    CHECK_OK(sf_evaluation_run(ec, &sc->pose, cpu, NULL, &err));
    const sf_eval_results* rc = sf_evaluation_results(ec);
    for (int k = 0; k < 2 * ROWS; ++k) {
        sf_angle_stats a, b;
        const sf_angle_stats* c = k % 2 ? &rc->rows[k / 2].errors.tangent : &rc->rows[k / 2].errors.normal;
        CHECK(c->count == n);
        CHECK_OK(sf_angle_accumulator_finish(one[k], &a, &err));
        CHECK_OK(sf_angle_accumulator_finish(two[k], &b, &err));
        printf("long launch %s %s: %zu angles, p50 %.6f p95 %.6f max %.6f; split p50 %.6f p95 %.6f\n",
               sf_method_name(methods[k / 2]), k % 2 ? "tangents" : "normals", a.count, a.p50, a.p95, a.max, b.p50,
               b.p95);
        CHECK(a.count == I * n && b.count == a.count);
        CHECK(a.p50 == b.p50 && a.p95 == b.p95 && a.max == b.max);
        CHECK(a.over_1 == b.over_1 && a.over_5 == b.over_5);
        CHECK_NEAR(a.mean, b.mean, 1e-9 * (a.mean + 1.0));
        CHECK(a.p50 > 0.0 && a.p50 < 1.75); /* in the bins a block counts in shared memory */
        CHECK_NEAR(a.mean, c->mean, TOL_DEG);
        CHECK_NEAR(a.max, c->max, TOL_DEG);
        CHECK_NEAR(a.p50, c->p50, TOL_DEG + 0.000977);
        CHECK_NEAR(a.p95, c->p95, TOL_DEG + 0.000977);
        CHECK_NEAR(a.over_1, c->over_1, 1e-3);
        sf_angle_accumulator_destroy(one[k]);
        sf_angle_accumulator_destroy(two[k]);
    }
    free(poses);
    sf_evaluation_destroy(ec);
    sf_workspace_destroy(cpu);
    sf_workspace_destroy(gpu);
    sf_topology_destroy(topo);
    sf_scene_destroy(sc);
}

/* The forms of an evaluation's rows (sfi_cuda_set_rows) give the same statistics bit for bit: every field of the
 * summaries (the sums in the same order, the histogram, the extremes and their vertices, the counts), each pose's
 * records of a clip, and the frames reports. The default (unchanged, skinned and inverse-transpose from one deform)
 * against each row's own deform. Cases: a crowd large enough that every per-vertex row writes its frames
 * (SFC_FUSED_ROWS_BELOW), one below it (the fused rows in both forms), and the mesh without UVs (no tangent
 * series). */
enum { FORMS = 2 };
static const int row_forms[FORMS] = {0, SFI_CUDA_ROWS_SHARED_DEFORM};

static size_t summaries_differ(const sf_error_summary* a, const sf_error_summary* b)
{
    size_t differ = 0;
    for (int side = 0; side < 2; ++side) {
        const sf_angle_stats *x = side ? &a->tangent : &a->normal, *y = side ? &b->tangent : &b->normal;
        differ += x->count != y->count || x->mean != y->mean || x->rms != y->rms || x->p50 != y->p50 ||
                  x->p95 != y->p95 || x->max != y->max || x->over_1 != y->over_1 || x->over_5 != y->over_5 ||
                  x->over_45 != y->over_45;
    }
    return differ + (a->handedness_mismatches != b->handedness_mismatches || a->degenerate != b->degenerate ||
                     a->degenerate_normals != b->degenerate_normals ||
                     a->degenerate_tangents != b->degenerate_tangents ||
                     a->worst_normal_vertex != b->worst_normal_vertex ||
                     a->worst_tangent_vertex != b->worst_tangent_vertex);
}

static void rows_pass_case(const char* label, int resolution, size_t I, int uvs)
{
    const sf_scene_setting set[] = {{"resolution", resolution}, {"twist", 60}, {"ripples", 0.5}};
    sf_scene* sc = NULL;
    sf_error err;
    CHECK_OK(sf_scene_create("sheet", NULL, set, 3, NULL, &sc, &err));
    sf_mesh_desc mesh = sc->mesh;
    if (!uvs) memset(&mesh.uvs, 0, sizeof mesh.uvs), memset(&mesh.tangents, 0, sizeof mesh.tangents);
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&mesh, NULL, NULL, &topo, &err));
    CHECK(sf_topology_has_tangent_frame(topo) == uvs);
    size_t n = sf_topology_vertex_count(topo);
    sf_workspace* ws[FORMS] = {NULL};
    sf_workspace_opts wo = {0, SF_BACKEND_CUDA};
    for (int f = 0; f < FORMS; ++f) {
        CHECK_OK(sf_workspace_create(topo, &wo, &ws[f], &err));
        sfi_cuda_set_rows(ws[f], row_forms[f]);
    }
    posed* p = calloc(I, sizeof *p);
    sf_pose* poses = calloc(I, sizeof *poses);
    for (size_t i = 0; i < I; ++i) {
        random_pose(&sc->pose, sc->mesh.target_count, 1.0f, &p[i]);
        poses[i] = p[i].pose;
    }
    sf_method every[SF_METHOD_COUNT];
    for (int m = 0; m < SF_METHOD_COUNT; ++m) every[m] = (sf_method)m;
    size_t differ = 0;
    sf_error_summary sum[FORMS];
    sf_frames_report rep[FORMS];
    for (int f = 0; f < FORMS; ++f)
        CHECK_OK(sfi_cuda_eval_enqueue(ws[f], poses, I, every, SF_METHOD_COUNT, NULL, NULL, &err));
    for (int k = 0; k < SF_METHOD_COUNT; ++k) {
        for (int f = 0; f < FORMS; ++f) {
            memset(&sum[f], 0, sizeof sum[f]), memset(&rep[f], 0, sizeof rep[f]);
            CHECK_OK(sfi_cuda_eval_read(ws[f], (size_t)k, &sum[f], &rep[f], NULL, NULL, &err));
        }
        for (int f = 1; f < FORMS; ++f)
            differ += summaries_differ(&sum[0], &sum[f]) + (rep[0].mirrored_vertices != rep[f].mirrored_vertices ||
                                                            rep[0].singular_vertices != rep[f].singular_vertices ||
                                                            rep[0].degenerate_normals != rep[f].degenerate_normals ||
                                                            rep[0].degenerate_tangents != rep[f].degenerate_tangents ||
                                                            rep[0].jacobian_capped != rep[f].jacobian_capped);
        CHECK(sum[0].normal.count == I * n);
        CHECK(sum[0].tangent.count == (uvs ? I * n : 0));
        if (k != SF_METHOD_RECOMPUTE && k != SF_METHOD_RECOMPUTE_FUSED) /* measured, not left zero */
            CHECK(sum[0].normal.max > 0.0 && sum[0].normal.mean > 0.0);
    }
    /* a clip's records per pose */
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.methods = every, desc.method_count = SF_METHOD_COUNT;
    sf_evaluation* e[FORMS] = {NULL};
    sf_pose_errors* pe[FORMS];
    for (int f = 0; f < FORMS; ++f) {
        CHECK_OK(sf_evaluation_create(topo, &desc, NULL, &e[f], &err));
        CHECK_OK(sf_evaluation_run_poses(e[f], poses, I, ws[f], 1, &err));
        pe[f] = calloc(I, sizeof *pe[f]);
    }
    for (int k = 0; k < SF_METHOD_COUNT; ++k) {
        for (int f = 0; f < FORMS; ++f) CHECK_OK(sf_evaluation_pose_errors(e[f], (size_t)k, pe[f], &err));
        for (int f = 1; f < FORMS; ++f)
            for (size_t i = 0; i < I; ++i) {
                const sf_pose_errors *a = &pe[0][i], *b = &pe[f][i];
                differ += a->normal_sum != b->normal_sum || a->tangent_sum != b->tangent_sum ||
                          a->normal_max != b->normal_max || a->tangent_max != b->tangent_max ||
                          a->worst_normal_vertex != b->worst_normal_vertex ||
                          a->worst_tangent_vertex != b->worst_tangent_vertex ||
                          a->handedness_mismatches != b->handedness_mismatches;
            }
    }
    printf("rows forms %s: %zu instances of %zu vertices, %zu fields differ\n", label, I, n, differ);
    CHECK(differ == 0);
    for (int f = 0; f < FORMS; ++f) free(pe[f]), sf_evaluation_destroy(e[f]), sf_workspace_destroy(ws[f]);
    for (size_t i = 0; i < I; ++i) posed_free(&p[i]);
    free(p), free(poses);
    sf_topology_destroy(topo);
    sf_scene_destroy(sc);
}

static void test_rows_forms(void)
{
    if (!gpu_ready()) return;
    rows_pass_case("crowd", 140, 60, 1); /* 1.19 M vertices: every row writes its frames */
    rows_pass_case("small", 40, 3, 1);
    rows_pass_case("no uvs", 140, 60, 0);
}

/* The device's vertex order (sfi_cuda_set_locality): CesiumMan replicated past 100k vertices (its authored order,
 * copy after copy) on a workspace in the Morton order and on one in the authored order. Every method,
 * option set and reference variant gives the same bits in the caller's numbering (scatter-float, whose atomics
 * add in any order, within the tolerance); an evaluation's statistics are the same, the double sums (added in
 * the order of the device's vertices) within 1e-12 of each other. */
static size_t angle_stats_differ(const sf_angle_stats* x, const sf_angle_stats* y)
{
    return x->count != y->count || fabs(x->mean - y->mean) > 1e-12 * fabs(x->mean) ||
           fabs(x->rms - y->rms) > 1e-12 * fabs(x->rms) || x->p50 != y->p50 || x->p95 != y->p95 || x->max != y->max ||
           x->over_1 != y->over_1 || x->over_5 != y->over_5 || x->over_45 != y->over_45;
}

static void test_locality(void)
{
    if (!gpu_ready()) return;
    sf_gltf* g = NULL;
    sf_gltf_pose* gp = NULL;
    if (!sft_load_staged("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", "CesiumMan not found (SF_ASSETS)", &g, &gp)) return;
    sf_error err;
    const sf_gltf_instance* in = &g->instances[0];
    sf_mesh_desc desc;
    CHECK_OK(sf_gltf_instance_mesh(g, 0, g->meshes[in->mesh].first_primitive, &desc, &err));
    desc.zero_weight_policy = SF_ZERO_WEIGHTS_REST;
    CHECK_OK(sf_gltf_pose_sample(gp, 0, 1.0, &err));
    float* bones = calloc(12 * in->bone_count + 1, sizeof(float));
    CHECK_OK(sf_gltf_pose_instance(gp, 0, bones, NULL, NULL, &err));
    sf_pose base = {bones, in->bone_count, NULL, 0};
    replicated_mesh rm;
    sf_topology* topo = NULL;
    if (replicated_mesh_make(&rm, &desc, 100000, "test_cuda")) {
        sft_failf(__FILE__, __LINE__, "replicated CesiumMan: out of memory");
        goto out_gltf;
    }
    float* rbones = calloc(12 * rm.desc.bone_count, sizeof(float));
    sf_pose rpose;
    replicated_pose(&rm, &base, rbones, &rpose);
    CHECK_OK(sf_topology_create(&rm.desc, NULL, NULL, &topo, &err));
    size_t n = topo ? sf_topology_vertex_count(topo) : 0;
    sf_workspace *blocks = NULL, *authored = NULL, *cpu = NULL;
    sf_workspace_opts wo = {0, SF_BACKEND_CUDA};
    if (topo) {
        CHECK_OK(sf_workspace_create(topo, NULL, &cpu, &err));
        CHECK_OK(sf_workspace_create(topo, &wo, &blocks, &err));
        CHECK_OK(sf_workspace_create(topo, &wo, &authored, &err));
        CHECK_OK(sfi_cuda_set_locality(authored, SFI_CUDA_ORDER_AUTHORED, &err));
        CHECK_OK(sfi_cuda_set_locality(blocks, SFI_CUDA_ORDER_MORTON, &err));
    }
    if (!blocks || !authored || !cpu || sft_failed_now) goto out;
    frames fa = frames_alloc(n), fb = frames_alloc(n), fc = frames_alloc(n), f2 = frames_alloc(n);
    double* sens = calloc(n + 1, sizeof(double));
    option_set sets[SF_METHOD_COUNT + 32];
    size_t set_count = option_sets(sets), runs = 0, differ = 0;
    double worst_float = 0.0;
    for (size_t s = 0; s < set_count; ++s) {
        int variants = sets[s].method == SF_METHOD_RECOMPUTE && s < SF_METHOD_COUNT + 4 ? SFI_CUDA_RECOMPUTE_COUNT : 1;
        for (int variant = 0; variant < variants; ++variant) {
            posed p;
            random_pose(&rpose, 0, 1.0f, &p);
            sfi_cuda_set_recompute(blocks, (sfi_cuda_recompute)variant);
            sfi_cuda_set_recompute(authored, (sfi_cuda_recompute)variant);
            sf_frames_out oa = {fa.p, fa.n, fa.t}, ob = {fb.p, fb.n, fb.t};
            poison(&fa, n), poison(&fb, n);
            sf_error ea, eb;
            sf_result ra = sf_frames_compute(topo, &p.pose, sets[s].method, &sets[s].opts, authored, &oa, &ea);
            sf_result rb = sf_frames_compute(topo, &p.pose, sets[s].method, &sets[s].opts, blocks, &ob, &eb);
            CHECK(ra == rb);
            if (ra == SF_OK && rb == SF_OK) {
                runs++;
                sf_frames_report pa, pb;
                sf_workspace_last_report(authored, &pa);
                sf_workspace_last_report(blocks, &pb);
                CHECK(memcmp(&pa, &pb, sizeof pa) == 0);
                if (variant == SFI_CUDA_SCATTER_FLOAT) {
                    /* the float atomics' order moves an ill-conditioned sum: allowed what rounding moves the CPU's
                     * answer by, as check_mesh allows it */
                    sf_frames_out oc = {fc.p, fc.n, fc.t};
                    CHECK_OK(sf_frames_compute(topo, &p.pose, sets[s].method, &sets[s].opts, cpu, &oc, &ea));
                    sensitivity(topo, &p.pose, sets[s].method, &sets[s].opts, cpu, &fc, &f2, sens);
                    for (size_t v = 0; v < n; ++v) {
                        double a = is_zero3(fa.n + 3 * v) && is_zero3(fb.n + 3 * v)
                                       ? 0.0
                                       : sf_angle_deg(fa.n + 3 * v, fb.n + 3 * v);
                        if (sens[v] >= UNDEFINED_DEG) continue; /* rounding decides the answer */
                        a = a == a ? fmax(0.0, a - 20.0 * sens[v]) : 180.0;
                        if (a > worst_float) worst_float = a;
                    }
                } else if (memcmp(fa.p, fb.p, 3 * n * sizeof(float)) || memcmp(fa.n, fb.n, 3 * n * sizeof(float)) ||
                           memcmp(fa.t, fb.t, 4 * n * sizeof(float))) {
                    differ++;
                    sft_failf(__FILE__, __LINE__, "locality: %s, %s: the Morton order differs from the authored one",
                              sets[s].name, sfi_cuda_recompute_name((sfi_cuda_recompute)variant));
                }
            }
            posed_free(&p);
        }
    }
    CHECK(worst_float <= TOL_DEG);
    /* an evaluation of 3 poses: its statistics, and each pose's own errors */
    enum { I = 3 };
    posed p[I];
    sf_pose poses[I];
    for (size_t i = 0; i < I; ++i) random_pose(&rpose, 0, 1.0f, &p[i]), poses[i] = p[i].pose;
    sf_method every[SF_METHOD_COUNT];
    for (int m = 0; m < SF_METHOD_COUNT; ++m) every[m] = (sf_method)m;
    sfi_cuda_set_recompute(blocks, SFI_CUDA_HALO_GATHER);
    sfi_cuda_set_recompute(authored, SFI_CUDA_HALO_GATHER);
    size_t stats_differ = 0;
    CHECK_OK(sfi_cuda_eval_enqueue(authored, poses, I, every, SF_METHOD_COUNT, NULL, NULL, &err));
    CHECK_OK(sfi_cuda_eval_enqueue(blocks, poses, I, every, SF_METHOD_COUNT, NULL, NULL, &err));
    for (int k = 0; k < SF_METHOD_COUNT; ++k) {
        sf_error_summary a, b;
        sf_frames_report ra, rb;
        memset(&a, 0, sizeof a), memset(&b, 0, sizeof b), memset(&ra, 0, sizeof ra), memset(&rb, 0, sizeof rb);
        CHECK_OK(sfi_cuda_eval_read(authored, (size_t)k, &a, &ra, NULL, NULL, &err));
        CHECK_OK(sfi_cuda_eval_read(blocks, (size_t)k, &b, &rb, NULL, NULL, &err));
        stats_differ += angle_stats_differ(&a.normal, &b.normal) + angle_stats_differ(&a.tangent, &b.tangent) +
                        (a.worst_normal_vertex != b.worst_normal_vertex) +
                        (a.worst_tangent_vertex != b.worst_tangent_vertex) +
                        (a.handedness_mismatches != b.handedness_mismatches) + (a.degenerate != b.degenerate) +
                        (memcmp(&ra, &rb, sizeof ra) != 0);
        CHECK(a.normal.count == I * n);
    }
    sf_eval_desc ed;
    memset(&ed, 0, sizeof ed);
    ed.methods = every, ed.method_count = SF_METHOD_COUNT;
    sf_evaluation *e[2] = {NULL, NULL};
    sf_workspace* wss[2] = {authored, blocks};
    sf_pose_errors pe[2][I];
    for (int f = 0; f < 2; ++f) {
        CHECK_OK(sf_evaluation_create(topo, &ed, NULL, &e[f], &err));
        CHECK_OK(sf_evaluation_run_poses(e[f], poses, I, wss[f], 1, &err));
    }
    for (int k = 0; k < SF_METHOD_COUNT && e[0] && e[1]; ++k) {
        for (int f = 0; f < 2; ++f) CHECK_OK(sf_evaluation_pose_errors(e[f], (size_t)k, pe[f], &err));
        for (size_t i = 0; i < I; ++i) /* sums in fixed point: the same whatever the order */
            stats_differ += pe[0][i].normal_sum != pe[1][i].normal_sum ||
                            pe[0][i].tangent_sum != pe[1][i].tangent_sum ||
                            pe[0][i].normal_max != pe[1][i].normal_max ||
                            pe[0][i].worst_normal_vertex != pe[1][i].worst_normal_vertex ||
                            pe[0][i].worst_tangent_vertex != pe[1][i].worst_tangent_vertex ||
                            pe[0][i].handedness_mismatches != pe[1][i].handedness_mismatches;
    }
    printf("locality: replicated CesiumMan, %zu vertices: %zu frame sets, %zu differ in any bit (scatter-float "
           "within %.3g deg beyond the rounding allowance); statistics of %d poses: %zu fields differ\n",
           n, runs, differ, worst_float, I, stats_differ);
    CHECK(runs > 0 && stats_differ == 0);
    for (int f = 0; f < 2; ++f) sf_evaluation_destroy(e[f]);
    for (size_t i = 0; i < I; ++i) posed_free(&p[i]);
    frames_free(&fa), frames_free(&fb), frames_free(&fc), frames_free(&f2);
    free(sens);
out:
    sf_workspace_destroy(cpu);
    sf_workspace_destroy(blocks);
    sf_workspace_destroy(authored);
    sf_topology_destroy(topo);
    free(rbones);
    replicated_mesh_free(&rm);
out_gltf:
    free(bones);
    sf_gltf_pose_destroy(gp);
    sf_gltf_destroy(g);
}

int main(int argc, char** argv)
{
    if (!gpu_ready()) return 77;
    static const sft_case cases[] = {{"scenes", test_scenes},
                                     {"assets", test_assets},
                                     {"dense_fan", test_dense_fan},
                                     {"crowd", test_crowd},
                                     {"evaluation", test_evaluation},
                                     {"poses", test_poses},
                                     {"statistics_long_launch", test_statistics_long_launch},
                                     {"rows_forms", test_rows_forms},
                                     {"mikk_bits", test_mikk_bits},
                                     {"locality", test_locality},
                                     {"device_size", test_device_size},
                                     {"reserve", test_reserve},
                                     {"cli_backend", test_cli_backend}};
    return SFT_RUN(cases, argc, argv);
}

// LABELS: unit
/* The per-vertex fast paths (src/core/skin.c, skin_body.h) against the scalar reference they replace: the same
 * bits for positions, normals, tangents and the report on every scene and glTF asset, every instruction set the
 * CPU has (jacobian, jacobian-fan and bone-normal-matrices too, the jacobians with and without their cap), odd vertex counts and
 * tails, every slot count, mirrored, singular and weightless vertices, morph
 * targets with and without direction deltas; the same bits for any order of the parallel chunks and any thread
 * count; no allocation per frame. Built for WebAssembly too (the wasm build's fastpath test, run under node): there
 * the level is SIMD128 in a module compiled with -msimd128, the glTF assets are left out (no glTF layer), and the
 * real threads of the thread counts run one after the other (sft_pool.c). */
#define _POSIX_C_SOURCE 200809L
#include "sf_internal.h"
#include "sf_kernels.h"
#include "mikk_terms.h"
#include "sf_test.h"
#include "sft_pool.h"
#ifndef __wasi__
#include "sft_assets.h"
#include "skinframe_gltf.h"
#endif
#include "skinframe_scenes.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct frame_bits {
    float *p, *n, *t, *dp; /* frames (3n, 3n, 4n) and sf_deform_positions (3n) */
    sf_frames_report rep;
    sf_result r;
} frame_bits;

static void frame_alloc(frame_bits* f, size_t n)
{
    size_t m = n ? n : 1;
    f->p = malloc(3 * m * sizeof(float));
    f->n = malloc(3 * m * sizeof(float));
    f->t = malloc(4 * m * sizeof(float));
    f->dp = malloc(3 * m * sizeof(float));
    /* NaN everywhere: an element the pass forgets to write shows */
    for (size_t i = 0; i < 3 * m; ++i) f->p[i] = f->n[i] = f->dp[i] = NAN;
    for (size_t i = 0; i < 4 * m; ++i) f->t[i] = NAN;
}

static void frame_free(frame_bits* f) { free(f->p), free(f->n), free(f->t), free(f->dp); }

static void frame_run_opts(const sf_topology* topo, const sf_pose* pose, sf_workspace* ws, sf_method m,
                           sf_frames_opts o, frame_bits* f)
{
    sf_frames_out out = {f->p, f->n, f->t};
    sf_error err;
    f->r = sf_frames_compute(topo, pose, m, &o, ws, &out, &err);
    sf_workspace_last_report(ws, &f->rep);
    CHECK_OK(sf_deform_positions(topo, pose, ws, f->dp, &err));
}

static void frame_run(const sf_topology* topo, const sf_pose* pose, sf_workspace* ws, sf_method m,
                      sf_morph_directions dirs, frame_bits* f)
{
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    o.morph_directions = dirs;
    frame_run_opts(topo, pose, ws, m, o, f);
}

/* The methods with fast paths and their options: the per-vertex ones, then recompute under every weighting and
 * weld (its face pass and gather, rebuild_body.h), then the jacobian and jacobian-fan with and without the cap
 * (jacobian_body.h, jacobian_fan_body.h; a cap of 0.05 fires on many vertices of every mesh). */
typedef struct fast_case {
    sf_method method;
    sf_weighting weighting;
    sf_weld weld;
    float cap;
    sf_tangent_mode tangents;
} fast_case;
static const fast_case fast_cases[] = {
    {SF_METHOD_UNCHANGED, SF_WEIGHTING_AREA, SF_WELD_NONE, 0.0f, SF_TANGENTS_UV},
    {SF_METHOD_SKINNED, SF_WEIGHTING_AREA, SF_WELD_NONE, 0.0f, SF_TANGENTS_UV},
    {SF_METHOD_INVERSE_TRANSPOSE, SF_WEIGHTING_AREA, SF_WELD_NONE, 0.0f, SF_TANGENTS_UV},
    {SF_METHOD_BONE_NORMAL_MATRICES, SF_WEIGHTING_AREA, SF_WELD_NONE, 0.0f, SF_TANGENTS_UV},
    {SF_METHOD_JACOBIAN, SF_WEIGHTING_AREA, SF_WELD_NONE, 0.0f, SF_TANGENTS_UV},
    {SF_METHOD_JACOBIAN, SF_WEIGHTING_AREA, SF_WELD_NONE, 0.05f, SF_TANGENTS_UV},
    {SF_METHOD_JACOBIAN, SF_WEIGHTING_AREA, SF_WELD_NONE, 4.0f, SF_TANGENTS_UV},
    {SF_METHOD_JACOBIAN_FAN, SF_WEIGHTING_AREA, SF_WELD_NONE, 0.0f, SF_TANGENTS_UV},
    {SF_METHOD_JACOBIAN_FAN, SF_WEIGHTING_AREA, SF_WELD_NONE, 0.05f, SF_TANGENTS_UV},
    {SF_METHOD_JACOBIAN_FAN, SF_WEIGHTING_AREA, SF_WELD_NONE, 4.0f, SF_TANGENTS_UV},
    {SF_METHOD_RECOMPUTE, SF_WEIGHTING_AREA, SF_WELD_NONE, 0.0f, SF_TANGENTS_UV},
    {SF_METHOD_RECOMPUTE, SF_WEIGHTING_ANGLE, SF_WELD_NONE, 0.0f, SF_TANGENTS_UV},
    {SF_METHOD_RECOMPUTE, SF_WEIGHTING_UNIFORM, SF_WELD_NONE, 0.0f, SF_TANGENTS_UV},
    {SF_METHOD_RECOMPUTE, SF_WEIGHTING_AREA, SF_WELD_POSITION, 0.0f, SF_TANGENTS_UV},
    {SF_METHOD_RECOMPUTE, SF_WEIGHTING_UNIFORM, SF_WELD_POSITION_NORMAL, 0.0f, SF_TANGENTS_UV},
    {SF_METHOD_RECOMPUTE, SF_WEIGHTING_ANGLE, SF_WELD_POSITION_NORMAL, 0.0f, SF_TANGENTS_UV},
    /* MikkTSpace's corner terms (mikk_terms_body.h) */
    {SF_METHOD_RECOMPUTE, SF_WEIGHTING_ANGLE, SF_WELD_NONE, 0.0f, SF_TANGENTS_MIKKTSPACE},
    {SF_METHOD_RECOMPUTE, SF_WEIGHTING_AREA, SF_WELD_POSITION_NORMAL, 0.0f, SF_TANGENTS_MIKKTSPACE},
};
#define FAST_CASES (sizeof fast_cases / sizeof fast_cases[0])

static int same_bits(const float* a, const float* b, size_t count, const char* what, const char* where)
{
    if (count && memcmp(a, b, count * sizeof(float)) == 0) return 1;
    if (!count) return 1;
    for (size_t i = 0; i < count; ++i) {
        uint32_t x, y;
        memcpy(&x, a + i, 4);
        memcpy(&y, b + i, 4);
        if (x != y) {
            sft_failf(__FILE__, __LINE__, "%s: %s element %zu: %.9g (0x%08x) against the scalar %.9g (0x%08x)", where,
                      what, i, (double)a[i], x, (double)b[i], y);
            return 0;
        }
    }
    return 1;
}

/* sfi_deform's arrays (what jacobian, bone-normal-matrices and the authored reference read) by the fast path
 * against the scalar loop, every morph-direction mode. */
static void compare_deform(const sf_topology* topo, const sf_pose* pose, sf_workspace* ws, const char* where)
{
    size_t n = sf_topology_vertex_count(topo);
    size_t m = n ? n : 1;
    float* ref = malloc(25 * m * sizeof(float));
    int top = sfi_simd_level(topo);
    for (int d = 0; d < 3; ++d) {
        sf_morph_directions dirs = d == 0 ? SF_MORPH_DIRECTIONS_DELTAS : d == 1 ? SF_MORPH_DIRECTIONS_NONE
                                                                                : SF_MORPH_DIRECTIONS_NORMALS;
        float* arrays[6] = {ws->morph_pos, ws->morph_nrm, ws->morph_tan, ws->blend, ws->det, ws->final_pos};
        const size_t sizes[6] = {3, 3, 3, 12, 1, 3};
        const char* names[6] = {"morph_pos", "morph_nrm", "morph_tan", "blend", "det", "final_pos"};
        sfi_simd_force(SFI_SIMD_SCALAR);
        sfi_deform(topo, pose, dirs, ws);
        size_t at = 0;
        for (int a = 0; a < 6; ++a) memcpy(ref + at, arrays[a], sizes[a] * n * sizeof(float)), at += sizes[a] * n;
        for (int level = SFI_SIMD_SSE2; level <= top; ++level) {
            for (int a = 0; a < 6; ++a)
                for (size_t i = 0; i < sizes[a] * n; ++i) arrays[a][i] = NAN;
            sfi_simd_force(level);
            sfi_deform(topo, pose, dirs, ws);
            CHECK(ws->deformed_dirs == (int)dirs);
            at = 0;
            for (int a = 0; a < 6; ++a) {
                char w[256];
                snprintf(w, sizeof w, "%s, sfi_deform, morph directions %d, level %d", where, (int)dirs, level);
                same_bits(arrays[a], ref + at, sizes[a] * n, names[a], w);
                at += sizes[a] * n;
            }
        }
    }
    sfi_simd_force(-1);
    free(ref);
}

/* The jacobians' blocked slots (jacobian_lanes.c). */
typedef struct slot_blocks {
    size_t blocked, csr, padded; /* blocks stored blocked, left to the CSR, blocked with a lane short of the rows */
} slot_blocks;

/* topo->jacobian_lanes (fan 0) or topo->fan_lanes (fan 1) against the gradients' CSR it copies: every block
 * blocked exactly when it has slots and its padded rows are at most twice them, its rows the largest slot count,
 * each lane's slots in order (SFK_REST_JOINT as the identity) with all their coefficients, and past a lane's count
 * (or vertex_count) the identity with coefficients of +0 bits; jacobian-fan's fan normals in every block. */
static slot_blocks check_slot_blocks(const sf_topology* topo, int fan, const char* where)
{
    slot_blocks c = {0, 0, 0};
    const sfi_gradients* g = fan ? topo->fan_gradients : topo->gradients;
    const sfi_jacobian_lanes* jl = fan ? &topo->fan_lanes : &topo->jacobian_lanes;
    size_t n = topo->vertex_count;
    if (!g || !jl->row_offsets) {
        if (g && topo->bone_count <= SFI_LANES_MAX_BONES && (fan || g->slot_offsets[n] > 0))
            sft_failf(__FILE__, __LINE__, "%s: no blocked slots", where);
        return c;
    }
    const uint16_t identity = (uint16_t)topo->bone_count;
    const uint32_t F = fan ? SFK_JACOBIAN_FAN_SLOT_FLOATS : 2u;
    if (jl->block_count != (n + SFI_LANES - 1) / SFI_LANES || jl->row_offsets[0] != 0 || jl->floats != F ||
        (fan && !jl->normal)) {
        sft_failf(__FILE__, __LINE__, "%s: %zu blocks from row %u, %u floats", where, jl->block_count,
                  jl->row_offsets[0], jl->floats);
        return c;
    }
    for (size_t v = 0; fan && v < n; ++v)
        for (int k = 0; k < 3; ++k) {
            float a = jl->normal[(v / SFI_LANES * 3 + (size_t)k) * SFI_LANES + v % SFI_LANES];
            if (memcmp(&a, g->fan_normal + 3 * v + k, 4) != 0) {
                sft_failf(__FILE__, __LINE__, "%s: vertex %zu's blocked fan normal", where, v);
                return c;
            }
        }
    for (size_t b = 0; b < jl->block_count; ++b) {
        size_t v0 = b * SFI_LANES, v1 = v0 + SFI_LANES < n ? v0 + SFI_LANES : n;
        uint32_t most = 0, rows = jl->row_offsets[b + 1] - jl->row_offsets[b];
        size_t slots = g->slot_offsets[v1] - g->slot_offsets[v0];
        for (size_t v = v0; v < v1; ++v)
            most = g->slot_offsets[v + 1] - g->slot_offsets[v] > most ? g->slot_offsets[v + 1] - g->slot_offsets[v] : most;
        int want = slots > 0 && (size_t)most * SFI_LANES <= 2 * slots;
        if (!want) {
            if (rows != 0) sft_failf(__FILE__, __LINE__, "%s: block %zu has %u rows, wanted the CSR", where, b, rows);
            c.csr += slots > 0;
            continue;
        }
        if (rows != most) {
            sft_failf(__FILE__, __LINE__, "%s: block %zu has %u rows for %u slots at most", where, b, rows, most);
            continue;
        }
        c.blocked++;
        int padded = 0, bad = 0;
        const uint16_t* J = jl->joint + (size_t)jl->row_offsets[b] * SFI_LANES;
        const float* C = jl->coef + F * (size_t)jl->row_offsets[b] * SFI_LANES;
        for (size_t l = 0; l < SFI_LANES; ++l) {
            size_t v = v0 + l;
            uint32_t count = v < n ? g->slot_offsets[v + 1] - g->slot_offsets[v] : 0;
            padded |= count < rows;
            for (uint32_t k = 0; k < rows; ++k) {
                uint16_t j = J[k * SFI_LANES + l], wj = identity;
                size_t e = k < count ? g->slot_offsets[v] + k : 0;
                if (k < count) wj = g->slot_joint[e] == SFK_REST_JOINT ? identity : (uint16_t)g->slot_joint[e];
                int same = j == wj;
                for (uint32_t f = 0; f < F; ++f) {
                    float got = C[(F * k + f) * SFI_LANES + l], expect = k < count ? g->slot_coef[F * e + f] : 0.0f;
                    same &= memcmp(&got, &expect, 4) == 0;
                }
                if (!bad && !same) {
                    sft_failf(__FILE__, __LINE__, "%s: block %zu lane %zu slot %u: joint %u, wanted %u (or a coefficient)",
                              where, b, l, k, j, wj);
                    bad = 1;
                }
            }
        }
        c.padded += padded;
    }
    return c;
}

/* Every per-vertex method and both morph-direction modes at every instruction set the CPU has, against the
 * scalar loops. Returns the number of comparisons made. */
/* An evaluation of the default methods at each level against the scalar loops, under both morph direction modes:
 * the reference and every row bit for bit, with their reports. At a fast level the reference leaves the whole
 * deform in the workspace (its marker says so) and the per-vertex rows (sfi_skin_frames_deformed) and the
 * jacobians' steps read it; the second mode caps the jacobians (0.05 fires on many vertices), so that lanes the
 * scalar kernel redoes take the deform read from the workspace too. */
static void compare_evaluation(const sf_topology* topo, const sf_pose* pose, sf_workspace* ws, const char* where)
{
    size_t n = sf_topology_vertex_count(topo);
    int top = sfi_simd_level(topo);
    for (int d = 0; d < 2; ++d) {
        sf_eval_desc desc;
        memset(&desc, 0, sizeof desc);
        desc.flags = SF_EVAL_KEEP_FRAMES;
        desc.method_opts.morph_directions = desc.reference_opts.morph_directions =
            d ? SF_MORPH_DIRECTIONS_NONE : SF_MORPH_DIRECTIONS_DELTAS;
        desc.method_opts.jacobian_cap = d ? 0.05f : 0.0f;
        sf_evaluation *ref = NULL, *ev = NULL;
        sf_error err;
        CHECK_OK(sf_evaluation_create(topo, &desc, NULL, &ref, &err));
        CHECK_OK(sf_evaluation_create(topo, &desc, NULL, &ev, &err));
        if (!ref || !ev) {
            sf_evaluation_destroy(ref);
            sf_evaluation_destroy(ev);
            return;
        }
        sfi_simd_force(SFI_SIMD_SCALAR);
        sf_result rr = sf_evaluation_run(ref, pose, ws, NULL, &err);
        const sf_eval_results *a = sf_evaluation_results(ref), *b = sf_evaluation_results(ev);
        for (int level = SFI_SIMD_SSE2; level <= top; ++level) {
            char w[256];
            snprintf(w, sizeof w, "%s, evaluation, %s, level %d", where, d ? "no direction deltas" : "direction deltas",
                     level);
            sfi_simd_force(level);
            ws->deformed_dirs = -1;
            sf_result r = sf_evaluation_run(ev, pose, ws, NULL, &err);
            if (r != rr) sft_failf(__FILE__, __LINE__, "%s: result %d against %d", w, (int)r, (int)rr);
            if (r != SF_OK || rr != SF_OK) continue;
            if (n && ws->deformed_dirs != (int)desc.reference_opts.morph_directions)
                sft_failf(__FILE__, __LINE__, "%s: the reference's deform was not left in the workspace", w);
            same_bits(b->positions, a->positions, 3 * n, "reference position", w);
            same_bits(b->reference_normals, a->reference_normals, 3 * n, "reference normal", w);
            same_bits(b->reference_tangents, a->reference_tangents, 4 * n, "reference tangent", w);
            for (size_t k = 0; k < a->row_count; ++k) {
                const sf_eval_row *x = &b->rows[k], *y = &a->rows[k];
                char rw[320];
                snprintf(rw, sizeof rw, "%s, row %s", w, sf_method_name(y->method));
                if (x->status != y->status) sft_failf(__FILE__, __LINE__, "%s: status %d against %d", rw, x->status, y->status);
                if (y->status != SF_OK) continue;
                same_bits(x->normals, y->normals, 3 * n, "normal", rw);
                same_bits(x->tangents, y->tangents, 4 * n, "tangent", rw);
                if (memcmp(&x->report, &y->report, sizeof x->report) != 0)
                    sft_failf(__FILE__, __LINE__, "%s: report differs (mirrored %zu singular %zu against %zu %zu)", rw,
                              x->report.mirrored_vertices, x->report.singular_vertices, y->report.mirrored_vertices,
                              y->report.singular_vertices);
            }
        }
        sfi_simd_force(-1);
        sf_evaluation_destroy(ref);
        sf_evaluation_destroy(ev);
    }
}

static int compare_levels(const sf_topology* topo, const sf_pose* pose, const char* where)
{
    size_t n = sf_topology_vertex_count(topo);
    sf_workspace* ws = NULL;
    sf_error err;
    if (sf_workspace_create(topo, NULL, &ws, &err) != SF_OK) {
        sft_failf(__FILE__, __LINE__, "%s: %s", where, err.message);
        return 0;
    }
    int top = sfi_simd_level(topo), compared = 0;
    check_slot_blocks(topo, 0, where);
    check_slot_blocks(topo, 1, where);
    compare_deform(topo, pose, ws, where);
    compare_evaluation(topo, pose, ws, where);
    for (size_t mi = 0; mi < FAST_CASES; ++mi)
        for (int d = 0; d < 2; ++d) {
            sf_frames_opts o;
            memset(&o, 0, sizeof o);
            o.morph_directions = d ? SF_MORPH_DIRECTIONS_NONE : SF_MORPH_DIRECTIONS_DELTAS;
            o.weighting = fast_cases[mi].weighting;
            o.weld = fast_cases[mi].weld;
            o.jacobian_cap = fast_cases[mi].cap;
            o.tangents = fast_cases[mi].tangents;
            frame_bits ref;
            frame_alloc(&ref, n);
            sfi_simd_force(SFI_SIMD_SCALAR);
            frame_run_opts(topo, pose, ws, fast_cases[mi].method, o, &ref);
            for (int level = SFI_SIMD_SSE2; level <= top; ++level) {
                char w[256];
                snprintf(w, sizeof w, "%s, %s (weighting %d, weld %d, cap %g, tangents %d), %s, level %d", where,
                         sf_method_name(fast_cases[mi].method), (int)o.weighting, (int)o.weld, (double)o.jacobian_cap,
                         (int)o.tangents,
                         d ? "no direction deltas" : "direction deltas", level);
                frame_bits f;
                frame_alloc(&f, n);
                sfi_simd_force(level);
                frame_run_opts(topo, pose, ws, fast_cases[mi].method, o, &f);
                if (f.r != ref.r) sft_failf(__FILE__, __LINE__, "%s: result %d against %d", w, (int)f.r, (int)ref.r);
                if (ref.r == SF_OK) {
                    same_bits(f.p, ref.p, 3 * n, "position", w);
                    same_bits(f.n, ref.n, 3 * n, "normal", w);
                    same_bits(f.t, ref.t, 4 * n, "tangent", w);
                    if (memcmp(&f.rep, &ref.rep, sizeof f.rep) != 0)
                        sft_failf(__FILE__, __LINE__,
                                  "%s: report mirrored %zu singular %zu degenerate %zu/%zu capped %zu against %zu %zu "
                                  "%zu/%zu %zu",
                                  w, f.rep.mirrored_vertices, f.rep.singular_vertices, f.rep.degenerate_normals,
                                  f.rep.degenerate_tangents, f.rep.jacobian_capped, ref.rep.mirrored_vertices,
                                  ref.rep.singular_vertices, ref.rep.degenerate_normals, ref.rep.degenerate_tangents,
                                  ref.rep.jacobian_capped);
                }
                same_bits(f.dp, ref.dp, 3 * n, "sf_deform_positions", w);
                frame_free(&f);
                compared++;
            }
            frame_free(&ref);
        }
    sfi_simd_force(-1);
    sf_workspace_destroy(ws);
    return compared;
}

static void every_scene(void)
{
    for (size_t s = 0; s < sf_scene_count(); ++s) {
        const sf_scene_info* info = sf_scene_info_at(s);
        /* every target at 0.6 so that the morph paths run */
        sf_scene_setting set[16];
        size_t k = 0;
        for (size_t t = 0; t < info->target_count && k < 16; ++t) set[k++] = (sf_scene_setting){info->targets[t], 0.6};
        sf_scene* sc = NULL;
        sf_error err;
        CHECK_OK(sf_scene_create(info->name, NULL, set, k, NULL, &sc, &err));
        if (!sc) continue;
        sf_topology* topo = NULL;
        sf_topology_opts o;
        memset(&o, 0, sizeof o);
        CHECK_OK(sf_topology_create(&sc->mesh, &o, NULL, &topo, &err));
        if (topo) CHECK(compare_levels(topo, &sc->pose, info->name) > 0 || sfi_simd_level(topo) == SFI_SIMD_SCALAR);
        sf_topology_destroy(topo);
        sf_scene_destroy(sc);
    }
}

#ifndef __wasi__
static void asset_primitive(const sf_topology* topo, const sf_pose* pose, const char* where, void* user)
{
    (void)user;
    compare_levels(topo, pose, where);
}

static void every_asset(void)
{
    if (!sft_each_staged_primitive(asset_primitive, NULL))
        sft_skip("no assets (SF_ASSETS unset)");
}
#endif

/* ---------------------------------------------------------------- synthetic meshes: counts, slots, edge cases */

static uint64_t g_rng = 12345;
static float frand(void) /* [-1, 1) */
{
    g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((double)(g_rng >> 40) / (double)(1ull << 24)) * 2.0f - 1.0f;
}

typedef struct synth {
    sf_mesh_desc d;
    sf_pose pose;
    float *pos, *nrm, *tan, *uv, *w, *bones, *alpha, *dp, *dn;
    uint32_t *idx, *j, *sparse;
    sf_morph_target_desc targets[2];
} synth;

/* n vertices in a strip of triangles, K slots (some zero, some vertices weightless), B bones of which some mirror,
 * one collapses (zero scale: singular) and one is far from unit scale; a dense and a sparse target. */
static size_t g_synth_bones = 6; /* synth_make's B (at least 5) */

static void synth_make(synth* s, size_t n, uint32_t K, int uvs)
{
    memset(s, 0, sizeof *s);
    size_t F = n >= 3 ? n - 2 : 0, B = g_synth_bones;
    s->pos = calloc(3 * n + 3, sizeof(float));
    s->nrm = calloc(3 * n + 3, sizeof(float));
    s->tan = calloc(4 * n + 4, sizeof(float));
    s->uv = calloc(2 * n + 2, sizeof(float));
    s->w = calloc(K * n + 1, sizeof(float));
    s->j = calloc(K * n + 1, sizeof(uint32_t));
    s->idx = calloc(3 * F + 3, sizeof(uint32_t));
    s->bones = calloc(12 * B, sizeof(float));
    s->alpha = calloc(2, sizeof(float));
    s->dp = calloc(3 * n + 3, sizeof(float));
    s->dn = calloc(3 * n + 3, sizeof(float));
    s->sparse = calloc(n + 1, sizeof(uint32_t));
    for (size_t v = 0; v < n; ++v) {
        s->pos[3 * v] = (float)((v / 2) % 512) + 0.1f * frand();
        s->pos[3 * v + 1] = (float)(v % 2) + 0.1f * frand();
        s->pos[3 * v + 2] = 0.1f * frand();
        for (int k = 0; k < 3; ++k) s->nrm[3 * v + k] = frand();
        if (v % 11 == 5) s->nrm[3 * v] = s->nrm[3 * v + 1] = s->nrm[3 * v + 2] = 0.0f; /* a zero normal */
        for (int k = 0; k < 3; ++k) s->tan[4 * v + k] = frand();
        s->tan[4 * v + 3] = v % 3 ? 1.0f : -1.0f;
        if (v % 17 == 9) { /* a tangent along the normal: none of it in the rest plane (the jacobian's fallback) */
            s->nrm[3 * v] = s->nrm[3 * v + 1] = s->tan[4 * v] = s->tan[4 * v + 1] = 0.0f;
            s->nrm[3 * v + 2] = s->tan[4 * v + 2] = 1.0f;
        }
        s->uv[2 * v] = s->pos[3 * v];
        s->uv[2 * v + 1] = s->pos[3 * v + 1];
        for (uint32_t i = 0; i < K; ++i) {
            s->j[K * v + i] = (uint32_t)((v * 7 + i * 3) % B);
            s->w[K * v + i] = (i + v) % 4 == 3 ? 0.0f : 0.5f + 0.5f * frand();
        }
        if (v % 13 == 7)
            for (uint32_t i = 0; i < K; ++i) s->w[K * v + i] = 0.0f; /* weightless: the rest pose */
        for (int k = 0; k < 3; ++k) s->dp[3 * v + k] = 0.2f * frand(), s->dn[3 * v + k] = 0.3f * frand();
    }
    for (size_t f = 0; f < F; ++f) {
        s->idx[3 * f] = (uint32_t)f;
        s->idx[3 * f + 1] = (uint32_t)(f % 2 ? f + 2 : f + 1);
        s->idx[3 * f + 2] = (uint32_t)(f % 2 ? f + 1 : f + 2);
    }
    for (size_t b = 0; b < B; ++b) {
        float* m = s->bones + 12 * b;
        for (int k = 0; k < 12; ++k) m[k] = 0.3f * frand();
        m[0] += 1.0f, m[4] += 1.0f, m[8] += 1.0f;
    }
    for (int k = 0; k < 3; ++k) s->bones[12 * 1 + k] *= -1.0f; /* bone 1 mirrors */
    for (int k = 0; k < 9; ++k) s->bones[12 * 2 + k] = 0.0f;   /* bone 2 collapses: singular alone */
    for (int k = 0; k < 9; ++k) s->bones[12 * 3 + k] *= 1e-5f; /* bone 3: det about 1e-15, below the threshold */
    /* bone 4: diag(1e5, 1e5, 1e-21), det 1e-11 (usable) and an inverse transpose of 1e21 along z */
    for (int k = 0; k < 9; ++k) s->bones[12 * 4 + k] = 0.0f;
    s->bones[12 * 4] = s->bones[12 * 4 + 4] = 1e5f;
    s->bones[12 * 4 + 8] = 1e-21f;
    size_t sparse = 0;
    for (size_t v = 0; v < n; v += 3) s->sparse[sparse++] = (uint32_t)v;
    s->targets[0].position_deltas = s->dp;
    s->targets[0].normal_deltas = s->dn;
    s->targets[1].position_deltas = s->dp;
    s->targets[1].tangent_deltas = s->dn;
    s->targets[1].sparse_indices = s->sparse;
    s->targets[1].sparse_count = sparse;
    s->alpha[0] = 0.7f;
    s->alpha[1] = -0.4f;
    sf_mesh_desc* d = &s->d;
    d->vertex_count = n;
    d->triangle_count = F;
    d->indices = s->idx;
    d->positions.data = s->pos;
    d->normals.data = s->nrm;
    d->tangents.data = s->tan;
    d->uvs.data = uvs ? s->uv : NULL;
    d->influence_count = K;
    d->joints = K ? s->j : NULL;
    d->weights = K ? s->w : NULL;
    d->bone_count = K ? B : 0;
    d->weight_policy = SF_WEIGHTS_RENORMALIZE;
    d->zero_weight_policy = SF_ZERO_WEIGHTS_REST;
    d->targets = s->targets;
    d->target_count = n ? 2 : 0;
    s->pose.bone_matrices = K ? s->bones : NULL;
    s->pose.bone_count = K ? B : 0;
    s->pose.morph_weights = n ? s->alpha : NULL;
    s->pose.morph_weight_count = n ? 2 : 0;
}

static void synth_free(synth* s)
{
    free(s->pos), free(s->nrm), free(s->tan), free(s->uv), free(s->w), free(s->j), free(s->idx), free(s->bones);
    free(s->alpha), free(s->dp), free(s->dn), free(s->sparse);
}

static void counts_and_slots(void)
{
    const size_t counts[] = {1, 2, 3, 4, 5, 7, 8, 9, 13, 15, 16, 17, 31, 33, 2047, 2049, 4103};
    const uint32_t slots[] = {0, 1, 2, 3, 4, 5, 8};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c)
        for (size_t k = 0; k < sizeof slots / sizeof slots[0]; ++k)
            for (int uvs = 0; uvs < 3; ++uvs) { /* 2: neither UVs nor tangents (the methods' tangent fallbacks) */
                synth s;
                synth_make(&s, counts[c], slots[k], uvs == 1);
                if (uvs == 2) s.d.tangents.data = NULL;
                sf_topology* topo = NULL;
                sf_topology_opts o;
                memset(&o, 0, sizeof o);
                sf_error err;
                CHECK_OK(sf_topology_create(&s.d, &o, NULL, &topo, &err));
                char where[128];
                snprintf(where, sizeof where, "%zu vertices, %u slots, %s", counts[c], slots[k],
                         uvs == 1 ? "uvs" : uvs ? "no uvs or tangents" : "no uvs");
                if (topo) compare_levels(topo, &s.pose, where);
                sf_topology_destroy(topo);
                synth_free(&s);
            }
}

/* Palettes on both sides of the sizes that change a fast path's way to its bones (jacobian-fan's AVX-512 slots
 * permute a palette of up to 32 records, the identity included, as rows, and gather from a larger one): every
 * level bit for bit the scalar reference. */
static void palette_sizes(void)
{
    const size_t bones[] = {15, 16, 30, 31, 32, 40};
    for (size_t b = 0; b < sizeof bones / sizeof bones[0]; ++b) {
        g_synth_bones = bones[b];
        synth s;
        synth_make(&s, 2049, 4, 1);
        sf_topology* topo = NULL;
        sf_error err;
        CHECK_OK(sf_topology_create(&s.d, NULL, NULL, &topo, &err));
        char where[64];
        snprintf(where, sizeof where, "%zu bones", bones[b]);
        if (topo) compare_levels(topo, &s.pose, where);
        sf_topology_destroy(topo);
        synth_free(&s);
    }
    g_synth_bones = 6;
}

/* The edge cases are there: mirrored, singular and degenerate vertices counted, and the rescaled branch taken. */
static void edge_cases_occur(void)
{
    synth s;
    synth_make(&s, 2049, 1, 1);
    sf_topology* topo = NULL;
    sf_error err;
    CHECK_OK(sf_topology_create(&s.d, NULL, NULL, &topo, &err));
    sf_workspace* ws = NULL;
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, &err));
    frame_bits f;
    frame_alloc(&f, 2049);
    frame_run(topo, &s.pose, ws, SF_METHOD_INVERSE_TRANSPOSE, SF_MORPH_DIRECTIONS_DELTAS, &f);
    CHECK(f.r == SF_OK);
    CHECK(f.rep.mirrored_vertices > 0);
    CHECK(f.rep.singular_vertices > 0);
    CHECK(f.rep.degenerate_normals > 0);
    /* bone 4's inverse makes |cof(A) n / det|^2 pass FLT_MAX somewhere: sfk_safe_unit's rescaled branch */
    const sf_topology* t = topo;
    int rescaled = 0;
    for (size_t v = 0; v < 2049 && !rescaled; ++v) {
        const float* m = s.bones + 12 * 4;
        if (t->joints[v] != 4 || t->weights[v] == 0.0f) continue;
        float c[3];
        sfk_mat_cofactor_dir(m, t->rest_normals + 3 * v, c);
        float d = sfk_mat_det(m), x = c[0] / d, y = c[1] / d, z = c[2] / d;
        rescaled = x * x + y * y + z * z > FLT_MAX;
    }
    CHECK(rescaled);
    /* the jacobian's cap fires on some vertices, not all (lanes of one step take both ways) */
    sf_frames_opts jo;
    memset(&jo, 0, sizeof jo);
    jo.jacobian_cap = 0.05f;
    frame_run_opts(topo, &s.pose, ws, SF_METHOD_JACOBIAN, jo, &f);
    CHECK(f.r == SF_OK);
    CHECK(f.rep.jacobian_capped > 0 && f.rep.jacobian_capped < 2049);
    frame_run_opts(topo, &s.pose, ws, SF_METHOD_JACOBIAN_FAN, jo, &f);
    CHECK(f.r == SF_OK);
    CHECK(f.rep.jacobian_capped > 0 && f.rep.jacobian_capped < 2049);
    frame_free(&f);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    synth_free(&s);
}

/* ---------------------------------------------------------------- the jacobian's blocked slots */

/* Blocks of both kinds on one mesh (the jacobian's slots or jacobian-fan's): every third block weighted by one bone but for its middle vertex (a few lanes
 * with slots: the CSR), the others random (blocked, some lanes short: weightless vertices, zero normals) with
 * mirrored vertices in every lane; an odd tail, both targets, the cap on and off; the scalar kernel's bits and
 * report at every level and for any split of the loop. */
static void slot_blocks_of(int fan)
{
    const sf_method method = fan ? SF_METHOD_JACOBIAN_FAN : SF_METHOD_JACOBIAN;
    const size_t n = 4103;
    const uint32_t K = 4;
    synth s;
    synth_make(&s, n, K, 1);
    for (size_t v = 0; v < n; ++v) {
        uint32_t one = (v / SFI_LANES) % 3 == 1 && v % SFI_LANES != 8 ? 0u : v % 5 == 2 ? 1u : UINT32_MAX;
        if (one != UINT32_MAX) /* one bone: 0 (no slots) or the mirroring 1 (mirrored vertices in every lane) */
            for (uint32_t i = 0; i < K; ++i) s.j[K * v + i] = one, s.w[K * v + i] = i == 0 ? 1.0f : 0.0f;
    }
    sf_topology* topo = NULL;
    sf_error err;
    CHECK_OK(sf_topology_create(&s.d, NULL, NULL, &topo, &err));
    if (!topo) return;
    slot_blocks c = check_slot_blocks(topo, fan, sf_method_name(method));
    CHECK(c.blocked > 0);
    CHECK(c.csr > 0);
    CHECK(c.padded > 0);
    CHECK(compare_levels(topo, &s.pose, sf_method_name(method)) > 0 || sfi_simd_level(topo) == SFI_SIMD_SCALAR);
    /* the scalar kernel's bits under every split of the loop, the cap on */
    sf_workspace* ws = NULL;
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, &err));
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    o.jacobian_cap = 0.05f;
    frame_bits ref;
    frame_alloc(&ref, n);
    sfi_simd_force(SFI_SIMD_SCALAR);
    frame_run_opts(topo, &s.pose, ws, method, o, &ref);
    sfi_simd_force(-1);
    CHECK(ref.rep.jacobian_capped > 0);
    CHECK(ref.rep.mirrored_vertices > 0);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    const sft_pool pools[] = {{0, 1}, {1, 1}, {2, 3}, {3, 1}};
    for (size_t p = 0; p < sizeof pools / sizeof pools[0]; ++p) {
        sf_env env = sft_pool_env(&pools[p]);
        CHECK_OK(sf_topology_create(&s.d, NULL, &env, &topo, &err));
        CHECK_OK(sf_workspace_create(topo, NULL, &ws, &err));
        for (int level = SFI_SIMD_SSE2; level <= sfi_simd_level(topo); ++level) {
            char where[128];
            snprintf(where, sizeof where, "%s slot blocks, pool mode %d, %d threads, level %d", sf_method_name(method),
                     pools[p].mode, pools[p].threads, level);
            frame_bits f;
            frame_alloc(&f, n);
            sfi_simd_force(level);
            frame_run_opts(topo, &s.pose, ws, method, o, &f);
            same_bits(f.n, ref.n, 3 * n, "normal", where);
            same_bits(f.t, ref.t, 4 * n, "tangent", where);
            CHECK(memcmp(&f.rep, &ref.rep, sizeof f.rep) == 0);
            frame_free(&f);
        }
        sfi_simd_force(-1);
        sf_workspace_destroy(ws);
        sf_topology_destroy(topo);
    }
    frame_free(&ref);
    synth_free(&s);
}

static void jacobian_slot_blocks(void)
{
    slot_blocks_of(0);
    slot_blocks_of(1);
}

/* The jacobian's fast path deforms in its own pass: a frame of it leaves the workspace's deform arrays and their
 * marker as they were, and what reads them afterwards (an evaluation's later rows under normal deltas only, which
 * take the scalar loops over ws) gets this pose's deform, pose after pose; the rows' positions are the
 * reference's. */
static void jacobian_fold_keeps_workspace(void)
{
    const size_t n = 4103; /* a partial last step at every level */
    synth s;
    synth_make(&s, n, 4, 1);
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    sf_error err;
    CHECK_OK(sf_topology_create(&s.d, NULL, NULL, &topo, &err));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, &err));
    if (!topo || !ws) return;
    const int top = sfi_simd_level(topo);
    CHECK(top == SFI_SIMD_SCALAR || sfi_jacobian_folds(topo, ws, SF_METHOD_JACOBIAN));
    CHECK(top == SFI_SIMD_SCALAR || sfi_jacobian_folds(topo, ws, SF_METHOD_JACOBIAN_FAN));
    float* bones_b = malloc(12 * 6 * sizeof(float));
    float alpha_b[2] = {-0.3f, 0.9f};
    for (int i = 0; i < 12 * 6; ++i) bones_b[i] = s.bones[i] + 0.05f * frand();
    sf_pose pose_b = s.pose;
    pose_b.bone_matrices = bones_b;
    pose_b.morph_weights = alpha_b;

    /* the arrays of pose A's deform, then a jacobian frame of pose B at every level */
    sfi_simd_force(SFI_SIMD_SCALAR);
    sfi_deform(topo, &s.pose, SF_MORPH_DIRECTIONS_DELTAS, ws);
    float* arrays[6] = {ws->morph_pos, ws->morph_nrm, ws->morph_tan, ws->blend, ws->det, ws->final_pos};
    const size_t sizes[6] = {3 * n, 3 * n, 3 * n, 12 * n, n, 3 * n};
    float* saved[6];
    for (int a = 0; a < 6; ++a) {
        saved[a] = malloc(sizes[a] * sizeof(float));
        memcpy(saved[a], arrays[a], sizes[a] * sizeof(float));
    }
    for (int level = SFI_SIMD_SSE2; level <= top; ++level) {
        frame_bits f;
        frame_alloc(&f, n);
        sfi_simd_force(level);
        sf_frames_out out = {f.p, f.n, f.t};
        CHECK_OK(sf_frames_compute(topo, &pose_b, SF_METHOD_JACOBIAN, NULL, ws, &out, &err));
        CHECK(sfi_jacobian_folds(topo, ws, SF_METHOD_JACOBIAN));
        for (int a = 0; a < 6; ++a) CHECK(memcmp(saved[a], arrays[a], sizes[a] * sizeof(float)) == 0);
        CHECK(ws->deformed_dirs == (int)SF_MORPH_DIRECTIONS_DELTAS);
        frame_free(&f);
    }
    for (int a = 0; a < 6; ++a) free(saved[a]);

    /* an evaluation whose rows after the jacobian read ws's deform: each row as its own frame on a fresh
       workspace, by the scalar loops */
    const sf_method methods[] = {SF_METHOD_JACOBIAN, SF_METHOD_INVERSE_TRANSPOSE, SF_METHOD_BONE_NORMAL_MATRICES,
                                 SF_METHOD_SKINNED, SF_METHOD_RECOMPUTE};
    const size_t rows = sizeof methods / sizeof methods[0];
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.methods = methods;
    desc.method_count = rows;
    desc.method_opts.morph_directions = SF_MORPH_DIRECTIONS_NORMALS;
    desc.flags = SF_EVAL_KEEP_FRAMES;
    sf_evaluation *ev = NULL, *ref_ev = NULL;
    CHECK_OK(sf_evaluation_create(topo, &desc, NULL, &ev, &err));
    CHECK_OK(sf_evaluation_create(topo, &desc, NULL, &ref_ev, &err));
    sf_workspace* fresh = NULL;
    CHECK_OK(sf_workspace_create(topo, NULL, &fresh, &err));
    const sf_pose* poses[3] = {&s.pose, &pose_b, &s.pose};
    for (int level = SFI_SIMD_SSE2; ev && ref_ev && fresh && level <= top; ++level)
        for (int run = 0; run < 2; ++run)
            for (int p = 0; p < 3; ++p) {
                sfi_simd_force(level);
                const sf_eval_results* res = sf_evaluation_results(ev);
                if (run == 0) {
                    CHECK_OK(sf_evaluation_run(ev, poses[p], ws, NULL, &err));
                } else { /* the rows' own positions against the reference's */
                    CHECK_OK(sf_evaluation_run(ref_ev, poses[p], fresh, NULL, &err));
                    CHECK_OK(sf_evaluation_run_against(ev, ref_ev, poses[p], ws, NULL, &err));
                    CHECK(res->rows[0].position.count == n && res->rows[0].position.max == 0.0);
                }
                sfi_simd_force(SFI_SIMD_SCALAR);
                for (size_t r = 0; r + 1 < rows; ++r) {
                    char where[96];
                    snprintf(where, sizeof where, "%s after a jacobian row, level %d, pose %d, run %d",
                             sf_method_name(methods[r]), level, p, run);
                    frame_bits f;
                    frame_alloc(&f, n);
                    frame_run_opts(topo, poses[p], fresh, methods[r], desc.method_opts, &f);
                    CHECK(res->rows[r].status == SF_OK);
                    if (res->rows[r].normals) same_bits(res->rows[r].normals, f.n, 3 * n, "normal", where);
                    if (res->rows[r].tangents) same_bits(res->rows[r].tangents, f.t, 4 * n, "tangent", where);
                    CHECK(res->rows[r].normals && res->rows[r].tangents);
                    frame_free(&f);
                }
            }
    sfi_simd_force(-1);
    sf_evaluation_destroy(ev);
    sf_evaluation_destroy(ref_ev);
    sf_workspace_destroy(fresh);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    free(bones_b);
    synth_free(&s);
}

/* ---------------------------------------------------------------- threads and chunk order */

static const sf_method per_vertex[6] = {SF_METHOD_UNCHANGED,           SF_METHOD_SKINNED,
                                        SF_METHOD_INVERSE_TRANSPOSE,   SF_METHOD_RECOMPUTE,
                                        SF_METHOD_BONE_NORMAL_MATRICES, SF_METHOD_JACOBIAN};
#define PER_VERTEX (sizeof per_vertex / sizeof per_vertex[0])

static void any_thread_count(void)
{
    synth s;
    synth_make(&s, 50001, 4, 1);
    sf_error err;
    frame_bits serial[PER_VERTEX];
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&s.d, NULL, NULL, &topo, &err));
    sf_workspace* ws = NULL;
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, &err));
    for (size_t m = 0; m < PER_VERTEX; ++m) {
        frame_alloc(&serial[m], 50001);
        frame_run(topo, &s.pose, ws, per_vertex[m], SF_MORPH_DIRECTIONS_DELTAS, &serial[m]);
    }
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    const sft_pool pools[] = {{0, 1}, {1, 1}, {2, 2}, {2, 3}, {2, 8}};
    for (size_t p = 0; p < sizeof pools / sizeof pools[0]; ++p) {
        sf_env env = sft_pool_env(&pools[p]);
        CHECK_OK(sf_topology_create(&s.d, NULL, &env, &topo, &err));
        CHECK_OK(sf_workspace_create(topo, NULL, &ws, &err));
        for (size_t m = 0; m < PER_VERTEX; ++m) {
            char where[96];
            snprintf(where, sizeof where, "%s, pool mode %d, %d threads", sf_method_name(per_vertex[m]),
                     pools[p].mode, pools[p].threads);
            frame_bits f;
            frame_alloc(&f, 50001);
            frame_run(topo, &s.pose, ws, per_vertex[m], SF_MORPH_DIRECTIONS_DELTAS, &f);
            same_bits(f.p, serial[m].p, 3 * 50001, "position", where);
            same_bits(f.n, serial[m].n, 3 * 50001, "normal", where);
            same_bits(f.t, serial[m].t, 4 * 50001, "tangent", where);
            same_bits(f.dp, serial[m].dp, 3 * 50001, "sf_deform_positions", where);
            CHECK(memcmp(&f.rep, &serial[m].rep, sizeof f.rep) == 0);
            frame_free(&f);
        }
        sf_workspace_destroy(ws);
        sf_topology_destroy(topo);
    }
    for (size_t m = 0; m < PER_VERTEX; ++m) frame_free(&serial[m]);
    synth_free(&s);
}

/* Frames allocate nothing: every array is the topology's or the workspace's. */
static void no_allocation_per_frame(void)
{
    synth s;
    synth_make(&s, 3001, 4, 1);
    sft_alloc_counter c;
    memset(&c, 0, sizeof c);
    sf_env env = sft_counting_env(&c);
    sf_error err;
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    CHECK_OK(sf_topology_create(&s.d, NULL, &env, &topo, &err));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, &err));
    frame_bits f;
    frame_alloc(&f, 3001);
    for (int level = SFI_SIMD_SCALAR; level <= sfi_simd_level(topo); ++level) {
        sfi_simd_force(level);
        size_t before = c.calls;
        for (int m = 0; m < SF_METHOD_COUNT; ++m) frame_run(topo, &s.pose, ws, (sf_method)m, SF_MORPH_DIRECTIONS_DELTAS, &f);
        CHECK(c.calls == before);
    }
    sfi_simd_force(-1);
    frame_free(&f);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    CHECK(c.live == 0);
    synth_free(&s);
}

/* More bones than the blocked copy's 16-bit joints hold: joints past 65535 (whose low 16 bits name other, different
 * bones) give the scalar loops' bits, the mesh taking those loops. */
static void more_bones_than_16_bits(void)
{
    synth s;
    synth_make(&s, 33, 2, 1);
    size_t B = 70000;
    float* bones = malloc(12 * B * sizeof(float));
    for (size_t b = 0; b < B; ++b) {
        for (int k = 0; k < 12; ++k) bones[12 * b + k] = 0.3f * frand();
        bones[12 * b] += 1.0f, bones[12 * b + 4] += 1.0f, bones[12 * b + 8] += 1.0f;
    }
    for (size_t i = 0; i < 2 * 33; ++i) s.j[i] += 65536u;
    s.d.bone_count = B;
    s.pose.bone_matrices = bones;
    s.pose.bone_count = B;
    sf_topology* topo = NULL;
    sf_error err;
    CHECK_OK(sf_topology_create(&s.d, NULL, NULL, &topo, &err));
    if (topo) {
        CHECK(topo->lanes.rest == NULL);
        CHECK(topo->jacobian_lanes.row_offsets == NULL);
        CHECK(compare_levels(topo, &s.pose, "70000 bones") > 0 || sfi_simd_level(topo) == SFI_SIMD_SCALAR);
    }
    sf_topology_destroy(topo);
    free(bones);
    synth_free(&s);
}

/* On x86-64 the fast path is taken (a CPU there has SSE2 at least), and in a WebAssembly module with SIMD128. */
static void level_detected(void)
{
    synth s;
    synth_make(&s, 9, 2, 1);
    sf_topology* topo = NULL;
    sf_error err;
    CHECK_OK(sf_topology_create(&s.d, NULL, NULL, &topo, &err));
#if defined(__x86_64__)
    CHECK(sfi_simd_level(topo) >= SFI_SIMD_SSE2);
#elif defined(__wasm_simd128__)
    CHECK(sfi_simd_level(topo) == SFI_SIMD_WASM128);
#endif
    sfi_simd_force(SFI_SIMD_SCALAR);
    CHECK(sfi_simd_level(topo) == SFI_SIMD_SCALAR);
    sfi_simd_force(-1);
    sf_topology_destroy(topo);
    synth_free(&s);
}


/* ---------------------------------------------------------------- MikkTSpace's corner terms and sums */

/* A float of random sign whose size spans 2^-140 .. 2^40, or an exact zero, infinity or NaN now and then: the
 * normalisations' every branch occurs (tiny, huge, kept zero, not finite). */
static float wild(void)
{
    float u = frand(), e = frand();
    if (e > 0.97f) return u > 0.0f ? 0.0f : (u > -0.5f ? INFINITY : NAN);
    return u * ldexpf(1.0f, (int)(e * 90.0f) - 50);
}

/* Every level's terms against the scalar's, bit for bit, over random corners: most ordinary (unit normals,
 * positions in a box), a tenth with wild components. */
static void mikk_terms_levels(void)
{
    enum { V = 301, F = 997 };
    float* P = malloc(3 * V * sizeof(float));
    float* N = malloc(3 * V * sizeof(float));
    float* os = malloc(3 * F * sizeof(float));
    uint32_t* idx = malloc(3 * F * sizeof(uint32_t));
    uint8_t* flags = malloc(F);
    float* ref = malloc(9 * F * sizeof(float));
    float* got = malloc(9 * F * sizeof(float));
    for (int round = 0; round < 20; ++round) {
        for (size_t i = 0; i < 3 * V; ++i) P[i] = frand() * 4.0f, N[i] = frand();
        for (size_t v = 0; v < V; ++v) sfk_mikk_normalize(N + 3 * v);
        for (size_t i = 0; i < 3 * F; ++i) os[i] = frand(), idx[i] = (uint32_t)((frand() + 1.0f) * 0.5f * V) % V;
        for (size_t f = 0; f < F; ++f) {
            sfk_mikk_normalize(os + 3 * f);
            flags[f] = frand() > 0.9f ? SFK_MIKK_ANY : 0u;
        }
        for (size_t i = 0; i < 3 * V; ++i)
            if (frand() > 0.9f) P[i] = wild(), N[i] = frand() > 0.5f ? wild() : N[i];
        for (size_t i = 0; i < 3 * F; ++i)
            if (frand() > 0.95f) os[i] = wild();
        if (round == 0) /* corners at one position: zero edges */
            for (size_t f = 0; f < 50; ++f) idx[3 * f + 1] = idx[3 * f];
        sfi_mikk_terms_job job = {flags, idx, P, N, os, ref};
        for (size_t i = 0; i < 9 * F; ++i) ref[i] = got[i] = 7.0f;
        sfi_mikk_terms_scalar(&job, 0, 3 * F);
        int top = sfi_simd_level_cpu();
        for (int level = SFI_SIMD_SSE2; level <= top; ++level) {
            job.terms = got;
            /* two ranges, the second starting mid-triangle */
            sfi_mikk_terms(level, &job, 0, 1001);
            sfi_mikk_terms(level, &job, 1001, 3 * F);
            char w[64];
            snprintf(w, sizeof w, "round %d, level %d", round, level);
            same_bits(got, ref, 9 * F, "MikkTSpace corner term", w);
        }
    }
    free(P), free(N), free(os), free(idx), free(flags), free(ref), free(got);
}

/* sfk_mikk_group_tangents adding the frame's terms (sfi_mikk_terms, this CPU's instruction set) against the
 * same computing each term itself, bit for bit: random groups of one to 12 corners at a shared normal, some
 * corners with the normal's bits elsewhere (another vertex), some usable-less, some tangents opposite
 * (sub-groups). */
static void mikk_group_sums(void)
{
    enum { V = 40, F = 12 };
    float P[3 * V], N[3 * V], os[3 * F], ot[3 * F], terms[9 * F], proj[6 * F], ref[12 * F], got[12 * F];
    uint32_t idx[3 * F], corners[F], members[F];
    uint8_t flags[F];
    for (int round = 0; round < 2000; ++round) {
        size_t k = 1 + (size_t)((frand() + 1.0f) * 6.0f) % F;
        float n[3] = {frand(), frand(), frand()};
        sfk_mikk_normalize(n);
        for (size_t i = 0; i < 3 * V; ++i) P[i] = frand();
        for (size_t v = 0; v < V; ++v) {
            if (frand() > 0.0f) memcpy(N + 3 * v, n, sizeof n);
            else N[3 * v] = frand(), N[3 * v + 1] = frand(), N[3 * v + 2] = frand(), sfk_mikk_normalize(N + 3 * v);
        }
        for (size_t f = 0; f < F; ++f) {
            for (int c = 0; c < 3; ++c) idx[3 * f + c] = (uint32_t)(3 * f + (size_t)c) % V;
            float sgn = frand() > 0.6f ? -1.0f : 1.0f; /* opposite tangents: sub-groups */
            for (int c = 0; c < 3; ++c) os[3 * f + c] = sgn * (c == 0 ? 1.0f : 0.3f * frand()), ot[3 * f + c] = frand();
            sfk_mikk_normalize(os + 3 * f), sfk_mikk_normalize(ot + 3 * f);
            flags[f] = frand() > 0.8f ? SFK_MIKK_ANY : 0u;
        }
        for (size_t i = 0; i < k; ++i) corners[i] = (uint32_t)(3 * i + (size_t)((frand() + 1.0f) * 1.5f) % 3);
        for (size_t i = 0; i < 12 * F; ++i) ref[i] = got[i] = 7.0f;
        sfk_mikk_group_tangents(flags, idx, P, N, os, ot, corners, k, n, round & 1, members, proj, NULL, ref);
        sfi_mikk_terms_job job = {flags, idx, P, N, os, terms};
        sfi_mikk_terms(sfi_simd_level_cpu(), &job, 0, 3 * F);
        sfk_mikk_group_tangents(flags, idx, P, N, os, ot, corners, k, n, round & 1, members, proj, terms, got);
        char w[32];
        snprintf(w, sizeof w, "round %d", round);
        same_bits(got, ref, 12 * F, "MikkTSpace group tangent", w);
    }
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"level_detected", level_detected},
        {"counts_and_slots", counts_and_slots},
        {"palette_sizes", palette_sizes},
        {"edge_cases_occur", edge_cases_occur},
        {"jacobian_slot_blocks", jacobian_slot_blocks},
        {"jacobian_fold_keeps_workspace", jacobian_fold_keeps_workspace},
        {"more_bones_than_16_bits", more_bones_than_16_bits},
        {"mikk_terms_levels", mikk_terms_levels},
        {"mikk_group_sums", mikk_group_sums},
        {"every_scene", every_scene},
#ifndef __wasi__
        {"every_asset", every_asset},
#endif
        {"any_thread_count", any_thread_count},
        {"no_allocation_per_frame", no_allocation_per_frame},
    };
    return SFT_RUN(cases, argc, argv);
}

// LABELS: unit;cli
/* recompute-fused against recompute: the same positions, normals, tangents and report bit for bit on every
 * built-in scene (presets, morph targets alone and together, coarse grids) and every staged glTF asset
 * (rest and animated poses), under every weighting, weld, tangent mode, morph-direction switch and
 * reference, for 1, 2 and 3 workers of the parallel-for hook and every instruction set (the chunked fast path,
 * the per-vertex kernel); shuffled synthetic grids about the chunk size; a workspace for it alone holds no
 * position buffer; its frames never allocate. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, opendir */
#include "sf_internal.h"
#include "sf_kernels.h"
#include "sf_test.h"
#include "skinframe_gltf.h"
#include "skinframe_scenes.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#define BIT(m) (1u << (m))
#define MAX_WORKERS 3

/* ---------------------------------------------------------------- the parallel-for hook */

/* `workers` workers take the chunks (<= grain) round-robin; they run one after another, the last first, each
 * its chunks in order: every interleaving a pool could give must give the same bits. */
static void workers_parallel_for(void* user, size_t count, size_t grain, sf_range_fn* fn, void* ctx)
{
    size_t workers = *(const int*)user;
    size_t chunk = (count + workers - 1) / workers;
    if (chunk > grain) chunk = grain;
    if (chunk == 0) chunk = 1;
    size_t chunks = (count + chunk - 1) / chunk;
    for (size_t w = workers; w-- > 0;)
        for (size_t c = w; c < chunks; c += workers) fn(ctx, c * chunk, (c + 1) * chunk < count ? (c + 1) * chunk : count);
}

static const int worker_counts[MAX_WORKERS] = {1, 2, 3};

/* One mesh under 1..3 workers: a topology and a full workspace each, and a workspace for recompute-fused only. */
typedef struct fixture {
    sf_env env[MAX_WORKERS];
    sf_topology* topo[MAX_WORKERS];
    sf_workspace* full[MAX_WORKERS];
    sf_workspace* small[MAX_WORKERS];
    size_t n;
    float* buf;     /* reference (serial recompute), then one output */
    float* corners; /* the reference's MikkTSpace corner tangents (12 per triangle) */
} fixture;

static int fixture_init(fixture* f, const sf_mesh_desc* mesh)
{
    memset(f, 0, sizeof *f);
    sf_error err;
    for (int k = 0; k < MAX_WORKERS; ++k) {
        f->env[k].threads.parallel_for = workers_parallel_for;
        f->env[k].threads.user = (void*)&worker_counts[k];
        sf_workspace_opts small = {BIT(SF_METHOD_RECOMPUTE_FUSED), SF_BACKEND_CPU};
        if (sf_topology_create(mesh, NULL, &f->env[k], &f->topo[k], &err) != SF_OK ||
            sf_workspace_create(f->topo[k], NULL, &f->full[k], &err) != SF_OK ||
            sf_workspace_create(f->topo[k], &small, &f->small[k], &err) != SF_OK) {
            sft_failf(__FILE__, __LINE__, "fixture: %s", err.message);
            return 0;
        }
    }
    f->n = mesh->vertex_count;
    f->buf = calloc(20 * (f->n ? f->n : 1), sizeof(float));
    f->corners = calloc(12 * mesh->triangle_count + 1, sizeof(float));
    return f->buf && f->corners;
}

static void fixture_free(fixture* f)
{
    for (int k = 0; k < MAX_WORKERS; ++k) {
        sf_workspace_destroy(f->full[k]);
        sf_workspace_destroy(f->small[k]);
        sf_topology_destroy(f->topo[k]);
    }
    free(f->buf);
    free(f->corners);
}

static int same_bits(const float* a, const float* b, size_t count, const char* label, const char* what)
{
    if (count == 0 || memcmp(a, b, count * sizeof(float)) == 0) return 1;
    for (size_t i = 0; i < count; ++i)
        if (memcmp(a + i, b + i, sizeof(float)) != 0) {
            sft_failf(__FILE__, __LINE__, "%s: %s element %zu: recompute %.9g, recompute-fused %.9g", label, what, i,
                      (double)a[i], (double)b[i]);
            break;
        }
    return 0;
}

static int same_report(const sf_frames_report* a, const sf_frames_report* b)
{
    return a->mirrored_vertices == b->mirrored_vertices && a->singular_vertices == b->singular_vertices &&
           a->degenerate_normals == b->degenerate_normals && a->degenerate_tangents == b->degenerate_tangents &&
           a->jacobian_capped == b->jacobian_capped;
}

/* What recompute-fused must run two-pass under these options on this mesh. */
static uint32_t expected_two_pass(const sf_topology* topo, const sf_frames_opts* o)
{
    if (o->reference == SF_REFERENCE_AUTHORED) return SF_FUSED_TWO_PASS_ALL;
    if (o->tangents == SF_TANGENTS_MIKKTSPACE && topo->mikk_uv_flags) return SF_FUSED_TWO_PASS_TANGENTS;
    return 0;
}

static size_t g_frames; /* pairs compared, for the summary line */
static int g_workers = MAX_WORKERS; /* worker counts tried: the first g_workers of worker_counts */
static int g_two_pass = 1;          /* also the options that run two-pass (MikkTSpace tangents, authored) */

/* recompute (serial) against recompute-fused under every worker count, on the full workspace and, where it
 * is one pass, on the small one. */
static int compare_frames(fixture* f, const sf_pose* pose, const sf_frames_opts* o, const char* label)
{
    size_t n = f->n;
    float *rp = f->buf, *rn = rp + 3 * n, *rt = rn + 3 * n;
    float *fp = rt + 4 * n, *fn = fp + 3 * n, *ft = fn + 3 * n;
    sf_error err;
    sf_frames_out ref = {rp, rn, rt};
    if (sf_frames_compute(f->topo[0], pose, SF_METHOD_RECOMPUTE, o, f->full[0], &ref, &err) != SF_OK) {
        sft_failf(__FILE__, __LINE__, "%s: recompute: %s", label, err.message);
        return 0;
    }
    sf_frames_report ref_rep;
    sf_workspace_last_report(f->full[0], &ref_rep);
    uint32_t two_pass = expected_two_pass(f->topo[0], o);
    size_t C = 3 * sf_topology_triangle_count(f->topo[0]);
    const float* ref_corners = two_pass == SF_FUSED_TWO_PASS_TANGENTS ? sfi_mikktspace_corner_tangents(f->full[0]) : NULL;
    if (ref_corners) memcpy(f->corners, ref_corners, 4 * C * sizeof(float));
    /* every instruction set this CPU has: the best (the chunked fast path) under every worker count, the others
     * (the scalar kernel per vertex) once */
    int best = sfi_simd_detect();
    for (int level = best; level >= SFI_SIMD_SCALAR; --level)
    for (int k = 0; k < g_workers; ++k) {
        for (int small = 0; small < 2; ++small) {
            /* the fused-only workspace once; two-pass options under one worker (their tangents are
             * recompute's own code; the fused normals' chunking is shown by the one-pass options) */
            if ((small && (two_pass || k > 0)) || (two_pass && k > 0)) continue;
            if (level < best && (k > 0 || small || two_pass)) continue;
            sf_workspace* ws = small ? f->small[k] : f->full[k];
            memset(fp, 0xff, 10 * n * sizeof(float)); /* NaN: every element must be written */
            sf_frames_out out = {fp, fn, ft};
            sfi_simd_force(level);
            sf_result fr = sf_frames_compute(f->topo[k], pose, SF_METHOD_RECOMPUTE_FUSED, o, ws, &out, &err);
            sfi_simd_force(-1);
            if (fr != SF_OK) {
                sft_failf(__FILE__, __LINE__, "%s: recompute-fused: %s", label, err.message);
                return 0;
            }
            sf_frames_report rep;
            sf_workspace_last_report(ws, &rep);
            char what[1400];
            snprintf(what, sizeof what, "%s, %d worker(s)%s, instruction set %d", label, worker_counts[k],
                     small ? ", fused-only workspace" : "", level);
            if (!same_bits(rp, fp, 3 * n, what, "positions") || !same_bits(rn, fn, 3 * n, what, "normals") ||
                !same_bits(rt, ft, 4 * n, what, "tangents"))
                return 0;
            /* MikkTSpace: the corner tangents of its two-pass tangents too */
            if (ref_corners && !same_bits(f->corners, sfi_mikktspace_corner_tangents(ws), 4 * C, what, "corner tangents"))
                return 0;
            if (!same_report(&ref_rep, &rep) || rep.fused_two_pass != two_pass) {
                sft_failf(__FILE__, __LINE__, "%s: report differs (two-pass %u, expected %u)", what,
                          (unsigned)rep.fused_two_pass, (unsigned)two_pass);
                return 0;
            }
            g_frames++;
        }
    }
    return 1;
}

/* Every option set (weighting x weld x tangents x morph directions x reference) on one mesh and pose. */
static int compare_all_options(fixture* f, const sf_pose* pose, const char* name)
{
    for (int w = 0; w <= SF_WEIGHTING_UNIFORM; ++w)
        for (int weld = 0; weld <= SF_WELD_POSITION_NORMAL; ++weld)
            for (int tm = 0; tm <= SF_TANGENTS_MIKKTSPACE; ++tm)
                for (int md = 0; md <= SF_MORPH_DIRECTIONS_NONE; ++md)
                    for (int ref = 0; ref <= SF_REFERENCE_AUTHORED; ++ref) {
                        sf_frames_opts o;
                        memset(&o, 0, sizeof o);
                        o.weighting = (sf_weighting)w;
                        o.weld = (sf_weld)weld;
                        o.tangents = (sf_tangent_mode)tm;
                        o.morph_directions = (sf_morph_directions)md;
                        o.reference = (sf_reference)ref;
                        if (!g_two_pass && (tm || ref)) continue;
                        char label[1200];
                        snprintf(label, sizeof label, "%s [weighting %d, weld %d, tangents %d, directions %d, reference %d]",
                                 name, w, weld, tm, md, ref);
                        if (!compare_frames(f, pose, &o, label)) return 0;
                    }
    return 1;
}

/* ---------------------------------------------------------------- built-in scenes */

static int scene_case(const char* name, const char* preset, const sf_scene_setting* s, size_t count, const char* label)
{
    sf_scene* scene = NULL;
    sf_error err;
    if (sf_scene_create(name, preset, s, count, NULL, &scene, &err) != SF_OK) {
        sft_failf(__FILE__, __LINE__, "%s: %s", label, err.message);
        return 0;
    }
    fixture f;
    int ok = fixture_init(&f, &scene->mesh) && compare_all_options(&f, &scene->pose, label);
    fixture_free(&f);
    sf_scene_destroy(scene);
    return ok;
}

static void test_every_scene(void)
{
    g_frames = 0;
    size_t cases = 0;
    for (size_t i = 0; i < sf_scene_count(); ++i) {
        const sf_scene_info* info = sf_scene_info_at(i);
        char label[256];
        /* rest, every preset */
        snprintf(label, sizeof label, "%s at rest", info->name);
        CHECK(scene_case(info->name, NULL, NULL, 0, label));
        cases++;
        for (size_t p = 0; p < info->preset_count; ++p) {
            snprintf(label, sizeof label, "%s --preset %s", info->name, info->presets[p].name);
            CHECK(scene_case(info->name, info->presets[p].name, NULL, 0, label));
            cases++;
        }
        /* each morph target alone (sparse where it is local), then all of them on top of the first preset */
        sf_scene_setting all[16];
        size_t na = 0;
        for (size_t t = 0; t < info->target_count && t < 15; ++t) {
            sf_scene_setting one = {info->targets[t], 0.8};
            snprintf(label, sizeof label, "%s --morph %s=0.8", info->name, info->targets[t]);
            CHECK(scene_case(info->name, NULL, &one, 1, label));
            cases++;
            all[na].name = info->targets[t];
            all[na++].value = t % 2 ? -0.6 : 0.7;
        }
        /* a coarse grid: order-one weight changes across an edge */
        bool grid = false;
        for (size_t p = 0; p < info->param_count; ++p) grid |= strcmp(info->params[p].name, "resolution") == 0;
        if (grid) all[na].name = "resolution", all[na++].value = 3;
        if (na) {
            snprintf(label, sizeof label, "%s --preset %s, every target%s", info->name,
                     info->preset_count ? info->presets[0].name : "(none)", grid ? ", resolution 3" : "");
            CHECK(scene_case(info->name, info->preset_count ? info->presets[0].name : NULL, all, na, label));
            cases++;
        }
    }
    printf("  %zu scene cases, %zu frame pairs bit for bit\n", cases, g_frames);
}

/* ---------------------------------------------------------------- staged glTF assets */

/* Every .glb / .gltf under dir (recursively), up to max. */
static size_t find_assets(const char* dir, char (*out)[1024], size_t count, size_t max)
{
    DIR* d = opendir(dir);
    if (!d) return count;
    struct dirent* e;
    while ((e = readdir(d)) != NULL && count < max) {
        if (e->d_name[0] == '.') continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len = strlen(e->d_name);
        if ((len > 4 && strcmp(e->d_name + len - 4, ".glb") == 0) || (len > 5 && strcmp(e->d_name + len - 5, ".gltf") == 0)) {
            snprintf(out[count++], 1024, "%s", path);
            continue;
        }
        DIR* sub = opendir(path);
        if (sub) {
            closedir(sub);
            count = find_assets(path, out, count, max);
        }
    }
    closedir(d);
    return count;
}

/* Rest, the first animation at three times, every other at its middle. */
static int asset_frames(fixture* f, sf_gltf* g, sf_gltf_pose* gp, size_t in, const sf_gltf_mesh* gm, const char* label)
{
    const sf_gltf_instance* inst = &g->instances[in];
    float* bones = calloc(12 * inst->bone_count + 1, sizeof(float));
    float* morph = calloc(gm->target_count + 1, sizeof(float));
    int ok = bones && morph;
    for (size_t a = 0; ok && a <= g->animation_count; ++a) {
        size_t anim = a == 0 ? SF_GLTF_NONE : a - 1;
        int steps = a == 0 ? 1 : a == 1 ? 3 : 1; /* the first animation at its start, middle and end */
        for (int step = 0; ok && step < steps; ++step) {
            double u = steps == 1 ? 0.5 : 0.5 * step;
            double t = anim == SF_GLTF_NONE ? 0.0
                                            : g->animations[anim].start_s +
                                                  u * (g->animations[anim].end_s - g->animations[anim].start_s);
            /* every option and worker count at rest and in the middle of the first animation; elsewhere one
             * worker (the sums per vertex do not depend on the chunking: shown there) and the one-pass options
             * (the two-pass ones run recompute's own code: shown there) */
            int full = a == 0 || (a == 1 && step == 1);
            g_workers = full ? MAX_WORKERS : 1;
            g_two_pass = full;
            ok = sf_gltf_pose_sample(gp, anim, t, NULL) == SF_OK &&
                 sf_gltf_pose_instance(gp, in, bones, morph, NULL, NULL) == SF_OK;
            sf_pose pose = {bones, inst->bone_count, gm->target_count ? morph : NULL, gm->target_count};
            char what[700];
            snprintf(what, sizeof what, "%s, animation %zu at %.3f s", label, a, t);
            ok = ok && compare_all_options(f, &pose, what);
        }
    }
    g_workers = MAX_WORKERS;
    g_two_pass = 1;
    free(bones);
    free(morph);
    return ok;
}

static void test_every_asset(void)
{
    char root[1024];
    if (!sft_asset("gltf", root, sizeof root)) {
        sft_skip("no test assets (SF_ASSETS unset)");
        return;
    }
    static char paths[64][1024];
    size_t count = find_assets(root, paths, 0, 64);
    CHECK(count >= 10); /* the staged Khronos samples */
    g_frames = 0;
    size_t primitives = 0;
    for (size_t i = 0; i < count; ++i) {
        sf_gltf* g = NULL;
        sf_error err;
        if (sf_gltf_load_file(paths[i], NULL, NULL, &g, &err) != SF_OK) {
            sft_failf(__FILE__, __LINE__, "%s: %s", paths[i], err.message);
            continue;
        }
        sf_gltf_pose* gp = NULL;
        CHECK_OK(sf_gltf_pose_create(g, NULL, &gp, NULL));
        for (size_t in = 0; in < g->instance_count; ++in) {
            const sf_gltf_mesh* gm = &g->meshes[g->instances[in].mesh];
            for (size_t p = 0; p < gm->primitive_count; ++p) {
                sf_mesh_desc mesh;
                CHECK_OK(sf_gltf_instance_mesh(g, in, gm->first_primitive + p, &mesh, NULL));
                char label[512];
                snprintf(label, sizeof label, "%s instance %zu primitive %zu", strrchr(paths[i], '/') + 1, in, p);
                fixture f;
                int ok = fixture_init(&f, &mesh) && asset_frames(&f, g, gp, in, gm, label);
                fixture_free(&f);
                CHECK(ok);
                primitives++;
            }
        }
        sf_gltf_pose_destroy(gp);
        sf_gltf_destroy(g);
    }
    printf("  %zu assets, %zu primitive instances, %zu frame pairs bit for bit\n", count, primitives, g_frames);
}

/* ---------------------------------------------------------------- workspace, allocation, evaluation */

static sf_scene* twisted_sheet(int resolution)
{
    sf_scene_setting s[] = {{"resolution", resolution}, {"twist", 150}, {"bend", 70}, {"ripples", 0.6}};
    sf_scene* scene = NULL;
    sf_error err;
    if (sf_scene_create("sheet", NULL, s, sizeof s / sizeof s[0], NULL, &scene, &err) != SF_OK)
        sft_failf(__FILE__, __LINE__, "sheet: %s", err.message);
    return scene;
}

/* A workspace for recompute-fused alone holds the determinants and, for the fast path, a bounded scratch (at most
 * SFI_FUSED_SLOTS chunks' vertices and faces, whatever the mesh's size): no position buffer, no face arrays. */
static void test_workspace_is_small(void)
{
    sf_scene* scene = twisted_sheet(32);
    CHECK(scene);
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&scene->mesh, NULL, NULL, &topo, NULL));
    size_t n = sf_topology_vertex_count(topo);
    sf_workspace_opts fused = {BIT(SF_METHOD_RECOMPUTE_FUSED), SF_BACKEND_CPU};
    sf_workspace_opts rec = {BIT(SF_METHOD_RECOMPUTE), SF_BACKEND_CPU};
    size_t fused_bytes = sf_workspace_size(topo, &fused), rec_bytes = sf_workspace_size(topo, &rec);
    printf("  %zu vertices: workspace %zu bytes for recompute-fused (%.1f per vertex), %zu for recompute (%.1f)\n", n,
           fused_bytes, (double)fused_bytes / (double)n, rec_bytes, (double)rec_bytes / (double)n);
    CHECK(fused_bytes > sizeof(sf_workspace));
    const sfi_fused_plan* plan = &topo->fused;
    size_t slots = 1; /* serial: one slot takes every chunk */
    /* the slots and the bones' palette of the per-vertex fast path */
    size_t scratch = topo->simd_level >= SFI_SIMD_SSE2 ? slots * (4 * plan->max_verts + 4 + 12 * plan->max_faces) +
                                                             16 * (topo->bone_count + 1)
                                                       : 0;
    CHECK(plan->chunk_count == (n + plan->chunk - 1) / plan->chunk);
    /* one float per vertex and the slots */
    CHECK(fused_bytes - sizeof(sf_workspace) <= (n + scratch) * sizeof(float) + 3 * 64);
    CHECK(4 * fused_bytes < rec_bytes); /* a fraction of recompute's */
    /* a chunk lists its own vertices and the faces they gather, and little beyond them on this sheet */
    CHECK(plan->max_verts >= plan->chunk && plan->max_verts < 2 * plan->chunk);
    CHECK(plan->max_faces < 3 * plan->chunk);
    /* what create allocates is what size says */
    sft_alloc_counter a = {0};
    sf_env env = sft_counting_env(&a);
    sf_topology* counted = NULL;
    CHECK_OK(sf_topology_create(&scene->mesh, NULL, &env, &counted, NULL));
    size_t before = a.bytes;
    sf_workspace* ws = NULL;
    CHECK_OK(sf_workspace_create(counted, &fused, &ws, NULL));
    CHECK(a.bytes - before == fused_bytes);
    CHECK(ws->final_pos == NULL && ws->face_n == NULL && ws->blend == NULL);
    CHECK(ws->fused_slots == (topo->simd_level >= SFI_SIMD_SSE2 ? slots : 0));
    /* positions alone through it: the deform's bits */
    float* p = calloc(6 * n, sizeof(float));
    CHECK(p);
    sf_workspace* full = NULL;
    CHECK_OK(sf_workspace_create(counted, NULL, &full, NULL));
    CHECK_OK(sf_deform_positions(counted, &scene->pose, full, p, NULL));
    CHECK_OK(sf_deform_positions(counted, &scene->pose, ws, p + 3 * n, NULL));
    CHECK(memcmp(p, p + 3 * n, 3 * n * sizeof(float)) == 0);
    free(p);
    sf_workspace_destroy(full);
    sf_workspace_destroy(ws);
    sf_topology_destroy(counted);
    CHECK(a.allocations == a.frees);
    sf_topology_destroy(topo);
    sf_scene_destroy(scene);
}

/* What cannot be one pass needs recompute's scratch: a fused-only workspace refuses it, naming the workspace. */
static void test_two_pass_needs_recompute_scratch(void)
{
    sf_scene* scene = twisted_sheet(4);
    CHECK(scene);
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&scene->mesh, NULL, NULL, &topo, NULL));
    sf_workspace_opts only = {BIT(SF_METHOD_RECOMPUTE_FUSED), SF_BACKEND_CPU};
    sf_workspace* ws = NULL;
    CHECK_OK(sf_workspace_create(topo, &only, &ws, NULL));
    size_t n = sf_topology_vertex_count(topo);
    float* buf = calloc(7 * n, sizeof(float));
    CHECK(buf);
    sf_frames_out out = {NULL, buf, buf + 3 * n};
    for (int k = 0; k < 2; ++k) {
        sf_frames_opts o;
        memset(&o, 0, sizeof o);
        if (k == 0) o.tangents = SF_TANGENTS_MIKKTSPACE;
        else o.reference = SF_REFERENCE_AUTHORED;
        sf_error err;
        CHECK_RESULT(sf_frames_compute(topo, &scene->pose, SF_METHOD_RECOMPUTE_FUSED, &o, ws, &out, &err),
                     SF_ERROR_INVALID_ARGUMENT);
        CHECK(strcmp(err.field, "workspace") == 0 && strstr(err.message, "recompute") != NULL);
    }
    /* MikkTSpace without tangents asked for is one pass */
    sf_frames_opts mikk;
    memset(&mikk, 0, sizeof mikk);
    mikk.tangents = SF_TANGENTS_MIKKTSPACE;
    sf_frames_out normals_only = {NULL, buf, NULL};
    CHECK_OK(sf_frames_compute(topo, &scene->pose, SF_METHOD_RECOMPUTE_FUSED, &mikk, ws, &normals_only, NULL));
    sf_frames_report rep;
    sf_workspace_last_report(ws, &rep);
    CHECK(rep.fused_two_pass == 0);
    free(buf);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    sf_scene_destroy(scene);
}

/* Frames never allocate (a counting allocator around every option set, both workspaces). */
static void test_frames_do_not_allocate(void)
{
    sf_scene* scene = twisted_sheet(8);
    CHECK(scene);
    sft_alloc_counter a = {0};
    sf_env env = sft_counting_env(&a);
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&scene->mesh, NULL, &env, &topo, NULL));
    sf_workspace_opts only = {BIT(SF_METHOD_RECOMPUTE_FUSED), SF_BACKEND_CPU};
    sf_workspace *full = NULL, *small = NULL;
    CHECK_OK(sf_workspace_create(topo, NULL, &full, NULL));
    CHECK_OK(sf_workspace_create(topo, &only, &small, NULL));
    size_t n = sf_topology_vertex_count(topo);
    float* buf = calloc(10 * n, sizeof(float));
    CHECK(buf);
    sf_frames_out out = {buf, buf + 3 * n, buf + 6 * n};
    size_t before = a.calls;
    for (int k = 0; k < 3 * 3 * 2 * 2; ++k) {
        sf_frames_opts o;
        memset(&o, 0, sizeof o);
        o.weighting = (sf_weighting)(k % 3);
        o.weld = (sf_weld)(k / 3 % 3);
        o.tangents = (sf_tangent_mode)(k / 9 % 2);
        o.reference = (sf_reference)(k / 18);
        CHECK_OK(sf_frames_compute(topo, &scene->pose, SF_METHOD_RECOMPUTE_FUSED, &o, full, &out, NULL));
        if (!expected_two_pass(topo, &o))
            CHECK_OK(sf_frames_compute(topo, &scene->pose, SF_METHOD_RECOMPUTE_FUSED, &o, small, &out, NULL));
    }
    CHECK(a.calls == before);
    free(buf);
    sf_workspace_destroy(small);
    sf_workspace_destroy(full);
    sf_topology_destroy(topo);
    CHECK(a.allocations == a.frees);
    sf_scene_destroy(scene);
}

/* The fast path runs where the CPU has one, and only there: a frame writes slots (poisoned with NaN before),
 * and under the scalar cap leaves them as they were; both give recompute's bits. */
static void test_fast_path_runs(void)
{
    sf_scene* scene = twisted_sheet(32);
    CHECK(scene);
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    CHECK_OK(sf_topology_create(&scene->mesh, NULL, NULL, &topo, NULL));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    if (topo->simd_level < SFI_SIMD_SSE2) {
        sft_skip("no fast path on this CPU");
    } else {
        size_t n = sf_topology_vertex_count(topo);
        CHECK(topo->fused.chunk_count >= 2 && ws->fused_slots == 1 && ws->fused_scratch);
        float* buf = calloc(20 * n, sizeof(float));
        CHECK(buf);
        sf_frames_out ref = {buf, buf + 3 * n, buf + 6 * n}, out = {buf + 10 * n, buf + 13 * n, buf + 16 * n};
        sf_frames_opts o;
        memset(&o, 0, sizeof o);
        CHECK_OK(sf_frames_compute(topo, &scene->pose, SF_METHOD_RECOMPUTE, &o, ws, &ref, NULL));
        size_t floats = ws->fused_slots * ws->fused_slot_floats;
        for (int level = SFI_SIMD_SCALAR; level <= topo->simd_level; ++level) {
            memset(ws->fused_scratch, 0xff, floats * sizeof(float));
            sfi_simd_force(level);
            CHECK_OK(sf_frames_compute(topo, &scene->pose, SF_METHOD_RECOMPUTE_FUSED, &o, ws, &out, NULL));
            sfi_simd_force(-1);
            CHECK(memcmp(buf, buf + 10 * n, 10 * n * sizeof(float)) == 0);
            /* a slot's first vertices are the own ones of a chunk it took (slots take chunks as they finish
             * them: which slots took any depends on the threads) */
            size_t written = 0, whole = 0;
            for (size_t s = 0; s < ws->fused_slots; ++s) {
                size_t mine = 0;
                for (size_t i = 0; i < 4 * 16; ++i) mine += ws->fused_scratch[s * ws->fused_slot_floats + i] ==
                                                            ws->fused_scratch[s * ws->fused_slot_floats + i];
                written += mine;
                whole += mine == 4 * 16;
            }
            CHECK(level >= SFI_SIMD_SSE2 ? whole >= 1 && written == whole * 4 * 16 : written == 0);
        }
        free(buf);
    }
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    sf_scene_destroy(scene);
}

/* ---------------------------------------------------------------- chunk edges: synthetic meshes */

static uint64_t g_rng = 0x2545F4914F6CDD1Dull;
static float frand(void) /* [-1, 1) */
{
    g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((double)(g_rng >> 40) / (double)(1ull << 24)) * 2.0f - 1.0f;
}

/* The numbers 0 .. n-1 (malloc'd), shuffled by frand when asked. */
static uint32_t* numbering(size_t n, int shuffle)
{
    uint32_t* perm = malloc((n ? n : 1) * sizeof(uint32_t));
    if (!perm) return NULL;
    for (size_t v = 0; v < n; ++v) perm[v] = (uint32_t)v;
    for (size_t v = n; shuffle && v > 1; --v) {
        size_t k = (size_t)((frand() + 1.0f) * 0.5f * (float)v) % v;
        uint32_t t = perm[v - 1];
        perm[v - 1] = perm[k], perm[k] = t;
    }
    return perm;
}

/* A (W+1) x (H+1) grid bent over 3 bones (one mirrors), a UV seam down its middle (the right half's faces use
 * copies of the seam's vertices: weld groups), one vertex in no face, and the vertex numbers shuffled so a chunk's
 * faces reach vertices and weld partners anywhere in the mesh. */
typedef struct shuffled {
    sf_mesh_desc d;
    sf_pose pose;
    float *pos, *nrm, *uv, *w, bones[36];
    uint32_t *idx, *j;
} shuffled;

static void shuffled_make(shuffled* s, size_t W, size_t H, int shuffle)
{
    memset(s, 0, sizeof *s);
    size_t grid = (W + 1) * (H + 1), seam = H + 1, n = grid + seam + 1, F = 2 * W * H;
    s->pos = calloc(3 * n, sizeof(float));
    s->nrm = calloc(3 * n, sizeof(float));
    s->uv = calloc(2 * n, sizeof(float));
    s->w = calloc(2 * n, sizeof(float));
    s->j = calloc(2 * n, sizeof(uint32_t));
    s->idx = calloc(3 * F, sizeof(uint32_t));
    uint32_t* perm = numbering(n, shuffle);
    size_t mid = W / 2;
    for (size_t v = 0; v < n; ++v) {
        size_t g = v < grid ? v : v < grid + seam ? (v - grid) * (W + 1) + mid : 0; /* seam copies, the loner */
        float x = (float)(g % (W + 1)), y = (float)(g / (W + 1));
        uint32_t p = perm[v];
        s->pos[3 * p] = x + 0.05f * frand();
        s->pos[3 * p + 1] = y + 0.05f * frand();
        s->pos[3 * p + 2] = 0.3f * sinf(0.7f * x) * cosf(0.4f * y);
        if (v == n - 1) s->pos[3 * p + 2] += 5.0f;
        /* the seam's copies turned away: a hard edge (position groups join them, position+normal ones not) */
        s->nrm[3 * p] = v >= grid ? 0.5f : 0.05f * frand();
        s->nrm[3 * p + 1] = 0.05f * frand();
        s->nrm[3 * p + 2] = v >= grid ? 0.8f : 1.0f;
        s->uv[2 * p] = x / (float)(W + 1) + (v >= grid ? 0.5f : 0.0f);
        s->uv[2 * p + 1] = y / (float)(H + 1);
        s->j[2 * p] = (uint32_t)(x < (float)mid ? 0 : 1);
        s->j[2 * p + 1] = 2;
        s->w[2 * p] = (g % 17 == 3) ? 0.0f : 0.5f + 0.4f * frand();
        s->w[2 * p + 1] = (g % 17 == 3) ? 0.0f : 0.5f + 0.4f * frand(); /* weightless: the rest pose */
        if (v >= grid) s->pos[3 * p] = s->pos[3 * perm[g]], s->pos[3 * p + 1] = s->pos[3 * perm[g] + 1],
                       s->pos[3 * p + 2] = s->pos[3 * perm[g] + 2];
    }
    size_t f = 0;
    for (size_t y = 0; y < H; ++y)
        for (size_t x = 0; x < W; ++x) {
            size_t c[4] = {y * (W + 1) + x, y * (W + 1) + x + 1, (y + 1) * (W + 1) + x + 1, (y + 1) * (W + 1) + x};
            if (x == mid) c[0] = grid + y, c[3] = grid + y + 1; /* the right of the seam: its copies */
            const int tri[6] = {0, 1, 2, 0, 2, 3};
            for (int k = 0; k < 6; ++k) s->idx[3 * f + (size_t)k] = perm[c[tri[k]]];
            f += 2;
        }
    free(perm);
    for (int b = 0; b < 3; ++b) {
        float* m = s->bones + 12 * b;
        for (int k = 0; k < 12; ++k) m[k] = 0.2f * frand();
        m[0] += 1.0f, m[4] += 1.0f, m[8] += 1.0f;
    }
    for (int k = 0; k < 3; ++k) s->bones[12 + k] *= -1.0f; /* bone 1 mirrors */
    sf_mesh_desc* d = &s->d;
    d->vertex_count = n;
    d->triangle_count = F;
    d->indices = s->idx;
    d->positions.data = s->pos;
    d->normals.data = s->nrm;
    d->uvs.data = s->uv;
    d->influence_count = 2;
    d->joints = s->j;
    d->weights = s->w;
    d->bone_count = 3;
    d->weight_policy = SF_WEIGHTS_RENORMALIZE;
    d->zero_weight_policy = SF_ZERO_WEIGHTS_REST;
    s->pose.bone_matrices = s->bones;
    s->pose.bone_count = 3;
}

static void shuffled_free(shuffled* s) { free(s->pos), free(s->nrm), free(s->uv), free(s->w), free(s->j), free(s->idx); }

/* Vertex counts around the chunk size and the 4-vertex steps (tails of 1 to 3), grids in order and shuffled:
 * recompute's bits under every weighting and weld, for 1 to 3 workers and every instruction set. */
static void test_chunk_edges(void)
{
    sfi_fused_chunk_force(SFI_FUSED_CHUNK_MIN); /* the shuffled grids too: several chunks */
    /* n = (W + 1)(H + 1) + H + 2: 4033, 4096, 4097, 4161 about the chunk of 4096, 9373 over 3 chunks (forced, so
     * the shuffled grids, which would take the largest chunk, span several too) */
    static const size_t sizes[][2] = {{1, 1}, {2, 1}, {5, 2}, {61, 63}, {63, 62}, {62, 63}, {64, 63}, {130, 70},
                                      {31, 255}};
    g_frames = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i)
        for (int shuffle = 0; shuffle < 2; ++shuffle) {
            shuffled s;
            shuffled_make(&s, sizes[i][0], sizes[i][1], shuffle);
            char label[128];
            snprintf(label, sizeof label, "%zu vertices%s", s.d.vertex_count, shuffle ? ", shuffled" : "");
            fixture f;
            g_two_pass = 0;
            int ok = fixture_init(&f, &s.d) && compare_all_options(&f, &s.pose, label);
            g_two_pass = 1;
            if (ok && shuffle && f.topo[0]->fused.chunk_count >= 3) /* far vertices listed in the chunks */
                CHECK(f.topo[0]->fused.max_verts > SFI_FUSED_CHUNK_MIN + SFI_FUSED_CHUNK_MIN / 2);
            if (ok) { /* the two welds differ at the seam */
                sf_topology_stats st;
                sf_topology_get_stats(f.topo[0], &st);
                CHECK(st.weld_position_groups > st.weld_groups);
            }
            fixture_free(&f);
            shuffled_free(&s);
            CHECK(ok);
        }
    sfi_fused_chunk_force(0);
    printf("  %zu frame pairs bit for bit\n", g_frames);
}

/* The indices of a W x H quad grid of (W + 1) x (H + 1) vertices, row by row, or numbered by perm. */
static uint32_t* grid_indices(size_t W, size_t H, const uint32_t* perm)
{
    uint32_t* idx = malloc(6 * W * H * sizeof(uint32_t));
    if (!idx) return NULL;
    for (size_t y = 0, f = 0; y < H; ++y)
        for (size_t x = 0; x < W; ++x, f += 2) {
            size_t c[4] = {y * (W + 1) + x, y * (W + 1) + x + 1, (y + 1) * (W + 1) + x + 1, (y + 1) * (W + 1) + x};
            const int tri[6] = {0, 1, 2, 0, 2, 3};
            for (int k = 0; k < 6; ++k) idx[3 * f + (size_t)k] = perm ? perm[c[tri[k]]] : (uint32_t)c[tri[k]];
        }
    return idx;
}

/* The rule as documented, from a mesh's median face span: 16 times the power of two above it, within the bounds,
 * halved while fewer than SFI_FUSED_SLOTS chunks would cover n vertices. */
static size_t expected_chunk(size_t n, size_t span)
{
    size_t above = 1;
    while (above <= span) above <<= 1;
    size_t c = 16 * above;
    if (c < SFI_FUSED_CHUNK_MIN) c = SFI_FUSED_CHUNK_MIN;
    if (c > SFI_FUSED_CHUNK_MAX) c = SFI_FUSED_CHUNK_MAX;
    while (c > SFI_FUSED_CHUNK_MIN && c * SFI_FUSED_SLOTS > n) c >>= 1;
    return c;
}

/* The chunk follows the vertex order: in-order grids (every face spans a row and one) take 16 spans or more unless
 * that leaves too few chunks for 16 threads; shuffled ones the largest chunk the mesh's size allows. A chunk of 16
 * spans deforms at most a quarter more than its own vertices, and chunks of either size (the mesh's own and one of
 * 8,192) give recompute's bits, runs of whole lane blocks among their other vertices, with one worker and more. */
static void test_chunk_choice(void)
{
    static const size_t grids[][2] = {{2235, 447}, {511, 511}, {300, 40}, {63, 8191}, {2, 3}};
    for (size_t i = 0; i < sizeof grids / sizeof grids[0]; ++i)
        for (int shuffle = 0; shuffle < 2; ++shuffle) {
            size_t W = grids[i][0], H = grids[i][1], n = (W + 1) * (H + 1);
            uint32_t* perm = shuffle ? numbering(n, 1) : NULL;
            CHECK(!shuffle || perm);
            uint32_t* idx = grid_indices(W, H, perm);
            CHECK(idx);
            size_t C = sfi_fused_chunk_for(n, 2 * W * H, idx);
            /* shuffled: the median span is over a quarter of the mesh, above any chunk the bounds allow */
            size_t want = expected_chunk(n, shuffle ? n / 4 : W + 2);
            if (C != want)
                sft_failf(__FILE__, __LINE__, "%zu x %zu grid%s: chunk %zu, the rule gives %zu", W, H,
                          shuffle ? " shuffled" : "", C, want);
            free(idx);
            free(perm);
        }
    g_frames = 0;
    shuffled s;
    shuffled_make(&s, 300, 40, 0);
    for (int forced = 0; forced < 2; ++forced) {
        sfi_fused_chunk_force(forced ? 8192 : 0);
        fixture f;
        int ok = fixture_init(&f, &s.d);
        sfi_fused_chunk_force(0);
        if (ok) {
            const sfi_fused_plan* p = &f.topo[0]->fused;
            printf("  %zu vertices in chunks of %zu: the largest deforms %zu\n", s.d.vertex_count, p->chunk,
                   p->max_verts);
            CHECK(p->chunk == (forced ? 8192 : expected_chunk(s.d.vertex_count, 302)) && p->chunk_count >= 2);
            if (forced) CHECK(p->max_verts <= p->chunk + p->chunk / 4);
            for (int weld = 0; weld < 3 && ok; ++weld) {
                sf_frames_opts o;
                memset(&o, 0, sizeof o);
                o.weld = (sf_weld)weld;
                ok = compare_frames(&f, &s.pose, &o, forced ? "300 x 40 grid, chunks of 8192" : "300 x 40 grid");
            }
        }
        fixture_free(&f);
        CHECK(ok);
    }
    shuffled_free(&s);
    printf("  %zu frame pairs bit for bit\n", g_frames);
}

/* In the evaluation the row runs with the reference's options and measures 0 degrees, its frames the
 * reference's bits; with MikkTSpace its corners (its own two-pass tangents) are the reference's, so the
 * per-corner tangent error is 0 too, at split vertices included. */
static void test_evaluation_row(void)
{
    char path[1024];
    const char* asset = sft_asset("gltf/Fox/glTF-Binary/Fox.glb", path, sizeof path);
    sf_gltf* g = NULL;
    sf_scene* scene = NULL;
    sf_mesh_desc mesh;
    if (asset) {
        CHECK_OK(sf_gltf_load_file(asset, NULL, NULL, &g, NULL));
        CHECK_OK(sf_gltf_instance_mesh(g, 0, g->meshes[g->instances[0].mesh].first_primitive, &mesh, NULL));
    } else {
        scene = twisted_sheet(8);
        CHECK(scene);
        mesh = scene->mesh;
    }
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&mesh, NULL, NULL, &topo, NULL));
    size_t bones = g ? g->instances[0].bone_count : scene->pose.bone_count;
    float* m = calloc(12 * bones + 1, sizeof(float));
    CHECK(m);
    sf_pose pose = scene ? scene->pose : (sf_pose){m, bones, NULL, 0};
    if (g) {
        sf_gltf_pose* gp = NULL;
        CHECK_OK(sf_gltf_pose_create(g, NULL, &gp, NULL));
        CHECK_OK(sf_gltf_pose_sample(gp, g->animation_count ? 0 : SF_GLTF_NONE, 0.4, NULL));
        CHECK_OK(sf_gltf_pose_instance(gp, 0, m, NULL, NULL, NULL));
        sf_gltf_pose_destroy(gp);
    }
    for (int tm = 0; tm <= SF_TANGENTS_MIKKTSPACE; ++tm) {
        sf_method methods[2] = {SF_METHOD_RECOMPUTE_FUSED, SF_METHOD_SKINNED};
        sf_eval_desc desc;
        memset(&desc, 0, sizeof desc);
        desc.methods = methods;
        desc.method_count = 2;
        desc.reference_opts.weld = SF_WELD_POSITION_NORMAL;
        desc.reference_opts.tangents = (sf_tangent_mode)tm;
        desc.reference_opts.weighting = SF_WEIGHTING_ANGLE;
        desc.method_opts.weighting = SF_WEIGHTING_UNIFORM; /* not what the fused row runs with */
        desc.flags = SF_EVAL_KEEP_FRAMES;
        sf_evaluation* ev = NULL;
        CHECK_OK(sf_evaluation_create(topo, &desc, NULL, &ev, NULL));
        sf_workspace_opts wo = {sf_evaluation_methods_mask(ev), SF_BACKEND_CPU};
        sf_workspace* ws = NULL;
        CHECK_OK(sf_workspace_create(topo, &wo, &ws, NULL));
        CHECK_OK(sf_evaluation_run(ev, &pose, ws, NULL, NULL));
        const sf_eval_results* res = sf_evaluation_results(ev);
        const sf_eval_row* row = sf_evaluation_row(ev, SF_METHOD_RECOMPUTE_FUSED);
        size_t n = res->vertex_count;
        CHECK(row && row->status == SF_OK && row->opts.weighting == SF_WEIGHTING_ANGLE);
        CHECK(memcmp(row->normals, res->reference_normals, 3 * n * sizeof(float)) == 0);
        CHECK(memcmp(row->tangents, res->reference_tangents, 4 * n * sizeof(float)) == 0);
        CHECK(row->errors.normal.max == 0.0 && row->errors.tangent.max == 0.0);
        CHECK(row->errors.handedness_mismatches == 0);
        CHECK(row->report.fused_two_pass == (tm && sf_topology_has_tangent_frame(topo) ? SF_FUSED_TWO_PASS_TANGENTS : 0u));
        CHECK(res->tangent_corners == (tm && sf_topology_has_tangent_frame(topo)));
        if (res->tangent_corners) printf("  MikkTSpace: %zu vertices split by corner, 0 degrees at every corner\n",
                                         res->reference_split_vertices);
        sf_workspace_destroy(ws);
        sf_evaluation_destroy(ev);
    }
    free(m);
    sf_topology_destroy(topo);
    if (g) sf_gltf_destroy(g);
    if (scene) sf_scene_destroy(scene);
}

/* ---------------------------------------------------------------- the command line */

/* A copy of the JSON object that follows `key` (e.g. "\"recompute\":{") in text, or NULL. */
static char* object_after(const char* text, const char* key)
{
    const char* p = strstr(text, key);
    if (!p) return NULL;
    p += strlen(key) - 1; /* at the '{' */
    int depth = 0;
    for (const char* q = p; *q; ++q) {
        depth += *q == '{' ? 1 : *q == '}' ? -1 : 0;
        if (depth == 0) {
            char* out = malloc((size_t)(q - p) + 2);
            if (out) memcpy(out, p, (size_t)(q - p) + 1), out[q - p + 1] = '\0';
            return out;
        }
    }
    return NULL;
}

/* compare (its dump), eval and render take it by name; it is listed among the known methods. */
static void test_command_line(void)
{
    char dir[] = "/tmp/sft_fused_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char cmd[2048], path[1200];
    snprintf(cmd, sizeof cmd,
             "compare --scene sheet --preset bone-twist --morph towel-twist=0.6 --weld position-normal --weighting angle "
             "--tangents mikktspace --method skinned,recompute-fused,recompute --dump %s/d.json",
             dir);
    sft_cli_out r = sft_run_cli(cmd);
    if (r.status == -1) { /* built without the command */
        sft_cli_out_free(&r);
        rmdir(dir);
        return;
    }
    CHECK(r.status == 0 && strstr(r.out, "recompute-fused") != NULL);
    sft_cli_out_free(&r);
    snprintf(path, sizeof path, "%s/d.json", dir);
    size_t size = 0;
    char* text = sft_read_file(path, &size);
    CHECK(text);
    char* a = object_after(text, "\"recompute\":{");
    char* b = object_after(text, "\"recompute-fused\":{");
    CHECK(a && b && strlen(a) > 1000 && strcmp(a, b) == 0); /* the same dumped frames, digit for digit */
    free(a);
    free(b);
    free(text);
    remove(path);

    char asset[1024];
    if (sft_asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf", asset, sizeof asset)) {
        snprintf(cmd, sizeof cmd, "eval '%s' --method recompute-fused,skinned --json", asset);
        r = sft_run_cli(cmd);
        CHECK(r.status == 0 && strstr(r.out, "\"recompute-fused\"") != NULL);
        sft_cli_out_free(&r);
    }
    snprintf(cmd, sizeof cmd, "render --scene elbow --preset bend --method recompute-fused -o %s/f.png", dir);
    r = sft_run_cli(cmd);
    CHECK(r.status == 0);
    sft_cli_out_free(&r);
    snprintf(path, sizeof path, "%s/f.png", dir);
    CHECK(access(path, F_OK) == 0);
    remove(path);

    r = sft_run_cli("compare --scene tip --method recompute-fuse");
    CHECK(r.status == 2 && strstr(r.err, "recompute-fused") != NULL);
    sft_cli_out_free(&r);
    CHECK(rmdir(dir) == 0);
}

static void test_method_name(void)
{
    sf_method m;
    CHECK_OK(sf_method_parse("recompute-fused", &m));
    CHECK(m == SF_METHOD_RECOMPUTE_FUSED);
    CHECK(strcmp(sf_method_name(SF_METHOD_RECOMPUTE_FUSED), "recompute-fused") == 0);
    CHECK(SF_METHOD_DEFAULT_COUNT == SF_METHOD_RECOMPUTE_FUSED && SF_METHOD_RECOMPUTE_FUSED + 1 == SF_METHOD_COUNT);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"method_name", test_method_name},
        {"workspace_is_small", test_workspace_is_small},
        {"two_pass_needs_recompute_scratch", test_two_pass_needs_recompute_scratch},
        {"frames_do_not_allocate", test_frames_do_not_allocate},
        {"fast_path_runs", test_fast_path_runs},
        {"chunk_edges", test_chunk_edges},
        {"chunk_choice", test_chunk_choice},
        {"evaluation_row", test_evaluation_row},
        {"command_line", test_command_line},
        {"every_scene", test_every_scene},
        {"every_asset", test_every_asset},
    };
    return SFT_RUN(cases, argc, argv);
}

/* Workspaces sized for their methods (size query = what create allocates), refusal of other methods,
 * bit-identical frames from minimal and full workspaces, the backend seam, and the kernels header's
 * formulas applied per element (as a GPU would) against the CPU loops. */
#include "sf_internal.h"
#include "sf_kernels.h"
#include "sf_test.h"

#include <stdlib.h>
#include <string.h>

#define BIT(m) (1u << (m))

/* ---------------------------------------------------------------- fixtures */

/* The sheet, twisted and bent with a morph target on, so every method has work (mirroring aside). */
static sf_scene* posed_sheet(void)
{
    sf_scene_setting s[] = {{"resolution", 4}, {"twist", 150}, {"bend", 70}, {"ripples", 0.6}};
    sf_scene* scene = NULL;
    sf_error err;
    if (sf_scene_create("sheet", NULL, s, sizeof s / sizeof s[0], NULL, &scene, &err) != SF_OK) {
        sft_failf(__FILE__, __LINE__, "sheet: %s", err.message);
        return NULL;
    }
    return scene;
}

static sf_workspace_opts ws_opts(uint32_t methods)
{
    sf_workspace_opts o;
    memset(&o, 0, sizeof o);
    o.methods = methods;
    return o;
}

/* sf_workspace_size(topo, mask) equals the bytes the allocator is asked for by sf_workspace_create, and
 * destroy returns every allocation. */
static int size_matches(sf_topology* topo, sft_alloc_counter* c, uint32_t methods, size_t* size_out)
{
    sf_workspace_opts o = ws_opts(methods);
    size_t want = sf_workspace_size(topo, &o);
    size_t bytes0 = c->bytes, live0 = c->live;
    sf_workspace* ws = NULL;
    sf_error err;
    if (sf_workspace_create(topo, &o, &ws, &err) != SF_OK) {
        sft_failf(__FILE__, __LINE__, "methods 0x%x: %s", (unsigned)methods, err.message);
        return 0;
    }
    size_t got = c->bytes - bytes0;
    sf_workspace_destroy(ws);
    if (got != want || c->live != live0 || want == 0) {
        sft_failf(__FILE__, __LINE__, "methods 0x%x: size %zu, allocated %zu, %zu blocks left", (unsigned)methods, want,
                  got, c->live - live0);
        return 0;
    }
    if (size_out) *size_out = want;
    return 1;
}

static void test_size_equals_allocation(void)
{
    sf_scene* scene = posed_sheet();
    CHECK(scene);
    sft_alloc_counter c = {0};
    sf_env env = sft_counting_env(&c);
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&scene->mesh, NULL, &env, &topo, NULL));
    const uint32_t masks[] = {0,
                              BIT(SF_METHOD_SKINNED),
                              BIT(SF_METHOD_UNCHANGED) | BIT(SF_METHOD_INVERSE_TRANSPOSE),
                              BIT(SF_METHOD_JACOBIAN),
                              BIT(SF_METHOD_RECOMPUTE),
                              BIT(SF_METHOD_RECOMPUTE) | BIT(SF_METHOD_JACOBIAN),
                              (1u << SF_METHOD_COUNT) - 1u};
    size_t size[sizeof masks / sizeof masks[0]];
    for (size_t i = 0; i < sizeof masks / sizeof masks[0]; ++i) {
        if (!size_matches(topo, &c, masks[i], &size[i])) goto done;
    }
    /* 0 = every method; the deformation alone is the smallest; recompute carries the face arrays, MikkTSpace
     * and authored scratch; jacobian its per-vertex flags; recompute-fused its fast path's slots */
    CHECK(size[0] == size[6]);
    CHECK(size[1] == size[2]);
    CHECK(size[3] > size[1] && size[3] - size[1] < 2 * topo->vertex_count + 64);
    CHECK(size[4] > size[3]);
    /* recompute-fused's fast path adds its slots (its palette is the deformation's) */
    const sfi_fused_plan* plan = &topo->fused;
    size_t slots = !topo->env.threads.parallel_for ? 1
                   : plan->chunk_count < SFI_FUSED_SLOTS ? plan->chunk_count : SFI_FUSED_SLOTS;
    size_t fused = topo->simd_level >= SFI_SIMD_SSE2 && slots
                       ? slots * (4 * plan->max_verts + 4 + SFI_FACE_FLOATS * plan->max_faces) * sizeof(float)
                       : 0;
    CHECK(size[5] + fused == size[6]);
    CHECK(size[4] + size[3] - size[1] + fused == size[6]);
    /* NULL opts = every method */
    CHECK(sf_workspace_size(topo, NULL) == size[0]);
    /* a workspace always holds the deformation: 6 arrays of (3+3+3+12+1+3) floats per vertex */
    CHECK(size[1] >= sizeof(sf_workspace) + 25 * sizeof(float) * topo->vertex_count);
done:
    sf_topology_destroy(topo);
    sf_scene_destroy(scene);
    CHECK(c.live == 0);
}

/* Without UVs there is no MikkTSpace scratch; without gradients no jacobian scratch. */
static void test_size_follows_topology(void)
{
    sf_scene* scene = posed_sheet();
    CHECK(scene);
    sft_alloc_counter c = {0};
    sf_env env = sft_counting_env(&c);
    sf_mesh_desc flat = scene->mesh;
    flat.uvs.data = NULL;
    flat.tangents.data = NULL;
    sf_topology_opts skip;
    memset(&skip, 0, sizeof skip);
    skip.skip_gradients = 1;
    sf_topology *with_uv = NULL, *no_uv = NULL, *no_grad = NULL;
    CHECK_OK(sf_topology_create(&scene->mesh, NULL, &env, &with_uv, NULL));
    CHECK_OK(sf_topology_create(&flat, NULL, &env, &no_uv, NULL));
    CHECK_OK(sf_topology_create(&scene->mesh, &skip, &env, &no_grad, NULL));
    size_t rec_uv = 0, rec_flat = 0, jac = 0, jac_skip = 0, skinned = 0;
    int ok = size_matches(with_uv, &c, BIT(SF_METHOD_RECOMPUTE), &rec_uv) &&
             size_matches(no_uv, &c, BIT(SF_METHOD_RECOMPUTE), &rec_flat) &&
             size_matches(with_uv, &c, BIT(SF_METHOD_JACOBIAN), &jac) &&
             size_matches(no_grad, &c, BIT(SF_METHOD_JACOBIAN), &jac_skip) &&
             size_matches(no_grad, &c, BIT(SF_METHOD_SKINNED), &skinned) && size_matches(no_uv, &c, 0, NULL) &&
             size_matches(no_grad, &c, 0, NULL);
    if (ok) {
        /* MikkTSpace's scratch is dozens of words per triangle */
        CHECK(rec_uv > rec_flat + 40 * sizeof(float) * sf_topology_triangle_count(with_uv));
        CHECK(jac > jac_skip);
        CHECK(jac_skip == skinned);
    }
    /* the jacobian method on a topology without gradients still says why */
    sf_workspace* ws = NULL;
    sf_workspace_opts o = ws_opts(BIT(SF_METHOD_JACOBIAN));
    sf_error err;
    if (ok && sf_workspace_create(no_grad, &o, &ws, &err) == SF_OK) {
        size_t n = sf_topology_vertex_count(no_grad);
        float* nrm = calloc(3 * n, sizeof(float));
        sf_frames_out out = {NULL, nrm, NULL};
        sf_result r = sf_frames_compute(no_grad, &scene->pose, SF_METHOD_JACOBIAN, NULL, ws, &out, &err);
        free(nrm);
        sf_workspace_destroy(ws);
        CHECK_RESULT(r, SF_ERROR_UNSUPPORTED);
        CHECK(strstr(err.message, "skip_gradients") != NULL);
    }
    sf_topology_destroy(with_uv);
    sf_topology_destroy(no_uv);
    sf_topology_destroy(no_grad);
    sf_scene_destroy(scene);
    CHECK(ok);
    CHECK(c.live == 0);
}

/* Every failing allocation of sf_workspace_create gives SF_ERROR_OUT_OF_MEMORY and leaks nothing. */
static void test_out_of_memory(void)
{
    sf_scene* scene = posed_sheet();
    CHECK(scene);
    sft_alloc_counter c = {0};
    sf_env env = sft_counting_env(&c);
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&scene->mesh, NULL, &env, &topo, NULL));
    size_t live0 = c.live, calls0 = c.calls;
    sf_workspace* ws = NULL;
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    size_t total = c.calls - calls0;
    sf_workspace_destroy(ws);
    int bad = 0;
    for (size_t k = 1; k <= total && !bad; ++k) {
        c.calls = 0;
        c.fail_at = k;
        sf_error err;
        ws = (sf_workspace*)&c; /* must be reset to NULL */
        sf_result r = sf_workspace_create(topo, NULL, &ws, &err);
        if (r != SF_ERROR_OUT_OF_MEMORY || ws != NULL || c.live != live0 || strcmp(err.field, "workspace") != 0) {
            sft_failf(__FILE__, __LINE__, "allocation %zu of %zu: %s, %zu blocks left", k, total,
                      sf_result_string(r), c.live - live0);
            bad = 1;
        }
    }
    c.fail_at = 0;
    sf_topology_destroy(topo);
    sf_scene_destroy(scene);
    CHECK(!bad);
    CHECK(total > 10);
}

static void test_refuses_other_methods(void)
{
    sf_scene* scene = posed_sheet();
    CHECK(scene);
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&scene->mesh, NULL, NULL, &topo, NULL));
    size_t n = sf_topology_vertex_count(topo);
    float* nrm = calloc(3 * n, sizeof(float));
    float* tan = calloc(4 * n, sizeof(float));
    sf_frames_out out = {NULL, nrm, tan};
    sf_workspace* ws = NULL;
    sf_workspace_opts o = ws_opts(BIT(SF_METHOD_SKINNED));
    sf_error err;
    CHECK_OK(sf_workspace_create(topo, &o, &ws, NULL));
    CHECK_OK(sf_frames_compute(topo, &scene->pose, SF_METHOD_SKINNED, NULL, ws, &out, &err));
    for (int m = 0; m < SF_METHOD_COUNT; ++m) {
        if (m == SF_METHOD_SKINNED) continue;
        sf_frames_opts fo;
        memset(&fo, 0, sizeof fo);
        fo.reference = SF_REFERENCE_AUTHORED;
        fo.tangents = SF_TANGENTS_MIKKTSPACE;
        CHECK_RESULT(sf_frames_compute(topo, &scene->pose, (sf_method)m, &fo, ws, &out, &err),
                     SF_ERROR_INVALID_ARGUMENT);
        CHECK(strcmp(err.field, "workspace") == 0);
        CHECK(strstr(err.message, sf_method_name((sf_method)m)) != NULL);
    }
    /* the positions still come from any workspace */
    float* pos = calloc(3 * n, sizeof(float));
    CHECK_OK(sf_deform_positions(topo, &scene->pose, ws, pos, NULL));
    free(pos);
    sf_workspace_destroy(ws);
    /* a workspace for recompute runs the reference in every variant, but not skinned */
    o = ws_opts(BIT(SF_METHOD_RECOMPUTE));
    CHECK_OK(sf_workspace_create(topo, &o, &ws, NULL));
    CHECK_RESULT(sf_frames_compute(topo, &scene->pose, SF_METHOD_SKINNED, NULL, ws, &out, &err),
                 SF_ERROR_INVALID_ARGUMENT);
    sf_workspace_destroy(ws);
    /* bad options */
    o = ws_opts(1u << SF_METHOD_COUNT);
    CHECK(sf_workspace_size(topo, &o) == 0);
    ws = (sf_workspace*)nrm;
    CHECK_RESULT(sf_workspace_create(topo, &o, &ws, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(ws == NULL && strcmp(err.field, "opts.methods") == 0);
    o = ws_opts(0);
    o.backend = (sf_backend)7;
    CHECK(sf_workspace_size(topo, &o) == 0);
    CHECK_RESULT(sf_workspace_create(topo, &o, &ws, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.field, "opts.backend") == 0);
    CHECK(sf_workspace_size(NULL, NULL) == 0);
    free(nrm);
    free(tan);
    sf_topology_destroy(topo);
    sf_scene_destroy(scene);
}

/* ---------------------------------------------------------------- minimal = full, bit for bit */

static int frames_equal(sf_topology* topo, const sf_pose* pose, sf_method m, const sf_frames_opts* fo,
                        sf_workspace* full, sf_workspace* minimal)
{
    size_t n = sf_topology_vertex_count(topo);
    float* buf = calloc(20 * n + 1, sizeof(float));
    sf_frames_out a = {buf, buf + 3 * n, buf + 6 * n}, b = {buf + 10 * n, buf + 13 * n, buf + 16 * n};
    sf_error err;
    int ok = sf_frames_compute(topo, pose, m, fo, full, &a, &err) == SF_OK;
    ok = ok && sf_frames_compute(topo, pose, m, fo, minimal, &b, &err) == SF_OK;
    ok = ok && memcmp(buf, buf + 10 * n, 10 * n * sizeof(float)) == 0;
    sf_frames_report ra, rb;
    sf_workspace_last_report(full, &ra);
    sf_workspace_last_report(minimal, &rb);
    ok = ok && memcmp(&ra, &rb, sizeof ra) == 0;
    free(buf);
    if (!ok) sft_failf(__FILE__, __LINE__, "%s differs between a full and a minimal workspace", sf_method_name(m));
    return ok;
}

static void test_minimal_equals_full(void)
{
    sf_scene* scene = posed_sheet();
    CHECK(scene);
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&scene->mesh, NULL, NULL, &topo, NULL));
    sf_workspace* full = NULL;
    CHECK_OK(sf_workspace_create(topo, NULL, &full, NULL));
    int ok = 1;
    for (int m = 0; m < SF_METHOD_COUNT && ok; ++m) {
        sf_workspace* minimal = NULL;
        sf_workspace_opts o = ws_opts(BIT(m));
        CHECK_OK(sf_workspace_create(topo, &o, &minimal, NULL));
        CHECK(sf_workspace_size(topo, &o) < sf_workspace_size(topo, NULL));
        sf_frames_opts fo;
        memset(&fo, 0, sizeof fo);
        ok = frames_equal(topo, &scene->pose, (sf_method)m, &fo, full, minimal);
        fo.morph_directions = SF_MORPH_DIRECTIONS_NONE;
        fo.jacobian_cap = 0.5f;
        ok = ok && frames_equal(topo, &scene->pose, (sf_method)m, &fo, full, minimal);
        if (m == SF_METHOD_RECOMPUTE) {
            const sf_weighting weightings[] = {SF_WEIGHTING_AREA, SF_WEIGHTING_ANGLE, SF_WEIGHTING_UNIFORM};
            for (int w = 0; w < 3; ++w)
                for (int weld = 0; weld <= SF_WELD_POSITION_NORMAL; ++weld)
                    for (int t = 0; t <= SF_TANGENTS_MIKKTSPACE; ++t)
                        for (int ref = 0; ref <= SF_REFERENCE_AUTHORED; ++ref) {
                            memset(&fo, 0, sizeof fo);
                            fo.weighting = weightings[w];
                            fo.weld = (sf_weld)weld;
                            fo.tangents = (sf_tangent_mode)t;
                            fo.reference = (sf_reference)ref;
                            ok = ok && frames_equal(topo, &scene->pose, SF_METHOD_RECOMPUTE, &fo, full, minimal);
                        }
        }
        sf_workspace_destroy(minimal);
    }
    sf_workspace_destroy(full);
    sf_topology_destroy(topo);
    sf_scene_destroy(scene);
    CHECK(ok);
}

/* ---------------------------------------------------------------- backends */

static void test_backend_names(void)
{
    for (int b = 0; b <= SF_BACKEND_CUDA; ++b) {
        sf_backend got = (sf_backend)99;
        CHECK_OK(sf_backend_parse(sf_backend_name((sf_backend)b), &got));
        CHECK(got == (sf_backend)b);
    }
    CHECK(strcmp(sf_backend_name(SF_BACKEND_CPU), "cpu") == 0);
    CHECK(strcmp(sf_backend_name(SF_BACKEND_CUDA), "cuda") == 0);
    CHECK(strcmp(sf_backend_name((sf_backend)5), "?") == 0);
    CHECK(strcmp(sf_backend_name((sf_backend)-1), "?") == 0);
    sf_backend got = SF_BACKEND_CUDA;
    CHECK_RESULT(sf_backend_parse("gpu", &got), SF_ERROR_UNKNOWN_NAME);
    CHECK_RESULT(sf_backend_parse("CPU", &got), SF_ERROR_UNKNOWN_NAME);
    CHECK_RESULT(sf_backend_parse(NULL, &got), SF_ERROR_UNKNOWN_NAME);
    CHECK(got == SF_BACKEND_CUDA);
    sf_error err;
    CHECK_OK(sf_backend_check(SF_BACKEND_CPU, &err));
    CHECK_RESULT(sf_backend_check((sf_backend)3, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.field, "backend") == 0);
}

/* A CPU workspace's reservation is nothing to do; a missing workspace or no instances is named. The CPU's
 * allocations stay those of sf_workspace_size (the allocator counts them). */
static void test_reserve(void)
{
    sf_scene* scene = posed_sheet();
    if (!scene) return;
    sft_alloc_counter counter;
    memset(&counter, 0, sizeof counter);
    sf_env env = sft_counting_env(&counter);
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    sf_error err;
    CHECK_OK(sf_topology_create(&scene->mesh, NULL, &env, &topo, &err));
    sf_workspace_opts o = ws_opts(0);
    CHECK_OK(sf_workspace_create(topo, &o, &ws, &err));
    size_t bytes = counter.bytes, live = counter.live;
    CHECK_OK(sf_workspace_reserve(ws, 512, &err));
    CHECK(counter.bytes == bytes && counter.live == live);
    CHECK_RESULT(sf_workspace_reserve(ws, 0, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.field, "instances") == 0);
    CHECK_RESULT(sf_workspace_reserve(NULL, 1, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.field, "workspace") == 0);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    sf_scene_destroy(scene);
}

static void test_cuda_backend(void)
{
    sf_scene* scene = posed_sheet();
    CHECK(scene);
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&scene->mesh, NULL, NULL, &topo, NULL));
    sf_workspace_opts o = ws_opts(0);
    o.backend = SF_BACKEND_CUDA;
    sf_workspace* ws = NULL;
    sf_error err;
    sf_result check = sf_backend_check(SF_BACKEND_CUDA, &err);
#ifdef SF_TEST_WITH_CUDA
    if (check == SF_OK) {
        /* a device: the workspace is made and runs (tests/test_cuda.c compares it with the CPU) */
        CHECK_OK(sf_workspace_create(topo, &o, &ws, &err));
        size_t n = sf_topology_vertex_count(topo);
        float* nrm = calloc(3 * n, sizeof(float));
        sf_frames_out out = {NULL, nrm, NULL};
        sf_result r = sf_frames_compute(topo, &scene->pose, SF_METHOD_SKINNED, NULL, ws, &out, &err);
        free(nrm);
        sf_workspace_destroy(ws);
        CHECK_OK(r);
        printf("cuda backend: device present, frames computed\n");
    } else {
        CHECK_RESULT(check, SF_ERROR_UNSUPPORTED);
        CHECK(strstr(err.message, "cuda: ") != NULL);
        printf("cuda backend: %s\n", err.message);
        CHECK_RESULT(sf_workspace_create(topo, &o, &ws, &err), SF_ERROR_UNSUPPORTED);
    }
#else
    CHECK_RESULT(check, SF_ERROR_UNSUPPORTED);
    CHECK(strcmp(err.field, "backend") == 0);
    CHECK(strstr(err.message, "no CUDA backend") != NULL && strstr(err.message, "SF_WITH_CUDA") != NULL);
    ws = (sf_workspace*)&o;
    CHECK_RESULT(sf_workspace_create(topo, &o, &ws, &err), SF_ERROR_UNSUPPORTED);
    CHECK(ws == NULL && strstr(err.message, "SF_WITH_CUDA") != NULL);
#endif
    sf_topology_destroy(topo);
    sf_scene_destroy(scene);
}

/* A CUDA workspace keeps on the host only what MikkTSpace tangents (run on the CPU) read back: positions,
 * determinants, outgoing tangents (8 floats per vertex) and MikkTSpace's scratch, whatever the methods; the
 * CPU's deformation, face arrays and authored scratch live on the GPU. Its GPU memory is counted apart. */
static void test_cuda_host_scratch(void)
{
    sf_scene* scene = posed_sheet();
    CHECK(scene);
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&scene->mesh, NULL, NULL, &topo, NULL));
    size_t n = sf_topology_vertex_count(topo);
    CHECK(sf_topology_has_tangent_frame(topo)); /* the sheet has UVs: MikkTSpace's scratch with the reference */
    sf_workspace_opts o = ws_opts(BIT(SF_METHOD_SKINNED) | BIT(SF_METHOD_JACOBIAN));
    o.backend = SF_BACKEND_CUDA;
    size_t no_mikk = sf_workspace_size(topo, &o);
    CHECK(no_mikk == sizeof(sf_workspace) + 4 * sizeof(float) * n); /* positions + determinants */
    o.methods = BIT(SF_METHOD_RECOMPUTE);
    size_t with_mikk = sf_workspace_size(topo, &o);
    o.methods = BIT(SF_METHOD_RECOMPUTE_FUSED);
    CHECK(sf_workspace_size(topo, &o) == with_mikk);
    o.methods = 0;
    size_t all = sf_workspace_size(topo, &o);
    CHECK(all == with_mikk);
    sf_workspace_opts cpu = ws_opts(0);
    size_t mikk_scratch = all - no_mikk - 4 * sizeof(float) * n; /* what MikkTSpace adds beyond its tangents */
    CHECK(all > no_mikk + 4 * sizeof(float) * n);
    /* the CPU's all-method workspace holds that scratch too, and far more */
    CHECK(sf_workspace_size(topo, &cpu) > sizeof(sf_workspace) + mikk_scratch + 25 * sizeof(float) * n);
    /* the GPU's side: none on the CPU backend; with CUDA built the device copy and per-instance scratch,
     * linear in the instances (no GPU needed to ask) */
    CHECK(sf_workspace_device_size(topo, &cpu, 1) == 0);
    size_t d1 = sf_workspace_device_size(topo, &o, 1), d2 = sf_workspace_device_size(topo, &o, 2);
    CHECK(sf_workspace_device_size(topo, &o, 0) == d1);
#ifdef SF_TEST_WITH_CUDA
    /* per instance at least poses, positions, determinants, the method's and the reference's frames */
    CHECK(d2 > d1 && d2 - d1 >= (3 + 1 + 7 + 7) * sizeof(float) * n);
    CHECK(sf_workspace_device_size(topo, &o, 10) == d1 + 9 * (d2 - d1));
    /* the topology's device copy is at least its rest streams and triangles */
    CHECK(d1 - (d2 - d1) >= (3 + 3 + 4) * sizeof(float) * n + 3 * sizeof(uint32_t) * sf_topology_triangle_count(topo));
    printf("cuda workspace: host %zu bytes (cpu %zu), device %zu + %zu per instance\n", all,
           sf_workspace_size(topo, &cpu), d1 - (d2 - d1), d2 - d1);
#else
    CHECK(d1 == 0 && d2 == 0);
#endif
    sf_topology_destroy(topo);
    sf_scene_destroy(scene);
}

/* ---------------------------------------------------------------- kernels per element = the CPU loops */

/* Runs the ranges back to front, in small pieces: results must not depend on the order. */
static void reverse_parallel_for(void* user, size_t count, size_t grain, sf_range_fn* fn, void* ctx)
{
    (void)user;
    (void)grain;
    for (size_t end = count; end > 0;) {
        size_t begin = end > 7 ? end - 7 : 0;
        fn(ctx, begin, end);
        end = begin;
    }
}

static int same_floats(const float* a, const float* b, size_t count, const char* what)
{
    if (memcmp(a, b, count * sizeof(float)) == 0) return 1;
    for (size_t i = 0; i < count; ++i)
        if (memcmp(a + i, b + i, sizeof(float)) != 0) {
            sft_failf(__FILE__, __LINE__, "%s: element %zu is %.9g, the kernel gives %.9g", what, i, (double)a[i],
                      (double)b[i]);
            break;
        }
    return 0;
}

static void test_kernels_match_loops(void)
{
    sf_scene* scene = posed_sheet();
    CHECK(scene);
    sf_env env;
    memset(&env, 0, sizeof env);
    env.threads.parallel_for = reverse_parallel_for;
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&scene->mesh, NULL, &env, &topo, NULL));
    sf_workspace* ws = NULL;
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    const sf_pose* pose = &scene->pose;
    size_t n = topo->vertex_count, F = topo->triangle_count, K = topo->influence_count;
    float* buf = calloc(60 * n + 12 * F, sizeof(float));
    float *pos = buf, *nrm = pos + 3 * n, *tan = nrm + 3 * n;                 /* library */
    float *kp = tan + 4 * n, *kn = kp + 3 * n, *kt = kn + 3 * n;               /* kernels */
    float *mp = kt + 4 * n, *mn = mp + 3 * n, *mt = mn + 3 * n, *blend = mt + 3 * n, *det = blend + 12 * n;
    float *fn = det + n, *ft = fn + 3 * F, *fb = ft + 3 * F, *cw = fb + 3 * F;
    int ok = 1;

    /* the deformation, vertex by vertex */
    for (size_t v = 0; v < n; ++v) {
        uint32_t e0 = topo->morph_offsets[v];
        sfk_deform_vertex(topo->rest_positions + 3 * v, topo->rest_normals + 3 * v, topo->rest_tangents + 4 * v,
                          topo->morph_target + e0, topo->morph_dp + 3 * e0, topo->morph_dn + 3 * e0,
                          topo->morph_dt + 3 * e0, topo->morph_offsets[v + 1] - e0, pose->morph_weights, SFK_MORPH_DIRS_DELTAS,
                          pose->bone_matrices, topo->joints + K * v, topo->weights + K * v, (uint32_t)K, mp + 3 * v,
                          mn + 3 * v, mt + 3 * v, blend + 12 * v, det + v, kp + 3 * v);
    }
    size_t mirrored = 0;
    for (size_t v = 0; v < n; ++v) mirrored += det[v] < 0.0f;

    /* the per-vertex methods */
    for (int m = 0; m <= SF_METHOD_INVERSE_TRANSPOSE && ok; ++m) {
        sf_frames_out out = {pos, nrm, tan};
        CHECK_OK(sf_frames_compute(topo, pose, (sf_method)m, NULL, ws, &out, NULL));
        for (size_t v = 0; v < n; ++v)
            sfk_vertex_frame(m, blend + 12 * v, det[v], mn + 3 * v, mt + 3 * v, topo->rest_tangents[4 * v + 3],
                             kn + 3 * v, kt + 4 * v);
        ok = same_floats(pos, kp, 3 * n, "final positions") && same_floats(nrm, kn, 3 * n, sf_method_name((sf_method)m)) &&
             same_floats(tan, kt, 4 * n, sf_method_name((sf_method)m));
    }

    /* recompute: face pass, then the gather, per weighting and weld */
    for (int w = 0; w <= SF_WEIGHTING_UNIFORM && ok; ++w) {
        for (int weld = 0; weld <= SF_WELD_POSITION_NORMAL && ok; ++weld) {
            sf_frames_opts fo;
            memset(&fo, 0, sizeof fo);
            fo.weighting = (sf_weighting)w;
            fo.weld = (sf_weld)weld;
            sf_frames_out out = {NULL, nrm, tan};
            CHECK_OK(sf_frames_compute(topo, pose, SF_METHOD_RECOMPUTE, &fo, ws, &out, NULL));
            for (size_t f = 0; f < F; ++f) {
                const uint32_t* tri = topo->indices + 3 * f;
                sfk_recompute_face(kp + 3 * tri[0], kp + 3 * tri[1], kp + 3 * tri[2], topo->uvs + 2 * tri[0],
                                   topo->uvs + 2 * tri[1], topo->uvs + 2 * tri[2], det[tri[0]], det[tri[1]],
                                   det[tri[2]], w, fn + 3 * f, ft + 3 * f, fb + 3 * f, cw + 3 * f);
            }
            for (size_t v = 0; v < n; ++v) {
                const uint32_t* nc = topo->adj_corners;
                uint32_t b = topo->adj_offsets[v], e = topo->adj_offsets[v + 1];
                if (weld) {
                    const sfi_weld* g = &topo->weld[weld - 1];
                    nc = g->corners;
                    b = g->corner_offsets[g->group[v]];
                    e = g->corner_offsets[g->group[v] + 1];
                }
                sfk_recompute_vertex(fn, ft, fb, cw, nc, b, e, topo->adj_corners, topo->adj_offsets[v],
                                     topo->adj_offsets[v + 1], w, topo->bitangent_sign, kn + 3 * v, kt + 4 * v);
            }
            ok = same_floats(nrm, kn, 3 * n, "recompute normals") && same_floats(tan, kt, 4 * n, "recompute tangents");
        }
    }

    /* the authored reference, from the rebuilt frames the workspace keeps */
    if (ok) {
        sf_frames_opts fo;
        memset(&fo, 0, sizeof fo);
        fo.reference = SF_REFERENCE_AUTHORED;
        fo.tangents = SF_TANGENTS_MIKKTSPACE;
        sf_frames_out out = {NULL, nrm, tan};
        CHECK_OK(sf_frames_compute(topo, pose, SF_METHOD_RECOMPUTE, &fo, ws, &out, NULL));
        const sfi_authored_scratch* a = ws->authored;
        for (size_t v = 0; v < n; ++v) {
            uint32_t corner = topo->adj_corners[topo->adj_offsets[v]];
            uint32_t other = topo->indices[corner - corner % 3 + (corner + 1) % 3];
            sfk_authored_vertex(a->rest_n + 3 * v, a->rest_t + 4 * v, a->pose_n + 3 * v, a->pose_t + 4 * v,
                                topo->rest_normals + 3 * v, topo->rest_tangents + 4 * v, 1,
                                topo->rest_positions + 3 * v, topo->rest_positions + 3 * other, kp + 3 * v,
                                kp + 3 * other, kn + 3 * v, kt + 4 * v);
        }
        ok = same_floats(nrm, kn, 3 * n, "authored normals") && same_floats(tan, kt, 4 * n, "authored tangents");
    }
    free(buf);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    sf_scene_destroy(scene);
    CHECK(ok);
    CHECK(n > 50);
    (void)mirrored;
}

/* The kernels' small pieces against their definitions. */
static void test_kernel_pieces(void)
{
    /* mirroring on balance flips the face normal; area weights are |cross| */
    float p0[3] = {0, 0, 0}, p1[3] = {2, 0, 0}, p2[3] = {0, 0, -1}, uv0[2] = {0, 0}, uv1[2] = {1, 0}, uv2[2] = {0, 1};
    float n[3], t[3], b[3], w[3];
    sfk_recompute_face(p0, p1, p2, uv0, uv1, uv2, 1.0f, 1.0f, -1.0f, SFK_WEIGHTING_AREA, n, t, b, w);
    CHECK(n[1] == 2.0f && w[0] == 2.0f && w[2] == 2.0f);
    sfk_recompute_face(p0, p1, p2, uv0, uv1, uv2, -1.0f, 1.0f, -1.0f, SFK_WEIGHTING_AREA, n, t, b, w);
    CHECK(n[1] == -2.0f && w[1] == 2.0f);
    sfk_recompute_face(p0, p1, p2, uv0, uv1, uv2, 1.0f, 1.0f, 1.0f, SFK_WEIGHTING_UNIFORM, n, t, b, w);
    CHECK(n[1] == 1.0f && w[0] == 1.0f);
    sfk_recompute_face(p0, p1, p2, uv0, uv1, uv2, 1.0f, 1.0f, 1.0f, SFK_WEIGHTING_ANGLE, n, t, b, w);
    CHECK_NEAR(w[0], SFT_PI / 2, 1e-6);
    CHECK_NEAR(w[0] + w[1] + w[2], SFT_PI, 1e-6);
    CHECK(t[0] == 2.0f && b[2] == -1.0f); /* dP/du along +x, dP/dv along -z */
    sfk_recompute_face(p0, p1, p1, uv0, uv1, uv2, 1.0f, 1.0f, 1.0f, SFK_WEIGHTING_AREA, n, t, b, w);
    CHECK(w[0] == 0.0f && w[1] == 0.0f && w[2] == 0.0f);
    /* per-vertex methods: skinned flips w under a mirror, unchanged never does */
    float mirror[12] = {-1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, dn[3] = {0, 2, 0}, dt[3] = {3, 0, 0}, on[3], ot[4];
    sfk_vertex_frame(SFK_METHOD_SKINNED, mirror, -1.0f, dn, dt, 1.0f, on, ot);
    CHECK(on[1] == 1.0f && ot[0] == -1.0f && ot[3] == -1.0f);
    sfk_vertex_frame(SFK_METHOD_UNCHANGED, mirror, -1.0f, dn, dt, 1.0f, on, ot);
    CHECK(on[1] == 1.0f && ot[0] == 1.0f && ot[3] == 1.0f);
    sfk_vertex_frame(SFK_METHOD_INVERSE_TRANSPOSE, mirror, -1.0f, dn, dt, -1.0f, on, ot);
    CHECK(on[1] == 1.0f && ot[0] == -1.0f && ot[3] == 1.0f); /* cof(A) n / det: a mirror in x keeps +y */
    /* authored: a quarter turn about y carries the authored frame along */
    float n0[3] = {0, 1, 0}, t0[4] = {1, 0, 0, 1}, n1[3] = {0, 1, 0}, t1[4] = {0, 0, -1, 1};
    float an[3] = {0, 0.6f, 0.8f}, at[4] = {1, 0, 0, -1}, rn[3], rt[4];
    sfk_authored_vertex(n0, t0, n1, t1, an, at, 1, NULL, NULL, NULL, NULL, rn, rt);
    CHECK_NEAR(rn[0], 0.8, 1e-6);
    CHECK_NEAR(rn[1], 0.6, 1e-6);
    CHECK_NEAR(rn[2], 0.0, 1e-6);
    CHECK(rt[3] == -1.0f);
    /* MikkTSpace: a v-up triangle is oriented, a zero-area one groups with any, coincident corners degenerate */
    float q0[3] = {0, 0, 0}, q1[3] = {1, 0, 0}, q2[3] = {0, 1, 0}, os[3], ots[3];
    uint32_t flags = sfk_mikk_triangle(q0, q1, q2, uv0, uv1, uv2, sfk_mikk_uv_flags(1.0f), os, ots);
    CHECK(flags == SFK_MIKK_ORIENT && os[0] == 1.0f && ots[1] == 1.0f);
    CHECK(sfk_mikk_uv_flags(0.0f) == SFK_MIKK_ANY && sfk_mikk_uv_flags(-1.0f) == 0u);
    CHECK(sfk_mikk_triangle(q0, q0, q2, uv0, uv1, uv2, 0u, os, ots) == SFK_MIKK_DEGEN);
    CHECK(sfk_mikk_vertex_w(1.0f, -1.0f, -2.0f) == 1.0f && sfk_mikk_vertex_w(1.0f, -1.0f, 2.0f) == -1.0f);
}

/* The kernels take the public sf_morph_directions values as they are: deltas adds the normal and tangent
 * deltas, none neither, normals the normal deltas only. Through the library, normals gives the normals of
 * deltas and the tangents of none. */
static void test_morph_directions_numbering(void)
{
    const float rp[3] = {0, 0, 0}, rn[3] = {0, 0, 1}, rt[3] = {1, 0, 0};
    const uint32_t target = 0;
    const float dp[3] = {0, 0, 0}, dn[3] = {2, 0, 0}, dt[3] = {0, 4, 0}, alpha = 0.5f;
    const sf_morph_directions all[3] = {SF_MORPH_DIRECTIONS_DELTAS, SF_MORPH_DIRECTIONS_NONE,
                                        SF_MORPH_DIRECTIONS_NORMALS};
    for (int k = 0; k < 3; ++k) {
        float p[3], n[3], t[3], m[12], det, fp[3];
        sfk_deform_vertex(rp, rn, rt, &target, dp, dn, dt, 1, &alpha, (int)all[k], NULL, NULL, NULL, 0, p, n, t, m,
                          &det, fp);
        int normal_added = all[k] != SF_MORPH_DIRECTIONS_NONE, tangent_added = all[k] == SF_MORPH_DIRECTIONS_DELTAS;
        CHECK(n[0] == (normal_added ? 1.0f : 0.0f) && n[2] == 1.0f);
        CHECK(t[1] == (tangent_added ? 2.0f : 0.0f) && t[0] == 1.0f);
    }
    sf_scene* scene = posed_sheet();
    CHECK(scene != NULL);
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&scene->mesh, NULL, NULL, &topo, NULL));
    size_t n = topo->vertex_count;
    sf_workspace* ws = NULL;
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    float* buf = calloc(3 * 7 * n, sizeof(float));
    CHECK(buf != NULL);
    float* nrm[3] = {buf, buf + 3 * n, buf + 6 * n};
    float* tan[3] = {buf + 9 * n, buf + 13 * n, buf + 17 * n};
    for (int k = 0; k < 3; ++k) {
        sf_frames_opts o;
        memset(&o, 0, sizeof o);
        o.morph_directions = all[k];
        sf_frames_out out = {NULL, nrm[k], tan[k]};
        CHECK_OK(sf_frames_compute(topo, &scene->pose, SF_METHOD_SKINNED, &o, ws, &out, NULL));
    }
    int ok = memcmp(nrm[2], nrm[0], 3 * n * sizeof(float)) == 0 && memcmp(tan[2], tan[1], 4 * n * sizeof(float)) == 0 &&
             memcmp(nrm[0], nrm[1], 3 * n * sizeof(float)) != 0 && memcmp(tan[0], tan[1], 4 * n * sizeof(float)) != 0;
    sf_workspace_destroy(ws);
    free(buf);
    sf_topology_destroy(topo);
    sf_scene_destroy(scene);
    CHECK(ok);
}

/* ---------------------------------------------------------------- sf_tangents_generate over plain arrays */

/* The generator (plain arrays) against the reference's tangent code run through a topology and a
 * workspace (the UV tangents the topology generates at rest; MikkTSpace at the identity pose), bit for bit,
 * on the sheet with some zero coordinates negated (-0 must be handled as the deformation handles it). */
static void test_tangents_generate_matches_reference(void)
{
    sf_scene* scene = posed_sheet();
    CHECK(scene);
    const sf_mesh_desc* sm = &scene->mesh;
    size_t n = sm->vertex_count, F = sm->triangle_count;
    float* P = calloc(8 * n, sizeof(float));
    float *N = P + 3 * n, *UV = N + 3 * n;
    for (size_t v = 0; v < n; ++v) {
        memcpy(P + 3 * v, sfi_stream_at(sm->positions, 12, v), 12);
        memcpy(N + 3 * v, sfi_stream_at(sm->normals, 12, v), 12);
        memcpy(UV + 2 * v, sfi_stream_at(sm->uvs, 8, v), 8);
        for (int k = 0; k < 3; ++k)
            if (P[3 * v + k] == 0.0f && v % 2) P[3 * v + k] = -0.0f;
    }
    sf_mesh_desc mesh;
    memset(&mesh, 0, sizeof mesh);
    mesh.vertex_count = n;
    mesh.triangle_count = F;
    mesh.indices = sm->indices;
    mesh.positions.data = P;
    mesh.normals.data = N;
    mesh.uvs.data = UV;
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    CHECK_OK(sf_topology_create(&mesh, NULL, NULL, &topo, NULL));
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    sf_pose identity;
    memset(&identity, 0, sizeof identity);
    float* ref = calloc(4 * n + 24 * F, sizeof(float));
    float *uv_ref = ref + 4 * n, *mk_ref = uv_ref + 12 * F;
    CHECK_OK(sfi_deform(topo, &identity, SF_MORPH_DIRECTIONS_NONE, ws));
    CHECK_OK(sfi_mikktspace_tangents(topo, ws->final_pos, topo->rest_normals, ws, ref, NULL));
    const float* corners = sfi_mikktspace_corner_tangents(ws);
    for (size_t c = 0; c < 3 * F; ++c) {
        memcpy(uv_ref + 4 * c, topo->rest_tangents + 4 * (size_t)mesh.indices[c], 16);
        memcpy(mk_ref + 4 * c, corners + 4 * c, 12);
        mk_ref[4 * c + 3] = corners[4 * c + 3] * topo->bitangent_sign;
    }
    sft_alloc_counter c = {0};
    sf_env env = sft_counting_env(&c);
    sf_tangent_desc d;
    memset(&d, 0, sizeof d);
    d.vertex_count = n;
    d.triangle_count = F;
    d.indices = mesh.indices;
    d.positions = mesh.positions;
    d.normals = mesh.normals;
    d.uvs = mesh.uvs;
    float* got = calloc(12 * F, sizeof(float));
    int ok = 1;
    for (int mode = 0; mode <= SF_TANGENTS_MIKKTSPACE && ok; ++mode) {
        d.mode = (sf_tangent_mode)mode;
        ok = sf_tangents_generate(&d, &env, got, NULL) == SF_OK &&
             same_floats(got, mode ? mk_ref : uv_ref, 12 * F, mode ? "mikktspace corners" : "uv corners");
        ok = ok && c.live == 0;
    }
    /* every allocation failing in turn: out of memory, nothing leaked */
    size_t total = c.calls;
    for (size_t k = 1; k <= total && ok; ++k) {
        c.calls = 0;
        c.fail_at = k;
        sf_result r = sf_tangents_generate(&d, &env, got, NULL);
        ok = (r == SF_OK || r == SF_ERROR_OUT_OF_MEMORY) && c.live == 0;
        if (!ok) sft_failf(__FILE__, __LINE__, "allocation %zu: %s, %zu left", k, sf_result_string(r), c.live);
    }
    c.fail_at = 0;
    /* bad input names the field */
    sf_error err;
    uint32_t bad[3] = {0, 1, (uint32_t)n};
    sf_tangent_desc e = d;
    e.indices = bad;
    e.triangle_count = 1;
    CHECK_RESULT(sf_tangents_generate(&e, NULL, got, &err), SF_ERROR_INDEX_RANGE);
    CHECK(strcmp(err.field, "desc.indices") == 0 && err.index == 2);
    e = d;
    e.positions.stride = 8;
    CHECK_RESULT(sf_tangents_generate(&e, NULL, got, &err), SF_ERROR_STRIDE);
    CHECK(strcmp(err.field, "desc.positions") == 0);
    e = d;
    e.indices = NULL;
    CHECK_RESULT(sf_tangents_generate(&e, NULL, got, &err), SF_ERROR_COUNT_MISMATCH);
    float nan_uv = UV[5];
    UV[5] = NAN;
    CHECK_RESULT(sf_tangents_generate(&d, NULL, got, &err), SF_ERROR_NOT_FINITE);
    CHECK(strcmp(err.field, "desc.uvs") == 0 && err.index == 2);
    UV[5] = nan_uv;
    free(got);
    free(ref);
    free(P);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    sf_scene_destroy(scene);
    CHECK(ok);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"size_equals_allocation", test_size_equals_allocation},
        {"size_follows_topology", test_size_follows_topology},
        {"out_of_memory", test_out_of_memory},
        {"refuses_other_methods", test_refuses_other_methods},
        {"minimal_equals_full", test_minimal_equals_full},
        {"backend_names", test_backend_names},
        {"reserve", test_reserve},
        {"cuda_backend", test_cuda_backend},
        {"cuda_host_scratch", test_cuda_host_scratch},
        {"kernels_match_loops", test_kernels_match_loops},
        {"kernel_pieces", test_kernel_pieces},
        {"morph_directions_numbering", test_morph_directions_numbering},
        {"tangents_generate_matches_reference", test_tangents_generate_matches_reference},
    };
    return SFT_RUN(cases, argc, argv);
}

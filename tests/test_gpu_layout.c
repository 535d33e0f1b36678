// LABELS: unit
/* The GPU data (sf_topology_gpu_buffers, src/core/gpu_layout.c): every buffer a shader reads is listed, and the
 * listed arrays alone give each method's frames. The jacobian and jacobian-fan frames are computed here from the
 * exported buffers through the kernels (as a shader does, one vertex at a time) and must equal
 * sf_frames_compute's bit for bit; export-gpu writes each listed buffer as NAME.bin. */
#define _POSIX_C_SOURCE 200809L
#include "sf_internal.h"
#include "sf_kernels.h"
#include "sf_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const sf_gpu_buffer* find(const sf_gpu_buffer* list, size_t count, const char* name)
{
    for (size_t i = 0; i < count; ++i)
        if (!strcmp(list[i].name, name)) return &list[i];
    return NULL;
}

#define F32(name) ((const float*)find(bufs, count, name)->data)
#define U32(name) ((const uint32_t*)find(bufs, count, name)->data)

/* A sheet twisted by its bones with two morph targets on: weights, morph gradients and mirroring-free bends. */
static sf_scene* posed_sheet(float* alpha, size_t cap)
{
    sf_scene* scene = NULL;
    if (sf_scene_create("sheet", "bone-twist", NULL, 0, NULL, &scene, NULL) != SF_OK) return NULL;
    size_t T = scene->mesh.target_count < cap ? scene->mesh.target_count : cap;
    for (size_t k = 0; k < T; ++k) alpha[k] = 0.3f + 0.2f * (float)k;
    scene->pose.morph_weights = alpha;
    scene->pose.morph_weight_count = T;
    return scene;
}

static void fan_buffers_listed(void)
{
    float alpha[16];
    sf_scene* scene = posed_sheet(alpha, 16);
    CHECK(scene);
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&scene->mesh, NULL, NULL, &topo, NULL));
    sf_gpu_buffer bufs[SF_GPU_MAX_BUFFERS];
    size_t count = sf_topology_gpu_buffers(topo, bufs, SF_GPU_MAX_BUFFERS);
    CHECK(count <= SF_GPU_MAX_BUFFERS);
    sfi_gradients_view g;
    CHECK(sfi_gradients_get(topo, SF_METHOD_JACOBIAN_FAN, &g));
    size_t n = sf_topology_vertex_count(topo);
    static const char* const names[] = {"fan_slot_offsets", "fan_slot_joint", "fan_slot_coef",
                                        "fan_morph_offsets", "fan_morph_target", "fan_morph_duv", "fan_normal"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        const sf_gpu_buffer* b = find(bufs, count, names[i]);
        if (!b) fprintf(stderr, "  %s not listed\n", names[i]);
        CHECK(b != NULL);
        CHECK(b->description && b->description[0]);
    }
    CHECK(find(bufs, count, "fan_slot_offsets")->count == n + 1);
    CHECK(find(bufs, count, "fan_slot_coef")->components == SFK_JACOBIAN_FAN_SLOT_FLOATS);
    CHECK(find(bufs, count, "fan_slot_coef")->count == g.slot_offsets[n]);
    CHECK(find(bufs, count, "fan_slot_joint")->count == g.slot_offsets[n]);
    CHECK(find(bufs, count, "fan_morph_duv")->count == g.morph_offsets[n]);
    CHECK(find(bufs, count, "fan_morph_duv")->components == 6);
    CHECK(g.morph_offsets[n] > 0); /* the morph targets reach the fan gradients */
    CHECK(find(bufs, count, "fan_normal")->count == n && find(bufs, count, "fan_normal")->components == 3);
    /* names are unique: they are the export's file stems */
    for (size_t i = 0; i < count; ++i)
        for (size_t j = i + 1; j < count; ++j) CHECK(strcmp(bufs[i].name, bufs[j].name) != 0);
    sf_topology_destroy(topo);
    sf_scene_destroy(scene);
}

/* The frames of `method` from the listed buffers alone (deformation included), against the library's. */
static void frames_from_buffers(sf_method method)
{
    float alpha[16];
    sf_scene* scene = posed_sheet(alpha, 16);
    CHECK(scene);
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&scene->mesh, NULL, NULL, &topo, NULL));
    sf_workspace* ws = NULL;
    CHECK_OK(sf_workspace_create(topo, NULL, &ws, NULL));
    size_t n = sf_topology_vertex_count(topo);
    float* want_n = calloc(3 * n, sizeof(float));
    float* want_t = calloc(4 * n, sizeof(float));
    CHECK(want_n && want_t);
    sf_frames_out out = {NULL, want_n, want_t};
    sf_frames_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.jacobian_cap = 0.5f;
    CHECK_OK(sf_frames_compute(topo, &scene->pose, method, &opts, ws, &out, NULL));
    sf_gpu_buffer bufs[SF_GPU_MAX_BUFFERS];
    size_t count = sf_topology_gpu_buffers(topo, bufs, SF_GPU_MAX_BUFFERS);
    int fan = method == SF_METHOD_JACOBIAN_FAN;
    const char* pre = fan ? "fan_" : "grad_";
    char name[64];
    static const char* const needed[] = {"slot_offsets", "slot_joint", "morph_offsets", "morph_target", "morph_duv"};
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; ++i) {
        snprintf(name, sizeof name, "%s%s", pre, needed[i]);
        if (!find(bufs, count, name)) fprintf(stderr, "  %s not listed\n", name);
        CHECK(find(bufs, count, name) != NULL);
    }
    CHECK(find(bufs, count, fan ? "fan_slot_coef" : "grad_slot_guv") && (!fan || find(bufs, count, "fan_normal")));
#define G(kind, suffix) (snprintf(name, sizeof name, "%s%s", pre, suffix), kind(name))
    const uint32_t* slot_off = G(U32, "slot_offsets");
    const uint32_t* slot_joint = G(U32, "slot_joint");
    const float* slot_coef = fan ? F32("fan_slot_coef") : F32("grad_slot_guv");
    const uint32_t* morph_off = G(U32, "morph_offsets");
    const uint32_t* morph_tgt = G(U32, "morph_target");
    const float* morph_duv = G(F32, "morph_duv");
#undef G
    uint32_t K = find(bufs, count, "joints")->components, stride = fan ? SFK_JACOBIAN_FAN_SLOT_FLOATS : 2u;
    const uint32_t* moff = U32("morph_offsets");
    size_t mismatches = 0;
    for (uint32_t v = 0; v < n; ++v) {
        float x[3], m[12], det, P[3], nv[3], tv[4];
        uint32_t e0 = moff[v];
        sfk_deform_position(F32("rest_positions") + 3 * v, U32("morph_target") + e0, F32("morph_dp") + 3 * e0,
                            moff[v + 1] - e0, alpha, scene->pose.bone_matrices, U32("joints") + K * v,
                            F32("weights") + K * v, K, x, m, &det, P);
        uint32_t s0 = slot_off[v], m0 = morph_off[v];
        if (fan)
            sfk_jacobian_fan_vertex(scene->pose.bone_matrices, m, det, x, P, F32("rest_normals") + 3 * v,
                                    F32("rest_tangents") + 4 * v, F32("fan_normal") + 3 * v, slot_joint + s0,
                                    slot_coef + stride * s0, slot_off[v + 1] - s0, morph_tgt + m0, morph_duv + 6 * m0,
                                    morph_off[v + 1] - m0, alpha, opts.jacobian_cap, nv, tv);
        else
            sfk_jacobian_vertex(scene->pose.bone_matrices, m, det, x, P, F32("rest_normals") + 3 * v,
                                F32("rest_tangents") + 4 * v, slot_joint + s0, slot_coef + stride * s0,
                                slot_off[v + 1] - s0, morph_tgt + m0, morph_duv + 6 * m0, morph_off[v + 1] - m0,
                                alpha, opts.jacobian_cap, nv, tv);
        mismatches += memcmp(nv, want_n + 3 * v, sizeof nv) != 0 || memcmp(tv, want_t + 4 * v, sizeof tv) != 0;
    }
    if (mismatches) fprintf(stderr, "  %s: %zu of %zu vertices differ\n", sf_method_name(method), mismatches, n);
    CHECK(mismatches == 0);
    free(want_n);
    free(want_t);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    sf_scene_destroy(scene);
}

static void jacobian_from_buffers(void) { frames_from_buffers(SF_METHOD_JACOBIAN); }
static void jacobian_fan_from_buffers(void) { frames_from_buffers(SF_METHOD_JACOBIAN_FAN); }

/* export-gpu writes every listed buffer, the fan's among them, with its size in layout.json. */
static void export_writes_fan_buffers(void)
{
    if (!getenv("SF_CLI")) return;
    char dir[] = "/tmp/sf_gpu_layout_XXXXXX";
    CHECK(mkdtemp(dir));
    char args[256];
    snprintf(args, sizeof args, "export-gpu --scene sheet --preset bone-twist --morph towel-twist=0.5 -o %s/x", dir);
    sft_cli_out r = sft_run_cli(args);
    int status = r.status;
    sft_cli_out_free(&r);
    CHECK(status == 0);
    char path[512];
    snprintf(path, sizeof path, "%s/x/layout.json", dir);
    char* json = sft_read_file(path, NULL);
    CHECK(json);
    int listed = strstr(json, "\"fan_slot_coef\"") && strstr(json, "\"fan_normal\"") &&
                 strstr(json, "\"fan_morph_duv\"");
    free(json);
    CHECK(listed);
    snprintf(path, sizeof path, "%s/x/fan_normal.bin", dir);
    size_t size = 0;
    char* bin = sft_read_file(path, &size);
    CHECK(bin);
    free(bin);
    CHECK(size > 0 && size % 12 == 0);
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    CHECK(system(path) == 0);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"fan_buffers_listed", fan_buffers_listed},
        {"jacobian_from_buffers", jacobian_from_buffers},
        {"jacobian_fan_from_buffers", jacobian_fan_from_buffers},
        {"export_writes_fan_buffers", export_writes_fan_buffers},
    };
    return SFT_RUN(cases, argc, argv);
}

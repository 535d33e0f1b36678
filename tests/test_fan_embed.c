// LABELS: unit
/* jacobian-fan's coefficients as vertex attributes (sf_fan_attributes_*): the layout and its padding, the float
 * arrays' reference evaluation against sf_frames_compute's jacobian-fan bit for bit, the snorm16 values within
 * their stated bound, and the snorm16 arrays' angle error against the float path (docs/embedded.md states the bound this checks), on every
 * built-in scene and preset, morphed sheets and every staged glTF primitive. */
#include "sf_internal.h"
#include "sf_kernels.h"
#include "sf_test.h"
#include "sft_assets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The snorm16 path's bound, degrees (docs/embedded.md): measured well below it on every case here. */
#define SNORM_BOUND_DEG 0.01

typedef struct arrays {
    sf_fan_attributes a;
} arrays;

static int arrays_make(const sf_topology* topo, sf_fan_encoding enc, arrays* out)
{
    sf_error err;
    memset(out, 0, sizeof *out);
    if (sf_fan_layout_get(topo, &out->a.layout, &err) != SF_OK) return 0;
    size_t n = out->a.layout.vertex_count, G = out->a.layout.slot_groups, T = out->a.layout.target_count;
    size_t elem = enc == SF_FAN_SNORM16 ? 2 : 4;
    out->a.encoding = enc;
    out->a.normal = calloc(3 * n + 1, sizeof(float));
    out->a.joints = calloc(4 * G * n + 1, sizeof(uint16_t));
    out->a.coef = calloc(SF_FAN_COEFS * 4 * G * n + 1, elem);
    out->a.morph = calloc(6 * T * n + 1, elem);
    out->a.scale = calloc(SF_FAN_SCALES * n + 1, sizeof(float));
    return 1;
}

static void arrays_free(arrays* a)
{
    free(a->a.normal);
    free(a->a.joints);
    free(a->a.coef);
    free(a->a.morph);
    free(a->a.scale);
}

/* Largest angle between two direction arrays (stride floats each); a zero on one side only counts 180. */
static double max_angle(const float* a, const float* b, size_t n, size_t stride)
{
    double worst = 0.0;
    for (size_t v = 0; v < n; ++v) {
        const float *x = a + stride * v, *y = b + stride * v;
        int zx = x[0] == 0.0f && x[1] == 0.0f && x[2] == 0.0f, zy = y[0] == 0.0f && y[1] == 0.0f && y[2] == 0.0f;
        double d = zx && zy ? 0.0 : zx != zy ? 180.0 : sf_angle_deg(x, y);
        if (d > worst) worst = d;
    }
    return worst;
}

typedef struct tally {
    size_t cases;
    double snorm_normal, snorm_tangent; /* largest snorm16 error seen */
} tally;

/* One posed mesh: the float arrays give the library's frames bit for bit, snorm16 within the bound. */
static void check_mesh(const sf_topology* topo, const sf_pose* pose, const char* where, void* user)
{
    tally* t = (tally*)user;
    sf_error err;
    size_t n = topo->vertex_count;
    float* lib_n = calloc(3 * n + 1, sizeof(float));
    float* lib_t = calloc(4 * n + 1, sizeof(float));
    float* emb_n = calloc(3 * n + 1, sizeof(float));
    float* emb_t = calloc(4 * n + 1, sizeof(float));
    sf_workspace* ws = NULL;
    sf_workspace_opts wo = {1u << SF_METHOD_JACOBIAN_FAN, SF_BACKEND_CPU};
    CHECK_OK(sf_workspace_create(topo, &wo, &ws, &err));
    sf_frames_out out = {NULL, lib_n, lib_t};
    CHECK_OK(sf_frames_compute(topo, pose, SF_METHOD_JACOBIAN_FAN, NULL, ws, &out, &err));
    sf_workspace_destroy(ws);
    arrays f, h;
    CHECK(arrays_make(topo, SF_FAN_FLOAT32, &f));
    CHECK(arrays_make(topo, SF_FAN_SNORM16, &h));
    CHECK_OK(sf_fan_attributes_export(topo, &f.a, &err));
    CHECK_OK(sf_fan_attributes_frames(topo, &f.a, pose, emb_n, emb_t, &err));
    int same = memcmp(lib_n, emb_n, 3 * n * sizeof(float)) == 0;
    /* without UVs the library zeroes the tangents afterwards; the evaluation from the arrays does not */
    if (topo->has_uvs) same &= memcmp(lib_t, emb_t, 4 * n * sizeof(float)) == 0;
    if (!same) sft_failf(__FILE__, __LINE__, "%s: float attributes differ from jacobian-fan", where);
    CHECK_OK(sf_fan_attributes_export(topo, &h.a, &err));
    {
        CHECK_OK(sf_fan_attributes_frames(topo, &h.a, pose, lib_n, lib_t, &err));
        double dn = max_angle(lib_n, emb_n, n, 3), dt = topo->has_uvs ? max_angle(lib_t, emb_t, n, 4) : 0.0;
        if (dn > t->snorm_normal) t->snorm_normal = dn;
        if (dt > t->snorm_tangent) t->snorm_tangent = dt;
        if (!(dn <= SNORM_BOUND_DEG && dt <= SNORM_BOUND_DEG))
            sft_failf(__FILE__, __LINE__, "%s: snorm16 attributes %.3g / %.3g degrees off", where, dn, dt);
        for (size_t v = 0; v < n && topo->has_uvs; ++v)
            if (lib_t[4 * v + 3] != emb_t[4 * v + 3]) {
                sft_failf(__FILE__, __LINE__, "%s: snorm16 handedness differs at vertex %zu", where, v);
                break;
            }
    }
    ++t->cases;
    arrays_free(&f);
    arrays_free(&h);
    free(lib_n);
    free(lib_t);
    free(emb_n);
    free(emb_t);
}

static void scene_case(const char* name, const char* preset, const sf_scene_setting* s, size_t count, tally* t)
{
    sf_scene* scene = NULL;
    sf_error err;
    CHECK_OK(sf_scene_create(name, preset, s, count, NULL, &scene, &err));
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&scene->mesh, NULL, NULL, &topo, &err));
    char where[160];
    snprintf(where, sizeof where, "scene %s preset %s%s", name, preset ? preset : "rest", count ? " morphed" : "");
    check_mesh(topo, &scene->pose, where, t);
    sf_topology_destroy(topo);
    sf_scene_destroy(scene);
}

static void test_scenes(void)
{
    tally t = {0, 0.0, 0.0};
    for (size_t i = 0; i < sf_scene_count(); ++i) {
        const sf_scene_info* info = sf_scene_info_at(i);
        scene_case(info->name, NULL, NULL, 0, &t);
        for (size_t p = 0; p < info->preset_count; ++p) scene_case(info->name, info->presets[p].name, NULL, 0, &t);
        /* every target of the scene at once, at weights that overlap */
        sf_scene_setting s[8];
        size_t c = 0;
        for (size_t k = 0; k < info->target_count && c < 8; ++k) s[c++] = (sf_scene_setting){info->targets[k], 0.8 - 0.3 * (double)k};
        if (c && info->preset_count) scene_case(info->name, info->presets[0].name, s, c, &t);
    }
    printf("  %zu scene cases; snorm16 largest error: normals %.3g deg, tangents %.3g deg\n", t.cases,
           t.snorm_normal, t.snorm_tangent);
    CHECK(t.cases > 10);
}

static void test_staged_assets(void)
{
    tally t = {0, 0.0, 0.0};
    int files = sft_each_staged_primitive(check_mesh, &t);
    if (!files) {
        sft_skip("SF_ASSETS unset");
        return;
    }
    printf("  %zu staged primitives; snorm16 largest error: normals %.3g deg, tangents %.3g deg\n", t.cases,
           t.snorm_normal, t.snorm_tangent);
    CHECK(t.cases >= (size_t)files);
}

/* Every snorm16 value decodes within scale / 65534 of the float one, the scale being the kind's largest |value|
 * at the vertex. */
static void check_snorm_values(const sf_topology* topo, const sf_pose* pose, const char* where, void* user)
{
    (void)pose;
    size_t* checked = (size_t*)user;
    sf_error err;
    arrays f, h;
    CHECK(arrays_make(topo, SF_FAN_FLOAT32, &f));
    CHECK(arrays_make(topo, SF_FAN_SNORM16, &h));
    CHECK_OK(sf_fan_attributes_export(topo, &f.a, &err));
    CHECK_OK(sf_fan_attributes_export(topo, &h.a, &err));
    size_t n = topo->vertex_count, G = f.a.layout.slot_groups, T = f.a.layout.target_count;
    const float* fc = (const float*)f.a.coef;
    const int16_t* hc = (const int16_t*)h.a.coef;
    const float* fm = (const float*)f.a.morph;
    const int16_t* hm = (const int16_t*)h.a.morph;
    for (size_t v = 0; v < n; ++v) {
        double most[SF_FAN_SCALES] = {0}, worst[SF_FAN_SCALES] = {0};
        const float* sc = h.a.scale + SF_FAN_SCALES * v;
        for (size_t a = 0; a < SF_FAN_COEFS * G; ++a)
            for (size_t i = 0; i < 4; ++i) {
                size_t at = a * 4 * n + 4 * v + i, kind = a % SF_FAN_COEFS;
                double want = fc[at], got = hc[at] / 32767.0 * sc[kind];
                if (fabs(want) > most[kind]) most[kind] = fabs(want);
                if (fabs(got - want) > worst[kind]) worst[kind] = fabs(got - want);
            }
        for (size_t a = 0; a < 6 * T; ++a) {
            size_t at = (a / 3) * 3 * n + 3 * v + a % 3;
            double want = fm[at], got = hm[at] / 32767.0 * sc[SF_FAN_COEFS];
            if (fabs(want) > most[SF_FAN_COEFS]) most[SF_FAN_COEFS] = fabs(want);
            if (fabs(got - want) > worst[SF_FAN_COEFS]) worst[SF_FAN_COEFS] = fabs(got - want);
        }
        for (int k = 0; k < (int)SF_FAN_SCALES; ++k) {
            int ok = sc[k] == (float)most[k];
            ok &= worst[k] <= sc[k] / 65534.0 * 1.01; /* + the float division's rounding */
            if (!ok) {
                sft_failf(__FILE__, __LINE__, "%s vertex %zu kind %d: scale %g, largest %g, error %g", where, v, k,
                          (double)sc[k], most[k], worst[k]);
                return;
            }
        }
    }
    ++*checked;
    arrays_free(&f);
    arrays_free(&h);
}

static void test_snorm_values(void)
{
    size_t checked = 0;
    sf_scene* scene = NULL;
    sf_error err;
    sf_scene_setting s[] = {{"towel-twist", 1.0}};
    CHECK_OK(sf_scene_create("sheet", "bone-twist", s, 1, NULL, &scene, &err));
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&scene->mesh, NULL, NULL, &topo, &err));
    check_snorm_values(topo, &scene->pose, "sheet", &checked);
    sf_topology_destroy(topo);
    sf_scene_destroy(scene);
    int files = sft_each_staged_primitive(check_snorm_values, &checked);
    CHECK(checked >= 1 + (size_t)files);
}

/* The layout: groups of 4 slots cover the most any vertex uses; padding is the rest joint with zeros; wrong
 * layouts and a topology without gradients are refused. */
static void test_layout_and_refusals(void)
{
    sf_scene* scene = NULL;
    sf_error err;
    CHECK_OK(sf_scene_create("elbow", "bend", NULL, 0, NULL, &scene, &err));
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&scene->mesh, NULL, NULL, &topo, &err));
    arrays f;
    CHECK(arrays_make(topo, SF_FAN_FLOAT32, &f));
    const sfi_gradients* g = topo->fan_gradients;
    uint32_t most = 0;
    for (size_t v = 0; v < topo->vertex_count; ++v)
        if (g->slot_offsets[v + 1] - g->slot_offsets[v] > most) most = g->slot_offsets[v + 1] - g->slot_offsets[v];
    CHECK(f.a.layout.max_slots == most && most > 1);
    CHECK(f.a.layout.slot_groups * 4 >= most && f.a.layout.slot_groups * 4 < most + 4);
    CHECK_OK(sf_fan_attributes_export(topo, &f.a, &err));
    size_t n = topo->vertex_count, pads = 0;
    for (size_t v = 0; v < n; ++v) {
        uint32_t count = g->slot_offsets[v + 1] - g->slot_offsets[v];
        for (uint32_t s = count; s < 4 * f.a.layout.slot_groups; ++s) {
            size_t grp = s / 4, lane = 4 * v + s % 4;
            CHECK(f.a.joints[grp * 4 * n + lane] == SF_FAN_REST_JOINT);
            for (size_t c = 0; c < SF_FAN_COEFS; ++c) CHECK(((float*)f.a.coef)[(6 * grp + c) * 4 * n + lane] == 0.0f);
            ++pads;
        }
        for (uint32_t s = 0; s < count; ++s)
            CHECK(f.a.joints[(s / 4) * 4 * n + 4 * v + s % 4] == g->slot_joint[g->slot_offsets[v] + s]);
    }
    CHECK(pads > 0);
    f.a.layout.slot_groups += 1;
    CHECK_RESULT(sf_fan_attributes_export(topo, &f.a, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(err.field, "layout") != NULL);
    f.a.layout.slot_groups -= 1;
    f.a.encoding = (sf_fan_encoding)7;
    CHECK_RESULT(sf_fan_attributes_export(topo, &f.a, &err), SF_ERROR_INVALID_ARGUMENT);
    f.a.encoding = SF_FAN_SNORM16;
    float* scale = f.a.scale;
    f.a.scale = NULL;
    CHECK_RESULT(sf_fan_attributes_export(topo, &f.a, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(err.field, "attributes.scale") == 0);
    f.a.scale = scale;
    arrays_free(&f);
    sf_topology_destroy(topo);
    sf_topology_opts o = {1, 0.0f};
    CHECK_OK(sf_topology_create(&scene->mesh, &o, NULL, &topo, &err));
    sf_fan_layout l;
    CHECK_RESULT(sf_fan_layout_get(topo, &l, &err), SF_ERROR_UNSUPPORTED);
    sf_topology_destroy(topo);
    sf_scene_destroy(scene);
}

int main(int argc, char** argv)
{
    const sft_case cases[] = {
        {"snorm_values", test_snorm_values},
        {"layout_and_refusals", test_layout_and_refusals},
        {"scenes", test_scenes},
        {"staged_assets", test_staged_assets},
    };
    return SFT_RUN(cases, argc, argv);
}

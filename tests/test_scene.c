// LABELS: unit
/* The built-in scenes' API: registry, settings and their errors, resolution, weights, rest frames,
 * morph target deltas against the closed-form surfaces, rig and framing, allocator use. */
#include "sf_test.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static sf_scene* make(const char* name, const char* preset, const sf_scene_setting* s, size_t ns)
{
    sf_scene* scene = NULL;
    sf_error err;
    if (sf_scene_create(name, preset, s, ns, NULL, &scene, &err) != SF_OK) {
        sft_failf(__FILE__, __LINE__, "%s/%s: %s", name, preset ? preset : "", err.message);
        return NULL;
    }
    return scene;
}

static double param(const sf_scene* s, const char* name)
{
    for (size_t i = 0; i < s->param_count; ++i)
        if (strcmp(s->param_names[i], name) == 0) return s->param_values[i];
    return NAN;
}

static void test_registry(void)
{
    static const char* const names[] = {"tip", "sheet", "ramp", "elbow", "strip"};
    CHECK(sf_scene_count() == 5);
    for (size_t i = 0; i < 5; ++i) {
        const sf_scene_info* info = sf_scene_info_at(i);
        CHECK(info && strcmp(info->name, names[i]) == 0);
        CHECK(sf_scene_info_find(names[i]) == info);
        CHECK(info->description && info->description[0]);
        for (size_t p = 0; p < info->param_count; ++p) {
            const sf_scene_param_info* pi = &info->params[p];
            CHECK(pi->min_value <= pi->default_value && pi->default_value <= pi->max_value);
            CHECK(pi->unit && pi->description && pi->description[0]);
        }
        for (size_t p = 0; p < info->preset_count; ++p) CHECK(info->presets[p].settings && info->presets[p].description);
    }
    CHECK(sf_scene_info_at(5) == NULL);
    CHECK(sf_scene_info_find("towel") == NULL);
    CHECK(sf_scene_info_find(NULL) == NULL);
    CHECK(sf_scene_info_find("tip")->reference_weighting == SF_WEIGHTING_UNIFORM);
    CHECK(sf_scene_info_find("sheet")->reference_weighting == SF_WEIGHTING_AREA);
    /* The presets the issue names. */
    static const char* const presets[][2] = {{"tip", "move-neighbor"}, {"sheet", "bone-twist"}, {"sheet", "bone-bend"},
                                             {"ramp", "stretch"},      {"elbow", "bend"},       {"strip", "lift"}};
    for (size_t i = 0; i < 6; ++i) {
        sf_scene* s = make(presets[i][0], presets[i][1], NULL, 0);
        CHECK(s != NULL);
        sf_scene_destroy(s);
    }
}

static void test_every_scene_is_a_valid_mesh(void)
{
    for (size_t i = 0; i < sf_scene_count(); ++i) {
        const sf_scene_info* info = sf_scene_info_at(i);
        for (size_t p = 0; p <= info->preset_count; ++p) {
            sf_scene* s = make(info->name, p ? info->presets[p - 1].name : NULL, NULL, 0);
            CHECK(s != NULL);
            CHECK(s->info == info && s->reference_weighting == info->reference_weighting);
            sf_topology* topo;
            sf_error err;
            sf_mesh_desc strict = s->mesh;
            strict.weight_policy = SF_WEIGHTS_STRICT;
            CHECK_OK(sf_topology_create(&strict, NULL, NULL, &topo, &err));
            sf_topology_stats st;
            sf_topology_get_stats(topo, &st);
            CHECK(st.degenerate_triangles == 0 && st.degenerate_uv_triangles == 0 && st.isolated_vertices == 0);
            CHECK(st.generated_normals == 0 && st.generated_tangents == 0);
            CHECK_OK(sf_pose_validate(topo, &s->pose, &err));
            sf_topology_destroy(topo);
            sf_scene_destroy(s);
        }
    }
}

static void test_settings_errors(void)
{
    sf_scene* s = (sf_scene*)(uintptr_t)1;
    sf_error err;
    CHECK_RESULT(sf_scene_create("towel", NULL, NULL, 0, NULL, &s, &err), SF_ERROR_UNKNOWN_NAME);
    CHECK(s == NULL && strcmp(err.field, "scene") == 0 && strstr(err.message, "towel") && strstr(err.message, "sheet"));
    CHECK_RESULT(sf_scene_create(NULL, NULL, NULL, 0, NULL, &s, &err), SF_ERROR_UNKNOWN_NAME);
    CHECK_RESULT(sf_scene_create("sheet", "bone-wiggle", NULL, 0, NULL, &s, &err), SF_ERROR_UNKNOWN_NAME);
    CHECK(strcmp(err.field, "preset") == 0 && strstr(err.message, "bone-wiggle") && strstr(err.message, "bone-twist"));
    sf_scene_setting bad_name[2] = {{"twist", 10}, {"wiggle", 1}};
    CHECK_RESULT(sf_scene_create("sheet", NULL, bad_name, 2, NULL, &s, &err), SF_ERROR_UNKNOWN_NAME);
    CHECK(strcmp(err.field, "settings") == 0 && err.index == 1 && strstr(err.message, "wiggle"));
    sf_scene_setting range[1] = {{"twist", 1000}};
    CHECK_RESULT(sf_scene_create("sheet", NULL, range, 1, NULL, &s, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(err.index == 0 && strstr(err.message, "twist") && strstr(err.message, "720"));
    sf_scene_setting morph_range[1] = {{"ripples", 2.5}};
    CHECK_RESULT(sf_scene_create("sheet", NULL, morph_range, 1, NULL, &s, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "ripples"));
    sf_scene_setting frac[1] = {{"resolution", 4.5}};
    CHECK_RESULT(sf_scene_create("sheet", NULL, frac, 1, NULL, &s, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "resolution"));
    sf_scene_setting zero[1] = {{"resolution", 0}};
    CHECK_RESULT(sf_scene_create("ramp", NULL, zero, 1, NULL, &s, &err), SF_ERROR_INVALID_ARGUMENT);
    sf_scene_setting nan_value[1] = {{"bend", NAN}};
    CHECK_RESULT(sf_scene_create("elbow", NULL, nan_value, 1, NULL, &s, &err), SF_ERROR_NOT_FINITE);
    sf_scene_setting null_name[1] = {{NULL, 1}};
    CHECK_RESULT(sf_scene_create("elbow", NULL, null_name, 1, NULL, &s, &err), SF_ERROR_INVALID_ARGUMENT);
    /* The tip is a fixed four-vertex mesh: it has no resolution. */
    sf_scene_setting res[1] = {{"resolution", 4}};
    CHECK_RESULT(sf_scene_create("tip", NULL, res, 1, NULL, &s, &err), SF_ERROR_UNKNOWN_NAME);
    CHECK_RESULT(sf_scene_create("tip", NULL, NULL, 1, NULL, &s, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK_RESULT(sf_scene_create("tip", NULL, NULL, 0, NULL, NULL, &err), SF_ERROR_INVALID_ARGUMENT);
    CHECK(s == NULL);
}

static void test_settings_order(void)
{
    /* Preset first, then the settings in order: the last one wins. */
    sf_scene_setting s[3] = {{"bend", 30}, {"bend", 45}, {"towel-twist", 0.5}};
    sf_scene* a = make("sheet", "bone-twist", s, 3);
    CHECK(a != NULL);
    CHECK(param(a, "twist") == 90.0 && param(a, "bend") == 45.0 && param(a, "towel-twist") == 0.5);
    CHECK(param(a, "resolution") == 16.0 && param(a, "ripples") == 0.0);
    CHECK(a->param_count == a->info->param_count + a->info->target_count);
    CHECK(a->pose.morph_weights && a->pose.morph_weight_count == 4 && a->pose.morph_weights[0] == 0.5f);
    sf_scene_destroy(a);
    sf_scene_setting undo[1] = {{"twist", 0}};
    sf_scene* b = make("sheet", "bone-twist", undo, 1);
    CHECK(b != NULL);
    for (size_t i = 0; i < 12 * b->pose.bone_count; ++i) /* back at rest: identity matrices */
        CHECK_NEAR(b->pose.bone_matrices[i], (i % 12 == 0 || i % 12 == 4 || i % 12 == 8) ? 1.0 : 0.0, 1e-7);
    sf_scene_destroy(b);
    sf_scene* c = make("ramp", "", NULL, 0); /* "" = rest */
    CHECK(c && param(c, "stretch") == 1.0 && c->pose.bone_matrices[0] == 1.0f);
    sf_scene_destroy(c);
}

static void test_resolution_counts(void)
{
    struct {
        const char* scene;
        double r;
        size_t vertices, triangles;
    } cases[] = {
        {"sheet", 16, 81 * 17, 2 * 80 * 16}, {"sheet", 3, 16 * 4, 2 * 15 * 3}, {"ramp", 8, 81, 128},
        {"ramp", 1, 4, 2},                   {"elbow", 2, 11 * 3, 2 * 10 * 2}, {"strip", 8, 41 * 9, 2 * 40 * 8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        sf_scene_setting s[1] = {{"resolution", cases[i].r}};
        sf_scene* sc = make(cases[i].scene, NULL, s, 1);
        CHECK(sc != NULL);
        CHECK(sc->mesh.vertex_count == cases[i].vertices && sc->mesh.triangle_count == cases[i].triangles);
        sf_scene_destroy(sc);
    }
    sf_scene* d = make("sheet", NULL, NULL, 0); /* the default is the "at least 64 x 16" */
    CHECK(d && d->mesh.vertex_count == 81 * 17);
    sf_scene_destroy(d);
    sf_scene* tip = make("tip", NULL, NULL, 0);
    CHECK(tip && tip->mesh.vertex_count == 4 && tip->mesh.triangle_count == 3);
    /* The tip vertex is shared by all three faces. */
    for (size_t f = 0; f < 3; ++f) CHECK(tip->mesh.indices[3 * f] == 0);
    sf_scene_destroy(tip);
}

static void test_weights(void)
{
    for (size_t i = 0; i < sf_scene_count(); ++i) {
        const sf_scene_info* info = sf_scene_info_at(i);
        sf_scene* s = make(info->name, NULL, NULL, 0);
        CHECK(s != NULL);
        const sf_mesh_desc* m = &s->mesh;
        uint32_t K = m->influence_count;
        CHECK(K >= 1 && m->bone_count == s->pose.bone_count);
        for (size_t v = 0; v < m->vertex_count; ++v) {
            double sum = 0.0;
            for (uint32_t k = 0; k < K; ++k) {
                CHECK(m->joints[K * v + k] < m->bone_count && m->weights[K * v + k] >= 0.0f);
                sum += m->weights[K * v + k];
            }
            CHECK_NEAR(sum, 1.0, 1e-6);
        }
        sf_scene_destroy(s);
    }
    /* The sheet: 5 bones, 4 influences, 4 nonzero somewhere, weights that change across triangles. */
    sf_scene* s = make("sheet", NULL, NULL, 0);
    CHECK(s && s->mesh.bone_count == 5 && s->mesh.influence_count == 4);
    size_t four = 0, varying = 0;
    float* dense = calloc(5 * s->mesh.vertex_count, sizeof(float));
    for (size_t v = 0; v < s->mesh.vertex_count; ++v) {
        size_t nz = 0;
        for (int k = 0; k < 4; ++k) {
            nz += s->mesh.weights[4 * v + k] > 0.0f;
            dense[5 * v + s->mesh.joints[4 * v + k]] += s->mesh.weights[4 * v + k];
        }
        four += nz == 4;
    }
    for (size_t f = 0; f < s->mesh.triangle_count; ++f) {
        const uint32_t* t = s->mesh.indices + 3 * f;
        for (int b = 0; b < 5; ++b)
            if (fabsf(dense[5 * t[0] + b] - dense[5 * t[1] + b]) > 1e-3f) {
                varying++;
                break;
            }
    }
    CHECK(four > s->mesh.vertex_count / 4); /* 494 of 1377: the ends reach only two or three bones */
    CHECK(varying > s->mesh.triangle_count / 2);
    /* Independent check at a vertex on the centre line inside bone 2 (x = 2.5, z = 0): bone 2 at
     * distance 0, bones 1 and 3 at 0.5, bones 0 and 4 at 1.5 (outside the 1.5 radius). */
    size_t cols = 81, v = 8 * cols + 40;
    CHECK_NEAR(s->mesh.positions.data[3 * v], 2.5, 1e-6);
    CHECK_NEAR(s->mesh.positions.data[3 * v + 2], 0.0, 1e-6);
    double f1 = (1.0 - 0.25 / 2.25) * (1.0 - 0.25 / 2.25), total = 1.0 + 2.0 * f1;
    CHECK_NEAR(dense[5 * v + 2], 1.0 / total, 1e-6);
    CHECK_NEAR(dense[5 * v + 1], f1 / total, 1e-6);
    CHECK_NEAR(dense[5 * v + 3], f1 / total, 1e-6);
    CHECK(dense[5 * v + 0] == 0.0f && dense[5 * v + 4] == 0.0f);
    free(dense);
    sf_scene_destroy(s);
}

static void test_rest_frames_and_uvs(void)
{
    for (size_t i = 0; i < sf_scene_count(); ++i) {
        sf_scene* s = make(sf_scene_info_at(i)->name, NULL, NULL, 0);
        CHECK(s != NULL);
        const sf_mesh_desc* m = &s->mesh;
        CHECK(m->normals.data && m->tangents.data && m->uvs.data);
        float w0 = m->tangents.data[3];
        for (size_t v = 0; v < m->vertex_count; ++v) {
            const float* n = m->normals.data + 3 * v;
            const float* t = m->tangents.data + 4 * v;
            CHECK_NEAR(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1.0, 1e-6);
            CHECK_NEAR(t[0] * t[0] + t[1] * t[1] + t[2] * t[2], 1.0, 1e-6);
            CHECK_NEAR(n[0] * t[0] + n[1] * t[1] + n[2] * t[2], 0.0, 1e-6);
            CHECK(n[1] > 0.5f);  /* y is up: every scene faces up at rest */
            CHECK(t[3] == w0);   /* no mirrored UVs anywhere */
        }
        /* Tangents run along +u: along the first triangle's edges, u grows where the tangent points. */
        const uint32_t* tri = m->indices;
        const float* t0 = m->tangents.data + 4 * tri[0];
        for (int e = 1; e < 3; ++e) {
            const float *p0 = m->positions.data + 3 * tri[0], *p1 = m->positions.data + 3 * tri[e];
            float du = m->uvs.data[2 * tri[e]] - m->uvs.data[2 * tri[0]];
            float along = (p1[0] - p0[0]) * t0[0] + (p1[1] - p0[1]) * t0[1] + (p1[2] - p0[2]) * t0[2];
            CHECK(fabsf(du) < 1e-6f || (du > 0.0f) == (along > 0.0f));
        }
        sf_scene_destroy(s);
    }
    /* The sheet: u = x, v = z + 0.5 (glTF: v grows from the far edge z = -0.5 toward the viewer). */
    sf_scene* s = make("sheet", NULL, NULL, 0);
    CHECK(s != NULL);
    for (size_t v = 0; v < s->mesh.vertex_count; v += 37) {
        CHECK_NEAR(s->mesh.uvs.data[2 * v], s->mesh.positions.data[3 * v], 1e-6);
        CHECK_NEAR(s->mesh.uvs.data[2 * v + 1], s->mesh.positions.data[3 * v + 2] + 0.5, 1e-6);
    }
    sf_scene_destroy(s);
}

/* Deltas at vertex v against the closed form of the ripples target: y = 0.1 sin(8 pi x / 5) sin(2 pi z). */
static void test_morph_target_deltas(void)
{
    sf_scene* s = make("sheet", NULL, NULL, 0);
    CHECK(s && s->mesh.target_count == 4);
    static const char* const names[] = {"towel-twist", "swirl", "middle-fold", "ripples"};
    for (int k = 0; k < 4; ++k) CHECK(strcmp(s->mesh.targets[k].name, names[k]) == 0);
    const sf_morph_target_desc* rip = &s->mesh.targets[3];
    const sf_morph_target_desc* twist = &s->mesh.targets[0];
    const sf_morph_target_desc* swirl = &s->mesh.targets[1];
    for (size_t v = 0; v < s->mesh.vertex_count; v += 13) {
        double x = s->mesh.positions.data[3 * v], z = s->mesh.positions.data[3 * v + 2];
        double a = 8.0 * PI / 5.0, b = 2.0 * PI;
        double hx = 0.1 * a * cos(a * x) * sin(b * z), hz = 0.1 * b * sin(a * x) * cos(b * z);
        double len = sqrt(hx * hx + 1.0 + hz * hz), lt = sqrt(1.0 + hx * hx);
        CHECK_NEAR(rip->position_deltas[3 * v + 1], 0.1 * sin(a * x) * sin(b * z), 1e-6);
        CHECK_NEAR(rip->position_deltas[3 * v + 0], 0.0, 1e-7);
        /* Normal of the height field (-h_x, 1, -h_z), tangent (1, h_x, 0), both unit, minus the rest. */
        CHECK_NEAR(rip->normal_deltas[3 * v + 0], -hx / len, 1e-5);
        CHECK_NEAR(rip->normal_deltas[3 * v + 1], 1.0 / len - 1.0, 1e-5);
        CHECK_NEAR(rip->normal_deltas[3 * v + 2], -hz / len, 1e-5);
        CHECK_NEAR(rip->tangent_deltas[3 * v + 0], 1.0 / lt - 1.0, 1e-5);
        CHECK_NEAR(rip->tangent_deltas[3 * v + 1], hx / lt, 1e-5);
        /* Towel twist: cross-sections turned by pi x / 5 about x; the far end (x = 5) upside down. */
        double ang = PI * x / 5.0;
        CHECK_NEAR(twist->position_deltas[3 * v + 1], -z * sin(ang), 1e-6);
        CHECK_NEAR(twist->position_deltas[3 * v + 2], z * cos(ang) - z, 1e-6);
        if (x == 5.0) CHECK_NEAR(twist->normal_deltas[3 * v + 1], -2.0, 1e-4);
        /* Swirl: positions stay in the plane, normals do not change. */
        CHECK(swirl->position_deltas[3 * v + 1] == 0.0f);
        CHECK(fabsf(swirl->normal_deltas[3 * v + 0]) + fabsf(swirl->normal_deltas[3 * v + 1]) +
                  fabsf(swirl->normal_deltas[3 * v + 2]) <
              1e-6f);
    }
    /* Swirl at the centre vertex (2.5, 0, 0): the tangent turns by 90 degrees, to +z or -z. */
    size_t c = 8 * 81 + 40;
    CHECK_NEAR(s->mesh.positions.data[3 * c], 2.5, 1e-6);
    CHECK_NEAR(swirl->tangent_deltas[3 * c + 0], -1.0, 1e-4);
    CHECK_NEAR(fabs(swirl->tangent_deltas[3 * c + 2]), 1.0, 1e-4);
    sf_scene_destroy(s);
}

static void test_rig_and_framing(void)
{
    sf_scene* s = make("sheet", NULL, NULL, 0);
    CHECK(s && s->bone_heads && s->bone_tails);
    for (size_t b = 0; b < 5; ++b) {
        CHECK_NEAR(s->bone_heads[3 * b], (double)b, 1e-6);
        CHECK_NEAR(s->bone_tails[3 * b], (double)b + 1.0, 1e-6);
    }
    CHECK_NEAR(s->center[0], 2.5, 1e-6);
    CHECK_NEAR(s->center[1], 0.0, 1e-6);
    CHECK_NEAR(s->radius, sqrt(2.5 * 2.5 + 0.5 * 0.5), 1e-5);
    sf_scene_destroy(s);
    /* bone-bend: joints 1..4 turn 22.5 degrees each; bone 4's tail lands at (1, 0) + the sum of unit
     * steps at 22.5, 45, 67.5 and 90 degrees, which is (1 + 2.0137, 3.0137). */
    s = make("sheet", "bone-bend", NULL, 0);
    CHECK(s != NULL);
    double c1 = cos(PI / 8), c2 = cos(PI / 4), c3 = cos(3 * PI / 8);
    CHECK_NEAR(s->bone_tails[3 * 4 + 0], 1.0 + c1 + c2 + c3, 1e-5);
    CHECK_NEAR(s->bone_tails[3 * 4 + 1], c3 + c2 + c1 + 1.0, 1e-5);
    CHECK_NEAR(s->bone_heads[3 * 1 + 0], 1.0, 1e-6);
    CHECK_NEAR(s->bone_heads[3 * 1 + 1], 0.0, 1e-6);
    for (size_t b = 1; b < 5; ++b) /* the chain stays connected */
        for (int k = 0; k < 3; ++k) CHECK_NEAR(s->bone_heads[3 * b + k], s->bone_tails[3 * (b - 1) + k], 1e-5);
    CHECK(s->center[1] > 0.5f && s->radius > 2.0f);
    sf_scene_destroy(s);
    /* bone-twist: bone 4 is turned by the full 90 degrees about x: its matrix maps +y to +z. */
    s = make("sheet", "bone-twist", NULL, 0);
    CHECK(s != NULL);
    const float* m4 = s->pose.bone_matrices + 48;
    CHECK_NEAR(m4[3], 0.0, 1e-6);
    CHECK_NEAR(m4[4], 0.0, 1e-6);
    CHECK_NEAR(m4[5], 1.0, 1e-6);
    CHECK_NEAR(s->pose.bone_matrices[12 * 2 + 5], sin(PI / 4), 1e-6); /* bone 2: 45 degrees */
    sf_scene_destroy(s);
    /* The tip: bone 1 carries neighbour 1 up by `height`; the tip itself does not move. */
    sf_scene_setting h[1] = {{"height", 0.6}};
    s = make("tip", NULL, h, 1);
    CHECK(s != NULL);
    CHECK_NEAR(s->pose.bone_matrices[12 + 10], 0.6, 1e-6);
    CHECK(s->mesh.joints[1] == 1 && s->mesh.joints[0] == 0 && s->mesh.joints[2] == 0 && s->mesh.joints[3] == 0);
    CHECK_NEAR(s->bone_tails[3 + 1], 0.6, 1e-6);
    sf_scene_destroy(s);
}

/* ---------------------------------------------------------------- allocator */

static void test_allocator_and_out_of_memory(void)
{
    sft_alloc_counter c = {0};
    sf_env env = sft_counting_env(&c);
    sf_scene* s;
    CHECK_OK(sf_scene_create("sheet", "bone-bend", NULL, 0, &env, &s, NULL));
    size_t total = c.calls;
    CHECK(total > 5 && c.live == total);
    sf_scene_destroy(s);
    CHECK(c.live == 0 && c.frees == total);
    for (size_t k = 1; k <= total; ++k) {
        sft_alloc_counter f = {0};
        f.fail_at = k;
        env = sft_counting_env(&f);
        sf_error err;
        s = (sf_scene*)(uintptr_t)1;
        CHECK_RESULT(sf_scene_create("sheet", "bone-bend", NULL, 0, &env, &s, &err), SF_ERROR_OUT_OF_MEMORY);
        CHECK(s == NULL && f.live == 0 && f.frees == f.allocations);
    }
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"registry", test_registry},
        {"every_scene_is_a_valid_mesh", test_every_scene_is_a_valid_mesh},
        {"settings_errors", test_settings_errors},
        {"settings_order", test_settings_order},
        {"resolution_counts", test_resolution_counts},
        {"weights", test_weights},
        {"rest_frames_and_uvs", test_rest_frames_and_uvs},
        {"morph_target_deltas", test_morph_target_deltas},
        {"rig_and_framing", test_rig_and_framing},
        {"allocator_and_out_of_memory", test_allocator_and_out_of_memory},
    };
    return SFT_RUN(cases, argc, argv);
}

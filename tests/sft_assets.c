/* The staged glTF test assets (sft_assets.h). */
#include "sft_assets.h"

#include "sf_test.h"
#include "skinframe_gltf.h"

#include <stdio.h>
#include <stdlib.h>

static const char* const staged_files[] = {"gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb",
                                           "gltf/CesiumMan/glTF-Binary/CesiumMan.glb",
                                           "gltf/Fox/glTF-Binary/Fox.glb",
                                           "gltf/InterpolationTest/glTF-Binary/InterpolationTest.glb",
                                           "gltf/MorphStressTest/glTF-Binary/MorphStressTest.glb",
                                           "gltf/NormalTangentMirrorTest/glTF-Binary/NormalTangentMirrorTest.glb",
                                           "gltf/NormalTangentTest/glTF-Binary/NormalTangentTest.glb",
                                           "gltf/SimpleMorph/glTF/SimpleMorph.gltf",
                                           "gltf/SimpleSkin/glTF/SimpleSkin.gltf",
                                           "gltf/SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf"};

/* Every staged primitive of one asset file (name: as listed, for the messages). */
static void each_primitive(const char* path, const char* name, sft_primitive_fn* fn, void* user)
{
    sf_gltf* g = NULL;
    sf_error err;
    CHECK_OK(sf_gltf_load_file(path, NULL, NULL, &g, &err));
    if (!g) return;
    sf_gltf_pose* gp = NULL;
    CHECK_OK(sf_gltf_pose_create(g, NULL, &gp, &err));
    /* staged: the middle of the first animation, or the rest pose */
    double t = 0.0;
    if (g->animation_count) {
        const sf_gltf_animation* a = &g->animations[0];
        t = 0.5 * (a->start_s + a->end_s);
    }
    CHECK_OK(sf_gltf_pose_sample(gp, g->animation_count ? 0 : SF_GLTF_NONE, t, &err));
    for (size_t i = 0; gp && i < g->instance_count; ++i) {
        const sf_gltf_mesh* mesh = &g->meshes[g->instances[i].mesh];
        for (size_t p = mesh->first_primitive; p < mesh->first_primitive + mesh->primitive_count; ++p) {
            sf_mesh_desc d;
            /* a staged primitive that does not load is a failure, never a mesh left out */
            sf_topology* topo = NULL;
            if (sf_gltf_instance_mesh(g, i, p, &d, &err) != SF_OK || sf_topology_create(&d, NULL, NULL, &topo, &err) != SF_OK) {
                sft_failf(__FILE__, __LINE__, "%s instance %zu primitive %zu: %s", name, i, p, err.message);
                continue;
            }
            size_t B = g->instances[i].bone_count;
            float* bones = calloc(12 * B + 1, sizeof(float));
            float* morph = calloc(d.target_count + 1, sizeof(float));
            CHECK_OK(sf_gltf_pose_instance(gp, i, bones, morph, NULL, &err));
            sf_pose pose = {bones, B, d.target_count ? morph : NULL, d.target_count};
            char where[512];
            snprintf(where, sizeof where, "%s instance %zu primitive %zu", name, i, p);
            fn(topo, &pose, where, user);
            free(bones);
            free(morph);
            sf_topology_destroy(topo);
        }
    }
    sf_gltf_pose_destroy(gp);
    sf_gltf_destroy(g);
}

int sft_each_staged_primitive(sft_primitive_fn* fn, void* user)
{
    int found = 0;
    for (size_t f = 0; f < sizeof staged_files / sizeof staged_files[0]; ++f) {
        char path[4096];
        if (!sft_asset(staged_files[f], path, sizeof path)) continue;
        found++;
        each_primitive(path, staged_files[f], fn, user);
    }
    return found;
}

int sft_load_staged(const char* rel, const char* skip_why, sf_gltf** g, sf_gltf_pose** gp)
{
    *g = NULL;
    if (gp) *gp = NULL;
    char buf[1024];
    const char* path = sft_asset(rel, buf, sizeof buf);
    if (!path) {
        sft_skip(skip_why);
        return 0;
    }
    sf_error err;
    if (sf_gltf_load_file(path, NULL, NULL, g, &err) != SF_OK) {
        sft_failf(__FILE__, __LINE__, "%s: %s", path, err.message);
        return 0;
    }
    if (gp && sf_gltf_pose_create(*g, NULL, gp, &err) != SF_OK) {
        sft_failf(__FILE__, __LINE__, "%s: pose: %s", path, err.message);
        sf_gltf_destroy(*g);
        *g = NULL;
        return 0;
    }
    return 1;
}

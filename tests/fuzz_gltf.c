/* libFuzzer target for the glTF loader (built only with -DSF_FUZZ=ON and clang): loads the input as a
 * .glb/.gltf from memory, then exercises what a loaded file feeds: inspection, instance meshes and their
 * topology, posing every animation at a few times. Any crash, leak or sanitizer report is a bug. */
#include "skinframe_gltf.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    sf_gltf_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.max_file_bytes = (size_t)1 << 24;
    opts.generated_tangents = (size & 1) ? SF_TANGENTS_MIKKTSPACE : SF_TANGENTS_UV; /* both paths */
    sf_gltf* g = NULL;
    sf_error err;
    /* A folder that does not exist: URIs are resolved (and checked) but no file is ever read. */
    const char* files = getenv("SF_FUZZ_FILES"); /* the seeds' external files (tests/fuzz_run.cmake) */
    if (sf_gltf_load_memory(data, size, files ? files : "/nonexistent-skinframe-fuzz", &opts, NULL, &g, &err) != SF_OK)
        return 0;
    for (size_t p = 0; p < g->primitive_count; ++p) {
        sf_gltf_inspection in;
        sf_gltf_primitive_inspect(g, p, 4, NULL, &in, NULL);
    }
    sf_gltf_pose* pose = NULL;
    if (sf_gltf_pose_create(g, NULL, &pose, NULL) == SF_OK) {
        for (size_t a = 0; a <= g->animation_count && a < 8; ++a) {
            size_t anim = a == g->animation_count ? SF_GLTF_NONE : a;
            double end = anim == SF_GLTF_NONE ? 0.0 : g->animations[anim].end_s;
            for (int k = 0; k < 3; ++k) {
                if (sf_gltf_pose_sample(pose, anim, end * k / 2.0 - 0.5 * (k == 0), NULL) != SF_OK) continue;
                for (size_t i = 0; i < g->instance_count && i < 8; ++i) {
                    const sf_gltf_instance* in = &g->instances[i];
                    size_t targets = g->meshes[in->mesh].target_count;
                    float* bones = malloc(12 * in->bone_count * sizeof(float));
                    float* weights = malloc((targets + 1) * sizeof(float));
                    float world[16];
                    if (bones && weights) sf_gltf_pose_instance(pose, i, bones, weights, world, NULL);
                    free(bones);
                    free(weights);
                }
            }
        }
        sf_gltf_pose_destroy(pose);
    }
    /* Topology from every (instance, primitive) of modest size: the loader's output must be valid input. */
    for (size_t i = 0; i < g->instance_count && i < 8; ++i) {
        const sf_gltf_mesh* m = &g->meshes[g->instances[i].mesh];
        for (size_t p = m->first_primitive; p < m->first_primitive + m->primitive_count && p < m->first_primitive + 4;
             ++p) {
            sf_mesh_desc desc;
            if (sf_gltf_instance_mesh(g, i, p, &desc, NULL) != SF_OK) continue;
            if (desc.vertex_count > 20000 || desc.triangle_count > 40000) continue;
            desc.zero_weight_policy = SF_ZERO_WEIGHTS_REST;
            sf_topology_opts topts;
            memset(&topts, 0, sizeof topts);
            topts.skip_gradients = 1;
            sf_topology* topo = NULL;
            if (sf_topology_create(&desc, &topts, NULL, &topo, NULL) == SF_OK) sf_topology_destroy(topo);
        }
    }
    sf_gltf_destroy(g);
    return 0;
}

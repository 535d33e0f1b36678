/* Per-frame cost of the per-vertex methods on glTF assets (not a test): for each file, every primitive of
 * every mesh instance gets a topology and a workspace; the first animation is sampled at `frames` evenly
 * spaced times, and each method's sf_frames_compute (its deform included) is timed over those frames, best
 * and median of `runs`. Prints per asset the vertices, the jacobian methods' precomputed bytes per vertex
 * and each method's nanoseconds per vertex and cost relative to `skinned` (medians). Serial (NULL env): one core.
 *
 * usage: bench_assets [--runs N] [--frames N] FILE.glb|FILE.gltf ... */
#define _POSIX_C_SOURCE 199309L
#include "skinframe.h"
#include "skinframe_gltf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

typedef struct unit {
    sf_topology* topo;
    sf_workspace* ws;
    size_t instance, vertices, bone_count, target_count;
    float *bones, *weights, *normals, *tangents;
} unit;

static const sf_method k_methods[] = {SF_METHOD_SKINNED, SF_METHOD_INVERSE_TRANSPOSE, SF_METHOD_JACOBIAN,
                                      SF_METHOD_JACOBIAN_FAN, SF_METHOD_RECOMPUTE};
#define METHOD_COUNT (sizeof k_methods / sizeof k_methods[0])

static int bench_file(const char* path, int runs, int frames)
{
    sf_gltf* g = NULL;
    sf_error err;
    if (sf_gltf_load_file(path, NULL, NULL, &g, &err) != SF_OK) {
        fprintf(stderr, "bench_assets: %s: %s\n", path, err.message);
        return 1;
    }
    size_t cap = 0;
    for (size_t i = 0; i < g->instance_count; ++i) cap += g->meshes[g->instances[i].mesh].primitive_count;
    unit* units = calloc(cap ? cap : 1, sizeof *units);
    size_t count = 0, vertices = 0, gradient_bytes = 0, fan_bytes = 0;
    int status = 0;
    for (size_t i = 0; i < g->instance_count && !status; ++i) {
        const sf_gltf_mesh* mesh = &g->meshes[g->instances[i].mesh];
        for (size_t p = mesh->first_primitive; p < mesh->first_primitive + mesh->primitive_count && !status; ++p) {
            sf_mesh_desc d;
            unit* u = &units[count];
            if (sf_gltf_instance_mesh(g, i, p, &d, &err) != SF_OK ||
                sf_topology_create(&d, NULL, NULL, &u->topo, &err) != SF_OK ||
                sf_workspace_create(u->topo, NULL, &u->ws, &err) != SF_OK) {
                fprintf(stderr, "bench_assets: %s: %s\n", path, err.message);
                status = 1;
                break;
            }
            ++count;
            sf_topology_stats st;
            sf_topology_get_stats(u->topo, &st);
            u->instance = i;
            u->vertices = d.vertex_count;
            u->bone_count = d.bone_count;
            u->target_count = d.target_count;
            u->bones = calloc(12 * (d.bone_count ? d.bone_count : 1), sizeof(float));
            u->weights = calloc(d.target_count + 1, sizeof(float));
            u->normals = calloc(3 * d.vertex_count + 1, sizeof(float));
            u->tangents = calloc(4 * d.vertex_count + 1, sizeof(float));
            vertices += d.vertex_count;
            gradient_bytes += st.gradient_bytes;
            fan_bytes += st.fan_gradient_bytes;
        }
    }
    sf_gltf_pose* pose = NULL;
    if (!status && sf_gltf_pose_create(g, NULL, &pose, &err) != SF_OK) status = 1;
    double t_method[METHOD_COUNT][MAX_RUNS];
    size_t animation = g->animation_count ? 0 : SF_GLTF_NONE;
    double start = g->animation_count ? g->animations[0].start_s : 0.0;
    double end = g->animation_count ? g->animations[0].end_s : 0.0;
    for (size_t k = 0; k < METHOD_COUNT && !status; ++k)
        for (int r = 0; r < runs && !status; ++r) {
            double total = 0.0;
            for (int f = 0; f < frames && !status; ++f) {
                double time_s = frames > 1 ? start + (end - start) * f / (frames - 1) : start;
                if (sf_gltf_pose_sample(pose, animation, time_s, &err) != SF_OK) status = 1;
                for (size_t c = 0; c < count && !status; ++c) {
                    unit* u = &units[c];
                    if (sf_gltf_pose_instance(pose, u->instance, u->bones, u->weights, NULL, &err) != SF_OK) {
                        status = 1;
                        break;
                    }
                    sf_pose sp = {u->bones, u->bone_count, u->weights, u->target_count};
                    sf_frames_out out = {NULL, u->normals, u->tangents};
                    double t0 = now_s();
                    if (sf_frames_compute(u->topo, &sp, k_methods[k], NULL, u->ws, &out, &err) != SF_OK) status = 1;
                    total += now_s() - t0;
                }
            }
            t_method[k][r] = total / frames;
        }
    if (status) {
        fprintf(stderr, "bench_assets: %s: %s\n", path, err.message);
    } else {
        timing tm[METHOD_COUNT];
        for (size_t k = 0; k < METHOD_COUNT; ++k) tm[k] = summarize(t_method[k], runs);
        printf("{\"bench\":\"assets\",\"file\":\"%s\",\"vertices\":%zu,\"frames\":%d,\"runs\":%d,"
               "\"jacobian_bytes_per_vertex\":%.1f,\"jacobian_fan_bytes_per_vertex\":%.1f",
               path, vertices, frames, runs, (double)gradient_bytes / (double)(vertices ? vertices : 1),
               (double)fan_bytes / (double)(vertices ? vertices : 1));
        for (size_t k = 0; k < METHOD_COUNT; ++k)
            printf(",\"%s_best_ns_per_vertex\":%.1f,\"%s_median_ns_per_vertex\":%.1f", sf_method_name(k_methods[k]),
                   1e9 * tm[k].best / (double)vertices, sf_method_name(k_methods[k]),
                   1e9 * tm[k].median / (double)vertices);
        for (size_t k = 1; k < METHOD_COUNT; ++k)
            printf(",\"%s_over_skinned\":%.3f", sf_method_name(k_methods[k]), tm[k].median / tm[0].median);
        printf("}\n");
    }
    sf_gltf_pose_destroy(pose);
    for (size_t c = 0; c < count; ++c) {
        sf_workspace_destroy(units[c].ws);
        sf_topology_destroy(units[c].topo);
        free(units[c].bones);
        free(units[c].weights);
        free(units[c].normals);
        free(units[c].tangents);
    }
    free(units);
    sf_gltf_destroy(g);
    return status;
}

int main(int argc, char** argv)
{
    int runs = 7, frames = 20, status = 0, files = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            runs = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
            frames = atoi(argv[++i]);
        } else {
            if (runs < 1 || runs > MAX_RUNS || frames < 1) break;
            status |= bench_file(argv[i], runs, frames);
            ++files;
        }
    }
    if (!files || runs < 1 || runs > MAX_RUNS || frames < 1) {
        fprintf(stderr, "usage: bench_assets [--runs 1..%d] [--frames N >= 1] FILE.glb|FILE.gltf ...\n", MAX_RUNS);
        return 2;
    }
    return status;
}

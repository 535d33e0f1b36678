/* The staged character of the benchmarks: CesiumMan (tests/assets) as a mesh description and one pose of
 * its animation, and the same mesh replicated into a larger one (copies side by side, a skeleton per copy). */
#ifndef BENCH_STAGED_H
#define BENCH_STAGED_H

#include "skinframe.h"

typedef struct staged_character {
    sf_mesh_desc desc; /* the loaded primitive's streams (owned by the glTF) */
    sf_pose pose;      /* bones and morph weights at the sampled time (owned here) */
    float *bones, *morph;
    void* gltf; /* the sf_gltf behind desc */
} staged_character;

/* Loads source_dir/tests/assets/gltf/CesiumMan/glTF-Binary/CesiumMan.glb and poses it at time_s of its first
 * animation. Returns 0, or 1 after printing why (prefixed by who) to stderr. */
int staged_character_load(staged_character* c, const char* source_dir, double time_s, const char* who);
void staged_character_free(staged_character* c);

/* A mesh of copies of desc, at least min_vertices (at least one copy), each with its own skeleton: copy k's
 * positions shifted on a square grid of copies far enough apart that no two touch (so no weld group spans two),
 * its triangles, joints and sparse morph indices shifted to its own vertices and bones, every other stream
 * copied. The morph targets stay desc's. Every stream is packed. */
typedef struct replicated_mesh {
    sf_mesh_desc desc;
    size_t copies, columns;
    float gap; /* copy k sits at (gap * (k % columns), 0, gap * (k / columns)) from desc's place */
    float *positions, *normals, *tangents, *uvs, *weights, *deltas;
    uint32_t *indices, *joints, *sparse;
    sf_morph_target_desc* targets;
} replicated_mesh;

int replicated_mesh_make(replicated_mesh* r, const sf_mesh_desc* desc, size_t min_vertices, const char* who);
void replicated_mesh_free(replicated_mesh* r);

/* The pose of every copy from desc's pose: each bone moved with its copy (T(offset) M T(-offset)), so that
 * every copy deforms exactly as desc does, shifted. bones: 12 floats per bone of r->desc. */
void replicated_pose(const replicated_mesh* r, const sf_pose* pose, float* bones, sf_pose* out);

#endif

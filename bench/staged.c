/* The staged character of the benchmarks and its replication (bench/staged.h). */
#include "staged.h"
#include "sf_common.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef BENCH_NO_GLTF
#include "skinframe_gltf.h"
#endif

int staged_character_load(staged_character* c, const char* source_dir, double time_s, const char* who)
{
    memset(c, 0, sizeof *c);
#ifdef BENCH_NO_GLTF
    (void)source_dir, (void)time_s;
    fprintf(stderr, "%s: built without the glTF layer: no staged character\n", who);
    return 1;
#else
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/assets/gltf/CesiumMan/glTF-Binary/CesiumMan.glb", source_dir);
    sf_error err;
    sf_gltf* g = NULL;
    if (sf_gltf_load_file(path, NULL, NULL, &g, &err) != SF_OK) {
        fprintf(stderr, "%s: %s: %s\n", who, path, err.message);
        return 1;
    }
    c->gltf = g;
    size_t inst = 0, prim = g->meshes[g->instances[inst].mesh].first_primitive;
    if (sf_gltf_instance_mesh(g, inst, prim, &c->desc, &err) != SF_OK) {
        fprintf(stderr, "%s: %s: %s\n", who, path, err.message);
        staged_character_free(c);
        return 1;
    }
    size_t B = g->instances[inst].bone_count;
    c->bones = calloc(12 * (B ? B : 1), sizeof(float));
    c->morph = calloc(c->desc.target_count + 1, sizeof(float));
    sf_gltf_pose* gp = NULL;
    float world[16];
    if (!c->bones || !c->morph || sf_gltf_pose_create(g, NULL, &gp, &err) != SF_OK ||
        sf_gltf_pose_sample(gp, g->animation_count ? 0 : SF_GLTF_NONE, time_s, &err) != SF_OK ||
        sf_gltf_pose_instance(gp, inst, c->bones, c->morph, world, &err) != SF_OK) {
        fprintf(stderr, "%s: %s: pose: %s\n", who, path, c->bones && c->morph ? err.message : "out of memory");
        sf_gltf_pose_destroy(gp);
        staged_character_free(c);
        return 1;
    }
    sf_gltf_pose_destroy(gp);
    c->pose.bone_matrices = c->bones;
    c->pose.bone_count = B;
    if (c->desc.target_count) {
        c->pose.morph_weights = c->morph;
        c->pose.morph_weight_count = c->desc.target_count;
    }
    return 0;
#endif
}

void staged_character_free(staged_character* c)
{
    free(c->bones), free(c->morph);
#ifndef BENCH_NO_GLTF
    sf_gltf_destroy((sf_gltf*)c->gltf);
#endif
    memset(c, 0, sizeof *c);
}

/* copies x n elements of a stream, packed; NULL where the stream is absent. */
static float* replicate_stream(sf_stream s, size_t floats, size_t n, size_t copies, int* oom)
{
    if (!s.data) return NULL;
    float* out = malloc(copies * n * floats * sizeof(float));
    if (!out) {
        *oom = 1;
        return NULL;
    }
    size_t bytes = floats * sizeof(float);
    for (size_t v = 0; v < n; ++v) memcpy(out + v * floats, sfi_stream_at(s, bytes, v), bytes);
    for (size_t k = 1; k < copies; ++k) memcpy(out + k * n * floats, out, n * floats * sizeof(float));
    return out;
}

int replicated_mesh_make(replicated_mesh* r, const sf_mesh_desc* d, size_t min_vertices, const char* who)
{
    memset(r, 0, sizeof *r);
    size_t n = d->vertex_count, F = d->triangle_count, K = d->influence_count, T = d->target_count;
    if (n == 0) {
        fprintf(stderr, "%s: the mesh to replicate has no vertices\n", who);
        return 1;
    }
    size_t copies = (min_vertices + n - 1) / n;
    if (copies == 0) copies = 1;
    if (copies > UINT32_MAX / n || copies * d->bone_count > 65535) {
        fprintf(stderr, "%s: %zu copies of %zu vertices and %zu bones exceed 32-bit vertices or 65,535 bones\n", who,
                copies, n, d->bone_count);
        return 1;
    }
    r->copies = copies;
    int oom = 0;
    r->positions = replicate_stream(d->positions, 3, n, copies, &oom);
    r->normals = replicate_stream(d->normals, 3, n, copies, &oom);
    r->tangents = replicate_stream(d->tangents, 4, n, copies, &oom);
    r->uvs = replicate_stream(d->uvs, 2, n, copies, &oom);
    r->indices = malloc(3 * F * copies * sizeof(uint32_t) + 1);
    r->joints = K ? malloc(K * n * copies * sizeof(uint32_t)) : NULL;
    r->weights = K ? malloc(K * n * copies * sizeof(float)) : NULL;
    r->targets = calloc(T + 1, sizeof *r->targets);
    /* every target's deltas in one block (3 floats per entry and per kind present), sparse indices in another */
    size_t delta_floats = 0, sparse_entries = 0;
    for (size_t t = 0; t < T; ++t) {
        const sf_morph_target_desc* m = &d->targets[t];
        size_t entries = (m->sparse_indices ? m->sparse_count : n) * copies;
        delta_floats += 3 * entries * (1 + (m->normal_deltas != NULL) + (m->tangent_deltas != NULL));
        if (m->sparse_indices) sparse_entries += entries;
    }
    r->deltas = malloc(delta_floats * sizeof(float) + 1);
    r->sparse = malloc(sparse_entries * sizeof(uint32_t) + 1);
    if (oom || !r->positions || !r->indices || (K && (!r->joints || !r->weights)) || !r->targets || !r->deltas ||
        !r->sparse) {
        fprintf(stderr, "%s: out of memory for %zu copies of %zu vertices\n", who, copies, n);
        replicated_mesh_free(r);
        return 1;
    }
    /* copies on a square grid in x and z, spaced by 1.25 times the rest mesh's larger extent there */
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t v = 0; v < n; ++v)
        for (int a = 0; a < 3; ++a) {
            float x = r->positions[3 * v + a];
            lo[a] = x < lo[a] ? x : lo[a];
            hi[a] = x > hi[a] ? x : hi[a];
        }
    float extent = fmaxf(hi[0] - lo[0], hi[2] - lo[2]), gap = extent > 0.0f ? 1.25f * extent : 1.0f;
    size_t columns = (size_t)ceil(sqrt((double)copies));
    r->columns = columns, r->gap = gap;
    for (size_t k = 0; k < copies; ++k) {
        float dx = gap * (float)(k % columns), dz = gap * (float)(k / columns);
        float* p = r->positions + 3 * n * k;
        for (size_t v = 0; v < n; ++v) p[3 * v] += dx, p[3 * v + 2] += dz;
        uint32_t shift = (uint32_t)(k * n);
        for (size_t i = 0; i < 3 * F; ++i) r->indices[3 * F * k + i] = d->indices[i] + shift;
        if (K) {
            uint32_t bones = (uint32_t)(k * d->bone_count);
            for (size_t i = 0; i < K * n; ++i) r->joints[K * n * k + i] = d->joints[i] + bones;
            memcpy(r->weights + K * n * k, d->weights, K * n * sizeof(float));
        }
    }
    float* dp = r->deltas;
    uint32_t* sp = r->sparse;
    for (size_t t = 0; t < T; ++t) {
        const sf_morph_target_desc* m = &d->targets[t];
        sf_morph_target_desc* o = &r->targets[t];
        *o = *m;
        size_t per = m->sparse_indices ? m->sparse_count : n;
        const float* src[3] = {m->position_deltas, m->normal_deltas, m->tangent_deltas};
        const float** dst[3] = {&o->position_deltas, &o->normal_deltas, &o->tangent_deltas};
        for (int q = 0; q < 3; ++q) {
            if (!src[q]) continue;
            for (size_t k = 0; k < copies; ++k) memcpy(dp + 3 * per * k, src[q], 3 * per * sizeof(float));
            *dst[q] = dp;
            dp += 3 * per * copies;
        }
        if (m->sparse_indices) {
            for (size_t k = 0; k < copies; ++k)
                for (size_t e = 0; e < per; ++e) sp[per * k + e] = m->sparse_indices[e] + (uint32_t)(k * n);
            o->sparse_indices = sp;
            o->sparse_count = per * copies;
            sp += per * copies;
        }
    }
    r->desc = *d;
    r->desc.vertex_count = n * copies;
    r->desc.triangle_count = F * copies;
    r->desc.indices = r->indices;
    r->desc.positions = (sf_stream){r->positions, 0};
    r->desc.normals = (sf_stream){r->normals, 0};
    r->desc.tangents = (sf_stream){r->tangents, 0};
    r->desc.uvs = (sf_stream){r->uvs, 0};
    r->desc.bone_count = d->bone_count * copies;
    r->desc.joints = r->joints;
    r->desc.weights = r->weights;
    r->desc.targets = T ? r->targets : NULL;
    return 0;
}

void replicated_mesh_free(replicated_mesh* r)
{
    free(r->positions), free(r->normals), free(r->tangents), free(r->uvs), free(r->weights), free(r->deltas);
    free(r->indices), free(r->joints), free(r->sparse), free(r->targets);
    memset(r, 0, sizeof *r);
}

void replicated_pose(const replicated_mesh* r, const sf_pose* pose, float* bones, sf_pose* out)
{
    size_t B = pose->bone_count;
    for (size_t k = 0; k < r->copies; ++k) {
        float o[3] = {r->gap * (float)(k % r->columns), 0.0f, r->gap * (float)(k / r->columns)};
        for (size_t b = 0; b < B; ++b) {
            const float* m = pose->bone_matrices + 12 * b; /* columns: A's three, then the translation */
            float* q = bones + 12 * (B * k + b);
            memcpy(q, m, 12 * sizeof(float));
            for (int i = 0; i < 3; ++i) q[9 + i] = m[9 + i] + o[i] - (m[i] * o[0] + m[3 + i] * o[1] + m[6 + i] * o[2]);
        }
    }
    *out = *pose;
    out->bone_matrices = bones;
    out->bone_count = B * r->copies;
}

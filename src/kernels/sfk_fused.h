/* recompute-fused (src/core/fused.c)
 * `recompute` in one per-vertex pass: each vertex deforms the corners of its faces itself, from the rest
 * data and the pose (sfk_deform_position, as the deform does), rebuilds those faces (sfk_recompute_face_frame
 * and sfk_recompute_corner_weight, as the face pass does) and gathers them in the gather's order, so the
 * frames equal `recompute`'s bit for bit with no position or face buffer. */
#ifndef SFK_FUSED_H
#define SFK_FUSED_H

#include "sfk_deform.h"
#include "sfk_recompute.h"

/* The rest data one vertex's deformation reads (the topology's arrays; device pointers on a GPU). */
typedef struct sfk_rest_mesh {
    const float* positions;        /* 3n rest positions */
    const uint32_t* morph_offsets; /* n + 1: vertex v's morph entries are [morph_offsets[v], morph_offsets[v+1]) */
    const uint32_t* morph_target;  /* entry -> target */
    const float* morph_dp;         /* 3 per entry */
    const uint32_t* joints;        /* influence_count per vertex (NULL when joints16 holds them) */
    const uint16_t* joints16;      /* or 16-bit joints (the GPU's upload), influence_count <= SFK_JOINTS16_MAX */
    const float* weights;          /* influence_count per vertex */
    uint32_t influence_count;
    const uint32_t* indices; /* 3F */
    const float* uvs;        /* 2n or NULL */
} sfk_rest_mesh;

/* Vertex v's final position and its blended matrix's determinant, as sfk_deform_vertex gives them. bones:
 * the pose's matrices (unused without influences); alpha: morph weights (NULL = none). */
#define SFK_JOINTS16_MAX 16u
SF_HD void sfk_fused_position(const sfk_rest_mesh* mesh, const float* bones, const float* alpha, uint32_t v,
                              float final_p[3], float* det)
{
    uint32_t e0 = mesh->morph_offsets[v], K = mesh->influence_count;
    float p[3], m[12];
    uint32_t wide[SFK_JOINTS16_MAX];
    const uint32_t* joints = K ? mesh->joints + K * v : NULL;
    if (K && mesh->joints16) { /* widened for sfk_blend_matrix; the same joints, so the same bits */
        uint32_t k;
        for (k = 0; k < K && k < SFK_JOINTS16_MAX; ++k) wide[k] = mesh->joints16[K * v + k];
        joints = wide;
        if (K > SFK_JOINTS16_MAX) K = SFK_JOINTS16_MAX;
    }
    sfk_deform_position(mesh->positions + 3u * v, mesh->morph_target + e0, mesh->morph_dp + 3u * e0,
                        mesh->morph_offsets[v + 1] - e0, alpha, K ? bones : NULL, joints,
                        K ? mesh->weights + mesh->influence_count * v : NULL, K, p, m, det, final_p);
}

/* Final positions already deformed in one vertex's pass (each face's other corners recur around a fan): a
 * small round-robin table, only a shortcut; a miss deforms again and gives the same bits. */
#ifndef SFK_FUSED_CACHE
#define SFK_FUSED_CACHE 16
#endif
typedef struct sfk_fused_cache {
    uint32_t vertex[SFK_FUSED_CACHE];
    float p[SFK_FUSED_CACHE][3];
    float det[SFK_FUSED_CACHE];
    uint32_t count, next;
} sfk_fused_cache;

/* Vertex v's final position and determinant into p/det, from the cache or deformed (and cached) on a miss.
 * Copied out: a later miss may reuse the slot. */
SF_HD void sfk_fused_lookup(sfk_fused_cache* cache, const sfk_rest_mesh* mesh, const float* bones, const float* alpha,
                            uint32_t v, float p[3], float* det)
{
    uint32_t i;
    for (i = 0; i < cache->count; ++i)
        if (cache->vertex[i] == v) break;
    if (i == cache->count) {
        i = cache->next;
        cache->next = (cache->next + 1u) % (uint32_t)SFK_FUSED_CACHE;
        if (cache->count < (uint32_t)SFK_FUSED_CACHE) cache->count++;
        cache->vertex[i] = v;
        sfk_fused_position(mesh, bones, alpha, v, cache->p[i], &cache->det[i]);
    }
    p[0] = cache->p[i][0];
    p[1] = cache->p[i][1];
    p[2] = cache->p[i][2];
    *det = cache->det[i];
}

/* Face f rebuilt from its corners' final positions: face_n/face_t/face_b as the face pass stores them
 * (the UV part only when uvs), and the weight of corner c. */
SF_HD float sfk_fused_face(sfk_fused_cache* cache, const sfk_rest_mesh* mesh, const float* bones,
                           const float* alpha, uint32_t f, uint32_t c, int uvs, int weighting, float face_n[3],
                           float face_t[3], float face_b[3])
{
    const uint32_t* tri = mesh->indices + 3u * f;
    float p0[3], p1[3], p2[3], d0, d1, d2;
    sfk_fused_lookup(cache, mesh, bones, alpha, tri[0], p0, &d0);
    sfk_fused_lookup(cache, mesh, bones, alpha, tri[1], p1, &d1);
    sfk_fused_lookup(cache, mesh, bones, alpha, tri[2], p2, &d2);
    const float *uv0 = NULL, *uv1 = NULL, *uv2 = NULL;
    if (uvs && mesh->uvs) {
        uv0 = mesh->uvs + 2u * tri[0];
        uv1 = mesh->uvs + 2u * tri[1];
        uv2 = mesh->uvs + 2u * tri[2];
    }
    float len2 = sfk_recompute_face_frame(p0, p1, p2, uv0, uv1, uv2, d0, d1, d2, weighting, face_n, face_t, face_b);
    return sfk_recompute_corner_weight(p0, p1, p2, (int)c, weighting, len2);
}

/* One vertex of recompute-fused: sfk_recompute_vertex's result for vertex v, without the face pass.
 * n_corners[n_begin..n_end): the corners the normal gathers (v's own, adj_corners, or its weld group's,
 * which list each member's corners in adjacency order); v's own corners among them (indices[corner] == v)
 * are its tangent corners, in the same order. tangents 0: the UV tangent is skipped (t_out zero, w 1).
 * Writes v's final position and determinant too (final_p/det may be NULL). */
SF_HD void sfk_recompute_fused_vertex(const sfk_rest_mesh* mesh, const float* bones, const float* alpha, uint32_t v,
                                      const uint32_t* n_corners, uint32_t n_begin, uint32_t n_end, int weighting,
                                      int tangents, float bitangent_sign, float n_out[3], float t_out[4],
                                      float* final_p, float* det)
{
    sfk_fused_cache cache;
    cache.count = cache.next = 0u;
    float self_p[3], self_det;
    sfk_fused_lookup(&cache, mesh, bones, alpha, v, self_p, &self_det);
    if (final_p) {
        final_p[0] = self_p[0];
        final_p[1] = self_p[1];
        final_p[2] = self_p[2];
    }
    if (det) *det = self_det;
    float N[3] = {0.0f, 0.0f, 0.0f}, T[3] = {0.0f, 0.0f, 0.0f}, B[3] = {0.0f, 0.0f, 0.0f};
    float fn[3], ft[3], fb[3];
    uint32_t a;
    for (a = n_begin; a < n_end; ++a) {
        uint32_t corner = n_corners[a];
        int own = tangents && mesh->indices[corner] == v;
        float w = sfk_fused_face(&cache, mesh, bones, alpha, corner / 3u, corner % 3u, own, weighting, fn, ft, fb);
        sfk_madd(N, fn, weighting == SFK_WEIGHTING_AREA ? 1.0f : w);
        if (own) {
            sfk_madd(T, ft, w);
            sfk_madd(B, fb, w);
        }
    }
    if (!(sfk_finite3(T) && sfk_finite3(B))) { /* as sfk_tangent_sums_wide, the faces rebuilt again */
        double tw[3] = {0.0, 0.0, 0.0}, bw[3] = {0.0, 0.0, 0.0};
        for (a = n_begin; a < n_end; ++a) {
            uint32_t corner = n_corners[a];
            if (mesh->indices[corner] != v) continue;
            float w = sfk_fused_face(&cache, mesh, bones, alpha, corner / 3u, corner % 3u, 1, weighting, fn, ft, fb);
            sfk_tangent_term_wide(tw, bw, ft, fb, w);
        }
        sfk_direction_from_double(tw, T);
        sfk_direction_from_double(bw, B);
    }
    sfk_finish_frame(N, T, B, bitangent_sign, n_out, t_out);
}

#endif /* SFK_FUSED_H */

/* Tangents generated at load (MikkTSpace) for primitives without TANGENT, and the vertex split they need. */
#include "gltf_loader.h"

#include <string.h>

/* Carries every per-vertex stream of the primitive to the N vertices of a MikkTSpace split (vertex k copies
 * source[k]; the first vertex_count keep their own), source_vertex included. */
static sf_result split_streams(loader* L, sf_gltf_primitive* out, const uint32_t* source, size_t N, const char* base)
{
    sf_mesh_desc* m = &out->mesh;
    size_t n = m->vertex_count, K = m->influence_count;
    if (N > L->opts.max_vertices)
        return jfail(L, base, NULL, "%zu vertices once split for MikkTSpace tangents > max_vertices %zu; raise "
                     "sf_gltf_opts.max_vertices / --max-vertices", N, L->opts.max_vertices);
    size_t elements = 0;
    for (size_t t = 0; t < m->target_count; ++t)
        elements += m->targets[t].sparse_indices ? m->targets[t].sparse_count + (N - n) : N;
    if (elements > L->opts.max_morph_elements)
        return jfail(L, base, NULL, "%zu morph targets hold up to %zu (target, vertex) elements once split for "
                     "MikkTSpace tangents > max_morph_elements %zu; raise sf_gltf_opts.max_morph_elements / "
                     "--max-morph-elements", m->target_count, elements, L->opts.max_morph_elements);
    int lost = 0;
#define SPLIT_(dst, src, elem)                                          \
    do {                                                                \
        const void* src_ = (src);                                       \
        (dst) = deindex(L, src_, (elem), source, N);                    \
        lost |= src_ != NULL && (dst) == NULL;                          \
    } while (0)
    float *pos, *nrm, *uv, *weights;
    uint32_t *joints, *src_vertex;
    SPLIT_(pos, m->positions.data, 3 * sizeof(float));
    SPLIT_(nrm, m->normals.data, 3 * sizeof(float));
    SPLIT_(uv, m->uvs.data, 2 * sizeof(float));
    SPLIT_(joints, m->joints, K * sizeof(uint32_t));
    SPLIT_(weights, m->weights, K * sizeof(float));
    SPLIT_(src_vertex, out->source_vertex, sizeof(uint32_t));
    if (lost) return oom(L, base);
    m->positions.data = pos;
    m->normals.data = nrm;
    m->uvs.data = uv;
    m->joints = joints;
    m->weights = weights;
    out->source_vertex = src_vertex;
    sf_morph_target_desc* targets = (sf_morph_target_desc*)m->targets; /* the loader's own array */
    for (size_t t = 0; t < m->target_count; ++t) {
        sf_morph_target_desc* td = &targets[t];
        if (td->sparse_indices) {
            TRY(split_sparse_target(L, td, source, n, N, base));
            continue;
        }
        float* d[3];
        SPLIT_(d[0], td->position_deltas, 3 * sizeof(float));
        SPLIT_(d[1], td->normal_deltas, 3 * sizeof(float));
        SPLIT_(d[2], td->tangent_deltas, 3 * sizeof(float));
        if (lost) return oom(L, base);
        td->position_deltas = d[0];
        td->normal_deltas = d[1];
        td->tangent_deltas = d[2];
    }
#undef SPLIT_
    m->vertex_count = N;
    return SF_OK;
}

/* MikkTSpace tangents of a primitive without TANGENT (glTF's recommendation), from its rest positions,
 * normals and UVs. The generator gives one tangent per corner; a vertex whose corners got different ones is
 * split into one vertex per distinct tangent (sf_tangents_split: copies appended, triangles re-indexed, every
 * per-vertex stream carried), so each corner keeps MikkTSpace's own tangent. */
sf_result generate_mikktspace(loader* L, sf_gltf_primitive* out, const char* base)
{
    sf_mesh_desc* m = &out->mesh;
    sf_tangent_desc d;
    memset(&d, 0, sizeof d);
    d.vertex_count = m->vertex_count;
    d.triangle_count = m->triangle_count;
    d.indices = m->indices;
    d.positions = m->positions;
    d.normals = m->normals;
    d.uvs = m->uvs;
    d.uv_convention = m->uv_convention;
    d.mode = SF_TANGENTS_MIKKTSPACE;
    size_t corners = 3 * m->triangle_count;
    float* ct = sf_env_calloc(&L->env, 4 * corners + 4, sizeof(float));
    sf_error e;
    sf_tangent_split split;
    memset(&split, 0, sizeof split);
    sf_result r = ct ? sf_tangents_generate(&d, &L->env, ct, &e) : SF_ERROR_OUT_OF_MEMORY;
    /* once to count, then into arrays of the exact size */
    if (r == SF_OK) r = sf_tangents_split(m->vertex_count, m->triangle_count, m->indices, ct, &L->env, &split, &e);
    if (r == SF_OK) {
        size_t N = split.vertex_count;
        split.indices = own_alloc(L, corners ? corners : 1, sizeof(uint32_t));
        split.source = own_alloc(L, N ? N : 1, sizeof(uint32_t));
        split.tangents = own_alloc(L, N ? N : 1, 4 * sizeof(float));
        r = split.indices && split.source && split.tangents
                ? sf_tangents_split(m->vertex_count, m->triangle_count, m->indices, ct, &L->env, &split, &e)
                : SF_ERROR_OUT_OF_MEMORY;
    }
    sf_env_free(&L->env, ct, 0);
    if (r == SF_ERROR_OUT_OF_MEMORY) return oom(L, base);
    if (r != SF_OK) return jfail(L, base, "attributes", "MikkTSpace tangents: %s", e.message);
    if (split.vertex_count > m->vertex_count) TRY(split_streams(L, out, split.source, split.vertex_count, base));
    m->indices = split.indices;
    m->tangents.data = split.tangents;
    out->tangents = SF_GLTF_TANGENTS_GENERATED_MIKKTSPACE;
    out->mikktspace_split_vertices = split.split_vertices;
    return SF_OK;
}

/* sf_tangents_generate: tangents of a static mesh from plain arrays. It runs the reference's own tangent
 * code (the UV tangents of recompute, or MikkTSpace) on the mesh at rest, so a generated tangent is exactly
 * what `recompute` returns for the same triangles. */
#include "sf_internal.h"

#include <string.h>

sf_result sf_tangents_generate(const sf_tangent_desc* desc, const sf_env* env, float* corner_tangents, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(desc != NULL, SF_ERROR_INVALID_ARGUMENT, err, "desc", SFI_NO_INDEX, "is NULL");
    SF_CHECK(corner_tangents || desc->triangle_count == 0, SF_ERROR_INVALID_ARGUMENT, err, "corner_tangents",
             SFI_NO_INDEX, "is NULL");
    SF_CHECK(desc->normals.data != NULL, SF_ERROR_MISSING_STREAM, err, "desc.normals", SFI_NO_INDEX, "required");
    SF_CHECK(desc->uvs.data != NULL, SF_ERROR_MISSING_STREAM, err, "desc.uvs", SFI_NO_INDEX, "required");
    SF_CHECK((unsigned)desc->mode <= SF_TANGENTS_MIKKTSPACE, SF_ERROR_INVALID_ARGUMENT, err, "desc.mode",
             SFI_NO_INDEX, "%d", (int)desc->mode);
    SF_CHECK(desc->indices || desc->vertex_count == 3 * desc->triangle_count, SF_ERROR_COUNT_MISMATCH, err,
             "desc.vertex_count", SFI_NO_INDEX, "%zu vertices for %zu unindexed triangles", desc->vertex_count,
             desc->triangle_count);
    size_t F = desc->triangle_count;
    sf_env e = sf_env_defaults(env);
    uint32_t* sequential = NULL;
    if (!desc->indices) {
        SF_CHECK(3 * F <= UINT32_MAX, SF_ERROR_INVALID_ARGUMENT, err, "desc.triangle_count", SFI_NO_INDEX,
                 "%zu triangles", F);
        sequential = sf_env_calloc(&e, 3 * F + 1, sizeof(uint32_t));
        if (!sequential) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "indices", SFI_NO_INDEX, "%zu", 3 * F);
        for (size_t c = 0; c < 3 * F; ++c) sequential[c] = (uint32_t)c;
    }
    sf_mesh_desc mesh;
    memset(&mesh, 0, sizeof mesh);
    mesh.vertex_count = desc->vertex_count;
    mesh.triangle_count = F;
    mesh.indices = desc->indices ? desc->indices : sequential;
    mesh.positions = desc->positions;
    mesh.normals = desc->normals;
    mesh.uvs = desc->uvs;
    mesh.uv_convention = desc->uv_convention;
    sf_topology_opts topts;
    memset(&topts, 0, sizeof topts);
    topts.skip_gradients = 1;
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    sf_result r = sf_topology_create(&mesh, &topts, &e, &topo, err);
    if (r == SF_OK) r = sf_workspace_create(topo, NULL, &ws, err);
    if (r == SF_OK && desc->mode == SF_TANGENTS_MIKKTSPACE) {
        sf_pose identity;
        memset(&identity, 0, sizeof identity);
        r = sfi_deform(topo, &identity, SF_MORPH_DIRECTIONS_NONE, ws);
        float* per_vertex = sf_env_calloc(&e, 4 * desc->vertex_count + 4, sizeof(float));
        if (r == SF_OK && !per_vertex)
            r = sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "tangents", SFI_NO_INDEX, "%zu vertices", desc->vertex_count);
        if (r == SF_OK) r = sfi_mikktspace_tangents(topo, ws->final_pos, topo->rest_normals, ws, per_vertex, err);
        sf_env_free(&e, per_vertex, 0);
        /* MikkTSpace's own sign is v-up; the mesh's uv convention decides w (as for the per-vertex output). */
        const float* corners = r == SF_OK ? sfi_mikktspace_corner_tangents(ws) : NULL;
        for (size_t c = 0; corners && c < 3 * F; ++c) {
            memcpy(corner_tangents + 4 * c, corners + 4 * c, 3 * sizeof(float));
            corner_tangents[4 * c + 3] = corners[4 * c + 3] * topo->bitangent_sign;
        }
    } else if (r == SF_OK) { /* the topology's rest tangents are the reference's UV tangents at rest */
        for (size_t c = 0; c < 3 * F; ++c) memcpy(corner_tangents + 4 * c, topo->rest_tangents + 4 * (size_t)mesh.indices[c], 4 * sizeof(float));
    }
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    sf_env_free(&e, sequential, 0);
    return r;
}

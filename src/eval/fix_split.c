/* A normal-mapped primitive whose MikkTSpace tangents differ between the corners of a vertex gets TANGENT by
 * splitting those vertices as the glTF loader does (sf_tangents_split: one vertex per distinct corner tangent,
 * the copies appended after the file's vertices): every attribute of the primitive and of its morph targets is
 * carried to the copies value for value, the triangles are re-indexed (a strip or fan becomes a list), and
 * TANGENT is written, with TANGENT deltas for the morph targets: at each target's full weight, MikkTSpace's
 * tangent of the morphed split mesh at the vertex's first corner. It runs after the other repairs, whose results
 * it carries. */
#include "fix_internal.h"

#include <stdlib.h>
#include <string.h>

/* Indices are written through floats: exact below 2^24 vertices. */
#define SPLIT_MAX_VERTICES ((size_t)1 << 24)

/* Slot (target, name) carried to the split vertices: value k is the file's value at source[k]. */
static sf_result carry(sfi_fix_prim* p, size_t target, const char* name, const uint32_t* source, size_t count,
                       sf_fix_counts* counts, sf_error* err)
{
    sf_gltf_slot s = {p->mesh, p->primitive, target, name};
    size_t a = sf_gltf_doc_accessor(p->doc, &s);
    if (a == SF_GLTF_NONE) return SF_OK;
    sf_gltf_accessor_info in;
    sf_result r = sf_gltf_doc_accessor_info(p->doc, a, &in, err);
    if (r != SF_OK) return r;
    if (in.count != p->n || in.components < 1 || in.components > 4)
        return sfi_eval_fail(err, SF_ERROR_GLTF, "meshes[%zu].primitives[%zu] %s: accessors[%zu] has %zu elements of %zu "
                             "components where %zu vertices are expected", p->mesh, p->primitive, name, a, in.count,
                             in.components, p->n);
    float* v = malloc(in.count * in.components * sizeof(float) + 1);
    sfi_fix_attr out = {malloc(count * in.components * sizeof(float) + 1), count, in.components, in.component_type,
                        in.normalized};
    if (!v || !out.v) r = sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    if (r == SF_OK) r = sf_gltf_doc_read(p->doc, a, v, err);
    for (size_t k = 0; r == SF_OK && k < count; ++k)
        memcpy(out.v + k * in.components, v + (size_t)source[k] * in.components, in.components * sizeof(float));
    if (r == SF_OK) r = sfi_fix_write(p, target, name, &out, counts, err);
    free(v);
    free(out.v);
    return r;
}

/* Every attribute of the primitive (target SF_GLTF_NONE) or of one of its targets carried; the names are read one
 * at a time, as writing a slot may replace the member the next name follows. */
static sf_result carry_all(sfi_fix_prim* p, size_t target, const uint32_t* source, size_t count, sf_fix_counts* counts,
                           sf_error* err)
{
    char name[256];
    sf_result r = SF_OK;
    for (size_t k = 0, need; r == SF_OK && (need = sf_gltf_doc_attribute_name(p->doc, p->mesh, p->primitive, target, k,
                                                                            name, sizeof name)) != 0;
         ++k)
        r = need > sizeof name ? sfi_eval_fail(err, SF_ERROR_UNSUPPORTED, "meshes[%zu].primitives[%zu]: an attribute "
                                               "name of %zu bytes", p->mesh, p->primitive, need)
                               : carry(p, target, name, source, count, counts, err);
    return r;
}

/* The triangles as a list over the split vertices; a strip or fan primitive becomes TRIANGLES. */
static sf_result write_indices(sfi_fix_prim* p, const uint32_t* indices, size_t vertices, sf_fix_counts* counts,
                               sf_error* err)
{
    size_t m = 3 * p->tri_count;
    sfi_fix_attr ind = {malloc(m * sizeof(float) + 1), m, 1, vertices <= 65536 ? 5123u : 5125u, 0};
    if (!ind.v) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < m; ++i) ind.v[i] = (float)indices[i];
    sf_result r = sfi_fix_write(p, SF_GLTF_NONE, NULL, &ind, counts, err);
    free(ind.v);
    if (r == SF_OK && p->mode != 4) r = sf_gltf_doc_set_mode(p->doc, p->mesh, p->primitive, 4, err);
    return r;
}

/* The split primitive's (target, name) values as floats (comps per vertex), NULL when the slot is empty. */
static sf_result split_values(sfi_fix_prim* p, size_t target, const char* name, size_t n, size_t comps, float** out,
                              sf_error* err)
{
    *out = NULL;
    sf_gltf_slot slot = {p->mesh, p->primitive, target, name};
    size_t a = sf_gltf_doc_accessor(p->doc, &slot);
    if (a == SF_GLTF_NONE) return SF_OK;
    sf_gltf_accessor_info in;
    sf_result r = sf_gltf_doc_accessor_info(p->doc, a, &in, err);
    if (r == SF_OK && (in.count != n || in.components != comps))
        r = sfi_eval_fail(err, SF_ERROR_GLTF, "meshes[%zu].primitives[%zu] %s: accessors[%zu] has %zu elements of %zu "
                          "components where %zu of %zu are expected", p->mesh, p->primitive, name, a, in.count,
                          in.components, n, comps);
    if (r == SF_OK && !(*out = malloc(n * comps * sizeof(float) + 1)))
        r = sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    if (r == SF_OK) r = sf_gltf_doc_read(p->doc, a, *out, err);
    return r;
}

/* TANGENT deltas of the split primitive's targets that move it: MikkTSpace's corner tangents of the split mesh with
 * the target at weight 1 (its POSITION and NORMAL deltas, as written), at each vertex's first corner, less the
 * vertex's TANGENT; 0 where that corner's tangent is the rest one. */
static sf_result morph_tangents(sfi_fix_prim* p, const sf_tangent_split* s, sf_fix_counts* counts, sf_error* err)
{
    size_t n = s->vertex_count, m = 3 * p->tri_count;
    float *pos = NULL, *nrm = NULL, *uv = NULL;
    sf_result r = split_values(p, SF_GLTF_NONE, "POSITION", n, 3, &pos, err);
    if (r == SF_OK) r = split_values(p, SF_GLTF_NONE, "NORMAL", n, 3, &nrm, err);
    if (r == SF_OK) r = split_values(p, SF_GLTF_NONE, "TEXCOORD_0", n, 2, &uv, err);
    uint32_t* first = malloc(n * sizeof(uint32_t) + 1); /* each vertex's first corner */
    float *mp = malloc(3 * n * sizeof(float) + 1), *mn = malloc(3 * n * sizeof(float) + 1);
    float *corners = malloc(4 * m * sizeof(float) + 1), *d = malloc(3 * n * sizeof(float) + 1);
    if (r == SF_OK && (!first || !mp || !mn || !corners || !d))
        r = sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    if (r == SF_OK && (!pos || !nrm || !uv)) r = SF_ERROR_UNSUPPORTED; /* nothing to morph a tangent frame with */
    for (size_t v = 0; r == SF_OK && v < n; ++v) first[v] = UINT32_MAX; /* a vertex no triangle uses keeps 0 */
    for (size_t k = m; r == SF_OK && k-- > 0;) first[s->indices[k]] = (uint32_t)k;
    for (size_t t = 0; r == SF_OK && t < p->target_count; ++t) {
        float *dp = NULL, *dn = NULL;
        r = split_values(p, t, "POSITION", n, 3, &dp, err);
        if (r == SF_OK) r = split_values(p, t, "NORMAL", n, 3, &dn, err);
        if (r == SF_OK && dp) {
            for (size_t i = 0; i < 3 * n; ++i) mp[i] = pos[i] + dp[i], mn[i] = nrm[i] + (dn ? dn[i] : 0.0f);
            sf_tangent_desc td;
            memset(&td, 0, sizeof td);
            td.vertex_count = n;
            td.triangle_count = p->tri_count;
            td.indices = s->indices;
            td.positions.data = mp;
            td.normals.data = mn;
            td.uvs.data = uv;
            td.mode = SF_TANGENTS_MIKKTSPACE;
            sf_error e;
            if ((r = sf_tangents_generate(&td, NULL, corners, &e)) != SF_OK)
                r = sfi_eval_fail(err, r, "meshes[%zu].primitives[%zu] target %zu: MikkTSpace tangents: %s", p->mesh,
                                  p->primitive, t, e.message);
            for (size_t v = 0; r == SF_OK && v < n; ++v) {
                size_t k = first[v] == UINT32_MAX ? 0 : first[v];
                const float *c = corners + 4 * k, *rest = p->split_corners + 4 * k;
                int moved = first[v] != UINT32_MAX && memcmp(c, rest, 3 * sizeof(float)) != 0;
                for (int j = 0; j < 3; ++j) d[3 * v + j] = moved ? c[j] - s->tangents[4 * v + j] : 0.0f;
            }
            sfi_fix_attr a = {d, n, 3, 5126, 0};
            size_t before = counts->accessors_written;
            if (r == SF_OK) r = sfi_fix_write(p, t, "TANGENT", &a, counts, err);
            counts->morph_tangent_targets += counts->accessors_written != before;
        }
        free(dp), free(dn);
    }
    free(pos), free(nrm), free(uv), free(first), free(mp), free(mn), free(corners), free(d);
    return r == SF_ERROR_UNSUPPORTED ? SF_OK : r;
}

sf_result sfi_fix_split_tangents(sfi_fix_prim* p, int morph, sf_fix_counts* counts, sf_error* err)
{
    if (!p->split_corners) return SF_OK;
    size_t most = SF_TANGENTS_SPLIT_MAX_VERTICES(p->n, p->tri_count);
    sf_tangent_split s;
    memset(&s, 0, sizeof s);
    s.indices = malloc(3 * p->tri_count * sizeof(uint32_t) + 1);
    s.source = malloc(most * sizeof(uint32_t) + 1);
    s.tangents = malloc(4 * most * sizeof(float) + 1);
    sf_result r = SF_OK;
    sf_error e;
    if (!s.indices || !s.source || !s.tangents) r = sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    if (r == SF_OK && (r = sf_tangents_split(p->n, p->tri_count, p->tri, p->split_corners, NULL, &s, &e)) != SF_OK)
        r = sfi_eval_fail(err, r, "meshes[%zu].primitives[%zu]: splitting for MikkTSpace tangents: %s", p->mesh,
                          p->primitive, e.message);
    if (r == SF_OK && s.vertex_count > SPLIT_MAX_VERTICES) {
        counts->tangents_need_splits++; /* past what the writer indexes exactly: left as it is */
    } else if (r == SF_OK) {
        r = carry_all(p, SF_GLTF_NONE, s.source, s.vertex_count, counts, err);
        for (size_t t = 0; r == SF_OK && t < p->target_count; ++t) r = carry_all(p, t, s.source, s.vertex_count, counts, err);
        sfi_fix_attr tan = {s.tangents, s.vertex_count, 4, 5126, 0};
        if (r == SF_OK) r = sfi_fix_write(p, SF_GLTF_NONE, "TANGENT", &tan, counts, err);
        if (r == SF_OK) r = write_indices(p, s.indices, s.vertex_count, counts, err);
        if (r == SF_OK && morph && p->target_count) r = morph_tangents(p, &s, counts, err);
        if (r == SF_OK) {
            counts->tangents_generated += s.vertex_count;
            counts->tangent_vertices_added += s.vertex_count - p->n;
        }
    }
    free(s.indices);
    free(s.source);
    free(s.tangents);
    return r;
}

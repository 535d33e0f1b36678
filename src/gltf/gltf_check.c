/* Data problems of loaded glTF primitives (weights, influences, authored normals and tangents, morph
 * deltas, degenerate triangles) and their UV seams and hard edges. Reported apart from method error. */
#include "gltf_internal.h"
#include "sf_kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char* const problem_names[SF_GLTF_PROBLEM_COUNT] = {
#define SF_GLTF_PROBLEM_NAME_(id, name, text) name,
    SF_GLTF_PROBLEMS(SF_GLTF_PROBLEM_NAME_)
#undef SF_GLTF_PROBLEM_NAME_
};

static const char* const problem_texts[SF_GLTF_PROBLEM_COUNT] = {
#define SF_GLTF_PROBLEM_TEXT_(id, name, text) text,
    SF_GLTF_PROBLEMS(SF_GLTF_PROBLEM_TEXT_)
#undef SF_GLTF_PROBLEM_TEXT_
};

const char* sf_gltf_problem_name(sf_gltf_problem p) { return (unsigned)p < SF_GLTF_PROBLEM_COUNT ? problem_names[p] : "?"; }
const char* sf_gltf_problem_description(sf_gltf_problem p)
{
    return (unsigned)p < SF_GLTF_PROBLEM_COUNT ? problem_texts[p] : "?";
}

/* Counts one occurrence; keeps the example with the largest value (the first on ties). */
static void note(sf_gltf_inspection* out, sf_gltf_problem p, size_t index, double value)
{
    sf_gltf_problem_stat* s = &out->problems[p];
    if (s->count == 0 || value > s->worst_value) {
        s->worst_index = index;
        s->worst_value = value;
    }
    s->count++;
}

typedef struct pos_key {
    float x, y, z;
    uint32_t v;
} pos_key;

static int cmp_pos(const void* a, const void* b)
{
    const pos_key* p = (const pos_key*)a;
    const pos_key* q = (const pos_key*)b;
    if (p->x != q->x) return p->x < q->x ? -1 : 1;
    if (p->y != q->y) return p->y < q->y ? -1 : 1;
    if (p->z != q->z) return p->z < q->z ? -1 : 1;
    return p->v < q->v ? -1 : p->v > q->v;
}

static int nonzero3(const float* d) { return d[0] != 0.0f || d[1] != 0.0f || d[2] != 0.0f; }

/* Vertex problems are counted in the file's own vertex numbering (the POSITION accessor's indices): a
 * primitive split per corner for flat normals holds each source vertex several times with the same
 * weights and tangents, and the copies count once, under the source vertex's index. */
typedef struct source_marks {
    const uint32_t* source;  /* vertex -> source vertex, or NULL (the same numbering) */
    uint16_t* seen;          /* per source vertex: bit p = problem p noted, bit 15 = in the histogram */
    uint32_t* target_seen;   /* per source vertex: 1 + the last target that noted it (pairs per target) */
    uint32_t* moved_seen;    /* per source vertex: 1 + the last target that moved it */
} source_marks;

#define SEEN_HISTOGRAM 15

static size_t source_of(const source_marks* sm, size_t v) { return sm->source ? sm->source[v] : v; }

/* 1 the first time (problem, source vertex of v) is seen, and marks it. */
static int first_time(source_marks* sm, size_t v, int bit)
{
    size_t s = source_of(sm, v);
    if (!sm->seen) return 1;
    if (sm->seen[s] & (1u << bit)) return 0;
    sm->seen[s] = (uint16_t)(sm->seen[s] | (1u << bit));
    return 1;
}

static void note_vertex(sf_gltf_inspection* out, source_marks* sm, sf_gltf_problem p, size_t v, double value)
{
    if (first_time(sm, v, (int)p)) note(out, p, source_of(sm, v), value);
}

static void inspect_morphs(const sf_gltf_primitive* pr, size_t n, source_marks* sm, sf_gltf_inspection* out)
{
    const sf_mesh_desc* m = &pr->mesh;
    for (size_t k = 0; k < m->target_count; ++k) {
        const sf_morph_target_desc* t = &m->targets[k];
        size_t count = t->sparse_indices ? t->sparse_count : n;
        size_t moved = 0, turned = 0;
        if (t->sparse_indices) out->sparse_targets++;
        for (size_t i = 0; i < count; ++i) {
            size_t v = t->sparse_indices ? t->sparse_indices[i] : i;
            if (v >= n) break; /* a MikkTSpace copy */
            int dp = nonzero3(t->position_deltas + 3 * i);
            int dn = t->normal_deltas && nonzero3(t->normal_deltas + 3 * i);
            size_t sv = source_of(sm, v);
            if (dp && (!sm->moved_seen || sm->moved_seen[sv] != (uint32_t)k + 1)) {
                if (sm->moved_seen) sm->moved_seen[sv] = (uint32_t)k + 1;
                moved++;
            }
            turned += (size_t)dn;
            if (dn && !dp && (!sm->target_seen || sm->target_seen[sv] != (uint32_t)k + 1)) {
                if (sm->target_seen) sm->target_seen[sv] = (uint32_t)k + 1;
                note(out, SF_GLTF_PROBLEM_MORPH_NORMAL_STILL, sv, sfk_length(t->normal_deltas + 3 * i));
            }
        }
        /* Flat (generated) normals have no authored deltas to expect. */
        if (moved && !turned && !pr->flat_normals) note(out, SF_GLTF_PROBLEM_MORPH_ZERO_NORMALS, k, (double)moved);
    }
}

sf_result sf_gltf_primitive_inspect(const sf_gltf* gltf, size_t primitive, uint32_t influence_limit,
                                    const sf_env* env, sf_gltf_inspection* out, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(gltf && out, SF_ERROR_INVALID_ARGUMENT, err, "arguments", SFI_NO_INDEX, "gltf and out are required");
    SF_CHECK(primitive < gltf->primitive_count, SF_ERROR_INVALID_ARGUMENT, err, "primitive", primitive,
             "out of range (%zu primitives)", gltf->primitive_count);
    const sf_gltf_primitive* pr = &gltf->primitives[primitive];
    const sf_mesh_desc* m = &pr->mesh;
    /* the vertices as authored: the copies a MikkTSpace split appends repeat their sources */
    size_t n = pr->flat_normals ? m->vertex_count : pr->source_vertex_count;
    if (!influence_limit) influence_limit = 4;
    memset(out, 0, sizeof *out);
    for (int p = 0; p < SF_GLTF_PROBLEM_COUNT; ++p) out->problems[p].worst_index = SIZE_MAX;
    sf_env e = sf_env_defaults(env);
    source_marks sm = {NULL, NULL, NULL, NULL};
    size_t sources = pr->source_vertex_count;
    int split = pr->source_vertex && sources != n;
    for (size_t v = 0; pr->source_vertex && !split && v < n; ++v) split = pr->source_vertex[v] != v;
    if (split) {
        for (size_t v = 0; v < n; ++v)
            if (pr->source_vertex[v] >= sources) sources = (size_t)pr->source_vertex[v] + 1; /* never past the arrays */
        sm.source = pr->source_vertex;
        sm.seen = sf_env_calloc(&e, sources ? sources : 1, sizeof(uint16_t));
        sm.target_seen = sf_env_calloc(&e, sources ? sources : 1, sizeof(uint32_t));
        sm.moved_seen = sf_env_calloc(&e, sources ? sources : 1, sizeof(uint32_t));
        if (!sm.seen || !sm.target_seen || !sm.moved_seen) {
            sf_env_free(&e, sm.seen, 0);
            sf_env_free(&e, sm.target_seen, 0);
            sf_env_free(&e, sm.moved_seen, 0);
            return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "inspect", SFI_NO_INDEX, "%zu vertices", sources);
        }
    }

    /* Skinning weights. */
    uint32_t K = m->influence_count;
    for (size_t v = 0; K && v < n; ++v) {
        double sum = 0.0;
        uint32_t used = 0;
        for (uint32_t a = 0; a < K; ++a) {
            float w = m->weights[(size_t)K * v + a];
            sum += w;
            used += w > 0.0f;
        }
        if (first_time(&sm, v, SEEN_HISTOGRAM)) out->influence_histogram[used < 16 ? used : 16]++;
        if (used > out->max_influences) out->max_influences = used;
        if (used > influence_limit) note_vertex(out, &sm, SF_GLTF_PROBLEM_INFLUENCES, v, used);
        if (sum == 0.0)
            note_vertex(out, &sm, SF_GLTF_PROBLEM_ZERO_WEIGHTS, v, 0.0);
        else if (fabs(sum - 1.0) > 1e-3)
            note_vertex(out, &sm, SF_GLTF_PROBLEM_WEIGHT_SUM, v, fabs(sum - 1.0));
    }
    /* Authored directions. */
    for (size_t v = 0; v < n; ++v) {
        if (m->normals.data && !pr->flat_normals) {
            double len = sfk_length(sfi_stream_at(m->normals, 12, v));
            if (fabs(len - 1.0) > 1e-3) note_vertex(out, &sm, SF_GLTF_PROBLEM_NORMAL_LENGTH, v, fabs(len - 1.0));
        }
        if (m->tangents.data && pr->tangents == SF_GLTF_TANGENTS_SUPPLIED) { /* authored only */
            const float* t = sfi_stream_at(m->tangents, 16, v);
            double w_off = fabs(fabs((double)t[3]) - 1.0);
            if (w_off > 1e-3) note_vertex(out, &sm, SF_GLTF_PROBLEM_TANGENT_W, v, w_off);
            double len = sfk_length(t);
            if (len < 1e-6) note_vertex(out, &sm, SF_GLTF_PROBLEM_TANGENT_ZERO, v, len);
        }
    }
    inspect_morphs(pr, n, &sm, out);
    sf_env_free(&e, sm.seen, 0);
    sf_env_free(&e, sm.target_seen, 0);
    sf_env_free(&e, sm.moved_seen, 0);
    /* Triangles at rest. */
    for (size_t f = 0; f < m->triangle_count; ++f) {
        const uint32_t* tri = m->indices + 3 * f;
        const float* uv[3] = {NULL, NULL, NULL};
        if (m->uvs.data)
            for (int c = 0; c < 3; ++c) uv[c] = sfi_stream_at(m->uvs, 8, tri[c]);
        float fn[3], ft[3], fb[3];
        int uv_ok = sfk_face_frame(sfi_stream_at(m->positions, 12, tri[0]), sfi_stream_at(m->positions, 12, tri[1]),
                                   sfi_stream_at(m->positions, 12, tri[2]), uv[0], uv[1], uv[2], fn, ft, fb);
        if (!(sfk_dot(fn, fn) >= SF_SAFE_UNIT_EPS2)) note(out, SF_GLTF_PROBLEM_DEGENERATE_TRIANGLE, f, 0.0);
        if (m->uvs.data && !uv_ok) note(out, SF_GLTF_PROBLEM_DEGENERATE_UV, f, 0.0);
    }
    /* Seams and hard edges: group vertices by exact rest position. */
    pos_key* keys = sf_env_calloc(&e, n ? n : 1, sizeof(pos_key));
    if (!keys) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "inspect", SFI_NO_INDEX, "%zu vertices", n);
    for (size_t v = 0; v < n; ++v) {
        const float* p = sfi_stream_at(m->positions, 12, v);
        keys[v].x = p[0], keys[v].y = p[1], keys[v].z = p[2], keys[v].v = (uint32_t)v;
    }
    qsort(keys, n, sizeof *keys, cmp_pos);
    for (size_t a = 0; a < n;) {
        size_t b = a + 1;
        while (b < n && keys[b].x == keys[a].x && keys[b].y == keys[a].y && keys[b].z == keys[a].z) b++;
        out->unique_positions++;
        int seam = 0, hard = 0;
        for (size_t c = a + 1; c < b; ++c) {
            if (m->uvs.data) {
                const float* u0 = sfi_stream_at(m->uvs, 8, keys[a].v);
                const float* u1 = sfi_stream_at(m->uvs, 8, keys[c].v);
                seam |= u0[0] != u1[0] || u0[1] != u1[1];
            }
            if (m->normals.data && !pr->flat_normals) {
                float n0[3], n1[3];
                sfk_safe_unit(sfi_stream_at(m->normals, 12, keys[a].v), n0);
                sfk_safe_unit(sfi_stream_at(m->normals, 12, keys[c].v), n1);
                hard |= sfk_dot(n0, n1) < 0.9999f;
            }
        }
        out->uv_seam_positions += (size_t)seam;
        out->hard_edge_positions += (size_t)hard;
        a = b;
    }
    sf_env_free(&e, keys, 0);
    return SF_OK;
}

// LABELS: unit
/* Hostile inputs against the library's costs, built in memory: a few hundred bytes of glTF that decode to
 * many coincident vertices must build, evaluate and free in memory linear in the vertex count (an allocator
 * that counts live bytes and refuses past a cap measures it, so a quadratic cost fails instead of swapping),
 * the weld's bounds (SF_WELD_MAX_VERTICES, SF_WELD_MAX_CORNERS) hold exactly at their edges, and MikkTSpace's set-up
 * stays n log n on coincident corners and shared edges. */
#include "sf_test.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- an allocator that counts */

#define COUNT_CAP ((size_t)512 << 20) /* refuse past this: a quadratic cost then fails as out of memory */

typedef struct counter {
    size_t live, peak;
} counter;

static void* count_alloc(void* user, size_t size, size_t align)
{
    counter* c = (counter*)user;
    (void)align; /* malloc's alignment (16 on the platforms built here) is what the library asks for */
    if (size > COUNT_CAP - c->live) return NULL;
    unsigned char* p = malloc(size + 16);
    if (!p) return NULL;
    memcpy(p, &size, sizeof size);
    c->live += size;
    if (c->live > c->peak) c->peak = c->live;
    return p + 16;
}

static void count_free(void* user, void* ptr, size_t size)
{
    counter* c = (counter*)user;
    (void)size;
    if (!ptr) return;
    unsigned char* p = (unsigned char*)ptr - 16;
    size_t was;
    memcpy(&was, p, sizeof was);
    c->live -= was;
    free(p);
}

static sf_env counting_env(counter* c)
{
    sf_env env;
    memset(&env, 0, sizeof env);
    env.allocator.alloc = count_alloc;
    env.allocator.free = count_free;
    env.allocator.user = c;
    return env;
}

/* ---------------------------------------------------------------- coincident vertices */

/* n vertices from an accessor without a bufferView (all zero, so all at one position), drawn as n / 3
 * unindexed triangles: the whole file is this text. */
static void coincident_gltf(size_t n, char* out, size_t size)
{
    snprintf(out, size,
             "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,\"count\":%zu,\"type\":\"VEC3\","
             "\"min\":[0,0,0],\"max\":[0,0,0]}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
             "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}],\"scene\":0}",
             n);
}

/* Loads the file, builds its topology, an evaluation of every method (recompute-fused included) against a
 * position-welded reference and its workspace, runs the rest pose; returns the peak of live bytes, 0 when a
 * step failed (err says which). */
static size_t coincident_peak(size_t n, sf_error* err)
{
    counter c = {0, 0};
    sf_env env = counting_env(&c);
    char text[512];
    coincident_gltf(n, text, sizeof text);
    sf_gltf* g = NULL;
    sf_topology* topo = NULL;
    sf_evaluation* ev = NULL;
    sf_workspace* ws = NULL;
    size_t peak = 0;
    sf_mesh_desc desc;
    sf_method methods[SF_METHOD_COUNT];
    for (int k = 0; k < SF_METHOD_COUNT; ++k) methods[k] = (sf_method)k;
    sf_eval_desc ed;
    memset(&ed, 0, sizeof ed);
    ed.methods = methods;
    ed.method_count = SF_METHOD_COUNT;
    ed.reference_opts.weld = SF_WELD_POSITION;
    if (sf_gltf_load_memory(text, strlen(text), NULL, NULL, &env, &g, err) != SF_OK) goto done;
    if (sf_gltf_instance_mesh(g, 0, 0, &desc, err) != SF_OK) goto done;
    if (desc.vertex_count != n) {
        sf_error_set(err, SF_ERROR_COUNT_MISMATCH, "test", SIZE_MAX, "%zu vertices, expected %zu",
                     desc.vertex_count, n);
        goto done;
    }
    if (sf_topology_create(&desc, NULL, &env, &topo, err) != SF_OK) goto done;
    if (sf_evaluation_create(topo, &ed, &env, &ev, err) != SF_OK) goto done;
    sf_workspace_opts wopts = {sf_evaluation_methods_mask(ev), SF_BACKEND_CPU};
    if (sf_workspace_create(topo, &wopts, &ws, err) != SF_OK) goto done;
    {
        float bone[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
        sf_pose pose = {bone, desc.bone_count, NULL, 0};
        if (sf_evaluation_run(ev, &pose, ws, NULL, err) != SF_OK) goto done;
    }
    peak = c.peak;
done:
    sf_workspace_destroy(ws);
    sf_evaluation_destroy(ev);
    sf_topology_destroy(topo);
    sf_gltf_destroy(g);
    if (peak && c.live != 0) {
        sf_error_set(err, SF_ERROR_INVALID_ARGUMENT, "test", SIZE_MAX, "%zu bytes still live", c.live);
        return 0;
    }
    return peak;
}

/* Memory linear in the count of coincident vertices: 4x the vertices may cost ~4x the bytes (5x allowed), not
 * 16x, and under 2 KiB per vertex (the per-vertex arrays of every method's frames and the topology). */
static void test_coincident_vertices_linear(void)
{
    sf_error err;
    size_t small = 6000, large = 4 * small;
    size_t p1 = coincident_peak(small, &err);
    if (!p1) sft_failf(__FILE__, __LINE__, "%zu coincident vertices: %s", small, err.message);
    CHECK(p1 > 0);
    size_t p4 = coincident_peak(large, &err);
    if (!p4) sft_failf(__FILE__, __LINE__, "%zu coincident vertices: %s", large, err.message);
    CHECK(p4 > 0);
    printf("  peak: %zu vertices %zu bytes, %zu vertices %zu bytes (%.2fx)\n", small, p1, large, p4,
           (double)p4 / (double)p1);
    CHECK(p4 <= 5 * p1);
    CHECK(p4 <= 2048 * large);
}

/* ---------------------------------------------------------------- MikkTSpace on coincident corners */

/* MikkTSpace tangents of `triangles` unindexed triangles, corner c at positions[c], one normal and UV each;
 * the tangents must come out finite, at most unit (MikkTSpace leaves zero where a group's vectors cancel) and
 * with w = +-1. */
static void mikktspace_generate(const float* positions, const float* uvs, size_t triangles)
{
    size_t C = 3 * triangles;
    float* normals = malloc(3 * C * sizeof(float));
    float* out = malloc(4 * C * sizeof(float));
    CHECK(normals && out);
    if (!normals || !out) goto done;
    for (size_t c = 0; c < C; ++c) normals[3 * c] = normals[3 * c + 1] = 0.0f, normals[3 * c + 2] = 1.0f;
    sf_tangent_desc d;
    memset(&d, 0, sizeof d);
    d.vertex_count = C;
    d.triangle_count = triangles;
    d.positions.data = positions;
    d.normals.data = normals;
    d.uvs.data = uvs;
    d.mode = SF_TANGENTS_MIKKTSPACE;
    sf_error err;
    CHECK_OK(sf_tangents_generate(&d, NULL, out, &err));
    size_t bad = 0;
    for (size_t c = 0; c < C; ++c) {
        const float* t = out + 4 * c;
        float len = t[0] * t[0] + t[1] * t[1] + t[2] * t[2];
        if (!(len <= 1.01f) || (t[3] != 1.0f && t[3] != -1.0f)) ++bad;
    }
    CHECK(bad == 0);
done:
    free(normals);
    free(out);
}

/* Many corners at one point with distinct UVs (one hash cell that cannot be split), and a "book" of triangles
 * sharing one edge in one winding (one run of edges none of which pair): MikkTSpace numbers the first and pairs
 * the second in n log n and linear time. The pairwise scans they replace take hours at these sizes, beyond the
 * test's timeout; these take well under a second. */
static void test_mikktspace_coincident(void)
{
    enum { POINT_TRIANGLES = 200000, BOOK_PAGES = 300000 };
    size_t C = 3 * (size_t)POINT_TRIANGLES;
    float* pos = calloc(3 * C, sizeof(float));
    float* uv = calloc(2 * C, sizeof(float));
    CHECK(pos && uv);
    if (pos && uv) {
        for (size_t c = 0; c < C; ++c) uv[2 * c] = (float)c; /* all at the origin, no two UVs alike */
        mikktspace_generate(pos, uv, POINT_TRIANGLES);
    }
    free(pos);
    free(uv);
    C = 3 * (size_t)BOOK_PAGES;
    pos = calloc(3 * C, sizeof(float));
    uv = calloc(2 * C, sizeof(float));
    CHECK(pos && uv);
    if (pos && uv) {
        for (size_t f = 0; f < BOOK_PAGES; ++f) {
            float* p = pos + 9 * f;
            float* t = uv + 6 * f;
            /* pages (0,0,0) (1,0,0) (0.5, cos, sin); the second half wound the other way, so each page of the
             * first half pairs with one half a book away */
            double a = 6.283185307179586 * (double)f / BOOK_PAGES;
            int b = f < BOOK_PAGES / 2 ? 3 : 6, c = 9 - b;
            p[b] = 1.0f;
            p[c] = 0.5f, p[c + 1] = (float)cos(a), p[c + 2] = (float)sin(a);
            t[b / 3 * 2] = 1.0f, t[c / 3 * 2] = 0.5f, t[c / 3 * 2 + 1] = 1.0f;
        }
        mikktspace_generate(pos, uv, BOOK_PAGES);
    }
    free(pos);
    free(uv);
}

/* ---------------------------------------------------------------- the weld's bounds */

/* members coincident vertices at the origin, each the first corner of per triangles whose other two corners are
 * points of their own: the run has members vertices and members * per corners. */
static sf_result weld_stats(size_t members, size_t per, sf_topology_stats* stats, sf_error* err)
{
    size_t F = members * per, n = members + 2 * F;
    float* pos = calloc(3 * n, sizeof(float));
    uint32_t* idx = calloc(3 * F, sizeof(uint32_t));
    sf_result r = SF_ERROR_OUT_OF_MEMORY;
    if (pos && idx) {
        for (size_t t = 0; t < F; ++t) {
            size_t a = members + 2 * t, b = a + 1;
            pos[3 * a] = (float)(t + 1);     /* on +x */
            pos[3 * b + 1] = (float)(t + 1); /* on +y, off the plane: no two triangles alike */
            pos[3 * b + 2] = 1.0f;
            idx[3 * t] = (uint32_t)(t / per);
            idx[3 * t + 1] = (uint32_t)a;
            idx[3 * t + 2] = (uint32_t)b;
        }
        sf_mesh_desc m;
        memset(&m, 0, sizeof m);
        m.vertex_count = n;
        m.triangle_count = F;
        m.indices = idx;
        m.positions.data = pos;
        sf_topology* topo = NULL;
        r = sf_topology_create(&m, NULL, NULL, &topo, err);
        if (r == SF_OK) sf_topology_get_stats(topo, stats);
        sf_topology_destroy(topo);
    }
    free(pos);
    free(idx);
    return r;
}

/* A run at either bound welds (one position group); one vertex or one corner more leaves it unwelded. */
static void test_weld_bounds(void)
{
    sf_error err;
    sf_topology_stats s;
    size_t bound = SF_WELD_MAX_VERTICES < SF_WELD_MAX_CORNERS ? SF_WELD_MAX_VERTICES : SF_WELD_MAX_CORNERS;
    CHECK_OK(weld_stats(bound, 1, &s, &err)); /* vertices and corners at the bound */
    CHECK(s.weld_position_groups == 1);
    CHECK_OK(weld_stats(bound + 1, 1, &s, &err));
    CHECK(s.weld_position_groups == 0);
    CHECK_OK(weld_stats(2, SF_WELD_MAX_CORNERS / 2, &s, &err)); /* two vertices, corners at the bound */
    CHECK(s.weld_position_groups == 1);
    CHECK_OK(weld_stats(2, SF_WELD_MAX_CORNERS / 2 + 1, &s, &err));
    CHECK(s.weld_position_groups == 0);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"coincident_vertices_linear", test_coincident_vertices_linear},
        {"weld_bounds", test_weld_bounds},
        {"mikktspace_coincident", test_mikktspace_coincident},
    };
    return SFT_RUN(cases, argc, argv);
}

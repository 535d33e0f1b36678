// LABELS: unit
/* The CUDA backend's locality blocks (sfi_gpu_blocks, cuda/gpu_blocks.c), checked on the CPU against the
 * topology they come from: the blocks own every vertex once, each block's local vertices are its own ones
 * then exactly its one-ring halo, every corner entry names the face corner it stands for, the limits hold,
 * and a vertex whose faces alone exceed them is refused naming the sizes. Prints the halo ratio (halo
 * vertices per owned vertex) of a 141 x 141 grid (the crowd's), a 999 x 999 grid and CesiumMan. The device's
 * vertex order (sfi_gpu_order, cuda/gpu_order.c): a bijection whose moves of rows and CSR arrays undo each
 * other, its triangle order a bijection sorted by the lowest device vertex, and the CPU's frames of CesiumMan with its vertices in that order, mapped back, are the authored order's
 * bit for bit; prints the position lines a warp's one-rings touch in either order. */
#include "gpu_blocks.h"
#include "gpu_order.h"
#include "sf_internal.h"
#include "sf_test.h"
#include "sft_assets.h"

#include "skinframe_gltf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct grid {
    size_t n, F;
    float *pos, *uv;
    uint32_t* idx;
    sf_mesh_desc mesh;
} grid;

static void grid_make(grid* g, size_t r)
{
    memset(g, 0, sizeof *g);
    g->n = (r + 1) * (r + 1), g->F = 2 * r * r;
    g->pos = malloc(12 * g->n), g->uv = malloc(8 * g->n), g->idx = malloc(12 * g->F);
    for (size_t y = 0; y <= r; ++y)
        for (size_t x = 0; x <= r; ++x) {
            size_t v = y * (r + 1) + x;
            g->pos[3 * v] = (float)x / (float)r, g->pos[3 * v + 1] = (float)y / (float)r, g->pos[3 * v + 2] = 0.0f;
            g->uv[2 * v] = g->pos[3 * v], g->uv[2 * v + 1] = g->pos[3 * v + 1];
        }
    for (size_t y = 0; y < r; ++y)
        for (size_t x = 0; x < r; ++x) {
            uint32_t a = (uint32_t)(y * (r + 1) + x), b = a + 1, c = a + (uint32_t)(r + 1), d = c + 1;
            uint32_t* q = g->idx + 6 * (y * r + x);
            q[0] = a, q[1] = b, q[2] = d, q[3] = a, q[4] = d, q[5] = c;
        }
    memset(&g->mesh, 0, sizeof g->mesh);
    g->mesh.vertex_count = g->n, g->mesh.triangle_count = g->F, g->mesh.indices = g->idx;
    g->mesh.positions.data = g->pos, g->mesh.uvs.data = g->uv;
}

static void grid_free(grid* g) { free(g->pos), free(g->uv), free(g->idx); }

static double faces_per_triangle; /* of the last blocks checked: block faces over the mesh's triangles */

/* Every invariant of the blocks of topo under weld; *ratio: the halo ratio (-1 on a failure). */
static void check_blocks(const sf_topology* topo, int weld, uint32_t max_own, uint32_t max_locals,
                         uint32_t max_faces, double* ratio)
{
    sfi_gpu_blocks g;
    sf_error err;
    *ratio = -1.0;
    CHECK_OK(sfi_gpu_blocks_build(topo, weld, max_own, max_locals, max_faces, &g, &err));
    size_t n = topo->vertex_count;
    unsigned char* seen = calloc(n ? n : 1, 1);
    uint32_t* local_of = calloc(n ? n : 1, sizeof *local_of); /* 1 + local index in the block being checked */
    for (size_t q = 0; q < n; ++q) seen[g.order[q]]++;
    for (size_t v = 0; v < n; ++v) CHECK(seen[v] == 1);
    CHECK(g.own_offsets[0] == 0 && g.own_offsets[g.block_count] == n);
    size_t halo = 0;
    for (uint32_t k = 0; k < g.block_count && !sft_failed_now; ++k) {
        uint32_t q0 = g.own_offsets[k], q1 = g.own_offsets[k + 1], L0 = g.local_offsets[k];
        uint32_t L = g.local_offsets[k + 1] - L0, F0 = g.face_offsets[k], NF = g.face_offsets[k + 1] - F0;
        CHECK(q1 > q0 && q1 - q0 <= max_own && L <= max_locals && L <= g.max_locals && NF <= max_faces &&
              NF <= g.max_faces);
        for (uint32_t i = 0; i < L; ++i) {
            uint32_t u = g.locals[L0 + i];
            CHECK(u < n && local_of[u] == 0); /* distinct */
            local_of[u] = i + 1;
            if (i < q1 - q0) CHECK(u == g.order[q0 + i]); /* owned first, in order */
            if (i > 0 && i != q1 - q0) CHECK(g.locals[L0 + i - 1] < u); /* each part in public order */
        }
        /* the halo is exactly the owned vertices' corner faces' other vertices */
        unsigned char* reached = calloc(L ? L : 1, 1);
        for (uint32_t i = 0; i < q1 - q0; ++i) reached[i] = 1;
        for (uint32_t q = q0; q < q1; ++q) {
            uint32_t v = g.order[q], ab = topo->adj_offsets[v], ae = topo->adj_offsets[v + 1];
            uint32_t c0 = g.corner_offsets[q], c1 = g.corner_offsets[q + 1], na = 0;
            const uint32_t* wc = NULL;
            if (weld >= 0) {
                uint32_t grp = topo->weld[weld].group[v];
                wc = topo->weld[weld].corners + topo->weld[weld].corner_offsets[grp];
                na = topo->weld[weld].corner_offsets[grp + 1] - topo->weld[weld].corner_offsets[grp];
            }
            CHECK(c1 - c0 == na + (ae - ab));
            for (uint32_t e = c0; e < c1 && e - c0 < na + (ae - ab); ++e) {
                uint32_t want = e - c0 < na ? wc[e - c0] : topo->adj_corners[ab + (e - c0 - na)];
                uint32_t lf = g.corners[e] / 3u, c = g.corners[e] % 3u, f = want / 3u;
                CHECK(lf < NF && c == want % 3u);
                for (int j = 0; j < 3 && lf < NF; ++j) {
                    uint32_t l = g.face_locals[3 * (F0 + lf) + j];
                    CHECK(l < L && g.locals[L0 + l] == topo->indices[3 * f + j]);
                    if (l < L) reached[l] = 1;
                }
                if (e - c0 >= na) CHECK(topo->indices[3 * f + c] == v); /* its own corner */
            }
        }
        for (uint32_t i = 0; i < L; ++i) CHECK(reached[i]);
        free(reached);
        for (uint32_t i = 0; i < L; ++i) local_of[g.locals[L0 + i]] = 0;
        halo += L - (q1 - q0);
    }
    CHECK(halo == g.halo_count);
    faces_per_triangle = topo->triangle_count ? (double)g.face_count / (double)topo->triangle_count : 0.0;
    free(seen), free(local_of);
    sfi_gpu_blocks_free(&g);
    if (!sft_failed_now) *ratio = n ? (double)halo / (double)n : 0.0;
}

static void grids(void)
{
    size_t sizes[] = {1, 7, 141, 999};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        grid g;
        grid_make(&g, sizes[s]);
        sf_topology* topo = NULL;
        sf_error err;
        CHECK_OK(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err));
        double h, hw;
        check_blocks(topo, -1, SFI_CUDA_HALO_OWN, SFI_CUDA_HALO_LOCALS, SFI_CUDA_HALO_FACES, &h);
        double fpt = faces_per_triangle;
        for (int w = 0; w < 2 && sizes[s] < 999; ++w) {
            check_blocks(topo, w, SFI_CUDA_HALO_OWN, SFI_CUDA_HALO_LOCALS, SFI_CUDA_HALO_FACES, &hw);
            CHECK(hw >= 0.0);
        }
        if (sizes[s] < 999) { /* small limits cut the blocks short without breaking them */
            check_blocks(topo, 0, 32, 64, 40, &hw);
            CHECK(hw >= 0.0);
        }
        printf("grid %zu x %zu (%zu vertices): halo ratio %.3f, %.3f block faces per triangle\n", sizes[s], sizes[s],
               g.n, h, fpt);
        /* compact blocks: a 16 x 16 tile's one-ring is about 66 vertices, a run of 256 vertices of one row
         * about 2 x 258; the Morton blocks stay well under half a row run's */
        if (sizes[s] >= 141) CHECK(h > 0.0 && h < 0.5);
        sf_topology_destroy(topo);
        grid_free(&g);
    }
}

static void refused_by_size(void)
{
    grid g;
    grid_make(&g, 4);
    sf_topology* topo = NULL;
    sf_error err;
    CHECK_OK(sf_topology_create(&g.mesh, NULL, NULL, &topo, &err));
    sfi_gpu_blocks b;
    CHECK(sfi_gpu_blocks_build(topo, -1, 256, 1024, 1, &b, &err) == SF_ERROR_UNSUPPORTED); /* every vertex has 2+ */
    CHECK(strstr(err.message, "faces") && strstr(err.message, "at most 1 faces"));
    CHECK(b.order == NULL && b.block_count == 0);
    /* the first vertex (a corner: 1 or 2 faces) fits, a later one (3 or 6) starts a block it does not fit either */
    CHECK(sfi_gpu_blocks_build(topo, -1, 256, 1024, 2, &b, &err) == SF_ERROR_UNSUPPORTED);
    CHECK(strstr(err.message, "at most 2 faces") != NULL);
    CHECK(b.order == NULL && b.block_count == 0);
    CHECK(sfi_gpu_blocks_build(topo, -1, 4, 6, 64, &b, &err) == SF_ERROR_UNSUPPORTED); /* an inner ring: 7 vertices */
    CHECK(b.order == NULL && b.block_count == 0);
    CHECK(sfi_gpu_blocks_build(topo, -1, 0, 1024, 64, &b, &err) == SF_ERROR_INVALID_ARGUMENT);
    CHECK(sfi_gpu_blocks_build(topo, -1, 256, 70000, 64, &b, &err) == SF_ERROR_INVALID_ARGUMENT);
    sfi_gpu_blocks_free(&b); /* zeroed: freeing again is harmless */
    sf_topology_destroy(topo);
    grid_free(&g);
}

static void cesium_man(void)
{
    sf_gltf* g = NULL;
    if (!sft_load_staged("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", "CesiumMan not found (SF_ASSETS)", &g, NULL)) return;
    sf_error err;
    sf_mesh_desc desc;
    CHECK_OK(sf_gltf_instance_mesh(g, 0, g->meshes[g->instances[0].mesh].first_primitive, &desc, &err));
    desc.zero_weight_policy = SF_ZERO_WEIGHTS_REST;
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&desc, NULL, NULL, &topo, &err));
    if (topo) {
        double h, hw;
        check_blocks(topo, -1, SFI_CUDA_HALO_OWN, SFI_CUDA_HALO_LOCALS, SFI_CUDA_HALO_FACES, &h);
        double fpt = faces_per_triangle;
        for (int w = 0; w < 2; ++w) {
            check_blocks(topo, w, SFI_CUDA_HALO_OWN, SFI_CUDA_HALO_LOCALS, SFI_CUDA_HALO_FACES, &hw);
            CHECK(hw >= 0.0);
        }
        printf("CesiumMan (%zu vertices): halo ratio %.3f, %.3f block faces per triangle\n", topo->vertex_count, h,
               fpt);
        CHECK(h > 0.0 && h < 1.0);
    }
    sf_topology_destroy(topo);
    sf_gltf_destroy(g);
}

static void order_moves(const sf_topology* topo, const sfi_gpu_order* o)
{
    size_t n = topo->vertex_count;
    CHECK(o->n == n);
    unsigned char* seen = calloc(n ? n : 1, 1);
    for (size_t q = 0; q < n; ++q) {
        CHECK(o->perm[q] < n && o->inv[o->perm[q]] == q);
        if (o->perm[q] < n) seen[o->perm[q]]++;
    }
    for (size_t v = 0; v < n; ++v) CHECK(seen[v] == 1);
    free(seen);
    /* triangles: a bijection, by their lowest device vertex, ties in the caller's order */
    size_t F = topo->triangle_count;
    CHECK(o->F == F);
    uint32_t last_key = 0, last_f = 0;
    for (size_t g = 0; g < F && !sft_failed_now; ++g) {
        uint32_t f = o->fperm[g], key = UINT32_MAX;
        CHECK(f < F && o->finv[f] == g);
        for (int k = 0; k < 3 && f < F; ++k) {
            uint32_t d = o->inv[topo->indices[3 * (size_t)f + k]];
            key = d < key ? d : key;
            CHECK(sfi_gpu_order_corner(o, 3 * f + (uint32_t)k) == 3 * (uint32_t)g + (uint32_t)k);
        }
        CHECK(g == 0 || key > last_key || (key == last_key && f > last_f));
        last_key = key, last_f = f;
    }
    /* rows there and back */
    float* dev = malloc(12 * n + 4);
    float* back = malloc(12 * n + 4);
    sfi_gpu_order_rows(n, o->perm, topo->rest_positions, 12, dev);
    for (size_t q = 0; q < n; ++q) CHECK(memcmp(dev + 3 * q, topo->rest_positions + 3 * (size_t)o->perm[q], 12) == 0);
    sfi_gpu_order_rows_back(n, o->perm, dev, 12, back);
    CHECK(memcmp(back, topo->rest_positions, 12 * n) == 0);
    /* the adjacency as CSR: each device vertex has its caller's vertex's corners, in their order */
    uint32_t* off = malloc(4 * (n + 1));
    uint32_t* cor = malloc(4 * (topo->adj_offsets[n] + 1));
    sfi_gpu_order_csr(n, o->perm, topo->adj_offsets, topo->adj_corners, 4, off, cor);
    CHECK(off[0] == 0 && off[n] == topo->adj_offsets[n]);
    for (size_t q = 0; q < n && !sft_failed_now; ++q) {
        uint32_t v = o->perm[q], m = topo->adj_offsets[v + 1] - topo->adj_offsets[v];
        CHECK(off[q + 1] - off[q] == m);
        CHECK(memcmp(cor + off[q], topo->adj_corners + topo->adj_offsets[v], 4 * (size_t)m) == 0);
    }
    free(dev), free(back), free(off), free(cor);
}

/* The topology's own packed streams as a mesh, its vertices in the order perm (NULL: as they are). */
typedef struct ordered_mesh {
    sf_mesh_desc desc;
    float *p, *nrm, *t, *uv, *w;
    uint32_t *idx, *j;
} ordered_mesh;

static void ordered_make(ordered_mesh* m, const sf_topology* topo, const sfi_gpu_order* o)
{
    size_t n = topo->vertex_count, F = topo->triangle_count, K = topo->influence_count;
    memset(m, 0, sizeof *m);
    m->p = malloc(12 * n), m->nrm = malloc(12 * n), m->t = malloc(16 * n), m->uv = malloc(8 * n + 4);
    m->w = malloc(4 * K * n + 4), m->j = malloc(4 * K * n + 4), m->idx = malloc(12 * F);
    for (size_t q = 0; q < n; ++q) {
        size_t v = o ? o->perm[q] : q;
        memcpy(m->p + 3 * q, topo->rest_positions + 3 * v, 12);
        memcpy(m->nrm + 3 * q, topo->rest_normals + 3 * v, 12);
        memcpy(m->t + 4 * q, topo->rest_tangents + 4 * v, 16);
        if (topo->uvs) memcpy(m->uv + 2 * q, topo->uvs + 2 * v, 8);
        memcpy(m->j + K * q, topo->joints + K * v, 4 * K);
        memcpy(m->w + K * q, topo->weights + K * v, 4 * K);
    }
    for (size_t i = 0; i < 3 * F; ++i) m->idx[i] = o ? o->inv[topo->indices[i]] : topo->indices[i];
    sf_mesh_desc* d = &m->desc;
    d->vertex_count = n, d->triangle_count = F, d->indices = m->idx;
    d->positions.data = m->p, d->normals.data = m->nrm, d->tangents.data = m->t;
    d->uvs.data = topo->uvs ? m->uv : NULL;
    d->influence_count = (uint32_t)K, d->joints = m->j, d->weights = m->w, d->bone_count = topo->bone_count;
    d->zero_weight_policy = SF_ZERO_WEIGHTS_REST;
}

static void ordered_free(ordered_mesh* m)
{
    free(m->p), free(m->nrm), free(m->t), free(m->uv), free(m->w), free(m->j), free(m->idx);
}

/* Every method (and the reference under its weighting and weld options) on the CPU with the vertices in the
 * device's order, mapped back, against the authored order: the same bits. */
static void order_frames(const sf_topology* topo, const sfi_gpu_order* o, const float* bones)
{
    ordered_mesh ma, mb;
    ordered_make(&ma, topo, NULL);
    ordered_make(&mb, topo, o);
    sf_topology *ta = NULL, *tb = NULL;
    sf_workspace *wa = NULL, *wb = NULL;
    sf_error err;
    CHECK_OK(sf_topology_create(&ma.desc, NULL, NULL, &ta, &err));
    CHECK_OK(sf_topology_create(&mb.desc, NULL, NULL, &tb, &err));
    if (ta) CHECK_OK(sf_workspace_create(ta, NULL, &wa, &err));
    if (tb) CHECK_OK(sf_workspace_create(tb, NULL, &wb, &err));
    size_t n = topo->vertex_count, compared = 0;
    float* fa = malloc(40 * n + 4);
    float* fb = malloc(40 * n + 4);
    float* back = malloc(40 * n + 4);
    sf_pose pose = {bones, topo->bone_count, NULL, 0};
    for (int m = 0; m < SF_METHOD_COUNT + 3 && wa && wb && !sft_failed_now; ++m) {
        sf_frames_opts opts;
        memset(&opts, 0, sizeof opts);
        sf_method method = m < SF_METHOD_COUNT ? (sf_method)m : SF_METHOD_RECOMPUTE;
        if (m == SF_METHOD_COUNT) opts.weighting = SF_WEIGHTING_ANGLE;
        if (m == SF_METHOD_COUNT + 1) opts.weld = SF_WELD_POSITION;
        if (m == SF_METHOD_COUNT + 2) opts.weld = SF_WELD_POSITION_NORMAL;
        sf_frames_out oa = {fa, fa + 3 * n, fa + 6 * n}, ob = {fb, fb + 3 * n, fb + 6 * n};
        CHECK_OK(sf_frames_compute(ta, &pose, method, &opts, wa, &oa, &err));
        CHECK_OK(sf_frames_compute(tb, &pose, method, &opts, wb, &ob, &err));
        sfi_gpu_order_rows_back(n, o->perm, fb, 12, back);
        sfi_gpu_order_rows_back(n, o->perm, fb + 3 * n, 12, back + 3 * n);
        sfi_gpu_order_rows_back(n, o->perm, fb + 6 * n, 16, back + 6 * n);
        if (memcmp(back, fa, 40 * n) != 0)
            sft_failf(__FILE__, __LINE__, "order: %s (options %d) differs mapped back", sf_method_name(method), m);
        compared++;
    }
    printf("order: %zu frame sets of %zu vertices in the device's order equal the authored order's mapped back\n",
           compared, n);
    free(fa), free(fb), free(back);
    sf_workspace_destroy(wa), sf_workspace_destroy(wb);
    sf_topology_destroy(ta), sf_topology_destroy(tb);
    ordered_free(&ma), ordered_free(&mb);
}

static void order(void)
{
    sf_gltf* g = NULL;
    sf_gltf_pose* gp = NULL;
    if (!sft_load_staged("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", "CesiumMan not found (SF_ASSETS)", &g, &gp)) return;
    sf_error err;
    sf_mesh_desc desc;
    CHECK_OK(sf_gltf_instance_mesh(g, 0, g->meshes[g->instances[0].mesh].first_primitive, &desc, &err));
    desc.zero_weight_policy = SF_ZERO_WEIGHTS_REST;
    CHECK_OK(sf_gltf_pose_sample(gp, 0, 1.0, &err));
    float* bones = calloc(12 * g->instances[0].bone_count + 1, sizeof(float));
    CHECK_OK(sf_gltf_pose_instance(gp, 0, bones, NULL, NULL, &err));
    sf_topology* topo = NULL;
    CHECK_OK(sf_topology_create(&desc, NULL, NULL, &topo, &err));
    sfi_gpu_order o;
    memset(&o, 0, sizeof o);
    if (topo) CHECK_OK(sfi_gpu_order_build(topo, &o, &err));
    if (o.perm) {
        order_moves(topo, &o);
        /* the blocks for that order: each block's owned vertices are consecutive device vertices, its halo
         * ascending in device order, every weld mode's */
        for (int w = -1; w < 2; ++w) {
            sfi_gpu_blocks b;
            CHECK_OK(sfi_gpu_blocks_build_in(topo, w, SFI_CUDA_HALO_OWN, SFI_CUDA_HALO_LOCALS, SFI_CUDA_HALO_FACES, 1,
                                             &b, &err));
            if (sft_failed_now) break;
            CHECK(memcmp(b.order, o.perm, 4 * topo->vertex_count) == 0);
            for (uint32_t k = 0; k < b.block_count; ++k) {
                uint32_t q0 = b.own_offsets[k], own = b.own_offsets[k + 1] - q0, L0 = b.local_offsets[k];
                uint32_t L = b.local_offsets[k + 1] - L0;
                for (uint32_t i = 0; i < L; ++i) {
                    uint32_t d = o.inv[b.locals[L0 + i]];
                    if (i < own) CHECK(d == q0 + i);
                    if (i > own) CHECK(o.inv[b.locals[L0 + i - 1]] < d);
                }
            }
            sfi_gpu_blocks_free(&b);
        }
        double authored = sfi_gpu_order_lines(topo, NULL, NULL), blocks = sfi_gpu_order_lines(topo, o.perm, o.inv);
        printf("order: CesiumMan, a warp's one-rings touch %.1f position lines in the authored order, %.1f in the "
               "Morton order\n",
               authored, blocks);
        CHECK(blocks < authored);
        order_frames(topo, &o, bones);
    }
    /* the grid: its own order is already local, the blocks' stays so */
    grid gr;
    grid_make(&gr, 141);
    sf_topology* gt = NULL;
    sfi_gpu_order go;
    memset(&go, 0, sizeof go);
    CHECK_OK(sf_topology_create(&gr.mesh, NULL, NULL, &gt, &err));
    if (gt) CHECK_OK(sfi_gpu_order_build(gt, &go, &err));
    if (go.perm) {
        order_moves(gt, &go);
        printf("order: grid 141 x 141, %.1f position lines per warp as authored, %.1f in the Morton order\n",
               sfi_gpu_order_lines(gt, NULL, NULL), sfi_gpu_order_lines(gt, go.perm, go.inv));
    }
    sfi_gpu_order_free(&go);
    sfi_gpu_order_free(&go); /* zeroed: freeing again is harmless */
    sf_topology_destroy(gt);
    grid_free(&gr);
    sfi_gpu_order_free(&o);
    sf_topology_destroy(topo);
    free(bones);
    sf_gltf_pose_destroy(gp);
    sf_gltf_destroy(g);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"grids", grids},
        {"refused_by_size", refused_by_size},
        {"cesium_man", cesium_man},
        {"order", order},
    };
    return SFT_RUN(cases, argc, argv);
}

/* MikkTSpace-compatible tangents: our own implementation of Morten S. Mikkelsen's algorithm, written
 * from its description (no code taken from mikktspace.c or its ports), checked against the npm package
 * `mikktspace` in tests/test_mikktspace.c. The algorithm, per triangle corner:
 *
 *  1. Corners with bit-identical position, normal and UV are one vertex ("shared vertices").
 *  2. A triangle with two corners at the same position is degenerate: left out, and each of its corners
 *     later copies the tangent of the first good corner of the same shared vertex (else keeps the
 *     default tangent (1,0,0), w = -1).
 *  3. Per good triangle: the UV tangent os = dP/du and ot = dP/dv (unit), the orientation flag
 *     (signed UV area > 0), and "group with any" when the UV area or either magnitude is zero.
 *  4. Triangles are neighbours across an edge whose two shared vertices match in opposite directions
 *     (first unpaired match in (edge, triangle) order, so non-manifold edges pair deterministically).
 *  5. Groups: around each shared vertex, the fan of triangles reachable across edges at that vertex
 *     that have the same orientation (depth first, the left edge before the right one; a group-with-any
 *     triangle takes the orientation of the first group that reaches it).
 *  6. Per group and triangle: the sub-group of group triangles whose tangents, projected onto the vertex
 *     normal, are not opposite (cosine > cos 180 deg) or that group with any; its tangent is the sum of
 *     the projected unit tangents weighted by the corner angle (measured in the tangent plane),
 *     normalised. w = +1 for orientation-preserving groups, -1 otherwise.
 *
 * Step 4 follows the reference implementation exactly, including how it orders the edges: its shared
 * vertices are numbered by their first corner in the order of its spatial hash (face * 4 + corner), its
 * edge list is sorted by a seeded quicksort on the lower number, then runs are sorted by the higher one
 * and by triangle, except that the last run of each pass is left as the quicksort put it. That ordering
 * decides which triangles pair across non-manifold or coincident edges, so it is reproduced here
 * (shared_vertices, sort_edges) rather than replaced by a plain sort.
 *
 * Precomputed at topology creation: the UV flags. Kept in the scratch from frame to frame, each exact for the
 * frame that reuses it:
 *  - the classes (which corners are one shared vertex), from the last full numbering. A frame where every
 *    corner's data is bit-identical to its class's first corner's, free of NaN, and no two classes of one hash
 *    leaf are equal has those classes: it is numbered by the same hash without the sorts of the leaves (the
 *    first corner of each class in leaf order). Else it is numbered in full and its classes kept.
 *  - the neighbours. The numbering only decides ties: where an edge between two shared vertices occurs more
 *    than once in one direction, and at the last lower vertex, whose edges the reference leaves unsorted by
 *    the higher one (two edges to one vertex pair only if no edge to another lies between them). When neither
 *    can matter (no ambiguous edge, and the last lower vertex's edges all go to one vertex or each to another),
 *    the pairing is the unique one, the same for every numbering of the same classes and degenerate triangles:
 *    kept while those hold and the new numbering's last run is also order free (found in one pass, no sort).
 *    Otherwise they are kept only for an identical numbering, and rebuilt, without allocating, when it changes.
 *  - the groups (kept sorted, as corners), while the neighbours and the triangles' flags are unchanged.
 * Per frame: triangle tangents (in parallel), the numbering, and the groups' sums (in parallel), all in the
 * scratch; sfi_mikktspace_scratch_stats counts which of these paths the frames took. A frame can also be run in
 * two steps, the graph (sfi_mikktspace_groups) and then the sums (sfi_mikktspace_corners_grouped): the CUDA
 * backend makes the sums on the device where a frame's groups are its copy (their arithmetic is sfk_mikk.h's).
 * Everything here works on plain arrays (sfi_mikk_input); the per-vertex output over the topology's adjacency is
 * in rebuild.c.
 *
 * Handedness: MikkTSpace's own sign is +1 for a positive UV area, i.e. cross(n, t) along +dP/dv (v up).
 * The per-vertex output (rebuild.c) converts it to the mesh's uv convention exactly as the `uv` tangents
 * do (topo->bitangent_sign: glTF's v-down convention negates it, as the npm package's README says for
 * glTF), then flips it where the vertex's blended matrix mirrors. The per-corner tangents kept in the
 * scratch (sfi_mikktspace_scratch_corners) carry MikkTSpace's own sign, for comparison. */
#include "mikk_terms.h"
#include "sf_internal.h"
#include "sf_kernels.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define MK_NONE UINT32_MAX
#define MK_ORIENT SFK_MIKK_ORIENT
#define MK_ANY SFK_MIKK_ANY
#define MK_DEGEN SFK_MIKK_DEGEN

/* The reference's hash grid for shared vertices, and its quicksort seed. */
#define MK_CELLS 2048
#define MK_SORT_SEED 39871946u

typedef struct mk_point {
    float p[3];
    uint32_t corner;
    uint32_t order; /* its place in its range before the equal-data sort */
} mk_point;

typedef struct mk_edge {
    uint32_t key[3]; /* lower shared vertex, higher one, active triangle */
} mk_edge;

/* Per workspace (or per sf_tangents_generate call). */
struct sfi_mikktspace_scratch {
    uint32_t* cid;          /* 3F: shared vertex of each corner, numbered as the reference does */
    uint32_t* cached_cid;   /* 3F: the numbering the neighbours were built for */
    uint8_t* cached_degen;  /* F */
    int cached;             /* neighbours valid for cached_cid / cached_degen */
    uint8_t* flags;         /* F: this frame's MK_ flags */
    uint32_t* neighbors;    /* 3F: triangle across edge (c, c+1), MK_NONE */
    uint32_t* cell_start;   /* MK_CELLS + 1 */
    uint32_t* cell_fill;    /* MK_CELLS */
    uint32_t* cell_corner;  /* 3F: corners by hash cell */
    mk_point* points;       /* 3F: one cell's corners while they are split */
    uint32_t* ranges;       /* 6F + 2: pending (left, right) ranges */
    uint32_t* active;       /* F: the good triangles in order */
    mk_edge* edges;         /* 3F */
    uint32_t* sort_stack;   /* 9F + 3: pending (left, right, seed) */
    float* face_os;         /* 3F unit dP/du (oriented), zero when unusable */
    float* face_ot;         /* 3F unit dP/dv */
    uint32_t* corner_group; /* 3F: group of each corner, MK_NONE */
    uint32_t* group_rep;    /* 3F: shared vertex of each group */
    uint32_t* group_start;  /* 3F + 1: into group_faces */
    uint8_t* group_orient;  /* 3F */
    uint32_t* group_faces;  /* 3F */
    uint32_t* stack;        /* 6F + 2 */
    uint32_t* members;      /* 3F: sub-groups, at each group's group_faces offset */
    float* proj;            /* 18F: projected os, ot of each group's faces, at the same offsets */
    float* terms;           /* 9F: each usable corner's term of its sums (mikk_terms.h) */
    float* corners;         /* 12F: corner tangents xyz, w */
    uint32_t* first_corner; /* 4F: first good corner of each shared vertex */
    float* normals;         /* 3n: scratch normals for callers that want none */
    int has_corners;
    int groups_valid;       /* the groups below belong to the cached neighbours and cached_flags */
    size_t group_count;
    uint8_t* cached_flags;  /* F: the flags the groups were built from */
    uint8_t* group_flags;   /* F: the same after grouping (group-with-any triangles oriented) */
    uint32_t* classes;      /* 3F: each corner's shared vertex as a full numbering found it (its cid) */
    int classes_valid;
    uint32_t classes_epoch; /* counts the times classes was replaced */
    uint32_t nb_epoch;      /* classes_epoch the neighbours were built under */
    uint32_t groups_epoch;  /* counts the times the groups were built */
    int groups_any_degen;   /* a degenerate triangle in group_flags: known once per build, not scanned per frame */
    int nb_canonical;       /* the neighbours are the unique pairing (no ambiguous edge, harmless last run) */
    sfi_mikk_stats stats;
};

/* ---------------------------------------------------------------- topology precomputation */

sf_result sfi_mikktspace_uv_flags_build(const uint32_t* indices, const float* uvs, size_t F, sfi_store* store,
                                        uint8_t** out, sf_error* err)
{
    *out = NULL;
    /* corners are numbered face * 4 + corner, as the reference does */
    SF_CHECK(F < ((size_t)1 << 30), SF_ERROR_UNSUPPORTED, err, "mesh.triangle_count", SFI_NO_INDEX,
             "%zu triangles: MikkTSpace numbering needs fewer than 2^30", F);
    uint8_t* flags = sfi_store_alloc(store, F ? F : 1, 1);
    if (!flags) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "topology.mikktspace", SFI_NO_INDEX, "%zu triangles", F);
    for (size_t f = 0; f < F; ++f) {
        const uint32_t* tri = indices + 3 * f;
        float t21[2], t31[2];
        float area = sfk_mikk_uv_area2(uvs + 2 * tri[0], uvs + 2 * tri[1], uvs + 2 * tri[2], t21, t31);
        flags[f] = (uint8_t)sfk_mikk_uv_flags(area);
    }
    *out = flags;
    return SF_OK;
}

/* ---------------------------------------------------------------- scratch */

struct sfi_mikktspace_scratch* sfi_mikktspace_scratch_take(sfi_blocks* b, size_t n, size_t F)
{
    struct sfi_mikktspace_scratch* taken = sfi_blocks_take(b, 1, sizeof *taken);
    struct sfi_mikktspace_scratch dummy;
    struct sfi_mikktspace_scratch* s = taken ? taken : &dummy; /* measuring (or failed): the takes still count */
#define TAKE(field, count) s->field = sfi_blocks_take(b, (count), sizeof *s->field)
    TAKE(cid, 3 * F);
    TAKE(cached_cid, 3 * F);
    TAKE(cached_degen, F);
    TAKE(flags, F);
    TAKE(neighbors, 3 * F);
    TAKE(cell_start, MK_CELLS + 1);
    TAKE(cell_fill, MK_CELLS);
    TAKE(cell_corner, 3 * F);
    TAKE(points, 3 * F);
    TAKE(ranges, 6 * F + 2);
    TAKE(active, F);
    TAKE(edges, 3 * F);
    TAKE(sort_stack, 9 * F + 3);
    TAKE(face_os, 3 * F);
    TAKE(face_ot, 3 * F);
    TAKE(corner_group, 3 * F);
    TAKE(group_rep, 3 * F);
    TAKE(group_start, 3 * F + 1);
    TAKE(group_orient, 3 * F);
    TAKE(group_faces, 3 * F);
    TAKE(stack, 6 * F + 2);
    TAKE(members, 3 * F);
    s->proj = sfi_blocks_take(b, 18 * F, sizeof(float));
    s->terms = sfi_blocks_take(b, 9 * F, sizeof(float));
    s->corners = sfi_blocks_take(b, 12 * F, sizeof(float));
    TAKE(first_corner, 4 * F);
    s->normals = sfi_blocks_take(b, 3 * n, sizeof(float));
    TAKE(cached_flags, F);
    TAKE(group_flags, F);
    TAKE(classes, 3 * F);
#undef TAKE
    return b->failed ? NULL : taken;
}

float* sfi_mikktspace_scratch_normals(struct sfi_mikktspace_scratch* s) { return s ? s->normals : NULL; }

sfi_mikk_stats sfi_mikktspace_scratch_stats(const struct sfi_mikktspace_scratch* s)
{
    sfi_mikk_stats none = {0, 0, 0, 0, 0, 0};
    return s ? s->stats : none;
}

const float* sfi_mikktspace_scratch_corners(const struct sfi_mikktspace_scratch* s)
{
    return s && s->has_corners ? s->corners : NULL;
}

/* ---------------------------------------------------------------- per frame */

typedef struct mikk_frame {
    const sfi_mikk_input* in;
    const float* P; /* positions, 3n */
    const float* N; /* normals, 3n */
    struct sfi_mikktspace_scratch* s;
} mikk_frame;

static uint32_t corner_rep(const mikk_frame* m, size_t corner) { return m->s->cid[corner]; }

static const float* corner_pos(const mikk_frame* m, size_t corner)
{
    return m->P + 3 * (size_t)m->in->indices[corner];
}

/* Whether a corner's data holds a NaN: such a corner equals no other (== is false), so it keeps its number. */
static int corner_has_nan(const mikk_frame* m, size_t corner)
{
    uint32_t v = m->in->indices[corner];
    const float *p = m->P + 3 * (size_t)v, *n = m->N + 3 * (size_t)v, *uv = m->in->uvs + 2 * (size_t)v;
    for (int k = 0; k < 3; ++k)
        if (p[k] != p[k] || n[k] != n[k]) return 1;
    return uv[0] != uv[0] || uv[1] != uv[1];
}

/* Orders two corners' data (position, normal, UV) as values, so that equal data (as ==, -0 equal to +0) sorts
 * together; NaN-free data only. */
static int compare_corner_data(const mikk_frame* m, size_t a, size_t b)
{
    uint32_t va = m->in->indices[a], vb = m->in->indices[b];
    float ka[8], kb[8];
    memcpy(ka, m->P + 3 * (size_t)va, 3 * sizeof(float));
    memcpy(ka + 3, m->N + 3 * (size_t)va, 3 * sizeof(float));
    memcpy(ka + 6, m->in->uvs + 2 * (size_t)va, 2 * sizeof(float));
    memcpy(kb, m->P + 3 * (size_t)vb, 3 * sizeof(float));
    memcpy(kb + 3, m->N + 3 * (size_t)vb, 3 * sizeof(float));
    memcpy(kb + 6, m->in->uvs + 2 * (size_t)vb, 2 * sizeof(float));
    for (int k = 0; k < 8; ++k)
        if (ka[k] != kb[k]) return ka[k] < kb[k] ? -1 : 1;
    return 0;
}

/* Leaf order: NaN corners last, then equal data together, each class in its range order. */
static int point_before(const mikk_frame* m, const mk_point* a, const mk_point* b)
{
    int na = corner_has_nan(m, a->corner), nb = corner_has_nan(m, b->corner);
    if (na != nb) return nb;
    int c = na ? 0 : compare_corner_data(m, a->corner, b->corner);
    return c ? c < 0 : a->order < b->order;
}

/* Heap sort's sift-down of pts[i] within pts[0..end). */
static void sift_down(const mikk_frame* m, mk_point* pts, size_t i, size_t end)
{
    for (size_t c = 2 * i + 1; c < end; i = c, c = 2 * i + 1) {
        if (c + 1 < end && point_before(m, &pts[c], &pts[c + 1])) ++c;
        if (!point_before(m, &pts[i], &pts[c])) break;
        mk_point t = pts[i];
        pts[i] = pts[c];
        pts[c] = t;
    }
}

/* Heap sort of pts[0..count) by point_before: n log n for any data, no allocation. */
static void sort_points(const mikk_frame* m, mk_point* pts, size_t count)
{
    for (size_t k = count / 2; k-- > 0;) sift_down(m, pts, k, count);
    for (size_t end = count; end-- > 1;) {
        mk_point t = pts[0];
        pts[0] = pts[end];
        pts[end] = t;
        sift_down(m, pts, 0, end);
    }
}

/* A range that cannot be split further: each corner takes the number of the first corner of the range (in
 * range order) with equal data, as the reference's pairwise scan does, through a sort (linear-logarithmic on
 * any number of coincident corners). */
static void number_equal_corners(const mikk_frame* m, mk_point* pts, size_t count)
{
    for (size_t i = 0; i < count; ++i) pts[i].order = (uint32_t)i;
    sort_points(m, pts, count);
    /* each class is sorted in range order, so the previous member already holds the class's first number */
    for (size_t i = 1; i < count && !corner_has_nan(m, pts[i].corner); ++i)
        if (compare_corner_data(m, pts[i - 1].corner, pts[i].corner) == 0)
            m->s->cid[pts[i].corner] = m->s->cid[pts[i - 1].corner];
}

/* The corner a shared vertex is numbered by (face * 4 + corner). */
static size_t code_corner(uint32_t code) { return (size_t)(code >> 2) * 3 + (code & 3u); }

/* number_equal_corners where each corner's class is known (s->classes, bit-identical members): each corner takes
 * the number of its class's first corner in range order, which is what the sort finds. Fails (0) when two
 * classes of the range have equal data (the full numbering would join them) or the range holds too many classes
 * to compare pairwise. s->first_corner holds each class's number, MK_NONE until met. */
#define MK_LEAF_CLASSES 16
static int number_known_classes(const mikk_frame* m, const mk_point* pts, size_t count)
{
    struct sfi_mikktspace_scratch* s = m->s;
    uint32_t seen[MK_LEAF_CLASSES];
    size_t distinct = 0;
    for (size_t i = 0; i < count; ++i) {
        uint32_t c = pts[i].corner, label = s->classes[c];
        if (s->first_corner[label] == MK_NONE) {
            if (distinct == MK_LEAF_CLASSES) return 0;
            seen[distinct++] = label;
            s->first_corner[label] = s->cid[c]; /* still its own number */
        }
        s->cid[c] = s->first_corner[label];
    }
    for (size_t a = 0; a < distinct; ++a)
        for (size_t b = a + 1; b < distinct; ++b)
            if (compare_corner_data(m, code_corner(seen[a]), code_corner(seen[b])) == 0) return 0;
    return 1;
}

/* The reference's hash cell of a coordinate (its float arithmetic; NaN and overflow clamp). */
static size_t grid_cell(float lo, float hi, float value)
{
    float q = (float)MK_CELLS * ((value - lo) / (hi - lo));
    if (!(q >= 0.0f)) return 0;
    if (q > (float)(MK_CELLS - 1)) return MK_CELLS - 1;
    return (size_t)q;
}

/* Bounding box as the reference scans it: a value raises the maximum only when it does not lower the
 * minimum. */
static void box_add(const float p[3], float lo[3], float hi[3])
{
    for (int k = 0; k < 3; ++k) {
        if (lo[k] > p[k])
            lo[k] = p[k];
        else if (hi[k] < p[k])
            hi[k] = p[k];
    }
}

/* The axis of largest extent (y, then z, then x on ties), as the reference picks it. */
static int box_axis(const float lo[3], const float hi[3])
{
    float dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
    return dy > dx && dy > dz ? 1 : (dz > dx ? 2 : 0);
}

/* Splits one hash cell's points[l..r] as the reference does until each range holds one position along
 * its widest axis, then numbers each corner by the first earlier corner of its range with equal data (known:
 * through the known classes; 0 when they do not hold). */
static int split_cell(const mikk_frame* m, mk_point* pts, size_t count, int known)
{
    struct sfi_mikktspace_scratch* s = m->s;
    uint32_t* ranges = s->ranges;
    size_t top = 0;
    ranges[top++] = 0;
    ranges[top++] = (uint32_t)(count - 1);
    while (top > 0) {
        int64_t r = ranges[--top], l = ranges[--top];
        float lo[3], hi[3];
        memcpy(lo, pts[l].p, sizeof lo);
        memcpy(hi, pts[l].p, sizeof hi);
        for (int64_t i = l + 1; i <= r; ++i) box_add(pts[i].p, lo, hi);
        int ch = box_axis(lo, hi);
        float step = 0.5f * (hi[ch] + lo[ch]);
        if (step >= hi[ch] || step <= lo[ch]) {
            if (!known)
                number_equal_corners(m, pts + l, (size_t)(r - l + 1));
            else if (!number_known_classes(m, pts + l, (size_t)(r - l + 1)))
                return 0;
            continue;
        }
        int64_t il = l, ir = r;
        while (il < ir) {
            int left_ready = 0, right_ready = 0;
            while (!left_ready && il < ir) {
                left_ready = pts[il].p[ch] >= step;
                if (!left_ready) ++il;
            }
            while (!right_ready && il < ir) {
                right_ready = pts[ir].p[ch] < step;
                if (!right_ready) --ir;
            }
            if (left_ready && right_ready) {
                mk_point t = pts[il];
                pts[il] = pts[ir];
                pts[ir] = t;
                ++il;
                --ir;
            }
        }
        if (il == ir) {
            if (pts[ir].p[ch] < step)
                ++il;
            else
                --ir;
        }
        if (l < ir) {
            ranges[top++] = (uint32_t)l;
            ranges[top++] = (uint32_t)ir;
        }
        if (il < r) {
            ranges[top++] = (uint32_t)il;
            ranges[top++] = (uint32_t)r;
        }
    }
    return 1;
}

/* Whether the known classes (s->classes) hold their members' data bit for bit in this frame, free of NaN:
 * then equal data never splits a class, and a class's normal is the same whichever member numbers it. */
static int classes_hold(const mikk_frame* m)
{
    const uint32_t* idx = m->in->indices;
    const float* uv = m->in->uvs;
    struct sfi_mikktspace_scratch* s = m->s;
    size_t C = 3 * m->in->triangle_count;
    for (size_t c = 0; c < C; ++c) {
        size_t r = code_corner(s->classes[c]);
        if (r == c) {
            if (corner_has_nan(m, c)) return 0;
            continue;
        }
        size_t a = idx[c], b = idx[r];
        if (a != b && (memcmp(m->P + 3 * a, m->P + 3 * b, 3 * sizeof(float)) != 0 ||
                       memcmp(m->N + 3 * a, m->N + 3 * b, 3 * sizeof(float)) != 0 ||
                       memcmp(uv + 2 * a, uv + 2 * b, 2 * sizeof(float)) != 0))
            return 0;
    }
    return 1;
}

/* Step 1: shared vertices, numbered face * 4 + corner of their first corner in the reference's hash
 * order: corners are binned along the widest axis of the bounding box, each bin split recursively.
 * known: the classes (which corners are one vertex) are taken from s->classes, checked against this frame
 * (members bit-identical, no two classes of one leaf range equal): the numbering is then the full one's
 * without its sorts; returns 0 where the check fails (cid then incomplete). */
static int shared_vertices(const mikk_frame* m, int known)
{
    struct sfi_mikktspace_scratch* s = m->s;
    size_t C = 3 * m->in->triangle_count;
    if (known && !classes_hold(m)) return 0;
    for (size_t c = 0; c < C; ++c) s->cid[c] = (uint32_t)((c / 3) * 4 + c % 3);
    if (C == 0) return 1;
    if (known) memset(s->first_corner, 0xff, 4 * (C / 3) * sizeof(uint32_t));
    float lo[3], hi[3];
    memcpy(lo, corner_pos(m, 0), sizeof lo);
    memcpy(hi, corner_pos(m, 0), sizeof hi);
    for (size_t c = 1; c < C; ++c) box_add(corner_pos(m, c), lo, hi);
    int ch = box_axis(lo, hi);
    memset(s->cell_start, 0, (MK_CELLS + 1) * sizeof(uint32_t));
    /* each corner's cell, kept for the scatter in s->stack (free until the groups are built) */
    uint32_t* cell_of = s->stack;
    for (size_t c = 0; c < C; ++c) {
        cell_of[c] = (uint32_t)grid_cell(lo[ch], hi[ch], corner_pos(m, c)[ch]);
        s->cell_start[cell_of[c] + 1]++;
    }
    for (size_t k = 0; k < MK_CELLS; ++k) {
        s->cell_start[k + 1] += s->cell_start[k];
        s->cell_fill[k] = s->cell_start[k];
    }
    for (size_t c = 0; c < C; ++c) s->cell_corner[s->cell_fill[cell_of[c]]++] = (uint32_t)c;
    for (size_t k = 0; k < MK_CELLS; ++k) {
        size_t begin = s->cell_start[k], count = s->cell_start[k + 1] - begin;
        if (count < 2) continue;
        for (size_t e = 0; e < count; ++e) {
            uint32_t c = s->cell_corner[begin + e];
            memcpy(s->points[e].p, corner_pos(m, c), sizeof s->points[e].p);
            s->points[e].corner = c;
        }
        if (!split_cell(m, s->points, count, known)) return 0;
    }
    return 1;
}

/* Step 2 and 3: degenerate triangles, then each good triangle's tangents and flags (triangles
 * [begin, end); each writes only its own entries). */
static void triangle_range(void* ctx, size_t begin, size_t end)
{
    const mikk_frame* m = (const mikk_frame*)ctx;
    const sfi_mikk_input* in = m->in;
    struct sfi_mikktspace_scratch* s = m->s;
    for (size_t f = begin; f < end; ++f) {
        const uint32_t* tri = in->indices + 3 * f;
        s->flags[f] = (uint8_t)sfk_mikk_triangle(m->P + 3 * tri[0], m->P + 3 * tri[1], m->P + 3 * tri[2],
                                                 in->uvs + 2 * tri[0], in->uvs + 2 * tri[1], in->uvs + 2 * tri[2],
                                                 in->uv_flags[f], s->face_os + 3 * f, s->face_ot + 3 * f);
        /* MikkTSpace's default for corners no group reaches: tangent (1, 0, 0), w = -1 */
        float* t = s->corners + 12 * f;
        for (int c = 0; c < 3; ++c, t += 4) t[0] = 1.0f, t[1] = t[2] = 0.0f, t[3] = -1.0f;
    }
}

/* The reference's seeded quicksort of edges[left..right] on one key (its pivot choice and partition, so
 * equal keys end in the same order); an explicit stack in place of recursion (sub-ranges are disjoint
 * and each gets its parent's seed, so the processing order does not matter). */
static void sort_edges(mk_edge* e, size_t left, size_t right, int key, uint32_t seed, uint32_t* stack)
{
    size_t top = 0;
    stack[top++] = (uint32_t)left;
    stack[top++] = (uint32_t)right;
    stack[top++] = seed;
    while (top > 0) {
        uint32_t sd = stack[--top];
        int64_t r = stack[--top], l = stack[--top];
        int64_t count = r - l + 1;
        if (count < 2) continue;
        if (count == 2) {
            if (e[l].key[key] > e[r].key[key]) {
                mk_edge t = e[l];
                e[l] = e[r];
                e[r] = t;
            }
            continue;
        }
        uint32_t t = sd & 31u;
        t = t ? (sd << t) | (sd >> (32u - t)) : sd;
        sd = sd + t + 3u;
        int64_t L = l, R = r;
        uint32_t mid = e[l + (int64_t)(sd % (uint32_t)count)].key[key];
        do {
            while (e[L].key[key] < mid) ++L;
            while (e[R].key[key] > mid) --R;
            if (L <= R) {
                mk_edge x = e[L];
                e[L] = e[R];
                e[R] = x;
                ++L;
                --R;
            }
        } while (L <= R);
        if (l < R) {
            stack[top++] = (uint32_t)l;
            stack[top++] = (uint32_t)R;
            stack[top++] = sd;
        }
        if (L < r) {
            stack[top++] = (uint32_t)L;
            stack[top++] = (uint32_t)r;
            stack[top++] = sd;
        }
    }
}

/* The edge of triangle f joining shared vertices a and b: its number and its ends in winding order. */
static int edge_of(const mikk_frame* m, size_t f, uint32_t a, uint32_t b, uint32_t* first, uint32_t* second)
{
    uint32_t r0 = corner_rep(m, 3 * f), r1 = corner_rep(m, 3 * f + 1), r2 = corner_rep(m, 3 * f + 2);
    if (r0 == a || r0 == b) {
        if (r1 == a || r1 == b) {
            *first = r0, *second = r1;
            return 0;
        }
        *first = r2, *second = r0;
        return 2;
    }
    *first = r1, *second = r2;
    return 1;
}

/* One edge of a run: its triangle, its slot in neighbors, and whether it runs from the lower shared vertex to
 * the higher one in its triangle's winding. */
typedef struct mk_side {
    size_t slot;
    int forward;
} mk_side;

static mk_side side_of(const mikk_frame* m, const mk_edge* ed)
{
    size_t f = m->s->active[ed->key[2]];
    uint32_t first, second;
    int k = edge_of(m, f, ed->key[0], ed->key[1], &first, &second);
    mk_side sd = {3 * f + (size_t)k, first == ed->key[0]};
    (void)second;
    return sd;
}

/* Pairs the edges e[begin..end) that join the same two shared vertices as the reference does: in order, each
 * unpaired edge takes the first later unpaired edge that runs the other way. One cursor per direction, each
 * moving only forward, keeps this linear however many triangles share the edge. */
static void pair_edge_run(const mikk_frame* m, const mk_edge* e, size_t begin, size_t end)
{
    uint32_t* nb = m->s->neighbors;
    size_t cursor[2] = {begin, begin}; /* by direction: next candidate running that way */
    for (size_t i = begin; i < end; ++i) {
        mk_side a = side_of(m, &e[i]);
        if (nb[a.slot] != MK_NONE) continue;
        int want = !a.forward;
        size_t* c = &cursor[want];
        mk_side b = {0, 0};
        for (; *c < end; ++*c) {
            if (*c <= i) continue;
            b = side_of(m, &e[*c]);
            if (b.forward == want && nb[b.slot] == MK_NONE) break;
        }
        if (*c == end) continue;
        nb[a.slot] = (uint32_t)(b.slot / 3);
        nb[b.slot] = (uint32_t)(a.slot / 3);
        ++*c;
    }
}

/* Whether the pairing of one lower vertex's edges (e: higher vertex, then 1 where the edge runs from the lower
 * vertex to the higher one) is the same in any order: the edges to one vertex all (one run) or each to another
 * vertex (no pair). Sets *ambiguous where two edges to one vertex run the same way or more than two meet. Sorts e
 * by higher vertex. */
static int run_order_free(mk_edge* e, size_t count, uint32_t* stack, int* ambiguous)
{
    if (count == 0) return 1;
    sort_edges(e, 0, count - 1, 0, MK_SORT_SEED, stack);
    size_t distinct = 0, pairs = 0;
    for (size_t begin = 0, end; begin < count; begin = end) {
        for (end = begin + 1; end < count && e[end].key[0] == e[begin].key[0];) ++end;
        ++distinct;
        if (end - begin > 1) ++pairs;
        if (end - begin > 2 || (end - begin == 2 && e[begin].key[1] == e[begin + 1].key[1])) *ambiguous = 1;
    }
    return distinct == 1 || pairs == 0;
}

/* The reference leaves the edges of the last lower vertex (the largest lower number, K) in the quicksort's
 * order, unsorted by the higher one: two edges to one vertex can be split by an edge to another, and then do
 * not pair. Whether that cannot happen in this numbering, found without sorting: K by one pass over the good
 * triangles' edges, its edges into s->edges. Sets *ambiguous where an edge at K is. */
static int last_run_order_free(const mikk_frame* m, int* ambiguous)
{
    struct sfi_mikktspace_scratch* s = m->s;
    size_t F = m->in->triangle_count, r = 0;
    uint32_t K = 0;
    int any = 0;
    for (size_t f = 0; f < F; ++f) {
        if (s->flags[f] & MK_DEGEN) continue;
        for (int c = 0; c < 3; ++c) {
            uint32_t x = s->cid[3 * f + (size_t)c], y = s->cid[3 * f + (size_t)((c + 1) % 3)], lo = x < y ? x : y;
            if (!any || lo > K) K = lo, any = 1;
        }
    }
    if (!any) return 1;
    for (size_t f = 0; f < F; ++f) {
        if (s->flags[f] & MK_DEGEN) continue;
        for (int c = 0; c < 3; ++c) {
            uint32_t x = s->cid[3 * f + (size_t)c], y = s->cid[3 * f + (size_t)((c + 1) % 3)];
            if ((x < y ? x : y) != K) continue;
            s->edges[r].key[0] = x < y ? y : x;
            s->edges[r].key[1] = x < y;
            s->edges[r].key[2] = 0;
            ++r;
        }
    }
    return run_order_free(s->edges, r, s->sort_stack, ambiguous);
}

/* Step 4: neighbours across edges, for the good triangles, in the reference's edge order. Also finds whether
 * they are the unique pairing (s->nb_canonical): each edge between two shared vertices met at most once each
 * way, and the last lower vertex's order free (last_run_order_free). Then every numbering of the same classes
 * and degenerate triangles whose last run is order free gives the same neighbours. */
static void build_neighbors(const mikk_frame* m)
{
    const sfi_mikk_input* in = m->in;
    struct sfi_mikktspace_scratch* s = m->s;
    size_t F = in->triangle_count, A = 0;
    mk_edge* e = s->edges;
    for (size_t i = 0; i < 3 * F; ++i) s->neighbors[i] = MK_NONE;
    for (size_t f = 0; f < F; ++f)
        if (!(s->flags[f] & MK_DEGEN)) s->active[A++] = (uint32_t)f;
    s->nb_canonical = 1;
    if (A == 0) return;
    for (size_t a = 0; a < A; ++a) {
        size_t f = s->active[a];
        for (int c = 0; c < 3; ++c) {
            uint32_t x = corner_rep(m, 3 * f + (size_t)c), y = corner_rep(m, 3 * f + (size_t)((c + 1) % 3));
            mk_edge* ed = e + 3 * a + (size_t)c;
            ed->key[0] = x < y ? x : y;
            ed->key[1] = x < y ? y : x;
            ed->key[2] = (uint32_t)a;
        }
    }
    size_t E = 3 * A;
    sort_edges(e, 0, E - 1, 0, MK_SORT_SEED, s->sort_stack);
    /* runs of one lower vertex by the higher one, then runs of one edge by triangle; as in the
     * reference, the last run of each pass stays as it is */
    size_t start = 0;
    for (size_t i = 1; i < E; ++i)
        if (e[start].key[0] != e[i].key[0]) {
            sort_edges(e, start, i - 1, 1, MK_SORT_SEED, s->sort_stack);
            start = i;
        }
    start = 0;
    for (size_t i = 1; i < E; ++i)
        if (e[start].key[0] != e[i].key[0] || e[start].key[1] != e[i].key[1]) {
            sort_edges(e, start, i - 1, 2, MK_SORT_SEED, s->sort_stack);
            start = i;
        }
    for (size_t begin = 0, end; begin < E; begin = end) {
        for (end = begin + 1; end < E && e[end].key[0] == e[begin].key[0] && e[end].key[1] == e[begin].key[1];)
            ++end;
        pair_edge_run(m, e, begin, end);
    }
    /* the runs before the last lower vertex's are sorted, so each holds every edge between its two vertices */
    int ambiguous = 0;
    uint32_t K = e[E - 1].key[0];
    for (size_t begin = 0, end; begin < E && e[begin].key[0] != K; begin = end) {
        for (end = begin + 1; end < E && e[end].key[0] == e[begin].key[0] && e[end].key[1] == e[begin].key[1];)
            ++end;
        if (end - begin > 2 || (end - begin == 2 && side_of(m, &e[begin]).forward == side_of(m, &e[begin + 1]).forward))
            ambiguous = 1;
    }
    int order_free = last_run_order_free(m, &ambiguous);
    s->nb_canonical = order_free && !ambiguous;
}

/* Rebuilds the neighbours only when they could differ: the degenerate triangles changed, or the numbering
 * did and either the classes did (known: this frame's classes are those the neighbours were built under), the
 * neighbours were not the unique pairing, or this numbering's last run is not order free. Returns whether it
 * rebuilt them. */
static int update_neighbors(const mikk_frame* m, int known)
{
    const sfi_mikk_input* in = m->in;
    struct sfi_mikktspace_scratch* s = m->s;
    size_t F = in->triangle_count;
    int same_degen = s->cached;
    for (size_t f = 0; same_degen && f < F; ++f) same_degen = (s->flags[f] & MK_DEGEN) == s->cached_degen[f];
    if (same_degen && memcmp(s->cid, s->cached_cid, 3 * F * sizeof(uint32_t)) == 0) {
        s->stats.neighbors_kept_numbering++;
        return 0;
    }
    if (same_degen && known && s->nb_canonical && s->nb_epoch == s->classes_epoch) {
        int ambiguous = 0;
        if (last_run_order_free(m, &ambiguous) && !ambiguous) {
            memcpy(s->cached_cid, s->cid, 3 * F * sizeof(uint32_t));
            s->stats.neighbors_kept_classes++;
            return 0;
        }
        s->stats.neighbors_built_last_run++;
    }
    s->stats.neighbors_built++;
    build_neighbors(m);
    s->nb_epoch = s->classes_epoch;
    memcpy(s->cached_cid, s->cid, 3 * F * sizeof(uint32_t));
    for (size_t f = 0; f < F; ++f) s->cached_degen[f] = (uint8_t)(s->flags[f] & MK_DEGEN);
    s->cached = 1;
    return 1;
}

/* The corner of triangle f at shared vertex rep, or -1. */
static int corner_at(const mikk_frame* m, size_t f, uint32_t rep)
{
    for (int c = 0; c < 3; ++c)
        if (corner_rep(m, 3 * f + (size_t)c) == rep) return c;
    return -1;
}

/* Step 5: adds triangle f to group g unless it is taken or has the other orientation, then follows its
 * two edges at the group's vertex, left (c, c+1) before right (c-1, c), depth first. */
static void grow_group(const mikk_frame* m, uint32_t g, uint32_t first, uint32_t* end)
{
    struct sfi_mikktspace_scratch* s = m->s;
    uint32_t rep = s->group_rep[g];
    size_t top = 0;
    s->stack[top++] = first;
    while (top > 0) {
        uint32_t f = s->stack[--top];
        int c = corner_at(m, f, rep);
        if (c < 0) continue;
        uint32_t* slot = s->corner_group + 3 * (size_t)f + (size_t)c;
        if (*slot != MK_NONE) continue;
        uint8_t* flags = s->flags + f;
        if ((*flags & MK_ANY) && s->corner_group[3 * (size_t)f] == MK_NONE &&
            s->corner_group[3 * (size_t)f + 1] == MK_NONE && s->corner_group[3 * (size_t)f + 2] == MK_NONE)
            *flags = (uint8_t)((*flags & ~MK_ORIENT) | (s->group_orient[g] ? MK_ORIENT : 0u));
        if (((*flags & MK_ORIENT) != 0) != (s->group_orient[g] != 0)) continue;
        *slot = g;
        s->group_faces[(*end)++] = f;
        uint32_t left = s->neighbors[3 * (size_t)f + (size_t)c], right = s->neighbors[3 * (size_t)f + (size_t)((c + 2) % 3)];
        if (right != MK_NONE) s->stack[top++] = right;
        if (left != MK_NONE) s->stack[top++] = left;
    }
}

/* Ascending; groups are small (the triangles around one vertex), so insertion sort. */
static void sort_faces(uint32_t* a, size_t n)
{
    for (size_t i = 1; i < n; ++i) {
        uint32_t x = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1] > x) {
            a[j] = a[j - 1];
            --j;
        }
        a[j] = x;
    }
}

/* Each group's triangles, found depth first, then kept ascending (the order MikkTSpace sums a sub-group
 * in) as the corner at the group's vertex (3 f + c), so that a frame that reuses them sorts and searches
 * nothing. */
static size_t build_groups(const mikk_frame* m)
{
    const sfi_mikk_input* in = m->in;
    struct sfi_mikktspace_scratch* s = m->s;
    size_t F = in->triangle_count, groups = 0;
    uint32_t end = 0;
    for (size_t i = 0; i < 3 * F; ++i) s->corner_group[i] = MK_NONE;
    for (size_t f = 0; f < F; ++f) {
        if (s->flags[f] & (MK_DEGEN | MK_ANY)) continue;
        for (int c = 0; c < 3; ++c) {
            if (s->corner_group[3 * f + (size_t)c] != MK_NONE) continue;
            uint32_t g = (uint32_t)groups++;
            s->group_rep[g] = corner_rep(m, 3 * f + (size_t)c);
            s->group_orient[g] = (uint8_t)((s->flags[f] & MK_ORIENT) != 0);
            s->group_start[g] = end;
            /* the seed triangle joins unconditionally, then its two edges at the corner */
            s->corner_group[3 * f + (size_t)c] = g;
            s->group_faces[end++] = (uint32_t)f;
            uint32_t left = s->neighbors[3 * f + (size_t)c], right = s->neighbors[3 * f + (size_t)((c + 2) % 3)];
            if (left != MK_NONE) grow_group(m, g, left, &end);
            if (right != MK_NONE) grow_group(m, g, right, &end);
        }
    }
    s->group_start[groups] = end;
    for (size_t g = 0; g < groups; ++g) {
        uint32_t* faces = s->group_faces + s->group_start[g];
        size_t k = s->group_start[g + 1] - s->group_start[g];
        sort_faces(faces, k);
        for (size_t i = 0; i < k; ++i) faces[i] = 3 * faces[i] + (uint32_t)corner_at(m, faces[i], s->group_rep[g]);
    }
    return groups;
}

/* Tangents of every corner of one group (step 6, sfk_mikk_group_tangents summing the frame's corner terms). Groups
 * write disjoint corners and scratch (at their own offsets), so they run in parallel. */
static void group_tangents(const mikk_frame* m, uint32_t g)
{
    struct sfi_mikktspace_scratch* s = m->s;
    uint32_t rep = s->group_rep[g];
    /* the shared vertex's normal: that of the corner it is numbered by (face * 4 + corner) */
    const float* n = m->N + 3 * (size_t)m->in->indices[(size_t)(rep >> 2) * 3 + (rep & 3u)];
    sfk_mikk_group_tangents(s->flags, m->in->indices, m->P, m->N, s->face_os, s->face_ot,
                            s->group_faces + s->group_start[g], s->group_start[g + 1] - s->group_start[g], n,
                            s->group_orient[g], s->members + s->group_start[g],
                            s->proj + 6 * (size_t)s->group_start[g], s->terms, s->corners);
}

static void group_range(void* ctx, size_t begin, size_t end)
{
    for (size_t g = begin; g < end; ++g) group_tangents((const mikk_frame*)ctx, (uint32_t)g);
}

/* Every usable corner's term (mikk_terms.h) with this CPU's instruction set (corners [begin, end)). */
static void term_range(void* ctx, size_t begin, size_t end)
{
    const mikk_frame* m = (const mikk_frame*)ctx;
    sfi_mikk_terms_job job = {m->s->flags, m->in->indices, m->P, m->N, m->s->face_os, m->s->terms};
    sfi_mikk_terms(sfi_simd_level_cpu(), &job, begin, end);
}

/* The graph of a frame: triangle tangents and flags, the numbering (through the known classes where they hold,
 * shared_vertices), the neighbours and groups rebuilt only when what they depend on changed (update_neighbors,
 * and the flags): see the header comment. */
static void frame_groups(const mikk_frame* m, const sf_env* env)
{
    struct sfi_mikktspace_scratch* s = m->s;
    size_t F = m->in->triangle_count;
    sf_env_parallel_for(env, F, 2048, triangle_range, (void*)m);
    s->stats.frames++;
    int known = s->classes_valid && shared_vertices(m, 1);
    if (known) {
        s->stats.numbered_known++;
    } else {
        shared_vertices(m, 0);
        memcpy(s->classes, s->cid, 3 * F * sizeof(uint32_t));
        s->classes_valid = 1;
        s->classes_epoch++;
    }
    if (update_neighbors(m, known)) s->groups_valid = 0;
    if (s->groups_valid && memcmp(s->flags, s->cached_flags, F) == 0) {
        memcpy(s->flags, s->group_flags, F);
    } else {
        memcpy(s->cached_flags, s->flags, F);
        s->group_count = build_groups(m);
        memcpy(s->group_flags, s->flags, F);
        s->groups_any_degen = 0;
        for (size_t f = 0; f < F && !s->groups_any_degen; ++f) s->groups_any_degen = (s->flags[f] & MK_DEGEN) != 0;
        s->groups_valid = 1;
        s->groups_epoch++;
    }
}

void sfi_mikktspace_groups(const sfi_mikk_input* in, const sf_env* env, struct sfi_mikktspace_scratch* s,
                           sfi_mikk_groups* out)
{
    mikk_frame m = {in, in->positions, in->normals, s};
    frame_groups(&m, env);
    s->has_corners = 0;
    out->group_count = s->group_count;
    out->start = s->group_start;
    out->corners = s->group_faces;
    out->orient = s->group_orient;
    out->flags = s->flags;
    out->epoch = s->groups_epoch;
    out->any_degen = s->groups_any_degen;
}

/* The groups' sums, then the degenerate triangles' copies: the corner tangents of the frame frame_groups
 * prepared. */
static const float* frame_corners(const mikk_frame* m, const sf_env* env)
{
    struct sfi_mikktspace_scratch* s = m->s;
    size_t F = m->in->triangle_count;
    sf_env_parallel_for(env, 3 * F, 6144, term_range, (void*)m);
    sf_env_parallel_for(env, s->group_count, 512, group_range, (void*)m);
    /* Degenerate triangles: each corner copies the first good corner of its shared vertex. */
    if (s->groups_any_degen) {
        for (size_t i = 0; i < 4 * F; ++i) s->first_corner[i] = MK_NONE;
        for (size_t c = 0; c < 3 * F; ++c) {
            uint32_t r = corner_rep(m, c);
            if (!(s->flags[c / 3] & MK_DEGEN) && s->first_corner[r] == MK_NONE) s->first_corner[r] = (uint32_t)c;
        }
        for (size_t c = 0; c < 3 * F; ++c) {
            uint32_t src = s->first_corner[corner_rep(m, c)];
            if ((s->flags[c / 3] & MK_DEGEN) && src != MK_NONE) memcpy(s->corners + 4 * c, s->corners + 4 * (size_t)src, 16);
        }
    }
    s->has_corners = 1;
    return s->corners;
}

const float* sfi_mikktspace_corners_grouped(const sfi_mikk_input* in, const sf_env* env,
                                            struct sfi_mikktspace_scratch* s)
{
    mikk_frame m = {in, in->positions, in->normals, s};
    return frame_corners(&m, env);
}

const float* sfi_mikktspace_corners(const sfi_mikk_input* in, const sf_env* env, struct sfi_mikktspace_scratch* s)
{
    mikk_frame m = {in, in->positions, in->normals, s};
    frame_groups(&m, env);
    return frame_corners(&m, env);
}

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
 * What can be precomputed is: the candidate shared vertices (same rest position and UV), the UV flags,
 * and the neighbour structure, which only changes when the shared vertices or the degenerate triangles
 * change (cached in the workspace, rebuilt without allocating when they do). Per frame: triangle
 * tangents, groups and sub-groups, all in workspace scratch.
 *
 * Handedness: w follows the UVs as the topology stores them (the same convention as the `uv` tangents:
 * w = +1 where cross(n, t) runs along +v), flipped where the vertex's blended matrix mirrors. */
#include "sf_internal.h"
#include "sf_kernels.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define MK_NONE UINT32_MAX
#define MK_ORIENT 1u /* signed UV area > 0 */
#define MK_ANY 2u    /* group with any: no usable UV tangent */
#define MK_DEGEN 4u  /* two corners at one position */

/* Per topology. */
struct sfi_mikktspace {
    uint32_t* class_next; /* n: next vertex (ascending) with the same rest position and UV, MK_NONE */
    uint8_t* uv_flags;    /* F: MK_ORIENT, MK_ANY for a zero UV area (static parts of the flags) */
    size_t bytes;
};

/* Per workspace. */
struct sfi_mikktspace_scratch {
    uint32_t* vrep;         /* n: shared vertex (smallest member) this frame */
    uint32_t* cached_vrep;  /* n: the shared vertices the neighbours were built for */
    uint8_t* cached_degen;  /* F */
    int cached;             /* neighbours valid for cached_vrep / cached_degen */
    uint8_t* flags;         /* F: this frame's MK_ flags */
    uint32_t* neighbors;    /* 3F: triangle across edge (c, c+1), MK_NONE */
    uint32_t* edge_keys;    /* 9F: (low, high, face) of each edge, rebuild only */
    uint32_t* edge_order;   /* 6F: sort order and merge scratch */
    float* face_os;         /* 3F unit dP/du (oriented), zero when unusable */
    float* face_ot;         /* 3F unit dP/dv */
    uint32_t* corner_group; /* 3F: group of each corner, MK_NONE */
    uint32_t* group_rep;    /* 3F: shared vertex of each group */
    uint32_t* group_start;  /* 3F + 1: into group_faces */
    uint8_t* group_orient;  /* 3F */
    uint32_t* group_faces;  /* 3F */
    uint32_t* stack;        /* 6F + 2 */
    uint32_t* members;      /* F: a sub-group */
    float* proj;            /* 6F: projected os, ot of the group's faces */
    float* corners;         /* 12F: corner tangents xyz, w */
    uint32_t* first_corner; /* n: first good corner of each shared vertex */
    float* normals;         /* 3n: scratch normals for callers that want none */
    int has_corners;
    size_t bytes;
};

/* MikkTSpace's "not zero": larger in magnitude than the smallest normal float. */
static int not_zero(float x) { return fabsf(x) > FLT_MIN; }

/* Normalises v unless every component is (MikkTSpace's) zero, in which case v is kept. */
static void safe_normalize(float v[3])
{
    if (!(not_zero(v[0]) || not_zero(v[1]) || not_zero(v[2]))) return;
    float inv = 1.0f / sqrtf(sfk_dot(v, v));
    v[0] *= inv;
    v[1] *= inv;
    v[2] *= inv;
}

/* v - n (n . v), normalised as above. */
static void project(const float n[3], const float v[3], float out[3])
{
    float d = sfk_dot(n, v);
    out[0] = v[0] - n[0] * d;
    out[1] = v[1] - n[1] * d;
    out[2] = v[2] - n[2] * d;
    safe_normalize(out);
}

static int same3(const float* a, const float* b) { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2]; }

/* ---------------------------------------------------------------- topology precomputation */

static int rest_less(const void* ctx, uint32_t a, uint32_t b)
{
    const sf_topology* topo = (const sf_topology*)ctx;
    const float *pa = topo->rest_positions + 3 * (size_t)a, *pb = topo->rest_positions + 3 * (size_t)b;
    for (int k = 0; k < 3; ++k) {
        if (pa[k] < pb[k]) return 1;
        if (pb[k] < pa[k]) return 0;
    }
    const float *ua = topo->uvs + 2 * (size_t)a, *ub = topo->uvs + 2 * (size_t)b;
    for (int k = 0; k < 2; ++k) {
        if (ua[k] < ub[k]) return 1;
        if (ub[k] < ua[k]) return 0;
    }
    return 0;
}

static int rest_equal(const sf_topology* topo, uint32_t a, uint32_t b)
{
    return same3(topo->rest_positions + 3 * (size_t)a, topo->rest_positions + 3 * (size_t)b) &&
           topo->uvs[2 * (size_t)a] == topo->uvs[2 * (size_t)b] &&
           topo->uvs[2 * (size_t)a + 1] == topo->uvs[2 * (size_t)b + 1];
}

/* Twice the signed UV area of triangle f (MikkTSpace's orientation test). */
static float uv_area2(const sf_topology* topo, size_t f, float t21[2], float t31[2])
{
    const uint32_t* tri = topo->indices + 3 * f;
    const float *t1 = topo->uvs + 2 * tri[0], *t2 = topo->uvs + 2 * tri[1], *t3 = topo->uvs + 2 * tri[2];
    t21[0] = t2[0] - t1[0];
    t21[1] = t2[1] - t1[1];
    t31[0] = t3[0] - t1[0];
    t31[1] = t3[1] - t1[1];
    return t21[0] * t31[1] - t21[1] * t31[0];
}

sf_result sfi_mikktspace_build(sf_topology* topo, sf_error* err)
{
    if (!topo->uvs) return SF_OK;
    size_t n = topo->vertex_count, F = topo->triangle_count;
    struct sfi_mikktspace* mk = sfi_calloc(&topo->env, 1, sizeof *mk);
    if (!mk) return sfi_fail(err, SF_ERROR_OUT_OF_MEMORY, "topology.mikktspace", SFI_NO_INDEX, "object");
    topo->mikktspace = mk;
    mk->class_next = sfi_topo_alloc(topo, n ? n : 1, sizeof(uint32_t));
    mk->uv_flags = sfi_topo_alloc(topo, F ? F : 1, 1);
    uint32_t* order = sfi_calloc(&topo->env, 2 * (n ? n : 1), sizeof(uint32_t));
    if (!mk->class_next || !mk->uv_flags || !order) {
        sfi_free(&topo->env, order, 0);
        return sfi_fail(err, SF_ERROR_OUT_OF_MEMORY, "topology.mikktspace", SFI_NO_INDEX, "%zu vertices", n);
    }
    /* Candidate shared vertices: equal rest position and UV, linked in ascending vertex order. */
    for (size_t v = 0; v < n; ++v) {
        order[v] = (uint32_t)v;
        mk->class_next[v] = MK_NONE;
    }
    sfi_sort_indices(order, order + n, n, rest_less, topo);
    for (size_t i = 0; i + 1 < n; ++i)
        if (rest_equal(topo, order[i], order[i + 1])) mk->class_next[order[i]] = order[i + 1];
    sfi_free(&topo->env, order, 0);
    for (size_t f = 0; f < F; ++f) {
        float t21[2], t31[2], area = uv_area2(topo, f, t21, t31);
        mk->uv_flags[f] = (uint8_t)((area > 0.0f ? MK_ORIENT : 0u) | (not_zero(area) ? 0u : MK_ANY));
    }
    return SF_OK;
}

void sfi_mikktspace_free(sf_topology* topo)
{
    struct sfi_mikktspace* mk = topo->mikktspace;
    if (!mk) return;
    sfi_free(&topo->env, mk->class_next, 0);
    sfi_free(&topo->env, mk->uv_flags, 0);
    sfi_free(&topo->env, mk, sizeof *mk);
    topo->mikktspace = NULL;
}

/* ---------------------------------------------------------------- workspace scratch */

static void* scratch_alloc(sf_workspace* ws, size_t count, size_t elem)
{
    void* p = sfi_calloc(&ws->topo->env, count ? count : 1, elem);
    if (p) ws->mikktspace->bytes += count * elem;
    return p;
}

sf_result sfi_mikktspace_scratch_create(sf_workspace* ws, sf_error* err)
{
    const sf_topology* topo = ws->topo;
    if (!topo->mikktspace) return SF_OK;
    size_t n = topo->vertex_count, F = topo->triangle_count;
    struct sfi_mikktspace_scratch* s = sfi_calloc(&topo->env, 1, sizeof *s);
    if (!s) return sfi_fail(err, SF_ERROR_OUT_OF_MEMORY, "workspace.mikktspace", SFI_NO_INDEX, "object");
    ws->mikktspace = s;
    s->vrep = scratch_alloc(ws, n, sizeof(uint32_t));
    s->cached_vrep = scratch_alloc(ws, n, sizeof(uint32_t));
    s->cached_degen = scratch_alloc(ws, F, 1);
    s->flags = scratch_alloc(ws, F, 1);
    s->neighbors = scratch_alloc(ws, 3 * F, sizeof(uint32_t));
    s->edge_keys = scratch_alloc(ws, 9 * F, sizeof(uint32_t));
    s->edge_order = scratch_alloc(ws, 6 * F, sizeof(uint32_t));
    s->face_os = scratch_alloc(ws, 3 * F, sizeof(float));
    s->face_ot = scratch_alloc(ws, 3 * F, sizeof(float));
    s->corner_group = scratch_alloc(ws, 3 * F, sizeof(uint32_t));
    s->group_rep = scratch_alloc(ws, 3 * F, sizeof(uint32_t));
    s->group_start = scratch_alloc(ws, 3 * F + 1, sizeof(uint32_t));
    s->group_orient = scratch_alloc(ws, 3 * F, 1);
    s->group_faces = scratch_alloc(ws, 3 * F, sizeof(uint32_t));
    s->stack = scratch_alloc(ws, 6 * F + 2, sizeof(uint32_t));
    s->members = scratch_alloc(ws, F, sizeof(uint32_t));
    s->proj = scratch_alloc(ws, 6 * F, sizeof(float));
    s->corners = scratch_alloc(ws, 12 * F, sizeof(float));
    s->first_corner = scratch_alloc(ws, n, sizeof(uint32_t));
    s->normals = scratch_alloc(ws, 3 * n, sizeof(float));
    ws->bytes += s->bytes;
    if (!s->vrep || !s->cached_vrep || !s->cached_degen || !s->flags || !s->neighbors || !s->edge_keys ||
        !s->edge_order || !s->face_os || !s->face_ot || !s->corner_group || !s->group_rep || !s->group_start ||
        !s->group_orient || !s->group_faces || !s->stack || !s->members || !s->proj || !s->corners ||
        !s->first_corner || !s->normals)
        return sfi_fail(err, SF_ERROR_OUT_OF_MEMORY, "workspace.mikktspace", SFI_NO_INDEX, "%zu triangles", F);
    return SF_OK;
}

void sfi_mikktspace_scratch_free(sf_workspace* ws)
{
    struct sfi_mikktspace_scratch* s = ws->mikktspace;
    if (!s) return;
    const sf_env* env = &ws->topo->env;
    void* arrays[] = {s->vrep,         s->cached_vrep, s->cached_degen, s->flags,        s->neighbors,
                      s->edge_keys,    s->edge_order,  s->face_os,      s->face_ot,      s->corner_group,
                      s->group_rep,    s->group_start, s->group_orient, s->group_faces,  s->stack,
                      s->members,      s->proj,        s->corners,      s->first_corner, s->normals};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i) sfi_free(env, arrays[i], 0);
    sfi_free(env, s, sizeof *s);
    ws->mikktspace = NULL;
}

float* sfi_mikktspace_normal_scratch(sf_workspace* ws) { return ws->mikktspace ? ws->mikktspace->normals : NULL; }

const float* sfi_mikktspace_corner_tangents(const sf_workspace* ws)
{
    return ws->mikktspace && ws->mikktspace->has_corners ? ws->mikktspace->corners : NULL;
}

/* ---------------------------------------------------------------- per frame */

typedef struct mikk_frame {
    const sf_topology* topo;
    const float* P;          /* final positions, 3n */
    const float* N;          /* normals, 3n */
    struct sfi_mikktspace_scratch* s;
} mikk_frame;

static uint32_t corner_rep(const mikk_frame* m, size_t corner) { return m->s->vrep[m->topo->indices[corner]]; }

/* Step 1: shared vertices. Within each candidate class (same rest position and UV), members with
 * bit-equal final position and normal share the smallest member. */
static void shared_vertices(const mikk_frame* m)
{
    const sf_topology* topo = m->topo;
    const uint32_t* next = topo->mikktspace->class_next;
    uint32_t* vrep = m->s->vrep;
    size_t n = topo->vertex_count;
    for (size_t v = 0; v < n; ++v) vrep[v] = MK_NONE;
    for (size_t v = 0; v < n; ++v) {
        if (vrep[v] != MK_NONE) continue; /* reached from an earlier member of its class */
        vrep[v] = (uint32_t)v;
        for (uint32_t a = next[v]; a != MK_NONE; a = next[a]) {
            if (vrep[a] != MK_NONE) continue;
            if (same3(m->P + 3 * (size_t)a, m->P + 3 * v) && same3(m->N + 3 * (size_t)a, m->N + 3 * v))
                vrep[a] = (uint32_t)v;
        }
    }
}

/* Step 2 and 3: degenerate triangles, then each good triangle's tangents and flags. */
static void triangle_info(const mikk_frame* m)
{
    const sf_topology* topo = m->topo;
    struct sfi_mikktspace_scratch* s = m->s;
    for (size_t f = 0; f < topo->triangle_count; ++f) {
        const uint32_t* tri = topo->indices + 3 * f;
        const float *p1 = m->P + 3 * tri[0], *p2 = m->P + 3 * tri[1], *p3 = m->P + 3 * tri[2];
        float* os = s->face_os + 3 * f;
        float* ot = s->face_ot + 3 * f;
        os[0] = os[1] = os[2] = ot[0] = ot[1] = ot[2] = 0.0f;
        uint8_t flags = topo->mikktspace->uv_flags[f];
        if (same3(p1, p2) || same3(p1, p3) || same3(p2, p3)) {
            s->flags[f] = (uint8_t)(flags | MK_DEGEN);
            continue;
        }
        s->flags[f] = (uint8_t)(flags | MK_ANY);
        float t21[2], t31[2], area = uv_area2(topo, f, t21, t31);
        if (!not_zero(area)) continue;
        float d1[3], d2[3], vos[3], vot[3];
        sfk_sub(p2, p1, d1);
        sfk_sub(p3, p1, d2);
        for (int k = 0; k < 3; ++k) {
            vos[k] = t31[1] * d1[k] - t21[1] * d2[k];
            vot[k] = -t31[0] * d1[k] + t21[0] * d2[k];
        }
        float sign = (flags & MK_ORIENT) ? 1.0f : -1.0f, abs_area = fabsf(area);
        float len_os = sfk_length(vos), len_ot = sfk_length(vot);
        if (not_zero(len_os))
            for (int k = 0; k < 3; ++k) os[k] = sign / len_os * vos[k];
        if (not_zero(len_ot))
            for (int k = 0; k < 3; ++k) ot[k] = sign / len_ot * vot[k];
        if (not_zero(len_os / abs_area) && not_zero(len_ot / abs_area)) s->flags[f] = flags;
    }
}

static int edge_less(const void* ctx, uint32_t a, uint32_t b)
{
    const uint32_t* k = (const uint32_t*)ctx;
    for (int i = 0; i < 3; ++i) {
        uint32_t x = k[3 * (size_t)a + i], y = k[3 * (size_t)b + i];
        if (x != y) return x < y;
    }
    return 0;
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

/* Step 4: neighbours across edges, for the good triangles. */
static void build_neighbors(const mikk_frame* m)
{
    const sf_topology* topo = m->topo;
    struct sfi_mikktspace_scratch* s = m->s;
    size_t F = topo->triangle_count, e = 0;
    uint32_t* keys = s->edge_keys;
    uint32_t* order = s->edge_order;
    for (size_t i = 0; i < 3 * F; ++i) s->neighbors[i] = MK_NONE;
    for (size_t f = 0; f < F; ++f) {
        if (s->flags[f] & MK_DEGEN) continue;
        for (int c = 0; c < 3; ++c) {
            uint32_t a = corner_rep(m, 3 * f + (size_t)c), b = corner_rep(m, 3 * f + (size_t)((c + 1) % 3));
            keys[3 * e] = a < b ? a : b;
            keys[3 * e + 1] = a < b ? b : a;
            keys[3 * e + 2] = (uint32_t)f;
            order[e] = (uint32_t)e;
            ++e;
        }
    }
    sfi_sort_indices(order, order + 3 * F, e, edge_less, keys);
    for (size_t i = 0; i < e; ++i) {
        const uint32_t* ki = keys + 3 * (size_t)order[i];
        uint32_t fa = ki[2], a0, a1;
        int ea = edge_of(m, fa, ki[0], ki[1], &a0, &a1);
        if (s->neighbors[3 * (size_t)fa + (size_t)ea] != MK_NONE) continue;
        for (size_t j = i + 1; j < e; ++j) {
            const uint32_t* kj = keys + 3 * (size_t)order[j];
            if (kj[0] != ki[0] || kj[1] != ki[1]) break;
            uint32_t fb = kj[2], b0, b1;
            int eb = edge_of(m, fb, kj[0], kj[1], &b0, &b1);
            if (b1 == a0 && b0 == a1 && s->neighbors[3 * (size_t)fb + (size_t)eb] == MK_NONE) {
                s->neighbors[3 * (size_t)fa + (size_t)ea] = fb;
                s->neighbors[3 * (size_t)fb + (size_t)eb] = fa;
                break;
            }
        }
    }
}

/* Rebuilds the neighbours only when the shared vertices or the degenerate triangles changed. */
static void update_neighbors(const mikk_frame* m)
{
    const sf_topology* topo = m->topo;
    struct sfi_mikktspace_scratch* s = m->s;
    size_t n = topo->vertex_count, F = topo->triangle_count;
    int same = s->cached && memcmp(s->vrep, s->cached_vrep, n * sizeof(uint32_t)) == 0;
    for (size_t f = 0; same && f < F; ++f) same = (s->flags[f] & MK_DEGEN) == s->cached_degen[f];
    if (same) return;
    build_neighbors(m);
    memcpy(s->cached_vrep, s->vrep, n * sizeof(uint32_t));
    for (size_t f = 0; f < F; ++f) s->cached_degen[f] = (uint8_t)(s->flags[f] & MK_DEGEN);
    s->cached = 1;
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

static size_t build_groups(const mikk_frame* m)
{
    const sf_topology* topo = m->topo;
    struct sfi_mikktspace_scratch* s = m->s;
    size_t F = topo->triangle_count, groups = 0;
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
    return groups;
}

/* Step 6: the angle-weighted tangent of a sub-group (faces ascending) at shared vertex rep. */
static void eval_tangent(const mikk_frame* m, const uint32_t* faces, size_t count, uint32_t rep, float out[3])
{
    struct sfi_mikktspace_scratch* s = m->s;
    const uint32_t* idx = m->topo->indices;
    out[0] = out[1] = out[2] = 0.0f;
    for (size_t i = 0; i < count; ++i) {
        size_t f = faces[i];
        if (s->flags[f] & MK_ANY) continue;
        int c = corner_at(m, f, rep);
        if (c < 0) continue;
        const float* n = m->N + 3 * (size_t)idx[3 * f + (size_t)c];
        const float* p0 = m->P + 3 * (size_t)idx[3 * f + (size_t)((c + 2) % 3)];
        const float* p1 = m->P + 3 * (size_t)idx[3 * f + (size_t)c];
        const float* p2 = m->P + 3 * (size_t)idx[3 * f + (size_t)((c + 1) % 3)];
        float os[3], v1[3], v2[3], e1[3], e2[3];
        project(n, s->face_os + 3 * f, os);
        sfk_sub(p0, p1, e1);
        sfk_sub(p2, p1, e2);
        project(n, e1, v1);
        project(n, e2, v2);
        float cosv = sfk_dot(v1, v2);
        cosv = cosv > 1.0f ? 1.0f : (cosv < -1.0f ? -1.0f : cosv);
        sfk_madd(out, os, acosf(cosv));
    }
    safe_normalize(out);
}

static int u32_less(const void* ctx, uint32_t a, uint32_t b)
{
    (void)ctx;
    return a < b;
}

/* Tangents of every corner of one group: the sub-group rule, with the whole group computed once. */
static void group_tangents(const mikk_frame* m, uint32_t g)
{
    struct sfi_mikktspace_scratch* s = m->s;
    const uint32_t* faces = s->group_faces + s->group_start[g];
    size_t k = s->group_start[g + 1] - s->group_start[g];
    uint32_t rep = s->group_rep[g];
    const float* n = m->N + 3 * (size_t)rep;
    const float thres_cos = -1.0f; /* cos(180 deg): MikkTSpace's default angular threshold */
    float* proj = s->proj;
    for (size_t i = 0; i < k; ++i) {
        project(n, s->face_os + 3 * (size_t)faces[i], proj + 6 * i);
        project(n, s->face_ot + 3 * (size_t)faces[i], proj + 6 * i + 3);
    }
    float whole[3];
    int have_whole = 0;
    float w = s->group_orient[g] ? 1.0f : -1.0f;
    for (size_t i = 0; i < k; ++i) {
        size_t f = faces[i], count = 0;
        for (size_t j = 0; j < k; ++j) {
            int any = ((s->flags[f] | s->flags[faces[j]]) & MK_ANY) != 0;
            if (any || i == j || (sfk_dot(proj + 6 * i, proj + 6 * j) > thres_cos &&
                                  sfk_dot(proj + 6 * i + 3, proj + 6 * j + 3) > thres_cos))
                s->members[count++] = faces[j];
        }
        sfi_sort_indices(s->members, s->members + count, count, u32_less, NULL);
        float t[3];
        if (count == k) {
            if (!have_whole) eval_tangent(m, s->members, count, rep, whole);
            have_whole = 1;
            memcpy(t, whole, sizeof t);
        } else {
            eval_tangent(m, s->members, count, rep, t);
        }
        int c = corner_at(m, f, rep);
        float* out = s->corners + 4 * (3 * f + (size_t)c);
        memcpy(out, t, sizeof t);
        out[3] = w;
    }
}

sf_result sfi_mikktspace_tangents(const sf_topology* topo, const float* positions, const float* normals,
                                  sf_workspace* ws, float* tangents, sf_error* err)
{
    size_t n = topo->vertex_count, F = topo->triangle_count;
    if (!topo->mikktspace) { /* no UVs: no tangent frame */
        for (size_t v = 0; v < n; ++v) {
            float* t = tangents + 4 * v;
            t[0] = t[1] = t[2] = 0.0f;
            t[3] = 1.0f;
        }
        return SF_OK;
    }
    SF_CHECK(ws->mikktspace && normals, SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX,
             "no MikkTSpace scratch or normals");
    mikk_frame m = {topo, positions, normals, ws->mikktspace};
    struct sfi_mikktspace_scratch* s = ws->mikktspace;
    shared_vertices(&m);
    triangle_info(&m);
    update_neighbors(&m);
    /* MikkTSpace's default for corners no group reaches: tangent (1, 0, 0), w = -1. */
    for (size_t c = 0; c < 3 * F; ++c) {
        float* t = s->corners + 4 * c;
        t[0] = 1.0f, t[1] = t[2] = 0.0f, t[3] = -1.0f;
    }
    size_t groups = build_groups(&m);
    for (size_t g = 0; g < groups; ++g) group_tangents(&m, (uint32_t)g);
    /* Degenerate triangles: each corner copies the first good corner of its shared vertex. */
    int any_degen = 0;
    for (size_t f = 0; f < F && !any_degen; ++f) any_degen = (s->flags[f] & MK_DEGEN) != 0;
    if (any_degen) {
        for (size_t v = 0; v < n; ++v) s->first_corner[v] = MK_NONE;
        for (size_t c = 0; c < 3 * F; ++c) {
            uint32_t r = corner_rep(&m, c);
            if (!(s->flags[c / 3] & MK_DEGEN) && s->first_corner[r] == MK_NONE) s->first_corner[r] = (uint32_t)c;
        }
        for (size_t c = 0; c < 3 * F; ++c) {
            uint32_t src = s->first_corner[corner_rep(&m, c)];
            if ((s->flags[c / 3] & MK_DEGEN) && src != MK_NONE) memcpy(s->corners + 4 * c, s->corners + 4 * (size_t)src, 16);
        }
    }
    s->has_corners = 1;
    /* Per vertex: its first corner's tangent (corners of one vertex agree unless MikkTSpace splits the
     * vertex); w flips where the blended matrix mirrors, as for every other method. */
    for (size_t v = 0; v < n; ++v) {
        float* t = tangents + 4 * v;
        if (topo->adj_offsets[v] == topo->adj_offsets[v + 1]) {
            t[0] = t[1] = t[2] = 0.0f;
            t[3] = 1.0f;
            continue;
        }
        memcpy(t, s->corners + 4 * (size_t)topo->adj_corners[topo->adj_offsets[v]], 16);
        t[3] = sfk_mirror_handedness(t[3], ws->det[v]);
    }
    return SF_OK;
}

/* Morph NORMAL and TANGENT deltas rebuilt from each target's own geometry: the reference (`recompute` with the
 * reference options) of the rest mesh with the target at weight 1, against the one at weight 0; where the
 * target changes the reference, delta = reference - authored rest direction (exact at full weight), else 0. */
#include "fix_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct morph_ctx {
    sfi_fix_prim* p;
    sf_topology* topo;
    sf_workspace* ws;
    float *weights, *zeros;      /* target_count; 3n zeros for targets without POSITION */
    float *n0, *t0, *nk, *tk;    /* reference at weight 0 and at the target's weight 1 */
    sf_morph_target_desc* targets;
    int tangents;                /* the primitive has TANGENT and UVs: TANGENT deltas too */
} morph_ctx;

static void ctx_free(morph_ctx* c)
{
    sf_workspace_destroy(c->ws);
    sf_topology_destroy(c->topo);
    free(c->weights), free(c->zeros), free(c->n0), free(c->t0), free(c->nk), free(c->tk), free(c->targets);
}

static sf_result build(morph_ctx* c, const sf_env* env, sf_error* err)
{
    sfi_fix_prim* p = c->p;
    size_t n = p->n, T = p->target_count;
    c->weights = calloc(T + 1, sizeof(float));
    c->zeros = calloc(3 * n + 1, sizeof(float));
    c->n0 = malloc(3 * n * sizeof(float) + 4), c->nk = malloc(3 * n * sizeof(float) + 4);
    c->t0 = malloc(4 * n * sizeof(float) + 4), c->tk = malloc(4 * n * sizeof(float) + 4);
    c->targets = calloc(T + 1, sizeof *c->targets);
    if (!c->weights || !c->zeros || !c->n0 || !c->nk || !c->t0 || !c->tk || !c->targets)
        return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    for (size_t t = 0; t < T; ++t) c->targets[t].position_deltas = p->tpos[t].v ? p->tpos[t].v : c->zeros;
    sf_mesh_desc m;
    memset(&m, 0, sizeof m);
    m.vertex_count = n;
    m.triangle_count = p->tri_count;
    m.indices = p->tri;
    m.positions.data = p->pos.v;
    m.normals.data = p->nrm.v;
    if (p->tan.v && p->tan.components == 4) m.tangents.data = p->tan.v;
    if (p->uv.v && p->uv.components == 2) m.uvs.data = p->uv.v;
    m.targets = c->targets;
    m.target_count = T;
    sf_topology_opts to = {1, 0.0f};
    sf_workspace_opts wo = {1u << SF_METHOD_RECOMPUTE, SF_BACKEND_CPU};
    sf_error e;
    sf_result r = sf_topology_create(&m, &to, env, &c->topo, &e);
    if (r == SF_OK) r = sf_workspace_create(c->topo, &wo, &c->ws, &e);
    if (r != SF_OK)
        return sfi_eval_fail(err, r, "meshes[%zu].primitives[%zu]: %s", p->mesh, p->primitive, e.message);
    c->tangents = m.tangents.data && m.uvs.data && sf_topology_has_tangent_frame(c->topo);
    return SF_OK;
}

static sf_result reference(morph_ctx* c, const sf_frames_opts* ref, float* normals, float* tangents, sf_error* err)
{
    sf_pose pose = {NULL, 0, c->weights, c->p->target_count};
    sf_frames_out out = {NULL, normals, tangents};
    sf_error e;
    sf_result r = sf_frames_compute(c->topo, &pose, SF_METHOD_RECOMPUTE, ref, c->ws, &out, &e);
    return r == SF_OK ? SF_OK : sfi_eval_fail(err, r, "meshes[%zu].primitives[%zu]: %s", c->p->mesh, c->p->primitive,
                                             e.message);
}

/* The deltas of one direction (3 or 4 floats per vertex in rest/ref; 3 per vertex out), 0 where unchanged. */
static void deltas(size_t n, size_t stride, const float* rest, const float* r0, const float* rk, float* out)
{
    for (size_t v = 0; v < n; ++v) {
        int moved = memcmp(r0 + stride * v, rk + stride * v, 3 * sizeof(float)) != 0;
        for (int c = 0; c < 3; ++c) out[3 * v + c] = moved ? rk[stride * v + c] - rest[stride * v + c] : 0.0f;
    }
}

/* Writes the target's deltas into a (keeping its storage when the values fit it; floats otherwise). */
static sf_result write_deltas(morph_ctx* c, size_t t, const char* name, sfi_fix_attr* a, float* d, int* changed,
                              sf_fix_counts* counts, sf_error* err)
{
    sfi_fix_attr out = {d, c->p->n, 3, 5126, 0};
    if (a->v && a->components == 3) {
        int fits = 1;
        for (size_t i = 0; a->normalized && i < 3 * c->p->n; ++i) fits &= fabsf(d[i]) <= 1.0f;
        if (fits) out.ctype = a->ctype, out.normalized = a->normalized;
    }
    size_t before = counts->accessors_written;
    sf_result r = sfi_fix_write(c->p, t, name, &out, counts, err);
    *changed = counts->accessors_written != before;
    return r;
}

static int moves(const sfi_fix_attr* a)
{
    for (size_t i = 0; a->v && i < a->count * a->components; ++i)
        if (a->v[i] != 0.0f) return 1;
    return 0;
}

static sf_result targets(morph_ctx* c, const sf_frames_opts* ref, sf_fix_counts* counts, sf_error* err)
{
    sfi_fix_prim* p = c->p;
    sf_result r = reference(c, ref, c->n0, c->t0, err);
    float* d = malloc(3 * p->n * sizeof(float) + 4);
    if (!d) r = sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    for (size_t t = 0; r == SF_OK && t < p->target_count; ++t) {
        if (!moves(&p->tpos[t])) continue; /* a target that moves nothing keeps what it has */
        memset(c->weights, 0, p->target_count * sizeof(float));
        c->weights[t] = 1.0f;
        r = reference(c, ref, c->nk, c->tk, err);
        if (r != SF_OK) break;
        int changed = 0;
        deltas(p->n, 3, p->nrm.v, c->n0, c->nk, d);
        int had = p->tnrm[t].v != NULL;
        r = write_deltas(c, t, "NORMAL", &p->tnrm[t], d, &changed, counts, err);
        counts->morph_normal_targets += changed;
        counts->morph_normal_added += changed && !had;
        if (r != SF_OK || !c->tangents) continue;
        deltas(p->n, 4, p->tan.v, c->t0, c->tk, d);
        r = write_deltas(c, t, "TANGENT", &p->ttan[t], d, &changed, counts, err);
        counts->morph_tangent_targets += changed;
    }
    free(d);
    return r;
}

sf_result sfi_fix_morph(sfi_fix_prim* p, const sf_frames_opts* reference_opts, const sf_env* env,
                        sf_fix_counts* counts, sf_error* err)
{
    if (!p->target_count || p->tri_count == 0) return SF_OK;
    if (!p->nrm.v || p->nrm.components != 3) {
        counts->morph_flat_skipped++;
        return SF_OK;
    }
    morph_ctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    sf_result r = build(&c, env, err);
    if (r == SF_OK) r = targets(&c, reference_opts, counts, err);
    ctx_free(&c);
    return r;
}

/* The authored-normals reference: keeps the mesh's own rest normals and tangents (custom normals, toon
 * shading, baked hard-surface normals) and carries them through the deformation. At each vertex, the
 * rotation R takes the rebuilt rest frame to the rebuilt posed frame, both rebuilt by the `recompute`
 * gather with the same options (weighting, weld, tangent mode):
 *   - with a tangent frame (UVs) and both rebuilt tangents non-zero: R = [n1 t1 n1xt1] [n0 t0 n0xt0]^T,
 *     so twist about the normal follows the surface too;
 *   - otherwise (no UVs, or a zero rebuilt tangent) the same with an edge direction in place of t: the
 *     edge from the vertex along its first corner, projected into each tangent plane;
 *   - the shortest-arc rotation taking n0 to n1 when that edge degenerates too.
 * Output: n = R n_authored, t = unit(R t_authored orthogonalised against n), w = the authored w, flipped
 * where the rebuilt handedness flips between rest and pose (mirroring). Where the rebuilt posed normal
 * is zero the output normal is zero (degenerate, as in the rebuilt reference); where only the rebuilt
 * rest normal is zero the rebuilt posed frame is used. Morph normal deltas are not added: the rotation
 * already carries the morph's change of the surface.
 * The rebuilt rest frames are cached in the workspace per option set; frames do not allocate. */
#include "sf_internal.h"
#include "sf_kernels.h"

#include <string.h>

struct sfi_authored_scratch {
    float* rest_pos;  /* 3n: copy of the rest positions (the rest "pose" for the rebuild) */
    float* ones;      /* n: determinants of the rest pose */
    float* rest_n;    /* 3n rebuilt rest normals */
    float* rest_t;    /* 4n rebuilt rest tangents */
    float* pose_n;    /* 3n rebuilt posed normals */
    float* pose_t;    /* 4n rebuilt posed tangents */
    int cached;       /* rest_n/rest_t hold the rebuild for the options below */
    sf_weighting weighting;
    sf_weld weld;
    sf_tangent_mode tangents;
};

sf_result sfi_authored_scratch_create(sf_workspace* ws, sf_error* err)
{
    const sf_topology* topo = ws->topo;
    size_t n = topo->vertex_count ? topo->vertex_count : 1;
    struct sfi_authored_scratch* a = sf_env_calloc(&topo->env, 1, sizeof *a);
    if (!a) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "workspace.authored", SFI_NO_INDEX, "object");
    ws->authored = a;
    a->rest_pos = sf_env_calloc(&topo->env, 18 * n, sizeof(float)); /* one block: 3 + 1 + 3 + 4 + 3 + 4 */
    if (!a->rest_pos) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "workspace.authored", SFI_NO_INDEX, "%zu vertices", n);
    ws->bytes += 18 * n * sizeof(float);
    a->ones = a->rest_pos + 3 * n;
    a->rest_n = a->ones + n;
    a->rest_t = a->rest_n + 3 * n;
    a->pose_n = a->rest_t + 4 * n;
    a->pose_t = a->pose_n + 3 * n;
    if (topo->vertex_count) memcpy(a->rest_pos, topo->rest_positions, 3 * topo->vertex_count * sizeof(float));
    for (size_t v = 0; v < n; ++v) a->ones[v] = 1.0f;
    return SF_OK;
}

void sfi_authored_scratch_free(sf_workspace* ws)
{
    struct sfi_authored_scratch* a = ws->authored;
    if (!a) return;
    const sf_env* env = &ws->topo->env;
    sf_env_free(env, a->rest_pos, 0);
    sf_env_free(env, a, sizeof *a);
    ws->authored = NULL;
}

/* R v for the frame rotation (n0, t0) -> (n1, t1); all unit, t orthogonal to n. */
static void frame_rotate(const float n0[3], const float t0[3], const float n1[3], const float t1[3], const float v[3],
                         float out[3])
{
    float b0[3], b1[3];
    sfk_cross(n0, t0, b0);
    sfk_cross(n1, t1, b1);
    float a = sfk_dot(n0, v), b = sfk_dot(t0, v), c = sfk_dot(b0, v);
    for (int k = 0; k < 3; ++k) out[k] = n1[k] * a + t1[k] * b + b1[k] * c;
}

/* R v for the shortest-arc rotation taking unit a to unit b (Rodrigues); half turn about an axis
 * perpendicular to a when they are opposite. */
static void arc_rotate(const float a[3], const float b[3], const float v[3], float out[3])
{
    float k[3], c = sfk_dot(a, b);
    sfk_cross(a, b, k);
    if (c > -0.9999f) {
        float kv[3];
        sfk_cross(k, v, kv);
        float s = sfk_dot(k, v) / (1.0f + c);
        for (int i = 0; i < 3; ++i) out[i] = v[i] * c + kv[i] + k[i] * s;
        return;
    }
    /* axis: a crossed with the coordinate axis it is least aligned with */
    float e[3] = {0, 0, 0};
    int m = fabsf(a[0]) < fabsf(a[1]) ? (fabsf(a[0]) < fabsf(a[2]) ? 0 : 2) : (fabsf(a[1]) < fabsf(a[2]) ? 1 : 2);
    e[m] = 1.0f;
    float axis[3];
    sfk_cross(a, e, axis);
    sfk_safe_unit(axis, axis);
    float d = 2.0f * sfk_dot(axis, v); /* half turn: v -> 2 (u.v) u - v */
    for (int i = 0; i < 3; ++i) out[i] = axis[i] * d - v[i];
}

/* Makes t unit and orthogonal to unit n; returns 0 (t zero) when that is impossible. */
static int orthonormal_tangent(const float n[3], float t[3])
{
    float d = sfk_dot(n, t);
    float o[3] = {t[0] - n[0] * d, t[1] - n[1] * d, t[2] - n[2] * d};
    return sfk_safe_unit(o, t);
}

typedef struct authored_job {
    const sf_topology* topo;
    const struct sfi_authored_scratch* a;
    const float* final_pos;
    float* normals;
    float* tangents;
} authored_job;

/* Unit edge direction from v along its first corner's next vertex, in the plane normal to n; 0 if none. */
static int edge_direction(const sf_topology* topo, const float* P, size_t v, const float n[3], float out[3])
{
    if (topo->adj_offsets[v] == topo->adj_offsets[v + 1]) return 0;
    uint32_t corner = topo->adj_corners[topo->adj_offsets[v]];
    uint32_t other = topo->indices[corner - corner % 3 + (corner + 1) % 3];
    sfk_sub(P + 3 * (size_t)other, P + 3 * v, out);
    return orthonormal_tangent(n, out);
}

static void authored_range(void* ctx, size_t begin, size_t end)
{
    const authored_job* job = (const authored_job*)ctx;
    const sf_topology* topo = job->topo;
    const struct sfi_authored_scratch* a = job->a;
    for (size_t v = begin; v < end; ++v) {
        const float *n0 = a->rest_n + 3 * v, *n1 = a->pose_n + 3 * v;
        const float *t0 = a->rest_t + 4 * v, *t1 = a->pose_t + 4 * v;
        const float* an = topo->rest_normals + 3 * v;
        const float* at = topo->rest_tangents + 4 * v;
        float n[3] = {0, 0, 0}, t[4] = {0, 0, 0, at[3]};
        int posed = sfk_dot(n1, n1) > 0.0f, rest = sfk_dot(n0, n0) > 0.0f;
        int frame = topo->has_uvs && sfk_dot(t0, t0) > 0.0f && sfk_dot(t1, t1) > 0.0f;
        float e0[3], e1[3];
        int edges = !frame && rest && posed && edge_direction(topo, a->rest_pos, v, n0, e0) &&
                    edge_direction(topo, job->final_pos, v, n1, e1);
        if (posed && !rest) {
            /* nothing to rotate from: the rebuilt posed frame */
            memcpy(n, n1, sizeof n);
            memcpy(t, t1, sizeof t);
        } else if (posed) {
            float un[3], ut[3] = {at[0], at[1], at[2]};
            sfk_safe_unit(an, un);
            if (frame) {
                float b0[3], b1[3], ft0[3], ft1[3];
                /* re-orthonormalise the rebuilt tangents (MikkTSpace's are orthogonal only to rounding) */
                sfk_cross(n0, t0, b0);
                sfk_cross(n1, t1, b1);
                sfk_safe_unit(b0, b0);
                sfk_safe_unit(b1, b1);
                sfk_cross(b0, n0, ft0);
                sfk_cross(b1, n1, ft1);
                frame_rotate(n0, ft0, n1, ft1, un, n);
                frame_rotate(n0, ft0, n1, ft1, ut, t);
                if (t0[3] != t1[3]) t[3] = -t[3]; /* rebuilt handedness flipped: mirrored */
            } else if (edges) {
                frame_rotate(n0, e0, n1, e1, un, n);
                frame_rotate(n0, e0, n1, e1, ut, t);
            } else {
                arc_rotate(n0, n1, un, n);
                arc_rotate(n0, n1, ut, t);
            }
            sfk_safe_unit(n, n);
            if (topo->has_uvs) {
                if (!orthonormal_tangent(n, t)) t[0] = t[1] = t[2] = 0.0f;
            } else {
                t[0] = t[1] = t[2] = 0.0f;
            }
        }
        if (job->normals) memcpy(job->normals + 3 * v, n, sizeof n);
        if (job->tangents) memcpy(job->tangents + 4 * v, t, sizeof t);
    }
}

sf_result sfi_authored_frames(const sf_topology* topo, const sf_frames_opts* opts, sf_workspace* ws, float* normals,
                              float* tangents, sf_error* err)
{
    struct sfi_authored_scratch* a = ws->authored;
    SF_CHECK(a != NULL, SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX, "no authored-reference scratch");
    sf_frames_opts o = *opts;
    o.reference = SF_REFERENCE_REBUILT;
    sf_result r;
    if (!a->cached || a->weighting != o.weighting || a->weld != o.weld || a->tangents != o.tangents) {
        /* The rest rebuild runs the same gather on the rest positions with unit determinants. */
        float *pos = ws->final_pos, *det = ws->det;
        ws->final_pos = a->rest_pos;
        ws->det = a->ones;
        r = sfi_recompute(topo, &o, ws, a->rest_n, a->rest_t, err);
        ws->final_pos = pos;
        ws->det = det;
        if (r != SF_OK) return r;
        a->cached = 1;
        a->weighting = o.weighting;
        a->weld = o.weld;
        a->tangents = o.tangents;
    }
    if ((r = sfi_recompute(topo, &o, ws, a->pose_n, a->pose_t, err)) != SF_OK) return r;
    authored_job job = {topo, a, ws->final_pos, normals, tangents};
    sf_env_parallel_for(&topo->env, topo->vertex_count, 1024, authored_range, &job);
    return SF_OK;
}

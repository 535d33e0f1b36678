/* NORMAL made unit (zero ones rebuilt from the faces around the vertex), TANGENT w snapped to +-1, and a
 * normal-mapped primitive without TANGENT given MikkTSpace's (with vertex splits: fix_split.c). */
#include "fix_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How far from 1 a stored length may be: the data check's 1e-3 (SF_GLTF_PROBLEM_NORMAL_LENGTH), or the
 * quantization step of 8-bit normals (a unit vector stored in 8 bits is never exactly unit). */
static double length_tolerance(const sfi_fix_attr* a)
{
    return a->ctype == 5120 ? 2e-2 : 1e-3;
}

/* Area-weighted face normals summed per vertex (3 * n doubles). */
static double* face_sums(const sfi_fix_prim* p)
{
    double* s = calloc(3 * p->n + 1, sizeof(double));
    if (!s) return NULL;
    const float* x = p->pos.v;
    for (size_t t = 0; t < p->tri_count; ++t) {
        const uint32_t* v = p->tri + 3 * t;
        double e1[3], e2[3];
        for (int c = 0; c < 3; ++c) e1[c] = x[3 * v[1] + c] - x[3 * v[0] + c], e2[c] = x[3 * v[2] + c] - x[3 * v[0] + c];
        double f[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        for (int j = 0; j < 3; ++j)
            for (int c = 0; c < 3; ++c) s[3 * v[j] + c] += f[c];
    }
    return s;
}

sf_result sfi_fix_normals(sfi_fix_prim* p, sf_fix_counts* counts, sf_error* err)
{
    sfi_fix_attr* a = &p->nrm;
    if (!a->v || a->components != 3) return SF_OK;
    double tol = length_tolerance(a), *faces = NULL;
    size_t fixed = 0;
    for (size_t i = 0; i < p->n; ++i) {
        float* v = a->v + 3 * i;
        double len = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
        if (isfinite(len) && len > 1e-12 && fabs(len - 1.0) <= tol) continue;
        if (isfinite(len) && len > 1e-12) {
            for (int c = 0; c < 3; ++c) v[c] = (float)(v[c] / len);
            counts->normals_made_unit++;
            fixed++;
            continue;
        }
        if (!faces && !(faces = face_sums(p))) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
        const double* f = faces + 3 * i;
        double fl = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
        if (!(fl > 0) || !isfinite(fl)) continue; /* no face around it: nothing to rebuild from */
        for (int c = 0; c < 3; ++c) v[c] = (float)(f[c] / fl);
        counts->normals_rebuilt++;
        fixed++;
    }
    free(faces);
    return fixed ? sfi_fix_write(p, SF_GLTF_NONE, "NORMAL", a, counts, err) : SF_OK;
}

sf_result sfi_fix_tangents(sfi_fix_prim* p, sf_fix_counts* counts, sf_error* err)
{
    sfi_fix_attr* a = &p->tan;
    if (!a->v || a->components != 4) return SF_OK;
    size_t fixed = 0;
    for (size_t i = 0; i < p->n; ++i) {
        float* w = a->v + 4 * i + 3;
        if (*w == 1.0f || *w == -1.0f) continue;
        *w = *w < 0 ? -1.0f : 1.0f;
        fixed++;
    }
    counts->tangent_w_snapped += fixed;
    return fixed ? sfi_fix_write(p, SF_GLTF_NONE, "TANGENT", a, counts, err) : SF_OK;
}

/* MikkTSpace's tangent of each vertex into a->v (4 floats each), or 0 when some vertex gets different tangents at
 * different corners (a bake's tangents then need the vertex split). */
static int vertex_tangents(const sfi_fix_prim* p, const float* corners, sfi_fix_attr* a)
{
    unsigned char* seen = calloc(p->n + 1, 1);
    if (!seen) return -1;
    int one_each = 1;
    for (size_t c = 0; c < 3 * p->tri_count && one_each; ++c) {
        size_t v = p->tri[c];
        if (!seen[v]) memcpy(a->v + 4 * v, corners + 4 * c, 4 * sizeof(float));
        else one_each = memcmp(a->v + 4 * v, corners + 4 * c, 4 * sizeof(float)) == 0;
        seen[v] = 1;
    }
    for (size_t v = 0; v < p->n && one_each; ++v)
        if (!seen[v]) a->v[4 * v] = 1.0f, a->v[4 * v + 1] = a->v[4 * v + 2] = 0.0f, a->v[4 * v + 3] = 1.0f; /* no face */
    free(seen);
    return one_each;
}

sf_result sfi_fix_generate_tangents(sfi_fix_prim* p, sf_fix_counts* counts, sf_error* err)
{
    /* the normal map must read the UVs fix reads (TEXCOORD_0); a primitive without one needs no tangents */
    if (p->tan.v || !p->nrm.v || p->nrm.components != 3 || !p->uv.v || p->uv.components != 2 || !p->tri_count ||
        sf_gltf_doc_normal_map_texcoord(p->doc, p->mesh, p->primitive) != 0)
        return SF_OK;
    sf_tangent_desc d;
    memset(&d, 0, sizeof d);
    d.vertex_count = p->n;
    d.triangle_count = p->tri_count;
    d.indices = p->tri;
    d.positions.data = p->pos.v;
    d.normals.data = p->nrm.v;
    d.uvs.data = p->uv.v;
    d.mode = SF_TANGENTS_MIKKTSPACE;
    float* corners = malloc(12 * p->tri_count * sizeof(float));
    sfi_fix_attr a = {malloc(4 * p->n * sizeof(float) + 1), p->n, 4, 5126, 0};
    if (!corners || !a.v) {
        free(corners);
        free(a.v);
        return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    sf_error e;
    sf_result r = sf_tangents_generate(&d, NULL, corners, &e);
    if (r != SF_OK) {
        r = sfi_eval_fail(err, r, "meshes[%zu].primitives[%zu]: MikkTSpace tangents: %s", p->mesh, p->primitive,
                          e.message);
    } else {
        int one_each = vertex_tangents(p, corners, &a);
        if (one_each < 0) {
            r = sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
        } else if (!one_each) {
            p->split_corners = corners; /* written last, splitting (sfi_fix_split_tangents) */
            corners = NULL;
        } else if ((r = sfi_fix_write(p, SF_GLTF_NONE, "TANGENT", &a, counts, err)) == SF_OK) {
            counts->tangents_generated += p->n;
            p->tan = a; /* the rest tangents the morph targets' TANGENT deltas start from (fix_morph.c) */
            a.v = NULL;
        }
    }
    free(corners);
    free(a.v);
    return r;
}

/* NORMAL made unit (zero ones rebuilt from the faces around the vertex) and TANGENT w snapped to +-1. */
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

/* sf_quantized_skin's pass over SK_W vertices per step, written once for every instruction set: the includers of
 * skin_body.h include this file after it, with SQ_ENTRY (the entry point's name) and sk_cvt (SK_W int32 to float,
 * exact below 2^24) defined. Each lane is bit for bit sfi_quant_vertex (quant.c):
 *   - the integers are converted exactly, then divided (correctly rounded in SIMD as in scalar) and clamped;
 *   - the blend starts from +0 and adds w * bone per slot: a zero weight adds +-0 to a sum that is never -0, the
 *     scalar's skip of that slot; lanes whose weights are all zero take the identity, as sfk_blend_matrix does;
 *   - the rows are skin_body.h's (sk_point, sk_dot3, sk_safe_unit, sk_det), without fused multiply-add.
 * The streams are read per lane (any stride, any type) into rows of int32; lanes past the mesh read zeros, which
 * decode to a weightless vertex at the origin whose results are dropped. */
#include <stdint.h>
#include <string.h>

/* Components [0, comps) of the step's vertices of stream s (stride resolved) into rows c[k][lane]. */
SK_INLINE void sq_fetch(const sf_quant_stream* s, uint32_t comps, size_t v0, size_t valid, int32_t c[][SK_W])
{
    const uint8_t* base = (const uint8_t*)s->data + v0 * s->stride;
    size_t st = s->stride;
    if (valid < SK_W)
        for (uint32_t k = 0; k < comps; ++k)
            for (size_t l = valid; l < SK_W; ++l) c[k][l] = 0;
    switch (s->type) {
    case SF_QUANT_INT8:
    case SF_QUANT_SNORM8:
        for (size_t l = 0; l < valid; ++l)
            for (uint32_t k = 0; k < comps; ++k) c[k][l] = (int8_t)base[l * st + k];
        break;
    case SF_QUANT_UINT8:
    case SF_QUANT_UNORM8:
        for (size_t l = 0; l < valid; ++l)
            for (uint32_t k = 0; k < comps; ++k) c[k][l] = base[l * st + k];
        break;
    case SF_QUANT_INT16:
    case SF_QUANT_SNORM16:
        for (size_t l = 0; l < valid; ++l)
            for (uint32_t k = 0; k < comps; ++k) {
                int16_t x;
                memcpy(&x, base + l * st + 2 * k, 2);
                c[k][l] = x;
            }
        break;
    default:
        for (size_t l = 0; l < valid; ++l)
            for (uint32_t k = 0; k < comps; ++k) {
                uint16_t x;
                memcpy(&x, base + l * st + 2 * k, 2);
                c[k][l] = x;
            }
        break;
    }
}

/* One row of integers decoded as type t (sfi_quant_decode's operations). */
SK_INLINE SK_V sq_decode(sf_quant_type t, const int32_t* c)
{
    SK_V x = sk_cvt(c), minus1 = sk_set1(-1.0f);
    switch (t) {
    case SF_QUANT_SNORM8: x = sk_div(x, sk_set1(127.0f)); return sk_select(sk_lt(x, minus1), minus1, x);
    case SF_QUANT_UNORM8: return sk_div(x, sk_set1(255.0f));
    case SF_QUANT_SNORM16: x = sk_div(x, sk_set1(32767.0f)); return sk_select(sk_lt(x, minus1), minus1, x);
    case SF_QUANT_UNORM16: return sk_div(x, sk_set1(65535.0f));
    default: return x;
    }
}

/* rows (m[k] a + m[3 + k] b) + m[6 + k] c of the blend's linear part applied to d (sfk_mat_dir) */
SK_INLINE void sq_dir(const SK_V* m, const SK_V* d, SK_V* out)
{
    for (int k = 0; k < 3; ++k) out[k] = sk_dot3(m[k], m[3 + k], m[6 + k], d[0], d[1], d[2]);
}

/* One step; returns the lanes with a joint out of range. */
SK_INLINE unsigned sq_step(const sfi_quant_job* job, size_t v0, size_t valid, uint32_t K)
{
    const sf_quantized_mesh* q = job->mesh;
    const uint32_t B = (uint32_t)q->bone_count;
    int32_t c[4][SK_W], jc[SF_QUANT_MAX_INFLUENCES][SK_W], wc[SF_QUANT_MAX_INFLUENCES][SK_W];
    SK_V zero = sk_set1(0.0f);
    sq_fetch(&q->joints, K, v0, valid, jc);
    sq_fetch(&q->weights, K, v0, valid, wc);
    unsigned bad = 0;
    SK_V m[12], wsum = zero;
    for (int r = 0; r < 12; ++r) m[r] = zero;
    for (uint32_t i = 0; i < K; ++i) {
        const float* rec[SK_W];
        for (int l = 0; l < SK_W; ++l) {
            uint32_t j = (uint32_t)jc[i][l];
            if (j >= B) bad |= 1u << l, j = 0; /* read in bounds; the call reports the vertex */
            rec[l] = job->bones + 12 * (size_t)j;
        }
        SK_V w = sq_decode(q->weights.type, wc[i]), g[12];
        sk_gather(rec, g);
        for (int r = 0; r < 12; ++r) m[r] = sk_add(m[r], sk_mul(w, g[r]));
        wsum = sk_add(wsum, w);
    }
    SK_V rest = sk_eq(wsum, zero), one = sk_set1(1.0f);
    m[0] = sk_select(rest, one, m[0]);
    m[4] = sk_select(rest, one, m[4]);
    m[8] = sk_select(rest, one, m[8]);
    SK_V big = zero;
    if (job->positions) {
        SK_V p[3], fp[3];
        sq_fetch(&q->positions, 3, v0, valid, c);
        for (int k = 0; k < 3; ++k)
            p[k] = sk_add(sk_mul(sq_decode(q->positions.type, c[k]), sk_set1(q->position_scale[k])),
                          sk_set1(q->position_offset[k]));
        sk_point(m, p, fp);
        sk_put3(job->positions + 3 * v0, valid, fp[0], fp[1], fp[2]);
    }
    if (job->normals) {
        SK_V d[3], n[3];
        sq_fetch(&q->normals, 3, v0, valid, c);
        for (int k = 0; k < 3; ++k) d[k] = sq_decode(q->normals.type, c[k]);
        sq_dir(m, d, n);
        sk_safe_unit(&n[0], &n[1], &n[2], &big);
        sk_put3(job->normals + 3 * v0, valid, n[0], n[1], n[2]);
    }
    if (job->tangents) {
        SK_V d[4], t[3];
        sq_fetch(&q->tangents, 4, v0, valid, c);
        for (int k = 0; k < 4; ++k) d[k] = sq_decode(q->tangents.type, c[k]);
        sq_dir(m, d, t);
        sk_safe_unit(&t[0], &t[1], &t[2], &big);
        /* w flips where the blend mirrors (sfk_mirror_handedness) */
        SK_V w = sk_select(sk_lt(sk_det(m), zero), sk_mul(d[3], sk_set1(-1.0f)), d[3]);
        sk_put4(job->tangents + 4 * v0, valid, t[0], t[1], t[2], w);
    }
    /* a direction whose squared length passes FLT_MAX (sfk_safe_unit's rescaled branch; out of reach within the
       pose's bounds, kept for exactness) is redone by the scalar reference */
    unsigned bigm = (unsigned)sk_mask(big) & ((1u << valid) - 1u) & ~bad;
    for (size_t l = 0; bigm && l < valid; ++l)
        if (bigm >> l & 1u) (void)sfi_quant_vertex(job, v0 + l);
    return bad & ((1u << valid) - 1u);
}

SK_INLINE size_t sq_range(const sfi_quant_job* job, size_t begin, size_t end, uint32_t K)
{
    for (size_t v0 = begin; v0 < end; v0 += SK_W) {
        size_t valid = end - v0 < SK_W ? end - v0 : SK_W;
        unsigned bad = sq_step(job, v0, valid, K);
        if (bad) {
            size_t first = v0;
            while (!(bad & 1u)) bad >>= 1, ++first;
            return first;
        }
    }
    return SIZE_MAX;
}

/* The common influence counts as constants, so that the slot loops unroll. */
size_t SQ_ENTRY(const sfi_quant_job* job, size_t begin, size_t end)
{
    switch (job->mesh->influence_count) {
    case 4: return sq_range(job, begin, end, 4u);
    case 8: return sq_range(job, begin, end, 8u);
    default: return sq_range(job, begin, end, job->mesh->influence_count);
    }
}

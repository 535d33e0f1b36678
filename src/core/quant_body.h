/* sf_quantized_skin's pass over SK_W vertices per step, written once for every instruction set: the includers of
 * skin_body.h include this file after it, with SQ_ENTRY (the entry point's name) and sk_cvt (SK_W int32 to float,
 * exact below 2^24) defined. Each lane is bit for bit sfi_quant_vertex (quant.c):
 *   - the integers are converted exactly, then divided (sq_norm: the correctly rounded quotient without a
 *     division) and clamped;
 *   - the blend starts from +0 and adds w * bone per slot: a zero weight adds +-0 to a sum that is never -0, the
 *     scalar's skip of that slot; lanes whose weights are all zero take the identity, as sfk_blend_matrix does;
 *   - the rows are skin_body.h's (sk_point, sk_dot3, sk_safe_unit, sk_det), without fused multiply-add.
 * The streams are read per lane (any stride, any type) into rows of int32; lanes past the mesh read zeros, which
 * decode to a weightless vertex at the origin whose results are dropped. Where the includer defines SQ_WIDE, the
 * layouts that KHR_mesh_quantization's aligned accessors give (16-bit VEC3 / VEC4 at a stride of 8 bytes, 8-bit
 * VEC4 at 4) are read a whole step at a time instead (the last, partial step from zero-padded copies), widened
 * straight into float rows by sq_rows16 and sq_rows8: for SK_W vertices at p, the four components as floats (the
 * 16-bit ones signed where sgn is nonzero); packed joints likewise, turned into record offsets in rows. */
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

/* x / d, correctly rounded, for the integers x of a normalised type (|x| < 2^16) and d its largest value: hi is 1 / d
 * cut to 8 significant bits, so x * hi is exact, and lo the rest of 1 / d. The sum rounds to the quotient's float
 * for every such x and d (test_quant checks each one); a division costs several times the two products. */
SK_INLINE SK_V sq_norm(SK_V x, float hi, float lo) { return sk_add(sk_mul(x, sk_set1(hi)), sk_mul(x, sk_set1(lo))); }

/* A row of exactly converted integers decoded as type t (sfi_quant_vertex's operations). */
SK_INLINE SK_V sq_decode_f(sf_quant_type t, SK_V x)
{
    SK_V minus1 = sk_set1(-1.0f);
    switch (t) {
    case SF_QUANT_SNORM8: x = sq_norm(x, 0x1.02p-7f, 0x1.020408p-21f); return sk_select(sk_lt(x, minus1), minus1, x);
    case SF_QUANT_UNORM8: return sq_norm(x, 0x1p-8f, 0x1.010102p-16f);
    case SF_QUANT_SNORM16: x = sq_norm(x, 0x1p-15f, 0x1.0002p-30f); return sk_select(sk_lt(x, minus1), minus1, x);
    case SF_QUANT_UNORM16: return sq_norm(x, 0x1p-16f, 0x1.0001p-32f);
    default: return x;
    }
}

/* One row of integers decoded as type t. */
SK_INLINE SK_V sq_decode(sf_quant_type t, const int32_t* c) { return sq_decode_f(t, sk_cvt(c)); }

/* rows (m[k] a + m[3 + k] b) + m[6 + k] c of the blend's linear part applied to d (sfk_mat_dir) */
SK_INLINE void sq_dir(const SK_V* m, const SK_V* d, SK_V* out)
{
    for (int k = 0; k < 3; ++k) out[k] = sk_dot3(m[k], m[3 + k], m[6 + k], d[0], d[1], d[2]);
}

/* One slot of the blend: the lanes' bones as 12 rows g, weighted by w, added to m and wsum. */
SK_INLINE void sq_slot_rows(const SK_V* g, SK_V w, SK_V* m, SK_V* wsum)
{
    for (int r = 0; r < 12; ++r) m[r] = sk_add(m[r], sk_mul(w, g[r]));
    *wsum = sk_add(*wsum, w);
}

/* sq_slot_rows with the lanes' bones at rec */
SK_INLINE void sq_slot(const float* const rec[SK_W], SK_V w, SK_V* m, SK_V* wsum)
{
    SK_V g[12];
    sk_gather(rec, g);
    sq_slot_rows(g, w, m, wsum);
}

/* The step after the blend: m (12 rows) with its weight sum, and the decoded rest streams (p, d for the normals,
 * e for the tangents; those of an output not asked for are not read); returns bad limited to the step. */
SK_INLINE unsigned sq_finish(const sfi_quant_job* job, size_t v0, size_t valid, SK_V* m, SK_V wsum, const SK_V* p,
                             const SK_V* d, const SK_V* e, unsigned bad)
{
    const sf_quantized_mesh* q = job->mesh;
    SK_V zero = sk_set1(0.0f);
    SK_V rest = sk_eq(wsum, zero), one = sk_set1(1.0f);
    m[0] = sk_select(rest, one, m[0]);
    m[4] = sk_select(rest, one, m[4]);
    m[8] = sk_select(rest, one, m[8]);
    SK_V big = zero;
    if (job->positions) {
        SK_V pp[3], fp[3];
        for (int k = 0; k < 3; ++k)
            pp[k] = sk_add(sk_mul(p[k], sk_set1(q->position_scale[k])), sk_set1(q->position_offset[k]));
        sk_point(m, pp, fp);
        sk_put3(job->positions + 3 * v0, valid, fp[0], fp[1], fp[2]);
    }
    if (job->normals) {
        SK_V n[3];
        sq_dir(m, d, n);
        sk_safe_unit(&n[0], &n[1], &n[2], &big);
        sk_put3(job->normals + 3 * v0, valid, n[0], n[1], n[2]);
    }
    if (job->tangents) {
        SK_V t[3];
        sq_dir(m, e, t);
        sk_safe_unit(&t[0], &t[1], &t[2], &big);
        /* w flips where the blend mirrors (sfk_mirror_handedness) */
        SK_V w = sk_select(sk_lt(sk_det(m), zero), sk_mul(e[3], sk_set1(-1.0f)), e[3]);
        sk_put4(job->tangents + 4 * v0, valid, t[0], t[1], t[2], w);
    }
    /* a direction whose squared length passes FLT_MAX (sfk_safe_unit's rescaled branch; out of reach within the
       pose's bounds, kept for exactness) is redone by the scalar reference */
    unsigned bigm = (unsigned)sk_mask(big) & ((1u << valid) - 1u) & ~bad;
    for (size_t l = 0; bigm && l < valid; ++l)
        if (bigm >> l & 1u) (void)sfi_quant_vertex(job, v0 + l);
    return bad & ((1u << valid) - 1u);
}

/* One step, any layout; returns the lanes with a joint out of range. */
SK_INLINE unsigned sq_step(const sfi_quant_job* job, size_t v0, size_t valid, uint32_t K)
{
    const sf_quantized_mesh* q = job->mesh;
    const uint32_t B = (uint32_t)q->bone_count;
    int32_t c[4][SK_W], jc[SF_QUANT_MAX_INFLUENCES][SK_W], wc[SF_QUANT_MAX_INFLUENCES][SK_W];
    SK_V zero = sk_set1(0.0f);
    sq_fetch(&q->joints, K, v0, valid, jc);
    sq_fetch(&q->weights, K, v0, valid, wc);
    unsigned bad = 0;
    SK_V m[12], wsum = zero, p[4], d[4], e[4];
    for (int r = 0; r < 12; ++r) m[r] = zero;
    for (int k = 0; k < 4; ++k) p[k] = d[k] = e[k] = zero; /* the rows of an output not asked for */
    for (uint32_t i = 0; i < K; ++i) {
        const float* rec[SK_W];
        for (int l = 0; l < SK_W; ++l) {
            uint32_t j = (uint32_t)jc[i][l];
            if (j >= B) bad |= 1u << l, j = 0; /* read in bounds; the call reports the vertex */
            rec[l] = job->bones + 12 * (size_t)j;
        }
        sq_slot(rec, sq_decode(q->weights.type, wc[i]), m, &wsum);
    }
    if (job->positions) {
        sq_fetch(&q->positions, 3, v0, valid, c);
        for (int k = 0; k < 3; ++k) p[k] = sq_decode(q->positions.type, c[k]);
    }
    if (job->normals) {
        sq_fetch(&q->normals, 3, v0, valid, c);
        for (int k = 0; k < 3; ++k) d[k] = sq_decode(q->normals.type, c[k]);
    }
    if (job->tangents) {
        sq_fetch(&q->tangents, 4, v0, valid, c);
        for (int k = 0; k < 4; ++k) e[k] = sq_decode(q->tangents.type, c[k]);
    }
    return sq_finish(job, v0, valid, m, wsum, p, d, e, bad);
}

#ifdef SQ_WIDE
/* A stream sq_step_wide reads: 16-bit VEC3 / VEC4 at a stride of 8 bytes, or (bytes) 8-bit VEC4 at 4. */
static int sq_wide_stream(const sf_quant_stream* s, int bytes)
{
    return bytes ? s->stride == 4 && (s->type == SF_QUANT_UINT8 || s->type == SF_QUANT_UNORM8)
                 : s->stride == 8 && (s->type == SF_QUANT_INT16 || s->type == SF_QUANT_UINT16 ||
                                      s->type == SF_QUANT_SNORM16 || s->type == SF_QUANT_UNORM16);
}

/* One step of 4 influences read a step at a time (sq_step's operations in its order), its first `valid` lanes
 * stored. The joints are wide_joints ? UINT16 : UINT8 at any stride (each lane's index addresses its bone), the
 * weights UNORM16 at 8 or UNORM8 at 4, the rest streams as sq_wide_stream takes them. Each of the SK_W lanes reads
 * its element's whole stride, so the vertex after the step must exist (sq_tail_wide pads the last step). */
SK_INLINE unsigned sq_step_wide(const sfi_quant_job* job, size_t v0, size_t valid, int wide_joints, int wide_weights)
{
    const sf_quantized_mesh* q = job->mesh;
    const uint32_t B = (uint32_t)q->bone_count;
    const uint8_t* jb = (const uint8_t*)q->joints.data + v0 * q->joints.stride;
    const uint8_t* wb = (const uint8_t*)q->weights.data + v0 * q->weights.stride;
    size_t js = q->joints.stride;
    SK_V zero = sk_set1(0.0f), w[4], m[12], wsum = zero, p[4], d[4], e[4];
    if (wide_weights) {
        sq_rows16(wb, 0, w);
        for (int i = 0; i < 4; ++i) w[i] = sq_decode_f(SF_QUANT_UNORM16, w[i]);
    } else {
        sq_rows8(wb, w);
        for (int i = 0; i < 4; ++i) w[i] = sq_decode_f(SF_QUANT_UNORM8, w[i]);
    }
    unsigned bad = 0;
    for (int r = 0; r < 12; ++r) m[r] = zero;
    for (int k = 0; k < 4; ++k) p[k] = d[k] = e[k] = zero; /* the rows of an output not asked for */
    if (js == (wide_joints ? 8u : 4u)) {
        /* packed joints: read a step at a time, checked and scaled to record offsets in rows: 12 j + 2^23 is exact
           in float (12 j < 2^20) and holds 12 j in its low 23 bits, taken out with a mask (no conversion per lane);
           an index out of range reads bone 0, as below */
        SK_V jr[4], nb = sk_set1((float)B), twelve = sk_set1(12.0f), two23 = sk_set1(0x1p23f);
        union {
            float f[4][SK_W];
            uint32_t u[4][SK_W];
        } off;
        if (wide_joints) sq_rows16(jb, 0, jr);
        else sq_rows8(jb, jr);
        int permuted = 0;
#ifdef SK_TABLE_RECORDS
        if (job->bone_rows) { /* the bones permuted from rows (sq_range) */
            for (int i = 0; i < 4; ++i) {
                SK_V out = sk_ge(jr[i], nb), g[12];
                bad |= (unsigned)sk_mask(out);
                if (B > SK_TABLE_RECORDS) sk_wide_table_rows_f(job->bone_rows, sk_andnot(out, jr[i]), g);
                else sk_table_rows_f(job->bone_rows, sk_andnot(out, jr[i]), g);
                sq_slot_rows(g, w[i], m, &wsum);
            }
            permuted = 1;
        }
#endif
        for (int i = 0; !permuted && i < 4; ++i) {
            SK_V out = sk_ge(jr[i], nb);
            bad |= (unsigned)sk_mask(out);
            sk_store(off.f[i], sk_add(sk_mul(sk_andnot(out, jr[i]), twelve), two23));
        }
        for (int i = 0; !permuted && i < 4; ++i) {
            const float* rec[SK_W];
            for (int l = 0; l < SK_W; ++l) rec[l] = job->bones + (off.u[i][l] & 0x7fffffu);
            sq_slot(rec, w[i], m, &wsum);
        }
    } else {
        for (int i = 0; i < 4; ++i) {
            const float* rec[SK_W];
            for (int l = 0; l < SK_W; ++l) {
                uint32_t j;
                if (wide_joints) {
                    uint16_t x;
                    memcpy(&x, jb + (size_t)l * js + 2 * i, 2);
                    j = x;
                } else {
                    j = jb[(size_t)l * js + i];
                }
                if (j >= B) bad |= 1u << l, j = 0; /* read in bounds; the call reports the vertex */
                rec[l] = job->bones + 12 * (size_t)j;
            }
            sq_slot(rec, w[i], m, &wsum);
        }
    }
    sf_quant_type pt = q->positions.type;
    if (job->positions) {
        sq_rows16((const uint8_t*)q->positions.data + v0 * 8, pt == SF_QUANT_INT16 || pt == SF_QUANT_SNORM16, p);
        for (int k = 0; k < 3; ++k) p[k] = sq_decode_f(pt, p[k]);
    }
    if (job->normals) {
        sq_rows16((const uint8_t*)q->normals.data + v0 * 8, 1, d);
        for (int k = 0; k < 3; ++k) d[k] = sq_decode_f(SF_QUANT_SNORM16, d[k]);
    }
    if (job->tangents) {
        sq_rows16((const uint8_t*)q->tangents.data + v0 * 8, 1, e);
        for (int k = 0; k < 4; ++k) e[k] = sq_decode_f(SF_QUANT_SNORM16, e[k]);
    }
    return sq_finish(job, v0, valid, m, wsum, p, d, e, bad);
}

/* Steps [v0, end) of whole steps with the vertex after each, by sq_step_wide; the step that fails, or end. */
SK_INLINE size_t sq_wide_steps(const sfi_quant_job* job, size_t v0, size_t end, int wide_joints, int wide_weights,
                               unsigned* bad)
{
    for (; v0 < end; v0 += SK_W)
        if ((*bad = sq_step_wide(job, v0, SK_W, wide_joints, wide_weights))) break;
    return v0;
}

/* `valid` elements of s from vertex v0, elem bytes each, to buf at the given stride (the rest of buf is zero). */
static void sq_pad(const sf_quant_stream* s, size_t v0, size_t valid, size_t elem, size_t stride, uint8_t* buf)
{
    const uint8_t* src = (const uint8_t*)s->data + v0 * s->stride;
    for (size_t l = 0; l < valid; ++l) memcpy(buf + l * stride, src + l * s->stride, elem);
}

/* The mesh's last step (1 to SK_W vertices from v0) by sq_step_wide over copies of its elements in zeroed
 * buffers: the lanes past the mesh read zeros, a weightless vertex at the origin whose results are dropped, and no
 * read passes the last element (which may be shorter than the stride). Returns the step's bad lanes. */
static unsigned sq_tail_wide(const sfi_quant_job* job, size_t v0, size_t valid, int wide_joints, int wide_weights)
{
    const sf_quantized_mesh* q = job->mesh;
    uint8_t jb[(SK_W + 1) * 8], wb[(SK_W + 1) * 8], pb[(SK_W + 1) * 8], nb[(SK_W + 1) * 8], tb[(SK_W + 1) * 8];
    memset(jb, 0, sizeof jb), memset(wb, 0, sizeof wb), memset(pb, 0, sizeof pb), memset(nb, 0, sizeof nb);
    memset(tb, 0, sizeof tb);
    sf_quantized_mesh t = *q;
    size_t js = wide_joints ? 8 : 4, ws = wide_weights ? 8 : 4;
    sq_pad(&q->joints, v0, valid, js, js, jb), t.joints.data = jb, t.joints.stride = js;
    sq_pad(&q->weights, v0, valid, ws, ws, wb), t.weights.data = wb;
    if (job->positions) sq_pad(&q->positions, v0, valid, 6, 8, pb), t.positions.data = pb;
    if (job->normals) sq_pad(&q->normals, v0, valid, 6, 8, nb), t.normals.data = nb;
    if (job->tangents) sq_pad(&q->tangents, v0, valid, 8, 8, tb), t.tangents.data = tb;
    t.vertex_count = valid;
    sfi_quant_job tj = {&t,
                        job->bones,
                        job->positions ? job->positions + 3 * v0 : NULL,
                        job->normals ? job->normals + 3 * v0 : NULL,
                        job->tangents ? job->tangents + 4 * v0 : NULL,
                        job->bone_rows};
    return sq_step_wide(&tj, 0, valid, wide_joints, wide_weights);
}
#endif

SK_INLINE size_t sq_range(const sfi_quant_job* job, size_t begin, size_t end, uint32_t K)
{
    size_t v0 = begin;
    unsigned bad = 0;
#ifdef SQ_WIDE
    const sf_quantized_mesh* q = job->mesh;
#ifdef SK_TABLE_RECORDS
    /* a pose of at most SK_WIDE_TABLE_RECORDS bones as 12 rows of SK_TABLE_RECORDS floats, or of
       SK_WIDE_TABLE_RECORDS where it has more: a slot's bones are then permutes of the rows, not a gather and
       transpose */
    float rows[12 * SK_WIDE_TABLE_RECORDS];
    sfi_quant_job pj = *job;
    if (q->bone_count <= SK_WIDE_TABLE_RECORDS) {
        size_t stride = q->bone_count <= SK_TABLE_RECORDS ? SK_TABLE_RECORDS : SK_WIDE_TABLE_RECORDS;
        memset(rows, 0, sizeof rows);
        for (size_t b = 0; b < q->bone_count; ++b)
            for (size_t r = 0; r < 12; ++r) rows[r * stride + b] = job->bones[12 * b + r];
        pj.bone_rows = rows; /* rows of SK_WIDE_TABLE_RECORDS floats where the pose has more than SK_TABLE_RECORDS */
        job = &pj;
    }
#endif
    /* the wide steps stop before the last vertex's step: each lane reads a whole stride */
    size_t wide_end = end - begin > SK_W ? begin + (end - begin - 1) / SK_W * SK_W : begin;
    int wj = q->joints.type == SF_QUANT_UINT16, ww = q->weights.type == SF_QUANT_UNORM16;
    if (K == 4 && sq_wide_stream(&q->weights, !ww) && (!job->positions || sq_wide_stream(&q->positions, 0)) &&
        (!job->normals || sq_wide_stream(&q->normals, 0)) && (!job->tangents || sq_wide_stream(&q->tangents, 0))) {
        /* the two joint and weight widths as constants, so that each loop is specialised */
        if (wj) v0 = ww ? sq_wide_steps(job, v0, wide_end, 1, 1, &bad) : sq_wide_steps(job, v0, wide_end, 1, 0, &bad);
        else v0 = ww ? sq_wide_steps(job, v0, wide_end, 0, 1, &bad) : sq_wide_steps(job, v0, wide_end, 0, 0, &bad);
        /* the rest (1 to SK_W vertices) in lanes too */
        if (!bad && v0 < end) {
            bad = sq_tail_wide(job, v0, end - v0, wj, ww);
            if (!bad) v0 = end;
        }
    }
#endif
    for (; !bad && v0 < end; v0 += SK_W) {
        size_t valid = end - v0 < SK_W ? end - v0 : SK_W;
        bad = sq_step(job, v0, valid, K);
        if (bad) break;
    }
    if (!bad) return SIZE_MAX;
    size_t first = v0;
    while (!(bad & 1u)) bad >>= 1, ++first;
    return first;
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

/* The jacobian-fan method (sfk_jacobian_fan_vertex) over SK_W vertices per step, written once for every instruction
 * set: skin_sse2.c, skin_avx2.c and skin_avx512.c include it after jacobian_body.h (whose deform, rest basis, morph
 * of the basis, cap test, report and scalar redo it shares) with SJF_ENTRY set to the entry point's name. The
 * weight slots come from the topology's blocked rows (topo->fan_lanes, 6 coefficient rows per slot) where the block
 * has them, the CSR otherwise; the fan normals from its blocked rows. Every value is computed with the scalar
 * kernel's operations in its order, without fused multiply-add, so each lane is bit for bit the scalar kernel:
 *   - a lane past its own slot count adds a slot of the identity with zero coefficients (jacobian_body.h's
 *     argument: +-0 added to sums that start from +0), and SFK_REST_JOINT is the palette's identity, whose
 *     transforms of x, u' and v' differ from the kernel's copies only in the sign of a zero, which the products
 *     with the coefficients then add as +-0 alike;
 *   - lanes that take a rare branch of the kernel are redone by the scalar kernel from the step's deform: a zero
 *     rest or fan normal, the cap firing, J u or J v past SFK_JACOBIAN_SCALE_ABOVE, a zero posed normal, a posed
 *     tangent with nothing off the normal (the arc rotation, or `skinned`'s tangent), and a direction whose squared
 *     length passes FLT_MAX; so are the lanes of the mesh's last, partial step. */

/* One weight slot of the lanes (sfk_jacobian_fan_weight_terms' loop body): pj = A_j x + t_j - P, au = A_j u' - J u,
 * av = A_j v' - J v, then cu += pj g.u + au K_uu + av K_uv and cv += pj g.v + au K_vu + av K_vv in that order; co:
 * the lanes' 6 coefficient rows, bm: their palette records as 12 rows. */
SK_INLINE void sjf_slot_rows(const SK_V* bm, const SK_V* co, const SK_V* x, const SK_V* P, const SK_V* mu,
                             const SK_V* mv, const SK_V* ju, const SK_V* jv, SK_V* cu, SK_V* cv)
{
    for (int k = 0; k < 3; ++k) {
        SK_V pj = sk_sub(sk_add(sk_dot3(bm[k], bm[3 + k], bm[6 + k], x[0], x[1], x[2]), bm[9 + k]), P[k]);
        SK_V au = sk_sub(sk_dot3(bm[k], bm[3 + k], bm[6 + k], mu[0], mu[1], mu[2]), ju[k]);
        SK_V av = sk_sub(sk_dot3(bm[k], bm[3 + k], bm[6 + k], mv[0], mv[1], mv[2]), jv[k]);
        cu[k] = sk_add(sk_add(sk_add(cu[k], sk_mul(pj, co[0])), sk_mul(au, co[2])), sk_mul(av, co[3]));
        cv[k] = sk_add(sk_add(sk_add(cv[k], sk_mul(pj, co[1])), sk_mul(au, co[4])), sk_mul(av, co[5]));
    }
}

/* sjf_slot_rows with the lanes' palette records at rec */
SK_INLINE void sjf_slot(const float* const* rec, const SK_V* co, const SK_V* x, const SK_V* P, const SK_V* mu,
                        const SK_V* mv, const SK_V* ju, const SK_V* jv, SK_V* cu, SK_V* cv)
{
    SK_V bm[12];
    sk_gather(rec, bm);
    sjf_slot_rows(bm, co, x, P, mu, mv, ju, jv, cu, cv);
}

/* The weight terms of one step into cu, cv (from +0), from the block's blocked slots where it has them, else the
 * CSR (padded with the identity). */
SK_INLINE void sjf_weight_terms(const sfi_jacobian_job* job, const float* table, size_t v0, const SK_V* x,
                                const SK_V* P, const SK_V* mu, const SK_V* mv, const SK_V* ju, const SK_V* jv, SK_V* cu,
                                SK_V* cv)
{
    const sfi_gradients* g = job->g;
    const sfi_skin_job* sk = &job->skin;
    const SK_V zero = sk_set1(0.0f);
    const size_t block = v0 / SFI_LANES, F = SFK_JACOBIAN_FAN_SLOT_FLOATS;
    const float* rec[SK_W];
    SK_V co[SFK_JACOBIAN_FAN_SLOT_FLOATS];
    for (int k = 0; k < 3; ++k) cu[k] = zero, cv[k] = zero;
    const sfi_jacobian_lanes* jl = &job->topo->fan_lanes;
    size_t r0 = jl->row_offsets[block];
    if (jl->row_offsets[block + 1] > r0) {
        uint32_t rows = jl->row_offsets[block + 1] - (uint32_t)r0, most = 0;
        for (int l = 0; l < SK_W; ++l) { /* this step's lanes may need fewer rows than the block */
            uint32_t cnt = g->slot_offsets[v0 + (size_t)l + 1] - g->slot_offsets[v0 + (size_t)l];
            most = cnt > most ? cnt : most;
        }
        most = most < rows ? most : rows;
        const uint16_t* J = jl->joint + r0 * SFI_LANES + v0 % SFI_LANES;
        const float* C = jl->coef + F * r0 * SFI_LANES + v0 % SFI_LANES;
        for (uint32_t i = 0; i < most; ++i, J += SFI_LANES, C += F * SFI_LANES) {
            for (size_t f = 0; f < F; ++f) co[f] = sk_load(C + f * SFI_LANES);
#ifndef SK_TABLE_RECORDS
            (void)table;
#else
            if (table) {
                SK_V bm[12];
                sk_table_rows(table, J, bm);
                sjf_slot_rows(bm, co, x, P, mu, mv, ju, jv, cu, cv);
                continue;
            }
#endif
            for (int l = 0; l < SK_W; ++l) rec[l] = sk->palette + 16 * (size_t)J[l];
            sjf_slot(rec, co, x, P, mu, mv, ju, jv, cu, cv);
        }
        return;
    }
    uint32_t so[SK_W], cnt[SK_W], most = 0;
    for (int l = 0; l < SK_W; ++l) {
        so[l] = g->slot_offsets[v0 + (size_t)l];
        cnt[l] = g->slot_offsets[v0 + (size_t)l + 1] - so[l];
        most = cnt[l] > most ? cnt[l] : most;
    }
    const float* identity = sk->palette + 16 * (size_t)sk->identity;
    for (uint32_t i = 0; i < most; ++i) {
        float CO[SFK_JACOBIAN_FAN_SLOT_FLOATS][SK_W];
        for (int l = 0; l < SK_W; ++l) {
            uint32_t e = so[l] + i, j = i < cnt[l] ? g->slot_joint[e] : SFK_REST_JOINT;
            rec[l] = j == SFK_REST_JOINT ? identity : sk->palette + 16 * (size_t)j;
            for (size_t f = 0; f < F; ++f) CO[f][l] = i < cnt[l] ? g->slot_coef[F * e + f] : 0.0f;
        }
        for (size_t f = 0; f < F; ++f) co[f] = sk_load(CO[f]);
        sjf_slot(rec, co, x, P, mu, mv, ju, jv, cu, cv);
    }
}

/* sfk_cross of rows */
SK_INLINE void sjf_cross(const SK_V* a, const SK_V* b, SK_V* out)
{
    SK_V x = sk_sub(sk_mul(a[1], b[2]), sk_mul(a[2], b[1]));
    SK_V y = sk_sub(sk_mul(a[2], b[0]), sk_mul(a[0], b[2]));
    SK_V z = sk_sub(sk_mul(a[0], b[1]), sk_mul(a[1], b[0]));
    out[0] = x, out[1] = y, out[2] = z;
}

/* sfk_orthonormal_tangent in place; returns the lanes where it succeeded (t zero elsewhere). */
SK_INLINE SK_V sjf_orthonormal(const SK_V* n, SK_V* t, SK_V* big)
{
    SK_V d = sk_dot3(n[0], n[1], n[2], t[0], t[1], t[2]);
    for (int k = 0; k < 3; ++k) t[k] = sk_sub(t[k], sk_mul(n[k], d));
    return sk_safe_unit(&t[0], &t[1], &t[2], big);
}

/* sfk_frame_rotate: R w for the rotation (n0, t0, b0 = n0 x t0) -> (n1, t1, b1 = n1 x t1). */
SK_INLINE void sjf_rotate(const SK_V* n0, const SK_V* t0, const SK_V* b0, const SK_V* n1, const SK_V* t1,
                          const SK_V* b1, const SK_V* w, SK_V* out)
{
    SK_V a = sk_dot3(n0[0], n0[1], n0[2], w[0], w[1], w[2]), b = sk_dot3(t0[0], t0[1], t0[2], w[0], w[1], w[2]);
    SK_V c = sk_dot3(b0[0], b0[1], b0[2], w[0], w[1], w[2]);
    for (int k = 0; k < 3; ++k) out[k] = sk_add(sk_add(sk_mul(n1[k], a), sk_mul(t1[k], b)), sk_mul(b1[k], c));
}

SK_INLINE void sjf_step(const sfi_jacobian_job* job, const float* table, size_t v0, size_t valid, uint32_t K,
                        int deformed, sfi_skin_counts* c)
{
    const SK_V zero = sk_set1(0.0f), minus = sk_set1(-1.0f), all = sk_eq(zero, zero);
    SK_V n0[3], t0[4], x[3], P[3], m[12], det;
    if (!sj_deform(job, v0, valid, K, deformed, n0, t0, x, m, &det, P, c)) return;
    SK_V mirrored = sk_lt(det, zero), big = zero;
    /* the unit authored normal, and the basis (u, v) of the fan normal */
    SK_V na[3] = {n0[0], n0[1], n0[2]}, nf[3], u[3], v[3];
    SK_V redo = sk_andnot(sk_safe_unit(&na[0], &na[1], &na[2], &big), all);
    const float* NF = job->topo->fan_lanes.normal + v0 / SFI_LANES * 3 * SFI_LANES + v0 % SFI_LANES;
    for (int k = 0; k < 3; ++k) nf[k] = sk_load(NF + k * SFI_LANES);
    redo = sk_or(redo, sj_rest_basis(nf, &big, u, v));
    SK_V mu[3] = {u[0], u[1], u[2]}, mv[3] = {v[0], v[1], v[2]};
    sj_morph_basis(job, v0, mu, mv);
    SK_V ju[3], jv[3];
    for (int k = 0; k < 3; ++k) {
        ju[k] = sk_dot3(m[k], m[3 + k], m[6 + k], mu[0], mu[1], mu[2]);
        jv[k] = sk_dot3(m[k], m[3 + k], m[6 + k], mv[0], mv[1], mv[2]);
    }
    SK_V cu[3], cv[3];
    sjf_weight_terms(job, table, v0, x, P, mu, mv, ju, jv, cu, cv);
    if (job->cap > 0.0f) {
        SK_V cap = sk_set1(job->cap);
        redo = sk_or(redo, sk_andnot(sk_and(sj_cap_quiet(cu, ju, cap), sj_cap_quiet(cv, jv, cap)), all));
    }
    for (int k = 0; k < 3; ++k) ju[k] = sk_add(ju[k], cu[k]), jv[k] = sk_add(jv[k], cv[k]);
    SK_V sign = sk_set1(-0.0f), above = sk_set1(SFK_JACOBIAN_SCALE_ABOVE), still = all;
    for (int k = 0; k < 3; ++k) {
        redo = sk_or(redo, sk_or(sk_gt(sk_andnot(sign, ju[k]), above), sk_gt(sk_andnot(sign, jv[k]), above)));
        still = sk_and(still, sk_and(sk_eq(ju[k], u[k]), sk_eq(jv[k], v[k])));
    }
    /* the posed fan normal n1 = unit(sign(det) J u x J v); none: redone */
    SK_V n1[3];
    sjf_cross(ju, jv, n1);
    for (int k = 0; k < 3; ++k) n1[k] = sk_select(mirrored, sk_mul(n1[k], minus), n1[k]);
    SK_V moving = sk_andnot(still, all);
    redo = sk_or(redo, sk_and(moving, sk_andnot(sk_safe_unit(&n1[0], &n1[1], &n1[2], &big), all)));
    /* the fan's rest frame (nr, tr): tr the authored tangent in the fan plane, else u */
    SK_V nr[3], tr[3] = {t0[0], t0[1], t0[2]};
    sjf_cross(u, v, nr);
    SK_V tr_ok = sjf_orthonormal(nr, tr, &big);
    for (int k = 0; k < 3; ++k) tr[k] = sk_select(tr_ok, tr[k], u[k]);
    SK_V tu = sk_dot3(tr[0], tr[1], tr[2], u[0], u[1], u[2]), tv = sk_dot3(tr[0], tr[1], tr[2], v[0], v[1], v[2]);
    SK_V t1[3];
    for (int k = 0; k < 3; ++k) t1[k] = sk_add(sk_mul(ju[k], tu), sk_mul(jv[k], tv));
    redo = sk_or(redo, sk_and(moving, sk_andnot(sjf_orthonormal(n1, t1, &big), all))); /* the arc rotation */
    SK_V b0[3], b1[3], N[3], T[4];
    sjf_cross(nr, tr, b0);
    sjf_cross(n1, t1, b1);
    sjf_rotate(nr, tr, b0, n1, t1, b1, na, N);
    sjf_rotate(nr, tr, b0, n1, t1, b1, t0, T);
    sk_safe_unit(&N[0], &N[1], &N[2], &big);
    SK_V t_ok = sjf_orthonormal(N, T, &big);
    if (sk_mask(sk_andnot(t_ok, moving))) { /* nothing off the normal (no tangents): carried as `skinned` does */
        SK_V ts[3];
        for (int k = 0; k < 3; ++k) ts[k] = sk_dot3(m[k], m[3 + k], m[6 + k], t0[0], t0[1], t0[2]);
        sk_safe_unit(&ts[0], &ts[1], &ts[2], &big);
        for (int k = 0; k < 3; ++k) T[k] = sk_select(t_ok, T[k], ts[k]);
    }
    if (sk_mask(still)) { /* the fan plane does not move: the authored frame */
        SK_V ts[3] = {t0[0], t0[1], t0[2]};
        sk_safe_unit(&ts[0], &ts[1], &ts[2], &big);
        for (int k = 0; k < 3; ++k) N[k] = sk_select(still, na[k], N[k]), T[k] = sk_select(still, ts[k], T[k]);
    }
    T[3] = sk_select(mirrored, sk_mul(t0[3], minus), t0[3]);
    if (job->normals) sk_store3(job->normals + 3 * v0, N[0], N[1], N[2]);
    if (job->tangents) sk_store4(job->tangents + 4 * v0, T[0], T[1], T[2], T[3]);
    memset(job->ws->jacobian->capped + v0, 0, SK_W);
    unsigned redone = (unsigned)sk_mask(sk_or(redo, big)), live = ((1u << SK_W) - 1u) & ~redone;
    sj_report(job, v0, P, N, T, mirrored, live, c);
    if (redone) sj_scalar(job, v0, redone, m, det, x, P, c);
}

SK_INLINE void sjf_range(const sfi_jacobian_job* job, size_t begin, size_t end, uint32_t K, int deformed,
                         sfi_skin_counts* c)
{
    const float* table = NULL;
#ifdef SK_TABLE_RECORDS
    /* a palette of at most SK_TABLE_RECORDS records (the identity included) as 12 rows of that many floats: a slot's
       records are then permutes of the rows, not a gather and transpose */
    float rows[12 * SK_TABLE_RECORDS];
    if (job->skin.identity < SK_TABLE_RECORDS) {
        memset(rows, 0, sizeof rows);
        for (uint32_t b = 0; b <= job->skin.identity; ++b)
            for (int r = 0; r < 12; ++r) rows[r * SK_TABLE_RECORDS + b] = job->skin.palette[16 * (size_t)b + (size_t)r];
        table = rows;
    }
#endif
    /* the table's presence constant in each loop, so that the gathering one is the same code as without tables */
    if (table)
        for (size_t v = begin; v < end; v += SK_W) sjf_step(job, table, v, end - v < SK_W ? end - v : SK_W, K, deformed, c);
    else
        for (size_t v = begin; v < end; v += SK_W) sjf_step(job, NULL, v, end - v < SK_W ? end - v : SK_W, K, deformed, c);
}

/* Vertices [begin, end), begin a multiple of SFI_LANES (jacobian.c's chunks), the blend specialised for 1 to 4
 * influences as the fused pass's, or one loop reading the workspace's deform; the report into c. */
void SJF_ENTRY(const sfi_jacobian_job* job, size_t begin, size_t end, sfi_skin_counts* c)
{
    if (job->deformed) {
        sjf_range(job, begin, end, 0u, 1, c);
        return;
    }
    switch (job->skin.lanes->influences) {
    case 1: sjf_range(job, begin, end, 1u, 0, c); break;
    case 2: sjf_range(job, begin, end, 2u, 0, c); break;
    case 3: sjf_range(job, begin, end, 3u, 0, c); break;
    case 4: sjf_range(job, begin, end, 4u, 0, c); break;
    default: sjf_range(job, begin, end, job->skin.lanes->influences, 0, c); break;
    }
}

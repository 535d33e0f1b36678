/* The jacobian method (sfk_jacobian_vertex) over SK_W vertices per step, written once for every instruction set:
 * skin_sse2.c, skin_avx2.c and skin_avx512.c include it after skin_body.h (whose vector operations and helpers it
 * uses: the morph, blend, determinant and skinned point of the fused pass, sk_gather of SK_W 12-float records) with
 * SJ_ENTRY set to the entry point's name (without it, only the helpers that jacobian_fan_body.h shares). Each step
 * deforms its vertices itself from the topology's lanes (lanes.c: the rest, the morph, the blend), or reads the
 * deform an evaluation's reference left in the workspace (job->deformed), keeps it in registers and writes only the
 * outputs (positions, normals, tangents); the weight-gradient slots come from the
 * topology's blocked rows where the block has them (jacobian_lanes.c; the CSR otherwise), and it counts frames.c's
 * report. Every value is computed with the scalar kernel's operations in its order, without fused multiply-add, so
 * each lane is bit for bit the scalar deform and kernel:
 *   - the weight-gradient slots of a step run to the largest slot count of its lanes; a lane past its own count
 *     adds a slot of the identity with zero coefficients (so padded in the blocked rows too), which adds +-0 to
 *     sums that are never -0 (they start from +0): the scalar's shorter loop. SFK_REST_JOINT is the palette's
 *     identity, whose transform of x gives x but for the sign of a zero, which the product with the coefficient
 *     then adds as +-0 alike;
 *   - lanes that take a rare branch of the kernel are redone by the scalar kernel from the step's deform: a zero
 *     rest normal, the cap firing (or its squares passing FLT_MAX), J u or J v past SFK_JACOBIAN_SCALE_ABOVE, and
 *     a direction whose squared length passes FLT_MAX (sfk_safe_unit's rescaled branch); so are the lanes of the
 *     mesh's last, partial step. */

/* Lanes that sfk_jacobian_cap(c, base, cap) leaves alone without its overflow branch: squares within float and
 * |c|^2 not above (cap |base|)^2. The others are redone. */
static inline SK_V sj_cap_quiet(const SK_V* c, const SK_V* base, SK_V cap)
{
    SK_V lc2 = sk_dot3(c[0], c[1], c[2], c[0], c[1], c[2]);
    SK_V lb2 = sk_dot3(base[0], base[1], base[2], base[0], base[1], base[2]);
    SK_V lim = sk_mul(cap, sk_sqrt(lb2));
    SK_V lim2 = sk_mul(lim, lim), fmax = sk_set1(FLT_MAX);
    SK_V in_range = sk_and(sk_and(sk_ge(fmax, lc2), sk_ge(fmax, lb2)), sk_ge(fmax, lim2));
    return sk_and(in_range, sk_ge(lim2, lc2)); /* !(lc2 > lim2) on finite values */
}

/* One weight-gradient slot of the lanes: (A_j x + t_j - P) (g.u, g.v) added to cu, cv; rec: the lanes' palette
 * records. */
SK_INLINE void sj_slot(const float* const* rec, SK_V gu, SK_V gv, const SK_V* x, const SK_V* P, SK_V* cu, SK_V* cv)
{
    SK_V bm[12];
    sk_gather(rec, bm);
    for (int k = 0; k < 3; ++k) {
        SK_V pj = sk_sub(sk_add(sk_dot3(bm[k], bm[3 + k], bm[6 + k], x[0], x[1], x[2]), bm[9 + k]), P[k]);
        cu[k] = sk_add(cu[k], sk_mul(pj, gu));
        cv[k] = sk_add(cv[k], sk_mul(pj, gv));
    }
}

/* The lanes in `lanes` by the scalar kernel from the step's deform rows (m, det, morphed x, final P). */
static void sj_scalar(const sfi_jacobian_job* job, size_t v0, unsigned lanes, const SK_V* m, SK_V det, const SK_V* x,
                      const SK_V* P, sfi_skin_counts* c)
{
    float M[12][SK_W], D[SK_W], X[3][SK_W], F[3][SK_W];
    for (int k = 0; k < 12; ++k) sk_store(M[k], m[k]);
    for (int k = 0; k < 3; ++k) sk_store(X[k], x[k]), sk_store(F[k], P[k]);
    sk_store(D, det);
    for (int l = 0; l < SK_W; ++l) {
        if (!(lanes >> l & 1u)) continue;
        float ml[12], xl[3] = {X[0][l], X[1][l], X[2][l]}, Pl[3] = {F[0][l], F[1][l], F[2][l]};
        for (int k = 0; k < 12; ++k) ml[k] = M[k][l];
        sfi_jacobian_vertex_at(job, v0 + (size_t)l, ml, D[l], xl, Pl, c);
    }
}

/* sfk_rest_basis of one step: the unit rest normal, then sfk_tangent_basis into u and v. Returns the lanes whose
 * rest normal is degenerate (the scalar kernel redoes them); big as sk_safe_unit's. */
SK_INLINE SK_V sj_rest_basis(const SK_V* n0, SK_V* big, SK_V* u, SK_V* v)
{
    const SK_V zero = sk_set1(0.0f), one = sk_set1(1.0f), minus = sk_set1(-1.0f), all = sk_eq(zero, zero);
    SK_V nu[3] = {n0[0], n0[1], n0[2]};
    SK_V redo = sk_andnot(sk_safe_unit(&nu[0], &nu[1], &nu[2], big), all);
    SK_V s = sk_select(sk_ge(nu[2], zero), one, minus);
    SK_V a = sk_div(minus, sk_add(s, nu[2]));
    SK_V b = sk_mul(sk_mul(nu[0], nu[1]), a);
    u[0] = sk_add(one, sk_mul(sk_mul(sk_mul(s, nu[0]), nu[0]), a));
    u[1] = sk_mul(s, b);
    u[2] = sk_mul(sk_mul(s, minus), nu[0]);
    v[0] = b;
    v[1] = sk_add(s, sk_mul(sk_mul(nu[1], nu[1]), a));
    v[2] = sk_mul(nu[1], minus);
    return redo;
}

/* u' = u + sum alpha_k D_k u (likewise v) in place: lane l's i-th entry at step i, so each lane adds its terms in
 * the kernel's order; an entry whose alpha is 0 (as the kernel skips it) or past the lane's list leaves it as it
 * is (adding +0 would turn a -0 into +0). */
SK_INLINE void sj_morph_basis(const sfi_jacobian_job* job, size_t v0, SK_V* mu, SK_V* mv)
{
    const sfi_gradients* g = job->g;
    const uint32_t* mo = g->morph_offsets;
    if (!job->alpha || !(mo[v0 + SK_W] > mo[v0])) return;
    const SK_V zero = sk_set1(0.0f), all = sk_eq(zero, zero);
    uint32_t most = 0;
    for (int l = 0; l < SK_W; ++l) {
        uint32_t cnt = mo[v0 + (size_t)l + 1] - mo[v0 + (size_t)l];
        most = cnt > most ? cnt : most;
    }
    for (uint32_t i = 0; i < most; ++i) {
        float AL[SK_W], D[6][SK_W];
        for (int l = 0; l < SK_W; ++l) {
            uint32_t e = mo[v0 + (size_t)l] + i;
            int has = e < mo[v0 + (size_t)l + 1];
            const float* d = g->morph_duv + 6 * (size_t)e;
            AL[l] = has ? job->alpha[g->morph_target[e]] : 0.0f;
            for (int k = 0; k < 6; ++k) D[k][l] = has ? d[k] : 0.0f;
        }
        SK_V al = sk_load(AL), take = sk_andnot(sk_eq(al, zero), all);
        for (int k = 0; k < 3; ++k) {
            mu[k] = sk_select(take, sk_add(mu[k], sk_mul(sk_load(D[k]), al)), mu[k]);
            mv[k] = sk_select(take, sk_add(mv[k], sk_mul(sk_load(D[3 + k]), al)), mv[k]);
        }
    }
}

/* The weight-gradient term of one step into cu, cv (from +0): per slot (A_j x + t_j - P) (g.u, g.v), from the
 * block's blocked slots (lane l's slot i at row i, padded with the identity) where it has them, else the CSR. */
SK_INLINE void sj_weight_term(const sfi_jacobian_job* job, size_t v0, const SK_V* x, const SK_V* P, SK_V* cu, SK_V* cv)
{
    const sfi_gradients* g = job->g;
    const sfi_skin_job* sk = &job->skin;
    const SK_V zero = sk_set1(0.0f);
    const size_t block = v0 / SFI_LANES;
    const float* rec[SK_W];
    uint32_t so[SK_W], cnt[SK_W], most = 0;
    for (int l = 0; l < SK_W; ++l) {
        so[l] = g->slot_offsets[v0 + (size_t)l];
        cnt[l] = g->slot_offsets[v0 + (size_t)l + 1] - so[l];
        most = cnt[l] > most ? cnt[l] : most;
    }
    for (int k = 0; k < 3; ++k) cu[k] = zero, cv[k] = zero;
    const sfi_jacobian_lanes* jl = &job->topo->jacobian_lanes;
    size_t r0 = jl->row_offsets ? jl->row_offsets[block] : 0;
    if (jl->row_offsets && jl->row_offsets[block + 1] > r0) {
        const uint16_t* J = jl->joint + r0 * SFI_LANES + v0 % SFI_LANES;
        const float* C = jl->coef + 2 * r0 * SFI_LANES + v0 % SFI_LANES;
        for (uint32_t i = 0; i < most; ++i, J += SFI_LANES, C += 2 * SFI_LANES) {
            for (int l = 0; l < SK_W; ++l) rec[l] = sk->palette + 16 * (size_t)J[l];
            sj_slot(rec, sk_load(C), sk_load(C + SFI_LANES), x, P, cu, cv);
        }
        return;
    }
    const float* identity = sk->palette + 16 * (size_t)sk->identity;
    for (uint32_t i = 0; i < most; ++i) {
        float GU[SK_W], GV[SK_W];
        for (int l = 0; l < SK_W; ++l) {
            if (i < cnt[l]) {
                uint32_t e = so[l] + i, j = g->slot_joint[e];
                rec[l] = j == SFK_REST_JOINT ? identity : sk->palette + 16 * (size_t)j;
                GU[l] = g->slot_coef[2 * (size_t)e];
                GV[l] = g->slot_coef[2 * (size_t)e + 1];
            } else {
                rec[l] = identity;
                GU[l] = GV[l] = 0.0f;
            }
        }
        sj_slot(rec, sk_load(GU), sk_load(GV), x, P, cu, cv);
    }
}

/* frames.c's report of one step's kept lanes (live; count_range's tests on these values); without UVs the
 * tangents are zeroed afterwards. One finiteness test for the step: a sum of the outputs is finite when every
 * one is (a sum that overflows sends the step to the exact test per lane). */
SK_INLINE void sj_report(const sfi_jacobian_job* job, size_t v0, const SK_V* P, const SK_V* N, const SK_V* T,
                         SK_V mirrored, unsigned live, sfi_skin_counts* c)
{
    const SK_V zero = sk_set1(0.0f);
    int want_t = job->tangents && job->topo->has_uvs;
    c->mirrored += (size_t)sk_popcount((unsigned)sk_mask(mirrored) & live);
    SK_V sum = job->positions ? sk_add(sk_add(P[0], P[1]), P[2]) : zero;
    if (job->normals) {
        c->degenerate_normals += (size_t)sk_popcount((unsigned)sk_mask(sk_eq(sk_dot3(N[0], N[1], N[2], N[0], N[1], N[2]), zero)) & live);
        sum = sk_add(sum, sk_add(sk_add(N[0], N[1]), N[2]));
    }
    if (want_t) {
        c->degenerate_tangents += (size_t)sk_popcount((unsigned)sk_mask(sk_eq(sk_dot3(T[0], T[1], T[2], T[0], T[1], T[2]), zero)) & live);
        sum = sk_add(sum, sk_add(sk_add(T[0], T[1]), sk_add(T[2], T[3])));
    }
    if ((unsigned)sk_mask(sk_not_finite(sum)) & live) {
        SK_V bad = zero;
        for (int k = 0; job->positions && k < 3; ++k) bad = sk_or(bad, sk_not_finite(P[k]));
        for (int k = 0; job->normals && k < 3; ++k) bad = sk_or(bad, sk_not_finite(N[k]));
        for (int k = 0; want_t && k < 4; ++k) bad = sk_or(bad, sk_not_finite(T[k]));
        sk_note_bad(c, v0, (unsigned)sk_mask(bad) & live);
    }
}

/* The deform of one step of SK_W vertices from v0 (a multiple of SK_W), valid of them real: the rest normal n0 and
 * tangent t0, the morphed position x, the blended matrix m, its determinant and the final position P (written to
 * the job's positions); computed as the fused pass does (sk_step's morph, blend of K influences and point), or read
 * from the workspace where `deformed` (a constant of the caller's loop). Returns 0 when the step is the mesh's
 * last, partial one, whose vertices it has handed to the scalar kernel (their slots and morph gradients past the
 * end are not there). */
SK_INLINE int sj_deform(const sfi_jacobian_job* job, size_t v0, size_t valid, uint32_t K, int deformed, SK_V* n0,
                        SK_V* t0, SK_V* x, SK_V* m, SK_V* det, SK_V* P, sfi_skin_counts* c)
{
    const sfi_skin_job* sk = &job->skin;
    const size_t block = v0 / SFI_LANES;
    const int sub = (int)(v0 % SFI_LANES) / SK_W;
    const float* R = sk->lanes->rest + block * SFI_LANE_ROWS * SFI_LANES + (size_t)sub * SK_W;
    for (int k = 0; k < 3; ++k) {
        x[k] = sk_load(R + k * SFI_LANES);
        n0[k] = sk_load(R + (3 + k) * SFI_LANES);
    }
    for (int k = 0; k < 4; ++k) t0[k] = sk_load(R + (6 + k) * SFI_LANES);
    if (deformed) { /* the morphed and final positions, the blended matrices and determinants of ws's deform */
        const float* const src[2] = {job->ws->morph_pos, job->ws->final_pos};
        SK_V rows[2][3];
        sk_deform_lanes(job->ws, v0, valid, src, rows, m, det);
        for (int k = 0; k < 3; ++k) x[k] = rows[0][k], P[k] = rows[1][k];
    } else {
        sk_morph_step(sk, block, sub, v0, valid, x, n0, t0); /* positions only: n0 and t0 keep their bits */
        sk_blend(sk, block, sub, K, m);
        sk_point(m, x, P);
        *det = sk_det(m);
    }
    if (job->positions) sk_put3(job->positions + 3 * v0, valid, P[0], P[1], P[2]);
    if (valid < SK_W) {
        sj_scalar(job, v0, (1u << valid) - 1u, m, *det, x, P, c);
        return 0;
    }
    return 1;
}

/* One step of SK_W vertices from v0 (a multiple of SK_W), valid of them real: the deform (sj_deform), then the
 * jacobian; the report added to c. */
SK_INLINE void sj_step(const sfi_jacobian_job* job, size_t v0, size_t valid, uint32_t K, int deformed,
                       sfi_skin_counts* c)
{
    const SK_V zero = sk_set1(0.0f), minus = sk_set1(-1.0f), all = sk_eq(zero, zero);
    SK_V n0[3], t0[4], x[3], P[3], m[12], det;
    if (!sj_deform(job, v0, valid, K, deformed, n0, t0, x, m, &det, P, c)) return;
    SK_V mirrored = sk_lt(det, zero);
    SK_V big = zero, u[3], v[3];
    SK_V redo = sj_rest_basis(n0, &big, u, v);
    SK_V mu[3] = {u[0], u[1], u[2]}, mv[3] = {v[0], v[1], v[2]};
    sj_morph_basis(job, v0, mu, mv);
    SK_V ju[3], jv[3];
    for (int k = 0; k < 3; ++k) {
        ju[k] = sk_dot3(m[k], m[3 + k], m[6 + k], mu[0], mu[1], mu[2]);
        jv[k] = sk_dot3(m[k], m[3 + k], m[6 + k], mv[0], mv[1], mv[2]);
    }
    SK_V cu[3], cv[3];
    sj_weight_term(job, v0, x, P, cu, cv);
    if (job->cap > 0.0f) {
        SK_V cap = sk_set1(job->cap);
        redo = sk_or(redo, sk_andnot(sk_and(sj_cap_quiet(cu, ju, cap), sj_cap_quiet(cv, jv, cap)), all));
    }
    for (int k = 0; k < 3; ++k) ju[k] = sk_add(ju[k], cu[k]), jv[k] = sk_add(jv[k], cv[k]);
    /* past SFK_JACOBIAN_SCALE_ABOVE the kernel rescales: redone */
    SK_V sign = sk_set1(-0.0f), above = sk_set1(SFK_JACOBIAN_SCALE_ABOVE);
    for (int k = 0; k < 3; ++k)
        redo = sk_or(redo, sk_or(sk_gt(sk_andnot(sign, ju[k]), above), sk_gt(sk_andnot(sign, jv[k]), above)));

    /* normal: sign(det) J u x J v */
    SK_V N[3] = {sk_sub(sk_mul(ju[1], jv[2]), sk_mul(ju[2], jv[1])), sk_sub(sk_mul(ju[2], jv[0]), sk_mul(ju[0], jv[2])),
                 sk_sub(sk_mul(ju[0], jv[1]), sk_mul(ju[1], jv[0]))};
    for (int k = 0; k < 3; ++k) N[k] = sk_select(mirrored, sk_mul(N[k], minus), N[k]);
    sk_safe_unit(&N[0], &N[1], &N[2], &big);
    /* tangent: J t0 in the rest plane, Gram-Schmidt against the normal; `skinned`'s where nothing is left */
    SK_V tu = sk_dot3(t0[0], t0[1], t0[2], u[0], u[1], u[2]), tv = sk_dot3(t0[0], t0[1], t0[2], v[0], v[1], v[2]);
    SK_V T[4];
    for (int k = 0; k < 3; ++k) T[k] = sk_add(sk_mul(ju[k], tu), sk_mul(jv[k], tv));
    SK_V d = sk_dot3(N[0], N[1], N[2], T[0], T[1], T[2]);
    for (int k = 0; k < 3; ++k) T[k] = sk_sub(T[k], sk_mul(N[k], d));
    SK_V t_ok = sk_safe_unit(&T[0], &T[1], &T[2], &big);
    if ((unsigned)sk_mask(t_ok) != (1u << SK_W) - 1u) {
        SK_V ts[3];
        for (int k = 0; k < 3; ++k) ts[k] = sk_dot3(m[k], m[3 + k], m[6 + k], t0[0], t0[1], t0[2]);
        sk_safe_unit(&ts[0], &ts[1], &ts[2], &big);
        for (int k = 0; k < 3; ++k) T[k] = sk_select(t_ok, T[k], ts[k]);
    }
    T[3] = sk_select(mirrored, sk_mul(t0[3], minus), t0[3]);
    if (job->normals) sk_store3(job->normals + 3 * v0, N[0], N[1], N[2]);
    if (job->tangents) sk_store4(job->tangents + 4 * v0, T[0], T[1], T[2], T[3]);
    memset(job->ws->jacobian->capped + v0, 0, SK_W);
    unsigned redone = (unsigned)sk_mask(sk_or(redo, big)), live = ((1u << SK_W) - 1u) & ~redone;
    sj_report(job, v0, P, N, T, mirrored, live, c);
    if (redone) sj_scalar(job, v0, redone, m, det, x, P, c);
}

SK_INLINE void sj_range(const sfi_jacobian_job* job, size_t begin, size_t end, uint32_t K, int deformed,
                        sfi_skin_counts* c)
{
    for (size_t v = begin; v < end; v += SK_W) sj_step(job, v, end - v < SK_W ? end - v : SK_W, K, deformed, c);
}

#ifdef SJ_ENTRY
/* Vertices [begin, end), begin a multiple of SFI_LANES (jacobian.c's chunks): steps in the lanes' blocks, the blend
 * specialised for 1 to 4 influences as the fused pass's, or one loop reading the workspace's deform; the report
 * into c. */
void SJ_ENTRY(const sfi_jacobian_job* job, size_t begin, size_t end, sfi_skin_counts* c)
{
    if (job->deformed) {
        sj_range(job, begin, end, 0u, 1, c);
        return;
    }
    switch (job->skin.lanes->influences) {
    case 1: sj_range(job, begin, end, 1u, 0, c); break;
    case 2: sj_range(job, begin, end, 2u, 0, c); break;
    case 3: sj_range(job, begin, end, 3u, 0, c); break;
    case 4: sj_range(job, begin, end, 4u, 0, c); break;
    default: sj_range(job, begin, end, job->skin.lanes->influences, 0, c); break;
    }
}
#endif

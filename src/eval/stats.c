/* Per-method statistics over every frame and vertex of a clip, in memory that does not grow with the
 * clip: the core's sf_angle_accumulator, plus the worst frame and the worst vertices. */
#include "eval_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

sf_result sf_method_stats_create(sf_method_stats* m, const sf_method* methods, size_t count, sf_error* err)
{
    memset(m, 0, SF_METHOD_COUNT * sizeof *m);
    for (size_t k = 0; k < count; ++k) {
        sf_method_stats* s = &m[methods[k]];
        s->on = true;
        sf_error e;
        if (sf_angle_accumulator_create(NULL, &s->normal_acc, &e) != SF_OK ||
            sf_angle_accumulator_create(NULL, &s->tangent_acc, &e) != SF_OK)
            return sfi_eval_fail(err, e.result, "statistics: %s", e.message);
    }
    return SF_OK;
}

void sf_method_stats_free(sf_method_stats* m)
{
    for (int k = 0; k < SF_METHOD_COUNT; ++k) {
        sf_angle_accumulator_destroy(m[k].normal_acc);
        sf_angle_accumulator_destroy(m[k].tangent_acc);
        m[k].normal_acc = m[k].tangent_acc = NULL;
    }
}

void sf_method_stats_clip_start(sf_method_stats* m)
{
    sf_angle_accumulator_reset(m->normal_acc);
    sf_angle_accumulator_reset(m->tangent_acc);
    memset(&m->normal, 0, sizeof m->normal);
    memset(&m->tangent, 0, sizeof m->tangent);
    m->handedness = 0;
    m->pos_sum = m->pos_max = m->pos_diagonal = 0.0;
    m->pos_count = 0;
    m->worst_frame_mean = -1.0;
    m->worst_frame = 0;
    m->worst_n = m->worst_t = -1.0;
    m->worst_n_unit = m->worst_n_vertex = m->worst_n_frame = 0;
    m->worst_t_unit = m->worst_t_vertex = m->worst_t_frame = 0;
    m->clip_sn = m->clip_sn2 = m->clip_st = m->clip_st2 = 0.0;
}

void sf_method_stats_frame_start(sf_method_stats* m)
{
    m->frame_sn = m->frame_st = m->frame_sn2 = m->frame_st2 = 0.0;
    m->frame_mn = m->frame_mt = 0.0f;
    m->frame_cn = m->frame_ct = 0;
}

sf_result sf_method_stats_add(sf_method_stats* m, const float* normal_deg, const float* tangent_deg, size_t n,
                              size_t unit, size_t frame, bool track_worst, sf_error* err)
{
    /* The frame's sums run over the units in order, then their vertices: the order the pooled arrays of
     * earlier versions had, so the per-frame means (CSV, worst frame) keep their bits. */
    for (size_t v = 0; v < n; ++v) {
        float a = normal_deg[v];
        m->frame_sn += a;
        m->frame_sn2 += (double)a * a;
        if (a > m->frame_mn) m->frame_mn = a;
        if (track_worst && a > m->worst_n) {
            m->worst_n = a;
            m->worst_n_unit = unit;
            m->worst_n_vertex = v;
            m->worst_n_frame = frame;
        }
        if (tangent_deg) {
            float t = tangent_deg[v];
            m->frame_st += t;
            m->frame_st2 += (double)t * t;
            if (t > m->frame_mt) m->frame_mt = t;
            if (track_worst && t > m->worst_t) {
                m->worst_t = t;
                m->worst_t_unit = unit;
                m->worst_t_vertex = v;
                m->worst_t_frame = frame;
            }
        }
    }
    m->frame_cn += n;
    if (tangent_deg) m->frame_ct += n;
    sf_error e;
    if (sf_angle_accumulator_add(m->normal_acc, normal_deg, n, &e) != SF_OK ||
        (tangent_deg && sf_angle_accumulator_add(m->tangent_acc, tangent_deg, n, &e) != SF_OK))
        return sfi_eval_fail(err, e.result, "statistics: %s", e.message);
    return SF_OK;
}

sf_result sf_method_stats_add_summary(sf_method_stats* m, const sf_evaluation* ev, size_t k, bool tangents,
                                      size_t unit, size_t frame, bool track_worst, sf_error* err)
{
    const sf_error_summary* es = &sf_evaluation_results(ev)->rows[k].errors;
    m->frame_sn += es->normal.mean * (double)es->normal.count;
    if (es->normal.max > m->frame_mn) m->frame_mn = (float)es->normal.max;
    if (track_worst && es->normal.count && es->normal.max > m->worst_n) {
        m->worst_n = es->normal.max;
        m->worst_n_unit = unit;
        m->worst_n_vertex = es->worst_normal_vertex;
        m->worst_n_frame = frame;
    }
    if (tangents) {
        m->frame_st += es->tangent.mean * (double)es->tangent.count;
        if (es->tangent.max > m->frame_mt) m->frame_mt = (float)es->tangent.max;
        if (track_worst && es->tangent.count && es->tangent.max > m->worst_t) {
            m->worst_t = es->tangent.max;
            m->worst_t_unit = unit;
            m->worst_t_vertex = es->worst_tangent_vertex;
            m->worst_t_frame = frame;
        }
        m->frame_ct += es->tangent.count;
    }
    m->frame_cn += es->normal.count;
    sf_error e;
    if (sf_evaluation_accumulate(ev, k, m->normal_acc, tangents ? m->tangent_acc : NULL, &e) != SF_OK)
        return sfi_eval_fail(err, e.result, "statistics: %s", e.message);
    return SF_OK;
}

void sfi_method_stats_add_pose(sf_method_stats* m, const sf_pose_errors* p, size_t n, bool tangents, size_t unit,
                               size_t frame)
{
    m->frame_sn += p->normal_sum;
    if (n && p->normal_max > m->frame_mn) m->frame_mn = p->normal_max;
    if (n && p->normal_max > m->worst_n) {
        m->worst_n = p->normal_max;
        m->worst_n_unit = unit;
        m->worst_n_vertex = p->worst_normal_vertex;
        m->worst_n_frame = frame;
    }
    m->frame_cn += n;
    if (!tangents) return;
    m->frame_st += p->tangent_sum;
    if (n && p->tangent_max > m->frame_mt) m->frame_mt = p->tangent_max;
    if (n && p->tangent_max > m->worst_t) {
        m->worst_t = p->tangent_max;
        m->worst_t_unit = unit;
        m->worst_t_vertex = p->worst_tangent_vertex;
        m->worst_t_frame = frame;
    }
    m->frame_ct += n;
    m->handedness += p->handedness_mismatches;
}

void sf_method_stats_frame_end(sf_method_stats* m, size_t frame)
{
    m->clip_sn += m->frame_sn, m->clip_sn2 += m->frame_sn2;
    m->clip_st += m->frame_st, m->clip_st2 += m->frame_st2;
    double mean = m->frame_cn ? m->frame_sn / (double)m->frame_cn : 0.0;
    if (mean > m->worst_frame_mean) m->worst_frame_mean = mean, m->worst_frame = frame;
}

sf_result sf_method_stats_clip_finish(sf_method_stats* m, bool rest, sf_error* err)
{
    sf_error e;
    if (sf_angle_accumulator_finish(m->normal_acc, rest ? &m->rest_normal : &m->normal, &e) != SF_OK ||
        sf_angle_accumulator_finish(m->tangent_acc, rest ? &m->rest_tangent : &m->tangent, &e) != SF_OK)
        return sfi_eval_fail(err, e.result, "statistics: %s", e.message);
    return SF_OK;
}

void sf_method_stats_best_per_cost(const sf_method_stats* stats, const sf_method* methods, size_t count,
                                   sf_method out[SF_COST_LEVELS])
{
    for (int l = 0; l < SF_COST_LEVELS; ++l) out[l] = SF_METHOD_COUNT;
    for (size_t k = 0; k < count; ++k) {
        sf_method m = methods[k];
        const sf_method_stats* a = &stats[m];
        if (a->skipped || a->normal.count == 0) continue;
        sf_method_cost l = sf_cost_of(m);
        sf_method cur = out[l];
        if (cur == SF_METHOD_COUNT || a->normal.mean < stats[cur].normal.mean ||
            (a->normal.mean == stats[cur].normal.mean && a->tangent.mean < stats[cur].tangent.mean))
            out[l] = m;
    }
}

void sfi_method_stats_clip_sums(sf_method_stats* m)
{
    /* As sf_angle_accumulator_finish takes them, from the sums of the frames added in frame order. */
    if (m->normal.count) {
        double n = (double)m->normal.count;
        m->normal.mean = m->clip_sn / n;
        m->normal.rms = sqrt(m->clip_sn2 / n);
    }
    if (m->tangent.count) {
        double n = (double)m->tangent.count;
        m->tangent.mean = m->clip_st / n;
        m->tangent.rms = sqrt(m->clip_st2 / n);
    }
}

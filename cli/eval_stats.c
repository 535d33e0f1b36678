/* eval's per-method statistics over every frame and vertex of a clip, in memory that does not grow with the
 * clip: the core's sf_angle_accumulator, plus the worst frame and the worst vertices. */
#include "eval.h"

#include <stdlib.h>
#include <string.h>

int eval_methods_create(eval_method* m, const cli_scene_args* args)
{
    memset(m, 0, SF_METHOD_COUNT * sizeof *m);
    for (size_t k = 0; k < args->method_count; ++k) {
        eval_method* e = &m[args->method_order[k]];
        e->on = true;
        sf_error err;
        if (sf_angle_accumulator_create(NULL, &e->normal_acc, &err) != SF_OK ||
            sf_angle_accumulator_create(NULL, &e->tangent_acc, &err) != SF_OK)
            return cli_fail(CLI_EXIT_FAILURE, "statistics: %s", err.message);
    }
    return CLI_EXIT_OK;
}

void eval_methods_free(eval_method* m)
{
    for (int k = 0; k < SF_METHOD_COUNT; ++k) {
        sf_angle_accumulator_destroy(m[k].normal_acc);
        sf_angle_accumulator_destroy(m[k].tangent_acc);
        m[k].normal_acc = m[k].tangent_acc = NULL;
    }
}

void eval_method_clip_start(eval_method* m)
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
}

void eval_method_frame_start(eval_method* m)
{
    m->frame_sn = m->frame_st = 0.0;
    m->frame_mn = m->frame_mt = 0.0f;
    m->frame_cn = m->frame_ct = 0;
}

int eval_method_add(eval_method* m, const float* normal_deg, const float* tangent_deg, size_t n, size_t unit,
                    size_t frame, bool track_worst)
{
    /* The frame's sums run over the units in order, then their vertices: the order the pooled arrays of
     * earlier versions had, so the per-frame means (CSV, worst frame) keep their bits. */
    for (size_t v = 0; v < n; ++v) {
        float a = normal_deg[v];
        m->frame_sn += a;
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
    sf_error err;
    if (sf_angle_accumulator_add(m->normal_acc, normal_deg, n, &err) != SF_OK ||
        (tangent_deg && sf_angle_accumulator_add(m->tangent_acc, tangent_deg, n, &err) != SF_OK))
        return cli_fail(CLI_EXIT_FAILURE, "statistics: %s", err.message);
    return CLI_EXIT_OK;
}

int eval_method_add_summary(eval_method* m, const sf_evaluation* ev, size_t k, bool tangents, size_t unit,
                            size_t frame, bool track_worst)
{
    const sf_error_summary* e = &sf_evaluation_results(ev)->rows[k].errors;
    m->frame_sn += e->normal.mean * (double)e->normal.count;
    if (e->normal.max > m->frame_mn) m->frame_mn = (float)e->normal.max;
    if (track_worst && e->normal.count && e->normal.max > m->worst_n) {
        m->worst_n = e->normal.max;
        m->worst_n_unit = unit;
        m->worst_n_vertex = e->worst_normal_vertex;
        m->worst_n_frame = frame;
    }
    if (tangents) {
        m->frame_st += e->tangent.mean * (double)e->tangent.count;
        if (e->tangent.max > m->frame_mt) m->frame_mt = (float)e->tangent.max;
        if (track_worst && e->tangent.count && e->tangent.max > m->worst_t) {
            m->worst_t = e->tangent.max;
            m->worst_t_unit = unit;
            m->worst_t_vertex = e->worst_tangent_vertex;
            m->worst_t_frame = frame;
        }
        m->frame_ct += e->tangent.count;
    }
    m->frame_cn += e->normal.count;
    sf_error err;
    if (sf_evaluation_accumulate(ev, k, m->normal_acc, tangents ? m->tangent_acc : NULL, &err) != SF_OK)
        return cli_fail(CLI_EXIT_FAILURE, "statistics: %s", err.message);
    return CLI_EXIT_OK;
}

void eval_method_frame_end(eval_method* m, size_t frame)
{
    double mean = m->frame_cn ? m->frame_sn / (double)m->frame_cn : 0.0;
    if (mean > m->worst_frame_mean) m->worst_frame_mean = mean, m->worst_frame = frame;
}

int eval_method_clip_finish(eval_method* m, bool rest)
{
    sf_error err;
    if (sf_angle_accumulator_finish(m->normal_acc, rest ? &m->rest_normal : &m->normal, &err) != SF_OK ||
        sf_angle_accumulator_finish(m->tangent_acc, rest ? &m->rest_tangent : &m->tangent, &err) != SF_OK)
        return cli_fail(CLI_EXIT_FAILURE, "statistics: %s", err.message);
    return CLI_EXIT_OK;
}

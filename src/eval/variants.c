/* The variants of the deformation: the asset deformed as a runtime would (an engine preset, a cap on the
 * influences or the morph targets, 4 or 8 influences where the asset has more), each measured every frame
 * against the full deformation: its reference (directions) and its final positions (sf_evaluation_run_against). */
#include "eval_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct variant {
    char label[64];
    const sf_engine* engine; /* NULL: a truncation */
    uint32_t max_influences;  /* 0 = all */
    bool first_slots;         /* max_influences are the first slots, not the largest (sf_engine) */
    size_t max_morph_targets; /* 0 = all */
    bool derivatives;         /* no vertex tangent where the file has none: not measured there */
    sf_method methods[SF_METHOD_COUNT];
    size_t method_count;
    sf_frames_opts method_opts;
    sf_topology** topos; /* per unit; NULL: the unit's own (nothing truncated) */
    sf_workspace** ws;
    sf_evaluation** evals;
    float** morph; /* per unit: the kept morph weights */
    size_t truncated; /* vertices (per frame, over the units) that lose an influence */
    sf_method_stats stats[SF_METHOD_COUNT];
    bool weights_as_given;   /* the first slots' weights as stored (sf_engine) */
    sf_gltf_rotation_keys rotation_keys; /* not unit: posed by its own pose (gpose) where the clip has non-unit
                                            rotation keys */
    sf_gltf_pose* gpose;
    bool own_pose;           /* the clip being run needs gpose */
    float** bones;           /* per unit: bones from gpose */
    float** posed_morph;     /* per unit: morph weights from gpose */
} variant;

struct sfi_variants {
    const sf_gltf* g;
    const sf_asset_unit* units;
    size_t unit_count, max_n;
    sf_asset_influences influences;
    variant* list;
    size_t count;
    float* angles; /* per method 2 * max_n */
    const char* name;
};

static void variant_free(variant* v, const sf_asset_unit* units, size_t count)
{
    for (size_t i = 0; i < count; ++i) {
        if (units[i].owner == i) {
            if (v->evals) sf_evaluation_destroy(v->evals[i]);
            if (v->ws) sf_workspace_destroy(v->ws[i]);
            if (v->topos) sf_topology_destroy(v->topos[i]);
        }
        if (v->morph) free(v->morph[i]);
    }
    for (size_t i = 0; i < count; ++i) {
        if (v->bones) free(v->bones[i]);
        if (v->posed_morph) free(v->posed_morph[i]);
    }
    free(v->bones);
    free(v->posed_morph);
    sf_gltf_pose_destroy(v->gpose);
    free(v->evals);
    free(v->ws);
    free(v->topos);
    free(v->morph);
    sf_method_stats_free(v->stats);
}

void sfi_variants_destroy(sfi_variants* vs)
{
    if (!vs) return;
    for (size_t k = 0; k < vs->count; ++k) variant_free(&vs->list[k], vs->units, vs->unit_count);
    free(vs->list);
    free(vs->angles);
    free(vs);
}

uint32_t sfi_variants_methods_mask(const sf_asset_eval_opts* o)
{
    uint32_t mask = 0;
    for (size_t i = 0; i < sf_engine_count(); ++i) {
        const sf_engine* e = sf_engine_at(i);
        if (o->all_engines || o->engine == e) mask |= 1u << e->normals;
    }
    return mask;
}

/* "name: message", but a bare "out of memory". */
static sf_result named(sf_error* err, const char* name)
{
    if (err && strcmp(err->message, "out of memory") == 0) return err->result;
    return sfi_eval_prefix(err, name);
}

/* One variant's per-unit topologies, workspaces, evaluations and morph buffers. */
static sf_result variant_build(sfi_variants* vs, variant* v, const sf_frames_opts* ref_opts, const sf_env* env,
                               sf_error* err)
{
    size_t n = vs->unit_count;
    v->topos = calloc(n, sizeof *v->topos);
    v->ws = calloc(n, sizeof *v->ws);
    v->evals = calloc(n, sizeof *v->evals);
    v->morph = calloc(n, sizeof *v->morph);
    if (!v->topos || !v->ws || !v->evals || !v->morph) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    uint32_t mask = 0;
    for (size_t k = 0; k < v->method_count; ++k) mask |= 1u << v->methods[k];
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.methods = v->methods;
    desc.method_count = v->method_count;
    desc.method_opts = v->method_opts;
    desc.reference_opts = *ref_opts; /* the full evaluation's: the same tangent mode */
    desc.flags = SF_EVAL_NO_STATISTICS;
    size_t* cuts = calloc(n, sizeof *cuts); /* per owner: its vertices that lose an influence */
    if (!cuts) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < n; ++i) {
        const sf_asset_unit* u = &vs->units[i];
        if (u->owner != i) { /* the same mesh as its owner's: the same kept influences, run one at a time */
            v->topos[i] = v->topos[u->owner];
            v->ws[i] = v->ws[u->owner];
            v->evals[i] = v->evals[u->owner];
            v->truncated += cuts[u->owner];
        } else if (sf_asset_unit_truncated(vs->g, u, v->max_influences, v->first_slots, v->weights_as_given, mask, env,
                                           &v->topos[i], &v->ws[i], &cuts[i], err) != SF_OK) {
            free(cuts);
            return named(err, vs->name);
        } else {
            v->truncated += cuts[i];
        }
        v->morph[i] = calloc(u->pose.morph_weight_count + 1, sizeof(float));
        if (!v->morph[i]) {
            free(cuts);
            return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
        }
        if (u->owner != i) continue;
        sf_error e;
        if (sf_evaluation_create(v->topos[i] ? v->topos[i] : u->topo, &desc, NULL, &v->evals[i], &e) != SF_OK) {
            free(cuts);
            return sfi_eval_fail(err, e.result, "evaluation: %s", e.message);
        }
    }
    free(cuts);
    if (v->rotation_keys != SF_GLTF_ROTATIONS_UNIT) {
        sf_error e;
        if (sf_gltf_pose_create(vs->g, NULL, &v->gpose, &e) != SF_OK)
            return sfi_eval_fail(err, e.result, "pose: %s", e.message);
        sf_gltf_pose_set_rotations_as_given(v->gpose, (int)v->rotation_keys);
        v->bones = calloc(n, sizeof *v->bones);
        v->posed_morph = calloc(n, sizeof *v->posed_morph);
        if (!v->bones || !v->posed_morph) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
        for (size_t i = 0; i < n; ++i) {
            v->bones[i] = calloc(12 * vs->units[i].pose.bone_count + 1, sizeof(float));
            v->posed_morph[i] = calloc(vs->units[i].pose.morph_weight_count + 1, sizeof(float));
            if (!v->bones[i] || !v->posed_morph[i]) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
        }
    }
    return sf_method_stats_create(v->stats, v->methods, v->method_count, err);
}

/* A new variant measuring methods[0..count) with method_opts; NULL when out of memory. */
static variant* variant_add(sfi_variants* vs, const char* label, const sf_method* methods, size_t count,
                            const sf_frames_opts* method_opts)
{
    variant* list = realloc(vs->list, (vs->count + 1) * sizeof *list);
    if (!list) return NULL;
    vs->list = list;
    variant* v = &list[vs->count++];
    memset(v, 0, sizeof *v);
    snprintf(v->label, sizeof v->label, "%s", label);
    memcpy(v->methods, methods, count * sizeof *methods);
    v->method_count = count;
    v->method_opts = *method_opts;
    return v;
}

/* Vertices of every unit with more than 4 and 8 nonzero weights. */
static sf_result count_influences(sfi_variants* vs, sf_error* err)
{
    sf_asset_influences* in = &vs->influences;
    for (size_t i = 0; i < vs->unit_count; ++i) {
        const sf_asset_unit* u = &vs->units[i];
        sf_mesh_desc desc;
        size_t c4 = 0, c8 = 0;
        if (sf_gltf_instance_mesh(vs->g, u->instance, u->primitive, &desc, err) != SF_OK ||
            sf_influences_truncate(desc.vertex_count, desc.influence_count, desc.joints, desc.weights, 4, NULL, NULL,
                                   &c4, err) != SF_OK ||
            sf_influences_truncate(desc.vertex_count, desc.influence_count, desc.joints, desc.weights, 8, NULL, NULL,
                                   &c8, err) != SF_OK)
            return sfi_eval_prefix(err, vs->name);
        in->over4 += c4;
        in->over8 += c8;
        in->vertices += u->n;
        if (desc.influence_count > in->max_slots) in->max_slots = desc.influence_count;
        if (u->n > vs->max_n) vs->max_n = u->n;
    }
    return SF_OK;
}

/* The variants of o: keeping 4 and 8 influences, the caps asked for, the engines. False when out of memory. */
static bool add_variants(sfi_variants* vs, const sf_asset_eval_opts* o)
{
    /* What keeping 4 and 8 influences costs, where the asset has more: the reference rebuilt from the kept
     * deformation against the full one (the geometry's share, whatever the normal method). */
    static const uint32_t limits[2] = {4, 8};
    static const sf_method recompute = SF_METHOD_RECOMPUTE;
    for (int k = 0; o->influence_variants && k < 2; ++k) {
        if ((k == 0 ? vs->influences.over4 : vs->influences.over8) == 0) continue;
        char label[64];
        snprintf(label, sizeof label, "%u influences", (unsigned)limits[k]);
        variant* v = variant_add(vs, label, &recompute, 1, &o->method_opts);
        if (!v) return false;
        v->max_influences = limits[k];
    }
    if (o->max_influences || o->max_morph_targets) {
        char label[64] = "", part[32];
        if (o->max_influences) snprintf(label, sizeof label, "%u infl", (unsigned)o->max_influences);
        if (o->max_morph_targets) {
            snprintf(part, sizeof part, "%s%zu morphs", label[0] ? ", " : "", o->max_morph_targets);
            strncat(label, part, sizeof label - strlen(label) - 1);
        }
        variant* v = variant_add(vs, label, o->methods, o->method_count, &o->method_opts);
        if (!v) return false;
        v->max_influences = o->max_influences;
        v->max_morph_targets = o->max_morph_targets;
    }
    for (size_t i = 0; i < sf_engine_count(); ++i) {
        const sf_engine* e = sf_engine_at(i);
        if (!o->all_engines && o->engine != e) continue;
        sf_frames_opts mo = o->method_opts;
        mo.morph_directions = e->morph_directions;
        variant* v = variant_add(vs, e->title, &e->normals, 1, &mo);
        if (!v) return false;
        v->engine = e;
        v->max_influences = e->max_influences;
        v->first_slots = e->first_slots;
        v->weights_as_given = e->weights_as_given;
        v->rotation_keys = e->rotation_keys;
        v->max_morph_targets = e->max_morph_targets;
        v->derivatives = e->tangents == SF_ENGINE_TANGENTS_DERIVATIVES;
    }
    return true;
}

sf_result sfi_variants_create(const sf_asset_eval_opts* o, const sf_gltf* g, const sf_asset_unit* units,
                              size_t unit_count, const sf_env* env, sfi_variants** out, sf_error* err)
{
    *out = NULL;
    sfi_variants* vs = calloc(1, sizeof *vs);
    if (!vs) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    vs->g = g;
    vs->units = units;
    vs->unit_count = unit_count;
    vs->name = o->name;
    sf_result r = count_influences(vs, err);
    if (r == SF_OK && !add_variants(vs, o)) r = sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    for (size_t k = 0; r == SF_OK && k < vs->count; ++k) r = variant_build(vs, &vs->list[k], &o->reference_opts, env, err);
    if (r == SF_OK && vs->count) {
        vs->angles = calloc(2 * SF_METHOD_COUNT * (vs->max_n ? vs->max_n : 1), sizeof(float));
        if (!vs->angles) r = sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory for %zu vertices", vs->max_n);
    }
    if (r != SF_OK) {
        sfi_variants_destroy(vs);
        return r;
    }
    *out = vs;
    return SF_OK;
}

void sfi_variants_clip_start(sfi_variants* vs)
{
    for (size_t k = 0; vs && k < vs->count; ++k)
        for (size_t m = 0; m < vs->list[k].method_count; ++m)
            sf_method_stats_clip_start(&vs->list[k].stats[vs->list[k].methods[m]]);
}

/* Row r of variant v's last run into its statistics (angles in b). */
static sf_result add_row(variant* v, const sf_eval_row* row, const sf_eval_row_buffers* b, bool tangents,
                         const sf_asset_unit* u, size_t i, size_t frame, sf_error* err)
{
    sf_method_stats* m = &v->stats[row->method];
    if (m->skipped) return SF_OK;
    if (row->status == SF_ERROR_UNSUPPORTED) {
        m->skipped = true;
        snprintf(m->reason, sizeof m->reason, "%s", row->detail.message);
        return SF_OK;
    }
    sf_result r = sf_method_stats_add(m, b->normal_deg, tangents ? b->tangent_deg : NULL, u->n, i, frame, true, err);
    if (r != SF_OK) return r;
    m->pos_sum += row->position.mean * (double)row->position.count;
    m->pos_count += row->position.count;
    if (row->position.max > m->pos_max) m->pos_max = row->position.max;
    if (row->position.diagonal > m->pos_diagonal) m->pos_diagonal = row->position.diagonal;
    return SF_OK;
}

/* The angle in degrees between a and b (any lengths; 0 where one is zero). */
static float angle_deg(const double a[3], const float b[3])
{
    double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    double s = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]), d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    return s == 0.0 && d == 0.0 ? 0.0f : (float)(atan2(s, d) * (180.0 / 3.14159265358979323846));
}

/* A flat-shaded primitive's normal error: each corner against its deformed triangle's face normal (positions:
 * the variant's), in place of the method's per-vertex normal. */
static void flat_face_angles(const sf_mesh_desc* m, const float* positions, const float* reference, float* deg)
{
    for (size_t t = 0; t < m->triangle_count; ++t) {
        const uint32_t* tri = m->indices + 3 * t;
        const float *p0 = positions + 3 * (size_t)tri[0], *p1 = positions + 3 * (size_t)tri[1],
                    *p2 = positions + 3 * (size_t)tri[2];
        double e1[3], e2[3];
        for (int k = 0; k < 3; ++k) e1[k] = (double)p1[k] - p0[k], e2[k] = (double)p2[k] - p0[k];
        double f[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        for (int c = 0; c < 3; ++c) deg[tri[c]] = angle_deg(f, reference + 3 * (size_t)tri[c]);
    }
}

sf_result sfi_variants_sample(sfi_variants* vs, size_t animation, double time_s, sf_error* err)
{
    for (size_t k = 0; vs && k < vs->count; ++k) {
        variant* v = &vs->list[k];
        v->own_pose = v->gpose && sf_gltf_animation_has_nonunit_rotations(vs->g, animation);
        sf_error e;
        if (v->own_pose && sf_gltf_pose_sample(v->gpose, animation, time_s, &e) != SF_OK)
            return sfi_eval_fail(err, e.result, "%s: %s", v->label, e.message);
    }
    return SF_OK;
}

sf_result sfi_variants_run_unit(sfi_variants* vs, size_t i, const sf_asset_unit* u, const sf_evaluation* full,
                                size_t frame, sf_error* err)
{
    for (size_t k = 0; vs && k < vs->count; ++k) {
        variant* v = &vs->list[k];
        if (i == 0)
            for (size_t m = 0; m < v->method_count; ++m) sf_method_stats_frame_start(&v->stats[v->methods[m]]);
        sf_pose pose = u->pose;
        if (v->own_pose) {
            sf_asset_unit mine = *u;
            mine.bones = v->bones[i];
            mine.morph = v->posed_morph[i];
            sf_result r = sf_asset_unit_pose(v->gpose, &mine, NULL, err);
            if (r != SF_OK) return r;
            if (pose.bone_matrices) pose.bone_matrices = v->bones[i];
            if (pose.morph_weights) pose.morph_weights = v->posed_morph[i];
        }
        if (v->max_morph_targets && pose.morph_weights) {
            sf_morph_weights_truncate(pose.morph_weights, pose.morph_weight_count, v->max_morph_targets, v->morph[i]);
            pose.morph_weights = v->morph[i];
        }
        const sf_eval_results* res = sf_evaluation_results(v->evals[i]);
        bool tangents = u->tangents &&
                        !(v->derivatives && vs->g->primitives[u->primitive].tangents != SF_GLTF_TANGENTS_SUPPLIED);
        sf_eval_buffers b;
        memset(&b, 0, sizeof b);
        for (size_t r = 0; r < res->row_count; ++r) {
            float* mine = vs->angles + 2 * vs->max_n * (size_t)res->rows[r].method;
            b.rows[r].normal_deg = mine;
            b.rows[r].tangent_deg = u->tangents ? mine + vs->max_n : NULL;
        }
        sf_error e;
        if (sf_evaluation_run_against(v->evals[i], full, &pose, v->ws[i] ? v->ws[i] : u->ws, &b, &e) != SF_OK)
            return sfi_eval_fail(err, e.result, "%s: %s", v->label, e.message);
        const sf_gltf_primitive* prim = &vs->g->primitives[u->primitive];
        if (v->engine && v->engine->flat_faces && prim->flat_normals && prim->mesh.vertex_count == u->n)
            for (size_t r = 0; r < res->row_count; ++r)
                if (res->rows[r].status == SF_OK)
                    flat_face_angles(&prim->mesh, res->positions, sf_evaluation_results(full)->reference_normals,
                                     b.rows[r].normal_deg);
        for (size_t r = 0; r < res->row_count; ++r) {
            sf_result rr = add_row(v, &res->rows[r], &b.rows[r], tangents, u, i, frame, err);
            if (rr != SF_OK) return rr;
        }
    }
    return SF_OK;
}

void sfi_variants_frame_end(sfi_variants* vs, size_t frame)
{
    for (size_t k = 0; vs && k < vs->count; ++k)
        for (size_t m = 0; m < vs->list[k].method_count; ++m) {
            sf_method_stats* s = &vs->list[k].stats[vs->list[k].methods[m]];
            if (!s->skipped) sf_method_stats_frame_end(s, frame);
        }
}

sf_result sfi_variants_clip_finish(sfi_variants* vs, sf_error* err)
{
    for (size_t k = 0; vs && k < vs->count; ++k)
        for (size_t m = 0; m < vs->list[k].method_count; ++m) {
            sf_method_stats* s = &vs->list[k].stats[vs->list[k].methods[m]];
            sf_result r = sf_method_stats_clip_finish(s, false, err);
            if (r != SF_OK) return r;
            sfi_method_stats_clip_sums(s);
        }
    return SF_OK;
}

sf_asset_influences sfi_variants_influences(const sfi_variants* vs) { return vs->influences; }
size_t sfi_variants_count(const sfi_variants* vs) { return vs ? vs->count : 0; }

sf_asset_variant sfi_variants_at(const sfi_variants* vs, size_t i)
{
    sf_asset_variant out;
    memset(&out, 0, sizeof out);
    if (!vs || i >= vs->count) return out;
    const variant* v = &vs->list[i];
    out.label = v->label;
    out.engine = v->engine;
    out.max_influences = v->max_influences;
    out.max_morph_targets = v->max_morph_targets;
    out.morph_directions = v->method_opts.morph_directions;
    out.derivatives = v->derivatives;
    out.methods = v->methods;
    out.method_count = v->method_count;
    out.truncated = v->truncated;
    out.stats = v->stats;
    return out;
}

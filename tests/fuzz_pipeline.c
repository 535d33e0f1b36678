/* libFuzzer target for everything after loading (built only with -DSF_FUZZ=ON and clang): the input is
 * loaded as a .glb/.gltf from memory under small cost limits, then for each instance and primitive: the
 * instance mesh, a topology with and one without gradients, a pose of one of the file's animations at two
 * times derived from the input, the evaluation of every method, the world placement, and the .glb writer
 * (the posed result written, then loaded back and compared). Each result is also reached by a second path
 * that must agree with the first:
 *   - sf_evaluation_run_against the unit's own run: the same rows bit for bit, no position error; against a
 *     topology keeping fewer influences (sf_influences_truncate): valid rows and position errors;
 *   - the streaming statistics eval reports with (sf_method_stats) of one row over both times, fed the angles
 *     and fed the runs' summaries: equal to each other and to the exact statistics of the angles;
 *   - sf_frames_compute_batch over both poses: each pose's frames and counters as sf_frames_compute gives them;
 *   - the asset as eval measures it (sf_asset_eval: a clip's frames, the rest pose, an engine preset, every
 *     preset, a truncation or the 4/8-influence variants), serially and with threads that run their ranges
 *     last first: every statistic equal bit for bit, recompute-fused's normal statistics the reference row's.
 * The options (reference weld, tangents, rebuilt/authored, weighting, morph directions, weight policies,
 * generated tangents at load, the variant, the methods) come from a hash of the input, so every mutation also
 * tries another variant.
 *
 * It aborts, with a line saying what, when
 *   - a call fails with an empty message or an err->result that is not the returned code (a contract);
 *   - a result breaks a documented rule: normals unit or zero, tangent w +-1, angles in [0, 180],
 *     statistics ordered, shares in [0, 1], the written .glb not loading back as written (a contract);
 *   - an output float is NaN or infinite ("non-finite output", a separate assertion: inputs so large that
 *     the arithmetic overflows should be refused with an error by the layer that takes them). Setting
 *     FUZZ_ALLOW_NONFINITE=1 makes this one skip the input instead, to fuzz on past a known finding.
 * Any crash, leak or sanitizer report is a bug as well. */
#include "fuzz_choices.h"
#include "skinframe_eval.h"
#include "skinframe_gltf.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

/* Work per input: the loader refuses larger files before decoding; the target skips larger primitives. */
#define MAX_VERTICES 4096           /* per primitive (sf_gltf_opts.max_vertices): the staged characters whole */
#define MAX_MORPH_ELEMENTS 65536    /* targets x vertices per primitive */
#define MAX_DECODED_BYTES (8u << 20) /* for the whole file */
#define MAX_TRIANGLES 4096          /* per primitive */
#define MAX_TOTAL_VERTICES 4096     /* over every unit of one input */
#define MAX_INSTANCES 8
#define MAX_PRIMITIVES 4            /* per instance */
#define TIMES 2

struct unit;
static void describe(const struct unit* u);
static const struct unit* g_unit; /* the unit being checked, described when a check fails */

static void fail(const char* kind, const char* fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    fprintf(stderr, "fuzz_pipeline: %s: ", kind);
    vfprintf(stderr, fmt, args);
    fputc('\n', stderr);
    va_end(args);
    if (g_unit) describe(g_unit);
    abort();
}

#define CONTRACT(cond, ...)                       \
    do {                                          \
        if (!(cond)) fail("contract", __VA_ARGS__); \
    } while (0)

/* A failed call must say why. */
static void check_error(sf_result r, const sf_error* err, const char* call)
{
    if (r == SF_OK) return;
    CONTRACT(err->message[0] != '\0', "%s returned %d (%s) with an empty message", call, (int)r, sf_result_string(r));
    CONTRACT(err->result == r, "%s returned %d but err->result is %d (\"%s\")", call, (int)r, (int)err->result,
             err->message);
}

/* Set when a non-finite output was found under FUZZ_ALLOW_NONFINITE: the rest of the input is skipped. */
static int g_nonfinite;

/* The separate "non-finite output" assertion; returns 1 when every value is finite. */
static int finite_output(const float* v, size_t count, const char* what)
{
    for (size_t i = 0; i < count; ++i) {
        if (isfinite(v[i])) continue;
        const char* allow = getenv("FUZZ_ALLOW_NONFINITE");
        if (allow && allow[0] == '1') {
            g_nonfinite = 1;
            return 0;
        }
        fail("non-finite output", "%s[%zu] = %g (an input whose arithmetic overflows should be refused)", what, i,
             (double)v[i]);
    }
    return 1;
}

static int finite_double(double v, const char* what)
{
    float f = (float)v;
    return isfinite(v) ? 1 : finite_output(&f, 1, what);
}

/* Unit length or exactly zero (degenerate), as sf_frames_out and sf_gltf_place_frames document. */
static void check_directions(const float* v, size_t count, size_t stride, const char* what)
{
    for (size_t i = 0; i < count; ++i) {
        const float* d = v + stride * i;
        double len2 = (double)d[0] * d[0] + (double)d[1] * d[1] + (double)d[2] * d[2];
        CONTRACT(len2 == 0.0 || fabs(len2 - 1.0) < 1e-3, "%s[%zu] has length %g, not 1 or 0", what, i, sqrt(len2));
        if (stride == 4)
            CONTRACT(d[3] == 1.0f || d[3] == -1.0f || (len2 == 0.0 && d[3] == 0.0f),
                     "%s[%zu].w = %g, not +-1", what, i, (double)d[3]);
    }
}

static void check_stats(const sf_angle_stats* s, size_t n, const char* what)
{
    const double v[] = {s->mean, s->rms, s->p50, s->p95, s->max, s->over_1, s->over_5, s->over_45};
    for (size_t k = 0; k < sizeof v / sizeof v[0]; ++k)
        if (!finite_double(v[k], what)) return;
    CONTRACT(s->count <= n, "%s: count %zu > %zu vertices", what, s->count, n);
    for (size_t k = 0; k < 5; ++k) CONTRACT(v[k] >= 0.0 && v[k] <= 180.0, "%s: statistic %zu = %g", what, k, v[k]);
    CONTRACT(s->p50 <= s->p95 && s->p95 <= s->max && s->mean <= s->max, "%s: p50 %g, p95 %g, mean %g, max %g", what,
             s->p50, s->p95, s->mean, s->max);
    CONTRACT(s->over_45 <= s->over_5 && s->over_5 <= s->over_1 && s->over_1 <= 1.0 && s->over_45 >= 0.0,
             "%s: shares %g %g %g", what, s->over_1, s->over_5, s->over_45);
}

static void check_angles(const float* a, size_t n, const char* what)
{
    if (!a || !finite_output(a, n, what)) return;
    for (size_t v = 0; v < n; ++v) CONTRACT(a[v] >= 0.0f && a[v] <= 180.0f, "%s[%zu] = %g", what, v, (double)a[v]);
}

static sf_frames_opts pick_opts(bits* b)
{
    sf_frames_opts o;
    memset(&o, 0, sizeof o);
    o.weld = (sf_weld)take(b, 3);
    o.tangents = (sf_tangent_mode)take(b, 2);
    o.reference = (sf_reference)take(b, 2);
    o.weighting = (sf_weighting)take(b, 3);
    o.morph_directions = (sf_morph_directions)take(b, 2);
    return o;
}

/* One primitive of one instance: its topologies, workspaces, evaluations and pose buffers. */
typedef struct unit {
    size_t instance, primitive, n, anim;
    double time;
    sf_mesh_desc desc;
    sf_topology* topo[2]; /* [0] with gradients, [1] without */
    sf_workspace* ws[2];
    sf_evaluation* ev[2];
    float *bones, *morph, *world;
    float to_world[16];
    sf_pose pose;
    sf_method placed; /* the row placed in the world besides the reference (one: placement is per vertex) */
    int ran;          /* the last run of ev[0] succeeded: its results are written to the .glb */
    float *bones_at[TIMES], *morph_at[TIMES]; /* each time's pose, for the batch */
    int posed[TIMES];
    uint32_t keep_influences; /* the variant measured by sf_evaluation_run_against */
} unit;

/* The largest |value| of count float-vectors of ncomp in a stream (stride 0 = packed). */
static double largest(const float* data, size_t stride, size_t ncomp, size_t count)
{
    double m = 0.0;
    for (size_t i = 0; data && i < count; ++i) {
        const float* v = (const float*)((const char*)data + i * (stride ? stride : ncomp * sizeof(float)));
        for (size_t c = 0; c < ncomp; ++c) m = fabs(v[c]) > m || isnan(v[c]) ? fabs(v[c]) : m;
    }
    return m;
}

/* What a failing unit was fed: which primitive, pose and options, and the magnitudes of its inputs (the
 * usual cause of a non-finite output is a finite input whose arithmetic overflows). */
static void describe(const unit* u)
{
    const sf_mesh_desc* d = &u->desc;
    size_t n = d->vertex_count;
    double deltas = 0.0, ddirs = 0.0;
    for (size_t k = 0; k < d->target_count; ++k) {
        size_t c = d->targets[k].sparse_indices ? d->targets[k].sparse_count : n;
        double p = largest(d->targets[k].position_deltas, 0, 3, c);
        double nd = fmax(largest(d->targets[k].normal_deltas, 0, 3, c), largest(d->targets[k].tangent_deltas, 0, 3, c));
        deltas = fmax(deltas, p);
        ddirs = fmax(ddirs, nd);
    }
    fprintf(stderr,
            "  instance %zu, primitive %zu: %zu vertices, %zu triangles, %zu targets, %zu bones; animation %td at t = %g\n"
            "  largest |input|: positions %g, normals %g, tangents %g, uvs %g, weights %g, position deltas %g,\n"
            "  direction deltas %g, bone matrices %g, morph weights %g, to_world %g\n",
            u->instance, u->primitive, n, d->triangle_count, d->target_count, d->bone_count,
            u->anim == SF_GLTF_NONE ? (ptrdiff_t)-1 : (ptrdiff_t)u->anim, u->time,
            largest(d->positions.data, d->positions.stride, 3, n), largest(d->normals.data, d->normals.stride, 3, n),
            largest(d->tangents.data, d->tangents.stride, 4, n), largest(d->uvs.data, d->uvs.stride, 2, n),
            largest(d->weights, 0, d->influence_count, n), deltas, ddirs,
            largest(u->bones, 0, 12, u->pose.bone_count), largest(u->morph, 0, 1, u->pose.morph_weight_count),
            largest(u->to_world, 0, 16, 1));
    for (int k = 0; k < 2; ++k) {
        if (!u->ev[k]) continue;
        const sf_eval_results* res = sf_evaluation_results(u->ev[k]);
        fprintf(stderr, "  evaluation %d (%s gradients): reference weld %d, tangents %d, reference %d, weighting %d, "
                "morph directions %d; methods: morph directions %d, jacobian cap %g\n", k, k ? "without" : "with",
                (int)res->reference_opts.weld, (int)res->reference_opts.tangents, (int)res->reference_opts.reference,
                (int)res->reference_opts.weighting, (int)res->reference_opts.morph_directions,
                (int)res->method_opts.morph_directions, (double)res->method_opts.jacobian_cap);
    }
}

static void unit_free(unit* u)
{
    for (int k = 0; k < 2; ++k) {
        sf_evaluation_destroy(u->ev[k]);
        sf_workspace_destroy(u->ws[k]);
        sf_topology_destroy(u->topo[k]);
    }
    free(u->bones);
    free(u->morph);
    free(u->world);
    for (int t = 0; t < TIMES; ++t) {
        free(u->bones_at[t]);
        free(u->morph_at[t]);
    }
}

/* 0 when the unit is skipped (a failed call, or more than max_n vertices); unit_free releases it either way. */
static int unit_create(const sf_gltf* g, size_t instance, size_t primitive, size_t max_n, bits* b, unit* u)
{
    sf_error err;
    memset(u, 0, sizeof *u);
    u->instance = instance;
    u->primitive = primitive;
    u->anim = SF_GLTF_NONE; /* not posed yet */
    g_unit = u;
    sf_result r = sf_gltf_instance_mesh(g, instance, primitive, &u->desc, &err);
    check_error(r, &err, "sf_gltf_instance_mesh");
    if (r != SF_OK || u->desc.vertex_count > max_n || u->desc.triangle_count > MAX_TRIANGLES) return 0;
    u->placed = (sf_method)take(b, SF_METHOD_DEFAULT_COUNT);
    u->desc.weight_policy = (sf_weight_policy)take(b, 2);
    u->desc.zero_weight_policy = take(b, 4) ? SF_ZERO_WEIGHTS_REST : SF_ZERO_WEIGHTS_REJECT; /* as the CLI, mostly */
    for (int k = 0; k < 2; ++k) {
        sf_topology_opts topts;
        memset(&topts, 0, sizeof topts);
        topts.skip_gradients = k;
        r = sf_topology_create(&u->desc, &topts, NULL, &u->topo[k], &err);
        check_error(r, &err, "sf_topology_create");
        if (r != SF_OK) return 0;
        CONTRACT(sf_topology_vertex_count(u->topo[k]) == u->desc.vertex_count, "topology vertex count %zu != %zu",
                 sf_topology_vertex_count(u->topo[k]), u->desc.vertex_count);
        size_t n = u->desc.vertex_count;
        if (!finite_output(sf_topology_rest_normals(u->topo[k]), 3 * n, "topology rest normals")) return 0;
        if (sf_topology_has_tangent_frame(u->topo[k]) &&
            !finite_output(sf_topology_rest_tangents(u->topo[k]), 4 * n, "topology rest tangents"))
            return 0;
        sf_eval_desc desc;
        memset(&desc, 0, sizeof desc);
        sf_method methods[SF_METHOD_COUNT]; /* every method, recompute-fused included */
        for (int m = 0; m < SF_METHOD_COUNT; ++m) methods[m] = (sf_method)m;
        desc.methods = methods;
        desc.method_count = SF_METHOD_COUNT;
        desc.reference_opts = pick_opts(b);
        desc.method_opts.morph_directions = (sf_morph_directions)take(b, 2);
        desc.method_opts.jacobian_cap = take(b, 2) ? 0.0f : 0.5f;
        desc.flags = SF_EVAL_KEEP_FRAMES | SF_EVAL_KEEP_ANGLES;
        r = sf_evaluation_create(u->topo[k], &desc, NULL, &u->ev[k], &err);
        check_error(r, &err, "sf_evaluation_create");
        if (r != SF_OK) return 0;
        sf_workspace_opts wopts = {sf_evaluation_methods_mask(u->ev[k]), SF_BACKEND_CPU};
        r = sf_workspace_create(u->topo[k], &wopts, &u->ws[k], &err);
        check_error(r, &err, "sf_workspace_create");
        if (r != SF_OK) return 0;
    }
    const sf_gltf_instance* in = &g->instances[instance];
    size_t targets = g->meshes[in->mesh].target_count;
    u->n = u->desc.vertex_count;
    u->bones = calloc(12 * in->bone_count + 1, sizeof(float));
    u->morph = calloc(targets + 1, sizeof(float));
    u->world = calloc(10 * u->n + 1, sizeof(float));
    if (!u->bones || !u->morph || !u->world) return 0;
    for (int t = 0; t < TIMES; ++t) {
        u->bones_at[t] = calloc(12 * in->bone_count + 1, sizeof(float));
        u->morph_at[t] = calloc(targets + 1, sizeof(float));
        if (!u->bones_at[t] || !u->morph_at[t]) return 0;
    }
    u->keep_influences = 1 + take(b, 4);
    u->pose.bone_matrices = u->bones;
    u->pose.bone_count = in->bone_count;
    u->pose.morph_weights = u->morph;
    u->pose.morph_weight_count = targets;
    return 1;
}

/* World placement of a posed result; positions may be NULL (directions only). */
static void place(unit* u, const float* positions, const float* normals, const float* tangents, const char* what)
{
    sf_error err;
    size_t n = u->n;
    sf_frames_out world = {positions ? u->world : NULL, u->world + 3 * n, tangents ? u->world + 6 * n : NULL};
    sf_result r = sf_gltf_place_frames(u->to_world, n, positions, normals, tangents, &world, &err);
    check_error(r, &err, "sf_gltf_place_frames");
    if (r != SF_OK) return;
    if (positions && !finite_output(world.positions, 3 * n, "placed positions")) return;
    if (!finite_output(world.normals, 3 * n, "placed normals")) return;
    check_directions(world.normals, n, 3, what);
    if (tangents && finite_output(world.tangents, 4 * n, "placed tangents")) check_directions(world.tangents, n, 4, what);
}

/* The results of ev on topo (the unit's, or a variant's of the same vertices); k = 1: a topology without
 * gradients; own: the reference is of ev's own deformation (not a variant's full one), and the reference and
 * u->placed go through the world placement too. */
static void check_results(unit* u, const sf_evaluation* ev, const sf_topology* topo, int k, int own)
{
    const sf_eval_results* res = sf_evaluation_results(ev);
    size_t n = u->n;
    int tf = res->tangent_frame;
    CONTRACT(res->vertex_count == n && res->row_count == SF_METHOD_COUNT, "results: %zu vertices, %zu rows",
             res->vertex_count, res->row_count);
    if (!finite_output(res->positions, 3 * n, "positions") ||
        !finite_output(res->reference_normals, 3 * n, "reference normals") ||
        !finite_output(res->reference_tangents, 4 * n, "reference tangents"))
        return;
    check_directions(res->reference_normals, n, 3, "reference normals");
    if (tf) check_directions(res->reference_tangents, n, 4, "reference tangents");
    if (own) place(u, res->positions, res->reference_normals, tf ? res->reference_tangents : NULL, "placed reference");
    for (size_t i = 0; i < res->row_count && !g_nonfinite; ++i) {
        const sf_eval_row* row = &res->rows[i];
        const char* name = sf_method_name(row->method);
        if (row->status != SF_OK) {
            check_error(row->status, &row->detail, name);
            CONTRACT(row->status == SF_ERROR_UNSUPPORTED, "row %s: status %d", name, (int)row->status);
            continue;
        }
        /* Without gradients the jacobian row says so instead of running. */
        CONTRACT(!(k == 1 && row->method == SF_METHOD_JACOBIAN), "jacobian ran on a topology without gradients");
        /* recompute-fused is the reference in one pass, bit for bit */
        CONTRACT(!own || row->method != SF_METHOD_RECOMPUTE_FUSED ||
                     memcmp(row->normals, res->reference_normals, 3 * n * sizeof(float)) == 0,
                 "recompute-fused's normals differ from the reference's");
        if (!finite_output(row->normals, 3 * n, name) || !finite_output(row->tangents, 4 * n, name)) return;
        check_directions(row->normals, n, 3, name);
        if (tf) check_directions(row->tangents, n, 4, name);
        check_angles(row->normal_deg, n, "normal angles");
        check_angles(row->tangent_deg, n, "tangent angles");
        check_stats(&row->errors.normal, n, "normal statistics");
        /* Against a MikkTSpace reference tangents are measured per corner (sf_eval_results.tangent_corners). */
        size_t corners = 3 * sf_topology_triangle_count(topo);
        check_stats(&row->errors.tangent, res->tangent_corners ? corners : n, "tangent statistics");
        if (res->tangent_corners && row->tangent_corner_deg)
            check_angles(row->tangent_corner_deg, corners, "tangent corner angles");
        CONTRACT(tf || row->errors.tangent.count == 0, "row %s: tangent statistics without a tangent frame", name);
        if (own && row->method == u->placed) place(u, NULL, row->normals, tf ? row->tangents : NULL, name);
    }
}

/* ---- second paths: the same results through another route of the library, which must agree */

/* An evaluation of topo with every method and ev's options, keeping what check_results reads. */
static sf_result evaluation_like(const sf_evaluation* ev, const sf_topology* topo, sf_evaluation** out, sf_error* err)
{
    const sf_eval_results* res = sf_evaluation_results(ev);
    sf_method methods[SF_METHOD_COUNT];
    for (int m = 0; m < SF_METHOD_COUNT; ++m) methods[m] = (sf_method)m;
    sf_eval_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.methods = methods;
    desc.method_count = SF_METHOD_COUNT;
    desc.reference_opts = res->reference_opts;
    desc.method_opts = res->method_opts;
    desc.flags = SF_EVAL_KEEP_FRAMES | SF_EVAL_KEEP_ANGLES;
    return sf_evaluation_create(topo, &desc, NULL, out, err);
}

/* sf_evaluation_run_against the unit's last run: on the unit's own topology it must give sf_evaluation_run's
 * rows bit for bit and no position error; on a topology keeping u->keep_influences influences
 * (sf_influences_truncate), results that pass check_results and a finite position error. */
static void check_against(unit* u)
{
    const sf_mesh_desc* d = &u->desc;
    size_t n = u->n, truncated = 0;
    sf_topology *topo = u->topo[0], *own_topo = NULL;
    sf_workspace *ws = u->ws[0], *own_ws = NULL;
    sf_evaluation* ev = NULL;
    uint32_t* joints = NULL;
    float* weights = NULL;
    sf_error err;
    sf_result r = SF_OK;
    uint32_t keep = u->keep_influences;
    if (keep < d->influence_count) {
        joints = malloc(keep * n * sizeof *joints + 1);
        weights = malloc(keep * n * sizeof *weights + 1);
        if (!joints || !weights) goto done;
        r = sf_influences_truncate(n, d->influence_count, d->joints, d->weights, keep, joints, weights, &truncated,
                                   &err);
        check_error(r, &err, "sf_influences_truncate");
        if (r != SF_OK) goto done;
    }
    if (truncated) {
        sf_mesh_desc td = *d;
        td.influence_count = keep;
        td.joints = joints;
        td.weights = weights;
        sf_topology_opts topts;
        memset(&topts, 0, sizeof topts);
        r = sf_topology_create(&td, &topts, NULL, &own_topo, &err);
        check_error(r, &err, "sf_topology_create (truncated)");
        if (r != SF_OK) goto done;
        sf_workspace_opts wopts = {sf_evaluation_methods_mask(u->ev[0]), SF_BACKEND_CPU};
        r = sf_workspace_create(own_topo, &wopts, &own_ws, &err);
        check_error(r, &err, "sf_workspace_create (truncated)");
        if (r != SF_OK) goto done;
        topo = own_topo;
        ws = own_ws;
    }
    r = evaluation_like(u->ev[0], topo, &ev, &err);
    check_error(r, &err, "sf_evaluation_create (variant)");
    if (r != SF_OK) goto done;
    r = sf_evaluation_run_against(ev, u->ev[0], &u->pose, ws, NULL, &err);
    check_error(r, &err, "sf_evaluation_run_against");
    CONTRACT(truncated || r == SF_OK, "sf_evaluation_run_against on the unit's own topology fails: %s", err.message);
    if (r != SF_OK) goto done;
    check_results(u, ev, topo, 0, 0);
    const sf_eval_results *full = sf_evaluation_results(u->ev[0]), *res = sf_evaluation_results(ev);
    for (size_t i = 0; i < res->row_count && !g_nonfinite; ++i) {
        const sf_eval_row *a = &res->rows[i], *f = &full->rows[i];
        const char* name = sf_method_name(a->method);
        if (a->status != SF_OK) continue;
        const sf_position_error* p = &a->position;
        CONTRACT(p->count == n, "run_against row %s: position error over %zu of %zu vertices", name, p->count, n);
        if (!finite_double(p->mean, "position error mean") || !finite_double(p->max, "position error max") ||
            !finite_double(p->rms, "position error rms") || !finite_double(p->diagonal, "position diagonal"))
            break;
        CONTRACT(p->mean >= 0.0 && p->mean <= p->max * (1.0 + 1e-9) && p->rms <= p->max * (1.0 + 1e-9) &&
                     p->diagonal >= 0.0,
                 "run_against row %s: position error mean %g, rms %g, max %g, diagonal %g", name, p->mean, p->rms,
                 p->max, p->diagonal);
        if (truncated) continue;
        CONTRACT(f->status == SF_OK && p->max == 0.0, "run_against row %s on the same mesh: status %d, position max %g",
                 name, (int)f->status, p->max);
        CONTRACT(memcmp(a->normal_deg, f->normal_deg, n * sizeof(float)) == 0 &&
                     memcmp(a->tangent_deg, f->tangent_deg, n * sizeof(float)) == 0 &&
                     memcmp(&a->errors.normal, &f->errors.normal, sizeof(sf_angle_stats)) == 0 &&
                     memcmp(&a->errors.tangent, &f->errors.tangent, sizeof(sf_angle_stats)) == 0,
                 "run_against row %s on the same mesh: angles differ from sf_evaluation_run's (normal mean %.17g "
                 "against %.17g)", name, a->errors.normal.mean, f->errors.normal.mean);
    }
done:
    sf_evaluation_destroy(ev);
    sf_workspace_destroy(own_ws);
    sf_topology_destroy(own_topo);
    free(joints);
    free(weights);
}

/* The streaming statistics eval reports with (sf_method_stats) of one row of one unit over the TIMES frames:
 * fed the angles (sf_method_stats_add) in [0], the run's summary (sf_method_stats_add_summary) in [1], both held
 * to the exact statistics of the frames' angles together (sf_angle_stats_compute). */
static sf_method_stats g_stats[2][SF_METHOD_COUNT];
static struct {
    size_t unit;          /* the unit and method checked for this input */
    sf_method method;
    int tangents, frames; /* tangents fed (per vertex: none per corner); frames added */
    int skip;             /* the row did not run at some time */
    float* angles;        /* normals of every frame, then tangents: 2 * TIMES * n */
    size_t n;
} g_stream;

static int stream_ready(void)
{
    static int ready = -1;
    if (ready < 0) {
        sf_method all[SF_METHOD_COUNT];
        for (int m = 0; m < SF_METHOD_COUNT; ++m) all[m] = (sf_method)m;
        ready = sf_method_stats_create(g_stats[0], all, SF_METHOD_COUNT, NULL) == SF_OK &&
                sf_method_stats_create(g_stats[1], all, SF_METHOD_COUNT, NULL) == SF_OK;
    }
    return ready;
}

static void stream_add(unit* u, int frame)
{
    const sf_eval_results* res = sf_evaluation_results(u->ev[0]);
    size_t k = 0, n = u->n;
    while (k < res->row_count && res->rows[k].method != g_stream.method) ++k;
    if (g_stream.skip || k == res->row_count || res->rows[k].status != SF_OK || frame != g_stream.frames ||
        !stream_ready()) {
        g_stream.skip = 1;
        return;
    }
    const sf_eval_row* row = &res->rows[k];
    sf_method_stats *a = &g_stats[0][g_stream.method], *s = &g_stats[1][g_stream.method];
    int tangents = res->tangent_frame && !res->tangent_corners;
    if (frame == 0) {
        sf_method_stats_clip_start(a);
        sf_method_stats_clip_start(s);
        free(g_stream.angles);
        g_stream.angles = calloc(2 * TIMES * n + 1, sizeof(float));
        g_stream.n = n;
        g_stream.tangents = tangents;
        if (!g_stream.angles) {
            g_stream.skip = 1;
            return;
        }
    }
    sf_method_stats_frame_start(a);
    sf_method_stats_frame_start(s);
    sf_error err;
    sf_result r = sf_method_stats_add(a, row->normal_deg, tangents ? row->tangent_deg : NULL, n, 0, (size_t)frame,
                                      true, &err);
    check_error(r, &err, "sf_method_stats_add");
    CONTRACT(r == SF_OK, "sf_method_stats_add of a run's angles: %s", err.message);
    r = sf_method_stats_add_summary(s, u->ev[0], k, tangents, 0, (size_t)frame, true, &err);
    check_error(r, &err, "sf_method_stats_add_summary");
    CONTRACT(r == SF_OK, "sf_method_stats_add_summary: %s", err.message);
    sf_method_stats_frame_end(a, (size_t)frame);
    sf_method_stats_frame_end(s, (size_t)frame);
    CONTRACT(a->frame_cn == s->frame_cn && a->frame_ct == s->frame_ct && a->frame_mn == s->frame_mn &&
                 a->frame_mt == s->frame_mt,
             "frame %d: the angles' count %zu / %zu and max %g / %g, the summary's %zu / %zu and %g / %g", frame,
             a->frame_cn, a->frame_ct, (double)a->frame_mn, (double)a->frame_mt, s->frame_cn, s->frame_ct,
             (double)s->frame_mn, (double)s->frame_mt);
    CONTRACT(fabs(a->frame_sn - s->frame_sn) <= 1e-9 * fmax(1.0, a->frame_sn) &&
                 fabs(a->frame_st - s->frame_st) <= 1e-9 * fmax(1.0, a->frame_st),
             "frame %d: the angles sum to %.17g / %.17g, the summary to %.17g / %.17g", frame, a->frame_sn, a->frame_st,
             s->frame_sn, s->frame_st);
    /* The summary's worst vertex holds the largest angle. */
    if (s->worst_n_frame == (size_t)frame && n)
        CONTRACT(s->worst_n_vertex < n && row->normal_deg[s->worst_n_vertex] == (float)s->worst_n &&
                     a->worst_n == s->worst_n,
                 "frame %d: worst normal vertex %zu (%g), the angles' largest %g", frame, s->worst_n_vertex, s->worst_n,
                 a->worst_n);
    memcpy(g_stream.angles + (size_t)frame * n, row->normal_deg, n * sizeof(float));
    if (tangents) memcpy(g_stream.angles + (TIMES + (size_t)frame) * n, row->tangent_deg, n * sizeof(float));
    ++g_stream.frames;
}

static void stream_compare(const sf_angle_stats* got, const sf_angle_stats* exact, const char* what)
{
    const double p_bound = 1.0 / 1024.0 + 1e-9; /* the histogram's documented resolution */
    CONTRACT(got->count == exact->count && got->max == exact->max && got->over_1 == exact->over_1 &&
                 got->over_5 == exact->over_5 && got->over_45 == exact->over_45,
             "%s: streaming count %zu, max %.17g, shares %g %g %g; exact %zu, %.17g, %g %g %g", what, got->count,
             got->max, got->over_1, got->over_5, got->over_45, exact->count, exact->max, exact->over_1, exact->over_5,
             exact->over_45);
    CONTRACT(fabs(got->mean - exact->mean) <= 1e-12 * fmax(1.0, exact->mean) &&
                 fabs(got->rms - exact->rms) <= 1e-12 * fmax(1.0, exact->rms),
             "%s: streaming mean %.17g, rms %.17g; exact %.17g, %.17g", what, got->mean, got->rms, exact->mean,
             exact->rms);
    CONTRACT(fabs(got->p50 - exact->p50) <= p_bound && fabs(got->p95 - exact->p95) <= p_bound,
             "%s: streaming p50 %.17g, p95 %.17g; exact %.17g, %.17g", what, got->p50, got->p95, exact->p50,
             exact->p95);
}

static void stream_finish(void)
{
    if (g_stream.skip || g_stream.frames != TIMES) return;
    sf_method_stats *a = &g_stats[0][g_stream.method], *s = &g_stats[1][g_stream.method];
    sf_error err;
    sf_result r = sf_method_stats_clip_finish(a, false, &err);
    CONTRACT(r == SF_OK, "sf_method_stats_clip_finish: %s", err.message);
    r = sf_method_stats_clip_finish(s, false, &err);
    CONTRACT(r == SF_OK, "sf_method_stats_clip_finish (summaries): %s", err.message);
    CONTRACT(memcmp(&a->normal, &s->normal, sizeof a->normal) == 0 &&
                 memcmp(&a->tangent, &s->tangent, sizeof a->tangent) == 0,
             "the statistics of the angles and of the summaries differ (normal mean %.17g / %.17g)", a->normal.mean,
             s->normal.mean);
    size_t total = TIMES * g_stream.n;
    sf_angle_stats exact;
    r = sf_angle_stats_compute(g_stream.angles, total, NULL, NULL, &exact, &err);
    CONTRACT(r == SF_OK, "sf_angle_stats_compute: %s", err.message);
    stream_compare(&a->normal, &exact, "normal statistics over the frames");
    CONTRACT(fabs(a->clip_sn / (double)total - exact.mean) <= 1e-12 * fmax(1.0, exact.mean),
             "the frames' sums give a mean of %.17g, exact %.17g", a->clip_sn / (double)total, exact.mean);
    if (g_stream.tangents) {
        r = sf_angle_stats_compute(g_stream.angles + total, total, NULL, NULL, &exact, &err);
        CONTRACT(r == SF_OK, "sf_angle_stats_compute: %s", err.message);
        stream_compare(&a->tangent, &exact, "tangent statistics over the frames");
    }
}

/* sf_frames_compute_batch over the TIMES poses and the first again gives sf_frames_compute's frames of each
 * pose, bit for bit; a batch fails only where one of its poses does. */
static void check_batch(unit* u, sf_method method)
{
    size_t n = u->n;
    for (int t = 0; t < TIMES; ++t)
        if (!u->posed[t]) return;
    enum { POSES = TIMES + 1 };
    sf_pose poses[POSES];
    for (int i = 0; i < POSES; ++i) {
        poses[i] = u->pose;
        poses[i].bone_matrices = u->bones_at[i % TIMES];
        poses[i].morph_weights = u->morph_at[i % TIMES];
    }
    const sf_eval_results* res = sf_evaluation_results(u->ev[0]);
    sf_frames_opts opts = method == SF_METHOD_RECOMPUTE || method == SF_METHOD_RECOMPUTE_FUSED ? res->reference_opts
                                                                                              : res->method_opts;
    float* buf = calloc(2 * POSES * 10 * n + 1, sizeof(float));
    if (!buf) return;
    sf_frames_out outs[2][POSES];
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < POSES; ++i) {
            float* o = buf + ((size_t)k * POSES + (size_t)i) * 10 * n;
            outs[k][i] = (sf_frames_out){o, o + 3 * n, o + 6 * n};
        }
    sf_error err;
    sf_result rb = sf_frames_compute_batch(u->topo[0], poses, POSES, method, &opts, u->ws[0], outs[0], &err);
    check_error(rb, &err, "sf_frames_compute_batch");
    sf_frames_report batch, one, sum;
    sf_workspace_last_report(u->ws[0], &batch);
    memset(&sum, 0, sizeof sum);
    int all_ok = 1;
    for (int i = 0; i < POSES; ++i) {
        sf_result r = sf_frames_compute(u->topo[0], &poses[i], method, &opts, u->ws[0], &outs[1][i], &err);
        check_error(r, &err, "sf_frames_compute");
        all_ok &= r == SF_OK;
        sf_workspace_last_report(u->ws[0], &one);
        sum.mirrored_vertices += one.mirrored_vertices;
        sum.singular_vertices += one.singular_vertices;
        sum.degenerate_normals += one.degenerate_normals;
        sum.degenerate_tangents += one.degenerate_tangents;
        sum.jacobian_capped += one.jacobian_capped;
    }
    CONTRACT((rb == SF_OK) == all_ok, "%s: the batch returns %d, its poses one by one %s", sf_method_name(method),
             (int)rb, all_ok ? "succeed" : "fail");
    /* The batch's report sums its poses'. */
    CONTRACT(rb != SF_OK || (batch.mirrored_vertices == sum.mirrored_vertices &&
                             batch.singular_vertices == sum.singular_vertices &&
                             batch.degenerate_normals == sum.degenerate_normals &&
                             batch.degenerate_tangents == sum.degenerate_tangents &&
                             batch.jacobian_capped == sum.jacobian_capped),
             "%s: the batch's report (%zu mirrored, %zu singular, %zu degenerate normals) is not its poses' sum "
             "(%zu, %zu, %zu)", sf_method_name(method), batch.mirrored_vertices, batch.singular_vertices,
             batch.degenerate_normals, sum.mirrored_vertices, sum.singular_vertices, sum.degenerate_normals);
    if (rb == SF_OK)
        for (int i = 0; i < POSES; ++i)
            CONTRACT(memcmp(buf + (size_t)i * 10 * n, buf + ((size_t)POSES + (size_t)i) * 10 * n,
                            10 * n * sizeof(float)) == 0,
                     "%s: pose %d of the batch differs from its own sf_frames_compute", sf_method_name(method), i);
    free(buf);
}

/* Poses and evaluates every unit at one moment of one animation. */
static void run_time(const sf_gltf* g, sf_gltf_pose* pose, size_t anim, double t, int frame, unit* units,
                     size_t count)
{
    sf_error err;
    sf_result r = sf_gltf_pose_sample(pose, anim, t, &err);
    check_error(r, &err, "sf_gltf_pose_sample");
    if (r != SF_OK) return;
    for (size_t k = 0; k < count && !g_nonfinite; ++k) {
        unit* u = &units[k];
        u->ran = 0;
        u->anim = anim;
        u->time = t;
        g_unit = u;
        const sf_gltf_instance* in = &g->instances[u->instance];
        r = sf_gltf_pose_instance(pose, u->instance, u->bones, u->morph, u->to_world, &err);
        check_error(r, &err, "sf_gltf_pose_instance");
        if (r != SF_OK) continue;
        if (!finite_output(u->bones, 12 * in->bone_count, "pose bone matrices") ||
            !finite_output(u->morph, u->pose.morph_weight_count, "pose morph weights") ||
            !finite_output(u->to_world, 16, "pose to_world"))
            return;
        memcpy(u->bones_at[frame], u->bones, 12 * in->bone_count * sizeof(float));
        memcpy(u->morph_at[frame], u->morph, u->pose.morph_weight_count * sizeof(float));
        u->posed[frame] = 1;
        for (int v = 0; v < 2 && !g_nonfinite; ++v) {
            r = sf_evaluation_run(u->ev[v], &u->pose, u->ws[v], NULL, &err);
            check_error(r, &err, "sf_evaluation_run");
            if (r != SF_OK) continue;
            check_results(u, u->ev[v], u->topo[v], v, 1);
            if (v != 0 || g_nonfinite) continue;
            u->ran = 1;
            check_against(u);
            if (k == g_stream.unit && !g_nonfinite) stream_add(u, frame);
        }
    }
    g_unit = NULL;
}

/* The loaded-back .glb holds what was written: same vertices, bit for bit, and the node matrices. */
static void check_reloaded(const sf_gltf* back, const sf_gltf_write_mesh* meshes, const sf_gltf_write_node* nodes,
                           size_t count)
{
    CONTRACT(back->mesh_count == count && back->instance_count == count && back->primitive_count == count,
             "reloaded .glb: %zu meshes, %zu instances, %zu primitives; wrote %zu", back->mesh_count,
             back->instance_count, back->primitive_count, count);
    for (size_t i = 0; i < count; ++i) {
        const sf_gltf_instance* in = &back->instances[i];
        CONTRACT(in->mesh < count, "reloaded instance %zu draws mesh %zu", i, in->mesh);
        const sf_gltf_node* node = &back->nodes[in->node];
        const sf_mesh_desc* w = &meshes[in->mesh].mesh;
        const sf_mesh_desc* m = &back->primitives[back->meshes[in->mesh].first_primitive].mesh;
        CONTRACT(memcmp(node->matrix, nodes[in->node].matrix, 16 * sizeof(float)) == 0,
                 "reloaded node %zu: matrix differs", in->node);
        CONTRACT(m->vertex_count == w->vertex_count && m->triangle_count == w->triangle_count,
                 "reloaded mesh %zu: %zu vertices, %zu triangles; wrote %zu, %zu", in->mesh, m->vertex_count,
                 m->triangle_count, w->vertex_count, w->triangle_count);
        size_t n = w->vertex_count;
        const struct {
            sf_stream a, b;
            size_t ncomp;
            const char* name;
        } s[] = {{m->positions, w->positions, 3, "positions"},
                 {m->normals, w->normals, 3, "normals"},
                 {m->tangents, w->tangents, 4, "tangents"},
                 {m->uvs, w->uvs, 2, "uvs"}};
        for (size_t j = 0; j < sizeof s / sizeof s[0]; ++j) {
            if (!s[j].b.data) continue;
            CONTRACT(s[j].a.data != NULL, "reloaded mesh %zu: no %s", in->mesh, s[j].name);
            size_t sa = s[j].a.stride ? s[j].a.stride : s[j].ncomp * sizeof(float);
            size_t sb = s[j].b.stride ? s[j].b.stride : s[j].ncomp * sizeof(float);
            for (size_t v = 0; v < n; ++v)
                CONTRACT(memcmp((const char*)s[j].a.data + sa * v, (const char*)s[j].b.data + sb * v,
                                s[j].ncomp * sizeof(float)) == 0,
                         "reloaded mesh %zu: %s[%zu] differs", in->mesh, s[j].name, v);
        }
        CONTRACT(memcmp(m->indices, w->indices, 3 * w->triangle_count * sizeof(uint32_t)) == 0,
                 "reloaded mesh %zu: indices differ", in->mesh);
    }
}

/* Writes the units' last results (mesh space, each node carrying its to_world) as a .glb and loads it back. */
static void write_and_reload(const sf_gltf* g, unit* units, size_t count, bits* b)
{
    sf_gltf_write_mesh* meshes = calloc(count + 1, sizeof *meshes);
    sf_gltf_write_node* nodes = calloc(count + 1, sizeof *nodes);
    size_t written = 0;
    sf_method method = (sf_method)take(b, SF_METHOD_DEFAULT_COUNT);
    int with_deformers = (int)take(b, 2); /* also the skinning sets and morph targets (writer paths) */
    for (size_t k = 0; meshes && nodes && k < count; ++k) {
        unit* u = &units[k];
        if (!u->ran) continue;
        const sf_eval_results* res = sf_evaluation_results(u->ev[0]);
        const sf_eval_row* row = sf_evaluation_row(u->ev[0], method);
        if (!row || row->status != SF_OK) row = sf_evaluation_row(u->ev[0], SF_METHOD_RECOMPUTE);
        sf_gltf_write_mesh* wm = &meshes[written];
        wm->name = g->meshes[g->instances[u->instance].mesh].name;
        wm->mesh.vertex_count = u->n;
        wm->mesh.triangle_count = sf_topology_triangle_count(u->topo[0]);
        wm->mesh.indices = sf_topology_indices(u->topo[0]);
        wm->mesh.positions.data = res->positions;
        wm->mesh.normals.data = row->normals ? row->normals : res->reference_normals;
        wm->mesh.tangents.data = res->tangent_frame ? (row->tangents ? row->tangents : res->reference_tangents) : NULL;
        wm->mesh.uvs.data = sf_topology_uvs(u->topo[0]);
        if (with_deformers) { /* the primitive's own JOINTS_n/WEIGHTS_n sets (4 each), not the rigid instance's one */
            const sf_mesh_desc* pm = &g->primitives[u->primitive].mesh;
            wm->mesh.influence_count = pm->influence_count;
            wm->mesh.joints = pm->joints;
            wm->mesh.weights = pm->weights;
            wm->mesh.targets = pm->targets;
            wm->mesh.target_count = pm->target_count;
            wm->weights = u->morph;
        }
        sf_gltf_write_node* wn = &nodes[written];
        wn->name = g->nodes[g->instances[u->instance].node].name;
        wn->parent = SF_GLTF_NONE;
        wn->mesh = written;
        wn->skin = SF_GLTF_NONE;
        wn->matrix = u->to_world;
        ++written;
    }
    if (written) {
        sf_gltf_write_desc d;
        memset(&d, 0, sizeof d);
        d.meshes = meshes;
        d.mesh_count = written;
        d.nodes = nodes;
        d.node_count = written;
        void* glb = NULL;
        size_t glb_size = 0;
        sf_error err;
        sf_result r = sf_gltf_write_glb(&d, NULL, &glb, &glb_size, &err);
        check_error(r, &err, "sf_gltf_write_glb");
        /* Only a joint index over u16 (the writer's JOINTS format) may refuse what the loader gave. */
        CONTRACT(r == SF_OK || (with_deformers && r == SF_ERROR_INVALID_ARGUMENT), "sf_gltf_write_glb: %s",
                 err.message);
        if (r == SF_OK) {
            sf_gltf* back = NULL;
            r = sf_gltf_load_memory(glb, glb_size, NULL, NULL, NULL, &back, &err);
            check_error(r, &err, "sf_gltf_load_memory (written .glb)");
            CONTRACT(r == SF_OK, "the written .glb does not load: %s", err.message);
            check_reloaded(back, meshes, nodes, written);
            sf_gltf_destroy(back);
        }
        sf_gltf_free_bytes(NULL, glb, glb_size);
    }
    free(meshes);
    free(nodes);
}

/* ---- the asset as eval measures it: clips, variants (engine presets, truncations, morph directions) */

/* A parallel_for that runs the ranges last first, as threads may finish them: results must not depend on it. */
static void reversed_for(void* user, size_t count, size_t grain, sf_range_fn* fn, void* ctx)
{
    (void)user;
    if (grain == 0) grain = 1;
    for (size_t p = (count + grain - 1) / grain; p-- > 0;) {
        size_t begin = p * grain, end = begin + grain < count ? begin + grain : count;
        fn(ctx, begin, end);
    }
}

static void same_stats(const sf_method_stats* a, const sf_method_stats* b, const char* what, const char* method)
{
    CONTRACT(a->skipped == b->skipped && memcmp(&a->normal, &b->normal, sizeof a->normal) == 0 &&
                 memcmp(&a->tangent, &b->tangent, sizeof a->tangent) == 0 &&
                 memcmp(&a->rest_normal, &b->rest_normal, sizeof a->rest_normal) == 0 &&
                 memcmp(&a->rest_tangent, &b->rest_tangent, sizeof a->rest_tangent) == 0 &&
                 a->handedness == b->handedness && a->worst_frame == b->worst_frame && a->pos_sum == b->pos_sum &&
                 a->pos_max == b->pos_max && a->pos_count == b->pos_count,
             "%s, %s: serial and reversed-order threads differ (normal mean %.17g / %.17g, position max %g / %g)",
             what, method, a->normal.mean, b->normal.mean, a->pos_max, b->pos_max);
}

/* One method's clip statistics: as documented ranges, over at most `values` angles. */
static void asset_stats(const sf_method_stats* m, size_t values, const char* what)
{
    if (!m->on || m->skipped) return;
    check_stats(&m->normal, values, what);
    check_stats(&m->tangent, SIZE_MAX, what); /* per vertex or per corner */
    if (!finite_double(m->pos_sum, "variant position sum") || !finite_double(m->pos_max, "variant position max"))
        return;
    CONTRACT(m->pos_sum >= 0.0 && m->pos_max >= 0.0, "%s: position sum %g, max %g", what, m->pos_sum, m->pos_max);
}

/* sf_asset_eval over one clip at a few frames, with a variant drawn from the input, twice: serially and with
 * reversed-order threads (every statistic equal bit for bit); recompute-fused's normal statistics equal the
 * reference row's (its normals are the reference's bit for bit). */
static void check_asset(const sf_gltf* g, bits* b)
{
    size_t vertices = 0;
    for (size_t i = 0; i < g->instance_count; ++i) {
        const sf_gltf_mesh* m = &g->meshes[g->instances[i].mesh];
        for (size_t p = m->first_primitive; p < m->first_primitive + m->primitive_count; ++p)
            vertices += g->primitives[p].mesh.vertex_count;
    }
    if (g->instance_count > MAX_INSTANCES || vertices > MAX_TOTAL_VERTICES) return;
    sf_method methods[SF_METHOD_COUNT];
    size_t count = 0;
    for (int m = 0; m < SF_METHOD_COUNT; ++m)
        if (m == SF_METHOD_RECOMPUTE || m == SF_METHOD_RECOMPUTE_FUSED || take(b, 4) == 0)
            methods[count++] = (sf_method)m;
    sf_asset_eval_opts o;
    sf_asset_eval_opts_init(&o);
    o.methods = methods;
    o.method_count = count;
    o.reference_opts = pick_opts(b);
    o.method_opts.morph_directions = (sf_morph_directions)take(b, 3); /* deltas, none, normals */
    o.method_opts.jacobian_cap = take(b, 2) ? 0.0f : 0.5f;
    o.name = "fuzz";
    switch (take(b, 8)) {
    case 0: o.all_engines = true; break;
    case 1: case 2: case 3: o.engine = sf_engine_at(take(b, (unsigned)sf_engine_count())); break;
    case 4: case 5: o.max_influences = 1 + take(b, 4); o.max_morph_targets = take(b, 3); break;
    case 6: o.influence_variants = true; break;
    default: break; /* none */
    }
    size_t anim = take(b, (unsigned)(g->animation_count < 64 ? g->animation_count + 1 : 65));
    if (anim >= g->animation_count) anim = SF_GLTF_NONE;
    double end = anim == SF_GLTF_NONE ? 0.0 : g->animations[anim].end_s;
    o.fps = end > 0.0 ? 2.0 / end : 30.0; /* three frames */
    o.max_frames = 4;
    sf_env reversed;
    memset(&reversed, 0, sizeof reversed);
    reversed.threads.parallel_for = reversed_for;
    sf_asset_eval* e[2] = {NULL, NULL};
    sf_result r[2];
    sf_error err[2];
    sf_asset_clip clip[2];
    for (int k = 0; k < 2; ++k) {
        o.threads = k ? 3 : 1;
        r[k] = sf_asset_eval_create(g, &o, k ? &reversed : NULL, &e[k], &err[k]);
        check_error(r[k], &err[k], "sf_asset_eval_create");
        if (r[k] == SF_OK) {
            r[k] = sf_asset_eval_rest(e[k], &err[k]);
            check_error(r[k], &err[k], "sf_asset_eval_rest");
        }
        if (r[k] == SF_OK) {
            r[k] = sf_asset_eval_clip(e[k], anim, NULL, NULL, &clip[k], &err[k]);
            check_error(r[k], &err[k], "sf_asset_eval_clip");
        }
    }
    CONTRACT(r[0] == r[1] && (r[0] == SF_OK || strcmp(err[0].message, err[1].message) == 0),
             "sf_asset_eval serial: %d (%s), with reversed-order threads: %d (%s)", (int)r[0],
             r[0] == SF_OK ? "" : err[0].message, (int)r[1], r[1] == SF_OK ? "" : err[1].message);
    if (r[0] == SF_OK) {
        size_t values = clip[0].vertices * clip[0].plan.frames;
        CONTRACT(clip[0].plan.frames == clip[1].plan.frames && clip[0].plan.frames <= o.max_frames &&
                     clip[0].vertices == clip[1].vertices,
                 "clip: %zu / %zu frames, %zu / %zu vertices", clip[0].plan.frames, clip[1].plan.frames,
                 clip[0].vertices, clip[1].vertices);
        for (size_t k = 0; k < count && !g_nonfinite; ++k) {
            sf_method m = methods[k];
            same_stats(&clip[0].methods[m], &clip[1].methods[m], "clip", sf_method_name(m));
            asset_stats(&clip[0].methods[m], values, sf_method_name(m));
        }
        const sf_method_stats *ref = &clip[0].methods[SF_METHOD_RECOMPUTE],
                              *fused = &clip[0].methods[SF_METHOD_RECOMPUTE_FUSED];
        if (!ref->skipped && !fused->skipped)
            CONTRACT(memcmp(&ref->normal, &fused->normal, sizeof ref->normal) == 0,
                     "clip: recompute-fused's normal mean %.17g, the reference row's %.17g", fused->normal.mean,
                     ref->normal.mean);
        size_t variants = sf_asset_eval_variant_count(e[0]);
        CONTRACT(variants == sf_asset_eval_variant_count(e[1]), "variants: %zu / %zu", variants,
                 sf_asset_eval_variant_count(e[1]));
        for (size_t i = 0; i < variants && !g_nonfinite; ++i) {
            sf_asset_variant v[2] = {sf_asset_eval_variant(e[0], i), sf_asset_eval_variant(e[1], i)};
            CONTRACT(strcmp(v[0].label, v[1].label) == 0 && v[0].truncated == v[1].truncated &&
                         v[0].method_count == v[1].method_count,
                     "variant %zu: '%s' / '%s'", i, v[0].label, v[1].label);
            for (size_t k = 0; k < v[0].method_count && !g_nonfinite; ++k) {
                sf_method m = v[0].methods[k];
                same_stats(&v[0].stats[m], &v[1].stats[m], v[0].label, sf_method_name(m));
                asset_stats(&v[0].stats[m], values, v[0].label);
            }
        }
    }
    sf_asset_eval_destroy(e[0]);
    sf_asset_eval_destroy(e[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    g_nonfinite = 0;
    bits b = {hash_bytes(data, size)};
    sf_gltf_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.max_file_bytes = (size_t)1 << 24;
    opts.generated_tangents = (sf_tangent_mode)take(&b, 2);
    opts.max_vertices = MAX_VERTICES;
    opts.max_morph_elements = MAX_MORPH_ELEMENTS;
    opts.max_decoded_bytes = MAX_DECODED_BYTES;
    sf_gltf* g = NULL;
    sf_error err;
    /* The seeds' external files (SF_FUZZ_FILES, set by tests/fuzz_run.cmake), else a folder that does not exist:
     * URIs are resolved (and checked) but no file is read. */
    const char* files = getenv("SF_FUZZ_FILES");
    sf_result r = sf_gltf_load_memory(data, size, files ? files : "/nonexistent-skinframe-fuzz", &opts, NULL, &g, &err);
    check_error(r, &err, "sf_gltf_load_memory");
    if (r != SF_OK) return 0;

    unit* units = calloc(MAX_INSTANCES * MAX_PRIMITIVES, sizeof(unit));
    size_t count = 0, total = 0;
    for (size_t i = 0; units && i < g->instance_count && i < MAX_INSTANCES; ++i) {
        const sf_gltf_mesh* m = &g->meshes[g->instances[i].mesh];
        for (size_t p = m->first_primitive; p < m->first_primitive + m->primitive_count &&
                                            p < m->first_primitive + MAX_PRIMITIVES && !g_nonfinite;
             ++p) {
            unit* u = &units[count];
            if (unit_create(g, i, p, MAX_TOTAL_VERTICES - total, &b, u)) {
                total += u->n;
                ++count;
            } else {
                unit_free(u);
                memset(u, 0, sizeof *u);
            }
            g_unit = NULL;
        }
    }
    sf_gltf_pose* pose = NULL;
    r = count && !g_nonfinite ? sf_gltf_pose_create(g, NULL, &pose, &err) : SF_ERROR_INVALID_ARGUMENT;
    if (count && !g_nonfinite) check_error(r, &err, "sf_gltf_pose_create");
    if (r == SF_OK) {
        /* The rest pose or one animation, at a time inside its keys and one past an end (clamped). */
        size_t anim = take(&b, (unsigned)(g->animation_count < 64 ? g->animation_count + 1 : 65));
        if (anim >= g->animation_count) anim = SF_GLTF_NONE;
        double start = anim == SF_GLTF_NONE ? 0.0 : g->animations[anim].start_s;
        double end = anim == SF_GLTF_NONE ? 0.0 : g->animations[anim].end_s;
        double times[TIMES] = {start + (end - start) * take(&b, 1024) / 1023.0,
                               take(&b, 2) ? end + 0.25 : start - 0.25};
        g_stream.unit = take(&b, (unsigned)count);
        g_stream.method = (sf_method)take(&b, SF_METHOD_COUNT);
        g_stream.frames = g_stream.skip = 0;
        for (int k = 0; k < TIMES && !g_nonfinite; ++k) run_time(g, pose, anim, times[k], k, units, count);
        if (!g_nonfinite) stream_finish();
        for (size_t k = 0; k < count && !g_nonfinite; ++k) {
            g_unit = &units[k];
            check_batch(&units[k], (sf_method)take(&b, SF_METHOD_COUNT));
        }
        g_unit = NULL;
        if (!g_nonfinite) write_and_reload(g, units, count, &b);
        if (!g_nonfinite) check_asset(g, &b);
        sf_gltf_pose_destroy(pose);
    }
    for (size_t k = 0; k < count; ++k) unit_free(&units[k]);
    free(units);
    sf_gltf_destroy(g);
    return 0;
}

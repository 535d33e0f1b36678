/* libFuzzer target for everything after loading (built only with -DSF_FUZZ=ON and clang): the input is
 * loaded as a .glb/.gltf from memory under small cost limits, then for each instance and primitive: the
 * instance mesh, a topology with and one without gradients, a pose of one of the file's animations at two
 * times derived from the input, the evaluation of every method, the world placement, and the .glb writer
 * (the posed result written, then loaded back and compared). The options (reference weld, tangents,
 * rebuilt/authored, weighting, morph directions, weight policies, generated tangents at load) come from a
 * hash of the input, so every mutation also tries another variant.
 *
 * It aborts, with a line saying what, when
 *   - a call fails with an empty message or an err->result that is not the returned code (a contract);
 *   - a result breaks a documented rule: normals unit or zero, tangent w +-1, angles in [0, 180],
 *     statistics ordered, shares in [0, 1], the written .glb not loading back as written (a contract);
 *   - an output float is NaN or infinite ("non-finite output", a separate assertion: inputs so large that
 *     the arithmetic overflows should be refused with an error by the layer that takes them). Setting
 *     FUZZ_ALLOW_NONFINITE=1 makes this one skip the input instead, to fuzz on past a known finding.
 * Any crash, leak or sanitizer report is a bug as well. */
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

/* Choices drawn from the input's hash (splitmix64 steps), in a fixed order. */
typedef struct bits {
    uint64_t h;
} bits;

static unsigned take(bits* b, unsigned choices)
{
    uint64_t z = (b->h += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (unsigned)((z ^ (z >> 31)) % choices);
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

static void check_results(unit* u, int k)
{
    const sf_eval_results* res = sf_evaluation_results(u->ev[k]);
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
    place(u, res->positions, res->reference_normals, tf ? res->reference_tangents : NULL, "placed reference");
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
        CONTRACT(row->method != SF_METHOD_RECOMPUTE_FUSED ||
                     memcmp(row->normals, res->reference_normals, 3 * n * sizeof(float)) == 0,
                 "recompute-fused's normals differ from the reference's");
        if (!finite_output(row->normals, 3 * n, name) || !finite_output(row->tangents, 4 * n, name)) return;
        check_directions(row->normals, n, 3, name);
        if (tf) check_directions(row->tangents, n, 4, name);
        check_angles(row->normal_deg, n, "normal angles");
        check_angles(row->tangent_deg, n, "tangent angles");
        check_stats(&row->errors.normal, n, "normal statistics");
        /* Against a MikkTSpace reference tangents are measured per corner (sf_eval_results.tangent_corners). */
        size_t corners = 3 * sf_topology_triangle_count(u->topo[k]);
        check_stats(&row->errors.tangent, res->tangent_corners ? corners : n, "tangent statistics");
        if (res->tangent_corners && row->tangent_corner_deg)
            check_angles(row->tangent_corner_deg, corners, "tangent corner angles");
        CONTRACT(tf || row->errors.tangent.count == 0, "row %s: tangent statistics without a tangent frame", name);
        if (row->method == u->placed) place(u, NULL, row->normals, tf ? row->tangents : NULL, name);
    }
}

/* Poses and evaluates every unit at one moment of one animation. */
static void run_time(const sf_gltf* g, sf_gltf_pose* pose, size_t anim, double t, unit* units, size_t count)
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
        for (int v = 0; v < 2 && !g_nonfinite; ++v) {
            r = sf_evaluation_run(u->ev[v], &u->pose, u->ws[v], NULL, &err);
            check_error(r, &err, "sf_evaluation_run");
            if (r != SF_OK) continue;
            check_results(u, v);
            if (v == 0) u->ran = 1;
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

static uint64_t hash_bytes(const uint8_t* data, size_t size)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
    return h;
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
        for (int k = 0; k < TIMES && !g_nonfinite; ++k) run_time(g, pose, anim, times[k], units, count);
        if (!g_nonfinite) write_and_reload(g, units, count, &b);
        sf_gltf_pose_destroy(pose);
    }
    for (size_t k = 0; k < count; ++k) unit_free(&units[k]);
    free(units);
    sf_gltf_destroy(g);
    return 0;
}

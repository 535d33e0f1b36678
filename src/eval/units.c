/* The units of an asset: one primitive of one scene instance each, with its topology, workspace and pose
 * buffers; and a unit's topology kept to fewer influences. */
#include "eval_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sf_asset_units_free(sf_asset_unit* units, size_t count)
{
    for (size_t i = 0; units && i < count; ++i) {
        if (units[i].owner == i) {
            sf_workspace_destroy(units[i].ws);
            sf_topology_destroy(units[i].topo);
        }
        free(units[i].bones);
        free(units[i].morph);
    }
    free(units);
}

/* The unit's own bones and morph weights, and its pose pointing at them. */
static sf_result unit_pose_buffers(const sf_gltf* g, sf_asset_unit* u, sf_error* err)
{
    const sf_gltf_instance* in = &g->instances[u->instance];
    size_t targets = g->meshes[in->mesh].target_count;
    u->bones = calloc(12 * (in->bone_count ? in->bone_count : 1), sizeof(float));
    u->morph = calloc(targets + 1, sizeof(float));
    if (!u->bones || !u->morph) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    u->pose.bone_matrices = u->bones;
    u->pose.bone_count = in->bone_count;
    u->pose.morph_weights = u->morph;
    u->pose.morph_weight_count = targets;
    return SF_OK;
}

static sf_result unit_create(const sf_gltf* g, size_t instance, size_t primitive, uint32_t methods,
                             sf_backend backend, const sf_env* env, sf_asset_unit* u, sf_error* err)
{
    u->instance = instance;
    u->primitive = primitive;
    sf_mesh_desc desc;
    sf_error e;
    sf_topology_opts topts;
    memset(&topts, 0, sizeof topts);
    topts.skip_gradients = !sfi_methods_use_gradients(methods);
    sf_workspace_opts wopts = {methods | (1u << SF_METHOD_RECOMPUTE), backend}; /* the reference runs too */
    if (sf_gltf_instance_mesh(g, instance, primitive, &desc, &e) == SF_OK) {
        desc.zero_weight_policy = SF_ZERO_WEIGHTS_REST; /* counted as a data problem instead */
        if (sf_topology_create(&desc, &topts, env, &u->topo, &e) == SF_OK) sf_workspace_create(u->topo, &wopts, &u->ws, &e);
    }
    if (!u->ws) {
        sf_gltf_primitive_locate_error(g, primitive, &e); /* names the file's arrays, or generated ones */
        if (err) *err = e;
        return e.result;
    }
    u->n = sf_topology_vertex_count(u->topo);
    u->tangents = sf_topology_has_tangent_frame(u->topo) != 0;
    return unit_pose_buffers(g, u, err);
}

/* Unit k's owner: the first unit of the same primitive whose instance gives sf_gltf_instance_mesh the same
 * skinning fields (rigid, or a skin of as many joints), so the same sf_mesh_desc and topology. next_owner
 * chains the owners of each primitive from first_owner[primitive]. */
static size_t find_owner(const sf_gltf* g, const size_t* instance, const size_t* primitive, size_t* first_owner,
                         size_t* next_owner, size_t k)
{
    const sf_gltf_instance* in = &g->instances[instance[k]];
    size_t* link = &first_owner[primitive[k]];
    for (; *link != SIZE_MAX; link = &next_owner[*link]) {
        const sf_gltf_instance* other = &g->instances[instance[*link]];
        if ((in->skin == SF_GLTF_NONE) == (other->skin == SF_GLTF_NONE) &&
            (in->skin == SF_GLTF_NONE || in->bone_count == other->bone_count))
            return *link;
    }
    *link = k;
    next_owner[k] = SIZE_MAX;
    return k;
}

/* Why a scene has nothing to evaluate. */
static sf_result nothing_to_evaluate(const sf_gltf* gltf, sf_error* err)
{
    char why[160];
    if (gltf->mesh_count == 0)
        snprintf(why, sizeof why, "the file has no meshes");
    else if (gltf->primitive_count == 0)
        snprintf(why, sizeof why, "its meshes have no triangle primitives (%zu POINTS/LINES skipped)",
                 gltf->skipped_primitives);
    else if (gltf->scene != SF_GLTF_NONE)
        snprintf(why, sizeof why, "scenes[%zu] draws no mesh (no node of it has one)", gltf->scene);
    else
        snprintf(why, sizeof why, "no node draws a mesh");
    return sfi_eval_fail(err, SF_ERROR_INVALID_ARGUMENT, "nothing to evaluate: %s", why);
}

typedef struct units_job {
    const sf_gltf* gltf;
    uint32_t methods;
    sf_backend backend;
    const sf_env* env;
    sf_asset_unit* units;
    size_t* owner;    /* per unit */
    size_t* instance; /* per unit */
    size_t* primitive;
    sf_result* results;
    sf_error* errors;
} units_job;

/* Units [begin, end): each its topology and workspace (a thread per few units: a device workspace's set-up
 * waits on its uploads). */
static void units_range(void* ctx, size_t begin, size_t end)
{
    const units_job* job = ctx;
    for (size_t k = begin; k < end; ++k)
        if (job->owner[k] == k)
            job->results[k] = unit_create(job->gltf, job->instance[k], job->primitive[k], job->methods,
                                          job->backend, job->env, &job->units[k], &job->errors[k]);
}

sf_result sf_asset_units_create(const sf_gltf* gltf, uint32_t methods, sf_backend backend, const sf_env* env,
                                sf_asset_unit** out, size_t* count, sf_error* err)
{
    *out = NULL;
    *count = 0;
    size_t total = 0;
    for (size_t i = 0; i < gltf->instance_count; ++i) total += gltf->meshes[gltf->instances[i].mesh].primitive_count;
    if (total == 0) return nothing_to_evaluate(gltf, err); /* an error, not an empty result */
    sf_asset_unit* units = calloc(total, sizeof(sf_asset_unit));
    units_job job = {gltf, methods, backend, env, units, calloc(total, sizeof(size_t)), calloc(total, sizeof(size_t)),
                     calloc(total, sizeof(size_t)), calloc(total, sizeof(sf_result)), calloc(total, sizeof(sf_error))};
    size_t* first_owner = calloc(gltf->primitive_count + 1, sizeof(size_t));
    size_t* next_owner = calloc(total, sizeof(size_t));
    sf_result r = SF_OK;
    if (!units || !job.owner || !job.instance || !job.primitive || !job.results || !job.errors || !first_owner ||
        !next_owner)
        r = sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    for (size_t p = 0; r == SF_OK && p < gltf->primitive_count; ++p) first_owner[p] = SIZE_MAX;
    size_t k = 0;
    for (size_t i = 0; r == SF_OK && i < gltf->instance_count; ++i) {
        const sf_gltf_mesh* m = &gltf->meshes[gltf->instances[i].mesh];
        for (size_t p = m->first_primitive; p < m->first_primitive + m->primitive_count; ++p, ++k) {
            job.instance[k] = i, job.primitive[k] = p;
            /* a device workspace may be driven by several threads at once (one per unit): its own each */
            job.owner[k] = backend == SF_BACKEND_CPU
                               ? find_owner(gltf, job.instance, job.primitive, first_owner, next_owner, k)
                               : k;
            units[k].owner = k; /* its own until it is filled from its owner below */
        }
    }
    if (r == SF_OK) sf_env_parallel_for(env, total, 1, units_range, &job);
    for (k = 0; r == SF_OK && k < total; ++k)
        if (job.owner[k] == k && job.results[k] != SF_OK) {
            if (err) *err = job.errors[k];
            r = job.results[k];
        }
    for (k = 0; r == SF_OK && k < total; ++k) {
        size_t o = job.owner[k];
        if (o == k) continue;
        sf_asset_unit* u = &units[k];
        u->instance = job.instance[k];
        u->primitive = job.primitive[k];
        u->topo = units[o].topo;
        u->ws = units[o].ws;
        u->n = units[o].n;
        u->tangents = units[o].tangents;
        u->owner = o;
        r = unit_pose_buffers(gltf, u, err);
    }
    free(job.owner), free(job.instance), free(job.primitive), free(job.results), free(job.errors);
    free(first_owner), free(next_owner);
    if (r != SF_OK) {
        sf_asset_units_free(units, units ? total : 0);
        return r;
    }
    *out = units;
    *count = total;
    return SF_OK;
}

sf_result sf_asset_unit_pose(const sf_gltf_pose* pose, sf_asset_unit* u, float* to_world, sf_error* err)
{
    sf_error e;
    if (sf_gltf_pose_instance(pose, u->instance, u->bones, u->morph, to_world, &e) != SF_OK)
        return sfi_eval_fail(err, e.result, "instance %zu: %s", u->instance, e.message);
    return SF_OK;
}

/* The first max_influences slots of each vertex in file order, renormalised over them (weight 1 on slot 0's
 * joint where they sum to 0) unless as_given, into joints/weights (M per vertex); *cut: the vertices with weight
 * past them. */
static void first_slots_of(const sf_mesh_desc* desc, uint32_t M, bool as_given, uint32_t* joints, float* weights,
                           size_t* cut)
{
    uint32_t K = desc->influence_count;
    size_t count = 0;
    for (size_t v = 0; v < desc->vertex_count; ++v) {
        const float* w = desc->weights + (size_t)K * v;
        const uint32_t* j = desc->joints + (size_t)K * v;
        bool lost = false;
        for (uint32_t i = M; i < K; ++i) lost |= w[i] != 0.0f;
        count += lost;
        if (!joints) continue;
        double sum = 0.0;
        for (uint32_t i = 0; i < M; ++i) sum += (double)w[i];
        for (uint32_t i = 0; i < M; ++i) {
            joints[(size_t)M * v + i] = j[i];
            weights[(size_t)M * v + i] = as_given ? w[i] : sum > 0.0 ? (float)((double)w[i] / sum) : (i == 0 ? 1.0f : 0.0f);
        }
    }
    *cut = count;
}

/* The unit's topology and workspace from desc with its influences replaced by the kept ones. */
static sf_result truncated_topology(sf_mesh_desc desc, uint32_t max_influences, bool first_slots, bool as_given,
                                    uint32_t methods,
                                    const sf_env* env, sf_topology** topo, sf_workspace** ws, sf_error* e)
{
    uint32_t kept = max_influences < desc.influence_count ? max_influences : desc.influence_count;
    uint32_t* joints = malloc((size_t)kept * desc.vertex_count * sizeof *joints);
    float* weights = malloc((size_t)kept * desc.vertex_count * sizeof *weights);
    sf_result r = SF_OK;
    if (!joints || !weights) r = sfi_eval_fail(e, SF_ERROR_OUT_OF_MEMORY, "out of memory");
    size_t cut = 0;
    if (r == SF_OK && first_slots)
        first_slots_of(&desc, kept, as_given, joints, weights, &cut);
    else if (r == SF_OK)
        sf_influences_truncate(desc.vertex_count, desc.influence_count, desc.joints, desc.weights, max_influences,
                               joints, weights, NULL, e);
    if (r == SF_OK) {
        desc.influence_count = kept;
        desc.joints = joints;
        desc.weights = weights;
        desc.zero_weight_policy = SF_ZERO_WEIGHTS_REST;
        if (first_slots && as_given) desc.weight_policy = SF_WEIGHTS_AS_GIVEN;
        sf_topology_opts topts;
        memset(&topts, 0, sizeof topts);
        topts.skip_gradients = !(methods & (1u << SF_METHOD_JACOBIAN));
        sf_workspace_opts wopts = {methods | (1u << SF_METHOD_RECOMPUTE), SF_BACKEND_CPU};
        if ((r = sf_topology_create(&desc, &topts, env, topo, e)) != SF_OK ||
            (r = sf_workspace_create(*topo, &wopts, ws, e)) != SF_OK) {
            sf_topology_destroy(*topo);
            *topo = NULL;
            r = r == SF_OK ? SF_ERROR_INVALID_ARGUMENT : r;
        }
    }
    free(joints); /* the topology keeps its own copy */
    free(weights);
    return r;
}

sf_result sf_asset_unit_truncated(const sf_gltf* g, const sf_asset_unit* u, uint32_t max_influences, bool first_slots,
                                  bool weights_as_given, uint32_t methods, const sf_env* env, sf_topology** topo, sf_workspace** ws,
                                  size_t* truncated, sf_error* err)
{
    *topo = NULL;
    *ws = NULL;
    *truncated = 0;
    if (max_influences == 0) return SF_OK;
    sf_mesh_desc desc;
    sf_error e;
    if (sf_gltf_instance_mesh(g, u->instance, u->primitive, &desc, &e) != SF_OK) {
        if (err) *err = e;
        return e.result;
    }
    if (first_slots && max_influences < desc.influence_count)
        first_slots_of(&desc, max_influences, false, NULL, NULL, truncated);
    else if (first_slots)
        return SF_OK; /* every slot read */
    else if (sf_influences_truncate(desc.vertex_count, desc.influence_count, desc.joints, desc.weights, max_influences,
                                    NULL, NULL, truncated, &e) != SF_OK)
        return sfi_eval_fail(err, e.result, "primitive %zu: %s", u->primitive, e.message);
    if (*truncated == 0) return SF_OK;
    sf_result r = truncated_topology(desc, max_influences, first_slots, weights_as_given, methods, env, topo, ws, &e);
    if (r == SF_ERROR_OUT_OF_MEMORY && strcmp(e.message, "out of memory") == 0) return sfi_eval_fail(err, r, "out of memory");
    if (r != SF_OK)
        return sfi_eval_fail(err, r, "primitive %zu kept to %u influences: %s", u->primitive,
                             (unsigned)max_influences, e.message);
    return SF_OK;
}

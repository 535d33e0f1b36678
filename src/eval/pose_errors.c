/* Errors of posing and evaluating an asset's frames in the asset's own terms: the animation and time of the
 * frame, and for a bone matrix the joint's node and its glTF path, so a user can find what to repair. */
#include "pose_errors.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The detail after "field[index]: " in a core message, or the whole message. */
static const char* detail_of(const sf_error* ee)
{
    size_t len = strlen(ee->field);
    if (len && strncmp(ee->message, ee->field, len) == 0) {
        const char* colon = strstr(ee->message + len, ": ");
        if (colon) return colon + 2;
    }
    return ee->message;
}

/* "node 12 'LeftArm' (skins[0].joints[1])" for bone b of the instance, into out. */
static void bone_node(const sf_gltf* g, const sf_gltf_instance* in, size_t b, char* out, size_t size)
{
    size_t node = in->node;
    char path[64] = "the mesh's own node";
    if (in->skin != SF_GLTF_NONE && b < g->skins[in->skin].joint_count) {
        node = g->skins[in->skin].joints[b];
        snprintf(path, sizeof path, "skins[%zu].joints[%zu]", in->skin, b);
    }
    const char* name = node < g->node_count ? g->nodes[node].name : "";
    if (name && name[0])
        snprintf(out, size, "node %zu '%.64s' (%s)", node, name, path);
    else
        snprintf(out, size, "node %zu (%s)", node, path);
}

sf_result sfi_unit_fail(const sf_gltf* g, const sf_asset_unit* u, const sf_eval_results* res, const sf_error* ee,
                        sf_error* err)
{
    const sf_gltf_instance* in = &g->instances[u->instance];
    if (strcmp(ee->field, "pose.bone_matrices") == 0 && ee->index != SIZE_MAX) {
        char where[160];
        bone_node(g, in, ee->index, where, sizeof where);
        return sfi_eval_fail(err, ee->result, "%s: its skinning matrix's %s", where, detail_of(ee));
    }
    if (strcmp(ee->field, "pose.morph_weights") == 0 && ee->index != SIZE_MAX)
        return sfi_eval_fail(err, ee->result, "node %zu: meshes[%zu].weights[%zu]: %s", in->node, in->mesh,
                             ee->index, detail_of(ee));
    if (res && res->failed == SF_EVAL_STAGE_METHOD)
        return sfi_eval_fail(err, ee->result, "%s: %s", sf_method_name(res->failed_method), ee->message);
    return sfi_eval_fail(err, ee->result, "reference (recompute): %s", ee->message);
}

sf_result sfi_frame_fail(const sf_gltf* g, size_t animation, double t, sf_error* err)
{
    char where[160];
    if (animation == SF_GLTF_NONE || animation >= g->animation_count)
        snprintf(where, sizeof where, "rest pose");
    else if (g->animations[animation].name[0])
        snprintf(where, sizeof where, "animation '%.96s' at t = %.3f s", g->animations[animation].name, t);
    else
        snprintf(where, sizeof where, "animation %zu at t = %.3f s", animation, t);
    return sfi_eval_prefix(err, where);
}

sf_result sf_asset_unit_pose_check(const sf_gltf* g, const sf_asset_unit* u, size_t animation, double time_s, sf_error* err)
{
    sf_error ee;
    if (sf_pose_validate(u->topo, &u->pose, &ee) == SF_OK) return SF_OK;
    if (!err) return ee.result;
    sfi_unit_fail(g, u, NULL, &ee, err);
    return sfi_frame_fail(g, animation, time_s, err);
}

/* glTF animations as read: channels and samplers, checked (sampling is anim.c's). */
#include "gltf_loader.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

sf_result load_animations(loader* L)
{
    sf_gltf* g = L->g;
    const cJSON* arr;
    TRY(get_array(L, L->root, "animations", "", 0, &arr, &g->animation_count));
    sf_gltf_animation* anims = own_alloc(L, g->animation_count + 1, sizeof(sf_gltf_animation));
    if (!anims) return oom(L, "animations");
    g->animations = anims;
    size_t ai = 0;
    for (const cJSON* a = arr ? arr->child : NULL; a; a = a->next, ++ai) {
        char base[48];
        snprintf(base, sizeof base, "animations[%zu]", ai);
        if (!cJSON_IsObject(a)) return jfail(L, base, NULL, "is not an object");
        sf_gltf_animation* an = &anims[ai];
        an->name = get_name(L, a);
        const cJSON *channels, *samplers;
        size_t cc, sc;
        TRY(get_array(L, a, "channels", base, 1, &channels, &cc));
        TRY(get_array(L, a, "samplers", base, 1, &samplers, &sc));
        sf_gltf_channel* ch = own_alloc(L, cc + 1, sizeof(sf_gltf_channel));
        if (!ch) return oom(L, base);
        an->channels = ch;
        an->start_s = HUGE_VAL;
        an->end_s = -HUGE_VAL;
        size_t ci = 0, used = 0;
        for (const cJSON* c = channels->child; c; c = c->next, ++ci) {
            char cbase[80], tbase[96];
            snprintf(cbase, sizeof cbase, "%s.channels[%zu]", base, ci);
            snprintf(tbase, sizeof tbase, "%s.target", cbase);
            if (!cJSON_IsObject(c)) return jfail(L, cbase, NULL, "is not an object");
            size_t si;
            TRY(get_index(L, c, "sampler", cbase, 1, sc, "samplers in this animation", &si));
            const cJSON* target = jget(c, "target");
            if (!cJSON_IsObject(target)) return jfail(L, cbase, "target", "missing");
            size_t node;
            TRY(get_index(L, target, "node", tbase, 0, g->node_count, "nodes", &node));
            const cJSON* path = jget(target, "path");
            if (!cJSON_IsString(path)) return jfail(L, tbase, "path", "missing");
            sf_gltf_path pth;
            size_t comps;
            if (strcmp(path->valuestring, "translation") == 0)
                pth = SF_GLTF_TRANSLATION, comps = 3;
            else if (strcmp(path->valuestring, "rotation") == 0)
                pth = SF_GLTF_ROTATION, comps = 4;
            else if (strcmp(path->valuestring, "scale") == 0)
                pth = SF_GLTF_SCALE, comps = 3;
            else if (strcmp(path->valuestring, "weights") == 0)
                pth = SF_GLTF_WEIGHTS, comps = 0;
            else
                continue; /* other paths (KHR_animation_pointer) do not move geometry */
            if (node == SF_GLTF_NONE) continue; /* the spec: channels without a node are ignored */
            if (pth == SF_GLTF_WEIGHTS) {
                if (g->nodes[node].mesh == SF_GLTF_NONE)
                    return jfail(L, tbase, "node", "animates weights of nodes[%zu], which has no mesh", node);
                comps = g->meshes[g->nodes[node].mesh].target_count;
                if (comps == 0)
                    return jfail(L, tbase, "node", "animates weights of nodes[%zu], whose mesh has no targets", node);
            }
            char sbase[80];
            snprintf(sbase, sizeof sbase, "%s.samplers[%zu]", base, si);
            const cJSON* s = cJSON_GetArrayItem(samplers, (int)si);
            if (!cJSON_IsObject(s)) return jfail(L, sbase, NULL, "is not an object");
            size_t in, outa;
            TRY(get_index(L, s, "input", sbase, 1, L->accessor_count, "accessors", &in));
            TRY(get_index(L, s, "output", sbase, 1, L->accessor_count, "accessors", &outa));
            const cJSON* interp = jget(s, "interpolation");
            sf_gltf_interpolation ip = SF_GLTF_LINEAR;
            if (interp) {
                if (!cJSON_IsString(interp)) return jfail(L, sbase, "interpolation", "is not a string");
                if (strcmp(interp->valuestring, "LINEAR") == 0)
                    ip = SF_GLTF_LINEAR;
                else if (strcmp(interp->valuestring, "STEP") == 0)
                    ip = SF_GLTF_STEP;
                else if (strcmp(interp->valuestring, "CUBICSPLINE") == 0)
                    ip = SF_GLTF_CUBICSPLINE;
                else
                    return jfail(L, sbase, "interpolation", "\"%.20s\" is not LINEAR, STEP or CUBICSPLINE",
                                 interp->valuestring);
            }
            size_t keys = L->accessors[in].count;
            float* times;
            TRY(read_floats(L, in, sbase, "input", 1, 1, &times));
            if (times[0] < 0.0f)
                return jfail(L, sbase, "input", "accessors[%zu] starts at %g s; glTF times are >= 0", in,
                             (double)times[0]);
            for (size_t k = 1; k < keys; ++k)
                if (times[k] < times[k - 1])
                    return jfail(L, sbase, "input", "accessors[%zu] times decrease at key %zu", in, k);
            size_t per_key = (ip == SF_GLTF_CUBICSPLINE ? 3 : 1) * comps;
            const accessor* oac = &L->accessors[outa];
            size_t ocomp = pth == SF_GLTF_WEIGHTS ? 1 : comps;
            if (oac->count / (per_key / ocomp) != keys || oac->count % (per_key / ocomp))
                return jfail(L, sbase, "output", "accessors[%zu].count %zu, expected %zu (%zu keys, %s%s)", outa,
                             oac->count, keys * (per_key / ocomp), keys,
                             ip == SF_GLTF_CUBICSPLINE ? "3 per key for CUBICSPLINE" : "1 per key",
                             pth == SF_GLTF_WEIGHTS ? ", times the morph target count" : "");
            float* values;
            TRY(read_floats(L, outa, sbase, "output", ocomp, 1, &values));
            sf_gltf_channel* o = &ch[used++];
            o->node = node;
            o->path = pth;
            o->interpolation = ip;
            o->key_count = keys;
            o->times = times;
            o->values = values;
            o->components = comps;
            if (times[0] < an->start_s) an->start_s = times[0];
            if (times[keys - 1] > an->end_s) an->end_s = times[keys - 1];
        }
        an->channel_count = used;
        if (!used) an->start_s = an->end_s = 0.0;
    }
    return SF_OK;
}

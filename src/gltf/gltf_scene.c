/* glTF nodes, skins and scenes: the node hierarchy and the instances a scene draws. */
#include "gltf_loader.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

sf_result load_nodes(loader* L)
{
    sf_gltf* g = L->g;
    const cJSON* arr;
    TRY(get_array(L, L->root, "nodes", "", 0, &arr, &g->node_count));
    sf_gltf_node* nodes = own_alloc(L, g->node_count + 1, sizeof(sf_gltf_node));
    size_t* order = own_alloc(L, g->node_count + 1, sizeof(size_t));
    size_t* stack = tmp_alloc(L, g->node_count + 1, sizeof(size_t));
    if (!nodes || !order || !stack) return oom(L, "nodes");
    g->nodes = nodes;
    L->g->internal->node_order = order;
    size_t skin_count = 0;
    const cJSON* skins = jget(L->root, "skins");
    if (cJSON_IsArray(skins)) skin_count = (size_t)cJSON_GetArraySize(skins);
    for (size_t i = 0; i < g->node_count; ++i) nodes[i].parent = SF_GLTF_NONE;
    size_t i = 0;
    for (const cJSON* nj = arr ? arr->child : NULL; nj; nj = nj->next, ++i) {
        char base[48];
        snprintf(base, sizeof base, "nodes[%zu]", i);
        if (!cJSON_IsObject(nj)) return jfail(L, base, NULL, "is not an object");
        sf_gltf_node* nd = &nodes[i];
        nd->name = get_name(L, nj);
        TRY(get_index(L, nj, "mesh", base, 0, g->mesh_count, "meshes", &nd->mesh));
        TRY(get_index(L, nj, "skin", base, 0, skin_count, "skins", &nd->skin));
        nd->rotation[3] = 1.0f;
        nd->scale[0] = nd->scale[1] = nd->scale[2] = 1.0f;
        TRY(get_floats(L, nj, "translation", base, 3, nd->translation));
        TRY(get_floats(L, nj, "rotation", base, 4, nd->rotation));
        TRY(get_floats(L, nj, "scale", base, 3, nd->scale));
        if (jget(nj, "matrix")) {
            if (jget(nj, "translation") || jget(nj, "rotation") || jget(nj, "scale"))
                return jfail(L, base, "matrix", "given together with translation/rotation/scale");
            TRY(get_floats(L, nj, "matrix", base, 16, nd->matrix));
            nd->has_matrix = 1;
        } else {
            double q = 0.0;
            for (int k = 0; k < 4; ++k) q += (double)nd->rotation[k] * nd->rotation[k];
            if (!(q > 1e-12)) return jfail(L, base, "rotation", "is a zero quaternion");
            for (int k = 0; k < 4; ++k) nd->rotation[k] = (float)(nd->rotation[k] / sqrt(q));
            sfi_mat4_from_trs(nd->translation, nd->rotation, nd->scale, nd->matrix);
        }
        const cJSON* w = jget(nj, "weights");
        if (w) {
            size_t wc = cJSON_IsArray(w) ? (size_t)cJSON_GetArraySize(w) : 0;
            if (nd->mesh == SF_GLTF_NONE) return jfail(L, base, "weights", "given on a node without a mesh");
            if (!cJSON_IsArray(w) || wc != g->meshes[nd->mesh].target_count)
                return jfail(L, base, "weights", "must hold %zu numbers (meshes[%zu] morph targets)",
                             g->meshes[nd->mesh].target_count, nd->mesh);
            float* wf = own_alloc(L, wc + 1, sizeof(float));
            if (!wf) return oom(L, base);
            TRY(get_floats(L, nj, "weights", base, wc, wf));
            nd->weights = wf;
            nd->weight_count = wc;
        }
    }
    i = 0;
    for (const cJSON* nj = arr ? arr->child : NULL; nj; nj = nj->next, ++i) {
        char base[48];
        snprintf(base, sizeof base, "nodes[%zu]", i);
        const cJSON* ch;
        size_t cc;
        TRY(get_array(L, nj, "children", base, 0, &ch, &cc));
        for (const cJSON* c = ch ? ch->child : NULL; c; c = c->next) {
            size_t k;
            if (!array_index(c, g->node_count, &k)) return jfail(L, base, "children", "holds an index that is not a node");
            if (k == i || nodes[k].parent != SF_GLTF_NONE)
                return jfail(L, base, "children", "node %zu already has a parent (or is the node itself)", k);
            nodes[k].parent = i;
        }
    }
    /* Parents before children (breadth-first from the roots); a node never reached sits on a cycle. */
    {
        size_t count = 0, head = 0;
        uint8_t* placed = tmp_alloc(L, g->node_count + 1, 1);
        size_t* first = tmp_alloc(L, g->node_count + 1, sizeof(size_t));
        size_t* kids = tmp_alloc(L, g->node_count + 1, sizeof(size_t));
        if (!placed || !first || !kids) return oom(L, "nodes");
        for (size_t v = 0; v < g->node_count; ++v)
            if (nodes[v].parent == SF_GLTF_NONE) order[count++] = v, placed[v] = 1;
        /* Children lists from the parent array (CSR). */
        for (size_t v = 0; v < g->node_count; ++v)
            if (nodes[v].parent != SF_GLTF_NONE) first[nodes[v].parent + 1]++;
        for (size_t v = 0; v < g->node_count; ++v) first[v + 1] += first[v];
        memcpy(stack, first, g->node_count * sizeof(size_t));
        for (size_t v = 0; v < g->node_count; ++v)
            if (nodes[v].parent != SF_GLTF_NONE) kids[stack[nodes[v].parent]++] = v;
        while (head < count) {
            size_t v = order[head++];
            for (size_t c = first[v]; c < first[v + 1]; ++c) {
                size_t k = kids[c];
                if (!placed[k]) {
                    placed[k] = 1;
                    order[count++] = k;
                }
            }
        }
        for (size_t v = 0; v < g->node_count; ++v)
            if (!placed[v]) {
                char base[48];
                snprintf(base, sizeof base, "nodes[%zu]", v);
                return jfail(L, base, "children", "the node hierarchy has a cycle through this node");
            }
    }
    return SF_OK;
}

sf_result load_skins(loader* L)
{
    sf_gltf* g = L->g;
    const cJSON* arr;
    TRY(get_array(L, L->root, "skins", "", 0, &arr, &g->skin_count));
    sf_gltf_skin* skins = own_alloc(L, g->skin_count + 1, sizeof(sf_gltf_skin));
    if (!skins) return oom(L, "skins");
    g->skins = skins;
    size_t i = 0;
    for (const cJSON* s = arr ? arr->child : NULL; s; s = s->next, ++i) {
        char base[48];
        snprintf(base, sizeof base, "skins[%zu]", i);
        if (!cJSON_IsObject(s)) return jfail(L, base, NULL, "is not an object");
        sf_gltf_skin* sk = &skins[i];
        sk->name = get_name(L, s);
        const cJSON* joints;
        TRY(get_array(L, s, "joints", base, 1, &joints, &sk->joint_count));
        if (sk->joint_count == 0) return jfail(L, base, "joints", "is empty");
        size_t* j = own_alloc(L, sk->joint_count, sizeof(size_t));
        float* ibm = own_alloc(L, sk->joint_count, 16 * sizeof(float));
        if (!j || !ibm) return oom(L, base);
        size_t k = 0;
        for (const cJSON* e = joints->child; e; e = e->next, ++k) {
            if (!array_index(e, g->node_count, &j[k])) return jfail(L, base, "joints", "element %zu is not a node index", k);
        }
        TRY(get_index(L, s, "skeleton", base, 0, g->node_count, "nodes", &sk->skeleton));
        size_t ai;
        TRY(get_index(L, s, "inverseBindMatrices", base, 0, L->accessor_count, "accessors", &ai));
        if (ai != SF_GLTF_NONE) {
            if (L->accessors[ai].count < sk->joint_count)
                return jfail(L, base, "inverseBindMatrices", "accessors[%zu].count %zu < %zu joints", ai,
                             L->accessors[ai].count, sk->joint_count);
            if (strcmp(L->accessors[ai].type, "MAT4") != 0)
                return jfail(L, base, "inverseBindMatrices", "accessors[%zu] is %s, expected MAT4", ai,
                             L->accessors[ai].type);
            float* m;
            TRY(read_floats(L, ai, base, "inverseBindMatrices", 16, 0, &m));
            memcpy(ibm, m, sk->joint_count * 16 * sizeof(float));
        } else {
            for (size_t q = 0; q < sk->joint_count; ++q)
                ibm[16 * q] = ibm[16 * q + 5] = ibm[16 * q + 10] = ibm[16 * q + 15] = 1.0f;
        }
        sk->joints = j;
        sk->inverse_bind_matrices = ibm;
    }
    return SF_OK;
}

sf_result load_scenes(loader* L)
{
    sf_gltf* g = L->g;
    const cJSON* arr;
    TRY(get_array(L, L->root, "scenes", "", 0, &arr, &g->scene_count));
    TRY(get_index(L, L->root, "scene", "", 0, g->scene_count, "scenes", &g->scene));
    if (g->scene == SF_GLTF_NONE && g->scene_count) g->scene = 0;
    uint8_t* in_scene = tmp_alloc(L, g->node_count + 1, 1);
    if (!in_scene) return oom(L, "scenes");
    size_t si = 0;
    for (const cJSON* s = arr ? arr->child : NULL; s; s = s->next, ++si) {
        char base[48];
        snprintf(base, sizeof base, "scenes[%zu]", si);
        if (!cJSON_IsObject(s)) return jfail(L, base, NULL, "is not an object");
        const cJSON* roots;
        size_t rc;
        TRY(get_array(L, s, "nodes", base, 0, &roots, &rc));
        for (const cJSON* r = roots ? roots->child : NULL; r; r = r->next) {
            size_t k;
            if (!array_index(r, g->node_count, &k)) return jfail(L, base, "nodes", "holds an index that is not a node");
            if (g->nodes[k].parent != SF_GLTF_NONE)
                return jfail(L, base, "nodes", "node %zu is not a root (it has a parent)", k);
            if (si == g->scene) in_scene[k] = 1;
        }
    }
    /* Mark descendants (order has parents first). */
    const size_t* order = g->internal->node_order;
    size_t count = 0;
    for (size_t q = 0; q < g->node_count; ++q) {
        size_t v = order[q];
        if (g->scene == SF_GLTF_NONE)
            in_scene[v] = 1;
        else if (g->nodes[v].parent != SF_GLTF_NONE && in_scene[g->nodes[v].parent])
            in_scene[v] = 1;
        if (in_scene[v] && g->nodes[v].mesh != SF_GLTF_NONE) count++;
    }
    sf_gltf_instance* inst = own_alloc(L, count + 1, sizeof(sf_gltf_instance));
    if (!inst) return oom(L, "instances");
    size_t k = 0, max_vertices = 1;
    for (size_t v = 0; v < g->node_count; ++v) {
        if (!in_scene[v] || g->nodes[v].mesh == SF_GLTF_NONE) continue;
        sf_gltf_instance* in = &inst[k++];
        in->node = v;
        in->mesh = g->nodes[v].mesh;
        in->skin = g->nodes[v].skin;
        in->bone_count = in->skin == SF_GLTF_NONE ? 1 : g->skins[in->skin].joint_count;
        const sf_gltf_mesh* m = &g->meshes[in->mesh];
        for (size_t p = m->first_primitive; p < m->first_primitive + m->primitive_count; ++p) {
            const sf_gltf_primitive* pr = &g->primitives[p];
            if (pr->mesh.vertex_count > max_vertices) max_vertices = pr->mesh.vertex_count;
            if (in->skin == SF_GLTF_NONE) continue;
            char base[96];
            snprintf(base, sizeof base, "meshes[%zu].primitives[%zu].attributes", pr->mesh_index, pr->primitive_index);
            if (!pr->joint_sets)
                return jfail(L, base, "JOINTS_0", "missing, but nodes[%zu] skins this mesh with skins[%zu]", v,
                             in->skin);
            if (pr->max_joint >= in->bone_count)
                return jfail(L, base, "JOINTS_0", "joint %u >= skins[%zu] joint count %zu (nodes[%zu])", pr->max_joint,
                             in->skin, in->bone_count, v);
        }
    }
    g->instances = inst;
    g->instance_count = count;
    g->internal->zero_joints = own_alloc(L, max_vertices, sizeof(uint32_t));
    g->internal->one_weights = own_alloc(L, max_vertices, sizeof(float));
    if (!g->internal->zero_joints || !g->internal->one_weights) return oom(L, "instances");
    for (size_t v = 0; v < max_vertices; ++v) g->internal->one_weights[v] = 1.0f;
    return SF_OK;
}

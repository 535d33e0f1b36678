/* The data of web/test/fan_three.mjs: for each glTF file, its first primitive at the middle of its first
 * animation, as the library sees it (rest streams, influences, dense morph position deltas, the pose's bone
 * matrices and morph weights), its jacobian-fan attributes (float and snorm16, sf_fan_attributes_export) and the
 * library's jacobian-fan frames at that pose (sf_frames_compute). Writes one JSON object to stdout.
 *   fan_dump FILE.glb... */
#include "skinframe.h"
#include "skinframe_gltf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void floats(const char* name, const float* a, size_t count, int comma)
{
    printf("\"%s\":[", name);
    for (size_t i = 0; i < count; ++i) printf(i ? ",%.9g" : "%.9g", (double)a[i]);
    printf("]%s", comma ? "," : "");
}

static void ints(const char* name, const int32_t* a, size_t count, int comma)
{
    printf("\"%s\":[", name);
    for (size_t i = 0; i < count; ++i) printf(i ? ",%d" : "%d", (int)a[i]);
    printf("]%s", comma ? "," : "");
}

/* The attributes in enc as JSON arrays: joints, coef (6G arrays of 4n), morph (2T arrays of 3n), scale. */
static int attributes(const sf_topology* topo, sf_fan_encoding enc, const char* key)
{
    sf_error err;
    sf_fan_attributes a;
    memset(&a, 0, sizeof a);
    if (sf_fan_layout_get(topo, &a.layout, &err) != SF_OK) return 1;
    size_t n = a.layout.vertex_count, G = a.layout.slot_groups, T = a.layout.target_count;
    size_t elem = enc == SF_FAN_SNORM16 ? 2 : 4, total = 24 * G * n + 6 * T * n + 4 * G * n;
    a.encoding = enc;
    a.normal = calloc(3 * n + 1, sizeof(float));
    a.joints = calloc(4 * G * n + 1, sizeof(uint16_t));
    a.coef = calloc(24 * G * n + 1, elem);
    a.morph = calloc(6 * T * n + 1, elem);
    a.scale = calloc(SF_FAN_SCALES * n + 1, sizeof(float));
    int32_t* tmp = calloc(total + 1, sizeof(int32_t));
    if (!tmp || sf_fan_attributes_export(topo, &a, &err) != SF_OK) {
        fprintf(stderr, "fan_dump: %s\n", err.message);
        return 1;
    }
    printf("\"%s\":{\"groups\":%zu,\"targets\":%zu,", key, G, T);
    floats("normal", a.normal, 3 * n, 1);
    for (size_t i = 0; i < 4 * G * n; ++i) tmp[i] = a.joints[i];
    ints("joints", tmp, 4 * G * n, 1);
    if (enc == SF_FAN_SNORM16) {
        for (size_t i = 0; i < 24 * G * n; ++i) tmp[i] = ((int16_t*)a.coef)[i];
        ints("coef", tmp, 24 * G * n, 1);
        for (size_t i = 0; i < 6 * T * n; ++i) tmp[i] = ((int16_t*)a.morph)[i];
        ints("morph", tmp, 6 * T * n, 1);
        floats("scale", a.scale, SF_FAN_SCALES * n, 0);
    } else {
        floats("coef", (const float*)a.coef, 24 * G * n, 1);
        floats("morph", (const float*)a.morph, 6 * T * n, 0);
    }
    printf("}");
    free(a.normal);
    free(a.joints);
    free(a.coef);
    free(a.morph);
    free(a.scale);
    free(tmp);
    return 0;
}

/* One posed primitive: the mesh, the pose, the attributes, the expected frames. */
static int dump(const char* name, const sf_topology* topo, const sf_pose* pose)
{
    sf_gpu_buffer list[SF_GPU_MAX_BUFFERS];
    size_t count = sf_topology_gpu_buffers(topo, list, SF_GPU_MAX_BUFFERS);
    sf_topology_stats st;
    sf_topology_get_stats(topo, &st);
    size_t n = st.vertex_count, K = st.influence_count, T = st.target_count;
    const sf_gpu_buffer *pos = NULL, *nrm = NULL, *tan = NULL, *uvs = NULL, *jnt = NULL, *wgt = NULL, *moff = NULL,
                        *mtgt = NULL, *mdp = NULL;
    for (size_t k = 0; k < count; ++k) {
        const sf_gpu_buffer* b = &list[k];
        if (!strcmp(b->name, "rest_positions")) pos = b;
        if (!strcmp(b->name, "rest_normals")) nrm = b;
        if (!strcmp(b->name, "rest_tangents")) tan = b;
        if (!strcmp(b->name, "uvs")) uvs = b;
        if (!strcmp(b->name, "joints")) jnt = b;
        if (!strcmp(b->name, "weights")) wgt = b;
        if (!strcmp(b->name, "morph_offsets")) moff = b;
        if (!strcmp(b->name, "morph_target")) mtgt = b;
        if (!strcmp(b->name, "morph_dp")) mdp = b;
    }
    if (K > 4) {
        fprintf(stderr, "fan_dump: %s has %zu influences per vertex, three.js takes 4\n", name, K);
        return 1;
    }
    float* skin_w = calloc(4 * n + 1, sizeof(float));
    int32_t* skin_j = calloc(4 * n + 1, sizeof(int32_t));
    float* dense = calloc(3 * n * T + 1, sizeof(float));
    float* exp_n = calloc(3 * n + 1, sizeof(float));
    float* exp_t = calloc(4 * n + 1, sizeof(float));
    for (size_t v = 0; v < n; ++v)
        for (size_t i = 0; i < K; ++i) {
            skin_j[4 * v + i] = (int32_t)((const uint32_t*)jnt->data)[K * v + i];
            skin_w[4 * v + i] = ((const float*)wgt->data)[K * v + i];
        }
    const uint32_t* off = (const uint32_t*)moff->data;
    for (size_t v = 0; v < n; ++v)
        for (uint32_t e = off[v]; e < off[v + 1]; ++e)
            memcpy(dense + 3 * n * ((const uint32_t*)mtgt->data)[e] + 3 * v, (const float*)mdp->data + 3 * e,
                   3 * sizeof(float));
    sf_workspace* ws = NULL;
    sf_error err;
    sf_workspace_opts wo = {1u << SF_METHOD_JACOBIAN_FAN, SF_BACKEND_CPU};
    sf_frames_out out = {NULL, exp_n, exp_t};
    if (sf_workspace_create(topo, &wo, &ws, &err) != SF_OK ||
        sf_frames_compute(topo, pose, SF_METHOD_JACOBIAN_FAN, NULL, ws, &out, &err) != SF_OK) {
        fprintf(stderr, "fan_dump: %s: %s\n", name, err.message);
        return 1;
    }
    sf_workspace_destroy(ws);
    printf("{\"name\":\"%s\",\"vertices\":%zu,\"targets\":%zu,\"boneCount\":%zu,\"hasTangents\":%s,", name, n, T,
           pose->bone_count, uvs && uvs->count ? "true" : "false");
    floats("position", pos->data, 3 * n, 1);
    floats("normal", nrm->data, 3 * n, 1);
    floats("tangent", tan->data, 4 * n, 1);
    ints("skinIndex", skin_j, K ? 4 * n : 0, 1);
    floats("skinWeight", skin_w, K ? 4 * n : 0, 1);
    floats("morphPosition", dense, 3 * n * T, 1);
    floats("bones", pose->bone_matrices, 12 * pose->bone_count, 1);
    floats("morphWeights", pose->morph_weights, pose->morph_weights ? T : 0, 1);
    floats("expectedNormal", exp_n, 3 * n, 1);
    floats("expectedTangent", exp_t, 4 * n, 1);
    int bad = attributes(topo, SF_FAN_FLOAT32, "fanFloat");
    printf(",");
    bad |= attributes(topo, SF_FAN_SNORM16, "fanSnorm");
    printf("}");
    free(skin_w);
    free(skin_j);
    free(dense);
    free(exp_n);
    free(exp_t);
    return bad;
}

static int dump_file(const char* path, int first)
{
    sf_gltf* g = NULL;
    sf_gltf_pose* gp = NULL;
    sf_topology* topo = NULL;
    sf_error err;
    sf_mesh_desc d;
    if (sf_gltf_load_file(path, NULL, NULL, &g, &err) != SF_OK || sf_gltf_pose_create(g, NULL, &gp, &err) != SF_OK) {
        fprintf(stderr, "fan_dump: %s: %s\n", path, err.message);
        return 1;
    }
    double t = 0.0;
    if (g->animation_count) t = 0.5 * (g->animations[0].start_s + g->animations[0].end_s);
    const sf_gltf_mesh* mesh = &g->meshes[g->instances[0].mesh];
    int bad = sf_gltf_pose_sample(gp, g->animation_count ? 0 : SF_GLTF_NONE, t, &err) != SF_OK ||
              sf_gltf_instance_mesh(g, 0, mesh->first_primitive, &d, &err) != SF_OK ||
              sf_topology_create(&d, NULL, NULL, &topo, &err) != SF_OK;
    if (bad) {
        fprintf(stderr, "fan_dump: %s: %s\n", path, err.message);
    } else {
        size_t B = g->instances[0].bone_count;
        float* bones = calloc(12 * B + 1, sizeof(float));
        float* morph = calloc(d.target_count + 1, sizeof(float));
        bad = sf_gltf_pose_instance(gp, 0, bones, morph, NULL, &err) != SF_OK;
        sf_pose pose = {bones, B, d.target_count ? morph : NULL, d.target_count};
        const char* base = strrchr(path, '/');
        if (!first) printf(",");
        bad = bad || dump(base ? base + 1 : path, topo, &pose);
        free(bones);
        free(morph);
    }
    sf_topology_destroy(topo);
    sf_gltf_pose_destroy(gp);
    sf_gltf_destroy(g);
    return bad;
}

int main(int argc, char** argv)
{
    int bad = 0;
    printf("{\"cases\":[");
    for (int i = 1; i < argc; ++i) bad |= dump_file(argv[i], i == 1);
    printf("]}\n");
    return bad;
}

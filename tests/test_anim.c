// LABELS: unit
/* Animation sampling (LINEAR, STEP, CUBICSPLINE, slerp) against values computed by hand, and synthetic
 * glTF files (written by sf_gltf_write_glb) with STEP/CUBICSPLINE on a skin and on morph weights. */
#include "sf_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <float.h>
#include <string.h>

static sf_gltf_channel channel(sf_gltf_path path, sf_gltf_interpolation ip, size_t keys, const float* t,
                               const float* v, size_t comps)
{
    sf_gltf_channel c;
    memset(&c, 0, sizeof c);
    c.path = path;
    c.interpolation = ip;
    c.key_count = keys;
    c.times = t;
    c.values = v;
    c.components = comps;
    return c;
}

static void test_linear(void)
{
    const float t[3] = {0, 1, 3};
    const float v[9] = {0, 0, 0, 2, 4, 6, 4, 0, 0};
    sf_gltf_channel c = channel(SF_GLTF_TRANSLATION, SF_GLTF_LINEAR, 3, t, v, 3);
    float o[3];
    sf_gltf_channel_sample(&c, 0.5, o);
    CHECK_NEAR(o[0], 1.0, 1e-6);
    CHECK_NEAR(o[1], 2.0, 1e-6);
    CHECK_NEAR(o[2], 3.0, 1e-6);
    sf_gltf_channel_sample(&c, 2.0, o); /* halfway between keys 1 and 2 */
    CHECK_NEAR(o[0], 3.0, 1e-6);
    CHECK_NEAR(o[1], 2.0, 1e-6);
    CHECK_NEAR(o[2], 3.0, 1e-6);
    sf_gltf_channel_sample(&c, -1.0, o); /* clamped before the first key */
    CHECK_NEAR(o[0], 0.0, 1e-6);
    sf_gltf_channel_sample(&c, 7.0, o); /* clamped after the last */
    CHECK_NEAR(o[0], 4.0, 1e-6);
    CHECK_NEAR(o[1], 0.0, 1e-6);
    sf_gltf_channel_sample(&c, 1.0, o); /* exactly on a key */
    CHECK_NEAR(o[1], 4.0, 1e-6);
}

static void test_step(void)
{
    const float t[3] = {0, 1, 3};
    const float v[3] = {10, 20, 30};
    sf_gltf_channel c = channel(SF_GLTF_WEIGHTS, SF_GLTF_STEP, 3, t, v, 1);
    float o;
    sf_gltf_channel_sample(&c, 0.99, &o);
    CHECK_NEAR(o, 10.0, 0);
    sf_gltf_channel_sample(&c, 1.0, &o);
    CHECK_NEAR(o, 20.0, 0);
    sf_gltf_channel_sample(&c, 2.9, &o);
    CHECK_NEAR(o, 20.0, 0);
    sf_gltf_channel_sample(&c, 100.0, &o);
    CHECK_NEAR(o, 30.0, 0);
}

static void test_cubicspline(void)
{
    /* keys t = 0, 2; values 1, 3; out-tangent of key 0 = 2, in-tangent of key 1 = -1.
     * p(u) = h00 v0 + h10 td b0 + h01 v1 + h11 td a1 with td = 2:
     * u = 0.5:  0.5 + 0.125*4 + 1.5 + (-0.125)*(-2) = 2.75
     * u = 0.25: 0.84375 + 0.140625*4 + 0.15625*3 + (-0.046875)*(-2) = 1.96875 */
    const float t[2] = {0, 2};
    const float v[6] = {/* in, value, out */ 9, 1, 2, -1, 3, 9};
    sf_gltf_channel c = channel(SF_GLTF_WEIGHTS, SF_GLTF_CUBICSPLINE, 2, t, v, 1);
    float o;
    sf_gltf_channel_sample(&c, 1.0, &o);
    CHECK_NEAR(o, 2.75, 1e-6);
    sf_gltf_channel_sample(&c, 0.5, &o);
    CHECK_NEAR(o, 1.96875, 1e-6);
    sf_gltf_channel_sample(&c, -3.0, &o); /* clamped: the value, not a tangent */
    CHECK_NEAR(o, 1.0, 0);
    sf_gltf_channel_sample(&c, 5.0, &o);
    CHECK_NEAR(o, 3.0, 0);
}

static void test_slerp(void)
{
    const float s = 0.70710678f;
    const float t[2] = {0, 1};
    const float q[8] = {0, 0, 0, 1, 0, 0, s, s}; /* identity -> 90 degrees about z */
    sf_gltf_channel c = channel(SF_GLTF_ROTATION, SF_GLTF_LINEAR, 2, t, q, 4);
    float o[4];
    sf_gltf_channel_sample(&c, 0.5, o); /* 45 degrees: (0, 0, sin 22.5, cos 22.5) */
    CHECK_NEAR(o[0], 0.0, 1e-6);
    CHECK_NEAR(o[2], 0.38268343, 1e-6);
    CHECK_NEAR(o[3], 0.92387953, 1e-6);
    sf_gltf_channel_sample(&c, 0.25, o); /* 22.5 degrees: (0, 0, sin 11.25, cos 11.25) */
    CHECK_NEAR(o[2], 0.19509032, 1e-6);
    CHECK_NEAR(o[3], 0.98078528, 1e-6);
    /* The same rotation stored with the opposite sign: shortest path gives the same rotation. */
    const float qn[8] = {0, 0, 0, 1, 0, 0, -s, -s};
    sf_gltf_channel cn = channel(SF_GLTF_ROTATION, SF_GLTF_LINEAR, 2, t, qn, 4);
    sf_gltf_channel_sample(&cn, 0.5, o);
    CHECK_NEAR(fabs(o[2]), 0.38268343, 1e-6);
    CHECK_NEAR(fabs(o[3]), 0.92387953, 1e-6);
    CHECK(o[2] * o[3] > 0.0f); /* +45 degrees, not -135 */
    /* CUBICSPLINE rotations come back normalised. */
    const float qc[24] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, s, s, 0, 0, 0, 0};
    sf_gltf_channel cc = channel(SF_GLTF_ROTATION, SF_GLTF_CUBICSPLINE, 2, t, qc, 4);
    sf_gltf_channel_sample(&cc, 0.3, o);
    CHECK_NEAR(o[0] * o[0] + o[1] * o[1] + o[2] * o[2] + o[3] * o[3], 1.0, 1e-6);
}

/* ---------------------------------------------------------------- synthetic files */

static sf_gltf* load_desc(const sf_gltf_write_desc* d)
{
    void* data;
    size_t size;
    sf_error err;
    if (sf_gltf_write_glb(d, NULL, &data, &size, &err) != SF_OK) {
        fprintf(stderr, "write: %s\n", err.message);
        return NULL;
    }
    sf_gltf* g = NULL;
    if (sf_gltf_load_memory(data, size, NULL, NULL, NULL, &g, &err) != SF_OK) fprintf(stderr, "load: %s\n", err.message);
    sf_gltf_free_bytes(NULL, data, size);
    return g;
}

static sf_gltf_write_node node(const char* name, size_t parent, size_t mesh, size_t skin, float ty)
{
    sf_gltf_write_node n;
    memset(&n, 0, sizeof n);
    n.name = name;
    n.parent = parent;
    n.mesh = mesh;
    n.skin = skin;
    n.translation[1] = ty;
    return n;
}

/* Deformed positions of instance 0, primitive 0 at (animation, t). */
static int deform_at(const sf_gltf* g, size_t anim, double t, float* out)
{
    sf_gltf_pose* pose;
    sf_error err;
    if (sf_gltf_pose_create(g, NULL, &pose, &err) != SF_OK) return 0;
    sf_mesh_desc m;
    float bones[12 * 8], weights[8];
    int ok = sf_gltf_pose_sample(pose, anim, t, &err) == SF_OK &&
             sf_gltf_pose_instance(pose, 0, bones, weights, NULL, &err) == SF_OK &&
             sf_gltf_instance_mesh(g, 0, 0, &m, &err) == SF_OK;
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    ok = ok && sf_topology_create(&m, NULL, NULL, &topo, &err) == SF_OK && sf_workspace_create(topo, NULL, &ws, &err) == SF_OK;
    sf_pose p = {bones, g->instances[0].bone_count, weights, m.target_count};
    ok = ok && sf_deform_positions(topo, &p, ws, out, &err) == SF_OK;
    if (!ok) fprintf(stderr, "deform: %s\n", err.message);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    sf_gltf_pose_destroy(pose);
    return ok;
}

static void test_skin_step_cubicspline(void)
{
    /* Joint 0 at the origin, joint 1 its child at (0, 1, 0). Vertex 0 follows joint 0, vertices 1 and 2
     * follow joint 1. Channels: CUBICSPLINE translation of joint 0 along x, STEP rotation of joint 1. */
    const float pos[9] = {0, 0, 0, 1, 1, 0, 0, 2, 0};
    const uint32_t idx[3] = {0, 1, 2};
    const uint32_t joints[12] = {0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    const float weights[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    sf_gltf_write_mesh wm;
    memset(&wm, 0, sizeof wm);
    wm.mesh.vertex_count = 3;
    wm.mesh.triangle_count = 1;
    wm.mesh.indices = idx;
    wm.mesh.positions.data = pos;
    wm.mesh.influence_count = 4;
    wm.mesh.joints = joints;
    wm.mesh.weights = weights;
    sf_gltf_write_node nodes[3] = {node("skinned", SF_GLTF_NONE, 0, 0, 0), node("j0", SF_GLTF_NONE, SF_GLTF_NONE,
                                                                                SF_GLTF_NONE, 0),
                                   node("j1", 1, SF_GLTF_NONE, SF_GLTF_NONE, 1)};
    const size_t skin_joints[2] = {1, 2};
    const float ibm[32] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1};
    sf_gltf_write_skin skin = {2, skin_joints, ibm};
    const float tt[2] = {0, 2};
    const float tv[18] = {0, 0, 0, 0, 0, 0, 3, 0, 0, /* key 0: in, value, out */ 1, 0, 0, 2, 0, 0, 0, 0, 0};
    const float rt[2] = {0, 1};
    const float s = 0.70710678f;
    const float rv[8] = {0, 0, 0, 1, 0, 0, s, s};
    sf_gltf_channel ch[2] = {channel(SF_GLTF_TRANSLATION, SF_GLTF_CUBICSPLINE, 2, tt, tv, 3),
                             channel(SF_GLTF_ROTATION, SF_GLTF_STEP, 2, rt, rv, 4)};
    ch[0].node = 1;
    ch[1].node = 2;
    sf_gltf_write_animation anim = {"move", ch, 2};
    sf_gltf_write_desc d;
    memset(&d, 0, sizeof d);
    d.meshes = &wm;
    d.mesh_count = 1;
    d.nodes = nodes;
    d.node_count = 3;
    d.skins = &skin;
    d.skin_count = 1;
    d.animations = &anim;
    d.animation_count = 1;
    sf_gltf* g = load_desc(&d);
    CHECK(g != NULL);
    CHECK(g->animation_count == 1 && g->animations[0].channel_count == 2);
    CHECK(g->animations[0].channels[0].interpolation == SF_GLTF_CUBICSPLINE);
    CHECK(g->animations[0].channels[1].interpolation == SF_GLTF_STEP);
    float out[9];
    /* t = 0.5: x = h10*2*3 + h01*2 + h11*2*1 at u = 0.25 = 0.84375 + 0.3125 - 0.09375 = 1.0625; no rotation. */
    int ok = deform_at(g, 0, 0.5, out);
    CHECK(ok);
    CHECK_NEAR(out[0], 1.0625, 1e-5);
    CHECK_NEAR(out[1], 0.0, 1e-5);
    CHECK_NEAR(out[3], 2.0625, 1e-5); /* vertex 1 = (1, 1, 0) moved by x */
    CHECK_NEAR(out[4], 1.0, 1e-5);
    /* t = 1.5: u = 0.75: x = 0.046875*6 + 0.84375*2 - 0.140625*2 = 1.6875; joint 1 turned 90 degrees about z
     * around (0, 1, 0): (1, 1, 0) -> (0, 2, 0) -> + x; (0, 2, 0) -> (-1, 1, 0) -> + x. */
    ok = deform_at(g, 0, 1.5, out);
    CHECK(ok);
    CHECK_NEAR(out[0], 1.6875, 1e-5);
    CHECK_NEAR(out[3], 1.6875, 1e-5);
    CHECK_NEAR(out[4], 2.0, 1e-5);
    CHECK_NEAR(out[6], 1.6875 - 1.0, 1e-5);
    CHECK_NEAR(out[7], 1.0, 1e-5);
    /* Before 1 s the STEP rotation still holds its first key. */
    ok = deform_at(g, 0, 0.999, out);
    CHECK(ok);
    CHECK_NEAR(out[4], 1.0, 1e-5);
    /* At rest (no animation) the bones are the bind pose: positions equal the rest positions. */
    ok = deform_at(g, SF_GLTF_NONE, 0.0, out);
    CHECK(ok);
    for (int k = 0; k < 9; ++k) CHECK_NEAR(out[k], pos[k], 1e-6);
    sf_gltf_destroy(g);
}

static void test_morph_weights_step_cubicspline(void)
{
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint32_t idx[3] = {0, 1, 2};
    const float d0[9] = {0, 0, 1, 0, 0, 0, 0, 0, 0};
    const float d1[9] = {0, 0, 0, 0, 0, 2, 0, 0, 0};
    sf_morph_target_desc targets[2];
    memset(targets, 0, sizeof targets);
    targets[0].position_deltas = d0;
    targets[1].position_deltas = d1;
    const float defaults[2] = {0.5f, 0.25f};
    sf_gltf_write_mesh wm;
    memset(&wm, 0, sizeof wm);
    wm.mesh.vertex_count = 3;
    wm.mesh.triangle_count = 1;
    wm.mesh.indices = idx;
    wm.mesh.positions.data = pos;
    wm.mesh.targets = targets;
    wm.mesh.target_count = 2;
    wm.weights = defaults;
    sf_gltf_write_node n = node("morph", SF_GLTF_NONE, 0, SF_GLTF_NONE, 0);
    const float st[2] = {0, 1};
    const float sv[4] = {0.2f, 0.4f, 0.6f, 0.8f};
    const float ct[2] = {0, 2};
    /* per key: in (2), value (2), out (2) */
    const float cv[12] = {0, 0, 0, 1, 1, -1, 2, 0, 1, 0, 0, 0};
    sf_gltf_channel ch1 = channel(SF_GLTF_WEIGHTS, SF_GLTF_STEP, 2, st, sv, 2);
    sf_gltf_channel ch2 = channel(SF_GLTF_WEIGHTS, SF_GLTF_CUBICSPLINE, 2, ct, cv, 2);
    sf_gltf_write_animation anims[2] = {{"step", &ch1, 1}, {"cubic", &ch2, 1}};
    sf_gltf_write_desc d;
    memset(&d, 0, sizeof d);
    d.meshes = &wm;
    d.mesh_count = 1;
    d.nodes = &n;
    d.node_count = 1;
    d.animations = anims;
    d.animation_count = 2;
    sf_gltf* g = load_desc(&d);
    CHECK(g != NULL);
    CHECK(g->meshes[0].target_count == 2);
    CHECK_NEAR(g->meshes[0].weights[0], 0.5, 0);
    CHECK_NEAR(g->meshes[0].weights[1], 0.25, 0);
    float out[9];
    CHECK(deform_at(g, SF_GLTF_NONE, 0.0, out)); /* rest: the mesh's default weights */
    CHECK_NEAR(out[2], 0.5, 1e-6);
    CHECK_NEAR(out[5], 0.5, 1e-6);
    CHECK(deform_at(g, 0, 0.5, out)); /* STEP: first key */
    CHECK_NEAR(out[2], 0.2, 1e-6);
    CHECK_NEAR(out[5], 0.8, 1e-6);
    CHECK(deform_at(g, 0, 1.0, out)); /* STEP: second key */
    CHECK_NEAR(out[2], 0.6, 1e-6);
    CHECK_NEAR(out[5], 1.6, 1e-6);
    /* CUBICSPLINE at t = 1 (u = 0.5, td = 2):
     * w0 = 0.5*0 + 0.125*2*1 + 0.5*1 + (-0.125)*2*2 = 0.25;  w1 = 0.5*1 + 0.125*2*(-1) + 0 + 0 = 0.25 */
    CHECK(deform_at(g, 1, 1.0, out));
    CHECK_NEAR(out[2], 0.25, 1e-6);
    CHECK_NEAR(out[5], 0.5, 1e-6);
    sf_gltf_destroy(g);
}

static void test_times_checked(void)
{
    /* glTF: animation times start at >= 0 (a negative first key is refused, naming the sampler input). */
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    sf_gltf_write_mesh wm;
    memset(&wm, 0, sizeof wm);
    wm.mesh.vertex_count = 3;
    wm.mesh.triangle_count = 1;
    wm.mesh.positions.data = pos;
    sf_gltf_write_node n = node("n", SF_GLTF_NONE, 0, SF_GLTF_NONE, 0);
    const float t[2] = {-1, 1};
    const float v[6] = {0, 0, 0, 1, 0, 0};
    sf_gltf_channel ch = channel(SF_GLTF_TRANSLATION, SF_GLTF_LINEAR, 2, t, v, 3);
    sf_gltf_write_animation anim = {"neg", &ch, 1};
    sf_gltf_write_desc d;
    memset(&d, 0, sizeof d);
    d.meshes = &wm;
    d.mesh_count = 1;
    d.nodes = &n;
    d.node_count = 1;
    d.animations = &anim;
    d.animation_count = 1;
    void* data;
    size_t size;
    CHECK_OK(sf_gltf_write_glb(&d, NULL, &data, &size, NULL));
    sf_gltf* g = NULL;
    sf_error err;
    sf_result r = sf_gltf_load_memory(data, size, NULL, NULL, NULL, &g, &err);
    sf_gltf_free_bytes(NULL, data, size);
    CHECK_RESULT(r, SF_ERROR_GLTF);
    CHECK(strcmp(err.field, "animations[0].samplers[0].input") == 0);
    /* From 0 on it loads. */
    const float t2[2] = {0, 1};
    ch.times = t2;
    CHECK_OK(sf_gltf_write_glb(&d, NULL, &data, &size, NULL));
    r = sf_gltf_load_memory(data, size, NULL, NULL, NULL, &g, &err);
    sf_gltf_free_bytes(NULL, data, size);
    CHECK_OK(r);
    CHECK(g->animations[0].end_s == 1.0);
    sf_gltf_destroy(g);
}
/* A spline through finite keys whose tangents overshoot the float range saturates instead of becoming an
 * infinity (the fuzzer found morph weights of -inf); the core's bounds then refuse it by name. */
static void test_cubicspline_saturates(void)
{
    const float t[2] = {0, 1e37f};
    const float v[6] = {0, 3e38f, -3e38f, 3e38f, -3e38f, 0};
    sf_gltf_channel c = channel(SF_GLTF_WEIGHTS, SF_GLTF_CUBICSPLINE, 2, t, v, 1);
    for (double time = 1e35; time < 1e37; time *= 3) {
        float o;
        sf_gltf_channel_sample(&c, time, &o);
        CHECK(isfinite(o));
    }
    float o;
    sf_gltf_channel_sample(&c, 5e36, &o);
    CHECK(o == -FLT_MAX || o == FLT_MAX || fabsf(o) < FLT_MAX);
}

/* Rotation keys taken as given, by each engine's slerp (sf_gltf_pose_set_rotations_as_given), read from the node
 * matrix composed from the quaternion as it is: for (0, 0, z, w), m00 = 1 - 2 z^2 and m10 = 2 w z. Keys about z,
 * q(a, L) = L (0, 0, sin a/2, cos a/2), at t = 0.5 of keys at 0 and 1 s:
 * - same angle 0.2, lengths 1.2 and 0.9: dot 1.08, every rule's lerp branch: (L0 + L1)/2 = 1.05 times the unit
 *   key; three.js and glam normalise it, Babylon.js does not;
 * - angles 0 and pi/2, lengths 1.2 and 0.9: dot 1.08 cos(pi/4), every rule's slerp branch: (q0 + q1) / (2 cos
 *   W/2), W = acos(dot), nothing normalised;
 * - two equal keys of length 0.9: three.js returns the key; Babylon.js and glam slerp it (dot 0.81 below both
 *   lerp branches), which scales it by 1 / cos(W/2), W = acos(0.81). */
#define SFT_QUARTER_PI 0.78539816339744831

static void test_rotations_as_given(void)
{
    const double a = 0.2;
    const float t[2] = {0, 1};
    const float same[8] = {0, 0, (float)(1.2 * sin(a / 2)), (float)(1.2 * cos(a / 2)),
                           0, 0, (float)(0.9 * sin(a / 2)), (float)(0.9 * cos(a / 2))};
    const float apart[8] = {0, 0, 0, 1.2f, 0, 0, (float)(0.9 * sin(SFT_QUARTER_PI)), (float)(0.9 * cos(SFT_QUARTER_PI))};
    const float equal[8] = {0, 0, (float)(0.9 * sin(a / 2)), (float)(0.9 * cos(a / 2)),
                            0, 0, (float)(0.9 * sin(a / 2)), (float)(0.9 * cos(a / 2))};
    const float* keys[3] = {same, apart, equal};
    sf_gltf_channel ch[3];
    sf_gltf_write_animation anims[3];
    for (int k = 0; k < 3; ++k) {
        ch[k] = channel(SF_GLTF_ROTATION, SF_GLTF_LINEAR, 2, t, keys[k], 4);
        anims[k].name = NULL;
        anims[k].channels = &ch[k];
        anims[k].channel_count = 1;
    }
    sf_gltf_write_node n = node("bone", SF_GLTF_NONE, SF_GLTF_NONE, SF_GLTF_NONE, 0.0f);
    sf_gltf_write_desc d;
    memset(&d, 0, sizeof d);
    d.nodes = &n;
    d.node_count = 1;
    d.animations = anims;
    d.animation_count = 3;
    sf_gltf* g = load_desc(&d);
    CHECK(g != NULL);
    double w_apart = acos(1.08 * cos(SFT_QUARTER_PI)), w_equal = acos(0.81);
    double za = (double)apart[2] + apart[6], wa = (double)apart[3] + apart[7];
    double ze = equal[2], we = equal[3];
    /* expected (z, w) per animation and rule: three.js, Babylon.js, glam */
    const double want[3][3][2] = {
        {{sin(a / 2), cos(a / 2)}, {1.05 * sin(a / 2), 1.05 * cos(a / 2)}, {sin(a / 2), cos(a / 2)}},
        {{za / (2 * cos(w_apart / 2)), wa / (2 * cos(w_apart / 2))},
         {za / (2 * cos(w_apart / 2)), wa / (2 * cos(w_apart / 2))},
         {za / (2 * cos(w_apart / 2)), wa / (2 * cos(w_apart / 2))}},
        {{ze, we}, {ze / cos(w_equal / 2), we / cos(w_equal / 2)}, {ze / cos(w_equal / 2), we / cos(w_equal / 2)}},
    };
    static const int rules[3] = {SF_GLTF_ROTATIONS_THREE, SF_GLTF_ROTATIONS_BABYLON, SF_GLTF_ROTATIONS_GLAM};
    sf_gltf_pose* pose = NULL;
    sf_error err;
    CHECK(sf_gltf_pose_create(g, NULL, &pose, &err) == SF_OK);
    for (int r = 0; r < 3; ++r) {
        sf_gltf_pose_set_rotations_as_given(pose, rules[r]);
        for (int k = 0; k < 3; ++k) {
            CHECK(sf_gltf_pose_sample(pose, (size_t)k, 0.5, &err) == SF_OK);
            const float* m = sf_gltf_pose_global(pose, 0);
            double z = want[k][r][0], w = want[k][r][1];
            CHECK_NEAR(m[0], 1.0 - 2.0 * z * z, 1e-6);
            CHECK_NEAR(m[1], 2.0 * w * z, 1e-6);
        }
    }
    /* the default makes every rotation unit: the equal keys give the unit key */
    sf_gltf_pose_set_rotations_as_given(pose, SF_GLTF_ROTATIONS_UNIT);
    CHECK(sf_gltf_pose_sample(pose, 2, 0.5, &err) == SF_OK);
    CHECK_NEAR(sf_gltf_pose_global(pose, 0)[0], cos(a), 1e-6);
    sf_gltf_pose_destroy(pose);
    sf_gltf_destroy(g);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"linear", test_linear},
        {"step", test_step},
        {"cubicspline", test_cubicspline},
        {"cubicspline_saturates", test_cubicspline_saturates},
        {"slerp", test_slerp},
        {"skin_step_cubicspline", test_skin_step_cubicspline},
        {"morph_weights_step_cubicspline", test_morph_weights_step_cubicspline},
        {"times_checked", test_times_checked},
        {"rotations_as_given", test_rotations_as_given},
    };
    return SFT_RUN(cases, argc, argv);
}

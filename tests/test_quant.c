// LABELS: unit
/* Quantized skinning (sf_quantized_skin): the same bits as sf_frames_compute's `skinned` fed with the streams
 * decoded as glTF decodes them (a topology with the weights as given and weightless vertices at rest), for every
 * stream type it takes; every instruction set the CPU has bit for bit the scalar reference, on odd vertex counts
 * and tails, interleaved and packed streams; nothing written past the outputs; bad descriptions and poses refused
 * naming the field (types, strides, scale, joints). */
#include "sf_internal.h"
#include "sf_test.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t g_rng = 0x2545F4914F6CDD1Dull;
static double rnd(void) /* [0, 1) */
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (double)(g_rng >> 11) * (1.0 / 9007199254740992.0);
}

/* A quantized mesh in one interleaved buffer, 40 bytes a vertex at most: position (3 x 16 bits, padded to 8
 * bytes), normal (4 x 16), tangent (4 x 16), joints (4 x 16), weights (4 x 16); each stream's own type. */
#define VSTRIDE 40

typedef struct qmesh {
    sf_quantized_mesh q;
    uint8_t* buf;
    float* bones;
    size_t bones_n;
} qmesh;

static void put(uint8_t* p, sf_quant_type t, int32_t c)
{
    if (t == SF_QUANT_INT16 || t == SF_QUANT_UINT16 || t == SF_QUANT_SNORM16 || t == SF_QUANT_UNORM16) {
        uint16_t u = (uint16_t)c;
        memcpy(p, &u, 2);
    } else {
        p[0] = (uint8_t)c;
    }
}

static int wide(sf_quant_type t)
{
    return t == SF_QUANT_INT16 || t == SF_QUANT_UINT16 || t == SF_QUANT_SNORM16 || t == SF_QUANT_UNORM16;
}

/* The decode of the glTF specification ("Animation" and KHR_mesh_quantization), written here on its own. */
static float spec_decode(sf_quant_type t, int32_t c)
{
    switch (t) {
    case SF_QUANT_SNORM8: return fmaxf((float)c / 127.0f, -1.0f);
    case SF_QUANT_UNORM8: return (float)c / 255.0f;
    case SF_QUANT_SNORM16: return fmaxf((float)c / 32767.0f, -1.0f);
    case SF_QUANT_UNORM16: return (float)c / 65535.0f;
    default: return (float)c;
    }
}

static int32_t get(const uint8_t* p, sf_quant_type t)
{
    switch (t) {
    case SF_QUANT_INT8:
    case SF_QUANT_SNORM8: return (int8_t)p[0];
    case SF_QUANT_UINT8:
    case SF_QUANT_UNORM8: return p[0];
    case SF_QUANT_INT16:
    case SF_QUANT_SNORM16: {
        int16_t x;
        memcpy(&x, p, 2);
        return x;
    }
    default: {
        uint16_t x;
        memcpy(&x, p, 2);
        return x;
    }
    }
}

static int32_t snorm_max(sf_quant_type t) { return t == SF_QUANT_SNORM8 ? 127 : 32767; }

/* Random streams: distinct joints per vertex with weights summing to the type's one, every 7th vertex
 * weightless, every 5th with a single influence; bones random rotations and scales, a few mirrored. */
static void qmesh_make(qmesh* m, size_t n, sf_quant_type pt, sf_quant_type nt, sf_quant_type jt, sf_quant_type wt,
                       size_t bones)
{
    memset(m, 0, sizeof *m);
    m->buf = calloc(n ? n : 1, VSTRIDE);
    m->bones = malloc(12 * bones * sizeof(float));
    m->bones_n = bones;
    for (size_t b = 0; b < bones; ++b) {
        float* M = m->bones + 12 * b;
        for (int k = 0; k < 9; ++k) M[k] = (float)(rnd() - 0.5) * 0.6f;
        float s = b % 5 == 3 ? -1.0f : 1.0f; /* mirrored */
        M[0] += s, M[4] += 1.0f, M[8] += 1.0f;
        for (int k = 9; k < 12; ++k) M[k] = (float)(rnd() - 0.5) * 4.0f;
    }
    size_t ps = wide(pt) ? 2 : 1, ns = wide(nt) ? 2 : 1, js = wide(jt) ? 2 : 1, ws = wide(wt) ? 2 : 1;
    int32_t plo = pt == SF_QUANT_INT16 || pt == SF_QUANT_SNORM16 ? -32768 : pt == SF_QUANT_INT8 || pt == SF_QUANT_SNORM8 ? -128 : 0;
    int32_t phi = wide(pt) ? (plo ? 32767 : 65535) : (plo ? 127 : 255);
    int32_t one = wide(wt) ? 65535 : 255;
    for (size_t v = 0; v < n; ++v) {
        uint8_t* p = m->buf + VSTRIDE * v;
        for (int k = 0; k < 3; ++k) put(p + k * ps, pt, plo + (int32_t)(rnd() * (phi - plo + 1)));
        int32_t nm = snorm_max(nt);
        for (int k = 0; k < 4; ++k) {
            int32_t a = (int32_t)((rnd() * 2.0 - 1.0) * nm), b = (int32_t)((rnd() * 2.0 - 1.0) * nm);
            if (v % 11 == 4 && k == 0) a = -nm - 1; /* the clamped -128 / -32768 */
            put(p + 8 + k * ns, nt, a);
            put(p + 16 + k * ns, nt, k == 3 ? (rnd() < 0.5 ? -nm : nm) : b);
        }
        uint32_t j0 = (uint32_t)(rnd() * (double)bones);
        int32_t left = one;
        for (int i = 0; i < 4; ++i) {
            put(p + 24 + i * js, jt, (int32_t)((j0 + (uint32_t)i * 7u) % bones));
            int32_t w = i == 3 ? left : (int32_t)(rnd() * left);
            if (v % 5 == 2) w = i == 0 ? one : 0;
            if (v % 7 == 6) w = 0;
            put(p + 32 + i * ws, wt, w);
            left -= w;
        }
    }
    sf_quantized_mesh* q = &m->q;
    q->vertex_count = n;
    q->positions = (sf_quant_stream){m->buf, VSTRIDE, pt};
    for (int k = 0; k < 3; ++k) {
        q->position_scale[k] = (float)(0.5 + rnd()) / (float)(phi - plo);
        q->position_offset[k] = (float)(rnd() - 0.5);
    }
    q->normals = (sf_quant_stream){m->buf + 8, VSTRIDE, nt};
    q->tangents = (sf_quant_stream){m->buf + 16, VSTRIDE, nt};
    q->influence_count = 4;
    q->joints = (sf_quant_stream){m->buf + 24, VSTRIDE, jt};
    q->weights = (sf_quant_stream){m->buf + 32, VSTRIDE, wt};
    q->bone_count = bones;
}

static void qmesh_free(qmesh* m)
{
    free(m->buf);
    free(m->bones);
}

typedef struct outs {
    float *p, *n, *t;
    size_t count;
} outs;

#define GUARD 8 /* floats after each output that must stay as they were */

static void outs_alloc(outs* o, size_t n)
{
    o->count = n;
    o->p = malloc((3 * n + GUARD) * sizeof(float));
    o->n = malloc((3 * n + GUARD) * sizeof(float));
    o->t = malloc((4 * n + GUARD) * sizeof(float));
    memset(o->p, 0xff, (3 * n + GUARD) * sizeof(float)); /* NaN: a vertex left unwritten shows */
    memset(o->n, 0xff, (3 * n + GUARD) * sizeof(float));
    memset(o->t, 0xff, (4 * n + GUARD) * sizeof(float));
}

static void outs_free(outs* o)
{
    free(o->p);
    free(o->n);
    free(o->t);
}

static int guards_intact(const outs* o)
{
    uint32_t all = 0xffffffffu;
    for (size_t i = 0; i < GUARD; ++i) {
        uint32_t a, b, c;
        memcpy(&a, o->p + 3 * o->count + i, 4);
        memcpy(&b, o->n + 3 * o->count + i, 4);
        memcpy(&c, o->t + 4 * o->count + i, 4);
        if (a != all || b != all || c != all) return 0;
    }
    return 1;
}

static sf_result skin(const qmesh* m, outs* o, sf_error* err)
{
    sf_pose pose = {m->bones, m->bones_n, NULL, 0};
    sf_frames_out out = {o->p, o->n, o->t};
    return sf_quantized_skin(&m->q, &pose, &out, err);
}

/* The float path on a grid topology of gw x gh vertices whose streams are m's decoded by spec_decode. */
static void float_path_case(sf_quant_type pt, sf_quant_type nt, sf_quant_type jt, sf_quant_type wt)
{
    const size_t gw = 13, gh = 11, n = gw * gh;
    qmesh m;
    qmesh_make(&m, n, pt, nt, jt, wt, 24);
    float *pos = malloc(3 * n * sizeof(float)), *nrm = malloc(3 * n * sizeof(float)),
          *tan = malloc(4 * n * sizeof(float)), *uv = malloc(2 * n * sizeof(float)), *w = malloc(4 * n * sizeof(float));
    uint32_t* j = malloc(4 * n * sizeof(uint32_t));
    uint32_t* idx = malloc(6 * (gw - 1) * (gh - 1) * sizeof(uint32_t));
    size_t ps = wide(pt) ? 2 : 1, ns = wide(nt) ? 2 : 1, js = wide(jt) ? 2 : 1, ws = wide(wt) ? 2 : 1;
    for (size_t v = 0; v < n; ++v) {
        const uint8_t* p = m.buf + VSTRIDE * v;
        for (int k = 0; k < 3; ++k)
            pos[3 * v + k] = spec_decode(pt, get(p + k * ps, pt)) * m.q.position_scale[k] + m.q.position_offset[k];
        for (int k = 0; k < 3; ++k) nrm[3 * v + k] = spec_decode(nt, get(p + 8 + k * ns, nt));
        for (int k = 0; k < 4; ++k) tan[4 * v + k] = spec_decode(nt, get(p + 16 + k * ns, nt));
        for (int i = 0; i < 4; ++i) {
            j[4 * v + i] = (uint32_t)get(p + 24 + i * js, jt);
            w[4 * v + i] = spec_decode(wt, get(p + 32 + i * ws, wt));
        }
        uv[2 * v] = (float)(v % gw) / (float)gw;
        uv[2 * v + 1] = (float)(v / gw) / (float)gh;
    }
    size_t tc = 0;
    for (size_t y = 0; y + 1 < gh; ++y)
        for (size_t x = 0; x + 1 < gw; ++x) {
            uint32_t a = (uint32_t)(y * gw + x), b = a + 1, c = a + (uint32_t)gw, d = c + 1;
            uint32_t t6[6] = {a, b, d, a, d, c};
            memcpy(idx + 3 * tc, t6, sizeof t6);
            tc += 2;
        }
    sf_mesh_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.vertex_count = n;
    desc.triangle_count = tc;
    desc.indices = idx;
    desc.positions.data = pos;
    desc.normals.data = nrm;
    desc.tangents.data = tan;
    desc.uvs.data = uv;
    desc.influence_count = 4;
    desc.joints = j;
    desc.weights = w;
    desc.bone_count = m.bones_n;
    desc.weight_policy = SF_WEIGHTS_AS_GIVEN;
    desc.zero_weight_policy = SF_ZERO_WEIGHTS_REST;
    sf_topology* topo = NULL;
    sf_workspace* wsp = NULL;
    sf_error err;
    outs a, b;
    outs_alloc(&a, n);
    outs_alloc(&b, n);
    sf_result r = sf_topology_create(&desc, NULL, NULL, &topo, &err);
    if (r == SF_OK) r = sf_workspace_create(topo, NULL, &wsp, &err);
    sf_pose pose = {m.bones, m.bones_n, NULL, 0};
    sf_frames_out fo = {b.p, b.n, b.t};
    if (r == SF_OK) r = sf_frames_compute(topo, &pose, SF_METHOD_SKINNED, NULL, wsp, &fo, &err);
    sf_result rq = skin(&m, &a, &err);
    int same = r == SF_OK && rq == SF_OK && memcmp(a.p, b.p, 3 * n * 4) == 0 && memcmp(a.n, b.n, 3 * n * 4) == 0 &&
               memcmp(a.t, b.t, 4 * n * 4) == 0;
    int guards = guards_intact(&a);
    sf_workspace_destroy(wsp);
    sf_topology_destroy(topo);
    outs_free(&a);
    outs_free(&b);
    free(pos), free(nrm), free(tan), free(uv), free(w), free(j), free(idx);
    qmesh_free(&m);
    CHECK_OK(r);
    CHECK_OK(rq);
    CHECK(same);
    CHECK(guards);
}

static void test_float_path_16bit(void)
{
    float_path_case(SF_QUANT_INT16, SF_QUANT_SNORM16, SF_QUANT_UINT8, SF_QUANT_UNORM8);
}
static void test_float_path_unsigned_positions(void)
{
    float_path_case(SF_QUANT_UINT16, SF_QUANT_SNORM16, SF_QUANT_UINT16, SF_QUANT_UNORM16);
}
static void test_float_path_8bit(void)
{
    float_path_case(SF_QUANT_SNORM8, SF_QUANT_SNORM8, SF_QUANT_UINT8, SF_QUANT_UNORM16);
}
static void test_float_path_normalized_positions(void)
{
    float_path_case(SF_QUANT_SNORM16, SF_QUANT_SNORM16, SF_QUANT_UINT16, SF_QUANT_UNORM8);
}

/* Every level the CPU has against the scalar reference, odd counts and tails, with and without each output. */
static void test_levels_bit_equal(void)
{
    static const size_t counts[] = {1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 100, 1001};
    int top = sfi_simd_detect();
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
        size_t n = counts[c];
        qmesh m;
        qmesh_make(&m, n, c % 2 ? SF_QUANT_UINT16 : SF_QUANT_INT16, c % 3 ? SF_QUANT_SNORM16 : SF_QUANT_SNORM8,
                   c % 2 ? SF_QUANT_UINT8 : SF_QUANT_UINT16, c % 2 ? SF_QUANT_UNORM16 : SF_QUANT_UNORM8, 40);
        outs ref;
        outs_alloc(&ref, n);
        sfi_simd_force(SFI_SIMD_SCALAR);
        sf_result r0 = skin(&m, &ref, NULL);
        int ok = r0 == SF_OK && guards_intact(&ref);
        for (int level = SFI_SIMD_SSE2; ok && level <= top; ++level) {
            sfi_simd_force(level);
            outs o;
            outs_alloc(&o, n);
            ok = skin(&m, &o, NULL) == SF_OK && guards_intact(&o) && memcmp(o.p, ref.p, 3 * n * 4) == 0 &&
                 memcmp(o.n, ref.n, 3 * n * 4) == 0 && memcmp(o.t, ref.t, 4 * n * 4) == 0;
            /* one output at a time: the others stay unwritten */
            outs o2;
            outs_alloc(&o2, n);
            sf_pose pose = {m.bones, m.bones_n, NULL, 0};
            sf_frames_out only_n = {NULL, o2.n, NULL};
            ok = ok && sf_quantized_skin(&m.q, &pose, &only_n, NULL) == SF_OK && memcmp(o2.n, ref.n, 3 * n * 4) == 0 &&
                 isnan(o2.p[0]) && isnan(o2.t[0]);
            if (!ok) sft_failf(__FILE__, __LINE__, "level %d differs from scalar at %zu vertices", level, n);
            outs_free(&o);
            outs_free(&o2);
        }
        sfi_simd_force(-1);
        outs_free(&ref);
        qmesh_free(&m);
        CHECK(ok);
    }
}

/* Packed streams (stride 0) give the bits of the same values interleaved. */
static void test_packed_streams(void)
{
    const size_t n = 21;
    qmesh m;
    qmesh_make(&m, n, SF_QUANT_INT16, SF_QUANT_SNORM16, SF_QUANT_UINT8, SF_QUANT_UNORM8, 9);
    int16_t* P = malloc(3 * n * 2);
    int16_t* N = malloc(3 * n * 2);
    int16_t* T = malloc(4 * n * 2);
    uint8_t* J = malloc(4 * n);
    uint8_t* W = malloc(4 * n);
    for (size_t v = 0; v < n; ++v) {
        memcpy(P + 3 * v, m.buf + VSTRIDE * v, 6);
        memcpy(N + 3 * v, m.buf + VSTRIDE * v + 8, 6);
        memcpy(T + 4 * v, m.buf + VSTRIDE * v + 16, 8);
        memcpy(J + 4 * v, m.buf + VSTRIDE * v + 24, 4);
        memcpy(W + 4 * v, m.buf + VSTRIDE * v + 32, 4);
    }
    outs a, b;
    outs_alloc(&a, n);
    outs_alloc(&b, n);
    sf_result ra = skin(&m, &a, NULL);
    m.q.positions = (sf_quant_stream){P, 0, SF_QUANT_INT16};
    m.q.normals = (sf_quant_stream){N, 0, SF_QUANT_SNORM16};
    m.q.tangents = (sf_quant_stream){T, 0, SF_QUANT_SNORM16};
    m.q.joints = (sf_quant_stream){J, 0, SF_QUANT_UINT8};
    m.q.weights = (sf_quant_stream){W, 0, SF_QUANT_UNORM8};
    sf_result rb = skin(&m, &b, NULL);
    int same = memcmp(a.p, b.p, 3 * n * 4) == 0 && memcmp(a.n, b.n, 3 * n * 4) == 0 && memcmp(a.t, b.t, 4 * n * 4) == 0;
    outs_free(&a);
    outs_free(&b);
    free(P), free(N), free(T), free(J), free(W);
    qmesh_free(&m);
    CHECK_OK(ra);
    CHECK_OK(rb);
    CHECK(same);
}

/* The layouts read a whole step at a time (16-bit VEC3 / VEC4 at a stride of 8, joints and weights packed) for every
 * combination of position, joint and weight type they take: every level bit for bit the scalar reference, on whole
 * steps and tails, with each output alone; the position and normal buffers end at their last element (6 bytes,
 * not 8), so a read past them shows under the sanitizers; a joint out of range is reported at every level. */
static void aligned_case(sf_quant_type pt, sf_quant_type jt, sf_quant_type wt, size_t n, int joints_packed,
                         size_t bones)
{
    qmesh m;
    qmesh_make(&m, n, pt, SF_QUANT_SNORM16, jt, wt, bones);
    size_t js = wide(jt) ? 8 : 4, ws = wide(wt) ? 8 : 4;
    uint8_t* P = malloc(8 * n - 2);
    uint8_t* N = malloc(8 * n - 2);
    uint8_t* T = malloc(8 * n);
    uint8_t* J = malloc(js * n);
    uint8_t* W = malloc(ws * n);
    for (size_t v = 0; v < n; ++v) {
        memcpy(P + 8 * v, m.buf + VSTRIDE * v, 6);
        memcpy(N + 8 * v, m.buf + VSTRIDE * v + 8, 6);
        if (v + 1 < n) {
            put(P + 8 * v + 6, SF_QUANT_INT16, -12345); /* padding: never part of a value */
            put(N + 8 * v + 6, SF_QUANT_INT16, 23456);
        }
        memcpy(T + 8 * v, m.buf + VSTRIDE * v + 16, 8);
        memcpy(J + js * v, m.buf + VSTRIDE * v + 24, js);
        memcpy(W + ws * v, m.buf + VSTRIDE * v + 32, ws);
    }
    m.q.positions = (sf_quant_stream){P, 8, pt};
    m.q.normals = (sf_quant_stream){N, 8, SF_QUANT_SNORM16};
    m.q.tangents = (sf_quant_stream){T, 8, SF_QUANT_SNORM16};
    /* packed joints are read a step at a time, interleaved ones lane by lane */
    uint8_t* Jq = joints_packed ? J : m.buf + 24;
    size_t jstride = joints_packed ? js : VSTRIDE;
    m.q.joints = (sf_quant_stream){Jq, joints_packed ? 0 : VSTRIDE, jt};
    m.q.weights = (sf_quant_stream){W, 0, wt};
    outs ref;
    outs_alloc(&ref, n);
    sfi_simd_force(SFI_SIMD_SCALAR);
    int ok = skin(&m, &ref, NULL) == SF_OK && guards_intact(&ref);
    sf_pose pose = {m.bones, m.bones_n, NULL, 0};
    for (int level = SFI_SIMD_SSE2; ok && level <= sfi_simd_detect(); ++level) {
        sfi_simd_force(level);
        outs o, o2;
        outs_alloc(&o, n);
        outs_alloc(&o2, n);
        ok = skin(&m, &o, NULL) == SF_OK && guards_intact(&o) && memcmp(o.p, ref.p, 3 * n * 4) == 0 &&
             memcmp(o.n, ref.n, 3 * n * 4) == 0 && memcmp(o.t, ref.t, 4 * n * 4) == 0;
        sf_frames_out only_p = {o2.p, NULL, NULL}, only_n = {NULL, o2.n, NULL};
        ok = ok && sf_quantized_skin(&m.q, &pose, &only_p, NULL) == SF_OK &&
             sf_quantized_skin(&m.q, &pose, &only_n, NULL) == SF_OK && guards_intact(&o2) &&
             memcmp(o2.p, ref.p, 3 * n * 4) == 0 && memcmp(o2.n, ref.n, 3 * n * 4) == 0 && isnan(o2.t[0]);
        if (!ok)
            sft_failf(__FILE__, __LINE__,
                      "positions %d, joints %d (%s), weights %d, %zu vertices, %zu bones: level %d differs", (int)pt,
                      (int)jt, joints_packed ? "packed" : "interleaved", (int)wt, n, bones, level);
        outs_free(&o);
        outs_free(&o2);
    }
    /* a joint out of range in the middle of a whole step, then in the last vertex (the last, partial step) */
    size_t bads[2] = {n / 2 + 1, n - 1};
    for (int b = 0; b < 2; ++b) {
        size_t bad_v = bads[b];
        if (!ok || bad_v >= n) continue;
        uint8_t* slot = Jq + jstride * bad_v + (wide(jt) ? 2 : 1) * 2;
        int32_t was = get(slot, jt);
        put(slot, jt, (int32_t)bones); /* the first index out of range */
        char named[32];
        snprintf(named, sizeof named, "joint %zu", bones);
        for (int level = SFI_SIMD_SCALAR; ok && level <= sfi_simd_detect(); ++level) {
            sfi_simd_force(level);
            outs o;
            outs_alloc(&o, n);
            sf_error e;
            ok = skin(&m, &o, &e) == SF_ERROR_JOINT_INDEX && e.index == bad_v && strstr(e.message, named);
            if (!ok) sft_failf(__FILE__, __LINE__, "level %d: %s at vertex %zu not reported", level, named, bad_v);
            outs_free(&o);
        }
        put(slot, jt, was);
    }
    sfi_simd_force(-1);
    outs_free(&ref);
    free(P), free(N), free(T), free(J), free(W);
    qmesh_free(&m);
    CHECK(ok);
}

static void test_aligned_layouts(void)
{
    static const sf_quant_type pts[] = {SF_QUANT_INT16, SF_QUANT_UINT16, SF_QUANT_SNORM16, SF_QUANT_UNORM16};
    /* every tail length of the 4-, 8- and 16-lane steps, with and without whole steps before it */
    static const size_t counts[] = {1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 23, 25, 31, 32, 33, 47, 1001, 1003};
    /* poses of at most 32 bones are permuted from rows at some levels, of 33 to 64 from two halves of rows, larger
       ones gathered */
    static const size_t bones[] = {9, 17, 32, 33, 40, 63, 64, 65, 100};
    for (size_t p = 0; p < 4; ++p)
        for (int jw = 0; jw < 2; ++jw)
            for (int ww = 0; ww < 2; ++ww)
                for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c)
                    for (int packed = 0; packed < 2; ++packed)
                        for (size_t b = 0; b < sizeof bones / sizeof bones[0]; ++b)
                            aligned_case(pts[p], jw ? SF_QUANT_UINT16 : SF_QUANT_UINT8,
                                         ww ? SF_QUANT_UNORM16 : SF_QUANT_UNORM8, counts[c], packed, bones[b]);
}

/* Every integer of each normalised type decodes, at every level, to the specification's division (spec_decode):
 * one identity bone, positions with scale 1 and offset 0, so each output position is its decoded value. The 16-bit
 * types are laid out as the whole-step reads take them (stride 8), the 8-bit ones at a stride of 4. */
static void test_every_normalised_integer(void)
{
    static const sf_quant_type ts[] = {SF_QUANT_SNORM8, SF_QUANT_UNORM8, SF_QUANT_SNORM16, SF_QUANT_UNORM16};
    for (size_t k = 0; k < 4; ++k) {
        sf_quant_type t = ts[k];
        size_t cs = wide(t) ? 2 : 1, st = 4 * cs, n = wide(t) ? 65536 : 256;
        int32_t lo = t == SF_QUANT_SNORM8 ? -128 : t == SF_QUANT_SNORM16 ? -32768 : 0;
        uint8_t* P = calloc(n, st);
        int16_t* N = calloc(n, 8);
        uint8_t* J = calloc(n, 4);
        uint8_t* W = calloc(n, 4);
        for (size_t v = 0; v < n; ++v) {
            for (int c = 0; c < 3; ++c) put(P + st * v + cs * (size_t)c, t, lo + (int32_t)((v + (size_t)c * 97) % n));
            N[4 * v + 2] = 32767;
            W[4 * v] = 255;
        }
        float bone[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
        sf_quantized_mesh q;
        memset(&q, 0, sizeof q);
        q.vertex_count = n;
        q.positions = (sf_quant_stream){P, st, t};
        q.normals = (sf_quant_stream){N, 8, SF_QUANT_SNORM16};
        q.influence_count = 4;
        q.joints = (sf_quant_stream){J, 0, SF_QUANT_UINT8};
        q.weights = (sf_quant_stream){W, 0, SF_QUANT_UNORM8};
        q.bone_count = 1;
        for (int c = 0; c < 3; ++c) q.position_scale[c] = 1.0f;
        sf_pose pose = {bone, 1, NULL, 0};
        float* out = malloc(3 * n * sizeof(float));
        size_t wrong = 0;
        for (int level = SFI_SIMD_SCALAR; level <= sfi_simd_detect(); ++level) {
            sfi_simd_force(level);
            sf_frames_out fo = {out, NULL, NULL};
            CHECK_OK(sf_quantized_skin(&q, &pose, &fo, NULL));
            for (size_t v = 0; v < n; ++v)
                for (int c = 0; c < 3; ++c) {
                    float want = spec_decode(t, get(P + st * v + cs * (size_t)c, t));
                    if (memcmp(&out[3 * v + (size_t)c], &want, 4) != 0 && wrong++ == 0)
                        sft_failf(__FILE__, __LINE__, "type %d level %d: integer %d decodes to %a, want %a", (int)t,
                                  level, get(P + st * v + cs * (size_t)c, t), (double)out[3 * v + (size_t)c],
                                  (double)want);
                }
        }
        sfi_simd_force(-1);
        free(P), free(N), free(J), free(W), free(out);
        CHECK(wrong == 0);
    }
}

/* Analytic: one bone, a pure translation by (1, 2, 3) and a uniform scale by 2: positions move, directions keep
 * their decoded direction (unit), w keeps its sign. */
static void test_analytic_translation(void)
{
    int16_t P[3] = {100, -200, 300}, Nn[3] = {0, 32767, 0}, T[4] = {32767, 0, 0, -32767};
    uint8_t J[4] = {0, 0, 0, 0}, W[4] = {255, 0, 0, 0};
    float bone[12] = {2, 0, 0, 0, 2, 0, 0, 0, 2, 1, 2, 3};
    sf_quantized_mesh q;
    memset(&q, 0, sizeof q);
    q.vertex_count = 1;
    q.positions = (sf_quant_stream){P, 0, SF_QUANT_INT16};
    for (int k = 0; k < 3; ++k) q.position_scale[k] = 0.5f, q.position_offset[k] = 1.0f;
    q.normals = (sf_quant_stream){Nn, 0, SF_QUANT_SNORM16};
    q.tangents = (sf_quant_stream){T, 0, SF_QUANT_SNORM16};
    q.influence_count = 4;
    q.joints = (sf_quant_stream){J, 0, SF_QUANT_UINT8};
    q.weights = (sf_quant_stream){W, 0, SF_QUANT_UNORM8};
    q.bone_count = 1;
    float p[3], n[3], t[4];
    sf_pose pose = {bone, 1, NULL, 0};
    sf_frames_out out = {p, n, t};
    CHECK_OK(sf_quantized_skin(&q, &pose, &out, NULL));
    /* (100 * 0.5 + 1) * 2 + 1 = 103, (-100 + 1) * 2 + 2 = -196, (150 + 1) * 2 + 3 = 305 */
    CHECK(p[0] == 103.0f && p[1] == -196.0f && p[2] == 305.0f);
    CHECK(n[0] == 0.0f && n[1] == 1.0f && n[2] == 0.0f);
    CHECK(t[0] == 1.0f && t[1] == 0.0f && t[2] == 0.0f && t[3] == -1.0f);
}

#define CHECK_REFUSED(m, want, fld)                                                                          \
    do {                                                                                                     \
        sf_error e_;                                                                                         \
        outs o_;                                                                                             \
        outs_alloc(&o_, (m)->q.vertex_count);                                                                \
        sf_result rq_ = skin((m), &o_, &e_);                                                                  \
        outs_free(&o_);                                                                                      \
        CHECK_RESULT(rq_, want);                                                                             \
        if (strcmp(e_.field, fld) != 0) sft_failf(__FILE__, __LINE__, "field %s, want %s", e_.field, fld); \
        CHECK(strcmp(e_.field, fld) == 0);                                                                  \
        CHECK(strlen(e_.message) > 0);                                                                       \
    } while (0)

static void test_bad_descriptions(void)
{
    qmesh m;
    qmesh_make(&m, 50, SF_QUANT_INT16, SF_QUANT_SNORM16, SF_QUANT_UINT8, SF_QUANT_UNORM8, 30);
    sf_quantized_mesh good = m.q;
    m.q.normals.type = SF_QUANT_UINT16;
    CHECK_REFUSED(&m, SF_ERROR_INVALID_ARGUMENT, "mesh.normals");
    m.q = good, m.q.tangents.type = SF_QUANT_INT16;
    CHECK_REFUSED(&m, SF_ERROR_INVALID_ARGUMENT, "mesh.tangents");
    m.q = good, m.q.weights.type = SF_QUANT_UINT8;
    CHECK_REFUSED(&m, SF_ERROR_INVALID_ARGUMENT, "mesh.weights");
    m.q = good, m.q.joints.type = SF_QUANT_SNORM16;
    CHECK_REFUSED(&m, SF_ERROR_INVALID_ARGUMENT, "mesh.joints");
    m.q = good, m.q.positions.type = (sf_quant_type)42;
    CHECK_REFUSED(&m, SF_ERROR_INVALID_ARGUMENT, "mesh.positions");
    m.q = good, m.q.positions.type = SF_QUANT_NONE;
    CHECK_REFUSED(&m, SF_ERROR_INVALID_ARGUMENT, "mesh.positions");
    m.q = good, m.q.normals.data = NULL;
    CHECK_REFUSED(&m, SF_ERROR_MISSING_STREAM, "mesh.normals");
    m.q = good, m.q.joints.stride = 3; /* 4 UINT8 joints need 4 bytes */
    CHECK_REFUSED(&m, SF_ERROR_STRIDE, "mesh.joints");
    m.q = good, m.q.position_scale[1] = 0.0f;
    CHECK_REFUSED(&m, SF_ERROR_INVALID_ARGUMENT, "mesh.position_scale");
    m.q = good, m.q.position_scale[2] = NAN;
    CHECK_REFUSED(&m, SF_ERROR_NOT_FINITE, "mesh.position_scale");
    m.q = good, m.q.position_offset[0] = INFINITY;
    CHECK_REFUSED(&m, SF_ERROR_NOT_FINITE, "mesh.position_offset");
    m.q = good, m.q.position_scale[0] = 1e6f; /* 32768 * 1e6 passes SF_MAX_COORD */
    CHECK_REFUSED(&m, SF_ERROR_TOO_LARGE, "mesh.position_scale");
    m.q = good, m.q.influence_count = 9;
    CHECK_REFUSED(&m, SF_ERROR_INVALID_ARGUMENT, "mesh.influence_count");
    m.q = good, m.q.bone_count = 0;
    CHECK_REFUSED(&m, SF_ERROR_INVALID_ARGUMENT, "mesh.bone_count");
    /* the tangent output without the tangent stream */
    m.q = good, m.q.tangents.data = NULL;
    CHECK_REFUSED(&m, SF_ERROR_MISSING_STREAM, "mesh.tangents");
    /* the pose: a NaN bone, a bone count that differs */
    m.q = good;
    m.bones[12 * 5 + 4] = NAN;
    CHECK_REFUSED(&m, SF_ERROR_NOT_FINITE, "pose.bone_matrices");
    m.bones[12 * 5 + 4] = 1.0f;
    m.bones_n = 29;
    CHECK_REFUSED(&m, SF_ERROR_COUNT_MISMATCH, "pose.bone_count");
    m.bones_n = 30;
    /* joints out of range: validate and the pass name the same first vertex, at every level */
    m.q.bone_count = 30;
    m.buf[VSTRIDE * 37 + 24 + 2] = 30;
    m.buf[VSTRIDE * 41 + 24 + 0] = 200;
    sf_error e;
    CHECK_RESULT(sf_quantized_mesh_validate(&m.q, &e), SF_ERROR_JOINT_INDEX);
    CHECK(e.index == 37 && strcmp(e.field, "mesh.joints") == 0);
    for (int level = SFI_SIMD_SCALAR; level <= sfi_simd_detect(); ++level) {
        sfi_simd_force(level);
        outs o;
        outs_alloc(&o, 50);
        sf_result r = skin(&m, &o, &e);
        outs_free(&o);
        sfi_simd_force(-1);
        CHECK_RESULT(r, SF_ERROR_JOINT_INDEX);
        CHECK(e.index == 37 && strcmp(e.field, "mesh.joints") == 0 && strstr(e.message, "joint 30") != NULL);
    }
    m.buf[VSTRIDE * 37 + 24 + 2] = 3;
    m.buf[VSTRIDE * 41 + 24 + 0] = 4;
    CHECK_OK(sf_quantized_mesh_validate(&m.q, &e));
    qmesh_free(&m);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"float_path_16bit", test_float_path_16bit},
        {"float_path_unsigned_positions", test_float_path_unsigned_positions},
        {"float_path_8bit", test_float_path_8bit},
        {"float_path_normalized_positions", test_float_path_normalized_positions},
        {"levels_bit_equal", test_levels_bit_equal},
        {"packed_streams", test_packed_streams},
        {"aligned_layouts", test_aligned_layouts},
        {"every_normalised_integer", test_every_normalised_integer},
        {"analytic_translation", test_analytic_translation},
        {"bad_descriptions", test_bad_descriptions},
    };
    return SFT_RUN(cases, argc, argv);
}

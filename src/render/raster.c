/* Software rasterizer: orbit camera, near-plane clipping, z-buffer, perspective-correct interpolation,
 * per-pixel shading and anti-aliased overlay lines. Serial and deterministic. */
#include "sf_common.h"
#include "skinframe_render.h"
#include "sf_kernels.h"

#include <math.h>
#include <string.h>

#define DEG_TO_RAD 0.017453292519943295f

/* ---------------------------------------------------------------- materials */

static const char* const material_names[SF_MATERIAL_COUNT] = {
#define SF_MATERIAL_NAME_(id, name, text) name,
    SF_MATERIALS(SF_MATERIAL_NAME_)
#undef SF_MATERIAL_NAME_
};

const char* sf_material_name(sf_material material)
{
    return (unsigned)material < SF_MATERIAL_COUNT ? material_names[material] : "?";
}

sf_result sf_material_parse(const char* name, sf_material* out)
{
    for (int m = 0; m < SF_MATERIAL_COUNT; ++m)
        if (name && strcmp(name, material_names[m]) == 0) {
            if (out) *out = (sf_material)m;
            return SF_OK;
        }
    return SF_ERROR_UNKNOWN_NAME;
}

/* ---------------------------------------------------------------- camera */

/* Camera basis: right, up, back (towards the viewer) and the eye position. */
static void camera_basis(const sf_camera* cam, float right[3], float up[3], float back[3], float eye[3])
{
    float pitch = cam->pitch_deg;
    if (pitch > 89.0f) pitch = 89.0f; /* keep the view direction off the up axis */
    if (pitch < -89.0f) pitch = -89.0f;
    float yaw = cam->yaw_deg * DEG_TO_RAD, p = pitch * DEG_TO_RAD;
    back[0] = cosf(p) * sinf(yaw);
    back[1] = sinf(p);
    back[2] = cosf(p) * cosf(yaw);
    const float world_up[3] = {0.0f, 1.0f, 0.0f};
    float r[3];
    sfk_cross(world_up, back, r);
    sfk_safe_unit(r, right);
    sfk_cross(back, right, up);
    float d = cam->distance > 0.0f ? cam->distance : 1.0f;
    for (int i = 0; i < 3; ++i) eye[i] = cam->target[i] + d * back[i];
}

sf_camera sf_camera_frame(const float center[3], float radius)
{
    sf_camera cam;
    memset(&cam, 0, sizeof cam);
    if (center) memcpy(cam.target, center, sizeof cam.target);
    if (!(radius > 0.0f) || !isfinite(radius)) radius = 1.0f;
    cam.yaw_deg = -35.0f;
    cam.pitch_deg = 30.0f;
    /* A sphere of this radius just fits the 35-degree vertical field of view. */
    cam.distance = radius / sinf(0.5f * 35.0f * DEG_TO_RAD);
    cam.fov_y_deg = 35.0f;
    return cam;
}

/* Largest |NDC x| or |NDC y| of the points, or +inf when one is behind the near plane. */
static float max_ndc(const sf_camera* cam, const float* positions, size_t count, float aspect)
{
    float m[16], worst = 0.0f;
    sf_camera_matrix(cam, aspect, m);
    for (size_t i = 0; i < count; ++i) {
        const float* p = positions + 3 * i;
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) continue;
        float c[4];
        for (int k = 0; k < 4; ++k) c[k] = m[k] * p[0] + m[4 + k] * p[1] + m[8 + k] * p[2] + m[12 + k];
        if (!(c[2] + c[3] > 0.0f)) return INFINITY;
        float e = fmaxf(fabsf(c[0]), fabsf(c[1])) / c[3];
        if (e > worst) worst = e;
    }
    return worst;
}

void sf_camera_fit(sf_camera* cam, const float* positions, size_t count, float aspect, float fill)
{
    if (!cam || !positions || count == 0) return;
    if (!(fill > 0.0f && fill <= 1.0f)) fill = 0.9f;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    size_t finite = 0;
    for (size_t i = 0; i < count; ++i) {
        const float* p = positions + 3 * i;
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) continue;
        finite++;
        for (int k = 0; k < 3; ++k) lo[k] = fminf(lo[k], p[k]), hi[k] = fmaxf(hi[k], p[k]);
    }
    if (!finite) return;
    float r2 = 0.0f;
    for (int k = 0; k < 3; ++k) {
        cam->target[k] = 0.5f * (lo[k] + hi[k]);
        r2 += 0.25f * (hi[k] - lo[k]) * (hi[k] - lo[k]);
    }
    float radius = r2 > 1e-12f ? sqrtf(r2) : 1.0f;
    /* Bisection on the distance: the projected extent shrinks as the camera backs away. */
    float a = 0.05f * radius, b = 200.0f * radius;
    for (int it = 0; it < 40; ++it) {
        cam->distance = 0.5f * (a + b);
        if (max_ndc(cam, positions, count, aspect) > fill)
            a = cam->distance;
        else
            b = cam->distance;
    }
    cam->distance = b;
}

void sf_camera_position(const sf_camera* cam, float out[3])
{
    float r[3], u[3], b[3];
    camera_basis(cam, r, u, b, out);
}

void sf_camera_light_dir(const sf_camera* cam, float out[3])
{
    float r[3], u[3], b[3], eye[3];
    camera_basis(cam, r, u, b, eye);
    /* Above, left and behind the viewer, in camera space: most surfaces the viewer sees get some light,
     * and surfaces facing up shade differently from those facing the viewer, so turned normals show. */
    const float l[3] = {-0.35f, 0.45f, 0.82f};
    float w[3];
    for (int i = 0; i < 3; ++i) w[i] = l[0] * r[i] + l[1] * u[i] + l[2] * b[i];
    sfk_safe_unit(w, out);
}

void sf_camera_matrix(const sf_camera* cam, float aspect, float m[16])
{
    float r[3], u[3], b[3], eye[3];
    camera_basis(cam, r, u, b, eye);
    float d = cam->distance > 0.0f ? cam->distance : 1.0f;
    float fov = cam->fov_y_deg > 0.0f && cam->fov_y_deg < 170.0f ? cam->fov_y_deg : 35.0f;
    float fy = 1.0f / tanf(0.5f * fov * DEG_TO_RAD);
    float fx = fy / (aspect > 0.0f ? aspect : 1.0f);
    float n = 0.01f * d, f = 100.0f * d;
    float za = (f + n) / (n - f), zb = 2.0f * f * n / (n - f);
    /* view rows: right, up, back; translation -row . eye */
    float tr = -sfk_dot(r, eye), tu = -sfk_dot(u, eye), tb = -sfk_dot(b, eye);
    /* clip = P * V, P = diag(fx, fy, za, 0) with P[2][3] = zb, P[3][2] = -1 */
    for (int c = 0; c < 3; ++c) {
        m[c * 4 + 0] = fx * r[c];
        m[c * 4 + 1] = fy * u[c];
        m[c * 4 + 2] = za * b[c];
        m[c * 4 + 3] = -b[c];
    }
    m[12] = fx * tr;
    m[13] = fy * tu;
    m[14] = za * tb + zb;
    m[15] = -tb;
}

/* ---------------------------------------------------------------- viewport */

static void transform(const float m[16], const float p[3], float out[4])
{
    for (int i = 0; i < 4; ++i) out[i] = m[i] * p[0] + m[4 + i] * p[1] + m[8 + i] * p[2] + m[12 + i];
}

static int viewport_valid(const sf_viewport* vp)
{
    return vp && vp->image && vp->image->rgb && vp->depth && vp->width > 0 && vp->height > 0 && vp->x >= 0 &&
           vp->y >= 0 && vp->x + vp->width <= vp->image->width && vp->y + vp->height <= vp->image->height;
}

void sf_viewport_clear(const sf_viewport* vp, const uint8_t rgb[3])
{
    if (!viewport_valid(vp)) return;
    sf_image_fill_rect(vp->image, vp->x, vp->y, vp->width, vp->height, rgb);
    size_t n = (size_t)vp->width * (size_t)vp->height;
    for (size_t i = 0; i < n; ++i) vp->depth[i] = 0.0f; /* depth holds 1/w: 0 = infinitely far */
}

/* Clip coordinates to viewport-local pixel coordinates and 1/w. */
static void clip_to_screen(const sf_viewport* vp, const float c[4], float out[3])
{
    float iw = 1.0f / c[3];
    out[0] = (c[0] * iw * 0.5f + 0.5f) * (float)vp->width;
    out[1] = (0.5f - c[1] * iw * 0.5f) * (float)vp->height;
    out[2] = iw;
}

/* Points closer than this to w = 0 are clipped even by matrices without a near plane. */
#define W_EPS 1e-6f

int sf_viewport_project(const sf_viewport* vp, const float p[3], float out[3])
{
    float c[4];
    transform(vp->clip_from_world, p, c);
    if (!(c[2] + c[3] >= 0.0f) || !(c[3] > W_EPS)) return 0;
    clip_to_screen(vp, c, out);
    return 1;
}

/* ---------------------------------------------------------------- triangles */

/* A clipped polygon vertex: clip position and barycentric weights of the source triangle. */
typedef struct clip_vertex {
    float c[4];
    float b[3];
} clip_vertex;

/* Keeps the part of polygon in[0..n) where dist >= 0 (dist = z + w, then w - eps). At most n + 1 out. */
static int clip_polygon(const clip_vertex* in, int n, clip_vertex* out, int plane)
{
    int m = 0;
    for (int i = 0; i < n; ++i) {
        const clip_vertex* a = &in[i];
        const clip_vertex* b = &in[(i + 1) % n];
        float da = plane == 0 ? a->c[2] + a->c[3] : a->c[3] - W_EPS;
        float db = plane == 0 ? b->c[2] + b->c[3] : b->c[3] - W_EPS;
        if (da >= 0.0f) out[m++] = *a;
        if ((da >= 0.0f) != (db >= 0.0f)) {
            float t = da / (da - db);
            clip_vertex* v = &out[m++];
            for (int k = 0; k < 4; ++k) v->c[k] = a->c[k] + t * (b->c[k] - a->c[k]);
            for (int k = 0; k < 3; ++k) v->b[k] = a->b[k] + t * (b->b[k] - a->b[k]);
        }
    }
    return m;
}

typedef struct shade_ctx {
    const sf_raster_mesh* mesh;
    sf_material material;
    float light[3];
    float ambient;
    float base[3];
    sf_normalmap_kind nm_kind;
    float nm_scale, nm_strength;
} shade_ctx;

static void lerp3(const float* data, size_t stride, const uint32_t idx[3], const float b[3], float out[3])
{
    const float* a0 = data + idx[0] * stride;
    const float* a1 = data + idx[1] * stride;
    const float* a2 = data + idx[2] * stride;
    for (int k = 0; k < 3; ++k) out[k] = b[0] * a0[k] + b[1] * a1[k] + b[2] * a2[k];
}

/* Colour of one pixel from the perspective-correct barycentrics b of triangle idx. */
static void shade_pixel(const shade_ctx* s, const uint32_t idx[3], const float b[3], const float face_n[3], int back,
                        uint8_t out[3])
{
    const sf_raster_mesh* m = s->mesh;
    float albedo[3] = {s->base[0], s->base[1], s->base[2]};
    if (m->colors) lerp3(m->colors, 3, idx, b, albedo);
    float rgb[3];
    if (s->material == SF_MATERIAL_UNLIT) {
        memcpy(rgb, albedo, sizeof rgb);
    } else {
        float n[3];
        if (s->material == SF_MATERIAL_FLAT) {
            memcpy(n, face_n, sizeof n);
        } else {
            float raw[3];
            lerp3(m->normals, 3, idx, b, raw);
            sfk_safe_unit(raw, n);
            if (back) n[0] = -n[0], n[1] = -n[1], n[2] = -n[2];
        }
        if (s->material == SF_MATERIAL_NORMAL_MAP && m->tangents && m->uvs && sfk_dot(n, n) > 0.0f) {
            float t4[4], uv[2];
            const float* t0 = m->tangents + idx[0] * 4;
            const float* t1 = m->tangents + idx[1] * 4;
            const float* t2 = m->tangents + idx[2] * 4;
            for (int k = 0; k < 4; ++k) t4[k] = b[0] * t0[k] + b[1] * t1[k] + b[2] * t2[k];
            for (int k = 0; k < 2; ++k)
                uv[k] = b[0] * m->uvs[idx[0] * 2 + k] + b[1] * m->uvs[idx[1] * 2 + k] + b[2] * m->uvs[idx[2] * 2 + k];
            float t[3] = {t4[0], t4[1], t4[2]};
            sfk_madd(t, n, -sfk_dot(n, t));
            if (sfk_safe_unit(t, t)) {
                /* MikkTSpace / glTF: bitangent = w * cross(n, t), the map's +Y. */
                float bt[3], ts[3], p[3] = {0.0f, 0.0f, 0.0f};
                sfk_cross(n, t, bt);
                float w = t4[3] < 0.0f ? -1.0f : 1.0f;
                sf_normalmap_sample(s->nm_kind, s->nm_scale, s->nm_strength, uv[0], uv[1], ts);
                sfk_madd(p, t, ts[0]);
                sfk_madd(p, bt, w * ts[1]);
                sfk_madd(p, n, ts[2]);
                sfk_safe_unit(p, n);
            }
        }
        if (s->material == SF_MATERIAL_NORMALS) {
            for (int k = 0; k < 3; ++k) rgb[k] = 0.5f + 0.5f * n[k];
        } else {
            float d = sfk_dot(n, s->light);
            float shade = s->ambient + (1.0f - s->ambient) * (d > 0.0f ? d : 0.0f);
            for (int k = 0; k < 3; ++k) rgb[k] = albedo[k] * shade;
        }
    }
    for (int k = 0; k < 3; ++k) {
        float v = rgb[k] * 255.0f + 0.5f;
        out[k] = (uint8_t)(v <= 0.0f ? 0.0f : v >= 255.0f ? 255.0f : v);
    }
}

/* Fill rule: a pixel centre exactly on an edge belongs to the triangle only when the edge, taken in the
 * order where the signed area is positive, runs down (dy > 0) or runs left along a row (dy = 0, dx < 0):
 * the right and bottom edges on screen. The neighbour across a shared edge walks it the other way, so
 * exactly one of the two owns the pixels on it and shared edges are drawn once. */
static int edge_owns(float ax, float ay, float bx, float by)
{
    float dx = bx - ax, dy = by - ay;
    return (dy == 0.0f && dx < 0.0f) || dy > 0.0f;
}

static void raster_triangle(const sf_viewport* vp, const shade_ctx* s, const uint32_t idx[3], const clip_vertex v[3],
                            const float face_n_front[3])
{
    float p[3][3];
    for (int i = 0; i < 3; ++i) clip_to_screen(vp, v[i].c, p[i]);
    float area = (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[2][0] - p[0][0]) * (p[1][1] - p[0][1]);
    if (!(area != 0.0f) || !isfinite(area)) return;
    /* Counter-clockwise in the world appears clockwise in y-down pixels: negative area faces the viewer. */
    int back = area > 0.0f;
    float face_n[3] = {face_n_front[0], face_n_front[1], face_n_front[2]};
    if (back) face_n[0] = -face_n[0], face_n[1] = -face_n[1], face_n[2] = -face_n[2];
    /* Order the corners so the signed area is positive; edge i is opposite corner i. */
    int o[3] = {0, 1, 2};
    if (area < 0.0f) {
        o[1] = 2;
        o[2] = 1;
        area = -area;
    }
    float x[3], y[3], iw[3];
    for (int i = 0; i < 3; ++i) {
        x[i] = p[o[i]][0];
        y[i] = p[o[i]][1];
        iw[i] = p[o[i]][2];
    }
    float minx = fminf(x[0], fminf(x[1], x[2])), maxx = fmaxf(x[0], fmaxf(x[1], x[2]));
    float miny = fminf(y[0], fminf(y[1], y[2])), maxy = fmaxf(y[0], fmaxf(y[1], y[2]));
    if (maxx < 0.0f || maxy < 0.0f || minx >= (float)vp->width || miny >= (float)vp->height) return;
    int x0 = minx < 0.0f ? 0 : (int)floorf(minx);
    int y0 = miny < 0.0f ? 0 : (int)floorf(miny);
    int x1 = maxx >= (float)vp->width ? vp->width - 1 : (int)floorf(maxx);
    int y1 = maxy >= (float)vp->height ? vp->height - 1 : (int)floorf(maxy);
    int owns[3];
    for (int i = 0; i < 3; ++i) owns[i] = edge_owns(x[(i + 1) % 3], y[(i + 1) % 3], x[(i + 2) % 3], y[(i + 2) % 3]);
    float inv_area = 1.0f / area;
    for (int py = y0; py <= y1; ++py) {
        float cy = (float)py + 0.5f;
        for (int px = x0; px <= x1; ++px) {
            float cx = (float)px + 0.5f;
            float e[3];
            int inside = 1;
            for (int i = 0; i < 3 && inside; ++i) {
                int a = (i + 1) % 3, b = (i + 2) % 3;
                /* e_i > 0 inside: twice the area of (a, b, pixel) */
                e[i] = (x[b] - x[a]) * (cy - y[a]) - (y[b] - y[a]) * (cx - x[a]);
                inside = e[i] > 0.0f || (e[i] == 0.0f && owns[i]);
            }
            if (!inside) continue;
            float l0 = e[0] * inv_area, l1 = e[1] * inv_area, l2 = e[2] * inv_area;
            float depth = l0 * iw[0] + l1 * iw[1] + l2 * iw[2]; /* 1/w is affine in screen space */
            float* zb = &vp->depth[(size_t)py * (size_t)vp->width + (size_t)px];
            if (!(depth > *zb)) continue;
            *zb = depth;
            /* Perspective-correct: attributes / w are affine in screen space. */
            float q[3] = {l0 * iw[0], l1 * iw[1], l2 * iw[2]};
            float qs = 1.0f / (q[0] + q[1] + q[2]);
            float bary[3] = {0.0f, 0.0f, 0.0f};
            for (int i = 0; i < 3; ++i)
                for (int k = 0; k < 3; ++k) bary[k] += q[i] * qs * v[o[i]].b[k];
            uint8_t* dst = vp->image->rgb + ((size_t)(vp->y + py) * (size_t)vp->image->width + (size_t)(vp->x + px)) * 3;
            shade_pixel(s, idx, bary, face_n, back, dst);
        }
    }
}

sf_result sf_raster_draw_mesh(const sf_viewport* vp, const sf_raster_mesh* mesh, const sf_raster_opts* opts,
                              sf_error* err)
{
    SF_CHECK(viewport_valid(vp), SF_ERROR_INVALID_ARGUMENT, err, "viewport", SFI_NO_INDEX,
             "needs an image, a depth buffer and a rectangle inside the image");
    SF_CHECK(mesh, SF_ERROR_INVALID_ARGUMENT, err, "mesh", SFI_NO_INDEX, "NULL");
    sf_raster_opts o;
    memset(&o, 0, sizeof o);
    if (opts) o = *opts;
    SF_CHECK((unsigned)o.material < SF_MATERIAL_COUNT, SF_ERROR_INVALID_ARGUMENT, err, "opts.material", SFI_NO_INDEX,
             "%d is not a material", (int)o.material);
    if (mesh->triangle_count == 0) return SF_OK;
    SF_CHECK(mesh->indices, SF_ERROR_MISSING_STREAM, err, "mesh.indices", SFI_NO_INDEX, "required");
    SF_CHECK(mesh->positions, SF_ERROR_MISSING_STREAM, err, "mesh.positions", SFI_NO_INDEX, "required");
    int needs_normals = o.material == SF_MATERIAL_LAMBERT || o.material == SF_MATERIAL_NORMAL_MAP ||
                        o.material == SF_MATERIAL_NORMALS;
    SF_CHECK(!needs_normals || mesh->normals, SF_ERROR_MISSING_STREAM, err, "mesh.normals", SFI_NO_INDEX,
             "required by material %s", sf_material_name(o.material));
    SF_CHECK(o.material != SF_MATERIAL_NORMAL_MAP || (mesh->tangents && mesh->uvs), SF_ERROR_MISSING_STREAM, err,
             mesh->tangents ? "mesh.uvs" : "mesh.tangents", SFI_NO_INDEX, "required by material normal-map");
    for (size_t i = 0; i < 3 * mesh->triangle_count; ++i)
        SF_CHECK(mesh->indices[i] < mesh->vertex_count, SF_ERROR_INDEX_RANGE, err, "mesh.indices", i,
                 "%u >= vertex_count %zu", mesh->indices[i], mesh->vertex_count);

    shade_ctx s;
    memset(&s, 0, sizeof s);
    s.mesh = mesh;
    s.material = o.material;
    if (!sfk_safe_unit(o.light_dir, s.light)) s.light[2] = 1.0f;
    s.ambient = o.ambient > 0.0f && o.ambient <= 1.0f ? o.ambient : 0.3f;
    if (o.base_color[0] == 0.0f && o.base_color[1] == 0.0f && o.base_color[2] == 0.0f) {
        s.base[0] = 0.78f;
        s.base[1] = 0.76f;
        s.base[2] = 0.72f;
    } else {
        memcpy(s.base, o.base_color, sizeof s.base);
    }
    s.nm_kind = o.normal_map;
    s.nm_scale = o.normal_map_scale;
    s.nm_strength = o.normal_map_strength;

    for (size_t f = 0; f < mesh->triangle_count; ++f) {
        const uint32_t* idx = mesh->indices + 3 * f;
        clip_vertex poly[2][5];
        float fn[3], e1[3], e2[3];
        const float* p0 = mesh->positions + 3 * (size_t)idx[0];
        const float* p1 = mesh->positions + 3 * (size_t)idx[1];
        const float* p2 = mesh->positions + 3 * (size_t)idx[2];
        sfk_sub(p1, p0, e1);
        sfk_sub(p2, p0, e2);
        sfk_cross(e1, e2, fn);
        sfk_safe_unit(fn, fn);
        for (int i = 0; i < 3; ++i) {
            transform(vp->clip_from_world, mesh->positions + 3 * (size_t)idx[i], poly[0][i].c);
            poly[0][i].b[0] = poly[0][i].b[1] = poly[0][i].b[2] = 0.0f;
            poly[0][i].b[i] = 1.0f;
        }
        int finite = 1;
        for (int i = 0; i < 3; ++i)
            for (int k = 0; k < 4; ++k) finite &= isfinite(poly[0][i].c[k]) != 0;
        if (!finite) continue;
        int n = clip_polygon(poly[0], 3, poly[1], 0);
        if (n < 3) continue;
        n = clip_polygon(poly[1], n, poly[0], 1);
        for (int i = 1; i + 1 < n; ++i) {
            clip_vertex tri[3] = {poly[0][0], poly[0][i], poly[0][i + 1]};
            raster_triangle(vp, &s, idx, tri, fn);
        }
    }
    return SF_OK;
}

/* ---------------------------------------------------------------- lines and dots */

/* Surfaces nearer than the line by more than this share of its depth hide it. */
#define LINE_DEPTH_BIAS 0.01f

static void draw_screen_segment(const sf_viewport* vp, const float a[3], const float b[3], float width_px,
                                const uint8_t rgb[3], int depth_test)
{
    float half = 0.5f * width_px, pad = half + 1.0f;
    float minx = fminf(a[0], b[0]) - pad, maxx = fmaxf(a[0], b[0]) + pad;
    float miny = fminf(a[1], b[1]) - pad, maxy = fmaxf(a[1], b[1]) + pad;
    if (!isfinite(minx) || !isfinite(maxx) || !isfinite(miny) || !isfinite(maxy)) return;
    if (maxx < 0.0f || maxy < 0.0f || minx >= (float)vp->width || miny >= (float)vp->height) return;
    int x0 = minx < 0.0f ? 0 : (int)minx, y0 = miny < 0.0f ? 0 : (int)miny;
    int x1 = maxx >= (float)vp->width ? vp->width - 1 : (int)maxx;
    int y1 = maxy >= (float)vp->height ? vp->height - 1 : (int)maxy;
    float dx = b[0] - a[0], dy = b[1] - a[1];
    float len2 = dx * dx + dy * dy;
    for (int py = y0; py <= y1; ++py)
        for (int px = x0; px <= x1; ++px) {
            float cx = (float)px + 0.5f, cy = (float)py + 0.5f;
            float t = len2 > 0.0f ? ((cx - a[0]) * dx + (cy - a[1]) * dy) / len2 : 0.0f;
            t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
            float ex = cx - (a[0] + t * dx), ey = cy - (a[1] + t * dy);
            float cov = half + 0.5f - sqrtf(ex * ex + ey * ey);
            if (width_px < 1.0f) cov *= width_px;
            if (!(cov > 0.0f)) continue;
            if (depth_test) {
                float iw = a[2] + t * (b[2] - a[2]);
                if (vp->depth[(size_t)py * (size_t)vp->width + (size_t)px] > iw * (1.0f + LINE_DEPTH_BIAS)) continue;
            }
            sf_image_blend_pixel(vp->image, vp->x + px, vp->y + py, rgb, cov);
        }
}

void sf_raster_draw_lines(const sf_viewport* vp, const float* endpoints, size_t segment_count, float width_px,
                          const uint8_t rgb[3], int depth_test)
{
    if (!viewport_valid(vp) || !endpoints || !rgb || !(width_px > 0.0f)) return;
    for (size_t s = 0; s < segment_count; ++s) {
        clip_vertex seg[2];
        for (int i = 0; i < 2; ++i) transform(vp->clip_from_world, endpoints + 6 * s + 3 * i, seg[i].c);
        /* Clip against the near plane, then w > 0. */
        int visible = 1;
        for (int plane = 0; plane < 2 && visible; ++plane) {
            float d[2];
            for (int i = 0; i < 2; ++i) d[i] = plane == 0 ? seg[i].c[2] + seg[i].c[3] : seg[i].c[3] - W_EPS;
            if (!(d[0] >= 0.0f) && !(d[1] >= 0.0f)) {
                visible = 0;
            } else if (!(d[0] >= 0.0f) || !(d[1] >= 0.0f)) {
                int out = d[0] >= 0.0f ? 1 : 0;
                float t = d[out] / (d[out] - d[1 - out]);
                for (int k = 0; k < 4; ++k) seg[out].c[k] += t * (seg[1 - out].c[k] - seg[out].c[k]);
            }
        }
        if (!visible) continue;
        float a[3], b[3];
        clip_to_screen(vp, seg[0].c, a);
        clip_to_screen(vp, seg[1].c, b);
        draw_screen_segment(vp, a, b, width_px, rgb, depth_test);
    }
}

void sf_raster_draw_dots(const sf_viewport* vp, const float* points, size_t count, float radius_px,
                         const uint8_t rgb[3], int depth_test)
{
    if (!viewport_valid(vp) || !points || !rgb || !(radius_px > 0.0f)) return;
    for (size_t i = 0; i < count; ++i) {
        float s[3];
        if (!sf_viewport_project(vp, points + 3 * i, s)) continue;
        draw_screen_segment(vp, s, s, 2.0f * radius_px, rgb, depth_test);
    }
}

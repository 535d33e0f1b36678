/* The evaluation: the reference once, then each method, each measured against it (skinframe.h, section
 * "evaluation"). Every array is allocated at creation in one block, so a run never allocates. */
#include "sf_internal.h"
#include "sf_kernels.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

struct sf_evaluation {
    sf_env env;
    const sf_topology* topo;
    uint32_t flags;
    sf_eval_results res;
    void* block; /* every array below */
    size_t bytes;
    float *positions, *ref_n, *ref_t;
    float *frame_n, *frame_t; /* shared frames of the rows, without SF_EVAL_KEEP_FRAMES */
    float *angle_n, *angle_t; /* shared angles of the rows, without SF_EVAL_KEEP_ANGLES */
    float* sort;              /* percentile scratch, unless SF_EVAL_NO_STATISTICS */
    float *row_n[SF_METHOD_COUNT], *row_t[SF_METHOD_COUNT];
    float *row_nd[SF_METHOD_COUNT], *row_td[SF_METHOD_COUNT];
    uint8_t* row_flags[SF_METHOD_COUNT];
    bool corners;             /* per-corner tangents (the reference's are MikkTSpace) */
    float* ref_ct;            /* 12F: the reference's corner tangents */
    float* angle_tc;          /* 3F shared corner angles, without SF_EVAL_KEEP_ANGLES */
    float* row_tcd[SF_METHOD_COUNT];
    uint8_t* flag_scratch;    /* n: flags of rows that keep none (the per-corner counts need them) */
    bool deform_readers;      /* a row reads the whole deform (sfi_frames_read_deform) with the reference's morph directions */
    sf_workspace* device_ws;  /* the device workspace that holds the last run's statistics, else NULL */
};

#define ALL_FLAGS ((uint32_t)(SF_EVAL_KEEP_FRAMES | SF_EVAL_KEEP_ANGLES | SF_EVAL_NO_STATISTICS))

static sf_result check_opts(const sf_frames_opts* o, const char* name, sf_error* err)
{
    char field[64];
#define OPTS_FIELD(f) (snprintf(field, sizeof field, "desc.%s." f, name), field)
    SF_CHECK((unsigned)o->morph_directions <= SF_MORPH_DIRECTIONS_NORMALS, SF_ERROR_INVALID_ARGUMENT, err,
             OPTS_FIELD("morph_directions"), SFI_NO_INDEX, "%d", (int)o->morph_directions);
    SF_CHECK((unsigned)o->weighting <= SF_WEIGHTING_UNIFORM, SF_ERROR_INVALID_ARGUMENT, err, OPTS_FIELD("weighting"),
             SFI_NO_INDEX, "%d", (int)o->weighting);
    SF_CHECK((unsigned)o->weld <= SF_WELD_POSITION_NORMAL, SF_ERROR_INVALID_ARGUMENT, err, OPTS_FIELD("weld"),
             SFI_NO_INDEX, "%d", (int)o->weld);
    SF_CHECK((unsigned)o->tangents <= SF_TANGENTS_MIKKTSPACE, SF_ERROR_INVALID_ARGUMENT, err, OPTS_FIELD("tangents"),
             SFI_NO_INDEX, "%d", (int)o->tangents);
    SF_CHECK((unsigned)o->reference <= SF_REFERENCE_AUTHORED, SF_ERROR_INVALID_ARGUMENT, err, OPTS_FIELD("reference"),
             SFI_NO_INDEX, "%d", (int)o->reference);
    SF_CHECK(isfinite(o->jacobian_cap) && o->jacobian_cap >= 0.0f, SF_ERROR_INVALID_ARGUMENT, err,
             OPTS_FIELD("jacobian_cap"), SFI_NO_INDEX, "%g, need a finite value >= 0 (0 = off)",
             (double)o->jacobian_cap);
#undef OPTS_FIELD
    return SF_OK;
}

sf_result sf_eval_desc_validate(const sf_topology* topo, const sf_eval_desc* desc, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(topo != NULL, SF_ERROR_INVALID_ARGUMENT, err, "topology", SFI_NO_INDEX, "is NULL");
    if (!desc) return SF_OK;
    if (desc->methods) {
        SF_CHECK(desc->method_count >= 1 && desc->method_count <= SF_METHOD_COUNT, SF_ERROR_INVALID_ARGUMENT, err,
                 "desc.method_count", SFI_NO_INDEX, "%zu, need 1..%d with a methods list", desc->method_count,
                 (int)SF_METHOD_COUNT);
        uint32_t seen = 0;
        for (size_t k = 0; k < desc->method_count; ++k) {
            sf_method m = desc->methods[k];
            SF_CHECK((unsigned)m < SF_METHOD_COUNT, SF_ERROR_INVALID_ARGUMENT, err, "desc.methods", k,
                     "%d is not a method", (int)m);
            SF_CHECK(!(seen & (1u << m)), SF_ERROR_INVALID_ARGUMENT, err, "desc.methods", k, "%s is listed twice",
                     sf_method_name(m));
            seen |= 1u << m;
        }
    } else {
        SF_CHECK(desc->method_count == 0, SF_ERROR_INVALID_ARGUMENT, err, "desc.method_count", SFI_NO_INDEX,
                 "%zu without a methods list (NULL = every method)", desc->method_count);
    }
    sf_result r = check_opts(&desc->method_opts, "method_opts", err);
    if (r == SF_OK) r = check_opts(&desc->reference_opts, "reference_opts", err);
    if (r != SF_OK) return r;
    SF_CHECK(!(desc->flags & ~ALL_FLAGS), SF_ERROR_INVALID_ARGUMENT, err, "desc.flags", SFI_NO_INDEX,
             "unknown bits 0x%x", (unsigned)(desc->flags & ~ALL_FLAGS));
    return SF_OK;
}

/* The reference has tangents per corner: MikkTSpace, rebuilt, on a mesh with UVs and triangles. */
static bool corner_mode(const sf_topology* topo, const sf_eval_desc* desc)
{
    return desc && topo->has_uvs && topo->triangle_count > 0 && desc->reference_opts.tangents == SF_TANGENTS_MIKKTSPACE &&
           desc->reference_opts.reference == SF_REFERENCE_REBUILT;
}

/* The rows of a valid desc (NULL = the default methods). */
static size_t desc_methods(const sf_eval_desc* desc, sf_method* out)
{
    if (desc && desc->methods) {
        memcpy(out, desc->methods, desc->method_count * sizeof *out);
        return desc->method_count;
    }
    for (int m = 0; m < SF_METHOD_DEFAULT_COUNT; ++m) out[m] = (sf_method)m;
    return SF_METHOD_DEFAULT_COUNT;
}

/* Lays every array out in one block: returns its size; assigns the pointers when base is not NULL. The
 * recompute row keeps no frames of its own (they are the reference's). */
static size_t layout(sf_evaluation* ev, const sf_method* methods, size_t rows, size_t n, size_t F, char* base)
{
    size_t off = 0;
#define TAKE(ptr, count, type)                                                   \
    do {                                                                         \
        size_t bytes_ = ((count) * sizeof(type) + 15) & ~(size_t)15;             \
        if (base) (ptr) = (type*)(void*)(base + off);                            \
        off += bytes_;                                                           \
    } while (0)
    size_t m1 = n ? n : 1;
    TAKE(ev->positions, 3 * m1, float);
    TAKE(ev->ref_n, 3 * m1, float);
    TAKE(ev->ref_t, 4 * m1, float);
    bool keep_frames = ev->flags & SF_EVAL_KEEP_FRAMES, keep_angles = ev->flags & SF_EVAL_KEEP_ANGLES;
    if (!keep_frames) {
        TAKE(ev->frame_n, 3 * m1, float);
        TAKE(ev->frame_t, 4 * m1, float);
    }
    if (!keep_angles) {
        TAKE(ev->angle_n, m1, float);
        TAKE(ev->angle_t, m1, float);
    }
    size_t C = ev->corners ? 3 * F : 0;
    if (!(ev->flags & SF_EVAL_NO_STATISTICS)) TAKE(ev->sort, C > m1 ? C : m1, float);
    if (ev->corners) {
        TAKE(ev->ref_ct, 4 * C, float);
        TAKE(ev->flag_scratch, m1, uint8_t);
        if (!keep_angles) TAKE(ev->angle_tc, C, float);
    }
    for (size_t k = 0; k < rows; ++k) {
        if (keep_frames && methods[k] != SF_METHOD_RECOMPUTE) {
            TAKE(ev->row_n[k], 3 * m1, float);
            TAKE(ev->row_t[k], 4 * m1, float);
        }
        if (keep_angles) {
            TAKE(ev->row_nd[k], m1, float);
            TAKE(ev->row_td[k], m1, float);
            TAKE(ev->row_flags[k], m1, uint8_t);
            if (ev->corners) TAKE(ev->row_tcd[k], C, float);
        }
    }
#undef TAKE
    return off;
}

size_t sf_evaluation_size(const sf_topology* topo, const sf_eval_desc* desc)
{
    if (sf_eval_desc_validate(topo, desc, NULL) != SF_OK) return 0;
    sf_evaluation shape;
    memset(&shape, 0, sizeof shape);
    shape.flags = desc ? desc->flags : 0;
    shape.corners = corner_mode(topo, desc);
    sf_method methods[SF_METHOD_COUNT];
    size_t rows = desc_methods(desc, methods);
    return sizeof shape + layout(&shape, methods, rows, topo->vertex_count, topo->triangle_count, NULL);
}

sf_result sf_evaluation_create(const sf_topology* topo, const sf_eval_desc* desc, const sf_env* env,
                               sf_evaluation** out, sf_error* err)
{
    sf_result r = sf_eval_desc_validate(topo, desc, err);
    if (r != SF_OK) return r;
    SF_CHECK(out != NULL, SF_ERROR_INVALID_ARGUMENT, err, "out", SFI_NO_INDEX, "is NULL");
    *out = NULL;
    sf_env e = env ? sf_env_defaults(env) : topo->env;
    sf_evaluation* ev = sf_env_calloc(&e, 1, sizeof *ev);
    if (!ev) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "evaluation", SFI_NO_INDEX, "object");
    ev->env = e;
    ev->topo = topo;
    ev->flags = desc ? desc->flags : 0;
    ev->corners = corner_mode(topo, desc);
    sf_method methods[SF_METHOD_COUNT];
    size_t rows = desc_methods(desc, methods);
    size_t n = topo->vertex_count, F = topo->triangle_count;
    size_t bytes = layout(ev, methods, rows, n, F, NULL);
    ev->bytes = bytes;
    ev->block = sf_env_calloc(&e, bytes, 1);
    if (!ev->block) {
        sf_env_free(&e, ev, sizeof *ev);
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "evaluation", SFI_NO_INDEX, "%zu bytes for %zu vertices",
                            bytes, n);
    }
    layout(ev, methods, rows, n, F, (char*)ev->block);

    sf_eval_results* res = &ev->res;
    res->vertex_count = n;
    res->tangent_frame = topo->has_uvs;
    if (desc) res->reference_opts = desc->reference_opts, res->method_opts = desc->method_opts;
    res->positions = ev->positions;
    res->reference_normals = ev->ref_n;
    res->reference_tangents = ev->ref_t;
    res->row_count = rows;
    for (size_t k = 0; k < rows; ++k) {
        sf_eval_row* row = &res->rows[k];
        row->method = methods[k];
        /* The recompute rows check the pipeline: the reference's own settings, so about 0 degrees. */
        bool rebuilt = methods[k] == SF_METHOD_RECOMPUTE || methods[k] == SF_METHOD_RECOMPUTE_FUSED;
        row->opts = rebuilt ? res->reference_opts : res->method_opts;
        sf_error_clear(&row->detail);
        if (sfi_frames_read_deform(row->method) && row->opts.morph_directions == res->reference_opts.morph_directions)
            ev->deform_readers = true;
    }
    res->failed = SF_EVAL_STAGE_NONE;
    res->failed_method = SF_METHOD_COUNT;
    *out = ev;
    return SF_OK;
}

void sf_evaluation_destroy(sf_evaluation* ev)
{
    if (!ev) return;
    sf_env e = ev->env;
    sf_env_free(&e, ev->block, ev->bytes);
    sf_env_free(&e, ev, sizeof *ev);
}

const sf_eval_results* sf_evaluation_results(const sf_evaluation* ev) { return ev ? &ev->res : NULL; }

const sf_eval_row* sf_evaluation_row(const sf_evaluation* ev, sf_method method)
{
    for (size_t k = 0; ev && k < ev->res.row_count; ++k)
        if (ev->res.rows[k].method == method) return &ev->res.rows[k];
    return NULL;
}

uint32_t sf_evaluation_methods_mask(const sf_evaluation* ev)
{
    uint32_t mask = 1u << SF_METHOD_RECOMPUTE;
    for (size_t k = 0; ev && k < ev->res.row_count; ++k) mask |= 1u << ev->res.rows[k].method;
    return mask;
}

/* The caller's buffer when given, else the evaluation's array (may be NULL). */
static float* pick(float* given, float* own) { return given ? given : own; }

/* One row against the reference (frames already in place); cannot fail with valid arrays. corners: the
 * row's own corner tangents (the recompute row's are the reference's), or NULL. */
static void measure_row(sf_evaluation* ev, size_t k, const sf_eval_row_buffers* rb, const sf_frames_out* frames,
                        const sf_frames_out* ref, const float* corners, const float* ref_corners)
{
    sf_eval_row* row = &ev->res.rows[k];
    float* nd = pick(rb ? rb->normal_deg : NULL, ev->row_nd[k]);
    float* td = pick(rb ? rb->tangent_deg : NULL, ev->row_td[k]);
    uint8_t* flags = rb && rb->flags ? rb->flags : ev->row_flags[k];
    row->normal_deg = nd;
    row->tangent_deg = td;
    row->flags = flags;
    row->tangent_corner_deg = NULL;
    if (!ev->res.tangent_corners) {
        sfi_direction_errors(ev->topo, frames, ref, nd ? nd : ev->angle_n, td ? td : ev->angle_t, flags, ev->sort,
                             &row->errors, NULL);
        return;
    }
    /* normals as always; tangents at every corner */
    float* tcd = pick(rb ? rb->tangent_corner_deg : NULL, ev->row_tcd[k]);
    row->tangent_corner_deg = tcd;
    uint8_t* f = flags ? flags : ev->flag_scratch;
    sf_frames_out normals_only = {NULL, frames->normals, NULL}, ref_normals = {NULL, ref->normals, NULL};
    sfi_direction_errors(ev->topo, &normals_only, &ref_normals, nd ? nd : ev->angle_n, NULL, f, ev->sort,
                         &row->errors, NULL);
    sfi_corner_tangent_errors(ev->topo, frames->tangents, corners, ref->tangents, ref_corners, tcd ? tcd : ev->angle_tc,
                              td ? td : ev->angle_t, f, ev->sort, &row->errors, NULL);
}

/* The reference's corner tangents of the run that just ended on ws, w converted as the per-vertex output's
 * (rebuild.c), and how many vertices they split (no allocation: each vertex's corners against its first). */
static bool take_corners(sf_evaluation* ev, const sf_workspace* ws)
{
    const sf_topology* topo = ev->topo;
    const float* corners = ev->corners ? sfi_mikktspace_corner_tangents(ws) : NULL;
    if (!corners) return false;
    size_t C = 3 * topo->triangle_count;
    for (size_t c = 0; c < C; ++c) {
        float* t = ev->ref_ct + 4 * c;
        memcpy(t, corners + 4 * c, 4 * sizeof(float));
        t[3] = sfk_mikk_vertex_w(t[3], topo->bitangent_sign, ws->det[topo->indices[c]]);
    }
    size_t split = 0;
    for (size_t v = 0; v < topo->vertex_count; ++v) {
        uint32_t begin = topo->adj_offsets[v], end = topo->adj_offsets[v + 1];
        if (begin == end) continue; /* in no triangle: no corner */
        const float* first = ev->ref_ct + 4 * (size_t)topo->adj_corners[begin];
        for (uint32_t k = begin + 1; k < end; ++k) {
            const float* t = ev->ref_ct + 4 * (size_t)topo->adj_corners[k];
            if (t[0] != first[0] || t[1] != first[1] || t[2] != first[2] || t[3] != first[3]) { /* as sf_tangents_split */
                split++;
                break;
            }
        }
    }
    ev->res.reference_split_vertices = split;
    return true;
}

/* A device workspace with nothing per vertex asked for: the reference, the rows and their statistics all on
 * the device (its backend's eval_enqueue / eval_read), only the summaries come back. p50 / p95 come from the statistics' histogram. */
static sf_result run_on_device(sf_evaluation* ev, const sf_pose* pose, sf_workspace* ws, sf_error* err)
{
    sf_eval_results* res = &ev->res;
    sf_method methods[SF_METHOD_COUNT];
    for (size_t k = 0; k < res->row_count; ++k) methods[k] = res->rows[k].method;
    res->failed = SF_EVAL_STAGE_REFERENCE;
    ev->device_ws = ws;
    sf_result r = ws->be->eval_enqueue(ws, pose, 1, methods, res->row_count, &res->method_opts, &res->reference_opts, err);
    if (r == SF_OK) r = ws->be->eval_read(ws, SF_METHOD_COUNT, NULL, &res->reference_report, NULL, NULL, err);
    if (r != SF_OK) return r;
    res->positions = res->reference_normals = res->reference_tangents = NULL;
    res->tangent_corners = 0;
    res->reference_corner_tangents = NULL;
    res->reference_split_vertices = 0;
    for (size_t k = 0; k < res->row_count; ++k) {
        sf_eval_row* row = &res->rows[k];
        row->normals = row->tangents = row->normal_deg = row->tangent_deg = row->tangent_corner_deg = NULL;
        row->flags = NULL;
        sf_error_clear(&row->detail);
        row->status = ws->be->eval_read(ws, k, &row->errors, &row->report, NULL, NULL, &row->detail);
        if (row->status == SF_ERROR_UNSUPPORTED) {
            memset(&row->errors, 0, sizeof row->errors);
            memset(&row->report, 0, sizeof row->report);
            continue;
        }
        if (row->status != SF_OK) {
            r = row->status;
            if (err) *err = row->detail;
            sf_error_clear(&row->detail);
            res->failed = SF_EVAL_STAGE_METHOD;
            res->failed_method = row->method;
            return r;
        }
        if (ev->flags & SF_EVAL_NO_STATISTICS) {
            memset(&row->errors.normal, 0, sizeof row->errors.normal);
            memset(&row->errors.tangent, 0, sizeof row->errors.tangent);
        }
    }
    res->failed = SF_EVAL_STAGE_NONE;
    res->runs++;
    return SF_OK;
}

sf_result sf_evaluation_run_poses(sf_evaluation* ev, const sf_pose* poses, size_t count, sf_workspace* ws, int first,
                                  sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(ev != NULL, SF_ERROR_INVALID_ARGUMENT, err, "evaluation", SFI_NO_INDEX, "is NULL");
    SF_CHECK(poses != NULL && count > 0, SF_ERROR_INVALID_ARGUMENT, err, "poses", SFI_NO_INDEX, "none given");
    sf_eval_results* res = &ev->res;
    res->failed = SF_EVAL_STAGE_INPUT;
    res->failed_method = SF_METHOD_COUNT;
    SF_CHECK(ws && ws->topo == ev->topo, SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX,
             "was not created for this topology");
    uint32_t need = sf_evaluation_methods_mask(ev);
    SF_CHECK((ws->methods & need) == need, SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX,
             "was created without every method of the evaluation (sf_evaluation_methods_mask)");
    SF_CHECK(ws->be->eval_enqueue_clip && ws->be->eval_poses, SF_ERROR_UNSUPPORTED, err, "workspace", SFI_NO_INDEX,
             "backend `%s` keeps no statistics on a device", ws->be->name);
    SF_CHECK(!(ev->flags & (SF_EVAL_KEEP_FRAMES | SF_EVAL_KEEP_ANGLES)), SF_ERROR_UNSUPPORTED, err, "evaluation",
             SFI_NO_INDEX, "keeps frames or angles: the host's work");
    sf_method methods[SF_METHOD_COUNT];
    for (size_t k = 0; k < res->row_count; ++k) methods[k] = res->rows[k].method;
    res->failed = SF_EVAL_STAGE_REFERENCE;
    ev->device_ws = ws;
    sf_result r = ws->be->eval_enqueue_clip(ws, poses, count, methods, res->row_count, &res->method_opts,
                                            &res->reference_opts, first, err);
    if (r != SF_OK) return r;
    res->positions = res->reference_normals = res->reference_tangents = NULL;
    res->tangent_corners = ev->corners; /* measured on the device, each vertex's tangent against its corners' */
    res->reference_corner_tangents = NULL;
    res->reference_split_vertices = 0;
    memset(&res->reference_report, 0, sizeof res->reference_report);
    for (size_t k = 0; k < res->row_count; ++k) {
        sf_eval_row* row = &res->rows[k];
        row->normals = row->tangents = row->normal_deg = row->tangent_deg = row->tangent_corner_deg = NULL;
        row->flags = NULL;
        memset(&row->errors, 0, sizeof row->errors);
        memset(&row->report, 0, sizeof row->report);
        sf_error_clear(&row->detail);
        row->status = ws->be->eval_poses(ws, k, NULL, &row->detail);
        if (row->status != SF_OK && row->status != SF_ERROR_UNSUPPORTED) {
            res->failed = SF_EVAL_STAGE_METHOD;
            res->failed_method = row->method;
            if (err) *err = row->detail;
            return row->status;
        }
    }
    res->failed = SF_EVAL_STAGE_NONE;
    res->runs++;
    return SF_OK;
}

sf_result sf_evaluation_add_poses(sf_evaluation* dst, const sf_evaluation* src, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(dst && src && dst != src, SF_ERROR_INVALID_ARGUMENT, err, "evaluation", SFI_NO_INDEX,
             "need two evaluations");
    SF_CHECK(dst->device_ws && src->device_ws && dst->device_ws->be == src->device_ws->be &&
                 dst->device_ws->be->eval_add && dst->res.runs > 0 && src->res.runs > 0 &&
                 dst->res.failed == SF_EVAL_STAGE_NONE && src->res.failed == SF_EVAL_STAGE_NONE,
             SF_ERROR_INVALID_ARGUMENT, err, "evaluation", SFI_NO_INDEX,
             "has no successful run of poses on a device to add");
    return dst->device_ws->be->eval_add(dst->device_ws, src->device_ws, err);
}

sf_result sf_evaluation_pose_errors(const sf_evaluation* ev, size_t row, sf_pose_errors* out, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(ev != NULL && out != NULL, SF_ERROR_INVALID_ARGUMENT, err, ev ? "out" : "evaluation", SFI_NO_INDEX,
             "is NULL");
    const sf_eval_results* res = &ev->res;
    SF_CHECK(row < res->row_count, SF_ERROR_INVALID_ARGUMENT, err, "row", row, "of %zu rows", res->row_count);
    SF_CHECK(ev->device_ws && res->runs > 0 && res->failed == SF_EVAL_STAGE_NONE, SF_ERROR_INVALID_ARGUMENT, err,
             "evaluation", SFI_NO_INDEX, "has no successful sf_evaluation_run_poses to read");
    return ev->device_ws->be->eval_poses(ev->device_ws, row, out, err);
}

/* The corner tangents of the row that just ran on ws (recompute-fused's two-pass MikkTSpace tangents) when
 * they are the reference's bit for bit (w converted as take_corners does): then ev->ref_ct stands for them;
 * else NULL (its per-vertex tangents are measured). */
static const float* row_corners(const sf_evaluation* ev, const sf_workspace* ws)
{
    const sf_topology* topo = ev->topo;
    const float* corners = ev->res.tangent_corners ? sfi_mikktspace_corner_tangents(ws) : NULL;
    if (!corners) return NULL;
    for (size_t c = 0; c < 3 * topo->triangle_count; ++c) {
        const float *t = corners + 4 * c, *r = ev->ref_ct + 4 * c;
        float w = sfk_mikk_vertex_w(t[3], topo->bitangent_sign, ws->det[topo->indices[c]]);
        if (memcmp(t, r, 3 * sizeof(float)) != 0 || memcmp(&w, r + 3, sizeof w) != 0) return NULL;
    }
    return ev->ref_ct;
}

/* A method this build cannot run: the row says so and holds nothing. */
static void skip_row(sf_eval_row* row)
{
    row->status = SF_ERROR_UNSUPPORTED;
    memset(&row->errors, 0, sizeof row->errors);
    memset(&row->report, 0, sizeof row->report);
    memset(&row->position, 0, sizeof row->position);
    row->normals = row->tangents = row->normal_deg = row->tangent_deg = row->tangent_corner_deg = NULL;
    row->flags = NULL;
}

/* A method that failed ends the run: its detail becomes the run's error. */
static sf_result fail_row(sf_evaluation* ev, sf_eval_row* row, sf_result r, sf_error* err)
{
    if (err) *err = row->detail;
    sf_error_clear(&row->detail);
    ev->res.failed = SF_EVAL_STAGE_METHOD;
    ev->res.failed_method = row->method;
    return r;
}

/* recompute-fused whose MikkTSpace tangents ran two-pass: the workspace holds its own corner tangents. */
static bool fused_mikktspace(const sf_eval_row* row)
{
    return row->method == SF_METHOD_RECOMPUTE_FUSED && (row->report.fused_two_pass & SF_FUSED_TWO_PASS_TANGENTS);
}

/* Whether the reference should write the whole deform (not only the final positions of its fast path): where
 * the CPU's fast path reads a per-vertex or jacobian row's frames from it (sfi_skin_frames_deformed, the
 * jacobians' steps), each such row with the reference's morph directions (deform_readers, known from the
 * evaluation's creation) then skips a deform of its own. */
static bool shares_deform(const sf_evaluation* ev, const sf_workspace* ws)
{
    return ev->deform_readers && ws->be->frames == sfi_frames_cpu && sfi_simd_level(ev->topo) != SFI_SIMD_SCALAR &&
           ws->blend && ws->morph_pos && ws->morph_nrm && ws->morph_tan && ws->final_pos;
}

sf_result sf_evaluation_run(sf_evaluation* ev, const sf_pose* pose, sf_workspace* ws, const sf_eval_buffers* buffers,
                            sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(ev != NULL, SF_ERROR_INVALID_ARGUMENT, err, "evaluation", SFI_NO_INDEX, "is NULL");
    const sf_topology* topo = ev->topo;
    sf_eval_results* res = &ev->res;
    res->failed = SF_EVAL_STAGE_INPUT;
    res->failed_method = SF_METHOD_COUNT;
    sf_result r = sf_pose_validate(topo, pose, err);
    if (r != SF_OK) return r;
    SF_CHECK(ws && ws->topo == topo, SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX,
             "was not created for this topology");
    uint32_t need = sf_evaluation_methods_mask(ev);
    SF_CHECK((ws->methods & need) == need, SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX,
             "was created without every method of the evaluation (sf_evaluation_methods_mask)");

    if (ws->be->eval_enqueue && !buffers && !(ev->flags & (SF_EVAL_KEEP_FRAMES | SF_EVAL_KEEP_ANGLES)) &&
        !ev->corners)
        return run_on_device(ev, pose, ws, err);

    ev->device_ws = NULL;
    const sf_eval_buffers* b = buffers;
    sf_frames_out ref = {pick(b ? b->positions : NULL, ev->positions), pick(b ? b->reference_normals : NULL, ev->ref_n),
                         pick(b ? b->reference_tangents : NULL, ev->ref_t)};
    res->failed = SF_EVAL_STAGE_REFERENCE;
    if (shares_deform(ev, ws)) {
        /* the whole deform first, which the reference and the per-vertex rows then read */
        sfi_deform(topo, pose, res->reference_opts.morph_directions, ws);
        r = sfi_frames_compute(topo, pose, SF_METHOD_RECOMPUTE, &res->reference_opts, ws, &ref, 1, err);
    } else {
        r = sf_frames_compute(topo, pose, SF_METHOD_RECOMPUTE, &res->reference_opts, ws, &ref, err);
    }
    if (r != SF_OK) return r;
    sf_workspace_last_report(ws, &res->reference_report);
    res->tangent_corners = take_corners(ev, ws);
    res->reference_corner_tangents = res->tangent_corners ? ev->ref_ct : NULL;
    if (!res->tangent_corners) res->reference_split_vertices = 0;
    res->positions = ref.positions;
    res->reference_normals = ref.normals;
    res->reference_tangents = ref.tangents;
    const sf_frames_out ref_dirs = {NULL, ref.normals, ref.tangents};
    size_t n = topo->vertex_count;

    for (size_t k = 0; k < res->row_count; ++k) {
        sf_eval_row* row = &res->rows[k];
        const sf_eval_row_buffers* rb = b ? &b->rows[k] : NULL;
        float* given_n = rb ? rb->normals : NULL;
        float* given_t = rb ? rb->tangents : NULL;
        row->status = SF_OK;
        sf_error_clear(&row->detail);
        if (row->method == SF_METHOD_RECOMPUTE) {
            /* The reference itself: the same call with the same settings gives the same bits. */
            if (given_n && n) memcpy(given_n, ref.normals, 3 * n * sizeof(float));
            if (given_t && n) memcpy(given_t, ref.tangents, 4 * n * sizeof(float));
            row->normals = pick(given_n, ref.normals);
            row->tangents = pick(given_t, ref.tangents);
            row->report = res->reference_report;
            memset(&row->position, 0, sizeof row->position);
            measure_row(ev, k, rb, &ref_dirs, &ref_dirs, ev->ref_ct, ev->ref_ct);
            continue;
        }
        float* own_n = pick(ev->row_n[k], ev->frame_n);
        float* own_t = pick(ev->row_t[k], ev->frame_t);
        sf_frames_out out = {NULL, pick(given_n, own_n), pick(given_t, own_t)};
        /* The rows share the reference's deform while ws holds their morph directions' (a row that deforms
         * with other directions replaces it; the per-vertex fast paths leave it) */
        int deformed = (int)row->opts.morph_directions == ws->deformed_dirs;
        r = sfi_frames_compute(topo, pose, row->method, &row->opts, ws, &out, deformed, &row->detail);
        if (r == SF_ERROR_UNSUPPORTED) {
            skip_row(row);
            continue;
        }
        if (r != SF_OK) return fail_row(ev, row, r, err);
        sf_workspace_last_report(ws, &row->report);
        /* Shared scratch is overwritten by the next row: not a result. */
        row->normals = given_n || ev->row_n[k] ? out.normals : NULL;
        row->tangents = given_t || ev->row_t[k] ? out.tangents : NULL;
        bool own_corners = fused_mikktspace(row);
        memset(&row->position, 0, sizeof row->position);
        measure_row(ev, k, rb, &out, &ref_dirs, own_corners ? row_corners(ev, ws) : NULL, ev->ref_ct);
    }
    res->failed = SF_EVAL_STAGE_NONE;
    res->runs++;
    return SF_OK;
}

/* Distances from the final positions p to the reference's q (n vertices each). */
static sf_position_error position_error(const float* p, const float* q, size_t n)
{
    sf_position_error e;
    memset(&e, 0, sizeof e);
    double lo[3] = {0.0, 0.0, 0.0}, hi[3] = {0.0, 0.0, 0.0}, sum = 0.0, sq = 0.0;
    for (size_t v = 0; v < n; ++v) {
        double d2 = 0.0;
        for (int c = 0; c < 3; ++c) {
            double a = (double)p[3 * v + c], b = (double)q[3 * v + c];
            d2 += (a - b) * (a - b);
            if (v == 0 || b < lo[c]) lo[c] = b;
            if (v == 0 || b > hi[c]) hi[c] = b;
        }
        double d = sqrt(d2);
        sum += d;
        sq += d2;
        if (d > e.max) e.max = d, e.worst_vertex = v;
    }
    e.count = n;
    if (n) {
        e.mean = sum / (double)n;
        e.rms = sqrt(sq / (double)n);
    }
    e.diagonal = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                      (hi[2] - lo[2]) * (hi[2] - lo[2]));
    return e;
}

/* Same vertices and triangles (so the same adjacency), the same tangent frame and tangent mode. */
static sf_result check_variant(const sf_evaluation* ev, const sf_evaluation* ref, sf_error* err)
{
    const sf_topology *a = ev->topo, *b = ref->topo;
    SF_CHECK(ref->res.runs > 0 && ref->res.failed == SF_EVAL_STAGE_NONE, SF_ERROR_INVALID_ARGUMENT, err, "reference",
             SFI_NO_INDEX, "has no successful run to measure against");
    SF_CHECK(a->vertex_count == b->vertex_count && a->triangle_count == b->triangle_count, SF_ERROR_COUNT_MISMATCH,
             err, "reference", SFI_NO_INDEX, "has %zu vertices and %zu triangles, the evaluation %zu and %zu",
             b->vertex_count, b->triangle_count, a->vertex_count, a->triangle_count);
    SF_CHECK(a == b || memcmp(a->indices, b->indices, 3 * a->triangle_count * sizeof *a->indices) == 0,
             SF_ERROR_INVALID_ARGUMENT, err, "reference", SFI_NO_INDEX, "has other triangles");
    SF_CHECK(a->has_uvs == b->has_uvs && ev->corners == ref->corners, SF_ERROR_INVALID_ARGUMENT, err, "reference",
             SFI_NO_INDEX, "measures tangents %s, the evaluation %s",
             !b->has_uvs ? "not at all" : ref->corners ? "per corner" : "per vertex",
             !a->has_uvs ? "not at all" : ev->corners ? "per corner" : "per vertex");
    return SF_OK;
}

sf_result sf_evaluation_run_against(sf_evaluation* ev, const sf_evaluation* reference, const sf_pose* pose,
                                    sf_workspace* ws, const sf_eval_buffers* buffers, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(ev != NULL, SF_ERROR_INVALID_ARGUMENT, err, "evaluation", SFI_NO_INDEX, "is NULL");
    SF_CHECK(reference != NULL, SF_ERROR_INVALID_ARGUMENT, err, "reference", SFI_NO_INDEX, "is NULL");
    const sf_topology* topo = ev->topo;
    sf_eval_results* res = &ev->res;
    res->failed = SF_EVAL_STAGE_INPUT;
    res->failed_method = SF_METHOD_COUNT;
    sf_result r = check_variant(ev, reference, err);
    if (r == SF_OK) r = sf_pose_validate(topo, pose, err);
    if (r != SF_OK) return r;
    SF_CHECK(ws && ws->topo == topo, SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX,
             "was not created for this topology");
    uint32_t need = sf_evaluation_methods_mask(ev);
    SF_CHECK((ws->methods & need) == need, SF_ERROR_INVALID_ARGUMENT, err, "workspace", SFI_NO_INDEX,
             "was created without every method of the evaluation (sf_evaluation_methods_mask)");

    const sf_eval_results* full = &reference->res;
    const sf_frames_out ref_dirs = {NULL, (float*)full->reference_normals, (float*)full->reference_tangents};
    res->tangent_corners = full->tangent_corners;
    res->reference_corner_tangents = full->reference_corner_tangents;
    res->reference_split_vertices = full->reference_split_vertices;
    res->reference_normals = full->reference_normals;
    res->reference_tangents = full->reference_tangents;
    memset(&res->reference_report, 0, sizeof res->reference_report);
    const sf_eval_buffers* b = buffers;
    float* positions = pick(b ? b->positions : NULL, ev->positions);
    res->positions = positions;
    size_t n = topo->vertex_count;
    ws->deformed_dirs = -1; /* nothing of this pose is in ws yet */

    for (size_t k = 0; k < res->row_count; ++k) {
        sf_eval_row* row = &res->rows[k];
        const sf_eval_row_buffers* rb = b ? &b->rows[k] : NULL;
        float* given_n = rb ? rb->normals : NULL;
        float* given_t = rb ? rb->tangents : NULL;
        bool rec = row->method == SF_METHOD_RECOMPUTE;
        row->status = SF_OK;
        sf_error_clear(&row->detail);
        /* recompute keeps no row arrays: its frames go where this evaluation's own reference would */
        float* own_n = rec ? ev->ref_n : pick(ev->row_n[k], ev->frame_n);
        float* own_t = rec ? ev->ref_t : pick(ev->row_t[k], ev->frame_t);
        /* each row's own final positions (a fast path writes them here, not into ws) */
        sf_frames_out out = {positions, pick(given_n, own_n), pick(given_t, own_t)};
        int deformed = (int)row->opts.morph_directions == ws->deformed_dirs;
        r = sfi_frames_compute(topo, pose, row->method, &row->opts, ws, &out, deformed, &row->detail);
        if (r == SF_ERROR_UNSUPPORTED) {
            skip_row(row);
            ws->deformed_dirs = -1;
            continue;
        }
        if (r != SF_OK) return fail_row(ev, row, r, err);
        sf_workspace_last_report(ws, &row->report);
        row->position = position_error(positions, full->positions, n);
        row->normals = given_n || rec || ev->row_n[k] ? out.normals : NULL;
        row->tangents = given_t || rec || ev->row_t[k] ? out.tangents : NULL;
        /* recompute's own corners (this deformation's MikkTSpace), converted as the reference's are; so are
         * recompute-fused's where its tangents ran two-pass */
        bool mikk = rec || fused_mikktspace(row);
        const float* corners = mikk && take_corners(ev, ws) ? ev->ref_ct : NULL;
        measure_row(ev, k, rb, &out, &ref_dirs, corners, full->reference_corner_tangents);
    }
    res->failed = SF_EVAL_STAGE_NONE;
    res->runs++;
    return SF_OK;
}

sf_result sf_evaluation_accumulate(const sf_evaluation* ev, size_t row, sf_angle_accumulator* normal_acc,
                                   sf_angle_accumulator* tangent_acc, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(ev != NULL, SF_ERROR_INVALID_ARGUMENT, err, "evaluation", SFI_NO_INDEX, "is NULL");
    const sf_eval_results* res = &ev->res;
    SF_CHECK(row < res->row_count, SF_ERROR_INVALID_ARGUMENT, err, "row", row, "of %zu rows", res->row_count);
    SF_CHECK(res->runs > 0 && res->failed == SF_EVAL_STAGE_NONE, SF_ERROR_INVALID_ARGUMENT, err, "evaluation",
             SFI_NO_INDEX, "has no successful run to add");
    const sf_eval_row* r = &res->rows[row];
    if (r->status != SF_OK) return SF_OK;
    if (!res->tangent_frame) tangent_acc = NULL;
    if (ev->device_ws) return ev->device_ws->be->eval_read(ev->device_ws, row, NULL, NULL, normal_acc, tangent_acc, err);
    size_t n = res->vertex_count;
    SF_CHECK((!normal_acc || r->normal_deg) && (!tangent_acc || r->tangent_deg), SF_ERROR_INVALID_ARGUMENT, err, "row",
             row, "the last run kept no angles of `%s` (SF_EVAL_KEEP_ANGLES, or buffers for them)",
             sf_method_name(r->method));
    sf_result e = normal_acc ? sf_angle_accumulator_add(normal_acc, r->normal_deg, n, err) : SF_OK;
    if (e == SF_OK && tangent_acc) e = sf_angle_accumulator_add(tangent_acc, r->tangent_deg, n, err);
    return e;
}

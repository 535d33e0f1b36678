/* libFuzzer target for the command's writers, in-process (built only with -DSF_FUZZ=ON and clang): the input
 * is written as a file (.glb when it starts with the GLB magic, else .gltf, beside the seeds' external files
 * of SF_FUZZ_FILES), then one of
 *   bake FILE --time T --method M -o OUT.glb [--error-colors]
 *   fix FILE -o OUT.glb|OUT.gltf [--no-measure | --fps 1] [--max-influences K] [--no-...]
 *   export-gpu FILE -o DIR [--time T] [--unit N]
 * runs through the command's own entry (cmd_bake, cmd_fix, cmd_export_gpu), with the flags drawn from a
 * hash of the input, into a fresh temporary folder. It aborts, with a line saying what, when
 *   - the command exits 0 and its output does not load back in skinframe, holds a non-finite number, or
 *     loses what it keeps: bake's triangles (one primitive per instance primitive), fix's nodes, meshes,
 *     skins, animations and every primitive's positions and indices bit for bit; export-gpu's files are not
 *     the sizes layout.json gives, hold a non-finite float, an index past the vertices, or a normal neither
 *     unit nor zero;
 *   - fixing fix's own output changes its repaired data (fix promises a fixed file stays as it is);
 *   - the command fails without a message, exits with a status other than 0, 1, 2, leaves an output (or a
 *     temporary) behind when it fails, or changes its input file.
 * Any crash, leak or sanitizer report is a bug as well. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, lstat */
#include "cli.h"
#include "fuzz_choices.h"
#include "skinframe_gltf.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#define MAX_VERTICES "4096"        /* per primitive (bake, export-gpu: --max-vertices) */
#define MAX_DECODED "8388608"      /* bytes for the whole file */
#define CHECK_VERTICES 4096        /* fix has no limit flags: the target skips larger files before running it */

static char g_root[256]; /* the process's temporary folder: in/ (the input and the seeds' files) and out/ */
static size_t g_runs[3], g_written[3]; /* per command: runs, and runs that wrote their output (checked) */

static void fail(const char* kind, const char* fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    fprintf(stderr, "fuzz_cli: %s: ", kind);
    vfprintf(stderr, fmt, args);
    fputc('\n', stderr);
    va_end(args);
    abort();
}

#define CONTRACT(cond, ...)                         \
    do {                                            \
        if (!(cond)) fail("contract", __VA_ARGS__); \
    } while (0)

static int write_file(const char* path, const void* data, size_t size)
{
    FILE* f = fopen(path, "wb");
    if (!f) return -1;
    size_t put = size ? fwrite(data, 1, size, f) : 0;
    return fclose(f) == 0 && put == size ? 0 : -1;
}

/* The whole file, or NULL; *size its length. */
static unsigned char* read_file(const char* path, size_t* size)
{
    FILE* f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char* buf = NULL;
    size_t len = 0, cap = 0, got;
    do {
        if (len == cap) {
            unsigned char* grown = realloc(buf, cap = cap ? 2 * cap : 65536);
            if (!grown) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = grown;
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
    } while (got > 0);
    fclose(f);
    *size = len;
    return buf;
}

/* Empties a folder (recursively) and, unless keep, removes it. */
static void remove_tree(const char* path, int keep)
{
    DIR* d = opendir(path);
    if (d) {
        struct dirent* e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            char child[1024];
            snprintf(child, sizeof child, "%s/%s", path, e->d_name);
            struct stat st;
            if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
                remove_tree(child, 0);
            else
                unlink(child);
        }
        closedir(d);
    }
    if (!keep) rmdir(path);
}

/* Files (not folders) under path, at any depth. */
static size_t files_under(const char* path)
{
    DIR* d = opendir(path);
    size_t n = 0;
    for (struct dirent* e; d && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char child[1024];
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        struct stat st;
        n += lstat(child, &st) == 0 && S_ISDIR(st.st_mode) ? files_under(child) : 1;
    }
    if (d) closedir(d);
    return n;
}

/* At exit: the temporary folder removed, and what ran (a campaign's record). */
static void at_exit(void)
{
    remove_tree(g_root, 0);
    fprintf(stderr, "fuzz_cli: bake %zu runs, %zu written; fix %zu, %zu; export-gpu %zu, %zu\n", g_runs[0],
            g_written[0], g_runs[1], g_written[1], g_runs[2], g_written[2]);
}

/* Once per process: the folders, stdout to /dev/null (the reports), the seeds' external files copied beside
 * the input (the loader reads no links). */
static int setup(void)
{
    static int ready = -1;
    if (ready >= 0) return ready;
    ready = 0;
    const char* tmp = getenv("TMPDIR");
    snprintf(g_root, sizeof g_root, "%s/fuzz_cli.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(g_root)) return 0;
    atexit(at_exit);
    char path[512];
    snprintf(path, sizeof path, "%s/in", g_root);
    if (mkdir(path, 0700) != 0) return 0;
    snprintf(path, sizeof path, "%s/out", g_root);
    if (mkdir(path, 0700) != 0) return 0;
    if (!freopen("/dev/null", "w", stdout)) return 0;
    const char* files = getenv("SF_FUZZ_FILES");
    DIR* d = files ? opendir(files) : NULL;
    for (struct dirent* e; d && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.' || strncmp(e->d_name, "input.", 6) == 0) continue;
        char from[1024], to[1024];
        snprintf(from, sizeof from, "%s/%s", files, e->d_name);
        snprintf(to, sizeof to, "%s/in/%s", g_root, e->d_name);
        size_t n = 0;
        unsigned char* bytes = read_file(from, &n);
        if (bytes) write_file(to, bytes, n);
        free(bytes);
    }
    if (d) closedir(d);
    ready = 1;
    return 1;
}

static sf_gltf* load(const char* path, sf_error* err)
{
    sf_gltf_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.max_vertices = CHECK_VERTICES;
    opts.max_decoded_bytes = (size_t)8 << 20;
    sf_gltf* g = NULL;
    return sf_gltf_load_file(path, &opts, NULL, &g, err) == SF_OK ? g : NULL;
}

static void finite_stream(const sf_stream* s, size_t ncomp, size_t n, const char* what, size_t prim)
{
    size_t stride = s->stride ? s->stride : ncomp * sizeof(float);
    for (size_t v = 0; s->data && v < n; ++v)
        for (size_t c = 0; c < ncomp; ++c) {
            float x = ((const float*)((const char*)s->data + stride * v))[c];
            CONTRACT(isfinite(x), "written file: primitive %zu: %s[%zu] = %g", prim, what, v, (double)x);
        }
}

/* Every primitive of a written file: finite positions, normals, tangents and uvs. */
static void finite_file(const sf_gltf* g)
{
    for (size_t p = 0; p < g->primitive_count; ++p) {
        const sf_mesh_desc* m = &g->primitives[p].mesh;
        finite_stream(&m->positions, 3, m->vertex_count, "POSITION", p);
        finite_stream(&m->normals, 3, m->vertex_count, "NORMAL", p);
        finite_stream(&m->tangents, 4, m->vertex_count, "TANGENT", p);
        finite_stream(&m->uvs, 2, m->vertex_count, "TEXCOORD", p);
    }
}

/* Triangles over every (instance, primitive) of a loaded file: what bake writes, a primitive each. */
static size_t instance_triangles(const sf_gltf* g)
{
    size_t t = 0;
    for (size_t i = 0; i < g->instance_count; ++i) {
        const sf_gltf_mesh* m = &g->meshes[g->instances[i].mesh];
        for (size_t p = m->first_primitive; p < m->first_primitive + m->primitive_count; ++p)
            t += g->primitives[p].mesh.triangle_count;
    }
    return t;
}

static void same_stream(const sf_stream* a, const sf_stream* b, size_t ncomp, size_t n, const char* what, size_t p)
{
    CONTRACT(!a->data == !b->data, "fix: primitive %zu: %s %s", p, what, a->data ? "lost" : "appeared");
    size_t sa = a->stride ? a->stride : ncomp * sizeof(float), sb = b->stride ? b->stride : ncomp * sizeof(float);
    for (size_t v = 0; a->data && v < n; ++v)
        CONTRACT(memcmp((const char*)a->data + sa * v, (const char*)b->data + sb * v, ncomp * sizeof(float)) == 0,
                 "fix: primitive %zu: %s[%zu] changed", p, what, v);
}

/* fix keeps the scene, and every primitive's triangles: each corner at the position it had (a vertex split for
 * its tangents is a copy appended after the file's own, its corners renumbered). */
static void fix_kept(const sf_gltf* in, const sf_gltf* out)
{
    CONTRACT(in->node_count == out->node_count && in->mesh_count == out->mesh_count &&
                 in->skin_count == out->skin_count && in->animation_count == out->animation_count &&
                 in->primitive_count == out->primitive_count && in->instance_count == out->instance_count,
             "fix: nodes %zu -> %zu, meshes %zu -> %zu, skins %zu -> %zu, animations %zu -> %zu, primitives %zu -> %zu",
             in->node_count, out->node_count, in->mesh_count, out->mesh_count, in->skin_count, out->skin_count,
             in->animation_count, out->animation_count, in->primitive_count, out->primitive_count);
    for (size_t p = 0; p < in->primitive_count; ++p) {
        const sf_mesh_desc *a = &in->primitives[p].mesh, *b = &out->primitives[p].mesh;
        CONTRACT(a->vertex_count <= b->vertex_count && a->triangle_count == b->triangle_count &&
                     a->target_count == b->target_count,
                 "fix: primitive %zu: %zu vertices, %zu triangles, %zu targets -> %zu, %zu, %zu", p, a->vertex_count,
                 a->triangle_count, a->target_count, b->vertex_count, b->triangle_count, b->target_count);
        size_t sa = a->positions.stride ? a->positions.stride : 3 * sizeof(float);
        size_t sb = b->positions.stride ? b->positions.stride : 3 * sizeof(float);
        for (size_t c = 0; c < 3 * a->triangle_count; ++c) {
            uint32_t va = a->indices[c], vb = b->indices[c];
            CONTRACT(vb == va || vb >= a->vertex_count, "fix: primitive %zu: corner %zu moved from vertex %u to %u", p,
                     c, (unsigned)va, (unsigned)vb);
            CONTRACT(memcmp((const char*)a->positions.data + sa * va, (const char*)b->positions.data + sb * vb,
                            3 * sizeof(float)) == 0,
                     "fix: primitive %zu: corner %zu's position changed (vertex %u -> %u)", p, c, (unsigned)va,
                     (unsigned)vb);
        }
        same_stream(&a->positions, &b->positions, 3, a->vertex_count, "POSITION", p);
    }
}

/* Fixing fix's output changes none of its repaired data: normals, tangents, skinning and morph deltas. */
static void fix_settled(const sf_gltf* once, const sf_gltf* twice)
{
    fix_kept(once, twice);
    for (size_t p = 0; p < once->primitive_count; ++p) {
        const sf_mesh_desc *a = &once->primitives[p].mesh, *b = &twice->primitives[p].mesh;
        size_t n = a->vertex_count;
        CONTRACT(n == b->vertex_count, "fix: primitive %zu: %zu vertices, %zu when fixed again", p, n, b->vertex_count);
        same_stream(&a->normals, &b->normals, 3, n, "NORMAL (fixed again)", p);
        same_stream(&a->tangents, &b->tangents, 4, n, "TANGENT (fixed again)", p);
        CONTRACT(a->influence_count == b->influence_count &&
                     (n * a->influence_count == 0 ||
                      (memcmp(a->joints, b->joints, n * a->influence_count * sizeof(uint32_t)) == 0 &&
                       memcmp(a->weights, b->weights, n * a->influence_count * sizeof(float)) == 0)),
                 "fix: primitive %zu: the skinning changes when fixed again", p);
        for (size_t k = 0; k < a->target_count; ++k) {
            const sf_morph_target_desc *ta = &a->targets[k], *tb = &b->targets[k];
            size_t c = ta->sparse_indices ? ta->sparse_count : n;
            CONTRACT(!ta->normal_deltas == !tb->normal_deltas &&
                         (!ta->normal_deltas || c != (tb->sparse_indices ? tb->sparse_count : n) ||
                          memcmp(ta->normal_deltas, tb->normal_deltas, 3 * c * sizeof(float)) == 0),
                     "fix: primitive %zu, target %zu: the normal deltas change when fixed again", p, k);
        }
    }
}

static double json_number(const cJSON* o, const char* name)
{
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : -1.0;
}

/* export-gpu's folder: every file layout.json lists, at its size, with finite floats, indices inside the
 * vertices, and the expected normals unit or zero. */
static void export_checked(const char* dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/layout.json", dir);
    size_t size = 0;
    unsigned char* text = read_file(path, &size);
    CONTRACT(text != NULL, "export-gpu exits 0 without %s", path);
    cJSON* root = cJSON_ParseWithLength((const char*)text, size);
    free(text);
    CONTRACT(root != NULL, "export-gpu: layout.json is not JSON");
    const cJSON* files = cJSON_GetObjectItemCaseSensitive(root, "files");
    const cJSON* expected = cJSON_GetObjectItemCaseSensitive(root, "expected");
    CONTRACT(cJSON_IsObject(files), "export-gpu: layout.json has no files");
    double vertices = json_number(cJSON_GetObjectItemCaseSensitive(files, "rest_positions"), "count");
    const cJSON* groups[2] = {files, expected};
    for (int k = 0; k < 2; ++k) {
        const cJSON* f;
        cJSON_ArrayForEach(f, groups[k])
        {
            const cJSON* name = cJSON_GetObjectItemCaseSensitive(f, "file");
            const cJSON* type = cJSON_GetObjectItemCaseSensitive(f, "type");
            if (!cJSON_IsString(name) || !cJSON_IsString(type)) continue;
            double bytes = json_number(f, "bytes"), count = json_number(f, "count"), comps = json_number(f, "components");
            snprintf(path, sizeof path, "%s/%s", dir, name->valuestring);
            size_t got = 0;
            unsigned char* b = read_file(path, &got);
            CONTRACT(b != NULL, "export-gpu: layout.json lists %s, which is not there", name->valuestring);
            CONTRACT((double)got == bytes && (count < 0 || comps < 0 || bytes == 4.0 * count * comps),
                     "export-gpu: %s holds %zu bytes; layout.json says %g (%g x %g)", name->valuestring, got, bytes,
                     count, comps);
            size_t words = got / 4;
            if (strcmp(type->valuestring, "f32") == 0) {
                float* v = (float*)(void*)b;
                for (size_t i = 0; i < words; ++i)
                    CONTRACT(isfinite(v[i]), "export-gpu: %s[%zu] = %g", name->valuestring, i, (double)v[i]);
                size_t len = strlen(name->valuestring);
                if (k == 1 && len > 12 && strcmp(name->valuestring + len - 12, "_normals.bin") == 0)
                    for (size_t i = 0; i + 2 < words; i += 3) {
                        double l2 = (double)v[i] * v[i] + (double)v[i + 1] * v[i + 1] + (double)v[i + 2] * v[i + 2];
                        CONTRACT(l2 == 0.0 || fabs(l2 - 1.0) < 1e-3, "export-gpu: %s[%zu] has length %g",
                                 name->valuestring, i / 3, sqrt(l2));
                    }
            } else if (strcmp(name->valuestring, "indices.bin") == 0) {
                uint32_t* v = (uint32_t*)(void*)b;
                for (size_t i = 0; i < words; ++i)
                    CONTRACT((double)v[i] < vertices, "export-gpu: indices.bin[%zu] = %u, past %g vertices", i,
                             (unsigned)v[i], vertices);
            }
            free(b);
        }
    }
    cJSON_Delete(root);
}

typedef struct run {
    char* argv[32];
    int argc;
    char text[32][64]; /* the flags' values */
} run;

static void arg(run* r, const char* a)
{
    if (r->argc < 31) r->argv[r->argc++] = (char*)a;
}

static void arg_fmt(run* r, const char* fmt, double v)
{
    if (r->argc >= 31) return;
    snprintf(r->text[r->argc], sizeof r->text[0], fmt, v);
    r->argv[r->argc] = r->text[r->argc];
    r->argc++;
}

/* Runs the command through its entry, as main does; the exit status. */
static int command(run* r, int (*cmd)(int, char**))
{
    r->argv[r->argc] = NULL;
    cli_process_reset();
    int code = cmd(r->argc, r->argv);
    cli_env_shutdown();
    fflush(stdout);
    CONTRACT(code == CLI_EXIT_OK || code == CLI_EXIT_FAILURE || code == CLI_EXIT_USAGE, "%s: exit status %d",
             r->argv[0], code);
    CONTRACT(code == CLI_EXIT_OK || cli_last_error()[0] != '\0', "%s: exit status %d without a message", r->argv[0],
             code);
    return code;
}

static const char* const fix_switches[] = {"--no-morph-normals", "--no-weights", "--no-normals", "--no-tangents"};

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (!setup()) return 0;
    bits b = {hash_bytes(data, size)};
    int glb = size >= 4 && memcmp(data, "glTF", 4) == 0;
    char input[512], out[512], again[512];
    snprintf(input, sizeof input, "%s/in/input.%s", g_root, glb ? "glb" : "gltf");
    if (write_file(input, data, size) != 0) return 0;
    snprintf(out, sizeof out, "%s/out", g_root);
    remove_tree(out, 1);
    sf_error err;
    sf_gltf* in = load(input, &err);
    if (!in) return 0; /* the loader's refusals are fuzz_gltf's; every command refuses them the same way */
    run r;
    memset(&r, 0, sizeof r);
    unsigned which = take(&b, 3);
    int code = -1; /* not run */
    if (which == 0) { /* bake */
        snprintf(out, sizeof out, "%s/out/baked.glb", g_root);
        arg(&r, "bake");
        arg(&r, input);
        arg(&r, "--time");
        static const double times[] = {0.0, 0.5, 1.0, 1e9};
        arg_fmt(&r, "%g", times[take(&b, 4)]);
        arg(&r, "--method");
        arg(&r, sf_method_name((sf_method)take(&b, SF_METHOD_COUNT)));
        arg(&r, "-o");
        arg(&r, out);
        if (take(&b, 2)) arg(&r, "--error-colors");
        arg(&r, "--threads");
        arg(&r, "1");
        arg(&r, "--max-vertices");
        arg(&r, MAX_VERTICES);
        arg(&r, "--max-decoded-bytes");
        arg(&r, MAX_DECODED);
        if ((code = command(&r, cmd_bake)) == CLI_EXIT_OK) {
            sf_gltf* back = load(out, &err);
            CONTRACT(back != NULL, "bake's .glb does not load: %s", err.message);
            finite_file(back);
            size_t baked = 0;
            for (size_t p = 0; p < back->primitive_count; ++p) baked += back->primitives[p].mesh.triangle_count;
            CONTRACT(baked == instance_triangles(in), "bake wrote %zu triangles; the scene draws %zu", baked,
                     instance_triangles(in));
            sf_gltf_destroy(back);
        }
    } else if (which == 1) { /* fix */
        size_t vertices = 0;
        for (size_t p = 0; p < in->primitive_count; ++p) vertices += in->primitives[p].mesh.vertex_count;
        int gltf_out = (int)take(&b, 4) == 0;
        snprintf(out, sizeof out, "%s/out/fixed.%s", g_root, gltf_out ? "gltf" : "glb");
        arg(&r, "fix");
        arg(&r, input);
        arg(&r, "-o");
        arg(&r, out);
        if (take(&b, 8)) {
            arg(&r, "--no-measure");
        } else {
            arg(&r, "--fps");
            arg(&r, "1");
        }
        if (take(&b, 4) == 0) {
            arg(&r, "--max-influences");
            arg_fmt(&r, "%g", 1 + take(&b, 4));
        }
        for (size_t k = 0; k < sizeof fix_switches / sizeof fix_switches[0]; ++k)
            if (take(&b, 6) == 0) arg(&r, fix_switches[k]);
        if (vertices <= CHECK_VERTICES && (code = command(&r, cmd_fix)) == CLI_EXIT_OK) {
            sf_gltf* once = load(out, &err);
            CONTRACT(once != NULL, "fix's output does not load: %s", err.message);
            finite_file(once);
            fix_kept(in, once);
            /* Again, on its own output (the flags as before: the output and its name changed). */
            snprintf(again, sizeof again, "%s/out/again.glb", g_root);
            r.argv[1] = out;
            r.argv[3] = again;
            if (command(&r, cmd_fix) == CLI_EXIT_OK) {
                sf_gltf* twice = load(again, &err);
                CONTRACT(twice != NULL, "fix of fix's output does not load: %s", err.message);
                fix_settled(once, twice);
                sf_gltf_destroy(twice);
            } else {
                fail("contract", "fix refuses its own output: %s", cli_last_error());
            }
            sf_gltf_destroy(once);
        }
    } else { /* export-gpu */
        snprintf(out, sizeof out, "%s/out/gpu", g_root);
        arg(&r, "export-gpu");
        arg(&r, input);
        arg(&r, "-o");
        arg(&r, out);
        if (take(&b, 2)) {
            arg(&r, "--time");
            arg_fmt(&r, "%g", take(&b, 3) * 0.5);
        }
        if (take(&b, 2)) {
            arg(&r, "--unit");
            arg_fmt(&r, "%g", take(&b, 3));
        }
        arg(&r, "--max-vertices");
        arg(&r, MAX_VERTICES);
        arg(&r, "--max-decoded-bytes");
        arg(&r, MAX_DECODED);
        if ((code = command(&r, cmd_export_gpu)) == CLI_EXIT_OK) export_checked(out);
    }
    snprintf(out, sizeof out, "%s/out", g_root);
    if (code != -1) {
        g_runs[which]++;
        g_written[which] += code == CLI_EXIT_OK;
    }
    CONTRACT(code <= CLI_EXIT_OK || files_under(out) == 0, "%s failed (%s) and left a file in its output folder",
             r.argv[0], cli_last_error());
    /* Whatever happened, the input is as it was. */
    size_t now = 0;
    unsigned char* kept = read_file(input, &now);
    CONTRACT(kept && now == size && (size == 0 || memcmp(kept, data, size) == 0), "%s changed its input",
             r.argv[0]);
    free(kept);
    sf_gltf_destroy(in);
    remove_tree(out, 1);
    return 0;
}

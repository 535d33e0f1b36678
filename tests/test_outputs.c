// LABELS: cli
/* The output rules (cli/outputs.h, docs/cli.md): no command writes over a file it read (the glTF, its buffers,
 * the images it names) by any spelling or link; an existing file is replaced only when it looks like what
 * the command writes, or with --force; names carry the output's extension; every write is atomic and the
 * temporary files of killed writers are cleaned up by the next writer of that name. The files layer
 * (sf_file_resolve, sf_file_remove_stale_temps) and the loader's input list are checked directly. */
#define _POSIX_C_SOURCE 200809L
#include "sf_test.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char g_dir[256];
static bool g_have_cli;

/* eval --csv's header line, as docs/cli.md gives it. */
#define EVAL_CSV_HEADER \
    "animation,frame,time_s,method,normal_mean_deg,normal_max_deg,tangent_mean_deg,tangent_max_deg"

/* ---------------------------------------------------------------- helpers */

static size_t count_lines(const char* s)
{
    size_t n = 0;
    for (; *s; ++s) n += *s == '\n';
    return n;
}

static bool exists(const char* path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static bool write_bytes(const char* path, const void* data, size_t size)
{
    FILE* f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

static bool write_text(const char* path, const char* text) { return write_bytes(path, text, strlen(text)); }

static bool copy_file(const char* from, const char* to)
{
    size_t n;
    char* data = sft_read_file(from, &n);
    bool ok = data && write_bytes(to, data, n);
    free(data);
    return ok;
}

/* 1 when path holds exactly `text` bytes (size n). */
static bool holds(const char* path, const void* text, size_t n)
{
    size_t m;
    char* data = sft_read_file(path, &m);
    bool same = data && m == n && memcmp(data, text, n) == 0;
    free(data);
    return same;
}

/* A fresh folder under g_dir. */
static void subdir(const char* name, char* out, size_t size)
{
    snprintf(out, size, "%s/%s", g_dir, name);
    mkdir(out, 0755);
}

/* Runs the command; status, and whether stderr is one line containing `want` (NULL: any one line). */
static int run(const char* args, const char* want, bool* one_line)
{
    sft_cli_out r = sft_run_cli(args);
    int status = r.status;
    bool ok = count_lines(r.err) == 1 && strncmp(r.err, "skinframe: ", 11) == 0 && (!want || strstr(r.err, want));
    if (!ok && one_line) fprintf(stderr, "  `skinframe %s`: exit %d, stderr: %s", args, status, r.err);
    if (one_line) *one_line = ok;
    sft_cli_out_free(&r);
    return status;
}

/* Count of names in dir containing ".tmp.". */
static int temp_files(const char* dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -c '\\.tmp\\.' > '%s/.count' 2>/dev/null", dir, g_dir);
    if (system(cmd) < 0) return -1;
    snprintf(cmd, sizeof cmd, "%s/.count", g_dir);
    char* t = sft_read_file(cmd, NULL);
    int n = t ? atoi(t) : -1;
    free(t);
    return n;
}

/* A copy of SimpleSkin (a .gltf with four external .bin buffers) in dir, with the buffer skinGeometry.bin
 * renamed to `geometry_name` (the uri follows), and an image entry naming `image_name` (NULL: none). */
static bool simple_skin_copy(const char* dir, const char* geometry_name, const char* image_name, char* gltf_out,
                             size_t size)
{
    char src[1024], from[1400], to[1400];
    if (!sft_asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf", src, sizeof src)) return false;
    char* slash = strrchr(src, '/');
    *slash = '\0';
    static const char* const bins[] = {"inverseBindMatrices.bin", "skinAnimation.bin", "skinGeometry.bin",
                                       "skinningData.bin"};
    for (int k = 0; k < 4; ++k) {
        snprintf(from, sizeof from, "%s/%s", src, bins[k]);
        snprintf(to, sizeof to, "%s/%s", dir, k == 2 ? geometry_name : bins[k]);
        if (!copy_file(from, to)) return false;
    }
    snprintf(from, sizeof from, "%s/SimpleSkin.gltf", src);
    char* text = sft_read_file(from, NULL);
    if (!text) return false;
    char* at = strstr(text, "skinGeometry.bin");
    if (!at) return free(text), false;
    size_t cap = strlen(text) + 512;
    char* out = malloc(cap);
    *at = '\0';
    size_t len = (size_t)snprintf(out, cap, "%s%s%s", text, geometry_name, at + strlen("skinGeometry.bin"));
    if (image_name) { /* before the last closing brace */
        char* end = strrchr(out, '}');
        snprintf(end, cap - (size_t)(end - out), ",\"images\":[{\"uri\":\"%s\"}]}\n", image_name);
        len = strlen(out);
    }
    snprintf(gltf_out, size, "%s/skin.gltf", dir);
    bool ok = write_bytes(gltf_out, out, len);
    free(text);
    free(out);
    return ok;
}

/* ---------------------------------------------------------------- the files layer */

static void test_resolve_spellings(void)
{
    char d[300], file[800], a[4096], b[4096], spelled[1200], link[800];
    subdir("resolve", d, sizeof d);
    snprintf(file, sizeof file, "%s/f.bin", d);
    CHECK(write_text(file, "x"));
    CHECK_OK(sf_file_resolve(file, a, sizeof a, NULL));
    CHECK(a[0] == '/');
    snprintf(spelled, sizeof spelled, "%s/./../resolve//f.bin", d);
    CHECK_OK(sf_file_resolve(spelled, b, sizeof b, NULL));
    CHECK(strcmp(a, b) == 0);
    snprintf(link, sizeof link, "%s/link.bin", d);
    CHECK(symlink("f.bin", link) == 0);
    CHECK_OK(sf_file_resolve(link, b, sizeof b, NULL));
    CHECK(strcmp(a, b) == 0);
    /* Not there yet: the existing part resolved, the rest as written (".." removed). */
    snprintf(spelled, sizeof spelled, "%s/new.csv", d);
    CHECK_OK(sf_file_resolve(spelled, a, sizeof a, NULL));
    snprintf(spelled, sizeof spelled, "%s/missing/../new.csv", d);
    CHECK_OK(sf_file_resolve(spelled, b, sizeof b, NULL));
    CHECK(strcmp(a, b) == 0);
    CHECK(strstr(a, "/resolve/new.csv") != NULL && a[0] == '/');
    /* Relative names resolve against the current folder. */
    char cwd[4096];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(chdir(d) == 0);
    sf_result r = sf_file_resolve("link.bin", b, sizeof b, NULL);
    char c[4096];
    sf_result r2 = sf_file_resolve("sub/x.png", c, sizeof c, NULL);
    CHECK(chdir(cwd) == 0);
    CHECK_OK(r);
    CHECK_OK(r2);
    CHECK_OK(sf_file_resolve(file, a, sizeof a, NULL));
    CHECK(strcmp(a, b) == 0);
    CHECK(strstr(c, "/resolve/sub/x.png") != NULL);
    CHECK_RESULT(sf_file_resolve("", a, sizeof a, NULL), SF_ERROR_INVALID_ARGUMENT);
    CHECK_RESULT(sf_file_resolve(file, a, 4, NULL), SF_ERROR_IO);
}

/* A process id that ran and is gone: a child that exited and was reaped. */
static pid_t dead_pid(void)
{
    pid_t p = fork();
    if (p == 0) _exit(0);
    int status;
    waitpid(p, &status, 0);
    return p;
}

static void test_stale_temps_removed(void)
{
    char d[300], target[800], name[1200];
    subdir("stale", d, sizeof d);
    snprintf(target, sizeof target, "%s/out.csv", d);
    pid_t dead = dead_pid();
    CHECK(kill(dead, 0) != 0 && errno == ESRCH);
    struct {
        const char* fmt;
        long pid;
        bool stays;
    } files[] = {
        {"%s/out.csv.tmp.%ld.12345", (long)dead, false},         /* its writer is gone */
        {"%s/out.csv.tmp.%ld.777", (long)getpid(), true},        /* this process's own: maybe in use */
        {"%s/out.csv.tmp.%ld.1", (long)getppid(), true},         /* a live process's, fresh */
        {"%s/out.csv.tmp.%ld.2", (long)getppid(), false},        /* a live process's, but old (made old below) */
        {"%s/out.csv.tmp.%ld.x", (long)dead, true},              /* not the naming scheme */
        {"%s/out.csv.tmp.%ld.5.more", (long)dead, true},         /* not the naming scheme */
        {"%s/other.csv.tmp.%ld.3", (long)dead, true},            /* another name's */
        {"%s/out.csv.tmpfoo%ld", (long)dead, true},              /* not a temporary file */
    };
    size_t n = sizeof files / sizeof files[0];
    for (size_t k = 0; k < n; ++k) {
        snprintf(name, sizeof name, files[k].fmt, d, files[k].pid);
        CHECK(write_text(name, "partial"));
    }
    snprintf(name, sizeof name, files[3].fmt, d, files[3].pid);
    struct timeval old[2] = {{0, 0}, {0, 0}};
    old[0].tv_sec = old[1].tv_sec = time(NULL) - (time_t)SF_FILE_TEMP_MAX_AGE_S - 3600;
    CHECK(utimes(name, old) == 0);
    /* A link to a stale-looking name is never followed or removed. */
    char link[1200];
    snprintf(link, sizeof link, "%s/out.csv.tmp.%ld.99", d, (long)dead);
    CHECK(symlink("other.csv.tmp.1.1", link) == 0);

    CHECK_OK(sf_file_write_atomic(target, "a,b\n", 4, NULL));
    CHECK(holds(target, "a,b\n", 4));
    for (size_t k = 0; k < n; ++k) {
        snprintf(name, sizeof name, files[k].fmt, d, files[k].pid);
        if (exists(name) != files[k].stays) fprintf(stderr, "  %s: %s\n", name, exists(name) ? "kept" : "removed");
        CHECK(exists(name) == files[k].stays);
    }
    CHECK(exists(link));
    /* And the streamed writer cleans up the same way. */
    snprintf(name, sizeof name, "%s/out.csv.tmp.%ld.4242", d, (long)dead);
    CHECK(write_text(name, "partial"));
    sf_file_writer* w;
    CHECK_OK(sf_file_writer_open(target, &w, NULL));
    CHECK(!exists(name));
    fputs("x\n", sf_file_writer_stream(w));
    CHECK_OK(sf_file_writer_commit(w, NULL));
    CHECK(sf_file_remove_stale_temps(target) == 0);
}

static void test_gltf_records_inputs(void)
{
    char d[300], gltf[800], spelled[1200], want[4096];
    subdir("inputs", d, sizeof d);
    CHECK(simple_skin_copy(d, "geometry.bin", "textures/skin%20color.png", gltf, sizeof gltf));
    snprintf(spelled, sizeof spelled, "%s/../inputs/./skin.gltf", d);
    sf_gltf* g;
    sf_error err;
    sf_result r = sf_gltf_load_file(spelled, NULL, NULL, &g, &err);
    if (r != SF_OK) fprintf(stderr, "  %s\n", err.message);
    CHECK_OK(r);
    /* The glTF itself, its four buffers, the image it names (not read, and not there). */
    bool ok = g->input_file_count == 6;
    static const char* const names[] = {"skin.gltf", "inverseBindMatrices.bin", "skinAnimation.bin", "geometry.bin",
                                        "skinningData.bin", "textures/skin color.png"};
    for (size_t k = 0; ok && k < 6; ++k) {
        char p[1200];
        snprintf(p, sizeof p, "%s/%s", d, names[k]);
        ok = sf_file_resolve(p, want, sizeof want, NULL) == SF_OK;
        bool found = false;
        for (size_t i = 0; ok && i < g->input_file_count; ++i) found |= strcmp(g->input_files[i], want) == 0;
        if (!found) fprintf(stderr, "  %s not among the inputs\n", want);
        ok = ok && found;
    }
    CHECK(ok);
    CHECK(g->input_files[0][0] == '/' && sf_file_same(g->input_files[0], gltf)); /* the glTF comes first */
    sf_gltf_destroy(g);
    /* A .glb reads itself only; memory without a folder lists nothing. */
    char a[1024];
    CHECK(sft_asset("gltf/Fox/glTF-Binary/Fox.glb", a, sizeof a));
    CHECK_OK(sf_gltf_load_file(a, NULL, NULL, &g, NULL));
    CHECK(g->input_file_count == 1 && sf_file_same(g->input_files[0], a));
    sf_gltf_destroy(g);
    size_t n;
    char* bytes = sft_read_file(a, &n);
    CHECK(bytes != NULL);
    r = sf_gltf_load_memory(bytes, n, NULL, NULL, NULL, &g, NULL);
    free(bytes);
    CHECK_OK(r);
    CHECK(g->input_file_count == 0);
    sf_gltf_destroy(g);
}

/* ---------------------------------------------------------------- never over an input */

static void test_eval_csv_never_input(void)
{
    if (!g_have_cli) return;
    char d[300], a[1024], glb[800], args[2000];
    subdir("eval-input", d, sizeof d);
    CHECK(sft_asset("gltf/Fox/glTF-Binary/Fox.glb", a, sizeof a));
    size_t n;
    char* original = sft_read_file(a, &n);
    CHECK(original != NULL);
    snprintf(glb, sizeof glb, "%s/Fox.glb", d);
    CHECK(copy_file(a, glb));
    bool line;
    /* The report's case: the input named as the CSV. */
    snprintf(args, sizeof args, "eval '%s' --fps 2 --csv '%s'", glb, glb);
    CHECK(run(args, "--csv", &line) == 2 && line);
    CHECK(holds(glb, original, n));
    /* A glTF whose name ends in .csv, given as its own CSV by another spelling. */
    char csvname[800];
    snprintf(csvname, sizeof csvname, "%s/fox.csv", d);
    CHECK(copy_file(a, csvname));
    snprintf(args, sizeof args, "eval '%s' --fps 2 --csv '%s/./../eval-input/fox.csv'", csvname, d);
    CHECK(run(args, "is an input of this command", &line) == 2 && line);
    CHECK(holds(csvname, original, n));
    /* ... or through a link, even with --force. */
    char link[800];
    snprintf(link, sizeof link, "%s/link.csv", d);
    CHECK(symlink("fox.csv", link) == 0);
    snprintf(args, sizeof args, "eval '%s' --fps 2 --force --csv '%s'", csvname, link);
    CHECK(run(args, "is an input of this command", &line) == 2 && line);
    CHECK(holds(csvname, original, n));
    free(original);
}

static void test_bake_render_never_buffers_or_images(void)
{
    if (!g_have_cli) return;
    char d[300], gltf[800], args[2400], geo[800], tex[800];
    subdir("buffers", d, sizeof d);
    /* The geometry buffer carries an output's name; the glTF names a texture (which exists: a PNG). */
    CHECK(simple_skin_copy(d, "geometry.glb", "tex.png", gltf, sizeof gltf));
    snprintf(geo, sizeof geo, "%s/geometry.glb", d);
    snprintf(tex, sizeof tex, "%s/tex.png", d);
    static const unsigned char png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R',
                                        0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0, 0x90, 0x77, 0x53, 0xDE};
    CHECK(write_bytes(tex, png, sizeof png));
    size_t n;
    char* geometry = sft_read_file(geo, &n);
    CHECK(geometry != NULL);
    bool line;
    snprintf(args, sizeof args, "bake '%s' --time 0.5 --method skinned -o '%s'", gltf, geo);
    CHECK(run(args, "is an input of this command", &line) == 2 && line);
    snprintf(args, sizeof args, "bake '%s' --time 0.5 --method skinned --force -o '%s/sub/../geometry.glb'", gltf, d);
    CHECK(run(args, "is an input of this command", &line) == 2 && line);
    char link[800];
    snprintf(link, sizeof link, "%s/other.glb", d);
    CHECK(symlink("geometry.glb", link) == 0);
    snprintf(args, sizeof args, "bake '%s' --time 0.5 --method skinned -o '%s'", gltf, link);
    CHECK(run(args, "is an input of this command", &line) == 2 && line);
    /* The report's cases: a buffer's own name is not a .glb name at all. */
    snprintf(args, sizeof args, "bake '%s' --time 0.5 --method skinned -o '%s/skinningData.bin'", gltf, d);
    CHECK(run(args, "-o", &line) == 2 && line);
    snprintf(args, sizeof args, "render --gltf '%s' --method skinned --size 160x120 -o '%s/inverseBindMatrices.bin'",
             gltf, d);
    CHECK(run(args, "-o", &line) == 2 && line);
    /* render: the texture the glTF names, by two spellings. */
    snprintf(args, sizeof args, "render --gltf '%s' --method skinned --size 160x120 -o '%s'", gltf, tex);
    CHECK(run(args, "is an input of this command", &line) == 2 && line);
    snprintf(args, sizeof args, "render --gltf '%s' --method skinned --size 160x120 --force -o '%s/./tex.png'", gltf,
             d);
    CHECK(run(args, "is an input of this command", &line) == 2 && line);
    CHECK(holds(geo, geometry, n));
    CHECK(holds(tex, png, sizeof png));
    free(geometry);
    /* The file still loads as it did, and an output elsewhere works. */
    snprintf(args, sizeof args, "bake '%s' --time 0.5 --method skinned -o '%s/posed.glb'", gltf, d);
    CHECK(run(args, NULL, NULL) == 0);
    CHECK(temp_files(d) == 0);
}

/* ---------------------------------------------------------------- folder outputs */

/* The files layer's staged folder: a new folder appears whole; an existing one takes the new files, keeps its
 * other entries (a subfolder too) and loses nothing on abort; no stage is left next to it. */
static void test_dir_stage(void)
{
    char d[300], target[400], path[800];
    subdir("stage", d, sizeof d);
    snprintf(target, sizeof target, "%s/out", d);
    sf_dir_stage* st = NULL;
    sf_error err;
    CHECK_OK(sf_dir_stage_open(target, &st, &err));
    CHECK(!exists(target)); /* nothing at the name until the commit */
    snprintf(path, sizeof path, "%s/a.txt", sf_dir_stage_path(st));
    CHECK(write_text(path, "new a"));
    CHECK_OK(sf_dir_stage_commit(st, &err));
    snprintf(path, sizeof path, "%s/a.txt", target);
    CHECK(holds(path, "new a", 5));
    /* an existing folder: a.txt replaced, keep.txt and sub/ kept */
    snprintf(path, sizeof path, "%s/keep.txt", target);
    CHECK(write_text(path, "user"));
    snprintf(path, sizeof path, "%s/sub", target);
    CHECK(mkdir(path, 0755) == 0);
    snprintf(path, sizeof path, "%s/sub/x", target);
    CHECK(write_text(path, "x"));
    CHECK_OK(sf_dir_stage_open(target, &st, &err));
    snprintf(path, sizeof path, "%s/a.txt", sf_dir_stage_path(st));
    CHECK(write_text(path, "second"));
    snprintf(path, sizeof path, "%s/a.txt", target);
    CHECK(holds(path, "new a", 5)); /* the old file until the commit */
    CHECK_OK(sf_dir_stage_commit(st, &err));
    CHECK(holds(path, "second", 6));
    snprintf(path, sizeof path, "%s/keep.txt", target);
    CHECK(holds(path, "user", 4));
    snprintf(path, sizeof path, "%s/sub/x", target);
    CHECK(holds(path, "x", 1));
    /* abort: nothing changes */
    CHECK_OK(sf_dir_stage_open(target, &st, &err));
    snprintf(path, sizeof path, "%s/a.txt", sf_dir_stage_path(st));
    CHECK(write_text(path, "third"));
    sf_dir_stage_abort(st);
    snprintf(path, sizeof path, "%s/a.txt", target);
    CHECK(holds(path, "second", 6));
    CHECK(temp_files(d) == 0);
    /* a file at the name is not a folder to replace */
    snprintf(path, sizeof path, "%s/file", d);
    CHECK(write_text(path, "f"));
    CHECK_RESULT(sf_dir_stage_open(path, &st, &err), SF_ERROR_IO);
    CHECK(holds(path, "f", 1));
}

/* export-gpu never replaces a file it read, with or without --force: a buffer named like one of the export's
 * files (DIR/indices.bin) in a folder holding an earlier export, and a glTF named layout.json. A refused export
 * leaves the earlier one as it was; a good one keeps the folder's other files and leaves no stage. */
static void test_export_gpu_never_input(void)
{
    if (!g_have_cli) return;
    char d[300], out[400], gltf[800], args[3000], path[900], layout[900];
    subdir("gpu", d, sizeof d);
    snprintf(out, sizeof out, "%s/out", d);
    bool line;
    snprintf(args, sizeof args, "export-gpu --scene tip -o '%s'", out);
    CHECK(run(args, NULL, NULL) == 0);
    snprintf(layout, sizeof layout, "%s/layout.json", out);
    size_t layout_n;
    char* earlier = sft_read_file(layout, &layout_n);
    CHECK(earlier != NULL);
    /* the glTF's geometry buffer is out/indices.bin, a name the export writes */
    CHECK(simple_skin_copy(out, "indices.bin", NULL, gltf, sizeof gltf));
    snprintf(path, sizeof path, "%s/indices.bin", out);
    size_t n;
    char* geometry = sft_read_file(path, &n);
    CHECK(geometry != NULL);
    for (int force = 0; force < 2; ++force) {
        snprintf(args, sizeof args, "export-gpu '%s' -o '%s'%s", gltf, out, force ? " --force" : "");
        CHECK(run(args, "is an input of this command", &line) == 2 && line);
        CHECK(holds(path, geometry, n));
        CHECK(holds(layout, earlier, layout_n));
    }
    free(geometry);
    free(earlier);
    CHECK(temp_files(d) == 0);
    /* a glTF named layout.json in the folder */
    char named[900];
    snprintf(named, sizeof named, "%s/layout.json", out);
    CHECK(rename(gltf, named) == 0);
    char* text = sft_read_file(named, &n);
    CHECK(text != NULL);
    snprintf(args, sizeof args, "export-gpu '%s' -o '%s' --force", named, out);
    CHECK(run(args, "is an input of this command", &line) == 2 && line);
    CHECK(holds(named, text, n));
    free(text);
    /* elsewhere it exports; a user's file in the folder stays */
    char out2[400], note[500];
    snprintf(out2, sizeof out2, "%s/out2", d);
    CHECK(mkdir(out2, 0755) == 0);
    snprintf(note, sizeof note, "%s/notes.txt", out2);
    CHECK(write_text(note, "mine"));
    snprintf(args, sizeof args, "export-gpu '%s' -o '%s' --force", named, out2);
    CHECK(run(args, NULL, NULL) == 0);
    CHECK(holds(note, "mine", 4));
    snprintf(path, sizeof path, "%s/layout.json", out2);
    text = sft_read_file(path, NULL);
    CHECK(text != NULL && strstr(text, "skinframe-gpu 1") != NULL);
    free(text);
    CHECK(temp_files(d) == 0);
    /* several files need a folder: a file name is refused, nothing made */
    snprintf(args, sizeof args, "export-gpu --scene tip -o '%s/x.glb'", d);
    CHECK(run(args, "need a folder", &line) == 2 && line);
    snprintf(path, sizeof path, "%s/x.glb", d);
    CHECK(!exists(path));
}

/* compare --dump recognises an earlier dump by its opening alone: a large one whose tail is cut (so it does not
 * parse) is still replaced, and JSON holding the keys elsewhere is not a dump. */
/* rel under d: a folder (mkdir), or a file holding its own name. */
static bool make_in(const char* d, const char* rel, bool folder)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", d, rel);
    return folder ? mkdir(path, 0755) == 0 : write_text(path, rel);
}

static bool there(const char* d, const char* rel)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", d, rel);
    return exists(path);
}

/* Stages that killed writers left next to an export folder are cleaned up by the next stage of it, and
 * nothing of the folder's own is lost: a stage whose writer never began carrying the folder's entries over
 * (no marker) goes with its partial files; one that had begun keeps what may be the folder's only copy (a
 * file moved in, where it could not be linked) and gives back the subfolders it moved; the old folder that a
 * plain-rename swap set aside comes back when the folder is missing. A live process's stage, another name's,
 * and a link stay. */
static void test_dir_stage_stale(void)
{
    char d[300], target[400], name[800];
    subdir("stale-stage", d, sizeof d);
    snprintf(target, sizeof target, "%s/out", d);
    pid_t dead = dead_pid();
    CHECK(mkdir(target, 0755) == 0 && make_in(d, "out/a", false) && make_in(d, "out/keep.txt", false));
    /* killed while writing: partial outputs only */
    snprintf(name, sizeof name, "out.tmp.%ld.1", (long)dead);
    CHECK(make_in(d, name, true));
    snprintf(name, sizeof name, "out.tmp.%ld.1/a", (long)dead);
    CHECK(make_in(d, name, false));
    snprintf(name, sizeof name, "out.tmp.%ld.1/new-only", (long)dead);
    CHECK(make_in(d, name, false));
    /* killed while carrying over: a link of out/a, a moved subfolder and a file only it holds */
    snprintf(name, sizeof name, "out.tmp.%ld.2", (long)dead);
    CHECK(make_in(d, name, true));
    snprintf(name, sizeof name, "out.tmp.%ld.2/.skinframe-carrying", (long)dead);
    CHECK(make_in(d, name, false));
    char from[1200], to[1200];
    snprintf(from, sizeof from, "%s/out/a", d);
    snprintf(to, sizeof to, "%s/out.tmp.%ld.2/a", d, (long)dead);
    CHECK(link(from, to) == 0);
    snprintf(name, sizeof name, "out.tmp.%ld.2/sub", (long)dead);
    CHECK(make_in(d, name, true));
    snprintf(name, sizeof name, "out.tmp.%ld.2/sub/x", (long)dead);
    CHECK(make_in(d, name, false));
    snprintf(name, sizeof name, "out.tmp.%ld.2/moved.txt", (long)dead);
    CHECK(make_in(d, name, false));
    /* left alone: a live process's fresh stage, another folder's, a link */
    snprintf(name, sizeof name, "out.tmp.%ld.3", (long)getppid());
    CHECK(make_in(d, name, true));
    snprintf(name, sizeof name, "other.tmp.%ld.4", (long)dead);
    CHECK(make_in(d, name, true));
    snprintf(name, sizeof name, "%s/out.tmp.%ld.5", d, (long)dead);
    CHECK(symlink("other.tmp.1.1", name) == 0);

    sf_dir_stage* st = NULL;
    sf_error err;
    CHECK_OK(sf_dir_stage_open(target, &st, &err));
    snprintf(name, sizeof name, "out.tmp.%ld.1", (long)dead);
    CHECK(!there(d, name));
    snprintf(name, sizeof name, "out.tmp.%ld.2/moved.txt", (long)dead);
    CHECK(there(d, name)); /* kept with its stage */
    snprintf(name, sizeof name, "out.tmp.%ld.2/a", (long)dead);
    CHECK(!there(d, name));
    CHECK(there(d, "out/sub/x") && there(d, "out/a") && there(d, "out/keep.txt"));
    snprintf(name, sizeof name, "out.tmp.%ld.3", (long)getppid());
    CHECK(there(d, name));
    snprintf(name, sizeof name, "other.tmp.%ld.4", (long)dead);
    CHECK(there(d, name));
    snprintf(name, sizeof name, "out.tmp.%ld.5", (long)dead);
    CHECK(there(d, name));
    snprintf(name, sizeof name, "%s/b", sf_dir_stage_path(st));
    CHECK(write_text(name, "b"));
    CHECK_OK(sf_dir_stage_commit(st, &err));
    snprintf(name, sizeof name, "%s/out/a", d);
    CHECK(holds(name, "out/a", 5));
    CHECK(there(d, "out/b") && there(d, "out/sub/x") && !there(d, "out/.skinframe-carrying"));
    CHECK(sf_dir_stage_remove_stale(target) == 0);

    /* killed between the renames of a plain swap: out2 is missing, its old folder set aside */
    snprintf(target, sizeof target, "%s/out2", d);
    snprintf(name, sizeof name, "out2.tmp.%ld.6.old", (long)dead);
    CHECK(make_in(d, name, true));
    snprintf(name, sizeof name, "out2.tmp.%ld.6.old/layout.json", (long)dead);
    CHECK(make_in(d, name, false));
    CHECK(sf_dir_stage_remove_stale(target) == 1);
    CHECK(there(d, "out2/layout.json"));
    snprintf(name, sizeof name, "out2.tmp.%ld.6.old", (long)dead);
    CHECK(!there(d, name));
    /* the same left after the swap completed: out2 is the new folder, the set-aside one goes */
    CHECK(make_in(d, name, true));
    snprintf(name, sizeof name, "out2.tmp.%ld.6.old/layout.json", (long)dead);
    CHECK(make_in(d, name, false));
    CHECK(sf_dir_stage_remove_stale(target) == 1);
    snprintf(name, sizeof name, "out2.tmp.%ld.6.old", (long)dead);
    CHECK(!there(d, name) && there(d, "out2/layout.json"));
}

static void test_dump_header_bounded(void)
{
    if (!g_have_cli) return;
    char d[300], path[800], args[2000];
    subdir("dumphead", d, sizeof d);
    snprintf(path, sizeof path, "%s/old.json", d);
    FILE* f = fopen(path, "wb");
    CHECK(f != NULL);
    fputs("{\"scene\":\"tip\",\"preset\":null,\"params\":{},\"vertex_count\":1,\"triangle_count\":0,\"positions\":[", f);
    for (int k = 0; k < 400000; ++k) fputs("[0,0,0],", f); /* 3.2 MB, cut: no closing brackets */
    CHECK(fclose(f) == 0);
    bool line;
    snprintf(args, sizeof args, "compare --scene tip --dump '%s'", path);
    CHECK(run(args, NULL, NULL) == 0);
    char* text = sft_read_file(path, NULL);
    CHECK(text != NULL && strstr(text, "\"methods\"") != NULL); /* the new dump */
    free(text);
    snprintf(path, sizeof path, "%s/keys.json", d);
    CHECK(write_text(path, "{\"positions\":[],\"indices\":[],\"methods\":{}}"));
    snprintf(args, sizeof args, "compare --scene tip --dump '%s'", path);
    CHECK(run(args, "not a JSON dump", &line) == 2 && line);
}

/* ---------------------------------------------------------------- only our own files are replaced */

static void test_replace_only_ours(void)
{
    if (!g_have_cli) return;
    char d[300], a[1024], args[2400], path[800];
    subdir("ours", d, sizeof d);
    CHECK(sft_asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf", a, sizeof a));
    bool line;
    /* bake: a .glb that skinframe did not write stays; --force replaces it; our own is replaced. */
    snprintf(path, sizeof path, "%s/model.glb", d);
    char fox[1024];
    CHECK(sft_asset("gltf/Fox/glTF-Binary/Fox.glb", fox, sizeof fox));
    CHECK(copy_file(fox, path));
    size_t n;
    char* before = sft_read_file(path, &n);
    snprintf(args, sizeof args, "bake '%s' --time 0 --method skinned -o '%s'", a, path);
    CHECK(run(args, "not a .glb written by skinframe", &line) == 2 && line);
    CHECK(holds(path, before, n));
    free(before);
    snprintf(args, sizeof args, "bake '%s' --time 0 --method skinned -o '%s' --force", a, path);
    CHECK(run(args, NULL, NULL) == 0);
    snprintf(args, sizeof args, "bake '%s' --time 0.5 --method jacobian -o '%s'", a, path);
    CHECK(run(args, NULL, NULL) == 0);
    /* A wrong extension is bad usage, for a new file and an old one. */
    snprintf(path, sizeof path, "%s/notes.txt", d);
    CHECK(write_text(path, "my notes\n"));
    snprintf(args, sizeof args, "bake '%s' --time 0 --method skinned -o '%s'", a, path);
    CHECK(run(args, "notes.txt", &line) == 2 && line);
    snprintf(args, sizeof args, "bake '%s' --time 0 --method skinned -o '%s/out.txt'", a, d);
    CHECK(run(args, "must end in .glb", &line) == 2 && line);
    snprintf(args, sizeof args, "%s/out.txt", d);
    CHECK(holds(path, "my notes\n", 9) && !exists(args));
    /* compare --dump: a package.json is not a dump. */
    snprintf(path, sizeof path, "%s/package.json", d);
    const char* pkg = "{\"name\": \"mine\", \"version\": \"1.0.0\"}\n";
    CHECK(write_text(path, pkg));
    snprintf(args, sizeof args, "compare --scene tip --dump '%s'", path);
    CHECK(run(args, "not a JSON dump", &line) == 2 && line);
    CHECK(holds(path, pkg, strlen(pkg)));
    snprintf(args, sizeof args, "compare --scene tip --dump '%s' --force", path);
    CHECK(run(args, NULL, NULL) == 0);
    snprintf(args, sizeof args, "compare --scene tip --preset move-neighbor --dump '%s'", path); /* now ours */
    CHECK(run(args, NULL, NULL) == 0);
    /* eval --csv: another CSV stays, eval's own is replaced. */
    snprintf(path, sizeof path, "%s/frames.csv", d);
    CHECK(write_text(path, "name,score\nada,3\n"));
    snprintf(args, sizeof args, "eval '%s' --fps 2 --csv '%s'", a, path);
    CHECK(run(args, "not a CSV written by skinframe eval", &line) == 2 && line);
    CHECK(holds(path, "name,score\nada,3\n", 17));
    CHECK(remove(path) == 0);
    snprintf(args, sizeof args, "eval '%s' --fps 2 --csv '%s'", a, path);
    CHECK(run(args, NULL, NULL) == 0);
    snprintf(args, sizeof args, "eval '%s' --fps 3 --csv '%s'", a, path);
    CHECK(run(args, NULL, NULL) == 0);
    /* render and plot: only a PNG is replaced. */
    snprintf(path, sizeof path, "%s/picture.png", d);
    CHECK(write_text(path, "not a picture"));
    snprintf(args, sizeof args, "render --scene tip --method skinned --size 160x120 -o '%s'", path);
    CHECK(run(args, "not a PNG image", &line) == 2 && line);
    snprintf(args, sizeof args, "plot --scene tip --sweep height=0:0.5:2 --size 320x200 -o '%s'", path);
    CHECK(run(args, "not a PNG image", &line) == 2 && line);
    CHECK(holds(path, "not a picture", 13));
    snprintf(args, sizeof args, "render --scene tip --method skinned --size 160x120 -o '%s' --force", path);
    CHECK(run(args, NULL, NULL) == 0);
    snprintf(args, sizeof args, "plot --scene tip --sweep height=0:0.5:2 --size 320x200 -o '%s'", path);
    CHECK(run(args, NULL, NULL) == 0);
    /* demo --out: a demo.txt of someone else's stays. */
    char out[600];
    subdir("ours/demo", out, sizeof out);
    snprintf(path, sizeof path, "%s/demo.txt", out);
    CHECK(write_text(path, "todo: write the demo\n"));
    snprintf(args, sizeof args, "demo --scene tip --method skinned --out '%s'", out);
    CHECK(run(args, "not a demo.txt written by skinframe demo", &line) == 2 && line);
    CHECK(holds(path, "todo: write the demo\n", 21));
    CHECK(remove(path) == 0);
    CHECK(run(args, NULL, NULL) == 0);
    CHECK(run(args, NULL, NULL) == 0); /* its own files are replaced */
    /* Something that is not a regular file is never replaced, --force or not. */
    snprintf(path, sizeof path, "%s/folder.png", d);
    CHECK(mkdir(path, 0755) == 0);
    snprintf(args, sizeof args, "render --scene tip --method skinned --size 160x120 --force -o '%s'", path);
    CHECK(run(args, "is a folder", &line) == 2 && line);
    CHECK(temp_files(d) == 0);
}

static void test_render_many_needs_folder(void)
{
    if (!g_have_cli) return;
    char d[300], args[1200], path[800];
    subdir("many", d, sizeof d);
    snprintf(path, sizeof path, "%s/a.png", d);
    bool line;
    snprintf(args, sizeof args, "render --scene tip --method skinned,recompute --size 160x120 -o '%s'", path);
    CHECK(run(args, "several files need a folder", &line) == 2 && line);
    CHECK(!exists(path));
    snprintf(args, sizeof args, "render --scene tip --all-methods --size 160x120 -o '%s'", path);
    CHECK(run(args, "several files need a folder", &line) == 2 && line);
    CHECK(!exists(path));
    snprintf(args, sizeof args, "demo --scene tip --method skinned --out '%s/x.json'", d);
    CHECK(run(args, "several files need a folder", &line) == 2 && line);
    /* One method needs a .png name. */
    snprintf(args, sizeof args, "render --scene tip --method skinned --size 160x120 -o '%s/a.jpg'", d);
    CHECK(run(args, "must end in .png", &line) == 2 && line);
    snprintf(args, sizeof args, "plot --scene tip --sweep height=0:0.5:2 -o '%s/plot'", d);
    CHECK(run(args, "must end in .png", &line) == 2 && line);
    snprintf(args, sizeof args, "render --scene tip --method skinned,recompute --size 160x120 -o '%s/pics'", d);
    CHECK(run(args, NULL, NULL) == 0);
}

static void test_eval_csv_atomic(void)
{
    if (!g_have_cli) return;
    char d[300], a[1024], args[2000], csv[800], stale[1200];
    subdir("csv", d, sizeof d);
    CHECK(sft_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb", a, sizeof a));
    snprintf(csv, sizeof csv, "%s/frames.csv", d);
    /* What a killed earlier run left: its temporary file. */
    snprintf(stale, sizeof stale, "%s/frames.csv.tmp.%ld.99", d, (long)dead_pid());
    CHECK(write_text(stale, EVAL_CSV_HEADER));
    /* A failing run (a bad --texcoord after the CSV name was accepted) leaves no file at all. */
    snprintf(args, sizeof args, "eval '%s' --fps 2 --texcoord 3 --csv '%s'", a, csv);
    CHECK(run(args, "--texcoord 3", NULL) == 1);
    CHECK(!exists(csv));
    snprintf(args, sizeof args, "eval '%s' --fps 2 --csv '%s'", a, csv);
    CHECK(run(args, NULL, NULL) == 0);
    CHECK(!exists(stale));
    CHECK(temp_files(d) == 0);
    char* rows = sft_read_file(csv, NULL);
    CHECK(rows && strncmp(rows, EVAL_CSV_HEADER, strlen(EVAL_CSV_HEADER)) == 0);
    free(rows);
}

static void test_force_in_every_help(void)
{
    if (!g_have_cli) return;
    static const char* const cmds[] = {"compare", "demo", "render", "plot", "bake", "eval"};
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; ++k) {
        char args[64];
        snprintf(args, sizeof args, "%s --help", cmds[k]);
        sft_cli_out r = sft_run_cli(args);
        bool ok = r.status == 0 && strstr(r.out, "--force") != NULL;
        if (!ok) fprintf(stderr, "  %s --help does not mention --force\n", cmds[k]);
        sft_cli_out_free(&r);
        CHECK(ok);
    }
}

int main(int argc, char** argv)
{
    const char* cli = getenv("SF_CLI");
    g_have_cli = cli && exists(cli);
    const char* tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/sf_test_outputs_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    char probe[1024];
    if (!sft_asset("gltf/SimpleSkin/glTF/SimpleSkin.gltf", probe, sizeof probe)) {
        fprintf(stderr, "SF_ASSETS not set: skipped\n");
        return 77;
    }
    static const sft_case cases[] = {
        {"resolve_spellings", test_resolve_spellings},
        {"stale_temps_removed", test_stale_temps_removed},
        {"gltf_records_inputs", test_gltf_records_inputs},
        {"eval_csv_never_input", test_eval_csv_never_input},
        {"bake_render_never_buffers_or_images", test_bake_render_never_buffers_or_images},
        {"replace_only_ours", test_replace_only_ours},
        {"render_many_needs_folder", test_render_many_needs_folder},
        {"eval_csv_atomic", test_eval_csv_atomic},
        {"force_in_every_help", test_force_in_every_help},
        {"dir_stage", test_dir_stage},
        {"dir_stage_stale", test_dir_stage_stale},
        {"dump_header_bounded", test_dump_header_bounded},
        {"export_gpu_never_input", test_export_gpu_never_input},
    };
    int rc = SFT_RUN(cases, argc, argv);
    char cmd[800];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_dir);
    return rc;
}

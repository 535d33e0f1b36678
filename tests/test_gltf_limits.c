// LABELS: unit;cli
/* Hostile inputs for the glTF loader and the files layer, built in a temporary folder: files reached
 * through symbolic links outside the asset's folder, FIFOs, sockets, devices and folders where a file is
 * expected (refused at once, never a hang), buffer files larger than declared, and tiny files that declare
 * millions of vertices, morph elements, animation keys or matrices without data (refused from the
 * estimate, before decoding, with a message naming the limit and how to raise it). */
#define _XOPEN_SOURCE 700 /* nftw */
#include "sf_test.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- helpers */

static char g_tmp[256]; /* this run's folder (mkdtemp) */

static const char* tmp_path(const char* rel, char* buf, size_t size)
{
    snprintf(buf, size, "%s/%s", g_tmp, rel);
    return buf;
}

static int write_bytes(const char* rel, const void* data, size_t size)
{
    char p[512];
    FILE* f = fopen(tmp_path(rel, p, sizeof p), "wb");
    if (!f) return 0;
    int ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

static int write_text(const char* rel, const char* text) { return write_bytes(rel, text, strlen(text)); }

/* The 44-byte buffer of one triangle: 3 float3 positions, 3 u16 indices, 2 bytes of padding. */
static void tri_bin(uint8_t out[44])
{
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint16_t idx[3] = {0, 1, 2};
    memcpy(out, pos, 36);
    memcpy(out + 36, idx, 6);
    out[42] = out[43] = 0;
}

/* A .gltf of that triangle whose buffer is the external file `uri` (byteLength 44). */
static void tri_gltf(const char* uri, char* out, size_t size)
{
    snprintf(out, size,
             "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":44,\"uri\":\"%s\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},"
             "{\"buffer\":0,\"byteOffset\":36,\"byteLength\":6}],\"accessors\":[{\"bufferView\":0,"
             "\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},{\"bufferView\":1,\"componentType\":5123,"
             "\"count\":3,\"type\":\"SCALAR\"}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],"
             "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}],\"scene\":0}",
             uri);
}

static int write_tri_gltf(const char* rel, const char* uri)
{
    char text[2048];
    tri_gltf(uri, text, sizeof text);
    return write_text(rel, text);
}

static sf_result load_rel(const char* rel, const sf_gltf_opts* opts, sf_error* err)
{
    char p[512];
    sf_gltf* g = NULL;
    sf_result r = sf_gltf_load_file(tmp_path(rel, p, sizeof p), opts, NULL, &g, err);
    sf_gltf_destroy(g);
    return r;
}

static sf_result load_json(const char* text, const sf_gltf_opts* opts, sf_error* err)
{
    sf_gltf* g = NULL;
    sf_result r = sf_gltf_load_memory(text, strlen(text), NULL, opts, NULL, &g, err);
    sf_gltf_destroy(g);
    return r;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A load that blocks (a FIFO opened for reading waits for a writer) would hang the test: fail instead. */
static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "  FAIL: blocked for 20 s (opened a FIFO or device?)\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(1);
}

static void guard_start(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    alarm(20);
}

static void guard_stop(void) { alarm(0); }

/* A listening-free Unix socket bound at rel (the file it leaves behind is a socket). */
static int make_socket(const char* rel)
{
    char p[512];
    tmp_path(rel, p, sizeof p);
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (strlen(p) >= sizeof addr.sun_path) return -1;
    strcpy(addr.sun_path, p);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    if (bind(fd, (struct sockaddr*)&addr, sizeof addr) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int contains(const char* s, const char* part) { return strstr(s, part) != NULL; }

/* ---------------------------------------------------------------- files layer */

static void test_file_read_regular(void)
{
    CHECK(write_text("plain.txt", "hello"));
    char p[512];
    tmp_path("plain.txt", p, sizeof p);
    void* data = NULL;
    size_t size = 0;
    sf_error err;
    CHECK_OK(sf_file_read(p, NULL, NULL, &data, &size, &err));
    CHECK(size == 5 && memcmp(data, "hello", 6) == 0); /* NUL after the bytes */
    sf_file_free(NULL, data);
    sf_file_read_opts o;
    memset(&o, 0, sizeof o);
    o.max_bytes = 5;
    CHECK_OK(sf_file_read(p, &o, NULL, &data, &size, &err));
    sf_file_free(NULL, data);
    o.max_bytes = 4;
    data = (void*)1;
    CHECK_RESULT(sf_file_read(p, &o, NULL, &data, &size, &err), SF_ERROR_IO);
    CHECK(strcmp(err.field, "max_bytes") == 0 && contains(err.message, "larger than 4 bytes"));
    CHECK(data == NULL);
    /* empty file */
    CHECK(write_text("empty.txt", ""));
    CHECK_OK(sf_file_read(tmp_path("empty.txt", p, sizeof p), NULL, NULL, &data, &size, &err));
    CHECK(size == 0 && data != NULL && ((char*)data)[0] == '\0');
    sf_file_free(NULL, data);
    /* missing file */
    CHECK_RESULT(sf_file_read(tmp_path("missing.txt", p, sizeof p), NULL, NULL, &data, &size, &err), SF_ERROR_IO);
    CHECK(strcmp(err.field, "path") == 0);
    CHECK_RESULT(sf_file_read("", NULL, NULL, &data, &size, &err), SF_ERROR_INVALID_ARGUMENT);
    /* A sparse file of 256 MiB is refused from its size: fast, and nothing is allocated for it. */
    int fd = open(tmp_path("huge.bin", p, sizeof p), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    CHECK(ftruncate(fd, (off_t)256 << 20) == 0);
    close(fd);
    o.max_bytes = 1000;
    double t0 = now_s();
    CHECK_RESULT(sf_file_read(p, &o, NULL, &data, &size, &err), SF_ERROR_IO);
    CHECK(strcmp(err.field, "max_bytes") == 0);
    CHECK(now_s() - t0 < 0.5);
    remove(p);
}

static void test_file_read_special_files(void)
{
    char p[512], q[512];
    void* data = NULL;
    size_t size = 0;
    sf_error err;
    guard_start();
    CHECK(mkfifo(tmp_path("fifo", p, sizeof p), 0644) == 0);
    CHECK_RESULT(sf_file_read(p, NULL, NULL, &data, &size, &err), SF_ERROR_IO);
    CHECK(strcmp(err.field, "path") == 0 && contains(err.message, "not a regular file"));
    CHECK(contains(err.message, "FIFO"));
    CHECK(mkdir(tmp_path("folder", q, sizeof q), 0755) == 0);
    CHECK_RESULT(sf_file_read(q, NULL, NULL, &data, &size, &err), SF_ERROR_IO);
    CHECK(contains(err.message, "not a regular file") && contains(err.message, "folder"));
    CHECK_RESULT(sf_file_read("/dev/zero", NULL, NULL, &data, &size, &err), SF_ERROR_IO);
    CHECK(contains(err.message, "not a regular file") && contains(err.message, "device"));
    int s = make_socket("sock");
    CHECK(s >= 0);
    CHECK_RESULT(sf_file_read(tmp_path("sock", q, sizeof q), NULL, NULL, &data, &size, &err), SF_ERROR_IO);
    CHECK(contains(err.message, "not a regular file") && contains(err.message, "socket"));
    close(s);
    /* a link to a FIFO is a FIFO */
    CHECK(symlink(p, tmp_path("fifo-link", q, sizeof q)) == 0);
    CHECK_RESULT(sf_file_read(q, NULL, NULL, &data, &size, &err), SF_ERROR_IO);
    CHECK(contains(err.message, "FIFO"));
    guard_stop();
}

static void test_file_read_confined(void)
{
    char p[512], dir[512], t[512];
    void* data = NULL;
    size_t size = 0;
    sf_error err;
    CHECK(mkdir(tmp_path("jail", dir, sizeof dir), 0755) == 0);
    CHECK(mkdir(tmp_path("jail/sub", p, sizeof p), 0755) == 0);
    CHECK(mkdir(tmp_path("yard", p, sizeof p), 0755) == 0);
    CHECK(write_text("jail/sub/in.txt", "in"));
    CHECK(write_text("yard/out.txt", "out"));
    CHECK(symlink("../yard", tmp_path("jail/escape", p, sizeof p)) == 0);        /* folder link out */
    CHECK(symlink("../yard/out.txt", tmp_path("jail/out.txt", p, sizeof p)) == 0); /* file link out */
    CHECK(symlink("sub/in.txt", tmp_path("jail/alias.txt", p, sizeof p)) == 0);    /* link that stays in */
    CHECK(symlink("jail", tmp_path("jail-link", p, sizeof p)) == 0);               /* the folder as a link */
    sf_file_read_opts o;
    memset(&o, 0, sizeof o);
    o.confine_dir = dir;
    CHECK_OK(sf_file_read(tmp_path("jail/sub/in.txt", p, sizeof p), &o, NULL, &data, &size, &err));
    CHECK(size == 2);
    sf_file_free(NULL, data);
    CHECK_OK(sf_file_read(tmp_path("jail/alias.txt", p, sizeof p), &o, NULL, &data, &size, &err));
    sf_file_free(NULL, data);
    CHECK_RESULT(sf_file_read(tmp_path("jail/escape/out.txt", p, sizeof p), &o, NULL, &data, &size, &err), SF_ERROR_IO);
    CHECK(strcmp(err.field, "confine_dir") == 0 && contains(err.message, "outside"));
    CHECK_RESULT(sf_file_read(tmp_path("jail/out.txt", p, sizeof p), &o, NULL, &data, &size, &err), SF_ERROR_IO);
    CHECK(strcmp(err.field, "confine_dir") == 0);
    CHECK_RESULT(sf_file_read(tmp_path("jail/sub/../../yard/out.txt", p, sizeof p), &o, NULL, &data, &size, &err),
                 SF_ERROR_IO);
    CHECK(strcmp(err.field, "confine_dir") == 0);
    /* The folder given through a link, and a file given through that link: both resolve inside. */
    o.confine_dir = tmp_path("jail-link", t, sizeof t);
    CHECK_OK(sf_file_read(tmp_path("jail/sub/in.txt", p, sizeof p), &o, NULL, &data, &size, &err));
    sf_file_free(NULL, data);
    CHECK_OK(sf_file_read(tmp_path("jail-link/alias.txt", p, sizeof p), &o, NULL, &data, &size, &err));
    sf_file_free(NULL, data);
    /* A folder whose name is a prefix of the file's folder is not that folder. */
    CHECK(mkdir(tmp_path("jail2", p, sizeof p), 0755) == 0);
    CHECK(write_text("jail2/x.txt", "x"));
    o.confine_dir = dir;
    CHECK_RESULT(sf_file_read(tmp_path("jail2/x.txt", p, sizeof p), &o, NULL, &data, &size, &err), SF_ERROR_IO);
    CHECK(strcmp(err.field, "confine_dir") == 0);
}

/* ---------------------------------------------------------------- loader: files */

static void test_gltf_symlink_confinement(void)
{
    char p[512];
    uint8_t bin[44];
    tri_bin(bin);
    CHECK(mkdir(tmp_path("asset", p, sizeof p), 0755) == 0);
    CHECK(mkdir(tmp_path("outside", p, sizeof p), 0755) == 0);
    CHECK(write_bytes("outside/tri.bin", bin, sizeof bin));
    CHECK(write_bytes("asset/real.bin", bin, sizeof bin));
    CHECK(symlink("../outside", tmp_path("asset/textures", p, sizeof p)) == 0);
    CHECK(symlink("../outside/tri.bin", tmp_path("asset/link.bin", p, sizeof p)) == 0);
    CHECK(symlink("real.bin", tmp_path("asset/alias.bin", p, sizeof p)) == 0);
    CHECK(symlink("/etc", tmp_path("asset/etc", p, sizeof p)) == 0);
    CHECK(symlink("asset", tmp_path("asset-link", p, sizeof p)) == 0);
    CHECK(write_tri_gltf("asset/folder-link.gltf", "textures/tri.bin"));
    CHECK(write_tri_gltf("asset/file-link.gltf", "link.bin"));
    CHECK(write_tri_gltf("asset/etc.gltf", "etc/passwd"));
    CHECK(write_tri_gltf("asset/inside.gltf", "alias.bin"));
    sf_error err;
    /* Out through a folder link, a file link, a link to /etc: refused like "..". */
    CHECK_RESULT(load_rel("asset/folder-link.gltf", NULL, &err), SF_ERROR_GLTF);
    CHECK(strcmp(err.field, "buffers[0].uri") == 0 && contains(err.message, "textures/tri.bin"));
    CHECK_RESULT(load_rel("asset/file-link.gltf", NULL, &err), SF_ERROR_GLTF);
    CHECK(strcmp(err.field, "buffers[0].uri") == 0);
    struct stat st;
    if (stat("/etc/passwd", &st) == 0) {
        CHECK_RESULT(load_rel("asset/etc.gltf", NULL, &err), SF_ERROR_GLTF);
        CHECK(strcmp(err.field, "buffers[0].uri") == 0);
    }
    /* Links that stay inside, and the asset opened through a link to its folder, load. */
    CHECK_OK(load_rel("asset/inside.gltf", NULL, &err));
    CHECK_OK(load_rel("asset-link/inside.gltf", NULL, &err));
    /* allow_outside_files reads the linked files. */
    sf_gltf_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.allow_outside_files = 1;
    CHECK_OK(load_rel("asset/folder-link.gltf", &opts, &err));
    CHECK_OK(load_rel("asset/file-link.gltf", &opts, &err));
    /* From memory with a folder: the same rule. */
    char text[2048];
    tri_gltf("textures/tri.bin", text, sizeof text);
    sf_gltf* g = NULL;
    CHECK_RESULT(sf_gltf_load_memory(text, strlen(text), tmp_path("asset", p, sizeof p), NULL, NULL, &g, &err),
                 SF_ERROR_GLTF);
    CHECK(strcmp(err.field, "buffers[0].uri") == 0);
}

static void test_gltf_special_files(void)
{
    char p[512], q[512];
    sf_error err;
    guard_start();
    CHECK(mkdir(tmp_path("special", p, sizeof p), 0755) == 0);
    CHECK(mkfifo(tmp_path("special/pipe.bin", p, sizeof p), 0644) == 0);
    CHECK(mkfifo(tmp_path("special/pipe.gltf", p, sizeof p), 0644) == 0);
    CHECK(mkdir(tmp_path("special/dir.bin", p, sizeof p), 0755) == 0);
    CHECK(mkdir(tmp_path("special/dir.gltf", p, sizeof p), 0755) == 0);
    CHECK(symlink("/dev/zero", tmp_path("special/zero.bin", p, sizeof p)) == 0);
    int s = make_socket("special/sock.bin");
    CHECK(s >= 0);
    CHECK(write_tri_gltf("special/fifo-buffer.gltf", "pipe.bin"));
    CHECK(write_tri_gltf("special/dir-buffer.gltf", "dir.bin"));
    CHECK(write_tri_gltf("special/zero-buffer.gltf", "zero.bin"));
    CHECK(write_tri_gltf("special/sock-buffer.gltf", "sock.bin"));
    CHECK_RESULT(load_rel("special/fifo-buffer.gltf", NULL, &err), SF_ERROR_IO);
    CHECK(strcmp(err.field, "buffers[0]") == 0 && contains(err.message, "not a regular file"));
    CHECK_RESULT(load_rel("special/pipe.gltf", NULL, &err), SF_ERROR_IO);
    CHECK(strcmp(err.field, "file") == 0 && contains(err.message, "not a regular file"));
    CHECK_RESULT(load_rel("special/dir-buffer.gltf", NULL, &err), SF_ERROR_IO);
    CHECK(contains(err.message, "not a regular file"));
    CHECK_RESULT(load_rel("special/dir.gltf", NULL, &err), SF_ERROR_IO);
    CHECK(contains(err.message, "not a regular file"));
    CHECK_RESULT(load_rel("special/sock-buffer.gltf", NULL, &err), SF_ERROR_IO);
    CHECK(contains(err.message, "not a regular file"));
    /* /dev/zero: outside the folder, and once allowed, not a regular file (never read). */
    CHECK_RESULT(load_rel("special/zero-buffer.gltf", NULL, &err), SF_ERROR_GLTF);
    sf_gltf_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.allow_outside_files = 1;
    CHECK_RESULT(load_rel("special/zero-buffer.gltf", &opts, &err), SF_ERROR_IO);
    CHECK(contains(err.message, "not a regular file"));
    sf_gltf* g = NULL;
    CHECK_RESULT(sf_gltf_load_file("/dev/zero", NULL, NULL, &g, &err), SF_ERROR_IO);
    CHECK(contains(err.message, "not a regular file"));
    close(s);
    remove(tmp_path("special/sock.bin", q, sizeof q));
    guard_stop();
}

static void test_gltf_buffer_larger_than_declared(void)
{
    char p[512];
    uint8_t bin[44 + 200];
    memset(bin, 0, sizeof bin);
    tri_bin(bin);
    sf_error err;
    CHECK(mkdir(tmp_path("sizes", p, sizeof p), 0755) == 0);
    CHECK(write_tri_gltf("sizes/tri.gltf", "tri.bin"));
    CHECK(write_bytes("sizes/tri.bin", bin, 44));
    CHECK_OK(load_rel("sizes/tri.gltf", NULL, &err));
    CHECK(write_bytes("sizes/tri.bin", bin, 44 + SF_GLTF_BUFFER_SLACK)); /* padding */
    CHECK_OK(load_rel("sizes/tri.gltf", NULL, &err));
    CHECK(write_bytes("sizes/tri.bin", bin, 44 + SF_GLTF_BUFFER_SLACK + 1));
    CHECK_RESULT(load_rel("sizes/tri.gltf", NULL, &err), SF_ERROR_GLTF);
    CHECK(strcmp(err.field, "buffers[0].byteLength") == 0 && contains(err.message, "49"));
    CHECK(write_bytes("sizes/tri.bin", bin, sizeof bin));
    CHECK_RESULT(load_rel("sizes/tri.gltf", NULL, &err), SF_ERROR_GLTF);
    CHECK(strcmp(err.field, "buffers[0].byteLength") == 0);
    CHECK(write_bytes("sizes/tri.bin", bin, 40)); /* shorter: still an error */
    CHECK_RESULT(load_rel("sizes/tri.gltf", NULL, &err), SF_ERROR_GLTF);
    CHECK(strcmp(err.field, "buffers[0].byteLength") == 0);
    /* A 256 MiB (sparse) file behind a 44-byte buffer: refused from its size, without reading it. */
    int fd = open(tmp_path("sizes/tri.bin", p, sizeof p), O_WRONLY | O_TRUNC);
    CHECK(fd >= 0);
    CHECK(write(fd, bin, 44) == 44);
    CHECK(ftruncate(fd, (off_t)256 << 20) == 0);
    close(fd);
    double t0 = now_s();
    CHECK_RESULT(load_rel("sizes/tri.gltf", NULL, &err), SF_ERROR_GLTF);
    CHECK(strcmp(err.field, "buffers[0].byteLength") == 0);
    CHECK(now_s() - t0 < 0.5);
}

/* Open descriptors of this process (0..1023). */
static int open_fds(void)
{
    int n = 0;
    for (int fd = 0; fd < 1024; ++fd) n += fcntl(fd, F_GETFD) != -1;
    return n;
}

static void test_gltf_no_leaks(void)
{
    char p[512];
    uint8_t bin[44 + 8];
    memset(bin, 0, sizeof bin);
    tri_bin(bin);
    CHECK(mkdir(tmp_path("leaks", p, sizeof p), 0755) == 0);
    CHECK(mkdir(tmp_path("leaks/dir.bin", p, sizeof p), 0755) == 0);
    CHECK(mkfifo(tmp_path("leaks/pipe.bin", p, sizeof p), 0644) == 0);
    CHECK(write_bytes("leaks/ok.bin", bin, 44));
    CHECK(write_bytes("leaks/long.bin", bin, sizeof bin));
    CHECK(write_bytes("outside.bin", bin, 44));
    CHECK(symlink("../outside.bin", tmp_path("leaks/out.bin", p, sizeof p)) == 0);
    static const char* const uris[] = {"ok.bin", "dir.bin", "pipe.bin", "long.bin", "out.bin", "missing.bin"};
    static const sf_result want[] = {SF_OK, SF_ERROR_IO, SF_ERROR_IO, SF_ERROR_GLTF, SF_ERROR_GLTF, SF_ERROR_IO};
    guard_start();
    int before = open_fds();
    for (size_t k = 0; k < sizeof uris / sizeof uris[0]; ++k) {
        char name[64];
        snprintf(name, sizeof name, "leaks/%zu.gltf", k);
        CHECK(write_tri_gltf(name, uris[k]));
        sf_error err;
        CHECK_RESULT(load_rel(name, NULL, &err), want[k]);
    }
    sf_gltf_opts small;
    memset(&small, 0, sizeof small);
    small.max_file_bytes = 10; /* the .gltf itself is larger */
    sf_error err;
    CHECK_RESULT(load_rel("leaks/0.gltf", &small, &err), SF_ERROR_IO);
    CHECK(open_fds() == before); /* every descriptor closed on every path */
    guard_stop();
    /* Failing the n-th allocation while reading the .gltf and its buffer: out of memory or success, nothing
     * left allocated, no descriptor left open. */
    int loaded = 0;
    for (size_t budget = 0; budget < 1000 && !loaded; ++budget) {
        sft_alloc_counter c = {0};
        c.fail_at = budget + 1;
        c.fail_rest = 1;
        sf_env env = sft_counting_env(&c);
        sf_gltf* g = NULL;
        sf_result r = sf_gltf_load_file(tmp_path("leaks/0.gltf", p, sizeof p), NULL, &env, &g, &err);
        if (r == SF_OK) loaded = 1;
        else CHECK_RESULT(r, SF_ERROR_OUT_OF_MEMORY);
        sf_gltf_destroy(g);
        CHECK(c.live == 0);
    }
    CHECK(loaded);
    CHECK(open_fds() == before);
}

/* ---------------------------------------------------------------- loader: cost limits */

/* One primitive whose POSITION is `count` zeros (no bufferView), with NORMAL when `normal`, and `targets`
 * morph targets that all use the POSITION accessor. */
static char* viewless_json(size_t count, int normal, size_t targets)
{
    size_t cap = 1024 + targets * 20;
    char* s = malloc(cap);
    int n = snprintf(s, cap,
                     "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,\"count\":%zu,"
                     "\"type\":\"VEC3\"}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0%s}",
                     count, normal ? ",\"NORMAL\":0" : "");
    if (targets) {
        n += snprintf(s + n, cap - (size_t)n, ",\"targets\":[");
        for (size_t t = 0; t < targets; ++t)
            n += snprintf(s + n, cap - (size_t)n, "%s{\"POSITION\":0}", t ? "," : "");
        n += snprintf(s + n, cap - (size_t)n, "]");
    }
    snprintf(s + n, cap - (size_t)n, "}]}],\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}");
    return s;
}

static void test_gltf_viewless_vertices(void)
{
    /* 267 bytes declaring 2^24 - 1 vertices of zeros, split for flat normals: refused before decoding. */
    char* text = viewless_json(16777215, 0, 0);
    sf_error err;
    double t0 = now_s();
    CHECK_RESULT(load_json(text, NULL, &err), SF_ERROR_GLTF);
    CHECK(now_s() - t0 < 0.5);
    CHECK(strcmp(err.field, "meshes[0].primitives[0]") == 0);
    CHECK(contains(err.message, "max_decoded_bytes") && contains(err.message, "--max-decoded-bytes"));
    free(text);
    /* A smaller one (its node's instance included) decodes within the default, and the limit can be
     * lowered and raised. */
    text = viewless_json(60000, 0, 0);
    CHECK_OK(load_json(text, NULL, &err));
    sf_gltf_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.max_decoded_bytes = 1000000;
    CHECK_RESULT(load_json(text, &opts, &err), SF_ERROR_GLTF);
    CHECK(contains(err.message, "max_decoded_bytes 1000000"));
    opts.max_decoded_bytes = (size_t)1 << 30;
    CHECK_OK(load_json(text, &opts, &err));
    opts.max_decoded_bytes = 0;
    opts.max_vertices = 59999;
    CHECK_RESULT(load_json(text, &opts, &err), SF_ERROR_GLTF);
    CHECK(strcmp(err.field, "meshes[0].primitives[0]") == 0);
    CHECK(contains(err.message, "max_vertices 59999") && contains(err.message, "--max-vertices"));
    opts.max_vertices = 60000;
    CHECK_OK(load_json(text, &opts, &err));
    free(text);
}

static void test_gltf_flat_split_counts(void)
{
    /* 3 positions, 3000 indices without a bufferView: 1000 triangles, 3000 vertices once split per corner. */
    const char* base =
        "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
        "{\"componentType\":5125,\"count\":3000,\"type\":\"SCALAR\"}],\"meshes\":[{\"primitives\":[{\"attributes\":"
        "{\"POSITION\":0%s},\"indices\":1}]}],\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}";
    char text[1024];
    snprintf(text, sizeof text, base, "");
    sf_gltf_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.max_vertices = 2999;
    sf_error err;
    CHECK_RESULT(load_json(text, &opts, &err), SF_ERROR_GLTF);
    CHECK(contains(err.message, "3000") && contains(err.message, "max_vertices 2999") && contains(err.message, "flat"));
    opts.max_vertices = 3000;
    sf_gltf* g = NULL;
    CHECK_OK(sf_gltf_load_memory(text, strlen(text), NULL, &opts, NULL, &g, &err));
    CHECK(g->primitives[0].mesh.vertex_count == 3000 && g->primitives[0].flat_normals);
    sf_gltf_destroy(g);
    /* With NORMAL nothing is split: 3 vertices. */
    snprintf(text, sizeof text, base, ",\"NORMAL\":0");
    opts.max_vertices = 3;
    CHECK_OK(load_json(text, &opts, &err));
}

static void test_gltf_morph_elements(void)
{
    /* 100 targets sharing one accessor of 700k zeros: 70M (target, vertex) pairs from a 2 KB file. */
    char* text = viewless_json(699999, 1, 100);
    sf_error err;
    double t0 = now_s();
    CHECK_RESULT(load_json(text, NULL, &err), SF_ERROR_GLTF);
    CHECK(now_s() - t0 < 0.5);
    CHECK(strcmp(err.field, "meshes[0].primitives[0]") == 0);
    CHECK(contains(err.message, "max_morph_elements") && contains(err.message, "--max-morph-elements") &&
          contains(err.message, "69999900"));
    /* Raised, the decoded bytes (100 x 700k x 12 bytes of deltas) still stop it. */
    sf_gltf_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.max_morph_elements = 100000000;
    CHECK_RESULT(load_json(text, &opts, &err), SF_ERROR_GLTF);
    CHECK(contains(err.message, "max_decoded_bytes"));
    free(text);
    /* 100 x 3000: fine by default; the limit counts targets x vertices exactly. */
    text = viewless_json(3000, 1, 100);
    CHECK_OK(load_json(text, NULL, &err));
    opts.max_morph_elements = 299999;
    CHECK_RESULT(load_json(text, &opts, &err), SF_ERROR_GLTF);
    CHECK(contains(err.message, "300000"));
    opts.max_morph_elements = 300000;
    CHECK_OK(load_json(text, &opts, &err));
    free(text);
}

static void test_gltf_animation_and_skin_costs(void)
{
    /* Four channels sharing a sampler whose 4M keys have no bufferView: 4 x 64 MB of decoded keys. */
    const char* anim =
        "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,\"count\":4194304,\"type\":"
        "\"SCALAR\"},{\"componentType\":5126,\"count\":4194304,\"type\":\"VEC3\"}],\"nodes\":[{},{},{},{}],"
        "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],\"channels\":["
        "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}},"
        "{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}},"
        "{\"sampler\":0,\"target\":{\"node\":2,\"path\":\"translation\"}},"
        "{\"sampler\":0,\"target\":{\"node\":3,\"path\":\"translation\"}}]}]}";
    sf_error err;
    double t0 = now_s();
    CHECK_RESULT(load_json(anim, NULL, &err), SF_ERROR_GLTF);
    CHECK(now_s() - t0 < 0.5);
    CHECK(contains(err.field, "animations[0].channels[") && contains(err.message, "max_decoded_bytes"));
    /* A skin whose inverse bind matrices are 2M MAT4 without a bufferView (128 MB). */
    const char* skin =
        "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,\"count\":2097152,\"type\":"
        "\"MAT4\"}],\"nodes\":[{}],\"skins\":[{\"joints\":[0],\"inverseBindMatrices\":0}]}";
    CHECK_RESULT(load_json(skin, NULL, &err), SF_ERROR_GLTF);
    CHECK(strcmp(err.field, "skins[0]") == 0 && contains(err.message, "max_decoded_bytes"));
    sf_gltf_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.max_decoded_bytes = (size_t)1 << 30;
    CHECK_OK(load_json(skin, &opts, &err));
}

/* A glTF of one view-less primitive of `vertices` (normals given, so no flat split) drawn by `nodes` nodes. */
static char* instanced_json(size_t vertices, size_t nodes)
{
    size_t cap = 512 + 32 * nodes;
    char* t = malloc(cap);
    if (!t) return NULL;
    size_t n = (size_t)snprintf(t, cap,
                                "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,\"count\":%zu,"
                                "\"type\":\"VEC3\"}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,"
                                "\"NORMAL\":0}}]}],\"nodes\":[",
                                vertices);
    for (size_t k = 0; k < nodes; ++k) n += (size_t)snprintf(t + n, cap - n, "%s{\"mesh\":0}", k ? "," : "");
    snprintf(t + n, cap - n, "]}");
    return t;
}

/* Instances count: a mesh drawn by N nodes costs N x its vertices x SF_GLTF_INSTANCE_VERTEX_BYTES, so a few KB
 * of nodes cannot ask for gigabytes of topologies; the error names the instances and the flag. */
static void test_gltf_instance_costs(void)
{
    sf_error err;
    size_t v = 9999, limit = (size_t)64 << 20; /* a fixed budget, so that the text's size does not matter */
    size_t fits = limit / (v * SF_GLTF_INSTANCE_VERTEX_BYTES) / 2; /* well inside, with the decoded streams */
    sf_gltf_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.max_decoded_bytes = limit;
    char* one = instanced_json(v, fits);
    char* many = instanced_json(v, 1000);
    CHECK(one && many);
    CHECK_OK(load_json(one, &opts, &err));
    double t0 = now_s();
    CHECK_RESULT(load_json(many, &opts, &err), SF_ERROR_GLTF);
    CHECK(now_s() - t0 < 0.5);
    CHECK(contains(err.field, "1000 mesh instances") && contains(err.field, "9999000 vertices"));
    CHECK(contains(err.message, "max_decoded_bytes") && contains(err.message, "--max-decoded-bytes"));
    /* the bound is linear in the instances: twice the budget takes twice the nodes */
    size_t edge = limit / (v * SF_GLTF_INSTANCE_VERTEX_BYTES);
    char* over = instanced_json(v, edge + 1);
    CHECK(over != NULL);
    CHECK_RESULT(load_json(over, &opts, &err), SF_ERROR_GLTF);
    opts.max_decoded_bytes = 2 * limit;
    CHECK_OK(load_json(over, &opts, &err));
    free(one);
    free(many);
    free(over);
}

/* A glTF of one triangle-less asset whose extras hold `values` zeros (`[0,0,...]`, 2 bytes a value) when
 * !as_string, or one string of as many bytes. */
static char* extras_json(size_t values, int as_string)
{
    size_t cap = 128 + 2 * values;
    char* t = malloc(cap);
    if (!t) return NULL;
    size_t n = (size_t)snprintf(t, cap, "{\"asset\":{\"version\":\"2.0\"},\"extras\":%s", as_string ? "\"" : "[");
    for (size_t k = 0; k < values; ++k) {
        t[n++] = as_string ? 'a' : '0';
        t[n++] = as_string ? 'a' : ',';
    }
    if (!as_string) n--; /* the last comma */
    snprintf(t + n, cap - n, "%s}", as_string ? "\"" : "]");
    return t;
}

/* The parsed JSON counts against max_decoded_bytes, estimated from the text before it is parsed: `[0,0,...]`
 * costs a cJSON node (tens of bytes) per 2 bytes of text, so 4 MB of it is refused under a 64 MiB budget
 * without being parsed (the error counts the values exactly: the root, asset, version, extras and its 2M
 * zeros), while the same 4 MB in one string (one node) fits. By default the JSON alone may cost 64 MiB + 16 x
 * its text (SF_GLTF_DEFAULT_JSON_FACTOR): the 4 MB of zeros (about 160 MB parsed, under the input's 64 x) is
 * refused naming that default and the flag, 400 KB of zeros (16 MB) and the string load, and a budget given
 * (--max-decoded-bytes) replaces the default. */
static void test_gltf_json_parse_cost(void)
{
    size_t values = 2000000, limit = (size_t)64 << 20;
    char* zeros = extras_json(values, 0);
    char* string = extras_json(values, 1);
    CHECK(zeros && string);
    sf_gltf_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.max_decoded_bytes = limit;
    sf_error err;
    double t0 = now_s();
    CHECK_RESULT(load_json(zeros, &opts, &err), SF_ERROR_GLTF);
    CHECK(now_s() - t0 < 0.5);
    CHECK(strcmp(err.field, "json") == 0);
    CHECK(contains(err.message, "2000004 values") && contains(err.message, "max_decoded_bytes 67108864") &&
          contains(err.message, "--max-decoded-bytes"));
    CHECK_OK(load_json(string, &opts, &err));
    t0 = now_s();
    CHECK_RESULT(load_json(zeros, NULL, &err), SF_ERROR_GLTF);
    CHECK(now_s() - t0 < 0.5);
    CHECK(strcmp(err.field, "json") == 0);
    char expect[96];
    snprintf(expect, sizeof expect, "> %zu = 64 MiB + %d x the text (the JSON default)",
             ((size_t)64 << 20) + SF_GLTF_DEFAULT_JSON_FACTOR * strlen(zeros), SF_GLTF_DEFAULT_JSON_FACTOR);
    CHECK(contains(err.message, expect) && contains(err.message, "--max-decoded-bytes"));
    CHECK_OK(load_json(string, NULL, &err));
    opts.max_decoded_bytes = (size_t)1 << 30;
    CHECK_OK(load_json(zeros, &opts, &err));
    free(zeros);
    free(string);
    zeros = extras_json(values / 10, 0);
    CHECK(zeros != NULL);
    CHECK_OK(load_json(zeros, NULL, &err));
    free(zeros);
}

/* ---------------------------------------------------------------- the command line */

/* rel: a triangle moved by `clips` animations of `seconds` each (one translation channel), buffer rel.bin. */
static int write_long_clips(const char* rel, size_t clips, float seconds)
{
    uint8_t bin[68];
    float times[2] = {0.0f, seconds}, moves[6] = {0, 0, 0, 1, 0, 0};
    tri_bin(bin); /* positions at 0..36 */
    memcpy(bin + 36, times, 8);
    memcpy(bin + 44, moves, 24);
    char name[256], text[65536];
    snprintf(name, sizeof name, "%s.bin", rel);
    if (!write_bytes(name, bin, sizeof bin)) return 0;
    const char* uri = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    size_t n = (size_t)snprintf(text, sizeof text,
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":68,\"uri\":\"%s\"}],\"bufferViews\":["
        "{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":8},"
        "{\"buffer\":0,\"byteOffset\":44,\"byteLength\":24}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,"
        "\"count\":3,\"type\":\"VEC3\"},{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\","
        "\"min\":[0],\"max\":[%g]},{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0}],"
        "\"scenes\":[{\"nodes\":[0]}],\"animations\":[", uri, (double)seconds);
    for (size_t k = 0; k < clips && n < sizeof text - 256; ++k)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s{\"samplers\":[{\"input\":1,\"output\":2}],\"channels\":"
                              "[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}]}", k ? "," : "");
    snprintf(text + n, sizeof text - n, "]}");
    return write_text(rel, text);
}

/* eval's total work: frames over every clip x vertices over every instance (at least 1000 a frame), refused
 * before any work past --max-work, the error naming it. 400 clips of 3333 s at 30 fps are each under
 * --max-frames but 40M frames in all; 2 clips of 1 s are 2 x 31 frames = 62000 vertex-frames, exactly. */
static void test_cli_max_work(void)
{
    if (!getenv("SF_CLI")) {
        sft_skip("SF_CLI not set");
        return;
    }
    char p[512], args[1400];
    CHECK(mkdir(tmp_path("work", p, sizeof p), 0755) == 0);
    CHECK(write_long_clips("work/long.gltf", 400, 3333.0f));
    tmp_path("work/long.gltf", p, sizeof p);
    snprintf(args, sizeof args, "eval '%s'", p);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 1 && contains(r.err, "more than --max-work 100000000") && contains(r.err, "39996400 frames"));
    sft_cli_out_free(&r);
    CHECK(write_long_clips("work/short.gltf", 2, 1.0f));
    tmp_path("work/short.gltf", p, sizeof p);
    snprintf(args, sizeof args, "eval '%s' --method skinned --max-work 61999", p);
    r = sft_run_cli(args);
    CHECK(r.status == 1 && contains(r.err, "62000 vertex-frames, more than --max-work 61999"));
    sft_cli_out_free(&r);
    snprintf(args, sizeof args, "eval '%s' --method skinned --max-work 62000", p);
    r = sft_run_cli(args);
    CHECK(r.status == 0);
    sft_cli_out_free(&r);
    snprintf(args, sizeof args, "eval '%s' --max-work 0", p);
    r = sft_run_cli(args);
    CHECK(r.status == 2 && contains(r.err, "--max-work"));
    sft_cli_out_free(&r);
}

static void test_cli_limit_flags(void)
{
    if (!getenv("SF_CLI")) {
        sft_skip("SF_CLI not set");
        return;
    }
    char p[512], q[512], args[1400];
    uint8_t bin[44];
    tri_bin(bin);
    CHECK(mkdir(tmp_path("cli", p, sizeof p), 0755) == 0);
    CHECK(write_bytes("cli/tri.bin", bin, sizeof bin));
    CHECK(write_tri_gltf("cli/tri.gltf", "tri.bin"));
    char* text = viewless_json(16777215, 0, 0);
    CHECK(write_text("cli/huge.gltf", text));
    free(text);
    tmp_path("cli/huge.gltf", q, sizeof q);
    snprintf(args, sizeof args, "eval '%s'", q);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 1 && contains(r.err, "max_decoded_bytes") && contains(r.err, "--max-decoded-bytes"));
    sft_cli_out_free(&r);
    tmp_path("cli/tri.gltf", p, sizeof p);
    const char* commands[] = {"info '%s' %s", "eval '%s' %s", "bake '%s' --time 0 --method skinned -o out.glb %s",
                              "export-gpu '%s' -o gpu-out %s"};
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; ++c) {
        char flags[64];
        snprintf(flags, sizeof flags, "--max-vertices 2");
        snprintf(args, sizeof args, commands[c], p, flags);
        r = sft_run_cli(args);
        if (!(r.status == 1 && contains(r.err, "max_vertices 2"))) fprintf(stderr, "  %s: %s\n", args, r.err);
        CHECK(r.status == 1 && contains(r.err, "max_vertices 2"));
        sft_cli_out_free(&r);
        snprintf(args, sizeof args, commands[c], p, "--max-vertices x");
        r = sft_run_cli(args);
        CHECK(r.status == 2 && contains(r.err, "--max-vertices"));
        sft_cli_out_free(&r);
    }
    snprintf(args, sizeof args, "info '%s' --max-vertices 3 --max-morph-elements 1 --max-decoded-bytes 100000", p);
    r = sft_run_cli(args);
    CHECK(r.status == 0);
    sft_cli_out_free(&r);
    snprintf(args, sizeof args, "info '%s' --max-decoded-bytes 10", p);
    r = sft_run_cli(args);
    CHECK(r.status == 1 && contains(r.err, "max_decoded_bytes 10"));
    sft_cli_out_free(&r);
    /* Every command that reads glTF documents the flags. */
    const char* helps[] = {"info --help", "eval --help", "bake --help", "export-gpu --help"};
    for (size_t c = 0; c < sizeof helps / sizeof helps[0]; ++c) {
        r = sft_run_cli(helps[c]);
        CHECK(r.status == 0 && contains(r.out, "--max-vertices") && contains(r.out, "--max-morph-elements") &&
              contains(r.out, "--max-decoded-bytes"));
        sft_cli_out_free(&r);
    }
}

/* ---------------------------------------------------------------- runner */

static int rm_entry(const char* path, const struct stat* st, int type, struct FTW* ftw)
{
    (void)st, (void)type, (void)ftw;
    return remove(path);
}

int main(int argc, char** argv)
{
    const char* base = getenv("TMPDIR");
    snprintf(g_tmp, sizeof g_tmp, "%s/sf-limits-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(g_tmp)) {
        fprintf(stderr, "mkdtemp %s: %s\n", g_tmp, strerror(errno));
        return 1;
    }
    static const sft_case cases[] = {
        {"file_read_regular", test_file_read_regular},
        {"file_read_special_files", test_file_read_special_files},
        {"file_read_confined", test_file_read_confined},
        {"gltf_symlink_confinement", test_gltf_symlink_confinement},
        {"gltf_special_files", test_gltf_special_files},
        {"gltf_buffer_larger_than_declared", test_gltf_buffer_larger_than_declared},
        {"gltf_no_leaks", test_gltf_no_leaks},
        {"gltf_viewless_vertices", test_gltf_viewless_vertices},
        {"gltf_flat_split_counts", test_gltf_flat_split_counts},
        {"gltf_morph_elements", test_gltf_morph_elements},
        {"gltf_animation_and_skin_costs", test_gltf_animation_and_skin_costs},
        {"gltf_instance_costs", test_gltf_instance_costs},
        {"gltf_json_parse_cost", test_gltf_json_parse_cost},
        {"cli_limit_flags", test_cli_limit_flags},
        {"cli_max_work", test_cli_max_work},
    };
    int code = SFT_RUN(cases, argc, argv);
    nftw(g_tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS); /* links are removed, never followed */
    return code;
}

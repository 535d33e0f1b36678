/* Atomic file replacement: a temporary file created next to the target with O_EXCL (mode 0666, so the
 * kernel applies the umask as for fopen), written, fsync'ed, then renamed over the target. Temporary files
 * that a killed writer left behind are removed by the next writer of the same name. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "sf_common.h"
#include "skinframe_files.h"
#include "temp_names.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

struct sf_file_writer {
    FILE* stream;
    char* path;
    char* temp_path;
};

static sf_result io_error(sf_error* err, const char* what, const char* path, int code)
{
    return sf_error_set(err, SF_ERROR_IO, "path", SFI_NO_INDEX, "%s %s: %s", what, path, strerror(code));
}

static void writer_free(sf_file_writer* w)
{
    free(w->path);
    free(w->temp_path);
    free(w);
}

/* "PATH.tmp.PID.N": unique per process and attempt; O_EXCL makes a clash with another writer a retry. */
static int create_temp(const char* path, char* temp_path, size_t size)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    unsigned long salt = (unsigned long)now.tv_nsec;
    for (int attempt = 0; attempt < 100; ++attempt) {
        snprintf(temp_path, size, "%s.tmp.%ld.%lu", path, (long)getpid(), salt + (unsigned long)attempt * 7919u);
        int fd = open(temp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    errno = EEXIST;
    return -1;
}

/* The folder and the last component of path ("." for a bare name). */
static int split_path(const char* path, char* dir, size_t dir_size, const char** base)
{
    const char* slash = strrchr(path, '/');
    *base = slash ? slash + 1 : path;
    size_t n = slash ? (size_t)(slash - path) : 0;
    if (slash && n == 0) n = 1; /* "/name": the root */
    if (!slash) return snprintf(dir, dir_size, ".") < (int)dir_size ? 0 : -1;
    if (n >= dir_size) return -1;
    memcpy(dir, path, n);
    dir[n] = '\0';
    return 0;
}

/* Whether the temporary file `name` (base.tmp.PID.N) in dir is left over: its process is gone, or it is
 * older than SF_FILE_TEMP_MAX_AGE_S (a process id that was reused, a file from another machine). */
static int temp_is_stale(const char* dir, const char* name, size_t base_len)
{
    unsigned long long pid;
    const char* rest;
    if (!sfi_temp_name_tail(name + base_len + 5 /* past "base.tmp." */, &pid, &rest) || *rest != '\0') return 0;
    char full[PATH_MAX];
    if (snprintf(full, sizeof full, "%s/%s", dir, name) >= (int)sizeof full) return 0;
    struct stat st;
    if (lstat(full, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    return sfi_temp_left_over(pid, st.st_mtime);
}

size_t sf_file_remove_stale_temps(const char* path)
{
    if (!path || !*path) return 0;
    char dir[PATH_MAX];
    const char* base;
    if (split_path(path, dir, sizeof dir, &base) != 0 || !*base) return 0;
    size_t base_len = strlen(base);
    DIR* d = opendir(dir);
    if (!d) return 0;
    size_t removed = 0;
    for (struct dirent* e = readdir(d); e; e = readdir(d)) {
        if (strncmp(e->d_name, base, base_len) != 0 || strncmp(e->d_name + base_len, ".tmp.", 5) != 0) continue;
        if (!temp_is_stale(dir, e->d_name, base_len)) continue;
        char full[PATH_MAX];
        if (snprintf(full, sizeof full, "%s/%s", dir, e->d_name) >= (int)sizeof full) continue;
        removed += unlink(full) == 0;
    }
    closedir(d);
    return removed;
}

sf_result sf_file_writer_open(const char* path, sf_file_writer** out, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(out != NULL, SF_ERROR_INVALID_ARGUMENT, err, "out", SFI_NO_INDEX, "is NULL");
    *out = NULL;
    SF_CHECK(path && *path, SF_ERROR_INVALID_ARGUMENT, err, "path", SFI_NO_INDEX, "is empty");
    size_t len = strlen(path);
    sf_file_writer* w = (sf_file_writer*)calloc(1, sizeof *w);
    size_t temp_size = len + 48;
    if (w) w->path = (char*)malloc(len + 1);
    if (w && w->path) w->temp_path = (char*)malloc(temp_size);
    if (!w || !w->path || !w->temp_path) {
        if (w) writer_free(w);
        return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "path", SFI_NO_INDEX, "%zu bytes", len);
    }
    memcpy(w->path, path, len + 1);
    sf_file_remove_stale_temps(path);
    int fd = create_temp(path, w->temp_path, temp_size);
    if (fd < 0) {
        int code = errno;
        writer_free(w);
        return io_error(err, "cannot create a file next to", path, code);
    }
    w->stream = fdopen(fd, "wb");
    if (!w->stream) {
        int code = errno;
        close(fd);
        unlink(w->temp_path);
        writer_free(w);
        return io_error(err, "cannot write", path, code);
    }
    *out = w;
    return SF_OK;
}

FILE* sf_file_writer_stream(sf_file_writer* writer) { return writer ? writer->stream : NULL; }

/* A stream whose write failed earlier keeps no errno: one more byte, flushed, fails the same way and says why
 * ("No space left on device" rather than a bare I/O error); the temporary file is removed anyway. */
static int stream_error_code(FILE* f)
{
    clearerr(f);
    errno = 0;
    if (fputc(0, f) == EOF || fflush(f) != 0) return errno ? errno : EIO;
    return EIO;
}

sf_result sf_file_writer_commit(sf_file_writer* w, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(w != NULL, SF_ERROR_INVALID_ARGUMENT, err, "writer", SFI_NO_INDEX, "is NULL");
    int code = 0;
    if (ferror(w->stream)) code = stream_error_code(w->stream);
    if (!code && fflush(w->stream) != 0) code = errno;
    if (!code && fsync(fileno(w->stream)) != 0) code = errno;
    if (fclose(w->stream) != 0 && !code) code = errno;
    if (!code && rename(w->temp_path, w->path) != 0) code = errno;
    if (code) unlink(w->temp_path);
    sf_result r = code ? io_error(err, "cannot write", w->path, code) : SF_OK;
    writer_free(w);
    return r;
}

void sf_file_writer_abort(sf_file_writer* w)
{
    if (!w) return;
    fclose(w->stream);
    unlink(w->temp_path);
    writer_free(w);
}

sf_result sf_file_write_atomic(const char* path, const void* data, size_t size, sf_error* err)
{
    SF_CHECK(data || size == 0, SF_ERROR_INVALID_ARGUMENT, err, "data", SFI_NO_INDEX, "is NULL");
    sf_file_writer* w;
    sf_result r = sf_file_writer_open(path, &w, err);
    if (r != SF_OK) return r;
    if (size && fwrite(data, 1, size, w->stream) != size) {
        int code = errno ? errno : EIO;
        sf_file_writer_abort(w);
        return io_error(err, "cannot write", path, code);
    }
    return sf_file_writer_commit(w, err);
}

int sf_file_same(const char* a, const char* b)
{
    struct stat sa, sb;
    return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Appends the relative components of rest to out (an absolute folder, resolved), removing "." and ".."
 * lexically: rest does not exist, so it holds no links to follow. */
static int append_lexically(char* out, size_t size, const char* rest)
{
    size_t n = strlen(out);
    while (*rest) {
        const char* e = rest;
        while (*e && *e != '/') e++;
        size_t len = (size_t)(e - rest);
        if (len == 2 && rest[0] == '.' && rest[1] == '.') {
            while (n > 1 && out[n - 1] != '/') n--;
            if (n > 1) n--;
            out[n] = '\0';
        } else if (len > 0 && !(len == 1 && rest[0] == '.')) {
            if (n + 1 + len + 1 > size) return -1;
            if (n > 1 || out[0] != '/') out[n++] = '/';
            memcpy(out + n, rest, len);
            n += len;
            out[n] = '\0';
        }
        rest = *e ? e + 1 : e;
    }
    return 0;
}

sf_result sf_file_resolve(const char* path, char* out, size_t size, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(path && *path, SF_ERROR_INVALID_ARGUMENT, err, "path", SFI_NO_INDEX, "is empty");
    SF_CHECK(out && size > 0, SF_ERROR_INVALID_ARGUMENT, err, "out", SFI_NO_INDEX, "is NULL or empty");
    char buf[PATH_MAX], resolved[PATH_MAX];
    if (realpath(path, resolved)) {
        if (strlen(resolved) >= size) return sf_error_set(err, SF_ERROR_IO, "path", SFI_NO_INDEX, "%s: path too long", path);
        memcpy(out, resolved, strlen(resolved) + 1);
        return SF_OK;
    }
    /* Not there (yet): the longest leading part that exists, resolved, then the rest as written. */
    if (path[0] == '/') {
        if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
            return sf_error_set(err, SF_ERROR_IO, "path", SFI_NO_INDEX, "%s: path too long", path);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) return io_error(err, "cannot resolve", path, errno);
        if (snprintf(buf, sizeof buf, "%s/%s", cwd, path) >= (int)sizeof buf)
            return sf_error_set(err, SF_ERROR_IO, "path", SFI_NO_INDEX, "%s: path too long", path);
    }
    size_t cut = strlen(buf);
    for (;;) {
        while (cut > 1 && buf[cut - 1] == '/') cut--;
        while (cut > 0 && buf[cut - 1] != '/') cut--; /* drop the last component */
        if (cut <= 1) {
            snprintf(resolved, sizeof resolved, "/");
            cut = 1;
            break;
        }
        char saved = buf[cut - 1];
        buf[cut - 1] = '\0';
        int ok = realpath(buf, resolved) != NULL;
        buf[cut - 1] = saved;
        if (ok) break;
    }
    if (append_lexically(resolved, sizeof resolved, buf + cut) != 0 || strlen(resolved) >= size)
        return sf_error_set(err, SF_ERROR_IO, "path", SFI_NO_INDEX, "%s: path too long", path);
    memcpy(out, resolved, strlen(resolved) + 1);
    return SF_OK;
}

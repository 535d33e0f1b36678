/* Atomic file replacement: a temporary file created next to the target with O_EXCL (mode 0666, so the
 * kernel applies the umask as for fopen), written, fsync'ed, then renamed over the target. */
#define _POSIX_C_SOURCE 200809L
#include "sf_common.h"
#include "skinframe_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

sf_result sf_file_writer_commit(sf_file_writer* w, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(w != NULL, SF_ERROR_INVALID_ARGUMENT, err, "writer", SFI_NO_INDEX, "is NULL");
    int code = 0;
    if (ferror(w->stream)) code = EIO;
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

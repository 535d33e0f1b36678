/* Reading a whole input file: regular files only (a FIFO, socket, device or folder is refused before it could
 * block), bounded by a size checked before reading, and optionally confined to a folder with every symbolic
 * link resolved. The buffer carries its allocated size in a 16-byte header, so sf_file_free needs no size. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "sf_common.h"
#include "skinframe_files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

#define HEADER 16 /* the allocation's total size sits before the data; keeps the data 16-byte aligned */

static const char* kind_name(mode_t mode)
{
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a plain file";
}

static sf_result not_regular(sf_error* err, const char* path, mode_t mode)
{
    return sf_error_set(err, SF_ERROR_IO, "path", SFI_NO_INDEX, "%s is not a regular file (%s)", path, kind_name(mode));
}

static sf_result cannot(sf_error* err, const char* what, const char* path, int code)
{
    return sf_error_set(err, SF_ERROR_IO, "path", SFI_NO_INDEX, "cannot %s %s: %s", what, path, strerror(code));
}

/* Room for cap bytes and a NUL, 16-byte aligned after the header. */
static uint8_t* buffer_alloc(const sf_env* env, size_t cap)
{
    if (cap > SIZE_MAX - HEADER - 1) return NULL;
    size_t total = HEADER + cap + 1;
    uint8_t* block = (uint8_t*)sf_env_alloc(env, total);
    if (!block) return NULL;
    memcpy(block, &total, sizeof total);
    return block + HEADER;
}

void sf_file_free(const sf_env* env, void* data)
{
    if (!data) return;
    uint8_t* block = (uint8_t*)data - HEADER;
    size_t total;
    memcpy(&total, block, sizeof total);
    sf_env_free(env, block, total);
}

/* 1 when the resolved path lies below the resolved folder. */
static int inside(const char* dir, const char* path)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/') return path[0] == '/' && path[1] != '\0';
    return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* Reads fd to its end into a buffer of at first `cap` bytes, growing up to limit + 1 bytes (so that a file
 * that grew past the limit is seen, without reading more than one byte beyond it). */
static sf_result read_all(int fd, const char* path, size_t cap, size_t limit, const sf_env* env, uint8_t** data,
                          size_t* size, sf_error* err)
{
    uint8_t* buf = buffer_alloc(env, cap);
    if (!buf) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "path", SFI_NO_INDEX, "%zu bytes for %s", cap, path);
    size_t n = 0;
    for (;;) {
        if (n == cap) {
            if (cap > limit) break; /* limit + 1 bytes are in: too large */
            size_t bigger = cap < limit / 2 ? 2 * cap + 4096 : limit + 1;
            if (bigger > limit + 1) bigger = limit + 1;
            uint8_t* grown = buffer_alloc(env, bigger);
            if (!grown) {
                sf_file_free(env, buf);
                return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "path", SFI_NO_INDEX, "%zu bytes for %s", bigger,
                                    path);
            }
            memcpy(grown, buf, n);
            sf_file_free(env, buf);
            buf = grown;
            cap = bigger;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            int code = errno;
            sf_file_free(env, buf);
            return cannot(err, "read", path, code);
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    if (n > limit) {
        sf_file_free(env, buf);
        return sf_error_set(err, SF_ERROR_IO, "max_bytes", SFI_NO_INDEX,
                            "%s is larger than %zu bytes (it grew while read)", path, limit);
    }
    buf[n] = '\0';
    *data = buf;
    *size = n;
    return SF_OK;
}

sf_result sf_file_read(const char* path, const sf_file_read_opts* opts, const sf_env* env, void** data, size_t* size,
                       sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(data && size, SF_ERROR_INVALID_ARGUMENT, err, data ? "size" : "data", SFI_NO_INDEX, "is NULL");
    *data = NULL;
    *size = 0;
    SF_CHECK(path && *path, SF_ERROR_INVALID_ARGUMENT, err, "path", SFI_NO_INDEX, "is empty");
    size_t limit = opts && opts->max_bytes ? opts->max_bytes : SIZE_MAX / 2;
    if (limit > SIZE_MAX / 2) limit = SIZE_MAX / 2;
    const char* open_path = path;
    char resolved[PATH_MAX];
    int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    if (opts && opts->confine_dir) {
        char dir[PATH_MAX];
        if (!realpath(opts->confine_dir, dir))
            return sf_error_set(err, SF_ERROR_INVALID_ARGUMENT, "confine_dir", SFI_NO_INDEX,
                                "cannot resolve the folder %s: %s", opts->confine_dir, strerror(errno));
        if (!realpath(path, resolved)) return cannot(err, "open", path, errno);
        if (!inside(dir, resolved))
            return sf_error_set(err, SF_ERROR_IO, "confine_dir", SFI_NO_INDEX, "%s resolves to %s, outside %s", path,
                                resolved, dir);
        open_path = resolved; /* has no links left (at the time of the check); one appearing now is not followed */
        flags |= O_NOFOLLOW;
    }
    /* stat first, so that a device or FIFO is never even opened (opening some devices has effects). */
    struct stat st;
    if (stat(open_path, &st) != 0) return cannot(err, "open", path, errno);
    if (!S_ISREG(st.st_mode)) return not_regular(err, path, st.st_mode);
    int fd = open(open_path, flags);
    if (fd < 0) return cannot(err, "open", path, errno);
    /* What was opened may differ from what was stat'ed: check the open file itself. */
    sf_result r = SF_OK;
    if (fstat(fd, &st) != 0)
        r = cannot(err, "stat", path, errno);
    else if (!S_ISREG(st.st_mode))
        r = not_regular(err, path, st.st_mode);
    else if (st.st_size < 0 || (uintmax_t)st.st_size > (uintmax_t)limit) {
        r = sf_error_set(err, SF_ERROR_IO, "max_bytes", SFI_NO_INDEX, "%s is larger than %zu bytes (it has %jd)", path,
                         limit, (intmax_t)st.st_size);
        if (err && (uintmax_t)st.st_size < (uintmax_t)SFI_NO_INDEX) err->index = (size_t)st.st_size;
    } else {
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) r = cannot(err, "read", path, errno);
    }
    if (r == SF_OK) {
        uint8_t* bytes = NULL;
        /* Room for one byte more than the size, to see at once whether the file grew. */
        r = read_all(fd, path, (size_t)st.st_size + 1 <= limit ? (size_t)st.st_size + 1 : limit + 1, limit, env,
                     &bytes, size, err);
        *data = bytes;
    }
    close(fd);
    return r;
}

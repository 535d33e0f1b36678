/* A folder of outputs written all or nothing: the files go into a new folder "DIR.tmp.PID.N" next to DIR, which
 * then takes DIR's place in one rename (renameat2 RENAME_NOREPLACE for a new DIR, RENAME_EXCHANGE for an
 * existing one; plain renames where the system has neither). Entries of an existing DIR that the new folder
 * does not hold are carried over first (hard links, so DIR is untouched until the exchange; a subfolder is
 * moved), and the replaced folder is removed after the exchange. */
#define _GNU_SOURCE /* renameat2 */
#include "sf_common.h"
#include "skinframe_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

struct sf_dir_stage {
    char dir[PATH_MAX];   /* the target, resolved */
    char stage[PATH_MAX]; /* the folder being written */
};

static sf_result stage_error(sf_error* err, const char* what, const char* path, int code)
{
    return sf_error_set(err, SF_ERROR_IO, "path", SFI_NO_INDEX, "%s %s: %s", what, path, strerror(code));
}

sf_result sf_dir_stage_open(const char* dir, sf_dir_stage** out, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(out != NULL, SF_ERROR_INVALID_ARGUMENT, err, "out", SFI_NO_INDEX, "is NULL");
    *out = NULL;
    SF_CHECK(dir && *dir, SF_ERROR_INVALID_ARGUMENT, err, "path", SFI_NO_INDEX, "is empty");
    sf_dir_stage* s = calloc(1, sizeof *s);
    if (!s) return sf_error_set(err, SF_ERROR_OUT_OF_MEMORY, "path", SFI_NO_INDEX, "stage for %s", dir);
    /* next to the resolved folder: a link at DIR's name is followed, so the folder it names is replaced */
    sf_result r = sf_file_resolve(dir, s->dir, sizeof s->dir, err);
    if (r != SF_OK) {
        free(s);
        return r;
    }
    size_t len = strlen(s->dir);
    while (len > 1 && s->dir[len - 1] == '/') s->dir[--len] = '\0';
    struct stat st;
    if (lstat(s->dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
        free(s);
        return sf_error_set(err, SF_ERROR_IO, "path", SFI_NO_INDEX, "%s exists and is not a folder", dir);
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    for (unsigned long attempt = 0; attempt < 100; ++attempt) {
        int n = snprintf(s->stage, sizeof s->stage, "%s.tmp.%ld.%lu", s->dir, (long)getpid(),
                         (unsigned long)now.tv_nsec + attempt * 7919u);
        if (n < 0 || (size_t)n >= sizeof s->stage) break;
        if (mkdir(s->stage, 0777) == 0) {
            *out = s;
            return SF_OK;
        }
        if (errno != EEXIST) break;
    }
    r = stage_error(err, "cannot create a folder next to", dir, errno ? errno : ENAMETOOLONG);
    free(s);
    return r;
}

const char* sf_dir_stage_path(const sf_dir_stage* stage) { return stage ? stage->stage : NULL; }

/* Removes the files directly in path and then the folder (what a stage or a replaced export holds); a
 * subfolder left inside keeps the folder. */
static void remove_flat(const char* path)
{
    DIR* d = opendir(path);
    if (!d) return;
    struct dirent* e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
    rmdir(path);
}

/* Entries of the existing folder that the stage does not hold: hard links beside the new files (the old
 * folder keeps its own until the exchange); a subfolder, which cannot be linked, is moved. */
static sf_result carry_over(const sf_dir_stage* s, sf_error* err)
{
    DIR* d = opendir(s->dir);
    if (!d) return errno == ENOENT ? SF_OK : stage_error(err, "cannot read the folder", s->dir, errno);
    int to = open(s->stage, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (to < 0) {
        closedir(d);
        return stage_error(err, "cannot open", s->stage, errno);
    }
    sf_result r = SF_OK;
    struct dirent* e;
    while (r == SF_OK && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        struct stat st;
        if (fstatat(to, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) continue; /* replaced by the new file */
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        int ok = S_ISDIR(st.st_mode) ? renameat(dirfd(d), e->d_name, to, e->d_name)
                                     : linkat(dirfd(d), e->d_name, to, e->d_name, 0);
        if (ok != 0 && !S_ISDIR(st.st_mode)) ok = renameat(dirfd(d), e->d_name, to, e->d_name);
        if (ok != 0) r = stage_error(err, "cannot keep", e->d_name, errno);
    }
    close(to);
    closedir(d);
    return r;
}

/* stage -> dir in one step where the system can: 0, or -1 with errno. *old names what dir held before
 * (to remove), empty when dir was new. */
static int swap_in(const sf_dir_stage* s, char* old, size_t old_size)
{
    old[0] = '\0';
    struct stat st;
    bool exists = lstat(s->dir, &st) == 0;
#ifdef RENAME_EXCHANGE
    if (renameat2(AT_FDCWD, s->stage, AT_FDCWD, s->dir, exists ? RENAME_EXCHANGE : RENAME_NOREPLACE) == 0) {
        if (exists) snprintf(old, old_size, "%s", s->stage);
        return 0;
    }
    if (errno != ENOSYS && errno != EINVAL) return -1;
#endif
    if (!exists) return rename(s->stage, s->dir);
    /* no exchange: the old folder steps aside, the new one takes its name, the old one comes back on failure */
    int n = snprintf(old, old_size, "%s.old", s->stage);
    if (n < 0 || (size_t)n >= old_size) return errno = ENAMETOOLONG, -1;
    if (rename(s->dir, old) != 0) return old[0] = '\0', -1;
    if (rename(s->stage, s->dir) != 0) {
        int code = errno;
        rename(old, s->dir);
        old[0] = '\0';
        errno = code;
        return -1;
    }
    return 0;
}

sf_result sf_dir_stage_commit(sf_dir_stage* stage, sf_error* err)
{
    sf_error_clear(err);
    SF_CHECK(stage != NULL, SF_ERROR_INVALID_ARGUMENT, err, "stage", SFI_NO_INDEX, "is NULL");
    int fd = open(stage->stage, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd); /* the new names are on disk before they replace the old ones */
        close(fd);
    }
    sf_result r = carry_over(stage, err);
    char old[PATH_MAX + 8];
    if (r == SF_OK && swap_in(stage, old, sizeof old) != 0)
        r = stage_error(err, "cannot move the new folder to", stage->dir, errno);
    if (r != SF_OK) {
        sf_dir_stage_abort(stage);
        return r;
    }
    if (old[0]) remove_flat(old);
    free(stage);
    return SF_OK;
}

void sf_dir_stage_abort(sf_dir_stage* stage)
{
    if (!stage) return;
    /* subfolders carried over go back where they were */
    DIR* d = opendir(stage->stage);
    int to = open(stage->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct dirent* e;
    while (d && to >= 0 && (e = readdir(d)) != NULL) {
        struct stat st;
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
            renameat(dirfd(d), e->d_name, to, e->d_name);
    }
    if (to >= 0) close(to);
    if (d) closedir(d);
    remove_flat(stage->stage);
    free(stage);
}

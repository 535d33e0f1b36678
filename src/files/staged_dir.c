/* A folder of outputs written all or nothing: the files go into a new folder "DIR.tmp.PID.N" next to DIR, which
 * then takes DIR's place in one rename (renameat2 RENAME_NOREPLACE for a new DIR, RENAME_EXCHANGE for an
 * existing one; plain renames where the system has neither). Entries of an existing DIR that the new folder
 * does not hold are carried over first (hard links, so DIR is untouched until the exchange; a subfolder is
 * moved), and the replaced folder is removed after the exchange. The stages of killed writers are cleaned up
 * when the next stage of the same DIR opens (sf_dir_stage_remove_stale). */
#define _GNU_SOURCE /* renameat2 */
#include "sf_common.h"
#include "skinframe_files.h"
#include "temp_names.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* Created in a stage before entries of the existing folder are carried into it, so that a stage left by a
 * kill tells whether it may hold DIR's own entries; removed from DIR after the swap, never carried over. */
#define STAGE_MARK ".skinframe-carrying"

struct sf_dir_stage {
    char dir[PATH_MAX];   /* the target, resolved */
    char stage[PATH_MAX]; /* the folder being written */
};

static sf_result stage_error(sf_error* err, const char* what, const char* path, int code)
{
    return sf_error_set(err, SF_ERROR_IO, "path", SFI_NO_INDEX, "%s %s: %s", what, path, strerror(code));
}

/* Whether `name` in parent is a stage of the folder named base (base.tmp.PID.N, or base.tmp.PID.N.old: the
 * folder a plain-rename swap set aside) left by a writer that is gone: a real folder (not a link) whose process
 * no longer runs, or older than SF_FILE_TEMP_MAX_AGE_S. Never this process's own unless old. */
static int stage_is_stale(int parent, const char* name, size_t base_len, int* set_aside)
{
    unsigned long long pid;
    const char* p;
    if (!sfi_temp_name_tail(name + base_len + 5 /* past "base.tmp." */, &pid, &p)) return 0;
    *set_aside = strcmp(p, ".old") == 0;
    if (*p && !*set_aside) return 0;
    struct stat st;
    if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode)) return 0;
    return sfi_temp_left_over(pid, st.st_mtime);
}

/* Cleans up the stale stage `name` of the folder `base` in parent: a set-aside folder whose DIR is missing
 * (killed between the two renames) goes back to DIR's name; otherwise subfolders that DIR lacks go back into
 * DIR, and the files are removed where they cannot be DIR's only copy: every file when no carry-over began
 * (no STAGE_MARK: new outputs, or the folder an exchange replaced), else those that DIR holds by name or
 * that have another link. The stage is removed when nothing is left in it. Returns 1 when it was removed
 * or restored. */
static int clean_stage(int parent, const char* base, const char* name, int set_aside)
{
    struct stat st;
    int has_dir = fstatat(parent, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (set_aside && !has_dir) return renameat(parent, name, parent, base) == 0;
    if (has_dir && !S_ISDIR(st.st_mode)) return 0;
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return 0;
    DIR* d = fdopendir(fd);
    if (!d) {
        close(fd);
        return 0;
    }
    int to = has_dir ? openat(parent, base, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    int marked = fstatat(fd, STAGE_MARK, &st, AT_SYMLINK_NOFOLLOW) == 0;
    size_t kept = 0;
    struct dirent* e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, STAGE_MARK)) continue;
        struct stat mine, theirs;
        if (fstatat(fd, e->d_name, &mine, AT_SYMLINK_NOFOLLOW) != 0) continue;
        int in_dir = to >= 0 && fstatat(to, e->d_name, &theirs, AT_SYMLINK_NOFOLLOW) == 0;
        if (S_ISDIR(mine.st_mode)) {
            if (to < 0 || in_dir || renameat(fd, e->d_name, to, e->d_name) != 0) kept++;
        } else if (!marked || in_dir || mine.st_nlink > 1) {
            if (unlinkat(fd, e->d_name, 0) != 0) kept++;
        } else {
            kept++; /* maybe one of DIR's own, moved in where it could not be linked: left for the user */
        }
    }
    if (to >= 0) close(to);
    closedir(d);
    if (kept) return 0;
    unlinkat(parent, name, 0); /* not a folder: no effect */
    char mark[PATH_MAX];
    if (snprintf(mark, sizeof mark, "%s/%s", name, STAGE_MARK) < (int)sizeof mark) unlinkat(parent, mark, 0);
    return unlinkat(parent, name, AT_REMOVEDIR) == 0;
}

size_t sf_dir_stage_remove_stale(const char* dir)
{
    if (!dir || !*dir) return 0;
    char path[PATH_MAX];
    size_t len = strlen(dir);
    if (len >= sizeof path) return 0;
    memcpy(path, dir, len + 1);
    while (len > 1 && path[len - 1] == '/') path[--len] = '\0';
    char* slash = strrchr(path, '/');
    const char* base = slash ? slash + 1 : path;
    const char* parent_path = slash ? (slash == path ? "/" : path) : ".";
    if (slash) *slash = '\0';
    size_t base_len = strlen(base);
    if (!base_len || !strcmp(base, ".") || !strcmp(base, "..")) return 0;
    int parent = open(parent_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (parent < 0) return 0;
    DIR* d = opendir(parent_path);
    size_t cleaned = 0;
    struct dirent* e;
    while (d && (e = readdir(d)) != NULL) {
        int set_aside = 0;
        if (strncmp(e->d_name, base, base_len) != 0 || strncmp(e->d_name + base_len, ".tmp.", 5) != 0) continue;
        if (stage_is_stale(parent, e->d_name, base_len, &set_aside))
            cleaned += (size_t)clean_stage(parent, base, e->d_name, set_aside);
    }
    if (d) closedir(d);
    close(parent);
    return cleaned;
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
    sf_dir_stage_remove_stale(s->dir);
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
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, STAGE_MARK)) continue;
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
    char mark[PATH_MAX + 32];
    snprintf(mark, sizeof mark, "%s/%s", stage->stage, STAGE_MARK);
    int mfd = open(mark, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    sf_result r = mfd < 0 ? stage_error(err, "cannot write in", stage->stage, errno) : SF_OK;
    if (mfd >= 0) close(mfd);
    if (r == SF_OK) r = carry_over(stage, err);
    char old[PATH_MAX + 8];
    if (r == SF_OK && swap_in(stage, old, sizeof old) != 0)
        r = stage_error(err, "cannot move the new folder to", stage->dir, errno);
    if (r != SF_OK) {
        sf_dir_stage_abort(stage);
        return r;
    }
    snprintf(mark, sizeof mark, "%s/%s", stage->dir, STAGE_MARK);
    unlink(mark);
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

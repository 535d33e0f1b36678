/* Batch over files: every .gltf/.glb under folders (walked recursively, sorted in byte order) and every other
 * path as given. */
#define _POSIX_C_SOURCE 200809L
#include "eval_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool sf_asset_path_is_dir(const char* path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool list_push(sf_asset_paths* l, const char* path)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        char** items = realloc(l->items, cap * sizeof *items);
        if (!items) return false;
        l->items = items, l->cap = cap;
    }
    size_t n = strlen(path) + 1;
    char* copy = malloc(n);
    if (!copy) return false;
    memcpy(copy, path, n);
    l->items[l->count++] = copy;
    return true;
}

static char* join(const char* dir, const char* name)
{
    size_t a = strlen(dir), b = strlen(name);
    bool slash = a > 0 && dir[a - 1] == '/';
    char* p = malloc(a + b + 2);
    if (p) snprintf(p, a + b + 2, "%s%s%s", dir, slash ? "" : "/", name);
    return p;
}

/* Case-insensitive suffix test ("A.GLB" ends with ".glb"). */
static bool ends_with(const char* text, const char* suffix)
{
    size_t n = strlen(text), m = strlen(suffix);
    if (m > n) return false;
    for (size_t i = 0; i < m; ++i) {
        char c = text[n - m + i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != suffix[i]) return false;
    }
    return true;
}

typedef struct walker {
    sf_asset_paths* list;
    sf_asset_paths_skip_fn on_skip;
    void* user;
} walker;

static void skip(const walker* w, const char* folder, sf_error* why)
{
    if (w->on_skip) w->on_skip(w->user, folder, why);
}

/* Every .gltf/.glb under dir. Folders reached through links are not entered (no cycles); files through links
 * are listed (the loader reads regular files only and says so). False when out of memory. */
static bool walk(const walker* w, const char* dir, int depth)
{
    sf_error why;
    DIR* d = opendir(dir);
    if (!d) { /* reported; the other folders are still searched */
        sfi_eval_fail(&why, SF_ERROR_IO, "cannot read folder %s: %s", dir, strerror(errno));
        skip(w, dir, &why);
        return true;
    }
    bool ok = true;
    struct dirent* e;
    while (ok && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char* p = join(dir, e->d_name);
        if (!p) {
            ok = false;
            break;
        }
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (depth + 1 >= SF_ASSET_MAX_DEPTH) {
                sfi_eval_fail(&why, SF_ERROR_TOO_LARGE, "%s: more than %d folders deep, not searched", p,
                              SF_ASSET_MAX_DEPTH);
                skip(w, p, &why);
            } else {
                ok = walk(w, p, depth + 1);
            }
        } else if (ends_with(e->d_name, ".gltf") || ends_with(e->d_name, ".glb")) {
            ok = list_push(w->list, p);
        }
        free(p);
    }
    closedir(d);
    return ok;
}

static int compare_paths(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

sf_result sf_asset_paths_collect(const char* const* paths, size_t count, sf_asset_paths_skip_fn on_skip, void* user,
                                 sf_asset_paths* out, sf_error* err)
{
    memset(out, 0, sizeof *out);
    walker w = {out, on_skip, user};
    for (size_t i = 0; i < count; ++i) {
        if (!sf_asset_path_is_dir(paths[i])) {
            if (!list_push(out, paths[i])) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
            continue;
        }
        size_t first = out->count;
        if (!walk(&w, paths[i], 0)) return sfi_eval_fail(err, SF_ERROR_OUT_OF_MEMORY, "out of memory");
        if (out->count > first) /* byte order */
            qsort(out->items + first, out->count - first, sizeof *out->items, compare_paths);
    }
    return SF_OK;
}

void sf_asset_paths_free(sf_asset_paths* list)
{
    for (size_t i = 0; i < list->count; ++i) free(list->items[i]);
    free(list->items);
    memset(list, 0, sizeof *list);
}

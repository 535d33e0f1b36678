/*
 * skinframe files: the one way the library and the command read and write files. Every output is written
 * to a new temporary file in the same folder and renamed over its name only when complete, so a reader never
 * sees half a file and a failed or killed write leaves the old file as it was. New files get the permissions
 * a plain fopen would give them (0666 less the process umask, applied by the kernel; the umask is never
 * changed). Inputs are read whole by sf_file_read: regular files only, never blocking, bounded in size and
 * optionally confined to a folder.
 * Temporary files are named "PATH.tmp.PID.N" (PID the writer's process id, N a number unique to the attempt).
 * A writer that is killed (or a disk that fills) before its commit cannot remove its own; the next writer of
 * the same PATH does (sf_file_remove_stale_temps), so at most one leftover per name lives until then. Layer: depends on the core (skinframe.h) for sf_result, sf_error and
 * sf_env; POSIX file I/O. Library skinframe_files (CMake skinframe::files).
 */
#ifndef SKINFRAME_FILES_H
#define SKINFRAME_FILES_H

#include "skinframe.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes size bytes to path atomically. Errors: SF_ERROR_INVALID_ARGUMENT (empty path), SF_ERROR_IO naming
 * path and the system's reason. */
sf_result sf_file_write_atomic(const char* path, const void* data, size_t size, sf_error* err);

/* A file written in pieces (CSV rows, streamed JSON), replaced atomically by sf_file_writer_commit. */
typedef struct sf_file_writer sf_file_writer;

/* A temporary file older than this (seconds since its last write) is left over even when a process with
 * its PID runs: process ids are reused, and a folder shared between machines holds other machines' PIDs. */
#define SF_FILE_TEMP_MAX_AGE_S (7.0 * 24.0 * 3600.0)

/* Removes the temporary files of earlier writers of path that were killed: the regular files named
 * "PATH.tmp.PID.N" (PID and N decimal, nothing after them) in path's folder whose process PID no longer
 * runs (kill(PID, 0) fails with ESRCH), or that are older than SF_FILE_TEMP_MAX_AGE_S. Never this process's
 * own (a writer in another thread may be using it) unless old, never another live process's, never another
 * name's or a link. Returns how many were removed (0 on any error: cleaning up is best effort).
 * sf_file_writer_open and sf_file_write_atomic call it first. */
size_t sf_file_remove_stale_temps(const char* path);

/* Creates the temporary file next to path (after sf_file_remove_stale_temps(path)). */
sf_result sf_file_writer_open(const char* path, sf_file_writer** out, sf_error* err);
/* The temporary file as a stdio stream, for fprintf and fwrite; errors surface at commit. */
FILE* sf_file_writer_stream(sf_file_writer* writer);
/* Flushes, syncs and renames the temporary file to the path; frees writer whatever the outcome (on failure
 * the temporary file is removed and the old file at path is untouched). */
sf_result sf_file_writer_commit(sf_file_writer* writer, sf_error* err);
/* Removes the temporary file and frees writer (NULL is ignored). */
void sf_file_writer_abort(sf_file_writer* writer);

/* A folder of outputs, all or nothing: sf_dir_stage_open creates a new folder "DIR.tmp.PID.N" next to dir
 * (dir resolved: a link at its name is followed), the caller writes its files into sf_dir_stage_path, and
 * sf_dir_stage_commit moves that folder to dir in one rename (renameat2 RENAME_NOREPLACE for a new dir,
 * RENAME_EXCHANGE for an existing one, plain renames where neither exists), so a reader, a kill or a full
 * disk sees the old folder or the new one, never a mix. Entries of an existing dir that the new folder does
 * not hold are kept (hard links made before the exchange; subfolders moved); the files it does hold replace
 * theirs; the replaced folder is then removed. Stages that killed writers left are cleaned up first
 * (sf_dir_stage_remove_stale). Errors:
 * SF_ERROR_IO (dir exists and is not a folder, cannot create or rename), SF_ERROR_INVALID_ARGUMENT,
 * SF_ERROR_OUT_OF_MEMORY. Commit and abort free the stage whatever the outcome; on failure dir is as it was. */
typedef struct sf_dir_stage sf_dir_stage;
sf_result sf_dir_stage_open(const char* dir, sf_dir_stage** out, sf_error* err);
const char* sf_dir_stage_path(const sf_dir_stage* stage);
sf_result sf_dir_stage_commit(sf_dir_stage* stage, sf_error* err);
void sf_dir_stage_abort(sf_dir_stage* stage); /* removes the stage and what was written there; NULL ignored */
/* Cleans up the stages of dir that killed writers left: the folders "DIR.tmp.PID.N" next to dir (and
 * "DIR.tmp.PID.N.old", the old folder a plain-rename swap set aside) whose process PID no longer runs or that
 * are older than SF_FILE_TEMP_MAX_AGE_S, as for temporary files; never this process's own unless old, a live
 * process's, another name's or a link. Nothing of dir's is lost: a set-aside folder whose dir is missing is
 * renamed back to dir; subfolders that dir lacks are moved back into it; files are removed only where they
 * cannot be dir's only copy (all of them when the writer had not begun carrying dir's entries over, else those
 * dir also holds by name or that have another link); a stage that keeps anything stays. Returns how many
 * stages were removed or restored (best effort: errors leave a stage as it is). sf_dir_stage_open calls it. */
size_t sf_dir_stage_remove_stale(const char* dir);

/* Reading a whole file. */
typedef struct sf_file_read_opts {
    /* NULL: any path. Else the file must lie inside this folder once every symbolic link in both paths is
     * resolved (realpath of the folder and of the file): "textures/x.png" where textures -> /etc, or a link
     * x.bin -> ../../secret, is refused. The check and the open are separate steps, so a folder that someone
     * else changes in between is not covered. */
    const char* confine_dir;
    size_t max_bytes; /* refuse larger files; 0 = no limit. The size is checked before reading, and never
                         more than max_bytes + 1 bytes are read, even from a file that grows meanwhile */
} sf_file_read_opts;

/* Reads the file at path into memory allocated through env (NULL = defaults): *data holds *size bytes and
 * one NUL byte after them (text can be parsed in place); free it with sf_file_free. Only regular files are
 * read: a FIFO, socket, device or folder is refused at once, never blocking (stat, then open with
 * O_NONBLOCK, fstat, and O_NONBLOCK cleared for the reads). opts NULL = no folder, no limit.
 * Errors, with err->field saying which rule failed:
 *   SF_ERROR_IO "path"         cannot be opened or read, or is not a regular file (the message says what it is)
 *   SF_ERROR_IO "confine_dir"  resolves outside opts->confine_dir
 *   SF_ERROR_IO "max_bytes"    larger than opts->max_bytes; err->index = the file's size (SIZE_MAX when the
 *                              file grew past the limit while it was read)
 *   SF_ERROR_INVALID_ARGUMENT  path empty, data or size NULL, or opts->confine_dir cannot be resolved
 *   SF_ERROR_OUT_OF_MEMORY */
sf_result sf_file_read(const char* path, const sf_file_read_opts* opts, const sf_env* env, void** data,
                       size_t* size, sf_error* err);
/* Frees what sf_file_read returned, with the same env (data may be NULL). */
void sf_file_free(const sf_env* env, void* data);

/* 1 when both paths exist and name the same file (any spelling, links included), else 0. */
int sf_file_same(const char* a, const char* b);

/* The absolute form of path in out (size bytes, NUL included): realpath when path exists (every link
 * resolved); otherwise the longest leading part that exists, resolved, followed by the rest of path with
 * "." and ".." removed as written (nothing there to follow). So two spellings of one file, existing or
 * about to be written, resolve to the same text. Errors: SF_ERROR_INVALID_ARGUMENT (path empty, out NULL),
 * SF_ERROR_IO (too long for out or PATH_MAX, no current folder). Does not allocate. */
sf_result sf_file_resolve(const char* path, char* out, size_t size, sf_error* err);

#ifdef __cplusplus
}
#endif

#endif /* SKINFRAME_FILES_H */

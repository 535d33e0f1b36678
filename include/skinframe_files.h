/*
 * skinframe files: the one way the library and the command read and write files. Every output is written
 * to a new temporary file in the same folder and renamed over its name only when complete, so a reader never
 * sees half a file and a failed or killed write leaves the old file as it was. New files get the permissions
 * a plain fopen would give them (0666 less the process umask, applied by the kernel; the umask is never
 * changed). Inputs are read whole by sf_file_read: regular files only, never blocking, bounded in size and
 * optionally confined to a folder. Layer: depends on the core (skinframe.h) for sf_result, sf_error and
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

/* Creates the temporary file next to path. */
sf_result sf_file_writer_open(const char* path, sf_file_writer** out, sf_error* err);
/* The temporary file as a stdio stream, for fprintf and fwrite; errors surface at commit. */
FILE* sf_file_writer_stream(sf_file_writer* writer);
/* Flushes, syncs and renames the temporary file to the path; frees writer whatever the outcome (on failure
 * the temporary file is removed and the old file at path is untouched). */
sf_result sf_file_writer_commit(sf_file_writer* writer, sf_error* err);
/* Removes the temporary file and frees writer (NULL is ignored). */
void sf_file_writer_abort(sf_file_writer* writer);

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

#ifdef __cplusplus
}
#endif

#endif /* SKINFRAME_FILES_H */

/*
 * skinframe files: the one way the library and the command write files. Every output is written to a new
 * temporary file in the same folder and renamed over its name only when complete, so a reader never sees
 * half a file and a failed or killed write leaves the old file as it was. New files get the permissions a
 * plain fopen would give them (0666 less the process umask, applied by the kernel; the umask is never
 * changed). Layer: depends on the core (skinframe.h) for sf_result and sf_error; POSIX file I/O.
 * Library skinframe_files (CMake skinframe::files).
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

/* 1 when both paths exist and name the same file (any spelling, links included), else 0. */
int sf_file_same(const char* a, const char* b);

#ifdef __cplusplus
}
#endif

#endif /* SKINFRAME_FILES_H */

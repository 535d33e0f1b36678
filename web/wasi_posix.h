/* The POSIX call the files layer makes that WASI lacks (realpath), declared for its wasm build (web/CMakeLists.txt
 * forces this header in) and defined in web/wasi_posix.c: the page hands the library bytes, never paths, so
 * it only fails. */
#ifndef SKINFRAME_WEB_WASI_POSIX_H
#define SKINFRAME_WEB_WASI_POSIX_H

char* realpath(const char* path, char* resolved);

#endif

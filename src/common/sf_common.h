/* Helpers every layer of the library uses (core, scenes, glTF, pictures, files), written over the core's
 * public API only: the validation macro, the "no index" marker and strided stream access. Not installed. */
#ifndef SF_COMMON_H
#define SF_COMMON_H

#include "skinframe.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SFI_NO_INDEX ((size_t)-1)

/* Validation: return an error naming the field unless cond holds. */
#define SF_CHECK(cond, code, err, field, index, ...)                                   \
    do {                                                                               \
        if (!(cond)) return sf_error_set((err), (code), (field), (index), __VA_ARGS__); \
    } while (0)

/* A stream element pointer: stride 0 = packed elements of `packed` bytes. */
static inline const float* sfi_stream_at(sf_stream s, size_t packed, size_t i)
{
    size_t stride = s.stride ? s.stride : packed;
    return (const float*)(const void*)((const char*)(const void*)s.data + stride * i);
}

#endif /* SF_COMMON_H */

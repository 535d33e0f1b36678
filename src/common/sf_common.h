/* Helpers every layer of the library uses (core, scenes, glTF, pictures, files), written over the core's
 * public API only: the validation macro, the "no index" marker, strided stream access and which methods read the
 * gradients. Not installed. */
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

/* Whether a method reads the topology's weight and morph gradients: its cost class (jacobian, jacobian-fan). */
static inline bool sfi_method_uses_gradients(sf_method method)
{
    return sf_method_traits_of(method).cost == SF_COST_GRADIENTS;
}

/* Whether any method of a set (bit m for method m) does. */
static inline bool sfi_methods_use_gradients(uint32_t methods)
{
    for (unsigned m = 0; m < SF_METHOD_COUNT; ++m)
        if ((methods >> m & 1u) && sfi_method_uses_gradients((sf_method)m)) return true;
    return false;
}

#endif /* SF_COMMON_H */

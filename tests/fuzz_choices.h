/* The fuzz targets' choices drawn from their input: an FNV-1a hash of the bytes seeds splitmix64 steps, so one
 * input always makes the same choices, in a fixed order. */
#ifndef SF_FUZZ_CHOICES_H
#define SF_FUZZ_CHOICES_H

#include <stddef.h>
#include <stdint.h>

typedef struct bits {
    uint64_t h;
} bits;

static inline uint64_t hash_bytes(const uint8_t* data, size_t size)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
    return h;
}

/* One of choices (0 .. choices - 1). */
static inline unsigned take(bits* b, unsigned choices)
{
    uint64_t z = (b->h += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (unsigned)((z ^ (z >> 31)) % choices);
}

#endif /* SF_FUZZ_CHOICES_H */

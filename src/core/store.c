/* Storage helpers below every builder: counted allocations for the topology's arrays, and the block list
 * a workspace is taken from (measured first, then allocated with the same takes). */
#include "sf_internal.h"

#include <string.h>

void* sfi_store_alloc(sfi_store* store, size_t count, size_t elem)
{
    void* p = sf_env_calloc(store->env, count, elem);
    if (p) store->bytes += count * elem;
    return p;
}

void sfi_store_free(const sfi_store* store, void* p) { sf_env_free(store->env, p, 0); }

void* sfi_blocks_take(sfi_blocks* blocks, size_t count, size_t elem)
{
    if (blocks->failed) return NULL;
    if (elem && count > SIZE_MAX / elem) {
        blocks->failed = true;
        return NULL;
    }
    /* what sf_env_calloc asks the allocator for: an empty array still takes one byte (never NULL) */
    size_t size = count * elem;
    if (size == 0) size = 1;
    if (blocks->bytes > SIZE_MAX - size) {
        blocks->failed = true;
        return NULL;
    }
    if (blocks->count == SFI_MAX_BLOCKS) { /* the same on both passes: measuring fails too */
        blocks->failed = true;
        return NULL;
    }
    blocks->bytes += size;
    if (!blocks->env) {
        blocks->count++;
        return NULL;
    }
    void* p = sf_env_calloc(blocks->env, size, 1);
    if (!p) {
        blocks->failed = true;
        return NULL;
    }
    blocks->list[blocks->count++] = p;
    return p;
}

void sfi_blocks_free(sfi_blocks* blocks)
{
    if (!blocks->env) return;
    for (size_t i = blocks->count; i-- > 0;) sf_env_free(blocks->env, blocks->list[i], 0);
    blocks->count = 0;
}

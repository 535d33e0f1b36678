/* Backend names, tables and availability. The CUDA table comes from cuda/backend_cuda.cu (SF_WITH_CUDA=ON)
 * or from backend_cuda_stub.c. */
#include "sf_internal.h"

#include <string.h>

/* Indexed by sf_backend. */
static const sfi_backend_i* const backends[] = {&sfi_backend_cpu, &sfi_backend_cuda};
#define BACKEND_COUNT (sizeof backends / sizeof backends[0])

const sfi_backend_i* sfi_backend_of(sf_backend backend)
{
    return (unsigned)backend < BACKEND_COUNT ? backends[backend] : NULL;
}

const char* sf_backend_name(sf_backend backend)
{
    return (unsigned)backend < BACKEND_COUNT ? backends[backend]->name : "?";
}

sf_result sf_backend_parse(const char* name, sf_backend* out)
{
    for (size_t b = 0; b < BACKEND_COUNT; ++b) {
        if (name && strcmp(name, backends[b]->name) == 0) {
            if (out) *out = (sf_backend)b;
            return SF_OK;
        }
    }
    return SF_ERROR_UNKNOWN_NAME;
}

sf_result sf_backend_check(sf_backend backend, sf_error* err)
{
    sf_error_clear(err);
    const sfi_backend_i* be = sfi_backend_of(backend);
    if (!be)
        return sf_error_set(err, SF_ERROR_INVALID_ARGUMENT, "backend", SFI_NO_INDEX, "%d is not a backend",
                            (int)backend);
    return be->check(err);
}

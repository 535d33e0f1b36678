/* Backend names and availability. The CUDA entry points come from cuda/backend_cuda.cu (SF_WITH_CUDA=ON)
 * or from backend_cuda_stub.c. */
#include "sf_internal.h"

#include <string.h>

static const char* const backend_names[] = {"cpu", "cuda"};
#define BACKEND_COUNT (sizeof backend_names / sizeof backend_names[0])

const char* sf_backend_name(sf_backend backend)
{
    return (unsigned)backend < BACKEND_COUNT ? backend_names[backend] : "?";
}

sf_result sf_backend_parse(const char* name, sf_backend* out)
{
    for (size_t b = 0; b < BACKEND_COUNT; ++b) {
        if (name && strcmp(name, backend_names[b]) == 0) {
            if (out) *out = (sf_backend)b;
            return SF_OK;
        }
    }
    return SF_ERROR_UNKNOWN_NAME;
}

sf_result sf_backend_check(sf_backend backend, sf_error* err)
{
    sf_error_clear(err);
    switch (backend) {
    case SF_BACKEND_CPU:
        return SF_OK;
    case SF_BACKEND_CUDA:
        return sfi_cuda_check(err);
    default:
        return sf_error_set(err, SF_ERROR_INVALID_ARGUMENT, "backend", SFI_NO_INDEX, "%d is not a backend",
                            (int)backend);
    }
}

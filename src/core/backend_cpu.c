/* The CPU backend's table: the host's passes (frames.c and below), nothing on a device. */
#include "sf_internal.h"

static sf_result cpu_check(sf_error* err)
{
    sf_error_clear(err);
    return SF_OK;
}

const sfi_backend_i sfi_backend_cpu = {
    "cpu", cpu_check, SFI_SCRATCH_HOST, NULL, NULL, NULL, sfi_frames_cpu, NULL, NULL, NULL, NULL, NULL, NULL,
};

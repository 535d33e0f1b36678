/* Weld groups (production reference issue). Until then no groups are built and welding is refused. */
#include "sf_internal.h"

sf_result sfi_weld_build(sf_topology* topo, float normal_cos, sf_error* err)
{
    (void)topo;
    (void)normal_cos;
    (void)err;
    return SF_OK;
}

void sfi_weld_free(sf_topology* topo) { (void)topo; }

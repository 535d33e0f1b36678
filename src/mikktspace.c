/* MikkTSpace-compatible tangents (production reference issue): not built yet. */
#include "sf_internal.h"

sf_result sfi_mikktspace_tangents(const sf_topology* topo, const float* positions, const float* normals,
                                  sf_workspace* ws, float* tangents, sf_error* err)
{
    (void)topo;
    (void)positions;
    (void)normals;
    (void)ws;
    (void)tangents;
    return sfi_fail(err, SF_ERROR_UNSUPPORTED, "opts.tangents", SFI_NO_INDEX, "mikktspace is not implemented yet");
}

/* `recompute`, the reference: the frames rebuilt from the final triangles (rebuild.c), or, with
 * SF_REFERENCE_AUTHORED, the mesh's own directions carried along (authored.c). */
#include "sf_internal.h"

sf_result sfi_recompute(const sf_topology* topo, const sf_frames_opts* opts, sf_workspace* ws, float* normals,
                        float* tangents, sf_error* err)
{
    if (opts->reference == SF_REFERENCE_AUTHORED) return sfi_authored_frames(topo, opts, ws, normals, tangents, err);
    return sfi_rebuild(topo, opts, ws, ws->final_pos, ws->det, normals, tangents, err);
}

/* Which compressed-geometry decoders this build of the glTF layer holds (sf_gltf_decoders). */
#include "gltf_compressed.h"
#include "skinframe_gltf.h"

#if defined(SF_WITH_MESHOPT)
#define SF_DECODER_MESHOPT SFI_MESHOPT_EXT " (meshoptimizer " SF_MESHOPT_VERSION ")"
#else
#define SF_DECODER_MESHOPT ""
#endif
#if defined(SF_WITH_MESHOPT) && defined(SF_WITH_DRACO)
#define SF_DECODER_SEPARATOR ", "
#else
#define SF_DECODER_SEPARATOR ""
#endif
#if defined(SF_WITH_DRACO)
#define SF_DECODER_DRACO SFI_DRACO_EXT " (draco " SF_DRACO_VERSION ")"
#else
#define SF_DECODER_DRACO ""
#endif

const char* sf_gltf_decoders(void)
{
#if defined(SF_WITH_MESHOPT) || defined(SF_WITH_DRACO)
    return SF_DECODER_MESHOPT SF_DECODER_SEPARATOR SF_DECODER_DRACO;
#else
    return "none";
#endif
}

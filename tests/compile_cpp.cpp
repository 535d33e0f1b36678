// Checks that the public header and the shared kernels compile as C++ and link.
#include "skinframe.h"
#include "skinframe_files.h"
#include "skinframe_gltf.h"
#include "skinframe_render.h"
#include "skinframe_scenes.h"
#include "sf_kernels.h"

int main()
{
    float n[3] = {0.0f, 3.0f, 4.0f}, u[3];
    sfk_safe_unit(n, u);
    const bool ok = sf_result_string(SF_OK)[0] == 'o' && u[2] > 0.79f && u[2] < 0.81f &&
                    sf_method_name(SF_METHOD_RECOMPUTE)[0] == 'r';
    return ok ? 0 : 1;
}

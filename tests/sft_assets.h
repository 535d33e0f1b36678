/* The staged glTF test assets as meshes to check: every primitive of every mesh instance of the test assets,
 * posed at the middle of its first animation (or at rest), each with its own topology. */
#ifndef SFT_ASSETS_H
#define SFT_ASSETS_H

#include "skinframe.h"

typedef void sft_primitive_fn(const sf_topology* topo, const sf_pose* pose, const char* where, void* user);

/* Calls fn for each staged primitive (where: "FILE instance I primitive P"); a load or pose that fails is a
 * test failure. Returns the number of asset files found (0 where SF_ASSETS is unset: the caller says it skipped). */
int sft_each_staged_primitive(sft_primitive_fn* fn, void* user);

#endif

/* The staged glTF test assets as meshes to check: every primitive of every mesh instance of the test assets,
 * posed at the middle of its first animation (or at rest), each with its own topology. */
#ifndef SFT_ASSETS_H
#define SFT_ASSETS_H

#include "skinframe.h"
#include "skinframe_gltf.h"

typedef void sft_primitive_fn(const sf_topology* topo, const sf_pose* pose, const char* where, void* user);

/* Calls fn for each staged primitive (where: "FILE instance I primitive P"); a load or pose that fails is a
 * test failure. Returns the number of asset files found (0 where SF_ASSETS is unset: the caller says it skipped). */
int sft_each_staged_primitive(sft_primitive_fn* fn, void* user);

/* The asset at rel (under SF_ASSETS) loaded into *g and, where gp is not NULL, a pose sampler on it into *gp: 1.
 * 0 (both NULL) when it is not staged (sft_skip(skip_why), a static string) or does not load (a test failure). */
int sft_load_staged(const char* rel, const char* skip_why, sf_gltf** g, sf_gltf_pose** gp);

#endif

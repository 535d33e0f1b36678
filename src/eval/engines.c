/* Engine presets: the defaults of widely used engines and runtimes, each choice cited in docs/engines.md (keep
 * the two in step). Versions are the ones whose source the document quotes. And the cost levels of methods. */
#include "skinframe_eval.h"

#include <string.h>

static const sf_engine engines[] = {
    /* skinnormal_vertex.glsl.js: normal and tangent by the blended skinMatrix; GLTFLoader maps JOINTS_0/WEIGHTS_0
     * only (whatever weight the later sets hold) and SkinnedMesh.normalizeSkinWeights divides them by their sum
     * ((1, 0, 0, 0) where it is 0); morph targets through a texture (no cap); morph NORMAL, no morph TANGENT;
     * no TANGENT: derivatives; no NORMAL: GLTFLoader sets material.flatShading, the fragment's normal is the
     * cross product of the view position's derivatives, the deformed triangle's face normal; rotation keys:
     * QuaternionLinearInterpolant's Quaternion.slerpFlat, unit only in its lerp branch, Matrix4.compose as is */
    {"three.js", "three.js", SF_METHOD_SKINNED, 4, 0, SF_MORPH_DIRECTIONS_NORMALS, SF_ENGINE_TANGENTS_DERIVATIVES,
     true, true, false, SF_GLTF_ROTATIONS_THREE},
    /* default.vertex.fx: normalWorld = mat3(finalWorld) (the blend); the loader reads JOINTS_1/WEIGHTS_1 into the
     * extra pair (numBoneInfluencers 8); morph targets in textures by default (MaxActiveMorphTargetsInVertexAttributeMode
     * = 8 only without); normals and tangents morphed; no TANGENT: cotangent frame from derivatives; no NORMAL:
     * pbrBlockNormalGeometric's normalize(cross(dFdx(vPositionW), dFdy(vPositionW))), the face normal; rotation keys:
     * Quaternion.SlerpToRef (lerp branch not normalised), Matrix.ComposeToRef as is */
    {"babylon.js", "Babylon.js", SF_METHOD_SKINNED, 8, 0, SF_MORPH_DIRECTIONS_DELTAS,
     SF_ENGINE_TANGENTS_DERIVATIVES, false, true, false, SF_GLTF_ROTATIONS_BABYLON},
    /* skeleton.glsl: normal and tangent by the blended matrix, 4 or 8 bones (the importer joins JOINTS_0 and
     * JOINTS_1, weights divided by the sum of all 8); every blend shape, normals and tangents blended; the glTF
     * importer generates MikkTSpace tangents; rotation keys made unit at import (_decode_accessor_as_quaternion) */
    {"godot", "Godot 4", SF_METHOD_SKINNED, 8, 0, SF_MORPH_DIRECTIONS_DELTAS, SF_ENGINE_TANGENTS_MIKKTSPACE, false,
     false, false, SF_GLTF_ROTATIONS_UNIT},
    /* skinning.wesl: skin_normals = inverse_transpose_3x3 of the blended matrix, skin_model sums four weighted
     * joint matrices as stored; the loader reads Joints(0)/Weights(0) only; MAX_MORPH_WEIGHTS = 64; morph normals
     * and tangents; missing tangents generated with mikktspace; no NORMAL: flat normals at import
     * (duplicate_vertices, compute_flat_normals); rotation keys: Quat::from_array as given, glam's slerp */
    {"bevy", "Bevy", SF_METHOD_INVERSE_TRANSPOSE, 4, 64, SF_MORPH_DIRECTIONS_DELTAS, SF_ENGINE_TANGENTS_MIKKTSPACE,
     true, false, true, SF_GLTF_ROTATIONS_GLAM},
    /* surface_getters.vs: sum of w * normalize(cof(bone) n); gltfio's AssetLoader skips JOINTS_1/WEIGHTS_1 ("Too
     * many joints") and ResourceLoader's normalizeSkinningWeights divides the four by their sum;
     * CONFIG_MAX_MORPH_TARGET_COUNT = 256; the tangent frame (quaternion) is morphed whole; no NORMAL: flat normals
     * generated at load; rotation keys: Animator's slerp, which normalises its result */
    {"filament", "Filament", SF_METHOD_BONE_NORMAL_MATRICES, 4, 256, SF_MORPH_DIRECTIONS_DELTAS,
     SF_ENGINE_TANGENTS_MIKKTSPACE, true, false, false, SF_GLTF_ROTATIONS_UNIT},
    /* QualitySettings.skinWeights: Four Bones by default; the skinning matrix applied to normal and tangent;
     * every blend shape with its normal and tangent deltas; the importer's default tangents: MikkTSpace */
    {"unity", "Unity", SF_METHOD_SKINNED, 4, 0, SF_MORPH_DIRECTIONS_DELTAS, SF_ENGINE_TANGENTS_MIKKTSPACE, false,
     false, false, SF_GLTF_ROTATIONS_UNIT},
};

#define ENGINE_COUNT (sizeof engines / sizeof engines[0])

size_t sf_engine_count(void) { return ENGINE_COUNT; }
const sf_engine* sf_engine_at(size_t i) { return i < ENGINE_COUNT ? &engines[i] : NULL; }

const sf_engine* sf_engine_find(const char* name)
{
    for (size_t i = 0; name && i < ENGINE_COUNT; ++i)
        if (strcmp(engines[i].name, name) == 0) return &engines[i];
    return NULL;
}

const char* sf_engine_names(void)
{
    static char list[256];
    if (!list[0])
        for (size_t i = 0; i < ENGINE_COUNT; ++i) {
            if (i) strncat(list, ", ", sizeof list - strlen(list) - 1);
            strncat(list, engines[i].name, sizeof list - strlen(list) - 1);
        }
    return list;
}

sf_method_cost sf_cost_of(sf_method method)
{
    return sf_method_traits_of(method).cost;
}

const char* sf_cost_name(sf_method_cost level)
{
    static const char* const names[] = {"per vertex (no neighbours)", "per vertex + precomputed gradients",
                                        "neighbours every frame (gather)"};
    return (unsigned)level < SF_COST_LEVELS ? names[level] : "?";
}

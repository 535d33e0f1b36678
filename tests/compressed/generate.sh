#!/usr/bin/env bash
# Compresses every staged asset both ways, for tests/test_compressed.c and the page's browser test:
#   generate.sh ASSETS_DIR OUT_DIR [NAME...]     (every staged asset unless NAMEs are given)
# The npm tools (package.json, pinned in package-lock.json) are installed into OUT_DIR/npm, never into the
# source tree. Per asset NAME it writes
#   NAME.packed.glb     gltfpack -noq      gltfpack's processing without compression: the source of its files
#                                          (it merges vertices that differ only by float noise in the normal)
#   NAME.meshopt.glb    gltfpack -c -noq   EXT_meshopt_compression, no quantization (lossless)
#   NAME.meshoptq.glb   gltfpack -cc       EXT_meshopt_compression + KHR_mesh_quantization and the filters
#   NAME.draco.glb      glTF-Transform draco (edgebreaker, its default quantization bits)
#   NAME.dracoseq.glb   glTF-Transform draco --method sequential (vertex order kept)
#   NAME.KIND.plain.glb each of those decoded by glTF-Transform copy (an independent decoder, for `fix`; made for
#                       CesiumMan, Fox and MorphStressTest, the files test_compressed's fix cases read)
# Exits 77 when node or npm is missing or the tools cannot be installed (the test then skips).
set -euo pipefail
assets=$1
out=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || { echo "node/npm missing" >&2; exit 77; }
mkdir -p "$out/npm"
if [ ! -x "$out/npm/node_modules/.bin/gltfpack" ] || [ ! -x "$out/npm/node_modules/.bin/gltf-transform" ]; then
  cp "$here/package.json" "$here/package-lock.json" "$out/npm/"
  (cd "$out/npm" && npm ci --no-audit --no-fund --silent >/dev/null 2>&1) || { echo "npm ci failed in $out/npm" >&2; exit 77; }
fi
bin=$out/npm/node_modules/.bin
for src in AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb CesiumMan/glTF-Binary/CesiumMan.glb Fox/glTF-Binary/Fox.glb \
    InterpolationTest/glTF-Binary/InterpolationTest.glb MorphStressTest/glTF-Binary/MorphStressTest.glb \
    NormalTangentMirrorTest/glTF-Binary/NormalTangentMirrorTest.glb NormalTangentTest/glTF-Binary/NormalTangentTest.glb \
    SimpleMorph/glTF/SimpleMorph.gltf SimpleSkin/glTF/SimpleSkin.gltf SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf; do
  name=$(basename "${src%.*}")
  in=$assets/$src
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
  [ -s "$out/$name.packed.glb" ] || "$bin/gltfpack" -i "$in" -o "$out/$name.packed.glb" -noq >/dev/null
  [ -s "$out/$name.meshopt.glb" ] || "$bin/gltfpack" -i "$in" -o "$out/$name.meshopt.glb" -c -noq >/dev/null
  [ -s "$out/$name.meshoptq.glb" ] || "$bin/gltfpack" -i "$in" -o "$out/$name.meshoptq.glb" -cc >/dev/null
  [ -s "$out/$name.draco.glb" ] || "$bin/gltf-transform" draco "$in" "$out/$name.draco.glb" >/dev/null
  [ -s "$out/$name.dracoseq.glb" ] ||
    "$bin/gltf-transform" draco "$in" "$out/$name.dracoseq.glb" --method sequential >/dev/null
  case $name in CesiumMan | Fox | MorphStressTest) ;; *) continue ;; esac
  for kind in meshopt meshoptq draco dracoseq; do
    [ -s "$out/$name.$kind.plain.glb" ] ||
      "$bin/gltf-transform" copy "$out/$name.$kind.glb" "$out/$name.$kind.plain.glb" >/dev/null 2>&1
  done
done
exit 0

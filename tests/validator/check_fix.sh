#!/usr/bin/env bash
# skinframe fix over the staged assets, each output validated by the Khronos glTF validator against its input
# (check_fix.mjs): no errors, no new warnings; and CesiumMan given a normal map (normal_mapped.mjs), whose fix
# splits vertices for its tangents. check_fix.sh SKINFRAME ASSETS_DIR OUT_DIR
# The validator (package.json, pinned in package-lock.json) is installed into OUT_DIR/npm, never into the
# source tree. Without node/npm it exits 77 (skipped), or 1 under CI=true.
set -euo pipefail
cli=$1
assets=$2
out=$3
here=$(cd "$(dirname "$0")" && pwd)
missing() { echo "$1" >&2; [ "${CI:-}" = true ] && exit 1; exit 77; }
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || missing "node/npm missing: the validator cannot run"
mkdir -p "$out/npm"
if [ ! -d "$out/npm/node_modules/gltf-validator" ]; then
  cp "$here/package.json" "$here/package-lock.json" "$out/npm/"
  (cd "$out/npm" && npm ci --no-audit --no-fund --silent >/dev/null 2>&1) || missing "npm ci failed in $out/npm"
fi
cp "$here/check_fix.mjs" "$out/npm/"
mkdir -p "$out/fixed"
pairs=()
while IFS= read -r in; do
  rel=${in#"$assets"/}
  dst=$out/fixed/${rel//\//_}
  "$cli" fix "$in" -o "$dst" --no-measure --force >/dev/null
  pairs+=("$in" "$dst")
done < <(find "$assets" -name '*.glb' -o -name '*.gltf' | LC_ALL=C sort)
# CesiumMan with a normal map: fix generates TANGENT, splitting the vertices whose corners MikkTSpace parts
mapped=$out/fixed/CesiumMan.normal-mapped.glb
node "$here/normal_mapped.mjs" "$assets/CesiumMan/glTF-Binary/CesiumMan.glb" "$mapped"
"$cli" fix "$mapped" -o "$out/fixed/CesiumMan.normal-mapped.fixed.glb" --no-measure --force >/dev/null
pairs+=("$mapped" "$out/fixed/CesiumMan.normal-mapped.fixed.glb")
node "$out/npm/check_fix.mjs" "${pairs[@]}"

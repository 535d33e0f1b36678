#!/usr/bin/env bash
# The Blender add-on's tests under ctest: the add-on's zip (with the module the python test built), installed into a
# Blender started headless with its user folders under BUILD/blender, then test_addon.py. Skipped (exit 77) with
# the reason without blender or the module, except under CI=true, where that fails.
# Usage: run.sh SOURCE_DIR BUILD_DIR SKINFRAME_CLI
set -euo pipefail
src=$1 build=$2 cli=$3
skip() {
  if [ "${CI:-}" = true ]; then echo "blender tests: $1; CI=true makes it a failure" >&2; exit 1; fi
  echo "blender tests skipped: $1"
  exit 77
}
command -v blender >/dev/null 2>&1 || skip "no blender (Debian: blender, 3.4 or later; SF_BOOTSTRAP_BLENDER=1 make test)"
[ -f "$build/python/lib/skinframe/__init__.py" ] || skip "the skinframe module was not built (the python test builds it)"
out="$build/blender"
rm -rf "$out/user" "$out/out"
mkdir -p "$out/user"
python3 "$src/blender/build_zip.py" "$build/python/lib/skinframe" "$out/skinframe_normals.zip"
BLENDER_USER_SCRIPTS="$out/user/scripts" BLENDER_USER_CONFIG="$out/user/config" \
  blender -b --factory-startup --python-exit-code 1 --python "$src/blender/tests/test_addon.py" -- \
  "$out/skinframe_normals.zip" "$cli" "$out/out" "$src/tests/assets/gltf/CesiumMan/glTF-Binary/CesiumMan.glb"

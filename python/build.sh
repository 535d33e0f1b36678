#!/usr/bin/env bash
# Builds the skinframe module into BUILD/python/lib (setup.py: the library's shared layers under BUILD/python/shared,
# then the cffi extension), with the first python3 that has cffi, numpy and setuptools (Debian's /usr/bin/python3,
# Blender's Python, first). Prints the interpreter used. Exit 77: no such interpreter.
# Usage: build.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
py=""
for candidate in /usr/bin/python3 python3; do
  if "$candidate" -c 'import cffi, numpy, setuptools' 2>/dev/null; then py=$candidate; break; fi
done
[ -n "$py" ] || exit 77
mkdir -p "$build/python"
log="$build/python/build.log"
if ! (cd "$src/python" && SKINFRAME_CMAKE_BUILD_DIR="$build/python/shared" SKINFRAME_CFFI_DIR="$build/python/cffi" \
      SKINFRAME_JOBS="${SKINFRAME_JOBS:-2}" "$py" setup.py -q build --build-base "$build/python/build" \
      --build-lib "$build/python/lib") >"$log" 2>&1; then
  cat "$log" >&2
  echo "the skinframe module did not build (log: $log)" >&2
  exit 1
fi
echo "$py"

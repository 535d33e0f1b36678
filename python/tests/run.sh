#!/usr/bin/env bash
# The Python module's tests under ctest: python/build.sh builds the module into BUILD/python/lib, then pytest runs
# against it and the command. Skipped (exit 77) with the reason when Debian's python3-cffi, python3-numpy,
# python3-pytest or python3-setuptools is missing, except under CI=true, where that fails (test_install.py likewise
# skips, or fails under CI=true, without python3-pip).
# Usage: run.sh SOURCE_DIR BUILD_DIR SKINFRAME_CLI
set -euo pipefail
src=$1 build=$2 cli=$3
missing() {
  local why="python tests skipped: no python3 with cffi, numpy, pytest and setuptools (Debian: python3-cffi python3-numpy python3-pytest python3-setuptools)"
  if [ "${CI:-}" = true ]; then echo "$why; CI=true makes it a failure" >&2; exit 1; fi
  echo "$why"
  exit 77
}
set +e
py=$(bash "$src/python/build.sh" "$src" "$build")
rc=$?
set -e
[ $rc -eq 77 ] && missing
[ $rc -eq 0 ] || exit $rc
"$py" -c 'import pytest' 2>/dev/null || missing
cd "$build/python"
# Temporaries in the build folder (--basetemp), whatever TMPDIR says.
# test_install.py's offline pip install reuses the shared layers built above (SKINFRAME_CMAKE_BUILD_DIR).
PYTHONPATH="$build/python/lib" PYTHONDONTWRITEBYTECODE=1 SKINFRAME_CLI="$cli" \
  SKINFRAME_CMAKE_BUILD_DIR="$build/python/shared" exec "$py" -m pytest -q -p no:cacheprovider \
  --basetemp "$build/python/pytest-tmp" "$src/python/tests"

#!/usr/bin/env bash
# skinframe eval --engine NAME against the engine itself in node: ENGINE_DIR's check_presets.mjs with its pinned
# packages (package.json, package-lock.json) installed into OUT_DIR/npm, never into the source tree, and the shared
# strips (strips.mjs beside this script).
#   check_engine.sh ENGINE_DIR NAME SKINFRAME OUT_DIR
# Without node/npm it exits 77 (skipped), or 1 under CI=true.
set -euo pipefail
dir=$1
name=$2
cli=$3
out=$4
here=$(cd "$(dirname "$0")" && pwd)
missing() { echo "$1" >&2; [ "${CI:-}" = true ] && exit 1; exit 77; }
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || missing "node/npm missing: $name cannot run"
mkdir -p "$out/npm" "$out/files"
# installed once per lock file: a changed pin installs again
if [ ! -d "$out/npm/node_modules" ] || ! cmp -s "$dir/package-lock.json" "$out/npm/package-lock.json"; then
  rm -rf "$out/npm/node_modules"
  cp "$dir/package.json" "$dir/package-lock.json" "$out/npm/"
  (cd "$out/npm" && npm ci --no-audit --no-fund --silent >/dev/null 2>&1) || missing "npm ci failed in $out/npm"
fi
cp "$dir/check_presets.mjs" "$here/strips.mjs" "$out/npm/"
node "$out/npm/check_presets.mjs" "$cli" "$out/files"

#!/usr/bin/env bash
# skinframe eval --engine three.js against three.js itself in node (check_presets.mjs): the pinned `three`
# (package.json, package-lock.json) installed into OUT_DIR/npm, never into the source tree.
# check_presets.sh SKINFRAME OUT_DIR. Without node/npm it exits 77 (skipped), or 1 under CI=true.
set -euo pipefail
cli=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
missing() { echo "$1" >&2; [ "${CI:-}" = true ] && exit 1; exit 77; }
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || missing "node/npm missing: three.js cannot run"
mkdir -p "$out/npm" "$out/files"
if [ ! -f "$out/npm/node_modules/three/package.json" ]; then
  cp "$here/package.json" "$here/package-lock.json" "$out/npm/"
  (cd "$out/npm" && npm ci --no-audit --no-fund --silent >/dev/null 2>&1) || missing "npm ci failed in $out/npm"
fi
cp "$here/check_presets.mjs" "$here/../../presets/strips.mjs" "$out/npm/"
node "$out/npm/check_presets.mjs" "$cli" "$out/files"

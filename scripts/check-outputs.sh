#!/usr/bin/env bash
# Does every command still print what it printed at an earlier revision? For refactorings that must not change
# any output (numbers, tables, JSON, CSV, dumps, the bytes of pictures and baked files):
#   scripts/check-outputs.sh [BASE_REV]          (default HEAD; also `make check-outputs BASE=rev`)
# Builds BASE_REV in a git worktree under /tmp (the command only: no tests, no benchmarks) and the working tree
# (uncommitted changes included) in $SF_CHECK_BUILD (default build/), runs scripts/snapshot-outputs.sh of the
# working tree on both commands over tests/assets/gltf of the working tree, and compares the two snapshots
# file by file (run times are masked). Exit status 0 when they are identical; otherwise the differences are
# printed, the two snapshots are kept under /tmp for a closer look, and the status is 1.
# SF_CHECK_KEEP=1 keeps the worktree and both snapshots in every case; JOBS sets the build jobs (default 2).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rev=${1:-HEAD}
jobs=${JOBS:-2}
build=${SF_CHECK_BUILD:-$root/build}
base=$(git -C "$root" rev-parse --verify --quiet "$rev^{commit}") || { echo "check-outputs: no revision $rev" >&2; exit 2; }
tmp=$(mktemp -d /tmp/skinframe-check-outputs.XXXXXX)
keep=${SF_CHECK_KEEP:-0}
cleanup() {
  git -C "$root" worktree remove --force "$tmp/base-src" >/dev/null 2>&1 || true
  git -C "$root" worktree prune >/dev/null 2>&1 || true
  if [ "$keep" = 1 ]; then echo "check-outputs: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

echo "check-outputs: $rev ($(git -C "$root" log -1 --format='%h %s' "$base")) against the working tree"
git -C "$root" worktree add --detach --quiet "$tmp/base-src" "$base"
log=$tmp/build.log
build_command() {  # SOURCE BUILD_DIR WHAT
  if ! { cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DSF_BUILD_TESTS=OFF -DSF_BUILD_BENCH=OFF &&
         cmake --build "$2" -j "$jobs"; } >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "check-outputs: building $3 failed" >&2
    exit 2
  fi
  [ -x "$2/skinframe" ] || { echo "check-outputs: $3 has no command at $2/skinframe" >&2; exit 2; }
}
echo "check-outputs: building $rev in $tmp/base-build"
build_command "$tmp/base-src" "$tmp/base-build" "$rev"
echo "check-outputs: building the working tree's command in $build"
# Configured as `make` does when new, so the folder stays fit for `make test`.
if ! { { [ -f "$build/CMakeCache.txt" ] || cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release; } &&
       cmake --build "$build" -j "$jobs" --target skinframe_cli; } >"$log" 2>&1; then
  tail -n 30 "$log" >&2
  echo "check-outputs: building the working tree failed" >&2
  exit 2
fi

assets=$root/tests/assets/gltf
echo "check-outputs: snapshots of both commands over $assets"
bash "$root/scripts/snapshot-outputs.sh" "$tmp/base-build/skinframe" "$assets" "$tmp/base" >/dev/null
bash "$root/scripts/snapshot-outputs.sh" "$build/skinframe" "$assets" "$tmp/work" >/dev/null

if diff -r -u "$tmp/base" "$tmp/work" >"$tmp/outputs.diff"; then
  echo "check-outputs: identical ($(find "$tmp/work" -type f | wc -l) files)"
  exit 0
fi
cat "$tmp/outputs.diff"
echo "check-outputs: the outputs differ from $rev: $(grep -c '^diff \|^Only in' "$tmp/outputs.diff") files (above)" >&2
keep=1
exit 1

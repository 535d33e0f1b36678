#!/usr/bin/env bash
# Regenerates the golden four-view images in tests/golden/ from the current renderer (the same as
# `make golden`). Look at the new images before committing them: the golden test compares against them.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
cmake -S "$root" -B "$build" >/dev/null
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target test_render
SF_UPDATE_GOLDEN=1 SF_SOURCE_DIR="$root" "$build/tests/test_render" golden_images

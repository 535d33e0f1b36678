#!/usr/bin/env bash
# The wasm core computes what the native core computes (run by `make wasm-core` after the wasm build):
#   scripts/wasm-smoke.sh [BUILD_WASM]        (default build-wasm; C compiler for the native side: $CC, else cc)
# Runs BUILD_WASM/sf_wasm_smoke.wasm (tests/consumer/core_check.c on the wasm core) under node's WASI and the same
# program built natively from src/core, and compares what they print, digit for digit (its last line is the
# value in hexadecimal). Without node it says so and exits 0: the wasm build itself is then the check.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-$root/build-wasm}")
wasm=$build/sf_wasm_smoke.wasm
[ -f "$wasm" ] || { echo "wasm-smoke: $wasm missing (make wasm-core builds it)" >&2; exit 1; }
if ! command -v node >/dev/null 2>&1; then
  echo "wasm-smoke: node not found: built $wasm, not run"
  exit 0
fi
native=$build/native-smoke
"${CC:-cc}" -std=c11 -O2 -I"$root/include" -I"$root/src/common" -I"$root/src/kernels" -I"$root/src/core" \
  "$root"/src/core/*.c "$root/tests/consumer/core_check.c" -lm -o "$native"
"$native" >"$build/smoke-native.txt" || { echo "wasm-smoke: the native program fails" >&2; exit 1; }
node --no-warnings "$root/tests/wasm/wasi-run.mjs" "$wasm" >"$build/smoke-wasm.txt" ||
  { echo "wasm-smoke: the wasm program fails:" >&2; cat "$build/smoke-wasm.txt" >&2; exit 1; }
if ! diff -u "$build/smoke-native.txt" "$build/smoke-wasm.txt"; then
  echo "wasm-smoke: the wasm core differs from the native core (above: - native, + wasm)" >&2
  exit 1
fi
echo "wasm-smoke: the wasm core prints what the native core prints ($(grep -m1 '^skinned ' "$build/smoke-wasm.txt"))"

#!/usr/bin/env bash
# The CUDA backend in one go, for one call on a GPU machine: builds it for Hopper, runs the GPU tests
# (tests/test_cuda.c: GPU against CPU), then the GPU benchmark (bench/bench_cuda.c). Logs go to OUT_DIR.
#   bench/cuda.sh [OUT_DIR]        (default $OUT, else bench-out)
#   DEB_DIR=dir    .deb files of -dev packages the machine lacks (libcjson-dev, libstb-dev, zlib1g-dev, and
#                  their libraries), unpacked into a private prefix
#   SF_BENCH_MAX / SF_BENCH_REPS / SF_BENCH_CROWD   bench_cuda's arguments (11000000, 30, 1000)
#   SF_WERROR=OFF  for a host compiler newer than CI's, whose new warnings would stop the build
#   SF_BENCH_CPU=2 the host core bench_cuda is pinned to (taskset), so its launches are not moved mid-run
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-bench-out}}
mkdir -p "$out"
prefix_args=()
if [ -n "${DEB_DIR:-}" ]; then
  pfx=/tmp/sf-deps
  mkdir -p "$pfx"
  for f in "$DEB_DIR"/*.deb; do dpkg -x "$f" "$pfx"; done
  prefix_args=(-DCMAKE_PREFIX_PATH="$pfx/usr")
  export LD_LIBRARY_PATH="$pfx/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export LIBRARY_PATH="$pfx/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}"
fi
nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv; } | tee "$out/gpu.txt"
cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DSF_WITH_CUDA=ON -DCMAKE_CUDA_COMPILER="$nvcc" ${SF_WERROR:+-DSF_WERROR=$SF_WERROR} \
  "${prefix_args[@]}" >"$out/configure.log" 2>&1 || { tail -20 "$out/configure.log"; exit 1; }
cmake --build build-cuda -j"$(nproc)" --target skinframe_cli test_cuda test_workspace test_evaluate bench_cuda >"$out/build.log" 2>&1 \
  || { grep -E "error|Error" "$out/build.log" | head -30; exit 1; }
ctest --test-dir build-cuda -R 'test_cuda|test_workspace|test_evaluate' --output-on-failure -V >"$out/tests.log" 2>&1
echo "tests: exit $?"; grep -E "^[0-9]+ passed|FAIL|fail|worst angle|skipped" "$out/tests.log" | head -40
taskset -c "${SF_BENCH_CPU:-2}" build-cuda/bench/bench_cuda "${SF_BENCH_MAX:-11000000}" "${SF_BENCH_REPS:-30}" "${SF_BENCH_CROWD:-1000}" >"$out/bench.jsonl" 2>"$out/bench.err"
echo "bench: exit $?"; cat "$out/bench.err" | tail -5; grep -v '^{' "$out/bench.jsonl"

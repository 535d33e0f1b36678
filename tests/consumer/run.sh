#!/usr/bin/env bash
# The install tests (CTest label install): skinframe used the ways docs/design.md §5 promises.
#   tests/consumer/run.sh STAGE SOURCE_DIR BUILD_DIR WORK_DIR      (C compiler: $CC, else cc; jobs: $SF_JOBS)
# STAGE
#   install  `cmake --install BUILD_DIR` into WORK_DIR/prefix, then against that one install: the project in
#            tests/consumer (find_package(skinframe), the core), tests/consumer/layers (COMPONENTS scenes gltf
#            render files eval), and the same two programs built by `cc $(pkg-config --static --cflags --libs ...)`.
#   shared   SOURCE_DIR configured with -DSF_BUILD_SHARED=ON (tests and benchmarks then default off), built and
#            installed; every shared library exports sf_ names only (nm -D), the command runs on them, and both
#            programs run against the installed ones (find_package and pkg-config).
#   subdir   tests/consumer/subdir: add_subdirectory(SOURCE_DIR) builds the libraries and nothing else.
#   no-cli   SOURCE_DIR configured with -DSF_BUILD_CLI=OFF (tests and benchmarks on) configures and builds.
# Each stage starts from an empty WORK_DIR/STAGE folder and says which step failed.
set -euo pipefail
stage=$1
src=$(realpath "$2")
build=$(realpath "$3")
work=$4/$stage
cc=${CC:-cc}
jobs=${SF_JOBS:-2}
rm -rf "$work"
mkdir -p "$work"
work=$(realpath "$work")
log=$work/log.txt

step() { echo "-- $*"; }
fail() {
  echo "install test ($stage) failed: $*" >&2
  [ -f "$log" ] && tail -n 40 "$log" >&2
  exit 1
}
run_logged() {  # WHAT COMMAND...: runs the command with its output in the log, failing with WHAT
  local what=$1; shift
  "$@" >"$log" 2>&1 || fail "$what"
}
configure() {  # WHAT SOURCE BINARY ARGS...: unoptimised (-O0 without -g) to build quickly; nothing here is timed
  local what=$1 s=$2 b=$3; shift 3
  run_logged "$what: configure" cmake -S "$s" -B "$b" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_C_FLAGS_DEBUG=-O0 -DCMAKE_CXX_FLAGS_DEBUG=-O0 -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF "$@"
}
build_dir() {  # WHAT BINARY
  run_logged "$1: build" cmake --build "$2" -j "$jobs"
}
check_core() {  # WHAT PROGRAM [ENV...]: the core program prints skinned atan(1/2) and exits 0
  local what=$1 program=$2; shift 2
  local output
  output=$(env "$@" "$program" 2>&1) || fail "$what: $program exits $?: $output"
  grep -q '^skinned 26\.5650' <<<"$output" || fail "$what: $program printed: $output"
}
check_layers() {  # WHAT PROGRAM [ENV...]
  local what=$1 program=$2; shift 2
  local output
  output=$(env "$@" "$program" 2>&1) || fail "$what: $program exits $?: $output"
}
find_package_consumers() {  # PREFIX TAG: tests/consumer and tests/consumer/layers against PREFIX
  local prefix=$1 tag=$2
  step "find_package(skinframe) from $prefix"
  configure "find_package, core ($tag)" "$src/tests/consumer" "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix"
  grep -q "^-- skinframe .* from $prefix/" "$log" || fail "find_package did not take skinframe from $prefix"
  build_dir "find_package, core ($tag)" "$work/consumer"
  check_core "find_package, core ($tag)" "$work/consumer/core_check"
  step "find_package(skinframe COMPONENTS scenes gltf render files eval) from $prefix"
  configure "find_package, layers ($tag)" "$src/tests/consumer/layers" "$work/layers" -DCMAKE_PREFIX_PATH="$prefix"
  build_dir "find_package, layers ($tag)" "$work/layers"
  check_layers "find_package, layers ($tag)" "$work/layers/layers_check"
}
pkgconfig_consumers() {  # PREFIX STATIC(--static or empty)
  local prefix=$1 static=$2 pcdir flags
  pcdir=$(dirname "$(find "$prefix" -name skinframe.pc -print -quit)")
  [ -f "$pcdir/skinframe.pc" ] || fail "no skinframe.pc under $prefix"
  export PKG_CONFIG_LIBDIR=$pcdir PKG_CONFIG_PATH=
  step "cc \$(pkg-config $static --cflags --libs skinframe)"
  flags=$(pkg-config $static --cflags --libs skinframe) || fail "pkg-config skinframe"
  # shellcheck disable=SC2086
  run_logged "pkg-config, core: cc $flags" "$cc" -std=c11 -o "$work/pc_core_check" "$src/tests/consumer/core_check.c" $flags
  check_core "pkg-config, core" "$work/pc_core_check" LD_LIBRARY_PATH="$(dirname "$pcdir"):${LD_LIBRARY_PATH:-}"
  step "cc \$(pkg-config $static --cflags --libs skinframe-scenes skinframe-gltf skinframe-render skinframe-files skinframe-eval)"
  flags=$(pkg-config $static --cflags --libs skinframe-scenes skinframe-gltf skinframe-render skinframe-files skinframe-eval) ||
    fail "pkg-config of the layers"
  # shellcheck disable=SC2086
  run_logged "pkg-config, layers: cc $flags" "$cc" -std=c11 -o "$work/pc_layers_check" "$src/tests/consumer/layers_check.c" $flags
  check_layers "pkg-config, layers" "$work/pc_layers_check" LD_LIBRARY_PATH="$(dirname "$pcdir"):${LD_LIBRARY_PATH:-}"
  unset PKG_CONFIG_LIBDIR PKG_CONFIG_PATH
}

case $stage in
  install)
    step "cmake --install $build --prefix $work/prefix"
    run_logged "cmake --install" cmake --install "$build" --prefix "$work/prefix"
    for h in skinframe.h skinframe_files.h skinframe_scenes.h skinframe_gltf.h skinframe_render.h skinframe_eval.h; do
      [ -f "$work/prefix/include/$h" ] || fail "include/$h not installed"
    done
    find_package_consumers "$work/prefix" static
    pkgconfig_consumers "$work/prefix" --static
    ;;
  shared)
    step "-DSF_BUILD_SHARED=ON (the command on, the tests and benchmarks off by default)"
    configure "shared libraries" "$src" "$work/build" -DSF_BUILD_SHARED=ON
    build_dir "shared libraries" "$work/build"
    # The command uses public headers only, so it links against the sf_ exports alone.
    libs_used=$(ldd "$work/build/skinframe")
    grep -q "libskinframe_gltf\.so" <<<"$libs_used" || fail "the command is not linked to the shared libraries: $libs_used"
    run_logged "the command on shared libraries" "$work/build/skinframe" scenes
    run_logged "cmake --install (shared)" cmake --install "$work/build" --prefix "$work/prefix"
    libs=$(find "$work/prefix" -name 'libskinframe*.so.*' -type f | LC_ALL=C sort)
    [ "$(wc -w <<<"$libs")" = 6 ] || fail "expected 6 shared libraries, found: $libs"
    [ -z "$(find "$work/prefix" -name 'libskinframe*.a')" ] || fail "static libraries installed beside the shared ones"
    for lib in $libs; do
      step "nm -D --defined-only $(basename "$lib")"
      exported=$(nm -D --defined-only "$lib" | awk '{print $NF}' | sed 's/@.*//')
      [ -n "$(grep '^sf_' <<<"$exported")" ] || fail "$(basename "$lib") exports no sf_ symbol"
      others=$(grep -vE '^(sf_.*|_init|_fini|_edata|_end|__bss_start)$' <<<"$exported" || true)
      [ -z "$others" ] || fail "$(basename "$lib") exports more than the sf_ API: $(echo $others)"
    done
    find_package_consumers "$work/prefix" shared
    libs_used=$(ldd "$work/consumer/core_check")
    grep -q "$work/prefix/.*libskinframe\.so" <<<"$libs_used" ||
      fail "core_check does not load libskinframe.so from $work/prefix: $libs_used"
    pkgconfig_consumers "$work/prefix" ""
    ;;
  subdir)
    step "add_subdirectory($src)"
    configure "add_subdirectory" "$src/tests/consumer/subdir" "$work/build" -DSF_SOURCE_DIR="$src"
    build_dir "add_subdirectory" "$work/build"
    check_core "add_subdirectory" "$work/build/core_check"
    check_layers "add_subdirectory" "$work/build/layers_check"
    ;;
  no-cli)
    step "-DSF_BUILD_CLI=OFF"
    configure "-DSF_BUILD_CLI=OFF" "$src" "$work/build" -DSF_BUILD_CLI=OFF
    build_dir "-DSF_BUILD_CLI=OFF" "$work/build"
    [ ! -e "$work/build/skinframe" ] || fail "-DSF_BUILD_CLI=OFF built the command"
    ;;
  *)
    echo "usage: tests/consumer/run.sh install|shared|subdir|no-cli SOURCE_DIR BUILD_DIR WORK_DIR" >&2
    exit 2
    ;;
esac
rm -rf "$work"
echo "install test ($stage) passed"

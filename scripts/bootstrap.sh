#!/usr/bin/env bash
# Installs what building and testing skinframe needs, only what is missing (Debian; apt-get, as root or via sudo).
# SF_BOOTSTRAP_SANITIZE=1 adds clang and its sanitizer/fuzzer runtimes (make test-sanitize); SF_BOOTSTRAP_WASM=1
# the wasm32-wasi toolchain (make wasm-core); SF_BOOTSTRAP_VIEWER=1 Debian's chromium for the page's browser tests
# (make viewer; the npm packages come from web/package-lock.json through npm ci); SF_BOOTSTRAP_BLENDER=1 Debian's
# blender for the add-on's tests; SF_BOOTSTRAP_SHADERS=1 the shader
# tools and Mesa's CPU Vulkan driver (lavapipe), so the shader tests run every shader against the library without a GPU.
set -euo pipefail

need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v cc >/dev/null 2>&1 || need+=(gcc)
command -v make >/dev/null 2>&1 || need+=(make)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
[ -f /usr/include/cjson/cJSON.h ] || need+=(libcjson-dev)
[ -f /usr/include/stb/stb_image_write.h ] || need+=(libstb-dev)
[ -f /usr/include/zlib.h ] || need+=(zlib1g-dev)
# The glTF layer's decoders of compressed geometry (EXT_meshopt_compression, KHR_draco_mesh_compression).
[ -f /usr/include/meshoptimizer.h ] || need+=(libmeshoptimizer-dev)
[ -f /usr/include/draco/compression/decode.h ] || need+=(libdraco-dev)
if [ "${SF_BOOTSTRAP_SANITIZE:-0}" = 1 ]; then
  command -v clang >/dev/null 2>&1 || need+=(clang)
  ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-14-dev)
fi
# make wasm-core: Debian's clang 14 targets wasm32-wasi with lld's wasm-ld, wasi-libc, the wasm32 builtins of
# compiler-rt and llvm-ar (GNU ar cannot index wasm objects).
if [ "${SF_BOOTSTRAP_WASM:-0}" = 1 ]; then
  command -v clang-14 >/dev/null 2>&1 || command -v clang >/dev/null 2>&1 || need+=(clang-14)
  command -v wasm-ld >/dev/null 2>&1 || command -v wasm-ld-14 >/dev/null 2>&1 || need+=(lld-14)
  [ -f /usr/include/wasm32-wasi/stdio.h ] || need+=(wasi-libc)
  ls /usr/lib/llvm-*/lib/clang/*/lib/wasi/libclang_rt.builtins-wasm32.a >/dev/null 2>&1 || need+=(libclang-rt-14-dev-wasm32)
  command -v llvm-ar-14 >/dev/null 2>&1 || command -v llvm-ar >/dev/null 2>&1 || need+=(llvm-14)
fi
if [ "${SF_BOOTSTRAP_SHADERS:-0}" = 1 ]; then
  command -v glslangValidator >/dev/null 2>&1 || need+=(glslang-tools)
  command -v spirv-val >/dev/null 2>&1 || need+=(spirv-tools)
  command -v spirv-cross >/dev/null 2>&1 || need+=(spirv-cross)
  ls /usr/share/vulkan/icd.d/lvp_icd.*.json >/dev/null 2>&1 || need+=(mesa-vulkan-drivers)
  [ -f /usr/include/vulkan/vulkan.h ] || need+=(libvulkan-dev)
fi
if [ "${SF_BOOTSTRAP_VIEWER:-0}" = 1 ]; then
  [ -x /usr/bin/chromium ] || need+=(chromium)
fi
# The Python module (python/) and its tests: cffi, numpy, pytest, setuptools and the interpreter's headers.
/usr/bin/python3 -c 'import cffi' >/dev/null 2>&1 || need+=(python3-cffi)
/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || need+=(python3-numpy)
/usr/bin/python3 -c 'import pytest' >/dev/null 2>&1 || need+=(python3-pytest)
/usr/bin/python3 -c 'import setuptools' >/dev/null 2>&1 || need+=(python3-setuptools)
ls /usr/include/python3*/Python.h >/dev/null 2>&1 || need+=(python3-dev)
# SF_BOOTSTRAP_BLENDER=1: Blender (3.4 in Debian 12) for the add-on's headless tests (blender/).
if [ "${SF_BOOTSTRAP_BLENDER:-0}" = 1 ]; then
  command -v blender >/dev/null 2>&1 || need+=(blender)
fi
# node + npm run the MikkTSpace reference implementation (npm package mikktspace) in the tests, and the wasm
# smoke test (node's WASI).
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
echo "bootstrap: installing ${need[*]}" >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null

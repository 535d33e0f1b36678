# Toolchain for WebAssembly (wasm32-wasi) with Debian's clang, lld (wasm-ld) and wasi-libc:
#   apt-get install clang lld wasi-libc libclang-rt-14-dev-wasm32 llvm   (scripts/bootstrap.sh, SF_BOOTSTRAP_WASM=1)
#   cmake -S . -B build-wasm --toolchain cmake/wasm32-wasi.cmake        (`make wasm-core`)
# Debian's clang finds wasi-libc's headers and libraries (/usr/include/wasm32-wasi, /usr/lib/wasm32-wasi) by
# itself, so no sysroot is set. The project then builds the core and the scenes layer as static libraries
# (see SF_WASM in CMakeLists.txt) and sf_wasm_smoke.wasm, run under node's WASI when node is there.
# CMake 3.25 knows no WASI platform; Generic (no shared libraries) fits a wasm32-wasi module.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR wasm32)

find_program(SF_WASM_CLANG NAMES clang-14 clang REQUIRED)
# llvm-ar writes the symbol index wasm-ld needs (GNU ar cannot read wasm objects).
find_program(SF_WASM_AR NAMES llvm-ar-14 llvm-ar PATHS /usr/lib/llvm-14/bin REQUIRED)
find_program(SF_WASM_RANLIB NAMES llvm-ranlib-14 llvm-ranlib PATHS /usr/lib/llvm-14/bin REQUIRED)
set(CMAKE_C_COMPILER ${SF_WASM_CLANG})
set(CMAKE_C_COMPILER_TARGET wasm32-wasi)
set(CMAKE_CXX_COMPILER_TARGET wasm32-wasi)
set(CMAKE_AR ${SF_WASM_AR} CACHE FILEPATH "llvm archiver for wasm objects")
set(CMAKE_RANLIB ${SF_WASM_RANLIB} CACHE FILEPATH "llvm ranlib for wasm objects")

# Programs run under node's WASI (tests/wasm/wasi-run.mjs); without node the wasm tests are not registered. Node 20
# crashes now and then as a WASI program that grew its memory to hundreds of MiB exits, unless its garbage
# collector runs on one thread (--single-threaded-gc).
find_program(SF_WASM_NODE NAMES node nodejs)
if(SF_WASM_NODE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${SF_WASM_NODE};--no-warnings;--single-threaded-gc;${CMAKE_CURRENT_LIST_DIR}/../tests/wasm/wasi-run.mjs)
endif()

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)

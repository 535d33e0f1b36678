# The two commands a newcomer runs: `make demo` and `make test`. Both install what is missing first
# (scripts/bootstrap.sh: Debian packages, only those not there yet).
#   make test            build (build/) and run every test but the benchmarks
#   make demo            the article's demo: pictures and tables in out/
#   make test-sanitize   the tests under clang ASan + UBSan (build-sanitize/), plus 60 s of fuzzing
#   make test-cuda       the CUDA backend built with nvcc (build-cuda/) and its tests (they skip without a GPU);
#                        nothing to do where there is no nvcc
#   make golden          rewrite tests/golden/*.png from the current renderer
#   make install PREFIX=/usr/local   cmake --install of build/ (headers, libraries, CMake package, pkg-config)
#   make wasm-core       the core and scenes layer for wasm32-wasi, without and with SIMD128 (build-wasm/,
#                        build-wasm-simd/), checked against native and the fast paths against the scalar loops
#   make check-outputs BASE=rev      every command's output at rev against the working tree's
#   make bench           the skinning benchmark (bench/bench_skin.c, docs/benchmarks.md); BENCH_ARGS passes options
#   make viewer          the interactive page (wasm core + three.js) served on localhost, address printed
#   make viewer-dist     the page as static files (build-web/dist) for any web server
#   make test-viewer     the page's tests: wasm against the native command (node), headless chromium (WebGPU, WebGL2)
BUILD ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
PREFIX ?= /usr/local
WASM_BUILD ?= build-wasm
WASM_SIMD_BUILD ?= build-wasm-simd
WASM_FLAGS ?=
VIEWER_BUILD ?= build-web
VIEWER_PORT ?= 5173
BASE ?= HEAD
CUDA_BUILD ?= build-cuda
NVCC ?= $(firstword $(wildcard /usr/local/cuda/bin/nvcc) $(shell command -v nvcc 2>/dev/null))

.PHONY: all bootstrap build test bench demo blender-addon test-sanitize test-cuda golden install wasm-core check-outputs clean viewer viewer-dist viewer-wasm test-viewer

all: build

bootstrap:
	@bash scripts/bootstrap.sh

$(BUILD)/CMakeCache.txt: | bootstrap
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS)

build: bootstrap $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -LE bench -j $(JOBS)

# The skinning benchmark: per stage and method ns per vertex, one thread and every thread, beside the yardstick.
BENCH_ARGS ?=
bench: build
	$(BUILD)/bench/bench_skin $(BENCH_ARGS)

demo: build
	$(BUILD)/skinframe demo --out out

# The same tests built with clang under AddressSanitizer + UndefinedBehaviorSanitizer, plus bounded
# libFuzzer sessions on the glTF loader and on the whole pipeline (label fuzz, SF_FUZZ_SECONDS in all).
test-sanitize:
	@SF_BOOTSTRAP_SANITIZE=1 bash scripts/bootstrap.sh
	CC=clang CXX=clang++ cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DSF_SANITIZE=ON -DSF_FUZZ=ON -DSF_BUILD_BENCH=OFF $(CMAKE_FLAGS)
	cmake --build build-sanitize -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir build-sanitize --output-on-failure -LE bench -j $(JOBS)

# The CUDA backend (cuda/, -DSF_WITH_CUDA=ON for Hopper, docs/cuda.md) wherever nvcc is installed: it must
# compile everywhere, and its GPU tests skip (exit 77) on a machine without a GPU.
test-cuda: bootstrap
	@if [ -z "$(NVCC)" ]; then echo "test-cuda: no nvcc found (/usr/local/cuda/bin/nvcc): skipped"; exit 0; fi; \
	set -e; \
	cmake -S . -B $(CUDA_BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DSF_WITH_CUDA=ON -DCMAKE_CUDA_COMPILER=$(NVCC) $(CMAKE_FLAGS); \
	cmake --build $(CUDA_BUILD) -j $(JOBS); \
	ctest --test-dir $(CUDA_BUILD) --output-on-failure -j $(JOBS) -R 'test_(cuda|workspace|evaluate|cli|core)$$'

# The Blender add-on's zip (blender/): the skinframe Python module, built for this machine's python3 (Blender's, on
# Debian) from the library's shared layers, inside it. Blender: Preferences > Add-ons > Install, then enable it.
blender-addon: bootstrap
	bash python/build.sh $(CURDIR) $(abspath $(BUILD)) >/dev/null
	python3 blender/build_zip.py $(BUILD)/python/lib/skinframe $(BUILD)/skinframe_normals.zip
	@echo "wrote $(BUILD)/skinframe_normals.zip"

# Rewrites tests/golden/*.png from the current renderer (review the images before committing them).
golden: build
	SF_UPDATE_GOLDEN=1 SF_SOURCE_DIR=$(CURDIR) $(BUILD)/tests/test_render golden_images

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# The core (and the scenes layer) as wasm32-wasi static libraries with Debian's clang, lld and wasi-libc
# (cmake/wasm32-wasi.cmake), and a smoke program that must print what the native core prints (under node); the
# same with -msimd128 (WASM_SIMD_BUILD), both running tests/test_fastpath*.c under node (ctest label wasm): the
# SIMD128 fast paths bit for bit the scalar loops. WASM_FLAGS=-DSF_BUILD_FILES=ON adds the files layer.
wasm-core:
	@SF_BOOTSTRAP_WASM=1 bash scripts/bootstrap.sh
	cmake -S . -B $(WASM_BUILD) --toolchain cmake/wasm32-wasi.cmake -DCMAKE_BUILD_TYPE=Release $(WASM_FLAGS)
	cmake --build $(WASM_BUILD) -j $(JOBS)
	bash scripts/wasm-smoke.sh $(WASM_BUILD)
	cmake -S . -B $(WASM_SIMD_BUILD) --toolchain cmake/wasm32-wasi.cmake -DCMAKE_BUILD_TYPE=Release -DSF_WASM_SIMD=ON $(WASM_FLAGS)
	cmake --build $(WASM_SIMD_BUILD) -j $(JOBS)
	bash scripts/wasm-smoke.sh $(WASM_SIMD_BUILD)
	ctest --test-dir $(WASM_BUILD) --output-on-failure -R '^wasm_fastpath'
	ctest --test-dir $(WASM_SIMD_BUILD) --output-on-failure -R '^wasm_fastpath'

# Every command's output (scripts/snapshot-outputs.sh) at BASE against the working tree; exits 1 on a difference.
check-outputs: bootstrap
	SF_CHECK_BUILD=$(abspath $(BUILD)) JOBS=$(JOBS) bash scripts/check-outputs.sh $(BASE)

# The page (web/, docs/viewer.md): the core and scenes for wasm32-wasi with web/api.c (VIEWER_BUILD), the npm
# packages of web/package-lock.json (npm ci, once), then Vite: `viewer` serves it, `viewer-dist` writes static files.
# Tests: ctest --test-dir $(VIEWER_BUILD) (node parity tests; label browser = headless chromium).
viewer-wasm:
	@SF_BOOTSTRAP_WASM=1 SF_BOOTSTRAP_VIEWER=1 bash scripts/bootstrap.sh
	cmake -S web -B $(VIEWER_BUILD) --toolchain $(CURDIR)/cmake/wasm32-wasi.cmake -DCMAKE_BUILD_TYPE=Release \
	  -DSF_NATIVE_CLI=$(abspath $(BUILD))/skinframe
	cmake --build $(VIEWER_BUILD) -j $(JOBS)
	@[ web/node_modules/.package-lock.json -nt web/package-lock.json ] || (cd web && npm ci --no-audit --no-fund)

viewer: viewer-wasm
	@echo "viewer: the article at http://127.0.0.1:$(VIEWER_PORT)/, the lab at http://127.0.0.1:$(VIEWER_PORT)/lab.html (Ctrl-C stops)"
	cd web && SKINFRAME_WASM=$(abspath $(VIEWER_BUILD))/skinframe.wasm npx vite --port $(VIEWER_PORT)

viewer-dist: viewer-wasm
	cd web && SKINFRAME_WASM=$(abspath $(VIEWER_BUILD))/skinframe.wasm SKINFRAME_DIST=$(abspath $(VIEWER_BUILD))/dist npx vite build
	@echo "viewer-dist: static page in $(VIEWER_BUILD)/dist (serve the folder with any web server)"

# The parity tests compare the wasm core with the native command, so the native build comes first.
test-viewer: build viewer-dist
	ctest --test-dir $(VIEWER_BUILD) --output-on-failure

clean:
	rm -rf $(BUILD) build-sanitize $(WASM_BUILD) $(WASM_SIMD_BUILD) $(VIEWER_BUILD) out

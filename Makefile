# The two commands a newcomer runs: `make demo` and `make test`. Both install what is missing first.
BUILD ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all bootstrap build test demo test-sanitize golden clean

all: build

bootstrap:
	@bash scripts/bootstrap.sh

$(BUILD)/CMakeCache.txt: | bootstrap
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS)

build: bootstrap $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -LE bench -j $(JOBS)

demo: build
	$(BUILD)/skinframe demo --out out

# The same tests built with clang under AddressSanitizer + UndefinedBehaviorSanitizer, plus a bounded
# libFuzzer session on the glTF loader (label fuzz, SF_FUZZ_SECONDS).
test-sanitize:
	@SF_BOOTSTRAP_SANITIZE=1 bash scripts/bootstrap.sh
	CC=clang CXX=clang++ cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DSF_SANITIZE=ON -DSF_FUZZ=ON -DSF_BUILD_BENCH=OFF $(CMAKE_FLAGS)
	cmake --build build-sanitize -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir build-sanitize --output-on-failure -LE bench -j $(JOBS)

clean:
	rm -rf $(BUILD) build-sanitize out

# Rewrites tests/golden/*.png from the current renderer (review the images before committing them).
golden: build
	SF_UPDATE_GOLDEN=1 SF_SOURCE_DIR=$(CURDIR) $(BUILD)/tests/test_render golden_images

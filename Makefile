# The two commands a newcomer needs (see README.md):
#   make demo    build, record a real traced program, show its trace
#   make check   build and pass every test (also under ASan+UBSan, with clang)
# and `make bench` for the benchmarks (JSON lines).

BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build check check-asan demo bench install clean

all: build

deps:
	@scripts/deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

check: build check-asan
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

# The same suite built with clang under AddressSanitizer and UBSan.
check-asan: deps
	@CC=clang cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DMPROF_SANITIZE=ON -DMPROF_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(ASAN_BUILD) -j$(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j$(JOBS)

demo: build
	@scripts/demo.sh $(BUILD)

bench: build
	@scripts/deps.sh bench
	@bench/run.sh $(BUILD)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)

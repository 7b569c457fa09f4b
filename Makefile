# The two commands a newcomer needs (see README.md):
#   make demo    build, record a real traced program, show its trace
#   make check   build and pass every test (also under ASan+UBSan, with clang)
# and `make bench` for the benchmarks (JSON lines).

BUILD ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
BENCH_BUILD ?= build-bench
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build check check-asan check-tsan fuzz demo bench install clean

all: build

deps:
	@scripts/deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMPROF_BUILD_BENCH=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

check: build check-asan check-tsan
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

# The same suite built with clang under AddressSanitizer and UBSan.
check-asan: deps
	@CC=clang cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DMPROF_SANITIZE=ON -DMPROF_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(ASAN_BUILD) -j$(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j$(JOBS)

# The multi-thread recorder tests, four threads decoding one trace, libuv
# loops on four OS threads, and the streamed analysis beside its relay's
# merge (the relay, the merge's order, the oracle), under ThreadSanitizer.
check-tsan: deps
	@CC=clang cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DMPROF_TSAN=ON >/dev/null
	@cmake --build $(TSAN_BUILD) -j$(JOBS) --target test_record test_net_label trace_gen story \
	  uv_prog_plain mprof_uv_preload mprof_cli uv_stress_traced check_uv \
	  test_relay test_merge_sort stream_oracle cycle_story
	cd $(TSAN_BUILD) && ctest --output-on-failure \
	  -R '^(record|record_net_label|babeltrace2|uv_stress|relay|merge_sort|stream_oracle)$$'

# The fuzzers at length (libFuzzer, ASan+UBSan, test/fuzz/): the reader,
# and the commands that consume it (export chrome and otlp, report, html's
# data, the core reader, merge, a manifest) and the index reader,
# FUZZ_SECONDS split among them.  Each grows its own corpus in
# $(ASAN_BUILD)/fuzz-corpus-NAME from the seeds; a crash lands in
# $(ASAN_BUILD)/NAME-crash-*: fix it and add the input to the seeds
# (test/fuzz/corpus, or corpus-core, corpus-merge, corpus-manifest,
# corpus-index for fuzz_core, fuzz_merge, fuzz_manifest, fuzz_index).
FUZZ_SECONDS ?= 3600
FUZZ_TARGETS = fuzz_read fuzz_export_chrome fuzz_export_otlp fuzz_report fuzz_html fuzz_core \
  fuzz_merge fuzz_manifest fuzz_index
fuzz: deps
	@CC=clang cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DMPROF_SANITIZE=ON -DMPROF_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(ASAN_BUILD) -j$(JOBS) --target $(FUZZ_TARGETS)
	@failed=; for target in $(FUZZ_TARGETS); do \
	  case $$target in \
	    fuzz_core | fuzz_merge | fuzz_manifest | fuzz_index) seeds=test/fuzz/corpus-$${target#fuzz_};; \
	    *) seeds="test/fuzz/corpus test/data/damaged";; \
	  esac; \
	  mkdir -p $(ASAN_BUILD)/fuzz-corpus-$$target; \
	  echo "$$target: $$(( $(FUZZ_SECONDS) / $(words $(FUZZ_TARGETS)) )) s"; \
	  $(ASAN_BUILD)/test/fuzz/$$target -max_total_time=$$(( $(FUZZ_SECONDS) / $(words $(FUZZ_TARGETS)) )) \
	    -rss_limit_mb=2048 -close_fd_mask=3 -artifact_prefix=$(ASAN_BUILD)/$$target- \
	    $(ASAN_BUILD)/fuzz-corpus-$$target $$seeds || failed="$$failed $$target"; \
	done; \
	[ -z "$$failed" ] || { echo "fuzz: found something:$$failed" >&2; exit 1; }

# Reliability at length: the crash harness SIGKILLs its writer
# 1000 times, and the live reader takes 10^5 snapshots; and a 4.6 GB trace
# recorded in full (in $TMPDIR) is read whole.  Then the mutants.
.PHONY: check-long
check-long: build
	test/rel/crash.sh $(BUILD) 1000
	test/rel/live_reads.sh $(BUILD) 100000
	test/test_big_trace.sh $(BUILD) --real
	$(MAKE) mutate

# How many wrong products the tests catch: the fixed mutants of
# scripts/mutants.txt, each built in a copy of the tree (MUTATE_DIR) and
# held to its module's tests; at least 90 % killed in every module.
MUTATE_DIR ?= build-mutate
.PHONY: mutate
mutate: deps
	scripts/mutate.sh $(MUTATE_DIR)

demo: build
	@scripts/demo.sh $(BUILD)

# Benchmarks build apart, optimised, with their baselines (LTTng, barectf).
bench: deps
	@scripts/deps.sh bench
	@cmake -S . -B $(BENCH_BUILD) -DCMAKE_BUILD_TYPE=Release -DMPROF_BUILD_BENCH=ON \
	  -DBUILD_TESTING=OFF >/dev/null
	@cmake --build $(BENCH_BUILD) -j$(JOBS) >&2
	@bench/run.sh $(BENCH_BUILD)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(BENCH_BUILD)

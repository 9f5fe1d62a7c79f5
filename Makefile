# rdmasim — the two commands a newcomer runs: `make demo` and `make test`.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
# Unity builds: CMake compiles the sources in batches of 8 per compiler run, which takes the
# sanitizer build from about 12 to 5.5 minutes on 2 cores (most of CI's time is compiling).
# UNITY=OFF builds file by file (faster incremental rebuilds; what clang-tidy's
# compile_commands.json needs).
UNITY ?= ON

.PHONY: all deps build demo test asan-test golden fuzz bench format tidy clean

all: build

deps:
	@tools/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=$(UNITY) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# The default evaluation (evaluations/demo.yaml): every fabric on one GPU cluster, out/demo/report.html.
demo: build
	@./$(BUILD)/rdmasim demo

# The whole test suite (GoogleTest via ctest), less the 8,192-host golden runs (label scale,
# minutes each: `make golden` compares them).
test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE scale

# The same suite under AddressSanitizer + UndefinedBehaviorSanitizer (less the slow golden cases and
# the mpirun sweep, whose Open MPI allocations are not ours to check, and the scale runs).
# -O1 -g1: ASan's recommended level, with line tables for its reports; it compiles in half the
# time of -O2 -g (src/evaluate/report.cpp: 25 s against 55 s), which is most of CI's time.
asan-test: deps
	@cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DRDMASIM_SANITIZE=ON \
	  -DCMAKE_UNITY_BUILD=$(UNITY) >/dev/null
	@cmake --build build-asan -j $(JOBS)
	@cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) -LE 'slow|mpi|scale'

# Golden outputs only, the scale runs included (tests/golden; tools/golden update NAME after an
# intended change).
golden: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L golden

# libFuzzer on the scenario loader and the command line (seconds in all: FUZZ_SECONDS).
FUZZ_SECONDS ?= 60
fuzz: deps
	@UNITY=$(UNITY) tools/fuzz.sh $(FUZZ_SECONDS)

# Speed: events/s, data packet-hops per wall second, peak RSS.
bench: build
	@./$(BUILD)/rdmasim bench

format:
	@clang-format -i $$(git ls-files '*.h' '*.cpp')

# clang-tidy with .clang-tidy's checks over every source and test (tools/tidy.sh); any finding
# fails it. About 25 minutes on 2 cores, so CI does not run it; TIDY_FILES narrows it to the
# files whose path a regex matches, e.g. make tidy TIDY_FILES=/src/net/.
TIDY_FILES ?= /(src|tests)/.*\.cpp
tidy:
	@tools/install-deps.sh clang-tidy
	@JOBS=$(JOBS) tools/tidy.sh '$(TIDY_FILES)'

clean:
	rm -rf build build-asan build-fuzz build-tidy out

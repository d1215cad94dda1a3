# cpnsim: one Makefile. `make` builds ./cpnsim; `make run` installs what is missing,
# builds and runs the embedded default scenario; `make test` runs the test suite;
# `make asan` runs it under AddressSanitizer and UBSan, with the policies' indexes
# checked against plain scans (CPN_CHECK_INDEXES); `make clean`.

CC       ?= cc
BUILD    ?= build
PKGS     := gsl libcjson nettle yaml-0.1
WARN     := -Wall -Wextra -Wshadow -Wconversion -Wstrict-prototypes -Wmissing-prototypes \
            -Wpointer-arith -Wcast-qual -Wformat=2 -Wundef -Wvla
OPT      ?= -O2 -g
CPPFLAGS += -D_POSIX_C_SOURCE=200809L -MMD -MP
CFLAGS   += -std=c11 $(WARN) $(OPT) $(EXTRA_CFLAGS)
ifeq ($(CI),true)
CFLAGS   += -Werror
endif
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
LDLIBS   += $(PKG_LIBS) -lcsv -lm -pthread $(EXTRA_LDLIBS)

LIB_SRC  := $(filter-out sim/cli/main.c,$(wildcard sim/*/*.c)) $(wildcard policies/*.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/sim/base/embed.o
TEST_SRC := $(wildcard tests/*.c)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
EMBEDDED := data/h100_profile.csv data/h100_colocate.csv data/cpu_pipeline.csv \
            data/gavel/simulation_throughputs.json \
            traces/default-cluster.json $(wildcard scripts/plot/*.gp)

.PHONY: all run test asan deps clean check-deps bench golden
all: cpnsim

# Installs the Debian packages the project needs when any is missing.
deps:
	@sh scripts/setup-deps.sh

cpnsim: $(BUILD)/cpnsim
	cp $< $@

$(BUILD)/cpnsim: $(BUILD)/sim/cli/main.o $(BUILD)/libcpnsim.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libcpnsim.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/sim/base/embed.o: sim/base/embed.S $(EMBEDDED)
	@mkdir -p $(dir $@)
	$(CC) -c -o $@ $<

# The main job: the embedded default scenario (3-site cluster, generated 100-job queue).
run: deps cpnsim
	./cpnsim run --out results/default

$(BUILD)/test_all: $(TEST_OBJ) $(BUILD)/libcpnsim.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $$(pkg-config --libs criterion) $(LDLIBS)

# Tests run from the repository root (they read tests/data and traces/ and call ./cpnsim).
test: deps $(BUILD)/cpnsim $(BUILD)/test_all
	CPNSIM=$(abspath $(BUILD)/cpnsim) $(BUILD)/test_all $(TEST_ARGS)

# Rewrites the golden outputs' hashes (tests/golden/README.md): only for a change of
# the model that is meant to move them, whose commit says why.
golden: $(BUILD)/cpnsim
	sh scripts/golden.sh update $(BUILD)/cpnsim

asan:
	LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp) $(MAKE) BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined -DCPN_CHECK_INDEXES" \
	        LDFLAGS="-fsanitize=address,undefined" test

# Benchmarks print figures; they never fail on time. Built with optimisation.
BENCH_SRC := $(wildcard bench/*.c)
$(BUILD)/bench/%: bench/%.c $(BUILD)/libcpnsim.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/libcpnsim.a $(LDLIBS)

bench: deps $(BENCH_SRC:%.c=$(BUILD)/%)
	@echo "== network: a million WAN transfers (bench/bench_flows.c)"
	$(BUILD)/bench/bench_flows 1000000
	@echo "== the engine, q100 per policy, 100k/1M generated jobs, Gavel-format traces, Philly, scaling (bench/run.sh)"
	sh bench/run.sh $(BUILD)
	@if [ "$(BENCH_LARGEST)" = 1 ]; then echo "== the largest run within 8 GiB (bench/largest.sh)"; \
	    sh bench/largest.sh $(BUILD); fi

# The runner (bench/run.sh) drives the simulator itself; docs/performance.md. BENCH_LARGEST=1
# also runs bench/largest.sh (minutes, gigabytes).
bench: $(BUILD)/cpnsim

# The thesis experiment from scratch: the grid of scripts/figures.json (policies x job
# queues x CPU thresholds x seeds, compared with FIFO) run into results/thesis/, its
# figures drawn into results/figures/ (PNG and PDF); then scripts/figures-queues.json
# (the policies on ten generated 100-job queues, for the spread between queues) into
# results/thesis-queues/ and results/figures/queues/; then scripts/figures-generated.json
# (the policies on generated queues of 40 and 100 jobs) into results/thesis-generated/
# and results/figures/generated/. Resumable: runs already done are kept, so after an
# interrupt `make figures` goes on where it stopped. docs/sweeps.md.
.PHONY: figures
figures: deps $(BUILD)/cpnsim
	$(BUILD)/cpnsim sweep scripts/figures.json --out results/thesis
	$(BUILD)/cpnsim plot results/thesis --out results/figures
	$(BUILD)/cpnsim sweep scripts/figures-queues.json --out results/thesis-queues
	$(BUILD)/cpnsim plot results/thesis-queues --out results/figures/queues
	$(BUILD)/cpnsim sweep scripts/figures-generated.json --out results/thesis-generated
	$(BUILD)/cpnsim plot results/thesis-generated --out results/figures/generated

# Fuzzing (docs/reliability.md): one libFuzzer harness per reader (tests/fuzz/fuzz_*.c),
# built with clang, ASan and UBSan against the library compiled with clang in its own
# directory (FUZZ_BUILD), each run for FUZZ_SECONDS, FUZZ_JOBS at a time, from the seeds
# in tests/fuzz/corpus/. Prints the executions of each harness; a crash, leak, hang or
# broken property fails it and leaves the input in FUZZ_BUILD/crashes/. It installs
# clang and libFuzzer when missing (scripts/setup-deps.sh fuzz); `make test` does not.
FUZZ_SECONDS ?= 60
FUZZ_JOBS    ?= 2
FUZZ_CC      ?= clang
FUZZ_BUILD   ?= $(BUILD)/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_HARNESS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))

.PHONY: fuzz fuzz-harnesses
fuzz:
	@sh scripts/setup-deps.sh fuzz
	$(MAKE) CC=$(FUZZ_CC) BUILD=$(FUZZ_BUILD) CI=false \
	        OPT="-O1 -g -fno-omit-frame-pointer $(FUZZ_SAN) -fsanitize=fuzzer-no-link" fuzz-harnesses
	sh tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_JOBS) $(FUZZ_HARNESS)

# Called by `make fuzz` with BUILD set to the fuzzing build directory.
fuzz-harnesses: $(FUZZ_HARNESS:%=$(BUILD)/%)
$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(BUILD)/libcpnsim.a
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(BUILD)/libcpnsim.a $(LDLIBS)

clean:
	rm -rf build build-asan cpnsim

-include $(LIB_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BUILD)/sim/cli/main.d
-include $(FUZZ_HARNESS:%=$(BUILD)/%.d)

# SPDX-License-Identifier: Apache-2.0
# FineGrain convenience targets. `make run` and `make test` are the two commands
# in the README; both install missing Debian packages first (as root).
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release $(if $(CI),-DFG_WERROR=ON,)

.PHONY: all deps configure build run test soak fuzz sanitize bench experiments synth formal clean

all: build

deps:
	@tools/bootstrap.sh

configure: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The default demo: a kernel on the channel paper's machine, then BFS on the
# worklist paper's machine with a software worklist and with the hardware
# worklist (the paper's 32-entry banks; what does not fit spills to the
# overflow buffer: gpu.worklist.hvu.* in the stats).
run: build
	$(BUILD)/fgsim run vecadd --preset orr2014 --set gpu.cus=4
	@echo; echo "== fib: Cilk Fibonacci on channel stacks; 512-CE channels make wavefronts yield (docs/channels.md)"
	$(BUILD)/fgsim run fib --preset orr2014 --set fib.capacity=512
	@echo; echo "== bfs, shared software worklist (atomics): kernel_ns below"
	$(BUILD)/fgsim run bfs --preset kim2014 --set bfs.mechanism=swwl --set bfs.scale=10
	@echo; echo "== bfs, hardware worklist: kernel_ns below"
	$(BUILD)/fgsim run bfs --preset kim2014 --set bfs.mechanism=hwwl --set bfs.scale=10
	@echo; echo "== color as a cooperative kernel sharing the GPU with a light graphics-like load (docs/cooperative.md)"
	$(BUILD)/fgsim run color --preset orr2014 --set gpu.cus=4 --set color.mechanism=coop --set color.generator=grid --set color.scale=12 --set coop.graphics.load=light

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# 20+ million cycles of the worklist RTL against its golden model (FG_SOAK=30 by default: 39 M cycles, about
# 4.5 minutes on two cores; CI runs it after `test` at FG_SOAK=20: docs/worklist-rtl.md).
soak: build
	python3 tools/soak.py $(BUILD)

# Fuzzing campaigns, 10 minutes per harness (docs/reliability.md; CI runs 45 s each): the config layer,
# the graph and sort-key readers (libFuzzer) and the experiment-file check (needs build/fgsim).
fuzz: deps build
	tools/fuzz.sh 600

# AddressSanitizer + UndefinedBehaviorSanitizer build (build-asan/), its tests and every workload.
sanitize: deps
	tools/sanitize.sh

bench: build
	tools/bench.sh $(BUILD)

# Regenerates every page in docs/validation/ from experiments/*.yaml (Snakemake, all cores).
experiments: build
	tools/experiment.sh

# Full synthesis sweep of the worklist RTL -> docs/synthesis.md (about 150 minutes: docs/synthesis.md).
synth: deps
	python3 synth/synth.py sweep

# k-induction proofs of the worklist RTL (Yosys SAT temporal induction) and the mutations they must reject.
formal: deps
	tools/formal.py prove
	tools/formal.py mutants

clean:
	rm -rf $(BUILD)/CMakeFiles $(BUILD)/fgsim

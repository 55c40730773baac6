# SPDX-License-Identifier: GPL-2.0
# smpnice: the one entry point. "make help" lists the targets.

SHELL := /bin/bash
FLAVOUR ?= default
DURATION ?= 60
export FLAVOUR
# make bench: empty = the default matrix (see scripts/bench.sh --help)
BENCH_TOPOS ?=
BENCH_SCENARIOS ?=
BENCH_SCHEDS ?=
BENCH_REPEAT ?= 3
BENCH_DURATION ?= 4

.PHONY: help deps prepare kernel kernel-debug export checkpatch tools selftests demo bench class-cost check stress torture stress-ng \
	bisect-check matrix quick \
	test-host test-vm clean distclean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | \
		awk -F':.*## ' '{ printf "  make %-14s %s\n", $$1, $$2 }'
	@echo "  Variables: FLAVOUR=default|debug|kasan, KERNEL_SRC=/path/to/linux-6.12.y"

deps: ## install missing packages with apt-get (idempotent)
	@scripts/deps.sh

prepare: ## unpack the 6.12 tree into build/linux and apply patches/series
	@scripts/prepare-tree.sh

kernel: prepare ## build the kernel (FLAVOUR=default|debug|kasan), prints the bzImage path
	@scripts/build-kernel.sh $(FLAVOUR)

kernel-debug: prepare ## build the debug kernel (lockdep, UBSAN, DEBUG_PREEMPT, ...)
	@scripts/build-kernel.sh debug

export: ## regenerate patches/ and patches/series from build/linux's commits
	@scripts/export-patches.sh

checkpatch: ## checkpatch --strict over patches/ (accepted findings: kernel/checkpatch-accepted)
	@scripts/checkpatch.sh

tools: ## build the userspace tools (nicebench, o1run)
	@$(MAKE) -s -C tools

selftests: kernel ## build and install the scheduler kselftests
	@scripts/kselftest.sh build

demo: deps kernel tools ## set up everything and show the article's case (2 CPUs, {0,0}/{19,19})
	@tests/vm/demo.sh

bench: kernel tools ## benchmarks, O1 by count vs smpnice vs CFS on 2/4/8/NUMA/32 CPUs (about 20 min; BENCH_TOPOS= BENCH_SCENARIOS= BENCH_SCHEDS= BENCH_REPEAT= BENCH_DURATION=)
	@BENCH_TOPOS="$(BENCH_TOPOS)" BENCH_SCENARIOS="$(BENCH_SCENARIOS)" BENCH_SCHEDS="$(BENCH_SCHEDS)" \
		BENCH_REPEAT="$(BENCH_REPEAT)" BENCH_DURATION="$(BENCH_DURATION)" scripts/bench.sh

class-cost: kernel ## perf bench messaging/pipe: the default kernel (class built in, unused) vs o1off
	@scripts/build-kernel.sh o1off
	@scripts/class-cost.sh

check: deps kernel tools selftests ## run every test (host, boot, KUnit, kselftests, debug-kernel torture, splat detection)
	@scripts/build-kernel.sh debug
	@scripts/build-kernel.sh o1off
	@tests/run.sh all

# make torture: DURATION is 600 s unless given; TORTURE_FLAVOURS="debug kasan" adds KASAN.
TORTURE_FLAVOURS ?= debug
TORTURE_CPUS ?= 4 8
TORTURE_DURATION := $(if $(filter command line environment,$(origin DURATION)),$(DURATION),600)

torture: prepare tools ## SCHED_O1 torture + stress-ng on debug kernels (DURATION=600, TORTURE_CPUS="4 8", TORTURE_FLAVOURS="debug kasan")
	@scripts/torture.sh --flavours "$(TORTURE_FLAVOURS)" --cpus "$(TORTURE_CPUS)" --duration $(TORTURE_DURATION)

stress: prepare tools ## short torture: debug kernel, 4 CPUs, CPU hotplug (DURATION=60)
	@scripts/build-kernel.sh debug
	@tests/vm/torture.sh --flavour debug --cpus 4 --duration $(DURATION) --hotplug

stress-ng: prepare tools ## stress-ng scheduler stressors under SCHED_O1, debug kernel, 4 CPUs (DURATION=60)
	@scripts/build-kernel.sh debug
	@scripts/stress-ng.sh --flavour debug --cpus 4 --duration $(DURATION)

bisect-check: prepare ## build the kernel after every patch (BISECT_BOOT=1: boot each too); fail naming the first that breaks
	@scripts/bisect-check.sh $(if $(filter 1,$(BISECT_BOOT)),--boot)

matrix: prepare tools ## configuration matrix: O1=n, UP, PREEMPT models, HZ 100/1000, HZ_PERIODIC (MATRIX_ARGS=--reuse|--only ROW)
	@scripts/matrix.sh $(MATRIX_ARGS)

quick: kernel tools selftests ## the inner loop: host tests, one 2-CPU boot, the kselftests
	@tests/run.sh quick

test-host: tools ## host-side tests of scripts and tools only
	@tests/run.sh host

clean: ## remove build outputs (keeps build/linux and the ccache)
	rm -rf build/obj build/kselftest build/logs build/vm-out build/bench
	@$(MAKE) -s -C tools clean

distclean: clean ## remove build/ entirely
	rm -rf build

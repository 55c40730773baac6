# SPDX-License-Identifier: GPL-2.0
# smpnice: the one entry point. "make help" lists the targets.

SHELL := /bin/bash
FLAVOUR ?= default
export FLAVOUR
# DURATION=N on the command line sets the length of torture and stress runs
# (tests/scenarios has each one's default).
ifneq ($(filter command line environment,$(origin DURATION)),)
export DURATION
endif
RUN := scripts/runner.sh
comma := ,
# make bench: empty = the default matrix (see scripts/bench.sh --help)
BENCH_TOPOS ?=
BENCH_SCENARIOS ?=
BENCH_SCHEDS ?=
BENCH_REPEAT ?= 3
BENCH_DURATION ?= 4

.PHONY: help deps prepare kernel kernel-debug export checkpatch tools selftests demo bench class-cost check stress torture stress-ng \
	bisect-check matrix quick recheck \
	test-host test-vm clean distclean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | \
		awk -F':.*## ' '{ printf "  make %-14s %s\n", $$1, $$2 }'
	@echo "  Variables: FLAVOUR=$$(awk -F'|' '!/^ *(#|$$)/ { gsub(/ /, "", $$1); printf "%s%s", s, $$1; s = "|" }' kernel/flavours), KERNEL_SRC=/path/to/linux-6.12.y, DURATION=seconds"

deps: ## install missing packages with apt-get (idempotent)
	@scripts/deps.sh

prepare: ## unpack the 6.12 tree into build/linux and apply patches/series
	@scripts/prepare-tree.sh

kernel: prepare ## build the kernel (FLAVOUR=a line of kernel/flavours), prints the bzImage path
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

check: deps kernel tools selftests ## run every test: the scenarios of set "check" (tests/scenarios)
	@$(RUN) --set check --built $(FLAVOUR)

# make torture: TORTURE_SETS="torture torture-kasan" adds the KASAN kernel.
TORTURE_SETS ?= torture

torture: selftests tools ## SCHED_O1 torture (4 and 8 CPUs, hotplug) + stress-ng on the debug kernel (DURATION=600; TORTURE_SETS="torture torture-kasan")
	@$(RUN) --set $(subst $(eval) ,$(comma),$(strip $(TORTURE_SETS)))

stress: selftests tools ## short torture: debug kernel, 4 CPUs, CPU hotplug (DURATION=60)
	@$(RUN) --set stress

stress-ng: selftests tools ## stress-ng scheduler stressors under SCHED_O1, debug kernel, 4 CPUs (DURATION=180)
	@$(RUN) --set stress-ng

bisect-check: prepare ## build the kernel after every patch (BISECT_BOOT=1: boot each too); fail naming the first that breaks
	@scripts/bisect-check.sh $(if $(filter 1,$(BISECT_BOOT)),--boot)

matrix: selftests tools ## configuration matrix: O1=n, UP, PREEMPT models, HZ 100/1000, HZ_PERIODIC (MATRIX_ARGS=--reuse|--only NAME)
	@$(RUN) --set matrix $(MATRIX_ARGS)

quick: kernel tools selftests ## the inner loop: host tests, one 2-CPU boot, KUnit, the kselftests
	@$(RUN) --set quick --built $(FLAVOUR)

test-host: tools ## host-side tests of scripts and tools only
	@$(RUN) --set host

recheck: ## judge the latest results again (RESULTS_DIR=build/results/... for another)
	@$(RUN) --recheck $(RESULTS_DIR)

clean: ## remove build outputs (keeps build/linux and the ccache)
	rm -rf build/obj build/kselftest build/logs build/vm-out build/bench build/results
	@$(MAKE) -s -C tools clean

distclean: clean ## remove build/ entirely
	rm -rf build

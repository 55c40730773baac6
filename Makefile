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
# The runs that boot kselftests use make check's build of them, or make one.
KSELFTESTS_BUILT := [ -x build/kselftest/install/run_kselftest.sh ] || $(MAKE) -s selftests
comma := ,
# make bench: BENCH_TOPOS picks topologies (2 4 numa smt 8 32; empty: all),
# BENCH_SCENARIOS and BENCH_SCHEDS (comma lists), BENCH_REPEAT and
# BENCH_DURATION change the runs (tests/scenarios, the bench-* lines).
BENCH_TOPOS ?=
export BENCH_SCENARIOS BENCH_SCHEDS BENCH_REPEAT BENCH_DURATION
# make bench-whole: whole-system mode against CFS, each in its own boot, the
# boots alternating (sched_o1=all, sched_o1=all with the estimator off, then
# without) for BENCH_ROUNDS rounds (1-5: the whole-* lines of tests/scenarios)
# on each of BENCH_TOPOS (2 4 8; empty: all three); BENCH_WHOLE_SCHEDS some of
# all noest cfs; BENCH_WHOLE_REPEAT runs of each scenario a boot (1-9; the
# build once); BENCH_SCENARIOS and BENCH_DURATION as for make bench.
BENCH_ROUNDS ?= 3
BENCH_WHOLE_SCHEDS ?= all noest cfs
BENCH_WHOLE_REPEAT ?= 3
export BENCH_WHOLE_REPEAT
# make wakeup-rule: WAKEUP_CPUS (2 or 4) and WAKEUP_ROUNDS (1-20, default 5).
WAKEUP_CPUS ?= 2
WHOLE_TOPOS = $(or $(strip $(BENCH_TOPOS)),2 4 8)
# Round 1 all, round 1 noest, round 1 cfs, round 2 all, ... of each topology
# (the runner runs them in the table's order, which is this one).
WHOLE_ONLY = $(subst $(eval) ,$(comma),$(strip $(foreach t,$(WHOLE_TOPOS),$(foreach k,$(wordlist 1,$(BENCH_ROUNDS),1 2 3 4 5),$(foreach x,$(BENCH_WHOLE_SCHEDS),whole-$t-$x-$k)))))
ifneq ($(filter bench-whole,$(MAKECMDGOALS)),)
ifneq ($(filter-out all noest cfs,$(BENCH_WHOLE_SCHEDS))$(if $(strip $(BENCH_WHOLE_SCHEDS)),,none),)
$(error make bench-whole: BENCH_WHOLE_SCHEDS is some of all noest cfs, not '$(BENCH_WHOLE_SCHEDS)')
endif
ifneq ($(filter-out 1 2 3 4 5,$(BENCH_ROUNDS))$(words $(BENCH_ROUNDS)),1)
$(error make bench-whole: BENCH_ROUNDS is 1 to 5 (the whole-* lines of tests/scenarios), not '$(BENCH_ROUNDS)')
endif
ifneq ($(filter-out 1 2 3 4 5 6 7 8 9,$(BENCH_WHOLE_REPEAT))$(words $(BENCH_WHOLE_REPEAT)),1)
$(error make bench-whole: BENCH_WHOLE_REPEAT is 1 to 9, not '$(BENCH_WHOLE_REPEAT)')
endif
ifneq ($(filter-out 2 4 8,$(WHOLE_TOPOS)),)
$(error make bench-whole: BENCH_TOPOS is some of 2 4 8, not '$(BENCH_TOPOS)')
endif
endif
ifneq ($(filter wakeup-rule,$(MAKECMDGOALS)),)
ifneq ($(filter-out $(shell seq 1 20),$(WAKEUP_ROUNDS))$(filter-out 0 1,$(words $(WAKEUP_ROUNDS))),)
$(error make wakeup-rule: WAKEUP_ROUNDS is 1 to 20, not '$(WAKEUP_ROUNDS)')
endif
ifneq ($(filter-out 2 4,$(WAKEUP_CPUS))$(words $(WAKEUP_CPUS)),1)
$(error make wakeup-rule: WAKEUP_CPUS is 2 or 4, not '$(WAKEUP_CPUS)')
endif
endif
# make study: STUDY_SEEDS (A-B), STUDY_MODES (comma list), STUDY_DURATION.
STUDY_SEEDS ?= 1-100
export STUDY_MODES STUDY_DURATION
LATEST := build/results/latest

.PHONY: help deps prepare headers kernel kernel-debug export checkpatch lint tools selftests demo bench bench-whole wakeup-rule class-cost check stress torture stress-ng study \
	bisect-check matrix quick recheck \
	test-host test-vm clean distclean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | \
		awk -F':.*## ' '{ printf "  make %-14s %s\n", $$1, $$2 }'
	@echo "  Variables: FLAVOUR=$$(. scripts/lib.sh; flavour_names | paste -sd'|'), KERNEL_SRC=/path/to/linux-6.12.y, DURATION=seconds"

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

checkpatch: ## checkpatch --strict over patches/, the first part of make lint (accepted findings: kernel/checkpatch-accepted)
	@scripts/lint.sh --only checkpatch

lint: prepare ## checkpatch, and on build/linux a W=1 build, sparse and kernel-doc: what the series adds to smpnice-base's findings
	@scripts/lint.sh

headers: prepare ## install the patched kernel's uapi headers (build/obj/default/usr/include) for tools and selftests
	@scripts/build-kernel.sh default --headers

tools: headers ## build the userspace tools (nicebench, o1run, pingpong), with the patched uapi headers
	@$(MAKE) -s -C tools

selftests: kernel ## build and install the scheduler kselftests
	@scripts/kselftest.sh build

demo: deps kernel tools ## set up everything and show the article's case (2 CPUs, sched_o1=all, nice {0,0}/{19,19})
	@$(RUN) --set demo --built $(FLAVOUR)
	@d=$(LATEST)/demo/out-demo; \
	set -- "O1 by count (2.6.17)=$$d/o1-smpnice0.json" "O1 smpnice (2.6.18)=$$d/o1-smpnice1.json"; \
	[ ! -f $$d/o1-smpnice2.json ] || set -- "$$@" "O1 sched_smpnice 2=$$d/o1-smpnice2.json"; \
	tools/demo-report.py --show-as build/demo $$d "$$@" "CFS/EEVDF=$$d/cfs.json"
	@rm -rf build/demo && ln -sfn $$(readlink -f $(LATEST))/demo/out-demo build/demo

bench: kernel tools ## benchmarks, O1 by count vs smpnice vs whole-system mode vs CFS on 2/4/8/NUMA/SMT/32 CPUs (BENCH_TOPOS= BENCH_SCENARIOS= BENCH_SCHEDS= BENCH_REPEAT= BENCH_DURATION=)
	@tests/vm/guest/bench.sh --check --scenarios "$(BENCH_SCENARIOS)" --scheds "$(BENCH_SCHEDS)"
	@before=$$(readlink $(LATEST) 2>/dev/null); \
	$(RUN) $(if $(strip $(BENCH_TOPOS)),--only $(subst $(eval) ,$(comma),$(addprefix bench-,$(strip $(BENCH_TOPOS)))),--set bench) --built $(FLAVOUR); \
		rc=$$?; [ "$$(readlink $(LATEST) 2>/dev/null)" != "$$before" ] || exit $$rc; \
		r=$$(readlink -f $(LATEST)); \
		tools/bench-report.py --plots $$r/bench $$r/bench-*/out-bench-* && rm -rf build/bench && ln -sfn $$r/bench build/bench; \
		exit $$rc

bench-whole: kernel tools ## whole-system mode (estimator on and off) vs CFS on 2/4/8 CPUs, each in its own boot, alternating (BENCH_TOPOS="2 4 8" BENCH_ROUNDS=3 BENCH_WHOLE_SCHEDS="all noest cfs" BENCH_WHOLE_REPEAT=3 BENCH_SCENARIOS= BENCH_DURATION=)
	@tests/vm/guest/bench.sh --check --scenarios "$(BENCH_SCENARIOS)" --scheds "$(subst $(eval) ,$(comma),$(strip $(BENCH_WHOLE_SCHEDS)))"
	@before=$$(readlink $(LATEST) 2>/dev/null); \
	BENCH_ROUNDS=$(BENCH_ROUNDS) $(RUN) --only $(WHOLE_ONLY) --built $(FLAVOUR); \
		rc=$$?; [ "$$(readlink $(LATEST) 2>/dev/null)" != "$$before" ] || exit $$rc; \
		r=$$(readlink -f $(LATEST)); \
		tools/bench-report.py --plots $$r/bench-whole \
			$$(ls -d $$r/whole-*/out-whole-*/index.tsv 2>/dev/null | sed 's,/index.tsv$$,,') && \
		rm -rf build/bench-whole && ln -sfn $$r/bench-whole build/bench-whole; \
		exit $$rc

study: kernel tools ## the placement study: random hog scenarios under every balancing mode against their best static placement (STUDY_SEEDS=1-100 STUDY_MODES= STUDY_DURATION=)
	@tools/placement-study.py gen --seeds $(STUDY_SEEDS) --out build/study
	@before=$$(readlink $(LATEST) 2>/dev/null); \
	$(RUN) --only $$(ls build/study/input | sed 's/^/study-/; s/\.txt$$//' | paste -sd,) --built $(FLAVOUR); \
		rc=$$?; [ "$$(readlink $(LATEST) 2>/dev/null)" != "$$before" ] || exit $$rc; \
		r=$$(readlink -f $(LATEST)); \
		tools/placement-study.py report $$r/study $$(ls -d $$r/study-*/out-study-* 2>/dev/null) && \
		rm -rf build/study/report && ln -sfn $$r/study build/study/report; \
		exit $$rc

wakeup-rule: kernel tools ## the wake-up rules (patches 19-20) vs 2.6.17's rules vs the estimator off vs CFS, interleaved in one boot (WAKEUP_CPUS=2 or 4, WAKEUP_ROUNDS=5); the table in the run's output.log
	@$(RUN) --only wakeup-rule-$(WAKEUP_CPUS)cpu --built $(FLAVOUR)

class-cost: kernel ## perf bench messaging/pipe: the default kernel (class built in, unused) vs o1off, alternating boots
	@$(RUN) --set class-cost --built $(FLAVOUR) && tools/class-cost-report.py $$(readlink -f $(LATEST))

check: deps kernel tools selftests ## run every test: the scenarios of set "check" (tests/scenarios)
	@$(RUN) --set check --built $(FLAVOUR)

# make torture: TORTURE_SETS="torture torture-kasan" adds the KASAN kernel.
TORTURE_SETS ?= torture

torture: tools ## SCHED_O1 torture (4 and 8 CPUs, hotplug) + stress-ng on the debug kernel (DURATION=600; TORTURE_SETS="torture torture-kasan")
	@$(KSELFTESTS_BUILT)
	@$(RUN) --set $(subst $(eval) ,$(comma),$(strip $(TORTURE_SETS)))

stress: tools ## short torture: debug kernel, 4 CPUs, CPU hotplug (DURATION=60)
	@$(KSELFTESTS_BUILT)
	@$(RUN) --set stress

stress-ng: tools ## stress-ng scheduler stressors under SCHED_O1, debug kernel, 4 CPUs (DURATION=180)
	@$(KSELFTESTS_BUILT)
	@$(RUN) --set stress-ng

bisect-check: prepare ## build the kernel after every patch, and the sched kselftests after each that changes them (BISECT_BOOT=1: boot each too); fail naming the first that breaks
	@scripts/bisect-check.sh $(if $(filter 1,$(BISECT_BOOT)),--boot)

matrix: tools ## configuration matrix: O1=n, UP, PREEMPT models, HZ 100/1000, HZ_PERIODIC (MATRIX_ARGS=--reuse|--only NAME)
	@$(KSELFTESTS_BUILT)
	@$(RUN) --set matrix $(MATRIX_ARGS)

quick: kernel tools selftests ## the inner loop: host tests, one 2-CPU boot, KUnit, the kselftests
	@$(RUN) --set quick --built $(FLAVOUR)

test-host: tools ## host-side tests of scripts and tools only
	@$(RUN) --set host

recheck: ## judge the latest results again (RESULTS_DIR=build/results/... for another)
	@$(RUN) --recheck $(RESULTS_DIR)

clean: ## remove build outputs (keeps build/linux and the ccache)
	rm -rf build/obj build/kselftest build/logs build/vm-out build/bench build/bench-whole build/results
	@$(MAKE) -s -C tools clean

distclean: clean ## remove build/ entirely
	rm -rf build

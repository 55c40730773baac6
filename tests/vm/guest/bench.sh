#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In the guest (the bench-TOPO scenarios of tests/scenarios): every
# scenario x scheduler x repeat of one topology, raw results to /tmp/out
# (out-bench-TOPO/ in the run's directory). The schedulers: count = SCHED_O1 with
# sched_smpnice 0 (2.6.17), smpnice = SCHED_O1 with sched_smpnice 1
# (2.6.18), smpnice2 = SCHED_O1 with sched_smpnice 2 (skipped on a kernel
# without it), all = whole-system mode (kernel.sched_o1_all 1, smpnice: the
# same plain SCHED_NORMAL tasks as cfs, all of the guest's tasks in the
# O(1) class), noest = whole-system mode with the interactivity estimator
# off (kernel.sched_o1_interactive 0: every task at its nice level's
# priority; skipped on a kernel without the estimator), cfs = SCHED_NORMAL
# (CFS/EEVDF, kernel.sched_o1_all 0).
# make bench-whole (the whole-TOPO-SCHED-K scenarios) runs one scheduler a
# boot, --repeat 1: "all" (and "noest") in a boot with sched_o1=all, "cfs"
# in one without, the boots alternating for BENCH_ROUNDS rounds
# (out-whole-*/).
#
# Usage: tests/vm/guest/bench.sh [--scenarios LIST] [--scheds LIST]
#                                [--repeat N] [--once LIST]
#                                [--duration SEC] [--out DIR]
#        tests/vm/guest/bench.sh --list     (the scenarios; runs anywhere)
#        tests/vm/guest/bench.sh --check [--scenarios L] [--scheds L]
#                                           (only check the names; anywhere)
#
# Fairness scenarios (nicebench, CPU hogs released from a bad start after
# 200 ms, shares sampled every 100 ms; N = CPUs of the guest):
#   article   N nice 0 and N nice 19 hogs, the nice 0 ones on the first
#             half of the CPUs, the nice 19 ones on the second half
#             (2 CPUs: {0,0} / {19,19}, the article's case)
#   mixed     nice 0,5,10,15,19 (N/2 times), all started on CPU 0
#   minus20   one nice -20 hog among nice 0 hogs (3 on 2 CPUs, N on more)
#   odd       N+1 nice 0 hogs (3 on 2 CPUs, 5 on 4), all on CPU 0
#   sleepers  N nice 0 hogs and N nice 0 tasks of 50 % duty cycle
#   rt        one SCHED_FIFO hog (priority 10) on the last CPU, N+1 nice 0
#             hogs on CPU 0
# Throughput scenarios (the work runs under the scheduler; O1 via o1run;
# under perf stat -a where perf is installed, for the guest's context
# switches and migrations):
#   messaging perf bench sched messaging -g 4 -l 40
#   pipe      perf bench sched pipe -l 5000
#   hackbench hackbench -g 4 -l 50
#   starve    pingpong: two tasks hand a signal back and forth 2000 times
#             on CPU 0 beside a CPU hog there (LTP's starvation check)
#   make      make -jN of a generated tree of 12 C files in tmpfs (after
#             one untimed build that loads the compiler into the page cache)
#   build     make -jN of a real C code base: the kernel tree's objtool and
#             its libsubcmd (25 files, some 20k lines), into tmpfs (warmed
#             as make is)
# Latency scenario (all, noest and cfs only: the opt-in class would run the
# measuring threads in CFS, above its hogs):
#   latency   cyclictest --policy=other (SCHED_OTHER, nice 0), one thread
#             per CPU waking every 10 ms, beside N nice 0 and N nice 19
#             hogs; the wake-up latency in us (mean, 99th percentile, max)
#             (cyclictest cannot measure SCHED_BATCH threads: it runs
#             its threads SCHED_OTHER at priority 0 whatever --policy
#             says; the kselftest batch_shell_waits_for_hogs measures the
#             class without its estimator)
#
# --once LIST: those scenarios run in the first repeat only (make
# bench-whole's build, a minute a run, beside runs of a second or two).
#
# /tmp/out/index.tsv gets one line per run:
#   kind scenario sched rep status wall_ns result-file balance-file
# where kind is fair, tput or lat and balance-file holds
# /sys/kernel/debug/sched/o1_balance after the run (reset before it).
# A throughput run's perf stat output is KIND-SCENARIO-SCHED-REP.perf.
set -uo pipefail

FAIR_SCENARIOS="article mixed minus20 odd sleepers rt"
TPUT_SCENARIOS="messaging pipe hackbench starve make build"
LAT_SCENARIOS="latency"
ALL_SCHEDS="count smpnice smpnice2 all noest cfs"

scenarios="$FAIR_SCENARIOS $TPUT_SCENARIOS $LAT_SCENARIOS" scheds=$ALL_SCHEDS repeat=3 once="" duration=4 check_only=0
out=${SMPNICE_OUT:-/tmp/out}
die() { echo "bench.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--scenarios) scenarios=${2//,/ }; shift 2 ;;
	--scheds) scheds=${2//,/ }; shift 2 ;;
	--repeat) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--repeat wants a positive number"; repeat=$2; shift 2 ;;
	--once) once=${2//,/ }; shift 2 ;;
	--duration) [[ ${2:-} =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--duration wants seconds"; duration=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--check) check_only=1; shift ;;
	--list) echo "fair: $FAIR_SCENARIOS"; echo "tput: $TPUT_SCENARIOS"; echo "lat: $LAT_SCENARIOS"
		echo "scheds: $ALL_SCHEDS"; exit 0 ;;
	-h|--help) sed -n '3,67p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (try --help)" ;;
	esac
done
for s in $scenarios $once; do
	[[ " $FAIR_SCENARIOS $TPUT_SCENARIOS $LAT_SCENARIOS " == *" $s "* ]] || die "unknown scenario '$s' (try --list)"
done
for s in $scheds; do
	[[ " $ALL_SCHEDS " == *" $s "* ]] || die "unknown scheduler '$s' (${ALL_SCHEDS// /, })"
done
[ "$check_only" -eq 0 ] || exit 0

ncpus=$(nproc)
# Dozens of vCPUs on a few host cores take a long time to start 2N tasks.
ready_timeout=$((ncpus > 8 ? 180 : 10))
BAL=/sys/kernel/debug/sched/o1_balance
SMPNICE=/proc/sys/kernel/sched_smpnice
ALL=/proc/sys/kernel/sched_o1_all
EST=/proc/sys/kernel/sched_o1_interactive
have_o1=1 have_all=1 have_perf=1
[ -w "$SMPNICE" ] || have_o1=0
[ -w "$ALL" ] || have_all=0
perf stat -e context-switches -a -- true >/dev/null 2>&1 || have_perf=0
# The objtool sources of the kernel tree the project patches.
BUILD_SRC=${BENCH_BUILD_SRC:-build/linux/tools/objtool}

# repeat_list N VALUE: VALUE,VALUE,... N times
repeat_list() { local i r=""; for ((i = 0; i < $1; i++)); do r+="${r:+,}$2"; done; echo "$r"; }

# scenario_args NAME: the nicebench arguments of a fairness scenario
scenario_args() {
	local n=$ncpus half=$((ncpus / 2 > 0 ? ncpus / 2 : 1)) nice="" start="" i c extra
	case $1 in
	article)
		for ((i = 0; i < 2 * n; i++)); do
			nice+="${nice:+,}$([ "$i" -lt "$n" ] && echo 0 || echo 19)"
			c=$((i / 2)); [ "$c" -lt "$n" ] || c=$((n - 1))
			start+="${start:+,}$c"
		done
		echo "--nice $nice --start $start" ;;
	mixed)
		for ((i = 0; i < half; i++)); do nice+="${nice:+,}0,5,10,15,19"; done
		echo "--nice $nice --start $(repeat_list $((5 * half)) 0)" ;;
	minus20)
		extra=$([ "$n" -le 2 ] && echo 3 || echo "$n")
		echo "--nice -20,$(repeat_list "$extra" 0) --start $(repeat_list $((extra + 1)) 0)" ;;
	odd)
		echo "--nice $(repeat_list $((n + 1)) 0) --start $(repeat_list $((n + 1)) 0)" ;;
	sleepers)
		echo "--nice $(repeat_list $((2 * n)) 0) --start $(repeat_list $((2 * n)) 0)" \
		     "--duty $(repeat_list "$n" 100),$(repeat_list "$n" 50)" ;;
	rt)
		# the FIFO hog on the last CPU: a CPU it shares would starve
		# the others (6.12 throttles real-time tasks only for CFS)
		echo "--nice $(repeat_list $((n + 2)) 0) --start $((n - 1)),$(repeat_list $((n + 1)) 0)" \
		     "--rt 10,$(repeat_list $((n + 1)) 0)" ;;
	esac
}

# make_tree DIR: a small C program tree and its Makefile
make_tree() {
	local d=$1 i
	rm -rf "$d"; mkdir -p "$d"
	for i in $(seq 1 12); do
		cat >"$d/f$i.c" <<-EOF
		static unsigned long mix$i(unsigned long x) { return x * 6364136223846793005UL + $i; }
		unsigned long f$i(unsigned long n)
		{
			unsigned long s = 0, i;
			for (i = 0; i < n; i++)
				s ^= mix$i(s + i) >> (i % 7);
			return s;
		}
		EOF
	done
	{
		echo '#include <stdio.h>'
		for i in $(seq 1 12); do echo "unsigned long f$i(unsigned long);"; done
		echo 'int main(void) { unsigned long s = 0;'
		for i in $(seq 1 12); do echo "s += f$i(1000);"; done
		echo 'printf("%lu\n", s); return 0; }'
	} >"$d/main.c"
	printf 'OBJS := main.o %s\nprog: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n%%.o: %%.c\n\t$(CC) -O2 -c -o $@ $<\n' \
		"$(for i in $(seq 1 12); do printf 'f%d.o ' "$i"; done)" >"$d/Makefile"
}

# tput_cmd NAME: the command line of a throughput scenario
tput_cmd() {
	case $1 in
	messaging) echo "perf bench sched messaging -g 4 -l 40" ;;
	pipe) echo "perf bench sched pipe -l 5000" ;;
	hackbench) echo "hackbench -g 4 -l 50" ;;
	starve) echo "pingpong -n 2000 -c 0 -H 1" ;;
	make) echo "make -s -C /tmp/bench-make -j$ncpus prog" ;;
	build) echo "make -s -C $BUILD_SRC O=/tmp/bench-build -j$ncpus" ;;
	esac
}

# The scheduler's knobs; whole-system mode off for all but "all" and
# "noest", the estimator on for all but "noest".
set_sched() {
	if [ "$have_all" -eq 1 ]; then
		case $1 in all|noest) echo 1 ;; *) echo 0 ;; esac >"$ALL"
	fi
	if [ -w "$EST" ]; then
		if [ "$1" = noest ]; then echo 0; else echo 1; fi >"$EST"
	fi
	case $1 in
	count) echo 0 >"$SMPNICE" ;;
	smpnice|all|noest) echo 1 >"$SMPNICE" ;;
	smpnice2) echo 2 >"$SMPNICE" ;;
	esac
}

# The policy nicebench gives its hogs: plain SCHED_NORMAL but for the
# opt-in class.
hog_policy() { case $1 in count|smpnice|smpnice2) echo o1 ;; *) echo normal ;; esac; }

# run_latency SCENARIO SCHED RESULT: cyclictest beside nice 0 and nice 19
# hogs
run_latency() {
	shift
	local nice n=$ncpus hogs rc secs=${duration%.*}
	[ "${secs:-0}" -ge 1 ] || secs=1
	nice="$(repeat_list "$n" 0),$(repeat_list "$n" 19)"
	nicebench --nice "$nice" --policy "$(hog_policy "$1")" --duration "$((secs + 2))" \
		--quiet --ready-timeout "$ready_timeout" >/dev/null 2>&1 &
	hogs=$!
	sleep 1
	cyclictest --policy=other -t "$n" -i 10000 -D "$secs" -q -m -h 100000 \
		--json="$2" >/dev/null 2>&1
	rc=$?
	wait "$hogs" || rc=$?
	return "$rc"
}

now_ns() { date +%s%N; }
# progress LINE: on the console and in /tmp/out/progress.log (the host
# follows that file while the guest runs)
progress() { echo "$1"; echo "$1" >>"$out/progress.log"; }

# run_one KIND SCENARIO SCHED REP: one measurement, a line in index.tsv
run_one() {
	local kind=$1 scen=$2 sched=$3 rep=$4 base res bal="-" t0 t1 rc
	base=$kind-$scen-$sched-$rep
	set_sched "$sched"
	[ "$sched" = cfs ] || echo 0 >"$BAL" 2>/dev/null
	t0=$(now_ns)
	if [ "$kind" = fair ]; then
		res=$base.json
		# shellcheck disable=SC2046
		nicebench $(scenario_args "$scen") --policy "$(hog_policy "$sched")" \
			--release 200 --duration "$duration" --interval 100 --quiet \
			--ready-timeout "$ready_timeout" \
			--json "$out/$res" >"$out/$base.log" 2>&1
		rc=$?
	elif [ "$kind" = lat ]; then
		res=$base.json
		run_latency "$scen" "$sched" "$out/$res" >"$out/$base.log" 2>&1
		rc=$?
	else
		res=$base.txt
		[ "$scen" = make ] && make_tree /tmp/bench-make
		[ "$scen" = build ] && rm -rf /tmp/bench-build && mkdir /tmp/bench-build
		local stat=()
		[ "$have_perf" -eq 0 ] ||
			stat=(perf stat "-x," -e "context-switches,cpu-migrations" -a -o "$out/$base.perf" --)
		t0=$(now_ns)
		if [ "$(hog_policy "$sched")" = normal ]; then
			# shellcheck disable=SC2046
			"${stat[@]}" $(tput_cmd "$scen") >"$out/$res" 2>&1
		else
			# shellcheck disable=SC2046
			"${stat[@]}" o1run -- $(tput_cmd "$scen") >"$out/$res" 2>&1
		fi
		rc=$?
	fi
	t1=$(now_ns)
	if [ "$sched" != cfs ] && [ -r "$BAL" ]; then
		bal=$base.bal
		cat "$BAL" >"$out/$bal"
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$scen" "$sched" "$rep" "$rc" \
		$((t1 - t0)) "$res" "$bal" >>"$out/index.tsv"
	progress "$(printf '[%d/%d] %-4s %-9s %-7s #%d %5.1fs %s' "$n" "$total" "$kind" "$scen" \
		"$sched" "$rep" "$(awk -v ns=$((t1 - t0)) 'BEGIN { print ns / 1e9 }')" \
		"$([ "$rc" -eq 0 ] && echo ok || echo "FAILED (exit $rc, see $base.log or .txt)")")"
	return "$rc"
}

if [ "$have_o1" -eq 0 ]; then
	echo "bench.sh: no /proc/sys/kernel/sched_smpnice: only CFS is measured"
	scheds=cfs
else
	if [ "$have_all" -eq 0 ] && [[ " $scheds " == *" all "* || " $scheds " == *" noest "* ]]; then
		echo "bench.sh: no $ALL: no whole-system runs"
		scheds=${scheds//all/} scheds=${scheds//noest/}
	fi
	if [ ! -w "$EST" ] && [[ " $scheds " == *" noest "* ]]; then
		echo "bench.sh: no $EST (a kernel without the estimator): no noest runs"
		scheds=${scheds//noest/}
	fi
	if [[ " $scheds " == *" smpnice2 "* ]] && ! echo 2 >"$SMPNICE" 2>/dev/null; then
		echo "bench.sh: this kernel has no sched_smpnice=2: no smpnice2 runs"
		scheds=${scheds//smpnice2/}
	fi
	echo 1 >"$SMPNICE"
fi
if [[ " $scenarios " == *" build "* ]] && [ ! -f "$BUILD_SRC/Makefile" ]; then
	echo "bench.sh: no $BUILD_SRC (BENCH_BUILD_SRC=): no build runs"
	scenarios=${scenarios//build/}
fi
# SMT threads per core, from CPU 0's siblings ("0-1", "0,2").
threads=0
IFS=, read -ra sibs <<<"$(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null)"
for p in "${sibs[@]}"; do
	if [[ $p == *-* ]]; then threads=$((threads + ${p#*-} - ${p%-*} + 1)); else threads=$((threads + 1)); fi
done
{
	echo "cpus=$ncpus"
	echo "threads=$threads"
	echo "kernel=$(uname -r)"
	echo "nodes=$(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)"
	echo "duration=$duration"
	echo "repeat=$repeat"
	echo "sched_domains=$(cat /sys/kernel/debug/sched/domains/cpu0/domain*/name 2>/dev/null | tr '\n' ' ')"
} >"$out/info.txt"
: >"$out/index.tsv"
: >"$out/progress.log"

# Warm the guest's page cache with the compiler (read over 9p), so that the
# first timed build does not pay for it.
if [[ " $scenarios " == *" make "* ]]; then
	make_tree /tmp/bench-make && $(tput_cmd make) >/dev/null 2>&1
fi
if [[ " $scenarios " == *" build "* ]]; then
	rm -rf /tmp/bench-build && mkdir /tmp/bench-build && $(tput_cmd build) >/dev/null 2>&1
fi

# Load the throughput programs and their libraries into the page cache, so
# that the first timed run of a boot does not read them from disk.
for s in $scenarios; do
	case $s in
	messaging) perf bench sched messaging -g 1 -l 1 ;;
	pipe) perf bench sched pipe -l 10 ;;
	hackbench) hackbench -g 1 -l 1 ;;
	starve) pingpong -n 10 -c 0 -H 1 ;;
	esac >/dev/null 2>&1
done

# Whether SCHED runs SCENARIO: latency only beside hogs of the same class.
runs_in() { [[ $2 != latency* ]] || [ "$(hog_policy "$1")" = normal ]; }
# Repeats of SCENARIO: 1 if --once names it.
repeats() { if [[ " $once " == *" $1 "* ]]; then echo 1; else echo "$repeat"; fi; }

total=0
for s in $scenarios; do for x in $scheds; do runs_in "$x" "$s" && total=$((total + $(repeats "$s"))); done; done
progress "== $ncpus CPUs: $total runs ($scenarios; $scheds; $repeat repeats)"
fails=0 n=0
# Repeats outermost and the schedulers interleaved, so that a slow stretch
# of the host hits every scheduler alike.
for ((rep = 1; rep <= repeat; rep++)); do
	for scen in $scenarios; do
		[ "$rep" -le "$(repeats "$scen")" ] || continue
		kind=fair
		[[ " $TPUT_SCENARIOS " == *" $scen "* ]] && kind=tput
		[[ " $LAT_SCENARIOS " == *" $scen "* ]] && kind=lat
		for sched in $scheds; do
			runs_in "$sched" "$scen" || continue
			n=$((n + 1))
			run_one "$kind" "$scen" "$sched" "$rep" || fails=$((fails + 1))
		done
	done
done
[ "$have_o1" -eq 0 ] || echo 1 >"$SMPNICE"
[ "$have_all" -eq 0 ] || echo 0 >"$ALL"
progress "== $ncpus CPUs: $n runs, $fails failed"
[ "$fails" -eq 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench: fairness, convergence, stability, throughput and the cost of
# balancing, O1 by count (2.6.17) vs O1 smpnice (2.6.18) vs CFS/EEVDF, one
# QEMU boot per topology (tests/vm/guest/bench.sh runs in it), then the
# report (tools/bench-report.py): build/bench/results.json, bench.md and
# plots/*.png.
#
# Usage: scripts/bench.sh [--topos LIST] [--scenarios LIST] [--scheds LIST]
#                         [--repeat N] [--duration SEC] [--no-plots]
#   --topos       2, 4, numa (4 CPUs on 2 nodes), smt (2 cores x 2 threads),
#                 8, 32 (the scale run);
#                 default: all of them
#   --scenarios   fairness: article mixed minus20 odd sleepers rt;
#                 throughput: messaging pipe hackbench make. Default: each
#                 topology's own set (below); a list runs on every topology
#   --scheds      count smpnice cfs (default: all three; the 32-CPU scale
#                 run, which measures the O1 balancer's cost, only the two O1)
#   --repeat      repeats of every measurement (default 3; the 32-CPU scale
#                 run always runs once)
#   --duration    seconds measured per fairness run (default 4)
# Make variables: BENCH_TOPOS, BENCH_SCENARIOS, BENCH_SCHEDS, BENCH_REPEAT,
# BENCH_DURATION. The default matrix took 27-30 minutes on this 2-core host
# while other jobs kept it busy.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() { sed -n '3,24p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }

# topology | vm-run.sh options | default scenarios | default schedulers |
# minutes on this host (busy)
TOPOLOGIES=(
	"2|--cpus 2|article mixed minus20 odd sleepers rt messaging pipe hackbench make|count smpnice cfs|10-13"
	"4|--cpus 4|article odd minus20 messaging|count smpnice cfs|5"
	"numa|--cpus 4 --numa 2|article messaging|count smpnice cfs|3"
	"smt|--cpus 4 --sockets 1 --cores 2 --threads 2|article messaging|count smpnice cfs|3"
	"8|--cpus 8|article messaging|count smpnice cfs|5"
	"32|--cpus 32 --mem 2048 --allow-splat|article|count smpnice|4-6"
)
GUEST=tests/vm/guest/bench.sh

topos=${BENCH_TOPOS:-} scenarios=${BENCH_SCENARIOS:-} scheds=${BENCH_SCHEDS:-}
repeat=${BENCH_REPEAT:-3} duration=${BENCH_DURATION:-4} plots=--plots
need() { [ $# -ge 2 ] || die "bench.sh: $1 needs a value (try --help)"; }
while [ $# -gt 0 ]; do
	case $1 in
	--topos) need "$@"; topos=$2; shift 2 ;;
	--scenarios) need "$@"; scenarios=$2; shift 2 ;;
	--scheds) need "$@"; scheds=$2; shift 2 ;;
	--repeat) need "$@"; repeat=$2; shift 2 ;;
	--duration) need "$@"; duration=$2; shift 2 ;;
	--no-plots) plots=--no-plots; shift ;;
	-h|--help) usage 0 ;;
	*) die "bench.sh: unknown argument '$1' (try --help)" ;;
	esac
done
topos=${topos//,/ } scenarios=${scenarios//,/ } scheds=${scheds//,/ }
[[ $repeat =~ ^[1-9][0-9]*$ ]] || die "bench.sh: repeat wants a positive number, got '$repeat'"
[[ $duration =~ ^[0-9]+(\.[0-9]+)?$ ]] && [ "${duration%.*}" -ge 2 ] ||
	die "bench.sh: duration wants seconds (at least 2), got '$duration'"

known_topos=$(printf '%s\n' "${TOPOLOGIES[@]}" | cut -d'|' -f1 | tr '\n' ' ')
[ -n "$topos" ] || topos=$known_topos
for t in $topos; do
	[[ " $known_topos " == *" $t "* ]] || die "bench.sh: unknown topology '$t' (known: $known_topos)"
done
# The guest script knows the scenarios and schedulers: let it check them.
"$TOP/$GUEST" --check --scenarios "${scenarios// /,}" --scheds "${scheds// /,}" ||
	die "bench.sh: the names are in '$GUEST --list'"
[ -x "$TOP/tools/nicebench" ] && [ -x "$TOP/tools/o1run" ] || die "tools are not built: run 'make tools'"
kernel=$BUILD/obj/${FLAVOUR:-default}/arch/x86/boot/bzImage
[ -f "$kernel" ] || die "no kernel at ${kernel#"$TOP"/}: run 'make kernel' first"

out=$BUILD/bench
mkdir -p "$out/raw"
start=$SECONDS
msg "bench: topologies $topos; schedulers ${scheds:-default}; $repeat repeats of ${duration} s; kernel ${kernel#"$TOP"/}"
dirs=() failed=()
i=0 ntopo=$(wc -w <<<"$topos")
for t in $topos; do
	i=$((i + 1))
	IFS='|' read -r name opts defaults def_scheds minutes < <(printf '%s\n' "${TOPOLOGIES[@]}" | grep "^$t|")
	scen=${scenarios:-$defaults}
	sch=${scheds:-$def_scheds}
	rep=$repeat
	[ "$name" != 32 ] || rep=1
	runs=$(($(wc -w <<<"$scen") * $(wc -w <<<"$sch") * rep))
	raw=$out/raw/$name
	# generous: a busy host makes the guest several times slower
	timeout=$((600 + runs * (${duration%.*} + 40) * 3))
	msg "[$i/$ntopo] topology $name ($opts): $runs runs (the default set took $minutes min here)"
	log=$LOGS/bench-$name.log
	mkdir -p "$LOGS"
	# shellcheck disable=SC2086
	"$TOP/scripts/vm-run.sh" $opts --name "bench-$name" --out "$raw" --timeout "$timeout" -- \
		"$GUEST" --scenarios "${scen// /,}" --scheds "${sch// /,}" \
		--repeat "$rep" --duration "$duration" >"$log" 2>&1 &
	pid=$!
	# follow the guest's progress file (on the out share) while it runs
	seen=0
	while kill -0 "$pid" 2>/dev/null; do
		sleep 2
		if [ -f "$raw/progress.log" ]; then
			now=$(wc -l <"$raw/progress.log")
			[ "$now" -le "$seen" ] || sed -n "$((seen + 1)),${now}p" "$raw/progress.log" | sed 's/^/    /' >&2
			seen=$now
		fi
	done
	rc=0
	wait "$pid" || rc=$?
	[ -f "$raw/progress.log" ] && sed -n "$((seen + 1)),\$p" "$raw/progress.log" | sed 's/^/    /' >&2
	if [ "$rc" -ne 0 ]; then
		grep -E '^(==>|ERROR|KERNEL SPLAT)' "$log" | tail -n 5 >&2 || true
		warn "topology $name: exit status $rc (log ${log#"$TOP"/}); its finished runs are still reported"
		failed+=("$name")
	fi
	[ -s "$raw/index.tsv" ] && dirs+=("$raw")
done
elapsed=$((SECONDS - start))
[ "${#dirs[@]}" -gt 0 ] || die "bench: no results (see $LOGS/bench-*.log)"
msg "report from ${#dirs[@]} topolog$([ "${#dirs[@]}" -eq 1 ] && echo y || echo ies)"
"$TOP/tools/bench-report.py" "$plots" "$out" "${dirs[@]}"
msg "bench: measured in $((elapsed / 60)) min $((elapsed % 60)) s; results in ${out#"$TOP"/}/ (bench.md, results.json, plots/)"
[ "${#failed[@]}" -eq 0 ] || die "bench: topologies with failures: ${failed[*]}"

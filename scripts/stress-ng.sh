#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The stress-ng scheduler stressors under SCHED_O1 in a QEMU guest (debug
# kernel by default): tools/o1run starts stress-ng as SCHED_O1, its workers
# inherit the class. Stressors: affinity, nice, resched, schedpolicy,
# yield, fork, futex, switch (all present in stress-ng 0.15.06), N
# instances each (default: one per CPU).
#
# Passes only if stress-ng exits 0 and the console shows no kernel splat.
# stress-ng's other codes all fail the run: 1 harness error, 2 a stressor
# failed, 3 a stressor could not start (resources, missing system call),
# 4 a stressor is not implemented here -- a stressor that did not run
# would pass silently otherwise.
#
# Usage: scripts/stress-ng.sh [--flavour debug|kasan|default] [--cpus N] [--duration SEC] [--instances N]
#   defaults: --flavour debug --cpus 4 --duration 60 --instances = --cpus
#   The result goes to build/torture/runs/stress-ng-FLAVOUR-CPUS.{status,yaml}.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

STRESSORS="affinity nice resched schedpolicy yield fork futex switch"
flavour=debug cpus=4 duration=60 instances=""
need() { [ $# -ge 2 ] || die "stress-ng.sh: $1 needs a value (try --help)"; }
posint() { [[ $2 =~ ^[1-9][0-9]*$ ]] || die "stress-ng.sh: $1 wants a positive number, got '$2'"; }
while [ $# -gt 0 ]; do
	case $1 in
	--flavour) need "$@"; case $2 in debug|kasan|default) ;; *) die "stress-ng.sh: unknown flavour '$2'" ;; esac
		flavour=$2; shift 2 ;;
	--cpus) need "$@"; posint "$1" "$2"; cpus=$2; shift 2 ;;
	--duration) need "$@"; posint "$1" "$2"; duration=$2; shift 2 ;;
	--instances) need "$@"; posint "$1" "$2"; instances=$2; shift 2 ;;
	-h|--help) sed -n '3,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "stress-ng.sh: unknown argument '$1' (try --help)" ;;
	esac
done
instances=${instances:-$cpus}
command -v stress-ng >/dev/null || die "stress-ng is missing: run 'make deps'"
if [ ! -f "$BUILD/obj/$flavour/arch/x86/boot/bzImage" ]; then
	echo "skip: no $flavour kernel built (make kernel FLAVOUR=$flavour)"
	exit 77
fi
make -s -C "$TOP/tools" o1run || die "cannot build tools/o1run"

name=stress-ng-$flavour-$cpus
out=$BUILD/vm-out/$name
log=$LOGS/vm/$name.log
runs=$BUILD/torture/runs
mkdir -p "$runs"
rm -f "$runs/$name".*
rm -f "$out/rescues"

args=()
for s in $STRESSORS; do args+=("--$s" "$instances"); done
start=$SECONDS
# The guest's root (and so the project directory) is read-only: run in /tmp.
"$TOP/scripts/vm-run.sh" --flavour "$flavour" --cpus "$cpus" --name "$name" \
	--timeout $((duration + 300)) --out "$out" -- \
	bash -c 'cd /tmp && "$@"; rc=$?
		grep -h nr_rescues /sys/kernel/debug/sched/debug >/tmp/out/rescues 2>/dev/null
		exit $rc' stress-ng \
	o1run -- stress-ng "${args[@]}" --timeout "${duration}s" --metrics-brief \
	--temp-path /tmp --yaml /tmp/out/stress-ng.yaml
rc=$?
wall=$((SECONDS - start))

# bogo ops per stressor from the YAML metrics
bogo="" total=""
if [ -s "$out/stress-ng.yaml" ]; then
	cp "$out/stress-ng.yaml" "$runs/$name.yaml"
	read -r total bogo < <(python3 - "$out/stress-ng.yaml" <<-'EOF'
	import re, sys
	cur, ops = None, {}
	for line in open(sys.argv[1]):
	    m = re.match(r"\s*-\s*stressor:\s*(\S+)", line)
	    if m:
	        cur = m.group(1)
	    m = re.match(r"\s*bogo-ops:\s*(\d+)", line)
	    if m and cur:
	        ops[cur] = int(m.group(1))
	print(sum(ops.values()), ",".join("%s:%d" % kv for kv in ops.items()))
	EOF
	) || true
fi
# How often the class had to rescue O1 tasks starved by the classes above
# (the o1_rq blocks of sched/debug, summed over the CPUs).
rescues=$(awk '{ n += $NF } END { if (NR) print n }' "$out/rescues" 2>/dev/null || true)
printf 'flavour=%s cpus=%s duration=%s rc=%s wall=%s bogo_ops=%s bogo=%s rescues=%s log=%s\n' \
	"$flavour" "$cpus" "$duration" "$rc" "$wall" "${total:-?}" "${bogo:-?}" "${rescues:-?}" \
	"${log#"$TOP"/}" >"$runs/$name.status"
[ -n "$bogo" ] && echo "stress-ng: bogo ops: ${bogo//,/, }"
[ -n "$rescues" ] && echo "stress-ng: O1 rescues from starvation (all CPUs): $rescues"

what="$flavour kernel, $cpus CPUs, ${duration}s, $instances x {${STRESSORS// /,}} under SCHED_O1"
case $rc in
0)	echo "ok - stress-ng passed on the $what (console: ${log#"$TOP"/})" ;;
124)	echo "not ok - the guest timed out (hang?); console: $log" ;;
125)	echo "not ok - the guest reported no exit status (panic or boot failure); console: $log" ;;
126)	echo "not ok - kernel splat on the console: $log" ;;
*)	echo "not ok - stress-ng exited $rc on the $what; console: $log" ;;
esac
exit "$rc"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Proves that SCHED_O1 survives a randomized stress in a QEMU guest: workers
# under SCHED_O1 switch policies (O1, NORMAL, BATCH, IDLE, short FIFO stints),
# nice values and affinities, switch each other, fork, and share a PI mutex
# (tools/o1stress), optionally while CPUs go offline and online; the run
# fails on any kernel splat (vm-run.sh exit 126), a stuck or failed worker,
# an unreaped child or an unexpected error. Skips (77) when the kernel of
# the flavour is not built or has no SCHED_O1.
#
# Usage: tests/vm/stress.sh [--flavour debug|default] [--cpus N] [--duration SEC] [--hotplug]
#   defaults: --flavour debug --cpus 4 --duration 60
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/scripts/lib.sh"

usage_err() { printf 'stress.sh: %s (try --help)\n' "$*" >&2; exit 2; }
need() { [ $# -ge 2 ] || usage_err "$1 needs a value"; }

flavour=debug cpus=4 duration=60 hotplug=0
while [ $# -gt 0 ]; do
	case $1 in
	--flavour) need "$@"; case $2 in debug|default) ;; *) usage_err "--flavour wants debug or default, got '$2'" ;; esac
		flavour=$2; shift 2 ;;
	--cpus) need "$@"; [[ $2 =~ ^[1-9][0-9]*$ ]] || usage_err "--cpus wants a positive number, got '$2'"
		cpus=$2; shift 2 ;;
	--duration) need "$@"; [[ $2 =~ ^[1-9][0-9]*$ ]] || usage_err "--duration wants whole seconds > 0, got '$2'"
		duration=$2; shift 2 ;;
	--hotplug) hotplug=1; shift ;;
	-h|--help) sed -n '3,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) usage_err "unknown argument '$1'" ;;
	esac
done

if [ ! -f "$BUILD/obj/$flavour/arch/x86/boot/bzImage" ]; then
	echo "skip: no $flavour kernel built (make kernel FLAVOUR=$flavour)"
	exit 77
fi
make -s -C "$TOP/tools" o1stress || { echo "stress.sh: cannot build tools/o1stress"; exit 1; }

name=stress-$flavour-$cpus
args=(--duration "$duration")
if [ "$hotplug" -eq 1 ]; then
	name+=-hotplug
	args+=(--hotplug)
fi
out=$BUILD/vm-out/$name
log=$LOGS/vm/$name.log

"$TOP/scripts/vm-run.sh" --flavour "$flavour" --cpus "$cpus" --name "$name" \
	--timeout $((duration + 240)) --out "$out" -- \
	tools/o1stress "${args[@]}" --json /tmp/out/o1stress.json
rc=$?

# One-line summary from the guest's JSON (if it got that far).
json=$out/o1stress.json
if [ -s "$json" ]; then
	python3 - "$json" <<-'EOF' || true
	import json, sys
	d = json.load(open(sys.argv[1]))
	if d.get("result") == "skip":
	    print("o1stress: skip:", d.get("reason", ""))
	    sys.exit(0)
	t, h = d["totals"], d["hotplug_stats"]
	print("o1stress: %s: %d workers, %d CPUs, %.0f s: %d ops; policy switches %d "
	      "(fifo %d), sibling switches %d, nice changes %d, affinity changes %d, "
	      "forks %d/%d reaped, yields %d, PI lock/unlock %d (timeouts %d), "
	      "getattr checks %d, hotplug cycles %d (ebusy %d, failures %d)"
	      % (d["result"].upper(), d["workers"], d["cpus"], d["duration_s"],
	         t["ops"], t["policy"], t["policy_fifo"], t["sibling_ok"], t["nice"],
	         t["affinity_subset"] + t["affinity_all"], t["forks"], t["reaps"],
	         t["yield"], t["pi_locked"], t["pi_timeouts"], t["check"],
	         h["cycles"], h["ebusy"], h["failures"]))
	for f in d.get("failures", []):
	    print("o1stress: FAIL:", f)
	EOF
fi

case $rc in
0)	echo "ok - o1stress passed on the $flavour kernel, $cpus CPUs, ${duration}s$([ "$hotplug" -eq 1 ] && echo ", CPU hotplug") (console: ${log#"$TOP"/})" ;;
77)	echo "skip: the $flavour kernel has no SCHED_O1 (policy 8)" ;;
124)	echo "not ok - the guest timed out after $((duration + 240))s (hang?); console: $log" ;;
125)	echo "not ok - the guest reported no exit status (panic or boot failure); console: $log" ;;
126)	echo "not ok - kernel splat on the console: $log" ;;
*)	echo "not ok - o1stress exited $rc; console: $log" ;;
esac
exit "$rc"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# "make torture": build the debug kernel(s), run the SCHED_O1 torture test
# (kselftest sched_o1_torture, with CPU hotplug) for DURATION seconds on
# each CPU count of each flavour, then the stress-ng scheduler stressors
# under SCHED_O1 (scripts/stress-ng.sh). Every run fails on a failed check
# or on any kernel splat. The summary goes to build/torture/summary.md.
#
# Usage: scripts/torture.sh [--flavours "debug kasan"] [--cpus "4 8"] [--duration SEC]
#                           [--stress-ng-duration SEC] [--no-stress-ng] [--no-build]
#   defaults: --flavours "$TORTURE_FLAVOURS" or debug, --cpus "$TORTURE_CPUS" or "4 8",
#             --duration 600, --stress-ng-duration 180 (0 = no stress-ng run)
#        scripts/torture.sh --build-test        build the test, print its path
#        scripts/torture.sh --summarize-json F  one line of counts from a run's JSON
#        scripts/torture.sh --write-summary RUN...  summary.md of earlier runs (build/torture/runs)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

T=$BUILD/torture
SRC_TREE=$TREE/tools/testing/selftests/sched/sched_o1_torture.c
SRC_STAGING=$BUILD/staging/sched_o1_torture.c

# The test comes from the kernel tree once the series has it, else from
# build/staging where it is written before it becomes a patch.
build_test() {
	local src=$SRC_TREE bin=$T/sched_o1_torture
	[ -f "$src" ] || src=$SRC_STAGING
	[ -f "$src" ] || die "no sched_o1_torture.c in the tree or build/staging"
	mkdir -p "$T"
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ] || [ "$(cat "$bin.src" 2>/dev/null)" != "$src" ]; then
		gcc -O2 -g -Wall -pthread -I"$TREE/tools/testing/selftests/sched" \
			-o "$bin.tmp" "$src" >&2 || die "cannot compile $src"
		mv "$bin.tmp" "$bin"
		echo "$src" >"$bin.src"
	fi
	echo "$bin"
}

summarize_json() {
	python3 - "$1" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	t, h, b = d["totals"], d["hotplug_stats"], d["balance"]
	print("sched_o1_torture: %s: %d workers, %d CPUs, %.0f s: %d ops; policy switches %d "
	      "(own O1/NORMAL/BATCH/IDLE %d/%d/%d/%d, FIFO stints %d, sibling %d), nice changes %d, "
	      "affinity changes %d, forks %d (+%d grandchildren) all reaped, PI lock/unlock %d, "
	      "smpnice flips %d, hotplug cycles %d, migrations %d, balancer moved %d (+%d active)"
	      % (d["result"].upper(), d["workers"], d["cpus"], d["elapsed_s"], t["ops"],
	         t["policy_switches"], t["policy_o1"], t["policy_normal"], t["policy_batch"],
	         t["policy_idle"], t["policy_fifo"], t["sibling_ok"], t["nice"],
	         t["affinity_subset"] + t["affinity_all"], t["forks"], t["grandchildren"],
	         t["pi_locked"], t["smpnice_flips"], h["cycles"], t["migrations"],
	         b["moved"], b["active_moved"]))
	print("sched_o1_torture: checks: " + ", ".join("%s %s" % kv for kv in d["checks"].items()))
	for f in d.get("failures", []):
	    print("sched_o1_torture: FAIL:", f)
	EOF
}

# build/torture/summary.md from the runs' status and JSON files.
write_summary() {
	python3 - "$T/runs" "$@" >"$T/summary.md" <<-'EOF'
	import json, os, sys
	runs, names = sys.argv[1], sys.argv[2:]
	print("# SCHED_O1 torture\n")
	print("| run | result | wall s | test s | ops | policy switches | nice | affinity | forks | PI ops | smpnice flips | hotplug cycles | migrations | balancer moved |")
	print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	notes = []
	for n in names:
	    st = {}
	    p = os.path.join(runs, n + ".status")
	    if os.path.exists(p):
	        st = dict(kv.split("=", 1) for kv in open(p).read().split())
	    rc = st.get("rc", "?")
	    res = {"0": "pass", "77": "skip", "124": "FAIL (timeout)", "125": "FAIL (no exit status)",
	           "126": "FAIL (kernel splat)"}.get(rc, "FAIL (exit %s)" % rc)
	    j = os.path.join(runs, n + ".json")
	    if n.startswith("stress-ng"):
	        print("| %s | %s | %s | %s | %s |  |  |  |  |  |  |  |  |  |" % (n, res, st.get("wall", "?"),
	              st.get("duration", "?"), st.get("bogo_ops", "?")))
	        if st.get("bogo"):
	            notes.append("%s bogo ops: %s" % (n, st["bogo"].replace(",", ", ").replace(":", " ")))
	        continue
	    if not os.path.exists(j):
	        print("| %s | %s | %s |  |  |  |  |  |  |  |  |  |  |  |" % (n, res, st.get("wall", "?")))
	        continue
	    d = json.load(open(j))
	    t, h, b = d["totals"], d["hotplug_stats"], d["balance"]
	    print("| %s | %s | %s | %.0f | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d |" % (
	        n, res, st.get("wall", "?"), d["elapsed_s"], t["ops"], t["policy_switches"], t["nice"],
	        t["affinity_subset"] + t["affinity_all"], t["forks"] + t["grandchildren"], t["pi_locked"],
	        t["smpnice_flips"], h["cycles"], t["migrations"], b["moved"] + b["active_moved"]))
	    for f in d.get("failures", []):
	        notes.append("%s: %s" % (n, f))
	if notes:
	    print()
	    for x in notes:
	        print("- " + x)
	print("\npolicy switches = own switches to O1/NORMAL/BATCH/IDLE + FIFO stints + returns from them + switches of a sibling worker; "
	      "forks include grandchildren; migrations = se.nr_migrations of every worker and child; "
	      "balancer moved = lb_moved + active_moved of /sys/kernel/debug/sched/o1_balance over the run.")
	EOF
}

flavours=${TORTURE_FLAVOURS:-debug} cpus_list=${TORTURE_CPUS:-"4 8"} duration=600
sng_duration=180 do_build=1
need() { [ $# -ge 2 ] || die "torture.sh: $1 needs a value (try --help)"; }
while [ $# -gt 0 ]; do
	case $1 in
	--build-test) build_test; exit ;;
	--summarize-json) need "$@"; summarize_json "$2"; exit ;;
	--write-summary) shift; write_summary "$@"; cat "$T/summary.md"; exit ;;
	--flavours) need "$@"; flavours=$2; shift 2 ;;
	--cpus) need "$@"; cpus_list=$2; shift 2 ;;
	--duration) need "$@"; [[ $2 =~ ^[1-9][0-9]*$ ]] || die "torture.sh: --duration wants whole seconds > 0"
		duration=$2; shift 2 ;;
	--stress-ng-duration) need "$@"; [[ $2 =~ ^[0-9]+$ ]] || die "torture.sh: --stress-ng-duration wants whole seconds"
		sng_duration=$2; shift 2 ;;
	--no-stress-ng) sng_duration=0; shift ;;
	--no-build) do_build=0; shift ;;
	-h|--help) sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "torture.sh: unknown argument '$1' (try --help)" ;;
	esac
done
for f in $flavours; do
	case $f in debug|kasan) ;; *) die "torture.sh: flavour '$f': debug or kasan" ;; esac
done
for c in $cpus_list; do
	[[ $c =~ ^[1-9][0-9]*$ ]] || die "torture.sh: CPU count '$c' is not a number"
done

build_test >/dev/null
make -s -C "$TOP/tools" o1run || die "cannot build tools/o1run"
mkdir -p "$T/runs"
names=() failed=()
start=$SECONDS
for f in $flavours; do
	if [ "$do_build" -eq 1 ]; then
		"$TOP/scripts/build-kernel.sh" "$f" || die "the $f kernel does not build"
	fi
	for c in $cpus_list; do
		name=torture-$f-$c-hotplug
		names+=("$name")
		msg "torture: $f kernel, $c CPUs, ${duration}s, CPU hotplug"
		"$TOP/tests/vm/torture.sh" --flavour "$f" --cpus "$c" --duration "$duration" --hotplug || failed+=("$name")
	done
done
if [ "$sng_duration" -gt 0 ]; then
	names+=(stress-ng-debug-4)
	if [ "$do_build" -eq 1 ] && [[ " $flavours " != *" debug "* ]]; then
		"$TOP/scripts/build-kernel.sh" debug || die "the debug kernel does not build"
	fi
	msg "stress-ng: debug kernel, 4 CPUs, ${sng_duration}s, under SCHED_O1"
	"$TOP/scripts/stress-ng.sh" --flavour debug --cpus 4 --duration "$sng_duration" || failed+=(stress-ng-debug-4)
fi

write_summary "${names[@]}"
cat "$T/summary.md"
echo
if [ "${#failed[@]}" -gt 0 ]; then
	echo "torture: FAIL: ${failed[*]} ($((SECONDS - start)) s; summary: ${T#"$TOP"/}/summary.md)"
	exit 1
fi
echo "torture: PASS: ${#names[@]} runs in $((SECONDS - start)) s (summary: ${T#"$TOP"/}/summary.md)"

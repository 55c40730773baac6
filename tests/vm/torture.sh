#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# One torture run of SCHED_O1 in a QEMU guest: the kselftest
# sched_o1_torture (workers under SCHED_O1 switching policy among O1,
# NORMAL, BATCH, IDLE and FIFO, nice and affinity, forking, yielding and
# sharing a PI futex while /proc/sys/kernel/sched_smpnice flips and, with
# --hotplug, CPUs go offline and online, half the workers in a cpuset
# partition when there are 3 CPUs or more). Fails on a failed check of the
# test (tasks reaped, CPUs online, sysctl restored, o1_rq empty, o1_balance
# consistent), a timeout, or any kernel splat on the console (vm-run.sh
# exit 126). Skips (77) when the kernel of the flavour is not built.
#
# Usage: tests/vm/torture.sh [--flavour debug|kasan|default] [--cpus N] [--duration SEC] [--hotplug]
#   defaults: --flavour debug --cpus 4 --duration 30
#   The result (JSON of the test, exit status, wall time) goes to build/torture/runs/.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/scripts/lib.sh"

usage_err() { printf 'torture.sh: %s (try --help)\n' "$*" >&2; exit 2; }
need() { [ $# -ge 2 ] || usage_err "$1 needs a value"; }

flavour=debug cpus=4 duration=30 hotplug=0
while [ $# -gt 0 ]; do
	case $1 in
	--flavour) need "$@"; case $2 in debug|kasan|default) ;; *) usage_err "--flavour wants debug, kasan or default, got '$2'" ;; esac
		flavour=$2; shift 2 ;;
	--cpus) need "$@"; [[ $2 =~ ^[1-9][0-9]*$ ]] || usage_err "--cpus wants a positive number, got '$2'"
		cpus=$2; shift 2 ;;
	--duration) need "$@"; [[ $2 =~ ^[1-9][0-9]*$ ]] || usage_err "--duration wants whole seconds > 0, got '$2'"
		duration=$2; shift 2 ;;
	--hotplug) hotplug=1; shift ;;
	-h|--help) sed -n '3,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) usage_err "unknown argument '$1'" ;;
	esac
done

if [ ! -f "$BUILD/obj/$flavour/arch/x86/boot/bzImage" ]; then
	echo "skip: no $flavour kernel built (make kernel FLAVOUR=$flavour)"
	exit 77
fi
bin=$("$TOP/scripts/torture.sh" --build-test) || { echo "not ok - cannot build sched_o1_torture"; exit 1; }

name=torture-$flavour-$cpus
args=(--duration "$duration")
if [ "$hotplug" -eq 1 ]; then
	name+=-hotplug
	args+=(--hotplug)
	# Half the workers in a cpuset partition of CPUs 1..N-1, so that
	# hotplug takes CPUs out of and back into a root domain of its own.
	[ "$cpus" -ge 3 ] && args+=(--partition)
fi
out=$BUILD/vm-out/$name
log=$LOGS/vm/$name.log
runs=$BUILD/torture/runs
mkdir -p "$runs"
rm -f "$runs/$name".*

# KASAN under TCG is several times slower: boot, the 30 s grace period and
# the checks at the end need the margin.
timeout=$((duration + duration / 2 + 300))
start=$SECONDS
# A KASAN guest on a loaded host can be so slow that QEMU's ACPI _PRT method
# runs into ACPICA's 30 s loop timeout (AE_AML_LOOP_TIMEOUT): a virtio-pci
# device then has no IRQ and the guest hangs on its 9p share. Such a boot is
# stopped at once and retried, up to 3 boots. (pci=noacpi or acpi=off would
# avoid _PRT but leave the guest with one CPU: no MP table.)
attempt=0
while :; do
	attempt=$((attempt + 1))
	rm -f "$log"
	"$TOP/scripts/vm-run.sh" --flavour "$flavour" --cpus "$cpus" --name "$name" \
		--timeout "$timeout" --out "$out" -- \
		"${bin#"$TOP"/}" "${args[@]}" --json /tmp/out/torture.json &
	vmpid=$!
	lost=0
	while kill -0 "$vmpid" 2>/dev/null; do
		sleep 5
		[ -f "$log" ] || continue
		grep -q '^SMPNICE-BEGIN' "$log" && continue
		if grep -q 'PCI INT A: no GSI' "$log"; then
			lost=1
			qpid=$(pgrep -f -- "-serial file:$log" || true)
			[ -n "$qpid" ] && kill $qpid
		fi
	done
	wait "$vmpid"
	rc=$?
	[ "$lost" -eq 1 ] && [ "$attempt" -lt 3 ] || break
	echo "torture.sh: boot $attempt: a virtio device got no IRQ (ACPI _PRT loop timeout): booting again"
	cp "$log" "$log.boot$attempt" 2>/dev/null
done
wall=$((SECONDS - start))

json=$out/torture.json
[ -s "$json" ] && cp "$json" "$runs/$name.json"
printf 'flavour=%s cpus=%s duration=%s hotplug=%s rc=%s wall=%s log=%s\n' \
	"$flavour" "$cpus" "$duration" "$hotplug" "$rc" "$wall" "${log#"$TOP"/}" >"$runs/$name.status"
[ -s "$json" ] && "$TOP/scripts/torture.sh" --summarize-json "$json"

what="$flavour kernel, $cpus CPUs, ${duration}s$([ "$hotplug" -eq 1 ] && echo ", CPU hotplug")"
case $rc in
0)	echo "ok - sched_o1_torture passed on the $what (console: ${log#"$TOP"/})" ;;
4)	echo "not ok - sched_o1_torture skipped on the $what: no SCHED_O1 in the kernel, or not root" ;;
124)	echo "not ok - the guest timed out after ${timeout}s (hang?); console: $log" ;;
125)	echo "not ok - the guest reported no exit status (panic or boot failure); console: $log" ;;
126)	echo "not ok - kernel splat on the console: $log" ;;
*)	echo "not ok - sched_o1_torture exited $rc on the $what; console: $log" ;;
esac
[ "$rc" -eq 4 ] && exit 1
exit "$rc"

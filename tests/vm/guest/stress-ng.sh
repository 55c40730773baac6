#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In the guest: stress-ng's scheduler stressors (affinity, nice, resched,
# schedpolicy, yield, fork, futex, switch), one instance each per CPU,
# under SCHED_O1 (o1run), for DURATION seconds; metrics in
# /tmp/out/stress-ng.yaml, the class's rescue counters in /tmp/out/rescues.
# Usage: stress-ng.sh DURATION
set -uo pipefail
duration=${1:-60}
n=$(nproc)
args=()
for s in affinity nice resched schedpolicy yield fork futex switch; do
	args+=("--$s" "$n")
done
# The guest's root (and so the project directory) is read-only: run in /tmp.
cd /tmp || exit 1
o1run -- stress-ng "${args[@]}" --timeout "${duration}s" --metrics-brief \
	--temp-path /tmp --yaml /tmp/out/stress-ng.yaml
rc=$?
grep -h nr_rescues /sys/kernel/debug/sched/debug >/tmp/out/rescues 2>/dev/null
exit $rc

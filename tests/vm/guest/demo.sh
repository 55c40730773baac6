#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In the guest: the article's case under each scheduler, JSON to /tmp/out.
# Booted with sched_o1=all (make demo), the tasks are plain SCHED_NORMAL
# processes with nice values, as "nice -n 19 hog" starts them: the O(1)
# class runs them, balancing by count and then by weight, and CFS/EEVDF
# runs them once /proc/sys/kernel/sched_o1_all is 0. Booted without it,
# the O1 runs use the SCHED_O1 policy.
set -uo pipefail
duration=${1:-5}
args=(--nice 0,0,19,19 --start 0,0,1,1 --release 200 --duration "$duration")
all=/proc/sys/kernel/sched_o1_all
rc=0

# The O1 runs under count (2.6.17), smpnice (2.6.18) and, where the
# kernel has it, sched_smpnice=2 balancing.
o1_modes() { # POLICY WHAT
	local mode label
	for mode in 0 1 2; do
		if ! echo "$mode" >/proc/sys/kernel/sched_smpnice 2>/dev/null; then
			echo "== no sched_smpnice=$mode in this kernel"
			continue
		fi
		case $mode in
		0) label="by count (2.6.17)" ;;
		1) label="smpnice (2.6.18)" ;;
		2) label="sched_smpnice=2" ;;
		esac
		echo "== $2, balancing $label"
		nicebench "${args[@]}" --policy "$1" --json /tmp/out/o1-smpnice$mode.json || rc=1
	done
	echo 1 >/proc/sys/kernel/sched_smpnice
}

if [ "$(cat $all 2>/dev/null)" = 1 ]; then
	o1_modes normal "whole-system O(1): SCHED_NORMAL tasks with nice"
	echo 0 >$all
	echo "== CFS/EEVDF: the same SCHED_NORMAL tasks, sched_o1_all=0"
	nicebench "${args[@]}" --policy normal --json /tmp/out/cfs.json || rc=1
	echo 1 >$all
	exit $rc
fi
echo "== CFS/EEVDF (SCHED_NORMAL): the modern kernel's reference"
nicebench "${args[@]}" --policy normal --json /tmp/out/cfs.json || rc=1
if [ -e /proc/sys/kernel/sched_smpnice ]; then
	o1_modes o1 "SCHED_O1"
elif o1run -n 0 true 2>/dev/null; then
	echo "== SCHED_O1 (no SMP balancer in this kernel yet)"
	nicebench "${args[@]}" --policy o1 --json /tmp/out/o1.json || rc=1
else
	echo "== SCHED_O1: not in this kernel (policy 8 refused)"
fi
exit $rc

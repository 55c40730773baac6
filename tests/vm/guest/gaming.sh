#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What tasks that game 2.6.17's estimator take from a nice 0 hog on the
# first CPU, with the estimator on and off, against CFS (run as root).
NB=tools/nicebench
run() { # label policy nice duty period
	printf '%-34s' "$1"
	taskset -c 0 $NB --policy $2 --nice $3 --duty $4 --period $5 -d 6 --rt-parent -q -j - 2>/dev/null |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join("%.3f"%t["share"] for t in d["tasks"]))'
}
for rep in 1 2; do
for case in "0,0,0 100,50,50 20" "0,0 100,91 110"; do
	set -- $case
	echo 1 > /proc/sys/kernel/sched_o1_interactive
	run "o1 est on  $2/$3" o1 $1 $2 $3
	echo 0 > /proc/sys/kernel/sched_o1_interactive
	run "o1 est off $2/$3" o1 $1 $2 $3
	echo 1 > /proc/sys/kernel/sched_o1_interactive
	run "cfs        $2/$3" normal $1 $2 $3
done
done

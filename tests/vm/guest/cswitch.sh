#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the guest (as root): hackbench -g 4 -l 50 and perf bench sched
# messaging -g 4 -l 40 under perf stat -a, in whole-system mode
# (kernel.sched_o1_all 1) and under CFS (0), alternated, REPEATS times:
# one line per run with the time in seconds and the context switches and
# migrations of the whole guest.
# Usage: tests/vm/guest/cswitch.sh [REPEATS]   (default 3)
set -uo pipefail
reps=${1:-3}
ALL=/proc/sys/kernel/sched_o1_all
[ -w "$ALL" ] || { echo "cswitch.sh: no $ALL (kernel without whole-system mode)"; exit 77; }

# run NAME TIME-PATTERN TIME-FIELD COMMAND...: one measured run
run() {
	local name=$1 pat=$2 field=$3 out
	shift 3
	out=$(perf stat -x, -e context-switches,cpu-migrations -a -- "$@" 2>&1)
	printf '%-9s all=%s time=%s cs=%s mig=%s\n' "$name" "$(cat "$ALL")" \
		"$(awk -v p="$pat" -v f="$field" '$0 ~ p { print $f }' <<<"$out")" \
		"$(awk -F, '/context-switches/ { print $1 }' <<<"$out")" \
		"$(awk -F, '/cpu-migrations/ { print $1 }' <<<"$out")"
}

for ((r = 1; r <= reps; r++)); do
	for mode in 1 0; do
		echo "$mode" >"$ALL"
		sleep 0.5
		run hackbench '^Time:' 2 hackbench -g 4 -l 50
		run messaging 'Total time' 3 perf bench sched messaging -g 4 -l 40
	done
done
echo 0 >"$ALL"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In the guest: perf bench sched messaging (seconds for 4 groups of 40
# tasks) and pipe (us per round trip, both tasks on CPU 1: across CPUs,
# under TCG, a round trip takes 150 or 900 us depending on where the two
# land, which would drown the rest), REPEAT times, to /tmp/out/raw.txt.
# Usage: perf-cost.sh REPEAT
set -euo pipefail
repeat=${1:-3}
for i in $(seq "$repeat"); do
	echo messaging "$(perf bench -f simple sched messaging -g 4 -l 100)"
	echo pipe "$(taskset -c 1 perf bench -f simple sched pipe -l 20000 | awk '{ print $1 / 20000 * 1e6 }')"
done | tee /tmp/out/raw.txt

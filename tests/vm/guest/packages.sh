#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In the guest (2 sockets x 2 cores): 2.6.18's placement on two packages of
# two cores, with one nice 0 and three nice 19 SCHED_O1 hogs all started on
# the first CPU of package 0.
#
# A package's cores share its last-level cache: 2.6.18 gave it the power of
# one CPU (1024). By weight (smpnice=1), package 1 pulls what brings it to
# the average: the three nice 19 hogs (51 each; the nice 0 hog, 1024, is
# the source's only task at its priority). Then package 0 (1024 per unit of
# power) is busier than package 1 (153): the second CPU of package 0 stays
# idle while package 1 runs three tasks on two CPUs, and that is stable:
# tasks per package [1, 3], the nice 0 hog alone. By count (smpnice=0) the
# packages run two tasks each, one per CPU. Either way no package idles
# while the other runs two or more (failure case 4), and the tasks stop
# moving.

. "$(dirname "${BASH_SOURCE[0]}")/../../lib/ktap.sh"
ktap_print_header
# ... | tap_lines: the python's "ok - X" / "not ok - X" lines as KTAP tests,
# anything else as comments
tap_lines() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok - "*) ktap_test_pass "${line#ok - }" ;;
		"not ok - "*) ktap_test_fail "${line#not ok - }" ;;
		*) printf '%s\n' "$line" | ktap_comment ;;
		esac
	done
}
for mode in 1 0; do
	echo $mode >/proc/sys/kernel/sched_smpnice
	nicebench --nice 0,19,19,19 --start 0,0,0,0 --release 200 --duration 4 --interval 100 \
		--policy o1 --json /tmp/out/pkg$mode.json ||
		ktap_test_fail "smpnice=$mode: nicebench exits 0 (exit $?)"
	python3 - /tmp/out/pkg$mode.json $mode >/tmp/pkg$mode.tap 2>&1 <<"PY"
import json, sys
r = json.load(open(sys.argv[1])); mode = int(sys.argv[2])
cpus = [t["end_cpu"] for t in r["tasks"]]
pkg = [sum(1 for c in cpus if c // 2 == p) for p in (0, 1)]
per_cpu = [cpus.count(c) for c in range(4)]
# Migrations after the first second (settling), from the sampled CPUs.
late = [s for s in r["samples"] if s["t"] > 1.0]
moves = sum(1 for a, b in zip(late, late[1:]) for x, y in zip(a["cpu"], b["cpu"]) if x != y)
res = []
def check(ok, what):
    print(("ok" if ok else "not ok") + f" - smpnice={mode}: {what}")
    res.append(ok)
if mode:
    alone = cpus.count(cpus[0]) == 1
    check(sorted(pkg) == [1, 3] and alone,
          f"tasks per package {pkg}, nice 0 hog alone on CPU {cpus[0]} (2.6.18: [1, 3], the nice 0 hog alone)")
else:
    check(per_cpu == [1, 1, 1, 1], f"tasks per CPU {per_cpu} (by count: one each)")
check(not ((pkg[0] == 0 and pkg[1] >= 2) or (pkg[1] == 0 and pkg[0] >= 2)),
      f"tasks per package {pkg}, no package idles while the other runs two or more")
check(moves <= 2, f"{moves} migrations seen in the 3 s after the first second (at most 2)")
sys.exit(0 if all(res) else 1)
PY
	st=$?
	tap_lines </tmp/pkg$mode.tap
	[ "$st" -eq 0 ] || grep -q '^not ok ' /tmp/pkg$mode.tap ||
		ktap_test_fail "smpnice=$mode: the placement checks run (python exit $st)"
done
echo 1 >/proc/sys/kernel/sched_smpnice
ktap_done

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Proves smpnice failure case 4 stays fixed: on two packages of two cores,
# with one nice 0 and three nice 19 SCHED_O1 hogs all started on the first
# CPU of package 0, no package idles while the other runs two or more
# tasks, and the tasks stop moving; in both balancing modes.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
exec "$TOP/scripts/vm-run.sh" --name packages --cpus 4 --sockets 2 --cores 2 --timeout 300 -- bash -c '
rc=0
for mode in 1 0; do
	echo $mode >/proc/sys/kernel/sched_smpnice
	nicebench --nice 0,19,19,19 --start 0,0,0,0 --release 200 --duration 4 --interval 100 \
		--policy o1 --json /tmp/out/pkg$mode.json || rc=1
	python3 - /tmp/out/pkg$mode.json $mode <<"PY" || rc=1
import json, sys
r = json.load(open(sys.argv[1])); mode = sys.argv[2]
cpus = [t["end_cpu"] for t in r["tasks"]]
pkg = [sum(1 for c in cpus if c // 2 == p) for p in (0, 1)]
# Migrations after the first second (settling), from the sampled CPUs.
late = [s for s in r["samples"] if s["t"] > 1.0]
moves = sum(1 for a, b in zip(late, late[1:]) for x, y in zip(a["cpu"], b["cpu"]) if x != y)
ok = not ((pkg[0] == 0 and pkg[1] >= 2) or (pkg[1] == 0 and pkg[0] >= 2))
print(("ok" if ok else "not ok") + f" - smpnice={mode}: tasks per package {pkg}, no package idles while the other runs two or more")
ok2 = moves <= 2
print(("ok" if ok2 else "not ok") + f" - smpnice={mode}: {moves} migrations seen in the 3 s after the first second (at most 2)")
sys.exit(0 if ok and ok2 else 1)
PY
done
echo 1 >/proc/sys/kernel/sched_smpnice
exit $rc'

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In the guest booted with bad sched_smpnice=/o1_balance= parameters: the
# sysctls keep the value named, dmesg warns with each message named, no
# "unknown parameter" complaint, the class still runs a task and both sysctls
# still take 0 and 1.
# Usage: badparam.sh SMPNICE BALANCE "WARNING TEXT"...

smpnice=$1 balance=$2; shift 2
rc=0
check() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; rc=1; fi; }
v=$(cat /proc/sys/kernel/sched_smpnice); check "sched_smpnice is $smpnice (read $v)" "[ \"$v\" = $smpnice ]"
v=$(cat /proc/sys/kernel/sched_o1_balance); check "sched_o1_balance is $balance (read $v)" "[ \"$v\" = $balance ]"
dmesg >/tmp/dmesg.txt
for w in "$@"; do
	check "dmesg warns: $w" "grep -qF -- \"\$w\" /tmp/dmesg.txt"
done
check "no unknown-parameter complaint" "! grep -E \"Unknown kernel command line parameters.*(sched_smpnice|o1_balance)\" /tmp/dmesg.txt"
o1run -n 0 true; check "o1run runs a task under SCHED_O1 (exit $?)" "[ $? -eq 0 ]"
for f in sched_smpnice sched_o1_balance; do
	o=$(cat /proc/sys/kernel/$f)
	echo 0 >/proc/sys/kernel/$f && a=$(cat /proc/sys/kernel/$f)
	echo 1 >/proc/sys/kernel/$f && b=$(cat /proc/sys/kernel/$f)
	echo "$o" >/proc/sys/kernel/$f
	check "$f still takes 0 and 1 ($a, $b)" "[ \"$a$b\" = 01 ]"
done
exit $rc

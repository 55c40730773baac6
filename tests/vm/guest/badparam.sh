#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In the guest booted with bad sched_smpnice=/o1_balance=/sched_o1=
# parameters: the sysctls keep the value named, dmesg warns with each message
# named, no "unknown parameter" complaint, the class still runs a task and the
# sysctls still take 0 and 1.
# Usage: badparam.sh SMPNICE BALANCE ALL "WARNING TEXT"...

. "$(dirname "${BASH_SOURCE[0]}")/../../lib/ktap.sh"
smpnice=$1 balance=$2 all=$3; shift 3
ktap_print_header
v=$(cat /proc/sys/kernel/sched_smpnice); ktap_eval "sched_smpnice is $smpnice (read $v)" "[ \"$v\" = $smpnice ]"
v=$(cat /proc/sys/kernel/sched_o1_balance); ktap_eval "sched_o1_balance is $balance (read $v)" "[ \"$v\" = $balance ]"
v=$(cat /proc/sys/kernel/sched_o1_all); ktap_eval "sched_o1_all is $all (read $v)" "[ \"$v\" = $all ]"
dmesg >/tmp/dmesg.txt
for w in "$@"; do
	ktap_eval "dmesg warns: $w" "grep -qF -- \"\$w\" /tmp/dmesg.txt"
done
ktap_eval "no unknown-parameter complaint" "! grep -E \"Unknown kernel command line parameters.*(sched_smpnice|o1_balance|sched_o1)\" /tmp/dmesg.txt"
o1run -n 0 true; ktap_eval "o1run runs a task under SCHED_O1 (exit $?)" "[ $? -eq 0 ]"
for f in sched_smpnice sched_o1_balance sched_o1_all; do
	o=$(cat /proc/sys/kernel/$f)
	echo 0 >/proc/sys/kernel/$f && a=$(cat /proc/sys/kernel/$f)
	echo 1 >/proc/sys/kernel/$f && b=$(cat /proc/sys/kernel/$f)
	echo "$o" >/proc/sys/kernel/$f
	ktap_eval "$f still takes 0 and 1 ($a, $b)" "[ \"$a$b\" = 01 ]"
done
ktap_done

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Proves that bad values of the series' boot parameters sched_smpnice= and
# o1_balance= (out of range, not a number, empty, overflowing) are refused
# with a warning naming the value, keep the value the parameter had (the
# default 1, or an earlier valid value on the same command line), leave no
# unknown-parameter complaint and no splat (vm-run.sh fails on one), and
# that the system works: SCHED_O1 runs, the sysctls still take 0 and 1.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
rc=0

# boot NAME APPEND WANT_SMPNICE WANT_BALANCE WARNING-REGEX...
boot() {
	local name=$1 append=$2 smpnice=$3 balance=$4 out st
	shift 4
	# shellcheck disable=SC2016 # expanded in the guest
	out=$("$TOP/scripts/vm-run.sh" --name "$name" --cpus 2 --timeout 300 \
		--append "$append" -- bash -c '
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
exit $rc' badparam "$smpnice" "$balance" "$@" 2>&1)
	st=$?
	echo "$out" | grep -E '^(ok|not ok) ' | sed "s/^\(ok\|not ok\) - /\1 - $name: /"
	echo "$out" | grep -E '^(==>|vm-run)' | tail -n 3
	if [ "$st" -ne 0 ]; then
		echo "not ok - $name: the guest run failed (exit $st; 126 = kernel splat), log build/logs/vm/$name.log"
		rc=1
	fi
}

# Every value bad: the defaults (1) stay.
boot badparam "sched_smpnice=7 o1_balance=abc sched_smpnice= o1_balance=99999999999999999999 o1_balance=-1" 1 1 \
	'sched_smpnice= takes 0 or 1, not "7"; keeping 1' \
	'sched_smpnice= takes 0 or 1, not ""; keeping 1' \
	'o1_balance= takes 0 or 1, not "abc"; keeping 1' \
	'o1_balance= takes 0 or 1, not "99999999999999999999"; keeping 1' \
	'o1_balance= takes 0 or 1, not "-1"; keeping 1'

# A valid value, then bad ones: the valid one stays.
boot badparam-keep "sched_smpnice=0 sched_smpnice=2 o1_balance=0 o1_balance=0x o1_balance=1x" 0 0 \
	'sched_smpnice= takes 0 or 1, not "2"; keeping 0' \
	'o1_balance= takes 0 or 1, not "0x"; keeping 0' \
	'o1_balance= takes 0 or 1, not "1x"; keeping 0'
exit $rc

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In the guest of a kernel with CONFIG_SCHED_CLASS_O1=n: it behaves as the
# unpatched one: policy 8 is refused with EINVAL, there is no sched_smpnice
# or sched_o1_balance sysctl, and the SCHED_O1 kselftests skip.
rc=0
check() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; rc=1; fi; }
out=$(o1run -n 0 true 2>&1); st=$?
check "policy 8 is refused (o1run exit $st: $out)" "[ $st -eq 1 ] && echo \"\$out\" | grep -q \"no SCHED_O1\""
check "no /proc/sys/kernel/sched_smpnice" "[ ! -e /proc/sys/kernel/sched_smpnice ]"
check "no /proc/sys/kernel/sched_o1_balance" "[ ! -e /proc/sys/kernel/sched_o1_balance ]"
build/kselftest/install/sched/sched_o1_api >/tmp/api.log 2>&1; st=$?
totals=$(grep "# Totals" /tmp/api.log)
check "the SCHED_O1 kselftests skip, none fails (exit $st; $totals)" \
	"[ $st -eq 0 ] && echo \"\$totals\" | grep -q \"pass:0 fail:0 .*skip:[1-9]\""
nicebench --nice 0,19 --duration 1 --quiet --json /tmp/n.json
check "CFS runs nicebench as usual" "[ $? -eq 0 ]"
exit $rc

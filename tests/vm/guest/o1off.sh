#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In the guest of a kernel with CONFIG_SCHED_CLASS_O1=n: it behaves as the
# unpatched one: policy 8 is refused with EINVAL, there is no sched_smpnice
# or sched_o1_balance sysctl, and the SCHED_O1 kselftests skip.
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/ktap.sh"
ktap_print_header
out=$(o1run -n 0 true 2>&1); st=$?
ktap_eval "policy 8 is refused (o1run exit $st: $out)" "[ $st -eq 1 ] && echo \"\$out\" | grep -q \"no SCHED_O1\""
ktap_eval "no /proc/sys/kernel/sched_smpnice" "[ ! -e /proc/sys/kernel/sched_smpnice ]"
ktap_eval "no /proc/sys/kernel/sched_o1_balance" "[ ! -e /proc/sys/kernel/sched_o1_balance ]"
build/kselftest/install/sched/sched_o1_api >/tmp/api.log 2>&1; st=$?
totals=$(sed -n 's/^# Totals: //p' /tmp/api.log)
ktap_eval "the SCHED_O1 kselftests skip, none fails (exit $st; $totals)" \
	"[ $st -eq 0 ] && echo \"\$totals\" | grep -q \"pass:0 fail:0 .*skip:[1-9]\""
nicebench --nice 0,19 --duration 1 --quiet --json /tmp/n.json
ktap_eval "CFS runs nicebench as usual" "[ $? -eq 0 ]"
ktap_done

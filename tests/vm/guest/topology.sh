#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In the guest: the expected CPUs are online, and the sched-domain levels
# match the topology QEMU was given.
# Usage: topology.sh CPUS "VM-RUN-TOPOLOGY-OPTIONS"
set -uo pipefail
cpus=$1 topo=${2:-}
rc=0
check() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; rc=1; fi; }

online=$(nproc)
check "guest sees $cpus CPUs online (nproc=$online)" '[ "$online" -eq "$cpus" ]'
levels=""
d=/sys/kernel/debug/sched/domains/cpu0
if [ -d "$d" ]; then
	for l in "$d"/domain*; do [ -e "$l/name" ] || continue; levels+="$(cat "$l/name") "; done
fi
levels=${levels% }
echo "# cpu0 sched-domain levels: '${levels}'"
nodes=$(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)
case "$cpus:$topo" in
1:*) check "one CPU: no sched domains" '[ -z "$levels" ]' ;;
*--numa*)
	want=${topo#*--numa }; want=${want%% *}
	check "guest sees $want NUMA nodes (got $nodes)" '[ "$nodes" -eq "$want" ]'
	check "a NUMA level spans the nodes" '[[ " $levels " == *" NUMA "* ]]'
	check "a level below NUMA balances inside a node" '[ "$(echo "$levels" | wc -w)" -ge 2 ]' ;;
*--sockets*)
	check "a PKG level spans the sockets" '[[ " $levels " == *" PKG "* ]]' ;;
*)
	check "$cpus CPUs: one cache/core level (MC or PKG)" '[[ " $levels " == *" MC "* || " $levels " == *" PKG "* ]]' ;;
esac
grep -q . /proc/schedstat && echo "ok - /proc/schedstat readable" || { echo "not ok - /proc/schedstat"; rc=1; }
exit $rc

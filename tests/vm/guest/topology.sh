#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In the guest: the expected CPUs are online, and the sched-domain levels
# match the topology QEMU was given.
# Usage: topology.sh CPUS "VM-RUN-TOPOLOGY-OPTIONS"
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/ktap.sh"
cpus=$1 topo=${2:-}
ktap_print_header

online=$(nproc)
ktap_eval "guest sees $cpus CPUs online (nproc=$online)" '[ "$online" -eq "$cpus" ]'
levels=""
d=/sys/kernel/debug/sched/domains/cpu0
if [ -d "$d" ]; then
	for l in "$d"/domain*; do [ -e "$l/name" ] || continue; levels+="$(cat "$l/name") "; done
fi
levels=${levels% }
echo "# cpu0 sched-domain levels: '${levels}'"
nodes=$(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)
case "$cpus:$topo" in
1:*) ktap_eval "one CPU: no sched domains" '[ -z "$levels" ]' ;;
*--numa*)
	want=${topo#*--numa }; want=${want%% *}
	ktap_eval "guest sees $want NUMA nodes (got $nodes)" '[ "$nodes" -eq "$want" ]'
	ktap_eval "a NUMA level spans the nodes" '[[ " $levels " == *" NUMA "* ]]'
	ktap_eval "a level below NUMA balances inside a node" '[ "$(echo "$levels" | wc -w)" -ge 2 ]' ;;
*--sockets*)
	ktap_eval "a PKG level spans the sockets" '[[ " $levels " == *" PKG "* ]]' ;;
*)
	ktap_eval "$cpus CPUs: one cache/core level (MC or PKG)" '[[ " $levels " == *" MC "* || " $levels " == *" PKG "* ]]' ;;
esac
ktap_check "/proc/schedstat readable" grep -q . /proc/schedstat
ktap_done

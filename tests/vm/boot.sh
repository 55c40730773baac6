#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Proves that the kernel boots SMP in QEMU with the requested CPUs and
# topology, and that the guest sees the expected sched-domain levels.
#
# Usage: tests/vm/boot.sh CPUS [vm-run.sh topology options]
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 CPUS [vm-run options]" >&2; exit 2; }
cpus=$1; shift
name=boot-${cpus}cpu$(echo "$*" | tr -dc 'a-z0-9')
exec "$TOP/scripts/vm-run.sh" --name "$name" --cpus "$cpus" --timeout 300 "$@" -- \
	tests/vm/guest/topology.sh "$cpus" "$*"

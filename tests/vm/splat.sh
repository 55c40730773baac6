#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Proves that the VM runner fails a run whose console shows a kernel splat:
# lkdtm provokes a WARNING; vm-run.sh must exit 126 and name the line. Also
# proves that a clean run passes and that a guest exit status comes back.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
rc=0
out=$("$TOP/scripts/vm-run.sh" --name splat --cpus 1 --timeout 300 -- \
	sh -c 'echo WARNING > /sys/kernel/debug/provoke-crash/DIRECT; exit 0' 2>&1)
st=$?
echo "$out" | tail -n 5
if [ "$st" -eq 126 ]; then echo "ok - lkdtm WARNING fails the run (exit 126)"
else echo "not ok - lkdtm WARNING: vm-run.sh exited $st, wanted 126"; rc=1; fi
if echo "$out" | grep -q 'WARNING:.*lkdtm\|WARNING: CPU'; then echo "ok - the failure names the WARNING line"
else echo "not ok - the failure does not name the WARNING line"; rc=1; fi

"$TOP/scripts/vm-run.sh" --name exit-status --cpus 1 --timeout 300 -- sh -c 'echo "WARNING: printed by userspace"; exit 7' >/dev/null 2>&1
st=$?
if [ "$st" -eq 7 ]; then echo "ok - a clean run returns the guest command's status (7), userspace WARNING text ignored"
else echo "not ok - clean run returned $st, wanted 7"; rc=1; fi
exit $rc

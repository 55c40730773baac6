#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Proves that the VM runner fails a run whose console shows a kernel splat:
# lkdtm provokes a WARNING; vm-run.sh must exit 126 and name the line. Also
# proves that a clean run passes and that a guest exit status comes back.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/tests/lib/ktap.sh"
ktap_print_header
out=$("$TOP/scripts/vm-run.sh" --name splat --cpus 1 --timeout 300 -- \
	sh -c 'echo WARNING > /sys/kernel/debug/provoke-crash/DIRECT; exit 0' 2>&1)
st=$?
echo "$out" | tail -n 5 | ktap_comment
ktap_eval "lkdtm WARNING fails the run (vm-run.sh exit $st, wanted 126)" '[ "$st" -eq 126 ]'
ktap_eval "the failure names the WARNING line" \
	'echo "$out" | grep -q "WARNING:.*lkdtm\|WARNING: CPU"'

"$TOP/scripts/vm-run.sh" --name exit-status --cpus 1 --timeout 300 -- sh -c 'echo "WARNING: printed by userspace"; exit 7' >/dev/null 2>&1
st=$?
ktap_eval "a clean run returns the guest command's status ($st, wanted 7), userspace WARNING text ignored" \
	'[ "$st" -eq 7 ]'
ktap_done

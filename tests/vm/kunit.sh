#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Proves the in-kernel KUnit tests pass: the kernel runs its built-in KUnit
# suites at boot (CONFIG_KUNIT=y); tools/testing/kunit/kunit.py parses the
# KTAP they print on the console. Fails if a suite fails or none ran.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/scripts/lib.sh"
"$TOP/scripts/vm-run.sh" --name kunit --cpus 2 --timeout 300 --append kunit.enable=1 -- true >/dev/null || exit 1
log=$LOGS/vm/kunit.log
grep -q 'KTAP version' "$log" || { echo "no KTAP output on the console: is CONFIG_KUNIT=y with a test suite?"; exit 1; }
out=$(python3 "$TREE/tools/testing/kunit/kunit.py" parse "$log" 2>&1)
rc=$?
echo "$out" | sed 's/\x1b\[[0-9;]*m//g' | grep -E '\[(PASSED|FAILED|SKIPPED|CRASHED)\]|Testing complete|passed|failed' | head -40
echo "$out" | grep -q 'sched_o1' || { echo "not ok - the sched_o1 suite did not run"; exit 1; }
exit $rc

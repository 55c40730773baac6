#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The test runner of "make check" (all), "make quick" and "make test-host".
# Each test is a script: exit 0 passes, 77 is skipped (its last line says
# why), anything else fails. A script that prints TAP-like "ok"/"not ok" lines
# is counted per line. Ends with "N passed, M failed, K skipped".
#
# Usage: tests/run.sh all|quick|host [TEST-NAME-FILTER]
set -uo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

mode=${1:-}
filter=${2:-}
case $mode in all|quick|host) ;; *) die "usage: tests/run.sh all|quick|host [FILTER]" ;; esac

# name | command | modes
tests=(
	"host-tools|tests/host/test-tools.sh|host quick all"
	"host-pipeline|tests/host/test-pipeline.sh|host quick all"
	"host-bench-report|tests/host/test-bench-report.sh|host quick all"
	"series|tests/host/test-series.sh|all"
	"checkpatch|scripts/checkpatch.sh|quick all"
	"boot-1cpu|tests/vm/boot.sh 1|all"
	"boot-2cpu|tests/vm/boot.sh 2|quick all"
	"boot-4cpu|tests/vm/boot.sh 4|all"
	"boot-numa2|tests/vm/boot.sh 4 --numa 2|all"
	"splat-detection|tests/vm/splat.sh|all"
	"kunit|tests/vm/kunit.sh|quick all"
	"kselftest-o1-2cpu|env KST_TESTS=sched:sched_o1_api,sched:sched_o1_share,sched:sched_o1_balance,sched:sched_o1_smpnice,sched:sched_o1_badinput,sched:sched_o1_cgroup scripts/kselftest.sh run --cpus 2|quick all"
	"kselftest-core-smt2|env KST_TESTS=sched:cs_prctl_test scripts/kselftest.sh run --cpus 2 --sockets 1 --cores 1 --threads 2|all"
	"kselftest-o1-4cpu|env KST_TESTS=sched:sched_o1_balance,sched:sched_o1_cgroup scripts/kselftest.sh run --cpus 4|all"
	"kselftest-o1-smt2x2|env KST_TESTS=sched:sched_o1_balance,sched:sched_o1_smpnice scripts/kselftest.sh run --cpus 4 --sockets 1 --cores 2 --threads 2 --name kselftest-smt|all"
	"kselftest-o1-numa2x2|env KST_TESTS=sched:sched_o1_balance,sched:sched_o1_smpnice scripts/kselftest.sh run --cpus 4 --numa 2 --name kselftest-numa|all"
	"smpnice-1+4-on-4cpu|scripts/vm-run.sh --cpus 4 --name smpnice4 -- build/kselftest/install/sched/sched_o1_smpnice -t one_high_four_normal -t lone_nice_minus20|all"
	"packages-2x2|tests/vm/packages.sh|all"
	"o1-configured-out|tests/vm/o1off.sh|all"
	"boot-params-bad|tests/vm/badparam.sh|all"
	"torture-debug-4cpu|tests/vm/torture.sh --flavour debug --cpus 4 --duration 30 --hotplug|all"
)

# Rows that judge CPU shares and placements under emulation: a failure
# (exit 1, no kernel splat) gets one more try, and the report says so.
RETRY_ONCE=" kselftest-o1-2cpu kselftest-o1-4cpu kselftest-o1-smt2x2 kselftest-o1-numa2x2 smpnice-1+4-on-4cpu "

mkdir -p "$LOGS/tests"
pass=0 fail=0 skip=0 failed=() retried=()
total=0
for t in "${tests[@]}"; do
	IFS='|' read -r name cmd modes <<<"$t"
	[[ " $modes " == *" $mode "* ]] || continue
	[ -z "$filter" ] || [[ $name == *$filter* ]] || continue
	total=$((total + 1))
done
n=0
for t in "${tests[@]}"; do
	IFS='|' read -r name cmd modes <<<"$t"
	[[ " $modes " == *" $mode "* ]] || continue
	[ -z "$filter" ] || [[ $name == *$filter* ]] || continue
	n=$((n + 1))
	log=$LOGS/tests/$name.log
	printf '[%d/%d] %-18s ' "$n" "$total" "$name"
	start=$SECONDS
	# shellcheck disable=SC2086
	(cd "$TOP" && $cmd) >"$log" 2>&1
	rc=$?
	retry_note=""
	if [[ $RETRY_ONCE == *" $name "* ]] && retryable_test_failure "$rc" "$log"; then
		mv -f "$log" "$log.try1"
		printf 'failed once, retrying: '
		grep -E 'not ok |Expected' "$log.try1" | head -n 6 | tr '\n' ';'
		printf '\n%*s ' 25 ''
		# shellcheck disable=SC2086
		(cd "$TOP" && $cmd) >"$log" 2>&1
		rc=$?
		retry_note=", on the second try; first: ${log#"$TOP"/}.try1"
		retried+=("$name")
	fi
	secs=$((SECONDS - start))
	oks=$(grep -cE '^ok ' "$log" || true)
	noks=$(grep -cE '^not ok ' "$log" || true)
	if [ "$rc" -eq 77 ]; then
		skip=$((skip + 1))
		printf 'SKIP (%ds): %s\n' "$secs" "$(tail -n 1 "$log")"
	elif [ "$rc" -eq 0 ] && [ "$noks" -eq 0 ]; then
		if [ "$oks" -gt 0 ]; then pass=$((pass + oks)); else pass=$((pass + 1)); fi
		printf 'ok (%ds%s%s)\n' "$secs" "$([ "$oks" -gt 0 ] && echo ", $oks checks")" "$retry_note"
	else
		pass=$((pass + oks))
		if [ "$noks" -gt 0 ]; then fail=$((fail + noks)); else fail=$((fail + 1)); fi
		failed+=("$name")
		printf 'FAIL (%ds, exit %d): log %s\n' "$secs" "$rc" "${log#"$TOP"/}"
		grep -E '^not ok ' "$log" | head -n 10 | sed 's/^/    /'
		tail -n 15 "$log" | sed 's/^/    | /'
	fi
done
[ "${#failed[@]}" -eq 0 ] || echo "failed: ${failed[*]}"
[ "${#retried[@]}" -eq 0 ] || echo "retried once (timing under emulation): ${retried[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$((pass + skip))" -gt 0 ]

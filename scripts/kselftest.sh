#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build and install the scheduler kselftests of build/linux, or turn the TAP
# output of a guest run into pass/fail.
#
# Usage: scripts/kselftest.sh build          build and install to build/kselftest/install
#        scripts/kselftest.sh run [VM-OPTS]  run them in QEMU (scripts/vm-run.sh options)
#        scripts/kselftest.sh summarize LOG  count ok / not ok / skip lines of a TAP log
#   A run keeps each test's output in build/vm-out/NAME/logs/TEST; the
#   summary prints the messages of the tests that failed.
#   TARGETS="sched" (default) selects the kselftest targets to build;
#   KST_TESTS="sched:sched_o1_balance,..." runs only those tests.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

TARGETS=${TARGETS:-sched}
KST=$BUILD/kselftest
OBJ=$BUILD/obj/${FLAVOUR:-default}

build() {
	[ -f "$OBJ/.config" ] || die "no configured kernel in $OBJ: run 'make kernel' first"
	msg "installing kernel headers into ${OBJ#"$TOP"/}/usr/include"
	run_logged "$LOGS/headers.log" make -C "$TREE" O="$OBJ" -s headers || die "make headers failed"
	msg "building kselftests ($TARGETS)"
	rm -rf "$KST/install"
	run_logged "$LOGS/kselftest-build.log" make -C "$TREE/tools/testing/selftests" \
		TARGETS="$TARGETS" KHDR_INCLUDES="-isystem $OBJ/usr/include" \
		INSTALL_PATH="$KST/install" install || die "kselftest build failed"
	msg "kselftests installed in ${KST#"$TOP"/}/install"
}

# TAP from run_kselftest.sh: "ok N selftests: T: name [# SKIP ...]" / "not ok N ...".
summarize() {
	local log=$1 pass fail skip
	[ -f "$log" ] || die "summarize: $log: no such file"
	pass=$(grep -E '^ok [0-9]+ selftests: ' "$log" | grep -vc '# SKIP' || true)
	skip=$(grep -cE '^ok [0-9]+ selftests: .*# SKIP' "$log" || true)
	fail=$(grep -cE '^not ok [0-9]+ selftests: ' "$log" || true)
	grep -E '^(not )?ok [0-9]+ selftests: ' "$log" | sed 's/^/    /' >&2 || true
	# What each failed test said (run() keeps one log per test).
	local t tl
	for t in $(sed -n 's/^not ok [0-9]* selftests: [a-z_]*: \([A-Za-z0-9_.-]*\).*/\1/p' "$log"); do
		tl=$(dirname "$log")/logs/$t
		[ -f "$tl" ] || continue
		echo "    --- $t: failed cases and their messages (${tl#"$TOP"/}):" >&2
		# The lines of each case that did not end in "ok", without the
		# balancer counters that show nothing happened; of a long case
		# its first 3 and last 45 lines (where the failed checks are).
		awk '/^# #  RUN /{ n = 0 }
		     / imb 0 moved 0 failed 0 pinned 0 active 0$|: active_moved 0 kicks 0$/{ next }
		     { buf[n++] = $0 }
		     /^# not ok /{
			for (i = 0; i < n; i++) {
				if (n > 48 && i == 3)
					print "# [... " n - 48 " lines cut ...]"
				if (n <= 48 || i < 3 || i >= n - 45)
					print buf[i]
			}
			n = 0
		     }
		     /^# ok /{ n = 0 }' "$tl" | sed 's/^/    /' >&2 || true
	done
	echo "kselftest: $pass passed, $fail failed, $skip skipped"
	if [ $((pass + fail + skip)) -eq 0 ]; then
		echo "kselftest: no test result in $log" >&2
		return 1
	fi
	[ "$fail" -eq 0 ]
}

run() {
	[ -x "$KST/install/run_kselftest.sh" ] || die "kselftests not built: run 'scripts/kselftest.sh build'"
	local rc=0 t sel="" name=kselftest
	KST_TESTS=${KST_TESTS:-}
	for t in ${KST_TESTS//,/ }; do
		[[ $t =~ ^[a-z_]+:[A-Za-z0-9_.-]+$ ]] || die "KST_TESTS: '$t' is not COLLECTION:TEST"
		sel+=" -t $t"
	done
	[ -n "$sel" ] && name=kselftest-sel
	# A --name of the caller's picks the output directory to summarise.
	local args=("$@") i
	for ((i = 0; i < ${#args[@]}; i++)); do
		case ${args[i]} in
		--name) name=${args[i + 1]:-$name} ;;
		--name=*) name=${args[i]#--name=} ;;
		esac
	done
	# The guest's root is read-only: run a copy in the guest's /tmp.
	"$TOP/scripts/vm-run.sh" --name "$name" "$@" -- bash -c \
		"cp -a $(printf '%q' "$KST/install") /tmp/kst && cd /tmp/kst && ./run_kselftest.sh -p$sel 2>&1 | tee /tmp/out/kselftest.tap; rc=\${PIPESTATUS[0]}; mkdir -p /tmp/out/logs; find /tmp -maxdepth 1 -type f -exec cp -t /tmp/out/logs {} +; exit \$rc" \
		|| rc=$?
	summarize "$BUILD/vm-out/$name/kselftest.tap" || return 1
	return "$rc"
}

case ${1:-} in
build) build ;;
run) shift; run "$@" ;;
summarize) [ $# -eq 2 ] || die "usage: kselftest.sh summarize LOG"; summarize "$2" ;;
-h|--help) sed -n '3,11p' "$0" ;;
*) die "kselftest.sh: expected build, run or summarize (try --help)" ;;
esac

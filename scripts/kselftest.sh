#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build and install the scheduler kselftests of build/linux against the
# headers of the $FLAVOUR (default) kernel. Guest runs of them are scenarios
# (tests/scenarios, judge "kselftest"), run by scripts/runner.sh.
#
# Usage: scripts/kselftest.sh build   build and install to build/kselftest/install
#   TARGETS="sched" (default) selects the kselftest targets to build.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

TARGETS=${TARGETS:-sched}
KST=$BUILD/kselftest
OBJ=$BUILD/obj/${FLAVOUR:-default}

build() {
	"$TOP/scripts/build-kernel.sh" "${FLAVOUR:-default}" --headers
	msg "building kselftests ($TARGETS)"
	rm -rf "$KST/install"
	run_logged "$LOGS/kselftest-build.log" make -C "$TREE/tools/testing/selftests" \
		TARGETS="$TARGETS" KHDR_INCLUDES="-isystem $OBJ/usr/include" \
		INSTALL_PATH="$KST/install" install || die "kselftest build failed"
	msg "kselftests installed in ${KST#"$TOP"/}/install"
}

case ${1:-} in
build) build ;;
-h|--help) sed -n '3,8p' "$0" ;;
*) die "kselftest.sh: expected build (try --help)" ;;
esac

# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# TAP output of the project's test scripts: the kernel's own KTAP helpers
# (tools/testing/selftests/kselftest/ktap_helpers.sh of the prepared tree:
# ktap_print_header, ktap_test_pass/fail/skip, ktap_finished, ...) plus the
# few the tests need that it lacks. Source it; do not run it. The guests see
# the host's root file system at the same paths, so this works there too.

_ktap_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
_ktap_lib=${TREE:-${BUILD:-$_ktap_top/build}/linux}/tools/testing/selftests/kselftest/ktap_helpers.sh
if [ ! -r "$_ktap_lib" ]; then
	echo "skip: no kernel tree (make prepare)"	# the runner's skip reason
	exit 77
fi
# shellcheck source=/dev/null
. "$_ktap_lib"

# The kernel's __ktap_test echoes the description unquoted: run it with
# globbing off, so that a description with * ? or [...] prints as it is.
if declare -F __ktap_test >/dev/null; then
	eval "_ktap_kernel_test() $(declare -f __ktap_test | tail -n +2)"
	__ktap_test() { local -; set -f; _ktap_kernel_test "$@"; }
fi

# The output of the last ktap_check/ktap_expect command (stdout and stderr).
KTAP_OUTPUT=

# ... | ktap_comment: standard input (its first 20 lines) as "#   " comments.
ktap_comment() { sed -n '1,20s/^/#   /p'; }

# ktap_check DESC CMD...: pass if CMD exits 0; on failure show its exit
# status and output as comments.
ktap_check() {
	local _desc=$1 _rc=0
	shift
	KTAP_OUTPUT=$("$@" 2>&1) || _rc=$?
	if [ "$_rc" -eq 0 ]; then
		ktap_test_pass "$_desc"
	else
		ktap_test_fail "$_desc"
		printf 'exit %s\n%s\n' "$_rc" "$KTAP_OUTPUT" | ktap_comment
	fi
}

# ktap_expect STATUS REGEX DESC [--] CMD...: pass if CMD exits with STATUS
# (a number, or "nonzero") and REGEX (grep -E; "" for any) matches a line of
# its output.
ktap_expect() {
	local _want=$1 _re=$2 _desc=$3 _rc=0
	shift 3
	[ "${1:-}" = -- ] && shift
	KTAP_OUTPUT=$("$@" 2>&1) || _rc=$?
	if { [ "$_rc" = "$_want" ] || { [ "$_want" = nonzero ] && [ "$_rc" -ne 0 ]; }; } &&
	   { [ -z "$_re" ] || grep -Eq -- "$_re" <<<"$KTAP_OUTPUT"; }; then
		ktap_test_pass "$_desc"
	else
		ktap_test_fail "$_desc"
		printf 'exit %s, wanted %s and /%s/\n%s\n' "$_rc" "$_want" "$_re" "$KTAP_OUTPUT" | ktap_comment
	fi
}

# ktap_eval DESC EXPR: pass if "eval EXPR" succeeds (in the caller's shell).
ktap_eval() {
	if eval "$2"; then ktap_test_pass "$1"; else ktap_test_fail "$1"; fi
}

# ktap_done: print the plan, now that the count is known, and the totals;
# exit 0 if every test passed (or skipped), 1 otherwise.
ktap_done() {
	ktap_set_plan $((KTAP_TESTNO - 1))
	ktap_finished
}

# SPDX-License-Identifier: GPL-2.0
# Shared shell functions of the smpnice pipeline. Source it; do not run it.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
TREE=${TREE:-$BUILD/linux}
LOGS=$BUILD/logs
PATCHES=${PATCHES:-$TOP/patches}
# Keep ccache outside build/ so that a fresh clone (CI) reuses earlier objects.
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/smpnice-ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
# shellcheck source=../kernel/VERSION
. "$TOP/kernel/VERSION"

msg()  { printf '==> %s\n' "$*" >&2; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
die()  { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# Run a long command with its output in a log; show a heartbeat meanwhile and
# the log's tail on failure.
run_logged() {
	local log=$1; shift
	mkdir -p "$(dirname "$log")"
	local start=$SECONDS
	"$@" >"$log" 2>&1 &
	local pid=$! rc=0
	while kill -0 "$pid" 2>/dev/null; do
		sleep 15
		kill -0 "$pid" 2>/dev/null && \
			printf '    ... %ds, %s lines of log (%s)\n' $((SECONDS - start)) \
				"$(wc -l <"$log")" "${log#"$TOP"/}" >&2
	done
	wait "$pid" || rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 40 "$log" >&2
		printf 'ERROR: "%s" failed (exit %d); full log: %s\n' "$*" "$rc" "$log" >&2
	fi
	return "$rc"
}

# Names of the patches listed in patches/series, comments and blanks skipped.
series_patches() {
	[ -f "$PATCHES/series" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$PATCHES/series" | grep -v '^$' || true
}

# A digest of the series as it is in patches/: what the tree was built from.
series_digest() {
	local p
	{
		series_patches
		for p in $(series_patches); do cat "$PATCHES/$p"; done
	} | sha256sum | cut -d' ' -f1
}

jobs_count() { nproc; }

# A run of timing-sensitive tests worth one more try: its tests failed
# (exit 1) and the console showed no kernel splat (vm-run.sh prints
# "KERNEL SPLAT ..." before it exits 126). Used by tests/run.sh and
# scripts/matrix.sh, each of which retries at most once and says so.
retryable_test_failure() { # RC LOG
	[ "$1" -eq 1 ] && ! grep -q '^KERNEL SPLAT' "$2"
}

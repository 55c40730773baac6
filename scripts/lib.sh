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

# The subject of a patch file (the Subject: header may be folded).
patch_subject() {
	awk '/^Subject: /{s=$0; f=1; next} f && /^ /{s=s $0; next} f{print s; exit}' "$1" |
		sed 's/^Subject: \[PATCH[^]]*\] //'
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

# The flavour table (kernel/flavours): "NAME | FRAGMENTS | MEM | PURPOSE".
FLAVOURS=$TOP/kernel/flavours
flavour_field() { # NAME FIELD(1-4)
	awk -F'|' -v n="$1" -v f="$2" '
		/^[[:space:]]*(#|$)/ { next }
		{ k = $1; gsub(/[[:space:]]/, "", k) }
		k == n { v = $f; gsub(/^[[:space:]]+|[[:space:]]+$/, "", v); print v; found = 1; exit }
		END { exit !found }' "$FLAVOURS"
}
flavour_names() { awk -F'|' '!/^[[:space:]]*(#|$)/ { gsub(/[[:space:]]/, "", $1); print $1 }' "$FLAVOURS"; }
is_flavour() { flavour_field "$1" 1 >/dev/null; }
# "NAME" or die naming the flavours there are.
check_flavour() {
	is_flavour "$1" || die "unknown flavour '$1' (kernel/flavours has: $(flavour_names | tr '\n' ' '))"
}
flavour_objdir() { echo "$BUILD/obj/$1"; }
kernel_image() { echo "$BUILD/obj/$1/arch/x86/boot/bzImage"; }

# need OPTION "$@": die unless OPTION has a value (option parsers).
need_value() { [ $# -ge 2 ] || die "$(basename "$0"): $1 needs a value (try --help)"; }
# posint OPTION VALUE: die unless VALUE is a whole number > 0.
posint() { [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$(basename "$0"): $1 wants a positive number, got '$2'"; }

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Lint the series: checkpatch --strict over patches/ (scripts/checkpatch.sh),
# and on the patched tree build/linux a W=1 build of kernel/sched/, sparse
# over kernel/sched/ (make C=2) and scripts/kernel-doc -none over the C
# files the series adds or changes. Each of the last three reports only what
# the series brings: the same check on the pristine tree (smpnice-base) is
# the baseline: a finding counts when the pristine tree has none with the
# same file, message and source line text (line numbers are not
# compared). Findings listed in kernel/lint-accepted (each justified
# there) pass.
#
# Usage: scripts/lint.sh [--only LIST] [--findings FILE]
#   --only LIST      a comma list of checkpatch, w1, sparse, kernel-doc
#   --findings FILE  where to list the findings the series brings
#                    (default: build/lint/findings.txt)
# The patched tree is built in build/obj/lint, the pristine one (a copy in
# build/lint/base) in build/obj/lint-base, both configured from the default
# flavour's fragments; neither touches build/obj/default. The pristine
# tree's findings are kept in build/lint/ until smpnice-base, the fragments
# or the tools change. A first run prepares both object directories (a few
# minutes on 2 cores); later ones rebuild kernel/sched/ from ccache.
# TREE=DIR and LINT_OBJ=DIR lint another tree (a scratch worktree) and
# object directory.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

only=checkpatch,w1,sparse,kernel-doc
findings=$BUILD/lint/findings.txt
while [ $# -gt 0 ]; do
	case $1 in
	--only) need_value "$@"; only=$2; shift ;;
	--findings) need_value "$@"; findings=$2; shift ;;
	-h|--help) sed -n '3,24p' "$0"; exit 0 ;;
	*) die "lint.sh: unknown argument '$1' (try --help)" ;;
	esac
	shift
done
for c in ${only//,/ }; do
	case $c in checkpatch|w1|sparse|kernel-doc) ;; *) die "lint.sh: unknown check '$c' (checkpatch, w1, sparse, kernel-doc)" ;; esac
done
want() { [[ ",$only," == *",$1,"* ]]; }

LINT=$BUILD/lint
OBJ=${LINT_OBJ:-$BUILD/obj/lint}
BASE=$LINT/base
BASE_OBJ=$BUILD/obj/lint-base
ACCEPTED=$TOP/kernel/lint-accepted
n=0 failed=0
report() { # STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}

if want checkpatch; then
	st=0; "$TOP/scripts/checkpatch.sh" || st=$?
	report "$st" "checkpatch --strict over patches/"
fi
if ! want w1 && ! want sparse && ! want kernel-doc; then exit $((failed > 0)); fi
mkdir -p "$LINT" "$LOGS" "$(dirname "$findings")"
: >"$findings"

[ -e "$TREE/.git" ] || die "no prepared tree in $TREE: run 'make prepare' first"
base=$(git -C "$TREE" rev-parse -q --verify 'smpnice-base^{commit}') || die "$TREE has no smpnice-base tag"
command -v sparse >/dev/null || ! want sparse || die "sparse is missing: run 'make deps'"

# The pristine tree: a plain copy of smpnice-base (kbuild wants one object
# directory per source tree).
if [ "$(cat "$BASE/.smpnice-lint-base" 2>/dev/null)" != "$base" ]; then
	msg "lint: copying smpnice-base to ${BASE#"$TOP"/}"
	rm -rf "$BASE" "$BASE_OBJ"
	mkdir -p "$BASE"
	git -C "$TREE" archive "$base" | tar -x -C "$BASE"
	echo "$base" >"$BASE/.smpnice-lint-base"
fi

kmake() { # SRC OBJDIR ARGS...
	local src=$1 obj=$2; shift 2
	# --output-sync: a sparse finding's lines stay together under -j.
	make -C "$src" O="$obj" -j"$(jobs_count)" --output-sync=target CC="ccache gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_USER=smpnice KBUILD_BUILD_HOST=qemu KBUILD_BUILD_TIMESTAMP=2000-01-01 "$@"
}
configure() { # SRC OBJDIR [--no-check]: the default flavour's configuration
	BUILD=$LINT TREE=$1 OBJ=$2 "$TOP/scripts/build-kernel.sh" default --config-only ${3:-} >/dev/null ||
		die "lint: configuring ${2#"$TOP"/} failed (see $LINT/logs/)"
}
# tree_checks SRC OBJDIR TAG: the W=1 build and sparse over kernel/sched/,
# their output in $LINT/TAG-w1.log and $LINT/TAG-sparse.log. Removing the
# objects makes gcc speak again (ccache replays a cached compiler's
# warnings); C=2 then runs sparse on every file, compiling nothing.
tree_checks() {
	local src=$1 obj=$2 tag=$3
	rm -f "$obj"/kernel/sched/*.o
	msg "lint: W=1 build of kernel/sched/ in ${obj#"$TOP"/}"
	run_logged "$LINT/$tag-w1.log" kmake "$src" "$obj" W=1 kernel/sched/ ||
		die "lint: the W=1 build of kernel/sched/ in ${src#"$TOP"/} failed"
	if want sparse; then
		msg "lint: sparse over kernel/sched/ (make C=2)"
		# Past 100 warnings in one file sparse drops its "expected"/"got" lines.
		run_logged "$LINT/$tag-sparse.log" kmake "$src" "$obj" W=1 C=2 CF=-fmax-warnings=unlimited kernel/sched/ ||
			die "lint: sparse over kernel/sched/ of ${src#"$TOP"/} failed"
	fi
}

# findings_of SRC LOG: the log's compiler, sparse, objtool and kernel-doc
# findings, one a line: "KEY<TAB>LINE". KEY is the file (relative to the
# tree), the message (a sparse finding's "expected"/"got" lines joined to
# it) and the text of the source line it points at, not its number: a
# finding keeps its key when lines above it move, and a warning of an
# unchanged inline function, reported again at each new call, is one key.
findings_of() {
	awk -v src="$1/" '
		function text(f, n,   x, i) {
			if (!(f in loaded)) {
				loaded[f] = 1; i = 0
				while ((getline x < (src f)) > 0) lines[f, ++i] = x
				close(src f)
			}
			x = lines[f, n]; gsub(/^[ \t]+|[ \t]+$/, "", x); gsub(/[ \t]+/, " ", x)
			return x
		}
		function flush() { if (cur != "") print key "\t" cur; cur = "" }
		{ l = $0; i = index(l, src); while (i) { l = substr(l, 1, i - 1) substr(l, i + length(src)); i = index(l, src) } }
		l ~ /^[^ :]+:[0-9]+(:[0-9]+)?: +  / {
			# a sparse continuation ("   expected ...", "   got ...")
			if (cur != "") { t = l; sub(/^[^ :]+:[0-9]+(:[0-9]+)?: +/, "", t); key = key " / " t; cur = cur " / " t }
			next
		}
		l ~ /: (warning|error): / {
			flush()
			cur = l; key = l
			if (match(l, /^[^ :]+:[0-9]+(:[0-9]+)?: /)) {
				split(substr(l, 1, RLENGTH - 2), loc, ":")
				key = loc[1] ": " substr(l, RLENGTH + 1) " @ " text(loc[1], loc[2] + 0)
			}
			gsub(/\+0x[0-9a-f]+(\/0x[0-9a-f]+)?/, "", key)	# objtool offsets
			next
		}
		{ flush() }
		END { flush() }
	' "$2"
}
# new_findings BASEFILE HEADFILE: the lines of HEADFILE ("KEY<TAB>LINE")
# whose KEY BASEFILE does not have, once each, less the accepted ones.
new_findings() {
	awk -F'\t' 'FILENAME == ARGV[1] { base[$1] = 1; next } !($1 in base) && !seen[$2]++' "$1" "$2" |
		cut -f2- | sort -t: -k1,1 -k2,2n -k3,3n | accepted_filter
}
accepted_filter() {
	local re pats=()
	if [ -f "$ACCEPTED" ]; then
		while IFS= read -r re; do
			case $re in ''|\#*) continue ;; esac
			pats+=(-e "$re")
		done <"$ACCEPTED"
	fi
	if [ "${#pats[@]}" -gt 0 ]; then grep -v -E "${pats[@]}" || true; else cat; fi
}
# tool_stamp: what the pristine tree's findings depend on.
tool_stamp() {
	{
		echo "$base"
		for f in $(flavour_field default 2); do cat "$TOP/kernel/$f"; done
		gcc --version | head -1; sparse --version 2>/dev/null || true
		sed -n '/^tree_checks()/,/^}/p; /^kmake()/,/^}/p' "$TOP/scripts/lint.sh"
	} | sha256sum | cut -d' ' -f1
}

if want w1 || want sparse; then
	configure "$TREE" "$OBJ"
	tree_checks "$TREE" "$OBJ" head
	stamp=$(tool_stamp)
	if [ "$(cat "$LINT/base.stamp" 2>/dev/null)" != "$stamp" ] || [ ! -s "$LINT/base-w1.log" ] ||
	   { want sparse && [ ! -s "$LINT/base-sparse.log" ]; }; then
		msg "lint: the same checks on the pristine tree (once; kept in ${LINT#"$TOP"/}/)"
		rm -f "$LINT/base.stamp"
		configure "$BASE" "$BASE_OBJ" --no-check
		saved=$only; only=w1,sparse
		tree_checks "$BASE" "$BASE_OBJ" base
		only=$saved
		echo "$stamp" >"$LINT/base.stamp"
	fi
fi
check_tool() { # NAME DESCRIPTION BASEFILE HEADFILE
	local new
	new=$(new_findings "$3" "$4")
	if [ -n "$new" ]; then
		{ echo "## $1: $(wc -l <<<"$new") finding(s) the series brings"; echo "$new"; echo; } >>"$findings"
		echo "$new" | sed "s/^/$1: /" >&2
		report 1 "$2: $(wc -l <<<"$new") new finding(s)"
	else
		echo "## $1: none" >>"$findings"; echo >>"$findings"
		report 0 "$2: nothing new"
	fi
}
if want w1; then
	findings_of "$TREE" "$LINT/head-w1.log" >"$LINT/head-w1.txt"
	findings_of "$BASE" "$LINT/base-w1.log" >"$LINT/base-w1.txt"
	check_tool w1 "W=1 build of kernel/sched/" "$LINT/base-w1.txt" "$LINT/head-w1.txt"
fi
if want sparse; then
	findings_of "$TREE" "$LINT/head-sparse.log" >"$LINT/head-sparse.txt"
	findings_of "$BASE" "$LINT/base-sparse.log" >"$LINT/base-sparse.txt"
	check_tool sparse "sparse over kernel/sched/" "$LINT/base-sparse.txt" "$LINT/head-sparse.txt"
fi
if want kernel-doc; then
	# The C files the series adds or changes (its selftests' too): the
	# pristine version of a changed one is the baseline.
	files=$(git -C "$TREE" diff --name-only --diff-filter=AM "$base" HEAD -- '*.c' '*.h')
	: >"$LINT/head-kdoc.log"; : >"$LINT/base-kdoc.log"
	for f in $files; do
		(cd "$TREE" && perl scripts/kernel-doc -none "$f") >>"$LINT/head-kdoc.log" 2>&1 || true
		[ -f "$BASE/$f" ] && (cd "$BASE" && perl "$TREE/scripts/kernel-doc" -none "$f") >>"$LINT/base-kdoc.log" 2>&1 || true
	done
	findings_of "$TREE" "$LINT/head-kdoc.log" >"$LINT/head-kdoc.txt"
	findings_of "$BASE" "$LINT/base-kdoc.log" >"$LINT/base-kdoc.txt"
	check_tool kernel-doc "kernel-doc -none over $(wc -w <<<"$files") files" "$LINT/base-kdoc.txt" "$LINT/head-kdoc.txt"
fi
msg "lint: findings in ${findings#"$TOP"/}"
[ "$failed" -eq 0 ]

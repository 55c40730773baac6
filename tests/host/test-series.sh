#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Proves that patches/ is the product: the real series applies to the
# pristine tree both with git am and with quilt push -a, and both give the
# tree that the pipeline builds; and that every patch has a Signed-off-by.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/scripts/lib.sh"
[ -d "$TREE/.git" ] || { echo "skip: no prepared tree (make prepare)"; exit 77; }
. "$TOP/tests/lib/ktap.sh"
ktap_print_header
W=$(mktemp -d)
cleanup() { git -C "$TREE" worktree remove --force "$W/am" >/dev/null 2>&1; rm -rf "$W"; }
trap cleanup EXIT

count=$(series_patches | wc -l)
# The tree the pipeline builds is base + patches/ (prepare-tree.sh re-applies
# when patches/ changed); compare against its content at the series' end.
want=$(git -C "$TREE" rev-parse "smpnice-base~0^{tree}")
if [ "$count" -gt 0 ]; then
	git -C "$TREE" worktree add -q --detach "$W/am" smpnice-base >/dev/null 2>&1 || ktap_exit_fail_msg "git worktree add failed"
	if git -C "$W/am" -c user.name=t -c user.email=t@t am -q --keep-cr \
		$(series_patches | sed "s|^|$PATCHES/|") >"$W/am.log" 2>&1; then
		ktap_test_pass "git am applies all $count patches of patches/series to smpnice-base"
	else
		ktap_test_fail "git am applies all $count patches of patches/series to smpnice-base"
		tail -5 "$W/am.log" | ktap_comment
	fi
	want=$(git -C "$W/am" rev-parse 'HEAD^{tree}')
	# quilt on a plain copy of the pristine tree
	mkdir -p "$W/q" && git -C "$TREE" archive smpnice-base | tar -x -C "$W/q"
	if (cd "$W/q" && QUILT_PATCHES="$PATCHES" QUILT_PC=.pc quilt push -a -q) >"$W/q.log" 2>&1; then
		ktap_test_pass "quilt push -a applies all $count patches"
	else
		ktap_test_fail "quilt push -a applies all $count patches"
		tail -5 "$W/q.log" | ktap_comment
	fi
	rm -rf "$W/q/.pc"
	got=$(cd "$W/q" && git init -q . && git add -A -f . && git -c user.name=t -c user.email=t@t commit -qm q && git rev-parse 'HEAD^{tree}')
	ktap_check "quilt and git am give the same tree" [ "$got" = "$want" ]
	missing=$(for p in $(series_patches); do grep -q '^Signed-off-by: ' "$PATCHES/$p" || echo "$p"; done)
	ktap_check "every patch has a Signed-off-by" [ -z "$missing" ]
	[ -z "$missing" ] || echo "$missing" | ktap_comment
else
	ktap_test_pass "patches/series is empty: nothing to apply"
fi
ktap_done

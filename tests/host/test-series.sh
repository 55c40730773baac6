#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Proves that patches/ is the product: the real series applies to the
# pristine tree both with git am and with quilt push -a, and both give the
# tree that the pipeline builds; and that every patch has a Signed-off-by.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/scripts/lib.sh"
[ -d "$TREE/.git" ] || { echo "skip: no prepared tree (make prepare)"; exit 77; }
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
W=$(mktemp -d)
cleanup() { git -C "$TREE" worktree remove --force "$W/am" >/dev/null 2>&1; rm -rf "$W"; }
trap cleanup EXIT

count=$(series_patches | wc -l)
# The tree the pipeline builds is base + patches/ (prepare-tree.sh re-applies
# when patches/ changed); compare against its content at the series' end.
want=$(git -C "$TREE" rev-parse "smpnice-base~0^{tree}")
if [ "$count" -gt 0 ]; then
	git -C "$TREE" worktree add -q --detach "$W/am" smpnice-base >/dev/null 2>&1 || { echo "worktree failed"; exit 1; }
	if git -C "$W/am" -c user.name=t -c user.email=t@t am -q --keep-cr \
		$(series_patches | sed "s|^|$PATCHES/|") >"$W/am.log" 2>&1; then
		ok "git am applies all $count patches of patches/series to smpnice-base"
	else
		nok "git am applies all $count patches of patches/series to smpnice-base"; tail -5 "$W/am.log"
	fi
	want=$(git -C "$W/am" rev-parse 'HEAD^{tree}')
	# quilt on a plain copy of the pristine tree
	mkdir -p "$W/q" && git -C "$TREE" archive smpnice-base | tar -x -C "$W/q"
	if (cd "$W/q" && QUILT_PATCHES="$PATCHES" QUILT_PC=.pc quilt push -a -q) >"$W/q.log" 2>&1; then
		ok "quilt push -a applies all $count patches"
	else
		nok "quilt push -a applies all $count patches"; tail -5 "$W/q.log"
	fi
	rm -rf "$W/q/.pc"
	got=$(cd "$W/q" && git init -q . && git add -A -f . && git -c user.name=t -c user.email=t@t commit -qm q && git rev-parse 'HEAD^{tree}')
	[ "$got" = "$want" ] && ok "quilt and git am give the same tree" || nok "quilt and git am give the same tree"
	missing=$(for p in $(series_patches); do grep -q '^Signed-off-by: ' "$PATCHES/$p" || echo "$p"; done)
	[ -z "$missing" ] && ok "every patch has a Signed-off-by" || { nok "every patch has a Signed-off-by"; echo "$missing"; }
else
	ok "patches/series is empty: nothing to apply"
fi
echo "$((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]

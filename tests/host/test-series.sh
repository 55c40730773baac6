#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Proves that patches/ is the product: the real series applies to the
# pristine tree both with git am and with quilt push -a, and both give the
# tree that the pipeline builds; that every patch has a Signed-off-by; that
# the series speaks to a kernel reader (kernel/series-words: no fixup!
# commits, no subject that says how a change was found, no study seeds,
# run counts or review history in changelogs and kernel/sched/ code), in
# patches/ and in build/linux's commits; and that the cover letter's
# diffstat is the series'.
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
	if git -C "$W/am" -c user.name=t -c user.email=t@t -c gc.auto=0 am -q --keep-cr \
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
	got=$(cd "$W/q" && git init -q . && git add -A -f . && git -c user.name=t -c user.email=t@t -c gc.auto=0 -c maintenance.auto=false commit -qm q && git rev-parse 'HEAD^{tree}')
	ktap_check "quilt and git am give the same tree" [ "$got" = "$want" ]
	missing=$(for p in $(series_patches); do grep -q '^Signed-off-by: ' "$PATCHES/$p" || echo "$p"; done)
	ktap_check "every patch has a Signed-off-by" [ -z "$missing" ]
	[ -z "$missing" ] || echo "$missing" | ktap_comment

	# The words of kernel/series-words, in patches/ and in build/linux.
	words=$(series_word_offenders $(series_patches | sed "s|^|$PATCHES/|")) || true
	commits=$(git -C "$TREE" log --reverse --format='%h %s' smpnice-base..HEAD | series_subject_offenders |
		sed 's/^/build\/linux commit /') || true
	words_check() { # DESCRIPTION WHERE
		local hits
		hits=$(printf '%s\n%s\n' "$words" "$commits" | grep -F "($2 rule: ")
		if [ -z "$hits" ]; then
			ktap_test_pass "$1"
		else
			ktap_test_fail "$1"
			# every offender, not ktap_comment's first 20
			echo "$hits" | sed 's/^/#   /'
		fi
	}
	words_check "no patch or build/linux commit is a fixup!, squash! or amend! commit (git rebase -i --autosquash)" fixup
	words_check "no subject says how the change was found (review, tidy, flake, follow-up, again, found by/in)" subject
	words_check "no changelog or added kernel/sched/ line speaks of seeds, runs, boots, reviews, SPEC, the study or the project" text

	# The cover letter: hand-written, not a patch, its diffstat the series'.
	cover=${COVER#"$TOP"/}
	ktap_check "$cover exists" [ -f "$COVER" ]
	ktap_eval "$cover is not in patches/series" '! series_patches | grep -qxF "$(basename "$COVER")"'
	if [ -f "$COVER" ] && got=$(cover_diffstat "$COVER"); then
		want_ds=$(series_diffstat "$W/am")
		if [ "$got" = "$want_ds" ]; then
			ktap_test_pass "$cover's diffstat is the series' (make export refreshes it)"
		else
			ktap_test_fail "$cover's diffstat is the series' (make export refreshes it)"
			diff <(echo "$want_ds") <(echo "$got") | ktap_comment
		fi
	else
		ktap_test_fail "$cover's diffstat is the series' (make export refreshes it)"
		echo "no lines '$COVER_BEGIN' and '$COVER_END' around a diffstat" | ktap_comment
	fi
	n=$(series_patches | wc -l)
	ktap_eval "$cover's subject counts the series' $n patches (00/$n)" \
		'head -n1 "$COVER" | grep -q "00/$n\]"'
else
	ktap_test_pass "patches/series is empty: nothing to apply"
fi
ktap_done

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the kernel after every patch of the series, in order, and fail
# naming the first patch that breaks the build. Uses a separate worktree
# (build/bisect) and object directory (build/obj/bisect) so that build/linux
# and its objects are left alone; builds are incremental (each step rebuilds
# what its patch touches) and go through ccache.
#
# Usage: scripts/bisect-check.sh [--boot] [FIRST]
#   FIRST   start at patch number FIRST (1-based)
#   --boot  also boot each step in a 2-CPU guest (scripts/vm-run.sh)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
boot=0
if [ "${1:-}" = --boot ]; then boot=1; shift; fi
first=${1:-1}
[[ $first =~ ^[1-9][0-9]*$ ]] || die "bisect-check.sh: FIRST must be a patch number, got '$first'"
[ -d "$TREE/.git" ] || die "no prepared tree: run 'make prepare' first"
WT=$BUILD/bisect
if [ ! -d "$WT/.git" ] && [ ! -f "$WT/.git" ]; then
	rm -rf "$WT"
	git -C "$TREE" worktree add -q --detach "$WT" smpnice-base
fi
commits=($(git -C "$TREE" rev-list --reverse smpnice-base..HEAD))
total=${#commits[@]}
[ "$total" -gt 0 ] || { msg "no patches to check"; exit 0; }
start=$SECONDS
for ((i = first - 1; i < total; i++)); do
	c=${commits[i]}
	subj=$(git -C "$TREE" log -1 --format=%s "$c")
	git -C "$WT" checkout -q --detach "$c"
	msg "[$((i + 1))/$total] building after: $subj"
	# The options of the series only exist once their patch is in: no check.
	if ! TREE=$WT OBJ=$BUILD/obj/bisect "$TOP/scripts/build-kernel.sh" default --no-check \
		>"$LOGS/bisect-$((i + 1)).log" 2>&1; then
		tail -n 30 "$LOGS/bisect-$((i + 1)).log" >&2
		die "patch $((i + 1)) ($subj) breaks the build; log: $LOGS/bisect-$((i + 1)).log"
	fi
	if [ "$boot" -eq 1 ] && ! "$TOP/scripts/vm-run.sh" --kernel "$BUILD/obj/bisect/arch/x86/boot/bzImage" \
		--cpus 2 --name "bisect-$((i + 1))" --timeout 120 -- true >/dev/null 2>&1; then
		die "the kernel after patch $((i + 1)) ($subj) does not boot cleanly; console: $LOGS/vm/bisect-$((i + 1)).log"
	fi
done
msg "all $total patches build$([ "$boot" -eq 1 ] && echo " and boot"), one by one ($((SECONDS - start)) s)"

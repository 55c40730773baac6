#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the kernel after every patch of the series, in order, and fail
# naming the first patch that breaks the build (of the kernel, or of the
# sched kselftests at a step that changes them). Uses its own worktree
# (build/bisect/linux) and object directory (build/bisect/obj/default) so that
# build/linux and its objects are left alone; builds are incremental (each
# step rebuilds what its patch touches) and go through ccache, with the
# default kernel's configuration. A step whose patch changes a Kconfig file
# is configured again from the fragments, so that options the series adds
# (SCHED_O1_KUNIT_TEST, ...) take effect from their patch on.
#
# The worktree and object directory sit at the same depth as build/linux and
# build/obj/default: with CCACHE_BASEDIR set to the project (as .ci/run does)
# the compiler sees the same relative paths, so the steps after the last
# patch that touches a widely included header hit the ccache entries of the
# default kernel's build.
#
# A patch that changes nothing kbuild reads (only selftests, Documentation,
# MAINTAINERS) leaves the kernel as the previous step built it: that step
# is not built again (under --boot it is booted all the same). The steps
# before the first built kernel whose patches change only C files (the
# series' fixes to the base tree) compile those files' objects, not a
# whole kernel of the base tree's headers that no later step shares (CI's
# ccache starts empty).
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
BDIR=$BUILD/bisect
WT=$BDIR/linux
OBJ=$BDIR/obj/default
# The layout before this one had the worktree in build/bisect itself.
if [ -e "$BDIR/.git" ]; then
	msg "moving the bisect worktree from ${BDIR#"$TOP"/} to ${WT#"$TOP"/}"
	git -C "$TREE" worktree remove --force "$BDIR" 2>/dev/null || rm -rf "$BDIR"
	git -C "$TREE" worktree prune
	rm -rf "$BUILD/obj/bisect"
fi
if [ ! -e "$WT/.git" ]; then
	rm -rf "$WT"
	git -C "$TREE" worktree prune
	mkdir -p "$BDIR"
	git -C "$TREE" worktree add -q --detach "$WT" smpnice-base
	rm -rf "$OBJ"
fi
mapfile -t commits < <(git -C "$TREE" rev-list --reverse smpnice-base..HEAD)
total=${#commits[@]}
[ "$total" -gt 0 ] || { msg "no patches to check"; exit 0; }
[ "$first" -le "$total" ] || die "bisect-check.sh: FIRST ($first) is past the last patch ($total)"
mkdir -p "$LOGS"
start=$SECONDS
uapi_stale=1
for ((i = first - 1; i < total; i++)); do
	c=${commits[i]}
	n=$((i + 1))
	subj=$(git -C "$TREE" log -1 --format=%s "$c")
	log=$LOGS/bisect-$n.log
	prev=$(git -C "$WT" rev-parse HEAD)
	git -C "$WT" checkout -q --detach "$c"
	# kbuild's syncconfig gives a new option its Kconfig default, not the
	# fragments' value: merge the fragments again when a Kconfig changed.
	changed=$(git -C "$WT" diff --name-only "$prev" "$c")
	kconfig=0
	if grep -qE '(^|/)Kconfig[^/]*$' <<<"$changed"; then
		rm -f "$OBJ/.smpnice-config"
		kconfig=1
	fi
	t0=$SECONDS
	if [ "$i" -gt "$((first - 1))" ] && [ "$kconfig" -eq 0 ] &&
	   [ -f "$OBJ/arch/x86/boot/bzImage" ] &&
	   ! grep -qvE '^(tools/testing/selftests/|Documentation/|MAINTAINERS$)' <<<"$changed"; then
		msg "[$n/$total] changes nothing kbuild reads, the previous build stands: $subj"
	else
		# A step with no kernel built yet, whose patch changes only C files
		# (the fixes to the base tree at the start of the series), builds
		# the objects it changes: a whole kernel of the base tree's headers
		# would be one more cold build, and the first step that changes a
		# header builds the whole kernel anyway.
		objs=""
		if [ "$boot" -eq 0 ] &&
		   [ ! -f "$OBJ/arch/x86/boot/bzImage" ] && [ "$kconfig" -eq 0 ] &&
		   ! grep -qv '\.c$' <<<"$changed"; then
			# kernel/sched/ builds most of its files as parts of
			# build_policy.c and build_utility.c: build those.
			objs=$(while read -r f; do
				u=$(grep -lx "#include \"$(basename "$f")\"" \
					"$(dirname "$WT/$f")"/build_*.c 2>/dev/null | head -1)
				if [ -n "$u" ]; then f=${u#"$WT"/}; fi
				echo "${f%.c}.o"
			done <<<"$changed" | sort -u | tr '\n' ' ')
		fi
		# The options of the series only exist once their patch is in: no check.
		# build-kernel.sh's own logs go to build/bisect/logs, not build/logs.
		if ! BUILD=$BDIR TREE=$WT OBJ=$OBJ KTARGETS=$objs \
			"$TOP/scripts/build-kernel.sh" default --no-check >"$log" 2>&1; then
			tail -n 30 "$log" >&2
			die "patch $n ($subj) breaks the build; log: $log"
		fi
		msg "[$n/$total] builds$([ -n "$objs" ] && echo " ${objs% }") ($((SECONDS - t0)) s): $subj"
	fi
	# A step that changes the sched kselftests builds them against its
	# uapi headers, installed again only if a step since the last install
	# changed them; the output directory persists, so make rebuilds only
	# the programs whose sources the step changed.
	if grep -qE '(^|/)include/uapi/' <<<"$changed"; then uapi_stale=1; fi
	if grep -q '^tools/testing/selftests/sched/' <<<"$changed"; then
		t0=$SECONDS
		mkdir -p "$BDIR/kselftest-sched"
		[ -d "$OBJ/usr/include" ] || uapi_stale=1
		if ! { { [ "$uapi_stale" -eq 0 ] ||
			 BUILD=$BDIR TREE=$WT OBJ=$OBJ "$TOP/scripts/build-kernel.sh" default --headers --no-check; } &&
		       make -C "$WT/tools/testing/selftests/sched" -j"$(jobs_count)" \
			KHDR_INCLUDES="-isystem $OBJ/usr/include" OUTPUT="$BDIR/kselftest-sched"; } \
			>"$LOGS/bisect-$n-kselftest.log" 2>&1; then
			tail -n 30 "$LOGS/bisect-$n-kselftest.log" >&2
			die "patch $n ($subj) breaks the build of the sched kselftests; log: $LOGS/bisect-$n-kselftest.log"
		fi
		uapi_stale=0
		msg "[$n/$total] the sched kselftests build ($((SECONDS - t0)) s)"
	fi
	if [ "$boot" -eq 1 ] && ! "$TOP/scripts/vm-run.sh" --kernel "$OBJ/arch/x86/boot/bzImage" \
		--cpus 2 --name "bisect-$n" --timeout 120 -- true >/dev/null 2>&1; then
		die "the kernel after patch $n ($subj) does not boot cleanly; console: $LOGS/vm/bisect-$n.log"
	fi
done
msg "all $total patches build$([ "$boot" -eq 1 ] && echo " and boot"), one by one ($((SECONDS - start)) s)"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Prepare build/linux: a git repository whose first commit (tag smpnice-base)
# is the pristine 6.12.y tree and whose further commits are patches/series,
# applied with git am.
#
# Usage: scripts/prepare-tree.sh [--force]
#   KERNEL_SRC=/path/to/linux   use this 6.12.y tree (copied, never modified)
#   --force                     drop commits in build/linux that were not exported
set -euo pipefail
. "$(dirname "$0")/lib.sh"

force=0
for a in "$@"; do
	case $a in
	--force) force=1 ;;
	-h|--help) sed -n '3,10p' "$0"; exit 0 ;;
	*) die "prepare-tree.sh: unknown argument '$a' (try --help)" ;;
	esac
done

GIT=(git -C "$TREE" -c user.name="smpnice pipeline" -c user.email="smpnice@localhost")
stamp=$TREE/.git/smpnice-applied

tree_version() {
	local mk=$1/Makefile v p s
	[ -f "$mk" ] || die "$1 is not a kernel tree (no Makefile)"
	v=$(sed -n 's/^VERSION = //p' "$mk" | head -1)
	p=$(sed -n 's/^PATCHLEVEL = //p' "$mk" | head -1)
	s=$(sed -n 's/^SUBLEVEL = //p' "$mk" | head -1)
	[ -n "$v" ] && [ -n "$p" ] || die "$1 is not a kernel tree (no VERSION/PATCHLEVEL in Makefile)"
	echo "$v.$p.${s:-0}"
}

check_version() {
	local ver=$1 what=$2
	case $ver in
	"$KERNEL_SERIES".*) ;;
	*) die "$what is Linux $ver; this series is for $KERNEL_SERIES.y only" ;;
	esac
	[ "$ver" = "$KERNEL_VERSION" ] || \
		warn "$what is Linux $ver; the series was tested on $KERNEL_VERSION (kernel/VERSION). Continuing."
}

# Populate $1 with a pristine source tree.
fetch_source() {
	local dst=$1
	if [ -n "${KERNEL_SRC:-}" ]; then
		[ -d "$KERNEL_SRC" ] || die "KERNEL_SRC=$KERNEL_SRC: no such directory"
		check_version "$(tree_version "$KERNEL_SRC")" "KERNEL_SRC=$KERNEL_SRC"
		msg "copying $KERNEL_SRC (left untouched) to ${dst#"$TOP"/}"
		mkdir -p "$dst"
		# Copy tracked content only: no .git, no build leftovers of the user's tree.
		if git -C "$KERNEL_SRC" rev-parse --git-dir >/dev/null 2>&1; then
			git -C "$KERNEL_SRC" archive --format=tar HEAD | tar -x -C "$dst"
		else
			tar -C "$KERNEL_SRC" --exclude=.git -cf - . | tar -x -C "$dst"
		fi
		echo "KERNEL_SRC=$KERNEL_SRC" >"$dst/.smpnice-source"
	else
		local tarball=/usr/src/$KERNEL_PACKAGE.tar.xz pv
		[ -f "$tarball" ] || die "$tarball not found: run 'make deps' (installs $KERNEL_PACKAGE) or set KERNEL_SRC="
		pv=$(dpkg-query -W -f='${Version}' "$KERNEL_PACKAGE" 2>/dev/null || echo unknown)
		[ "$pv" = "$KERNEL_PACKAGE_VERSION" ] || \
			warn "$KERNEL_PACKAGE is $pv; the series was tested on $KERNEL_PACKAGE_VERSION. Continuing."
		msg "unpacking $tarball"
		mkdir -p "$dst"
		tar -xf "$tarball" -C "$dst" --strip-components=1
		check_version "$(tree_version "$dst")" "$tarball"
		echo "$KERNEL_PACKAGE=$pv" >"$dst/.smpnice-source"
	fi
}

source_id() {
	if [ -n "${KERNEL_SRC:-}" ]; then echo "KERNEL_SRC=$KERNEL_SRC"
	else echo "$KERNEL_PACKAGE=$(dpkg-query -W -f='${Version}' "$KERNEL_PACKAGE" 2>/dev/null || echo unknown)"
	fi
}

create_base() {
	local tmp=$TREE.tmp
	rm -rf "$tmp"
	fetch_source "$tmp"
	msg "creating the base commit (pristine tree) in ${TREE#"$TOP"/}"
	local id ver
	id=$(cat "$tmp/.smpnice-source")
	rm -f "$tmp/.smpnice-source"
	ver=$(tree_version "$tmp")
	git init -q -b series "$tmp"
	echo "$id" >"$tmp/.git/smpnice-source"
	git -C "$tmp" add -A -f .
	GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
		git -C "$tmp" -c user.name="smpnice pipeline" -c user.email="smpnice@localhost" \
		commit -q -m "Linux $ver ($id), pristine"
	git -C "$tmp" tag smpnice-base
	rm -rf "$TREE"
	mv "$tmp" "$TREE"
}

apply_series() {
	local p n=0 total
	total=$(series_patches | wc -l)
	for p in $(series_patches); do
		n=$((n + 1))
		[ -f "$PATCHES/$p" ] || die "patches/series names $p, but patches/$p does not exist"
		msg "applying [$n/$total] $p"
		if ! "${GIT[@]}" am -q --keep-cr --committer-date-is-author-date "$PATCHES/$p" >"$LOGS/git-am.log" 2>&1; then
			local files
			files=$(grep -E '^(error|Patch failed at|.*patch does not apply)' "$LOGS/git-am.log" | head -5 || true)
			"${GIT[@]}" am --abort >/dev/null 2>&1 || true
			die "patch $p does not apply to ${TREE#"$TOP"/}:
$files
(full output: $LOGS/git-am.log)"
		fi
	done
	series_digest >"$stamp"
	"${GIT[@]}" rev-parse HEAD >>"$stamp"
}

mkdir -p "$BUILD" "$LOGS"

if [ -d "$TREE/.git" ] && [ "$(cat "$TREE/.git/smpnice-source" 2>/dev/null)" != "$(source_id)" ]; then
	msg "build/linux was made from $(cat "$TREE/.git/smpnice-source" 2>/dev/null || echo '?'), now $(source_id) is wanted"
	if [ "$force" -eq 0 ] && [ -n "$("${GIT[@]}" log --oneline smpnice-base..HEAD 2>/dev/null)" ] && \
	   [ "$(sed -n 2p "$stamp" 2>/dev/null)" != "$("${GIT[@]}" rev-parse HEAD)" ]; then
		die "build/linux has commits that are not exported; run 'make export' or pass --force"
	fi
	rm -rf "$TREE"
fi

if [ ! -d "$TREE/.git" ]; then
	create_base
	apply_series
	msg "tree ready: $TREE ($(series_patches | wc -l) patches on smpnice-base)"
	exit 0
fi

if [ -n "$("${GIT[@]}" status --porcelain --untracked-files=no)" ]; then
	[ "$force" -eq 1 ] || die "build/linux has uncommitted changes; commit them (then 'make export') or pass --force"
fi

want=$(series_digest)
have=$(sed -n 1p "$stamp" 2>/dev/null || true)
head_now=$("${GIT[@]}" rev-parse HEAD)
head_applied=$(sed -n 2p "$stamp" 2>/dev/null || true)

if [ "$want" = "$have" ] && [ "$head_now" = "$head_applied" ]; then
	msg "tree up to date: $TREE"
	exit 0
fi
if [ "$head_now" != "$head_applied" ] && [ "$force" -eq 0 ]; then
	# The developer committed in the tree: it is the source of truth until exported.
	if [ "$want" = "$have" ]; then
		msg "tree has local commits not yet exported (run 'make export'); using it as it is"
		exit 0
	fi
	die "build/linux has local commits and patches/ changed too; export them ('make export') or pass --force"
fi
msg "patches/ changed: re-applying the series on smpnice-base"
"${GIT[@]}" am --abort >/dev/null 2>&1 || true
"${GIT[@]}" checkout -q -f -B series smpnice-base
apply_series
msg "tree ready: $TREE ($(series_patches | wc -l) patches on smpnice-base)"

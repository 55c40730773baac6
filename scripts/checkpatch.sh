#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run the kernel's checkpatch.pl --strict over every patch of patches/series
# and fail on any finding not listed in kernel/checkpatch-accepted (each
# accepted one is justified in its patch's changelog).
#
# The patches are fed on standard input: checkpatch treats a path that git
# tracks as a source file, not as a patch, and would flag diff context.
#
# Usage: scripts/checkpatch.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"
[ $# -eq 0 ] || die "checkpatch.sh: no arguments expected"
cp=$TREE/scripts/checkpatch.pl
[ -f "$cp" ] || die "no $cp: run 'make prepare' first"

accepted=()
while IFS=$'\t' read -r re type; do
	case $re in ''|\#*) continue ;; esac
	accepted+=("$re"$'\t'"$type")
done <"$TOP/kernel/checkpatch-accepted"

bad=0 n=0
for p in $(series_patches); do
	n=$((n + 1))
	subj=$(patch_subject "$PATCHES/$p")
	while IFS= read -r line; do
		type=$(echo "$line" | sed -n 's/^[^:]*:[0-9]*: \(ERROR\|WARNING\|CHECK\):\([A-Z_0-9]*\):.*/\2/p')
		[ -n "$type" ] || continue
		ok=0
		for a in "${accepted[@]}"; do
			if [ "${a#*$'\t'}" = "$type" ] && echo "$subj" | grep -qE "${a%%$'\t'*}"; then ok=1; fi
		done
		if [ "$ok" -eq 0 ]; then
			echo "$p: ${line#*: }"
			bad=$((bad + 1))
		fi
	done < <(perl "$cp" --strict --no-tree --terse --show-types - <"$PATCHES/$p" 2>&1 || true)
done
if [ "$bad" -gt 0 ]; then
	echo "checkpatch: $bad finding(s) in $n patches" >&2
	exit 1
fi
msg "checkpatch --strict: $n patches clean (accepted findings: kernel/checkpatch-accepted)"

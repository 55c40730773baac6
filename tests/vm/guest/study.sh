#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In the guest (the study-TOPO scenarios of tests/scenarios): every scenario
# of INPUT (lines "SEED NICE-LIST START-LIST", made by
# tools/placement-study.py gen) under every mode, raw results to /tmp/out.
# The modes: count = SCHED_O1 hogs with sched_smpnice 0 (2.6.17), smpnice =
# sched_smpnice 1 (2.6.18), smpnice2 = sched_smpnice 2 (skipped, and said
# so, on a kernel without it), cfs = SCHED_NORMAL hogs (CFS/EEVDF).
#
# Usage: tests/vm/guest/study.sh INPUT [--modes LIST] [--duration SEC]
#
# /tmp/out/index.tsv gets one line per run: seed mode status result-file.
set -uo pipefail

die() { echo "study.sh: $*" >&2; exit 2; }
[ $# -ge 1 ] || die "usage: study.sh INPUT [--modes LIST] [--duration SEC]"
input=$1; shift
modes="count smpnice smpnice2 cfs" duration=6
while [ $# -gt 0 ]; do
	case $1 in
	--modes) modes=${2//,/ }; shift 2 ;;
	--duration) [[ ${2:-} =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--duration wants seconds"; duration=$2; shift 2 ;;
	*) die "unknown argument '$1'" ;;
	esac
done
if [ ! -r "$input" ]; then
	echo "study.sh: no $input: the seeds drew no scenario of this topology (tools/placement-study.py gen)"
	exit 77
fi
for m in $modes; do
	[[ " count smpnice smpnice2 cfs " == *" $m "* ]] || die "unknown mode '$m'"
done
out=${SMPNICE_OUT:-/tmp/out}
SMPNICE=/proc/sys/kernel/sched_smpnice
ncpus=$(nproc)
ready_timeout=$((ncpus > 8 ? 180 : 30))

if [[ " $modes " == *" smpnice2 "* ]] && ! echo 2 >"$SMPNICE" 2>/dev/null; then
	echo "study.sh: this kernel has no sched_smpnice=2: mode smpnice2 skipped"
	modes=${modes//smpnice2/}
fi
if [ ! -w "$SMPNICE" ]; then
	echo "study.sh: no $SMPNICE: only CFS is measured"
	modes=cfs
fi
: >"$out/index.tsv"
total=$(($(grep -c . "$input") * $(wc -w <<<"$modes")))
n=0 fails=0
echo "== $ncpus CPUs: $total runs ($modes; ${duration} s each)"
while read -r seed nice start; do
	[ -n "$seed" ] || continue
	for mode in $modes; do
		n=$((n + 1))
		case $mode in
		count) echo 0 >"$SMPNICE" ;;
		smpnice) echo 1 >"$SMPNICE" ;;
		smpnice2) echo 2 >"$SMPNICE" ;;
		esac
		res=$seed-$mode.json
		nicebench --nice "$nice" --start "$start" --policy "$([ "$mode" = cfs ] && echo normal || echo o1)" \
			--release 200 --duration "$duration" --interval 100 --quiet \
			--ready-timeout "$ready_timeout" --json "$out/$res" >"$out/$seed-$mode.log" 2>&1
		rc=$?
		[ "$rc" -eq 0 ] || fails=$((fails + 1))
		printf '%s\t%s\t%s\t%s\n' "$seed" "$mode" "$rc" "$res" >>"$out/index.tsv"
		printf '[%d/%d] seed %-5s %-8s %s\n' "$n" "$total" "$seed" "$mode" \
			"$([ "$rc" -eq 0 ] && echo ok || echo "FAILED (exit $rc, $seed-$mode.log)")"
	done
done <"$input"
[ -w "$SMPNICE" ] && echo 1 >"$SMPNICE"
echo "== $ncpus CPUs: $n runs, $fails failed"
[ "$fails" -eq 0 ]

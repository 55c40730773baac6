#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The article's case (2 CPUs; two nice 0 and two nice 19 CPU hogs started as
# {0,0} on CPU 0 and {19,19} on CPU 1, released after 200 ms, measured for
# 5 s), run in one QEMU guest under each scheduler the kernel offers: CFS
# always, SCHED_O1 balancing by count and by weight when the kernel has
# them. Tables on stdout; JSON, a Markdown table and a plot in build/demo/.
#
# Usage: tests/vm/demo.sh [--duration SEC]
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/scripts/lib.sh"
duration=5
while [ $# -gt 0 ]; do
	case $1 in
	--duration) [[ ${2:-} =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "demo.sh: --duration wants seconds"; duration=$2; shift 2 ;;
	-h|--help) sed -n '3,9p' "$0"; exit 0 ;;
	*) die "demo.sh: unknown argument '$1'" ;;
	esac
done
out=$BUILD/demo
mkdir -p "$out"
msg "the article's case on 2 CPUs, in QEMU (about $((3 * ${duration%.*} + 15)) s)"
"$TOP/scripts/vm-run.sh" --name demo --cpus 2 --out "$out" --timeout 300 -- \
	tests/vm/guest/demo.sh "$duration"
if [ -f "$out/o1-smpnice0.json" ] && [ -f "$out/o1-smpnice1.json" ]; then
	echo
	echo "== side by side, one boot (shares in % of one CPU)"
	"$TOP/tools/demo-report.py" "$out" "O1 by count (2.6.17)=$out/o1-smpnice0.json" \
		"O1 smpnice (2.6.18)=$out/o1-smpnice1.json" "CFS/EEVDF=$out/cfs.json"
fi

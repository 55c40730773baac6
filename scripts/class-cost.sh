#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make class-cost: what SCHED_O1 costs a kernel that has the class built in
# but runs no O1 task. Boots the default kernel and the o1off kernel (the
# class configured out) in turn, 2 CPUs each, and runs perf bench sched
# messaging and pipe in each boot; prints the medians, the spread and the
# ratio default/o1off. The O1 hooks of the tick, SCHED_SOFTIRQ, idle entry
# and the pick sit behind a static key that is off while no task is in
# the class, so the ratio should be 1 within the spread.
#
# Usage: scripts/class-cost.sh [--boots N] [--repeat N]
#   --boots   boots of each kernel, alternating (default 3)
#   --repeat  runs of each benchmark per boot (default 3)
# Output: build/class-cost/class-cost.md (and the raw numbers beside it).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() { sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }

boots=3 repeat=3
while [ $# -gt 0 ]; do
	case $1 in
	--boots) boots=${2:?}; shift 2 ;;
	--repeat) repeat=${2:?}; shift 2 ;;
	-h|--help) usage 0 ;;
	*) echo "class-cost.sh: unknown argument '$1'" >&2; usage ;;
	esac
done
[[ $boots =~ ^[1-9][0-9]?$ ]] || die "--boots takes 1..99, not '$boots'"
[[ $repeat =~ ^[1-9][0-9]?$ ]] || die "--repeat takes 1..99, not '$repeat'"

out=$BUILD/class-cost
mkdir -p "$out"
rm -f "$out"/raw-*.txt
for f in default o1off; do
	[ -f "$BUILD/obj/$f/arch/x86/boot/bzImage" ] ||
		die "no $f kernel: run 'scripts/build-kernel.sh $f' first"
done

# messaging: seconds for 4 groups of 40 tasks; pipe: usecs per round trip,
# both tasks on CPU 1 (across CPUs, under TCG, a round trip takes 150 or
# 900 us depending on where the two land: that would drown the rest).
guest_cmd="for i in \$(seq $repeat); do
	echo messaging \$(perf bench -f simple sched messaging -g 4 -l 100)
	echo pipe \$(taskset -c 1 perf bench -f simple sched pipe -l 20000 | awk '{ print \$1 / 20000 * 1e6 }')
done >/tmp/out/raw.txt"

for b in $(seq "$boots"); do
	for f in default o1off; do
		msg "boot $b of $boots: $f kernel, perf bench x $repeat"
		scripts/vm-run.sh --flavour "$f" --cpus 2 --name "class-cost-$f" \
			--out "$out/vm-$f" -- bash -c "$guest_cmd" >/dev/null ||
			die "the $f guest failed (build/logs/vm/class-cost-$f.log)"
		cat "$out/vm-$f/raw.txt" >>"$out/raw-$f.txt"
	done
done

python3 - "$out" "$boots" "$repeat" <<'EOF'
import statistics, sys
out, boots, repeat = sys.argv[1], sys.argv[2], sys.argv[3]
data = {}
for k in ("default", "o1off"):
    for line in open(f"{out}/raw-{k}.txt"):
        bench, val = line.split()
        data.setdefault(bench, {}).setdefault(k, []).append(float(val))
units = {"messaging": "s", "pipe": "us/round trip, one CPU"}
rows = [f"# Cost of the unused SCHED_O1 class ({boots} boots x {repeat} runs, 2 CPUs, lower is better)", "",
        "| benchmark | default: median (min-max) | o1off: median (min-max) | default / o1off |",
        "|---|---|---|---|"]
for bench in ("messaging", "pipe"):
    d, o = data[bench]["default"], data[bench]["o1off"]
    md, mo = statistics.median(d), statistics.median(o)
    rows.append(f"| {bench} ({units[bench]}) | {md:.3f} ({min(d):.3f}-{max(d):.3f}) | "
                f"{mo:.3f} ({min(o):.3f}-{max(o):.3f}) | {md / mo:.3f} |")
open(f"{out}/class-cost.md", "w").write("\n".join(rows) + "\n")
print("\n".join(rows))
EOF

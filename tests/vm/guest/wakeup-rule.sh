#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In a guest booted with sched_o1=all: the wake-up rules of patches 19-20
# against 2.6.17's and CFS, in one boot, the modes interleaved in each round:
#   rule    whole-system mode, kernel.sched_o1_wakeup_preempt=1 (default)
#   2.6.17  whole-system mode, kernel.sched_o1_wakeup_preempt=0
#   noest   whole-system mode, the rules, the estimator off
#           (kernel.sched_o1_interactive=0; skipped on a kernel without it)
#   cfs     kernel.sched_o1_all=0
# Each round runs cyclictest beside N nice 0 and N nice 19 hogs (as make
# bench's latency scenario: SCHED_OTHER threads, 10 ms period, 6 s), the
# signal ping-pong beside a hog (tools/pingpong), perf bench sched
# messaging and pipe, and hackbench, these four under perf stat -a for the
# guest's context switches. Prints one line per run and a table of medians
# (min-max); raw lines in /tmp/out/wakeup-rule.txt.
#
# Usage: tests/vm/guest/wakeup-rule.sh [ROUNDS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PATH=$PWD/tools:$PATH
rounds=${1:-5}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "wakeup-rule.sh: ROUNDS is a positive number, not '$rounds'" >&2; exit 2; }
ALL=/proc/sys/kernel/sched_o1_all
RULE=/proc/sys/kernel/sched_o1_wakeup_preempt
EST=/proc/sys/kernel/sched_o1_interactive
for f in "$ALL" "$RULE"; do
	[ -w "$f" ] || { echo "wakeup-rule.sh: no $f (kernel without whole-system mode or its wake-up rules)"; exit 77; }
done
for t in nicebench pingpong cyclictest hackbench perf python3; do
	command -v "$t" >/dev/null || { echo "wakeup-rule.sh: $t not installed"; exit 77; }
done
out=/tmp/out
mkdir -p "$out"
raw=$out/wakeup-rule.txt
: >"$raw"
n=$(nproc)
modes="rule 2.6.17 noest cfs"
[ -w "$EST" ] || { echo "wakeup-rule.sh: no $EST: no noest runs"; modes="rule 2.6.17 cfs"; }
saved_all=$(cat "$ALL") saved_rule=$(cat "$RULE") saved_est=$(cat "$EST" 2>/dev/null || echo 1)
trap 'echo "$saved_all" >"$ALL"; echo "$saved_rule" >"$RULE"; [ ! -w "$EST" ] || echo "$saved_est" >"$EST"' EXIT
est() { [ ! -w "$EST" ] || echo "$1" >"$EST"; }

list() { local i s=""; for ((i = 0; i < n; i++)); do s+="${s:+,}$1"; done; echo "$s"; }

# latency: cyclictest's worst and mean wake-up in us, beside the hogs
latency() {
	nicebench --nice "$(list 0),$(list 19)" --policy normal --duration 9 \
		--quiet >/dev/null 2>&1 &
	local hogs=$!
	sleep 1
	cyclictest --policy=other -t "$n" -i 10000 -D 6 -q -m -h 100000 \
		--json=/tmp/cyclictest.json >/dev/null 2>&1
	wait "$hogs"
	python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["thread"].values()
print("latency_max_us %d latency_mean_us %.0f" % (max(v["max"] for v in t), sum(v["avg"] for v in t) / len(t)))' /tmp/cyclictest.json
}

# NAME_s SECONDS NAME_cs SWITCHES of a throughput run: its "Total time" or
# "Time:" line, and the guest's context switches (perf stat -a)
tput() {
	local name=$1 t cs
	shift
	t=$(perf stat -a -x, -e context-switches -o /tmp/perf-stat.txt -- "$@" 2>&1 |
		awk '/Total time|^Time:/ { v = $NF == "[sec]" ? $(NF - 1) : $NF } END { print v }')
	cs=$(awk -F, '/context-switches/ { print $1 }' /tmp/perf-stat.txt)
	echo "${name}_s $t ${name}_cs ${cs:-0}"
}

for ((r = 1; r <= rounds; r++)); do
	for mode in $modes; do
		case $mode in
		rule) echo 1 >"$ALL"; echo 1 >"$RULE"; est 1 ;;
		2.6.17) echo 1 >"$ALL"; echo 0 >"$RULE"; est 1 ;;
		noest) echo 1 >"$ALL"; echo 1 >"$RULE"; est 0 ;;
		cfs) echo 0 >"$ALL"; echo 1 >"$RULE"; est 1 ;;
		esac
		line="round $r $mode $(latency)"
		line+=" $(tput starve pingpong -n 2000 -c 0 -H 1)"
		line+=" $(tput messaging perf bench sched messaging -g 4 -l 40)"
		line+=" $(tput pipe perf bench sched pipe -l 5000)"
		line+=" $(tput hackbench hackbench -g 4 -l 50)"
		echo "$line" | tee -a "$raw"
	done
done

python3 - "$raw" <<'EOF'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    w = line.split()
    vals = dict(zip(w[3::2], (float(x) for x in w[4::2])))
    runs.setdefault(w[2], []).append(vals)
modes = [m for m in ("rule", "2.6.17", "noest", "cfs") if m in runs]
keys = ["latency_max_us", "latency_mean_us"] + \
    [b + s for b in ("starve", "messaging", "pipe", "hackbench") for s in ("_s", "_cs")]
print("| measure | " + " | ".join(modes) + " |")
print("|---" * (len(modes) + 1) + "|")
for k in keys:
    cells = []
    for m in modes:
        v = sorted(r[k] for r in runs.get(m, []) if k in r)
        fmt = "%.3f" if k.endswith("_s") else "%.0f"
        cells.append((fmt + " (" + fmt + "-" + fmt + ")") % (statistics.median(v), v[0], v[-1]) if v else "-")
    print("| %s | %s |" % (k, " | ".join(cells)))
EOF

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the placement model and study (tools/placement.py,
# tools/placement-study.py) without a guest: the best static placement
# against brute force, 2.6.18's arithmetic on the worked examples, the
# reduction of a stable imbalance to its reproducer, the scenario draw,
# the argument checks and a report of a fake study.
#
# KTAP output (tests/lib/ktap.sh); exits non-zero if any check failed.
set -uo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/tests/lib/ktap.sh"
STUDY=$TOP/tools/placement-study.py
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ktap_print_header

py() {
	local desc=$1 code=$2
	ktap_check "$desc" python3 -c "import sys, importlib.util, itertools, random
sys.path.insert(0, '$TOP/tools')
import placement as P
spec = importlib.util.spec_from_file_location('ps', '$STUDY')
S = importlib.util.module_from_spec(spec)
spec.loader.exec_module(S)
$code"
}

py "weights: the class's timeslices (nice -20 800 ms, 0 100 ms, 19 5 ms) in nice 0 units" '
assert [P.o1_weight(n) for n in (-20, 0, 10, 19)] == [8192, 1024, 512, 51]
assert P.cfs_weight(0) == 1024 and P.cfs_weight(19) == 15'
py "water-filling: a nice -20 hog beside three nice 0 on 2 CPUs gets one CPU, the rest share one" '
i = P.waterfill([8192, 1024, 1024, 1024], 2)
assert i[0] == 1.0 and all(abs(x - 1 / 3) < 1e-12 for x in i[1:]), i'
py "best static placement = brute force over every placement that leaves no CPU idle (300 cases)" '
random.seed(7)
for k in range(300):
    cpus = random.choice([2, 3, 4]); n = random.randint(1, 7)
    w = [P.o1_weight(random.choice([-20, -5, 0, 0, 5, 10, 19])) for _ in range(n)]
    ideal = P.waterfill(w, cpus)
    bf = min(P.max_rel_err(P.placement_shares(w, pl), ideal)
             for pl in itertools.product(range(cpus), repeat=n) if len(set(pl)) == min(n, cpus))
    e, pl, exact = P.best_static(w, cpus)
    assert exact and abs(bf - e) < 1e-9 and len(set(pl)) == min(n, cpus), (w, cpus, bf, e, pl)'
py "best static placement: 16 hogs on 8 CPUs solved exactly within the budget" '
random.seed(3)
w = [P.o1_weight(random.randint(-20, 19)) for _ in range(16)]
e, pl, exact = P.best_static(w, 8)
assert exact and len(set(pl)) == 8 and abs(e - P.max_rel_err(P.placement_shares(w, pl), P.waterfill(w, 8))) < 1e-12'
py "2.6.18: {0} / {0,10,10} / {0,10} is accepted by the throughput comparison (the issue's worked example)" '
w = [P.o1_weight(x) for x in (0, 0, 10, 10, 0, 10)]
d = P.flat_decisions(w, [0, 1, 1, 1, 2, 2], 3)
assert all(x[2] == 0 for x in d), d
assert d[0][3] == "small imbalance: throughput not raised by a move", d
assert P.best_static(w, 3)[0] == 0.0'
py "2.6.17 by count accepts the article's {0,0} / {19,19}; smpnice makes CPU 1 pull" '
w = [1024, 1024, 51, 51]
assert all(x[2] == 0 for x in P.flat_decisions(w, [0, 0, 1, 1], 2, smpnice=False))
d = P.flat_decisions(w, [0, 0, 1, 1], 2, smpnice=True)
assert d[1][1] == 0 and d[1][2] > 0, d'
py "sched_smpnice=2's rule: a nice 10 task leaves {0,10,10}; {-18,-11} / {-4,7,5,-8} swaps -11 for -4 or -8; no move for a hair" '
w = [P.o1_weight(x) for x in (0, 0, 10, 10, 0, 10)]
assert P.flat_exact_moves(w, [0, 1, 1, 1, 2, 2], 3) == [(2, 1, 0), (3, 1, 0)]
w = [P.o1_weight(x) for x in (-18, -11, -4, 7, 5, -8)]
assert P.flat_exact_moves(w, [0, 0, 1, 1, 1, 1], 2) == [(1, 0, 1, 2), (1, 0, 1, 5)]
assert S.reduce([-18, -11, -4, 7, 5, -8], [0, 0, 1, 1, 1, 1], 2, exact=True) == (None, None)
w = [P.o1_weight(x) for x in (0, 0, 0)]
assert P.flat_exact_moves(w, [0, 0, 1], 2) == []
# {7,5,-4,-11} / {-8,-18}: the one swap that narrows the gap (-8 for -4) narrows it by 2
w = [P.o1_weight(x) for x in (7, 5, -4, -8, -11, -18)]
assert P.flat_exact_moves(w, [0, 0, 0, 1, 0, 1], 2) == []'
py "the study counts migrations in the last 2 s of a window" '
nb = {"samples": [{"t": 0.0, "migr": [0, 0], "cpu": [0, 0]}, {"t": 2.0, "migr": [1, 0], "cpu": [1, 0]},
                  {"t": 4.0, "migr": [2, 1], "cpu": [0, 1]}]}
rate, cpu = S.tail_migrations(nb)
assert rate == 0.5 and cpu == [1, 0], (rate, cpu)
assert S.tail_migrations({"samples": []}) == (0.0, None)'
py "the kernel's view: a pull seen by the hog seconds later counts when the kernel made it" '
BR = S.BR
smp = []
for k in range(40):
    t = 0.1 * (k + 1)
    # the balancer moves task 1 at 0.3 s; the hog runs there and sees it at 2.5 s
    smp.append({"t": t, "share": [0.5, 0.5], "cpu": [0, 1 if t >= 2.5 else 0],
                "migr": [0, 1 if t >= 2.5 else 0], "kcpu": [0, 1 if t >= 0.3 else 0],
                "kmigr": [0, 1 if t >= 0.3 else 0]})
tasks = [{"migrations": 0, "nr_migrations_kernel": 0, "end_cpu": 0, "kernel_end_cpu": 0},
         {"migrations": 1, "nr_migrations_kernel": 1, "end_cpu": 0, "kernel_end_cpu": 1}]
run = {"samples": smp, "tasks": tasks, "window_s": 4.0}
assert BR.kernel_view(run) and abs(BR.settled(run) - 0.3) < 1e-9, BR.settled(run)
assert S.tail_migrations(run) == (0.0, [0, 1]), S.tail_migrations(run)
assert [BR.task_end_cpu(t) for t in tasks] == [0, 1]
hog = {"samples": [{k: v for k, v in q.items() if k not in ("kcpu", "kmigr")} for q in smp],
       "tasks": tasks, "window_s": 4.0}
assert not BR.kernel_view(hog) and abs(BR.settled(hog) - 2.5) < 1e-9
assert S.tail_migrations(hog)[0] > 0'
py "moves made before the first sample are settling, not migrations after it" '
BR = S.BR
# 7 moves in the first 100 ms, shares steady from there, one move at 3.0 s
smp = [{"t": 0.1 * (k + 1), "share": [0.5, 0.5], "cpu": [0, 1], "kcpu": [0, 1],
        "migr": [7, 1 if k >= 29 else 0], "kmigr": [7, 1 if k >= 29 else 0]} for k in range(40)]
tasks = [{"migrations": 7, "nr_migrations_kernel": 7, "end_cpu": 0, "kernel_end_cpu": 0},
         {"migrations": 1, "nr_migrations_kernel": 1, "end_cpu": 1, "kernel_end_cpu": 1}]
conv, rate = BR.convergence({"samples": smp, "tasks": tasks, "window_s": 4.0})
assert abs(conv - 0.1) < 1e-9 and abs(rate - 1 / 2 / 3.9) < 1e-9, (conv, rate)'
py "migrations after convergence split by effect; after the placement settles a move and its undoing count" '
# 2 CPUs, nice 0, 0, 19, 19 (1024, 1024, 51, 51): {0,0} / {19,19} until 1.0 s,
# then a nice 0 task moves ({0} / {0,19,19}: lower error, a new low), at 3.0 s
# it goes back (higher error) and at 3.1 s over again (lower, but no new low)
w = [1024, 1024, 51, 51]
def place(t):
    return [0, 0, 1, 1] if t < 1.0 or 3.0 <= t < 3.1 else [0, 1, 1, 1]
def migr(t):
    return [0, (t >= 1.0) + (t >= 3.0) + (t >= 3.1), 0, 0]
ts = [round(0.1 * (k + 1), 3) for k in range(40)]
smp = [{"t": t, "share": [0.5] * 4, "kcpu": place(t), "kmigr": migr(t)} for t in ts]
tasks = [{"weight": x, "nr_migrations_kernel": m} for x, m in zip(w, migr(4.0))]
nb = {"samples": smp, "tasks": tasks, "window_s": 4.0}
ideal = S.P.waterfill(w, 2)
low, other = S.migr_effect(nb, w, ideal, 0.5)
assert abs(low - 2 / 4 / 3.5) < 1e-9 and abs(other - 1 / 4 / 3.5) < 1e-9, (low, other)
low, other = S.migr_effect(nb, w, ideal, 2.0)
assert abs(low - 1 / 4 / 2.0) < 1e-9 and abs(other - 1 / 4 / 2.0) < 1e-9, (low, other)
short = {"samples": smp[:5], "tasks": tasks, "window_s": 4.0}
assert S.migr_effect(short, w, ideal, None) == (None, None)
assert S.migr_after_placement(short, w, ideal, None) is None
# after the placement settles: from the new low at 1.0 s, both late moves
r = S.migr_after_placement(nb, w, ideal, 0.5)
assert abs(r - 2 / 4 / 3.0) < 1e-9, r
# convergence later than the last low decides; none: from the second half
for conv in (2.0, None):
    r = S.migr_after_placement(nb, w, ideal, conv)
    assert abs(r - 2 / 4 / 2.0) < 1e-9, (conv, r)
# a placement that keeps improving until 3.1 s settles there
place = lambda t: [0, 0, 1, 1] if t < 3.1 else [0, 1, 1, 1]
smp = [{"t": t, "share": [0.5] * 4, "kcpu": place(t), "kmigr": [0, int(t >= 3.1), 0, 0]} for t in ts]
tasks[1]["nr_migrations_kernel"] = 1
r = S.migr_after_placement({"samples": smp, "tasks": tasks, "window_s": 4.0}, w, ideal, 0.5)
assert abs(r) < 1e-9, r'
py "the study pairs each mode's migrations with 2.6.18's on the same seed" '
runs = [{"seed": 1, "mode": "smpnice", "status": 0, "migr_rate": 0.1},
        {"seed": 1, "mode": "smpnice2", "status": 0, "migr_rate": 0.2},
        {"seed": 2, "mode": "smpnice", "status": 0, "migr_rate": 0.0},
        {"seed": 2, "mode": "smpnice2", "status": 0, "migr_rate": 0.0},
        {"seed": 3, "mode": "smpnice", "status": 0, "migr_rate": 0.3},
        {"seed": 3, "mode": "smpnice2", "status": 0, "migr_rate": 0.1},
        {"seed": 4, "mode": "smpnice2", "status": 0, "migr_rate": 0.5}]
assert S.paired(runs, "smpnice2") == {"more": 1, "same": 1, "fewer": 1}, S.paired(runs, "smpnice2")
assert S.paired(runs, "smpnice") is None'
py "the study splits migrations by whether 2.6.18 ends near the best placement" '
runs = [{"seed": 1, "mode": "smpnice", "status": 0, "migr_rate": 0.1, "gap": 0.0},
        {"seed": 1, "mode": "smpnice2", "status": 0, "migr_rate": 0.2, "gap": 0.0},
        {"seed": 2, "mode": "smpnice", "status": 0, "migr_rate": 0.0, "gap": 0.3},
        {"seed": 2, "mode": "smpnice2", "status": 0, "migr_rate": 0.4, "gap": 0.0},
        {"seed": 3, "mode": "smpnice", "status": 0, "migr_rate": 0.0, "gap": 0.05},
        {"seed": 3, "mode": "smpnice2", "status": 0, "migr_rate": None, "gap": 0.0},
        {"seed": 4, "mode": "smpnice2", "status": 0, "migr_rate": 0.5, "gap": 0.0}]
r = S.by_ref_outcome(runs, "smpnice2")
assert r == {"good": (1, 0.2), "off": (1, 0.4)}, r
for x in runs:
    x["migr_placed"] = x["migr_rate"]
assert S.by_ref_outcome(runs, "smpnice2", key="migr_placed") == r
assert S.paired(runs, "smpnice2", key="migr_placed") == {"more": 2, "same": 0, "fewer": 0}
assert S.by_ref_outcome([x for x in runs if x["mode"] != "smpnice"], "smpnice2") is None'
py "reduction: the worked example is already minimal, and its rule is named" '
rep, rules = S.reduce([0, 0, 10, 10, 0, 10], [0, 1, 1, 1, 2, 2], 3)
assert rep == [[0], [0, 10, 10], [0, 10]], rep
assert rules == ["CPU 0: small imbalance: throughput not raised by a move"], rules'
py "reduction: by count the article reduces to {0,0} / {19}; smpnice does not accept it" '
assert S.reduce([0, 0, 19, 19], [0, 0, 1, 1], 2, smpnice=False)[0] == [[0, 0], [19]]
assert S.reduce([0, 0, 19, 19], [0, 0, 1, 1], 2, smpnice=True) == (None, None)'

ktap_check "gen: a seed always draws the same scenario" bash -c \
	"'$STUDY' gen --seeds 5-9 --out '$TMP/a' >/dev/null && '$STUDY' gen --seeds 5-9 --out '$TMP/b' >/dev/null &&
	 cmp -s '$TMP/a/scenarios.tsv' '$TMP/b/scenarios.tsv' && [ \$(grep -vc '^#' '$TMP/a/scenarios.tsv') -eq 5 ]"
py "gen: 2..16 hogs, nice -20..19, start CPUs inside the topology, over 1000 seeds" '
for s in range(1, 1001):
    topo, nice, start = S.draw(s)
    cpus = S.TOPOLOGIES[topo][0]
    assert 2 <= len(nice) <= 16 and len(start) == len(nice)
    assert all(-20 <= x <= 19 for x in nice) and all(0 <= c < cpus for c in start)'
ktap_expect 2 "--seeds wants A-B" "gen rejects --seeds x" "$STUDY" gen --seeds x --out "$TMP/c"
ktap_expect 2 "no index.tsv" "report rejects a directory that is not a study's output" \
	"$STUDY" report "$TMP/r" "$TMP"

# A fake study: one flat 3-CPU scenario (the worked example) that smpnice
# leaves as it is and CFS fixes.
python3 - "$TMP/raw/out-study-flat-3" <<'EOF'
import json, os, sys
d = sys.argv[1]
os.makedirs(d)
nice = [0, 0, 10, 10, 0, 10]
def run(name, weights, end, shares, migr_at):
    samples = []
    for k in range(60):
        t = 0.1 * (k + 1)
        samples.append({"t": t, "share": shares, "cpu": end, "migr": [1 if t >= migr_at else 0] + [0] * 5})
    tasks = [{"task": i, "nice": n, "weight": w, "share": s, "ideal": 0.5, "migrations": 0,
              "end_cpu": c, "duty": 100, "rt_prio": 0} for i, (n, w, s, c) in enumerate(zip(nice, weights, shares, end))]
    json.dump({"cpus": 3, "duration_s": 6.0, "window_s": 6.0, "tasks": tasks, "samples": samples,
               "summary": {"max_rel_err": 0.9}}, open(f"{d}/{name}", "w"))
ow = [1024, 1024, 512, 512, 1024, 512]
run("1-smpnice.json", ow, [0, 1, 1, 1, 2, 2], [1.0, 0.5, 0.25, 0.25, 0.67, 0.33], 0.5)
run("1-cfs.json", [1024, 1024, 110, 110, 1024, 110], [0, 1, 2, 0, 2, 1], [0.9] * 3 + [0.1] * 3, 0.5)
with open(f"{d}/index.tsv", "w") as f:
    f.write("1\tsmpnice\t0\t1-smpnice.json\n1\tcfs\t0\t1-cfs.json\n1\tcount\t1\t1-count.json\n")
EOF
ktap_check "report: a fake study is summarised" \
	"$STUDY" report --no-plots "$TMP/rep" "$TMP/raw/out-study-flat-3"
py "report: smpnice's stable imbalance found, reduced and explained; CFS within 5 points; a failed run counted" '
import json
d = json.load(open("'"$TMP"'/rep/study.json"))
m = {s["mode"]: s for s in d["summary"]}
assert m["smpnice"]["stable_imbalances"] == 1 and m["smpnice"]["within_gap_placement"] == 0.0, m["smpnice"]
assert m["cfs"]["within_gap_placement"] == 1.0 and m["cfs"]["stable_imbalances"] == 0, m["cfs"]
x = d["imbalances"][0]
assert x["seed"] == 1 and x["reproducer"] == [[0], [0, 10, 10], [0, 10]], x
assert "throughput not raised" in x["rules"][0], x
assert [r for r in d["runs"] if r["mode"] == "count"][0]["status"] == 1'
ktap_check "report: the Markdown names the reproducer" \
	grep -q '{0} / {0,10,10} / {0,10}' "$TMP/rep/study.md"

ktap_done

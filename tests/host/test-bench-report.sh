#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of make bench without running it: tools/bench-report.py on a
# small fake result tree (medians, spreads, convergence, migrations, the
# o1_balance counters with and without lb_time_ns, throughput parsing,
# static reachability, perf stat rates, targets), the argument checks of make bench (the bench-* scenarios)
# and tests/vm/guest/bench.sh, and nicebench's --duty/--rt ideal shares;
# make bench-whole: its boots merged per topology (fake out-whole-* trees),
# its rows and arguments, and the target itself with a fake runner.
#
# KTAP output (tests/lib/ktap.sh); exits non-zero if any check failed.
set -uo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/tests/lib/ktap.sh"
REPORT=$TOP/tools/bench-report.py
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ktap_print_header

# A fake run of one 2-CPU topology: three repeats of the article's case and
# of odd (3 on 2) under each scheduler, messaging under each, and balance
# counters in the format with lb_time_ns and in the one without.
python3 - "$TMP/raw/2" <<'EOF'
import json, os, sys
d = sys.argv[1]
os.makedirs(d)
open(f"{d}/info.txt", "w").write("cpus=2\nkernel=6.12-test\nnodes=1\nduration=4\nrepeat=3\nsched_domains=MC\n")
idx = []
def nb(name, nices, weights, ideals, shares, conv_at, migr_total):
    # 40 samples of 100 ms; shares 0.5 for everyone until conv_at, then final
    samples, migr = [], [0] * len(nices)
    for k in range(40):
        t = 0.1 * (k + 1)
        sh = shares if t > conv_at else [0.5] * len(nices)
        if t <= conv_at:
            migr = [m + 1 for m in migr]
        samples.append({"t": t, "share": sh, "cpu": [0] * len(nices), "migr": list(migr)})
    tasks = [{"task": i, "nice": n, "start_cpu": 0, "weight": w, "share": s, "ideal": i_,
              "migrations": migr[i] + migr_total, "nr_migrations_kernel": migr[i] + migr_total,
              "end_cpu": 0,
              "policy": "o1", "duty": 100, "rt_prio": 0}
             for i, (n, w, i_, s) in enumerate(zip(nices, weights, ideals, shares))]
    errs = [abs(s - i_) / i_ for s, i_ in zip(shares, ideals)]
    s0 = [s for n, s in zip(nices, shares) if n == 0]
    s19 = [s for n, s in zip(nices, shares) if n == 19]
    summ = {"max_rel_err": max(errs), "mean_rel_err": sum(errs) / len(errs),
            "ratio_nice0_nice19": (sum(s0) / len(s0)) / (sum(s19) / len(s19)) if s0 and s19 else None}
    json.dump({"policy": "o1", "cpus": 2, "duration_s": 4.0, "window_s": 4.0, "release_ms": 200,
               "interval_ms": 100, "period_ms": 100, "tasks": tasks, "summary": summ,
               "samples": samples}, open(f"{d}/{name}", "w"))
HEAD12 = ("# cpu level name type lb_count lb_imbalanced lb_moved lb_failed lb_all_pinned lb_active lb_moved_weight lb_time_ns\n"
          "# cpu level name placed active_moved fork_placed exec_placed wake_affine wake_balance kicks\n")
HEAD13 = HEAD12.replace("lb_time_ns\n", "lb_time_ns lb_locked\n", 1)
HEAD10 = "# cpu level name type lb_count lb_imbalanced lb_moved lb_failed lb_all_pinned lb_active\n"
for rep in (1, 2, 3):
    ow = [1024, 1024, 51, 51]
    oi = [2048 / 2150, 2048 / 2150, 102 / 2150, 102 / 2150]
    for sched, shares, ideal, w in (
            ("count", [0.5, 0.5, 0.5, 0.5], oi, ow),
            ("smpnice", [0.95 + 0.01 * rep, 0.95, 0.05, 0.045], oi, ow),
            ("smpnice2", [0.95, 0.95, 0.048, 0.048], oi, ow),
            ("cfs", [0.98, 0.98, 0.02, 0.02], [0.986, 0.986, 0.0146, 0.0146], [1024, 1024, 15, 15])):
        f = f"fair-article-{sched}-{rep}.json"
        conv = {"count": 0.0, "smpnice": 0.5 * rep, "smpnice2": 0.5, "cfs": 1.0}[sched]
        nb(f, [0, 0, 19, 19], w, ideal, shares, conv,
           {"count": 0, "smpnice": 1, "smpnice2": 1, "cfs": 2}[sched])
        bal = "-"
        if sched != "cfs":
            bal = f"fair-article-{sched}-{rep}.bal"
            if rep == 3 and sched == "count":
                # the format without lb_time_ns: counts only
                open(f"{d}/{bal}", "w").write(HEAD10 + "0 1 MC busy 10 0 0 0 0 0\n1 1 MC idle 10 1 1 0 0 0\n")
            elif sched == "smpnice2":
                # with lb_locked: 40 calls that locked 50 pairs
                open(f"{d}/{bal}", "w").write(HEAD13 +
                    "0 1 MC busy 30 0 0 0 0 0 0 3000000 45\n"
                    "0 1 MC idle 0 0 0 0 0 0 0 0 0\n"
                    "0 1 MC newidle 10 2 1 1 0 0 1024 1000000 5\n"
                    "0 1 MC placed 0 1 2 3 4 5\n"
                    "1 1 MC busy 0 0 0 0 0 0 0 0 0\n")
            else:
                open(f"{d}/{bal}", "w").write(HEAD12 +
                    "0 1 MC busy 30 0 0 0 0 0 0 3000000\n"
                    "0 1 MC idle 0 0 0 0 0 0 0 0\n"
                    "0 1 MC newidle 10 2 1 1 0 0 1024 1000000\n"
                    "0 1 MC placed 0 1 2 3 4 5\n"
                    "1 1 MC busy 0 0 0 0 0 0 0 0\n")
        idx.append(("fair", "article", sched, rep, 0, 4_000_000_000, f, bal))
    for sched in ("count", "smpnice", "cfs"):
        f = f"fair-odd-{sched}-{rep}.json"
        nb(f, [0, 0, 0], [1024] * 3, [2 / 3] * 3, [1.0, 0.5, 0.5], 0.0, 0)
        idx.append(("fair", "odd", sched, rep, 0, 4_000_000_000, f, "-"))
    for sched, secs in (("count", 2.0), ("smpnice", 2.0 + 0.1 * rep), ("smpnice2", 2.5), ("cfs", 3.0)):
        f = f"tput-messaging-{sched}-{rep}.txt"
        open(f"{d}/{f}", "w").write(f"# Running 'sched/messaging' benchmark:\n\n     Total time: {secs:.3f} [sec]\n")
        idx.append(("tput", "messaging", sched, rep, 0, 5_000_000_000, f, "-"))
    # whole-system mode against CFS: a real build and cyclictest's latency
    for sched, secs in (("all", 30.0 + rep), ("cfs", 36.0)):
        f = f"tput-build-{sched}-{rep}.txt"
        open(f"{d}/{f}", "w").write("")
        idx.append(("tput", "build", sched, rep, 0, int(secs * 1e9), f, "-"))
    # the starvation check under perf stat -a: 2 s wall, 1000 (all) and
    # 600 (cfs) context switches, 10 and 4 migrations
    for sched, secs, cs, mig in (("all", 1.0, 1000, 10), ("cfs", 0.8, 600, 4)):
        f = f"tput-starve-{sched}-{rep}.txt"
        open(f"{d}/{f}", "w").write(f"2000 round trips on CPU 0 beside 1 hog\nTotal time: {secs:.3f} [sec]\n")
        open(f"{d}/tput-starve-{sched}-{rep}.perf", "w").write(
            f"# started on Sun Dec  6 18:00:00 2026\n\n{cs},,context-switches,2000000000,100.00,,\n"
            f"{mig},,cpu-migrations,2000000000,100.00,,\n")
        idx.append(("tput", "starve", sched, rep, 0, 2_000_000_000, f, "-"))
    for sched, hist in (("all", {"100": 98, "150": 1, "3000": 1}), ("cfs", {"200": 50, "400": 50})):
        f = f"lat-latency-{sched}-{rep}.json"
        th = {str(k): {"cycles": 100, "min": 100, "avg": 110.0 + k + rep, "max": 3000 if sched == "all" else 400,
                       "cpu": k, "node": 0, "histogram": hist} for k in (0, 1)}
        json.dump({"num_threads": 2, "thread": th}, open(f"{d}/{f}", "w"))
        idx.append(("lat", "latency", sched, rep, 0, 6_000_000_000, f, "-"))
# one failed run is counted, not fatal
idx.append(("fair", "odd", "cfs", 4, 1, 1_000_000_000, "fair-odd-cfs-4.json", "-"))
with open(f"{d}/index.tsv", "w") as f:
    for row in idx:
        f.write("\t".join(str(x) for x in row) + "\n")
EOF

ktap_check "bench-report.py writes results.json and bench.md from a fake run" \
	"$REPORT" --no-plots "$TMP/bench" "$TMP/raw/2"
printf '%s\n' "$KTAP_OUTPUT" >"$TMP/report.txt"

py() {
	local desc=$1 code=$2
	ktap_check "$desc" python3 -c "import json, sys
d = json.load(open('$TMP/bench/results.json'))
S = {(a['scenario'], a['sched']): a for a in d['summary']}
T = {t['target']: t for t in d['targets']}
$code"
}

py "medians and min-max spreads over the three repeats (smpnice nice 0 share)" '
s = S[("article", "smpnice")]["tasks"][0]["share"]
assert (round(s["median"], 6), round(s["min"], 6), round(s["max"], 6), s["n"]) == (0.97, 0.96, 0.98, 3), s'
py "convergence: the release-to-steady time of each repeat (0.5, 1.0, 1.5 s), median 1.0" '
c = S[("article", "smpnice")]["conv_s"]
assert (round(c["median"], 3), round(c["min"], 3), round(c["max"], 3)) == (1.0, 0.5, 1.5), c'
py "convergence: a run steady from the start converges at its first sample (0.1 s)" '
assert round(S[("article", "count")]["conv_s"]["median"], 6) == 0.1, S[("article", "count")]["conv_s"]'
py "stability: one migration per task after convergence at 0.5/1.0/1.5 s of 4 s = 0.29-0.40 per task per s" '
m = S[("article", "smpnice")]["migr_rate"]
assert [round(m[k], 6) for k in ("median", "min", "max")] == [0.333333, 0.285714, 0.4], m'
py "balancer cost: 40 calls and 4 ms in 4 s = 10 calls/s, 1000 us/s, 100 us/call" '
a = S[("article", "smpnice")]
assert round(a["lb_calls_per_s"]["median"], 6) == 10.0, a["lb_calls_per_s"]
assert round(a["lb_us_per_s"]["median"], 6) == 1000.0, a["lb_us_per_s"]
assert round(a["lb_us_per_call"]["median"], 6) == 100.0, a["lb_us_per_call"]'
py "balancer cost: 50 run queue pairs locked in 40 calls = 1.25 a call; none read without the column" '
assert round(S[("article", "smpnice2")]["lb_locked_per_call"]["median"], 6) == 1.25, S[("article", "smpnice2")]
assert S[("article", "smpnice")]["lb_locked_per_call"] is None'
py "balancer cost: a kernel without lb_time_ns gives calls but no time" '
runs = [r for r in d["runs"] if r["scenario"] == "article" and r["sched"] == "count"]
old = [r for r in runs if r["rep"] == 3][0]
assert old["lb_count"] == 20 and old.get("lb_time_ns") is None and "lb_us_per_s" not in old, old
assert S[("article", "count")]["lb_us_per_s"]["n"] == 2'
py "throughput: perf bench messaging Total time parsed, median per scheduler" '
assert S[("messaging", "smpnice")]["value"]["median"] == 2.2, S[("messaging", "smpnice")]["value"]
assert S[("messaging", "cfs")]["value"]["median"] == 3.0'
py "whole-system rows: build wall time per scheduler (median 32 s vs CFS 36 s)" '
assert S[("build", "all")]["value"]["median"] == 32.0, S[("build", "all")]["value"]
assert S[("build", "cfs")]["value"]["median"] == 36.0'
py "perf stat: context switches and migrations per second of wall time (1000 in 2 s = 500/s)" '
a, c = S[("starve", "all")], S[("starve", "cfs")]
assert a["cs_per_s"]["median"] == 500 and a["mig_per_s"]["median"] == 5, a
assert c["cs_per_s"]["median"] == 300 and S[("messaging", "cfs")]["cs_per_s"] is None, c'
py "whole-system targets: build 36/32 met, starve 0.8/1.0 missed, cyclictest p99 met and worst missed" '
k = [t for t in T if t.startswith("whole-system build")][0]
assert T[k]["met"] is True and T[k]["value"].startswith("1.12"), T[k]
k = [t for t in T if t.startswith("whole-system starve")][0]
assert T[k]["met"] is False and T[k]["value"].startswith("0.80"), T[k]
k = [t for t in T if t.startswith("whole-system cyclictest 99th")][0]
assert T[k]["met"] is True, T[k]
k = [t for t in T if t.startswith("whole-system cyclictest worst")][0]
assert T[k]["met"] is False and "3000 us vs 400 us" in T[k]["value"], T[k]'
py "latency: mean of the threads means (median over repeats), 99th percentile of all wake-ups, max" '
a, c = S[("latency", "all")], S[("latency", "cfs")]
assert a["lat_mean"]["median"] == 112.5 and a["lat_mean"]["min"] == 111.5, a["lat_mean"]
assert a["lat_p99"]["median"] == 150 and a["lat_max"]["median"] == 3000, a
assert c["lat_p99"]["median"] == 400, c'
py "a failed run is counted in the summary and left out of the medians" '
a = S[("odd", "cfs")]
assert a["runs"] == 4 and a["failed"] == 1 and a["max_err"]["n"] == 3, a'
py "static placement: {0,19}/{0,19} reaches the article ideal; 3 equal hogs on 2 CPUs cannot" '
assert S[("article", "smpnice")]["static_reachable"] is True
assert S[("odd", "smpnice")]["static_reachable"] is False'
py "targets: article shares and ratio judged for smpnice; odd (unreachable) not judged" '
k = [t for t in T if t.startswith("smpnice shares within 10 % of ideal (article")][0]
assert T[k]["met"] is True, T[k]
k = [t for t in T if t.startswith("smpnice shares within 10 % of ideal (odd")][0]
assert T[k]["met"] is None, T[k]
k = [t for t in T if t.startswith("article")][0]
assert T[k]["met"] is True, T[k]'
py "targets: by count the article case fails as in 2.6.17; messaging 91 % of count is a miss" '
k = [t for t in T if t.startswith("by count")][0]
assert T[k]["met"] is True, T[k]
k = [t for t in T if t.startswith("smpnice perf bench sched messaging")][0]
assert T[k]["met"] is False and "91 %" in T[k]["value"], T[k]'
py "targets: sched_smpnice=2 against smpnice: fairness no worse (met), messaging 2.50 s beyond the slowest 2.30 s (missed)" '
k = [t for t in T if t.startswith("sched_smpnice=2 max error") and "(article, 2 CPUs)" in t][0]
assert T[k]["met"] is True, T[k]
k = [t for t in T if t.startswith("sched_smpnice=2 throughput") and "(messaging, 2 CPUs)" in t][0]
assert T[k]["met"] is False and "slowest 2.30 s" in T[k]["value"], T[k]'
ktap_check "bench.md has the fairness, throughput, cost and targets tables" \
	grep -q "### Targets" "$TMP/bench/bench.md"
ktap_check "the Markdown table shows the median and the min-max spread" \
	grep -Eq '^\| 2 \| article \| O1 smpnice \| 5\.4 \| 3\.2 \(2\.9-3\.4\) \|' "$TMP/bench/bench.md"
ktap_check "the report is printed too" grep -q "### Throughput" "$TMP/report.txt"
ktap_check "the throughput table compares whole-system mode with CFS (36 / 32 s = 112 %)" \
	grep -Eq '^\| 2 \| build \| - \| - \| - \| 32\.00 \(31\.00-33\.00\) \| 36\.00 \| - \| - \| 112 % \|' "$TMP/bench/bench.md"
ktap_check "the perf stat table has the starvation check's rates" \
	grep -Eq '^\| 2 \| starve \| O1 whole-system \| 500 \| 5 \|' "$TMP/bench/bench.md"
ktap_check "the latency table has both schedulers" \
	grep -Eq '^\| 2 \| latency \| O1 whole-system \| 112 \(112-114\) \| 150 \| 3000 \|' "$TMP/bench/bench.md"
if command -v gnuplot >/dev/null; then
	ktap_check "with gnuplot: share, time and migration plots (PNG)" bash -c \
		"'$REPORT' '$TMP/bench2' '$TMP/raw/2' >/dev/null &&
		 test -s '$TMP/bench2/plots/shares-2-article.png' &&
		 test -s '$TMP/bench2/plots/time-2-article.png' &&
		 test -s '$TMP/bench2/plots/migrations-2-article.png'"
else
	ktap_test_skip "plots: gnuplot not installed"
fi
ktap_expect 2 "no index.tsv" "bench-report.py: a directory without index.tsv is a usage error" \
	"$REPORT" "$TMP/x" "$TMP"

# make bench-whole: one boot per scheduler and round, as the runner leaves
# them (whole-T-SCHED-K/out-whole-T-SCHED-K/). 2 CPUs: rounds 1-3 of both;
# 4 CPUs: rounds 1-3 of all, 1-2 of cfs (a boot missing). Every boot's
# bench.sh writes repeat 1.
python3 - "$TMP/whole" <<'EOF'
import json, os, sys
root = sys.argv[1]
def boot(topo, sched, k, msg, build, cs):
    d = f"{root}/whole-{topo}-{sched}-{k}/out-whole-{topo}-{sched}-{k}"
    os.makedirs(d)
    open(f"{d}/info.txt", "w").write(f"cpus={topo}\nthreads=1\nkernel=6.12-test\nnodes=1\nduration=4\nrepeat=1\nsched_domains=MC\n")
    idx = []
    open(f"{d}/tput-messaging-{sched}-1.txt", "w").write(f"     Total time: {msg:.3f} [sec]\n")
    idx.append(("tput", "messaging", sched, 1, 0, 5_000_000_000, f"tput-messaging-{sched}-1.txt", "-"))
    open(f"{d}/tput-build-{sched}-1.txt", "w").write("")
    idx.append(("tput", "build", sched, 1, 0, int(build * 1e9), f"tput-build-{sched}-1.txt", "-"))
    open(f"{d}/tput-starve-{sched}-1.txt", "w").write(
        f"Total time: {1.0 if sched == 'all' else 0.8:.3f} [sec]\n")
    open(f"{d}/tput-starve-{sched}-1.perf", "w").write(f"{cs},,context-switches,2000000000,100.00,,\n")
    idx.append(("tput", "starve", sched, 1, 0, 2_000_000_000, f"tput-starve-{sched}-1.txt", "-"))
    hist = {"100": 98, "150": 1, "3000": 1} if sched == "all" else {"200": 50, "400": 50}
    th = {str(c): {"cycles": 100, "min": 100, "avg": 100.0 + k, "max": 3000 if sched == "all" else 400,
                   "cpu": c, "node": 0, "histogram": hist} for c in range(int(topo))}
    json.dump({"num_threads": int(topo), "thread": th}, open(f"{d}/lat-latency-{sched}-1.json", "w"))
    idx.append(("lat", "latency", sched, 1, 0, 6_000_000_000, f"lat-latency-{sched}-1.json", "-"))
    with open(f"{d}/index.tsv", "w") as f:
        for row in idx:
            f.write("\t".join(str(x) for x in row) + "\n")
# 2 CPUs: messaging all 2.0/2.6/2.2 s (median 2.2), cfs 2.4/2.3/2.5 (2.4);
# build all 31/32/33 s, cfs 36/35/37; perf stat 500/1000/1500 switches in 2 s
for k, (ma, mc, ba, bc) in enumerate(((2.0, 2.4, 31, 36), (2.6, 2.3, 32, 35), (2.2, 2.5, 33, 37)), 1):
    boot("2", "all", k, ma, ba, 500 * k)
    boot("2", "cfs", k, mc, bc, 300 * k)
# 4 CPUs: messaging all 3.0/3.3/3.6 s, cfs 4.0/4.2 s (no cfs boot in round 3)
for k in (1, 2, 3):
    boot("4", "all", k, 3.0 + 0.3 * (k - 1), 20.0, 1000)
    if k < 3:
        boot("4", "cfs", k, 4.0 + 0.2 * (k - 1), 24.0, 1000)
EOF
# the directories as make bench-whole gives them, and in another order
W=$TMP/whole
mapfile -t WDIRS < <(ls -d "$W"/whole-*/out-whole-*)
ktap_check "bench-report.py merges make bench-whole's boots (out-whole-T-SCHED-K) per topology" \
	"$REPORT" --no-plots "$TMP/bench-whole" "${WDIRS[@]}"
wpy() {
	local desc=$1 code=$2
	ktap_check "$desc" python3 -c "import json, sys
d = json.load(open('$TMP/bench-whole/results.json'))
S = {(a['topo'], a['scenario'], a['sched']): a for a in d['summary']}
T = {t['target']: t for t in d['targets']}
$code"
}
wpy "bench-whole: out-whole-2-* and out-whole-4-* are topologies 2 and 4 (the keys out-bench-2/4 give), 11 boots" '
assert [(t["topo"], t["cpus"], t["label"], len(t["boots"])) for t in d["topologies"]] == [("2", 2, "2", 6), ("4", 4, "4", 5)], d["topologies"]'
wpy "bench-whole: medians over the boots (messaging 2.2 s (2.0-2.6) whole-system, 2.4 s CFS on 2 CPUs)" '
a, c = S[("2", "messaging", "all")]["value"], S[("2", "messaging", "cfs")]["value"]
assert (a["median"], a["min"], a["max"], a["n"]) == (2.2, 2.0, 2.6, 3), a
assert (c["median"], c["n"]) == (2.4, 3), c
b = S[("2", "build", "all")]["value"]
assert (b["median"], b["n"]) == (32.0, 3), b'
wpy "bench-whole: each boot is one repeat, numbered by round (1, 2, 3); bench.sh's repeat 1 kept as boot_rep" '
rs = sorted((r["round"], r["rep"], r["boot_rep"], r["boot"]) for r in d["runs"]
            if r["topo"] == "2" and r["scenario"] == "messaging" and r["sched"] == "all")
assert rs == [(1, 1, 1, "out-whole-2-all-1"), (2, 2, 1, "out-whole-2-all-2"), (3, 3, 1, "out-whole-2-all-3")], rs'
wpy "bench-whole: a mix of rounds (4 CPUs: 3 whole-system boots, 2 CFS) counts each boot once" '
a, c = S[("4", "messaging", "all")], S[("4", "messaging", "cfs")]
assert a["runs"] == 3 and a["value"]["n"] == 3 and round(a["value"]["median"], 6) == 3.3, a
assert c["runs"] == 2 and c["value"]["n"] == 2 and round(c["value"]["median"], 6) == 4.1, c
assert sorted(r["rep"] for r in d["runs"] if r["topo"] == "4" and r["scenario"] == "build") == [1, 1, 2, 2, 3]'
wpy "bench-whole: perf stat of every boot read from its own file (500/1000/1500 in 2 s: median 500/s)" '
a = S[("2", "starve", "all")]["cs_per_s"]
assert (a["median"], a["min"], a["max"], a["n"]) == (500, 250, 750, 3), a'
wpy "bench-whole: whole-system targets from the merged medians (messaging 2.4/2.2, build 36/32 met; starve, worst latency missed)" '
def one(prefix):
    k = [t for t in T if t.startswith(prefix) and t.endswith("(2 CPUs)")]
    assert len(k) == 1, (prefix, list(T))
    return T[k[0]]
t = one("whole-system messaging")
assert t["met"] is True and t["value"].startswith("1.09 (2.20 s vs CFS 2.40 s); 90 % interval "), t
lo, hi = t["interval"]
assert lo <= 1.09 <= hi and 0.8 < lo and hi < 1.3 and "noise" not in t, t
t = one("whole-system build")
assert t["met"] is True and t["value"].startswith("1.12 (32.00 s vs CFS 36.00 s)"), t
t = one("whole-system starve")
assert t["met"] is False and t["interval"] == [0.8, 0.8] and t["noise"] is False, t
assert one("whole-system cyclictest 99th")["met"] is True
t = one("whole-system cyclictest worst")
assert t["met"] is False and t["value"] == "3000 us vs 400 us", t
t = [T[k] for k in T if k.startswith("whole-system messaging") and k.endswith("(4 CPUs)")][0]
assert t["value"] == "1.24 (3.30 s vs CFS 4.10 s)" and "interval" not in t, t'
ktap_check "bench-whole: the report says the boots alternated, with the rounds and the missing boot" \
	grep -qF "Boots alternated (make bench-whole): each scheduler in boots of its own, alternating: O1 whole-system (booted with sched_o1=all) and CFS/EEVDF, one repeat per boot; 2 CPUs 3 rounds, 4 CPUs 3 rounds (O1 whole-system 3 boots, CFS/EEVDF 2 boots)." "$TMP/bench-whole/bench.md"
ktap_check "bench-whole: the throughput table has the merged medians (2 CPUs build 32 vs 36 s = 112 %)" \
	grep -Eq '^\| 2 \| build \| - \| - \| - \| 32\.00 \(31\.00-33\.00\) \| 36\.00 \(35\.00-37\.00\) \| - \| - \| 112 % \|' "$TMP/bench-whole/bench.md"
ktap_check "bench-whole: the rounds in any order, 2 CPUs alone: same medians, \"3 rounds\" for all" bash -c \
	"'$REPORT' --no-plots '$TMP/bench-whole2' \$(ls -dr '$W'/whole-2-*/out-*) >/dev/null &&
	 grep -qF 'Boots alternated (make bench-whole), 3 rounds: each scheduler in boots of its own' '$TMP/bench-whole2/bench.md' &&
	 python3 -c 'import json; d = json.load(open(\"$TMP/bench-whole2/results.json\"))
rs = sorted((r[\"round\"], r[\"rep\"]) for r in d[\"runs\"] if r[\"scenario\"] == \"messaging\" and r[\"sched\"] == \"cfs\")
assert rs == [(1, 1), (2, 2), (3, 3)], rs'"
# A boot with the estimator off: its own column, and its ratio to CFS.
NE=$TMP/noest/out-whole-2-noest-1
mkdir -p "$NE" && cp "$W/whole-2-all-1/out-whole-2-all-1"/* "$NE/"
for f in "$NE"/*-all-1.*; do mv "$f" "${f%-all-1.*}-noest-1.${f##*.}"; done
sed -i 's/\tall\t/\tnoest\t/; s/-all-1\./-noest-1./g' "$NE/index.tsv"
ktap_check "bench-whole: an estimator-off boot (noest) gets its column and its ratio to CFS (2.4 s / 2.0 s = 120 %)" bash -c \
	"'$REPORT' --no-plots '$TMP/bench-noest' \$(ls -d '$W'/whole-2-*/out-*) '$NE' >/dev/null &&
	 grep -qF 'O1 whole-system (booted with sched_o1=all) and O1 whole-system, estimator off (booted with sched_o1=all) and CFS/EEVDF' '$TMP/bench-noest/bench.md' &&
	 grep -qF '| O1 whole-system | O1 whole-system, estimator off | CFS/EEVDF |' '$TMP/bench-noest/bench.md' &&
	 grep -Eq '^\| 2 \| messaging \| - \| - \| - \| 2\.20 \(2\.00-2\.60\) \| 2\.00 \| 2\.40 \(2\.30-2\.50\) \| - \| - \| 109 % \| 120 % \|' '$TMP/bench-noest/bench.md'"
ktap_check "bench-whole: no alternation line in make bench's report" \
	bash -c "! grep -q 'Boots alternated' '$TMP/bench/bench.md'"
mkdir -p "$TMP/mixed/out-bench-2" && cp "$TMP/raw/2"/* "$TMP/mixed/out-bench-2/"
ktap_expect 2 "topology 2 has both out-bench-2 and out-whole-2-" \
	"bench-report.py refuses out-bench-2 and out-whole-2-* in one report" \
	"$REPORT" --no-plots "$TMP/x" "$W/whole-2-all-1/out-whole-2-all-1" "$TMP/mixed/out-bench-2"
mkdir -p "$TMP/odd/out-whole-2-cfs-4" && cp "$W/whole-2-cfs-1/out-whole-2-cfs-1"/* "$TMP/odd/out-whole-2-cfs-4/"
sed -i 's/^duration=4/duration=8/' "$TMP/odd/out-whole-2-cfs-4/info.txt"
ktap_expect 2 "duration=8 but out-whole-2-all-1 has duration=4" \
	"bench-report.py refuses boots of one topology that disagree (duration)" \
	"$REPORT" --no-plots "$TMP/x" "$W/whole-2-all-1/out-whole-2-all-1" "$TMP/odd/out-whole-2-cfs-4"
mkdir -p "$TMP/odd/out-whole-2-all-5" && cp "$W/whole-2-cfs-1/out-whole-2-cfs-1"/* "$TMP/odd/out-whole-2-all-5/"
ktap_expect 2 "runs of cfs in the directory of a boot of all" \
	"bench-report.py refuses a boot's directory that holds another scheduler's runs" \
	"$REPORT" --no-plots "$TMP/x" "$TMP/odd/out-whole-2-all-5"
ktap_expect 2 "given twice" "bench-report.py refuses the same boot twice" \
	"$REPORT" --no-plots "$TMP/x" "$W/whole-2-all-1/out-whole-2-all-1" "$W/whole-2-all-1/out-whole-2-all-1/"

# make bench-whole's default: 3 runs of each scenario a boot, the build
# once (bench.sh --repeat 3 --once build). 2 rounds of all and cfs.
python3 - "$TMP/whole3" <<'EOF'
import os, sys
root = sys.argv[1]
for sched, base in (("all", 2.0), ("cfs", 3.0)):
    for k in (1, 2):
        d = f"{root}/whole-2-{sched}-{k}/out-whole-2-{sched}-{k}"
        os.makedirs(d)
        open(f"{d}/info.txt", "w").write("cpus=2\nthreads=1\nkernel=6.12-test\nnodes=1\nduration=4\nrepeat=3\nsched_domains=MC\n")
        idx = []
        for rep in (1, 2, 3):
            f = f"tput-messaging-{sched}-{rep}.txt"
            open(f"{d}/{f}", "w").write(f"     Total time: {base + 0.1 * (3 * (k - 1) + rep):.3f} [sec]\n")
            idx.append(("tput", "messaging", sched, rep, 0, 5_000_000_000, f, "-"))
            # hackbench: all 0.9-1.3 s (median 1.10), cfs 0.9-1.2 s (1.00)
            v = {"all": (1.0, 1.3, 0.9, 1.2, 1.1, 1.1), "cfs": (1.0, 0.9, 1.1, 1.2, 0.95, 1.0)}[sched][3 * (k - 1) + rep - 1]
            f = f"tput-hackbench-{sched}-{rep}.txt"
            open(f"{d}/{f}", "w").write(f"Time: {v:.3f}\n")
            idx.append(("tput", "hackbench", sched, rep, 0, 2_000_000_000, f, "-"))
        open(f"{d}/tput-build-{sched}-1.txt", "w").write("")
        idx.append(("tput", "build", sched, 1, 0, int((30 + k) * 1e9), f"tput-build-{sched}-1.txt", "-"))
        with open(f"{d}/index.tsv", "w") as f:
            for row in idx:
                f.write("\t".join(str(x) for x in row) + "\n")
EOF
ktap_check "bench-whole, 3 runs a boot: messaging's median over 2 boots x 3 runs, the build's over 2 runs; \"each boot's runs repeats of their own\"" bash -c \
	"'$REPORT' --no-plots '$TMP/bench-whole3' \$(ls -d '$TMP'/whole3/whole-*/out-*) >/dev/null &&
	 grep -qF \"CFS/EEVDF, each boot's runs repeats of their own.\" '$TMP/bench-whole3/bench.md' &&
	 python3 -c 'import json; d = json.load(open(\"$TMP/bench-whole3/results.json\"))
S = {(a[\"scenario\"], a[\"sched\"]): a[\"value\"] for a in d[\"summary\"]}
m = S[(\"messaging\", \"all\")]
assert (m[\"n\"], round(m[\"median\"], 6), m[\"min\"], m[\"max\"]) == (6, 2.35, 2.1, 2.6), m
b = S[(\"build\", \"cfs\")]
assert (b[\"n\"], b[\"median\"]) == (2, 31.5), b
rs = sorted((r[\"round\"], r[\"boot_rep\"], r[\"rep\"]) for r in d[\"runs\"] if r[\"scenario\"] == \"messaging\" and r[\"sched\"] == \"all\")
assert rs == [(1, 1, 1), (1, 2, 2), (1, 3, 3), (2, 1, 4), (2, 2, 5), (2, 3, 6)], rs'"
ktap_check "bench-whole: a target's 90 % interval; a miss inside it is within the noise (hackbench 0.91, runs overlapping), a clear one is not; none for 2 runs (the build)" bash -c \
	"python3 -c 'import json; d = json.load(open(\"$TMP/bench-whole3/results.json\"))
T = {t[\"target\"].split(\":\")[0]: t for t in d[\"targets\"] if t[\"target\"].startswith(\"whole-system\")}
h = T[\"whole-system hackbench\"]
assert h[\"met\"] is False and h[\"value\"].startswith(\"0.91 (1.10 s vs CFS 1.00 s); 90 % interval \"), h
assert h[\"interval\"][0] < 0.91 and h[\"interval\"][1] >= 0.95 and h[\"noise\"] is True, h
m = T[\"whole-system messaging\"]
assert m[\"met\"] is True and m[\"interval\"][0] > 1.2 and \"noise\" not in m, m
b = T[\"whole-system build\"]
assert \"interval\" not in b and b[\"value\"] == \"1.00 (31.50 s vs CFS 31.50 s)\", b' &&
	 grep -qF '| whole-system hackbench: CFS time / O(1) time >= 0.95 (2 CPUs) | 0.91 (1.10 s vs CFS 1.00 s); 90 % interval' '$TMP/bench-whole3/bench.md' &&
	 grep -q 'whole-system hackbench.*| \*\*missed\*\* (within the noise) |' '$TMP/bench-whole3/bench.md'"

# Argument checks: they fail before any guest boots.
ktap_check "make bench's topologies are the bench-TOPO scenarios" \
	bash -c "'$TOP/scripts/runner.sh' --set bench --list | awk 'NR > 1 { print \$1 }' | tr '\n' ' ' | grep -qx 'bench-2 bench-4 bench-numa bench-smt bench-8 bench-32 '"
ktap_check "BENCH_TOPOS=3 selects the scenario bench-3, which the runner refuses before any boot" \
	bash -c "make -s -C '$TOP' -n bench BENCH_TOPOS=3 | grep -q -- '--only bench-3' && ! '$TOP/scripts/runner.sh' --only bench-3 --list 2>/dev/null"
ktap_check "make bench rejects an unknown scheduler before any boot" \
	bash -c "'$TOP/tests/vm/guest/bench.sh' --check --scheds o2 2>&1 | grep -q \"unknown scheduler 'o2'\""
ktap_check "the runner rejects BENCH_REPEAT=0" \
	bash -c "BENCH_REPEAT=0 '$TOP/scripts/runner.sh' --set bench --dry-run 2>&1 | grep -q 'BENCH_REPEAT wants a whole number'"
ktap_check "BENCH_* reach the guest's command line" \
	bash -c "BENCH_REPEAT=2 BENCH_SCENARIOS=article '$TOP/scripts/runner.sh' --only bench-numa --dry-run | grep -q 'export BENCH_REPEAT=2; export BENCH_SCENARIOS=article; tests/vm/guest/bench.sh'"
ktap_check "guest bench.sh --list names the scenarios and schedulers" \
	bash -c "'$TOP/tests/vm/guest/bench.sh' --list | grep -q '^fair: article mixed minus20 odd sleepers rt' &&
		 '$TOP/tests/vm/guest/bench.sh' --list | grep -q '^scheds: count smpnice smpnice2 all noest cfs'"
ktap_expect 2 "unknown scenario 'x'" "guest bench.sh rejects an unknown scenario" \
	"$TOP/tests/vm/guest/bench.sh" --scenarios x --out "$TMP"

# make bench-whole's rows and arguments, and the target with a fake runner.
ktap_check "set whole: rounds 1-5 of 2, 4 and 8 CPUs, all, noest, then cfs in each round" bash -c \
	"'$TOP/scripts/runner.sh' --set whole --list | awk 'NR > 1 { print \$1 }' | paste -sd' ' |
	 grep -qx '$(for t in 2 4 8; do for k in 1 2 3 4 5; do printf 'whole-%s-all-%s whole-%s-noest-%s whole-%s-cfs-%s ' $t $k $t $k $t $k; done; done | sed 's/ $//')'"
ktap_check "whole-2-noest-1 boots with sched_o1=all and runs only noest" bash -c \
	"'$TOP/scripts/runner.sh' --only whole-2-noest-1 --dry-run |
	 grep -q '^whole-2-noest-1: scripts/vm-run.sh --flavour default --name whole-2-noest-1 --cpus 2 --append sched_o1=all --timeout [0-9]* -- .*--scheds noest --repeat \${BENCH_WHOLE_REPEAT:-3} --once build '"
ktap_check "whole-4-all-1 boots with sched_o1=all and runs only all, 3 repeats, the build once (timeout 120 + (2 + 5 * 3) * 44 * 3 s); whole-4-cfs-1 boots without it, only cfs" bash -c \
	"BENCH_DURATION= BENCH_WHOLE_REPEAT= '$TOP/scripts/runner.sh' --only whole-4-all-1,whole-4-cfs-1 --dry-run >'$TMP/whole-dry.txt' &&
	 grep -q '^whole-4-all-1: scripts/vm-run.sh --flavour default --name whole-4-all-1 --cpus 4 --append sched_o1=all --timeout 2364 -- .*--scheds all --repeat \${BENCH_WHOLE_REPEAT:-3} --once build ' '$TMP/whole-dry.txt' &&
	 grep -q '^whole-4-cfs-1: scripts/vm-run.sh --flavour default --name whole-4-cfs-1 --cpus 4 --timeout 2364 -- .*--scheds cfs --repeat \${BENCH_WHOLE_REPEAT:-3} --once build ' '$TMP/whole-dry.txt'"
ktap_check "whole-8-*: no build, so 5 runs a repeat in the timeout (BENCH_DURATION=6 BENCH_WHOLE_REPEAT=2: 120 + 5 * 2 * 46 * 3 = 1500 s)" bash -c \
	"BENCH_DURATION=6 BENCH_WHOLE_REPEAT=2 '$TOP/scripts/runner.sh' --only whole-8-cfs-3 --dry-run |
	 grep -q -- '--cpus 8 --timeout 1500 -- bash -c .export BENCH_DURATION=6; export BENCH_WHOLE_REPEAT=2; .*--scenarios \${BENCH_SCENARIOS:-messaging,pipe,hackbench,starve,latency} --scheds cfs'"
ktap_check "the runner rejects BENCH_WHOLE_REPEAT=x" \
	bash -c "BENCH_WHOLE_REPEAT=x '$TOP/scripts/runner.sh' --set whole --dry-run 2>&1 | grep -q 'BENCH_WHOLE_REPEAT wants a whole number'"
ktap_expect 2 "BENCH_WHOLE_REPEAT is 1 to 9, not '0'" "make bench-whole rejects BENCH_WHOLE_REPEAT=0 before any build" \
	make -s -C "$TOP" -n bench-whole BENCH_WHOLE_REPEAT=0
ktap_expect 2 "unknown scenario 'bild'" "guest bench.sh checks --once's scenarios" \
	"$TOP/tests/vm/guest/bench.sh" --check --once bild
ktap_check "make bench-whole: BENCH_ROUNDS=2 BENCH_TOPOS='8 2' BENCH_WHOLE_SCHEDS='all cfs' runs round 1 all, round 1 cfs, round 2 all, ... of each topology" bash -c \
	"make -s -C '$TOP' -n bench-whole BENCH_ROUNDS=2 BENCH_TOPOS='8 2' BENCH_WHOLE_SCHEDS='all cfs' | grep -q -- 'BENCH_ROUNDS=2 scripts/runner.sh --only whole-8-all-1,whole-8-cfs-1,whole-8-all-2,whole-8-cfs-2,whole-2-all-1,whole-2-cfs-1,whole-2-all-2,whole-2-cfs-2 '"
ktap_check "make bench-whole: by default 3 rounds of all, noest and cfs on 2, 4 and 8 CPUs (27 boots)" bash -c \
	"env -u MAKEFLAGS -u BENCH_ROUNDS -u BENCH_TOPOS -u BENCH_WHOLE_SCHEDS make -s -C '$TOP' -n bench-whole | grep -o -- '--only [^ ]*' | tr ',' '\n' | grep -c whole- | grep -qx 27"
ktap_expect 2 "BENCH_WHOLE_SCHEDS is some of all noest cfs, not 'all o2'" "make bench-whole rejects BENCH_WHOLE_SCHEDS='all o2' before any build" \
	make -s -C "$TOP" -n bench-whole BENCH_WHOLE_SCHEDS="all o2"
ktap_expect 2 "BENCH_ROUNDS is 1 to 5" "make bench-whole rejects BENCH_ROUNDS=6 before any build" \
	make -s -C "$TOP" -n bench-whole BENCH_ROUNDS=6
ktap_expect 2 "BENCH_TOPOS is some of 2 4 8, not 'numa'" "make bench-whole rejects BENCH_TOPOS=numa before any build" \
	make -s -C "$TOP" -n bench-whole BENCH_TOPOS=numa
ktap_expect 2 "WAKEUP_ROUNDS is 1 to 20, not '0'" "make wakeup-rule rejects WAKEUP_ROUNDS=0 before any build" \
	make -s -C "$TOP" -n wakeup-rule WAKEUP_ROUNDS=0
ktap_expect 2 "WAKEUP_CPUS is 2 or 4, not '8'" "make wakeup-rule rejects WAKEUP_CPUS=8 before any build" \
	make -s -C "$TOP" -n wakeup-rule WAKEUP_CPUS=8
ktap_check "make wakeup-rule runs the 2-CPU row by default, the 4-CPU one with WAKEUP_CPUS=4, with WAKEUP_ROUNDS in the guest" \
	bash -c "env -u WAKEUP_CPUS make -s -C '$TOP' -n wakeup-rule WAKEUP_ROUNDS=3 | grep -q -- '--only wakeup-rule-2cpu ' &&
		 make -s -C '$TOP' -n wakeup-rule WAKEUP_CPUS=4 | grep -q -- '--only wakeup-rule-4cpu ' &&
		 '$TOP/scripts/runner.sh' --set wakeup-rule --list | awk 'NR > 1 { print \$1 }' | paste -sd' ' | grep -qx 'wakeup-rule-2cpu wakeup-rule-4cpu' &&
		 WAKEUP_ROUNDS=3 '$TOP/scripts/runner.sh' --set wakeup-rule --dry-run | grep -q 'export WAKEUP_ROUNDS=3; tests/vm/guest/wakeup-rule.sh'"
# The target itself, its prerequisites (kernel, tools) taken as made and a
# fake runner that leaves the fake boots in a results directory; in a
# directory of its own (no scripts/: nothing there can build or boot).
P=$TMP/proj
mkdir -p "$P/build/results"
ln -s "$TOP/tests" "$P/tests"
ln -s "$TOP/tools" "$P/tools"
cat >"$TMP/fake-runner" <<EOF
#!/bin/bash
echo "BENCH_ROUNDS=\$BENCH_ROUNDS \$*" >'$TMP/fake-runner.args'
r=$P/build/results/fake-run
mkdir -p "\$r"
cp -r '$W'/whole-2-* "\$r/"
mkdir "\$r/whole-4-all-1" "\$r/whole-4-all-1/out-whole-4-all-1"	# a boot that failed: no index.tsv
ln -sfn fake-run '$P/build/results/latest'
exit 1
EOF
chmod +x "$TMP/fake-runner"
ktap_expect 2 "bench-whole\] Error 1" "make bench-whole: fails as the runner did, after the report" \
	make -s -C "$P" -f "$TOP/Makefile" -o kernel -o tools bench-whole BENCH_ROUNDS=3 BENCH_TOPOS="2 4" BENCH_WHOLE_SCHEDS="all cfs" FLAVOUR=default RUN="$TMP/fake-runner"
ktap_check "make bench-whole: the runner got the rounds and the rows" \
	grep -qx "BENCH_ROUNDS=3 --only whole-2-all-1,whole-2-cfs-1,whole-2-all-2,whole-2-cfs-2,whole-2-all-3,whole-2-cfs-3,whole-4-all-1,whole-4-cfs-1,whole-4-all-2,whole-4-cfs-2,whole-4-all-3,whole-4-cfs-3 --built default" "$TMP/fake-runner.args"
ktap_check "make bench-whole: the report of the boots that ran in RESULTS/bench-whole, linked as build/bench-whole" bash -c \
	"[ \"\$(readlink '$P/build/bench-whole')\" = '$P/build/results/fake-run/bench-whole' ] &&
	 grep -qF 'Boots alternated (make bench-whole), 3 rounds' '$P/build/bench-whole/bench.md' &&
	 grep -q '^| 2 | messaging | - | - | - | 2.20 (2.00-2.60) | 2.40 (2.30-2.50) |' '$P/build/bench-whole/bench.md'"

# nicebench's additions for the bench scenarios.
NB=$TOP/tools/nicebench
ktap_check "nicebench --duty: two hogs and one 50 % sleeper on 2 CPUs = 75/75/50 %" bash -c \
	"'$NB' --ideal-only --nice 0,0,0 --duty 100,100,50 --cpus 2 --json - -q |
	 python3 -c 'import json,sys; d=json.load(sys.stdin); assert [t[\"ideal\"] for t in d[\"tasks\"]] == [0.75, 0.75, 0.5], d'"
ktap_check "nicebench --rt: a FIFO hog takes one CPU of 2, three o1 hogs share the other" bash -c \
	"'$NB' --ideal-only --nice 0,0,0,0 --rt 10,0,0,0 --cpus 2 --policy o1 --json - -q |
	 python3 -c 'import json,sys; d=json.load(sys.stdin); i=[round(t[\"ideal\"], 6) for t in d[\"tasks\"]]; assert i == [1.0, 0.333333, 0.333333, 0.333333], i'"
ktap_check "nicebench rejects --duty 0 and a --duty list of the wrong length" bash -c \
	"'$NB' --ideal-only --nice 0 --duty 0 2>&1 | grep -q 'not an integer in 1..100' &&
	 '$NB' --ideal-only --nice 0,0 --duty 50 2>&1 | grep -q -- '--duty has 1 values but --nice has 2 tasks'"
ktap_check "nicebench rejects --rt 100 and --period 0" bash -c \
	"'$NB' --ideal-only --nice 0 --rt 100 2>&1 | grep -q 'not an integer in 0..99' &&
	 '$NB' --ideal-only --nice 0 --period 0 2>&1 | grep -q -- '--period .0.: expected milliseconds'"

ktap_done

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise the raw results of "make bench" (tests/vm/guest/bench.sh, one
directory per topology) into results JSON, a Markdown report and gnuplot
plots.

Usage: bench-report.py [--plots|--no-plots] OUTDIR RAWDIR/TOPO [RAWDIR/TOPO ...]

Each RAWDIR/TOPO holds info.txt, index.tsv and the run files the guest
script wrote. Writes OUTDIR/results.json, OUTDIR/bench.md and, with gnuplot
installed, OUTDIR/plots/*.png; prints the Markdown tables.

A directory out-bench-TOPO (make bench) is topology TOPO. The directories
out-whole-TOPO-SCHED-K of make bench-whole, one boot each (SCHED in round
K), are merged into topology TOPO: they must agree on the CPUs, threads,
nodes, kernel and duration; each holds runs of SCHED only; every boot's
runs are repeats of their own (numbered 1, 2, ... in the order of the
rounds), and the report says the boots alternated.

Definitions (Documentation/results.md refers to these):
  error       |share - ideal| / ideal per task; ideal = the scheduler's
              weights water-filled over the CPUs (nicebench)
  converged   from the start of the first 1 s window (ten 100 ms
              samples) after which every window's mean share of every task
              stays within 10 % of that task's steady share (the mean over
              the second half of the run), or within 0.03 CPU, or within
              twice the standard deviation of the task's 1 s windows in the
              second half (timeslices of 100 ms make 1 s windows differ by
              a slice even when nothing moves)
  migr/task/s migrations after convergence (the second half if the run
              never converged), per task and second: the kernel's
              se.nr_migrations, sampled with each share (the hog's own
              count on a kernel without /proc/PID/sched; a hog sees a move
              only when it next runs, which for an O1 task pulled in its
              expired array can be seconds after the balancer moved it)
  placement   the error the final placement (the queue each task is on at
              the end, as the kernel sees it) would give if every CPU split
              its time exactly by the scheduler's weights (the balancer's
              part of the error, without the CPU-local distortions of an
              emulated machine whose vCPUs the host preempts)
  settled     the time of the last migration of any task (0: none after
              the release), from the 100 ms samples
  balancer    lb_count and lb_time_ns summed over the CPUs, domains and idle
              types of /sys/kernel/debug/sched/o1_balance, per second of
              the run's wall time and per call; lb_locked (run queue pairs
              locked) per call, the part of the cost that does not depend
              on how the host schedules the vCPUs
  latency     cyclictest's wake-up latency of SCHED_OTHER threads beside
              nice 0 and nice 19 hogs: the mean over the threads of their
              mean, the 99th percentile of all wake-ups, the largest one
Every figure is the median over the repeats with the min-max spread. A
whole-system throughput target also shows the 90 % bootstrap interval of
its ratio (2000 resamples of each side's runs), and a miss whose interval
reaches the target is marked as within the noise.
"""
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys

SCHEDS = ["count", "smpnice", "smpnice2", "all", "noest", "cfs"]
SCHED_LABEL = {"count": "O1 by count", "smpnice": "O1 smpnice", "smpnice2": "O1 sched_smpnice=2",
               "all": "O1 whole-system", "noest": "O1 whole-system, estimator off",
               "cfs": "CFS/EEVDF"}
# the schedulers of a boot with sched_o1=all
BOOTED_ALL = ("all", "noest")
SMOOTH = 10         # samples per convergence window (1 s)
TOL_REL = 0.10      # convergence tolerance, relative to the steady share
TOL_ABS = 0.03      # ... but at least this much of a CPU
STATIC_BUDGET = 100000
# lower is better for every throughput figure
TPUT_UNIT = {"messaging": "s", "pipe": "s", "hackbench": "s", "make": "s", "build": "s"}


def usage(msg):
    print(f"bench-report.py: {msg}\n{__doc__}", file=sys.stderr)
    sys.exit(2)


# make bench-whole's directories: one boot of one scheduler, in round K
WHOLE_DIR = re.compile(r"^out-whole-(.+)-(%s)-([0-9]+)$" % "|".join(SCHEDS))
# what the boots merged into one topology must agree on (info.txt)
SAME_INFO = ("cpus", "threads", "nodes", "kernel", "duration")


def dir_topo(d):
    """The topology of a raw directory, and (SCHED, K) for make
    bench-whole's out-whole-TOPO-SCHED-K (None for others): out-bench-TOPO
    and out-whole-TOPO-* are both topology TOPO."""
    name = os.path.basename(os.path.normpath(d))
    m = WHOLE_DIR.match(name)
    if m:
        return m.group(1), (m.group(2), int(m.group(3)))
    # scripts/runner.sh's out-bench-TOPO directories
    if name.startswith("out-bench-"):
        name = name[len("out-bench-"):]
    return name, None


# ---------------------------------------------------------------- inputs

def read_info(d):
    info = {}
    with open(os.path.join(d, "info.txt")) as f:
        for line in f:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                info[k] = v
    return info


def read_index(d):
    runs = []
    with open(os.path.join(d, "index.tsv")) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 8:
                continue
            kind, scen, sched, rep, rc, wall, res, bal = parts
            runs.append({"kind": kind, "scenario": scen, "sched": sched,
                         "rep": int(rep), "status": int(rc),
                         "wall_s": int(wall) / 1e9, "file": res,
                         "balance_file": None if bal == "-" else bal})
    return runs


def read_balance(path):
    """Sum the per-type lines of o1_balance by column name (the header says
    which columns there are: lb_time_ns is absent on older kernels)."""
    cols, tot, lines = None, {}, 0
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "#":
                if len(w) > 4 and w[4] == "type" and cols is None:
                    cols = w[1:]
                continue
            if cols is None or len(w) < 5 or w[3] not in ("busy", "idle", "newidle"):
                continue
            lines += 1
            for name, val in zip(cols[4:], w[4:]):
                tot[name] = tot.get(name, 0) + int(val)
    return tot if lines else None


TPUT_RE = {
    "messaging": re.compile(r"Total time:\s*([0-9.]+)"),
    "pipe": re.compile(r"Total time:\s*([0-9.]+)"),
    "hackbench": re.compile(r"^Time:\s*([0-9.]+)", re.M),
    "starve": re.compile(r"Total time:\s*([0-9.]+)"),
}


def read_perf_stat(path):
    """Context switches and migrations of the whole guest from a perf stat
    -x, -o file (None where the file or the counter is missing)."""
    counts = {}
    try:
        with open(path) as f:
            for line in f:
                w = line.strip().split(",")
                if len(w) > 2 and w[2] in ("context-switches", "cpu-migrations"):
                    try:
                        counts[w[2]] = int(w[0])
                    except ValueError:
                        pass
    except OSError:
        return None, None
    return counts.get("context-switches"), counts.get("cpu-migrations")


def tput_value(scen, path, wall):
    if scen not in TPUT_RE:
        return wall
    with open(path) as f:
        m = TPUT_RE[scen].search(f.read())
    return float(m.group(1)) if m else None


def lat_values(path):
    """Mean, 99th percentile and maximum wake-up latency (us) of a
    cyclictest --json file written with a histogram (-h)."""
    with open(path) as f:
        d = json.load(f)
    hist, means, worst = {}, [], 0
    for t in d["thread"].values():
        means.append(t["avg"])
        worst = max(worst, t["max"])
        for us, n in t.get("histogram", {}).items():
            hist[int(us)] = hist.get(int(us), 0) + n
    total, acc, p99 = sum(hist.values()), 0, None
    for us in sorted(hist):
        acc += hist[us]
        if acc >= 0.99 * total:
            p99 = us
            break
    # wake-ups past the histogram's end count as the maximum
    if p99 is None and total:
        p99 = worst
    return statistics.mean(means), p99, worst


# ------------------------------------------------------------- analysis

_WATERFILL = {"proc": None, "cache": {}}


def waterfill(tasks, capacity):
    """Shares of tasks (dicts with weight, duty, rt_prio) on `capacity`
    CPUs: real-time tasks take a CPU each, the others share the rest by
    weight, none above its duty cycle. Computed by nicebench --waterfill,
    the one implementation of the model, run once and fed a line per
    question; answers are cached."""
    key = (capacity,) + tuple((int(t["weight"]), int(t.get("duty", 100)), int(t.get("rt_prio") or 0))
                              for t in tasks)
    cache = _WATERFILL["cache"]
    if key not in cache:
        if _WATERFILL["proc"] is None:
            nb = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nicebench")
            if not os.access(nb, os.X_OK):
                usage("tools/nicebench is not built (make tools): it computes the ideal shares")
            _WATERFILL["proc"] = subprocess.Popen([nb, "--waterfill"], stdin=subprocess.PIPE,
                                                  stdout=subprocess.PIPE, text=True)
        p = _WATERFILL["proc"]
        p.stdin.write("%d %s\n" % (capacity, " ".join("%d:%d:%d" % k for k in key[1:])))
        p.stdin.flush()
        line = p.stdout.readline()
        if not line and tasks:
            usage("nicebench --waterfill stopped answering")
        cache[key] = [float(x) for x in line.split()]
    return cache[key]


def static_reachable(tasks, cpus, tol=0.10):
    """Is there a placement of the tasks on `cpus` CPUs, never changed, in
    which every task's share (the CPU shared by weight) is within tol of its
    ideal? True, False, or None if the search was too big. A CPU's shares
    depend only on what runs on it, so only CPU loads that are right by
    themselves ("good compositions") are tried."""
    types = {}
    for t in tasks:
        key = (t["weight"], t.get("duty", 100), t.get("rt_prio", 0), t["ideal"])
        types[key] = types.get(key, 0) + 1
    keys = sorted(types)
    counts = tuple(types[k] for k in keys)
    good_cache = {}

    def good(comp):
        if comp not in good_cache:
            members = [{"weight": k[0], "duty": k[1], "rt_prio": k[2], "ideal": k[3]}
                       for k, n in zip(keys, comp) for _ in range(n)]
            good_cache[comp] = all(m["ideal"] <= 0 or abs(s - m["ideal"]) / m["ideal"] <= tol
                                   for m, s in zip(members, waterfill(members, 1)))
        return good_cache[comp]

    def comps(rem, bound):
        # non-empty compositions <= rem, lexicographically <= bound (the CPUs
        # are interchangeable, so their loads are tried in decreasing order)
        def rec(i, prefix, tight):
            if i == len(rem):
                if any(prefix):
                    yield tuple(prefix)
                return
            top = min(rem[i], bound[i]) if tight else rem[i]
            for c in range(top, -1, -1):
                yield from rec(i + 1, prefix + [c], tight and c == bound[i])
        yield from rec(0, [], True)

    budget = [STATIC_BUDGET]

    def dfs(left, rem, bound):
        if not any(rem):
            return True
        if left == 0 or budget[0] <= 0:
            return None if budget[0] <= 0 else False
        result = False
        for comp in comps(rem, bound):
            budget[0] -= 1
            if budget[0] <= 0:
                return None
            if not good(comp):
                continue
            r = dfs(left - 1, tuple(a - b for a, b in zip(rem, comp)), comp)
            if r:
                return True
            if r is None:
                result = None
        return result

    return dfs(cpus, counts, counts)


def kernel_view(run):
    """Whether the run has the kernel's view of every sample (kcpu, kmigr)
    and every task's kernel migration count."""
    samples = run.get("samples") or []
    return bool(samples) and all("kmigr" in s and "kcpu" in s for s in samples) and \
        all(t.get("nr_migrations_kernel") is not None for t in run.get("tasks") or [])


def sample_migr(s, kernel):
    """Per-task migrations since the window start at sample @s."""
    return s["kmigr"] if kernel else s.get("migr", [])


def sample_cpu(s, kernel):
    """Per-task CPU at sample @s: the queue (kernel view) or where it last ran."""
    return s["kcpu"] if kernel else s["cpu"]


def task_end_cpu(t):
    """The CPU a task ended on: its queue's, if the kernel's view was read."""
    k = t.get("kernel_end_cpu")
    return k if k is not None else t.get("end_cpu")


def settled(run):
    """Seconds from the release to the last sample in which some task had
    migrated since the one before (0.0 if none did)."""
    last, prev = 0.0, 0
    kernel = kernel_view(run)
    for s in run.get("samples") or []:
        total = sum(sample_migr(s, kernel))
        if total > prev:
            last = s["t"]
        prev = total
    return last


def placement_error(tasks):
    """Largest relative error of the shares the tasks' end placement gives
    when each CPU is shared exactly by weight."""
    by_cpu = {}
    for i, t in enumerate(tasks):
        by_cpu.setdefault(task_end_cpu(t), []).append(i)
    err = 0.0
    for idx in by_cpu.values():
        members = [tasks[i] for i in idx]
        for t, s in zip(members, waterfill(members, 1)):
            if t["ideal"] > 0:
                err = max(err, abs(s - t["ideal"]) / t["ideal"])
    return err


def convergence(run):
    """(seconds from release to convergence or None, migrations per task per
    second after it)"""
    samples = run.get("samples") or []
    tasks = run["tasks"]
    n = len(tasks)
    window = run.get("window_s") or run.get("duration_s")
    kernel = kernel_view(run)
    total_migr = sum(t["nr_migrations_kernel" if kernel else "migrations"] for t in tasks)
    if len(samples) < 2 * SMOOTH:
        return None, total_migr / n / window if window else None
    m = len(samples)
    half = samples[m // 2:]
    steady = [statistics.fmean(s["share"][i] for s in half) for i in range(n)]
    smooth = []
    for k in range(SMOOTH - 1, m):
        win = samples[k - SMOOTH + 1:k + 1]
        smooth.append([statistics.fmean(s["share"][i] for s in win) for i in range(n)])
    tail = smooth[m // 2:] or smooth[-1:]     # the windows inside the second half
    noise = [statistics.pstdev(sm[i] for sm in tail) for i in range(n)]
    tol = [max(TOL_REL * steady[i], TOL_ABS, 2 * noise[i]) for i in range(n)]
    within = [all(abs(sm[i] - steady[i]) <= tol[i] for i in range(n)) for sm in smooth]
    first = None
    for k in range(len(within) - 1, -1, -1):
        if not within[k]:
            break
        first = k
    if first is None:
        t_conv, start_idx = None, m // 2
    else:
        # Window `first` starts after sample first-1. Settling is seen at
        # the first sample at the earliest: the moves made before it (the
        # balancer spreading the hogs in the first 100 ms) are the settling
        # itself, not moves after it, even if the shares of that first
        # sample are already steady.
        start_idx = max(first, 1)
        t_conv = samples[start_idx - 1]["t"]
    migr_at = sum(sample_migr(samples[start_idx - 1], kernel)) if start_idx > 0 and \
        ("migr" in samples[0] or kernel) else 0
    t_from = samples[start_idx - 1]["t"] if start_idx > 0 else 0.0
    span = window - t_from
    migr_rate = (total_migr - migr_at) / n / span if span > 0 else None
    return t_conv, migr_rate


def spread(values, keep=False):
    """Median, min, max and count of VALUES (None left out); KEEP also
    keeps the values themselves (a throughput's, for ratio_interval())."""
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    s = {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}
    if keep:
        s["values"] = vals
    return s


def ratio_interval(num, den, level=0.90, resamples=2000):
    """The bootstrap interval (percentile, LEVEL) of median(NUM) /
    median(DEN), each resampled with replacement; a fixed seed, so that a
    report is the same each time it is made. None with fewer than 3 runs
    on either side."""
    if len(num) < 3 or len(den) < 3:
        return None
    rnd = random.Random(1)
    ratios = sorted(statistics.median(rnd.choices(num, k=len(num))) /
                    statistics.median(rnd.choices(den, k=len(den)))
                    for _ in range(resamples))
    lo = ratios[int((1 - level) / 2 * resamples)]
    hi = ratios[int((1 + level) / 2 * resamples) - 1]
    return lo, hi


def analyse(topo_dirs):
    runs, topos = [], []
    kinds, whole, seen = {}, {}, set()
    for d in topo_dirs:
        name, boot = dir_topo(d)
        kind = "boots" if boot else "bench"
        if kinds.setdefault(name, kind) != kind:
            usage(f"{d}: topology {name} has both out-bench-{name} and out-whole-{name}-* "
                  "directories: report one kind")
        try:
            info = read_info(d)
            index = read_index(d)
        except OSError as e:
            usage(f"{d}: {e}")
        cpus = int(info.get("cpus", 0))
        nodes = int(info.get("nodes", 1) or 1)
        threads = int(info.get("threads", 1) or 1)
        label = f"{cpus}" + (f" ({nodes} nodes)" if nodes > 1 else "") + \
            (f" ({cpus // threads} cores x {threads} threads)" if threads > 1 else "")
        extra = {}
        if boot:
            # one boot of make bench-whole: merged into its topology
            sched, rnd = boot
            real = os.path.realpath(d)
            if real in seen:
                usage(f"{d}: given twice")
            seen.add(real)
            other = sorted({r["sched"] for r in index} - {sched})
            if other:
                usage(f"{d}: runs of {', '.join(other)} in the directory of a boot of {sched}")
            base = os.path.basename(os.path.normpath(d))
            extra = {"boot": base, "round": rnd}
            if name in whole:
                t, (first_dir, first_info) = whole[name]
                for k in SAME_INFO:
                    if info.get(k) != first_info.get(k):
                        usage(f"{d}: {k}={info.get(k)} but {first_dir} has {k}={first_info.get(k)}: "
                              "not boots of one topology")
            else:
                t = {"topo": name, "cpus": cpus, "nodes": nodes, "label": label,
                     "kernel": info.get("kernel"), "domains": info.get("sched_domains", "").strip(),
                     "boots": []}
                whole[name] = (t, (base, info))
                topos.append(t)
            t["boots"].append({"dir": base, "sched": sched, "round": rnd,
                               "repeat": int(info.get("repeat", 1) or 1)})
        else:
            topos.append({"topo": name, "cpus": cpus, "nodes": nodes, "label": label,
                          "kernel": info.get("kernel"), "domains": info.get("sched_domains", "").strip()})
        for r in index:
            r.update(topo=name, cpus=cpus, label=label, **extra)
            path = os.path.join(d, r["file"])
            if r["balance_file"]:
                try:
                    bal = read_balance(os.path.join(d, r["balance_file"]))
                except OSError:
                    bal = None
                if bal:
                    r["lb_count"] = bal.get("lb_count")
                    r["lb_time_ns"] = bal.get("lb_time_ns")
                    r["lb_moved"] = bal.get("lb_moved")
                    r["lb_locked"] = bal.get("lb_locked")
            if r["status"] != 0:
                r["failed"] = True
                runs.append(r)
                continue
            try:
                if r["kind"] == "fair":
                    with open(path) as f:
                        nb = json.load(f)
                    r["tasks"] = [{k: t.get(k) for k in ("nice", "weight", "share", "ideal",
                                                          "migrations", "duty", "rt_prio", "start_cpu",
                                                          "end_cpu", "kernel_end_cpu",
                                                          "nr_migrations_kernel")}
                                  for t in nb["tasks"]]
                    for t in r["tasks"]:
                        t["duty"] = t["duty"] or 100
                        t["rt_prio"] = t["rt_prio"] or 0
                    r["max_err"] = nb["summary"]["max_rel_err"]
                    r["mean_err"] = nb["summary"]["mean_rel_err"]
                    r["ratio"] = nb["summary"].get("ratio_nice0_nice19")
                    r["conv_s"], r["migr_rate"] = convergence(nb)
                    r["settled_s"] = settled(nb)
                    r["placement_err"] = placement_error(r["tasks"])
                    r["window_s"] = nb.get("window_s")
                    r["samples"] = nb.get("samples", [])
                    r["kernel_view"] = kernel_view(nb)
                elif r["kind"] == "lat":
                    r["lat_mean"], r["lat_p99"], r["lat_max"] = lat_values(path)
                else:
                    r["value"] = tput_value(r["scenario"], path, r["wall_s"])
                    cs, mig = read_perf_stat(os.path.join(
                        d, f"tput-{r['scenario']}-{r['sched']}-{r['rep']}.perf"))
                    if cs is not None:
                        r["cs_per_s"] = cs / r["wall_s"]
                    if mig is not None:
                        r["mig_per_s"] = mig / r["wall_s"]
            except (OSError, ValueError, KeyError) as e:
                print(f"bench-report.py: {path}: {e}", file=sys.stderr)
                r["failed"] = True
            if r.get("lb_count") is not None:
                r["lb_calls_per_s"] = r["lb_count"] / r["wall_s"]
                if r.get("lb_time_ns") is not None:
                    r["lb_us_per_s"] = r["lb_time_ns"] / 1e3 / r["wall_s"]
                    r["lb_us_per_call"] = (r["lb_time_ns"] / 1e3 / r["lb_count"]
                                           if r["lb_count"] else None)
                if r.get("lb_locked") is not None and r["lb_count"]:
                    r["lb_locked_per_call"] = r["lb_locked"] / r["lb_count"]
            runs.append(r)
    # Every boot's bench.sh numbers its repeats from 1: number those of a
    # topology's boots 1, 2, ... in the order of the rounds, so that each
    # boot's runs are repeats of their own (the plots pick a run by its
    # repeat); boot_rep keeps bench.sh's number (the name of its files).
    count = {}
    for r in sorted((r for r in runs if "boot" in r), key=lambda r: (r["round"], r["boot"], r["rep"])):
        key = (r["topo"], r["kind"], r["scenario"], r["sched"])
        count[key] = count.get(key, 0) + 1
        r["boot_rep"], r["rep"] = r["rep"], count[key]
    return topos, runs


def aggregate(topos, runs):
    groups = {}
    for r in runs:
        groups.setdefault((r["topo"], r["kind"], r["scenario"], r["sched"]), []).append(r)
    agg = []
    order = {t["topo"]: i for i, t in enumerate(topos)}
    for (topo, kind, scen, sched), rs in sorted(
            groups.items(), key=lambda kv: (order[kv[0][0]], kv[0][1], kv[0][2],
                                            SCHEDS.index(kv[0][3]) if kv[0][3] in SCHEDS else 9)):
        ok = [r for r in rs if not r.get("failed")]
        a = {"topo": topo, "label": rs[0]["label"], "cpus": rs[0]["cpus"], "kind": kind,
             "scenario": scen, "sched": sched, "runs": len(rs), "failed": len(rs) - len(ok)}
        keys = ["lb_calls_per_s", "lb_us_per_s", "lb_us_per_call", "lb_locked_per_call"]
        keys += {"fair": ["max_err", "mean_err", "placement_err", "ratio", "conv_s", "settled_s",
                          "migr_rate"],
                 "lat": ["lat_mean", "lat_p99", "lat_max"]}.get(
                     kind, ["value", "cs_per_s", "mig_per_s"])
        for k in keys:
            a[k] = spread([r.get(k) for r in ok], keep=k == "value")
        if kind == "fair":
            a["not_converged"] = sum(1 for r in ok if r.get("conv_s") is None)
            if ok:
                nt = len(ok[0]["tasks"])
                a["tasks"] = [{"nice": ok[0]["tasks"][i]["nice"],
                               "duty": ok[0]["tasks"][i]["duty"],
                               "rt_prio": ok[0]["tasks"][i]["rt_prio"],
                               "weight": ok[0]["tasks"][i]["weight"],
                               "ideal": ok[0]["tasks"][i]["ideal"],
                               "share": spread([r["tasks"][i]["share"] for r in ok])}
                              for i in range(nt)]
                if sched != "cfs":
                    a["static_reachable"] = static_reachable(ok[0]["tasks"], rs[0]["cpus"])
                # the repeat with the median convergence time, for the plots
                ranked = sorted(ok, key=lambda r: (r["conv_s"] is None, r["conv_s"] or 0))
                a["plot_rep"] = ranked[len(ranked) // 2]["rep"]
        agg.append(a)
    return agg


def find(agg, topo, kind, scen, sched):
    for a in agg:
        if (a["topo"], a["kind"], a["scenario"], a["sched"]) == (topo, kind, scen, sched):
            return a
    return None


def med(a, key):
    return a[key]["median"] if a and a.get(key) else None


def targets(topos, agg):
    out = []
    for t in topos:
        topo, label = t["topo"], t["label"]
        for a in agg:
            if a["topo"] != topo or a["kind"] != "fair" or a["sched"] != "smpnice":
                continue
            reach = a.get("static_reachable")
            err = med(a, "max_err")
            if err is None:
                continue
            if reach:
                out.append({"target": f"smpnice shares within 10 % of ideal ({a['scenario']}, {label} CPUs)",
                            "value": f"max error {100 * err:.1f} %", "met": err <= 0.10})
                perr = med(a, "placement_err")
                if perr is not None:
                    out.append({"target": f"... of that, the placement's own error ({a['scenario']}, {label} CPUs)",
                                "value": f"{100 * perr:.1f} %", "met": perr <= 0.10})
            elif reach is False:
                out.append({"target": f"smpnice shares within 10 % of ideal ({a['scenario']}, {label} CPUs)",
                            "value": f"max error {100 * err:.1f} % (no static placement reaches the ideal: not judged)",
                            "met": None})
        art = find(agg, topo, "fair", "article", "smpnice")
        if art and med(art, "ratio") and art.get("tasks"):
            w0 = next((x["weight"] for x in art["tasks"] if x["nice"] == 0), None)
            w19 = next((x["weight"] for x in art["tasks"] if x["nice"] == 19), None)
            if w0 and w19:
                single = w0 / w19
                ratio = med(art, "ratio")
                out.append({"target": f"article's case nice 0 / nice 19 ratio within 20 % of one CPU's {single:.1f} (smpnice, {label} CPUs)",
                            "value": f"{ratio:.1f} ({100 * (ratio / single - 1):+.0f} %)",
                            "met": abs(ratio / single - 1) <= 0.20})
        cnt = find(agg, topo, "fair", "article", "count")
        if cnt and med(cnt, "ratio"):
            ratio = med(cnt, "ratio")
            out.append({"target": f"by count, the article's case fails as in 2.6.17 ({label} CPUs)",
                        "value": f"nice 0 / nice 19 ratio {ratio:.1f}, max error {100 * med(cnt, 'max_err'):.0f} %",
                        "met": ratio < 2.0})
        mc, ms = (find(agg, topo, "tput", "messaging", s) for s in ("count", "smpnice"))
        if med(mc, "value") and med(ms, "value"):
            rel = med(mc, "value") / med(ms, "value")
            out.append({"target": f"smpnice perf bench sched messaging throughput >= 95 % of count ({label} CPUs)",
                        "value": f"{100 * rel:.0f} % ({med(ms, 'value'):.2f} s vs {med(mc, 'value'):.2f} s)",
                        "met": rel >= 0.95})
        for a in agg:
            if a["topo"] != topo or a["kind"] != "fair" or a["sched"] != "smpnice":
                continue
            c = find(agg, topo, "fair", a["scenario"], "cfs")
            ms_, mc_ = med(a, "migr_rate"), med(c, "migr_rate")
            if ms_ is None or mc_ is None:
                continue
            out.append({"target": f"smpnice migrations after convergence <= CFS's ({a['scenario']}, {label} CPUs)",
                        "value": f"{ms_:.3f} vs {mc_:.3f} per task per s",
                        "met": ms_ <= mc_ + 0.01})
        out += mode2_targets(topo, label, agg)
        out += whole_system_targets(topo, label, agg)
    return out


# CFS time / whole-system time at least this (throughput), or whole-system
# latency at most CFS's (cyclictest beside hogs).
WHOLE_TPUT_MIN = {"hackbench": 0.95, "messaging": 0.95, "pipe": 1.0, "build": 1.0,
                  "make": 1.0, "starve": 1.0}


def whole_system_targets(topo, label, agg):
    """A throughput target also gets the 90 % bootstrap interval of its
    ratio: a miss whose interval reaches the target is within the noise of
    the runs ("noise": True), one whose interval stays below it is not."""
    out = []
    for scen, floor in WHOLE_TPUT_MIN.items():
        wa, ca = (find(agg, topo, "tput", scen, x) for x in ("all", "cfs"))
        w, c = med(wa, "value"), med(ca, "value")
        if w and c:
            t = {"target": f"whole-system {scen}: CFS time / O(1) time >= {floor:.2f} ({label} CPUs)",
                 "value": f"{c / w:.2f} ({w:.2f} s vs CFS {c:.2f} s)", "met": c / w >= floor}
            iv = ratio_interval(ca["value"].get("values", []), wa["value"].get("values", []))
            if iv:
                t["interval"] = [round(iv[0], 4), round(iv[1], 4)]
                t["value"] += f"; 90 % interval {iv[0]:.2f}-{iv[1]:.2f}"
                if not t["met"]:
                    t["noise"] = iv[1] >= floor
            out.append(t)
    w, c = (find(agg, topo, "lat", "latency", x) for x in ("all", "cfs"))
    for key, what in (("lat_p99", "99th percentile"), ("lat_max", "worst")):
        if med(w, key) is not None and med(c, key) is not None:
            out.append({"target": f"whole-system cyclictest {what} beside hogs <= CFS's ({label} CPUs)",
                        "value": f"{med(w, key):.0f} us vs {med(c, key):.0f} us",
                        "met": med(w, key) <= med(c, key)})
    return out


def worst(a, key):
    return a[key]["max"] if a and a.get(key) else None


def mode2_targets(topo, label, agg):
    """sched_smpnice=2 never worse than 2.6.18 (smpnice): its median max
    error within 1 point of smpnice's worst repeat, its median time within
    3 % of smpnice's slowest repeat, its migrations after convergence at
    most 0.01 per task per s above smpnice's median. The margins are the
    noise of the emulation, with which repeats of one mode differ."""
    out = []
    for a in agg:
        if a["topo"] != topo or a["sched"] != "smpnice2":
            continue
        b = find(agg, topo, a["kind"], a["scenario"], "smpnice")
        scen = a["scenario"]
        if a["kind"] == "fair":
            e2, e1 = med(a, "max_err"), worst(b, "max_err")
            if e2 is not None and e1 is not None:
                out.append({"target": f"sched_smpnice=2 max error no worse than smpnice's ({scen}, {label} CPUs)",
                            "value": f"{100 * e2:.1f} % vs {100 * med(b, 'max_err'):.1f} % (worst {100 * e1:.1f} %)",
                            "met": e2 <= e1 + 0.01})
            m2, m1 = med(a, "migr_rate"), med(b, "migr_rate")
            if m2 is not None and m1 is not None:
                out.append({"target": f"sched_smpnice=2 migrations no more than smpnice's ({scen}, {label} CPUs)",
                            "value": f"{m2:.3f} vs {m1:.3f} per task per s",
                            "met": m2 <= m1 + 0.01})
        elif a["kind"] == "tput":
            v2, v1 = med(a, "value"), worst(b, "value")
            if v2 and v1:
                out.append({"target": f"sched_smpnice=2 throughput no worse than smpnice's ({scen}, {label} CPUs)",
                            "value": f"{v2:.2f} s vs {med(b, 'value'):.2f} s (slowest {v1:.2f} s)",
                            "met": v2 <= v1 * 1.03})
    return out


# --------------------------------------------------------------- output

def fmt(s, scale=1.0, digits=1, unit=""):
    if not s:
        return "-"
    m, lo, hi = (s[k] * scale for k in ("median", "min", "max"))
    if s["n"] == 1 or f"{lo:.{digits}f}" == f"{hi:.{digits}f}":
        return f"{m:.{digits}f}{unit}"
    return f"{m:.{digits}f}{unit} ({lo:.{digits}f}-{hi:.{digits}f})"


def md_table(head, rows):
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def conv_fmt(a):
    s = fmt(a.get("conv_s"), 1, 2)
    nc = a.get("not_converged", 0)
    if nc:
        s += f", {nc}/{a['runs'] - a['failed']} never"
    return s


def boots_note(topos):
    """The line that says the schedulers ran in boots of their own (make
    bench-whole), with the rounds of each topology; None without boots."""
    per_topo = []
    for t in topos:
        if not t.get("boots"):
            continue
        per = {}
        for b in t["boots"]:
            per[b["sched"]] = per.get(b["sched"], 0) + 1
        per_topo.append((t, per))
    if not per_topo:
        return None
    scheds = sorted({x for _, per in per_topo for x in per},
                    key=lambda x: SCHEDS.index(x) if x in SCHEDS else 9)
    parts, rounds, uneven = [], set(), False
    for t, per in per_topo:
        n = max(per.values())
        rounds.add(n)
        part = f"{t['label']} CPUs {n} round" + ("s" if n != 1 else "")
        if any(per.get(x, 0) != n for x in scheds):
            uneven = True
            part += " (" + ", ".join(f"{SCHED_LABEL.get(x, x)} {per.get(x, 0)} boot" +
                                     ("s" if per.get(x, 0) != 1 else "") for x in scheds) + ")"
        parts.append(part)
    # one figure for all: every topology's boots, as many of each scheduler
    even = len(rounds) == 1 and len(per_topo) == len(topos) and not uneven
    one = all(b["repeat"] == 1 for t, _ in per_topo for b in t["boots"])
    what = ("each scheduler in boots of its own, alternating: " +
            " and ".join(f"{SCHED_LABEL.get(x, x)} (booted with sched_o1=all)" if x in BOOTED_ALL else
                         SCHED_LABEL.get(x, x) for x in scheds) +
            (", one repeat per boot" if one else ", each boot's runs repeats of their own"))
    if even:
        n = rounds.pop()
        return f"Boots alternated (make bench-whole), {n} round{'s' if n != 1 else ''}: {what}.\n\n"
    return f"Boots alternated (make bench-whole): {what}; {', '.join(parts)}.\n\n"


def report_md(topos, agg, tgts):
    out = []
    note = boots_note(topos)
    if note:
        out.append(note)
    fair = [a for a in agg if a["kind"] == "fair"]
    if fair:
        out.append("### Fairness, convergence, stability\n")
        out.append("Median over the repeats, (min-max) where they differ; errors in % of the ideal share.\n")
        rows = []
        for a in fair:
            rows.append([a["label"], a["scenario"], SCHED_LABEL.get(a["sched"], a["sched"]),
                         fmt(a["max_err"], 100), fmt(a["mean_err"], 100), fmt(a["placement_err"], 100),
                         fmt(a["ratio"], 1, 1),
                         conv_fmt(a), fmt(a["settled_s"], 1, 1), fmt(a["migr_rate"], 1, 2),
                         fmt(a["lb_us_per_s"], 1, 0), fmt(a["lb_us_per_call"], 1, 1)
                         + (f" [{a['failed']} failed]" if a["failed"] else "")])
        out.append(md_table(["CPUs", "scenario", "scheduler", "max err %", "mean err %", "placement err %",
                             "nice0/nice19", "converged s", "settled s", "migr/task/s",
                             "balancer us/s", "us/call"], rows))
        out.append("\nShares per task (median, % of one CPU; ideal per scheduler's weights):\n")
        for t in topos:
            for scen in dict.fromkeys(a["scenario"] for a in fair if a["topo"] == t["topo"]):
                per = [a for a in fair if a["topo"] == t["topo"] and a["scenario"] == scen and a.get("tasks")]
                if not per or len(per[0]["tasks"]) > 12:
                    continue
                head = ["task", "nice"] + [f"{SCHED_LABEL.get(a['sched'], a['sched'])} (ideal)" for a in per]
                rows = []
                for i, task in enumerate(per[0]["tasks"]):
                    kind = f"{task['nice']}" + (f" FIFO {task['rt_prio']}" if task["rt_prio"] else "") + \
                        (f" {task['duty']}% duty" if task["duty"] < 100 else "")
                    rows.append([str(i), kind] + [
                        f"{fmt(a['tasks'][i]['share'], 100)} ({100 * a['tasks'][i]['ideal']:.1f})" for a in per])
                out.append(f"\n{t['label']} CPUs, {scen}:\n\n" + md_table(head, rows))
    tput = [a for a in agg if a["kind"] == "tput"]
    if tput:
        out.append("\n### Throughput (seconds, lower is better)\n\n")
        rows = []
        # the estimator-off column only where such runs were made
        noest = any(a["sched"] == "noest" for a in tput)
        shown = [x for x in SCHEDS if x != "noest" or noest]
        for t in topos:
            for scen in dict.fromkeys(a["scenario"] for a in tput if a["topo"] == t["topo"]):
                per = {a["sched"]: a for a in tput if a["topo"] == t["topo"] and a["scenario"] == scen}
                c, s = med(per.get("count"), "value"), med(per.get("smpnice"), "value")
                w, f = med(per.get("all"), "value"), med(per.get("cfs"), "value")
                s2, ne = med(per.get("smpnice2"), "value"), med(per.get("noest"), "value")
                rows.append([t["label"], scen] +
                            [fmt(per[x]["value"], 1, 2) if x in per else "-" for x in shown] +
                            [f"{100 * c / s:.0f} %" if c and s else "-"] +
                            [f"{100 * s / s2:.0f} %" if s and s2 else "-"] +
                            [f"{100 * f / w:.0f} %" if w and f else "-"] +
                            ([f"{100 * f / ne:.0f} %" if ne and f else "-"] if noest else []) +
                            [fmt(per["smpnice"]["lb_us_per_s"], 1, 0) if "smpnice" in per else "-"])
        out.append(md_table(["CPUs", "benchmark"] + [SCHED_LABEL[x] for x in shown] +
                            ["smpnice throughput vs count", "sched_smpnice=2 throughput vs smpnice",
                             "whole-system throughput vs CFS"] +
                            (["estimator off: throughput vs CFS"] if noest else []) +
                            ["smpnice balancer us/s"], rows))
    perf = [a for a in tput if a.get("cs_per_s")]
    if perf:
        out.append("\n### Context switches and migrations per second of the whole guest (perf stat -a)\n\n")
        rows = [[a["label"], a["scenario"], SCHED_LABEL.get(a["sched"], a["sched"]),
                 fmt(a["cs_per_s"], 1, 0), fmt(a.get("mig_per_s"), 1, 0)] for a in perf]
        out.append(md_table(["CPUs", "benchmark", "scheduler", "context switches/s", "migrations/s"], rows))
    lat = [a for a in agg if a["kind"] == "lat"]
    if lat:
        out.append("\n### Wake-up latency of sleepers beside nice 0 and nice 19 hogs (cyclictest, SCHED_OTHER threads, us)\n\n")
        rows = [[a["label"], a["scenario"], SCHED_LABEL.get(a["sched"], a["sched"]),
                 fmt(a["lat_mean"], 1, 0), fmt(a["lat_p99"], 1, 0), fmt(a["lat_max"], 1, 0)
                 + (f" [{a['failed']} failed]" if a["failed"] else "")] for a in lat]
        out.append(md_table(["CPUs", "scenario", "scheduler", "mean", "99th percentile", "max"], rows))
    cost = [a for a in agg if a["sched"] != "cfs" and a.get("lb_us_per_s")]
    if cost:
        out.append("\n### Cost of balancing (O1 balancer, all CPUs summed)\n\n")
        rows = [[a["label"], a["scenario"], SCHED_LABEL[a["sched"]], fmt(a["lb_calls_per_s"], 1, 0),
                 fmt(a["lb_us_per_s"], 1, 0), fmt(a["lb_us_per_call"], 1, 2),
                 fmt(a["lb_us_per_s"], 1e-4 / max(a["cpus"], 1), 3),
                 fmt(a.get("lb_locked_per_call"), 1, 2)] for a in cost]
        out.append(md_table(["CPUs", "workload", "scheduler", "calls/s", "us per s", "us per call",
                             "% of each CPU", "pairs locked per call"], rows))
    if tgts:
        out.append("\n### Targets\n\n")
        rows = [[x["target"], x["value"],
                 {True: "met", False: "**missed**", None: "n/a"}[x["met"]] +
                 (" (within the noise)" if x.get("noise") else "")] for x in tgts]
        out.append(md_table(["target", "measured", ""], rows))
    return "".join(out)


def write_plots(outdir, topos, agg, runs):
    pdir = os.path.join(outdir, "plots")
    os.makedirs(pdir, exist_ok=True)
    scripts = []
    fair = [a for a in agg if a["kind"] == "fair" and a.get("tasks")]
    for t in topos:
        for scen in dict.fromkeys(a["scenario"] for a in fair if a["topo"] == t["topo"]):
            per = [a for a in fair if a["topo"] == t["topo"] and a["scenario"] == scen]
            base = f"{t['topo']}-{scen}"
            nt = len(per[0]["tasks"])
            # shares per task per scheduler, with the O1 ideal
            with open(os.path.join(pdir, f"shares-{base}.dat"), "w") as f:
                f.write("# task " + " ".join(a["sched"] for a in per) + " ideal_o1\n")
                ideal = next((a for a in per if a["sched"] != "cfs"), per[0])
                for i in range(nt):
                    task = per[0]["tasks"][i]
                    name = f"{i} n{task['nice']}" + (" FIFO" if task["rt_prio"] else "") + \
                        (f" {task['duty']}%" if task["duty"] < 100 else "")
                    f.write(f'"{name}" ' + " ".join(
                        f"{100 * a['tasks'][i]['share']['median']:.2f}" for a in per) +
                        f" {100 * ideal['tasks'][i]['ideal']:.2f}\n")
            cols = ", ".join(f"'shares-{base}.dat' using {k + 2}:xtic(1) title '{SCHED_LABEL.get(a['sched'], a['sched'])}'"
                             for k, a in enumerate(per))
            cols += f", '' using {len(per) + 2} title 'ideal (O1 weights)' fs pattern 4"
            scripts.append(f"""set terminal pngcairo size 1000,500
set output 'shares-{base}.png'
set title 'CPU share per task: {scen}, {t["label"]} CPUs (median of repeats)' noenhanced
set ylabel 'share of one CPU (%)'
set yrange [0:110]
set style data histograms
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set xtics rotate by -30 noenhanced
set key top right noenhanced
set grid ytics
plot {cols}
""")
            # share and migrations over time, one repeat per scheduler
            plots_share, plots_migr = [], []
            for a in per:
                r = next((r for r in runs if r["topo"] == t["topo"] and r["kind"] == "fair"
                          and r["scenario"] == scen and r["sched"] == a["sched"]
                          and r["rep"] == a.get("plot_rep") and r.get("samples")), None)
                if not r:
                    continue
                fn = f"time-{base}-{a['sched']}.dat"
                with open(os.path.join(pdir, fn), "w") as f:
                    f.write("# t share[task]... total_migrations\n")
                    for s in r["samples"]:
                        f.write(f"{s['t']:.3f} " + " ".join(f"{100 * x:.2f}" for x in s["share"]) +
                                f" {sum(sample_migr(s, r.get('kernel_view')) or [0])}\n")
                label = SCHED_LABEL.get(a["sched"], a["sched"])
                plots_share.append((label, fn, nt, r["tasks"]))
                plots_migr.append(f"'{fn}' using 1:{nt + 2} with steps lw 2 title '{label}'")
            if plots_share:
                gp = [f"""set terminal pngcairo size 1000,{300 * len(plots_share)}
set output 'time-{base}.png'
set multiplot layout {len(plots_share)},1 title 'share over time from the bad start: {scen}, {t["label"]} CPUs' noenhanced
set ylabel 'share (%)'
set yrange [0:110]
set grid
set key outside right noenhanced
"""]
                for label, fn, n, tasks in plots_share:
                    key = "" if n <= 10 else "notitle"
                    lines = ", ".join(
                        f"'{fn}' using 1:{i + 2} with lines " +
                        (key or f"title 'task {i} (nice {tasks[i]['nice']})'") for i in range(n))
                    gp.append(f"set title '{label}' noenhanced\nset xlabel 'seconds since release'\nplot {lines}\n")
                gp.append("unset multiplot\n")
                scripts.append("".join(gp))
                scripts.append(f"""set terminal pngcairo size 1000,400
set output 'migrations-{base}.png'
set title 'migrations since release (all tasks): {scen}, {t["label"]} CPUs' noenhanced
set xlabel 'seconds since release'
set ylabel 'migrations'
set grid
set key top left noenhanced
plot {", ".join(plots_migr)}
""")
    return run_gnuplot(pdir, {f"plot{k}": gp for k, gp in enumerate(scripts)})


def run_gnuplot(pdir, scripts):
    """Write each gnuplot script (name -> text) to pdir/NAME.gp and, with
    gnuplot installed, run it there; return the PNG files made."""
    made = []
    for name, gp in scripts.items():
        path = os.path.join(pdir, f"{name}.gp")
        with open(path, "w") as f:
            f.write(gp)
        if shutil.which("gnuplot"):
            subprocess.run(["gnuplot", os.path.basename(path)], cwd=pdir, check=False,
                           stderr=subprocess.DEVNULL)
            png = re.search(r"set output '([^']+)'", gp).group(1)
            if os.path.exists(os.path.join(pdir, png)):
                made.append(png)
    return made


def main(argv):
    args = argv[1:]
    plots = True
    while args and args[0].startswith("--"):
        if args[0] == "--no-plots":
            plots = False
        elif args[0] != "--plots":
            usage(f"unknown option '{args[0]}'")
        args = args[1:]
    if len(args) < 2:
        usage("need OUTDIR and at least one raw topology directory")
    outdir, dirs = args[0], args[1:]
    for d in dirs:
        if not os.path.isfile(os.path.join(d, "index.tsv")):
            usage(f"{d} has no index.tsv (not a bench.sh output directory)")
    os.makedirs(outdir, exist_ok=True)
    topos, runs = analyse(dirs)
    agg = aggregate(topos, runs)
    tgts = targets(topos, agg)
    md = report_md(topos, agg, tgts)
    slim = [{k: v for k, v in r.items() if k != "samples"} for r in runs]
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump({"topologies": topos, "runs": slim, "summary": agg, "targets": tgts},
                  f, indent=1)
    with open(os.path.join(outdir, "bench.md"), "w") as f:
        f.write(md)
    print(md)
    if plots:
        made = write_plots(outdir, topos, agg, runs)
        if made:
            print(f"# plots: {len(made)} in {os.path.join(outdir, 'plots')}")
    print(f"# results: {os.path.join(outdir, 'results.json')}, {os.path.join(outdir, 'bench.md')}")
    failed = sum(1 for r in runs if r.get("failed"))
    if failed:
        print(f"# {failed} run(s) failed: see their logs in the raw directories", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

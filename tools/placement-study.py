#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The placement study: random CPU-hog scenarios, each run in a guest under
every balancing mode, against the best static placement of their tasks.

Usage:
  placement-study.py gen [--seeds A-B] [--out DIR]
      Draw one scenario per seed (random.Random(seed), so a seed always
      gives the same scenario): a topology (flat 2..8 CPUs, 2 or 4 SMT
      cores of 2 threads, 2 NUMA nodes of 2 or 4 CPUs), 2..16 CPU hogs with
      nice levels in -20..19 and a start CPU each. Writes DIR/scenarios.tsv
      and DIR/input/TOPO.txt (the lines tests/vm/guest/study.sh runs) for
      the topologies drawn. Default: seeds 1-100, build/study.
  placement-study.py report [--no-plots] OUTDIR RAWDIR [RAWDIR ...]
      Read the guests' results (out-study-TOPO/ of scripts/runner.sh) and
      write OUTDIR/study.json, OUTDIR/study.md and OUTDIR/plots/; print
      the summary.

What is measured, per scenario and mode (tools/placement.py has the model):
  err        the largest relative error |share - ideal| / ideal of a task,
             measured (ideal: the mode's weights water-filled over the CPUs)
  place err  the error the final placement (the queue each task is on at
             the end, as the kernel sees it) gives when each CPU is shared
             exactly by weight: the balancer's part, without the emulated
             machine's noise
  best       the least largest error of any static placement of the same
             tasks, computed exactly on the host
  gap        place err - best, in percentage points of relative error
  migr/task/s  migrations per task and second after convergence (the
             definitions of tools/bench-report.py: the kernel's count,
             se.nr_migrations, sampled with the shares; a hog sees a pull
             only when it next runs, seconds later for an expired O1 task);
             the summary pairs it with 2.6.18's on the same seed (more /
             same / less), since a few runs carry the mean
  after the placement settles  the same from the later of convergence
             and the last sample whose placement error set a new low (by
             more than half a point): the shares converge within the
             emulation's noise while a balancer may still be mending the
             placement; moves that set no new low (a move and its undoing,
             a move for nothing) count as after settling
A stable imbalance: a run of an O(1) mode whose final placement is more
than 5 points worse than the best and that did not migrate in its last
second. Each is reduced (tasks and CPUs taken away while 2.6.18's
arithmetic still accepts the placement and it is still 5 points worse
than the best placement of what is left) to a minimal reproducer, with
the rule of o1_calc_imbalance() that accepts it (flat topologies).
"""
import importlib.util
import json
import os
import random
import shutil
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import placement as P  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "bench_report", os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-report.py"))
BR = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(BR)

# topology name -> (CPUs, scripts/vm-run.sh options)
TOPOLOGIES = {f"flat-{n}": (n, f"--cpus {n}") for n in range(2, 9)}
TOPOLOGIES.update({
    "smt-4": (4, "--cpus 4 --sockets 1 --cores 2 --threads 2"),
    "smt-8": (8, "--cpus 8 --sockets 1 --cores 4 --threads 2"),
    "numa-4": (4, "--cpus 4 --numa 2"),
    "numa-8": (8, "--cpus 8 --numa 2"),
})
MODES = ["count", "smpnice", "smpnice2", "cfs"]
MODE_LABEL = {"count": "O1 by count (2.6.17)", "smpnice": "O1 smpnice (2.6.18)",
              "smpnice2": "O1 sched_smpnice=2", "cfs": "CFS/EEVDF"}
GAP = 0.05          # "within 5 points of the best static placement"


def usage(msg):
    print(f"placement-study.py: {msg}\n{__doc__}", file=sys.stderr)
    sys.exit(2)


def parse_seeds(spec):
    try:
        a, _, b = spec.partition("-")
        lo, hi = int(a), int(b or a)
    except ValueError:
        usage(f"--seeds wants A-B or N, not '{spec}'")
    if lo < 0 or hi < lo or hi - lo > 100000:
        usage(f"--seeds '{spec}': want 0 <= A <= B")
    return range(lo, hi + 1)


def draw(seed):
    """The scenario of a seed: (topology, nice levels, start CPUs)."""
    rng = random.Random(seed)
    kind = rng.choice(["flat", "flat", "smt", "numa"])
    if kind == "flat":
        topo = f"flat-{rng.randint(2, 8)}"
    else:
        topo = f"{kind}-{rng.choice([4, 8])}"
    cpus = TOPOLOGIES[topo][0]
    n = rng.randint(2, 16)
    nice = [rng.randint(P.NICE_MIN, P.NICE_MAX) for _ in range(n)]
    start = [rng.randrange(cpus) for _ in range(n)]
    return topo, nice, start


def cmd_gen(args):
    seeds, out = range(1, 101), "build/study"
    while args:
        if args[0] == "--seeds" and len(args) > 1:
            seeds, args = parse_seeds(args[1]), args[2:]
        elif args[0] == "--out" and len(args) > 1:
            out, args = args[1], args[2:]
        else:
            usage(f"gen: unknown argument '{args[0]}'")
    shutil.rmtree(os.path.join(out, "input"), ignore_errors=True)
    os.makedirs(os.path.join(out, "input"))
    per = {}
    with open(os.path.join(out, "scenarios.tsv"), "w") as f:
        f.write("# seed\ttopology\tcpus\tnice\tstart\n")
        for s in seeds:
            topo, nice, start = draw(s)
            line = f"{s}\t{topo}\t{TOPOLOGIES[topo][0]}\t{','.join(map(str, nice))}\t{','.join(map(str, start))}"
            f.write(line + "\n")
            per.setdefault(topo, []).append(f"{s} {','.join(map(str, nice))} {','.join(map(str, start))}")
    for topo, lines in per.items():
        with open(os.path.join(out, "input", f"{topo}.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
    print(f"placement-study: {len(seeds)} seeds ({seeds[0]}-{seeds[-1]}) in {out}/: " +
          ", ".join(f"{t} {len(v)}" for t, v in sorted(per.items())))
    return 0


# ------------------------------------------------------------ analysis

def weight_fn(mode):
    return P.cfs_weight if mode == "cfs" else P.o1_weight


def read_runs(rawdir):
    topo = os.path.basename(os.path.normpath(rawdir))
    if topo.startswith("out-study-"):
        topo = topo[len("out-study-"):]
    runs = []
    index = os.path.join(rawdir, "index.tsv")
    if not os.path.isfile(index):
        usage(f"{rawdir} has no index.tsv (not a study.sh output directory)")
    with open(index) as f:
        for line in f:
            w = line.rstrip("\n").split("\t")
            if len(w) != 4:
                continue
            seed, mode, rc, res = w
            r = {"topo": topo, "cpus": TOPOLOGIES.get(topo, (0,))[0], "seed": int(seed),
                 "mode": mode, "status": int(rc), "file": res}
            if r["status"] == 0:
                try:
                    with open(os.path.join(rawdir, res)) as g:
                        r["nb"] = json.load(g)
                except (OSError, ValueError) as e:
                    print(f"placement-study.py: {res}: {e}", file=sys.stderr)
                    r["status"] = -1
            runs.append(r)
    return runs


def last_move(nb):
    """Seconds before the end of the run of the last migration (None: none
    since the release)."""
    t = BR.settled(nb)
    end = nb["samples"][-1]["t"] if nb.get("samples") else 0
    return end - t if t else None


def tail_migrations(nb, span=2.0):
    """Migrations per task per second in the last @span seconds of the
    window (0 if the samples do not reach that far back), and the placement
    error at the start of that tail (None then)."""
    s = nb.get("samples") or []
    kernel = BR.kernel_view(nb)
    if not s or ("migr" not in s[0] and not kernel):
        return 0.0, None
    end = s[-1]["t"]
    before = [q for q in s if q["t"] <= end - span]
    if not before or end - before[-1]["t"] <= 0:
        return 0.0, None
    a = before[-1]
    m0, m1 = BR.sample_migr(a, kernel), BR.sample_migr(s[-1], kernel)
    rate = (sum(m1) - sum(m0)) / len(m0) / (end - a["t"])
    return rate, BR.sample_cpu(a, kernel)


def after_convergence(nb, conv):
    """(samples, tasks, the time migrations count from: @conv, or the
    second half of the samples if the shares never converged); t_from is
    None without the kernel's view or with too few samples."""
    samples = nb.get("samples") or []
    tasks = nb.get("tasks") or []
    if len(samples) < 2 * BR.SMOOTH or not BR.kernel_view({"samples": samples, "tasks": tasks}):
        return samples, tasks, None
    return samples, tasks, conv if conv is not None else samples[len(samples) // 2 - 1]["t"]


def window_from(nb, t_from):
    """Seconds of the window after @t_from; None if none (or no @t_from)."""
    if t_from is None:
        return None
    span = (nb.get("window_s") or nb.get("duration_s")) - t_from
    return span if span > 0 else None


def migr_effect(nb, weights, ideal, conv):
    """The migrations after convergence (counted from the sample that
    BR.convergence() counts from) per task per second, split by their effect
    on the placement error: (lowered by more than half a point, not). Moves
    between two samples are judged together, on the kernel's placements.
    (None, None) without the kernel's view or with too few samples."""
    samples, tasks, t_from = after_convergence(nb, conv)
    span = window_from(nb, t_from)
    if span is None:
        return None, None
    lowered = other = 0
    for a, b in zip(samples, samples[1:]):
        moves = sum(b["kmigr"]) - sum(a["kmigr"])
        if b["t"] <= t_from + 1e-9 or moves <= 0:
            continue
        before = P.max_rel_err(P.placement_shares(weights, a["kcpu"]), ideal)
        after = P.max_rel_err(P.placement_shares(weights, b["kcpu"]), ideal)
        if after < before - 0.005:
            lowered += moves
        else:
            other += moves
    return lowered / len(tasks) / span, other / len(tasks) / span


def migr_after_placement(nb, weights, ideal, conv):
    """Migrations per task per second after the placement settles: from the
    later of convergence (the shares, BR.convergence()) and the last sample
    whose placement error (on the kernel's placements) set a new low by
    more than half a point. A balancer still mending a placement whose
    shares already look steady under the emulation's noise is settling,
    not ping-ponging; a move and its undoing set no new low, so both count.
    None without the kernel's view or with too few samples."""
    samples, tasks, t_from = after_convergence(nb, conv)
    if t_from is None:
        return None
    low = None
    for s in samples:
        e = P.max_rel_err(P.placement_shares(weights, s["kcpu"]), ideal)
        if low is None or e < low - 0.005:
            low = e
            t_from = max(t_from, s["t"])
    span = window_from(nb, t_from)
    if span is None:
        return None
    at = [s for s in samples if s["t"] <= t_from + 1e-9]
    moves = sum(t["nr_migrations_kernel"] for t in tasks) - (sum(at[-1]["kmigr"]) if at else 0)
    return moves / len(tasks) / span


def analyse_run(r, best_cache):
    nb = r["nb"]
    tasks = nb["tasks"]
    nice = [t["nice"] for t in tasks]
    weights = [t["weight"] for t in tasks]
    cpus = r["cpus"] or nb.get("cpus")
    ideal = P.waterfill(weights, cpus)
    key = (tuple(weights), cpus)
    if key not in best_cache:
        best_cache[key] = P.best_static(weights, cpus)
    best, best_pl, exact = best_cache[key]
    end = [BR.task_end_cpu(t) for t in tasks]
    place = P.max_rel_err(P.placement_shares(weights, end), ideal)
    conv, migr = BR.convergence({"samples": nb.get("samples"), "tasks": tasks,
                                 "window_s": nb.get("window_s"), "duration_s": nb.get("duration_s")})
    migr_lowered, migr_other = migr_effect(nb, weights, ideal, conv)
    migr_placed = migr_after_placement(nb, weights, ideal, conv)
    quiet = last_move(nb)
    tail, tail_cpu = tail_migrations(nb)
    tail_err = (P.max_rel_err(P.placement_shares(weights, tail_cpu), ideal)
                if tail and tail_cpu else None)
    r.update(tail_migr_rate=tail, tail_err_before=tail_err,nice=nice, weights=weights, end=end, err=nb["summary"]["max_rel_err"],
             place_err=place, best=best, best_exact=exact, best_placement=best_pl,
             gap=place - best, conv_s=conv, migr_rate=migr,
             migr_lowered=migr_lowered, migr_other=migr_other, migr_placed=migr_placed,
             quiet_s=quiet if quiet is not None else nb.get("window_s"),
             stable_imbalance=(r["mode"] != "cfs" and place - best > GAP and
                               (quiet is None or quiet >= 1.0)))
    return r


def reduce(nice, placement, cpus, smpnice=True, exact=False):
    """A minimal reproducer of a stable imbalance under 2.6.18's arithmetic
    (flat machine): take tasks away (and the CPUs they leave empty) while
    every CPU's decision stays "balanced" and the placement stays more than
    GAP worse than the best static placement of what is left. Returns
    (nice levels by CPU, [the rule that keeps the least loaded CPU from
    pulling]), or (None, None) if the model does not find the placement
    stable."""
    def bad(nc, pl, c):
        w = [P.o1_weight(x) for x in nc]
        if len(set(pl)) < 2 and c < 2:
            return False
        if exact:
            if P.flat_exact_moves(w, pl, c):
                return False
        elif any(d[2] for d in P.flat_decisions(w, pl, c, smpnice)):
            return False
        ideal = P.waterfill(w, c)
        return P.max_rel_err(P.placement_shares(w, pl), ideal) - P.best_static(w, c)[0] > GAP

    nc, pl, c = list(nice), list(placement), cpus
    if not bad(nc, pl, c):
        return None, None
    changed = True
    while changed:
        changed = False
        for i in range(len(nc)):
            n2, p2 = nc[:i] + nc[i + 1:], pl[:i] + pl[i + 1:]
            used = sorted(set(p2))
            # an emptied CPU goes too: renumber the CPUs left
            c2 = c - (len(set(pl)) - len(used))
            ren = {old: k for k, old in enumerate(sorted(set(p2)))}
            p3 = [ren[x] for x in p2]
            if c2 >= 2 and n2 and bad(n2, p3, max(c2, len(used))):
                nc, pl, c, changed = n2, p3, max(c2, len(used)), True
                break
    w = [P.o1_weight(x) for x in nc]
    by_cpu = [[nc[i] for i in range(len(nc)) if pl[i] == k] for k in range(c)]
    if exact:
        return by_cpu, ["sched_smpnice=2: neither a move nor a swap of two tasks narrows a gap"]
    # the rule that keeps the least loaded CPU from pulling
    load = [sum(P.SCALE if not smpnice else w[i] for i in range(len(nc)) if pl[i] == k)
            for k in range(c)]
    this = min(range(c), key=lambda k: load[k])
    rule = next(d[3] for d in P.flat_decisions(w, pl, c, smpnice) if d[0] == this)
    return by_cpu, [f"CPU {this}: {rule}"]


def pct(a, q):
    a = sorted(a)
    if not a:
        return None
    k = min(len(a) - 1, max(0, int(round(q * (len(a) - 1)))))
    return a[k]


def paired(runs, mode, ref="smpnice", key="migr_rate"):
    """Seeds where @mode migrates more / as much / less after convergence
    (@key: or after the placement settles) than @ref on the same scenario
    (None for @ref itself). The means of a few hundred runs are carried by
    a few of them; the pairs say how often one mode moves more than the
    other."""
    if mode == ref:
        return None
    by = {(r["seed"], r["mode"]): r.get(key) for r in runs if r["status"] == 0}
    more = same = fewer = 0
    for (seed, m), v in by.items():
        w = by.get((seed, ref))
        if m != mode or v is None or w is None:
            continue
        if v > w + 1e-9:
            more += 1
        elif v < w - 1e-9:
            fewer += 1
        else:
            same += 1
    return {"more": more, "same": same, "fewer": fewer}


def by_ref_outcome(runs, mode, ref="smpnice", key="migr_rate"):
    """Mean migrations after convergence (@key: or after the placement
    settles) of @mode over the seeds where @ref ends within GAP of the
    best placement, and over those where it does not: a mode that mends
    what @ref leaves must move there, where @ref moves nothing, so the
    means over all seeds mix two questions.
    Returns {"good": (n, mean), "off": (n, mean)}; None without @ref."""
    ref_gap = {r["seed"]: r["gap"] for r in runs
               if r["mode"] == ref and r["status"] == 0}
    if not ref_gap:
        return None
    out = {}
    for part, good in (("good", True), ("off", False)):
        v = [r[key] for r in runs
             if r["mode"] == mode and r["status"] == 0 and r["seed"] in ref_gap
             and r[key] is not None  # as migr_mean: not converged
             and (ref_gap[r["seed"]] <= GAP) == good]
        out[part] = (len(v), statistics.fmean(v) if v else None)
    return out


def mean_of(rs, key):
    vals = [r[key] for r in rs if r.get(key) is not None]
    return statistics.fmean(vals) if vals else None


def summarise(runs):
    out = []
    for mode in MODES:
        rs = [r for r in runs if r["mode"] == mode and r["status"] == 0]
        if not rs:
            continue
        gaps = [r["gap"] for r in rs]
        meas = [r["err"] - r["best"] for r in rs]
        migr = [r["migr_rate"] for r in rs if r["migr_rate"] is not None]
        out.append({
            "mode": mode, "scenarios": len(rs),
            "failed": sum(1 for r in runs if r["mode"] == mode and r["status"] != 0),
            "within_gap_placement": sum(1 for g in gaps if g <= GAP) / len(rs),
            "within_gap_measured": sum(1 for g in meas if g <= GAP) / len(rs),
            "gap_median": statistics.median(gaps), "gap_p95": pct(gaps, 0.95), "gap_max": max(gaps),
            "err_median": statistics.median(r["err"] for r in rs),
            "migr_mean": statistics.fmean(migr) if migr else None,
            "migr_p95": pct(migr, 0.95), "migr_max": max(migr) if migr else None,
            "migr_vs_smpnice": paired(runs, mode),
            "migr_by_smpnice": by_ref_outcome(runs, mode),
            # after the placement settles: no new low of its error to come
            "migr_placed_mean": mean_of(rs, "migr_placed"),
            "migr_placed_vs_smpnice": paired(runs, mode, key="migr_placed"),
            "migr_placed_by_smpnice": by_ref_outcome(runs, mode, key="migr_placed"),
            # of the migrations after convergence, those that did not lower
            # the placement error (a balancer still converging lowers it)
            "migr_other_mean": mean_of(rs, "migr_other"),
            "migr_lowered_mean": mean_of(rs, "migr_lowered"),
            "stable_imbalances": sum(1 for r in rs if r["stable_imbalance"]),
            # the last 2 s: the rate, the runs that move there, and of
            # those whether the placement error fell, stayed or rose
            "tail_migr_mean": statistics.fmean(r.get("tail_migr_rate") or 0 for r in rs),
            "tail_moving": sum(1 for r in rs if r.get("tail_migr_rate")),
            "tail_better": sum(1 for r in rs if r.get("tail_err_before") is not None and
                               r["place_err"] < r["tail_err_before"] - 1e-9),
            "tail_worse": sum(1 for r in rs if r.get("tail_err_before") is not None and
                              r["place_err"] > r["tail_err_before"] + 1e-9),
        })
    return out


def md_table(head, rows):
    return BR.md_table(head, rows)


def f1(x, scale=100.0, d=1):
    return "-" if x is None else f"{x * scale:.{d}f}"


def report_md(seeds, summary, imbalances):
    out = [f"### Placement study: {len(seeds)} seeds ({min(seeds)}-{max(seeds)})\n\n"]
    rows = [[MODE_LABEL.get(s["mode"], s["mode"]), str(s["scenarios"]) + (f" ({s['failed']} failed)" if s["failed"] else ""),
             f1(s["within_gap_placement"], 100, 0) + " %", f1(s["within_gap_measured"], 100, 0) + " %",
             f1(s["gap_median"]), f1(s["gap_p95"]), f1(s["gap_max"]),
             f1(s["migr_mean"], 1, 3), f1(s["migr_p95"], 1, 3),
             f1(s.get("migr_other_mean"), 1, 4),
             ("{more} / {same} / {fewer}".format(**s["migr_vs_smpnice"]) if s.get("migr_vs_smpnice") else "-"),
             str(s["stable_imbalances"]),
             f1(s.get("tail_migr_mean"), 1, 4),
             f"{s.get('tail_moving', 0)} ({s.get('tail_better', 0)} better, {s.get('tail_worse', 0)} worse)"]
            for s in summary]
    out.append(md_table(["mode", "scenarios", "placement within 5 pts of best", "measured within 5 pts",
                         "gap median (pts)", "gap p95", "gap max", "migr/task/s mean", "migr p95",
                         "of which not lowering the placement error",
                         "seeds migrating more / same / less than 2.6.18",
                         "stable imbalances", "migr/task/s last 2 s",
                         "runs moving there (placement error after)"], rows))
    rows = [[MODE_LABEL.get(s["mode"], s["mode"])] +
            [f"{f1(s['migr_by_smpnice'][k][1], 1, 4)} ({s['migr_by_smpnice'][k][0]})"
             for k in ("good", "off")]
            for s in summary if s.get("migr_by_smpnice")]
    if rows:
        out.append("\nMigrations per task per s after convergence, by 2.6.18's outcome on the same seed "
                   "(scenarios in brackets):\n\n")
        out.append(md_table(["mode", "where 2.6.18 ends within 5 pts of the best",
                             "where it does not"], rows))
    rows = [[MODE_LABEL.get(s["mode"], s["mode"]), f1(s["migr_placed_mean"], 1, 4),
             ("{more} / {same} / {fewer}".format(**s["migr_placed_vs_smpnice"])
              if s.get("migr_placed_vs_smpnice") else "-")] +
            [f"{f1(s['migr_placed_by_smpnice'][k][1], 1, 4)} ({s['migr_placed_by_smpnice'][k][0]})"
             for k in ("good", "off")]
            for s in summary if s.get("migr_placed_mean") is not None and s.get("migr_placed_by_smpnice")]
    if rows:
        out.append("\nMigrations per task per s after the placement settles (the later of convergence "
                   "and the last sample whose placement error set a new low by more than half a point; "
                   "a move and its undoing both count):\n\n")
        out.append(md_table(["mode", "mean", "seeds migrating more / same / less than 2.6.18",
                             "where 2.6.18 ends within 5 pts of the best", "where it does not"], rows))
    if imbalances:
        out.append("\n### Stable imbalances and their minimal reproducers (flat: 2.6.17/18's arithmetic, "
                   "or sched_smpnice=2's rule)\n\n")
        rows = []
        for x in imbalances:
            rows.append([str(x["seed"]), x["topo"], x["mode"], f1(x["place_err"]), f1(x["best"]),
                         " / ".join("{" + ",".join(map(str, c)) + "}" for c in x["by_cpu"]),
                         (" / ".join("{" + ",".join(map(str, c)) + "}" for c in x["reproducer"])
                          if x["reproducer"] else "-"),
                         "; ".join(x["rules"] or ["-"])])
        out.append(md_table(["seed", "topology", "mode", "place err %", "best %", "final placement (nice by CPU)",
                             "minimal reproducer", "rule that accepts it"], rows))
    return "".join(out)


def write_plots(outdir, runs):
    pdir = os.path.join(outdir, "plots")
    os.makedirs(pdir, exist_ok=True)
    modes = [m for m in MODES if any(r["mode"] == m and r["status"] == 0 for r in runs)]
    with open(os.path.join(pdir, "gap.dat"), "w") as f:
        f.write("# rank " + " ".join(modes) + "  (gap to the best static placement, points, sorted)\n")
        cols = [sorted(100 * r["gap"] for r in runs if r["mode"] == m and r["status"] == 0) for m in modes]
        for k in range(max(len(c) for c in cols) if cols else 0):
            f.write(f"{k} " + " ".join(f"{c[k]:.2f}" if k < len(c) else "?" for c in cols) + "\n")
    with open(os.path.join(pdir, "migr.dat"), "w") as f:
        f.write("# rank " + " ".join(modes) + "  (migrations per task per s after convergence, sorted)\n")
        cols = [sorted(r["migr_rate"] for r in runs if r["mode"] == m and r["status"] == 0
                       and r["migr_rate"] is not None) for m in modes]
        for k in range(max(len(c) for c in cols) if cols else 0):
            f.write(f"{k} " + " ".join(f"{c[k]:.4f}" if k < len(c) else "?" for c in cols) + "\n")
    scripts = {}
    for name, dat, ylabel in (("gap", "gap.dat", "final placement error - best static (points)"),
                              ("migrations", "migr.dat", "migrations per task per s after convergence")):
        lines = ", ".join(f"'{dat}' using 1:{k + 2} with steps lw 2 title '{MODE_LABEL[m]}'"
                          for k, m in enumerate(modes))
        scripts[name] = f"""set terminal pngcairo size 900,450
set output '{name}.png'
set title 'placement study: {ylabel}, scenarios sorted per mode' noenhanced
set xlabel 'scenarios (sorted)'
set ylabel '{ylabel}' noenhanced
{"set yrange [0:100]  # count mode's gaps run to hundreds of points" if name == "gap" else ""}
set grid
set key top left noenhanced
set datafile missing '?'
plot {lines}
"""
    return BR.run_gnuplot(pdir, scripts)


def cmd_report(args):
    plots = True
    if args and args[0] == "--no-plots":
        plots, args = False, args[1:]
    if len(args) < 2:
        usage("report: need OUTDIR and at least one raw directory")
    outdir, dirs = args[0], args[1:]
    runs = []
    for d in dirs:
        if os.path.isdir(d) and not os.path.isfile(os.path.join(d, "index.tsv")) and len(dirs) > 1:
            print(f"# {d}: no index.tsv (no scenario of this topology), left out")
            continue
        runs += read_runs(d)
    best_cache = {}
    for r in runs:
        if r["status"] == 0:
            analyse_run(r, best_cache)
    imbalances = []
    for r in runs:
        if r["status"] != 0 or not r["stable_imbalance"]:
            continue
        cpus = r["cpus"]
        by_cpu = [[r["nice"][i] for i in range(len(r["nice"])) if r["end"][i] == k] for k in range(cpus)]
        rep, rules = (None, None)
        if r["topo"].startswith("flat"):
            rep, rules = reduce(r["nice"], r["end"], cpus, r["mode"] != "count",
                                r["mode"] == "smpnice2")
        imbalances.append({"seed": r["seed"], "topo": r["topo"], "mode": r["mode"],
                           "place_err": r["place_err"], "best": r["best"], "by_cpu": by_cpu,
                           "reproducer": rep, "rules": rules})
    summary = summarise(runs)
    seeds = sorted({r["seed"] for r in runs})
    md = report_md(seeds, summary, imbalances)
    os.makedirs(outdir, exist_ok=True)
    slim = [{k: v for k, v in r.items() if k != "nb"} for r in runs]
    with open(os.path.join(outdir, "study.json"), "w") as f:
        json.dump({"seeds": seeds, "summary": summary, "imbalances": imbalances, "runs": slim}, f, indent=1)
    with open(os.path.join(outdir, "study.md"), "w") as f:
        f.write(md)
    print(md)
    if plots:
        made = write_plots(outdir, runs)
        if made:
            print(f"# plots: {', '.join(made)} in {os.path.join(outdir, 'plots')}")
    print(f"# results: {os.path.join(outdir, 'study.json')}, {os.path.join(outdir, 'study.md')}")
    return 0


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    if argv[1] == "gen":
        return cmd_gen(argv[2:])
    if argv[1] == "report":
        return cmd_report(argv[2:])
    usage(f"unknown command '{argv[1]}'")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

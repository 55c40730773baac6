#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge the runs of scripts/runner.sh and summarise a results directory.

Usage: report.py judge RUN-DIR         verdict of one scenario's run
       report.py explain RUN-DIR       what a failed run said
       report.py summary [--rejudge] RESULTS-DIR

A run directory holds: scenario (its line of tests/scenarios), cmd,
output.log, exit-status, seconds, and for guest runs console-*.log and
out-*/. judge writes verdict (one line), verdict.json and verdict.retryable
(yes: its tests failed, no splat, no hang; the runner may try once more).
summary writes RESULTS-DIR/summary.md; --rejudge judges every run again
first (runner.sh --recheck). Exit status: 1 if a run failed.
"""
import glob
import json
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TREE = os.environ.get("TREE", os.path.join(TOP, "build", "linux"))

VM_STATUS = {
    124: "the guest timed out (hang?)",
    125: "the guest reported no exit status (boot failure or panic)",
    126: "kernel splat on the console",
}


def read(path, default=""):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return default


def scenario(run):
    f = read(os.path.join(run, "scenario")).rstrip("\n").split("|", 6)
    keys = ("name", "sets", "flavour", "vm", "judge", "retry", "command")
    return dict(zip(keys, f + [""] * (7 - len(f))))


def consoles(run):
    return sorted(p for p in glob.glob(os.path.join(run, "console-*.log"))
                  if not re.search(r"\.boot\d+$", p))


def splats(run):
    """Splat lines of the run's consoles, as scripts/check-console.sh finds them."""
    found = []
    for log in consoles(run):
        r = subprocess.run([os.path.join(TOP, "scripts", "check-console.sh"), log],
                           capture_output=True, text=True)
        found += [os.path.basename(log) + ": " + l for l in r.stdout.splitlines() if l]
    return found


def tap_counts(text):
    ok = len(re.findall(r"^ok ", text, re.M))
    nok = len(re.findall(r"^not ok ", text, re.M))
    return ok, nok


def out_dir(run, sc):
    return os.path.join(run, "out-" + sc["name"])


def judge_exit(run, sc, rc, out):
    ok, nok = tap_counts(out)
    if rc == 77:
        last = out.strip().splitlines()[-1:] or ["no reason given"]
        return "SKIP", last[0], ok, nok
    if rc == 0 and nok == 0:
        return "PASS", "", ok, nok
    return "FAIL", "%d of %d checks failed" % (nok, ok + nok) if nok else "exit %d" % rc, ok, nok


def judge_kselftest(run, sc, rc, out):
    tap = read(os.path.join(out_dir(run, sc), "kselftest.tap"))
    lines = re.findall(r"^(not ok|ok) \d+ selftests: (\S+): (\S+)(.*)$", tap, re.M)
    passed = sum(1 for r, _, _, rest in lines if r == "ok" and "# SKIP" not in rest)
    skipped = sum(1 for r, _, _, rest in lines if r == "ok" and "# SKIP" in rest)
    failed = [t for r, _, t, _ in lines if r == "not ok"]
    note = "kselftest: %d passed, %d failed, %d skipped" % (passed, len(failed), skipped)
    if not lines:
        return "FAIL", "no kselftest result (exit %d)" % rc, 0, 1
    if failed or rc != 0:
        return "FAIL", note + (": " + ", ".join(failed) if failed else ""), passed, max(1, len(failed))
    if passed == 0:
        return "SKIP", note, 0, 0
    return "PASS", note, passed, 0


def judge_kunit(run, sc, rc, out):
    logs = consoles(run)
    text = read(logs[0]) if logs else ""
    if rc != 0:
        return "FAIL", "exit %d" % rc, 0, 1
    if "KTAP version" not in text:
        return "FAIL", "no KTAP output on the console (CONFIG_KUNIT=y with a suite?)", 0, 1
    r = subprocess.run([sys.executable, os.path.join(TREE, "tools/testing/kunit/kunit.py"),
                        "parse", logs[0]], capture_output=True, text=True)
    res = re.sub(r"\x1b\[[0-9;]*m", "", r.stdout + r.stderr)
    with open(os.path.join(run, "kunit.txt"), "w") as f:
        f.write(res)
    ok = len(re.findall(r"\[PASSED\]", res))
    bad = len(re.findall(r"\[(FAILED|CRASHED)\]", res))
    if "sched_o1" not in res:
        return "FAIL", "the sched_o1 suite did not run", ok, 1
    m = re.search(r"Testing complete\..*", res)
    note = m.group(0) if m else ""
    if r.returncode != 0 or bad:
        return "FAIL", note or "kunit.py parse exit %d" % r.returncode, ok, max(1, bad)
    return "PASS", note, ok, 0


def judge_torture(run, sc, rc, out):
    j = os.path.join(out_dir(run, sc), "torture.json")
    note = ""
    try:
        d = json.load(open(j))
        t, h, b = d["totals"], d["hotplug_stats"], d["balance"]
        note = ("%s: %d workers, %d CPUs, %.0f s: %d ops, %d policy switches, %d nice, "
                "%d affinity, %d forks, %d PI, %d smpnice flips, %d all flips, %d hotplug cycles, "
                "%d migrations, balancer moved %d"
                % (d["result"], d["workers"], d["cpus"], d["elapsed_s"], t["ops"],
                   t["policy_switches"], t["nice"], t["affinity_subset"] + t["affinity_all"],
                   t["forks"] + t["grandchildren"], t["pi_locked"], t["smpnice_flips"],
                   t.get("all_flips", 0), h["cycles"], t["migrations"], b["moved"] + b["active_moved"]))
        fails = d.get("failures", [])
    except (OSError, ValueError, KeyError):
        fails = []
    if rc == 0:
        return "PASS", note, 1, 0
    if rc == 4:
        return "FAIL", "sched_o1_torture skipped: no SCHED_O1 in the kernel, or not root", 0, 1
    return "FAIL", "; ".join(["exit %d" % rc] + fails[:3]) + ("; " + note if note else ""), 0, 1


def judge_stress_ng(run, sc, rc, out):
    ops, cur = {}, None
    for line in read(os.path.join(out_dir(run, sc), "stress-ng.yaml")).splitlines():
        m = re.match(r"\s*-\s*stressor:\s*(\S+)", line)
        if m:
            cur = m.group(1)
        m = re.match(r"\s*bogo-ops:\s*(\d+)", line)
        if m and cur:
            ops[cur] = int(m.group(1))
    resc = read(os.path.join(out_dir(run, sc), "rescues")).split()
    note = "bogo ops " + ", ".join("%s %d" % kv for kv in ops.items()) if ops else "no metrics"
    if resc:
        note += "; O1 rescues %d" % sum(int(x) for x in resc if x.isdigit())
    if rc == 0 and ops:
        return "PASS", note, 1, 0
    return "FAIL", "exit %d; %s" % (rc, note), 0, 1


def judge_bench(run, sc, rc, out):
    index = read(os.path.join(out_dir(run, sc), "index.tsv")).splitlines()
    bad = [l.split("\t")[1:4] for l in index if len(l.split("\t")) > 4 and l.split("\t")[4] != "0"]
    note = "%d runs, %d failed" % (len(index), len(bad))
    if rc == 0 and index and not bad:
        return "PASS", note, len(index), 0
    return "FAIL", "exit %d; %s" % (rc, note), len(index) - len(bad), max(1, len(bad))


JUDGES = {"exit": judge_exit, "bench": judge_bench, "kselftest": judge_kselftest, "kunit": judge_kunit,
          "torture": judge_torture, "stress-ng": judge_stress_ng}


def judge(run):
    sc = scenario(run)
    try:
        rc = int(read(os.path.join(run, "exit-status"), "125").strip() or 125)
    except ValueError:
        rc = 125
    out = read(os.path.join(run, "output.log"))
    secs = read(os.path.join(run, "seconds"), "?").strip()
    guest = sc["flavour"] != "host"
    found = splats(run) if guest else []
    not_run = read(os.path.join(run, "not-run")).strip()
    if not_run:
        status, note, ok, nok = "FAIL", "not run: " + not_run, 0, 1
    elif guest and rc in VM_STATUS and sc["judge"] != "exit":
        status, note, ok, nok = "FAIL", VM_STATUS[rc], 0, 1
    else:
        status, note, ok, nok = JUDGES.get(sc["judge"], judge_exit)(run, sc, rc, out)
        if guest and rc in VM_STATUS:
            status, note = "FAIL", VM_STATUS[rc] + ("; " + note if note else "")
    if found and "--allow-splat" in sc["vm"].split():
        note += ("; " if note else "") + "%d splat lines (allowed): %s" % (len(found), found[0])
    elif found:
        status, note, nok = "FAIL", "kernel splat: " + found[0], max(nok, 1)
    retried = read(os.path.join(run, "retried")).strip()
    vm = read(os.path.join(run, "vm")).strip() or sc["vm"]  # as expanded for the run
    v = {"name": sc["name"], "flavour": sc["flavour"], "vm": vm, "judge": sc["judge"],
         "status": status, "note": note, "passed": ok, "failed": nok, "exit": rc,
         "seconds": secs, "retried": retried, "splats": found[:10]}
    checks = ", %d checks" % ok if ok > 1 or sc["judge"] == "exit" and ok else ""
    word = {"PASS": "ok", "FAIL": "FAIL", "SKIP": "SKIP"}[status]
    line = "%s (%ss%s%s)%s" % (word, secs, checks,
                                ", on the second try; first: %s" % retried if retried else "",
                                ": " + note if note and status != "PASS" else "")
    # Tests failed (exit 1, or a kselftest run whose TAP failed with exit 0),
    # not a splat, a hang (124), a lost boot (125) or a splat exit (126).
    retryable = status == "FAIL" and not found and rc in (0, 1)
    with open(os.path.join(run, "verdict"), "w") as f:
        f.write(line + "\n")
    with open(os.path.join(run, "verdict.json"), "w") as f:
        json.dump(v, f, indent=1)
    with open(os.path.join(run, "verdict.retryable"), "w") as f:
        f.write("yes\n" if retryable else "no\n")
    return v, line


def explain(run):
    """What a failed run said: its failed checks and the end of its output."""
    sc = scenario(run)
    out = read(os.path.join(run, "output.log"))
    lines = [l for l in out.splitlines() if l.startswith("not ok ")][:10]
    if sc["judge"] == "kselftest":
        tap = read(os.path.join(out_dir(run, sc), "kselftest.tap"))
        for m in re.finditer(r"^not ok \d+ selftests: \S+: (\S+)", tap, re.M):
            lines += failed_cases(os.path.join(out_dir(run, sc), "logs", m.group(1)))
    lines += ["| " + l for l in out.splitlines()[-15:]]
    v = json.loads(read(os.path.join(run, "verdict.json"), "{}") or "{}")
    lines += ["splat: " + s for s in v.get("splats", [])]
    print("\n".join(lines))


def failed_cases(log):
    """Of a kselftest harness log, the lines of each failed case (of a long
    case its first 3 and last 45), without counters that show nothing moved."""
    res, buf = [], []
    quiet = re.compile(r" imb 0 moved 0 failed 0 pinned 0 active 0$|: active_moved 0 kicks 0$")
    for l in read(log).splitlines():
        if l.startswith("# #  RUN "):
            buf = []
        if quiet.search(l):
            continue
        buf.append(l)
        if l.startswith("# not ok "):
            n = len(buf)
            if n > 48:
                buf = buf[:3] + ["# [... %d lines cut ...]" % (n - 48)] + buf[-45:]
            res += ["--- " + os.path.basename(log)] + buf
            buf = []
        elif l.startswith("# ok "):
            buf = []
    return res


def config_of(flavour):
    c = read(os.path.join(TOP, "build", "obj", flavour, ".config"))
    if not c:
        return "?"
    on = lambda o: re.search(r"^CONFIG_%s=y$" % o, c, re.M) is not None
    s = ["SMP" if on("SMP") else "UP"]
    s += [p for p in ("PREEMPT_NONE", "PREEMPT_VOLUNTARY", "PREEMPT", "PREEMPT_DYNAMIC") if on(p)]
    m = re.search(r"^CONFIG_HZ=(\d+)$", c, re.M)
    s.append("HZ=" + (m.group(1) if m else "?"))
    s += [p for p in ("NO_HZ_IDLE", "HZ_PERIODIC", "NO_HZ_FULL") if on(p)]
    s.append("O1=y" if on("SCHED_CLASS_O1") else "O1=n")
    if on("PROVE_LOCKING"):
        s.append("+lockdep")
    if on("KASAN"):
        s.append("+KASAN")
    return " ".join(s)


def summary(rdir, rejudge):
    runs = [d for d in glob.glob(os.path.join(rdir, "*")) if os.path.isfile(os.path.join(d, "scenario"))]
    runs.sort(key=lambda d: os.path.getmtime(os.path.join(d, "scenario")))
    rows, failed, retried = [], [], []
    passed = nfailed = skipped = 0
    for run in runs:
        if rejudge or not os.path.exists(os.path.join(run, "verdict.json")):
            v, _ = judge(run)
        else:
            v = json.load(open(os.path.join(run, "verdict.json")))
        if os.path.basename(run).endswith(".try1"):
            continue
        if v["status"] == "SKIP":
            skipped += 1
        elif v["status"] == "PASS":
            passed += v["passed"] or 1
        else:
            passed += v["passed"]
            nfailed += v["failed"] or 1
            failed.append(v["name"])
        if v["retried"]:
            retried.append(v["name"])
        rows.append(v)
    builds = [l.split("|") for l in read(os.path.join(rdir, "builds.txt")).splitlines() if l]
    md = ["# Results: %s" % os.path.basename(rdir), ""]
    md += ["`%s`" % l for l in read(os.path.join(rdir, "run.txt")).splitlines()] + [""]
    if builds:
        md += ["| kernel | .config | build |", "| --- | --- | --- |"]
        md += ["| %s | %s | %s, %s s |" % (b[0], config_of(b[0]), b[1], b[2]) for b in builds] + [""]
    md += ["| scenario | kernel | vm | result | checks | s | notes |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for v in rows:
        res = v["status"] + (" (second try)" if v["retried"] else "")
        md.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            v["name"], v["flavour"], v["vm"].replace("|", "/") if v["vm"] != "-" else "",
            res, "%d/%d" % (v["passed"], v["passed"] + v["failed"]), v["seconds"],
            v["note"].replace("|", "/")))
    md.append("")
    if failed:
        md.append("failed: " + " ".join(failed))
    if retried:
        md.append("retried once (timing under emulation): " + " ".join(retried))
    md.append("%d passed, %d failed, %d skipped" % (passed, nfailed, skipped))
    with open(os.path.join(rdir, "summary.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    if rejudge:
        for v in rows:
            line = read(os.path.join(rdir, v["name"], "verdict")).strip()
            print("%-24s %s" % (v["name"], line))
    if failed:
        print("failed: " + " ".join(failed))
    if retried:
        print("retried once (timing under emulation): " + " ".join(retried))
    print("%d passed, %d failed, %d skipped (%s)" % (
        passed, nfailed, skipped, os.path.relpath(os.path.join(rdir, "summary.md"), TOP)))
    return 1 if failed or not rows else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "judge":
        v, line = judge(argv[2])
        print(line)
        return 0
    if len(argv) == 3 and argv[1] == "explain":
        explain(argv[2])
        return 0
    if len(argv) in (3, 4) and argv[1] == "summary":
        rejudge = "--rejudge" in argv
        rdir = [a for a in argv[2:] if a != "--rejudge"]
        if len(rdir) == 1 and os.path.isdir(rdir[0]):
            return summary(rdir[0], rejudge)
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

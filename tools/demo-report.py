#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Combine nicebench JSON runs of one scenario into a side-by-side table
(text and Markdown) and a gnuplot bar chart of the shares.

Usage: demo-report.py [--show-as DIR] OUTDIR LABEL=FILE.json [LABEL=FILE.json ...]
Writes OUTDIR/demo.md, OUTDIR/demo.dat, OUTDIR/demo.gp and, if gnuplot is
installed, OUTDIR/demo.png; prints the text table and the paths of the
table and the plot.

  --show-as DIR  print the paths under DIR instead of OUTDIR (a stable
                 link to OUTDIR, e.g. build/demo, that the caller makes)
"""
import json
import os
import shutil
import subprocess
import sys


def usage(msg):
    print(f"demo-report.py: {msg}\n{__doc__}", file=sys.stderr)
    sys.exit(2)


def gp_str(text):
    """text as a gnuplot single-quoted string (a quote doubled)."""
    return "'" + text.replace("'", "''") + "'"


def main(argv):
    args = argv[1:]
    show_as = None
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--help":
            print(__doc__.strip())
            return
        if opt == "--show-as":
            show_as = args.pop(0) if args else ""
        elif opt.startswith("--show-as="):
            show_as = opt.split("=", 1)[1]
        else:
            usage(f"unknown option '{opt}'")
        if not show_as:
            usage("--show-as needs a directory")
    if len(args) < 2:
        usage("need OUTDIR and at least one LABEL=FILE.json")
    outdir = args[0]
    shown = show_as if show_as else outdir
    runs = []
    for arg in args[1:]:
        if "=" not in arg:
            usage(f"'{arg}' is not LABEL=FILE.json")
        label, path = arg.split("=", 1)
        try:
            with open(path) as f:
                runs.append((label, json.load(f)))
        except (OSError, ValueError) as e:
            usage(f"cannot read {path}: {e}")
    ntasks = {len(r["tasks"]) for _, r in runs}
    if len(ntasks) != 1:
        usage("the runs have different task counts")
    n = ntasks.pop()
    os.makedirs(outdir, exist_ok=True)

    head = ["task", "nice"]
    for label, _ in runs:
        head += [f"{label} share%", "ideal%", "migr"]
    rows = []
    for i in range(n):
        row = [str(i), str(runs[0][1]["tasks"][i]["nice"])]
        for _, r in runs:
            t = r["tasks"][i]
            row += [f"{100 * t['share']:.1f}", f"{100 * t['ideal']:.1f}",
                    str(t["migrations"])]
        rows.append(row)
    summary = ["ratio nice0/nice19", ""]
    for _, r in runs:
        ratio = r.get("summary", {}).get("ratio_nice0_nice19")
        summary += [f"{ratio:.1f}" if ratio else "-", "", ""]
    rows.append(summary)

    widths = [max(len(x) for x in col) for col in zip(head, *rows)]
    line = lambda cells: "  ".join(c.rjust(w) for c, w in zip(cells, widths))
    print(line(head))
    for row in rows:
        print(line(row))

    with open(os.path.join(outdir, "demo.md"), "w") as f:
        f.write("| " + " | ".join(head) + " |\n")
        f.write("|" + "---|" * len(head) + "\n")
        for row in rows:
            f.write("| " + " | ".join(row) + " |\n")

    with open(os.path.join(outdir, "demo.dat"), "w") as f:
        f.write("# task " + " ".join(label.replace(" ", "_") for label, _ in runs) + "\n")
        for i in range(n):
            nice = runs[0][1]["tasks"][i]["nice"]
            f.write(f'"{i} (nice {nice})" ' +
                    " ".join(f"{100 * r['tasks'][i]['share']:.2f}" for _, r in runs) + "\n")
    # noenhanced keys and tics: "sched_smpnice 2" is no subscript
    cols = " , ".join(f"'demo.dat' using {k + 2}:xtic(1) title {gp_str(label)}"
                      for k, (label, _) in enumerate(runs))
    with open(os.path.join(outdir, "demo.gp"), "w") as f:
        f.write(f"""set terminal pngcairo size 900,500
set output 'demo.png'
set title 'CPU share per task, 2 CPUs, start {{0,0}} / {{19,19}}' noenhanced
set ylabel 'share of one CPU (%)'
set yrange [0:110]
set style data histograms
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set key top right noenhanced
set xtics noenhanced
set grid ytics
plot {cols}
""")
    if shutil.which("gnuplot"):
        subprocess.run(["gnuplot", "demo.gp"], cwd=outdir, check=False)
        if os.path.exists(os.path.join(outdir, "demo.png")):
            print(f"# plot: {os.path.join(shown, 'demo.png')}")
    print(f"# table: {os.path.join(shown, 'demo.md')}")


if __name__ == "__main__":
    main(sys.argv)

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What the unused SCHED_O1 class costs: the perf bench numbers of the
class-cost scenarios (out-class-cost-{default,o1off}-N/raw.txt of a results
directory), medians, spread and the ratio default / o1off.

Usage: class-cost-report.py RESULTS-DIR   (writes RESULTS-DIR/class-cost.md)
"""
import glob
import os
import statistics
import sys


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        sys.stderr.write(__doc__)
        return 2
    rdir = argv[1]
    data, boots = {}, {"default": 0, "o1off": 0}
    for k in boots:
        for raw in sorted(glob.glob(os.path.join(rdir, "class-cost-%s-*" % k, "out-*", "raw.txt"))):
            boots[k] += 1
            for line in open(raw):
                bench, val = line.split()
                data.setdefault(bench, {}).setdefault(k, []).append(float(val))
    if not all(boots.values()):
        sys.stderr.write("class-cost-report.py: no runs of both kernels in %s\n" % rdir)
        return 1
    units = {"messaging": "s", "pipe": "us/round trip, one CPU"}
    rows = ["# Cost of the unused SCHED_O1 class (%d + %d boots, 2 CPUs, lower is better)"
            % (boots["default"], boots["o1off"]), "",
            "| benchmark | default: median (min-max) | o1off: median (min-max) | default / o1off |",
            "|---|---|---|---|"]
    for bench in ("messaging", "pipe"):
        d, o = data[bench]["default"], data[bench]["o1off"]
        md, mo = statistics.median(d), statistics.median(o)
        rows.append("| %s (%s) | %.3f (%.3f-%.3f) | %.3f (%.3f-%.3f) | %.3f |" % (
            bench, units[bench], md, min(d), max(d), mo, min(o), max(o), md / mo))
    with open(os.path.join(rdir, "class-cost.md"), "w") as f:
        f.write("\n".join(rows) + "\n")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

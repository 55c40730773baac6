# SPDX-License-Identifier: GPL-2.0
"""The placement model of the project's studies: weights of the O(1) class
and of CFS, the ideal (water-filled) shares of CPU hogs, the shares a
static placement gives, the best static placement, and 2.6.18's imbalance
arithmetic (o1_calc_imbalance() of kernel/sched/o1.c) on the loads of a
placement.

Only CPU hogs: a CPU splits its time among the hogs on it by weight (the
O(1) class's one-CPU shares: timeslices in proportion to the weights);
the ideal shares are the weights water-filled over all CPUs, none above
one CPU. Errors are relative: |share - ideal| / ideal.

Imported by tools/placement-study.py and tools/bench-report.py; tested by
tests/host/test-placement.sh.
"""

NICE_MIN, NICE_MAX = -20, 19
SCALE = 1024    # O1_LOAD_SCALE: the weight of a nice 0 task

# CFS sched_prio_to_weight[], nice -20..19
CFS_WEIGHT = [
    88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
    9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991, 1586, 1277,
    1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
    110, 87, 70, 56, 45, 36, 29, 23, 18, 15,
]


def o1_weight(nice):
    """The class's weight of a nice level: its timeslice (2.6's
    static_prio_timeslice(), 5..800 ms) in units of nice 0's 100 ms."""
    base = 100 if nice >= 0 else 400
    slice_ms = max(base * (20 - nice) // 20, 5)
    return slice_ms * SCALE // 100


def cfs_weight(nice):
    return CFS_WEIGHT[nice - NICE_MIN]


def waterfill(weights, cpus):
    """Ideal shares of hogs of `weights` on `cpus` CPUs: by weight, none
    above one CPU (a task that would get more gets one CPU, the rest is
    shared again)."""
    n = len(weights)
    ideal = [0.0] * n
    free = list(range(n))
    cap = float(min(cpus, n))
    while free:
        total = sum(weights[i] for i in free)
        over = [i for i in free if weights[i] * cap > total]
        if not over:
            for i in free:
                ideal[i] = weights[i] * cap / total
            break
        for i in over:
            ideal[i] = 1.0
            free.remove(i)
            cap -= 1.0
        if cap <= 0:
            break
    return ideal


def cpu_shares(weights):
    """Shares of the hogs of one CPU."""
    total = sum(weights)
    return [w / total for w in weights] if total else []


def placement_shares(weights, placement):
    """Shares of each task when task i stays on CPU placement[i]."""
    load = {}
    for w, c in zip(weights, placement):
        load[c] = load.get(c, 0) + w
    return [w / load[c] for w, c in zip(weights, placement)]


def max_rel_err(shares, ideal):
    return max((abs(s - i) / i for s, i in zip(shares, ideal) if i > 0), default=0.0)


def best_static(weights, cpus, budget=2000000):
    """The static placement of the hogs with the least maximum relative
    error against their ideal shares: (error, placement, exact). Only
    placements a balancer could keep count: none leaves a CPU idle while
    another has two tasks (an idle CPU would lower the error of tasks that
    get more than their ideal, by wasting a CPU). Exact branch and bound
    over the partitions of the tasks into min(tasks, CPUs) CPUs: the CPUs
    are interchangeable and so are tasks of equal weight,
    so a CPU's load is a sub-multiset of the weights left, taken with the
    heaviest task left; those are tried from the least error up, and a
    sub-problem (tasks left, CPUs left) is solved once. If it visits more
    than `budget` nodes it returns the best placement found with exact =
    False."""
    n = len(weights)
    if n == 0:
        return 0.0, [], True
    ideal = waterfill(weights, cpus)
    types = sorted(set(weights), reverse=True)
    tideal = [ideal[weights.index(w)] for w in types]
    counts = tuple(weights.count(w) for w in types)
    block_err = {}

    def err_of(comp):
        e = block_err.get(comp)
        if e is None:
            total = sum(c * w for c, w in zip(comp, types))
            e = max((abs(w / total - i) / i for c, w, i in zip(comp, types, tideal)
                     if c and i > 0), default=0.0)
            block_err[comp] = e
        return e

    def subcomps(rem, first):
        # the sub-multisets of rem with one task of type `first`, by error
        out = [()]
        for i, r in enumerate(rem):
            lo = 1 if i == first else 0
            out = [p + (c,) for p in out for c in range(lo, r + 1)]
        return sorted(out, key=err_of)

    exact, lower, choice = {}, {}, {}
    nodes = [0]

    def solve(rem, cpus_left, bound):
        """The least max error of placing `rem` on `cpus_left` CPUs if it
        is below `bound`, else None."""
        first = next((i for i, c in enumerate(rem) if c), None)
        if first is None:
            return 0.0 if cpus_left == 0 else None
        if cpus_left == 0 or sum(rem) < cpus_left:
            return None
        key = (rem, cpus_left)
        if key in exact:
            return exact[key] if exact[key] < bound else None
        if lower.get(key, -1.0) >= bound:
            return None
        nodes[0] += 1
        if nodes[0] > budget:
            return None
        cur, pick = bound, None
        for comp in subcomps(rem, first):
            e = err_of(comp)
            if e >= cur:
                break
            left = tuple(r - c for r, c in zip(rem, comp))
            if sum(left) < cpus_left - 1 or (cpus_left == 1 and any(left)):
                continue
            sub = solve(left, cpus_left - 1, cur)
            if sub is not None and max(e, sub) < cur:
                cur, pick = max(e, sub), comp
        if nodes[0] > budget:
            return cur if pick else None
        if pick is None:
            lower[key] = max(lower.get(key, -1.0), bound)
            return None
        exact[key], choice[key] = cur, pick
        return cur

    # A first bound: heaviest task to the least loaded CPU.
    order = sorted(range(n), key=lambda i: -weights[i])
    load, greedy = [0] * cpus, [0] * n
    for i in order:
        c = min(range(cpus), key=lambda k: load[k])
        greedy[i] = c
        load[c] += weights[i]
    greedy_err = max_rel_err(placement_shares(weights, greedy), ideal)
    used = min(n, cpus)
    found = solve(counts, used, greedy_err + 1e-12)
    if found is None or nodes[0] > budget and (counts, used) not in choice:
        return greedy_err, greedy, nodes[0] <= budget
    pool = {w: [i for i in range(n) if weights[i] == w] for w in types}
    placement = [0] * n
    rem, cpu = counts, 0
    while any(rem):
        comp = choice[(rem, used - cpu)]
        for c, w in zip(comp, types):
            for _ in range(c):
                placement[pool[w].pop()] = cpu
        rem = tuple(r - c for r, c in zip(rem, comp))
        cpu += 1
    err = max_rel_err(placement_shares(weights, placement), ideal)
    return err, placement, nodes[0] <= budget


# ------------------------------------------------ 2.6.18's arithmetic

IMBALANCE_PCT = 125     # 2.6.17/18 at the CPU level (SD_CPU_INIT)


def calc_imbalance(this_load, this_nr, this_weighted, max_load, busiest_nr,
                   busiest_weighted, avg_load, this_pwr=SCALE, busiest_pwr=SCALE,
                   smpnice=True, imbalance_pct=IMBALANCE_PCT):
    """o1_calc_imbalance() of kernel/sched/o1.c (2.6.18's
    find_busiest_group() after the group walk): (imbalance, rule), where
    rule names the test that decided. Loads are per power unit (SCALE
    = one CPU), as the kernel's."""
    scale = SCALE
    busiest_lpt = this_lpt = scale
    imbn = 2
    if smpnice:
        if not busiest_nr:
            return 0, "no tasks in the busiest group"
        busiest_lpt = busiest_weighted // busiest_nr
        if this_nr:
            this_lpt = this_weighted // this_nr
            if busiest_lpt > this_lpt:
                imbn = 1
    if this_load >= max_load:
        return 0, "this_load >= max_load"
    if max_load <= busiest_lpt:
        return 0, "busiest loaded by one average task"
    if this_load >= avg_load:
        return 0, "this_load >= avg_load"
    if 100 * max_load <= imbalance_pct * this_load:
        return 0, "within imbalance_pct"
    if max_load > avg_load:
        max_pull = min(max_load - avg_load, max_load - busiest_lpt)
        imbalance = min(max_pull * busiest_pwr, (avg_load - this_load) * this_pwr) // scale
        if imbalance >= busiest_lpt:
            return (imbalance if smpnice else imbalance // scale), "imbalance >= busiest_load_per_task"
    if max_load - this_load >= busiest_lpt * imbn:
        return (busiest_lpt if smpnice else 1), "small imbalance: loads %d task(s) apart" % imbn
    pwr_now = busiest_pwr * min(busiest_lpt, max_load) + this_pwr * min(this_lpt, this_load)
    pwr_now //= scale
    pwr_move = 0
    tmp = busiest_lpt * scale // busiest_pwr
    if max_load > tmp:
        pwr_move += busiest_pwr * min(busiest_lpt, max_load - tmp)
    if max_load * busiest_pwr < busiest_lpt * scale:
        tmp = max_load * busiest_pwr // this_pwr
    else:
        tmp = busiest_lpt * scale // this_pwr
    pwr_move += this_pwr * min(this_lpt, this_load + tmp)
    pwr_move //= scale
    if pwr_move <= pwr_now:
        return 0, "small imbalance: throughput not raised by a move"
    return (busiest_lpt if smpnice else 1), "small imbalance: throughput raised by a move"


def flat_decisions(weights, placement, cpus, smpnice=True):
    """What 2.6.18's balancer decides on a flat machine (one CPU per group)
    when task i stays on CPU placement[i] and the loads are steady: for
    each CPU, (cpu, busiest cpu or None, imbalance, rule)."""
    load = [0] * cpus
    nr = [0] * cpus
    for w, c in zip(weights, placement):
        load[c] += w if smpnice else SCALE
        nr[c] += 1
    avg = sum(load) * SCALE // (cpus * SCALE)
    out = []
    for this in range(cpus):
        busiest = None
        for c in range(cpus):
            if c == this or not nr[c]:
                continue
            if smpnice and nr[c] <= 1:
                continue        # a group at or under its capacity in tasks
            if busiest is None or load[c] > load[busiest]:
                busiest = c
        if busiest is None:
            out.append((this, None, 0, "no busier CPU with more tasks than CPUs"))
            continue
        imb, rule = calc_imbalance(load[this], nr[this], load[this], load[busiest], nr[busiest],
                                   load[busiest], avg, smpnice=smpnice)
        out.append((this, busiest, imb, rule))
    return out


def flat_exact_moves(weights, placement, cpus):
    """sched_smpnice=2 on a flat machine, loads steady: the moves it would
    make, (task, from CPU, to CPU) for every task whose move narrows the
    gap between its CPU and a lighter one enough (2 (L_from - L_to - w) >=
    the weight of nice 19, with equal capacities: o1_move_miss()), leaving
    out CPUs that run one task heavier than the load per CPU when there are
    more tasks than CPUs. Between two CPUs where no single task fits, the
    swaps: (task, from, to, task back) for every pair whose difference
    w - w_back > 0 fits so. Empty: stable."""
    def fits(w, gap):
        return 0 < w and 2 * (gap - w) >= o1_weight(19)

    load = [0] * cpus
    nr = [0] * cpus
    for w, c in zip(weights, placement):
        load[c] += w
        nr[c] += 1
    level = sum(load) / cpus if len(weights) > cpus else float("inf")
    out_ = {c for c in range(cpus) if nr[c] == 1 and load[c] > level}
    moves = []
    for i, (w, c) in enumerate(zip(weights, placement)):
        if c in out_:
            continue
        for t in range(cpus):
            if t != c and t not in out_ and fits(w, load[c] - load[t]):
                moves.append((i, c, t))
    single = {(c, t) for _, c, t in moves}
    swaps = []
    for i, (w, c) in enumerate(zip(weights, placement)):
        for j, (v, t) in enumerate(zip(weights, placement)):
            if (c in out_ or t in out_ or t == c or (c, t) in single or
                    not fits(w - v, load[c] - load[t])):
                continue
            # a single move from c to t fits nowhere on that pair: swap
            if not any(fits(weights[k], load[c] - load[t])
                       for k in range(len(weights)) if placement[k] == c):
                swaps.append((i, c, t, j))
    return moves + swaps


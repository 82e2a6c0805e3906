#!/usr/bin/env python3
"""Tables of bench/jigsaw_bench.sh from its results file (one simulation per line).

Columns of a line: section, workload, seed, label, cluster_efficiency, makespan, avg JCT, p99 JCT,
worst rho, window avg JCT, window p99 JCT, window goodput, window util, wall s, window GPU-s
freed by SPB, window GPU-s of guests in freed capacity, job-rounds per SPB plan (JSON).
"""
import collections
import json
import statistics
import sys

KEYS = ["section", "workload", "seed", "label", "eff", "makespan", "jct", "p99", "rho", "wjct",
        "wp99", "goodput", "util", "wall", "freed", "guest_freed", "rounds"]
BASELINES = ("fifo srtf las min_total_duration max_min_fairness finish_time_fairness gandiva_fair "
             "allox max_sum_throughput shockwave").split()
COLOCATING = ["packing", "spb_only", "jigsaw", "jigsaw, eff low", "jigsaw, eff high"]
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571}
TARGET_GAIN, TARGET_SPB = 15.0, 5.0


def load(path):
    rows = []
    for line in open(path):
        if not line.strip():
            continue
        r = dict(zip(KEYS, line.rstrip("\n").split("\t")))
        for k in KEYS[4:16]:
            r[k] = float(r[k]) if r.get(k) not in (None, "", "-") else None
        rows.append(r)
    return rows


def pct(a, b):
    return 100.0 * (a / b - 1.0)


def spread(values, fmt="{:+.1f}%"):
    if len(values) == 1:
        return fmt.format(values[0])
    m, sd = statistics.mean(values), statistics.stdev(values)
    half = T95.get(len(values) - 1, 1.96) * sd / len(values) ** 0.5
    return (fmt.format(m) + " [95% CI " + fmt.format(m - half) + ", " + fmt.format(m + half) +
            "; worst " + fmt.format(min(values)) + "] (" + ", ".join(fmt.format(v) for v in values)
            + ")")


def best_baseline(rs, key="goodput"):
    present = [rs[b] for b in BASELINES if b in rs]
    return max(present, key=lambda r: r[key]) if present else None


def section1(rows):
    print("\n## 1. Shockwave traces (per-scale configs; co-location normalised by Gavel's table)\n")
    print("| workload | policy | cluster_efficiency | makespan s | avg JCT s | p99 JCT s | worst rho |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['workload']} | {r['label']} | {r['eff']:.4f} | {r['makespan']:,.0f} | "
              f"{r['jct']:,.0f} | {r['p99']:,.0f} | {r['rho']:.2f} |")
    print("\nGain over the best baseline of the workload: cluster_efficiency (= 1 / makespan), then "
          "avg JCT reduction against the baseline with the best avg JCT:\n")
    print("| workload | best baseline: efficiency | best baseline: avg JCT | " +
          " | ".join(COLOCATING) + " |")
    print("|---|---|---|" + "---|" * len(COLOCATING))
    for w in dict.fromkeys(r["workload"] for r in rows):
        rs = {r["label"]: r for r in rows if r["workload"] == w}
        be = best_baseline(rs, "eff")
        bj = min((rs[b] for b in BASELINES if b in rs), key=lambda r: r["jct"])
        cells = [f"{pct(rs[p]['eff'], be['eff']):+.1f}% / {-pct(rs[p]['jct'], bj['jct']):+.1f}%"
                 if p in rs else "-" for p in COLOCATING]
        print(f"| {w} | {be['label']} {be['eff']:.4f} | {bj['label']} {bj['jct']:,.0f} | " +
              " | ".join(cells) + " |")


def section2(rows):
    print("\n## 2. Philly-derived streams, 256 GPUs, window jobs [1000, 3000)\n")
    print("| load | policy | window goodput (mean over seeds) | window avg JCT s | window p99 JCT s "
          "| GPU-s freed by SPB | guest GPU-s in freed capacity | seeds |")
    print("|---|---|---|---|---|---|---|---|")
    groups = collections.defaultdict(list)
    for r in rows:
        groups[(r["workload"], r["label"])].append(r)
    for (w, label), rs in groups.items():
        freed = [r["freed"] for r in rs if r["freed"] is not None]
        guest = [r["guest_freed"] for r in rs if r["guest_freed"] is not None]
        freed_text = f"{statistics.mean(freed):,.0f}" if freed else "-"
        guest_text = f"{statistics.mean(guest):,.0f}" if guest else "-"
        print(f"| {w} | {label} | {statistics.mean(r['goodput'] for r in rs):.4f} | "
              f"{statistics.mean(r['wjct'] for r in rs):,.0f} | "
              f"{statistics.mean(r['wp99'] for r in rs):,.0f} | {freed_text} | {guest_text} | "
              f"{len(rs)} |")
    print("\nGain over the best baseline of each seed (goodput: higher is better; JCT: reduction); "
          "mean over seeds [95% t-interval; worst seed] (per seed). SPB's share = jigsaw's gain "
          "minus packing's (points):\n")
    print("| load | policy | best baseline(s) | goodput gain | avg JCT gain | p99 JCT gain |")
    print("|---|---|---|---|---|---|")
    for w in dict.fromkeys(r["workload"] for r in rows):
        seeds = list(dict.fromkeys(r["seed"] for r in rows if r["workload"] == w))
        per_seed = {s: {r["label"]: r for r in rows if r["workload"] == w and r["seed"] == s}
                    for s in seeds}
        names = sorted({best_baseline(per_seed[s])["label"] for s in seeds})
        for p in COLOCATING + ["SPB's share (jigsaw - packing)"]:
            g, j, q = [], [], []
            for s in seeds:
                rs = per_seed[s]
                b = best_baseline(rs)
                bj = min(rs[x]["wjct"] for x in BASELINES if x in rs)
                bq = min(rs[x]["wp99"] for x in BASELINES if x in rs)
                if p.startswith("SPB"):
                    if "jigsaw" in rs and "packing" in rs:
                        g.append(pct(rs["jigsaw"]["goodput"], b["goodput"]) -
                                 pct(rs["packing"]["goodput"], b["goodput"]))
                    continue
                if p not in rs:
                    continue
                g.append(pct(rs[p]["goodput"], b["goodput"]))
                j.append(-pct(rs[p]["wjct"], bj))
                q.append(-pct(rs[p]["wp99"], bq))
            if not g:
                continue
            if p.startswith("SPB"):
                print(f"| {w} | {p} | {', '.join(names)} | {spread(g, '{:+.1f}')} | - | - |")
            else:
                print(f"| {w} | {p} | {', '.join(names)} | {spread(g)} | {spread(j)} | {spread(q)} |")


def section3(rows):
    print("\n## 3. Where the gain comes from: mechanisms added one at a time\n")
    print("Each step's change against the step before (traces: cluster_efficiency = 1 / makespan; "
          "streams: window goodput), and jigsaw's total over its base planner alone:\n")
    order = ["shockwave", "+packing", "+phase-spb", "+freed-guests", "+staircase-guests",
             "+interleave"]
    print("| workload | setting | " + " | ".join(order[1:]) + " | total | SPB (all after packing) |")
    print("|---|---|" + "---|" * (len(order) + 1))
    table = collections.defaultdict(dict)
    for r in rows:
        metric = r["goodput"] if r["goodput"] is not None else r["eff"]
        table[(r["workload"], r["seed"])][r["label"]] = metric
    for (w, setting), m in table.items():
        if not all(o in m for o in order):
            continue
        steps = [pct(m[order[i]], m[order[i - 1]]) for i in range(1, len(order))]
        print(f"| {w} | {setting} | " + " | ".join(f"{s:+.2f}%" for s in steps) +
              f" | {pct(m[order[-1]], m[order[0]]):+.2f}% | "
              f"{pct(m[order[-1]], m['+packing']):+.2f}% |")


def number(option):
    try:
        return float(option.split()[-1])
    except (ValueError, IndexError):
        return None


def section4(rows, stream_rows):
    print("\n## 4. Sensitivity at load 1.3: what caps jigsaw's gain\n")
    seeds = list(dict.fromkeys(r["seed"] for r in rows))
    by = collections.defaultdict(dict)
    for r in rows:
        by[r["label"]][r["seed"]] = r
    # The best baseline of each seed: of every baseline when section 2 ran load 1.3 on that seed
    # (the same simulations), else of the two that section 4 runs itself.
    full = {(r["seed"], r["label"]): r for r in stream_rows if r["workload"] == "stream load 1.3"}
    best, named = {}, set()
    for s in seeds:
        candidates = [full[(s, b)] for b in BASELINES if (s, b) in full]
        if not candidates:
            candidates = [by[l][s] for l in by if l.startswith("baseline|") and s in by[l]]
        best[s] = max(candidates, key=lambda r: r["goodput"])
        named.add(best[s]["label"].split("|")[-1])
    packing = by.get("packing|packing", {})
    print("Window goodput gain of jigsaw over the best baseline of each seed (" +
          ", ".join(sorted(named)) + "; of every baseline where section 2 ran the seed, else of "
          "min_total_duration and shockwave), and SPB's share (jigsaw - packing, points), mean "
          f"over seeds (per seed). Targets: +{TARGET_GAIN:g}% and +{TARGET_SPB:g} points.\n")
    print("| factor | option | goodput gain | SPB's share | GPU-s freed | guest GPU-s in freed "
          "capacity |")
    print("|---|---|---|---|---|---|")
    results = {}
    factors = list(dict.fromkeys(label.split("|")[0] for label in by))
    for label, rs in sorted(by.items(), key=lambda item: factors.index(item[0].split("|")[0])):
        if label.startswith(("baseline|", "packing|")):
            continue
        factor, option = label.split("|", 1)
        g = [pct(rs[s]["goodput"], best[s]["goodput"]) for s in seeds if s in rs]
        share = [pct(rs[s]["goodput"], best[s]["goodput"]) -
                 pct(packing[s]["goodput"], best[s]["goodput"]) for s in seeds
                 if s in rs and s in packing]
        freed = [rs[s]["freed"] or 0 for s in seeds if s in rs]
        guest = [rs[s]["guest_freed"] or 0 for s in seeds if s in rs]
        results[(factor, option)] = (statistics.mean(g), statistics.mean(share) if share else None)
        print(f"| {factor} | {option} | {spread(g)} | "
              f"{spread(share, '{:+.1f}') if share else '-'} | {statistics.mean(freed):,.0f} | "
              f"{statistics.mean(guest):,.0f} |")
    print("\nWhat each numeric factor would need for the targets (linear between the swept values; "
          "where even the most favourable swept value misses, a linear extrapolation from it and "
          "its neighbour, an estimate that may lie outside the factor's possible range):\n")
    print("| factor | option | swept values: gain / SPB share | needed for +15% | needed for +5 "
          "SPB points |")
    print("|---|---|---|---|---|")
    flags = collections.defaultdict(list)
    for (factor, option), (g, share) in results.items():
        x = number(option)
        if x is not None and factor not in ("default", "threshold", "combined"):
            flags[(factor, option.rsplit(" ", 1)[0])].append((x, g, share))
    default = results.get(("default", "default"))
    for (factor, flag), points in flags.items():
        if default is not None and flag in DEFAULTS:
            points.append((DEFAULTS[flag], *default))
        points.sort()
        text = ", ".join(f"{x:g}{' (default)' if x == DEFAULTS.get(flag) else ''}: {g:+.1f}% / "
                         f"{'-' if s is None else f'{s:+.1f}'}" for x, g, s in points)
        print(f"| {factor} | {flag} | {text} | {needed(points, 0, TARGET_GAIN, flag)} | "
              f"{needed(points, 1, TARGET_SPB, flag)} |")


# Each swept flag's default (section 4's "default" row) and the range its value can take.
DEFAULTS = {"--jigsaw-freed-interference-scale": 1, "--jigsaw-sharing-overhead": 0,
            "--spb-phase-compute-bound": 1, "--spb-fallback-backward-ratio": 2,
            "--gpu-memory-gb": 16, "--jigsaw-spb-memory": 1,
            # LeNet's measured plan (data/spb_phase_plans.csv), the proxy of every trace model
            "--spb-phase-warmup": 0.4715, "--spb-phase-frozen-share": 0.4}
RANGES = {"--spb-efficiency": (0, 1), "--spb-phase-warmup": (0, 1),
          "--spb-phase-frozen-share": (0, 1), "--spb-phase-compute-bound": (0, 1),
          "--jigsaw-sharing-overhead": (0, 1), "--jigsaw-freed-interference-scale": (0, 10),
          "--spb-fallback-backward-ratio": (0, 100), "--gpu-memory-gb": (1, 1000),
          "--jigsaw-spb-memory": (0, 1)}


def needed(points, idx, target, flag):
    """The value of a factor at which the metric (0: gain, 1: SPB's share) reaches target: linear
    between swept values; else an extrapolation from the most favourable value (an estimate)."""
    valid = [(x, v[idx]) for x, *v in points if v[idx] is not None]
    if len(valid) < 2:
        return "-"
    for (x0, a), (x1, b) in zip(valid, valid[1:]):
        if (a - target) * (b - target) <= 0 and a != b:
            return f"{x0 + (target - a) / (b - a) * (x1 - x0):.3g} (interpolated)"
    i = max(range(len(valid)), key=lambda k: valid[k][1])
    for end in (0, len(valid) - 1):  # a plateau reaching an end of the sweep: take that end
        if valid[i][1] - valid[end][1] < 0.2:
            i = end
    x_best, v_best = valid[i]
    text = f"not reached (best {v_best:+.1f} at {x_best:g})"
    if 0 < i < len(valid) - 1:
        return text + "; the metric peaks inside the swept range"
    j = i - 1 if i == len(valid) - 1 else i + 1
    if abs(valid[j][1] - v_best) < 0.2:
        return text + "; flat here: not this factor"
    x_need = x_best + (target - v_best) * (x_best - valid[j][0]) / (v_best - valid[j][1])
    lo, hi = RANGES.get(flag, (float("-inf"), float("inf")))
    where = "" if lo <= x_need <= hi else f", outside its range [{lo:g}, {hi:g}]"
    return text + f"; extrapolated estimate {x_need:.3g}{where}"


def main():
    rows = load(sys.argv[1])
    sec = collections.defaultdict(list)
    for r in rows:
        sec[r["section"]].append(r)
    if sec["1"]:
        section1(sec["1"])
    if sec["2"]:
        section2(sec["2"])
    if sec["3"]:
        section3(sec["3"])
    if sec["4"]:
        section4(sec["4"], sec["2"])


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Tables for bench/d2r.sh: one per study, aggregated over every scenario of every graph.

Usage: bench/d2r_report.py OUT_DIR STUDY...   (reads OUT_DIR/STUDY/<graph>/scenarios.csv)
Studies named BASE_s<seed> (bench/d2r.sh with several SEEDS) also get a table of the spread of
each figure over the seeds: mean, then min..max.
Recovery is per scenario the latest disruption of any flow (ms after the failure); packets lost
are the scheme's losses after detection at the bench's per-flow rate ("stranded": those of them
that had no compliant path from any switch they reached once news of the failure could be there,
which no scheme could deliver; "of them before news": stranded packets that had such a path only
at a switch they passed before any signal from the failure could reach it; "with a way out": the
rest; "before notice": of those, packets that had their way out only before an in-band notice
could be there, i.e. signal speed plus one pipeline traversal per switch). "Bounded recovery" is
recovery where a hold counts only when it delayed a packet by more than the delay bound (100 us)
and losses before notice do not count (docs/d2r.md, "Metrics"); its speed-up is over scenarios in
which the controller disrupted a flow, "inf" where D2R disrupted none. The violation rate is over
affected flows that still had a compliant path; stretch is final hops / failure-free hops.
"""
import csv
import json
import os
import re
import sys

SCHEMES = ["d2r", "controller", "link_state", "lfa"]
WORK = {"d2r": "recirculations", "controller": "rules installed", "link_state": "FIB updates",
        "lfa": "LFA repairs"}


def percentile(values, p):
    if not values:
        return 0.0
    values = sorted(values)
    rank = (len(values) - 1) * p / 100.0
    low = int(rank)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (rank - low)


def load(study_dir):
    rows, failures, graphs, summaries = [], [], 0, {}
    for name in sorted(os.listdir(study_dir)):
        path = os.path.join(study_dir, name)
        if not os.path.isdir(path):
            continue
        graphs += 1
        error = os.path.join(path, "error.txt")
        if os.path.exists(error):
            with open(error) as f:
                failures.append((name, f.read().strip()))
            continue
        with open(os.path.join(path, "summary.json")) as f:
            summaries[name] = json.load(f)
        with open(os.path.join(path, "scenarios.csv")) as f:
            for row in csv.DictReader(f):
                row["graph"] = name
                rows.append(row)
    return rows, failures, graphs, summaries


def report(out, study):
    study_dir = os.path.join(out, study)
    rows, failures, graphs, summaries = load(study_dir)
    timing = ""
    time_file = os.path.join(study_dir, "time.txt")
    if os.path.exists(time_file):
        with open(time_file) as f:
            wall, cpu = f.read().split()
        timing = f"; {wall} s wall, {cpu} s CPU"
    scenarios = {(r["graph"], r["scenario"]) for r in rows}
    policies = {s["policy"].split(":")[0] for s in summaries.values()}
    flows = sum(s["traffic"]["flows"] for s in summaries.values())
    rate = next(iter(summaries.values()))["traffic"]["rate"] if summaries else "?"
    print(f"### {study}: {graphs} graphs, {len(scenarios)} failure scenarios, "
          f"{flows} flows at {rate} each{timing}")
    print()
    print("| scheme | recovery median ms | p99 ms | max ms | bounded recovery median ms | p99 ms | "
          "max ms | lost total | lost/failure median | p99 | mean | with a way out | "
          "of them before notice | stranded | of them before news | unavoidable | held | "
          "violation rate | mean stretch | not restored | work |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    by_scheme = {s: [r for r in rows if r["scheme"] == s] for s in SCHEMES}
    recovery, bounded = {}, {}
    figures = {}
    for scheme in SCHEMES:
        rs = by_scheme[scheme]
        live = [r for r in rs if int(r["flows_recoverable"]) > 0]
        rec = [float(r["recovery_us"]) / 1000 for r in live]
        recovery[scheme] = {(r["graph"], r["scenario"]): float(r["recovery_us"]) for r in live}
        bounded[scheme] = {(r["graph"], r["scenario"]): float(r.get("recovery_bounded_us", 0))
                           for r in live}
        brec = [v / 1000 for v in bounded[scheme].values()]
        before_notice = sum(int(r.get("lost_way_out_before_notice", 0)) for r in rs)
        lost = [int(r["lost"]) for r in live]
        recoverable = sum(int(r["flows_recoverable"]) for r in rs)
        violating = sum(int(r["violating_flows"]) for r in rs)
        stretch_flows = sum(int(r["stretch_flows"]) for r in rs)
        stretch = sum(float(r["stretch_sum"]) for r in rs) / stretch_flows if stretch_flows else 1
        figures[scheme] = {
            "recovery median ms": percentile(rec, 50), "recovery p99 ms": percentile(rec, 99),
            "recovery max ms": max(rec, default=0),
            "bounded recovery p99 ms": percentile(brec, 99),
            "bounded recovery max ms": max(brec, default=0), "lost total": sum(lost),
            "lost/failure p99": percentile(lost, 99),
            "lost with a way out": sum(int(r["lost"]) - int(r["lost_stranded"]) for r in rs),
            "lost with a way out after notice":
                sum(int(r["lost"]) - int(r["lost_stranded"]) for r in rs) - before_notice,
            "violation rate": violating / recoverable if recoverable else 0,
            "mean stretch": stretch}
        print(f"| {scheme} | {percentile(rec, 50):.3f} | {percentile(rec, 99):.3f} | "
              f"{max(rec, default=0):.3f} | {percentile(brec, 50):.3f} | "
              f"{percentile(brec, 99):.3f} | {max(brec, default=0):.3f} | "
              f"{sum(int(r['lost']) for r in rs)} | "
              f"{percentile(lost, 50):.0f} | {percentile(lost, 99):.0f} | "
              f"{(sum(lost) / len(lost) if lost else 0):.1f} | "
              f"{sum(int(r['lost']) - int(r['lost_stranded']) for r in rs)} | {before_notice} | "
              f"{sum(int(r['lost_stranded']) for r in rs)} | "
              f"{sum(int(r.get('lost_stranded_before_news', 0)) for r in rs)} | "
              f"{sum(int(r['lost_unavoidable']) for r in rs)} | "
              f"{sum(int(r['held']) for r in rs)} | "
              f"{(violating / recoverable if recoverable else 0):.4f} ({violating}/{recoverable}) | "
              f"{stretch:.4f} | {sum(int(r['not_restored']) for r in rs)} | "
              f"{sum(float(r['work']) for r in rs):.0f} {WORK[scheme]} |")
    print()
    speedup = [recovery["controller"][k] / v for k, v in recovery["d2r"].items() if v > 0]
    if speedup:
        worst = min(recovery["d2r"], key=lambda k: recovery["controller"][k] / recovery["d2r"][k]
                    if recovery["d2r"][k] > 0 else float("inf"))
        figures["d2r"]["speed-up median"] = percentile(speedup, 50)
        figures["d2r"]["speed-up p1"] = percentile(speedup, 1)
        figures["d2r"]["speed-up min"] = min(speedup)
        figures["d2r"]["speed-up below 100x"] = sum(s < 100 for s in speedup)
        print(f"D2R speed-up over the controller per scenario: median {percentile(speedup, 50):.0f}x, "
              f"p1 {percentile(speedup, 1):.0f}x, min {min(speedup):.0f}x "
              f"({worst[0]} {worst[1]}); below 100x: {sum(s < 100 for s in speedup)} of "
              f"{len(speedup)}")
    # Bounded: over scenarios where the controller disrupted a flow; D2R without disruption: inf.
    ratios = sorted((bounded["controller"][k] / v if v > 0 else float("inf"), k)
                    for k, v in bounded["d2r"].items() if bounded["controller"].get(k, 0) > 0)
    if ratios:
        values = [r for r, _ in ratios]
        nearest = lambda p: values[int(p / 100.0 * (len(values) - 1))]
        below = sum(v < 100 for v in values)
        figures["d2r"]["bounded speed-up median"] = nearest(50)
        figures["d2r"]["bounded speed-up p1"] = nearest(1)
        figures["d2r"]["bounded speed-up min"] = values[0]
        figures["d2r"]["bounded speed-up below 100x"] = below
        print(f"D2R speed-up over the controller on bounded recovery: median {nearest(50):.0f}x, "
              f"p1 {nearest(1):.0f}x, min {values[0]:.0f}x ({ratios[0][1][0]} {ratios[0][1][1]}); "
              f"below 100x: {below} of {len(values)}; D2R disrupted nothing in "
              f"{sum(v == float('inf') for v in values)}")
    d2r = by_scheme["d2r"]
    print(f"D2R: packets lost after detection {sum(int(r['lost']) for r in d2r)}, with a way out "
          f"{sum(int(r['lost']) - int(r['lost_stranded']) for r in d2r)} "
          f"(no compliant continuation within the hop budget "
          f"{sum(int(r['dropped_no_continuation']) for r in d2r)}, buffer overflow "
          f"{sum(int(r['buffer_overflow']) for r in d2r)}), flows violating the policy "
          f"{sum(int(r['violating_flows']) for r in d2r)}, peak held per switch "
          f"{max((int(r['peak_held']) for r in d2r), default=0)} packets")
    print(f"Policies: {', '.join(sorted(policies))}")
    costs = []
    for name in summaries:
        path = os.path.join(study_dir, name, "time.txt")
        if os.path.exists(path):
            with open(path) as f:
                fields = f.read().split()
            if len(fields) == 3:
                costs.append((float(fields[1]) + float(fields[2]), float(fields[0]), name))
    if costs:
        costs.sort(reverse=True)
        print(f"CPU per graph: total {sum(c[0] for c in costs):.1f} s; slowest: " +
              ", ".join(f"{name} {cpu:.1f} s" for cpu, _, name in costs[:5]))
    if failures:
        print(f"Graphs that failed ({len(failures)}):")
        for name, message in failures:
            print(f"  {name}: {message}")
    else:
        print("Graphs that failed to parse or run: none")
    print()
    return figures


def spread(base, runs):
    """Mean and min..max over seeds of each figure of each scheme."""
    print(f"### {base}: spread over {len(runs)} seeds ({', '.join(sorted(runs))}): "
          "mean (min..max)")
    print()
    keys = list(next(iter(runs.values()))["d2r"].keys())
    print("| scheme | " + " | ".join(keys) + " |")
    print("|---|" + "---|" * len(keys))
    for scheme in SCHEMES:
        cells = []
        for key in keys:
            values = [r[scheme][key] for r in runs.values() if key in r.get(scheme, {})]
            if not values:
                cells.append("")
                continue
            digits = 4 if key in ("violation rate", "mean stretch") else (0 if "lost" in key or
                                                                           "speed-up" in key else 3)
            cells.append(f"{sum(values) / len(values):.{digits}f} "
                         f"({min(values):.{digits}f}..{max(values):.{digits}f})")
        print(f"| {scheme} | " + " | ".join(cells) + " |")
    print()


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: d2r_report.py OUT_DIR STUDY...")
    by_base = {}
    for study in sys.argv[2:]:
        figures = report(sys.argv[1], study)
        match = re.fullmatch(r"(.*)_s(\d+)", study)
        if match:
            by_base.setdefault(match.group(1), {})[study] = figures
    for base, runs in by_base.items():
        if len(runs) > 1:
            spread(base, runs)


if __name__ == "__main__":
    main()

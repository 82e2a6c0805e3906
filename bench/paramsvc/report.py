#!/usr/bin/env python3
"""Table of bench/paramsvc.sh: per-job JCT, aggregation CPU and cores reserved, dedicated vs service.

Usage: report.py OUT [--ns-per-float]  (the latter prints only the measured aggregation cost)."""
import csv
import glob
import json
import os
import statistics
import sys


def load_jobs(out):
    jobs = []
    with open(os.path.join(out, "jobs.txt")) as f:
        for line in f:
            if line.strip():
                name, params, workers, compute, iters = line.split()
                jobs.append(dict(name=name, params=int(params), workers=int(workers),
                                 compute_ms=float(compute), iters=int(iters)))
    return jobs


def load_run(directory, jobs):
    run = {"jct": {}, "iters": {}}
    starts, ends = [], []
    for job in jobs:
        rows = [json.load(open(p)) for p in glob.glob(os.path.join(directory, job["name"] + ".w*.json"))]
        run["jct"][job["name"]] = max(r["jct_s"] for r in rows)
        starts += [r["start_wall_s"] for r in rows]
        ends += [r["end_wall_s"] for r in rows]
    start, end = min(starts), max(ends)
    samples = []
    with open(os.path.join(directory, "samples.csv")) as f:
        for row in csv.DictReader(f):
            samples.append((float(row["t_wall_s"]), int(row["reserved"]), float(row["cpu_s"])))
    window = [s for s in samples if start <= s[0] <= end]
    core_s = 0.0
    for a, b in zip(window, window[1:]):
        core_s += a[1] * (b[0] - a[0])
    run["span_s"] = end - start
    run["reserved_mean"] = core_s / (window[-1][0] - window[0][0]) if len(window) > 1 else 0
    run["reserved_peak"] = max((s[1] for s in window), default=0)
    run["reserved_core_s"] = core_s
    run["cpu_proc_s"] = samples[-1][2] if samples else 0
    coordinator = os.path.join(directory, "coordinator.json")
    if os.path.exists(coordinator):
        stats = json.load(open(coordinator))
        run["cpu_exit_s"] = stats["aggregator_cpu_s"] + stats["coordinator_cpu_s"]
        run["aggregator_cpu_s"] = stats["aggregator_cpu_s"]
        run["migrations"] = stats["migrations"]
        run["decisions"] = len(stats["decisions"])
    else:
        run["cpu_exit_s"] = sum(json.load(open(p))["cpu_s"]
                                for p in glob.glob(os.path.join(directory, "*.ps", "server.json")))
    return run


def spread(values, fmt="{:.2f}"):
    mean = statistics.mean(values)
    if len(values) == 1:
        return fmt.format(mean)
    return (fmt + " ({}-{})").format(mean, fmt.format(min(values)), fmt.format(max(values)))


def main():
    out = sys.argv[1]
    jobs = load_jobs(out)
    reps = sorted(glob.glob(os.path.join(out, "rep*")))
    runs = {m: [load_run(os.path.join(r, m), jobs) for r in reps] for m in ("dedicated", "service")}
    floats = sum(j["params"] * j["workers"] * j["iters"] for j in jobs)
    ns = statistics.mean(r["aggregator_cpu_s"] for r in runs["service"]) / floats * 1e9
    if "--ns-per-float" in sys.argv:
        print(f"{ns:.3f}")
        return
    print(f"{len(jobs)} concurrent jobs, {len(reps)} repetitions (mean, min-max over repetitions)\n")
    print("| job | parameters | workers | compute ms | iterations | JCT dedicated s | JCT service s | change |")
    print("|---|---|---|---|---|---|---|---|")
    changes = []
    for job in jobs:
        d = [r["jct"][job["name"]] for r in runs["dedicated"]]
        s = [r["jct"][job["name"]] for r in runs["service"]]
        change = 100 * (statistics.mean(s) / statistics.mean(d) - 1)
        changes.append(change)
        print(f"| {job['name']} | {job['params']:,} | {job['workers']} | {job['compute_ms']:.0f} | "
              f"{job['iters']} | {spread(d)} | {spread(s)} | {change:+.1f}% |")
    avg_d = [statistics.mean(r["jct"].values()) for r in runs["dedicated"]]
    avg_s = [statistics.mean(r["jct"].values()) for r in runs["service"]]
    print(f"| **average** | | | | | {spread(avg_d)} | {spread(avg_s)} | "
          f"{100 * (statistics.mean(avg_s) / statistics.mean(avg_d) - 1):+.1f}% "
          f"(worst job {max(changes):+.1f}%) |")
    print()
    print("| aggregation | dedicated | service | saving |")
    print("|---|---|---|---|")

    def row(label, key, fmt="{:.2f}"):
        d = [r[key] for r in runs["dedicated"]]
        s = [r[key] for r in runs["service"]]
        saving = 100 * (1 - statistics.mean(s) / statistics.mean(d)) if statistics.mean(d) else 0
        print(f"| {label} | {spread(d, fmt)} | {spread(s, fmt)} | {saving:.1f}% |")

    row("CPU s used (utime+stime, /proc samples)", "cpu_proc_s")
    row("CPU s used (utime+stime, rusage at exit)", "cpu_exit_s")
    row("cores reserved, time average", "reserved_mean")
    row("cores reserved, peak", "reserved_peak", "{:.0f}")
    row("core-seconds reserved", "reserved_core_s", "{:.1f}")
    print()
    migrations = [r["migrations"] for r in runs["service"]]
    decisions = [r["decisions"] for r in runs["service"]]
    print(f"service: {spread(migrations, '{:.0f}')} live migrations, "
          f"{spread(decisions, '{:.0f}')} elasticity decisions per run; measured aggregation "
          f"cost {ns:.3f} ns of aggregator CPU per float per worker per iteration "
          f"(service CPU includes the coordinator; dedicated CPU is the jigsaw ps processes)")


if __name__ == "__main__":
    main()

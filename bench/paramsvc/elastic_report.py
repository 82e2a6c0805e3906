#!/usr/bin/env python3
"""Table of the elasticity scenario of bench/paramsvc.sh (ELASTIC=1): a load step (jobs join one
every STEP s and leave when done) on an elastic service vs dedicated PS started at each join.

Prints, per repetition of the service, the pool size over time (with the jobs running and the
aggregation cores in use), every add / drain decision with its reason and every migration; then
per-job JCT service vs dedicated and the cores reserved (mean, min-max over repetitions). Times
are seconds from the first job's join.

Usage: elastic_report.py OUT [--step S]"""
import argparse
import csv
import glob
import json
import os
import statistics

from report import load_jobs, spread  # bench/paramsvc/report.py: same jobs.txt and format


def load_run(directory, jobs):
    run = {"jct": {}, "start": {}, "end": {}}
    joins = {}
    with open(os.path.join(directory, "joins.txt")) as f:
        for line in f:
            name, t = line.split()
            joins[name] = float(t)
    t0 = min(joins.values())
    for job in jobs:
        rows = [json.load(open(p))
                for p in glob.glob(os.path.join(directory, job["name"] + ".w*.json"))]
        run["jct"][job["name"]] = max(r["jct_s"] for r in rows)
        run["start"][job["name"]] = joins[job["name"]] - t0
        run["end"][job["name"]] = max(r["end_wall_s"] for r in rows) - t0
    load_end = max(run["end"].values())
    samples = []
    with open(os.path.join(directory, "samples.csv")) as f:
        for row in csv.DictReader(f):
            samples.append((float(row["t_wall_s"]) - t0, int(row["reserved"])))
    # Cores reserved from the first join to the end of the last job (the load), and, for the
    # service, the idle tail until it has drained back.
    window = [s for s in samples if 0 <= s[0] <= load_end]
    core_s = sum(a[1] * (b[0] - a[0]) for a, b in zip(window, window[1:]))
    span = window[-1][0] - window[0][0] if len(window) > 1 else 0
    run["load_end"] = load_end
    run["reserved_mean"] = core_s / span if span else 0
    run["reserved_peak"] = max((s[1] for s in window), default=0)
    run["reserved_core_s"] = core_s
    stats_path = os.path.join(directory, "coordinator.json")
    if os.path.exists(stats_path):
        stats = json.load(open(stats_path))
        shift = stats["start_wall_s"] - t0  # coordinator time + shift = time from the first join
        run["timeline"] = [(t + shift, n, used) for t, n, used in stats["timeline"]]
        run["decisions"] = [dict(d, t=d["t"] + shift) for d in stats["decisions"]]
        run["migrations"] = [dict(m, t=m["t"] + shift) for m in stats["migration_log"]]
        drained = [d["t"] for d in run["decisions"] if d["decision"] == "remove"]
        run["last_drain"] = max(drained) if drained else None
        run["pool_peak"] = max((n for _, n, _ in run["timeline"]), default=0)
        run["pool_final"] = run["timeline"][-1][1] if run["timeline"] else 0
    return run


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--step", type=float, default=2)
    args = parser.parse_args()
    jobs = load_jobs(args.out)
    reps = sorted(glob.glob(os.path.join(args.out, "rep*")))
    runs = {m: [load_run(os.path.join(r, m), jobs) for r in reps] for m in ("dedicated", "service")}
    print(f"Load step: {len(jobs)} jobs join one every {args.step:g} s and leave when done; "
          f"{len(reps)} repetitions\n")
    for i, run in enumerate(runs["service"], 1):
        print(f"Service, repetition {i}: pool size over time (every 1 s; t from the first join)\n")
        print("| t s | jobs running | aggregators | aggregation cores used |")
        print("|---|---|---|---|")
        t, end = 0.0, max(t for t, _, _ in run["timeline"])
        while t <= end + 1e-9:
            rows = [r for r in run["timeline"] if t <= r[0] < t + 1]
            if rows:
                running = sum(1 for j in jobs
                              if run["start"][j["name"]] <= t + 0.5 < run["end"][j["name"]])
                pool = max(n for _, n, _ in rows)
                used = statistics.mean(u for _, _, u in rows)
                print(f"| {t:.0f} | {running} | {pool} | {used:.3f} |")
            t += 1
        print()
        print("| t s | decision | aggregator | reason |")
        print("|---|---|---|---|")
        for d in run["decisions"]:
            print(f"| {d['t']:.2f} | {d['decision']} | {d.get('aggregator', '')} | {d['reason']} |")
        print()
        print("| t s | migration | from -> to | reason |")
        print("|---|---|---|---|")
        for m in run["migrations"]:
            print(f"| {m['t']:.2f} | {m['job']} shard {m['shard']} | {m['from']} -> {m['to']} | "
                  f"{m['reason']} |")
        print()
    print("Per job (mean, min-max over repetitions): JCT on dedicated PS vs on the elastic service\n")
    print("| job | joins at s | JCT dedicated s | JCT service s | change |")
    print("|---|---|---|---|---|")
    changes = []
    for k, job in enumerate(jobs):
        d = [r["jct"][job["name"]] for r in runs["dedicated"]]
        s = [r["jct"][job["name"]] for r in runs["service"]]
        change = 100 * (statistics.mean(s) / statistics.mean(d) - 1)
        changes.append(change)
        print(f"| {job['name']} | {k * args.step:g} | {spread(d)} | {spread(s)} | {change:+.1f}% |")
    avg_d = [statistics.mean(r["jct"].values()) for r in runs["dedicated"]]
    avg_s = [statistics.mean(r["jct"].values()) for r in runs["service"]]
    print(f"| **average** | | {spread(avg_d)} | {spread(avg_s)} | "
          f"{100 * (statistics.mean(avg_s) / statistics.mean(avg_d) - 1):+.1f}% "
          f"(worst job {max(changes):+.1f}%) |")
    print()
    print("Cores reserved from the first join to the end of the last job\n")
    print("| cores reserved | dedicated | service | saving |")
    print("|---|---|---|---|")
    for label, key, fmt in (("time average", "reserved_mean", "{:.2f}"),
                            ("peak", "reserved_peak", "{:.0f}"),
                            ("core-seconds", "reserved_core_s", "{:.1f}")):
        d = [r[key] for r in runs["dedicated"]]
        s = [r[key] for r in runs["service"]]
        saving = 100 * (1 - statistics.mean(s) / statistics.mean(d)) if statistics.mean(d) else 0
        print(f"| {label} | {spread(d, fmt)} | {spread(s, fmt)} | {saving:.1f}% |")
    print()
    service = runs["service"]
    adds = [sum(d["decision"] == "add" for d in r["decisions"]) for r in service]
    drains = [sum(d["decision"] == "remove" for d in r["decisions"]) for r in service]
    moves = [len(r["migrations"]) for r in service]
    drained = [r["last_drain"] - r["load_end"] for r in service if r["last_drain"] is not None]
    print(f"service, per run: {spread(adds, '{:.1f}')} add and {spread(drains, '{:.1f}')} drain "
          f"decisions, {spread(moves, '{:.1f}')} migrations; pool peak "
          f"{spread([r['pool_peak'] for r in service], '{:.1f}')}, at the end "
          f"{spread([r['pool_final'] for r in service], '{:.1f}')} aggregator(s); last drain "
          f"decision relative to the end of the load (s): "
          + (", ".join(f"{d:+.1f}" for d in drained) if drained else "none"))

if __name__ == "__main__":
    main()

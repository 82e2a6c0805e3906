#!/usr/bin/env python3
"""The packet simulator against the real netns harness, side by side.

Reads a kept run of bench/tensorlights.sh (KEEP=DIR: DIR/runs/<policy>/rep<r>/job<j>/ with
server.json and worker<k>.csv), simulates the same setting with `jigsaw net --ps-jobs` (the same
jobs, workers, iterations, link rate and model; each policy's compute drawn from the compute_s
samples its real workers measured; SEEDS seeds) and prints, per policy, the mean iteration time,
the average JCT, the straggler spread and the change against fifo, real beside simulated.

Iteration time: per job, the time between the last worker's receipt of consecutive versions
(iterations 2..K, so that the start-up is left out), averaged over jobs and repetitions.

Usage: validate_sim.py KEPT_DIR --jigsaw build/jigsaw [--rate 200Mbps] [--seeds 5]
       [--interval 5s] [--model mlp] [--payload 1448] [--out DIR] [--extra "NET OPTIONS"]
"""
import argparse
import csv
import glob
import json
import os
import statistics
import subprocess
import sys


def real_metrics(policy_dir):
    iteration, jct, spread, compute = [], [], [], []
    for job_dir in sorted(glob.glob(os.path.join(policy_dir, "rep*", "job*"))):
        with open(os.path.join(job_dir, "server.json")) as f:
            start = json.load(f)["start_wall_s"]
        ends = {}  # iteration -> [end_wall_s per worker]
        for path in glob.glob(os.path.join(job_dir, "worker*.csv")):
            for row in csv.DictReader(open(path)):
                ends.setdefault(int(row["iteration"]), []).append(float(row["end_wall_s"]))
                compute.append(float(row["compute_s"]))
        last = [max(ends[t]) for t in sorted(ends)]
        iteration += [b - a for a, b in zip(last, last[1:])]
        spread += [max(ends[t]) - min(ends[t]) for t in sorted(ends)]
        jct.append(last[-1] - start)
    return {"iteration": statistics.fmean(iteration), "jct": statistics.fmean(jct),
            "spread": statistics.fmean(spread), "compute": compute,
            "jobs": len(glob.glob(os.path.join(policy_dir, "rep0", "job*"))),
            "workers": len(glob.glob(os.path.join(policy_dir, "rep0", "job0", "worker*.csv"))),
            "iters": len(ends)}


def simulate(args, policy, real, seed, out):
    samples = os.path.join(out, f"compute_{policy}.csv")
    with open(samples, "w") as f:
        f.write("compute_s\n" + "".join(f"{c:.6f}\n" for c in real["compute"]))
    run_dir = os.path.join(out, f"{policy}_seed{seed}")
    name = policy.split(":")[0]
    command = [args.jigsaw, "net", "--quiet", "--out", run_dir,
               "--topology", f"rack:hosts={real['workers'] + 1},rate={args.rate}",
               "--payload", str(args.payload), "--ps-jobs", str(real["jobs"]),
               "--ps-workers", str(real["workers"]), "--ps-model", args.model,
               "--ps-iterations", str(real["iters"]), "--ps-compute-file", samples,
               "--seed", str(seed), "--host-priority", name]
    command += args.extra.split()
    if name == "rotate":
        command += ["--rotate-interval", policy.split(":")[1] if ":" in policy else args.interval]
    subprocess.run(command, check=True)
    summary = json.load(open(os.path.join(run_dir, "summary.json")))
    iteration = [t for job in summary["ps_jobs"] for t in job["iteration_times_us"][1:]]
    spread = [t for job in summary["ps_jobs"] for t in job["straggler_spread_us"]]
    return {"iteration": statistics.fmean(iteration) / 1e6,
            "jct": summary["ps"]["avg_jct_us"] / 1e6, "spread": statistics.fmean(spread) / 1e6}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kept")
    parser.add_argument("--jigsaw", default="build/jigsaw")
    parser.add_argument("--rate", default="200Mbps")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--interval", default="5s")
    parser.add_argument("--model", default="mlp")
    parser.add_argument("--payload", type=int, default=1448)
    parser.add_argument("--out", default="/tmp/tensorlights_validate")
    parser.add_argument("--extra", default="", help="more jigsaw net options, one string")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    runs = os.path.join(args.kept, "runs")
    policies = sorted(os.listdir(runs), key=lambda p: (p != "fifo", p))
    rows = {}
    for policy in policies:
        if not os.path.isdir(os.path.join(runs, policy)):
            continue
        real = real_metrics(os.path.join(runs, policy))
        sims = [simulate(args, policy, real, s, args.out) for s in range(1, args.seeds + 1)]
        sim = {k: statistics.fmean(s[k] for s in sims) for k in ("iteration", "jct", "spread")}
        rows[policy] = (real, sim)
    fifo_real, fifo_sim = rows["fifo"]
    print("| policy | real iteration s | sim iteration s | sim vs real | real avg JCT s | "
          "sim avg JCT s | real JCT vs fifo | sim JCT vs fifo | real spread s | sim spread s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for policy, (real, sim) in rows.items():
        print(f"| {policy} | {real['iteration']:.3f} | {sim['iteration']:.3f} | "
              f"{100 * (sim['iteration'] / real['iteration'] - 1):+.1f}% | {real['jct']:.2f} | "
              f"{sim['jct']:.2f} | {100 * (real['jct'] / fifo_real['jct'] - 1):+.1f}% | "
              f"{100 * (sim['jct'] / fifo_sim['jct'] - 1):+.1f}% | {real['spread']:.3f} | "
              f"{sim['spread']:.4f} |")
    print(f"(real: {args.kept}, {fifo_real['jobs']} jobs x {fifo_real['workers']} workers, "
          f"{fifo_real['iters']} iterations; simulated: {args.seeds} seeds, compute samples "
          f"median {statistics.median(fifo_real['compute']) * 1e3:.1f} ms)", file=sys.stderr)


if __name__ == "__main__":
    main()

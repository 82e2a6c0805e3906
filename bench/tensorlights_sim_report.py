#!/usr/bin/env python3
"""Tables of bench/tensorlights_sim.sh: reads OUT/<config>/<policy>/seed<s>/summary.json.

Per configuration and policy: runs, mean average JCT over seeds, the change of average JCT
against fifo on the same seed (paired), its mean with a 95% interval (Student t over seeds),
the worst seed's change, the mean straggler spread and its change, and the PS hosts' mean uplink
utilisation. Usage: tensorlights_sim_report.py OUT [--markdown]
"""
import json
import math
import os
import statistics
import sys

# Two-sided 95% Student t quantiles by degrees of freedom (1..30); 1.96 beyond.
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
       2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060,
       2.056, 2.052, 2.048, 2.045, 2.042]


def interval(values):
    """Mean and half-width of the 95% interval of the mean."""
    if not values:
        return float("nan"), float("nan")
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, float("nan")
    t = T95[len(values) - 2] if len(values) - 1 <= len(T95) else 1.96
    return mean, t * statistics.stdev(values) / math.sqrt(len(values))


def load(out):
    runs = {}  # config -> policy -> seed -> summary
    for config in sorted(os.listdir(out)):
        config_dir = os.path.join(out, config)
        if not os.path.isdir(config_dir):
            continue
        for policy in sorted(os.listdir(config_dir)):
            policy_dir = os.path.join(config_dir, policy)
            if not os.path.isdir(policy_dir):
                continue
            for seed_dir in sorted(os.listdir(policy_dir)):
                path = os.path.join(policy_dir, seed_dir, "summary.json")
                if not seed_dir.startswith("seed") or not os.path.exists(path):
                    continue
                with open(path) as f:
                    summary = json.load(f)
                if summary["ps"]["unfinished_jobs"]:
                    continue
                runs.setdefault(config, {}).setdefault(policy, {})[int(seed_dir[4:])] = summary
    return runs


def row(config, policy, by_seed, fifo):
    jct = [s["ps"]["avg_jct_us"] / 1e6 for s in by_seed.values()]
    spread = [s["ps"]["straggler_spread_mean_us"] / 1e6 for s in by_seed.values()]
    util = [statistics.fmean(h["uplink_utilization"] for h in s["ps"]["ps_host_links"])
            for s in by_seed.values()]
    changes, spread_changes = [], []
    for seed, s in by_seed.items():
        if seed in fifo:
            base = fifo[seed]["ps"]
            changes.append(100 * (s["ps"]["avg_jct_us"] / base["avg_jct_us"] - 1))
            spread_changes.append(
                100 * (s["ps"]["straggler_spread_mean_us"] / base["straggler_spread_mean_us"] - 1))
    mean, half = interval(changes)
    worst = max(changes) if changes else float("nan")
    best = min(changes) if changes else float("nan")
    smean, shalf = interval(spread_changes)
    return (f"| {config} | {policy} | {len(jct)} | {statistics.fmean(jct):.3f} | "
            f"{mean:+.2f}% ± {half:.2f} | {best:+.2f}% / {worst:+.2f}% | "
            f"{statistics.fmean(spread):.4f} | {smean:+.1f}% ± {shalf:.1f} | "
            f"{statistics.fmean(util):.3f} |")


def main():
    out = sys.argv[1]
    runs = load(out)
    print("| config | policy | seeds | avg JCT s (mean) | JCT vs fifo, mean ± 95% | "
          "best / worst seed | straggler spread s | spread vs fifo ± 95% | PS uplink util |")
    print("|---|---|---|---|---|---|---|---|---|")
    for config, policies in runs.items():
        fifo = policies.get("fifo", {})
        for policy in sorted(policies, key=lambda p: (p != "fifo", p)):
            print(row(config, policy, policies[policy], fifo))


if __name__ == "__main__":
    main()

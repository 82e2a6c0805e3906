#!/usr/bin/env python3
"""Tables of bench/spb_bench.sh from its run folders (RUNS/<plan>/seed<s>/ and RUNS/overlap/).

Every figure is measured by `jigsaw train` except the "profiled work" column, an estimate: the
profile's per-block backward cost (jigsaw profile) summed over the depths each rank actually ran.
"""
import argparse
import csv
import glob
import json
import math
import os
import random
import statistics
import subprocess
import sys

T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}


def load(path):
    with open(path) as f:
        return json.load(f)


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def mean_ci(values):
    m = statistics.mean(values)
    if len(values) < 2:
        return m, float("nan"), float("nan")
    half = T95.get(len(values) - 1, 1.96) * statistics.stdev(values) / math.sqrt(len(values))
    return m, m - half, m + half


def backward_work(iterations, profile, blocks):
    """Per rank: sum over iterations of the profiled backward cost of the depth it ran (weights
    of the lowest trained block only, weights and inputs of the others)."""
    per_block = profile["blocks"]
    cost = []
    for d in range(blocks + 1):
        c = 0.0
        for b in range(blocks - d, blocks):
            c += per_block[b]["backward_weight_s"] if b == blocks - d else per_block[b]["backward_s"]
        cost.append(c)
    work = {}
    for r in iterations:
        work[r["rank"]] = work.get(r["rank"], 0.0) + cost[int(r["depth"])]
    return work


def score(a, full, r, seeds):
    """`jigsaw spb-efficiency` over the seeds: measured compute and profiled work."""
    out = {}
    for kind in ("measured", "profiled"):
        cmd = [a.jigsaw, "spb-efficiency", "--target-fraction", str(a.target_fraction),
               "--target", str(a.target)]
        for s in seeds:
            cmd += ["--full", full[s]["dir"], "--plan", r[s]["dir"]]
        if kind == "profiled":
            cmd += ["--profile", os.path.join(a.runs, "profile.json")]
        out[kind] = json.loads(subprocess.run(cmd, check=True, capture_output=True,
                                              text=True).stdout)
    out["seeds"] = seeds
    return out


def interval_text(values, digits=2):
    m, lo, hi = mean_ci(values)
    if len(values) < 2:
        return f"{m:.{digits}f} (one seed)"
    return f"{m:.{digits}f} ({lo:.{digits}f}-{hi:.{digits}f})"


def print_efficiency(a, scores, efficiencies, runs):
    if not scores:
        return
    any_score = next(iter(scores.values()))["measured"]
    print(f"Time to accuracy: target {any_score['target']:.4f} = {a.target_fraction:g} x full's "
          f"final test accuracy averaged over its seeds ({any_score['full_mean_final_accuracy']:.4f})"
          if a.target <= 0 else f"Time to accuracy: target {a.target:.4f} (absolute)")
    print()
    print("| plan | iterations: full / plan (95% CI) | busiest rank's compute, measured: full / "
          "plan | profiled work: full / plan | frozen-phase efficiency | seeds scored at the "
          "target / before saving / below it |")
    print("|---|---|---|---|---|---|")
    for plan, sc in scores.items():
        seeds = sc["measured"]["seeds"]
        it = [x["iteration_ratio"] for x in seeds]
        comp = [x["compute_ratio"] for x in seeds]
        prof = [x["compute_ratio"] for x in sc["profiled"]["seeds"]]
        frozen = [x["frozen_phase_efficiency"] for x in seeds
                  if x["frozen_phase_efficiency"] is not None]
        pooled = pooled_frozen(seeds)
        rules = [x["rule"] for x in seeds]
        at = sum(x["scored_at_target"] for x in seeds)
        before = sum(r.startswith("target reached before saving") for r in rules)
        below = len(rules) - at - before
        frozen_text = "-" if pooled is None else (
            f"{pooled[0]:.2f} ({pooled[1]:.2f}-{pooled[2]:.2f}); per seed " +
            ", ".join(f"{v:.2f}" for v in frozen))
        print(f"| {plan} | {interval_text(it)} | {interval_text(comp)} | {interval_text(prof)} | "
              f"{frozen_text} | {at} / {before} / {below} |")
        if plan in ("staircase-world", "rotating-world", "adaptive"):
            efficiencies.append({"plan": plan, "iteration": it, "compute": comp,
                                 "profiled": prof, "frozen": frozen, "pooled": pooled, "at": at,
                                 "before": before, "below": below,
                                 "target": sc["measured"]["target"],
                                 "summary": runs[plan][sc["seeds"][0]]["summary"],
                                 "seeds": sc["seeds"]})
    print()
    print("Per seed: iterations (and the busiest rank's compute time) full backprop needs to reach "
          "the target / what the plan needs; ratios above 1 mean the plan is ahead. A seed whose "
          "plan reaches the target before its first saving iteration, or never, is scored at the "
          "plan's final accuracy instead (iterations full needs to reach it / the plan's "
          "iterations). Frozen-phase efficiency: progress per iteration after the first freeze "
          "relative to full, pooled over the seeds: sum of (t_full - W) / sum of (t_plan - W) "
          "(a seed's own ratio is unstable when its plan reaches the target soon after W), with a "
          "95% bootstrap interval over seeds (10,000 resamples). Other columns: mean and 95% "
          "t-interval over seeds (`jigsaw spb-efficiency`, src/spb/time_to_accuracy.h).")


def pooled_frozen(seeds, resamples=10000):
    """Frozen-phase efficiency pooled over seeds, sum (t_full - W) / sum (t_plan - W), and its
    95% bootstrap percentile interval (seeds resampled with replacement, a fixed RNG)."""
    parts = [(x["full_iterations"] - x["first_saving_iteration"],
              x["plan_iterations"] - x["first_saving_iteration"]) for x in seeds
             if x["frozen_phase_efficiency"] is not None]
    if not parts or sum(p for _, p in parts) <= 0:
        return None

    def ratio(sample):
        den = sum(p for _, p in sample)
        return max(0.0, sum(f for f, _ in sample) / den) if den > 0 else 0.0
    rng = random.Random(1)
    boot = sorted(ratio([rng.choice(parts) for _ in parts]) for _ in range(resamples))
    return ratio(parts), boot[int(0.025 * resamples)], boot[int(0.975 * resamples) - 1]


def fmt(x, digits=2):
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--dataset", required=True)
    p.add_argument("--target", type=float, default=0.0,
                   help="an absolute target accuracy (0: --target-fraction of full's final)")
    p.add_argument("--target-fraction", type=float, default=0.99)
    p.add_argument("--warmup-fraction", type=float, required=True,
                   help="the adaptive warm-up's share of the run (for the bytes bound)")
    p.add_argument("--jigsaw", default="build/jigsaw", help="binary for `jigsaw spb-efficiency`")
    p.add_argument("--plans", required=True)
    p.add_argument("--write-efficiency")
    p.add_argument("--protocol", default="",
                   help="label of the protocol in the title (e.g. \"reduced protocol (CPU)\")")
    a = p.parse_args()
    profile = load(os.path.join(a.runs, "profile.json"))
    plans = a.plans.split()
    runs = {}
    for plan in plans:
        for d in sorted(glob.glob(os.path.join(a.runs, plan, "seed*"))):
            if not os.path.exists(os.path.join(d, "summary.json")):
                continue
            s = load(os.path.join(d, "summary.json"))
            if s["epochs_done"] != s["epochs"]:
                continue
            seed = int(os.path.basename(d)[4:])
            it = rows(os.path.join(d, "iterations.csv"))
            runs.setdefault(plan, {})[seed] = {
                "dir": d,
                "summary": s,
                "work": max(backward_work(it, profile, s["blocks"]).values()),
                "total_iterations": s["iterations_per_epoch"] * s["epochs"],
            }
    if "full" not in runs:
        sys.exit("spb_report: no complete full-backprop run in " + a.runs)
    full = runs["full"]
    any_full = next(iter(full.values()))["summary"]
    block_bytes = any_full["parameter_bytes_per_block"]
    total_iters = next(iter(full.values()))["total_iterations"]
    bound = (1 - block_bytes[-1] / sum(block_bytes)) * max(0.0, 1 - a.warmup_fraction)

    seeds = sorted(full)
    protocol = f"{a.protocol}, " if a.protocol else ""
    print(f"## {a.model} on {a.dataset}, {protocol}{len(seeds)} seeds "
          f"({', '.join(map(str, seeds))}), {any_full['epochs']} epochs ({total_iters} "
          f"iterations), {any_full['workers']} workers x batch {any_full['batch_per_worker']}, "
          f"device {any_full.get('device', 'cpu')}")
    print()
    print("Max-over-ranks figures; ratios are plan / full per seed (mean over seeds, worst seed in "
          "brackets). Bytes bound: a plan that froze every block below the top one from the "
          f"end of a warm-up of {a.warmup_fraction:g} of the run on would save "
          f"{100 * bound:.1f}% of the busiest rank's bytes.")
    print()
    print("| plan | test accuracy (mean ± sd, worst) | gap to full (points) | backward compute, "
          "measured | backward work, profiled | activation memory | wire bytes | share of bytes "
          "bound | iteration ms |")
    print("|---|---|---|---|---|---|---|---|---|")
    efficiencies = []
    scores = {}
    for plan in plans:
        if plan not in runs:
            continue
        r = runs[plan]
        seeds = sorted(s for s in r if s in full)
        acc = [r[s]["summary"]["test_accuracy"] for s in seeds]
        gap = [100 * (r[s]["summary"]["test_accuracy"] - full[s]["summary"]["test_accuracy"])
               for s in seeds]

        def ratios(key):
            # nan where full's figure is 0: a run on a GPU counts host tensors only, so its
            # activation memory reads 0 (docs/runtime.md "Limits").
            return [r[s]["summary"][key] / full[s]["summary"][key]
                    if full[s]["summary"][key] else float("nan") for s in seeds]

        back = ratios("max_rank_backward_total_s")
        work = [r[s]["work"] / full[s]["work"] for s in seeds]
        act = ratios("max_rank_activation_mb")
        wire = ratios("max_rank_wire_bytes_per_iter")
        share = [(1 - w) / bound if bound > 0 else float("nan") for w in wire]
        iter_ms = [1000 * r[s]["summary"]["mean_iter_s"] for s in seeds]
        sd = statistics.stdev(acc) if len(acc) > 1 else 0.0
        print(f"| {plan} | {statistics.mean(acc):.4f} ± {sd:.4f}, {min(acc):.4f} | "
              f"{statistics.mean(gap):+.2f} [{min(gap):+.2f}] | {statistics.mean(back):.2f} "
              f"[{max(back):.2f}] | {statistics.mean(work):.2f} [{max(work):.2f}] | "
              f"{fmt(statistics.mean(act))} [{fmt(max(act))}] | {statistics.mean(wire):.2f} "
              f"[{max(wire):.2f}] | {fmt(statistics.mean(share))} | "
              f"{statistics.mean(iter_ms):.1f} |")
        if plan != "full":
            scores[plan] = score(a, full, r, seeds)
    print()
    print_efficiency(a, scores, efficiencies, runs)
    print()
    overlap = {}
    for d in glob.glob(os.path.join(a.runs, "overlap", "*")):
        name = os.path.basename(d)
        plan, flag, _ = name.rsplit("-", 2)
        if os.path.exists(os.path.join(d, "summary.json")):
            s = load(os.path.join(d, "summary.json"))
            overlap.setdefault((plan, flag), []).append(1000 * s["mean_iter_s"])
    if overlap:
        print("| plan | iteration ms, exchange overlapped with backward | not overlapped | "
              "overlapped / not |")
        print("|---|---|---|---|")
        for plan in ("full", "staircase"):
            on, off = overlap.get((plan, "true")), overlap.get((plan, "false"))
            if on and off:
                print(f"| {plan} | {statistics.mean(on):.1f} ({min(on):.1f}-{max(on):.1f}) | "
                      f"{statistics.mean(off):.1f} ({min(off):.1f}-{max(off):.1f}) | "
                      f"{statistics.mean(on) / statistics.mean(off):.2f} |")
    if a.write_efficiency:
        write_efficiency(a, efficiencies, any_full)


def rounded_ci(values, lo_clamp=None, hi_clamp=None):
    m, lo, hi = mean_ci(values)
    if len(values) < 2:
        return None
    if lo_clamp is not None:
        lo, hi = max(lo_clamp, lo), max(lo_clamp, hi)
    if hi_clamp is not None:
        lo, hi = min(hi_clamp, lo), min(hi_clamp, hi)
    return [round(lo, 4), round(hi, 4)]


def write_efficiency(a, efficiencies, any_full):
    """Merges the measured entries into the data file: one per (model, plan), replacing only
    those this run measured."""
    path = a.write_efficiency
    data = load(path) if os.path.exists(path) else {}
    if data.get("format") != "jigsaw-spb-statistical-efficiency-v2":
        data = {"format": "jigsaw-spb-statistical-efficiency-v2", "entries": []}
    data["definition"] = (
        "statistical_efficiency = min(1, mean over seeds of (iterations full backprop needs to "
        "reach target_accuracy) / (iterations the plan needs)); ci_95 is the t-interval of that "
        "mean (uncapped). Entries with target_rule set use a late target (that fraction of full's "
        "final accuracy averaged over the seeds) and score a seed whose plan reaches it before "
        "its first saving iteration, or never, at the plan's final accuracy; they also give the "
        "busiest rank's compute ratio and the frozen-phase efficiency (docs/"
        "spb_statistical_efficiency.md); measured by bench/spb_bench.sh")
    written = {e["summary"]["spb"] for e in efficiencies}
    kept = [e for e in data["entries"]
            if not (e["model"] == a.model and e.get("dataset") == a.dataset
                    and e["plan"] in written)]
    for e in efficiencies:
        s = e["summary"]
        it, frozen = e["iteration"], e["frozen"]
        entry = {
            "model": a.model, "dataset": a.dataset, "plan": s["spb"], "bench_plan": e["plan"],
            "spb_scale": s["spb_scale"], "workers": s["workers"],
            "batch_per_worker": s["batch_per_worker"], "epochs": s["epochs"],
            "plan_iterations": s["iterations_per_epoch"] * s["epochs"],
            "target_rule": f"{a.target_fraction:g} x full's mean final accuracy"
            if a.target <= 0 else "absolute",
            "target_accuracy": round(e["target"], 4), "seeds": len(it),
            "seed_numbers": e["seeds"],
            "per_seed": [round(v, 4) for v in it],
            "seeds_scored_at_target": e["at"], "seeds_before_saving": e["before"],
            "seeds_below_target": e["below"],
            "statistical_efficiency": round(min(1.0, statistics.mean(it)), 4),
            # One seed has no interval: null (the reader requires seeds == 1 then).
            "ci_95": rounded_ci(it),
            "compute_ratio_measured": round(statistics.mean(e["compute"]), 4),
            "compute_ratio_measured_ci_95": rounded_ci(e["compute"]),
            "compute_ratio_profiled": round(statistics.mean(e["profiled"]), 4),
            "compute_ratio_profiled_ci_95": rounded_ci(e["profiled"]),
            "command": "bench/spb_bench.sh MODEL=" + a.model,
            "device": s.get("device", "cpu"),
        }
        if a.protocol:
            entry["protocol"] = a.protocol
        if e["pooled"] is not None:
            value, low, high = e["pooled"]
            entry["frozen_phase_per_seed"] = [round(v, 4) for v in frozen]
            entry["frozen_phase_efficiency"] = round(min(1.0, value), 4)
            # Bootstrap interval of the pooled ratio, clamped to [0, 1] (null for one seed).
            capped = entry["frozen_phase_efficiency"]
            entry["frozen_phase_ci_95"] = (None if len(frozen) < 2 else
                                           [round(min(1.0, low, capped), 4),
                                            round(max(min(1.0, high), capped), 4)])
        kept.append(entry)
    data["entries"] = kept
    with open(path + ".tmp", "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main()

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
import statistics
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


def iterations_to(evals, target):
    """First iteration count at which the evaluated accuracy reaches target (linear between
    evaluations, from (0, 0.1)), or None."""
    previous = (0, 0.1)
    for e in evals:
        it, acc = int(e["iteration"]), float(e["test_accuracy"])
        if acc >= target:
            (i0, a0) = previous
            if acc == a0:
                return it
            return i0 + (target - a0) / (acc - a0) * (it - i0)
        previous = (it, acc)
    return None


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


def fmt(x, digits=2):
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--dataset", required=True)
    p.add_argument("--target", type=float, required=True)
    p.add_argument("--warmup-epochs", type=float, required=True)
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
                "summary": s,
                "evals": rows(os.path.join(d, "evals.csv")),
                "work": max(backward_work(it, profile, s["blocks"]).values()),
                "total_iterations": s["iterations_per_epoch"] * s["epochs"],
            }
    if "full" not in runs:
        sys.exit("spb_report: no complete full-backprop run in " + a.runs)
    full = runs["full"]
    any_full = next(iter(full.values()))["summary"]
    block_bytes = any_full["parameter_bytes_per_block"]
    total_iters = next(iter(full.values()))["total_iterations"]
    warm = a.warmup_epochs * any_full["iterations_per_epoch"]
    bound = (1 - block_bytes[-1] / sum(block_bytes)) * max(0.0, 1 - warm / total_iters)

    seeds = sorted(full)
    protocol = f"{a.protocol}, " if a.protocol else ""
    print(f"## {a.model} on {a.dataset}, {protocol}{len(seeds)} seeds "
          f"({', '.join(map(str, seeds))}), {any_full['epochs']} epochs ({total_iters} "
          f"iterations), {any_full['workers']} workers x batch {any_full['batch_per_worker']}, "
          f"device {any_full.get('device', 'cpu')}")
    print()
    print("Max-over-ranks figures; ratios are plan / full per seed (mean over seeds, worst seed in "
          "brackets). Bytes bound: a plan that froze every block below the top one from the "
          f"{a.warmup_epochs:g}-epoch warm-up on would save {100 * bound:.1f}% of the busiest "
          "rank's bytes.")
    print()
    print("| plan | test accuracy (mean ± sd, worst) | gap to full (points) | backward compute, "
          "measured | backward work, profiled | activation memory | wire bytes | share of bytes "
          "bound | iteration ms | statistical efficiency (95% CI) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    efficiencies = []
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
            # activation memory reads 0 (docs/runtime.md "Training on a GPU").
            return [r[s]["summary"][key] / full[s]["summary"][key]
                    if full[s]["summary"][key] else float("nan") for s in seeds]

        back = [r[s]["summary"]["max_rank_backward_total_s"] /
                full[s]["summary"]["max_rank_backward_total_s"] for s in seeds]
        work = [r[s]["work"] / full[s]["work"] for s in seeds]
        act = ratios("max_rank_activation_mb")
        wire = ratios("max_rank_wire_bytes_per_iter")
        share = [(1 - w) / bound if bound > 0 else float("nan") for w in wire]
        iter_ms = [1000 * r[s]["summary"]["mean_iter_s"] for s in seeds]
        eff = []
        short = 0  # seeds whose plan never reached the target
        for s in seeds:
            f_it = iterations_to(full[s]["evals"], a.target)
            p_it = iterations_to(r[s]["evals"], a.target)
            if f_it is not None and p_it is not None:
                eff.append(f_it / p_it)
            else:
                # The plan stopped below the target: compare at its own final accuracy instead
                # (iterations full needed to reach it / iterations the plan used).
                final = float(r[s]["summary"]["test_accuracy"])
                f_final = iterations_to(full[s]["evals"], final)
                plan_its = (r[s]["summary"]["iterations_per_epoch"] *
                            r[s]["summary"]["epochs"])
                if f_final is not None:
                    eff.append(f_final / plan_its)
                    short += 1
        em, lo, hi = mean_ci(eff) if eff else (float("nan"),) * 3
        interval = f"({lo:.2f}-{hi:.2f})" if len(eff) > 1 else "(one seed)"
        eff_text = (f"{em:.2f} {interval}" if eff else "target not reached")
        if short:
            eff_text += f", {short} of {len(seeds)} seeds below the target: at their final accuracy"
        sd = statistics.stdev(acc) if len(acc) > 1 else 0.0
        print(f"| {plan} | {statistics.mean(acc):.4f} ± {sd:.4f}, {min(acc):.4f} | "
              f"{statistics.mean(gap):+.2f} [{min(gap):+.2f}] | {statistics.mean(back):.2f} "
              f"[{max(back):.2f}] | {statistics.mean(work):.2f} [{max(work):.2f}] | "
              f"{fmt(statistics.mean(act))} [{fmt(max(act))}] | {statistics.mean(wire):.2f} "
              f"[{max(wire):.2f}] | {fmt(statistics.mean(share))} | "
              f"{statistics.mean(iter_ms):.1f} | {eff_text} |")
        # The data file keeps one entry per plan as the simulator looks it up: the default
        # gradient scale (world) and the adaptive plan's default structure.
        if eff and plan in ("staircase-world", "rotating-world", "adaptive"):
            command = r[seeds[0]]["summary"]
            efficiencies.append({"plan": plan, "values": eff, "mean": em, "ci": [lo, hi],
                                 "seeds": len(eff), "below_target": short,
                                 "summary": command})
    print()
    print(f"Statistical efficiency: iterations full backprop needs to reach {a.target:.2f} test "
          f"accuracy (evaluated every few dozen iterations on a fixed test subset, linear between "
          f"evaluations) / iterations the plan needs, per seed; mean and 95% t-interval. A seed "
          f"whose plan never reaches the target counts at the plan's final accuracy instead "
          f"(iterations full needs to reach it / iterations the plan used).")
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


def write_efficiency(a, efficiencies, any_full):
    path = a.write_efficiency
    data = load(path) if os.path.exists(path) else {}
    if data.get("format") != "jigsaw-spb-statistical-efficiency-v2":
        data = {"format": "jigsaw-spb-statistical-efficiency-v2", "entries": []}
    data["definition"] = (
        "statistical_efficiency = min(1, mean over seeds of (iterations full backprop needs to "
        "reach target_accuracy) / (iterations the plan needs)); ci_95 is the t-interval of that "
        "mean (uncapped); measured by bench/spb_bench.sh")
    kept = [e for e in data["entries"]
            if not (e["model"] == a.model and e.get("dataset") == a.dataset)]
    for e in efficiencies:
        s = e["summary"]
        kept.append({
            "model": a.model, "dataset": a.dataset, "plan": s["spb"], "bench_plan": e["plan"],
            "spb_scale": s["spb_scale"], "workers": s["workers"],
            "batch_per_worker": s["batch_per_worker"], "epochs": s["epochs"],
            "plan_iterations": s["iterations_per_epoch"] * s["epochs"],
            "target_accuracy": a.target, "seeds": e["seeds"],
            "per_seed": [round(v, 4) for v in e["values"]],
            "seeds_below_target": e["below_target"],
            "statistical_efficiency": round(min(1.0, e["mean"]), 4),
            # One seed has no interval: null (the reader requires seeds == 1 then).
            "ci_95": (None if e["seeds"] < 2 else [round(e["ci"][0], 4), round(e["ci"][1], 4)]),
            "command": "bench/spb_bench.sh MODEL=" + a.model,
            "device": s.get("device", "cpu"),
        })
        if a.protocol:
            kept[-1]["protocol"] = a.protocol
    data["entries"] = kept
    with open(path + ".tmp", "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main()

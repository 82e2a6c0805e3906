#!/usr/bin/env python3
"""Tables of bench/net/pl2.sh from its output folder (see that script for the runs).

Usage: pl2_report.py OUT "TRANSPORTS" "LOADS" "SEEDS" "RING_TRANSPORTS" WITH_SERVER FULL SHARDS
Prints Markdown: the issue-15 headline first (per load and transport: RPC p99, drops, ML
iteration p99 of the parameter-server job, PL2 vs Homa-like, with the spread over seeds and
whether each target is met), then the details.
"""
import json
import re
import statistics
import sys

RPC_TARGET_US = 60.0
ML_TARGET = -30.0  # percent: PL2's ML iteration p99 at least 30% below Homa-like's


def load(path):
    with open(path + "/summary.json") as f:
        return json.load(f)


def pct(values, p):
    values = sorted(values)
    if not values:
        return float("nan")
    rank = p / 100 * (len(values) - 1)
    lo = int(rank)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (rank - lo)


def spread(values, fmt="{:.1f}"):
    values = [v for v in values if v == v]  # drop NaN (a seed without a finished iteration)
    if not values:
        return "-"
    if len(values) == 1:
        return fmt.format(values[0])
    return (fmt + " [" + fmt + ".." + fmt + "]").format(
        statistics.mean(values), min(values), max(values))


def cpu(path):
    try:
        with open(path + ".cpu") as f:
            user, system = f.read().split()[-2:]
        return float(user) + float(system)
    except (OSError, ValueError):
        return float("nan")


def rel(x, base):
    return 100 * (x - base) / base if base == base and x == x else float("nan")


def fmt_rel(value):
    return "-" if value != value else f"{value:+.1f}%"


def fmt_us(value):
    return "-" if value != value else f"{value:.1f}"


class Cell:
    """One (study, transport, load): the runs of every seed."""

    def __init__(self, out, prefix, transport, load_name, seeds):
        self.paths = [f"{out}/{prefix}-{transport}-{load_name.rstrip('%')}-{s}" for s in seeds]
        self.runs = [load(p) for p in self.paths]
        self.rack = [r["rack"] for r in self.runs]
        self.per_seed_it = [x["ml"]["iteration_times_us"] for x in self.rack]
        self.iterations = [i for it in self.per_seed_it for i in it]
        self.ml_p99 = pct(self.iterations, 99)
        self.ml_p50 = pct(self.iterations, 50)
        self.seed_p99 = [pct(it, 99) for it in self.per_seed_it]
        self.rpc_p99 = [x["rpc"]["p99_us"] for x in self.rack]
        self.drops = [r["network"]["drops"] for r in self.runs]
        self.cpu = sum(cpu(p) for p in self.paths)


def main():
    out, transports, loads, seeds = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4].split()
    ring_transports, with_server, full, shards = sys.argv[5].split(), sys.argv[6], sys.argv[7], sys.argv[8]
    seeds_text = " ".join(seeds)
    cells = {(t, l): Cell(out, "ps", t, l, seeds) for t in transports for l in loads}
    total_cpu = sum(c.cpu for c in cells.values())

    print(f"# Headline: RPC p99 and drops, and ML iteration p99 of a parameter-server job"
          f" (PS + 7 workers, model in {shards} shards, away from the server), per load and transport;"
          f" mean [min..max] over seeds {seeds_text}")
    print("ML p99 = pooled over the seeds' iterations (n); per-seed p99 in brackets. vs Homa-like ="
          " (ML p99 - Homa-like's) / Homa-like's, pooled [per seed min..max].")
    print()
    print("| load | transport | RPC p99 (us) | drops | ML iterations | ML p99 (us) | per-seed ML p99 (us) | ML p99 vs Homa-like |")
    print("|---|---|---|---|---|---|---|---|")
    verdicts = []
    for l in loads:
        base = cells.get(("homa", l))
        for t in transports:
            c = cells[(t, l)]
            versus = "-"
            if base is not None and t != "homa":
                per_seed = [rel(x, b) for x, b in zip(c.seed_p99, base.seed_p99)]
                per_seed = [v for v in per_seed if v == v]
                versus = fmt_rel(rel(c.ml_p99, base.ml_p99))
                if per_seed:
                    versus += f" [{min(per_seed):+.1f}..{max(per_seed):+.1f}]"
            print(f"| {l} | {t} | {spread(c.rpc_p99)} | {spread(c.drops, '{:.0f}')} | {len(c.iterations)} | "
                  f"{fmt_us(c.ml_p99)} | {spread(c.seed_p99)} | {versus} |")
        if ("pl2", l) in cells and base is not None:
            c = cells[("pl2", l)]
            worst = max(rel(x, b) for x, b in zip(c.seed_p99, base.seed_p99))
            verdicts.append((l, rel(c.ml_p99, base.ml_p99), worst))
    print()
    if ("pl2", "400%") in cells:
        c = cells[("pl2", "400%")]
        met = max(c.rpc_p99) < RPC_TARGET_US and max(c.drops) == 0
        print(f"Target RPC: PL2 p99 at 400% = {spread(c.rpc_p99)} us (worst seed {max(c.rpc_p99):.1f}),"
              f" drops {sum(c.drops)}: {'MET' if met else 'NOT MET'} (< {RPC_TARGET_US:.0f} us, 0 drops)")
    for l, pooled, worst in verdicts:
        met = pooled <= ML_TARGET and worst <= ML_TARGET
        print(f"Target ML at {l}: PL2 vs Homa-like {fmt_rel(pooled)} (worst seed {fmt_rel(worst)}):"
              f" {'MET' if met else 'NOT MET'} (<= {ML_TARGET:.0f}%)")
    print()

    print(f"# Details of the headline runs: memcached-like RPC latency (us) and queues; mean [min..max] over seeds {seeds_text}")
    print("| transport | load | RPC p50 | RPC p99 | RPC p99.9 | unfinished RPCs | drops | max switch queue (KB) | hot-link wire rate (Gbps) | ML p50 (us) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for t in transports:
        for l in loads:
            c = cells[(t, l)]
            r = c.rack
            seconds = [x["network"]["simulated_time_us"] * 1e-6 for x in c.runs]
            # Port 0 of the switch leads to host 0, the memcached server.
            hot = [x["rack"]["switch_ports"][0]["tx_bytes"] * 8 / s / 1e9 for x, s in zip(c.runs, seconds)]
            print(f"| {t} | {l} | {spread([x['rpc']['p50_us'] for x in r])} | {spread(c.rpc_p99)} | "
                  f"{spread([x['rpc']['p999_us'] for x in r])} | {sum(x['rpc']['unfinished'] for x in r)} | "
                  f"{spread(c.drops, '{:.0f}')} | {spread([x['network']['max_queue_bytes'] / 1000 for x in c.runs])} | "
                  f"{spread(hot)} | {fmt_us(c.ml_p50)} |")
    print()

    if ring_transports:
        ring = {(t, l): Cell(out, "ring", t, l, seeds) for t in ring_transports for l in loads}
        total_cpu += sum(c.cpu for c in ring.values())
        print("# Ring all-reduce job instead (not the headline): the same model over the same 8 hosts as a"
              " ring, back to back; iteration transfer time (us) pooled over seeds, per-seed p99 spread")
        print("| transport | load | iterations | ML p50 | ML p99 | per-seed ML p99 | ML p99 vs Homa-like | RPC p99 (us) | drops |")
        print("|---|---|---|---|---|---|---|---|---|")
        for t in ring_transports:
            for l in loads:
                c = ring[(t, l)]
                base = ring.get(("homa", l))
                versus = fmt_rel(rel(c.ml_p99, base.ml_p99)) if base is not None and t != "homa" else "-"
                print(f"| {t} | {l} | {len(c.iterations)} | {fmt_us(c.ml_p50)} | {fmt_us(c.ml_p99)} | {spread(c.seed_p99)} | "
                      f"{versus} | {spread(c.rpc_p99)} | {spread(c.drops, '{:.0f}')} |")
        print()

    if with_server == "1":
        ws_transports = ("pl2", "pl2-shared", "homa")
        ws = {(t, l): Cell(out, "ws", t, l, seeds) for t in ws_transports for l in loads}
        total_cpu += sum(c.cpu for c in ws.values())
        print("# Parameter server ON the loaded memcached server (host 0; workers 4, 8, ..., 28): iteration"
              " transfer time (us), pooled over seeds; iterations finished per seed (a seed with none has no p99)")
        print("| transport | load | iterations per seed | ML p50 | ML p99 | per-seed ML p99 | ML p99 vs Homa-like | RPC p99 (us) | RPC p99.9 (us) | drops |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for l in loads:
            for t in ws_transports:
                c = ws[(t, l)]
                base = ws[("homa", l)]
                versus = fmt_rel(rel(c.ml_p99, base.ml_p99)) if t != "homa" else "-"
                print(f"| {t} | {l} | {'/'.join(str(len(i)) for i in c.per_seed_it)} | {fmt_us(c.ml_p50)} | "
                      f"{fmt_us(c.ml_p99)} | {spread(c.seed_p99)} | {versus} | {spread(c.rpc_p99)} | "
                      f"{spread([x['rpc']['p999_us'] for x in c.rack])} | {spread(c.drops, '{:.0f}')} |")
        print()

    if full == "1":
        print("# Full size, 400% load, seed 1: ResNet-50 (102.2 MB) ring all-reduce, 100 ms simulated (the speed target:"
              " < 1 min for 32 hosts x 100 ms)")
        print("| transport | RPC p99 (us) | drops | max queue (KB) | ML iterations | ML p99 (us) | events | wall (s) | events/s (wall) | CPU s | events per CPU s |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for t in ("pl2", "homa"):
            path = f"{out}/full-ring-{t}"
            x = load(path)
            total_cpu += cpu(path)
            speed = open(path + ".speed").read()
            m = re.search(r"in ([0-9.]+) s wall \(([0-9]+) events/s", speed)
            it = x["rack"]["ml"]["iteration_times_us"]
            seconds = cpu(path)
            print(f"| {t} | {x['rack']['rpc']['p99_us']} | {x['network']['drops']} | "
                  f"{x['network']['max_queue_bytes'] / 1000:.1f} | {len(it)} | {pct(it, 99):.1f} | "
                  f"{x['network']['events']} | {m.group(1) if m else '?'} | {m.group(2) if m else '?'} | "
                  f"{seconds:.1f} | {x['network']['events'] / seconds:.0f} |")
        print()
        print(f"# Full size, 400% load, seed 1: ResNet-50 (102.2 MB) as a parameter server ({shards} shards), 120 ms of"
              " arrivals + 10 ms drain")
        print("| transport | ML iterations | iteration times (ms) | ML p99 vs Homa-like | RPC p99 (us) | unfinished RPCs | drops | max queue (KB) | RESENDs | sender timeouts | CPU s |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        full_ps = {t: load(f"{out}/full-ps-{t}") for t in ("pl2", "pl2-shared", "homa", "homa-linux")}
        base = pct(full_ps["homa"]["rack"]["ml"]["iteration_times_us"], 99)
        for t, x in full_ps.items():
            total_cpu += cpu(f"{out}/full-ps-{t}")
            it = x["rack"]["ml"]["iteration_times_us"]
            homa = x["rack"].get("homa", {})
            print(f"| {t} | {len(it)} | {', '.join(f'{i / 1000:.1f}' for i in it) or '-'} | "
                  f"{fmt_rel(rel(pct(it, 99), base)) if t != 'homa' else '-'} | {x['rack']['rpc']['p99_us']} | "
                  f"{x['rack']['rpc']['unfinished']} | {x['network']['drops']} | "
                  f"{x['network']['max_queue_bytes'] / 1000:.1f} | {homa.get('resend_requests', '-')} | "
                  f"{homa.get('sender_timeouts', '-')} | {cpu(f'{out}/full-ps-{t}'):.1f} |")
        print()
    print(f"CPU seconds of all runs (user + sys): {total_cpu:.0f}")


if __name__ == "__main__":
    main()

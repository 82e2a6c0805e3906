#!/usr/bin/env bash
# Heterogeneous clusters: heterogeneity-aware against heterogeneity-agnostic max-min
# fairness (Gavel's LAS: max_min_fairness_perf vs max_min_fairness) and Tiresias-style LAS
# (las_perf vs las) on Gavel's simulated 36 V100 + 36 P100 + 36 K80 cluster with Gavel's
# throughput table, in Gavel's continuous-single setup: single-GPU jobs of the table's 26 types
# with Gavel's Philly-like durations (bench/hetero_trace.py), Poisson arrivals at each rate
# (jobs/hour), average JCT over a window of job ids after the cluster has filled (Gavel measures
# jobs 4000-5000 of a continuing stream; so do we, of 6,000). 360 s rounds,
# no deadline, no preemption overhead.
# Usage: bench/hetero.sh [shared-data-dir] [rates (default "2 3 4 4.5 5 5.5")] [seeds (default "1 2 3")]
# Env: JOBS (stream length, default 6000), WINDOW (default 4000:5000), POLICIES, RESULTS.
# Prints a markdown table: window average JCT (mean over seeds, min-max), and aware/agnostic.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA="${1:-../shared/data}"
RATES="${2:-2 3 4 4.5 5 5.5}"
SEEDS="${3:-1 2 3}"
JOBS="${JOBS:-6000}"
WINDOW="${WINDOW:-4000:5000}"
POLICIES="${POLICIES:-max_min_fairness max_min_fairness_perf las las_perf}"
[ -x build/jigsaw ] || scripts/build.sh >/dev/null
GAVEL="$DATA/throughputs/gavel_simulation_throughputs.json"
[ -f "$GAVEL" ] || { echo "hetero.sh: $GAVEL not found" >&2; exit 2; }
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
RESULTS="${RESULTS:-$OUT/results.tsv}"
: >"$RESULTS"
for seed in $SEEDS; do
  python3 bench/hetero_trace.py "$GAVEL" 4000 "$seed" >"$OUT/source_$seed.trace"
done
for rate in $RATES; do
  for seed in $SEEDS; do
    for policy in $POLICIES; do
      dir="$OUT/run"
      rm -rf "$dir"
      start=$(date +%s.%N)
      build/jigsaw sim --quiet --out "$dir" --trace "$OUT/source_$seed.trace" \
        --trace-format gavel --throughputs "$GAVEL" --cluster-spec v100:36,p100:36,k80:36 \
        --policy "$policy" --round-s 360 --deadline-factor 0 --preemption-overhead-s 0 \
        --arrival-rate-jph "$rate" --stream-jobs "$JOBS" --measure-window "$WINDOW" \
        --seed "$seed" --round-log delta
      end=$(date +%s.%N)
      python3 - "$dir/summary.json" "$rate" "$seed" "$policy" "$(echo "$end - $start" | bc)" \
        >>"$RESULTS" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
w = s["window"]
print("\t".join(sys.argv[2:5] + [str(w["avg_jct_s"]), str(w["p99_jct_s"]), sys.argv[5]]))
PY
    done
  done
done
python3 - "$RESULTS" "$POLICIES" <<'PY'
import statistics, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
policies = sys.argv[2].split()
by = {}
for rate, seed, policy, jct, p99, wall in rows:
    by.setdefault((float(rate), policy), []).append((float(jct) / 3600, float(p99) / 3600, float(wall)))
rates = sorted({k[0] for k in by})
print("| jobs/h | " + " | ".join(f"{p} avg JCT h (min-max)" for p in policies) +
      " | mmf agnostic/aware | las agnostic/aware |")
print("|---" * (len(policies) + 3) + "|")
for rate in rates:
    cells, mean = [], {}
    for p in policies:
        v = [x[0] for x in by.get((rate, p), [])]
        if not v:
            cells.append("-")
            continue
        mean[p] = statistics.mean(v)
        cells.append(f"{mean[p]:.1f} ({min(v):.1f}-{max(v):.1f})")
    def ratio(a, b):
        return f"{mean[a] / mean[b]:.2f}x" if a in mean and b in mean else "-"
    print(f"| {rate:g} | " + " | ".join(cells) + " | " +
          ratio("max_min_fairness", "max_min_fairness_perf") + " | " + ratio("las", "las_perf") + " |")
walls = [x[2] for v in by.values() for x in v]
print(f"\n{len(walls)} runs, wall per run {min(walls):.1f}-{max(walls):.1f} s "
      f"(mean {statistics.mean(walls):.1f} s)")
PY

#!/usr/bin/env bash
# JigSaw evaluation (issues 4 and 13): jigsaw against every baseline and both ablations (packing =
# packing without SPB; spb_only = SPB without packing) on
#  1. Shockwave's traces, each with its own throughput table and per-scale Shockwave config (120
#     jobs / 32 GPUs TACC; 220 / 64, 460 / 128, 900 / 256 WISR): fixed traces, so the metric that
#     moves is the makespan (cluster_efficiency = useful work / (GPUs x makespan)) and JCT;
#  2. Philly-derived steady-state streams (Gavel-style): 256 GPUs, 4,000 jobs drawn from
#     philly.csv (jobs up to 24 h alone, 1.96 GPU-hours on average), typed with Gavel's job types,
#     Poisson arrivals at three loads (jobs/hour), measured over jobs [1000, 3000), several seeds
#     (the seed draws the jobs, their arrivals and their types): window JCT and goodput;
#     sections 1 and 2 also run jigsaw at both ends of the measured statistical efficiency's 95%
#     interval (--spb-efficiency-bound low|high) and at 1.0 (an upper bound);
#  3. which mechanism each point of gain comes from (packing, one SPB guest, several SPB guests,
#     interleaved staircase pairs), at the measured statistical efficiency and at 1.0;
#  4. sensitivity of jigsaw to every unmeasured assumption and planner threshold.
# Co-location rates come from Gavel's table (--colocation-throughputs): Shockwave's tables copy
# Gavel's co-location entries but re-measured the isolated throughputs.
# Usage: bench/jigsaw_bench.sh [shared-data-dir] [seeds (default "1 2 3")] [sections (default
# "1 2 3 4")]. Prints markdown tables; keeps the raw results in $RESULTS if set (sections "none"
# with RESULTS set prints the tables of an earlier run again).
set -euo pipefail
cd "$(dirname "$0")/.."
DATA="${1:-../shared/data}"
SEEDS="${2:-1 2 3}"
SECTIONS="${3:-1 2 3 4}"
[ -x build/jigsaw ] || scripts/build.sh >/dev/null
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
RESULTS="${RESULTS:-$OUT/results.tsv}"
[ "$SECTIONS" = none ] || : >"$RESULTS"
GAVEL="$DATA/throughputs/gavel_simulation_throughputs.json"
BASELINES="fifo srtf las min_total_duration max_min_fairness finish_time_fairness gandiva_fair \
allox max_sum_throughput shockwave"

# run SECTION WORKLOAD SEED LABEL args...: one simulation, one line of $RESULTS.
run() {
  local section="$1" workload="$2" seed="$3" label="$4"
  shift 4
  local dir="$OUT/run"
  rm -rf "$dir"
  local start end
  start=$(date +%s.%N)
  build/jigsaw sim --quiet --out "$dir" "$@" 2>/dev/null
  end=$(date +%s.%N)
  python3 - "$dir/summary.json" "$section" "$workload" "$seed" "$label" \
    "$(echo "$end - $start" | bc)" >>"$RESULTS" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
w = s.get("window", {})
print("\t".join(map(str, sys.argv[2:6] + [s["cluster_efficiency"], s["makespan_s"], s["avg_jct_s"],
      s["p99_jct_s"], s["worst_ftf_rho"], w.get("avg_jct_s", ""), w.get("p99_jct_s", ""),
      w.get("goodput", ""), w.get("util", ""), sys.argv[6]])))
PY
}

# Shockwave traces: jobs GPUs throughputs config
TRACES="120 32 shockwave_tacc_throughputs.json tacc_32gpus.json
220 64 shockwave_wisr_throughputs.json scale_64gpus.json
460 128 shockwave_wisr_throughputs.json scale_128gpus.json
900 256 shockwave_wisr_throughputs.json scale_256gpus.json"
trace_args() {  # jobs gpus throughputs config
  echo "--trace $DATA/traces/shockwave/shockwave_$1.trace --throughputs $DATA/throughputs/$3 \
    --colocation-throughputs ${COLOC:-$GAVEL} --gpus $2 \
    --shockwave-config $DATA/configs/shockwave/$4"
}
# Streams: 256 GPUs; load L means L x 256 / 1.955 jobs/hour (1.955 GPU-hours per job).
LOADS="0.7 1.0 1.3"
stream_args() {  # load seed
  local jph
  jph=$(awk -v l="$1" 'BEGIN { printf "%.2f", l * 256 / 1.955 }')
  echo "--trace $DATA/traces/philly/philly.csv \
    --throughputs $DATA/throughputs/shockwave_tacc_throughputs.json \
    --colocation-throughputs ${COLOC:-$GAVEL} --assign-job-types $2 --seed $2 \
    --arrival-rate-jph $jph \
    --stream-jobs 4000 --stream-max-hours 24 --measure-window 1000:3000 --gpus 256"
}
# The mechanisms, one added at a time: label policy args.
CHAIN="shockwave shockwave
+packing packing
+one-spb-guest jigsaw --jigsaw-interleave 0 --jigsaw-max-guests 1
+more-spb-guests jigsaw --jigsaw-interleave 0
+interleave jigsaw"
# The same on the least-served base (streams only): its first step runs no guests at all.
CHAIN_LS="least_served spb_only --jigsaw-spb-guests 0 --jigsaw-interleave 0 --colocation-base least_served
+packing packing --colocation-base least_served
+one-spb-guest jigsaw --jigsaw-interleave 0 --jigsaw-max-guests 1 --colocation-base least_served
+more-spb-guests jigsaw --jigsaw-interleave 0 --colocation-base least_served
+interleave jigsaw --colocation-base least_served"
SENSITIVITY="default
--spb-efficiency-bound low
--spb-efficiency-bound high
--jigsaw-sharing-overhead 0.1
--jigsaw-sharing-overhead 0.25
--jigsaw-min-gain 0
--jigsaw-min-gain 0.3
--jigsaw-min-host-rate 0.3
--jigsaw-min-host-rate 0.7
--jigsaw-critical-path-guard 0
--jigsaw-max-guests 1
--jigsaw-max-guests 8
--jigsaw-spb-memory 0
--gpu-memory-gb 32
--spb-warmup 0.3
--spb-fallback-blocks 4
--spb-fallback-blocks 16
--spb-fallback-backward-ratio 1
--spb-fallback-backward-ratio 3
--nic-gbps 10
--nic-gbps 100
--gpus-per-node 8
--colocation-base least_served
--colocation-throughputs-mixed"

[ "$SECTIONS" = none ] && SECTIONS=""
for section in $SECTIONS; do
  case "$section" in
  1)
    while read -r jobs gpus throughputs config; do
      # shellcheck disable=SC2046
      for policy in $BASELINES packing spb_only jigsaw; do
        run 1 "shockwave_$jobs / $gpus GPUs" - "$policy" --policy "$policy" \
          $(trace_args "$jobs" "$gpus" "$throughputs" "$config")
      done
      # shellcheck disable=SC2046
      run 1 "shockwave_$jobs / $gpus GPUs" - "jigsaw (least_served base)" --policy jigsaw \
        --colocation-base least_served $(trace_args "$jobs" "$gpus" "$throughputs" "$config")
      # The ends of the measured efficiency's 95% interval.
      for bound in low high; do
        # shellcheck disable=SC2046
        run 1 "shockwave_$jobs / $gpus GPUs" - "jigsaw, eff $bound" --policy jigsaw \
          --spb-efficiency-bound "$bound" $(trace_args "$jobs" "$gpus" "$throughputs" "$config")
      done
      # Upper bounds: SPB that costs no statistical efficiency.
      # shellcheck disable=SC2046
      run 1 "shockwave_$jobs / $gpus GPUs" - "jigsaw, eff 1.0" --policy jigsaw \
        --spb-efficiency 1.0 $(trace_args "$jobs" "$gpus" "$throughputs" "$config")
      # shellcheck disable=SC2046
      run 1 "shockwave_$jobs / $gpus GPUs" - "jigsaw (least_served base), eff 1.0" \
        --policy jigsaw --colocation-base least_served --spb-efficiency 1.0 \
        $(trace_args "$jobs" "$gpus" "$throughputs" "$config")
    done <<<"$TRACES"
    ;;
  2)
    for load in $LOADS; do
      for seed in $SEEDS; do
        # shellcheck disable=SC2046
        for policy in $BASELINES packing spb_only jigsaw; do
          run 2 "stream load $load" "$seed" "$policy" --policy "$policy" $(stream_args "$load" "$seed")
        done
        # shellcheck disable=SC2046
        run 2 "stream load $load" "$seed" "jigsaw (least_served base)" --policy jigsaw \
          --colocation-base least_served $(stream_args "$load" "$seed")
        for bound in low high; do
          # shellcheck disable=SC2046
          run 2 "stream load $load" "$seed" "jigsaw, eff $bound" --policy jigsaw \
            --spb-efficiency-bound "$bound" $(stream_args "$load" "$seed")
        done
        # shellcheck disable=SC2046
        run 2 "stream load $load" "$seed" "jigsaw, eff 1.0" --policy jigsaw --spb-efficiency 1.0 \
          $(stream_args "$load" "$seed")
        # shellcheck disable=SC2046
        run 2 "stream load $load" "$seed" "jigsaw (least_served base), eff 1.0" --policy jigsaw \
          --colocation-base least_served --spb-efficiency 1.0 $(stream_args "$load" "$seed")
      done
    done
    ;;
  3)
    for eff in auto 1.0; do
      while read -r jobs gpus throughputs config; do
        while read -r label policy extra; do
          # shellcheck disable=SC2046,SC2086
          run 3 "shockwave_$jobs / $gpus GPUs" "eff $eff" "$label" --policy "$policy" $extra \
            --spb-efficiency "$eff" $(trace_args "$jobs" "$gpus" "$throughputs" "$config")
        done <<<"$CHAIN"
      done <<<"$TRACES"
      for seed in $SEEDS; do
        while read -r label policy extra; do
          # shellcheck disable=SC2046,SC2086
          run 3 "stream load 1.3" "eff $eff, seed $seed" "$label" --policy "$policy" $extra \
            --spb-efficiency "$eff" $(stream_args 1.3 "$seed")
        done <<<"$CHAIN"
        while read -r label policy extra; do
          # shellcheck disable=SC2046,SC2086
          run 3 "stream load 1.3, least_served base" "eff $eff, seed $seed" "$label" \
            --policy "$policy" $extra --spb-efficiency "$eff" $(stream_args 1.3 "$seed")
        done <<<"$CHAIN_LS"
      done
    done
    ;;
  3ls)  # only the least-served chain (also part of section 3)
    for eff in auto 1.0; do
      for seed in $SEEDS; do
        while read -r label policy extra; do
          # shellcheck disable=SC2046,SC2086
          run 3 "stream load 1.3, least_served base" "eff $eff, seed $seed" "$label" \
            --policy "$policy" $extra --spb-efficiency "$eff" $(stream_args 1.3 "$seed")
        done <<<"$CHAIN_LS"
      done
    done
    ;;
  4)
    for eff in auto 1.0; do
      while read -r option; do
        args="$option"
        COLOC=""
        [ "$option" = default ] && args=""
        if [ "$option" = --colocation-throughputs-mixed ]; then
          args=""  # each workload's own (Shockwave) table: Gavel's pairs over re-measured isolated
          COLOC="$DATA/throughputs/shockwave_wisr_throughputs.json"
        fi
        # shellcheck disable=SC2046,SC2086
        run 4 "shockwave_220 / 64 GPUs" "eff $eff" "$option" --policy jigsaw --spb-efficiency "$eff" \
          $(trace_args 220 64 shockwave_wisr_throughputs.json scale_64gpus.json) $args
        [ "$option" = --colocation-throughputs-mixed ] &&
          COLOC="$DATA/throughputs/shockwave_tacc_throughputs.json"
        # shellcheck disable=SC2046,SC2086
        run 4 "stream load 1.3, seed 1" "eff $eff" "$option" --policy jigsaw \
          --spb-efficiency "$eff" $(stream_args 1.3 1) $args
        COLOC=""
      done <<<"$SENSITIVITY"
    done
    ;;
  esac
done

python3 - "$RESULTS" <<'PY'
import collections, statistics, sys

rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
KEYS = ["section", "workload", "seed", "label", "eff", "makespan", "jct", "p99", "rho", "wjct",
        "wp99", "goodput", "util", "wall"]
rows = [dict(zip(KEYS, r)) for r in rows]
for r in rows:
    for k in KEYS[4:]:
        r[k] = float(r[k]) if r[k] not in ("", "-") else None
BASELINES = ("fifo srtf las min_total_duration max_min_fairness finish_time_fairness gandiva_fair "
             "allox max_sum_throughput shockwave").split()
COLOCATING = ["packing", "spb_only", "jigsaw", "jigsaw, eff low", "jigsaw, eff high",
              "jigsaw (least_served base)", "jigsaw, eff 1.0", "jigsaw (least_served base), eff 1.0"]

def spread(values, fmt="{:+.1f}%"):
    if len(values) == 1:
        return fmt.format(values[0])
    return (fmt + " ± " + fmt.replace("+", "")).format(statistics.mean(values),
                                                      statistics.stdev(values)) + \
        " [" + ", ".join(fmt.format(v) for v in values) + "]"

def pct(a, b):
    return 100.0 * (a / b - 1.0)

sec = collections.defaultdict(list)
for r in rows:
    sec[r["section"]].append(r)

if sec["1"]:
    print("\n## 1. Shockwave traces (per-scale configs; co-location normalised by Gavel's table)\n")
    print("| workload | policy | cluster_efficiency | makespan s | avg JCT s | p99 JCT s | worst rho | wall s |")
    print("|---|---|---|---|---|---|---|---|")
    for r in sec["1"]:
        print(f"| {r['workload']} | {r['label']} | {r['eff']:.4f} | {r['makespan']:,.0f} | "
              f"{r['jct']:,.0f} | {r['p99']:,.0f} | {r['rho']:.2f} | {r['wall']:.1f} |")
    print("\nGain of each co-locating planner over the best baseline of the workload: efficiency "
          "(= 1 / makespan), then avg JCT reduction. \"eff 1.0\" rows assume SPB costs no "
          "statistical efficiency (an upper bound):\n")
    print("| workload | best baseline: efficiency | best baseline: avg JCT | " +
          " | ".join(COLOCATING) + " |")
    print("|---|---|---|" + "---|" * len(COLOCATING))
    for w in dict.fromkeys(r["workload"] for r in sec["1"]):
        rs = {r["label"]: r for r in sec["1"] if r["workload"] == w}
        be = max((rs[b] for b in BASELINES), key=lambda r: r["eff"])
        bj = min((rs[b] for b in BASELINES), key=lambda r: r["jct"])
        cells = [f"{pct(rs[p]['eff'], be['eff']):+.1f}% / {-pct(rs[p]['jct'], bj['jct']):+.1f}%"
                 for p in COLOCATING if p in rs]
        print(f"| {w} | {be['label']} {be['eff']:.4f} | {bj['label']} {bj['jct']:,.0f} | " +
              " | ".join(cells) + " |")

if sec["2"]:
    print("\n## 2. Philly-derived streams, 256 GPUs, window jobs [1000, 3000) (mean over seeds)\n")
    print("| load | policy | window avg JCT s | window p99 JCT s | window goodput | seeds |")
    print("|---|---|---|---|---|---|")
    groups = collections.defaultdict(list)
    for r in sec["2"]:
        groups[(r["workload"], r["label"])].append(r)
    for (w, label), rs in groups.items():
        print(f"| {w} | {label} | {statistics.mean(r['wjct'] for r in rs):,.0f} | "
              f"{statistics.mean(r['wp99'] for r in rs):,.0f} | "
              f"{statistics.mean(r['goodput'] for r in rs):.4f} | {len(rs)} |")
    print("\nGain over the best baseline of each seed (goodput: higher is better; JCT: reduction), "
          "mean ± std over seeds [per seed]:\n")
    print("| load | policy | goodput gain | avg JCT gain | p99 JCT gain |")
    print("|---|---|---|---|---|")
    for w in dict.fromkeys(r["workload"] for r in sec["2"]):
        for p in COLOCATING:
            g, j, q = [], [], []
            for seed in dict.fromkeys(r["seed"] for r in sec["2"] if r["workload"] == w):
                rs = {r["label"]: r for r in sec["2"] if r["workload"] == w and r["seed"] == seed}
                if p not in rs:
                    continue
                g.append(pct(rs[p]["goodput"], max(rs[b]["goodput"] for b in BASELINES)))
                j.append(-pct(rs[p]["wjct"], min(rs[b]["wjct"] for b in BASELINES)))
                q.append(-pct(rs[p]["wp99"], min(rs[b]["wp99"] for b in BASELINES)))
            if not g:
                continue
            print(f"| {w} | {p} | {spread(g)} | {spread(j)} | {spread(q)} |")

if sec["3"]:
    print("\n## 3. Where the gain comes from: mechanisms added one at a time\n")
    print("Each step's change against the step before (traces: cluster_efficiency = 1 / makespan; "
          "streams: window goodput), and jigsaw's total over its base planner alone:\n")
    print("| workload | efficiency | +packing | +one SPB guest | +more SPB guests | +interleave | total |")
    print("|---|---|---|---|---|---|---|")
    table = collections.defaultdict(dict)
    for r in sec["3"]:
        metric = r["goodput"] if r["goodput"] is not None else r["eff"]
        table[(r["workload"], r["seed"])][r["label"]] = metric
    for (w, setting), m in table.items():
        order = ["least_served" if "least_served" in m else "shockwave", "+packing",
                 "+one-spb-guest", "+more-spb-guests", "+interleave"]
        steps = [pct(m[order[i]], m[order[i - 1]]) for i in range(1, len(order))]
        print(f"| {w} | {setting} | " + " | ".join(f"{s:+.2f}%" for s in steps) +
              f" | {pct(m[order[-1]], m[order[0]]):+.2f}% |")

if sec["4"]:
    print("\n## 4. Sensitivity of jigsaw to each assumption and threshold\n")
    print("Change of jigsaw's metric against its default run (traces: cluster_efficiency; streams: "
          "window goodput, with window avg JCT change):\n")
    print("| option | 220 / 64, measured eff | 220 / 64, eff 1.0 | stream 1.3, measured eff | stream 1.3, eff 1.0 |")
    print("|---|---|---|---|---|")
    base = {}
    for r in sec["4"]:
        if r["label"] == "default":
            base[(r["workload"], r["seed"])] = r
    labels = list(dict.fromkeys(r["label"] for r in sec["4"]))
    for label in labels:
        cells = []
        for w in ("shockwave_220 / 64 GPUs", "stream load 1.3, seed 1"):
            for e in ("eff auto", "eff 1.0"):
                r = next((x for x in sec["4"] if x["label"] == label and x["workload"] == w
                          and x["seed"] == e), None)
                b = base.get((w, e))
                if r is None or b is None:
                    cells.append("-")
                elif r["goodput"] is not None:
                    cells.append(f"{r['goodput']:.4f} ({pct(r['goodput'], b['goodput']):+.2f}%; "
                                 f"JCT {pct(r['wjct'], b['wjct']):+.1f}%)")
                else:
                    cells.append(f"{r['eff']:.4f} ({pct(r['eff'], b['eff']):+.2f}%)")
        print(f"| {label} | " + " | ".join(cells) + " |")
PY

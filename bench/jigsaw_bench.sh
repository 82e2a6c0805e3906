#!/usr/bin/env bash
# JigSaw evaluation: jigsaw against every baseline (Shockwave included) and its ablations
# (packing = packing without SPB; spb_only = SPB without packing) on
#  1. Shockwave's traces, each with its own throughput table and per-scale Shockwave config (120
#     jobs / 32 GPUs TACC; 220 / 64, 460 / 128, 900 / 256 WISR): fixed traces, so the metric that
#     moves is the makespan (cluster_efficiency = useful work / (GPUs x makespan)) and JCT;
#  2. Philly-derived steady-state streams (Gavel-style): 256 GPUs, 4,000 jobs drawn from
#     philly.csv (jobs up to 24 h alone, 1.96 GPU-hours on average), typed with Gavel's job types,
#     Poisson arrivals at loads 1.0, 1.3 and 1.6, measured over jobs [1000, 3000), seeds 1-3
#     (the seed draws the jobs, their arrivals and their types): window JCT and goodput;
#     sections 1 and 2 also run jigsaw at both ends of the measured statistical efficiencies' 95%
#     intervals (--spb-efficiency-bound low|high);
#  3. which mechanism each point of gain comes from, added one at a time: packing, phase SPB (every
#     job runs its adaptive phase plan: warm-up, then its frozen phase), guests in the capacity a
#     frozen phase frees, staircase SPB guests, interleaved staircase pairs;
#  4. sensitivity of jigsaw's window goodput at load 1.3 (seeds as section 2) to every factor that
#     could cap it (statistical efficiency, interference, frozen fraction, compute-boundness,
#     memory) and to the planner's thresholds, with the value each factor would need for the
#     headline targets (+15% over the best baseline, +5 points of it from SPB).
# Co-location rates come from Gavel's table (--colocation-throughputs): Shockwave's tables copy
# Gavel's co-location entries but re-measured the isolated throughputs.
# Usage: bench/jigsaw_bench.sh [shared-data-dir] [seeds (default "1 2 3")] [sections (default
# "1 2 3 4")]. Prints markdown tables; keeps the raw results in $RESULTS if set (sections "none"
# with RESULTS set prints the tables of an earlier run again). LOADS overrides the stream loads,
# SENSITIVITY section 4's rows; JOBS=N runs N simulations at a time (default 1; each is one
# process).
set -euo pipefail
cd "$(dirname "$0")/.."
DATA="${1:-../shared/data}"
SEEDS="${2:-1 2 3}"
SECTIONS="${3:-1 2 3 4}"
LOADS="${LOADS:-1.0 1.3 1.6}"
JOBS="${JOBS:-1}"
[ -x build/jigsaw ] || scripts/build.sh >/dev/null
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
RESULTS="${RESULTS:-$OUT/results.tsv}"
[ "$SECTIONS" = none ] || : >"$RESULTS"
GAVEL="$DATA/throughputs/gavel_simulation_throughputs.json"
BASELINES="fifo srtf las min_total_duration max_min_fairness finish_time_fairness gandiva_fair \
allox max_sum_throughput shockwave"
# A private copy, so a rebuild during the bench cannot change the binary between runs.
cp build/jigsaw "$OUT/jigsaw"
cp -r data "$OUT/data"  # the data files it reads (core/data_files.h: <exe>/data)

# run SECTION WORKLOAD SEED LABEL args...: one simulation, one line of $RESULTS.
run() {
  local section="$1" workload="$2" seed="$3" label="$4"
  shift 4
  local dir
  dir="$(mktemp -d "$OUT/run.XXXXXX")"
  local start end
  start=$(date +%s.%N)
  "$OUT/jigsaw" sim --quiet --out "$dir" "$@" 2>/dev/null
  end=$(date +%s.%N)
  python3 - "$dir/summary.json" "$section" "$workload" "$seed" "$label" \
    "$(echo "$end - $start" | bc)" >>"$RESULTS" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
w = s.get("window", {})
spb = s.get("spb", {})
print("\t".join(map(str, sys.argv[2:6] + [s["cluster_efficiency"], s["makespan_s"], s["avg_jct_s"],
      s["p99_jct_s"], s["worst_ftf_rho"], w.get("avg_jct_s", ""), w.get("p99_jct_s", ""),
      w.get("goodput", ""), w.get("util", ""), sys.argv[6],
      spb.get("window_gpu_s_freed", spb.get("gpu_s_freed", "")),
      spb.get("window_guest_gpu_s_in_freed_capacity", spb.get("guest_gpu_s_in_freed_capacity", "")),
      json.dumps(spb.get("job_rounds", {}), separators=(",", ":"))])))
PY
  rm -rf "$dir"
}

# Runs "run" lines read from stdin, JOBS at a time.
run_all() {
  local pids=()
  while read -r line; do
    [ -n "$line" ] || continue
    # shellcheck disable=SC2086
    eval "run $line" &
    pids+=("$!")
    if [ "${#pids[@]}" -ge "$JOBS" ]; then
      wait "${pids[0]}"
      pids=("${pids[@]:1}")
    fi
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
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
stream_args() {  # load seed
  local jph
  jph=$(awk -v l="$1" 'BEGIN { printf "%.2f", l * 256 / 1.955 }')
  echo "--trace $DATA/traces/philly/philly.csv \
--throughputs $DATA/throughputs/shockwave_tacc_throughputs.json \
--colocation-throughputs ${COLOC:-$GAVEL} --assign-job-types $2 --seed $2 \
--arrival-rate-jph $jph --stream-jobs 4000 --stream-max-hours 24 --measure-window 1000:3000 \
--gpus 256"
}
# The mechanisms, one added at a time: label policy args.
CHAIN="shockwave shockwave
+packing packing
+phase-spb jigsaw --jigsaw-freed-guests 0 --jigsaw-spb-guests 0 --jigsaw-interleave 0
+freed-guests jigsaw --jigsaw-spb-guests 0 --jigsaw-interleave 0
+staircase-guests jigsaw --jigsaw-interleave 0
+interleave jigsaw"
# Sensitivity rows: "factor|option" (factor groups the rows of one capping factor); the
# SENSITIVITY variable replaces the list (for example, to add rows to an earlier run's results).
# "combined" sets the two factors that move the gain most to their most favourable swept values.
SENSITIVITY="${SENSITIVITY:-default|
efficiency|--spb-efficiency-bound low
efficiency|--spb-efficiency-bound high
efficiency|--spb-efficiency 0.7
efficiency|--spb-efficiency 0.8
efficiency|--spb-efficiency 0.9
efficiency|--spb-efficiency 1.0
interference|--jigsaw-freed-interference timeslice
interference|--jigsaw-freed-interference-scale 0.5
interference|--jigsaw-freed-interference-scale 1.5
interference|--jigsaw-sharing-overhead 0.1
frozen fraction|--spb-phase-warmup 0.25
frozen fraction|--spb-phase-warmup 0.75
frozen fraction|--spb-phase-frozen-share 0.3
frozen fraction|--spb-phase-frozen-share 0.5
frozen fraction|--spb-phase-frozen-share 0.7
frozen fraction|--spb-phase-frozen-share 0.9
compute-bound|--spb-phase-compute-bound 0.5
compute-bound|--spb-phase-compute-bound 0
compute-bound|--spb-fallback-backward-ratio 1
compute-bound|--spb-fallback-backward-ratio 3
memory|--gpu-memory-gb 8
memory|--gpu-memory-gb 32
memory|--jigsaw-spb-memory 0
threshold|--jigsaw-min-gain 0
threshold|--jigsaw-min-host-rate 0.3
threshold|--jigsaw-critical-path-guard 0
threshold|--jigsaw-max-guests 1
combined|--spb-efficiency 1.0 --spb-phase-frozen-share 0.9}"

[ "$SECTIONS" = none ] && SECTIONS=""
for section in $SECTIONS; do
  case "$section" in
  1)
    while read -r jobs gpus throughputs config; do
      args="$(trace_args "$jobs" "$gpus" "$throughputs" "$config")"
      for policy in $BASELINES packing spb_only jigsaw; do
        echo "1 'shockwave_$jobs / $gpus GPUs' - $policy --policy $policy $args"
      done
      for bound in low high; do
        echo "1 'shockwave_$jobs / $gpus GPUs' - 'jigsaw, eff $bound' --policy jigsaw \
--spb-efficiency-bound $bound $args"
      done
    done <<<"$TRACES" | run_all
    ;;
  2)
    for load in $LOADS; do
      for seed in $SEEDS; do
        args="$(stream_args "$load" "$seed")"
        for policy in $BASELINES packing spb_only jigsaw; do
          echo "2 'stream load $load' $seed $policy --policy $policy $args"
        done
        for bound in low high; do
          echo "2 'stream load $load' $seed 'jigsaw, eff $bound' --policy jigsaw \
--spb-efficiency-bound $bound $args"
        done
      done
    done | run_all
    ;;
  3)
    {
      while read -r jobs gpus throughputs config; do
        while read -r label policy extra; do
          echo "3 'shockwave_$jobs / $gpus GPUs' 'eff auto' $label --policy $policy $extra \
$(trace_args "$jobs" "$gpus" "$throughputs" "$config")"
        done <<<"$CHAIN"
      done <<<"$TRACES"
      for seed in $SEEDS; do
        while read -r label policy extra; do
          echo "3 'stream load 1.3' 'eff auto, seed $seed' $label --policy $policy $extra \
$(stream_args 1.3 "$seed")"
        done <<<"$CHAIN"
      done
    } | run_all
    ;;
  4)
    for seed in $SEEDS; do
      while IFS='|' read -r factor option; do
        echo "4 'stream load 1.3' $seed '$factor|${option:-default}' --policy jigsaw \
$(stream_args 1.3 "$seed") $option"
      done <<<"$SENSITIVITY"
      # What SPB adds in each row is measured against packing (the same without SPB).
      echo "4 'stream load 1.3' $seed 'packing|packing' --policy packing $(stream_args 1.3 "$seed")"
      echo "4 'stream load 1.3' $seed 'baseline|min_total_duration' --policy min_total_duration \
$(stream_args 1.3 "$seed")"
      echo "4 'stream load 1.3' $seed 'baseline|shockwave' --policy shockwave \
$(stream_args 1.3 "$seed")"
    done | run_all
    ;;
  esac
done

python3 bench/jigsaw_report.py "$RESULTS"

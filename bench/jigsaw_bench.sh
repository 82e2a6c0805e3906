#!/usr/bin/env bash
# JigSaw evaluation (issue 4): cluster efficiency, makespan, average JCT and worst rho of jigsaw
# (co-location on top of Shockwave's plan) against the baselines and the two ablations (packing = packing without SPB; spb_only = SPB
# without packing) on Shockwave's traces and on a contended slice of the Philly-derived trace,
# then jigsaw's sensitivity to the SPB statistical efficiency and a profile-fed cost model.
# Usage: bench/jigsaw_bench.sh [shared-data-dir] [--no-profile]
set -euo pipefail
cd "$(dirname "$0")/.."
DATA="${1:-../shared/data}"
PROFILE="${2:-}"
[ -x build/jigsaw ] || scripts/build.sh >/dev/null
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
field() { awk -v k="\"$2\":" '$1 == k { gsub(/,/, "", $2); print $2 }' "$1"; }
row() {  # label policy extra-args...
  local label="$1" policy="$2"
  shift 2
  local dir="$OUT/run"
  rm -rf "$dir"
  local start end
  start=$(date +%s.%N)
  build/jigsaw sim --quiet --policy "$policy" --out "$dir" "$@"
  end=$(date +%s.%N)
  local s="$dir/summary.json"
  printf "| %s | %s | %s | %s | %.0f | %.0f | %s | %.1f |\n" "$label" "$policy" \
    "$(field "$s" cluster_efficiency)" "$(field "$s" cluster_util)" "$(field "$s" makespan_s)" \
    "$(field "$s" avg_jct_s)" "$(field "$s" worst_ftf_rho)" "$(echo "$end - $start" | bc)"
}
header() {
  echo
  echo "| workload | policy | cluster_efficiency | util | makespan s | avg JCT s | worst rho | wall s |"
  echo "|---|---|---|---|---|---|---|---|"
}
BASELINES="max_min_fairness finish_time_fairness gandiva_fair allox las shockwave"
ABLATIONS="packing spb_only jigsaw"
PHILLY="--trace $DATA/traces/philly/philly.csv --throughputs $DATA/throughputs/shockwave_tacc_throughputs.json --assign-job-types 0 --max-jobs 2000 --gpus 128"

echo "## jigsaw vs baselines and ablations (statistical efficiency: measured, data/spb_statistical_efficiency.json)"
header
while read -r jobs gpus throughputs; do
  for policy in $BASELINES $ABLATIONS; do
    row "shockwave_$jobs / $gpus GPUs" "$policy" \
      --trace "$DATA/traces/shockwave/shockwave_${jobs}.trace" \
      --throughputs "$DATA/throughputs/$throughputs" --gpus "$gpus"
  done
done <<EOC
120 32 shockwave_tacc_throughputs.json
220 64 shockwave_wisr_throughputs.json
460 128 shockwave_wisr_throughputs.json
EOC
# Shockwave does not finish this slice in 15 minutes (it re-plans 2,000 jobs of up to 600 h over
# ~70,000 rounds), so here the co-locating planners use the least-served base.
for policy in max_min_fairness finish_time_fairness allox las; do
  # shellcheck disable=SC2086
  row "philly first 2000 / 128 GPUs" "$policy" $PHILLY
done
for policy in $ABLATIONS; do
  # shellcheck disable=SC2086
  row "philly first 2000 / 128 GPUs, least_served" "$policy" $PHILLY --colocation-base least_served
done

echo
echo "## The base planner: co-location on top of least-served-first instead of Shockwave"
header
for policy in $ABLATIONS; do
  row "shockwave_120 / 32, least_served" "$policy" --colocation-base least_served \
    --trace "$DATA/traces/shockwave/shockwave_120.trace" \
    --throughputs "$DATA/throughputs/shockwave_tacc_throughputs.json" --gpus 32
done

echo
echo "## Sensitivity: jigsaw and spb_only at a given statistical efficiency (--spb-efficiency)"
header
for eff in 0.8 0.9 0.95 1.0; do
  for policy in spb_only jigsaw; do
    row "shockwave_120 / 32, eff $eff" "$policy" --spb-efficiency "$eff" \
      --trace "$DATA/traces/shockwave/shockwave_120.trace" \
      --throughputs "$DATA/throughputs/shockwave_tacc_throughputs.json" --gpus 32
  done
done
for eff in 0.9 1.0; do
  for policy in spb_only jigsaw; do
    # shellcheck disable=SC2086
    row "philly 2000 / 128, eff $eff, least_served" "$policy" --spb-efficiency "$eff" $PHILLY \
      --colocation-base least_served
  done
done

if [ "$PROFILE" != "--no-profile" ]; then
  echo
  echo "## Profile-fed cost model: ResNet-18/50 jobs costed from \`jigsaw profile --model resnet\` (this machine)"
  build/jigsaw profile --model resnet --batch 32 --repeats 10 --comm-workers 4 \
    --out "$OUT/resnet.json" >/dev/null 2>&1
  header
  for eff in auto 1.0; do
    row "shockwave_120 / 32, eff $eff, profile" jigsaw --spb-efficiency "$eff" \
      --spb-profile "ResNet-18=$OUT/resnet.json" --spb-profile "ResNet-50=$OUT/resnet.json" \
      --trace "$DATA/traces/shockwave/shockwave_120.trace" \
      --throughputs "$DATA/throughputs/shockwave_tacc_throughputs.json" --gpus 32
  done
fi

#!/usr/bin/env bash
# JigSaw evaluation (issue 4, work in progress): cluster efficiency, makespan, average JCT and
# worst rho of jigsaw against the baselines and the packing-only ablation on Shockwave's traces.
# Usage: bench/jigsaw_bench.sh [spb-efficiency] [shared-data-dir]
#   spb-efficiency: measured progress per iteration of a staircase job relative to full backprop
#   (0 = unknown, jigsaw then uses no SPB plans and equals packing).
set -euo pipefail
cd "$(dirname "$0")/.."
EFFICIENCY="${1:-0}"
DATA="${2:-../shared/data}"
[ -x build/jigsaw ] || scripts/build.sh >/dev/null
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
field() { awk -v k="\"$2\":" '$1 == k { gsub(/,/, "", $2); print $2 }' "$1"; }

CASES="120 32 shockwave_tacc_throughputs.json
220 64 shockwave_wisr_throughputs.json
460 128 shockwave_wisr_throughputs.json"
echo "## jigsaw vs baselines (spb-efficiency $EFFICIENCY)"
echo
echo "| trace | GPUs | policy | cluster_efficiency | util | makespan s | avg JCT s | worst rho |"
echo "|---|---|---|---|---|---|---|---|"
while read -r jobs gpus throughputs; do
  for policy in max_min_fairness finish_time_fairness shockwave las allox packing jigsaw; do
    dir="$OUT/${jobs}_$policy"
    build/jigsaw sim --quiet --trace "$DATA/traces/shockwave/shockwave_${jobs}.trace" \
      --throughputs "$DATA/throughputs/$throughputs" --gpus "$gpus" --policy "$policy" \
      --spb-efficiency "$EFFICIENCY" --out "$dir"
    s="$dir/summary.json"
    printf "| %s | %s | %s | %s | %s | %.0f | %.0f | %s |\n" "$jobs" "$gpus" "$policy" \
      "$(field "$s" cluster_efficiency)" "$(field "$s" cluster_util)" "$(field "$s" makespan_s)" \
      "$(field "$s" avg_jct_s)" "$(field "$s" worst_ftf_rho)"
  done
done <<< "$CASES"

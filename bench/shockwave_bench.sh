#!/usr/bin/env bash
# Shockwave benchmark: shockwave vs max_min_fairness (Gavel) and finish_time_fairness
# (Themis) on Shockwave's canonical 120-job trace (TACC throughputs, 32 GPUs) and its scale traces
# (WISR throughputs: 220 jobs / 64 GPUs, 460 / 128, 900 / 256, with the matching scale_*gpus.json
# configs). Prints a markdown table. Usage: bench/shockwave_bench.sh [shared-data-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
DATA="${1:-$DATA}"
bench_need_binary
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT


# jobs gpus throughputs config
CASES="120 32 shockwave_tacc_throughputs.json tacc_32gpus.json
220 64 shockwave_wisr_throughputs.json scale_64gpus.json
460 128 shockwave_wisr_throughputs.json scale_128gpus.json
900 256 shockwave_wisr_throughputs.json scale_256gpus.json"

echo "| trace | GPUs | policy | makespan s | avg JCT s | worst rho | unfair >1.05 | wall s |"
echo "|---|---|---|---|---|---|---|---|"
while read -r jobs gpus throughputs config; do
  for policy in shockwave max_min_fairness finish_time_fairness; do
    dir="$OUT/${jobs}_${policy}"
    start=$(date +%s.%N)
    "$JIGSAW" sim --quiet --trace "$DATA/traces/shockwave/shockwave_${jobs}.trace" \
      --throughputs "$DATA/throughputs/$throughputs" --gpus "$gpus" --round-s 120 \
      --policy "$policy" --shockwave-config "$DATA/configs/shockwave/$config" \
      --isolated-time reference --out "$dir"
    wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
    s="$dir/summary.json"
    printf "| shockwave_%s | %s | %s | %.0f | %.0f | %.2f | %.1f%% | %s |\n" "$jobs" "$gpus" \
      "$policy" "$(json_field "$s" makespan_s)" "$(json_field "$s" avg_jct_s)" \
      "$(json_field "$s" worst_ftf_rho)" "$(awk -v f="$(json_field "$s" unfair_frac_105)" \
      'BEGIN { print 100 * f }')" "$wall"
  done
done <<<"$CASES"

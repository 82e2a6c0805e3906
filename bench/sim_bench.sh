#!/usr/bin/env bash
# Simulator benchmark: fidelity and speed of every baseline on Shockwave's canonical
# 120-job trace (32 GPUs, 120 s rounds), and fifo/las on the 82,247-job Philly trace on 2,048
# GPUs. Prints markdown tables. Usage: bench/sim_bench.sh [shared-data-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
DATA="${1:-$DATA}"
bench_need_binary
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT


# policy published_makespan published_avg_jct published_worst_rho (research notes §2.6)
REFERENCE="max_min_fairness 33208 11274 2.95
finish_time_fairness 31929 11302 3.44
min_total_duration 24205 19807 7.74
allox 32489 9926 4.96
max_sum_throughput 31909 9655 4.98
gandiva_fair 32367 12574 1.85
fifo - - -
srtf - - -
las - - -"

echo "## shockwave_120.trace, 32 GPUs, 120 s rounds (published = Shockwave repo pickles)"
echo
echo "| policy | makespan s | published | diff | avg JCT s | published | diff | worst rho | published | unfair >1.05 | util | wall s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
total_start=$(date +%s.%N)
while read -r policy mk jct rho; do
  start=$(date +%s.%N)
  "$JIGSAW" sim --quiet --isolated-time reference --trace "$DATA/traces/shockwave/shockwave_120.trace" \
    --throughputs "$DATA/throughputs/shockwave_tacc_throughputs.json" --gpus 32 \
    --round-s 120 --policy "$policy" --out "$OUT/$policy"
  wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.3f", e - s }')
  s="$OUT/$policy/summary.json"
  m=$(json_field "$s" makespan_s); j=$(json_field "$s" avg_jct_s)
  dm="-"; dj="-"
  [ "$mk" != "-" ] && dm=$(pct_change "$m" "$mk") && dj=$(pct_change "$j" "$jct")
  printf "| %s | %.0f | %s | %s | %.0f | %s | %s | %s | %s | %s | %s | %s |\n" "$policy" "$m" "$mk" \
    "$dm" "$j" "$jct" "$dj" "$(json_field "$s" worst_ftf_rho)" "$rho" "$(json_field "$s" unfair_frac_105)" \
    "$(json_field "$s" cluster_util)" "$wall"
done <<< "$REFERENCE"
awk -v s="$total_start" -v e="$(date +%s.%N)" \
  'BEGIN { printf "\nAll nine policies: %.2f s wall in total (target < 10 s).\n\n", e - s }'

echo "## philly.csv (82,247 jobs), 120 s rounds (2,048 GPUs: the issue's target; 512: contended)"
echo
echo "| policy | GPUs | makespan s | avg JCT s | worst rho | util | rounds | wall s | peak RSS MB |"
echo "|---|---|---|---|---|---|---|---|---|"
for run in "fifo 2048" "las 2048" "fifo 512" "las 512" "srtf 512"; do
  read -r policy gpus <<< "$run"
  /usr/bin/time -f "%e %M" -o "$OUT/time" "$JIGSAW" sim --quiet \
    --trace "$DATA/traces/philly/philly.csv" --gpus "$gpus" --policy "$policy" --out "$OUT/p_${policy}_$gpus"
  read -r wall rss < "$OUT/time"
  s="$OUT/p_${policy}_$gpus/summary.json"
  printf "| %s | %s | %.0f | %.0f | %s | %s | %s | %s | %.0f |\n" "$policy" "$gpus" "$(json_field "$s" makespan_s)" \
    "$(json_field "$s" avg_jct_s)" "$(json_field "$s" worst_ftf_rho)" "$(json_field "$s" cluster_util)" \
    "$(json_field "$s" rounds)" "$wall" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')"
done
echo
echo "Targets: < 60 s and < 2 GB peak RSS per run."

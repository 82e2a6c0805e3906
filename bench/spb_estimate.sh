#!/usr/bin/env bash
# The SPB cost model against the runtime's own measurements on this machine (moved out of ctest
# as a rule: a wall-clock comparison cannot be a test on a shared machine).
#
# In each of ROUNDS rounds: profile LeNet with whole steps and the communication calibration
# (`jigsaw profile --step-workers 2 --comm-workers 2`), then train it with 2 worker processes
# (`jigsaw train --profile`, full and staircase). The prediction is EstimateSpbIteration
# (summary.json "predicted_iter_s", from the profile taken right before the runs); measured is
# the median over iterations (after WARMUP) of the iteration time averaged over the ranks
# (iterations.csv). Prints one row per round and plan, then per plan the median and the worst
# ratio over the rounds. Nothing is asserted: the machine's speed drifts 10-15% between runs.
# Usage: bench/spb_estimate.sh   (env: ROUNDS=5 ITERS=100 WARMUP=5 KEEP=dir to keep outputs)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
ROUNDS="${ROUNDS:-5}"
ITERS="${ITERS:-100}"
WARMUP="${WARMUP:-5}"
bench_need_binary
OUT="${KEEP:-$(mktemp -d)}"
mkdir -p "$OUT"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$OUT"' EXIT
# A private copy, so a concurrent rebuild cannot swap the binaries between runs.
cp build/jigsaw build/jigsaw-runtime "$OUT/"
JIGSAW="$OUT/jigsaw"
DATA=(--model lenet --dataset synthetic --synthetic-train 16384 --synthetic-test 64
  --synthetic-size 28 --batch 32 --threads 1)

# Median over iterations >= WARMUP of the per-iteration mean over ranks of iter_s.
median_iter() {
  awk -F, -v skip="$WARMUP" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["iteration"] >= skip { s[$c["iteration"]] += $c["iter_s"]; n[$c["iteration"]]++ }
    END { for (i in s) print s[i] / n[i] }' "$1" | sort -g |
    awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "## SPB iteration estimate vs measured: LeNet, synthetic 28x28, batch 32/worker, 2 workers, $ITERS iterations, $(nproc) cores"
echo
echo "| round | plan | predicted ms | measured median ms | predicted / measured |"
echo "|---|---|---|---|---|"
declare -A ratios
for ((round = 0; round < ROUNDS; round++)); do
  profile="$OUT/profile$round/profile.json"
  "$JIGSAW" profile "${DATA[@]}" --repeats 20 --comm-workers 2 --step-workers 2 \
    --out "$OUT/profile$round" 2>/dev/null
  for plan in full staircase; do
    dir="$OUT/$plan$round"
    "$JIGSAW" train "${DATA[@]}" --workers 2 --epochs 1 --max-iters-per-epoch "$ITERS" --quiet \
      --spb "$plan" --exchange tree --spb-scale contributors --profile "$profile" --out "$dir"
    predicted=$(json_field "$dir/summary.json" predicted_iter_s)
    measured=$(median_iter "$dir/iterations.csv")
    ratio=$(awk -v p="$predicted" -v m="$measured" 'BEGIN { printf "%.3f", p / m }')
    ratios[$plan]+="$ratio "
    awk -v r="$round" -v plan="$plan" -v p="$predicted" -v m="$measured" -v q="$ratio" \
      'BEGIN { printf "| %d | %s | %.2f | %.2f | %s |\n", r, plan, 1000 * p, 1000 * m, q }'
  done
done
echo
echo "| plan | median ratio over $ROUNDS rounds | worst ratio (farthest from 1) |"
echo "|---|---|---|"
for plan in full staircase; do
  # shellcheck disable=SC2086
  printf '%s\n' ${ratios[$plan]} | sort -g | awk -v plan="$plan" '
    { v[NR] = $1; d = $1 > 1 ? $1 - 1 : 1 - $1; if (d >= worst_d) { worst_d = d; worst = $1 } }
    END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
          printf "| %s | %.3f | %.3f |\n", plan, m, worst }'
done

#!/usr/bin/env bash
# SPB runtime benchmark (issue 3): 4 local workers on Fashion-MNIST, plans full / staircase /
# rotating / freeze, same epochs each. Per plan: measured mean backward time and bytes sent per
# worker-iteration relative to full (bytes: the estimate, and the socket bytes actually written),
# next to the profile-based cost model's prediction, and the
# final test accuracy; also the activation memory the forward pass retained (retained MB) and peak
# RSS. Prints a markdown table.
# Usage: bench/spb_bench.sh   (env: MODEL=lenet EPOCHS=1 BATCH=32 ITERS=0 WORKERS=4 FREEZE=3
#                              THREADS=1 KEEP=dir to keep the outputs)
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL="${MODEL:-lenet}"
EPOCHS="${EPOCHS:-1}"
BATCH="${BATCH:-32}"
ITERS="${ITERS:-0}"
WORKERS="${WORKERS:-4}"
FREEZE="${FREEZE:-3}"
THREADS="${THREADS:-1}"
[ -x build/jigsaw ] || scripts/build.sh >/dev/null
OUT="${KEEP:-$(mktemp -d)}"
mkdir -p "$OUT"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$OUT"' EXIT
# A private copy, so a concurrent rebuild cannot swap the binaries between runs (`jigsaw train`
# runs the sibling jigsaw-runtime).
cp build/jigsaw build/jigsaw-runtime "$OUT/"
JIGSAW="$OUT/jigsaw"

field() { awk -v k="\"$2\":" '$1 == k { gsub(/,/, "", $2); print $2; exit }' "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "-"; else printf "%.2f", a / b }'; }

"$JIGSAW" profile --model "$MODEL" --batch "$BATCH" --threads "$THREADS" \
  --out "$OUT/profile.json" 2>/dev/null
for plan in full staircase rotating "freeze:$FREEZE"; do
  dir="$OUT/${plan/:/_}"
  "$JIGSAW" train --model "$MODEL" --dataset fashion-mnist --workers "$WORKERS" \
    --spb "$plan" --epochs "$EPOCHS" --batch "$BATCH" --max-iters-per-epoch "$ITERS" \
    --threads "$THREADS" --profile "$OUT/profile.json" --out "$dir" --quiet
done

echo "## $MODEL, Fashion-MNIST, $WORKERS workers, batch $BATCH/worker, $EPOCHS epoch(s), $(nproc) cores"
echo
echo "| plan | backward ms | vs full | predicted vs full | bytes/iter | vs full | predicted vs full | wire bytes/iter | vs full | iter ms | retained MB | peak RSS MB | test acc |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
full="$OUT/full/summary.json"
for plan in full staircase rotating "freeze:$FREEZE"; do
  s="$OUT/${plan/:/_}/summary.json"
  echo "| $plan | $(awk -v v="$(field "$s" mean_backward_s)" 'BEGIN { printf "%.2f", 1000 * v }') \
| $(ratio "$(field "$s" mean_backward_s)" "$(field "$full" mean_backward_s)") \
| $(ratio "$(field "$s" predicted_mean_backward_s)" "$(field "$full" predicted_mean_backward_s)") \
| $(field "$s" bytes_sent_per_iter) \
| $(ratio "$(field "$s" bytes_sent_per_iter)" "$(field "$full" bytes_sent_per_iter)") \
| $(ratio "$(field "$s" predicted_bytes_sent_per_iter)" "$(field "$full" predicted_bytes_sent_per_iter)") \
| $(field "$s" wire_bytes_per_iter) \
| $(ratio "$(field "$s" wire_bytes_per_iter)" "$(field "$full" wire_bytes_per_iter)") \
| $(awk -v v="$(field "$s" mean_iter_s)" 'BEGIN { printf "%.1f", 1000 * v }') \
| $(field "$s" mean_retained_mb) | $(field "$s" peak_rss_mb) | $(field "$s" test_accuracy) |"
done

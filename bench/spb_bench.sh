#!/usr/bin/env bash
# SPB benchmark: every plan against full backpropagation on the same model, data, epochs and
# seeds, with 4 local workers; prints the tables of docs/results/spb.md.
#
# Per plan and seed it runs `jigsaw train` (skipped when RUNS/<plan>/seed<s>/summary.json already
# holds every epoch, so an interrupted bench resumes), then bench/spb_report.py prints: test
# accuracy (mean, spread and worst over seeds) and its gap to full; the busiest rank's backward
# compute summed over the run, measured and as profiled work; the busiest rank's activation memory
# (run average of each iteration's peak); the busiest rank's measured wire bytes (sent + received)
# and the share of the bytes bound each plan reaches; the iteration time; then the time to a late
# target accuracy (TARGET_FRACTION x full's final accuracy averaged over the seeds, or TARGET) in
# iterations and in the busiest rank's compute, per seed, with a 95% t-interval, and the
# frozen-phase efficiency (`jigsaw spb-efficiency`, docs/spb_statistical_efficiency.md). Then
# the iteration time with and without overlapping the exchange with backward (OVERLAP_ITERS
# iterations, REPEATS alternating runs each).
#
# Usage: bench/spb_bench.sh                       ResNet-20 on CIFAR-10 (long: hours on 2 cores)
#        MODEL=lenet bench/spb_bench.sh           LeNet on Fashion-MNIST, 3 epochs (minutes a run)
#        MODEL=lenet SEEDS="3 4 5 6 7" PLANS="full|--spb full
#        adaptive|--spb adaptive" REPEATS=0 bench/spb_bench.sh   (the default adaptive plan)
# Env: MODEL, EPOCHS, SEEDS ("0 1 2"), WORKERS (4), BATCH (per worker), LR, WD, TRAIN_SAMPLES
#      (0 = all), EVAL_EVERY, EVAL_SAMPLES (0 = the whole test set), TARGET_FRACTION (0.99),
#      TARGET (an absolute target instead), WARMUP_FRACTION (the adaptive warm-up's share, for the
#      bytes bound), PLANS (lines "name|train options"), RUNS (kept; default out/spb_bench/MODEL),
#      BIN (folder of jigsaw and jigsaw-runtime; default build), OVERLAP_ITERS, REPEATS,
#      WRITE_EFFICIENCY=1 to merge the measured efficiencies into data/spb_statistical_efficiency.json,
#      PROTOCOL (a label for the table's title, e.g. "reduced protocol (CPU)": bench/spb_reduced.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL="${MODEL:-resnet20}"
case "$MODEL" in
  lenet)
    DATASET=fashion-mnist; EPOCHS="${EPOCHS:-3}"; BATCH="${BATCH:-32}"; LR="${LR:-0.05}"
    WD="${WD:-0}"; EVAL_EVERY="${EVAL_EVERY:-50}"; EVAL_SAMPLES="${EVAL_SAMPLES:-0}" ;;
  resnet20)
    DATASET=cifar10; EPOCHS="${EPOCHS:-3}"; BATCH="${BATCH:-32}"; LR="${LR:-0.1}"
    WD="${WD:-0.0005}"; EVAL_EVERY="${EVAL_EVERY:-50}"; EVAL_SAMPLES="${EVAL_SAMPLES:-2000}" ;;
  *) echo "spb_bench: MODEL must be lenet or resnet20" >&2; exit 2 ;;
esac
TARGET_FRACTION="${TARGET_FRACTION:-0.99}"
TARGET="${TARGET:-0}"
WARMUP_FRACTION="${WARMUP_FRACTION:-0.4}"  # the adaptive default (docs/runtime.md)
SEEDS="${SEEDS:-0 1 2}"
WORKERS="${WORKERS:-4}"
TRAIN_SAMPLES="${TRAIN_SAMPLES:-0}"
OVERLAP_ITERS="${OVERLAP_ITERS:-60}"
REPEATS="${REPEATS:-3}"
RUNS="${RUNS:-out/spb_bench/$MODEL}"
if [ "$MODEL" = lenet ]; then
  DEFAULT_PLANS="full|--spb full
staircase|--spb staircase --spb-scale contributors
staircase-world|--spb staircase --spb-scale world
rotating-world|--spb rotating --spb-scale world
adaptive|--spb adaptive
adaptive-rotating|--spb adaptive --spb-warmup 1 --spb-structure rotating --spb-scale world \
--spb-freeze-below 0.95 --spb-patience 2 --spb-span 3 --spb-min-trained-blocks 1"
else  # fewer plans: each run takes a quarter of an hour on 2 busy cores
  DEFAULT_PLANS="full|--spb full
staircase-world|--spb staircase --spb-scale world
adaptive|--spb adaptive --spb-window 50"
fi
PLANS="${PLANS:-$DEFAULT_PLANS}"
BIN="${BIN:-build}"
[ -x "$BIN/jigsaw" ] || scripts/build.sh >/dev/null
mkdir -p "$RUNS"
# A private copy, so a concurrent rebuild cannot swap the binaries between runs.
cp "$BIN/jigsaw" "$BIN/jigsaw-runtime" "$RUNS/"
JIGSAW="$RUNS/jigsaw"
COMMON=(--model "$MODEL" --dataset "$DATASET" --workers "$WORKERS" --batch "$BATCH"
  --lr "$LR" --lr-schedule cosine --weight-decay "$WD" --train-samples "$TRAIN_SAMPLES"
  --threads 1 --quiet)

[ -f "$RUNS/profile.json" ] || "$JIGSAW" profile --model "$MODEL" --dataset "$DATASET" \
  --batch "$BATCH" --repeats 10 --out "$RUNS" 2>/dev/null

complete() {
  [ -f "$1/summary.json" ] &&
    python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); sys.exit(s["epochs_done"] != s["epochs"])' \
      "$1/summary.json"
}

# Seeds outermost, so that each seed's plans run close together in time (similar machine load).
for seed in $SEEDS; do
  while IFS='|' read -r name options; do
    [ -n "$name" ] || continue
    dir="$RUNS/$name/seed$seed"
    complete "$dir" && continue
    echo "spb_bench: $name seed $seed" >&2
    # shellcheck disable=SC2086
    /usr/bin/time -f "%e s wall, %M KB max RSS (launcher)" \
      "$JIGSAW" train "${COMMON[@]}" --epochs "$EPOCHS" --eval-every "$EVAL_EVERY" \
      --eval-samples "$EVAL_SAMPLES" $options --seed "$seed" --resume --out "$dir"
  done <<<"$PLANS"
done

# Overlap on and off, alternating, one seed, a fixed number of iterations.
for rep in $(seq 1 "$REPEATS"); do
  for plan in full staircase; do
    for overlap in true false; do
      dir="$RUNS/overlap/$plan-$overlap-$rep"
      complete "$dir" && continue
      "$JIGSAW" train "${COMMON[@]}" --spb "$plan" --epochs 1 --max-iters-per-epoch \
        "$OVERLAP_ITERS" --eval-every 0 --overlap "$overlap" --out "$dir"
    done
  done
done

python3 bench/spb_report.py --runs "$RUNS" --model "$MODEL" --dataset "$DATASET" \
  --target "$TARGET" --target-fraction "$TARGET_FRACTION" --warmup-fraction "$WARMUP_FRACTION" \
  --jigsaw "$JIGSAW" --plans "$(cut -d'|' -f1 <<<"$PLANS" | tr '\n' ' ')" \
  ${WRITE_EFFICIENCY:+--write-efficiency data/spb_statistical_efficiency.json} \
  ${PROTOCOL:+--protocol "$PROTOCOL"}

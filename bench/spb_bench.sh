#!/usr/bin/env bash
# SPB v2 benchmark: every plan against full backpropagation on the same model, data, epochs and
# seeds, with 4 local workers; prints the table of docs/runtime.md ("SPB v2: measured").
#
# Per plan and seed it runs `jigsaw train` (skipped when RUNS/<plan>/seed<s>/summary.json already
# holds every epoch, so an interrupted bench resumes), then bench/spb_report.py prints: test
# accuracy (mean, spread and worst over seeds) and its gap to full; the busiest rank's backward
# compute summed over the run, measured and as profiled work; the busiest rank's activation memory
# (run average of each iteration's peak); the busiest rank's measured wire bytes (sent + received)
# and the share of the bytes bound each plan reaches; the iteration time; and the statistical
# efficiency (iterations full needs to reach TARGET test accuracy / iterations the plan needs,
# per seed, with a 95% t-interval). Then the iteration time with and without overlapping the
# exchange with backward (OVERLAP_ITERS iterations, REPEATS alternating runs each).
#
# Usage: bench/spb_bench.sh                       ResNet-20 on CIFAR-10 (long: hours on 2 cores)
#        MODEL=lenet bench/spb_bench.sh           LeNet on Fashion-MNIST (minutes)
#        LeNet's table that meets the issue's targets (docs/runtime.md, "LeNet, 8 epochs"):
#        MODEL=lenet EPOCHS=8 WARMUP=4.5 REPEATS=0 PLANS="full|--spb full
#        coherence-w4.5|--spb adaptive --spb-signal coherence --spb-warmup 4.5 --spb-window 100
#          --spb-freeze-below 0.8 --spb-patience 1 --spb-span 1 --spb-min-trained-blocks 2
#          --spb-frozen-chunk 2" bench/spb_bench.sh      (the plan's options on one line)
# Env: MODEL, EPOCHS, SEEDS ("0 1 2"), WORKERS (4), BATCH (per worker), LR, WD, TRAIN_SAMPLES
#      (0 = all), EVAL_EVERY, EVAL_SAMPLES, TARGET, WARMUP (adaptive warm-up epochs), PLANS (lines
#      "name|train options"), RUNS (kept; default out/spb_bench/MODEL), OVERLAP_ITERS, REPEATS,
#      WRITE_EFFICIENCY=1 to merge the measured efficiencies into data/spb_statistical_efficiency.json,
#      PROTOCOL (a label for the table's title, e.g. "reduced protocol (CPU)": bench/spb_reduced.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL="${MODEL:-resnet20}"
case "$MODEL" in
  lenet)
    DATASET=fashion-mnist; EPOCHS="${EPOCHS:-4}"; BATCH="${BATCH:-32}"; LR="${LR:-0.05}"
    WD="${WD:-0}"; EVAL_EVERY="${EVAL_EVERY:-50}"; EVAL_SAMPLES="${EVAL_SAMPLES:-2000}"
    TARGET="${TARGET:-0.87}"; WARMUP="${WARMUP:-1}" ;;
  resnet20)
    DATASET=cifar10; EPOCHS="${EPOCHS:-3}"; BATCH="${BATCH:-32}"; LR="${LR:-0.1}"
    WD="${WD:-0.0005}"; EVAL_EVERY="${EVAL_EVERY:-50}"; EVAL_SAMPLES="${EVAL_SAMPLES:-2000}"
    TARGET="${TARGET:-0.65}"; WARMUP="${WARMUP:-1}" ;;
  *) echo "spb_bench: MODEL must be lenet or resnet20" >&2; exit 2 ;;
esac
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
adaptive|--spb adaptive --spb-warmup $WARMUP
adaptive-rotating|--spb adaptive --spb-warmup $WARMUP --spb-structure rotating --spb-scale world"
else  # fewer plans: each run takes a quarter of an hour on 2 busy cores
  DEFAULT_PLANS="full|--spb full
staircase-world|--spb staircase --spb-scale world
adaptive|--spb adaptive --spb-warmup $WARMUP --spb-window 50"
fi
PLANS="${PLANS:-$DEFAULT_PLANS}"
[ -x build/jigsaw ] || scripts/build.sh >/dev/null
mkdir -p "$RUNS"
# A private copy, so a concurrent rebuild cannot swap the binaries between runs.
cp build/jigsaw build/jigsaw-runtime "$RUNS/"
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
  --target "$TARGET" --warmup-epochs "$WARMUP" --plans "$(cut -d'|' -f1 <<<"$PLANS" | tr '\n' ' ')" \
  ${WRITE_EFFICIENCY:+--write-efficiency data/spb_statistical_efficiency.json} \
  ${PROTOCOL:+--protocol "$PROTOCOL"}

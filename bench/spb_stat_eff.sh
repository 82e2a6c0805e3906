#!/usr/bin/env bash
# Statistical efficiency of SPB plans, measured with the real runtime (issue 4), written to
# data/spb_statistical_efficiency.json (format and definition in docs/spb_statistical_efficiency.md).
#
# For every model: one run with --lr 0 and a single iteration gives the untrained model's test
# accuracy (same seed, so the same initial weights as the other runs); then full, staircase and
# rotating train for EPOCHS epochs each. Statistical efficiency of a plan = (iterations full
# backprop needed to reach the plan's final test accuracy, by linear interpolation of full's
# per-epoch curve starting at (0 iterations, untrained accuracy)) / (iterations the plan used),
# capped at 1. Accuracies are deterministic for a given binary and seed; times are not recorded.
# Usage: bench/spb_stat_eff.sh  (env: MODELS="lenet mlp" PLANS="full staircase rotating"
#                                WORKERS=4 BATCH=32 EPOCHS=3 THREADS=1 ITERS=0
#                                OUT=data/spb_statistical_efficiency.json KEEP=dir)
set -euo pipefail
cd "$(dirname "$0")/.."
MODELS="${MODELS:-lenet mlp}"
PLANS="${PLANS:-full staircase rotating}"
WORKERS="${WORKERS:-4}"
BATCH="${BATCH:-32}"
EPOCHS="${EPOCHS:-3}"
THREADS="${THREADS:-1}"
ITERS="${ITERS:-0}"  # --max-iters-per-epoch, 0 = full passes (for quick checks only)
OUT="${OUT:-data/spb_statistical_efficiency.json}"
[ -x build/jigsaw ] || scripts/build.sh >/dev/null
RUNS="${KEEP:-$(mktemp -d)}"
mkdir -p "$RUNS"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$RUNS"' EXIT
# A private copy, so a concurrent rebuild cannot swap the binaries between runs.
cp build/jigsaw build/jigsaw-runtime "$RUNS/"

COMMON="--dataset fashion-mnist --workers $WORKERS --batch $BATCH --threads $THREADS --quiet"
CAP=""
[ "$ITERS" = 0 ] || CAP=" --max-iters-per-epoch $ITERS"
entries="$RUNS/entries.jsonl"
: >"$entries"

# Iterations per epoch of a run: rank 0's rows of iterations.csv, per epoch.
iters_per_epoch() {
  awk -F, 'NR > 1 && $1 == 0 { n[$2]++ } END { for (e in n) print e, n[e] }' "$1" |
    sort -n | awk '{ printf "%s%s", sep, $2; sep = "," }'
}

for model in $MODELS; do
  dir="$RUNS/$model/untrained"
  command="jigsaw train --model $model $COMMON --spb full --epochs 1 --max-iters-per-epoch 1 --lr 0 --out $dir"
  rm -rf "$dir"
  "$RUNS/"$command
  untrained=$(jq '.test_accuracy' "$dir/summary.json")
  jq -n --arg model "$model" --arg command "$command" --argjson acc "$untrained" \
    '{kind: "untrained", model: $model, command: $command, test_accuracy: $acc}' >>"$entries"
  for plan in $PLANS; do
    dir="$RUNS/$model/${plan/:/_}"
    command="jigsaw train --model $model $COMMON --spb $plan --epochs $EPOCHS$CAP --out $dir"
    rm -rf "$dir"
    echo "spb_stat_eff: $command" >&2
    "$RUNS/"$command
    jq -c --arg model "$model" --arg plan "$plan" --arg command "$command" \
      --argjson ipe "[$(iters_per_epoch "$dir/iterations.csv")]" --argjson batch "$BATCH" \
      '{kind: "run", model: $model, plan: $plan, command: $command, workers: .workers,
        batch: $batch, epochs: .epochs_done, iterations_per_epoch: $ipe,
        epoch_test_accuracy: .epoch_test_accuracy}' "$dir/summary.json" >>"$entries"
  done
done

mkdir -p "$(dirname "$OUT")"
jq -s \
  --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
  --arg commit "$(git rev-parse HEAD 2>/dev/null || echo unknown)" \
  --arg dirty "$(git status --porcelain 2>/dev/null | grep -qv '^??' && echo yes || echo no)" \
  --arg cpu "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')" \
  --argjson nproc "$(nproc)" \
  --argjson workers "$WORKERS" --argjson batch "$BATCH" --argjson epochs "$EPOCHS" \
  --argjson threads "$THREADS" '
  # First iteration count at which the piecewise-linear curve [[iters, acc], ...] reaches
  # `target`; null if it never does.
  def iterations_to_reach($curve; $target):
    if $target <= $curve[0][1] then 0 else
      first(range(1; $curve | length) as $i
            | $curve[$i - 1] as $a | $curve[$i] as $b
            | select($b[1] >= $target)
            | $a[0] + ($target - $a[1]) / ($b[1] - $a[1]) * ($b[0] - $a[0])) // null
    end;
  def cumulative($ipe): [foreach $ipe[] as $n (0; . + $n)];
  . as $all
  | [$all[] | select(.kind == "run")] as $runs
  | {
      format: "jigsaw-spb-statistical-efficiency-v1",
      definition: "statistical_efficiency = min(1, full_iterations_to_reach / plan_iterations); full_iterations_to_reach = iterations at which full backprop'"'"'s test-accuracy curve (linear between per-epoch points, starting at 0 iterations with the untrained accuracy) first reaches this plan'"'"'s final test accuracy (the plan'"'"'s final iteration count if it never does, i.e. efficiency 1)",
      source: {
        script: "bench/spb_stat_eff.sh", date: $date, git_commit: $commit,
        git_worktree_modified: $dirty,
        machine: {nproc: $nproc, cpu_model: $cpu},
        dataset: "fashion-mnist (Debian dataset-fashion-mnist, 60000 train / 10000 test)",
        settings: {workers: $workers, batch_per_worker: $batch, epochs: $epochs,
                   threads: $threads, lr: 0.05, momentum: 0.9, seed: 0}
      },
      entries: [
        $runs[] as $r
        | ([$all[] | select(.kind == "untrained" and .model == $r.model)][0]) as $u
        | ([$runs[] | select(.plan == "full" and .model == $r.model)][0]) as $f
        | ([[0, $u.test_accuracy]]
           + [cumulative($f.iterations_per_epoch) as $c
              | range(0; $c | length) | [$c[.], $f.epoch_test_accuracy[.]]]) as $curve
        | ($r.iterations_per_epoch | add) as $used
        | iterations_to_reach($curve; $r.epoch_test_accuracy[-1]) as $need
        | {
            model: $r.model, plan: $r.plan, workers: $r.workers, batch_per_worker: $r.batch,
            epochs: $r.epochs, iterations_per_epoch: $r.iterations_per_epoch,
            plan_iterations: $used,
            epoch_test_accuracy: $r.epoch_test_accuracy,
            final_test_accuracy: $r.epoch_test_accuracy[-1],
            untrained_test_accuracy: $u.test_accuracy,
            full_iterations_to_reach: (if $need == null then null else ($need | round) end),
            statistical_efficiency:
              (if $need == null then 1
               else ([1, $need / $used] | min) * 10000 | round / 10000 end),
            command: $r.command,
            untrained_command: $u.command
          }
      ]
    }' "$entries" >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "spb_stat_eff: wrote $OUT" >&2
jq -r '.entries[] | "\(.model) \(.plan) workers=\(.workers) final=\(.final_test_accuracy) eff=\(.statistical_efficiency)"' "$OUT"

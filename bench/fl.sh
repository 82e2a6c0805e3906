#!/usr/bin/env bash
# Federated learning (docs/fl.md): FedAvg vs Auxo(FedAvg) and FedProx vs Auxo(FedProx) on FEMNIST
# (105 LEAF writers) and on a ground-truth population (Fashion-MNIST, 4 groups that permute the
# labels), blob cohort discovery over 20 seeds, and simulation speed (CPU s per round with 100
# participants of LeNet, batched and sequential local training). Prints tables; numbers depend on
# the machine's load (run with nice).
# Usage: bench/fl.sh [JIGSAW]   env: SEEDS (FEMNIST seeds, default "1 2 3"), FEMNIST_ROUNDS (300),
#   FEMNIST_PARTICIPANTS (50), FEMNIST_TRAIN (the reference's lr decay, momentum, weight decay),
#   SPEED_ROUNDS (12), LOCAL_STEPS (10), MODEL (lenet),
#   SPLIT_EPOCHS (50,100), FEMNIST_AUXO (--split-epochs SPLIT_EPOCHS), BLOB_SEEDS (20 draws), BLOB_FIRST_SEED (1), BLOB_RULES
#   ("reference added robust"; also "pooled"), BLOB_SEPARATIONS ("10 8"), ACCURACY_SETS ("femnist groups"),
#   ALGORITHMS ("fedavg auxo+fedavg fedprox auxo+fedprox"), SKIP_SPEED=1, SKIP_ACCURACY=1,
#   SKIP_BLOBS=1, JOBS (1: runs of a table at once, at most 8), OUT_DIR or KEEP (keep the runs
#   there; runs already there are not repeated; default: a temporary folder, removed).
# The FEMNIST table of docs/fl.md, "Validation" (12 runs, one thread each; JOBS=2 runs two at once):
#     SKIP_SPEED=1 SKIP_BLOBS=1 ACCURACY_SETS=femnist FEMNIST_ROUNDS=200 FEMNIST_PARTICIPANTS=20 bench/fl.sh
#   the same with plain SGD at a constant lr: FEMNIST_TRAIN= in front.
#   Auxo(FedAvg) variants (docs/results/fl.md), the same with ALGORITHMS=auxo+fedavg and
#   SPLIT_EPOCHS=50 (at most 2 cohorts), or with
#   FEMNIST_AUXO="--split-epochs 50,100 --proportional-slots".
# Ground-truth population (its own settings, docs/fl.md "Validation"):
#   GROUP_SEEDS ("3 4 5"), GROUP_ROUNDS (150), GROUP_CLIENTS (200), GROUP_PARTICIPANTS (50),
#   GROUP_AUXO (Auxo's options for it). The documented command for its table:
#     ACCURACY_SETS=groups SKIP_BLOBS=1 SKIP_SPEED=1 JOBS=4 bench/fl.sh
# The blob table on the 20 held-out draws (seeds 21-40), separation 10, the defaults' rules and
# the "robust" rules (add BLOB_SEEDS=120 for draws 21-140):
#     BLOB_FIRST_SEED=21 BLOB_RULES="added robust" BLOB_SEPARATIONS=10 SKIP_ACCURACY=1 SKIP_SPEED=1 bench/fl.sh
#   fresh draws 141-340 with the "pooled" rules (robust + --pooled-sides) as well:
#     BLOB_FIRST_SEED=141 BLOB_SEEDS=200 BLOB_RULES="added robust pooled" BLOB_SEPARATIONS=10 \
#       SKIP_ACCURACY=1 SKIP_SPEED=1 OUT_DIR=/tmp/blobs141 bench/fl.sh
set -euo pipefail
cd "$(dirname "$0")/.."
J="${1:-build/jigsaw}"
SEEDS="${SEEDS:-1 2 3}"
FEMNIST_ROUNDS="${FEMNIST_ROUNDS:-300}"
FEMNIST_PARTICIPANTS="${FEMNIST_PARTICIPANTS:-50}"
# Local-training options for every FEMNIST run (all four algorithms alike). Default: the
# reference's (FedScale: lr x0.98 every 10 rounds, SGD momentum 0.9, weight decay 5e-4), which
# also lift FedAvg by ~4.7 points over plain SGD at a constant lr (docs/results/fl.md).
# FEMNIST_TRAIN= (set, empty): jigsaw fl's defaults, constant lr 0.05, plain SGD.
FEMNIST_TRAIN="${FEMNIST_TRAIN-"--momentum 0.9 --weight-decay 5e-4 --lr-decay 0.98 --lr-decay-rounds 10"}"
GROUP_SEEDS="${GROUP_SEEDS:-3 4 5}"
GROUP_ROUNDS="${GROUP_ROUNDS:-150}"
GROUP_CLIENTS="${GROUP_CLIENTS:-200}"
GROUP_PARTICIPANTS="${GROUP_PARTICIPANTS:-50}"
# Warm-up: signatures of a model that has not learned features yet do not separate the groups
# (docs/fl.md), so the cohort table starts at round 20; adaptive splits with a separation gate,
# and a side-size ratio bar of 3 so that a cohort of three groups can split 1-vs-2; stragglers'
# signatures reach the table (--late-signatures), and the side size bar (--known-clients 40)
# keeps a cohort of one 50-client group from splitting in halves (chosen on seeds 1-2).
GROUP_AUXO="${GROUP_AUXO:---auxo-start-round 20 --split-epochs adaptive --known-clients 40 --min-cohort-clients 40 --max-side-ratio 3 --late-signatures}"
JOBS="${JOBS:-1}"
((JOBS >= 1 && JOBS <= 8)) || { echo "JOBS must be in 1..8" >&2; exit 2; }
SPEED_ROUNDS="${SPEED_ROUNDS:-12}"
LOCAL_STEPS="${LOCAL_STEPS:-10}"
MODEL="${MODEL:-lenet}"
SPLIT_EPOCHS="${SPLIT_EPOCHS:-50,100}"
# Auxo's options on FEMNIST (docs/results/fl.md has runs with --proportional-slots and with
# SPLIT_EPOCHS=50).
FEMNIST_AUXO="${FEMNIST_AUXO:---split-epochs $SPLIT_EPOCHS}"
BLOB_SEEDS="${BLOB_SEEDS:-20}"
BLOB_FIRST_SEED="${BLOB_FIRST_SEED:-1}"
BLOB_RULES="${BLOB_RULES:-reference added robust}"
BLOB_SEPARATIONS="${BLOB_SEPARATIONS:-10 8}"
ACCURACY_SETS="${ACCURACY_SETS:-femnist groups}"
ALGORITHMS="${ALGORITHMS:-fedavg auxo+fedavg fedprox auxo+fedprox}"
OUT_DIR="${OUT_DIR:-${KEEP:-}}"
if [[ -n "$OUT_DIR" ]]; then
  # Runs are kept there, and a run whose summary.json exists is not run again (resumable).
  OUT="$OUT_DIR"
  mkdir -p "$OUT"
else
  OUT="$(mktemp -d)"
  trap 'rm -rf "$OUT"' EXIT
fi

field() { jq -r ".$2" "$1/summary.json"; }

# Common settings: batch 20, lr 0.05 (the reference config's values), 1.3x over-commitment,
# log-normal speeds, 80% availability.
COMMON=(--model "$MODEL" --local-steps "$LOCAL_STEPS" --batch 20 --lr 0.05 --overcommit 1.3
  --speed-sigma 0.5 --availability 0.8 --eval-every 25 --quiet)

# Per algorithm over the seeds: mean, standard deviation and minimum of the final mean accuracy,
# mean of worst-10% and bias; then Auxo minus its baseline, seed by seed (paired: same seed, same
# population, same participants per round).
spread_summary() {  # rows file: algorithm seed mean worst10 bias
  echo "-- over seeds (mean acc: mean / sd / min; worst10 and bias: mean / worst) --"
  printf '%-16s %6s %9s %7s %7s %9s %9s %9s %9s\n' algorithm seeds mean sd min worst10 \
    worst10_min bias bias_max
  awk '{n[$1]++; s[$1]+=$3; q[$1]+=$3*$3; w[$1]+=$4; b[$1]+=$5;
        if (!($1 in lo) || $3 < lo[$1]) lo[$1]=$3; if (!($1 in wl) || $4 < wl[$1]) wl[$1]=$4;
        if (!($1 in bh) || $5 > bh[$1]) bh[$1]=$5; if (!($1 in at)) { at[$1]=++k; name[k]=$1 } }
       END { for (i = 1; i <= k; i++) { a = name[i]; m = s[a] / n[a]; v = q[a] / n[a] - m * m;
               printf "%-16s %6d %9.4f %7.4f %7.4f %9.4f %9.4f %9.4f %9.4f\n", a, n[a], m,
                 sqrt(v > 0 ? v : 0), lo[a], w[a] / n[a], wl[a], b[a] / n[a], bh[a] } }' "$1"
  echo "-- Auxo minus its baseline, per seed (mean acc, worst10, bias) --"
  awk '{key = $1 " " $2; acc[key]=$3; wst[key]=$4; bias[key]=$5;
        if (!($2 in seen)) { seen[$2]=1; order[++seeds]=$2 } }
       END { split("fedavg fedprox", bases, " ");
             for (j = 1; j <= 2; j++) { b = bases[j]; line = ""; da = 0; n = 0;
               for (i = 1; i <= seeds; i++) { seed = order[i];
                 if (!((b " " seed) in acc) || !(("auxo+" b " " seed) in acc)) continue;
                 d = acc["auxo+" b " " seed] - acc[b " " seed]; da += d; n++;
                 line = line sprintf(" seed %s: %+.4f / %+.4f / %+.4f;", seed, d,
                   wst["auxo+" b " " seed] - wst[b " " seed],
                   bias["auxo+" b " " seed] - bias[b " " seed]) }
               if (n > 0) printf "auxo+%s - %s: mean %+.4f over %d seeds;%s\n", b, b, da / n, n, line } }' "$1"
}

# accuracy_table title "dataset args" rounds participants "auxo args" "seeds" ["training args"]:
# one run per algorithm and seed (JOBS at a time), a row each, then mean [min..max] over the
# seeds. The training args go to every algorithm alike.
accuracy_table() {
  local title="$1" rounds="$3" participants="$4" seeds="$6"
  read -r -a data_args <<<"$2"
  read -r -a auxo_args <<<"$5"
  read -r -a train_args <<<"${7:-}"
  echo "== $title: $rounds rounds, $participants participants/round, seeds: $seeds =="
  [[ ${#train_args[@]} -gt 0 ]] && echo "   training, every algorithm: ${train_args[*]}"
  local runs=()
  for algo in $ALGORITHMS; do
    for seed in $seeds; do
      local args=("${data_args[@]}" "${COMMON[@]}" "${train_args[@]}" --participants "$participants"
        --rounds "$rounds" --seed "$seed")
      case "$algo" in
        auxo+*) args+=(--auxo "${auxo_args[@]}") ;;
      esac
      case "$algo" in
        *fedprox) args+=(--algorithm fedprox --mu 0.01) ;;
      esac
      local dir="$OUT/${data_args[1]}-$algo-$seed"
      runs+=("$algo $seed $dir")
      [[ -f "$dir/summary.json" ]] && continue
      while (($(jobs -rp | wc -l) >= JOBS)); do wait -n; done
      nice -n 10 "$J" fl "${args[@]}" --out "$dir" >/dev/null &
    done
  done
  wait
  for run in "${runs[@]}"; do
    read -r algo seed dir <<<"$run"
    [[ -f "$dir/summary.json" ]] || { echo "bench/fl.sh: run $algo seed $seed failed (no $dir/summary.json; its error is above)" >&2; exit 1; }
  done
  printf '%-16s %5s %9s %9s %9s %8s %7s %7s %9s %8s %8s\n' algorithm seed mean_acc worst10 bias \
    cohorts ari purity rejected cpu_s wall_s
  local rows="$OUT/rows-$RANDOM"
  : >"$rows"
  for run in "${runs[@]}"; do
    read -r algo seed dir <<<"$run"
    printf '%-16s %5s %9s %9s %9s %8s %7s %7s %9s %8s %8s\n' "$algo" "$seed" \
      "$(field "$dir" final_mean_accuracy)" "$(field "$dir" final_worst10_accuracy)" \
      "$(field "$dir" final_accuracy_stddev)" "$(field "$dir" cohorts)" \
      "$(jq -r '.ari // "-"' "$dir/summary.json")" "$(jq -r '.purity // "-"' "$dir/summary.json")" \
      "$(jq -r '.rejected_updates // "-"' "$dir/summary.json")" "$(field "$dir" cpu_s)" \
      "$(field "$dir" wall_s)"
    echo "$algo $seed $(field "$dir" final_mean_accuracy) $(field "$dir" final_worst10_accuracy)" \
      "$(field "$dir" final_accuracy_stddev)" >>"$rows"
  done
  spread_summary "$rows"
  echo "-- mean [min..max] over seeds $seeds"
  printf '%-16s %21s %21s %21s %13s %21s %21s\n' algorithm mean_acc worst10 bias cohorts ari \
    purity
  for algo in $ALGORITHMS; do
    local files=()
    for seed in $seeds; do files+=("$OUT/${data_args[1]}-$algo-$seed/summary.json"); done
    jq -s -r --arg a "$algo" '
      def stat(f): (map(f) | map(select(. != null))) as $v |
        if ($v | length) == 0 then "-" else
        "\($v | add / length * 1000 | round / 1000) [\($v | min)..\($v | max)]" end;
      [$a, stat(.final_mean_accuracy), stat(.final_worst10_accuracy),
       stat(.final_accuracy_stddev), stat(.cohorts), stat(.ari), stat(.purity)] | join("|")' \
      "${files[@]}" |
      awk -F'|' '{printf "%-16s %21s %21s %21s %13s %21s %21s\n", $1, $2, $3, $4, $5, $6, $7}'
  done
  echo
}

if [[ -z "${SKIP_ACCURACY:-}" ]]; then
  if [[ " $ACCURACY_SETS " == *" femnist "* ]]; then
    accuracy_table "FEMNIST (LEAF, 105 writers)" "--dataset femnist" "$FEMNIST_ROUNDS" \
      "$FEMNIST_PARTICIPANTS" "$FEMNIST_AUXO" "$SEEDS" "$FEMNIST_TRAIN"
  fi
  if [[ " $ACCURACY_SETS " == *" groups "* ]]; then
    accuracy_table "Fashion-MNIST, 4 label-permutation groups, $GROUP_CLIENTS clients" \
      "--dataset fashion-groups --clients $GROUP_CLIENTS --groups 4 --samples-per-client 200 --test-per-client 50" \
      "$GROUP_ROUNDS" "$GROUP_PARTICIPANTS" "$GROUP_AUXO" "$GROUP_SEEDS"
  fi
fi

if [[ -z "${SKIP_BLOBS:-}" ]]; then
  # rules: "reference" = the reference's split test (--min-side-separation 0
  # --rebipartition-epochs 0); "added" = the defaults (separation gate 3, re-bipartition after 50);
  # "robust" = added + --median-rewards --gate-first-split (chosen on seeds 1-20);
  # "pooled" = robust + --pooled-sides (chosen on seeds 1-140).
  echo "== blob cohort discovery (FedScale playground): 1000 clients, 4 blobs (std 2), 50/epoch, 800 epochs, adaptive splits =="
  blob_last=$((BLOB_FIRST_SEED + BLOB_SEEDS - 1))
  echo "seeds $BLOB_FIRST_SEED-$blob_last (the split rules' thresholds were chosen on 1-20; 21-40 are held out)"
  printf '%-10s %-11s %6s %9s %9s %12s %12s\n' rules separation seeds ari_mean ari_min 'ari>=0.9' \
    '4_cohorts'
  for rules in $BLOB_RULES; do
    rule_args=()
    [[ "$rules" == reference ]] && rule_args=(--min-side-separation 0 --rebipartition-epochs 0)
    [[ "$rules" == robust ]] && rule_args=(--median-rewards --gate-first-split)
    [[ "$rules" == pooled ]] && rule_args=(--median-rewards --gate-first-split --pooled-sides)
    for sep in $BLOB_SEPARATIONS; do
      aris=()
      four=0
      for seed in $(seq "$BLOB_FIRST_SEED" "$blob_last"); do
        dir="$OUT/blobs-$rules-$sep-$seed"
        nice -n 10 "$J" fl --dataset blobs --clients 1000 --groups 4 --participants 50 \
          --rounds 800 --known-clients 150 --min-cohort-clients 111 --split-epochs adaptive \
          "${rule_args[@]}" --blob-separation "$sep" --seed "$seed" --out "$dir" >/dev/null
        aris+=("$(field "$dir" ari)")
        [[ "$(field "$dir" cohorts)" == 4 ]] && four=$((four + 1))
      done
      printf '%s\n' "${aris[@]}" | jq -s --arg r "$rules" --arg sep "$sep" --arg four "$four" -r \
        '"\($r)|\($sep)|\(length)|\(add / length * 1000 | round / 1000)|\(min)|\(map(select(. >= 0.9)) | length)|\($four)"' |
        awk -F'|' '{printf "%-10s %-11s %6s %9s %9s %12s %12s\n", $1, $2, $3, $4, $5, $6, $7}'
    done
  done
  echo
fi

if [[ -z "${SKIP_SPEED:-}" ]]; then
  # CPU seconds per round = (cpu_s of SPEED_ROUNDS rounds - cpu_s of 2 rounds) / (SPEED_ROUNDS - 2):
  # data loading and the one final evaluation cancel out. The 1,000-round figure is that per-round
  # CPU time x 1,000 (an extrapolation: on an idle core wall time ~ CPU time, 1 thread).
  echo "== speed: LeNet, FEMNIST, 100 participants/round, 10 local steps x batch 20, 1 thread =="
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "BLAS behind LibTorch's sgemm_: $(ldd "$(dirname "$J")/jigsaw-runtime" 2>/dev/null |
    grep -o 'libopenblas[^ ]*' | head -1 || true) (empty: the system's libblas.so.3)"
  printf '%-11s %7s %9s %8s %10s %12s %22s\n' training rounds wall_s cpu_s rounds/s \
    cpu_s/round est_1000_rounds_cpu_min
  for training in batched sequential; do
    flags=(--dataset femnist --model lenet --participants 100 --overcommit 1 --availability 1
      --local-steps 10 --batch 20 --quiet)
    [[ "$training" == sequential ]] && flags+=(--sequential-training)
    for rounds in 2 "$SPEED_ROUNDS"; do
      nice -n 10 "$J" fl "${flags[@]}" --rounds "$rounds" --eval-every "$rounds" \
        --out "$OUT/speed-$training-$rounds" >/dev/null
    done
    full="$OUT/speed-$training-$SPEED_ROUNDS"
    per_round=$(jq -n "($(field "$full" cpu_s) - $(field "$OUT/speed-$training-2" cpu_s)) / \
      ($SPEED_ROUNDS - 2) | . * 1000 | round / 1000")
    printf '%-11s %7s %9s %8s %10s %12s %22s\n' "$training" "$SPEED_ROUNDS" \
      "$(field "$full" wall_s)" "$(field "$full" cpu_s)" "$(field "$full" rounds_per_s)" \
      "$per_round" "$(jq -n "$per_round * 1000 / 60 | . * 10 | round / 10")"
  done
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
fi

#!/usr/bin/env bash
# Federated learning (issue 19): FedAvg vs Auxo(FedAvg) and FedProx vs Auxo(FedProx) on FEMNIST
# (105 LEAF writers) and on a ground-truth population (Fashion-MNIST, 4 groups that permute the
# labels), blob cohort discovery over 20 seeds, and simulation speed (rounds/s with 100
# participants of LeNet). Prints tables; numbers depend on the machine's load (run with nice).
# Usage: bench/fl.sh [JIGSAW]   env: SEEDS (default "1 2"), FEMNIST_ROUNDS (300),
#   GROUP_ROUNDS (300), SPEED_ROUNDS (20), PARTICIPANTS (20), LOCAL_STEPS (10), MODEL (lenet),
#   SPLIT_EPOCHS (50,100), BLOB_SEEDS (20), ACCURACY_SETS ("femnist groups"),
#   ALGORITHMS ("fedavg auxo+fedavg fedprox auxo+fedprox"), SKIP_SPEED=1, SKIP_ACCURACY=1,
#   SKIP_BLOBS=1
set -euo pipefail
cd "$(dirname "$0")/.."
J="${1:-build/jigsaw}"
SEEDS="${SEEDS:-1 2}"
FEMNIST_ROUNDS="${FEMNIST_ROUNDS:-300}"
GROUP_ROUNDS="${GROUP_ROUNDS:-300}"
SPEED_ROUNDS="${SPEED_ROUNDS:-20}"
PARTICIPANTS="${PARTICIPANTS:-20}"
LOCAL_STEPS="${LOCAL_STEPS:-10}"
MODEL="${MODEL:-lenet}"
SPLIT_EPOCHS="${SPLIT_EPOCHS:-50,100}"
BLOB_SEEDS="${BLOB_SEEDS:-20}"
ACCURACY_SETS="${ACCURACY_SETS:-femnist groups}"
ALGORITHMS="${ALGORITHMS:-fedavg auxo+fedavg fedprox auxo+fedprox}"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

field() { jq -r ".$2" "$1/summary.json"; }

# Common settings: batch 20, lr 0.05 (the reference config's values), 1.3x over-commitment,
# log-normal speeds, 80% availability; Auxo splits at cohort epochs SPLIT_EPOCHS.
COMMON=(--model "$MODEL" --local-steps "$LOCAL_STEPS" --batch 20 --lr 0.05
  --participants "$PARTICIPANTS" --overcommit 1.3 --speed-sigma 0.5 --availability 0.8
  --eval-every 25 --split-epochs "$SPLIT_EPOCHS" --quiet)

accuracy_table() {  # title dataset-args rounds
  local title="$1" rounds="$3"
  read -r -a data_args <<<"$2"
  echo "== $title: $rounds rounds, $PARTICIPANTS participants/round, seeds: $SEEDS =="
  printf '%-16s %5s %9s %9s %9s %8s %7s %7s %8s\n' algorithm seed mean_acc worst10 bias \
    cohorts ari purity wall_s
  for algo in $ALGORITHMS; do
    for seed in $SEEDS; do
      local args=("${data_args[@]}" "${COMMON[@]}" --rounds "$rounds" --seed "$seed")
      case "$algo" in
        auxo+*) args+=(--auxo) ;;
      esac
      case "$algo" in
        *fedprox) args+=(--algorithm fedprox --mu 0.01) ;;
      esac
      local dir="$OUT/$algo-$seed"
      nice -n 10 "$J" fl "${args[@]}" --out "$dir" >/dev/null
      printf '%-16s %5s %9s %9s %9s %8s %7s %7s %8s\n' "$algo" "$seed" \
        "$(field "$dir" final_mean_accuracy)" "$(field "$dir" final_worst10_accuracy)" \
        "$(field "$dir" final_accuracy_stddev)" "$(field "$dir" cohorts)" \
        "$(jq -r '.ari // "-"' "$dir/summary.json")" "$(jq -r '.purity // "-"' "$dir/summary.json")" \
        "$(field "$dir" wall_s)"
    done
  done
  echo
}

if [[ -z "${SKIP_ACCURACY:-}" ]]; then
  if [[ " $ACCURACY_SETS " == *" femnist "* ]]; then
    accuracy_table "FEMNIST (LEAF, 105 writers)" "--dataset femnist" "$FEMNIST_ROUNDS"
  fi
  if [[ " $ACCURACY_SETS " == *" groups "* ]]; then
    accuracy_table "Fashion-MNIST, 4 label-permutation groups x 50 clients" \
      "--dataset fashion-groups --clients 200 --groups 4 --samples-per-client 200 --test-per-client 50" \
      "$GROUP_ROUNDS"
  fi
fi

if [[ -z "${SKIP_BLOBS:-}" ]]; then
  echo "== blob cohort discovery (FedScale playground): 1000 clients, 4 blobs (std 2), 50/epoch, 800 epochs, adaptive splits =="
  printf '%-11s %6s %9s %9s %12s %12s\n' separation seeds ari_mean ari_min 'ari>=0.9' '4_cohorts'
  for sep in 10 8; do
    aris=()
    four=0
    for seed in $(seq 1 "$BLOB_SEEDS"); do
      dir="$OUT/blobs-$sep-$seed"
      nice -n 10 "$J" fl --dataset blobs --clients 1000 --groups 4 --participants 50 --rounds 800 \
        --known-clients 150 --min-cohort-clients 111 --split-epochs adaptive \
        --blob-separation "$sep" --seed "$seed" --out "$dir" >/dev/null
      aris+=("$(field "$dir" ari)")
      [[ "$(field "$dir" cohorts)" == 4 ]] && four=$((four + 1))
    done
    printf '%s\n' "${aris[@]}" | jq -s --arg sep "$sep" --arg four "$four" -r \
      '"\($sep)|\(length)|\(add / length * 1000 | round / 1000)|\(min)|\(map(select(. >= 0.9)) | length)|\($four)"' |
      awk -F'|' '{printf "%-11s %6s %9s %9s %12s %12s\n", $1, $2, $3, $4, $5, $6}'
  done
  echo
fi

if [[ -z "${SKIP_SPEED:-}" ]]; then
  echo "== speed: LeNet, 100 participants/round, 10 local steps x batch 20, 1 thread =="
  printf '%-12s %7s %9s %10s %22s\n' dataset rounds wall_s rounds/s est_1000_rounds_min
  for dataset in femnist; do
    dir="$OUT/speed-$dataset"
    nice -n 10 "$J" fl --dataset "$dataset" --model lenet --participants 100 --overcommit 1 \
      --availability 1 --local-steps 10 --batch 20 --rounds "$SPEED_ROUNDS" \
      --eval-every "$SPEED_ROUNDS" --quiet --out "$dir" >/dev/null
    wall=$(field "$dir" wall_s)
    rps=$(field "$dir" rounds_per_s)
    printf '%-12s %7s %9s %10s %22s\n' "$dataset" "$SPEED_ROUNDS" "$wall" "$rps" \
      "$(jq -n "1000 / $rps / 60 | . * 10 | round / 10")"
  done
  echo
fi

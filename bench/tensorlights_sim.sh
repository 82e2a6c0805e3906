#!/usr/bin/env bash
# TensorLights' question in the packet simulator (`jigsaw net --ps-jobs`, docs/tensorlights.md
# "Simulated"): does prioritising co-located parameter servers' fan-out at the PS host's NIC
# reduce the average job completion time?
#
# PART=paper (default): 21 jobs x 20 workers of ResNet-32 (1.86 MB per push and pull) on a
# 21-host rack (one switch), 1 Gbps and 10 Gbps links, PS hosts 1 / 3 / 7 / 21, policies fifo /
# static / rotate, SEEDS seeds (compute drawn per worker and iteration from COMPUTE_FILE).
# PART=regime: the regime map with all PSes on one host, static against fifo: fan-out (workers
# per job), model size against the link rate, and the compute share.
# PART=all: both. Runs are resumable (a run whose summary.json exists is skipped); at most
# PARALLEL runs at once, each under `nice -n 5`. Tables: bench/tensorlights_sim_report.py.
#
# Usage: bench/tensorlights_sim.sh [out_dir]
#   env: JIGSAW=build/jigsaw PART=paper SEEDS=10 REGIME_SEEDS=3 ITERS=20 RATES="1Gbps 10Gbps"
#        PLACEMENTS="1 3 7 21" POLICIES="fifo static rotate" PAYLOAD=9000 PARALLEL=2
#        NET_ARGS="--nic-order fifo" (more `jigsaw net` options for every run)
#        COMPUTE_FILE=<CSV with compute_s> (default: OUT/compute_resnet32.csv, measured first:
#        see measure_compute below) INTERVAL_1Gbps=20s INTERVAL_10Gbps=2s
set -euo pipefail
cd "$(dirname "$0")/.."
JIGSAW="${JIGSAW:-build/jigsaw}"
OUT="${1:-out/tensorlights_sim}"
PART="${PART:-paper}"
SEEDS="${SEEDS:-10}"
ITERS="${ITERS:-20}"
PAYLOAD="${PAYLOAD:-9000}"
PARALLEL="${PARALLEL:-2}"
mkdir -p "$OUT"
[ -x "$JIGSAW" ] || { echo "tensorlights_sim: $JIGSAW not found (scripts/build.sh)" >&2; exit 2; }

# Compute per iteration: jigsaw ps-worker's CIFAR ResNet-20 (--model resnet20, 32x32 inputs,
# batch 4, one thread: TensorLights trains ResNet-32 with batch 4 on CPUs), measured here against
# a local `jigsaw ps`, then scaled by 31/19, the ratio of ResNet-32's convolution layers to
# ResNet-20's (same widths, 5 instead of 3 blocks per stage): an estimate of ResNet-32's compute.
measure_compute() {
  local dir="$OUT/measure" port
  mkdir -p "$dir"
  rm -f "$dir/port" "$dir/worker0.csv"
  "$JIGSAW" ps --job m --port 0 --port-file "$dir/port" --workers 1 --token-file "$dir/token" \
    --out "$dir/server.json" > /dev/null 2>&1 &
  local server=$!
  for _ in $(seq 100); do [ -s "$dir/port" ] && break; sleep 0.1; done
  port=$(cat "$dir/port")
  nice -n 5 "$JIGSAW" ps-worker --job m --server "127.0.0.1:$port" --token-file "$dir/token" \
    --rank 0 --workers 1 --model resnet20 --synthetic-size 32 --batch 4 --threads 1 \
    --iters "${MEASURE_ITERS:-200}" --quiet --out "$dir" > /dev/null
  wait "$server" || true
  python3 - "$dir/worker0.csv" "$OUT/compute_resnet32.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
values = [float(r["compute_s"]) * 31 / 19 for r in rows[10:]]  # the first 10 warm up
with open(sys.argv[2], "w") as f:
    f.write("compute_s\n" + "".join(f"{v:.6f}\n" for v in values))
values.sort()
print(f"tensorlights_sim: ResNet-20 compute x 31/19: {len(values)} samples, median "
      f"{values[len(values) // 2] * 1e3:.1f} ms, min {values[0] * 1e3:.1f}, max "
      f"{values[-1] * 1e3:.1f}", file=sys.stderr)
PY
}
COMPUTE_FILE="${COMPUTE_FILE:-$OUT/compute_resnet32.csv}"
[ -s "$COMPUTE_FILE" ] || measure_compute

running=0
run() {  # dir args...: one simulation unless its summary exists
  local dir=$1
  shift
  [ -s "$dir/summary.json" ] && return 0
  mkdir -p "$dir"
  (
    # shellcheck disable=SC2086
    /usr/bin/time -f "%U %S %e" -o "$dir/time.txt" nice -n 5 "$JIGSAW" net --quiet --out "$dir" \
      --payload "$PAYLOAD" "$@" ${NET_ARGS:-} > "$dir/log.txt" 2>&1 || echo "exit $?" >> "$dir/log.txt"
  ) &
  running=$((running + 1))
  if [ "$running" -ge "$PARALLEL" ]; then
    wait -n || true
    running=$((running - 1))
  fi
}

interval_for() {
  case "$1" in
    1Gbps) echo "${INTERVAL_1Gbps:-20s}" ;;
    10Gbps) echo "${INTERVAL_10Gbps:-2s}" ;;
    *) echo 20s ;;
  esac
}

policy_args() {  # policy rate
  case "$1" in
    rotate) echo "--host-priority rotate --rotate-interval $(interval_for "$2")" ;;
    *) echo "--host-priority $1" ;;
  esac
}

if [ "$PART" = paper ] || [ "$PART" = all ]; then
  for rate in ${RATES:-1Gbps 10Gbps}; do
    for hosts in ${PLACEMENTS:-1 3 7 21}; do
      for seed in $(seq 1 "$SEEDS"); do
        for policy in ${POLICIES:-fifo static rotate}; do
          # shellcheck disable=SC2046
          run "$OUT/paper/rate${rate}_ps${hosts}/$policy/seed$seed" \
            --topology "rack:hosts=21,rate=$rate" --ps-jobs 21 --ps-workers 20 \
            --ps-model resnet32 --ps-compute-file "$COMPUTE_FILE" --ps-iterations "$ITERS" \
            --ps-hosts "$hosts" --seed "$seed" $(policy_args "$policy" "$rate")
        done
      done
    done
  done
fi

if [ "$PART" = regime ] || [ "$PART" = all ]; then
  # All PSes on one host, 21 jobs, static against fifo, REGIME_SEEDS seeds per point.
  for seed in $(seq 1 "${REGIME_SEEDS:-3}"); do
    for policy in fifo static; do
      # Fan-out: workers per job (1 Gbps, ResNet-32, measured compute).
      for workers in 5 10 20; do
        run "$OUT/regime/fanout_w${workers}/$policy/seed$seed" \
          --topology rack:hosts=21,rate=1Gbps --ps-jobs 21 --ps-workers "$workers" \
          --ps-model resnet32 --ps-compute-file "$COMPUTE_FILE" --ps-iterations "$ITERS" \
          --seed "$seed" --host-priority "$policy"
      done
      # Model size against the link rate: the fan-out's time at the NIC over the compute.
      for model in resnet20 resnet110; do
        for rate in 1Gbps 10Gbps 40Gbps; do
          run "$OUT/regime/model_${model}_rate${rate}/$policy/seed$seed" \
            --topology "rack:hosts=21,rate=$rate" --ps-jobs 21 --ps-workers 20 \
            --ps-model "$model" --ps-compute-file "$COMPUTE_FILE" --ps-iterations "$ITERS" \
            --seed "$seed" --host-priority "$policy"
        done
      done
      # Compute share: fixed compute with 20% jitter (1 Gbps, ResNet-32).
      for compute in 0s 1s 10s; do
        run "$OUT/regime/compute_${compute}/$policy/seed$seed" \
          --topology rack:hosts=21,rate=1Gbps --ps-jobs 21 --ps-workers 20 \
          --ps-model resnet32 --ps-compute "$compute" --ps-compute-jitter 20% \
          --ps-iterations "$ITERS" --seed "$seed" --host-priority "$policy"
      done
    done
  done
fi
wait
for part in paper regime; do
  [ -d "$OUT/$part" ] || continue
  echo "## $part"
  python3 bench/tensorlights_sim_report.py "$OUT/$part"
done

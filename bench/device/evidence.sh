#!/usr/bin/env bash
# SPB on a real CNN and a trained ResNet-18, on one GPU machine in one call (9 minutes):
#   1. build jigsaw-runtime against the machine's PyTorch (bench/device/build.sh);
#   2. smoke test: two workers sharing the GPU (the host-staged exchange) on a tiny job; it also
#      decides whether CUDA MPS (kernels of several processes at once) stays on;
#   3. ResNet-20 on CIFAR-10, `--spb full` against the default `--spb adaptive` (no adaptive flag
#      pinned), 4 workers x batch 32, seeds 0-2, 30 epochs, cosine: the 6 runs (24 worker
#      processes) at once on the one GPU and the 16 cores; the layout of bench/spb_bench.sh, so
#      bench/spb_report.py reads it on any machine afterwards;
#   4. ResNet-18 on CIFAR-10, one worker, batch 128, 40 epochs, cosine; `jigsaw profile` of
#      ResNet-20 (CPU, for the report's profiled-work column) meanwhile;
#   5. everything into $OUT as soon as it exists: evidence.log (this output, written as it runs),
#      resnet20-runs.tar.xz (summaries, evals, decisions, iterations, logs, profile; split into
#      .partN files past 15 MiB), resnet18-run.tar.gz (its outputs but the checkpoint),
#      resnet18-fp16.pt.part0/.part1 (the trained weights in float16, `jigsaw checkpoint`) and
#      resnet18-fp16.sha256 (of the whole file and of each part). At most 8 files.
# A stage that overruns its deadline is killed and what it finished is kept: every run rewrites
# its summary, evals and checkpoint after each epoch, and ResNet-18's deadline is fixed, so a slow
# ResNet-20 stage can never take its time.
#
# The call (device tool), after `bench/device/prepare.sh` here (it fills .device/):
#   run(command="bash bench/device/evidence.sh", carry=[".device"], timeout_s=590)
# Then here: bench/device/from_checkpoint.sh (the caches on the returned ResNet-18) and
# bench/spb_report.py over the unpacked ResNet-20 runs (docs/runtime.md "The device script").
#
# Budget (EVIDENCE_BUDGET_S = 540 s from the script's start; seconds, estimates unless marked):
#   build           ~70 (about 45 C++ files on 16 cores; measured here: see docs)
#   smoke + warm    ~15 (CUDA start-up, CIFAR-10 decoded once into the cache)
#   ResNet-20       deadline at BUDGET - ResNet-18's reserve = 540 - 238 = 302 s: 30 epochs x 390
#                   iterations = 11,700 per run, so the six runs must average <= ~17 ms per
#                   iteration (4 workers per run, 24 processes on 16 cores) to finish
#   ResNet-18       reserve 238 = 40 epochs x 390 iterations x 12.7 ms (measured on the H100,
#                   batch 128: 198 s) + ~25 (start-up, 40 evaluations of 10,000 images) + ~15
#                   (float16 conversion, packing); deadline at BUDGET - 20
#   Machine start (1-2 min) and the transfers come on top: about 11-12 of the 15 device minutes.
# EVIDENCE_TINY=1 rehearses all of it on a CPU at a tiny size (500 + 100 images, a few
# iterations, --device cpu --stage-through-host) with OUT pointed at any folder.
# Env: OUT (required), EVIDENCE_TINY, EVIDENCE_BUDGET_S, DEVICE (cuda), R20_EPOCHS (30),
#      R18_EPOCHS (40), SEEDS ("0 1 2"), MPS (auto|off), BUILD (build-device), DEVICE_DIR (.device),
#      EVIDENCE_BIN (a jigsaw-runtime already built: skips step 1)
set -uo pipefail
cd "$(dirname "$0")/../.."
: "${OUT:?set OUT to the folder whose files come back}"
mkdir -p "$OUT"
START=$(date +%s)
exec > >(tee -a "$OUT/evidence.log") 2>&1
elapsed() { echo $(($(date +%s) - START)); }
say() { echo "evidence [$(elapsed) s]: $*"; }

TINY="${EVIDENCE_TINY:-0}"
if [ "$TINY" = 1 ]; then BUDGET="${EVIDENCE_BUDGET_S:-7200}"; else BUDGET="${EVIDENCE_BUDGET_S:-540}"; fi
DEV_DIR="${DEVICE_DIR:-.device}"
BUILD="${BUILD:-build-device}"
SEEDS="${SEEDS:-0 1 2}"
WORK="${WORK:-$(mktemp -d /tmp/jigsaw-evidence.XXXXXX)}"
CACHE="$WORK/cache"
ARCHIVE="$DEV_DIR/data/cifar10-jpeg.tar.gz"
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
if [ "$TINY" = 1 ]; then
  DEVICE="${DEVICE:-cpu}"; R20_EPOCHS="${R20_EPOCHS:-1}"; R18_EPOCHS="${R18_EPOCHS:-1}"
  R20_ITERS=4; R20_BATCH=8; R18_ITERS=2; R18_BATCH=16; EVAL_EVERY=2; EVAL_SAMPLES=50
  PROFILE_REPEATS=2; R18_RESERVE=$((BUDGET / 3)); NICE="nice -n 10"
else
  DEVICE="${DEVICE:-cuda}"; R20_EPOCHS="${R20_EPOCHS:-30}"; R18_EPOCHS="${R18_EPOCHS:-40}"
  R20_ITERS=0; R20_BATCH=32; R18_ITERS=0; R18_BATCH=128; EVAL_EVERY=50; EVAL_SAMPLES=2000
  PROFILE_REPEATS=10; NICE=""
  # 390 iterations per epoch at the measured 12.7 ms, plus start-up, evaluations and packing.
  R18_RESERVE=$((R18_EPOCHS * 390 * 127 / 10000 + 40))
fi
STAGE=()
[ "$DEVICE" = cpu ] && STAGE=(--stage-through-host)  # the GPU's exchange path, on the CPU
R20_DEADLINE=$((BUDGET - R18_RESERVE))
R18_DEADLINE=$((BUDGET - 20))
say "budget $BUDGET s: ResNet-20 until $R20_DEADLINE s, ResNet-18 until $R18_DEADLINE s;" \
  "work in $WORK; commit $(head -1 "$DEV_DIR/COMMIT" 2>/dev/null || echo unknown)"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } \
  2>/dev/null || say "no nvidia-smi"
say "$(nproc) cores, $(free -g | awk '/Mem/{print $2}') GiB; $(g++ --version | head -1)"

# --- 1. build -----------------------------------------------------------------------------
if [ -n "${EVIDENCE_BIN:-}" ]; then
  BIN="$EVIDENCE_BIN"
  say "no build: using $BIN"
else
  BUILD="$BUILD" DEVICE_DIR="$DEV_DIR" bash bench/device/build.sh || { say "build failed"; exit 1; }
  BIN="$BUILD/jigsaw-runtime"
  say "build done"
fi

# Data: the carried archive (tiny: 50 training and 10 test images per class of it, as an
# archive too).
DATA="$ARCHIVE"
if [ "$TINY" = 1 ]; then
  mkdir -p "$WORK/tiny"
  tar -xzf "$ARCHIVE" -C "$WORK/tiny" --wildcards 'train/*/00[0-4]?.jpg' 'test/*/000?.jpg'
  tar -czf "$WORK/tiny.tar.gz" -C "$WORK/tiny" train test
  DATA="$WORK/tiny.tar.gz"
fi
[ -f "$DATA" ] || { say "no data set at $DATA (run bench/device/prepare.sh first)"; exit 1; }
CIFAR=(--dataset cifar10 --data-dir "$DATA" --cache-dir "$CACHE")

# --- 2. smoke test, MPS ---------------------------------------------------------------------
MPS_CTL=""
start_mps() {
  [ "$DEVICE" != cpu ] && [ "${MPS:-auto}" != off ] || return 0
  local ctl
  ctl=$(command -v nvidia-cuda-mps-control || ls /usr/local/nvidia/bin/nvidia-cuda-mps-control \
    /usr/bin/nvidia-cuda-mps-control 2>/dev/null | head -1)
  [ -n "$ctl" ] || { say "no nvidia-cuda-mps-control: the workers time-share the GPU"; return 0; }
  export CUDA_MPS_PIPE_DIRECTORY="$WORK/mps-pipe" CUDA_MPS_LOG_DIRECTORY="$WORK/mps-log"
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if "$ctl" -d; then MPS_CTL="$ctl"; say "MPS control daemon started ($ctl)"; else
    unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; say "MPS did not start"; fi
}
stop_mps() {
  [ -n "$MPS_CTL" ] || return 0
  echo quit | "$MPS_CTL" || true
  sleep 1
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
  MPS_CTL=""
}
smoke() {
  timeout 120 $NICE "$BIN" train --model resnet20 "${CIFAR[@]}" --workers 2 --batch 8 \
    --epochs 1 --max-iters-per-epoch 3 --device "$DEVICE" "${STAGE[@]}" --quiet \
    --out "$WORK/smoke"
}
start_mps
if smoke; then
  say "smoke test passed: 2 workers on $DEVICE, exchange through host copies${MPS_CTL:+, MPS on}"
  R20_OK=1
elif [ -n "$MPS_CTL" ] && { stop_mps; smoke; }; then
  say "smoke test passed without MPS (it failed with it)"
  R20_OK=1
else
  say "smoke test failed: skipping the multi-worker ResNet-20 stage"
  R20_OK=0
fi

# --- helpers: background runs with a deadline ------------------------------------------------
declare -A PIDS=()
launch() {  # NAME DIR ARGS...: a `jigsaw train` in the background, its stderr in DIR.log
  local name="$1" dir="$2"
  shift 2
  mkdir -p "$(dirname "$dir")"
  $NICE "$BIN" train "$@" --out "$dir" >"$dir.log" 2>&1 &
  PIDS[$name]=$!
}
progress() {
  local name line
  for name in "${!PIDS[@]}"; do
    line=$(grep -o 'epoch [0-9]*/[0-9]*: test accuracy [0-9.]*' "${DIRS[$name]}.log" 2>/dev/null |
      tail -1)
    echo "  $name: ${line:-started}"
  done
  nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader 2>/dev/null |
    sed 's/^/  GPU: /' || true
}
wait_all() {  # DEADLINE: waits for every run in PIDS; kills those still running at DEADLINE
  local deadline="$1" name alive last=0
  while :; do
    alive=0
    for name in "${!PIDS[@]}"; do kill -0 "${PIDS[$name]}" 2>/dev/null && alive=1; done
    [ "$alive" = 1 ] || break
    if [ "$(elapsed)" -ge "$deadline" ]; then
      say "deadline $deadline s reached: stopping what still runs (finished epochs are kept)"
      for name in "${!PIDS[@]}"; do kill -TERM "${PIDS[$name]}" 2>/dev/null || true; done
      sleep 2
      break
    fi
    if [ $(($(elapsed) - last)) -ge 30 ]; then say "progress"; progress; last=$(elapsed); fi
    sleep 2
  done
  for name in "${!PIDS[@]}"; do
    wait "${PIDS[$name]}" 2>/dev/null
    echo "  $name: exit $?"
  done
  PIDS=()
}
pack() {  # NAME FOLDER...: FOLDER(s) of WORK into OUT/NAME.tar.xz, split past 15 MiB
  local name="$1"
  shift
  local file="$WORK/$name.tar.xz"
  if command -v xz >/dev/null; then
    tar -C "$WORK" --exclude='checkpoint.pt*' -cf - "$@" | xz -T0 -6 >"$file"
  else
    file="$WORK/$name.tar.gz"
    tar -C "$WORK" --exclude='checkpoint.pt*' -czf "$file" "$@"
  fi
  if [ "$(stat -c %s "$file")" -le $((15 * 1048576)) ]; then
    cp "$file" "$OUT/"
  else
    split -b 15M -d -a 1 "$file" "$OUT/$(basename "$file").part"
  fi
  say "packed $* into $OUT: $(ls -l "$OUT" | awk -v n="$name" '$0 ~ n {printf "%s %s; ", $9, $5}')"
}
declare -A DIRS=()

# --- 3. ResNet-20: full vs default adaptive, 3 seeds, 6 runs at once --------------------------
R20=(--model resnet20 "${CIFAR[@]}" --workers 4 --batch "$R20_BATCH" --lr 0.1
  --lr-schedule cosine --weight-decay 0.0005 --train-samples 0 --threads 1 --epochs "$R20_EPOCHS"
  --max-iters-per-epoch "$R20_ITERS" --eval-every "$EVAL_EVERY" --eval-samples "$EVAL_SAMPLES"
  --device "$DEVICE" "${STAGE[@]}")
if [ "$R20_OK" = 1 ]; then
  say "ResNet-20: ${R20_EPOCHS} epochs, full and adaptive, seeds $SEEDS, all at once"
  for seed in $SEEDS; do
    for plan in full adaptive; do
      DIRS[r20-$plan-$seed]="$WORK/r20/$plan/seed$seed"
      launch "r20-$plan-$seed" "$WORK/r20/$plan/seed$seed" "${R20[@]}" --spb "$plan" \
        --seed "$seed"
    done
  done
  wait_all "$R20_DEADLINE"
  for d in "$WORK"/r20/*/seed*; do
    [ -f "$d/summary.json" ] && python3 bench/device/run_summary.py "$d/summary.json"
  done
  stop_mps  # ResNet-18 alone: no sharing to gain
fi

# --- 4. ResNet-18 to >= 90 %; the ResNet-20 profile meanwhile ----------------------------------
say "ResNet-18: ${R18_EPOCHS} epochs, batch ${R18_BATCH}"
DIRS[r18]="$WORK/r18"
launch r18 "$WORK/r18" --model resnet18 "${CIFAR[@]}" --workers 1 --batch "$R18_BATCH" \
  --lr 0.1 --momentum 0.9 --weight-decay 0.0005 --lr-schedule cosine --epochs "$R18_EPOCHS" \
  --max-iters-per-epoch "$R18_ITERS" --device "$DEVICE" "${STAGE[@]}"
mkdir -p "$WORK/r20"
$NICE "$BIN" profile --model resnet20 "${CIFAR[@]}" --batch "$R20_BATCH" \
  --repeats "$PROFILE_REPEATS" --out "$WORK/r20" >"$WORK/r20/profile.log" 2>&1 &
PROFILE_PID=$!
if [ "$R20_OK" = 1 ]; then
  wait "$PROFILE_PID"; say "profile exit $?"
  pack resnet20-runs r20
fi
wait_all "$R18_DEADLINE"

# --- 5. ResNet-18's checkpoint in float16, with its sums ---------------------------------------
if [ -f "$WORK/r18/checkpoint.pt" ]; then
  python3 bench/device/run_summary.py --per-epoch "$WORK/r18/summary.json" || true
  "$BIN" checkpoint --input "$WORK/r18/checkpoint.pt" --output "$WORK/resnet18-fp16.pt" \
    --dtype float16
  (cd "$WORK" && split -b 15M -d -a 1 resnet18-fp16.pt resnet18-fp16.pt.part &&
    sha256sum resnet18-fp16.pt resnet18-fp16.pt.part* >resnet18-fp16.sha256)
  cp "$WORK"/resnet18-fp16.pt.part* "$WORK/resnet18-fp16.sha256" "$OUT/"
  cat "$OUT/resnet18-fp16.sha256"
else
  say "ResNet-18 wrote no checkpoint"
fi
tar -C "$WORK" --exclude='checkpoint.pt*' -czf "$OUT/resnet18-run.tar.gz" r18 r18.log
say "done; files in OUT:"
ls -l "$OUT"

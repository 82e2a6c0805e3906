#!/usr/bin/env bash
# Absurd command-line values: every numeric option of jigsaw sim, net, ps and train
# with every extreme value, each run with a time limit. Classifies like tests/fuzz/fuzz_harness.cc:
#   accepted  exit 0, and (sim, net) no NaN, infinity or null in summary.json
#   clear     exit 2 with a "jigsaw: " message naming the option (or exit 3 from net: stopped
#             before the jobs finished, reported)
#   crash     killed by a signal, or an exit status jigsaw does not use
#   hang      past the time limit (TIMEOUT_S)
#   wrong     exit 0 with NaN/null metrics, or exit 1 (an unclear error)
# Prints one table row per command, and the bad cases. Exit 1 if any crash, hang or wrong.
# Usage: bench/cli_fuzz.sh [JIGSAW]   (default build/jigsaw; env TIMEOUT_S=60)
set -uo pipefail
cd "$(dirname "$0")/.."
J="${1:-build/jigsaw}"
TIMEOUT_S="${TIMEOUT_S:-60}"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
VALUES=(0 -1 nan inf -inf 1e300 1e-300 9223372036854775807 2147483648 0.5 -0 abc "")
WORKLOAD="$OUT/w.txt"
printf 'DATA\n1\nconv -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 65536 5\n' >"$WORKLOAD"

declare -A TRIED ACCEPTED CLEAR CRASH HANG WRONG
BAD=()

run_case() {  # command-name summary-file args...
  local name="$1" summary="$2"
  shift 2
  rm -rf "$OUT/o"
  timeout -s KILL "$TIMEOUT_S" "$J" "$@" >"$OUT/stdout" 2>"$OUT/stderr"
  local rc=$? verdict
  if [ $rc -eq 137 ]; then
    verdict=hang
  elif [ $rc -gt 128 ]; then
    verdict=crash
  elif [ $rc -eq 0 ]; then
    verdict=accepted
    if [ -n "$summary" ] && [ -f "$summary" ] && grep -qiE 'null|nan|inf' "$summary"; then
      verdict=wrong
    fi
  elif [ $rc -eq 2 ] && grep -q "^jigsaw: " "$OUT/stderr"; then
    verdict=clear
  elif [ $rc -eq 3 ] && [ "$name" = net ]; then
    verdict=clear
  elif [ $rc -eq 1 ] && [ "$name" = ps ] && grep -q "0 of 1 workers joined within" "$OUT/stderr"; then
    verdict=accepted  # the value was valid: the server ran, and no worker came (as intended)
  elif [ $rc -eq 1 ]; then
    verdict=wrong
  else
    verdict=crash
  fi
  TRIED[$name]=$((${TRIED[$name]:-0} + 1))
  case $verdict in
    accepted) ACCEPTED[$name]=$((${ACCEPTED[$name]:-0} + 1)) ;;
    clear) CLEAR[$name]=$((${CLEAR[$name]:-0} + 1)) ;;
    crash) CRASH[$name]=$((${CRASH[$name]:-0} + 1)) ;;
    hang) HANG[$name]=$((${HANG[$name]:-0} + 1)) ;;
    wrong) WRONG[$name]=$((${WRONG[$name]:-0} + 1)) ;;
  esac
  if [ "$verdict" = crash ] || [ "$verdict" = hang ] || [ "$verdict" = wrong ]; then
    BAD+=("$verdict (exit $rc): jigsaw $* :: $(head -c 300 "$OUT/stderr")")
  fi
}

for option in --gpus --round-s --seed --jobs --arrival-mean-s --preemption-overhead-s \
  --deadline-factor --min-reallocation-interval-s --gpus-per-node --nic-gbps \
  --assign-job-types --max-jobs --spb-efficiency --shockwave-k --shockwave-lambda \
  --shockwave-rhomax --shockwave-future-rounds --shockwave-reopt-rounds \
  --shockwave-solver-timeout-s --shockwave-work-limit --shockwave-wall-clock-limit-s; do
  policy=fifo
  [[ $option == --shockwave-* ]] && policy=shockwave
  [[ $option == --spb-* || $option == --gpus-per-node || $option == --nic-gbps ]] && policy=jigsaw
  for value in "${VALUES[@]}"; do
    run_case sim "$OUT/o/summary.json" sim --quiet --jobs 20 --policy "$policy" "$option" "$value" \
      --out "$OUT/o"
  done
done
for option in --seed --iterations --chunks --max-active --cycle-ns --payload --buffer --stop \
  --dims; do
  for value in "${VALUES[@]}"; do
    run_case net "$OUT/o/summary.json" net --quiet --topology fattree:k=4 --workload "$WORKLOAD" \
      "$option" "$value" --out "$OUT/o"
  done
done
for topology in "fattree:k=" "clos:leaves=" "clos:spines=" "clos:hosts=" "fattree:k=4,rate=" \
  "fattree:k=4,delay="; do
  for value in "${VALUES[@]}"; do
    run_case net "$OUT/o/summary.json" net --quiet --topology "$topology$value" \
      --workload "$WORKLOAD" --out "$OUT/o"
  done
done
for option in --workers --port --lr --momentum --timeout-s --handshake-timeout-s --max-pending; do
  for value in "${VALUES[@]}"; do
    # A server that would start listens for 0.5 s for workers that never come: a clear failure.
    run_case ps "" ps --quiet --token 00112233445566778899aabbccddeeff --timeout-s 0.5 \
      --workers 1 "$option" "$value"
  done
done
if [ -x "$(dirname "$J")/jigsaw-runtime" ]; then
  for option in --workers --epochs --batch --lr --momentum --threads --timeout-s \
    --max-iters-per-epoch; do
    for value in "${VALUES[@]}"; do
      run_case train "$OUT/o/summary.json" train --quiet --model mlp --dataset synthetic \
        --synthetic-train 256 --synthetic-test 32 --synthetic-size 8 --workers 1 --batch 8 \
        --max-iters-per-epoch 2 "$option" "$value" --out "$OUT/o"
    done
  done
fi

echo "| command | tried | accepted | clear error | crash | hang | wrong |"
echo "|---|---|---|---|---|---|---|"
bad=0
for name in sim net ps train; do
  [ -n "${TRIED[$name]:-}" ] || continue
  echo "| jigsaw $name options | ${TRIED[$name]} | ${ACCEPTED[$name]:-0} | ${CLEAR[$name]:-0} |" \
    "${CRASH[$name]:-0} | ${HANG[$name]:-0} | ${WRONG[$name]:-0} |"
  bad=$((bad + ${CRASH[$name]:-0} + ${HANG[$name]:-0} + ${WRONG[$name]:-0}))
done
for b in "${BAD[@]}"; do printf '\n%s\n' "$b"; done
exit $((bad > 0))

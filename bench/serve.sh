#!/usr/bin/env bash
# Inference-serving benchmark . For every cache kind (none, exact, freeze, gati,
# branchy) and both streams (zipf: drifting class popularity; uniform) starts a fresh
# `jigsaw serve` on loopback (the learned/approximate caches warm and calibrate on the first
# CALIB test images), drives it with `jigsaw serve-bench` (open loop, Poisson arrivals) over the
# remaining test images, and prints one table. Agreement is against a reference pass of the
# cache-free server over the same images (batch of one).
# Usage: bench/serve.sh CHECKPOINT DATASET
#   env: JIGSAW=build/jigsaw REQUESTS=1000 RATE=100 CONNECTIONS=4 CALIB=5000 SEEDS="1"
#        COUNT=0 (test images served after the CALIB held-out ones; 0: all the rest)
#        KINDS="none exact freeze gati branchy" KEEP=dir (keep outputs) SERVE_ARGS=""
set -euo pipefail
cd "$(dirname "$0")/.."
CKPT="${1:?usage: bench/serve.sh CHECKPOINT DATASET}"
DATASET="${2:?usage: bench/serve.sh CHECKPOINT DATASET}"
JIGSAW="${JIGSAW:-build/jigsaw}"
[ -x "$JIGSAW" ] || scripts/build.sh >/dev/null
REQUESTS="${REQUESTS:-1000}"
RATE="${RATE:-100}"
CONNECTIONS="${CONNECTIONS:-4}"
CALIB="${CALIB:-5000}"
SEEDS="${SEEDS:-1}"
COUNT="${COUNT:-0}"
KINDS="${KINDS:-none exact freeze gati branchy}"
OUT="${KEEP:-$(mktemp -d)}"
mkdir -p "$OUT"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$OUT"' EXIT
SERVER_PID=""
cleanup_server() {
  if [ -n "$SERVER_PID" ]; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
  fi
}
trap 'cleanup_server' INT TERM
# start_server KIND LOG: starts a server on a free port, sets PORT and MODEL.
start_server() {
  local kind="$1" log="$2"
  # shellcheck disable=SC2086
  "$JIGSAW" serve --model "$CKPT" --port 0 --cache "$kind" --data "$DATASET" \
    --calibration-samples "$CALIB" --http-threads $((CONNECTIONS + 2)) ${SERVE_ARGS:-} \
    2>"$log" &
  SERVER_PID=$!
  for _ in $(seq 1 1200); do
    if grep -q "listening on" "$log"; then break; fi
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      echo "serve ($kind) failed:" >&2
      cat "$log" >&2
      exit 1
    fi
    sleep 0.5
  done
  PORT=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\)\/v2.*/\1/p' "$log")
  MODEL=$(sed -n "s/.*model '\([^']*\)'.*/\1/p" "$log")
}

start_server none "$OUT/reference-serve.log"
"$JIGSAW" serve-bench --port "$PORT" --model "$MODEL" --dataset "$DATASET" --first "$CALIB" \
  --count "$COUNT" --requests 1 --reference-out "$OUT/reference.txt" >/dev/null
cleanup_server

for seed in $SEEDS; do
  for kind in $KINDS; do
    for stream in zipf uniform; do
      start_server "$kind" "$OUT/$kind-$stream-$seed-serve.log"
      "$JIGSAW" serve-bench --port "$PORT" --model "$MODEL" --dataset "$DATASET" \
        --first "$CALIB" --count "$COUNT" --stream "$stream" --requests "$REQUESTS" --rate "$RATE" \
        --connections "$CONNECTIONS" --seed "$seed" --reference "$OUT/reference.txt" \
        --out "$OUT/$kind-$stream-$seed" >"$OUT/$kind-$stream-$seed.txt"
      cleanup_server
      grep "^cache setup: .*\(caches at\|cascade\|layer choice\|freeze layer\)" \
        "$OUT/$kind-$stream-$seed-serve.log" \
        >"$OUT/$kind-$stream-$seed-setup.txt" || true
    done
  done
done

echo "checkpoint $CKPT, $DATASET test images from $CALIB on (count $COUNT; 0 = all), $REQUESTS requests at $RATE/s" \
  "(Poisson), $CONNECTIONS keep-alive connections, seeds: $SEEDS"
echo
echo "| cache | stream | seed | mean ms | p50 ms | p99 ms | max ms | req/s | agreement | accuracy |" \
  "mean blocks | <= half blocks | answered after k blocks | cache bytes | cache ms/req |" \
  "insert ms/req | infer ms/req | server CPU ms/req |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for seed in $SEEDS; do
  for kind in $KINDS; do
    for stream in zipf uniform; do
      jq -r --arg seed "$seed" '"| \(.cache) | \(.stream) | \($seed) | \(.mean_ms*1000|round/1000) |" +
        " \(.p50_ms*1000|round/1000) | \(.p99_ms*1000|round/1000) | \(.max_ms*100|round/100) |" +
        " \(.throughput*10|round/10) | \(.agreement*10000|round/10000) |" +
        " \(.accuracy*10000|round/10000) | \(.mean_blocks*1000|round/1000) of \(.blocks) |" +
        " \(.half_or_fewer*10000|round/10000) | \(.answered_after_blocks|map(tostring)|join(" ")) |" +
        " \(.cache_bytes) | \(.cache_ms*10000|round/10000) |" +
        " \((.insert_ms // 0)*10000|round/10000) | \((.infer_ms // 0)*10000|round/10000) |" +
        " \((.cpu_ms // 0)*1000|round/1000) |"' "$OUT/$kind-$stream-$seed/summary.json"
    done
  done
done
echo
echo "Cache setup (from the servers' logs, seed ${SEEDS%% *}):"
for kind in $KINDS; do
  for stream in zipf; do
    sed "s/^/  $kind: /" "$OUT/$kind-$stream-${SEEDS%% *}-setup.txt" 2>/dev/null || true
  done
done

#!/usr/bin/env bash
# PL2 vs the baselines on a 32 x 100 Gbps rack (docs/pl2.md). First the issue's headline: for
# offered loads of 50/100/200/400% into the memcached server's link, per transport, the RPC p99
# and drops and the ML job's iteration p99, with PL2 relative to Homa-like, over several seeds
# (spread shown). The ML job of the headline is a parameter server (PS on one host, 7 workers,
# the model in 25 shards) away from the server; then the details of the same runs, a ring
# all-reduce job (labelled, not the headline), the PS on the overloaded server itself
# (WITH_SERVER), and the full ResNet-50 size at 400% (FULL: the 100 ms speed run with events/s and
# CPU s, and the full-size parameter server).
# Transport names: pl2 (PL2's default sender: per destination the oldest bulk message asks),
# pl2-shared (--pl2-bulk-order shared: every bulk message asks, the original sender), homa,
# homa-linux (overcommit 8, one granted message per sender: Linux HomaModule's defaults), dctcp,
# dcqcn, lossy.
# Usage: bench/net/pl2.sh [out_dir]
#   SEEDS="1 2 3"  LOADS="50% 100% 200% 400%"  ML_BYTES=10.2MB (ResNet-50 / 10)  PS_SHARDS=25
#   TRANSPORTS="pl2 pl2-shared homa homa-linux dctcp dcqcn lossy" (headline, PS job)
#   PS_DURATION=20ms (arrivals; +2 ms drain)
#   RING_TRANSPORTS="pl2 pl2-shared homa" (empty skips the ring study)  DURATION=10ms (ring)
#   WITH_SERVER=1 (the PS on the loaded server: pl2, pl2-shared, homa; WS_DURATION=60ms)
#   FULL=1 (full ResNet-50 at 400%, seed 1: ring 100 ms for pl2/homa, PS 120 ms for
#   pl2/pl2-shared/homa/homa-linux; FULL=0 skips it)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${1:-bench/net/results/pl2}"
SEEDS="${SEEDS:-1 2 3}"
LOADS="${LOADS:-50% 100% 200% 400%}"
ML_BYTES="${ML_BYTES:-10.2MB}"
PS_SHARDS="${PS_SHARDS:-25}"
TRANSPORTS="${TRANSPORTS-pl2 pl2-shared homa homa-linux dctcp dcqcn lossy}"
PS_DURATION="${PS_DURATION:-20ms}"
RING_TRANSPORTS="${RING_TRANSPORTS-pl2 pl2-shared homa}"
DURATION="${DURATION:-10ms}"
WITH_SERVER="${WITH_SERVER:-1}"
WS_DURATION="${WS_DURATION:-60ms}"
FULL="${FULL:-1}"
TOPOLOGY="rack:hosts=32,gbps=100"
PS="--ml-pattern ps --ml-chunks $PS_SHARDS"
mkdir -p "$OUT"

flags() {  # transport name -> jigsaw net flags
  case "$1" in
    pl2-shared) echo "--transport pl2 --pl2-bulk-order shared" ;;
    homa-linux) echo "--transport homa --homa-overcommit 8 --homa-per-sender 1" ;;
    *) echo "--transport $1" ;;
  esac
}

run() {  # transport load seed duration drain ml_bytes dir placement [extra flags]
  # CPU seconds (user + sys) of the run go to dir.cpu, jigsaw's speed line to dir.speed.
  # shellcheck disable=SC2046,SC2086
  nice -n 10 /usr/bin/time -f '%U %S' -o "$7.cpu" ./build/jigsaw net --topology "$TOPOLOGY" \
    $(flags "$1") --load "$2" --seed "$3" --duration "$4" --drain "$5" --ml-bytes "$6" \
    --ml-hosts 8 --ml-placement "$8" --payload 1452 ${9:-} --out "$7" 2>"$7.speed" >/dev/null ||
    { echo "jigsaw net failed for $1 $2 seed $3 ($7)" >&2; exit 1; }
}

for transport in $TRANSPORTS; do
  for load in $LOADS; do
    for seed in $SEEDS; do
      run "$transport" "$load" "$seed" "$PS_DURATION" 2ms "$ML_BYTES" \
        "$OUT/ps-$transport-${load%\%}-$seed" away "$PS"
    done
  done
done
for transport in $RING_TRANSPORTS; do
  for load in $LOADS; do
    for seed in $SEEDS; do
      run "$transport" "$load" "$seed" "$DURATION" 2ms "$ML_BYTES" \
        "$OUT/ring-$transport-${load%\%}-$seed" away
    done
  done
done
if [ "$WITH_SERVER" = 1 ]; then
  for transport in pl2 pl2-shared homa; do
    for load in $LOADS; do
      for seed in $SEEDS; do
        run "$transport" "$load" "$seed" "$WS_DURATION" 2ms "$ML_BYTES" \
          "$OUT/ws-$transport-${load%\%}-$seed" with-server "$PS"
      done
    done
  done
fi
if [ "$FULL" = 1 ]; then
  for transport in pl2 homa; do
    run "$transport" 400% 1 100ms 0ms 102.2MB "$OUT/full-ring-$transport" away
  done
  for transport in pl2 pl2-shared homa homa-linux; do
    run "$transport" 400% 1 120ms 10ms 102.2MB "$OUT/full-ps-$transport" away "$PS"
  done
fi

python3 bench/net/pl2_report.py "$OUT" "$TRANSPORTS" "$LOADS" "$SEEDS" "$RING_TRANSPORTS" \
  "$WITH_SERVER" "$FULL" "$PS_SHARDS" | tee "$OUT/report.md"

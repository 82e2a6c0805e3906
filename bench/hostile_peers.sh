#!/usr/bin/env bash
# Hostile peers against a parameter-server job, with real processes on loopback; then the
# cases of bench/hostile/*.sh (HTTP servers: bench/hostile/http.sh).
#
# Per scenario: two jobs, A and B, each `jigsaw ps` (its own token file) + 2 LibTorch
# `jigsaw ps-worker`s. The attack is made against A (before its workers join, or during
# training); B runs beside it. Reports, per scenario, A's and B's outcome (steps trained or the
# error), the connections A's server refused, and whether the result is the expected one: every
# stranger refused with A training normally, except a worker of A pushing NaN gradients, which
# must fail A with a clear error; B must train fully in every scenario.
# Frames are built with printf (header layout in src/core/wire_message.h); connections use bash's
# /dev/tcp. Usage: bench/hostile_peers.sh   (env: ITERS=40, KEEP=dir, JIGSAW=build-asan/jigsaw)
set -euo pipefail
cd "$(dirname "$0")/.."
ITERS="${ITERS:-40}"
[ -x build/jigsaw ] || scripts/build.sh >/dev/null
OUT="${KEEP:-$(mktemp -d)}"
mkdir -p "$OUT"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  [ -n "${KEEP:-}" ] || rm -rf "$OUT"
}
trap cleanup EXIT
J="${JIGSAW:-$(pwd)/build/jigsaw}"

# Little-endian hex of an unsigned integer of $2 bytes.
le() { printf '%0*x' $(($2 * 2)) "$1" | sed 's/../& /g' | awk '{ for (i = NF; i > 0; i--) printf "%s", $i }'; }
# A frame header: type rank step count token-hex -> \x escapes for printf.
frame() {
  local hex="4a505332$(le "$1" 4)$(le "$2" 4)00000000$(le "$3" 8)$(le "$4" 8)$5"
  printf '%s' "$hex" | sed 's/../\\x&/g'
}

start_server() {  # dir
  local dir="$1"
  mkdir -p "$dir"
  "$J" ps --job "$(basename "$dir")" --port 0 --port-file "$dir/port" --token-file "$dir/token" \
    --workers 2 --timeout-s 60 --handshake-timeout-s 1 --out "$dir" \
    2>"$dir/server.log" &
  echo $! >"$dir/server.pid"
  PIDS+=($!)
  for _ in $(seq 400); do [ -s "$dir/port" ] && return 0; sleep 0.05; done
  echo "server in $dir did not start: $(cat "$dir/server.log")" >&2
  exit 1
}

start_workers() {  # dir [extra options of worker 1]
  local dir="$1" extra="${2:-}"
  for k in 0 1; do
    # shellcheck disable=SC2086
    "$J" ps-worker --job "$(basename "$dir")" --server "127.0.0.1:$(cat "$dir/port")" \
      --token-file "$dir/token" --rank "$k" --workers 2 --iters "$ITERS" --synthetic-size 14 \
      --synthetic-train 1024 --batch 16 --timeout-s 60 --quiet $([ "$k" = 1 ] && echo $extra) \
      >"$dir/result$k.json" 2>"$dir/worker$k.log" &
    echo $! >"$dir/worker$k.pid"
    PIDS+=($!)
  done
}

# Waits for a job (in this shell: its processes are our children) and sets RESULT to
# "trained N steps" or "failed: <server error>".
outcome() {  # dir
  local dir="$1" ok=0
  for p in server worker0 worker1; do wait "$(cat "$dir/$p.pid")" 2>/dev/null || ok=1; done
  if [ "$ok" = 0 ] && [ -s "$dir/server.json" ]; then
    RESULT="trained $(awk -F'[:,]' '/"steps"/ { gsub(/ /, "", $2); print $2 }' "$dir/server.json") steps"
  else
    RESULT="failed: $(grep -o 'jigsaw: error: .*' "$dir/server.log" | head -1 | cut -c16-140)"
  fi
}

refused() { grep -c "refused a connection" "$1/server.log" || true; }

attack() {  # scenario port token-of-A
  local scenario="$1" port="$2" token="$3"
  local wrong="ffffffffffffffffffffffffffffffff"
  case "$scenario" in
    port-scan) for _ in 1 2 3 4 5; do exec 3<>"/dev/tcp/127.0.0.1/$port" && exec 3>&-; done ;;
    garbage) exec 3<>"/dev/tcp/127.0.0.1/$port"; head -c 4096 /dev/urandom >&3; exec 3>&- ;;
    truncated) exec 3<>"/dev/tcp/127.0.0.1/$port"
      printf "$(frame 1 0 2 0 "$token")" | head -c 20 >&3; exec 3>&- ;;
    idle) exec 4<>"/dev/tcp/127.0.0.1/$port" ;;  # stays open, silent, until the end
    wrong-token) exec 3<>"/dev/tcp/127.0.0.1/$port"
      printf "$(frame 1 1 2 0 "$wrong")" >&3; exec 3>&- ;;
    rank-hijack) exec 5<>"/dev/tcp/127.0.0.1/$port"  # claims rank 0 first and stays
      printf "$(frame 1 0 2 0 "$wrong")" >&5 ;;
    huge-announce) exec 3<>"/dev/tcp/127.0.0.1/$port"  # 2^28 floats announced, 8 bytes sent
      printf "$(frame 3 0 0 268435456 "$wrong")\x00\x00\x00\x00\x00\x00\x00\x00" >&3; exec 3>&- ;;
    scan-during-training)  # once every worker joined, the listener is closed
      for _ in $(seq 600); do grep -q "workers joined" "$A_DIR/server.log" && break; sleep 0.05; done
      for _ in 1 2 3; do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || true; done ;;
    nan-gradients) ;;  # worker 1 of A pushes NaN at iteration 5 (--poison-at-iter)
  esac
}

echo "## Hostile peers vs a parameter-server job (A), with job B beside it; $ITERS iterations, 2 workers each"
echo
echo "| scenario | job A | A refused connections | job B | as expected |"
echo "|---|---|---|---|---|"
all_ok=1
for scenario in port-scan garbage truncated idle wrong-token rank-hijack huge-announce \
  scan-during-training nan-gradients; do
  a="$OUT/$scenario/jobA" b="$OUT/$scenario/jobB"
  A_DIR="$a"
  start_server "$a"
  start_server "$b"
  extra=""
  [ "$scenario" = nan-gradients ] && extra="--poison-at-iter 5"
  if [ "$scenario" = scan-during-training ]; then
    start_workers "$a" "$extra"
    start_workers "$b"
    attack "$scenario" "$(cat "$a/port")" "$(cat "$a/token")"
  else
    attack "$scenario" "$(cat "$a/port")" "$(cat "$a/token")"
    start_workers "$a" "$extra"
    start_workers "$b"
  fi
  outcome "$a"
  result_a="$RESULT"
  outcome "$b"
  result_b="$RESULT"
  exec 4>&- 5>&- 2>/dev/null || true
  expected_a="trained $ITERS steps"
  ok=no
  if [ "$result_b" = "trained $ITERS steps" ]; then
    if [ "$scenario" = nan-gradients ]; then
      [[ "$result_a" == *"non-finite gradient"* ]] && ok=yes
    else
      [ "$result_a" = "$expected_a" ] && ok=yes
    fi
  fi
  [ "$ok" = yes ] || all_ok=0
  echo "| $scenario | $result_a | $(refused "$a") | $result_b | $ok |"
done
# Further hostile-peer cases, one file per area (bench/hostile/*.sh), each printing its table
# and clearing all_ok when a case broke.
for part in bench/hostile/*.sh; do
  # shellcheck disable=SC1090
  source "$part"
done
echo
[ "$all_ok" = 1 ] && echo "every scenario as expected" || { echo "SOME SCENARIOS FAILED"; exit 1; }

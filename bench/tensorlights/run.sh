#!/usr/bin/env bash
# TensorLights experiment on real Linux networking: hosts are network namespaces joined by veth
# links to a bridge in a "switch" namespace; every link is rate-limited; K parameter-server jobs
# share one PS host and their workers run on W worker hosts (worker k of every job on host k).
# For each policy (fifo, static, rotate) and repetition it runs the TensorLights agent on the PS
# host's interface, starts the K servers and K x W LibTorch workers together, waits, stops the
# agent (which removes its qdisc) and checks that nothing is left. Finally `jigsaw tlights-report`
# prints the table and writes OUT/summary.json.
#
# Needs root (ip netns, tc). Only addresses 10.77.0.0/24 inside the namespaces are used; the
# root namespace is not touched. Everything is removed on exit, on failure and on Ctrl-C.
#
# Usage: bench/tensorlights/run.sh [--jigsaw PATH] [--out DIR] [--policies "fifo static rotate"]
#          (a policy "rotate:20s" is rotate with its own interval, reported as rotate-20s)
#          [--jobs K] [--workers W] [--iters N] [--batch B] [--rate 200mbit] [--interval 5s]
#          [--reps R] [--model mlp] [--size 28]
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
JIGSAW="${ROOT}/build/jigsaw"
OUT="${ROOT}/out/tensorlights"
POLICIES="fifo static rotate"
JOBS=3
WORKERS=3
ITERS=30
BATCH=32
RATE=200mbit
INTERVAL=5s
REPS=1
MODEL=mlp
SIZE=28
BASE_PORT=5001

while [[ $# -gt 0 ]]; do
  case "$1" in
    --jigsaw) JIGSAW="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --policies) POLICIES="$2"; shift 2 ;;
    --jobs) JOBS="$2"; shift 2 ;;
    --workers) WORKERS="$2"; shift 2 ;;
    --iters) ITERS="$2"; shift 2 ;;
    --batch) BATCH="$2"; shift 2 ;;
    --rate) RATE="$2"; shift 2 ;;
    --interval) INTERVAL="$2"; shift 2 ;;
    --reps) REPS="$2"; shift 2 ;;
    --model) MODEL="$2"; shift 2 ;;
    --size) SIZE="$2"; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

log() { echo "tensorlights: $*" >&2; }
die() { log "error: $*"; exit 1; }

[[ $(id -u) -eq 0 ]] || die "needs root (network namespaces and tc)"
[[ -x "$JIGSAW" ]] || die "$JIGSAW not found (build first, or pass --jigsaw)"
command -v tc >/dev/null || die "tc not found (apt-get install iproute2)"

PREFIX="jtl$$"
SWITCH="${PREFIX}sw"
host() { echo "${PREFIX}h$1"; }  # host 0 = the PS host, 1..W = worker hosts
NAMESPACES=()
PIDS=()
AGENT_PID=""

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [[ -n "$AGENT_PID" ]] && kill -0 "$AGENT_PID" 2>/dev/null; then
    kill -TERM "$AGENT_PID" 2>/dev/null || true
    wait "$AGENT_PID" 2>/dev/null || true
  fi
  for pid in "${PIDS[@]}"; do
    kill -KILL "$pid" 2>/dev/null || true
  done
  for pid in "${PIDS[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  for ns in "${NAMESPACES[@]}"; do
    ip netns del "$ns" 2>/dev/null || true
  done
  [[ ${#NAMESPACES[@]} -gt 0 ]] && log "removed namespaces ${NAMESPACES[*]}"
  exit "$status"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

# ---- topology: a bridge in the switch namespace, one veth link per host ----
ip netns add "$SWITCH"
NAMESPACES+=("$SWITCH")
ip -n "$SWITCH" link set lo up
ip -n "$SWITCH" link add br0 type bridge
ip -n "$SWITCH" link set br0 up
for ((i = 0; i <= WORKERS; i++)); do
  h="$(host "$i")"
  ip netns add "$h"
  NAMESPACES+=("$h")
  ip -n "$h" link set lo up
  ip -n "$SWITCH" link add "p$i" type veth peer name eth0 netns "$h"
  ip -n "$SWITCH" link set "p$i" master br0 up
  ip -n "$h" addr add "10.77.0.$((i + 1))/24" dev eth0
  ip -n "$h" link set eth0 up
  # The host's downlink: the switch port's egress is rate-limited.
  tc -n "$SWITCH" qdisc add dev "p$i" root tbf rate "$RATE" burst 64kb latency 100ms
  # The host's uplink: tbf on worker hosts; on the PS host the agent's HTB root class (at the
  # same rate) is the shaper, so every policy, fifo included, sees the same link.
  if ((i > 0)); then
    tc -n "$h" qdisc add dev eth0 root tbf rate "$RATE" burst 64kb latency 100ms
  fi
done
PS_HOST="$(host 0)"
PORTS=""
for ((j = 0; j < JOBS; j++)); do PORTS+="${PORTS:+,}$((BASE_PORT + j))"; done
log "hosts: $PS_HOST (PS, 10.77.0.1) + $WORKERS worker hosts; links $RATE; $JOBS jobs x $WORKERS workers; ports $PORTS"

wait_for_htb() {
  for _ in $(seq 100); do
    tc -n "$PS_HOST" qdisc show dev eth0 | grep -q "qdisc htb 1: root" && return 0
    kill -0 "$AGENT_PID" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

run_one() {
  # "rotate:20s" = rotate with its own interval (TensorLights' TLsRR:<sec>), in OUT/rotate-20s/.
  local spec="$1" rep="$2"
  local policy="${spec%%:*}" interval="$INTERVAL" name="$1"
  if [[ "$spec" == *:* ]]; then
    interval="${spec#*:}"
    name="$policy-$interval"
  fi
  local dir="$OUT/$name/rep$rep"
  rm -rf "$dir"
  mkdir -p "$dir"
  ip netns exec "$PS_HOST" "$JIGSAW" tlights --policy "$policy" --dev eth0 --ports "$PORTS" \
    --rate "$RATE" --interval "$interval" 2>"$dir/agent.log" &
  AGENT_PID=$!
  wait_for_htb || die "the agent did not install its qdisc: $(cat "$dir/agent.log")"

  local servers=() workers=()
  for ((j = 0; j < JOBS; j++)); do
    mkdir -p "$dir/job$j"
    # Each job's secret token (issue 12: every PS message carries it), written before its server
    # and workers start; the server listens on the PS host's address (default: loopback only).
    (umask 077 && od -An -tx1 -N16 /dev/urandom | tr -d ' \n' >"$dir/job$j/token")
    ip netns exec "$PS_HOST" "$JIGSAW" ps --job "job$j" --host 10.77.0.1 \
      --port "$((BASE_PORT + j))" --token-file "$dir/job$j/token" \
      --workers "$WORKERS" --lr 0.05 --momentum 0.9 --timeout-s 120 \
      --out "$dir/job$j/server.json" 2>"$dir/job$j/server.log" &
    servers+=($!)
    PIDS+=($!)
  done
  # All workers load LibTorch first, then start together.
  local start_at
  start_at=$(awk -v now="$(date +%s.%N)" -v n="$((JOBS * WORKERS))" \
    'BEGIN { printf "%.3f", now + 3 + 0.4 * n }')
  for ((j = 0; j < JOBS; j++)); do
    for ((k = 0; k < WORKERS; k++)); do
      ip netns exec "$(host $((k + 1)))" "$JIGSAW" ps-worker --job "job$j" \
        --server "10.77.0.1:$((BASE_PORT + j))" --rank "$k" --workers "$WORKERS" \
        --model "$MODEL" --synthetic-size "$SIZE" --iters "$ITERS" --batch "$BATCH" \
        --seed "$((j + 1))" --start-at "$start_at" --timeout-s 120 --quiet \
        --token-file "$dir/job$j/token" \
        --out "$dir/job$j/worker$k.csv" >"$dir/job$j/result$k.json" 2>"$dir/job$j/worker$k.log" &
      workers+=($!)
      PIDS+=($!)
    done
  done
  local failed=0
  for pid in "${workers[@]}" "${servers[@]}"; do
    wait "$pid" || failed=1
  done
  PIDS=()
  kill -TERM "$AGENT_PID"
  wait "$AGENT_PID" || die "the agent failed: $(cat "$dir/agent.log")"
  AGENT_PID=""
  if tc -n "$PS_HOST" qdisc show dev eth0 | grep -q htb; then
    die "the agent left its qdisc behind"
  fi
  ((failed == 0)) || die "a server or worker of $name rep $rep failed; logs in $dir"
  log "$name rep $rep done ($(grep -c . "$dir/agent.log") agent log lines)"
}

for ((r = 0; r < REPS; r++)); do
  for policy in $POLICIES; do
    run_one "$policy" "$r"
  done
done
"$JIGSAW" tlights-report --dir "$OUT"

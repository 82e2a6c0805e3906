#!/usr/bin/env bash
# TensorLights experiment on real Linux networking: hosts are network namespaces joined by veth
# links to a bridge in a "switch" namespace; every link is rate-limited; K parameter-server jobs
# share one PS host and their workers run on W worker hosts (worker k of every job on host k).
# For each repetition and policy (the order rotated per repetition) it runs the TensorLights
# agent on the PS host's interface, starts the K servers and K x W LibTorch workers together,
# waits, stops the agent (which removes its qdisc) and checks that nothing is left. Finally `jigsaw tlights-report`
# prints the table and writes OUT/summary.json.
#
# Needs root (ip netns, tc). Only addresses 10.77.0.0/24 inside the namespaces are used; the
# root namespace is not touched. Everything is removed on exit, on failure and on Ctrl-C.
#
# Usage: bench/tensorlights/run.sh [--jigsaw PATH] [--out DIR] [--policies "fifo static rotate"]
#          (a policy "rotate:20s" is rotate with its own interval, reported as rotate-20s)
#          [--jobs K] [--workers W] [--iters N] [--batch B] [--rate 200mbit] [--interval 5s]
#          [--reps R] [--model mlp] [--size 28]
#          [--worker torch|timed] [--parameters N] [--compute-ms MS] [--compute-samples CSV]
#          [--ps-hosts P] [--first-rep N] [--no-report]
# --worker timed runs torch-free jigsaw ps-timed-worker processes (compute a timed wait, from
# --compute-samples: the compute_s column of a ps-worker CSV, else --compute-ms; the traffic is
# real), so that the paper's scale (21 jobs x 20 workers) fits on one machine. --ps-hosts P
# places job j's PS on PS host j mod P (1: all on one host, JOBS: one per host), each PS host
# with its own TensorLights agent over its jobs' ports; worker k of every job is on worker host k.
# --first-rep N numbers the repetitions N..N+R-1 (earlier rep folders in OUT are kept), so that a
# caller can interleave repetitions of several configurations; --no-report skips the table.
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
WORKER_KIND=torch
PARAMETERS=464154  # ResNet-32 on CIFAR-10
COMPUTE_MS=20
COMPUTE_SAMPLES=""
PS_HOSTS=1
FIRST_REP=0
REPORT=1

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
    --worker) WORKER_KIND="$2"; shift 2 ;;
    --parameters) PARAMETERS="$2"; shift 2 ;;
    --compute-ms) COMPUTE_MS="$2"; shift 2 ;;
    --compute-samples) COMPUTE_SAMPLES="$2"; shift 2 ;;
    --ps-hosts) PS_HOSTS="$2"; shift 2 ;;
    --first-rep) FIRST_REP="$2"; shift 2 ;;
    --no-report) REPORT=0; shift ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

log() { echo "tensorlights: $*" >&2; }
die() { log "error: $*"; exit 1; }

[[ "$FIRST_REP" =~ ^[0-9]+$ ]] || die "--first-rep must be a non-negative integer"
[[ "$WORKER_KIND" == torch || "$WORKER_KIND" == timed ]] || die "--worker is torch or timed"
((PS_HOSTS >= 1 && PS_HOSTS <= JOBS)) || die "--ps-hosts must be in 1..--jobs"
((PS_HOSTS + WORKERS <= 250)) || die "at most 250 hosts"
[[ $(id -u) -eq 0 ]] || die "needs root (network namespaces and tc)"
[[ -x "$JIGSAW" ]] || die "$JIGSAW not found (build first, or pass --jigsaw)"
command -v tc >/dev/null || die "tc not found (apt-get install iproute2)"

PREFIX="jtl$$"
SWITCH="${PREFIX}sw"
host() { echo "${PREFIX}h$1"; }  # hosts 0..P-1 = PS hosts, P..P+W-1 = worker hosts
NAMESPACES=()
PIDS=()
AGENT_PIDS=()

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  for pid in "${AGENT_PIDS[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
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
for ((i = 0; i < PS_HOSTS + WORKERS; i++)); do
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
  if ((i >= PS_HOSTS)); then
    tc -n "$h" qdisc add dev eth0 root tbf rate "$RATE" burst 64kb latency 100ms
  fi
done
# Job j's PS: host j mod P, address 10.77.0.(j mod P + 1), port BASE_PORT + j.
ps_index() { echo $(($1 % PS_HOSTS)); }
PS_PORTS=()
for ((p = 0; p < PS_HOSTS; p++)); do PS_PORTS+=(""); done
for ((j = 0; j < JOBS; j++)); do
  p=$(ps_index "$j")
  PS_PORTS[p]+="${PS_PORTS[p]:+,}$((BASE_PORT + j))"
done
log "hosts: $PS_HOSTS PS hosts + $WORKERS worker hosts; links $RATE; $JOBS jobs x $WORKERS" \
  "$WORKER_KIND workers"

wait_for_htb() {  # PS host index, agent pid
  for _ in $(seq 100); do
    tc -n "$(host "$1")" qdisc show dev eth0 | grep -q "qdisc htb 1: root" && return 0
    kill -0 "$2" 2>/dev/null || return 1
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
  AGENT_PIDS=()
  for ((p = 0; p < PS_HOSTS; p++)); do
    local log_file="$dir/agent.log"
    ((PS_HOSTS == 1)) || log_file="$dir/agent$p.log"
    ip netns exec "$(host "$p")" "$JIGSAW" tlights --policy "$policy" --dev eth0 \
      --ports "${PS_PORTS[p]}" --rate "$RATE" --interval "$interval" 2>"$log_file" &
    AGENT_PIDS+=($!)
    wait_for_htb "$p" "$!" || die "the agent did not install its qdisc: $(cat "$log_file")"
  done

  local servers=() workers=()
  for ((j = 0; j < JOBS; j++)); do
    mkdir -p "$dir/job$j"
    # Each job's secret token (every PS message carries it), written before its server
    # and workers start; the server listens on the PS host's address (default: loopback only).
    (umask 077 && od -An -tx1 -N16 /dev/urandom | tr -d ' \n' >"$dir/job$j/token")
    local p
    p=$(ps_index "$j")
    ip netns exec "$(host "$p")" "$JIGSAW" ps --job "job$j" --host "10.77.0.$((p + 1))" \
      --port "$((BASE_PORT + j))" --token-file "$dir/job$j/token" \
      --workers "$WORKERS" --lr 0.05 --momentum 0.9 --timeout-s 300 \
      --handshake-timeout-s 120 --max-pending 64 \
      --out "$dir/job$j" 2>"$dir/job$j/server.log" &
    servers+=($!)
    PIDS+=($!)
  done
  # All workers load (LibTorch) first, then start together.
  local start_at
  local per_worker=0.4  # LibTorch loads in ~0.4 s per worker on this machine; a timed one starts at once
  [[ "$WORKER_KIND" == torch ]] || per_worker=0.02
  start_at=$(awk -v now="$(date +%s.%N)" -v n="$((JOBS * WORKERS))" -v w="$per_worker" \
    'BEGIN { printf "%.3f", now + 3 + w * n }')
  local timed_compute=(--compute-ms "$COMPUTE_MS")
  [[ -z "$COMPUTE_SAMPLES" ]] || timed_compute=(--compute-samples "$COMPUTE_SAMPLES")
  for ((j = 0; j < JOBS; j++)); do
    local server="10.77.0.$(($(ps_index "$j") + 1)):$((BASE_PORT + j))"
    for ((k = 0; k < WORKERS; k++)); do
      if [[ "$WORKER_KIND" == timed ]]; then
        ip netns exec "$(host $((PS_HOSTS + k)))" "$JIGSAW" ps-timed-worker --job "job$j" \
          --server "$server" --rank "$k" --workers "$WORKERS" --parameters "$PARAMETERS" \
          "${timed_compute[@]}" --iters "$ITERS" --seed "$((j + 1))" --start-at "$start_at" \
          --timeout-s 300 --quiet --token-file "$dir/job$j/token" \
          --out "$dir/job$j" >"$dir/job$j/result$k.json" \
          2>"$dir/job$j/worker$k.log" &
        workers+=($!)
        PIDS+=($!)
        continue
      fi
      ip netns exec "$(host $((PS_HOSTS + k)))" "$JIGSAW" ps-worker --job "job$j" \
        --server "$server" --rank "$k" --workers "$WORKERS" \
        --model "$MODEL" --synthetic-size "$SIZE" --iters "$ITERS" --batch "$BATCH" \
        --seed "$((j + 1))" --start-at "$start_at" --timeout-s 120 --quiet \
        --token-file "$dir/job$j/token" \
        --out "$dir/job$j" >"$dir/job$j/result$k.json" 2>"$dir/job$j/worker$k.log" &
      workers+=($!)
      PIDS+=($!)
    done
  done
  local failed=0
  for pid in "${workers[@]}" "${servers[@]}"; do
    wait "$pid" || failed=1
  done
  PIDS=()
  for ((p = 0; p < PS_HOSTS; p++)); do
    kill -TERM "${AGENT_PIDS[p]}"
    wait "${AGENT_PIDS[p]}" || die "the agent on PS host $p failed (logs in $dir)"
    if tc -n "$(host "$p")" qdisc show dev eth0 | grep -q htb; then
      die "the agent on PS host $p left its qdisc behind"
    fi
  done
  AGENT_PIDS=()
  ((failed == 0)) || die "a server or worker of $name rep $rep failed; logs in $dir"
  log "$name rep $rep done"
}

# Repetition r starts at policy r mod n (fifo static rotate, static rotate fifo, ...), so that no
# policy always runs first, right after the namespaces were built.
read -r -a POLICY_LIST <<<"$POLICIES"
for ((r = FIRST_REP; r < FIRST_REP + REPS; r++)); do
  for ((i = 0; i < ${#POLICY_LIST[@]}; i++)); do
    run_one "${POLICY_LIST[(i + r) % ${#POLICY_LIST[@]}]}" "$r"
  done
done
((REPORT == 0)) || "$JIGSAW" tlights-report --dir "$OUT"

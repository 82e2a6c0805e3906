# Hostile handshake peers against every framed TCP server: `jigsaw ps`, the Parameter Service's
# coordinator (`jigsaw paramsvc`), `jigsaw fl --serve` and the multi-host training rendezvous
# (`jigsaw train --rank 0`). Sourced by bench/hostile_peers.sh, or run alone: bash
# bench/hostile/handshakes.sh (helpers: bench/hostile/rows.sh). Per case: the server starts,
# bench/hostile/probe.py starts its probe (bounded: at most 1024 connections and 120 s, loopback
# only), and one second later a legitimate client does its whole job beside it. "held": the server
# finished its job (the probe neither failed nor stalled it); "legitimate client served": the client
# finished without error. Peak RSS is the server's VmHWM.

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source bench/hostile/rows.sh
hostile_table_header "Handshakes of the framed TCP servers"

HS_N=0
hs_wait_file() { for _ in $(seq 600); do [ -s "$1" ] && return 0; sleep 0.05; done; return 1; }
hs_free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.2",0)); print(s.getsockname()[1])'; }
hs_token() { python3 -c 'import secrets; print(secrets.token_hex(16))'; }
hs_closed() { grep -o '[0-9]* closed by the server' "$1" 2>/dev/null | head -1; }

# ---- jigsaw ps ------------------------------------------------------------------------------
hs_ps() {  # label probe-arguments...
  local label="$1" dir="$OUT/hs/ps-$((++HS_N))"
  shift
  mkdir -p "$dir"
  "$J" ps --job hs --port 0 --port-file "$dir/port" --token-file "$dir/token" --workers 2 \
    --timeout-s 90 --handshake-timeout-s 5 --out "$dir" 2>"$dir/server.log" &
  local server=$!
  PIDS+=("$server")
  hs_wait_file "$dir/port" || { hostile_row ps "$label" broke no - "server did not start"; return; }
  watch_rss "$server" "$dir/rss" &
  local port; port=$(cat "$dir/port")
  $PROBE "${@//TOKEN/$(cat "$dir/token")}" --port "$port" >"$dir/probe.log" 2>&1 &
  local probe=$!
  PIDS+=("$probe")
  sleep 1
  local workers=() legit=yes held=broke
  for r in 0 1; do
    "$J" ps-timed-worker --server "127.0.0.1:$port" --token-file "$dir/token" --job hs --rank "$r" \
      --workers 2 --parameters 10000 --iters 20 --compute-ms 5 --timeout-s 60 --quiet \
      >"$dir/w$r.json" 2>"$dir/w$r.log" &
    workers+=("$!")
  done
  for w in "${workers[@]}"; do wait "$w" || legit=no; done
  wait "$server" && grep -q '"steps": 20' "$dir/server.json" 2>/dev/null && held=held
  kill "$probe" 2>/dev/null || true
  wait "$probe" 2>/dev/null || true
  hostile_row ps "$label" "$held" "$legit" "$(cat "$dir/rss" 2>/dev/null || echo -)" \
    "$(hs_closed "$dir/probe.log") $(grep -ho 'server busy\|closed by server' "$dir"/w*.log | sort -u | tr '\n' ' ')"
}

# ---- jigsaw paramsvc (the coordinator) -------------------------------------------------------
hs_paramsvc() {  # label probe-arguments...
  local label="$1" dir="$OUT/hs/paramsvc-$((++HS_N))"
  shift
  mkdir -p "$dir"
  "$J" paramsvc --token-file "$dir/svc.tok" --port-file "$dir/svc.port" --initial-aggregators 1 \
    --min-aggregators 1 --max-aggregators 1 --no-elastic --report-interval-s 0.25 \
    --handshake-timeout-s 5 --out "$dir" --quiet 2>"$dir/coordinator.log" &
  local coordinator=$!
  PIDS+=("$coordinator")
  hs_wait_file "$dir/svc.port" || { hostile_row paramsvc "$label" broke no - "no start"; return; }
  watch_rss "$coordinator" "$dir/rss" &
  local port service; port=$(cat "$dir/svc.port"); service="127.0.0.1:$port"
  $PROBE "$@" --port "$port" >"$dir/probe.log" 2>&1 &
  local probe=$!
  PIDS+=("$probe")
  sleep 1
  local legit=yes held=broke workers=()
  "$J" paramsvc-register --service "$service" --token-file "$dir/svc.tok" --job j \
    --parameters 10000 --workers 2 --iter-rate 50 --job-token-file "$dir/j.tok" \
    >/dev/null 2>"$dir/register.log" || legit=no
  if [ "$legit" = yes ]; then
    for r in 0 1; do
      "$J" ps-timed-worker --service "$service" --token-file "$dir/j.tok" --job j --rank "$r" \
        --workers 2 --parameters 10000 --iters 20 --compute-ms 5 --timeout-s 60 --quiet \
        >"$dir/w$r.json" 2>"$dir/w$r.log" &
      workers+=("$!")
    done
    for w in "${workers[@]}"; do wait "$w" || legit=no; done
  fi
  kill "$probe" 2>/dev/null || true
  wait "$probe" 2>/dev/null || true
  kill -0 "$coordinator" 2>/dev/null &&
    "$J" paramsvc-status --service "$service" --token-file "$dir/svc.tok" --shutdown \
      >/dev/null 2>&1 && wait "$coordinator" && held=held
  hostile_row paramsvc "$label" "$held" "$legit" "$(cat "$dir/rss" 2>/dev/null || echo -)" \
    "$(hs_closed "$dir/probe.log")"
}

# ---- jigsaw fl --serve ----------------------------------------------------------------------
HS_FL_POPULATION=(--dataset fashion-groups --clients 2 --groups 1 --samples-per-client 20
  --test-per-client 10 --model mlp --seed 3)
hs_fl() {  # label probe-arguments...
  local label="$1" dir="$OUT/hs/fl-$((++HS_N))" token
  shift
  mkdir -p "$dir"
  token=$(hs_token)
  "$J" fl "${HS_FL_POPULATION[@]}" --serve --port 0 --port-file "$dir/port" --expect-clients 2 \
    --rounds 2 --participants 2 --local-steps 2 --batch 10 --join-timeout 60s \
    --round-timeout 120s --token "$token" --out "$dir/out" >"$dir/server.json" 2>"$dir/server.log" &
  local server=$!
  PIDS+=("$server")
  hs_wait_file "$dir/port" || { hostile_row "fl --serve" "$label" broke no - "no start"; return; }
  watch_rss "$server" "$dir/rss" &
  local port; port=$(cat "$dir/port")
  $PROBE "${@//TOKEN/$token}" --port "$port" >"$dir/probe.log" 2>&1 &
  local probe=$!
  PIDS+=("$probe")
  sleep 1
  local legit=yes held=broke clients=()
  for c in 0 1; do
    "$J" fl-client "${HS_FL_POPULATION[@]}" --server "127.0.0.1:$port" --client-id "client$c" \
      --token "$token" >"$dir/c$c.log" 2>&1 &
    clients+=("$!")
  done
  for c in "${clients[@]}"; do wait "$c" || legit=no; done
  wait "$server" && held=held
  kill "$probe" 2>/dev/null || true
  wait "$probe" 2>/dev/null || true
  hostile_row "fl --serve" "$label" "$held" "$legit" "$(cat "$dir/rss" 2>/dev/null || echo -)" \
    "$(hs_closed "$dir/probe.log")"
}

# ---- jigsaw train --rank 0 (the rendezvous) -------------------------------------------------
hs_rendezvous() {  # label probe-arguments...
  local label="$1" dir="$OUT/hs/rendezvous-$((++HS_N))" port
  shift
  mkdir -p "$dir"
  port=$(hs_free_port)
  hs_token >"$dir/token"
  local job=(train --model mlp --dataset synthetic --synthetic-train 256 --synthetic-test 64
    --synthetic-size 8 --batch 8 --epochs 1 --max-iters-per-epoch 4 --quiet --timeout-s 60
    --world 2 --master "127.0.0.2:$port" --token-file "$dir/token" --out "$dir/out")
  "$J" "${job[@]}" --rank 0 2>"$dir/rank0.log" &
  local rank0=$!
  PIDS+=("$rank0")
  local listening=""
  for _ in $(seq 600); do
    listening=$(ss -Hltn "sport = :$port" 2>/dev/null | awk '{ print $4 }' | tr '\n' ' ')
    [ -n "$listening" ] && break
    sleep 0.05
  done
  local rank0_pid; rank0_pid=$(pgrep -P "$rank0" -n 2>/dev/null || echo "$rank0")
  watch_rss "$rank0_pid" "$dir/rss" &
  $PROBE "${@//TOKEN/$(cat "$dir/token")}" --host 127.0.0.2 --port "$port" \
    >"$dir/probe.log" 2>&1 &
  local probe=$!
  PIDS+=("$probe")
  sleep 1
  local legit=yes held=broke
  "$J" "${job[@]}" --rank 1 2>"$dir/rank1.log" || legit=no
  wait "$rank0" && [ -s "$dir/out/summary.json" ] && held=held
  kill "$probe" 2>/dev/null || true
  wait "$probe" 2>/dev/null || true
  [ "${listening% }" = "127.0.0.2:$port" ] || held=broke
  hostile_row "train rendezvous" "$label" "$held" "$legit" \
    "$(cat "$dir/rss" 2>/dev/null || echo -)" "listening on ${listening% }; $(hs_closed "$dir/probe.log")"
}

# CASES (a regular expression over "server label") runs some cases only.
hs_case() { [[ "$1 $2" =~ ${CASES:-.} ]] || return 0; "$@"; }
hs_case hs_ps "64 slow hellos (10 B each, then silent)" slow --count 64 --send 10 --hold 40
hs_case hs_ps "32 idle connections, reconnecting every 0.5 s" flood --count 32 --interval 0.5 --hold 40
hs_case hs_ps "hello trickled 1 B / 200 ms (right token)" trickle --token TOKEN --interval 0.2 --hold 40
hs_case hs_ps "48 no-token hellos announcing 2^28 floats + 1 MiB" announce --count 48 \
  --count-floats 268435456 --payload 1048576 --hold 40
hs_case hs_paramsvc "300 slow frames (16 B of header each)" slow --frame jpsc --count 300 --send 16 \
  --hold 40
hs_case hs_paramsvc "50 no-token frames announcing 1 MiB JSON, 1 MiB sent" announce --frame jpsc \
  --count 50 --payload 1048576 --hold 40
hs_case hs_paramsvc "64 idle connections, reconnecting every 0.5 s" flood --count 64 --interval 0.5 \
  --hold 40
hs_case hs_fl "1 slow hello (20 B, then silent)" slow --count 1 --send 20 --step 3 --hold 60
hs_case hs_fl "64 slow hellos (10 B each)" slow --count 64 --send 10 --step 3 --hold 60
hs_case hs_fl "hello trickled 1 B / 200 ms (right token)" trickle --token TOKEN --step 3 --interval 0.2 \
  --hold 60
hs_case hs_rendezvous "64 slow hellos (10 B each)" slow --count 64 --send 10 --hold 60
hs_case hs_rendezvous "50 no-token hellos + a set of 512 MiB announced" announce --count 50 \
  --after-hex "0100000002000000010000006100000020" --payload 1048576 --hold 60
echo

# Hostile HTTP peers against every HTTP server of jigsaw: `jigsaw serve`, the faas load balancer
# and a faas SGS, each started here on 127.0.0.1 with its default limits.
#
# Sourced by bench/hostile_peers.sh (which sets J, OUT, PIDS and all_ok), or run alone:
#   bash bench/hostile/http.sh        (env: JIGSAW=build/jigsaw, KEEP=dir, PROBE_SECONDS=12)
# Per server and probe (bench/hostile/http_probe.py): held or BROKE, what the server answered the
# attacker, how many requests of a legitimate client sent beside the probe were served, and the
# server's peak RSS during the probe. The SGS probes' legitimate client goes through the LB (the
# path users take). Every connection is to loopback, bounded in count and time, and closed; the
# servers are stopped at the end.

http_hostile_wait_for() {  # file pattern
  for _ in $(seq 1200); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "timed out waiting for '$2' in $1:" >&2
  cat "$1" >&2
  return 1
}

http_hostile() {
  local dir="$OUT/http" here probe
  here="$(dirname "${BASH_SOURCE[0]}")"
  mkdir -p "$dir"
  "$J" train --model lenet --dataset synthetic --synthetic-train 64 --synthetic-test 16 \
    --synthetic-size 28 --workers 1 --batch 16 --epochs 1 --max-iters-per-epoch 2 --quiet \
    --out "$dir/train" >"$dir/train.log" 2>&1
  "$J" serve --model "$dir/train/checkpoint.pt" --port 0 2>"$dir/serve.log" &
  local serve_pid=$!
  PIDS+=("$serve_pid")
  http_hostile_wait_for "$dir/serve.log" "listening on" || return 1
  local serve_port
  serve_port="$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\).*/\1/p' "$dir/serve.log" | head -1)"

  cat >"$dir/dags.json" <<'EOF'
{"format": "jigsaw-faas-dags-v1", "dags": [
  {"name": "h", "deadline": "10s", "functions": [
    {"name": "f", "duration": "1ms", "code": "sha256:1KiB"}]}]}
EOF
  "$J" faas --dags "$dir/dags.json" --port 0 --port-file "$dir/lb.port" --sgs 1 --slots 1 \
    --no-proactive 2>"$dir/faas.log" &
  local lb_pid=$!
  PIDS+=("$lb_pid")
  for _ in $(seq 600); do [ -s "$dir/lb.port" ] && break; sleep 0.1; done
  local lb_port sgs_port sgs_pid
  lb_port="$(cat "$dir/lb.port")"
  read -r sgs_port sgs_pid < <(python3 -c '
import json, sys, urllib.request
stats = json.load(urllib.request.urlopen("http://127.0.0.1:%s/stats" % sys.argv[1], timeout=30))
print(stats["sgs"][0]["port"], stats["sgs"][0]["pid"])' "$lb_port")

  python3 - "$dir" <<'EOF'
import json, sys
d = sys.argv[1]
body = json.dumps({"inputs": [{"name": "input", "shape": [1, 1, 28, 28], "datatype": "FP32",
                               "data": [0.0] * 784}]})
with open(d + "/legit_serve.http", "wb") as f:
    f.write(("POST /v2/models/lenet/infer HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s"
             % (len(body), body)).encode())
with open(d + "/legit_lb.http", "wb") as f:
    f.write(b"POST /invoke/h HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
EOF

  echo
  echo "## Hostile HTTP peers: jigsaw serve, the faas LB and a faas SGS (default limits)"
  echo
  echo "| server | probe | result | answer to the attacker | attack | legitimate client served | RSS MiB before -> peak |"
  echo "|---|---|---|---|---|---|---|"
  local server port path pids legit_port legit
  for server in serve faas-lb faas-sgs; do
    case "$server" in
      serve) port=$serve_port path=/v2/models/lenet/infer pids=$serve_pid
        legit_port=$serve_port legit="$dir/legit_serve.http" ;;
      faas-lb) port=$lb_port path=/invoke/h pids=$lb_pid legit_port=$lb_port
        legit="$dir/legit_lb.http" ;;
      faas-sgs) port=$sgs_port path=/run/h pids=$sgs_pid legit_port=$lb_port
        legit="$dir/legit_lb.http" ;;
    esac
    for probe in chunked-64MiB content-length-1GiB headers-10000 header-line-64MiB \
      slow-headers-230 idle-300 slow-bodies-100; do
      python3 "$here/http_probe.py" --server "$server" --port "$port" --path "$path" \
        --pids "$pids" --legit-port "$legit_port" --legit-request "$legit" --probe "$probe" \
        --seconds "${PROBE_SECONDS:-12}" --json-out "$dir/results.jsonl" || all_ok=0
    done
  done
  kill "$serve_pid" "$lb_pid" 2>/dev/null || true
  wait "$serve_pid" "$lb_pid" 2>/dev/null || true
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then  # run alone
  set -euo pipefail
  cd "$(dirname "$0")/../.."
  [ -x build/jigsaw ] || scripts/build.sh >/dev/null
  J="${JIGSAW:-$(pwd)/build/jigsaw}"
  OUT="${KEEP:-$(mktemp -d)}"
  PIDS=()
  all_ok=1
  trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; [ -n "${KEEP:-}" ] || rm -rf "$OUT"' EXIT
  http_hostile || all_ok=0
  echo
  [ "$all_ok" = 1 ] && echo "every HTTP probe held" || { echo "SOME HTTP PROBES BROKE"; exit 1; }
else
  http_hostile || all_ok=0
fi

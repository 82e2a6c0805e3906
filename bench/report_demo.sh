#!/usr/bin/env bash
# A report comparing one small real run of every kind `jigsaw report` draws: sim (two policies),
# net (incast with time series), train (LeNet on Fashion-MNIST, 2 workers), d2r (Abilene, every
# link), faas-sim (20,000 requests), fl (Fashion-MNIST groups) and serve-bench (against
# `jigsaw serve` of the trained LeNet, on loopback), then a full-page screenshot in headless
# Chromium. About 3 minutes of CPU; the screenshot is meant to be looked at (docs/report.md).
# Usage: bench/report_demo.sh [OUT]   (default out/report_demo; needs scripts/build.sh, chromium)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
bench_need_binary
out="$(realpath -m "${1:-out/report_demo}")"
runs="$out/runs"
rm -rf "$out"
mkdir -p "$runs"
j() { "$JIGSAW" "$@" --quiet; }

j sim --policy max_min_fairness --out "$runs/sim_mmf"
j sim --policy shockwave --out "$runs/sim_shockwave"
j net --topology fattree:k=4 --traffic incast:6:500KB --cc dcqcn --timeseries --out "$runs/net_incast"
j train --model lenet --dataset fashion-mnist --workers 2 --epochs 1 --max-iters-per-epoch 60 \
  --eval-every 20 --eval-samples 1000 --spb staircase --out "$runs/train_lenet"
j d2r --topology "$DATA/topologies/zoo/Abilene.graphml" --fail each-link --out "$runs/d2r_abilene"
j faas-sim --load 0.6 --requests 20000 --out "$runs/faas_sim"
j fl --dataset fashion-groups --clients 40 --groups 2 --participants 10 --rounds 12 \
  --eval-every 3 --out "$runs/fl_groups"

# serve-bench against the trained LeNet on loopback: without a cache (writing the reference
# classes), then with the exact-match cache (agreement with that reference). The server picks a
# free port and prints it.
serve_pid=""
trap '[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null || true' EXIT
serve_and_bench() {  # NAME BENCH_ARGS... ; SERVE_ARGS from the environment
  local log="$out/$1.serve.log" port=""
  local name="$1"
  shift
  # shellcheck disable=SC2086
  "$JIGSAW" serve --model "$runs/train_lenet/checkpoint.pt" --port 0 $SERVE_ARGS >"$log" 2>&1 &
  serve_pid=$!
  for _ in $(seq 1 300); do
    port="$(grep -oE '127\.0\.0\.1:[0-9]+' "$log" | head -1 | cut -d: -f2 || true)"
    [ -n "$port" ] && break
    sleep 0.2
  done
  [ -n "$port" ] || { echo "report_demo: serve did not start:" >&2; cat "$log" >&2; exit 1; }
  j serve-bench --port "$port" --model lenet --requests 500 --rate 100 --out "$runs/$name" "$@"
  kill "$serve_pid"
  wait "$serve_pid" 2>/dev/null || true
  serve_pid=""
}
SERVE_ARGS="" serve_and_bench serve_plain --reference-out "$out/reference.txt"
SERVE_ARGS="--cache exact" serve_and_bench serve_exact --reference "$out/reference.txt"

"$JIGSAW" report "$runs"/sim_mmf "$runs"/sim_shockwave "$runs"/net_incast "$runs"/train_lenet \
  "$runs"/d2r_abilene "$runs"/faas_sim "$runs"/fl_groups "$runs"/serve_plain "$runs"/serve_exact --out "$out/report"
chromium --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
  --user-data-dir="$out/chromium" --virtual-time-budget=60000 --window-size=1300,16000 \
  --screenshot="$out/report/screenshot.png" "file://$PWD/$out/report/report.html" 2>/dev/null
echo "report_demo: $out/report/report.html, $out/report/screenshot.png"
machine_note

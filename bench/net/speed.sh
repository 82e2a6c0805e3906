#!/usr/bin/env bash
# Simulator speed: a 1024-host k=16 fat-tree at 100 Gbps, 1 us links, every host sending 2 MB to a
# random permutation partner, 1500-byte packets (1452 B payload + 48 B headers), PFC only — the
# htsim anchor in ../shared/research/network.md (htsim: 1.08 ms simulated in 37.8 s; ns-3 ~0.3 M
# events/s). Prints the wall-clock speed line (events/s, slowdown) and the figure of merit that a
# shared machine does not distort much: simulated microseconds per CPU second (user + system;
# goal >= 100, about 5x htsim on this machine class). Results in <out>.
# Usage: bench/net/speed.sh [out_dir] [cc]   (JIGSAW_BIN=path runs another binary, e.g. main's)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${1:-bench/net/results/speed}"
CC="${2:-none}"
BIN="${JIGSAW_BIN:-./build/jigsaw}"
TIMES="$(mktemp)"
trap 'rm -f "$TIMES"' EXIT
/usr/bin/time -f "%U %S %M" -o "$TIMES" "$BIN" net --topology fattree:k=16,rate=100Gbps,delay=1us \
  --traffic permutation:2MB --payload 1452 --cc "$CC" --out "$OUT" 2>&1 |
  grep -E "^net: .*slowdown" || true
SIM_US=$(grep -o '"simulated_time_us": [0-9.]*' "$OUT/summary.json" | awk '{print $2}')
read -r USER_S SYS_S RSS_KB < "$TIMES"
awk -v sim="$SIM_US" -v u="$USER_S" -v s="$SYS_S" -v rss="$RSS_KB" 'BEGIN {
  cpu = u + s
  printf "speed: %.3f us simulated in %.2f CPU s (user %.2f + sys %.2f): %.1f sim-us per CPU s; max RSS %.0f MB\n",
    sim, cpu, u, s, sim / cpu, rss / 1024 }'

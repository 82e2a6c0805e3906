#!/usr/bin/env bash
# Simulator speed: a 1024-host k=16 fat-tree at 100 Gbps, 1 us links, every host sending 2 MB to a
# random permutation partner, 1500-byte packets (1452 B payload + 48 B headers), PFC only — the
# htsim anchor in ../shared/research/network.md (htsim: 1.08 ms simulated in 37.8 s; ns-3 ~0.3 M
# events/s). Prints simulated time, wall time, events/s and the slowdown; results in <out>.
# Usage: bench/net/speed.sh [out_dir] [cc]
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${1:-bench/net/results/speed}"
CC="${2:-none}"
/usr/bin/time -v ./build/jigsaw net --topology fattree:k=16,rate=100Gbps,delay=1us \
  --traffic permutation:2MB --payload 1452 --cc "$CC" --out "$OUT" 2>&1 |
  grep -E "^net: .*slowdown|Maximum resident"

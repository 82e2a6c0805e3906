#!/usr/bin/env bash
# Rows of the RoCE CC study that can engage congestion control, on the study's 128-host
# 2-level Clos (8 ToR x 16 hosts, 8 spines, 200 Gbps, 2:1) and on generated Clos fabrics of
# 1:1 / 2:1 / 4:1 oversubscription: a micro all-reduce (8x16 rings) under Poisson web-search
# background at 30% load, and a 4 MiB all-to-all per oversubscription, for none, dcqcn and hpcc.
# Per row: iteration time, FCT slowdown p50/p99 (all flows), PFC pause time, max queue, ECN marks.
# Usage: bench/net/study_cc.sh [out_dir]   (nice -n 10; a few CPU-minutes; not in CI)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${1:-bench/net/results/study_cc}"
DATA="${JIGSAW_SHARED_DATA:-../shared/data}"
TOPO="$DATA/topologies/clos/128_nodes_16_switch_topology.txt"
W="$DATA/workloads/astra"
BIN=./build/jigsaw
MODES="${MODES:-none dcqcn hpcc}"
mkdir -p "$OUT"
printf 'MICRO\n1\nconv1 -1 5 NONE 0 5 NONE 0 5 ALLTOALL 4194304 5\n' > "$OUT/alltoall4MiB.txt"
run() {  # name cc args...
  local name=$1 cc=$2; shift 2
  nice -n 10 "$BIN" net --cc "$cc" --quiet --out "$OUT/$name-$cc" "$@" || true
}
for cc in $MODES; do
  run bg30-allreduce "$cc" --topology "$TOPO" --workload "$W/microAllReduce.txt" --dims 8x16 \
    --background websearch --background-load 30% --background-duration 300us
  for spines in 16 8 4; do
    run "alltoall4MiB-spines$spines" "$cc" \
      --topology "clos:leaves=8,spines=$spines,hosts=16,rate=200Gbps" \
      --workload "$OUT/alltoall4MiB.txt" --chunks 1
  done
  echo "study_cc: $cc done" >&2
done
python3 - "$OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
print("| row | cc | iteration us | slowdown p50 | slowdown p99 | pause us | max queue KB | ECN marks | unfinished |")
print("|---|---|---|---|---|---|---|---|---|")
for name in sorted(os.listdir(out)):
    path = os.path.join(out, name, "summary.json")
    if not os.path.exists(path):
        continue
    s = json.load(open(path))
    row, cc = name.rsplit("-", 1)
    it = s["jobs"][0]["iteration_time_us"] if "jobs" in s else None
    n, f = s["network"], s["flows"]
    print(f"| {row} | {cc} | {it} | {f['slowdown_p50']} | {f['slowdown_p99']} | "
          f"{n['pfc_pause_time_us']} | {n['max_queue_bytes'] / 1000:.1f} | {n['ecn_marks']} | {f['unfinished']} |")
PY

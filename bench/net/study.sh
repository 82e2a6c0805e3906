#!/usr/bin/env bash
# The RoCE congestion-control study (seed 002) on the 128-host 2-level Clos of the paper
# (8 ToR x 16 hosts, 8 spines, 200 Gbps, 2:1 oversubscribed): micro all-reduce (1 MiB, 8x16 rings),
# micro all-to-all (1 MiB), a 64 MiB all-to-all, ResNet-50 data-parallel (8x16 rings), and an
# all-reduce job sharing the fabric with an all-to-all job (64 hosts each, interleaved, 8x8 rings),
# for every CC mode; once with the study's BDP window ("win") and once rate-only ("nowin").
# Usage: bench/net/study.sh [out_dir]   (RESNET=0 skips ResNet-50, ~2 min per mode; not in CI).
# Writes <out>/table.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${1:-bench/net/results/study}"
DATA="${JIGSAW_SHARED_DATA:-../shared/data}"
TOPO="$DATA/topologies/clos/128_nodes_16_switch_topology.txt"
W="$DATA/workloads/astra"
BIN=./build/jigsaw
MODES="none dcqcn dctcp timely hpcc"
mkdir -p "$OUT"
printf 'MICRO\n1\nconv1 -1 5 NONE 0 5 NONE 0 5 ALLTOALL 67108864 5\n' > "$OUT/alltoall64MiB.txt"
run() {  # name variant cc args...
  local name=$1 variant=$2 cc=$3; shift 3
  local window=on
  [ "$variant" = nowin ] && window=off
  "$BIN" net --topology "$TOPO" --cc "$cc" --window "$window" --out "$OUT/$name-$variant-$cc" \
    --quiet "$@"
}
for variant in win nowin; do
  for cc in $MODES; do
    run allreduce "$variant" "$cc" --workload "$W/microAllReduce.txt" --dims 8x16
    run alltoall "$variant" "$cc" --workload "$W/microAllToAll.txt"
    run alltoall64MiB "$variant" "$cc" --workload "$OUT/alltoall64MiB.txt" --chunks 1
    run mixed "$variant" "$cc" --workload "$W/microAllReduce.txt" --workload "$W/microAllToAll.txt" \
      --dims 8x8
    if [ "${RESNET:-1}" = 1 ] && [ "$variant" = win ]; then
      run resnet50 "$variant" "$cc" --workload "$W/Resnet50_DataParallel.txt" --dims 8x16
    fi
    echo "study: $variant $cc done" >&2
  done
done
python3 - "$OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
head = ("| workload | window | cc | iteration time (us; per job) | PFC pauses | pause time (us) | "
        "max queue (KB) | avg queue (KB) | ECN marks | drops | flow FCT p99 (us) |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|")
rows = []
for name in ["allreduce", "alltoall", "alltoall64MiB", "mixed", "resnet50"]:
    for variant in ["win", "nowin"]:
        for cc in ["none", "dcqcn", "dctcp", "timely", "hpcc"]:
            path = os.path.join(out, f"{name}-{variant}-{cc}", "summary.json")
            if not os.path.exists(path):
                continue
            s = json.load(open(path))
            n = s["network"]
            iters = " / ".join(f'{j["iteration_time_us"]:.1f}' for j in s["jobs"])
            rows.append(f'| {name} | {variant} | {cc} | {iters} | {n["pfc_pause_frames"]} | '
                        f'{n["pfc_pause_time_us"]:.1f} | {n["max_queue_bytes"] / 1e3:.1f} | '
                        f'{n["avg_queue_bytes"] / 1e3:.2f} | {n["ecn_marks"]} | {n["drops"]} | '
                        f'{s["flows"]["fct_p99_us"]:.1f} |')
text = head + "\n" + "\n".join(rows) + "\n"
open(os.path.join(out, "table.md"), "w").write(text)
print(text)
PY

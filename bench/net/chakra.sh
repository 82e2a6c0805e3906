#!/usr/bin/env bash
# Chakra execution traces in `jigsaw net` (docs/net.md "Chakra traces"):
#   examples  every shipped ASTRA-sim example (../shared/data/workloads/chakra) with --chakra,
#             beside the same collective and size written as an ASTRA-sim 1.0 --workload, on
#             the H100-HGX example's fabric (N NPUs on one switch, 400 GB/s = 3200 Gbps links,
#             936.25 ns, 64 MiB of switch buffer for the PFC headroom), 4 chunks; prints both iteration times and their difference.
#   scale     2 jobs of 128 ranks (bench/chakra_gen.py: one data-parallel ResNet-50 iteration,
#             batch 32 per rank, 25 MB buckets, compute from FLOPs at 100 TFLOP/s) sharing a
#             k=12 fat-tree (432 hosts, 100 Gbps, interleaved placement) under DCQCN and HPCC,
#             and each job alone on the same hosts (the other job idle): CPU time (user + sys)
#             and the interference each job sees.
# Usage: bench/net/chakra.sh [out_dir]   (env: JIGSAW=build/jigsaw PART=all|examples|scale
#        CCS="dcqcn hpcc" PAYLOAD=4096 MODEL=resnet50)
set -euo pipefail
cd "$(dirname "$0")/../.."
JIGSAW="${JIGSAW:-build/jigsaw}"
OUT="${1:-out/chakra}"
DATA="${JIGSAW_SHARED_DATA:-../shared/data}/workloads/chakra"
PART="${PART:-all}"
mkdir -p "$OUT"

iteration_us() {  # summary.json, jobs key -> the first job's iteration time
  python3 -c "import json,sys; j=json.load(open(sys.argv[1]))[sys.argv[2]][0]; \
print(j['iteration_time_us'])" "$1" "$2"
}

if [ "$PART" = all ] || [ "$PART" = examples ]; then
  [ -d "$DATA" ] || { echo "chakra.sh: $DATA not found" >&2; exit 2; }
  echo "| example | NPUs | --chakra iteration us | --workload iteration us | difference |"
  echo "|---|---|---|---|---|"
  for dir in "$DATA"/workload/microbenchmarks/*/*npus_1MB \
    "$DATA"/system/custom_collectives/custom_ring_allreduce_8npus_1MB; do
    name=$(basename "$(dirname "$dir")")/$(basename "$dir")
    npus=$(basename "$dir" | sed -E 's/^(.*_)?([0-9]+)npus.*/\2/')
    prefix=$(ls "$dir"/*.0.et | sed 's/\.0\.et$//')
    case "$name" in
      all_reduce/*|custom_collectives/*) type=ALLREDUCE ;;
      all_gather/*) type=ALLGATHER ;;
      reduce_scatter/*) type=REDUCESCATTER ;;
      all_to_all/*) type=ALLTOALL ;;
    esac
    topology="rack:hosts=$npus,rate=3200Gbps,delay=936.25ns,buffer=64MiB"
    run="$OUT/examples/${name//\//_}"
    mkdir -p "$run"
    printf 'MICRO\n1\nl0 -1 0 NONE 0 0 NONE 0 0 %s 1048576 0\n' "$type" > "$run/workload.txt"
    "$JIGSAW" net --quiet --topology "$topology" --chunks 4 --chakra "$prefix" \
      --out "$run/chakra" 2> "$run/chakra.log" || { cat "$run/chakra.log" >&2; exit 1; }
    "$JIGSAW" net --quiet --topology "$topology" --chunks 4 --workload "$run/workload.txt" \
      --out "$run/workload" 2> "$run/workload.log" || { cat "$run/workload.log" >&2; exit 1; }
    a=$(iteration_us "$run/chakra/summary.json" chakra_jobs)
    b=$(iteration_us "$run/workload/summary.json" jobs)
    python3 -c "import sys; a, b = map(float, sys.argv[3:5]); \
print(f'| {sys.argv[1]} | {sys.argv[2]} | {a:.3f} | {b:.3f} | {100 * (a / b - 1):+.3f}% |')" \
      "$name" "$npus" "$a" "$b"
  done
fi

if [ "$PART" = all ] || [ "$PART" = scale ]; then
  model="${MODEL:-resnet50}"
  traces="$OUT/traces"
  [ -f "$traces/$model.127.et" ] || bench/chakra_gen.py --ranks 128 --model "$model" \
    --out "$traces/$model" > /dev/null
  # An idle job (one rank, no nodes) keeps the other job on the same hosts when it runs alone.
  printf '\x07\x0a\x050.0.4' > "$traces/idle.0.et"
  common=(--topology fattree:k=12,rate=100Gbps,delay=1us --payload "${PAYLOAD:-4096}"
    --npu-tflops 100 --placement interleave)
  echo
  echo "| cc | run | job | iteration us | alone us | interference | CPU s (user+sys) | wall s |"
  echo "|---|---|---|---|---|---|---|---|"
  for cc in ${CCS:-dcqcn hpcc}; do
    for run in shared alone0 alone1; do
      case "$run" in
        shared) jobs=(--chakra "$traces/$model" --chakra "$traces/$model") ;;
        alone0) jobs=(--chakra "$traces/$model" --chakra "$traces/idle") ;;
        alone1) jobs=(--chakra "$traces/idle" --chakra "$traces/$model") ;;
      esac
      dir="$OUT/scale/$cc/$run"
      mkdir -p "$dir"
      [ -s "$dir/summary.json" ] || /usr/bin/time -f "%U %S %e" -o "$dir/time.txt" \
        nice -n 5 "$JIGSAW" net --quiet --cc "$cc" "${common[@]}" "${jobs[@]}" --out "$dir" \
        2> "$dir/log.txt"
    done
    python3 - "$OUT/scale/$cc" "$cc" <<'PY'
import json, sys
base, cc = sys.argv[1:3]
def load(run):
    return json.load(open(f"{base}/{run}/summary.json"))["chakra_jobs"]
def cpu(run):
    user, system, wall = map(float, open(f"{base}/{run}/time.txt").read().split())
    return user + system, wall
shared = load("shared")
alone = [load("alone0")[0], load("alone1")[1]]
for j in range(2):
    s, a = shared[j]["iteration_time_us"], alone[j]["iteration_time_us"]
    c, w = cpu("shared")
    print(f"| {cc} | shared | {j} | {s:.1f} | {a:.1f} | {100 * (s / a - 1):+.2f}% | {c:.1f} | {w:.1f} |")
for j, run in enumerate(["alone0", "alone1"]):
    c, w = cpu(run)
    print(f"| {cc} | {run} | {j} | {alone[j]['iteration_time_us']:.1f} | | | {c:.1f} | {w:.1f} |")
PY
  done
fi

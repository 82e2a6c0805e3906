#!/usr/bin/env bash
# Byte-identity of `jigsaw net` between two binaries: runs each scenario with both and diffs
# summary.json, flows.csv and any timeseries/*.csv. Use it around hot-path changes that must not
# change results. Prints one line per scenario and exits 1 if any output differs.
# Fields the new binary's summary.json adds (absent from the base's) are listed, not compared
# (e.g. rate_cuts / hol_victim_flows), and run.git (the build) is ignored; every
# other value must be equal.
# Usage: bench/net/identity.sh <base_binary> <new_binary> [out_dir]   (QUICK=1 skips the 1024-host
# speed scenario, ~20 CPU s per binary)
set -uo pipefail
cd "$(dirname "$0")/../.."
BASE="${1:?usage: identity.sh <base_binary> <new_binary> [out_dir]}"
NEW="${2:?usage: identity.sh <base_binary> <new_binary> [out_dir]}"
OUT="${3:-/tmp/jigsaw_net_identity_$$}"
DATA="${JIGSAW_SHARED_DATA:-../shared/data}"
CLOS="$DATA/topologies/clos/128_nodes_16_switch_topology.txt"
W="$DATA/workloads/astra"
failed=0
check() {  # name args...
  local name=$1; shift
  local rc_base=0 rc_new=0
  rm -rf "$OUT/base/$name" "$OUT/new/$name"
  "$BASE" net --quiet --out "$OUT/base/$name" "$@" > "$OUT/base-$name.log" 2>&1 || rc_base=$?
  "$NEW" net --quiet --out "$OUT/new/$name" "$@" > "$OUT/new-$name.log" 2>&1 || rc_new=$?
  # Exit 3 (stopped with flows unfinished) still writes results; other failures do not.
  if [ $rc_base != $rc_new ] || { [ $rc_base != 0 ] && [ $rc_base != 3 ]; }; then
    echo "$name: FAILED to run (exit $rc_base / $rc_new, see $OUT/*-$name.log)"
    failed=1
    return
  fi
  local added
  if diff -r -x summary.json "$OUT/base/$name" "$OUT/new/$name" > "$OUT/$name.diff" &&
    added=$(summary_added "$OUT/base/$name/summary.json" "$OUT/new/$name/summary.json" \
      2>> "$OUT/$name.diff"); then
    echo "$name: identical${added:+ (new fields: $added)}, exit $rc_new ($(cd "$OUT/new/$name" && find . -type f | sort | tr '\n' ' '))"
  else
    echo "$name: DIFFERS (see $OUT/$name.diff)"
    failed=1
  fi
}
# Prints the keys only the new summary has; fails (diff on stderr) if any shared value differs.
summary_added() {
  python3 - "$1" "$2" <<'PY'
import json, sys
base, new = (json.load(open(p)) for p in sys.argv[1:3])
added = []
def strip(b, n, path):
    if isinstance(b, dict) and isinstance(n, dict):
        for k in list(n):
            if k not in b:
                added.append(path + k)
                del n[k]
            else:
                strip(b[k], n[k], path + k + ".")
    elif isinstance(b, list) and isinstance(n, list) and len(b) == len(n):
        for x, y in zip(b, n):
            strip(x, y, path)
strip(base, new, "")
for s in (base, new):  # the build's git id in the run record is not a result
    s.get("run", {}).pop("git", None)
if base != new:
    sys.stderr.write("summary.json differs beyond added fields\n")
    sys.exit(1)
print(" ".join(sorted(set(added))))
PY
}
mkdir -p "$OUT/base" "$OUT/new"
printf 'MICRO\n1\nconv1 -1 5 NONE 0 5 NONE 0 5 ALLTOALL 4194304 5\n' > "$OUT/alltoall4MiB.txt"
if [ "${QUICK:-0}" != 1 ]; then
  check speed --topology fattree:k=16,rate=100Gbps,delay=1us --traffic permutation:2MB \
    --payload 1452 --cc none
fi
check fattree8-perm-dcqcn --topology fattree:k=8,rate=100Gbps,delay=1us --traffic permutation:1MB \
  --payload 1452 --cc dcqcn
check pfc-incast --topology fattree:k=4,rate=100Gbps,delay=1us --traffic incast:15:1MB --cc none
check pfc-incast-ackhigh --topology fattree:k=4,rate=100Gbps,delay=1us --traffic incast:15:1MB \
  --cc none --ack-priority high
check lossy-incast-dctcp --topology fattree:k=4,rate=100Gbps,delay=1us --traffic incast:15:1MB \
  --cc dctcp --pfc off --buffer 1MiB
check lossy-transport --topology fattree:k=4,rate=100Gbps,delay=1us --traffic incast:8:512KB \
  --transport lossy
check fail-link --topology fattree:k=4,rate=100Gbps,delay=1us --traffic permutation:1MB \
  --cc dcqcn --fail-link 0-16@20us --stop 1ms
check timeseries-incast --topology fattree:k=4,rate=100Gbps,delay=1us --traffic incast:15:1MB \
  --cc hpcc --timeseries all --sample-interval 5us
check background --topology fattree:k=4,rate=100Gbps,delay=1us --background websearch \
  --background-duration 200us --cc timely
check homa-rack --topology rack:hosts=16,gbps=100,delay=500ns,buffer=16MiB --transport homa \
  --load 150% --duration 300us --drain 200us
# PL2's sender order is pinned (its default changed from shared to oldest), so
# binaries from either side of that change compare like with like.
check pl2-rack --topology rack:hosts=16,gbps=100,delay=500ns,buffer=16MiB --transport pl2 \
  --pl2-bulk-order oldest --load 150% --duration 300us --drain 200us
check pl2-rack-shared --topology rack:hosts=16,gbps=100,delay=500ns,buffer=16MiB --transport pl2 \
  --pl2-bulk-order shared --load 150% --duration 300us --drain 200us
if [ -f "$CLOS" ]; then
  check readme-allreduce-dcqcn --topology "$CLOS" --cc dcqcn --workload "$W/microAllReduce.txt"
  check study-allreduce-hpcc-win --topology "$CLOS" --cc hpcc --window on \
    --workload "$W/microAllReduce.txt" --dims 8x16
  check study-alltoall-dctcp-nowin --topology "$CLOS" --cc dctcp --window off \
    --workload "$W/microAllToAll.txt"
  check study-alltoall4MiB-timely --topology "$CLOS" --cc timely --window on \
    --workload "$OUT/alltoall4MiB.txt" --chunks 1
  check study-mixed-none --topology "$CLOS" --cc none --window on \
    --workload "$W/microAllReduce.txt" --workload "$W/microAllToAll.txt" --dims 8x8
else
  echo "skipping the 128-host Clos scenarios: $CLOS not found"
fi
[ $failed = 0 ] && echo "all identical" || echo "SOME OUTPUTS DIFFER"
exit $failed

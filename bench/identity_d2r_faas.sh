#!/usr/bin/env bash
# Byte-identity of `jigsaw d2r` and `jigsaw faas-sim` between two binaries, on the inputs of
# bench/d2r.sh (Topology Zoo graphs, each failure kind, both control channels, a waypoint and a
# stretch policy) and of bench/faas.sh (the generated Azure-2019-like workload, every platform and
# Archipelago policy, the ablations, a worker kill). Use it around changes that must not change
# results. Every output file is compared; summary.json without the keys that measure the machine
# and without its "run" provenance block. Prints one line per scenario; exits 1 if any differs.
# Usage: bench/identity_d2r_faas.sh REFERENCE_BINARY [CANDIDATE_BINARY, default build/jigsaw]
# Data: $JIGSAW_DATA_DIR (default ../shared/data). FAAS_REQUESTS (default 200000) per faas run.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ]; then
  echo "usage: bench/identity_d2r_faas.sh REFERENCE_BINARY [CANDIDATE_BINARY]" >&2
  exit 2
fi
REF="$1"
NEW="${2:-build/jigsaw}"
source bench/lib.sh
identity_binaries identity_d2r_faas "$REF" "$NEW"
ZOO="$DATA/topologies/zoo"
[ -d "$ZOO" ] || { echo "identity_d2r_faas: no Topology Zoo graphs in $ZOO (set JIGSAW_DATA_DIR)" >&2; exit 2; }
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
REQUESTS="${FAAS_REQUESTS:-200000}"

failed=0
# check LABEL SUBCOMMAND ARGS...: run both binaries, compare every output file.
check() {
  local label="$1" sub="$2"
  shift 2
  local side bin status=identical f
  for side in ref new; do
    bin="$REF"
    [ "$side" = new ] && bin="$NEW"
    "$bin" "$sub" --quiet "$@" --out "$OUT/$side" >/dev/null 2>"$OUT/$side.err" ||
      echo "exit $?" >>"$OUT/$side.err"
  done
  [ -f "$OUT/ref/summary.json" ] && [ -f "$OUT/new/summary.json" ] || status="NO OUTPUT"
  for f in $(cd "$OUT/ref" 2>/dev/null && find . -type f | sort); do
    case "$f" in
      */summary.json) cmp -s <(identity_summary "$OUT/ref/$f") <(identity_summary "$OUT/new/$f") || status="DIFFERS ($f)" ;;
      *) cmp -s "$OUT/ref/$f" "$OUT/new/$f" || status="DIFFERS ($f)" ;;
    esac
  done
  identity_same_stderr "$OUT/ref.err" "$OUT/new.err" || status="$status, stderr differs"
  [ "$status" = identical ] || failed=1
  echo "$label: $status"
  rm -rf "$OUT/ref" "$OUT/new"
}

for graph in Abilene Geant2012 Cogentco; do
  g="$ZOO/$graph.graphml"
  check "d2r $graph each-link" d2r --topology "$g" --fail each-link:40 --max-flows 300
  check "d2r $graph node" d2r --topology "$g" --fail node:3 --max-flows 300 --seed 2
  check "d2r $graph pairs out-of-band" d2r --topology "$g" --fail pairs:20 --max-flows 300 \
    --control out-of-band
  check "d2r $graph stretch entry-bfs" d2r --topology "$g" --fail random:2 --max-flows 300 \
    --policy stretch:1.5 --d2r-bfs entry --d2r-hold port
done
check "d2r Abilene waypoint" d2r --topology "$ZOO/Abilene.graphml" --fail each-link \
  --policy waypoint:random --max-flows 300

check "faas-sim every platform" faas-sim --requests "$REQUESTS" --policies lsf,edf,fifo,rlsf
check "faas-sim ablations" faas-sim --requests "$REQUESTS" --platforms archipelago \
  --ablation-no-proactive --ablation-no-demote-late --admission-control --hopeless-admission
check "faas-sim kill, load 0.9" faas-sim --requests "$REQUESTS" --load 0.9 --seed 3 \
  --kill 2@30s --sparrow-probes 3
check "faas-sim plain Poisson, no pausing" faas-sim --requests "$REQUESTS" --burst-sigma 0 \
  --ow-unpause-cost 0s --ow-stem-cells 0
exit "$failed"

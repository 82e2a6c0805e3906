#!/usr/bin/env bash
# D2R failure-recovery study (issue 16) on every Topology Zoo graph: D2R vs a central SDN
# controller, a link-state IGP and LFA fast reroute. Three studies, each one `jigsaw d2r` run per
# graph; bench/d2r_report.py prints the tables (per scheme: median/p99 recovery, packets lost at
# the traffic rate, policy-violation rate, mean stretch) and the graphs that failed to parse.
#   single  every link of every graph fails alone (a seeded sample of LINKS links on larger graphs)
#   policy  the same single failures under waypoint:random+avoid:node:random (POLICY_LINKS links)
#   double  PAIRS seeded random pairs of links fail together, same policy
# Usage: bench/d2r.sh [zoo-dir] [out-dir]
# Environment: LINKS (200), POLICY_LINKS (60), PAIRS (30), TRAFFIC (10000pps), MAX_FLOWS (1000),
# STUDIES ("single policy double"), JOBS (parallel runs, 1).
set -euo pipefail
cd "$(dirname "$0")/.."
ZOO="${1:-../shared/data/topologies/zoo}"
OUT="${2:-out/d2r_bench}"
LINKS="${LINKS:-200}"
POLICY_LINKS="${POLICY_LINKS:-60}"
PAIRS="${PAIRS:-30}"
TRAFFIC="${TRAFFIC:-10000pps}"
MAX_FLOWS="${MAX_FLOWS:-1000}"
STUDIES="${STUDIES:-single policy double}"
JOBS="${JOBS:-1}"
POLICY="waypoint:random+avoid:node:random"
[ -x build/jigsaw ] || scripts/build.sh >/dev/null
[ -d "$ZOO" ] || { echo "bench/d2r.sh: no Topology Zoo at $ZOO" >&2; exit 2; }
mkdir -p "$OUT"

# run_one STUDY GRAPH-FILE: one `jigsaw d2r` run; a failure leaves DIR/error.txt.
run_one() {
  local study="$1" file="$2" name fail policy
  name="$(basename "$file" .graphml)"
  case "$study" in
    single) fail="each-link:$LINKS"; policy=shortest ;;
    policy) fail="each-link:$POLICY_LINKS"; policy="$POLICY" ;;
    double) fail="pairs:$PAIRS"; policy="$POLICY" ;;
  esac
  local dir="$OUT/$study/$name"
  mkdir -p "$dir"
  rm -f "$dir/error.txt"
  if ! /usr/bin/time -f "%e %U %S" -o "$dir/time.txt" build/jigsaw d2r --quiet --topology "$file" --fail "$fail" --policy "$policy" \
      --traffic "$TRAFFIC" --max-flows "$MAX_FLOWS" --seed 1 --out "$dir" 2>"$dir/stderr.txt"; then
    cp "$dir/stderr.txt" "$dir/error.txt"
  fi
}
export -f run_one
export OUT LINKS POLICY_LINKS PAIRS TRAFFIC MAX_FLOWS POLICY

for study in $STUDIES; do
  echo "d2r bench: $study study on $(ls "$ZOO"/*.graphml | wc -l) graphs ..." >&2
  start=$(date +%s.%N)
  cpu_start=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
  ls "$ZOO"/*.graphml | xargs -P "$JOBS" -I{} bash -c 'run_one "$0" "$1"' "$study" {}
  wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
  cpu=$(awk -v s="$cpu_start" -v hz="$(getconf CLK_TCK)" \
    '{ printf "%.1f", ($14 + $15 + $16 + $17 - s) / hz }' /proc/$$/stat)
  echo "$wall $cpu" > "$OUT/$study/time.txt"
  echo "d2r bench: $study study: ${wall} s wall, ${cpu} s CPU" >&2
done
python3 bench/d2r_report.py "$OUT" $STUDIES

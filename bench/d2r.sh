#!/usr/bin/env bash
# D2R failure-recovery study (docs/d2r.md) on every Topology Zoo graph: D2R vs a central SDN
# controller, a link-state IGP and LFA fast reroute. Three studies, each one `jigsaw d2r` run per
# graph; bench/d2r_report.py prints the tables (per scheme: median/p99 recovery, packets lost at
# the traffic rate, policy-violation rate, mean stretch) and the graphs that failed to parse.
#   single  every link of every graph fails alone (a seeded sample of LINKS links on larger graphs)
#   policy  the same single failures under waypoint:random+avoid:node:random (POLICY_LINKS links)
#   double  PAIRS seeded random pairs of links fail together, same policy
# Usage: bench/d2r.sh [zoo-dir] [out-dir]
# Environment: LINKS (200), POLICY_LINKS (60), PAIRS (30), TRAFFIC (10000pps), MAX_FLOWS (1000),
# STUDIES ("single policy double"), JOBS (parallel runs, 1), SEEDS ("1": with several, each study
# runs once per seed into STUDY_s<seed> and the report adds the spread over seeds), D2R_BFS (level
# or entry: the data-plane BFS model, docs/d2r.md; level by default), EXTRA (more `jigsaw d2r`
# options), JIGSAW (the binary, build/jigsaw).
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
SEEDS="${SEEDS:-1}"
D2R_BFS="${D2R_BFS:-level}"
EXTRA="${EXTRA:-}"
JIGSAW="${JIGSAW:-build/jigsaw}"
POLICY="waypoint:random+avoid:node:random"
[ -x "$JIGSAW" ] || scripts/build.sh >/dev/null
[ -d "$ZOO" ] || { echo "bench/d2r.sh: no Topology Zoo at $ZOO" >&2; exit 2; }
mkdir -p "$OUT"

# run_one STUDY SEED DIR GRAPH-FILE: one `jigsaw d2r` run; a failure leaves DIR/error.txt.
run_one() {
  local study="$1" seed="$2" study_dir="$3" file="$4" name fail policy
  name="$(basename "$file" .graphml)"
  case "$study" in
    single) fail="each-link:$LINKS"; policy=shortest ;;
    policy) fail="each-link:$POLICY_LINKS"; policy="$POLICY" ;;
    double) fail="pairs:$PAIRS"; policy="$POLICY" ;;
  esac
  local dir="$study_dir/$name"
  mkdir -p "$dir"
  rm -f "$dir/error.txt"
  if ! /usr/bin/time -f "%e %U %S" -o "$dir/time.txt" "$JIGSAW" d2r --quiet --topology "$file" --fail "$fail" --policy "$policy" \
      --traffic "$TRAFFIC" --max-flows "$MAX_FLOWS" --seed "$seed" --d2r-bfs "$D2R_BFS" $EXTRA \
      --out "$dir" 2>"$dir/stderr.txt"; then
    cp "$dir/stderr.txt" "$dir/error.txt"
  fi
}
export -f run_one
export OUT LINKS POLICY_LINKS PAIRS TRAFFIC MAX_FLOWS POLICY D2R_BFS EXTRA JIGSAW

RUNS=""
for study in $STUDIES; do
  for seed in $SEEDS; do
    run="$study"
    [ "$(echo $SEEDS | wc -w)" -gt 1 ] && run="${study}_s$seed"
    RUNS="$RUNS $run"
    echo "d2r bench: $run study (seed $seed, $D2R_BFS BFS) on $(ls "$ZOO"/*.graphml | wc -l) graphs ..." >&2
    mkdir -p "$OUT/$run"
    start=$(date +%s.%N)
    cpu_start=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
    ls "$ZOO"/*.graphml | xargs -P "$JOBS" -I{} bash -c 'run_one "$0" "$1" "$2" "$3"' \
      "$study" "$seed" "$OUT/$run" {}
    wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
    cpu=$(awk -v s="$cpu_start" -v hz="$(getconf CLK_TCK)" \
      '{ printf "%.1f", ($14 + $15 + $16 + $17 - s) / hz }' /proc/$$/stat)
    echo "$wall $cpu" > "$OUT/$run/time.txt"
    echo "d2r bench: $run study: ${wall} s wall, ${cpu} s CPU" >&2
  done
done
python3 bench/d2r_report.py "$OUT" $RUNS

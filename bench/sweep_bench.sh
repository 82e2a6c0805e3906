#!/usr/bin/env bash
# jigsaw sweep benchmark (docs/sweep.md): wall and CPU time of examples/sweep_shockwave.toml (every sim
# policy x shockwave_120/220/460 x 3 seeds = 117 runs) from scratch, the resume of the complete
# sweep, and (when mpirun is installed) the same sweep sharded over 2 MPI ranks; checks that the
# sharded table equals the local one. Prints a markdown table. Needs ../shared/data.
# Usage: bench/sweep_bench.sh [parallel runs per rank (default: all cores)]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d ../shared/data/traces/shockwave ] || { echo "sweep_bench: ../shared/data absent" >&2; exit 1; }
[ -x build/jigsaw ] || scripts/build.sh >/dev/null
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
PARALLEL=(--parallel "${1:-0}")
timed() {  # label command...
  local start end
  start=$(date +%s.%N)
  /usr/bin/time -f "%U %S" -o "$OUT/cpu" "${@:2}" >/dev/null 2>"$OUT/log" || {
    cat "$OUT/log" >&2
    exit 1
  }
  end=$(date +%s.%N)
  read -r user sys <"$OUT/cpu"
  awk -v l="$1" -v s="$start" -v e="$end" -v u="$user" -v y="$sys" \
    'BEGIN { printf "| %s | %.1f | %.1f |\n", l, e - s, u + y }'
}
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| step | wall s | CPU s (user+sys, incl. runs) |"
echo "|---|---|---|"
timed "117 runs from scratch" build/jigsaw sweep examples/sweep_shockwave.toml \
  --out "$OUT/local" "${PARALLEL[@]}"
timed "resume (all complete)" build/jigsaw sweep examples/sweep_shockwave.toml \
  --out "$OUT/local" "${PARALLEL[@]}"
if command -v mpirun >/dev/null; then
  root=()
  [ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
  timed "117 runs, mpirun -np 2" mpirun "${root[@]}" --oversubscribe -np 2 build/jigsaw sweep \
    examples/sweep_shockwave.toml --out "$OUT/mpi" "${PARALLEL[@]}"
  cmp -s "$OUT/local/runs.csv" "$OUT/mpi/runs.csv" && same=yes || same=NO
  echo
  echo "MPI table identical to the local one: $same"
fi

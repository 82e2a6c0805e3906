#!/usr/bin/env bash
# Scheduling at production scale: every policy on the whole Philly-derived trace
# (82,247 jobs) on 2,048 GPUs (offered load 0.18) and on contended clusters (512 GPUs: load
# 0.73; 256 GPUs: load 1.46, an overloaded queue that grows until arrivals stop), one run at a
# time, single-threaded. The co-locating planners also run on the trace typed with Gavel's job
# types (type-less jobs cannot share GPUs). Prints a markdown table: wall and user CPU seconds and
# peak RSS (/usr/bin/time -v), makespan, average and p99 JCT, jobs finished. A run is stopped
# after `limit` CPU seconds (ulimit -t: on a shared machine wall time measures the others' load
# too) or 10x that in wall time; the table then says how far it got.
# Usage: bench/philly_scale.sh [shared-data-dir] [limit CPU s per run, default 600] [GPU counts...]
# POLICIES="fifo shockwave ..." runs only those (type-less); TYPED="jigsaw ..." sets the typed rows
# (default: the four co-locating planners at 2,048 GPUs, jigsaw on contended clusters).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
DATA="${1:-$DATA}"
LIMIT="${2:-600}"
shift $(($# > 2 ? 2 : $#))
SIZES="${*:-2048 512 256}"
bench_need_binary
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
TRACE="$DATA/traces/philly/philly.csv"
TABLES="--throughputs $DATA/throughputs/shockwave_tacc_throughputs.json \
  --colocation-throughputs $DATA/throughputs/gavel_simulation_throughputs.json"
tv() { awk -F': ' -v k="$2" '$1 ~ k { print $2 }' "$1"; }

echo "| GPUs | policy | workload | wall s | user CPU s | peak RSS MB | makespan s | avg JCT s | p99 JCT s | jobs done | rounds |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
run() {  # gpus policy label extra-args...
  local gpus="$1" policy="$2" label="$3"
  shift 3
  local dir="$OUT/run"
  rm -rf "$dir"
  local rc=0
  # shellcheck disable=SC2016  # the inner shell expands $1 and $@
  /usr/bin/time -v -o "$OUT/time" bash -c 'ulimit -t "$1"; shift; exec "$@"' limit "$LIMIT" \
    timeout "$((10 * LIMIT))" "$JIGSAW" sim --trace "$TRACE" --gpus "$gpus" \
    --policy "$policy" --round-log delta --out "$dir" "$@" 2>"$OUT/err" || rc=$?
  local wall user rss
  wall=$(tv "$OUT/time" "Elapsed \\(wall clock\\)" | awk -F: '{ s = 0; for (i = 1; i <= NF; ++i) s = s * 60 + $i; printf "%.1f", s }')
  user=$(tv "$OUT/time" "User time")
  rss=$(tv "$OUT/time" "Maximum resident set size" | awk '{ printf "%.0f", $1 / 1024 }')
  if [ "$rc" -ne 0 ] || [ ! -f "$dir/summary.json" ]; then
    local reached
    reached=$(grep -o 'round [0-9]*, t=[0-9]* s, [0-9]*/[0-9]* jobs done, [0-9]* active' "$OUT/err" |
      tail -1 || true)
    printf "| %s | %s | %s | %s (stopped) | %s | %s | - | - | - | %s | - |\n" "$gpus" "$policy" \
      "$label" "$wall" "$user" "$rss" "${reached:-?}"
    return
  fi
  local s="$dir/summary.json"
  printf "| %s | %s | %s | %s | %s | %s | %.0f | %.0f | %.0f | %s/%s | %s |\n" "$gpus" "$policy" \
    "$label" "$wall" "$user" "$rss" "$(json_field "$s" makespan_s)" "$(json_field "$s" avg_jct_s)" \
    "$(json_field "$s" p99_jct_s)" "$(json_field "$s" jobs_finished)" "$(json_field "$s" jobs)" \
    "$(json_field "$s" rounds)"
}
for gpus in $SIZES; do
  for policy in ${POLICIES:-fifo srtf las min_total_duration max_min_fairness \
    finish_time_fairness gandiva_fair allox max_sum_throughput shockwave packing spb_only jigsaw}; do
    run "$gpus" "$policy" "type-less"
  done
  typed="shockwave packing spb_only jigsaw"
  [ "$gpus" -lt 2048 ] && typed="jigsaw"  # contended: the type-less rows cover the others
  typed="${TYPED-$typed}"
  for policy in $typed; do
    # shellcheck disable=SC2086
    run "$gpus" "$policy" "typed (seed 0)" $TABLES --assign-job-types 0
  done
done

#!/usr/bin/env bash
# The RoCE CC study with the reaction counters (rate cuts, PFC head-of-line
# victims) on workloads that can engage congestion control, several seeds where the workload is
# random (background arrivals, job placement), on the study's 128-host Clos (8 ToR x 16 hosts,
# 8 spines, 200 Gbps, 2:1), generated Clos fabrics of 1:1 / 2:1 / 4:1, and fat-trees k=8
# (128 hosts, 100 Gbps, 1:1) and k=16 (1024 hosts).
# Rows (R = random, run for every seed; others once, seed 1):
#   gpt-aligned       GPT-sized gradients in buckets: the last 2 of the 60 25-MB buckets of a
#                     1.5 GB model (gradient all-reduce 8x16 rings, 110 us of compute per pass per
#                     bucket), alone
#   gpt-bg30 (R)      the same under Poisson web-search background at 30% of every host link
#   allreduce-bg30 (R) the study's 1 MiB micro all-reduce under the same background
#   2jobs-block       GPT buckets (64 hosts, 8x8) + DLRM/MoE-style 4 MiB all-to-all (64 hosts),
#                     each job on whole racks
#   2jobs-random (R)  the same two jobs on a seeded random placement (jobs straddle racks)
#   a2a4MiB-spinesN   4 MiB all-to-all on 8 leaves x 16 hosts with 16 / 8 / 4 spines (1:1..4:1)
#   ft8-2jobs-random (R)  the two jobs, random placement, fat-tree k=8
#   ft16-allreduce-bg30 (R)  1 MiB all-reduce (16x64 rings) + 30% web search for 100 us, k=16
# Usage: bench/net/study_reaction.sh [out_dir]   env: SEEDS ("1 2 3"), MODES ("none dcqcn hpcc"),
#   JOBS (parallel runs, 2), ROWS (a regex of row names to run, default all); runs already in
#   out_dir are skipped (resume). Runs under nice -n 5;
#   about 25 CPU-minutes with the defaults; not in CI. Writes <out>/table.md and <out>/cpu.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${1:-bench/net/results/study_reaction}"
DATA="${JIGSAW_SHARED_DATA:-../shared/data}"
CLOS="$DATA/topologies/clos/128_nodes_16_switch_topology.txt"
W="$DATA/workloads/astra"
BIN=./build/jigsaw
SEEDS="${SEEDS:-1 2 3}"
MODES="${MODES:-none dcqcn hpcc}"
ROWS="${ROWS:-.}"
mkdir -p "$OUT"
# GPT buckets: 2 buckets of 25,000,000 B (a 1.5 GB fp16 model has 60), compute in 1 GHz cycles.
printf 'DATA\n2\nbucket1 -1 110000 NONE 0 110000 NONE 0 110000 ALLREDUCE 25000000 0\nbucket0 -1 110000 NONE 0 110000 NONE 0 110000 ALLREDUCE 25000000 0\n' \
  > "$OUT/gpt_buckets.txt"
printf 'MICRO\n1\nconv1 -1 5 NONE 0 5 NONE 0 5 ALLTOALL 4194304 5\n' > "$OUT/alltoall4MiB.txt"
GPT="--workload $OUT/gpt_buckets.txt"
A2A="--workload $OUT/alltoall4MiB.txt"
BG="--background websearch --background-load 30%"
LIST="$OUT/runs.$$.txt"  # per invocation: several may resume into one out_dir at once
: > "$LIST"
add() {  # name random(0/1) args...
  local name=$1 random=$2; shift 2
  echo "$name" | grep -Eq "$ROWS" || return 0
  local seeds=1
  [ "$random" = 1 ] && seeds="$SEEDS"
  for seed in $seeds; do
    for cc in $MODES; do
      # Resumable: a run whose summary.json exists is not repeated.
      [ -f "$OUT/$name-$cc-s$seed/summary.json" ] && continue
      echo "$name-$cc-s$seed --cc $cc --seed $seed $*" >> "$LIST"
    done
  done
}
add 2jobs-block 0 --topology "$CLOS" $GPT $A2A --dims 8x8 --placement block --chunks 1
add 2jobs-random 1 --topology "$CLOS" $GPT $A2A --dims 8x8 --placement random --chunks 1
add gpt-aligned 0 --topology "$CLOS" $GPT --dims 8x16
add gpt-bg30 1 --topology "$CLOS" $GPT --dims 8x16 $BG --background-duration 500us
add allreduce-bg30 1 --topology "$CLOS" --workload "$W/microAllReduce.txt" --dims 8x16 $BG \
  --background-duration 300us
for spines in 16 8 4; do
  add "a2a4MiB-spines$spines" 0 --topology "clos:leaves=8,spines=$spines,hosts=16,rate=200Gbps" \
    $A2A --chunks 1
done
add ft8-2jobs-random 1 --topology fattree:k=8,rate=100Gbps,delay=1us $GPT $A2A --dims 8x8 \
  --placement random --chunks 1
add ft16-allreduce-bg30 1 --topology fattree:k=16,rate=100Gbps,delay=1us \
  --workload "$W/microAllReduce.txt" --dims 16x64 $BG --background-duration 100us
echo "study_reaction: $(wc -l < "$LIST") runs, ${JOBS:-2} at a time" >&2
# One run: its user+system CPU seconds go to cpu.txt; exit 3 (unfinished) still writes results.
export BIN OUT
xargs -r -P "${JOBS:-2}" -L 1 sh -c '
  name=$0
  /usr/bin/time -f "$name %U %S" -a -o "$OUT/cpu.txt" nice -n 5 "$BIN" net --quiet \
    --out "$OUT/$name" "$@" || echo "$name: exit $?" >&2
  echo "done $name" >&2' < "$LIST"
python3 - "$OUT" <<'PY'
import json, os, re, sys
out = sys.argv[1]
runs = {}
for name in sorted(os.listdir(out)):
    m = re.fullmatch(r"(.+)-(none|dcqcn|dctcp|timely|hpcc)-s(\d+)", name)
    path = os.path.join(out, name, "summary.json")
    if not m or not os.path.exists(path):
        continue
    runs.setdefault((m[1], m[2]), {})[int(m[3])] = json.load(open(path))

def stat(values, fmt):
    values = [v for v in values if v is not None]
    if not values:
        return "n/a"
    mean = sum(values) / len(values)
    if len(values) == 1 or min(values) == max(values):
        return fmt.format(mean)
    return (fmt + " ({}..{})").format(mean, fmt.format(min(values)), fmt.format(max(values)))

cols = ["row", "cc", "seeds", "iteration us (per job)", "vs none %", "slowdown p50", "slowdown p99",
        "pause us", "blocked flows", "HoL victims", "max queue KB", "ECN marks", "rate cuts",
        "flows cut", "unfinished"]
lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
order = ["none", "dcqcn", "dctcp", "timely", "hpcc"]
for row in sorted({r for r, _ in runs}):
    for cc in [c for c in order if (row, c) in runs]:
        by_seed = runs[(row, cc)]
        seeds = sorted(by_seed)
        ss = [by_seed[s] for s in seeds]
        jobs = max(len(s.get("jobs", [])) for s in ss)
        its = " / ".join(stat([s["jobs"][j]["iteration_time_us"] for s in ss], "{:.1f}")
                         for j in range(jobs))
        # Paired with cc none on the same seed (same background and placement).
        base = runs.get((row, "none"), {})
        deltas = []
        for j in range(jobs):
            d = [100 * (by_seed[s]["jobs"][j]["iteration_time_us"] /
                        base[s]["jobs"][j]["iteration_time_us"] - 1)
                 for s in seeds if s in base]
            deltas.append(stat(d, "{:+.1f}") if cc != "none" else "")
        n = lambda k: [s["network"][k] for s in ss]
        f = lambda k: [s["flows"][k] for s in ss]
        cells = [row, cc, str(len(seeds)), its, " / ".join(deltas),
                 stat(f("slowdown_p50"), "{:.3f}"), stat(f("slowdown_p99"), "{:.2f}"),
                 stat(n("pfc_pause_time_us"), "{:.0f}"), stat(n("pfc_blocked_flows"), "{:.0f}"),
                 stat(n("hol_victim_flows"), "{:.0f}"),
                 stat([v / 1e3 for v in n("max_queue_bytes")], "{:.0f}"),
                 stat(n("ecn_marks"), "{:.0f}"), stat(n("rate_cuts"), "{:.0f}"),
                 stat(n("rate_cut_flows"), "{:.0f}"), stat(f("unfinished"), "{:.0f}")]
        lines.append("| " + " | ".join(cells) + " |")
text = "\n".join(lines) + "\n"
open(os.path.join(out, "table.md"), "w").write(text)
print(text)
cpu = [l.split() for l in open(os.path.join(out, "cpu.txt")) if len(l.split()) == 3]
print(f"CPU: {sum(float(u) + float(s) for _, u, s in cpu) / 60:.1f} min over {len(cpu)} runs")
PY

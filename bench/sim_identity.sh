#!/usr/bin/env bash
# Byte-identity check for simulator speed work: runs every policy with a reference
# binary and a candidate binary on Shockwave's traces (120 jobs / 32 GPUs TACC, 220 / 64 and
# 460 / 128 WISR, with their configs and Gavel's co-location table) and on a contended, typed
# Philly stream (CONTENDED=1, the default: 3,000 jobs at load ~1.5 on 64 GPUs) and a Gavel-style
# heterogeneous cluster (HETERO=1, the default: 400 jobs on v100:36,p100:36,k80:36), and diffs
# summary.json (without its wall-clock keys), jobs.csv and rounds.csv. Prints one line per run and
# exits 1 if any output differs.
# Usage: bench/sim_identity.sh REFERENCE_BINARY [CANDIDATE_BINARY, default build/jigsaw]
#        [shared-data-dir, default ../shared/data]
# POLICIES="fifo shockwave ..." restricts the policies.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ]; then
  echo "usage: bench/sim_identity.sh REFERENCE_BINARY [CANDIDATE_BINARY] [shared-data-dir]" >&2
  exit 2
fi
REF="$1"
NEW="${2:-build/jigsaw}"
[ $# -ge 3 ] && DATA="$3"
source bench/lib.sh
identity_binaries sim_identity "$REF" "$NEW"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
GAVEL="$DATA/throughputs/gavel_simulation_throughputs.json"

# label, then the sim arguments
CASES="shockwave_120 --trace $DATA/traces/shockwave/shockwave_120.trace --throughputs $DATA/throughputs/shockwave_tacc_throughputs.json --gpus 32 --shockwave-config $DATA/configs/shockwave/tacc_32gpus.json
shockwave_220 --trace $DATA/traces/shockwave/shockwave_220.trace --throughputs $DATA/throughputs/shockwave_wisr_throughputs.json --gpus 64 --shockwave-config $DATA/configs/shockwave/scale_64gpus.json
shockwave_460 --trace $DATA/traces/shockwave/shockwave_460.trace --throughputs $DATA/throughputs/shockwave_wisr_throughputs.json --gpus 128 --shockwave-config $DATA/configs/shockwave/scale_128gpus.json"
if [ "${CONTENDED:-1}" = 1 ]; then
  CASES="$CASES
philly_stream_64 --trace $DATA/traces/philly/philly.csv --throughputs $DATA/throughputs/shockwave_tacc_throughputs.json --assign-job-types 0 --seed 0 --arrival-rate-jph 50 --stream-jobs 3000 --gpus 64"
fi
if [ "${HETERO:-1}" = 1 ]; then  # Gavel-style heterogeneous cluster (docs/heterogeneous.md)
  python3 bench/hetero_trace.py "$GAVEL" 400 1 >"$OUT/hetero.trace"
  CASES="$CASES
hetero_108 --trace $OUT/hetero.trace --trace-format gavel --throughputs $GAVEL --cluster-spec v100:36,p100:36,k80:36 --round-s 360 --deadline-factor 0 --preemption-overhead-s 0 --arrival-rate-jph 6 --stream-jobs 400 --seed 1"
fi
POLICIES="${POLICIES:-fifo srtf las las_perf min_total_duration max_min_fairness \
max_min_fairness_perf finish_time_fairness gandiva_fair allox max_sum_throughput shockwave \
packing jigsaw spb_only}"

failed=0
while read -r label args; do
  for policy in $POLICIES; do
    for side in ref new; do
      bin="$REF"
      [ "$side" = new ] && bin="$NEW"
      # shellcheck disable=SC2086  # args is a word list
      "$bin" sim --quiet --round-log full --colocation-throughputs "$GAVEL" $args \
        --policy "$policy" --out "$OUT/$side" 2>"$OUT/$side.err" || echo "exit $?" >>"$OUT/$side.err"
    done
    status=identical
    [ -f "$OUT/ref/summary.json" ] && [ -f "$OUT/new/summary.json" ] || status="NO OUTPUT"
    for f in jobs.csv rounds.csv; do
      cmp -s "$OUT/ref/$f" "$OUT/new/$f" 2>/dev/null || status="DIFFERS ($f)"
    done
    cmp -s <(identity_summary "$OUT/ref/summary.json" 2>&1) \
      <(identity_summary "$OUT/new/summary.json" 2>&1) ||
      status="DIFFERS (summary.json)"
    identity_same_stderr "$OUT/ref.err" "$OUT/new.err" || status="$status, stderr differs"
    [ "$status" = identical ] || failed=1
    echo "$label $policy: $status"
    rm -rf "$OUT/ref" "$OUT/new"
  done
done <<<"$CASES"
exit "$failed"

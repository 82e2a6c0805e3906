#!/usr/bin/env bash
# TensorLights benchmark: K parameter-server jobs co-located on one PS host, workers on
# other hosts, every host a network namespace behind a rate-limited veth link (needs root).
# Runs fifo, static, rotate (every INTERVAL) and rotate:20s (TensorLights' default interval)
# (REPS repetitions, policies interleaved within each) with bench/tensorlights/run.sh and
# prints the table: average JCT, per-job JCT, per-iteration straggler spread, change vs fifo.
# Usage: bench/tensorlights.sh   (env: JIGSAW=build/jigsaw REPS=5 JOBS=3 WORKERS=3 ITERS=30
#          BATCH=32 RATE=200mbit INTERVAL=5s POLICIES="fifo static rotate rotate:20s"
#          KEEP=dir to keep the outputs; extra arguments are passed to run.sh)
#        SCALE=paper bench/tensorlights.sh   (21 jobs x 20 timed workers, PS placement swept;
#          env: PLACEMENTS="1 3 7 21" ITERS=20 RATE=1gbit COMPUTE_MS=20 COMPUTE_SAMPLES=csv REPS=1;
#          repetitions are the outer loop, KEEP=dir keeps every run for a later tlights-report)
set -euo pipefail
cd "$(dirname "$0")/.."
JIGSAW="${JIGSAW:-build/jigsaw}"
[ -x "$JIGSAW" ] || scripts/build.sh >/dev/null
OUT="${KEEP:-$(mktemp -d)}"
mkdir -p "$OUT"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$OUT"' EXIT
# A private copy, so a concurrent rebuild cannot swap the binaries under the experiment
# (`jigsaw ps-worker` runs the sibling jigsaw-runtime).
cp "$JIGSAW" "$(dirname "$JIGSAW")/jigsaw-runtime" "$OUT/"
if [ "${SCALE:-}" = paper ]; then
  # The paper's scale: JOBS=21 jobs x WORKERS=20 torch-free timed workers (ResNet-32's
  # 464,154 parameters, compute COMPUTE_MS or drawn from COMPUTE_SAMPLES, a ps-worker CSV),
  # the PS placement swept from all on one host to one per host (PLACEMENTS = PS host counts).
  # Repetitions are the outer loop (rep r of every placement and policy before rep r+1), so that
  # slow drifts of the machine's load hit every configuration alike and a cut-short sweep still
  # has complete repetitions; each placement's table is printed at the end (avg JCT and straggler
  # spread with their min-max over repetitions); run.sh rotates the policy order per repetition.
  samples=()
  [ -z "${COMPUTE_SAMPLES:-}" ] || samples=(--compute-samples "$COMPUTE_SAMPLES")
  for ((rep = 0; rep < ${REPS:-1}; rep++)); do
    for hosts in ${PLACEMENTS:-1 3 7 21}; do
      echo "## rep $rep: $hosts PS host(s)" >&2
      bench/tensorlights/run.sh --jigsaw "$OUT/jigsaw" --out "$OUT/ps_hosts_$hosts" \
        --reps 1 --first-rep "$rep" --no-report --jobs "${JOBS:-21}" --workers "${WORKERS:-20}" \
        --iters "${ITERS:-20}" --rate "${RATE:-1gbit}" --interval "${INTERVAL:-5s}" \
        --policies "${POLICIES:-fifo static rotate}" --worker timed --ps-hosts "$hosts" \
        --parameters "${PARAMETERS:-464154}" --compute-ms "${COMPUTE_MS:-20}" "${samples[@]}" "$@"
    done
  done
  for hosts in ${PLACEMENTS:-1 3 7 21}; do
    echo "## $hosts PS host(s)"
    "$OUT/jigsaw" tlights-report --dir "$OUT/ps_hosts_$hosts"
  done
  exit 0
fi
bench/tensorlights/run.sh --jigsaw "$OUT/jigsaw" --out "$OUT/runs" --reps "${REPS:-5}" \
  --jobs "${JOBS:-3}" --workers "${WORKERS:-3}" --iters "${ITERS:-30}" --batch "${BATCH:-32}" \
  --rate "${RATE:-200mbit}" --interval "${INTERVAL:-5s}" \
  --policies "${POLICIES:-fifo static rotate rotate:20s}" "$@"

#!/usr/bin/env bash
# TensorLights benchmark (issue 7): K parameter-server jobs co-located on one PS host, workers on
# other hosts, every host a network namespace behind a rate-limited veth link (needs root).
# Runs fifo, static, rotate (every INTERVAL) and rotate:20s (TensorLights' default interval)
# (REPS repetitions, policies interleaved within each) with bench/tensorlights/run.sh and
# prints the table: average JCT, per-job JCT, per-iteration straggler spread, change vs fifo.
# Usage: bench/tensorlights.sh   (env: JIGSAW=build/jigsaw REPS=5 JOBS=3 WORKERS=3 ITERS=30
#          BATCH=32 RATE=200mbit INTERVAL=5s POLICIES="fifo static rotate rotate:20s"
#          KEEP=dir to keep the outputs; extra arguments are passed to run.sh)
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
bench/tensorlights/run.sh --jigsaw "$OUT/jigsaw" --out "$OUT/runs" --reps "${REPS:-5}" \
  --jobs "${JOBS:-3}" --workers "${WORKERS:-3}" --iters "${ITERS:-30}" --batch "${BATCH:-32}" \
  --rate "${RATE:-200mbit}" --interval "${INTERVAL:-5s}" \
  --policies "${POLICIES:-fifo static rotate rotate:20s}" "$@"

#!/usr/bin/env bash
# The fuzz campaign, longer than ctest's: the seeded mutation harness over every
# reader (tests/fuzz/fuzz_harness.cc; INPUTS per area, SEED) and the sweep of absurd
# command-line values (bench/cli_fuzz.sh). Prints both tables; exit 1 on any crash, hang or
# silently wrong result. With BUILD=build-asan it runs the sanitizer build's binaries
# (scripts/sanitize.sh builds them and calls this).
# Usage: bench/fuzz.sh   (env: INPUTS=1000 SEED=1 BUILD=build TIMEOUT_S=120 SAVE=dir CLI=1)
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD="${BUILD:-build}"
INPUTS="${INPUTS:-1000}"
SEED="${SEED:-1}"
TIMEOUT_S="${TIMEOUT_S:-120}"
[ -x "$BUILD/tests/jigsaw_fuzz" ] || { echo "fuzz.sh: build $BUILD first" >&2; exit 2; }
echo "## Mutated inputs per reader: $BUILD, $INPUTS per area, seed $SEED"
echo
"$BUILD/tests/jigsaw_fuzz" --inputs "$INPUTS" --seed "$SEED" --timeout-s "$TIMEOUT_S" \
  ${SAVE:+--save "$SAVE"}
status=$?
if [ "${CLI:-1}" = 1 ]; then
  echo
  echo "## Absurd command-line values: $BUILD/jigsaw"
  echo
  TIMEOUT_S="$TIMEOUT_S" bench/cli_fuzz.sh "$BUILD/jigsaw" || status=1
fi
exit $status

#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer build of everything into build-asan/, then the
# whole test suite and the fuzz corpus under the sanitizers. Any report aborts the
# process (abort_on_error / halt_on_error), so a test or a fuzz input that triggers one fails.
# Usage: scripts/sanitize.sh   (env: JOBS=2 FUZZ_INPUTS=400 per area, TESTS=1, FUZZ=1)
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/jigsaw-ccache}"
export CCACHE_BASEDIR="$PWD"
export CCACHE_NOHASHDIR=1
FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="$FLAGS" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DJIGSAW_FUZZ_INPUTS="${CTEST_FUZZ_INPUTS:-60}" >/dev/null
cmake --build build-asan -j "${JOBS:-2}"
# Leak reports are off: LibTorch and Gloo keep allocations until exit by design, and leaks are
# not what this run is about; every other report is fatal.
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=0:detect_stack_use_after_return=0"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"
status=0
if [ "${TESTS:-1}" = 1 ]; then
  ctest --test-dir build-asan --output-on-failure -j "${JOBS:-2}" --timeout 1500 || status=1
fi
if [ "${FUZZ:-1}" = 1 ]; then
  BUILD=build-asan INPUTS="${FUZZ_INPUTS:-400}" SEED="${SEED:-20240612}" bench/fuzz.sh || status=1
fi
exit $status

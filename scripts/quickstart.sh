#!/usr/bin/env bash
# Fresh Debian 12 machine -> the main job run: installs only what `jigsaw` needs
# (scripts/setup.sh --minimal), configures without LibTorch and the tests, builds only the
# `jigsaw` target and runs `jigsaw sim` on the embedded default workload. scripts/test.sh installs
# and builds the rest (in the same build folder, reusing what this compiled).
# Extra arguments go to `jigsaw sim` (e.g. --policy shockwave).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --minimal
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/jigsaw-ccache}"
export CCACHE_BASEDIR="$PWD"
export CCACHE_NOHASHDIR=1
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DJIGSAW_WITH_TORCH=OFF \
  -DJIGSAW_BUILD_TESTS=OFF >/dev/null
cmake --build build -j "${JIGSAW_BUILD_JOBS:-$(nproc)}" --target jigsaw
./build/jigsaw sim --out out/quickstart "$@"
echo "summary: out/quickstart/summary.json"
cat out/quickstart/summary.json

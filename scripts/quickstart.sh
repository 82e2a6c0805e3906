#!/usr/bin/env bash
# Fresh Debian 12 machine -> the main job run: installs only what the cluster simulator needs
# (scripts/setup.sh --minimal), builds `jigsaw` with the cluster simulator's subcommands only, at
# -O1 (-DJIGSAW_QUICKSTART=ON: no other simulator, no LibTorch, no tests) and runs `jigsaw sim`
# on the embedded default workload. scripts/build.sh and scripts/test.sh install and build
# everything, at -O3, in the same build folder.
# Extra arguments go to `jigsaw sim` (e.g. --policy shockwave).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --minimal
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/jigsaw-ccache}"
export CCACHE_BASEDIR="$PWD"
export CCACHE_NOHASHDIR=1
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DJIGSAW_QUICKSTART=ON \
  -DJIGSAW_WITH_TORCH=OFF -DJIGSAW_BUILD_TESTS=OFF >/dev/null
cmake --build build -j "${JIGSAW_BUILD_JOBS:-$(nproc)}" --target jigsaw
./build/jigsaw sim --out out/quickstart "$@"
echo "summary: out/quickstart/summary.json"
cat out/quickstart/summary.json

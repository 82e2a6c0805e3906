#!/usr/bin/env bash
# Configures and builds into ./build (Release, ccache when present): everything, the tests and
# jigsaw-runtime (LibTorch) included. scripts/quickstart.sh's build in the same folder (the cluster
# simulator alone, at -O1) is replaced.
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/jigsaw-ccache}"
# Path-independent cache keys, so a fresh clone elsewhere reuses earlier compilations.
export CCACHE_BASEDIR="$PWD"
export CCACHE_NOHASHDIR=1
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DJIGSAW_QUICKSTART=OFF -DJIGSAW_WITH_TORCH=ON \
  -DJIGSAW_BUILD_TESTS=ON >/dev/null
# JIGSAW_BUILD_JOBS limits parallel compiles (LibTorch units need ~1.5 GB each).
cmake --build build -j "${JIGSAW_BUILD_JOBS:-$(nproc)}"

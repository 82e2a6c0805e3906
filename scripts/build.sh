#!/usr/bin/env bash
# Configures and builds into ./build (Release, ccache when present).
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/jigsaw-ccache}"
# Path-independent cache keys, so a fresh clone elsewhere reuses earlier compilations.
export CCACHE_BASEDIR="$PWD"
export CCACHE_NOHASHDIR=1
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
# JIGSAW_BUILD_JOBS limits parallel compiles (LibTorch units need ~1.5 GB each).
cmake --build build -j "${JIGSAW_BUILD_JOBS:-$(nproc)}"

#!/usr/bin/env bash
# Configures and builds into ./build (Release, ccache when present).
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/jigsaw-ccache}"
# Path-independent cache keys, so a fresh clone elsewhere reuses earlier compilations.
export CCACHE_BASEDIR="$PWD"
export CCACHE_NOHASHDIR=1
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"

#!/usr/bin/env bash
# Fresh machine -> installed, built, and the main job run on the embedded default trace.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
./build/jigsaw sim --out out/quickstart "$@"
echo "summary: out/quickstart/summary.json"
cat out/quickstart/summary.json

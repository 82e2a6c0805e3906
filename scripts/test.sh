#!/usr/bin/env bash
# Fresh machine -> installed, built, and every unit/integration test run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"

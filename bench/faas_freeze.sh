#!/usr/bin/env bash
# Pause/resume latency of one real sandbox process (`jigsaw faas-sandbox`) with each mechanism this
# host offers: the cgroup v2 freezer (cgroup.freeze, what runc uses on v2), the cgroup v1 freezer
# (freezer.state) and SIGSTOP/SIGCONT. Needs root for the cgroup rows (else they say unavailable).
# Prints a markdown table (docs/results/faas.md, entry E: "The resume cost from evidence").
#   ROUNDS=1000 bench/faas_freeze.sh          (about 20 s wall, 4 CPU-s)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-1000}
CODE=${CODE:-sha256:64KiB}
[[ -x build/jigsaw ]] || { echo "build/jigsaw missing: run scripts/build.sh first" >&2; exit 2; }
probe=$(mktemp -d "/tmp/faas_freeze.$$.XXXX")
trap 'rm -rf "$probe"' EXIT
${CXX:-c++} -O2 -std=c++20 -o "$probe/probe" bench/faas_freeze_probe.cc
echo "host: $(uname -r), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$probe/probe" build/jigsaw "$ROUNDS" "$CODE"

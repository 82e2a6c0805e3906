#!/usr/bin/env bash
# The reduced protocol: SPB on ResNet-20 / CIFAR-10 sized for this project's 2-core CPU machine,
# for when no GPU machine is lent (the GPU protocol is bench/device/evidence.sh: 3 seeds, 30
# epochs). Full backpropagation against the default `--spb adaptive` (no adaptive option pinned:
# whatever the binary's defaults are), 4 workers x batch 32 (the GPU protocol's), seeds 0 and 1,
# 6 epochs, cosine schedule; bench/spb_bench.sh runs it (resumable: finished runs are skipped)
# and prints its table, titled "reduced protocol".
#
# Time: estimated from a short measured run (docs/runtime.md "The reduced protocol"): about 2.5
# hours of this machine at nice 10 while other work goes on. Run it in the background:
#   nohup bench/spb_reduced.sh > out/spb_reduced.txt 2>&1 &
# Env: SEEDS ("0 1"), EPOCHS (6), WORKERS (4), RUNS (out/spb_reduced), WRITE_EFFICIENCY=1 (merge
#      the efficiencies into data/spb_statistical_efficiency.json), any bench/spb_bench.sh setting.
set -euo pipefail
cd "$(dirname "$0")/.."
export MODEL=resnet20 SEEDS="${SEEDS:-0 1}" EPOCHS="${EPOCHS:-6}" WORKERS="${WORKERS:-4}"
export RUNS="${RUNS:-out/spb_reduced}" REPEATS="${REPEATS:-0}"
export PROTOCOL="${PROTOCOL:-reduced protocol (CPU, $(nproc) cores)}"
export PLANS="full|--spb full
adaptive|--spb adaptive"
exec nice -n 10 bench/spb_bench.sh

#!/usr/bin/env bash
# The caches on the ResNet-18 that bench/device/evidence.sh trained on a GPU, here on the CPU:
# reassembles resnet18-fp16.pt from its parts, checks every sha256 of resnet18-fp16.sha256,
# turns the float16 weights back into a float32 checkpoint (`jigsaw checkpoint --dtype float32`),
# then runs bench/serve.sh's measurements for the cache kinds KINDS (none, freeze, gati): a fresh
# `jigsaw serve` per kind and stream, driven over HTTP on loopback by `jigsaw serve-bench`.
# Prints bench/serve.sh's table, then the two cache figures per seed and stream:
#   Freeze: share of requests answered after half the blocks or fewer, and agreement with the
#           full model;
#   GATI:   mean latency of `none` / mean latency of `gati`, and GATI's agreement.
# Usage: bench/device/from_checkpoint.sh DIR   (DIR: the returned files, e.g. the device tool's
#        files_at; or a folder holding resnet18-fp16.pt.part* and resnet18-fp16.sha256)
#   env: KEEP (folder for every output; default out/from_checkpoint), JIGSAW (build/jigsaw),
#        KINDS ("none freeze gati"), and bench/serve.sh's REQUESTS RATE CONNECTIONS CALIB COUNT
#        SEEDS SERVE_ARGS (defaults below: a ResNet-18 request costs tens of ms on one core).
set -euo pipefail
cd "$(dirname "$0")/../.."
SRC="${1:?usage: bench/device/from_checkpoint.sh DIR}"
DEST="${KEEP:-out/from_checkpoint}"
JIGSAW="${JIGSAW:-build/jigsaw}"
export JIGSAW KEEP="$DEST/serve"
export KINDS="${KINDS:-none freeze gati}" REQUESTS="${REQUESTS:-300}" RATE="${RATE:-5}"
export CALIB="${CALIB:-2000}" COUNT="${COUNT:-1000}" SEEDS="${SEEDS:-1 2}"
[ -x "$JIGSAW" ] || scripts/build.sh >/dev/null
mkdir -p "$DEST/serve"
ls "$SRC"/resnet18-fp16.pt.part* >/dev/null
cat "$SRC"/resnet18-fp16.pt.part* >"$DEST/resnet18-fp16.pt"
cp "$SRC"/resnet18-fp16.pt.part* "$SRC/resnet18-fp16.sha256" "$DEST/"
(cd "$DEST" && sha256sum -c resnet18-fp16.sha256)
"$JIGSAW" checkpoint --input "$DEST/resnet18-fp16.pt" --output "$DEST/resnet18.pt" \
  --dtype float32
bench/serve.sh "$DEST/resnet18.pt" cifar10 | tee "$DEST/table.md"

echo
echo "| seed | stream | Freeze: <= half the blocks | Freeze agreement | GATI: none ms / gati ms |" \
  "GATI agreement |"
echo "|---|---|---|---|---|---|"
for seed in $SEEDS; do
  for stream in zipf uniform; do
    python3 - "$KEEP" "$seed" "$stream" <<'EOF'
import json, os, sys
root, seed, stream = sys.argv[1:]
def summary(kind):
    path = os.path.join(root, f"{kind}-{stream}-{seed}", "summary.json")
    return json.load(open(path)) if os.path.exists(path) else None
none, freeze, gati = summary("none"), summary("freeze"), summary("gati")
def f(x, d=4):
    return "-" if x is None else f"{x:.{d}f}"
speedup = none["mean_ms"] / gati["mean_ms"] if none and gati else None
print(f"| {seed} | {stream} | {f(freeze and freeze['half_or_fewer'])} | "
      f"{f(freeze and freeze['agreement'])} | {f(speedup, 2)} | {f(gati and gati['agreement'])} |")
EOF
  done
done

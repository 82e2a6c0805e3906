#!/usr/bin/env bash
# Fills .device/ (git-ignored), the one folder a GPU machine's run carries besides the working
# tree (bench/device/evidence.sh), from this machine's Debian packages and the shared data:
#   .device/data/cifar10-jpeg.tar.gz   the CIFAR-10 archive (../shared does not travel)
#   .device/deps/include, deps/lib      CLI11 and nlohmann-json headers, zlib and libjpeg (headers
#                                       and shared libraries), used where the machine lacks them
#   .device/gloo/gloo                   Gloo's headers (PyTorch's wheel ships none), Debian's
#                                       libgloo-dev: ProcessGroupGloo.hpp needs only declarations
#                                       from them (docs/runtime.md "Training on a GPU")
#   .device/COMMIT                      the commit the tree was prepared from
# Checks that the carried folder and the working tree fit the transfer limit (64 MiB together).
# Usage: bench/device/prepare.sh   (env: JIGSAW_DATA_DIR, default ../shared/data)
set -euo pipefail
cd "$(dirname "$0")/../.."
DATA="${JIGSAW_DATA_DIR:-../shared/data}/datasets/cifar10/cifar10-jpeg.tar.gz"
DEV=.device
LIMIT_MB=64
[ -f "$DATA" ] || { echo "prepare: no CIFAR-10 archive at $DATA (set JIGSAW_DATA_DIR)" >&2; exit 2; }
for f in /usr/include/CLI/CLI.hpp /usr/include/nlohmann/json.hpp /usr/include/gloo/context.h \
  /usr/include/zlib.h /usr/include/jpeglib.h; do
  [ -f "$f" ] || { echo "prepare: $f missing (scripts/setup.sh installs it)" >&2; exit 2; }
done
rm -rf "$DEV"
mkdir -p "$DEV/data" "$DEV/deps/include" "$DEV/deps/lib" "$DEV/gloo"
cp "$DATA" "$DEV/data/"
cp -r /usr/include/CLI /usr/include/nlohmann "$DEV/deps/include/"
cp /usr/include/zlib.h /usr/include/zconf.h /usr/include/jpeglib.h /usr/include/jerror.h \
  /usr/include/jmorecfg.h "$DEV/deps/include/"
cp "/usr/include/$(gcc -print-multiarch)/jconfig.h" "$DEV/deps/include/"
# Real files under both names (the link name for the linker, the soname for the loader).
lib="/usr/lib/$(gcc -print-multiarch)"
for name in libz.so libz.so.1; do cp -L "$lib/libz.so.1" "$DEV/deps/lib/$name"; done
for name in libjpeg.so libjpeg.so.62; do cp -L "$lib/libjpeg.so.62" "$DEV/deps/lib/$name"; done
cp -r /usr/include/gloo "$DEV/gloo/"
{
  git rev-parse HEAD 2>/dev/null || echo unknown
  git describe --always --dirty 2>/dev/null || true
} >"$DEV/COMMIT"
carried=$(du -sb "$DEV" | cut -f1)
tree=$( (git ls-files -z; git ls-files -z --others --exclude-standard) | du -cb --files0-from=- |
  tail -1 | cut -f1)
total=$((carried + tree))
echo "prepare: .device $((carried / 1048576)) MiB + working tree $((tree / 1048576)) MiB" \
  "= $((total / 1048576)) MiB of $LIMIT_MB; commit $(head -1 "$DEV/COMMIT")"
[ "$total" -lt $((LIMIT_MB * 1048576)) ] || { echo "prepare: over the transfer limit" >&2; exit 1; }

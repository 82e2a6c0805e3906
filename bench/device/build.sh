#!/usr/bin/env bash
# Builds jigsaw-runtime alone (JIGSAW_RUNTIME_ONLY: train, profile, checkpoint) against the
# machine's LibTorch, into BUILD (default build-device/). On a GPU machine that is PyTorch's
# (python3's torch, a CUDA build); where python3 has no torch (this project's CPU machines) it is
# Debian's, which rehearses the same CMake path. Headers and libraries the machine lacks come from
# the folder bench/device/prepare.sh filled (DEVICE_DIR, default .device).
#
# LibTorch through its CMake package first (torch.utils.cmake_prefix_path); if that configure
# fails (its CUDA checks, say), again with the wheel's folder used directly (JIGSAW_TORCH_DIR).
# Then checks that libstdc++ precedes every LibTorch library in the executable's NEEDED list
# (docs/runtime.md "Training on a GPU") and that the binary starts.
# Env: BUILD, DEVICE_DIR, JOBS (default: all cores), TORCH_DIR (force the direct use of this
# torch/ folder), TORCH_CXX11_ABI (with TORCH_DIR).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD="${BUILD:-build-device}"
DEV="$(realpath "${DEVICE_DIR:-.device}")"
JOBS="${JOBS:-$(nproc)}"
start=$(date +%s)
say() { echo "build [$(($(date +%s) - start)) s]: $*"; }

prefix=""
torch_dir="${TORCH_DIR:-}"
abi="${TORCH_CXX11_ABI:-}"
if python3 -c 'import torch' 2>/dev/null; then
  prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
  [ -n "$torch_dir" ] || auto_dir=$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))')
  [ -n "$abi" ] || abi=$(python3 -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')
  say "python3's torch $(python3 -c 'import torch; print(torch.__version__, torch.version.cuda)')"
else
  say "python3 has no torch: the system's LibTorch"
fi
common=(-S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DJIGSAW_RUNTIME_ONLY=ON
  "-DJIGSAW_DEPS_DIR=$DEV/deps" "-DJIGSAW_GLOO_INCLUDE=$DEV/gloo")
configure_direct() {
  rm -rf "$BUILD"
  cmake "${common[@]}" "-DJIGSAW_TORCH_DIR=$1" ${abi:+"-DJIGSAW_TORCH_CXX11_ABI=$abi"}
}
if [ -n "$torch_dir" ]; then
  configure_direct "$torch_dir"
elif ! cmake "${common[@]}" ${prefix:+"-DCMAKE_PREFIX_PATH=$prefix"} >"/tmp/jigsaw-configure.log" 2>&1; then
  tail -30 /tmp/jigsaw-configure.log
  [ -n "${auto_dir:-}" ] || { say "configure failed"; exit 1; }
  say "configure through TorchConfig failed (above); using $auto_dir directly"
  configure_direct "$auto_dir"
else
  grep -E "Gloo headers|Found Torch|CUDA" "/tmp/jigsaw-configure.log" || true
fi
say "configured"
cmake --build "$BUILD" -j "$JOBS" --target jigsaw-runtime
say "built $BUILD/jigsaw-runtime"

# libstdc++ must come before every LibTorch library among the direct dependencies.
needed=$(readelf -d "$BUILD/jigsaw-runtime" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
first_torch=$(grep -n -E '^lib(torch|c10)' <<<"$needed" | head -1 | cut -d: -f1)
stdcxx=$(grep -n '^libstdc++' <<<"$needed" | head -1 | cut -d: -f1)
if [ -z "$stdcxx" ] || { [ -n "$first_torch" ] && [ "$stdcxx" -gt "$first_torch" ]; }; then
  echo "build: libstdc++ is not ahead of LibTorch in NEEDED:" $needed >&2
  exit 1
fi
say "NEEDED order ok: $(tr '\n' ' ' <<<"$needed")"
"$BUILD/jigsaw-runtime" --version

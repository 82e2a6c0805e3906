#!/usr/bin/env bash
# Installs the build and run dependencies from Debian's package archive (no other downloads).
# Usage: scripts/setup.sh            every package (the tests, LibTorch, the benches' tools)
#        scripts/setup.sh --minimal  only what the quick start's build needs (the cluster
#                                    simulator: cmake -DJIGSAW_QUICKSTART=ON); scripts/quickstart.sh
set -euo pipefail
# The quick start's `jigsaw` (cmake -DJIGSAW_QUICKSTART=ON -DJIGSAW_WITH_TORCH=OFF
# -DJIGSAW_BUILD_TESTS=OFF): a compiler, the build tools, the headers and the LP solver.
MINIMAL=(
  build-essential cmake ninja-build ccache pkg-config
  libcli11-dev nlohmann-json3-dev
  coinor-libclp-dev coinor-libcbc-dev
)
# The rest: the other simulators and servers, the tests, jigsaw-runtime (LibTorch, Gloo,
# OpenBLAS), the data and the benches' tools.
REST=(
  zlib1g-dev libjpeg62-turbo-dev libpugixml-dev libcpp-httplib-dev libtomlplusplus-dev libseccomp-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libtorch-dev libopenblas0-pthread libgloo-dev dataset-fashion-mnist
  time python3 python3-protobuf jq iproute2 bc runc busybox-static universal-ctags
  openmpi-bin help2man
)
minimal=0
case "${1:-}" in
  --minimal) minimal=1 ;;
  "") ;;
  *) echo "usage: scripts/setup.sh [--minimal]" >&2; exit 2 ;;
esac
PACKAGES=("${MINIMAL[@]}")
((minimal)) || PACKAGES+=("${REST[@]}")
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
for p in "${PACKAGES[@]}"; do installed "$p" || missing+=("$p"); done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  $SUDO apt-get update -q
  # --minimal leaves out recommended packages: the quick start's build does not need them,
  # and they double the download.
  flags=(-y -q)
  ((minimal)) && flags+=(--no-install-recommends)
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install "${flags[@]}" "${missing[@]}"
fi
((minimal)) && exit 0
# Optional: headless Chromium for the `jigsaw report` browser test (tests/report; skipped without
# it). JIGSAW_SETUP_OPTIONAL=0 leaves it out; a failed install only warns.
OPTIONAL=(chromium)
if [[ "${JIGSAW_SETUP_OPTIONAL:-1}" != 0 ]]; then
  optional=()
  for p in "${OPTIONAL[@]}"; do installed "$p" || optional+=("$p"); done
  if ((${#optional[@]})); then
    echo "setup: installing optional ${optional[*]}" >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${optional[@]}" ||
      echo "setup: could not install ${optional[*]}; the report's browser test will be skipped" >&2
  fi
fi

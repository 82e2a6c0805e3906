#!/usr/bin/env bash
# Installs every build and run dependency from Debian's package archive (no other downloads).
set -euo pipefail
PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  libcli11-dev nlohmann-json3-dev
  coinor-libclp-dev coinor-libcbc-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libtorch-dev libopenblas0-pthread libgloo-dev zlib1g-dev libjpeg62-turbo-dev dataset-fashion-mnist libpugixml-dev
  libcpp-httplib-dev
  time python3 jq iproute2 bc runc busybox-static libseccomp-dev
  libtomlplusplus-dev openmpi-bin help2man
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi
# Optional: headless Chromium for the `jigsaw report` browser test (tests/report; skipped without
# it). JIGSAW_SETUP_OPTIONAL=0 leaves it out; a failed install only warns.
OPTIONAL=(chromium)
if [[ "${JIGSAW_SETUP_OPTIONAL:-1}" != 0 ]]; then
  optional=()
  for p in "${OPTIONAL[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || optional+=("$p")
  done
  if ((${#optional[@]})); then
    echo "setup: installing optional ${optional[*]}" >&2
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${optional[@]}" ||
      echo "setup: could not install ${optional[*]}; the report's browser test will be skipped" >&2
  fi
fi

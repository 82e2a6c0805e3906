#!/usr/bin/env bash
# Times scripts/quickstart.sh on a fresh Debian 12 root, apt included: debootstrap makes the root
# in a folder outside the repository (or ROOT_TAR names a saved one), a fresh clone of HEAD goes
# into it, and `/usr/bin/time -v scripts/quickstart.sh` runs there under chroot with an empty
# ccache. Needs root, debootstrap and Debian's mirrors. Prints the time's report; the result
# goes into docs/results/quickstart.md by hand.
# Usage: sudo bench/quickstart_fresh.sh [WORK_DIR]   (default /tmp/jigsaw-quickstart-fresh)
#        env: ROOT_TAR=saved-root.tar (skip debootstrap), MIRROR=http://deb.debian.org/debian
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-/tmp/jigsaw-quickstart-fresh}"
mirror="${MIRROR:-http://deb.debian.org/debian}"
root="$work/root"
case "$work/" in "$repo/"*) echo "quickstart_fresh: WORK_DIR must be outside the repository" >&2; exit 2 ;; esac
mkdir -p "$work"
cleanup() {
  for m in dev/pts dev proc sys; do umount "$root/$m" 2>/dev/null || true; done
}
trap cleanup EXIT
rm -rf "$root"
mkdir -p "$root"
if [[ -n "${ROOT_TAR:-}" ]]; then
  tar -C "$root" -xf "$ROOT_TAR"
else
  debootstrap bookworm "$root" "$mirror" >"$work/debootstrap.log"
fi
# The sources a Debian 12 installation has: the release, its updates and security.
cat >"$root/etc/apt/sources.list" <<SOURCES
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
SOURCES
cp /etc/resolv.conf "$root/etc/resolv.conf"
git clone -q --no-hardlinks "$repo" "$root/root/jigsaw"
commit="$(git -C "$repo" rev-parse HEAD)"
for m in proc sys dev dev/pts; do mount --bind "/$m" "$root/$m"; done
echo "quickstart_fresh: commit $commit, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
# /usr/bin/time is not in a fresh root: bash's `time` gives wall, user and sys of the whole script.
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb \
  CCACHE_DIR=/root/.cache/jigsaw-ccache \
  bash -c 'cd /root/jigsaw && time scripts/quickstart.sh >/root/quickstart.log 2>&1; rc=$?;
    tail -5 /root/quickstart.log; exit $rc'

#!/usr/bin/env bash
# Vendors the charting bundle that `jigsaw report` inlines into report.html (offline, no CDN):
# the minified UMD builds of vega, vega-lite and vega-embed plus their licences, into
# third_party/vega/. The versions and npm integrity hashes are pinned here; `npm pack` checks each
# tarball against the registry's integrity, and this script checks it against the pinned one, so
# a re-run gives the same bytes or fails. Run it only to change versions (needs npm + network);
# the build uses the committed files. After a version change, update PINS below and VERSIONS.
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=third_party/vega
PINS=(
  "vega 6.4.0 sha512-rHXCq2LpEWCLMjXBEj7hocY9G0/i5TGYRayGGSj06VTF4+l2IG2Z7oeZKCjWbUh/7hTE/mVhbaOPB72wCElh6g=="
  "vega-lite 6.5.0 sha512-fMXF6s0MrIg0UTWnLIfeFtgSLzVhyzSKobzGrh5rhS+mL6FOYFG3m7ouJ4U23gj65EK+gl9FIIT5w7wLNaAzkA=="
  "vega-embed 7.3.0 sha512-wQ8s5GaSzqoKgmRfbRolgBrjE2CP7ZKHXqH7NijxMqPjpdWxSs4Dn8tvp9g0giQvh2cK+3p56sxjWWM0wNngGw=="
)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$DEST"
: >"$DEST/VERSIONS"
for pin in "${PINS[@]}"; do
  read -r name version integrity <<<"$pin"
  (cd "$work" && npm pack --silent "$name@$version" >/dev/null)
  tarball="$work/$name-$version.tgz"
  actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
  if [[ "$actual" != "$integrity" ]]; then
    echo "vendor_vega: $name@$version integrity $actual, expected $integrity" >&2
    exit 1
  fi
  mkdir -p "$work/$name"
  tar xzf "$tarball" -C "$work/$name"
  cp "$work/$name/package/build/$name.min.js" "$DEST/$name.min.js"
  cp "$work/$name/package/LICENSE" "$DEST/LICENSE.$name"
  # report.html inlines these in <script> elements: these sequences would end or confuse one.
  if grep -q -i -e '</script' -e '<!--' "$DEST/$name.min.js"; then
    echo "vendor_vega: $name.min.js contains </script or <!--; report.html cannot inline it" >&2
    exit 1
  fi
  echo "$name $version $integrity" >>"$DEST/VERSIONS"
done
echo "vendor_vega: $(cat "$DEST/VERSIONS" | cut -d' ' -f1,2 | paste -sd' ') in $DEST"

# Shared helpers of the bench scripts; source it after `cd` to the repository root:
#   source bench/lib.sh
# It sets (unless already set):
#   JIGSAW    the jigsaw binary (build/jigsaw, built with scripts/build.sh when absent)
#   DATA      the data folder: $JIGSAW_DATA_DIR, default ../shared/data
# and defines the functions below. It does not change shell options.

JIGSAW="${JIGSAW:-build/jigsaw}"
DATA="${DATA:-${JIGSAW_DATA_DIR:-../shared/data}}"

# bench_need_binary: build the binary when it is missing (quietly; the build's own errors show).
bench_need_binary() {
  [ -x "$JIGSAW" ] || scripts/build.sh >/dev/null
}

# json_field FILE KEY: the first scalar value of "KEY" in a pretty-printed JSON file (jigsaw's
# outputs put one key per line), as written there, without quotes or the trailing comma.
json_field() {
  awk -v k="\"$2\":" '$1 == k { v = $2; for (i = 3; i <= NF; ++i) v = v " " $i;
    sub(/,$/, "", v); gsub(/^"|"$/, "", v); print v; exit }' "$1"
}

# pct_change A B: A relative to B as a signed percentage, one decimal ("+3.2%").
pct_change() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f%%", 100 * (a / b - 1) }'; }

# timed FILE CMD...: run CMD, writing "wall_s user_s sys_s" to FILE; returns CMD's status.
timed() {
  local file="$1"
  shift
  /usr/bin/time -f "%e %U %S" -o "$file" "$@"
}

# machine_note: one line naming what the timings ran on (cores, load, commit, date), to print
# under a table of timings.
machine_note() {
  local commit
  commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)," \
    "commit $commit, $(date -u +%Y-%m-%d)"
}

# Byte-identity checks between a reference and a candidate binary (bench/sim_identity.sh,
# bench/identity_d2r_faas.sh):
# identity_binaries SCRIPT BIN...: exit 2 naming SCRIPT unless every BIN is an executable.
identity_binaries() {
  local script="$1" bin
  shift
  for bin in "$@"; do
    [ -x "$bin" ] || { echo "$script: $bin is not an executable" >&2; exit 2; }
  done
}

# identity_summary FILE: a summary.json without the keys that measure the machine (wall and CPU
# times, rates), without its "run" provenance block (version, commit, the option list, input
# paths) and with the data folder's path as DATA/ (it depends on where each binary was built).
identity_summary() {
  grep -v -E '"(wall_s|wall_clock_s|sim_wall_s|cpu_s|events_per_s|requests_per_s)"' "$1" |
    awk '/^  "run": \{/ { skip = 1; next } skip && /^  \}/ { skip = 0; next } !skip' |
    sed 's#[^ ("]*/data/#DATA/#g'
}

# identity_same_stderr A B: whether two captured stderr files match, data paths aside.
identity_same_stderr() {
  cmp -s <(sed 's#[^ (]*/data/#DATA/#g' "$1") <(sed 's#[^ (]*/data/#DATA/#g' "$2")
}

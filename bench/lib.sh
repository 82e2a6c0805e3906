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

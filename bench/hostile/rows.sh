# Helpers of bench/hostile/sandbox.sh and bench/hostile/handshakes.sh (bench/hostile_peers.sh
# sources every bench/hostile/*.sh, this one included: it only defines): one table row per server
# and probe (server, probe, held or broke, whether a legitimate client kept being served during
# the probe, the server's peak RSS). Sourced by them; when they run alone (not sourced by
# bench/hostile_peers.sh) it also sets J, OUT, PIDS and all_ok and cleans up at exit.
#   bash bench/hostile/sandbox.sh   or   bash bench/hostile/handshakes.sh
#   (env: JIGSAW=build/jigsaw, KEEP=dir; CASES=regex picks handshake cases by "server label")
if [ -z "${J:-}" ]; then
  set -euo pipefail
  J="${JIGSAW:-$(pwd)/build/jigsaw}"
  OUT="${KEEP:-$(mktemp -d)}"
  mkdir -p "$OUT"
  PIDS=()
  all_ok=1
  hostile_cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    [ -n "${KEEP:-}" ] || rm -rf "$OUT"
    [ "$all_ok" = 1 ] && echo "every case held" || { echo "SOME CASES BROKE"; exit 1; }
  }
  trap hostile_cleanup EXIT
fi
# Peak RSS (VmHWM) of a live process in MiB, "-" once it is gone.
rss_of() { awk '/^VmHWM/ { printf "%.1f", $2 / 1024; found = 1 } END { if (!found) printf "-" }' \
  "/proc/$1/status" 2>/dev/null || echo "-"; }
# Keeps the last peak RSS of PID in FILE until the process exits (run in the background).
watch_rss() { while kill -0 "$1" 2>/dev/null; do local r; r=$(rss_of "$1"); [ "$r" = - ] ||
  echo "$r" >"$2"; sleep 0.2; done; }
# One row: server probe held|broke legit(yes|no) peak-RSS-MiB [note]; a broken or starved row
# fails the run.
hostile_row() {
  local server="$1" probe="$2" held="$3" legit="$4" rss="$5" note="${6:-}"
  { [ "$held" = held ] && [ "$legit" = yes ]; } || all_ok=0
  echo "| $server | $probe | $held | $legit | $rss | $note |"
}
hostile_table_header() {  # title
  echo "## $1 (a legitimate client runs during each probe)"
  echo
  echo "| server | probe | held or broke | legitimate client served | peak RSS (MiB) | note |"
  echo "|---|---|---|---|---|---|"
}
PROBE="python3 $(pwd)/bench/hostile/probe.py"

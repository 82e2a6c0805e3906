# Hostile functions inside `jigsaw faas` sandboxes, and direct calls to an SGS. Sourced by
# bench/hostile_peers.sh, or run alone: bash bench/hostile/sandbox.sh (helpers:
# bench/hostile/rows.sh). One platform (1 SGS, loopback) serves a DAG of real functions to a
# legitimate client (200 requests, one every 20 ms) while the `probe:isolation` function
# (src/faas/isolation_probe.h) tries, from inside a sandbox, to read /etc/shadow, write outside its
# scratch folder, list host processes, write to every descriptor it did not open (an SGS's accepted
# client socket among them, before the fix) and open a socket, and a local process calls the SGS
# directly without the load balancer's secret. "held": every attempt failed (403 for the direct
# calls). Peak RSS is the SGS's VmHWM.

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source bench/hostile/rows.sh
hostile_table_header "faas sandboxes and the SGS"

sb_wait_file() { for _ in $(seq 600); do [ -s "$1" ] && return 0; sleep 0.05; done; return 1; }

sb_main() {
  local dir="$OUT/sandbox"
  mkdir -p "$dir/outside"
  cat >"$dir/dags.json" <<'EOF'
{"format": "jigsaw-faas-dags-v1", "dags": [
  {"name": "h", "deadline": "2s", "functions": [
    {"name": "f", "duration": "2ms", "code": "sha256:64KiB"}]},
  {"name": "probe", "deadline": "10s", "functions": [
    {"name": "p", "duration": "5ms", "code": "probe:isolation"}]}]}
EOF
  "$J" faas --dags "$dir/dags.json" --sgs 1 --slots 2 --port 0 --port-file "$dir/port" \
    --out "$dir" 2>"$dir/faas.log" &
  local lb=$!
  PIDS+=("$lb")
  sb_wait_file "$dir/port" || { hostile_row "faas SGS" "start" broke no - "no start"; return; }
  local port; port=$(cat "$dir/port")
  local base="http://127.0.0.1:$port"
  curl -s -m 30 -X POST --data-binary x "$base/invoke/h" >/dev/null  # the SGS is up
  local sgs; sgs=$(curl -s -m 30 "$base/stats" | jq -r '.sgs[0].pid')
  local sgs_port
  sgs_port=$(ss -Hltnp 2>/dev/null | grep "pid=$sgs," | awk '{ print $4 }' | sed 's/.*://' | head -1)
  # The legitimate client: 200 requests, one every 20 ms, each answer's status recorded.
  (for _ in $(seq 200); do
    curl -s -m 30 -o /dev/null -w '%{http_code}\n' -X POST --data-binary legit "$base/invoke/h"
    sleep 0.02
  done) >"$dir/legit.codes" &
  local legit_client=$!
  PIDS+=("$legit_client")
  sleep 0.5
  local reports=()
  for i in 1 2 3; do
    reports+=("$(curl -s -m 60 -X POST --data-binary "write=$dir/outside read=/etc/shadow" \
      "$base/invoke/probe" | jq -c '.outputs.p | fromjson')")
  done
  local direct_run direct_stats
  direct_run=$(curl -s -m 30 -o /dev/null -w '%{http_code}' -X POST --data-binary x \
    "http://127.0.0.1:$sgs_port/run/h")
  direct_stats=$(curl -s -m 30 -o /dev/null -w '%{http_code}' \
    "http://127.0.0.1:$sgs_port/stats?reset=1")
  wait "$legit_client" || true
  local rss; rss=$(rss_of "$sgs")
  local served=yes
  [ "$(grep -c '^200$' "$dir/legit.codes")" = 200 ] || served=no
  sb_row() {  # probe jq-test-over-every-report
    local held=held r
    for r in "${reports[@]}"; do
      [ "$(jq -r "$2" <<<"$r" 2>/dev/null)" = true ] || held=broke
    done
    hostile_row "faas sandbox" "$1" "$held" "$served" "$rss" "${3:-}"
  }
  sb_row "read /etc/shadow (3 times)" '.read["/etc/shadow"] | startswith("refused")' \
    "$(jq -r '.read["/etc/shadow"]' <<<"${reports[0]}")"
  sb_row "write outside the scratch folder: /, /usr/lib, /etc, a host folder" \
    "[.write[]] | all(startswith(\"refused\"))" "scratch: $(jq -r .scratch <<<"${reports[0]}")"
  sb_row "list host processes" '.processes <= 1' "sees $(jq -r .processes <<<"${reports[0]}")"
  sb_row "write to an inherited descriptor" \
    '(.descriptors.inherited | length) == 0 and (.descriptors.written | length) == 0'
  sb_row "open a socket" '.socket | startswith("refused")' "$(jq -r .socket <<<"${reports[0]}")"
  sb_row "identity: uid, capabilities, no_new_privs, seccomp" \
    '.identity.uid == 65534 and .identity.CapEff == "0000000000000000" and .identity.NoNewPrivs == "1" and .identity.Seccomp == "2"'
  local held=broke
  [ "$direct_run" = 403 ] && [ "$direct_stats" = 403 ] && held=held
  hostile_row "faas SGS" "direct POST /run and GET /stats?reset=1 without the LB's secret" \
    "$held" "$served" "$rss" "answers $direct_run, $direct_stats"
  local limits
  limits=$(grep -o 'sandbox cgroup limits are not all applied.*' "$dir/faas.log" | head -1)
  echo "| faas sandbox | (cgroup v2 limits on this host) | - | - | - | ${limits:-applied} |"
  kill -TERM "$lb" 2>/dev/null || true
  wait "$lb" 2>/dev/null || true
  [ -z "$(ls -A "$dir/outside")" ] || echo "| faas sandbox | (outside folder written!) | broke | - | - | |"
}
sb_main
echo

#!/usr/bin/env bash
# Parameter Service benchmark (docs/paramsvc.md). Real processes on this machine: JOBS concurrent PS jobs
# of torch-free timed workers (jigsaw ps-timed-worker: real parameter traffic and aggregation,
# compute replaced by a timed wait) with different model sizes and iteration rates, each run
# (a) with a dedicated `jigsaw ps` per job and (b) on one `jigsaw paramsvc` (elastic pool of
# aggregators). Prints per-job JCT, the aggregation CPU (utime + stime of the PS / aggregator
# and coordinator processes: sampled from /proc and, at exit, from their own rusage), the cores
# reserved over time (a dedicated PS reserves one core while it lives; the service reserves one
# per live aggregator), and then the trace-driven cluster-scale comparison (jigsaw paramsvc-sim
# on the Philly trace) at the aggregation cost per float measured here.
# Usage: bench/paramsvc.sh   (env: JIGSAW=build/jigsaw REPS=2 SCALE=1 (iterations x SCALE)
#          SIM=1 (0: skip the trace simulation) KEEP=dir to keep the outputs)
#        ELASTIC=1 bench/paramsvc.sh   (the elasticity scenario instead: a load step, the same jobs
#          joining one every STEP s and leaving when done, on an elastic service (1..MAX_AGG
#          aggregators, marks HIGH / LOW, SUSTAIN reports of 0.25 s) and with dedicated PS started
#          at each join; prints the pool size over time, every add / drain decision and migration,
#          per-job JCT vs dedicated and the cores reserved. env: STEP=2 HIGH=0.25 LOW=0.08
#          SUSTAIN=4 MAX_AGG=4 REPS=2 SCALE=1)
set -euo pipefail
cd "$(dirname "$0")/.."
JIGSAW="${JIGSAW:-build/jigsaw}"
[ -x "$JIGSAW" ] || scripts/build.sh >/dev/null
OUT="${KEEP:-$(mktemp -d)}"
mkdir -p "$OUT"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$OUT"' EXIT
cp "$JIGSAW" "$OUT/jigsaw"
J="$OUT/jigsaw"
REPS="${REPS:-2}"
SCALE="${SCALE:-1}"
DATA="${DATA:-../shared/data}"

# name parameters workers compute_ms iterations (the 242,762 of mlp28 is jigsaw ps-worker's MLP
# on 28 x 28 inputs; the others are sizes between LeNet and ResNet-18).
JOBS=(
  "mlp28 242762 2 20 300"
  "m1000k 1000000 3 60 100"
  "m500k 500000 2 30 180"
  "m2000k 2000000 2 120 50"
  "m120k 120000 4 12 450"
  "m750k 750000 3 45 130"
)

run_dedicated() {
  local dir="$1" start_at="$2"
  mkdir -p "$dir"
  : >"$dir/pids"
  for spec in "${JOBS[@]}"; do
    read -r name params workers compute iters <<<"$spec"
    "$J" ps --job "$name" --workers "$workers" --token-file "$dir/$name.tok" \
      --port-file "$dir/$name.port" --out "$dir/$name.ps" --timeout-s 300 --quiet &
    echo $! >>"$dir/pids"
  done
  for spec in "${JOBS[@]}"; do
    read -r name params workers compute iters <<<"$spec"
    while [ ! -s "$dir/$name.port" ]; do sleep 0.02; done
  done
  python3 bench/paramsvc/sample.py --pids "$dir/pids" --out "$dir/samples.csv" \
    --stop "$dir/stop" &
  local sampler=$!
  local workers_pids=()
  for spec in "${JOBS[@]}"; do
    read -r name params workers compute iters <<<"$spec"
    iters=$(python3 -c "print(max(1, round($iters * $SCALE)))")
    for ((r = 0; r < workers; r++)); do
      "$J" ps-timed-worker --server "127.0.0.1:$(cat "$dir/$name.port")" \
        --token-file "$dir/$name.tok" --job "$name" --rank $r --workers "$workers" \
        --parameters "$params" --iters "$iters" --compute-ms "$compute" --seed 7 \
        --start-at "$start_at" --timeout-s 300 --quiet >"$dir/$name.w$r.json" &
      workers_pids+=($!)
    done
  done
  for p in "${workers_pids[@]}"; do wait "$p"; done
  while read -r p; do wait "$p"; done <"$dir/pids"
  touch "$dir/stop"
  wait "$sampler"
}

run_service() {
  local dir="$1" start_at="$2"
  mkdir -p "$dir"
  "$J" paramsvc --token-file "$dir/svc.tok" --port-file "$dir/svc.port" \
    --initial-aggregators 1 --min-aggregators 1 --max-aggregators 6 --report-interval-s 0.25 \
    --snapshot-every 20 --out "$dir" --quiet 2>"$dir/coordinator.log" &
  local coordinator=$!
  while [ ! -s "$dir/svc.port" ]; do sleep 0.02; done
  local service="127.0.0.1:$(cat "$dir/svc.port")"
  for spec in "${JOBS[@]}"; do
    read -r name params workers compute iters <<<"$spec"
    "$J" paramsvc-register --service "$service" --token-file "$dir/svc.tok" --job "$name" \
      --parameters "$params" --workers "$workers" \
      --iter-rate "$(python3 -c "print(1000 / ($compute + 2))")" \
      --job-token-file "$dir/$name.tok" >/dev/null
  done
  python3 bench/paramsvc/sample.py --parent "$coordinator" --out "$dir/samples.csv" \
    --stop "$dir/stop" &
  local sampler=$!
  local workers_pids=()
  for spec in "${JOBS[@]}"; do
    read -r name params workers compute iters <<<"$spec"
    iters=$(python3 -c "print(max(1, round($iters * $SCALE)))")
    for ((r = 0; r < workers; r++)); do
      "$J" ps-timed-worker --service "$service" --token-file "$dir/$name.tok" --job "$name" \
        --rank $r --workers "$workers" --parameters "$params" --iters "$iters" \
        --compute-ms "$compute" --seed 7 --start-at "$start_at" --timeout-s 300 --quiet \
        >"$dir/$name.w$r.json" &
      workers_pids+=($!)
    done
  done
  for p in "${workers_pids[@]}"; do wait "$p"; done
  sleep 0.5  # the last load reports
  touch "$dir/stop"
  wait "$sampler"
  "$J" paramsvc-status --service "$service" --token-file "$dir/svc.tok" --shutdown >/dev/null
  wait "$coordinator"
}

# ---- the elasticity scenario (ELASTIC=1) ----------------------------------------------------
STEP="${STEP:-2}"

# Job k's workers, started k x STEP s after t0 (on a dedicated PS or the service): "join".
start_job_workers() {  # dir name params workers compute iters address token_file [--service]
  local dir="$1" name="$2" params="$3" workers="$4" compute="$5" iters="$6" address="$7"
  local token="$8" how="${9:---server}" pids=() start_at
  start_at=$(python3 -c "import time; print(time.time() + 0.2)")
  for ((r = 0; r < workers; r++)); do
    "$J" ps-timed-worker "$how" "$address" --token-file "$token" --job "$name" --rank $r \
      --workers "$workers" --parameters "$params" --iters "$iters" --compute-ms "$compute" \
      --seed 7 --start-at "$start_at" --timeout-s 300 --quiet >"$dir/$name.w$r.json" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
}

wait_until() { python3 -c "import time; time.sleep(max(0, $1 - time.time()))"; }

# Job k joins k x STEP s after t0 (logged in joins.txt) through JOIN (dir name params workers
# compute iters), each in the background; returns when every job has finished.
join_jobs_in_steps() {  # dir t0 join_function
  local dir="$1" t0="$2" join="$3" k=0 jobs=()
  for spec in "${JOBS[@]}"; do
    read -r name params workers compute iters <<<"$spec"
    iters=$(python3 -c "print(max(1, round($iters * $SCALE)))")
    (
      wait_until "$t0 + $k * $STEP"
      echo "$name $(python3 -c 'import time; print(time.time())')" >>"$dir/joins.txt"
      "$join" "$dir" "$name" "$params" "$workers" "$compute" "$iters"
    ) &
    jobs+=($!)
    k=$((k + 1))
  done
  for p in "${jobs[@]}"; do wait "$p"; done
}

run_elastic_dedicated() {
  local dir="$1" t0="$2"
  mkdir -p "$dir"
  : >"$dir/pids"
  python3 bench/paramsvc/sample.py --pids "$dir/pids" --out "$dir/samples.csv" \
    --stop "$dir/stop" &
  local sampler=$!
  # shellcheck disable=SC2317  # called through join_jobs_in_steps
  join_dedicated() {  # dir name params workers compute iters
    local dir="$1" name="$2"
    "$J" ps --job "$name" --workers "$4" --token-file "$dir/$name.tok" \
      --port-file "$dir/$name.port" --out "$dir/$name.ps" --timeout-s 300 --quiet &
    echo $! >>"$dir/pids"
    while [ ! -s "$dir/$name.port" ]; do sleep 0.02; done
    start_job_workers "$dir" "$name" "$3" "$4" "$5" "$6" \
      "127.0.0.1:$(cat "$dir/$name.port")" "$dir/$name.tok"
    wait
  }
  join_jobs_in_steps "$dir" "$t0" join_dedicated
  sleep 1  # the idle tail, as on the service
  touch "$dir/stop"
  wait "$sampler"
}

run_elastic_service() {
  local dir="$1" t0="$2"
  mkdir -p "$dir"
  "$J" paramsvc --token-file "$dir/svc.tok" --port-file "$dir/svc.port" \
    --initial-aggregators 1 --min-aggregators 1 --max-aggregators "${MAX_AGG:-4}" \
    --high-mark "${HIGH:-0.25}" --low-mark "${LOW:-0.08}" --sustain "${SUSTAIN:-4}" \
    --report-interval-s 0.25 --snapshot-every 20 --out "$dir" --quiet 2>"$dir/coordinator.log" &
  local coordinator=$!
  while [ ! -s "$dir/svc.port" ]; do sleep 0.02; done
  local service="127.0.0.1:$(cat "$dir/svc.port")"
  python3 bench/paramsvc/sample.py --parent "$coordinator" --out "$dir/samples.csv" \
    --stop "$dir/stop" &
  local sampler=$!
  # shellcheck disable=SC2317  # called through join_jobs_in_steps
  join_service() {  # dir name params workers compute iters
    local dir="$1" name="$2"
    "$J" paramsvc-register --service "$service" --token-file "$dir/svc.tok" --job "$name" \
      --parameters "$3" --workers "$4" --iter-rate "$(python3 -c "print(1000 / ($5 + 2))")" \
      --job-token-file "$dir/$name.tok" >/dev/null
    start_job_workers "$dir" "$name" "$3" "$4" "$5" "$6" "$service" "$dir/$name.tok" --service
  }
  join_jobs_in_steps "$dir" "$t0" join_service
  # After the load: wait (bounded) for the pool to drain back to one aggregator.
  for _ in $(seq 120); do
    "$J" paramsvc-status --service "$service" --token-file "$dir/svc.tok" >"$dir/status.json"
    [ "$(python3 -c "import json; s = json.load(open('$dir/status.json')); \
print(sum(a['alive'] for a in s['aggregators']))")" = 1 ] && break
    sleep 0.5
  done
  sleep 1
  touch "$dir/stop"
  wait "$sampler"
  "$J" paramsvc-status --service "$service" --token-file "$dir/svc.tok" --shutdown >/dev/null
  wait "$coordinator"
}

printf '%s\n' "${JOBS[@]}" >"$OUT/jobs.txt"
if [ "${ELASTIC:-0}" = 1 ]; then
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$OUT/load.txt"
  for ((rep = 1; rep <= REPS; rep++)); do
    if ((rep % 2)); then modes="dedicated service"; else modes="service dedicated"; fi
    for mode in $modes; do
      echo "rep $rep: elastic scenario, $mode" >&2
      t0=$(python3 -c "import time; print(time.time() + 1)")
      "run_elastic_$mode" "$OUT/rep$rep/$mode" "$t0"
    done
  done
  echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/load.txt"
  python3 bench/paramsvc/elastic_report.py "$OUT" --step "$STEP" | tee "$OUT/table.md"
  exit 0
fi
for ((rep = 1; rep <= REPS; rep++)); do
  # Alternate the order, so neither mode always runs on a cooler machine.
  if ((rep % 2)); then modes="dedicated service"; else modes="service dedicated"; fi
  for mode in $modes; do
    echo "rep $rep: $mode" >&2
    start_at=$(python3 -c "import time; print(time.time() + 2)")
    "run_$mode" "$OUT/rep$rep/$mode" "$start_at"
  done
done
python3 bench/paramsvc/report.py "$OUT" | tee "$OUT/table.md"

if [ "${SIM:-1}" = 1 ] && [ -f "$DATA/traces/philly/philly.csv" ]; then
  ns=$(python3 bench/paramsvc/report.py "$OUT" --ns-per-float)
  echo
  echo "Trace-driven, full Philly trace, $ns ns of aggregation CPU per float per worker per"
  echo "iteration (measured above); dedicated PS sized for the burst at each burst fraction:"
  for b in 1 0.5 0.25; do
    echo
    echo "burst fraction $b:"
    /usr/bin/time -f "(%e s wall, %M KB peak memory)" "$J" paramsvc-sim \
      --trace "$DATA/traces/philly/philly.csv" \
      --throughputs "$DATA/throughputs/shockwave_tacc_throughputs.json" \
      --ns-per-float "$ns" --burst-fraction "$b" --out "$OUT/sim_b$b"
  done
fi

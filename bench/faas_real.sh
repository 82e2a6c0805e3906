#!/usr/bin/env bash
# The real platform: `jigsaw faas` (LB + SGS processes + sandbox processes on loopback)
# under `jigsaw faas-load` Poisson (or bursty) requests at a few offered rates, Archipelago and the
# OpenWhisk-like baseline (and with PLATFORMS, the Sparrow-like one) on the same processes; then
# `jigsaw faas-sim` on the SAME DAG file with the durations (their measured quantiles,
# --durations), setup times and dispatch overhead measured by the real run (rates, cores, memory
# matched), so the two can be compared row by row. Prints tables; outputs stay under $OUT_ROOT.
# Usage: bench/faas_real.sh DATA_DIR [rates...]   (DATA_DIR: ../shared/data; default rates 4 8 12)
# Env: REQUESTS (300 per run), WARMUP (30), SGS (2), SLOTS (1), MEMORY (512MB per SGS),
# PLATFORMS ("archipelago openwhisk"; add sparrow for the Sparrow-like baseline, with
# SPARROW_PROBES (2) SGSs probed per function, its simulator row beside), SEED (1),
# OUT_ROOT (/tmp/jigsaw_faas_real_bench),
# RUN_S (unset; if set, every run lasts about RUN_S seconds: REQUESTS = rate x RUN_S and WARMUP =
# the first WARMUP_S (3) seconds or a tenth of them, whichever is more, so high rates get as long a
# run as low ones and sandbox start-up stays in the warm-up), DAGS (bench/faas_real_dags.json),
# CONNECTIONS (the load generator's, 32) and HTTP_THREADS (the LB's and each SGS's, 64): each holds
# one request until it is answered, so both must exceed rate x latency or a slow DAG's requests
# delay every other DAG's in the client and LB queues (bench/faas_real_io_dags.json needs 256),
# INVOKER_MEMORY (the OpenWhisk-like baseline's memory slots per SGS, `faas --invoker-memory`;
# unset: MEMORY, as in OpenWhisk), BURST_SIGMA (0: Poisson; > 0: bursty arrivals, `faas-load
# --burst-sigma`) and BURST_PERIOD (10s). The simulator rows get the same arrival process (its
# --burst-sigma/--burst-period; so that both
# see one arrival process), the same invoker memory, and the same pausing: OW_PAUSE_GRACE (50ms)
# and OW_UNPAUSE_COST (15ms, modelled: the real baseline pauses its idle sandboxes with
# the cgroup freezer or SIGSTOP and adds this cost to each real resume; 0s and 0s: no pausing). OPENWHISK_SLOTS (unset: SLOTS): the baseline's functions run at once
# per SGS, e.g. its memory / a function's memory, so its sandboxes time-share the host's cores as
# OpenWhisk's containers do instead of queueing FIFO for SLOTS (its simulator rows keep SLOTS).
# The issue's latency targets, on a quiet machine (nothing else running; about 5 min wall):
#   RUN_S=20 bench/faas_real.sh ../shared/data 30 60 80 100 120
# (2 single-slot SGSs; the simulator on this DAG file puts the OpenWhisk-like baseline's 90 % edge
# near 110 requests/s; the last table says where it is on this machine.) That workload is CPU-bound
# and its hot DAG carries half the requests, so the p99 ratio there stays near 1x (docs/faas.md).
# The I/O-bound, skewed workload, where the baseline's home-SGS hot spot shows (about 4 min wall):
#   DAGS=bench/faas_real_io_dags.json SGS=4 SLOTS=2 MEMORY=2GB RUN_S=28 WARMUP_S=8 \
#     CONNECTIONS=256 HTTP_THREADS=256 bench/faas_real.sh ../shared/data 120 130 140 160
# Archipelago's memory-aware LB with small pools (about 1 min wall):
#   DAGS=bench/faas_real_io_dags.json SGS=4 SLOTS=2 MEMORY=1GB RUN_S=28 WARMUP_S=8 \
#     CONNECTIONS=256 HTTP_THREADS=256 PLATFORMS=archipelago bench/faas_real.sh ../shared/data 130 150
# The machine is shared: every run prints the load average; CPU seconds of the platform come from
# /proc (utime + stime of the LB, SGS and sandbox processes, children included after exit).
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${1:?usage: bench/faas_real.sh DATA_DIR [rates...]}
shift
RATES=("$@")
[ ${#RATES[@]} -eq 0 ] && RATES=(4 8 12)
JIGSAW=build/jigsaw
DAGS=${DAGS:-bench/faas_real_dags.json}
REQUESTS=${REQUESTS:-300}
WARMUP=${WARMUP:-30}
SGS=${SGS:-2}
SLOTS=${SLOTS:-1}
MEMORY=${MEMORY:-512MB}
SEED=${SEED:-1}
PLATFORMS=${PLATFORMS:-"archipelago openwhisk"}
OUT_ROOT=${OUT_ROOT:-/tmp/jigsaw_faas_real_bench}
CIFAR="$DATA/datasets/cifar10/cifar10-jpeg.tar.gz"
mkdir -p "$OUT_ROOT"
START_S=$SECONDS

platform_pid=
stop_platform() {
  if [ -n "$platform_pid" ]; then
    kill -TERM "$platform_pid" 2>/dev/null || true
    wait "$platform_pid" 2>/dev/null || true
    platform_pid=
  fi
}
trap stop_platform EXIT

run_real() {  # platform rate
  local platform=$1 rate=$2 dir="$OUT_ROOT/real_$1_$2"
  rm -rf "$dir"
  mkdir -p "$dir"
  local extra=() slots=$SLOTS
  if [ "$platform" = openwhisk ] && [ -n "${INVOKER_MEMORY:-}" ]; then
    extra=(--invoker-memory "$INVOKER_MEMORY")
  fi
  if [ "$platform" = openwhisk ] && [ -n "${OPENWHISK_SLOTS:-}" ]; then
    slots=$OPENWHISK_SLOTS
  fi
  if [ "$platform" = sparrow ]; then
    extra+=(--sparrow-probes "${SPARROW_PROBES:-2}")
  fi
  if [ "$platform" = openwhisk ]; then
    extra+=(--ow-pause-grace "${OW_PAUSE_GRACE:-50ms}" --ow-unpause-cost "${OW_UNPAUSE_COST:-15ms}")
  fi
  "$JIGSAW" faas --dags "$DAGS" --platform "$platform" --sgs "$SGS" --slots "$slots" \
    --memory "$MEMORY" "${extra[@]}" --http-threads "${HTTP_THREADS:-64}" --cifar "$CIFAR" --port 0 --port-file "$dir/port" --out "$dir" \
    2>"$dir/platform.log" &
  platform_pid=$!
  for _ in $(seq 600); do [ -s "$dir/port" ] && break; sleep 0.1; done
  [ -s "$dir/port" ] || { cat "$dir/platform.log" >&2; exit 1; }
  local load_before
  load_before=$(cut -d' ' -f1 /proc/loadavg)
  "$JIGSAW" faas-load --dags "$DAGS" --port "$(cat "$dir/port")" --rate "$rate" \
    --requests "$REQUESTS" --warmup "$WARMUP" --connections "${CONNECTIONS:-32}" --seed "$SEED" \
    --burst-sigma "${BURST_SIGMA:-0}" --burst-period "${BURST_PERIOD:-10s}" --quiet --out "$dir/load" >/dev/null
  echo "$load_before $(cut -d' ' -f1 /proc/loadavg)" >"$dir/loadavg"
  stop_platform
}

# faas-sim on the same DAGs: rates = the offered rate split by the file's rate weights,
# durations and setup = what the real run measured (mean over SGSs that ran the function); the
# measured duration quantiles go to a --durations file (quantiles of several SGSs averaged,
# weighted by runs: an approximation of the pooled quantiles) and the SGSs' mean hand-off of a
# task to its sandbox thread to a file read as --dispatch-overhead.
sim_dags() {  # real_dir out_file rate
  python3 - "$1" "$2" "$3" "$DAGS" <<'PY'
import json, sys
real, out, rate, dags_path = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
durations_out = out.replace(".json", "_durations.csv")
overhead_out = out.replace(".json", "_dispatch_ms.txt")
dags = json.load(open(dags_path))
summary = json.load(open(real + "/load/summary.json"))
measured = {}
for sgs in summary["platform"]["sgs"]:
    for name, f in sgs.get("functions", {}).items():
        measured.setdefault(name, []).append(f)
total = sum(d.get("rate", 1) for d in dags["dags"])
for d in dags["dags"]:
    d["rate"] = rate * d.get("rate", 1) / total
    for f in d["functions"]:
        m = measured.get(d["name"] + "/" + f["name"], [])
        runs = [x for x in m if x["duration_ms"] > 0]
        if runs:
            f["duration"] = "%.3fms" % (sum(x["duration_ms"] for x in runs) / len(runs))
        setups = [x for x in m if x["setups"] > 0]
        if setups:
            n = sum(x["setups"] for x in setups)
            f["setup"] = "%.3fms" % (sum(x["setup_ms"] * x["setups"] for x in setups) / n)
        f.pop("code", None)
json.dump(dags, open(out, "w"), indent=1)
rows = ["dag,function,quantile,duration"]
for name, m in sorted(measured.items()):
    runs = [x for x in m if x.get("runs", 0) > 0 and x.get("duration_quantiles_ms")]
    if not runs:
        continue
    n = sum(x["runs"] for x in runs)
    dag, function = name.split("/", 1)
    for i, q in enumerate(runs[0]["duration_quantiles"]):
        ms = sum(x["duration_quantiles_ms"][i] * x["runs"] for x in runs) / n
        rows.append(f"{dag},{function},{q},{ms:.4f}ms")
open(durations_out, "w").write("\n".join(rows) + "\n")
tasks = sum(s.get("dispatch_overhead_ms", {}).get("tasks", 0) for s in summary["platform"]["sgs"])
mean = sum(s["dispatch_overhead_ms"]["mean"] * s["dispatch_overhead_ms"]["tasks"]
           for s in summary["platform"]["sgs"] if s.get("dispatch_overhead_ms")) / max(tasks, 1)
open(overhead_out, "w").write(f"{mean:.4f}ms\n")
PY
}

real_row() {  # dir platform rate
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
d, platform, rate = sys.argv[1], sys.argv[2], sys.argv[3]
s = json.load(open(d + "/load/summary.json"))
lat = s["latency_ms"]
cpu = 0.0
try:
    p = json.load(open(d + "/platform.json"))
    cpu = p.get("cpu_s", 0.0)
except Exception:
    pass
load = open(d + "/loadavg").read().split()
bad = s["measured"] - s["ok"]
print(f"real {platform:12s} {float(rate):6.1f} {s['deadline_met_pct']:8.2f} {lat.get('p50', 0):9.1f} "
      f"{lat.get('p99', 0):9.1f} {lat.get('p999', 0):9.1f} {s['cold_start_pct']:7.2f} "
      f"{s['sandbox_rss_mib']['mean_sum_over_sgs']:8.1f} {s['sandbox_rss_mib']['peak_sum_over_sgs']:8.1f} "
      f"{bad:5d} {s['retries']:4d} {cpu:8.1f}  {load[0]}/{load[1]}")
PY
}

sim_row() {  # dir rate
  python3 - "$1" "$2" <<'PY'
import json, sys
d, rate = sys.argv[1], sys.argv[2]
s = json.load(open(d + "/summary.json"))
for r in s["results"]:
    print(f"sim  {r['platform']:12s} {float(rate):6.1f} {r['deadline_met_pct']:8.2f} {r['p50_ms']:9.1f} "
          f"{r['p99_ms']:9.1f} {r['p999_ms']:9.1f} {r['cold_start_pct']:7.2f} "
          f"{r['sandbox_memory_avg_gb'] * 1024:8.1f} {r['sandbox_memory_peak_gb'] * 1024:8.1f} "
          f"{r['failed']:5d}    -        -  (declared MiB)")
PY
}

if [ -n "${RUN_S:-}" ]; then
  per_run="about ${RUN_S} s (rate x ${RUN_S} requests, the first ${WARMUP_S:-3} s or a tenth warm-up)"
else
  per_run="$REQUESTS requests ($WARMUP warm-up)"
fi
echo "== real platform: $SGS SGS x $SLOTS slot(s), $MEMORY sandbox memory per SGS, $per_run" \
  "per run, seed $SEED; DAGs $DAGS =="
printf '%-4s %-12s %6s %8s %9s %9s %9s %7s %8s %8s %5s %4s %8s  %s\n' kind platform rate/s 'met%' \
  p50_ms p99_ms p99.9_ms 'cold%' rssMiB rssMiBpk fail retr cpu_s 'loadavg before/after'
for rate in "${RATES[@]}"; do
  if [ -n "${RUN_S:-}" ]; then
    REQUESTS=$(python3 -c "print(max(20, round($rate * $RUN_S)))")
    WARMUP=$(python3 -c "print(min($REQUESTS // 2, max($REQUESTS // 10, round($rate * ${WARMUP_S:-3}))))")
  fi
  for platform in $PLATFORMS; do
    run_real "$platform" "$rate"
    real_row "$OUT_ROOT/real_${platform}_$rate" "$platform" "$rate"
  done
  # The simulator on the same DAG file with the first platform's measured durations and setup
  # (Archipelago's by default); no stem cells, as the real OpenWhisk-like baseline has none.
  first_platform=${PLATFORMS%% *}
  sim_platforms=archipelago,openwhisk
  case " $PLATFORMS " in *" sparrow "*) sim_platforms+=,sparrow ;; esac
  sim_dags "$OUT_ROOT/real_${first_platform}_$rate" "$OUT_ROOT/sim_dags_$rate.json" "$rate"
  warmup_s=$(python3 -c "print(f'{$WARMUP / $rate:.3f}s')")
  "$JIGSAW" faas-sim --dags "$OUT_ROOT/sim_dags_$rate.json" --requests "$REQUESTS" \
    --durations "$OUT_ROOT/sim_dags_${rate}_durations.csv" \
    --dispatch-overhead "$(cat "$OUT_ROOT/sim_dags_${rate}_dispatch_ms.txt")" \
    --cores $((SGS * SLOTS)) --cores-per-worker "$SLOTS" --workers-per-sgs 1 \
    --worker-memory "$MEMORY" --platforms "$sim_platforms" --warmup "$warmup_s" \
    --burst-sigma "${BURST_SIGMA:-0}" --burst-period "${BURST_PERIOD:-10s}" \
    --invoker-memory "${INVOKER_MEMORY:-$MEMORY}" --ow-pause-grace "${OW_PAUSE_GRACE:-50ms}" \
    --ow-unpause-cost "${OW_UNPAUSE_COST:-15ms}" --ow-stem-cells 0 \
    --sparrow-probes "${SPARROW_PROBES:-2}" \
    --seed "$SEED" --quiet --out "$OUT_ROOT/sim_$rate" >/dev/null
  sim_row "$OUT_ROOT/sim_$rate" "$rate"
done

# The issue's targets on this machine: at the highest rate where the OpenWhisk-like baseline still
# meets > 90 % of deadlines, Archipelago > 99 % and a p99 >= 10x lower.
python3 - "$OUT_ROOT" "${RATES[@]}" <<'PY'
import json, os, sys
root, rates = sys.argv[1], sys.argv[2:]
def load(platform, rate):
    path = f"{root}/real_{platform}_{rate}/load/summary.json"
    return json.load(open(path)) if os.path.exists(path) else None
best = None
for rate in rates:
    ow, arch = load("openwhisk", rate), load("archipelago", rate)
    if ow and arch and ow["deadline_met_pct"] > 90:
        best = (rate, ow, arch)
print()
if best is None:
    print("targets (real): no rate with both platforms run where OpenWhisk-like meets > 90 %")
else:
    rate, ow, arch = best
    a, o = arch["latency_ms"].get("p99", 0), ow["latency_ms"].get("p99", 0)
    ratio = o / a if a > 0 else float("inf")
    edge = "; the highest rate given: the 90 % edge may be higher" if rate == rates[-1] else ""
    print(f"targets (real) at {rate}/s, the highest rate where OpenWhisk-like meets > 90 % "
          f"({ow['deadline_met_pct']:.2f} %){edge}:")
    print(f"  Archipelago met {arch['deadline_met_pct']:.2f} % (> 99 %: "
          f"{'met' if arch['deadline_met_pct'] > 99 else 'MISSED'}); p99 {a:.1f} ms vs "
          f"OpenWhisk-like {o:.1f} ms = {ratio:.1f}x (>= 10x: {'met' if ratio >= 10 else 'MISSED'})")
PY
echo "faas_real.sh: $((SECONDS - START_S)) s wall, load average now $(cut -d' ' -f1 /proc/loadavg)"

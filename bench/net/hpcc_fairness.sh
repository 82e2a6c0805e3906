#!/usr/bin/env bash
# HPCC fairness: four long flows into one host, starting 0.5 ms apart, on a 100 Gbps
# star with 1 us links (base RTT about 4.4 us). For each HPCC additive increase R_AI (the study's
# 50 Mbps and larger) and maxStage, the rate limiters from timeseries/rate.csv give Jain's index
# over time; prints, after the fourth flow starts, the time until Jain >= 0.95 and >= 0.99 and
# the first-order prediction: HPCC's per-RTT update R <- R*eta/U + R_AI keeps the total at
# eta*C, so rate differences shrink by N*R_AI/(eta*C) per reference RTT: time constant
# eta*C/(N*R_AI) RTTs. Usage: bench/net/hpcc_fairness.sh [out_dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${1:-bench/net/results/hpcc_fairness}"
BIN=./build/jigsaw
mkdir -p "$OUT"
SIZE="${SIZE:-100000000}"  # bytes per flow
printf '4\n1 0 3 100 %s 0\n2 0 3 100 %s 0.0005\n3 0 3 100 %s 0.001\n4 0 3 100 %s 0.0015\n' \
  "$SIZE" "$SIZE" "$SIZE" "$SIZE" > "$OUT/flows.txt"
for setting in "50Mbps 0" "50Mbps 5" "200Mbps 0" "1Gbps 0"; do
  set -- $setting
  nice -n 10 "$BIN" net --topology rack:hosts=5,gbps=100,delay=1us --cc hpcc --quiet \
    --flows "$OUT/flows.txt" --cc-param hpcc.rate_ai="$1" --cc-param hpcc.max_stage="$2" \
    --timeseries --sample-interval 20us --out "$OUT/ai$1-stage$2"
done
python3 - "$OUT" <<'PY'
import csv, json, os, sys
out = sys.argv[1]
print("| R_AI | maxStage | Jain at +0.1 ms | to Jain>=0.95 | to Jain>=0.99 | predicted time constant | flow FCTs (ms) |")
print("|---|---|---|---|---|---|---|")
for name in sorted(os.listdir(out)):
    path = os.path.join(out, name, "timeseries", "rate.csv")
    if not os.path.exists(path):
        continue
    rates = {}
    for row in csv.DictReader(open(path)):
        rates.setdefault(float(row["time_us"]), {})[int(row["flow_id"])] = float(row["rate_gbps"])
    last_start = 1500.0
    t95 = t99 = None
    at01 = None
    for t in sorted(rates):
        r = rates[t]
        if t < last_start or len(r) < 4:
            continue
        jain = sum(r.values()) ** 2 / (4 * sum(v * v for v in r.values()))
        if at01 is None and t >= last_start + 100:
            at01 = jain
        if t95 is None and jain >= 0.95:
            t95 = t - last_start
        if t99 is None and jain >= 0.99:
            t99 = t - last_start
    summary = json.load(open(os.path.join(out, name, "summary.json")))
    ai = summary["cc_params"]["hpcc.rate_ai"]
    stage = summary["cc_params"]["hpcc.max_stage"]
    ai_bps = {"50Mbps": 50e6, "200Mbps": 200e6, "1Gbps": 1e9}[ai]
    rtt_us = 4.4
    tau_ms = 0.95 * 100e9 / (4 * ai_bps) * rtt_us / 1000
    fcts = []
    for row in csv.DictReader(open(os.path.join(out, name, "flows.csv"))):
        fcts.append("%.2f" % (float(row["fct_us"]) / 1000) if row["fct_us"] else "-")
    fmt = lambda v: "never" if v is None else "%.2f ms" % (v / 1000)
    print(f"| {ai} | {stage} | {at01 if at01 is None else round(at01, 3)} | {fmt(t95)} | {fmt(t99)} | {tau_ms:.2f} ms | {' '.join(fcts)} |")
PY

#!/usr/bin/env bash
# PL2 vs the baselines on a 32 x 100 Gbps rack (docs/pl2.md): for offered loads of 50/100/200/400%
# into the memcached server's link, memcached-like RPC latency (p50/p99/p99.9), drops, the largest
# switch queue and the hot link's goodput per transport, then the ML ring all-reduce's iteration
# transfer time p50/p99 per transport, each over several seeds (spread shown); the same for PL2 and
# Homa-like when the ring includes the loaded server (2 MB model, 50/100%); and the speed of the
# 400% run at full ResNet-50 size for 100 ms simulated.
# Usage: bench/net/pl2.sh [out_dir]
#   SEEDS="1 2 3"  DURATION=10ms  ML_BYTES=10.2MB (ResNet-50 / 10)  TRANSPORTS="pl2 homa ..."
#   LOADS="50% 100% 200% 400%"  FULL=1 (the 100 ms ResNet-50 speed run; FULL=0 skips it)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${1:-bench/net/results/pl2}"
SEEDS="${SEEDS:-1 2 3}"
DURATION="${DURATION:-10ms}"
ML_BYTES="${ML_BYTES:-10.2MB}"
TRANSPORTS="${TRANSPORTS:-pl2 homa dctcp dcqcn lossy}"
LOADS="${LOADS:-50% 100% 200% 400%}"
FULL="${FULL:-1}"
TOPOLOGY="rack:hosts=32,gbps=100"
mkdir -p "$OUT"

run() {  # transport load seed duration ml_bytes dir [placement]
  nice -n 10 ./build/jigsaw net --topology "$TOPOLOGY" --transport "$1" --load "$2" --seed "$3" \
    --duration "$4" --drain 2ms --ml-bytes "$5" --ml-hosts 8 --ml-placement "${7:-away}" \
    --payload 1452 --out "$6" 2>"$6.speed" >/dev/null ||
    { echo "jigsaw net failed for $1 $2 seed $3" >&2; exit 1; }
}

for transport in $TRANSPORTS; do
  for load in $LOADS; do
    for seed in $SEEDS; do
      run "$transport" "$load" "$seed" "$DURATION" "$ML_BYTES" "$OUT/$transport-${load%\%}-$seed"
    done
  done
done
for transport in pl2 homa; do
  for load in 50% 100%; do
    for seed in $SEEDS; do
      run "$transport" "$load" "$seed" "$DURATION" 2MB "$OUT/ws-$transport-${load%\%}-$seed" with-server
    done
  done
done
if [ "$FULL" = 1 ]; then
  for transport in pl2 homa; do
    run "$transport" 400% 1 100ms 102.2MB "$OUT/full-$transport"
  done
fi

python3 - "$OUT" "$TRANSPORTS" "$LOADS" "$SEEDS" "$FULL" <<'EOF'
import json, re, statistics, sys
out, transports, loads, seeds, full = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4].split(), sys.argv[5]

def load(path):
    return json.load(open(path + "/summary.json"))

def pct(values, p):
    values = sorted(values)
    if not values:
        return float("nan")
    rank = p / 100 * (len(values) - 1)
    lo = int(rank)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (rank - lo)

def spread(values, fmt="{:.1f}"):
    if len(values) == 1:
        return fmt.format(values[0])
    return (fmt + " [" + fmt + ".." + fmt + "]").format(statistics.mean(values), min(values), max(values))

print(f"# RPC latency (us) of memcached-like GETs to the server whose link gets the offered load;"
      f" mean [min..max] over seeds {' '.join(seeds)}")
print("| transport | load | RPC p50 | RPC p99 | RPC p99.9 | unfinished RPCs | drops | max switch queue (KB) | hot-link wire rate (Gbps) |")
print("|---|---|---|---|---|---|---|---|---|")
ml_rows = []
for t in transports:
    for l in loads:
        runs = [load(f"{out}/{t}-{l.rstrip('%')}-{s}") for s in seeds]
        r = [x["rack"] for x in runs]
        p50 = [x["rpc"]["p50_us"] for x in r]
        p99 = [x["rpc"]["p99_us"] for x in r]
        p999 = [x["rpc"]["p999_us"] for x in r]
        unfinished = sum(x["rpc"]["unfinished"] for x in r)
        drops = [x["network"]["drops"] for x in runs]
        maxq = [x["network"]["max_queue_bytes"] / 1000 for x in runs]
        # Port 0 of the switch leads to host 0, the memcached server.
        seconds = [x["network"]["simulated_time_us"] * 1e-6 for x in runs]
        hot = [x["rack"]["switch_ports"][0]["tx_bytes"] * 8 / s / 1e9 for x, s in zip(runs, seconds)]
        print(f"| {t} | {l} | {spread(p50)} | {spread(p99)} | {spread(p999)} | {unfinished} | "
              f"{spread(drops, '{:.0f}')} | {spread(maxq)} | {spread(hot)} |")
        iterations = [i for x in r for i in x["ml"]["iteration_times_us"]]
        per_seed_p99 = [pct(x["ml"]["iteration_times_us"], 99) for x in r if x["ml"]["iteration_times_us"]]
        ml_rows.append((t, l, len(iterations), pct(iterations, 50), pct(iterations, 99), per_seed_p99))
print()
print("# ML: ring all-reduce of the model over 8 hosts (not the server), back to back while the load"
      " lasts; per-iteration transfer time (us), pooled over seeds; per-seed p99 spread")
print("| transport | load | iterations | p50 | p99 | per-seed p99 |")
print("|---|---|---|---|---|---|")
for t, l, n, p50, p99, per_seed in ml_rows:
    print(f"| {t} | {l} | {n} | {p50:.1f} | {p99:.1f} | {spread(per_seed) if per_seed else '-'} |")
print()
print("# ML iteration p99 of PL2 relative to Homa-like (negative = PL2 faster)")
print("| load | pl2 p99 | homa p99 | difference |")
print("|---|---|---|---|")
rows = {(t, l): p99 for t, l, n, p50, p99, s in ml_rows}
for l in loads:
    if ("pl2", l) in rows and ("homa", l) in rows:
        a, b = rows[("pl2", l)], rows[("homa", l)]
        print(f"| {l} | {a:.1f} | {b:.1f} | {100 * (a - b) / b:+.1f}% |")
print()
print("# ML ring through the loaded server (2 MB model, ring from host 0): iteration transfer time (us), pooled over seeds")
print("| transport | load | iterations | p50 | p99 | RPC p99 |")
print("|---|---|---|---|---|---|")
for t in ("pl2", "homa"):
    for l in ("50%", "100%"):
        r = [load(f"{out}/ws-{t}-{l.rstrip('%')}-{s}")["rack"] for s in seeds]
        it = [i for x in r for i in x["ml"]["iteration_times_us"]]
        print(f"| {t} | {l} | {len(it)} | {pct(it, 50):.1f} | {pct(it, 99):.1f} | "
              f"{spread([x['rpc']['p99_us'] for x in r])} |")
if full == "1":
    print()
    print("# Full size: ResNet-50 (102.2 MB) all-reduce + 400% load, 100 ms simulated, seed 1")
    print("| transport | RPC p99 (us) | drops | max queue (KB) | ML iterations | ML p50 (us) | ML p99 (us) | events | wall (s) | events/s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for t in ("pl2", "homa"):
        x = load(f"{out}/full-{t}")
        speed = open(f"{out}/full-{t}.speed").read()
        m = re.search(r"in ([0-9.]+) s wall \(([0-9]+) events/s", speed)
        it = x["rack"]["ml"]["iteration_times_us"]
        print(f"| {t} | {x['rack']['rpc']['p99_us']} | {x['network']['drops']} | "
              f"{x['network']['max_queue_bytes'] / 1000:.1f} | {len(it)} | {pct(it, 50):.1f} | "
              f"{pct(it, 99):.1f} | {x['network']['events']} | {m.group(1) if m else '?'} | "
              f"{m.group(2) if m else '?'} |")
EOF

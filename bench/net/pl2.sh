#!/usr/bin/env bash
# PL2 vs the baselines on a 32 x 100 Gbps rack (docs/pl2.md): for offered loads of 50/100/200/400%
# into the memcached server's link, memcached-like RPC latency (p50/p99/p99.9), drops, the largest
# switch queue and the hot link's goodput per transport, then the ML ring all-reduce's iteration
# transfer time p50/p99 per transport, each over several seeds (spread shown); the same for PL2 and
# Homa-like when the ring includes the loaded server (2 MB model, 50/100%); and the speed of the
# 400% run at full ResNet-50 size for 100 ms simulated; and the ML job as a parameter server (PS
# on one host, 7 workers, the model in 25 shards) per transport variant.
# Transport names: pl2, pl2-oldest (--pl2-bulk-order oldest), homa, homa-linux (overcommit 8, one
# granted message per sender: Linux HomaModule's defaults), dctcp, dcqcn, lossy.
# Usage: bench/net/pl2.sh [out_dir]
#   SEEDS="1 2 3"  DURATION=10ms  ML_BYTES=10.2MB (ResNet-50 / 10)  TRANSPORTS="pl2 homa ..."
#   LOADS="50% 100% 200% 400%"  FULL=1 (the 100 ms ResNet-50 speed run; FULL=0 skips it)
#   WITH_SERVER=1 (the ring through the server; 0 skips it)
#   PS_TRANSPORTS="pl2 pl2-oldest homa homa-linux" (empty skips the PS study)  PS_DURATION=20ms
#   PS_SHARDS=25 (ResNet-50 in BytePS's 4 MB partitions, scaled with the model)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${1:-bench/net/results/pl2}"
SEEDS="${SEEDS:-1 2 3}"
DURATION="${DURATION:-10ms}"
ML_BYTES="${ML_BYTES:-10.2MB}"
TRANSPORTS="${TRANSPORTS-pl2 pl2-oldest homa dctcp dcqcn lossy}"
PS_TRANSPORTS="${PS_TRANSPORTS-pl2 pl2-oldest homa homa-linux}"
PS_DURATION="${PS_DURATION:-20ms}"
PS_SHARDS="${PS_SHARDS:-25}"
WITH_SERVER="${WITH_SERVER:-1}"
LOADS="${LOADS:-50% 100% 200% 400%}"
FULL="${FULL:-1}"
TOPOLOGY="rack:hosts=32,gbps=100"
mkdir -p "$OUT"

flags() {  # transport name -> jigsaw net flags
  case "$1" in
    pl2-oldest) echo "--transport pl2 --pl2-bulk-order oldest" ;;
    homa-linux) echo "--transport homa --homa-overcommit 8 --homa-per-sender 1" ;;
    *) echo "--transport $1" ;;
  esac
}

run() {  # transport load seed duration ml_bytes dir [placement [extra flags]]
  # shellcheck disable=SC2046,SC2086
  nice -n 10 ./build/jigsaw net --topology "$TOPOLOGY" $(flags "$1") --load "$2" --seed "$3" \
    --duration "$4" --drain 2ms --ml-bytes "$5" --ml-hosts 8 --ml-placement "${7:-away}" \
    --payload 1452 ${8:-} --out "$6" 2>"$6.speed" >/dev/null ||
    { echo "jigsaw net failed for $1 $2 seed $3" >&2; exit 1; }
}

for transport in $TRANSPORTS; do
  for load in $LOADS; do
    for seed in $SEEDS; do
      run "$transport" "$load" "$seed" "$DURATION" "$ML_BYTES" "$OUT/$transport-${load%\%}-$seed"
    done
  done
done
if [ "$WITH_SERVER" = 1 ]; then
  for transport in pl2 homa; do
    for load in 50% 100%; do
      for seed in $SEEDS; do
        run "$transport" "$load" "$seed" "$DURATION" 2MB "$OUT/ws-$transport-${load%\%}-$seed" with-server
      done
    done
  done
fi
for transport in $PS_TRANSPORTS; do
  for load in $LOADS; do
    for seed in $SEEDS; do
      run "$transport" "$load" "$seed" "$PS_DURATION" "$ML_BYTES" \
        "$OUT/ps-$transport-${load%\%}-$seed" away "--ml-pattern ps --ml-chunks $PS_SHARDS"
    done
  done
done
if [ "$FULL" = 1 ]; then
  for transport in pl2 homa; do
    run "$transport" 400% 1 100ms 102.2MB "$OUT/full-$transport"
  done
fi

python3 - "$OUT" "$TRANSPORTS" "$LOADS" "$SEEDS" "$FULL" "$WITH_SERVER" "$PS_TRANSPORTS" "$PS_SHARDS" <<'EOF'
import json, re, statistics, sys
out, transports, loads, seeds, full = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4].split(), sys.argv[5]
with_server, ps_transports, ps_shards = sys.argv[6], sys.argv[7].split(), sys.argv[8]

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
def versus(rows, names):
    print("| load | " + " | ".join(f"{n} p99" for n in names) + " | " +
          " | ".join(f"{n} vs homa" for n in names if n.startswith("pl2")) + " |")
    print("|---" * (len(names) + sum(n.startswith("pl2") for n in names) + 1) + "|")
    for l in loads:
        if ("homa", l) not in rows:
            continue
        b = rows[("homa", l)]
        cells = [f"{rows[(n, l)]:.1f}" for n in names]
        diffs = [f"{100 * (rows[(n, l)] - b) / b:+.1f}%" for n in names if n.startswith("pl2")]
        print(f"| {l} | " + " | ".join(cells + diffs) + " |")

print("# ML ring iteration p99 of the PL2 variants relative to Homa-like (negative = PL2 faster)")
rows = {(t, l): p99 for t, l, n, p50, p99, s in ml_rows}
versus(rows, [t for t in transports if t.startswith("pl2") or t == "homa"])
print()
if ps_transports:
    print(f"# ML as a parameter server: PS on host 1, 7 workers (hosts 5, 9, ..., 29), model in {ps_shards}"
          " shards; per-iteration transfer time (us), pooled over seeds; per-seed p99 spread; RPC p99 (us)")
    print("| transport | load | iterations | p50 | p99 | per-seed p99 | RPC p99 | drops | max switch queue (KB) |")
    print("|---|---|---|---|---|---|---|---|---|")
    ps_rows = {}
    for t in ps_transports:
        for l in loads:
            runs = [load(f"{out}/ps-{t}-{l.rstrip('%')}-{s}") for s in seeds]
            r = [x["rack"] for x in runs]
            it = [i for x in r for i in x["ml"]["iteration_times_us"]]
            per_seed = [pct(x["ml"]["iteration_times_us"], 99) for x in r if x["ml"]["iteration_times_us"]]
            ps_rows[(t, l)] = pct(it, 99)
            print(f"| {t} | {l} | {len(it)} | {pct(it, 50):.1f} | {pct(it, 99):.1f} | "
                  f"{spread(per_seed) if per_seed else '-'} | {spread([x['rpc']['p99_us'] for x in r])} | "
                  f"{spread([x['network']['drops'] for x in runs], '{:.0f}')} | "
                  f"{spread([x['network']['max_queue_bytes'] / 1000 for x in runs])} |")
    print()
    print("# Parameter-server ML iteration p99 of the PL2 variants relative to Homa-like (negative = PL2 faster)")
    versus(ps_rows, [t for t in ps_transports if t.startswith("pl2") or t.startswith("homa")])
    print()
if with_server == "1":
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

#!/usr/bin/env python3
"""Sums a `jigsaw fl --torch-profile` trace (<out>/torch_profile.json) per operator.

Usage: bench/fl_profile.py OUT_DIR [ROUNDS]

Prints exclusive time per LibTorch operator (time inside the operator minus the operators it
called), the share of the traced total, and, when ROUNDS is given, milliseconds per round. User
scopes (`fl::` names, e.g. fl::local_training, fl::evaluation) are reported separately with their
inclusive time. Times are the profiler's wall-clock microseconds on one thread and include its
own overhead (a few microseconds per operator), so they are for relative shares, not for speed.
"""
import collections
import json
import sys


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    path = sys.argv[1].rstrip("/") + "/torch_profile.json"
    rounds = float(sys.argv[2]) if len(sys.argv) == 3 else None
    with open(path) as f:
        trace = json.load(f)
    events = trace if isinstance(trace, list) else trace.get("traceEvents", [])
    events = [e for e in events if e.get("ph") == "X" and "dur" in e]
    events.sort(key=lambda e: (e.get("tid", 0), e["ts"], -e["dur"]))
    exclusive = collections.Counter()
    calls = collections.Counter()
    scopes = collections.Counter()
    top_level = 0.0
    stack = []
    for e in events:
        while stack and stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"]:
            stack.pop()
        name = e["name"]
        if name.startswith("fl::"):
            scopes[name] += e["dur"]
            continue  # scopes are not operators: their children count as top level
        parent = next((p for p in reversed(stack) if not p["name"].startswith("fl::")), None)
        if parent is not None:
            exclusive[parent["name"]] -= e["dur"]
        else:
            top_level += e["dur"]
        exclusive[name] += e["dur"]
        calls[name] += 1
        stack.append(e)
    print(f"traced operators: {top_level / 1e3:.1f} ms" +
          (f" ({top_level / 1e3 / rounds:.1f} ms per round)" if rounds else ""))
    for name, us in sorted(scopes.items(), key=lambda kv: -kv[1]):
        print(f"  scope {name}: {us / 1e3:.1f} ms")
    print(f"{'exclusive_ms':>12} {'share':>6} {'calls':>7}  operator")
    for name, us in exclusive.most_common(30):
        print(f"{us / 1e3:12.1f} {100 * us / max(top_level, 1):5.1f}% {calls[name]:7d}  {name}")


if __name__ == "__main__":
    main()

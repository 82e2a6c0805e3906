#!/usr/bin/env python3
"""Samples the aggregation processes from /proc every 0.25 s until --stop exists.

--pids FILE: the dedicated parameter servers (one per line); --parent PID: the service's
coordinator, whose live paramsvc-agg children are its aggregators. Writes a CSV:
t_wall_s, reserved (live PS processes, or live aggregators), cpu_s (utime + stime summed over the
processes seen so far, the last value of each process that exited)."""
import argparse
import os
import time

TICK = os.sysconf("SC_CLK_TCK")


def stat(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    # fields[0] is field 3 (state); utime and stime are fields 14 and 15; ppid is field 4.
    if fields[0] == "Z":
        return None
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK


def children(parent):
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            s = stat(int(name))
            if s and s[0] == parent:
                found.append(int(name))
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pids")
    parser.add_argument("--parent", type=int)
    parser.add_argument("--out", required=True)
    parser.add_argument("--stop", required=True)
    args = parser.parse_args()
    last_cpu = {}
    rows = []
    while not os.path.exists(args.stop):
        if args.pids:
            with open(args.pids) as f:
                pids = [int(line) for line in f if line.strip()]
            counted = pids
        else:
            pids = children(args.parent)
            counted = pids + [args.parent]
        reserved = 0
        for pid in counted:
            s = stat(pid)
            if s is None:
                continue
            last_cpu[pid] = s[1]
            if pid != args.parent:
                reserved += 1
        rows.append((time.time(), reserved, sum(last_cpu.values())))
        time.sleep(0.25)
    with open(args.out, "w") as f:
        f.write("t_wall_s,reserved,cpu_s\n")
        for t, reserved, cpu in rows:
            f.write(f"{t:.3f},{reserved},{cpu:.2f}\n")


if __name__ == "__main__":
    main()
